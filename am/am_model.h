/*
 * Virtual time, the runtime's side (am_model.c, CM5_MODEL, doc/model.md):
 * an observer of the core that keeps the node's clock (am_event.h); its
 * arithmetic is am_model_calc.c's.
 */
#ifndef CM5_AM_MODEL_H
#define CM5_AM_MODEL_H

#include "cm5/cm5.h"

/* Read CM5_MODEL and its companions (a bad value fails the start) and,
 * when it is on, subscribe to the core's events. */
cm5_status_t cm5i_model_setup(void);
void cm5i_model_teardown(void);

/* Interrupts under synchronised virtual time (doc/model.md,
 * "Interrupts"), called by the interrupt thread owning the runtime while
 * the program is outside it: once the program has computed for the
 * CPU floor since it left the runtime or was last interrupted, it waits
 * by rule (its computation so far charged).  Returns 1 while it waits;
 * cm5i_model_irq_watch_ms() is how long the thread may sleep before it
 * asks again. */
int cm5i_model_irq_idle(void);
int cm5i_model_irq_watch_ms(void);
/* A packet taken while it waited left user work: the program runs on
 * from its handler (am_model_sync.c). */
void cm5i_model_irq_interrupted(void);

#endif

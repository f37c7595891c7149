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
/* The runtime has started: the program's computation is counted from
 * here (the start-up's CPU time is not charged to the clock). */
void cm5i_model_started(void);

#endif

/*
 * Interrupts (am_irq.c): the interrupt thread and signal; the guard
 * (am_guard.h) calls in as the outermost runtime call begins and ends.
 */
#ifndef CM5_AM_IRQ_H
#define CM5_AM_IRQ_H

#include "cm5/cm5.h"

/* Interrupts (am_irq.c): take the runtime for the main thread (the
 * interrupt thread may have it); leave the outermost runtime call
 * (serve a held interrupt, give the runtime back to the thread).  The
 * guard (am_guard.h) calls them once interrupts are enabled. */
void cm5i_irq_acquire(void);
void cm5i_irq_leave(void);
/* Serve an interrupt held by a runtime call, as that call returns. */
void cm5i_irq_deliver(void);
/* Interrupts are disabled: wait until the interrupt thread touches
 * nothing of the runtime any more (before finalize tears it down). */
void cm5i_irq_quiesce(void);
/* Is this the interrupt thread? */
int cm5i_irq_thread(void);
/* Read CM5_INTERRUPT_SIGNAL and _TICK_US. */
void cm5i_irq_config(void);

#endif

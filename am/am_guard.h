/*
 * The guard of every public call that touches the runtime's state
 * (am_guard.c), below every module that has one: the depth of runtime
 * calls, the interrupt flags, and what runs as the outermost call begins
 * and ends -- registered by the interrupts (am_irq.c) and by an observer
 * of the program's computation (virtual time, am_model.c).
 *
 * Interrupts: handlers may run from a signal in the main thread, but
 * never while the main thread is inside the runtime.  Every public call
 * that touches the runtime's state starts with CM5I_GUARD(); an interrupt
 * that comes meanwhile is delivered when the outermost call returns.
 *
 * With interrupts enabled, the interrupt thread drives the network while
 * the main thread is outside the runtime: the runtime's state (endpoints
 * included) belongs to whichever thread owns it, and the outermost guard
 * takes it for the main thread (am_irq.c).  With interrupts disabled the
 * main thread never gives it away and the guard costs one load.
 */
#ifndef CM5_AM_GUARD_H
#define CM5_AM_GUARD_H

#include <signal.h>
#include <stdatomic.h>

#include "am_util.h"

extern volatile sig_atomic_t cm5i_rt_depth;
extern _Atomic int cm5i_irq_pending; /* also read by the interrupt thread */
extern _Atomic int cm5i_irq_active;  /* the thread may own */
extern int cm5i_irq_owned;           /* the main thread owns */
/* Inside the signal handler (sends are queued for the interrupt thread). */
extern volatile sig_atomic_t cm5i_irq_in_signal;
/* An observer watches the outermost calls begin and end. */
extern int cm5i_guard_watched;

/* What else the runtime is inside, by depth. */
typedef struct {
    int in_handler;     /* >0 while a handler runs */
    int in_req_handler; /* a request handler is running */
    int cn_hold;        /* >0 while a control-network call waits */
    int cn_serve;       /* >0: the runtime's own control-network call, an
                         * operation that holds no user work */
    int user_hold;      /* >0: hold all user work (the interrupt thread) */
    int cb_wait;        /* a completion callback runs: 1 + the named waits
                         * under way as it began (0: none runs) */
} cm5i_depth_t;
extern cm5i_depth_t cm5i_depth;

/* The interrupts' side: take the runtime for the main thread; leave the
 * outermost call (serve held interrupts, give the runtime back, set the
 * depth to 0).  Registered before cm5i_irq_active is first set. */
void cm5i_guard_irq(void (*acquire)(void), void (*leave)(void));
/* An observer of the program's computation: enter runs as the outermost
 * call begins (after the runtime is taken), leave as it ends (before it
 * is given back).  NULL, NULL: none. */
void cm5i_guard_watch(void (*enter)(void), void (*leave)(void));

void cm5i_guard_enter_slow(void);
void cm5i_guard_leave_slow(void);

static inline int cm5i_guard_enter(void)
{
    if (cm5i_rt_depth++ == 0 &&
        CM5I_UNLIKELY(cm5i_irq_active | cm5i_guard_watched))
        cm5i_guard_enter_slow();
    return 0;
}
static inline void cm5i_guard_leave(int *unused)
{
    (void)unused;
    if (cm5i_rt_depth == 1 &&
        CM5I_UNLIKELY(cm5i_irq_pending ||
                      cm5i_irq_owned | cm5i_guard_watched)) {
        cm5i_guard_leave_slow();
        return;
    }
    cm5i_rt_depth--;
}
#define CM5I_GUARD()                                                           \
    int cm5i_guard_ __attribute__((cleanup(cm5i_guard_leave), unused)) =       \
        cm5i_guard_enter()

#endif

/*
 * The guard of the runtime's public calls (am_guard.h): the depth of
 * runtime calls, the interrupt flags, and the slow paths of the
 * outermost call's beginning and end.  Calls only what is registered.
 */
#include "am_guard.h"

volatile sig_atomic_t cm5i_rt_depth;
_Atomic int cm5i_irq_pending;
_Atomic int cm5i_irq_active;
int cm5i_irq_owned;
volatile sig_atomic_t cm5i_irq_in_signal;
int cm5i_guard_watched;
cm5i_depth_t cm5i_depth;

static struct {
    void (*acquire)(void), (*leave)(void);    /* the interrupts */
    void (*enter)(void), (*leave_call)(void); /* the observer */
} guard;

void cm5i_guard_irq(void (*acquire)(void), void (*leave)(void))
{
    guard.acquire = acquire;
    guard.leave = leave;
}

void cm5i_guard_watch(void (*enter)(void), void (*leave)(void))
{
    guard.enter = enter;
    guard.leave_call = leave;
    cm5i_guard_watched = enter != NULL;
}

void cm5i_guard_enter_slow(void)
{
    if (cm5i_irq_active)
        guard.acquire();
    if (cm5i_guard_watched) /* charge the computation since the last call */
        guard.enter();
}

void cm5i_guard_leave_slow(void)
{
    if (cm5i_guard_watched)
        guard.leave_call();
    if ((cm5i_irq_pending || cm5i_irq_owned) && guard.leave) {
        guard.leave(); /* the depth goes to 0 there */
        return;
    }
    cm5i_rt_depth--;
}

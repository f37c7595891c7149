/*
 * CMAML active messages on the native cm5_am_* calls.
 */
/* Defines the active-message sends: no checking macros. */
#define CMMD_NO_WORD_CHECK 1
#include <stdarg.h>
#include <stdint.h>

#include "cm/cmmd.h"
#include "cm5/cm5.h"
#include "cmmd_internal.h"

typedef cm5_status_t (*cmaml_send_func_t)(int, cm5_am_handler_func_t, uint32_t,
                                          uint32_t, uint32_t, uint32_t);

/* Report a failed send with the call's name, the node and the fault. */
static void cmaml_check(const char *call, cm5_status_t st, int node,
                        CMAML_handler_t h)
{
    switch (st) {
    case CM5_OK:
        return;
    case CM5_ERR_RANGE:
        cm5c_check_node(call, node, 0);
        break;
    case CM5_ERR_HANDLER:
        cm5_fatal(call,
                  "handler %p is not a function (not in executable "
                  "code of any loaded object)",
                  (void *)(uintptr_t)h);
    case CM5_ERR_STATE:
        cm5_fatal(call, "not allowed here: %s",
                  cm5_in_handler()
                      ? "handlers may send only one kind of message (a "
                        "request handler may CMAML_reply; nothing else may "
                        "be sent from a handler)"
                      : "the runtime is not running");
    default:
        cm5_fatal(call, "sending to node %d failed: %s", node,
                  cm5_status_string(st));
    }
}

/* The handler gets four words (CM5C_WORDS). */
#define CMAML_SEND(call, fn, node, handler)                                    \
    do {                                                                       \
        uint32_t w[4];                                                         \
        CM5C_WORDS(w, handler);                                                \
        cmaml_check(call,                                                      \
                    fn(node, (cm5_am_handler_func_t)(void (*)(void))handler,   \
                       w[0], w[1], w[2], w[3]),                                \
                    node, handler);                                            \
    } while (0)

void CMAML_request(int node, CMAML_handler_t handler, ...)
{
    CM5C_HOLD();
    CMAML_SEND("CMAML_request", cm5_am_request, node, handler);
}

void CMAML_reply(int node, CMAML_handler_t handler, ...)
{
    CM5C_HOLD();
    CMAML_SEND("CMAML_reply", cm5_am_reply, node, handler);
}

void CMAML_rpc(int node, CMAML_handler_t handler, ...)
{
    CM5C_HOLD();
    CMAML_SEND("CMAML_rpc", cm5_am_rpc, node, handler);
}

void CMAML_poll(void)
{
    CM5C_HOLD();
    cm5_poll();
}

void CMAML_poll_while_lt(volatile int *flag, int value)
{
    CM5C_HOLD();
    if (!flag)
        cm5_fatal("CMAML_poll_while_lt", "flag is a null pointer");
    cm5_wait_while_lt(flag, value);
}

/* ---- interrupts ---- */

int CMAML_enable_interrupts(void)
{
    CM5C_HOLD();
    int was = cm5_interrupts_enabled();
    cm5_status_t st = cm5_interrupts_enable();

    if (st == CM5_ERR_STATE)
        cm5_fatal("CMAML_enable_interrupts",
                  "interrupts go to the thread "
                  "that first enabled them; called from another thread");
    if (st != CM5_OK)
        cm5_fatal("CMAML_enable_interrupts", "%s", cm5_status_string(st));
    return was;
}

int CMAML_disable_interrupts(void)
{
    CM5C_HOLD();
    int was = cm5_interrupts_enabled();

    cm5_interrupts_disable();
    return was;
}

int CMAML_interrupt_status(void)
{
    CM5C_HOLD();
    return cm5_interrupts_enabled();
}

int CMAML_inside_interrupt_handler(void)
{
    CM5C_HOLD();
    return cm5_in_interrupt();
}

int CMMD_enable_interrupts(void) { return CMAML_enable_interrupts(); }

int CMMD_disable_interrupts(void) { return CMAML_disable_interrupts(); }

int CMMD_interrupt_status(void)
{
    CM5C_HOLD();
    return cm5_interrupts_enabled();
}

int CMMD_inside_interrupt_handler(void)
{
    CM5C_HOLD();
    return cm5_in_interrupt();
}

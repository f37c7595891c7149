/*
 * Legacy mode (DESIGN.md decision 5, doc/porting.md): the start-up check
 * of the 32-bit build.  CM-5 code ships addresses between nodes (a
 * pointer in an active-message word, &global or a malloc'ed block
 * computed on the sender), which works only when every node has its
 * program, its shared libraries and its heap at the same addresses:
 * non-PIE programs (cm5cc --legacy) started with address randomization
 * off (cm5run does it; setarch -R under other launchers).  Where the
 * addresses differ such code fails silently, so node 0 says so in one
 * line.  The 64-bit build ships no addresses: no check.
 */
#include "config.h"

#include "am_internal.h"

#ifdef CM5_LEGACY_BUILD
#include <stdint.h>
#include <stdlib.h>
#include <sys/auxv.h>

enum { LEG_PROGRAM, LEG_LIBS, LEG_HEAP, LEG_N };

/* The addresses that must agree: the program's headers, a shared library
 * (libc's malloc), and the next heap block (a probe freed at once, which
 * the program's own first allocation of that size reuses). */
static void legacy_addresses(uint32_t a[LEG_N])
{
    void *probe = malloc(64);

    a[LEG_PROGRAM] = (uint32_t)getauxval(AT_PHDR);
    a[LEG_LIBS] = (uint32_t)(uintptr_t)(void *)malloc;
    a[LEG_HEAP] = (uint32_t)(uintptr_t)probe;
    free(probe);
}

/* Node 0 compares every node's addresses with its own as they arrive, in
 * an active message: no collective, whose bookkeeping would allocate
 * differently on every node and shift the heap it checks. */
static uint32_t leg_mine[LEG_N], leg_lo[LEG_N], leg_hi[LEG_N];
static volatile int leg_seen;

static void legacy_handler(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    uint32_t a[LEG_N] = {a0, a1, a2};

    (void)a3;
    for (int i = 0; i < LEG_N; i++) {
        leg_lo[i] = a[i] < leg_lo[i] ? a[i] : leg_lo[i];
        leg_hi[i] = a[i] > leg_hi[i] ? a[i] : leg_hi[i];
    }
    leg_seen++;
}

void cm5i_legacy_check(void)
{
    static const char *const what[LEG_N] = {"program", "library", "heap"};
    cm5_status_t st;

    if (cm5i_ctx.size < 2 || cm5i_ctx.host >= 0) /* the host is another */
        return;                                   /* program            */
    legacy_addresses(leg_mine);
    if (cm5i_ctx.rank != 0) {
        st = cm5_am_request(0, legacy_handler, leg_mine[0], leg_mine[1],
                            leg_mine[2], 0);
        if (st != CM5_OK)
            cm5i_log(CM5I_LOG_WARN, "legacy", "cannot send the address "
                     "check to node 0: %s", cm5_status_string(st));
        return;
    }
    for (int i = 0; i < LEG_N; i++)
        leg_lo[i] = leg_hi[i] = leg_mine[i];
    cm5_wait_while_lt(&leg_seen, cm5i_ctx.size - 1);
    for (int i = 0; i < LEG_N; i++)
        if (leg_lo[i] != leg_hi[i]) {
            cm5i_log(CM5I_LOG_WARN, "legacy",
                     "the nodes' %s addresses differ (0x%08x to 0x%08x): "
                     "CM-5 code that ships addresses will fail; start "
                     "32-bit programs with cm5run or setarch -R, built "
                     "with cm5cc --legacy (doc/porting.md)",
                     what[i], (unsigned)leg_lo[i], (unsigned)leg_hi[i]);
            return; /* one line */
        }
}
#else
void cm5i_legacy_check(void)
{
}
#endif

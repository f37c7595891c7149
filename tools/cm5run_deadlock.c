/*
 * The deadlock check (CM5_DEADLOCK): a job in which every node waits in a
 * blocking call that only a message can end, and no message is in
 * flight, can never go on; cm5run stops it with one line that says what
 * each node waits in, instead of leaving it to hang until --timeout.
 *
 * The nodes say what they do in their doorbell slots (boot_proto.h): the
 * wait they are blocked in (0: they run, or wait for something else),
 * the waits begun, the steps taken, and the packets and tagged transfers
 * sent and received.  cm5run samples the slots once a second.  A job is
 * deadlocked when, at CM5_DEADLOCK + 1 samples in a row (CM5_DEADLOCK
 * seconds), every node is blocked in the same wait as before, has sent
 * and received nothing since, and has taken a step since (it polled and
 * still found nothing), and the job's sends and receipts balance:
 * nothing is in flight that could end a wait.  A node that computes, a
 * node that sleeps too long to step, a message that travels, a node that
 * waits for a predicate of its own: any of these keeps the job alive, so
 * a slow machine can only delay the verdict, never cause it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cm5run.h"

#include "boot_env.h"
#include "waits.h"

#define DEADLOCK_PERIOD_MS 1000

/* One node's slot as sampled. */
struct dl_node {
    uint32_t wait, wait_seq, steps;
    uint64_t tx, rx;
};

void cr_deadlock_setup(struct job *j)
{
    const char *v = getenv(CM5_ENV_DEADLOCK);
    char *end;
    long s = 3;
    void *p;

    j->dl_need = 0;
    if (v && *v) {
        errno = 0;
        s = strtol(v, &end, 10);
        if (errno || *end || s < 0 || s > 86400) {
            cr_msg("%s=%s: expected seconds from 0 (no check) to 86400; "
                   "the job runs without the deadlock check",
                   CM5_ENV_DEADLOCK, v);
            return;
        }
    }
    if (s == 0 || j->doorbell_fd < 0)
        return;
    j->dl_len = CM5_DOORBELL_SIZE(j->o->procs);
    p = mmap(NULL, j->dl_len, PROT_READ, MAP_SHARED, j->doorbell_fd, 0);
    j->dl_prev = calloc((size_t)j->o->procs, sizeof(struct dl_node));
    if (p == MAP_FAILED || !j->dl_prev) {
        if (p != MAP_FAILED)
            munmap(p, j->dl_len);
        free(j->dl_prev);
        j->dl_prev = NULL;
        return;
    }
    j->dl_bell = (const cm5_doorbell_slot_t *)p + CM5_DOORBELL_FIRST;
    j->dl_need = (int)s;
    j->dl_next = cr_now_ms() + DEADLOCK_PERIOD_MS;
}

void cr_deadlock_free(struct job *j)
{
    if (j->dl_bell)
        munmap((void *)(j->dl_bell - CM5_DOORBELL_FIRST), j->dl_len);
    j->dl_bell = NULL;
    free(j->dl_prev);
    j->dl_prev = NULL;
}

int64_t cr_deadlock_next(const struct job *j)
{
    return j->dl_bell && !j->stopping ? j->dl_next : INT64_MAX;
}

/* What each node waits in, in words, into buf. */
static void dl_describe(const struct job *j, const struct dl_node *n, char *buf,
                        size_t size)
{
    uint32_t *wait = calloc((size_t)j->o->procs, sizeof(*wait));

    if (!wait) {
        snprintf(buf, size, "(out of memory)");
        return;
    }
    for (int i = 0; i < j->o->procs; i++)
        wait[i] = n[i].wait;
    cm5_waits_describe(wait, j->o->nodes, j->o->host_argv ? j->o->nodes : -1,
                       buf, size);
    free(wait);
}

void cr_deadlock_check(struct job *j)
{
    int procs = j->o->procs, same = j->dl_streak > 0;
    struct dl_node *prev = j->dl_prev, cur;
    uint64_t tx = 0, rx = 0;
    int blocked = 1;
    char what[1024];

    if (!j->dl_bell || j->stopping || cr_now_ms() < j->dl_next)
        return;
    j->dl_next = cr_now_ms() + DEADLOCK_PERIOD_MS;
    if (j->launched < procs || j->alive < procs) {
        j->dl_streak = 0;
        return;
    }
    for (int i = 0; i < procs; i++) {
        const cm5_doorbell_slot_t *d = &j->dl_bell[i];

        cur.steps = atomic_load_explicit(&d->steps, memory_order_acquire);
        cur.wait = atomic_load_explicit(&d->wait, memory_order_acquire);
        cur.wait_seq = atomic_load_explicit(&d->wait_seq, memory_order_relaxed);
        cur.tx = atomic_load_explicit(&d->tx, memory_order_relaxed);
        cur.rx = atomic_load_explicit(&d->rx, memory_order_relaxed);
        blocked &= cur.wait != 0 && cur.wait < CM5_WAIT_KINDS;
        tx += cur.tx;
        rx += cur.rx;
        same &= cur.wait == prev[i].wait && cur.wait_seq == prev[i].wait_seq &&
                cur.tx == prev[i].tx && cur.rx == prev[i].rx &&
                cur.steps != prev[i].steps;
        prev[i] = cur;
    }
    if (!blocked || tx != rx) {
        j->dl_streak = 0;
        return;
    }
    j->dl_streak = same ? j->dl_streak + 1 : 1;
    if (j->dl_streak <= j->dl_need)
        return;
    dl_describe(j, prev, what, sizeof(what));
    cr_msg("deadlock: every node has waited for a message for %d s and none "
           "is in flight: %s; stopping the job (%s=0: no check)",
           j->dl_need, what, CM5_ENV_DEADLOCK);
    cr_stop_job(j, 1);
}

/*
 * The protocol between cm5run and a node's local bootstrap, in one header
 * both halves include: the node's (boot_local.c, in the library) and the
 * launcher's (boot_server.c, linked into cm5run).
 *
 * Environment: cm5run sets CM5_RANK, CM5_SIZE, CM5_HOST, CM5_JOB_KEY,
 * CM5_BOOT_FD, CM5_DOORBELL_FD and CM5_LAUNCHER (names in boot_env.h).
 *
 * Bootstrap socket (CM5_BOOT_FD), one allgather per round: every node
 * writes one record, a length prefix (cm5_boot_len_t, host byte order:
 * the job runs on one host) and that many bytes; once all have written,
 * cm5run answers each with a count prefix (the number of records) and
 * every node's record, prefix and bytes, in node order.
 *
 * Doorbell (CM5_DOORBELL_FD): shared memory of CM5_DOORBELL_SIZE(n)
 * bytes for n endpoints, one cache-line slot each; slot 0 holds the
 * job's own words (cm5_doorbell_job_t, written by the nodes only), node
 * k's is slot k + 1.  Then virtual time's synchronisation area
 * (CM5_VSYNC_*, below), which only the nodes read and write.
 */
#ifndef CM5_BOOT_PROTO_H
#define CM5_BOOT_PROTO_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* ---- bootstrap framing ---- */
typedef uint32_t cm5_boot_len_t;
#define CM5_BOOT_PREFIX sizeof(cm5_boot_len_t)
/* Largest record cm5run accepts. */
#define CM5_BOOT_MAX_RECORD (1024u * 1024u)
/* Bytes of cm5run's answer to n records of len bytes each. */
#define CM5_BOOT_ANSWER_SIZE(n, len)                                           \
    (CM5_BOOT_PREFIX + (size_t)(n) * (CM5_BOOT_PREFIX + (size_t)(len)))

_Static_assert(CM5_BOOT_PREFIX == 4, "bootstrap prefixes are 32-bit");
_Static_assert(CM5_BOOT_MAX_RECORD <= UINT32_MAX,
               "a record's length fits its prefix");

/* ---- doorbell ---- */
#define CM5_DOORBELL_STRIDE 64 /* bytes per slot: one cache line */
#define CM5_DOORBELL_FIRST 1   /* slot of node 0 */
#define CM5_DOORBELL_SLOTS_SIZE(nep)                                           \
    ((size_t)CM5_DOORBELL_STRIDE * ((size_t)(nep) + CM5_DOORBELL_FIRST))
/* Virtual time's synchronisation (am/am_model_sync.c, doc/model.md):
 * after the slots, one cm5_vsync_rec_t per endpoint, then n x n counts
 * (uint32_t): count[j * n + k] is how many ordered packets node j has
 * taken from node k. */
#define CM5_VSYNC_RECS(nep) CM5_DOORBELL_SLOTS_SIZE(nep)
#define CM5_VSYNC_COUNTS(nep)                                                  \
    (CM5_VSYNC_RECS(nep) + (size_t)CM5_DOORBELL_STRIDE * (size_t)(nep))
#define CM5_VSYNC_LINKS(nep)                                                   \
    (CM5_VSYNC_COUNTS(nep) +                                                   \
     ((4 * (size_t)(nep) * (size_t)(nep) + CM5_DOORBELL_STRIDE - 1) &          \
      ~(size_t)(CM5_DOORBELL_STRIDE - 1)))
/* Then the fat tree's shared links (doc/model.md, "Shared links"), when
 * the job has more than one cluster of 4: a header (cm5_vsync_links_t)
 * and, for each link (the up- and down-link of every cluster of 4, then
 * of every group of 16 when there are several), a calendar of
 * cm5_vsync_link_r(nep) buckets of two uint32_t (the bucket's number + 1,
 * 0 for none yet; the packets it carries).  The pages are touched only
 * when the model shares links (the memory is sparse). */
static inline size_t cm5_vsync_link_count(size_t nep)
{
    size_t c = (nep + 3) / 4, g = (nep + 15) / 16;

    return (c > 1 ? 2 * c : 0) + (g > 1 ? 2 * g : 0);
}
/* Buckets a link: 2^17, fewer (a power of two, at least 2^10) so that all
 * calendars stay within 64 MiB. */
static inline size_t cm5_vsync_link_r(size_t nep)
{
    size_t l = cm5_vsync_link_count(nep), r = (size_t)1 << 17;

    while (l && r > 1024 && l * r > ((size_t)1 << 23))
        r >>= 1;
    return l ? r : 0;
}
#define CM5_VSYNC_LINKS_SIZE(nep)                                              \
    (cm5_vsync_link_count(nep)                                                 \
         ? CM5_DOORBELL_STRIDE +                                               \
               8 * cm5_vsync_link_count(nep) * cm5_vsync_link_r(nep)           \
         : 0)
#define CM5_DOORBELL_SIZE(nep)                                                 \
    (CM5_VSYNC_LINKS(nep) + CM5_VSYNC_LINKS_SIZE(nep))

/* One node's slot.  Senders ring it (seq, a futex) when the node sleeps
 * or takes interrupts; nodes read each other's cpu.  For the launcher's
 * deadlock check (CM5_DEADLOCK), a node waiting in a blocking call of the
 * runtime that only a message can end says so: what it waits in (wait,
 * a CM5_WAIT_* of the list below; 0 while it runs or waits for anything
 * else), the waits it has begun (wait_seq), the wait steps it has taken
 * since (steps: it still looks), and the packets and tagged transfers it
 * has handed to the fabric and taken from it (tx, rx), as they stood at
 * its last step. */
typedef struct {
    _Atomic uint32_t seq;
    _Atomic uint32_t sleeping; /* the node sleeps: wake it */
    _Atomic uint32_t irq;      /* interrupts enabled: always wake it */
    _Atomic uint32_t cpu;      /* 1 + the CPU it last waited on; 0: unknown */
    _Atomic uint32_t wait;     /* CM5_WAIT_*: blocked in it; 0: not */
    _Atomic uint32_t wait_seq; /* waits begun */
    _Atomic uint32_t steps;    /* wait steps taken */
    _Atomic uint32_t pid;      /* the node's process (single copy) */
    _Atomic uint64_t tx, rx;   /* sent, received: packets, tagged transfers */
    char pad[CM5_DOORBELL_STRIDE - 8 * sizeof(uint32_t) - 2 * sizeof(uint64_t)];
} cm5_doorbell_slot_t;

/* Slot 0: the barrier of a job whose nodes all share this memory
 * (am_barrier.c): the nodes that have arrived at the barrier under way,
 * and the barriers ended so far. */
typedef struct {
    _Atomic uint32_t bar_count;
    _Atomic uint32_t bar_gen;
    char pad[CM5_DOORBELL_STRIDE - 2 * sizeof(uint32_t)];
} cm5_doorbell_job_t;
_Static_assert(sizeof(cm5_doorbell_job_t) == CM5_DOORBELL_STRIDE,
               "the job's words are one slot");

/* A node's record in virtual time's synchronisation: nothing it sends
 * from now on is due at another node before bound (virtual ns; it only
 * grows); want: the bound it waits for the others to pass, to be woken
 * (UINT64_MAX: none); the control-network operations it has begun and
 * its clock as it began the last; reach: while it is in that operation,
 * the least due of what it may send before the operation ends (its held
 * packets' handlers, its packets in flight), which its bound, derived
 * from the operation's end, does not say; the host collectives it has
 * begun (the nodes' and the host's operations, am_host.c), its clock as
 * it began the last and the end of the last it left. */
typedef struct {
    _Atomic uint64_t bound;
    _Atomic uint64_t want;
    _Atomic uint64_t cn_entry;
    _Atomic uint32_t cn_ops;
    _Atomic uint32_t host_ops;
    _Atomic uint64_t reach;
    _Atomic uint64_t host_entry;
    _Atomic uint64_t host_end;
    char pad[CM5_DOORBELL_STRIDE - 7 * sizeof(uint64_t)];
} cm5_vsync_rec_t;
_Static_assert(sizeof(cm5_vsync_rec_t) == CM5_DOORBELL_STRIDE,
               "a synchronisation record is one stride");

/* The links' header: the last decision that placed packets on them, its
 * clock and node, and the decisions so far (their order is checked:
 * am_model_sync.c, cm5i_msync_link_turn). */
typedef struct {
    _Atomic uint64_t last_clock;
    _Atomic uint32_t last_node;
    _Atomic uint32_t decisions;
    char pad[CM5_DOORBELL_STRIDE - 2 * sizeof(uint64_t)];
} cm5_vsync_links_t;
_Static_assert(sizeof(cm5_vsync_links_t) == CM5_DOORBELL_STRIDE,
               "the links' header is one stride");

_Static_assert(sizeof(cm5_doorbell_slot_t) == CM5_DOORBELL_STRIDE,
               "a doorbell slot is one stride");
_Static_assert(offsetof(cm5_doorbell_slot_t, seq) == 0 &&
                   offsetof(cm5_doorbell_slot_t, sleeping) == 4 &&
                   offsetof(cm5_doorbell_slot_t, irq) == 8 &&
                   offsetof(cm5_doorbell_slot_t, cpu) == 12 &&
                   offsetof(cm5_doorbell_slot_t, wait) == 16 &&
                   offsetof(cm5_doorbell_slot_t, wait_seq) == 20 &&
                   offsetof(cm5_doorbell_slot_t, steps) == 24 &&
                   offsetof(cm5_doorbell_slot_t, tx) == 32 &&
                   offsetof(cm5_doorbell_slot_t, rx) == 40,
               "doorbell slot fields at fixed offsets");

/* The blocking waits of the runtime, X(NAME, "what the launcher says",
 * blocked): blocked 1 when only a message can end it (a barrier, a
 * collective, a message's completion, credits, CMAML_poll_while_lt's
 * flag, set by handlers), 0 when the node waits for a resource of its own
 * (the provider's room), for a predicate of the program's, or for its
 * shut-down.  A node in a blocked wait says so in its slot. */
#define CM5_WAITS(X)                                                           \
    X(UNTIL, "cm5_wait_until", 0)                                              \
    X(WHILE_LT, "CMAML_poll_while_lt", 1)                                      \
    X(BARRIER, "barrier", 1)                                                   \
    X(COLL, "collective", 1)                                                   \
    X(REDUCE, "reduction", 1)                                                  \
    X(SCAN, "scan", 1)                                                         \
    X(SPLIT, "split-phase collective", 1)                                      \
    X(SEGSCAN, "segmented scan", 1)                                            \
    X(MSG_RECV_ROOM, "message receive: provider room", 0)                      \
    X(MSG_SEND_ROOM, "message send: provider room", 0)                         \
    X(MSG_DONE, "message completion", 1)                                       \
    X(SHUTDOWN, "shut-down: sends in flight", 0)                               \
    X(SENDQ, "send: the signal handler's queue", 0)                            \
    X(CREDITS, "send: credits", 1)                                             \
    X(SEND_ROOM, "send: provider room", 0)                                     \
    X(ORDERED, "ordered output", 1)
enum {
    CM5_WAIT_NONE, /* not in a named wait (a probe loop's pacing) */
#define CM5_WAIT_ENUM(k, name, blocked) CM5_WAIT_##k,
    CM5_WAITS(CM5_WAIT_ENUM)
#undef CM5_WAIT_ENUM
        CM5_WAIT_KINDS
};
_Static_assert(sizeof(_Atomic uint32_t) == 4 && alignof(_Atomic uint32_t) <= 4,
               "a doorbell word is a plain 32-bit word (the futex)");

/* ---- the launcher's half (boot_server.c) ---- */
/* The allgather rounds of procs nodes, each on a socket of its own,
 * served without blocking from a poll() loop.  A fault (a record over
 * CM5_BOOT_MAX_RECORD, no memory) stops the server: it serves nothing
 * more, and the launcher stops the job. */
typedef struct cm5_boot_server cm5_boot_server_t;

/* NULL: out of memory. */
cm5_boot_server_t *cm5_boot_server_new(int procs);
/* Closes the sockets it was given. */
void cm5_boot_server_free(cm5_boot_server_t *s);
/* Node rank's end of its socket (the server owns it from now on and
 * makes it non-blocking). */
void cm5_boot_server_attach(cm5_boot_server_t *s, int rank, int fd);
/* The socket to poll for node rank and what for (POLLIN, POLLOUT), or
 * -1 when there is nothing to do on it. */
int cm5_boot_server_pollfd(const cm5_boot_server_t *s, int rank, short *events);
/* Send what node rank's socket takes of its answer, then read what it
 * holds.  0; or a fault, after which the server serves no more and
 * returns it again, with one line in err: -1 the node's ("sent a
 * bootstrap message of N bytes (limit M)"), -2 the launcher's ("out of
 * memory in the bootstrap"). */
int cm5_boot_server_serve(cm5_boot_server_t *s, int rank, char *err,
                          size_t errlen);
/* Node rank has exited: nobody reads its answer any more; what it wrote
 * before may still complete the round.  Returns as _serve. */
int cm5_boot_server_gone(cm5_boot_server_t *s, int rank, char *err,
                         size_t errlen);
/* A round is under way: some node has sent part of its record. */
int cm5_boot_server_active(const cm5_boot_server_t *s);
/* Node rank has sent its whole record for this round. */
int cm5_boot_server_joined(const cm5_boot_server_t *s, int rank);
/* The rounds completed so far. */
unsigned long cm5_boot_server_rounds(const cm5_boot_server_t *s);

#endif

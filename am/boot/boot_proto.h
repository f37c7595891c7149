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
 * bytes for n endpoints, one cache-line slot each; slot 0 is unused,
 * node k's is slot k + 1.
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
#define CM5_DOORBELL_SIZE(nep)                                                 \
    ((size_t)CM5_DOORBELL_STRIDE * ((size_t)(nep) + CM5_DOORBELL_FIRST))

/* One node's slot.  Senders ring it (seq, a futex) when the node sleeps
 * or takes interrupts; nodes read each other's cpu. */
typedef struct {
    _Atomic uint32_t seq;
    _Atomic uint32_t sleeping; /* the node sleeps: wake it */
    _Atomic uint32_t irq;      /* interrupts enabled: always wake it */
    _Atomic uint32_t cpu;      /* 1 + the CPU it last waited on; 0: unknown */
    char pad[CM5_DOORBELL_STRIDE - 4 * sizeof(uint32_t)];
} cm5_doorbell_slot_t;

_Static_assert(sizeof(cm5_doorbell_slot_t) == CM5_DOORBELL_STRIDE,
               "a doorbell slot is one stride");
_Static_assert(offsetof(cm5_doorbell_slot_t, seq) == 0 &&
                   offsetof(cm5_doorbell_slot_t, sleeping) == 4 &&
                   offsetof(cm5_doorbell_slot_t, irq) == 8 &&
                   offsetof(cm5_doorbell_slot_t, cpu) == 12,
               "doorbell slot fields at fixed offsets");
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

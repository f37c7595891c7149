/*
 * The protocol between cm5run (tools/cm5run.c) and a node's local
 * bootstrap (boot_local.c), in one header both include.
 *
 * Environment: cm5run sets CM5_RANK, CM5_SIZE, CM5_HOST, CM5_JOB_KEY,
 * CM5_BOOT_FD, CM5_DOORBELL_FD and CM5_LAUNCHER (names in am_env.h).
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
#define CM5_BOOT_ANSWER_SIZE(n, len)                                          \
    (CM5_BOOT_PREFIX + (size_t)(n) * (CM5_BOOT_PREFIX + (size_t)(len)))

_Static_assert(CM5_BOOT_PREFIX == 4, "bootstrap prefixes are 32-bit");
_Static_assert(CM5_BOOT_MAX_RECORD <= UINT32_MAX,
               "a record's length fits its prefix");

/* ---- doorbell ---- */
#define CM5_DOORBELL_STRIDE 64 /* bytes per slot: one cache line */
#define CM5_DOORBELL_FIRST 1   /* slot of node 0 */
#define CM5_DOORBELL_SIZE(nep)                                                \
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
_Static_assert(sizeof(_Atomic uint32_t) == 4 &&
                   alignof(_Atomic uint32_t) <= 4,
               "a doorbell word is a plain 32-bit word (the futex)");

#endif

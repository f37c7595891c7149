/*
 * A CM5_MODEL value: the virtual-time model's parameters, its presets
 * ("cm5", "logp") and the grammar of CM5_MODEL, CM5_MODEL_CPU_SCALE and
 * CM5_MODEL_CPU_FLOOR (doc/model.md).  The library (am_model.c) and
 * cm5run (which checks a --model value before it starts a node) link the
 * one object (libcm5spec.la); it is part of the launcher contract, with
 * boot_proto.h and boot_env.h.
 */
#ifndef CM5_BOOT_MODEL_SPEC_H
#define CM5_BOOT_MODEL_SPEC_H

#include <stddef.h>
#include <stdint.h>

/* A model's costs, in nanoseconds. */
typedef struct {
    char name[8];    /* "cm5" or "logp" */
    int64_t os, orr; /* send, receive overhead per 16-byte packet */
    int64_t L;       /* network latency */
    int64_t g;       /* gap: least time per packet at an input link */
    int64_t pkt[4];  /* a 16-byte packet's link time by fat-tree level */
    int64_t ms, mr;  /* a CMMD message's software overhead: send, receive */
    int64_t mx;      /* more on each side when the node has messages the
                        other way open (doc/model.md, "Both ways") */
    int64_t irq;     /* more for a user handler run while interrupts are
                        on (the CM-5's interrupt; doc/model.md) */
    int64_t il;      /* non-zero: interleaved receipt (synchronised;
                        doc/model.md), il=1 */
    int64_t sw;      /* more per packet for a receiver interleaving c >= 2
                        pushes: sw * floor(log2 c) (synchronised, il=1;
                        doc/model.md, "Switching between pushes") */
    int64_t bc;      /* non-zero: receipt beside the clock (synchronised,
                        interleaved; doc/model.md): a busy receiver takes
                        what comes due between its packets, bc=1 */
    int64_t lk;      /* non-zero: the fat tree's links are shared
                        (synchronised; doc/model.md, "Shared links"), lk=1 */
    int64_t lkp[4];  /* a link's time for one 16-byte packet, per node
                        below it, by level: [2] a cluster of 4's up- and
                        down-link (lk2, MB/s a node), [3] a group of
                        16's (lk3) */
    int64_t lkb;     /* a bucket of the links' calendars (lkb) */
    int64_t bar;     /* a barrier (control network) */
    int64_t red;     /* an integer reduction or scan of one element */
    int64_t redf;    /* a floating-point one */
    int64_t redv;    /* each further element of a vector reduction or scan */
    int64_t cnb;     /* broadcast and concatenation, per byte */
    int64_t clk;     /* reading the clock (cm5_wtime, node timers) */
    int64_t poll;    /* a probe in a program's loop (CMAML_poll, a test)
                        when the nodes are synchronised */
    int64_t pj;      /* polls a probe may take at once in a loop of
                        probes that keeps finding nothing (synchronised;
                        doc/model.md, "Loops of probes"); 0: one */
} cm5i_model_params_t;

/* Parse CM5_MODEL_CPU_SCALE or CM5_MODEL_CPU_FLOOR: 0 and *v when s is
 * a number from 0 to 1e9, else -1. */
int cm5i_model_number(const char *s, double *v);

/* Parse CM5_MODEL_JITTER: 0 and *seed when s is a non-negative integer
 * (0: off), else -1. */
int cm5i_model_seed(const char *s, unsigned long long *seed);

/* Parse a CM5_MODEL value: 0 and *p filled (on: 1 in *on), or -1 with
 * one line in err saying what is wrong. */
int cm5i_model_parse(const char *spec, int *on, cm5i_model_params_t *p,
                     char *err, size_t errlen);

#endif

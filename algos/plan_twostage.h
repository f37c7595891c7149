/*
 * The two-stage bounded-traffic algorithm (ranka1995 section 6;
 * ALGORITHMS.md 2.3) and liu2002's A2 (3.2), the pure part: how a source
 * splits its row over the intermediates (Stg1lpp, Bader's bins), the
 * message headers, Stg2pp at an intermediate and the reassembly at a
 * destination.  No communication; run_twostage.c moves the messages.
 *
 * A stage message is a header of 32-bit words followed by its payload,
 * the chunks in increasing index order (destination j in stage 1, source
 * i in stage 2):
 *   dense  [total, len_0, ..., len_{p-1}]                  (the paper's)
 *   sparse [total, n, (idx, len, off) x n]   (nonzero chunks only, with
 *           the offset of each chunk inside its pair (i, j))
 * The chunks of a pair (i, j) are consecutive pieces of it laid out in
 * intermediate order k = 0 .. p-1 (also with the reshuffle and Bader's
 * bins), so a destination given dense headers can rebuild every offset
 * as the sum of the lengths held by the intermediates before k.
 */
#ifndef CM5S_PLAN_TWOSTAGE_H
#define CM5S_PLAN_TWOSTAGE_H

#include <stddef.h>
#include <stdint.h>

#include "sched_internal.h"

/* Unknown offset (dense headers carry none). */
#define CM5S_NO_OFF SIZE_MAX

/* How source i splits its row: chunk k of pair (i, j) goes through
 * intermediate k. */
typedef struct {
    int p;
    size_t *part;  /* [k * p + j]: elements of pair (i, j) via k */
    size_t *off;   /* [k * p + j]: where that chunk starts in pair (i, j) */
    size_t *total; /* [k]: payload elements of the message to k */
} cm5s_split_t;

/* 0, or -1 when out of memory. */
int cm5s_split_init(cm5s_split_t *s, int p);
void cm5s_split_fini(cm5s_split_t *s);

/* Stg1lpp (ranka1995 Fig. 7 as corrected in ALGORITHMS.md 2.3.1): every
 * intermediate gets a[j] div p of each pair; the leftovers of the whole
 * row are dealt by one round-robin counter, never reset, starting at
 * k = 0 (k = i with rotate).  shuffle (or NULL): ranka1995 6.3, permute
 * at random which intermediate gets which message among the messages of
 * equal size. */
void cm5s_stg1lpp(cm5s_split_t *s, int i, const size_t *a, int rotate,
                  cm5s_rng_t *shuffle);
/* A2 after Bader et al.: the elements of pair (i, j) are dealt into the
 * p bins round robin from bin (i + j) mod p (as segments). */
void cm5s_stg1_bader(cm5s_split_t *s, int i, const size_t *a);

/* Header bytes of a message whose chunks have lengths len[0..p). */
size_t cm5s_hdr_bytes(int p, int sparse, const size_t *len);
/* The largest header of a message of at most n payload elements. */
size_t cm5s_hdr_max(int p, int sparse, size_t n);
/* Write the header; off may be NULL for dense.  Header bytes, or 0 when a
 * value does not fit a 32-bit word. */
size_t cm5s_hdr_write(void *msg, int p, int sparse, const size_t *len,
                      const size_t *off);
/* Read the header of msg (msglen bytes, elements of esz bytes): len[] and
 * off[] over 0..p (off CM5S_NO_OFF for dense).  Header bytes, or 0 when
 * the message is malformed (indices out of range or not increasing, the
 * lengths do not add up to total, or total does not match msglen). */
size_t cm5s_hdr_read(const void *msg, size_t msglen, int p, int sparse,
                     size_t esz, size_t *len, size_t *off);

/* Source: stage-1 message to intermediate k from the pairs in sbuf at
 * element displacements sdispl[j]: header + chunk (j, k) for every j.
 * Message bytes, or 0 when the header overflows. */
size_t cm5s_pack1(char *msg, int sparse, size_t esz, const cm5s_split_t *s,
                  int k, const char *sbuf, const size_t *sdispl);

/* Stg2pp (ranka1995 Fig. 8 as corrected in ALGORITHMS.md 2.3.3): given
 * the lengths len1[i * p + j] of the chunks (i, j) held here, fwd[i * p +
 * j] = element position of chunk (i, j) in the payload of slot i, and
 * tot[j] = payload of the stage-2 message to j. */
void cm5s_stg2pp(int p, const size_t *len1, size_t *fwd, size_t *tot);

/* Intermediate: stage-2 message to j, header + chunk (i, j) for every i,
 * from the payloads pay[i] of the stage-1 slots.  col_len / col_off are
 * scratch of p entries.  Message bytes, or 0 when the header overflows. */
size_t cm5s_pack2(char *msg, int p, int sparse, size_t esz, int j,
                  const size_t *len1, const size_t *off1, const size_t *fwd,
                  const char *const *pay, size_t *col_len, size_t *col_off);

/* Destination: place the chunks of the stage-2 messages msg[k] (mlen[k]
 * bytes, 0: none) at rbuf + (rdispl[i] + offset) * esz.  Each source's
 * chunks must exactly fill rcount[i].  maxlen (or NULL): the largest
 * payload of the messages k != skip.  0, or -1 with a reason in err. */
int cm5s_unpack2(int p, int sparse, size_t esz, const char *const *msg,
                 const size_t *mlen, char *rbuf, const size_t *rcount,
                 const size_t *rdispl, int skip, size_t *maxlen, char *err,
                 size_t errlen);

#endif /* CM5S_PLAN_TWOSTAGE_H */

/*
 * DRS_N / DRS_N+ (ALGORITHMS.md 1.5, 1.6): the pure parts, without any
 * communication -- the receiver's busy lock (test-and-set with at most
 * one early go-ahead), the busy measure and the mu/tau/theta estimates,
 * the sender's choice of the next destination, and message splitting.
 * run_drs.c calls them from its handlers and its sender loop.
 */
#ifndef CM5S_PLAN_DRS_H
#define CM5S_PLAN_DRS_H

#include <stddef.h>
#include <stdint.h>

/* ---- estimates of tau (start-up) and mu (time per byte) ---------------- */

typedef struct {
    double rtt_s;      /* moving average of the INQ round trip; <0: none */
    double n, sb, sdt; /* completed incoming transfers: count, sum of */
    double sbb, sbdt;  /* bytes, of grant-to-arrival times, b*b, b*dt */
} cm5s_drs_est_t;

/* Prior when nothing was measured yet. */
#define CM5S_DRS_PRIOR_TAU_S 20e-6
#define CM5S_DRS_PRIOR_MU_S 1e-9

void cm5s_drs_est_init(cm5s_drs_est_t *e);
void cm5s_drs_est_rtt(cm5s_drs_est_t *e, double rtt_s);
/* One incoming transfer of bytes took dt_s from grant to arrival. */
void cm5s_drs_est_transfer(cm5s_drs_est_t *e, double bytes, double dt_s);
/* The tau and mu in use (seconds, seconds per byte): the options when
 * they are >= 0, else the least-squares fit dt = tau + mu * bytes of the
 * measured transfers (or the INQ round trip and the prior). */
void cm5s_drs_est_get(const cm5s_drs_est_t *e, double opt_mu_ns_per_byte,
                      double opt_tau_us, double *tau_s, double *mu_s);
/* Early go-ahead window in seconds: opt_theta_us when > 0, 0 when 0
 * (disabled), else the measured INQ round trip plus tau. */
double cm5s_drs_theta(const cm5s_drs_est_t *e, double opt_theta_us,
                      double tau_s);
/* Remaining time of a transfer of bytes granted at t_grant, at now
 * (start_time + tau + bytes * mu - now, never negative). */
double cm5s_drs_remaining(double t_grant, double bytes, double tau_s,
                          double mu_s, double now);

/* ---- the receiver's busy lock ------------------------------------------ */

typedef struct {
    int src;        /* granted sender; -1: the slot is free */
    int rport;      /* where its data lands */
    double bytes;   /* length of the granted transfer */
    double t_grant; /* when it was granted */
    int landed;     /* its data arrived */
    int released;   /* its RELEASE arrived (drs_release=sender) */
} cm5s_drs_slot_t;

/* FREE: no slot used; BUSY(owner): one; BUSY(owner, next): both (the
 * early go-ahead).  A slot is freed when its data has landed and, with
 * need_release, its sender's RELEASE has arrived too. */
typedef struct {
    cm5s_drs_slot_t slot[2];
    int need_release;
    int in_flight; /* granted transfers whose data has not landed */
    int max_in;    /* most transfers in flight at once */
} cm5s_drs_lock_t;

void cm5s_drs_lock_init(cm5s_drs_lock_t *l, int need_release);
/* Slots in use (0: FREE). */
int cm5s_drs_lock_used(const cm5s_drs_lock_t *l);

/* Parameters of the decision, fixed for one call. */
typedef struct {
    int early;      /* early go-ahead allowed (DRS_N+ with theta > 0) */
    double theta_s; /* go-ahead window */
    double tau_s, mu_s;
} cm5s_drs_policy_t;

/* Test-and-set for an INQ of src for bytes at now: the slot granted (its
 * rport is set to rport), or -1 (DENY) with *busy_s the estimated time
 * until the lock can grant again (+ tau). */
int cm5s_drs_lock_inq(cm5s_drs_lock_t *l, const cm5s_drs_policy_t *pol, int src,
                      int rport, double bytes, double now, double *busy_s);
/* Data of slot s landed: 1 if the slot is now free, 0 if it waits for
 * the RELEASE, -1 if s was not granted or already landed. */
int cm5s_drs_lock_landed(cm5s_drs_lock_t *l, int s);
/* RELEASE from src for slot s: 1 if the slot is now free, 0 if its data
 * has not landed yet, -1 if s is not granted to src or already released. */
int cm5s_drs_lock_release(cm5s_drs_lock_t *l, int s, int src);

/* ---- sender ------------------------------------------------------------ */

/* Position in order[0..n) of the first destination, starting at start
 * and going round, whose not_before time has come; -1 if none, with
 * *wake the earliest not_before. */
int cm5s_drs_next(const int *order, int n, int start, const double *not_before,
                  double now, double *wake);
/* drs_chunk_max: its default, and its largest value (an rport's byte
 * counter and CMAML lengths are int). */
#define CM5S_DRS_CHUNK_DEFAULT ((size_t)1 << 30)
#define CM5S_DRS_CHUNK_LIMIT ((size_t)2147483647)

/* Length of the next piece of a message with left bytes still to send:
 * at most max_chunk (the option drs_chunk_max). */
size_t cm5s_drs_chunk(size_t left, size_t max_chunk);

#endif /* CM5S_PLAN_DRS_H */

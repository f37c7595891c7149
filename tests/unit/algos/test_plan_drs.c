/*
 * The pure parts of DRS_N / DRS_N+ (algos/plan_drs.c): the busy lock with
 * its early go-ahead, the busy measure, the tau/mu/theta estimates, the
 * sender's choice of the next destination and message splitting
 * (ALGORITHMS.md 1.5, 1.6, [AMB-5]).
 */
#include <criterion/criterion.h>
#include <math.h>

#include "plan_drs.h"
#include "sched_internal.h"

TestSuite(plan_drs, .timeout = 10);

static const cm5s_drs_policy_t plain = {0, 0, 10e-6, 1e-9};
static const cm5s_drs_policy_t early = {1, 30e-6, 10e-6, 1e-9};

Test(plan_drs, test_and_set_grants_one_sender)
{
    cm5s_drs_lock_t l;
    double busy = -1;

    cm5s_drs_lock_init(&l, 0);
    cr_assert_eq(cm5s_drs_lock_used(&l), 0);
    cr_assert_eq(cm5s_drs_lock_inq(&l, &plain, 3, 7, 1000, 0.0, &busy), 0);
    cr_assert_eq(l.slot[0].src, 3);
    cr_assert_eq(l.slot[0].rport, 7);
    cr_assert_eq(cm5s_drs_lock_used(&l), 1);
    /* Busy: 1000 bytes at 1 ns + 10 us start-up, 2 us later, + tau. */
    cr_assert_eq(cm5s_drs_lock_inq(&l, &plain, 4, 8, 10, 2e-6, &busy), -1);
    cr_assert_float_eq(busy, 10e-6 + 1e-6 - 2e-6 + 10e-6, 1e-12);
    cr_assert_eq(cm5s_drs_lock_landed(&l, 0), 1);
    cr_assert_eq(cm5s_drs_lock_used(&l), 0);
    cr_assert_eq(cm5s_drs_lock_landed(&l, 0), -1, "landed twice");
    cr_assert_eq(cm5s_drs_lock_inq(&l, &plain, 4, 8, 10, 3e-6, &busy), 0);
    cr_assert_eq(l.max_in, 1);
}

Test(plan_drs, plain_never_pregrants_even_when_finishing)
{
    cm5s_drs_lock_t l;
    double busy;

    cm5s_drs_lock_init(&l, 0);
    cm5s_drs_lock_inq(&l, &plain, 1, 0, 1, 0.0, &busy);
    /* Long past the estimate: still BUSY until the data lands. */
    cr_assert_eq(cm5s_drs_lock_inq(&l, &plain, 2, 1, 1, 1.0, &busy), -1);
    cr_assert_float_eq(busy, plain.tau_s, 1e-12);
    cr_assert_eq(l.max_in, 1);
}

Test(plan_drs, early_go_ahead_at_most_one)
{
    cm5s_drs_lock_t l;
    double busy;

    cm5s_drs_lock_init(&l, 0);
    /* 100000 bytes: 10 us + 100 us. */
    cr_assert_eq(cm5s_drs_lock_inq(&l, &early, 1, 0, 1e5, 0.0, &busy), 0);
    /* 50 us in: 60 us left > theta 30 us: DENY, busy = 60 - 30 + tau. */
    cr_assert_eq(cm5s_drs_lock_inq(&l, &early, 2, 1, 10, 50e-6, &busy), -1);
    cr_assert_float_eq(busy, 40e-6, 1e-12);
    /* 85 us in: 25 us left <= 30 us: pre-grant into slot 1. */
    cr_assert_eq(cm5s_drs_lock_inq(&l, &early, 2, 1, 10, 85e-6, &busy), 1);
    cr_assert_eq(l.in_flight, 2);
    cr_assert_eq(l.max_in, 2);
    /* BUSY(owner, next): no third. */
    cr_assert_eq(cm5s_drs_lock_inq(&l, &early, 5, 2, 10, 200e-6, &busy), -1);
    /* The owner lands: the lock passes to the pre-granted sender. */
    cr_assert_eq(cm5s_drs_lock_landed(&l, 0), 1);
    cr_assert_eq(cm5s_drs_lock_used(&l), 1);
    cr_assert_eq(l.slot[1].src, 2);
    /* Its 10 bytes were due at 85+10.01 us: it may pre-grant again. */
    cr_assert_eq(cm5s_drs_lock_inq(&l, &early, 5, 2, 10, 200e-6, &busy), 0);
    cr_assert_eq(l.max_in, 2);
    cr_assert_eq(cm5s_drs_lock_landed(&l, 1), 1);
    cr_assert_eq(cm5s_drs_lock_landed(&l, 0), 1);
    cr_assert_eq(cm5s_drs_lock_used(&l), 0);
    cr_assert_eq(l.in_flight, 0);
}

Test(plan_drs, sender_release_needs_both_release_and_data)
{
    cm5s_drs_lock_t l;
    double busy;

    cm5s_drs_lock_init(&l, 1);
    cm5s_drs_lock_inq(&l, &plain, 6, 0, 100, 0.0, &busy);
    /* RELEASE overtakes the data: the lock stays BUSY. */
    cr_assert_eq(cm5s_drs_lock_release(&l, 0, 6), 0);
    cr_assert_eq(cm5s_drs_lock_inq(&l, &plain, 2, 1, 1, 1.0, &busy), -1);
    cr_assert_eq(cm5s_drs_lock_landed(&l, 0), 1);
    cr_assert_eq(cm5s_drs_lock_used(&l), 0);
    /* The usual order: data, then RELEASE. */
    cm5s_drs_lock_inq(&l, &plain, 2, 1, 1, 2.0, &busy);
    cr_assert_eq(cm5s_drs_lock_landed(&l, 0), 0);
    cr_assert_eq(cm5s_drs_lock_used(&l), 1);
    cr_assert_eq(l.in_flight, 0);
    cr_assert_eq(cm5s_drs_lock_release(&l, 0, 6), -1, "wrong sender");
    cr_assert_eq(cm5s_drs_lock_release(&l, 0, 2), 1);
    cr_assert_eq(cm5s_drs_lock_release(&l, 0, 2), -1, "released twice");
}

Test(plan_drs, remaining_time)
{
    cr_assert_float_eq(cm5s_drs_remaining(1.0, 1000, 5e-6, 2e-9, 1.0), 7e-6,
                       1e-12);
    cr_assert_eq(cm5s_drs_remaining(1.0, 1000, 5e-6, 2e-9, 2.0), 0);
}

Test(plan_drs, estimates_fit_tau_and_mu)
{
    cm5s_drs_est_t e;
    double tau, mu;

    cm5s_drs_est_init(&e);
    /* Nothing measured: the prior. */
    cm5s_drs_est_get(&e, -1, -1, &tau, &mu);
    cr_assert_float_eq(tau, CM5S_DRS_PRIOR_TAU_S, 1e-15);
    cr_assert_float_eq(mu, CM5S_DRS_PRIOR_MU_S, 1e-15);
    /* Round trips 40 us then 80 us: average moves 1/8 of the way. */
    cm5s_drs_est_rtt(&e, 40e-6);
    cm5s_drs_est_rtt(&e, 80e-6);
    cr_assert_float_eq(e.rtt_s, 45e-6, 1e-12);
    cm5s_drs_est_get(&e, -1, -1, &tau, &mu);
    cr_assert_float_eq(tau, 45e-6, 1e-12);
    /* Exact line dt = 12 us + 3 ns/byte. */
    for (int b = 100; b <= 10000; b += 700)
        cm5s_drs_est_transfer(&e, b, 12e-6 + 3e-9 * b);
    cm5s_drs_est_get(&e, -1, -1, &tau, &mu);
    cr_assert_float_eq(tau, 12e-6, 1e-10);
    cr_assert_float_eq(mu, 3e-9, 1e-13);
    /* Options win. */
    cm5s_drs_est_get(&e, 0.5, 7, &tau, &mu);
    cr_assert_float_eq(tau, 7e-6, 1e-15);
    cr_assert_float_eq(mu, 0.5e-9, 1e-18);
    /* Given tau only: mu from the sums. */
    cm5s_drs_est_get(&e, -1, 12, &tau, &mu);
    cr_assert_float_eq(mu, 3e-9, 1e-13);
}

Test(plan_drs, estimates_one_size_only)
{
    cm5s_drs_est_t e;
    double tau, mu;

    cm5s_drs_est_init(&e);
    for (int k = 0; k < 5; k++)
        cm5s_drs_est_transfer(&e, 1000, 21e-6);
    cm5s_drs_est_get(&e, -1, -1, &tau, &mu);
    cr_assert_float_eq(mu, CM5S_DRS_PRIOR_MU_S, 1e-15);
    cr_assert_float_eq(tau, 20e-6, 1e-12);
    /* Many transfers: the sums are halved, the fit stays right. */
    for (int k = 0; k < 1000; k++)
        cm5s_drs_est_transfer(&e, 1000 + k % 7 * 100,
                              5e-6 + 1e-9 * (1000 + k % 7 * 100));
    cr_assert_leq(e.n, 256);
    cm5s_drs_est_get(&e, -1, -1, &tau, &mu);
    cr_assert_float_eq(mu, 1e-9, 1e-10);
}

Test(plan_drs, theta)
{
    cm5s_drs_est_t e;

    cm5s_drs_est_init(&e);
    cr_assert_eq(cm5s_drs_theta(&e, 0, 10e-6), 0, "0 disables");
    cr_assert_float_eq(cm5s_drs_theta(&e, 25, 10e-6), 25e-6, 1e-15);
    cr_assert_float_eq(cm5s_drs_theta(&e, -1, 10e-6), 30e-6, 1e-15);
    cm5s_drs_est_rtt(&e, 50e-6);
    cr_assert_float_eq(cm5s_drs_theta(&e, -1, 10e-6), 60e-6, 1e-15);
}

Test(plan_drs, next_destination_skips_windows)
{
    int order[4] = {5, 2, 7, 0};
    double nb[8] = {0}, wake = -1;

    nb[2] = 3.0;
    nb[7] = 1.0;
    cr_assert_eq(cm5s_drs_next(order, 4, 1, nb, 0.5, &wake), 3);
    cr_assert_eq(cm5s_drs_next(order, 4, 0, nb, 0.5, &wake), 0);
    cr_assert_eq(cm5s_drs_next(order, 4, 2, nb, 1.0, &wake), 2);
    nb[5] = nb[0] = 2.0;
    cr_assert_eq(cm5s_drs_next(order, 4, 0, nb, 0.5, &wake), -1);
    cr_assert_float_eq(wake, 1.0, 1e-15);
}

Test(plan_drs, chunks)
{
    cr_assert_eq(cm5s_drs_chunk(10, 4), 4);
    cr_assert_eq(cm5s_drs_chunk(4, 4), 4);
    cr_assert_eq(cm5s_drs_chunk(3, 4), 3);
}

/* drs_chunk_max: bytes, 1..INT_MAX (an rport's counter is an int). */
Test(plan_drs, chunk_option)
{
    cm5_sched_opts_t o;
    char err[256];

    memset(&o, 0, sizeof(o));
    cr_assert_eq(cm5_sched_opts_set(&o, "drs_chunk_max=1000", err, 256),
                 CM5_OK);
    cr_assert_eq(o.drs_chunk_max, 1000);
    cr_assert_eq(cm5_sched_opts_set(&o, "drs_chunk_max=2147483647", err, 256),
                 CM5_OK);
    cr_assert_eq(o.drs_chunk_max, CM5S_DRS_CHUNK_LIMIT);
    cr_assert_eq(cm5_sched_opts_set(&o, "drs_chunk_max=0", err, 256),
                 CM5_ERR_INVALID);
    cr_assert_str_eq(err, "option drs_chunk_max: '0' is not in 1..2147483647");
    cr_assert_eq(cm5_sched_opts_set(&o, "drs_chunk_max=2147483648", err, 256),
                 CM5_ERR_INVALID);
    cr_assert_eq(cm5_sched_opts_set(&o, "drs_chunk_max=-5", err, 256),
                 CM5_ERR_INVALID);
    cr_assert_eq(cm5_sched_opts_set(&o, "drs_chunk_max=1k", err, 256),
                 CM5_ERR_INVALID);
    cr_assert_eq(o.drs_chunk_max, CM5S_DRS_CHUNK_LIMIT, "unchanged");
    cr_assert(strstr(cm5_sched_opts_help(), "\n  drs_chunk_max "));
    cr_assert_eq(cm5s_drs_chunk(5000, 1000), 1000);
}

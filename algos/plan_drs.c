/*
 * DRS_N / DRS_N+: the busy lock, the busy measure and the estimates of
 * ALGORITHMS.md 1.5, 1.6 and [AMB-5].  Pure: no communication, no clock.
 */
#include "plan_drs.h"

/* ---- estimates ------------------------------------------------------- */

void cm5s_drs_est_init(cm5s_drs_est_t *e)
{
    e->rtt_s = -1;
    e->n = e->sb = e->sdt = e->sbb = e->sbdt = 0;
}

void cm5s_drs_est_rtt(cm5s_drs_est_t *e, double rtt_s)
{
    if (rtt_s < 0)
        return;
    e->rtt_s = e->rtt_s < 0 ? rtt_s : e->rtt_s + (rtt_s - e->rtt_s) / 8;
}

void cm5s_drs_est_transfer(cm5s_drs_est_t *e, double bytes, double dt_s)
{
    if (bytes < 0 || dt_s < 0)
        return;
    if (e->n >= 256) { /* forget old transfers geometrically */
        e->n /= 2;
        e->sb /= 2;
        e->sdt /= 2;
        e->sbb /= 2;
        e->sbdt /= 2;
    }
    e->n += 1;
    e->sb += bytes;
    e->sdt += dt_s;
    e->sbb += bytes * bytes;
    e->sbdt += bytes * dt_s;
}

/* Least-squares fit of dt = tau + mu * bytes; 0 if it is not defined. */
static int est_fit(const cm5s_drs_est_t *e, double *tau, double *mu)
{
    double mb, mdt, var;

    if (e->n < 2)
        return 0;
    mb = e->sb / e->n;
    mdt = e->sdt / e->n;
    var = e->sbb / e->n - mb * mb;
    if (var <= 1e-9 * (mb * mb + 1))
        return 0;
    *mu = (e->sbdt / e->n - mb * mdt) / var;
    if (*mu < 0)
        *mu = 0;
    *tau = mdt - *mu * mb;
    if (*tau < 0) {
        *tau = 0;
        *mu = e->sb > 0 ? e->sdt / e->sb : 0;
    }
    return 1;
}

void cm5s_drs_est_get(const cm5s_drs_est_t *e, double opt_mu_ns_per_byte,
                      double opt_tau_us, double *tau_s, double *mu_s)
{
    double tau = e->rtt_s >= 0 ? e->rtt_s : CM5S_DRS_PRIOR_TAU_S;
    double mu = CM5S_DRS_PRIOR_MU_S;
    int have_mu = opt_mu_ns_per_byte >= 0, have_tau = opt_tau_us >= 0;

    if (have_mu)
        mu = opt_mu_ns_per_byte * 1e-9;
    if (have_tau)
        tau = opt_tau_us * 1e-6;
    if (have_mu && have_tau)
        ;
    else if (have_tau) {
        if (e->n > 0 && e->sb > 0)
            mu = (e->sdt - e->n * tau) / e->sb;
        mu = mu < 0 ? 0 : mu;
    } else if (have_mu || !est_fit(e, &tau, &mu)) {
        if (e->n > 0) {
            tau = (e->sdt - mu * e->sb) / e->n;
            tau = tau < 0 ? 0 : tau;
        }
    }
    *tau_s = tau;
    *mu_s = mu;
}

double cm5s_drs_theta(const cm5s_drs_est_t *e, double opt_theta_us,
                      double tau_s)
{
    if (opt_theta_us > 0)
        return opt_theta_us * 1e-6;
    if (opt_theta_us == 0)
        return 0;
    return (e->rtt_s >= 0 ? e->rtt_s : 2 * tau_s) + tau_s;
}

double cm5s_drs_remaining(double t_grant, double bytes, double tau_s,
                          double mu_s, double now)
{
    double r = t_grant + tau_s + bytes * mu_s - now;

    return r > 0 ? r : 0;
}

/* ---- the lock ----------------------------------------------------------- */

void cm5s_drs_lock_init(cm5s_drs_lock_t *l, int need_release)
{
    for (int s = 0; s < 2; s++) {
        l->slot[s].src = -1;
        l->slot[s].rport = -1;
        l->slot[s].bytes = 0;
        l->slot[s].t_grant = 0;
        l->slot[s].landed = l->slot[s].released = 0;
    }
    l->need_release = need_release;
    l->in_flight = 0;
    l->max_in = 0;
}

int cm5s_drs_lock_used(const cm5s_drs_lock_t *l)
{
    return (l->slot[0].src >= 0) + (l->slot[1].src >= 0);
}

/* A slot whose data has landed only waits for its RELEASE. */
static double slot_rem(const cm5s_drs_slot_t *s, const cm5s_drs_policy_t *p,
                       double now)
{
    if (s->landed)
        return 0;
    return cm5s_drs_remaining(s->t_grant, s->bytes, p->tau_s, p->mu_s, now);
}

int cm5s_drs_lock_inq(cm5s_drs_lock_t *l, const cm5s_drs_policy_t *pol, int src,
                      int rport, double bytes, double now, double *busy_s)
{
    int used = cm5s_drs_lock_used(l), s;
    double rem;

    if (used == 0) {
        s = 0;
    } else if (used == 1) {
        int a = l->slot[0].src >= 0 ? 0 : 1;

        rem = slot_rem(&l->slot[a], pol, now);
        if (!pol->early || rem > pol->theta_s) {
            *busy_s = (pol->early ? rem - pol->theta_s : rem) + pol->tau_s;
            return -1;
        }
        s = 1 - a; /* early go-ahead: BUSY(owner, next) */
    } else {
        double r0 = slot_rem(&l->slot[0], pol, now);
        double r1 = slot_rem(&l->slot[1], pol, now);

        *busy_s = (r0 < r1 ? r0 : r1) + pol->tau_s;
        return -1;
    }
    l->slot[s].src = src;
    l->slot[s].rport = rport;
    l->slot[s].bytes = bytes;
    l->slot[s].t_grant = now;
    l->slot[s].landed = 0;
    l->slot[s].released = 0;
    if (++l->in_flight > l->max_in)
        l->max_in = l->in_flight;
    return s;
}

static int slot_try_free(cm5s_drs_lock_t *l, int s)
{
    cm5s_drs_slot_t *sl = &l->slot[s];

    if (!sl->landed || (l->need_release && !sl->released))
        return 0;
    sl->src = -1;
    sl->rport = -1;
    return 1;
}

int cm5s_drs_lock_landed(cm5s_drs_lock_t *l, int s)
{
    if (s < 0 || s > 1 || l->slot[s].src < 0 || l->slot[s].landed)
        return -1;
    l->slot[s].landed = 1;
    l->in_flight--;
    return slot_try_free(l, s);
}

int cm5s_drs_lock_release(cm5s_drs_lock_t *l, int s, int src)
{
    if (s < 0 || s > 1 || l->slot[s].src != src || l->slot[s].released)
        return -1;
    l->slot[s].released = 1;
    return slot_try_free(l, s);
}

/* ---- sender ------------------------------------------------------------- */

int cm5s_drs_next(const int *order, int n, int start, const double *not_before,
                  double now, double *wake)
{
    double w = 0;

    for (int k = 0; k < n; k++) {
        int i = (start + k) % n;
        double nb = not_before[order[i]];

        if (nb <= now)
            return i;
        if (k == 0 || nb < w)
            w = nb;
    }
    *wake = w;
    return -1;
}

size_t cm5s_drs_chunk(size_t left, size_t max_chunk)
{
    return left < max_chunk ? left : max_chunk;
}

/*
 * The core's events and their observers (am_event.h): a short list of
 * subscribers, the mask of the events they watch, and one dispatcher per
 * event.  Calls nothing of am/ but the guard, through which the
 * outermost calls' beginning and end reach the observers.
 */
#include "am_event.h"
#include "am_guard.h"

#define EV_OBSERVERS_MAX 4

unsigned cm5i_ev_mask;
int cm5i_clock_orders;
const cm5i_clock_t *cm5i_clock;

static struct {
    const cm5i_observer_t *obs[EV_OBSERVERS_MAX];
    const cm5i_clock_t *clock_of[EV_OBSERVERS_MAX];
    int n;
} ev;

#define EV_EACH(fn, ...)                                                       \
    do {                                                                       \
        for (int i_ = 0; i_ < ev.n; i_++)                                      \
            if (ev.obs[i_]->fn)                                                \
                ev.obs[i_]->fn(__VA_ARGS__);                                   \
    } while (0)

static void ev_call_enter(void) { EV_EACH(call_enter); }

static void ev_call_leave(void) { EV_EACH(call_leave); }

static void ev_update(void)
{
    unsigned m = 0;
    int calls = 0;

    cm5i_clock = NULL;
    for (int i = 0; i < ev.n; i++) {
        const cm5i_observer_t *o = ev.obs[i];

#define EV_WATCHED(ev) | (o->ev ? CM5I_EV_BIT_##ev : 0)
        m |= 0u CM5I_EVENTS(EV_WATCHED);
#undef EV_WATCHED
        calls |= o->call_enter || o->call_leave;
        if (ev.clock_of[i])
            cm5i_clock = ev.clock_of[i];
    }
    cm5i_ev_mask = m;
    if (calls)
        cm5i_guard_watch(ev_call_enter, ev_call_leave);
    else
        cm5i_guard_watch(NULL, NULL);
}

void cm5i_observe(const cm5i_observer_t *obs, const cm5i_clock_t *clock)
{
    for (int i = 0; i < ev.n; i++) {
        if (ev.obs[i] == obs)
            return;
        if (clock && ev.clock_of[i])
            cm5_fatal("cm5fab", "two observers keep the node's clock");
    }
    if (ev.n == EV_OBSERVERS_MAX)
        cm5_fatal("cm5fab", "more than %d observers of the core",
                  EV_OBSERVERS_MAX);
    ev.obs[ev.n] = obs;
    ev.clock_of[ev.n++] = clock;
    ev_update();
}

void cm5i_unobserve(const cm5i_observer_t *obs)
{
    for (int i = 0; i < ev.n; i++)
        if (ev.obs[i] == obs) {
            for (int k = i + 1; k < ev.n; k++) {
                ev.obs[k - 1] = ev.obs[k];
                ev.clock_of[k - 1] = ev.clock_of[k];
            }
            ev.n--;
            break;
        }
    ev_update();
}

void cm5i_ev_send_(int ch, int node, cm5i_pkt_t *pkt)
{
    EV_EACH(send, ch, node, pkt);
}

void cm5i_ev_am_send_(int ch, int node, cm5i_pkt_t *pkt)
{
    EV_EACH(am_send, ch, node, pkt);
}

void cm5i_ev_am_sent_(int ch, int node, const cm5i_pkt_t *pkt)
{
    EV_EACH(am_sent, ch, node, pkt);
}

void cm5i_ev_arrive_(int ch, const cm5i_pkt_t *pkt)
{
    EV_EACH(arrive, ch, pkt);
}

void cm5i_ev_deliver_(int ch, const cm5i_pkt_t *pkt)
{
    EV_EACH(deliver, ch, pkt);
}

void cm5i_ev_delivered_(int ch) { EV_EACH(delivered, ch); }

int cm5i_ev_probe_(void)
{
    int spin = 0;

    for (int i = 0; i < ev.n; i++)
        if (ev.obs[i]->probe)
            spin |= ev.obs[i]->probe(); /* each forgets what it saw */
    return spin;
}

void cm5i_ev_cn_enter_(void) { EV_EACH(cn_enter); }

void cm5i_ev_cn_end_(cm5i_cn_kind_t kind, size_t n)
{
    EV_EACH(cn_end, kind, n);
}

void cm5i_ev_barrier_start_(void) { EV_EACH(barrier_start); }

void cm5i_ev_barrier_round_(uint32_t epoch, int round)
{
    EV_EACH(barrier_round, epoch, round);
}

void cm5i_ev_barrier_done_(void) { EV_EACH(barrier_done); }

void cm5i_ev_bulk_start_(const cm5i_ev_bulk_t *b) { EV_EACH(bulk_start, b); }

void cm5i_ev_bulk_end_(const cm5i_ev_bulk_t *b) { EV_EACH(bulk_end, b); }

void cm5i_ev_wait_begin_(int what) { EV_EACH(wait_begin, what); }

void cm5i_ev_wait_end_(int what) { EV_EACH(wait_end, what); }

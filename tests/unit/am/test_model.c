/*
 * The virtual-time model's arithmetic (am/am_model_calc.c), exactly: the
 * figures doc/model.md derives from it, on explicit node clocks.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "am_model_calc.h"

TestSuite(model, .timeout = 10);

static cm5i_model_params_t parse(const char *spec)
{
    cm5i_model_params_t p;
    char err[200] = "";
    int on = -1;

    cr_assert_eq(cm5i_model_parse(spec, &on, &p, err, sizeof(err)), 0, "%s: %s",
                 spec, err);
    cr_assert_eq(on, 1, "%s is on", spec);
    return p;
}

Test(model, parses_presets_and_parameters)
{
    cm5i_model_params_t p = parse("logp:L=6,o=2.2,g=4");
    int on = -1;
    char err[200];

    cr_expect_eq(p.L, 6000);
    cr_expect_eq(p.os, 2200);
    cr_expect_eq(p.orr, 2200);
    cr_expect_eq(p.g, 4000);
    p = parse("cm5:bw3=4,ms=0");
    cr_expect_eq(p.pkt[3], 4000, "16 bytes at 4 MB/s take 4 us");
    cr_expect_eq(p.ms, 0);
    cr_expect_eq(p.mx, 125000, "cm5: mx fitted, 125 us");
    cr_expect_eq(p.irq, 23000, "cm5: the interrupt fitted, 23 us");
    p = parse("cm5:mx=0,irq=2.5");
    cr_expect_eq(p.mx, 0);
    cr_expect_eq(p.irq, 2500);
    p = parse("logp:L=6");
    cr_expect_eq(p.mx, 0, "logp: no CMMD software");
    cr_expect_eq(p.irq, 0, "logp: no interrupt cost");
    p = parse("cm5");
    cr_expect_eq(p.pj, 64, "cm5: a loop of empty probes, 64 polls at once");
    cr_expect_eq(p.sw, 190, "cm5: switching between pushes, fitted");
    cr_expect_eq(p.ms + p.mr, 32600, "cm5: a message's software, fitted");
    cr_expect_eq(parse("logp:L=6").sw, 0, "logp: no switching cost");
    cr_expect_eq(parse("cm5:pj=3").pj, 3, "pj is a count, not microseconds");
    cr_expect_eq(parse("cm5:pj=0").pj, 0);
    cr_expect_eq(cm5i_model_parse("off", &on, &p, err, sizeof(err)), 0);
    cr_expect_eq(on, 0);
}

Test(model, rejects_bad_values_with_one_reason)
{
    static const char *bad[] = {
        "cm6",       "cm5:",     "cm5:L",      "cm5:L=x",   "cm5:L=-1",
        "cm5:bw1=0", "logp:q=1", "cm5:L=1e99", "cm5:o=nan", "cm5:pj=1.5",
        "cm5:pj=-1", "cm5:il=2", "cm5:bc=0.5", "cm5:il=on", "cm5:sw=-1"};
    cm5i_model_params_t p;
    char err[200];
    int on;

    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        err[0] = '\0';
        cr_expect_eq(cm5i_model_parse(bad[i], &on, &p, err, sizeof(err)), -1,
                     "%s is refused", bad[i]);
        cr_expect_neq(err[0], '\0', "%s: a reason", bad[i]);
        cr_expect_null(strchr(err, '\n'), "%s: one line", bad[i]);
    }
}

/* il and bc are switches: 0 or 1, stored as such (until 2026-11-30 they
 * were read as microseconds: il=1 stored 1000, il=yes said
 * "microseconds"). */
Test(model, switches)
{
    cm5i_model_params_t p = parse("cm5:il=0,bc=1");

    cr_expect_eq(p.il, 0);
    cr_expect_eq(p.bc, 1);
    p = parse("cm5");
    cr_expect_eq(p.il, 1, "interleaved receipt is the default");
    cr_expect_eq(p.bc, 0);
}

Test(model, fat_tree_levels)
{
    cr_expect_eq(cm5i_model_level(5, 5), 0);
    cr_expect_eq(cm5i_model_level(4, 7), 1);
    cr_expect_eq(cm5i_model_level(3, 4), 2);
    cr_expect_eq(cm5i_model_level(0, 15), 2);
    cr_expect_eq(cm5i_model_level(15, 16), 3);
    cr_expect_eq(cm5i_model_packets(0), 1);
    cr_expect_eq(cm5i_model_packets(16), 1);
    cr_expect_eq(cm5i_model_packets(17), 2);
}

/* Node a requests, node b replies from the handler: 2 (os + L + or). */
static void round_trip(const char *spec)
{
    cm5i_model_params_t p = parse(spec);
    cm5i_vnode_t a = {0, 0}, b = {0, 0};
    uint64_t d;

    d = cm5i_model_send(&p, &a, 1);
    cm5i_model_recv(&p, &b, 1, d, 1, 0);
    d = cm5i_model_send(&p, &b, 1);
    cm5i_model_recv(&p, &a, 1, d, 1, 0);
    cr_expect_eq(a.clock, (uint64_t)(2 * (p.os + p.L + p.orr)), "%s: %llu",
                 spec, (unsigned long long)a.clock);
}

Test(model, round_trip_is_twice_os_L_or)
{
    round_trip("cm5");
    round_trip("logp:L=6,o=2.2,g=4");
    round_trip("cm5:os=1,or=3,L=5");
}

/* k senders, one packet each at time 0, to one receiver: the link takes
 * one per g, the last is taken at os + L + (k - 1) g + or. */
Test(model, contention_serializes_at_the_receiver)
{
    cm5i_model_params_t p = parse("logp:L=6,o=2.2,g=4");

    for (int k = 1; k <= 31; k++) {
        cm5i_vnode_t r = {0, 0};

        for (int i = 0; i < k; i++) {
            cm5i_vnode_t s = {0, 0};

            cm5i_model_recv(&p, &r, 3, cm5i_model_send(&p, &s, 1), 1, 0);
        }
        cr_expect_eq(r.clock, (uint64_t)(2200 + 6000 + (k - 1) * 4000 + 2200),
                     "k = %d: %llu", k, (unsigned long long)r.clock);
    }
}

/* A bulk message of n packets: the sender pays n os; a receiver that
 * waits takes the last packet one link period after the one before. */
Test(model, bulk_message_is_paced_by_its_slowest_stage)
{
    cm5i_model_params_t p = parse("cm5:os=1,or=1,L=5,g=0,bw1=4,ms=0,mr=0");
    cm5i_vnode_t s = {0, 0}, r = {0, 0};
    uint64_t d = cm5i_model_send(&p, &s, 100), left;

    cr_expect_eq(s.clock, 100000);
    left = cm5i_model_recv(&p, &r, 1, d, 100, 0);
    /* link: 4 us a packet, from 1 + 5 us: the last passes at 6 + 99 * 4 */
    cr_expect_eq(r.clock, 6000 + 99 * 4000 + 1000);
    cr_expect_eq(r.link_free, 6000 + 100 * 4000);
    cr_expect_eq(left, 6000 + 99 * 4000 - 5000, "held back by the link");
    /* a receiver busy until 1 s takes them all after it */
    r = (cm5i_vnode_t){1000000000, 0};
    cm5i_model_recv(&p, &r, 1, d, 100, 7);
    cr_expect_eq(r.clock, 1000000000 + 100 * 1000 + 7);
}

Test(model, control_network_costs)
{
    cm5i_model_params_t p = parse("cm5:bar=5,red=10,redf=40,redv=3,cnb=2");
    cm5i_model_params_t d = parse("cm5");

    cr_expect_eq(cm5i_model_cn_cost(&p, CM5I_CN_BARRIER, 0), 5000);
    cr_expect_eq(cm5i_model_cn_cost(&p, CM5I_CN_REDUCE, 3), 10000 + 2 * 3000);
    cr_expect_eq(cm5i_model_cn_cost(&p, CM5I_CN_REDUCE_FP, 3),
                 40000 + 2 * 3000);
    cr_expect_eq(cm5i_model_cn_cost(&p, CM5I_CN_REDUCE, 0), 10000);
    /* the preset: CMMD 3.1's integer and floating-point reductions, and
     * wang1993 Table 3's vector of 32 counts */
    cr_expect_eq(cm5i_model_cn_cost(&d, CM5I_CN_REDUCE, 1), 5000);
    cr_expect_eq(cm5i_model_cn_cost(&d, CM5I_CN_REDUCE_FP, 1), 25000);
    cr_expect_eq(cm5i_model_cn_cost(&d, CM5I_CN_REDUCE, 32), 5000 + 310000);
    cr_expect_eq(cm5i_model_cn_cost(&p, CM5I_CN_BCAST, 100), 5000 + 200000);
}

/* Seven 4 KiB messages into one node, the three of nodes 0..2 sent one
 * send (D) before the four of nodes 4..7: in whatever order they land,
 * the schedule serves them by virtual time, each P q + mr. */
Test(model, receipts_are_served_in_virtual_time_order)
{
    static const int orders[3][7] = {
        {0, 1, 2, 4, 5, 6, 7}, {7, 6, 5, 4, 2, 1, 0}, {4, 0, 6, 2, 7, 1, 5}};
    cm5i_model_params_t p = parse("cm5:mr=13");
    uint64_t D = 35000 + 256 * 1600, S = 256 * 1700 + 13000, d0A = 100000;

    for (int o = 0; o < 3; o++) {
        cm5i_rxjob_t q[8], j;
        size_t n = 0;

        for (int k = 0; k < 7; k++) {
            int src = orders[o][k];

            uint64_t d0 = src < 3 ? d0A : d0A + D;

            cm5i_model_rx_job(&p, cm5i_model_level(src, 3), d0, d0, 256, p.mr,
                              src, &j);
            cm5i_model_rx_insert(q, n++, 0, &j);
        }
        for (size_t i = 0; i < n; i++) {
            cr_expect_eq(q[i].src, (int)(i < 3 ? i : i + 1),
                         "order %d: served %zu-th: node %d", o, i, q[i].src);
            cr_expect_eq(q[i].end, d0A + 6000 + (i + 1) * S,
                         "order %d: the %zu-th ends after %zu receipts", o, i,
                         i + 1);
        }
        /* its sender is not held back: its last packet left at its
         * own pace */
        cr_expect_eq(q[0].left, d0A + 255 * 1600);
    }
}

/* Held senders (synchronised): the receiving processor takes a receipt's
 * packets one per q = max(link, orr) from max(its clock, start + L); the
 * sender's last packet leaves when it is taken, less L. */
Test(model, held_receipt_takes_the_receiving_processor)
{
    cm5i_model_params_t p = parse("cm5");
    cm5i_vnode_t r = {0, 0};
    uint64_t left, ack, end;

    /* idle receiver, 100 packets within a cluster: orr (1.7 us) paces */
    end = cm5i_model_take(&p, &r, 1, 10000, 100, 13000, &left, &ack);
    cr_expect_eq(end, 16000 + 99 * 1700 + 1700 + 13000);
    cr_expect_eq(r.clock, end);
    cr_expect_eq(left, 16000 + 99 * 1700 - 6000);
    cr_expect_eq(ack, left, "the sender learns when its last packet left");
    /* a receiver busy until 500 us holds the sender that long */
    r.clock = 500000;
    end = cm5i_model_take(&p, &r, 1, 10000, 100, 0, &left, &ack);
    cr_expect_eq(end, 500000 + 100 * 1700);
    cr_expect_eq(left, 500000 + 99 * 1700 - 6000);
    /* across the root, 8 MB/s: 2 us a packet paces */
    r.clock = 0;
    end = cm5i_model_take(&p, &r, 3, 0, 10, 0, &left, &ack);
    cr_expect_eq(end, 6000 + 10 * 2000);
    /* one packet: never acknowledged before the receiver may send */
    r.clock = 0;
    end = cm5i_model_take(&p, &r, 1, 0, 1, 0, &left, &ack);
    cr_expect_eq(left, 0);
    cr_expect_eq(ack, 6000);
    cr_expect_eq(end, 6000 + 1700);
    /* a slow sender paces: os above q (logp: o = 2.2 us, g = 4 us) */
    p = parse("logp:L=6,o=2.2,g=1");
    r.clock = 0;
    end = cm5i_model_take(&p, &r, 1, 0, 10, 0, &left, &ack);
    cr_expect_eq(end, 6000 + 9 * 2200 + 2200);
    cr_expect_eq(left, 9 * 2200);
}

/* A hot spot: k senders push npk packets each at time 0 to one node,
 * which takes them in turn; the i-th (from 1) is held until the node took
 * the i - 1 before it. */
Test(model, hot_spot_holds_the_kth_sender)
{
    cm5i_model_params_t p = parse("cm5");
    cm5i_vnode_t r = {0, 0};
    const uint64_t npk = 256, q = 1700, L = 6000;

    for (uint64_t i = 1; i <= 7; i++) {
        uint64_t left, ack,
            end = cm5i_model_take(&p, &r, 2, 0, npk, 0, &left, &ack);

        cr_expect_eq(end, L + i * npk * q, "sender %llu: end",
                     (unsigned long long)i);
        cr_expect_eq(left, L + i * npk * q - q - L, "sender %llu: held",
                     (unsigned long long)i);
    }
}

/* Interleaved receipt (synchronised, held senders): a busy node takes the
 * receipts that came meanwhile together, one packet of each in turn; the
 * total is the same as one after the other, but every sender is held
 * until its last packet, near the end. */
Test(model, interleaved_receipts_hold_every_sender_to_the_end)
{
    cm5i_model_params_t p = parse("cm5:sw=0"); /* (sw: the next test) */
    const uint64_t q = 1700, L = 6000, b = 100000, e = 13000;
    cm5i_vnode_t r = {b, 0};
    cm5i_take_job_t j[3], one;
    uint64_t left, ack, end;

    cr_expect_eq(cm5i_model_take_q(&p, 1), q);
    cr_expect_eq(cm5i_model_take_q(&p, 3), 2000, "across the root: 8 MB/s");
    for (int k = 0; k < 3; k++)
        j[k] = (cm5i_take_job_t){.npk = 4, .q = q, .extra = e};
    end = cm5i_model_take_batch(&p, &r, b, j, 3);
    /* three rounds of three packets, then the last round: each ends in
     * turn, its overhead after its last packet */
    cr_expect_eq(j[0].left, b + 9 * q - L);
    cr_expect_eq(j[0].end, b + 10 * q + e);
    cr_expect_eq(j[1].left, j[0].end - L);
    cr_expect_eq(j[1].end, b + 11 * q + 2 * e);
    cr_expect_eq(j[2].end, b + 12 * q + 3 * e);
    cr_expect_eq(end, b + 12 * q + 3 * e, "the same total as in turn");
    cr_expect_eq(r.clock, end);
    for (int k = 0; k < 3; k++)
        cr_expect_eq(j[k].ack, j[k].left, "job %d learns when it left", k);
    /* unequal: 1 and 3 packets; the short one ends in the first round */
    r.clock = b;
    j[0] = (cm5i_take_job_t){.npk = 1, .q = q, .extra = e};
    j[1] = (cm5i_take_job_t){.npk = 3, .q = 2000, .extra = 0};
    end = cm5i_model_take_batch(&p, &r, b, j, 2);
    cr_expect_eq(j[0].left, b - L);
    cr_expect_eq(j[0].ack, b + L, "never before the receiver may send");
    cr_expect_eq(j[0].end, b + q + e);
    cr_expect_eq(j[1].end, b + q + e + 3 * 2000);
    cr_expect_eq(j[1].left, b + q + e + 2 * 2000 - L);
    cr_expect_eq(end, j[1].end);
    /* one receipt alone: as cm5i_model_take when the sender does not
     * pace it */
    r.clock = b;
    one = (cm5i_take_job_t){.npk = 100, .q = q, .extra = e};
    end = cm5i_model_take_batch(&p, &r, b, &one, 1);
    r.clock = b;
    cr_expect_eq(end, cm5i_model_take(&p, &r, 1, b - L, 100, e, &left, &ack));
    cr_expect_eq(one.left, left);
    cr_expect_eq(one.ack, ack);
}

/* Switching between pushes (sw, synchronised, interleaved receipt): while
 * c >= 2 receipts are open in a batch, each packet costs at least
 * orr + sw * floor(log2 c); the links' own time still bounds it; one
 * receipt alone pays nothing more. */
Test(model, switching_between_pushes_costs_sw_per_halving)
{
    cm5i_model_params_t p = parse("cm5:sw=1");
    const uint64_t L = 6000, b = 100000;
    cm5i_vnode_t r = {b, 0};
    cm5i_take_job_t j[4], one;
    uint64_t left, ack, end;

    cr_expect_eq(p.sw, 1000);
    cr_expect_eq(cm5i_model_switch_q(&p, 1), 0, "one: no switching");
    cr_expect_eq(cm5i_model_switch_q(&p, 3), 2700);
    cr_expect_eq(cm5i_model_switch_q(&p, 4), 3700);
    cr_expect_eq(cm5i_model_switch_q(&p, 31), 5700, "floor(log2 31) = 4");
    /* four receipts of two packets from the same cluster (q = orr):
     * floor(log2 4) = 2, every packet 1700 + 2000 while all four are
     * open; in the last round each that ends leaves one fewer: 3 and 2
     * open, 1 sw; the last alone, orr */
    for (int k = 0; k < 4; k++)
        j[k] = (cm5i_take_job_t){.npk = 2, .q = 1700, .extra = 0};
    end = cm5i_model_take_batch(&p, &r, b, j, 4);
    cr_expect_eq(j[0].left, b + 4 * 3700 - L);
    cr_expect_eq(j[0].end, b + 5 * 3700);
    cr_expect_eq(j[1].end, b + 5 * 3700 + 2700);
    cr_expect_eq(j[2].end, b + 5 * 3700 + 2 * 2700);
    cr_expect_eq(j[3].left, j[2].end - L);
    cr_expect_eq(j[3].end, b + 5 * 3700 + 2 * 2700 + 1700);
    cr_expect_eq(end, j[3].end, "sw = 0 would end at b + 8 * 1700");
    /* 1 and 3 packets across the root (q = 2000): 2700 while both are
     * open (log2 2 = 1), then the link's 2000 alone */
    r.clock = b;
    j[0] = (cm5i_take_job_t){.npk = 1, .q = 2000, .extra = 0};
    j[1] = (cm5i_take_job_t){.npk = 3, .q = 2000, .extra = 0};
    end = cm5i_model_take_batch(&p, &r, b, j, 2);
    cr_expect_eq(j[0].end, b + 2700);
    cr_expect_eq(j[1].left, b + 2700 + 2 * 2000 - L);
    cr_expect_eq(j[1].end, b + 2700 + 3 * 2000);
    cr_expect_eq(end, j[1].end);
    /* a switch cost under the link's time: the link's time */
    p = parse("cm5:sw=0.1");
    r.clock = b;
    j[0] = (cm5i_take_job_t){.npk = 1, .q = 2000, .extra = 0};
    j[1] = (cm5i_take_job_t){.npk = 3, .q = 2000, .extra = 0};
    end = cm5i_model_take_batch(&p, &r, b, j, 2);
    cr_expect_eq(end, b + 4 * 2000, "1800 < 2000: the link's time");
    /* one receipt alone: as without sw */
    p = parse("cm5:sw=1");
    r.clock = b;
    one = (cm5i_take_job_t){.npk = 100, .q = 1700, .extra = 13000};
    end = cm5i_model_take_batch(&p, &r, b, &one, 1);
    r.clock = b;
    cr_expect_eq(end,
                 cm5i_model_take(&p, &r, 1, b - L, 100, 13000, &left, &ack));
    cr_expect_eq(end, b + 100 * 1700 + 13000);
}

/* ---- the fat tree's shared links (cm5:lk=1, doc/model.md) ---- */

static cm5i_links_t links(int n, uint32_t R, uint32_t **mem)
{
    cm5i_model_params_t p = parse("cm5:lk=1");
    cm5i_links_t lk;
    size_t links = 2 * (((size_t)n + 3) / 4 + ((size_t)n + 15) / 16);

    *mem = calloc(2 * links * R, sizeof(uint32_t));
    cr_assert(*mem);
    cr_assert_eq(cm5i_links_init(&lk, *mem, n, R, &p), 0);
    return lk;
}

Test(model, shared_links_paths_and_capacities)
{
    uint32_t *mem, path[4];
    cm5i_links_t lk = links(32, 16, &mem);
    cm5i_model_params_t p = parse("cm5:lk=1,lk2=5,lk3=2.5,lkb=16");
    int on;
    char err[200];

    cr_expect_eq(lk.nlinks, 20, "8 clusters and 2 groups, up and down");
    cr_expect_eq(lk.cap[0], 20,
                 "a cluster of 4 at 10 MB/s a node: 20 "
                 "packets in 8 us");
    cr_expect_eq(lk.cap[1], 40, "a group of 16 at 5 MB/s a node: 40");
    cr_expect_eq(cm5i_links_path(&lk, 0, 3, path), 0, "within a cluster");
    cr_expect_eq(cm5i_links_path(&lk, 0, 5, path), 2);
    cr_expect(path[0] == 0 && path[1] == 3, "cluster 0 up, cluster 1 down");
    cr_expect_eq(cm5i_links_path(&lk, 17, 2, path), 4);
    cr_expect(path[0] == 8 && path[1] == 1 && path[2] == 18 && path[3] == 17,
              "cluster 4 up, cluster 0 down, group 1 up, group 0 down");
    free(mem);
    lk = links(8, 16, &mem);
    cr_expect_eq(lk.nlinks, 4, "8 nodes: two clusters, one group");
    cr_expect_eq(cm5i_links_path(&lk, 1, 6, path), 2);
    free(mem);
    cr_assert_eq(cm5i_links_init(&lk, NULL, 32, 16, &p), 0);
    cr_expect(lk.cap[0] == 20 && lk.cap[1] == 40, "half the rate, twice the "
                                                  "bucket");
    cr_expect_eq(
        cm5i_model_parse("cm5:lk=1,lkb=0.1", &on, &p, err, sizeof(err)), -1,
        "a bucket in which a cluster's link carries nothing");
    cr_expect_eq(cm5i_model_parse("cm5:lk=1,bc=1", &on, &p, err, sizeof(err)),
                 -1, "not built with bc=1");
    cr_expect_eq(cm5i_model_parse("logp:lk=1", &on, &p, err, sizeof(err)), -1,
                 "logp has no capacities");
    cr_expect_eq(parse("cm5").lk, 0, "cm5: opt-in");
}

Test(model, shared_links_fill_a_bucket_then_the_next)
{
    uint32_t *mem, a[4], b[4], c[4];
    cm5i_links_t lk = links(32, 4, &mem);

    /* 0 -> 16 and 4 -> 20: different clusters, the same groups */
    cr_assert_eq(cm5i_links_path(&lk, 0, 16, a), 4);
    cr_assert_eq(cm5i_links_path(&lk, 4, 20, b), 4);
    cr_assert_eq(cm5i_links_path(&lk, 8, 24, c), 4);
    for (int i = 0; i < 20; i++)
        cr_expect_eq(cm5i_links_place(&lk, a, 4, 8100 + (uint64_t)i), 8100 + i);
    cr_expect_eq(cm5i_links_place(&lk, a, 4, 9000), 16000,
                 "cluster 0's up-link full (20): the next bucket's start");
    for (int i = 0; i < 20; i++)
        cr_expect_eq(cm5i_links_place(&lk, b, 4, 8500), 8500);
    cr_expect_eq(cm5i_links_place(&lk, c, 4, 15999), 16000,
                 "group 0's up-link full (40), cluster 2's empty");
    cr_expect_eq(cm5i_links_place(&lk, c, 4, 16000), 16000);
    cr_expect_eq(lk.overflow, 0);
    /* four buckets from lo on: bucket 4 is past the calendar; once lo
     * passes bucket 0, bucket 4 takes its place, empty */
    cr_expect_eq(cm5i_links_place(&lk, c, 4, 32000), 32000);
    cr_expect_eq(lk.overflow, 1, "past lo + R * B");
    lk.overflow = 0;
    lk.lo = 16000;
    for (int i = 0; i < 20; i++)
        cr_expect_eq(cm5i_links_place(&lk, a, 4, 32000), 32000,
                     "bucket 1's old count is not bucket 4's");
    cr_expect_eq(lk.overflow, 0);
    free(mem);
}

Test(model, shared_links_leave_a_receipt_alone_until_they_bind)
{
    cm5i_model_params_t p = parse("cm5:lk=1");
    uint32_t *mem, path[4];
    cm5i_links_t lk = links(32, 1024, &mem);
    cm5i_vnode_t r1 = {0, 0}, r2 = {0, 0};
    uint64_t l1, a1, l2, a2, e1, e2;
    cm5i_take_job_t j1[3], j2[3];

    /* one receipt of 256 packets across the root: as without links */
    cr_assert_eq(cm5i_links_path(&lk, 3, 29, path), 4);
    e1 = cm5i_model_take(&p, &r1, 3, 74000, 256, 4300, &l1, &a1);
    e2 = cm5i_model_take_lk(&p, &r2, 3, &lk, path, 4, 74000, 256, 4300, &l2,
                            &a2);
    cr_expect(e1 == e2 && l1 == l2 && a1 == a2, "%llu %llu",
              (unsigned long long)e1, (unsigned long long)e2);
    /* three interleaved receipts (one across the root): as the rounds */
    for (int k = 0; k < 3; k++) {
        j1[k] = (cm5i_take_job_t){.npk = 100 + 37 * (uint64_t)k,
                                  .q = k == 2 ? 2000 : 1700,
                                  .extra = 4300};
        j2[k] = j1[k];
    }
    j2[2].np = cm5i_links_path(&lk, 2, 30, j2[2].path);
    r1.clock = r2.clock = 500000;
    e1 = cm5i_model_take_batch(&p, &r1, 510000, j1, 3);
    e2 = cm5i_model_take_batch_lk(&p, &r2, 510000, &lk, j2, 3);
    cr_expect_eq(e1, e2);
    for (int k = 0; k < 3; k++)
        cr_expect(j1[k].left == j2[k].left && j1[k].ack == j2[k].ack &&
                      j1[k].end == j2[k].end,
                  "job %d", k);
    free(mem);
}

Test(model, shared_links_hold_the_eleventh_receipt_across_the_root)
{
    cm5i_model_params_t p = parse("cm5:lk=1");
    uint32_t *mem, path[4];
    cm5i_links_t lk = links(32, 1024, &mem);
    uint64_t left, ack, end;

    /* 11 receipts of 256 packets from group 0 to group 1, each from its
     * own sender, spread over the clusters (at most 3 a cluster: 12
     * packets a bucket, under 20), all at b = 80 us (a bucket's start),
     * one packet every q = 2 us: 4 a bucket each.  The first ten fill
     * group 0's up-link and group 1's down-link (40 a bucket) from bucket
     * 10 to bucket 73; the eleventh's first packet passes at bucket 74's
     * start, its last 255 x 2 us later. */
    for (int k = 0; k < 11; k++) {
        cm5i_vnode_t r = {0, 0};
        int np = cm5i_links_path(&lk, (k * 5) % 16, 16 + (k * 7) % 16, path);

        cr_assert_eq(np, 4);
        end = cm5i_model_take_lk(&p, &r, 3, &lk, path, np, 74000, 256, 4300,
                                 &left, &ack);
        if (k < 10) {
            cr_expect_eq(left, 80000 + 255 * 2000 - 6000, "receipt %d", k);
            cr_expect_eq(end, 80000 + 256 * 2000 + 4300);
        } else {
            cr_expect_eq(left, 74 * 8000 + 255 * 2000 - 6000);
            cr_expect_eq(end, 74 * 8000 + 256 * 2000 + 4300);
        }
    }
    free(mem);
}

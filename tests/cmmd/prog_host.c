/*
 * A CMMD host/node program pair, written as legacy code would: this file
 * is built twice, as the host program (prog_host_h, -DT_HOST) and as the
 * node program (prog_host_n), and run as
 *
 *   cm5run -n N --host prog_host_h MODE -- prog_host_n MODE
 *
 * MODE "all" checks every host call with exact values: CMMD_enable and
 * CMMD_enable_host, broadcast, distribution and gathering, every
 * reduction (the host's value included), synchronization both ways,
 * block messages both ways, active messages to and from the host and the
 * global OR with the host's bit.  Each side prints "prog_host: node I of
 * N ok" (the host: I = N) when done; under virtual time (CM5_MODEL), its
 * clock first ("prog_host: node I clock NS").  MODE "vtime" (virtual
 * time, computation free) times host collectives: each ends for the
 * host and every node at the latest entry clock plus its price
 * (doc/model.md, "The host program"), so every side prints the same
 * lengths.  MODE "deadlock": the host waits for a message from node 0,
 * every node for one from the host (the deadlock check's verdict names
 * the host program too); "slow": the same receives, but the host
 * computes 5 s before it sends to every node, and node 0 computes 5 s
 * before it sends to the host (no deadlock: each side in turn computes
 * while the other waits).  The other modes make one wrong call (see
 * host.sh).
 */
#include <limits.h>
#include <signal.h>

#include <cm5/cm5.h>

#include "t_util.h"

#define BC_LEN 1000
#define EL_LEN 24
#define GA_LEN 40
#define VN 5

static int nodes, host;

/* ---- active messages between the host and the nodes ----------------
 * Host and nodes run different programs: each side names the other's
 * handlers by the addresses the other side sent it, as on the CM-5. */
static volatile int req_count, rep_count, rpc_count, rpc_sum, n_seen;
static volatile int got_rep = -1;
static int *rep_from;
static uint64_t host_h[3]; /* the host's h_req, h_rep, h_rpc */
static uint64_t *node_h;   /* per node: n_rep, n_req */

#define H(x) ((CMAML_handler_t)(uintptr_t)(x))

#ifdef T_HOST
/* On the host: a node's request; reply to its n_rep. */
static void h_req(int src, int v)
{
    T_EQ(v, src * 11 + 3, "request value");
    req_count++;
    CMAML_reply(src, H(node_h[2 * src]), v + 1);
}

/* On the host: a node's reply (CMAML_reply_tohost) to our request. */
static void h_rep(int src, int v)
{
    T_CHECK(src >= 0 && src < nodes, "reply from node %d", src);
    rep_from[src] = v;
    rep_count++;
}

static void h_rpc(int src, int v)
{
    T_EQ(v, src * 7, "rpc value");
    rpc_sum += v;
    rpc_count++;
}

#else
/* On a node: the host's reply to our request. */
static void n_rep(int v) { got_rep = v; }

/* On a node: the host's request; answer with CMAML_reply_tohost. */
static void n_req(int x)
{
    n_seen = x;
    CMAML_reply_tohost(H(host_h[1]), t_self, x * 2);
}
#endif

/* ---- expected values ---- */

static int node_int(int i) { return (int)(t_hash(i, 1) % 2001) - 1000; }
static unsigned node_uint(int i) { return t_hash(i, 2); }
static double node_double(int i) { return (double)node_int(i) * 0.125; }
static long node_long(int i) { return (long)node_int(i) * 4294967311L; }

#define HOST_INT 4321
#define HOST_UINT 0x00f0f00fu
#define HOST_DOUBLE 0.5

static void expect_int(int got, int (*comb)(int, int), int init,
                       const char *what)
{
    int want = init;

    for (int i = 0; i < nodes; i++)
        want = comb(want, node_int(i));
    T_EQ(got, want, what);
}

static int add_i(int a, int b) { return a + b; }
static int max_i(int a, int b) { return a > b ? a : b; }
static int min_i(int a, int b) { return a < b ? a : b; }

/* The reductions, called alike on both sides; is_host picks the call
 * and the contribution. */
#ifdef T_HOST
#define RED(kind, v, c) CMMD_reduce_from_nodes_##kind(v, c)
#define RED_CN(kind, v, c) CMCN_reduce_from_nodes_##kind(v, c)
#define RED_V CMMD_reduce_from_nodes_v
#define IS_HOST 1
#else
#define RED(kind, v, c) CMMD_reduce_to_host_##kind(v, c)
#define RED_CN(kind, v, c) CMCN_reduce_to_host_##kind(v, c)
#define RED_V CMMD_reduce_to_host_v
#define IS_HOST 0
#endif

/* MODE vtime: the lengths, in virtual ns, of a host synchronization, a
 * broadcast of 1000 bytes from the host, a synchronization the host
 * enters 1 ms late (its stated computation), an integer reduction, a
 * distribution of 24 bytes a node, a gathering of 40 bytes a node. */
#ifdef T_HOST
#define VT_SYNC() CMMD_sync_host_with_nodes()
#define VT_BC(b, n) CMMD_bc_from_host(b, n)
#define VT_EL(b, n) CMMD_distrib_to_nodes(b, n)
#define VT_GA(b, n) CMMD_gather_from_nodes(b, n)
#else
#define VT_SYNC() CMMD_sync_with_host()
#define VT_BC(b, n) CMMD_receive_bc_from_host(b, n)
#define VT_EL(b, n) CMMD_receive_element_from_host(b, n)
#define VT_GA(b, n) CMMD_concat_elements_to_host(b, n)
#endif

static long long vt_ns(void) { return (long long)(cm5_wtime() * 1e9 + 0.5); }

static void vtime(void)
{
    char *bc = t_malloc(BC_LEN), *el = t_malloc((size_t)nodes * EL_LEN);
    char *ga = t_malloc((size_t)nodes * GA_LEN);
    long long t[7];

    memset(bc, 1, BC_LEN);
    memset(el, 2, (size_t)nodes * EL_LEN);
    memset(ga, 3, (size_t)nodes * GA_LEN);
    t[0] = vt_ns();
    VT_SYNC();
    t[1] = vt_ns();
    VT_BC(bc, BC_LEN);
    t[2] = vt_ns();
    if (IS_HOST)
        cm5_compute(0.001);
    VT_SYNC();
    t[3] = vt_ns();
    (void)RED(int, 1, CMMD_combiner_add);
    t[4] = vt_ns();
    VT_EL(el, EL_LEN);
    t[5] = vt_ns();
    VT_GA(ga, GA_LEN);
    t[6] = vt_ns();
    printf("prog_host: node %d vtime %lld %lld %lld %lld %lld\n", t_self,
           t[2] - t[1], t[3] - t[2], t[4] - t[3], t[5] - t[4], t[6] - t[5]);
    free(bc);
    free(el);
    free(ga);
}

static void reductions(void)
{
    int me = t_self;
    unsigned ux = HOST_UINT, uo = HOST_UINT;
    double dsum = HOST_DOUBLE, dmax = -1e300;
    long lsum = 99;
    int vi[VN], vwant[VN];
    double vd[3];

    /* int: add (host adds HOST_INT), max (host: INT_MIN), min. */
    expect_int(RED(int, IS_HOST ? HOST_INT : node_int(me), CMMD_combiner_add),
               add_i, HOST_INT, "reduce add");
    expect_int(RED(int, IS_HOST ? INT_MIN : node_int(me), CMMD_combiner_max),
               max_i, INT_MIN, "reduce max");
    expect_int(RED(int, IS_HOST ? -5000 : node_int(me), CMMD_combiner_min),
               min_i, -5000, "reduce min (the host's -5000 wins)");
    expect_int(RED_CN(int, IS_HOST ? 0 : node_int(me), CMMD_combiner_add),
               add_i, 0, "CMCN reduce add");
    for (int i = 0; i < nodes; i++) {
        ux ^= node_uint(i);
        uo |= node_uint(i) & 0x0f0f0f0fu;
        dsum += node_double(i);
        dmax = node_double(i) > dmax ? node_double(i) : dmax;
        lsum += node_long(i);
    }
    T_EQ(RED(uint, IS_HOST ? HOST_UINT : node_uint(me), CMMD_combiner_xor), ux,
         "reduce uint xor");
    T_EQ(RED(uint, IS_HOST ? HOST_UINT : node_uint(me) & 0x0f0f0f0fu,
             CMMD_combiner_ior),
         uo, "reduce uint ior");
    T_CHECK(RED(double, IS_HOST ? HOST_DOUBLE : node_double(me),
                CMMD_combiner_dadd) == dsum,
            "reduce double add");
    T_CHECK(RED(double, IS_HOST ? -1e300 : node_double(me),
                CMMD_combiner_dmax) == dmax,
            "reduce double max");
    T_CHECK(RED(float, IS_HOST ? HOST_DOUBLE : node_double(me),
                CMMD_combiner_fadd) == (double)(float)dsum,
            "reduce float add");
    T_EQ(RED_CN(lint, IS_HOST ? 99L : node_long(me), CMMD_combiner_add), lsum,
         "CMCN reduce lint add");
    T_EQ(RED_CN(luint, IS_HOST ? 1ul << 40 : (unsigned long)me,
                CMMD_combiner_umax),
         1ul << 40, "CMCN reduce luint max");
    /* Vectors: element k of node i is 10 i + k, of the host 100 k. */
    for (int k = 0; k < VN; k++) {
        vi[k] = IS_HOST ? 100 * k : 10 * me + k;
        vwant[k] = 100 * k + 10 * nodes * (nodes - 1) / 2 + nodes * k;
    }
    RED_V(vi, vi, CMMD_combiner_add, sizeof(int), VN);
    for (int k = 0; k < VN; k++)
        T_EQ(vi[k], vwant[k], "reduce_v int add element");
    for (int k = 0; k < 3; k++)
        vd[k] = IS_HOST ? (k == 2 ? -1e9 : 1e9) : me * 1.5 + k;
    RED_V(vd, vd, CMMD_combiner_dmin, sizeof(double), 3);
    T_CHECK(vd[0] == 0.0 && vd[1] == 1.0 && vd[2] == -1e9,
            "reduce_v double min: %g %g %g", vd[0], vd[1], vd[2]);
}

/* ---- the host's side ---- */

#ifdef T_HOST
static void host_collectives(void)
{
    char *bc = t_malloc(BC_LEN), *el = t_malloc((size_t)nodes * EL_LEN);
    char *ga = t_malloc((size_t)nodes * GA_LEN);

    t_fill(bc, BC_LEN, 77);
    CMMD_bc_from_host(bc, BC_LEN);
    for (int i = 0; i < nodes; i++)
        t_fill(el + (size_t)i * EL_LEN, EL_LEN, 100 + i);
    CMMD_distrib_to_nodes(el, EL_LEN);
    CMMD_gather_from_nodes(ga, GA_LEN);
    for (int i = 0; i < nodes; i++)
        T_PATTERN(ga + (size_t)i * GA_LEN, GA_LEN, 200 + i,
                  "element %d gathered", i);
    /* CMCN_ names: one more round each. */
    for (int i = 0; i < nodes; i++)
        t_fill(el + (size_t)i * 4, 4, 100 + i);
    CMCN_bc_from_host(bc, 10);
    CMCN_distrib_to_nodes(el, 4);
    CMCN_gather_from_nodes(ga, 4);
    for (int i = 0; i < nodes; i++)
        T_PATTERN(ga + (size_t)i * 4, 4, 300 + i, "CMCN element %d", i);
    free(bc);
    free(el);
    free(ga);
}

/* Nodes wait in CMMD_sync_with_host while the host computes.  (Under
 * synchronised virtual time a side may wait for the late one's clock in
 * the call before, in real time: the real waits are checked without the
 * model.) */
static void host_sync(void)
{
    double t0;

    t_compute(0.3);
    CMMD_sync_host_with_nodes();
    t0 = t_now();
    CMMD_sync_host_with_nodes(); /* node N-1 is 0.3 s late */
    T_CHECK(cm5_model() || t_now() - t0 > 0.15,
            "host passed the sync %.3f s after "
            "entering it; node %d came 0.3 s late",
            t_now() - t0, nodes - 1);
    CMCN_sync_host_with_nodes();
}

static void host_messages(void)
{
    char *buf = t_malloc(T_MIB);

    for (int i = 0; i < nodes; i++) {
        t_fill(buf, 5000 + i, 400 + i);
        CMMD_send_block(i, 10 + i, buf, 5000 + i);
    }
    for (int k = 0; k < nodes; k++) {
        int src;

        CMMD_receive_block(CMMD_ANY_NODE, 20, buf, 4000);
        src = CMMD_msg_sender();
        T_CHECK(src >= 0 && src < nodes, "message from node %d", src);
        T_EQ(CMMD_bytes_received(), 3000 + src, "bytes from a node");
        T_PATTERN(buf, 3000 + src, 500 + src, "message from node %d", src);
    }
    /* 1 MiB from the last node, and back. */
    CMMD_receive_block(nodes - 1, 21, buf, T_MIB);
    T_PATTERN(buf, T_MIB, 600, "1 MiB from node %d", nodes - 1);
    CMMD_send_block(nodes - 1, 22, buf, T_MIB);
    free(buf);
}

static void host_active_messages(void)
{
    long want = 0;

    host_h[0] = (uintptr_t)h_req;
    host_h[1] = (uintptr_t)h_rep;
    host_h[2] = (uintptr_t)h_rpc;
    CMMD_bc_from_host(host_h, sizeof(host_h));
    CMMD_gather_from_nodes(node_h, 2 * sizeof(uint64_t));
    T_POLL_UNTIL(req_count == nodes, 20, "%d requests of %d", req_count, nodes);
    CMMD_sync_host_with_nodes();
    for (int i = 0; i < nodes; i++)
        CMAML_request(i, H(node_h[2 * i + 1]), 1000 + i);
    T_POLL_UNTIL(rep_count == nodes, 20, "%d replies of %d", rep_count, nodes);
    for (int i = 0; i < nodes; i++)
        T_EQ(rep_from[i], 2 * (1000 + i), "reply_tohost value");
    CMMD_sync_host_with_nodes();
    T_POLL_UNTIL(rpc_count == nodes, 20, "%d rpcs of %d", rpc_count, nodes);
    for (int i = 0; i < nodes; i++)
        want += 7 * i;
    T_EQ(rpc_sum, want, "rpc_tohost sum");
    CMMD_sync_host_with_nodes();
}

/* The host's bit in the global OR, then a node's bit seen by the host. */
static void host_global_or(void)
{
    CMMD_set_global_or(1);
    CMMD_sync_host_with_nodes(); /* nodes wait for the host's 1 */
    CMMD_sync_host_with_nodes();
    CMMD_set_global_or(0);
    CMMD_sync_host_with_nodes(); /* nodes wait for 0 */
    CMMD_sync_host_with_nodes(); /* every node has seen 0 */
    CMMD_sync_host_with_nodes(); /* node N-1 has set 1 */
    T_POLL_UNTIL(CMMD_get_global_or() == 1, 20,
                 "host never saw node %d's "
                 "bit",
                 nodes - 1);
    CMMD_sync_host_with_nodes();
    CMMD_sync_host_with_nodes(); /* node N-1 has set 0 */
    T_POLL_UNTIL(CMMD_get_global_or() == 0, 20, "the global OR stays 1");
}

static int run(const char *mode)
{
    if (strcmp(mode, "host_exit") == 0) {
        CMMD_enable();
        exit(3);
    }
    if (strcmp(mode, "host_kill") == 0) {
        CMMD_enable();
        raise(SIGKILL);
    }
    if (strcmp(mode, "node_call_on_host") == 0)
        CMMD_receive_bc_from_host(&nodes, sizeof(int));
    if (strcmp(mode, "node_coll_on_host") == 0) {
        CMMD_enable();
        CMMD_sync_with_nodes();
    }
    if (strcmp(mode, "no_enable") == 0)
        CMMD_bc_from_host(&nodes, sizeof(int));
    T_EQ(CMMD_is_enabled(), 0, "CMMD_is_enabled() before CMMD_enable()");
    CMMD_enable();
    if (strcmp(mode, "host_call_on_node") == 0 ||
        strcmp(mode, "no_enable_node") == 0) {
        CMMD_sync_host_with_nodes();
        return 1;
    }
    T_EQ(CMMD_is_enabled(), 1, "CMMD_is_enabled()");
    T_EQ(t_self, host, "CMMD_self_address() on the host");
    T_EQ(CMUTIL_host_node(), nodes, "CMUTIL_host_node()");
    if (strcmp(mode, "vtime") == 0) {
        vtime();
        return 0;
    }
    if (strcmp(mode, "deadlock") == 0 || strcmp(mode, "slow") == 0) {
        int v = 0;

        if (strcmp(mode, "slow") == 0) {
            t_compute(5.0);
            for (int i = 0; i < nodes; i++)
                CMMD_send_block(i, 32, &i, sizeof(i));
        }
        CMMD_receive_block(0, 31, &v, sizeof(v));
        T_EQ(v, 7, "node 0's word");
        return 0;
    }
    host_collectives();
    reductions();
    host_sync();
    host_messages();
    host_active_messages();
    host_global_or();
    return 0;
}
#else
/* ---- the nodes' side ---- */

static void node_collectives(void)
{
    char bc[BC_LEN], el[EL_LEN], ga[GA_LEN];

    CMMD_receive_bc_from_host(bc, BC_LEN);
    T_PATTERN(bc, BC_LEN, 77, "broadcast from the host");
    CMMD_receive_element_from_host(el, EL_LEN);
    T_PATTERN(el, EL_LEN, 100 + t_self, "element from the host");
    t_fill(ga, GA_LEN, 200 + t_self);
    CMMD_concat_elements_to_host(ga, GA_LEN);
    CMCN_receive_bc_from_host(bc, 10);
    T_PATTERN(bc, 10, 77, "CMCN broadcast");
    CMCN_receive_element_from_host(el, 4);
    T_PATTERN(el, 4, 100 + t_self, "CMCN element");
    t_fill(ga, 4, 300 + t_self);
    CMCN_concat_elements_to_host(ga, 4);
}

static void node_sync(void)
{
    double t0 = t_now();

    CMMD_sync_with_host(); /* the host computes 0.3 s first */
    T_CHECK(cm5_model() || t_now() - t0 > 0.15,
            "node passed the sync %.3f s after "
            "entering it; the host came 0.3 s late",
            t_now() - t0);
    if (t_self == nodes - 1)
        t_compute(0.3);
    CMMD_sync_with_host();
    CMCN_sync_with_host();
}

static void node_messages(void)
{
    char *buf = t_malloc(T_MIB);

    CMMD_receive_block(CMMD_host_node(), 10 + t_self, buf, 6000);
    T_EQ(CMMD_msg_sender(), host, "sender of the host's message");
    T_EQ(CMMD_bytes_received(), 5000 + t_self, "bytes from the host");
    T_PATTERN(buf, 5000 + t_self, 400 + t_self, "message from the host");
    t_fill(buf, 3000 + t_self, 500 + t_self);
    CMMD_send_block(CMMD_host_node(), 20, buf, 3000 + t_self);
    if (t_self == nodes - 1) {
        t_fill(buf, T_MIB, 600);
        CMMD_send_block(host, 21, buf, T_MIB);
        memset(buf, 0, T_MIB);
        CMMD_receive_block(host, 22, buf, T_MIB);
        T_PATTERN(buf, T_MIB, 600, "1 MiB back from the host");
    }
    free(buf);
}

static void node_active_messages(void)
{
    uint64_t mine[2] = {(uintptr_t)n_rep, (uintptr_t)n_req};

    CMMD_receive_bc_from_host(host_h, sizeof(host_h));
    CMMD_concat_elements_to_host(mine, sizeof(mine));
    CMAML_request_tohost(H(host_h[0]), t_self, t_self * 11 + 3);
    T_POLL_UNTIL(got_rep >= 0, 20, "no reply from the host");
    T_EQ(got_rep, t_self * 11 + 4, "the host's reply");
    CMMD_sync_with_host();
    T_POLL_UNTIL(n_seen != 0, 20, "no request from the host");
    T_EQ(n_seen, 1000 + t_self, "the host's request");
    CMMD_sync_with_host();
    CMAML_rpc_tohost(H(host_h[2]), t_self, 7 * t_self);
    CMMD_sync_with_host();
}

static void node_global_or(void)
{
    CMMD_sync_with_host();
    T_POLL_UNTIL(CMMD_get_global_or() == 1, 20, "the host's bit not seen");
    CMMD_sync_with_host();
    CMMD_sync_with_host();
    T_POLL_UNTIL(CMMD_get_global_or() == 0, 20, "the global OR stays 1");
    CMMD_sync_with_host(); /* every node has seen 0 */
    if (t_self == nodes - 1)
        CMMD_set_global_or(1);
    CMMD_sync_with_host();
    CMMD_sync_with_host(); /* the host has seen it */
    if (t_self == nodes - 1)
        CMMD_set_global_or(0);
    CMMD_sync_with_host();
}

static int run(const char *mode)
{
    if (strcmp(mode, "nohost") == 0 && t_self == 0)
        CMMD_enable_host();
    if (strcmp(mode, "nohost") == 0) /* waits for node 0, which fails */
        CMMD_receive_block(0, 99, &nodes, sizeof(int));
    if (strcmp(mode, "no_enable_node") == 0 && t_self == 0)
        CMMD_sync_with_host();
    if (strcmp(mode, "host_call_on_node") == 0 && t_self == 1)
        CMMD_bc_from_host(&nodes, sizeof(int));
    T_EQ(CMMD_is_enabled(), 0, "CMMD_is_enabled() before enable_host");
    CMMD_enable_host();
    if (strcmp(mode, "deadlock") == 0 || strcmp(mode, "slow") == 0) {
        int v = -1;

        CMMD_receive_block(host, 32, &v, sizeof(v));
        T_EQ(v, t_self, "the host's word");
        if (t_self == 0) {
            t_compute(5.0);
            v = 7;
            CMMD_send_block(host, 31, &v, sizeof(v));
        }
        return 0;
    }
    if (strcmp(mode, "all") != 0 && strcmp(mode, "vtime") != 0) {
        CMMD_sync_with_host();
        return 1;
    }
    T_EQ(CMMD_is_enabled(), 1, "CMMD_is_enabled()");
    T_CHECK(t_self >= 0 && t_self < nodes, "CMMD_self_address() %d", t_self);
    if (strcmp(mode, "vtime") == 0) {
        vtime();
        return 0;
    }
    node_collectives();
    reductions();
    node_sync();
    node_messages();
    node_active_messages();
    node_global_or();
    return 0;
}
#endif

int main(int argc, char **argv)
{
    t_init("prog_host");
    nodes = CMMD_partition_size();
    host = CMMD_host_node();
    T_EQ(host, nodes, "CMMD_host_node()");
    rep_from = t_malloc(sizeof(int) * (size_t)nodes);
    node_h = t_malloc(2 * sizeof(uint64_t) * (size_t)nodes);
    if (run(argc > 1 ? argv[1] : "all") != 0)
        return 1;
    if (cm5_model())
        printf("prog_host: node %d clock %lld\n", t_self, vt_ns());
    free(rep_from);
    free(node_h);
    t_done();
    return 0;
}

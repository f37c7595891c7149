/*
 * The strided (_v) point-to-point calls of <cm/cmmd/mp.h>, byte for byte:
 * every element lands where its stride puts it, the bytes between the
 * elements (and past a short message) keep their sentinel, a _v call
 * matches a plain one either way, buffered sends copy, asynchronous ones
 * have their elements in place when done and when their handler runs.
 * Blocking transfers go round the ring (node 0 first); on one node the
 * blocking receives take an asynchronous send to oneself.
 *
 *   prog_mpv [MODE] MARK    MODE: a wrong call (see bad()), on 2 nodes
 */
#include "t_util.h"

#define GAP 0xEE

static int right, left;

/* Element i, byte j of vector seed is byte i * elen + j of pattern seed. */
static unsigned char *vnew(int elen, int count, int stride, uint32_t seed)
{
    size_t size = (size_t)count * (size_t)stride + 16;
    unsigned char *p = t_malloc(size);

    memset(p, GAP, size);
    for (int i = 0; seed && i < count; i++)
        for (int j = 0; j < elen; j++)
            p[(size_t)i * stride + j] = t_byte(seed, (size_t)i * elen + j);
    return p;
}

/* The first n bytes of vector seed are in place, every other byte of the
 * buffer (gaps, the rest, 16 bytes past the end) is the sentinel. */
static void vcheck(const unsigned char *p, int elen, int count, int stride,
                   uint32_t seed, int n, const char *what)
{
    size_t size = (size_t)count * (size_t)stride + 16;

    for (size_t b = 0; b < size; b++) {
        size_t i = b / (size_t)stride, j = b % (size_t)stride;
        size_t k = i * (size_t)elen + j;
        int in = i < (size_t)count && j < (size_t)elen && k < (size_t)n;
        unsigned char want = in ? t_byte(seed, k) : GAP;

        T_CHECK(p[b] == want,
                "%s: byte %zu (element %zu, offset %zu) is "
                "0x%02x, expected 0x%02x",
                what, b, i, j, p[b], want);
    }
}

static uint32_t seed_of(int node, int k)
{
    return t_hash((uint32_t)node + 1, (uint32_t)k + 77);
}

/* ---- blocking calls round the ring ---- */

typedef void (*step_fn)(int k);

/* Node 0 sends then receives; the others receive then send. */
static void ring(int k, step_fn send, step_fn recv)
{
    if (t_self == 0) {
        send(k);
        recv(k);
    } else {
        recv(k);
        send(k);
    }
}

static void s_send_v(int k)
{
    unsigned char *p = vnew(4, 1000, 12, seed_of(t_self, k));

    T_EQ(CMMD_send_v(right, k, p, 4, 1000, 12), TRUE, "CMMD_send_v");
    T_EQ(CMMD_bytes_sent(), 4000, "bytes sent by CMMD_send_v");
    vcheck(p, 4, 1000, 12, seed_of(t_self, k), 4000, "send_v's own buffer");
    free(p);
}

static void r_receive_v(int k)
{
    unsigned char *p = vnew(4, 1000, 20, 0);

    T_EQ(CMMD_receive_v(left, k, p, 4, 1000, 20), TRUE, "CMMD_receive_v");
    T_EQ(CMMD_bytes_received(), 4000, "bytes received by CMMD_receive_v");
    vcheck(p, 4, 1000, 20, seed_of(left, k), 4000, "receive_v stride 20");
    free(p);
}

static void s_send_block_v(int k)
{
    unsigned char *p = vnew(3, 777, 7, seed_of(t_self, k));

    T_EQ(CMMD_send_block_v(right, k, p, 3, 777, 7), TRUE, "CMMD_send_block_v");
    free(p);
}

static void r_receive_block(int k)
{
    unsigned char *p = vnew(2331, 1, 2331, 0);

    CMMD_receive_block(left, k, p, 2331);
    T_EQ(CMMD_bytes_received(), 2331, "bytes of a send_block_v");
    vcheck(p, 2331, 1, 2331, seed_of(left, k), 2331,
           "plain receive of a send_block_v");
    free(p);
}

static void s_send_block(int k)
{
    unsigned char *p = vnew(2331, 1, 2331, seed_of(t_self, k));

    CMMD_send_block(right, k, p, 2331);
    free(p);
}

static void r_receive_block_v(int k)
{
    unsigned char *p = vnew(3, 777, 5, 0);

    T_EQ(CMMD_receive_block_v(left, k, p, 3, 777, 5), TRUE,
         "CMMD_receive_block_v");
    vcheck(p, 3, 777, 5, seed_of(left, k), 2331,
           "receive_block_v of a plain send");
    free(p);
}

/* Buffered: the sender overwrites its elements at once. */
static void s_send_noblock_v(int k)
{
    unsigned char *p = vnew(8, 100000, 24, seed_of(t_self, k));
    unsigned char *q = vnew(8, 1000, 8, seed_of(t_self, k + 1));

    T_EQ(CMMD_send_noblock_v(right, k, p, 8, 100000, 24), 0,
         "CMMD_send_noblock_v");
    memset(p, 0x55, (size_t)100000 * 24);
    T_EQ(CMMD_send_noblock_v(right, k + 1, q, 8, 1000, 8), 0,
         "CMMD_send_noblock_v (contiguous)");
    memset(q, 0x55, 8000);
    free(p);
    free(q);
}

static void r_noblock(int k)
{
    unsigned char *p = vnew(8, 100000, 8, 0);
    unsigned char *q = vnew(8, 1000, 40, 0);

    CMMD_receive_v(left, k, p, 8, 100000, 8);
    vcheck(p, 8, 100000, 8, seed_of(left, k), 800000,
           "800000 bytes of a send_noblock_v, contiguous receive");
    CMMD_receive_v(left, k + 1, q, 8, 1000, 40);
    vcheck(q, 8, 1000, 40, seed_of(left, k + 1), 8000,
           "contiguous send_noblock_v into stride 40");
    free(p);
    free(q);
}

/* A message shorter than the vector: 30 bytes into 10 elements of 4
 * (7 whole elements, 2 bytes of the 8th); then an empty one. */
static void s_short(int k)
{
    unsigned char *p = vnew(5, 6, 11, seed_of(t_self, k));

    CMMD_send_v(right, k, p, 5, 6, 11);
    CMMD_send_v(right, k + 1, p, 5, 0, 11);
    free(p);
}

static void r_short(int k)
{
    unsigned char *p = vnew(4, 10, 9, 0);

    CMMD_receive_v(left, k, p, 4, 10, 9);
    T_EQ(CMMD_bytes_received(), 30, "bytes of the short message");
    vcheck(p, 4, 10, 9, seed_of(left, k), 30, "30 bytes into 10 x 4");
    CMMD_receive_v(left, k + 1, p, 4, 10, 9);
    T_EQ(CMMD_bytes_received(), 0, "bytes of the empty message");
    vcheck(p, 4, 10, 9, seed_of(left, k), 30, "after the empty message");
    free(p);
}

/* Wildcards: the sender and the tag are the message's. */
static void s_any(int k)
{
    unsigned char *p = vnew(16, 64, 16, seed_of(t_self, k));

    CMMD_send_block_v(right, k, p, 16, 64, 16);
    free(p);
}

static void r_any(int k)
{
    unsigned char *p = vnew(16, 64, 48, 0);

    CMMD_receive_block_v(CMMD_ANY_NODE, CMMD_ANY_TAG, p, 16, 64, 48);
    T_EQ(CMMD_msg_sender(), left, "sender of a wildcard receive_block_v");
    T_EQ(CMMD_msg_tag(), k, "tag of a wildcard receive_block_v");
    vcheck(p, 16, 64, 48, seed_of(left, k), 1024, "wildcard receive");
    free(p);
}

/* One node: the blocking receives take an asynchronous send to oneself. */
static void self_blocking(void)
{
    unsigned char *s = vnew(4, 1000, 12, seed_of(0, 900));
    unsigned char *r = vnew(4, 1000, 20, 0);
    CMMD_mcb m = CMMD_send_async_v(0, 900, s, 4, 1000, 12, NULL, NULL);

    T_CHECK(m > 0, "CMMD_send_async_v to oneself: MCB %d", m);
    CMMD_receive_v(0, 900, r, 4, 1000, 20);
    vcheck(r, 4, 1000, 20, seed_of(0, 900), 4000, "receive_v from oneself");
    CMMD_msg_wait(m);
    CMMD_free_mcb(m);
    free(r);
    r = vnew(3, 1333, 3, 0);
    m = CMMD_send_async_v(0, 901, s, 3, 1333, 9, NULL, NULL);
    CMMD_receive_block_v(0, 901, r, 3, 1333, 3);
    CMMD_msg_wait(m);
    CMMD_free_mcb(m);
    for (int i = 0; i < 1333; i++) /* the elements s has every 9 bytes */
        T_CHECK(!memcmp(r + i * 3, s + i * 9, 3),
                "receive_block_v from oneself, element %d", i);
    free(s);
    free(r);
}

/* ---- asynchronous calls (also on one node) ---- */

typedef struct {
    int runs, mcb, in_place;
    const unsigned char *p;
    int elen, count, stride;
    uint32_t seed;
} hctx_t;

static int in_place(const unsigned char *p, int elen, int count, int stride,
                    uint32_t seed)
{
    for (int i = 0; i < count; i++)
        for (int j = 0; j < elen; j++)
            if (p[(size_t)i * stride + j] != t_byte(seed, (size_t)i * elen + j))
                return 0;
    return 1;
}

static void handler(CMMD_mcb *mcb, void *arg)
{
    hctx_t *h = arg;

    h->runs++;
    h->mcb = *mcb;
    h->in_place =
        h->p ? in_place(h->p, h->elen, h->count, h->stride, h->seed) : 1;
}

static void test_async(int k)
{
    unsigned char *s = vnew(6, 500, 16, seed_of(t_self, k));
    unsigned char *r = vnew(6, 500, 10, 0);
    unsigned char *r2 = vnew(6, 500, 7, 0);
    hctx_t hr = {0, 0, 0, r, 6, 500, 10, seed_of(left, k)};
    hctx_t hs = {0, 0, 0, NULL, 0, 0, 0, 0};
    CMMD_mcb mr, ms, mr2, ms2;

    mr = CMMD_receive_async_v(left, k, r, 6, 500, 10, handler, &hr);
    mr2 = CMMD_receive_async_v(left, k + 1, r2, 6, 500, 7, NULL, NULL);
    T_CHECK(mr > 0 && mr2 > 0, "CMMD_receive_async_v: MCBs %d %d", mr, mr2);
    CMMD_sync_with_nodes(); /* every receive is posted before any send */
    ms = CMMD_send_async_v(right, k, s, 6, 500, 16, handler, &hs);
    ms2 = CMMD_send_async_v(right, k + 1, s, 6, 500, 16, NULL, NULL);
    T_CHECK(ms > 0 && ms2 > 0, "CMMD_send_async_v: MCBs %d %d", ms, ms2);
    while (!CMMD_msg_done(mr))
        ;
    T_EQ(hr.runs, 1, "runs of the receive's handler once done");
    T_EQ(hr.mcb, mr, "MCB given to the receive's handler");
    T_EQ(hr.in_place, 1, "elements in place when the handler ran");
    vcheck(r, 6, 500, 10, seed_of(left, k), 3000, "receive_async_v");
    T_EQ(CMMD_mcb_bytes(mr), 3000, "CMMD_mcb_bytes of a receive_async_v");
    CMMD_msg_wait(mr2);
    vcheck(r2, 6, 500, 7, seed_of(left, k), 3000,
           "receive_async_v, no handler");
    CMMD_msg_wait(ms);
    CMMD_msg_wait(ms2);
    T_EQ(hs.runs, 1, "runs of the send's handler");
    T_EQ(hs.mcb, ms, "MCB given to the send's handler");
    vcheck(s, 6, 500, 16, seed_of(t_self, k), 3000, "send_async_v buffer");
    CMMD_free_mcb(mr);
    CMMD_free_mcb(mr2);
    CMMD_free_mcb(ms);
    CMMD_free_mcb(ms2);
    T_CHECK(CMMD_all_msgs_done(), "messages left after the async test");
    free(s);
    free(r);
    free(r2);
}

/* Both directions at once round the ring (oneself on one node). */
static void test_send_and_receive(int k)
{
    unsigned char *s = vnew(4, 3000, 8, seed_of(t_self, k));
    unsigned char *r = vnew(4, 3000, 16, 0);

    T_EQ(CMMD_send_and_receive_v(left, k, r, 4, 3000, 16, right, k, s, 4, 3000,
                                 8),
         TRUE, "CMMD_send_and_receive_v");
    T_EQ(CMMD_bytes_received(), 12000, "bytes of send_and_receive_v");
    vcheck(r, 4, 3000, 16, seed_of(left, k), 12000, "send_and_receive_v");
    vcheck(s, 4, 3000, 8, seed_of(t_self, k), 12000,
           "send_and_receive_v's send buffer");
    free(s);
    free(r);
}

/* ---- wrong calls ---- */

static void bad(const char *mode)
{
    int one = t_self == 1;
    static int buf[64];

    if (!strcmp(mode, "stride_small") && one)
        CMMD_send_v(0, 1, buf, 8, 4, 4);
    else if (!strcmp(mode, "elen_negative") && one)
        CMMD_receive_v(0, 1, buf, -4, 4, 4);
    else if (!strcmp(mode, "count_negative") && one)
        CMMD_send_block_v(0, 1, buf, 4, -1, 4);
    else if (!strcmp(mode, "null_buffer") && one)
        CMMD_send_noblock_v(0, 1, NULL, 4, 3, 4);
    else if (!strcmp(mode, "too_big") && one)
        CMMD_receive_async_v(0, 1, buf, 4096, 1 << 20, 4096, NULL, NULL);
    else if (!strcmp(mode, "node_7") && one)
        CMMD_send_async_v(7, 1, buf, 4, 2, 8, NULL, NULL);
    else if (!strcmp(mode, "tag_negative") && one)
        CMMD_send_and_receive_v(0, 1, buf, 4, 2, 8, 0, -3, buf, 4, 2, 8);
    else if (!strcmp(mode, "too_long")) {
        if (t_self == 0)
            CMMD_receive_block_v(1, 5, buf, 4, 2, 8);
        else
            CMMD_send_v(0, 5, buf, 4, 4, 4);
    }
    CMMD_sync_with_nodes();
    CMMD_sync_with_nodes();
}

int main(int argc, char **argv)
{
    /* The mark the test script appends is not a mode. */
    const char *mode = argc > 2 ? argv[1] : NULL;

    t_init("prog_mpv");
    right = (t_self + 1) % t_nodes;
    left = (t_self + t_nodes - 1) % t_nodes;
    if (mode) {
        T_CHECK(t_nodes >= 2, "a wrong call runs on 2 or more nodes");
        bad(mode);
        fprintf(stderr, "prog_mpv[%d]: %s: the wrong call returned\n", t_self,
                mode);
        fflush(stderr);
        _exit(99);
    }
    if (t_nodes >= 2) {
        ring(10, s_send_v, r_receive_v);
        ring(20, s_send_block_v, r_receive_block);
        ring(30, s_send_block, r_receive_block_v);
        ring(40, s_send_noblock_v, r_noblock);
        ring(50, s_short, r_short);
        ring(60, s_any, r_any);
    } else {
        self_blocking();
    }
    for (int round = 0; round < 3; round++) {
        test_async(100 + 10 * round);
        test_send_and_receive(200 + round);
    }
    CMMD_sync_with_nodes();
    t_done();
    return 0;
}

/*
 * libFuzzer target: what cm5run reads from its nodes' bootstrap sockets
 * (tools/cm5run.c, compiled into this file: boot_read, boot_header,
 * complete_round, boot_write).
 *
 * A job of 1 to 4 nodes, each node a socket pair whose far end the input
 * writes to (in chunks of its choosing), shuts, or reads the answers
 * from.  The oracle is an independent model: node i's bytes, split into
 * length-prefixed records, give rounds; what each node reads back must
 * be a prefix of the answers those complete rounds make (the node count,
 * then every node's record of the round, in node order).
 */
#define main cm5run_main
#include "../../tools/cm5run.c"
#include "../../am/am_model_calc.c"
#undef main

#define PROCS_MAX 4
#define STREAM_MAX 8192

static struct side {
    int fd;                  /* the node's end */
    uint8_t out[STREAM_MAX]; /* what the node wrote */
    size_t nout;
    uint8_t in[STREAM_MAX];  /* what it read back */
    size_t nin;
} side[PROCS_MAX];

/* Record k of node p in the model: its offset and length, or -1. */
static long model_record(int p, int k, uint32_t *len)
{
    size_t at = 0;

    for (;;) {
        uint32_t l;

        if (side[p].nout - at < 4)
            return -1;
        memcpy(&l, side[p].out + at, 4);
        if (l > CM5_BOOT_MAX_RECORD || side[p].nout - at - 4 < l)
            return -1;
        if (k-- == 0) {
            *len = l;
            return (long)(at + 4);
        }
        at += 4 + l;
    }
}

/* What node p has read must be a prefix of the model's answers. */
static void check_answers(int procs, int p)
{
    size_t at = 0;

    for (int k = 0; at < side[p].nin; k++) {
        uint32_t v = (uint32_t)procs;

        for (int q = -1; q < procs && at < side[p].nin; q++) {
            uint32_t len = 0;
            long off = q < 0 ? 0 : model_record(q, k, &len);
            size_t n;

            if (off < 0)
                abort(); /* an answer to a round that is not complete */
            if (q < 0) {
                n = side[p].nin - at < 4 ? side[p].nin - at : 4;
                if (memcmp(side[p].in + at, &v, n))
                    abort();
                at += n;
                continue;
            }
            n = side[p].nin - at < 4 ? side[p].nin - at : 4;
            if (memcmp(side[p].in + at, &len, n))
                abort();
            at += n;
            n = side[p].nin - at < len ? side[p].nin - at : len;
            if (memcmp(side[p].in + at, side[q].out + off, n))
                abort();
            at += n;
        }
    }
}

static void node_drain(struct job *j, int p)
{
    struct node *nd = &j->nodes[p];

    if (!j->stopping && nd->boot_fd >= 0 && nd->tx)
        boot_write(nd);
    for (;;) {
        ssize_t r = read(side[p].fd, side[p].in + side[p].nin,
                         STREAM_MAX - side[p].nin);

        if (r <= 0)
            break;
        side[p].nin += (size_t)r;
    }
    check_answers(j->o->procs, p);
}

static void node_write(struct job *j, int p, const uint8_t *d, size_t n)
{
    ssize_t r;

    if (n > STREAM_MAX - side[p].nout)
        n = STREAM_MAX - side[p].nout;
    r = n ? send(side[p].fd, d, n, MSG_NOSIGNAL) : 0;
    if (r > 0) {
        memcpy(side[p].out + side[p].nout, d, (size_t)r);
        side[p].nout += (size_t)r;
    }
    boot_read(j, &j->nodes[p]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct opts o = {0};
    struct node nodes[PROCS_MAX];
    struct job j = {.o = &o, .nodes = nodes};
    const uint8_t *end = data + size;

    if (size < 1)
        return 0;
    o.nodes = o.procs = 1 + data++[0] % PROCS_MAX;
    memset(nodes, 0, sizeof(nodes));
    memset(side, 0, sizeof(side));
    j.launched = o.procs;
    for (int p = 0; p < o.procs; p++) {
        int sv[2];

        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
            abort();
        nodes[p].rank = p;
        nodes[p].boot_fd = sv[0];
        set_nonblock(sv[0]);
        set_nonblock(sv[1]);
        side[p].fd = sv[1];
        nodes[p].out[0].fd = nodes[p].out[1].fd = -1;
    }
    while (data < end) {
        int b = *data++, p = b % o.procs;
        size_t n;

        switch ((b >> 2) & 3) {
        case 0: /* the node writes a chunk */
            n = data < end ? *data++ : 0;
            n = n < (size_t)(end - data) ? n : (size_t)(end - data);
            node_write(&j, p, data, n);
            data += n;
            break;
        case 1: /* the node reads */
            node_drain(&j, p);
            break;
        case 2: /* the node closes its end */
            shutdown(side[p].fd, SHUT_WR);
            boot_read(&j, &nodes[p]);
            break;
        case 3:
            for (int q = 0; q < o.procs; q++) {
                boot_read(&j, &nodes[q]);
                node_drain(&j, q);
            }
            break;
        }
        if (j.joined < 0 || j.joined > o.procs)
            abort();
    }
    for (int p = 0; p < o.procs; p++) {
        reply_release(&nodes[p]);
        free(nodes[p].msg);
        close(nodes[p].boot_fd);
        close(side[p].fd);
    }
    return 0;
}

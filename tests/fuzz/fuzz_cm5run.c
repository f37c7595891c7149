/*
 * libFuzzer target: what cm5run reads from its nodes' bootstrap sockets:
 * the launcher's half of the bootstrap (am/boot/boot_server.c, linked
 * from libcm5am_fuzz.a through its interface in boot_proto.h).
 *
 * A job of 1 to 4 nodes, each node a socket pair whose far end the input
 * writes to (in chunks of its choosing), shuts, or reads the answers
 * from.  The oracle is an independent model: node i's bytes, split into
 * length-prefixed records, give rounds; what each node reads back must
 * be a prefix of the answers those complete rounds make (the node count,
 * then every node's record of the round, in node order).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "boot_proto.h"

#define PROCS_MAX 4
#define STREAM_MAX 8192

static struct side {
    int fd;                  /* the node's end */
    uint8_t out[STREAM_MAX]; /* what the node wrote */
    size_t nout;
    uint8_t in[STREAM_MAX]; /* what it read back */
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

/* The server takes a turn on node p's socket: it completes at most one
 * round (a node is not read while its answer is pending); after a fault
 * (a record too long) it must do nothing more. */
static void serve(cm5_boot_server_t *s, int p)
{
    unsigned long rounds = cm5_boot_server_rounds(s);
    char err[160];
    int rc = cm5_boot_server_serve(s, p, err, sizeof(err));

    if (cm5_boot_server_rounds(s) - rounds > 1)
        abort();
    if (rc != 0) {
        short ev;

        if (!strstr(err, "bootstrap") || cm5_boot_server_pollfd(s, p, &ev) >= 0)
            abort();
    }
}

static void node_drain(cm5_boot_server_t *s, int procs, int p)
{
    serve(s, p);
    for (;;) {
        ssize_t r = read(side[p].fd, side[p].in + side[p].nin,
                         STREAM_MAX - side[p].nin);

        if (r <= 0)
            break;
        side[p].nin += (size_t)r;
    }
    check_answers(procs, p);
}

static void node_write(cm5_boot_server_t *s, int p, const uint8_t *d, size_t n)
{
    ssize_t r;

    if (n > STREAM_MAX - side[p].nout)
        n = STREAM_MAX - side[p].nout;
    r = n ? send(side[p].fd, d, n, MSG_NOSIGNAL) : 0;
    if (r > 0) {
        memcpy(side[p].out + side[p].nout, d, (size_t)r);
        side[p].nout += (size_t)r;
    }
    serve(s, p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *end = data + size;
    cm5_boot_server_t *s;
    int procs;

    if (size < 1)
        return 0;
    procs = 1 + data++[0] % PROCS_MAX;
    memset(side, 0, sizeof(side));
    if (!(s = cm5_boot_server_new(procs)))
        abort();
    for (int p = 0; p < procs; p++) {
        int sv[2];

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0)
            abort();
        cm5_boot_server_attach(s, p, sv[0]);
        side[p].fd = sv[1];
    }
    while (data < end) {
        int b = *data++, p = b % procs;
        size_t n;

        switch ((b >> 2) & 3) {
        case 0: /* the node writes a chunk */
            n = data < end ? *data++ : 0;
            n = n < (size_t)(end - data) ? n : (size_t)(end - data);
            node_write(s, p, data, n);
            data += n;
            break;
        case 1: /* the node reads */
            node_drain(s, procs, p);
            break;
        case 2: /* the node closes its end */
            shutdown(side[p].fd, SHUT_WR);
            serve(s, p);
            break;
        case 3:
            for (int q = 0; q < procs; q++) {
                serve(s, q);
                node_drain(s, procs, q);
            }
            break;
        }
    }
    cm5_boot_server_free(s); /* closes the server's ends */
    for (int p = 0; p < procs; p++)
        close(side[p].fd);
    return 0;
}

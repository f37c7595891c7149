/*
 * The launcher's half of the local bootstrap (boot_proto.h): cm5run
 * serves its nodes' allgather rounds with it.  The node's half is
 * boot_local.c.
 *
 * Each node writes one record per round, a length prefix and that many
 * bytes; once every node has written its record, each gets the answer,
 * the number of records and every node's record in node order.  A node
 * is read only while it has no answer pending, so a node cannot start
 * the next round before it has taken the answer to this one.
 */
#include "boot_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

/* One round's answer, shared by all nodes until sent. */
typedef struct {
    size_t len;
    size_t refs;
    unsigned char data[];
} boot_answer_t;

typedef struct {
    int fd;  /* the socket, -1 if none */
    int eof; /* the node closed its end (or is gone) */
    unsigned char hdr[CM5_BOOT_PREFIX]; /* length prefix being received */
    size_t hdr_got;
    cm5_boot_len_t len; /* this round's record: its length, */
    size_t got;         /* the bytes received, */
    unsigned char *rec; /* and the bytes */
    int joined;         /* sent its whole record this round */
    boot_answer_t *tx;  /* answer being sent, or NULL */
    size_t tx_off;
} boot_peer_t;

struct cm5_boot_server {
    int procs;
    int joined;    /* nodes that joined this round */
    int failed;    /* a fault (-1, -2): serve no more */
    char why[128]; /* ... and what it was */
    unsigned long rounds;
    boot_peer_t peer[];
};

cm5_boot_server_t *cm5_boot_server_new(int procs)
{
    cm5_boot_server_t *s;

    if (procs < 1)
        return NULL;
    s = calloc(1, sizeof(*s) + (size_t)procs * sizeof(s->peer[0]));
    if (!s)
        return NULL;
    s->procs = procs;
    for (int i = 0; i < procs; i++)
        s->peer[i].fd = -1;
    return s;
}

static void answer_release(boot_peer_t *p)
{
    if (p->tx && --p->tx->refs == 0)
        free(p->tx);
    p->tx = NULL;
    p->tx_off = 0;
}

static void record_reset(boot_peer_t *p)
{
    free(p->rec);
    p->rec = NULL;
    p->len = 0;
    p->got = 0;
    p->hdr_got = 0;
}

void cm5_boot_server_free(cm5_boot_server_t *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->procs; i++) {
        boot_peer_t *p = &s->peer[i];

        if (p->fd >= 0)
            close(p->fd);
        answer_release(p);
        record_reset(p);
    }
    free(s);
}

void cm5_boot_server_attach(cm5_boot_server_t *s, int rank, int fd)
{
    int fl = fcntl(fd, F_GETFL);

    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    s->peer[rank].fd = fd;
}

static int wants_read(const cm5_boot_server_t *s, const boot_peer_t *p)
{
    return p->fd >= 0 && !s->failed && !p->eof && !p->joined && !p->tx;
}

int cm5_boot_server_pollfd(const cm5_boot_server_t *s, int rank, short *events)
{
    const boot_peer_t *p = &s->peer[rank];

    if (p->fd >= 0 && !s->failed && p->tx) {
        *events = POLLOUT;
        return p->fd;
    }
    if (wants_read(s, p)) {
        *events = POLLIN;
        return p->fd;
    }
    return -1;
}

/* A fault: -1, the node's (err says what it did), or -2, the
 * launcher's own (err says what). */
static int fail(cm5_boot_server_t *s, char *err, size_t errlen,
                const char *what, int code)
{
    s->failed = code;
    snprintf(s->why, sizeof(s->why), "%s", what);
    snprintf(err, errlen, "%s", s->why);
    return code;
}

static void put_len(unsigned char **at, cm5_boot_len_t v)
{
    memcpy(*at, &v, sizeof(v));
    *at += sizeof(v);
}

/* Every node joined: queue the answer and start the next round. */
static int complete_round(cm5_boot_server_t *s, char *err, size_t errlen)
{
    size_t size = CM5_BOOT_PREFIX;
    boot_answer_t *a;
    unsigned char *at;

    for (int i = 0; i < s->procs; i++)
        size += CM5_BOOT_PREFIX + s->peer[i].len;
    a = malloc(sizeof(*a) + size);
    if (!a)
        return fail(s, err, errlen, "out of memory in the bootstrap", -2);
    a->len = size;
    a->refs = 0;
    at = a->data;
    put_len(&at, (cm5_boot_len_t)s->procs);
    for (int i = 0; i < s->procs; i++) {
        boot_peer_t *p = &s->peer[i];

        put_len(&at, p->len);
        if (p->len)
            memcpy(at, p->rec, p->len);
        at += p->len;
    }
    for (int i = 0; i < s->procs; i++) {
        boot_peer_t *p = &s->peer[i];

        record_reset(p);
        p->joined = 0;
        if (p->fd >= 0) {
            p->tx = a;
            p->tx_off = 0;
            a->refs++;
        }
    }
    s->joined = 0;
    s->rounds++;
    if (a->refs == 0)
        free(a);
    return 0;
}

/* The length prefix is complete: check it and make room. */
static int record_header(cm5_boot_server_t *s, boot_peer_t *p, char *err,
                         size_t errlen)
{
    memcpy(&p->len, p->hdr, sizeof(p->len));
    if (p->len > CM5_BOOT_MAX_RECORD) {
        char what[96];

        snprintf(what, sizeof(what),
                 "sent a bootstrap message of %lu bytes (limit %u)",
                 (unsigned long)p->len, CM5_BOOT_MAX_RECORD);
        return fail(s, err, errlen, what, -1);
    }
    p->rec = malloc(p->len ? p->len : 1);
    if (!p->rec)
        return fail(s, err, errlen, "out of memory in the bootstrap", -2);
    return 0;
}

/* Read what a node's socket holds (without blocking). */
static int boot_read(cm5_boot_server_t *s, boot_peer_t *p, char *err,
                     size_t errlen)
{
    ssize_t r;

    while (wants_read(s, p)) {
        if (p->hdr_got < sizeof(p->hdr))
            r = read(p->fd, p->hdr + p->hdr_got, sizeof(p->hdr) - p->hdr_got);
        else
            r = read(p->fd, p->rec + p->got, p->len - p->got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (r <= 0) { /* EOF or error: stop listening */
            p->eof = 1;
            record_reset(p);
            return 0;
        }
        if (p->hdr_got < sizeof(p->hdr)) {
            p->hdr_got += (size_t)r;
            if (p->hdr_got == sizeof(p->hdr) &&
                record_header(s, p, err, errlen) < 0)
                return s->failed;
        } else {
            p->got += (size_t)r;
        }
        if (p->hdr_got == sizeof(p->hdr) && p->got == p->len) {
            p->joined = 1;
            if (++s->joined == s->procs && complete_round(s, err, errlen) < 0)
                return s->failed;
        }
    }
    return 0;
}

/* Send as much of the pending answer as the socket takes. */
static void boot_write(boot_peer_t *p)
{
    ssize_t r;

    while (p->tx) {
        r = send(p->fd, p->tx->data + p->tx_off, p->tx->len - p->tx_off,
                 MSG_NOSIGNAL | MSG_DONTWAIT);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (r < 0) { /* the node is gone: drop it */
            answer_release(p);
            p->eof = 1;
            return;
        }
        p->tx_off += (size_t)r;
        if (p->tx_off == p->tx->len)
            answer_release(p);
    }
}

/* A turn on node rank's socket: its answer sent as far as the socket
 * takes it (or dropped: gone), then what it wrote read. */
static int boot_turn(cm5_boot_server_t *s, int rank, int gone, char *err,
                     size_t errlen)
{
    boot_peer_t *p = &s->peer[rank];

    if (s->failed) {
        snprintf(err, errlen, "%s", s->why);
        return s->failed;
    }
    if (p->fd < 0)
        return 0;
    if (gone)
        answer_release(p); /* nobody left to read it */
    else if (p->tx)
        boot_write(p);
    return boot_read(s, p, err, errlen);
}

int cm5_boot_server_serve(cm5_boot_server_t *s, int rank, char *err,
                          size_t errlen)
{
    return boot_turn(s, rank, 0, err, errlen);
}

int cm5_boot_server_gone(cm5_boot_server_t *s, int rank, char *err,
                         size_t errlen)
{
    return boot_turn(s, rank, 1, err, errlen);
}

int cm5_boot_server_active(const cm5_boot_server_t *s)
{
    if (s->joined > 0)
        return 1;
    for (int i = 0; i < s->procs; i++)
        if (s->peer[i].hdr_got > 0)
            return 1;
    return 0;
}

int cm5_boot_server_joined(const cm5_boot_server_t *s, int rank)
{
    return s->peer[rank].joined;
}

unsigned long cm5_boot_server_rounds(const cm5_boot_server_t *s)
{
    return s->rounds;
}

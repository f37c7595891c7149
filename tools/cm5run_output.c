/*
 * Forwarding the nodes' output: each node's stdout and stderr, line by
 * line (a line is never split between nodes), with --label's prefixes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm5run.h"

static char stage[2 * LINE_BUF]; /* output being assembled */
static size_t stage_len;
static int stage_fd = -1;
static int out_broken[3]; /* our stdout/stderr went away */

/* ------------------------------------------------------------------ */
/* Output forwarding                                                   */
/* ------------------------------------------------------------------ */

static void write_all(int fd, const char *p, size_t n)
{
    struct pollfd pf = {.fd = fd, .events = POLLOUT};
    ssize_t r;

    while (n > 0 && !out_broken[fd]) {
        r = write(fd, p, n);
        if (r >= 0) {
            p += r;
            n -= (size_t)r;
        } else if (errno == EAGAIN) {
            poll(&pf, 1, -1);
        } else if (errno != EINTR) {
            out_broken[fd] = 1; /* e.g. EPIPE: drop the output */
        }
    }
}

static void stage_flush(void)
{
    if (stage_len > 0)
        write_all(stage_fd, stage, stage_len);
    stage_len = 0;
}

static void stage_put(int fd, const char *p, size_t n)
{
    if (fd != stage_fd || stage_len + n > sizeof(stage))
        stage_flush();
    stage_fd = fd;
    memcpy(stage + stage_len, p, n);
    stage_len += n;
}

/* Forward one line or piece of a line. */
static void emit(const struct job *j, int rank, struct stream *s, const char *p,
                 size_t n)
{
    char pre[16];
    int len;

    if (j->o->label && s->at_bol) {
        if (j->o->host_argv && rank == j->o->nodes)
            len = snprintf(pre, sizeof(pre), "[host] ");
        else
            len = snprintf(pre, sizeof(pre), "[%d] ", rank);
        stage_put(s->out_fd, pre, (size_t)len);
    }
    stage_put(s->out_fd, p, n);
    s->at_bol = p[n - 1] == '\n';
}

/* Forward the complete lines held in s (everything if eof). */
static void stream_emit(const struct job *j, int rank, struct stream *s,
                        int eof)
{
    char *p = s->buf, *end = s->buf + s->len, *nl;
    size_t n;

    while (p < end) {
        nl = memchr(p, '\n', (size_t)(end - p));
        if (nl)
            n = (size_t)(nl - p) + 1;
        else if (eof || (p == s->buf && s->len == LINE_BUF))
            n = (size_t)(end - p);
        else
            break;
        emit(j, rank, s, p, n);
        p += n;
    }
    if (eof && j->o->label && !s->at_bol)
        emit(j, rank, s, "\n", 1);
    stage_flush();
    s->len = (size_t)(end - p);
    memmove(s->buf, p, s->len);
}

void cr_stream_close(const struct job *j, int rank, struct stream *s)
{
    if (s->buf)
        stream_emit(j, rank, s, 1);
    cr_close_fd(&s->fd);
    free(s->buf);
    s->buf = NULL;
    s->len = 0;
}

/* Read once from a node's pipe.  Returns 1 if data was forwarded. */
int cr_stream_read(const struct job *j, int rank, struct stream *s)
{
    ssize_t r;

    if (s->fd < 0)
        return 0;
    if (!s->buf && !(s->buf = malloc(LINE_BUF))) {
        cr_msg("out of memory; dropping output of %s", cr_who(j, rank));
        cr_close_fd(&s->fd);
        return 0;
    }
    do
        r = read(s->fd, s->buf + s->len, LINE_BUF - s->len);
    while (r < 0 && errno == EINTR);
    if (r > 0) {
        s->len += (size_t)r;
        stream_emit(j, rank, s, 0);
        return 1;
    }
    if (r < 0 && errno == EAGAIN)
        return 0;
    cr_stream_close(j, rank, s); /* EOF or error */
    return 0;
}

/* A node exited: forward what it wrote before it went. */
void cr_drain_output(const struct job *j, struct node *nd)
{
    int k, i;

    for (k = 0; k < 2; k++)
        for (i = 0; i < DRAIN_READS; i++)
            if (!cr_stream_read(j, nd->rank, &nd->out[k]))
                break;
}

int cr_open_streams(const struct job *j)
{
    int i, n = 0;

    for (i = 0; i < j->launched; i++)
        n += (j->nodes[i].out[0].fd >= 0) + (j->nodes[i].out[1].fd >= 0);
    return n;
}

/*
 * libFuzzer target: what the library reads from cm5run (am/boot/
 * boot_local.c): the environment it is started with, and the answers to
 * its allgather rounds on the bootstrap socket.
 *
 * Mode 0: the input's bytes are cm5run's answer to one allgather round
 * of a job of 1 to 8 nodes with records of 0 to 63 bytes; the answer is
 * accepted exactly when it is well formed (an independent parser says
 * so) and then the records land in order.  Mode 1: the input sets
 * CM5_RANK, CM5_SIZE, CM5_HOST, CM5_JOB_KEY, CM5_DOORBELL_FD and
 * CM5_BOOT_FD (a socket of ours, or a string of the input); an accepted
 * environment describes a job this node is part of.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot/boot.h"

void cm5i_log(int level, const char *subsys, const char *fmt, ...)
{
    char line[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    (void)level, (void)subsys;
}

/* Is data a complete answer for size nodes of len bytes each? */
static int well_formed(const uint8_t *d, size_t n, uint32_t size, size_t len,
                       uint8_t *all)
{
    uint32_t v;

    if (n < 4)
        return 0;
    memcpy(&v, d, 4);
    if (v != size)
        return 0;
    d += 4, n -= 4;
    for (uint32_t k = 0; k < size; k++) {
        if (n < 4)
            return 0;
        memcpy(&v, d, 4);
        if (v != len || n - 4 < len)
            return 0;
        memcpy(all + k * len, d + 4, len);
        d += 4 + len, n -= 4 + len;
    }
    return 1;
}

static void fuzz_allgather(const uint8_t *d, size_t n)
{
    uint8_t mine[64] = {0}, all[8 * 64], want[8 * 64];
    cm5i_boot_t b = {.doorbell_fd = -1, .method = "cm5run"};
    int sv[2], ok;
    size_t len;
    cm5_status_t st;

    if (n < 2 || n > 16384)
        return;
    b.size = 1 + d[0] % 8;
    b.rank = d[0] / 8 % b.size;
    len = d[1] % 64;
    d += 2, n -= 2;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        abort();
    /* cm5run's answer, then cm5run closes its end. */
    if (write(sv[1], d, n) != (ssize_t)n)
        abort();
    shutdown(sv[1], SHUT_WR);
    b.fd = sv[0];
    memset(all, 0xee, sizeof(all));
    st = cm5i_boot_allgather(&b, mine, len, all);
    ok = well_formed(d, n, (uint32_t)b.size, len, want);
    if ((st == CM5_OK) != ok)
        abort();
    if (ok && memcmp(all, want, (size_t)b.size * len) != 0)
        abort();
    if (all[(size_t)b.size * len] != 0xee && b.size * len < sizeof(all))
        abort(); /* wrote past the records */
    cm5i_boot_fini(&b);
    close(sv[1]);
}

/* The next NUL-terminated string of the input, or NULL. */
static const char *next_str(const uint8_t **d, const uint8_t *end, char *buf,
                            size_t cap)
{
    size_t i = 0;

    if (*d >= end)
        return NULL;
    while (*d < end && **d && i + 1 < cap)
        buf[i++] = (char)*(*d)++;
    buf[i] = 0;
    if (*d < end)
        (*d)++;
    return buf;
}

static void fuzz_env(const uint8_t *d, size_t n)
{
    static const char *const names[] = {"CM5_RANK", "CM5_SIZE", "CM5_HOST",
                                        "CM5_JOB_KEY", "CM5_DOORBELL_FD"};
    const uint8_t *end = d + n;
    char buf[64], fdname[16];
    int sv[2], set = n ? d[0] : 0;
    cm5i_boot_t b;
    cm5_status_t st;

    if (n)
        d++;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        abort();
    for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
        const char *s = next_str(&d, end, buf, sizeof(buf));

        if (s && (set >> i & 1))
            setenv(names[i], s, 1);
        else
            unsetenv(names[i]);
    }
    /* Our socket, or (rarely: the library sets FD_CLOEXEC on it) what the
     * input says, as long as it names no descriptor of ours. */
    snprintf(fdname, sizeof(fdname), "%d", sv[0]);
    if (set & 0x40) {
        const char *s = next_str(&d, end, buf, sizeof(buf));

        setenv("CM5_BOOT_FD", s && atoi(s) > 1024 ? s : "x", 1);
    } else {
        setenv("CM5_BOOT_FD", fdname, 1);
    }
    st = cm5i_boot_init(&b);
    if (st == CM5_OK &&
        (b.size < 1 || b.rank < 0 || b.rank >= b.size || b.fd != sv[0] ||
         (b.host != -1 && b.host != b.size - 1)))
        abort();
    close(sv[0]);
    close(sv[1]);
    if (st == CM5_OK && b.doorbell_fd >= 0)
        b.doorbell_fd = -1; /* not ours to close */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsetenv("PMIX_RANK");
    if (data[0] & 1)
        fuzz_env(data + 1, size - 1);
    else
        fuzz_allgather(data + 1, size - 1);
    return 0;
}

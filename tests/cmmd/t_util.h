/*
 * Helpers shared by the CMMD test programs (tests/cmmd/prog_*.c).
 *
 * A program checks its own results: T_CHECK() reports the first mismatch
 * as "FAIL prog[node]: file:line: message" on stderr and ends the node at
 * once with status 1 (_exit: the exit-time synchronization of the other
 * nodes must not wait for it), so cm5run stops the job.  Expected values
 * are computed locally from deterministic inputs (t_hash).
 *
 * Node 0 writes the job key to $CM5TEST_KEYFILE when that is set, so the
 * test script can check that no /dev/shm/cm5-KEY* file is left behind.
 */
#ifndef T_UTIL_H
#define T_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cm/cmmd.h>

#define T_MIB (1 << 20)

static int t_self, t_nodes;
static const char *t_prog = "cmmdtest";

static inline void t_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));

static inline void t_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "FAIL %s[%d]: %s:%d: %s\n", t_prog, t_self, file, line,
            msg);
    fflush(stderr);
    _exit(1);
}

#define T_CHECK(cond, ...)                                                     \
    do {                                                                       \
        if (!(cond))                                                           \
            t_fail(__FILE__, __LINE__, __VA_ARGS__);                           \
    } while (0)

/* The two ints must be equal; what names the value. */
#define T_EQ(got, want, what)                                                  \
    do {                                                                       \
        long long g_ = (long long)(got), w_ = (long long)(want);               \
        if (g_ != w_)                                                          \
            t_fail(__FILE__, __LINE__, "%s is %lld, expected %lld", what, g_,  \
                   w_);                                                        \
    } while (0)

static inline double t_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline void t_sleep(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};

    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Spin on the CPU (no calls into the library) for s seconds. */
static inline void t_compute(double s)
{
    static volatile unsigned sink;
    double t0 = t_now();

    while (t_now() - t0 < s)
        for (unsigned i = 0; i < 1000; i++)
            sink += i * i;
}

/* Serve the network (CMMD_poll) until cond holds; fail after secs. */
#define T_POLL_UNTIL(cond, secs, ...)                                          \
    do {                                                                       \
        double t0_ = t_now();                                                  \
        while (!(cond)) {                                                      \
            if (t_now() - t0_ > (secs))                                        \
                t_fail(__FILE__, __LINE__, __VA_ARGS__);                       \
            CMMD_poll();                                                       \
        }                                                                      \
    } while (0)

static inline uint32_t t_hash(uint32_t a, uint32_t b)
{
    uint32_t x = a * 0x9e3779b1u ^ (b + 0x7f4a7c15u) * 0x85ebca6bu;

    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 12;
    x *= 0x297a2d39u;
    x ^= x >> 15;
    return x;
}

static inline uint64_t t_hash64(uint32_t a, uint32_t b)
{
    return (uint64_t)t_hash(a, b) << 32 | t_hash(b + 1, a ^ 0x5555u);
}

/* Byte i of the test pattern named seed. */
static inline unsigned char t_byte(uint32_t seed, size_t i)
{
    return (unsigned char)(t_hash(seed, (uint32_t)(i >> 2)) >> (8 * (i & 3)));
}

static inline void t_fill(void *buf, size_t len, uint32_t seed)
{
    unsigned char *p = buf;

    for (size_t i = 0; i < len; i++)
        p[i] = t_byte(seed, i);
}

/* Index of the first byte of buf that is not pattern seed, or -1. */
static inline long t_diff(const void *buf, size_t len, uint32_t seed)
{
    const unsigned char *p = buf;

    for (size_t i = 0; i < len; i++)
        if (p[i] != t_byte(seed, i))
            return (long)i;
    return -1;
}

#define T_PATTERN(buf, len, seed, ...)                                         \
    do {                                                                       \
        long d_ = t_diff(buf, len, seed);                                      \
        if (d_ >= 0) {                                                         \
            char w_[512];                                                      \
            snprintf(w_, sizeof(w_), __VA_ARGS__);                             \
            t_fail(__FILE__, __LINE__,                                         \
                   "%s: byte %ld of %zu is 0x%02x, expected 0x%02x", w_, d_,   \
                   (size_t)(len), ((const unsigned char *)(buf))[d_],          \
                   t_byte(seed, (size_t)d_));                                  \
        }                                                                      \
    } while (0)

static inline void *t_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);

    T_CHECK(p, "out of memory for %zu bytes", n);
    return p;
}

static inline void t_init(const char *prog)
{
    const char *keyfile = getenv("CM5TEST_KEYFILE");
    const char *key = getenv("CM5_JOB_KEY");

    t_prog = prog;
    t_self = CMMD_self_address();
    t_nodes = CMMD_partition_size();
    if (t_self == 0 && keyfile && *keyfile && key) {
        FILE *f = fopen(keyfile, "w");

        if (f) {
            fprintf(f, "%s\n", key);
            fclose(f);
        }
    }
}

/* Every node that gets here says so; the script counts the lines. */
static inline void t_done(void)
{
    printf("%s: node %d of %d ok\n", t_prog, t_self, t_nodes);
    fflush(stdout);
}

#endif

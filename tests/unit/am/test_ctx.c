/*
 * Start-up and shut-down of a node (am/am_ctx.c) leave nothing behind: a
 * start that fails part-way undoes what it did, and cm5_finalize tears
 * down everything the start set up (file descriptors, the doorbell
 * mapping, /dev/shm files).
 *
 * The test plays cm5run: a bootstrap socket, a doorbell segment and the
 * CM5_* variables of a node, with the framing of am/boot/boot_proto.h.
 * Criterion runs every test in a process of its own.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cm5/cm5.h>

#include "boot/boot_env.h"
#include "boot/boot_proto.h"

TestSuite(ctx, .timeout = 60);

#define DOORBELL_NAME "cm5test-doorbell"

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;

    cr_assert_not_null(d);
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory's own */
}

/* Lines of /proc/self/maps that name what. */
static int count_maps(const char *what)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;

    cr_assert_not_null(f);
    while (fgets(line, sizeof(line), f))
        n += strstr(line, what) != NULL;
    fclose(f);
    return n;
}

/* Files in /dev/shm that belong to the job with this key. */
static int shm_files(const char *key)
{
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    char prefix[64];
    int n = 0;

    snprintf(prefix, sizeof(prefix), "cm5-%s-", key);
    if (!d)
        return 0;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static void set_int(const char *name, long v)
{
    char buf[32];

    snprintf(buf, sizeof(buf), "%ld", v);
    setenv(name, buf, 1);
}

/* Make this process node 0 of a job of size nodes, as cm5run would;
 * returns cm5run's end of the bootstrap socket. */
static int fake_node(int size, const char *key)
{
    int sv[2], bell;

    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    bell = memfd_create(DOORBELL_NAME, MFD_CLOEXEC);
    cr_assert_geq(bell, 0);
    cr_assert_eq(ftruncate(bell, (off_t)CM5_DOORBELL_SIZE(size)), 0);
    set_int(CM5_ENV_BOOT_FD, sv[1]);
    set_int(CM5_ENV_DOORBELL_FD, bell);
    set_int(CM5_ENV_RANK, 0);
    set_int(CM5_ENV_SIZE, size);
    setenv(CM5_ENV_JOB_KEY, key, 1);
    setenv("FI_TCP_IFACE", "lo", 1);
    return sv[0];
}

static void write_all(int fd, const void *buf, size_t len)
{
    cr_assert_eq(write(fd, buf, len), (ssize_t)len);
}

static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;

    while (len > 0) {
        ssize_t n = read(fd, p, len);

        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Start node 0 of 2 (with the liveness check: a second fabric) and make
 * the address exchange fail, as cm5run would answer with a different
 * number of records: everything opened before it must be closed. */
static void start_fails(const char *provider, const char *key)
{
    cm5_boot_len_t wrong = 3;
    int fd = fake_node(2, key);

    setenv(CM5_ENV_PEER_TIMEOUT, "1", 1);
    write_all(fd, &wrong, sizeof(wrong)); /* read after the node writes */
    cr_assert_eq(cm5_init(provider), CM5_ERR_BOOT);
    close(fd);
    cr_expect_eq(shm_files(key), 0, "%s: /dev/shm files of the job left",
                 provider);
}

/* Criterion runs tests in parallel: each has keys of its own. */
static void failed_start_leaves_nothing(const char *provider, const char *key1,
                                        const char *key2)
{
    int fds, maps;

    start_fails(provider, key1); /* libfabric loads providers once */
    fds = count_fds();
    maps = count_maps(DOORBELL_NAME);
    for (int i = 0; i < 3; i++)
        start_fails(provider, key2);
    cr_expect_eq(count_fds(), fds,
                 "%s: %d file descriptors before 3 failed starts, %d after",
                 provider, fds, count_fds());
    cr_expect_eq(count_maps(DOORBELL_NAME), maps, "doorbell left mapped");
}

Test(ctx, failed_start_leaves_nothing_tcp)
{
    failed_start_leaves_nothing("tcp", "00000000c0ffee01", "00000000c0ffee02");
}

Test(ctx, failed_start_leaves_nothing_shm)
{
    failed_start_leaves_nothing("shm", "00000000c0ffee04", "00000000c0ffee05");
}

/* cm5run's side of the bootstrap for a 1-node job: every round, send the
 * node's record back to it. */
static void *serve_boot(void *arg)
{
    int fd = *(int *)arg;
    cm5_boot_len_t len, one = 1;

    while (read_all(fd, &len, sizeof(len)) == 0) {
        char *rec = malloc(len);

        if (!rec || read_all(fd, rec, len) != 0)
            break;
        write_all(fd, &one, sizeof(one));
        write_all(fd, &len, sizeof(len));
        write_all(fd, rec, len);
        free(rec);
    }
    return NULL;
}

Test(ctx, finalize_tears_down_everything)
{
    const char *key = "00000000c0ffee03";
    int fds = count_fds(), fd, one = 1, buf[70];
    cm5_msg_h rx[70], tx;
    pthread_t t;

    fd = fake_node(1, key);
    cr_assert_eq(pthread_create(&t, NULL, serve_boot, &fd), 0);
    cr_assert_eq(cm5_init("shm"), CM5_OK);
    cr_assert_str_eq(cm5_bootstrap(), "cm5run");
    /* shm has no wait object: the node sleeps on the doorbell. */
    cr_expect_eq(count_maps(DOORBELL_NAME), 1, "doorbell not mapped");
    cr_expect_gt(shm_files(key), 0, "no /dev/shm file for the job");
    cr_expect_eq(cm5_barrier(), CM5_OK);
    /* 70 receives outgrow the first message table (64): one completes,
     * 69 are still posted when the node shuts down. */
    for (int i = 0; i < 70; i++)
        cr_assert_eq(
            cm5_msg_recv(0, i, &buf[i], sizeof(*buf), NULL, NULL, &rx[i]),
            CM5_OK);
    cr_assert_eq(cm5_msg_send(0, 0, &one, sizeof(one), 0, NULL, NULL, &tx),
                 CM5_OK);
    cr_expect_eq(cm5_msg_wait(rx[0]), CM5_OK);
    cr_expect_eq(cm5_msg_wait(tx), CM5_OK);
    cr_expect_eq(buf[0], 1);
    cm5_msg_free(rx[0]);
    cm5_msg_free(tx);
    cm5_finalize();
    pthread_join(t, NULL); /* the node closed its end */
    close(fd);
    cr_expect_eq(count_maps(DOORBELL_NAME), 0,
                 "doorbell still mapped after cm5_finalize");
    cr_expect_eq(shm_files(key), 0, "/dev/shm files left");
    /* The log keeps a duplicate of stderr (cm5i_log_fd). */
    cr_expect_leq(count_fds(), fds + 1,
                  "%d file descriptors before start, %d after finalize", fds,
                  count_fds());
}

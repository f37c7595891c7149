/*
 * The historical CMMD/CMAML calls on a 1-node partition: partition, active
 * messages with 0 to 4 words, polling, node timers, errors and I/O modes.
 *
 * A historical call that returns nothing reports a fault and stops the
 * job: "cm5[<node>:<pid>] error <call>: <message>", exit status 1.  Each
 * such case is tested twice: directly, with Criterion's .exit_code, and in
 * a child process whose stderr is read and checked (exactly one line, with
 * the call's name and the fault).
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cm/cmmd.h>

TestSuite(cmmd, .timeout = 30);

/* ---- helpers ---------------------------------------------------------- */

static volatile int calls;
static int words[4];
static int nwords;

static void h0(void)
{
    nwords = 0;
    calls++;
}

static void h1(int a)
{
    words[0] = a;
    nwords = 1;
    calls++;
}

static void h2(int a, int b)
{
    words[0] = a, words[1] = b;
    nwords = 2;
    calls++;
}

static void h3(int a, int b, int c)
{
    words[0] = a, words[1] = b, words[2] = c;
    nwords = 3;
    calls++;
}

static void h4(int a, int b, int c, int d)
{
    words[0] = a, words[1] = b, words[2] = c, words[3] = d;
    nwords = 4;
    calls++;
}

static void count(int a, int b, int c, int d)
{
    (void)a, (void)b, (void)c, (void)d;
    calls++;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void burn_cpu(double seconds)
{
    struct timespec a, b;
    volatile unsigned x = 1;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    do {
        for (int i = 0; i < 100000; i++)
            x = x * 1103515245u + 12345u;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    } while ((double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9 <
             seconds);
}

/* Run fn(arg) in a child with stderr on a pipe; returns the child's wait
 * status and fills text with what it wrote to stderr. */
static int run_child(void (*fn)(int), int arg, char *text, size_t size)
{
    int fds[2], status;
    size_t used = 0;
    ssize_t n;
    pid_t pid;

    cr_assert_eq(pipe(fds), 0);
    fflush(NULL);
    pid = fork();
    cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        fn(arg);
        _exit(77); /* fn returned */
    }
    close(fds[1]);
    while (used + 1 < size &&
           (n = read(fds[0], text + used, size - 1 - used)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        cr_assert_gt(n, 0, "read: %s", strerror(errno));
        used += (size_t)n;
    }
    text[used] = '\0';
    close(fds[0]);
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return status;
}

/* fn(arg) must exit with status 1 after printing exactly one line that
 * matches the extended regular expression re. */
static void expect_fatal(void (*fn)(int), int arg, const char *re)
{
    char text[4096], pat[512];
    int status = run_child(fn, arg, text, sizeof(text));
    regex_t rx;
    int lines = 0;

    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 1,
              "wait status 0x%x (exit %d), expected exit status 1; "
              "stderr: %s",
              status, WIFEXITED(status) ? WEXITSTATUS(status) : -1, text);
    cr_expect_eq(lines, 1, "%d lines on stderr: %s", lines, text);
    /* The node: 0, or ? when the fault comes before the runtime started
     * (a 1-node program that has not communicated yet). */
    snprintf(pat, sizeof(pat), "^cm5\\[(0|\\?):[0-9]+\\] error %s\n$", re);
    cr_assert_eq(regcomp(&rx, pat, REG_EXTENDED | REG_NEWLINE), 0, "%s", pat);
    cr_expect_eq(regexec(&rx, text, 0, NULL, 0), 0,
                 "stderr does not match /%s/: %s", pat, text);
    regfree(&rx);
}

/* ---- partition -------------------------------------------------------- */

Test(cmmd, partition)
{
    cr_expect_eq(CMMD_self_address(), 0);
    cr_expect_eq(CMMD_partition_size(), 1);
    CMMD_sync_with_nodes(); /* returns on 1 node */
    CMMD_sync_with_nodes();
}

/* ---- active messages -------------------------------------------------- */

Test(cmmd, request_with_0_to_4_words)
{
    CMAML_request(0, (CMAML_handler_t)h0);
    CMAML_poll_while_lt(&calls, 1);
    cr_expect_eq(nwords, 0);

    CMAML_request(0, (CMAML_handler_t)h1, -7);
    CMAML_poll_while_lt(&calls, 2);
    cr_expect_eq(nwords, 1);
    cr_expect_eq(words[0], -7);

    CMAML_request(0, (CMAML_handler_t)h2, 0x7fffffff, -1);
    CMAML_poll_while_lt(&calls, 3);
    cr_expect_eq(nwords, 2);
    cr_expect(words[0] == 0x7fffffff && words[1] == -1, "%d %d", words[0],
              words[1]);

    CMAML_request(0, (CMAML_handler_t)h3, 1, 2, 3);
    CMAML_poll_while_lt(&calls, 4);
    cr_expect_eq(nwords, 3);
    cr_expect(words[0] == 1 && words[1] == 2 && words[2] == 3);

    CMAML_request(0, (CMAML_handler_t)h4, (int)0xdeadbeef, -2147483647 - 1, 0,
                  42);
    CMAML_poll_while_lt(&calls, 5);
    cr_expect_eq(nwords, 4);
    cr_expect(words[0] == (int)0xdeadbeef && words[1] == -2147483647 - 1 &&
                  words[2] == 0 && words[3] == 42,
              "%x %x %x %x", words[0], words[1], words[2], words[3]);
    cr_expect_eq(calls, 5);
}

static volatile int replies;

static void pong(int a, int b)
{
    words[0] = a, words[1] = b;
    replies++;
}

static void ping(int from, int x)
{
    calls++;
    CMAML_reply(from, (CMAML_handler_t)pong, x + 1, x + 2);
}

Test(cmmd, request_and_reply)
{
    CMAML_request(0, (CMAML_handler_t)ping, CMMD_self_address(), 40);
    CMAML_poll_while_lt(&replies, 1);
    cr_expect_eq(calls, 1);
    cr_expect(words[0] == 41 && words[1] == 42);
}

static void rpc_fn(int x)
{
    /* runs outside handlers: it may send a request */
    CMAML_request(0, (CMAML_handler_t)h1, x * 2);
}

Test(cmmd, rpc_sends_a_request)
{
    CMAML_rpc(0, (CMAML_handler_t)rpc_fn, 21);
    CMAML_poll_while_lt(&calls, 1);
    cr_expect_eq(words[0], 42);
}

Test(cmmd, poll_while_lt)
{
    for (int i = 0; i < 5; i++)
        CMAML_request(0, (CMAML_handler_t)count, i);
    CMAML_poll_while_lt(&calls, 5);
    cr_expect_eq(calls, 5);
    CMAML_poll_while_lt(&calls, 5); /* already there: returns at once */
    CMAML_poll_while_lt(&calls, -3);
    cr_expect_eq(calls, 5);
}

Test(cmmd, poll_runs_handlers)
{
    double t0 = now();

    CMAML_request(0, (CMAML_handler_t)count, 1);
    cr_expect_eq(calls, 0, "the handler ran before any poll");
    while (calls == 0 && now() - t0 < 5)
        CMAML_poll();
    cr_expect_eq(calls, 1);
}

/* ---- timers ----------------------------------------------------------- */

Test(cmmd, timer_sleeping_is_not_busy)
{
    double e, b;

    CMMD_node_timer_clear(3);
    CMMD_node_timer_start(3);
    usleep(50000);
    CMMD_node_timer_stop(3);
    e = CMMD_node_timer_elapsed(3);
    b = CMMD_node_timer_busy(3);
    cr_expect(e >= 0.045 && e <= 5, "elapsed %.6f s after a 50 ms sleep", e);
    cr_expect(b >= 0 && b < e / 2, "busy %.6f s of %.6f s sleeping", b, e);
}

Test(cmmd, timer_busy_grows_with_cpu)
{
    double e, b;

    CMMD_node_timer_clear(0);
    CMMD_node_timer_start(0);
    burn_cpu(0.1);
    CMMD_node_timer_stop(0);
    e = CMMD_node_timer_elapsed(0);
    b = CMMD_node_timer_busy(0);
    cr_expect_geq(b, 0.095, "busy %.6f s after burning 0.1 s of CPU", b);
    cr_expect_geq(e, b * 0.99, "elapsed %.6f s < busy %.6f s", e, b);
}

Test(cmmd, timer_clear_resets)
{
    CMMD_node_timer_start(63);
    burn_cpu(0.01);
    CMMD_node_timer_stop(63);
    cr_assert_gt(CMMD_node_timer_elapsed(63), 0);
    CMMD_node_timer_clear(63);
    cr_expect_eq(CMMD_node_timer_elapsed(63), 0.0);
    cr_expect_eq(CMMD_node_timer_busy(63), 0.0);
    /* clearing a running timer stops it too */
    CMMD_node_timer_start(63);
    CMMD_node_timer_clear(63);
    usleep(10000);
    cr_expect_eq(CMMD_node_timer_elapsed(63), 0.0);
}

Test(cmmd, timer_running_grows)
{
    double e1, e2;

    CMMD_node_timer_clear(5);
    CMMD_node_timer_start(5);
    e1 = CMMD_node_timer_elapsed(5);
    usleep(20000);
    e2 = CMMD_node_timer_elapsed(5);
    cr_expect_geq(e2 - e1, 0.018, "a running timer went %.6f -> %.6f", e1, e2);
    CMMD_node_timer_stop(5);
    e1 = CMMD_node_timer_elapsed(5);
    usleep(20000);
    cr_expect_eq(CMMD_node_timer_elapsed(5), e1, "a stopped timer moved");
}

Test(cmmd, timer_accumulates)
{
    double e;

    CMMD_node_timer_clear(7);
    for (int i = 0; i < 2; i++) {
        CMMD_node_timer_start(7);
        usleep(30000);
        CMMD_node_timer_stop(7);
        usleep(30000); /* not counted */
    }
    CMMD_node_timer_stop(7); /* stopping a stopped timer changes nothing */
    e = CMMD_node_timer_elapsed(7);
    cr_expect(e >= 0.058 && e < 0.118 + 5, "two 30 ms intervals: %.6f s", e);
    cr_expect_eq(CMMD_node_timer_elapsed(8), 0.0, "timer 8 was never used");
}

static void timer_start(int t) { CMMD_node_timer_start(t); }
static void timer_stop(int t) { CMMD_node_timer_stop(t); }
static void timer_clear(int t) { CMMD_node_timer_clear(t); }
static void timer_elapsed(int t) { (void)CMMD_node_timer_elapsed(t); }
static void timer_busy(int t) { (void)CMMD_node_timer_busy(t); }

Test(cmmd, timer_64_exits, .exit_code = 1, .init = cr_redirect_stderr)
{
    CMMD_node_timer_start(64);
    cr_assert_fail("CMMD_node_timer_start(64) returned");
}

Test(cmmd, timer_minus_1_exits, .exit_code = 1, .init = cr_redirect_stderr)
{
    CMMD_node_timer_start(-1);
    cr_assert_fail("CMMD_node_timer_start(-1) returned");
}

Test(cmmd, bad_timer_message)
{
    expect_fatal(timer_start, 64,
                 "CMMD_node_timer_start: timer 64 does not exist.*");
    expect_fatal(timer_start, -1,
                 "CMMD_node_timer_start: timer -1 does not exist.*");
    expect_fatal(timer_stop, 64, "CMMD_node_timer_stop: timer 64 .*");
    expect_fatal(timer_clear, 1000, "CMMD_node_timer_clear: timer 1000 .*");
    expect_fatal(timer_elapsed, -5, "CMMD_node_timer_elapsed: timer -5 .*");
    expect_fatal(timer_busy, 64, "CMMD_node_timer_busy: timer 64 .*");
}

/* ---- errors ------------------------------------------------------------ */

static void error_x(int v) { CMMD_error("x %d", v); }

Test(cmmd, error_exits, .exit_code = 1, .init = cr_redirect_stderr)
{
    CMMD_error("x %d", 5);
}

Test(cmmd, error_message) { expect_fatal(error_x, 5, "CMMD_error: x 5"); }

static void request_to(int node)
{
    CMAML_request(node, (CMAML_handler_t)h1, 1);
}

Test(cmmd, request_outside_partition_exits, .exit_code = 1,
     .init = cr_redirect_stderr)
{
    CMAML_request(5, (CMAML_handler_t)h1, 1);
    cr_assert_fail("CMAML_request to node 5 of 1 returned");
}

Test(cmmd, request_outside_partition_message)
{
    expect_fatal(request_to, 5,
                 "CMAML_request: node 5 is outside the partition.*");
    expect_fatal(request_to, -1,
                 "CMAML_request: node -1 is outside the partition.*");
}

int some_global_int;

static void request_data(int node)
{
    CMAML_request(node, (CMAML_handler_t)(void *)&some_global_int, 1);
}

Test(cmmd, data_handler_message)
{
    expect_fatal(request_data, 0,
                 "CMAML_request: handler 0x[0-9a-f]+ is not a function.*");
    cr_expect_eq(some_global_int, 0);
}

static void nested_request(int x)
{
    (void)x;
    CMAML_request(0, (CMAML_handler_t)count, 1);
}

static void request_nested(int x)
{
    CMAML_request(0, (CMAML_handler_t)nested_request, x);
    CMAML_poll_while_lt(&calls, 1);
}

Test(cmmd, request_from_handler_message)
{
    expect_fatal(request_nested, 0, "CMAML_request: not allowed here: .*");
}

static void io_mode(int mode)
{
    CMMD_fset_io_mode(stdout, (CMMD_io_mode_t)mode);
}

Test(cmmd, io_modes)
{
    cr_expect_eq(CMMD_fset_io_mode(stdout, CMMD_independent), 0);
    cr_expect_eq(CMMD_fset_io_mode(stdout, CMMD_sync_seq), 0);
    cr_expect_eq(CMMD_fset_io_mode(stderr, CMMD_sync_bc), 0);
    cr_expect_eq(CMMD_fset_io_mode(stdout, CMMD_local), 0);
}

Test(cmmd, io_mode_invalid_exits, .exit_code = 1, .init = cr_redirect_stderr)
{
    CMMD_fset_io_mode(stdout, (CMMD_io_mode_t)5);
    cr_assert_fail("an invalid I/O mode returned");
}

Test(cmmd, io_mode_invalid_message)
{
    expect_fatal(io_mode, 5, "CMMD_fset_io_mode: unknown I/O mode 5");
    expect_fatal(io_mode, 4,
                 "CMMD_fset_io_mode: CMMD_system is the I/O "
                 "system's own mode; a program cannot set it");
    expect_fatal(io_mode, -1, "CMMD_fset_io_mode: unknown I/O mode -1");
}

/* ---- the real header's MCBs and return values (1 node) -------------- */

Test(cmmd, mcbs_are_distinct_positive_ints)
{
    int buf[4] = {1, 2, 3, 4}, in[4] = {0};
    CMMD_mcb r = CMMD_receive_async(0, 77, in, sizeof(in), NULL, NULL);
    CMMD_mcb s = CMMD_send_async(0, 77, buf, sizeof(buf), NULL, NULL);

    cr_assert(r > 0 && s > 0 && r != s, "MCBs %d and %d", r, s);
    CMMD_msg_wait(s);
    CMMD_msg_wait(r);
    cr_expect_eq(CMMD_mcb_len(r), (int)sizeof(in));
    cr_expect_eq(CMMD_mcb_bytes(r), (int)sizeof(buf));
    cr_expect_eq(CMMD_mcb_source(r), 0);
    cr_expect_eq(CMMD_mcb_dest(s), 0);
    cr_expect_eq(memcmp(in, buf, sizeof(buf)), 0);
    CMMD_free_mcb(r);
    CMMD_free_mcb(s);
}

Test(cmmd, mcb_exhaustion_is_errval)
{
    static int in[130];
    CMMD_mcb m[129];
    int n = 0;

    while (n < 129 && (m[n] = CMMD_receive_async(0, 78, &in[n], sizeof(int),
                                                 NULL, NULL)) != CMMD_ERRVAL)
        n++;
    cr_expect_eq(n, 128, "asynchronous receives started: %d", n);
    cr_expect_eq(CMMD_get_errno(), CMMD_ERR_NO_RPORTS);
    for (int i = 0; i < n; i++)
        CMMD_send_noblock(0, 78, &i, sizeof(int));
    for (int i = 0; i < n; i++) {
        CMMD_msg_wait(m[i]);
        cr_expect_eq(in[i], i, "receive %d", i);
        CMMD_free_mcb(m[i]);
    }
}

Test(cmmd, mcb_pending_by_node_and_tag)
{
    int v = 42, got = 0;
    CMMD_mcb p;

    cr_expect_eq(CMMD_mcb_pending(CMMD_ANY_NODE, 79), 0);
    CMMD_send_noblock(0, 79, &v, sizeof(v));
    while (!(p = CMMD_mcb_pending(0, 79)))
        CMMD_poll();
    cr_expect(p > 0);
    cr_expect_eq(CMMD_mcb_bytes(p), (int)sizeof(v));
    cr_expect_eq(CMMD_mcb_tag(p), 79);
    cr_expect_eq(CMMD_msg_done(p), 0);
    CMMD_free_mcb(p);
    CMMD_receive_block(0, 79, &got, sizeof(got));
    cr_expect_eq(got, 42);
}

static void mcb_freed(int unused)
{
    int v = 1;
    CMMD_mcb m = CMMD_send_async(0, 80, &v, sizeof(v), NULL, NULL);

    (void)unused;
    CMMD_receive_block(0, 80, &v, sizeof(v));
    CMMD_msg_wait(m);
    CMMD_free_mcb(m);
    CMMD_free_mcb(m);
}

Test(cmmd, mcb_freed_twice_message)
{
    expect_fatal(mcb_freed, 0,
                 "CMMD_free_mcb: MCB [0-9]+ is not a live "
                 "message control block \\(freed with "
                 "CMMD_free_mcb\\)");
}

Test(cmmd, real_return_values)
{
    char *v = CMMD_version(), *e = CMMD_error_string(CMMD_ERR_NO_RPORTS);
    double f = CMMD_reduce_float(1.25, CMMD_combiner_fadd);
    LONGLONG_INT l = CMMD_reduce_lint(-5, CMMD_combiner_add);

    cr_expect(v && strncmp(v, "CMMD 3.3", 8) == 0, "%s", v);
    cr_expect(e && *e);
    cr_expect_eq(f, 1.25);
    cr_expect_eq(l, -5);
    cr_expect_eq(CMMD_node_timer_clear(2), TRUE);
    cr_expect_eq(CMMD_node_timer_start(2), TRUE);
    cr_expect_eq(CMMD_node_timer_stop(2), TRUE);
    cr_expect_eq(CMMD_set_global_or(1), TRUE);
    cr_expect_eq(CMMD_get_global_or(), 1);
    cr_expect_eq(CMMD_set_global_or(0), TRUE);
    cr_expect_eq(CMMD_reset_partition_size(1), TRUE);
    cr_expect_eq(CMCN_reset_partition_size(1), TRUE);
}

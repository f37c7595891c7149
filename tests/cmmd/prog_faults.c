/*
 * prog_faults: the fault campaign of tests/cmmd/faults.sh, written as
 * legacy code would against <cm/cmmd.h>.
 *
 *   prog_faults flood
 *                every node prints "prog_faults: node R pid P", then
 *                floods every other node with requests (each answered by
 *                a reply) for up to 60 s; after 2000 replies it prints
 *                "prog_faults: node R flooding".  The script kills or
 *                stops a node mid-flood: the job must end before the 60 s.
 *   prog_faults rports
 *                three rounds of "allocate until none is left": exactly
 *                128 rports, then CMAML_allocate_rport() == -1 (and stays
 *                -1 for 1000 more tries), free count 0; then every rport
 *                is freed; after the rounds an rport still receives a
 *                scopy from the left neighbour (the program recovered)
 *   prog_faults mcbs
 *                CMMD_send_async to the right neighbour until CMMD_ERRVAL:
 *                exactly 128, CMMD_get_errno() == CMMD_ERR_NO_RPORTS on
 *                that and 100 more tries; the same for CMMD_receive_async;
 *                everything completes and is freed; then 2000 more
 *                asynchronous sends in the legacy retry loop (on
 *                CMMD_ERRVAL, free the sends that are done and try again)
 *                all arrive in order
 *   prog_faults bigsend
 *                run under `ulimit -v`: node 0 allocates 2/3 of the
 *                address space it has left and CMMD_send_noblock's it to
 *                node 1; the library's copy of the buffer cannot be
 *                allocated: one error line and exit 1
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <cm/cmmd.h>

#include "t_util.h"

#define NRPORTS 128
/* The limit CMMD's asynchronous calls keep: CM5_ASYNC_MAX, which the
 * script also gives as FAULTS_NASYNC (default 128). */
#define NASYNC_MAX 1024
static int NASYNC = 128;
#define FLOOD_SECS 60.0

static volatile int replies;

static long long t_wall_ms(void)
{
    struct timeval tv;

    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void reply_handler(int from, int a, int b, int c)
{
    (void)from, (void)a, (void)b, (void)c;
    replies++;
}

static void request_handler(int from, int a, int b, int c)
{
    CMAML_reply(from, (CMAML_handler_t)reply_handler, a, b, c, 0);
}

static void test_flood(void)
{
    double t0 = t_now();
    int sent = 0, said = 0;

    printf("prog_faults: node %d pid %d\n", t_self, (int)getpid());
    fflush(stdout);
    CMMD_sync_with_nodes();
    while (t_now() - t0 < FLOOD_SECS) {
        int to = (t_self + 1 + sent % (t_nodes - 1)) % t_nodes;

        CMAML_request(to, (CMAML_handler_t)request_handler, t_self, sent, 0, 0);
        sent++;
        CMAML_poll();
        if (!said && replies >= 2000) {
            printf("prog_faults: node %d flooding\n", t_self);
            fflush(stdout);
            said = 1;
        }
    }
    T_CHECK(0, "the flood went on for %.0f s: no fault ended the job",
            FLOOD_SECS);
}

static volatile int landed;

static void rport_handler(int rport, void *arg)
{
    (void)rport, (void)arg;
    landed = 1;
}

static void test_rports(void)
{
    int got[NRPORTS], n, r, left = (t_self + t_nodes - 1) % t_nodes;
    static int words[4];
    int mine[4] = {t_self, 11, 22, 33};

    for (int round = 0; round < 3; round++) {
        for (n = 0; (r = CMAML_allocate_rport()) != -1; n++) {
            T_CHECK(n < NRPORTS && r >= 0 && r < NRPORTS,
                    "allocation %d returned rport %d", n, r);
            got[n] = r;
        }
        T_EQ(n, NRPORTS, "rports allocated before the first -1");
        T_EQ(CMAML_number_of_free_rports(), 0, "free rports when none is");
        for (int i = 0; i < 1000; i++)
            T_EQ(CMAML_allocate_rport(), -1,
                 "CMAML_allocate_rport() when "
                 "none is free");
        for (int i = 0; i < n; i++)
            CMAML_free_rport(got[i]);
        T_EQ(CMAML_number_of_free_rports(), NRPORTS,
             "free rports after "
             "freeing them all");
    }
    /* Every node allocates the same rport number (same history). */
    r = CMAML_allocate_rport();
    T_CHECK(r >= 0, "no rport after the rounds");
    CMAML_set_rport_addr(r, words);
    CMAML_set_rport_byte_counter(r, (int)sizeof(words));
    CMAML_set_rport_handler(r, rport_handler);
    CMMD_sync_with_nodes();
    CMAML_scopy((t_self + 1) % t_nodes, r, 0, 0, mine, (int)sizeof(mine), NULL,
                NULL);
    T_POLL_UNTIL(landed, 30.0, "the scopy into rport %d did not land", r);
    T_EQ(words[0], left, "first word scopied by the left neighbour");
    T_EQ(words[3], 33, "last word scopied");
    CMMD_sync_with_nodes();
    CMAML_free_rport(r);
}

/* Free the sends of s[0..n) that are done; returns how many are left,
 * packed at the front. */
static int reap(CMMD_mcb *s, int n)
{
    int k = 0;

    for (int i = 0; i < n; i++) {
        if (CMMD_msg_done(s[i]))
            CMMD_free_mcb(s[i]);
        else
            s[k++] = s[i];
    }
    return k;
}

static void test_mcbs(void)
{
    const char *want = getenv("FAULTS_NASYNC");

    static int sv[NASYNC_MAX], rv[NASYNC_MAX], tmp;
    static CMMD_mcb s[NASYNC_MAX + 1], r[NASYNC_MAX + 1];
    int right = (t_self + 1) % t_nodes, left = (t_self + t_nodes - 1) % t_nodes;
    int n, busy, got, retries = 0;

    if (want)
        NASYNC = atoi(want);
    T_CHECK(NASYNC >= 1 && NASYNC <= NASYNC_MAX, "FAULTS_NASYNC=%s", want);
    T_EQ(CMMD_available_sends(), NASYNC, "CMMD_available_sends() before");
    for (n = 0; n <= NASYNC; n++) {
        int *v = n < NASYNC ? &sv[n] : &tmp; /* the last must fail */

        *v = t_self * 1000 + n;
        s[n] = CMMD_send_async(right, 700, v, (int)sizeof(int), NULL, NULL);
        if (s[n] == CMMD_ERRVAL)
            break;
    }
    T_EQ(n, NASYNC, "asynchronous sends started before CMMD_ERRVAL");
    for (int i = 0; i < 100; i++) {
        T_CHECK(CMMD_send_async(right, 700, &tmp, (int)sizeof(int), NULL,
                                NULL) == CMMD_ERRVAL,
                "send %d beyond the limit did not return CMMD_ERRVAL", i);
        T_EQ(CMMD_get_errno(), CMMD_ERR_NO_RPORTS, "CMMD_get_errno()");
    }
    for (n = 0; n <= NASYNC; n++) {
        r[n] = CMMD_receive_async(left, 701, n < NASYNC ? &rv[n] : &tmp,
                                  (int)sizeof(int), NULL, NULL);
        if (r[n] == CMMD_ERRVAL)
            break;
    }
    T_EQ(n, NASYNC, "asynchronous receives started before CMMD_ERRVAL");
    T_EQ(CMMD_get_errno(), CMMD_ERR_NO_RPORTS, "CMMD_get_errno()");
    CMMD_sync_with_nodes();
    for (int i = 0; i < NASYNC; i++) {
        CMMD_receive_block(left, 700, &tmp, (int)sizeof(int));
        T_EQ(tmp, left * 1000 + i, "asynchronous send received in order");
        tmp = t_self * 1000 + i;
        CMMD_send_block(right, 701, &tmp, (int)sizeof(int));
    }
    CMMD_all_msgs_wait();
    for (int i = 0; i < NASYNC; i++) {
        T_EQ(rv[i], left * 1000 + i, "value in the i-th posted receive");
        CMMD_free_mcb(r[i]);
        CMMD_free_mcb(s[i]);
    }
    T_EQ(CMMD_available_sends(), NASYNC, "CMMD_available_sends() after");
    T_EQ(CMMD_available_receives(), NASYNC, "CMMD_available_receives()");
    CMMD_sync_with_nodes();
    /* The legacy retry loop: 2000 sends through 128 MCBs.  A send that
     * completed but is not freed yet no longer counts against the 128
     * in flight (CMMD_available_sends), so the unfreed ones may number
     * more than 128 here: they get their own array. */
    static CMMD_mcb live[2000];
    busy = 0;
    got = 0;
    for (int i = 0; i < 2000; i++) {
        static int val[2000];
        CMMD_mcb m;

        val[i] = t_self * 100000 + i;
        while ((m = CMMD_send_async(right, 702, &val[i], (int)sizeof(int), NULL,
                                    NULL)) == CMMD_ERRVAL) {
            T_EQ(CMMD_get_errno(), CMMD_ERR_NO_RPORTS,
                 "CMMD_get_errno() "
                 "in the retry loop");
            retries++;
            busy = reap(live, busy);
            /* Ours complete as the right neighbour receives them: take
             * the left neighbour's meanwhile. */
            if (CMMD_msg_pending(left, 702)) {
                CMMD_receive_block(left, 702, &tmp, (int)sizeof(int));
                T_EQ(tmp, left * 100000 + got, "retry-loop message in order");
                got++;
            }
        }
        live[busy++] = m;
    }
    while (got < 2000) {
        CMMD_receive_block(left, 702, &tmp, (int)sizeof(int));
        T_EQ(tmp, left * 100000 + got, "retry-loop message in order");
        got++;
    }
    CMMD_all_msgs_wait();
    busy = reap(live, busy);
    T_EQ(busy, 0, "sends not done after CMMD_all_msgs_wait");
    printf("prog_faults: node %d: 2000 sends through %d MCBs, %d retries\n",
           t_self, NASYNC, retries);
    CMMD_sync_with_nodes();
}

/* Bytes of address space the process maps now (VmSize). */
static size_t vm_size(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t kb = 0;

    T_CHECK(f, "cannot open /proc/self/status");
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "VmSize: %zu kB", &kb) == 1)
            break;
    fclose(f);
    return kb << 10;
}

static void test_bigsend(void)
{
    struct rlimit rl;
    size_t room, len;
    char *buf;

    T_CHECK(getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY,
            "bigsend needs a limit on the address space (ulimit -v)");
    if (t_self == 0) {
        /* The buffer fits in what is left; the library's copy does not. */
        room = rl.rlim_cur - vm_size();
        len = room / 3 * 2;
        buf = t_malloc(len);
        memset(buf, 1, len);
        printf("prog_faults: node 0 sends %zu MiB of the %zu MiB left\n",
               len >> 20, room >> 20);
        printf("fault at %lld\n", t_wall_ms());
        fflush(stdout);
        CMMD_send_noblock(1, 5, buf, (int)len);
        T_CHECK(0, "CMMD_send_noblock of %zu MiB returned", len >> 20);
    }
    CMMD_sync_with_nodes();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    t_init("prog_faults");
    if (strcmp(mode, "flood") == 0)
        test_flood();
    else if (strcmp(mode, "rports") == 0)
        test_rports();
    else if (strcmp(mode, "mcbs") == 0)
        test_mcbs();
    else if (strcmp(mode, "bigsend") == 0)
        test_bigsend();
    else
        T_CHECK(0, "unknown mode %s", mode);
    t_done();
    return 0;
}

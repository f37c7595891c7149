/*
 * errprog: faults for tests/integration/errors.sh and flowcontrol.sh, one
 * per mode.  Nodes that do not fault wait (in a loop of CMAML_poll or in a
 * barrier) until the launcher stops them.  Arguments after the mode's own
 * are ignored: the tests add a marker to find leftover processes.
 *
 *   cm5run -n 4 errprog range NODE     node 2 sends to NODE
 *   cm5run -n 4 errprog handler        node 2 sends a data pointer
 *   cm5run -n 4 errprog abort          node 1 aborts after a barrier
 *   cm5run -n 4 errprog exit           node 1 calls exit(3) after a barrier
 *   cm5run -n 4 errprog error          node 3 calls CMMD_error
 *   cm5run -n 2 errprog foreign SO     node 1 sends a handler in SO, which
 *                                      only node 1 has loaded
 *   cm5run -n 2 errprog foreign-all SO the same, every node loaded SO
 *   cm5run -n 2 errprog steal          reply credits must come back to a
 *                                      node that waits in a request handler
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cm/cmmd.h>
#include <cm5/cm5.h>

int some_global_int = 17;
static volatile int flag, replies, done;

static void set_flag(int v) { flag = v; }

/* The faulty node says when it faults (wall clock, ms): the test bounds
 * the time from there to the end of the job. */
static void fault_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    printf("fault at %lld\n",
           (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
    fflush(stdout);
}

static void wait_forever(void)
{
    if (CMMD_self_address() % 2)
        CMMD_sync_with_nodes(); /* never completes: a node is missing */
    for (;;)
        CMAML_poll();
}

static void *load(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    void *fp = h ? dlsym(h, "foreign_handler") : NULL;

    if (!fp)
        CMMD_error("errprog: cannot load %s: %s", path, dlerror());
    return fp;
}

static void foreign(const char *path, int everywhere)
{
    int self = CMMD_self_address();
    void *fp = NULL;

    if (self == 1 || everywhere)
        fp = load(path);
    CMMD_sync_with_nodes();
    if (self == 1) {
        if (!everywhere)
            fault_now();
        CMAML_request(0, (CMAML_handler_t)fp, 1, 2, 3, 4);
        /* in order after the first: when it runs, the first has run */
        CMAML_request(0, (CMAML_handler_t)set_flag, 1);
    } else {
        CMAML_poll_while_lt(&flag, 1);
    }
    CMMD_sync_with_nodes();
    printf("node %d done\n", self);
}

/* ---- steal ------------------------------------------------------------ */

static void count_reply(int i)
{
    (void)i;
    replies++;
}

static void final_reply(int v) { done = v; }

static void noop(int v) { (void)v; }

/* Node 1, in a request handler: its reply credits to node 0 are used up,
 * so the reply waits for node 0 to return them. */
static void reply_from_handler(int v)
{
    CMAML_reply(0, (CMAML_handler_t)final_reply, v);
    flag = 2;
}

/* Node 0, outside handlers but inside the poll that received node 1's
 * replies (before that poll returns the credits it owes). */
static void rpc_send(int v) { CMAML_request(1, (CMAML_handler_t)noop, v); }

static void steal(void)
{
    const char *c = getenv("CM5_AM_CREDITS");
    int credits = c ? atoi(c) : 32;

    CMMD_sync_with_nodes();
    if (CMMD_self_address() == 0) {
        CMAML_request(1, (CMAML_handler_t)set_flag, 1);
        usleep(300000); /* node 1's replies and rpc all arrive meanwhile */
        CMAML_poll();
        CMAML_poll_while_lt(&done, 7);
        if (replies != credits)
            CMMD_error("errprog: %d replies, expected %d", replies, credits);
    } else if (CMMD_self_address() == 1) {
        CMAML_poll_while_lt(&flag, 1);
        for (int i = 0; i < credits; i++)
            CMAML_reply(0, (CMAML_handler_t)count_reply, i);
        CMAML_rpc(0, (CMAML_handler_t)rpc_send, 5);
        CMAML_request(1, (CMAML_handler_t)reply_from_handler, 7);
        CMAML_poll_while_lt(&flag, 2);
    }
    CMMD_sync_with_nodes();
    if (CMMD_self_address() == 0)
        printf("steal: done\n");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int self = CMMD_self_address();

    CMMD_fset_io_mode(stdout, CMMD_independent);
    if (strcmp(mode, "range") == 0 && argc > 2) {
        CMMD_sync_with_nodes();
        if (self != 2)
            wait_forever();
        fault_now();
        CMAML_request(atoi(argv[2]), (CMAML_handler_t)set_flag, 1);
    } else if (strcmp(mode, "handler") == 0) {
        CMMD_sync_with_nodes();
        if (self != 2)
            wait_forever();
        fault_now();
        CMAML_request(0, (CMAML_handler_t)(void *)&some_global_int, 1);
    } else if (strcmp(mode, "abort") == 0) {
        CMMD_sync_with_nodes();
        if (self == 1) {
            fault_now();
            abort();
        }
        wait_forever();
    } else if (strcmp(mode, "exit") == 0) {
        CMMD_sync_with_nodes();
        if (self == 1) {
            fault_now();
            exit(3);
        }
        wait_forever();
    } else if (strcmp(mode, "error") == 0) {
        CMMD_sync_with_nodes();
        if (self == 3) {
            fault_now();
            CMMD_error("node %d gives up: code %d\n", self, 42);
        }
        wait_forever();
    } else if (strcmp(mode, "foreign") == 0 && argc > 2) {
        foreign(argv[2], 0);
        return 0;
    } else if (strcmp(mode, "foreign-all") == 0 && argc > 2) {
        foreign(argv[2], 1);
        return 0;
    } else if (strcmp(mode, "steal") == 0) {
        steal();
        return 0;
    } else {
        fprintf(stderr, "usage: errprog range NODE | handler | abort | exit "
                        "| error | foreign SO | foreign-all SO | steal\n");
        return 2;
    }
    /* Only a node whose fault was not caught gets here. */
    printf("node %d: returned from the faulty call\n", self);
    return 3;
}

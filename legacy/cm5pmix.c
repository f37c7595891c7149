/*
 * cm5pmix PROGRAM [ARGS...]: start one node of a cm5fab job under a PMIx
 * launcher (mpirun, srun --mpi=pmix, prterun) on the node's behalf, for
 * 32-bit legacy programs (cm5cc --legacy, doc/porting.md):
 *
 *     mpirun -n 8 cm5pmix ./prog
 *
 * The 32-bit library cannot be a PMIx client of a 64-bit launcher: the
 * PMIx wire header holds a size_t (12 bytes on i386, 16 on x86_64 in
 * PMIx 4.2), so the i386 libpmix's first message is misread by the
 * server and PMIx_Init hangs (doc/porting.md shows the experiment).  This
 * 64-bit program is the PMIx client instead: it starts PROGRAM with the
 * bootstrap socket of cm5run (am/boot/boot_proto.h), with address
 * randomization off, and serves each of the node's allgathers with one
 * PMIx fence.  It exits with PROGRAM's status; a failed node aborts the
 * job through PMIx.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pmix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot_env.h"
#include "boot_proto.h"

static pmix_proc_t me;
static uint32_t job_size, local_size;
static int round_no;

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "cm5pmix: %s: %s\n", what, PMIx_Error_string(rc));
    exit(1);
}

static uint32_t job_u32(const char *key)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    uint32_t out;

    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || !v)
        die(key, rc);
    out = v->type == PMIX_UINT32 ? v->data.uint32 : 0;
    PMIX_VALUE_RELEASE(v);
    return out;
}

/* Every node's len bytes into all (job_size records of len), in rank
 * order; 0 on success. */
static int allgather(const void *mine, size_t len, char *all)
{
    pmix_value_t val, *got;
    pmix_proc_t wild, peer;
    pmix_info_t info;
    pmix_status_t rc;
    bool collect = true;
    char key[32];

    snprintf(key, sizeof(key), "cm5pmix.%d", round_no++);
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)mine;
    val.data.bo.size = len;
    if ((rc = PMIx_Put(PMIX_GLOBAL, key, &val)) != PMIX_SUCCESS ||
        (rc = PMIx_Commit()) != PMIX_SUCCESS)
        die("PMIx_Put", rc);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&wild, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
        die("PMIx_Fence", rc);
    for (uint32_t k = 0; k < job_size; k++) {
        PMIX_LOAD_PROCID(&peer, me.nspace, k);
        got = NULL;
        rc = PMIx_Get(&peer, key, NULL, 0, &got);
        if (rc != PMIX_SUCCESS || !got || got->type != PMIX_BYTE_OBJECT ||
            got->data.bo.size != len) {
            fprintf(stderr,
                    "cm5pmix: node %u: a record of %zu bytes, not "
                    "%zu (mixed programs in one job?)\n",
                    (unsigned)k,
                    got && got->type == PMIX_BYTE_OBJECT ? got->data.bo.size
                                                         : 0,
                    len);
            return -1;
        }
        memcpy(all + (size_t)k * len, got->data.bo.bytes, len);
        PMIX_VALUE_RELEASE(got);
    }
    return 0;
}

/* Read or write exactly len bytes; 0, or -1 at end of file or error. */
static int io(int fd, void *buf, size_t len, int wr)
{
    char *p = buf;

    while (len > 0) {
        ssize_t r = wr ? send(fd, p, len, MSG_NOSIGNAL) : read(fd, p, len);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        len -= (size_t)r;
    }
    return 0;
}

/* The environment of cm5run's nodes (prepare_env, child_exec): the job's
 * key is node 0's. */
static void node_env(int fd)
{
    uint64_t key = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^
                   ((uint64_t)clock() << 16);
    uint64_t *keys = malloc(sizeof(key) * job_size);
    char s[32];

    if (!keys || allgather(&key, sizeof(key), (char *)keys) != 0)
        exit(1);
    snprintf(s, sizeof(s), "%016" PRIx64, keys[0]);
    setenv(CM5_ENV_JOB_KEY, s, 1);
    free(keys);
    snprintf(s, sizeof(s), "%u", (unsigned)me.rank);
    setenv(CM5_ENV_RANK, s, 1);
    snprintf(s, sizeof(s), "%u", (unsigned)job_size);
    setenv(CM5_ENV_SIZE, s, 1);
    snprintf(s, sizeof(s), "%d", fd);
    setenv(CM5_ENV_BOOT_FD, s, 1);
    setenv(CM5_ENV_HOST, "0", 1);
    setenv(CM5_ENV_LAUNCHER, "cm5pmix", 1);
    unsetenv(CM5_ENV_DOORBELL_FD);
    /* The node believes what cm5run tells it: every node on this host.
     * Across hosts its default must be the network's provider. */
    if (local_size != job_size)
        setenv(CM5_ENV_PROVIDER, "tcp", 0);
}

static pid_t start(char **argv)
{
    pid_t pid = fork();

    if (pid != 0)
        return pid;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* Inherited through exec: the same addresses on every node. */
    if (personality(personality(0xffffffff) | ADDR_NO_RANDOMIZE) < 0)
        fprintf(stderr,
                "cm5pmix: cannot turn address randomization off: "
                "%s\n",
                strerror(errno));
    execvp(argv[0], argv);
    fprintf(stderr, "cm5pmix: cannot execute %s: %s\n", argv[0],
            strerror(errno));
    _exit(127);
}

/* Serve the node's allgathers until it closes its socket. */
static int serve(int fd)
{
    cm5_boot_len_t len, n = job_size;
    char *mine, *all;
    int ok = 1;

    while (ok && io(fd, &len, CM5_BOOT_PREFIX, 0) == 0) {
        if (len > CM5_BOOT_MAX_RECORD)
            return -1;
        mine = malloc(len ? len : 1);
        all = malloc((size_t)n * len + 1);
        ok = mine && all && io(fd, mine, len, 0) == 0 &&
             allgather(mine, len, all) == 0 &&
             io(fd, &n, CM5_BOOT_PREFIX, 1) == 0;
        for (uint32_t k = 0; ok && k < n; k++)
            ok = io(fd, &len, CM5_BOOT_PREFIX, 1) == 0 &&
                 io(fd, all + (size_t)k * len, len, 1) == 0;
        free(mine);
        free(all);
    }
    return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    int sv[2], st, code;
    pmix_status_t rc;
    char msg[160];
    pid_t pid;

    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr,
                "usage: mpirun -n N cm5pmix PROGRAM [ARGS...]\n"
                "Start a cm5fab program (a 32-bit one of cm5cc --legacy) "
                "under a PMIx launcher,\nwith address randomization off "
                "(cm5pmix(1), doc/porting.md).\n");
        return argc < 2 ? 2 : strcmp(argv[1], "--help") ? 2 : 0;
    }
    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS)
        die("PMIx_Init (start cm5pmix with a PMIx launcher: mpirun, "
            "srun --mpi=pmix, prterun)",
            rc);
    job_size = job_u32(PMIX_JOB_SIZE);
    local_size = job_u32(PMIX_LOCAL_SIZE);
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        perror("cm5pmix: socketpair");
        return 1;
    }
    node_env(sv[1]);
    if (fcntl(sv[1], F_SETFD, 0) < 0 || (pid = start(argv + 1)) < 0) {
        perror("cm5pmix: start the node");
        return 1;
    }
    close(sv[1]);
    if (serve(sv[0]) != 0)
        kill(pid, SIGKILL);
    close(sv[0]);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (code != 0) {
        snprintf(msg, sizeof(msg), "cm5pmix: node %u: %s %d", me.rank,
                 WIFEXITED(st) ? "exit status" : "killed by signal",
                 WIFEXITED(st) ? code : WTERMSIG(st));
        PMIx_Abort(code, msg, NULL, 0);
    }
    PMIx_Finalize(NULL, 0);
    return code;
}

/*
 * PMIx bootstrap: rank, size and the address exchange come from the PMIx
 * server of the launcher that started us (Slurm srun --mpi=pmix, Open MPI
 * mpirun, PRRTE prterun, Flux): put, commit, fence with data collection,
 * get.  A job whose nodes are all on one host also gets a doorbell, as
 * cm5run's jobs do (a shared-memory object every node maps, which its
 * waits sleep on where the provider has no wait object: shm).
 */
#include "boot/boot.h"

#include <fcntl.h>
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "am_util.h"
#include "boot/boot_env.h"
#include "boot/boot_proto.h"
#include "fabric/shmring.h"

static pmix_proc_t boot_me;
static int boot_round;
static int boot_hosted;       /* a host/node job: the host is PMIx rank 0 */
static char boot_db_name[96]; /* the doorbell's name until it is removed */

int cm5i_boot_pmix_present(void)
{
    return getenv("PMIX_RANK") != NULL && getenv("PMIX_NAMESPACE") != NULL;
}

static cm5_status_t boot_pmix_fail(const char *what, pmix_status_t rc)
{
    cm5i_log(CM5I_LOG_ERROR, "boot",
             "PMIx %s failed: %s.  The environment says a PMIx launcher "
             "started this process (PMIX_RANK=%s); check that its PMIx "
             "server is reachable, or start the program with cm5run",
             what, PMIx_Error_string(rc), getenv("PMIX_RANK"));
    return CM5_ERR_BOOT;
}

/* The address of the launcher's PMIx server, as the environment gives it
 * (the newest protocol's variable first), or NULL. */
static const char *boot_pmix_uri(void)
{
    static const char *const names[] = {
        "PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3",
        "PMIX_SERVER_URI21", "PMIX_SERVER_URI2", "PMIX_SERVER_URI"};

    for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
        if (getenv(names[i]) && *getenv(names[i]))
            return getenv(names[i]);
    return NULL;
}

/* PMIx_Init failed: the PMIX_* variables promise a launcher's server that
 * is not there (the launcher is gone, or the variables were inherited or
 * copied into an environment no launcher made). */
static cm5_status_t boot_pmix_init_fail(pmix_status_t rc)
{
    const char *uri = boot_pmix_uri();

    cm5i_log(CM5I_LOG_ERROR, "boot",
             "PMIx_Init failed (%s): PMIX_RANK=%s and PMIX_NAMESPACE=%s say "
             "a PMIx launcher (mpirun, srun --mpi=pmix, prterun) started "
             "this process, but its PMIx server %s%s%s; start the program "
             "with a PMIx launcher or with cm5run, or unset the PMIX_* "
             "variables to run it alone as a 1-node partition",
             PMIx_Error_string(rc), getenv("PMIX_RANK"),
             getenv("PMIX_NAMESPACE"), uri ? "at " : "",
             uri ? uri : "(no PMIX_SERVER_URI* variable names it)",
             uri ? " does not answer" : " cannot be found");
    return CM5_ERR_BOOT;
}

/* A 32-bit value the launcher holds for rank r (PMIX_RANK_WILDCARD:
 * the job's): PMIX_SUCCESS and *out, or why not. */
static pmix_status_t boot_pmix_get_u32(pmix_rank_t r, const char *key,
                                       uint32_t *out)
{
    pmix_proc_t p;
    pmix_value_t *val = NULL;
    pmix_status_t rc;

    PMIX_PROC_CONSTRUCT(&p);
    PMIX_LOAD_PROCID(&p, boot_me.nspace, r);
    rc = PMIx_Get(&p, key, NULL, 0, &val);
    if (rc == PMIX_SUCCESS && (!val || val->type != PMIX_UINT32))
        rc = PMIX_ERR_BAD_PARAM;
    if (rc == PMIX_SUCCESS)
        *out = val->data.uint32;
    if (val)
        PMIX_VALUE_RELEASE(val);
    return rc;
}

/* A job-level count (size, local size): not 0. */
static cm5_status_t boot_pmix_u32(const char *key, uint32_t *out)
{
    pmix_status_t rc = boot_pmix_get_u32(PMIX_RANK_WILDCARD, key, out);

    if (rc == PMIX_SUCCESS && *out == 0)
        rc = PMIX_ERR_BAD_PARAM;
    return rc == PMIX_SUCCESS ? CM5_OK : boot_pmix_fail(key, rc);
}

/* The doorbell of a job's nodes on one host: a POSIX shared-memory
 * object named after the job's key (cm5-<key>-db; in a job on several
 * hosts, cm5-<key>-<host>-db, with the host as the rings see it), which
 * every node of the host opens (the first creates it; ftruncate to the
 * same size is idempotent) before the first fence and removes after it,
 * so that nothing is left in /dev/shm once the job has started.  Slots
 * for every node of the job; only the host's own are used.  Without one
 * (no room, a name taken) waits back off. */
static int boot_pmix_doorbell(int size, uint64_t key, int local)
{
    int fd;

    if (local)
        snprintf(boot_db_name, sizeof(boot_db_name), "/cm5-%016llx-db",
                 (unsigned long long)key);
    else
        snprintf(boot_db_name, sizeof(boot_db_name), "/cm5-%016llx-%016llx-db",
                 (unsigned long long)key, (unsigned long long)cm5i_ring_host());
    fd = shm_open(boot_db_name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)CM5_DOORBELL_SIZE(size)) != 0) {
        cm5i_log(CM5I_LOG_WARN, "boot",
                 "no doorbell (%s: %m): waits on shared memory will back "
                 "off",
                 boot_db_name);
        if (fd >= 0)
            close(fd);
        shm_unlink(boot_db_name);
        boot_db_name[0] = '\0';
        return -1;
    }
    return fd;
}

/* FNV-1a of the namespace, which names the job across its hosts. */
static uint64_t boot_pmix_key(const char *nspace)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (const char *p = nspace; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    return h ? h : 1;
}

/* The job's applications: 1 where the launcher does not say (Slurm's
 * PMIx plugin gives no PMIX_JOB_NUM_APPS; every process of a job finds
 * the same). */
static void boot_pmix_apps(uint32_t *apps)
{
    if (boot_pmix_get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_NUM_APPS, apps) !=
            PMIX_SUCCESS ||
        *apps == 0)
        *apps = 1;
}

/* The PMIx application number of rank r. */
static cm5_status_t boot_pmix_appnum(pmix_rank_t r, uint32_t *out)
{
    pmix_status_t rc = boot_pmix_get_u32(r, PMIX_APPNUM, out);

    return rc == PMIX_SUCCESS ? CM5_OK : boot_pmix_fail(PMIX_APPNUM, rc);
}

/* Host/node programs (doc/cluster.md): CM5_HOST=1 in every process of
 * the job, as cm5run sets it, and the host program PMIx rank 0: the one
 * process of the first of two applications (mpirun -x CM5_HOST=1 -np 1
 * HOST : -x CM5_HOST=1 -np N NODE), or rank 0 of one (srun
 * --multi-prog).  The library numbers
 * the host after the nodes: the endpoints are the PMIx ranks less one,
 * the host's the last. */
static cm5_status_t boot_pmix_host(cm5i_boot_t *b)
{
    const char *h = getenv(CM5_ENV_HOST);
    uint32_t apps = 0, a0 = UINT32_MAX, a1 = UINT32_MAX;
    int mine = h && strcmp(h, "1") == 0, with = 0;

    b->host = -1;
    if (h && *h && strcmp(h, "0") != 0 && !mine) {
        cm5i_log(CM5I_LOG_ERROR, "boot", "%s=%s: expected 0 or 1", CM5_ENV_HOST,
                 h);
        return CM5_ERR_BOOT;
    }
    boot_pmix_apps(&apps);
    /* Two applications: every process must agree (mpirun's -x reaches
     * one application only), before any of them names an endpoint. */
    if (apps == 2) {
        uint8_t flag = (uint8_t)mine, all[b->size];

        if (cm5i_boot_pmix_allgather(b, &flag, 1, all) != CM5_OK)
            return CM5_ERR_BOOT;
        for (int k = 0; k < b->size; k++)
            with += all[k];
    }
    if (apps == 2 && with != 0 && with != b->size) {
        /* (every process knows it: the first says it) */
        cm5i_log(boot_me.rank == 0 ? CM5I_LOG_ERROR : CM5I_LOG_DEBUG, "boot",
                 "%s=1 in %d of the job's %d processes: a host/node job "
                 "needs it in every one (mpirun -x %s=1 -np 1 HOSTPROG : "
                 "-x %s=1 -np N NODEPROG: -x reaches one application)",
                 CM5_ENV_HOST, with, b->size, CM5_ENV_HOST, CM5_ENV_HOST);
        /* (the others wait until it is said: the first to exit ends
         * the job) */
        PMIx_Fence(NULL, 0, NULL, 0);
        return CM5_ERR_BOOT;
    }
    if (!mine)
        return CM5_OK;
    if (apps == 2 && b->size >= 2 &&
        (boot_pmix_appnum(0, &a0) != CM5_OK ||
         boot_pmix_appnum(1, &a1) != CM5_OK))
        return CM5_ERR_BOOT;
    /* (one application: srun --multi-prog, rank 0 the host program) */
    if (b->size < 2 || (apps != 1 && (apps != 2 || a0 != 0 || a1 != 1))) {
        cm5i_log(CM5I_LOG_ERROR, "boot",
                 "%s=1 under a PMIx launcher: the host program must be "
                 "PMIx rank 0, the one process of the first of two "
                 "applications (mpirun -x %s=1 -np 1 HOSTPROG : -x %s=1 -np "
                 "N NODEPROG) or rank 0 of one (srun --multi-prog); this "
                 "job has %u application%s%s",
                 CM5_ENV_HOST, CM5_ENV_HOST, CM5_ENV_HOST, apps,
                 apps == 1 ? "" : "s",
                 apps == 2 ? ", the first of more than one process" : "");
        return CM5_ERR_BOOT;
    }
    boot_hosted = 1;
    b->host = b->size - 1;
    b->rank = boot_me.rank == 0 ? b->host : (int)boot_me.rank - 1;
    return CM5_OK;
}

/* The PMIx rank of endpoint k. */
static pmix_rank_t boot_pmix_rank_of(const cm5i_boot_t *b, int k)
{
    if (!boot_hosted)
        return (pmix_rank_t)k;
    return k == b->host ? 0 : (pmix_rank_t)(k + 1);
}

/* The launcher's locality (PMIX_LOCAL_PEERS): which nodes share this
 * host; the two paths follow it besides the rings' own test
 * (fab.c, fab_ring_peers).  None if PMIx does not say. */
static void boot_pmix_near(cm5i_boot_t *b)
{
    pmix_value_t *val = NULL;
    pmix_proc_t wild;
    pmix_status_t rc;

    PMIX_PROC_CONSTRUCT(&wild);
    PMIX_LOAD_PROCID(&wild, boot_me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, PMIX_LOCAL_PEERS, NULL, 0, &val);
    if (rc == PMIX_SUCCESS && val && val->type == PMIX_STRING &&
        (b->near = malloc((size_t)b->size)) != NULL &&
        cm5i_rank_list_parse(val->data.string, b->size, boot_hosted, b->host,
                             b->near) < 0) {
        cm5i_log(CM5I_LOG_WARN, "boot",
                 "PMIx's local peers \"%.64s\" are not a list of this job's "
                 "ranks: the rings alone decide which nodes share a host",
                 val->data.string);
        free(b->near);
        b->near = NULL;
    }
    if (val)
        PMIX_VALUE_RELEASE(val);
}

cm5_status_t cm5i_boot_pmix_init(cm5i_boot_t *b)
{
    pmix_status_t rc = PMIx_Init(&boot_me, NULL, 0);
    uint32_t size, local = 0;

    if (rc != PMIX_SUCCESS)
        return boot_pmix_init_fail(rc);
    if (boot_pmix_u32(PMIX_JOB_SIZE, &size) != CM5_OK)
        return CM5_ERR_BOOT;
    if (boot_pmix_u32(PMIX_LOCAL_SIZE, &local) != CM5_OK)
        local = 0;
    b->rank = (int)boot_me.rank;
    b->size = (int)size;
    boot_hosted = 0;
    if (boot_pmix_host(b) != CM5_OK)
        return CM5_ERR_BOOT;
    /* The job's key, from its namespace: every node of the job, on every
     * host, knows it before it names a shared-memory file, so that any
     * of them can remove the job's (am_sweep.c). */
    b->key = boot_pmix_key(boot_me.nspace);
    b->fd = -1;
    b->local = local == size;
    b->doorbell_fd = boot_pmix_doorbell((int)size, b->key, b->local);
    boot_pmix_near(b);
    /* The launcher's daemon dies (mpirun killed): end as a stopped job
     * does, rather than run on as an orphan (SIGTERM sweeps the job's
     * shared memory first). */
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) == 0 && getppid() == 1)
        raise(SIGTERM);
    b->method = "pmix";
    return CM5_OK;
}

cm5_status_t cm5i_boot_pmix_allgather(cm5i_boot_t *b, const void *mine,
                                      size_t len, void *all)
{
    pmix_value_t val, *got;
    pmix_proc_t wild, peer;
    pmix_info_t info;
    pmix_status_t rc;
    char key[32];
    bool collect = true;

    snprintf(key, sizeof(key), "cm5.boot.%d", boot_round++);
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)mine;
    val.data.bo.size = len;
    rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        return boot_pmix_fail("PMIx_Put", rc);
    PMIX_PROC_CONSTRUCT(&wild);
    PMIX_LOAD_PROCID(&wild, boot_me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&wild, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
        return boot_pmix_fail("PMIx_Fence", rc);
    if (boot_db_name[0]) { /* every node has opened the doorbell */
        shm_unlink(boot_db_name);
        boot_db_name[0] = '\0';
    }
    for (int k = 0; k < b->size; k++) {
        PMIX_PROC_CONSTRUCT(&peer);
        PMIX_LOAD_PROCID(&peer, boot_me.nspace, boot_pmix_rank_of(b, k));
        got = NULL;
        rc = PMIx_Get(&peer, key, NULL, 0, &got);
        if (rc != PMIX_SUCCESS || !got || got->type != PMIX_BYTE_OBJECT ||
            got->data.bo.size != len) {
            if (got)
                PMIX_VALUE_RELEASE(got);
            return boot_pmix_fail("PMIx_Get of a node's address",
                                  rc != PMIX_SUCCESS ? rc : PMIX_ERR_BAD_PARAM);
        }
        memcpy((char *)all + (size_t)k * len, got->data.bo.bytes, len);
        PMIX_VALUE_RELEASE(got);
    }
    return CM5_OK;
}

void cm5i_boot_pmix_abort(int status, const char *msg)
{
    PMIx_Abort(status, msg, NULL, 0);
}

void cm5i_boot_pmix_fini(void)
{
    if (boot_db_name[0]) /* left before the address exchange */
        shm_unlink(boot_db_name);
    boot_db_name[0] = '\0';
    PMIx_Finalize(NULL, 0);
}

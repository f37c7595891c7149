/*
 * Start-up and shut-down of a node, the top of am/'s layers: bootstrap,
 * configuration, endpoints, address exchange, every module's setup and
 * teardown in order; the die function that stops the job.  What the
 * other modules need of the node (who it is, whether it runs) is in
 * am_ctx.c, below them all.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "am_alive.h"
#include "am_barrier.h"
#include "am_coll.h"
#include "am_config.h"
#include "am_ctx.h"
#include "am_event.h"
#include "am_flow.h"
#include "am_guard.h"
#include "am_handler.h"
#include "am_irq.h"
#include "am_legacy.h"
#include "am_model.h"
#include "am_model_sync.h"
#include "am_msg.h"
#include "am_packet.h"
#include "am_poll.h"
#include "am_progress.h"
#include "am_sweep.h"
#include "am_trace.h"
#include "am_util.h"
#include "am_wait.h"
#include "am_wire.h"
#include "boot/boot.h"
#include "fabric/fab.h"

/* This node has failed (and said why): let the launcher stop the job.
 * No collective shut-down: cm5run (or the PMIx launcher) sees the status
 * and stops the other nodes. */
static void ctx_die(const char *why)
{
    cm5i_ctx.failed = 1;
    cm5i_alive_abandon();
    cm5i_fab_abandon(cm5i_ctx.fab);
    /* Its own names: the others may still connect to theirs; the
     * launcher (cm5run's end of job, or the SIGTERM it sends under PMIx,
     * whose handler sweeps the job) removes the rest. */
    cm5i_sweep_node(cm5i_ctx.rank);
    fflush(NULL);
    cm5i_boot_abort(&cm5i_ctx.boot, 1, why);
    _exit(1);
}

/* Provider precedence: API argument > cm5run --provider > CM5_PROVIDER
 * (cm5run passes --provider as CM5_PROVIDER) > the fabric's default for
 * a job on one host or on several.  FI_PROVIDER filters what libfabric
 * offers: when it rules the default out, libfabric picks among what it
 * allows. */
static const char *ctx_pick_provider(const char *api)
{
    const char *env = cm5i_config_str(CM5_ENV_PROVIDER);
    const char *def = cm5i_fab_default_provider(cm5i_ctx.boot.local);

    if (api && *api)
        return api;
    if (*env)
        return env;
    if (!cm5i_fab_filter_allows(def)) {
        cm5i_log(CM5I_LOG_INFO, "init",
                 "FI_PROVIDER=%s rules out %s: libfabric picks the provider",
                 getenv("FI_PROVIDER"), def);
        return NULL;
    }
    cm5i_log(CM5I_LOG_INFO, "init",
             "%s: using the %s provider (set " CM5_ENV_PROVIDER
             " to choose another)",
             cm5i_ctx.boot.local ? "all nodes on one host"
                                 : "nodes on several hosts",
             def);
    return def;
}

static int ctx_interrupts; /* CM5_INTERRUPTS: enable them at start-up */

/* CM5_SHM and CM5_CMA: the same-host path and its single copy. */
static void ctx_path_config(void)
{
    const char *v = cm5i_config_str(CM5_ENV_SHM);

    if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0 && strcmp(v, "auto") != 0)
        cm5i_config_error(CM5_ENV_SHM "=%s: expected off, auto or on", v);
    v = cm5i_config_str(CM5_ENV_CMA);
    if (strcmp(v, "off") != 0 && strcmp(v, "auto") != 0)
        cm5i_config_error(CM5_ENV_CMA "=%s: expected off or auto", v);
}

/* Every variable is read (or checked) here, before anything opens: a
 * bad value stops the node with one line, having changed nothing. */
static void ctx_read_config(void)
{
    const char *lvl = getenv(CM5_ENV_LOG_LEVEL);

    if (lvl && cm5i_log_parse_level(lvl) < 0)
        cm5i_config_error(CM5_ENV_LOG_LEVEL "=%s: expected none, error, "
                                            "warn, info or debug",
                          lvl);
    else if (lvl)
        cm5i_log_level = cm5i_log_parse_level(lvl);
    cm5i_flow_config();
    cm5i_wait_config();
    cm5i_irq_config();
    ctx_path_config();
    ctx_interrupts = (int)cm5i_config_long(CM5_ENV_INTERRUPTS, 0, 1);
    cm5i_msg_config();
}

/* Under an address-space limit (ulimit -v) that leaves less than a
 * provider needs (cm5i_fab_room), the providers do not fail cleanly, so
 * start only with room to spare, and keep some after start-up for the
 * providers' pools to grow. */
#define CTX_ROOM_AFTER (16u << 20)

static int ctx_said_why; /* the failing step logged the error itself */

/* Bytes mapped (VmSize), or 0 when /proc cannot tell. */
static size_t ctx_vm_size(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    char line[128];
    unsigned long long kb = 0;

    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "VmSize: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return (size_t)kb << 10;
}

/* CM5_ERR_NO_MEMORY (and one error line) when the address-space limit
 * leaves less than need bytes; why says for what. */
static cm5_status_t ctx_check_room(size_t need, const char *why)
{
    struct rlimit rl;
    size_t vm, left;

    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        !(vm = ctx_vm_size()))
        return CM5_OK;
    left = rl.rlim_cur > vm ? rl.rlim_cur - vm : 0;
    if (left >= need)
        return CM5_OK;
    cm5i_log(CM5I_LOG_ERROR, "init",
             "out of address space: the limit (ulimit -v %llu) leaves %zu "
             "MiB, %s needs %zu MiB; raise the limit",
             (unsigned long long)(rl.rlim_cur >> 10), left >> 20, why,
             need >> 20);
    ctx_said_why = 1;
    return CM5_ERR_NO_MEMORY;
}

/* The same-host fast path (CM5_SHM): auto uses it unless the user
 * named a provider, to teach or compare, as DESIGN.md (decision 12)
 * says; on uses it even then.  Which peers it reaches is the fabric's
 * business (same /dev/shm). */
static int ctx_use_rings(const char *api)
{
    const char *v = cm5i_config_str(CM5_ENV_SHM);
    int named = (api && *api) || *cm5i_config_str(CM5_ENV_PROVIDER);

    if (strcmp(v, "on") == 0)
        return 1;
    if (strcmp(v, "off") == 0)
        return 0;
    return !named; /* auto (ctx_path_config refused anything else) */
}

/* Single copy between ring peers (CM5_CMA): auto tries it, and the
 * fabric falls back per peer where the kernel refuses. */
static int ctx_use_cma(void)
{
    const char *v = cm5i_config_str(CM5_ENV_CMA);

    return strcmp(v, "off") != 0; /* ctx_path_config refused the rest */
}

static cm5_status_t ctx_open_fabric(const char *provider)
{
    cm5i_fab_params_t p = {.provider = ctx_pick_provider(provider),
                           .msg_size = cm5i_msync_packet_max()};
    char tag[64];

    if (ctx_use_rings(provider)) {
        p.ring_slots = (size_t)cm5i_flow_window() + CM5I_UNCOUNTED_SLACK;
        p.ring_bytes = cm5i_msg_ring_bytes();
        p.cma = ctx_use_cma();
        p.nep = cm5i_ctx.nep;
    }
    /* Synchronised virtual time reads a peer's data in its announcement's
     * turn on every provider (the nodes share a host: cm5run). */
    if (cm5i_clock_orders)
        p.cma = ctx_use_cma();
    p.rank = cm5i_ctx.rank;

    snprintf(tag, sizeof(tag), "cm5-%016llx-%d",
             (unsigned long long)cm5i_ctx.key, cm5i_ctx.rank);
    p.name_tag = tag;
    /* Every counted packet in flight, and the eager messages' bodies. */
    p.rx_bytes = (size_t)cm5i_ctx.nep *
                     (cm5i_flow_window() + CM5I_UNCOUNTED_SLACK) *
                     sizeof(cm5i_pkt_t) +
                 cm5i_msg_rx_bytes();
    if (ctx_check_room(cm5i_fab_room(p.provider, cm5i_ctx.nep),
                       "opening the endpoints") != CM5_OK)
        return CM5_ERR_NO_MEMORY;
    return cm5i_fab_open(&p, &cm5i_ctx.fab);
}

/* One allgather: each node's record is its endpoints' addresses (the
 * last 8 bytes of the record unused: the key comes from the bootstrap),
 * followed by its heartbeat endpoints' addresses when the job has a
 * liveness check (a decision every node makes alike). */
static cm5_status_t ctx_exchange(void)
{
    size_t rec = CM5I_ADDR_REC * (cm5i_alive_enabled() ? 2 : 1);
    char *mine = calloc(1, rec);
    char *all = malloc((size_t)cm5i_ctx.nep * rec);
    cm5_status_t st = CM5_ERR_NO_MEMORY;

    if (!mine || !all)
        goto out;
    st = CM5_ERR_FABRIC;
    if (!cm5i_fab_address(cm5i_ctx.fab, mine, CM5I_ADDR_REC - 8))
        goto out;
    if (cm5i_alive_enabled() &&
        !cm5i_alive_address(mine + CM5I_ADDR_REC, CM5I_ADDR_REC))
        goto out;
    st = cm5i_boot_allgather(&cm5i_ctx.boot, mine, rec, all);
    if (st == CM5_OK) {
        cm5i_fab_set_near(cm5i_ctx.fab, cm5i_ctx.boot.near);
        st = cm5i_fab_set_peers(cm5i_ctx.fab, cm5i_ctx.nep, all, rec);
    }
    if (st == CM5_OK && cm5i_alive_enabled())
        st = cm5i_alive_set_peers(all + CM5I_ADDR_REC, rec);
out:
    free(mine);
    free(all);
    return st;
}

/* At exit: the collective shut-down when the program ends normally; a
 * node that exits with an error status leaves at once (its launcher sees
 * the status and stops the others, who would wait for it in vain).
 *
 * The shut-down is an atexit() handler of this library, which glibc runs
 * from _dl_fini, before libfabric's destructors.  The status comes from
 * an on_exit() handler, which must run before _dl_fini: so it has to be
 * registered after __libc_start_main registered _dl_fini, that is, not
 * from the constructor that starts a cm5run node -- from the first wait
 * of the program instead (cm5i_exit_hook). */
static void ctx_atexit(void)
{
    if (cm5i_ctx_exit_status() == 0) {
        cm5_finalize();
        return;
    }
    if (!cm5i_ctx.ready || cm5i_ctx.failed)
        return;
    cm5i_log(CM5I_LOG_INFO, "fini", "exit status %d: no shut-down barrier",
             cm5i_ctx_exit_status());
    cm5i_ctx.failed = 1;
    cm5i_alive_abandon(); /* the launcher reports this node; it, nobody */
    cm5i_fab_abandon(cm5i_ctx.fab);
    /* A PMIx launcher learns the status from the abort, and ends the job
     * with it (Slurm's srun would otherwise end with the status of the
     * others, killed); the line names the node, as cm5run's does (cm5run
     * reads the exit status itself). */
    if (cm5i_ctx.boot.method && strcmp(cm5i_ctx.boot.method, "pmix") == 0) {
        char msg[96];

        snprintf(msg, sizeof(msg), "node %d exited with status %d",
                 cm5i_ctx.rank, cm5i_ctx_exit_status());
        cm5i_log(CM5I_LOG_ERROR, "exit", "%s; stopping the job", msg);
        cm5i_boot_abort(&cm5i_ctx.boot, cm5i_ctx_exit_status(), msg);
    }
}

/* The log writes to a duplicate of stderr, which a program that closes
 * or redirects its stderr keeps; made once per process. */
static void ctx_open_log(void)
{
    int fd;

    if (cm5i_log_fd != STDERR_FILENO)
        return;
    fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (fd >= 0)
        cm5i_log_fd = fd;
}

/* Who this process is, from the bootstrap. */
static void ctx_identity(void)
{
    cm5i_ctx.rank = cm5i_ctx.boot.rank;
    cm5i_ctx.nep = cm5i_ctx.boot.size;
    cm5i_ctx.host = cm5i_ctx.boot.host;
    /* The host program is an endpoint outside the partition. */
    cm5i_ctx.size = cm5i_ctx.nep - (cm5i_ctx.host >= 0);
    cm5i_ctx.key = cm5i_ctx.boot.key;
    cm5i_sweep_set_key(cm5i_ctx.key);
    cm5i_log_rank = cm5i_ctx.rank;
    cm5i_log_host = cm5i_ctx.host;
}

static void ctx_log_started(double t0, double t1)
{
    snprintf(cm5i_ctx.provider, sizeof(cm5i_ctx.provider), "%s",
             cm5i_fab_provider(cm5i_ctx.fab));
    cm5i_log(CM5I_LOG_INFO, "init",
             "%s %d of %d%s, bootstrap %s, provider %s; endpoints opened in "
             "%.3f s, addresses exchanged in %.3f s",
             cm5i_ctx.rank == cm5i_ctx.host ? "host program, endpoint" : "node",
             cm5i_ctx.rank, cm5i_ctx.size,
             cm5i_ctx.host >= 0 ? " nodes and a host" : "",
             cm5i_ctx.boot.method, cm5i_ctx.provider, t1 - t0,
             cm5_rtime() - t1);
}

/* Every step that fails undoes the ones before it, in reverse order: a
 * start that fails leaves no endpoint, file, mapping or memory behind. */
static cm5_status_t ctx_start(const char *provider)
{
    double t0 = cm5_rtime(), t1;
    cm5_status_t st;

    ctx_open_log();
    st = cm5i_boot_init(&cm5i_ctx.boot);
    if (st != CM5_OK)
        return st;
    ctx_identity();
    cm5i_sweep_guard(); /* before the first shared-memory file */
    ctx_read_config();
    if (cm5i_ctx.rank == 0) /* once per job */
        cm5i_config_check(cm5i_config_long(CM5_ENV_VERBOSE_ENV, 0, 1));
    cm5i_handler_refresh();
    st = cm5i_alive_config();
    if (cm5i_config_status() != CM5_OK) /* a bad variable, said once */
        st = CM5_ERR_INVALID;
    if (st != CM5_OK || (st = cm5i_model_setup()) != CM5_OK ||
        (st = cm5i_trace_setup()) != CM5_OK ||
        (st = ctx_open_fabric(provider)) != CM5_OK)
        goto err_boot; /* (its teardowns accept what never started) */
    /* The packet layer's own, then its clients' (the parked packets'
     * hook runs before the held packets'). */
    if ((st = cm5i_progress_setup()) != CM5_OK ||
        (st = cm5i_flow_setup()) != CM5_OK ||
        (st = cm5i_poll_setup()) != CM5_OK || (st = cm5i_pkt_setup()) != CM5_OK)
        goto err_flow;
    cm5i_msync_attach(); /* (virtual time: its packets before the exchange) */
    if ((st = cm5i_alive_open()) != CM5_OK)
        goto err_alive;
    cm5i_fab_drop_foreign_crash_handlers(); /* installed by fi_getinfo */
    t1 = cm5_rtime();
    if ((st = ctx_exchange()) != CM5_OK || (st = cm5i_wait_setup()) != CM5_OK)
        goto err_alive;
    if ((st = cm5i_barrier_setup()) != CM5_OK ||
        (st = cm5i_msg_setup()) != CM5_OK)
        goto err_msg;
    if ((st = cm5i_coll_setup()) != CM5_OK ||
        (st = ctx_check_room(CTX_ROOM_AFTER, "libfabric after start-up")) !=
            CM5_OK)
        goto err_coll;
    ctx_log_started(t0, t1);
    if ((st = cm5i_alive_start()) != CM5_OK)
        goto err_coll;
    cm5i_ctx.ready = 1;
    cm5i_model_started();
    atexit(ctx_atexit);
    cm5i_exit_hook();
    cm5i_legacy_check();
    return CM5_OK;

err_coll:
    cm5i_coll_teardown();
err_msg:
    cm5i_msg_teardown();
    cm5i_barrier_teardown();
    cm5i_wait_teardown();
err_alive:
    cm5i_alive_stop(0);
err_flow:
    cm5i_pkt_teardown();
    cm5i_poll_teardown();
    cm5i_flow_teardown();
    cm5i_progress_teardown();
    cm5i_fab_close(cm5i_ctx.fab);
    cm5i_ctx.fab = NULL;
err_boot:
    cm5i_trace_teardown();
    cm5i_model_teardown();
    cm5i_boot_fini(&cm5i_ctx.boot);
    return st;
}

cm5_status_t cm5_init(const char *provider)
{
    cm5_status_t st;

    if (cm5i_ctx.ready) {
        size_t n = provider ? strlen(provider) : 0;

        if (n && !cm5i_fab_provider_answers(cm5i_ctx.provider, provider)) {
            cm5i_log(CM5I_LOG_ERROR, "cm5_init",
                     "the node already runs on provider %s (it started when "
                     "the program was loaded); choose the provider with "
                     "cm5run --provider %s or CM5_PROVIDER=%s",
                     cm5i_ctx.provider, provider, provider);
            return CM5_ERR_STATE;
        }
        return CM5_OK;
    }
    if (cm5i_ctx.finalized)
        cm5_fatal("cm5fab", "called after the runtime shut down (at exit)");
    st = ctx_start(provider);
    if (st == CM5_OK && ctx_interrupts)
        st = cm5_interrupts_enable();
    /* The bootstrap or the configuration said why. */
    if (st != CM5_OK && st != CM5_ERR_BOOT && st != CM5_ERR_INVALID &&
        !ctx_said_why)
        cm5i_log(CM5I_LOG_ERROR, "init", "cannot start node: %s",
                 cm5_status_string(st));
    return st;
}

static cm5_status_t ctx_lazy_start(void) { return cm5_init(NULL); }

/* Before any other constructor of the library (and every one of the
 * program's): the modules below start the node through am_ctx.c and die
 * through am_util.c, which call what is registered here. */
__attribute__((constructor(101))) static void ctx_register(void)
{
    cm5i_ctx_starter(ctx_lazy_start);
    cm5i_die_register(ctx_die);
}

/* Under cm5run every node bootstraps at load time, so nodes that never
 * communicate still join the job. */
__attribute__((constructor)) static void ctx_auto_init(void)
{
    if (getenv(CM5_ENV_BOOT_FD) && !cm5i_ctx.ready) {
        cm5i_ctx.in_ctor = 1;
        cm5i_lazy_init();
        cm5i_ctx.in_ctor = 0;
    }
}

void cm5_finalize(void)
{
    CM5I_GUARD();
    double t0 = cm5_rtime(), t1;
    int bye = 0;

    if (!cm5i_ctx.ready || cm5i_ctx.failed)
        return;
    cm5_interrupts_disable();
    /* Messages may still be in flight to us: serve them until every node
     * has come here, and close only when our own last messages have
     * left (their send completions arrived). */
    cm5i_fab_track_sends(cm5i_ctx.fab);
    cm5i_trace_flush(); /* node 0 merges the parts after the barrier */
    if (cm5i_node_ok(cm5i_ctx.rank) &&
        (cm5i_ctx.size > 1 || cm5i_ctx.host >= 0)) {
        cm5i_waiter_t w;

        cm5i_ctx.finalizing = 1; /* the exit barrier serves handlers */
        if (cm5i_barrier_open()) /* a split-phase barrier left open */
            cm5_barrier_finish();
        /* With a host program, the host takes part: it may still be
         * sending to the nodes, and they to it. */
        if (cm5i_ctx.host >= 0)
            cm5_host_barrier();
        else
            cm5_barrier();
        /* Virtual time's records as messages: the last ones were sent
         * after that barrier; one more, so that every node has taken
         * them before any leaves (am_model_sync.c). */
        if (cm5i_msync_net_closed()) {
            if (cm5i_ctx.host >= 0)
                cm5_host_barrier();
            else
                cm5_barrier();
        }
        /* Every node is in the barrier or past it: nobody to watch. */
        cm5i_alive_quiet();
        cm5i_waiter_start(&w, CM5I_WAIT_SHUTDOWN);
        while (cm5i_fab_sends_pending(cm5i_ctx.fab) > 0)
            cm5i_wait_step(&w, CM5I_CH_ALL);
        cm5i_waiter_end(&w);
        bye = 1;
    }
    cm5i_alive_stop(bye);
    cm5i_irq_quiesce(); /* it watches the endpoints and the doorbell */
    t1 = cm5_rtime();
    cm5i_ctx.ready = 0;
    cm5i_ctx.finalized = 1;
    /* The endpoints first: no completion may name a message freed below. */
    cm5i_fab_close(cm5i_ctx.fab);
    cm5i_ctx.fab = NULL;
    cm5i_log(CM5I_LOG_DEBUG, "fini", "exit barrier %.3f s, close %.3f s",
             t1 - t0, cm5_rtime() - t1);
    /* Then the rest of what ctx_start set up, in reverse order. */
    cm5i_coll_teardown();
    cm5i_msg_teardown();
    cm5i_barrier_teardown();
    cm5i_wait_teardown();
    cm5i_pkt_teardown();
    cm5i_poll_teardown();
    cm5i_flow_teardown();
    cm5i_progress_teardown();
    cm5i_trace_teardown();
    cm5i_model_teardown();
    cm5i_boot_fini(&cm5i_ctx.boot);
}

cm5_status_t cm5_partition_resize(int size)
{
    cm5_status_t st;

    CM5I_GUARD();
    cm5i_ensure_init();
    if (size < 1 || size > cm5i_ctx.size)
        return CM5_ERR_INVALID;
    if (cm5i_ctx.rank >= cm5i_ctx.size)
        return CM5_ERR_STATE;
    st = cm5_barrier(); /* nothing of the old partition is in flight */
    if (st != CM5_OK)
        return st;
    cm5i_ctx.size = size;
    cm5i_alive_resize(size);
    return CM5_OK;
}

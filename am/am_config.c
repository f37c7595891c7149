/*
 * Configuration table.  Every CM5_* variable is declared here, once;
 * cm5info -e prints this table and doc/env.md is generated from it.
 */
#include "am_config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "am_util.h"
#include "cm5/cm5.h"

extern char **environ;

/* A variable had a value it cannot take: the node does not start. */
static int config_bad;

static const cm5_config_var_t config_table[] = {
    {CM5_ENV_PROVIDER, "",
     "libfabric provider (shm, tcp, udp, sockets, ...); empty: shm for a "
     "job on one host, tcp for a job across hosts"},
    {CM5_ENV_LOG_LEVEL, "warn", "log level: none, error, warn, info, debug"},
    {CM5_ENV_VERBOSE_ENV, "0",
     "1: node 0 prints every CM5_* variable and the value it uses"},
    {CM5_ENV_AM_CREDITS, "auto",
     "active messages in flight per peer and channel (flow control "
     "window); auto: 2048 / nodes, within 32..256, and on udp;ofi_rxd "
     "at most half its receive queue / (nodes - 1)"},
    {CM5_ENV_EAGER_MAX, "4096",
     "largest point-to-point message (bytes) sent eagerly, in one packet "
     "with its announcement instead of after a rendezvous; the receiver "
     "buffers eager messages that come before their receive, up to a "
     "bound per sender, past which messages wait for the rendezvous; "
     "0: every message waits for the rendezvous; at most 8192; the same "
     "on every node"},
    {CM5_ENV_ASYNC_MAX, "128",
     "CMMD asynchronous operations (CMMD_send_async, CMMD_receive_async "
     "and their _v forms) in flight at once on a node, per direction; "
     "past it they return CMMD_ERRVAL with CMMD_ERR_NO_RPORTS, as the "
     "CM-5's did when its message control blocks ran out (its limit is "
     "not documented); raise it for code that posts more without "
     "retrying (HOT's libmpmy posts 48 receives per source: 192 on 4 "
     "nodes); from 1 to 65536"},
    {CM5_ENV_SPIN_US, "auto",
     "microseconds a wait polls before yielding (auto: 50, or 0 when the "
     "job has more nodes than CPUs)"},
    {CM5_ENV_YIELDS, "16", "sched_yield() calls a wait makes before sleeping"},
    {CM5_ENV_SLEEP_MS, "5",
     "longest single sleep of a waiting node, in milliseconds"},
    {CM5_ENV_INTERRUPT_SIGNAL, "SIGURG",
     "signal that delivers interrupts to the main thread (a name such as "
     "SIGURG or SIGUSR2, or a number)"},
    {CM5_ENV_INTERRUPT_TICK_US, "1000",
     "with interrupts enabled, how often (microseconds) the interrupt "
     "thread looks for messages when neither the provider's wait object "
     "nor cm5run's doorbell announces them (the main thread is interrupted "
     "only when a message has arrived)"},
    {CM5_ENV_INTERRUPTS, "0",
     "1: every node enables interrupts as it starts, as if its program "
     "began with CMAML_enable_interrupts() (to run polling programs and "
     "tests in interrupt mode)"},
    {CM5_ENV_PEER_TIMEOUT, "auto",
     "liveness check: seconds a node may go unheard (its process stopped or "
     "hung, its host or link down) before the next node in the ring reports "
     "it lost and stops the job; the heartbeat has a thread and an endpoint "
     "of its own, so computing without polling is fine; auto: 10 for a job "
     "across hosts, off on one host (the launcher sees dead processes); 0 "
     "or off: off (the ring may still carry the deadlock "
     "check, " CM5_ENV_DEADLOCK "); otherwise at least 0.5"},
    {CM5_ENV_SHM, "auto",
     "same-host fast path: nodes on one host exchange active messages "
     "through shared-memory rings of the runtime, libfabric carries bulk "
     "data and everything between hosts; auto: unless a provider is named "
     "(cm5run --provider, " CM5_ENV_PROVIDER ", cm5_init); on: even then; "
     "off: every message through libfabric"},
    {CM5_ENV_TRACE, "",
     "file: every node records its active messages, CMMD messages and "
     "scopies (time, peer, bytes; up to 262144 events per node) and at "
     "exit node 0 writes them to this file as Chrome trace-event JSON "
     "(open it in ui.perfetto.dev or chrome://tracing)"},
    {CM5_ENV_MODEL, "off",
     "virtual time (doc/model.md): off (the real clock), cm5 (the CM-5's "
     "network and control network, calibrated), logp:L=6,o=2.2,g=4 (LogP, "
     "microseconds); cm5:KEY=VALUE,... or logp:... changes a parameter (L, "
     "o, os, or, g, bw1, bw2, bw3, ms, mr, mx, irq, il, sw, bc, pj, bar, "
     "red, redf, redv, cnb, clk, poll; synchronised only: mx, CMMD's cost "
     "where a node sends and receives, irq, a handler's while interrupts are "
     "on, il, interleaved receipt: on, il=0 turns it off, sw, a packet's "
     "cost more per halving of the pushes a receiver interleaves, bc=1, "
     "receipt beside "
     "the clock, and pj, the polls a loop of empty probes takes at once: "
     "64, pj=0 one); "
     "timers and cm5_wtime report the virtual clock"},
    {CM5_ENV_MODEL_CPU_SCALE, "350",
     "virtual time: computation between runtime calls is charged as its "
     "thread CPU time times this factor: how many times faster than a 33 "
     "MHz CM-5 node this host's core runs (fitted on wang1993's RS_N "
     "planning, 330-380 on the machine it was fitted on; "
     "bench/model_cpu_scale fits yours); 0: computation is free"},
    {CM5_ENV_MODEL_CPU_FLOOR, "1000",
     "virtual time: a stretch of computation between runtime calls shorter "
     "than this many microseconds of thread CPU time is not charged (on a "
     "virtual machine an interrupt adds 20-330 us of CPU time to whatever "
     "stretch it lands in, so shorter stretches are mostly noise: "
     "doc/model.md; cm5_compute() states a cost instead); 2: charge "
     "fine-grained computation too, all but a polling loop's turns (virtual "
     "times then vary from run to run); 0: every stretch"},
    {CM5_ENV_MODEL_SYNC, "auto",
     "virtual time: synchronise the nodes (doc/model.md, \"Synchronisation\"): "
     "every node takes its packets (handlers, messages, scopies) in "
     "virtual-time order once no earlier one can still come, so that a "
     "program's virtual times are the same on every run, beside any load "
     "and on every provider, and a node's one processor moves its data "
     "both ways while a busy receiver holds its senders (calibrated on "
     "wang1993's tables: doc/model.md, \"Validation\"); with interrupts on, a "
     "program that computes outside "
     "the runtime for 50 ms of CPU (" CM5_ENV_MODEL_CPU_FLOOR " if larger; "
     "after an interrupt in such a wait, for " CM5_ENV_MODEL_CPU_FLOOR
     ") waits for its next handler, which interrupts it in turn; auto "
     "(the default) and on: the nodes' records through the memory they "
     "share on one host (a cm5run job, or a PMIx job whose nodes are all "
     "on one host), as packets between hosts (doc/model.md, \"Across "
     "hosts\"); net: as packets on one host too (the same times); off: "
     "packets are taken as they land, the first model (the times of "
     "active messages then follow the host's interleaving)"},
    {CM5_ENV_MODEL_JITTER, "0",
     "virtual time, synchronised, for testing: a seed; each node then "
     "yields or sleeps up to 0.5 ms at random points of the "
     "synchronisation (before it publishes its bound, takes a packet, "
     "waits), so that the nodes meet in other real-time orders; the "
     "virtual times must not change (tests/cmmd/vsync.sh); 0: off"},
    {CM5_ENV_CMA, "auto",
     "single copy between nodes of one host on the fast path: point-to-point "
     "messages longer than " CM5_ENV_EAGER_MAX " and CMAML_scopy data are "
     "read by the receiver straight from the sender's memory "
     "(process_vm_readv) instead of moving through libfabric; auto: where "
     "the kernel allows it (a peer it refuses falls back, with a debug "
     "line); off: never"},
    {CM5_ENV_BARRIER, "auto",
     "how nodes synchronise (CMMD_sync_with_nodes, cm5_barrier and the "
     "barrier at exit); auto: when every node of the partition is on this "
     "host, on its same-host rings (" CM5_ENV_SHM "), and sleeps on its "
     "doorbell, in real time, through a counter in "
     "the host's shared memory, as the CM-5's control network released "
     "every node at once (the last node to arrive wakes the others); "
     "otherwise packets: the dissemination algorithm, log2 N rounds of "
     "signals on the data path (virtual time always uses them: they carry "
     "its clocks); the same on every node"},
    {CM5_ENV_TIMEOUT, "0", "cm5run: default --timeout in seconds (0: none)"},
    {CM5_ENV_DEADLOCK, "3",
     "cm5run (under a PMIx launcher: node 0, with a token around the "
     "heartbeat ring, which runs for it alone on one host): stop a job in "
     "which every node (and the host program, if any) has waited "
     "for a message (a barrier, a collective, a receive, credits, "
     "CMAML_poll_while_lt) with none in flight for this many seconds, "
     "with one line naming each node's wait (0: never)"},
    {CM5_ENV_LAUNCHER, "", "set by cm5run: the launcher that started the node"},
    {CM5_ENV_RANK, "", "set by cm5run: this node's number"},
    {CM5_ENV_SIZE, "", "set by cm5run: number of nodes"},
    {CM5_ENV_HOST, "",
     "1 if the job has a host program: set by cm5run --host (the "
     "host's CM5_RANK is CM5_SIZE); under a PMIx launcher set it in "
     "every process, the host program the first application's one "
     "process (doc/cluster.md)"},
    {CM5_ENV_BOOT_FD, "", "set by cm5run: bootstrap socket"},
    {CM5_ENV_JOB_KEY, "",
     "set by cm5run: the job's random key; packets without it are dropped"},
    {CM5_ENV_DOORBELL_FD, "",
     "set by cm5run: shared memory where sleeping nodes are woken"},
};

#define CONFIG_N ((int)(sizeof(config_table) / sizeof(*config_table)))

int cm5_config_count(void) { return CONFIG_N; }

const cm5_config_var_t *cm5_config_var(int index)
{
    return index >= 0 && index < CONFIG_N ? &config_table[index] : NULL;
}

static const cm5_config_var_t *config_find(const char *name, size_t len)
{
    for (int i = 0; i < CONFIG_N; i++)
        if (strlen(config_table[i].name) == len &&
            strncmp(config_table[i].name, name, len) == 0)
            return &config_table[i];
    return NULL;
}

const char *cm5i_config_str(const char *name)
{
    const cm5_config_var_t *v = config_find(name, strlen(name));
    const char *env = getenv(name);

    if (env)
        return env;
    return v ? v->default_value : "";
}

long cm5i_config_long(const char *name, long min, long max)
{
    const char *s = cm5i_config_str(name);
    const cm5_config_var_t *v = config_find(name, strlen(name));
    char *end;
    long val;

    errno = 0;
    val = strtol(s, &end, 10);
    if (*s && !errno && !*end && val >= min && val <= max)
        return val;
    if (v && strcmp(s, v->default_value) != 0)
        cm5i_config_error("%s=%s: expected a number from %ld to %ld", name, s,
                          min, max);
    val = v ? strtol(v->default_value, NULL, 10) : min;
    return val < min ? min : val;
}

/* cm5run gives every node the same environment: node 0 alone says what
 * is wrong with it (the others stop as well, without repeating it).
 * Other launchers may not, so there every node speaks for itself. */
static int config_speaks(void)
{
    const char *launcher = getenv(CM5_ENV_LAUNCHER);
    const char *rank = getenv(CM5_ENV_RANK);

    return !launcher || strcmp(launcher, "cm5run") != 0 || !rank ||
           strcmp(rank, "0") == 0;
}

void cm5i_config_error(const char *fmt, ...)
{
    va_list ap;

    config_bad = 1;
    if (!config_speaks())
        return;
    va_start(ap, fmt);
    cm5i_vlog(CM5I_LOG_ERROR, "config", fmt, ap);
    va_end(ap);
}

cm5_status_t cm5i_config_status(void)
{
    struct timespec ts = {2, 0};

    if (!config_bad)
        return CM5_OK;
    /* A silent node gives node 0 the time to say why and end the job
     * (cm5run stops the job at the first node that exits: were it this
     * one, nobody would have said why). */
    if (!config_speaks())
        nanosleep(&ts, NULL);
    return CM5_ERR_INVALID;
}

void cm5i_config_check(int print)
{
    for (char **e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');

        if (strncmp(*e, CM5_ENV_PREFIX, strlen(CM5_ENV_PREFIX)) != 0 || !eq)
            continue;
        if (!config_find(*e, (size_t)(eq - *e)))
            cm5i_log(CM5I_LOG_WARN, "config",
                     "unknown variable %.*s (cm5info -e lists them)",
                     (int)(eq - *e), *e);
    }
    for (int i = 0; print && i < CONFIG_N; i++)
        cm5i_log(CM5I_LOG_WARN, "config", "%s=%s%s", config_table[i].name,
                 cm5i_config_str(config_table[i].name),
                 getenv(config_table[i].name) ? "" : " (default)");
}

/*
 * libfabric endpoints, receive buffers and completion handling.
 */
#include "fabric/fab.h"

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>

#include "am_sweep.h"
#include "am_util.h"
#include "fabric/shmring.h"

#define FAB_API FI_VERSION(1, 10)
#define FAB_NRXBUF 4 /* multi-receive buffers per channel */
#define FAB_CQ_BATCH 32
#define FAB_UNLIKELY(x) __builtin_expect(!!(x), 0)

typedef struct {
    struct fi_context ctx; /* must be first: completions return it */
    int kind;              /* FAB_CTX_RX or FAB_CTX_TX */
    void *buf;
    size_t len;
    int node;   /* FAB_CTX_TX: destination */
    int chan;   /* FAB_CTX_TX: the channel whose slot it is */
    int failed; /* FAB_CTX_RX: a repost failure was reported */
    struct fab_txslot *next;
} fab_op_t;

enum { FAB_CTX_RX = 1, FAB_CTX_TX = 2, FAB_CTX_USER = 3 };

_Static_assert(sizeof(((cm5i_fab_op_t *)0)->fi_ctx) ==
                   sizeof(struct fi_context),
               "cm5i_fab_op_t must hold a struct fi_context");
_Static_assert(offsetof(cm5i_fab_op_t, kind) == offsetof(fab_op_t, kind),
               "operation kinds must line up");

typedef struct fab_txslot {
    fab_op_t op;
} fab_txslot_t;

typedef struct {
    struct fid_ep *ep;
    struct fid_cq *cq;
    int wait_fd;
    char name[CM5I_FAB_NAME_MAX]; /* set for string-addressed endpoints */
    fab_op_t rx[FAB_NRXBUF];
    unsigned rx_retry; /* bit i: rx[i] waits to be posted again */
    fab_txslot_t *tx_slots;
    fab_txslot_t *tx_free;
} fab_chan_t;

/* Messages read from the shared completion queue of a one-endpoint
 * fabric (fab->onep), copied out of the receive buffers, waiting to be
 * handed out on their channel, in order.  One record each: a record stays
 * where it is while its callback runs, whatever a nested poll adds. */
typedef struct fab_rec {
    struct fab_rec *next;
    size_t len;
    max_align_t data[]; /* (the message, aligned as malloc's) */
} fab_rec_t;

typedef struct {
    fab_rec_t *head, *tail;
} fab_pq_t;

struct cm5i_fab {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    fab_chan_t ch[CM5I_NCH];
    int nch;  /* channels */
    int onep; /* both channels on ch[0]'s endpoint (tcp), told
                 apart by the completion's data */
    fab_pq_t pq[CM5I_NCH];
    fab_rec_t *rec_free; /* records of msg_size bytes, for reuse */
    fi_addr_t *peers;    /* node * CM5I_NCH + ch */
    int npeers;
    size_t inject_size;
    size_t msg_size;
    size_t addrlen;
    int tracked;       /* send with completions (shut-down) */
    long tx_pending;   /* sends not yet completed */
    long bulk_pending; /* tagged operations in flight */
    int lost_node;     /* destination of the last failed send, or -1 */
    int quiet;         /* data-path errors: debug level (the caller judges) */
    int rank;          /* this node */
    char *rx_mem;
    char *tx_mem;
    char prov[64];
    long fault[CM5I_FAB_NFAULTS]; /* injected faults still to come */
    /* The same-host fast path: which peers it reaches, and whether that
     * is every peer (libfabric then carries only bulk data). */
    cm5i_ring_t *ring;
    uint8_t *via_ring;         /* per node */
    const unsigned char *near; /* the launcher's locality, or NULL */
    int all_ring;
    int ring_others; /* ring peers other than this node */
    int cma;         /* single copy asked for (CM5_CMA) */
    int *cma_pid;    /* per node: its pid for process_vm_readv, or -1 */
    /* More nodes than the address vector holds: ring peers read by single
     * copy get no address at first (fab_av_wanted); their request
     * endpoints' names, for an insert if a single copy is refused. */
    int av_lean;
    char *lean_names; /* per node: a 16-bit length and the name */
    unsigned skips;   /* polls that skipped libfabric's queue */
    cm5i_fab_counts_t counts;
};

/* Endpoints this node opened (addresses it publishes). */
static int fab_neps(const cm5i_fab_t *fab) { return fab->onep ? 1 : fab->nch; }

/* Known provider quirks (checked by tests/unit/am/test_fab.c):
 * - Debian's libfabric 1.17 shm crashes when FI_OPT_MIN_MULTI_RECV is set
 *   before fi_enable (ofiwg/libfabric#10591): we always set it after.
 * - ofi_rxm allocates pools of FI_OFI_RXM_BUFFER_SIZE (16 KiB) buffers at
 *   fi_enable, ~140 MB per process with two endpoints, which makes a
 *   32-node tcp job on one host take 20 s to start.  Unless the user set
 *   it, we use 2 KiB: active messages are 56 bytes, and larger messages
 *   take rxm's segmentation and rendezvous paths anyway.  What does not
 *   fit a bounce buffer can be overtaken by a later small message (an RTS
 *   passed a 2048-byte eager message, tests/cmmd/eager.sh, with
 *   CM5_EAGER_MAX=2048 over tcp): cm5i_fab_ordered_max reports the size.
 * - ofi_rxd (udp) does not push back on a sender whose receiver is full:
 *   packets beyond its receive queue (and the kernel's socket buffer) are
 *   dropped and resent with a backoff that doubles up to 4 s per retry,
 *   and after 50 retries the peer is dropped without an error.  A flood
 *   of 8 nodes with 256 messages in flight per peer (1792 into each
 *   endpoint) stalled for minutes; with up to about 1000 it never did.
 *   cm5i_fab_rx_loss_window reports the queue so that the flow-control
 *   window can stay inside it (tests/integration/flood.sh, udp). */
static void fab_quirk_env(void) { setenv("FI_OFI_RXM_BUFFER_SIZE", "2048", 0); }

static cm5_status_t fab_err(const char *what, int rc)
{
    cm5i_log(CM5I_LOG_ERROR, "fab", "%s: %s (%d)", what, fi_strerror(-rc), rc);
    return rc == -FI_ENODATA ? CM5_ERR_NO_PROVIDER : CM5_ERR_FABRIC;
}

/* An error on the data path of a fabric whose owner judges failures
 * itself (the heartbeat's): only for debugging. */
static cm5_status_t fab_data_err(const cm5i_fab_t *fab, const char *what,
                                 int rc)
{
    if (!fab->quiet)
        return fab_err(what, rc);
    cm5i_log(CM5I_LOG_DEBUG, "fab", "%s: %s (%d)", what, fi_strerror(-rc), rc);
    return CM5_ERR_FABRIC;
}

static struct fi_info *fab_hints(const char *provider, size_t queue)
{
    struct fi_info *hints = fi_allocinfo();

    if (!hints)
        return NULL;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_MSG | FI_MULTI_RECV | FI_TAGGED;
    hints->mode = FI_CONTEXT;
    hints->domain_attr->mr_mode =
        FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->domain_attr->av_type = FI_AV_TABLE;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    /* A small transmit queue: flow control bounds what is in flight.  The
     * receive queue keeps the provider's size (shm's tagged receives fail
     * with fewer than its default; sockets allows no more than 256), but
     * for a small fabric (queue, the heartbeat's) that asks for both. */
    hints->tx_attr->size = queue ? queue : 256;
    hints->rx_attr->size = queue;
    hints->tx_attr->msg_order = FI_ORDER_SAS;
    hints->rx_attr->msg_order = FI_ORDER_SAS;
    if (provider && *provider) {
        hints->fabric_attr->prov_name = strdup(provider);
        if (!hints->fabric_attr->prov_name) {
            fi_freeinfo(hints);
            return NULL;
        }
    }
    return hints;
}

static int fab_open_cq(cm5i_fab_t *fab, fab_chan_t *ch)
{
    struct fi_cq_attr attr = {
        .format = FI_CQ_FORMAT_DATA,
        .size = 0,
        .wait_obj = FI_WAIT_FD,
    };
    int rc = fi_cq_open(fab->domain, &attr, &ch->cq, NULL);

    ch->wait_fd = -1;
    if (rc == 0) {
        if (fi_control(&ch->cq->fid, FI_GETWAIT, &ch->wait_fd) != 0)
            ch->wait_fd = -1;
        return 0;
    }
    /* No file descriptor (shm, udp): the runtime's doorbell or backoff. */
    attr.wait_obj = FI_WAIT_NONE;
    return fi_cq_open(fab->domain, &attr, &ch->cq, NULL);
}

/* An injected repost failure (cm5i_fab_fault), or 0. */
static int fab_fault_repost(cm5i_fab_t *fab)
{
    if (FAB_UNLIKELY(fab->fault[CM5I_FAB_FAULT_REPOST_AGAIN] > 0)) {
        fab->fault[CM5I_FAB_FAULT_REPOST_AGAIN]--;
        return -FI_EAGAIN;
    }
    if (FAB_UNLIKELY(fab->fault[CM5I_FAB_FAULT_REPOST_ERROR] > 0)) {
        fab->fault[CM5I_FAB_FAULT_REPOST_ERROR]--;
        return -FI_EIO;
    }
    return 0;
}

void cm5i_fab_fault(cm5i_fab_t *fab, int what, long count)
{
    if (what >= 0 && what < CM5I_FAB_NFAULTS)
        fab->fault[what] = count;
}

static int fab_post_rx(cm5i_fab_t *fab, fab_chan_t *ch, fab_op_t *op)
{
    struct iovec iov = {.iov_base = op->buf, .iov_len = op->len};
    struct fi_msg msg = {
        .msg_iov = &iov,
        .iov_count = 1,
        .addr = FI_ADDR_UNSPEC,
        .context = &op->ctx,
    };
    int rc = fab_fault_repost(fab);

    /* No spinning on -FI_EAGAIN here: the provider frees room only while
     * its completion queue is read, so the buffer waits (rx_retry). */
    return rc ? rc : (int)fi_recvmsg(ch->ep, &msg, FI_MULTI_RECV);
}

/* Post receive buffer i of a channel; if that fails, keep it on the
 * retry list that every poll works through (as GASNet's ofi conduit
 * does): a buffer is never lost.  A hard error is reported once. */
static int fab_repost(cm5i_fab_t *fab, fab_chan_t *ch, int i)
{
    fab_op_t *op = &ch->rx[i];
    int rc = fab_post_rx(fab, ch, op);

    if (rc == 0) {
        ch->rx_retry &= ~(1u << i);
        op->failed = 0;
        return 0;
    }
    ch->rx_retry |= 1u << i;
    if (rc != -FI_EAGAIN && !op->failed) {
        op->failed = 1;
        fab_data_err(fab, "fi_recvmsg (receive buffer kept for retry)", rc);
    }
    return rc;
}

/* Post again the buffers that could not be posted, until one fails. */
static void fab_retry_rx(cm5i_fab_t *fab, fab_chan_t *ch)
{
    for (int i = 0; i < FAB_NRXBUF; i++)
        if ((ch->rx_retry & (1u << i)) && fab_repost(fab, ch, i) != 0)
            return;
}

static int fab_setup_rx(cm5i_fab_t *fab, int c, size_t rx_bytes)
{
    fab_chan_t *ch = &fab->ch[c];
    size_t per = rx_bytes / (FAB_NRXBUF - 1) + fab->msg_size;
    size_t min = fab->msg_size;
    int rc;

    /* After fi_enable: see the quirk table above. */
    rc = fi_setopt(&ch->ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min,
                   sizeof(min));
    if (rc)
        return rc;
    for (int i = 0; i < FAB_NRXBUF; i++) {
        fab_op_t *op = &ch->rx[i];

        op->kind = FAB_CTX_RX;
        op->buf = fab->rx_mem + ((size_t)c * FAB_NRXBUF + i) * per;
        op->len = per;
        rc = fab_repost(fab, ch, i);
        if (rc && rc != -FI_EAGAIN) /* no room yet: the first poll posts */
            return rc;
    }
    return 0;
}

static int fab_setup_tx(cm5i_fab_t *fab, int c, size_t nslots)
{
    fab_chan_t *ch = &fab->ch[c];

    ch->tx_slots = calloc(nslots, sizeof(*ch->tx_slots));
    if (!ch->tx_slots)
        return -FI_ENOMEM;
    for (size_t i = 0; i < nslots; i++) {
        fab_txslot_t *s = &ch->tx_slots[i];

        s->op.kind = FAB_CTX_TX;
        s->op.chan = c;
        s->op.buf = fab->tx_mem + ((size_t)c * nslots + i) * fab->msg_size;
        s->op.next = ch->tx_free;
        ch->tx_free = s;
    }
    return 0;
}

static int fab_open_ep(cm5i_fab_t *fab, int c, const char *name_tag)
{
    fab_chan_t *ch = &fab->ch[c];
    int rc;

    rc = fi_endpoint(fab->domain, fab->info, &ch->ep, NULL);
    if (rc)
        return rc;
    rc = fab_open_cq(fab, ch);
    if (rc)
        return rc;
    rc = fi_ep_bind(ch->ep, &fab->av->fid, 0);
    if (!rc)
        rc = fi_ep_bind(ch->ep, &ch->cq->fid, FI_TRANSMIT | FI_RECV);
    if (rc)
        return rc;
    if (fab->info->addr_format == FI_ADDR_STR && name_tag) {
        /* String-addressed providers (shm) name their shared-memory files
         * after the endpoint: use the job's name, so cm5run can remove
         * whatever a killed job leaves behind. */
        snprintf(ch->name, sizeof(ch->name), "%s-%d", name_tag, c);
        if (fi_setname(&ch->ep->fid, ch->name, strlen(ch->name) + 1)) {
            cm5i_log(CM5I_LOG_DEBUG, "fab", "cannot name endpoint %s",
                     ch->name);
            ch->name[0] = '\0';
        }
    }
    return fi_enable(ch->ep);
}

static int fab_open_info(cm5i_fab_t *fab, const cm5i_fab_params_t *p)
{
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    size_t nslots = fab->info->tx_attr->size ? fab->info->tx_attr->size : 64;
    size_t per = p->rx_bytes / (FAB_NRXBUF - 1) + fab->msg_size;
    int rc;

    if (nslots > 256)
        nslots = 256;
    fab->inject_size = fab->info->tx_attr->inject_size;
    rc = fi_fabric(fab->info->fabric_attr, &fab->fabric, NULL);
    if (!rc)
        rc = fi_domain(fab->fabric, fab->info, &fab->domain, NULL);
    if (!rc)
        rc = fi_av_open(fab->domain, &av_attr, &fab->av, NULL);
    if (rc)
        return rc;
    fab->rx_mem = malloc(per * FAB_NRXBUF * (size_t)fab_neps(fab));
    fab->tx_mem = malloc(nslots * fab->msg_size * (size_t)fab->nch);
    if (!fab->rx_mem || !fab->tx_mem)
        return -FI_ENOMEM;
    for (int c = 0; c < fab->nch; c++) {
        if (fab->onep && c > 0) { /* the same endpoint, its own slots */
            fab->ch[c].ep = fab->ch[0].ep;
            fab->ch[c].cq = fab->ch[0].cq;
            fab->ch[c].wait_fd = fab->ch[0].wait_fd;
            rc = fab_setup_tx(fab, c, nslots);
            if (rc)
                return rc;
            continue;
        }
        rc = fab_open_ep(fab, c, p->name_tag);
        if (!rc)
            rc = fab_setup_tx(fab, c, nslots);
        if (!rc)
            rc = fab_setup_rx(fab, c, p->rx_bytes);
        if (rc)
            return rc;
    }
    return 0;
}

static void fab_close_parts(cm5i_fab_t *fab)
{
    for (int c = CM5I_NCH - 1; c >= 0; c--) {
        int alias = c > 0 && fab->ch[c].ep == fab->ch[0].ep;

        if (fab->ch[c].ep && !alias)
            fi_close(&fab->ch[c].ep->fid);
        if (fab->ch[c].cq && !alias)
            fi_close(&fab->ch[c].cq->fid);
        free(fab->ch[c].tx_slots);
        memset(&fab->ch[c], 0, sizeof(fab->ch[c]));
        while (fab->pq[c].head) {
            fab_rec_t *r = fab->pq[c].head;

            fab->pq[c].head = r->next;
            free(r);
        }
        fab->pq[c].tail = NULL;
    }
    while (fab->rec_free) {
        fab_rec_t *r = fab->rec_free;

        fab->rec_free = r->next;
        free(r);
    }
    if (fab->av)
        fi_close(&fab->av->fid);
    if (fab->domain)
        fi_close(&fab->domain->fid);
    if (fab->fabric)
        fi_close(&fab->fabric->fid);
    fab->av = NULL;
    fab->domain = NULL;
    fab->fabric = NULL;
    free(fab->rx_mem);
    free(fab->tx_mem);
    fab->rx_mem = fab->tx_mem = NULL;
}

static void fab_no_match(const char *provider)
{
    const char *env = getenv("FI_PROVIDER");

    cm5i_log(CM5I_LOG_ERROR, "fab",
             "no libfabric provider gives a reliable-datagram endpoint with "
             "multi-receive for provider '%s'%s%s%s; run cm5info to see "
             "what is usable",
             provider && *provider ? provider : "(any)",
             env ? " (FI_PROVIDER=" : "", env ? env : "", env ? ")" : "");
}

/* The same-host rings, if asked for: without them (no room, a name
 * taken, messages longer than a ring record) every packet takes
 * libfabric, which is slower but correct.  Every message to a ring peer,
 * whatever its size, goes through its ring, which keeps their order. */
static void fab_open_ring(cm5i_fab_t *fab, const cm5i_fab_params_t *p)
{
    size_t slots =
        p->ring_slots + (p->ring_bytes + CM5I_RING_SLOT - 1) / CM5I_RING_SLOT;
    int rc;

    if (!p->ring_slots || !p->name_tag || p->nep < 1)
        return;
    if (p->msg_size > CM5I_RING_REC_MAX) {
        cm5i_log(CM5I_LOG_INFO, "fab",
                 "no same-host rings: messages of %zu bytes, rings carry "
                 "at most %d: every packet takes libfabric",
                 p->msg_size, CM5I_RING_REC_MAX);
        return;
    }
    if (slots < cm5i_ring_rec_slots(p->msg_size))
        slots = cm5i_ring_rec_slots(p->msg_size);
    fab->cma = p->cma;
    rc = cm5i_ring_open(p->name_tag, p->rank, p->nep, fab->nch, slots,
                        &fab->ring);
    if (rc)
        cm5i_log(CM5I_LOG_INFO, "fab",
                 "no same-host rings (%s): every packet takes libfabric",
                 strerror(-rc));
}

/* Debian's libfabric links libpsm_infinipath, whose libinfinipath
 * installs handlers for SIGABRT, SIGSEGV, ... that print a backtrace
 * (and leave *.btr files) and call exit(1): a node that aborts would not be
 * seen to die of its signal.  It handles SIGINT and SIGTERM too, so cm5run's
 * SIGTERM ran exit() (atexit handlers, destructors) inside the signal
 * handler (TSan: "signal-unsafe call inside of a signal").  Put back the
 * default action for those handlers; called by the fabric right after
 * fi_getinfo (which loads the library), before the shm provider saves
 * them as the handlers it chains to, and again after start-up. */
const char *cm5i_fab_default_provider(int one_host)
{
    return one_host ? "shm" : "tcp";
}

int cm5i_fab_filter_allows(const char *name)
{
    const char *filter = getenv("FI_PROVIDER");
    int negate;
    const char *p;
    size_t n = strlen(name);

    if (!filter || !*filter)
        return 1;
    negate = filter[0] == '^';
    for (p = filter + negate; *p;) {
        size_t len = strcspn(p, ",");

        if (len == n && strncmp(p, name, n) == 0)
            return !negate;
        p += len + (p[len] == ',');
    }
    return negate;
}

/* Measured with libfabric 1.17 (VmSize after start-up minus before): shm
 * maps about 33 MiB per endpoint of the job, tcp about 52 MiB in all (its
 * progress thread's stack among them), udp about 10 MiB.  Short of it,
 * shm crashes (SIGSEGV in its progress), tcp and udp return -FI_EAGAIN
 * for ever (ofi_rxd: "could not get tx entry") and the job hangs. */
#define FAB_ROOM_BASE (64u << 20)
#define FAB_ROOM_SHM_PER_EP (40u << 20)

size_t cm5i_fab_room(const char *provider, int nep)
{
    int shm = provider && strcmp(provider, "shm") == 0;

    return FAB_ROOM_BASE + (shm ? (size_t)nep * FAB_ROOM_SHM_PER_EP : 0);
}

int cm5i_fab_provider_answers(const char *running, const char *name)
{
    size_t n = strlen(name);

    return strcmp(running, name) == 0 ||
           (strncmp(running, name, n) == 0 && running[n] == ';');
}

void cm5i_fab_drop_foreign_crash_handlers(void)
{
    static const int sigs[] = {SIGABRT, SIGSEGV, SIGBUS, SIGILL,
                               SIGFPE,  SIGINT,  SIGTERM};

    for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++) {
        struct sigaction sa;
        Dl_info info;
        void *h;

        if (sigaction(sigs[i], NULL, &sa) != 0)
            continue;
        h = (sa.sa_flags & SA_SIGINFO) ? (void *)sa.sa_sigaction
                                       : (void *)sa.sa_handler;
        if (h == (void *)SIG_DFL || h == (void *)SIG_IGN || !dladdr(h, &info) ||
            !info.dli_fname || !strstr(info.dli_fname, "libinfinipath"))
            continue;
        signal(sigs[i], SIG_DFL);
        if (cm5i_sweep_guards(sigs[i]))
            cm5i_sweep_guard(); /* ours again */
        cm5i_log(CM5I_LOG_DEBUG, "init", "signal %d: dropped the handler of %s",
                 sigs[i], info.dli_fname);
    }
}

/* A job too big for shm's address vector (FAB_LEAN_NODES), on the rings
 * with single copy: libfabric carries nothing unless a single copy is
 * refused (cm5i_fab_set_peers), so each node opens one endpoint with
 * short queues: shm touches a page of its region per receive-queue
 * entry (its inject buffers), 3.8 MB for each endpoint at its default
 * 1024, 7.6 GB for the two endpoints of 1024 nodes. */
#define FAB_LEAN_NODES 256
#define FAB_LEAN_QUEUE 64

static int fab_lean(const cm5i_fab_params_t *p)
{
    return p->ring_slots && p->cma && p->nep > FAB_LEAN_NODES && !p->queue;
}

/* tcp (ofi_rxm): a second endpoint is a second connection to every peer
 * and a second set of rxm's buffer pools (12.6 MB of a node's 35.9:
 * doc/bench.md, "One endpoint over tcp"): both channels share one
 * endpoint there, told apart by the completion's data (rxm gives 8 bytes
 * of it; it does not list FI_REMOTE_CQ_DATA among its capabilities). */
static int fab_onep_wanted(const cm5i_fab_params_t *p)
{
    return (p->nch <= 0 || p->nch >= CM5I_NCH) &&
           ((p->provider && strncmp(p->provider, "tcp", 3) == 0) ||
            fab_lean(p));
}

cm5_status_t cm5i_fab_open(const cm5i_fab_params_t *p, cm5i_fab_t **out)
{
    struct fi_info *hints, *list = NULL;
    cm5i_fab_t *fab;
    int rc;

    fab = calloc(1, sizeof(*fab));
    hints = fab_hints(p->provider, fab_lean(p) ? FAB_LEAN_QUEUE : p->queue);
    if (!fab || !hints) {
        free(fab);
        fi_freeinfo(hints);
        return CM5_ERR_NO_MEMORY;
    }
    fab->msg_size = p->msg_size;
    fab->nch = p->nch > 0 && p->nch < CM5I_NCH ? p->nch : CM5I_NCH;
    fab->lost_node = -1;
    fab->quiet = p->quiet;
    fab->rank = p->rank;
    fab->cma = p->cma; /* (ring peers, or adopted: cm5i_fab_cma_adopt) */
    fab_quirk_env();
    rc = fi_getinfo(FAB_API, NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    cm5i_fab_drop_foreign_crash_handlers(); /* before shm chains to them */
    if (rc) {
        if (rc == -FI_ENODATA)
            fab_no_match(p->provider);
        else
            fab_err("fi_getinfo", rc);
        free(fab);
        return rc == -FI_ENODATA ? CM5_ERR_NO_PROVIDER : CM5_ERR_FABRIC;
    }
    /* Take the first offer, in libfabric's ranking, that really opens. */
    for (struct fi_info *i = list; i; i = i->next) {
        fab->info = fi_dupinfo(i);
        if (!fab->info)
            break;
        fab->onep = fab_onep_wanted(p) && i->domain_attr->cq_data_size > 0;
        rc = fab_open_info(fab, p);
        if (rc == 0)
            break;
        cm5i_log(CM5I_LOG_INFO, "fab", "provider %s unusable: %s",
                 i->fabric_attr->prov_name, fi_strerror(-rc));
        fab_close_parts(fab);
        fi_freeinfo(fab->info);
        fab->info = NULL;
    }
    fi_freeinfo(list);
    if (!fab->info) {
        fab_no_match(p->provider);
        free(fab);
        return CM5_ERR_NO_PROVIDER;
    }
    snprintf(fab->prov, sizeof(fab->prov), "%s",
             fab->info->fabric_attr->prov_name);
    fab_open_ring(fab, p);
    cm5i_log(CM5I_LOG_DEBUG, "fab",
             "provider %s: inject %zu, tx queue %zu, rx queue %zu, "
             "wait fd %s, endpoints %d",
             fab->prov, fab->inject_size, fab->info->tx_attr->size,
             fab->info->rx_attr->size, fab->ch[0].wait_fd >= 0 ? "yes" : "no",
             fab_neps(fab));
    *out = fab;
    return CM5_OK;
}

void cm5i_fab_close(cm5i_fab_t *fab)
{
    if (!fab)
        return;
    fab_close_parts(fab);
    cm5i_ring_close(fab->ring);
    free(fab->via_ring);
    free(fab->cma_pid);
    free(fab->lean_names);
    free(fab->peers);
    fi_freeinfo(fab->info);
    free(fab);
}

void cm5i_fab_abandon(cm5i_fab_t *fab)
{
    for (int c = 0; fab && c < fab->nch; c++)
        if (fab->ch[c].name[0])
            shm_unlink(fab->ch[c].name);
    if (fab)
        cm5i_ring_abandon(fab->ring);
}

const char *cm5i_fab_provider(const cm5i_fab_t *fab) { return fab->prov; }

size_t cm5i_fab_ordered_max(const cm5i_fab_t *fab)
{
    const char *env;
    long room;

    /* See the quirk table: only ofi_rxm reorders, beyond its buffers. */
    if (!strstr(fab->prov, "ofi_rxm"))
        return SIZE_MAX;
    env = getenv("FI_OFI_RXM_BUFFER_SIZE"); /* (fab_quirk_env's default) */
    room = env && *env ? strtol(env, NULL, 10) : 2048;
    return room > 0 ? (size_t)room : 0;
}

size_t cm5i_fab_rx_loss_window(const cm5i_fab_t *fab)
{
    /* See the quirk table: only ofi_rxd drops what does not fit. */
    if (!strstr(fab->prov, "ofi_rxd"))
        return 0;
    return fab->info->rx_attr->size;
}

/* The ring's part of the address record, if this node has rings: a
 * 16-bit length and the ring's record (the runtime's records are zeroed
 * beyond what is written: a length 0, no ring, for nodes without).
 * Returns the record's new length, or 0. */
static size_t fab_ring_address(cm5i_fab_t *fab, char *p, size_t used,
                               size_t size)
{
    uint16_t l16;

    if (!fab->ring)
        return used;
    if (used + 2 + CM5I_FAB_RING_REC > size)
        return 0;
    l16 =
        (uint16_t)cm5i_ring_address(fab->ring, p + used + 2, CM5I_FAB_RING_REC);
    memcpy(p + used, &l16, 2);
    return used + 2 + l16;
}

/* The ring peers whose memory single copies may read. */
static void fab_cma_peers(cm5i_fab_t *fab, int n)
{
    int ncma = 0;

    if (!fab->cma || !(fab->cma_pid = malloc((size_t)n * sizeof(int))))
        return;
    for (int k = 0; k < n; k++) {
        fab->cma_pid[k] = fab->via_ring[k] && k != fab->rank
                              ? cm5i_ring_peer_pid(fab->ring, k)
                              : -1;
        ncma += fab->cma_pid[k] > 0;
    }
    cm5i_log(CM5I_LOG_DEBUG, "fab",
             "%d of %d peers reached by single copy (process_vm_readv)", ncma,
             n - 1);
}

int cm5i_fab_cma_ok(const cm5i_fab_t *fab, int node)
{
    return fab->cma_pid && node >= 0 && node < fab->npeers &&
           fab->cma_pid[node] > 0;
}

/* Copy len bytes between here and address far of node (write: to it). */
static cm5_status_t fab_cma_copy(cm5i_fab_t *fab, int node, void *here,
                                 uint64_t far, size_t len, int write)
{
    size_t done = 0;
    int err = 0;

    if (!cm5i_fab_cma_ok(fab, node))
        return CM5_ERR_STATE;
    if (FAB_UNLIKELY(fab->fault[CM5I_FAB_FAULT_CMA] > 0)) {
        fab->fault[CM5I_FAB_FAULT_CMA]--;
        err = EPERM;
    }
    /* (A 32-bit node cannot name a 64-bit peer's addresses.) */
    if (far > (uint64_t)UINTPTR_MAX - len)
        err = EFAULT;
    while (!err && done < len) {
        struct iovec l = {(char *)here + done, len - done};
        struct iovec r = {(void *)(uintptr_t)(far + done), len - done};
        ssize_t n = write
                        ? process_vm_writev(fab->cma_pid[node], &l, 1, &r, 1, 0)
                        : process_vm_readv(fab->cma_pid[node], &l, 1, &r, 1, 0);

        if (n > 0)
            done += (size_t)n;
        else if (n < 0 && errno == EINTR)
            continue;
        else
            err = n < 0 ? errno : EIO;
    }
    if (!err)
        return CM5_OK;
    /* Refused by the kernel (ptrace access mode, Yama, seccomp) or the
     * peer is gone: its data takes the tagged path from now on. */
    cm5i_log(CM5I_LOG_DEBUG, "fab",
             "node %d: no single copy (%s: %s): libfabric", node,
             write ? "process_vm_writev" : "process_vm_readv", strerror(err));
    fab->cma_pid[node] = -2; /* (refused: never adopted again) */
    return CM5_ERR_STATE;
}

cm5_status_t cm5i_fab_cma_read(cm5i_fab_t *fab, int node, void *dst,
                               uint64_t src, size_t len)
{
    return fab_cma_copy(fab, node, dst, src, len, 0);
}

cm5_status_t cm5i_fab_cma_write(cm5i_fab_t *fab, int node, uint64_t dst,
                                const void *src, size_t len)
{
    return fab_cma_copy(fab, node, (void *)src, dst, len, 1);
}

void cm5i_fab_cma_adopt(cm5i_fab_t *fab, int node, int pid)
{
    if (!fab->cma || node < 0 || node >= fab->npeers || node == fab->rank ||
        pid <= 0)
        return;
    if (!fab->cma_pid) {
        fab->cma_pid = malloc((size_t)fab->npeers * sizeof(int));
        if (!fab->cma_pid)
            return;
        for (int k = 0; k < fab->npeers; k++)
            fab->cma_pid[k] = -1;
    }
    if (fab->cma_pid[node] == -1)
        fab->cma_pid[node] = pid;
}

/* Connect the ring peers, from their records' ring parts. */
static cm5_status_t fab_ring_peers(cm5i_fab_t *fab, int n, const void *addrs,
                                   size_t stride, const size_t *ring_off,
                                   int rank)
{
    int nring = 0;

    if (!fab->ring)
        return CM5_OK;
    fab->via_ring = calloc((size_t)n, 1);
    if (!fab->via_ring)
        return CM5_ERR_NO_MEMORY;
    for (int k = 0; k < n; k++) {
        const char *rec = (const char *)addrs + (size_t)k * stride;
        uint16_t len = 0;

        if (ring_off[k] + 2 + CM5I_FAB_RING_REC <= stride)
            memcpy(&len, rec + ring_off[k], 2);
        /* The launcher puts it on another host: the fabric, whatever the
         * rings would find (both ends read the same locality). */
        if (fab->near && !fab->near[k] && k != rank) {
            cm5i_log(CM5I_LOG_DEBUG, "fab",
                     "node %d: on another host by the launcher: libfabric", k);
            len = 0;
        }
        fab->via_ring[k] =
            (uint8_t)(len && cm5i_ring_connect(fab->ring, k,
                                               rec + ring_off[k] + 2, len));
        nring += fab->via_ring[k];
        fab->ring_others += fab->via_ring[k] && k != rank;
    }
    fab->all_ring = nring == n;
    fab_cma_peers(fab, n);
    cm5i_ring_connected(fab->ring);
    cm5i_log(CM5I_LOG_DEBUG, "fab",
             "%d of %d endpoints reached through same-host rings", nring, n);
    return CM5_OK;
}

/* Address record: for each channel, a 16-bit length and the name; then
 * the ring's part. */
size_t cm5i_fab_address(cm5i_fab_t *fab, void *buf, size_t size)
{
    char *p = buf;
    size_t used = 0;

    for (int c = 0; c < fab_neps(fab); c++) {
        size_t len = CM5I_FAB_NAME_MAX;
        uint16_t l16;

        if (used + 2 + len > size)
            return 0;
        if (fi_getname(&fab->ch[c].ep->fid, p + used + 2, &len))
            return 0;
        l16 = (uint16_t)len;
        memcpy(p + used, &l16, 2);
        used += 2 + len;
    }
    return fab_ring_address(fab, p, used, size);
}

/* Does node k's endpoint of channel c go into the address vector?  A
 * ring peer's packets, replies included, all take its ring (cm5i_fab_send
 * looks there first): libfabric carries only its bulk data, the tagged
 * operations on the request endpoint.  So a one-host job inserts one
 * address per node, and libfabric 1.17's shm, whose address vector holds
 * 256 endpoints, runs 256 nodes instead of 128. */
static int fab_av_wanted(const cm5i_fab_t *fab, int k, int c)
{
    if (c == CM5I_CH_REQ)
        return !(fab->av_lean && cm5i_fab_cma_ok(fab, k));
    return !cm5i_fab_via_ring(fab, k);
}

/* A lean address vector's record of node k's request endpoint: a 16-bit
 * length and the name (cm5i_fab_set_peers). */
static char *fab_lean_name(const cm5i_fab_t *fab, int k)
{
    return fab->lean_names + (size_t)k * (2 + CM5I_FAB_NAME_MAX);
}

/* Addresses this node inserts; *nring gets its ring peers. */
static size_t fab_av_need(const cm5i_fab_t *fab, int n, int *nring)
{
    size_t need = 0;

    *nring = 0;
    for (int k = 0; k < n; k++) {
        *nring += cm5i_fab_via_ring(fab, k);
        for (int c = 0; c < fab_neps(fab); c++)
            need += (size_t)fab_av_wanted(fab, k, c);
    }
    return need;
}

/* The job has more endpoints than the provider's domain holds: one line
 * that names the limit and the ways out.  Every node finds the same
 * (on one host), so node 0 says it and the others give it the time to
 * end the job (cm5run stops it at the first node that exits); a node
 * that is still there after that says it too. */
static void fab_too_many(const cm5i_fab_t *fab, int n, size_t need, int nring)
{
    size_t cap = fab->info->domain_attr->ep_cnt;
    const char *prov = fab->info->fabric_attr->prov_name;
    struct timespec ts = {5, 0};

    if (fab->rank != 0)
        nanosleep(&ts, NULL);
    if (nring == 0)
        cm5i_log(CM5I_LOG_ERROR, "fab",
                 "%d nodes are too many for provider %s on libfabric's "
                 "path: it holds at most %zu endpoint addresses, the job "
                 "needs %zu (%d per node): use at most %zu nodes, or the "
                 "same-host rings (no --provider, CM5_SHM not off: one "
                 "address per node, none with single copy, up to 1024 "
                 "nodes on one host), or --provider tcp",
                 n, prov, cap, need, fab_neps(fab),
                 cap / (size_t)fab_neps(fab));
    else
        cm5i_log(CM5I_LOG_ERROR, "fab",
                 "%d nodes are too many for provider %s: it holds at most "
                 "%zu endpoint addresses, the job needs %zu (%d nodes on "
                 "same-host rings x 1, %d others x %d): use at most %zu "
                 "nodes on one host, single copy (CM5_CMA not off: ring "
                 "peers then need no address), or --provider tcp",
                 n, prov, cap, need, nring, n - nring, fab_neps(fab), cap);
}

/* The offset of each record's ring part, after its channels' names. */
static void fab_ring_offsets(const cm5i_fab_t *fab, int n, const void *addrs,
                             size_t stride, size_t *ring_off)
{
    for (int k = 0; k < n; k++) {
        const char *rec = (const char *)addrs + (size_t)k * stride;
        size_t used = 0;

        for (int c = 0; c < fab_neps(fab); c++) {
            uint16_t len;

            memcpy(&len, rec + used, 2);
            used += 2 + len;
        }
        ring_off[k] = used;
    }
}

/* Insert the addresses libfabric may use; the others stay
 * FI_ADDR_NOTAVAIL, which cm5i_fab_send refuses. */
static cm5_status_t fab_av_insert(cm5i_fab_t *fab, int n, const void *addrs,
                                  size_t stride)
{
    for (int k = 0; k < n; k++) {
        const char *rec = (const char *)addrs + (size_t)k * stride;
        size_t used = 0;

        for (int c = 0; c < fab_neps(fab); c++) {
            fi_addr_t *a = &fab->peers[k * CM5I_NCH + c];
            uint16_t len;
            int rc = 1;

            memcpy(&len, rec + used, 2);
            *a = FI_ADDR_NOTAVAIL;
            if (fab_av_wanted(fab, k, c))
                rc = fi_av_insert(fab->av, rec + used + 2, 1, a, 0, NULL);
            else if (c == CM5I_CH_REQ && fab->lean_names &&
                     len <= CM5I_FAB_NAME_MAX)
                memcpy(fab_lean_name(fab, k), rec + used, 2 + (size_t)len);
            if (rc != 1) {
                cm5i_log(CM5I_LOG_ERROR, "fab",
                         "fi_av_insert of node %d failed (%d)", k, rc);
                return CM5_ERR_FABRIC;
            }
            used += 2 + len;
        }
        /* One endpoint: the reply channel's address is the same one (a
         * ring peer's, whose replies take the ring, stays unused). */
        if (fab->onep)
            for (int c = 1; c < fab->nch; c++)
                fab->peers[k * CM5I_NCH + c] = fab_av_wanted(fab, k, c)
                                                   ? fab->peers[k * CM5I_NCH]
                                                   : FI_ADDR_NOTAVAIL;
    }
    return CM5_OK;
}

cm5_status_t cm5i_fab_set_peers(cm5i_fab_t *fab, int n, const void *addrs,
                                size_t stride)
{
    size_t *ring_off = calloc((size_t)n, sizeof(*ring_off));
    size_t cap = fab->info->domain_attr->ep_cnt, need;
    cm5_status_t st;
    int nring;

    fab->peers = calloc((size_t)n * CM5I_NCH, sizeof(*fab->peers));
    if (!fab->peers || !ring_off) {
        free(ring_off);
        return CM5_ERR_NO_MEMORY;
    }
    fab->npeers = n;
    /* The rings first: they decide which addresses libfabric needs. */
    fab_ring_offsets(fab, n, addrs, stride, ring_off);
    st = fab_ring_peers(fab, n, addrs, stride, ring_off, fab->rank);
    free(ring_off);
    if (st != CM5_OK)
        return st;
    need = fab_av_need(fab, n, &nring);
    /* More than the provider holds: the ring peers that single copies
     * reach need no address while the kernel lets us read them (1024
     * nodes on one host over shm, whose address vector holds 256). */
    if (cap && need > cap && fab->cma_pid) {
        fab->av_lean = 1;
        fab->lean_names = calloc((size_t)n, 2 + CM5I_FAB_NAME_MAX);
        if (!fab->lean_names)
            return CM5_ERR_NO_MEMORY;
        need = fab_av_need(fab, n, &nring);
        if (need <= cap && fab->rank == 0)
            cm5i_log(CM5I_LOG_INFO, "fab",
                     "%d nodes: more than provider %s's %zu addresses; the "
                     "%d ring peers read by single copy get none (libfabric "
                     "would carry only data whose single copy the kernel "
                     "refused)",
                     n, fab->info->fabric_attr->prov_name, cap, nring);
    }
    /* CM5_ERR_INVALID, as for a bad variable: the line said it all. */
    if (cap && need > cap) {
        fab_too_many(fab, n, need, nring);
        return CM5_ERR_INVALID;
    }
    return fab_av_insert(fab, n, addrs, stride);
}

void cm5i_fab_set_near(cm5i_fab_t *fab, const unsigned char *near)
{
    fab->near = near;
}

int cm5i_fab_via_ring(const cm5i_fab_t *fab, int node)
{
    return fab->via_ring && node >= 0 && node < fab->npeers &&
           fab->via_ring[node];
}

void cm5i_fab_counts(const cm5i_fab_t *fab, cm5i_fab_counts_t *out)
{
    *out = fab->counts;
}

void cm5i_fab_peer_string(cm5i_fab_t *fab, int node, char *buf, size_t size)
{
    char addr[CM5I_FAB_NAME_MAX];
    size_t alen = sizeof(addr), slen = size;

    if (size == 0)
        return;
    buf[0] = '\0';
    if (node < 0 || node >= fab->npeers ||
        fi_av_lookup(fab->av, fab->peers[node * CM5I_NCH], addr, &alen) ||
        alen > sizeof(addr) || !fi_av_straddr(fab->av, addr, buf, &slen))
        buf[0] = '\0';
    buf[size - 1] = '\0';
}

/* A lean address vector (cm5i_fab_set_peers): a ring peer whose single
 * copy the kernel refused gets its address now; CM5_OK, or one line. */
static cm5_status_t fab_lean_insert(cm5i_fab_t *fab, int node)
{
    const char *rec;
    uint16_t len;
    fi_addr_t *a = &fab->peers[node * CM5I_NCH + CM5I_CH_REQ];
    int rc;

    if (!fab->lean_names)
        return CM5_ERR_STATE;
    rec = fab_lean_name(fab, node);
    memcpy(&len, rec, 2);
    if (!len)
        return CM5_ERR_STATE;
    rc = fi_av_insert(fab->av, rec + 2, 1, a, 0, NULL);
    if (rc != 1) {
        *a = FI_ADDR_NOTAVAIL;
        cm5i_log(CM5I_LOG_ERROR, "fab",
                 "node %d: the kernel refused a single copy from it, and "
                 "provider %s has no room for its address (%d nodes, more "
                 "than its address vector holds: fi_av_insert %d): run "
                 "fewer nodes on one host, or where process_vm_readv is "
                 "allowed between the job's processes",
                 node, fab->info->fabric_attr->prov_name, fab->npeers, rc);
        return CM5_ERR_FABRIC;
    }
    if (fab->onep)
        for (int c = 1; c < fab->nch; c++)
            fab->peers[node * CM5I_NCH + c] = *a;
    cm5i_log(CM5I_LOG_DEBUG, "fab",
             "node %d: its address inserted (a single copy was refused)", node);
    return CM5_OK;
}

/* A send to an address not in the address vector (fab_av_wanted): a
 * bug, never a peer's fault. */
static cm5_status_t fab_no_addr(int node, int c)
{
    cm5i_log(CM5I_LOG_ERROR, "fab",
             "internal error: node %d's %s endpoint has no libfabric address "
             "(a same-host ring peer's packets take its ring)",
             node, c == CM5I_CH_REQ ? "request" : "reply");
    return CM5_ERR_STATE;
}

cm5_status_t cm5i_fab_send(cm5i_fab_t *fab, int c, int node, const void *msg,
                           size_t len)
{
    fab_chan_t *ch = &fab->ch[c];
    fi_addr_t dest;
    fab_txslot_t *s;
    ssize_t rc;

    if (fab->via_ring && fab->via_ring[node]) {
        cm5_status_t st = cm5i_ring_send(fab->ring, c, node, msg, len);

        fab->counts.ring_sent += st == CM5_OK;
        return st;
    }
    dest = fab->peers[node * CM5I_NCH + c];
    if (FAB_UNLIKELY(dest == FI_ADDR_NOTAVAIL))
        return fab_no_addr(node, c);
    if (len <= fab->inject_size && !fab->tracked) {
        rc = fab->onep ? fi_injectdata(ch->ep, msg, len, (uint64_t)c, dest)
                       : fi_inject(ch->ep, msg, len, dest);
        if (rc == 0) {
            fab->counts.fab_sent++;
            return CM5_OK;
        }
        return rc == -FI_EAGAIN ? CM5_ERR_AGAIN
                                : fab_data_err(fab, "fi_inject", (int)rc);
    }
    s = ch->tx_free;
    if (!s)
        return CM5_ERR_AGAIN;
    memcpy(s->op.buf, msg, len);
    s->op.node = node;
    rc = fab->onep ? fi_senddata(ch->ep, s->op.buf, len, NULL, (uint64_t)c,
                                 dest, &s->op.ctx)
                   : fi_send(ch->ep, s->op.buf, len, NULL, dest, &s->op.ctx);
    if (rc == 0) {
        ch->tx_free = s->op.next;
        fab->tx_pending++;
        fab->counts.fab_sent++;
        return CM5_OK;
    }
    return rc == -FI_EAGAIN ? CM5_ERR_AGAIN
                            : fab_data_err(fab, "fi_send", (int)rc);
}

cm5_status_t cm5i_fab_tsend(cm5i_fab_t *fab, int node, uint64_t tag,
                            const void *buf, size_t len, cm5i_fab_op_t *op)
{
    fi_addr_t dest = fab->peers[node * CM5I_NCH + CM5I_CH_REQ];
    ssize_t rc;

    if (FAB_UNLIKELY(dest == FI_ADDR_NOTAVAIL)) {
        if (!fab->av_lean)
            return fab_no_addr(node, CM5I_CH_REQ);
        if (fab_lean_insert(fab, node) != CM5_OK)
            return CM5_ERR_FABRIC;
        dest = fab->peers[node * CM5I_NCH + CM5I_CH_REQ];
    }
    op->kind = FAB_CTX_USER;
    rc = fi_tsend(fab->ch[CM5I_CH_REQ].ep, buf, len, NULL, dest, tag,
                  op->fi_ctx);
    if (rc == 0) {
        fab->bulk_pending++;
        return CM5_OK;
    }
    return rc == -FI_EAGAIN ? CM5_ERR_AGAIN : fab_err("fi_tsend", (int)rc);
}

cm5_status_t cm5i_fab_trecv(cm5i_fab_t *fab, uint64_t tag, void *buf,
                            size_t len, cm5i_fab_op_t *op)
{
    ssize_t rc;

    op->kind = FAB_CTX_USER;
    rc = fi_trecv(fab->ch[CM5I_CH_REQ].ep, buf, len, NULL, FI_ADDR_UNSPEC, tag,
                  0, op->fi_ctx);
    if (rc == 0) {
        fab->bulk_pending++;
        return CM5_OK;
    }
    return rc == -FI_EAGAIN ? CM5_ERR_AGAIN : fab_err("fi_trecv", (int)rc);
}

/* A send completed (or failed): its slot is free again. */
static void fab_tx_done(cm5i_fab_t *fab, fab_op_t *op)
{
    fab_chan_t *ch = &fab->ch[op->chan]; /* (one endpoint: either's) */

    fab->tx_pending--;
    op->next = ch->tx_free;
    ch->tx_free = (fab_txslot_t *)op;
}

/* Buffer rx[i] of a channel, or -1. */
static int fab_rx_index(const fab_chan_t *ch, const fab_op_t *op)
{
    if (op < ch->rx || op >= ch->rx + FAB_NRXBUF)
        return -1;
    return (int)(op - ch->rx);
}

/* An operation completed with an error (read from the queue, or
 * injected): returns the status for the caller of cm5i_fab_poll. */
static int fab_op_error(cm5i_fab_t *fab, fab_chan_t *ch,
                        const struct fi_cq_err_entry *err)
{
    cm5i_fab_op_t *uop = err->op_context;
    fab_op_t *op = err->op_context;

    if (uop && uop->kind == FAB_CTX_USER) {
        fab->bulk_pending--;
        /* A bulk transfer failed: its owner reports it. */
        cm5i_log(CM5I_LOG_DEBUG, "fab", "bulk transfer failed: %s",
                 fi_strerror(err->err));
        uop->done(uop->arg,
                  err->err == FI_ETRUNC ? CM5_ERR_INVALID : CM5_ERR_PEER,
                  err->len);
        return 0;
    }
    if (op && op->kind == FAB_CTX_TX) {
        fab->lost_node = op->node;
        fab_tx_done(fab, op);
    }
    /* A receive buffer the provider gave back (FI_MULTI_RECV) is posted
     * again whatever happened to the message in it. */
    if (op && op->kind == FAB_CTX_RX && (err->flags & FI_MULTI_RECV) &&
        fab_rx_index(ch, op) >= 0)
        fab_repost(fab, ch, fab_rx_index(ch, op));
    /* The caller reports the failure (after giving the launcher time to
     * name a node that died); the provider's words are for debugging. */
    cm5i_log(fab->quiet ? CM5I_LOG_DEBUG : CM5I_LOG_INFO, "fab",
             "completion error: %s (%s)", fi_strerror(err->err),
             fi_cq_strerror(ch->cq, err->prov_errno, err->err_data, NULL, 0));
    return err->err == FI_ETRUNC ? CM5_ERR_INVALID : CM5_ERR_PEER;
}

static int fab_cq_error(cm5i_fab_t *fab, fab_chan_t *ch)
{
    struct fi_cq_err_entry err = {0};

    if (fi_cq_readerr(ch->cq, &err, 0) < 0)
        return fab_err("fi_cq_readerr", -FI_EOTHER);
    return fab_op_error(fab, ch, &err);
}

/* An injected send-completion error (cm5i_fab_fault): op failed. */
static int fab_fault_send(cm5i_fab_t *fab, fab_chan_t *ch, fab_op_t *op)
{
    struct fi_cq_err_entry err = {.op_context = op, .err = FI_EIO};

    fab->fault[CM5I_FAB_FAULT_SEND_COMPLETION]--;
    return fab_op_error(fab, ch, &err);
}

/* One endpoint: a received message goes to its channel's queue (the
 * completion's data names it), copied out of the receive buffer, which
 * may be posted again at once.  Messages of the channel being polled go
 * there too, so that a poll nested in a callback (a handler's poll for
 * replies) hands them out in order.  The queues are bounded by flow
 * control: credits bound requests in flight, requests bound replies. */
static int fab_pq_put(cm5i_fab_t *fab, int polled,
                      const struct fi_cq_data_entry *e)
{
    uint64_t c = (e->flags & FI_REMOTE_CQ_DATA) ? e->data : CM5I_CH_REQ;
    fab_rec_t *r = fab->rec_free;

    if (c >= CM5I_NCH)
        return fab_data_err(fab, "a message for no channel", -FI_EINVAL);
    if (e->len > fab->msg_size)
        return fab_data_err(fab, "a message longer than the largest",
                            -FI_ETRUNC);
    if (r)
        fab->rec_free = r->next;
    else if (!(r = malloc(sizeof(*r) + fab->msg_size)))
        return CM5_ERR_NO_MEMORY;
    r->next = NULL;
    r->len = e->len;
    memcpy(r->data, e->buf, e->len);
    if (fab->pq[c].tail)
        fab->pq[c].tail->next = r;
    else
        fab->pq[c].head = r;
    fab->pq[c].tail = r;
    /* A request read while only replies are polled (in a handler) waits
     * in its queue, where no file descriptor tells the interrupt thread,
     * asleep on the queue's: wake it. */
    if ((int)c != polled)
        fi_cq_signal(fab->ch[0].cq);
    return 0;
}

/* Hand out channel c's queued messages, oldest first, at most max. */
static int fab_pq_take(cm5i_fab_t *fab, int c, int max, cm5i_fab_rx_func_t cb,
                       void *arg)
{
    fab_pq_t *q = &fab->pq[c];
    int n = 0;

    while (q->head && n < max) {
        fab_rec_t *r = q->head;

        /* (off the queue before the call: a nested poll goes on after
         * it) */
        q->head = r->next;
        if (!q->head)
            q->tail = NULL;
        cb(arg, c, r->data, r->len);
        r->next = fab->rec_free;
        fab->rec_free = r;
        n++;
    }
    return n;
}

static int fab_complete(cm5i_fab_t *fab, fab_chan_t *ch, int c,
                        const struct fi_cq_data_entry *e, cm5i_fab_rx_func_t cb,
                        void *arg, int *nrx)
{
    fab_op_t *op = e->op_context;

    if (op && op->kind == FAB_CTX_USER) {
        cm5i_fab_op_t *uop = e->op_context;

        fab->bulk_pending--;
        uop->done(uop->arg, 0, e->len);
        return 0;
    }
    if (op && op->kind == FAB_CTX_TX &&
        FAB_UNLIKELY(fab->fault[CM5I_FAB_FAULT_SEND_COMPLETION] > 0))
        return fab_fault_send(fab, ch, op);
    if (op && op->kind == FAB_CTX_TX) {
        fab_tx_done(fab, op);
        return 0;
    }
    if ((e->flags & FI_RECV) && e->len > 0) {
        fab->counts.fab_received++;
        if (fab->onep) {
            int rc = fab_pq_put(fab, c, e);

            if (rc)
                return rc;
        } else {
            cb(arg, c, e->buf, e->len);
            (*nrx)++;
        }
    }
    if ((e->flags & FI_MULTI_RECV) && fab_rx_index(ch, op) >= 0)
        fab_repost(fab, ch, fab_rx_index(ch, op));
    return 0;
}

/* Every peer on the rings and no libfabric operation of ours in flight:
 * the completion queue can have nothing for us but a stray message, so
 * it is read only every FAB_RING_SKIP polls (the provider's progress
 * costs more than the rings'). */
#define FAB_RING_SKIP 64
static int fab_skip_cq(cm5i_fab_t *fab, const fab_chan_t *ch)
{
    return fab->all_ring && !fab->tx_pending && !fab->bulk_pending &&
           !ch->rx_retry && (++fab->skips % FAB_RING_SKIP) != 0;
}

int cm5i_fab_poll(cm5i_fab_t *fab, int c, cm5i_fab_rx_func_t cb, void *arg)
{
    /* (one endpoint: its queue is read into the channels' queues, then
     * channel c's are handed out) */
    fab_chan_t *ch = &fab->ch[fab->onep ? 0 : c];
    struct fi_cq_data_entry e[FAB_CQ_BATCH];
    int nrx = 0, st = 0;
    ssize_t n;

    if (fab->ring) {
        nrx = cm5i_ring_poll(fab->ring, c, FAB_CQ_BATCH, cb, arg);
        fab->counts.ring_received += (uint64_t)nrx;
        if (fab_skip_cq(fab, &fab->ch[c]))
            return nrx;
    }
    if (FAB_UNLIKELY(ch->rx_retry))
        fab_retry_rx(fab, ch);
    n = fi_cq_read(ch->cq, e, FAB_CQ_BATCH);
    if (n == -FI_EAVAIL)
        st = fab_cq_error(fab, ch);
    else if (n < 0 && n != -FI_EAGAIN)
        return fab_data_err(fab, "fi_cq_read", (int)n);
    /* Every completion of the batch is handled, even after an error. */
    for (ssize_t i = 0; i < n; i++) {
        int rc = fab_complete(fab, ch, c, &e[i], cb, arg, &nrx);

        if (rc && !st)
            st = rc;
    }
    if (fab->onep)
        nrx += fab_pq_take(fab, c, FAB_CQ_BATCH, cb, arg);
    return st ? st : nrx;
}

void cm5i_fab_track_sends(cm5i_fab_t *fab) { fab->tracked = 1; }

long cm5i_fab_sends_pending(const cm5i_fab_t *fab) { return fab->tx_pending; }

long cm5i_fab_bulk_pending(const cm5i_fab_t *fab) { return fab->bulk_pending; }

int cm5i_fab_lost_node(const cm5i_fab_t *fab) { return fab->lost_node; }

int cm5i_fab_wait_fds(const cm5i_fab_t *fab, int *fds)
{
    /* A packet in a ring wakes no file descriptor: with ring peers other
     * than ourselves, waits sleep on the doorbell (which senders ring). */
    if (fab->ring_others)
        return 0;
    return cm5i_fab_endpoint_fds(fab, fds);
}

int cm5i_fab_endpoint_fds(const cm5i_fab_t *fab, int *fds)
{
    /* (one endpoint: both channels' entries are its descriptor, so a
     * caller may index them by channel) */
    for (int c = 0; c < fab->nch; c++) {
        if (fab->ch[c].wait_fd < 0)
            return 0;
        fds[c] = fab->ch[c].wait_fd;
    }
    return fab->nch;
}

int cm5i_fab_trywait(cm5i_fab_t *fab)
{
    struct fid *fids[CM5I_NCH];

    for (int c = 0; c < fab->nch; c++)
        if (fab->ch[c].rx_retry || /* a buffer waits: poll, do not sleep */
            fab->pq[c].head)       /* (or messages do) */
            return 0;
    for (int c = 0; c < fab_neps(fab); c++)
        fids[c] = &fab->ch[c].cq->fid;
    return fi_trywait(fab->fabric, fids, fab_neps(fab)) == FI_SUCCESS;
}

/* cm5info: which providers offer what we need, and why not the others. */
static int fab_try(const char *prov, char *why, size_t whylen)
{
    cm5i_fab_params_t p = {.provider = prov, .msg_size = 64, .rx_bytes = 4096};
    cm5i_fab_t *fab = NULL;
    int level = cm5i_log_level;
    cm5_status_t st;

    cm5i_log_level = CM5I_LOG_NONE;
    st = cm5i_fab_open(&p, &fab);
    cm5i_log_level = level;
    if (st == CM5_OK) {
        cm5i_fab_close(fab);
        return 1;
    }
    snprintf(why, whylen, "%s",
             st == CM5_ERR_NO_PROVIDER
                 ? "no reliable-datagram endpoint with multi-receive"
                 : "endpoint does not open here");
    return 0;
}

int cm5i_fab_list(cm5i_fab_list_func_t cb, void *arg)
{
    struct fi_info *list = NULL;
    char seen[32][64];
    int nseen = 0;

    fab_quirk_env();
    if (fi_getinfo(FAB_API, NULL, NULL, 0, NULL, &list))
        return 0;
    for (struct fi_info *i = list; i && nseen < 32; i = i->next) {
        const char *name = i->fabric_attr->prov_name;
        char why[128] = "";
        int dup = 0;

        for (int k = 0; k < nseen; k++)
            dup |= strcmp(seen[k], name) == 0;
        if (dup)
            continue;
        snprintf(seen[nseen++], sizeof(seen[0]), "%s", name);
        cb(arg, name, fab_try(name, why, sizeof(why)), why);
    }
    fi_freeinfo(list);
    return nseen;
}

const char *cm5i_fab_version(void)
{
    static char v[32];
    uint32_t ver = fi_version();

    snprintf(v, sizeof(v), "%u.%u", FI_MAJOR(ver), FI_MINOR(ver));
    return v;
}

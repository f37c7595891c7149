/*
 * The same-host fast path (shmring.h): one multi-producer,
 * single-consumer queue per node and channel in shared memory.
 *
 * Segment of node R (the same size whatever the job's node count):
 *   header (64 bytes): magic, nonce, geometry, how many peers mapped it
 *   per channel: tail (the senders') and head (R's) on cache lines of
 *     their own, 64-bit indices, then `slots` slots of 64 bytes
 *
 * A sender reserves the slots of a packet or record by a compare-and-
 * swap of the tail (when the head it last read leaves room; else it
 * reads the head again, and CM5_ERR_AGAIN when there is none), writes
 * them, and publishes the first slot's stamp (the index + 1, release)
 * last.  R reads its queue in index order: the slot at its head is a
 * packet when its stamp and length word say it is this index's, and R
 * frees slots by a release store of the head after copying them out.
 * Each sender's reservations follow its sends, so a sender's packets of
 * a channel, records included, arrive in its order; the senders' are
 * interleaved in the order they reserved.  A sender that reserved and
 * has not yet published holds R's later packets back until it has (a
 * copy of at most one record: a preempted sender delays them one time
 * slice).
 *
 * Memory grows linearly with the node count, not with its square: one
 * queue per node (at most 256 MiB / (nodes x channels) a queue, within
 * CM5I_RING_Q_MIN .. CM5I_RING_Q_MAX slots, so each node's mappings of
 * every peer's queue stay within 256 MiB of address space), against a
 * ring per pair before (2026-11: each node's segment grew with N and its
 * mappings with N^2: 64 MiB a node, 64 GiB of address space at 1024
 * nodes).  Senders may not fill a queue from the credit windows of
 * every peer at once: a full queue is CM5_ERR_AGAIN, on which the
 * runtime's sender waits, draining its own queues (am_packet.c), as on
 * libfabric's shm, whose receive queue every sender shares too.
 *
 * A record longer than one slot's payload (an eager message: its packet
 * and data) takes cm5i_ring_rec_slots(len) consecutive slots: the first
 * slot's length word gives the whole length, and the bytes run on from
 * its payload across the next slots, length words included (the slots
 * read as one circular array of bytes; a record that reaches the end
 * continues at the start).  Its stamp is published after all its bytes,
 * so a record is delivered whole.
 */
#include "fabric/shmring.h"

#include <errno.h>
#include <fcntl.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "am_util.h"

#define RING_MAGIC 0x636d35726e673034ull /* "cm5rng04" */
#define RING_LINE 64
#define RING_NAME_MAX 64
#define RING_LIKELY(x) __builtin_expect(!!(x), 1)
#define RING_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define RING_REC (RING_NAME_MAX + 8 + 8) /* name, nonce, host */
/* A slot's length word: the length (low 16 bits) and, in the high 16,
 * the high 16 bits of the 48-bit index whose low 32 are its stamp, plus
 * one: no slot written a lap or 65535 x 2^32 slots before (nor zeroed
 * memory) can match. */
#define RING_LENW(len, idx)                                                    \
    ((uint32_t)(len) | (uint32_t)(uint16_t)(((idx) >> 32) + 1u) << 16)
#define RING_LEN(word) ((word)&0xffffu)
/* Jobs whose nodes map their peers' segments populated (ring_map_peer). */
#define RING_POPULATE_NODES 64
/* The address space a node's mappings of every peer's queues may take. */
#define RING_MAP_BUDGET ((size_t)256 << 20)
_Static_assert(CM5I_FAB_RING_REC >= 2 + RING_REC,
               "a ring record fits its room in the address record");

typedef struct {
    uint64_t magic, nonce;
    uint32_t nep, nch, slots, pad;
    _Atomic uint32_t mapped; /* peers (and the owner) that mapped it */
    int32_t pid;             /* the owner, for single-copy transfers */
    uint64_t pid_ns;         /* its pid namespace (the inode) */
} ring_hdr_t;

typedef struct {
    alignas(RING_LINE) _Atomic uint64_t tail; /* reserved by the senders */
    alignas(RING_LINE) _Atomic uint64_t head; /* written by the owner */
} ring_ctl_t;

/* A slot's stamp is the low 32 bits of the index of the packet or
 * record that starts in it, plus one, written last with release (after
 * the length word, RING_LENW): the owner finds its next packet by the
 * stamp and length word of the slot at its head.  The slots a record
 * spans past its first carry its bytes in their length and stamp words;
 * the owner clears those once read, so a record's bytes never pass for
 * a header. */
typedef struct {
    uint32_t len;
    _Atomic uint32_t stamp;
    unsigned char data[CM5I_RING_MSG_MAX];
} ring_slot_t;

_Static_assert(sizeof(ring_hdr_t) <= RING_LINE, "the header is one line");
_Static_assert(sizeof(ring_ctl_t) == 2 * RING_LINE, "two lines of indices");
_Static_assert(sizeof(ring_slot_t) == RING_LINE, "a slot is one line");
_Static_assert(sizeof(ring_slot_t) == CM5I_RING_SLOT, "the slot size");
_Static_assert(offsetof(ring_slot_t, data) + CM5I_RING_MSG_MAX ==
                   CM5I_RING_SLOT,
               "a record's bytes start after its first length word");

struct cm5i_ring {
    int rank, nep, nch;
    uint32_t slots; /* per queue, a power of two */
    size_t q_len, seg_len;
    char name[RING_NAME_MAX];
    uint64_t nonce;
    uint64_t host;     /* this host, as the network sees it (ring_host) */
    char *own;         /* this node's segment */
    char **seg;        /* each node's segment mapped here, or NULL */
    uint64_t pid_ns;   /* this process's pid namespace, 0 if unknown */
    uint64_t *tx_head; /* per node and channel: its head as last read */
    uint64_t rx_head[CM5I_NCH];
    int expected; /* ring peers, the owner included */
    int unlinked;
};

/* FNV-1a over len bytes. */
static uint64_t ring_fnv(uint64_t h, const void *p, size_t len)
{
    const unsigned char *b = p;

    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* Nodes share a host when they share the kernel (boot id), the host
 * name and the network namespace: nodes in network namespaces of their
 * own are hosts of their own to libfabric (tests/cluster's simulated
 * hosts share /dev/shm, and a cut link must stay cut). */
uint64_t cm5i_ring_host(void)
{
    uint64_t h = 0xcbf29ce484222325ull;
    char buf[256] = "";
    struct stat st;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

    if (f) {
        if (!fgets(buf, sizeof(buf), f))
            buf[0] = '\0';
        fclose(f);
    }
    h = ring_fnv(h, buf, strlen(buf));
    if (gethostname(buf, sizeof(buf)) == 0)
        h = ring_fnv(h, buf, strnlen(buf, sizeof(buf)));
    if (stat("/proc/self/ns/net", &st) == 0) {
        h = ring_fnv(h, &st.st_dev, sizeof(st.st_dev));
        h = ring_fnv(h, &st.st_ino, sizeof(st.st_ino));
    }
    return h;
}

static ring_ctl_t *ring_at(char *seg, const cm5i_ring_t *r, int ch)
{
    return (ring_ctl_t *)(seg + RING_LINE + (size_t)ch * r->q_len);
}

static ring_slot_t *ring_slot(ring_ctl_t *c, const cm5i_ring_t *r, uint64_t i)
{
    return (ring_slot_t *)(c + 1) + (i & (r->slots - 1));
}

static void ring_free(cm5i_ring_t *r)
{
    free(r->seg);
    free(r->tx_head);
    free(r);
}

static int ring_create(cm5i_ring_t *r)
{
    int fd = shm_open(r->name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    ring_hdr_t *h;
    void *p;

    if (fd < 0)
        return -errno;
    if (ftruncate(fd, (off_t)r->seg_len) != 0) {
        int e = errno;

        close(fd);
        shm_unlink(r->name);
        return -e;
    }
    /* Populated: a sender's first write to a page it must allocate and
     * zero costs 7-30 us, to one the owner allocated about 1 (doc/bench.md,
     * "Profile: 4-KiB eager messages"), and senders write all over a
     * queue, each where its reservation falls. */
    p = mmap(NULL, r->seg_len, PROT_READ | PROT_WRITE,
             MAP_SHARED | MAP_POPULATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        shm_unlink(r->name);
        return -ENOMEM;
    }
    r->own = p;
    h = p;
    h->magic = RING_MAGIC;
    h->nonce = r->nonce;
    h->nep = (uint32_t)r->nep;
    h->nch = (uint32_t)r->nch;
    h->slots = r->slots;
    h->pid = (int32_t)getpid();
    h->pid_ns = r->pid_ns;
    return 0;
}

/* The pid namespace's inode: peers whose pids mean the same here. */
static uint64_t ring_pid_ns(void)
{
    struct stat st;

    return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

uint32_t cm5i_ring_queue_slots(int nep, int nch, size_t slots)
{
    size_t want = (size_t)(nep > 0 ? nep : 1) * slots;
    size_t cap =
        RING_MAP_BUDGET / ((size_t)(nep > 0 ? nep : 1) *
                           (size_t)(nch > 0 ? nch : 1) * CM5I_RING_SLOT);
    uint32_t s = CM5I_RING_Q_MIN, max = CM5I_RING_Q_MIN;

    while (max < CM5I_RING_Q_MAX && (size_t)max * 2 <= cap)
        max <<= 1;
    while (s < want && s < max)
        s <<= 1;
    return s;
}

int cm5i_ring_open(const char *name_tag, int rank, int nep, int nch,
                   size_t slots, cm5i_ring_t **out)
{
    cm5i_ring_t *r = calloc(1, sizeof(*r));

    if (!r)
        return -ENOMEM;
    if (nch < 1 || nch > CM5I_NCH || nep < 1) {
        free(r);
        return -EINVAL;
    }
    r->rank = rank;
    r->nep = nep;
    r->nch = nch;
    r->slots = cm5i_ring_queue_slots(nep, nch, slots);
    r->q_len = sizeof(ring_ctl_t) + (size_t)r->slots * sizeof(ring_slot_t);
    r->seg_len = RING_LINE + (size_t)nch * r->q_len;
    r->host = cm5i_ring_host();
    r->pid_ns = ring_pid_ns();
    if (snprintf(r->name, sizeof(r->name), "/%s-ring", name_tag) >=
            (int)sizeof(r->name) ||
        getrandom(&r->nonce, sizeof(r->nonce), 0) != sizeof(r->nonce)) {
        free(r);
        return -EINVAL;
    }
    r->seg = calloc((size_t)nep, sizeof(*r->seg));
    r->tx_head = calloc((size_t)nep * (size_t)nch, sizeof(*r->tx_head));
    if (!r->seg || !r->tx_head) {
        ring_free(r);
        return -ENOMEM;
    }
    int rc = ring_create(r);

    if (rc) {
        ring_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

size_t cm5i_ring_segment_bytes(const cm5i_ring_t *r) { return r->seg_len; }

static void ring_unlink(cm5i_ring_t *r)
{
    if (!r->unlinked && r->own)
        shm_unlink(r->name);
    r->unlinked = 1;
}

void cm5i_ring_close(cm5i_ring_t *r)
{
    if (!r)
        return;
    ring_unlink(r);
    for (int k = 0; k < r->nep; k++)
        if (r->seg[k] && r->seg[k] != r->own)
            munmap(r->seg[k], r->seg_len);
    munmap(r->own, r->seg_len);
    ring_free(r);
}

void cm5i_ring_abandon(cm5i_ring_t *r)
{
    if (r && !r->unlinked)
        shm_unlink(r->name);
}

size_t cm5i_ring_address(const cm5i_ring_t *r, void *buf, size_t size)
{
    char *p = buf;

    if (size < RING_REC)
        return 0;
    memset(p, 0, RING_NAME_MAX);
    memcpy(p, r->name, strlen(r->name));
    memcpy(p + RING_NAME_MAX, &r->nonce, 8);
    memcpy(p + RING_NAME_MAX + 8, &r->host, 8);
    return RING_REC;
}

/* Map the segment of a peer named name; NULL if it is not one of this
 * job's on this host (other host, other /dev/shm, other geometry). */
static char *ring_map_peer(const cm5i_ring_t *r, const char *name,
                           uint64_t nonce)
{
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
    const ring_hdr_t *h;
    struct stat st;
    void *p;

    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size != r->seg_len) {
        close(fd);
        return NULL;
    }
    /* In a job of up to RING_POPULATE_NODES nodes, the pages mapped at
     * once: no fault at a sender's first write to each (a small job's
     * few segments; past that, the page tables would cost more). */
    p = mmap(NULL, r->seg_len, PROT_READ | PROT_WRITE,
             MAP_SHARED | (r->nep <= RING_POPULATE_NODES ? MAP_POPULATE : 0),
             fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return NULL;
    h = p;
    if (h->magic != RING_MAGIC || h->nonce != nonce ||
        h->nep != (uint32_t)r->nep || h->nch != (uint32_t)r->nch ||
        h->slots != r->slots) {
        munmap(p, r->seg_len);
        return NULL;
    }
    return p;
}

int cm5i_ring_connect(cm5i_ring_t *r, int node, const void *rec, size_t len)
{
    char name[RING_NAME_MAX];
    uint64_t nonce, host;
    char *seg;

    if (len != RING_REC || node < 0 || node >= r->nep)
        return 0;
    memcpy(name, rec, RING_NAME_MAX);
    name[RING_NAME_MAX - 1] = '\0';
    memcpy(&nonce, (const char *)rec + RING_NAME_MAX, 8);
    memcpy(&host, (const char *)rec + RING_NAME_MAX + 8, 8);
    if (host != r->host)
        seg = NULL;
    else if (node == r->rank)
        seg = nonce == r->nonce ? r->own : NULL;
    else
        seg = ring_map_peer(r, name, nonce);
    if (!seg) {
        cm5i_log(CM5I_LOG_DEBUG, "fab",
                 "node %d: no shared-memory ring here (%s): libfabric", node,
                 name);
        return 0;
    }
    r->seg[node] = seg;
    r->expected++;
    atomic_fetch_add_explicit(&((ring_hdr_t *)seg)->mapped, 1,
                              memory_order_acq_rel);
    return 1;
}

int cm5i_ring_peer_pid(const cm5i_ring_t *r, int node)
{
    const ring_hdr_t *h;

    if (node < 0 || node >= r->nep || !r->seg[node])
        return -1;
    h = (const ring_hdr_t *)r->seg[node];
    return h->pid > 0 && r->pid_ns && h->pid_ns == r->pid_ns ? h->pid : -1;
}

/* Once every ring peer has mapped the segment its name can go: a node
 * killed from now on leaves no file behind. */
static void ring_try_unlink(cm5i_ring_t *r)
{
    const ring_hdr_t *h = (const ring_hdr_t *)r->own;

    if (atomic_load_explicit(&((ring_hdr_t *)h)->mapped,
                             memory_order_acquire) >= (uint32_t)r->expected)
        ring_unlink(r);
}

void cm5i_ring_connected(cm5i_ring_t *r) { ring_try_unlink(r); }

size_t cm5i_ring_rec_slots(size_t len)
{
    return (offsetof(ring_slot_t, data) + len + CM5I_RING_SLOT - 1) /
           CM5I_RING_SLOT;
}

/* The bytes of a queue's slots as one circular array: copy len bytes in
 * or out at byte offset off of it (which wraps at the end). */
static void ring_bytes_in(ring_ctl_t *c, uint32_t slots, size_t off,
                          const void *src, size_t len)
{
    unsigned char *base = (unsigned char *)(c + 1);
    size_t size = (size_t)slots * CM5I_RING_SLOT, first;

    off %= size;
    first = len < size - off ? len : size - off;
    memcpy(base + off, src, first);
    memcpy(base, (const unsigned char *)src + first, len - first);
}

static void ring_bytes_out(ring_ctl_t *c, uint32_t slots, size_t off, void *dst,
                           size_t len)
{
    const unsigned char *base = (const unsigned char *)(c + 1);
    size_t size = (size_t)slots * CM5I_RING_SLOT, first;

    off %= size;
    first = len < size - off ? len : size - off;
    memcpy(dst, base + off, first);
    memcpy((unsigned char *)dst + first, base, len - first);
}

cm5_status_t cm5i_ring_send(cm5i_ring_t *r, int ch, int node, const void *msg,
                            size_t len)
{
    size_t i = (size_t)node * r->nch + ch;
    ring_ctl_t *c = ring_at(r->seg[node], r, ch);
    uint32_t n = RING_LIKELY(len <= CM5I_RING_MSG_MAX)
                     ? 1
                     : (uint32_t)cm5i_ring_rec_slots(len);
    uint64_t t = atomic_load_explicit(&c->tail, memory_order_relaxed);
    ring_slot_t *s;

    if (RING_UNLIKELY(len > CM5I_RING_REC_MAX || n > r->slots))
        return CM5_ERR_INVALID;
    /* Reserve [t, t + n): room while the head read last (acquire: the
     * owner has copied out the slots before it) is no more than a
     * queue behind; it only grows, so an old one errs on the safe side. */
    for (;;) {
        if (RING_UNLIKELY((int64_t)(t + n - r->tx_head[i]) > r->slots)) {
            r->tx_head[i] =
                atomic_load_explicit(&c->head, memory_order_acquire);
            if ((int64_t)(t + n - r->tx_head[i]) > r->slots)
                return CM5_ERR_AGAIN;
        }
        if (RING_LIKELY(atomic_compare_exchange_weak_explicit(
                &c->tail, &t, t + n, memory_order_relaxed,
                memory_order_relaxed)))
            break;
    }
    s = ring_slot(c, r, t);
    s->len = RING_LENW(len, t);
    if (RING_LIKELY(n == 1))
        memcpy(s->data, msg, len);
    else
        ring_bytes_in(c, r->slots,
                      (size_t)(t & (r->slots - 1)) * CM5I_RING_SLOT +
                          offsetof(ring_slot_t, data),
                      msg, len);
    atomic_store_explicit(&s->stamp, (uint32_t)t + 1, memory_order_release);
    return CM5_OK;
}

/* Deliver the record of len bytes (longer than a slot's payload) at the
 * head h and move past its slots.  Copied out before the head moves, as
 * a packet is: a sender may reuse the slots at once, and a handler may
 * poll again.  A length the reserved slots cannot hold (a damaged
 * queue) is delivered as an empty record of one slot, which the decoder
 * drops. */
static __attribute__((noinline)) void
ring_drain_long(cm5i_ring_t *r, ring_ctl_t *c, int ch, uint64_t h, uint32_t len,
                cm5i_fab_rx_func_t cb, void *arg)
{
    unsigned char buf[CM5I_RING_REC_MAX];
    uint64_t t = atomic_load_explicit(&c->tail, memory_order_acquire);
    size_t n = cm5i_ring_rec_slots(len);

    if (len > CM5I_RING_REC_MAX || n > t - h) {
        n = 1;
        len = 0;
    } else {
        ring_bytes_out(c, r->slots,
                       (size_t)(h & (r->slots - 1)) * CM5I_RING_SLOT +
                           offsetof(ring_slot_t, data),
                       buf, len);
        for (size_t k = 1; k < n; k++) { /* its bytes are no headers */
            ring_slot_t *s = ring_slot(c, r, h + k);

            s->len = 0;
            atomic_store_explicit(&s->stamp, 0, memory_order_relaxed);
        }
    }
    r->rx_head[ch] = h + n;
    atomic_store_explicit(&c->head, h + n, memory_order_release);
    cb(arg, ch, buf, len);
}

/* The slot at index h if its packet or record has been published (its
 * stamp and length word say so), else NULL. */
static inline ring_slot_t *ring_next(cm5i_ring_t *r, ring_ctl_t *c, uint64_t h)
{
    ring_slot_t *s = ring_slot(c, r, h);

    if (atomic_load_explicit(&s->stamp, memory_order_acquire) !=
            (uint32_t)h + 1 ||
        (s->len >> 16) != (uint16_t)((h >> 32) + 1u))
        return NULL;
    return s;
}

int cm5i_ring_poll(cm5i_ring_t *r, int ch, int max, cm5i_fab_rx_func_t cb,
                   void *arg)
{
    ring_ctl_t *c = ring_at(r->own, r, ch);
    ring_slot_t *s;
    int n = 0;

    if (RING_UNLIKELY(!r->unlinked))
        ring_try_unlink(r);
    /* r->rx_head is read afresh each time: a handler may poll again. */
    while (n < max && (s = ring_next(r, c, r->rx_head[ch]))) {
        unsigned char buf[CM5I_RING_MSG_MAX];
        uint64_t h = r->rx_head[ch];
        uint32_t len = RING_LEN(s->len);

        n++;
        if (RING_UNLIKELY(len > CM5I_RING_MSG_MAX)) {
            ring_drain_long(r, c, ch, h, len, cb, arg);
            continue;
        }
        memcpy(buf, s->data, len);
        r->rx_head[ch] = h + 1;
        atomic_store_explicit(&c->head, h + 1, memory_order_release);
        cb(arg, ch, buf, len);
    }
    return n;
}

uint32_t cm5i_ring_test_index(cm5i_ring_t *r, uint64_t index)
{
    for (int ch = 0; ch < r->nch; ch++) {
        ring_ctl_t *c = ring_at(r->own, r, ch);

        r->rx_head[ch] = index;
        atomic_store(&c->tail, index);
        atomic_store(&c->head, index);
    }
    for (size_t i = 0; i < (size_t)r->nep * r->nch; i++)
        r->tx_head[i] = index;
    return r->slots;
}

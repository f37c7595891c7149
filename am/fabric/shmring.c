/*
 * Lock-free single-producer/single-consumer rings in shared memory: the
 * same-host fast path (shmring.h).
 *
 * Segment of node R:
 *   header (64 bytes): magic, nonce, geometry, how many peers mapped it
 *   per channel, a bitmap of senders with new packets (cache-line
 *     aligned): a sender sets its bit after publishing a packet, R
 *     exchanges the words with 0, so an empty poll reads one word
 *   per (sender, channel) a ring: tail (the sender's) and head (R's) on
 *     cache lines of their own, then `slots` slots of 64 bytes
 *
 * A slot is published by a release store of the tail after its bytes,
 * and freed by a release store of the head; each side keeps its own
 * index privately and re-reads the other's only when it must.
 *
 * A record longer than one slot's payload (an eager message: its packet
 * and data) takes cm5i_ring_rec_slots(len) consecutive slots: the first
 * slot's length word gives the whole length, and the bytes run on from
 * its payload across the next slots, length words included (the slots
 * read as one circular array of bytes; a record that reaches the end
 * continues at the start).  The tail moves past all its slots at once,
 * so a record is published whole, in its place among the sender's
 * packets of that channel: one ring keeps the order of everything a
 * sender sends on a channel, whatever its size.
 *
 * Rewinding: a ring's pages cost a page fault on each side when first
 * touched (the writer's, on a fresh shared page, 7-30 us against under
 * 1 us to copy 4 KiB: doc/bench.md, "Profile: 4-KiB eager messages"),
 * and a ring sized for the eager budget has dozens of them, so eager
 * messages running round the whole ring were slower than single copies
 * for their first laps.  A sender about to write a record of several
 * slots, whose owner has read all but a few slots (the record and what
 * is unread fit before the tail's slot), starts the record at slot 0:
 * it writes a skip record there (length RING_SKIP, the slots to skip in
 * its data) to the end of the ring, and records reuse the same warm pages.
 * Until the owner has read that marker, the slots of the new lap from
 * the unread packets to the marker's are barred, one spare slot before
 * them kept free; the rest of the old lap is skipped, never read.  A
 * record that would reach the barred slots goes after the marker's,
 * behind a second skip record written in the spare slot (ring_room).
 * Each ring has RING_REWIND_ROOM slots besides those asked for, so a
 * rewind never takes room the caller counted on.
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

#define RING_MAGIC 0x636d35726e673033ull /* "cm5rng03" */
#define RING_LINE 64
#define RING_NAME_MAX 64
#define RING_LIKELY(x) __builtin_expect(!!(x), 1)
#define RING_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define RING_REC (RING_NAME_MAX + 8 + 8) /* name, nonce, host */
#define RING_SKIP                                                              \
    0xffffu /* a slot's length: skip the slots counted                         \
               in its first data word */
/* A slot's length word: the length (low 16 bits, or RING_SKIP) and, in
 * the high 16, how many times the 32-bit index had wrapped at the slot's
 * index, plus one: with the stamp, 48 bits that no slot written a lap
 * or 65535 wraps before (nor zeroed memory) can match. */
#define RING_LENW(len, wrap)                                                   \
    ((uint32_t)(len) | (uint32_t)(uint16_t)((wrap) + 1u) << 16)
#define RING_LEN(word) ((word)&0xffffu)
#define RING_NO_MARK UINT32_MAX /* tx_mpos: no rewind marker unread */
/* What a rewind may cost the room of a ring: the marker's slot, a spare
 * one and the slots a record skips to pass it. */
#define RING_REWIND_ROOM                                                       \
    ((CM5I_RING_REC_MAX + CM5I_RING_SLOT - 1) / CM5I_RING_SLOT + 4)
_Static_assert(CM5I_FAB_RING_REC >= 2 + RING_REC,
               "a ring record fits its room in the address record");

typedef struct {
    uint64_t magic, nonce;
    uint32_t nep, nch, slots, words;
    _Atomic uint32_t mapped; /* peers (and the owner) that mapped it */
    int32_t pid;             /* the owner, for single-copy transfers */
    uint64_t pid_ns;         /* its pid namespace (the inode) */
} ring_hdr_t;

typedef struct {
    alignas(RING_LINE) _Atomic uint32_t tail; /* written by the sender */
    alignas(RING_LINE) _Atomic uint32_t head; /* written by the owner */
} ring_ctl_t;

/* A slot's stamp is the sender's index of the packet, record or skip
 * that starts in it, plus one, written last with release (after the
 * length word, RING_LENW): the owner finds its next packet by the stamp
 * and length word of the slot at its head, without reading the tail
 * (ring_next).  The slots a record spans past its first carry its bytes
 * in their length and stamp words; the owner clears those once read, so
 * a record's bytes never pass for a header. */
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
    int rank, nep, nch, words;
    uint32_t slots;
    size_t bits_len, hdr_len, ring_len, seg_len;
    char name[RING_NAME_MAX];
    uint64_t nonce;
    uint64_t host;   /* this host, as the network sees it (ring_host) */
    char *own;       /* this node's segment */
    char **seg;      /* each node's segment mapped here, or NULL */
    uint64_t pid_ns; /* this process's pid namespace, 0 if unknown */
    uint32_t *tx_tail, *tx_head; /* per node and channel: ours, its */
    /* per node and channel: the index and slot of our last rewind
     * marker, while the owner may not have read it (RING_NO_MARK) */
    uint32_t *tx_mark, *tx_mpos;
    uint32_t *rx_head;           /* per sender and channel */
    uint16_t *tx_wrap, *rx_wrap; /* wraps of tx_tail, rx_head (RING_LENW) */
    uint64_t *pend;              /* per channel: senders not yet drained */
    int hot[CM5I_NCH];           /* per channel: the last sender drained */
    int expected;                /* ring peers, the owner included */
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

static size_t ring_round(size_t n)
{
    return (n + RING_LINE - 1) / RING_LINE * RING_LINE;
}

static _Atomic uint64_t *ring_bits(char *seg, const cm5i_ring_t *r, int ch)
{
    return (_Atomic uint64_t *)(seg + RING_LINE + (size_t)ch * r->bits_len);
}

static ring_ctl_t *ring_at(char *seg, const cm5i_ring_t *r, int src, int ch)
{
    return (ring_ctl_t *)(seg + r->hdr_len +
                          ((size_t)src * r->nch + ch) * r->ring_len);
}

static ring_slot_t *ring_slot(ring_ctl_t *c, uint32_t i)
{
    return (ring_slot_t *)(c + 1) + i;
}

static int ring_alloc(cm5i_ring_t *r)
{
    size_t n = (size_t)r->nep * r->nch;

    r->seg = calloc((size_t)r->nep, sizeof(*r->seg));
    r->tx_tail = calloc(n, sizeof(uint32_t));
    r->tx_head = calloc(n, sizeof(uint32_t));
    r->tx_mark = calloc(n, sizeof(uint32_t));
    r->tx_mpos = malloc(n * sizeof(uint32_t));
    r->rx_head = calloc(n, sizeof(uint32_t));
    r->tx_wrap = calloc(n, sizeof(uint16_t));
    r->rx_wrap = calloc(n, sizeof(uint16_t));
    r->pend = calloc((size_t)r->nch * r->words, sizeof(uint64_t));
    if (r->tx_mpos)
        for (size_t i = 0; i < n; i++)
            r->tx_mpos[i] = RING_NO_MARK;
    return r->seg && r->tx_tail && r->tx_head && r->tx_mark && r->tx_mpos &&
           r->rx_head && r->tx_wrap && r->rx_wrap && r->pend;
}

static void ring_free(cm5i_ring_t *r)
{
    free(r->seg);
    free(r->tx_tail);
    free(r->tx_head);
    free(r->tx_mark);
    free(r->tx_mpos);
    free(r->rx_head);
    free(r->tx_wrap);
    free(r->rx_wrap);
    free(r->pend);
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
    p = mmap(NULL, r->seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
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
    h->words = (uint32_t)r->words;
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

int cm5i_ring_open(const char *name_tag, int rank, int nep, int nch,
                   size_t slots, cm5i_ring_t **out)
{
    cm5i_ring_t *r = calloc(1, sizeof(*r));
    uint32_t s = 2;
    int rc;

    if (!r)
        return -ENOMEM;
    while (s < slots + RING_REWIND_ROOM && s < (1u << 16))
        s <<= 1;
    r->rank = rank;
    r->nep = nep;
    r->nch = nch;
    for (int k = 0; k < CM5I_NCH; k++)
        r->hot[k] = -1;
    r->slots = s;
    r->words = (nep + 63) / 64;
    r->bits_len = ring_round((size_t)r->words * sizeof(uint64_t));
    r->hdr_len = RING_LINE + (size_t)nch * r->bits_len;
    r->ring_len = sizeof(ring_ctl_t) + (size_t)s * sizeof(ring_slot_t);
    r->seg_len = r->hdr_len + (size_t)nep * nch * r->ring_len;
    r->host = cm5i_ring_host();
    r->pid_ns = ring_pid_ns();
    if (snprintf(r->name, sizeof(r->name), "/%s-ring", name_tag) >=
            (int)sizeof(r->name) ||
        getrandom(&r->nonce, sizeof(r->nonce), 0) != sizeof(r->nonce)) {
        free(r);
        return -EINVAL;
    }
    if (!ring_alloc(r)) {
        ring_free(r);
        return -ENOMEM;
    }
    rc = ring_create(r);
    if (rc) {
        ring_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

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
    p = mmap(NULL, r->seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
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

/* The bytes of a ring's slots as one circular array: copy len bytes in
 * or out at byte offset off of it (which wraps at the end). */
static void ring_bytes_in(ring_ctl_t *c, uint32_t slots, size_t off,
                          const void *src, size_t len)
{
    unsigned char *base = (unsigned char *)ring_slot(c, 0);
    size_t size = (size_t)slots * CM5I_RING_SLOT, first;

    off %= size;
    first = len < size - off ? len : size - off;
    memcpy(base + off, src, first);
    memcpy(base, (const unsigned char *)src + first, len - first);
}

static void ring_bytes_out(ring_ctl_t *c, uint32_t slots, size_t off, void *dst,
                           size_t len)
{
    const unsigned char *base = (const unsigned char *)ring_slot(c, 0);
    size_t size = (size_t)slots * CM5I_RING_SLOT, first;

    off %= size;
    first = len < size - off ? len : size - off;
    memcpy(dst, base + off, first);
    memcpy((unsigned char *)dst + first, base, len - first);
}

/* Is ring i's last rewind marker still unread (its head at or before
 * it)?  Forgets it once read. */
static int ring_marked(cm5i_ring_t *r, size_t i, uint32_t h)
{
    if (r->tx_mpos[i] == RING_NO_MARK)
        return 0;
    if ((int32_t)(h - r->tx_mark[i]) > 0) {
        r->tx_mpos[i] = RING_NO_MARK;
        return 0;
    }
    return 1;
}

/* A skip record at index t (wrap w) in slot s, passing k slots. */
static void ring_skip(ring_slot_t *s, uint32_t t, uint16_t w, uint32_t k)
{
    s->len = RING_LENW(RING_SKIP, w);
    memcpy(s->data, &k, sizeof(k));
    atomic_store_explicit(&s->stamp, t + 1, memory_order_release);
}

/* Before a record of n slots at tail t of ring i: if the packets the
 * owner has not read yet, and the record, fit before slot t of the ring
 * (and no marker is unread), write a marker skipping to the end of the
 * ring and return the tail after it (the record then starts at slot 0);
 * else t. */
static uint32_t ring_rewind(cm5i_ring_t *r, ring_ctl_t *c, size_t i, uint32_t t,
                            uint32_t n, uint16_t w)
{
    uint32_t pos = t & (r->slots - 1);

    if (pos <= n)
        return t; /* near slot 0 already */
    /* The record, and a spare slot (ring_room), before the unread. */
    if (t - r->tx_head[i] > pos - n - 1) {
        r->tx_head[i] = atomic_load_explicit(&c->head, memory_order_acquire);
        if (t - r->tx_head[i] > pos - n - 1)
            return t; /* too much unread: keep going round */
    }
    if (ring_marked(r, i, r->tx_head[i]))
        return t;
    ring_skip(ring_slot(c, pos), t, w, r->slots - pos);
    r->tx_mark[i] = t;
    r->tx_mpos[i] = pos;
    return t + (r->slots - pos);
}

/* Where a record of n slots goes, the tail being t: t, or past an unread
 * rewind marker (the slots from t to it are skipped); CM5_ERR_AGAIN when
 * the ring has no room for it now. */
static cm5_status_t ring_room(cm5i_ring_t *r, ring_ctl_t *c, size_t i,
                              uint32_t t, uint32_t n, uint32_t *at)
{
    /* While a marker is unread, a slot stays free before what the owner
     * has yet to read, for the skip record that passes the marker. */
    uint32_t spare = r->tx_mpos[i] != RING_NO_MARK;
    uint32_t h, mpos, lap, off, first;

    *at = t;
    if (RING_LIKELY(t - r->tx_head[i] <= r->slots - n - spare))
        return CM5_OK;
    h = r->tx_head[i] = atomic_load_explicit(&c->head, memory_order_acquire);
    if (!ring_marked(r, i, h))
        return t - h <= r->slots - n ? CM5_OK : CM5_ERR_AGAIN;
    /* The marker is unread: in the new lap (slot 0 at index lap) the
     * owner has yet to read the slots from `first` to the marker's; the
     * rest is free (the old lap beyond the marker is skipped).  A record
     * that would reach them goes after the marker's slot. */
    mpos = r->tx_mpos[i];
    lap = r->tx_mark[i] + (r->slots - mpos);
    first = mpos - (r->tx_mark[i] - h);
    off = t - lap;
    if (off <= mpos) {
        if (off + n < first)
            return CM5_OK;
        if (off >= first)
            return CM5_ERR_AGAIN; /* no slot for the skip (not reached) */
        off = mpos + 1;
    }
    if (off + n > r->slots)
        return CM5_ERR_AGAIN;
    *at = lap + off;
    return CM5_OK;
}

cm5_status_t cm5i_ring_send(cm5i_ring_t *r, int ch, int node, const void *msg,
                            size_t len)
{
    size_t i = (size_t)node * r->nch + ch;
    char *seg = r->seg[node];
    ring_ctl_t *c = ring_at(seg, r, r->rank, ch);
    uint32_t t0 = r->tx_tail[i], t = t0, at;
    uint32_t n = RING_LIKELY(len <= CM5I_RING_MSG_MAX)
                     ? 1
                     : (uint32_t)cm5i_ring_rec_slots(len);
    uint16_t w = r->tx_wrap[i];
    ring_slot_t *s;

    if (RING_UNLIKELY(len > CM5I_RING_REC_MAX || n > r->slots))
        return CM5_ERR_INVALID;
    /* After a rewind the record fits before what the owner has yet to
     * read: ring_room cannot refuse it, nor a marker go unpublished. */
    if (RING_UNLIKELY(n > 1)) {
        t = ring_rewind(r, c, i, t, n, w);
        w += t < t0;
    }
    if (RING_UNLIKELY(ring_room(r, c, i, t, n, &at) != CM5_OK))
        return CM5_ERR_AGAIN;
    if (RING_UNLIKELY(at != t)) {
        ring_skip(ring_slot(c, t & (r->slots - 1)), t, w, at - t);
        w += at < t;
    }
    s = ring_slot(c, at & (r->slots - 1));
    s->len = RING_LENW(len, w);
    if (RING_LIKELY(n == 1))
        memcpy(s->data, msg, len);
    else
        ring_bytes_in(c, r->slots,
                      (size_t)(at & (r->slots - 1)) * CM5I_RING_SLOT +
                          offsetof(ring_slot_t, data),
                      msg, len);
    /* The tail first: an owner that sees the stamp sees it (a record's
     * end is checked against it). */
    atomic_store_explicit(&c->tail, at + n, memory_order_release);
    atomic_store_explicit(&s->stamp, at + 1, memory_order_release);
    r->tx_tail[i] = at + n;
    r->tx_wrap[i] = (uint16_t)(w + (at + n < at));
    /* After the tail: an owner that clears the bit first sees the tail. */
    atomic_fetch_or_explicit(&ring_bits(seg, r, ch)[r->rank / 64],
                             1ull << (r->rank % 64), memory_order_release);
    return CM5_OK;
}

/* Move a head (and its wrap count) k slots on. */
static inline void ring_adv(uint32_t *hp, uint16_t *wp, uint32_t k)
{
    uint32_t o = *hp;

    *hp = o + k;
    *wp = (uint16_t)(*wp + (*hp < o));
}

/* Deliver the record of len bytes (longer than a slot's payload) at
 * *hp, whose tail is t, and move past its slots.  Copied out before the
 * head moves, as a packet is: the sender may reuse the slots at once,
 * and a handler may poll again.  A length the slots cannot hold (a
 * damaged ring) is delivered as an empty record of one slot, which the
 * decoder drops. */
static __attribute__((noinline)) void
ring_drain_long(cm5i_ring_t *r, ring_ctl_t *c, int ch, uint32_t *hp,
                uint16_t *wp, uint32_t len, cm5i_fab_rx_func_t cb, void *arg)
{
    unsigned char buf[CM5I_RING_REC_MAX];
    uint32_t t = atomic_load_explicit(&c->tail, memory_order_acquire);
    size_t n = cm5i_ring_rec_slots(len);

    if (len > CM5I_RING_REC_MAX || n > t - *hp) {
        n = 1;
        len = 0;
    } else {
        ring_bytes_out(c, r->slots,
                       (size_t)(*hp & (r->slots - 1)) * CM5I_RING_SLOT +
                           offsetof(ring_slot_t, data),
                       buf, len);
        for (size_t k = 1; k < n; k++) { /* its bytes are no headers */
            ring_slot_t *s = ring_slot(c, (*hp + (uint32_t)k) & (r->slots - 1));

            s->len = 0;
            atomic_store_explicit(&s->stamp, 0, memory_order_relaxed);
        }
    }
    ring_adv(hp, wp, (uint32_t)n);
    atomic_store_explicit(&c->head, *hp, memory_order_release);
    cb(arg, ch, buf, len);
}

/* The slot at index h (wrap w) if its packet, record or skip has been
 * written (its stamp and length word say so), else NULL. */
static inline ring_slot_t *ring_next(cm5i_ring_t *r, ring_ctl_t *c, uint32_t h,
                                     uint16_t w)
{
    ring_slot_t *s = ring_slot(c, h & (r->slots - 1));

    if (atomic_load_explicit(&s->stamp, memory_order_acquire) != h + 1 ||
        (s->len >> 16) != (uint16_t)(w + 1u))
        return NULL;
    return s;
}

/* Deliver up to max packets from src's ring; returns how many, and sets
 * *empty when the ring was drained (no stamp at its head). */
static int ring_drain(cm5i_ring_t *r, int ch, int src, int max,
                      cm5i_fab_rx_func_t cb, void *arg, int *empty)
{
    ring_ctl_t *c = ring_at(r->own, r, src, ch);
    uint32_t *hp = &r->rx_head[(size_t)src * r->nch + ch];
    uint16_t *wp = &r->rx_wrap[(size_t)src * r->nch + ch];
    ring_slot_t *s;
    int n = 0;

    /* *hp is read afresh each time: a handler may poll again. */
    while (n < max && (s = ring_next(r, c, *hp, *wp))) {
        unsigned char buf[CM5I_RING_MSG_MAX];
        uint32_t len = RING_LEN(s->len);

        if (RING_UNLIKELY(len > CM5I_RING_MSG_MAX)) {
            if (len == RING_SKIP) { /* a rewind: nothing to deliver */
                uint32_t k;

                memcpy(&k, s->data, sizeof(k));
                ring_adv(hp, wp, k && k <= r->slots ? k : 1);
                atomic_store_explicit(&c->head, *hp, memory_order_release);
                continue;
            }
            n++;
            ring_drain_long(r, c, ch, hp, wp, len, cb, arg);
            continue;
        }
        memcpy(buf, s->data, len);
        ring_adv(hp, wp, 1);
        atomic_store_explicit(&c->head, *hp, memory_order_release);
        n++;
        cb(arg, ch, buf, len);
    }
    *empty = !ring_next(r, c, *hp, *wp);
    return n;
}

int cm5i_ring_poll(cm5i_ring_t *r, int ch, int max, cm5i_fab_rx_func_t cb,
                   void *arg)
{
    _Atomic uint64_t *bits = ring_bits(r->own, r, ch);
    uint64_t *pend = r->pend + (size_t)ch * r->words;
    int n = 0, empty;

    if (RING_UNLIKELY(!r->unlinked))
        ring_try_unlink(r);
    /* The last sender first, by the stamp at its head alone: a packet of
     * a busy pair costs the owner one cache line (the slot), not three
     * (bitmap word, tail, slot).  Its bit, set too, is taken later. */
    if (r->hot[ch] >= 0)
        n = ring_drain(r, ch, r->hot[ch], max, cb, arg, &empty);
    for (int w = 0; w < r->words && n < max; w++) {
        uint64_t m;

        if (atomic_load_explicit(&bits[w], memory_order_relaxed))
            pend[w] |=
                atomic_exchange_explicit(&bits[w], 0, memory_order_acq_rel);
        m = pend[w];
        while (m && n < max) {
            int b = __builtin_ctzll(m), got;

            m &= m - 1;
            got = ring_drain(r, ch, w * 64 + b, max - n, cb, arg, &empty);
            if (got)
                r->hot[ch] = w * 64 + b;
            n += got;
            if (empty)
                pend[w] &= ~(1ull << b);
        }
    }
    return n;
}

uint32_t cm5i_ring_test_index(cm5i_ring_t *r, uint32_t index)
{
    size_t n = (size_t)r->nep * r->nch;

    for (size_t i = 0; i < n; i++) {
        r->tx_tail[i] = r->tx_head[i] = r->rx_head[i] = index;
        r->tx_wrap[i] = r->rx_wrap[i] = 0;
    }
    for (int src = 0; src < r->nep; src++)
        for (int ch = 0; ch < r->nch; ch++) {
            ring_ctl_t *c = ring_at(r->own, r, src, ch);

            atomic_store(&c->tail, index);
            atomic_store(&c->head, index);
        }
    return r->slots;
}

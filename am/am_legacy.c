/*
 * Legacy mode (DESIGN.md decision 5, doc/porting.md): the start-up check
 * of the 32-bit build.  CM-5 code ships addresses between nodes (a
 * pointer in an active-message word, &global or a malloc'ed block
 * computed on the sender), which works only when every node has its
 * program, its shared libraries and its heap at the same addresses:
 * non-PIE programs (cm5cc --legacy) started with address randomization
 * off (cm5run does it; setarch -R under other launchers).  Where the
 * addresses differ such code fails silently, so node 0 says so in one
 * line.  The 64-bit build ships no addresses: no check.
 */
#include "am_legacy.h"

#include "config.h"

#include "am_ctx.h"
#include "am_util.h"

#ifdef CM5_LEGACY_BUILD
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

/*
 * The user's heap.  The runtime and libfabric allocate while they move
 * data, differently on every node, so blocks the program mallocs after
 * its first send would land at different addresses in one shared heap.
 * Here the program's own calls to malloc, calloc, realloc and free
 * (those whose caller is in the program's text: cm5cc --legacy builds
 * non-PIE programs) are served from a region of their own, mapped at
 * start-up (the same address on every node when randomization is off),
 * by a deterministic allocator: the same calls give the same addresses
 * on every node, whatever the runtime did in between.  Every other
 * caller (libc, libfabric, the runtime) gets glibc's malloc.  The region
 * holds LEG_HEAP_SIZE bytes; beyond it the program's blocks come from
 * glibc's heap again (doc/porting.md).
 */
#define LEG_HEAP_SIZE (256u << 20)
#define LEG_ALIGN 16u     /* glibc's on i386 */
#define LEG_CLASSES 4096u /* exact lists up to 64 KiB */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

typedef struct leg_blk {
    size_t size;          /* usable bytes, a multiple of 16 */
    struct leg_blk *next; /* on a free list */
    char pad[LEG_ALIGN - sizeof(size_t) - sizeof(void *)];
} leg_blk_t;

static struct {
    char *base, *top, *end;
    uintptr_t text_lo, text_hi; /* the program's executable segments */
    leg_blk_t *free_small[LEG_CLASSES], *free_big;
    atomic_flag lock;
} leg_heap = {.lock = ATOMIC_FLAG_INIT};

static int leg_text(struct dl_phdr_info *info, size_t len, void *arg)
{
    (void)len, (void)arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        if (!leg_heap.text_lo || lo < leg_heap.text_lo)
            leg_heap.text_lo = lo;
        if (lo + ph->p_memsz > leg_heap.text_hi)
            leg_heap.text_hi = lo + ph->p_memsz;
    }
    return 1; /* the first object: the program */
}

__attribute__((constructor(101))) static void leg_heap_init(void)
{
    void *p = mmap(NULL, LEG_HEAP_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    dl_iterate_phdr(leg_text, NULL);
    if (p == MAP_FAILED)
        return; /* glibc's heap for everyone */
    leg_heap.base = leg_heap.top = p;
    leg_heap.end = leg_heap.base + LEG_HEAP_SIZE;
}

static int leg_user(const void *caller)
{
    return leg_heap.base && (uintptr_t)caller >= leg_heap.text_lo &&
           (uintptr_t)caller < leg_heap.text_hi;
}

static int leg_mine(const void *p)
{
    return leg_heap.base && (const char *)p >= leg_heap.base &&
           (const char *)p < leg_heap.end;
}

static void leg_lock(void)
{
    while (
        atomic_flag_test_and_set_explicit(&leg_heap.lock, memory_order_acquire))
        ;
}

static void leg_unlock(void)
{
    atomic_flag_clear_explicit(&leg_heap.lock, memory_order_release);
}

/* A block of at least n bytes: a freed one of its size, else new. */
static void *leg_alloc(size_t n)
{
    size_t sz = n ? (n + LEG_ALIGN - 1) & ~(size_t)(LEG_ALIGN - 1) : LEG_ALIGN;
    leg_blk_t *b = NULL, **pp;

    if (n > LEG_HEAP_SIZE)
        return NULL;
    leg_lock();
    if (sz / LEG_ALIGN < LEG_CLASSES) {
        pp = &leg_heap.free_small[sz / LEG_ALIGN];
        if ((b = *pp) != NULL)
            *pp = b->next;
    } else {
        for (pp = &leg_heap.free_big; *pp; pp = &(*pp)->next)
            if ((*pp)->size >= sz) {
                b = *pp;
                *pp = b->next;
                break;
            }
    }
    if (!b && (size_t)(leg_heap.end - leg_heap.top) >= sz + sizeof(*b)) {
        b = (leg_blk_t *)leg_heap.top;
        b->size = sz;
        leg_heap.top += sz + sizeof(*b);
    }
    leg_unlock();
    return b ? b + 1 : NULL;
}

static void leg_release(void *p)
{
    leg_blk_t *b = (leg_blk_t *)p - 1, **pp;

    leg_lock();
    pp = b->size / LEG_ALIGN < LEG_CLASSES
             ? &leg_heap.free_small[b->size / LEG_ALIGN]
             : &leg_heap.free_big;
    b->next = *pp;
    *pp = b;
    leg_unlock();
}

#define LEG_EXPORT __attribute__((visibility("default")))

LEG_EXPORT void *malloc(size_t n)
{
    void *p = NULL;

    if (leg_user(__builtin_return_address(0)))
        p = leg_alloc(n);
    return p ? p : __libc_malloc(n);
}

LEG_EXPORT void *calloc(size_t k, size_t n)
{
    void *p = NULL;

    if (leg_user(__builtin_return_address(0)) && (!n || k <= SIZE_MAX / n) &&
        (p = leg_alloc(k * n)) != NULL)
        memset(p, 0, k * n);
    return p ? p : __libc_calloc(k, n);
}

LEG_EXPORT void free(void *p)
{
    if (leg_mine(p))
        leg_release(p);
    else
        __libc_free(p);
}

LEG_EXPORT void *realloc(void *p, size_t n)
{
    size_t old;
    void *q;

    if (!leg_mine(p))
        return p || !leg_user(__builtin_return_address(0))
                   ? __libc_realloc(p, n)
                   : malloc(n);
    old = ((leg_blk_t *)p - 1)->size;
    if (n <= old && n)
        return p;
    if (!(q = leg_alloc(n)) && !(q = __libc_malloc(n)))
        return NULL;
    memcpy(q, p, old < n ? old : n);
    leg_release(p);
    return q;
}

enum { LEG_PROGRAM, LEG_LIBS, LEG_HEAP, LEG_N };

/* The addresses that must agree: the program's headers, a shared library
 * (libc's malloc), and the user's heap (its region, or glibc's next
 * block where the region could not be mapped). */
static void legacy_addresses(uint32_t a[LEG_N])
{
    void *probe = __libc_malloc(64);

    a[LEG_PROGRAM] = (uint32_t)getauxval(AT_PHDR);
    a[LEG_LIBS] = (uint32_t)(uintptr_t)(void *)__libc_malloc;
    a[LEG_HEAP] =
        (uint32_t)(uintptr_t)(leg_heap.base ? leg_heap.base : (char *)probe);
    __libc_free(probe);
}

/* Node 0 compares every node's addresses with its own as they arrive, in
 * an active message: no collective, whose bookkeeping would allocate
 * differently on every node and shift the heap it checks. */
static uint32_t leg_ours[LEG_N], leg_lo[LEG_N], leg_hi[LEG_N];
static volatile int leg_seen;

static void legacy_handler(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    uint32_t a[LEG_N] = {a0, a1, a2};

    (void)a3;
    for (int i = 0; i < LEG_N; i++) {
        leg_lo[i] = a[i] < leg_lo[i] ? a[i] : leg_lo[i];
        leg_hi[i] = a[i] > leg_hi[i] ? a[i] : leg_hi[i];
    }
    leg_seen++;
}

void cm5i_legacy_check(void)
{
    static const char *const what[LEG_N] = {"program", "library", "heap"};
    cm5_status_t st;

    if (cm5i_ctx.size < 2 || cm5i_ctx.host >= 0) /* the host is another */
        return;                                  /* program            */
    legacy_addresses(leg_ours);
    if (cm5i_ctx.rank != 0) {
        st = cm5_am_request(0, legacy_handler, leg_ours[0], leg_ours[1],
                            leg_ours[2], 0);
        if (st != CM5_OK)
            cm5i_log(CM5I_LOG_WARN, "legacy",
                     "cannot send the address "
                     "check to node 0: %s",
                     cm5_status_string(st));
        return;
    }
    for (int i = 0; i < LEG_N; i++)
        leg_lo[i] = leg_hi[i] = leg_ours[i];
    cm5_wait_while_lt(&leg_seen, cm5i_ctx.size - 1);
    for (int i = 0; i < LEG_N; i++)
        if (leg_lo[i] != leg_hi[i]) {
            cm5i_log(CM5I_LOG_WARN, "legacy",
                     "the nodes' %s addresses differ (0x%08x to 0x%08x): "
                     "CM-5 code that ships addresses will fail; start "
                     "32-bit programs with cm5run or setarch -R, built "
                     "with cm5cc --legacy (doc/porting.md)",
                     what[i], (unsigned)leg_lo[i], (unsigned)leg_hi[i]);
            return; /* one line */
        }
}
#else
void cm5i_legacy_check(void) {}
#endif

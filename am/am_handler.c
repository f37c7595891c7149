/*
 * Table of the loaded objects' executable segments, built with
 * dl_iterate_phdr and refreshed when a lookup misses (dlopen).  Lookups
 * of the objects loaded with the program take no lock and make no system
 * call.  An object loaded later may be unloaded again (dlclose): a lookup
 * that lands in one first checks the loader's count of unloads, and
 * rebuilds the table if it moved, so that a handler in an unloaded object
 * is rejected, never called at its old address.
 */
#include "am_handler.h"

#include <link.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "am_util.h"

#define HOBJ_MAX 256
#define HSEG_MAX 4

typedef struct {
    uint32_t id;
    uintptr_t base;
    int nseg;
    uintptr_t lo[HSEG_MAX], hi[HSEG_MAX];
} hobj_t;

static hobj_t hobjs[HOBJ_MAX];
static int nhobjs;
static int nstartup;             /* objects loaded with the program: first */
static unsigned long long hsubs; /* the loader's unload count at refresh */
static const hobj_t *hlast;      /* one-entry cache for the send path */

static int handler_subs(struct dl_phdr_info *info, size_t size, void *arg)
{
    if (size >=
        offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
        *(unsigned long long *)arg = info->dlpi_subs;
    return 1; /* the first object is enough */
}

static unsigned long long handler_unloads(void)
{
    unsigned long long subs = 0;

    dl_iterate_phdr(handler_subs, &subs);
    return subs;
}

static uint32_t handler_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */

    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static int handler_add(struct dl_phdr_info *info, size_t size, void *arg)
{
    hobj_t *o;

    (void)size;
    (void)arg;
    if (nhobjs >= HOBJ_MAX)
        return 1;
    o = &hobjs[nhobjs];
    memset(o, 0, sizeof(*o));
    o->id = handler_hash(info->dlpi_name ? info->dlpi_name : "");
    o->base = info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum && o->nseg < HSEG_MAX; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        o->lo[o->nseg] = info->dlpi_addr + ph->p_vaddr;
        o->hi[o->nseg] = o->lo[o->nseg] + ph->p_memsz;
        o->nseg++;
    }
    if (o->nseg > 0)
        nhobjs++;
    return 0;
}

void cm5i_handler_refresh(void)
{
    hlast = NULL;
    nhobjs = 0;
    hsubs = handler_unloads();
    dl_iterate_phdr(handler_add, NULL);
    for (int i = 0; i < nhobjs; i++)
        for (int j = 0; j < i; j++)
            if (hobjs[i].id == hobjs[j].id)
                cm5i_log(CM5I_LOG_WARN, "handler",
                         "two loaded objects share id %08x: handlers in "
                         "them may resolve wrongly",
                         hobjs[i].id);
}

/* Runs before main, when only the program's own objects are loaded. */
__attribute__((constructor)) static void handler_boot(void)
{
    cm5i_handler_refresh();
    nstartup = nhobjs;
}

/* Is o an object that may have been unloaded since the table was built? */
static int handler_stale(const hobj_t *o)
{
    return o >= hobjs + nstartup && handler_unloads() != hsubs;
}

static int handler_in(const hobj_t *o, uintptr_t a)
{
    for (int s = 0; s < o->nseg; s++)
        if (a >= o->lo[s] && a < o->hi[s])
            return 1;
    return 0;
}

static const hobj_t *handler_find_addr(uintptr_t a)
{
    if (hlast && handler_in(hlast, a))
        return hlast;
    for (int i = 0; i < nhobjs; i++)
        if (handler_in(&hobjs[i], a))
            return hlast = &hobjs[i];
    return NULL;
}

cm5_status_t cm5i_handler_encode(const void *fp, cm5i_href_t *out)
{
    uintptr_t a = (uintptr_t)fp;
    const hobj_t *o = handler_find_addr(a);

    if (!o || handler_stale(o)) {
        cm5i_handler_refresh();
        o = handler_find_addr(a);
    }
    if (!o || a - o->base > UINT32_MAX)
        return CM5_ERR_HANDLER;
    out->obj = o->id;
    out->off = (uint32_t)(a - o->base);
    return CM5_OK;
}

static void *handler_lookup(cm5i_href_t ref, int *late)
{
    for (int i = 0; i < nhobjs; i++) {
        uintptr_t a = hobjs[i].base + ref.off;

        if (hobjs[i].id == ref.obj) {
            *late = i >= nstartup;
            return handler_in(&hobjs[i], a) ? (void *)a : NULL;
        }
    }
    return (void *)-1;
}

void *cm5i_handler_decode(cm5i_href_t ref)
{
    int late = 0;
    void *fp = handler_lookup(ref, &late);

    /* Object unknown (maybe dlopen'ed since), or loaded late and maybe
     * unloaded since. */
    if (fp == (void *)-1 || (late && handler_unloads() != hsubs)) {
        cm5i_handler_refresh();
        fp = handler_lookup(ref, &late);
    }
    return fp == (void *)-1 ? NULL : fp;
}

void cm5i_handler_raw(const void *fp, cm5i_href_t *out)
{
    uint64_t a = (uint64_t)(uintptr_t)fp;

    out->obj = (uint32_t)(a >> 32);
    out->off = (uint32_t)a;
}

void *cm5i_handler_decode_raw(cm5i_href_t ref)
{
    uint64_t a = (uint64_t)ref.obj << 32 | ref.off;
    const hobj_t *o;

    if (a > UINTPTR_MAX)
        return NULL;
    o = handler_find_addr((uintptr_t)a);
    if (!o || handler_stale(o)) {
        cm5i_handler_refresh();
        o = handler_find_addr((uintptr_t)a);
    }
    return o ? (void *)(uintptr_t)a : NULL;
}

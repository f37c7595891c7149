/*
 * Table of the loaded objects' executable segments, built with
 * dl_iterate_phdr and refreshed when a lookup misses (dlopen).  Lookups
 * take no lock and make no system call.
 */
#include "am_handler.h"

#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "am_log.h"

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
static const hobj_t *hlast; /* one-entry cache for the send path */

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
    dl_iterate_phdr(handler_add, NULL);
    for (int i = 0; i < nhobjs; i++)
        for (int j = 0; j < i; j++)
            if (hobjs[i].id == hobjs[j].id)
                cm5i_log(CM5I_LOG_WARN, "handler",
                         "two loaded objects share id %08x: handlers in "
                         "them may resolve wrongly",
                         hobjs[i].id);
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

    if (!o) {
        cm5i_handler_refresh();
        o = handler_find_addr(a);
    }
    if (!o || a - o->base > UINT32_MAX)
        return CM5_ERR_HANDLER;
    out->obj = o->id;
    out->off = (uint32_t)(a - o->base);
    return CM5_OK;
}

static void *handler_lookup(cm5i_href_t ref)
{
    for (int i = 0; i < nhobjs; i++) {
        uintptr_t a = hobjs[i].base + ref.off;

        if (hobjs[i].id == ref.obj)
            return handler_in(&hobjs[i], a) ? (void *)a : NULL;
    }
    return (void *)-1;
}

void *cm5i_handler_decode(cm5i_href_t ref)
{
    void *fp = handler_lookup(ref);

    if (fp == (void *)-1) { /* object unknown: maybe dlopen'ed since */
        cm5i_handler_refresh();
        fp = handler_lookup(ref);
    }
    return fp == (void *)-1 ? NULL : fp;
}

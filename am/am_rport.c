/*
 * rports: 128 receive ports per node, the targets of cm5_scopy.
 */
#include "am_rport.h"

#include <string.h>

#include "am_ctx.h"
#include "am_guard.h"

cm5i_rport_t cm5i_rports[CM5_RPORTS];

static int rport_ok(int r) { return r >= 0 && r < CM5_RPORTS; }

cm5_status_t cm5_rport_alloc(int rport, int *out)
{
    CM5I_GUARD();
    cm5i_ensure_init();
    if (rport == -1) {
        for (int r = 0; r < CM5_RPORTS; r++)
            if (!cm5i_rports[r].allocated)
                return cm5_rport_alloc(r, out);
        return CM5_ERR_AGAIN;
    }
    if (!rport_ok(rport))
        return CM5_ERR_INVALID;
    if (cm5i_rports[rport].allocated)
        return CM5_ERR_STATE;
    memset(&cm5i_rports[rport], 0, sizeof(cm5i_rports[rport]));
    cm5i_rports[rport].allocated = 1;
    *out = rport;
    return CM5_OK;
}

cm5_status_t cm5_rport_free(int rport)
{
    CM5I_GUARD();
    if (!rport_ok(rport))
        return CM5_ERR_INVALID;
    if (!cm5i_rports[rport].allocated)
        return CM5_ERR_STATE;
    cm5i_rports[rport].allocated = 0;
    return CM5_OK;
}

cm5_status_t cm5_rport_get(int rport, cm5_rport_attr_t *out)
{
    CM5I_GUARD(); /* (the interrupt thread may be in a pass) */
    if (!rport_ok(rport))
        return CM5_ERR_INVALID;
    if (!cm5i_rports[rport].allocated)
        return CM5_ERR_STATE;
    *out = cm5i_rports[rport].a;
    return CM5_OK;
}

cm5_status_t cm5_rport_set(int rport, const cm5_rport_attr_t *a)
{
    CM5I_GUARD();
    if (!rport_ok(rport))
        return CM5_ERR_INVALID;
    if (!cm5i_rports[rport].allocated)
        return CM5_ERR_STATE;
    cm5i_rports[rport].a = *a;
    return CM5_OK;
}

int cm5_rport_free_count(void)
{
    CM5I_GUARD(); /* (the interrupt thread may be in a pass) */
    int n = 0;

    for (int r = 0; r < CM5_RPORTS; r++)
        n += !cm5i_rports[r].allocated;
    return n;
}

void cm5i_rport_landed(int rport, size_t len)
{
    cm5i_rport_t *p = &cm5i_rports[rport];

    p->pending -= (long)len;
    p->a.total_nbytes += (long)len;
    p->a.byte_counter -= (long)len;
    if (p->a.byte_counter == 0 && p->a.handler)
        p->a.handler(rport, p->a.handler_arg2);
}

int cm5i_rport_place(int rport, int src, size_t off, size_t len,
                     cm5i_rport_place_t *pl)
{
    const cm5_rport_attr_t *a = &cm5i_rports[rport].a;

    if (a->esize <= 0)
        return 0;
    if (a->estride < a->esize)
        cm5_fatal("CMAML_scopy",
                  "rport %d on node %d has elements of %ld "
                  "bytes every %ld bytes: the stride is smaller than the "
                  "element (node %d sent %zu bytes)",
                  rport, cm5i_ctx.rank, a->esize, a->estride, src, len);
    if (a->ecount > 0 && off + len > (size_t)(a->ecount * a->esize))
        cm5_fatal("CMAML_scopy",
                  "%zu bytes from node %d at offset %zu pass "
                  "the %ld elements of %ld bytes of rport %d on node %d",
                  len, src, off, a->ecount, a->esize, rport, cm5i_ctx.rank);
    if (a->estride == a->esize)
        return 0; /* no gaps: contiguous */
    pl->base = a->addr;
    pl->off = off;
    pl->esize = a->esize;
    pl->estride = a->estride;
    return 1;
}

void cm5i_rport_scatter(const cm5i_rport_place_t *pl, const void *data,
                        size_t len)
{
    const char *s = data;
    size_t es = (size_t)pl->esize, off = pl->off;

    while (len > 0) {
        size_t i = off / es, k = off % es, n = es - k;

        if (n > len)
            n = len;
        memcpy(pl->base + i * (size_t)pl->estride + k, s, n);
        s += n;
        off += n;
        len -= n;
    }
}

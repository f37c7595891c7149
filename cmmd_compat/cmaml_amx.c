/*
 * CMAML extras (<cm/cmmd/amx.h>): one-channel polls and waits that
 * consume, active-message tags, element-wise rports.
 */
#include <stdint.h>

#include "cm/cmmd.h"
#include "cm5/cm5.h"
#include "cmmd_internal.h"

#define CMAML_TAGS 16

/* ---- polling ---- */

void CMAML_request_poll(void)
{
    CM5C_HOLD();
    cm5_poll_requests();
}

void CMAML_reply_poll(void)
{
    CM5C_HOLD();
    cm5_poll_replies();
}

static void cmaml_flag(const char *call, volatile int *flag)
{
    if (!flag)
        cm5_fatal(call, "flag is a null pointer");
}

void CMAML_poll_until_gte(volatile int *flag, int value)
{
    CM5C_HOLD();
    cmaml_flag("CMAML_poll_until_gte", flag);
    cm5_wait_while_lt(flag, value);
}

/* Interrupts are held for the whole call: no handler runs between the
 * test that ends the wait and the subtraction. */
static void cmaml_consume(const char *call, volatile int *flag, int value)
{
    cmaml_flag(call, flag);
    cm5_wait_while_lt(flag, value);
    *flag -= value;
}

void CMAML_wait(volatile int *flag, int value)
{
    CM5C_HOLD();
    cmaml_consume("CMAML_wait", flag, value);
}

void CMAML_poll_wait(volatile int *flag, int value)
{
    CM5C_HOLD();
    cmaml_consume("CMAML_poll_wait", flag, value);
}

/* ---- tags ---- */

static unsigned char cmaml_tags[CMAML_TAGS];

static void cmaml_tag_check(const char *call, int tag)
{
    if (tag < 0 || tag >= CMAML_TAGS)
        cm5_fatal(call, "tag %d does not exist (tags are 0..%d)", tag,
                  CMAML_TAGS - 1);
}

int CMAML_allocate_tag(void)
{
    CM5C_HOLD();
    for (int t = 0; t < CMAML_TAGS; t++) {
        if (!cmaml_tags[t]) {
            cmaml_tags[t] = 1;
            return t;
        }
    }
    return CMMD_ERRVAL;
}

int CMAML_allocate_this_tag(int tag)
{
    CM5C_HOLD();
    cmaml_tag_check("CMAML_allocate_this_tag", tag);
    if (cmaml_tags[tag])
        return CMMD_ERRVAL;
    cmaml_tags[tag] = 1;
    return tag;
}

int CMAML_free_tag(int tag)
{
    CM5C_HOLD();
    cmaml_tag_check("CMAML_free_tag", tag);
    if (!cmaml_tags[tag])
        return CMMD_ERRVAL;
    cmaml_tags[tag] = 0;
    return 0;
}

/* ---- element-wise rports ---- */

static void cmaml_rport_check(const char *call, int rport)
{
    if (rport < 0 || rport >= CM5_RPORTS)
        cm5_fatal(call, "rport %d does not exist (rports are 0..%d)", rport,
                  CM5_RPORTS - 1);
}

static cm5_rport_attr_t cmaml_rport_attr(const char *call, int rport)
{
    cm5_rport_attr_t a;

    cmaml_rport_check(call, rport);
    if (cm5_rport_get(rport, &a) != CM5_OK)
        cm5_fatal(call, "rport %d is not allocated", rport);
    return a;
}

static long cmaml_nonneg(const char *call, const char *what, int n)
{
    if (n < 0)
        cm5_fatal(call, "negative %s %d", what, n);
    return n;
}

#define CMAML_ESET(name, field, what)                                          \
    void name(int rport, int value)                                            \
    {                                                                          \
        CM5C_HOLD();                                                           \
        cm5_rport_attr_t a = cmaml_rport_attr(#name, rport);                   \
        a.field = cmaml_nonneg(#name, what, value);                            \
        cm5_rport_set(rport, &a);                                              \
    }

#define CMAML_EGET(name, field)                                                \
    int name(int rport)                                                        \
    {                                                                          \
        CM5C_HOLD();                                                           \
        return (int)cmaml_rport_attr(#name, rport).field;                      \
    }

CMAML_ESET(CMAML_set_rport_esize, esize, "element size")
CMAML_ESET(CMAML_set_rport_estride, estride, "element stride")
CMAML_ESET(CMAML_set_rport_ecount, ecount, "element count")
CMAML_EGET(CMAML_get_rport_esize, esize)
CMAML_EGET(CMAML_get_rport_estride, estride)
CMAML_EGET(CMAML_get_rport_ecount, ecount)

void *CMAML_get_rport_addri(int rport, int i)
{
    CM5C_HOLD();
    cm5_rport_attr_t a = cmaml_rport_attr("CMAML_get_rport_addri", rport);
    long step = a.esize > 0 ? a.estride : 1;

    cmaml_nonneg("CMAML_get_rport_addri", "element index", i);
    return (char *)a.addr + (long)i * step;
}

int CMAML_get_rport_allocated(int rport)
{
    CM5C_HOLD();
    cm5_rport_attr_t a;

    cmaml_rport_check("CMAML_get_rport_allocated", rport);
    return cm5_rport_get(rport, &a) == CM5_OK;
}

void CMAML_set_rport_allocated(int rport, int allocated)
{
    CM5C_HOLD();
    cm5_rport_attr_t a;
    int is, r;

    cmaml_rport_check("CMAML_set_rport_allocated", rport);
    is = cm5_rport_get(rport, &a) == CM5_OK;
    if (allocated && !is)
        cm5_rport_alloc(rport, &r);
    else if (!allocated && is)
        cm5_rport_free(rport);
}

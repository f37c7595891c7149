/*
 * CMAML rports and scopy on the native cm5_rport_* and cm5_scopy calls.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cm/cmmd.h"
#include "cm5/cm5.h"
#include "cmmd_internal.h"

static cm5_rport_attr_t cmaml_rport(const char *call, int rport)
{
    cm5_rport_attr_t a;
    cm5_status_t st = cm5_rport_get(rport, &a);

    if (st == CM5_ERR_INVALID)
        cm5_fatal(call, "rport %d does not exist (rports are 0..%d)", rport,
                  CM5_RPORTS - 1);
    if (st != CM5_OK)
        cm5_fatal(call, "rport %d is not allocated", rport);
    return a;
}

static int cmaml_alloc(const char *call, int rport)
{
    int r;
    cm5_status_t st = cm5_rport_alloc(rport, &r);

    if (st == CM5_ERR_INVALID)
        cm5_fatal(call, "rport %d does not exist (rports are 0..%d)", rport,
                  CM5_RPORTS - 1);
    return st == CM5_OK ? r : -1;
}

int CMAML_allocate_rport(void)
{
    CM5C_HOLD();
    return cmaml_alloc("CMAML_allocate_rport", -1);
}

int CMAML_allocate_this_rport(int rport)
{
    CM5C_HOLD();
    if (rport < 0)
        cm5_fatal("CMAML_allocate_this_rport",
                  "rport %d does not exist "
                  "(rports are 0..%d)",
                  rport, CM5_RPORTS - 1);
    return cmaml_alloc("CMAML_allocate_this_rport", rport);
}

int CMAML_free_rport(int rport)
{
    CM5C_HOLD();
    cm5_status_t st = cm5_rport_free(rport);

    if (st == CM5_ERR_INVALID)
        cm5_fatal("CMAML_free_rport",
                  "rport %d does not exist (rports are "
                  "0..%d)",
                  rport, CM5_RPORTS - 1);
    if (st != CM5_OK)
        cm5_fatal("CMAML_free_rport",
                  "rport %d is not allocated (freed "
                  "twice?)",
                  rport);
    return TRUE;
}

#define CMAML_SET(name, field, T, conv)                                        \
    void name(int rport, T value)                                              \
    {                                                                          \
        CM5C_HOLD();                                                           \
        cm5_rport_attr_t a = cmaml_rport(#name, rport);                        \
        a.field = conv(value);                                                 \
        cm5_rport_set(rport, &a);                                              \
    }

#define CMAML_GET(name, field, T, conv)                                        \
    T name(int rport)                                                          \
    {                                                                          \
        CM5C_HOLD();                                                           \
        return conv(cmaml_rport(#name, rport).field);                          \
    }

#define AS_IS(x) (x)
#define AS_INT(x) ((int)(x))
#define AS_RHANDLER(x) ((cm5_rport_handler_func_t)(void (*)(void))(x))
#define AS_CHANDLER(x) ((CMAML_handler_t)(void (*)(void))(x))

static long cmaml_count(int n)
{
    if (n < 0)
        cm5_fatal("CMAML_set_rport_byte_counter", "negative count %d", n);
    return n;
}

CMAML_SET(CMAML_set_rport_addr, addr, void *, AS_IS)
CMAML_SET(CMAML_set_rport_byte_counter, byte_counter, int, cmaml_count)
CMAML_SET(CMAML_set_rport_total_nbytes, total_nbytes, int, AS_IS)
CMAML_SET(CMAML_set_rport_handler, handler, CMAML_handler_t, AS_RHANDLER)
CMAML_SET(CMAML_set_rport_handler_arg2, handler_arg2, void *, AS_IS)
CMAML_GET(CMAML_get_rport_addr, addr, void *, AS_IS)
CMAML_GET(CMAML_get_rport_byte_counter, byte_counter, int, AS_INT)
CMAML_GET(CMAML_get_rport_total_nbytes, total_nbytes, int, AS_INT)
CMAML_GET(CMAML_get_rport_handler, handler, CMAML_handler_t, AS_CHANDLER)
CMAML_GET(CMAML_get_rport_handler_arg2, handler_arg2, void *, AS_IS)

int CMAML_number_of_rports(void)
{
    CM5C_HOLD();
    return CM5_RPORTS;
}

int CMAML_number_of_free_rports(void)
{
    CM5C_HOLD();
    return cm5_rport_free_count();
}

int CMAML_scopy(int node, int rport, int align, int offset, void *buf,
                int nbytes, CMAML_handler_t sent_handler, void *sent_arg)
{
    CM5C_HOLD();
    static const char call[] = "CMAML_scopy";
    cm5_status_t st;

    (void)align; /* the CM-5's word alignment; any alignment works here */
    cm5c_check_node(call, node, 0);
    if (rport < 0 || rport >= CM5_RPORTS)
        cm5_fatal(call, "rport %d does not exist (rports are 0..%d)", rport,
                  CM5_RPORTS - 1);
    if (offset < 0 || nbytes < 0 || (nbytes > 0 && !buf))
        cm5_fatal(call, "bad transfer (offset %d, %d bytes from %p)", offset,
                  nbytes, buf);
    st = cm5_scopy(node, rport, (size_t)offset, buf, (size_t)nbytes,
                   (void (*)(void *))(void (*)(void))sent_handler, sent_arg);
    if (st == CM5_ERR_STATE)
        cm5_fatal(call, "called from inside a handler");
    if (st != CM5_OK)
        cm5_fatal(call, "%s", cm5_status_string(st));
    return TRUE;
}

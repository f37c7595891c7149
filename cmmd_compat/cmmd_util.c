/*
 * <cm/cmmd/util.h>: CMUTIL_, the CM-5 utility layer's names for CMMD
 * calls.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cm/cmmd.h"
#include "cm5/cm5.h"
#include "cmmd_internal.h"

int CMUTIL_get_errno(void) { return CMMD_get_errno(); }

void CMUTIL_set_errno(int err)
{
    CM5C_HOLD();
    cm5c_set_errno(err);
}

int CMUTIL_self_address(void) { return CMMD_self_address(); }

int CMUTIL_partition_size(void) { return CMMD_partition_size(); }

void CMUTIL_resize_partition(int size)
{
    CM5C_HOLD();
    cm5_status_t st;

    cm5c_io_sync();
    st = cm5_partition_resize(size);
    if (st == CM5_ERR_INVALID)
        cm5_fatal("CMUTIL_resize_partition", "size %d is not in 1..%d", size,
                  cm5_size());
    if (st != CM5_OK)
        cm5_fatal("CMUTIL_resize_partition", "%s", cm5c_state_error(st));
}

void CMUTIL_enable_safety(void) { CMMD_enable_safety(); }

void CMUTIL_disable_safety(void) { CMMD_disable_safety(); }

void CMUTIL_error(const char *format, ...)
{
    CM5C_HOLD();
    char msg[1024];

    CM5C_FORMAT(msg, format);
    cm5_fatal("CMUTIL_error", "%s", msg);
}

void CMUTIL_internal_error(const char *format, ...)
{
    CM5C_HOLD();
    char msg[1024];

    CM5C_FORMAT(msg, format);
    cm5_fatal("CMUTIL_internal_error", "internal error: %s", msg);
}

/* One line in the runtime's log format; the node goes on. */
void CMUTIL_warning(const char *format, ...)
{
    CM5C_HOLD();
    char msg[1024];

    CM5C_FORMAT(msg, format);
    fflush(stdout);
    fprintf(stderr, "cm5[%d:%d] warning CMUTIL_warning: %s\n", cm5_rank(),
            (int)getpid(), msg);
    fflush(stderr);
}

/*
 * prog_cnbad MODE: one wrong call of <cm/cmmd/cn.h> or <cm/cmmd/util.h>
 * on a job of 2 nodes, made by node 1 while node 0 waits in a barrier.
 * The library must report it in one line "cm5[1:<pid>] error <call>:
 * <message>" and stop the job (tests/cmmd/cn.sh checks the line, the
 * status and the time).  If the wrong call returns, the program says so
 * and exits with status 99.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cm/cmmd.h>

#include "t_util.h"

static void bad(const char *m)
{
    double v[4] = {0};

    if (!strcmp(m, "combiner"))
        CMMD_reduce_int_start(1, 99);
    else if (!strcmp(m, "combiner_float"))
        CMMD_scan_double_start(1.0, CMMD_combiner_xor, CMMD_upward, CMMD_none,
                               0, CMMD_inclusive);
    else if (!strcmp(m, "direction"))
        CMCN_scan_uint_start(1, CMMD_combiner_uadd, 7, CMMD_none, 0,
                             CMMD_inclusive);
    else if (!strcmp(m, "finish_without_start"))
        CMMD_reduce_int_finish(0, CMMD_combiner_add);
    else if (!strcmp(m, "scan_finish_without_start"))
        CMCN_scan_float_finish();
    else if (!strcmp(m, "second_start")) {
        CMMD_scan_int_start(1, CMMD_combiner_add, CMMD_upward, CMMD_none, 0,
                            CMMD_inclusive);
        CMMD_scan_uint_start(1, CMMD_combiner_uadd, CMMD_upward, CMMD_none, 0,
                             CMMD_inclusive);
    } else if (!strcmp(m, "finish_other_type")) {
        CMMD_reduce_int_start(1, CMMD_combiner_add);
        CMMD_reduce_double_finish(0.0, CMMD_combiner_dadd);
    } else if (!strcmp(m, "scan_v_size"))
        CMMD_scan_v(v, v, CMMD_combiner_dadd, 4, 2, CMMD_upward, CMMD_none, 0,
                    CMMD_inclusive);
    else if (!strcmp(m, "scan_v_count"))
        CMMD_scan_double_v(v, v, CMMD_combiner_dadd, -1, CMMD_upward, CMMD_none,
                           0, CMMD_inclusive);
    else if (!strcmp(m, "segmented_mode"))
        CMMD_segmented_reduce_uint(1, CMMD_combiner_uadd, 9, 0);
    else if (!strcmp(m, "cmutil_error"))
        CMUTIL_error("legacy failure %d\n", 7);
    else if (!strcmp(m, "cmutil_internal_error"))
        CMUTIL_internal_error("lost %s", "track");
    else {
        fprintf(stderr, "prog_cnbad: unknown mode %s\n", m);
        exit(2);
    }
}

int main(int argc, char **argv)
{
    t_init("prog_cnbad");
    T_CHECK(argc > 1 && t_nodes == 2, "usage: prog_cnbad MODE (2 nodes)");
    if (t_self == 1)
        bad(argv[1]);
    CMMD_sync_with_nodes();
    fprintf(stderr, "prog_cnbad[%d]: %s: the wrong call returned\n", t_self,
            argv[1]);
    fflush(stderr);
    _exit(99);
}

/*
 * cm5_hello: the trivial cm5fab program of bench/scale.sh: one barrier,
 * then every node prints its wall clock and resident memory
 * (scale_rss.h), a second barrier, exit.
 *
 *   cm5run -n N bench/cm5_hello
 */
#include <cm/cmmd.h>

#include "scale_rss.h"

int main(void)
{
    double t;

    CMMD_fset_io_mode(stdout, CMMD_independent);
    CMMD_sync_with_nodes();
    t = scale_now();
    scale_report(CMMD_self_address(), t);
    CMMD_sync_with_nodes();
    return 0;
}

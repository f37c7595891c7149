/* Placeholder until this group is written: each call stops the job. */
#include "sched_internal.h"

void cm5s_run_drsn(cm5s_xfer_t *x)
{
    cm5s_fatal(x, "algorithm not built yet");
}

void cm5s_run_drsn_plus(cm5s_xfer_t *x)
{
    cm5s_fatal(x, "algorithm not built yet");
}

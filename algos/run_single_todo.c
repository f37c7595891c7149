/* Placeholder until this group is written: each call stops the job. */
#include "sched_internal.h"

void cm5s_run_ac(cm5s_xfer_t *x)
{
    cm5s_fatal(x, "algorithm not built yet");
}

void cm5s_run_lp(cm5s_xfer_t *x)
{
    cm5s_fatal(x, "algorithm not built yet");
}

void cm5s_run_rsn(cm5s_xfer_t *x)
{
    cm5s_fatal(x, "algorithm not built yet");
}

void cm5s_run_rsnh(cm5s_xfer_t *x)
{
    cm5s_fatal(x, "algorithm not built yet");
}

/* Placeholder until the workload generators are written. */
#include <stdio.h>

#include <cm5/workload.h>

cm5_status_t cm5_workload_make(const char *spec, int p, uint64_t seed,
                               cm5_workload_t *w, char *err, size_t errlen)
{
    (void)p;
    (void)seed;
    (void)w;
    snprintf(err, errlen, "workload '%s': generators not built yet", spec);
    return CM5_ERR_INVALID;
}

void cm5_workload_free(cm5_workload_t *w)
{
    (void)w;
}

const char *cm5_workload_help(void)
{
    return "(workload generators not built yet)\n";
}

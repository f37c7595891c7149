/*
 * scale_rss.h: what bench/cm5_hello.c and bench/mpi_hello.c print for
 * bench/scale.sh, so that both sides measure the same way: one line per
 * node, "node R t_barrier S rss_kb A hwm_kb B anon_kb C file_kb D
 * shmem_kb E pss_kb F", S the wall clock (CLOCK_REALTIME, seconds) after
 * the first barrier, the rest from /proc/self/status, F (the
 * proportional set size: each shared page divided among the processes
 * that map it) from /proc/self/smaps_rollup.
 */
#ifndef SCALE_RSS_H
#define SCALE_RSS_H

#include <stdio.h>
#include <string.h>
#include <time.h>

static long scale_proc_kb(const char *file, const char *key)
{
    FILE *f = fopen(file, "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, key, n) == 0 && line[n] == ':') {
            sscanf(line + n + 1, "%ld", &v);
            break;
        }
    fclose(f);
    return v;
}

static long scale_status_kb(const char *key)
{
    return scale_proc_kb("/proc/self/status", key);
}

static void scale_report(int self, double t_barrier)
{
    printf("node %d t_barrier %.6f rss_kb %ld hwm_kb %ld anon_kb %ld "
           "file_kb %ld shmem_kb %ld pss_kb %ld\n",
           self, t_barrier, scale_status_kb("VmRSS"), scale_status_kb("VmHWM"),
           scale_status_kb("RssAnon"), scale_status_kb("RssFile"),
           scale_status_kb("RssShmem"),
           scale_proc_kb("/proc/self/smaps_rollup", "Pss"));
    fflush(stdout);
}

static double scale_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif

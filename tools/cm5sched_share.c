/*
 * One workload matrix per host.  Every node builds the same p x p matrix
 * from (spec, p, seed), and a point needs only its own row and column;
 * at 1024 nodes the matrices alone (8 MB of counts each, and the
 * generators' scratch) took 13 of this host's 24 GB.  So the first node
 * of a host to ask builds it into shared memory and the others map it
 * read-only (a write through it faults).
 *
 * Collective: every node calls it at the same point.  The node whose
 * O_EXCL create wins builds the matrix (or its error) into the segment
 * and marks it ready; after a barrier the others map it; after a second
 * barrier the name is unlinked.  A node that cannot create or map the
 * segment, or finds it not ready, builds its own copy: the result is the
 * same matrix either way, only the memory differs.  Under cm5run the
 * name carries the job's key (/dev/shm/cm5-KEY-*), so its janitor
 * removes it if the job dies between create and unlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cm/cmmd.h>

#include "boot_env.h"
#include "cm5sched.h"

#define SHARE_READY 0x52454459u /* "REDY" */

typedef struct {
    uint32_t ready; /* SHARE_READY once everything below is written */
    int status;     /* cm5_workload_make's */
    cm5_workload_t w;
    char err[256];
} share_hdr_t;

/* The matrix's place in the segment: after the header, aligned. */
#define SHARE_OFF ((sizeof(share_hdr_t) + 63) & ~(size_t)63)

/* The segment's name for this job's n-th shared workload. */
static void share_name(char *name, size_t len, unsigned n)
{
    static uint64_t nonce;
    static int have;
    const char *key = getenv(CM5_ENV_JOB_KEY);

    if (key && *key && strlen(key) < 64 && !strchr(key, '/')) {
        snprintf(name, len, "/cm5-%s-sched%u", key, n);
        return;
    }
    if (!have) { /* not under cm5run: node 0's draw, everyone's */
        uint64_t v[1] = {0};
        struct timespec ts;

        if (cs_self == 0) {
            clock_gettime(CLOCK_REALTIME, &ts);
            v[0] = mix((uint64_t)getpid() << 32 ^ (uint64_t)ts.tv_nsec ^
                       (uint64_t)ts.tv_sec << 20);
        }
        CMMD_reduce_v(v, v, CMMD_combiner_umax, sizeof(uint64_t), 1);
        nonce = v[0];
        have = 1;
    }
    snprintf(name, len, "/cm5sched-%016" PRIx64 "-%u", nonce, n);
}

/* Map the segment another node built; 0 if it is usable. */
static int share_map(const char *name, cm5_workload_t *w, void **map,
                     size_t *maplen, int *status, char *err, size_t errlen)
{
    int fd = shm_open(name, O_RDONLY, 0);
    struct stat st;
    const share_hdr_t *h;
    void *m;

    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < SHARE_OFF) {
        close(fd);
        return -1;
    }
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return -1;
    h = m;
    if (__atomic_load_n(&h->ready, __ATOMIC_ACQUIRE) != SHARE_READY ||
        (h->status == CM5_OK &&
         (h->w.nodes != cs_nodes ||
          (size_t)st.st_size < SHARE_OFF + (size_t)cs_nodes * (size_t)cs_nodes *
                                               sizeof(size_t)))) {
        munmap(m, (size_t)st.st_size);
        return -1;
    }
    *status = h->status;
    if (h->status != CM5_OK) {
        snprintf(err, errlen, "%s", h->err);
        munmap(m, (size_t)st.st_size);
        return 0;
    }
    *w = h->w;
    w->com = (size_t *)((char *)m + SHARE_OFF);
    *map = m;
    *maplen = (size_t)st.st_size;
    return 0;
}

/* Build the matrix into a new segment on fd; the segment's header says
 * the result, errors included.  0 and the mapping if it holds the
 * matrix; -1 (and w built privately, or the error in err) if not. */
static int share_build(int fd, const char *spec, uint64_t seed,
                       cm5_workload_t *w, void **map, size_t *maplen,
                       int *status, char *err, size_t errlen)
{
    size_t mat = (size_t)cs_nodes * (size_t)cs_nodes * sizeof(size_t);
    share_hdr_t *h;
    void *m;

    *status = cm5_workload_make(spec, cs_nodes, seed, w, err, errlen);
    if (*status != CM5_OK) {
        if (ftruncate(fd, (off_t)SHARE_OFF) == 0 &&
            (m = mmap(NULL, SHARE_OFF, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                      0)) != MAP_FAILED) {
            h = m;
            h->status = *status;
            snprintf(h->err, sizeof(h->err), "%s", err);
            __atomic_store_n(&h->ready, SHARE_READY, __ATOMIC_RELEASE);
            munmap(m, SHARE_OFF);
        }
        return -1;
    }
    if (ftruncate(fd, (off_t)(SHARE_OFF + mat)) != 0 ||
        (m = mmap(NULL, SHARE_OFF + mat, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                  0)) == MAP_FAILED)
        return -1; /* the others build their own */
    h = m;
    memcpy((char *)m + SHARE_OFF, w->com, mat);
    free(w->com);
    h->status = CM5_OK;
    h->w = *w;
    h->w.com = NULL;
    w->com = (size_t *)((char *)m + SHARE_OFF);
    __atomic_store_n(&h->ready, SHARE_READY, __ATOMIC_RELEASE);
    mprotect(m, SHARE_OFF + mat, PROT_READ);
    *map = m;
    *maplen = SHARE_OFF + mat;
    return 0;
}

int share_workload(const char *spec, uint64_t seed, shared_wl_t *s, char *err,
                   size_t errlen)
{
    static unsigned count;
    char name[128];
    int fd, built = 0, status = CM5_OK;

    memset(s, 0, sizeof(*s));
    share_name(name, sizeof(name), count++);
    fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd >= 0) {
        built = 1;
        share_build(fd, spec, seed, &s->w, &s->map, &s->maplen, &status, err,
                    errlen);
        close(fd);
    }
    CMMD_sync_with_nodes();
    if (!built &&
        share_map(name, &s->w, &s->map, &s->maplen, &status, err, errlen) != 0)
        status = cm5_workload_make(spec, cs_nodes, seed, &s->w, err, errlen);
    /* How it went, for --progress; the reduction is the second barrier. */
    s->how[built ? 0 : s->map ? 1 : 2] = 1;
    CMMD_reduce_v(s->how, s->how, CMMD_combiner_uadd, sizeof(uint64_t), 3);
    if (built)
        shm_unlink(name);
    return status == CM5_OK ? 0 : -1;
}

void share_free(shared_wl_t *s)
{
    if (s->map) {
        munmap(s->map, s->maplen);
        s->w.com = NULL;
    } else {
        cm5_workload_free(&s->w);
    }
}

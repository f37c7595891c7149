/*
 * Local bootstrap through cm5run's socket, the node's half of
 * boot_proto.h (cm5run serves the other with boot_server.c): each round,
 * every node writes a length-prefixed record; cm5run answers with all the
 * records in node order once every node has written.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "boot/boot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "boot/boot_env.h"
#include "am_util.h"
#include "boot/boot_proto.h"

static int boot_env_int(const char *name, int *out)
{
    const char *s = getenv(name);
    char *end;
    long v;

    if (!s)
        return 0;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || v < 0 || v > 1 << 20) {
        cm5i_log(CM5I_LOG_ERROR, "boot", "%s=%s is not a valid number", name,
                 s);
        return -1;
    }
    *out = (int)v;
    return 1;
}

static cm5_status_t boot_single(cm5i_boot_t *b)
{
    b->rank = 0;
    b->size = 1;
    b->host = -1;
    b->fd = -1;
    b->doorbell_fd = -1;
    b->local = 1;
    b->method = "single";
    if (getrandom(&b->key, sizeof(b->key), 0) != sizeof(b->key))
        b->key = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
    return CM5_OK;
}

/* A launcher started this process as one of several, but offers no PMIx
 * (Slurm without --mpi=pmix, Flux without -o pmi=pmix, a PMI-1/PMI-2
 * only launcher): every process would run alone.  Say so. */
static void boot_other_launcher(void)
{
    static const char *const sizes[] = {"PMI_SIZE", "SLURM_NTASKS",
                                        "FLUX_JOB_SIZE"};

    for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
        const char *s = getenv(sizes[i]);

        if (s && atoi(s) > 1) {
            cm5i_log(CM5I_LOG_WARN, "boot",
                     "%s=%s: a launcher started this process as one of "
                     "several, but gave it no PMIx server (no PMIX_RANK): "
                     "running as a 1-node partition; use srun --mpi=pmix, "
                     "flux run -o pmi=pmix, mpirun or prterun",
                     sizes[i], s);
            return;
        }
    }
}

/* cm5run --host: CM5_HOST=1 in every process; the host program is one
 * more endpoint after the CM5_SIZE nodes. */
static int boot_host(cm5i_boot_t *b)
{
    int host = 0;

    b->host = -1;
    if (boot_env_int(CM5_ENV_HOST, &host) < 0 || host > 1)
        return 0;
    if (host) {
        b->host = b->size;
        b->size++;
    }
    return 1;
}

cm5_status_t cm5i_boot_init(cm5i_boot_t *b)
{
    const char *key = getenv(CM5_ENV_JOB_KEY);
    int ok = 1;

    memset(b, 0, sizeof(*b));
#ifdef HAVE_PMIX
    if (!getenv(CM5_ENV_BOOT_FD) && cm5i_boot_pmix_present())
        return cm5i_boot_pmix_init(b);
#elif defined(CM5_LEGACY_BUILD)
    /* The i386 libpmix cannot talk to a 64-bit launcher (cm5pmix.c). */
    if (!getenv(CM5_ENV_BOOT_FD) && getenv("PMIX_RANK"))
        cm5i_log(CM5I_LOG_WARN, "boot",
                 "a PMIx launcher started this 32-bit (legacy) program "
                 "directly: running as a 1-node partition; start it "
                 "through cm5pmix (mpirun -n N cm5pmix ./prog, "
                 "doc/porting.md)");
#else
    if (!getenv(CM5_ENV_BOOT_FD) && getenv("PMIX_RANK"))
        cm5i_log(CM5I_LOG_WARN, "boot",
                 "a PMIx launcher started this process, but this cm5fab "
                 "was built without PMIx: running as a 1-node partition "
                 "(rebuild with libpmix-dev installed)");
#endif
    if (!getenv(CM5_ENV_BOOT_FD)) {
        boot_other_launcher();
        return boot_single(b);
    }
    b->doorbell_fd = -1;
    ok &= boot_env_int(CM5_ENV_BOOT_FD, &b->fd) == 1;
    ok &= boot_env_int(CM5_ENV_RANK, &b->rank) == 1;
    ok &= boot_env_int(CM5_ENV_SIZE, &b->size) == 1;
    ok &= boot_host(b);
    if (!ok || b->size < 1 || b->rank >= b->size || !key ||
        sscanf(key, "%16llx", (unsigned long long *)&b->key) != 1) {
        cm5i_log(CM5I_LOG_ERROR, "boot",
                 CM5_ENV_BOOT_FD
                 " is set but " CM5_ENV_RANK ", " CM5_ENV_SIZE ", " CM5_ENV_HOST
                 " or " CM5_ENV_JOB_KEY
                 " is missing or wrong: start the program with cm5run");
        return CM5_ERR_BOOT;
    }
    if (boot_env_int(CM5_ENV_DOORBELL_FD, &b->doorbell_fd) != 1)
        b->doorbell_fd = -1;
    if (fcntl(b->fd, F_GETFD) < 0) {
        cm5i_log(CM5I_LOG_ERROR, "boot", "bootstrap socket %d: %m", b->fd);
        return CM5_ERR_BOOT;
    }
    fcntl(b->fd, F_SETFD, FD_CLOEXEC);
    b->local = 1;
    b->method = "cm5run";
    return CM5_OK;
}

static int boot_io(int fd, void *buf, size_t len, int wr)
{
    char *p = buf;

    while (len > 0) {
        ssize_t n = wr ? write(fd, p, len) : read(fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

cm5_status_t cm5i_boot_allgather(cm5i_boot_t *b, const void *mine, size_t len,
                                 void *all)
{
    cm5_boot_len_t l32 = (cm5_boot_len_t)len, n;

#ifdef HAVE_PMIX
    if (strcmp(b->method, "pmix") == 0)
        return cm5i_boot_pmix_allgather(b, mine, len, all);
#endif
    if (b->fd < 0) {
        memcpy(all, mine, len);
        return CM5_OK;
    }
    if (len > CM5_BOOT_MAX_RECORD) {
        cm5i_log(CM5I_LOG_ERROR, "boot",
                 "bootstrap record of %zu bytes (cm5run takes %u at most)", len,
                 CM5_BOOT_MAX_RECORD);
        return CM5_ERR_BOOT;
    }
    if (boot_io(b->fd, &l32, CM5_BOOT_PREFIX, 1) ||
        boot_io(b->fd, (void *)mine, len, 1) ||
        boot_io(b->fd, &n, CM5_BOOT_PREFIX, 0))
        goto err_io;
    if (n != (cm5_boot_len_t)b->size)
        goto err_proto;
    for (cm5_boot_len_t k = 0; k < n; k++) {
        if (boot_io(b->fd, &l32, CM5_BOOT_PREFIX, 0))
            goto err_io;
        if (l32 != len)
            goto err_proto;
        if (boot_io(b->fd, (char *)all + k * len, len, 0))
            goto err_io;
    }
    return CM5_OK;
err_io:
    cm5i_log(CM5I_LOG_ERROR, "boot", "bootstrap socket: %s",
             errno ? strerror(errno) : "closed by cm5run");
    return CM5_ERR_BOOT;
err_proto:
    cm5i_log(CM5I_LOG_ERROR, "boot",
             "bootstrap records disagree (different cm5fab builds, "
             "providers or CM5_PEER_TIMEOUT settings in one job?)");
    return CM5_ERR_BOOT;
}

void cm5i_boot_abort(cm5i_boot_t *b, int status, const char *msg)
{
#ifdef HAVE_PMIX
    if (b->method && strcmp(b->method, "pmix") == 0)
        cm5i_boot_pmix_abort(status, msg);
#endif
    (void)b, (void)status, (void)msg; /* cm5run sees the exit status */
}

void cm5i_boot_fini(cm5i_boot_t *b)
{
    free(b->near);
    b->near = NULL;
#ifdef HAVE_PMIX
    if (b->method && strcmp(b->method, "pmix") == 0)
        cm5i_boot_pmix_fini();
#endif
    if (b->fd >= 0)
        close(b->fd);
    if (b->doorbell_fd >= 0)
        close(b->doorbell_fd);
    b->fd = b->doorbell_fd = -1;
}

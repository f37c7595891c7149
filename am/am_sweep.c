/*
 * The job's shared-memory names, and their removal on every ending that
 * runs code (issue 23).
 *
 * Every shared-memory file of a job is named /dev/shm/cm5-<key>-...: the
 * libfabric shm endpoints (cm5-<key>-<node>-<channel>, the heartbeat's
 * cm5-<key>-<node>-hb-0), the same-host ring segments (cm5-<key>-<node>-
 * ring, unlinked as soon as every peer has mapped them) and a PMIx job's
 * doorbell (cm5-<key>-db).  A node that ends normally removes its own.
 * A node that fails, or that its launcher stops with SIGTERM, SIGHUP or
 * SIGINT (a PMIx launcher stopping the job after one node died, or dying
 * itself: PR_SET_PDEATHSIG), removes those of the whole job on this
 * host: a node killed outright (SIGKILL, the OOM killer, abort()) cannot
 * remove its own, and under a PMIx launcher nobody else would.  Under
 * cm5run the launcher sweeps again when the job ends, and its janitor
 * when cm5run itself is killed.
 *
 * The sweep runs in signal handlers: system calls only (open, getdents64,
 * unlinkat), no allocation, no stdio.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "am_sweep.h"
#include "am_util.h"

static const int sweep_sigs[] = {SIGTERM, SIGHUP, SIGINT};

static struct {
    char prefix[24];                /* "cm5-<16 hex digits>-" */
    size_t len;                     /* 0: no job key yet */
    volatile sig_atomic_t guard[3]; /* our handler holds sweep_sigs[i] */
} sweep;

void cm5i_sweep_set_key(uint64_t key)
{
    static const char hex[] = "0123456789abcdef";

    memcpy(sweep.prefix, "cm5-", 4);
    for (int i = 0; i < 16; i++)
        sweep.prefix[4 + i] = hex[(key >> (60 - 4 * i)) & 0xf];
    sweep.prefix[20] = '-';
    sweep.prefix[21] = '\0';
    sweep.len = 21;
}

/* The kernel's directory record (getdents64). */
struct sweep_dirent {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

/* Remove /dev/shm's names that start with the job's prefix and then
 * extra (elen bytes). */
static int sweep_names(const char *extra, size_t elen)
{
    char buf[4096] __attribute__((aligned(8)));
    int saved = errno, removed = 0;
    int dir;
    long n;

    if (!sweep.len)
        return 0;
    dir = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return 0;
    /* Unlinking while reading may skip entries: read again until a pass
     * removes nothing. */
    for (int pass = 0; pass < 8; pass++) {
        int here = 0;

        if (lseek(dir, 0, SEEK_SET) < 0)
            break;
        while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0)
            for (long off = 0; off < n;) {
                const struct sweep_dirent *d =
                    (const struct sweep_dirent *)(buf + off);

                off += d->reclen;
                if (strncmp(d->name, sweep.prefix, sweep.len) == 0 &&
                    strncmp(d->name + sweep.len, extra, elen) == 0 &&
                    unlinkat(dir, d->name, 0) == 0)
                    here++;
            }
        removed += here;
        if (!here)
            break;
    }
    close(dir);
    errno = saved;
    return removed;
}

int cm5i_sweep_job(void) { return sweep_names("", 0); }

int cm5i_sweep_node(int node)
{
    char extra[16];
    size_t len = 0;
    char digits[12];
    int nd = 0;
    unsigned v = node < 0 ? 0u : (unsigned)node;

    do
        digits[nd++] = (char)('0' + v % 10);
    while ((v /= 10) && nd < (int)sizeof(digits));
    while (nd)
        extra[len++] = digits[--nd];
    extra[len++] = '-';
    return sweep_names(extra, len);
}

static void sweep_on_signal(int sig)
{
    cm5i_sweep_job();
    signal(sig, SIG_DFL);
    raise(sig); /* ends the process as the signal would have */
}

void cm5i_sweep_guard(void)
{
    for (size_t i = 0; i < sizeof(sweep_sigs) / sizeof(*sweep_sigs); i++) {
        struct sigaction sa, old;

        if (sigaction(sweep_sigs[i], NULL, &old) != 0 ||
            (!(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL &&
             old.sa_handler != sweep_on_signal))
            continue; /* the program's own, or ignored: left alone */
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = sweep_on_signal;
        sigfillset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        if (sigaction(sweep_sigs[i], &sa, NULL) == 0)
            sweep.guard[i] = 1;
    }
}

int cm5i_sweep_guards(int sig)
{
    for (size_t i = 0; i < sizeof(sweep_sigs) / sizeof(*sweep_sigs); i++)
        if (sweep_sigs[i] == sig)
            return sweep.guard[i];
    return 0;
}

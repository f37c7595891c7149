/*
 * CMMD I/O modes.  independent: each node writes its own lines (line
 * buffered; cm5run forwards whole lines).  sync_seq: output appears in
 * node order -- the stream's descriptor is redirected into a memory file,
 * and at each synchronization (CMMD_sync_with_nodes, a partition resize,
 * a mode change, exit) the nodes write what they captured one after the
 * other.  sync_bc and local are accepted and behave as independent.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cm/cmmd.h"
#include "cm5/cm5.h"
#include "cmmd_internal.h"

#define IO_FDS 64

typedef struct {
    CMMD_io_mode_t mode;
    FILE *stream; /* the stream a sync_seq capture flushes */
    int saved;    /* the real descriptor while captured, else -1 */
    int mem;      /* the memory file, else -1 */
} io_fd_t;

static io_fd_t io_fds[IO_FDS];
static int io_capturing, io_atexit;

const char *cm5c_version(void)
{
#ifdef PACKAGE_VERSION
    return PACKAGE_VERSION;
#else
    return "dev";
#endif
}

static io_fd_t *io_fd(const char *call, int fd)
{
    if (fd < 0 || fd >= IO_FDS)
        cm5_fatal(call, "file descriptor %d is not supported (0..%d)", fd,
                  IO_FDS - 1);
    return &io_fds[fd];
}

/* Copy one capture to the real descriptor and empty it. */
static void io_drain(int fd)
{
    io_fd_t *f = &io_fds[fd];
    struct stat st;
    char buf[65536];
    off_t off = 0;

    if (f->stream)
        fflush(f->stream);
    if (fstat(f->mem, &st))
        return;
    while (off < st.st_size) {
        ssize_t n = pread(f->mem, buf, sizeof(buf), off);

        if (n <= 0)
            break;
        for (ssize_t w = 0; w < n;) {
            ssize_t k = write(f->saved, buf + w, (size_t)(n - w));

            if (k <= 0)
                return;
            w += k;
        }
        off += n;
    }
    if (ftruncate(f->mem, 0) == 0)
        lseek(fd, 0, SEEK_SET);
}

static void io_drain_all(void *arg)
{
    (void)arg;
    for (int fd = 0; fd < IO_FDS; fd++)
        if (io_fds[fd].mem >= 0 && io_fds[fd].mode == CMMD_sync_seq)
            io_drain(fd);
}

void cm5c_io_sync(void)
{
    if (io_capturing)
        cm5_ordered(io_drain_all, NULL);
}

static void io_exit(void)
{
    cm5c_io_sync();
}

static void io_drain_one(void *fd)
{
    io_drain(*(int *)fd);
}

/* Leaving sync_seq (every node does it): what was held goes out in node
 * order. */
static void io_uncapture(int fd)
{
    io_fd_t *f = &io_fds[fd];

    if (f->mem < 0)
        return;
    cm5_ordered(io_drain_one, &fd);
    dup2(f->saved, fd);
    close(f->saved);
    close(f->mem);
    f->saved = f->mem = -1;
    io_capturing--;
}

static int io_capture(const char *call, FILE *stream, int fd)
{
    io_fd_t *f = &io_fds[fd];

    if (f->mem >= 0)
        return 0;
    if (stream)
        fflush(stream);
    f->mem = memfd_create("cm5-sync-seq", MFD_CLOEXEC);
    f->saved = dup(fd);
    if (f->mem < 0 || f->saved < 0 || dup2(f->mem, fd) < 0)
        cm5_fatal(call, "cannot capture descriptor %d for sync_seq: %m", fd);
    f->stream = stream;
    io_capturing++;
    if (!io_atexit) {
        atexit(io_exit); /* runs before the runtime's own shut-down */
        io_atexit = 1;
    }
    return 0;
}

static int io_set(const char *call, FILE *stream, int fd, CMMD_io_mode_t mode)
{
    static int init;

    if (!init) {
        for (int i = 0; i < IO_FDS; i++)
            io_fds[i].saved = io_fds[i].mem = -1;
        init = 1;
    }
    switch (mode) {
    case CMMD_independent:
    case CMMD_sync_bc:
    case CMMD_local:
        io_uncapture(fd);
        break;
    case CMMD_sync_seq:
        if (fd == 0)
            cm5_fatal(call, "sync_seq orders output; descriptor 0 is input");
        io_capture(call, stream, fd);
        break;
    default:
        cm5_fatal(call, "unknown I/O mode %d", (int)mode);
    }
    if (stream)
        setvbuf(stream, NULL, _IOLBF, BUFSIZ);
    io_fd(call, fd)->mode = mode;
    return 0;
}

int CMMD_fset_io_mode(FILE *stream, CMMD_io_mode_t mode)
{
    if (!stream)
        cm5_fatal("CMMD_fset_io_mode", "stream is a null pointer");
    io_fd("CMMD_fset_io_mode", fileno(stream));
    return io_set("CMMD_fset_io_mode", stream, fileno(stream), mode);
}

int CMMD_set_io_mode(int fd, CMMD_io_mode_t mode)
{
    FILE *s = fd == 1 ? stdout : fd == 2 ? stderr : NULL;

    io_fd("CMMD_set_io_mode", fd);
    return io_set("CMMD_set_io_mode", s, fd, mode);
}

CMMD_io_mode_t CMMD_fget_io_mode(FILE *stream)
{
    if (!stream)
        cm5_fatal("CMMD_fget_io_mode", "stream is a null pointer");
    return io_fd("CMMD_fget_io_mode", fileno(stream))->mode;
}

CMMD_io_mode_t CMMD_get_io_mode(int fd)
{
    return io_fd("CMMD_get_io_mode", fd)->mode;
}

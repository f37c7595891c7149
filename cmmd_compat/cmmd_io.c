/*
 * CMMD I/O modes.  independent: each node writes its own lines (line
 * buffered; cm5run forwards whole lines).  sync_seq: output appears in
 * node order -- the stream's descriptor is redirected into a memory file,
 * and at each synchronization (CMMD_sync_with_nodes, a partition resize,
 * a mode change, exit) the nodes write what they captured one after the
 * other; a node that left the partition (CMMD_reset_partition_size)
 * writes its lines when it exits.  sync_bc: every node writes the same
 * data and one copy appears -- node 0's; the other nodes' descriptor goes
 * to /dev/null.  On the standard streams local is each node writing its
 * own lines, as independent; on any other descriptor it is the mode of a
 * node's own file (the default there).  Global files (CMMD_global_open)
 * have their modes in cmmd_pfile.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <fcntl.h>
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
    CMMD_file_mode_t mode;
    FILE *stream; /* the stream a sync_seq capture flushes */
    int saved;    /* the real descriptor while captured, else -1 */
    int mem;      /* the memory file, else -1 */
} io_fd_t;

static io_fd_t io_fds[IO_FDS];
static int io_capturing, io_atexit; /* io_capturing: sync_seq captures */

const char *cm5c_version(void)
{
#ifdef PACKAGE_VERSION
    return PACKAGE_VERSION;
#else
    return "dev";
#endif
}

/* The standard streams are shared by the nodes (independent); any other
 * descriptor is a node's own (local). */
static void io_init(void)
{
    static int init;

    if (init)
        return;
    for (int i = 0; i < IO_FDS; i++) {
        io_fds[i].saved = io_fds[i].mem = -1;
        io_fds[i].mode = i <= 2 ? CMMD_independent : CMMD_local;
    }
    init = 1;
}

static io_fd_t *io_fd(const char *call, int fd)
{
    io_init();
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

/* Is this node still in the partition (cm5_ordered needs it)? */
static int io_member(void) { return cm5_rank() < cm5_size(); }

void cm5c_io_sync(void)
{
    if (!io_capturing)
        return;
    if (io_member())
        cm5_ordered(io_drain_all, NULL);
    else
        io_drain_all(NULL);
}

static void io_exit(void) { cm5c_io_sync(); }

static void io_drain_one(void *fd) { io_drain(*(int *)fd); }

/* Leaving sync_seq (every node does it): what was held goes out in node
 * order. */
static void io_uncapture(int fd)
{
    io_fd_t *f = &io_fds[fd];

    if (f->mem < 0)
        return;
    if (f->mode != CMMD_sync_seq)
        ; /* sync_bc: nothing held */
    else if (io_member())
        cm5_ordered(io_drain_one, &fd);
    else
        io_drain(fd);
    if (f->stream)
        fflush(f->stream);
    dup2(f->saved, fd);
    close(f->saved);
    close(f->mem);
    f->saved = f->mem = -1;
    if (f->mode == CMMD_sync_seq)
        io_capturing--;
}

/* Redirect fd: into a memory file (sync_seq) or to /dev/null (sync_bc on
 * nodes other than 0). */
static int io_capture(const char *call, FILE *stream, int fd, int discard)
{
    io_fd_t *f = &io_fds[fd];

    if (f->mem >= 0)
        return 0;
    if (stream)
        fflush(stream);
    f->mem = discard ? open("/dev/null", O_WRONLY | O_CLOEXEC)
                     : memfd_create("cm5-sync-seq", MFD_CLOEXEC);
    f->saved = dup(fd);
    if (f->mem < 0 || f->saved < 0 || dup2(f->mem, fd) < 0)
        cm5_fatal(call, "cannot redirect descriptor %d for %s: %m", fd,
                  discard ? "sync_bc" : "sync_seq");
    f->stream = stream;
    if (!discard)
        io_capturing++; /* every node: cm5_ordered is collective */
    if (!io_atexit) {
        atexit(io_exit); /* runs before the runtime's own shut-down */
        io_atexit = 1;
    }
    return 0;
}

static int io_set(const char *call, FILE *stream, int fd, int mode)
{
    cm5c_pfile_check_mode(call, mode);
    io_fd(call, fd);
    if (mode == (int)io_fds[fd].mode && mode != CMMD_independent)
        return 0;
    switch (mode) {
    case CMMD_independent:
    case CMMD_local:
        io_uncapture(fd);
        break;
    case CMMD_sync_bc:
        io_uncapture(fd);
        if (fd != 0 && cm5_rank() != 0)
            io_capture(call, stream, fd, 1);
        break;
    case CMMD_sync_seq:
        if (fd == 0)
            cm5_fatal(call, "sync_seq orders output; descriptor 0 is input");
        io_uncapture(fd);
        io_capture(call, stream, fd, 0);
        break;
    }
    if (stream)
        setvbuf(stream, NULL, _IOLBF, BUFSIZ);
    io_fd(call, fd)->mode = (CMMD_file_mode_t)mode;
    return 0;
}

int CMMD_fset_io_mode(FILE *stream, CMMD_file_mode_t mode)
{
    CM5C_HOLD();
    int gfd = stream ? cm5c_pfile_stream_fd(stream) : -1;

    if (!stream)
        cm5_fatal("CMMD_fset_io_mode", "stream is a null pointer");
    if (gfd >= 0) {
        fflush(stream);
        return cm5c_pfile_set_mode("CMMD_fset_io_mode", gfd, (int)mode);
    }
    if (cm5c_pfile_is_global(fileno(stream)))
        return cm5c_pfile_set_mode("CMMD_fset_io_mode", fileno(stream),
                                   (int)mode);
    io_fd("CMMD_fset_io_mode", fileno(stream));
    return io_set("CMMD_fset_io_mode", stream, fileno(stream), (int)mode);
}

int CMMD_set_io_mode(int fd, CMMD_file_mode_t mode)
{
    CM5C_HOLD();
    FILE *s = fd == 1 ? stdout : fd == 2 ? stderr : NULL;

    if (cm5c_pfile_is_global(fd))
        return cm5c_pfile_set_mode("CMMD_set_io_mode", fd, (int)mode);
    io_fd("CMMD_set_io_mode", fd);
    return io_set("CMMD_set_io_mode", s, fd, (int)mode);
}

CMMD_file_mode_t CMMD_fget_io_mode(FILE *stream)
{
    CM5C_HOLD();
    int gfd = stream ? cm5c_pfile_stream_fd(stream) : -1;

    if (!stream)
        cm5_fatal("CMMD_fget_io_mode", "stream is a null pointer");
    if (gfd >= 0)
        return (CMMD_file_mode_t)cm5c_pfile_mode(gfd);
    return CMMD_get_io_mode(fileno(stream));
}

CMMD_file_mode_t CMMD_get_io_mode(int fd)
{
    CM5C_HOLD();
    if (cm5c_pfile_is_global(fd))
        return (CMMD_file_mode_t)cm5c_pfile_mode(fd);
    return io_fd("CMMD_get_io_mode", fd)->mode;
}

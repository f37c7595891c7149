/*
 * Parallel (global) files: CMMD_global_open/creat/fopen, the I/O modes of
 * a file every node opened, and the double-offset calls dseek, dtell,
 * dlength, dftruncate.
 *
 * Every node opens the file itself (node 0 first, with O_CREAT, O_EXCL and
 * O_TRUNC; the others after it, without them), so every node has its own
 * open file description, hence its own file pointer: CMMD_independent and
 * CMMD_local need nothing more.  In CMMD_sync_bc and CMMD_sync_seq,
 * read(2) and write(2) on the descriptor are collective: legacy code
 * called them directly (the CM-5's node library was its own libc), so
 * this library defines read, write and close, which pass every other
 * descriptor straight to the kernel.  The nodes keep their file pointers
 * equal: an operation starts at the common pointer, each node reads or
 * writes its part with pread/pwrite at an explicit offset, and every node
 * then moves its pointer past all the parts.  lseek on a sync file is
 * therefore each node's own call, made alike on every node, as on the
 * CM-5.  A stream of CMMD_global_fopen is an unbuffered fopencookie(3)
 * stream on the same functions; fread and fwrite, also defined here, make
 * one call one operation on it (stdio alone would read it byte by byte).
 */
#undef _FORTIFY_SOURCE /* this file defines read() itself */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cm/cmmd.h"
#include "cm5/cm5.h"
#include "cmmd_internal.h"

#define PF_MAX 1024 /* descriptors a global file can have */

enum { PF_READ = 1, PF_WRITE = 2 };

typedef struct {
    int mode;   /* CMMD_file_mode_t */
    int gid;    /* the job's number of the file: opens are collective */
    int append; /* O_APPEND: a sync write starts at the end */
    int reread; /* stdio: answer its re-read after a short sync_seq read */
    FILE *stream;
} pf_t;

/* What each node brings to a sync operation (checked alike). */
typedef struct {
    int32_t gid, op;
    int64_t len, pos;
} pf_req_t;

static pf_t *pf_tab[PF_MAX];
static int pf_gids, pf_streams; /* pf_streams: open global streams */
static int pf_open_mode = CMMD_independent;

static const char *pf_mode_name(int mode)
{
    static const char *names[] = {"CMMD_local", "CMMD_independent",
                                  "CMMD_sync_bc", "CMMD_sync_seq",
                                  "CMMD_system"};

    return mode >= 0 && mode <= CMMD_system ? names[mode] : "?";
}

/* The entry of a global file's descriptor, else NULL.  Async-signal-safe:
 * every read and write of the process passes here. */
static pf_t *pf_get(int fd)
{
    return fd >= 0 && fd < PF_MAX ? pf_tab[fd] : NULL;
}

int cm5c_pfile_is_global(int fd) { return pf_get(fd) != NULL; }

/* The descriptor under a stream of CMMD_global_fopen, else -1. */
int cm5c_pfile_stream_fd(FILE *stream)
{
    if (!pf_streams)
        return -1;
    for (int fd = 0; fd < PF_MAX; fd++)
        if (pf_tab[fd] && pf_tab[fd]->stream == stream)
            return fd;
    return -1;
}

static void pf_check(const char *call, cm5_status_t st)
{
    if (st != CM5_OK)
        cm5_fatal(call, "%s", cm5c_state_error(st));
}

/* A mode a program may give a file; anything else stops the job. */
void cm5c_pfile_check_mode(const char *call, int mode)
{
    if (mode == CMMD_system)
        cm5_fatal(call, "CMMD_system is the I/O system's own mode; a "
                        "program cannot set it");
    if (mode < CMMD_local || mode > CMMD_system)
        cm5_fatal(call, "unknown I/O mode %d", mode);
}

/* ---- The kernel's calls, for descriptors that are not global --------- */

static ssize_t sys_read(int fd, void *buf, size_t n)
{
    return (ssize_t)syscall(SYS_read, fd, buf, n);
}

static ssize_t sys_write(int fd, const void *buf, size_t n)
{
    return (ssize_t)syscall(SYS_write, fd, buf, n);
}

static int sys_close(int fd) { return (int)syscall(SYS_close, fd); }

/* All of n bytes at off, or as many as the file has (reads); -errno. */
static int64_t pf_pio(int fd, int op, void *buf, int64_t n, int64_t off)
{
    int64_t done = 0;

    while (done < n) {
        ssize_t k = op == PF_READ ? pread64(fd, (char *)buf + done,
                                            (size_t)(n - done), off + done)
                                  : pwrite64(fd, (char *)buf + done,
                                             (size_t)(n - done), off + done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return done ? done : -errno;
        if (k == 0)
            break;
        done += k;
    }
    return done;
}

/* ---- Sync operations ---------------------------------------------------- */

/* The nodes disagree about a collective call: the first node that
 * differs from node 0 reports it (one line), the others wait to be
 * stopped with the job. */
static void pf_disagree(int node)
{
    if (node == cm5_rank())
        return;
    for (;;)
        pause();
}

static const char *pf_op_name(int op)
{
    return op == PF_READ ? "reads" : "writes";
}

/* Why request b (of node i) does not match node 0's a, or NULL. */
static const char *pf_mismatch(const pf_req_t *a, const pf_req_t *b, int mode)
{
    if (a->gid != b->gid)
        return "another global file";
    if (a->op != b->op)
        return "another call";
    if (a->pos != b->pos)
        return "another file pointer";
    if (mode == CMMD_sync_bc && a->len != b->len)
        return "another length";
    return NULL;
}

/* Exchange the requests; stop the job when the nodes disagree. */
static pf_req_t *pf_exchange(const char *call, int fd, pf_t *f, int op,
                             int64_t len, int64_t pos)
{
    int size = cm5_size(), i;
    pf_req_t me = {f->gid, op, len, pos};
    pf_req_t *all = malloc(sizeof(*all) * (size_t)size);
    const char *why = NULL;

    if (!all)
        cm5_fatal(call, "out of memory for %d nodes", size);
    pf_check(call, cm5_allgather(&me, sizeof(me), all));
    for (i = 1; i < size && !why; i++)
        why = pf_mismatch(&all[0], &all[i], f->mode);
    if (!why)
        return all;
    pf_disagree(--i);
    cm5_fatal(call,
              "descriptor %d is in %s mode, a collective call, and "
              "node %d %s %lld bytes at offset %lld while node 0 %s "
              "%lld at %lld%s (%s): every node must make the same "
              "call",
              fd, pf_mode_name(f->mode), i, pf_op_name(op), (long long)len,
              (long long)pos, pf_op_name(all[0].op), (long long)all[0].len,
              (long long)all[0].pos,
              all[0].gid == f->gid ? "" : " of another global file", why);
}

/* sync_bc: node 0 does the I/O; every node gets its result (and data). */
static int64_t pf_bc(const char *call, int fd, int op, void *buf, int64_t n,
                     int64_t pos)
{
    int64_t got = 0;

    if (cm5_rank() == 0)
        got = pf_pio(fd, op, buf, n, pos);
    pf_check(call, cm5_bcast(&got, sizeof(got), 0));
    if (op == PF_READ && got > 0)
        pf_check(call, cm5_bcast(buf, (size_t)got, 0));
    return got;
}

/* sync_seq: node i's part starts where node i-1's ends. */
static int64_t pf_seq(const char *call, int fd, int op, void *buf, int64_t n,
                      int64_t pos, const pf_req_t *all, int64_t *total)
{
    int size = cm5_size(), me = cm5_rank();
    int64_t off = pos, got, *res = malloc(sizeof(*res) * (size_t)size);

    if (!res)
        cm5_fatal(call, "out of memory for %d nodes", size);
    for (int i = 0; i < me; i++)
        off += all[i].len;
    got = pf_pio(fd, op, buf, n, off);
    pf_check(call, cm5_allgather(&got, sizeof(got), res));
    *total = 0;
    for (int i = 0; i < size; i++)
        *total += res[i] > 0 ? res[i] : 0;
    free(res);
    return got;
}

/* One collective read or write of n bytes; read(2)'s return. */
static ssize_t pf_sync_io(const char *call, int fd, pf_t *f, int op, void *buf,
                          size_t n)
{
    CM5C_HOLD();
    int fl = f->append && op == PF_WRITE ? fcntl(fd, F_GETFL) : -1;
    struct stat st;
    int64_t pos, got, total;
    pf_req_t *all;

    if (fl >= 0 && fstat(fd, &st) == 0)
        pos = st.st_size; /* the nodes agree: the last operation is over */
    else
        pos = lseek64(fd, 0, SEEK_CUR);
    if (pos < 0)
        return -1;
    all = pf_exchange(call, fd, f, op, (int64_t)n, pos);
    if (fl >= 0) /* pwrite on O_APPEND ignores the offset (Linux) */
        fcntl(fd, F_SETFL, fl & ~O_APPEND);
    if (f->mode == CMMD_sync_bc) {
        got = pf_bc(call, fd, op, buf, (int64_t)n, pos);
        total = got > 0 ? got : 0;
    } else {
        got = pf_seq(call, fd, op, buf, (int64_t)n, pos, all, &total);
    }
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl);
    free(all);
    lseek64(fd, pos + total, SEEK_SET);
    if (got < 0) {
        errno = (int)-got;
        return -1;
    }
    return (ssize_t)got;
}

/* ---- read, write, close of the process ---------------------------------
 * Every other descriptor goes to the kernel as libc would send it. */

CMMD_API ssize_t read(int fd, void *buf, size_t n)
{
    pf_t *f = pf_get(fd);

    if (!f || f->mode < CMMD_sync_bc)
        return sys_read(fd, buf, n);
    return pf_sync_io("read", fd, f, PF_READ, buf, n);
}

CMMD_API ssize_t write(int fd, const void *buf, size_t n)
{
    pf_t *f = pf_get(fd);

    if (!f || f->mode < CMMD_sync_bc)
        return sys_write(fd, buf, n);
    return pf_sync_io("write", fd, f, PF_WRITE, (void *)buf, n);
}

static void pf_forget(int fd)
{
    pf_t *f = pf_get(fd);

    if (f) {
        pf_tab[fd] = NULL;
        free(f);
    }
}

CMMD_API int close(int fd)
{
    pf_forget(fd);
    return sys_close(fd);
}

/* ---- Opening ------------------------------------------------------------ */

/* Node 0 opens (creates, truncates) first, then the others; every node
 * gets the descriptor, or -1 and the errno of the first node that failed. */
static int pf_open(const char *call, const char *path, int flags, int mode)
{
    int gid = pf_gids++, size = cm5_size(), err = 0, fd = -1;
    int *errs;

    if (!path)
        cm5_fatal(call, "path is a null pointer");
    if (cm5_rank() == 0) {
        fd = open(path, flags, mode);
        err = fd < 0 ? errno : 0;
    }
    pf_check(call, cm5_bcast(&err, sizeof(err), 0));
    if (err) {
        errno = err;
        return -1;
    }
    if (cm5_rank() != 0) {
        fd = open(path, flags & ~(O_CREAT | O_EXCL | O_TRUNC), mode);
        err = fd < 0 ? errno : 0;
    }
    if (fd >= PF_MAX) {
        sys_close(fd);
        err = EMFILE;
    }
    errs = malloc(sizeof(*errs) * (size_t)size);
    if (!errs)
        cm5_fatal(call, "out of memory for %d nodes", size);
    pf_check(call, cm5_allgather(&err, sizeof(err), errs));
    for (int i = 0; i < size && !err; i++)
        err = errs[i];
    free(errs);
    if (!err && !(pf_tab[fd] = calloc(1, sizeof(pf_t))))
        cm5_fatal(call, "out of memory");
    if (err) {
        if (fd >= 0 && fd < PF_MAX)
            sys_close(fd);
        errno = err;
        return -1;
    }
    pf_tab[fd]->gid = gid;
    pf_tab[fd]->mode = pf_open_mode;
    pf_tab[fd]->append = (flags & O_APPEND) != 0;
    return fd;
}

int CMMD_global_open(const char *path, int flags, int mode)
{
    CM5C_HOLD();
    return pf_open("CMMD_global_open", path, flags, mode);
}

int CMMD_global_creat(const char *path, int mode)
{
    CM5C_HOLD();
    return pf_open("CMMD_global_creat", path, O_WRONLY | O_CREAT | O_TRUNC,
                   mode);
}

/* ---- Streams ------------------------------------------------------------ */

static ssize_t pfc_read(void *cookie, char *buf, size_t n)
{
    int fd = (int)(intptr_t)cookie;
    pf_t *f = pf_get(fd);

    if (f && f->reread) { /* stdio reads again after a short read */
        f->reread = 0;
        return 0;
    }
    ssize_t got = read(fd, buf, n);

    if (f && f->mode == CMMD_sync_seq && got > 0 && (size_t)got < n)
        f->reread = 1;
    return got;
}

static ssize_t pfc_write(void *cookie, const char *buf, size_t n)
{
    return write((int)(intptr_t)cookie, buf, n);
}

static int pfc_seek(void *cookie, off64_t *off, int whence)
{
    off64_t r = lseek64((int)(intptr_t)cookie, *off, whence);

    if (r < 0)
        return -1;
    *off = r;
    return 0;
}

static int pfc_close(void *cookie)
{
    pf_streams--;
    return close((int)(intptr_t)cookie);
}

/* fread and fwrite of the process: on a global stream in a sync mode, one
 * call is one collective operation of size * n bytes (stdio's own
 * buffering would split it into reads of its buffer's size). */
extern size_t _IO_fread(void *, size_t, size_t, FILE *);
extern size_t _IO_fwrite(const void *, size_t, size_t, FILE *);

static pf_t *pf_sync_stream(FILE *stream, int *fd)
{
    pf_t *f;

    if (!pf_streams || (*fd = cm5c_pfile_stream_fd(stream)) < 0)
        return NULL;
    f = pf_tab[*fd];
    return f->mode >= CMMD_sync_bc ? f : NULL;
}

CMMD_API size_t fread(void *buf, size_t size, size_t n, FILE *stream)
{
    int fd;
    pf_t *f = pf_sync_stream(stream, &fd);
    ssize_t got;

    if (!f || !size || n > SIZE_MAX / size)
        return _IO_fread(buf, size, n, stream);
    fflush(stream); /* an unbuffered stream holds at most a pushed byte */
    got = pf_sync_io("fread", fd, f, PF_READ, buf, size * n);
    if (got < 0)
        stream->_flags |= _IO_ERR_SEEN;
    else if ((size_t)got < size * n)
        stream->_flags |= _IO_EOF_SEEN;
    return got < 0 ? 0 : (size_t)got / size;
}

CMMD_API size_t fwrite(const void *buf, size_t size, size_t n, FILE *stream)
{
    int fd;
    pf_t *f = pf_sync_stream(stream, &fd);
    ssize_t got;

    if (!f || !size || n > SIZE_MAX / size)
        return _IO_fwrite(buf, size, n, stream);
    fflush(stream);
    got = pf_sync_io("fwrite", fd, f, PF_WRITE, (void *)buf, size * n);
    if (got < 0)
        stream->_flags |= _IO_ERR_SEEN;
    return got < 0 ? 0 : (size_t)got / size;
}

/* fopen(3)'s type as open(2) flags; -1 for a type fopen refuses. */
static int pf_type_flags(const char *type)
{
    int plus = strchr(type, '+') != NULL;

    switch (type[0]) {
    case 'r':
        return plus ? O_RDWR : O_RDONLY;
    case 'w':
        return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC;
    case 'a':
        return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND;
    default:
        return -1;
    }
}

FILE *CMMD_global_fopen(const char *path, const char *type)
{
    CM5C_HOLD();
    cookie_io_functions_t io = {pfc_read, pfc_write, pfc_seek, pfc_close};
    int flags, fd;
    FILE *s;

    if (!type)
        cm5_fatal("CMMD_global_fopen", "type is a null pointer");
    if ((flags = pf_type_flags(type)) < 0) {
        errno = EINVAL;
        return NULL;
    }
    if ((fd = pf_open("CMMD_global_fopen", path, flags, 0666)) < 0)
        return NULL;
    s = fopencookie((void *)(intptr_t)fd, type, io);
    if (!s)
        cm5_fatal("CMMD_global_fopen", "fopencookie: %m");
    setvbuf(s, NULL, _IONBF, 0); /* one fread/fwrite: one operation */
    pf_tab[fd]->stream = s;
    pf_streams++;
    return s;
}

/* ---- Modes -------------------------------------------------------------- */

int CMMD_set_open_mode(CMMD_file_mode_t mode)
{
    CM5C_HOLD();
    cm5c_pfile_check_mode("CMMD_set_open_mode", (int)mode);
    pf_open_mode = (int)mode;
    return 0;
}

CMMD_file_mode_t CMMD_get_open_mode(void)
{
    CM5C_HOLD();
    return (CMMD_file_mode_t)pf_open_mode;
}

/* A global file's new mode (collective: every node gives the same). */
int cm5c_pfile_set_mode(const char *call, int fd, int mode)
{
    int size = cm5_size(), *modes = malloc(sizeof(int) * (size_t)size);
    pf_t *f = pf_get(fd);

    if (!modes)
        cm5_fatal(call, "out of memory for %d nodes", size);
    cm5c_pfile_check_mode(call, mode);
    pf_check(call, cm5_allgather(&mode, sizeof(mode), modes));
    for (int i = 1; i < size; i++) {
        if (modes[i] == modes[0])
            continue;
        pf_disagree(i);
        cm5_fatal(call,
                  "node %d sets global descriptor %d to %s, node 0 "
                  "to %s: every node sets the same mode",
                  i, fd, pf_mode_name(mode), pf_mode_name(modes[0]));
    }
    free(modes);
    f->mode = mode;
    f->reread = 0;
    return 0;
}

int cm5c_pfile_mode(int fd) { return pf_get(fd)->mode; }

/* ---- Offsets as doubles ------------------------------------------------- */

/* A double that is a whole number of bytes in off64_t's range. */
static int pf_offset(double d, off64_t *off)
{
    if (!(d > -9.2e18 && d < 9.2e18) || (double)(off64_t)d != d) {
        errno = EINVAL;
        return -1;
    }
    *off = (off64_t)d;
    return 0;
}

double dseek(int fd, double offset, int whence)
{
    CM5C_HOLD();
    off64_t off, r;

    if (pf_offset(offset, &off) < 0)
        return -1;
    r = lseek64(fd, off, whence);
    return r < 0 ? -1 : (double)r;
}

double dtell(int fd)
{
    CM5C_HOLD();
    off64_t r = lseek64(fd, 0, SEEK_CUR);

    return r < 0 ? -1 : (double)r;
}

double dlength(int fd)
{
    CM5C_HOLD();
    struct stat64 st;

    return fstat64(fd, &st) < 0 ? -1 : (double)st.st_size;
}

/* On a global file in a sync mode it is collective: node 0 truncates,
 * and every node returns once it has (a node's own truncation could undo
 * a later one of another node). */
int dftruncate(int fd, double length)
{
    CM5C_HOLD();
    pf_t *f = pf_get(fd);
    off64_t len;
    int err = 0;

    if (pf_offset(length, &len) < 0)
        return -1;
    if (!f || f->mode < CMMD_sync_bc)
        return ftruncate64(fd, len);
    if (cm5_rank() == 0 && ftruncate64(fd, len) < 0)
        err = errno;
    pf_check("dftruncate", cm5_bcast(&err, sizeof(err), 0));
    errno = err ? err : errno;
    return err ? -1 : 0;
}

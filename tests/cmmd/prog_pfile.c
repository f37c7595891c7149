/*
 * Global files (CMMD_global_open/creat/fopen) in every I/O mode, and the
 * double-offset calls, as legacy code used them: plain read/write/lseek
 * on the descriptor, stdio on the stream.  prog_pfile MODE DIR:
 *
 *   files  write DIR/{seq,bc,ind,stdio}.out and DIR/local.NODE (the script
 *          checks them byte for byte), read them back in every mode, and
 *          check dseek/dtell/dlength/dftruncate on DIR/big.out (a sparse
 *          file past 2^31 bytes, left for the script)
 *   bad_mode, bad_system, bad_order, bad_bclen, bad_seek, bad_setmode
 *          wrong calls, each stopping the job with one line
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t_util.h"

static char dir[512];

static const char *path(const char *name)
{
    static char buf[600];

    snprintf(buf, sizeof(buf), "%s/%s", dir, name);
    return buf;
}

/* Node i's sync_seq record of round r: lengths differ from node to node,
 * and in round 2 the odd nodes write nothing. */
static int record(char *buf, int r, int i)
{
    int n, len;

    if (r == 2)
        return i % 2 ? 0 : sprintf(buf, "even %d\n", i);
    n = sprintf(buf, "r%d n%d ", r, i);
    len = (i * 3 + r * 5) % 11;
    memset(buf + n, 'a' + i % 26, (size_t)len);
    buf[n + len] = '\n';
    return n + len + 1;
}

static int seq_total(int r)
{
    char buf[64];
    int t = 0;

    for (int i = 0; i < t_nodes; i++)
        t += record(buf, r, i);
    return t;
}

static int gopen(const char *name, int flags, int mode)
{
    int fd = CMMD_global_open(path(name), flags, 0644);

    T_CHECK(fd >= 0, "CMMD_global_open(%s): %s", name, strerror(errno));
    T_EQ(CMMD_set_io_mode(fd, mode), 0, "CMMD_set_io_mode");
    T_EQ(CMMD_get_io_mode(fd), mode, "CMMD_get_io_mode");
    return fd;
}

static void write_seq(void)
{
    int fd = gopen("seq.out", O_WRONLY | O_CREAT | O_TRUNC, CMMD_sync_seq);
    double at = 0;
    char buf[64];

    for (int r = 0; r < 3; r++) {
        int n = record(buf, r, t_self);

        T_EQ(write(fd, buf, (size_t)n), n, "sync_seq write's return");
        at += seq_total(r);
        T_CHECK(dtell(fd) == at, "dtell after round %d is %.0f, not %.0f", r,
                dtell(fd), at);
    }
    T_EQ(close(fd), 0, "close");
}

static void read_seq(void)
{
    int fd = gopen("seq.out", O_RDONLY, CMMD_sync_seq);
    char want[64], got[64];
    int size = seq_total(0) + seq_total(1) + seq_total(2);

    for (int r = 0; r < 3; r++) {
        int n = record(want, r, t_self);

        T_EQ(read(fd, got, (size_t)n), n, "sync_seq read's return");
        T_CHECK(memcmp(got, want, (size_t)n) == 0, "round %d record", r);
    }
    T_EQ(read(fd, got, 10), 0, "sync_seq read at the end");
    /* 20 bytes a node from the start: node i gets [20i, 20i+20) of the
     * file, cut at its end; the pointer ends at min(20N, size). */
    T_CHECK(dseek(fd, 0, SEEK_SET) == 0, "dseek to 0");
    long lo = 20L * t_self, hi = lo + 20 < size ? lo + 20 : size;
    long n = hi > lo ? hi - lo : 0;
    T_EQ(read(fd, got, 20), n, "short sync_seq read");
    char all[4096];
    int afd = open(path("seq.out"), O_RDONLY);
    T_EQ(pread(afd, all, sizeof(all), 0), size, "the file's size");
    close(afd);
    T_CHECK(n == 0 || memcmp(got, all + lo, (size_t)n) == 0, "short read");
    T_CHECK(dtell(fd) == (20 * t_nodes < size ? 20 * t_nodes : size),
            "pointer after the short reads: %.0f", dtell(fd));
    close(fd);
}

static void bc_files(void)
{
    int fd = CMMD_global_creat(path("bc.out"), 0644);
    char line[64], got[128];

    T_CHECK(fd >= 0, "CMMD_global_creat: %s", strerror(errno));
    T_EQ(CMMD_set_io_mode(fd, CMMD_sync_bc), 0, "CMMD_set_io_mode");
    for (int k = 0; k < 3; k++) {
        int n = sprintf(line, "bc line %d\n", k);
        T_EQ(write(fd, line, (size_t)n), n, "sync_bc write's return");
    }
    T_CHECK(dtell(fd) == 30, "sync_bc pointer: %.0f", dtell(fd));
    close(fd);
    fd = gopen("bc.out", O_RDONLY, CMMD_sync_bc);
    T_EQ(read(fd, got, 10), 10, "sync_bc read");
    T_CHECK(memcmp(got, "bc line 0\n", 10) == 0, "sync_bc first line");
    T_EQ(read(fd, got, 100), 20, "sync_bc read to the end");
    T_CHECK(memcmp(got, "bc line 1\nbc line 2\n", 20) == 0, "the rest");
    T_EQ(read(fd, got, 100), 0, "sync_bc read at the end");
    close(fd);
}

/* Independent: 16-byte records at explicit offsets; a node reads the next
 * node's once every node has written. */
static void ind_file(void)
{
    int fd =
        CMMD_global_open(path("ind.out"), O_RDWR | O_CREAT | O_TRUNC, 0644);
    char rec[17], got[16];
    int next = (t_self + 1) % t_nodes;

    T_CHECK(fd >= 0, "CMMD_global_open: %s", strerror(errno));
    T_EQ(CMMD_get_io_mode(fd), CMMD_independent, "the default mode");
    snprintf(rec, sizeof(rec), "ind node %6u\n", (unsigned)t_self % 1000000u);
    T_EQ(lseek(fd, 16L * t_self, SEEK_SET), 16L * t_self, "lseek");
    T_EQ(write(fd, rec, 16), 16, "independent write");
    CMMD_sync_with_nodes();
    T_EQ(lseek(fd, 16L * next, SEEK_SET), 16L * next, "lseek");
    T_EQ(read(fd, got, 16), 16, "independent read");
    snprintf(rec, sizeof(rec), "ind node %6u\n", (unsigned)next % 1000000u);
    T_CHECK(memcmp(got, rec, 16) == 0, "node %d's record", next);
    T_CHECK(dlength(fd) == 16.0 * t_nodes, "dlength %.0f", dlength(fd));
    close(fd);
}

/* Local: each node's own file, opened by itself. */
static void local_file(void)
{
    char name[32], line[64];
    int fd, n;

    snprintf(name, sizeof(name), "local.%d", t_self);
    fd = open(path(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    T_CHECK(fd >= 0, "open %s: %s", name, strerror(errno));
    T_EQ(CMMD_get_io_mode(fd), CMMD_local, "a node's own file's mode");
    T_EQ(CMMD_set_io_mode(fd, CMMD_local), 0, "CMMD_set_io_mode(local)");
    n = sprintf(line, "local node %d\n", t_self);
    T_EQ(write(fd, line, (size_t)n), n, "local write");
    close(fd);
}

static void stdio_file(void)
{
    char want[64], got[64];
    FILE *f = CMMD_global_fopen(path("stdio.out"), "w");
    int n;

    T_CHECK(f != NULL, "CMMD_global_fopen: %s", strerror(errno));
    T_EQ(CMMD_fset_io_mode(f, CMMD_sync_seq), 0, "CMMD_fset_io_mode");
    T_EQ(CMMD_fget_io_mode(f), CMMD_sync_seq, "CMMD_fget_io_mode");
    T_CHECK(fprintf(f, "stdio node %d of %d\n", t_self, t_nodes) > 0,
            "fprintf");
    T_EQ(fclose(f), 0, "fclose");
    f = CMMD_global_fopen(path("stdio.out"), "a");
    T_CHECK(f != NULL, "CMMD_global_fopen(a): %s", strerror(errno));
    CMMD_fset_io_mode(f, CMMD_sync_seq);
    fprintf(f, "app %d\n", t_self);
    fclose(f);
    /* sync_bc: every node reads every line; sync_seq: its own. */
    f = CMMD_global_fopen(path("stdio.out"), "r");
    T_CHECK(f != NULL, "CMMD_global_fopen(r): %s", strerror(errno));
    CMMD_fset_io_mode(f, CMMD_sync_bc);
    for (int i = 0; i < t_nodes; i++) {
        snprintf(want, sizeof(want), "stdio node %d of %d\n", i, t_nodes);
        T_CHECK(fgets(got, sizeof(got), f) && strcmp(got, want) == 0,
                "sync_bc fgets line %d", i);
    }
    CMMD_fset_io_mode(f, CMMD_sync_seq);
    n = snprintf(want, sizeof(want), "app %d\n", t_self);
    T_EQ(fread(got, 1, (size_t)n, f), n, "sync_seq fread");
    T_CHECK(memcmp(got, want, (size_t)n) == 0, "sync_seq fread data: %.*s", n,
            got);
    T_EQ(fread(got, 1, 8, f), 0, "sync_seq fread at the end");
    fclose(f);
}

/* dseek/dtell/dlength/dftruncate past 2^31 on a sparse file. */
static void big_file(void)
{
    const double g2 = 2147483648.0, at = 3e9;
    int fd;
    char c = 0;

    T_EQ(CMMD_set_open_mode(CMMD_sync_bc), 0, "CMMD_set_open_mode");
    T_EQ(CMMD_get_open_mode(), CMMD_sync_bc, "CMMD_get_open_mode");
    fd = CMMD_global_open(path("big.out"), O_RDWR | O_CREAT | O_TRUNC, 0644);
    T_CHECK(fd >= 0, "CMMD_global_open: %s", strerror(errno));
    CMMD_set_open_mode(CMMD_independent);
    T_EQ(CMMD_get_io_mode(fd), CMMD_sync_bc, "the open mode's mode");
    T_CHECK(dseek(fd, at, SEEK_SET) == at, "dseek to 3e9");
    T_EQ(write(fd, "Y", 1), 1, "write at 3e9");
    T_CHECK(dtell(fd) == at + 1, "dtell %.0f", dtell(fd));
    T_CHECK(dlength(fd) == at + 1, "dlength %.0f", dlength(fd));
    CMMD_sync_with_nodes(); /* before node 0 truncates it */
    T_EQ(dftruncate(fd, 5e9), 0, "dftruncate to 5e9");
    T_CHECK(dlength(fd) == 5e9, "dlength %.0f", dlength(fd));
    T_CHECK(dseek(fd, g2 + 3, SEEK_SET) == g2 + 3, "dseek to 2^31+3");
    T_EQ(write(fd, "Z", 1), 1, "write at 2^31+3");
    T_EQ(dftruncate(fd, g2 + 7), 0, "dftruncate to 2^31+7");
    T_CHECK(dlength(fd) == g2 + 7, "dlength %.0f", dlength(fd));
    T_CHECK(dseek(fd, -4, SEEK_END) == g2 + 3, "dseek from the end");
    T_EQ(read(fd, &c, 1), 1, "read at 2^31+3");
    T_EQ(c, 'Z', "the byte at 2^31+3");
    T_CHECK(dseek(fd, 0.5, SEEK_SET) == -1 && errno == EINVAL,
            "dseek to 0.5: -1, EINVAL");
    T_CHECK(dtell(fd) == g2 + 4, "dtell after the failed dseek");
    T_CHECK(dtell(-1) == -1 && errno == EBADF, "dtell(-1): -1, EBADF");
    close(fd);
}

static void missing(void)
{
    errno = 0;
    T_EQ(CMMD_global_open(path("no/such/file"), O_RDONLY, 0), -1,
         "CMMD_global_open of a missing file");
    T_EQ(errno, ENOENT, "its errno");
    errno = 0;
    T_CHECK(CMMD_global_fopen(path("no/such/file"), "r") == NULL &&
                errno == ENOENT,
            "CMMD_global_fopen of a missing file: NULL, ENOENT");
    T_CHECK(CMMD_global_fopen(path("x"), "q") == NULL && errno == EINVAL,
            "CMMD_global_fopen type \"q\": NULL, EINVAL");
}

static void bad(const char *mode)
{
    int fd =
        CMMD_global_open(path("bad.out"), O_RDWR | O_CREAT | O_TRUNC, 0644);
    char buf[8] = "abcdefg";

    T_CHECK(fd >= 0, "CMMD_global_open: %s", strerror(errno));
    if (strcmp(mode, "bad_mode") == 0) {
        if (t_self == 1)
            CMMD_set_io_mode(fd, (CMMD_file_mode_t)9);
        CMMD_sync_with_nodes();
    } else if (strcmp(mode, "bad_system") == 0) {
        if (t_self == 1)
            CMMD_set_open_mode(CMMD_system);
        CMMD_sync_with_nodes();
    } else if (strcmp(mode, "bad_setmode") == 0) {
        CMMD_set_io_mode(fd, t_self == 1 ? CMMD_sync_bc : CMMD_sync_seq);
    } else {
        CMMD_set_io_mode(fd, strcmp(mode, "bad_bclen") == 0 ? CMMD_sync_bc
                                                            : CMMD_sync_seq);
        if (strcmp(mode, "bad_seek") == 0 && t_self == 1)
            lseek(fd, 4, SEEK_SET);
        if (strcmp(mode, "bad_order") == 0 && t_self == 1)
            read(fd, buf, 4);
        else
            write(fd, buf, strcmp(mode, "bad_bclen") == 0 ? 4 + t_self : 4);
    }
    CMMD_sync_with_nodes();
    T_CHECK(0, "%s returned", mode);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 2 ? argv[1] : "";

    t_init("prog_pfile");
    if (argc < 3)
        T_CHECK(0, "usage: prog_pfile MODE DIR");
    snprintf(dir, sizeof(dir), "%s", argv[2]);
    if (strncmp(mode, "bad_", 4) == 0)
        bad(mode);
    write_seq();
    read_seq();
    bc_files();
    ind_file();
    local_file();
    stdio_file();
    big_file();
    missing();
    CMMD_sync_with_nodes();
    t_done();
    return 0;
}

/*
 * <cm/cmmd/io.h>: CMMD I/O modes and parallel files shared by every node.
 * Part of <cm/cmmd.h> (which includes it); it may also be included alone.
 * Prototype convention: see "Prototypes" in <cm/cmmd.h>.
 */
#ifndef _CM_CMMD_IO_H
#define _CM_CMMD_IO_H
#include <cm/cmmd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How the nodes share a descriptor (the real header's values). */
typedef enum {
    CMMD_local = 0,       /* this node's own descriptor: plain Unix I/O */
    CMMD_independent = 1, /* shared file, one file pointer per node */
    CMMD_sync_bc = 2,     /* collective: every node reads/writes the same */
    CMMD_sync_seq = 3,    /* collective: node i's record follows node i-1's */
    CMMD_system = 4       /* the I/O system's own; programs cannot set it */
} CMMD_file_mode_t;
/* cm5fab's earlier name for the type. */
typedef CMMD_file_mode_t CMMD_io_mode_t;

/* Set the I/O mode of a stream or descriptor; returns 0, or -1 (errno
 * set) for a descriptor that cannot have that mode.  On a global file and
 * on the standard streams every node sets the same mode (collective). */
CMMD_API int CMMD_fset_io_mode(FILE *stream, CMMD_file_mode_t mode);
CMMD_API int CMMD_set_io_mode(int fildes, CMMD_file_mode_t mode);
CMMD_API CMMD_file_mode_t CMMD_fget_io_mode(FILE *stream);
CMMD_API CMMD_file_mode_t CMMD_get_io_mode(int fildes);

/* The mode the next CMMD_global_open/fopen/creat gives its file
 * (CMMD_independent at start); set returns 0, or -1 for a bad mode. */
CMMD_API int CMMD_set_open_mode(CMMD_file_mode_t mode);
CMMD_API CMMD_file_mode_t CMMD_get_open_mode(void);

/* Open one file on every node (collective): open(2)'s flags and mode,
 * open(2)'s return (-1 and errno on every node when any node failed). */
CMMD_API int CMMD_global_open(const char *path, int flags, int mode);
/* creat(2) on every node: CMMD_global_open(path, O_WRONLY|O_CREAT|
 * O_TRUNC, mode). */
CMMD_API int CMMD_global_creat(const char *path, int mode);
/* fopen(3) on every node (collective); NULL and errno on failure. */
CMMD_API FILE *CMMD_global_fopen(const char *path, const char *type);

/* Offsets as doubles, for files over 2 GB: lseek(2), the file pointer,
 * the file's length (-1 and errno on error); ftruncate(2). */
CMMD_API double dseek(int fildes, double offset, int whence);
CMMD_API double dtell(int fildes);
CMMD_API double dlength(int fildes);
CMMD_API int dftruncate(int fildes, double length);

#ifdef __cplusplus
}
#endif
#endif /* _CM_CMMD_IO_H */

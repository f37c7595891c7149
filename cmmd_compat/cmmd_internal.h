/*
 * Shared by the cmmd_compat/ sources (cm5c_ prefix).
 */
#ifndef CM5_CMMD_INTERNAL_H
#define CM5_CMMD_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Write the output captured by sync_seq streams, in node order
 * (collective: called at every CMMD synchronization and at exit). */
void cm5c_io_sync(void);
const char *cm5c_version(void);
/* Global files (cmmd_pfile.c): is fd one; the descriptor of a stream of
 * CMMD_global_fopen (else -1); stop the job unless mode is one a program
 * may set; set (collective) and get a global file's mode. */
int cm5c_pfile_is_global(int fd);
int cm5c_pfile_stream_fd(FILE *stream);
void cm5c_pfile_check_mode(const char *call, int mode);
int cm5c_pfile_set_mode(const char *call, int fd, int mode);
int cm5c_pfile_mode(int fd);
/* Set what CMMD_get_errno returns (CMUTIL_set_errno). */
void cm5c_set_errno(int err);
/* Stop the job with "<call>: node N is outside the partition" unless node
 * is in it (or is CMMD_ANY_NODE and any_ok). */
void cm5c_check_node(const char *call, int node, int any_ok);
/* The point-to-point calls of cmmd_msg.c under another call's name (the
 * strided _v calls of cmmd_mp.c): a blocking send or receive (TRUE); a
 * buffered send (buf is free on return); an asynchronous one (an MCB, an
 * int, or CMMD_ERRVAL); both directions at once (TRUE). */
int cm5c_msg_block(const char *call, int is_send, int node, int tag, void *buf,
                   int len);
void cm5c_msg_noblock(const char *call, int node, int tag, void *buf, int len);
int cm5c_msg_async(const char *call, int is_send, int node, int tag, void *buf,
                   int len, void (*handler)(int *mcb, void *arg), void *arg);
int cm5c_msg_send_and_receive(const char *call, int source, int source_tag,
                              void *rbuf, int rlen, int dest, int dest_tag,
                              void *sbuf, int slen);
/* Why a call got CM5_ERR_STATE (or the status's name otherwise). */
#include "cm5/cm5.h"
const char *cm5c_state_error(cm5_status_t st);
/* A combiner's native operation, or -1 (cmmd_coll.c); the same, stopping
 * the job with "<call>: invalid combiner N" (or a bitwise one on floating
 * values); the element type of reduce_v/scan_v from the combiner's prefix
 * and the element size, or -1. */
int cm5c_combiner_op(int combiner);
cm5_op_t cm5c_check_op(const char *call, int combiner, cm5_type_t t);
int cm5c_vtype(int combiner, int size);

/* The four words of a variadic active-message call after last: legacy
 * code passes 0 to 4 ints; words the caller did not pass are unspecified,
 * as on the CM-5. */
#define CM5C_WORDS(w, last)                                                    \
    do {                                                                       \
        va_list ap_;                                                           \
        va_start(ap_, last);                                                   \
        for (int i_ = 0; i_ < 4; i_++)                                         \
            (w)[i_] = (uint32_t)va_arg(ap_, int);                              \
        va_end(ap_);                                                           \
    } while (0)

/* A legacy printf-style message without the newlines it ends with; the
 * variadic arguments after format, into the array msg. */
void cm5c_vformat(char *msg, size_t size, const char *format, va_list ap);
#define CM5C_FORMAT(msg, format)                                               \
    do {                                                                       \
        va_list ap_;                                                           \
        va_start(ap_, format);                                                 \
        cm5c_vformat(msg, sizeof(msg), format, ap_);                           \
        va_end(ap_);                                                           \
    } while (0)

/* First statement of every CMMD/CMAML call that enters the runtime:
 * interrupts are held until the call returns (handlers never run from an
 * interrupt inside a CMMD call; a blocking call runs them itself). */
static inline int cm5c_hold_enter(void)
{
    cm5_interrupts_hold();
    return 0;
}
static inline void cm5c_hold_leave(int *unused)
{
    (void)unused;
    cm5_interrupts_resume();
}
#define CM5C_HOLD()                                                            \
    int cm5c_hold_ __attribute__((cleanup(cm5c_hold_leave), unused)) =         \
        cm5c_hold_enter()

#endif

/*
 * <cm/cmmd.h> -- the CM-5 CMMD 3.x and CMAML (active message) interface,
 * emulated by cm5fab over libfabric.  Names and signatures are the
 * historical ones; see cm5fab(7) and the man pages of each call for how
 * the emulation differs from the CM-5.
 *
 * This header compiles as gnu89, C11 and C++.
 */
#ifndef _CM_CMMD_H
#define _CM_CMMD_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CMMD_API __attribute__((visibility("default")))
#define CMMD_NORETURN __attribute__((noreturn))
#define CMMD_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CMMD_API
#define CMMD_NORETURN
#define CMMD_PRINTF(f, a)
#endif

#define CMMD_VERSION_MAJOR 3
#define CMMD_VERSION_MINOR 3
#define CMMD_NUM_TIMERS 64

/* An active-message handler takes up to four 32-bit words.  Legacy code
 * declares handlers with any word-sized parameters, hence no prototype. */
#ifdef __cplusplus
typedef void (*CMAML_handler_t)(...);
#else
typedef void (*CMAML_handler_t)();
#endif

/* ---- Active messages (CMAML) ------------------------------------------ */

/* Send a request: handler(args) runs on node.  0 to 4 int arguments. */
CMMD_API void CMAML_request(int node, CMAML_handler_t handler, ...);
/* Send a reply (on the reply network); legal in a request handler. */
CMMD_API void CMAML_reply(int node, CMAML_handler_t handler, ...);
/* Remote procedure call: handler runs on node outside any handler, so it
 * may itself send requests and replies. */
CMMD_API void CMAML_rpc(int node, CMAML_handler_t handler, ...);
/* Run the handlers of every active message that has arrived. */
CMMD_API void CMAML_poll(void);
/* Poll until *flag >= value. */
CMMD_API void CMAML_poll_while_lt(volatile int *flag, int value);

/* ---- Partition --------------------------------------------------------- */

CMMD_API int CMMD_self_address(void);
CMMD_API int CMMD_partition_size(void);
/* Barrier of all nodes (the CM-5 control network's synchronization). */
CMMD_API void CMMD_sync_with_nodes(void);

/* ---- Timers: 64 per node, in seconds ------------------------------------ */

CMMD_API void CMMD_node_timer_clear(int timer);
CMMD_API void CMMD_node_timer_start(int timer);
CMMD_API void CMMD_node_timer_stop(int timer);
/* Wall-clock time accumulated between starts and stops. */
CMMD_API double CMMD_node_timer_elapsed(int timer);
/* CPU time of this process accumulated between starts and stops. */
CMMD_API double CMMD_node_timer_busy(int timer);

/* ---- Errors and I/O ----------------------------------------------------- */

/* Print the message and stop every node of the job (non-zero status). */
CMMD_API CMMD_NORETURN void CMMD_error(const char *format, ...)
    CMMD_PRINTF(1, 2);

typedef enum {
    CMMD_independent = 0, /* each node writes its own lines */
    CMMD_sync_seq = 1,    /* output in node order */
    CMMD_sync_bc = 2,     /* node 0 writes for all */
    CMMD_local = 3        /* per-node files */
} CMMD_io_mode_t;

/* Set the I/O mode of a stream; returns 0, or -1 for an unknown mode. */
CMMD_API int CMMD_fset_io_mode(FILE *stream, CMMD_io_mode_t mode);

#ifdef __cplusplus
}
#endif
#endif /* _CM_CMMD_H */

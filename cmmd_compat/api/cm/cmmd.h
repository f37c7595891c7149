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
#define CMMD_API __attribute__((__visibility__("default")))
#define CMMD_NORETURN __attribute__((__noreturn__))
#define CMMD_PRINTF(f, a) __attribute__((__format__(__printf__, f, a)))
#else
#define CMMD_API
#define CMMD_NORETURN
#define CMMD_PRINTF(f, a)
#endif

#define CMMD_VERSION_MAJOR 3
#define CMMD_VERSION_MINOR 3
#define CMMD_NUM_TIMERS 64

/* Prototypes.  The real CMMD 3.x header declared every function K&R style
 * (empty parameter lists), and legacy files redeclare calls that way
 * (`extern int CMAML_scopy();`).  Here every function has a full prototype
 * that such a redeclaration accepts: no parameter of type float, char or
 * short (a float value is passed as double, as K&R code passed it), and
 * the CMMD_*_t enumerations are ints.  Only the calls whose parameter list
 * legacy code contradicts -- variadic ones (a K&R redeclaration cannot
 * match an ellipsis) and those old code called with another number of
 * arguments -- are declared CMMD_KR((...)): without a prototype in C up to
 * C17, with it in C++, C23 and when CMMD_PROTOTYPES is defined.  Each such
 * declaration says why. */
#if defined(__cplusplus) || defined(CMMD_PROTOTYPES) ||                        \
    (defined(__STDC_VERSION__) && __STDC_VERSION__ > 201710L)
#define CMMD_FULL_PROTOTYPES 1
#define CMMD_KR(params) params
#else
#define CMMD_KR(params) ()
#endif

/* An active-message handler takes up to four 32-bit words.  Legacy code
 * declares handlers with any word-sized parameters, hence no prototype. */
#ifdef __cplusplus
typedef void (*CMAML_handler_t)(...);
#else
typedef void (*CMAML_handler_t)();
#endif

/* ---- Historical type names (all ints or pointers, as in the real header)
 * LONGLONG_(U)INT are long in the real header's branch; CMMP_mcb is the
 * lower layer's MCB (an int handle, the same numbers as CMMD_mcb). */
typedef long LONGLONG_INT;
typedef unsigned long LONGLONG_UINT;
typedef int CMMP_mcb;
/* A message matching function (CMMD_set_msg_matching_fcn). */
#ifdef __cplusplus
typedef int (*CMPR_matching_function_t)(...);
typedef void (*cmpr_handler_t)(...);
#else
typedef int (*CMPR_matching_function_t)();
typedef void (*cmpr_handler_t)();
#endif
typedef CMPR_matching_function_t CMMD_matching_function_t;
typedef CMPR_matching_function_t CMMD_fortran_matching_function_t;
typedef unsigned int CMMD_server_id_t;
typedef unsigned int CMMD_service_id_t;

/* ---- Active messages (CMAML) ------------------------------------------ */

/* Send a request: handler(args) runs on node.  0 to 4 int arguments.
 * CMMD_KR: variadic (legacy files redeclare these without a prototype). */
CMMD_API void CMAML_request CMMD_KR((int node, CMAML_handler_t handler, ...));
/* Send a reply (on the reply network); legal in a request handler. */
CMMD_API void CMAML_reply CMMD_KR((int node, CMAML_handler_t handler, ...));
/* Remote procedure call: handler runs on node outside any handler, so it
 * may itself send requests and replies. */
CMMD_API void CMAML_rpc CMMD_KR((int node, CMAML_handler_t handler, ...));
/* Run the handlers of every active message that has arrived. */
CMMD_API void CMAML_poll(void);
/* Poll until *flag >= value. */
CMMD_API void CMAML_poll_while_lt(volatile int *flag, int value);

/* ---- Interrupts ---------------------------------------------------------
 * Enabled, arriving messages interrupt the node (a signal in its main
 * thread) and their handlers run even while it computes and never polls;
 * never inside a CMMD/CMAML call (delivery waits for its return).  Enable
 * and disable return the previous state. */
CMMD_API int CMAML_enable_interrupts(void);
CMMD_API int CMAML_disable_interrupts(void);
CMMD_API int CMAML_interrupt_status(void);
CMMD_API int CMAML_inside_interrupt_handler(void);
CMMD_API int CMMD_enable_interrupts(void);
CMMD_API int CMMD_disable_interrupts(void);
CMMD_API int CMMD_interrupt_status(void);
CMMD_API int CMMD_inside_interrupt_handler(void);

/* ---- rports and scopy ------------------------------------------------- */

#define CMAML_NUMBER_OF_RPORTS 128

/* Allocate any free rport, or this one; -1 if none is free. */
CMMD_API int CMAML_allocate_rport(void);
CMMD_API int CMAML_allocate_this_rport(int rport);
/* TRUE once freed. */
CMMD_API int CMAML_free_rport(int rport);
CMMD_API void CMAML_set_rport_addr(int rport, void *addr);
CMMD_API void CMAML_set_rport_byte_counter(int rport, int nbytes);
CMMD_API void CMAML_set_rport_total_nbytes(int rport, int nbytes);
/* handler(rport, arg2) runs when the byte counter reaches 0. */
CMMD_API void CMAML_set_rport_handler(int rport, CMAML_handler_t handler);
CMMD_API void CMAML_set_rport_handler_arg2(int rport, void *arg2);
CMMD_API void *CMAML_get_rport_addr(int rport);
CMMD_API int CMAML_get_rport_byte_counter(int rport);
CMMD_API int CMAML_get_rport_total_nbytes(int rport);
CMMD_API CMAML_handler_t CMAML_get_rport_handler(int rport);
CMMD_API void *CMAML_get_rport_handler_arg2(int rport);
CMMD_API int CMAML_number_of_rports(void);
CMMD_API int CMAML_number_of_free_rports(void);
/* Copy nbytes from buf to node's rport at offset; sent_handler(sent_arg),
 * if not NULL, runs here once buf may be reused.  TRUE once started. */
CMMD_API int CMAML_scopy(int node, int rport, int align, int offset, void *buf,
                         int nbytes, CMAML_handler_t sent_handler,
                         void *sent_arg);

/* ---- Point-to-point messages (CMMD) ------------------------------------ */

#define CMMD_DEFAULT_TAG 0
#define CMMD_ANY_NODE (-1)
#define CMMD_ANY_TAG (-1)
#define CMMD_ERRVAL (-1)
#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif

/* Message control block of an asynchronous send or receive: a small
 * positive int handle, as in the real header (0 is never an MCB;
 * CMMD_ERRVAL is a failure). */
typedef int CMMD_mcb;
/* A completion handler: handler(&mcb, handler_arg), a pointer to the MCB
 * as the real CMMD passed it (CM-5 code frees it there with
 * CMMD_free_mcb(*mcb)).  A handler written for the MCB by value draws an
 * incompatible-pointer diagnostic. */
typedef void (*CMMD_mcb_handler_t)(CMMD_mcb *mcb, void *arg);

/* CMMD_get_errno() values (ints, as the real header's). */
typedef int CMMD_errno_t;
enum {
    CMMD_ERR_NONE = 0,
    CMMD_ERR_NO_RPORTS = 1, /* no MCB left for another asynchronous send
                             * or receive: retry after some complete */
    CMMD_ERR_BAD_ARG = 2    /* an MCB that is not live */
};

/* Synchronous: returns (TRUE) once the receiver has the data. */
CMMD_API int CMMD_send_block(int node, int tag, void *buf, int len);
/* Source and tag may be wildcards; a longer buffer is fine, a longer
 * message is an error.  Returns TRUE. */
CMMD_API int CMMD_receive_block(int node, int tag, void *buf, int len);
CMMD_API int CMMD_send(int node, int tag, void *buf, int len);
CMMD_API int CMMD_receive(int node, int tag, void *buf, int len);
/* Buffered: buf is reusable on return; never blocks.  Returns 0. */
CMMD_API int CMMD_send_noblock(int node, int tag, void *buf, int len);
/* Start an asynchronous send or receive; handler(mcb, arg), if not NULL,
 * runs when it is done.  CMMD_ERRVAL with CMMD_get_errno() ==
 * CMMD_ERR_NO_RPORTS when every MCB is in use (legacy retry loops test
 * mcb < 0).  CMMD_KR: old code passes five arguments (no handler_arg). */
CMMD_API CMMD_mcb CMMD_send_async CMMD_KR((int node, int tag, void *buf,
                                           int len, CMMD_mcb_handler_t handler,
                                           void *handler_arg));
CMMD_API CMMD_mcb CMMD_receive_async CMMD_KR((int node, int tag, void *buf,
                                              int len,
                                              CMMD_mcb_handler_t handler,
                                              void *handler_arg));
CMMD_API int CMMD_msg_done(CMMD_mcb mcb);
CMMD_API void CMMD_msg_wait(CMMD_mcb mcb);
/* Release an MCB; legal while its message is in flight. */
CMMD_API void CMMD_free_mcb(CMMD_mcb mcb);
CMMD_API void CMMD_all_msgs_wait(void);
CMMD_API int CMMD_all_sends_done(void);
CMMD_API int CMMD_all_receives_done(void);
CMMD_API int CMMD_all_msgs_done(void);
/* Is a message from node with tag waiting to be received?  A probe sets
 * CMMD_msg_sender, CMMD_msg_tag and CMMD_bytes_received. */
CMMD_API int CMMD_msg_pending(int node, int tag);
/* An MCB describing a message from node with tag (wildcards allowed) that
 * waits to be received, or 0 (none).  Free it with CMMD_free_mcb. */
CMMD_API CMMD_mcb CMMD_mcb_pending(int node, int tag);
CMMD_API int CMMD_mcb_bytes(CMMD_mcb mcb);
CMMD_API int CMMD_mcb_tag(CMMD_mcb mcb);
CMMD_API int CMMD_mcb_node(CMMD_mcb mcb);
CMMD_API void *CMMD_mcb_buffer(CMMD_mcb mcb);
CMMD_API int CMMD_bytes_sent(void);
CMMD_API int CMMD_bytes_received(void);
CMMD_API int CMMD_msg_sender(void);
CMMD_API int CMMD_msg_tag(void);
/* Receive arguments first, then send arguments.  Returns TRUE. */
CMMD_API int CMMD_send_and_receive(int source, int source_tag, void *rbuf,
                                   int rlen, int dest, int dest_tag, void *sbuf,
                                   int slen);
/* Exchange buf with node in place.  Returns TRUE. */
CMMD_API int CMMD_swap(int node, int tag, void *buf, int len);
CMMD_API int CMMD_available_sends(void);
CMMD_API int CMMD_available_receives(void);
CMMD_API int CMMD_get_errno(void);

/* ---- Partition --------------------------------------------------------- */

CMMD_API int CMMD_self_address(void);
CMMD_API int CMMD_partition_size(void);
/* Barrier of all nodes (the CM-5 control network's synchronization). */
CMMD_API void CMMD_sync_with_nodes(void);

/* ---- Control network: reductions, scans, broadcast, concat, global OR -- */

/* The real header's types are ints (their values were macros). */
typedef int CMMD_combiner_t;
typedef int CMMD_scan_direction_t;
typedef int CMMD_segment_mode_t;
typedef int CMMD_scan_inclusion_t;
typedef int CMCN_combiner_t;
typedef int CMCN_scan_direction_t;
typedef int CMCN_segment_mode_t;
typedef int CMCN_scan_inclusion_t;
enum {
    CMMD_combiner_add,
    CMMD_combiner_uadd,
    CMMD_combiner_fadd,
    CMMD_combiner_dadd,
    CMMD_combiner_max,
    CMMD_combiner_umax,
    CMMD_combiner_fmax,
    CMMD_combiner_dmax,
    CMMD_combiner_min,
    CMMD_combiner_umin,
    CMMD_combiner_fmin,
    CMMD_combiner_dmin,
    CMMD_combiner_and,
    CMMD_combiner_ior,
    CMMD_combiner_xor
};
enum { CMMD_upward, CMMD_downward };
/* start_bit: a node whose bit is 1 begins a segment; segment_bit: a node
 * whose bit is 1 ends one (the next node in the scan begins the next). */
enum { CMMD_none, CMMD_start_bit, CMMD_segment_bit };
enum { CMMD_inclusive, CMMD_exclusive };

/* Every node calls these in the same order; all get the same result.  The
 * function fixes the type: the combiner names the operation (add, max,
 * min, and, ior, xor; the u/f/d-prefixed ones are aliases here). */
CMMD_API int CMMD_reduce_int(int value, CMMD_combiner_t combiner);
CMMD_API unsigned CMMD_reduce_uint(unsigned value, CMMD_combiner_t combiner);
CMMD_API LONGLONG_INT CMMD_reduce_lint(LONGLONG_INT value,
                                       CMMD_combiner_t combiner);
CMMD_API LONGLONG_UINT CMMD_reduce_luint(LONGLONG_UINT value,
                                         CMMD_combiner_t combiner);
/* float values travel as double (K&R promotion) and combine as float. */
CMMD_API double CMMD_reduce_float(double value, CMMD_combiner_t combiner);
CMMD_API double CMMD_reduce_double(double value, CMMD_combiner_t combiner);
/* Element-wise over count elements of element_size bytes; the combiner's
 * prefix picks the type (none: signed, u: unsigned, f: float, d: double;
 * and/ior/xor: unsigned).  source and dest may be the same. */
CMMD_API void CMMD_reduce_v(void *dest, void *source, CMMD_combiner_t combiner,
                            int element_size, int count);

CMMD_API int CMMD_scan_int(int value, CMMD_combiner_t combiner,
                           CMMD_scan_direction_t direction,
                           CMMD_segment_mode_t smode, int sbit,
                           CMMD_scan_inclusion_t inclusion);
CMMD_API unsigned CMMD_scan_uint(unsigned value, CMMD_combiner_t combiner,
                                 CMMD_scan_direction_t direction,
                                 CMMD_segment_mode_t smode, int sbit,
                                 CMMD_scan_inclusion_t inclusion);
CMMD_API LONGLONG_INT CMMD_scan_lint(LONGLONG_INT value,
                                     CMMD_combiner_t combiner,
                                     CMMD_scan_direction_t direction,
                                     CMMD_segment_mode_t smode, int sbit,
                                     CMMD_scan_inclusion_t inclusion);
CMMD_API LONGLONG_UINT CMMD_scan_luint(LONGLONG_UINT value,
                                       CMMD_combiner_t combiner,
                                       CMMD_scan_direction_t direction,
                                       CMMD_segment_mode_t smode, int sbit,
                                       CMMD_scan_inclusion_t inclusion);
CMMD_API double CMMD_scan_float(double value, CMMD_combiner_t combiner,
                                CMMD_scan_direction_t direction,
                                CMMD_segment_mode_t smode, int sbit,
                                CMMD_scan_inclusion_t inclusion);
CMMD_API double CMMD_scan_double(double value, CMMD_combiner_t combiner,
                                 CMMD_scan_direction_t direction,
                                 CMMD_segment_mode_t smode, int sbit,
                                 CMMD_scan_inclusion_t inclusion);

/* One node broadcasts len bytes; every other node receives them. */
CMMD_API void CMMD_bc_to_nodes(void *buffer, int len);
CMMD_API void CMMD_receive_bc_from_node(void *buffer, int len);
/* buffer gets every node's element (element_len bytes) in node order. */
CMMD_API void CMMD_concat_with_nodes(void *element, void *buffer,
                                     int element_len);
/* Asynchronous global OR: no synchronization; every node eventually sees
 * every node's latest bit. */
/* TRUE. */
CMMD_API int CMMD_set_global_or(int bit);
CMMD_API int CMMD_get_global_or(void);
/* Split-phase barrier. */
CMMD_API void CMMD_sync_with_nodes_start(void);
CMMD_API int CMMD_sync_done(void);
CMMD_API void CMMD_sync_with_nodes_finish(void);

/* ---- Timers: 64 per node, in seconds ------------------------------------ */

/* TRUE. */
CMMD_API int CMMD_node_timer_clear(int timer);
CMMD_API int CMMD_node_timer_start(int timer);
CMMD_API int CMMD_node_timer_stop(int timer);
/* Wall-clock time accumulated between starts and stops. */
CMMD_API double CMMD_node_timer_elapsed(int timer);
/* CPU time of this process accumulated between starts and stops. */
CMMD_API double CMMD_node_timer_busy(int timer);

/* ---- Errors ----------------------------------------------------------- */

/* Print the message and stop every node of the job (non-zero status).
 * CMMD_KR: variadic. */
#ifdef CMMD_FULL_PROTOTYPES
CMMD_API CMMD_NORETURN void CMMD_error(const char *format, ...)
    CMMD_PRINTF(1, 2);
#else
CMMD_API CMMD_NORETURN void CMMD_error();
#endif

/* The I/O modes (CMMD_fset_io_mode) and global files: <cm/cmmd/io.h>. */

/* ---- The rest ------------------------------------------------------------ */

/* "CMMD 3.3 (cm5fab VERSION on libfabric VERSION)". */
CMMD_API char *CMMD_version(void);
CMMD_API void CMMD_poll(void);
/* Shrink the partition (every node calls it); nodes at or above size are
 * expected to exit by themselves.  TRUE. */
CMMD_API int CMMD_reset_partition_size(int size);
/* Argument checks are always on here; these are accepted for legacy code. */
CMMD_API void CMMD_enable_safety(void);
CMMD_API void CMMD_disable_safety(void);
CMMD_API char *CMMD_error_string(int err);
/* Wall-clock time of a timer not spent on this process's CPU. */
CMMD_API double CMMD_node_timer_idle(int timer);

/* ---- Internal-layer names: the same calls -----------------------------
 * CMCN_ (control network) and CMUTIL_ (utilities) are the names the CM-5's
 * lower layers gave these calls; legacy code sometimes used them. */
CMMD_API int CMCN_reduce_int(int value, CMMD_combiner_t combiner);
CMMD_API unsigned CMCN_reduce_uint(unsigned value, CMMD_combiner_t combiner);
CMMD_API LONGLONG_INT CMCN_reduce_lint(LONGLONG_INT value,
                                       CMMD_combiner_t combiner);
CMMD_API LONGLONG_UINT CMCN_reduce_luint(LONGLONG_UINT value,
                                         CMMD_combiner_t combiner);
CMMD_API double CMCN_reduce_float(double value, CMMD_combiner_t combiner);
CMMD_API double CMCN_reduce_double(double value, CMMD_combiner_t combiner);
CMMD_API void CMCN_reduce_v(void *dest, void *source, CMMD_combiner_t combiner,
                            int element_size, int count);
CMMD_API int CMCN_scan_int(int value, CMMD_combiner_t combiner,
                           CMMD_scan_direction_t direction,
                           CMMD_segment_mode_t smode, int sbit,
                           CMMD_scan_inclusion_t inclusion);
CMMD_API unsigned CMCN_scan_uint(unsigned value, CMMD_combiner_t combiner,
                                 CMMD_scan_direction_t direction,
                                 CMMD_segment_mode_t smode, int sbit,
                                 CMMD_scan_inclusion_t inclusion);
CMMD_API LONGLONG_INT CMCN_scan_lint(LONGLONG_INT value,
                                     CMMD_combiner_t combiner,
                                     CMMD_scan_direction_t direction,
                                     CMMD_segment_mode_t smode, int sbit,
                                     CMMD_scan_inclusion_t inclusion);
CMMD_API LONGLONG_UINT CMCN_scan_luint(LONGLONG_UINT value,
                                       CMMD_combiner_t combiner,
                                       CMMD_scan_direction_t direction,
                                       CMMD_segment_mode_t smode, int sbit,
                                       CMMD_scan_inclusion_t inclusion);
CMMD_API double CMCN_scan_float(double value, CMMD_combiner_t combiner,
                                CMMD_scan_direction_t direction,
                                CMMD_segment_mode_t smode, int sbit,
                                CMMD_scan_inclusion_t inclusion);
CMMD_API double CMCN_scan_double(double value, CMMD_combiner_t combiner,
                                 CMMD_scan_direction_t direction,
                                 CMMD_segment_mode_t smode, int sbit,
                                 CMMD_scan_inclusion_t inclusion);
CMMD_API void CMCN_bc_to_nodes(void *buffer, int len);
CMMD_API void CMCN_receive_bc_from_node(void *buffer, int len);
CMMD_API void CMCN_concat_with_nodes(void *element, void *buffer,
                                     int element_len);
CMMD_API int CMCN_set_global_or(int bit);
CMMD_API int CMCN_get_global_or(void);
CMMD_API void CMCN_sync_with_nodes(void);
CMMD_API void CMCN_sync_with_nodes_start(void);
CMMD_API void CMCN_sync_with_nodes_finish(void);
CMMD_API int CMCN_sync_done(void);
CMMD_API int CMCN_reset_partition_size(int size);
CMMD_API int CMUTIL_node_timer_clear(int timer);
CMMD_API int CMUTIL_node_timer_start(int timer);
CMMD_API int CMUTIL_node_timer_stop(int timer);
CMMD_API double CMUTIL_node_timer_elapsed(int timer);
CMMD_API double CMUTIL_node_timer_busy(int timer);
CMMD_API double CMUTIL_node_timer_idle(int timer);

#ifdef __cplusplus
}
#endif

/* The families kept in the real CMMD's sub-headers; each includes this
 * header first, so either may be included alone. */
#include <cm/cmmd/mp.h>
#include <cm/cmmd/cn.h>
#include <cm/cmmd/amx.h>
#include <cm/cmmd/io.h>
#include <cm/cmmd/host.h>
#include <cm/cmmd/util.h>
#include <cm/cmmd/words.h>
#endif /* _CM_CMMD_H */

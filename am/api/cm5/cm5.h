/*
 * cm5fab native API: CM-5 style active messages over libfabric.
 *
 * A job is a set of processes ("nodes") 0..cm5_size()-1.  The runtime starts
 * by itself when the library is loaded (cm5run, PMIx or a 1-node partition),
 * so a program never has to call cm5_init(); it may, to pick a provider.
 * Every call that can fail returns a cm5_status_t (CM5_OK or a negative
 * CM5_ERR_*); cm5_status_string() names it.
 */
#ifndef CM5_CM5_H
#define CM5_CM5_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CM5_EXPORT __attribute__((__visibility__("default")))
#define CM5_NORETURN __attribute__((__noreturn__))
#define CM5_PRINTF(f, a) __attribute__((__format__(__printf__, f, a)))
#else
#define CM5_EXPORT
#define CM5_NORETURN
#define CM5_PRINTF(f, a)
#endif

typedef enum {
    CM5_OK = 0,
    CM5_ERR_INVALID = -1,     /* bad argument */
    CM5_ERR_NO_MEMORY = -2,   /* allocation failed */
    CM5_ERR_FABRIC = -3,      /* libfabric call failed */
    CM5_ERR_BOOT = -4,        /* bootstrap (cm5run socket, PMIx) failed */
    CM5_ERR_RANGE = -5,       /* node outside the partition */
    CM5_ERR_AGAIN = -6,       /* resource busy: retry after progress */
    CM5_ERR_HANDLER = -7,     /* handler is not executable code */
    CM5_ERR_NO_PROVIDER = -8, /* no usable libfabric provider */
    CM5_ERR_STATE = -9,       /* call not allowed in this state */
    CM5_ERR_PEER = -10        /* a peer is gone */
} cm5_status_t;

/* An active-message handler: four 32-bit argument words (16 bytes). */
typedef void (*cm5_am_handler_func_t)(uint32_t word0, uint32_t word1,
                                      uint32_t word2, uint32_t word3);

/* Human-readable name of a status. */
CM5_EXPORT const char *cm5_status_string(cm5_status_t status);

/* Start the runtime (done automatically at load).  provider: a libfabric
 * provider name, or NULL for cm5run --provider > CM5_PROVIDER > default. */
CM5_EXPORT cm5_status_t cm5_init(const char *provider);
/* Synchronize with every node, then close the endpoints (run at exit). */
CM5_EXPORT void cm5_finalize(void);

CM5_EXPORT int cm5_rank(void); /* this node's number */
CM5_EXPORT int cm5_size(void); /* number of nodes in the partition */
/* libfabric provider in use, e.g. "shm" or "tcp;ofi_rxm". */
CM5_EXPORT const char *cm5_provider(void);
/* How the job was started: "cm5run", "pmix" or "single". */
CM5_EXPORT const char *cm5_bootstrap(void);

/* Send a request active message: handler(word0..word3) runs on node.  Blocks
 * (while serving incoming messages) only when flow control says so. */
CM5_EXPORT cm5_status_t cm5_am_request(int node, cm5_am_handler_func_t handler,
                                       uint32_t word0, uint32_t word1,
                                       uint32_t word2, uint32_t word3);
/* Send a reply active message (on the reply channel).  Legal from a request
 * handler and from user code; reply handlers must not send. */
CM5_EXPORT cm5_status_t cm5_am_reply(int node, cm5_am_handler_func_t handler,
                                     uint32_t word0, uint32_t word1,
                                     uint32_t word2, uint32_t word3);
/* Remote procedure call: func(word0..word3) runs on node when that node polls
 * outside every handler, so func may send requests and replies itself. */
CM5_EXPORT cm5_status_t cm5_am_rpc(int node, cm5_am_handler_func_t func,
                                   uint32_t word0, uint32_t word1,
                                   uint32_t word2, uint32_t word3);
/* Check that handler is executable code this process can name on the wire. */
CM5_EXPORT cm5_status_t cm5_am_handler_check(const void *handler);

/* Run every handler that has arrived; returns how many user handlers ran.
 * A program that spins on cm5_poll with nothing arriving gets slowed to
 * share the CPU; one that computes between calls does not. */
CM5_EXPORT int cm5_poll(void);
/* Run the handlers of arrived requests (and rpcs) only, or of arrived
 * replies only; the other channel's user messages are kept, in order,
 * until it is next served.  Returns how many user handlers ran.  Inside
 * a handler cm5_poll_requests serves nothing (handlers never nest). */
CM5_EXPORT int cm5_poll_requests(void);
CM5_EXPORT int cm5_poll_replies(void);
/* Serve messages until *flag >= value (spin, then yield, then sleep). */
CM5_EXPORT void cm5_wait_while_lt(volatile int *flag, int value);
/* Serve messages until pred(arg) returns non-zero. */
CM5_EXPORT void cm5_wait_until(int (*pred)(void *arg), void *arg);
/* Non-zero while a handler runs on this node. */
CM5_EXPORT int cm5_in_handler(void);

/* Interrupts: with them enabled, arriving messages interrupt the main
 * thread (a signal) and their handlers run there even while it computes
 * and never polls -- but never while it is inside cm5fab: delivery then
 * waits until the call returns.  Polling keeps working either way. */
CM5_EXPORT cm5_status_t cm5_interrupts_enable(void);
CM5_EXPORT void cm5_interrupts_disable(void);
CM5_EXPORT int cm5_interrupts_enabled(void);
/* Hold interrupts until the matching resume: an interrupt that comes
 * meanwhile is remembered and delivered by the outermost resume (nestable;
 * GASNet's gasnet_hold_interrupts).  Every CMMD/CMAML call holds them for
 * its whole duration, so handlers never interrupt the library itself. */
CM5_EXPORT void cm5_interrupts_hold(void);
CM5_EXPORT void cm5_interrupts_resume(void);
/* Non-zero while handlers run from an interrupt. */
CM5_EXPORT int cm5_in_interrupt(void);

/* Shrink the partition to the first size nodes (collective: every node
 * calls it).  Nodes size and above are expected to exit; they no longer
 * take part in barriers or collectives. */
CM5_EXPORT cm5_status_t cm5_partition_resize(int size);
/* Run func(arg) on every node in node order: node i starts once node i-1
 * has returned (collective). */
CM5_EXPORT cm5_status_t cm5_ordered(void (*func)(void *arg), void *arg);

/* Barrier across all nodes (dissemination, log2(P) rounds). */
CM5_EXPORT cm5_status_t cm5_barrier(void);

/* ---- Point-to-point messages (the CMMD block messages) ----------------
 * A message is matched at the receiver by source node and tag, either of
 * which may be a wildcard; between one sender and one receiver, messages
 * with one tag arrive in order.  Data moves as one libfabric tagged
 * message after a rendezvous, never as a train of active messages, or,
 * up to CM5_EAGER_MAX bytes, in one packet with the announcement, or,
 * between nodes of one host, by the receiver reading the sender's buffer
 * in one copy (CM5_CMA). */
#define CM5_ANY_NODE (-1)
#define CM5_ANY_TAG (-1)

typedef struct cm5_msg *cm5_msg_h;
/* Runs outside every handler when the message is done (or failed). */
typedef void (*cm5_msg_done_func_t)(cm5_msg_h msg, void *arg);

enum {
    CM5_MSG_COPY = 1 /* send from a private copy: buf is free on return */
};

typedef struct {
    int is_send;
    int node;     /* the peer (the actual sender, once a receive matched) */
    int tag;      /* the actual tag, once matched */
    size_t bytes; /* bytes of the message (a receive: as sent) */
    size_t size;  /* send: bytes; receive: the buffer's size */
    void *buf;
    int done;
    cm5_status_t status; /* CM5_ERR_INVALID: longer than the buffer */
} cm5_msg_info_t;

/* Start a send; done when the receiver has all the data. */
CM5_EXPORT cm5_status_t cm5_msg_send(int node, int tag, const void *buf,
                                     size_t len, unsigned flags,
                                     cm5_msg_done_func_t done, void *arg,
                                     cm5_msg_h *out);
/* Start a receive from node (or CM5_ANY_NODE) with tag (or CM5_ANY_TAG).
 * A message longer than len completes the receive with CM5_ERR_INVALID
 * and is not delivered. */
CM5_EXPORT cm5_status_t cm5_msg_recv(int node, int tag, void *buf, size_t len,
                                     cm5_msg_done_func_t done, void *arg,
                                     cm5_msg_h *out);
/* Non-zero when the message is done (serves the network once). */
CM5_EXPORT int cm5_msg_test(cm5_msg_h msg);
/* Serve the network until the message is done; returns its status. */
CM5_EXPORT cm5_status_t cm5_msg_wait(cm5_msg_h msg);
/* Release a handle; legal while in flight (released once done). */
CM5_EXPORT void cm5_msg_free(cm5_msg_h msg);
CM5_EXPORT void cm5_msg_info(cm5_msg_h msg, cm5_msg_info_t *out);
/* Is a message from node with tag (wildcards allowed) waiting to be
 * received?  1 and its description, or 0. */
CM5_EXPORT int cm5_msg_probe(int node, int tag, cm5_msg_info_t *out);
/* Messages started and not yet done on this node. */
CM5_EXPORT int cm5_msg_active(int sends);

/* ---- rports and scopy (CMAML's bulk transfer) --------------------------
 * An rport is a receive port: a base address, a byte counter and a
 * handler.  cm5_scopy puts bytes at the base plus an offset of a remote
 * rport; when the rport's byte counter reaches 0 its handler runs there as
 * handler(rport, handler_arg2). */
#define CM5_RPORTS 128
typedef void (*cm5_rport_handler_func_t)(int rport, void *arg2);
typedef struct {
    void *addr;        /* base address */
    long byte_counter; /* bytes still expected; handler runs at 0 */
    long total_nbytes; /* bytes received since set */
    cm5_rport_handler_func_t handler;
    void *handler_arg2;
    /* Element-wise placement (esize > 0): the bytes sent form elements of
     * esize bytes; element i lands at addr + i * estride.  Offsets and
     * counts stay in bytes of the packed elements.  ecount > 0 bounds the
     * rport to ecount elements. */
    long esize, estride, ecount;
} cm5_rport_attr_t;

/* Allocate rport (or any free one if rport is -1); *out is its number.
 * CM5_ERR_AGAIN when none is free, CM5_ERR_STATE when that one is taken. */
CM5_EXPORT cm5_status_t cm5_rport_alloc(int rport, int *out);
CM5_EXPORT cm5_status_t cm5_rport_free(int rport);
CM5_EXPORT cm5_status_t cm5_rport_get(int rport, cm5_rport_attr_t *out);
CM5_EXPORT cm5_status_t cm5_rport_set(int rport, const cm5_rport_attr_t *attr);
CM5_EXPORT int cm5_rport_free_count(void);
/* Copy len bytes to node's rport at offset; sent(arg) runs here (outside
 * handlers) once buf may be reused. */
CM5_EXPORT cm5_status_t cm5_scopy(int node, int rport, size_t offset,
                                  const void *buf, size_t len,
                                  void (*sent)(void *arg), void *arg);

/* ---- Collectives (the CM-5 control network) ----------------------------
 * Every node calls the same collectives in the same order.  Logarithmic
 * algorithms over internal messages; results are identical on all nodes
 * (every node combines in the same order). */
typedef enum {
    CM5_INT32,
    CM5_UINT32,
    CM5_INT64,
    CM5_UINT64,
    CM5_FLOAT,
    CM5_DOUBLE
} cm5_type_t;
typedef enum {
    CM5_OP_ADD,
    CM5_OP_MAX,
    CM5_OP_MIN,
    CM5_OP_AND,
    CM5_OP_IOR,
    CM5_OP_XOR
} cm5_op_t;
/* CM5_SCAN_SEGMENT_END: a scan's start argument says that this node ENDS
 * a segment (the next node in the scan's direction begins one). */
enum {
    CM5_SCAN_DOWNWARD = 1,
    CM5_SCAN_EXCLUSIVE = 2,
    CM5_SCAN_SEGMENT_END = 4
};

/* Size of one element of a type (0 for an unknown type). */
CM5_EXPORT size_t cm5_type_size(cm5_type_t type);
/* Combine count elements of every node; all nodes get the result in
 * values.  CM5_ERR_INVALID for a bitwise op on a floating type. */
CM5_EXPORT cm5_status_t cm5_allreduce(void *values, int count, cm5_type_t type,
                                      cm5_op_t oper);
/* Parallel prefix of one element: node i gets the combination of the
 * values of nodes 0..i (upward) or P-1..i (CM5_SCAN_DOWNWARD), excluding
 * its own with CM5_SCAN_EXCLUSIVE (the first node of a segment then gets
 * the identity).  start != 0 makes this node the first of a segment. */
CM5_EXPORT cm5_status_t cm5_scan(void *value, cm5_type_t type, cm5_op_t oper,
                                 unsigned flags, int start);
/* The scan of count elements, element by element (the same flags). */
CM5_EXPORT cm5_status_t cm5_scan_v(void *values, int count, cm5_type_t type,
                                   cm5_op_t oper, unsigned flags, int start);
/* Split-phase reduction and scan of one element.  start enters this
 * node's value and returns at once; test says, without blocking, whether
 * the result is here (1 when none is outstanding); finish waits for it and
 * stores it in value.  One reduction and one scan may be outstanding per
 * node: CM5_ERR_STATE for a second start before finish, or a finish
 * without start.  They advance whenever the node is in the runtime. */
CM5_EXPORT cm5_status_t cm5_allreduce_start(const void *value, cm5_type_t type,
                                            cm5_op_t oper);
CM5_EXPORT int cm5_allreduce_test(void);
CM5_EXPORT cm5_status_t cm5_allreduce_finish(void *value);
CM5_EXPORT cm5_status_t cm5_scan_start(const void *value, cm5_type_t type,
                                       cm5_op_t oper, unsigned flags,
                                       int start);
CM5_EXPORT int cm5_scan_test(void);
CM5_EXPORT cm5_status_t cm5_scan_finish(void *value);
/* Broadcast len bytes from root to every node's buf.  Nodes other than
 * the root may pass CM5_ANY_NODE as root. */
CM5_EXPORT cm5_status_t cm5_bcast(void *buf, size_t len, int root);
/* Every node contributes len bytes; all get size * len bytes in node
 * order. */
CM5_EXPORT cm5_status_t cm5_allgather(const void *mine, size_t len, void *all);
/* Split-phase barrier: start, then test (non-zero when every node has
 * started) or finish (wait). */
CM5_EXPORT cm5_status_t cm5_barrier_start(void);
CM5_EXPORT int cm5_barrier_test(void);
CM5_EXPORT cm5_status_t cm5_barrier_finish(void);
/* The asynchronous global OR: set this node's bit; read the OR of every
 * node's (and the host program's) latest bit as seen so far (no
 * synchronization). */
CM5_EXPORT void cm5_global_or_set(int bit);
CM5_EXPORT int cm5_global_or_get(void);

/* ---- The host program (CMMD's host/node model) -------------------------
 * A job started with cm5run --host has, beside the nodes 0..cm5_size()-1,
 * a host program: one more process, outside the partition, whose
 * cm5_rank() is cm5_host_node() (== cm5_size()).  Nodes and host send it
 * and each other active messages and point-to-point messages as usual;
 * node collectives stay among the nodes.  The host collectives below are
 * called by the host and by every node, in the same order; CM5_ERR_STATE
 * in a job without a host program (or from a handler). */
/* The host program's node number, or -1 if the job has none. */
CM5_EXPORT int cm5_host_node(void);
/* Non-zero in the host program. */
CM5_EXPORT int cm5_is_host(void);
/* The host sends len bytes of buf; every node receives them in buf. */
CM5_EXPORT cm5_status_t cm5_host_bcast(void *buf, size_t len);
/* The host's buf holds cm5_size() elements of len bytes; node i receives
 * element i in its buf. */
CM5_EXPORT cm5_status_t cm5_host_scatter(void *buf, size_t len);
/* Node i sends len bytes of buf; the host receives them as element i of
 * its buf (cm5_size() * len bytes). */
CM5_EXPORT cm5_status_t cm5_host_gather(void *buf, size_t len);
/* Combine count elements of every node and of the host; the host and
 * every node get the result in values (identical bits everywhere). */
CM5_EXPORT cm5_status_t cm5_host_allreduce(void *values, int count,
                                           cm5_type_t type, cm5_op_t oper);
/* Barrier of the host and every node. */
CM5_EXPORT cm5_status_t cm5_host_barrier(void);

/* Report "cm5[node:pid] error <call>: <message>" and stop the whole job
 * with a non-zero status. */
CM5_EXPORT CM5_NORETURN void cm5_fatal(const char *call, const char *fmt, ...)
    CM5_PRINTF(2, 3);

/* Wall clock and CPU time of this process, in seconds.  With CM5_MODEL
 * set (virtual time, doc/model.md), cm5_wtime() is the node's virtual
 * clock; cm5_rtime() is always the real one. */
CM5_EXPORT double cm5_wtime(void);
CM5_EXPORT double cm5_rtime(void);
CM5_EXPORT double cm5_cputime(void);
/* The virtual-time model in use (the CM5_MODEL value), or NULL: off. */
CM5_EXPORT const char *cm5_model(void);
/* Virtual time: the computation since this node's previous runtime call
 * costs seconds of the modelled machine's time, instead of its thread CPU
 * time times CM5_MODEL_CPU_SCALE (an operation count times a cost, a
 * figure measured on a CM-5: the same on every run).  Model off: does
 * nothing.  CM5_ERR_INVALID: seconds negative or not finite. */
CM5_EXPORT cm5_status_t cm5_compute(double seconds);

/* Counters of this node's active-message traffic. */
typedef struct {
    uint64_t requests_sent, replies_sent;
    uint64_t requests_handled, replies_handled;
    uint64_t internal_handled; /* barrier and flow-control packets */
    uint64_t foreign_dropped;  /* packets without this job's key */
    uint64_t credit_waits;     /* sends that waited for flow control */
    uint64_t sleeps;           /* waits that slept */
    /* The progress engine's deepest nesting (a wait inside a send inside
     * a handler or a completion callback polls again), the deepest
     * nesting of deferred work (protocol steps, completion callbacks)
     * and the longest such step, in microseconds. */
    uint64_t progress_depth_max, deferred_depth_max, deferred_max_us;
    /* Message records freed inside the interrupt signal handler (free is
     * not async-signal-safe: stays 0; they are freed after it). */
    uint64_t signal_frees;
    /* Deferred steps run by the runtime's drain inside the interrupt
     * signal handler (message protocol steps call libfabric; the handler
     * runs only held user work): 0 unless a callback waits there. */
    uint64_t signal_steps;
    /* Packets (active messages, the runtime's own included) sent and
     * received through the same-host rings (CM5_SHM) and through
     * libfabric. */
    uint64_t shm_sent, shm_received, fabric_sent, fabric_received;
    /* Point-to-point messages and scopies this node received by single
     * copy (CM5_CMA): read from the sender's memory, or written by the
     * sender into a receive this node offered; their bytes; and copies
     * that fell back to libfabric because the kernel refused (a read by
     * this node, or its write into another node's receive). */
    uint64_t cma_messages, cma_bytes, cma_fallbacks;
    /* Point-to-point messages sent eagerly (CM5_EAGER_MAX), eager ones
     * that arrived before their receive and were buffered, and messages
     * short enough for eager that went by rendezvous because their
     * receiver already buffered its bound of this node's messages. */
    uint64_t eager_sent, eager_unexpected, eager_over_bound;
    /* Receives this node offered their sender (single copy, real time),
     * and messages it wrote straight into a receive offered to it. */
    uint64_t offers_made, puts_sent;
} cm5_stats_t;
CM5_EXPORT void cm5_stats(cm5_stats_t *out);

/* Record this node's active messages, CMMD messages and scopies from now
 * on; at exit node 0 merges every node's events into path, Chrome
 * trace-event JSON (what CM5_TRACE=path does from the start).  Call it on
 * every node with the same path. */
CM5_EXPORT cm5_status_t cm5_trace_start(const char *path);

/* List the libfabric providers on this host: cb(arg, name, usable, why)
 * once per provider, usable != 0 if cm5fab's endpoints open on it. */
CM5_EXPORT int cm5_fabric_list(void (*callback)(void *arg, const char *provider,
                                                int usable, const char *why),
                               void *arg);
/* libfabric's version, "major.minor". */
CM5_EXPORT const char *cm5_fabric_version(void);

/* The limit CMMD's asynchronous calls keep per direction on a node
 * (CM5_ASYNC_MAX, 128 unless set; checked at start-up). */
CM5_EXPORT int cm5_async_max(void);

/* The CM5_* configuration table (for cm5info -e). */
typedef struct {
    const char *name;
    const char *default_value;
    const char *help;
} cm5_config_var_t;
CM5_EXPORT int cm5_config_count(void);
CM5_EXPORT const cm5_config_var_t *cm5_config_var(int index);

#ifdef __cplusplus
}
#endif
#endif /* CM5_CM5_H */

/*
 * The libfabric layer: the only code in cm5fab that includes <rdma/fabric.h>.
 *
 * A node owns two reliable-datagram (FI_EP_RDM) endpoints, one per channel:
 * requests and replies travel apart, like the CM-5's two data networks, so a
 * reply is never queued behind requests.  Both endpoints receive into
 * FI_MULTI_RECV buffers and share one address vector.  On tcp (ofi_rxm,
 * where a second endpoint is a second connection to every peer) both
 * channels share one endpoint, the completion's data naming the channel:
 * every poll, whichever channel it is for, reads every message out of the
 * receive buffers into its channel's queue, so a reply is still never held
 * behind requests the node has not handled (cm5fab(7), "Two channels").
 */
#ifndef CM5_FAB_H
#define CM5_FAB_H

#include <stddef.h>
#include <stdint.h>

#include "cm5/cm5.h"
#include "fabric/channel.h"

#define CM5I_FAB_NAME_MAX 128

typedef struct cm5i_fab cm5i_fab_t;

/* A bulk (tagged) operation in flight.  done(arg, status, len) runs from
 * inside cm5i_fab_poll when it completes (status 0, or a negative
 * CM5_ERR_*); it must not send: it should only record the event. */
typedef void (*cm5i_fab_done_func_t)(void *arg, int status, size_t len);
typedef struct {
    void *fi_ctx[4]; /* libfabric's context: first, as the layer needs */
    int kind;        /* the layer's own */
    cm5i_fab_done_func_t done;
    void *arg;
} cm5i_fab_op_t;

typedef struct {
    const char *provider; /* NULL: libfabric's choice */
    const char *name_tag; /* names string-addressed endpoints (shm files) */
    size_t msg_size;      /* largest message this layer carries */
    size_t rx_bytes;      /* receive buffer space per channel */
    int nch;              /* channels: 0 for CM5I_NCH, 1 for requests only */
    size_t queue;         /* 0, or transmit and receive queue depth (a
                             small fabric: the provider sizes its pools
                             after them) */
    int quiet;            /* failed sends and completions are the caller's
                             to judge: logged at debug level only */
    size_t ring_slots;    /* 0, or packets per same-host ring: peers on
                             this host then exchange packets through
                             shared memory, not libfabric (shmring.h) */
    size_t ring_bytes;    /* with ring_slots: bytes per ring for messages
                             longer than a packet (eager messages),
                             which take several slots, in flight at once */
    int rank;             /* this node (node 0 reports a job too large
                             for the provider, cm5i_fab_set_peers) */
    int nep;              /* with ring_slots: the endpoints */
    int cma;              /* with ring_slots: ring peers in this pid
                             namespace may move bulk data by single copy
                             (cm5i_fab_cma_read) */
} cm5i_fab_params_t;

/* Put back the default action for the signal handlers libpsm_infinipath
 * installs when fi_getinfo loads it (cm5i_fab_open calls it before any
 * provider saves them to chain to; start-up again once it is done). */
void cm5i_fab_drop_foreign_crash_handlers(void);

cm5_status_t cm5i_fab_open(const cm5i_fab_params_t *params, cm5i_fab_t **out);
void cm5i_fab_close(cm5i_fab_t *fab);
/* The process is about to die without closing: remove the shared-memory
 * files a string-addressed provider (shm) made for our endpoints. */
void cm5i_fab_abandon(cm5i_fab_t *fab);

/* What the fabric knows of providers, so that nothing above names one:
 * the provider of a job nobody chose one for (on one host, or on
 * several); whether FI_PROVIDER, libfabric's filter ("a,b", "^a,b"),
 * lets a provider in (yes when unset); the address space a provider needs to
 * open nep endpoints (NULL: libfabric's choice); whether a running provider
 * ("tcp;ofi_rxm": a core provider under a utility one) answers to a
 * name ("tcp"). */
const char *cm5i_fab_default_provider(int one_host);
int cm5i_fab_filter_allows(const char *name);
size_t cm5i_fab_room(const char *provider, int nep);
int cm5i_fab_provider_answers(const char *running, const char *name);

/* Provider name as libfabric reports it ("shm", "tcp;ofi_rxm", ...). */
const char *cm5i_fab_provider(const cm5i_fab_t *fab);
/* Messages one endpoint can receive from all its peers together before
 * the provider drops (and later resends) them instead of making senders
 * wait; 0 where senders wait (every provider but ofi_rxd). */
size_t cm5i_fab_rx_loss_window(const cm5i_fab_t *fab);
/* Messages of up to this many bytes stay in order among themselves, a
 * later one never overtaking an earlier one (SIZE_MAX: all of them). */
size_t cm5i_fab_ordered_max(const cm5i_fab_t *fab);
/* Serialized address of the endpoints; returns its length or 0. */
size_t cm5i_fab_address(cm5i_fab_t *fab, void *buf, size_t size);
/* Insert the addresses of nodes 0..n-1 (each as returned by
 * cm5i_fab_address, stride bytes apart): a same-host ring peer's request
 * endpoint only (its bulk data), both endpoints of the others. */
cm5_status_t cm5i_fab_set_peers(cm5i_fab_t *fab, int n, const void *addrs,
                                size_t stride);

/* Packets sent and received through the same-host rings and through
 * libfabric (cm5_stats). */
typedef struct {
    uint64_t ring_sent, ring_received, fab_sent, fab_received;
} cm5i_fab_counts_t;
void cm5i_fab_counts(const cm5i_fab_t *fab, cm5i_fab_counts_t *out);
/* The launcher's word on which endpoints share this host (near[k] != 0),
 * or NULL (it does not say): a ring peer must be near too.  Before
 * cm5i_fab_set_peers; kept, not copied. */
void cm5i_fab_set_near(cm5i_fab_t *fab, const unsigned char *near);
/* Is node reached through the same-host ring? */
int cm5i_fab_via_ring(const cm5i_fab_t *fab, int node);

/* Node's address as libfabric prints it ("fi_sockaddr_in://10.0.0.3:4711"),
 * into buf (size bytes, NUL-terminated); buf is "" if unknown. */
void cm5i_fab_peer_string(cm5i_fab_t *fab, int node, char *buf, size_t size);

/* Send one message; CM5_ERR_AGAIN when the provider has no room now. */
cm5_status_t cm5i_fab_send(cm5i_fab_t *fab, int ch, int node, const void *msg,
                           size_t len);
/* Bulk data: tagged messages on the request endpoint.  The receiver picks
 * tags that are unique among its receives in flight; its data never
 * passes through the active-message buffers. */
cm5_status_t cm5i_fab_tsend(cm5i_fab_t *fab, int node, uint64_t tag,
                            const void *buf, size_t len, cm5i_fab_op_t *op);
cm5_status_t cm5i_fab_trecv(cm5i_fab_t *fab, uint64_t tag, void *buf,
                            size_t len, cm5i_fab_op_t *op);

/* Single copy (cross-memory attach): may node's memory be read here
 * (a ring peer in this pid namespace, CM5_CMA not off, no read of it
 * failed)?  cm5i_fab_cma_read copies len bytes at address src of node
 * into dst with process_vm_readv; CM5_ERR_STATE when the kernel refuses
 * (ptrace rules, a process gone): one debug line, and node is no longer
 * read this way, so the caller takes the tagged path instead. */
int cm5i_fab_cma_ok(const cm5i_fab_t *fab, int node);
/* Read node's memory as process pid from now on, where CM5_CMA allows
 * single copy and no earlier read was refused (a peer of one host that
 * no ring reaches: virtual time's synchronisation wants every message's
 * data in its announcement's turn). */
void cm5i_fab_cma_adopt(cm5i_fab_t *fab, int node, int pid);
cm5_status_t cm5i_fab_cma_read(cm5i_fab_t *fab, int node, void *dst,
                               uint64_t src, size_t len);
/* The other way (process_vm_writev): len bytes at src here to address
 * dst of node, with the same refusal. */
cm5_status_t cm5i_fab_cma_write(cm5i_fab_t *fab, int node, uint64_t dst,
                                const void *src, size_t len);

/* Read completions of a channel, calling cb for each received message.
 * Returns the number of messages received, or a negative status. */
int cm5i_fab_poll(cm5i_fab_t *fab, int ch, cm5i_fab_rx_func_t cb, void *arg);

/* From now on send with completions (no fi_inject), so that
 * cm5i_fab_sends_pending() tells when every message has left: a provider
 * may still hold an injected message when fi_inject returns, and closing
 * the endpoint then would lose it. */
void cm5i_fab_track_sends(cm5i_fab_t *fab);
long cm5i_fab_sends_pending(const cm5i_fab_t *fab);
/* Tagged operations in flight: large transfers move only while both ends
 * drive progress, so a node with some must not sleep. */
long cm5i_fab_bulk_pending(const cm5i_fab_t *fab);
/* Destination of the last send that failed, or -1 if none is known. */
int cm5i_fab_lost_node(const cm5i_fab_t *fab);

/* Wait objects: up to CM5I_NCH file descriptors, fds[c] channel c's (the
 * same one for both on one endpoint), or 0 if the provider has none.
 * cm5i_fab_trywait() returns 1 when it is safe to sleep on them. */
int cm5i_fab_wait_fds(const cm5i_fab_t *fab, int *fds);
/* The endpoints' wait objects whether ring peers exist or not (a job on
 * several hosts sleeps on them and on its ring wake-up socket). */
int cm5i_fab_endpoint_fds(const cm5i_fab_t *fab, int *fds);
int cm5i_fab_trywait(cm5i_fab_t *fab);

/* Fault injection, for tests: the next count receive-buffer posts fail
 * (CM5I_FAB_FAULT_REPOST_AGAIN: the provider has no room; _ERROR: a hard
 * error), or the next count send completions come back as errors. */
enum {
    CM5I_FAB_FAULT_REPOST_AGAIN = 0,
    CM5I_FAB_FAULT_REPOST_ERROR = 1,
    CM5I_FAB_FAULT_SEND_COMPLETION = 2,
    CM5I_FAB_FAULT_CMA = 3, /* single-copy reads refused (as EPERM) */
    CM5I_FAB_NFAULTS = 4
};
void cm5i_fab_fault(cm5i_fab_t *fab, int what, long count);

/* List the providers libfabric offers; cb gets each name once, with
 * usable != 0 if an endpoint of the kind cm5fab needs opens, else the
 * reason it does not. */
typedef void (*cm5i_fab_list_func_t)(void *arg, const char *provider,
                                     int usable, const char *why);
int cm5i_fab_list(cm5i_fab_list_func_t cb, void *arg);
/* libfabric's version string. */
const char *cm5i_fab_version(void);

#endif

/*
 * The packet layer (am_packet.c): sends packets (credits, provider room,
 * the signal handler's queue), decodes and dispatches them by type, runs
 * user handlers and RPCs, holds user work inside control-network calls.
 */
#ifndef CM5_AM_PACKET_H
#define CM5_AM_PACKET_H

#include <stddef.h>
#include <stdint.h>

#include "am_progress.h"
#include "am_wire.h"
#include "cm5/cm5.h"

/* Runtime-internal handlers (collectives and the like), by index. */
typedef void (*cm5i_internal_func_t)(int src, const uint32_t *arg);
enum {
    CM5I_INT_MSG_RTS = 1,    /* a message is ready to send */
    CM5I_INT_MSG_CTS = 2,    /* the receiver is ready for it */
    CM5I_INT_MSG_FIN = 3,    /* the receiver has it */
    CM5I_INT_COLL = 4,       /* a collective's step: 64-bit value */
    CM5I_INT_GOR = 5,        /* a node's global-OR bit */
    CM5I_INT_SCOPY = 6,      /* an scopy is ready to send */
    CM5I_INT_MSG_ACK = 7,    /* a receive matched the eager message */
    CM5I_INT_MSG_DATA = 8,   /* the data left as a tagged transfer (virtual
                                time's synchronisation: its turn) */
    CM5I_INT_MSG_GO = 9,     /* the receiver is ready for a message whose
                                data it reads (virtual time's
                                synchronisation: held senders) */
    CM5I_INT_MSG_PUT = 10,   /* the sender wrote a message into a receive
                                the receiver offered (single copy) */
    CM5I_INT_SCOPY_CTS = 11, /* the receiver took an scopy's data in its
                                announcement's turn and waits for it as
                                a tagged transfer (virtual time's
                                synchronisation; never ordered) */
    CM5I_INTERNAL_MAX = 32
};

/* The packet types: each module's setup registers the types it handles.
 * A type's function returns 1 when the packet's credit is owed now (a
 * counted packet consumed), 0 otherwise (uncounted, or owed later). */
typedef int (*cm5i_pkt_func_t)(int ch, const cm5i_pkt_t *pkt);
void cm5i_pkt_register(int type, cm5i_pkt_func_t fn);
/* The same for a type whose packets carry a body after the 56 bytes, of
 * arg[1] bytes (at most CM5I_PKT_BODY_MAX); the type's function reads it
 * with cm5i_pkt_body, valid during the call only. */
#define CM5I_PKT_BODY_MAX 8192
void cm5i_pkt_register_body(int type, cm5i_pkt_func_t fn);
const void *cm5i_pkt_body(size_t *len);
cm5_status_t cm5i_pkt_setup(void);
void cm5i_pkt_teardown(void);
/* Digest of the queued RPCs and the held packets (cm5i_digest; for
 * tests/fuzz). */
uint64_t cm5i_pkt_digest(uint64_t h);

/* The decoder: drops foreign packets, dispatches by type; its setup
 * registers it with the progress engine (cm5i_progress_decoder). */
void cm5i_pkt_rx(void *arg, int ch, const void *buf, size_t len);

/* Run a packet that arrived on ch (its body: len bytes) by its type: the
 * decoder's second half, which virtual time calls in the packet's turn
 * for the packets it keeps. */
void cm5i_pkt_dispatch(int ch, const cm5i_pkt_t *pkt, const void *body,
                       size_t len);

/* Send a packet on a channel, waiting for credits and provider room. */
cm5_status_t cm5i_am_send(int ch, int node, cm5i_pkt_t *pkt);
/* The same with a body of len bytes (a type registered with one; never
 * in signal context, whose send queue holds bare packets). */
cm5_status_t cm5i_am_send_body(int ch, int node, cm5i_pkt_t *pkt,
                               const void *body, size_t len);
/* Send an internal (runtime) message to node on channel ch. */
cm5_status_t cm5i_am_internal(int ch, int node, int index,
                              const uint32_t arg[4]);
/* The clock's word for one packet, given by the call that sends it (not
 * left for whatever packet goes next: a handler run meanwhile, in a
 * wait or a signal, sends its own): w, and whether it keeps a promise
 * (am_event.h, push and bulk_take). */
typedef struct {
    uint64_t w;
    int kept;
} cm5i_word_t;
/* Give pkt the word *w (none: NULL). */
void cm5i_pkt_word(cm5i_pkt_t *pkt, const cm5i_word_t *w);
/* cm5i_am_internal with the packet's word (NULL: none given). */
cm5_status_t cm5i_am_internal_word(int ch, int node, int index,
                                   const uint32_t arg[4], const cm5i_word_t *w);
void cm5i_am_register_internal(int index, cm5i_internal_func_t fn);

/* Has the node work of its own queued that may send (RPCs, held
 * packets, deferred work; parked ones: cm5i_parked)? */
int cm5i_am_work_pending(void);
/* User handlers (requests, replies, RPCs) this node has run. */
uint64_t cm5i_am_handled(void);
/* Run a user packet that arrived on ch and owe its credit. */
void cm5i_am_deliver(int ch, const cm5i_pkt_t *pkt);

/* Polling one channel (am_poll.c): while cm5_poll_requests serves the
 * network, user packets arriving on the reply channel outside handlers
 * are parked (and the other way round), to run in order when their
 * channel is next served.  Credits bound the parked packets. */
extern int cm5i_park_mask;     /* channels whose user packets wait */
extern uint32_t cm5i_parked[]; /* packets parked, per channel */
/* Where the packet layer parks them: am_poll.c's setup registers it. */
void cm5i_pkt_parker(void (*park)(int ch, const cm5i_pkt_t *pkt));

int cm5i_cn_enter(int begins);
void cm5i_cn_leave(int *held_here);
#define CM5I_CN_HOLD()                                                         \
    int cm5i_cn_ __attribute__((cleanup(cm5i_cn_leave), unused)) =             \
        cm5i_cn_enter(0)
#define CM5I_CN_HOLD_OP()                                                      \
    int cm5i_cn_ __attribute__((cleanup(cm5i_cn_leave), unused)) =             \
        cm5i_cn_enter(1)
#define CM5I_CN_HOLD_HOST_OP()                                                 \
    int cm5i_cn_ __attribute__((cleanup(cm5i_cn_leave), unused)) =             \
        cm5i_cn_enter(2)

/* Run the user work the interrupt thread held (handlers of arrived
 * packets, RPCs, completion callbacks): what an interrupt runs.  Returns
 * how many ran. */
int cm5i_am_run_user(void);
/* Is there user work for an interrupt to run? */
int cm5i_am_user_pending(void);
/* Send the packets queued by handlers that ran in the signal handler
 * (which never calls the provider itself); returns 0 when none is left. */
int cm5i_am_flush_sendq(void);
cm5_status_t cm5i_am_sendq_setup(void);

#endif

/*
 * The wire format of the active-message core: packet types and the
 * packet itself (am_packet.c sends and decodes them).
 */
#ifndef CM5_AM_WIRE_H
#define CM5_AM_WIRE_H

#include <stdint.h>

#include "fabric/fab.h"

/* Packet types. */
enum {
    CM5I_PKT_USER = 1,     /* user handler (obj, off) */
    CM5I_PKT_INTERNAL = 2, /* runtime handler, index in obj; counted */
    CM5I_PKT_CREDIT = 3,   /* only returns credits; uncounted */
    CM5I_PKT_BARRIER = 4,  /* barrier round; uncounted */
    CM5I_PKT_RPC = 5,      /* user handler run outside handlers; counted */
    CM5I_PKT_EAGER = 6,    /* a message with its data as the body; counted */
    CM5I_PKT_CMA = 7,      /* a message to read by single copy; counted */
    CM5I_PKT_VSYNC = 8,    /* virtual time's synchronisation: a node's
                              record, as a message (am_model_sync.c); its
                              body; counted */
    CM5I_PKT_MAX = 9
};

/* The wire format of an active message: 56 bytes (the same-host rings
 * carry up to 56), maybe followed by a body (eager messages). */
typedef struct {
    uint64_t key;    /* the job's key: packets from elsewhere are dropped */
    uint32_t obj;    /* handler object id, or internal handler index */
    uint32_t off;    /* handler offset in its object */
    uint32_t arg[4]; /* the four argument words */
    uint32_t seq;    /* the sender's control-network epoch (a barrier
                        packet: the barrier's) */
    uint16_t src;    /* sending node */
    uint8_t type;
    uint8_t raw; /* CM5I_RAW_ADDR: obj:off is the handler's address in
                    the receiver; CM5I_RAW_OWED (receiver's copy only):
                    its credit went back as it was taken */
    uint16_t cred[CM5I_NCH]; /* credits returned to the receiver */
    uint32_t tseq; /* with CM5_TRACE: the sender's number for this user
                      active message (its trace arrow), from 1; else 0 */
    uint64_t vt;   /* the clock's word (am_event.h): virtual time's send
                      time, or CM5I_VT_NONE */
} cm5i_pkt_t;
/* A packet (or message) without a word for the clock (am_event.h): one
 * virtual time does not charge. */
#define CM5I_VT_NONE UINT64_MAX

#define CM5I_RAW_ADDR 1
#define CM5I_RAW_OWED 2
/* The sender's own, cleared before the packet leaves (am_send): vt is
 * the clock's word given by the call that sends it (cm5i_word_t), and
 * that word keeps a promise (cm5i_msync_promise). */
#define CM5I_RAW_WORD 4
#define CM5I_RAW_KEPT 8

#define CM5I_CH_ALL ((1 << CM5I_NCH) - 1)
#define CM5I_CH_BIT(c) (1 << (c))

/* The address record of a node in the exchange; the uncounted packets
 * (credit and barrier) a peer may have in flight beyond the window. */
#define CM5I_ADDR_REC                                                          \
    (CM5I_NCH * (2 + CM5I_FAB_NAME_MAX) + 2 + CM5I_FAB_RING_REC + 8)
#define CM5I_UNCOUNTED_SLACK 8 /* credit and barrier packets per peer */

_Static_assert(sizeof(cm5i_pkt_t) == 56, "the rings carry 56-byte packets");

#endif

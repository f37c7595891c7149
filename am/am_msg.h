/*
 * Messages (am_msg.c): tagged messages (eager, rendezvous, single copy),
 * the runtime's own included, and scopy's transport.
 */
#ifndef CM5_AM_MSG_H
#define CM5_AM_MSG_H

#include <stddef.h>

#include "am_wire.h"
#include "cm5/cm5.h"

cm5_status_t cm5i_msg_setup(void);
void cm5i_msg_teardown(void);
/* Read CM5_EAGER_MAX (before the endpoints open: it sizes them). */
void cm5i_msg_config(void);
/* Messages of this node not yet complete: receives (sends 0) or sends
 * (1), posted by the program (virtual time's mx, doc/model.md). */
int cm5i_msg_open(int sends);
/* Synchronised virtual time, interleaved receipt (am_model.c): is pkt
 * the data notice of a held message that this node has not taken yet?
 * If so (and the pointers are given), the message's sender, bytes,
 * whether it is a CMMD message (not an scopy), and the message. */
int cm5i_msg_notice(const cm5i_pkt_t *pkt, int *src, size_t *len, int *cmmd,
                    void **ref);
/* That message is taken with another (am_model.c): its acknowledgement's
 * word, and when the node has it. */
void cm5i_msg_took(void *ref, uint64_t ack, uint64_t end);
/* The largest packet eager messages need, and the receive buffer space
 * their bodies may take at once (every peer's bound together). */
size_t cm5i_msg_packet_max(void);
size_t cm5i_msg_rx_bytes(void);
/* The same for one peer's same-host ring (its request channel). */
size_t cm5i_msg_ring_bytes(void);
/* Messages with the runtime's own (negative) tags, which user receives,
 * wildcards included, never match. */
cm5_status_t cm5i_msg_send(int node, int tag, const void *buf, size_t len,
                           unsigned flags, cm5_msg_done_func_t done, void *arg,
                           cm5_msg_h *out);
cm5_status_t cm5i_msg_recv(int node, int tag, void *buf, size_t len,
                           cm5_msg_done_func_t done, void *arg, cm5_msg_h *out);

#endif

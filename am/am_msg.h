/*
 * Messages (am_msg.c): tagged messages (eager, rendezvous, single copy),
 * the runtime's own included, and scopy's transport.
 */
#ifndef CM5_AM_MSG_H
#define CM5_AM_MSG_H

#include <stddef.h>

#include "cm5/cm5.h"

cm5_status_t cm5i_msg_setup(void);
void cm5i_msg_teardown(void);
/* Read CM5_EAGER_MAX (before the endpoints open: it sizes them). */
void cm5i_msg_config(void);
/* Messages of this node not yet complete: receives (sends 0) or sends
 * (1), posted by the program (virtual time's mx, doc/model.md). */
int cm5i_msg_open(int sends);
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

/*
 * Flow control (am_flow.c), below the packet layer: the credits of every
 * peer and channel, and the credit packets that return them.
 */
#ifndef CM5_AM_FLOW_H
#define CM5_AM_FLOW_H

#include <stdint.h>

#include "am_wire.h"
#include "cm5/cm5.h"

/* Flow control (am_flow.c): the only owner of the credits. */
void cm5i_flow_config(void);        /* read CM5_AM_CREDITS */
uint16_t cm5i_flow_window(void);    /* counted packets per peer and channel */
cm5_status_t cm5i_flow_setup(void); /* fit the window, size the arrays */
void cm5i_flow_teardown(void);
/* Digest of the credits held and owed and the flush queue's length
 * (cm5i_digest; for tests/fuzz). */
uint64_t cm5i_flow_digest(uint64_t h);
int cm5i_flow_has(int ch, int node);   /* a credit to send to node on ch */
void cm5i_flow_take(int ch, int node); /* spend it */
void cm5i_flow_returned(int src, const cm5i_pkt_t *pkt);
void cm5i_flow_owe(int ch, int src);
void cm5i_flow_piggyback(int ch, int node, cm5i_pkt_t *pkt);
void cm5i_flow_unpiggyback(int node, const cm5i_pkt_t *pkt);
/* Send the credit packets owed, without blocking (a progress hook). */
int cm5i_flow_flush(int chmask);
/* A credit packet arrived (the packet layer dispatches them here). */
int cm5i_flow_credit_packet(int ch, const cm5i_pkt_t *pkt);

#endif

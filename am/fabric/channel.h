/*
 * The channels of the fabric layer and of the same-host rings below it:
 * what both carry (am/fabric/fab.h, am/fabric/shmring.h).
 */
#ifndef CM5_FAB_CHANNEL_H
#define CM5_FAB_CHANNEL_H

#include <stddef.h>

/* Requests and replies travel apart, like the CM-5's two data networks. */
#define CM5I_NCH 2
enum { CM5I_CH_REQ = 0, CM5I_CH_REP = 1 };
/* Room for the same-host ring's part of an address record. */
#define CM5I_FAB_RING_REC 88

/* Called for every received message; buf is valid only during the call. */
typedef void (*cm5i_fab_rx_func_t)(void *arg, int ch, const void *buf,
                                   size_t len);

#endif

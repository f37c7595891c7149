/*
 * One-channel polls (am_poll.c): cm5_poll_requests/replies park the user
 * packets of the other channel.
 */
#ifndef CM5_AM_POLL_H
#define CM5_AM_POLL_H

#include <stdint.h>

#include "cm5/cm5.h"

/* One-channel polls (am_poll.c): set up before cm5i_pkt_setup. */
cm5_status_t cm5i_poll_setup(void);
void cm5i_poll_teardown(void);

/* Packets parked, per channel. */
/* Run the packets parked on ch; returns how many. */
int cm5i_park_drain(int ch);

#endif

/*
 * The liveness check (am_alive.c).
 */
#ifndef CM5_AM_ALIVE_H
#define CM5_AM_ALIVE_H

#include <stddef.h>

#include "cm5/cm5.h"

/* Liveness check (am_alive.c, CM5_PEER_TIMEOUT): a heartbeat ring on a
 * second fabric instance, driven by a thread of its own. */
/* Read CM5_PEER_TIMEOUT (after the bootstrap: the same on every node). */
cm5_status_t cm5i_alive_config(void);
int cm5i_alive_enabled(void);
/* Open the heartbeat's endpoints (after the main ones: same provider). */
cm5_status_t cm5i_alive_open(void);
/* Their address record, and every node's (stride bytes apart). */
size_t cm5i_alive_address(void *buf, size_t size);
cm5_status_t cm5i_alive_set_peers(const void *addrs, size_t stride);
/* Start pinging and watching (init is complete). */
cm5_status_t cm5i_alive_start(void);
/* The partition shrank to size nodes: the ring follows. */
void cm5i_alive_resize(int size);
/* Watch no more (past the exit barrier, or this node is failing).  If a
 * report is under way, never returns: the process is ending. */
void cm5i_alive_quiet(void);
/* This node is dying: watch no more, remove the shm files. */
void cm5i_alive_abandon(void);
/* Stop the thread (saying goodbye to the successor if bye) and close. */
void cm5i_alive_stop(int bye);

#endif

/*
 * The barrier (am_barrier.c): a dissemination barrier over the packet
 * layer, split-phase or not.
 */
#ifndef CM5_AM_BARRIER_H
#define CM5_AM_BARRIER_H

#include "cm5/cm5.h"

cm5_status_t cm5i_barrier_setup(void);
void cm5i_barrier_teardown(void);
/* Digest of the barrier signals counted (cm5i_digest; for tests/fuzz). */
uint64_t cm5i_barrier_digest(uint64_t h);
int cm5i_barrier_open(void); /* a split-phase barrier is under way */
/* A blocking barrier waits (cm5_barrier_finish): its end is the clock's;
 * otherwise a test saw it (virtual time's synchronisation). */
extern int cm5i_barrier_waits;

#endif

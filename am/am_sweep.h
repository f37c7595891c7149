/*
 * The job's shared-memory names, /dev/shm/cm5-<key>-*, and their removal
 * (am_sweep.c): calls nothing else of am/ but the log.
 */
#ifndef CM5_AM_SWEEP_H
#define CM5_AM_SWEEP_H

#include <stdint.h>

/* The job's key: the names to remove start with cm5-<key>-. */
void cm5i_sweep_set_key(uint64_t key);
/* Remove every one of them on this host; async-signal-safe.  Returns how
 * many went. */
int cm5i_sweep_job(void);
/* SIGTERM, SIGHUP and SIGINT, where the program left their default
 * action, sweep before they end the process. */
void cm5i_sweep_guard(void);
/* Did cm5i_sweep_guard take sig? */
int cm5i_sweep_guards(int sig);

#endif

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
/* Only those of one node (cm5-<key>-<node>-*): what a failing node may
 * remove while the others of the job still run -- libfabric's shm maps a
 * peer's region by name at the first send to it, and a live node that
 * finds a name gone crashes inside the provider.  Async-signal-safe. */
int cm5i_sweep_node(int node);
/* SIGTERM, SIGHUP and SIGINT, where the program left their default
 * action, sweep before they end the process. */
void cm5i_sweep_guard(void);
/* Did cm5i_sweep_guard take sig? */
int cm5i_sweep_guards(int sig);

#endif

/*
 * Waiting (am_wait.c): the steps of a wait loop (progress, spin, yield,
 * sleep on the doorbell or the provider's wait objects), the probes a
 * program calls in loops, the doorbells.
 */
#ifndef CM5_AM_WAIT_H
#define CM5_AM_WAIT_H

#include "am_ctx.h"
#include "boot/boot_proto.h"
#include "cm5/cm5.h"

/* Doorbell slot of one node in the job's shared memory: its layout is
 * cm5run's too (boot/boot_proto.h). */
typedef cm5_doorbell_slot_t cm5i_doorbell_t;

/* One step of a wait: progress, then spin, yield or sleep. */
typedef struct {
    double t0;
    int empty;
    int yields;
    int sleep_us;
    int crowded; /* another node of the job runs on this CPU: no spinning */
} cm5i_waiter_t;
void cm5i_waiter_init(cm5i_waiter_t *w);
void cm5i_wait_step(cm5i_waiter_t *w, int chmask);
/* One progress pass of a probe a program may call in a loop (backs off). */
void cm5i_probe_progress(void);
/* The same for a probe of one object (what) among several a program
 * tests in turn: backs off once per round, not once per object. */
void cm5i_probe_progress_of(const void *what);
void cm5i_doorbell_ring(int node);
void cm5i_wait_config(void); /* read CM5_SPIN_US, _YIELDS, _SLEEP_MS */
cm5_status_t cm5i_wait_setup(void);
/* This node's doorbell slot (NULL: none); the provider's wait objects. */
cm5i_doorbell_t *cm5i_wait_doorbell(void);
int cm5i_wait_fds(int *fds);
/* Unmap the doorbell (finalize, or a start that failed). */
void cm5i_wait_teardown(void);

#endif

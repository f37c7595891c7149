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

/* What a blocking wait of the runtime waits in (observers are told:
 * wait_begin and wait_end carry it; cm5i_wait_name says it): the list is
 * the launcher contract's (boot_proto.h, CM5_WAITS), which the deadlock
 * check reads too. */
#define CM5I_WAIT_NONE CM5_WAIT_NONE
#define CM5I_WAIT_ENUM(k, name, blocked) CM5I_WAIT_##k = CM5_WAIT_##k,
enum { CM5_WAITS(CM5I_WAIT_ENUM) CM5I_WAIT_KINDS = CM5_WAIT_KINDS };
#undef CM5I_WAIT_ENUM
const char *cm5i_wait_name(int what);

/* One step of a wait: progress, then spin, yield or sleep. */
typedef struct {
    double t0;
    int empty;
    int yields;
    int sleep_us;
    int crowded; /* another node of the job runs on this CPU: no spinning */
    int what;    /* CM5I_WAIT_*: a named wait (cm5i_waiter_start) */
    int begun;   /* observers were told it began */
} cm5i_waiter_t;
/* A wait a probe loop paces (the program's loop: observers see probes). */
void cm5i_waiter_init(cm5i_waiter_t *w);
/* A blocking wait of the runtime, named for observers (CM5I_WAIT_*):
 * they are told it begins (wait_begin) at its first step, if it takes
 * one, and that it ends (wait_end) at cm5i_waiter_end. */
void cm5i_waiter_start(cm5i_waiter_t *w, int what);
void cm5i_waiter_end(cm5i_waiter_t *w);
/* Until cm5i_wait_unwatch, the first wait step (of a blocking wait or a
 * probe loop) that would sleep once *word no longer holds val does not
 * (and the watch ends): a word of the job's shared memory that a node
 * writes and then wakes the sleepers of (cm5i_doorbell_wake), not a
 * packet, however late its wake-up came. */
void cm5i_wait_watch(const _Atomic uint32_t *word, uint32_t val);
void cm5i_wait_unwatch(void);
void cm5i_wait_step(cm5i_waiter_t *w, int chmask);
/* One progress pass of a probe a program may call in a loop (backs off). */
void cm5i_probe_progress(void);
/* The same for a test of a control-network operation (a barrier's, a
 * split-phase reduction's, the global OR): what ends its loop is no
 * packet, so in virtual time it never takes several polls at once
 * (doc/model.md, "Loops of probes"). */
void cm5i_probe_progress_cn(void);
/* Set by cm5i_probe_progress_cn for the probe it makes (am_model.c). */
extern int cm5i_probe_cn;
/* The same for a probe of one object (what) among several a program
 * tests in turn: backs off once per round, not once per object. */
void cm5i_probe_progress_of(const void *what);
void cm5i_doorbell_ring(int node);
/* Wake node if it sleeps on its doorbell (after a store to a word its
 * wait watches; a node awake sees the word itself). */
void cm5i_doorbell_wake(int node);
/* Sleep on this node's doorbell (the job's waits sleep on it) in two
 * steps: arm it (senders ring it from now on) and take the count, look
 * once more, then sleep at most ms (0: not at all) unless it rang. */
uint32_t cm5i_doorbell_arm(void);
void cm5i_doorbell_sleep(uint32_t seq, int ms);
/* Sleep at most ms unless the doorbell rang after seq, leaving its flags
 * alone (the interrupt thread's watch).  A job on several hosts
 * (cm5i_wait_both) polls the provider's descriptors too, if fds_ok (its
 * fi_trywait succeeded), and its ring peers' wake-up socket. */
void cm5i_doorbell_wait(uint32_t seq, int ms, int fds_ok);
int cm5i_wait_both(void);
void cm5i_wait_config(void); /* read CM5_SPIN_US, _YIELDS, _SLEEP_MS */
cm5_status_t cm5i_wait_setup(void);
/* This node's words for the deadlock check (boot_proto.h's slot: what
 * it waits in, the waits begun, the steps taken, its traffic), from its
 * slot or, where the job has none (several hosts), its own copy. */
typedef struct {
    uint32_t wait, wait_seq, steps;
    uint64_t tx, rx;
} cm5i_wait_state_t;
void cm5i_wait_state(cm5i_wait_state_t *s);
/* This node's doorbell slot (NULL: none); the provider's wait objects. */
cm5i_doorbell_t *cm5i_wait_doorbell(void);
int cm5i_wait_fds(int *fds);
/* The job's shared area (boot_proto.h: the slots, then virtual time's
 * synchronisation), or NULL: the launcher gave none. */
void *cm5i_wait_area(void);
/* The job's own words (slot 0 of that area), when the job's waits sleep
 * on its doorbell; NULL otherwise. */
cm5_doorbell_job_t *cm5i_wait_job(void);
/* A node's process id as it wrote it in its slot (0: not yet; -1: no
 * slots): single copy between nodes whatever the provider (virtual
 * time's synchronisation). */
int cm5i_wait_peer_pid(int node);
/* Sleep at most ms at a time (virtual time's synchronisation: a bound
 * that moves rings no doorbell it does not know of). */
void cm5i_wait_sleep_cap(int ms);
/* Whether waits spin before they sleep: not when the job has more nodes
 * than the host has CPUs (CM5_SPIN_US=auto), or CM5_SPIN_US=0. */
int cm5i_wait_spins(void);
/* Waits sleep on the job's doorbell even where the provider has wait
 * objects (set before cm5i_wait_setup, on every node alike: senders ring
 * a doorbell only when the job's waits sleep on it). */
void cm5i_wait_prefer_doorbell(void);
/* How many named waits are under way (nested). */
int cm5i_wait_level(void);
/* The innermost named wait under way (CM5I_WAIT_*; NONE: none). */
int cm5i_wait_innermost(void);
/* Unmap the doorbell (finalize, or a start that failed). */
void cm5i_wait_teardown(void);

/* Packets and tagged transfers handed to the fabric and taken from it
 * (am_packet.c, am_msg.c count them under the guard); a node in a
 * blocked wait publishes them for the launcher's deadlock check. */
extern uint64_t cm5i_traffic_tx, cm5i_traffic_rx;

#endif

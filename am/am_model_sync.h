/*
 * Virtual time's synchronisation (am_model_sync.c, doc/model.md,
 * "Synchronisation"): a conservative parallel discrete-event simulation
 * of the nodes.  A node takes the packets it is sent (handlers, message
 * announcements and acknowledgements, scopies) in virtual-time order --
 * their due time, then their source, channel and place -- and only once
 * no packet due earlier can still come: every node publishes a bound
 * below which nothing it sends will be due, and counts what it has taken
 * from each peer so that a sender knows what is still in flight.
 *
 * Called by the virtual-time observer (am_model.c) only.
 */
#ifndef CM5_AM_MODEL_SYNC_H
#define CM5_AM_MODEL_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include "am_model_calc.h"
#include "am_wire.h"

/* The nodes are synchronised (set once, before the first packet). */
extern int cm5i_msync_on;

/* Decide from want (CM5_MODEL_SYNC: -1 auto, 0 off, 1 on) and the
 * launcher: 0 (cm5i_msync_on says which), or -1 with one line said. */
int cm5i_msync_setup(const cm5i_model_params_t *p, cm5i_vnode_t *v, int want);
void cm5i_msync_teardown(void);
/* After the packet layer's setup, before the start-up exchange: records
 * as messages (nodes on several hosts, CM5_MODEL_SYNC=net) register
 * their packet type and the progress hook that sends them. */
void cm5i_msync_attach(void);
/* The largest packet the job sends: the messages' (cm5i_msg_packet_max),
 * or, records as messages, one with a record if that is larger. */
size_t cm5i_msync_packet_max(void);

/* Is a packet of pkt's kind taken in virtual-time order when it carries
 * a word (not the control network's own, nor credits)? */
int cm5i_msync_orderable(const cm5i_pkt_t *pkt);
/* Is pkt taken in virtual-time order (1) and when is it due? */
int cm5i_msync_ordered(const cm5i_pkt_t *pkt, uint64_t *due);
/* pkt (its word set) leaves for node now: keep it in flight until node
 * has taken it; promised: its word is a message's announcement's (the
 * promise it kept is kept now). */
void cm5i_msync_sent(int node, const cm5i_pkt_t *pkt, int promised);
/* A word given to a packet that may leave later (a message's
 * announcement): until it leaves, nothing of this node's may be due
 * after due. */
void cm5i_msync_promise(uint64_t due);
/* pkt arrived on ch (its body: len bytes): count it; 1 when it is kept
 * for its turn (cm5i_pkt_dispatch runs it then). */
int cm5i_msync_take(int ch, const cm5i_pkt_t *pkt, const void *body,
                    size_t len);
/* Interleaved receipt (doc/model.md): notice says whether a packet is
 * a message's data notice that a busy node takes with others (set once
 * by the observer).  Before such a notice runs at a clock past its due
 * time, the node waits until nothing due by its clock can still come;
 * then cm5i_msync_peek calls fn for each packet it holds due by c (in no
 * order; with the packet's place in the order: due, source, channel,
 * place). */
void cm5i_msync_set_notice(int (*notice)(const cm5i_pkt_t *pkt));

/* v with room for twice *cap elements of elem bytes (first, when *cap is
 * 0), *cap updated; out of memory is fatal.  The model's lists. */
void *cm5i_msync_grow(void *v, size_t *cap, size_t first, size_t elem);

/* Receipt beside the clock (cm5:bc=1): the latest time by which every
 * packet due has come, as the others' bounds stand now (MS-infinite on
 * one node); the earliest packet held (0: none); take it, its clock
 * jumping to it, and run the work it deferred; one step of a wait for
 * the others to pass want, the node running at its clock. */
void cm5i_msync_set_after(void (*after)(void)); /* run after a packet */
uint64_t cm5i_msync_horizon(void);
int cm5i_msync_top(uint64_t *due);
void cm5i_msync_run_top(void);
void cm5i_msync_bc_wait(uint64_t want, unsigned *spins);
void cm5i_msync_bc_publish(void); /* the node runs at its clock */
/* ... the earliest time a message of the receipt under way ends, as it
 * stands (0: none under way): the node's bound while it runs. */
void cm5i_msync_bc_own(uint64_t own);
/* The next act of a node in a receipt beside the clock: the first end of
 * a message (as published by cm5i_msync_bc_own) or the first packet it
 * holds, whichever is sooner; its bound is that plus L. */
uint64_t cm5i_msync_bc_next(void);
void cm5i_msync_peek(uint64_t c,
                     void (*fn)(const cm5i_pkt_t *pkt, uint64_t due,
                                uint32_t src, uint32_t ch, uint32_t place,
                                void *arg),
                     void *arg);
/* Run what is due now (a full progress pass): a node that runs polls
 * at its clock and waits until nothing due by then can still come; a
 * node in a blocking wait takes the next packet once it is safe and
 * jumps its clock there.  Returns the packets run. */
/* Packets run so far (a probe loop's jump: am_model.c). */
uint64_t cm5i_msync_runs(void);
/* A probe of a loop that keeps finding nothing: up to max polls at once
 * (am_model_sync.c). */
void cm5i_msync_probe_jump(uint64_t poll, uint64_t max);
int cm5i_msync_dispatch(void);
/* Publish this node's bound (its clock moved). */
void cm5i_msync_publish(void);
/* A control-network operation begins (its entry clock is the clock). */
void cm5i_msync_cn_enter(void);
/* Can the control-network operation under way not end by c (its least
 * end is later)? */
int cm5i_msync_cn_after(uint64_t c);
/* The control-network operation under way costs price (a host
 * collective's, known as it closes): its least end is then exact once
 * every entry is known. */
void cm5i_msync_cn_price(uint64_t price);
/* A host collective ended at end (the others may read it before this
 * node's next entry tells them it left). */
void cm5i_msync_host_end(uint64_t end);
/* A control-network operation ended at t: take every packet due by t
 * first (they came during the call). */
void cm5i_msync_drain(uint64_t t);
/* This node sends nothing more (it left the exit barrier). */
void cm5i_msync_done(void);
int cm5i_msync_is_done(void);
/* Records as messages: the node sent its last record and has every
 * peer's (cm5_finalize then waits in one more barrier, so that no node
 * leaves before the others have taken what it sent). */
int cm5i_msync_net_closed(void);

/* The fat tree's shared links (cm5:lk=1, doc/model.md, "Shared links"):
 * their calendars in the memory the job's nodes share (NULL: the job has
 * none, or its nodes share no memory).  A node places packets on them
 * only in its turn: cm5i_msync_link_turn(c) waits until every other node
 * may no longer take a receipt at a clock before c (its bound past c + L,
 * or equal to it and the node after this one), so the receivers place
 * their packets in the order of their clocks, then node numbers, on every
 * run; it checks that order (a line, as for a broken bound) and sets
 * lk->lo.  The node's next publication lets the others on. */
cm5i_links_t *cm5i_msync_links(void);
void cm5i_msync_link_turn(uint64_t c);

/* Interrupts under synchronisation (doc/model.md, "Interrupts").  The
 * interrupt thread, owning the runtime while the program computes
 * outside it, for long enough (am_model.c, model_irq_idle): from now on the
 * program waits by rule, and the thread's passes take its packets as a
 * blocking wait does, the clock jumping to each; the first that leaves
 * user work (a handler, a callback) ends the wait
 * (model_irq_mark, at its delivery).  Returns 1 if it waits. */
int cm5i_msync_irq_begin(void);
int cm5i_msync_irq_waiting(void);
/* The program enters the runtime: if it waited by rule, its clock moves
 * to what it let the others pass. */
void cm5i_msync_irq_resume(void);

#endif

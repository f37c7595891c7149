/*
 * The same-host fast path (DESIGN.md, decision 12): active-message
 * packets, and eager messages as longer records of several slots,
 * between nodes of one host travel through lock-free rings in shared
 * memory instead of libfabric.  Only fab.c includes this header:
 * the fabric seam stays the only code that knows which path a packet
 * takes.
 *
 * Each node creates one segment, /dev/shm/<name_tag>-ring (the job's
 * cm5-<key>-<rank> prefix, which cm5run removes after a job), holding
 * one multi-producer/single-consumer queue per channel, which every
 * sender on the host shares (its size does not grow with the job).  A
 * peer is a ring peer when its segment opens here and carries the nonce
 * of its address record: nodes on other hosts (or other /dev/shm
 * namespaces) stay on libfabric.  Once every ring peer has mapped the
 * segment, its owner unlinks it, so a node killed later leaves no file.
 */
#ifndef CM5_SHMRING_H
#define CM5_SHMRING_H

#include <stddef.h>
#include <stdint.h>

#include "cm5/cm5.h"
#include "fabric/channel.h"

typedef struct cm5i_ring cm5i_ring_t;

/* Payload bytes of one slot (the 56-byte packet fits). */
#define CM5I_RING_MSG_MAX 56
/* Longest record: a longer one (an eager message, its packet and body)
 * takes consecutive slots, its bytes running on across them. */
#define CM5I_RING_REC_MAX (8192 + 256)
/* Bytes of one slot (its length word and payload). */
#define CM5I_RING_SLOT 64

/* Slots of one queue: at least this many, and at most this many (fewer
 * in big jobs: cm5i_ring_queue_slots). */
#define CM5I_RING_Q_MIN 1024u
#define CM5I_RING_Q_MAX 16384u

/* Slots a record of len bytes takes. */
size_t cm5i_ring_rec_slots(size_t len);
/* This host, as the rings see it: a hash of the kernel's boot id, the
 * host name and the network namespace (nodes with the same one share
 * rings). */
uint64_t cm5i_ring_host(void);

/* The slots of a queue for nep senders that may each want slots of it:
 * nep x slots rounded up to a power of two, within CM5I_RING_Q_MIN and
 * CM5I_RING_Q_MAX, and no more than keeps the mappings of nep segments
 * within 256 MiB. */
uint32_t cm5i_ring_queue_slots(int nep, int nch, size_t slots);
/* Create this node's segment: nep senders, nch channels, slots that each
 * sender may want (cm5i_ring_queue_slots).  0, or a negative errno. */
int cm5i_ring_open(const char *name_tag, int rank, int nep, int nch,
                   size_t slots, cm5i_ring_t **out);
/* The bytes of a segment (this node's, and each peer's mapped here). */
size_t cm5i_ring_segment_bytes(const cm5i_ring_t *r);
void cm5i_ring_close(cm5i_ring_t *r);
/* The process dies: remove the segment's name if it is still there. */
void cm5i_ring_abandon(cm5i_ring_t *r);
/* The record peers need (CM5I_FAB_RING_REC bytes at most): its length. */
size_t cm5i_ring_address(const cm5i_ring_t *r, void *buf, size_t size);
/* Map node's segment if its record names one reachable here: 1 if node
 * is now a ring peer, 0 if not (it stays on libfabric). */
int cm5i_ring_connect(cm5i_ring_t *r, int node, const void *rec, size_t len);
/* The process id of ring peer node when it means the same here (one pid
 * namespace): single-copy transfers may address it; -1 otherwise. */
int cm5i_ring_peer_pid(const cm5i_ring_t *r, int node);
/* Every peer is connected (or not): unlink the segment when it can. */
void cm5i_ring_connected(cm5i_ring_t *r);
/* Copy msg (at most CM5I_RING_REC_MAX bytes) into node's queue of
 * channel ch; CM5_ERR_AGAIN when it has no room for it now. */
cm5_status_t cm5i_ring_send(cm5i_ring_t *r, int ch, int node, const void *msg,
                            size_t len);
/* Deliver up to max packets of channel ch to cb; returns how many. */
int cm5i_ring_poll(cm5i_ring_t *r, int ch, int max, cm5i_fab_rx_func_t cb,
                   void *arg);
/* For the tests: a fresh segment (nothing sent yet) whose queues' and
 * senders' indices start at index (to cross a 2^32 wrap); the slots of
 * a queue.  Peers must not have sent to it yet. */
uint32_t cm5i_ring_test_index(cm5i_ring_t *r, uint64_t index);

#endif

/*
 * <cm/cmmd/host.h>: the CMMD host/node model: a host program that drives
 * the nodes, host collectives and messages to and from the host.
 * Part of <cm/cmmd.h> (which includes it); it may also be included alone.
 * Prototype convention: see "Prototypes" in <cm/cmmd.h>.
 *
 * A host/node job (CMMD's cmmd-ld -host ... -node ...) is started with
 * `cm5run -n N --host HOSTPROG [HOSTARGS] -- NODEPROG [NODEARGS]`.  The
 * host program is one more process beside the N nodes; CMMD_self_address()
 * there is CMMD_host_node(), which is CMMD_partition_size() (N) everywhere.
 * Each host call below has a node counterpart; the host and every node
 * call them in the same order.  See CMMD_enable(3).
 */
#ifndef _CM_CMMD_HOST_H
#define _CM_CMMD_HOST_H
#include <cm/cmmd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The host program's node number (for messages to it): the partition
 * size, also in a job without a host program (sending there is then an
 * error). */
CMMD_API int CMMD_host_node(void);
CMMD_API int CMUTIL_host_node(void);

/* Host: the first CMMD call; returns once every node has called
 * CMMD_enable_host().  Node: the first CMMD call; returns once the host
 * has called CMMD_enable().  Then CMMD_is_enabled() is 1 (0 before). */
CMMD_API void CMMD_enable(void);
CMMD_API void CMMD_enable_host(void);
CMMD_API int CMMD_is_enabled(void);

/* Barrier of the host (sync_host_with_nodes) and every node
 * (sync_with_host). */
CMMD_API void CMMD_sync_host_with_nodes(void);
CMMD_API void CMMD_sync_with_host(void);

/* The host broadcasts len bytes; every node receives them. */
CMMD_API void CMMD_bc_from_host(void *buffer, int len);
CMMD_API void CMMD_receive_bc_from_host(void *buffer, int len);

/* The host's buffer holds partition-size elements of element_len bytes;
 * node i receives element i. */
CMMD_API void CMMD_distrib_to_nodes(void *buffer, int element_len);
CMMD_API void CMMD_receive_element_from_host(void *buffer, int element_len);

/* Node i's element (element_len bytes) becomes element i of the host's
 * buffer. */
CMMD_API void CMMD_gather_from_nodes(void *buffer, int element_len);
CMMD_API void CMMD_concat_elements_to_host(void *element, int element_len);

/* Reductions over every node's value and the host's (the host passes the
 * combiner's identity to contribute nothing); the host and every node get
 * the result.  float: a float value, passed and returned as double. */
CMMD_API int CMMD_reduce_from_nodes_int(int value, CMMD_combiner_t combiner);
CMMD_API unsigned CMMD_reduce_from_nodes_uint(unsigned value,
                                              CMMD_combiner_t combiner);
CMMD_API double CMMD_reduce_from_nodes_float(double value,
                                             CMMD_combiner_t combiner);
CMMD_API double CMMD_reduce_from_nodes_double(double value,
                                              CMMD_combiner_t combiner);
CMMD_API int CMMD_reduce_to_host_int(int value, CMMD_combiner_t combiner);
CMMD_API unsigned CMMD_reduce_to_host_uint(unsigned value,
                                           CMMD_combiner_t combiner);
CMMD_API double CMMD_reduce_to_host_float(double value,
                                          CMMD_combiner_t combiner);
CMMD_API double CMMD_reduce_to_host_double(double value,
                                           CMMD_combiner_t combiner);
/* Element-wise, as CMMD_reduce_v: count elements of element_size bytes
 * from source, the result in dest (they may be the same). */
CMMD_API void CMMD_reduce_from_nodes_v(void *dest, void *source,
                                       CMMD_combiner_t combiner,
                                       int element_size, int count);
CMMD_API void CMMD_reduce_to_host_v(void *dest, void *source,
                                    CMMD_combiner_t combiner, int element_size,
                                    int count);

/* Active messages to the host program: CMAML_request, CMAML_reply and
 * CMAML_rpc with the host as destination.  0 to 4 int arguments:
 * variadic, so declared CMMD_KR (see "Prototypes" in <cm/cmmd.h>). */
CMMD_API void CMAML_request_tohost CMMD_KR((CMAML_handler_t handler, ...));
CMMD_API void CMAML_reply_tohost CMMD_KR((CMAML_handler_t handler, ...));
CMMD_API void CMAML_rpc_tohost CMMD_KR((CMAML_handler_t handler, ...));

/* The control-network layer's names for the same calls (and lint, luint:
 * long values). */
CMMD_API void CMCN_sync_host_with_nodes(void);
CMMD_API void CMCN_sync_with_host(void);
CMMD_API void CMCN_bc_from_host(void *buffer, int len);
CMMD_API void CMCN_receive_bc_from_host(void *buffer, int len);
CMMD_API void CMCN_distrib_to_nodes(void *buffer, int element_len);
CMMD_API void CMCN_receive_element_from_host(void *buffer, int element_len);
CMMD_API void CMCN_gather_from_nodes(void *buffer, int element_len);
CMMD_API void CMCN_concat_elements_to_host(void *element, int element_len);
CMMD_API int CMCN_reduce_from_nodes_int(int value, CMMD_combiner_t combiner);
CMMD_API unsigned CMCN_reduce_from_nodes_uint(unsigned value,
                                              CMMD_combiner_t combiner);
CMMD_API long CMCN_reduce_from_nodes_lint(long value, CMMD_combiner_t combiner);
CMMD_API unsigned long CMCN_reduce_from_nodes_luint(unsigned long value,
                                                    CMMD_combiner_t combiner);
CMMD_API double CMCN_reduce_from_nodes_float(double value,
                                             CMMD_combiner_t combiner);
CMMD_API double CMCN_reduce_from_nodes_double(double value,
                                              CMMD_combiner_t combiner);
CMMD_API void CMCN_reduce_from_nodes_v(void *dest, void *source,
                                       CMMD_combiner_t combiner,
                                       int element_size, int count);
CMMD_API int CMCN_reduce_to_host_int(int value, CMMD_combiner_t combiner);
CMMD_API unsigned CMCN_reduce_to_host_uint(unsigned value,
                                           CMMD_combiner_t combiner);
CMMD_API long CMCN_reduce_to_host_lint(long value, CMMD_combiner_t combiner);
CMMD_API unsigned long CMCN_reduce_to_host_luint(unsigned long value,
                                                 CMMD_combiner_t combiner);
CMMD_API double CMCN_reduce_to_host_float(double value,
                                          CMMD_combiner_t combiner);
CMMD_API double CMCN_reduce_to_host_double(double value,
                                           CMMD_combiner_t combiner);
CMMD_API void CMCN_reduce_to_host_v(void *dest, void *source,
                                    CMMD_combiner_t combiner, int element_size,
                                    int count);

#ifdef __cplusplus
}
#endif
#endif /* _CM_CMMD_HOST_H */

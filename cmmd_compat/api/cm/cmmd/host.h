/*
 * <cm/cmmd/host.h>: the CMMD host/node model: a host program that drives the nodes, host collectives and messages to and from the host.
 * Part of <cm/cmmd.h> (which includes it); it may also be included alone.
 * Prototype convention: see "Prototypes" in <cm/cmmd.h>.
 */
#ifndef _CM_CMMD_HOST_H
#define _CM_CMMD_HOST_H
#include <cm/cmmd.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif /* _CM_CMMD_HOST_H */

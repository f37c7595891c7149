/*
 * <cm/cmmd/mp.h>: CMMD point-to-point extras: MCB accessors, strided (_v) messages, channels, message matching functions.
 * Part of <cm/cmmd.h> (which includes it); it may also be included alone.
 * Prototype convention: see "Prototypes" in <cm/cmmd.h>.
 */
#ifndef _CM_CMMD_MP_H
#define _CM_CMMD_MP_H
#include <cm/cmmd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- MCB accessors beyond <cm/cmmd.h>'s -------------------------------- */
/* The buffer length given to the send or receive (a probe: the message's
 * bytes). */
CMMD_API int CMMD_mcb_len(CMMD_mcb mcb);
/* The sending node and the receiving node of the message (a receive from
 * CMMD_ANY_NODE: the sender once matched, -1 before). */
CMMD_API int CMMD_mcb_source(CMMD_mcb mcb);
CMMD_API int CMMD_mcb_dest(CMMD_mcb mcb);

#ifdef __cplusplus
}
#endif
#endif /* _CM_CMMD_MP_H */

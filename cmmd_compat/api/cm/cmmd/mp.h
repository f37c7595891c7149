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

#ifdef __cplusplus
}
#endif
#endif /* _CM_CMMD_MP_H */

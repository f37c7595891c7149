/*
 * <cm/cmmd/amx.h>: CMAML extras: more polling calls, active-message tags, element-wise rports, send ports and pcopy.
 * Part of <cm/cmmd.h> (which includes it); it may also be included alone.
 * Prototype convention: see "Prototypes" in <cm/cmmd.h>.
 */
#ifndef _CM_CMMD_AMX_H
#define _CM_CMMD_AMX_H
#include <cm/cmmd.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif /* _CM_CMMD_AMX_H */

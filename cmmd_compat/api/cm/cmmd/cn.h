/*
 * <cm/cmmd/cn.h>: CMMD control-network extras: split-phase reductions and scans, vector and segmented scans and reductions.
 * Part of <cm/cmmd.h> (which includes it); it may also be included alone.
 * Prototype convention: see "Prototypes" in <cm/cmmd.h>.
 */
#ifndef _CM_CMMD_CN_H
#define _CM_CMMD_CN_H
#include <cm/cmmd.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif /* _CM_CMMD_CN_H */

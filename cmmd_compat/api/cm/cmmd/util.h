/*
 * <cm/cmmd/util.h>: CMUTIL_, the CM-5 utility layer's names for CMMD calls.
 * Part of <cm/cmmd.h> (which includes it); it may also be included alone.
 * Prototype convention: see "Prototypes" in <cm/cmmd.h>.
 */
#ifndef _CM_CMMD_UTIL_H
#define _CM_CMMD_UTIL_H
#include <cm/cmmd.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif /* _CM_CMMD_UTIL_H */

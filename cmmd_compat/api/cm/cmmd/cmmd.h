/* <cm/cmmd/cmmd.h>: a historical CMMD header name; everything is in
 * <cm/cmmd.h>. */
#ifndef _CM_CMMD_CMMD_H
#define _CM_CMMD_CMMD_H
#include <cm/cmmd.h>
#endif

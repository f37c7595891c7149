/* <cm/cmmd/amx.h>: a historical CMMD header name; everything is in <cm/cmmd.h>. */
#ifndef _CM_CMMD_AMX_H
#define _CM_CMMD_AMX_H
#include <cm/cmmd.h>
#endif

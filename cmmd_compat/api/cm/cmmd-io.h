/* <cm/cmmd-io.h>: a historical CMMD header name for <cm/cmmd/io.h>. */
#ifndef _CM_CMMD_IO_COMPAT_H
#define _CM_CMMD_IO_COMPAT_H
#include <cm/cmmd.h>
#endif

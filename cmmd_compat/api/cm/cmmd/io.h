/* <cm/cmmd/io.h>: a historical CMMD header name; everything is in <cm/cmmd.h>. */
#ifndef _CM_CMMD_IO_H
#define _CM_CMMD_IO_H
#include <cm/cmmd.h>
#endif

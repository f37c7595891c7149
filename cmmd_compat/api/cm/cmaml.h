/* <cm/cmaml.h>: a historical CMMD header name; everything is in <cm/cmmd.h>. */
#ifndef _CM_CMAML_H
#define _CM_CMAML_H
#include <cm/cmmd.h>
#endif

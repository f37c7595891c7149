/*
 * Collectives over the packet layer (am_coll.c).
 */
#ifndef CM5_AM_COLL_H
#define CM5_AM_COLL_H

#include "cm5/cm5.h"

cm5_status_t cm5i_coll_setup(void);
void cm5i_coll_teardown(void);
/* Is op valid on type t?  a = a op b for one element (am_coll.c). */
int cm5i_coll_valid(cm5_type_t t, cm5_op_t op);
void cm5i_coll_combine(void *a, const void *b, cm5_type_t t, cm5_op_t op);

#endif

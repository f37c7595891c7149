/*
 * Handlers on the wire: (loaded object, offset).  The object is named by a
 * hash of its path as the dynamic loader reports it (the main program has
 * the empty path), so the pair resolves in every process of the job even
 * with PIE and address randomization.
 */
#ifndef CM5_AM_HANDLER_H
#define CM5_AM_HANDLER_H

#include <stdint.h>

#include "cm5/cm5.h"

typedef struct {
    uint32_t obj;
    uint32_t off;
} cm5i_href_t;

/* Name a function; CM5_ERR_HANDLER if fp is not in executable code. */
cm5_status_t cm5i_handler_encode(const void *fp, cm5i_href_t *out);
/* Resolve a reference; NULL if it is not executable code here. */
void *cm5i_handler_decode(cm5i_href_t ref);
/* Between the host program and a node, which run different programs, a
 * handler is an address in the receiver's program, as on the CM-5 (the
 * sender got it from the receiver): carried as it is, high word in obj,
 * and checked only by the receiver, for being executable code there. */
void cm5i_handler_raw(const void *fp, cm5i_href_t *out);
void *cm5i_handler_decode_raw(cm5i_href_t ref);
/* Rebuild the table of loaded objects (after dlopen). */
void cm5i_handler_refresh(void);

#endif

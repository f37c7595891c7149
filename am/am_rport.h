/*
 * rports (am_rport.c): the receiving side of scopy.
 */
#ifndef CM5_AM_RPORT_H
#define CM5_AM_RPORT_H

#include <stddef.h>

#include "cm5/cm5.h"

/* rports: the receiving side of scopy. */
typedef struct {
    int allocated;
    cm5_rport_attr_t a;
    long pending; /* bytes of scopies accepted, not yet landed */
} cm5i_rport_t;
extern cm5i_rport_t cm5i_rports[CM5_RPORTS];
/* An scopy of len bytes landed in rport: count it, maybe run the handler
 * (outside handlers). */
void cm5i_rport_landed(int rport, size_t len);
/* Placement of an scopy into an element-wise rport, fixed on arrival. */
typedef struct {
    char *base;
    size_t off; /* in packed bytes */
    long esize, estride;
} cm5i_rport_place_t;
/* Check an scopy from src of len bytes at packed offset off against the
 * element layout of rport (a fault stops the job); returns 1 and fills
 * *pl if the bytes must be scattered, 0 if they land contiguously. */
int cm5i_rport_place(int rport, int src, size_t off, size_t len,
                     cm5i_rport_place_t *pl);
/* Copy len packed bytes to their elements. */
void cm5i_rport_scatter(const cm5i_rport_place_t *pl, const void *data,
                        size_t len);

#endif

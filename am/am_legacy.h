/*
 * The legacy (32-bit) build's checks (am_legacy.c).
 */
#ifndef CM5_AM_LEGACY_H
#define CM5_AM_LEGACY_H

/* Legacy (32-bit) build: say when the nodes' addresses differ. */
void cm5i_legacy_check(void);

#endif

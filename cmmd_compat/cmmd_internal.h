/*
 * Shared by the cmmd_compat/ sources (cm5c_ prefix).
 */
#ifndef CM5_CMMD_INTERNAL_H
#define CM5_CMMD_INTERNAL_H

/* Write the output captured by sync_seq streams, in node order
 * (collective: called at every CMMD synchronization and at exit). */
void cm5c_io_sync(void);
const char *cm5c_version(void);

#endif

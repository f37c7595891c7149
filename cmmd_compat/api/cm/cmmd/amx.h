/*
 * <cm/cmmd/amx.h>: CMAML extras: more polling calls, active-message tags,
 * element-wise rports, send ports and pcopy. Part of <cm/cmmd.h> (which
 * includes it); it may also be included alone. Prototype convention: see
 * "Prototypes" in <cm/cmmd.h>.
 */
#ifndef _CM_CMMD_AMX_H
#define _CM_CMMD_AMX_H
#include <cm/cmmd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- More polling ------------------------------------------------------ */

/* Run the handlers of arrived requests only (and of arrived CMAML_rpc
 * calls); arrived replies wait.  Nothing inside a handler. */
CMMD_API void CMAML_request_poll(void);
/* Run the handlers of arrived replies only; arrived requests wait. */
CMMD_API void CMAML_reply_poll(void);
/* Serve the network until *flag >= value (CMAML_poll_while_lt's twin). */
CMMD_API void CMAML_poll_until_gte(volatile int *flag, int value);
/* Serve the network until *flag >= value, then subtract value from *flag
 * (consume the events waited for).  The two names do the same here. */
CMMD_API void CMAML_wait(volatile int *flag, int value);
CMMD_API void CMAML_poll_wait(volatile int *flag, int value);

/* ---- Active-message tags (0..15) ----------------------------------------
 * A registry of the CM-5's 16 hardware packet tags, so that the modules
 * of a program do not claim the same one. */
/* The lowest free tag, or -1 if all are taken. */
CMMD_API int CMAML_allocate_tag(void);
/* tag, or -1 if it is taken. */
CMMD_API int CMAML_allocate_this_tag(int tag);
/* 0, or -1 if tag is not allocated. */
CMMD_API int CMAML_free_tag(int tag);

/* ---- Element-wise rports ------------------------------------------------
 * With an element size set, the bytes CMAML_scopy delivers into the rport
 * are elements of esize bytes, element i landing at addr + i * estride;
 * offsets and byte counts stay those of the packed elements.  ecount > 0
 * bounds the rport to ecount elements.  0 (the default) turns it off. */
CMMD_API void CMAML_set_rport_esize(int rport, int esize);
CMMD_API void CMAML_set_rport_estride(int rport, int estride);
CMMD_API void CMAML_set_rport_ecount(int rport, int ecount);
CMMD_API int CMAML_get_rport_esize(int rport);
CMMD_API int CMAML_get_rport_estride(int rport);
CMMD_API int CMAML_get_rport_ecount(int rport);
/* Where element i lands: addr + i * estride (+ i bytes without elements). */
CMMD_API void *CMAML_get_rport_addri(int rport, int element);
/* Non-zero if the rport is allocated; set allocates (attributes zero) or
 * frees it, doing nothing if it already is so. */
CMMD_API int CMAML_get_rport_allocated(int rport);
CMMD_API void CMAML_set_rport_allocated(int rport, int allocated);

#ifdef __cplusplus
}
#endif
#endif /* _CM_CMMD_AMX_H */

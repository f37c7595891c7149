/*
 * <cm/cmmd/util.h>: CMUTIL_, the CM-5 utility layer's names for CMMD calls.
 * Part of <cm/cmmd.h> (which includes it); it may also be included alone.
 * Prototype convention: see "Prototypes" in <cm/cmmd.h>.
 */
#ifndef _CM_CMMD_UTIL_H
#define _CM_CMMD_UTIL_H
#include <cm/cmmd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The utility layer's names of CMMD calls: each is its CMMD_ twin.  Left
 * out: CMUTIL_error_{set_jmpret,unsetjmp,is_jmp_enabled,jmpret,longjmp,
 * message} and CMUTIL_set_error_handler, the CM-5's error trap, whose
 * set_jmpret returned twice like setjmp (a function cannot do that
 * portably) and whose handler's type is not known; CMUTIL_host_node is
 * with the host calls. */
CMMD_API int CMUTIL_get_errno(void);
/* Set what CMMD_get_errno and CMUTIL_get_errno return. */
CMMD_API void CMUTIL_set_errno(int err);
CMMD_API int CMUTIL_self_address(void);
CMMD_API int CMUTIL_partition_size(void);
/* CMMD_reset_partition_size. */
CMMD_API void CMUTIL_resize_partition(int size);
CMMD_API void CMUTIL_enable_safety(void);
CMMD_API void CMUTIL_disable_safety(void);
/* printf-style: print the message and stop every node of the job
 * (CMMD_error; internal_error says it is the library's fault), or print it
 * as a warning and go on.  Variadic, hence CMMD_KR: a K&R redeclaration
 * `extern void CMUTIL_error();` cannot match an ellipsis. */
CMMD_API CMMD_NORETURN void CMUTIL_error CMMD_KR((const char *format, ...));
CMMD_API CMMD_NORETURN void CMUTIL_internal_error CMMD_KR((const char *format,
                                                           ...));
CMMD_API void CMUTIL_warning CMMD_KR((const char *format, ...));

#ifdef __cplusplus
}
#endif
#endif /* _CM_CMMD_UTIL_H */

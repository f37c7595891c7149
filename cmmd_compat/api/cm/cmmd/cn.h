/*
 * <cm/cmmd/cn.h>: CMMD control-network extras: split-phase reductions and
 * scans, vector and segmented scans and reductions. Part of <cm/cmmd.h> (which
 * includes it); it may also be included alone. Prototype convention: see
 * "Prototypes" in <cm/cmmd.h>.
 */
#ifndef _CM_CMMD_CN_H
#define _CM_CMMD_CN_H
#include <cm/cmmd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Split-phase reductions and scans.  _start enters this node's value and
 * returns at once; the node may compute, poll and handle messages
 * meanwhile; _done says, without blocking, whether the result is here (1
 * when none is outstanding); _finish waits for it and returns it.  Every
 * node starts the same operations in the same order.  One reduction and
 * one scan may be outstanding at a time (_done takes no argument, so the
 * CM-5 kept one of each): a second _start before its _finish, or a
 * _finish without _start or of another type, stops the job.  The float
 * calls combine as float and pass the value as double.
 *
 * Parameters: the lists are inferred (no manual page of these calls
 * survives in the sources we could read): each _start takes the blocking
 * call's parameters, and each _finish spans as many lines as its _start
 * in the real header's ANSI branch, so it takes them too.  _finish uses
 * none of them (only the _start's count) and is declared CMMD_KR so that a
 * legacy call with no arguments also compiles. */
CMMD_API void CMMD_reduce_int_start(int value, CMMD_combiner_t combiner);
CMMD_API int CMMD_reduce_int_finish CMMD_KR((int value,
                                             CMMD_combiner_t combiner));
CMMD_API void CMMD_reduce_uint_start(unsigned value, CMMD_combiner_t combiner);
CMMD_API unsigned CMMD_reduce_uint_finish CMMD_KR((unsigned value,
                                                   CMMD_combiner_t combiner));
CMMD_API void CMMD_reduce_lint_start(long value, CMMD_combiner_t combiner);
CMMD_API long CMMD_reduce_lint_finish CMMD_KR((long value,
                                               CMMD_combiner_t combiner));
CMMD_API void CMMD_reduce_luint_start(unsigned long value,
                                      CMMD_combiner_t combiner);
CMMD_API unsigned long CMMD_reduce_luint_finish
    CMMD_KR((unsigned long value, CMMD_combiner_t combiner));
CMMD_API void CMMD_reduce_double_start(double value, CMMD_combiner_t combiner);
CMMD_API double CMMD_reduce_double_finish CMMD_KR((double value,
                                                   CMMD_combiner_t combiner));
CMMD_API void CMMD_reduce_float_start(double value, CMMD_combiner_t combiner);
CMMD_API double CMMD_reduce_float_finish CMMD_KR((double value,
                                                  CMMD_combiner_t combiner));
CMMD_API int CMMD_reduce_done(void);
CMMD_API void CMMD_scan_int_start(int value, CMMD_combiner_t combiner,
                                  CMMD_scan_direction_t direction,
                                  CMMD_segment_mode_t smode, int sbit,
                                  CMMD_scan_inclusion_t inclusion);
CMMD_API int CMMD_scan_int_finish CMMD_KR((int value, CMMD_combiner_t combiner,
                                           CMMD_scan_direction_t direction,
                                           CMMD_segment_mode_t smode, int sbit,
                                           CMMD_scan_inclusion_t inclusion));
CMMD_API void CMMD_scan_uint_start(unsigned value, CMMD_combiner_t combiner,
                                   CMMD_scan_direction_t direction,
                                   CMMD_segment_mode_t smode, int sbit,
                                   CMMD_scan_inclusion_t inclusion);
CMMD_API unsigned CMMD_scan_uint_finish CMMD_KR(
    (unsigned value, CMMD_combiner_t combiner, CMMD_scan_direction_t direction,
     CMMD_segment_mode_t smode, int sbit, CMMD_scan_inclusion_t inclusion));
CMMD_API void CMMD_scan_lint_start(long value, CMMD_combiner_t combiner,
                                   CMMD_scan_direction_t direction,
                                   CMMD_segment_mode_t smode, int sbit,
                                   CMMD_scan_inclusion_t inclusion);
CMMD_API long CMMD_scan_lint_finish CMMD_KR(
    (long value, CMMD_combiner_t combiner, CMMD_scan_direction_t direction,
     CMMD_segment_mode_t smode, int sbit, CMMD_scan_inclusion_t inclusion));
CMMD_API void CMMD_scan_luint_start(unsigned long value,
                                    CMMD_combiner_t combiner,
                                    CMMD_scan_direction_t direction,
                                    CMMD_segment_mode_t smode, int sbit,
                                    CMMD_scan_inclusion_t inclusion);
CMMD_API unsigned long CMMD_scan_luint_finish
    CMMD_KR((unsigned long value, CMMD_combiner_t combiner,
             CMMD_scan_direction_t direction, CMMD_segment_mode_t smode,
             int sbit, CMMD_scan_inclusion_t inclusion));
CMMD_API void CMMD_scan_double_start(double value, CMMD_combiner_t combiner,
                                     CMMD_scan_direction_t direction,
                                     CMMD_segment_mode_t smode, int sbit,
                                     CMMD_scan_inclusion_t inclusion);
CMMD_API double CMMD_scan_double_finish CMMD_KR(
    (double value, CMMD_combiner_t combiner, CMMD_scan_direction_t direction,
     CMMD_segment_mode_t smode, int sbit, CMMD_scan_inclusion_t inclusion));
CMMD_API void CMMD_scan_float_start(double value, CMMD_combiner_t combiner,
                                    CMMD_scan_direction_t direction,
                                    CMMD_segment_mode_t smode, int sbit,
                                    CMMD_scan_inclusion_t inclusion);
CMMD_API double CMMD_scan_float_finish CMMD_KR(
    (double value, CMMD_combiner_t combiner, CMMD_scan_direction_t direction,
     CMMD_segment_mode_t smode, int sbit, CMMD_scan_inclusion_t inclusion));
CMMD_API int CMMD_scan_done(void);
CMMD_API unsigned CMMD_segmented_reduce_uint(unsigned value,
                                             CMMD_combiner_t combiner,
                                             CMMD_segment_mode_t smode,
                                             int sbit);
CMMD_API void CMMD_scan_v(void *dest, void *source, CMMD_combiner_t combiner,
                          int element_size, int count,
                          CMMD_scan_direction_t direction,
                          CMMD_segment_mode_t smode, int sbit,
                          CMMD_scan_inclusion_t inclusion);
CMMD_API void CMMD_scan_double_v(double *dest, double *source,
                                 CMMD_combiner_t combiner, int count,
                                 CMMD_scan_direction_t direction,
                                 CMMD_segment_mode_t smode, int sbit,
                                 CMMD_scan_inclusion_t inclusion);

CMMD_API void CMCN_reduce_int_start(int value, CMMD_combiner_t combiner);
CMMD_API int CMCN_reduce_int_finish CMMD_KR((int value,
                                             CMMD_combiner_t combiner));
CMMD_API void CMCN_reduce_uint_start(unsigned value, CMMD_combiner_t combiner);
CMMD_API unsigned CMCN_reduce_uint_finish CMMD_KR((unsigned value,
                                                   CMMD_combiner_t combiner));
CMMD_API void CMCN_reduce_lint_start(long value, CMMD_combiner_t combiner);
CMMD_API long CMCN_reduce_lint_finish CMMD_KR((long value,
                                               CMMD_combiner_t combiner));
CMMD_API void CMCN_reduce_luint_start(unsigned long value,
                                      CMMD_combiner_t combiner);
CMMD_API unsigned long CMCN_reduce_luint_finish
    CMMD_KR((unsigned long value, CMMD_combiner_t combiner));
CMMD_API void CMCN_reduce_double_start(double value, CMMD_combiner_t combiner);
CMMD_API double CMCN_reduce_double_finish CMMD_KR((double value,
                                                   CMMD_combiner_t combiner));
CMMD_API void CMCN_reduce_float_start(double value, CMMD_combiner_t combiner);
CMMD_API double CMCN_reduce_float_finish CMMD_KR((double value,
                                                  CMMD_combiner_t combiner));
CMMD_API int CMCN_reduce_done(void);
CMMD_API void CMCN_scan_int_start(int value, CMMD_combiner_t combiner,
                                  CMMD_scan_direction_t direction,
                                  CMMD_segment_mode_t smode, int sbit,
                                  CMMD_scan_inclusion_t inclusion);
CMMD_API int CMCN_scan_int_finish CMMD_KR((int value, CMMD_combiner_t combiner,
                                           CMMD_scan_direction_t direction,
                                           CMMD_segment_mode_t smode, int sbit,
                                           CMMD_scan_inclusion_t inclusion));
CMMD_API void CMCN_scan_uint_start(unsigned value, CMMD_combiner_t combiner,
                                   CMMD_scan_direction_t direction,
                                   CMMD_segment_mode_t smode, int sbit,
                                   CMMD_scan_inclusion_t inclusion);
CMMD_API unsigned CMCN_scan_uint_finish CMMD_KR(
    (unsigned value, CMMD_combiner_t combiner, CMMD_scan_direction_t direction,
     CMMD_segment_mode_t smode, int sbit, CMMD_scan_inclusion_t inclusion));
CMMD_API void CMCN_scan_lint_start(long value, CMMD_combiner_t combiner,
                                   CMMD_scan_direction_t direction,
                                   CMMD_segment_mode_t smode, int sbit,
                                   CMMD_scan_inclusion_t inclusion);
CMMD_API long CMCN_scan_lint_finish CMMD_KR(
    (long value, CMMD_combiner_t combiner, CMMD_scan_direction_t direction,
     CMMD_segment_mode_t smode, int sbit, CMMD_scan_inclusion_t inclusion));
CMMD_API void CMCN_scan_luint_start(unsigned long value,
                                    CMMD_combiner_t combiner,
                                    CMMD_scan_direction_t direction,
                                    CMMD_segment_mode_t smode, int sbit,
                                    CMMD_scan_inclusion_t inclusion);
CMMD_API unsigned long CMCN_scan_luint_finish
    CMMD_KR((unsigned long value, CMMD_combiner_t combiner,
             CMMD_scan_direction_t direction, CMMD_segment_mode_t smode,
             int sbit, CMMD_scan_inclusion_t inclusion));
CMMD_API void CMCN_scan_double_start(double value, CMMD_combiner_t combiner,
                                     CMMD_scan_direction_t direction,
                                     CMMD_segment_mode_t smode, int sbit,
                                     CMMD_scan_inclusion_t inclusion);
CMMD_API double CMCN_scan_double_finish CMMD_KR(
    (double value, CMMD_combiner_t combiner, CMMD_scan_direction_t direction,
     CMMD_segment_mode_t smode, int sbit, CMMD_scan_inclusion_t inclusion));
CMMD_API void CMCN_scan_float_start(double value, CMMD_combiner_t combiner,
                                    CMMD_scan_direction_t direction,
                                    CMMD_segment_mode_t smode, int sbit,
                                    CMMD_scan_inclusion_t inclusion);
CMMD_API double CMCN_scan_float_finish CMMD_KR(
    (double value, CMMD_combiner_t combiner, CMMD_scan_direction_t direction,
     CMMD_segment_mode_t smode, int sbit, CMMD_scan_inclusion_t inclusion));
CMMD_API int CMCN_scan_done(void);
CMMD_API unsigned CMCN_segmented_reduce_uint(unsigned value,
                                             CMMD_combiner_t combiner,
                                             CMMD_segment_mode_t smode,
                                             int sbit);
CMMD_API void CMCN_scan_v(void *dest, void *source, CMMD_combiner_t combiner,
                          int element_size, int count,
                          CMMD_scan_direction_t direction,
                          CMMD_segment_mode_t smode, int sbit,
                          CMMD_scan_inclusion_t inclusion);
CMMD_API void CMCN_scan_double_v(double *dest, double *source,
                                 CMMD_combiner_t combiner, int count,
                                 CMMD_scan_direction_t direction,
                                 CMMD_segment_mode_t smode, int sbit,
                                 CMMD_scan_inclusion_t inclusion);

/* The vector and segmented calls above (their CMCN_ names are the same):
 * CMMD_segmented_reduce_uint: every node gets the combination of the
 *   values of the nodes of its segment (segments as in the scans: smode
 *   CMMD_none, CMMD_start_bit or CMMD_segment_bit, in node order).
 * CMMD_scan_v: the scan of count elements of element_size bytes, element
 *   by element, from source to dest (which may be the same); the
 *   combiner's prefix and the size give the type, as for CMMD_reduce_v.
 * CMMD_scan_double_v: the same on doubles. */

#ifdef __cplusplus
}
#endif
#endif /* _CM_CMMD_CN_H */

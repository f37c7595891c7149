/*
 * CMCN_* and CMUTIL_*: the CM-5's internal-layer names for CMMD calls,
 * each the same call as its CMMD_ name.
 */
#include "cm/cmmd.h"

int CMCN_reduce_int(int value, CMMD_combiner_t combiner)
{
    return CMMD_reduce_int(value, combiner);
}

unsigned CMCN_reduce_uint(unsigned value, CMMD_combiner_t combiner)
{
    return CMMD_reduce_uint(value, combiner);
}

LONGLONG_INT CMCN_reduce_lint(LONGLONG_INT value, CMMD_combiner_t combiner)
{
    return CMMD_reduce_lint(value, combiner);
}

LONGLONG_UINT CMCN_reduce_luint(LONGLONG_UINT value, CMMD_combiner_t combiner)
{
    return CMMD_reduce_luint(value, combiner);
}

double CMCN_reduce_float(double value, CMMD_combiner_t combiner)
{
    return CMMD_reduce_float(value, combiner);
}

double CMCN_reduce_double(double value, CMMD_combiner_t combiner)
{
    return CMMD_reduce_double(value, combiner);
}

void CMCN_reduce_v(void *dest, void *source, CMMD_combiner_t combiner,
                   int element_size, int count)
{
    CMMD_reduce_v(dest, source, combiner, element_size, count);
}

int CMCN_scan_int(int value, CMMD_combiner_t combiner,
                  CMMD_scan_direction_t direction, CMMD_segment_mode_t smode,
                  int sbit, CMMD_scan_inclusion_t inclusion)
{
    return CMMD_scan_int(value, combiner, direction, smode, sbit, inclusion);
}

unsigned CMCN_scan_uint(unsigned value, CMMD_combiner_t combiner,
                        CMMD_scan_direction_t direction,
                        CMMD_segment_mode_t smode, int sbit,
                        CMMD_scan_inclusion_t inclusion)
{
    return CMMD_scan_uint(value, combiner, direction, smode, sbit, inclusion);
}

LONGLONG_INT CMCN_scan_lint(LONGLONG_INT value, CMMD_combiner_t combiner,
                            CMMD_scan_direction_t direction,
                            CMMD_segment_mode_t smode, int sbit,
                            CMMD_scan_inclusion_t inclusion)
{
    return CMMD_scan_lint(value, combiner, direction, smode, sbit, inclusion);
}

LONGLONG_UINT CMCN_scan_luint(LONGLONG_UINT value, CMMD_combiner_t combiner,
                              CMMD_scan_direction_t direction,
                              CMMD_segment_mode_t smode, int sbit,
                              CMMD_scan_inclusion_t inclusion)
{
    return CMMD_scan_luint(value, combiner, direction, smode, sbit, inclusion);
}

double CMCN_scan_float(double value, CMMD_combiner_t combiner,
                       CMMD_scan_direction_t direction,
                       CMMD_segment_mode_t smode, int sbit,
                       CMMD_scan_inclusion_t inclusion)
{
    return CMMD_scan_float(value, combiner, direction, smode, sbit, inclusion);
}

double CMCN_scan_double(double value, CMMD_combiner_t combiner,
                        CMMD_scan_direction_t direction,
                        CMMD_segment_mode_t smode, int sbit,
                        CMMD_scan_inclusion_t inclusion)
{
    return CMMD_scan_double(value, combiner, direction, smode, sbit, inclusion);
}

void CMCN_bc_to_nodes(void *buffer, int len) { CMMD_bc_to_nodes(buffer, len); }

void CMCN_receive_bc_from_node(void *buffer, int len)
{
    CMMD_receive_bc_from_node(buffer, len);
}

void CMCN_concat_with_nodes(void *element, void *buffer, int element_len)
{
    CMMD_concat_with_nodes(element, buffer, element_len);
}

int CMCN_set_global_or(int bit) { return CMMD_set_global_or(bit); }

int CMCN_get_global_or(void) { return CMMD_get_global_or(); }

void CMCN_sync_with_nodes(void) { CMMD_sync_with_nodes(); }

void CMCN_sync_with_nodes_start(void) { CMMD_sync_with_nodes_start(); }

void CMCN_sync_with_nodes_finish(void) { CMMD_sync_with_nodes_finish(); }

int CMCN_sync_done(void) { return CMMD_sync_done(); }

int CMCN_reset_partition_size(int size)
{
    return CMMD_reset_partition_size(size);
}

int CMUTIL_node_timer_clear(int timer) { return CMMD_node_timer_clear(timer); }

int CMUTIL_node_timer_start(int timer) { return CMMD_node_timer_start(timer); }

int CMUTIL_node_timer_stop(int timer) { return CMMD_node_timer_stop(timer); }

double CMUTIL_node_timer_elapsed(int timer)
{
    return CMMD_node_timer_elapsed(timer);
}

double CMUTIL_node_timer_busy(int timer) { return CMMD_node_timer_busy(timer); }

double CMUTIL_node_timer_idle(int timer) { return CMMD_node_timer_idle(timer); }

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

long CMCN_reduce_lint(long value, CMMD_combiner_t combiner)
{
    return CMMD_reduce_lint(value, combiner);
}

unsigned long CMCN_reduce_luint(unsigned long value, CMMD_combiner_t combiner)
{
    return CMMD_reduce_luint(value, combiner);
}

float CMCN_reduce_float(float value, CMMD_combiner_t combiner)
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

long CMCN_scan_lint(long value, CMMD_combiner_t combiner,
                    CMMD_scan_direction_t direction, CMMD_segment_mode_t smode,
                    int sbit, CMMD_scan_inclusion_t inclusion)
{
    return CMMD_scan_lint(value, combiner, direction, smode, sbit, inclusion);
}

unsigned long CMCN_scan_luint(unsigned long value, CMMD_combiner_t combiner,
                              CMMD_scan_direction_t direction,
                              CMMD_segment_mode_t smode, int sbit,
                              CMMD_scan_inclusion_t inclusion)
{
    return CMMD_scan_luint(value, combiner, direction, smode, sbit, inclusion);
}

float CMCN_scan_float(float value, CMMD_combiner_t combiner,
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

void CMCN_set_global_or(int bit) { CMMD_set_global_or(bit); }

int CMCN_get_global_or(void) { return CMMD_get_global_or(); }

void CMCN_sync_with_nodes(void) { CMMD_sync_with_nodes(); }

void CMCN_sync_with_nodes_start(void) { CMMD_sync_with_nodes_start(); }

void CMCN_sync_with_nodes_finish(void) { CMMD_sync_with_nodes_finish(); }

int CMCN_sync_done(void) { return CMMD_sync_done(); }

void CMUTIL_node_timer_clear(int timer) { CMMD_node_timer_clear(timer); }

void CMUTIL_node_timer_start(int timer) { CMMD_node_timer_start(timer); }

void CMUTIL_node_timer_stop(int timer) { CMMD_node_timer_stop(timer); }

double CMUTIL_node_timer_elapsed(int timer)
{
    return CMMD_node_timer_elapsed(timer);
}

double CMUTIL_node_timer_busy(int timer) { return CMMD_node_timer_busy(timer); }

double CMUTIL_node_timer_idle(int timer) { return CMMD_node_timer_idle(timer); }

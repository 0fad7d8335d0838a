/* What the forwarding checks of the entry points (test_forward_entry,
 * test_forward_level3, test_forward_ilp64) share: the gate's preconditions,
 * the first call opening a lane, the alphas of their cases and the later
 * loaded object.  Header-only, as tap.h. */
#ifndef TS_FORWARD_GATE_H
#define TS_FORWARD_GATE_H

#include <link.h>
#include <math.h>

#include "util/configuration.h"
#include "entry/gemm_entry.h"
#include "tap.h"

/* Alphas by address, double and single (complex: the first two elements). */
static const double one[2] = { 1.0, 0.0 }, zero[2] = { 0.0, 0.0 }, negzero[2] = { -0.0, -0.0 };
static const double imag[2] = { 0.0, 1.0 }, nan2[2] = { NAN, 0.0 };
static const float one_s[2] = { 1.0f, 0.0f }, zero_s[2] = { 0.0f, 0.0f }, negzero_s[2] = { -0.0f, 0.0f };
static const float imag_s[2] = { 0.0f, 1.0f };

/* 1 when lanes can open (the loader watch vouches); else 0 after a SKIP. */
static inline int fg_lanes_can_open(void)
{
    if (!ts_gate.startup_tail) {
        tap_skip("the loader watch cannot vouch here: no lane opens");
        return 0;
    }
    return 1;
}

/* 1 when the gate is armed in auto mode; else 0 after a SKIP. */
static inline int fg_gate_armed(void)
{
    if (!ts_gate_arm() || ts_config_get()->mode != TS_MODE_AUTO) {
        tap_skip("the forwarding gate is not armed (TSSHIM_VERBOSE > 0) or TSSHIM_MODE is not auto");
        return 0;
    }
    return 1;
}

/* After the first small call (FORWARDED times to the CPU BLAS, its lane now
 * OPENED): it took the full path and opened the lane to RESOLVED where the
 * loader watch vouches.  Then fg_lanes_can_open. */
static inline int fg_first_call_opens(int forwarded, ts_gemm_fn opened, ts_gemm_fn resolved)
{
    tap_ok(forwarded == 1 && opened == (ts_gate.startup_tail ? resolved : NULL),
           "the first small call takes the full path to the CPU BLAS and opens its lane");
    return fg_lanes_can_open();
}

/* An object loaded after startup (it could be the CUDA driver) sends calls
 * to the full path: DURING (entry_jumps) answers 0 while one stands after
 * the startup tail, AFTER 1 once it no longer does. */
static inline void fg_later_object(int (*during)(void), int (*after)(void))
{
    struct link_map *tail = ts_gate.startup_tail;
    ts_gate.startup_tail = _r_debug.r_map;
    int later = during();
    ts_gate.startup_tail = tail;
    tap_ok(_r_debug.r_map->l_next && later == 0 && after() == 1,
           "a later object in the loader's list sends calls to the full path");
}

#endif

/* The cost model corrected while the program runs: per side (CPU, GPU),
 * class, precision and size bucket, how much longer (or shorter) calls
 * took than the profile predicted, so a wrong calibration or a busy GPU
 * heals within a few calls.  Lock-free; a lost update under a race only
 * delays the correction by a call. */
#ifndef TS_LEARNED_RATES_H
#define TS_LEARNED_RATES_H

#include "common/call.h"

typedef enum { TS_SIDE_CPU = 0, TS_SIDE_GPU = 1, TS_NSIDE } ts_side;

/* Measured over predicted time of recent calls like c on side s; 1 until
 * one was measured. */
double ts_learned_factor(ts_side s, const ts_call *c);

/* Calls like c measured on side s so far (saturates). */
int ts_learned_samples(ts_side s, const ts_call *c);

/* A call like c took `measured` seconds on side s where the profile
 * predicted `predicted`. */
void ts_learned_record(ts_side s, const ts_call *c, double predicted, double measured);

/* A factor stays within [1/TS_LEARNED_MAX, TS_LEARNED_MAX]: OpenBLAS on
 * narrow shapes runs 30-70x slower than its calibrated rate, so a bound
 * much tighter than that would leave the model blind to it. */
#define TS_LEARNED_MAX 1024.0

/* The cells one by one, for the profile file (learned_store.c): sizes in
 * TS_LEARNED_BUCKETS buckets of a factor of 4 in bytes moved, from 4 KB. */
enum { TS_LEARNED_BUCKETS = 16 };

/* A cell's factor and samples, and how many of those this process
 * measured (0: all came from the profile file, or none). */
void ts_learned_cell(ts_side s, ts_class cls, ts_prec p, int bucket, double *factor, int *samples, int *measured);

/* Sets a cell as an earlier run left it (not counted as measured here). */
void ts_learned_set(ts_side s, ts_class cls, ts_prec p, int bucket, double factor, int samples);

/* Forgets everything (tests). */
void ts_learned_reset(void);

#endif

/* Timing, operand rewriting and the pinned link's rate, shared by the
 * host-data benchmarks (bench_midsize, bench_level3_host) and by
 * bench_level3_gpu. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>

/* Seconds on the monotonic clock. */
double bench_now(void);

/* The median of the n times in t (sorted in place). */
double bench_median(double *t, int n);

/* Rewrites every element of x (floats where single, else doubles: complex
 * values are pairs), times 2 or 1/2 in turn, exactly: what an iterative
 * method does to its blocks between calls, so that no cached copy of an
 * operand can serve the next call. */
void bench_rewrite(void *x, size_t bytes, int single, int round);

/* The pinned link's rate each way, GB/s (0 where CUDA has no device). */
void bench_link_rates(double *h2d, double *d2h);

/* Microseconds to send in_bytes and return out_bytes at those rates (0
 * where a rate is unknown): the bound of a call whose operands cross once. */
double bench_link_us(double in_bytes, double out_bytes, double h2d, double d2h);

#endif

#include "learn/learned_rates.h"

#include <math.h>
#include <stdatomic.h>

#include "common/cost_model.h"

enum { NBUCKET = TS_LEARNED_BUCKETS, MAX_SAMPLES = 1 << 20 };

typedef struct {
    _Atomic double log_factor; /* mean log(measured / predicted) */
    atomic_int samples;
    atomic_int measured;       /* samples taken by this process */
} cell;

static cell cells[TS_NSIDE][TS_NCLASS][TS_NPREC][NBUCKET];

static cell *cell_of(ts_side s, const ts_call *c)
{
    double bytes = ts_call_bytes(c);
    int b = bytes > 4096 ? (int)(log2(bytes / 4096) / 2) : 0;
    return &cells[s][c->cls][c->prec][b < NBUCKET ? b : NBUCKET - 1];
}

double ts_learned_factor(ts_side s, const ts_call *c)
{
    return exp(atomic_load_explicit(&cell_of(s, c)->log_factor, memory_order_relaxed));
}

int ts_learned_samples(ts_side s, const ts_call *c)
{
    return atomic_load_explicit(&cell_of(s, c)->samples, memory_order_relaxed);
}

void ts_learned_record(ts_side s, const ts_call *c, double predicted, double measured)
{
    if (!(predicted > 0) || !(measured > 0))
        return;
    /* One outlier (a page fault storm, a preempted thread) moves the factor
     * at most 16x from where it was, however far off it is; the first
     * samples count fully, later ones a quarter, so a change of machine
     * state shows within a few calls. */
    cell *e = cell_of(s, c);
    double old = atomic_load_explicit(&e->log_factor, memory_order_relaxed);
    double x = log(measured / predicted), step = log(16.0), most = log(TS_LEARNED_MAX);
    x = x > old + step ? old + step : x < old - step ? old - step : x;
    x = x > most ? most : x < -most ? -most : x;
    int n = atomic_load_explicit(&e->samples, memory_order_relaxed);
    double w = n < 3 ? 1.0 / (n + 1) : 0.25;
    atomic_store_explicit(&e->log_factor, old + w * (x - old), memory_order_relaxed);
    if (n < MAX_SAMPLES)
        atomic_store_explicit(&e->samples, n + 1, memory_order_relaxed);
    int here = atomic_load_explicit(&e->measured, memory_order_relaxed);
    if (here < MAX_SAMPLES)
        atomic_store_explicit(&e->measured, here + 1, memory_order_relaxed);
}

void ts_learned_cell(ts_side s, ts_class cls, ts_prec p, int bucket, double *factor, int *samples, int *measured)
{
    const cell *e = &cells[s][cls][p][bucket];
    *factor = exp(atomic_load_explicit(&e->log_factor, memory_order_relaxed));
    *samples = atomic_load_explicit(&e->samples, memory_order_relaxed);
    *measured = atomic_load_explicit(&e->measured, memory_order_relaxed);
}

void ts_learned_set(ts_side s, ts_class cls, ts_prec p, int bucket, double factor, int samples)
{
    cell *e = &cells[s][cls][p][bucket];
    atomic_store_explicit(&e->log_factor, log(factor), memory_order_relaxed);
    atomic_store_explicit(&e->samples, samples < MAX_SAMPLES ? samples : MAX_SAMPLES, memory_order_relaxed);
}

void ts_learned_reset(void)
{
    for (int s = 0; s < TS_NSIDE; s++)
        for (int k = 0; k < TS_NCLASS; k++)
            for (int p = 0; p < TS_NPREC; p++)
                for (int b = 0; b < NBUCKET; b++) {
                    atomic_store(&cells[s][k][p][b].log_factor, 0.0);
                    atomic_store(&cells[s][k][p][b].samples, 0);
                    atomic_store(&cells[s][k][p][b].measured, 0);
                }
}

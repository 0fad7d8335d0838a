#include "route/classify.h"

static int64_t max2(int64_t a, int64_t b) { return a > b ? a : b; }

void ts_classify(ts_call *c, int64_t min_long, int64_t max_skinny)
{
    int lm = c->m >= min_long, ln = c->n >= min_long, lk = c->k >= min_long;
    int sm = c->m <= max_skinny, sn = c->n <= max_skinny, sk = c->k <= max_skinny;

    c->mirror = 0;
    c->width = 0;
    if (sm && sn && lk) {
        c->cls = TS_CLASS_TSMTTSM;
        c->width = max2(c->m, c->n);
    } else if (lm && lk && sn) {
        c->cls = TS_CLASS_TSM2;
        c->width = c->n;
    } else if (ln && lk && sm) {
        c->cls = TS_CLASS_TSM2;
        c->mirror = 1;
        c->width = c->m;
    } else if (lm && sk && sn) {
        c->cls = TS_CLASS_ISM2;
        c->width = max2(c->k, c->n);
    } else if (ln && sk && sm) {
        c->cls = TS_CLASS_ISM2;
        c->mirror = 1;
        c->width = max2(c->k, c->m);
    } else if (lm && ln && sk) {
        c->cls = TS_CLASS_RANKK;
        c->width = c->k;
    } else {
        c->cls = TS_CLASS_REGULAR;
    }
}

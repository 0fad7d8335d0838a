/* Shape classification and argument validation. */
#include <string.h>

#include "route/classify.h"
#include "tap.h"
#include "route/validate.h"

static ts_call shape(char ta, char tb, int64_t m, int64_t n, int64_t k)
{
    ts_call c;
    ts_call_shape(&c, TS_D, ta, tb, m, n, k);
    return c;
}

static void expect_class(int64_t m, int64_t n, int64_t k, ts_class cls, int mirror, int64_t width)
{
    ts_call c = shape('N', 'N', m, n, k);
    ts_classify(&c, 1000, 64);
    tap_ok(c.cls == cls && c.mirror == mirror && c.width == width, "m=%lld n=%lld k=%lld -> class %d mirror %d width %lld",
           (long long)m, (long long)n, (long long)k, c.cls, c.mirror, (long long)c.width);
}

static void expect_info(char ta, char tb, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                        int info)
{
    ts_call c = shape(ta, tb, m, n, k);
    if (lda)
        c.lda = lda;
    if (ldb)
        c.ldb = ldb;
    if (ldc)
        c.ldc = ldc;
    int got = ts_validate(&c);
    tap_ok(got == info, "validate %c%c m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld -> %d (want %d)", ta, tb,
           (long long)m, (long long)n, (long long)k, (long long)c.lda, (long long)c.ldb, (long long)c.ldc, got, info);
}

int main(void)
{
    expect_class(5000, 8, 5000, TS_CLASS_TSM2, 0, 8);
    expect_class(8, 5000, 5000, TS_CLASS_TSM2, 1, 8);
    expect_class(100000, 16, 8, TS_CLASS_ISM2, 0, 16);
    expect_class(4, 100000, 32, TS_CLASS_ISM2, 1, 32);
    expect_class(8, 8, 1 << 20, TS_CLASS_TSMTTSM, 0, 8);
    expect_class(3, 64, 1000, TS_CLASS_TSMTTSM, 0, 64);
    expect_class(5000, 5000, 4, TS_CLASS_RANKK, 0, 4);
    expect_class(5000, 5000, 5000, TS_CLASS_REGULAR, 0, 0);
    expect_class(500, 8, 500, TS_CLASS_REGULAR, 0, 0);
    expect_class(5000, 65, 5000, TS_CLASS_REGULAR, 0, 0);

    expect_info('N', 'N', 10, 10, 10, 0, 0, 0, 0);
    expect_info('c', 't', 10, 10, 10, 0, 0, 0, 0);
    expect_info('X', 'N', 10, 10, 10, 0, 0, 0, 1);
    expect_info('N', 'Q', 10, 10, 10, 0, 0, 0, 2);
    expect_info('N', 'N', -1, 10, 10, 0, 0, 0, 3);
    expect_info('N', 'N', 10, -1, 10, 0, 0, 0, 4);
    expect_info('N', 'N', 10, 10, -1, 0, 0, 0, 5);
    expect_info('N', 'N', 10, 10, 10, 9, 0, 0, 8);
    expect_info('T', 'N', 10, 10, 20, 19, 0, 0, 8);
    expect_info('N', 'N', 10, 10, 20, 0, 19, 0, 10);
    expect_info('N', 'T', 10, 30, 20, 0, 29, 0, 10);
    expect_info('N', 'N', 10, 10, 10, 0, 0, 9, 13);
    expect_info('N', 'N', 0, 0, 0, 1, 1, 1, 0);

    ts_call q = shape('N', 'N', 10, 10, 10);
    double one = 1.0, zero = 0.0, two = 2.0, mzero = -0.0;
    q.alpha = &zero;
    q.beta = &one;
    ts_scalar_flags(&q);
    tap_ok(ts_quick_return(&q), "alpha = 0, beta = 1 is a quick return");
    q.beta = &two;
    ts_scalar_flags(&q);
    tap_ok(!ts_quick_return(&q) && q.alpha_zero, "alpha = 0, beta = 2 scales C");
    q.beta = &mzero;
    ts_scalar_flags(&q);
    tap_ok(q.beta_zero, "beta = -0.0 counts as zero");
    double calpha[2] = { 0.0, 1.0 };
    q.prec = TS_Z;
    q.alpha = calpha;
    q.beta = &one;
    double cone[2] = { 1.0, 0.0 };
    q.beta = cone;
    ts_scalar_flags(&q);
    tap_ok(!q.alpha_zero && q.beta_one && !ts_quick_return(&q), "complex alpha = i is not zero");
    return tap_done();
}

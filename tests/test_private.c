/* The library's private numerical helpers that no public function
   exposes alone: the F distribution behind ISD's invariance test and
   monitor. Like every test that defines ISDB_IMPLEMENTATION itself, it is
   built without optimisation: the optimised implementation is tested
   through the public API. */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "ref.h"
#include "test.h"

/* The F quantile behind the monitor: its cdf (incomplete beta by continued
   fraction) against Simpson's rule, and the quantile at the reference
   cdf; the state-free lgamma against factorials. */
static void test_f_quantile(void) {
    static const int dfs[6][2] = {{2, 100}, {5, 50}, {1, 10}, {4, 20}, {10, 1000}, {3, 60}};
    static const double levels[3] = {0.05, 0.01, 1e-4};
    int i, l, k;
    for (i = 0; i < 6; ++i)
        for (l = 0; l < 3; ++l) {
            double q = isdb__f_critical(levels[l], dfs[i][0], dfs[i][1]);
            CHECK_NEAR(isdb__f_cdf(q, dfs[i][0], dfs[i][1]), 1.0 - levels[l], 1e-11);
            CHECK_NEAR(ref_f_cdf(q, dfs[i][0], dfs[i][1]), 1.0 - levels[l], 1e-8);
        }
    for (k = 1; k <= 400; ++k)
        CHECK_NEAR(isdb__lgamma(k / 2.0), (double)ref_lgamma_half(k), 1e-13 * fmax(1.0, k));
}

int main(void) {
    test_f_quantile();
    return test_report();
}

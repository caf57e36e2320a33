/* Extreme but valid inputs: large d and K, windows longer than the run,
   features and rewards at ISDB_INPUT_MAX and subnormal, a window holding a
   vector that makes its Gram matrix numerically singular, one arm and one
   dimension. Each works, or returns the documented error and changes
   nothing. */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "test.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

typedef union any_policy {
    isdb_linucb a;
    isdb_swucb b;
    isdb_dlinucb c;
    isdb_lints e;
} any_policy;

static isdb_policy *make(int which, int d, int K, int window, any_policy *mem) {
    isdb_result r;
    if (which == 0) {
        isdb_linucb_config c = isdb_linucb_config_init(d, K);
        r = isdb_linucb_init(&c, NULL, &mem->a);
    } else if (which == 1) {
        isdb_swucb_config c = isdb_swucb_config_init(d, K, window);
        r = isdb_swucb_init(&c, NULL, &mem->b);
    } else if (which == 2) {
        isdb_dlinucb_config c = isdb_dlinucb_config_init(d, K, 0.95);
        r = isdb_dlinucb_init(&c, NULL, &mem->c);
    } else {
        isdb_lints_config c = isdb_lints_config_init(d, K);
        c.mc_samples = 200;
        r = isdb_lints_init(&c, NULL, &mem->e);
    }
    CHECK_OK(r);
    return r == ISDB_OK ? (isdb_policy *)mem : NULL;
}

/* d = 256 and K = 10^4: a few rounds run and stay finite. */
static void test_large_sizes(void) {
    static double X[10000 * 3], out[10000], Xd[4 * 256];
    static any_policy mem;
    isdb_rng rng;
    int which, t, i, arm;
    isdb_rng_seed(&rng, 1);
    for (which = 0; which < 4; ++which) {
        isdb_policy *p = make(which, 256, 4, 300, &mem);
        if (!p) continue;
        for (t = 0; t < 12; ++t) {
            for (i = 0; i < 4 * 256; ++i) Xd[i] = isdb_rng_normal(&rng) / 16.0;
            CHECK_OK(isdb_policy_select(p, Xd, 4, &arm));
            CHECK_OK(isdb_policy_update(p, arm, Xd + arm * 256, 1.0));
        }
        CHECK_OK(isdb_policy_scores(p, Xd, 4, out));
        CHECK(isdb__all_finite(out, 4));
        isdb_policy_uninit(p);
        p = make(which, 3, 10000, 50, &mem);
        if (!p) continue;
        for (t = 0; t < 5; ++t) {
            for (i = 0; i < 10000 * 3; ++i) X[i] = isdb_rng_normal(&rng);
            CHECK_OK(isdb_policy_select(p, X, 10000, &arm));
            CHECK(arm >= 0 && arm < 10000);
            CHECK_OK(isdb_policy_update(p, arm, X + arm * 3, X[arm * 3]));
        }
        CHECK_OK(isdb_policy_probs(p, X, 10000, out));
        {
            double sum = 0.0;
            for (i = 0; i < 10000; ++i) sum += out[i];
            CHECK_NEAR(sum, 1.0, 1e-9);
        }
        isdb_policy_uninit(p);
    }
}

/* A window longer than the run is ridge regression on everything: SW-UCB
   and LinUCB (same width rule) give the same estimates and choices. */
static void test_window_longer_than_run(void) {
    isdb_linucb lin;
    isdb_swucb sw;
    isdb_linucb_config lc = isdb_linucb_config_init(4, 6);
    isdb_swucb_config sc = isdb_swucb_config_init(4, 6, 100000);
    double X[6 * 4], a[4], b[4];
    isdb_rng rng;
    int t, i, arm_l, arm_s, same = 1;
    lc.width = sc.width = ISDB_WIDTH_DETTRACE;
    CHECK_OK(isdb_linucb_init(&lc, NULL, &lin));
    CHECK_OK(isdb_swucb_init(&sc, NULL, &sw));
    isdb_rng_seed(&rng, 2);
    for (t = 0; t < 300; ++t) {
        for (i = 0; i < 24; ++i) X[i] = isdb_rng_normal(&rng);
        CHECK_OK(isdb_policy_select(&lin.base, X, 6, &arm_l));
        CHECK_OK(isdb_policy_select(&sw.base, X, 6, &arm_s));
        same &= arm_l == arm_s;
        CHECK_OK(isdb_policy_update(&lin.base, arm_l, X + arm_l * 4, X[arm_l * 4]));
        CHECK_OK(isdb_policy_update(&sw.base, arm_l, X + arm_l * 4, X[arm_l * 4]));
    }
    CHECK(same);
    CHECK(sw.count == 300);
    isdb_linucb_theta(&lin, a);
    isdb_swucb_theta(&sw, b);
    for (i = 0; i < 4; ++i) CHECK_NEAR(a[i], b[i], 1e-12 * (1.0 + fabs(a[i])));
    isdb_policy_uninit(&lin.base);
    isdb_policy_uninit(&sw.base);
}

/* Inputs at the edges of the accepted range. */
static void test_input_limits(void) {
    static any_policy mem;
    int which;
    for (which = 0; which < 4; ++which) {
        double X[2 * 2] = {ISDB_INPUT_MAX, 0.0, 1e-310, -1e-310}, out[2], theta[2];
        int t, arm;
        isdb_policy *p = make(which, 2, 2, 3, &mem);
        if (!p) continue;
        for (t = 0; t < 10; ++t) {
            CHECK_OK(isdb_policy_select(p, X, 2, &arm));
            CHECK_OK(isdb_policy_update(p, t % 2, X + (t % 2) * 2, t % 3 ? ISDB_INPUT_MAX : -1e-310));
            CHECK_OK(isdb_policy_scores(p, X, 2, out));
            CHECK(isdb__all_finite(out, 2));
        }
        if (which == 0) isdb_linucb_theta(&mem.a, theta);
        if (which == 1) isdb_swucb_theta(&mem.b, theta);
        if (which == 2) isdb_dlinucb_theta(&mem.c, theta);
        if (which == 3) isdb_lints_theta(&mem.e, theta);
        CHECK(isdb__all_finite(theta, 2));
        CHECK_RESULT(isdb_policy_update(p, 0, X, -2.0 * ISDB_INPUT_MAX), ISDB_ERR_RANGE);
        CHECK_RESULT(isdb_policy_update(p, 0, X, DBL_MAX), ISDB_ERR_RANGE);
        isdb_policy_uninit(p);
    }
}

/* A vector dwarfing lambda along a correlated direction makes the window's
   Gram matrix numerically singular (condition ~1e128): the periodic
   rebuild cannot factorise it and falls back to rank-one updates, so
   updates keep succeeding; once the vector has left the window the
   estimate agrees with a refit of what remains. */
static void test_window_with_huge_vector(void) {
    isdb_swucb sw;
    isdb_swucb_config c = isdb_swucb_config_init(2, 2, 5);
    double huge[2] = {7e63, 7e63}, X[4] = {1, 0, 0.6, 0.8}, theta[2], V[4] = {1, 0, 0, 1}, b[2] = {0, 0};
    int t, k, ok = 1;
    c.refresh = 3;
    CHECK_OK(isdb_swucb_init(&c, NULL, &sw));
    CHECK_OK(isdb_policy_update(&sw.base, 0, huge, 1.0));
    for (t = 0; t < 20; ++t)
        if (isdb_policy_update(&sw.base, t % 2, X + (t % 2) * 2, 0.5 + 0.1 * t) != ISDB_OK) ok = 0;
    CHECK_MSG(ok, "an update failed after a huge vector entered the window");
    CHECK(sw.rebuilds > 0);
    /* Refit of the last 5 observations: rounds 15..19. */
    for (t = 15; t < 20; ++t) {
        const double *x = X + (t % 2) * 2;
        for (k = 0; k < 4; ++k) V[k] += x[k / 2] * x[k % 2];
        b[0] += (0.5 + 0.1 * t) * x[0];
        b[1] += (0.5 + 0.1 * t) * x[1];
    }
    isdb_swucb_theta(&sw, theta);
    CHECK_NEAR(theta[0], (V[3] * b[0] - V[1] * b[1]) / (V[0] * V[3] - V[1] * V[2]), 1e-12);
    CHECK_NEAR(theta[1], (V[0] * b[1] - V[2] * b[0]) / (V[0] * V[3] - V[1] * V[2]), 1e-12);
    isdb_policy_uninit(&sw.base);
}

int main(void) {
    test_large_sizes();
    test_window_longer_than_run();
    test_input_limits();
    test_window_with_huge_vector();
    return test_report();
}

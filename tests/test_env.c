/* Random numbers, result strings, linear environments and the regret
   harness. The RNG's known answers come from an independent Python
   implementation of the documented algorithm (splitmix64 seeding, then
   xoshiro256**); 0xe220a8397b1dcdaf is also the published first output of
   splitmix64 from state 0. */
#include "../isdbandit.h"
#include "test.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static void test_rng_known_answers(void) {
    static const uint64_t seed0_state[4] = {0xe220a8397b1dcdafull, 0x6e789e6aa1b965f4ull, 0x06c45d188009454full,
                                            0xf88bb8a8724c81ecull};
    static const uint64_t seed0_out[3] = {0x99ec5f36cb75f2b4ull, 0xbf6e1f784956452aull, 0x1a5f849d4933e6e0ull};
    static const uint64_t seed12345_out[3] = {0xbe6a36374160d49bull, 0x214aaa0637a688c6ull, 0xf69d16de9954d388ull};
    isdb_rng r;
    int i;
    isdb_rng_seed(&r, 0);
    for (i = 0; i < 4; ++i) CHECK(r.s[i] == seed0_state[i]);
    for (i = 0; i < 3; ++i) CHECK(isdb_rng_next(&r) == seed0_out[i]);
    isdb_rng_seed(&r, 12345);
    for (i = 0; i < 3; ++i) CHECK(isdb_rng_next(&r) == seed12345_out[i]);
    isdb_rng_seed(&r, 7);
#if ISDB_REAL_IS_FLOAT
    /* A float uniform is the top 24 bits of the same output. */
    CHECK(isdb_rng_uniform(&r) == (isdb_real)(floor(0.7005764821796896 * 16777216.0) / 16777216.0));
    CHECK(isdb_rng_uniform(&r) == (isdb_real)(floor(0.2787512294737843 * 16777216.0) / 16777216.0));
#else
    CHECK(isdb_rng_uniform(&r) == 0.7005764821796896);
    CHECK(isdb_rng_uniform(&r) == 0.2787512294737843);
#endif
}

/* Moments of 10^6 draws, within 6 standard errors. */
static void test_rng_distributions(void) {
    enum { N = 1000000 };
    isdb_rng r;
    isdb_real m1 = 0, m2 = 0, m4 = 0, lo = 1, hi = 0;
    long counts[7] = {0};
    isdb_real chi2 = 0.0;
    int i;
    isdb_rng_seed(&r, 99);
    for (i = 0; i < N; ++i) {
        isdb_real u = isdb_rng_uniform(&r);
        m1 += u / N;
        m2 += u * u / N;
        if (u < lo) lo = u;
        if (u > hi) hi = u;
    }
    CHECK(lo >= 0.0 && hi < 1.0);
    CHECK_NEAR(m1, 0.5, 6 * sqrt(1.0 / 12 / N));
    CHECK_NEAR(m2 - m1 * m1, 1.0 / 12, 6 * sqrt(1.0 / 180 / N));
    m1 = m2 = 0;
    for (i = 0; i < N; ++i) {
        isdb_real z = isdb_rng_normal(&r);
        m1 += z / N;
        m2 += z * z / N;
        m4 += z * z * z * z / N;
    }
    CHECK_NEAR(m1, 0.0, 6 * sqrt(1.0 / N));
    CHECK_NEAR(m2, 1.0, 6 * sqrt(2.0 / N));
    CHECK_NEAR(m4, 3.0, 6 * sqrt(96.0 / N));
    /* below(7): chi-square with 6 degrees of freedom; 22.5 is its 0.999 quantile. */
    for (i = 0; i < 70000; ++i) counts[isdb_rng_below(&r, 7)]++;
    for (i = 0; i < 7; ++i) chi2 += (counts[i] - 10000.0) * (counts[i] - 10000.0) / 10000.0;
    CHECK_MSG(chi2 < 22.5, "chi2 %g", chi2);
    CHECK(isdb_rng_below(&r, 0) == 0);
    CHECK(isdb_rng_below(&r, 1) == 0);
    for (i = 0; i < 1000; ++i) {
        int k = isdb_rng_int(&r, -3, 4);
        CHECK(k >= -3 && k <= 4);
    }
    CHECK(isdb_rng_int(&r, 5, 5) == 5);
    CHECK(isdb_rng_int(&r, 5, 2) == 5);
    (void)isdb_rng_int(&r, INT_MIN, INT_MAX);
    /* The normal's spare is part of the state: two copies stay in step. */
    {
        isdb_rng a, b;
        isdb_rng_seed(&a, 5);
        (void)isdb_rng_normal(&a);
        b = a;
        CHECK(a.has_spare == 1);
        CHECK(isdb_rng_normal(&a) == isdb_rng_normal(&b));
        CHECK(isdb_rng_next(&a) == isdb_rng_next(&b));
    }
}

static void test_results_and_names(void) {
    CHECK(strcmp(isdb_result_string(ISDB_OK), "success") == 0);
    CHECK(strcmp(isdb_result_string(ISDB_ERR_SNAPSHOT_CORRUPT), "success") != 0);
    {
        /* The snapshot codes follow the others and each has its own text. */
        const isdb_result snap[] = {ISDB_ERR_SNAPSHOT_TRUNCATED, ISDB_ERR_SNAPSHOT_CORRUPT, ISDB_ERR_SNAPSHOT_POLICY,
                                    ISDB_ERR_SNAPSHOT_CONFIG, ISDB_ERR_SNAPSHOT_VERSION};
        int i, j;
        for (i = 0; i < 5; ++i) {
            CHECK((int)snap[i] == -10 - i);
            CHECK(strcmp(isdb_result_string(snap[i]), "unknown result") != 0);
            for (j = 0; j < i; ++j) CHECK(strcmp(isdb_result_string(snap[i]), isdb_result_string(snap[j])) != 0);
        }
        CHECK(strcmp(isdb_result_string((isdb_result)-9), "unknown result") == 0);
    }
    CHECK(strcmp(isdb_result_string((isdb_result)12345), "unknown result") == 0);
    CHECK(strcmp(isdb_result_string(ISDB_ERR_RANGE), isdb_result_string(ISDB_ERR_NONFINITE)) != 0);
    CHECK(strcmp(isdb_version(), ISDB_VERSION_STRING) == 0);
    CHECK(strcmp(isdb_policy_kind_name(ISDB_POLICY_SWUCB), "swucb") == 0);
    CHECK(strcmp(isdb_policy_kind_name((isdb_policy_kind)999), "unknown") == 0);
    CHECK(strcmp(isdb_policy_name(NULL), "none") == 0);
}

static void test_linear_env_paths(void) {
    static const isdb_real arms[3 * 2] = {1, 0, 0, 1, 0.6, 0.8};
    static const isdb_real pieces[3 * 2] = {1, 0, -1, 0, 0, 1};
    static const uint64_t switches[2] = {3, 5};
    isdb_linear_env env;
    isdb_linear_env_config c = isdb_linear_env_config_init(2, 3);
    isdb_real y;
    uint64_t t;
    c.arms = ISDB_ARMS_FIXED;
    c.fixed_arms = arms;
    c.path = ISDB_PATH_PIECEWISE;
    c.n_pieces = 3;
    c.pieces = pieces;
    c.switch_at = switches;
    c.noise_sd = 0.0;
    memset(&env, 0xA5, sizeof env); /* init must not trust what was there */
    CHECK_OK(isdb_linear_env_init(&c, NULL, &env));
    CHECK_RESULT(isdb_env_reward(&env.base, 0, &y), ISDB_ERR_BAD_STATE);
    for (t = 0; t < 8; ++t) {
        const isdb_real *th = t < 3 ? pieces : t < 5 ? pieces + 2 : pieces + 4;
        CHECK_OK(isdb_env_next(&env.base));
        CHECK(memcmp(env.base.X, arms, sizeof arms) == 0);
        CHECK_NEAR(env.base.means[2], 0.6 * th[0] + 0.8 * th[1], T_TOL(1e-15));
        CHECK_OK(isdb_env_reward(&env.base, 2, &y));
        CHECK(y == env.base.means[2]); /* noise_sd 0 */
    }
    CHECK_RESULT(isdb_env_reward(&env.base, 3, &y), ISDB_ERR_INVALID_ARG);
    isdb_env_uninit(&env.base);

    /* Cheung et al. section 7: theta_t = (0.5 + 0.3 sin(w t), 0.5 + 0.3 sin(pi + w t)), t = 1..T. */
    c = isdb_linear_env_config_init(2, 2);
    c.arms = ISDB_ARMS_FIXED;
    c.fixed_arms = arms;
    c.path = ISDB_PATH_SINUSOID;
    c.sin_omega = 5.0 * T_PI / 1000.0;
    CHECK_OK(isdb_linear_env_init(&c, NULL, &env));
    for (t = 1; t <= 300; ++t) {
        CHECK_OK(isdb_env_next(&env.base));
        CHECK_NEAR(env.theta[0], 0.5 + 0.3 * sin(c.sin_omega * (isdb_real)t), T_TOL(1e-15));
        CHECK_NEAR(env.theta[1], 0.5 + 0.3 * sin(T_PI + c.sin_omega * (isdb_real)t), T_TOL(1e-15));
    }
    isdb_env_uninit(&env.base);

    /* Russac et al. smooth experiment: angle 0 to pi/2 over 3000 rounds. */
    c = isdb_linear_env_config_init(2, 2);
    c.arms = ISDB_ARMS_FIXED;
    c.fixed_arms = arms;
    c.path = ISDB_PATH_ROTATION;
    c.rot_rounds = 3000;
    CHECK_OK(isdb_linear_env_init(&c, NULL, &env));
    for (t = 0; t < 4000; ++t) {
        isdb_real a = (T_PI / 2.0) * (isdb_real)(t < 3000 ? t : 3000) / 3000.0;
        CHECK_OK(isdb_env_next(&env.base));
        if (t % 500 == 0 || t == 2999 || t == 3001) {
            CHECK_NEAR(env.theta[0], cos(a), T_TOL(1e-15));
            CHECK_NEAR(env.theta[1], sin(a), T_TOL(1e-15));
        }
    }
    isdb_env_uninit(&env.base);
}

static void sideways(uint64_t t, isdb_real *theta, void *user) {
    theta[0] = (isdb_real)t * *(isdb_real *)user;
    theta[1] = -1.0;
}

static void test_linear_env_arms(void) {
    enum { N = 20000 };
    static const isdb_real cov[4] = {2.0, 0.6, 0.6, 0.5};
    static const isdb_real theta0[2] = {0.3, -0.2};
    isdb_real scale = 0.25, sum[4] = {0}, norm;
    isdb_linear_env env, twin;
    isdb_linear_env_config c = isdb_linear_env_config_init(2, 4);
    int k, i, same = 1;
    uint64_t t;
    c.path = ISDB_PATH_PIECEWISE;
    c.n_pieces = 1;
    c.pieces = theta0;
    /* Unit sphere. */
    CHECK_OK(isdb_linear_env_init(&c, NULL, &env));
    for (t = 0; t < 100; ++t) {
        CHECK_OK(isdb_env_next(&env.base));
        for (k = 0; k < 4; ++k) CHECK_NEAR(hypot(env.base.X[2 * k], env.base.X[2 * k + 1]), 1.0, T_TOL(1e-15));
    }
    isdb_env_uninit(&env.base);
    /* Box, clipped to norm 1 (the Russac et al. action sets). */
    c.arms = ISDB_ARMS_BOX;
    c.clip_norm = 1.0;
    CHECK_OK(isdb_linear_env_init(&c, NULL, &env));
    for (t = 0; t < 500; ++t) {
        CHECK_OK(isdb_env_next(&env.base));
        for (k = 0; k < 8; ++k) CHECK(env.base.X[k] >= -1.0 && env.base.X[k] < 1.0);
        for (k = 0; k < 4; ++k) CHECK(hypot(env.base.X[2 * k], env.base.X[2 * k + 1]) <= 1.0 + T_TOL(1e-15));
    }
    isdb_env_uninit(&env.base);
    /* Gaussian with a covariance: sample covariance within 6 standard errors. */
    c.arms = ISDB_ARMS_GAUSSIAN;
    c.clip_norm = 0.0;
    c.cov = cov;
    CHECK_OK(isdb_linear_env_init(&c, NULL, &env));
    for (t = 0; t < N; ++t) {
        CHECK_OK(isdb_env_next(&env.base));
        for (i = 0; i < 4; ++i) sum[i] += env.base.X[i / 2] * env.base.X[i % 2] / N;
    }
    for (i = 0; i < 4; ++i)
        CHECK_NEAR(sum[i], cov[i], 6 * sqrt((cov[(i / 2) * 3] * cov[(i % 2) * 3] + cov[i] * cov[i]) / N));
    isdb_env_uninit(&env.base);
    /* Common random numbers: the same seed gives the same rounds whatever
       arms are played; reset starts over. */
    c.arms = ISDB_ARMS_SPHERE;
    c.path = ISDB_PATH_CALLBACK;
    c.theta_fn = sideways;
    c.theta_user = &scale;
    c.noise_sd = 0.5;
    CHECK_OK(isdb_linear_env_init(&c, NULL, &env));
    CHECK_OK(isdb_linear_env_init(&c, NULL, &twin));
    norm = 0.0;
    for (t = 0; t < 50; ++t) {
        isdb_real ya, yb;
        CHECK_OK(isdb_env_next(&env.base));
        CHECK_OK(isdb_env_next(&twin.base));
        if (memcmp(env.base.X, twin.base.X, sizeof(isdb_real) * 8) != 0) same = 0;
        CHECK_NEAR(env.theta[0], 0.25 * (isdb_real)t, 0.0);
        CHECK_OK(isdb_env_reward(&env.base, 0, &ya));
        CHECK_OK(isdb_env_reward(&twin.base, (int)(t % 4), &yb));
        CHECK_OK(isdb_env_reward(&twin.base, 1, &yb)); /* extra draws on one side only */
        norm += (ya - env.base.means[0]) * (ya - env.base.means[0]) / 50;
    }
    CHECK(same);
    CHECK(norm > 0.1 && norm < 0.5); /* variance 0.25 */
    isdb_env_reset(&twin.base);
    CHECK_OK(isdb_env_next(&twin.base));
    isdb_env_reset(&env.base);
    CHECK_OK(isdb_env_next(&env.base));
    CHECK(memcmp(env.base.X, twin.base.X, sizeof(isdb_real) * 8) == 0);
    isdb_env_uninit(&env.base);
    isdb_env_uninit(&twin.base);
}

static void test_linear_env_invalid(void) {
    static const isdb_real bad_cov[4] = {1, 2, 2, 1};
    static const isdb_real pieces[6] = {1, 0, 0, 1, 1, 1};
    static const uint64_t backwards[2] = {5, 5};
    isdb_linear_env env;
    isdb_linear_env_config c = isdb_linear_env_config_init(2, 3);
    CHECK_RESULT(isdb_linear_env_init(&c, NULL, &env), ISDB_ERR_INVALID_ARG); /* no pieces */
    c.n_pieces = 1;
    c.pieces = pieces;
    CHECK_OK(isdb_linear_env_init(&c, NULL, &env));
    isdb_env_uninit(&env.base);
    c.n_pieces = 2;
    CHECK_RESULT(isdb_linear_env_init(&c, NULL, &env), ISDB_ERR_INVALID_ARG); /* no switch times */
    c.n_pieces = 1;
    c.arms = ISDB_ARMS_GAUSSIAN;
    c.cov = bad_cov;
    CHECK_RESULT(isdb_linear_env_init(&c, NULL, &env), ISDB_ERR_NOT_SPD);
    c.arms = ISDB_ARMS_FIXED;
    CHECK_RESULT(isdb_linear_env_init(&c, NULL, &env), ISDB_ERR_INVALID_ARG); /* no fixed arms */
    c.arms = ISDB_ARMS_BOX;
    c.box_lo = 1.0;
    CHECK_RESULT(isdb_linear_env_init(&c, NULL, &env), ISDB_ERR_INVALID_ARG);
    c = isdb_linear_env_config_init(1, 3);
    c.path = ISDB_PATH_ROTATION;
    CHECK_RESULT(isdb_linear_env_init(&c, NULL, &env), ISDB_ERR_INVALID_ARG); /* needs d >= 2 */
    c.path = ISDB_PATH_CALLBACK;
    CHECK_RESULT(isdb_linear_env_init(&c, NULL, &env), ISDB_ERR_INVALID_ARG);
    c = isdb_linear_env_config_init(2, 3);
    c.n_pieces = 3;
    c.pieces = pieces;
    c.switch_at = backwards;
    CHECK_RESULT(isdb_linear_env_init(&c, NULL, &env), ISDB_ERR_INVALID_ARG);
    c.noise_sd = -1.0;
    CHECK_RESULT(isdb_linear_env_init(&c, NULL, &env), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_linear_env_init(NULL, NULL, &env), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_env_next(NULL), ISDB_ERR_INVALID_ARG);
}

/* The harness: cumulative pseudo-regret equals the sum of the gaps of the
   arms played (recomputed here), is non-decreasing, and a LinUCB learner
   on a stationary problem regrets less in its second half than its first. */
static void test_sim_run(void) {
    enum { T = 2000 };
    static isdb_real cum[T];
    static const isdb_real theta0[3] = {0.6, -0.3, 0.2};
    isdb_linear_env env;
    isdb_linear_env_config c = isdb_linear_env_config_init(3, 10);
    isdb_linucb pol;
    isdb_linucb_config lc = isdb_linucb_config_init(3, 10);
    isdb_sim_result res;
    isdb_real prev = 0.0;
    int t, monotone = 1;
    c.n_pieces = 1;
    c.pieces = theta0;
    c.noise_sd = 0.3;
    CHECK_OK(isdb_linear_env_init(&c, NULL, &env));
    CHECK_OK(isdb_linucb_init(&lc, NULL, &pol));
    CHECK_OK(isdb_sim_run(&pol.base, &env.base, T, cum, &res));
    CHECK(res.rounds == T);
    CHECK(pol.base.t == T && env.base.t == T);
    CHECK(res.regret == cum[T - 1]);
    for (t = 0; t < T; ++t) {
        if (cum[t] < prev) monotone = 0;
        prev = cum[t];
    }
    CHECK(monotone);
    CHECK_MSG(cum[T - 1] - cum[T / 2 - 1] < cum[T / 2 - 1], "second half %g, first half %g",
              cum[T - 1] - cum[T / 2 - 1], cum[T / 2 - 1]);
    CHECK(res.seconds >= 0.0);
    /* Mismatched sizes are refused before anything runs. */
    isdb_policy_uninit(&pol.base);
    lc = isdb_linucb_config_init(2, 10);
    CHECK_OK(isdb_linucb_init(&lc, NULL, &pol));
    CHECK_RESULT(isdb_sim_run(&pol.base, &env.base, 5, NULL, &res), ISDB_ERR_INVALID_ARG);
    isdb_policy_uninit(&pol.base);
    lc = isdb_linucb_config_init(3, 4);
    CHECK_OK(isdb_linucb_init(&lc, NULL, &pol));
    CHECK_RESULT(isdb_sim_run(&pol.base, &env.base, 5, NULL, &res), ISDB_ERR_INVALID_ARG);
    isdb_policy_uninit(&pol.base);
    isdb_env_uninit(&env.base);
}

int main(void) {
    test_rng_known_answers();
    test_rng_distributions();
    test_results_and_names();
    test_linear_env_paths();
    test_linear_env_arms();
    test_linear_env_invalid();
    test_sim_run();
    return test_report();
}

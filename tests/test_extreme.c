/* Extreme but valid inputs: large d and K, windows longer than the run,
   features and rewards at ISDB_INPUT_MAX and subnormal, a window holding a
   vector that makes its Gram matrix numerically singular, one arm and one
   dimension. Each works, or returns the documented error and changes
   nothing. The first tests cover LinUCB, SW-UCB, D-LinUCB, LinTS and
   adaptive; the table at the end covers the other five policies. */
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
    isdb_adaptive f;
} any_policy;
enum { N_LINEAR = 5 };

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
    } else if (which == 3) {
        isdb_lints_config c = isdb_lints_config_init(d, K);
        c.mc_samples = 200;
        r = isdb_lints_init(&c, NULL, &mem->e);
    } else {
        isdb_adaptive_config c = isdb_adaptive_config_init(d, K);
        r = isdb_adaptive_init(&c, NULL, &mem->f);
    }
    CHECK_OK(r);
    return r == ISDB_OK ? (isdb_policy *)mem : NULL;
}

/* d = 256 and K = 10^4: a few rounds run and stay finite. */
static void test_large_sizes(void) {
    static isdb_real X[10000 * 3], out[10000], Xd[4 * 256];
    static any_policy mem;
    isdb_rng rng;
    int which, t, i, arm;
    isdb_rng_seed(&rng, 1);
    for (which = 0; which < N_LINEAR; ++which) {
        isdb_policy *p = make(which, 256, 4, 300, &mem);
        if (!p) continue;
        for (t = 0; t < 12; ++t) {
            for (i = 0; i < 4 * 256; ++i) Xd[i] = isdb_rng_normal(&rng) / 16.0;
            CHECK_OK(isdb_policy_select(p, Xd, 4, &arm));
            CHECK_OK(isdb_policy_update(p, arm, Xd + arm * 256, 1.0));
        }
        CHECK_OK(isdb_policy_scores(p, Xd, 4, out));
        CHECK(t_all_finite(out, 4));
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
            isdb_real sum = 0.0;
            for (i = 0; i < 10000; ++i) sum += out[i];
            /* A sum of 10^4 terms rounds by at most 10^4 eps. */
            CHECK_NEAR(sum, 1.0, 10000 * T_EPS);
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
    isdb_real X[6 * 4], a[4], b[4];
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
    isdb_linucb_get_theta(&lin, a);
    isdb_swucb_get_theta(&sw, b);
    for (i = 0; i < 4; ++i) CHECK_NEAR(a[i], b[i], T_TOL(1e-12) * (1.0 + fabs(a[i])));
    isdb_policy_uninit(&lin.base);
    isdb_policy_uninit(&sw.base);
}

/* Inputs at the edges of the accepted range, long enough for the
   adaptive test's sums of squared errors to reach the top of the range:
   everything stays finite and the policy's own snapshot loads back. */
static void test_input_limits(void) {
    static any_policy mem, copy;
    static unsigned char snap[1 << 16];
    int which;
    for (which = 0; which < N_LINEAR; ++which) {
        /* Arm 2 (0, 1) earns ISDB_INPUT_MAX, so theta's second entry is
           about as large, and arm 3 (0, ISDB_INPUT_MAX), played every
           50th round for nothing, is predicted at its square by the
           memories that have forgotten it. */
        isdb_real X[4 * 2] = {ISDB_INPUT_MAX, 0.0, T_SUBNORMAL, -T_SUBNORMAL, 0.0, 1.0, 0.0, ISDB_INPUT_MAX};
        isdb_real out[4], theta[2];
        int t, arm, finite = 1;
        size_t n = 0;
        isdb_policy *p = make(which, 2, 4, 3, &mem);
        if (!p) continue;
        for (t = 0; t < 1000; ++t) {
            int a = t % 50 == 49 ? 3 : t % 3;
            isdb_real y = a == 2 ? ISDB_INPUT_MAX : a == 3 || t % 4 == 0 ? -T_SUBNORMAL : ISDB_INPUT_MAX;
            CHECK_OK(isdb_policy_select(p, X, 4, &arm));
            CHECK_OK(isdb_policy_update(p, a, X + a * 2, y));
            CHECK_OK(isdb_policy_scores(p, X, 4, out));
            finite &= t_all_finite(out, 4);
        }
        CHECK_MSG(finite, "%s: scores not finite", isdb_policy_name(p));
        if (which == 0) isdb_linucb_get_theta(&mem.a, theta);
        if (which == 1) isdb_swucb_get_theta(&mem.b, theta);
        if (which == 2) isdb_dlinucb_get_theta(&mem.c, theta);
        if (which == 3) isdb_lints_get_theta(&mem.e, theta);
        if (which == 4) isdb_adaptive_get_theta(&mem.f, theta);
        CHECK(t_all_finite(theta, 2));
        CHECK_OK(isdb_policy_save(p, snap, sizeof snap, &n));
        if (make(which, 2, 4, 3, &copy)) {
            CHECK_MSG(isdb_policy_load((isdb_policy *)&copy, snap, n) == ISDB_OK, "%s: its own snapshot is refused",
                      isdb_policy_name(p));
            isdb_policy_uninit((isdb_policy *)&copy);
        }
        CHECK_RESULT(isdb_policy_update(p, 0, X, -2.0 * ISDB_INPUT_MAX), ISDB_ERR_RANGE);
        CHECK_RESULT(isdb_policy_update(p, 0, X, T_REAL_MAX), ISDB_ERR_RANGE);
        isdb_policy_uninit(p);
    }
}

/* A vector dwarfing lambda along a correlated direction makes the window's
   Gram matrix numerically singular (condition ~1e128; 1e18 in float): the
   periodic rebuild cannot factorise it and falls back to rank-one updates, so
   updates keep succeeding; once the vector has left the window the
   estimate agrees with a refit of what remains. */
static void test_window_with_huge_vector(void) {
    isdb_swucb sw;
    isdb_swucb_config c = isdb_swucb_config_init(2, 2, 5);
    isdb_real huge[2] = {(isdb_real)(0.7 * ISDB_INPUT_MAX), (isdb_real)(0.7 * ISDB_INPUT_MAX)};
    isdb_real X[4] = {1, 0, 0.6, 0.8}, theta[2], V[4] = {1, 0, 0, 1}, b[2] = {0, 0};
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
        const isdb_real *x = X + (t % 2) * 2;
        for (k = 0; k < 4; ++k) V[k] += x[k / 2] * x[k % 2];
        b[0] += (0.5 + 0.1 * t) * x[0];
        b[1] += (0.5 + 0.1 * t) * x[1];
    }
    isdb_swucb_get_theta(&sw, theta);
    CHECK_NEAR(theta[0], (V[3] * b[0] - V[1] * b[1]) / (V[0] * V[3] - V[1] * V[2]), T_TOL(1e-12));
    CHECK_NEAR(theta[1], (V[0] * b[1] - V[2] * b[0]) / (V[0] * V[3] - V[1] * V[2]), T_TOL(1e-12));
    isdb_policy_uninit(&sw.base);
}


/* ---- BOB, ISD, OPKB, OAM and Trace-UCB -------------------------------------
   Each gets a factory for any (d, K): the data it needs (a fixed arm set,
   an oracle subspace) is made here. Everything must work except the
   documented refusals (ISDB_ERR_INVALID_ARG at init):
     OPKB: more than 4096 arms; arms whose kernel is too large for
           lambda = sigma / T (max k(x, x) > 1e10 lambda), or numerically
           zero (its arms are the fixed set, so the input-limit scenarios
           scale the arm set itself);
     OAM:  a solver workspace 2 ((M + 1) K)^2 beyond INT_MAX doubles
           (K = 10^4 with the default M = 8 contexts). */

typedef union other_policy {
    isdb_bob bob;
#if !ISDB_REAL_IS_FLOAT
    isdb_isd isd;
    isdb_opkb opkb;
    isdb_oam oam;
    isdb_traceucb tr;
#endif
} other_policy;

/* A float build has BOB only (the others need double). */
enum { P_BOB, P_ISD, P_OPKB, P_OAM, P_TRACEUCB, N_OTHER };
#if ISDB_REAL_IS_FLOAT
#define N_PLAYED 1
#else
#define N_PLAYED N_OTHER
#endif
static const char *other_names[N_OTHER] = {"bob", "isd", "opkb", "oam", "traceucb"};

/* The arm set of the fixed-set policies: K unit vectors, the first d of
   them the coordinate axes (so they span R^d when K >= d). */
static isdb_real *fixed_arms(int d, int K) {
    isdb_real *X = (isdb_real *)malloc(sizeof(isdb_real) * (size_t)d * (size_t)K);
    isdb_rng rng;
    int i, k;
    if (!X) return NULL;
    isdb_rng_seed(&rng, (uint64_t)(d * 31 + K));
    for (k = 0; k < K; ++k) {
        if (k < d)
            for (i = 0; i < d; ++i) X[k * d + i] = i == k ? 1.0 : 0.0;
        else
            t_sphere_point(&rng, d, X + k * d);
    }
    return X;
}

static isdb_result make_other(int which, int d, int K, const isdb_real *arms, other_policy *mem) {
    if (which == P_BOB) {
        isdb_bob_config c = isdb_bob_config_init(d, K, 1000);
        return isdb_bob_init(&c, NULL, &mem->bob);
    }
#if ISDB_REAL_IS_FLOAT
    (void)arms;
    return ISDB_ERR_INVALID_ARG;
#else
    if (which == P_ISD) {
        /* Oracle mode: the first half of the coordinates invariant. */
        static isdb_real U[256 * 128], beta[256];
        isdb_isd_config c = isdb_isd_config_init(d, K, 0, NULL, NULL);
        int i, pi = d / 2;
        memset(U, 0, sizeof U);
        for (i = 0; i < pi; ++i) U[i * pi + i] = 1.0;
        for (i = 0; i < d; ++i) beta[i] = i < pi ? 0.1 : 0.0;
        c.oracle = 1;
        c.p_inv = pi;
        c.U_inv = pi ? U : NULL;
        c.beta_inv = beta;
        c.learner = ISDB_ISD_RES_WINDOW;
        c.window = 5000; /* longer than the run */
        c.radius = ISDB_ISD_RADIUS_FIXED;
        return isdb_isd_init(&c, NULL, &mem->isd);
    }
    if (which == P_OPKB) {
        isdb_opkb_config c = isdb_opkb_config_init(d, K, 1000.0);
        c.arms = arms;
        c.adaptive = 1;
        return isdb_opkb_init(&c, NULL, &mem->opkb);
    }
    if (which == P_OAM) {
        isdb_oam_config c = isdb_oam_config_init(d, K, 1000);
        return isdb_oam_init(&c, NULL, &mem->oam);
    } else {
        isdb_traceucb_config c = isdb_traceucb_config_init(d, K);
        return isdb_traceucb_init(&c, NULL, &mem->tr);
    }
#endif
}

static unsigned char snap_before[1 << 22], snap_after[1 << 22];

/* One call that may be refused; a refusal must change nothing. */
static int refused_changes_nothing(isdb_policy *p, isdb_result r) {
    size_t n = 0;
    if (r == ISDB_OK) return 1;
    if (isdb_policy_save(p, snap_after, sizeof snap_after, &n) != ISDB_OK) return 0;
    return memcmp(snap_before, snap_after, n) == 0;
}

/* Plays `rounds` rounds; features from the fixed set, or random rows
   scaled by `scale`; rewards scaled by `reward`. Checks every result. */
static void play_other(int which, int d, int K, const isdb_real *arms, other_policy *mem, int rounds, isdb_real scale,
                       isdb_real reward, const char *label) {
    isdb_policy *p = (isdb_policy *)mem;
    isdb_real *X = (isdb_real *)malloc(sizeof(isdb_real) * (size_t)d * (size_t)K), *out = (isdb_real *)malloc(sizeof(isdb_real) * (size_t)K);
    isdb_rng rng;
    int t, i, arm, bad_result = 0, changed = 0, nonfinite = 0, bad_arm = 0;
    isdb_rng_seed(&rng, 9);
    if (!X || !out) {
        free(X);
        free(out);
        return;
    }
    for (t = 0; t < rounds; ++t) {
        isdb_result r;
        size_t n = 0;
        isdb_real sum = 0.0;
        if (arms)
            memcpy(X, arms, sizeof(isdb_real) * (size_t)d * (size_t)K);
        else
            for (i = 0; i < d * K; ++i) X[i] = scale * isdb_rng_normal(&rng);
        isdb_policy_save(p, snap_before, sizeof snap_before, &n);
        r = isdb_policy_select(p, X, K, &arm);
        if (r != ISDB_OK && r != ISDB_ERR_RANGE) bad_result = 1;
        if (!refused_changes_nothing(p, r)) changed = 1;
        if (r != ISDB_OK) arm = 0;
        if (arm < 0 || arm >= K) {
            bad_arm = 1;
            arm = 0;
        }
        isdb_policy_save(p, snap_before, sizeof snap_before, &n);
        r = isdb_policy_update(p, arm, X + arm * d, t % 2 ? reward : -reward * T_SUBNORMAL);
        if (r != ISDB_OK && r != ISDB_ERR_RANGE && r != ISDB_ERR_NOT_SPD) bad_result = 1;
        if (!refused_changes_nothing(p, r)) changed = 1;
        if (isdb_policy_probs(p, X, K, out) == ISDB_OK) {
            for (i = 0; i < K; ++i) sum += out[i];
            if (!(fabs(sum - 1.0) <= K * T_EPS)) nonfinite = 1; /* K terms, K roundings */
        }
        if (isdb_policy_scores(p, X, K, out) == ISDB_OK && !t_all_finite(out, K)) nonfinite = 1;
    }
    CHECK_MSG(!bad_result, "%s %s: an undocumented error", other_names[which], label);
    CHECK_MSG(!changed, "%s %s: a refused call changed the state", other_names[which], label);
    CHECK_MSG(!nonfinite, "%s %s: scores not finite or probs not a distribution", other_names[which], label);
    CHECK_MSG(!bad_arm, "%s %s: select returned an arm out of range", other_names[which], label);
    free(X);
    free(out);
}

static void test_other_policies(void) {
    static other_policy mem;
    /* scale: of the random features, or (limits: 1) of the fixed arm sets. */
    static const struct {
        const char *label;
        int d, K, rounds, limits;
        isdb_real scale, reward;
    } scenarios[] = {
        {"d=256 K=4", 256, 4, 40, 0, 0.1, 1.0},
        {"d=3 K=10^4", 3, 10000, 6, 0, 1.0, 1.0},
        {"d=1 K=1", 1, 1, 50, 0, 1.0, 1.0},
        {"d=2 K=3 inputs at ISDB_INPUT_MAX", 2, 3, 60, 1, ISDB_INPUT_MAX / 3.0, ISDB_INPUT_MAX},
        {"d=2 K=3 subnormal inputs", 2, 3, 60, 1, T_SUBNORMAL, T_SUBNORMAL},
    };
    int which, s;
    printf("extreme inputs, policy x scenario (init result):\n");
    for (which = 0; which < N_PLAYED; ++which)
        for (s = 0; s < (int)(sizeof scenarios / sizeof scenarios[0]); ++s) {
            int d = scenarios[s].d, K = scenarios[s].K;
            int fixed = which == P_OPKB || which == P_OAM;
            isdb_real *arms = fixed ? fixed_arms(d, K) : NULL;
            isdb_result r;
            if (fixed && arms && scenarios[s].limits) {
                int i;
                for (i = 0; i < d * K; ++i) arms[i] *= scenarios[s].scale;
            }
            r = make_other(which, d, K, arms, &mem);
            printf("  %-9s %-34s %s\n", other_names[which], scenarios[s].label, isdb_result_string(r));
            if ((which == P_OPKB && (K > 4096 || scenarios[s].limits)) || (which == P_OAM && K == 10000))
                CHECK_RESULT(r, ISDB_ERR_INVALID_ARG);
            else
                CHECK_MSG(r == ISDB_OK, "%s %s: init gave %s", other_names[which], scenarios[s].label,
                          isdb_result_string(r));
            if (r == ISDB_OK) {
                play_other(which, d, K, fixed ? arms : NULL, &mem, scenarios[s].rounds, scenarios[s].scale,
                           scenarios[s].reward, scenarios[s].label);
                isdb_policy_uninit((isdb_policy *)&mem);
            }
            free(arms);
        }
}

int main(void) {
    test_large_sizes();
    test_window_longer_than_run();
    test_input_limits();
    test_window_with_huge_vector();
    test_other_policies();
    return test_report();
}

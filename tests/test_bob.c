/* BOB (Cheung, Simchi-Levi, Zhu, Algorithm 2):
   - H, Delta, J, the block count, the EXP3 rate and the normaliser against
     the spec's table for the five horizons of section 7 (d = 2, R = 0.1)
     and against a long-isdb_real computation of eq. 22-25;
   - edge cases: H = 1, duplicate windows, H > T, exact powers, bad input;
   - the EXP3 master (eq. 24-25) against a direct computation with raw
     weights in long double, block by block, and each window draw against
     the inverse CDF of p on a copy of the generator;
   - log-weights: rewards that would overflow raw weights leave p finite;
   - the window draw is distributed as p (chi-square);
   - each block runs a fresh SW-UCB (delta = 1/T, the drawn window): BOB
     agrees bit for bit with a standalone SW-UCB restarted at every block;
   - probs and scores before and after the draw;
   - block lengths past the horizon, save/load across a block boundary,
     forged snapshots, and failure atomicity of an update that draws;
   - section 7 B of the paper on a small scale: BOB's regret below the
     B_T-agnostic SW-UCB's when B_T = T^(1/3). */
#include "../isdbandit.h"
#include "test.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* The spec's table (section 5): d = 2, R = 0.1. gamma is given to 4
   decimals and the normaliser to 1, so those are compared to half a unit
   of the last digit. */
static void test_params_table(void) {
    static const uint64_t T[5] = {30000, 60000, 90000, 120000, 240000};
    static const int H[5] = {274, 388, 476, 549, 777};
    static const int Delta[5] = {6, 6, 7, 7, 7};
    static const int J[5][8] = {{1, 2, 6, 16, 42, 107, 274},
                                {1, 2, 7, 19, 53, 143, 388},
                                {1, 2, 5, 14, 33, 81, 197, 476},
                                {1, 2, 6, 14, 36, 90, 222, 549},
                                {1, 2, 6, 17, 44, 116, 300, 777}};
    static const uint64_t blocks[5] = {110, 155, 190, 219, 309};
    static const isdb_real gamma[5] = {0.2685, 0.2262, 0.2257, 0.2103, 0.1770};
    static const isdb_real norm[5] = {566.1, 798.3, 977.2, 1125.4, 1587.6};
    int i, j;
    for (i = 0; i < 5; ++i) {
        isdb_bob_params par;
        isdb_bob pol;
        isdb_bob_config c = isdb_bob_config_init(2, 2, T[i]);
        long double n, h, Tl = (long double)T[i], g, nm;
        int same = 1;
        CHECK_OK(isdb_bob_tuned_params(2, T[i], 0.1, 1.0, &par));
        CHECK_MSG(par.H == H[i], "T=%g: H %d, expected %d", (isdb_real)T[i], par.H, H[i]);
        CHECK_MSG(par.Delta == Delta[i], "T=%g: Delta %d, expected %d", (isdb_real)T[i], par.Delta, Delta[i]);
        CHECK(par.n_windows == Delta[i] + 1);
        for (j = 0; j <= Delta[i]; ++j)
            CHECK_MSG(par.windows[j] == J[i][j], "T=%g: J[%d] = %d, expected %d", (isdb_real)T[i], j, par.windows[j],
                      J[i][j]);
        CHECK(par.blocks == blocks[i]);
        CHECK_NEAR(par.gamma, gamma[i], 5e-5);
        CHECK_NEAR(par.normaliser, norm[i], 0.05);
        /* The same from the formulas in long double (the table's rounding
           aside, the two agree to rounding error). */
        n = (long double)(Delta[i] + 1);
        h = (long double)H[i];
        g = sqrtl(n * logl(n) / ((expl(1.0L) - 1.0L) * (long double)blocks[i]));
        nm = 2.0L * h + 4.0L * 0.1L * sqrtl(h * logl(Tl / sqrtl(h)));
        CHECK_NEAR(par.gamma, (isdb_real)g, T_TOL(1e-14));
        CHECK_NEAR(par.normaliser, (isdb_real)nm, T_TOL(1e-12) * (isdb_real)nm);
        /* A policy carries the same parameters. */
        c.R = 0.1;
        CHECK_OK(isdb_bob_init(&c, NULL, &pol));
        if (memcmp(isdb_bob_get_params(&pol), &par, sizeof par) != 0) same = 0;
        CHECK(same);
        CHECK(isdb_bob_get_swucb(&pol)->cfg.delta == (isdb_real)1 / (isdb_real)T[i]);
        isdb_policy_uninit(&pol.base);
    }
}

/* The smallest reward_bound accepted (see PRECISION). */
#if ISDB_REAL_IS_FLOAT
#define REWARD_BOUND_MIN 1e-20f
#else
#define REWARD_BOUND_MIN 1e-30
#endif

static void test_params_edges(void) {
    isdb_bob_params par;
    isdb_bob pol;
    isdb_bob_config c;
    /* H = 1 (d = 1, T = 2: floor(sqrt 2) = 1): Delta = 0, J = {1}, no 0/0. */
    CHECK_OK(isdb_bob_tuned_params(1, 2, 1.0, 1.0, &par));
    CHECK(par.H == 1 && par.Delta == 0 && par.n_windows == 1 && par.windows[0] == 1);
    CHECK(par.blocks == 2 && par.gamma == 0.0);
    CHECK_NEAR(par.normaliser, 2.0 + 4.0 * sqrt(log(2.0)), T_TOL(1e-15));
    /* H = 3: J = {1, floor(sqrt 3), 3} = {1, 1, 3}, the duplicate kept. */
    CHECK_OK(isdb_bob_tuned_params(1, 9, 1.0, 1.0, &par));
    CHECK(par.H == 3 && par.Delta == 2 && par.n_windows == 3);
    CHECK(par.windows[0] == 1 && par.windows[1] == 1 && par.windows[2] == 3);
    /* Exact powers stay whole: 8^(2/3) sqrt(100) = 40, 4^(1/2) = 2. */
    CHECK_OK(isdb_bob_tuned_params(8, 100, 1.0, 1.0, &par));
    CHECK(par.H == 40);
    CHECK_OK(isdb_bob_tuned_params(1, 16, 1.0, 1.0, &par));
    CHECK(par.H == 4 && par.Delta == 2 && par.windows[1] == 2 && par.windows[2] == 4);
    /* Not whole, but near: 645^(3/7) = 15.99915, so J_3 = 15 for d = 3,
       T = 96397 (H = 645), in float too (a slack of 1e-3 made it 16). */
    CHECK_OK(isdb_bob_tuned_params(3, 96397, 1.0, 1.0, &par));
    CHECK(par.H == 645 && par.Delta == 7 && par.windows[3] == 15 && par.windows[4] == 40);
    /* H > T (27^(2/3) sqrt(50) = 63.6 > 50) is clamped to T: one block,
       so gamma = 1 (uniform draws). */
    CHECK_OK(isdb_bob_tuned_params(27, 50, 1.0, 1.0, &par));
    CHECK(par.H == 50 && par.blocks == 1 && par.gamma == 1.0);
    CHECK(par.windows[par.Delta] == 50);
    /* The reward bound scales 2H; R = 0 leaves 2 H b. */
    CHECK_OK(isdb_bob_tuned_params(2, 30000, 0.0, 3.0, &par));
    CHECK(par.normaliser == 6.0 * 274);
    /* Bad input. */
    CHECK_RESULT(isdb_bob_tuned_params(0, 100, 1.0, 1.0, &par), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_bob_tuned_params(2, 0, 1.0, 1.0, &par), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_bob_tuned_params(2, 100, -1.0, 1.0, &par), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_bob_tuned_params(2, 100, 1.0, 0.0, &par), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_bob_tuned_params(2, 100, T_NAN, 1.0, &par), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_bob_tuned_params(2, 100, 1.0, 1.0, NULL), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_bob_tuned_params(16384, (uint64_t)1 << 60, 1.0, 1.0, &par), ISDB_ERR_INVALID_ARG);
    /* The policy needs T >= 2 (delta = 1/T < 1) and a sane reward bound. */
    c = isdb_bob_config_init(2, 3, 1);
    CHECK_RESULT(isdb_bob_init(&c, NULL, &pol), ISDB_ERR_INVALID_ARG);
    c.T = 2;
    CHECK_OK(isdb_bob_init(&c, NULL, &pol));
    CHECK(isdb_bob_get_params(&pol)->H == 2); /* floor(2^(2/3) sqrt 2) = 2 */
    isdb_policy_uninit(&pol.base);
    c.reward_bound = REWARD_BOUND_MIN / 10;
    CHECK_RESULT(isdb_bob_init(&c, NULL, &pol), ISDB_ERR_INVALID_ARG);
    c.reward_bound = 1.0;
    c.clip = 2;
    CHECK_RESULT(isdb_bob_init(&c, NULL, &pol), ISDB_ERR_INVALID_ARG);
    c.clip = 0;
    c.lambda = 0.0;
    CHECK_RESULT(isdb_bob_init(&c, NULL, &pol), ISDB_ERR_INVALID_ARG);
}

static void one_hot(int K, isdb_real *X) {
    int i;
    memset(X, 0, sizeof(isdb_real) * (size_t)(K * K));
    for (i = 0; i < K; ++i) X[i * K + i] = 1.0;
}

/* The window index the inverse CDF of p picks for uniform u. */
static int inverse_cdf(const isdb_real *p, int n, isdb_real u) {
    isdb_real c = 0.0;
    int j;
    for (j = 0; j < n - 1; ++j) {
        c += p[j];
        if (u < c) break;
    }
    return j;
}

/* The EXP3 master against raw weights in long double: p_j = (1 - gamma)
   s_j / sum s + gamma / n, and at a block's end s_j *= exp(gamma / (n p_j)
   (1/2 + sum / normaliser)) for the window played. 10 blocks of the
   horizon and 5 past it. Tolerance: p and log-weights are sums and
   products of a few dozen O(1) terms, so 1e-12 (in double) leaves room
   for rounding but not for a wrong formula. */
static void test_exp3_direct(void) {
    enum { D = 3, TH = 400 };
    static const isdb_real means[D] = {0.3, 0.7, 0.5};
    isdb_bob pol;
    isdb_bob_config c = isdb_bob_config_init(D, D, TH);
    const isdb_bob_params *par;
    long double s[ISDB_BOB_MAX_WINDOWS], pl[ISDB_BOB_MAX_WINDOWS], sum_s, block_sum = 0.0L, norm;
    isdb_real X[D * D], p[ISDB_BOB_MAX_WINDOWS], lw[ISDB_BOB_MAX_WINDOWS];
    isdb_rng noise;
    int t, j, n, blocks_seen = 0, draws_ok = 1, p_ok = 1, lw_ok = 1, len_ok = 1;
    isdb_real worst_p = 0.0, worst_lw = 0.0;
    c.R = 0.2;
    CHECK_OK(isdb_bob_init(&c, NULL, &pol));
    par = isdb_bob_get_params(&pol);
    n = par->n_windows;
    CHECK(par->H == 41 && n == 5 && par->blocks == 10);
    norm = 2.0L * par->H + 4.0L * 0.2L * sqrtl((long double)par->H * logl(TH / sqrtl((long double)par->H)));
    for (j = 0; j < n; ++j) s[j] = 1.0L;
    one_hot(D, X);
    isdb_rng_seed(&noise, 11);
    for (t = 0; t < TH + 5 * par->H; ++t) {
        int arm, start = pol.in_block == 0;
        if (start) {
            /* p from the raw weights, and the draw select is about to make. */
            isdb_rng copy = pol.base.rng;
            sum_s = 0.0L;
            for (j = 0; j < n; ++j) sum_s += s[j];
            for (j = 0; j < n; ++j) pl[j] = (1.0L - par->gamma) * s[j] / sum_s + par->gamma / (long double)n;
            isdb_bob_get_master_probs(&pol, p);
            isdb_bob_get_log_weights(&pol, lw);
            for (j = 0; j < n; ++j) {
                long double max_s = s[0];
                int k;
                for (k = 1; k < n; ++k)
                    if (s[k] > max_s) max_s = s[k];
                worst_p = fmax(worst_p, fabs(p[j] - (isdb_real)pl[j]));
                worst_lw = fmax(worst_lw, fabs(lw[j] - (isdb_real)logl(s[j] / max_s)));
            }
            if (worst_p > T_TOL(1e-12)) p_ok = 0;
            if (worst_lw > T_TOL(1e-12)) lw_ok = 0;
            CHECK(isdb_bob_get_window(&pol) == 0 && isdb_bob_get_window_index(&pol) == -1);
            CHECK_OK(isdb_policy_select(&pol.base, X, D, &arm));
            if (isdb_bob_get_window_index(&pol) != inverse_cdf(p, n, isdb_rng_uniform(&copy))) draws_ok = 0;
            CHECK(isdb_bob_get_window(&pol) == par->windows[isdb_bob_get_window_index(&pol)]);
            block_sum = 0.0L;
        } else {
            CHECK_OK(isdb_policy_select(&pol.base, X, D, &arm));
        }
        {
            isdb_real y = means[arm] + 0.2 * isdb_rng_normal(&noise);
            int jj = pol.j;
            uint64_t block = isdb_bob_get_block(&pol);
            block_sum += y;
            CHECK_OK(isdb_policy_update(&pol.base, arm, X + arm * D, y));
            if (isdb_bob_get_block(&pol) != block) {
                /* The block ended with this update: eq. 25 on the raw weights. */
                long double r = 0.5L + block_sum / norm;
                s[jj] *= expl(par->gamma / ((long double)n * pl[jj]) * r);
                ++blocks_seen;
                if (block + 1 < par->blocks && (t + 1) % par->H != 0) len_ok = 0;
            }
        }
    }
    CHECK_MSG(p_ok, "p differs from the raw-weight computation by %g", worst_p);
    CHECK_MSG(lw_ok, "log-weights differ by %g", worst_lw);
    CHECK_MSG(draws_ok, "a window draw is not the inverse CDF of p");
    CHECK(len_ok);
    /* 400 = 9 * 41 + 31: 10 blocks in the horizon, then 5 of 41 rounds. */
    CHECK(blocks_seen == 15);
    CHECK(isdb_bob_get_block(&pol) == 15 && pol.base.t == TH + 5 * 41);
    isdb_policy_uninit(&pol.base);
}

/* Block rewards far outside the paper's range (reward bound 1e-6, so r is
   about 4e5 per block) would overflow raw weights (exp(709) is the limit)
   within a block or two; the log-weights keep p a distribution with every
   p_j >= gamma / n. */
static void test_log_weights_no_overflow(void) {
    enum { D = 2, TH = 4000 };
    isdb_bob pol;
    isdb_bob_config c = isdb_bob_config_init(D, D, TH);
    isdb_real X[D * D], p[ISDB_BOB_MAX_WINDOWS], lw[ISDB_BOB_MAX_WINDOWS], sum = 0.0, top = -1.0;
    int t, j, arm, n, ok = 1;
    c.R = 0.0;
    c.reward_bound = 1e-6;
    CHECK_OK(isdb_bob_init(&c, NULL, &pol));
    n = isdb_bob_get_params(&pol)->n_windows;
    one_hot(D, X);
    for (t = 0; t < TH; ++t) {
        CHECK_OK(isdb_policy_select(&pol.base, X, D, &arm));
        CHECK_OK(isdb_policy_update(&pol.base, arm, X + arm * D, 1.0));
    }
    CHECK(isdb_bob_get_block(&pol) == isdb_bob_get_params(&pol)->blocks);
    isdb_bob_get_master_probs(&pol, p);
    isdb_bob_get_log_weights(&pol, lw);
    for (j = 0; j < n; ++j) {
        if (!t_all_finite(p + j, 1) || !t_all_finite(lw + j, 1) || lw[j] > 0.0) ok = 0;
        if (p[j] < isdb_bob_get_params(&pol)->gamma / n * (1.0 - T_TOL(1e-12))) ok = 0;
        sum += p[j];
        if (lw[j] > top) top = lw[j];
    }
    CHECK(ok);
    CHECK_NEAR(sum, 1.0, T_TOL(1e-12));
    CHECK(top == 0.0);
    /* Some weight grew by more than exp(709) relative to another. */
    CHECK(lw[t_argmax(lw, n)] - lw[0] > 709.0 || lw[t_argmax(lw, n)] - lw[n - 1] > 709.0);
    isdb_policy_uninit(&pol.base);
}

/* The extreme the bounds allow: rewards at ISDB_INPUT_MAX rescaled by the
   smallest reward_bound, R = 0, so each block's exponent is about
   ISDB_INPUT_MAX / (2 reward_bound) (5e28 in float, where a bound of
   1e-30 overflowed it and made p NaN). p stays a distribution. */
static void test_log_weights_extreme(void) {
    isdb_bob pol;
    isdb_bob_config c = isdb_bob_config_init(2, 2, 1000);
    isdb_real X[4] = {1, 0, 0, 1}, p[ISDB_BOB_MAX_WINDOWS], sum = 0.0;
    int t, j, arm, n, ok = 1;
    c.R = 0.0;
    c.reward_bound = REWARD_BOUND_MIN;
    CHECK_OK(isdb_bob_init(&c, NULL, &pol));
    n = isdb_bob_get_params(&pol)->n_windows;
    for (t = 0; t < 1000; ++t) {
        CHECK_OK(isdb_policy_select(&pol.base, X, 2, &arm));
        CHECK_OK(isdb_policy_update(&pol.base, arm, X + 2 * arm, t % 3 ? ISDB_INPUT_MAX : -ISDB_INPUT_MAX));
    }
    isdb_bob_get_master_probs(&pol, p);
    for (j = 0; j < n; ++j) {
        if (!(p[j] >= isdb_bob_get_params(&pol)->gamma / n * (1.0 - T_TOL(1e-12)))) ok = 0;
        sum += p[j];
    }
    CHECK(ok);
    CHECK_NEAR(sum, 1.0, T_TOL(1e-12));
    isdb_policy_uninit(&pol.base);
}

/* Draws from a fixed non-uniform p: frequencies of 40000 draws against p
   by chi-square (4 degrees of freedom; 18.47 is the 0.999 quantile). */
static void test_draw_distribution(void) {
    enum { N = 40000 };
    static unsigned char snap_buf[1 << 15];
    size_t snap_n;
    isdb_bob pol;
    isdb_bob_config c = isdb_bob_config_init(2, 2, 30000);
    isdb_real X[4], p[ISDB_BOB_MAX_WINDOWS], chi2 = 0.0;
    long counts[ISDB_BOB_MAX_WINDOWS] = {0};
    int i, j, n, arm;
    c.seed = 5;
    CHECK_OK(isdb_bob_init(&c, NULL, &pol));
    n = isdb_bob_get_params(&pol)->n_windows; /* 7 */
    for (j = 0; j < n; ++j) pol._logw[j] = -0.7 * j;
    pol._logw[3] = 0.0;
    /* Loading a snapshot derives the distribution from the log-weights. */
    CHECK_OK(isdb_policy_save(&pol.base, snap_buf, sizeof snap_buf, &snap_n));
    CHECK_OK(isdb_policy_load(&pol.base, snap_buf, snap_n));
    isdb_bob_get_master_probs(&pol, p);
    one_hot(2, X);
    for (i = 0; i < N; ++i) {
        pol.drawn = 0;
        CHECK_OK(isdb_policy_select(&pol.base, X, 2, &arm));
        counts[isdb_bob_get_window_index(&pol)]++;
    }
    for (j = 0; j < n; ++j) chi2 += (counts[j] - N * p[j]) * (counts[j] - N * p[j]) / (N * p[j]);
    /* 7 windows: 6 degrees of freedom, 0.999 quantile 22.46. */
    CHECK_MSG(chi2 < 22.46, "chi2 %g", chi2);
    isdb_policy_uninit(&pol.base);
}

/* Every block runs a fresh SW-UCB with the drawn window and delta = 1/T:
   a standalone SW-UCB created at each block start and fed the same data
   gives the same scores (bit for bit) and choices. Before the draw, probs
   is the mixture over windows, one-hot at the arm of largest norm. */
static void test_fresh_swucb_per_block(void) {
    enum { D = 2, K = 5, TH = 300 };
    isdb_bob pol;
    isdb_swucb ref;
    isdb_bob_config c = isdb_bob_config_init(D, K, TH);
    isdb_real X[K * D], a[K], b[K], pr[K];
    isdb_rng rng;
    int t, i, arm, ref_arm, have_ref = 0, same = 1, mixture_ok = 1;
    c.lambda = 0.5;
    c.R = 0.3;
    c.S = 2.0;
    c.seed = 3;
    CHECK_OK(isdb_bob_init(&c, NULL, &pol));
    isdb_rng_seed(&rng, 17);
    for (t = 0; t < TH; ++t) {
        for (i = 0; i < K * D; ++i) X[i] = isdb_rng_normal(&rng);
        if (pol.in_block == 0) {
            isdb_real norms[K];
            for (i = 0; i < K; ++i) norms[i] = X[i * D] * X[i * D] + X[i * D + 1] * X[i * D + 1];
            CHECK_OK(isdb_policy_probs(&pol.base, X, K, pr));
            /* The p_j add up to 1 up to rounding. */
            if (fabs(pr[t_argmax(norms, K)] - 1.0) > T_TOL(1e-15)) mixture_ok = 0;
            CHECK_OK(isdb_policy_select(&pol.base, X, K, &arm));
            if (arm != t_argmax(norms, K)) mixture_ok = 0;
            if (have_ref) isdb_policy_uninit(&ref.base);
            {
                isdb_swucb_config sc = isdb_swucb_config_init(D, K, isdb_bob_get_window(&pol));
                sc.lambda = 0.5;
                sc.R = 0.3;
                sc.S = 2.0;
                sc.delta = 1.0 / TH;
                sc.width = ISDB_WIDTH_SIMPLE; /* BOB's blocks use eq. 5 (SW-UCB's default is LOGDET) */
                CHECK_OK(isdb_swucb_init(&sc, NULL, &ref));
                have_ref = 1;
            }
        } else {
            CHECK_OK(isdb_policy_select(&pol.base, X, K, &arm));
        }
        CHECK_OK(isdb_policy_scores(&pol.base, X, K, a));
        CHECK_OK(isdb_policy_scores(&ref.base, X, K, b));
        CHECK_OK(isdb_policy_select(&ref.base, X, K, &ref_arm));
        if (memcmp(a, b, sizeof a) != 0 || arm != ref_arm) same = 0;
        CHECK_OK(isdb_policy_probs(&pol.base, X, K, pr));
        CHECK(pr[arm] == 1.0);
        CHECK(isdb_bob_get_swucb(&pol)->count <= pol.in_block);
        CHECK_OK(isdb_policy_update(&pol.base, arm, X + arm * D, X[arm * D] - 0.5 * X[arm * D + 1]));
        CHECK_OK(isdb_policy_update(&ref.base, arm, X + arm * D, X[arm * D] - 0.5 * X[arm * D + 1]));
    }
    CHECK_MSG(same, "BOB and the restarted SW-UCB disagree");
    CHECK(mixture_ok);
    CHECK(isdb_bob_get_block(&pol) >= 3);
    isdb_policy_uninit(&ref.base);
    /* With no width (alpha = 0) every window scores 0: arm 0, ties lowest. */
    isdb_policy_uninit(&pol.base);
    c.alpha = 0.0;
    CHECK_OK(isdb_bob_init(&c, NULL, &pol));
    CHECK_OK(isdb_policy_probs(&pol.base, X, K, pr));
    CHECK_NEAR(pr[0], 1.0, T_TOL(1e-15));
    CHECK_OK(isdb_policy_scores(&pol.base, X, K, pr));
    CHECK_NEAR(pr[0], 1.0, T_TOL(1e-15));
    isdb_policy_uninit(&pol.base);
}

/* T = 105, d = 1: H = 10, blocks of 10 rounds, a last block of 5 (rounds
   101-105), then blocks of 10 again past the horizon. */
static void test_past_horizon(void) {
    isdb_bob pol;
    isdb_bob_config c = isdb_bob_config_init(1, 2, 105);
    isdb_real X[2] = {1.0, -0.5};
    int t, arm, ok = 1;
    CHECK_OK(isdb_bob_init(&c, NULL, &pol));
    CHECK(isdb_bob_get_params(&pol)->H == 10 && isdb_bob_get_params(&pol)->blocks == 11);
    for (t = 1; t <= 160; ++t) {
        uint64_t want;
        CHECK_OK(isdb_policy_select(&pol.base, X, 2, &arm));
        CHECK_OK(isdb_policy_update(&pol.base, arm, X + arm, 0.3));
        /* Blocks completed after t updates. */
        want = t <= 100 ? (uint64_t)(t / 10) : t <= 105 ? 10 + (t == 105) : 11 + (uint64_t)((t - 105) / 10);
        if (isdb_bob_get_block(&pol) != want) ok = 0;
        if (pol.block_len != (isdb_bob_get_block(&pol) == 10 ? 5 : 10)) ok = 0;
    }
    CHECK(ok);
    isdb_policy_uninit(&pol.base);
}

static unsigned char snap[3][1 << 15], snap2[1 << 15];

/* Saves at three points around the end of block 0 (last round before its
   update; block ended, window not drawn; window drawn, no update yet),
   then resumes each in a fresh object and in one already mid-way through
   another block, and checks choices and final state against the run that
   never stopped. */
static void test_save_load_boundary(void) {
    enum { D = 2, K = 4, TH = 200, MORE = 70 };
    isdb_bob a, b;
    isdb_bob_config c = isdb_bob_config_init(D, K, TH);
    isdb_real X[(TH + MORE) * K * D];
    int arms_a[TH + MORE], t, i, arm, k;
    size_t n[3], na, nb;
    int at[3];
    isdb_rng rng;
    c.seed = 21;
    c.R = 0.5;
    isdb_rng_seed(&rng, 9);
    for (i = 0; i < (TH + MORE) * K * D; ++i) X[i] = isdb_rng_normal(&rng);
    CHECK_OK(isdb_bob_init(&c, NULL, &a));
    CHECK(isdb_bob_get_params(&a)->H == 22);
    for (t = 0; t < 40; ++t) {
        const isdb_real *Xt = X + t * K * D;
        if (t == 21 || t == 22) {
            at[t - 21] = t;
            CHECK_OK(isdb_policy_save(&a.base, snap[t - 21], sizeof snap[t - 21], &n[t - 21]));
        }
        CHECK_OK(isdb_policy_select(&a.base, Xt, K, &arm));
        if (t == 22) {
            at[2] = t;
            CHECK_OK(isdb_policy_save(&a.base, snap[2], sizeof snap[2], &n[2]));
        }
        arms_a[t] = arm;
        CHECK_OK(isdb_policy_update(&a.base, arm, Xt + arm * D, Xt[arm * D]));
    }
    CHECK(a.block == 1 && a.drawn);
    for (t = 40; t < TH + MORE; ++t) {
        const isdb_real *Xt = X + t * K * D;
        CHECK_OK(isdb_policy_select(&a.base, Xt, K, &arm));
        arms_a[t] = arm;
        CHECK_OK(isdb_policy_update(&a.base, arm, Xt + arm * D, Xt[arm * D]));
    }
    na = 0;
    CHECK_OK(isdb_policy_save(&a.base, snap2, sizeof snap2, &na));
    for (k = 0; k < 6; ++k) {
        int same = 1, from = at[k % 3];
        unsigned char fin[1 << 15];
        CHECK_OK(isdb_bob_init(&c, NULL, &b));
        if (k >= 3) /* first take b to another state: block 2, mid-way */
            for (t = 0; t < 50; ++t) {
                CHECK_OK(isdb_policy_select(&b.base, X + (t + 100) * K * D, K, &arm));
                CHECK_OK(isdb_policy_update(&b.base, arm, X + (t + 100) * K * D + arm * D, 0.1));
            }
        CHECK_OK(isdb_policy_load(&b.base, snap[k % 3], n[k % 3]));
        for (t = from; t < TH + MORE; ++t) {
            const isdb_real *Xt = X + t * K * D;
            /* The third snapshot was taken after the select of round 22. */
            if (!(k % 3 == 2 && t == from)) {
                CHECK_OK(isdb_policy_select(&b.base, Xt, K, &arm));
                if (arm != arms_a[t]) same = 0;
            } else {
                arm = arms_a[t];
            }
            CHECK_OK(isdb_policy_update(&b.base, arm, Xt + arm * D, Xt[arm * D]));
        }
        CHECK_MSG(same, "resume from snapshot %d chose differently", k % 3);
        nb = 0;
        CHECK_OK(isdb_policy_save(&b.base, fin, sizeof fin, &nb));
        CHECK_MSG(nb == na && memcmp(fin, snap2, na) == 0, "resume from snapshot %d ended elsewhere", k % 3);
        isdb_policy_uninit(&b.base);
    }
    isdb_policy_uninit(&a.base);
}

/* Snapshot layout (format version 1): 24-byte header; base: d, max_arms,
   seed (8 each), t (8), rng (4 x 8 + 8 + 4); BOB's config: 9 values of 8
   bytes; then block (8), in_block (4), drawn (4), j (4), block_sum (8),
   the log-weights. Forged values (checksum recomputed) are rejected when
   out of range and accepted when valid. */
enum { OFF_T = 24 + 24, OFF_BLOCK = 24 + 32 + 44 + 72, OFF_IN = OFF_BLOCK + 8, OFF_DRAWN = OFF_IN + 4, OFF_J = OFF_DRAWN + 4,
       OFF_SUM = OFF_J + 4, OFF_LOGW = OFF_SUM + 8 };

#if !ISDB_REAL_IS_FLOAT /* the offsets above are those of the double format */
static isdb_result load_forged(isdb_bob *p, const unsigned char *good, size_t n, int off, uint64_t value, int bytes) {
    static unsigned char buf[1 << 15];
    memcpy(buf, good, n);
    t_put_le(buf + off, value, bytes);
    t_put_le(buf + n - 8, t_fnv1a(buf, n - 8), 8);
    return isdb_policy_load(&p->base, buf, n);
}

static uint64_t f64_bits(isdb_real x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static void test_forged_snapshots(void) {
    isdb_bob a, b;
    isdb_bob_config c = isdb_bob_config_init(2, 3, 500);
    isdb_real X[6] = {1, 0, 0, 1, 0.5, 0.5};
    unsigned char before[1 << 15];
    size_t n, nb;
    int t, arm, n_win;
    CHECK_OK(isdb_bob_init(&c, NULL, &a));
    CHECK_OK(isdb_bob_init(&c, NULL, &b));
    n_win = isdb_bob_get_params(&a)->n_windows;
    /* a: 12 rounds into block 1 (H = 35). */
    for (t = 0; t < 47; ++t) {
        CHECK_OK(isdb_policy_select(&a.base, X, 3, &arm));
        CHECK_OK(isdb_policy_update(&a.base, arm, X + 2 * arm, 0.2 * arm));
    }
    CHECK(a.block == 1 && a.in_block == 12);
    CHECK_OK(isdb_policy_save(&a.base, snap[0], sizeof snap[0], &n));
    CHECK(t_get_le(snap[0] + OFF_BLOCK, 8) == 1 && t_get_le(snap[0] + OFF_IN, 4) == 12);
    CHECK(t_get_le(snap[0] + OFF_J, 4) == (uint64_t)a.j);
    CHECK_OK(isdb_policy_save(&b.base, before, sizeof before, &nb));
    CHECK_RESULT(load_forged(&b, snap[0], n, OFF_J, (uint64_t)n_win, 4), ISDB_ERR_SNAPSHOT_CORRUPT);
    CHECK_RESULT(load_forged(&b, snap[0], n, OFF_DRAWN, 0, 4), ISDB_ERR_SNAPSHOT_CORRUPT); /* updates without a window */
    CHECK_RESULT(load_forged(&b, snap[0], n, OFF_IN, 35, 4), ISDB_ERR_SNAPSHOT_CORRUPT);   /* in_block = block length */
    CHECK_RESULT(load_forged(&b, snap[0], n, OFF_SUM, f64_bits(1e300), 8), ISDB_ERR_SNAPSHOT_CORRUPT);
    CHECK_RESULT(load_forged(&b, snap[0], n, OFF_LOGW, f64_bits(0.5), 8), ISDB_ERR_SNAPSHOT_CORRUPT);
    CHECK_RESULT(load_forged(&b, snap[0], n, OFF_LOGW, f64_bits(T_NAN), 8), ISDB_ERR_SNAPSHOT_CORRUPT);
    /* The last block of the horizon is 500 - 14 * 35 = 10 rounds long. */
    CHECK_RESULT(load_forged(&b, snap[0], n, OFF_BLOCK, 14, 8), ISDB_ERR_SNAPSHOT_CORRUPT);
    nb = 0;
    CHECK_OK(isdb_policy_save(&b.base, snap2, sizeof snap2, &nb));
    CHECK(memcmp(snap2, before, nb) == 0);
    /* Valid forgeries load: another block index with the round count to
       match (7 blocks of 35, then 12), a log-weight below 0. */
    memcpy(snap2, snap[0], n);
    t_put_le(snap2 + OFF_T, 7 * 35 + 12, 8);
    CHECK_OK(load_forged(&b, snap2, n, OFF_BLOCK, 7, 8));
    CHECK(b.block == 7 && b.in_block == 12 && b.block_len == 35);
    CHECK_OK(load_forged(&b, snap[0], n, OFF_LOGW, f64_bits(-2.0), 8));
    CHECK(b._logw[0] == -2.0);
    isdb_policy_uninit(&a.base);
    isdb_policy_uninit(&b.base);
}
#endif

/* A feature vector that makes the window's Gram matrix numerically
   singular (the smallest lambda accepted, 1e-30 in double and 1e-6 in
   float, x x^T of rank one, a rebuild at every update)
   used to make the block's SW-UCB fail; SW-UCB now rebuilds by rank-one
   steps instead, so BOB keeps going, before the draw and mid-block, and
   its estimate stays finite. (BOB still rolls the window draw back if its
   SW-UCB ever refuses an update, as the policy contract requires.) */
static void test_singular_window_keeps_going(void) {
    isdb_bob pol;
    isdb_bob_config c = isdb_bob_config_init(2, 2, 1000);
    isdb_real X[4] = {1, 0, 0, 1}, big[2] = {T_HUGE, T_HUGE}, scores[2];
    int arm, t;
    c.lambda = ISDB_REAL_IS_FLOAT ? 1e-6 : 1e-30;
    c.refresh = 1; /* every update rebuilds from the window */
    CHECK_OK(isdb_bob_init(&c, NULL, &pol));
    CHECK_OK(isdb_policy_update(&pol.base, 0, big, 1.0));
    CHECK(pol.base.t == 1);
    for (t = 0; t < 30; ++t) {
        CHECK_OK(isdb_policy_select(&pol.base, X, 2, &arm));
        CHECK_OK(isdb_policy_update(&pol.base, arm, t == 10 ? big : X + 2 * arm, 1.0));
        CHECK_OK(isdb_policy_scores(&pol.base, X, 2, scores));
        CHECK(t_all_finite(scores, 2));
    }
    isdb_policy_uninit(&pol.base);
}

/* Cheung et al. section 7 B, small: two one-hot arms, theta_t = 0.5 +-
   0.3 sin(5 B_T pi t / T) with B_T = T^(1/3), noise sd 0.1, T = 20000.
   The paper: "the regret of BOB algorithm's is much smaller than that of
   the SW-UCB algorithm's" (SW-UCB with the B_T-agnostic window). Checked
   as mean(BOB) + 3 standard errors < mean(SW-UCB) over 4 fixed seeds. */
static void test_beats_agnostic_swucb(void) {
    enum { TH = 20000, SEEDS = 4 };
    isdb_real reg[2][SEEDS], m[2], se[2];
    int s, k, w;
    CHECK_OK(isdb_swucb_tuned_window(ISDB_WINDOW_AGNOSTIC, 2, TH, 0.0, &w));
    for (s = 0; s < SEEDS; ++s)
        for (k = 0; k < 2; ++k) {
            static const isdb_real arms[4] = {1, 0, 0, 1};
            isdb_linear_env env;
            isdb_linear_env_config ec = isdb_linear_env_config_init(2, 2);
            isdb_sim_result res;
            isdb_bob bob;
            isdb_swucb sw;
            isdb_policy *p;
            ec.seed = 100 + (uint64_t)s;
            ec.noise_sd = 0.1;
            ec.arms = ISDB_ARMS_FIXED;
            ec.fixed_arms = arms;
            ec.path = ISDB_PATH_SINUSOID;
            ec.sin_omega = 5.0 * cbrt((isdb_real)TH) * T_PI / TH;
            CHECK_OK(isdb_linear_env_init(&ec, NULL, &env));
            if (k == 0) {
                isdb_bob_config c = isdb_bob_config_init(2, 2, TH);
                c.R = 0.1;
                c.seed = 1 + (uint64_t)s;
                CHECK_OK(isdb_bob_init(&c, NULL, &bob));
                p = &bob.base;
            } else {
                isdb_swucb_config c = isdb_swucb_config_init(2, 2, w);
                c.R = 0.1;
                c.delta = 1.0 / TH;
                c.width = ISDB_WIDTH_SIMPLE; /* the paper's SW-UCB (eq. 5) */
                CHECK_OK(isdb_swucb_init(&c, NULL, &sw));
                p = &sw.base;
            }
            CHECK_OK(isdb_sim_run(p, &env.base, TH, NULL, &res));
            reg[k][s] = res.regret;
            isdb_policy_uninit(p);
            isdb_env_uninit(&env.base);
        }
    for (k = 0; k < 2; ++k) {
        isdb_real v = 0.0;
        m[k] = 0.0;
        for (s = 0; s < SEEDS; ++s) m[k] += reg[k][s] / SEEDS;
        for (s = 0; s < SEEDS; ++s) v += (reg[k][s] - m[k]) * (reg[k][s] - m[k]) / (SEEDS - 1);
        se[k] = sqrt(v / SEEDS);
    }
    CHECK_MSG(m[0] + 3.0 * se[0] < m[1], "BOB %g (se %g), SW-UCB %g (se %g)", m[0], se[0], m[1], se[1]);
}

int main(void) {
    test_params_table();
    test_params_edges();
    test_exp3_direct();
    test_log_weights_no_overflow();
    test_log_weights_extreme();
    test_draw_distribution();
    test_fresh_swucb_per_block();
    test_past_horizon();
    test_save_load_boundary();
#if !ISDB_REAL_IS_FLOAT
    test_forged_snapshots();
#endif
    test_singular_window_keeps_going();
    test_beats_agnostic_swucb();
    return test_report();
}

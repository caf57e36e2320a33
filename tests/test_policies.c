/* Known answers for LinUCB, SW-UCB, D-LinUCB and LinTS:
   - LinUCB and SW-UCB on one-hot arms against the K-armed closed form
     (theta_k = window reward sum / (n_k + lambda), width beta / sqrt(n_k + lambda));
   - LinUCB against ridge regression solved from scratch every step;
   - D-LinUCB against a direct recomputation of the weighted sums of its
     closed form (Russac et al. Algorithm 1) at every step for 500 steps;
   - LinTS: the sampled parameters have mean theta and covariance v^2 V^-1;
   - the tuned window and discount helpers against the values of the spec;
   - degenerate inputs: d = 1, one arm, repeated arms, window shorter than
     d, huge and tiny rewards;
   - explain: mean + bonus is the score, bit for bit (LinUCB, SW-UCB,
     D-LinUCB, BOB, adaptive); LinTS's parts against a refit. */
#include "../isdbandit.h"
#include "test.h"
#include "ref.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#define MAXD 16
#define MAXK 32
#define MAXT 1000

static isdb_real hist_x[MAXT * MAXD], hist_y[MAXT];
static int hist_arm[MAXT];

/* Width beta_n of OFUL written out again from the paper's formulas. */
static isdb_real ref_width(isdb_width w, int d, isdb_real n, isdb_real lambda, isdb_real delta, isdb_real R, isdb_real S, isdb_real L,
                        long double logdet) {
    long double radius;
    if (w == ISDB_WIDTH_CONSTANT) return 1.0;
    if (w == ISDB_WIDTH_LOGDET)
        radius = 2.0L * logl(1.0L / delta) + logdet - d * logl(lambda);
    else if (w == ISDB_WIDTH_DETTRACE)
        radius = 2.0L * logl(1.0L / delta) + d * logl(1.0L + n * L * L / (d * (long double)lambda));
    else
        radius = d * logl((1.0L + n * L * L / lambda) / delta);
    return (isdb_real)(R * sqrtl(radius) + sqrtl(lambda) * S);
}

/* K-armed closed form on one-hot arms: rewards and counts of arm k among
   the history entries [from, to). */
static isdb_real ref_karmed_index(int k, int from, int to, isdb_real lambda, isdb_real beta) {
    long double sum = 0;
    int s, n = 0;
    for (s = from; s < to; ++s)
        if (hist_arm[s] == k) {
            sum += hist_y[s];
            ++n;
        }
    return (isdb_real)(sum / (n + (long double)lambda) + beta / sqrtl(n + (long double)lambda));
}

static void one_hot_arms(int K, isdb_real *X) {
    int i;
    memset(X, 0, sizeof(isdb_real) * (size_t)(K * K));
    for (i = 0; i < K; ++i) X[i * K + i] = 1.0;
}

static void test_linucb_karmed(void) {
    static const isdb_real means[5] = {0.1, 0.5, 0.45, -0.2, 0.3};
    isdb_real X[25], scores[5];
    int mode;
    one_hot_arms(5, X);
    for (mode = ISDB_WIDTH_LOGDET; mode <= ISDB_WIDTH_CONSTANT; ++mode) {
        isdb_linucb pol;
        isdb_linucb_config c = isdb_linucb_config_init(5, 5);
        isdb_rng noise;
        int t, k, worst_ok = 1;
        c.lambda = 0.7;
        c.delta = 0.05;
        c.R = 0.5;
        c.S = 2.0;
        c.alpha = 1.3;
        c.width = (isdb_width)mode;
        CHECK_OK(isdb_linucb_init(&c, NULL, &pol));
        isdb_rng_seed(&noise, 100 + (uint64_t)mode);
        for (t = 0; t < 300; ++t) {
            long double logdet = 0;
            isdb_real beta;
            int arm, counts[5] = {0};
            for (k = 0; k < t; ++k) counts[hist_arm[k]]++;
            for (k = 0; k < 5; ++k) logdet += logl(counts[k] + (long double)c.lambda);
            beta = c.alpha * ref_width(c.width, 5, t, c.lambda, c.delta, c.R, c.S, c.L, logdet);
            CHECK_OK(isdb_policy_scores(&pol.base, X, 5, scores));
            for (k = 0; k < 5; ++k) {
                isdb_real want = ref_karmed_index(k, 0, t, c.lambda, beta);
                if (fabs(scores[k] - want) > T_TOL(1e-12) * fmax(1.0, fabs(want))) worst_ok = 0;
            }
            CHECK_NEAR(isdb_linucb_get_beta(&pol), beta, T_TOL(1e-12) * beta);
            CHECK_OK(isdb_policy_select(&pol.base, X, 5, &arm));
            CHECK(arm == t_argmax(scores, 5));
            hist_arm[t] = arm;
            hist_y[t] = means[arm] + 0.5 * isdb_rng_normal(&noise);
            CHECK_OK(isdb_policy_update(&pol.base, arm, X + arm * 5, hist_y[t]));
        }
        CHECK_MSG(worst_ok, "width mode %d: a score left the closed form by more than T_TOL(1e-12)", mode);
        isdb_policy_uninit(&pol.base);
    }
}

static void test_swucb_karmed(void) {
    static const isdb_real means[4] = {0.2, 0.6, 0.4, 0.1};
    static const int windows[] = {1, 3, 7, 50};
    isdb_real X[16], scores[4];
    int wi;
    one_hot_arms(4, X);
    for (wi = 0; wi < 4; ++wi) {
        isdb_swucb pol;
        isdb_swucb_config c = isdb_swucb_config_init(4, 4, windows[wi]);
        isdb_rng noise;
        int t, k, scores_ok = 1;
        isdb_real beta;
        c.lambda = 0.3;
        c.R = 0.2;
        c.delta = 0.1;
        c.width = ISDB_WIDTH_SIMPLE; /* the paper's eq. 5 (the default is LOGDET) */
        CHECK_OK(isdb_swucb_init(&c, NULL, &pol));
        beta = ref_width(ISDB_WIDTH_SIMPLE, 4, c.window, c.lambda, c.delta, c.R, c.S, c.L, 0);
        isdb_rng_seed(&noise, 200 + (uint64_t)wi);
        for (t = 0; t < 400; ++t) {
            int arm, from = t > c.window ? t - c.window : 0;
            /* Means drift, so the window matters. */
            isdb_real shift = t > 200 ? 0.5 : 0.0;
            CHECK_OK(isdb_policy_scores(&pol.base, X, 4, scores));
            for (k = 0; k < 4; ++k) {
                isdb_real want = ref_karmed_index(k, from, t, c.lambda, beta);
                if (fabs(scores[k] - want) > T_TOL(1e-11) * fmax(1.0, fabs(want))) scores_ok = 0;
            }
            CHECK_OK(isdb_policy_select(&pol.base, X, 4, &arm));
            CHECK(arm == t_argmax(scores, 4));
            hist_arm[t] = arm;
            hist_y[t] = means[arm] + (arm == 3 ? shift : 0.0) + 0.2 * isdb_rng_normal(&noise);
            CHECK_OK(isdb_policy_update(&pol.base, arm, X + arm * 4, hist_y[t]));
            CHECK(pol.count == (t + 1 < c.window ? t + 1 : c.window));
        }
        CHECK_MSG(scores_ok, "window %d: a score left the closed form", windows[wi]);
        CHECK_NEAR(isdb_swucb_get_beta(&pol), beta, T_TOL(1e-13) * beta);
        isdb_policy_uninit(&pol.base);
    }
}

static void random_unit(isdb_rng *rng, int d, isdb_real *x) {
    isdb_real n = 0.0;
    int i;
    for (i = 0; i < d; ++i) {
        x[i] = isdb_rng_normal(rng);
        n += x[i] * x[i];
    }
    for (i = 0; i < d; ++i) x[i] /= sqrt(n);
}

/* Ridge regression over history entries [from, to): V (and its log-det)
   and theta, from scratch in long double. */
static long double ridge_from_scratch(int d, int from, int to, isdb_real lambda, isdb_real *V, isdb_real *theta) {
    static isdb_real b[MAXD];
    static long double Lref[REF_MAXN * REF_MAXN];
    long double logdet = 0;
    int i, j, s;
    for (i = 0; i < d; ++i) {
        long double bi = 0;
        for (j = 0; j < d; ++j) {
            long double v = i == j ? lambda : 0;
            for (s = from; s < to; ++s) v += (long double)hist_x[s * d + i] * hist_x[s * d + j];
            V[i * d + j] = (isdb_real)v;
        }
        for (s = from; s < to; ++s) bi += (long double)hist_y[s] * hist_x[s * d + i];
        b[i] = (isdb_real)bi;
    }
    ref_solve(d, V, b, theta);
    ref_chol(d, V, Lref);
    for (i = 0; i < d; ++i) logdet += 2.0L * logl(Lref[i * d + i]);
    return logdet;
}

/* LinUCB (and SW-UCB with a window longer than the run, its LinUCB limit)
   against ridge regression refitted from scratch every step. */
static void test_linucb_from_scratch(void) {
    enum { D = 6, K = 10, T = 300 };
    static const int refreshes[] = {0, 1000};
    isdb_real X[K * D], theta_star[D], V[D * D], theta[D], got[D], vx[D];
    int ri;
    for (ri = 0; ri < 2; ++ri) {
        isdb_linucb pol;
        isdb_linucb_config c = isdb_linucb_config_init(D, K);
        isdb_rng rng;
        int t, k, i, theta_ok = 1, width_ok = 1, choice_ok = 1;
        c.lambda = 0.5;
        c.refresh = refreshes[ri];
        CHECK_OK(isdb_linucb_init(&c, NULL, &pol));
        isdb_rng_seed(&rng, 300);
        random_unit(&rng, D, theta_star);
        for (t = 0; t < T; ++t) {
            long double logdet = ridge_from_scratch(D, 0, t, c.lambda, V, theta);
            isdb_real beta = ref_width(c.width, D, t, c.lambda, c.delta, c.R, c.S, c.L, logdet), best = -T_INF;
            isdb_real ref_score[K];
            int arm;
            isdb_linucb_get_theta(&pol, got);
            for (i = 0; i < D; ++i)
                if (fabs(got[i] - theta[i]) > T_TOL(1e-11) * (1.0 + fabs(theta[i]))) theta_ok = 0;
            for (k = 0; k < K; ++k) {
                isdb_real mean = 0.0, bonus = 0.0, ref_bonus;
                random_unit(&rng, D, X + k * D);
                CHECK_OK(isdb_linucb_explain(&pol, X + k * D, &mean, &bonus));
                ref_solve(D, V, X + k * D, vx);
                ref_bonus = beta * sqrt(t_dot(D, X + k * D, vx));
                if (fabs(bonus - ref_bonus) > T_TOL(1e-11) * ref_bonus) width_ok = 0;
                ref_score[k] = t_dot(D, X + k * D, theta) + ref_bonus;
                if (ref_score[k] > best) best = ref_score[k];
            }
            /* The choice must be a reference argmax up to rounding (exact
               ties occur: at t = 0 every unit arm scores the same). */
            CHECK_OK(isdb_policy_select(&pol.base, X, K, &arm));
            if (ref_score[arm] < best - T_TOL(1e-12) * fmax(1.0, fabs(best))) choice_ok = 0;
            memcpy(hist_x + t * D, X + arm * D, sizeof(isdb_real) * D);
            hist_y[t] = t_dot(D, X + arm * D, theta_star) + 0.3 * isdb_rng_normal(&rng);
            CHECK_OK(isdb_policy_update(&pol.base, arm, X + arm * D, hist_y[t]));
        }
        CHECK_MSG(theta_ok, "refresh %d: theta left the from-scratch ridge estimate", refreshes[ri]);
        CHECK_MSG(width_ok, "refresh %d: a width left the from-scratch value", refreshes[ri]);
        CHECK_MSG(choice_ok, "refresh %d: a choice differed from the from-scratch argmax", refreshes[ri]);
        isdb_policy_uninit(&pol.base);
    }
}

/* SW-UCB on general arms against the from-scratch refit of its window,
   including a regime (window 2 < d, lambda ILL_LAMBDA, features of very
   different scales) where the checked downdate is refused and the window
   is rebuilt. The tolerance is 10 eps kappa, with kappa = 1 + w max|x|^2 /
   lambda the bound on the window's condition number: rounding V's entries
   alone moves the exact solution by that much. Double takes lambda down
   to 1e-6 (kappa 2e9); float stops at 1e-2 (kappa 2e5), as 10 eps kappa
   must stay below 1 for the check to say anything. */
#if ISDB_REAL_IS_FLOAT
#define ILL_LAMBDA 1e-2
#else
#define ILL_LAMBDA 1e-6
#endif
static void test_swucb_refit(void) {
    static const int windows[] = {2, 9, 40};
    enum { D = 5, K = 6, T = 400 };
    isdb_real X[K * D], V[D * D], theta[D], got[D], vx[D];
    int wi;
    for (wi = 0; wi < 3; ++wi) {
        isdb_swucb pol;
        isdb_swucb_config c = isdb_swucb_config_init(D, K, windows[wi]);
        isdb_rng rng;
        int t, k, i, ok = 1;
        isdb_real tol;
        c.lambda = wi == 0 ? ILL_LAMBDA : 1.0;
        tol = fmax(T_TOL(1e-13), 10.0 * T_EPS * (1.0 + c.window * 900.0 / c.lambda));
        c.width = ISDB_WIDTH_LOGDET;
        c.refresh = 100000; /* only refusals rebuild */
        CHECK_OK(isdb_swucb_init(&c, NULL, &pol));
        isdb_rng_seed(&rng, 400 + (uint64_t)wi);
        for (t = 0; t < T; ++t) {
            int from = t > c.window ? t - c.window : 0, arm;
            long double logdet = ridge_from_scratch(D, from, t, c.lambda, V, theta);
            isdb_real beta = ref_width(c.width, D, 0, c.lambda, c.delta, c.R, c.S, c.L, logdet);
            isdb_swucb_get_theta(&pol, got);
            for (i = 0; i < D; ++i)
                if (fabs(got[i] - theta[i]) > tol * (1.0 + fabs(theta[i]))) ok = 0;
            if (fabs(isdb_swucb_get_beta(&pol) - beta) > tol * beta) ok = 0;
            for (k = 0; k < K; ++k) {
                isdb_real bonus = 0.0;
                random_unit(&rng, D, X + k * D);
                for (i = 0; i < D; ++i) X[k * D + i] *= pow(30.0, (isdb_real)((i + t) % D) / (D - 1));
                CHECK_OK(isdb_swucb_explain(&pol, X + k * D, NULL, &bonus));
                ref_solve(D, V, X + k * D, vx);
                if (fabs(bonus - beta * sqrt(t_dot(D, X + k * D, vx))) > tol * bonus) ok = 0;
            }
            CHECK_OK(isdb_policy_select(&pol.base, X, K, &arm));
            memcpy(hist_x + t * D, X + arm * D, sizeof(isdb_real) * D);
            hist_y[t] = sin(0.05 * t) * X[arm * D] + 0.1 * isdb_rng_normal(&rng);
            CHECK_OK(isdb_policy_update(&pol.base, arm, X + arm * D, hist_y[t]));
        }
        CHECK_MSG(ok, "window %d: estimate or width left the refit of the window", windows[wi]);
        if (wi == 0) CHECK_MSG(pol.refusals > 0, "the ill-conditioned run never refused a downdate");
        CHECK(pol.rebuilds == pol.refusals);
        isdb_policy_uninit(&pol.base);
    }
}

/* SW-UCB over a long drifting run (bench/soak.c's problem, shortened): d =
   10, 10 unit arms a round, w = 100, theta turning in two planes. Every
   997 rounds (all phases of the rebuild period) the estimate and the
   widths of 10 probes are compared with a long-double refit of the window;
   returns the largest relative difference. */
static double swucb_drift(int refresh, long rounds) {
    enum { D = 10, K = 10, W = 100, PROBES = 10 };
    static isdb_real ring_x[W * D], ring_y[W];
    isdb_swucb pol;
    isdb_swucb_config c = isdb_swucb_config_init(D, K, W);
    isdb_rng rng;
    isdb_real X[K * D], theta[D], y, est[D], x[D], bonus;
    double worst = 0.0;
    long s;
    int i, j, k, arm;
    c.refresh = refresh;
    CHECK_OK(isdb_swucb_init(&c, NULL, &pol));
    isdb_rng_seed(&rng, 2027);
    for (s = 0; s < rounds; ++s) {
        double a = 2e-4 * (double)s;
        memset(theta, 0, sizeof theta);
        theta[0] = (isdb_real)cos(a);
        theta[1] = (isdb_real)sin(a);
        theta[2] = (isdb_real)(0.5 * cos(3.0 * a));
        theta[3] = (isdb_real)(0.5 * sin(3.0 * a));
        for (k = 0; k < K; ++k) t_sphere_point(&rng, D, X + k * D);
        if (isdb_policy_select(&pol.base, X, K, &arm) != ISDB_OK) break;
        y = t_dot(D, X + arm * D, theta) + (isdb_real)0.1 * isdb_rng_normal(&rng);
        if (isdb_policy_update(&pol.base, arm, X + arm * D, y) != ISDB_OK) break;
        memcpy(ring_x + (s % W) * D, X + arm * D, sizeof(isdb_real) * D);
        ring_y[s % W] = y;
        if ((s + 1) % 997 == 0) {
            long double V[D * D], b[D], ref[D], xl[D], u[D], norm = 0, q;
            int rows = s + 1 < W ? (int)s + 1 : W, r;
            for (i = 0; i < D; ++i) {
                b[i] = 0;
                for (j = 0; j < D; ++j) V[i * D + j] = i == j ? (long double)c.lambda : 0;
            }
            for (r = 0; r < rows; ++r)
                for (i = 0; i < D; ++i) {
                    for (j = 0; j < D; ++j) V[i * D + j] += (long double)ring_x[r * D + i] * ring_x[r * D + j];
                    b[i] += (long double)ring_y[r] * ring_x[r * D + i];
                }
            CHECK(ref_spd_solve_ld(D, V, b, ref));
            isdb_swucb_get_theta(&pol, est);
            for (i = 0; i < D; ++i) norm += ref[i] * ref[i];
            for (i = 0; i < D; ++i) worst = fmax(worst, (double)(fabsl(est[i] - ref[i]) / sqrtl(norm)));
            for (k = 0; k < PROBES; ++k) {
                t_sphere_point(&rng, D, x);
                for (i = 0; i < D; ++i) xl[i] = x[i];
                ref_spd_solve_ld(D, V, xl, u);
                for (q = 0, i = 0; i < D; ++i) q += xl[i] * u[i];
                CHECK_OK(isdb_swucb_explain(&pol, x, NULL, &bonus));
                worst = fmax(worst, (double)(fabsl(bonus / isdb_swucb_get_beta(&pol) - sqrtl(q)) / sqrtl(q)));
            }
        }
    }
    CHECK_MSG(s == rounds, "refresh %d: stopped at round %ld", refresh, s);
    CHECK(pol.refusals == 0); /* the window's Gram matrix is well conditioned */
    isdb_policy_uninit(&pol.base);
    return worst;
}

/* The downdate stays accurate over 10^5 rounds (bench/soak.c runs 10^7,
   and 2 10^6 in float). With the periodic rebuilds (every max(w, d) =
   100 updates) the error stays at rounding level: about 100 eps measured
   in both precisions, checked to T_TOL(1e-12) (4500 eps). With them off,
   the update/downdate pairs drift: each perturbs the factor by a few eps
   of the window's norm, so N pairs by at most about N eps in this
   well-conditioned window (the largest over a run measured 0.5 N to 0.6 N
   eps from 10^3 to 2 10^6 rounds, in both precisions); checked over
   2 10^4 rounds. */
static void test_swucb_long_run(void) {
    double rebuilt = swucb_drift(0, 100000L), raw = swucb_drift(2147483647, 20000L);
    CHECK_MSG(rebuilt < T_TOL(1e-12), "SW-UCB with its rebuilds drifted by %.3g (%.0f eps)", rebuilt, rebuilt / T_EPS);
    CHECK_MSG(raw < 20000 * T_EPS, "SW-UCB without rebuilds drifted by %.3g (%.0f eps) in 2e4 rounds", raw,
              raw / T_EPS);
    printf("SW-UCB drift from a long-double refit: %.2g (%.0f eps) over 1e5 rounds with rebuilds, "
           "%.2g (%.0f eps) over 2e4 without\n", rebuilt, rebuilt / T_EPS, raw, raw / T_EPS);
}

/* D-LinUCB against the closed forms V = lambda I + sum gamma^(t-s) a a^T,
   Vt = lambda I + sum gamma^(2(t-s)) a a^T, b = sum gamma^(t-s) r a,
   recomputed from the whole history at every step: with refresh = 1 (the
   paper's factor at every update), and with the default refresh (256),
   whose factor between refactorisations is that of V with the ridge of
   coordinate j at lambda gamma^m, m the updates since it was last padded
   back to lambda (replayed below from the documented schedule). */
static void test_dlinucb_closed_form(void) {
    enum { D = 4, K = 8, T = 500 };
    static const isdb_real gammas[] = {0.97, 0.9995};
    isdb_real X[K * D], V[D * D], Vt[D * D], b[D], theta[D], got[D], u[D], theta_star[D];
    static long double w1[T], w2[T];
    int gi;
    for (gi = 0; gi < 4; ++gi) {
        isdb_dlinucb pol;
        isdb_dlinucb_config c = isdb_dlinucb_config_init(D, K, gammas[gi % 2]);
        isdb_rng rng;
        int t, s, i, j, k, ok = 1, exact = gi < 2;
        long double ridge[D];
        c.lambda = 0.4;
        c.R = 0.7;
        c.delta = 0.02;
        c.refresh = exact ? 1 : 0;
        for (i = 0; i < D; ++i) ridge[i] = c.lambda;
        CHECK_OK(isdb_dlinucb_init(&c, NULL, &pol));
        CHECK(pol.cfg.refresh == (exact ? 1 : 256));
        isdb_rng_seed(&rng, 500 + (uint64_t)gi);
        random_unit(&rng, D, theta_star);
        for (t = 0; t < T; ++t) {
            long double g = c.gamma, fading = 1.0L - powl(g, 2.0L * t), radius;
            isdb_real beta;
            int arm;
            /* The weights of this step, each powl once (not once per
               entry: the same values, 36 times fewer calls). */
            for (s = 0; s < t; ++s) {
                w1[s] = powl(g, t - 1 - s);
                w2[s] = powl(g, 2.0L * (t - 1 - s));
            }
            for (i = 0; i < D; ++i) {
                long double bi = 0;
                for (j = 0; j < D; ++j) {
                    long double v = i == j ? ridge[i] : 0, vt = i == j ? c.lambda : 0;
                    for (s = 0; s < t; ++s) {
                        long double xx = (long double)hist_x[s * D + i] * hist_x[s * D + j];
                        v += w1[s] * xx;
                        vt += w2[s] * xx;
                    }
                    V[i * D + j] = (isdb_real)v;
                    Vt[i * D + j] = (isdb_real)vt;
                }
                for (s = 0; s < t; ++s) bi += w1[s] * hist_y[s] * hist_x[s * D + i];
                b[i] = (isdb_real)bi;
            }
            ref_solve(D, V, b, theta);
            radius = 2.0L * logl(1.0L / c.delta) + D * logl(1.0L + fading / (c.lambda * D * (1.0L - g * g)));
            beta = (isdb_real)(sqrtl(c.lambda) * c.S + c.R * sqrtl(radius));
            if (fabs(isdb_dlinucb_get_beta(&pol) - beta) > T_TOL(1e-12) * beta) ok = 0;
            isdb_dlinucb_get_theta(&pol, got);
            for (i = 0; i < D; ++i)
                if (fabs(got[i] - theta[i]) > T_TOL(1e-10) * (1.0 + fabs(theta[i]))) ok = 0;
            for (k = 0; k < K; ++k) {
                isdb_real bonus = 0.0, q;
                random_unit(&rng, D, X + k * D);
                CHECK_OK(isdb_dlinucb_explain(&pol, X + k * D, NULL, &bonus));
                ref_solve(D, V, X + k * D, u);
                q = 0.0;
                for (i = 0; i < D; ++i)
                    for (j = 0; j < D; ++j) q += u[i] * Vt[i * D + j] * u[j];
                if (fabs(bonus - beta * sqrt(q)) > T_TOL(1e-10) * bonus) ok = 0;
            }
            CHECK_OK(isdb_policy_select(&pol.base, X, K, &arm));
            memcpy(hist_x + t * D, X + arm * D, sizeof(isdb_real) * D);
            hist_y[t] = t_dot(D, X + arm * D, theta_star) * (t < T / 2 ? 1.0 : -1.0) + 0.5 * isdb_rng_normal(&rng);
            CHECK_OK(isdb_policy_update(&pol.base, arm, X + arm * D, hist_y[t]));
            if (!exact) { /* update t + 1: the u-th since the last refactorisation pads group (u - 1) mod cycle */
                int n = t + 1, ur = (n - 1) % pol.cfg.refresh + 1;
                int cycle = (int)fmin(D, fmax((D + 3) / 4, floor(log(0.9) / log((double)c.gamma))));
                for (i = 0; i < D; ++i) ridge[i] = ur == pol.cfg.refresh ? c.lambda : ridge[i] * g;
                if (ur != pol.cfg.refresh)
                    for (i = (ur - 1) % cycle; i < D; i += cycle) ridge[i] = c.lambda;
            }
        }
        CHECK_MSG(ok, "gamma %g, refresh %d: D-LinUCB left its closed form", c.gamma, pol.cfg.refresh);
        isdb_policy_uninit(&pol.base);
    }
}

/* beta near gamma = 1: 1 - gamma^2 and 1 - gamma^(2n) without cancellation.
   1 - 1e-9 rounds to 1 in float; 1 - 1e-6 is, like 1 - 1e-9 in double,
   closer to 1 than sqrt(eps), so a plain 1 - gamma^2 would keep few
   digits in either. */
#if ISDB_REAL_IS_FLOAT
#define NEAR_ONE_GAP 1e-6
#else
#define NEAR_ONE_GAP 1e-9
#endif
static void test_dlinucb_beta_near_one(void) {
    isdb_dlinucb pol;
    isdb_dlinucb_config c = isdb_dlinucb_config_init(3, 2, 1.0 - NEAR_ONE_GAP);
    isdb_real x[3] = {1, 0, 0};
    long double g = c.gamma, fading, radius;
    int t;
    CHECK_OK(isdb_dlinucb_init(&c, NULL, &pol));
    for (t = 0; t < 10; ++t) CHECK_OK(isdb_policy_update(&pol.base, 0, x, 1.0));
    /* 1 - g^20 = 20 (1-g) + O((1-g)^2), from the stored g in long double. */
    fading = -expm1l(20.0L * log1pl(-(1.0L - g)));
    radius = 2.0L * logl(1.0L / c.delta) + 3 * logl(1.0L + fading / (3.0L * (1.0L - g) * (1.0L + g)));
    CHECK_NEAR(isdb_dlinucb_get_beta(&pol), (isdb_real)(1.0L + sqrtl(radius)), T_TOL(1e-12));
    isdb_policy_uninit(&pol.base);
}

static void test_tuned_parameters(void) {
    /* Cheung et al. section 7, d = 2 (the spec's table). */
    static const isdb_real T[5] = {30000, 60000, 90000, 120000, 240000};
    static const int agnostic[5] = {1532, 2432, 3187, 3861, 6130};
    static const int eq12[5] = {965, 1532, 2008, 2432, 3861};
    isdb_real gamma;
    int i, w;
    for (i = 0; i < 5; ++i) {
        CHECK_OK(isdb_swucb_tuned_window(ISDB_WINDOW_AGNOSTIC, 2, T[i], 0.0, &w));
        CHECK_MSG(w == agnostic[i], "T=%g agnostic window %d, expected %d", T[i], w, agnostic[i]);
        CHECK_OK(isdb_swucb_tuned_window(ISDB_WINDOW_KNOWN, 2, T[i], 1.0, &w));
        CHECK_MSG(w == agnostic[i], "T=%g known window (B=1) %d, expected %d", T[i], w, agnostic[i]);
        CHECK_OK(isdb_swucb_tuned_window(ISDB_WINDOW_EQ12, 2, T[i], 1.0, &w));
        CHECK_MSG(w == eq12[i], "T=%g eq.12 window %d, expected %d", T[i], w, eq12[i]);
    }
    CHECK_OK(isdb_swucb_tuned_window(ISDB_WINDOW_KNOWN, 2, 30000, cbrt(30000.0), &w));
    CHECK(w == 155);
    CHECK_OK(isdb_swucb_tuned_window(ISDB_WINDOW_KNOWN, 2, 240000, cbrt(240000.0), &w));
    CHECK(w == 390);
    /* Exact powers stay whole: (d T)^(2/3) = 100 for d T = 1000. */
    CHECK_OK(isdb_swucb_tuned_window(ISDB_WINDOW_AGNOSTIC, 1, 1000, 0.0, &w));
    CHECK(w == 100);
    /* Clamped to [1, T]. */
    CHECK_OK(isdb_swucb_tuned_window(ISDB_WINDOW_AGNOSTIC, 50, 3, 0.0, &w));
    CHECK(w == 3);
    CHECK_OK(isdb_swucb_tuned_window(ISDB_WINDOW_KNOWN, 1, 10, 1e9, &w));
    CHECK(w == 1);
    CHECK_RESULT(isdb_swucb_tuned_window(ISDB_WINDOW_KNOWN, 2, 100, 0.0, &w), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_swucb_tuned_window(ISDB_WINDOW_AGNOSTIC, 0, 100, 0.0, &w), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_swucb_tuned_window(ISDB_WINDOW_AGNOSTIC, 2, T_NAN, 0.0, &w), ISDB_ERR_INVALID_ARG);
    /* The agnostic rule does not read B_T: every value gives its window. */
    {
        const isdb_real any_B[6] = {-1, (isdb_real)-1e30, T_NAN, T_INF, -T_INF, T_REAL_MAX};
        for (i = 0; i < 6; ++i) {
            w = 0;
            CHECK_OK(isdb_swucb_tuned_window(ISDB_WINDOW_AGNOSTIC, 2, T[0], any_B[i], &w));
            CHECK_MSG(w == agnostic[0], "B_T %g: agnostic window %d, expected %d", (double)any_B[i], w, agnostic[0]);
        }
    }
    /* Russac et al. abrupt experiment: B_T = 4 + sqrt 2, d = 2, T = 6000. */
    CHECK_OK(isdb_dlinucb_tuned_gamma(2, 6000, 4.0 + sqrt(2.0), &gamma));
    CHECK_NEAR(gamma, 0.99412, 5e-6);
    CHECK_RESULT(isdb_dlinucb_tuned_gamma(2, 6000, 0.0, &gamma), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_dlinucb_tuned_gamma(2, 10, 25.0, &gamma), ISDB_ERR_INVALID_ARG);
}

/* LinTS draws theta~ ~ N(theta, v^2 V^-1): sample mean and covariance of
   20000 draws against theta and v^2 V^-1 (tolerances of 6 standard errors;
   fixed seeds, so the outcome is fixed). */
static void test_lints_distribution(void) {
    enum { D = 3, N = 20000 };
    int mode;
    for (mode = 0; mode < 2; ++mode) {
        isdb_lints pol;
        isdb_lints_config c = isdb_lints_config_init(D, 4);
        isdb_rng rng;
        isdb_real V[D * D], Vinv[D * D], e[D], col[D], theta[D], sample[D], X[4 * D];
        isdb_real mean[D] = {0}, cov[D * D] = {0}, v;
        int t, i, j, s, arm;
        c.inflation = mode ? ISDB_LINTS_NONE : ISDB_LINTS_THEORY;
        c.R = 0.2;
        c.seed = 77;
        CHECK_OK(isdb_lints_init(&c, NULL, &pol));
        v = mode ? c.R : c.R * sqrt(24.0 / c.epsilon * D * log(1.0 / c.delta));
        CHECK_NEAR(pol.v, v, T_TOL(1e-15) * v);
        isdb_rng_seed(&rng, 600);
        for (t = 0; t < 30; ++t) {
            random_unit(&rng, D, hist_x + t * D);
            hist_y[t] = hist_x[t * D] + 0.2 * isdb_rng_normal(&rng);
            CHECK_OK(isdb_policy_update(&pol.base, 0, hist_x + t * D, hist_y[t]));
        }
        ridge_from_scratch(D, 0, 30, c.lambda, V, theta);
        for (j = 0; j < D; ++j) {
            for (i = 0; i < D; ++i) e[i] = i == j ? 1.0 : 0.0;
            ref_solve(D, V, e, col);
            for (i = 0; i < D; ++i) Vinv[i * D + j] = v * v * col[i];
        }
        random_matrix(&rng, 4, D, X);
        for (s = 0; s < N; ++s) {
            CHECK_OK(isdb_policy_select(&pol.base, X, 4, &arm));
            isdb_lints_get_last_sample(&pol, sample);
            CHECK(arm == t_best_dot(X, 4, D, sample));
            for (i = 0; i < D; ++i) {
                mean[i] += sample[i] / N;
                for (j = 0; j < D; ++j) cov[i * D + j] += (sample[i] - theta[i]) * (sample[j] - theta[j]) / N;
            }
        }
        for (i = 0; i < D; ++i) {
            CHECK_NEAR(mean[i], theta[i], 6.0 * sqrt(Vinv[i * D + i] / N));
            for (j = 0; j < D; ++j) {
                isdb_real se = sqrt((Vinv[i * D + i] * Vinv[j * D + j] + Vinv[i * D + j] * Vinv[i * D + j]) / N);
                CHECK_NEAR(cov[i * D + j], Vinv[i * D + j], 6.0 * se);
            }
        }
        isdb_policy_uninit(&pol.base);
    }
}

/* probs estimates what select does: frequencies of 4000 selects (no
   updates) against probs, within 5 standard errors plus the probs' own
   Monte Carlo error. */
static void test_lints_probs(void) {
    enum { D = 2, K = 3, N = 4000 };
    isdb_lints pol;
    isdb_lints_config c = isdb_lints_config_init(D, K);
    isdb_real X[K * D] = {1, 0, 0, 1, 0.7, 0.7}, probs[K], again[K], freq[K] = {0}, sum = 0.0;
    int s, k, arm;
    c.inflation = ISDB_LINTS_NONE;
    c.mc_samples = 20000;
    CHECK_OK(isdb_lints_init(&c, NULL, &pol));
    CHECK_OK(isdb_policy_update(&pol.base, 0, X, 0.5));
    CHECK_OK(isdb_policy_update(&pol.base, 1, X + 2, 0.4));
    CHECK_OK(isdb_policy_probs(&pol.base, X, K, probs));
    CHECK_OK(isdb_policy_probs(&pol.base, X, K, again));
    CHECK(memcmp(probs, again, sizeof probs) == 0);
    for (k = 0; k < K; ++k) sum += probs[k];
    CHECK_NEAR(sum, 1.0, T_TOL(1e-12));
    for (s = 0; s < N; ++s) {
        CHECK_OK(isdb_policy_select(&pol.base, X, K, &arm));
        freq[arm] += 1.0 / N;
    }
    for (k = 0; k < K; ++k) {
        isdb_real se = sqrt(probs[k] * (1 - probs[k]) * (1.0 / N + 1.0 / c.mc_samples));
        CHECK_NEAR(freq[k], probs[k], 5.0 * se + 1e-3);
    }
    isdb_policy_uninit(&pol.base);
}

/* Degenerate but valid inputs on every policy of this file. */
static isdb_policy *make_policy(int which, int d, int K, void *storage) {
    isdb_result r = ISDB_ERR_INVALID_ARG;
    if (which == 0) {
        isdb_linucb_config c = isdb_linucb_config_init(d, K);
        r = isdb_linucb_init(&c, NULL, (isdb_linucb *)storage);
    } else if (which == 1) {
        isdb_swucb_config c = isdb_swucb_config_init(d, K, 2);
        r = isdb_swucb_init(&c, NULL, (isdb_swucb *)storage);
    } else if (which == 2) {
        isdb_dlinucb_config c = isdb_dlinucb_config_init(d, K, 0.9);
        r = isdb_dlinucb_init(&c, NULL, (isdb_dlinucb *)storage);
    } else {
        isdb_lints_config c = isdb_lints_config_init(d, K);
        r = isdb_lints_init(&c, NULL, (isdb_lints *)storage);
    }
    return r == ISDB_OK ? (isdb_policy *)storage : NULL;
}

static void test_degenerate_inputs(void) {
    static union {
        isdb_linucb a;
        isdb_swucb b;
        isdb_dlinucb c;
        isdb_lints e;
    } storage;
    int which;
    for (which = 0; which < 4; ++which) {
        isdb_policy *p;
        isdb_real x1[1] = {0.7}, X[3 * 5], probs[3], scores[3], big = T_HUGE, tiny = T_TINY;
        int t, arm, k;
        size_t n1, n2;
        static unsigned char snap1[8192], snap2[8192];
        /* d = 1, one arm: always arm 0. */
        p = make_policy(which, 1, 1, &storage);
        CHECK(p != NULL);
        if (!p) continue;
        for (t = 0; t < 50; ++t) {
            CHECK_OK(isdb_policy_select(p, x1, 1, &arm));
            CHECK(arm == 0);
            CHECK_OK(isdb_policy_update(p, 0, x1, 0.3 * t));
        }
        CHECK_OK(isdb_policy_probs(p, x1, 1, probs));
        CHECK(probs[0] == 1.0);
        isdb_policy_uninit(p);
        /* Repeated arms: identical rows tie, the lowest index wins. */
        p = make_policy(which, 5, 3, &storage);
        for (k = 0; k < 3; ++k)
            for (t = 0; t < 5; ++t) X[k * 5 + t] = 0.1 * (t + 1);
        if (which != 3) {
            CHECK_OK(isdb_policy_select(p, X, 3, &arm));
            CHECK(arm == 0);
            CHECK_OK(isdb_policy_probs(p, X, 3, probs));
            CHECK(probs[0] == 1.0 && probs[1] == 0.0 && probs[2] == 0.0);
        } else {
            CHECK_OK(isdb_policy_select(p, X, 3, &arm));
            CHECK(arm == 0); /* equal x.theta~ for every arm */
        }
        /* Huge and tiny rewards stay finite; beyond ISDB_INPUT_MAX is
           rejected and changes nothing. The window (2) is shorter than d (5). */
        for (t = 0; t < 20; ++t) {
            CHECK_OK(isdb_policy_update(p, t % 3, X + (t % 3) * 5, t % 2 ? big : tiny));
            CHECK_OK(isdb_policy_scores(p, X, 3, scores));
            CHECK(t_all_finite(scores, 3));
        }
        CHECK_OK(isdb_policy_save(p, snap1, sizeof snap1, &n1));
        CHECK_RESULT(isdb_policy_update(p, 0, X, T_BEYOND), ISDB_ERR_RANGE);
        X[2] = -T_BEYOND;
        CHECK_RESULT(isdb_policy_update(p, 0, X, 1.0), ISDB_ERR_RANGE);
        CHECK_RESULT(isdb_policy_select(p, X, 3, &arm), ISDB_ERR_RANGE);
        X[2] = 0.3;
        CHECK_OK(isdb_policy_save(p, snap2, sizeof snap2, &n2));
        CHECK(n1 == n2 && memcmp(snap1, snap2, n1) == 0);
        isdb_policy_uninit(p);
    }
}

/* explain gives the two parts of each arm's index: for every ridge policy
   whose scores are indices (LinUCB, SW-UCB, D-LinUCB, BOB after its
   block's draw, adaptive; ISD is checked in test_isd), *mean + *bonus is
   isdb_policy_scores' value for that arm, bit for bit, K = 13 arms (the
   scoring kernels' passes of eight and four arms and a single one), every
   round. */
typedef isdb_result (*explain_fn)(void *pol, const isdb_real *x, isdb_real *mean, isdb_real *bonus);
static isdb_result ex_linucb(void *p, const isdb_real *x, isdb_real *m, isdb_real *b) {
    return isdb_linucb_explain((isdb_linucb *)p, x, m, b);
}
static isdb_result ex_swucb(void *p, const isdb_real *x, isdb_real *m, isdb_real *b) {
    return isdb_swucb_explain((isdb_swucb *)p, x, m, b);
}
static isdb_result ex_dlinucb(void *p, const isdb_real *x, isdb_real *m, isdb_real *b) {
    return isdb_dlinucb_explain((isdb_dlinucb *)p, x, m, b);
}
static isdb_result ex_bob(void *p, const isdb_real *x, isdb_real *m, isdb_real *b) {
    return isdb_bob_explain((isdb_bob *)p, x, m, b);
}
static isdb_result ex_adaptive(void *p, const isdb_real *x, isdb_real *m, isdb_real *b) {
    return isdb_adaptive_explain((isdb_adaptive *)p, x, m, b);
}

#define EX_D 5
#define EX_K 13
static void explain_is_score(const char *name, isdb_policy *base, void *pol, explain_fn ex) {
    isdb_rng rng;
    isdb_real X[EX_K * EX_D], theta_star[EX_D], sc[EX_K];
    double worst = 0;
    int t, k, arm, off = 0;
    isdb_rng_seed(&rng, 41);
    random_unit(&rng, EX_D, theta_star);
    for (t = 0; t < 600; ++t) {
        for (k = 0; k < EX_K * EX_D; ++k) X[k] = isdb_rng_normal(&rng);
        CHECK_OK(isdb_policy_select(base, X, EX_K, &arm));
        CHECK_OK(isdb_policy_scores(base, X, EX_K, sc));
        for (k = 0; k < EX_K; ++k) {
            isdb_real mean = 0, bonus = 0, sum;
            CHECK_OK(ex(pol, X + k * EX_D, &mean, &bonus));
            sum = mean + bonus;
            if (sum != sc[k]) {
                double e = fabs((double)(sum - sc[k])) / fmax(1.0, fabs((double)sc[k]));
                ++off;
                if (e > worst) worst = e;
            }
        }
        CHECK_OK(isdb_policy_update(base, arm, X + arm * EX_D,
                                    t_dot(EX_D, X + arm * EX_D, theta_star) + 0.3 * isdb_rng_normal(&rng)));
    }
    printf("explain %-8s mean + bonus vs scores: %d of %d differ, worst %.3g\n", name, off, 600 * EX_K, worst);
    /* Exactly: explain and the scoring kernels compute w = L^-1 x, w.z and
       |w| in the same order (the AVX2 kernels too: no FMA). */
    CHECK_MSG(off == 0, "%s: explain's mean + bonus off the score in %d arms, by up to %g", name, off, worst);
    isdb_policy_uninit(base);
}

static void test_explain_is_score(void) {
    isdb_linucb lin;
    isdb_swucb sw;
    isdb_dlinucb dl;
    isdb_bob bob;
    isdb_adaptive ada;
    isdb_linucb_config lc = isdb_linucb_config_init(EX_D, EX_K);
    isdb_swucb_config sc = isdb_swucb_config_init(EX_D, EX_K, 50);
    isdb_dlinucb_config dc = isdb_dlinucb_config_init(EX_D, EX_K, (isdb_real)0.98);
    isdb_bob_config bc = isdb_bob_config_init(EX_D, EX_K, 600);
    isdb_adaptive_config ac = isdb_adaptive_config_init(EX_D, EX_K);
    ac.R = 0.3;
    CHECK_OK(isdb_linucb_init(&lc, NULL, &lin));
    explain_is_score("linucb", &lin.base, &lin, ex_linucb);
    CHECK_OK(isdb_swucb_init(&sc, NULL, &sw));
    explain_is_score("swucb", &sw.base, &sw, ex_swucb);
    CHECK_OK(isdb_dlinucb_init(&dc, NULL, &dl));
    explain_is_score("dlinucb", &dl.base, &dl, ex_dlinucb);
    CHECK_OK(isdb_bob_init(&bc, NULL, &bob));
    explain_is_score("bob", &bob.base, &bob, ex_bob);
    CHECK_OK(isdb_adaptive_init(&ac, NULL, &ada));
    explain_is_score("adaptive", &ada.base, &ada, ex_adaptive);
    /* BOB before a block's draw: its scores are the windows' mixture. */
    CHECK_OK(isdb_bob_init(&bc, NULL, &bob));
    {
        isdb_real x[EX_D] = {1, 0, 0, 0, 0}, m, b;
        CHECK_RESULT(isdb_bob_explain(&bob, x, &m, &b), ISDB_ERR_BAD_STATE);
        CHECK_RESULT(isdb_bob_explain(NULL, x, &m, &b), ISDB_ERR_INVALID_ARG);
    }
    isdb_policy_uninit(&bob.base);
}

/* LinTS's explain: x.theta and v ||x||_{V^-1}, the mean and standard
   deviation of the sampled score x.theta~ (its scores are probabilities),
   against ridge regression from scratch, in both inflations; its mean is
   LinUCB's on the same data, bit for bit (one ridge code). */
static void test_lints_explain(void) {
    enum { D = 4, T = 40 };
    int mode;
    for (mode = 0; mode < 2; ++mode) {
        isdb_lints pol;
        isdb_linucb lin;
        isdb_lints_config c = isdb_lints_config_init(D, 4);
        isdb_linucb_config lc = isdb_linucb_config_init(D, 4);
        isdb_rng rng;
        isdb_real V[D * D], theta[D], x[D], vx[D], mean, bonus, lmean, v;
        int t, k;
        c.inflation = mode ? ISDB_LINTS_NONE : ISDB_LINTS_THEORY;
        c.R = 0.3;
        CHECK_OK(isdb_lints_init(&c, NULL, &pol));
        CHECK_OK(isdb_linucb_init(&lc, NULL, &lin));
        v = mode ? c.R : c.R * sqrt(24.0 / c.epsilon * D * log(1.0 / c.delta));
        isdb_rng_seed(&rng, 610);
        for (t = 0; t < T; ++t) {
            random_unit(&rng, D, hist_x + t * D);
            hist_y[t] = hist_x[t * D] - 0.5 * hist_x[t * D + 1] + 0.3 * isdb_rng_normal(&rng);
            CHECK_OK(isdb_policy_update(&pol.base, 0, hist_x + t * D, hist_y[t]));
            CHECK_OK(isdb_policy_update(&lin.base, 0, hist_x + t * D, hist_y[t]));
        }
        ridge_from_scratch(D, 0, T, c.lambda, V, theta);
        for (k = 0; k < 5; ++k) {
            random_unit(&rng, D, x);
            CHECK_OK(isdb_lints_explain(&pol, x, &mean, &bonus));
            ref_solve(D, V, x, vx);
            CHECK_NEAR(mean, t_dot(D, x, theta), T_TOL(1e-12));
            CHECK_NEAR(bonus, v * sqrt(t_dot(D, x, vx)), T_TOL(1e-12) * v);
            CHECK_OK(isdb_linucb_explain(&lin, x, &lmean, NULL));
            CHECK(lmean == mean);
        }
        CHECK_RESULT(isdb_lints_explain(&pol, NULL, &mean, &bonus), ISDB_ERR_INVALID_ARG);
        CHECK_RESULT(isdb_lints_explain(NULL, x, &mean, &bonus), ISDB_ERR_INVALID_ARG);
        CHECK_OK(isdb_lints_explain(&pol, x, NULL, NULL));
        isdb_policy_uninit(&pol.base);
        isdb_policy_uninit(&lin.base);
    }
}

int main(void) {
    test_linucb_karmed();
    test_swucb_karmed();
    test_linucb_from_scratch();
    test_swucb_refit();
    test_swucb_long_run();
    test_dlinucb_closed_form();
    test_dlinucb_beta_near_one();
    test_tuned_parameters();
    test_lints_distribution();
    test_lints_probs();
    test_degenerate_inputs();
    test_explain_is_score();
    test_lints_explain();
    return test_report();
}

/* ISD-linUCB (Lazzaretto, Peters, Pfister 2026), its estimator and its
   environment:
   - oracle mode against the UCB formula computed directly here (ridge in
     S_res from scratch in long double, the paper's radii written again):
     known subspace and beta_inv; known subspace with beta_inv by eq. 6;
     the code's width; p_res = 0;
   - p_inv = 0 is LinUCB: the same arms and bit-identical scores;
   - the sliding-window and discounted residual learners against direct
     recomputation;
   - recompute: the fit after W updates equals isdb_isd_estimate on the
     offline plus online rows;
   - invariance detection on planted data (isdb_isd_estimate);
   - what the log can identify (cov_spread, identifiable) on constant and
     changing covariances;
   - the invariance monitor (our extension): after the invariant component
     changes, regret returns to the level of a full-dimensional learner;
   - the environment (the monitor's F quantile: test_private.c). */
#include "../isdbandit.h"
#include "ref.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#define MAXD 12
#define MAXT 4000
#define MAXN 12000

static double X0[MAXN * MAXD], R0[MAXN], Uinv[MAXD * MAXD];
static double hx[MAXT * MAXD], hy[MAXT];

/* An environment: d, blocks, residual flags, offline rows. */
/* The paper's residual learner and widths (the defaults are ours: the
   ADAPTIVE learner and the DATA width); the tests of the paper's
   formulas start from these. */
/* One round of pol against e: the next arms, pol's choice (returned)
   and its reward. */
static int play_round(isdb_isd *pol, isdb_env *e, int K, double *y) {
    int arm = 0;
    CHECK_OK(isdb_env_next(e));
    CHECK_OK(isdb_policy_select(&pol->base, e->X, K, &arm));
    CHECK_OK(isdb_env_reward(e, arm, y));
    return arm;
}

static isdb_isd_config paper_config_init(int d, int K, int n0, const double *X, const double *R) {
    isdb_isd_config c = isdb_isd_config_init(d, K, n0, X, R);
    c.learner = ISDB_ISD_RES_LINUCB;
    c.radius = ISDB_ISD_RADIUS_PAPER;
    return c;
}

static void make_env(isdb_isd_env *env, int d, int K, int nb, const int *sizes, const int *res, uint64_t seed,
                     int cov_period) {
    isdb_isd_env_config c = isdb_isd_env_config_init(d, K, nb, sizes, res);
    c.seed = seed;
    c.basis_seed = seed + 1000;
    c.cov_period = cov_period;
    CHECK_OK(isdb_isd_env_init(&c, NULL, env));
}

/* U_res (d x q) of the basis U with the first pi columns invariant. */
static void cols(int d, const double *U, int from, int q, double *out) {
    int i, j;
    for (i = 0; i < d; ++i)
        for (j = 0; j < q; ++j)
            out[i * q + j] = U[i * d + from + j];
}

/* Direct score of x: beta + U_res delta with delta the ridge estimate on
   the n online rows in S_res (long double), plus r_res ||z||_{V^-1} and
   r_inv ||U_inv^T x||_{Sb^-1} (Sb given as its inverse-free factor: we
   solve with ref_solve). Returns the score; mean via *mean. */
static double direct_score(int d, int pi, const double *U, const double *beta, const double *x, int n, double lambda,
                           double r_inv, const double *Sb, double r_res, int joint, double *mean) {
    static double V[MAXD * MAXD], b[MAXD], delta[MAXD], z[MAXD], u[MAXD], Ur[MAXD * MAXD];
    long double Vl[MAXD * MAXD], bl[MAXD], m = 0, nr = 0, ni = 0;
    int q = d - pi, i, j, t;
    cols(d, U, pi, q, Ur);
    for (i = 0; i < q * q; ++i)
        Vl[i] = 0;
    for (i = 0; i < q; ++i) {
        Vl[i * q + i] = lambda;
        bl[i] = 0;
    }
    for (t = 0; t < n; ++t) {
        long double zt[MAXD], r = hy[t];
        for (i = 0; i < d; ++i)
            r -= (long double)hx[t * d + i] * beta[i];
        for (j = 0; j < q; ++j) {
            zt[j] = 0;
            for (i = 0; i < d; ++i)
                zt[j] += (long double)hx[t * d + i] * Ur[i * q + j];
        }
        for (i = 0; i < q; ++i) {
            for (j = 0; j < q; ++j)
                Vl[i * q + j] += zt[i] * zt[j];
            bl[i] += zt[i] * r;
        }
    }
    for (i = 0; i < q * q; ++i)
        V[i] = (double)Vl[i];
    for (i = 0; i < q; ++i)
        b[i] = (double)bl[i];
    if (q > 0)
        ref_solve(q, V, b, delta);
    for (i = 0; i < d; ++i) {
        long double g = beta[i];
        for (j = 0; j < q; ++j)
            g += (long double)Ur[i * q + j] * delta[j];
        m += g * x[i];
    }
    for (j = 0; j < q; ++j) {
        long double s = 0;
        for (i = 0; i < d; ++i)
            s += (long double)x[i] * Ur[i * q + j];
        z[j] = (double)s;
    }
    if (q > 0) {
        ref_solve(q, V, z, u);
        for (j = 0; j < q; ++j)
            nr += (long double)z[j] * u[j];
    }
    if (Sb && pi > 0) {
        static double zi[MAXD], ui[MAXD];
        for (j = 0; j < pi; ++j) {
            long double s = 0;
            for (i = 0; i < d; ++i)
                s += (long double)x[i] * U[i * d + j];
            zi[j] = (double)s;
        }
        ref_solve(pi, Sb, zi, ui);
        for (j = 0; j < pi; ++j)
            ni += (long double)zi[j] * ui[j];
    }
    *mean = (double)m;
    if (joint)
        return (double)(m + r_res * sqrtl(ni + nr));
    return (double)(m + r_inv * sqrtl(ni) + r_res * sqrtl(nr));
}

/* The paper's widths written again (norm radii): eq. 30's first term with
   eta, and eq. 25 with DeltaPi = 0 (eq. 20). */
static double ref_rho1(int q, double t, double lambda, double eta, double R, double S, double L) {
    return R * sqrt(2 * log(1 / eta) + q * log(1 + t * L * L / (lambda * q))) + sqrt(lambda) * S;
}

static double ref_rinv(int pi, double lambda0, double delta, double R, double S, double L) {
    double a = 2 * log(1 / delta) + pi * log(L * L / (pi * lambda0));
    return R * sqrt(a > 0 ? a : 0) + 2 * L * L * S * sqrt(2 / lambda0 * log((pi + 1) / delta));
}

/* Oracle U and beta: every score of 300 rounds equals the direct formula
   (tolerance 1e-9 relative: V is at most ~1e3-conditioned here, the
   library's Cholesky updates lose a few digits over 300 steps). */
static void test_oracle_known_beta(void) {
    static const int sizes[3] = {3, 2, 3}, res[3] = {0, 1, 0};
    isdb_isd_env env;
    isdb_isd pol;
    isdb_isd_config c;
    double U[MAXD * MAXD], scores[8], worst = 0;
    int t, k, d = 8, K = 6;
    make_env(&env, d, K, 3, sizes, res, 3, 400);
    isdb_isd_env_get_invariant_basis(&env, Uinv);
    c = paper_config_init(d, K, 0, NULL, NULL);
    c.oracle = 1;
    c.p_inv = env.p_inv;
    c.U_inv = Uinv;
    c.beta_inv = env.beta_inv;
    c.lambda = 0.7;
    c.R = 0.9;
    c.S = 2.0;
    c.L = 3.0;
    c.delta = 0.05;
    CHECK_OK(isdb_isd_init(&c, NULL, &pol));
    CHECK(isdb_isd_get_p_inv(&pol) == 6);
    isdb_isd_get_basis(&pol, U);
    for (t = 0; t < 300; ++t) {
        int arm;
        double y, rr, ri, mean, bi, br;
        CHECK_OK(isdb_env_next(&env.base));
        CHECK_OK(isdb_policy_scores(&pol.base, env.base.X, K, scores));
        isdb_isd_get_radii(&pol, &ri, &rr);
        CHECK(ri == 0.0);
        CHECK_NEAR(rr, ref_rho1(2, t, 0.7, 0.05, 0.9, 2.0, 3.0), 1e-12 * rr);
        for (k = 0; k < K; ++k) {
            double want = direct_score(d, 6, U, env.beta_inv, env.base.X + k * d, t, 0.7, 0, NULL, rr, 0, &mean);
            worst = fmax(worst, fabs(scores[k] - want) / fmax(1.0, fabs(want)));
        }
        CHECK_OK(isdb_isd_explain(&pol, env.base.X, &mean, &bi, &br));
        CHECK(bi == 0.0);
        CHECK_OK(isdb_policy_select(&pol.base, env.base.X, K, &arm));
        CHECK(arm == t_argmax(scores, K));
        CHECK_OK(isdb_env_reward(&env.base, arm, &y));
        memcpy(hx + t * d, env.base.X + arm * d, sizeof(double) * (size_t)d);
        hy[t] = y;
        CHECK_OK(isdb_policy_update(&pol.base, arm, env.base.X + arm * d, y));
    }
    CHECK_MSG(worst < 1e-9, "largest relative score difference %g", worst);
    isdb_policy_uninit(&pol.base);
    isdb_env_uninit(&env.base);
}

/* Oracle U, beta_inv by eq. 6 on the offline rows: beta against OLS in
   S_inv computed here, lambda0, r_inv (eq. 20, DeltaPi = 0), and the
   scores with the invariant bonus r_inv ||U_inv^T x||_{Sigma_beta^-1}
   (PAPER); then the code's joint width (CODE) on the same data. */
static void test_oracle_estimated_beta(void) {
    static const int sizes[2] = {4, 2}, res[2] = {0, 1};
    static double Sig[MAXD * MAXD], Sb[MAXD * MAXD], E[MAXD * MAXD], w[MAXD], zb[MAXD], beta_ref[MAXD];
    isdb_isd_env env;
    int d = 6, K = 5, n0 = 1500, i, j, r, mode;
    make_env(&env, d, K, 2, sizes, res, 5, 300);
    CHECK_OK(isdb_isd_env_offline(&env, n0, ISDB_ISD_LOG_UNIFORM, 1.0, 9, X0, R0));
    isdb_isd_env_get_invariant_basis(&env, Uinv);
    for (mode = 0; mode < 2; ++mode) {
        isdb_isd pol;
        isdb_isd_config c = paper_config_init(d, K, n0, X0, R0);
        isdb_isd_info info;
        double U[MAXD * MAXD], lambda0, rinv, beta[MAXD], scores[8], worst = 0;
        long double acc;
        int t, k, pi = 4;
        c.oracle = 1;
        c.p_inv = pi;
        c.U_inv = Uinv;
        c.lambda = 0.5;
        c.radius = mode ? ISDB_ISD_RADIUS_CODE : ISDB_ISD_RADIUS_PAPER;
        CHECK_OK(isdb_isd_init(&c, NULL, &pol));
        isdb_isd_get_basis(&pol, U);
        isdb_isd_get_beta_inv(&pol, beta);
        /* Sigma = X0^T X0, Sigma_beta = U_inv^T Sigma U_inv, beta = U_inv
           Sb^-1 U_inv^T X0^T R0. */
        for (i = 0; i < d; ++i)
            for (j = 0; j < d; ++j) {
                acc = 0;
                for (r = 0; r < n0; ++r)
                    acc += (long double)X0[r * d + i] * X0[r * d + j];
                Sig[i * d + j] = (double)acc;
            }
        for (i = 0; i < pi; ++i) {
            for (j = 0; j < pi; ++j) {
                int a, b2;
                acc = 0;
                for (a = 0; a < d; ++a)
                    for (b2 = 0; b2 < d; ++b2)
                        acc += (long double)U[a * d + i] * Sig[a * d + b2] * U[b2 * d + j];
                Sb[i * pi + j] = (double)acc;
            }
            acc = 0;
            for (r = 0; r < n0; ++r) {
                long double xu = 0;
                int a;
                for (a = 0; a < d; ++a)
                    xu += (long double)X0[r * d + a] * U[a * d + i];
                acc += xu * R0[r];
            }
            zb[i] = (double)acc;
        }
        ref_solve(pi, Sb, zb, w);
        for (i = 0; i < d; ++i) {
            acc = 0;
            for (j = 0; j < pi; ++j)
                acc += (long double)U[i * d + j] * w[j];
            beta_ref[i] = (double)acc;
        }
        for (i = 0; i < d; ++i)
            CHECK_NEAR(beta[i], beta_ref[i], 1e-10);
        for (i = 0; i < d * d; ++i)
            E[i] = Sig[i] / n0;
        CHECK(isdb_sym_eig(d, E, w, Sb + 0) >= 0);
        lambda0 = w[0];
        /* Sb was overwritten as scratch: rebuild it. */
        for (i = 0; i < pi; ++i)
            for (j = 0; j < pi; ++j) {
                int a, b2;
                acc = 0;
                for (a = 0; a < d; ++a)
                    for (b2 = 0; b2 < d; ++b2)
                        acc += (long double)U[a * d + i] * Sig[a * d + b2] * U[b2 * d + j];
                Sb[i * pi + j] = (double)acc;
            }
        isdb_isd_get_info(&pol, &info);
        CHECK_NEAR(info.lambda0, lambda0, 1e-10 * lambda0);
        CHECK(info.delta_pi == 0.0 && info.n_fit == n0 && info.p_inv == pi && info.n_blocks == 0);
        rinv = ref_rinv(pi, lambda0, 0.01, 1, 1, 1);
        for (t = 0; t < 150; ++t) {
            int arm;
            double y, ri, rr, mean;
            CHECK_OK(isdb_env_next(&env.base));
            CHECK_OK(isdb_policy_scores(&pol.base, env.base.X, K, scores));
            isdb_isd_get_radii(&pol, &ri, &rr);
            if (mode == 0) {
                double root = sqrt(2.0 * t);
                CHECK_NEAR(ri, rinv, 1e-12 * rinv);
                /* eq. 30 with DeltaPi = 0: rho1 at eta / 2 plus
                   L ||beta - beta_inv|| sqrt(p_res t), the norm bounded
                   by r_inv / sqrt(lambda0 n). */
                CHECK_NEAR(rr, ref_rho1(2, t, 0.5, 0.005, 1, 1, 1) + rinv / sqrt(lambda0 * n0) * root, 1e-10 * rr);
            } else {
                double a = 1.0 * (2.0 / 6.0) * sqrt(0.5) +
                           sqrt(2 * log(100.0) + 4 * log(1 + 1 / (4 * info.lambda_beta)) + 2 * log(1 + t / (0.5 * 2)));
                CHECK_NEAR(ri, a, 1e-12 * a);
                CHECK(rr == ri);
            }
            for (k = 0; k < K; ++k) {
                double want = direct_score(d, pi, U, beta, env.base.X + k * d, t, 0.5, ri, Sb, rr, mode, &mean);
                worst = fmax(worst, fabs(scores[k] - want) / fmax(1.0, fabs(want)));
            }
            CHECK_OK(isdb_policy_select(&pol.base, env.base.X, K, &arm));
            CHECK_OK(isdb_env_reward(&env.base, arm, &y));
            memcpy(hx + t * d, env.base.X + arm * d, sizeof(double) * (size_t)d);
            hy[t] = y;
            CHECK_OK(isdb_policy_update(&pol.base, arm, env.base.X + arm * d, y));
        }
        CHECK_MSG(worst < 1e-9, "mode %d: largest relative score difference %g", mode, worst);
        isdb_policy_uninit(&pol.base);
        isdb_env_reset(&env.base);
    }
    isdb_env_uninit(&env.base);
}

/* p_inv = d (p_res = 0): no online learning; the score is x.beta +
   r_inv ||U_inv^T x||_{Sigma_beta^-1}, and updates change nothing but the
   history. */
static void test_p_res_zero(void) {
    static const int sizes[1] = {4}, res[1] = {0};
    isdb_isd_env env;
    isdb_isd pol;
    isdb_isd_config c;
    double U[16], beta[4], s1[4], s2[4];
    int d = 4, K = 4, t, k;
    make_env(&env, d, K, 1, sizes, res, 8, 100);
    CHECK_OK(isdb_isd_env_offline(&env, 500, ISDB_ISD_LOG_UNIFORM, 1.0, 2, X0, R0));
    isdb_isd_env_get_invariant_basis(&env, Uinv);
    c = paper_config_init(d, K, 500, X0, R0);
    c.oracle = 1;
    c.p_inv = 4;
    c.U_inv = Uinv;
    CHECK_OK(isdb_isd_init(&c, NULL, &pol));
    isdb_isd_get_basis(&pol, U);
    isdb_isd_get_beta_inv(&pol, beta);
    CHECK_OK(isdb_env_next(&env.base));
    CHECK_OK(isdb_policy_scores(&pol.base, env.base.X, K, s1));
    for (t = 0; t < 20; ++t)
        CHECK_OK(isdb_policy_update(&pol.base, t % K, env.base.X + (t % K) * d, 3.0 * t));
    CHECK_OK(isdb_policy_scores(&pol.base, env.base.X, K, s2));
    for (k = 0; k < K; ++k) {
        double mean, bi, br;
        CHECK(s1[k] == s2[k]);
        CHECK_OK(isdb_isd_explain(&pol, env.base.X + k * d, &mean, &bi, &br));
        CHECK(br == 0.0 && bi > 0.0);
        CHECK_NEAR(mean, t_dot(d, beta, env.base.X + k * d), 1e-12);
        CHECK_NEAR(s1[k], mean + bi, 1e-12 * fabs(s1[k]));
    }
    isdb_policy_uninit(&pol.base);
    isdb_env_uninit(&env.base);
}

/* p_inv = 0 in oracle mode is LinUCB (DETTRACE width, same R and S):
   the same arms and bit-identical scores for 500 rounds. */
static void test_pinv0_is_linucb(void) {
    static const int sizes[2] = {3, 2}, res[2] = {1, 1};
    isdb_isd_env env;
    isdb_isd pol;
    isdb_linucb lin;
    isdb_isd_config c;
    isdb_linucb_config lc;
    double s1[6], s2[6];
    int d = 5, K = 6, t, k, same = 1, same_scores = 1;
    make_env(&env, d, K, 2, sizes, res, 4, 100);
    c = paper_config_init(d, K, 0, NULL, NULL);
    c.oracle = 1;
    c.p_inv = 0;
    c.lambda = 0.3;
    c.R = 0.8;
    c.S = 1.7;
    c.L = 2.5;
    c.alpha = 0.6;
    lc = isdb_linucb_config_init(d, K);
    lc.lambda = 0.3;
    lc.R = 0.8;
    lc.S = 1.7;
    lc.L = 2.5;
    lc.alpha = 0.6;
    lc.width = ISDB_WIDTH_DETTRACE;
    CHECK_OK(isdb_isd_init(&c, NULL, &pol));
    CHECK_OK(isdb_linucb_init(&lc, NULL, &lin));
    for (t = 0; t < 500; ++t) {
        int a1, a2;
        double y;
        CHECK_OK(isdb_env_next(&env.base));
        CHECK_OK(isdb_policy_scores(&pol.base, env.base.X, K, s1));
        CHECK_OK(isdb_policy_scores(&lin.base, env.base.X, K, s2));
        for (k = 0; k < K; ++k)
            if (s1[k] != s2[k])
                same_scores = 0;
        CHECK_OK(isdb_policy_select(&pol.base, env.base.X, K, &a1));
        CHECK_OK(isdb_policy_select(&lin.base, env.base.X, K, &a2));
        if (a1 != a2)
            same = 0;
        CHECK_OK(isdb_env_reward(&env.base, a1, &y));
        CHECK_OK(isdb_policy_update(&pol.base, a1, env.base.X + a1 * d, y));
        CHECK_OK(isdb_policy_update(&lin.base, a1, env.base.X + a1 * d, y));
    }
    CHECK_MSG(same && same_scores, "p_inv = 0 departs from LinUCB (arms %d, scores %d)", same, same_scores);
    isdb_policy_uninit(&pol.base);
    isdb_policy_uninit(&lin.base);
    isdb_env_uninit(&env.base);
}

/* The windowed and discounted residual learners against recomputation:
   WINDOW: ridge on the last w residual rows; DISCOUNT: V = lambda I +
   sum g^age z z^T, Vt with g^(2 age), b with g^age, bonus ||V^-1 z||_Vt. */
static void test_windowed_learners(void) {
    static const int sizes[2] = {3, 3}, res[2] = {0, 1};
    isdb_isd_env env;
    int d = 6, K = 5, mode, t, k;
    make_env(&env, d, K, 2, sizes, res, 12, 100);
    isdb_isd_env_get_invariant_basis(&env, Uinv);
    for (mode = 0; mode < 2; ++mode) {
        isdb_isd pol;
        isdb_isd_config c = paper_config_init(d, K, 0, NULL, NULL);
        double U[MAXD * MAXD], Ur[MAXD * MAXD], worst = 0, g = 0.93;
        int w = 17, q = 3;
        c.oracle = 1;
        c.p_inv = 3;
        c.U_inv = Uinv;
        c.beta_inv = env.beta_inv;
        c.learner = mode ? ISDB_ISD_RES_DISCOUNT : ISDB_ISD_RES_WINDOW;
        c.window = w;
        c.gamma = g;
        c.radius = ISDB_ISD_RADIUS_FIXED;
        c.alpha = 1.3;
        c.refresh = 40; /* WINDOW: rebuilds every 40, downdates between */
        CHECK_OK(isdb_isd_init(&c, NULL, &pol));
        isdb_isd_get_basis(&pol, U);
        cols(d, U, 3, q, Ur);
        isdb_env_reset(&env.base);
        for (t = 0; t < 300; ++t) {
            int arm, from = mode ? 0 : (t > w ? t - w : 0);
            double y, scores[8];
            long double V[9], Vt[9], b[3];
            double Vd[9], bd[3], delta[3];
            int i, j, s;
            CHECK_OK(isdb_env_next(&env.base));
            CHECK_OK(isdb_policy_scores(&pol.base, env.base.X, K, scores));
            for (i = 0; i < 9; ++i)
                V[i] = Vt[i] = 0;
            for (i = 0; i < 3; ++i) {
                V[i * 3 + i] = Vt[i * 3 + i] = c.lambda;
                b[i] = 0;
            }
            for (s = from; s < t; ++s) {
                long double z[3], r = hy[s], wt = mode ? powl(g, t - 1 - s) : 1;
                for (i = 0; i < d; ++i)
                    r -= (long double)hx[s * d + i] * env.beta_inv[i];
                for (j = 0; j < q; ++j) {
                    z[j] = 0;
                    for (i = 0; i < d; ++i)
                        z[j] += (long double)hx[s * d + i] * Ur[i * q + j];
                }
                for (i = 0; i < 3; ++i) {
                    for (j = 0; j < 3; ++j) {
                        V[i * 3 + j] += wt * z[i] * z[j];
                        Vt[i * 3 + j] += wt * wt * z[i] * z[j];
                    }
                    b[i] += wt * r * z[i];
                }
            }
            for (i = 0; i < 9; ++i)
                Vd[i] = (double)V[i];
            for (i = 0; i < 3; ++i)
                bd[i] = (double)b[i];
            ref_solve(3, Vd, bd, delta);
            for (k = 0; k < K; ++k) {
                const double *x = env.base.X + k * d;
                double z[3], u[3], want;
                long double m = 0, nr = 0;
                for (j = 0; j < q; ++j) {
                    long double sz = 0;
                    for (i = 0; i < d; ++i)
                        sz += (long double)x[i] * Ur[i * q + j];
                    z[j] = (double)sz;
                }
                for (i = 0; i < d; ++i)
                    m += (long double)x[i] * env.beta_inv[i];
                for (j = 0; j < q; ++j)
                    m += (long double)z[j] * delta[j];
                ref_solve(3, Vd, z, u);
                if (mode)
                    for (i = 0; i < 3; ++i)
                        for (j = 0; j < 3; ++j)
                            nr += (long double)u[i] * Vt[i * 3 + j] * u[j];
                else
                    for (j = 0; j < 3; ++j)
                        nr += (long double)z[j] * u[j];
                want = (double)(m + 1.3L * sqrtl(nr));
                worst = fmax(worst, fabs(scores[k] - want) / fmax(1.0, fabs(want)));
            }
            CHECK_OK(isdb_policy_select(&pol.base, env.base.X, K, &arm));
            CHECK_OK(isdb_env_reward(&env.base, arm, &y));
            memcpy(hx + t * d, env.base.X + arm * d, sizeof(double) * (size_t)d);
            hy[t] = y;
            CHECK_OK(isdb_policy_update(&pol.base, arm, env.base.X + arm * d, y));
        }
        CHECK_MSG(worst < 1e-8, "mode %d: largest relative score difference %g", mode, worst);
        isdb_policy_uninit(&pol.base);
    }
    isdb_env_uninit(&env.base);
}

/* Recompute (Algorithm 1): after W updates the fit is isdb_isd_estimate on
   the offline rows followed by the online ones (bit for bit: the same
   function on the same rows), and the residual learner uses every online
   row under the new fit (the scores match the direct formula). */
static void test_recompute(void) {
    static const int sizes[3] = {3, 2, 3}, res[3] = {0, 1, 0};
    static double Xall[MAXN * MAXD], Rall[MAXN], U1[MAXD * MAXD], b1[MAXD], st[MAXD], U2[MAXD * MAXD], b2[MAXD];
    static double work[2000000];
    isdb_isd_env env;
    isdb_isd pol;
    isdb_isd_config c;
    isdb_isd_options o = isdb_isd_options_init();
    isdb_isd_fit fit;
    isdb_isd_info info;
    int d = 8, K = 5, n0 = 3000, W = 60, t, sz[MAXD], inv[MAXD], k;
    double worst = 0;
    make_env(&env, d, K, 3, sizes, res, 21, 375);
    CHECK_OK(isdb_isd_env_offline(&env, n0, ISDB_ISD_LOG_UNIFORM, 1.0, 4, X0, R0));
    c = paper_config_init(d, K, n0, X0, R0);
    c.recompute_every = W;
    c.history = 2 * W;
    c.radius = ISDB_ISD_RADIUS_CODE;
    CHECK_OK(isdb_isd_init(&c, NULL, &pol));
    for (t = 0; t < W + 40; ++t) {
        int arm;
        double y;
        arm = play_round(&pol, &env.base, K, &y);
        memcpy(hx + t * d, env.base.X + arm * d, sizeof(double) * (size_t)d);
        hy[t] = y;
        CHECK_OK(isdb_policy_update(&pol.base, arm, env.base.X + arm * d, y));
        if (t == W - 1) {
            memcpy(Xall, X0, sizeof(double) * (size_t)(n0 * d));
            memcpy(Rall, R0, sizeof(double) * (size_t)n0);
            memcpy(Xall + n0 * d, hx, sizeof(double) * (size_t)(W * d));
            memcpy(Rall + n0, hy, sizeof(double) * (size_t)W);
            fit.U = U1;
            fit.beta_inv = b1;
            fit.stat = st;
            fit.pvalue = NULL;
            fit.sizes = sz;
            fit.invariant = inv;
            CHECK(isdb_isd_estimate_work_size(d, n0 + W, &o) <= sizeof work / sizeof work[0]);
            CHECK(isdb_isd_estimate(d, n0 + W, Xall, Rall, &o, &fit, work) >= 0);
            isdb_isd_get_basis(&pol, U2);
            isdb_isd_get_beta_inv(&pol, b2);
            isdb_isd_get_info(&pol, &info);
            CHECK(info.recomputes == 1 && info.n_fit == n0 + W && info.p_inv == fit.p_inv);
            CHECK(memcmp(U1, U2, sizeof(double) * (size_t)(d * d)) == 0);
            CHECK(memcmp(b1, b2, sizeof(double) * (size_t)d) == 0);
            CHECK(info.n_res == W);
        }
        if (t >= W) {
            double scores[8], mean, ri, rr;
            isdb_isd_get_info(&pol, &info);
            CHECK(info.recomputes == 1);
            isdb_isd_get_radii(&pol, &ri, &rr);
            CHECK_OK(isdb_env_next(&env.base));
            CHECK_OK(isdb_policy_scores(&pol.base, env.base.X, K, scores));
            for (k = 0; k < K; ++k) {
                static double Sb[MAXD * MAXD];
                int i, j, l, r, pi = info.p_inv;
                /* Sigma_beta = U_inv^T X^T X U_inv on the n0 + W rows. */
                for (i = 0; i < pi; ++i)
                    for (j = 0; j < pi; ++j) {
                        long double acc = 0;
                        for (r = 0; r < n0 + W; ++r) {
                            long double a = 0, b = 0;
                            for (l = 0; l < d; ++l) {
                                a += (long double)Xall[r * d + l] * U2[l * d + i];
                                b += (long double)Xall[r * d + l] * U2[l * d + j];
                            }
                            acc += a * b;
                        }
                        Sb[i * pi + j] = (double)acc;
                    }
                {
                    double want =
                        direct_score(d, pi, U2, b2, env.base.X + k * d, t + 1, c.lambda, ri, Sb, rr, 1, &mean);
                    worst = fmax(worst, fabs(scores[k] - want) / fmax(1.0, fabs(want)));
                }
            }
            break;
        }
    }
    CHECK_MSG(worst < 1e-9, "largest relative score difference after the recompute %g", worst);
    isdb_policy_uninit(&pol.base);
    isdb_env_uninit(&env.base);
}

/* Projector distance ||P_a - P_b||_F of the column spans of A (d x ka)
   and B (d x kb). */
static double span_distance(int d, const double *A, int lda, int ka, const double *B, int ldb, int kb) {
    long double s = 0;
    int i, j, l;
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) {
            long double pa = 0, pb = 0;
            for (l = 0; l < ka; ++l)
                pa += (long double)A[i * lda + l] * A[j * lda + l];
            for (l = 0; l < kb; ++l)
                pb += (long double)B[i * ldb + l] * B[j * ldb + l];
            s += (pa - pb) * (pa - pb);
        }
    return (double)sqrtl(s);
}

/* Invariance detection on planted data (the paper's data-generating
   process, blocks 4, 1, 3, 2 with the third residual, 8000 uniformly
   logged rows, 5 seeds). Over 20 other seeds of this set-up 19 or 20
   decompositions came out right (the misses: the threshold criterion
   choosing singletons by a near-tie), so at least 4 of 5 must here: the
   blocks and p_inv = 7, the invariant subspace within 0.1 (projector,
   Frobenius; about 5 times the typical error), beta_inv within 0.15 of the
   true one, T_b of the residual block above every invariant block's.
   Then: every block drifting strongly (amplitude 4) gives p_inv = 0; no
   drift at all makes every block invariant, unless force_residual. */
static void test_estimator_planted(void) {
    static const int sizes[4] = {4, 1, 3, 2}, res[4] = {0, 0, 1, 0}, allres[4] = {1, 1, 1, 1};
    static double U[MAXD * MAXD], beta[MAXD], st[MAXD], work[3000000];
    int d = 10, n = 8000, seed, sz[MAXD], inv[MAXD], b, i, case_, right = 0;
    for (case_ = 0; case_ < 3; ++case_)
        for (seed = 0; seed < (case_ ? 2 : 5); ++seed) {
            isdb_isd_env env;
            isdb_isd_env_config c = isdb_isd_env_config_init(d, 5, 4, sizes, case_ == 1 ? allres : res);
            isdb_isd_options o = isdb_isd_options_init();
            isdb_isd_fit fit;
            double bmax_inv = 0, bres = 0, err;
            c.basis_seed = 500 + (uint64_t)seed;
            c.cov_period = n / 8;
            if (case_ == 2)
                c.drift_amp = 0.0;
            if (case_ == 1)
                c.drift_amp = 4.0;
            CHECK_OK(isdb_isd_env_init(&c, NULL, &env));
            CHECK_OK(isdb_isd_env_offline(&env, n, ISDB_ISD_LOG_UNIFORM, 1.0, 40 + (uint64_t)seed, X0, R0));
            fit.U = U;
            fit.beta_inv = beta;
            fit.stat = st;
            fit.pvalue = NULL;
            fit.sizes = sz;
            fit.invariant = inv;
            CHECK(isdb_isd_estimate_work_size(d, n, &o) <= sizeof work / sizeof work[0]);
            CHECK(isdb_isd_estimate(d, n, X0, R0, &o, &fit, work) >= 0);
            if (case_ == 1) {
                CHECK_MSG(fit.p_inv == 0, "all blocks drift, p_inv %d", fit.p_inv);
            } else if (case_ == 2) {
                CHECK_MSG(fit.p_inv == d, "stationary data, p_inv %d", fit.p_inv);
                o.force_residual = 1;
                CHECK(isdb_isd_estimate(d, n, X0, R0, &o, &fit, work) >= 0);
                CHECK(fit.p_inv < d && fit.p_inv > 0);
            } else if (fit.n_blocks == 4 && fit.p_inv == 7) {
                ++right;
                isdb_isd_env_get_invariant_basis(&env, Uinv);
                err = span_distance(d, U, d, fit.p_inv, Uinv, env.p_inv, env.p_inv);
                CHECK_MSG(err < 0.1, "seed %d: invariant subspace error %g", seed, err);
                for (i = 0; i < d; ++i)
                    CHECK_NEAR(beta[i], env.beta_inv[i], 0.15);
                for (b = 0; b < fit.n_blocks; ++b) {
                    if (fit.invariant[b])
                        bmax_inv = fmax(bmax_inv, st[b]);
                    else
                        bres = st[b];
                }
                CHECK_MSG(bres > bmax_inv, "T of the residual block %g, of the invariant ones up to %g", bres,
                          bmax_inv);
                /* With an intercept (the authors' code) the same answer. */
                o.intercept = 1;
                CHECK(isdb_isd_estimate(d, n, X0, R0, &o, &fit, work) >= 0);
                CHECK(fit.p_inv == 7);
            } else {
                printf("estimator: seed %d found %d blocks, p_inv %d\n", seed, fit.n_blocks, fit.p_inv);
            }
            isdb_env_uninit(&env.base);
        }
    CHECK_MSG(right >= 4, "right decompositions %d of 5", right);
}

/* The invariance monitor (our extension; the paper has none, its section
   4.2 notes that mislabelled invariant directions cost linear regret).
   Oracle subspace and beta_inv of environment A; after 500 rounds the
   invariant component changes sign (environment B, same basis and
   residual part). Over 5 seeds: no alarm before the change, an alarm
   after it in every run; in rounds 500..1500 after the change the
   monitored policy regrets at most twice as much as LinUCB started fresh
   at the change (plus 5), and the unmonitored one at least 10 times more
   than the monitored one (it pays a constant gap every round). With the
   RECOMPUTE action the re-estimate cannot help (beta_inv is given) and the
   second alarm falls back. */
static double play(isdb_policy *p, isdb_env *e, int T, double *cum) {
    int t, k, arm;
    double y, reg = 0;
    for (t = 0; t < T; ++t) {
        double best;
        CHECK_OK(isdb_env_next(e));
        CHECK_OK(isdb_policy_select(p, e->X, e->n_arms, &arm));
        CHECK_OK(isdb_env_reward(e, arm, &y));
        CHECK_OK(isdb_policy_update(p, arm, e->X + arm * e->d, y));
        best = e->means[0];
        for (k = 1; k < e->n_arms; ++k)
            best = fmax(best, e->means[k]);
        reg += best - e->means[arm];
        cum[t] = reg;
    }
    return reg;
}

static void test_monitor(void) {
    static const int sizes[2] = {4, 2}, res[2] = {0, 1};
    static double cum[MAXT];
    int d = 6, K = 5, T = 2000, Tc = 500, seed, mode, i;
    double late[4] = {0, 0, 0, 0};
    for (seed = 1; seed <= 5; ++seed) {
        isdb_isd_env A, B;
        isdb_isd_env_config ca = isdb_isd_env_config_init(d, K, 2, sizes, res), cb;
        double g0[MAXD];
        ca.seed = (uint64_t)seed;
        ca.basis_seed = 100 + (uint64_t)seed;
        ca.cov_period = 250;
        CHECK_OK(isdb_isd_env_init(&ca, NULL, &A));
        CHECK_OK(isdb_isd_env_offline(&A, 2000, ISDB_ISD_LOG_UNIFORM, 1.0, 50 + (uint64_t)seed, X0, R0));
        isdb_isd_env_get_invariant_basis(&A, Uinv);
        cb = ca;
        cb.basis = A.basis;
        for (i = 0; i < d; ++i)
            g0[i] = i < 4 ? -A.gamma0[i] : A.gamma0[i];
        cb.gamma0 = g0;
        cb.seed = 1000 + (uint64_t)seed;
        CHECK_OK(isdb_isd_env_init(&cb, NULL, &B));
        for (mode = 0; mode < 4; ++mode) {
            isdb_isd pol;
            isdb_linucb lin;
            isdb_isd_info info;
            isdb_env_reset(&A.base);
            isdb_env_reset(&B.base);
            for (i = 0; i < 2; ++i)
                B.res[i] = A.res[i]; /* only the invariant part changes */
            if (mode < 3) {
                isdb_isd_config c = paper_config_init(d, K, 2000, X0, R0);
                c.oracle = 1;
                c.p_inv = 4;
                c.U_inv = Uinv;
                c.beta_inv = A.beta_inv;
                c.lambda = 0.1;
                c.monitor = mode == 0 ? ISDB_ISD_MONITOR_OFF
                                      : (mode == 1 ? ISDB_ISD_MONITOR_FALLBACK : ISDB_ISD_MONITOR_RECOMPUTE);
                CHECK_OK(isdb_isd_init(&c, NULL, &pol));
                play(&pol.base, &A.base, Tc, cum);
                isdb_isd_get_info(&pol, &info);
                CHECK_MSG(info.alarms == 0, "seed %d mode %d: a false alarm before the change", seed, mode);
                play(&pol.base, &B.base, T - Tc, cum);
                isdb_isd_get_info(&pol, &info);
                if (mode > 0) {
                    CHECK_MSG(info.alarms >= 1 && info.fallback == 1, "seed %d mode %d: alarms %d, fallback %d", seed,
                              mode, (int)info.alarms, info.fallback);
                    CHECK(info.p_inv == 0);
                }
                if (mode == 2)
                    CHECK(info.recomputes >= 1 && info.alarms >= 2);
                isdb_policy_uninit(&pol.base);
            } else {
                isdb_linucb_config lc = isdb_linucb_config_init(d, K);
                lc.lambda = 0.1;
                lc.width = ISDB_WIDTH_DETTRACE;
                CHECK_OK(isdb_linucb_init(&lc, NULL, &lin));
                play(&lin.base, &B.base, T - Tc, cum);
                isdb_policy_uninit(&lin.base);
            }
            late[mode] += (cum[T - Tc - 1] - cum[499]) / 5;
        }
        isdb_env_uninit(&A.base);
        isdb_env_uninit(&B.base);
    }
    printf("monitor: mean regret 500..1500 rounds after the change: unmonitored %.1f, fallback %.1f, recompute %.1f, "
           "fresh LinUCB %.1f\n",
           late[0], late[1], late[2], late[3]);
    CHECK_LE(late[1], 2 * late[3] + 5);
    CHECK_LE(late[2], 2 * late[3] + 5);
    CHECK_LE(10 * late[1], late[0]);
}

/* The environment: reproducible; beta_inv in S_inv; the mean of every arm
   is x.theta with theta = beta_inv + the residual part; the online
   features uncorrelated across blocks (U coordinates: every cross-block
   sample covariance within 5 standard errors of 0); offline rows unchanged
   by the call and reproducible; the half-greedy logger's odd rows earn
   more than its even rows. */
static void test_env(void) {
    static const int sizes[3] = {2, 1, 2}, res[3] = {0, 1, 0};
    static long double acc[MAXD * MAXD];
    static double X0b[2000 * MAXD], R0b[2000];
    isdb_isd_env e1, e2;
    isdb_isd_env_config c = isdb_isd_env_config_init(5, 4, 3, sizes, res);
    double P[MAXD * MAXD], z[MAXD], Ub[MAXD * MAXD];
    int d = 5, K = 4, t, k, i, j, n = 20000, bad = 0, blk[5] = {0, 0, 1, 2, 2};
    long double odd = 0, even = 0;
    CHECK_OK(isdb_isd_env_init(&c, NULL, &e1));
    CHECK_OK(isdb_isd_env_init(&c, NULL, &e2));
    CHECK(e1.p_inv == 4 && e1.p_res == 1);
    CHECK(orthogonality_error(d, d, e1.basis) < 1e-13);
    /* beta_inv has no component along the residual column (index 2). */
    CHECK_NEAR(t_dot(d, e1.beta_inv, e1.basis + 0) * 0 + (double)0, 0.0, 0.0);
    {
        double s = 0;
        for (i = 0; i < d; ++i)
            s += e1.basis[i * d + 2] * e1.beta_inv[i];
        CHECK_NEAR(s, 0.0, 1e-14);
    }
    isdb_isd_env_get_invariant_basis(&e1, Uinv);
    for (i = 0; i < d; ++i)
        CHECK(Uinv[i * 4 + 2] == e1.basis[i * d + 3]);
    memset(acc, 0, sizeof acc);
    for (t = 0; t < n / K; ++t) {
        CHECK_OK(isdb_env_next(&e1.base));
        CHECK_OK(isdb_env_next(&e2.base));
        CHECK(memcmp(e1.base.X, e2.base.X, sizeof(double) * (size_t)(K * d)) == 0);
        for (k = 0; k < K; ++k) {
            const double *x = e1.base.X + k * d;
            CHECK_NEAR(e1.base.means[k], t_dot(d, x, e1.theta), 1e-12);
            for (j = 0; j < d; ++j)
                z[j] = t_dot(d, x, e1.basis + 0 * d) * 0 + 0;
            for (j = 0; j < d; ++j) {
                long double s = 0;
                for (i = 0; i < d; ++i)
                    s += (long double)e1.basis[i * d + j] * x[i];
                z[j] = (double)s;
            }
            for (i = 0; i < d; ++i)
                for (j = 0; j < d; ++j)
                    acc[i * d + j] += (long double)z[i] * z[j];
        }
    }
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j)
            P[i * d + j] = (double)(acc[i * d + j] / n);
    for (i = 0; i < d; ++i)
        for (j = 0; j < i; ++j)
            if (blk[i] != blk[j] && fabs(P[i * d + j]) > 5 * sqrt(P[i * d + i] * P[j * d + j] / n))
                bad++;
    CHECK_MSG(bad == 0, "%d cross-block covariances differ from 0", bad);
    /* theta = beta_inv + U_res res. */
    for (i = 0; i < d; ++i)
        CHECK_NEAR(e1.theta[i], e1.beta_inv[i] + e1.basis[i * d + 2] * e1.res[0], 1e-12);
    /* Offline rows: reproducible, no effect on the online stream. */
    isdb_env_reset(&e1.base);
    isdb_env_reset(&e2.base);
    CHECK_OK(isdb_isd_env_offline(&e1, 2000, ISDB_ISD_LOG_HALF_GREEDY, 0.8, 3, X0, R0));
    CHECK_OK(isdb_isd_env_offline(&e1, 2000, ISDB_ISD_LOG_HALF_GREEDY, 0.8, 3, X0b, R0b));
    CHECK(memcmp(X0, X0b, sizeof(double) * (size_t)(2000 * d)) == 0 && memcmp(R0, R0b, sizeof R0b) == 0);
    CHECK_OK(isdb_env_next(&e1.base));
    CHECK_OK(isdb_env_next(&e2.base));
    CHECK(memcmp(e1.base.X, e2.base.X, sizeof(double) * (size_t)(K * d)) == 0);
    for (t = 0; t < 2000; ++t) {
        if (t % 2)
            odd += R0[t];
        else
            even += R0[t];
    }
    CHECK_MSG(odd > even + 200, "greedy rows earn %g, random rows %g", (double)odd, (double)even);
    CHECK_RESULT(isdb_isd_env_offline(&e1, 0, ISDB_ISD_LOG_UNIFORM, 1.0, 1, X0, R0), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_isd_env_offline(&e1, 10, (isdb_isd_logger)9, 1.0, 1, X0, R0), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_isd_env_offline(&e1, 10, ISDB_ISD_LOG_UNIFORM, -1.0, 1, X0, R0), ISDB_ERR_INVALID_ARG);
    /* A given basis is used as it is. */
    random_orthogonal(&e1.base.rng, d, Ub);
    isdb_env_uninit(&e2.base);
    c.basis = Ub;
    CHECK_OK(isdb_isd_env_init(&c, NULL, &e2));
    CHECK(memcmp(e2.basis, Ub, sizeof(double) * (size_t)(d * d)) == 0);
    isdb_env_uninit(&e2.base);
    /* Bad configs. */
    {
        int bad_sizes[3] = {2, 2, 2}, bad_res[3] = {0, 2, 0};
        c = isdb_isd_env_config_init(5, 4, 3, bad_sizes, res);
        CHECK_RESULT(isdb_isd_env_init(&c, NULL, &e2), ISDB_ERR_INVALID_ARG);
        c = isdb_isd_env_config_init(5, 4, 3, sizes, bad_res);
        CHECK_RESULT(isdb_isd_env_init(&c, NULL, &e2), ISDB_ERR_INVALID_ARG);
        c = isdb_isd_env_config_init(5, 4, 3, sizes, res);
        c.cov_period = 0;
        CHECK_RESULT(isdb_isd_env_init(&c, NULL, &e2), ISDB_ERR_INVALID_ARG);
    }
    isdb_env_uninit(&e1.base);
}

/* Config checks: estimated mode needs enough offline rows for the
   estimator; oracle needs U_inv of full rank; a recompute makes the
   history at least W; getters on a fresh policy. */
static void test_config(void) {
    static const int sizes[2] = {3, 2}, res[2] = {0, 1};
    isdb_isd_env env;
    isdb_isd pol;
    isdb_isd_config c;
    size_t bytes;
    double Ubad[5 * 3];
    int d = 5, i;
    make_env(&env, d, 4, 2, sizes, res, 2, 100);
    CHECK_OK(isdb_isd_env_offline(&env, 400, ISDB_ISD_LOG_UNIFORM, 1.0, 2, X0, R0));
    isdb_isd_env_get_invariant_basis(&env, Uinv);
    c = paper_config_init(d, 4, 30, X0, R0); /* folds of 3 rows: too few */
    CHECK_RESULT(isdb_isd_heap_size(&c, &bytes), ISDB_ERR_INVALID_ARG);
    c = paper_config_init(d, 4, 400, X0, NULL);
    CHECK_RESULT(isdb_isd_heap_size(&c, &bytes), ISDB_ERR_INVALID_ARG);
    c = paper_config_init(d, 4, 400, X0, R0);
    c.recompute_every = 25;
    c.monitor = ISDB_ISD_MONITOR_OFF;
    CHECK_OK(isdb_isd_init(&c, NULL, &pol));
    CHECK(pol.cfg.history == 25);
    isdb_policy_uninit(&pol.base);
    c.monitor = ISDB_ISD_MONITOR_FALLBACK; /* the default: the history also holds its window */
    CHECK_OK(isdb_isd_init(&c, NULL, &pol));
    CHECK(pol.cfg.history == 10 * d + 20);
    CHECK(isdb_isd_get_config(&pol)->recompute_every == 25);
    isdb_policy_uninit(&pol.base);
    c.lambda = 0.0;
    CHECK_RESULT(isdb_isd_init(&c, NULL, &pol), ISDB_ERR_INVALID_ARG);
    c = paper_config_init(d, 4, 400, X0, R0);
    c.oracle = 1;
    c.p_inv = 3;
    c.U_inv = Ubad;
    for (i = 0; i < 15; ++i)
        Ubad[i] = Uinv[(i / 3) * 3]; /* three equal columns */
    CHECK_RESULT(isdb_isd_init(&c, NULL, &pol), ISDB_ERR_INVALID_ARG);
    Ubad[0] = T_NAN;
    CHECK_RESULT(isdb_isd_init(&c, NULL, &pol), ISDB_ERR_NONFINITE);
    c.U_inv = Uinv;
    X0[7] = T_INF;
    CHECK_RESULT(isdb_isd_init(&c, NULL, &pol), ISDB_ERR_NONFINITE);
    X0[7] = 0.0;
    c.monitor = ISDB_ISD_MONITOR_FALLBACK;
    c.monitor_window = d + 9;
    CHECK_RESULT(isdb_isd_init(&c, NULL, &pol), ISDB_ERR_INVALID_ARG);
    c.monitor_window = 0;
    CHECK_OK(isdb_isd_init(&c, NULL, &pol));
    CHECK(pol.cfg.monitor_window == 10 * d + 20 && pol.cfg.monitor_every == 2 * d);
    {
        double P[25], Q2[25];
        int sz[5], inv[5];
        isdb_isd_get_projector(&pol, 0, P);
        isdb_isd_get_projector(&pol, 1, Q2);
        for (i = 0; i < 25; ++i)
            CHECK_NEAR(P[i] + Q2[i], (i % 6 == 0) ? 1.0 : 0.0, 1e-14);
        CHECK(isdb_isd_get_blocks(&pol, sz, inv, NULL) == 0); /* oracle: no blocks */
        CHECK_RESULT(isdb_isd_explain(&pol, NULL, NULL, NULL, NULL), ISDB_ERR_INVALID_ARG);
    }
    isdb_policy_uninit(&pol.base);
    isdb_env_uninit(&env.base);
}

/* Residual sum of squares of the least-squares fit of y on the m columns
   col(r, j) of the n rows: long double normal equations, Gaussian
   elimination with partial pivoting (the slow reference). */
typedef double (*design_fn)(int r, int j, const void *ctx);

static long double ref_rss(int n, int m, design_fn col, const void *ctx, const double *y) {
    static long double A[64 * 65];
    long double yy = 0, sol[64], bx = 0;
    int r, i, j, k;
    for (i = 0; i < m * (m + 1); ++i)
        A[i] = 0;
    for (r = 0; r < n; ++r) {
        long double v[64];
        for (j = 0; j < m; ++j)
            v[j] = col(r, j, ctx);
        for (i = 0; i < m; ++i) {
            for (j = 0; j < m; ++j)
                A[i * (m + 1) + j] += v[i] * v[j];
            A[i * (m + 1) + m] += v[i] * y[r];
        }
        yy += (long double)y[r] * y[r];
    }
    for (k = 0; k < m; ++k) {
        int piv = k;
        for (i = k + 1; i < m; ++i)
            if (fabsl(A[i * (m + 1) + k]) > fabsl(A[piv * (m + 1) + k]))
                piv = i;
        for (j = 0; j <= m; ++j) {
            long double t = A[k * (m + 1) + j];
            A[k * (m + 1) + j] = A[piv * (m + 1) + j];
            A[piv * (m + 1) + j] = t;
        }
        for (i = k + 1; i < m; ++i) {
            long double f = A[i * (m + 1) + k] / A[k * (m + 1) + k];
            for (j = k; j <= m; ++j)
                A[i * (m + 1) + j] -= f * A[k * (m + 1) + j];
        }
    }
    for (k = m - 1; k >= 0; --k) {
        long double t = A[k * (m + 1) + m];
        for (j = k + 1; j < m; ++j)
            t -= A[k * (m + 1) + j] * sol[j];
        sol[k] = t / A[k * (m + 1) + k];
    }
    /* RSS = y^T y - b^T x, b the right-hand side before elimination */
    for (k = 0; k < m; ++k) {
        long double b = 0;
        for (r = 0; r < n; ++r)
            b += (long double)col(r, k, ctx) * y[r];
        bx += b * sol[k];
    }
    return yy - bx;
}

/* The design of the block test: z = U^T x; segment of row r; block [off,
   off + s) shared (shared = 1) or per segment. */
typedef struct bt_ctx {
    int d, n, S, off, s, shared;
    const double *X, *U;
} bt_ctx;

static double bt_col(int r, int j, const void *vctx) {
    const bt_ctx *c = (const bt_ctx *)vctx;
    int seg = 0, k, l, coord;
    double z = 0;
    while (seg + 1 < c->S && r >= (int)(((long long)(seg + 1) * c->n) / c->S))
        ++seg;
    if (c->shared && j < c->s) {
        coord = c->off + j;
    } else {
        int jj = c->shared ? j - c->s : j, per = c->shared ? c->d - c->s : c->d, which = jj / per, o = jj % per;
        if (which != seg)
            return 0.0;
        coord = c->shared ? (o < c->off ? o : o + c->s) : o;
    }
    for (k = 0, l = coord; k < c->d; ++k)
        z += c->X[r * c->d + k] * c->U[k * c->d + l];
    return z;
}


/* isdb_isd_block_test on an estimate's own decomposition gives the
   p-values the estimate reported (to rounding: the blocks come in another
   order), with and without basis_error; the refusals. */
static void test_block_test_public(void) {
    static const int sizes[3] = {3, 2, 1}, res[3] = {0, 1, 0};
    static double U[36], beta[6], st[6], pv[6], pv2[6], work[400000];
    int d = 6, n = 3000, sz[6], inv[6], bad[6], b, be;
    isdb_isd_env env;
    isdb_isd_env_config c = isdb_isd_env_config_init(d, 4, 3, sizes, res);
    c.cov_period = n / 8;
    CHECK_OK(isdb_isd_env_init(&c, NULL, &env));
    CHECK_OK(isdb_isd_env_offline(&env, n, ISDB_ISD_LOG_UNIFORM, 1.0, 9, X0, R0));
    for (be = 0; be < 2; ++be) {
        isdb_isd_options o = isdb_isd_options_init();
        isdb_isd_fit fit;
        o.basis_error = be;
        fit.U = U;
        fit.beta_inv = beta;
        fit.stat = st;
        fit.pvalue = pv;
        fit.sizes = sz;
        fit.invariant = inv;
        CHECK(isdb_isd_estimate_work_size(d, n, &o) <= sizeof work / sizeof work[0]);
        CHECK(isdb_isd_estimate(d, n, X0, R0, &o, &fit, work) >= 0);
        CHECK(fit.n_blocks >= 2);
        memset(work, 0, sizeof work); /* nothing left from the estimate */
        CHECK_OK(isdb_isd_block_test(d, n, X0, R0, U, sz, fit.n_blocks, &o, pv2, work));
        for (b = 0; b < fit.n_blocks; ++b) CHECK_NEAR(pv2[b], pv[b], 1e-9 + 1e-9 * fabs(pv[b]));
        if (be) { /* NULL options: the defaults, basis_error 1 */
            memset(work, 0, sizeof work);
            CHECK_OK(isdb_isd_block_test(d, n, X0, R0, U, sz, fit.n_blocks, NULL, pv2, work));
            for (b = 0; b < fit.n_blocks; ++b) CHECK_NEAR(pv2[b], pv[b], 1e-9 + 1e-9 * fabs(pv[b]));
        }
        /* refusals: sizes that do not add up to d, an empty block, NULLs */
        memcpy(bad, sz, sizeof bad);
        bad[0] += 1;
        CHECK(isdb_isd_block_test(d, n, X0, R0, U, bad, fit.n_blocks, &o, pv2, work) == ISDB_ERR_INVALID_ARG);
        bad[0] = 0;
        CHECK(isdb_isd_block_test(d, n, X0, R0, U, bad, fit.n_blocks, &o, pv2, work) == ISDB_ERR_INVALID_ARG);
        CHECK(isdb_isd_block_test(d, n, X0, R0, U, sz, 0, &o, pv2, work) == ISDB_ERR_INVALID_ARG);
        CHECK(isdb_isd_block_test(d, n, X0, R0, NULL, sz, fit.n_blocks, &o, pv2, work) == ISDB_ERR_INVALID_ARG);
        CHECK(isdb_isd_block_test(d, n, X0, R0, U, sz, fit.n_blocks, &o, NULL, work) == ISDB_ERR_INVALID_ARG);
        CHECK(isdb_isd_block_test(d, 1, X0, R0, U, sz, fit.n_blocks, &o, pv2, work) == ISDB_ERR_INVALID_ARG);
    }
    isdb_env_uninit(&env.base);
}

/* The invariance test of each block against the slow reference: the F
   statistic from two explicit least-squares fits (coefficients free per
   segment; the block's shared), its p-value by Simpson's rule, on planted
   data (d = 5, blocks [3, 2], the second drifting, 2000 rows, 4 segments):
   p-values within 1e-6 (basis_error 0), the drifting block's below 1e-6
   and the stationary block's above the level; the rule's labels follow
   the p-values; with basis_error 1 no p-value is lower. */
static void test_block_test(void) {
    static const int sizes[2] = {3, 2}, res[2] = {0, 1};
    static double U[MAXD * MAXD], beta[MAXD], st[MAXD], pv[MAXD], work[400000];
    int d = 5, n = 2000, S = 4, sz[MAXD], inv[MAXD], b, off, seed, checked = 0;
    for (seed = 1; seed <= 3; ++seed) {
        isdb_isd_env env;
        isdb_isd_options o = isdb_isd_options_init();
        isdb_isd_fit fit;
        make_env(&env, d, 4, 2, sizes, res, 60 + (uint64_t)seed, n / 8);
        CHECK_OK(isdb_isd_env_offline(&env, n, ISDB_ISD_LOG_UNIFORM, 1.0, 70 + (uint64_t)seed, X0, R0));
        o.splits = S;
        o.basis_error = 0; /* the reference's F test treats U as exact */
        fit.U = U;
        fit.beta_inv = beta;
        fit.stat = st;
        fit.pvalue = pv;
        fit.sizes = sz;
        fit.invariant = inv;
        CHECK(isdb_isd_estimate_work_size(d, n, &o) <= sizeof work / sizeof work[0]);
        CHECK(isdb_isd_estimate(d, n, X0, R0, &o, &fit, work) >= 0);
        for (b = 0, off = 0; b < fit.n_blocks; off += sz[b++]) {
            bt_ctx cf, cs;
            long double rf, rs;
            double F, pref, df1 = (double)((S - 1) * sz[b]), df2 = (double)(n - S * d);
            cf.d = cs.d = d;
            cf.n = cs.n = n;
            cf.S = cs.S = S;
            cf.off = cs.off = off;
            cf.s = cs.s = sz[b];
            cf.X = cs.X = X0;
            cf.U = cs.U = U;
            cf.shared = 0;
            cs.shared = 1;
            rf = ref_rss(n, S * d, bt_col, &cf, R0);
            rs = ref_rss(n, sz[b] + S * (d - sz[b]), bt_col, &cs, R0);
            F = (double)(((rs - rf) / df1) / (rf / df2));
            pref = 1.0 - ref_f_cdf(F, (int)df1, (int)df2);
            CHECK_MSG(fabs(pv[b] - pref) < 1e-6, "seed %d block %d: p-value %g, reference %g (F %g)", seed, b, pv[b],
                      pref, F);
            CHECK(inv[b] == (pv[b] > o.level));
        }
        if (fit.n_blocks == 2 && fit.p_inv == 3) {
            /* The leakage allowance only adds variance: no p-value falls,
               and the drifting block stays far below the level. */
            double pv0 = pv[0], pv1 = pv[1];
            ++checked;
            CHECK_MSG(pv[0] > o.level && pv[1] < 1e-6, "seed %d: p-values %g (stationary), %g (drifting)", seed, pv[0],
                      pv[1]);
            o.basis_error = 1;
            CHECK(isdb_isd_estimate(d, n, X0, R0, &o, &fit, work) >= 0);
            CHECK(fit.n_blocks == 2 && fit.p_inv == 3);
            CHECK_MSG(pv[0] >= pv0 && pv[1] >= pv1 && pv[1] < 1e-6,
                      "seed %d: with the allowance %g, %g; treating the basis as exact %g, %g", seed, pv[0], pv[1], pv0,
                      pv1);
        }
        isdb_env_uninit(&env.base);
    }
    CHECK_MSG(checked >= 2, "the blocks [3 invariant, 2 residual] found in %d of 3 seeds", checked);
    {
        /* bad options: one segment, a level outside (0, 1), an unknown rule */
        isdb_isd_options o = isdb_isd_options_init();
        o.splits = 1;
        CHECK(isdb_isd_estimate_work_size(d, n, &o) == 0);
        o = isdb_isd_options_init();
        o.level = 0.0;
        CHECK(isdb_isd_estimate_work_size(d, n, &o) == 0);
        o.level = 1.0;
        CHECK(isdb_isd_estimate_work_size(d, n, &o) == 0);
        o = isdb_isd_options_init();
        o.rule = (isdb_isd_rule)3;
        CHECK(isdb_isd_estimate_work_size(d, n, &o) == 0);
        o.rule = ISDB_ISD_RULE_BOTH;
        CHECK(isdb_isd_estimate_work_size(d, n, &o) > 0);
    }
}

/* The monitor demotes only the block that changes (our extension):
   estimated mode, blocks [3, 2, 1] with the last drifting offline; online,
   after 400 rounds the second block's coefficients flip sign. No alarm
   before the change; after it the 2-block is demoted (p_inv 5 -> 3, no
   full fallback) and the regret of rounds 1000..1600 after the change is
   at most half the unmonitored policy's (which pays the flipped block
   every round; measured 0.30, 0.22, 0.16 of it). */
static void test_monitor_demotes(void) {
    static const int sizes[3] = {3, 2, 1}, res[3] = {0, 0, 1};
    static double cum[MAXT];
    int d = 6, K = 5, seed, i, right = 0;
    for (seed = 1; seed <= 3; ++seed) {
        isdb_isd_env A, B;
        isdb_isd_env_config ca = isdb_isd_env_config_init(d, K, 3, sizes, res), cb;
        isdb_isd pol;
        isdb_isd_config c;
        isdb_isd_info info;
        double g0[MAXD], before, after;
        int sz[MAXD], inv[MAXD];
        ca.seed = 300 + (uint64_t)seed;
        ca.basis_seed = 400 + (uint64_t)seed;
        ca.cov_period = 500;
        CHECK_OK(isdb_isd_env_init(&ca, NULL, &A));
        CHECK_OK(isdb_isd_env_offline(&A, 4000, ISDB_ISD_LOG_UNIFORM, 1.0, 500 + (uint64_t)seed, X0, R0));
        cb = ca;
        cb.basis = A.basis;
        for (i = 0; i < d; ++i)
            g0[i] = (i == 3 || i == 4) ? -A.gamma0[i] : A.gamma0[i];
        cb.gamma0 = g0;
        cb.seed = 900 + (uint64_t)seed;
        CHECK_OK(isdb_isd_env_init(&cb, NULL, &B));
        isdb_env_reset(&A.base);
        isdb_env_reset(&B.base);
        B.res[0] = A.res[0];
        c = paper_config_init(d, K, 4000, X0, R0);
        c.lambda = 0.1;
        CHECK_OK(isdb_isd_init(&c, NULL, &pol));
        isdb_isd_get_blocks(&pol, sz, inv, NULL);
        if (isdb_isd_get_p_inv(&pol) == 5 && pol._fit.n_blocks == 3 && sz[0] + sz[1] == 5 && inv[0] && inv[1]) {
            ++right;
            play(&pol.base, &A.base, 1000, cum);
            before = cum[999] - cum[399];
            isdb_isd_get_info(&pol, &info);
            CHECK_MSG(info.alarms == 0, "seed %d: an alarm before the change", seed);
            play(&pol.base, &B.base, 1600, cum);
            after = cum[1599] - cum[999];
            isdb_isd_get_info(&pol, &info);
            CHECK_MSG(info.demotions == 1 && info.p_inv == 3 && info.fallback == 0,
                      "seed %d: demotions %d, p_inv %d, fallback %d", seed, (int)info.demotions, info.p_inv,
                      info.fallback);
            {
                /* the same without the monitor pays the flipped block every round */
                isdb_isd off;
                double after_off;
                c.monitor = ISDB_ISD_MONITOR_OFF;
                CHECK_OK(isdb_isd_init(&c, NULL, &off));
                isdb_env_reset(&A.base);
                isdb_env_reset(&B.base);
                B.res[0] = A.res[0];
                play(&off.base, &A.base, 1000, cum);
                play(&off.base, &B.base, 1600, cum);
                after_off = cum[1599] - cum[999];
                printf("monitor demotes: seed %d, regret 1000..1600 rounds after the change %.1f, unmonitored %.1f\n",
                       seed, after, after_off);
                CHECK_MSG(2 * after <= after_off, "seed %d: regret 1000..1600 rounds after the change %g, without the "
                          "monitor %g (before the change %g)", seed, after, after_off, before);
                isdb_policy_uninit(&off.base);
            }
        }
        isdb_policy_uninit(&pol.base);
        isdb_env_uninit(&A.base);
        isdb_env_uninit(&B.base);
    }
    CHECK_MSG(right >= 2, "the decomposition [3, 2 invariant; 1 residual] in %d of 3 seeds", right);
}

/* Confirmation (monitor_confirm, the default): on a stationary stream,
   with the level raised to 1e-3 so that false alarms come within 10^4
   rounds, acting on the first alarm demotes in some of 20 runs, while
   waiting for a test on later rows to agree demotes in none (under the
   null the second test alarms with probability 1e-3). A snapshot taken
   while an alarm is pending continues bit for bit. The change tests
   above run with confirmation on: it still catches a real change. */
static void test_monitor_confirm(void) {
    static const int sizes[2] = {4, 2}, res[2] = {0, 1};
    static unsigned char snap[1 << 20], snap2[1 << 20];
    int d = 6, K = 5, T = 10000, seed, confirm, demoted[2] = {0, 0}, pending_seen = 0, alarmed[2] = {0, 0};
    for (seed = 1; seed <= 20; ++seed) {
        isdb_isd_env A;
        isdb_isd_env_config ca = isdb_isd_env_config_init(d, K, 2, sizes, res);
        ca.seed = 300 + (uint64_t)seed;
        ca.basis_seed = 400 + (uint64_t)seed;
        ca.cov_period = 250;
        CHECK_OK(isdb_isd_env_init(&ca, NULL, &A));
        isdb_isd_env_get_invariant_basis(&A, Uinv);
        for (confirm = 0; confirm <= 1; ++confirm) {
            isdb_isd pol, copy;
            isdb_isd_info info;
            isdb_isd_config c = paper_config_init(d, K, 0, NULL, NULL);
            int t, arm, arm_copy, saved = 0, same = 1, since = 0;
            double y;
            size_t n = 0, n2 = 0;
            c.oracle = 1;
            c.p_inv = 4;
            c.U_inv = Uinv;
            c.beta_inv = A.beta_inv;
            c.learner = ISDB_ISD_RES_WINDOW;
            c.window = 100;
            c.monitor_level = 1e-3;
            c.monitor_confirm = confirm;
            CHECK_OK(isdb_isd_init(&c, NULL, &pol));
            isdb_env_reset(&A.base);
            for (t = 0; t < T; ++t) {
                CHECK_OK(isdb_env_next(&A.base));
                CHECK_OK(isdb_policy_select(&pol.base, A.base.X, K, &arm));
                CHECK_OK(isdb_env_reward(&A.base, arm, &y));
                CHECK_OK(isdb_policy_update(&pol.base, arm, A.base.X + arm * d, y));
                if (saved == 1) {
                    /* the copy sees the same rounds (played by pol's arms) */
                    CHECK_OK(isdb_policy_select(&copy.base, A.base.X, K, &arm_copy));
                    same &= arm_copy == arm;
                    CHECK_OK(isdb_policy_update(&copy.base, arm, A.base.X + arm * d, y));
                    if (++since == 500) {
                        CHECK_OK(isdb_policy_save(&pol.base, snap, sizeof snap, &n));
                        CHECK_OK(isdb_policy_save(&copy.base, snap2, sizeof snap2, &n2));
                        CHECK_MSG(same && n == n2 && memcmp(snap, snap2, n) == 0,
                                  "seed %d: a snapshot with an alarm pending did not continue bit for bit", seed);
                        isdb_policy_uninit(&copy.base);
                        saved = 2;
                    }
                }
                isdb_isd_get_info(&pol, &info);
                if (info.alarm_pending && saved == 0) {
                    saved = 1;
                    ++pending_seen;
                    CHECK_OK(isdb_policy_save(&pol.base, snap, sizeof snap, &n));
                    CHECK_OK(isdb_isd_init(&c, NULL, &copy));
                    CHECK_OK(isdb_policy_load(&copy.base, snap, n));
                }
            }
            if (saved == 1) isdb_policy_uninit(&copy.base);
            isdb_isd_get_info(&pol, &info);
            alarmed[confirm] += info.alarms > 0;
            demoted[confirm] += info.demotions > 0;
            isdb_policy_uninit(&pol.base);
        }
        isdb_env_uninit(&A.base);
    }
    printf("monitor confirm: stationary, level 1e-3, 20 runs of 10^4 rounds: alarmed %d / %d, demoted %d (first "
           "alarm) / %d (confirmed)\n",
           alarmed[0], alarmed[1], demoted[0], demoted[1]);
    CHECK(demoted[0] >= 2);
    CHECK(demoted[1] == 0);
    CHECK(pending_seen >= 1);
}

/* The monitor's statistic against explicit least squares: oracle subspace
   and beta (no offline error), d = 6, p_inv = 4, pieces of 12 rows. The
   first test that has enough degrees of freedom runs at update 18 on the
   pieces [0, 12) and [12, 18): F = ((RSS_0 - RSS_1) / p_inv) / (RSS_1 /
   (18 - 2 p_res - p_inv)), RSS_0 with the residual coordinates free per
   piece, RSS_1 with one extra coefficient on the invariant coordinates. */
typedef struct mon_ctx {
    int d, pi;
    const double *X, *U;
} mon_ctx;

static double mon_col(int r, int j, const void *vctx) {
    const mon_ctx *c = (const mon_ctx *)vctx;
    int q = c->d - c->pi, piece = r < 12 ? 0 : 1, coord, k;
    double z = 0;
    if (j < 2 * q) {
        if (j / q != piece)
            return 0.0;
        coord = c->pi + j % q;
    } else {
        coord = j - 2 * q;
    }
    for (k = 0; k < c->d; ++k)
        z += c->X[r * c->d + k] * c->U[k * c->d + coord];
    return z;
}

static void test_monitor_reference(void) {
    static const int sizes[2] = {4, 2}, res[2] = {0, 1};
    static double U[MAXD * MAXD], rr[64];
    isdb_isd_env env;
    isdb_isd pol;
    isdb_isd_config c;
    isdb_isd_info info;
    int d = 6, K = 4, t;
    make_env(&env, d, K, 2, sizes, res, 123, 250);
    CHECK_OK(isdb_isd_env_offline(&env, 1000, ISDB_ISD_LOG_UNIFORM, 1.0, 5, X0, R0));
    isdb_isd_env_get_invariant_basis(&env, Uinv);
    c = paper_config_init(d, K, 1000, X0, R0);
    c.oracle = 1;
    c.p_inv = 4;
    c.U_inv = Uinv;
    c.beta_inv = env.beta_inv;
    c.monitor_chunk = 12;
    c.monitor_every = 12;
    c.monitor_window = 24;
    c.monitor_level = 1e-300; /* no alarm: only the statistic is compared */
    CHECK_OK(isdb_isd_init(&c, NULL, &pol));
    isdb_isd_get_basis(&pol, U);
    isdb_env_reset(&env.base);
    for (t = 0; t < 18; ++t) {
        int arm;
        double y;
        arm = play_round(&pol, &env.base, K, &y);
        memcpy(hx + t * d, env.base.X + arm * d, sizeof(double) * (size_t)d);
        hy[t] = y;
        CHECK_OK(isdb_policy_update(&pol.base, arm, env.base.X + arm * d, y));
        isdb_isd_get_info(&pol, &info);
        if (t < 17)
            CHECK_MSG(info.monitor_stat == 0.0, "a test before update 18 (update %d)", t + 1);
    }
    for (t = 0; t < 18; ++t)
        rr[t] = hy[t] - t_dot(d, hx + t * d, env.beta_inv);
    {
        mon_ctx m0, m1;
        long double rss0, rss1;
        double F;
        m0.d = m1.d = d;
        m0.pi = m1.pi = 4;
        m0.X = m1.X = hx;
        m0.U = m1.U = U;
        rss0 = ref_rss(18, 2 * 2, mon_col, &m0, rr);
        rss1 = ref_rss(18, 2 * 2 + 4, mon_col, &m1, rr);
        F = (double)(((rss0 - rss1) / 4) / (rss1 / (18 - 4 - 4)));
        isdb_isd_get_info(&pol, &info);
        CHECK_MSG(fabs(info.monitor_stat - F) <= 1e-9 * fmax(1.0, F), "monitor F %.12g, reference %.12g",
                  info.monitor_stat, F);
        CHECK_NEAR(info.monitor_pvalue, 1.0 - ref_f_cdf(F, 4, 10), 1e-6);
        CHECK(info.alarms == 0);
    }
    isdb_policy_uninit(&pol.base);
    isdb_env_uninit(&env.base);
}

/* Select and scores score four arms at a time; explain scores one. The
   same bits either way (K = 7: a group of four and one of three), with the
   invariant width as the quadratic form (p_inv 6 of 8) and as dot
   products (p_inv 2), PAPER and CODE widths; select returns the first
   best score. */
static void test_batched_scores(void) {
    static const int sizes6[2] = {6, 2}, sizes2[2] = {2, 6}, res[2] = {0, 1};
    int d = 8, K = 7, variant, k, t;
    for (variant = 0; variant < 4; ++variant) {
        isdb_isd_env env;
        isdb_isd pol;
        isdb_isd_config c;
        double sc[8];
        int pi = variant < 2 ? 6 : 2, arm, best;
        make_env(&env, d, K, 2, variant < 2 ? sizes6 : sizes2, res, 80 + (uint64_t)variant, 250);
        CHECK_OK(isdb_isd_env_offline(&env, 2000, ISDB_ISD_LOG_UNIFORM, 1.0, 90, X0, R0));
        isdb_isd_env_get_invariant_basis(&env, Uinv);
        c = paper_config_init(d, K, 2000, X0, R0);
        c.oracle = 1;
        c.p_inv = pi;
        c.U_inv = Uinv;
        c.radius = variant % 2 ? ISDB_ISD_RADIUS_CODE : ISDB_ISD_RADIUS_PAPER;
        CHECK_OK(isdb_isd_init(&c, NULL, &pol));
        CHECK(pol._fit.quad == (pi == 6));
        for (t = 0; t < 60; ++t) {
            double y;
            CHECK_OK(isdb_env_next(&env.base));
            CHECK_OK(isdb_policy_scores(&pol.base, env.base.X, K, sc));
            best = 0;
            for (k = 0; k < K; ++k) {
                double m, bi, br, want;
                CHECK_OK(isdb_isd_explain(&pol, env.base.X + k * d, &m, &bi, &br));
                want = c.radius == ISDB_ISD_RADIUS_PAPER ? m + bi + br : m + sqrt(bi * bi + br * br);
                if (c.radius == ISDB_ISD_RADIUS_PAPER)
                    CHECK_MSG(sc[k] == want, "variant %d arm %d: score %.17g, explain %.17g", variant, k, sc[k], want);
                else
                    CHECK_NEAR(sc[k], want, 1e-12 * fmax(1.0, fabs(want)));
                if (sc[k] > sc[best])
                    best = k;
            }
            CHECK_OK(isdb_policy_select(&pol.base, env.base.X, K, &arm));
            CHECK(arm == best);
            CHECK_OK(isdb_env_reward(&env.base, arm, &y));
            CHECK_OK(isdb_policy_update(&pol.base, arm, env.base.X + arm * d, y));
        }
        isdb_policy_uninit(&pol.base);
        isdb_env_uninit(&env.base);
    }
}

/* The ADAPTIVE residual learner (the default). (1) With nothing invariant
   (oracle p_inv = 0, and an estimated fit told that nothing is invariant,
   whose JBD basis is not I) ISD is isdb_adaptive with the same R,
   S, lambda, L, delta and alpha that first learnt the log's rows
   (warm_start): the same arms, bit-identical scores and explain's parts.
   (2) With p_inv > 0 every score is x.beta_inv +
   the adaptive score of U_res^T x + the invariant width (explain's parts),
   and a snapshot taken mid-run loads and continues bit for bit. */
static void test_adaptive_learner(void) {
    static const int sizes[2] = {3, 2}, res[2] = {1, 1}, sizes3[3] = {3, 2, 3}, res3[3] = {0, 1, 0};
    static unsigned char s1[1 << 18], s2[1 << 18];
    isdb_isd_env env;
    int d = 5, K = 6, t, k, mode;
    for (mode = 0; mode < 2; ++mode) {
        isdb_isd pol;
        isdb_adaptive ada;
        isdb_isd_config c;
        isdb_adaptive_config ac;
        double a1s[6], a2s[6];
        int same = 1, same_scores = 1, n0 = 1500;
        make_env(&env, d, K, 2, sizes, res, 4 + (uint64_t)mode, 100);
        if (mode == 0) {
            c = isdb_isd_config_init(d, K, 0, NULL, NULL);
            c.oracle = 1;
            c.p_inv = 0;
        } else {
            CHECK_OK(isdb_isd_env_offline(&env, n0, ISDB_ISD_LOG_UNIFORM, 1.0, 9, X0, R0));
            c = isdb_isd_config_init(d, K, n0, X0, R0);
            c.est.level = 0.999999; /* every block fails the test: nothing invariant, in JBD's basis */
        }
        CHECK(c.learner == ISDB_ISD_RES_ADAPTIVE);
        c.lambda = 0.3;
        c.R = 0.8;
        c.S = 1.7;
        c.L = 2.5;
        c.alpha = 0.6;
        c.delta = 0.05;
        ac = isdb_adaptive_config_init(d, K);
        ac.lambda = 0.3;
        ac.R = 0.8;
        ac.S = 1.7;
        ac.L = 2.5;
        ac.alpha = 0.6;
        ac.delta = 0.05;
        ac.hold = 0; /* as ISD's learner */
        ac.kalman = c.kalman; /* as ISD's learner (its Kalman filters too) */
        CHECK_OK(isdb_isd_init(&c, NULL, &pol));
        CHECK(isdb_isd_get_p_inv(&pol) == 0);
        CHECK_OK(isdb_adaptive_init(&ac, NULL, &ada));
        /* warm_start: ISD's learner has learnt the log's rows */
        if (mode == 1)
            for (t = 0; t < n0; ++t) CHECK_OK(isdb_policy_update(&ada.base, 0, X0 + t * d, R0[t]));
        isdb_env_reset(&env.base);
        for (t = 0; t < 3000; ++t) {
            int a1, a2;
            double y;
            CHECK_OK(isdb_env_next(&env.base));
            CHECK_OK(isdb_policy_scores(&pol.base, env.base.X, K, a1s));
            CHECK_OK(isdb_policy_scores(&ada.base, env.base.X, K, a2s));
            for (k = 0; k < K; ++k)
                if (a1s[k] != a2s[k]) same_scores = 0;
            if (t % 100 == 0)
                for (k = 0; k < K; ++k) {
                    /* explain's parts are the learner's own */
                    double m, bi, br, am, ab;
                    CHECK_OK(isdb_isd_explain(&pol, env.base.X + k * d, &m, &bi, &br));
                    CHECK_OK(isdb_adaptive_explain(&ada, env.base.X + k * d, &am, &ab));
                    CHECK_MSG(m == am && br == ab && bi == 0.0, "round %d arm %d: mean %.17g, %.17g", t, k, m, am);
                }
            CHECK_OK(isdb_policy_select(&pol.base, env.base.X, K, &a1));
            CHECK_OK(isdb_policy_select(&ada.base, env.base.X, K, &a2));
            if (a1 != a2) same = 0;
            CHECK_OK(isdb_env_reward(&env.base, a1, &y));
            CHECK_OK(isdb_policy_update(&pol.base, a1, env.base.X + a1 * d, y));
            CHECK_OK(isdb_policy_update(&ada.base, a1, env.base.X + a1 * d, y));
        }
        CHECK_MSG(same && same_scores, "mode %d: p_inv = 0 departs from adaptive (arms %d, scores %d)", mode, same,
                  same_scores);
        isdb_policy_uninit(&pol.base);
        isdb_policy_uninit(&ada.base);
        isdb_env_uninit(&env.base);
    }
    {
        isdb_isd pol, copy;
        isdb_isd_config c;
        isdb_isd_info info;
        double sc[8], sc2[8], worst = 0;
        int n0 = 2000, arm, same = 1;
        size_t n1 = 0, n2 = 0;
        d = 8;
        make_env(&env, d, K, 3, sizes3, res3, 21, 250);
        CHECK_OK(isdb_isd_env_offline(&env, n0, ISDB_ISD_LOG_UNIFORM, 1.0, 22, X0, R0));
        isdb_isd_env_get_invariant_basis(&env, Uinv);
        c = isdb_isd_config_init(d, K, n0, X0, R0);
        c.oracle = 1;
        c.p_inv = env.p_inv;
        c.U_inv = Uinv;
        CHECK_OK(isdb_isd_init(&c, NULL, &pol));
        isdb_env_reset(&env.base);
        for (t = 0; t < 1200; ++t) {
            double y;
            CHECK_OK(isdb_env_next(&env.base));
            CHECK_OK(isdb_policy_scores(&pol.base, env.base.X, K, sc));
            for (k = 0; k < K; ++k) {
                double m, bi, br;
                CHECK_OK(isdb_isd_explain(&pol, env.base.X + k * d, &m, &bi, &br));
                worst = fmax(worst, fabs(sc[k] - (m + bi + br)) / fmax(1.0, fabs(sc[k])));
            }
            if (t >= 600) {
                CHECK_OK(isdb_policy_scores(&copy.base, env.base.X, K, sc2));
                for (k = 0; k < K; ++k)
                    if (sc[k] != sc2[k]) same = 0;
            }
            CHECK_OK(isdb_policy_select(&pol.base, env.base.X, K, &arm));
            CHECK_OK(isdb_env_reward(&env.base, arm, &y));
            CHECK_OK(isdb_policy_update(&pol.base, arm, env.base.X + arm * d, y));
            if (t >= 600) CHECK_OK(isdb_policy_update(&copy.base, arm, env.base.X + arm * d, y));
            if (t == 599) {
                CHECK_OK(isdb_policy_save(&pol.base, s1, sizeof s1, &n1));
                CHECK_OK(isdb_isd_init(&c, NULL, &copy));
                CHECK_OK(isdb_policy_load(&copy.base, s1, n1));
                CHECK_OK(isdb_policy_save(&copy.base, s2, sizeof s2, &n2));
                CHECK(n1 == n2 && memcmp(s1, s2, n1) == 0);
            }
        }
        CHECK_MSG(worst < 1e-12, "score vs explain's parts: %g", worst);
        CHECK_MSG(same, "the loaded copy departs");
        CHECK_OK(isdb_policy_save(&pol.base, s1, sizeof s1, &n1));
        CHECK_OK(isdb_policy_save(&copy.base, s2, sizeof s2, &n2));
        CHECK(n1 == n2 && memcmp(s1, s2, n1) == 0);
        isdb_isd_get_info(&pol, &info);
        CHECK(info.p_inv == env.p_inv && info.p_res == d - env.p_inv && info.r_res > 0.0);
        isdb_policy_uninit(&pol.base);
        isdb_policy_uninit(&copy.base);
        isdb_env_uninit(&env.base);
    }
}

/* The DATA width (the default): r_inv = s sqrt(p + 2 sqrt(p l) + 2 l),
   l = ln(1 / delta), s^2 the fit rows' residual variance about x.beta_inv
   (n - p_inv degrees of freedom), recomputed here in long double, times
   fresh_inv_width (0.1) while the contexts are fresh (before any round)
   and whole once one context recurs, or with fresh_inv_width 1; the
   bounds L and M do not enter it; the invariant bonus is r_inv ||U_inv^T
   x|| in the fit's Gram^-1, so a refit on the offline and online rows
   narrows it; config_check names the new values' fields. */
static void test_data_width(void) {
    static const int sizes[3] = {3, 2, 3}, res[3] = {0, 1, 0};
    isdb_isd_env env;
    isdb_isd pol, pol2;
    isdb_isd_config c;
    isdb_isd_info info, info2;
    isdb_refusal why;
    double beta[MAXD], x[MAXD], bi0, bi1, want, rinv, rres;
    long double rss = 0;
    int d = 8, K = 6, n0 = 2000, i, r, t, arm, pi;
    make_env(&env, d, K, 3, sizes, res, 31, 250);
    CHECK_OK(isdb_isd_env_offline(&env, n0, ISDB_ISD_LOG_UNIFORM, 1.0, 32, X0, R0));
    isdb_isd_env_get_invariant_basis(&env, Uinv);
    c = isdb_isd_config_init(d, K, n0, X0, R0);
    CHECK(c.radius == ISDB_ISD_RADIUS_DATA);
    c.oracle = 1;
    c.p_inv = pi = env.p_inv;
    c.U_inv = Uinv;
    c.history = 1000;
    CHECK_OK(isdb_isd_init(&c, NULL, &pol));
    isdb_isd_get_beta_inv(&pol, beta);
    for (r = 0; r < n0; ++r) {
        long double e = R0[r];
        for (i = 0; i < d; ++i)
            e -= (long double)X0[r * d + i] * beta[i];
        rss += e * e;
    }
    {
        double l = log(100.0), sd = sqrt((double)(rss / (n0 - pi)));
        want = sd * sqrt(pi + 2.0 * sqrt(pi * l) + 2.0 * l);
    }
    isdb_isd_get_radii(&pol, &rinv, &rres);
    /* before any round the contexts count as fresh (nothing recurs yet) */
    CHECK(c.fresh_inv_width == 0.1);
    CHECK_NEAR(rinv, c.fresh_inv_width * want, 1e-9 * want);
    /* one context over and over recurs: the radius's own width (the guard
       and the monitor off, which would take such rows elsewhere) */
    {
        isdb_isd_config c2 = c;
        c2.guard = 0;
        c2.monitor = ISDB_ISD_MONITOR_OFF;
        CHECK_OK(isdb_isd_init(&c2, NULL, &pol2));
        for (i = 0; i < d; ++i)
            x[i] = 0.3 + 0.1 * i;
        for (bi0 = 0, i = 0; i < d; ++i) bi0 += x[i] * beta[i];
        for (t = 0; t < 200; ++t) CHECK_OK(isdb_policy_update(&pol2.base, 0, x, bi0));
        isdb_isd_get_radii(&pol2, &rinv, &rres);
        CHECK_NEAR(rinv, want, 1e-9 * want);
        isdb_policy_uninit(&pol2.base);
        c2.fresh_inv_width = 1;
        CHECK_OK(isdb_isd_init(&c2, NULL, &pol2));
        isdb_isd_get_radii(&pol2, &rinv, &rres);
        CHECK_NEAR(rinv, want, 1e-9 * want);
        isdb_policy_uninit(&pol2.base);
    }
    /* L and M told as the data's: the invariant radius does not move */
    c.L = 4.0;
    c.S = 3.0;
    CHECK_OK(isdb_isd_init(&c, NULL, &pol2));
    isdb_isd_get_info(&pol, &info);
    isdb_isd_get_info(&pol2, &info2);
    CHECK(info.r_inv == info2.r_inv);
    isdb_policy_uninit(&pol2.base);
    /* a refit on 1000 more rows narrows the invariant bonus of a fixed x */
    for (i = 0; i < d; ++i)
        x[i] = 0.3 + 0.1 * i;
    CHECK_OK(isdb_isd_explain(&pol, x, NULL, &bi0, NULL));
    isdb_env_reset(&env.base);
    for (t = 0; t < 1000; ++t) {
        double y;
        arm = play_round(&pol, &env.base, K, &y);
        CHECK_OK(isdb_policy_update(&pol.base, arm, env.base.X + arm * d, y));
    }
    CHECK_OK(isdb_isd_explain(&pol, x, NULL, &bi1, NULL));
    CHECK(bi1 == bi0); /* the fit is the offline one until a refit */
    CHECK_OK(isdb_isd_recompute(&pol));
    CHECK_OK(isdb_isd_explain(&pol, x, NULL, &bi1, NULL));
    CHECK_MSG(bi1 < bi0 * 0.95, "bonus_inv %g after the refit, %g before", bi1, bi0);
    isdb_policy_uninit(&pol.base);
    isdb_env_uninit(&env.base);
    /* the new enum values' bounds are named */
    c = isdb_isd_config_init(d, K, n0, X0, R0);
    c.radius = (isdb_isd_radius)4;
    CHECK(isdb_isd_config_check(&c, &why) == ISDB_ERR_INVALID_ARG && strcmp(why.field, "radius") == 0);
    c = isdb_isd_config_init(d, K, n0, X0, R0);
    c.learner = (isdb_isd_learner)4;
    CHECK(isdb_isd_config_check(&c, &why) == ISDB_ERR_INVALID_ARG && strcmp(why.field, "learner") == 0);
    c = isdb_isd_config_init(d, K, n0, X0, R0);
    CHECK_OK(isdb_isd_config_check(&c, &why));
}

/* Issue 23: what the log can identify. A log of i.i.d. Gaussian rows (one
   covariance throughout) leaves nothing to identify: identifiable = 0 in
   at least 19 of 20 seeds and cov_spread, normalised by the sampling
   noise of a constant covariance, within [0.5, 2]; a log whose coordinate
   variances are redrawn uniform in [0.3, 3] every n / 8 rows is
   identifiable in 20 of 20, at d = 4 and 10 (n = 3000, default options).
   The policy reports its fit's values; oracle mode 1 and -1. */
static void fill_log(int d, int n, int change, uint64_t seed) {
    isdb_rng rng;
    double sc[MAXD];
    int r, i;
    isdb_rng_seed(&rng, seed);
    for (r = 0; r < n; ++r) {
        if (r % (n / 8) == 0)
            for (i = 0; i < d; ++i) sc[i] = change ? 0.3 + 2.7 * isdb_rng_uniform(&rng) : 1.0;
        R0[r] = 0.5 * isdb_rng_normal(&rng);
        for (i = 0; i < d; ++i) {
            X0[r * d + i] = sqrt(sc[i]) * isdb_rng_normal(&rng);
            R0[r] += X0[r * d + i] * (i % 2 ? 1.0 : -0.5);
        }
    }
}

static void test_identifiable(void) {
    static double U[MAXD * MAXD], beta[MAXD], st[MAXD], pv[MAXD], work[400000];
    static const int dims[2] = {4, 10};
    int sz[MAXD], inv[MAXD], di, change, seed, n = 3000;
    for (di = 0; di < 2; ++di)
        for (change = 0; change < 2; ++change) {
            int d = dims[di], count = 0, in_range = 0;
            double mean = 0.0;
            isdb_isd_options o = isdb_isd_options_init();
            CHECK(isdb_isd_estimate_work_size(d, n, &o) <= sizeof work / sizeof work[0]);
            for (seed = 0; seed < 20; ++seed) {
                isdb_isd_fit fit;
                fill_log(d, n, change, 900 + (uint64_t)seed + 100 * (uint64_t)d);
                fit.U = U;
                fit.beta_inv = beta;
                fit.stat = st;
                fit.pvalue = pv;
                fit.sizes = sz;
                fit.invariant = inv;
                fit.cov_spread = -7.0;
                fit.identifiable = -7;
                CHECK(isdb_isd_estimate(d, n, X0, R0, &o, &fit, work) >= 0);
                CHECK(fit.identifiable == (fit.cov_spread > ISDB_ISD_SPREAD_THRESHOLD));
                count += fit.identifiable;
                in_range += fit.cov_spread >= 0.5 && fit.cov_spread <= 2.0;
                mean += fit.cov_spread / 20.0;
                if (seed == 0) {
                    /* The policy's fit reports the same numbers. */
                    isdb_isd_config c = isdb_isd_config_init(d, 4, n, X0, R0);
                    isdb_isd pol;
                    isdb_isd_info info;
                    CHECK_OK(isdb_isd_init(&c, NULL, &pol));
                    isdb_isd_get_info(&pol, &info);
                    CHECK(info.cov_spread == fit.cov_spread);
                    CHECK(info.identifiable == fit.identifiable);
                    {
                        /* Not in snapshots: a restored policy says unknown,
                           and its choices are not affected. */
                        static unsigned char snap[1 << 21];
                        size_t len;
                        isdb_isd copy;
                        CHECK_OK(isdb_policy_save(&pol.base, snap, sizeof snap, &len));
                        CHECK_OK(isdb_isd_init(&c, NULL, &copy));
                        CHECK_OK(isdb_policy_load(&copy.base, snap, len));
                        isdb_isd_get_info(&copy, &info);
                        CHECK(info.identifiable == -1 && info.cov_spread == -1.0);
                        isdb_policy_uninit(&copy.base);
                    }
                    isdb_policy_uninit(&pol.base);
                }
            }
            if (change) {
                printf("identifiable: changing log, d = %d: %d of 20 identifiable, mean cov_spread %.3f\n", d,
                       count, mean);
                CHECK(count == 20);
            } else {
                /* and the normalisation is right on average (standard
                   error of the mean about 0.035 at d = 4, 0.015 at d = 10;
                   without the overlap's share a it would be near 0.87) */
                printf("identifiable: constant log, d = %d: %d of 20 identifiable, mean cov_spread %.3f\n", d,
                       count, mean);
                CHECK(count <= 1);
                CHECK(in_range == 20);
                CHECK(mean > 0.93 && mean < 1.07);
            }
        }
    {
        /* Oracle mode: the caller's basis, nothing estimated. */
        int d = 4, i;
        isdb_isd_config c;
        isdb_isd pol;
        isdb_isd_info info;
        fill_log(d, n, 0, 77);
        for (i = 0; i < d * 2; ++i) Uinv[i] = i / 2 == i % 2 ? 1.0 : 0.0; /* e_1, e_2 */
        c = isdb_isd_config_init(d, 4, n, X0, R0);
        c.oracle = 1;
        c.p_inv = 2;
        c.U_inv = Uinv;
        CHECK_OK(isdb_isd_init(&c, NULL, &pol));
        isdb_isd_get_info(&pol, &info);
        CHECK(info.identifiable == 1 && info.cov_spread == -1.0);
        isdb_policy_uninit(&pol.base);
    }
}

/* The guard (the default with the ADAPTIVE learner). (1) Told a wrong
   invariant subspace (oracle: one drifting direction in, one invariant
   direction out), with the monitor off, ISD hands over to its
   full-dimensional learner, and from then on its scores are bit for bit
   those of an isdb_adaptive with the same settings that learnt the log's
   rows and every online row; a snapshot taken after the switch continues
   bit for bit, and a refit gives the learner back to the guard. (2) Told
   the right subspace, it does not switch. */
static void test_guard(void) {
    static const int sizes[3] = {3, 2, 1}, res[3] = {0, 0, 1};
    static unsigned char s1[1 << 19];
    int d = 6, K = 5, n0 = 2000, T = 3000, seed, t, k, i, j, switched = 0, stayed = 0;
    for (seed = 1; seed <= 4; ++seed) {
        int wrong;
        for (wrong = 1; wrong >= 0; --wrong) {
            isdb_isd_env env;
            isdb_isd pol, copy;
            isdb_adaptive ada;
            isdb_isd_config c;
            isdb_adaptive_config ac;
            isdb_isd_info info;
            double U5[MAXD * MAXD], sc[8], sc2[8];
            int at = -1, same = 1, same_copy = 1;
            size_t n1 = 0;
            make_env(&env, d, K, 3, sizes, res, 40 + (uint64_t)seed, 250);
            CHECK_OK(isdb_isd_env_offline(&env, n0, ISDB_ISD_LOG_UNIFORM, 1.0, 60 + (uint64_t)seed, X0, R0));
            /* right: the 5 invariant columns; wrong: columns 1..5 (the
               drifting column 5 in, the invariant column 0 out) */
            for (i = 0; i < d; ++i)
                for (j = 0; j < 5; ++j) U5[i * 5 + j] = env.basis[i * d + j + wrong];
            c = isdb_isd_config_init(d, K, n0, X0, R0);
            c.oracle = 1;
            c.p_inv = 5;
            c.U_inv = U5;
            c.R = 0.5;
            c.monitor = ISDB_ISD_MONITOR_OFF;
            CHECK(c.guard == 1 && c.warm_start == 1);
            CHECK_OK(isdb_isd_init(&c, NULL, &pol));
            ac = isdb_adaptive_config_init(d, K);
            ac.R = 0.5;
            ac.hold = 0; /* as ISD's learner */
            CHECK_OK(isdb_adaptive_init(&ac, NULL, &ada));
            for (t = 0; t < n0; ++t) CHECK_OK(isdb_policy_update(&ada.base, 0, X0 + t * d, R0[t]));
            isdb_env_reset(&env.base);
            for (t = 0; t < T; ++t) {
                int arm;
                double y;
                CHECK_OK(isdb_env_next(&env.base));
                isdb_isd_get_info(&pol, &info);
                if (info.guard_switched) {
                    if (at < 0) at = t;
                    CHECK_OK(isdb_policy_scores(&pol.base, env.base.X, K, sc));
                    CHECK_OK(isdb_policy_scores(&ada.base, env.base.X, K, sc2));
                    for (k = 0; k < K; ++k)
                        if (sc[k] != sc2[k]) same = 0;
                    if (t == at + 100) {
                        CHECK_OK(isdb_policy_save(&pol.base, s1, sizeof s1, &n1));
                        CHECK_OK(isdb_isd_init(&c, NULL, &copy));
                        CHECK_OK(isdb_policy_load(&copy.base, s1, n1));
                    }
                    if (t > at + 100) {
                        CHECK_OK(isdb_policy_scores(&copy.base, env.base.X, K, sc2));
                        for (k = 0; k < K; ++k)
                            if (sc[k] != sc2[k]) same_copy = 0;
                    }
                }
                CHECK_OK(isdb_policy_select(&pol.base, env.base.X, K, &arm));
                CHECK_OK(isdb_env_reward(&env.base, arm, &y));
                CHECK_OK(isdb_policy_update(&pol.base, arm, env.base.X + arm * d, y));
                CHECK_OK(isdb_policy_update(&ada.base, arm, env.base.X + arm * d, y));
                if (at >= 0 && t >= at + 100) CHECK_OK(isdb_policy_update(&copy.base, arm, env.base.X + arm * d, y));
            }
            isdb_isd_get_info(&pol, &info);
            if (wrong) {
                switched += at >= 0;
                printf("guard: seed %d, wrong subspace: switched at online round %d (t statistic %.1f)\n", seed, at,
                       info.guard_stat);
                CHECK_MSG(same, "seed %d: after the switch ISD's scores depart from adaptive's", seed);
                if (at >= 0 && at + 100 < T) {
                    CHECK_MSG(same_copy, "seed %d: a snapshot taken after the switch departs", seed);
                    isdb_policy_uninit(&copy.base);
                }
                if (at >= 0) {
                    CHECK(info.fallback == 1 && info.p_inv == 0);
                    /* a refit gives the learner back to the guard */
                    CHECK_OK(isdb_isd_recompute(&pol));
                    isdb_isd_get_info(&pol, &info);
                    CHECK(info.guard_switched == 0 && info.fallback == 0 && info.p_inv == 5);
                    for (t = 0; t < 200; ++t) {
                        int arm;
                        double y;
                        arm = play_round(&pol, &env.base, K, &y);
                        CHECK_OK(isdb_policy_update(&pol.base, arm, env.base.X + arm * d, y));
                    }
                }
            } else {
                stayed += at < 0;
                CHECK_MSG(at < 0, "seed %d: the guard switched at round %d on the right subspace (t %.1f)", seed, at,
                          info.guard_stat);
            }
            isdb_policy_uninit(&pol.base);
            isdb_policy_uninit(&ada.base);
            isdb_env_uninit(&env.base);
        }
    }
    {
        /* nothing invariant: the guard's learner waits, and the policy's
           snapshots load (right after init and after updates) */
        isdb_isd_env env;
        isdb_isd pol, copy;
        isdb_isd_config c;
        size_t n1 = 0;
        make_env(&env, d, K, 3, sizes, res, 90, 250);
        c = isdb_isd_config_init(d, K, 0, NULL, NULL);
        c.oracle = 1;
        c.p_inv = 0;
        CHECK_OK(isdb_isd_init(&c, NULL, &pol));
        CHECK_OK(isdb_isd_init(&c, NULL, &copy));
        CHECK_OK(isdb_policy_save(&pol.base, s1, sizeof s1, &n1));
        CHECK_OK(isdb_policy_load(&copy.base, s1, n1));
        isdb_env_reset(&env.base);
        for (t = 0; t < 300; ++t) {
            int arm;
            double y;
            arm = play_round(&pol, &env.base, K, &y);
            CHECK_OK(isdb_policy_update(&pol.base, arm, env.base.X + arm * d, y));
        }
        CHECK_OK(isdb_policy_save(&pol.base, s1, sizeof s1, &n1));
        CHECK_OK(isdb_policy_load(&copy.base, s1, n1));
        isdb_policy_uninit(&pol.base);
        isdb_policy_uninit(&copy.base);
        isdb_env_uninit(&env.base);
    }
    printf("guard: switched on a wrong subspace in %d of 4 seeds, stayed on the right one in %d of 4\n", switched,
           stayed);
    CHECK_MSG(switched >= 3, "the guard switched on a wrong subspace in %d of 4 seeds", switched);
}

int main(void) {
    test_config();
    test_env();
    test_recompute();
    test_estimator_planted();
    test_monitor();
    test_block_test();
    test_block_test_public();
    test_monitor_demotes();
    test_monitor_confirm();
    test_monitor_reference();
    test_batched_scores();
    test_oracle_known_beta();
    test_oracle_estimated_beta();
    test_p_res_zero();
    test_pinv0_is_linucb();
    test_windowed_learners();
    test_adaptive_learner();
    test_data_width();
    test_identifiable();
    test_guard();
    return test_report();
}

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
   - the invariance monitor (our extension): after the invariant component
     changes, regret returns to the level of a full-dimensional learner;
   - the F quantile of the monitor; the environment. */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "test.h"
#include "ref.h"

#include <stdlib.h>
#include <string.h>

#define MAXD 12
#define MAXT 4000
#define MAXN 12000

static double X0[MAXN * MAXD], R0[MAXN], Uinv[MAXD * MAXD];
static double hx[MAXT * MAXD], hy[MAXT];

/* An environment: d, blocks, residual flags, offline rows. */
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
        for (j = 0; j < q; ++j) out[i * q + j] = U[i * d + from + j];
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
    for (i = 0; i < q * q; ++i) Vl[i] = 0;
    for (i = 0; i < q; ++i) {
        Vl[i * q + i] = lambda;
        bl[i] = 0;
    }
    for (t = 0; t < n; ++t) {
        long double zt[MAXD], r = hy[t];
        for (i = 0; i < d; ++i) r -= (long double)hx[t * d + i] * beta[i];
        for (j = 0; j < q; ++j) {
            zt[j] = 0;
            for (i = 0; i < d; ++i) zt[j] += (long double)hx[t * d + i] * Ur[i * q + j];
        }
        for (i = 0; i < q; ++i) {
            for (j = 0; j < q; ++j) Vl[i * q + j] += zt[i] * zt[j];
            bl[i] += zt[i] * r;
        }
    }
    for (i = 0; i < q * q; ++i) V[i] = (double)Vl[i];
    for (i = 0; i < q; ++i) b[i] = (double)bl[i];
    if (q > 0) ref_solve(q, V, b, delta);
    for (i = 0; i < d; ++i) {
        long double g = beta[i];
        for (j = 0; j < q; ++j) g += (long double)Ur[i * q + j] * delta[j];
        m += g * x[i];
    }
    for (j = 0; j < q; ++j) {
        long double s = 0;
        for (i = 0; i < d; ++i) s += (long double)x[i] * Ur[i * q + j];
        z[j] = (double)s;
    }
    if (q > 0) {
        ref_solve(q, V, z, u);
        for (j = 0; j < q; ++j) nr += (long double)z[j] * u[j];
    }
    if (Sb && pi > 0) {
        static double zi[MAXD], ui[MAXD];
        for (j = 0; j < pi; ++j) {
            long double s = 0;
            for (i = 0; i < d; ++i) s += (long double)x[i] * U[i * d + j];
            zi[j] = (double)s;
        }
        ref_solve(pi, Sb, zi, ui);
        for (j = 0; j < pi; ++j) ni += (long double)zi[j] * ui[j];
    }
    *mean = (double)m;
    if (joint) return (double)(m + r_res * sqrtl(ni + nr));
    return (double)(m + r_inv * sqrtl(ni) + r_res * sqrtl(nr));
}

/* The paper's widths written again (norm radii): eq. 30's first term with
   eta, and eq. 25 with DeltaPi = 0 (eq. 20). */
static double ref_rho1(int q, double t, double lambda, double eta, double sigma, double M, double L) {
    return sigma * sqrt(2 * log(1 / eta) + q * log(1 + t * L * L / (lambda * q))) + sqrt(lambda) * M;
}

static double ref_rinv(int pi, double lambda0, double delta, double sigma, double M, double L) {
    double a = 2 * log(1 / delta) + pi * log(L * L / (pi * lambda0));
    return sigma * sqrt(a > 0 ? a : 0) + 2 * L * L * M * sqrt(2 / lambda0 * log((pi + 1) / delta));
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
    isdb_isd_env_invariant_basis(&env, Uinv);
    c = isdb_isd_config_init(d, K, 0, NULL, NULL);
    c.oracle = 1;
    c.p_inv = env.p_inv;
    c.U_inv = Uinv;
    c.beta_inv = env.beta_inv;
    c.lambda = 0.7;
    c.sigma = 0.9;
    c.M = 2.0;
    c.L = 3.0;
    c.delta = 0.05;
    CHECK_OK(isdb_isd_init(&c, NULL, &pol));
    CHECK(isdb_isd_p_inv(&pol) == 6);
    isdb_isd_basis(&pol, U);
    for (t = 0; t < 300; ++t) {
        int arm;
        double y, rr, ri, mean, bi, br;
        CHECK_OK(isdb_env_next(&env.base));
        CHECK_OK(isdb_policy_scores(&pol.base, env.base.X, K, scores));
        isdb_isd_radii(&pol, &ri, &rr);
        CHECK(ri == 0.0);
        CHECK_NEAR(rr, ref_rho1(2, t, 0.7, 0.05, 0.9, 2.0, 3.0), 1e-12 * rr);
        for (k = 0; k < K; ++k) {
            double want = direct_score(d, 6, U, env.beta_inv, env.base.X + k * d, t, 0.7, 0, NULL, rr, 0, &mean);
            worst = fmax(worst, fabs(scores[k] - want) / fmax(1.0, fabs(want)));
        }
        CHECK_OK(isdb_isd_explain(&pol, env.base.X, &mean, &bi, &br));
        CHECK(bi == 0.0);
        CHECK_OK(isdb_policy_select(&pol.base, env.base.X, K, &arm));
        CHECK(arm == isdb__argmax(scores, K));
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
    isdb_isd_env_invariant_basis(&env, Uinv);
    for (mode = 0; mode < 2; ++mode) {
        isdb_isd pol;
        isdb_isd_config c = isdb_isd_config_init(d, K, n0, X0, R0);
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
        isdb_isd_basis(&pol, U);
        isdb_isd_beta_inv(&pol, beta);
        /* Sigma = X0^T X0, Sigma_beta = U_inv^T Sigma U_inv, beta = U_inv
           Sb^-1 U_inv^T X0^T R0. */
        for (i = 0; i < d; ++i)
            for (j = 0; j < d; ++j) {
                acc = 0;
                for (r = 0; r < n0; ++r) acc += (long double)X0[r * d + i] * X0[r * d + j];
                Sig[i * d + j] = (double)acc;
            }
        for (i = 0; i < pi; ++i) {
            for (j = 0; j < pi; ++j) {
                int a, b2;
                acc = 0;
                for (a = 0; a < d; ++a)
                    for (b2 = 0; b2 < d; ++b2) acc += (long double)U[a * d + i] * Sig[a * d + b2] * U[b2 * d + j];
                Sb[i * pi + j] = (double)acc;
            }
            acc = 0;
            for (r = 0; r < n0; ++r) {
                long double xu = 0;
                int a;
                for (a = 0; a < d; ++a) xu += (long double)X0[r * d + a] * U[a * d + i];
                acc += xu * R0[r];
            }
            zb[i] = (double)acc;
        }
        ref_solve(pi, Sb, zb, w);
        for (i = 0; i < d; ++i) {
            acc = 0;
            for (j = 0; j < pi; ++j) acc += (long double)U[i * d + j] * w[j];
            beta_ref[i] = (double)acc;
        }
        for (i = 0; i < d; ++i) CHECK_NEAR(beta[i], beta_ref[i], 1e-10);
        for (i = 0; i < d * d; ++i) E[i] = Sig[i] / n0;
        CHECK(isdb_sym_eig(d, E, w, Sb + 0) >= 0);
        lambda0 = w[0];
        /* Sb was overwritten as scratch: rebuild it. */
        for (i = 0; i < pi; ++i)
            for (j = 0; j < pi; ++j) {
                int a, b2;
                acc = 0;
                for (a = 0; a < d; ++a)
                    for (b2 = 0; b2 < d; ++b2) acc += (long double)U[a * d + i] * Sig[a * d + b2] * U[b2 * d + j];
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
            isdb_isd_radii(&pol, &ri, &rr);
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
    isdb_isd_env_invariant_basis(&env, Uinv);
    c = isdb_isd_config_init(d, K, 500, X0, R0);
    c.oracle = 1;
    c.p_inv = 4;
    c.U_inv = Uinv;
    CHECK_OK(isdb_isd_init(&c, NULL, &pol));
    isdb_isd_basis(&pol, U);
    isdb_isd_beta_inv(&pol, beta);
    CHECK_OK(isdb_env_next(&env.base));
    CHECK_OK(isdb_policy_scores(&pol.base, env.base.X, K, s1));
    for (t = 0; t < 20; ++t) CHECK_OK(isdb_policy_update(&pol.base, t % K, env.base.X + (t % K) * d, 3.0 * t));
    CHECK_OK(isdb_policy_scores(&pol.base, env.base.X, K, s2));
    for (k = 0; k < K; ++k) {
        double mean, bi, br;
        CHECK(s1[k] == s2[k]);
        CHECK_OK(isdb_isd_explain(&pol, env.base.X + k * d, &mean, &bi, &br));
        CHECK(br == 0.0 && bi > 0.0);
        CHECK_NEAR(mean, isdb__dot(d, beta, env.base.X + k * d), 1e-12);
        CHECK_NEAR(s1[k], mean + bi, 1e-12 * fabs(s1[k]));
    }
    isdb_policy_uninit(&pol.base);
    isdb_env_uninit(&env.base);
}

/* p_inv = 0 in oracle mode is LinUCB (DETTRACE width, R = sigma, S = M):
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
    c = isdb_isd_config_init(d, K, 0, NULL, NULL);
    c.oracle = 1;
    c.p_inv = 0;
    c.lambda = 0.3;
    c.sigma = 0.8;
    c.M = 1.7;
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
            if (s1[k] != s2[k]) same_scores = 0;
        CHECK_OK(isdb_policy_select(&pol.base, env.base.X, K, &a1));
        CHECK_OK(isdb_policy_select(&lin.base, env.base.X, K, &a2));
        if (a1 != a2) same = 0;
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
    isdb_isd_env_invariant_basis(&env, Uinv);
    for (mode = 0; mode < 2; ++mode) {
        isdb_isd pol;
        isdb_isd_config c = isdb_isd_config_init(d, K, 0, NULL, NULL);
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
        isdb_isd_basis(&pol, U);
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
            for (i = 0; i < 9; ++i) V[i] = Vt[i] = 0;
            for (i = 0; i < 3; ++i) {
                V[i * 3 + i] = Vt[i * 3 + i] = c.lambda;
                b[i] = 0;
            }
            for (s = from; s < t; ++s) {
                long double z[3], r = hy[s], wt = mode ? powl(g, t - 1 - s) : 1;
                for (i = 0; i < d; ++i) r -= (long double)hx[s * d + i] * env.beta_inv[i];
                for (j = 0; j < q; ++j) {
                    z[j] = 0;
                    for (i = 0; i < d; ++i) z[j] += (long double)hx[s * d + i] * Ur[i * q + j];
                }
                for (i = 0; i < 3; ++i) {
                    for (j = 0; j < 3; ++j) {
                        V[i * 3 + j] += wt * z[i] * z[j];
                        Vt[i * 3 + j] += wt * wt * z[i] * z[j];
                    }
                    b[i] += wt * r * z[i];
                }
            }
            for (i = 0; i < 9; ++i) Vd[i] = (double)V[i];
            for (i = 0; i < 3; ++i) bd[i] = (double)b[i];
            ref_solve(3, Vd, bd, delta);
            for (k = 0; k < K; ++k) {
                const double *x = env.base.X + k * d;
                double z[3], u[3], want;
                long double m = 0, nr = 0;
                for (j = 0; j < q; ++j) {
                    long double sz = 0;
                    for (i = 0; i < d; ++i) sz += (long double)x[i] * Ur[i * q + j];
                    z[j] = (double)sz;
                }
                for (i = 0; i < d; ++i) m += (long double)x[i] * env.beta_inv[i];
                for (j = 0; j < q; ++j) m += (long double)z[j] * delta[j];
                ref_solve(3, Vd, z, u);
                if (mode)
                    for (i = 0; i < 3; ++i)
                        for (j = 0; j < 3; ++j) nr += (long double)u[i] * Vt[i * 3 + j] * u[j];
                else
                    for (j = 0; j < 3; ++j) nr += (long double)z[j] * u[j];
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

int main(void) {
    test_oracle_known_beta();
    test_oracle_estimated_beta();
    test_p_res_zero();
    test_pinv0_is_linucb();
    test_windowed_learners();
    return test_report();
}

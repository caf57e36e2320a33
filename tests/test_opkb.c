/* OPKB / ADA-OPKB (Hong, Li, Tewari, AISTATS 2023): kernels and feature
   maps, the log-det problem (OP and the regularised optimal designs),
   the block and replay machinery of Algorithms 2-4, the IPS estimator,
   the change-detection test and the fixed-arm kernel environments.
   References computed here: long-double Gram matrices, log-dets and
   solves (ref.h), and the IPS estimator summed round by round. */
#include "../isdbandit.h"
#include "test.h"
#include "ref.h"

#include <stdlib.h>
#include <string.h>

static void sphere_arms(isdb_rng *rng, int n, int d, double *X) {
    int i, k;
    for (i = 0; i < n; ++i) {
        double s = 0.0;
        for (k = 0; k < d; ++k) {
            X[i * d + k] = isdb_rng_normal(rng);
            s += X[i * d + k] * X[i * d + k];
        }
        for (k = 0; k < d; ++k) X[i * d + k] /= sqrt(s);
    }
}

/* ---- kernels and feature maps ------------------------------------------------ */

static void test_kernels(void) {
    enum { n = 7, d = 3 };
    double X[n * d], K[n * n];
    isdb_rng rng;
    int i, j, k, kind;
    isdb_rng_seed(&rng, 11);
    for (i = 0; i < n * d; ++i) X[i] = isdb_rng_normal(&rng);
    for (kind = 0; kind < 3; ++kind) {
        double ls = 0.8, worst = 0.0;
        CHECK_OK(isdb_kernel_gram((isdb_kernel)kind, ls, n, d, X, K));
        for (i = 0; i < n; ++i)
            for (j = 0; j < n; ++j) {
                long double dot = 0, r2 = 0, want, a;
                for (k = 0; k < d; ++k) {
                    dot += (long double)X[i * d + k] * X[j * d + k];
                    r2 += ((long double)X[i * d + k] - X[j * d + k]) * ((long double)X[i * d + k] - X[j * d + k]);
                }
                a = sqrtl(5 * r2) / ls;
                want = kind == 0 ? dot : kind == 1 ? expl(-r2 / (2.0L * ls * ls)) : (1 + a + a * a / 3) * expl(-a);
                if (fabs(K[i * n + j] - (double)want) > worst) worst = fabs(K[i * n + j] - (double)want);
                CHECK(K[i * n + j] == K[j * n + i]);
            }
        /* Entries are at most |x|^2 ~ 10 (linear) or 1: a few ulps. */
        CHECK_LE(worst, 1e-13);
        if (kind) CHECK(K[0] == 1.0);
    }
    CHECK_RESULT(isdb_kernel_gram(ISDB_KERNEL_GRAM, 1.0, n, d, X, K), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_kernel_gram(ISDB_KERNEL_RBF, 0.0, n, d, X, K), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_kernel_gram(ISDB_KERNEL_RBF, 1.0, 0, d, X, K), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_kernel_gram(ISDB_KERNEL_RBF, 1.0, n, d, NULL, K), ISDB_ERR_INVALID_ARG);
    X[4] = T_NAN;
    CHECK_RESULT(isdb_kernel_gram(ISDB_KERNEL_LINEAR, 1.0, n, d, X, K), ISDB_ERR_NONFINITE);
}

/* ||Phi Phi^T - K||_F / ||K||_F for an n x p map. */
static double map_error(int n, int p, const double *Phi, const double *K) {
    static double PT[REF_MAXN * REF_MAXN], P[REF_MAXN * REF_MAXN];
    transpose(n, p, Phi, PT);
    matmul(n, p, n, Phi, PT, P);
    return rel_diff(n, n, P, K);
}

static void test_feature_maps(void) {
    enum { n = 12, d = 3 };
    static double X[n * d], K[n * n], Phi[n * n], work[2 * n * n + n], A[4];
    isdb_rng rng;
    int p = 0, i, j;
    isdb_rng_seed(&rng, 12);
    sphere_arms(&rng, n, d, X);
    /* A positive definite kernel: Cholesky (lower triangular, p = n), the
       eigen map, and AUTO = Cholesky. */
    CHECK_OK(isdb_kernel_gram(ISDB_KERNEL_RBF, 0.5, n, d, X, K));
    CHECK_OK(isdb_feature_map_build(n, K, ISDB_FEATURES_CHOLESKY, 0.0, Phi, &p, work));
    CHECK(p == n && strictly_upper_zero(n, Phi));
    CHECK_LE(map_error(n, p, Phi, K), 1e-14);
    CHECK_OK(isdb_feature_map_build(n, K, ISDB_FEATURES_AUTO, 1e-12, Phi, &p, work));
    CHECK(p == n);
    CHECK_OK(isdb_feature_map_build(n, K, ISDB_FEATURES_EIGEN, 1e-12, Phi, &p, work));
    CHECK(p == n);
    /* Jacobi eigenvectors are orthonormal to ~n eps. */
    CHECK_LE(map_error(n, p, Phi, K), 1e-13);
    /* Rank 3 (K = X X^T, 12 arms in R^3): Cholesky refuses, AUTO and EIGEN
       give a rank-3 map. */
    CHECK_OK(isdb_kernel_gram(ISDB_KERNEL_LINEAR, 1.0, n, d, X, K));
    CHECK_RESULT(isdb_feature_map_build(n, K, ISDB_FEATURES_CHOLESKY, 0.0, Phi, &p, work), ISDB_ERR_NOT_SPD);
    CHECK_OK(isdb_feature_map_build(n, K, ISDB_FEATURES_AUTO, 1e-12, Phi, &p, work));
    CHECK(p == d);
    CHECK_LE(map_error(n, p, Phi, K), 1e-13);
    CHECK_OK(isdb_feature_map_build(n, K, ISDB_FEATURES_EIGEN, 1e-12, Phi, &p, work));
    CHECK(p == d);
    /* rank_tol cuts relative to the largest eigenvalue. */
    CHECK_OK(isdb_kernel_gram(ISDB_KERNEL_RBF, 0.5, n, d, X, K));
    {
        double w[n], V[n * n], Kc[n * n];
        int expect = 0;
        memcpy(Kc, K, sizeof Kc);
        CHECK(isdb_sym_eig(n, Kc, w, V) >= 0);
        for (i = 0; i < n; ++i)
            if (w[i] > 0.1 * w[n - 1]) ++expect;
        CHECK_OK(isdb_feature_map_build(n, K, ISDB_FEATURES_EIGEN, 0.1, Phi, &p, work));
        CHECK(p == expect && p < n);
    }
    /* Bad matrices. */
    A[0] = 1.0;
    A[1] = A[2] = 2.0;
    A[3] = 1.0; /* eigenvalues 3 and -1 */
    CHECK_RESULT(isdb_feature_map_build(2, A, ISDB_FEATURES_AUTO, 0.0, Phi, &p, work), ISDB_ERR_NOT_SPD);
    CHECK_RESULT(isdb_feature_map_build(2, A, ISDB_FEATURES_EIGEN, 0.0, Phi, &p, work), ISDB_ERR_NOT_SPD);
    A[1] = A[2] = 0.0;
    A[3] = -0.5;
    CHECK_RESULT(isdb_feature_map_build(2, A, ISDB_FEATURES_AUTO, 0.0, Phi, &p, work), ISDB_ERR_NOT_SPD);
    A[0] = A[3] = 0.0;
    CHECK_RESULT(isdb_feature_map_build(2, A, ISDB_FEATURES_AUTO, 0.0, Phi, &p, work), ISDB_ERR_SINGULAR);
    A[0] = A[3] = 1.0;
    A[1] = 0.5;
    CHECK_RESULT(isdb_feature_map_build(2, A, ISDB_FEATURES_AUTO, 0.0, Phi, &p, work), ISDB_ERR_INVALID_ARG);
    A[1] = T_NAN;
    CHECK_RESULT(isdb_feature_map_build(2, A, ISDB_FEATURES_AUTO, 0.0, Phi, &p, work), ISDB_ERR_NONFINITE);
    A[1] = 0.0;
    CHECK_RESULT(isdb_feature_map_build(2, A, ISDB_FEATURES_AUTO, 1.0, Phi, &p, work), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_feature_map_build(2, A, (isdb_feature_map)7, 0.0, Phi, &p, work), ISDB_ERR_INVALID_ARG);
    for (i = 0; i < 2; ++i)
        for (j = 0; j < 2; ++j) A[i * 2 + j] = i == j ? 2.0 : 0.0;
    CHECK_OK(isdb_feature_map_build(2, A, ISDB_FEATURES_AUTO, 0.0, Phi, &p, work));
    CHECK(p == 2 && fabs(Phi[0] - sqrt(2.0)) < 1e-15);
}

/* ---- the log-det problem ------------------------------------------------------ */

/* f(x) = c.x - ln det(sum x_i phi_i phi_i^T + lambda I) in long double. */
static long double ref_objective(int n, int p, const double *Phi, const double *c, double lambda, const double *x) {
    static double S[REF_MAXN * REF_MAXN];
    static long double L[REF_MAXN * REF_MAXN];
    long double f = 0, ld = 0;
    int i, r, k;
    for (r = 0; r < p; ++r)
        for (k = 0; k < p; ++k) {
            long double s = r == k ? lambda : 0;
            for (i = 0; i < n; ++i) s += (long double)x[i] * Phi[i * p + r] * Phi[i * p + k];
            S[r * p + k] = (double)s;
        }
    if (!ref_chol(p, S, L)) return 1e300L;
    for (r = 0; r < p; ++r) ld += 2 * logl(L[r * p + r]);
    for (i = 0; i < n; ++i) f += (long double)(c ? c[i] : 0.0) * x[i];
    return f - ld;
}

/* v_i = phi_i^T S(x)^-1 phi_i by long-double Gaussian elimination. */
static void ref_leverage(int n, int p, const double *Phi, double lambda, const double *x, double *v) {
    static double S[REF_MAXN * REF_MAXN], y[REF_MAXN];
    int i, r, k;
    for (r = 0; r < p; ++r)
        for (k = 0; k < p; ++k) {
            long double s = r == k ? lambda : 0;
            for (i = 0; i < n; ++i) s += (long double)x[i] * Phi[i * p + r] * Phi[i * p + k];
            S[r * p + k] = (double)s;
        }
    for (i = 0; i < n; ++i) {
        ref_solve(p, S, Phi + i * p, y);
        v[i] = t_dot(p, Phi + i * p, y);
    }
}

enum { SMAX = 256 };
static double s_X[SMAX * 8], s_K[SMAX * SMAX], s_Phi[SMAX * SMAX], s_fw[2 * SMAX * SMAX + SMAX];
static double s_x[SMAX], s_c[SMAX], s_gap[SMAX], s_pi[SMAX], s_piA[SMAX], s_Q[SMAX], s_v[SMAX], s_y[SMAX];
static double s_phiA[SMAX * SMAX], s_work[2 * SMAX * SMAX + 2 * SMAX * SMAX + SMAX * SMAX + 12 * SMAX];

/* One random instance: n arms on the sphere of R^d, the kernel's map, the
   design pi(X), OP with random gaps, pi(A) and Q = (P* + pi(A)) / 2.
   Checks every solve's KKT residual (reported and recomputed, below 1e-6,
   the bound) and the post-conditions (2)-(4) of Lemma 4.4, with
   gamma = ln det(I + T/sigma M(pi(X))) (the paper's definition).
   Slack of the Lemma's bounds: a KKT residual eps moves nu and each z_i
   by at most eps, and (3), (4) double v_{P*} and v_{pi(A)}; so (2) may be
   exceeded by 2 eps / beta, (3) and (4) by 4 eps + 2 eps' (eps' that of
   pi(A)), plus the design's own residual in gamma. */
static void solver_instance(isdb_rng *rng, int n, int d, isdb_kernel kern, double lambda, int small) {
    isdb_opkb_solve_info info, info_op, info_A;
    double gamma, alpha, beta, thr, kkt = 1.0, lhs, eps, s;
    int p = d, i, nA = 0, ok2, ok3 = 1, ok4 = 1;
    char what[96];
    sprintf(what, "n %d d %d kernel %d lambda %g", n, d, (int)kern, lambda);
    sphere_arms(rng, n, d, s_X);
    if (kern == ISDB_KERNEL_LINEAR) {
        memcpy(s_Phi, s_X, sizeof(double) * (size_t)(n * d));
    } else {
        CHECK_OK(isdb_kernel_gram(kern, 0.6, n, d, s_X, s_K));
        CHECK_OK(isdb_feature_map_build(n, s_K, ISDB_FEATURES_AUTO, 1e-12, s_Phi, &p, s_fw));
    }
    /* The design pi(X). */
    CHECK_OK(isdb_opkb_solve(n, p, s_Phi, NULL, lambda, NULL, 1e-9, 200, s_pi, &info, s_work));
    CHECK_MSG(info.kkt <= 1e-6, "%s: design residual %g", what, info.kkt);
    CHECK_OK(isdb_opkb_kkt(n, p, s_Phi, NULL, lambda, s_pi, &kkt, NULL, NULL, s_work));
    CHECK_NEAR(kkt, info.kkt, 1e-12);
    s = 0.0;
    for (i = 0; i < n; ++i) {
        CHECK(s_pi[i] >= 0.0);
        s += s_pi[i];
    }
    CHECK_NEAR(s, 1.0, 1e-12);
    gamma = -info.objective - (double)p * log(lambda);
    eps = info.kkt;
    /* OP with gaps in [0, 2), the smallest 0; alpha and beta as in the
       paper's range of use. */
    for (i = 0; i < n; ++i) s_gap[i] = 2.0 * isdb_rng_uniform(rng);
    s_gap[t_argmax(s_gap, n) == 0 && n > 1 ? 1 : 0] = 0.0;
    alpha = 0.1 + 2.0 * isdb_rng_uniform(rng);
    beta = gamma / (10.0 + 4.0 * sqrt(alpha)) * pow(2.0, 0.5 * (double)(1 + (int)isdb_rng_below(rng, 8)));
    for (i = 0; i < n; ++i) s_c[i] = 0.5 * beta * s_gap[i];
    CHECK_OK(isdb_opkb_solve(n, p, s_Phi, s_c, lambda, s_pi, 1e-9, 200, s_x, &info_op, s_work));
    CHECK_MSG(info_op.kkt <= 1e-6, "%s: OP residual %g", what, info_op.kkt);
    CHECK_OK(isdb_opkb_kkt(n, p, s_Phi, s_c, lambda, s_x, &kkt, NULL, NULL, s_work));
    CHECK_NEAR(kkt, info_op.kkt, 1e-12);
    /* pi(A) on the rows of A = {gap <= 2 alpha gamma / beta}. */
    thr = 2.0 * alpha * gamma / beta;
    for (i = 0; i < n; ++i)
        if (s_gap[i] <= thr) memcpy(s_phiA + (nA++) * p, s_Phi + i * p, sizeof(double) * (size_t)p);
    CHECK(nA >= 1);
    CHECK_OK(isdb_opkb_solve(nA, p, s_phiA, NULL, lambda, NULL, 1e-9, 200, s_y, &info_A, s_work));
    CHECK_MSG(info_A.kkt <= 1e-6, "%s: pi(A) residual %g", what, info_A.kkt);
    nA = 0;
    for (i = 0; i < n; ++i) s_piA[i] = s_gap[i] <= thr ? s_y[nA++] : 0.0;
    /* Lemma 4.4. */
    lhs = 0.0;
    for (i = 0; i < n; ++i) {
        s_Q[i] = 0.5 * s_x[i] + 0.5 * s_piA[i];
        lhs += s_Q[i] * s_gap[i];
    }
    ok2 = lhs <= (1.0 + alpha) * gamma / beta + 2.0 * (info_op.kkt + eps) / beta;
    CHECK_MSG(ok2, "%s: (2) sum Q gap = %g > (1 + alpha) gamma / beta = %g", what, lhs, (1.0 + alpha) * gamma / beta);
    CHECK_OK(isdb_opkb_kkt(n, p, s_Phi, NULL, lambda, s_Q, &kkt, s_v, NULL, s_work));
    for (i = 0; i < n; ++i) {
        double slack = 4.0 * info_op.kkt + 2.0 * info_A.kkt + 2.0 * eps;
        if (!(s_v[i] <= beta * s_gap[i] + 2.0 * gamma + slack)) ok3 = 0;
        if (!(s_v[i] <= beta * beta * s_gap[i] * s_gap[i] / (2.0 * alpha * gamma) + 2.0 * gamma + slack)) ok4 = 0;
    }
    CHECK_MSG(ok3, "%s: (3) fails", what);
    CHECK_MSG(ok4, "%s: (4) fails", what);
    if (small) {
        /* Independent check, in long double: v agrees with the library's,
           and no feasible point does better than P* (random points of the
           simplex, and moves of mass between two arms). */
        long double f0 = ref_objective(n, p, s_Phi, s_c, lambda, s_x), worst = -1e300L;
        double vr[SMAX];
        int t, a, b, vbad = 0;
        ref_leverage(n, p, s_Phi, lambda, s_Q, vr);
        for (i = 0; i < n; ++i)
            if (fabs(vr[i] - s_v[i]) > 1e-10 * (1.0 + fabs(vr[i]))) vbad = 1;
        CHECK_MSG(!vbad, "%s: leverages differ from the reference", what);
        for (t = 0; t < 300; ++t) {
            long double f;
            if (t < 100) {
                double tot = 0.0;
                for (i = 0; i < n; ++i) tot += (s_y[i] = -log(1.0 - isdb_rng_uniform(rng)));
                for (i = 0; i < n; ++i) s_y[i] /= tot;
            } else {
                double h;
                a = (int)isdb_rng_below(rng, (uint64_t)n);
                b = (int)isdb_rng_below(rng, (uint64_t)n);
                h = s_x[b] * (t < 200 ? 1e-3 : 1.0) * isdb_rng_uniform(rng);
                memcpy(s_y, s_x, sizeof(double) * (size_t)n);
                s_y[a] += h;
                s_y[b] -= h;
            }
            f = ref_objective(n, p, s_Phi, s_c, lambda, s_y) - f0;
            if (f < 0 && -f > worst) worst = -f;
            if (f > 0 && -f > worst) worst = -f;
        }
        /* f(P*) exceeds the minimum by at most about the duality gap,
           below n * 1e-9 / ... ; we allow 1e-8. */
        CHECK_MSG(worst <= 1e-8L, "%s: a feasible point beats P* by %Lg", what, worst);
    }
}

static void test_solver(void) {
    isdb_rng rng;
    isdb_rng_seed(&rng, 21);
    solver_instance(&rng, 1, 3, ISDB_KERNEL_LINEAR, 0.01, 1);
    solver_instance(&rng, 2, 2, ISDB_KERNEL_RBF, 0.01, 1);
    solver_instance(&rng, 5, 3, ISDB_KERNEL_LINEAR, 0.01, 1);
    solver_instance(&rng, 16, 4, ISDB_KERNEL_LINEAR, 1e-4, 1);
    solver_instance(&rng, 16, 5, ISDB_KERNEL_RBF, 0.01, 1);
    solver_instance(&rng, 16, 3, ISDB_KERNEL_MATERN52, 1e-3, 1);
    solver_instance(&rng, 40, 6, ISDB_KERNEL_LINEAR, 0.01, 0);
    solver_instance(&rng, 64, 8, ISDB_KERNEL_RBF, 0.01, 0);
    solver_instance(&rng, 100, 8, ISDB_KERNEL_RBF, 1e-4, 0);
    /* N = 256 with p = 8 here; bench_opkb times and checks p = N = 256. */
    solver_instance(&rng, 256, 8, ISDB_KERNEL_LINEAR, 0.01, 0);
}

static void test_solver_edges(void) {
    double Phi[4 * 2] = {1, 0, 0, 1, 1, 0, 0.5, 0.5}, x[4], c[4] = {0, 1, 2, 3}, x0[4] = {1, 1, 1, 1}, w[200];
    isdb_opkb_solve_info info;
    double kkt;
    int i;
    CHECK(isdb_opkb_solve_work_size(4, 2) <= 200);
    CHECK(isdb_opkb_solve_work_size(0, 2) == 0);
    /* Two copies of arm 0: the minimiser in S is unique, the weights of the
       copies are not; any split is optimal. */
    CHECK_OK(isdb_opkb_solve(4, 2, Phi, NULL, 0.01, NULL, 1e-10, 200, x, &info, w));
    CHECK_NEAR(x[0] + x[2], 0.5, 1e-8);
    CHECK_NEAR(x[1], 0.5, 1e-8);
    /* One step only: a usable distribution, flagged. */
    CHECK_RESULT(isdb_opkb_solve(4, 2, Phi, c, 0.01, NULL, 1e-10, 1, x, &info, w), ISDB_MAXITER_REACHED);
    CHECK(info.iterations == 1 && info.kkt > 1e-10);
    kkt = 0.0;
    for (i = 0; i < 4; ++i) kkt += x[i];
    CHECK_NEAR(kkt, 1.0, 1e-12);
    /* The warm start reaches the same point. */
    CHECK_OK(isdb_opkb_solve(4, 2, Phi, c, 0.01, NULL, 1e-10, 200, x, &info, w));
    memcpy(x0, x, sizeof x0);
    CHECK_OK(isdb_opkb_solve(4, 2, Phi, c, 0.01, x0, 1e-10, 200, x, &info, w));
    for (i = 0; i < 4; ++i) CHECK_NEAR(x[i], x0[i], 1e-7);
    /* Errors. */
    CHECK_RESULT(isdb_opkb_solve(4, 2, NULL, c, 0.01, NULL, 1e-9, 200, x, &info, w), ISDB_ERR_INVALID_ARG);
    CHECK(info.status == ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_opkb_solve(4, 2, Phi, c, 0.0, NULL, 1e-9, 200, x, &info, w), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_opkb_solve(4, 2, Phi, c, 0.01, NULL, 0.0, 200, x, &info, w), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_opkb_solve(4, 2, Phi, c, 0.01, NULL, 1e-9, 0, x, &info, w), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_opkb_solve(0, 2, Phi, c, 0.01, NULL, 1e-9, 200, x, &info, w), ISDB_ERR_INVALID_ARG);
    x0[1] = -1.0;
    CHECK_RESULT(isdb_opkb_solve(4, 2, Phi, c, 0.01, x0, 1e-9, 200, x, &info, w), ISDB_ERR_INVALID_ARG);
    x0[1] = T_NAN;
    CHECK_RESULT(isdb_opkb_solve(4, 2, Phi, c, 0.01, x0, 1e-9, 200, x, &info, w), ISDB_ERR_NONFINITE);
    c[2] = T_INF;
    CHECK_RESULT(isdb_opkb_solve(4, 2, Phi, c, 0.01, NULL, 1e-9, 200, x, &info, w), ISDB_ERR_NONFINITE);
    CHECK_RESULT(isdb_opkb_kkt(4, 2, Phi, c, 0.01, x, &kkt, NULL, NULL, w), ISDB_ERR_NONFINITE);
    c[2] = 2.0;
    CHECK_RESULT(isdb_opkb_kkt(4, 2, Phi, c, 0.01, NULL, &kkt, NULL, NULL, w), ISDB_ERR_INVALID_ARG);
    /* The residual sees infeasibility. */
    x[0] = -0.25;
    x[1] = 1.25;
    x[2] = x[3] = 0.0;
    CHECK_OK(isdb_opkb_kkt(4, 2, Phi, c, 0.01, x, &kkt, NULL, NULL, w));
    CHECK(kkt >= 0.25);
}

/* ---- the policy --------------------------------------------------------------- */

static double s_hist_y[20000];
static int s_hist_arm[20000], s_hist_m[20000];
static double s_strat[16][SMAX];

/* Gap estimate of the rounds [from, to) of the history in long double,
   one round at a time: R(x) = mean over t of phi(x)^T S(P_t)^-1 phi(x_t) y_t
   (Definition 4.1 of the paper). */
static void ref_gaps(int n, int p, const double *Phi, double lambda, int from, int to, double *gap) {
    static double S[16][REF_MAXN * REF_MAXN], u[REF_MAXN];
    static long double R[SMAX];
    static int built[16];
    int t, i, r, k, m;
    memset(built, 0, sizeof built);
    for (i = 0; i < n; ++i) R[i] = 0;
    for (t = from; t < to; ++t) {
        m = s_hist_m[t];
        if (!built[m]) {
            for (r = 0; r < p; ++r)
                for (k = 0; k < p; ++k) {
                    long double s = r == k ? lambda : 0;
                    for (i = 0; i < n; ++i) s += (long double)s_strat[m][i] * Phi[i * p + r] * Phi[i * p + k];
                    S[m][r * p + k] = (double)s;
                }
            built[m] = 1;
        }
        ref_solve(p, S[m], Phi + s_hist_arm[t] * p, u);
        for (i = 0; i < n; ++i) R[i] += (long double)t_dot(p, Phi + i * p, u) * s_hist_y[t];
    }
    {
        long double best = R[0];
        for (i = 1; i < n; ++i)
            if (R[i] > best) best = R[i];
        for (i = 0; i < n; ++i) gap[i] = (double)((best - R[i]) / (to - from));
    }
}

/* OPKB (Algorithm 2) on a linear problem: block starts at (2^j - 1) E,
   the IPS gap estimates against the round-by-round reference, and each
   new strategy rebuilt from its gaps by an independent sequence of solves:
   P(j) = (1 - mu_j) ((1 - mix) P* + mix pi(A)) + mu_j pi(X). */
static void test_opkb_blocks(void) {
    enum { n = 9, d = 3, T = 6000 };
    static double X[n * d], theta[d], probs[n], pi[n], gaps[n], ref[n], pstar[n], piA[n], rows[n * d];
    isdb_opkb pol;
    isdb_opkb_config c = isdb_opkb_config_init(d, n, (double)T);
    isdb_rng rng;
    int t, i, k, checked = 0, bad_floor = 0, bad_block = 0;
    double worst_gap = 0.0, worst_p = 0.0;
    isdb_rng_seed(&rng, 31);
    sphere_arms(&rng, n, d, X);
    for (k = 0; k < d; ++k) theta[k] = 0.5 * isdb_rng_normal(&rng);
    c.arms = X;
    c.sigma = 20.0;
    c.reward_scale = 2.0;
    c.seed = 4;
    CHECK_OK(isdb_opkb_init(&c, NULL, &pol));
    CHECK(isdb_opkb_get_feature_dim(&pol) == d);
    /* the features reproduce the kernel: phi_a . phi_b = k(x_a, x_b) */
    isdb_opkb_get_features(&pol, rows);
    for (i = 0; i < n; ++i)
        for (k = 0; k < n; ++k) {
            double f = 0.0, x = 0.0;
            int j;
            for (j = 0; j < d; ++j) {
                f += rows[i * d + j] * rows[k * d + j];
                x += X[i * d + j] * X[k * d + j];
            }
            CHECK_NEAR(f, x, 1e-9);
        }
    isdb_opkb_get_design(&pol, pi);
    memcpy(s_strat[0], pi, sizeof pi);
    for (t = 0; t < T; ++t) {
        int arm, j = isdb_opkb_get_block(&pol);
        uint64_t E = isdb_opkb_get_block_length(&pol);
        double y;
        /* Block j starts at (2^j - 1) E. */
        if ((uint64_t)t == ((uint64_t)1 << j) * E - E && j > 0) {
            double mu = c.c1 * pow(2.0, -0.5 * j), alpha = isdb_opkb_get_alpha(&pol), gamma = isdb_opkb_get_gamma(&pol);
            double beta = c.beta_scale * gamma * pow(2.0, 0.5 * j) / (10.0 + 4.0 * sqrt(alpha));
            double thr = c.set_scale * 2.0 * alpha * gamma / beta, lambda = c.sigma / c.horizon;
            int nA = 0;
            isdb_opkb_get_gaps(&pol, gaps);
            ref_gaps(n, d, X, lambda, 0, t, ref);
            for (i = 0; i < n; ++i)
                if (fabs(gaps[i] - ref[i]) > worst_gap) worst_gap = fabs(gaps[i] - ref[i]);
            CHECK_OK(isdb_opkb_get_strategy(&pol, j, s_strat[j]));
            for (i = 0; i < n; ++i) s_c[i] = 0.5 * beta * gaps[i];
            CHECK_OK(isdb_opkb_solve(n, d, X, s_c, lambda, NULL, 1e-10, 200, pstar, NULL, s_work));
            for (i = 0; i < n; ++i)
                if (gaps[i] <= thr) memcpy(rows + (nA++) * d, X + i * d, sizeof(double) * d);
            if (nA == n) {
                memcpy(piA, pi, sizeof pi);
            } else if (nA == 1) {
                for (i = 0; i < n; ++i) piA[i] = gaps[i] <= thr ? 1.0 : 0.0;
            } else {
                CHECK_OK(isdb_opkb_solve(nA, d, rows, NULL, lambda, NULL, 1e-10, 200, s_y, NULL, s_work));
                nA = 0;
                for (i = 0; i < n; ++i) piA[i] = gaps[i] <= thr ? s_y[nA++] : 0.0;
            }
            for (i = 0; i < n; ++i) {
                double want = (1.0 - mu) * ((1.0 - c.mix) * pstar[i] + c.mix * piA[i]) + mu * pi[i];
                if (fabs(want - s_strat[j][i]) > worst_p) worst_p = fabs(want - s_strat[j][i]);
                if (s_strat[j][i] < mu * pi[i] * (1.0 - 1e-12)) bad_floor = 1;
            }
            ++checked;
        }
        CHECK_OK(isdb_policy_probs(&pol.base, NULL, n, probs));
        if (isdb_opkb_get_replay_index(&pol) != j) bad_block = 1;
        CHECK_OK(isdb_policy_select(&pol.base, X, n, &arm));
        y = 2.0 * (t_dot(d, X + arm * d, theta) + 0.1 * isdb_rng_normal(&rng));
        s_hist_arm[t] = arm;
        s_hist_m[t] = j;
        s_hist_y[t] = y / c.reward_scale;
        CHECK_OK(isdb_policy_update(&pol.base, arm, t % 2 ? X + arm * d : NULL, y));
    }
    CHECK(checked >= 5 && checked == isdb_opkb_get_block(&pol));
    CHECK(isdb_opkb_get_restarts(&pol) == 0 && isdb_opkb_get_tests(&pol) == 0 && !bad_block);
    CHECK(!bad_floor);
    /* Gaps are O(1); the library sums rewards per (strategy, arm) before one
       solve, the reference solves every round: rounding only. */
    CHECK_LE(worst_gap, 1e-10);
    /* The policy's solves (warm-started, KKT residual <= 1e-9) and these
       (cold, <= 1e-10) approach the same minimiser: the accuracy
       bound on the residual, 1e-6, is also the bound on the strategies. */
    CHECK_LE(worst_p, 1e-6);
    isdb_policy_uninit(&pol.base);
}

/* The same sampling distributions with the linear kernel on the raw
   features (p = d) and with the Gram matrix K = X X^T (eigen map, rank d):
   Appendix I of the paper. 20 arms in R^6, so the minimiser of OP is
   unique (20 <= 6 * 7 / 2 rank-one terms in general position). Both runs
   use the same seed and the same rewards; select draws from each policy's
   own generator. The tolerance is the solver's: both stop at a KKT
   residual below 1e-9, and the policies' strategies are smooth in it. */
static void test_invariance(void) {
    enum { n = 20, d = 6, T = 3000 };
    static double X[n * d], K[n * n], theta[d], pa[n], pb[n];
    int adaptive, t, i, k, same_arms = 1;
    for (adaptive = 0; adaptive < 2; ++adaptive) {
        isdb_opkb a, b;
        isdb_opkb_config ca = isdb_opkb_config_init(d, n, (double)T), cb;
        isdb_rng rng;
        double worst = 0.0;
        isdb_rng_seed(&rng, 41);
        sphere_arms(&rng, n, d, X);
        for (k = 0; k < d; ++k) theta[k] = 0.4 * isdb_rng_normal(&rng);
        CHECK_OK(isdb_kernel_gram(ISDB_KERNEL_LINEAR, 1.0, n, d, X, K));
        ca.arms = X;
        ca.sigma = 30.0;
        ca.adaptive = adaptive;
        ca.j_star = 2;
        ca.seed = 3;
        cb = ca;
        cb.kernel = ISDB_KERNEL_GRAM;
        cb.gram = K;
        CHECK_OK(isdb_opkb_init(&ca, NULL, &a));
        CHECK_OK(isdb_opkb_init(&cb, NULL, &b));
        CHECK(isdb_opkb_get_feature_dim(&a) == d && isdb_opkb_get_feature_dim(&b) == d);
        CHECK_NEAR(isdb_opkb_get_gamma(&a), isdb_opkb_get_gamma(&b), 1e-9);
        CHECK(isdb_opkb_get_block_length(&a) == isdb_opkb_get_block_length(&b));
        for (t = 0; t < T; ++t) {
            int arm_a, arm_b;
            double y;
            CHECK_OK(isdb_policy_probs(&a.base, NULL, n, pa));
            CHECK_OK(isdb_policy_probs(&b.base, X, n, pb));
            for (i = 0; i < n; ++i)
                if (fabs(pa[i] - pb[i]) > worst) worst = fabs(pa[i] - pb[i]);
            CHECK_OK(isdb_policy_select(&a.base, NULL, n, &arm_a));
            CHECK_OK(isdb_policy_select(&b.base, NULL, n, &arm_b));
            if (arm_a != arm_b) same_arms = 0;
            y = t_dot(d, X + arm_a * d, theta) + 0.1 * isdb_rng_normal(&rng);
            CHECK_OK(isdb_policy_update(&a.base, arm_a, NULL, y));
            CHECK_OK(isdb_policy_update(&b.base, arm_a, NULL, y));
        }
        CHECK_MSG(worst <= 1e-6, "adaptive %d: sampling distributions differ by %g", adaptive, worst);
        CHECK(same_arms);
        CHECK(isdb_opkb_get_block(&a) == isdb_opkb_get_block(&b) && isdb_opkb_get_epoch(&a) == isdb_opkb_get_epoch(&b));
        if (adaptive)
            CHECK(isdb_opkb_get_tests(&a) > 0 && isdb_opkb_get_tests(&a) == isdb_opkb_get_tests(&b));
        else
            CHECK(isdb_opkb_get_block(&a) >= 4);
        isdb_policy_uninit(&a.base);
        isdb_policy_uninit(&b.base);
    }
}

/* Algorithm 4: a replay slot of index m in block j is scheduled with
   probability 2^(-(j - m)/2). The slots of the smallest index m_lo are
   seen directly: m_t = m_lo at a slot's first round iff it is scheduled.
   Pooled over blocks, the count of scheduled slots is within 5 standard
   errors of its expectation. Also: m_t is the block or a replay index
   in [j_star, j). */
static void test_replay_schedule(void) {
    enum { n = 4, d = 4, T = 60000 };
    static double X[n * d];
    isdb_opkb pol;
    isdb_opkb_config c = isdb_opkb_config_init(d, n, (double)T);
    isdb_rng rng;
    double expect = 0.0, var = 0.0, seen = 0.0;
    int t, i, bad_m = 0;
    isdb_rng_seed(&rng, 51);
    for (i = 0; i < n * d; ++i) X[i] = i % (d + 1) == 0 ? 1.0 : 0.0;
    c.arms = X;
    c.adaptive = 1;
    c.j_star = 2;
    c.test_z = 1e6; /* no restarts: one long epoch */
    c.seed = 9;
    CHECK_OK(isdb_opkb_init(&c, NULL, &pol));
    for (t = 0; t < T; ++t) {
        int arm, j = isdb_opkb_get_block(&pol), m = isdb_opkb_get_replay_index(&pol);
        uint64_t tau = (uint64_t)t - pol.block_start, L = isdb_opkb_get_block_length(&pol) << c.j_star;
        if (!(m == j || (m >= c.j_star && m < j))) bad_m = 1;
        if (j > c.j_star && tau % L == 0) {
            double q = pow(2.0, -0.5 * (j - c.j_star));
            expect += q;
            var += q * (1.0 - q);
            seen += m == c.j_star;
        }
        CHECK_OK(isdb_policy_select(&pol.base, NULL, n, &arm));
        CHECK_OK(isdb_policy_update(&pol.base, arm, NULL, (arm == 0 ? 0.5 : 0.0) + 0.1 * isdb_rng_normal(&rng)));
    }
    CHECK(!bad_m);
    CHECK(isdb_opkb_get_restarts(&pol) == 0 && isdb_opkb_get_tests(&pol) > 0);
    CHECK(var > 20.0);
    CHECK_MSG(fabs(seen - expect) <= 5.0 * sqrt(var), "scheduled %g slots, expected %g (sd %g)", seen, expect,
              sqrt(var));
    isdb_policy_uninit(&pol.base);
}

/* Runs ADA-OPKB (tuned preset; the test's threshold c0_scale for
   CONSTANT, test_z for CALIBRATED) on `seeds` GP reward streams of Env
   1's kind, small (30 arms of the 5-sphere, RBF 0.2, T = 5000):
   stationary, or with the reward's sign switching at T / 2. Returns how
   many runs restarted at least once. */
static int restarting_runs(isdb_opkb_test test, double threshold, int with_switch, int seeds) {
    enum { N = 30, D = 5, T = 5000 };
    int s, restarted = 0;
    for (s = 0; s < seeds; ++s) {
        isdb_kernel_env env;
        isdb_kernel_env_config ec = isdb_kernel_env_config_init(D, N);
        isdb_opkb pol;
        isdb_opkb_config c;
        isdb_sim_result res;
        uint64_t at[1] = {T / 2};
        ec.seed = 100 + (uint64_t)s;
        if (with_switch) {
            ec.n_switches = 1;
            ec.switch_at = at;
        }
        CHECK_OK(isdb_kernel_env_init(&ec, NULL, &env));
        c = isdb_opkb_config_init(D, N, (double)T);
        c.arms = env.base.X;
        c.kernel = ISDB_KERNEL_RBF;
        c.length_scale = 0.2;
        c.adaptive = 1;
        c.test = test;
        if (test == ISDB_OPKB_TEST_CONSTANT)
            c.c0_scale = threshold;
        else
            c.test_z = threshold;
        c.seed = 200 + (uint64_t)s;
        CHECK_OK(isdb_opkb_init(&c, NULL, &pol));
        CHECK_OK(isdb_sim_run(&pol.base, &env.base, T, NULL, &res));
        restarted += isdb_opkb_get_restarts(&pol) > 0;
        isdb_policy_uninit(&pol.base);
        isdb_env_uninit(&env.base);
    }
    return restarted;
}

/* Test (8) with the paper's constant threshold must tell a stream that
   should restart (the reward switches) from one that should not
   (stationary), and its scale must matter. At
   c0_scale 0.02 it does both; ten times lower it restarts without a
   change, ten times higher it misses the switch. Measured over 30 seeds
   when written: c0_scale 0.002: 12 false, 30 detected; 0.005 (the
   authors'): 10 false, 30 detected; 0.02: 0 false, 30 detected; 0.2: 0
   false, 0 detected. (The theory preset's threshold, about 180 against
   gaps of at most 2, cannot fire at all, so it is not tested here.) */
static void test_restart_constant(void) {
    enum { SEEDS = 30 };
    const isdb_opkb_test T = ISDB_OPKB_TEST_CONSTANT;
    int false_02 = restarting_runs(T, 0.02, 0, SEEDS), hit_02 = restarting_runs(T, 0.02, 1, SEEDS);
    int false_low = restarting_runs(T, 0.002, 0, SEEDS), hit_high = restarting_runs(T, 0.2, 1, SEEDS);
    CHECK_MSG(false_02 <= 3, "c0_scale 0.02: %d of %d stationary runs restarted", false_02, SEEDS);
    CHECK_MSG(hit_02 >= 27, "c0_scale 0.02: the switch restarted %d of %d runs", hit_02, SEEDS);
    CHECK_MSG(false_low >= 5, "c0_scale 0.002: only %d of %d stationary runs restarted", false_low, SEEDS);
    CHECK_MSG(hit_high <= 15, "c0_scale 0.2: the switch still restarted %d of %d runs", hit_high, SEEDS);
}

/* The calibrated test (the default), on the same streams: at the default
   test_z no false restart and the switch detected; the threshold counts,
   so z = 1 restarts without a change and z = 60 misses the switch.
   Measured over 30 seeds when written: z 1: 11 false, 30 detected; 2: 5
   false; 3.5 (default): 0 false, 30 detected; 20: 0 false, 29 detected;
   30: 22 detected; 40: 11; 60: 0. */
static void test_restart_calibrated(void) {
    enum { SEEDS = 30 };
    const isdb_opkb_test T = ISDB_OPKB_TEST_CALIBRATED;
    double z = isdb_opkb_config_init(1, 2, 10.0).test_z;
    int false_z = restarting_runs(T, z, 0, SEEDS), hit_z = restarting_runs(T, z, 1, SEEDS);
    int false_low = restarting_runs(T, 1.0, 0, SEEDS), hit_high = restarting_runs(T, 60.0, 1, SEEDS);
    CHECK_MSG(false_z <= 1, "test_z %g: %d of %d stationary runs restarted", z, false_z, SEEDS);
    CHECK_MSG(hit_z >= 27, "test_z %g: the switch restarted %d of %d runs", z, hit_z, SEEDS);
    CHECK_MSG(false_low >= 3, "test_z 1: only %d of %d stationary runs restarted", false_low, SEEDS);
    CHECK_MSG(hit_high <= 15, "test_z 60: the switch still restarted %d of %d runs", hit_high, SEEDS);
}

/* The constants of Algorithm 2 from the config: gamma from a long-double
   log-det of the design, E, alpha; and, for Env 1 of the paper (RBF 0.2 on
   100 arms of the 10-sphere, so K = I + O(e^-8)), the values the authors'
   code reports: gamma^(1/2) = 50 ln 2 = 34.66, E = 39, alpha = 0.903. */
static void test_constants(void) {
    enum { n = 8, d = 3 };
    static double X[n * d], pi[n], ones[n];
    isdb_opkb pol;
    isdb_opkb_config c = isdb_opkb_config_init(d, n, 5000.0);
    isdb_kernel_env env;
    isdb_kernel_env_config ec = isdb_kernel_env_config_init(10, 100);
    isdb_rng rng;
    long double lg;
    double logterm;
    int i;
    isdb_rng_seed(&rng, 61);
    sphere_arms(&rng, n, d, X);
    c.arms = X;
    isdb_opkb_config_preset(&c, ISDB_OPKB_THEORY);
    c.sigma = 7.0;
    CHECK_OK(isdb_opkb_init(&c, NULL, &pol));
    isdb_opkb_get_design(&pol, pi);
    for (i = 0; i < n; ++i) ones[i] = 0.0;
    lg = -ref_objective(n, d, X, ones, c.sigma / c.horizon, pi) - d * logl(c.sigma / c.horizon);
    CHECK_NEAR(isdb_opkb_get_gamma(&pol), (double)lg, 1e-10 * (double)lg);
    logterm = log(8.0 * 5000.0 * log2(5000.0) * n / c.delta);
    CHECK_NEAR(isdb_opkb_get_alpha(&pol), c.sigma / (4.0 * logterm), 1e-12);
    CHECK(isdb_opkb_get_block_length(&pol) == (uint64_t)ceil(4.0 * isdb_opkb_get_gamma(&pol) * logterm));
    isdb_policy_uninit(&pol.base);
    /* Env 1. */
    ec.seed = 5;
    CHECK_OK(isdb_kernel_env_init(&ec, NULL, &env));
    c = isdb_opkb_config_init(10, 100, 1e4);
    c.arms = env.base.X;
    c.kernel = ISDB_KERNEL_RBF;
    c.length_scale = 0.2;
    CHECK_OK(isdb_opkb_init(&c, NULL, &pol));
    CHECK_NEAR(isdb_opkb_get_gamma(&pol), 50.0 * log(2.0), 0.01);
    CHECK(isdb_opkb_get_block_length(&pol) == 39);
    CHECK_NEAR(isdb_opkb_get_alpha(&pol), 0.9028, 1e-4);
    CHECK(isdb_opkb_get_feature_dim(&pol) == 100);
    isdb_policy_uninit(&pol.base);
    isdb_env_uninit(&env.base);
}

/* Arm-set checks, getters, max_restarts, the GRAM kernel without arms and
   config validation. */
static void test_policy_api(void) {
    enum { n = 6, d = 2 };
    static double X[n * d], Y[n * d], K[n * n], out[n];
    static unsigned char a[1 << 14], b[1 << 14];
    isdb_opkb pol;
    isdb_opkb_config c = isdb_opkb_config_init(d, n, 2000.0), bad;
    isdb_rng rng;
    size_t na, nb;
    int arm, t, i;
    isdb_rng_seed(&rng, 71);
    sphere_arms(&rng, n, d, X);
    c.arms = X;
    c.adaptive = 1;
    c.j_star = 0;
    c.test_z = 1e-3; /* restarts at every test ... */
    c.max_restarts = 0; /* ... but detections are ignored */
    CHECK_OK(isdb_opkb_init(&c, NULL, &pol));
    for (t = 0; t < 1500; ++t) {
        CHECK_OK(isdb_policy_select(&pol.base, X, n, &arm));
        CHECK_OK(isdb_policy_update(&pol.base, arm, NULL, arm == 1 ? 0.5 : -0.5));
    }
    CHECK(isdb_opkb_get_epoch(&pol) == 1 && isdb_opkb_get_restarts(&pol) == 0 && isdb_opkb_get_epoch_start(&pol) == 0);
    CHECK(isdb_opkb_get_tests(&pol) > 0 && isdb_opkb_get_last_test(&pol) > -1e300);
    CHECK_RESULT(isdb_opkb_get_strategy(&pol, isdb_opkb_get_block(&pol) + 1, out), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_opkb_get_strategy(&pol, -1, out), ISDB_ERR_INVALID_ARG);
    /* Another arm set, another count, another feature vector: refused, and
       nothing changes. */
    memcpy(Y, X, sizeof Y);
    Y[3] += 1e-9;
    CHECK_OK(isdb_policy_save(&pol.base, a, sizeof a, &na));
    CHECK_RESULT(isdb_policy_select(&pol.base, Y, n, &arm), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_probs(&pol.base, Y, n, out), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_select(&pol.base, X, n - 1, &arm), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_update(&pol.base, 1, Y + 2, 0.5), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_update(&pol.base, 1, X, 0.5), ISDB_ERR_INVALID_ARG);
    CHECK_OK(isdb_policy_save(&pol.base, b, sizeof b, &nb));
    CHECK(na == nb && memcmp(a, b, na) == 0);
    isdb_policy_uninit(&pol.base);
    /* GRAM without arms: X must be NULL. */
    CHECK_OK(isdb_kernel_gram(ISDB_KERNEL_MATERN52, 1.0, n, d, X, K));
    c = isdb_opkb_config_init(1, n, 500.0);
    c.kernel = ISDB_KERNEL_GRAM;
    c.gram = K;
    CHECK_OK(isdb_opkb_init(&c, NULL, &pol));
    CHECK(isdb_opkb_get_feature_dim(&pol) == n);
    CHECK_OK(isdb_policy_select(&pol.base, NULL, n, &arm));
    CHECK_RESULT(isdb_policy_select(&pol.base, X, n, &arm), ISDB_ERR_INVALID_ARG);
    CHECK_OK(isdb_policy_update(&pol.base, arm, NULL, 0.3));
    CHECK_RESULT(isdb_policy_update(&pol.base, arm, X, 0.3), ISDB_ERR_INVALID_ARG);
    isdb_policy_uninit(&pol.base);
    /* Invalid configs. */
    c = isdb_opkb_config_init(d, n, 2000.0);
    c.arms = X;
    CHECK_OK(isdb_opkb_heap_size(&c, &na));
    bad = c;
    bad.arms = NULL;
    CHECK_RESULT(isdb_opkb_heap_size(&bad, &na), ISDB_ERR_INVALID_ARG);
    bad = c;
    bad.horizon = 1.0;
    CHECK_RESULT(isdb_opkb_heap_size(&bad, &na), ISDB_ERR_INVALID_ARG);
    bad = c;
    bad.kernel = ISDB_KERNEL_RBF;
    bad.length_scale = -1.0;
    CHECK_RESULT(isdb_opkb_heap_size(&bad, &na), ISDB_ERR_INVALID_ARG);
    bad = c;
    bad.mix = 1.5;
    CHECK_RESULT(isdb_opkb_heap_size(&bad, &na), ISDB_ERR_INVALID_ARG);
    bad = c;
    bad.c1 = 2.0;
    CHECK_RESULT(isdb_opkb_heap_size(&bad, &na), ISDB_ERR_INVALID_ARG);
    bad = c;
    bad.adaptive = 2;
    CHECK_RESULT(isdb_opkb_heap_size(&bad, &na), ISDB_ERR_INVALID_ARG);
    bad = c;
    bad.kernel = ISDB_KERNEL_GRAM;
    CHECK_RESULT(isdb_opkb_heap_size(&bad, &na), ISDB_ERR_INVALID_ARG);
    bad = c;
    bad.n_arms = 5000;
    CHECK_RESULT(isdb_opkb_heap_size(&bad, &na), ISDB_ERR_INVALID_ARG);
    /* lambda = sigma / T far below k(x, x): refused at init. */
    bad = c;
    bad.sigma = 1e-12;
    CHECK_RESULT(isdb_opkb_init(&bad, NULL, &pol), ISDB_ERR_INVALID_ARG);
    /* An indefinite Gram matrix. */
    for (i = 0; i < n * n; ++i) K[i] = i % (n + 1) == 0 ? 1.0 : 0.9;
    K[1] = K[n] = -0.9;
    bad = c;
    bad.kernel = ISDB_KERNEL_GRAM;
    bad.gram = K;
    CHECK_RESULT(isdb_opkb_init(&bad, NULL, &pol), ISDB_ERR_NOT_SPD);
    /* The presets. */
    isdb_opkb_config_preset(&c, ISDB_OPKB_THEORY);
    CHECK(c.c1 == 0.5 && c.c3 == 4.0 && c.mix == 0.5 && c.j_star == 0 && c.test_block == 1 && c.beta_scale == 1.0);
    isdb_opkb_config_preset(&c, ISDB_OPKB_TUNED);
    CHECK(c.c1 == 0.1 && c.c3 == 0.04 && c.mix == 0.2 && c.j_star == 4 && c.test_block == 0 && c.beta_scale == 50.0);
}

/* ---- environments ------------------------------------------------------------- */

static void test_kernel_env(void) {
    enum { n = 30, d = 4, R = 200000 };
    static const uint64_t sw[2] = {100, 250};
    static const uint64_t knots[3] = {10, 20, 40};
    static const double phases[3] = {0.0, 1.0, 3.0};
    isdb_kernel_env e, f;
    isdb_kernel_env_config c = isdb_kernel_env_config_init(d, n);
    double big = 0.0, m0[n], sum = 0.0, lo = 1e300, hi = -1e300;
    int i, k, t;
    c.n_switches = 2;
    c.switch_at = sw;
    c.seed = 3;
    CHECK_OK(isdb_kernel_env_init(&c, NULL, &e));
    for (i = 0; i < n; ++i) {
        double norm = sqrt(t_dot(d, e.base.X + i * d, e.base.X + i * d));
        CHECK_NEAR(norm, 1.0, 1e-14);
        if (fabs(e.f[i]) > big) big = fabs(e.f[i]);
    }
    CHECK_NEAR(big, 0.8, 1e-15);
    /* Sign +, -, + with flips at rounds 100 and 250 (0-based). */
    for (t = 0; t < 300; ++t) {
        double want = t < 100 || t >= 250 ? 1.0 : -1.0;
        CHECK_OK(isdb_env_next(&e.base));
        if (t == 0) memcpy(m0, e.base.means, sizeof m0);
        CHECK(e.base.means[3] == want * m0[3]);
    }
    CHECK(isdb_kernel_env_drift(&e, 99) == 1.0 && isdb_kernel_env_drift(&e, 100) == -1.0);
    /* Truncated noise: |y| <= 1 and mean r (6 standard errors of 0.1). */
    for (t = 0; t < R; ++t) {
        double y;
        CHECK_OK(isdb_env_reward(&e.base, 0, &y));
        sum += y;
        if (y < lo) lo = y;
        if (y > hi) hi = y;
    }
    CHECK(lo >= -1.0 && hi <= 1.0);
    CHECK_NEAR(sum / R, e.base.means[0], 6.0 * 0.1 / sqrt((double)R));
    /* Same seed, same arms and rewards; reset replays the noise. */
    CHECK_OK(isdb_kernel_env_init(&c, NULL, &f));
    CHECK(memcmp(e.base.X, f.base.X, sizeof(double) * n * d) == 0 && memcmp(e.f, f.f, sizeof m0) == 0);
    isdb_env_uninit(&f.base);
    /* A reward that leaves no room: y = r. */
    {
        isdb_kernel_env_config g = c;
        double y;
        g.amplitude = 1.0;
        g.n_switches = 0;
        CHECK_OK(isdb_kernel_env_init(&g, NULL, &f));
        CHECK_OK(isdb_env_next(&f.base));
        k = t_argmax(f.base.means, n);
        if (f.base.means[k] < 1.0) k = t_argmax(f.f, n);
        for (i = 0; i < n; ++i)
            if (fabs(f.f[i]) == 1.0) k = i;
        CHECK_OK(isdb_env_reward(&f.base, k, &y));
        CHECK(y == f.base.means[k]);
        isdb_env_uninit(&f.base);
    }
    isdb_env_uninit(&e.base);
    /* Cosine with a drifting phase: 0.8 cos(3 x.theta + phase(t)). */
    c = isdb_kernel_env_config_init(d, n);
    c.kind = ISDB_KENV_COSINE;
    c.n_phase = 3;
    c.phase_at = knots;
    c.phase = phases;
    CHECK_OK(isdb_kernel_env_init(&c, NULL, &e));
    CHECK_NEAR(sqrt(t_dot(d, e.theta, e.theta)), 1.0, 1e-14);
    CHECK(isdb_kernel_env_drift(&e, 0) == 0.0 && isdb_kernel_env_drift(&e, 10) == 0.0);
    CHECK_NEAR(isdb_kernel_env_drift(&e, 15), 0.5, 1e-15);
    CHECK_NEAR(isdb_kernel_env_drift(&e, 30), 2.0, 1e-15);
    CHECK(isdb_kernel_env_drift(&e, 40) == 3.0 && isdb_kernel_env_drift(&e, 1000) == 3.0);
    for (t = 0; t <= 30; ++t) CHECK_OK(isdb_env_next(&e.base));
    for (i = 0; i < n; ++i)
        CHECK_NEAR(e.base.means[i], 0.8 * cos(3.0 * t_dot(d, e.base.X + i * d, e.theta) + 2.0), 1e-15);
    isdb_env_uninit(&e.base);
    /* Invalid configs. */
    c = isdb_kernel_env_config_init(d, n);
    c.n_switches = 1;
    CHECK_RESULT(isdb_kernel_env_init(&c, NULL, &e), ISDB_ERR_INVALID_ARG);
    c.n_switches = 2;
    c.switch_at = knots + 1;
    CHECK_OK(isdb_kernel_env_init(&c, NULL, &e));
    isdb_env_uninit(&e.base);
    c.switch_at = sw;
    c.kernel = ISDB_KERNEL_GRAM;
    CHECK_RESULT(isdb_kernel_env_init(&c, NULL, &e), ISDB_ERR_INVALID_ARG);
    c.kernel = ISDB_KERNEL_RBF;
    c.noise_sd = -1.0;
    CHECK_RESULT(isdb_kernel_env_init(&c, NULL, &e), ISDB_ERR_INVALID_ARG);
}

/* The regret harness drives OPKB with the environment's (fixed) arms. */
static void test_sim(void) {
    static const uint64_t sw[1] = {1500};
    isdb_kernel_env e;
    isdb_kernel_env_config ec = isdb_kernel_env_config_init(3, 12);
    isdb_opkb pol;
    isdb_opkb_config c = isdb_opkb_config_init(3, 12, 3000.0);
    isdb_sim_result res;
    double curve[3000];
    ec.n_switches = 1;
    ec.switch_at = sw;
    ec.length_scale = 0.5;
    CHECK_OK(isdb_kernel_env_init(&ec, NULL, &e));
    c.arms = e.base.X;
    c.kernel = ISDB_KERNEL_RBF;
    c.length_scale = 0.5;
    c.adaptive = 1;
    CHECK_OK(isdb_opkb_init(&c, NULL, &pol));
    CHECK_OK(isdb_sim_run(&pol.base, &e.base, 3000, curve, &res));
    CHECK(res.rounds == 3000 && res.regret >= 0.0 && res.regret <= 1.6 * 3000);
    CHECK(curve[2999] == res.regret);
    isdb_policy_uninit(&pol.base);
    isdb_env_uninit(&e.base);
}

int main(void) {
    test_kernels();
    test_feature_maps();
    test_solver();
    test_solver_edges();
    test_opkb_blocks();
    test_invariance();
    test_replay_schedule();
    test_restart_constant();
    test_restart_calibrated();
    test_constants();
    test_policy_api();
    test_kernel_env();
    test_sim();
    return test_report();
}

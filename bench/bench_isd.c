/* bench_isd.c - speed of ISD-linUCB (isdb_isd): nanoseconds per select and
   per update at p = 50 for p_res in {2, 10, 50}, with the invariant
   component given (no invariant width) and estimated (its width adds a
   quadratic form of p (p + 1) / 2, or p_inv dot products of p when p_inv
   <= (p + 1) / 2, per arm, four arms interleaved); update with the default
   invariance monitor and without it (the monitor keeps O(p^2) sums per
   row and tests every 2 p updates); LinUCB at p = 50 beside it; and a slow
   reference that refits the residual ridge regression from every stored
   row and solves for every arm's width from scratch each round, timed in
   the same run. Then the cost of one (re-)estimation, isdb_isd_estimate
   (JBD and cross-validation), against the number of rows: the work a
   recompute does inside update. Times are the minimum of three passes.
   usage: bench_isd [--quick] */
#define _POSIX_C_SOURCE 199309L
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "repro_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define P 50
#define K 20
#define WARM 300
#define ROUNDS 2000
#define REF_ROUNDS 200


static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double Xr[(WARM + ROUNDS) * K * P], X0[4000 * P], R0[4000], Q[P * P], beta[P];
static double hist_x[(WARM + REF_ROUNDS) * P], hist_y[WARM + REF_ROUNDS];
static double work[4 * P * P];

/* A random orthogonal basis (QR of a Gaussian matrix). */
static void basis(isdb_rng *rng) {
    double G[P * P], w[P];
    int i;
    for (i = 0; i < P * P; ++i)
        G[i] = isdb_rng_normal(rng);
    isdb_qr(P, P, G, Q, w);
}

/* ns per select and per update of policy p over ROUNDS rounds after WARM;
   the smallest of three passes (the machine is shared: the minimum is the
   least disturbed), reset in between. */
static void time_policy(isdb_policy *p, double *ns_sel, double *ns_upd) {
    int pass;
    *ns_sel = *ns_upd = 1e300;
    for (pass = 0; pass < 3; ++pass) {
        double t_sel = 0, t_upd = 0, t0;
        int r, arm;
        isdb_policy_reset(p);
        for (r = 0; r < WARM + ROUNDS; ++r) {
            const double *X = Xr + r * K * P;
            t0 = now();
            isdb_policy_select(p, X, K, &arm);
            if (r >= WARM)
                t_sel += now() - t0;
            t0 = now();
            isdb_policy_update(p, arm, X + arm * P, repro_dot(P, X + arm * P, beta) + 0.1 * X[0]);
            if (r >= WARM)
                t_upd += now() - t0;
        }
        if (1e9 * t_sel / ROUNDS < *ns_sel)
            *ns_sel = 1e9 * t_sel / ROUNDS;
        if (1e9 * t_upd / ROUNDS < *ns_upd)
            *ns_upd = 1e9 * t_upd / ROUNDS;
    }
}

/* The slow reference round: rebuild V = lambda I + sum z z^T and b from
   every stored row (z = U_res^T x), Cholesky, then each arm's mean and
   width by full solves. Returns the arm. */
static int ref_round(int pi, int n, const double *X) {
    static double V[P * P], L[P * P], b[P], d[P], z[P], u[P];
    int q = P - pi, i, j, r, k, best = 0;
    double best_v = -1e300;
    memset(V, 0, sizeof(double) * (size_t)(q * q));
    for (j = 0; j < q; ++j) V[j * q + j] = 1.0;
    memset(b, 0, sizeof b);
    for (r = 0; r < n; ++r) {
        double res = hist_y[r] - repro_dot(P, hist_x + r * P, beta);
        for (j = 0; j < q; ++j) {
            z[j] = 0;
            for (i = 0; i < P; ++i)
                z[j] += Q[i * P + pi + j] * hist_x[r * P + i];
        }
        for (i = 0; i < q; ++i) {
            for (j = 0; j < q; ++j)
                V[i * q + j] += z[i] * z[j];
            b[i] += res * z[i];
        }
    }
    memcpy(L, V, sizeof(double) * (size_t)(q * q));
    isdb_chol(q, L);
    isdb_chol_solve(q, L, b, d);
    for (k = 0; k < K; ++k) {
        const double *x = X + k * P;
        double m = repro_dot(P, x, beta), w;
        for (j = 0; j < q; ++j) {
            z[j] = 0;
            for (i = 0; i < P; ++i)
                z[j] += Q[i * P + pi + j] * x[i];
            m += z[j] * d[j];
        }
        isdb_chol_solve(q, L, z, u);
        w = m + sqrt(repro_dot(q, z, u));
        if (w > best_v) {
            best_v = w;
            best = k;
        }
    }
    return best;
}

int main(int argc, char **argv) {
    static const int pres[3] = {2, 10, 50};
    isdb_rng rng;
    int i, k, quick = argc > 1 && !strcmp(argv[1], "--quick");
    double lin_sel, lin_upd;
    (void)work;
    isdb_rng_seed(&rng, 1);
    basis(&rng);
    for (i = 0; i < (WARM + ROUNDS) * K * P; ++i)
        Xr[i] = isdb_rng_normal(&rng);
    for (i = 0; i < 4000 * P; ++i)
        X0[i] = isdb_rng_normal(&rng);
    for (i = 0; i < P; ++i)
        beta[i] = isdb_rng_normal(&rng) / sqrt((double)P);
    for (i = 0; i < 4000; ++i)
        R0[i] = repro_dot(P, X0 + i * P, beta) + isdb_rng_normal(&rng);
    {
        isdb_linucb lin;
        isdb_linucb_config lc = isdb_linucb_config_init(P, K);
        isdb_linucb_init(&lc, NULL, &lin);
        time_policy(&lin.base, &lin_sel, &lin_upd);
        isdb_policy_uninit(&lin.base);
    }
    printf("ISD-linUCB per-round cost, p = %d, K = %d arms, %d rounds after %d (gcc -O2)\n", P, K, ROUNDS, WARM);
    printf("%6s %6s | %14s %14s | %14s %14s %14s | %12s %9s\n", "p_res", "p_inv", "select ns", "update ns",
           "select ns", "update ns", "no monitor", "reference ns", "ratio");
    printf("%6s %6s | %29s | %44s |\n", "", "", "beta_inv given", "beta_inv estimated (eq. 6)");
    for (k = 0; k < 3; ++k) {
        int pi = P - pres[k], mode, r, arm;
        double sel[3], upd[3], ref, t0, U_inv[P * P];
        for (i = 0; i < P; ++i) {
            int j;
            for (j = 0; j < pi; ++j)
                U_inv[i * (pi > 0 ? pi : 1) + j] = Q[i * P + j];
        }
        for (mode = 0; mode < 3; ++mode) {
            isdb_isd pol;
            isdb_isd_config c = isdb_isd_config_init(P, K, 4000, X0, R0);
            c.oracle = 1;
            c.p_inv = pi;
            c.U_inv = pi > 0 ? U_inv : NULL;
            if (mode == 0)
                c.beta_inv = beta;
            if (mode == 2)
                c.monitor = ISDB_ISD_MONITOR_OFF;
            if (isdb_isd_init(&c, NULL, &pol) != ISDB_OK) {
                printf("init failed\n");
                return 1;
            }
            time_policy(&pol.base, &sel[mode], &upd[mode]);
            isdb_policy_uninit(&pol.base);
        }
        /* The slow reference on REF_ROUNDS rounds after WARM stored rows. */
        for (r = 0; r < WARM; ++r) {
            memcpy(hist_x + r * P, Xr + r * K * P, sizeof(double) * P);
            hist_y[r] = repro_dot(P, hist_x + r * P, beta);
        }
        ref = 1e300;
        for (mode = 0; mode < 3; ++mode) {
            t0 = now();
            for (r = 0; r < REF_ROUNDS; ++r) {
                const double *X = Xr + (WARM + r) * K * P;
                arm = ref_round(pi, WARM + r, X);
                memcpy(hist_x + (WARM + r) * P, X + arm * P, sizeof(double) * P);
                hist_y[WARM + r] = repro_dot(P, X + arm * P, beta);
            }
            t0 = 1e9 * (now() - t0) / REF_ROUNDS;
            if (t0 < ref)
                ref = t0;
        }
        printf("%6d %6d | %14.0f %14.0f | %14.0f %14.0f %14.0f | %12.0f %8.1fx\n", pres[k], pi, sel[0], upd[0], sel[1],
               upd[1], upd[2], ref, ref / (sel[0] + upd[0]));
    }
    printf("%13s | %14.0f %14.0f |   (LinUCB, p = %d, for comparison)\n", "LinUCB", lin_sel, lin_upd, P);
    printf("ratio: the reference (ridge refit from %d..%d rows, full solves per arm) over ISD's select + update, "
           "beta given\n",
           WARM, WARM + REF_ROUNDS);
    /* Recompute cost: one isdb_isd_estimate (JBD + CV) on n rows. */
    {
        static const int ns[4] = {1000, 2000, 4000, 8000};
        static const int ps[2] = {10, 20};
        static double Xe[8000 * 20], ye[8000], U[400], b[20], st[20];
        static double ework[6000000];
        int pi2, ni, sz[20], inv[20], blocks[2] = {0, 0};
        printf("\nRe-estimation cost (isdb_isd_estimate: 25 windows, JBD, 10-fold CV), ISD environment data\n");
        printf("%4s %6s %12s %9s %8s\n", "p", "n", "ms", "p_inv", "blocks");
        for (pi2 = 0; pi2 < 2; ++pi2)
            for (ni = 0; ni < (quick ? 2 : 4); ++ni) {
                int p = ps[pi2], n = ns[ni];
                int sizes[2], resf[2] = {0, 1};
                isdb_isd_env env;
                isdb_isd_env_config ec;
                isdb_isd_options o = isdb_isd_options_init();
                isdb_isd_fit f;
                double t1;
                sizes[0] = p - 3;
                sizes[1] = 3;
                ec = isdb_isd_env_config_init(p, 5, 2, sizes, resf);
                ec.cov_period = n / 8;
                isdb_isd_env_init(&ec, NULL, &env);
                isdb_isd_env_offline(&env, n, ISDB_ISD_LOG_UNIFORM, 1.0, 3, Xe, ye);
                f.U = U;
                f.beta_inv = b;
                f.stat = st;
                f.pvalue = NULL;
                f.sizes = sz;
                f.invariant = inv;
                if (isdb_isd_estimate_work_size(p, n, &o) > sizeof ework / sizeof ework[0])
                    return 1;
                t1 = now();
                isdb_isd_estimate(p, n, Xe, ye, &o, &f, ework);
                t1 = now() - t1;
                blocks[0] = f.n_blocks;
                printf("%4d %6d %12.1f %9d %8d\n", p, n, 1e3 * t1, f.p_inv, blocks[0]);
                isdb_env_uninit(&env.base);
            }
    }
    return 0;
}

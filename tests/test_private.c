/* The library's private numerical helpers that no public function
   exposes alone: the F distribution behind ISD's invariance test and
   monitor. Like every test that defines ISDB_IMPLEMENTATION itself, it is
   built without optimisation: the optimised implementation is tested
   through the public API. ISD's one-policy build holds every helper
   tested here and compiles faster than the whole library. */
#define ISDB_ONLY_ISD
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

/* isdb__chol_slide, SW-UCB's window step (update and downdate in one
   sweep, then the rotations), over a stream as test_linalg's
   update/downdate sequence: every step adds one vector and removes the
   oldest of a window of 12, and the factor is compared with the Gram
   matrix of lambda I + the window. Pass 1 is badly scaled (features 1 to
   1e4, lambda 1e-3, condition numbers near 1e12), where a downdate may be
   refused and the caller refactorises; the update alone (v NULL) must
   never be. The backward error bounds are those of the one-step routines,
   and the returned determinant ratios must match the factors'. */
#define SLIDE_MAXN 64
static void test_chol_slide(void) {
    static double ring[12 * SLIDE_MAXN], L[SLIDE_MAXN * SLIDE_MAXN], L_next[SLIDE_MAXN * SLIDE_MAXN],
        A[SLIDE_MAXN * SLIDE_MAXN], inv_diag[SLIDE_MAXN], x[SLIDE_MAXN], work[2 * SLIDE_MAXN];
    static const int dims[] = {1, 2, 3, 8, 20, 64};
    isdb_rng rng;
    int di, pass, refused_badly_scaled = 0;
    isdb_rng_seed(&rng, 21);
    for (pass = 0; pass < 2; ++pass)
        for (di = 0; di < 6; ++di) {
            int n = dims[di], w = 12, steps = 300, t, i, j, k, refused = 0;
            double lambda = pass ? 1e-3 : 1.0, worst = 0.0, worst_det = 0.0;
            memset(L, 0, sizeof L);
            for (i = 0; i < n; ++i) L[i * n + i] = sqrt(lambda);
            for (t = 0; t < steps; ++t) {
                double *old = ring + (t % w) * n, up = 0, down = 0, logdet = 0;
                int in_window = t + 1 < w ? t + 1 : w, ok;
                random_matrix(&rng, n, 1, x);
                if (pass)
                    for (i = 0; i < n; ++i) x[i] *= pow(1e4, (double)i / (n > 1 ? n - 1 : 1));
                for (i = 0; i < n; ++i) inv_diag[i] = 1 / L[i * n + i];
                ok = isdb__chol_slide(n, L, inv_diag, L_next, x, t >= w ? old : NULL, work, &up, &down);
                CHECK(ok || t >= w);
                memcpy(old, x, sizeof(double) * (size_t)n);
                for (i = 0; i < n; ++i)
                    for (j = 0; j < n; ++j) {
                        long double sum = i == j ? lambda : 0;
                        for (k = 0; k < in_window; ++k) sum += (long double)ring[k * n + i] * ring[k * n + j];
                        A[i * n + j] = (double)sum;
                    }
                if (ok) {
                    for (i = 0; i < n; ++i) logdet += log(L_next[i * n + i] / L[i * n + i]);
                    worst_det = fmax(worst_det, fabs(2 * logdet - log(up * down)));
                    CHECK(strictly_upper_zero(n, L_next));
                    memcpy(L, L_next, sizeof(double) * (size_t)(n * n));
                } else {
                    ++refused;
                    memcpy(L, A, sizeof(double) * (size_t)(n * n));
                    CHECK_OK(isdb_chol(n, L));
                }
                worst = fmax(worst, chol_backward_error(n, L, A));
            }
            if (!pass) CHECK_MSG(refused == 0, "n=%d: a well-conditioned slide was refused", n);
            if (pass) refused_badly_scaled += refused;
            CHECK_MSG(worst < (pass ? 1e-12 : 1e-13), "n=%d pass=%d worst backward error %g (%d refused)", n, pass,
                      worst, refused);
            CHECK_MSG(worst_det < (pass ? 1e-10 : 1e-11), "n=%d pass=%d determinant ratio off by %g", n, pass,
                      worst_det);
        }
    CHECK(refused_badly_scaled > 0);
}

/* ISD's leakage allowance rests on isdb__isd_rotation_var, a first-order
   estimate of how far each fitted column of the joint diagonalizer is
   rotated towards each column of another block. Against the truth: rows
   with independent coordinates in a random orthogonal basis (d = 5, all
   blocks singletons), variances redrawn uniform in [0.3, 3] every n / 8
   rows, the estimator's windows; over 40 logs the summed squared angles
   between fitted and true columns must be within a factor of 1.5 of the
   summed estimates (measured ratio 1.0-1.1 on bench/isd_practice's
   identifiable families). A missing overlap factor kappa (3.1 here) or
   degrees-of-freedom term would fail it. */
#define ROT_D 5
#define ROT_N 3000
static void test_rotation_var(void) {
    static double X[ROT_N * ROT_D], C[25 * ROT_D * ROT_D], work[4096];
    double Ut[ROT_D * ROT_D], U[ROT_D * ROT_D], T[ROT_D * ROT_D], M[ROT_D * ROT_D], G[ROT_D * ROT_D],
        V[ROT_D * ROT_D], blk[ROT_D], actual = 0.0, estimate = 0.0;
    int d = ROT_D, n = ROT_N, pp = ROT_D * ROT_D, seed, used = 0, i, j, k, r;
    isdb_isd_options o = isdb_isd_options_init();
    isdb__isd_dims dm;
    CHECK(isdb__isd_resolve(d, n, &o, &dm));
    CHECK(isdb_jbd_work_size(d, dm.m) <= sizeof work / sizeof work[0]);
    for (seed = 1; seed <= 40; ++seed) {
        isdb_rng rng;
        int sizes[ROT_D], match[ROT_D], nb;
        double sc[ROT_D];
        isdb_jbd_info info;
        isdb_rng_seed(&rng, 900 + (uint64_t)seed);
        /* a random orthogonal basis: Gram-Schmidt on Gaussian columns */
        for (j = 0; j < d; ++j) {
            double nrm = 0.0;
            for (i = 0; i < d; ++i) Ut[i * d + j] = isdb_rng_normal(&rng);
            for (k = 0; k < j; ++k) {
                double dot = 0.0;
                for (i = 0; i < d; ++i) dot += Ut[i * d + j] * Ut[i * d + k];
                for (i = 0; i < d; ++i) Ut[i * d + j] -= dot * Ut[i * d + k];
            }
            for (i = 0; i < d; ++i) nrm += Ut[i * d + j] * Ut[i * d + j];
            for (i = 0; i < d; ++i) Ut[i * d + j] /= sqrt(nrm);
        }
        for (r = 0; r < n; ++r) {
            double z[ROT_D];
            if (r % (n / 8) == 0)
                for (i = 0; i < d; ++i) sc[i] = 0.3 + 2.7 * isdb_rng_uniform(&rng);
            for (i = 0; i < d; ++i) z[i] = sqrt(sc[i]) * isdb_rng_normal(&rng);
            for (i = 0; i < d; ++i) {
                X[r * d + i] = 0.0;
                for (k = 0; k < d; ++k) X[r * d + i] += Ut[i * d + k] * z[k];
            }
        }
        /* the estimator's centred window covariances */
        for (k = 0; k < dm.m; ++k) {
            int st = isdb__isd_start(k, dm.m, n, dm.l);
            double mu[ROT_D] = {0}, *Ck = C + k * pp;
            for (r = st; r < st + dm.l; ++r)
                for (i = 0; i < d; ++i) mu[i] += X[r * d + i] / dm.l;
            memset(Ck, 0, sizeof(double) * (size_t)pp);
            for (r = st; r < st + dm.l; ++r)
                for (i = 0; i < d; ++i)
                    for (j = 0; j < d; ++j) Ck[i * d + j] += (X[r * d + i] - mu[i]) * (X[r * d + j] - mu[j]) / (dm.l - 1);
        }
        CHECK(isdb_jbd(d, dm.m, C, &o.jbd, U, sizes, work, &info) >= 0);
        nb = info.n_blocks;
        if (nb != d) continue; /* a merged pair: no angle to compare */
        for (i = 0; i < d; ++i) {
            double best = -1.0;
            blk[i] = (double)i;
            for (k = 0; k < d; ++k) {
                double dot = 0.0;
                for (r = 0; r < d; ++r) dot += U[r * d + i] * Ut[r * d + k];
                if (dot * dot > best) {
                    best = dot * dot;
                    match[i] = k;
                }
            }
        }
        for (i = 0; i < d; ++i)
            for (j = 0; j < i; ++j)
                if (match[i] == match[j]) break;
        if (i < d) continue;
        isdb__isd_rotation_var(&dm, C, U, blk, T, M, G, V);
        for (i = 0; i < d; ++i)
            for (j = 0; j < d; ++j) {
                double dot = 0.0;
                if (i == j) continue;
                for (r = 0; r < d; ++r) dot += U[r * d + i] * Ut[r * d + match[j]];
                actual += dot * dot;
                estimate += V[i * d + j];
            }
        ++used;
    }
    CHECK_MSG(used >= 30, "the five singletons found in %d of 40 logs", used);
    CHECK_MSG(actual <= 1.5 * estimate && estimate <= 1.5 * actual,
              "summed squared angles %g, estimated %g (ratio %.2f)", actual, estimate, actual / estimate);
    printf("rotation_var: %d logs, summed squared angles %.4g, estimated %.4g (ratio %.2f)\n", used, actual, estimate,
           actual / estimate);
}

/* A load's check that a stored factor L matches its Gram sum G, entry by
   entry, as isdb__ser_check_factor's contract states it (the library
   takes the columns in blocks and keeps their diagonal terms). */
static int ref_factor_ok(const double *L, const double *G, int n) {
    int i, j, k;
    for (i = 0; i < n; ++i)
        for (j = 0; j <= i; ++j) {
            double pii = 0, pjj = 0, e = 0, scale = 0, tol, pi, pj, gi, gj;
            for (k = 0; k <= i; ++k) pii += L[i * n + k] * L[i * n + k];
            for (k = 0; k <= j; ++k) pjj += L[j * n + k] * L[j * n + k];
            for (k = 0; k <= j; ++k) {
                e += L[i * n + k] * L[j * n + k];
                scale += fabs(L[i * n + k] * L[j * n + k]);
            }
            e -= G[i * n + j];
            pi = sqrt(pii), pj = sqrt(pjj), gi = sqrt(fabs(G[i * n + i])), gj = sqrt(fabs(G[j * n + j]));
            tol = ISDB__SER_TOL * (pi * pj + gi * gj + scale) + ISDB__SER_UNDER * (pi + pj + gi + gj) + ISDB__REAL_MIN;
            if (!(isdb__finite(tol) && (i == j ? e >= -tol && e <= tol : fabs(e) <= tol))) return 0;
        }
    return 1;
}

/* isdb__ser_check_factor against that reference on factors of n = 1 to
   40 (up to three blocks of columns), half with one entry of L or G
   moved by 2^-k; and a move past the first block is refused. */
static void test_check_factor(void) {
    enum { N = 40 };
    static double G[N * N], L[N * N], X[N * N];
    static unsigned char bufL[N * N * 8], bufG[N * N * 8];
    isdb_rng rng;
    int trial, i, j, k, agree = 1, refused = 0;
    isdb_rng_seed(&rng, 5);
    for (trial = 0; trial < 600; ++trial) {
        int n = trial < 598 ? 1 + (int)isdb_rng_below(&rng, N) : N;
        isdb_ser s;
        isdb__ser_gram g;
        isdb__ser_view Lv;
        for (i = 0; i < n * n; ++i) X[i] = isdb_rng_normal(&rng);
        for (i = 0; i < n; ++i)
            for (j = 0; j < n; ++j) {
                double v = i == j ? 1.0 : 0.0;
                for (k = 0; k < n; ++k) v += X[k * n + i] * X[k * n + j];
                G[i * n + j] = v;
            }
        memcpy(L, G, sizeof(double) * (size_t)(n * n));
        CHECK_OK(isdb_chol(n, L));
        for (i = 0; i < n; ++i)
            for (j = i + 1; j < n; ++j) L[i * n + j] = 0;
        if (trial >= 598) {
            /* past the first block: an off-diagonal entry, then a diagonal one */
            L[(N - 2) * n + (trial == 598 ? N - 5 : N - 2)] *= 1.001;
        } else if (trial % 2) {
            int a = (int)isdb_rng_below(&rng, (uint64_t)n), b = (int)isdb_rng_below(&rng, (uint64_t)(a + 1));
            double move = 1 + ldexp(1.0, -(int)isdb_rng_below(&rng, 52));
            if (trial % 4 == 1)
                L[a * n + b] *= move;
            else
                G[a * n + b] *= move;
        }
        for (i = 0; i < n * n; ++i) {
            isdb__put_le(bufL + 8 * i, isdb__real_bits(L[i]), 8);
            isdb__put_le(bufG + 8 * i, isdb__real_bits(G[i]), 8);
        }
        Lv.at = bufL;
        g.A.at = bufG;
        g.ld = n;
        memset(&s, 0, sizeof s);
        s.mode = ISDB__SER_CHECK;
        isdb__ser_check_factor(&s, Lv, n, n, isdb__ser_gram_at, &g, 0.0);
        agree &= s.failed == !ref_factor_ok(L, G, n);
        refused += s.failed;
        if (trial >= 598) CHECK_MSG(s.failed, "a moved entry of a %d x %d factor passed", n, n);
    }
    CHECK(agree);
    CHECK(refused > 30 && refused < 300); /* both verdicts occur */
}

int main(void) {
    test_check_factor();
    test_rotation_var();
    test_f_quantile();
    test_chol_slide();
    return test_report();
}

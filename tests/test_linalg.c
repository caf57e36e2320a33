/* Linear algebra: every routine against an identity (A = L L^T, Q^T Q = I,
   A V = V diag(w), ...) and against a slow reference written here, on
   random matrices of sizes 1 to 64 and on ill-conditioned ones (condition
   numbers up to 1e12; 1e5 in float, see COND_HI), plus the failure paths.
   Rounding tolerances scale with the precision (T_TOL, T_EPS). */
#include "../isdbandit.h"
#include "test.h"
#include "ref.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 64

static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 24, 31, 32, 33, 48, 63, 64};
#define N_SIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* Condition numbers of the ill-conditioned cases: low, middle, high.
   Double runs them to 1e12. Float holds at most 1/FLT_EPSILON = 8e6, and
   rounding a matrix to float already moves its smallest eigenvalue by
   about eps ||A||, so a float matrix of condition 1e9 or 1e12 is not the
   matrix meant (often not even positive definite) and the checks would
   test nothing: a float build stops at 1e5, where every bound below still
   says something. */
#if ISDB_REAL_IS_FLOAT
#define COND_LO 1e3
#define COND_MID 1e4
#define COND_HI 1e5
#else
#define COND_LO 1e6
#define COND_MID 1e9
#define COND_HI 1e12
#endif

/* Departure from orthogonality of the factors Jacobi rotations build
   (sym_eig's V, polar's U W^T), as orthogonality_error measures it. A
   rotation whose tangent t has t^2 < eps/2 rounds its cosine to 1 and so
   lengthens the columns it touches by up to eps/2, always upwards; how
   many of the last sweeps' rotations fall there depends on where the
   quadratically shrinking angles land against sqrt(eps), which differs
   between the precisions. At n = 64 the bias averages 0.085 eps per
   rotation in double and 0.16 eps in float (measured), and the departure
   reaches 415 eps in double, 633 eps in float (20 random matrices): float
   gets twice double's bound in eps. */
#define JACOBI_ORTH (T_TOL(1e-13) * (ISDB_REAL_IS_FLOAT ? 2 : 1))

static isdb_real A0[MAXN * MAXN], A1[MAXN * MAXN], A2[MAXN * MAXN], B0[MAXN * MAXN], Q0[MAXN * MAXN];
static isdb_real v0[MAXN], v1[MAXN], v2[MAXN], ev[MAXN], work[4 * MAXN * MAXN];
static long double ref[MAXN * MAXN];

/* ---- tests -------------------------------------------------------------- */

static void test_chol_random(void) {
    isdb_rng rng;
    int s, n, i;
    isdb_rng_seed(&rng, 11);
    for (s = 0; s < N_SIZES; ++s) {
        isdb_real maxdiff = 0.0, scale = 0.0;
        n = sizes[s];
        random_spd(&rng, n, A0);
        memcpy(A1, A0, sizeof(isdb_real) * (size_t)(n * n));
        CHECK_OK(isdb_chol(n, A1));
        CHECK_MSG(chol_backward_error(n, A1, A0) < T_TOL(1e-14), "n=%d error %g", n, chol_backward_error(n, A1, A0));
        CHECK(strictly_upper_zero(n, A1));
        CHECK(ref_chol(n, A0, ref));
        for (i = 0; i < n * n; ++i) {
            maxdiff = fmax(maxdiff, fabs(A1[i] - (isdb_real)ref[i]));
            scale = fmax(scale, fabs((isdb_real)ref[i]));
        }
        CHECK_MSG(maxdiff <= T_TOL(1e-13) * scale, "n=%d factor differs from reference by %g", n, maxdiff / scale);
    }
}

static void test_chol_ill_conditioned(void) {
    static const isdb_real conds[] = {1e2, COND_LO, COND_MID, COND_HI};
    isdb_rng rng;
    int c, s, i;
    isdb_rng_seed(&rng, 12);
    for (c = 0; c < 4; ++c)
        for (s = 0; s < N_SIZES; s += 3) {
            int n = sizes[s];
            isdb_real resid, logdet_ref = 0.0;
            spd_with_condition(&rng, n, conds[c], A0, ev);
            memcpy(A1, A0, sizeof(isdb_real) * (size_t)(n * n));
            CHECK_OK(isdb_chol(n, A1));
            CHECK_MSG(chol_backward_error(n, A1, A0) < T_TOL(1e-14), "n=%d cond=%g", n, conds[c]);
            /* Backward stability bounds the log-determinant error by about
               n eps cond; the reference is the long-isdb_real factor. */
            CHECK(ref_chol(n, A0, ref));
            for (i = 0; i < n; ++i) logdet_ref += 2.0 * log((isdb_real)ref[i * n + i]);
            CHECK_NEAR(isdb_chol_logdet(n, A1), logdet_ref, 4.0 * n * T_EPS * conds[c]);
            /* Solve: small backward error ||A x - b|| / (||A|| ||x||). */
            random_matrix(&rng, n, 1, v0);
            isdb_chol_solve(n, A1, v0, v1);
            matmul(n, n, 1, A0, v1, v2);
            resid = rel_diff(n, 1, v2, v0) * frob(n, 1, v0) / (frob(n, n, A0) * frob(n, 1, v1));
            CHECK_MSG(resid < T_TOL(1e-14), "n=%d cond=%g solve backward error %g", n, conds[c], resid);
            /* Aliased solve gives the same bits. */
            memcpy(v2, v0, sizeof(isdb_real) * (size_t)n);
            isdb_chol_solve(n, A1, v2, v2);
            CHECK(memcmp(v1, v2, sizeof(isdb_real) * (size_t)n) == 0);
        }
}

static void test_chol_failures(void) {
    isdb_real I2[4] = {1, 2, 2, 1}; /* indefinite */
    isdb_real Z[9] = {0}, P[9], N[4] = {1, 0, 0, 1};
    isdb_real u[3] = {1, 2, 3};
    int i, j;
    CHECK_RESULT(isdb_chol(2, I2), ISDB_ERR_NOT_SPD);
    CHECK_RESULT(isdb_chol(3, Z), ISDB_ERR_NOT_SPD);
    for (i = 0; i < 3; ++i)
        for (j = 0; j < 3; ++j) P[i * 3 + j] = u[i] * u[j]; /* rank one, PSD */
    CHECK_RESULT(isdb_chol(3, P), ISDB_ERR_NOT_SPD);
    N[2] = T_NAN;
    CHECK_RESULT(isdb_chol(2, N), ISDB_ERR_NONFINITE);
    N[2] = 0.0;
    N[3] = T_INF;
    CHECK_RESULT(isdb_chol(2, N), ISDB_ERR_NONFINITE);
    CHECK_RESULT(isdb_chol(0, Z), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_chol(2, NULL), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_chol(ISDB_MAX_DIM + 1, Z), ISDB_ERR_INVALID_ARG);
    /* A NaN in the (ignored) upper triangle does not matter. */
    N[0] = 4.0;
    N[1] = T_NAN;
    N[2] = 2.0;
    N[3] = 5.0;
    CHECK_OK(isdb_chol(2, N));
    CHECK_NEAR(N[0], 2.0, 0.0);
    CHECK_NEAR(N[2], 1.0, 0.0);
    CHECK_NEAR(N[3], 2.0, 0.0);
    CHECK(N[1] == 0.0);
}

static void test_tri_solve(void) {
    isdb_rng rng;
    int s, trans;
    isdb_rng_seed(&rng, 13);
    for (s = 0; s < N_SIZES; ++s) {
        int n = sizes[s];
        random_spd(&rng, n, A0);
        CHECK_OK(isdb_chol(n, A0));
        for (trans = 0; trans < 2; ++trans) {
            random_matrix(&rng, n, 1, v0);
            isdb_tri_solve(n, A0, trans, v0, v1);
            if (trans) {
                transpose(n, n, A0, A1);
                matmul(n, n, 1, A1, v1, v2);
            } else {
                matmul(n, n, 1, A0, v1, v2);
            }
            CHECK_MSG(rel_diff(n, 1, v2, v0) < T_TOL(1e-13), "n=%d trans=%d", n, trans);
            memcpy(v2, v0, sizeof(isdb_real) * (size_t)n);
            isdb_tri_solve(n, A0, trans, v2, v2);
            CHECK(memcmp(v1, v2, sizeof(isdb_real) * (size_t)n) == 0);
        }
    }
}

/* Lower factors of matrices with condition numbers 1e2 to COND_HI (the
   factor's is the square root). A triangular solve is backward stable:
   ||L x - b|| <= n eps ||L|| ||x|| whatever the conditioning; its
   distance to the long-isdb_real reference is bounded by the condition
   number times that, n eps kappa(L) for each of the two solutions (a
   factor n more covers the componentwise condition number, which exceeds
   kappa(L) by at most n). */
static void test_tri_solve_ill_conditioned(void) {
    static const isdb_real conds[] = {1e2, COND_LO, COND_MID, COND_HI};
    isdb_rng rng;
    int c, s, trans;
    isdb_rng_seed(&rng, 23);
    for (c = 0; c < 4; ++c)
        for (s = 0; s < N_SIZES; s += 2) {
            int n = sizes[s];
            isdb_real kappa = sqrt(conds[c]);
            spd_with_condition(&rng, n, conds[c], A0, ev);
            CHECK_OK(isdb_chol(n, A0));
            for (trans = 0; trans < 2; ++trans) {
                isdb_real be, fe;
                if (trans)
                    transpose(n, n, A0, A1);
                else
                    memcpy(A1, A0, sizeof(isdb_real) * (size_t)(n * n));
                random_matrix(&rng, n, 1, v0);
                isdb_tri_solve(n, A0, trans, v0, v1);
                matmul(n, n, 1, A1, v1, v2);
                be = rel_diff(n, 1, v2, v0) * frob(n, 1, v0) / (frob(n, n, A1) * frob(n, 1, v1));
                CHECK_MSG(be < n * T_EPS, "n=%d cond=%g trans=%d backward error %g", n, conds[c], trans, be);
                ref_solve(n, A1, v0, v2);
                fe = rel_diff(n, 1, v1, v2);
                CHECK_MSG(fe < 2.0 * n * n * T_EPS * kappa, "n=%d cond=%g trans=%d differs from the reference by %g",
                          n, conds[c], trans, fe);
            }
        }
}

static void test_update_downdate(void) {
    isdb_rng rng;
    int s, i, j;
    isdb_rng_seed(&rng, 14);
    for (s = 0; s < N_SIZES; ++s) {
        int n = sizes[s];
        isdb_real scale;
        random_spd(&rng, n, A0);
        memcpy(A1, A0, sizeof(isdb_real) * (size_t)(n * n));
        CHECK_OK(isdb_chol(n, A1));
        random_matrix(&rng, n, 1, v0);
        memcpy(v1, v0, sizeof(isdb_real) * (size_t)n);
        CHECK_OK(isdb_chol_update(n, A1, v0, work));
        CHECK(memcmp(v0, v1, sizeof(isdb_real) * (size_t)n) == 0); /* x unchanged */
        for (i = 0; i < n; ++i)
            for (j = 0; j < n; ++j) A2[i * n + j] = A0[i * n + j] + v0[i] * v0[j];
        CHECK(ref_chol(n, A2, ref));
        scale = 0.0;
        for (i = 0; i < n * n; ++i) scale = fmax(scale, fabs((isdb_real)ref[i] - A1[i]));
        CHECK_MSG(scale < T_TOL(1e-12) * sqrt(frob(n, n, A2)), "n=%d update differs by %g", n, scale);
        CHECK(strictly_upper_zero(n, A1));
        /* Downdate back to A0. */
        CHECK_OK(isdb_chol_downdate(n, A1, v0, work));
        CHECK_MSG(chol_backward_error(n, A1, A0) < T_TOL(1e-13), "n=%d downdate error %g", n,
                  chol_backward_error(n, A1, A0));
        CHECK(strictly_upper_zero(n, A1));
        /* A downdate that leaves an indefinite matrix is refused, L unchanged. */
        memcpy(A2, A1, sizeof(isdb_real) * (size_t)(n * n));
        for (i = 0; i < n; ++i) v1[i] = 10.0 * sqrt(A0[i * n + i]) * (i == 0 ? 1.0 : 0.0) * sqrt((isdb_real)n + 1);
        CHECK_RESULT(isdb_chol_downdate(n, A1, v1, work), ISDB_ERR_NOT_SPD);
        CHECK(memcmp(A1, A2, sizeof(isdb_real) * (size_t)(n * n)) == 0);
    }
}

/* A sliding window over a stream: every step adds one vector and removes
   the oldest, by update and downdate, compared with the Gram matrix of
   lambda I + the window. Pass 1 is badly scaled (feature scales 1 to
   BAD_SCALE, lambda 1e-3, window shorter than n: condition numbers near
   1e12 in double); there a downdate may be refused, which must leave L
   unchanged, and the caller then refactorises (what SW-UCB does). The
   factor's backward error stays small throughout. Float takes the scales
   to 1e1 only (conditions near 1e6): at 1e4 the window's Gram matrix is
   beyond what float can factor at all. */
#if ISDB_REAL_IS_FLOAT
#define BAD_SCALE 1e1
#else
#define BAD_SCALE 1e4
#endif
static void test_update_downdate_sequence(void) {
    static isdb_real ring[32 * MAXN];
    static const int dims[] = {1, 3, 8, 20, 64};
    isdb_rng rng;
    int di, pass, refused_badly_scaled = 0;
    isdb_rng_seed(&rng, 15);
    for (pass = 0; pass < 2; ++pass)
        for (di = 0; di < 5; ++di) {
            int n = dims[di], w = 12, steps = 300, t, i, j, k, refused = 0;
            isdb_real lambda = pass ? 1e-3 : 1.0, worst = 0.0;
            memset(A1, 0, sizeof(isdb_real) * (size_t)(n * n));
            for (i = 0; i < n; ++i) A1[i * n + i] = sqrt(lambda);
            for (t = 0; t < steps; ++t) {
                isdb_real *x = ring + (t % w) * n;
                int in_window = t + 1 < w ? t + 1 : w;
                random_matrix(&rng, n, 1, v0);
                if (pass)
                    for (i = 0; i < n; ++i) v0[i] *= pow(BAD_SCALE, (isdb_real)i / (n > 1 ? n - 1 : 1));
                CHECK_OK(isdb_chol_update(n, A1, v0, work));
                if (t >= w) {
                    memcpy(A2, A1, sizeof(isdb_real) * (size_t)(n * n));
                    if (isdb_chol_downdate(n, A1, x, work) != ISDB_OK) {
                        ++refused;
                        CHECK(memcmp(A1, A2, sizeof(isdb_real) * (size_t)(n * n)) == 0);
                    }
                }
                memcpy(x, v0, sizeof(isdb_real) * (size_t)n);
                for (i = 0; i < n; ++i)
                    for (j = 0; j < n; ++j) {
                        long double sum = i == j ? lambda : 0;
                        for (k = 0; k < in_window; ++k) sum += (long double)ring[k * n + i] * ring[k * n + j];
                        A0[i * n + j] = (isdb_real)sum;
                    }
                if (t >= w && memcmp(A1, A2, sizeof(isdb_real) * (size_t)(n * n)) == 0) {
                    memcpy(A1, A0, sizeof(isdb_real) * (size_t)(n * n));
                    CHECK_OK(isdb_chol(n, A1));
                }
                worst = fmax(worst, chol_backward_error(n, A1, A0));
            }
            if (!pass) CHECK_MSG(refused == 0, "n=%d: a well-conditioned downdate was refused", n);
            if (pass) refused_badly_scaled += refused;
            CHECK_MSG(worst < T_TOL(pass ? 1e-12 : 1e-13), "n=%d pass=%d worst backward error %g (%d refused)", n,
                      pass, worst, refused);
        }
    /* The badly scaled pass must reach the refusal path it is meant to test. */
    CHECK(refused_badly_scaled > 0);
}

static void test_sym_eig(void) {
    static const isdb_real conds[] = {1.0, 1e3, COND_HI};
    isdb_rng rng;
    int s, c, i;
    isdb_rng_seed(&rng, 16);
    for (s = 0; s < N_SIZES; ++s) {
        int n = sizes[s];
        /* Random symmetric: A V = V diag(w), V orthogonal, ascending. */
        random_matrix(&rng, n, n, A0);
        t_symmetrize_lower(n, A0);
        memcpy(A1, A0, sizeof(isdb_real) * (size_t)(n * n));
        CHECK_OK(isdb_sym_eig(n, A1, v0, Q0));
        matmul(n, n, n, A0, Q0, A1);
        for (i = 0; i < n * n; ++i) A2[i] = Q0[i] * v0[i % n];
        CHECK_MSG(rel_diff(n, n, A1, A2) * frob(n, n, A2) / frob(n, n, A0) < T_TOL(1e-13), "n=%d residual", n);
        CHECK_MSG(orthogonality_error(n, n, Q0) < JACOBI_ORTH, "n=%d V not orthogonal", n);
        for (i = 1; i < n; ++i) CHECK(v0[i - 1] <= v0[i]);
        /* Known spectra, including repeated eigenvalues and cond COND_HI. */
        for (c = 0; c < 3; ++c) {
            isdb_real worst = 0.0;
            spd_with_condition(&rng, n, conds[c], A0, ev);
            CHECK_OK(isdb_sym_eig(n, A0, v0, Q0));
            for (i = 0; i < n; ++i) worst = fmax(worst, fabs(v0[i] - ev[n - 1 - i]));
            CHECK_MSG(worst < T_TOL(1e-14) * (isdb_real)n, "n=%d cond=%g eigenvalue error %g", n, conds[c], worst);
        }
    }
    CHECK_RESULT(isdb_sym_eig(0, A0, v0, Q0), ISDB_ERR_INVALID_ARG);
    A0[0] = T_NAN;
    CHECK_RESULT(isdb_sym_eig(1, A0, v0, Q0), ISDB_ERR_NONFINITE);
}

static void test_qr(void) {
    static const int shapes[][2] = {{1, 1}, {3, 1}, {1, 3}, {5, 3}, {3, 5}, {8, 8}, {20, 7}, {7, 20}, {64, 64}, {64, 10}, {10, 64}};
    isdb_rng rng;
    int s, i, j;
    isdb_rng_seed(&rng, 17);
    for (s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); ++s) {
        int m = shapes[s][0], n = shapes[s][1], upper = 1;
        random_matrix(&rng, m, n, A0);
        memcpy(A1, A0, sizeof(isdb_real) * (size_t)(m * n));
        CHECK(isdb_qr_work_size(m, n) <= sizeof work / sizeof work[0]);
        CHECK_OK(isdb_qr(m, n, A1, Q0, work));
        for (i = 0; i < m; ++i)
            for (j = 0; j < i && j < n; ++j)
                if (A1[i * n + j] != 0.0) upper = 0;
        CHECK(upper);
        CHECK_MSG(orthogonality_error(m, m, Q0) < T_TOL(1e-13), "%dx%d Q not orthogonal", m, n);
        matmul(m, m, n, Q0, A1, A2);
        CHECK_MSG(rel_diff(m, n, A2, A0) < T_TOL(1e-13), "%dx%d QR != A", m, n);
        /* Without Q the same R. */
        memcpy(A2, A0, sizeof(isdb_real) * (size_t)(m * n));
        CHECK_OK(isdb_qr(m, n, A2, NULL, work));
        CHECK(memcmp(A1, A2, sizeof(isdb_real) * (size_t)(m * n)) == 0);
    }
    /* Ill-conditioned square matrices (condition numbers to COND_HI, made
       unsymmetric by a random orthogonal factor): Householder QR is
       backward stable, so both identities hold to rounding whatever the
       conditioning. */
    for (s = 0; s < N_SIZES; s += 3) {
        static const isdb_real conds[] = {COND_LO, COND_HI};
        int n = sizes[s], c;
        for (c = 0; c < 2; ++c) {
            spd_with_condition(&rng, n, conds[c], A2, ev);
            random_orthogonal(&rng, n, Q0);
            matmul(n, n, n, Q0, A2, A0);
            memcpy(A1, A0, sizeof(isdb_real) * (size_t)(n * n));
            CHECK_OK(isdb_qr(n, n, A1, Q0, work));
            CHECK_MSG(orthogonality_error(n, n, Q0) < T_TOL(1e-13), "n=%d cond=%g Q not orthogonal", n, conds[c]);
            matmul(n, n, n, Q0, A1, A2);
            CHECK_MSG(rel_diff(n, n, A2, A0) < T_TOL(1e-13), "n=%d cond=%g QR != A (%g)", n, conds[c],
                      rel_diff(n, n, A2, A0));
        }
    }
    CHECK_RESULT(isdb_qr(2, 2, A0, A0, work), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_qr(0, 2, A0, Q0, work), ISDB_ERR_INVALID_ARG);
}

static void test_orth_basis(void) {
    static const int cases[][3] = {{5, 3, 2}, {6, 6, 6}, {10, 4, 4}, {4, 10, 4}, {8, 12, 3}, {64, 30, 17}, {3, 3, 1}, {1, 4, 1}};
    static isdb_real Bm[MAXN * MAXN], Cm[MAXN * MAXN], QT[MAXN * MAXN], P[MAXN * MAXN];
    isdb_rng rng;
    int s, i, j, rank;
    isdb_rng_seed(&rng, 18);
    for (s = 0; s < (int)(sizeof cases / sizeof cases[0]); ++s) {
        int m = cases[s][0], n = cases[s][1], r = cases[s][2];
        isdb_real lost, overlap = 0.0;
        random_matrix(&rng, m, r, Bm);
        random_matrix(&rng, r, n, Cm);
        matmul(m, r, n, Bm, Cm, A0);
        memcpy(A1, A0, sizeof(isdb_real) * (size_t)(m * n));
        CHECK(isdb_orth_basis_work_size(m, n) <= sizeof work / sizeof work[0]);
        CHECK_OK(isdb_orth_basis(m, n, A0, 0.0, Q0, &rank, work));
        CHECK(memcmp(A0, A1, sizeof(isdb_real) * (size_t)(m * n)) == 0); /* A untouched */
        CHECK_MSG(rank == r, "%dx%d rank %d found %d", m, n, r, rank);
        CHECK(orthogonality_error(m, m, Q0) < T_TOL(1e-13));
        /* The last m - rank columns are orthogonal to every column of A, so
           A lies in the span of the first rank columns. */
        transpose(m, m, Q0, QT);
        matmul(m, m, n, QT, A0, P);
        for (i = 0; i < m; ++i)
            for (j = 0; j < n; ++j)
                if (i >= rank) overlap = fmax(overlap, fabs(P[i * n + j]));
        lost = overlap / frob(m, n, A0);
        CHECK_MSG(lost < T_TOL(1e-13), "%dx%d complement overlaps the span by %g", m, n, lost);
    }
    /* Zero matrix: rank 0, Q = I. */
    memset(A0, 0, sizeof(isdb_real) * 12);
    CHECK_OK(isdb_orth_basis(4, 3, A0, 0.0, Q0, &rank, work));
    CHECK(rank == 0);
    CHECK(orthogonality_error(4, 4, Q0) == 0.0);
    /* Singular values 1 .. 1e-12 in 6 columns: rtol 1e-6 keeps those above. */
    random_orthogonal(&rng, 6, Q0);
    for (i = 0; i < 6; ++i)
        for (j = 0; j < 6; ++j) A0[i * 6 + j] = Q0[i * 6 + j] * pow(1e-12, j / 5.0);
    CHECK_OK(isdb_orth_basis(6, 6, A0, 1e-6, Q0, &rank, work));
    CHECK_MSG(rank == 3, "graded columns: rank %d, expected 3", rank);
    CHECK_RESULT(isdb_orth_basis(4, 3, A0, 1.5, Q0, &rank, work), ISDB_ERR_INVALID_ARG);
}

static void test_lu(void) {
    static int piv[MAXN];
    isdb_rng rng;
    int s, i, j;
    isdb_rng_seed(&rng, 19);
    for (s = 0; s < N_SIZES; ++s) {
        int n = sizes[s];
        random_matrix(&rng, n, n, A0);
        memcpy(A1, A0, sizeof(isdb_real) * (size_t)(n * n));
        CHECK_OK(isdb_lu(n, A1, piv));
        /* Three right-hand sides at once, against the reference solve. */
        random_matrix(&rng, n, 3, B0);
        memcpy(A2, B0, sizeof(isdb_real) * (size_t)(n * 3));
        isdb_lu_solve(n, A1, piv, 3, A2);
        for (j = 0; j < 3; ++j) {
            for (i = 0; i < n; ++i) v0[i] = B0[i * 3 + j];
            ref_solve(n, A0, v0, v1);
            for (i = 0; i < n; ++i) v2[i] = A2[i * 3 + j];
            CHECK_MSG(rel_diff(n, 1, v2, v1) < T_TOL(1e-10), "n=%d rhs %d differs by %g", n, j, rel_diff(n, 1, v2, v1));
        }
    }
    /* Ill-conditioned (cond COND_HI): small backward error. */
    for (s = 0; s < N_SIZES; s += 4) {
        int n = sizes[s];
        isdb_real be;
        spd_with_condition(&rng, n, COND_HI, A0, ev);
        memcpy(A1, A0, sizeof(isdb_real) * (size_t)(n * n));
        CHECK_OK(isdb_lu(n, A1, piv));
        random_matrix(&rng, n, 1, v0);
        memcpy(v1, v0, sizeof(isdb_real) * (size_t)n);
        isdb_lu_solve(n, A1, piv, 1, v1);
        matmul(n, n, 1, A0, v1, v2);
        be = rel_diff(n, 1, v2, v0) * frob(n, 1, v0) / (frob(n, n, A0) * frob(n, 1, v1));
        CHECK_MSG(be < T_TOL(1e-14), "n=%d backward error %g", n, be);
    }
    /* Singular: two equal rows. */
    random_matrix(&rng, 4, 4, A0);
    for (j = 0; j < 4; ++j) A0[3 * 4 + j] = A0[1 * 4 + j];
    CHECK_RESULT(isdb_lu(4, A0, piv), ISDB_ERR_SINGULAR);
    memset(A0, 0, sizeof(isdb_real) * 4);
    CHECK_RESULT(isdb_lu(2, A0, piv), ISDB_ERR_SINGULAR);
    A0[0] = T_NAN;
    CHECK_RESULT(isdb_lu(1, A0, piv), ISDB_ERR_NONFINITE);
}

static void test_polar(void) {
    static isdb_real P[MAXN * MAXN], QT[MAXN * MAXN], S[MAXN * MAXN], Qp[MAXN * MAXN];
    isdb_rng rng;
    int s, i;
    isdb_rng_seed(&rng, 20);
    for (s = 0; s < N_SIZES; ++s) {
        int n = sizes[s];
        isdb_real asym = 0.0;
        random_matrix(&rng, n, n, A0);
        CHECK(isdb_polar_work_size(n) <= sizeof work / sizeof work[0]);
        CHECK_OK(isdb_polar(n, A0, Qp, work));
        CHECK_MSG(orthogonality_error(n, n, Qp) < JACOBI_ORTH, "n=%d polar factor not orthogonal", n);
        /* P = Q^T A is symmetric positive definite. */
        transpose(n, n, Qp, QT);
        matmul(n, n, n, QT, A0, P);
        transpose(n, n, P, S);
        asym = rel_diff(n, n, P, S);
        CHECK_MSG(asym < T_TOL(1e-12), "n=%d Q^T A not symmetric (%g)", n, asym);
        CHECK_OK(isdb_sym_eig(n, S, v0, A1));
        CHECK(v0[0] > 0.0);
        /* Uniqueness: A = Q0 S0 with S0 SPD (cond COND_LO) gives back Q0,
           to rounding times the condition number. */
        random_orthogonal(&rng, n, A2);
        spd_with_condition(&rng, n, COND_LO, S, ev);
        matmul(n, n, n, A2, S, A0);
        CHECK_OK(isdb_polar(n, A0, A0, work)); /* aliased */
        CHECK_MSG(rel_diff(n, n, A0, A2) < T_TOL(1e-14) * COND_LO, "n=%d polar of Q S is not Q (%g)", n,
                  rel_diff(n, n, A0, A2));
        /* An orthogonal matrix is its own polar factor: the factor moves a
           nearly orthogonal A2 by about A2's own departure from
           orthogonality (which depends on the precision long double has
           on the machine, e.g. isdb_real under valgrind). */
        CHECK_OK(isdb_polar(n, A2, Qp, work));
        CHECK_MSG(rel_diff(n, n, Qp, A2) < 10.0 * (orthogonality_error(n, n, A2) + n * T_EPS),
                  "n=%d moved by %g, departure %g", n, rel_diff(n, n, Qp, A2), orthogonality_error(n, n, A2));
    }
    /* Condition numbers to COND_HI: the factor is still orthogonal and Q^T A
       symmetric to rounding, and it is Q0 within the polar factor's
       sensitivity: a backward error of n eps ||A|| moves it by at most
       2 n eps sigma_1 / (sigma_n + sigma_n-1) (Kenney and Laub 1991). */
    for (s = 1; s < N_SIZES; s += 3) {
        static const isdb_real conds[] = {COND_MID, COND_HI};
        int n = sizes[s], c;
        for (c = 0; c < 2; ++c) {
            isdb_real sens, asym;
            random_orthogonal(&rng, n, A2);
            spd_with_condition(&rng, n, conds[c], S, ev);
            sens = 2.0 * n * T_EPS / (ev[n - 1] + ev[n - 2]);
            matmul(n, n, n, A2, S, A0);
            CHECK_OK(isdb_polar(n, A0, Qp, work));
            CHECK_MSG(orthogonality_error(n, n, Qp) < JACOBI_ORTH, "n=%d cond=%g factor not orthogonal", n, conds[c]);
            transpose(n, n, Qp, QT);
            matmul(n, n, n, QT, A0, P);
            transpose(n, n, P, S);
            asym = rel_diff(n, n, P, S);
            CHECK_MSG(asym < T_TOL(1e-13), "n=%d cond=%g Q^T A not symmetric (%g)", n, conds[c], asym);
            CHECK_MSG(rel_diff(n, n, Qp, A2) < sens, "n=%d cond=%g factor off by %g, sensitivity bound %g", n,
                      conds[c], rel_diff(n, n, Qp, A2), sens);
        }
    }
    /* Singular input. */
    memset(A0, 0, sizeof(isdb_real) * 9);
    for (i = 0; i < 3; ++i) A0[i * 3 + 0] = A0[i * 3 + 1] = (isdb_real)(i + 1);
    A0[2 * 3 + 2] = 1.0;
    CHECK_RESULT(isdb_polar(3, A0, Qp, work), ISDB_ERR_SINGULAR);
}

int main(void) {
    test_chol_random();
    test_chol_ill_conditioned();
    test_chol_failures();
    test_tri_solve();
    test_tri_solve_ill_conditioned();
    test_update_downdate();
    test_update_downdate_sequence();
    test_sym_eig();
    test_qr();
    test_orth_basis();
    test_lu();
    test_polar();
    return test_report();
}

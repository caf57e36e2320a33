/* ref.h - slow, obviously correct references shared by the tests: long
   isdb_real products, Gram-Schmidt, textbook Cholesky and Gaussian
   elimination. Matrices are row-major; sizes are at most REF_MAXN. */
#ifndef ISDB_TEST_REF_H
#define ISDB_TEST_REF_H

#include <math.h>
#include <string.h>

#include "test.h"

#define REF_MAXN 64

/* Not every test uses every reference. */
#if defined(__GNUC__) || defined(__clang__)
#define REF_FN static __attribute__((unused))
#else
#define REF_FN static
#endif

REF_FN void matmul(int m, int k, int n, const isdb_real *A, const isdb_real *B, isdb_real *C) {
    int i, j, l;
    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j) {
            long double s = 0;
            for (l = 0; l < k; ++l) s += (long double)A[i * k + l] * B[l * n + j];
            C[i * n + j] = (isdb_real)s;
        }
}

REF_FN void transpose(int m, int n, const isdb_real *A, isdb_real *T) {
    int i, j;
    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j) T[j * m + i] = A[i * n + j];
}

REF_FN isdb_real frob(int m, int n, const isdb_real *A) {
    long double s = 0;
    int i;
    for (i = 0; i < m * n; ++i) s += (long double)A[i] * A[i];
    return (isdb_real)sqrtl(s);
}

/* ||A - B||_F / max(||B||_F, tiny). */
REF_FN isdb_real rel_diff(int m, int n, const isdb_real *A, const isdb_real *B) {
    long double s = 0;
    int i;
    for (i = 0; i < m * n; ++i) s += ((long double)A[i] - B[i]) * ((long double)A[i] - B[i]);
    return (isdb_real)sqrtl(s) / fmax(frob(m, n, B), 1e-300);
}

REF_FN void random_matrix(isdb_rng *rng, int m, int n, isdb_real *A) {
    int i;
    for (i = 0; i < m * n; ++i) A[i] = isdb_rng_normal(rng);
}

/* Random orthogonal matrix by modified Gram-Schmidt in long double on a
   Gaussian matrix (independent of the library's QR). */
REF_FN void random_orthogonal(isdb_rng *rng, int n, isdb_real *Q) {
    static long double W[REF_MAXN * REF_MAXN];
    int i, j, k;
    for (i = 0; i < n * n; ++i) W[i] = isdb_rng_normal(rng);
    for (j = 0; j < n; ++j) {
        long double nrm = 0;
        for (k = 0; k < j; ++k) {
            long double dot = 0;
            for (i = 0; i < n; ++i) dot += W[i * n + j] * W[i * n + k];
            for (i = 0; i < n; ++i) W[i * n + j] -= dot * W[i * n + k];
        }
        for (i = 0; i < n; ++i) nrm += W[i * n + j] * W[i * n + j];
        nrm = sqrtl(nrm);
        for (i = 0; i < n; ++i) W[i * n + j] /= nrm;
    }
    for (i = 0; i < n * n; ++i) Q[i] = (isdb_real)W[i];
}

/* A = Q diag(eig) Q^T with a random orthogonal Q; eigenvalues spread
   geometrically from 1 down to 1/cond. */
REF_FN void spd_with_condition(isdb_rng *rng, int n, isdb_real cond, isdb_real *A, isdb_real *eig) {
    static isdb_real Q0[REF_MAXN * REF_MAXN];
    int i, j, k;
    random_orthogonal(rng, n, Q0);
    for (i = 0; i < n; ++i) eig[i] = n == 1 ? 1.0 : pow(cond, -(isdb_real)i / (n - 1));
    for (i = 0; i < n; ++i)
        for (j = 0; j <= i; ++j) {
            long double s = 0;
            for (k = 0; k < n; ++k) s += (long double)Q0[i * n + k] * eig[k] * Q0[j * n + k];
            A[i * n + j] = A[j * n + i] = (isdb_real)s;
        }
}

REF_FN void random_spd(isdb_rng *rng, int n, isdb_real *A) {
    static isdb_real B0[REF_MAXN * REF_MAXN];
    int i, j, k;
    random_matrix(rng, n, n, B0);
    for (i = 0; i < n; ++i)
        for (j = 0; j <= i; ++j) {
            long double s = i == j ? n : 0;
            for (k = 0; k < n; ++k) s += (long double)B0[i * n + k] * B0[j * n + k];
            A[i * n + j] = A[j * n + i] = (isdb_real)s;
        }
}

/* Textbook column-oriented Cholesky in long double. */
REF_FN int ref_chol(int n, const isdb_real *A, long double *L) {
    int i, j, k;
    for (i = 0; i < n * n; ++i) L[i] = 0;
    for (j = 0; j < n; ++j) {
        long double s = A[j * n + j];
        for (k = 0; k < j; ++k) s -= L[j * n + k] * L[j * n + k];
        if (s <= 0) return 0;
        L[j * n + j] = sqrtl(s);
        for (i = j + 1; i < n; ++i) {
            long double t = A[i * n + j];
            for (k = 0; k < j; ++k) t -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = t / L[j * n + j];
        }
    }
    return 1;
}

/* Solves A x = b for a symmetric positive definite A given in long double
   (Cholesky, in place of a copy); 0 if A does not factor. For references
   whose sums are long double already. */
REF_FN int ref_spd_solve_ld(int n, const long double *A, const long double *b, long double *x) {
    static long double L[REF_MAXN * REF_MAXN];
    int i, j, k;
    for (j = 0; j < n; ++j) {
        long double s = A[j * n + j];
        for (k = 0; k < j; ++k) s -= L[j * n + k] * L[j * n + k];
        if (s <= 0) return 0;
        L[j * n + j] = sqrtl(s);
        for (i = j + 1; i < n; ++i) {
            long double t = A[i * n + j];
            for (k = 0; k < j; ++k) t -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = t / L[j * n + j];
        }
    }
    for (i = 0; i < n; ++i) {
        long double s = b[i];
        for (k = 0; k < i; ++k) s -= L[i * n + k] * x[k];
        x[i] = s / L[i * n + i];
    }
    for (i = n - 1; i >= 0; --i) {
        long double s = x[i];
        for (k = i + 1; k < n; ++k) s -= L[k * n + i] * x[k];
        x[i] = s / L[i * n + i];
    }
    return 1;
}

REF_FN int strictly_upper_zero(int n, const isdb_real *L) {
    int i, j;
    for (i = 0; i < n; ++i)
        for (j = i + 1; j < n; ++j)
            if (L[i * n + j] != 0.0) return 0;
    return 1;
}

/* ||L L^T - A||_F / ||A||_F, infinite if L has an entry above its
   diagonal. Each entry of L L^T is matmul's sum without its terms past
   the diagonal (exact zeros, so the same value), and the product's upper
   triangle is its lower one: a sixth of matmul's work. */
REF_FN isdb_real chol_backward_error(int n, const isdb_real *L, const isdb_real *A) {
    static isdb_real P[REF_MAXN * REF_MAXN];
    int i, j, l;
    if (!strictly_upper_zero(n, L)) return T_INF;
    for (i = 0; i < n; ++i)
        for (j = 0; j <= i; ++j) {
            long double s = 0;
            for (l = 0; l <= j; ++l) s += (long double)L[i * n + l] * L[j * n + l];
            P[i * n + j] = P[j * n + i] = (isdb_real)s;
        }
    return rel_diff(n, n, P, A);
}

REF_FN isdb_real orthogonality_error(int m, int n, const isdb_real *Q) {
    static isdb_real QT[REF_MAXN * REF_MAXN], P[REF_MAXN * REF_MAXN], I[REF_MAXN * REF_MAXN];
    int i;
    transpose(m, n, Q, QT);
    matmul(n, m, n, QT, Q, P);
    memset(I, 0, sizeof(isdb_real) * (size_t)(n * n));
    for (i = 0; i < n; ++i) I[i * n + i] = 1.0;
    return rel_diff(n, n, P, I) * sqrt((isdb_real)n);
}

/* Gaussian elimination with partial pivoting in long double (reference). */
REF_FN void ref_solve(int n, const isdb_real *A, const isdb_real *b, isdb_real *x) {
    static long double M[REF_MAXN * (REF_MAXN + 1)];
    int i, j, k;
    for (i = 0; i < n; ++i) {
        for (j = 0; j < n; ++j) M[i * (n + 1) + j] = A[i * n + j];
        M[i * (n + 1) + n] = b[i];
    }
    for (k = 0; k < n; ++k) {
        int p = k;
        for (i = k + 1; i < n; ++i)
            if (fabsl(M[i * (n + 1) + k]) > fabsl(M[p * (n + 1) + k])) p = i;
        for (j = 0; j <= n; ++j) {
            long double t = M[k * (n + 1) + j];
            M[k * (n + 1) + j] = M[p * (n + 1) + j];
            M[p * (n + 1) + j] = t;
        }
        for (i = k + 1; i < n; ++i) {
            long double f = M[i * (n + 1) + k] / M[k * (n + 1) + k];
            for (j = k; j <= n; ++j) M[i * (n + 1) + j] -= f * M[k * (n + 1) + j];
        }
    }
    for (i = n - 1; i >= 0; --i) {
        long double s = M[i * (n + 1) + n];
        for (j = i + 1; j < n; ++j) s -= M[i * (n + 1) + j] * x[j];
        x[i] = (isdb_real)(s / M[i * (n + 1) + i]);
    }
}

/* ln Gamma at multiples of 1/2, exactly from factorials (long double). */
REF_FN long double ref_lgamma_half(int twice) {
    long double s = 0;
    int k;
    if (twice % 2 == 0) {
        for (k = 2; k < twice / 2; ++k)
            s += logl((long double)k);
        return s;
    }
    /* Gamma(n + 1/2) = sqrt(pi) (2n)! / (4^n n!) */
    {
        int n = twice / 2;
        s = 0.5L * logl(3.14159265358979323846264338327950288L);
        for (k = 1; k <= 2 * n; ++k)
            s += logl((long double)k);
        for (k = 1; k <= n; ++k)
            s -= logl((long double)k);
        s -= n * logl(4.0L);
        return s;
    }
}

/* Reference F cdf: Simpson's rule on the density after x = u^2 (which
   removes the x^(-1/2) singularity for d1 = 1), normalised by the exact
   beta function of the integer degrees of freedom. */
REF_FN double ref_f_cdf(double q, int d1, int d2) {
    long double lb = ref_lgamma_half(d1) + ref_lgamma_half(d2) - ref_lgamma_half(d1 + d2), s = 0, h, a = d1 / 2.0L;
    int k, n = 20000;
    if (q <= 0)
        return 0;
    h = sqrtl(q) / n;
    for (k = 0; k <= n; ++k) {
        long double u = k * h, x = u * u, f;
        if (k == 0) {
            f = d1 == 1 ? 2.0L * sqrtl((long double)d1 / d2) : 0.0L;
        } else {
            f = 2 * u *
                expl(a * logl((long double)d1 / d2) + (a - 1) * logl(x) - (d1 + d2) / 2.0L * logl(1 + d1 * x / d2));
        }
        s += f * (k == 0 || k == n ? 1 : (k % 2 ? 4 : 2));
    }
    return (double)(s * h / 3 / expl(lb));
}

#endif

/* test.h - the tiny harness behind every test binary.
   CHECK* macros count passed and failed checks and print each failure with
   its location; test_report() prints "N passed, M failed" and gives the
   exit status (non-zero when anything failed). */
#ifndef ISDB_TEST_H
#define ISDB_TEST_H

#include <float.h>
#include <math.h>
#include <stdio.h>

/* The slow references compute in long double on purpose, which clang's
   -Wdouble-promotion reports. Tests include this file after the library,
   so the library itself is still compiled under the warning. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wdouble-promotion"
#endif

static int test_passed_, test_failed_;

/* Rounding tolerances follow the precision. T_EPS is the epsilon of
   isdb_real; T_TOL(x) scales a tolerance x written for double (a multiple
   of DBL_EPSILON, a rounding bound) to isdb_real: x * 2^29 in a float
   build, x itself in a double one (the factor is an exact power of two).
   A tolerance that is eps times a condition number is written with T_EPS.
   Statistical checks (regret, detection rates) are not rounding bounds and
   do not scale. */
#define T_EPS ((double)ISDB_REAL_EPSILON)
#define T_TOL(x) ((x) * (T_EPS / DBL_EPSILON))

/* Extreme inputs relative to the precision's bounds: T_BEYOND is finite
   but above ISDB_INPUT_MAX (refused with ISDB_ERR_RANGE), T_HUGE a huge
   value still accepted (1e60 in double), T_TINY a tiny positive normal
   number, T_SUBNORMAL a subnormal one, T_REAL_MAX the largest finite. */
#define T_BEYOND ((isdb_real)(10 * ISDB_INPUT_MAX))
#define T_HUGE ((isdb_real)(ISDB_INPUT_MAX / 1e4))
#if ISDB_REAL_IS_FLOAT
#define T_TINY 1e-30f
#define T_SUBNORMAL 1e-40f
#define T_REAL_MAX FLT_MAX
#else
#define T_TINY 1e-300
#define T_SUBNORMAL 1e-310
#define T_REAL_MAX DBL_MAX
#endif

/* NaN and infinity as reals (NAN and INFINITY are float constants). */
#define T_NAN ((isdb_real)NAN)
#define T_INF ((isdb_real)INFINITY)

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (cond)                                                                \
            ++test_passed_;                                                      \
        else {                                                                   \
            ++test_failed_;                                                      \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
        }                                                                        \
    } while (0)

/* Like CHECK, with a printf-style explanation on failure. */
#define CHECK_MSG(cond, ...)                                              \
    do {                                                                  \
        if (cond)                                                         \
            ++test_passed_;                                               \
        else {                                                            \
            ++test_failed_;                                               \
            fprintf(stderr, "%s:%d: %s failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                 \
            fputc('\n', stderr);                                          \
        }                                                                 \
    } while (0)

#define CHECK_RESULT(expr, expected)                                                               \
    do {                                                                                           \
        isdb_result got_ = (expr), want_ = (expected);                                             \
        CHECK_MSG(got_ == want_, "%s gave %d (%s), expected %d (%s)", #expr, (int)got_,            \
                  isdb_result_string(got_), (int)want_, isdb_result_string(want_));                \
    } while (0)

#define CHECK_OK(expr) CHECK_RESULT(expr, ISDB_OK)

/* |a - b| <= tol. */
#define CHECK_NEAR(a, b, tol)                                                                  \
    do {                                                                                       \
        double a_ = (a), b_ = (b), t_ = (tol);                                                 \
        CHECK_MSG(fabs(a_ - b_) <= t_, "%s = %.17g, %s = %.17g, |diff| %.3g > %.3g", #a, a_, #b, b_, \
                  fabs(a_ - b_), t_);                                                          \
    } while (0)

/* a <= b, with both values printed on failure. */
#define CHECK_LE(a, b)                                                                       \
    do {                                                                                     \
        double a_ = (a), b_ = (b);                                                           \
        CHECK_MSG(a_ <= b_, "%s = %.6g exceeds %s = %.6g", #a, a_, #b, b_);                  \
    } while (0)

/* Small helpers the tests share, so that most tests need only the public
   API and link the implementation compiled once (tests/impl.c). */
#if defined(__GNUC__) || defined(__clang__)
#define T_FN static __attribute__((unused))
#else
#define T_FN static
#endif

#define T_PI 3.14159265358979323846

T_FN isdb_real t_dot(int n, const isdb_real *a, const isdb_real *b) {
    isdb_real s = 0.0;
    int i;
    for (i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

/* 1 if no value is NaN or infinite. */
T_FN int t_all_finite(const isdb_real *v, int n) {
    int i;
    for (i = 0; i < n; ++i)
        if (!(v[i] - v[i] == 0)) return 0;
    return 1;
}

/* The first index of the largest value. */
T_FN int t_argmax(const isdb_real *v, int n) {
    int k, best = 0;
    for (k = 1; k < n; ++k)
        if (v[k] > v[best]) best = k;
    return best;
}

/* The first of n_arms rows of X (n_arms x d) of largest x.theta. */
T_FN int t_best_dot(const isdb_real *X, int n_arms, int d, const isdb_real *theta) {
    int k, best = 0;
    for (k = 1; k < n_arms; ++k)
        if (t_dot(d, X + k * d, theta) > t_dot(d, X + best * d, theta)) best = k;
    return best;
}

T_FN void t_identity(int n, isdb_real *A, isdb_real diag) {
    int i;
    for (i = 0; i < n * n; ++i) A[i] = 0.0;
    for (i = 0; i < n; ++i) A[i * n + i] = diag;
}

/* Copies the lower triangle of the n x n matrix A onto its upper one. */
T_FN void t_symmetrize_lower(int n, isdb_real *A) {
    int i, j;
    for (i = 0; i < n; ++i)
        for (j = 0; j < i; ++j) A[j * n + i] = A[i * n + j];
}

/* A point uniform on the unit sphere (the library's own recipe). */
T_FN void t_sphere_point(isdb_rng *rng, int d, isdb_real *x) {
    isdb_real norm;
    int i;
    do {
        for (i = 0; i < d; ++i) x[i] = isdb_rng_normal(rng);
        norm = sqrt(t_dot(d, x, x));
    } while (norm == 0);
    for (i = 0; i < d; ++i) x[i] /= norm;
}

/* Little-endian integers and the FNV-1a 64 checksum of the snapshot
   format (the header's SNAPSHOT FORMAT), for tests that forge snapshots. */
T_FN void t_put_le(unsigned char *p, uint64_t v, int bytes) {
    int i;
    for (i = 0; i < bytes; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

T_FN uint64_t t_get_le(const unsigned char *p, int bytes) {
    uint64_t v = 0;
    int i;
    for (i = 0; i < bytes; ++i) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

T_FN uint64_t t_fnv1a(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    for (i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static int test_report(void) {
    printf("%d passed, %d failed\n", test_passed_, test_failed_);
    return test_failed_ ? 1 : 0;
}

#endif

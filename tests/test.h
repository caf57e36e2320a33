/* test.h - the tiny harness behind every test binary.
   CHECK* macros count passed and failed checks and print each failure with
   its location; test_report() prints "N passed, M failed" and gives the
   exit status (non-zero when anything failed). */
#ifndef ISDB_TEST_H
#define ISDB_TEST_H

#include <math.h>
#include <stdio.h>

/* The slow references compute in long double on purpose, which clang's
   -Wdouble-promotion reports. Tests include this file after the library,
   so the library itself is still compiled under the warning. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wdouble-promotion"
#endif

static int test_passed_, test_failed_;

/* NAN and INFINITY are float constants; these are doubles. */
#define T_NAN ((double)NAN)
#define T_INF ((double)INFINITY)

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

static int test_report(void) {
    printf("%d passed, %d failed\n", test_passed_, test_failed_);
    return test_failed_ ? 1 : 0;
}

#endif

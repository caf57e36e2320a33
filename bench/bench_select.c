/* bench_select.c - select at the machine's limit. For every policy whose
   select is K quadratic forms (LinUCB, SW-UCB, D-LinUCB, adaptive; LinTS's
   select is one draw and K dot products), ns per select beside, in the
   same run and on the same arms:
   - floor: K products of a d x d matrix with a vector (K d^2
     multiply-adds), written as column sweeps that the compiler
     vectorizes without reassociating sums;
   - blas (built with an optimised BLAS, see the Makefile; bench only, the
     library never links one): the same shapes through it, as numpy
     would: trsm, the K triangular solves of LinUCB's select in one call
     (K d^2 / 2 multiply-adds); D-LinUCB's shapes (two trsm and a gemm
     with V-tilde); and gemm, K arms times an explicit d x d inverse
     (K d^2), the published code's way.
   SW-UCB's step (select + update, window 500) is also timed at d = 20,
   K = 5 beside the floor. The `target:` lines check: select at d = 50,
   K = 50 within 1.5x of BLAS doing the same shapes (trsm for LinUCB,
   SW-UCB and the adaptive policy's LinUCB estimator; D-LinUCB's shapes
   for D-LinUCB), or of the floor without BLAS; and SW-UCB's step at
   d = 20, K = 5 within 1.5x of the floor.

   usage: bench_select [--quick] */
#define _POSIX_C_SOURCE 199309L
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef ISDB_BENCH_BLAS
#include <cblas.h>
#endif

#define POOL 32
#define MAXD 50
#define MAXK 50

static isdb_real pool[POOL * MAXK * MAXD], rewards[POOL];
static volatile double sink;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fill_pool(int d, int K) {
    isdb_rng rng;
    int i;
    isdb_rng_seed(&rng, 3);
    for (i = 0; i < POOL * K * d; ++i) pool[i] = isdb_rng_normal(&rng) / (isdb_real)sqrt((double)d);
    for (i = 0; i < POOL; ++i) rewards[i] = isdb_rng_normal(&rng);
}

typedef union any_policy {
    isdb_linucb linucb;
    isdb_swucb swucb;
    isdb_dlinucb dlinucb;
    isdb_lints lints;
    isdb_adaptive adaptive;
} any_policy;

enum { LINUCB, SWUCB, DLINUCB, LINTS, ADAPTIVE, N_POLICIES };
static const char *names[N_POLICIES] = {"linucb", "swucb", "dlinucb", "lints", "adaptive"};

static isdb_policy *make(int which, int d, int K, any_policy *mem) {
    isdb_result r;
    if (which == LINUCB) {
        isdb_linucb_config c = isdb_linucb_config_init(d, K);
        r = isdb_linucb_init(&c, NULL, &mem->linucb);
    } else if (which == SWUCB) {
        isdb_swucb_config c = isdb_swucb_config_init(d, K, 500);
        r = isdb_swucb_init(&c, NULL, &mem->swucb);
    } else if (which == DLINUCB) {
        isdb_dlinucb_config c = isdb_dlinucb_config_init(d, K, (isdb_real)0.99);
        r = isdb_dlinucb_init(&c, NULL, &mem->dlinucb);
    } else if (which == LINTS) {
        isdb_lints_config c = isdb_lints_config_init(d, K);
        r = isdb_lints_init(&c, NULL, &mem->lints);
    } else {
        isdb_adaptive_config c = isdb_adaptive_config_init(d, K);
        r = isdb_adaptive_init(&c, NULL, &mem->adaptive);
    }
    if (r != ISDB_OK) {
        fprintf(stderr, "init %s: %s\n", names[which], isdb_result_string(r));
        exit(1);
    }
    return (isdb_policy *)mem;
}

/* Seconds per select (with_update 0) or per select + update, after a
   warm-up of 600 updates so every policy holds data. */
static double time_policy(isdb_policy *p, int d, int K, long steps, int with_update) {
    double t0;
    long s;
    int arm = 0;
    for (s = 0; s < 600; ++s) isdb_policy_update(p, (int)(s % K), pool + (s % POOL) * K * d, rewards[s % POOL]);
    t0 = now();
    for (s = 0; s < steps; ++s) {
        const isdb_real *X = pool + (s % POOL) * K * d;
        isdb_policy_select(p, X, K, &arm);
        if (with_update) isdb_policy_update(p, arm, X + arm * d, rewards[s % POOL]);
    }
    sink = arm;
    return (now() - t0) / (double)steps;
}

/* K d^2 multiply-adds: y_k = M x_k for every arm, M column-major, as
   sweeps y += M[:, j] x_kj (contiguous, no reduction, so vectorizable
   under -ffp-contract=off and without -ffast-math). */
static void floor_kernel(int d, int K, const isdb_real *restrict M, const isdb_real *restrict X,
                         isdb_real *restrict Y) {
    int k, i, j;
    for (k = 0; k < K; ++k) {
        isdb_real *restrict y = Y + k * d;
        const isdb_real *x = X + k * d;
        for (i = 0; i < d; ++i) y[i] = 0;
        for (j = 0; j < d; ++j) {
            const isdb_real *restrict m = M + j * d;
            isdb_real xj = x[j];
            for (i = 0; i < d; ++i) y[i] += m[i] * xj;
        }
    }
}

static double time_floor(int d, int K, long steps) {
    static isdb_real M[MAXD * MAXD], Y[MAXK * MAXD];
    double t0, acc = 0;
    long s;
    int i;
    for (i = 0; i < d * d; ++i) M[i] = pool[i];
    t0 = now();
    for (s = 0; s < steps; ++s) {
        floor_kernel(d, K, M, pool + (s % POOL) * K * d, Y);
        acc += (double)Y[s % (K * d)];
    }
    sink = acc;
    return (now() - t0) / (double)steps;
}

#ifdef ISDB_BENCH_BLAS
#if ISDB_REAL_IS_FLOAT
#define BLAS_TRSM cblas_strsm
#define BLAS_GEMM cblas_sgemm
#else
#define BLAS_TRSM cblas_dtrsm
#define BLAS_GEMM cblas_dgemm
#endif

/* LinUCB's select the BLAS way: W = X L^-T (K right-hand sides in one
   trsm, the arms as rows), then each arm's w.z + beta |w|. */
static double time_blas_trsm(int d, int K, long steps) {
    static isdb_real L[MAXD * MAXD], W[MAXK * MAXD], z[MAXD];
    double t0, acc = 0;
    long s;
    int i, j, k;
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) L[i * d + j] = i == j ? (isdb_real)(1 + i) : (j < i ? pool[i * d + j] : 0);
    for (i = 0; i < d; ++i) z[i] = pool[i];
    t0 = now();
    for (s = 0; s < steps; ++s) {
        int best = 0;
        isdb_real best_value = 0;
        memcpy(W, pool + (s % POOL) * K * d, sizeof(isdb_real) * (size_t)(K * d));
        BLAS_TRSM(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, K, d, 1, L, d, W, d);
        for (k = 0; k < K; ++k) {
            const isdb_real *w = W + k * d;
            isdb_real m = 0, q = 0, v;
            for (i = 0; i < d; ++i) {
                m += w[i] * z[i];
                q += w[i] * w[i];
            }
            v = m + (isdb_real)sqrt((double)q);
            if (k == 0 || v > best_value) {
                best_value = v;
                best = k;
            }
        }
        acc += best;
    }
    sink = acc;
    return (now() - t0) / (double)steps;
}

/* D-LinUCB's select the BLAS way: U = X V^-1 by two trsm, then each
   arm's x.theta + beta sqrt(u^T Vt u) with Vt u from one gemm (the
   library uses the symmetric half: d^2 / 2 there). */
static double time_blas_discounted(int d, int K, long steps) {
    static isdb_real L[MAXD * MAXD], Vt[MAXD * MAXD], U[MAXK * MAXD], T[MAXK * MAXD], th[MAXD];
    double t0, acc = 0;
    long s;
    int i, j, k;
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) {
            L[i * d + j] = i == j ? (isdb_real)(1 + i) : (j < i ? pool[i * d + j] : 0);
            Vt[i * d + j] = i == j ? (isdb_real)d : 0;
        }
    for (i = 0; i < d; ++i) th[i] = pool[i];
    t0 = now();
    for (s = 0; s < steps; ++s) {
        const isdb_real *X = pool + (s % POOL) * K * d;
        int best = 0;
        isdb_real best_value = 0;
        memcpy(U, X, sizeof(isdb_real) * (size_t)(K * d));
        BLAS_TRSM(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, K, d, 1, L, d, U, d);
        BLAS_TRSM(CblasRowMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, K, d, 1, L, d, U, d);
        BLAS_GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, K, d, d, 1, U, d, Vt, d, 0, T, d);
        for (k = 0; k < K; ++k) {
            isdb_real m = 0, q = 0, v;
            for (i = 0; i < d; ++i) {
                m += X[k * d + i] * th[i];
                q += T[k * d + i] * U[k * d + i];
            }
            v = m + (isdb_real)sqrt(fabs((double)q));
            if (k == 0 || v > best_value) {
                best_value = v;
                best = k;
            }
        }
        acc += best;
    }
    sink = acc;
    return (now() - t0) / (double)steps;
}

/* The published-code way: W = X A^-1 with an explicit inverse (one gemm,
   K d^2), then each arm's x.theta + beta sqrt(w.x). */
static double time_blas_gemm(int d, int K, long steps) {
    static isdb_real A[MAXD * MAXD], W[MAXK * MAXD];
    double t0, acc = 0;
    long s;
    int i, k;
    for (i = 0; i < d * d; ++i) A[i] = pool[i];
    t0 = now();
    for (s = 0; s < steps; ++s) {
        const isdb_real *X = pool + (s % POOL) * K * d;
        int best = 0;
        isdb_real best_value = 0;
        BLAS_GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, K, d, d, 1, X, d, A, d, 0, W, d);
        for (k = 0; k < K; ++k) {
            isdb_real q = 0, m = 0, v;
            for (i = 0; i < d; ++i) {
                q += W[k * d + i] * X[k * d + i];
                m += X[k * d + i] * A[i];
            }
            v = m + (isdb_real)sqrt(fabs((double)q));
            if (k == 0 || v > best_value) {
                best_value = v;
                best = k;
            }
        }
        acc += best;
    }
    sink = acc;
    return (now() - t0) / (double)steps;
}
#endif

static double best_of_3(double a, double b, double c) { return fmin(a, fmin(b, c)); }

int main(int argc, char **argv) {
    static const int shapes[][2] = {{50, 50}, {20, 50}, {20, 5}, {10, 50}};
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    double select_50[N_POLICIES] = {0}, trsm_50 = 0, dlin_50 = 0, floor_50 = 0, sw_step = 0, floor_20_5 = 0;
    int sh, w, rep;
    printf("select, ns per call (best of 3), %s precision%s\n", ISDB_REAL_IS_FLOAT ? "single" : "double",
#ifdef ISDB_BENCH_BLAS
           ", BLAS: OpenBLAS"
#else
           ", no BLAS (build with one: see the Makefile)"
#endif
    );
    printf("%4s %4s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "d", "K", "linucb", "swucb", "dlinucb", "lints", "adaptive",
           "floor", "blas trsm", "blas dlin", "blas gemm");
    for (sh = 0; sh < 4; ++sh) {
        int d = shapes[sh][0], K = shapes[sh][1];
        long steps = (long)((quick ? 2e7 : 2e8) / ((double)K * d * d + 1000));
        double t[N_POLICIES + 4] = {0};
        fill_pool(d, K);
        for (w = 0; w < N_POLICIES + 4; ++w) {
            double r[3] = {0, 0, 0};
            for (rep = 0; rep < 3; ++rep) {
                if (w < N_POLICIES) {
                    any_policy *mem = (any_policy *)malloc(sizeof(any_policy));
                    isdb_policy *p = make(w, d, K, mem);
                    r[rep] = time_policy(p, d, K, steps, 0);
                    isdb_policy_uninit(p);
                    free(mem);
                } else if (w == N_POLICIES) {
                    r[rep] = time_floor(d, K, steps);
#ifdef ISDB_BENCH_BLAS
                } else if (w == N_POLICIES + 1) {
                    r[rep] = time_blas_trsm(d, K, steps);
                } else if (w == N_POLICIES + 2) {
                    r[rep] = time_blas_discounted(d, K, steps);
                } else {
                    r[rep] = time_blas_gemm(d, K, steps);
#endif
                }
            }
            t[w] = 1e9 * best_of_3(r[0], r[1], r[2]);
        }
        printf("%4d %4d %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f\n", d, K, t[0], t[1], t[2], t[3], t[4],
               t[5], t[6], t[7], t[8]);
        if (d == 50 && K == 50) {
            memcpy(select_50, t, sizeof select_50);
            floor_50 = t[N_POLICIES];
            trsm_50 = t[N_POLICIES + 1];
            dlin_50 = t[N_POLICIES + 2];
        }
        if (d == 20 && K == 5) {
            double r[3];
            for (rep = 0; rep < 3; ++rep) {
                any_policy *mem = (any_policy *)malloc(sizeof(any_policy));
                isdb_policy *p = make(SWUCB, d, K, mem);
                r[rep] = time_policy(p, d, K, steps, 1);
                isdb_policy_uninit(p);
                free(mem);
            }
            sw_step = 1e9 * best_of_3(r[0], r[1], r[2]);
            floor_20_5 = t[N_POLICIES];
        }
    }
    printf("swucb step (select + update, window 500) at d = 20, K = 5: %.0f ns, floor %.0f ns\n", sw_step, floor_20_5);
    {
        for (w = 0; w < N_POLICIES; ++w) {
            double ref = trsm_50 > 0 ? (w == DLINUCB ? dlin_50 : trsm_50) : floor_50;
            const char *what = trsm_50 > 0 ? (w == DLINUCB ? "BLAS on its shapes" : "BLAS trsm") : "the floor";
            if (w == LINTS) continue; /* one draw and K dot products: no quadratic forms */
            printf("target: %s select at d = 50, K = 50 within 1.5x of %s: %.0f vs %.0f ns, %.2fx: %s\n", names[w], what,
                   select_50[w], ref, select_50[w] / ref, select_50[w] <= 1.5 * ref ? "holds" : "fails");
        }
        printf("target: swucb step at d = 20, K = 5 within 1.5x of the floor: %.2fx: %s\n", sw_step / floor_20_5,
               sw_step <= 1.5 * floor_20_5 ? "holds" : "fails");
    }
    return 0;
}

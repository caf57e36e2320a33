/* bench_select.c - select at the machine's limit. For every policy whose
   select is K quadratic forms (LinUCB, SW-UCB, D-LinUCB, adaptive; LinTS's
   select is one draw and K dot products), ns per select beside, in the
   same run and on the same arms:
   - floor: K products of a d x d matrix with a vector (K d^2
     multiply-adds) as column sweeps, bench_policies' floor kernel, which
     the targets are stated against. gcc 12 -O2 does not
     vectorize it (its loops' trip counts are unknown), so it is a scalar
     floor, and on the Skylake-type Xeon of 2026-11-25 its time moved by
     1.5x between builds that changed nothing but the binary's layout
     (padding jumps off 32-byte boundaries did not cure it);
   - floor vec: the same products, each y_k[i] summed over j in the same
     order, four rows of y at a time in named scalars, which gcc -O2
     vectorizes (SSE2: 2 doubles or 4 floats an instruction, no FMA):
     the machine's floor for code built as the library is;
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
   for D-LinUCB), or of the vectorized floor without BLAS; and SW-UCB's
   step at d = 20, K = 5 within 1.5x of the floor (its ratio to the
   vectorized floor is printed beside it). OpenBLAS runs on one thread.
   `make bench` runs it in double and in float (bench_select-float).

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
#define REPS 5

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

/* The same y_k = M x_k, vectorized: y_k[i .. i + 3] as four named sums
   over j (each in the order of floor_kernel, so the same bits). */
static void floor_vec_kernel(int d, int K, const isdb_real *restrict M, const isdb_real *restrict X,
                             isdb_real *restrict Y) {
    int k, i, j;
    for (k = 0; k < K; ++k) {
        isdb_real *restrict y = Y + k * d;
        const isdb_real *x = X + k * d;
        for (i = 0; i + 4 <= d; i += 4) {
            isdb_real s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            for (j = 0; j < d; ++j) {
                const isdb_real *m = M + j * d + i, xj = x[j];
                s0 += m[0] * xj;
                s1 += m[1] * xj;
                s2 += m[2] * xj;
                s3 += m[3] * xj;
            }
            y[i] = s0;
            y[i + 1] = s1;
            y[i + 2] = s2;
            y[i + 3] = s3;
        }
        for (; i < d; ++i) {
            isdb_real s = 0;
            for (j = 0; j < d; ++j) s += M[j * d + i] * x[j];
            y[i] = s;
        }
    }
}

static double time_floor(int d, int K, long steps, int vec) {
    static isdb_real M[MAXD * MAXD], Y[MAXK * MAXD];
    double t0, acc = 0;
    long s;
    int i;
    for (i = 0; i < d * d; ++i) M[i] = pool[i];
    t0 = now();
    for (s = 0; s < steps; ++s) {
        if (vec)
            floor_vec_kernel(d, K, M, pool + (s % POOL) * K * d, Y);
        else
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

/* One timing of column w at (d, K): the policies' selects, the floor, the
   BLAS shapes, and (w == STEP) SW-UCB's select + update. */
enum { FLOOR = N_POLICIES, FLOOR_VEC, TRSM, DLIN, GEMM, STEP, N_COLUMNS };
static double time_column(int w, int d, int K, long steps) {
    double r = 0;
    if (w < N_POLICIES || w == STEP) {
        any_policy *mem = (any_policy *)malloc(sizeof(any_policy));
        isdb_policy *p = make(w == STEP ? SWUCB : w, d, K, mem);
        r = time_policy(p, d, K, steps, w == STEP);
        isdb_policy_uninit(p);
        free(mem);
    } else if (w == FLOOR || w == FLOOR_VEC) {
        r = time_floor(d, K, steps, w == FLOOR_VEC);
#ifdef ISDB_BENCH_BLAS
    } else if (w == TRSM) {
        r = time_blas_trsm(d, K, steps);
    } else if (w == DLIN) {
        r = time_blas_discounted(d, K, steps);
    } else if (w == GEMM) {
        r = time_blas_gemm(d, K, steps);
#endif
    }
    return r;
}

int main(int argc, char **argv) {
    static const int shapes[][2] = {{50, 50}, {20, 50}, {20, 5}, {10, 50}};
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    double select_50[N_POLICIES] = {0}, trsm_50 = 0, dlin_50 = 0, floor_50 = 0, sw_step = 0, floor_20_5 = 0,
           vec_20_5 = 0;
    int sh, w, rep;
#ifdef ISDB_BENCH_BLAS
    /* One thread, as the library runs: OpenBLAS would otherwise split the
       larger calls over the cores, which on a shared machine only adds
       noise. */
    openblas_set_num_threads(1);
    printf("select, ns per call (best of 5), %s precision, BLAS: %s, 1 thread\n",
           ISDB_REAL_IS_FLOAT ? "single" : "double", openblas_get_config());
#else
    printf("select, ns per call (best of 5), %s precision, no BLAS (build with one: see the Makefile)\n",
           ISDB_REAL_IS_FLOAT ? "single" : "double");
#endif
    printf("%4s %4s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "d", "K", "linucb", "swucb", "dlinucb", "lints",
           "adaptive", "floor", "floor vec", "blas trsm", "blas dlin", "blas gemm");
    for (sh = 0; sh < 4; ++sh) {
        int d = shapes[sh][0], K = shapes[sh][1];
        long steps = (long)((quick ? 2e7 : 2e8) / ((double)K * d * d + 1000));
        double t[N_COLUMNS];
        fill_pool(d, K);
        for (w = 0; w < N_COLUMNS; ++w) t[w] = HUGE_VAL;
        /* The columns take turns, REPS rounds, and each keeps its best: a
           burst of load from another process then costs every column a
           round alike instead of one column all of its three. */
        for (rep = 0; rep < REPS; ++rep)
            for (w = 0; w < N_COLUMNS; ++w) {
                if (w == STEP && !(d == 20 && K == 5)) continue;
                t[w] = fmin(t[w], 1e9 * time_column(w, d, K, steps));
            }
#ifndef ISDB_BENCH_BLAS
        t[TRSM] = t[DLIN] = t[GEMM] = 0;
#endif
        printf("%4d %4d %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f\n", d, K, t[0], t[1], t[2], t[3],
               t[4], t[FLOOR], t[FLOOR_VEC], t[TRSM], t[DLIN], t[GEMM]);
        if (d == 50 && K == 50) {
            memcpy(select_50, t, sizeof select_50);
            floor_50 = t[FLOOR_VEC];
            trsm_50 = t[TRSM];
            dlin_50 = t[DLIN];
        }
        if (d == 20 && K == 5) {
            sw_step = t[STEP];
            floor_20_5 = t[FLOOR];
            vec_20_5 = t[FLOOR_VEC];
        }
    }
    printf("swucb step (select + update, window 500) at d = 20, K = 5: %.0f ns, floor %.0f ns, floor vec %.0f ns "
           "(%.2fx of it)\n",
           sw_step, floor_20_5, vec_20_5, sw_step / vec_20_5);
    {
        for (w = 0; w < N_POLICIES; ++w) {
            double ref = trsm_50 > 0 ? (w == DLINUCB ? dlin_50 : trsm_50) : floor_50;
            const char *what = trsm_50 > 0 ? (w == DLINUCB ? "BLAS on its shapes" : "BLAS trsm") : "the vectorized floor";
            if (w == LINTS) continue; /* one draw and K dot products: no quadratic forms */
            printf("target: %s select at d = 50, K = 50 within 1.5x of %s: %.0f vs %.0f ns, %.2fx: %s\n", names[w], what,
                   select_50[w], ref, select_50[w] / ref, select_50[w] <= 1.5 * ref ? "holds" : "fails");
        }
        printf("target: swucb step at d = 20, K = 5 within 1.5x of the floor: %.2fx: %s\n", sw_step / floor_20_5,
               sw_step <= 1.5 * floor_20_5 ? "holds" : "fails");
    }
    return 0;
}

/* Speed of Trace-UCB (isdb_traceucb) per update and per select, for
   d in {10, 50} and m in {7, 100}, beside naive references measured in the
   same run:
     naive update: append (x, y) to the model's stored data and refit it
                   from scratch: S = X^T X, Cholesky, OLS, the variance from
                   the residuals, Tr(Sigma S^-1) by d solves (O(k d^2 + d^3)),
                   timed at k = 3 d + 1 rows;
     naive select: recompute every model's score from its sums S, b, y^T y
                   (Cholesky, OLS, RSS = y^T y - b^T beta, trace; O(m d^3)).
   The library keeps everything incrementally: update O(d^2) (O(m d^2) with
   Sigma estimated), select O(m). Every model first gets 3 d samples. */
#define _POSIX_C_SOURCE 199309L
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- naive reference ----------------------------------------------------- */

typedef struct naive {
    int d, m, cap;
    int *k;
    double *X, *y;          /* m x cap x d, m x cap */
    double *S, *b, *yy;     /* sums, for the naive select */
    double *score;          /* m cached scores (from the last refit) */
    double *F, *beta, *col, *z;
} naive;

static void naive_init(naive *n, int d, int m, int cap) {
    n->d = d;
    n->m = m;
    n->cap = cap;
    n->k = (int *)calloc((size_t)m, sizeof(int));
    n->X = (double *)calloc((size_t)m * (size_t)cap * (size_t)d, sizeof(double));
    n->y = (double *)calloc((size_t)m * (size_t)cap, sizeof(double));
    n->S = (double *)calloc((size_t)m * (size_t)d * (size_t)d, sizeof(double));
    n->b = (double *)calloc((size_t)m * (size_t)d, sizeof(double));
    n->yy = (double *)calloc((size_t)m, sizeof(double));
    n->score = (double *)calloc((size_t)m, sizeof(double));
    n->F = (double *)calloc((size_t)d * (size_t)d, sizeof(double));
    n->beta = (double *)calloc((size_t)d, sizeof(double));
    n->col = (double *)calloc((size_t)d, sizeof(double));
    n->z = (double *)calloc((size_t)d, sizeof(double));
}

static void naive_free(naive *n) {
    free(n->k);
    free(n->X);
    free(n->y);
    free(n->S);
    free(n->b);
    free(n->yy);
    free(n->score);
    free(n->F);
    free(n->beta);
    free(n->col);
    free(n->z);
}

/* Trace-UCB's score of a fit (Sigma = I): (sigma^2 + Delta) Tr(S^-1), with
   Delta = 0.5 R / sqrt(k - d), R = 1. */
static double naive_trace_score(naive *n, int k, double rss) {
    int j, d = n->d;
    double t = 0.0;
    for (j = 0; j < d; ++j) {
        memset(n->col, 0, sizeof(double) * (size_t)d);
        n->col[j] = 1.0;
        isdb_chol_solve(d, n->F, n->col, n->z);
        t += n->z[j];
    }
    return (rss / (k - d) + 0.5 / sqrt((double)(k - d))) * t;
}

/* Refit model i from its stored rows. */
static void naive_refit(naive *n, int i) {
    int d = n->d, k = n->k[i], s, a, c;
    const double *X = n->X + (size_t)i * (size_t)n->cap * (size_t)d, *y = n->y + (size_t)i * (size_t)n->cap;
    double rhs[64], rss = 0.0;
    memset(n->F, 0, sizeof(double) * (size_t)(d * d));
    memset(rhs, 0, sizeof rhs);
    for (s = 0; s < k; ++s)
        for (a = 0; a < d; ++a) {
            for (c = 0; c <= a; ++c) n->F[a * d + c] += X[s * d + a] * X[s * d + c];
            rhs[a] += X[s * d + a] * y[s];
        }
    if (isdb_chol(d, n->F) != ISDB_OK) {
        n->score[i] = 1e300;
        return;
    }
    isdb_chol_solve(d, n->F, rhs, n->beta);
    for (s = 0; s < k; ++s) {
        double r = y[s];
        for (a = 0; a < d; ++a) r -= X[s * d + a] * n->beta[a];
        rss += r * r;
    }
    n->score[i] = naive_trace_score(n, k, rss);
}

static void naive_add(naive *n, int i, const double *x, double y, int refit) {
    int d = n->d, a, c, k = n->k[i];
    if (k >= n->cap) return;
    memcpy(n->X + ((size_t)i * (size_t)n->cap + (size_t)k) * (size_t)d, x, sizeof(double) * (size_t)d);
    n->y[(size_t)i * (size_t)n->cap + (size_t)k] = y;
    for (a = 0; a < d; ++a) {
        for (c = 0; c <= a; ++c) n->S[(size_t)i * (size_t)(d * d) + (size_t)(a * d + c)] += x[a] * x[c];
        n->b[(size_t)i * (size_t)d + (size_t)a] += y * x[a];
    }
    n->yy[i] += y * y;
    n->k[i]++;
    if (refit) naive_refit(n, i);
}

/* Every model's score from its sums, then the argmax. */
static int naive_select(naive *n) {
    int i, best = 0, d = n->d;
    double best_v = -1.0;
    for (i = 0; i < n->m; ++i) {
        double rss, v;
        int a;
        memcpy(n->F, n->S + (size_t)i * (size_t)(d * d), sizeof(double) * (size_t)(d * d));
        if (isdb_chol(d, n->F) != ISDB_OK) continue;
        isdb_chol_solve(d, n->F, n->b + (size_t)i * (size_t)d, n->beta);
        rss = n->yy[i];
        for (a = 0; a < d; ++a) rss -= n->b[(size_t)i * (size_t)d + (size_t)a] * n->beta[a];
        v = naive_trace_score(n, n->k[i], rss > 0.0 ? rss : 0.0);
        if (v > best_v) {
            best_v = v;
            best = i;
        }
    }
    return best;
}

/* ---- the benchmark ------------------------------------------------------- */

static double *contexts, *labels;
static int n_ctx;

static void make_data(int d, int count) {
    isdb_rng rng;
    int i;
    free(contexts);
    free(labels);
    contexts = (double *)malloc(sizeof(double) * (size_t)count * (size_t)d);
    labels = (double *)malloc(sizeof(double) * (size_t)count);
    n_ctx = count;
    isdb_rng_seed(&rng, 9);
    for (i = 0; i < count * d; ++i) contexts[i] = isdb_rng_normal(&rng);
    for (i = 0; i < count; ++i) labels[i] = contexts[(size_t)i * (size_t)d] + isdb_rng_normal(&rng);
}

static void bench_case(int d, int m) {
    static double eye[64 * 64];
    isdb_traceucb lib, lib_est;
    isdb_traceucb_config c = isdb_traceucb_config_init(d, m);
    naive nv;
    int warm = 3 * d * m, i, reps, arm, sink = 0;
    double t0, el, ns_upd, ns_upd_est, ns_sel, ns_nupd, ns_nsel;
    memset(eye, 0, sizeof eye);
    for (i = 0; i < d; ++i) eye[i * d + i] = 1.0;
    make_data(d, warm + 200000);
    c.width = ISDB_TRACEUCB_WIDTH_SCALED;
    c.alpha = 0.5;
    c.Sigma = eye;
    isdb_traceucb_init(&c, NULL, &lib);
    c.Sigma = NULL;
    isdb_traceucb_init(&c, NULL, &lib_est);
    naive_init(&nv, d, m, 3 * d + 1);
    /* Warm-up: 3 d samples per model, round robin. */
    for (i = 0; i < warm; ++i) {
        isdb_policy_update(&lib.base, i % m, contexts + (size_t)i * (size_t)d, labels[i]);
        isdb_policy_update(&lib_est.base, i % m, contexts + (size_t)i * (size_t)d, labels[i]);
        naive_add(&nv, i % m, contexts + (size_t)i * (size_t)d, labels[i], 0);
    }
    for (i = 0; i < m; ++i) naive_refit(&nv, i);
    /* Library update (Sigma given): models in turn. */
    reps = 0;
    t0 = now();
    do {
        int j = warm + reps % 200000;
        isdb_policy_update(&lib.base, reps % m, contexts + (size_t)j * (size_t)d, labels[j]);
        ++reps;
    } while ((el = now() - t0) < 0.2 || reps < 100);
    ns_upd = 1e9 * el / reps;
    reps = 0;
    t0 = now();
    do {
        int j = warm + reps % 200000;
        isdb_policy_update(&lib_est.base, reps % m, contexts + (size_t)j * (size_t)d, labels[j]);
        ++reps;
    } while ((el = now() - t0) < 0.2 || reps < 20);
    ns_upd_est = 1e9 * el / reps;
    reps = 0;
    t0 = now();
    do {
        isdb_policy_select(&lib.base, NULL, m, &arm);
        sink += arm;
        ++reps;
    } while ((el = now() - t0) < 0.2 || reps < 100);
    ns_sel = 1e9 * el / reps;
    /* Naive: append a row and refit the model, at k = 3 d + 1 rows (the
       row is dropped again so that k stays fixed; its sums are not kept). */
    reps = 0;
    t0 = now();
    do {
        int j = warm + reps % 200000, i2 = reps % m, k = nv.k[i2];
        memcpy(nv.X + ((size_t)i2 * (size_t)nv.cap + (size_t)k) * (size_t)d, contexts + (size_t)j * (size_t)d,
               sizeof(double) * (size_t)d);
        nv.y[(size_t)i2 * (size_t)nv.cap + (size_t)k] = labels[j];
        nv.k[i2] = k + 1;
        naive_refit(&nv, i2);
        nv.k[i2] = k;
        ++reps;
    } while ((el = now() - t0) < 0.2 || reps < 5);
    ns_nupd = 1e9 * el / reps;
    reps = 0;
    t0 = now();
    do {
        sink += naive_select(&nv);
        ++reps;
    } while ((el = now() - t0) < 0.2 || reps < 3);
    ns_nsel = 1e9 * el / reps;
    printf("%3d %4d | %10.0f %12.0f %8.1fx %12.0f | %9.0f %12.0f %9.0fx\n", d, m, ns_upd, ns_nupd, ns_nupd / ns_upd,
           ns_upd_est, ns_sel, ns_nsel, ns_nsel / ns_sel);
    if (sink == -1) printf("\n");
    isdb_policy_uninit(&lib.base);
    isdb_policy_uninit(&lib_est.base);
    naive_free(&nv);
}

int main(void) {
    printf("Trace-UCB (isdb_traceucb): nanoseconds per call; every model holds >= 3 d samples\n");
    printf("  update: library (Sigma given, O(d^2)) | naive refit of the model from its 3 d + 1 rows | ratio |"
           " library with Sigma estimated (O(m d^2))\n");
    printf("  select: library (O(m)) | naive scores of every model from its sums (O(m d^3)) | ratio\n");
    printf("%3s %4s | %10s %12s %9s %12s | %9s %12s %10s\n", "d", "m", "update", "naive upd", "ratio", "upd est.",
           "select", "naive sel", "ratio");
    bench_case(10, 7);
    bench_case(10, 100);
    bench_case(50, 7);
    bench_case(50, 100);
    free(contexts);
    free(labels);
    return 0;
}

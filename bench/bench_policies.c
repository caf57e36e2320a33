/* bench_policies.c - nanoseconds per select and per update of LinUCB,
   SW-UCB, D-LinUCB and LinTS over d in {2, 5, 10, 20, 50, 100} and K in
   {5, 50}, each beside, in the same run:
   - two naive references that refit from scratch every step: by a
     Cholesky factorisation of the policy's Gram matrix (the window's,
     rebuilt, for SW-UCB), and by its explicit inverse (Gauss-Jordan), as
     most published code does;
   - the floor kernel: the bare K x d^2 multiply-adds a step cannot avoid
     (K products of a d x d matrix with a vector);
   - one Cholesky factorisation of a d x d matrix (D-LinUCB must refactorise).
   select, update and step (select + update) are timed in separate loops.
   Each figure is the best of 3 repetitions (the machine may be shared).
   The `target:` lines at the end check the speed targets: LinUCB and
   SW-UCB within 2x of the floor at d >= 20 and 10x faster than the naive
   refit at d = 50, D-LinUCB's update within 2x of one Cholesky. A last
   table gives the adaptive policy's select, update and step beside
   LinUCB's at d = 2, 10, 50 and K = 5, 10, 50, with its bound:
   (estimators + 1) x LinUCB, and at K = 10 issue 24's target: the step
   at most 4x LinUCB's.

   The file also builds with -DISDB_REAL=float (bench_policies-float).
   --steps prints only the step (select + update) of each policy at the
   tables' sizes, one line each (--line I: line I only); --precision
   FLOAT_BINARY prints those of this build and of FLOAT_BINARY side by
   side, measured line by line in turn, three times each, so that both
   see the same load on a shared machine (`make bench` ends with it).

   --adaptive prints the adaptive table alone.

   usage: bench_policies [--quick] [--steps [--line I] | --precision FLOAT_BINARY | --adaptive] */
#define _POSIX_C_SOURCE 199309L
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "repro_common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POOL 64
#define MAXD 100
#define MAXK 50
#define WINDOW 500

/* The largest isdb_real and its square root, in the precision built. */
#if ISDB_REAL_IS_FLOAT
#define REAL_MAX FLT_MAX
#define REAL_SQRT sqrtf
#else
#define REAL_MAX DBL_MAX
#define REAL_SQRT sqrt
#endif

/* a.b, summed in index order */
static isdb_real dot(int n, const isdb_real *a, const isdb_real *b) {
    isdb_real s = 0;
    int i;
    for (i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

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

/* ---- the policies through the generic interface ---- */

typedef union any_policy {
    isdb_adaptive adaptive;
    isdb_linucb a;
    isdb_swucb b;
    isdb_dlinucb c;
    isdb_lints e;
} any_policy;

static const char *policy_names[4] = {"linucb", "swucb", "dlinucb", "lints"};

static isdb_policy *make(int which, int d, int K, any_policy *mem) {
    isdb_result r;
    if (which == 0) {
        isdb_linucb_config c = isdb_linucb_config_init(d, K);
        r = isdb_linucb_init(&c, NULL, &mem->a);
    } else if (which == 1) {
        isdb_swucb_config c = isdb_swucb_config_init(d, K, WINDOW);
        r = isdb_swucb_init(&c, NULL, &mem->b);
    } else if (which == 2) {
        isdb_dlinucb_config c = isdb_dlinucb_config_init(d, K, 0.99);
        r = isdb_dlinucb_init(&c, NULL, &mem->c);
    } else {
        isdb_lints_config c = isdb_lints_config_init(d, K);
        r = isdb_lints_init(&c, NULL, &mem->e);
    }
    if (r != ISDB_OK) {
        fprintf(stderr, "init %s: %s\n", policy_names[which], isdb_result_string(r));
        exit(1);
    }
    return (isdb_policy *)mem;
}

enum { SELECT = 1, UPDATE = 2, STEP = SELECT | UPDATE };

/* Seconds per call of `steps` selects, updates (of arm s mod K), or
   select + update pairs. */
static double time_policy(isdb_policy *p, int d, int K, long steps, int what) {
    double t0 = now();
    long s;
    int arm = 0;
    for (s = 0; s < steps; ++s) {
        const isdb_real *X = pool + (s % POOL) * K * d;
        if (what & SELECT)
            isdb_policy_select(p, X, K, &arm);
        else
            arm = (int)(s % K);
        if (what & UPDATE) isdb_policy_update(p, arm, X + arm * d, rewards[s % POOL]);
    }
    return (now() - t0) / (double)steps;
}

/* ---- naive references ----
   The Gram matrix of each policy kept as a plain sum (LinUCB, LinTS),
   rebuilt from the window (SW-UCB) or discounted (D-LinUCB), then every
   step either factorised from scratch (Cholesky; arms scored by
   triangular solves) or inverted from scratch (Gauss-Jordan; arms scored
   by products with the inverse, as most published code does). */

enum { GRAM_SUM, GRAM_WINDOW, GRAM_DISCOUNT };

typedef struct naive {
    int d, K, gram, inverse, count, head;
    isdb_real *V, *Vt, *b, *L, *Vinv, *M, *theta, *u, *w, *ring_x, *ring_y;
} naive;

static isdb_real *zeros(int n) { return calloc((size_t)n, sizeof(isdb_real)); }

static void naive_init(naive *n, int gram, int inverse, int d, int K) {
    int i;
    memset(n, 0, sizeof *n);
    n->d = d;
    n->K = K;
    n->gram = gram;
    n->inverse = inverse;
    n->V = zeros(d * d);
    n->Vt = zeros(d * d);
    n->L = zeros(d * d);
    n->Vinv = zeros(d * d);
    n->M = zeros(2 * d * d);
    n->b = zeros(d);
    n->theta = zeros(d);
    n->u = zeros(d);
    n->w = zeros(d);
    n->ring_x = zeros(WINDOW * d);
    n->ring_y = zeros(WINDOW);
    for (i = 0; i < d; ++i) n->V[i * d + i] = n->Vt[i * d + i] = 1.0;
}

static void naive_free(naive *n) {
    free(n->V);
    free(n->Vt);
    free(n->L);
    free(n->Vinv);
    free(n->M);
    free(n->b);
    free(n->theta);
    free(n->u);
    free(n->w);
    free(n->ring_x);
    free(n->ring_y);
}

/* Inverse by Gauss-Jordan with partial pivoting. */
static void gauss_jordan_inverse(int d, const isdb_real *A, isdb_real *inv, isdb_real *M) {
    int i, j, k, w = 2 * d;
    for (i = 0; i < d; ++i)
        for (j = 0; j < w; ++j) M[i * w + j] = j < d ? A[i * d + j] : (j - d == i ? 1.0 : 0.0);
    for (k = 0; k < d; ++k) {
        int p = k;
        isdb_real f;
        for (i = k + 1; i < d; ++i)
            if (fabs(M[i * w + k]) > fabs(M[p * w + k])) p = i;
        for (j = 0; j < w; ++j) {
            isdb_real t = M[k * w + j];
            M[k * w + j] = M[p * w + j];
            M[p * w + j] = t;
        }
        f = 1 / M[k * w + k];
        for (j = 0; j < w; ++j) M[k * w + j] *= f;
        for (i = 0; i < d; ++i)
            if (i != k) {
                isdb_real g = M[i * w + k];
                for (j = 0; j < w; ++j) M[i * w + j] -= g * M[k * w + j];
            }
    }
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) inv[i * d + j] = M[i * w + d + j];
}

static int naive_step(naive *n, const isdb_real *X, isdb_real y) {
    int d = n->d, i, j, k, best = 0;
    isdb_real best_v = -REAL_MAX;
    if (n->gram == GRAM_WINDOW) {
        for (i = 0; i < d; ++i) {
            for (j = 0; j < d; ++j) {
                isdb_real s = i == j ? 1 : 0;
                for (k = 0; k < n->count; ++k) s += n->ring_x[k * d + i] * n->ring_x[k * d + j];
                n->V[i * d + j] = s;
            }
            n->b[i] = 0;
            for (k = 0; k < n->count; ++k) n->b[i] += n->ring_y[k] * n->ring_x[k * d + i];
        }
    }
    if (n->inverse) {
        gauss_jordan_inverse(d, n->V, n->Vinv, n->M);
        for (i = 0; i < d; ++i) n->theta[i] = dot(d, n->Vinv + i * d, n->b);
    } else {
        memcpy(n->L, n->V, sizeof(isdb_real) * (size_t)(d * d));
        isdb_chol(d, n->L);
        isdb_chol_solve(d, n->L, n->b, n->theta);
    }
    for (k = 0; k < n->K; ++k) {
        const isdb_real *x = X + k * d;
        isdb_real q = 0, v;
        if (n->inverse)
            for (i = 0; i < d; ++i) n->u[i] = dot(d, n->Vinv + i * d, x);
        else
            isdb_chol_solve(d, n->L, x, n->u);
        if (n->gram == GRAM_DISCOUNT)
            for (i = 0; i < d; ++i) q += n->u[i] * dot(d, n->Vt + i * d, n->u);
        else
            q = dot(d, x, n->u);
        v = dot(d, x, n->theta) + REAL_SQRT(q > 0 ? q : 0);
        if (v > best_v) {
            best_v = v;
            best = k;
        }
    }
    if (n->gram == GRAM_WINDOW) {
        int slot = n->count < WINDOW ? n->count++ : (n->head++ % WINDOW);
        memcpy(n->ring_x + slot * d, X + best * d, sizeof(isdb_real) * (size_t)d);
        n->ring_y[slot] = y;
    } else {
        isdb_real g = n->gram == GRAM_DISCOUNT ? (isdb_real)0.99 : 1;
        for (i = 0; i < d; ++i) {
            for (j = 0; j < d; ++j) {
                isdb_real xx = X[best * d + i] * X[best * d + j];
                n->V[i * d + j] = g * n->V[i * d + j] + xx + (i == j ? 1 - g : 0);
                n->Vt[i * d + j] = g * g * n->Vt[i * d + j] + xx + (i == j ? 1 - g * g : 0);
            }
            n->b[i] = g * n->b[i] + y * X[best * d + i];
        }
    }
    return best;
}

static double time_naive(int gram, int inverse, int d, int K, long steps) {
    naive n;
    long s;
    double t0;
    naive_init(&n, gram, inverse, d, K);
    for (s = 0; s < (gram == GRAM_WINDOW ? WINDOW : 10); ++s)
        naive_step(&n, pool + (s % POOL) * K * d, rewards[s % POOL]);
    t0 = now();
    for (s = 0; s < steps; ++s) sink = naive_step(&n, pool + (s % POOL) * K * d, rewards[s % POOL]);
    t0 = (now() - t0) / (double)steps;
    naive_free(&n);
    return t0;
}

/* ---- floors ---- */

/* K products of a d x d matrix with a vector: K d^2 multiply-adds. */
static double time_floor(int d, int K, long steps) {
    isdb_real *A = malloc(sizeof(isdb_real) * (size_t)(d * d)), acc = 0;
    double t0;
    long s;
    int i, k;
    for (i = 0; i < d * d; ++i) A[i] = pool[i % (POOL * d)];
    t0 = now();
    for (s = 0; s < steps; ++s) {
        const isdb_real *X = pool + (s % POOL) * K * d;
        for (k = 0; k < K; ++k) {
            const isdb_real *x = X + k * d;
            for (i = 0; i < d; ++i) acc += dot(d, A + i * d, x);
        }
    }
    sink = acc;
    t0 = (now() - t0) / (double)steps;
    free(A);
    return t0;
}

/* Copy an SPD matrix and factorise it: what D-LinUCB must do per update. */
static double time_chol(int d, long steps) {
    isdb_real *A = malloc(sizeof(isdb_real) * (size_t)(d * d)), *L = malloc(sizeof(isdb_real) * (size_t)(d * d));
    double t0;
    long s;
    int i, j;
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) A[i * d + j] = (isdb_real)((i == j ? (double)d : 0.0) + 1.0 / (1.0 + i + j));
    t0 = now();
    for (s = 0; s < steps; ++s) {
        memcpy(L, A, sizeof(isdb_real) * (size_t)(d * d));
        isdb_chol(d, L);
        sink = L[d * d - 1];
    }
    t0 = (now() - t0) / (double)steps;
    free(A);
    free(L);
    return t0;
}

static double best_of_3(double a, double b, double c) { return fmin(a, fmin(b, c)); }

/* The adaptive policy (default config, so 2 + log2(4096 / max(16, 2 d))
   estimators) against LinUCB in the same run, after 5000 updates so every
   memory is filled and the played estimator is a discounted one at times. */
static void adaptive_table(int quick) {
    static const int dims[3] = {2, 10, 50};
    static const int arms[3] = {5, 10, 50};
    int di, ki, rep, w;
    printf("\nadaptive beside linucb, ns per call, best of 3\n");
    printf("%4s %3s %6s %9s %9s %9s %9s %8s %8s\n", "d", "K", "n_est", "select", "update", "step", "linucb",
           "ratio", "bound");
    for (di = 0; di < 3; ++di)
        for (ki = 0; ki < 3; ++ki) {
            int d = dims[di], K = arms[ki], n_est = 0;
            long steps = (long)(3e6 / ((double)K * d * d + 200.0));
            double t[2][3][3];
            if (quick) steps /= 10;
            if (steps < 200) steps = 200;
            fill_pool(d, K);
            for (rep = 0; rep < 3; ++rep)
                for (w = 0; w < 2; ++w) {
                    any_policy mem;
                    isdb_policy *p;
                    if (w == 0) {
                        isdb_adaptive_config c = isdb_adaptive_config_init(d, K);
                        repro_adaptive_overrides(&c);
                        if (isdb_adaptive_init(&c, NULL, &mem.adaptive) != ISDB_OK) exit(1);
                        n_est = mem.adaptive.n_est;
                        p = &mem.adaptive.base;
                    } else {
                        p = make(0, d, K, &mem);
                    }
                    time_policy(p, d, K, 5000, STEP);
                    t[w][rep][0] = time_policy(p, d, K, steps, SELECT);
                    t[w][rep][1] = time_policy(p, d, K, steps, UPDATE);
                    t[w][rep][2] = time_policy(p, d, K, steps, STEP);
                    isdb_policy_uninit(p);
                }
            {
                double sel = best_of_3(t[0][0][0], t[0][1][0], t[0][2][0]);
                double upd = best_of_3(t[0][0][1], t[0][1][1], t[0][2][1]);
                double st = best_of_3(t[0][0][2], t[0][1][2], t[0][2][2]);
                double lin = best_of_3(t[1][0][2], t[1][1][2], t[1][2][2]);
                printf("%4d %3d %6d %9.0f %9.0f %9.0f %9.0f %8.2f %8d\n", d, K, n_est, 1e9 * sel, 1e9 * upd,
                       1e9 * st, 1e9 * lin, st / lin, n_est + 1);
                printf("target: adaptive d=%d K=%d step at most (estimators + 1) x linucb's: %.2fx of %d: %s\n", d,
                       K, st / lin, n_est + 1, st <= (n_est + 1) * lin ? "holds" : "fails");
                if (K == 10)
                    printf("target: adaptive d=%d K=10 step at most 4x linucb's (issue 24): %.2fx: %s\n", d, st / lin,
                           st <= 4 * lin ? "holds" : "fails");
            }
            fflush(stdout);
        }
}

/* The speed targets, checked on the table: each line says
   what was measured and whether it holds. */
typedef struct row {
    int which, d, K;
    double step, update, floor, chol, naive_chol, naive_inv;
} row;

static void targets(const row *rows, int n) {
    int i;
    for (i = 0; i < n; ++i) {
        const row *r = &rows[i];
        double best_naive = fmin(r->naive_chol, r->naive_inv);
        if ((r->which == 0 || r->which == 1) && r->d >= 20)
            printf("target: %s d=%d K=%d select+update within 2x of the floor: %.2fx: %s\n", policy_names[r->which],
                   r->d, r->K, r->step / r->floor, r->step <= 2.0 * r->floor ? "holds" : "fails");
        if ((r->which == 0 || r->which == 1) && r->d == 50)
            printf("target: %s d=50 K=%d at least 10x faster than the naive refit: %.1fx (Cholesky refit), %.1fx "
                   "(inverse refit): %s\n",
                   policy_names[r->which], r->K, r->naive_chol / r->step, r->naive_inv / r->step,
                   best_naive >= 10.0 * r->step ? "holds" : "fails");
        if (r->which == 2 && r->d >= 20)
            printf("target: dlinucb d=%d K=%d update within 2x of one Cholesky: %.2fx: %s; select+update %.2fx\n",
                   r->d, r->K, r->update / r->chol, r->update <= 2.0 * r->chol ? "holds" : "fails",
                   r->step / r->chol);
    }
}

/* ---- the two precisions ---- */

static const int table_dims[6] = {2, 5, 10, 20, 50, 100};
static const int table_arms[2] = {5, 50};
static const int adaptive_dims[3] = {2, 10, 50};
enum { N_STEP_LINES = 4 * 6 * 2 + 3 * 2 };

/* Seconds per select + update of policy `which` (4: adaptive) at (d, K),
   best of 3, as the tables measure it. */
static double step_time(int which, int d, int K, int quick) {
    double best = 1e300;
    long steps = which == 4 ? (long)(3e6 / ((double)K * d * d + 200.0))
                            : (long)(3e7 / ((double)K * d * d + (double)d * d * d / 6 + 200.0));
    int rep;
    if (quick) steps /= 10;
    if (steps < 200) steps = 200;
    fill_pool(d, K);
    for (rep = 0; rep < 3; ++rep) {
        any_policy mem;
        isdb_policy *p;
        if (which == 4) {
            isdb_adaptive_config c = isdb_adaptive_config_init(d, K);
            repro_adaptive_overrides(&c);
            if (isdb_adaptive_init(&c, NULL, &mem.adaptive) != ISDB_OK) exit(1);
            p = &mem.adaptive.base;
            time_policy(p, d, K, 5000, STEP);
        } else {
            p = make(which, d, K, &mem);
            time_policy(p, d, K, which == 1 ? WINDOW + 10 : 10, STEP);
        }
        best = fmin(best, time_policy(p, d, K, steps, STEP));
        isdb_policy_uninit(p);
    }
    return best;
}

/* Line i of the step list: its policy (4: adaptive), d and K. */
static void step_line(int i, int *which, int *d, int *K) {
    if (i < 48) {
        *which = i / 12;
        *d = table_dims[i % 12 / 2];
        *K = table_arms[i % 2];
    } else {
        *which = 4;
        *d = adaptive_dims[(i - 48) / 2];
        *K = table_arms[(i - 48) % 2];
    }
}

static void print_steps(int quick, int only) {
    int i, which, d, K;
    for (i = 0; i < N_STEP_LINES; ++i) {
        if (only >= 0 && i != only) continue;
        step_line(i, &which, &d, &K);
        printf("%s %d %d %.1f\n", which == 4 ? "adaptive" : policy_names[which], d, K,
               1e9 * step_time(which, d, K, quick));
        fflush(stdout);
    }
}

/* This build's steps and those of the float build `other`, line by line
   in turn, three rounds; microseconds per step side by side. */
static int compare_precisions(const char *other, int quick) {
    static double mine[N_STEP_LINES], theirs[N_STEP_LINES];
    char cmd[4096], name[32];
    int i, round, which, d, K;
    if (strlen(other) > sizeof cmd - 64) return 1;
    for (i = 0; i < N_STEP_LINES; ++i) mine[i] = theirs[i] = 1e300;
    for (round = 0; round < 3; ++round)
        for (i = 0; i < N_STEP_LINES; ++i) {
            FILE *f;
            double ns;
            int d2, K2, got;
            step_line(i, &which, &d, &K);
            mine[i] = fmin(mine[i], step_time(which, d, K, quick));
            sprintf(cmd, "%s --steps --line %d%s", other, i, quick ? " --quick" : "");
            if (!(f = popen(cmd, "r"))) return 1;
            got = fscanf(f, "%31s %d %d %lf", name, &d2, &K2, &ns);
            if (pclose(f) != 0 || got != 4 || d2 != d || K2 != K) {
                fprintf(stderr, "bench_policies: %s failed\n", cmd);
                return 1;
            }
            theirs[i] = fmin(theirs[i], 1e-9 * ns);
        }
    printf("\nselect + update in %s and in float (%s), us per step, best of 9 (each line measured in\n"
           "both builds in turn, three rounds)\n",
           ISDB_REAL_IS_FLOAT ? "float" : "double", other);
    printf("%-8s %4s %3s %10s %10s %8s\n", "policy", "d", "K", ISDB_REAL_IS_FLOAT ? "float" : "double", "float",
           "ratio");
    for (i = 0; i < N_STEP_LINES; ++i) {
        step_line(i, &which, &d, &K);
        printf("%-8s %4d %3d %10.3f %10.3f %8.2f\n", which == 4 ? "adaptive" : policy_names[which], d, K,
               1e6 * mine[i], 1e6 * theirs[i], theirs[i] / mine[i]);
    }
    return 0;
}

int main(int argc, char **argv) {
    static const int dims[6] = {2, 5, 10, 20, 50, 100};
    static const int arms[2] = {5, 50};
    static const int grams[4] = {GRAM_SUM, GRAM_WINDOW, GRAM_DISCOUNT, GRAM_SUM};
    static row rows[4 * 6 * 2];
    int quick = 0, which, di, ki, rep, n_rows = 0, a;
    for (a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[a], "--steps") == 0) {
            int only = -1, b;
            for (b = a + 1; b < argc; ++b) {
                if (strcmp(argv[b], "--quick") == 0) quick = 1;
                if (strcmp(argv[b], "--line") == 0 && b + 1 < argc) only = atoi(argv[b + 1]);
            }
            print_steps(quick, only);
            return 0;
        } else if (strcmp(argv[a], "--adaptive") == 0) {
            int b;
            for (b = a + 1; b < argc; ++b)
                if (strcmp(argv[b], "--quick") == 0) quick = 1;
            adaptive_table(quick);
            return 0;
        } else if (strcmp(argv[a], "--precision") == 0 && a + 1 < argc) {
            return compare_precisions(argv[a + 1], quick || (a + 2 < argc && strcmp(argv[a + 2], "--quick") == 0));
        } else {
            fprintf(stderr, "usage: %s [--quick] [--steps [--line I] | --precision FLOAT_BINARY | --adaptive]\n", argv[0]);
            return 2;
        }
    }
    printf("ns per call, best of 3. floor: K d^2 multiply-adds; chol: one d x d Cholesky; naive chol / naive inv:\n"
           "refit by Cholesky / by Gauss-Jordan inverse every step. SW-UCB window %d, D-LinUCB gamma 0.99.\n",
           WINDOW);
    printf("%-8s %4s %3s %9s %9s %9s %9s %9s %11s %11s %7s %7s %7s %7s\n", "policy", "d", "K", "select", "update",
           "step", "floor", "chol", "naive chol", "naive inv", "st/flr", "up/chl", "nc/st", "ni/st");
    for (which = 0; which < 4; ++which)
        for (di = 0; di < 6; ++di)
            for (ki = 0; ki < 2; ++ki) {
                int d = dims[di], K = arms[ki];
                /* About 3e7 multiply-adds per measurement. */
                long steps = (long)(3e7 / ((double)K * d * d + (double)d * d * d / 6 + 200.0)), slow_steps;
                double sel[3], upd[3], tot[3], nc[3], ni[3], flo[3], cho[3];
                row *r = &rows[n_rows++];
                any_policy mem;
                if (quick) steps /= 10;
                if (steps < 200) steps = 200;
                slow_steps = steps / (which == 1 ? 1 + WINDOW / K : (d < 10 ? 1 : d / 10)) + 20;
                fill_pool(d, K);
                for (rep = 0; rep < 3; ++rep) {
                    isdb_policy *p = make(which, d, K, &mem);
                    time_policy(p, d, K, which == 1 ? WINDOW + 10 : 10, STEP); /* fill the window */
                    sel[rep] = time_policy(p, d, K, steps, SELECT);
                    upd[rep] = time_policy(p, d, K, steps, UPDATE);
                    tot[rep] = time_policy(p, d, K, steps, STEP);
                    isdb_policy_uninit(p);
                    nc[rep] = time_naive(grams[which], 0, d, K, slow_steps);
                    ni[rep] = time_naive(grams[which], 1, d, K, slow_steps / 2 + 10);
                    flo[rep] = time_floor(d, K, steps);
                    cho[rep] = time_chol(d, steps / 4 + 10);
                }
                r->which = which;
                r->d = d;
                r->K = K;
                r->update = 1e9 * best_of_3(upd[0], upd[1], upd[2]);
                r->step = 1e9 * best_of_3(tot[0], tot[1], tot[2]);
                r->naive_chol = 1e9 * best_of_3(nc[0], nc[1], nc[2]);
                r->naive_inv = 1e9 * best_of_3(ni[0], ni[1], ni[2]);
                r->floor = 1e9 * best_of_3(flo[0], flo[1], flo[2]);
                r->chol = 1e9 * best_of_3(cho[0], cho[1], cho[2]);
                printf("%-8s %4d %3d %9.0f %9.0f %9.0f %9.0f %9.0f %11.0f %11.0f %7.2f %7.2f %7.1f %7.1f\n",
                       policy_names[which], d, K, 1e9 * best_of_3(sel[0], sel[1], sel[2]), r->update, r->step,
                       r->floor, r->chol, r->naive_chol, r->naive_inv, r->step / r->floor, r->update / r->chol,
                       r->naive_chol / r->step, r->naive_inv / r->step);
                fflush(stdout);
            }
    targets(rows, n_rows);
    adaptive_table(quick);
    return 0;
}

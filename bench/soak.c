/* soak.c - long runs checked against exact refits (`make soak`).
   A drifting problem (theta rotating in two planes, 10 arms a round on the
   unit sphere, noise 0.1) is played for --steps rounds (default 10^6) by
   SW-UCB (w = 100, d = 10, the setting), the same SW-UCB with its
   periodic rebuilds switched off (swucb-raw: only refused downdates
   rebuild, so the drift of 10^6 update/downdate pairs shows), LinUCB and
   D-LinUCB. At the
   end each policy's estimate theta and its widths ||x|| (in the policy's
   metric) for 50 probe vectors are compared with a refit computed here in
   long double: SW-UCB from the stored last w observations, LinUCB from
   long-double running sums of all observations, D-LinUCB from a long-double
   run of its recursion. It also checks that nothing was allocated after
   init. Passes when every relative difference is below 1e-9.

   usage: soak [--steps N] [--policy swucb|swucb-raw|linucb|dlinucb|all] */
#define _POSIX_C_SOURCE 199309L
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define D 10
#define K 10
#define W 100
#define PROBES 50
#define GAMMA 0.995
#define LAMBDA 1.0
#define TOL 1e-9

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long allocations;
static void *counting_alloc(size_t n, void *user) {
    (void)user;
    ++allocations;
    return malloc(n);
}
static void counting_free(void *p, void *user) {
    (void)user;
    free(p);
}

/* Solves A x = b (n x n, long double) by Gaussian elimination with partial
   pivoting. */
static void solve_ld(int n, const long double *A, const long double *b, long double *x) {
    long double M[D][D + 1];
    int i, j, k;
    for (i = 0; i < n; ++i) {
        for (j = 0; j < n; ++j) M[i][j] = A[i * n + j];
        M[i][n] = b[i];
    }
    for (k = 0; k < n; ++k) {
        int p = k;
        for (i = k + 1; i < n; ++i)
            if (fabsl(M[i][k]) > fabsl(M[p][k])) p = i;
        for (j = 0; j <= n; ++j) {
            long double t = M[k][j];
            M[k][j] = M[p][j];
            M[p][j] = t;
        }
        for (i = k + 1; i < n; ++i) {
            long double f = M[i][k] / M[k][k];
            for (j = k; j <= n; ++j) M[i][j] -= f * M[k][j];
        }
    }
    for (i = n - 1; i >= 0; --i) {
        long double s = M[i][n];
        for (j = i + 1; j < n; ++j) s -= M[i][j] * x[j];
        x[i] = s / M[i][i];
    }
}

/* The reference of one policy: Gram matrices and b in long double. */
typedef struct reference {
    long double V[D * D], Vt[D * D], b[D];
    double ring_x[W * D], ring_y[W];
    long count;
} reference;

static void reference_init(reference *r) {
    int i;
    memset(r, 0, sizeof *r);
    for (i = 0; i < D; ++i) r->V[i * D + i] = r->Vt[i * D + i] = LAMBDA;
}

static int is_window(const char *policy) { return strncmp(policy, "swucb", 5) == 0; }

static void reference_add(reference *r, const char *policy, const double *x, double y) {
    int i, j;
    if (is_window(policy)) {
        memcpy(r->ring_x + (r->count % W) * D, x, sizeof(double) * D);
        r->ring_y[r->count % W] = y;
    } else if (strcmp(policy, "linucb") == 0) {
        for (i = 0; i < D; ++i) {
            for (j = 0; j < D; ++j) r->V[i * D + j] += (long double)x[i] * x[j];
            r->b[i] += (long double)y * x[i];
        }
    } else {
        long double g = GAMMA;
        for (i = 0; i < D; ++i) {
            for (j = 0; j < D; ++j) {
                long double xx = (long double)x[i] * x[j], pad = i == j ? LAMBDA : 0.0L;
                r->V[i * D + j] = g * r->V[i * D + j] + xx + (1.0L - g) * pad;
                r->Vt[i * D + j] = g * g * r->Vt[i * D + j] + xx + (1.0L - g * g) * pad;
            }
            r->b[i] = g * r->b[i] + (long double)y * x[i];
        }
    }
    r->count++;
}

/* The window's sums, for SW-UCB. */
static void reference_window(reference *r) {
    int i, j, k, n = r->count < W ? (int)r->count : W;
    for (i = 0; i < D * D; ++i) r->V[i] = (i % (D + 1)) == 0 ? LAMBDA : 0.0L;
    for (i = 0; i < D; ++i) r->b[i] = 0.0L;
    for (k = 0; k < n; ++k)
        for (i = 0; i < D; ++i) {
            for (j = 0; j < D; ++j) r->V[i * D + j] += (long double)r->ring_x[k * D + i] * r->ring_x[k * D + j];
            r->b[i] += (long double)r->ring_y[k] * r->ring_x[k * D + i];
        }
}

/* Width of x in the policy's metric: ||x||_{V^-1}, or for D-LinUCB
   ||V^-1 x||_Vt. */
static long double reference_width(const reference *r, const char *policy, const double *x) {
    long double xl[D], u[D], q = 0.0L;
    int i, j;
    for (i = 0; i < D; ++i) xl[i] = x[i];
    solve_ld(D, r->V, xl, u);
    if (strcmp(policy, "dlinucb") != 0) {
        for (i = 0; i < D; ++i) q += u[i] * xl[i];
    } else {
        for (i = 0; i < D; ++i)
            for (j = 0; j < D; ++j) q += u[i] * r->Vt[i * D + j] * u[j];
    }
    return sqrtl(q);
}

static int soak(const char *policy, long steps) {
    static union {
        isdb_linucb a;
        isdb_swucb b;
        isdb_dlinucb c;
    } mem;
    static reference ref;
    isdb_allocator alloc;
    isdb_policy *p = (isdb_policy *)&mem;
    isdb_result r = ISDB_OK;
    isdb_rng rng;
    double X[K * D], theta[D], est[D], probe[D], t0, err_theta = 0.0, err_width = 0.0, norm_theta = 0.0;
    long double theta_ref[D];
    long s, after_init;
    int i, k, arm;
    alloc.alloc_fn = counting_alloc;
    alloc.free_fn = counting_free;
    alloc.user = NULL;
    allocations = 0;
    if (is_window(policy)) {
        isdb_swucb_config c = isdb_swucb_config_init(D, K, W);
        if (strcmp(policy, "swucb-raw") == 0) c.refresh = 2147483647;
        r = isdb_swucb_init(&c, &alloc, &mem.b);
    } else if (strcmp(policy, "linucb") == 0) {
        isdb_linucb_config c = isdb_linucb_config_init(D, K);
        r = isdb_linucb_init(&c, &alloc, &mem.a);
    } else {
        isdb_dlinucb_config c = isdb_dlinucb_config_init(D, K, GAMMA);
        r = isdb_dlinucb_init(&c, &alloc, &mem.c);
    }
    if (r != ISDB_OK) {
        fprintf(stderr, "%s: %s\n", policy, isdb_result_string(r));
        return 0;
    }
    after_init = allocations;
    reference_init(&ref);
    isdb_rng_seed(&rng, 2026);
    t0 = now();
    for (s = 0; s < steps; ++s) {
        double a = 2e-4 * (double)s, y;
        memset(theta, 0, sizeof theta);
        theta[0] = cos(a);
        theta[1] = sin(a);
        theta[2] = 0.5 * cos(3.0 * a);
        theta[3] = 0.5 * sin(3.0 * a);
        for (k = 0; k < K; ++k) {
            double nrm = 0.0;
            for (i = 0; i < D; ++i) {
                X[k * D + i] = isdb_rng_normal(&rng);
                nrm += X[k * D + i] * X[k * D + i];
            }
            for (i = 0; i < D; ++i) X[k * D + i] /= sqrt(nrm);
        }
        if ((r = isdb_policy_select(p, X, K, &arm)) != ISDB_OK) break;
        y = isdb__dot(D, X + arm * D, theta) + 0.1 * isdb_rng_normal(&rng);
        if ((r = isdb_policy_update(p, arm, X + arm * D, y)) != ISDB_OK) break;
        reference_add(&ref, policy, X + arm * D, y);
        if (steps >= 10 && s % (steps / 10) == 0) fprintf(stderr, "\r%s: %ld%%", policy, 100 * s / steps);
    }
    t0 = now() - t0;
    fprintf(stderr, "\r              \r");
    if (r != ISDB_OK) {
        fprintf(stderr, "%s stopped at step %ld: %s\n", policy, s, isdb_result_string(r));
        return 0;
    }
    if (is_window(policy)) reference_window(&ref);
    solve_ld(D, ref.V, ref.b, theta_ref);
    if (is_window(policy))
        isdb_swucb_theta(&mem.b, est);
    else if (strcmp(policy, "linucb") == 0)
        isdb_linucb_theta(&mem.a, est);
    else
        isdb_dlinucb_theta(&mem.c, est);
    for (i = 0; i < D; ++i) norm_theta += (double)(theta_ref[i] * theta_ref[i]);
    for (i = 0; i < D; ++i) err_theta = fmax(err_theta, fabs(est[i] - (double)theta_ref[i]) / sqrt(norm_theta));
    for (k = 0; k < PROBES; ++k) {
        double bonus = 0.0, beta;
        long double want;
        for (i = 0; i < D; ++i) probe[i] = isdb_rng_normal(&rng);
        if (is_window(policy)) {
            isdb_swucb_explain(&mem.b, probe, NULL, &bonus);
            beta = isdb_swucb_beta(&mem.b);
        } else if (strcmp(policy, "linucb") == 0) {
            isdb_linucb_explain(&mem.a, probe, NULL, &bonus);
            beta = isdb_linucb_beta(&mem.a);
        } else {
            isdb_dlinucb_explain(&mem.c, probe, NULL, &bonus);
            beta = isdb_dlinucb_beta(&mem.c);
        }
        want = reference_width(&ref, policy, probe);
        err_width = fmax(err_width, fabs(bonus / beta - (double)want) / (double)want);
    }
    printf("%-9s %10ld %9.3f %12.2e %12.2e %8ld %s\n", policy, steps, 1e9 * t0 / (double)steps, err_theta, err_width,
           allocations - after_init,
           err_theta < TOL && err_width < TOL && allocations == after_init ? "ok" : "FAILED");
    if (is_window(policy))
        printf("         (%llu exact rebuilds, %llu of them after a refused downdate)\n",
               (unsigned long long)mem.b.rebuilds, (unsigned long long)mem.b.refusals);
    isdb_policy_uninit(p);
    return err_theta < TOL && err_width < TOL && allocations == after_init;
}

int main(int argc, char **argv) {
    static const char *all[4] = {"swucb", "swucb-raw", "linucb", "dlinucb"};
    const char *only = "all";
    long steps = 1000000;
    int i, ok = 1;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc && atol(argv[i + 1]) > 0)
            steps = atol(argv[++i]);
        else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--steps N] [--policy swucb|swucb-raw|linucb|dlinucb|all]\n", argv[0]);
            return 2;
        }
    }
    printf("soak: d=%d, %d arms, drifting theta; estimate and widths against a long-double refit (tolerance %g)\n", D,
           K, TOL);
    printf("%-9s %10s %9s %12s %12s %8s\n", "policy", "steps", "ns/step", "theta err", "width err", "allocs");
    for (i = 0; i < 4; ++i)
        if (strcmp(only, "all") == 0 || strcmp(only, all[i]) == 0) ok &= soak(all[i], steps);
    return ok ? 0 : 1;
}

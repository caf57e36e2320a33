/* soak.c - long runs checked against exact refits (`make soak`).
   A drifting problem (theta rotating in two planes of its first four
   coordinates, 10 arms a round on the unit sphere of R^10, noise 0.1) is
   played for --steps rounds (default 10^7) by
     swucb      SW-UCB, w = 100 (issue 2's setting: d = 10, w = 100);
     swucb-raw  the same with its periodic rebuilds off (only refused
                downdates rebuild), so the drift of the update/downdate
                pairs shows;
     linucb     LinUCB;
     dlinucb    D-LinUCB, gamma 0.995, refresh 1 (its exact factor
                every update; the default's O(d^2) steps are checked
                against their closed form in tests/test_policies.c);
     isd        ISD-linUCB in oracle mode (the invariant subspace: the six
                coordinates theta never uses, beta_inv = 0) with a sliding
                window of 100 as its residual learner.
   One update before round 10^6 and one before the end, each policy's
   estimate and its widths for 50 probe vectors are compared with a refit
   computed here in long double (one update before, because SW-UCB's
   periodic exact rebuild, every max(w, d) = 100 updates by default, falls
   on round 10^6 and on the last round: there its error is nil, while one
   update earlier 99 update/downdate pairs have passed since the rebuild):
   the windowed ones from the stored last 100 observations, LinUCB from
   long-double running sums of everything, D-LinUCB from a long-double run
   of its recursion. It also checks that nothing was allocated after init
   and that the step counter kept count. Passes when every relative
   difference is below 1e-9.

   Built with -DISDB_REAL=float (`soak-float`, ISD left out) the same runs
   are in single precision, checked against the same long-double refit of
   the float inputs, to 1e-4 (840 float eps): the policies that rebuild
   stay within about 100 eps (as in double, where 1e-9 is the check), and
   a factor gone wrong is off by far more. swucb-raw is reported but not
   checked in float: its drift grows with the number of update/downdate
   pairs, about as many eps in both precisions (3e5 eps after 10^6), which
   is 1e-11 in double but 4e-2 in float; the periodic rebuild is what
   bounds it. --every N also compares every N rounds and reports the
   largest differences over all those comparisons (N = 997 falls at every
   phase of SW-UCB's rebuild period of 100).

   usage: soak [--steps N] [--policy NAME|all] [--every N] */
#define _POSIX_C_SOURCE 199309L
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* a.b, summed in index order */
static isdb_real dot(int n, const isdb_real *a, const isdb_real *b) {
    isdb_real s = 0;
    int i;
    for (i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

#define D 10
#define K 10
#define W 100
#define Q 4 /* ISD's residual dimension: the coordinates theta uses */
#define PROBES 50
#define GAMMA 0.995
#define LAMBDA 1.0
#if ISDB_REAL_IS_FLOAT
#define TOL 1e-4
#else
#define TOL 1e-9
#endif
#define CHECKPOINT 1000000L

enum { SWUCB, SWUCB_RAW, LINUCB, DLINUCB, ISD, N_POLICIES };
static const char *names[N_POLICIES] = {"swucb", "swucb-raw", "linucb", "dlinucb", "isd"};

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

/* What the refit needs: long-double sums (LinUCB, D-LinUCB) or the last W
   observations (the windowed policies). */
typedef struct reference {
    int policy;
    long double V[D * D], Vt[D * D], b[D];
    isdb_real ring_x[W * D], ring_y[W];
    long count;
} reference;

static int windowed(int policy) { return policy == SWUCB || policy == SWUCB_RAW || policy == ISD; }

/* Whether the run must stay within TOL (see the top). */
static int checked(int policy) { return !(ISDB_REAL_IS_FLOAT && policy == SWUCB_RAW); }

static const char *verdict(int policy, int ok) {
    return !ok ? "FAILED" : checked(policy) ? "ok" : "drift, not checked";
}

static void reference_init(reference *r, int policy) {
    int i;
    memset(r, 0, sizeof *r);
    r->policy = policy;
    for (i = 0; i < D; ++i) r->V[i * D + i] = r->Vt[i * D + i] = LAMBDA;
}

static void reference_add(reference *r, const isdb_real *x, isdb_real y) {
    int i, j;
    if (windowed(r->policy)) {
        memcpy(r->ring_x + (r->count % W) * D, x, sizeof(isdb_real) * D);
        r->ring_y[r->count % W] = y;
    } else if (r->policy == LINUCB) {
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

/* The refit's Gram matrix (n x n: n = D, or Q for ISD's residual
   coordinates) and b into V, b. */
static int reference_gram(const reference *r, long double *V, long double *b) {
    int n = r->policy == ISD ? Q : D, rows = r->count < W ? (int)r->count : W, i, j, k;
    if (!windowed(r->policy)) {
        memcpy(V, r->V, sizeof r->V);
        memcpy(b, r->b, sizeof r->b);
        return n;
    }
    for (i = 0; i < n * n; ++i) V[i] = (i % (n + 1)) == 0 ? LAMBDA : 0.0L;
    for (i = 0; i < n; ++i) b[i] = 0.0L;
    for (k = 0; k < rows; ++k)
        for (i = 0; i < n; ++i) {
            for (j = 0; j < n; ++j) V[i * n + j] += (long double)r->ring_x[k * D + i] * r->ring_x[k * D + j];
            b[i] += (long double)r->ring_y[k] * r->ring_x[k * D + i];
        }
    return n;
}

typedef union any_policy {
    isdb_linucb a;
    isdb_swucb b;
    isdb_dlinucb c;
#if !ISDB_REAL_IS_FLOAT
    isdb_isd e;
#endif
} any_policy;

static isdb_result make(int policy, any_policy *mem, const isdb_allocator *alloc) {
    if (policy == SWUCB || policy == SWUCB_RAW) {
        isdb_swucb_config c = isdb_swucb_config_init(D, K, W);
        if (policy == SWUCB_RAW) c.refresh = 2147483647;
        return isdb_swucb_init(&c, alloc, &mem->b);
    }
    if (policy == LINUCB) {
        isdb_linucb_config c = isdb_linucb_config_init(D, K);
        return isdb_linucb_init(&c, alloc, &mem->a);
    }
    if (policy == DLINUCB) {
        isdb_dlinucb_config c = isdb_dlinucb_config_init(D, K, GAMMA);
        c.refresh = 1; /* the paper's factor, which the refit runs */
        return isdb_dlinucb_init(&c, alloc, &mem->c);
    } else {
#if ISDB_REAL_IS_FLOAT /* ISD needs double */
        return ISDB_ERR_INVALID_ARG;
#else
        static double U_inv[D * (D - Q)], beta_inv[D];
        isdb_isd_config c = isdb_isd_config_init(D, K, 0, NULL, NULL);
        int i;
        memset(U_inv, 0, sizeof U_inv);
        for (i = 0; i < D - Q; ++i) U_inv[(Q + i) * (D - Q) + i] = 1.0;
        c.oracle = 1;
        c.p_inv = D - Q;
        c.U_inv = U_inv;
        c.beta_inv = beta_inv;
        c.learner = ISDB_ISD_RES_WINDOW;
        c.window = W;
        c.lambda = LAMBDA;
        c.radius = ISDB_ISD_RADIUS_FIXED;
        return isdb_isd_init(&c, alloc, &mem->e);
#endif
    }
}

/* The policy's estimate (in R^D) and the width (in the policy's metric,
   beta excluded) of x. */
static void policy_estimate(int policy, any_policy *mem, isdb_real *est) {
    if (policy == SWUCB || policy == SWUCB_RAW) isdb_swucb_get_theta(&mem->b, est);
    if (policy == LINUCB) isdb_linucb_get_theta(&mem->a, est);
    if (policy == DLINUCB) isdb_dlinucb_get_theta(&mem->c, est);
#if !ISDB_REAL_IS_FLOAT
    if (policy == ISD) isdb_isd_get_gamma(&mem->e, est);
#endif
}

static double policy_width(int policy, any_policy *mem, const isdb_real *x) {
    isdb_real bonus = 0, r_res = 1;
    if (policy == SWUCB || policy == SWUCB_RAW) {
        isdb_swucb_explain(&mem->b, x, NULL, &bonus);
        return bonus / isdb_swucb_get_beta(&mem->b);
    }
    if (policy == LINUCB) {
        isdb_linucb_explain(&mem->a, x, NULL, &bonus);
        return bonus / isdb_linucb_get_beta(&mem->a);
    }
    if (policy == DLINUCB) {
        isdb_dlinucb_explain(&mem->c, x, NULL, &bonus);
        return bonus / isdb_dlinucb_get_beta(&mem->c);
    }
#if !ISDB_REAL_IS_FLOAT
    isdb_isd_explain(&mem->e, x, NULL, NULL, &bonus);
    isdb_isd_get_radii(&mem->e, NULL, &r_res);
#endif
    return bonus / r_res;
}

/* The same width from the refit: ||x||_{V^-1} (in ISD's residual
   coordinates), or for D-LinUCB ||V^-1 x||_Vt. */
static long double reference_width(const reference *r, const long double *V, int n, const isdb_real *x) {
    long double xl[D], u[D], q = 0.0L;
    int i, j;
    for (i = 0; i < n; ++i) xl[i] = x[i];
    solve_ld(n, V, xl, u);
    if (r->policy != DLINUCB) {
        for (i = 0; i < n; ++i) q += u[i] * xl[i];
    } else {
        for (i = 0; i < n; ++i)
            for (j = 0; j < n; ++j) q += u[i] * r->Vt[i * n + j] * u[j];
    }
    return sqrtl(q);
}

/* Largest relative differences of the estimate and of the widths from the
   refit; 1 when both are below TOL. */
static int compare(int policy, any_policy *mem, const reference *ref, isdb_rng *rng, double *err_est,
                   double *err_width) {
    long double V[D * D], b[D], est_ref[D];
    isdb_real est[D], probe[D];
    double norm = 0.0;
    int n = reference_gram(ref, V, b), i, k;
    for (i = 0; i < D; ++i) est_ref[i] = 0.0L;
    solve_ld(n, V, b, est_ref);
    policy_estimate(policy, mem, est);
    *err_est = *err_width = 0.0;
    for (i = 0; i < D; ++i) norm += (double)(est_ref[i] * est_ref[i]);
    for (i = 0; i < D; ++i) *err_est = fmax(*err_est, fabs((double)est[i] - (double)est_ref[i]) / sqrt(norm));
    for (k = 0; k < PROBES; ++k) {
        long double want;
        for (i = 0; i < D; ++i) probe[i] = isdb_rng_normal(rng);
        want = reference_width(ref, V, n, probe);
        *err_width = fmax(*err_width, fabs(policy_width(policy, mem, probe) - (double)want) / (double)want);
    }
    return *err_est < TOL && *err_width < TOL;
}

static int soak(int policy, long steps, long every) {
    static any_policy mem;
    static reference ref;
    isdb_allocator alloc;
    isdb_policy *p = (isdb_policy *)&mem;
    isdb_result r;
    isdb_rng rng, probes;
    isdb_real X[K * D], theta[D], y;
    double t0, e_est = 0.0, e_width = 0.0, max_est = 0.0, max_width = 0.0;
    long s, after_init, compared = 0;
    int i, k, arm, ok = 1;
    alloc.alloc_fn = counting_alloc;
    alloc.free_fn = counting_free;
    alloc.user = NULL;
    allocations = 0;
    if ((r = make(policy, &mem, &alloc)) != ISDB_OK) {
        fprintf(stderr, "%s: %s\n", names[policy], isdb_result_string(r));
        return 0;
    }
    after_init = allocations;
    reference_init(&ref, policy);
    isdb_rng_seed(&rng, 2026);
    isdb_rng_seed(&probes, 77);
    t0 = now();
    for (s = 0; s < steps; ++s) {
        double a = 2e-4 * (double)s;
        memset(theta, 0, sizeof theta);
        theta[0] = (isdb_real)cos(a);
        theta[1] = (isdb_real)sin(a);
        theta[2] = (isdb_real)(0.5 * cos(3.0 * a));
        theta[3] = (isdb_real)(0.5 * sin(3.0 * a));
        for (k = 0; k < K; ++k) {
            isdb_real nrm = 0;
            for (i = 0; i < D; ++i) {
                X[k * D + i] = isdb_rng_normal(&rng);
                nrm += X[k * D + i] * X[k * D + i];
            }
            for (i = 0; i < D; ++i) X[k * D + i] /= (isdb_real)sqrt((double)nrm);
        }
        if ((r = isdb_policy_select(p, X, K, &arm)) != ISDB_OK) break;
        y = dot(D, X + arm * D, theta) + (isdb_real)0.1 * isdb_rng_normal(&rng);
        if ((r = isdb_policy_update(p, arm, X + arm * D, y)) != ISDB_OK) break;
        reference_add(&ref, X + arm * D, y);
        if (s + 2 == CHECKPOINT && steps > CHECKPOINT) {
            int in = compare(policy, &mem, &ref, &probes, &e_est, &e_width);
            ok &= in || !checked(policy);
            printf("%-9s %10ld %9s %12.2e %12.2e %8s %s\n", names[policy], s + 1, "", e_est, e_width, "",
                   verdict(policy, in || !checked(policy)));
        }
        if (s + 2 == steps) ok &= compare(policy, &mem, &ref, &probes, &e_est, &e_width) || !checked(policy);
        if (every > 0 && (s + 1) % every == 0) {
            double pe, pw;
            ok &= compare(policy, &mem, &ref, &probes, &pe, &pw) || !checked(policy);
            max_est = fmax(max_est, pe);
            max_width = fmax(max_width, pw);
            ++compared;
        }
        if (steps >= 100 && s % (steps / 100) == 0) fprintf(stderr, "\r%s: %ld%%", names[policy], 100 * s / steps);
    }
    t0 = now() - t0;
    fprintf(stderr, "\r                    \r");
    if (r != ISDB_OK) {
        fprintf(stderr, "%s stopped at step %ld: %s\n", names[policy], s, isdb_result_string(r));
        return 0;
    }
    if (steps < 2) ok &= compare(policy, &mem, &ref, &probes, &e_est, &e_width) || !checked(policy);
    ok &= allocations == after_init && p->t == (uint64_t)steps;
    printf("%-9s %10ld %9.0f %12.2e %12.2e %8ld %s\n", names[policy], steps, 1e9 * t0 / (double)steps, e_est,
           e_width, allocations - after_init, verdict(policy, ok));
    if (compared > 0)
        printf("          (largest over %ld comparisons, one every %ld rounds: estimate %.2e, widths %.2e)\n",
               compared, every, max_est, max_width);
    if (policy == SWUCB || policy == SWUCB_RAW)
        printf("          (%llu exact rebuilds, %llu of them after a refused downdate)\n",
               (unsigned long long)mem.b.rebuilds, (unsigned long long)mem.b.refusals);
    isdb_policy_uninit(p);
    return ok;
}

int main(int argc, char **argv) {
    const char *only = "all";
    long steps = 10000000L, every = 0;
    int i, ok = 1, any = 0;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc && atol(argv[i + 1]) > 0)
            steps = atol(argv[++i]);
        else if (strcmp(argv[i], "--every") == 0 && i + 1 < argc && atol(argv[i + 1]) > 0)
            every = atol(argv[++i]);
        else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--steps N] [--policy swucb|swucb-raw|linucb|dlinucb|isd|all] [--every N]\n",
                    argv[0]);
            return 2;
        }
    }
    printf("soak%s: d=%d, %d arms, drifting theta; estimate and widths against a long-double refit (tolerance %g),\n"
           "compared one update before the round shown\n",
           ISDB_REAL_IS_FLOAT ? " (float)" : "", D, K, TOL);
    printf("%-9s %10s %9s %12s %12s %8s\n", "policy", "steps", "ns/step", "est. err", "width err", "allocs");
    for (i = 0; i < N_POLICIES; ++i)
        if ((strcmp(only, "all") == 0 && !(ISDB_REAL_IS_FLOAT && i == ISD)) || strcmp(only, names[i]) == 0) {
            ok &= soak(i, steps, every);
            any = 1;
        }
    if (!any) fprintf(stderr, "no policy named %s\n", only);
    return ok && any ? 0 : 1;
}

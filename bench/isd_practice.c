/* isd_practice.c - what `make isd-practice` runs: ISD-linUCB as a new user
   would run it on logs it was not tuned for (issue 23), beside the
   library's drift-agnostic default (adaptive), LinUCB and the best of a
   tuned SW-UCB grid.

   Data (generated here; the library's isdb_isd_env cannot express a
   rotated invariant basis with drift, nothing invariant, or a log whose
   covariance never changes). Each problem has an orthogonal basis U (the
   identity, or Haar-random for the "rotated" families) and U coordinates
   z = U^T x split into p_inv invariant and p_res residual coordinates,
   each part cut into blocks of 1 or 2 coordinates. The parameter is
   gamma_t = U (b + delta_t): b on the invariant coordinates, fixed, of
   norm sqrt(p_inv / d); delta_t on the residual ones, of norm
   sqrt(p_res / d), either rotating at constant speed in a random plane
   (`turns` full turns over the n0 + T rounds; a sinusoid when p_res = 1)
   or jumping to a fresh random direction at `jumps` random times.
   Features: z ~ N(0, blockdiag(A_b A_b^T)), the entries of each A_b
   uniform in [0.1, 1) / sqrt(0.37 s_b d) for a block of s_b coordinates
   (E ||x||^2 = 1 on average, and ||gamma_t|| = 1: the scale of the
   library's defaults L = M = 1); the log's A_b are redrawn every n0 / 8
   rows (the logging system's covariance changes; "unidentifiable": one
   draw for the whole log and the online phase), the online phase has one
   fresh draw.
   The log is n0 = 3000 rows (x, y = x.gamma_t + noise) of a uniform
   logger (one arm per row); then T = 3000 online rounds, K = 10 arms drawn
   fresh each round, the same reward process continuing (rounds n0 ..
   n0 + T - 1 of the same gamma_t path), Gaussian noise of the problem's
   scale.

   Families (a-g below), each with N_INST instances drawn from the family
   seed (--family-seed, default 1): d = 4, 6, 8, 10, 14, 20 in turn; the
   invariant fraction uniform in [0.4, 0.8) (p_inv rounded, at least 1, at
   most d - 1), the blocks, the noise scale in {0.1, 0.2, 0.5}, the turns in
   [0.5, 2) and the jumps in 3..10. Each seed then draws the basis, b, the
   drift's plane, phase, jump times and directions, the covariances, the
   log, the arms and the noise (common random numbers: every policy sees
   the same log, arms, parameter path and noise).

   Policies, each told the noise scale and nothing else:
     isd       isdb_isd_config_init(d, K, n0, X0, R0) with the noise scale
               (ISD_SET_NOISE below: the field `R`), fitted to
               the log; if init refuses the log, the user's fallback is
               LinUCB (counted and printed);
     adaptive  isdb_adaptive_config_init(d, K), R = noise;
     linucb    isdb_linucb_config_init(d, K), R = noise;
     SW-UCB at 7 windows geometrically from 50 to T, R = noise, the best
               picked with hindsight per instance ("best SW").
   Adaptive, LinUCB and SW-UCB start online without the log.

   Output: a table per family (mean final pseudo-regret per policy, the
   ratios ISD / adaptive, ISD / LinUCB, adaptive / best SW), what the ISD
   fit decided (refusals, p_inv found, how much of the invariant subspace
   it called drifting and of the drifting one invariant, from the
   projectors: 1 - tr(P P^) / p_inv and tr((I - P) P^) / p_res, P the true
   invariant projector, P^ the fitted one at init; monitor fallbacks; logs
   isdb_isd_info calls unidentifiable, identifiable 0),
   `claim:` lines for the three targets, and g's ratio (a log whose
   residual part is stale when the online phase starts: reported, not an
   issue target). --no-guard and --no-warm-start run ISD with that default
   off; --honest-bounds also tells it L (the log's largest ||x||) and S =
   1 (the largest ||gamma_t||). --out DIR writes
   isd_practice.csv (every policy) and isd_practice_fit.csv (the fits).

   Instances run in parallel, one process each (POSIX fork), --jobs at a
   time (default: the online processors). --quick runs 3 seeds and two
   instances of each family (d = 4 and 10). */
#define _POSIX_C_SOURCE 200809L
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "repro_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fork_jobs.h"

/* The one place that tells ISD the noise scale (the field may be renamed). */
#define ISD_SET_NOISE(cfg, s) ((cfg).R = (s))

#define N0 3000
#define T_ON 3000
#define K_ARMS 10
#define LOG_PERIODS 8
#define GRID 7
#define MAX_SEEDS 64
#define MAXD 20
#define N_INST 6

static const int inst_d[N_INST] = {4, 6, 8, 10, 14, 20};

/* ---- families ------------------------------------------------------------ */

enum { INV_FRACTION, INV_NONE, INV_ALL };
enum { DRIFT_NONE, DRIFT_SMOOTH, DRIFT_ABRUPT, DRIFT_ALTERNATE };

typedef struct family {
    const char *name, *about;
    int rotated;      /* Haar basis (1) or axis-aligned (0) */
    int inv;          /* INV_* */
    int drift;        /* DRIFT_*; ALTERNATE: smooth for even instances, abrupt for odd */
    int log_constant; /* one covariance for the log and the online phase */
    int stale_log;    /* the residual part jumps at the first online round */
} family;

static const family families[] = {
    {"a-axis-smooth", "axis-aligned invariant part, the rest rotating slowly", 0, INV_FRACTION, DRIFT_SMOOTH, 0, 0},
    {"b-axis-abrupt", "axis-aligned invariant part, the rest jumping", 0, INV_FRACTION, DRIFT_ABRUPT, 0, 0},
    {"c-rotated", "invariant part in a rotated basis, the rest drifting (smooth / abrupt alternately)", 1,
     INV_FRACTION, DRIFT_ALTERNATE, 0, 0},
    {"d-nothing-invariant", "nothing invariant, all of gamma drifting (smooth / abrupt alternately)", 1, INV_NONE,
     DRIFT_ALTERNATE, 0, 0},
    {"e-stationary", "everything invariant: gamma fixed", 0, INV_ALL, DRIFT_NONE, 0, 0},
    {"f-unidentifiable", "as a, but the log's covariance never changes", 0, INV_FRACTION, DRIFT_SMOOTH, 1, 0},
    {"g-stale-log", "as b, with a jump at the first online round: the log's residual part is stale", 0,
     INV_FRACTION, DRIFT_ABRUPT, 0, 1},
};
#define N_FAM ((int)(sizeof families / sizeof families[0]))
#define N_SCEN (N_FAM * N_INST)

typedef struct instance {
    int fam, idx;
    int d, p_inv, drift, jumps;
    int n_blocks, sizes[MAXD];
    double noise, turns;
} instance;

static uint64_t mix(uint64_t a, uint64_t b) {
    uint64_t z = a * 0x9e3779b97f4a7c15ull + b + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Cuts n coordinates into blocks of 1 or 2, appended to in->sizes. */
static void cut_blocks(isdb_rng *rng, int n, instance *in) {
    while (n > 0) {
        int s = n >= 2 && isdb_rng_uniform(rng) < 0.5 ? 2 : 1;
        in->sizes[in->n_blocks++] = s;
        n -= s;
    }
}

static void draw_instance(uint64_t family_seed, int fam, int idx, instance *in) {
    const family *f = &families[fam];
    static const double noises[3] = {0.1, 0.2, 0.5};
    isdb_rng rng;
    isdb_rng_seed(&rng, mix(mix(family_seed, (uint64_t)fam + 1), (uint64_t)idx + 101));
    memset(in, 0, sizeof *in);
    in->fam = fam;
    in->idx = idx;
    in->d = inst_d[idx];
    if (f->inv == INV_NONE)
        in->p_inv = 0;
    else if (f->inv == INV_ALL)
        in->p_inv = in->d;
    else {
        double frac = 0.4 + 0.4 * isdb_rng_uniform(&rng);
        in->p_inv = (int)floor(frac * in->d + 0.5);
        if (in->p_inv < 1) in->p_inv = 1;
        if (in->p_inv > in->d - 1) in->p_inv = in->d - 1;
    }
    in->drift = f->drift == DRIFT_ALTERNATE ? (idx % 2 == 0 ? DRIFT_SMOOTH : DRIFT_ABRUPT) : f->drift;
    in->noise = noises[isdb_rng_below(&rng, 3)];
    in->turns = 0.5 + 1.5 * isdb_rng_uniform(&rng);
    in->jumps = isdb_rng_int(&rng, 3, 10);
    cut_blocks(&rng, in->p_inv, in);
    cut_blocks(&rng, in->d - in->p_inv, in);
}

static void instance_label(const instance *in, char *buf, size_t cap) {
    if (in->drift == DRIFT_SMOOTH)
        snprintf(buf, cap, "d=%d p_inv=%d, %.2f turns, noise %.2g", in->d, in->p_inv, in->turns, in->noise);
    else if (in->drift == DRIFT_ABRUPT)
        snprintf(buf, cap, "d=%d p_inv=%d, %d jumps, noise %.2g", in->d, in->p_inv, in->jumps, in->noise);
    else
        snprintf(buf, cap, "d=%d p_inv=%d, fixed, noise %.2g", in->d, in->p_inv, in->noise);
}

/* ---- one seed's data ----------------------------------------------------- */

typedef struct data {
    int d;
    double U[MAXD * MAXD];    /* columns; the first p_inv span S_inv */
    double X0[N0 * MAXD], R0[N0];
    double arms[T_ON * K_ARMS * MAXD];
    double gamma[T_ON * MAXD]; /* gamma of each online round */
    double noise[T_ON];
} data;

/* A (d x d) block-diagonal factor in U coordinates: z = A g, the entries
   of a block of s coordinates uniform in [0.1, 1) / sqrt(0.37 s d), so
   that E ||x||^2 = 1 on average over draws (E (0.1 + 0.9 u)^2 = 0.37). */
static void draw_factor(isdb_rng *rng, const instance *in, double *A) {
    int b, i, j, o = 0, d = in->d;
    memset(A, 0, (size_t)(d * d) * sizeof *A);
    for (b = 0; b < in->n_blocks; ++b) {
        double scale = 1.0 / sqrt(0.37 * in->sizes[b] * d);
        for (i = 0; i < in->sizes[b]; ++i)
            for (j = 0; j < in->sizes[b]; ++j)
                A[(o + i) * d + o + j] = scale * (0.1 + 0.9 * isdb_rng_uniform(rng));
        o += in->sizes[b];
    }
}

/* x = U A g, g standard normal. */
static void draw_feature(isdb_rng *rng, int d, const double *U, const double *A, double *x) {
    double g[MAXD], z[MAXD];
    int i, j;
    for (i = 0; i < d; ++i) g[i] = isdb_rng_normal(rng);
    for (i = 0; i < d; ++i) {
        z[i] = 0.0;
        for (j = 0; j < d; ++j) z[i] += A[i * d + j] * g[j];
    }
    for (i = 0; i < d; ++i) {
        x[i] = 0.0;
        for (j = 0; j < d; ++j) x[i] += U[i * d + j] * z[j];
    }
}

/* A random vector of norm r on coordinates lo..hi-1 of v (the rest 0). */
static void random_on(isdb_rng *rng, int d, int lo, int hi, double r, double *v) {
    double n;
    int i;
    do {
        n = 0.0;
        for (i = 0; i < d; ++i) v[i] = i >= lo && i < hi ? isdb_rng_normal(rng) : 0.0;
        for (i = lo; i < hi; ++i) n += v[i] * v[i];
    } while (hi > lo && n < 1e-12);
    if (hi > lo)
        for (i = lo; i < hi; ++i) v[i] *= r / sqrt(n);
}

typedef struct path {
    int d, p_inv, drift, jumps;
    double b[MAXD], e1[MAXD], e2[MAXD], rho, omega, phase;
    long jump_at[16];
    double pieces[17][MAXD];
} path;

static void draw_path(isdb_rng *rng, const instance *in, path *pa) {
    const family *f = &families[in->fam];
    int d = in->d, p = in->p_inv, i, j;
    double dot = 0.0, n = 0.0;
    memset(pa, 0, sizeof *pa);
    pa->d = d;
    pa->p_inv = p;
    pa->drift = in->drift;
    pa->jumps = in->jumps;
    random_on(rng, d, 0, p, sqrt((double)p / d), pa->b);
    pa->rho = sqrt((double)(d - p) / d);
    if (in->drift == DRIFT_SMOOTH) {
        random_on(rng, d, p, d, 1.0, pa->e1);
        random_on(rng, d, p, d, 1.0, pa->e2);
        for (i = p; i < d; ++i) dot += pa->e1[i] * pa->e2[i];
        for (i = p; i < d; ++i) pa->e2[i] -= dot * pa->e1[i];
        for (i = p; i < d; ++i) n += pa->e2[i] * pa->e2[i];
        if (d - p >= 2 && n > 1e-12)
            for (i = p; i < d; ++i) pa->e2[i] /= sqrt(n);
        else
            memset(pa->e2, 0, sizeof pa->e2); /* p_res = 1: a sinusoid on e1 */
        pa->omega = 2.0 * REPRO_PI * in->turns / (double)(N0 + T_ON);
        pa->phase = 2.0 * REPRO_PI * isdb_rng_uniform(rng);
    } else if (in->drift == DRIFT_ABRUPT) {
        for (j = 0; j < in->jumps; ++j) pa->jump_at[j] = 1 + (long)isdb_rng_below(rng, N0 + T_ON - 1);
        if (f->stale_log) pa->jump_at[0] = N0;
        for (j = 1; j < in->jumps; ++j) { /* insertion sort */
            long v = pa->jump_at[j];
            for (i = j; i > 0 && pa->jump_at[i - 1] > v; --i) pa->jump_at[i] = pa->jump_at[i - 1];
            pa->jump_at[i] = v;
        }
        for (j = 0; j <= in->jumps; ++j) random_on(rng, d, p, d, pa->rho, pa->pieces[j]);
    }
}

/* gamma at round t (0..n0-1 the log, n0.. online), in U coordinates. */
static void path_at(const path *pa, long t, double *z) {
    int i, d = pa->d, j = 0;
    for (i = 0; i < d; ++i) z[i] = pa->b[i];
    if (pa->drift == DRIFT_SMOOTH) {
        double a = pa->phase + pa->omega * (double)t, c = pa->rho * cos(a), s = pa->rho * sin(a);
        for (i = pa->p_inv; i < d; ++i) z[i] += c * pa->e1[i] + s * pa->e2[i];
    } else if (pa->drift == DRIFT_ABRUPT) {
        while (j < pa->jumps && pa->jump_at[j] <= t) ++j;
        for (i = pa->p_inv; i < d; ++i) z[i] += pa->pieces[j][i];
    }
}

static void to_x(int d, const double *U, const double *z, double *x) {
    int i, j;
    for (i = 0; i < d; ++i) {
        x[i] = 0.0;
        for (j = 0; j < d; ++j) x[i] += U[i * d + j] * z[j];
    }
}

static void make_data(uint64_t family_seed, const instance *in, uint64_t seed, data *D) {
    const family *f = &families[in->fam];
    int d = in->d, i, j, k, t;
    double A[MAXD * MAXD], z[MAXD], gam[MAXD];
    path pa;
    isdb_rng rng;
    isdb_rng_seed(&rng, mix(mix(mix(family_seed, (uint64_t)in->fam + 1), (uint64_t)in->idx + 101), seed));
    D->d = d;
    /* The basis: identity, or Gram-Schmidt on Gaussian columns. */
    memset(D->U, 0, sizeof D->U);
    for (i = 0; i < d; ++i) D->U[i * d + i] = 1.0;
    if (f->rotated) {
        for (j = 0; j < d; ++j) {
            double n;
            do {
                for (i = 0; i < d; ++i) D->U[i * d + j] = isdb_rng_normal(&rng);
                for (k = 0; k < j; ++k) {
                    double dot = 0.0;
                    for (i = 0; i < d; ++i) dot += D->U[i * d + j] * D->U[i * d + k];
                    for (i = 0; i < d; ++i) D->U[i * d + j] -= dot * D->U[i * d + k];
                }
                n = 0.0;
                for (i = 0; i < d; ++i) n += D->U[i * d + j] * D->U[i * d + j];
            } while (n < 1e-8);
            for (i = 0; i < d; ++i) D->U[i * d + j] /= sqrt(n);
        }
    }
    draw_path(&rng, in, &pa);
    /* The log: the covariance redrawn every N0 / LOG_PERIODS rows. */
    for (t = 0; t < N0; ++t) {
        double *x = D->X0 + t * d, m = 0.0;
        if (t == 0 || (!f->log_constant && t % (N0 / LOG_PERIODS) == 0)) draw_factor(&rng, in, A);
        draw_feature(&rng, d, D->U, A, x);
        path_at(&pa, t, z);
        to_x(d, D->U, z, gam);
        for (i = 0; i < d; ++i) m += x[i] * gam[i];
        D->R0[t] = m + in->noise * isdb_rng_normal(&rng);
    }
    /* Online: one fresh covariance (the log's with a constant log). */
    if (!f->log_constant) draw_factor(&rng, in, A);
    for (t = 0; t < T_ON; ++t) {
        for (k = 0; k < K_ARMS; ++k) draw_feature(&rng, d, D->U, A, D->arms + (t * K_ARMS + k) * d);
        path_at(&pa, N0 + t, z);
        to_x(d, D->U, z, D->gamma + t * d);
        D->noise[t] = in->noise * isdb_rng_normal(&rng);
    }
}

/* ---- policies ------------------------------------------------------------ */

enum { P_ISD, P_ADAPTIVE, P_LINUCB, P_SW0, N_POL = P_SW0 + GRID };

typedef union any_policy {
    isdb_policy base;
    isdb_linucb linucb;
    isdb_swucb swucb;
    isdb_adaptive adaptive;
    isdb_isd isd;
} any_policy;

static int window_of(int g) { return (int)floor(50.0 * pow((double)T_ON / 50.0, g / (GRID - 1.0)) + 0.5); }

static void policy_name(int k, char *buf, size_t cap) {
    static const char *const names[P_SW0] = {"isd", "adaptive", "linucb"};
    if (k < P_SW0)
        snprintf(buf, cap, "%s", names[k]);
    else
        snprintf(buf, cap, "swucb w=%d", window_of(k - P_SW0));
}

static isdb_result make_linucb(int d, double noise, any_policy *p) {
    isdb_linucb_config c = isdb_linucb_config_init(d, K_ARMS);
    c.R = noise;
    return isdb_linucb_init(&c, NULL, &p->linucb);
}

/* --no-guard, --no-warm-start: ISD with that default off, to measure it;
   --honest-bounds: ISD told the true bounds L and S as well. */
static int no_guard, no_warm_start, honest_bounds;

/* *isd_refused: ISD's init refused the log (then LinUCB is returned). */
static isdb_result make_policy(int k, const instance *in, const data *D, any_policy *p, int *isd_refused) {
    int d = in->d;
    if (k == P_ISD) {
        isdb_isd_config c = isdb_isd_config_init(d, K_ARMS, N0, D->X0, D->R0);
        isdb_result r;
        ISD_SET_NOISE(c, in->noise);
        if (no_guard) c.guard = 0;
        if (no_warm_start) c.warm_start = 0;
        if (honest_bounds) {
            /* what a user who answers truthfully gives: L the log's largest
               ||x||, S the largest ||gamma_t|| (1 in every family) */
            int t, j;
            double l2 = 0.0;
            for (t = 0; t < N0; ++t) {
                double n2 = 0.0;
                for (j = 0; j < d; ++j) n2 += D->X0[t * d + j] * D->X0[t * d + j];
                if (n2 > l2) l2 = n2;
            }
            c.L = sqrt(l2);
            c.S = 1.0;
        }
        r = isdb_isd_init(&c, NULL, &p->isd);
        *isd_refused = r != ISDB_OK;
        if (r == ISDB_OK) return r;
        return make_linucb(d, in->noise, p);
    }
    if (k == P_ADAPTIVE) {
        isdb_adaptive_config c = isdb_adaptive_config_init(d, K_ARMS);
        c.R = in->noise;
        return isdb_adaptive_init(&c, NULL, &p->adaptive);
    }
    if (k == P_LINUCB) return make_linucb(d, in->noise, p);
    {
        isdb_swucb_config c = isdb_swucb_config_init(d, K_ARMS, window_of(k - P_SW0));
        c.R = in->noise;
        return isdb_swucb_init(&c, NULL, &p->swucb);
    }
}

static double run_policy(isdb_policy *p, const data *D, double *secs) {
    int d = D->d, t, k, arm;
    double regret = 0.0;
    clock_t c0 = clock();
    for (t = 0; t < T_ON; ++t) {
        const double *X = D->arms + t * K_ARMS * d, *g = D->gamma + t * d;
        double best = -HUGE_VAL, mean[K_ARMS];
        for (k = 0; k < K_ARMS; ++k) {
            int i;
            mean[k] = 0.0;
            for (i = 0; i < d; ++i) mean[k] += X[k * d + i] * g[i];
            if (mean[k] > best) best = mean[k];
        }
        if (isdb_policy_select(p, X, K_ARMS, &arm) != ISDB_OK) return -1.0;
        regret += best - mean[arm];
        if (isdb_policy_update(p, arm, X + arm * d, mean[arm] + D->noise[t]) != ISDB_OK) return -1.0;
    }
    *secs += (double)(clock() - c0) / CLOCKS_PER_SEC;
    return regret;
}

/* ---- one instance -------------------------------------------------------- */

typedef struct outcome {
    double mean[N_POL], se[N_POL], us[N_POL];
    int refused;          /* seeds whose log ISD's init refused */
    int fallbacks;        /* seeds where ISD fell back to all d dimensions */
    int switches;         /* of which the guard's switches */
    double p_inv_found;   /* mean p_inv of the init fit (fitted seeds) */
    double inv_called_res; /* mean share of S_inv called drifting */
    double res_called_inv; /* mean share of S_res called invariant */
    int wrong;            /* fits whose invariant subspace is off by more than 0.5 dimension */
    int unidentifiable;   /* fits whose log's covariance did not vary (info.identifiable 0) */
    /* The same shares from the same log, for the block test treating the
       fitted basis as exact (est.basis_error 0) and given the true basis
       and blocks (the floor any fitted basis can reach). */
    double exact_inv_res, exact_res_inv, true_inv_res, true_res_inv;
} outcome;

/* The shares of the true invariant subspace called drifting and of the
   drifting one called invariant, from tr = tr(P_true P^) and the p_found
   dimensions called invariant. */
static void shares(int d, int p, double p_found, double tr, double *inv_res, double *res_inv) {
    *inv_res += p > 0 ? fmax(0.0, p - tr) / p : 0.0;
    *res_inv += d - p > 0 ? fmax(0.0, p_found - tr) / (d - p) : 0.0;
}

/* What the init fit decided, beside the truth (U's first p_inv columns). */
static void fit_errors(isdb_isd *pol, const instance *in, const data *D, double *inv_res, double *res_inv,
                       int *p_found, int *wrong) {
    static double P[MAXD * MAXD];
    int d = in->d, p = in->p_inv, i, j, k;
    double tr = 0.0, pf;
    isdb_isd_get_projector(pol, 0, P);
    *p_found = isdb_isd_get_p_inv(pol);
    pf = (double)*p_found;
    /* tr(P_true P^) = sum over the true invariant columns u of u^T P^ u. */
    for (k = 0; k < p; ++k)
        for (i = 0; i < d; ++i)
            for (j = 0; j < d; ++j) tr += D->U[i * d + k] * P[i * d + j] * D->U[j * d + k];
    *inv_res = *res_inv = 0.0;
    shares(d, p, pf, tr, inv_res, res_inv);
    *wrong = (p - tr) > 0.5 || (pf - tr) > 0.5;
}

/* tr(P_true P^) for P^ the projector on the first q columns of F. */
static double overlap(int d, int p, const double *U, const double *F, int q) {
    double tr = 0.0;
    int k, c, i;
    for (k = 0; k < p; ++k)
        for (c = 0; c < q; ++c) {
            double dot = 0.0;
            for (i = 0; i < d; ++i) dot += U[i * d + k] * F[i * d + c];
            tr += dot * dot;
        }
    return tr;
}

/* The block test's shares on D's log: with est.basis_error 0 (the fitted
   basis taken as exact), and given the true basis and blocks
   (isdb_isd_block_test). */
static int other_tests(const instance *in, const data *D, outcome *out) {
    isdb_isd_options o = isdb_isd_config_init(in->d, K_ARMS, N0, D->X0, D->R0).est;
    double U[MAXD * MAXD], beta[MAXD], stat[MAXD], pv[MAXD], *work;
    int sizes[MAXD], inv[MAXD], d = in->d, p = in->p_inv, b, off, miss_inv = 0, miss_res = 0;
    isdb_isd_fit fit;
    o.basis_error = 0;
    if (!(work = (double *)malloc(isdb_isd_estimate_work_size(d, N0, &o) * sizeof(double)))) return 1;
    fit.U = U;
    fit.beta_inv = beta;
    fit.stat = stat;
    fit.pvalue = pv;
    fit.sizes = sizes;
    fit.invariant = inv;
    if (isdb_isd_estimate(d, N0, D->X0, D->R0, &o, &fit, work) < 0) return free(work), 1;
    shares(d, p, fit.p_inv, overlap(d, p, D->U, U, fit.p_inv), &out->exact_inv_res, &out->exact_res_inv);
    if (isdb_isd_block_test(d, N0, D->X0, D->R0, D->U, in->sizes, in->n_blocks, &o, pv, work) < 0)
        return free(work), 1;
    for (b = 0, off = 0; b < in->n_blocks; off += in->sizes[b++]) {
        int called_inv = pv[b] > o.level;
        if (off < p && !called_inv) miss_inv += in->sizes[b];
        if (off >= p && called_inv) miss_res += in->sizes[b];
    }
    shares(d, p, p - miss_inv + miss_res, p - miss_inv, &out->true_inv_res, &out->true_res_inv);
    free(work);
    return 0;
}

static int run_instance(uint64_t family_seed, int s, int seeds, outcome *out) {
    instance in;
    data *D = (data *)malloc(sizeof(data));
    double *regret = (double *)calloc((size_t)N_POL * MAX_SEEDS, sizeof(double));
    double secs[N_POL] = {0};
    int k, i, fitted = 0;
    if (!D || !regret) return 1;
    memset(out, 0, sizeof *out);
    draw_instance(family_seed, s / N_INST, s % N_INST, &in);
    for (i = 0; i < seeds; ++i) {
        make_data(family_seed, &in, (uint64_t)i + 1, D);
        for (k = 0; k < N_POL; ++k) {
            any_policy p;
            int refused = 0;
            double r;
            if (make_policy(k, &in, D, &p, &refused) != ISDB_OK) return 1;
            if (k == P_ISD) {
                if (refused) {
                    ++out->refused;
                } else {
                    double a, b;
                    int pf, w;
                    fit_errors(&p.isd, &in, D, &a, &b, &pf, &w);
                    out->inv_called_res += a;
                    out->res_called_inv += b;
                    out->p_inv_found += pf;
                    out->wrong += w;
                    if (other_tests(&in, D, out)) return 1;
                    ++fitted;
                    {
                        isdb_isd_info info0;
                        isdb_isd_get_info(&p.isd, &info0);
                        out->unidentifiable += info0.identifiable == 0;
                    }
                }
            }
            r = run_policy(&p.base, D, &secs[k]);
            if (r < 0.0) return 1;
            if (k == P_ISD && !refused) {
                isdb_isd_info info;
                isdb_isd_get_info(&p.isd, &info);
                out->fallbacks += info.fallback;
                out->switches += info.guard_switched;
            }
            regret[k * MAX_SEEDS + i] = r;
            isdb_policy_uninit(&p.base);
        }
    }
    if (fitted) {
        out->inv_called_res /= fitted;
        out->res_called_inv /= fitted;
        out->exact_inv_res /= fitted;
        out->exact_res_inv /= fitted;
        out->true_inv_res /= fitted;
        out->true_res_inv /= fitted;
        out->p_inv_found /= fitted;
    }
    for (k = 0; k < N_POL; ++k) {
        repro_mean_se(regret + k * MAX_SEEDS, seeds, &out->mean[k], &out->se[k]);
        out->us[k] = 1e6 * secs[k] / ((double)seeds * T_ON);
    }
    free(regret);
    free(D);
    return 0;
}

/* Each instance is one job of fork_jobs. */
typedef struct run_ctx {
    uint64_t family_seed;
    int seeds;
    outcome *out;
} run_ctx;

static int run_job(int s, void *ctx) {
    run_ctx *c = (run_ctx *)ctx;
    return run_instance(c->family_seed, s, c->seeds, &c->out[s]);
}

static void *job_result(int s, size_t *size, void *ctx) {
    *size = sizeof(outcome);
    return &((run_ctx *)ctx)->out[s];
}

static void job_done(int s, void *ctx) {
    (void)ctx;
    fprintf(stderr, "  %s #%d done\n", families[s / N_INST].name, s % N_INST);
}

static int run_all(uint64_t family_seed, int seeds, int jobs, const int *use, outcome *out) {
    run_ctx c;
    fork_jobs_spec sp;
    c.family_seed = family_seed;
    c.seeds = seeds;
    c.out = out;
    sp.n = N_SCEN;
    sp.order = NULL;
    sp.use = use;
    sp.run = run_job;
    sp.result = job_result;
    sp.done = job_done;
    sp.ctx = &c;
    return fork_jobs(&sp, jobs);
}

/* ---- report -------------------------------------------------------------- */

/* Families a-c's shares in column col (the default test, the basis taken
   as exact, the true basis), as "x% / y% / z%". */
static void print_shares(double (*s)[3], int col) {
    printf("%.0f%% / %.0f%% / %.0f%%", 100 * s[0][col], 100 * s[1][col], 100 * s[2][col]);
}

static int best_sw(const outcome *o) {
    int k, best = P_SW0;
    for (k = P_SW0; k < N_POL; ++k)
        if (o->mean[k] < o->mean[best]) best = k;
    return best;
}

static void write_csv(const char *dir, uint64_t family_seed, const int *use, int seeds, const outcome *out) {
    FILE *f = repro_open_in(dir, "isd_practice.csv");
    int s, k;
    if (!f) return;
    fprintf(f, "family,instance,d,p_inv,drift,noise,T,seeds,policy,mean_regret,std_err,us_per_round\n");
    for (s = 0; s < N_SCEN; ++s) {
        instance in;
        static const char *const drifts[] = {"none", "smooth", "abrupt"};
        if (!use[s]) continue;
        draw_instance(family_seed, s / N_INST, s % N_INST, &in);
        for (k = 0; k < N_POL; ++k) {
            char name[64];
            policy_name(k, name, sizeof name);
            fprintf(f, "%s,%d,%d,%d,%s,%g,%d,%d,%s,%.6g,%.6g,%.4g\n", families[in.fam].name, in.idx, in.d,
                    in.p_inv, drifts[in.drift], in.noise, T_ON, seeds, name, out[s].mean[k], out[s].se[k],
                    out[s].us[k]);
        }
    }
    fclose(f);
    fprintf(stderr, "isd_practice: wrote %s/isd_practice.csv\n", dir);
    if (!(f = repro_open_in(dir, "isd_practice_fit.csv"))) return;
    fprintf(f, "family,instance,d,p_inv,seeds,refused,p_inv_found,inv_called_drifting,drifting_called_inv,"
               "wrong_fits,fallbacks,guard_switches,exact_basis_inv_called_drifting,exact_basis_drifting_called_inv,"
               "true_basis_inv_called_drifting,true_basis_drifting_called_inv\n");
    for (s = 0; s < N_SCEN; ++s) {
        instance in;
        if (!use[s]) continue;
        draw_instance(family_seed, s / N_INST, s % N_INST, &in);
        fprintf(f, "%s,%d,%d,%d,%d,%d,%.4g,%.4g,%.4g,%d,%d,%d,%.4g,%.4g,%.4g,%.4g\n", families[in.fam].name, in.idx,
                in.d, in.p_inv, seeds, out[s].refused, out[s].p_inv_found, out[s].inv_called_res,
                out[s].res_called_inv, out[s].wrong, out[s].fallbacks, out[s].switches, out[s].exact_inv_res,
                out[s].exact_res_inv, out[s].true_inv_res, out[s].true_res_inv);
    }
    fclose(f);
    fprintf(stderr, "isd_practice: wrote %s/isd_practice_fit.csv\n", dir);
}

int main(int argc, char **argv) {
    static outcome out[N_SCEN];
    int use[N_SCEN], s, i, f, seeds = 20, quick = 0, jobs = 0, only = -1;
    double fam_isd_adapt[N_FAM], fam_isd_lin[N_FAM], fam_worst_adapt[N_FAM];
    double fam_ir[N_FAM][3], fam_ri[N_FAM][3]; /* shares: the default test, basis taken as exact, true basis */
    const char *out_dir = NULL;
    uint64_t family_seed = 1;
    time_t start = time(NULL);
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
            seeds = 3;
        } else if (strcmp(argv[i], "--seeds") == 0 && i + 1 < argc) {
            seeds = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) {
            jobs = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out_dir = argv[++i];
        } else if (strcmp(argv[i], "--no-guard") == 0) {
            no_guard = 1;
        } else if (strcmp(argv[i], "--no-warm-start") == 0) {
            no_warm_start = 1;
        } else if (strcmp(argv[i], "--honest-bounds") == 0) {
            honest_bounds = 1;
        } else if (strcmp(argv[i], "--family-seed") == 0 && i + 1 < argc) {
            family_seed = (uint64_t)strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--family") == 0 && i + 1 < argc) {
            const char *name = argv[++i];
            for (f = 0; f < N_FAM; ++f)
                if (strncmp(families[f].name, name, strlen(name)) == 0) break;
            if (f == N_FAM) {
                fprintf(stderr, "%s: unknown family '%s'\n", argv[0], name);
                return 2;
            }
            only = f;
        } else {
            int help = strcmp(argv[i], "--help") == 0;
            fprintf(help ? stdout : stderr,
                    "usage: %s [--quick] [--seeds N] [--jobs N] [--family NAME] [--family-seed N] [--no-guard]\n"
                    "       [--no-warm-start] [--honest-bounds] [--out DIR]\n"
                    "ISD-linUCB with its defaults (told the noise scale) on logs it was not tuned for, beside\n"
                    "adaptive, LinUCB and a tuned SW-UCB grid; n0 = %d logged rows, T = %d, K = %d; see the source.\n",
                    argv[0], N0, T_ON, K_ARMS);
            for (f = 0; f < N_FAM; ++f)
                fprintf(help ? stdout : stderr, "  %-20s %s\n", families[f].name, families[f].about);
            return help ? 0 : 2;
        }
    }
    if (seeds < 1 || seeds > MAX_SEEDS) {
        fprintf(stderr, "%s: --seeds wants 1 to %d\n", argv[0], MAX_SEEDS);
        return 2;
    }
    if (jobs < 1) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = n > 0 ? (int)n : 1;
    }
    for (s = 0; s < N_SCEN; ++s)
        use[s] = (only < 0 || s / N_INST == only) && (!quick || (s % N_INST) % 3 == 0);
    fprintf(stderr, "isd_practice: %d families, %d instances each, %d seeds, %d at a time\n",
            only < 0 ? N_FAM : 1, quick ? 2 : N_INST, seeds, jobs);
    if (run_all(family_seed, seeds, jobs, use, out) != 0) {
        fprintf(stderr, "%s: an instance failed\n", argv[0]);
        return 1;
    }
    printf("ISD-linUCB with isdb_isd_config_init defaults, told only the noise scale; n0 = %d logged rows,\n"
           "T = %d online rounds, K = %d; mean final pseudo-regret over %d seeds (family seed %lu).\n"
           "Adaptive, LinUCB and SW-UCB run online only; best SW = the best of %d windows 50..T, in hindsight.\n",
           N0, T_ON, K_ARMS, seeds, (unsigned long)family_seed, GRID);
    for (f = 0; f < N_FAM; ++f) {
        int n = 0, refused = 0, fallbacks = 0, switches = 0, wrong = 0, unid = 0;
        double la = 0.0, ll = 0.0, lb = 0.0, worst = 0.0, ir = 0.0, ri = 0.0, eir = 0.0, eri = 0.0, tir = 0.0,
               tri = 0.0;
        fam_isd_adapt[f] = fam_isd_lin[f] = fam_worst_adapt[f] = 0.0;
        for (s = f * N_INST; s < (f + 1) * N_INST; ++s)
            if (use[s]) ++n;
        if (!n) continue;
        printf("\n### %s: %s\n\n", families[f].name, families[f].about);
        printf("| instance | isd | adaptive | linucb | best SW (w) | isd/adaptive | isd/linucb | adaptive/best SW |\n");
        printf("|---|---|---|---|---|---|---|---|\n");
        for (s = f * N_INST; s < (f + 1) * N_INST; ++s) {
            instance in;
            char label[96];
            int b;
            double ra, rl, rb;
            if (!use[s]) continue;
            draw_instance(family_seed, f, s % N_INST, &in);
            instance_label(&in, label, sizeof label);
            b = best_sw(&out[s]);
            ra = out[s].mean[P_ISD] / out[s].mean[P_ADAPTIVE];
            rl = out[s].mean[P_ISD] / out[s].mean[P_LINUCB];
            rb = out[s].mean[P_ADAPTIVE] / out[s].mean[b];
            printf("| %s | %.0f | %.0f | %.0f | %.0f (%d) | %.2f | %.2f | %.2f |\n", label, out[s].mean[P_ISD],
                   out[s].mean[P_ADAPTIVE], out[s].mean[P_LINUCB], out[s].mean[b], window_of(b - P_SW0), ra, rl, rb);
            la += log(ra);
            ll += log(rl);
            lb += log(rb);
            if (ra > worst) worst = ra;
            refused += out[s].refused;
            fallbacks += out[s].fallbacks;
            switches += out[s].switches;
            wrong += out[s].wrong;
            unid += out[s].unidentifiable;
            ir += out[s].inv_called_res;
            ri += out[s].res_called_inv;
            eir += out[s].exact_inv_res;
            eri += out[s].exact_res_inv;
            tir += out[s].true_inv_res;
            tri += out[s].true_res_inv;
        }
        fam_ir[f][0] = ir / n;
        fam_ri[f][0] = ri / n;
        fam_ir[f][1] = eir / n;
        fam_ri[f][1] = eri / n;
        fam_ir[f][2] = tir / n;
        fam_ri[f][2] = tri / n;
        fam_isd_adapt[f] = exp(la / n);
        fam_isd_lin[f] = exp(ll / n);
        fam_worst_adapt[f] = worst;
        printf("| geometric mean | | | | | %.2f | %.2f | %.2f |\n", fam_isd_adapt[f], fam_isd_lin[f], exp(lb / n));
        printf("\nISD fit (%s): init refused %d of %d logs (a refused log runs LinUCB); invariant subspace called "
               "drifting %.0f%%, drifting subspace called invariant %.0f%% (means over the fitted logs); "
               "%d of %d fits off by more than half a dimension; fell back to all d dimensions in %d runs (to the "
               "guard's learner in %d); log unidentifiable (window covariances constant) in %d of %d fits; "
               "the block test on the same logs treating the fitted basis as exact: %.0f%%, %.0f%%; given the "
               "true basis and blocks: %.0f%%, %.0f%%\n",
               families[f].name, refused, n * seeds, 100.0 * ir / n, 100.0 * ri / n, wrong, n * seeds - refused,
               fallbacks, switches, unid, n * seeds - refused, 100.0 * eir / n, 100.0 * eri / n, 100.0 * tir / n,
               100.0 * tri / n);
        for (s = f * N_INST; s < (f + 1) * N_INST; ++s) {
            instance in;
            if (!use[s]) continue;
            draw_instance(family_seed, f, s % N_INST, &in);
            printf("  d=%d p_inv=%d: p_inv found %.2f (mean), invariant called drifting %.0f%%, drifting called "
                   "invariant %.0f%%, refused %d, fallbacks %d (guard %d)\n",
                   in.d, in.p_inv, out[s].p_inv_found, 100.0 * out[s].inv_called_res,
                   100.0 * out[s].res_called_inv, out[s].refused, out[s].fallbacks, out[s].switches);
        }
    }
    printf("\nEvery policy, mean regret +- standard error (microseconds per round):\n");
    for (s = 0; s < N_SCEN; ++s) {
        int k;
        if (!use[s]) continue;
        printf("  %s #%d:", families[s / N_INST].name, s % N_INST);
        for (k = 0; k < N_POL; ++k) {
            char name[64];
            policy_name(k, name, sizeof name);
            printf("%s %s %.1f+-%.1f (%.1f us)", k ? "," : "", name, out[s].mean[k], out[s].se[k], out[s].us[k]);
        }
        printf("\n");
    }
    printf("\n");
    {
        /* Families a-c: the geometric mean over their instances. */
        double l = 0.0;
        int n = 0;
        for (s = 0; s < 3 * N_INST; ++s)
            if (use[s]) l += log(out[s].mean[P_ISD] / out[s].mean[P_ADAPTIVE]), ++n;
        if (n) {
            double g = exp(l / n);
            printf("claim: isd-practice: invariant part and drifting rest (a-c), ISD / adaptive geometric mean %.2f "
                   "over %d instances (target <= 0.8) %s\n",
                   g, n, g <= 0.8 ? "holds" : "fails");
        }
        if (fam_isd_adapt[3] > 0.0 || fam_isd_adapt[5] > 0.0) {
            double m = fam_isd_adapt[3] > fam_isd_adapt[5] ? fam_isd_adapt[3] : fam_isd_adapt[5];
            double w = fam_worst_adapt[3] > fam_worst_adapt[5] ? fam_worst_adapt[3] : fam_worst_adapt[5];
            printf("claim: isd-practice: nothing invariant (d) and unidentifiable log (f), ISD / adaptive %.2f "
                   "(d %.2f, f %.2f; geometric means over instances, worst instance %.2f) (target <= 1.1) %s\n",
                   m, fam_isd_adapt[3], fam_isd_adapt[5], w, m <= 1.1 ? "holds" : "fails");
        }
        if (fam_isd_lin[4] > 0.0)
            printf("claim: isd-practice: stationary (e), ISD / LinUCB %.2f (geometric mean over instances) "
                   "(target <= 1.0) %s\n",
                   fam_isd_lin[4], fam_isd_lin[4] <= 1.0 ? "holds" : "fails");
        /* The block test (a-c): invariant coordinates kept, and no more
           drifting ones called invariant than when the fitted basis is
           taken as exact (the test given the true basis shows the log's
           own limit). */
        if (fam_isd_adapt[0] > 0.0 && fam_isd_adapt[1] > 0.0 && fam_isd_adapt[2] > 0.0) {
            int ok_ir = 1, ok_ri = 1;
            for (f = 0; f < 3; ++f) {
                ok_ir = ok_ir && fam_ir[f][0] <= 0.10;
                ok_ri = ok_ri && fam_ri[f][0] <= fam_ri[f][1] + 0.02;
            }
            printf("claim: isd-practice: block test, invariant subspace called drifting (a-c) ");
            print_shares(fam_ir, 0);
            printf(" (target <= 10%% each; treating the fitted basis as exact ");
            print_shares(fam_ir, 1);
            printf(", given the true basis ");
            print_shares(fam_ir, 2);
            printf(") %s\n", ok_ir ? "holds" : "fails");
            printf("claim: isd-practice: block test, drifting subspace called invariant (a-c) ");
            print_shares(fam_ri, 0);
            printf(" (target: at most 2 points above the test treating the fitted basis as exact, ");
            print_shares(fam_ri, 1);
            printf("; given the true basis ");
            print_shares(fam_ri, 2);
            printf(", the log's own limit) %s\n", ok_ri ? "holds" : "fails");
        }
        /* Not an issue target: what ISD costs when the log's residual part
           no longer holds (the warm start's risk). */
        if (fam_isd_adapt[6] > 0.0)
            printf("isd-practice: stale log (g), ISD / adaptive %.2f (geometric mean over instances, worst instance "
                   "%.2f; reported, no target)\n",
                   fam_isd_adapt[6], fam_worst_adapt[6]);
    }
    if (out_dir) write_csv(out_dir, family_seed, use, seeds, out);
    fprintf(stderr, "isd_practice: %ld s\n", (long)(time(NULL) - start));
    return 0;
}

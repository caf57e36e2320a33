/* repro_opkb: the experiments of Hong, Li, Tewari (AISTATS 2023), section 6
   and Appendix J.3, with ADA-OPKB against the two baselines the paper
   compares with, sliding-window GP-UCB (Zhou and Shroff) and discounted
   GP-UCB (WGPUCB, Deng et al.), both written here.

   Environments (T = 10^4, 25 seeds; each seed draws its own arm set and
   reward function, and every algorithm sees the same noise stream):
     Env 1      100 arms on the 10-sphere, reward m ~ GP(0, RBF 0.2) scaled
                to max |m| = 0.8, sign flipped from round 3000 (0-based)
     Env 2      the same with flips at 1500 and 5000
     cosine     0.8 cos(3 x.theta + phase(t)), phase 0 until 1000, linear to
                pi at 3000, pi until 4000, linear to 2 pi at 6000 (App. J.3)
     stationary Env 1 without the switch (ADA-OPKB only: false restarts)
   Noise N(0, 0.1^2) truncated to keep |y| <= 1 (the authors' code).

   Settings (spec section 5; where the spec's code values and the paper's
   text differ, the paper's):
     ADA-OPKB   the authors' tuned scales (ISDB_OPKB_TUNED: sigma 100, ...)
                and their constant threshold of test (8) (test CONSTANT,
                c0_scale 0.005), RBF 0.2 (Env 1, 2, the true kernel) and
                RBF 1 (cosine, the authors' config; the paper does not say)
     ADA-OPKB calibrated  the same with the library's default test
                (CALIBRATED: the threshold from the estimates' variances,
                bench/calib_opkb.c)
     SW-GPUCB   lambda 20 (ridge 1/20), v 0.01, window 3000 (the paper; the
                code's Env 2 and cosine configs say 2000), delta 1e-4,
                beta_t = v (1 + sqrt(2 (gamma_min(t,W) / 2 + 1 + ln(1/delta))))
     WGPUCB     lambda 0.01, discount 0.9995 (the paper; the code 0.9996),
                beta_t = 0.8 + 0.1 sqrt(2 (gamma_t + ln(1/delta))), score
                mu + 0.5 beta_t sigma
   Both baselines use RBF 0.2, the Cholesky features of K, sigma^2(x) =
   lambda phi^T G^-1 phi, and the information gain of the authors' code,
   gamma_t = ln det(I + t/lambda M(pi_t)) / 2 at the design pi_t for
   lambda/t, interpolated between powers of two. The window is exact (the
   authors' code removes old rounds with a wrong-signed Sherman-Morrison
   step; not reproduced).

   Prints the tables, writes CSV and SVG into --out DIR, and ends with the
   claim lines. --quick: 5 seeds. The CSV/SVG/argument helpers are its
   own; pi and the dot product are bench/repro_common.h's. */
#define _POSIX_C_SOURCE 199309L
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "repro_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>



#define T_ROUNDS 10000
#define N_ARMS 100
#define DIM 10
#define MAX_SEEDS 25
#define EVERY 100 /* curve resolution */
#define N_POINTS (T_ROUNDS / EVERY)

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "repro_opkb: out of memory\n");
        exit(1);
    }
    return p;
}

/* ---- GP-UCB baselines ------------------------------------------------------- */

/* Information gain of the authors' code: gamma_t = ln det(I + t/lam M(pi))/2
   with pi the design for lambda = lam / t, at t = 1, 2, 4, ..., and T,
   interpolated linearly in between. */
typedef struct info_gain {
    double at[20], value[20];
    int n;
} info_gain;

static void info_gain_init(info_gain *g, const double *Phi, int n, double lam, double T, double *x, double *work) {
    double t = 1.0;
    isdb_opkb_solve_info info;
    g->n = 0;
    for (;;) {
        double lt = lam / t;
        isdb_opkb_solve(n, n, Phi, NULL, lt, NULL, 1e-9, 200, x, &info, work);
        g->at[g->n] = t;
        g->value[g->n] = 0.5 * (-info.objective - (double)n * log(lt));
        g->n++;
        if (t >= T) break;
        t = 2.0 * t < T ? 2.0 * t : T;
    }
}

static double info_gain_get(const info_gain *g, double t) {
    int k;
    if (t <= g->at[0]) return g->value[0];
    for (k = 1; k < g->n; ++k)
        if (t <= g->at[k]) {
            double w = (t - g->at[k - 1]) / (g->at[k] - g->at[k - 1]);
            return g->value[k - 1] * (1.0 - w) + g->value[k] * w;
        }
    return g->value[g->n - 1];
}

/* Sliding-window GP-UCB in arm space: M = Phi G^-1 Phi^T with G = (1/lam) I
   + sum over the window of phi phi^T, kept by Sherman-Morrison steps (add
   phi_a: M -= m_a m_a^T / (1 + M_aa); remove: M += m_b m_b^T / (1 - M_bb))
   and rebuilt exactly by Cholesky every 500 rounds. mean = M z (z: reward
   sums per arm in the window), sigma^2 = lam diag(M). */
typedef struct swgp {
    int n, window;
    double lam, v, delta;
    const double *Phi;
    double *M, *z, *col, *G, *tmp;
    int *arm_hist;
    double *y_hist;
    info_gain gain;
} swgp;

static void swgp_rebuild(swgp *s, int t) {
    int n = s->n, i, j, k, from = t - s->window > 0 ? t - s->window : 0;
    double *G = s->G;
    for (i = 0; i < n * n; ++i) G[i] = 0.0;
    for (i = 0; i < n; ++i) G[i * n + i] = 1.0 / s->lam;
    for (k = from; k < t; ++k) {
        const double *f = s->Phi + s->arm_hist[k] * n;
        for (i = 0; i < n; ++i)
            for (j = 0; j <= i; ++j) G[i * n + j] += f[i] * f[j];
    }
    isdb_chol(n, G);
    /* M = (L^-1 Phi^T)^T (L^-1 Phi^T). */
    for (i = 0; i < n; ++i) isdb_tri_solve(n, G, 0, s->Phi + i * n, s->tmp + i * n);
    for (i = 0; i < n; ++i)
        for (j = 0; j <= i; ++j) s->M[i * n + j] = s->M[j * n + i] = repro_dot(n, s->tmp + i * n, s->tmp + j * n);
}

static void swgp_init(swgp *s, const double *Phi, int n, double lam, double v, int window, double delta, double *x,
                      double *work) {
    s->n = n;
    s->window = window;
    s->lam = lam;
    s->v = v;
    s->delta = delta;
    s->Phi = Phi;
    s->M = (double *)xmalloc(sizeof(double) * (size_t)(n * n));
    s->G = (double *)xmalloc(sizeof(double) * (size_t)(n * n));
    s->tmp = (double *)xmalloc(sizeof(double) * (size_t)(n * n));
    s->z = (double *)xmalloc(sizeof(double) * (size_t)n);
    s->col = (double *)xmalloc(sizeof(double) * (size_t)n);
    s->arm_hist = (int *)xmalloc(sizeof(int) * T_ROUNDS);
    s->y_hist = (double *)xmalloc(sizeof(double) * T_ROUNDS);
    memset(s->z, 0, sizeof(double) * (size_t)n);
    swgp_rebuild(s, 0);
    info_gain_init(&s->gain, Phi, n, lam, (double)T_ROUNDS, x, work);
}

static void swgp_free(swgp *s) {
    free(s->M);
    free(s->G);
    free(s->tmp);
    free(s->z);
    free(s->col);
    free(s->arm_hist);
    free(s->y_hist);
}

/* Round t (0-based): the arm of largest mean + beta sigma; the first round
   plays arm 0, as the authors' code does. */
static int swgp_select(swgp *s, int t) {
    int n = s->n, i, best = 0;
    double tt = (double)(t + 1 < s->window ? t + 1 : s->window), beta, bv = -1e300;
    if (t == 0) return 0;
    beta = s->v * (1.0 + sqrt(2.0 * (info_gain_get(&s->gain, tt) / 2.0 + 1.0 + log(1.0 / s->delta))));
    for (i = 0; i < n; ++i) {
        double sd = sqrt(fmax(s->lam * s->M[i * n + i], 0.0));
        double score = repro_dot(n, s->M + i * n, s->z) + beta * sd;
        if (score > bv) {
            bv = score;
            best = i;
        }
    }
    return best;
}

static void swgp_rank_one(swgp *s, int a, double sign) {
    int n = s->n, i, j;
    double denom = 1.0 + sign * s->M[a * n + a];
    for (i = 0; i < n; ++i) s->col[i] = s->M[i * n + a];
    for (i = 0; i < n; ++i)
        for (j = 0; j < n; ++j) s->M[i * n + j] -= sign * s->col[i] * s->col[j] / denom;
}

static void swgp_update(swgp *s, int t, int a, double y) {
    s->arm_hist[t] = a;
    s->y_hist[t] = y;
    s->z[a] += y;
    swgp_rank_one(s, a, 1.0);
    if (t >= s->window) {
        int b = s->arm_hist[t - s->window];
        s->z[b] -= s->y_hist[t - s->window];
        swgp_rank_one(s, b, -1.0);
    }
    if ((t + 1) % 500 == 0) swgp_rebuild(s, t + 1);
}

/* Discounted GP-UCB in arm space: B = W + lam K^-1 with W the discounted
   play counts, so Phi G^-1 Phi^T = B^-1 for G = Phi^T W Phi + lam I
   (Phi square, K = Phi Phi^T); factored every round. mean = B^-1 z (z the
   discounted reward sums), sigma^2 = lam diag(B^-1). */
typedef struct wgp {
    int n;
    double lam, eta, delta, bound, sd, scale;
    double *Kinv, *B, *Li, *w, *z, *mu;
    info_gain gain;
} wgp;

static void wgp_init(wgp *g, const double *Phi, int n, double lam, double eta, double delta, double *x,
                     double *work) {
    int i, j;
    g->n = n;
    g->lam = lam;
    g->eta = eta;
    g->delta = delta;
    g->bound = 0.8;
    g->sd = 0.1;
    g->scale = 0.5;
    g->Kinv = (double *)xmalloc(sizeof(double) * (size_t)(n * n));
    g->B = (double *)xmalloc(sizeof(double) * (size_t)(n * n));
    g->Li = (double *)xmalloc(sizeof(double) * (size_t)(n * n));
    g->w = (double *)xmalloc(sizeof(double) * (size_t)n);
    g->z = (double *)xmalloc(sizeof(double) * (size_t)n);
    g->mu = (double *)xmalloc(sizeof(double) * (size_t)n);
    /* K^-1 = Phi^-T Phi^-1 from the triangular factor, column by column. */
    for (j = 0; j < n; ++j) {
        for (i = 0; i < n; ++i) g->mu[i] = i == j ? 1.0 : 0.0;
        isdb_tri_solve(n, Phi, 0, g->mu, g->mu);
        isdb_tri_solve(n, Phi, 1, g->mu, g->mu);
        for (i = 0; i < n; ++i) g->Kinv[i * n + j] = g->mu[i];
    }
    memset(g->w, 0, sizeof(double) * (size_t)n);
    memset(g->z, 0, sizeof(double) * (size_t)n);
    info_gain_init(&g->gain, Phi, n, lam, (double)T_ROUNDS, x, work);
}

static void wgp_free(wgp *g) {
    free(g->Kinv);
    free(g->B);
    free(g->Li);
    free(g->w);
    free(g->z);
    free(g->mu);
}

/* Round t (0-based); B = W + lam K^-1 is factored (B = L L^T) and the
   column norms of L^-1 give diag(B^-1). */
static int wgp_select(wgp *g, int t) {
    int n = g->n, i, j, k, best = 0;
    double beta, bv = -1e300, *col = g->Li;
    if (t == 0) return 0;
    for (i = 0; i < n; ++i)
        for (j = 0; j <= i; ++j) g->B[i * n + j] = g->lam * g->Kinv[i * n + j] + (i == j ? g->w[i] : 0.0);
    isdb_chol(n, g->B);
    isdb_chol_solve(n, g->B, g->z, g->mu);
    beta = g->bound + g->sd * sqrt(2.0 * (info_gain_get(&g->gain, (double)(t + 1)) + log(1.0 / g->delta)));
    for (i = 0; i < n; ++i) {
        double s2, score;
        /* col = L^-1 e_i, zero above row i. */
        col[i] = 1.0 / g->B[i * n + i];
        s2 = col[i] * col[i];
        for (k = i + 1; k < n; ++k) {
            double s = 0.0;
            const double *Lk = g->B + k * n;
            for (j = i; j < k; ++j) s -= Lk[j] * col[j];
            col[k] = s / Lk[k];
            s2 += col[k] * col[k];
        }
        score = g->mu[i] + g->scale * beta * sqrt(g->lam * s2);
        if (score > bv) {
            bv = score;
            best = i;
        }
    }
    return best;
}

/* The authors' weights: at the choice of round t, round s < t counts
   eta^(t - s), so the newest round is discounted once already. */
static void wgp_update(wgp *g, int a, double y) {
    int i;
    g->w[a] += 1.0;
    g->z[a] += y;
    for (i = 0; i < g->n; ++i) {
        g->w[i] *= g->eta;
        g->z[i] *= g->eta;
    }
}

/* ---- experiments ------------------------------------------------------------ */

/* ADA-OPKB twice: with the authors' constant test threshold (c0_scale
   0.005), and with the calibrated test of the library's default, which
   keeps false restarts under a stationary reward rare (see the claims). */
enum { ALG_ADA, ALG_ADA_C, ALG_SW, ALG_W, N_ALG };
static const char *alg_name[N_ALG] = {"ADA-OPKB", "ADA-OPKB calibrated", "SW-GPUCB", "WGPUCB"};
static const char *alg_color[N_ALG] = {"#d62728", "#9467bd", "#1f77b4", "#2ca02c"};

typedef struct env_spec {
    const char *title, *file;
    isdb_kernel_env_kind kind;
    int n_switches;
    uint64_t switch_at[2];
    double opkb_length; /* ADA-OPKB's RBF length scale */
    int n_algs;         /* 2: the two ADA-OPKB only */
} env_spec;

static const env_spec specs[] = {
    {"Env 1 (switch at 3000)", "env1", ISDB_KENV_GP_SWITCH, 1, {3000, 0}, 0.2, N_ALG},
    {"Env 2 (switches at 1500, 5000)", "env2", ISDB_KENV_GP_SWITCH, 2, {1500, 5000}, 0.2, N_ALG},
    {"slowly varying cosine", "cosine", ISDB_KENV_COSINE, 0, {0, 0}, 1.0, N_ALG},
    {"stationary Env 1", "stationary", ISDB_KENV_GP_SWITCH, 0, {0, 0}, 0.2, 2},
};
#define N_ENVS ((int)(sizeof specs / sizeof specs[0]))

typedef struct run_rec {
    double curve[N_POINTS]; /* cumulative regret after rounds EVERY, 2 EVERY, ... */
    double seconds;
    int restarts;
    long restart_at[8];     /* rounds (0-based) whose update restarted */
} run_rec;

static run_rec results[N_ENVS][N_ALG][MAX_SEEDS];

static void make_env(const env_spec *sp, int seed, isdb_kernel_env *env) {
    static const uint64_t knots[5] = {999, 999, 2999, 3999, 5999};
    static const double phases[5] = {0.0, 0.0, REPRO_PI, REPRO_PI, 2.0 * REPRO_PI};
    isdb_kernel_env_config c = isdb_kernel_env_config_init(DIM, N_ARMS);
    /* The GP environments of one seed share arms and reward vector. */
    c.seed = (uint64_t)(1 + seed) + (sp->kind == ISDB_KENV_COSINE ? 5000u : 0u);
    c.kind = sp->kind;
    c.kernel = ISDB_KERNEL_RBF;
    c.length_scale = 0.2;
    c.n_switches = sp->n_switches;
    c.switch_at = sp->switch_at;
    c.n_phase = 5;
    c.phase_at = knots;
    c.phase = phases;
    if (isdb_kernel_env_init(&c, NULL, env) != ISDB_OK) {
        fprintf(stderr, "repro_opkb: environment init failed\n");
        exit(1);
    }
}

static double best_mean(const isdb_env *e) {
    double b = e->means[0];
    int k;
    for (k = 1; k < e->n_arms; ++k)
        if (e->means[k] > b) b = e->means[k];
    return b;
}

static void run_ada(const env_spec *sp, int seed, isdb_opkb_test test, isdb_kernel_env *env, run_rec *rec) {
    isdb_opkb pol;
    isdb_opkb_config c = isdb_opkb_config_init(DIM, N_ARMS, (double)T_ROUNDS);
    double regret = 0.0, t0 = now();
    int t;
    c.arms = env->base.X;
    c.kernel = ISDB_KERNEL_RBF;
    c.length_scale = sp->opkb_length;
    c.adaptive = 1;
    c.seed = (uint64_t)(77 + seed);
    c.test = test;
    if (isdb_opkb_init(&c, NULL, &pol) != ISDB_OK) {
        fprintf(stderr, "repro_opkb: ADA-OPKB init failed\n");
        exit(1);
    }
    isdb_env_reset(&env->base);
    rec->restarts = 0;
    for (t = 0; t < T_ROUNDS; ++t) {
        int arm, epoch;
        double y;
        isdb_env_next(&env->base);
        isdb_policy_select(&pol.base, NULL, N_ARMS, &arm);
        isdb_env_reward(&env->base, arm, &y);
        regret += best_mean(&env->base) - env->base.means[arm];
        epoch = isdb_opkb_get_epoch(&pol);
        isdb_policy_update(&pol.base, arm, NULL, y);
        if (isdb_opkb_get_epoch(&pol) != epoch) {
            if (rec->restarts < 8) rec->restart_at[rec->restarts] = t;
            rec->restarts++;
        }
        if ((t + 1) % EVERY == 0) rec->curve[(t + 1) / EVERY - 1] = regret;
    }
    rec->seconds = now() - t0;
    isdb_policy_uninit(&pol.base);
}

static void run_baseline(int alg, isdb_kernel_env *env, swgp *sw, wgp *wg, run_rec *rec) {
    double regret = 0.0, t0 = now();
    int t;
    isdb_env_reset(&env->base);
    rec->restarts = 0;
    for (t = 0; t < T_ROUNDS; ++t) {
        int arm;
        double y;
        isdb_env_next(&env->base);
        arm = alg == ALG_SW ? swgp_select(sw, t) : wgp_select(wg, t);
        isdb_env_reward(&env->base, arm, &y);
        regret += best_mean(&env->base) - env->base.means[arm];
        if (alg == ALG_SW)
            swgp_update(sw, t, arm, y);
        else
            wgp_update(wg, arm, y);
        if ((t + 1) % EVERY == 0) rec->curve[(t + 1) / EVERY - 1] = regret;
    }
    rec->seconds = now() - t0;
}

static void mean_se(const double *v, int n, double *mean, double *se) {
    double m = 0.0, s = 0.0;
    int i;
    for (i = 0; i < n; ++i) m += v[i];
    m /= n;
    for (i = 0; i < n; ++i) s += (v[i] - m) * (v[i] - m);
    *mean = m;
    *se = n > 1 ? sqrt(s / (n - 1) / n) : 0.0;
}

static int cmp_long(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static FILE *open_out(const char *dir, const char *name) {
    char path[1024];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "repro_opkb: cannot write %s\n", path);
        exit(1);
    }
    return f;
}

/* Mean cumulative regret of each algorithm with a band of one standard
   error, dashed lines at the switches. */
static void write_svg(const char *dir, int e, int n_seeds) {
    const env_spec *sp = &specs[e];
    const double W = 640, H = 420, L = 70, R = 20, TOP = 40, B = 50;
    double ymax = 0.0, mean[N_ALG][N_POINTS], se[N_ALG][N_POINTS];
    char name[128];
    FILE *f;
    int a, k, s;
    for (a = 0; a < sp->n_algs; ++a)
        for (k = 0; k < N_POINTS; ++k) {
            double v[MAX_SEEDS];
            for (s = 0; s < n_seeds; ++s) v[s] = results[e][a][s].curve[k];
            mean_se(v, n_seeds, &mean[a][k], &se[a][k]);
            if (mean[a][k] + se[a][k] > ymax) ymax = mean[a][k] + se[a][k];
        }
    ymax = ymax > 0.0 ? ceil(ymax / 500.0) * 500.0 : 1.0;
    snprintf(name, sizeof name, "opkb_%s.svg", sp->file);
    f = open_out(dir, name);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H);
    fprintf(f, "<text x=\"%.0f\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">%s: mean cumulative regret, %d "
               "seeds (band: 1 s.e.)</text>\n", W / 2, sp->title, n_seeds);
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, H - B, W - R, H - B);
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L, TOP, L, H - B);
    for (k = 0; k <= 5; ++k) {
        double x = L + (W - L - R) * k / 5.0, y = H - B - (H - TOP - B) * k / 5.0;
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%d</text>\n", x, H - B + 18, 2000 * k);
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n", L - 6, y + 4, ymax * k / 5.0);
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, y, W - R, y);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">round</text>\n", (L + W - R) / 2, H - 12);
    for (k = 0; k < sp->n_switches; ++k) {
        double x = L + (W - L - R) * (double)sp->switch_at[k] / T_ROUNDS;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"gray\" stroke-dasharray=\"4,4\"/>\n", x,
                TOP, x, H - B);
    }
    for (a = 0; a < sp->n_algs; ++a) {
        fprintf(f, "<polygon fill=\"%s\" fill-opacity=\"0.2\" stroke=\"none\" points=\"", alg_color[a]);
        for (k = 0; k < N_POINTS; ++k)
            fprintf(f, "%.1f,%.1f ", L + (W - L - R) * (k + 1) / N_POINTS,
                    H - B - (H - TOP - B) * (mean[a][k] + se[a][k]) / ymax);
        for (k = N_POINTS - 1; k >= 0; --k)
            fprintf(f, "%.1f,%.1f ", L + (W - L - R) * (k + 1) / N_POINTS,
                    H - B - (H - TOP - B) * (mean[a][k] - se[a][k]) / ymax);
        fprintf(f, "\"/>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", alg_color[a]);
        for (k = 0; k < N_POINTS; ++k)
            fprintf(f, "%.1f,%.1f ", L + (W - L - R) * (k + 1) / N_POINTS, H - B - (H - TOP - B) * mean[a][k] / ymax);
        fprintf(f, "\"/>\n<text x=\"%.0f\" y=\"%.0f\" fill=\"%s\">%s</text>\n", L + 12, TOP + 16 + 16 * a, alg_color[a],
                alg_name[a]);
    }
    fprintf(f, "</svg>\n");
    fclose(f);
}

static void write_csv(const char *dir, int n_seeds) {
    FILE *f = open_out(dir, "opkb_curves.csv");
    int e, a, k, s;
    fprintf(f, "env,algorithm,round,mean_regret,se\n");
    for (e = 0; e < N_ENVS; ++e)
        for (a = 0; a < specs[e].n_algs; ++a)
            for (k = 0; k < N_POINTS; ++k) {
                double v[MAX_SEEDS], m, se;
                for (s = 0; s < n_seeds; ++s) v[s] = results[e][a][s].curve[k];
                mean_se(v, n_seeds, &m, &se);
                fprintf(f, "%s,%s,%d,%.3f,%.3f\n", specs[e].file, alg_name[a], (k + 1) * EVERY, m, se);
            }
    fclose(f);
    f = open_out(dir, "opkb_runs.csv");
    fprintf(f, "env,algorithm,seed,final_regret,seconds,restarts,restart_rounds\n");
    for (e = 0; e < N_ENVS; ++e)
        for (a = 0; a < specs[e].n_algs; ++a)
            for (s = 0; s < n_seeds; ++s) {
                const run_rec *r = &results[e][a][s];
                fprintf(f, "%s,%s,%d,%.3f,%.3f,%d,", specs[e].file, alg_name[a], s, r->curve[N_POINTS - 1],
                        r->seconds, r->restarts);
                for (k = 0; k < r->restarts && k < 8; ++k) fprintf(f, "%s%ld", k ? " " : "", r->restart_at[k]);
                fprintf(f, "\n");
            }
    fclose(f);
}

/* First restart at or after round `from` (the update of that round or a
   later one), or -1. */
static long first_restart_from(const run_rec *r, long from) {
    int k;
    for (k = 0; k < r->restarts && k < 8; ++k)
        if (r->restart_at[k] >= from) return r->restart_at[k];
    return -1;
}

/* Restarts of ADA-OPKB variant `alg`: after the switch of Env 1 (detection
   and delay) and under the stationary reward (false restarts). */
static void restart_claims(int alg, int n_seeds, const char *setting) {
    long delays[MAX_SEEDS], median;
    int detected = 0, false_seeds = 0, ctrl_after = 0, s;
    printf("%s restarts, Env 1 (switch at round 3000):\n  seed:", alg_name[alg]);
    for (s = 0; s < n_seeds; ++s) {
        long r = first_restart_from(&results[0][alg][s], 3000);
        printf(" %ld", r < 0 ? -1L : r - 3000);
        if (r >= 0) delays[detected++] = r - 3000;
        false_seeds += results[3][alg][s].restarts > 0;
        ctrl_after += first_restart_from(&results[3][alg][s], 3000) >= 0;
    }
    printf("  (delay after the switch, -1: none)\n");
    qsort(delays, (size_t)detected, sizeof delays[0], cmp_long);
    median = detected ? (detected % 2 ? delays[detected / 2] : (delays[detected / 2 - 1] + delays[detected / 2]) / 2)
                      : -1L;
    printf("  stationary control (same arms and rewards, no switch): a restart at or after round 3000 in %d of "
           "%d seeds\n\n",
           ctrl_after, n_seeds);
    printf("claim: opkb: Env 1, ADA-OPKB with %s: a restart follows the switch in %d of %d seeds (%.0f%%), median "
           "delay %ld rounds (issue: at least 80%% of seeds; paper: Lemma F.5, a large change triggers a restart) "
           "%s\n",
           setting, detected, n_seeds, 100.0 * detected / n_seeds, median,
           detected >= 0.8 * n_seeds ? "holds" : "fails");
    printf("claim: opkb: stationary Env 1, ADA-OPKB with %s restarted in %d of %d seeds (%.0f%%) over T = 10^4 "
           "(issue: at most 10%%; paper: Lemma F.3, no restart w.h.p., proved for its theory constants) %s\n",
           setting, false_seeds, n_seeds, 100.0 * false_seeds / n_seeds,
           false_seeds <= 0.1 * n_seeds ? "holds" : "fails");
}

int main(int argc, char **argv) {
    const char *out = ".";
    int n_seeds = MAX_SEEDS, e, a, s, i;
    double *work = (double *)xmalloc(sizeof(double) * isdb_opkb_solve_work_size(N_ARMS, N_ARMS));
    double *x = (double *)xmalloc(sizeof(double) * N_ARMS);
    static double K[N_ARMS * N_ARMS], Phi[N_ARMS * N_ARMS], fw[2 * N_ARMS * N_ARMS + N_ARMS];
    double env1_max_seconds = 0.0;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--quick") == 0)
            n_seeds = 5;
        else {
            fprintf(stderr, "usage: repro_opkb [--out DIR] [--quick]\n");
            return 2;
        }
    }
    printf("repro_opkb: Hong, Li, Tewari (AISTATS 2023), sec. 6 and App. J.3; T = %d, N = %d, d = %d, %d seeds\n\n",
           T_ROUNDS, N_ARMS, DIM, n_seeds);
    for (e = 0; e < N_ENVS; ++e) {
        const env_spec *sp = &specs[e];
        double t_env = now();
        for (s = 0; s < n_seeds; ++s) {
            isdb_kernel_env env;
            int p = 0;
            make_env(sp, s, &env);
            run_ada(sp, s, ISDB_OPKB_TEST_CONSTANT, &env, &results[e][ALG_ADA][s]);
            run_ada(sp, s, ISDB_OPKB_TEST_CALIBRATED, &env, &results[e][ALG_ADA_C][s]);
            if (sp->n_algs > ALG_SW) {
                swgp sw;
                wgp wg;
                isdb_kernel_gram(ISDB_KERNEL_RBF, 0.2, N_ARMS, DIM, env.base.X, K);
                if (isdb_feature_map_build(N_ARMS, K, ISDB_FEATURES_CHOLESKY, 0.0, Phi, &p, fw) != ISDB_OK) {
                    fprintf(stderr, "repro_opkb: K does not factor\n");
                    return 1;
                }
                swgp_init(&sw, Phi, N_ARMS, 20.0, 0.01, 3000, 1e-4, x, work);
                run_baseline(ALG_SW, &env, &sw, NULL, &results[e][ALG_SW][s]);
                swgp_free(&sw);
                wgp_init(&wg, Phi, N_ARMS, 0.01, 0.9995, 1e-4, x, work);
                run_baseline(ALG_W, &env, NULL, &wg, &results[e][ALG_W][s]);
                wgp_free(&wg);
            }
            if (e == 0 && results[e][ALG_ADA][s].seconds > env1_max_seconds)
                env1_max_seconds = results[e][ALG_ADA][s].seconds;
            isdb_env_uninit(&env.base);
        }
        printf("%s (%.0f s)\n", sp->title, now() - t_env);
        printf("  %-20s %22s %22s %12s %10s\n", "algorithm", "final regret (+- s.e.)", "regret at 3000 (+- s.e.)",
               "restarts", "s per run");
        for (a = 0; a < sp->n_algs; ++a) {
            double fin[MAX_SEEDS], mid[MAX_SEEDS], rs[MAX_SEEDS], sec[MAX_SEEDS], m1, s1, m2, s2, m3, s3, m4, s4;
            for (s = 0; s < n_seeds; ++s) {
                fin[s] = results[e][a][s].curve[N_POINTS - 1];
                mid[s] = results[e][a][s].curve[3000 / EVERY - 1];
                rs[s] = results[e][a][s].restarts;
                sec[s] = results[e][a][s].seconds;
            }
            mean_se(fin, n_seeds, &m1, &s1);
            mean_se(mid, n_seeds, &m2, &s2);
            mean_se(rs, n_seeds, &m3, &s3);
            mean_se(sec, n_seeds, &m4, &s4);
            printf("  %-20s %13.1f +- %5.1f %13.1f +- %5.1f %12.2f %10.2f\n", alg_name[a], m1, s1, m2, s2,
                   a <= ALG_ADA_C ? m3 : 0.0, m4);
        }
        printf("\n");
        write_svg(out, e, n_seeds);
    }
    write_csv(out, n_seeds);

    /* Claims. */
    {
        double fin[N_ENVS][N_ALG], se[N_ENVS][N_ALG], mid[N_ALG], mid_se[N_ALG];
        for (e = 0; e < N_ENVS; ++e)
            for (a = 0; a < specs[e].n_algs; ++a) {
                double v[MAX_SEEDS], w[MAX_SEEDS];
                for (s = 0; s < n_seeds; ++s) {
                    v[s] = results[e][a][s].curve[N_POINTS - 1];
                    w[s] = results[e][a][s].curve[3000 / EVERY - 1];
                }
                mean_se(v, n_seeds, &fin[e][a], &se[e][a]);
                if (e == 0) mean_se(w, n_seeds, &mid[a], &mid_se[a]);
            }
        restart_claims(ALG_ADA, n_seeds, "the authors' constant threshold");
        restart_claims(ALG_ADA_C, n_seeds, "the calibrated test");
        printf("claim: opkb: Env 1, regret at round 3000 SW-GPUCB %.1f +- %.1f vs ADA-OPKB %.1f +- %.1f (paper, Fig. "
               "1a: SW-GPUCB is better in the initial stationary interval) %s\n",
               mid[ALG_SW], mid_se[ALG_SW], mid[ALG_ADA], mid_se[ALG_ADA],
               mid[ALG_SW] < mid[ALG_ADA] ? "holds" : "fails");
        printf("claim: opkb: Env 2, final regret ADA-OPKB %.1f +- %.1f, SW-GPUCB %.1f +- %.1f, WGPUCB %.1f +- %.1f "
               "(paper, Fig. 1b: ADA-OPKB is the lowest) %s\n",
               fin[1][ALG_ADA], se[1][ALG_ADA], fin[1][ALG_SW], se[1][ALG_SW], fin[1][ALG_W], se[1][ALG_W],
               fin[1][ALG_ADA] < fin[1][ALG_SW] && fin[1][ALG_ADA] < fin[1][ALG_W] ? "holds" : "fails");
        printf("claim: opkb: slowly varying cosine, final regret ADA-OPKB %.1f +- %.1f, SW-GPUCB (W = 3000) %.1f +- "
               "%.1f, WGPUCB %.1f +- %.1f (paper, App. J.3: ADA-OPKB beats both) %s\n",
               fin[2][ALG_ADA], se[2][ALG_ADA], fin[2][ALG_SW], se[2][ALG_SW], fin[2][ALG_W], se[2][ALG_W],
               fin[2][ALG_ADA] < fin[2][ALG_SW] && fin[2][ALG_ADA] < fin[2][ALG_W] ? "holds" : "fails");
        printf("claim: opkb: Env 1, the slowest ADA-OPKB run (T = 10^4, N = 100) took %.2f s (issue: under 10 s) %s\n",
               env1_max_seconds, env1_max_seconds < 10.0 ? "holds" : "fails");
    }
    free(work);
    free(x);
    return 0;
}

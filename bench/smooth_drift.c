/* smooth_drift.c - what `make smooth-drift` runs (issue 38, item 2): why a
   constant-step SGD regressor (Vowpal Wabbit's SquareCB with --power_t 0
   -l 1, issue 38's figures) beats adaptive and every discounted ridge on
   smooth drift, measured one mechanism at a time.

   Problems (issue 38's; rotation and jumps are scenarios rotation38 and
   jumps38 of bench/agnostic.c, the streams bench/realstream.c's):
   rotation (d = 5, K = 20 fresh uniform unit arms a round, theta_t =
   normalise(cos(2 pi t / 10^4), sin(2 pi t / 10^4), 0.3, 0.3, 0.3),
   reward x.theta_t + 0.5 N(0, 1), T = 20,000, seeds 1-20: the seed draws
   the arms and the noise exactly as in agnostic's rotation38), Elec2 and NOAA
   weather (bench/data; each feature standardised over the stream and
   divided by sqrt(p); K = 2, arm a's features e_a (x) [1, z]; reward 1
   when the arm is the row's label; accuracy). After the grid, the best
   setting of each family on rotation is rerun on seeds 21-40 (not tuned
   on) and on issue 38's jumps problem (theta redrawn at 5,000, 10,000,
   15,000; seeds 1-20), to see what a mechanism that helps a smooth drift
   costs on abrupt changes.

   Mechanisms, one at a time, every learner told R = 0.5, lambda = 1:
   1. the estimator family, under one decision rule: UCB, score x.theta +
      c beta ||x||_P, P the estimator's covariance in ridge units (V^-1),
      beta = R sqrt(2 ln(1/delta) + d ln(1 + M / (lambda d))) +
      sqrt(lambda) S (OFUL's radius at M = 1000 observations, delta 0.01,
      S 1), c the width scale. Families (written here, not the library's):
        disc    discounted ridge, D-LinUCB's recursion: V <- g V + x x^T +
                (1 - g) lambda I, b <- g b + y x; setting: the memory
                1 / (1 - g)
        window  sliding-window ridge over the last w rounds
        kalman  random-walk Kalman filter / RLS with additive covariance
                growth: P <- P + q I, then the Kalman step with unit
                observation variance (so P is in V^-1's units); setting q
        dirf    directional forgetting (Kulhavy and Karny 1984): the information
                forgets a fraction 1 - g only along the played x, V <- V -
                (1 - g) V x x^T V / x^T V x + x x^T, theta <- theta +
                V^-1 x (y - x.theta); the rest is kept; setting 1 / (1 - g)
        nlms    normalised LMS: theta <- theta + mu (y - x.theta) x /
                ||x||^2; setting mu
        vw      our reading of VW's default update at --power_t 0 (not VW's
                code): per-coordinate normalised (each coordinate's step
                divided by the largest |x_i| seen, squared, the weight
                rescaled when that grows), the global rate divided by the
                running mean of the normalised ||x||^2, and the invariant
                (importance-aware) step that moves the prediction a
                fraction 1 - exp(-2 l h) of the residual (h: the
                normalised ||x||^2 over its mean); AdaGrad's per-coordinate
                G^-power_t is 1 at power_t 0, so the "adaptive" part is
                off; setting l (VW's -l)
        disc-ladder, kalman-ladder  all eight disc memories (kalman q's)
                of the grid learn every observation; the one whose squared
                errors predicting y, discounted over h rounds, are lowest
                plays (a stand-in for adaptive's choice by prediction, not
                its pairwise test); setting h
      nlms and vw have no covariance: their width uses a discounted
      ridge's at the matched memory (d / mu; d / (1 - exp(-2 l))).
   2. the width: every family at c = 0 (greedy), 0.1, 0.3 and 1, its
      setting re-tuned at each c; the library's adaptive (defaults) and
      D-LinUCB and SW-UCB with alpha = 1, 0.3, 0.1, 0.
   3. the rule: SquareCB's inverse-gap-weighted sampling (Foster and
      Rakhlin 2020, as VW runs it: p_a = 1 / (K + gamma (best mean - mean
      of a)) for the others, the rest to the best, gamma = gamma_scale
      sqrt(t)) instead of argmax, on each family's mean at its best greedy
      setting, gamma_scale 10, 100, 1000, 10000 (seeds 1-3 on the streams).

   Each table row is the best setting of a (family, rule, width) cell
   chosen with hindsight on the problem; --out DIR writes every cell to
   DIR/smooth_drift.csv. VW's and adaptive's issue-38 figures are quoted,
   not run (adaptive as measured by realstream and agnostic is the
   reference: the same protocol). Costs: microseconds per round of this file's learners (d^3
   Cholesky refactorisations every round for disc, window and dirf: study
   code, not tuned), CPU time, the cores shared. Jobs run in parallel, one
   process per (problem, cell) (POSIX fork). --quick: 5 rotation seeds,
   the first 10,000 rows of each stream, every other grid point. Public
   API of isdbandit.h only. */
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

#define MAX_P 8
#define MAX_D 18 /* 2 (MAX_P + 1) */
#define MAX_K 20
#define GRID 8
#define N_WIDTH 4
#define N_GS 4
#define SEEDS 20
#define QUICK_SEEDS 5
#define STREAM_SEEDS 3 /* the sampled rule on a real stream */
#define QUICK_ROWS 10000
#define SYNTH_D 5
#define SYNTH_K 20
#define SYNTH_T 20000
#define MAX_JOBS 2048

static const double R_NOISE = 0.5, LAMBDA = 1.0;
static const double widths[N_WIDTH] = {0.0, 0.1, 0.3, 1.0};
static const double gscales[N_GS] = {10.0, 100.0, 1000.0, 10000.0};

/* ---- the families and their grids -------------------------------------- */

enum { F_DISC, F_WINDOW, F_KALMAN, F_DIRF, F_NLMS, F_VW, F_DLADDER, F_KLADDER, N_FAM, L_ADAPTIVE = N_FAM, L_DLINUCB,
       L_SWUCB, N_KIND };
static const char *const kind_name[N_KIND] = {"disc", "window",   "kalman",  "dirf", "nlms", "vw", "disc-ladder",
                                              "kalman-ladder", "adaptive", "dlinucb", "swucb"};
static const char *const kind_about[N_KIND] = {
    "discounted ridge (D-LinUCB's recursion), memory 1/(1-g)",
    "sliding-window ridge, window w",
    "random-walk Kalman / RLS, P <- P + q I",
    "directional forgetting (only along played x), memory 1/(1-g)",
    "normalised LMS, step mu",
    "VW-like normalised invariant SGD at power_t 0, rate l",
    "every disc memory of the grid, the lowest recent squared prediction error plays (horizon h)",
    "every kalman q of the grid, the lowest recent squared prediction error plays (horizon h)",
    "library adaptive (defaults), width alpha",
    "library D-LinUCB, memory 1/(1-gamma), width alpha",
    "library SW-UCB, window w, width alpha"};
static const double grid[N_KIND][GRID] = {
    {10, 20, 50, 100, 200, 500, 1000, 3000},               /* disc: memory */
    {20, 50, 100, 200, 500, 1000, 2000, 5000},             /* window */
    {1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 1e-1},      /* kalman: q */
    {10, 20, 50, 100, 200, 500, 1000, 3000},               /* dirf: memory */
    {0.003, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0},         /* nlms: mu */
    {0.001, 0.003, 0.01, 0.02, 0.05, 0.1, 0.3, 1.0},       /* vw: l */
    {50, 100, 200, 500, 1000, 2000, 5000, 10000},          /* disc-ladder: error horizon */
    {50, 100, 200, 500, 1000, 2000, 5000, 10000},          /* kalman-ladder: error horizon */
    {0, 0, 0, 0, 0, 0, 0, 0},                              /* adaptive: no setting */
    {10, 20, 50, 100, 200, 500, 1000, 3000},               /* dlinucb: memory */
    {20, 50, 100, 200, 500, 1000, 2000, 5000}};            /* swucb: window */

enum { RULE_UCB, RULE_IGW };

typedef struct cell {
    int kind, rule;
    double par; /* the family's setting (grid) */
    double c;   /* UCB: width scale (alpha for the library); IGW: gamma_scale */
} cell;

/* ---- the learners written here ----------------------------------------- */

typedef struct learner {
    int fam, d;
    double par, g; /* setting; discount (disc, dirf) */
    double theta[MAX_D];
    double V[MAX_D * MAX_D], L[MAX_D * MAX_D], b[MAX_D]; /* disc, window, dirf: information, its factor, moment */
    double P[MAX_D * MAX_D];                             /* kalman: covariance in V^-1 units */
    double *ring;                                        /* window: w rows of (x, y) */
    int ring_n, ring_head, w;
    double smax[MAX_D], nsum, tw; /* vw: largest |x_i| seen, sum of normalised ||x||^2, rounds */
    struct learner *comp;         /* nlms, vw with a width: discounted ridge for ||x||_P */
    struct learner *sub;          /* ladders: GRID learners of the base family */
    double err[GRID];             /* ladders: discounted squared prediction errors */
    int pick;                     /* ladders: the sub-learner that plays */
} learner;

static void refactor(learner *e) {
    int d = e->d;
    memcpy(e->L, e->V, (size_t)(d * d) * sizeof(double));
    if (isdb_chol(d, e->L) != ISDB_OK) { /* never seen; keep going with a ridge added */
        int i;
        memcpy(e->L, e->V, (size_t)(d * d) * sizeof(double));
        for (i = 0; i < d; ++i) e->L[i * d + i] += 1e-9;
        (void)isdb_chol(d, e->L);
    }
}

static void learner_free(learner *e) {
    int i;
    free(e->ring);
    if (e->comp) learner_free(e->comp);
    free(e->comp);
    if (e->sub)
        for (i = 0; i < GRID; ++i) learner_free(&e->sub[i]);
    free(e->sub);
    e->ring = NULL;
    e->comp = NULL;
    e->sub = NULL;
}

static int learner_init(learner *e, int fam, double par, int d, int need_width) {
    int i;
    memset(e, 0, sizeof *e);
    e->fam = fam;
    e->d = d;
    e->par = par;
    for (i = 0; i < d; ++i) e->V[i * d + i] = LAMBDA, e->P[i * d + i] = 1.0 / LAMBDA;
    refactor(e);
    if (fam == F_DISC || fam == F_DIRF) e->g = 1.0 - 1.0 / par;
    if (fam == F_WINDOW) {
        e->w = (int)par;
        e->ring = (double *)malloc((size_t)e->w * (size_t)(d + 1) * sizeof(double));
        if (!e->ring) return 1;
    }
    if (fam == F_DLADDER || fam == F_KLADDER) {
        int base = fam == F_DLADDER ? F_DISC : F_KALMAN;
        e->sub = (learner *)calloc(GRID, sizeof *e->sub);
        if (!e->sub) return 1;
        for (i = 0; i < GRID; ++i)
            if (learner_init(&e->sub[i], base, grid[base][i], d, 0) != 0) return 1;
        e->g = 1.0 - 1.0 / par;
        e->pick = GRID - 1;
    }
    if ((fam == F_NLMS || fam == F_VW) && need_width) {
        double step = fam == F_NLMS ? par : 1.0 - exp(-2.0 * par), m = d / step;
        e->comp = (learner *)malloc(sizeof *e->comp);
        if (!e->comp || learner_init(e->comp, F_DISC, m < 2.0 ? 2.0 : m, d, 0) != 0) return 1;
    }
    return 0;
}

/* x^T P x, P the learner's covariance (V^-1 units). */
static double learner_width2(const learner *e, const double *x) {
    double u[MAX_D], s = 0.0;
    int i, j, d = e->d;
    if (e->comp) return learner_width2(e->comp, x);
    if (e->sub) return learner_width2(&e->sub[e->pick], x);
    if (e->fam == F_KALMAN) {
        for (i = 0; i < d; ++i) {
            double r = 0.0;
            for (j = 0; j < d; ++j) r += e->P[i * d + j] * x[j];
            s += x[i] * r;
        }
        return s;
    }
    isdb_tri_solve(d, e->L, 0, x, u);
    return repro_dot(d, u, u);
}

static void learner_update(learner *e, const double *x, double y) {
    int i, j, d = e->d;
    double err = y - repro_dot(d, e->theta, x);
    if (e->comp) learner_update(e->comp, x, y);
    if (e->sub) { /* each sub-learner predicts y before it learns it; the lowest recent error plays */
        for (i = 0; i < GRID; ++i) {
            double r = y - repro_dot(d, e->sub[i].theta, x);
            e->err[i] = e->g * e->err[i] + r * r;
            learner_update(&e->sub[i], x, y);
        }
        for (i = 0; i < GRID; ++i)
            if (e->err[i] < e->err[e->pick]) e->pick = i;
        memcpy(e->theta, e->sub[e->pick].theta, (size_t)d * sizeof(double));
        return;
    }
    switch (e->fam) {
    case F_DISC:
        for (i = 0; i < d; ++i) {
            for (j = 0; j < d; ++j) e->V[i * d + j] = e->g * e->V[i * d + j] + x[i] * x[j];
            e->V[i * d + i] += (1.0 - e->g) * LAMBDA;
            e->b[i] = e->g * e->b[i] + y * x[i];
        }
        refactor(e);
        isdb_chol_solve(d, e->L, e->b, e->theta);
        break;
    case F_WINDOW: {
        double *slot;
        if (e->ring_n == e->w) { /* the oldest leaves */
            const double *o = e->ring + (size_t)e->ring_head * (size_t)(d + 1);
            for (i = 0; i < d; ++i) {
                for (j = 0; j < d; ++j) e->V[i * d + j] -= o[i] * o[j];
                e->b[i] -= o[d] * o[i];
            }
            e->ring_head = (e->ring_head + 1) % e->w;
            --e->ring_n;
        }
        slot = e->ring + (size_t)((e->ring_head + e->ring_n) % e->w) * (size_t)(d + 1);
        memcpy(slot, x, (size_t)d * sizeof(double));
        slot[d] = y;
        ++e->ring_n;
        for (i = 0; i < d; ++i) {
            for (j = 0; j < d; ++j) e->V[i * d + j] += x[i] * x[j];
            e->b[i] += y * x[i];
        }
        refactor(e);
        isdb_chol_solve(d, e->L, e->b, e->theta);
        break;
    }
    case F_KALMAN: {
        double Px[MAX_D], s = 1.0;
        for (i = 0; i < d; ++i) e->P[i * d + i] += e->par;
        for (i = 0; i < d; ++i) {
            double r = 0.0;
            for (j = 0; j < d; ++j) r += e->P[i * d + j] * x[j];
            Px[i] = r;
            s += x[i] * r;
        }
        for (i = 0; i < d; ++i) {
            e->theta[i] += Px[i] / s * err;
            for (j = 0; j < d; ++j) e->P[i * d + j] -= Px[i] * Px[j] / s;
        }
        for (i = 0; i < d; ++i) /* keep P symmetric */
            for (j = 0; j < i; ++j) e->P[i * d + j] = e->P[j * d + i] = 0.5 * (e->P[i * d + j] + e->P[j * d + i]);
        break;
    }
    case F_DIRF: {
        double Vx[MAX_D], s = 0.0, k[MAX_D];
        for (i = 0; i < d; ++i) {
            double r = 0.0;
            for (j = 0; j < d; ++j) r += e->V[i * d + j] * x[j];
            Vx[i] = r;
            s += x[i] * r;
        }
        if (s > 1e-12)
            for (i = 0; i < d; ++i)
                for (j = 0; j < d; ++j) e->V[i * d + j] -= (1.0 - e->g) / s * Vx[i] * Vx[j];
        for (i = 0; i < d; ++i)
            for (j = 0; j < d; ++j) e->V[i * d + j] += x[i] * x[j];
        refactor(e);
        isdb_chol_solve(d, e->L, x, k);
        for (i = 0; i < d; ++i) e->theta[i] += k[i] * err;
        break;
    }
    case F_NLMS: {
        double n2 = repro_dot(d, x, x);
        if (n2 > 0.0)
            for (i = 0; i < d; ++i) e->theta[i] += e->par * err * x[i] / n2;
        break;
    }
    case F_VW: {
        double r[MAX_D], ppu = 0.0, eta, frac;
        for (i = 0; i < d; ++i) {
            double ax = fabs(x[i]);
            if (ax > e->smax[i]) {
                if (e->smax[i] > 0.0) e->theta[i] *= (e->smax[i] / ax) * (e->smax[i] / ax);
                e->smax[i] = ax;
            }
            r[i] = e->smax[i] > 0.0 ? 1.0 / (e->smax[i] * e->smax[i]) : 0.0;
            ppu += x[i] * x[i] * r[i];
        }
        e->nsum += ppu;
        e->tw += 1.0;
        if (ppu <= 0.0) break;
        eta = e->par * e->tw / e->nsum;
        frac = 1.0 - exp(-2.0 * eta * ppu);
        for (i = 0; i < d; ++i) e->theta[i] += err * frac / ppu * x[i] * r[i];
        break;
    }
    default:
        break;
    }
}

/* ---- an agent: a library policy, or a learner and a rule --------------- */

typedef union any_policy {
    isdb_policy base;
    isdb_adaptive adaptive;
    isdb_dlinucb dlinucb;
    isdb_swucb swucb;
} any_policy;

typedef struct agent {
    cell c;
    int d;
    uint64_t t;
    double beta;
    any_policy pol;
    learner lrn;
    isdb_rng rng;
} agent;

static int agent_init(agent *a, const cell *c, int d, int K, uint64_t seed) {
    memset(a, 0, sizeof *a);
    a->c = *c;
    a->d = d;
    a->beta = R_NOISE * sqrt(2.0 * log(100.0) + d * log(1.0 + 1000.0 / (LAMBDA * d))) + sqrt(LAMBDA);
    isdb_rng_seed(&a->rng, seed * 104729u + 3u);
    if (c->kind == L_ADAPTIVE) {
        isdb_adaptive_config q = isdb_adaptive_config_init(d, K);
        q.R = R_NOISE;
        q.lambda = LAMBDA;
        q.alpha = c->c;
        return isdb_adaptive_init(&q, NULL, &a->pol.adaptive) != ISDB_OK;
    }
    if (c->kind == L_DLINUCB) {
        isdb_dlinucb_config q = isdb_dlinucb_config_init(d, K, 1.0 - 1.0 / c->par);
        q.R = R_NOISE;
        q.lambda = LAMBDA;
        q.alpha = c->c;
        return isdb_dlinucb_init(&q, NULL, &a->pol.dlinucb) != ISDB_OK;
    }
    if (c->kind == L_SWUCB) {
        isdb_swucb_config q = isdb_swucb_config_init(d, K, (int)c->par);
        q.R = R_NOISE;
        q.lambda = LAMBDA;
        q.alpha = c->c;
        return isdb_swucb_init(&q, NULL, &a->pol.swucb) != ISDB_OK;
    }
    return learner_init(&a->lrn, c->kind, c->par, d, c->rule == RULE_UCB && c->c > 0.0);
}

static void agent_free(agent *a) {
    if (a->c.kind >= N_FAM)
        isdb_policy_uninit(&a->pol.base);
    else
        learner_free(&a->lrn);
}

static int agent_select(agent *a, const double *X, int K, int *arm) {
    double mean[MAX_K], best = -HUGE_VAL;
    int k, top = 0, d = a->d;
    if (a->c.kind >= N_FAM) return isdb_policy_select(&a->pol.base, X, K, arm) != ISDB_OK;
    for (k = 0; k < K; ++k) {
        double s = mean[k] = repro_dot(d, a->lrn.theta, X + k * d);
        if (a->c.rule == RULE_UCB && a->c.c > 0.0) s += a->c.c * a->beta * sqrt(learner_width2(&a->lrn, X + k * d));
        if (s > best) best = s, top = k;
    }
    if (a->c.rule == RULE_IGW) { /* SquareCB: inverse-gap weighting around the greedy arm */
        double gam = a->c.c * sqrt((double)(a->t + 1)), u = isdb_rng_uniform(&a->rng), acc = 0.0;
        *arm = top;
        for (k = 0; k < K; ++k) {
            if (k == top) continue;
            acc += 1.0 / ((double)K + gam * (mean[top] - mean[k]));
            if (u < acc) {
                *arm = k;
                break;
            }
        }
        return 0;
    }
    *arm = top;
    return 0;
}

static int agent_update(agent *a, int arm, const double *x, double y) {
    (void)arm;
    ++a->t;
    if (a->c.kind >= N_FAM) return isdb_policy_update(&a->pol.base, arm, x, y) != ISDB_OK;
    learner_update(&a->lrn, x, y);
    return 0;
}

/* ---- problems ----------------------------------------------------------- */

enum { PB_ROTATION, PB_ELEC2, PB_NOAA, PB_ROT_HELD, PB_JUMPS, N_PB };
static const char *const pb_name[N_PB] = {"rotation", "Elec2", "NOAA", "rotation, seeds 21-40", "jumps"};

typedef struct stream {
    const char *name, *data_file, *label_file;
    int cols, skip, rows;
    int ok, p, T;
    double *z;
    int *label;
} stream;

static stream streams[2] = {{"Elec2", "elec2_data.dat", "elec2_label.dat", 8, 0, 45312, 0, 0, 0, NULL, NULL},
                            {"NOAA", "NEweather_data.csv", "NEweather_class.csv", 8, -1, 18159, 0, 0, 0, NULL, NULL}};

/* Reads rows x cols numbers (spaces, tabs or commas between) from dir/name. */
static int read_numbers(const char *dir, const char *name, int rows, int cols, double *v) {
    char path[2048], line[4096];
    FILE *f;
    int r = 0, bad = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(f = fopen(path, "r"))) {
        fprintf(stderr, "smooth_drift: cannot open %s (see bench/data/README.md; --data DIR)\n", path);
        return 1;
    }
    while (!bad && fgets(line, sizeof line, f)) {
        char *s = line, *end;
        int c = 0;
        if (strspn(line, " \t\r\n") == strlen(line)) continue;
        if (r >= rows) break;
        for (;;) {
            double x;
            while (*s == ' ' || *s == '\t' || *s == ',') ++s;
            if (*s == '\0' || *s == '\n' || *s == '\r') break;
            x = strtod(s, &end);
            if (end == s || c >= cols || !isfinite(x)) {
                bad = 1;
                break;
            }
            v[(size_t)r * (size_t)cols + (size_t)c++] = x;
            s = end;
        }
        if (c != cols) bad = 1;
        ++r;
    }
    fclose(f);
    if (bad || r != rows) {
        fprintf(stderr, "smooth_drift: %s is not %d rows of %d numbers\n", path, rows, cols);
        return 1;
    }
    return 0;
}

/* realstream's protocol: standardise each feature over the stream, divide by sqrt(p). */
static void load_stream(stream *st, const char *dir, int rows_cap) {
    double *raw = (double *)malloc((size_t)st->rows * (size_t)st->cols * sizeof(double));
    double *lab = (double *)malloc((size_t)st->rows * sizeof(double));
    int i, j, q;
    st->ok = 0;
    st->p = st->cols - (st->skip >= 0 ? 1 : 0);
    st->z = (double *)malloc((size_t)st->rows * (size_t)st->p * sizeof(double));
    st->label = (int *)malloc((size_t)st->rows * sizeof(int));
    if (!raw || !lab || !st->z || !st->label || read_numbers(dir, st->data_file, st->rows, st->cols, raw) != 0 ||
        read_numbers(dir, st->label_file, st->rows, 1, lab) != 0)
        goto done;
    for (i = 0; i < st->rows; ++i) {
        if (lab[i] != 0.0 && lab[i] != 1.0) goto done;
        st->label[i] = (int)lab[i];
    }
    for (j = 0, q = 0; j < st->cols; ++j) {
        double mean = 0.0, var = 0.0, sd;
        if (j == st->skip) continue;
        for (i = 0; i < st->rows; ++i) mean += raw[(size_t)i * (size_t)st->cols + (size_t)j];
        mean /= st->rows;
        for (i = 0; i < st->rows; ++i) {
            double e = raw[(size_t)i * (size_t)st->cols + (size_t)j] - mean;
            var += e * e;
        }
        sd = sqrt(var / st->rows);
        for (i = 0; i < st->rows; ++i)
            st->z[(size_t)i * (size_t)st->p + (size_t)q] =
                sd > 0.0 ? (raw[(size_t)i * (size_t)st->cols + (size_t)j] - mean) / sd / sqrt((double)st->p) : 0.0;
        ++q;
    }
    st->T = rows_cap > 0 && st->rows > rows_cap ? rows_cap : st->rows;
    st->ok = 1;
done:
    free(raw);
    free(lab);
    if (!st->ok) fprintf(stderr, "smooth_drift: skipping %s\n", st->name);
}

typedef struct outcome {
    double mean, se, us; /* regret or accuracy, its standard error over seeds, us per round */
    int runs;
} outcome;

static int play_stream(const stream *st, const cell *c, uint64_t seed, double *acc, double *secs) {
    int p = st->p, d = 2 * (p + 1), t, correct = 0;
    double X[2 * MAX_D];
    agent a;
    clock_t c0;
    if (agent_init(&a, c, d, 2, seed) != 0) return 1;
    memset(X, 0, sizeof X);
    X[0] = 1.0;
    X[d + p + 1] = 1.0;
    c0 = clock();
    for (t = 0; t < st->T; ++t) {
        int arm, y = st->label[t];
        memcpy(X + 1, st->z + (size_t)t * (size_t)p, (size_t)p * sizeof(double));
        memcpy(X + d + p + 2, st->z + (size_t)t * (size_t)p, (size_t)p * sizeof(double));
        if (agent_select(&a, X, 2, &arm) != 0) return 1;
        correct += arm == y;
        if (agent_update(&a, arm, X + arm * d, arm == y ? 1.0 : 0.0) != 0) return 1;
    }
    *secs = (double)(clock() - c0) / (double)CLOCKS_PER_SEC;
    *acc = (double)correct / (double)st->T;
    agent_free(&a);
    return 0;
}

static void rotation_theta(uint64_t t, double *theta, void *user) {
    double ang = 2.0 * REPRO_PI * (double)t / 10000.0, n;
    int i;
    (void)user;
    theta[0] = cos(ang);
    theta[1] = sin(ang);
    for (i = 2; i < SYNTH_D; ++i) theta[i] = 0.3;
    n = sqrt(repro_dot(SYNTH_D, theta, theta));
    for (i = 0; i < SYNTH_D; ++i) theta[i] /= n;
}

static void unit_vector(isdb_rng *rng, int d, double *v) {
    double n;
    int i;
    do {
        for (i = 0; i < d; ++i) v[i] = isdb_rng_normal(rng);
        n = repro_dot(d, v, v);
    } while (n < 1e-12);
    for (i = 0; i < d; ++i) v[i] /= sqrt(n);
}

/* One run of a synthetic problem, agnostic's jumps38 / rotation38
   environment for `seed`. */
static int play_synth(int jumps, const cell *c, uint64_t seed, double *regret, double *secs) {
    static const uint64_t switches[3] = {5000, 10000, 15000};
    double pieces[4 * SYNTH_D];
    isdb_linear_env_config ec = isdb_linear_env_config_init(SYNTH_D, SYNTH_K);
    isdb_linear_env env;
    agent a;
    clock_t c0;
    int t, k;
    ec.seed = seed;
    ec.noise_sd = 0.5;
    ec.arms = ISDB_ARMS_SPHERE;
    if (jumps) {
        isdb_rng rng;
        isdb_rng_seed(&rng, seed * 7919u + 17u);
        for (k = 0; k < 4; ++k) unit_vector(&rng, SYNTH_D, pieces + k * SYNTH_D);
        ec.path = ISDB_PATH_PIECEWISE;
        ec.n_pieces = 4;
        ec.pieces = pieces;
        ec.switch_at = switches;
    } else {
        ec.path = ISDB_PATH_CALLBACK;
        ec.theta_fn = rotation_theta;
    }
    if (isdb_linear_env_init(&ec, NULL, &env) != ISDB_OK) return 1;
    if (agent_init(&a, c, SYNTH_D, SYNTH_K, seed) != 0) return 1;
    *regret = 0.0;
    c0 = clock();
    for (t = 0; t < SYNTH_T; ++t) {
        int arm;
        double y, best;
        if (isdb_env_next(&env.base) != ISDB_OK || agent_select(&a, env.base.X, SYNTH_K, &arm) != 0 ||
            isdb_env_reward(&env.base, arm, &y) != ISDB_OK || agent_update(&a, arm, env.base.X + arm * SYNTH_D, y) != 0)
            return 1;
        for (best = env.base.means[0], k = 1; k < SYNTH_K; ++k)
            if (env.base.means[k] > best) best = env.base.means[k];
        *regret += best - env.base.means[arm];
    }
    *secs = (double)(clock() - c0) / (double)CLOCKS_PER_SEC;
    agent_free(&a);
    isdb_env_uninit(&env.base);
    return 0;
}

/* ---- jobs --------------------------------------------------------------- */

typedef struct job {
    int pb;
    cell c;
    outcome out;
} job;

typedef struct run_ctx {
    int seeds, n;
    job jobs[MAX_JOBS];
} run_ctx;

static int higher_better(int pb) { return pb == PB_ELEC2 || pb == PB_NOAA; }

static int run_job(int i, void *ctx) {
    run_ctx *rc = (run_ctx *)ctx;
    job *j = &rc->jobs[i];
    double v[SEEDS], secs = 0.0;
    int s, n, rounds;
    if (j->pb == PB_ELEC2 || j->pb == PB_NOAA) {
        const stream *st = &streams[j->pb - PB_ELEC2];
        int seeded = j->c.rule == RULE_IGW;
        n = seeded ? STREAM_SEEDS : 1;
        rounds = st->T;
        for (s = 0; s < n; ++s) {
            double t = 0.0;
            if (play_stream(st, &j->c, (uint64_t)s + 1, &v[s], &t) != 0) return 1;
            secs += t;
        }
    } else {
        uint64_t first = j->pb == PB_ROT_HELD ? 21 : 1;
        n = rc->seeds;
        rounds = SYNTH_T;
        for (s = 0; s < n; ++s) {
            double t = 0.0;
            if (play_synth(j->pb == PB_JUMPS, &j->c, first + (uint64_t)s, &v[s], &t) != 0) return 1;
            secs += t;
        }
    }
    repro_mean_se(v, n, &j->out.mean, &j->out.se);
    j->out.us = 1e6 * secs / ((double)n * (double)rounds);
    j->out.runs = n;
    return 0;
}

static void *job_result(int i, size_t *size, void *ctx) {
    run_ctx *rc = (run_ctx *)ctx;
    *size = sizeof(outcome);
    return &rc->jobs[i].out;
}

static int add_job(run_ctx *rc, int pb, int kind, int rule, double par, double c) {
    job *j;
    if (rc->n >= MAX_JOBS) return -1;
    j = &rc->jobs[rc->n];
    memset(j, 0, sizeof *j);
    j->pb = pb;
    j->c.kind = kind;
    j->c.rule = rule;
    j->c.par = par;
    j->c.c = c;
    return rc->n++;
}

static int run_from(run_ctx *rc, int from, int jobs) {
    static int use[MAX_JOBS];
    fork_jobs_spec sp;
    int i;
    for (i = 0; i < rc->n; ++i) use[i] = i >= from;
    sp.n = rc->n;
    sp.order = NULL;
    sp.use = use;
    sp.run = run_job;
    sp.result = job_result;
    sp.done = NULL;
    sp.ctx = rc;
    return fork_jobs(&sp, jobs);
}

/* The best job among [from, to) that match (pb, kind, rule, c); c < 0: any width. */
static int best_job(const run_ctx *rc, int from, int to, int pb, int kind, int rule, double c) {
    int i, b = -1;
    for (i = from; i < to; ++i) {
        const job *j = &rc->jobs[i];
        if (j->pb != pb || j->c.kind != kind || j->c.rule != rule || (c >= 0.0 && j->c.c != c)) continue;
        if (b < 0 || (higher_better(pb) ? j->out.mean > rc->jobs[b].out.mean : j->out.mean < rc->jobs[b].out.mean))
            b = i;
    }
    return b;
}

static void setting(const cell *c, char *buf, size_t cap) {
    const char *what = c->kind == F_KALMAN ? "q" : c->kind == F_NLMS ? "mu" : c->kind == F_VW ? "l"
                       : c->kind == F_WINDOW || c->kind == L_SWUCB ? "w"
                       : c->kind == F_DLADDER || c->kind == F_KLADDER ? "h" : "memory";
    char w[48];
    if (c->rule == RULE_IGW)
        snprintf(w, sizeof w, "SquareCB gamma_scale %g", c->c);
    else
        snprintf(w, sizeof w, "%s %g", c->c == 0.0 ? "greedy, c" : c->kind >= N_FAM ? "alpha" : "c", c->c);
    if (c->kind == L_ADAPTIVE)
        snprintf(buf, cap, "defaults, %s", w);
    else
        snprintf(buf, cap, "%s %g, %s", what, c->par, w);
}

/* VW's tuned figure and adaptive's measured figure on 2026-12-02 (bench/README.md). */
static double vw_figure(int pb) { return pb == PB_ELEC2 ? 0.8808 : pb == PB_NOAA ? 0.7801 : pb == PB_JUMPS ? 519.6 : 310.8; }

static void print_row(const run_ctx *rc, int i, const char *label, int digits, double ref) {
    const job *j = &rc->jobs[i];
    char s[128];
    setting(&j->c, s, sizeof s);
    if (j->out.runs > 1)
        printf("| %s | %s | %.*f +- %.*f |", label, s, digits, j->out.mean, digits, j->out.se);
    else
        printf("| %s | %s | %.*f |", label, s, digits, j->out.mean);
    if (ref == ref) {
        double gap = vw_figure(j->pb) - ref;
        printf(" %+.0f%% |", gap != 0.0 ? 100.0 * (j->out.mean - ref) / gap : 0.0);
    }
    printf(" %.2f |\n", j->out.us);
}

int main(int argc, char **argv) {
    static run_ctx rc;
    const char *out_dir = NULL, *data_dir = "bench/data";
    int i, k, w, g, pb, quick = 0, jobs = 0, phase2;
    int ref_job[N_PB];
    time_t start = time(NULL);
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) {
            jobs = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out_dir = argv[++i];
        } else if (strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
            data_dir = argv[++i];
        } else {
            int help = strcmp(argv[i], "--help") == 0;
            fprintf(help ? stdout : stderr,
                    "usage: %s [--quick] [--jobs N] [--out DIR] [--data DIR]\n"
                    "Issue 38 item 2: which single mechanism (estimator family, width, sampling rule) closes\n"
                    "the gap to VW's tuned SquareCB on rotation, Elec2 and NOAA; see the source.\n"
                    "  --quick     %d rotation seeds, the first %d rows of each stream, half the grid\n"
                    "  --out DIR   write DIR/smooth_drift.csv (every cell)\n"
                    "  --data DIR  the streams' folder (default bench/data)\n",
                    argv[0], QUICK_SEEDS, QUICK_ROWS);
            return help ? 0 : 2;
        }
    }
    if (jobs < 1) {
        long np = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = np > 0 ? (int)np : 1;
    }
    rc.seeds = quick ? QUICK_SEEDS : SEEDS;
    for (i = 0; i < 2; ++i) load_stream(&streams[i], data_dir, quick ? QUICK_ROWS : 0);

    /* Phase 1: the grid, rotation first (the longest jobs). */
    for (pb = PB_ROTATION; pb <= PB_NOAA; ++pb) {
        if (pb != PB_ROTATION && !streams[pb - PB_ELEC2].ok) continue;
        for (w = 0; w < N_WIDTH; ++w) add_job(&rc, pb, L_ADAPTIVE, RULE_UCB, 0.0, widths[N_WIDTH - 1 - w]);
        for (k = 0; k < N_KIND; ++k) {
            if (k == L_ADAPTIVE) continue;
            for (g = quick ? 1 : 0; g < GRID; g += quick ? 2 : 1)
                for (w = 0; w < N_WIDTH; ++w) {
                    if (k == L_SWUCB && w > 0 && w < N_WIDTH - 1) continue; /* SW-UCB: alpha 0 and 1 */
                    add_job(&rc, pb, k, RULE_UCB, grid[k][g], widths[w]);
                }
        }
    }
    fprintf(stderr, "smooth_drift: phase 1, %d jobs, %d at a time%s\n", rc.n, jobs, quick ? " (--quick)" : "");
    if (run_from(&rc, 0, jobs) != 0) {
        fprintf(stderr, "smooth_drift: a job failed\n");
        return 1;
    }
    /* Phase 2: SquareCB's sampling on each family's best greedy setting;
       each family's best rotation cell (and adaptive's widths) on unseen
       seeds and on jumps. */
    phase2 = rc.n;
    for (pb = PB_ROTATION; pb <= PB_NOAA; ++pb)
        for (k = 0; k < N_FAM; ++k) {
            int b = best_job(&rc, 0, phase2, pb, k, RULE_UCB, 0.0);
            if (b < 0) continue;
            for (g = 0; g < N_GS; ++g) add_job(&rc, pb, k, RULE_IGW, rc.jobs[b].c.par, gscales[g]);
        }
    for (k = 0; k < N_KIND; ++k) {
        int b = best_job(&rc, 0, phase2, PB_ROTATION, k, RULE_UCB, -1.0);
        if (b < 0) continue;
        if (k == L_ADAPTIVE) {
            for (w = 0; w < N_WIDTH; ++w) {
                add_job(&rc, PB_ROT_HELD, k, RULE_UCB, 0.0, widths[N_WIDTH - 1 - w]);
                add_job(&rc, PB_JUMPS, k, RULE_UCB, 0.0, widths[N_WIDTH - 1 - w]);
            }
            continue;
        }
        add_job(&rc, PB_ROT_HELD, k, RULE_UCB, rc.jobs[b].c.par, rc.jobs[b].c.c);
        add_job(&rc, PB_JUMPS, k, RULE_UCB, rc.jobs[b].c.par, rc.jobs[b].c.c);
        if (k < N_FAM) { /* the same family greedy at its rotation-best greedy setting */
            int bg = best_job(&rc, 0, phase2, PB_ROTATION, k, RULE_UCB, 0.0);
            if (bg >= 0 && bg != b) {
                add_job(&rc, PB_ROT_HELD, k, RULE_UCB, rc.jobs[bg].c.par, 0.0);
                add_job(&rc, PB_JUMPS, k, RULE_UCB, rc.jobs[bg].c.par, 0.0);
            }
        }
    }
    fprintf(stderr, "smooth_drift: phase 2, %d jobs\n", rc.n - phase2);
    if (run_from(&rc, phase2, jobs) != 0) {
        fprintf(stderr, "smooth_drift: a job failed\n");
        return 1;
    }

    /* ---- report ---- */
    printf("Smooth drift, one mechanism at a time (issue 38 item 2). Rotation: mean final pseudo-regret +- standard\n"
           "error over seeds 1-%d; Elec2, NOAA: accuracy%s (SquareCB rows: mean of seeds 1-%d). Every row is the best\n"
           "setting of its cell chosen with hindsight on that problem. UCB width: c beta ||x||_P, beta = %.3f (d = 5),\n"
           "%.3f (d = 16), %.3f (d = 18). 'gap' is the share of the distance from adaptive (c = alpha = 1, this run)\n"
           "to VW's tuned figure (issue 38: 310.8; 0.8808; 0.7801) that the row covers (100%%: VW's figure).\n",
           rc.seeds, quick ? ", the first 10000 rows" : "", STREAM_SEEDS,
           R_NOISE * sqrt(2.0 * log(100.0) + 5 * log(1.0 + 1000.0 / 5)) + 1.0,
           R_NOISE * sqrt(2.0 * log(100.0) + 16 * log(1.0 + 1000.0 / 16)) + 1.0,
           R_NOISE * sqrt(2.0 * log(100.0) + 18 * log(1.0 + 1000.0 / 18)) + 1.0);
    for (k = 0; k < N_KIND; ++k) printf("  %-8s %s\n", kind_name[k], kind_about[k]);
    for (pb = PB_ROTATION; pb <= PB_NOAA; ++pb) ref_job[pb] = best_job(&rc, 0, phase2, pb, L_ADAPTIVE, RULE_UCB, 1.0);
    for (pb = PB_ROTATION; pb <= PB_NOAA; ++pb) {
        int digits = higher_better(pb) ? 4 : 1, ibest = -1;
        double ref;
        const char *const cat[3] = {"width (adaptive's alpha)", "family (at c = 1)", "width (a family's c)"};
        int catbest[4] = {-1, -1, -1, -1};
        if (ref_job[pb] < 0) {
            printf("\n%s: skipped (data files missing or malformed)\n", pb_name[pb]);
            continue;
        }
        ref = rc.jobs[ref_job[pb]].out.mean;
        printf("\n### %s\n\n| mechanism | best setting | %s | gap | us/round |\n|---|---|---|---|---|\n", pb_name[pb],
               higher_better(pb) ? "accuracy" : "regret");
        for (w = N_WIDTH - 1; w >= 0; --w) {
            int b = best_job(&rc, 0, phase2, pb, L_ADAPTIVE, RULE_UCB, widths[w]);
            if (b >= 0) print_row(&rc, b, "adaptive", digits, ref);
            if (w < N_WIDTH - 1 && b >= 0 &&
                (catbest[0] < 0 || (higher_better(pb) ? rc.jobs[b].out.mean > rc.jobs[catbest[0]].out.mean
                                                      : rc.jobs[b].out.mean < rc.jobs[catbest[0]].out.mean)))
                catbest[0] = b;
        }
        for (k = 0; k < N_KIND; ++k) {
            if (k == L_ADAPTIVE) continue;
            for (w = N_WIDTH - 1; w >= 0; --w) {
                int b = best_job(&rc, 0, phase2, pb, k, RULE_UCB, widths[w]);
                char lab[64];
                if (b < 0) continue;
                snprintf(lab, sizeof lab, "%s", kind_name[k]);
                print_row(&rc, b, lab, digits, ref);
                if (w == N_WIDTH - 1) {
                    if (k < N_FAM && k != F_DISC &&
                        (catbest[1] < 0 || (higher_better(pb) ? rc.jobs[b].out.mean > rc.jobs[catbest[1]].out.mean
                                                              : rc.jobs[b].out.mean < rc.jobs[catbest[1]].out.mean)))
                        catbest[1] = b;
                } else if ((k == F_DISC || k == L_DLINUCB) &&
                           (catbest[2] < 0 ||
                            (higher_better(pb) ? rc.jobs[b].out.mean > rc.jobs[catbest[2]].out.mean
                                               : rc.jobs[b].out.mean < rc.jobs[catbest[2]].out.mean)))
                    catbest[2] = b;
                if (ibest < 0 || (higher_better(pb) ? rc.jobs[b].out.mean > rc.jobs[ibest].out.mean
                                                    : rc.jobs[b].out.mean < rc.jobs[ibest].out.mean))
                    ibest = b;
            }
            if (k < N_FAM) {
                int b = best_job(&rc, phase2, rc.n, pb, k, RULE_IGW, -1.0);
                if (b >= 0) {
                    char lab[64];
                    snprintf(lab, sizeof lab, "%s, SquareCB", kind_name[k]);
                    print_row(&rc, b, lab, digits, ref);
                    if (catbest[3] < 0 || (higher_better(pb) ? rc.jobs[b].out.mean > rc.jobs[catbest[3]].out.mean
                                                             : rc.jobs[b].out.mean < rc.jobs[catbest[3]].out.mean))
                        catbest[3] = b;
                }
            }
        }
        printf("\n");
        for (i = 0; i < 4; ++i) {
            char s[128];
            const job *j;
            double gap = vw_figure(pb) - ref;
            if (catbest[i] < 0) continue;
            j = &rc.jobs[catbest[i]];
            setting(&j->c, s, sizeof s);
            printf("single change on %s, %s: %s %s -> %.*f (adaptive %.*f, VW %.*f): %.0f%% of the gap\n", pb_name[pb],
                   i < 3 ? cat[i] : "rule (SquareCB sampling on a family's greedy mean)", kind_name[j->c.kind], s,
                   digits, j->out.mean, digits, ref, digits, vw_figure(pb), 100.0 * (j->out.mean - ref) / gap);
        }
        if (ibest >= 0) {
            char s[128];
            setting(&rc.jobs[ibest].c, s, sizeof s);
            printf("best cell on %s: %s %s -> %.*f\n", pb_name[pb], kind_name[rc.jobs[ibest].c.kind], s, digits,
                   rc.jobs[ibest].out.mean);
        }
        printf("\nEach setting at its best width (c in 0, 0.1, 0.3, 1), %s:\n", pb_name[pb]);
        for (k = 0; k < N_FAM; ++k) {
            printf("  %s:", kind_name[k]);
            for (g = 0; g < GRID; ++g) {
                int q, b = -1;
                for (q = 0; q < phase2; ++q) {
                    const job *j = &rc.jobs[q];
                    if (j->pb != pb || j->c.kind != k || j->c.par != grid[k][g]) continue;
                    if (b < 0 || (higher_better(pb) ? j->out.mean > rc.jobs[b].out.mean
                                                    : j->out.mean < rc.jobs[b].out.mean))
                        b = q;
                }
                if (b >= 0) printf(" %g: %.*f (c %g);", grid[k][g], digits, rc.jobs[b].out.mean, rc.jobs[b].c.c);
            }
            printf("\n");
        }
    }

    printf("\n### Each family's best rotation cell on seeds 21-40 (not tuned on) and on jumps (seeds 1-%d)\n\n"
           "| family | setting (tuned on rotation, seeds 1-%d) | rotation | rotation, seeds 21-40 | jumps | us/round |\n"
           "|---|---|---|---|---|---|\n",
           rc.seeds, rc.seeds);
    for (i = phase2; i < rc.n; ++i) {
        const job *h = &rc.jobs[i], *jm = NULL, *r1 = NULL;
        char s[128];
        int q;
        if (h->pb != PB_ROT_HELD) continue;
        for (q = phase2; q < rc.n; ++q)
            if (rc.jobs[q].pb == PB_JUMPS && memcmp(&rc.jobs[q].c, &h->c, sizeof h->c) == 0) jm = &rc.jobs[q];
        for (q = 0; q < phase2; ++q)
            if (rc.jobs[q].pb == PB_ROTATION && memcmp(&rc.jobs[q].c, &h->c, sizeof h->c) == 0) r1 = &rc.jobs[q];
        setting(&h->c, s, sizeof s);
        printf("| %s | %s | %.1f +- %.1f | %.1f +- %.1f | %.1f +- %.1f | %.2f |\n", kind_name[h->c.kind], s,
               r1 ? r1->out.mean : NAN, r1 ? r1->out.se : NAN, h->out.mean, h->out.se, jm ? jm->out.mean : NAN,
               jm ? jm->out.se : NAN, h->out.us);
    }
    printf("\n(VW's tuned figures, issue 38: rotation 310.8, jumps 519.6; adaptive's figures in make agnostic 374.2 and 196.9.)\n");

    if (out_dir) {
        FILE *f = repro_open_in(out_dir, "smooth_drift.csv");
        if (f) {
            fprintf(f, "problem,family,rule,setting,width_or_gamma_scale,runs,mean,std_err,us_per_round\n");
            for (i = 0; i < rc.n; ++i) {
                const job *j = &rc.jobs[i];
                fprintf(f, "%s,%s,%s,%g,%g,%d,%.6g,%.6g,%.4g\n", pb_name[j->pb], kind_name[j->c.kind],
                        j->c.rule == RULE_IGW ? "squarecb" : "ucb", j->c.par, j->c.c, j->out.runs, j->out.mean,
                        j->out.se, j->out.us);
            }
            fclose(f);
            fprintf(stderr, "smooth_drift: wrote %s/smooth_drift.csv\n", out_dir);
        }
    }
    for (i = 0; i < 2; ++i) {
        free(streams[i].z);
        free(streams[i].label);
    }
    fprintf(stderr, "smooth_drift: %ld s\n", (long)(time(NULL) - start));
    return 0;
}

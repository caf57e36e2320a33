/* defaults.c - what `make defaults` runs: every config_init default
   beside the alternatives a user could pick in one field, measured on a
   family of problems none of the defaults was tuned on.

   For each policy (LinUCB, SW-UCB, D-LinUCB, BOB, OAM, Trace-UCB, and
   adaptive, whose defaults are only checked for regressions) the program
   builds the config with config_init, tells it the problem's noise scale
   (and for BOB and OAM the horizon they need, for SW-UCB and D-LinUCB the
   window or discount being measured), and nothing else. Each variant then
   changes one field (width rule, alpha, lambda, delta, ...). A variant
   equal to the current default is not run again: the table marks it.

   Problems (independent of bench/agnostic.c: other d, K, noise, drifts
   and horizons; six stationary):
     linear environments, T = 4000 to 20000: stationary sphere, Gaussian,
     fixed and box arms, a K-armed bandit and a two-armed one with a small
     gap; jumps, reshuffled K-armed means, a random walk, a slow half
     turn, three phase-shifted sinusoidal arms, a noisy jump at d = 10 and
     a parameter that stays put and then turns. SW-UCB and D-LinUCB are
     measured at windows (memories 1 / (1 - gamma)) 200, 800 and 3200.
     OAM: random finite action sets on the sphere (1 to 4 contexts).
     Trace-UCB: active learning of m models with equal and unequal noise
     variances; the loss is max_i ||beta_i - beta_hat_i||^2_Sigma of the
     returned (ridge) estimates at the horizon.

   Every variant of a policy runs on the same seeds (common random
   numbers: seed s is one stream of arms, parameters and noise for all).
   Ratio = variant's mean final regret (loss) / the default's, per row;
   +- is the standard error of that ratio from the paired per-seed
   differences. Per policy the summary gives, for each variant, the worst
   row and the geometric mean over rows.

     ./defaults [--policy NAME]... [--seeds N] [--quick] [--out DIR]

   One process, one thread. --quick: 3 seeds and horizons / 4 (Trace-UCB:
   40 seeds, horizons / 2), for a first look. --seeds N: N seeds (Trace-UCB
   20 N). */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PI 3.14159265358979323846

#define MAXD 16
#define MAX_SEEDS 1000
#define MAX_VAR 16
#define N_WIN 3
static const int windows[N_WIN] = {200, 800, 3200};

/* ---- linear problems ----------------------------------------------------- */

enum { K_STATIONARY, K_JUMPS, K_SHUFFLE, K_WALK, K_TURN, K_SIN3, K_CALM_TURN };

typedef struct lproblem {
    const char *name, *about;
    int d, K;
    uint64_t T;
    double noise;
    isdb_arms_kind arms; /* SPHERE, GAUSSIAN (cov I/d), BOX ([-0.3, 0.3], clipped to 1), FIXED */
    int onehot;          /* FIXED arms: identity (K-armed); else K random unit vectors */
    int kind, changes;
    double turns, period, step, gap;
} lproblem;

static const lproblem lprobs[] = {
    {"st-small", "d=3, K=5 sphere, noise 0.5", 3, 5, 5000, 0.5, ISDB_ARMS_SPHERE, 0, K_STATIONARY, 0, 0, 0, 0, 0},
    {"st-gauss", "d=8, K=30 Gaussian N(0, I/d), noise 1", 8, 30, 8000, 1.0, ISDB_ARMS_GAUSSIAN, 0, K_STATIONARY, 0, 0,
     0, 0, 0},
    {"st-fixed", "d=4, 10 fixed unit arms, noise 0.3", 4, 10, 10000, 0.3, ISDB_ARMS_FIXED, 0, K_STATIONARY, 0, 0, 0, 0,
     0},
    {"st-karmed", "6-armed, means U[0, 0.5], noise 0.2", 6, 6, 10000, 0.2, ISDB_ARMS_FIXED, 1, K_STATIONARY, 0, 0, 0,
     0, 0},
    {"st-d15", "d=15, K=40 box arms, noise 0.2", 15, 40, 4000, 0.2, ISDB_ARMS_BOX, 0, K_STATIONARY, 0, 0, 0, 0, 0},
    {"st-2arm-gap", "2-armed, means 0.5 / 0.4, noise 1", 2, 2, 10000, 1.0, ISDB_ARMS_FIXED, 1, K_STATIONARY, 0, 0, 0,
     0, 0.1},
    {"jumps", "d=4, K=8 sphere, 2 jumps, noise 0.5", 4, 8, 12000, 0.5, ISDB_ARMS_SPHERE, 0, K_JUMPS, 2, 0, 0, 0, 0},
    {"shuffle", "5-armed, means redrawn 8 times, noise 0.3", 5, 5, 15000, 0.3, ISDB_ARMS_FIXED, 1, K_SHUFFLE, 8, 0, 0,
     0, 0},
    {"walk", "d=5, K=15 sphere, random walk 0.01/round, noise 0.5", 5, 15, 10000, 0.5, ISDB_ARMS_SPHERE, 0, K_WALK, 0,
     0, 0, 0.01, 0},
    {"half-turn", "d=6, K=20 sphere, half a turn, noise 1", 6, 20, 20000, 1.0, ISDB_ARMS_SPHERE, 0, K_TURN, 0, 0.5, 0,
     0, 0},
    {"sin-3arm", "3-armed, phase-shifted sinusoids, period 3000, noise 0.2", 3, 3, 12000, 0.2, ISDB_ARMS_FIXED, 1,
     K_SIN3, 0, 0, 3000, 0, 0},
    {"jump-d10", "d=10, K=10 sphere, 1 jump, noise 2", 10, 10, 10000, 2.0, ISDB_ARMS_SPHERE, 0, K_JUMPS, 1, 0, 0, 0,
     0},
    {"calm-turn", "d=3, K=10 sphere, fixed, then a quarter turn, noise 0.5", 3, 10, 8000, 0.5, ISDB_ARMS_SPHERE, 0,
     K_CALM_TURN, 0, 0.25, 0, 0, 0},
};
#define N_LPROB ((int)(sizeof lprobs / sizeof lprobs[0]))

/* The parameter path of a callback problem. */
typedef struct path {
    const lproblem *pr;
    uint64_t T;
    double dir[2][MAXD];
    double *walk; /* K_WALK: T x d */
} path;

static void path_theta(uint64_t t, double *theta, void *user) {
    const path *p = (const path *)user;
    int i, d = p->pr->d;
    double a = 0.0;
    if (t >= p->T) t = p->T - 1;
    switch (p->pr->kind) {
    case K_WALK:
        memcpy(theta, p->walk + t * (uint64_t)d, sizeof(double) * (size_t)d);
        return;
    case K_SIN3:
        for (i = 0; i < d; ++i)
            theta[i] = 0.5 + 0.3 * sin(2.0 * PI * ((double)t / p->pr->period + i / 3.0));
        return;
    case K_TURN:
        a = 2.0 * PI * p->pr->turns * (double)t / (double)p->T;
        break;
    default: /* K_CALM_TURN: still for T/2, then `turns` turns */
        a = t < p->T / 2 ? 0.0 : 2.0 * PI * p->pr->turns * (double)(t - p->T / 2) / (double)(p->T - p->T / 2);
        break;
    }
    for (i = 0; i < d; ++i) theta[i] = cos(a) * p->dir[0][i] + sin(a) * p->dir[1][i];
}

static void unit_vector(isdb_rng *rng, int d, double *v) {
    double n;
    int i;
    do {
        for (n = 0.0, i = 0; i < d; ++i) {
            v[i] = isdb_rng_normal(rng);
            n += v[i] * v[i];
        }
    } while (n < 1e-12);
    for (i = 0; i < d; ++i) v[i] /= sqrt(n);
}

/* Storage of one problem instance. */
typedef struct linst {
    double pieces[16 * MAXD];
    uint64_t switches[16];
    double arms[64 * MAXD];
    double cov[MAXD * MAXD];
    path st;
} linst;

static isdb_result make_lenv(const lproblem *pr, uint64_t T, uint64_t seed, linst *in, isdb_linear_env *env) {
    isdb_linear_env_config c = isdb_linear_env_config_init(pr->d, pr->K);
    isdb_rng rng;
    int d = pr->d, K = pr->K, i, k;
    isdb_rng_seed(&rng, seed * 1000003u + 101u); /* the instance: parameters, arm set, plane */
    c.seed = seed;
    c.noise_sd = pr->noise;
    c.arms = pr->arms;
    if (pr->arms == ISDB_ARMS_GAUSSIAN) {
        memset(in->cov, 0, sizeof in->cov);
        for (i = 0; i < d; ++i) in->cov[i * d + i] = 1.0 / d;
        c.cov = in->cov;
    } else if (pr->arms == ISDB_ARMS_BOX) {
        c.box_lo = -0.3;
        c.box_hi = 0.3;
        c.clip_norm = 1.0;
    } else if (pr->arms == ISDB_ARMS_FIXED) {
        memset(in->arms, 0, sizeof in->arms);
        for (k = 0; k < K; ++k) {
            if (pr->onehot)
                in->arms[k * d + k] = 1.0;
            else
                unit_vector(&rng, d, in->arms + k * d);
        }
        c.fixed_arms = in->arms;
    }
    in->st.pr = pr;
    in->st.T = T;
    switch (pr->kind) {
    case K_STATIONARY:
    case K_JUMPS:
    case K_SHUFFLE: {
        int n = pr->kind == K_STATIONARY ? 1 : pr->changes + 1;
        for (k = 0; k < n; ++k) {
            double *th = in->pieces + k * d;
            if (pr->onehot) {
                if (pr->gap > 0.0)
                    for (i = 0; i < d; ++i) th[i] = 0.5 - pr->gap * i; /* arm 0 best: ties to it are no help */
                else
                    for (i = 0; i < d; ++i) th[i] = (pr->kind == K_SHUFFLE ? 0.45 : 0.5) * isdb_rng_uniform(&rng);
            } else {
                unit_vector(&rng, d, th);
            }
        }
        for (k = 0; k + 1 < n; ++k) in->switches[k] = T * (uint64_t)(k + 1) / (uint64_t)n;
        c.n_pieces = n;
        c.pieces = in->pieces;
        c.switch_at = n > 1 ? in->switches : NULL;
        break;
    }
    case K_WALK: {
        double th[MAXD];
        uint64_t t;
        unit_vector(&rng, d, th);
        for (t = 0; t < T; ++t) {
            double n = 0.0;
            for (i = 0; i < d; ++i) th[i] += pr->step * isdb_rng_normal(&rng), n += th[i] * th[i];
            for (i = 0; i < d; ++i) th[i] /= sqrt(n);
            memcpy(in->st.walk + t * (uint64_t)d, th, sizeof(double) * (size_t)d);
        }
        c.path = ISDB_PATH_CALLBACK;
        c.theta_fn = path_theta;
        c.theta_user = &in->st;
        break;
    }
    default: {
        double dot = 0.0, n = 0.0;
        unit_vector(&rng, d, in->st.dir[0]);
        unit_vector(&rng, d, in->st.dir[1]);
        for (i = 0; i < d; ++i) dot += in->st.dir[0][i] * in->st.dir[1][i];
        for (i = 0; i < d; ++i) in->st.dir[1][i] -= dot * in->st.dir[0][i], n += in->st.dir[1][i] * in->st.dir[1][i];
        for (i = 0; i < d; ++i) in->st.dir[1][i] /= sqrt(n);
        c.path = ISDB_PATH_CALLBACK;
        c.theta_fn = path_theta;
        c.theta_user = &in->st;
        break;
    }
    }
    return isdb_linear_env_init(&c, NULL, env);
}

/* ---- variants -------------------------------------------------------------- */

enum {
    F_WIDTH,    /* isdb_width */
    F_ALPHA,
    F_LAMBDA,
    F_DELTA,
    F_CLIP,     /* BOB */
    F_RBOUND,   /* BOB reward_bound */
    F_FORCING,  /* OAM */
    F_TU_WIDTH, /* Trace-UCB width */
    F_TU_MODE,  /* Trace-UCB mode */
    F_RSCALE,   /* Trace-UCB: R told times this (a misjudged noise bound) */
    F_LINUCB,   /* not a field: a default LinUCB as a reference (OAM) */
    F_NONE
};

typedef struct variant {
    const char *name;
    int field[2];
    double value[2];
} variant;

#define V1(name, f, v) {name, {f, F_NONE}, {v, 0}}
#define V2(name, f, v, g, w) {name, {f, g}, {v, w}}

enum { P_LINUCB, P_SWUCB, P_DLINUCB, P_BOB, P_ADAPTIVE, P_OAM, P_TRACEUCB, N_POLICY };
static const char *const policy_names[N_POLICY] = {"linucb", "swucb", "dlinucb", "bob", "adaptive", "oam", "traceucb"};

static const variant variants[N_POLICY][MAX_VAR] = {
    {V1("width logdet", F_WIDTH, ISDB_WIDTH_LOGDET), V1("width dettrace", F_WIDTH, ISDB_WIDTH_DETTRACE),
     V1("width simple", F_WIDTH, ISDB_WIDTH_SIMPLE), V1("width constant", F_WIDTH, ISDB_WIDTH_CONSTANT),
     V1("alpha 1", F_ALPHA, 1), V1("alpha 0.5", F_ALPHA, 0.5), V1("alpha 0.25", F_ALPHA, 0.25),
     V1("lambda 1", F_LAMBDA, 1), V1("lambda 0.1", F_LAMBDA, 0.1), V1("lambda 10", F_LAMBDA, 10),
     V1("delta 0.01", F_DELTA, 0.01), V1("delta 0.1", F_DELTA, 0.1), V1("delta 0.001", F_DELTA, 0.001), {NULL, {0, 0}, {0, 0}}},
    {V1("width simple", F_WIDTH, ISDB_WIDTH_SIMPLE), V1("width logdet", F_WIDTH, ISDB_WIDTH_LOGDET),
     V1("width dettrace", F_WIDTH, ISDB_WIDTH_DETTRACE), V1("alpha 1", F_ALPHA, 1), V1("alpha 0.5", F_ALPHA, 0.5),
     V1("lambda 1", F_LAMBDA, 1), V1("lambda 0.1", F_LAMBDA, 0.1), V1("lambda 10", F_LAMBDA, 10),
     V1("delta 0.01", F_DELTA, 0.01), V1("delta 0.1", F_DELTA, 0.1), V1("delta 0.001", F_DELTA, 0.001), {NULL, {0, 0}, {0, 0}}},
    {V1("alpha 1", F_ALPHA, 1), V1("alpha 0.5", F_ALPHA, 0.5), V1("alpha 0.25", F_ALPHA, 0.25),
     V1("lambda 1", F_LAMBDA, 1), V1("lambda 0.1", F_LAMBDA, 0.1), V1("lambda 10", F_LAMBDA, 10),
     V1("delta 0.01", F_DELTA, 0.01), V1("delta 0.1", F_DELTA, 0.1), V1("delta 0.001", F_DELTA, 0.001), {NULL, {0, 0}, {0, 0}}},
    {V1("clip 0", F_CLIP, 0), V1("clip 1", F_CLIP, 1), V1("reward_bound 1", F_RBOUND, 1),
     V1("reward_bound 0.5", F_RBOUND, 0.5), V1("reward_bound 2", F_RBOUND, 2), V1("alpha 1", F_ALPHA, 1),
     V1("alpha 0.5", F_ALPHA, 0.5), {NULL, {0, 0}, {0, 0}}},
    {V1("linucb (reference)", F_LINUCB, 0), {NULL, {0, 0}, {0, 0}}},
    {V1("forcing loglog", F_FORCING, ISDB_OAM_FORCE_LOGLOG), V1("forcing none", F_FORCING, ISDB_OAM_FORCE_NONE),
     V1("forcing scaled", F_FORCING, ISDB_OAM_FORCE_SCALED), V1("linucb (reference)", F_LINUCB, 0), {NULL, {0, 0}, {0, 0}}},
    {V1("width theory", F_TU_WIDTH, ISDB_TRACEUCB_WIDTH_THEORY),
     V1("width scaled", F_TU_WIDTH, ISDB_TRACEUCB_WIDTH_SCALED),
     V2("scaled, alpha 0.5", F_TU_WIDTH, ISDB_TRACEUCB_WIDTH_SCALED, F_ALPHA, 0.5),
     V2("scaled, R / 10", F_TU_WIDTH, ISDB_TRACEUCB_WIDTH_SCALED, F_RSCALE, 0.1),
     V2("theory, R / 10", F_TU_WIDTH, ISDB_TRACEUCB_WIDTH_THEORY, F_RSCALE, 0.1),
     V1("uniform (reference)", F_TU_MODE, ISDB_TRACEUCB_UNIFORM), {NULL, {0, 0}, {0, 0}}},
};

static int n_variants(int p) {
    int v = 0;
    while (v < MAX_VAR && variants[p][v].name) ++v;
    return v;
}

/* Sets *x to v; 1 if that changed it. */
static int set_real(double *x, double v) {
    int changed = *x != v;
    *x = v;
    return changed;
}
static int set_int(int *x, int v) {
    int changed = *x != v;
    *x = v;
    return changed;
}

/* The fields the ridge-style policies share (width NULL: D-LinUCB has none);
   returns whether the variant changed any. */
static int set_ridge_fields(const variant *va, int *width, double *alpha, double *lambda, double *delta) {
    int changed = 0, j;
    for (j = 0; va && j < 2 && va->field[j] != F_NONE; ++j) {
        double x = va->value[j];
        if (va->field[j] == F_WIDTH && width) changed |= set_int(width, (int)x);
        if (va->field[j] == F_ALPHA) changed |= set_real(alpha, x);
        if (va->field[j] == F_LAMBDA) changed |= set_real(lambda, x);
        if (va->field[j] == F_DELTA) changed |= set_real(delta, x);
    }
    return changed;
}

typedef union any_policy {
    isdb_policy base;
    isdb_linucb linucb;
    isdb_swucb swucb;
    isdb_dlinucb dlinucb;
    isdb_bob bob;
    isdb_adaptive adaptive;
    isdb_oam oam;
    isdb_traceucb traceucb;
} any_policy;

/* What a policy is told about the problem. */
typedef struct told {
    int d, K;
    uint64_t T;
    double noise; /* R, sigma; Trace-UCB: the largest noise variance */
    int window;   /* SW-UCB window, D-LinUCB memory */
    uint64_t seed;
} told;

/* Builds policy p with variant v (-1: the default) applied. Returns 0 on
   success, 1 if the variant equals the default (nothing built), -1 on
   error. */
static int make_policy(int p, int v, const told *tl, any_policy *out) {
    const variant *va = v >= 0 ? &variants[p][v] : NULL;
    int changed = 0, j;
    isdb_result r = ISDB_ERR_INVALID_ARG;
    if (va && va->field[0] == F_LINUCB) {
        isdb_linucb_config c = isdb_linucb_config_init(tl->d, tl->K);
        c.R = tl->noise;
        return isdb_linucb_init(&c, NULL, &out->linucb) == ISDB_OK ? 0 : -1;
    }
    switch (p) {
    case P_LINUCB: {
        isdb_linucb_config c = isdb_linucb_config_init(tl->d, tl->K);
        c.R = tl->noise;
        if (va && !set_ridge_fields(va, (int *)&c.width, &c.alpha, &c.lambda, &c.delta)) return 1;
        r = isdb_linucb_init(&c, NULL, &out->linucb);
        break;
    }
    case P_SWUCB: {
        isdb_swucb_config c = isdb_swucb_config_init(tl->d, tl->K, tl->window);
        c.R = tl->noise;
        if (va && !set_ridge_fields(va, (int *)&c.width, &c.alpha, &c.lambda, &c.delta)) return 1;
        r = isdb_swucb_init(&c, NULL, &out->swucb);
        break;
    }
    case P_DLINUCB: {
        isdb_dlinucb_config c = isdb_dlinucb_config_init(tl->d, tl->K, 1.0 - 1.0 / tl->window);
        c.R = tl->noise;
        if (va && !set_ridge_fields(va, NULL, &c.alpha, &c.lambda, &c.delta)) return 1;
        r = isdb_dlinucb_init(&c, NULL, &out->dlinucb);
        break;
    }
    case P_BOB: {
        isdb_bob_config c = isdb_bob_config_init(tl->d, tl->K, tl->T);
        c.R = tl->noise;
        c.seed = tl->seed;
        for (j = 0; va && j < 2 && va->field[j] != F_NONE; ++j) {
            double x = va->value[j];
            if (va->field[j] == F_CLIP) changed |= set_int(&c.clip, (int)x);
            if (va->field[j] == F_RBOUND) changed |= set_real(&c.reward_bound, x);
            if (va->field[j] == F_ALPHA) changed |= set_real(&c.alpha, x);
        }
        if (va && !changed) return 1;
        r = isdb_bob_init(&c, NULL, &out->bob);
        break;
    }
    case P_ADAPTIVE: {
        isdb_adaptive_config c = isdb_adaptive_config_init(tl->d, tl->K);
        c.R = tl->noise;
        r = isdb_adaptive_init(&c, NULL, &out->adaptive);
        break;
    }
    case P_OAM: {
        isdb_oam_config c = isdb_oam_config_init(tl->d, tl->K, tl->T);
        for (j = 0; va && j < 2 && va->field[j] != F_NONE; ++j)
            if (va->field[j] == F_FORCING) changed |= set_int((int *)&c.forcing, (int)va->value[j]);
        if (va && !changed) return 1;
        r = isdb_oam_init(&c, NULL, &out->oam);
        break;
    }
    case P_TRACEUCB: {
        isdb_traceucb_config c = isdb_traceucb_config_init(tl->d, tl->K);
        c.R = tl->noise;
        for (j = 0; va && j < 2 && va->field[j] != F_NONE; ++j) {
            double x = va->value[j];
            if (va->field[j] == F_TU_WIDTH) changed |= set_int((int *)&c.width, (int)x);
            if (va->field[j] == F_TU_MODE) changed |= set_int((int *)&c.mode, (int)x);
            if (va->field[j] == F_ALPHA) changed |= set_real(&c.alpha, x);
            if (va->field[j] == F_RSCALE) changed |= set_real(&c.R, x * tl->noise);
        }
        if (va && !changed) return 1;
        r = isdb_traceucb_init(&c, NULL, &out->traceucb);
        break;
    }
    default:
        break;
    }
    return r == ISDB_OK ? 0 : -1;
}

/* ---- OAM and Trace-UCB problems ------------------------------------------ */

typedef struct oproblem {
    const char *name, *about;
    int d, K, M;
    uint64_t n;
    double noise;
    double probs[4];
} oproblem;

static const oproblem oprobs[] = {
    {"oam-d2-K3", "d=2, K=3, 1 context, noise 1", 2, 3, 1, 10000, 1.0, {1, 0, 0, 0}},
    {"oam-d3-K5-M2", "d=3, K=5, 2 contexts (0.7 / 0.3), noise 1", 3, 5, 2, 10000, 1.0, {0.7, 0.3, 0, 0}},
    {"oam-d4-K10", "d=4, K=10, 1 context, noise 0.5", 4, 10, 1, 10000, 0.5, {1, 0, 0, 0}},
    {"oam-d5-K8-M3", "d=5, K=8, 3 contexts, noise 1", 5, 8, 3, 10000, 1.0, {1, 1, 1, 0}},
    {"oam-d2-K20", "d=2, K=20, 1 context, noise 0.3", 2, 20, 1, 20000, 0.3, {1, 0, 0, 0}},
    {"oam-d3-K4-M4", "d=3, K=4, 4 contexts (0.55 / 0.3 / 0.1 / 0.05), noise 1", 3, 4, 4, 10000, 1.0,
     {0.55, 0.3, 0.1, 0.05}},
};
#define N_OPROB ((int)(sizeof oprobs / sizeof oprobs[0]))

typedef struct tproblem {
    const char *name, *about;
    int d, m, n;
    double var[10];
} tproblem;

static const tproblem tprobs[] = {
    {"tu-paper-unequal", "d=10, m=7, variances 0.01..3 (the paper's), n=350", 10, 7, 350,
     {0.01, 0.02, 0.75, 1, 2, 2, 3}},
    {"tu-paper-equal", "d=10, m=7, equal variances 1, n=350", 10, 7, 350, {1, 1, 1, 1, 1, 1, 1}},
    {"tu-d5-m3", "d=5, m=3, variances 0.1, 1, 4, n=200", 5, 3, 200, {0.1, 1, 4}},
    {"tu-d20-m4", "d=20, m=4, variances 0.5, 0.5, 1, 2, n=400", 20, 4, 400, {0.5, 0.5, 1, 2}},
    {"tu-d3-m10", "d=3, m=10, variances 0.05..5 geometric, n=300", 3, 10, 300,
     {0.05, 0.083, 0.139, 0.232, 0.387, 0.646, 1.077, 1.797, 2.997, 5.0}},
    {"tu-d8-m5-long", "d=8, m=5, variances 1, 1, 1, 1, 10, n=1000", 8, 5, 1000, {1, 1, 1, 1, 10}},
};
#define N_TPROB ((int)(sizeof tprobs / sizeof tprobs[0]))

/* ---- running ------------------------------------------------------------- */

typedef struct row {
    char name[64];
    double def_mean, def_se;
    double ratio[MAX_VAR], rse[MAX_VAR];
    int is_default[MAX_VAR];
} row;

/* Mean and standard errors from per-seed results res[v][s] (v = 0 the
   default, v = 1 + j variant j). */
static void summarise(const double *res, int nv, int seeds, const int *skip, row *rw) {
    int v, s;
    double m0 = 0.0, var0 = 0.0;
    for (s = 0; s < seeds; ++s) m0 += res[s];
    m0 /= seeds;
    for (s = 0; s < seeds; ++s) var0 += (res[s] - m0) * (res[s] - m0);
    rw->def_mean = m0;
    rw->def_se = seeds > 1 ? sqrt(var0 / (seeds - 1) / seeds) : 0.0;
    for (v = 0; v < nv; ++v) {
        const double *x = res + (size_t)(v + 1) * MAX_SEEDS;
        double md = 0.0, vd = 0.0, mx = 0.0;
        rw->is_default[v] = skip[v];
        if (skip[v]) {
            rw->ratio[v] = 1.0;
            rw->rse[v] = 0.0;
            continue;
        }
        for (s = 0; s < seeds; ++s) mx += x[s], md += x[s] - res[s];
        mx /= seeds;
        md /= seeds;
        for (s = 0; s < seeds; ++s) vd += (x[s] - res[s] - md) * (x[s] - res[s] - md);
        rw->ratio[v] = m0 > 0.0 ? mx / m0 : 1.0;
        rw->rse[v] = m0 > 0.0 && seeds > 1 ? sqrt(vd / (seeds - 1) / seeds) / m0 : 0.0;
    }
}

static double *results; /* (1 + MAX_VAR) x MAX_SEEDS */

static int run_linear(int p, int prob, int win, int seeds, int quick, row *rw) {
    const lproblem *pr = &lprobs[prob];
    uint64_t T = quick ? pr->T / 4 : pr->T;
    int nv = n_variants(p), v, s, skip[MAX_VAR];
    linst *in = (linst *)calloc(1, sizeof *in);
    if (!in) return 1;
    in->st.walk = (double *)malloc(sizeof(double) * (size_t)T * (size_t)pr->d);
    if (!in->st.walk) return 1;
    memset(skip, 0, sizeof skip);
    for (s = 0; s < seeds; ++s) {
        isdb_linear_env env;
        told tl;
        if (make_lenv(pr, T, (uint64_t)s + 1, in, &env) != ISDB_OK) return 1;
        tl.d = pr->d;
        tl.K = pr->K;
        tl.T = T;
        tl.noise = pr->noise;
        tl.window = win >= 0 ? windows[win] : 0;
        tl.seed = (uint64_t)s + 1;
        for (v = -1; v < nv; ++v) {
            any_policy pol;
            isdb_sim_result res;
            int made = make_policy(p, v, &tl, &pol);
            if (made < 0) return 1;
            if (made == 1) {
                skip[v] = 1;
                continue;
            }
            isdb_env_reset(&env.base);
            if (isdb_sim_run(&pol.base, &env.base, T, NULL, &res) != ISDB_OK) return 1;
            results[(size_t)(v + 1) * MAX_SEEDS + (size_t)s] = res.regret;
            isdb_policy_uninit(&pol.base);
        }
        isdb_env_uninit(&env.base);
    }
    summarise(results, nv, seeds, skip, rw);
    if (win >= 0)
        snprintf(rw->name, sizeof rw->name, "%s w=%d", pr->name, windows[win]);
    else
        snprintf(rw->name, sizeof rw->name, "%s", pr->name);
    free(in->st.walk);
    free(in);
    return 0;
}

static int run_oam(int prob, int seeds, int quick, row *rw) {
    const oproblem *pr = &oprobs[prob];
    uint64_t n = quick ? pr->n / 4 : pr->n;
    int nv = n_variants(P_OAM), v, s, k, skip[MAX_VAR];
    double arms[4 * 20 * MAXD], theta[MAXD];
    memset(skip, 0, sizeof skip);
    for (s = 0; s < seeds; ++s) {
        isdb_context_env_config ec = isdb_context_env_config_init(pr->d, pr->K, pr->M);
        isdb_context_env env;
        isdb_rng rng;
        told tl;
        isdb_rng_seed(&rng, (uint64_t)s * 1000003u + 202u);
        unit_vector(&rng, pr->d, theta);
        for (k = 0; k < pr->M * pr->K; ++k) unit_vector(&rng, pr->d, arms + k * pr->d);
        ec.seed = (uint64_t)s + 1;
        ec.noise_sd = pr->noise;
        ec.arms = arms;
        ec.probs = pr->probs;
        ec.theta = theta;
        if (isdb_context_env_init(&ec, NULL, &env) != ISDB_OK) return 1;
        tl.d = pr->d;
        tl.K = pr->K;
        tl.T = n;
        tl.noise = pr->noise;
        tl.window = 0;
        tl.seed = (uint64_t)s + 1;
        for (v = -1; v < nv; ++v) {
            any_policy pol;
            isdb_sim_result res;
            int made = make_policy(P_OAM, v, &tl, &pol);
            if (made < 0) return 1;
            if (made == 1) {
                skip[v] = 1;
                continue;
            }
            /* The paper's known action sets (LinUCB needs none). */
            if (v < 0 || variants[P_OAM][v].field[0] != F_LINUCB)
                for (k = 0; k < pr->M; ++k)
                    if (isdb_oam_add_context(&pol.oam, arms + k * pr->K * pr->d, pr->K, NULL) != ISDB_OK) return 1;
            isdb_env_reset(&env.base);
            if (isdb_sim_run(&pol.base, &env.base, n, NULL, &res) != ISDB_OK) return 1;
            results[(size_t)(v + 1) * MAX_SEEDS + (size_t)s] = res.regret;
            isdb_policy_uninit(&pol.base);
        }
        isdb_env_uninit(&env.base);
    }
    summarise(results, nv, seeds, skip, rw);
    snprintf(rw->name, sizeof rw->name, "%s", pr->name);
    return 0;
}

static int run_traceucb(int prob, int seeds, int quick, row *rw) {
    const tproblem *pr = &tprobs[prob];
    int n = quick ? pr->n / 2 : pr->n;
    int nv = n_variants(P_TRACEUCB), v, s, i, skip[MAX_VAR];
    double vmax = 0.0, loss[10];
    isdb_active_env_config ec = isdb_active_env_config_init(pr->d, pr->m);
    isdb_active_env env;
    memset(skip, 0, sizeof skip);
    for (i = 0; i < pr->m; ++i) vmax = fmax(vmax, pr->var[i]);
    ec.noise_var = pr->var;
    if (isdb_active_env_init(&ec, NULL, &env) != ISDB_OK) return 1;
    for (s = 0; s < seeds; ++s) {
        told tl;
        tl.d = pr->d;
        tl.K = pr->m;
        tl.T = (uint64_t)n;
        tl.noise = vmax;
        tl.window = 0;
        tl.seed = (uint64_t)s + 1;
        for (v = -1; v < nv; ++v) {
            any_policy pol;
            isdb_sim_result res;
            double worst = 0.0;
            int made = make_policy(P_TRACEUCB, v, &tl, &pol);
            if (made < 0) return 1;
            if (made == 1) {
                skip[v] = 1;
                continue;
            }
            env.base.seed = (uint64_t)s + 1;
            isdb_env_reset(&env.base);
            if (isdb_sim_run(&pol.base, &env.base, (uint64_t)n, NULL, &res) != ISDB_OK) return 1;
            if (isdb_traceucb_loss(&pol.traceucb, env.beta, ISDB_TRACEUCB_RIDGE, loss) != ISDB_OK) return 1;
            for (i = 0; i < pr->m; ++i) worst = fmax(worst, loss[i]);
            results[(size_t)(v + 1) * MAX_SEEDS + (size_t)s] = worst;
            isdb_policy_uninit(&pol.base);
        }
    }
    isdb_env_uninit(&env.base);
    summarise(results, nv, seeds, skip, rw);
    snprintf(rw->name, sizeof rw->name, "%s", pr->name);
    return 0;
}

/* ---- report -------------------------------------------------------------- */

static void report(int p, const row *rows, int n_rows, int seeds, FILE *csv) {
    int nv = n_variants(p), v, r;
    const char *what = p == P_TRACEUCB ? "loss" : "regret";
    printf("\n## %s\n\n", policy_names[p]);
    printf("Mean final %s of the default (+- s.e., %d seeds); per variant, its mean / the default's "
           "(+- s.e. of the paired difference / the default's mean; '=' marks the default itself).\n\n",
           what, seeds);
    printf("| problem | default |");
    for (v = 0; v < nv; ++v) printf(" %s |", variants[p][v].name);
    printf("\n|---|---|");
    for (v = 0; v < nv; ++v) printf("---|");
    printf("\n");
    for (r = 0; r < n_rows; ++r) {
        printf("| %s | %.4g +- %.2g |", rows[r].name, rows[r].def_mean, rows[r].def_se);
        for (v = 0; v < nv; ++v) {
            if (rows[r].is_default[v])
                printf(" = |");
            else
                printf(" %.2f +- %.2f |", rows[r].ratio[v], rows[r].rse[v]);
        }
        printf("\n");
        if (csv) {
            fprintf(csv, "%s,\"%s\",default,%.6g,%.6g\n", policy_names[p], rows[r].name, rows[r].def_mean,
                    rows[r].def_se);
            for (v = 0; v < nv; ++v)
                if (!rows[r].is_default[v])
                    fprintf(csv, "%s,\"%s\",\"%s\",%.6g,%.6g\n", policy_names[p], rows[r].name, variants[p][v].name,
                            rows[r].ratio[v] * rows[r].def_mean, rows[r].rse[v] * rows[r].def_mean);
        }
    }
    if (nv == 0 || n_rows == 0) return;
    printf("\n| %s: variant | worst ratio | best ratio | geometric mean | rows above 1.2 |\n|---|---|---|---|---|\n",
           policy_names[p]);
    for (v = 0; v < nv; ++v) {
        double worst = 0.0, best = 1e300, ls = 0.0;
        int above = 0;
        if (rows[0].is_default[v]) {
            printf("| %s | (the default) | | | |\n", variants[p][v].name);
            continue;
        }
        for (r = 0; r < n_rows; ++r) {
            double x = rows[r].ratio[v];
            worst = fmax(worst, x);
            best = fmin(best, x);
            ls += log(x);
            above += x > 1.2;
        }
        printf("| %s | %.2f | %.2f | %.3f | %d of %d |\n", variants[p][v].name, worst, best, exp(ls / n_rows), above,
               n_rows);
    }
}

int main(int argc, char **argv) {
    int use[N_POLICY], any = 0, p, i, seeds = 10, tu_seeds = 200, quick = 0, seeds_set = 0;
    const char *out_dir = NULL;
    FILE *csv = NULL;
    time_t start = time(NULL);
    for (p = 0; p < N_POLICY; ++p) use[p] = 0;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--seeds") == 0 && i + 1 < argc) {
            seeds = atoi(argv[++i]);
            seeds_set = 1;
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out_dir = argv[++i];
        } else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc) {
            const char *name = argv[++i];
            for (p = 0; p < N_POLICY; ++p)
                if (strcmp(policy_names[p], name) == 0) use[p] = any = 1;
            if (!any) {
                fprintf(stderr, "%s: unknown policy '%s'\n", argv[0], name);
                return 2;
            }
        } else {
            int help = strcmp(argv[i], "--help") == 0;
            fprintf(help ? stdout : stderr,
                    "usage: %s [--policy NAME]... [--seeds N] [--quick] [--out DIR]\n"
                    "Every config_init default beside its one-field alternatives; see the source.\n"
                    "policies: linucb swucb dlinucb bob adaptive oam traceucb\n",
                    argv[0]);
            return help ? 0 : 2;
        }
    }
    if (!any)
        for (p = 0; p < N_POLICY; ++p) use[p] = 1;
    if (quick && !seeds_set) seeds = 3;
    if (seeds_set) tu_seeds = 20 * seeds;
    if (quick && !seeds_set) tu_seeds = 40;
    if (seeds < 1 || seeds > MAX_SEEDS || tu_seeds > MAX_SEEDS) {
        fprintf(stderr, "%s: --seeds wants 1 to %d\n", argv[0], MAX_SEEDS / 20);
        return 2;
    }
    results = (double *)calloc((size_t)(1 + MAX_VAR) * MAX_SEEDS, sizeof(double));
    if (!results) return 1;
    if (out_dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/defaults.csv", out_dir);
        if (!(csv = fopen(path, "w"))) {
            fprintf(stderr, "%s: cannot write %s\n", argv[0], path);
            return 1;
        }
        fprintf(csv, "policy,problem,variant,mean,std_err\n");
    }
    printf("# config_init defaults beside their alternatives (%d seeds; Trace-UCB %d)\n", seeds, tu_seeds);
    for (p = 0; p < N_POLICY; ++p) {
        row rows[N_LPROB * N_WIN + N_OPROB + N_TPROB];
        int n_rows = 0, prob, w;
        time_t t0 = time(NULL);
        if (!use[p]) continue;
        if (p == P_OAM) {
            for (prob = 0; prob < N_OPROB; ++prob)
                if (run_oam(prob, seeds, quick, &rows[n_rows++])) goto fail;
        } else if (p == P_TRACEUCB) {
            for (prob = 0; prob < N_TPROB; ++prob)
                if (run_traceucb(prob, tu_seeds, quick, &rows[n_rows++])) goto fail;
        } else if (p == P_SWUCB || p == P_DLINUCB) {
            for (prob = 0; prob < N_LPROB; ++prob)
                for (w = 0; w < N_WIN; ++w)
                    if (run_linear(p, prob, w, seeds, quick, &rows[n_rows++])) goto fail;
        } else {
            for (prob = 0; prob < N_LPROB; ++prob)
                if (run_linear(p, prob, -1, seeds, quick, &rows[n_rows++])) goto fail;
        }
        report(p, rows, n_rows, p == P_TRACEUCB ? tu_seeds : seeds, csv);
        fprintf(stderr, "defaults: %s %ld s\n", policy_names[p], (long)(time(NULL) - t0));
        fflush(stdout);
    }
    if (csv) fclose(csv);
    free(results);
    fprintf(stderr, "defaults: %ld s\n", (long)(time(NULL) - start));
    return 0;
fail:
    fprintf(stderr, "%s: a run failed\n", argv[0]);
    return 1;
}

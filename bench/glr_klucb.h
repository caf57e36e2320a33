/* glr_klucb.h - GLR-klUCB with local restarts, the reference peer of the
   piecewise-stationary Bernoulli benchmark in bench/agnostic.c.

   Written for this bench from the paper: L. Besson, E. Kaufmann, O.-A.
   Maillard, J. Seznec, "Efficient change-point detection for tackling
   piecewise-stationary bandits", JMLR 23(77), 2022 (arXiv 1902.01575).
   Not part of isdbandit.h: a K-armed policy for rewards in [0, 1], used as
   the figure an adaptive linear policy on one-hot arms must approach.

   What it does. The formulas are the paper's; its PDF could not be read
   from the machine this was written on, so the section pointers below are
   to the arXiv version as remembered and were checked only against the
   authors' own code (SMPyBandits: Policies/GLR_UCB.py, CD_UCB.py,
   klUCB_forGLR.py, configuration_nonstationary.py), read for
   understanding, none of it copied.
   - kl-UCB index of arm k (Algorithm 1, after Garivier and Cappe 2011):
       U_k(t) = max{ q in [mu_k, 1] : n_k kl(mu_k, q) <= f(t - tau_k) },
       f(x) = ln x + 3 ln ln x (the ln ln term taken as 0 while ln x < 1),
     mu_k and n_k the mean and count of arm k's observations since its last
     restart tau_k (the time since the arm's restart, not t, as in
     klUCB_forGLR); an arm with n_k = 0 has index +infinity. kl is the
     Bernoulli divergence; the max is found by bisection to 1e-9.
   - Bernoulli GLR change test on arm k's n = n_k observations Z_1..Z_n
     since its restart: a change is declared when
       max_s [ s kl(mu_{1:s}, mu_{1:n}) + (n - s) kl(mu_{s+1:n}, mu_{1:n}) ]
         >= beta(n, delta),  beta(n, delta) = ln(3 n^{3/2} / delta),
     the threshold the paper recommends in practice (smaller than the one
     its analysis needs; SMPyBandits' threshold_BernoulliGLR variant 0).
     The paper's speed-up: the test runs only every dn observations of the
     arm and the split s ranges over multiples of ds (s = ds, 2 ds, ... <
     n); dn = ds = 10 for T <= 20000 (20 up to 1e5, 50 beyond), the values
     of its experiments.
   - Local restarts (Algorithm 1 with local restarts): only the arm whose
     test fired forgets its observations (n_k = 0, tau_k = t).
   - Forced exploration: by default deterministic, as Algorithm 1 writes
     it: with tau the latest restart of any arm, if (t - tau) mod
     floor(K / alpha) is in {1..K}, that arm (1-based) is played. Setting
     random_explore plays instead a uniformly random arm with probability
     alpha, drawn from an isdb_rng (measured within 1 standard error of the
     deterministic schedule on Problems 1-3).
   - delta and alpha for an unknown number of changes: delta = 1 / sqrt(T),
     alpha = alpha0 sqrt(K ln T / T), alpha0 = 0.1 (the factor K goes with
     local restarts; alpha0 = 0.1 is the authors' default scale,
     ALPHA0_SCALE_FACTOR in GLR_UCB.py: the analysis's alpha0 = 1 forces
     so much exploration that Problem 1's regret is 147 instead of 57).
     Knowing Upsilon_T, the authors' configuration takes delta = 1 /
     sqrt(K Upsilon_T T) and alpha0 = 0.05 with sqrt(K Upsilon_T ln T / T):
     within 2 standard errors of these on Problems 1-3. glr_default sets
     the former.

   Include it after isdbandit.h (it uses isdb_rng).    Memory: K (T + 1) doubles of prefix sums, taken in glr_init (malloc);
   select and update do not allocate. */
#ifndef GLR_KLUCB_H
#define GLR_KLUCB_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct glr_config {
    int K;              /* arms */
    uint64_t T;         /* horizon: rounds the prefix sums can hold */
    double delta;       /* confidence of the GLR test */
    double alpha;       /* forced-exploration rate; 0 turns it off */
    int dn, ds;         /* test every dn observations, splits every ds */
    double c;           /* f(x) = ln x + c ln ln x */
    int random_explore; /* 1: explore with probability alpha; 0: the paper's schedule */
    uint64_t seed;      /* for random_explore */
} glr_config;

typedef struct glr_klucb {
    glr_config cfg;
    uint64_t t;       /* rounds completed */
    uint64_t restarts; /* change tests that fired */
    uint64_t *tau;    /* K: round of each arm's last restart (0: never) */
    uint64_t *n;      /* K: observations since it */
    double *sum;      /* K x (T + 1): prefix sums of those observations */
    uint64_t period;  /* floor(K / alpha), 0 when alpha = 0 */
    isdb_rng rng;
} glr_klucb;

/* The parameters taken as the paper's for an unknown number of changes. */
static glr_config glr_default(int K, uint64_t T) {
    glr_config c;
    double lt = log((double)T);
    c.K = K;
    c.T = T;
    c.delta = 1.0 / sqrt((double)T);
    c.alpha = 0.1 * sqrt((double)K * lt / (double)T);
    c.dn = c.ds = T <= 20000 ? 10 : T <= 100000 ? 20 : 50;
    c.c = 3.0;
    c.random_explore = 0;
    c.seed = 1;
    return c;
}

/* Bernoulli kl(p, q), 0 ln 0 = 0; q is kept inside (0, 1). */
static double glr_kl(double p, double q) {
    const double eps = 1e-15;
    double r = 0.0;
    if (q < eps) q = eps;
    if (q > 1.0 - eps) q = 1.0 - eps;
    if (p > 0.0) r += p * log(p / q);
    if (p < 1.0) r += (1.0 - p) * log((1.0 - p) / (1.0 - q));
    return r;
}

/* max{ q in [p, 1] : kl(p, q) <= level }, by bisection. */
static double glr_kl_upper(double p, double level) {
    double lo = p, hi = 1.0;
    if (level <= 0.0) return p;
    if (glr_kl(p, hi) <= level) return 1.0;
    while (hi - lo > 1e-9) {
        double mid = 0.5 * (lo + hi);
        if (glr_kl(p, mid) > level)
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

static double glr_threshold(uint64_t n, double delta) {
    return log(3.0 * pow((double)n, 1.5) / delta);
}

/* 0 on success, -1 on a bad config or no memory. */
static int glr_init(glr_klucb *g, const glr_config *cfg) {
    size_t K;
    memset(g, 0, sizeof *g);
    if (cfg->K < 1 || cfg->T < 1 || !(cfg->delta > 0.0) || !(cfg->alpha >= 0.0) || cfg->alpha > 1.0 ||
        cfg->dn < 1 || cfg->ds < 1 || !(cfg->c >= 0.0))
        return -1;
    K = (size_t)cfg->K;
    g->cfg = *cfg;
    g->tau = (uint64_t *)calloc(2 * K, sizeof(uint64_t));
    g->sum = (double *)calloc(K * (size_t)(cfg->T + 1), sizeof(double));
    if (!g->tau || !g->sum) {
        free(g->tau);
        free(g->sum);
        return -1;
    }
    g->n = g->tau + K;
    g->period = cfg->alpha > 0.0 ? (uint64_t)floor((double)cfg->K / cfg->alpha) : 0;
    isdb_rng_seed(&g->rng, cfg->seed);
    return 0;
}

static void glr_uninit(glr_klucb *g) {
    free(g->tau);
    free(g->sum);
    g->tau = g->n = NULL;
    g->sum = NULL;
}

/* The kl-UCB index of arm k for the coming round. */
static double glr_index(const glr_klucb *g, int k) {
    uint64_t n = g->n[k], x = g->t + 1 - g->tau[k];
    double mean, lx, f;
    if (n == 0) return HUGE_VAL;
    mean = g->sum[(size_t)k * (g->cfg.T + 1) + n] / (double)n;
    lx = log((double)x);
    f = lx + (lx > 1.0 ? g->cfg.c * log(lx) : 0.0);
    return glr_kl_upper(mean, f / (double)n);
}

/* The arm to play in round t + 1. */
static int glr_select(glr_klucb *g) {
    int k, best = 0;
    double bi = -HUGE_VAL;
    if (g->period > 0) {
        if (g->cfg.random_explore) {
            if ((double)isdb_rng_uniform(&g->rng) < g->cfg.alpha)
                return (int)isdb_rng_below(&g->rng, (uint64_t)g->cfg.K);
        } else {
            uint64_t last = 0, r;
            for (k = 0; k < g->cfg.K; ++k)
                if (g->tau[k] > last) last = g->tau[k];
            r = (g->t + 1 - last) % g->period;
            if (r >= 1 && r <= (uint64_t)g->cfg.K) return (int)r - 1;
        }
    }
    for (k = 0; k < g->cfg.K; ++k) {
        double v = glr_index(g, k);
        if (v > bi) bi = v, best = k;
    }
    return best;
}

/* The GLR statistic's verdict on arm k's n observations (prefix sums s). */
static int glr_change(const glr_klucb *g, const double *s, uint64_t n) {
    double total = s[n], mean = total / (double)n, beta = glr_threshold(n, g->cfg.delta);
    uint64_t j;
    for (j = (uint64_t)g->cfg.ds; j < n; j += (uint64_t)g->cfg.ds) {
        double m1 = s[j] / (double)j, m2 = (total - s[j]) / (double)(n - j);
        if ((double)j * glr_kl(m1, mean) + (double)(n - j) * glr_kl(m2, mean) >= beta) return 1;
    }
    return 0;
}

/* Records reward r in [0, 1] of arm k in round t + 1; 1 if arm k restarted. */
static int glr_update(glr_klucb *g, int k, double r) {
    double *s = g->sum + (size_t)k * (g->cfg.T + 1);
    uint64_t n;
    if (k < 0 || k >= g->cfg.K || g->t >= g->cfg.T) return 0;
    g->t++;
    n = ++g->n[k];
    s[n] = s[n - 1] + r;
    if (n % (uint64_t)g->cfg.dn == 0 && glr_change(g, s, n)) {
        g->n[k] = 0;
        g->tau[k] = g->t;
        g->restarts++;
        return 1;
    }
    return 0;
}

#endif

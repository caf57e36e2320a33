/* cases.h - every policy of the library, as the tests and fuzzers build
   it: a row of `cases` per configuration worth covering (add one when you
   add a policy). Each row says how to initialise the policy with a
   non-default config and an allocator, how to initialise it on a caller
   buffer, and how to draw the arms of a round when random Gaussian rows do
   not fit (fixed arm sets). Include after isdbandit.h and test.h. */
#ifndef ISDB_TEST_CASES_H
#define ISDB_TEST_CASES_H

#include <stdlib.h>
#include <string.h>

/* Storage big and aligned enough for any policy struct. */
typedef union storage {
    long double ld;
    void *ptr;
    uint64_t u;
    unsigned char bytes[16384];
} storage;

typedef struct policy_case {
    const char *label;
    /* Initialises the policy in `mem` with a non-default config (so that
       config checks on load have something to compare); d and max_arms
       may be invalid on purpose. */
    isdb_result (*make)(const isdb_allocator *alloc, int d, int max_arms, void *mem);
    /* With heap NULL: the heap size of the default config into *bytes;
       otherwise init_preallocated with that config on heap, of *bytes
       bytes. */
    isdb_result (*make_pre)(int d, int max_arms, void *heap, size_t *bytes, void *mem);
    int d, max_arms;
    /* The arms of a round (n_arms x d into X); NULL: n_arms uniform in
       1..max_arms, Gaussian features. Policies with a fixed arm set give
       that set here. */
    void (*round)(isdb_rng *rng, int d, int max_arms, int *n_arms, isdb_real *X);
} policy_case;

static isdb_result make_linucb(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_linucb_config c = isdb_linucb_config_init(d, max_arms);
    c.lambda = 0.8;
    c.width = ISDB_WIDTH_DETTRACE;
    return isdb_linucb_init(&c, alloc, (isdb_linucb *)mem);
}

static isdb_result make_swucb(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_swucb_config c = isdb_swucb_config_init(d, max_arms, 7);
    c.refresh = 5;
    return isdb_swucb_init(&c, alloc, (isdb_swucb *)mem);
}

static isdb_result make_dlinucb(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_dlinucb_config c = isdb_dlinucb_config_init(d, max_arms, 0.95);
    c.R = 0.5;
    c.refresh = 7; /* O(d^2) steps, a refactorisation every 7 updates */
    return isdb_dlinucb_init(&c, alloc, (isdb_dlinucb *)mem);
}

/* The paper's exact factor at every update. */
static isdb_result make_dlinucb_exact(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_dlinucb_config c = isdb_dlinucb_config_init(d, max_arms, 0.9);
    c.refresh = 1;
    return isdb_dlinucb_init(&c, alloc, (isdb_dlinucb *)mem);
}

static isdb_result make_lints(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_lints_config c = isdb_lints_config_init(d, max_arms);
    c.inflation = ISDB_LINTS_THEORY;
    c.seed = 42;
    c.mc_samples = 50;
    return isdb_lints_init(&c, alloc, (isdb_lints *)mem);
}

static isdb_result make_lints_plain(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_lints_config c = isdb_lints_config_init(d, max_arms);
    c.inflation = ISDB_LINTS_NONE;
    c.seed = 43;
    c.mc_samples = 50;
    return isdb_lints_init(&c, alloc, (isdb_lints *)mem);
}

static isdb_result pre_linucb(int d, int max_arms, void *heap, size_t *bytes, void *mem) {
    isdb_linucb_config c = isdb_linucb_config_init(d, max_arms);
    return heap ? isdb_linucb_init_preallocated(&c, heap, *bytes, (isdb_linucb *)mem) : isdb_linucb_heap_size(&c, bytes);
}

static isdb_result pre_swucb(int d, int max_arms, void *heap, size_t *bytes, void *mem) {
    isdb_swucb_config c = isdb_swucb_config_init(d, max_arms, 5);
    return heap ? isdb_swucb_init_preallocated(&c, heap, *bytes, (isdb_swucb *)mem) : isdb_swucb_heap_size(&c, bytes);
}

static isdb_result pre_dlinucb(int d, int max_arms, void *heap, size_t *bytes, void *mem) {
    isdb_dlinucb_config c = isdb_dlinucb_config_init(d, max_arms, 0.9);
    return heap ? isdb_dlinucb_init_preallocated(&c, heap, *bytes, (isdb_dlinucb *)mem)
                : isdb_dlinucb_heap_size(&c, bytes);
}

static isdb_result pre_lints(int d, int max_arms, void *heap, size_t *bytes, void *mem) {
    isdb_lints_config c = isdb_lints_config_init(d, max_arms);
    return heap ? isdb_lints_init_preallocated(&c, heap, *bytes, (isdb_lints *)mem) : isdb_lints_heap_size(&c, bytes);
}

/* BOB with a short horizon, so the generic runs (up to 100 rounds) cross
   several block ends and go past T. */
static isdb_result make_bob(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_bob_config c = isdb_bob_config_init(d, max_arms, 60);
    c.lambda = 0.5;
    c.R = 0.3;
    c.clip = 1;
    c.seed = 7;
    return isdb_bob_init(&c, alloc, (isdb_bob *)mem);
}

static isdb_result make_bob_long(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_bob_config c = isdb_bob_config_init(d, max_arms, 2000);
    c.refresh = 3;
    c.seed = 8;
    return isdb_bob_init(&c, alloc, (isdb_bob *)mem);
}

static isdb_result pre_bob(int d, int max_arms, void *heap, size_t *bytes, void *mem) {
    isdb_bob_config c = isdb_bob_config_init(d, max_arms, 300);
    return heap ? isdb_bob_init_preallocated(&c, heap, *bytes, (isdb_bob *)mem) : isdb_bob_heap_size(&c, bytes);
}

#if !ISDB_REAL_IS_FLOAT /* ISD, OPKB, OAM and Trace-UCB need double */
/* ISD-linUCB needs logged offline rows: 200 rows of the invariant
   subspace environment (blocks d - 2 and 2, the second residual), the
   same for every call with the same d. Sizes the env refuses (d < 3 or
   beyond the buffers) leave the data zero. */
#define ISD_N0 200
static isdb_real isd_X0[ISD_N0 * 8], isd_R0[ISD_N0], isd_Uinv[8 * 8], isd_beta[8];

static int isd_offline(int d) {
    isdb_isd_env env;
    int sizes[2], res[2] = {0, 1};
    isdb_isd_env_config c;
    memset(isd_X0, 0, sizeof isd_X0);
    memset(isd_R0, 0, sizeof isd_R0);
    memset(isd_Uinv, 0, sizeof isd_Uinv);
    memset(isd_beta, 0, sizeof isd_beta);
    if (d < 3 || d > 8) return 0;
    sizes[0] = d - 2;
    sizes[1] = 2;
    c = isdb_isd_env_config_init(d, 5, 2, sizes, res);
    c.cov_period = 50;
    if (isdb_isd_env_init(&c, NULL, &env) != ISDB_OK) return 0;
    if (isdb_isd_env_offline(&env, ISD_N0, ISDB_ISD_LOG_UNIFORM, 0.5, 7, isd_X0, isd_R0) != ISDB_OK) return 0;
    isdb_isd_env_get_invariant_basis(&env, isd_Uinv);
    memcpy(isd_beta, env.beta_inv, sizeof(isdb_real) * (size_t)d);
    isdb_env_uninit(&env.base);
    return d - 2;
}

static isdb_result make_isd(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_isd_config c;
    isd_offline(d);
    c = isdb_isd_config_init(d, max_arms, ISD_N0, isd_X0, isd_R0);
    c.lambda = 0.5;
    c.recompute_every = 9;
    c.monitor = ISDB_ISD_MONITOR_FALLBACK;
    c.monitor_window = 30;
    c.monitor_every = 5;
    c.monitor_level = 0.2; /* alarms are likely: the fallback path runs */
    return isdb_isd_init(&c, alloc, (isdb_isd *)mem);
}

static isdb_result make_isd_window(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_isd_config c;
    int pi = isd_offline(d);
    c = isdb_isd_config_init(d, max_arms, ISD_N0, isd_X0, isd_R0);
    c.oracle = 1;
    c.p_inv = pi;
    c.U_inv = isd_Uinv;
    c.learner = ISDB_ISD_RES_WINDOW;
    c.window = 5;
    c.radius = ISDB_ISD_RADIUS_CODE;
    c.recompute_every = 11;
    return isdb_isd_init(&c, alloc, (isdb_isd *)mem);
}

static isdb_result make_isd_discount(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_isd_config c;
    int pi = isd_offline(d);
    c = isdb_isd_config_init(d, max_arms, ISD_N0, isd_X0, isd_R0);
    c.oracle = 1;
    c.p_inv = pi;
    c.U_inv = isd_Uinv;
    c.beta_inv = isd_beta;
    c.learner = ISDB_ISD_RES_DISCOUNT;
    c.gamma = 0.9;
    c.radius = ISDB_ISD_RADIUS_FIXED;
    c.alpha = 0.7;
    c.monitor = ISDB_ISD_MONITOR_RECOMPUTE;
    c.monitor_window = 20;
    c.monitor_level = 0.3;
    return isdb_isd_init(&c, alloc, (isdb_isd *)mem);
}

static isdb_result pre_isd(int d, int max_arms, void *heap, size_t *bytes, void *mem) {
    isdb_isd_config c;
    isd_offline(d);
    c = isdb_isd_config_init(d, max_arms, ISD_N0, isd_X0, isd_R0);
    return heap ? isdb_isd_init_preallocated(&c, heap, *bytes, (isdb_isd *)mem) : isdb_isd_heap_size(&c, bytes);
}

/* OPKB keeps a fixed arm set: a deterministic one for each (d, N), the
   same in make_ and in the round generator. */
static isdb_real opkb_arms_buf[64 * 16];

static const isdb_real *opkb_arms(int d, int n) {
    int i;
    if (d < 1 || n < 1 || n > 64 * 16 / d) return opkb_arms_buf;
    for (i = 0; i < d * n; ++i) opkb_arms_buf[i] = sin(1.0 + 0.7 * i) / sqrt((isdb_real)d);
    return opkb_arms_buf;
}

static void round_opkb(isdb_rng *rng, int d, int max_arms, int *n_arms, isdb_real *X) {
    (void)rng;
    *n_arms = max_arms;
    memcpy(X, opkb_arms(d, max_arms), sizeof(isdb_real) * (size_t)(d * max_arms));
}

static isdb_result make_opkb(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_opkb_config c = isdb_opkb_config_init(d, max_arms, 200.0);
    c.arms = opkb_arms(d, max_arms);
    c.sigma = 50.0;
    c.seed = 7;
    return isdb_opkb_init(&c, alloc, (isdb_opkb *)mem);
}

/* ADA-OPKB with an RBF kernel, replays from index 1 and a low threshold,
   so that the runs below go through replays, tests and restarts. */
static isdb_result make_opkb_ada(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_opkb_config c = isdb_opkb_config_init(d, max_arms, 200.0);
    c.arms = opkb_arms(d, max_arms);
    c.kernel = ISDB_KERNEL_RBF;
    c.length_scale = 0.5;
    c.adaptive = 1;
    c.j_star = 1;
    c.test_z = 0.01;
    c.seed = 8;
    return isdb_opkb_init(&c, alloc, (isdb_opkb *)mem);
}

static isdb_result pre_opkb(int d, int max_arms, void *heap, size_t *bytes, void *mem) {
    isdb_opkb_config c = isdb_opkb_config_init(d, max_arms, 200.0);
    c.arms = opkb_arms(d, max_arms);
    return heap ? isdb_opkb_init_preallocated(&c, heap, *bytes, (isdb_opkb *)mem) : isdb_opkb_heap_size(&c, bytes);
}

/* OAM registers action sets by content, so its rounds come from a few
   fixed sets (three contexts, each all max_arms Gaussian arms drawn from
   its own seed) rather than fresh random rows. */
static void round_oam(isdb_rng *rng, int d, int max_arms, int *n_arms, isdb_real *X) {
    isdb_rng ctx;
    int i;
    isdb_rng_seed(&ctx, 1000 + isdb_rng_below(rng, 3));
    *n_arms = max_arms;
    for (i = 0; i < max_arms * d; ++i) X[i] = isdb_rng_normal(&ctx);
}

static isdb_result make_oam(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_oam_config c = isdb_oam_config_init(d, max_arms, 1000);
    c.max_contexts = 4;
    c.zeta = 0.2;
    c.forcing = ISDB_OAM_FORCE_SCALED;
    c.force_c = 0.3;
    return isdb_oam_init(&c, alloc, (isdb_oam *)mem);
}

/* The default (literal) forcing schedule. */
static isdb_result make_oam_literal(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_oam_config c = isdb_oam_config_init(d, max_arms, 500);
    c.max_contexts = 3;
    return isdb_oam_init(&c, alloc, (isdb_oam *)mem);
}

static isdb_result make_oam_unforced(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_oam_config c = isdb_oam_config_init(d, max_arms, 2000);
    c.max_contexts = 3;
    c.forcing = ISDB_OAM_FORCE_NONE;
    return isdb_oam_init(&c, alloc, (isdb_oam *)mem);
}

static isdb_result pre_oam(int d, int max_arms, void *heap, size_t *bytes, void *mem) {
    isdb_oam_config c = isdb_oam_config_init(d, max_arms, 1000);
    return heap ? isdb_oam_init_preallocated(&c, heap, *bytes, (isdb_oam *)mem) : isdb_oam_heap_size(&c, bytes);
}

/* Trace-UCB: the models are the arms; a round is one context shown as
   every row (n_arms = m). Every mode is a row below. */
static void traceucb_round(isdb_rng *rng, int d, int max_arms, int *n_arms, isdb_real *X) {
    int i;
    *n_arms = max_arms;
    for (i = 0; i < d; ++i) X[i] = isdb_rng_normal(rng);
    for (i = 1; i < max_arms; ++i) memcpy(X + i * d, X, sizeof(isdb_real) * (size_t)d);
}

static isdb_real tu_sigma[16 * 16], tu_values[64];

/* A known second moment for d <= 16 (NULL otherwise: those sizes are
   invalid in the rows' calls anyway), and m noise variances / weights. */
static const isdb_real *tu_fill(int d, int m) {
    int i, j;
    for (i = 0; i < 64; ++i) tu_values[i] = 0.5 + 0.25 * (isdb_real)(i % 5);
    (void)m;
    if (d < 1 || d > 16) return NULL;
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) tu_sigma[i * d + j] = i == j ? 1.5 : 0.2;
    return tu_sigma;
}

static isdb_result make_traceucb(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_traceucb_config c = isdb_traceucb_config_init(d, max_arms);
    c.Sigma = tu_fill(d, max_arms);
    c.width = ISDB_TRACEUCB_WIDTH_SCALED;
    c.alpha = 0.5;
    c.R = 2.0;
    return isdb_traceucb_init(&c, alloc, (isdb_traceucb *)mem);
}

static isdb_result make_traceucb_est(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_traceucb_config c = isdb_traceucb_config_init(d, max_arms);
    tu_fill(d, max_arms);
    c.weights = tu_values;
    c.objective = ISDB_TRACEUCB_AVERAGE_LOSS;
    c.horizon = 500;
    c.refresh = 2;
    return isdb_traceucb_init(&c, alloc, (isdb_traceucb *)mem);
}

static isdb_result make_traceucb_var(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_traceucb_config c = isdb_traceucb_config_init(d, max_arms);
    c.mode = ISDB_TRACEUCB_VAR;
    c.width = ISDB_TRACEUCB_WIDTH_SCALED;
    c.refresh = 1;
    c.lambda = 0.01;
    return isdb_traceucb_init(&c, alloc, (isdb_traceucb *)mem);
}

static isdb_result make_traceucb_uniform(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_traceucb_config c = isdb_traceucb_config_init(d, max_arms);
    c.mode = ISDB_TRACEUCB_UNIFORM;
    c.Sigma = tu_fill(d, max_arms);
    return isdb_traceucb_init(&c, alloc, (isdb_traceucb *)mem);
}

static isdb_result make_traceucb_static(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_traceucb_config c = isdb_traceucb_config_init(d, max_arms);
    tu_fill(d, max_arms);
    c.mode = ISDB_TRACEUCB_STATIC;
    c.noise_var = tu_values;
    return isdb_traceucb_init(&c, alloc, (isdb_traceucb *)mem);
}

static isdb_result make_traceucb_sparse(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_traceucb_config c = isdb_traceucb_config_init(d, max_arms);
    c.Sigma = tu_fill(d, max_arms);
    c.width = ISDB_TRACEUCB_WIDTH_SCALED;
    c.sparse_s = 1;
    return isdb_traceucb_init(&c, alloc, (isdb_traceucb *)mem);
}

static isdb_result make_traceucb_sparse_est(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_traceucb_config c = isdb_traceucb_config_init(d, max_arms);
    c.mode = ISDB_TRACEUCB_VAR;
    c.sparse_s = 2;
    c.sparse_L = 3;
    return isdb_traceucb_init(&c, alloc, (isdb_traceucb *)mem);
}

static isdb_result pre_traceucb(int d, int max_arms, void *heap, size_t *bytes, void *mem) {
    isdb_traceucb_config c = isdb_traceucb_config_init(d, max_arms);
    return heap ? isdb_traceucb_init_preallocated(&c, heap, *bytes, (isdb_traceucb *)mem)
                : isdb_traceucb_heap_size(&c, bytes);
}

#endif

/* Short memories and low thresholds, so the played estimator moves (the
   generic runs are stationary, so they seldom cut the memory; cuts are
   covered by test_adaptive.c and the fuzzers). */
static isdb_result make_adaptive(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_adaptive_config c = isdb_adaptive_config_init(d, max_arms);
    c.lambda = 0.7;
    c.min_memory = 2;
    c.max_memory = 9;
    c.threshold = 0.8;
    c.play_threshold = 0.3;
    c.refresh = 3;
    return isdb_adaptive_init(&c, alloc, (isdb_adaptive *)mem);
}

static isdb_result make_adaptive_default(const isdb_allocator *alloc, int d, int max_arms, void *mem) {
    isdb_adaptive_config c = isdb_adaptive_config_init(d, max_arms);
    c.R = 0.5;
    return isdb_adaptive_init(&c, alloc, (isdb_adaptive *)mem);
}

static isdb_result pre_adaptive(int d, int max_arms, void *heap, size_t *bytes, void *mem) {
    isdb_adaptive_config c = isdb_adaptive_config_init(d, max_arms);
    return heap ? isdb_adaptive_init_preallocated(&c, heap, *bytes, (isdb_adaptive *)mem)
                : isdb_adaptive_heap_size(&c, bytes);
}

static const policy_case cases[] = {
    {"linucb", make_linucb, pre_linucb, 4, 6, NULL},
    {"swucb", make_swucb, pre_swucb, 4, 6, NULL},
    {"dlinucb", make_dlinucb, pre_dlinucb, 4, 6, NULL},
    {"dlinucb exact", make_dlinucb_exact, pre_dlinucb, 3, 5, NULL},
    {"lints theory", make_lints, pre_lints, 4, 6, NULL},
    {"lints plain", make_lints_plain, pre_lints, 3, 5, NULL},
    {"bob", make_bob, pre_bob, 4, 6, NULL},
    {"bob long", make_bob_long, pre_bob, 3, 5, NULL},
    {"adaptive", make_adaptive, pre_adaptive, 4, 6, NULL},
    {"adaptive default", make_adaptive_default, pre_adaptive, 3, 5, NULL},
#if !ISDB_REAL_IS_FLOAT
    {"isd estimated", make_isd, pre_isd, 4, 6, NULL},
    {"isd oracle window", make_isd_window, pre_isd, 5, 6, NULL},
    {"isd oracle discount", make_isd_discount, pre_isd, 4, 5, NULL},
    {"opkb", make_opkb, pre_opkb, 3, 6, round_opkb},
    {"opkb adaptive", make_opkb_ada, pre_opkb, 3, 7, round_opkb},
    {"oam", make_oam, pre_oam, 3, 4, round_oam},
    {"oam literal forcing", make_oam_literal, pre_oam, 2, 3, round_oam},
    {"oam no forcing", make_oam_unforced, pre_oam, 3, 3, round_oam},
    {"traceucb trace", make_traceucb, pre_traceucb, 2, 3, traceucb_round},
    {"traceucb trace est avg", make_traceucb_est, pre_traceucb, 3, 4, traceucb_round},
    {"traceucb var", make_traceucb_var, pre_traceucb, 2, 3, traceucb_round},
    {"traceucb uniform", make_traceucb_uniform, pre_traceucb, 3, 3, traceucb_round},
    {"traceucb static", make_traceucb_static, pre_traceucb, 2, 4, traceucb_round},
    {"traceucb sparse", make_traceucb_sparse, pre_traceucb, 3, 3, traceucb_round},
    {"traceucb sparse est var", make_traceucb_sparse_est, pre_traceucb, 4, 2, traceucb_round},
#endif
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

/* The arms of a round for a policy of case pc built with sizes d and
   max_arms: the case's own generator, or 1..max_arms rows of Gaussian
   features. X holds max_arms x d. */
static void case_round(isdb_rng *rng, const policy_case *pc, int d, int max_arms, int *n_arms, isdb_real *X) {
    int i;
    if (pc->round) {
        pc->round(rng, d, max_arms, n_arms, X);
        return;
    }
    *n_arms = 1 + (int)isdb_rng_below(rng, (uint64_t)max_arms);
    for (i = 0; i < *n_arms * d; ++i) X[i] = isdb_rng_normal(rng);
}

#endif

/* Every numeric field of every config (issue 22, items 3 and 4).
   1. Refusals name the field: for each field a value outside its range
      makes isdb_<name>_config_check refuse with exactly that field's name
      (and a range text), and init refuse with the same code.
   2. The sweep: each field in turn set to 0, -1, -0.5, NaN, +-Inf, a
      subnormal, 1e-300, 1e35 (finite in float too), 1e160, +-1e308
      (integers: 0, -1, 1, INT_MAX, INT_MIN, 2^30; 64-bit counts: 0, 1,
      2^30, 2^62, UINT64_MAX). Where init accepts the config, 300 rounds
      of random features |x_i| <= 1 and rewards in [-1, 1], then, from
      the reset state, 300 rounds of features and rewards up to
      ISDB_INPUT_MAX / 2 in magnitude, must give ISDB_OK from every select
      and update, finite scores and finite values from the policy's
      estimate getters after every call (theta, beta, LinTS's last sample,
      Trace-UCB's widths...: LinTS's scores are Monte Carlo frequencies,
      finite even when its samples are not); environments: ISDB_OK from
      every round and finite means and rewards. Delta-like fields' bad
      value is a subnormal. config_check and init must agree on every
      value (init may also run out of the test's 64 MB allocator).
   Fields that size an array the config points at are swept only with
   values the test's arrays cover (a length beyond its array is the
   caller's contract, not a range). Loop counts (Monte Carlo draws, solver
   steps) are accepted up to INT_MAX but played only below 10^4.
   3. The argument checks: a NULL cfg, a NULL pol, a misaligned heap, and
   the select/update arguments are refused with their names. */
#include "../isdbandit.h"
#include "test.h"
#include "cases.h"

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum { F_INT, F_REAL, F_DBL, F_U64 };
/* Flags of a field. */
enum {
    NO_BAD = 1,  /* every value of the type is valid (seeds) or the field is not read in this base */
    LENGTH = 2,  /* sizes an array: only values the base's arrays cover */
    LOOPS = 4    /* a loop count: large values accepted but not played */
};

typedef struct field {
    const char *name;
    size_t off;
    int type;
    double bad; /* a value outside the range, refused with this field's name */
    int flags;
} field;

typedef union any_config {
    isdb_linucb_config linucb;
    isdb_swucb_config swucb;
    isdb_dlinucb_config dlinucb;
    isdb_lints_config lints;
    isdb_bob_config bob;
    isdb_adaptive_config adaptive;
    isdb_linear_env_config linear_env;
#if !ISDB_REAL_IS_FLOAT
    isdb_isd_config isd;
    isdb_opkb_config opkb;
    isdb_oam_config oam;
    isdb_traceucb_config traceucb;
    isdb_isd_env_config isd_env;
    isdb_kernel_env_config kernel_env;
    isdb_context_env_config context_env;
    isdb_active_env_config active_env;
#endif
} any_config;

typedef struct kind {
    const char *name;
    void (*base)(any_config *cfg);
    isdb_result (*check)(const any_config *cfg, isdb_refusal *why);
    isdb_result (*init)(const any_config *cfg, const isdb_allocator *alloc, void *obj);
    int is_env;
    /* Arms of a round for policies with fixed arm sets; NULL: random rows. */
    void (*round)(isdb_rng *rng, int d, int max_arms, int *n_arms, isdb_real *X);
    const field *fields;
    int n_fields;
    /* 1 if every estimate the policy's getters expose is finite (theta,
       widths, the last Thompson sample...); NULL: no such getter. */
    int (*state_finite)(void *obj);
} kind;

/* The getter checks: which value was not finite. */
static char state_msg[96];
static int finite_all(const isdb_real *v, int n, const char *name) {
    int i;
    for (i = 0; i < n; ++i)
        if (!isfinite(v[i])) {
            snprintf(state_msg, sizeof state_msg, "%s[%d] = %g", name, i, (double)v[i]);
            return 0;
        }
    return 1;
}
static isdb_real state_buf[4096 * 3];
#define STATE_FITS(n) ((n) >= 1 && (n) <= (int)(sizeof state_buf / sizeof state_buf[0]))

#define KIND_FNS(n)                                                                                  \
    static isdb_result check_##n(const any_config *c, isdb_refusal *why) {                          \
        return isdb_##n##_config_check(c ? &c->n : NULL, why);                                       \
    }                                                                                                \
    static isdb_result init_##n(const any_config *c, const isdb_allocator *alloc, void *obj) {      \
        return isdb_##n##_init(&c->n, alloc, (isdb_##n *)obj);                                       \
    }

#define FI(T, m, bad) {#m, offsetof(T, m), F_INT, bad, 0}
#define FIF(T, m, bad, flags) {#m, offsetof(T, m), F_INT, bad, flags}
#define FR(T, m, bad) {#m, offsetof(T, m), F_REAL, bad, 0}
#define FRF(T, m, bad, flags) {#m, offsetof(T, m), F_REAL, bad, flags}
#define FD(T, m, bad) {#m, offsetof(T, m), F_DBL, bad, 0}
#define FDF(T, m, bad, flags) {#m, offsetof(T, m), F_DBL, bad, flags}
#define FU(T, m, bad) {#m, offsetof(T, m), F_U64, bad, 0}
#define FUF(T, m, bad, flags) {#m, offsetof(T, m), F_U64, bad, flags}
#define COUNT(a) ((int)(sizeof a / sizeof a[0]))

/* ---- The policies available in both precisions ---- */

KIND_FNS(linucb)
KIND_FNS(swucb)
KIND_FNS(dlinucb)
KIND_FNS(lints)
KIND_FNS(bob)
KIND_FNS(adaptive)
KIND_FNS(linear_env)

static void base_linucb(any_config *c) { c->linucb = isdb_linucb_config_init(3, 4); }
static void base_swucb(any_config *c) { c->swucb = isdb_swucb_config_init(3, 4, 20); }
static void base_dlinucb(any_config *c) { c->dlinucb = isdb_dlinucb_config_init(3, 4, (isdb_real)0.95); }
static void base_lints(any_config *c) {
    c->lints = isdb_lints_config_init(3, 4);
    c->lints.inflation = ISDB_LINTS_THEORY; /* so that epsilon and delta are read */
    c->lints.mc_samples = 50;
}
static void base_bob(any_config *c) { c->bob = isdb_bob_config_init(3, 4, 1000); }
static void base_adaptive(any_config *c) { c->adaptive = isdb_adaptive_config_init(3, 4); }

/* The ridge policies' estimate and width multiplier. */
#define RIDGE_STATE(n)                                                                           \
    static int finite_##n(const isdb_##n *p) {                                                   \
        isdb_real beta = isdb_##n##_get_beta(p);                                                 \
        if (!STATE_FITS(p->base.d)) return 1;                                                    \
        isdb_##n##_get_theta(p, state_buf);                                                      \
        return finite_all(state_buf, p->base.d, "theta") && finite_all(&beta, 1, "beta");        \
    }                                                                                            \
    static int state_##n(void *o) { return finite_##n((const isdb_##n *)o); }
RIDGE_STATE(linucb)
RIDGE_STATE(swucb)
RIDGE_STATE(dlinucb)
RIDGE_STATE(adaptive)
static int state_lints(void *o) {
    const isdb_lints *p = (const isdb_lints *)o;
    if (!STATE_FITS(p->base.d)) return 1;
    isdb_lints_get_theta(p, state_buf);
    if (!finite_all(state_buf, p->base.d, "theta")) return 0;
    isdb_lints_get_last_sample(p, state_buf);
    return finite_all(state_buf, p->base.d, "last_sample");
}
/* BOB: the current block's SW-UCB. */
static int state_bob(void *o) { return finite_swucb(isdb_bob_get_swucb((const isdb_bob *)o)); }

#define UCB_FIELDS(T)                                                                                        \
    FR(T, lambda, 0), FR(T, delta, T_SUBNORMAL), FR(T, R, -1), FR(T, S, -1), FR(T, L, 0), FR(T, alpha, -1)

static const field f_linucb[] = {FI(isdb_linucb_config, d, 0),
                                 FI(isdb_linucb_config, max_arms, 0),
                                 UCB_FIELDS(isdb_linucb_config),
                                 FI(isdb_linucb_config, width, 9),
                                 FI(isdb_linucb_config, refresh, -1)};
static const field f_swucb[] = {FI(isdb_swucb_config, d, 0),
                                FI(isdb_swucb_config, max_arms, 0),
                                FI(isdb_swucb_config, window, 0),
                                UCB_FIELDS(isdb_swucb_config),
                                FI(isdb_swucb_config, width, -1),
                                FI(isdb_swucb_config, refresh, -1)};
static const field f_dlinucb[] = {FI(isdb_dlinucb_config, d, -1), FI(isdb_dlinucb_config, max_arms, -1),
                                  FR(isdb_dlinucb_config, gamma, 1), UCB_FIELDS(isdb_dlinucb_config)};
static const field f_lints[] = {FI(isdb_lints_config, d, ISDB_MAX_DIM + 1),
                                FI(isdb_lints_config, max_arms, 0),
                                FR(isdb_lints_config, lambda, -1),
                                FR(isdb_lints_config, R, -0.5),
                                FI(isdb_lints_config, inflation, 2),
                                FR(isdb_lints_config, epsilon, 1e-31),
                                FR(isdb_lints_config, delta, T_SUBNORMAL),
                                FUF(isdb_lints_config, seed, 0, NO_BAD),
                                FIF(isdb_lints_config, mc_samples, 0, LOOPS),
                                FI(isdb_lints_config, refresh, -1)};
static const field f_bob[] = {FI(isdb_bob_config, d, 0),
                              FI(isdb_bob_config, max_arms, 0),
                              FU(isdb_bob_config, T, 1),
                              FR(isdb_bob_config, lambda, 0),
                              FR(isdb_bob_config, R, -1),
                              FR(isdb_bob_config, S, -1),
                              FR(isdb_bob_config, L, 0),
                              FR(isdb_bob_config, alpha, -1),
                              FR(isdb_bob_config, reward_bound, 0),
                              FI(isdb_bob_config, clip, 2),
                              FUF(isdb_bob_config, seed, 0, NO_BAD),
                              FI(isdb_bob_config, refresh, -1)};
static const field f_adaptive[] = {FI(isdb_adaptive_config, d, 0),
                                   FI(isdb_adaptive_config, max_arms, 0),
                                   FR(isdb_adaptive_config, lambda, 0),
                                   FR(isdb_adaptive_config, R, -1),
                                   FR(isdb_adaptive_config, delta, T_SUBNORMAL),
                                   FR(isdb_adaptive_config, S, -1),
                                   FR(isdb_adaptive_config, L, 0),
                                   FR(isdb_adaptive_config, alpha, -1),
                                   FI(isdb_adaptive_config, min_memory, 1),
                                   FI(isdb_adaptive_config, max_memory, -1),
                                   FR(isdb_adaptive_config, memory_ratio, 1),
                                   FR(isdb_adaptive_config, threshold, 0),
                                   FR(isdb_adaptive_config, play_threshold, -1),
                                   FI(isdb_adaptive_config, refresh, -1),
                                   FI(isdb_adaptive_config, noise_estimate, 3),
                                   FI(isdb_adaptive_config, cut, 3),
                                   FI(isdb_adaptive_config, hold, 2),
                                   FI(isdb_adaptive_config, play_horizon, -1),
                                   FI(isdb_adaptive_config, kalman, 9),
                                   FR(isdb_adaptive_config, kalman_q, 0),
                                   FR(isdb_adaptive_config, kalman_width, -1)};

/* The linear environment: one piece (sphere arms), a box of arms on a
   sinusoid, Gaussian arms on a rotation. */
static isdb_real lenv_piece[8];
static void base_linear_env(any_config *c) {
    int i;
    for (i = 0; i < 8; ++i) lenv_piece[i] = (isdb_real)0.3;
    c->linear_env = isdb_linear_env_config_init(3, 4);
    c->linear_env.path = ISDB_PATH_PIECEWISE;
    c->linear_env.n_pieces = 1;
    c->linear_env.pieces = lenv_piece;
}
static void base_linear_env_box(any_config *c) {
    c->linear_env = isdb_linear_env_config_init(3, 4);
    c->linear_env.arms = ISDB_ARMS_BOX;
    c->linear_env.path = ISDB_PATH_SINUSOID;
    c->linear_env.sin_omega = (isdb_real)0.01;
}
static void base_linear_env_rot(any_config *c) {
    c->linear_env = isdb_linear_env_config_init(3, 4);
    c->linear_env.arms = ISDB_ARMS_GAUSSIAN;
    c->linear_env.path = ISDB_PATH_ROTATION;
    c->linear_env.rot_rounds = 100;
}
static const field f_linear_env[] = {FI(isdb_linear_env_config, d, 0),
                                     FI(isdb_linear_env_config, n_arms, 0),
                                     FUF(isdb_linear_env_config, seed, 0, NO_BAD),
                                     FR(isdb_linear_env_config, noise_sd, -1),
                                     FI(isdb_linear_env_config, arms, 9),
                                     FR(isdb_linear_env_config, clip_norm, -1),
                                     FI(isdb_linear_env_config, path, 9),
                                     FIF(isdb_linear_env_config, n_pieces, 0, LENGTH)};
static const field f_linear_env_box[] = {FR(isdb_linear_env_config, box_lo, NAN),
                                         FR(isdb_linear_env_config, box_hi, -2),
                                         FR(isdb_linear_env_config, sin_center, NAN),
                                         FR(isdb_linear_env_config, sin_amp, INFINITY),
                                         FR(isdb_linear_env_config, sin_omega, -INFINITY)};
static const field f_linear_env_rot[] = {FI(isdb_linear_env_config, d, 1), FR(isdb_linear_env_config, rot_from, NAN),
                                         FR(isdb_linear_env_config, rot_to, INFINITY),
                                         FU(isdb_linear_env_config, rot_rounds, 0)};

#if !ISDB_REAL_IS_FLOAT
/* ---- The double-only policies and environments ---- */

KIND_FNS(isd)
KIND_FNS(opkb)
KIND_FNS(oam)
KIND_FNS(traceucb)
KIND_FNS(isd_env)
KIND_FNS(kernel_env)
KIND_FNS(context_env)
KIND_FNS(active_env)

static void base_isd(any_config *c) {
    isd_offline(4);
    c->isd = isdb_isd_config_init(4, 4, ISD_N0, isd_X0, isd_R0);
}
static void base_isd_window(any_config *c) {
    c->isd = isdb_isd_config_init(4, 4, ISD_N0, isd_X0, isd_R0);
    c->isd.oracle = 1;
    c->isd.p_inv = isd_offline(4);
    c->isd.U_inv = isd_Uinv;
    c->isd.learner = ISDB_ISD_RES_WINDOW;
    c->isd.window = 30;
}
static void base_isd_discount(any_config *c) {
    base_isd_window(c);
    c->isd.learner = ISDB_ISD_RES_DISCOUNT;
    c->isd.monitor = ISDB_ISD_MONITOR_OFF;
}
#define T_ isdb_isd_config
static const field f_isd[] = {
    FI(T_, d, 0), FI(T_, max_arms, 0), FIF(T_, n_offline, -1, LENGTH), FI(T_, oracle, 2),
    FI(T_, est.rule, 9), FI(T_, est.splits, 1), FD(T_, est.level, 0), FI(T_, est.basis_error, 2), FI(T_, est.n_windows, 1),
    FI(T_, est.window_length, -1), FI(T_, est.center, 2), FI(T_, est.intercept, 2), FI(T_, est.folds, 1),
    FI(T_, est.adapt, -1), FI(T_, est.one_se, 9), FI(T_, est.force_residual, 2), FI(T_, est.jbd.method, 9),
    FIF(T_, est.jbd.max_iter, -1, LOOPS), FD(T_, est.jbd.tol, -1), FD(T_, est.jbd.threshold, 2),
    FI(T_, est.jbd.scale, 9), FI(T_, est.jbd.off_norm, 9), FI(T_, learner, 9), FD(T_, lambda, 0),
    FI(T_, refresh, -1), FI(T_, radius, 9), FD(T_, delta, T_SUBNORMAL), FD(T_, R, -1), FD(T_, L, 0), FD(T_, S, -1),
    FD(T_, alpha, -1), FD(T_, delta_pi, NAN), FI(T_, recompute_every, -1), FI(T_, history, -1),
    FI(T_, monitor, 9), FI(T_, monitor_window, 5), FI(T_, monitor_every, -1), FI(T_, monitor_chunk, -1),
    FD(T_, monitor_level, 1), FI(T_, monitor_confirm, 2), FI(T_, guard, 2), FI(T_, warm_start, 2),
    FI(T_, kalman, 9), FD(T_, guard_level, 1), FD(T_, fresh_inv_width, -1)};
static const field f_isd_window[] = {FI(T_, p_inv, 5), FI(T_, window, 0)};
static const field f_isd_discount[] = {FD(T_, gamma, 1)};
#undef T_

static isdb_real opkb_arm_set[4096 * 3];
static void base_opkb(any_config *c) {
    memcpy(opkb_arm_set, opkb_arms(3, 5), sizeof(isdb_real) * 15);
    c->opkb = isdb_opkb_config_init(3, 5, 400.0);
    c->opkb.arms = opkb_arm_set;
    c->opkb.kernel = ISDB_KERNEL_RBF; /* so that length_scale is read */
    c->opkb.adaptive = 1;
    c->opkb.j_star = 1;
}
static void round_opkb_set(isdb_rng *rng, int d, int max_arms, int *n_arms, isdb_real *X) {
    (void)rng;
    *n_arms = max_arms;
    memcpy(X, opkb_arm_set, sizeof(isdb_real) * (size_t)(d * max_arms));
}
#define T_ isdb_opkb_config
static const field f_opkb[] = {
    FI(T_, d, 0), FI(T_, n_arms, 4097), FI(T_, kernel, 9), FD(T_, length_scale, 0), FI(T_, features, 9),
    FD(T_, rank_tol, 1), FI(T_, adaptive, 2), FD(T_, horizon, 1), FD(T_, sigma, 0), FD(T_, delta, T_SUBNORMAL),
    FD(T_, reward_scale, 0), FD(T_, gamma_factor, 0), FD(T_, c1, 2), FD(T_, c3, 0), FD(T_, c4, -1),
    FD(T_, beta_scale, 0), FD(T_, set_scale, -1), FD(T_, mix, 2), FD(T_, c0_scale, 0), FI(T_, test_mean, 2),
    FI(T_, j_star, 65), FI(T_, test_block, 2), FI(T_, max_restarts, -1), FI(T_, test, 9), FD(T_, test_z, 0),
    FD(T_, solver_tol, 0), FIF(T_, solver_max_iter, 0, LOOPS), FUF(T_, seed, 0, NO_BAD)};
#undef T_

/* OAM registers action sets: one fixed set, so max_contexts = 1 plays. */
static void round_oam_one(isdb_rng *rng, int d, int max_arms, int *n_arms, isdb_real *X) {
    isdb_rng ctx;
    int i;
    (void)rng;
    isdb_rng_seed(&ctx, 1000);
    *n_arms = max_arms < 4 ? max_arms : 4;
    for (i = 0; i < *n_arms * d; ++i) X[i] = isdb_rng_normal(&ctx) / 2;
}
static void base_oam(any_config *c) { c->oam = isdb_oam_config_init(3, 4, 1000); }
#define T_ isdb_oam_config
static const field f_oam[] = {FI(T_, d, 0),         FI(T_, max_arms, 0),         FI(T_, max_contexts, 0),
                              FU(T_, horizon, 1),   FD(T_, c, -1),               FD(T_, zeta, -1),
                              FI(T_, forcing, 9),   FD(T_, force_c, -1),         FI(T_, force_s_now, 2),
                              FD(T_, lambda, -1),   FD(T_, solver_tol, 1),       FIF(T_, solver_max_iter, 0, LOOPS),
                              FI(T_, refresh, -1)};
#undef T_

static void base_traceucb(any_config *c) { c->traceucb = isdb_traceucb_config_init(3, 3); }
#define T_ isdb_traceucb_config
static const field f_traceucb[] = {FI(T_, d, 0),         FI(T_, m, 0),         FI(T_, mode, 9),
                                   FI(T_, width, 9),     FI(T_, objective, 9), FD(T_, alpha, -1),
                                   FD(T_, R, -1),        FD(T_, delta, T_SUBNORMAL),     FI(T_, horizon, -1),
                                   FD(T_, lambda, -1),   FI(T_, refresh, -1),  FI(T_, sparse_s, 4),
                                   FI(T_, sparse_L, -1)};
/* The theory width reads delta: ln(2 m n / delta). */
static void base_traceucb_theory(any_config *c) {
    c->traceucb = isdb_traceucb_config_init(3, 3);
    c->traceucb.width = ISDB_TRACEUCB_WIDTH_THEORY;
}
static const field f_traceucb_theory[] = {FD(T_, alpha, -1), FD(T_, R, -1), FD(T_, delta, T_SUBNORMAL)};
#undef T_

static int state_isd(void *o) {
    const isdb_isd *p = (const isdb_isd *)o;
    double r[2];
    if (!STATE_FITS(p->base.d)) return 1;
    isdb_isd_get_beta_inv(p, state_buf);
    if (!finite_all(state_buf, p->base.d, "beta_inv")) return 0;
    isdb_isd_get_gamma(p, state_buf);
    if (!finite_all(state_buf, p->base.d, "gamma")) return 0;
    isdb_isd_get_radii(p, &r[0], &r[1]);
    return finite_all(r, 2, "radii");
}
static int state_oam(void *o) {
    const isdb_oam *p = (const isdb_oam *)o;
    double v[2];
    if (!STATE_FITS(p->base.d)) return 1;
    isdb_oam_get_theta(p, state_buf);
    if (!finite_all(state_buf, p->base.d, "theta")) return 0;
    v[0] = isdb_oam_get_fn(p);
    v[1] = isdb_oam_get_min_gap(p);
    return finite_all(v, 2, "fn, min_gap");
}
/* Trace-UCB: the variances, widths and traces of every model, and each
   model's ridge estimate. */
static int state_traceucb(void *o) {
    isdb_traceucb *p = (isdb_traceucb *)o;
    int i, m = p->cfg.m, d = p->cfg.d;
    if (!STATE_FITS(m) || !STATE_FITS(d)) return 1;
    isdb_traceucb_get_variances(p, state_buf);
    if (!finite_all(state_buf, m, "variances")) return 0;
    isdb_traceucb_get_widths(p, state_buf);
    if (!finite_all(state_buf, m, "widths")) return 0;
    isdb_traceucb_get_traces(p, state_buf);
    if (!finite_all(state_buf, m, "traces")) return 0;
    for (i = 0; i < m; ++i)
        if (isdb_traceucb_estimate(p, i, ISDB_TRACEUCB_RIDGE, state_buf) == ISDB_OK &&
            !finite_all(state_buf, d, "ridge estimate"))
            return 0;
    return 1;
}

static int ienv_sizes[2] = {2, 2}, ienv_res[2] = {0, 1};
static void base_isd_env(any_config *c) { c->isd_env = isdb_isd_env_config_init(4, 5, 2, ienv_sizes, ienv_res); }
#define T_ isdb_isd_env_config
static const field f_isd_env[] = {
    FI(T_, d, 0),           FI(T_, n_arms, 0),          FUF(T_, seed, 0, NO_BAD),    FI(T_, n_blocks, 0),
    FUF(T_, basis_seed, 0, NO_BAD), FD(T_, gamma_lo, NAN), FD(T_, gamma_hi, 0),       FI(T_, normalize_gamma0, 2),
    FUF(T_, cov_seed, 0, NO_BAD), FI(T_, cov_period, 0), FD(T_, drift_amp, NAN),     FD(T_, drift_freq, INFINITY),
    FI(T_, drift_code, 2),  FD(T_, res_lo, NAN),        FD(T_, res_hi, 0),           FD(T_, noise_sd, -1)};
#undef T_

static void base_kernel_env(any_config *c) { c->kernel_env = isdb_kernel_env_config_init(3, 5); }
static void base_kernel_env_cos(any_config *c) {
    c->kernel_env = isdb_kernel_env_config_init(3, 5);
    c->kernel_env.kind = ISDB_KENV_COSINE;
}
#define T_ isdb_kernel_env_config
static const field f_kernel_env[] = {FI(T_, d, 0),          FI(T_, n_arms, 4097),       FUF(T_, seed, 0, NO_BAD),
                                     FI(T_, kind, 9),       FI(T_, kernel, 9),          FD(T_, length_scale, 0),
                                     FD(T_, amplitude, -1), FI(T_, n_switches, -1),     FD(T_, noise_sd, -1),
                                     FD(T_, y_bound, -1)};
static const field f_kernel_env_cos[] = {FD(T_, freq, NAN), FI(T_, n_phase, -1)};
#undef T_

static isdb_real cenv_arms[2 * 3 * 2], cenv_theta[2] = {0.5, -0.25};
static void base_context_env(any_config *c) {
    int i;
    for (i = 0; i < 12; ++i) cenv_arms[i] = (isdb_real)((i % 5) - 2) / 3;
    c->context_env = isdb_context_env_config_init(2, 3, 2);
    c->context_env.arms = cenv_arms;
    c->context_env.theta = cenv_theta;
}
#define T_ isdb_context_env_config
static const field f_context_env[] = {FI(T_, d, 0), FI(T_, n_arms, 0), FI(T_, n_contexts, 0),
                                      FUF(T_, seed, 0, NO_BAD), FD(T_, noise_sd, -1)};
#undef T_

static void base_active_env(any_config *c) { c->active_env = isdb_active_env_config_init(3, 3); }
static const field f_active_env[] = {FI(isdb_active_env_config, d, 0), FI(isdb_active_env_config, m, 0),
                                     FUF(isdb_active_env_config, seed, 0, NO_BAD)};
#endif

#define KIND(label, n, base, is_env, round, fields, state) \
    {label, base, check_##n, init_##n, is_env, round, fields, COUNT(fields), state}
static const kind kinds[] = {
    KIND("linucb", linucb, base_linucb, 0, NULL, f_linucb, state_linucb),
    KIND("swucb", swucb, base_swucb, 0, NULL, f_swucb, state_swucb),
    KIND("dlinucb", dlinucb, base_dlinucb, 0, NULL, f_dlinucb, state_dlinucb),
    KIND("lints", lints, base_lints, 0, NULL, f_lints, state_lints),
    KIND("bob", bob, base_bob, 0, NULL, f_bob, state_bob),
    KIND("adaptive", adaptive, base_adaptive, 0, NULL, f_adaptive, state_adaptive),
    KIND("linear_env", linear_env, base_linear_env, 1, NULL, f_linear_env, NULL),
    KIND("linear_env box", linear_env, base_linear_env_box, 1, NULL, f_linear_env_box, NULL),
    KIND("linear_env rotation", linear_env, base_linear_env_rot, 1, NULL, f_linear_env_rot, NULL),
#if !ISDB_REAL_IS_FLOAT
    KIND("isd", isd, base_isd, 0, NULL, f_isd, state_isd),
    KIND("isd window", isd, base_isd_window, 0, NULL, f_isd_window, state_isd),
    KIND("isd discount", isd, base_isd_discount, 0, NULL, f_isd_discount, state_isd),
    KIND("opkb", opkb, base_opkb, 0, round_opkb_set, f_opkb, NULL),
    KIND("oam", oam, base_oam, 0, round_oam_one, f_oam, state_oam),
    KIND("traceucb", traceucb, base_traceucb, 0, traceucb_round, f_traceucb, state_traceucb),
    KIND("traceucb theory", traceucb, base_traceucb_theory, 0, traceucb_round, f_traceucb_theory, state_traceucb),
    KIND("isd_env", isd_env, base_isd_env, 1, NULL, f_isd_env, NULL),
    KIND("kernel_env", kernel_env, base_kernel_env, 1, NULL, f_kernel_env, NULL),
    KIND("kernel_env cosine", kernel_env, base_kernel_env_cos, 1, NULL, f_kernel_env_cos, NULL),
    KIND("context_env", context_env, base_context_env, 1, NULL, f_context_env, NULL),
    KIND("active_env", active_env, base_active_env, 1, NULL, f_active_env, NULL),
#endif
};

/* An allocator that refuses more than 64 MB, so that huge accepted sizes
   end in ISDB_ERR_OUT_OF_MEMORY rather than in the machine's swap. */
#define ALLOC_CAP ((size_t)64 << 20)
static void *cap_alloc(size_t n, void *user) {
    (void)user;
    return n > ALLOC_CAP ? NULL : malloc(n);
}
static void cap_free(void *p, void *user) {
    (void)user;
    free(p);
}
static const isdb_allocator cap = {cap_alloc, cap_free, NULL};

static void set_field(any_config *c, const field *f, double v) {
    unsigned char *p = (unsigned char *)c + f->off;
    if (f->type == F_INT) {
        int x = (int)v;
        memcpy(p, &x, sizeof x);
    } else if (f->type == F_REAL) {
        isdb_real x = (isdb_real)v;
        memcpy(p, &x, sizeof x);
    } else if (f->type == F_DBL) {
        memcpy(p, &v, sizeof v);
    } else {
        uint64_t x = (uint64_t)v;
        memcpy(p, &x, sizeof x);
    }
}

static void set_u64(any_config *c, const field *f, uint64_t v) { memcpy((unsigned char *)c + f->off, &v, sizeof v); }
static void set_int(any_config *c, const field *f, int v) { memcpy((unsigned char *)c + f->off, &v, sizeof v); }

static storage obj;
static int played, accepted, refused;

/* Inputs near the bound every policy accepts: features and rewards up to
   half of ISDB_INPUT_MAX in magnitude. */
#define BIG ((isdb_real)(ISDB_INPUT_MAX / 2))
/* OPKB's arms are the config's. */
#if ISDB_REAL_IS_FLOAT
#define ARMS_FROM_CONFIG(k) 0
#else
#define ARMS_FROM_CONFIG(k) ((k)->round == round_opkb_set)
#endif

/* 300 rounds with features |x_i| <= 1 and rewards in [-1, 1] or, if big,
   features and rewards up to BIG (policies whose arms are fixed by the
   config keep them); after every select and update the getters' values
   must be finite. Returns 0 after the first failure (reported). */
static int play_policy(const kind *k, const char *what, int big) {
    isdb_policy *p = (isdb_policy *)(void *)&obj;
    static isdb_real X[4096 * 3], sc[4096];
    isdb_rng rng;
    int t, i, d = p->d, n, arm = -1;
    const char *pass = big ? "big inputs" : "unit inputs";
    isdb_rng_seed(&rng, 99);
    for (t = 0; t < 300; ++t) {
        isdb_result r;
        isdb_real reward;
        if (k->round) {
            k->round(&rng, d, p->max_arms, &n, X);
            if (big && !ARMS_FROM_CONFIG(k)) {
                double top = 0;
                for (i = 0; i < n * d; ++i)
                    if (fabs((double)X[i]) > top) top = fabs((double)X[i]);
                for (i = 0; top > 0 && i < n * d; ++i) X[i] = (isdb_real)((double)X[i] / top * (double)BIG);
            }
        } else {
            n = 1 + (int)isdb_rng_below(&rng, (uint64_t)(p->max_arms < 4 ? p->max_arms : 4));
            for (i = 0; i < n * d; ++i)
                X[i] = (2 * isdb_rng_uniform(&rng) - 1) * (big ? BIG : 1 / (isdb_real)sqrt((double)d));
        }
        r = isdb_policy_scores(p, X, n, sc);
        if (r != ISDB_OK) {
            fprintf(stderr, "%s, %s: scores gave %s at round %d", what, pass, isdb_result_string(r), t);
            return 0;
        }
        for (i = 0; i < n; ++i)
            if (!isfinite(sc[i])) {
                fprintf(stderr, "%s, %s: score %d is %g at round %d", what, pass, i, (double)sc[i], t);
                return 0;
            }
        r = isdb_policy_select(p, X, n, &arm);
        if (r != ISDB_OK || arm < 0 || arm >= n) {
            fprintf(stderr, "%s, %s: select gave %s (arm %d) at round %d", what, pass, isdb_result_string(r), arm,
                    t);
            return 0;
        }
        if (k->state_finite && !k->state_finite(&obj)) {
            fprintf(stderr, "%s, %s: after select %d, %s", what, pass, t, state_msg);
            return 0;
        }
        reward = (2 * isdb_rng_uniform(&rng) - 1) * (big ? BIG : 1);
        r = isdb_policy_update(p, arm, X + arm * d, reward);
        if (r != ISDB_OK) {
            fprintf(stderr, "%s, %s: update gave %s at round %d", what, pass, isdb_result_string(r), t);
            return 0;
        }
        if (k->state_finite && !k->state_finite(&obj)) {
            fprintf(stderr, "%s, %s: after update %d, %s", what, pass, t, state_msg);
            return 0;
        }
    }
    return 1;
}

static int play_env(const char *what) {
    isdb_env *e = (isdb_env *)(void *)&obj;
    int t, i;
    for (t = 0; t < 300; ++t) {
        isdb_real y;
        isdb_result r = isdb_env_next(e);
        if (r != ISDB_OK) {
            fprintf(stderr, "%s: next gave %s at round %d", what, isdb_result_string(r), t);
            return 0;
        }
        for (i = 0; i < e->n_arms; ++i)
            if (!isfinite(e->means[i])) {
                fprintf(stderr, "%s: mean %d is %g at round %d", what, i, (double)e->means[i], t);
                return 0;
            }
        r = isdb_env_reward(e, t % e->n_arms, &y);
        if (r != ISDB_OK || !isfinite(y)) {
            fprintf(stderr, "%s: reward gave %s, %g at round %d", what, isdb_result_string(r), (double)y, t);
            return 0;
        }
    }
    return 1;
}

static void uninit(const kind *k) {
    if (k->is_env)
        isdb_env_uninit((isdb_env *)(void *)&obj);
    else
        isdb_policy_uninit((isdb_policy *)(void *)&obj);
}

/* One config: check and init agree; if accepted and `play`, 300 rounds. */
static void try_config(const kind *k, const field *f, const any_config *c, const char *what, int play) {
    isdb_refusal why;
    isdb_result rc = k->check(c, &why), ri;
    memset(&obj, 0, sizeof obj);
    ri = k->init(c, &cap, &obj);
    if (rc != ISDB_OK) {
        ++refused;
        CHECK_MSG(ri == rc, "%s: check gave %s, init %s", what, isdb_result_string(rc), isdb_result_string(ri));
        CHECK_MSG(why.field != NULL && why.range != NULL, "%s: refused without a field", what);
        if (ri == ISDB_OK) uninit(k);
        return;
    }
    CHECK_MSG(why.field == NULL, "%s: accepted but names %s", what, why.field ? why.field : "");
    if (ri == ISDB_ERR_OUT_OF_MEMORY) return; /* beyond the test's allocator */
    CHECK_MSG(ri == ISDB_OK, "%s: check accepted, init gave %s (field %s)", what, isdb_result_string(ri), f->name);
    if (ri != ISDB_OK) return;
    ++accepted;
    if (play) {
        int ok = k->is_env ? play_env(what) : play_policy(k, what, 0);
        if (ok && !k->is_env) {
            /* The same policy from its initial state, on inputs near the bound. */
            isdb_policy_reset((isdb_policy *)(void *)&obj);
            ok = play_policy(k, what, 1);
        }
        CHECK_MSG(ok, "%s: 300 rounds with finite scores and estimates and every call ISDB_OK", what);
        ++played;
    }
    uninit(k);
}

/* 1. A bad value of each field is refused with its name. */
static void test_names(void) {
    int i, j;
    for (i = 0; i < COUNT(kinds); ++i) {
        const kind *k = &kinds[i];
        any_config c;
        isdb_refusal why;
        k->base(&c);
        CHECK_MSG(k->check(&c, &why) == ISDB_OK && why.field == NULL && isnan(why.lo), "%s: base refused (%s)",
                  k->name, why.field ? why.field : "");
        for (j = 0; j < k->n_fields; ++j) {
            const field *f = &k->fields[j];
            isdb_result rc, ri;
            if (f->flags & NO_BAD) continue;
            k->base(&c);
            set_field(&c, f, f->bad);
            memset(&why, 0, sizeof why);
            rc = k->check(&c, &why);
            CHECK_MSG(rc == ISDB_ERR_INVALID_ARG, "%s.%s = %g: check gave %s", k->name, f->name, f->bad,
                      isdb_result_string(rc));
            CHECK_MSG(why.field && strcmp(why.field, f->name) == 0, "%s.%s = %g: refusal names %s", k->name,
                      f->name, f->bad, why.field ? why.field : "(null)");
            CHECK_MSG(why.range && why.range[0], "%s.%s: no range text", k->name, f->name);
            CHECK(k->check(&c, NULL) == rc);
            memset(&obj, 0, sizeof obj);
            ri = k->init(&c, NULL, &obj);
            CHECK_MSG(ri == rc, "%s.%s = %g: init gave %s", k->name, f->name, f->bad, isdb_result_string(ri));
            if (ri == ISDB_OK) uninit(k);
        }
        /* A NULL config is refused as "cfg". */
        memset(&why, 0, sizeof why);
        CHECK_RESULT(k->check(NULL, &why), ISDB_ERR_INVALID_ARG);
        CHECK_MSG(why.field && strcmp(why.field, "cfg") == 0, "%s: NULL cfg named %s", k->name,
                  why.field ? why.field : "(null)");
    }
}

/* 2. The sweep. */
static void test_sweep(void) {
    static const double reals[] = {0.0, -1.0, -0.5, NAN, INFINITY, -INFINITY, (double)T_SUBNORMAL,
                                   1e-300, 1e35, 1e160, 1e308, -1e308};
    static const int ints[] = {0, -1, 1, INT_MAX, INT_MIN, 1 << 30};
    static const uint64_t u64s[] = {0, 1, (uint64_t)1 << 30, (uint64_t)1 << 62, UINT64_MAX};
    int i, j, v;
    char what[160];
    for (i = 0; i < COUNT(kinds); ++i) {
        const kind *k = &kinds[i];
        any_config c;
        k->base(&c);
        snprintf(what, sizeof what, "%s base", k->name);
        try_config(k, &k->fields[0], &c, what, 1);
        for (j = 0; j < k->n_fields; ++j) {
            const field *f = &k->fields[j];
            if (f->type == F_INT) {
                for (v = 0; v < COUNT(ints); ++v) {
                    int x = ints[v];
                    if ((f->flags & LENGTH) && (x > 1)) continue;
                    k->base(&c);
                    set_int(&c, f, x);
                    snprintf(what, sizeof what, "%s.%s = %d", k->name, f->name, x);
                    try_config(k, f, &c, what, !((f->flags & LOOPS) && x > 10000));
                }
            } else if (f->type == F_U64) {
                for (v = 0; v < COUNT(u64s); ++v) {
                    k->base(&c);
                    set_u64(&c, f, u64s[v]);
                    snprintf(what, sizeof what, "%s.%s = %llu", k->name, f->name, (unsigned long long)u64s[v]);
                    try_config(k, f, &c, what, 1);
                }
            } else {
                for (v = 0; v < COUNT(reals); ++v) {
                    k->base(&c);
                    set_field(&c, f, reals[v]);
                    snprintf(what, sizeof what, "%s.%s = %g", k->name, f->name, reals[v]);
                    try_config(k, f, &c, what, 1);
                }
            }
        }
    }
    printf("sweep: %d configs refused, %d accepted, %d played 300 rounds twice\n", refused, accepted, played);
}

/* 3. The arguments of init, select and update. */
static void test_arguments(void) {
    isdb_linucb_config c = isdb_linucb_config_init(3, 4);
    isdb_linucb pol;
    isdb_refusal why;
    static double heap_buf[4096];
    size_t bytes;
    isdb_real X[12] = {0}, x[3] = {0};
    int arm = -1;
    CHECK_RESULT(isdb_linucb_heap_size(&c, &bytes), ISDB_OK);
    CHECK(bytes + 8 <= sizeof heap_buf);
    CHECK_RESULT(isdb_init_check(heap_buf, sizeof heap_buf, bytes, NULL, &why), ISDB_ERR_INVALID_ARG);
    CHECK(why.field && strcmp(why.field, "pol") == 0);
    CHECK_RESULT(isdb_linucb_init_preallocated(&c, heap_buf, sizeof heap_buf, NULL), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_init_check((unsigned char *)heap_buf + 4, sizeof heap_buf - 4, bytes, &pol, &why),
                 ISDB_ERR_INVALID_ARG);
    CHECK(why.field && strcmp(why.field, "heap") == 0 && why.range && strstr(why.range, "aligned"));
    memset(&pol, 0x5a, sizeof pol);
    CHECK_RESULT(isdb_linucb_init_preallocated(&c, (unsigned char *)heap_buf + 4, sizeof heap_buf - 4, &pol),
                 ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_init_check(NULL, sizeof heap_buf, bytes, &pol, &why), ISDB_ERR_INVALID_ARG);
    CHECK(why.field && strcmp(why.field, "heap") == 0);
    CHECK_RESULT(isdb_init_check(heap_buf, sizeof heap_buf, bytes, &pol, &why), ISDB_OK);
    CHECK(why.field == NULL && why.range == NULL && isnan(why.lo) && isnan(why.hi));
    CHECK_RESULT(isdb_linucb_config_check(NULL, &why), ISDB_ERR_INVALID_ARG);
    CHECK(why.field && strcmp(why.field, "cfg") == 0 && strcmp(why.range, "non-NULL") == 0);
    CHECK_RESULT(isdb_linucb_init_preallocated(NULL, heap_buf, sizeof heap_buf, &pol), ISDB_ERR_INVALID_ARG);

    /* Dependent bounds are computed from the config. */
    c.max_arms = INT_MAX;
    CHECK_RESULT(isdb_linucb_config_check(&c, &why), ISDB_ERR_INVALID_ARG);
    CHECK(why.field && strcmp(why.field, "max_arms") == 0 && why.lo == 1 && why.hi == (double)(INT_MAX / 3));
    c.max_arms = 4;
    c.delta = 1;
    CHECK_RESULT(isdb_linucb_config_check(&c, &why), ISDB_ERR_INVALID_ARG);
    CHECK(why.field && strcmp(why.field, "delta") == 0 && why.lo > 0 && why.lo < 1e-30 && why.hi == 1);
    c.delta = (isdb_real)0.01;
    {
        /* LinTS's THEORY scale: epsilon from the ridge's lower bound (so
           24 / epsilon and the scale stay finite), a normal delta. */
        isdb_lints_config lc = isdb_lints_config_init(3, 4);
        isdb_real eps_min = (isdb_real)(ISDB_REAL_IS_FLOAT ? 1e-6 : 1e-30);
        lc.inflation = ISDB_LINTS_THEORY;
        lc.epsilon = eps_min;
        CHECK_RESULT(isdb_lints_config_check(&lc, &why), ISDB_OK);
        lc.epsilon = eps_min / 2;
        CHECK_RESULT(isdb_lints_config_check(&lc, &why), ISDB_ERR_INVALID_ARG);
        CHECK(why.field && strcmp(why.field, "epsilon") == 0 && why.lo == (double)eps_min && why.hi == 1);
        lc.epsilon = 1;
        lc.delta = T_SUBNORMAL;
        CHECK_RESULT(isdb_lints_config_check(&lc, &why), ISDB_ERR_INVALID_ARG);
        CHECK(why.field && strcmp(why.field, "delta") == 0 && why.lo > 0 && why.hi == 1);
        lc.delta = (isdb_real)0.01;
        lc.R = (isdb_real)(ISDB_REAL_IS_FLOAT ? 2e6 : 2e30);
        CHECK_RESULT(isdb_lints_config_check(&lc, &why), ISDB_ERR_INVALID_ARG);
        CHECK(why.field && strcmp(why.field, "R") == 0);
    }
#if !ISDB_REAL_IS_FLOAT
    {
        /* Trace-UCB's scales and delta; the active environment's variances. */
        static const double big_var[3] = {1, 2e30, 1};
        isdb_traceucb_config tc = isdb_traceucb_config_init(3, 3);
        isdb_active_env_config ac = isdb_active_env_config_init(3, 3);
        tc.alpha = 2e30;
        CHECK_RESULT(isdb_traceucb_config_check(&tc, &why), ISDB_ERR_INVALID_ARG);
        CHECK(why.field && strcmp(why.field, "alpha") == 0 && why.hi == 1e30);
        tc.alpha = 1e30;
        tc.R = 1e30;
        CHECK_RESULT(isdb_traceucb_config_check(&tc, &why), ISDB_OK);
        tc.delta = 1e-310;
        CHECK_RESULT(isdb_traceucb_config_check(&tc, &why), ISDB_ERR_INVALID_ARG);
        CHECK(why.field && strcmp(why.field, "delta") == 0);
        ac.noise_var = big_var;
        CHECK_RESULT(isdb_active_env_config_check(&ac, &why), ISDB_ERR_INVALID_ARG);
        CHECK(why.field && strcmp(why.field, "noise_var") == 0 && why.hi == 1e30);
    }
#endif
    {
        isdb_dlinucb_config dc = isdb_dlinucb_config_init(3, 4, 1);
        CHECK_RESULT(isdb_dlinucb_config_check(&dc, &why), ISDB_ERR_INVALID_ARG);
        CHECK(why.field && strcmp(why.field, "gamma") == 0 && why.lo == 0 && why.hi == 1 &&
              strcmp(why.range, "(0, 1)") == 0);
    }

    CHECK_RESULT(isdb_linucb_init_preallocated(&c, heap_buf, sizeof heap_buf, &pol), ISDB_OK);
    CHECK_RESULT(isdb_policy_check_select(NULL, X, 2, &arm, &why), ISDB_ERR_INVALID_ARG);
    CHECK(why.field && strcmp(why.field, "pol") == 0);
    CHECK_RESULT(isdb_policy_check_select(&pol.base, X, 5, &arm, &why), ISDB_ERR_INVALID_ARG);
    CHECK(why.field && strcmp(why.field, "n_arms") == 0 && why.lo == 1 && why.hi == 4);
    CHECK_RESULT(isdb_policy_check_select(&pol.base, NULL, 2, &arm, &why), ISDB_ERR_INVALID_ARG);
    CHECK(why.field && strcmp(why.field, "X") == 0);
    X[4] = T_NAN;
    CHECK_RESULT(isdb_policy_check_select(&pol.base, X, 2, &arm, &why), ISDB_ERR_NONFINITE);
    CHECK(why.field && strcmp(why.field, "X") == 0);
    CHECK_RESULT(isdb_policy_select(&pol.base, X, 2, &arm), ISDB_ERR_NONFINITE);
    CHECK(arm == -1);
    X[4] = T_BEYOND;
    CHECK_RESULT(isdb_policy_check_select(&pol.base, X, 2, &arm, &why), ISDB_ERR_RANGE);
    X[4] = 0;
    CHECK_RESULT(isdb_policy_check_select(&pol.base, X, 2, &arm, &why), ISDB_OK);
    CHECK(why.field == NULL);
    /* check_select takes select's arguments: a NULL output is refused,
       named "arm", as select refuses it; check_select writes no *arm. */
    CHECK_RESULT(isdb_policy_check_select(&pol.base, X, 2, NULL, &why), ISDB_ERR_INVALID_ARG);
    CHECK(why.field && strcmp(why.field, "arm") == 0);
    CHECK_RESULT(isdb_policy_select(&pol.base, X, 2, NULL), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_check_select(&pol.base, X, 2, &arm, NULL), ISDB_OK);
    CHECK(arm == -1 && pol.base.t == 0);
    CHECK_RESULT(isdb_policy_check_update(&pol.base, 4, x, 1, &why), ISDB_ERR_INVALID_ARG);
    CHECK(why.field && strcmp(why.field, "arm") == 0 && why.lo == 0 && why.hi == 3);
    CHECK_RESULT(isdb_policy_check_update(&pol.base, 1, NULL, 1, &why), ISDB_ERR_INVALID_ARG);
    CHECK(why.field && strcmp(why.field, "x") == 0);
    x[1] = T_INF;
    CHECK_RESULT(isdb_policy_check_update(&pol.base, 1, x, 1, &why), ISDB_ERR_NONFINITE);
    CHECK(why.field && strcmp(why.field, "x") == 0);
    x[1] = 0;
    CHECK_RESULT(isdb_policy_check_update(&pol.base, 1, x, T_NAN, &why), ISDB_ERR_NONFINITE);
    CHECK(why.field && strcmp(why.field, "reward") == 0);
    CHECK_RESULT(isdb_policy_update(&pol.base, 1, x, T_NAN), ISDB_ERR_NONFINITE);
    CHECK(pol.base.t == 0);
    CHECK_RESULT(isdb_policy_check_update(&pol.base, 1, x, 1, NULL), ISDB_OK);
    isdb_policy_uninit(&pol.base);
}

int main(void) {
    (void)case_round; /* cases.h's table is not used here, only its constructors' data */
    (void)cases;
    test_names();
    test_sweep();
    test_arguments();
    return test_report();
}

/* Configs at the edges of their documented ranges, fed inputs at
   ISDB_INPUT_MAX: a policy's own snapshot must load (issue 36: a save
   that load refuses loses the checkpoint). Every case of cases.h, then
   each policy with its fields at the ends of their ranges (smallest
   delta, tiny and huge lambda and scales, largest R, S, L, alpha), runs a
   few hundred rounds of features and rewards at ISDB_INPUT_MAX (and
   rounds mixing them with ordinary and tiny ones); then scores must be
   finite (or the documented ISDB_ERR_NONFINITE), the snapshot must load
   into a fresh object with ISDB_OK, and the copy must save the same bytes.
   Also: config_check, heap_size and init agree on random configs inside
   the checked ranges, and ISDB_INPUT_MAX itself is accepted where the
   next real above it is refused. */
#include "../isdbandit.h"
#include "test.h"
#include "cases.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if ISDB_REAL_IS_FLOAT
#define E_LAMBDA_MIN 1e-6f
#define E_LAMBDA_MAX 1e6f
#define E_SCALE_MAX 1e6f
#define E_DELTA_MIN FLT_MIN
#define E_TINY 1e-18f
#define E_FADE_MIN 1e-6f
#else
#define E_LAMBDA_MIN 1e-30
#define E_LAMBDA_MAX 1e30
#define E_SCALE_MAX 1e30
#define E_DELTA_MIN DBL_MIN
#define E_TINY 1e-150
#define E_FADE_MIN 1e-50
#endif
/* D-LinUCB's smallest gamma for d <= 4 (gamma^ceil(d / 4) >= E_FADE_MIN),
   up a few ulps for exp(log(.)) */
#define E_DLINUCB_GAMMA_MIN ((isdb_real)(E_FADE_MIN * (1 + 8 * ISDB_REAL_EPSILON)))

static storage mem_a, mem_b;
static unsigned char snap1[1 << 22], snap2[1 << 22];

/* Rounds per run: float adaptive's W overflowed after about 340. */
#define ROUNDS 400
enum { MODE_MAX, MODE_MIXED, N_MODES };
static const char *mode_names[N_MODES] = {"inputs at ISDB_INPUT_MAX", "inputs max, 1 and tiny"};

/* One round's arms and the reward of the played one. Features: the
   round's rows (the case's own for fixed arm sets, Gaussian otherwise)
   scaled so their largest entry is ISDB_INPUT_MAX (MODE_MAX), or, round by
   round, by ISDB_INPUT_MAX, 1 or E_TINY (MODE_MIXED). Rewards +-
   ISDB_INPUT_MAX, or 0 now and then. */
static isdb_real edge_scale(int mode, int t) {
    if (mode == MODE_MAX) return ISDB_INPUT_MAX;
    return t % 3 == 0 ? ISDB_INPUT_MAX : t % 3 == 1 ? (isdb_real)1 : E_TINY;
}

static void edge_round(isdb_rng *rng, const policy_case *pc, int fixed, int mode, int t, int d, int K, int *n, isdb_real *X) {
    int i;
    case_round(rng, pc, d, K, n, X);
#if !ISDB_REAL_IS_FLOAT
    fixed = pc->round == round_opkb;
    if (pc->round == round_oam) {
        /* OAM's few action sets, each one scale (their entries are
           Gaussian: 1 / 8 of the bound keeps them inside it) */
        for (i = 0; i < *n * d; ++i) X[i] = (isdb_real)(X[i] > 8 ? 8 : X[i] < -8 ? -8 : X[i]) * (ISDB_INPUT_MAX / 8);
    } else
#endif
        if (!fixed) {
        /* Entries of magnitude exactly ISDB_INPUT_MAX or smaller: the
           largest of each row is set to the bound. */
        isdb_real s = edge_scale(mode, t);
        for (i = 0; i < *n * d; ++i) {
            isdb_real v = X[i];
            X[i] = (isdb_real)(v > 2 ? s : v < -2 ? -s : v * (s / 2));
        }
        for (i = 0; i < *n; ++i) X[i * d] = i % 2 ? -s : s;
    }
}

static isdb_real edge_reward(int mode, int t) {
    if (t % 7 == 6) return 0;
    if (mode == MODE_MIXED && t % 5 == 2) return E_TINY;
    return t % 2 ? ISDB_INPUT_MAX : -ISDB_INPUT_MAX;
}

/* A policy built by make() twice: played, saved, loaded into the second. */
typedef isdb_result (*edge_make)(int variant, int d, int K, void *mem);

static int run_edge(const char *label, edge_make make, int variant, const policy_case *pc, int fixed, int mode, int d,
                    int K, int rounds) {
    isdb_policy *p = (isdb_policy *)&mem_a, *q = (isdb_policy *)&mem_b;
    static isdb_real X[64 * 16], out[64], out2[64];
    isdb_rng rng;
    int t, n = 0, arm, ok = 1;
    size_t n1 = 0, n2 = 0;
    isdb_result r = make(variant, d, K, &mem_a);
    if (r != ISDB_OK) {
        CHECK_MSG(0, "%s v%d: init gave %s", label, variant, isdb_result_string(r));
        return 0;
    }
    isdb_rng_seed(&rng, (uint64_t)(17 + variant + 31 * mode));
    for (t = 0; t < rounds && ok; ++t) {
        isdb_real y = edge_reward(mode, t);
        edge_round(&rng, pc, fixed, mode, t, d, K, &n, X);
        r = isdb_policy_select(p, X, n, &arm);
        if (r != ISDB_OK) {
            CHECK_MSG(r == ISDB_ERR_NONFINITE, "%s v%d %s: select round %d gave %s", label, variant, mode_names[mode], t,
                      isdb_result_string(r));
            ok = r == ISDB_ERR_NONFINITE;
            arm = t % n;
        }
        r = isdb_policy_update(p, arm, X + arm * d, y);
        if (r != ISDB_OK && r != ISDB_ERR_NOT_SPD && r != ISDB_ERR_NONFINITE) {
            CHECK_MSG(0, "%s v%d %s: update round %d gave %s", label, variant, mode_names[mode], t,
                      isdb_result_string(r));
            ok = 0;
        }
        r = isdb_policy_scores(p, X, n, out);
        if (r == ISDB_OK && !t_all_finite(out, n)) {
            CHECK_MSG(0, "%s v%d %s: round %d scores not finite", label, variant, mode_names[mode], t);
            ok = 0;
        } else if (r != ISDB_OK && r != ISDB_ERR_NONFINITE) {
            CHECK_MSG(0, "%s v%d %s: scores round %d gave %s", label, variant, mode_names[mode], t,
                      isdb_result_string(r));
            ok = 0;
        }
    }
    r = isdb_policy_save(p, snap1, sizeof snap1, &n1);
    CHECK_MSG(r == ISDB_OK, "%s v%d %s: save gave %s", label, variant, mode_names[mode], isdb_result_string(r));
    if (r == ISDB_OK && make(variant, d, K, &mem_b) == ISDB_OK) {
        r = isdb_policy_load(q, snap1, n1);
        CHECK_MSG(r == ISDB_OK, "%s v%d %s: its own snapshot is refused (%s)", label, variant, mode_names[mode],
                  isdb_result_string(r));
        ok &= r == ISDB_OK;
        if (r == ISDB_OK) {
            isdb_result r1 = isdb_policy_scores(p, X, n, out), r2 = isdb_policy_scores(q, X, n, out2);
            CHECK_MSG(isdb_policy_save(q, snap2, sizeof snap2, &n2) == ISDB_OK && n1 == n2 && memcmp(snap1, snap2, n1) == 0,
                      "%s v%d %s: the loaded copy saves other bytes", label, variant, mode_names[mode]);
            CHECK_MSG(r1 == r2 && (r1 != ISDB_OK || memcmp(out, out2, sizeof(isdb_real) * (size_t)n) == 0),
                      "%s v%d %s: the loaded copy scores otherwise", label, variant, mode_names[mode]);
        }
        isdb_policy_uninit(q);
    }
    isdb_policy_uninit(p);
    return ok;
}

/* ---- every case of cases.h, its own config, inputs at the bound ---- */

static const policy_case *case_now;
static isdb_result make_case(int variant, int d, int K, void *mem) {
    (void)variant;
    return case_now->make(NULL, d, K, mem);
}

static void test_cases_at_bound(void) {
    int i, mode;
    for (i = 0; i < N_CASES; ++i) {
        case_now = &cases[i];
        for (mode = 0; mode < N_MODES; ++mode)
            run_edge(cases[i].label, make_case, 0, &cases[i], cases[i].round != NULL, mode, cases[i].d,
                     cases[i].max_arms, ROUNDS);
    }
}

/* ---- each policy with its fields at the ends of their ranges ----
   Variants: 0 lambda and the scales smallest, 1 all largest, 2 lambda
   smallest and the scales largest, 3 lambda largest and the scales
   smallest; delta smallest in 0-2, the largest below 1 in 3. */
enum { N_VARIANTS = 4 };
static isdb_real v_lambda(int v) { return v == 0 || v == 2 ? E_LAMBDA_MIN : E_LAMBDA_MAX; }
static isdb_real v_scale(int v) { return v == 1 || v == 2 ? E_SCALE_MAX : E_TINY; }
static isdb_real v_delta(int v) { return v == 3 ? (isdb_real)(1 - ISDB_REAL_EPSILON) : E_DELTA_MIN; }

#define SET_UCB(c, v)                                                                                                 \
    do {                                                                                                              \
        (c).lambda = v_lambda(v);                                                                                     \
        (c).delta = v_delta(v);                                                                                       \
        (c).R = (c).S = (c).L = (c).alpha = v_scale(v);                                                               \
    } while (0)

static isdb_result e_linucb(int v, int d, int K, void *mem) {
    isdb_linucb_config c = isdb_linucb_config_init(d, K);
    SET_UCB(c, v);
    c.width = (isdb_width)(v % 4);
    return isdb_linucb_init(&c, NULL, (isdb_linucb *)mem);
}
static isdb_result e_swucb(int v, int d, int K, void *mem) {
    isdb_swucb_config c = isdb_swucb_config_init(d, K, v % 2 ? 1 : 50);
    SET_UCB(c, v);
    c.width = (isdb_width)((v + 1) % 3);
    return isdb_swucb_init(&c, NULL, (isdb_swucb *)mem);
}
static isdb_result e_dlinucb(int v, int d, int K, void *mem) {
    /* gamma: the largest below 1, or the smallest for d (1e-50^(1 / ceil(d / 4)), 1e-6^... in float) */
    isdb_dlinucb_config c = isdb_dlinucb_config_init(d, K, v % 2 ? (isdb_real)(1 - ISDB_REAL_EPSILON) : E_DLINUCB_GAMMA_MIN);
    SET_UCB(c, v);
    c.refresh = v == 2 ? 1 : 0;
    return isdb_dlinucb_init(&c, NULL, (isdb_dlinucb *)mem);
}
static isdb_result e_lints(int v, int d, int K, void *mem) {
    isdb_lints_config c = isdb_lints_config_init(d, K);
    c.lambda = v_lambda(v);
    c.R = v_scale(v);
    c.inflation = ISDB_LINTS_THEORY;
    c.epsilon = v % 2 ? 1 : E_LAMBDA_MIN;
    c.delta = v_delta(v);
    c.mc_samples = 20;
    return isdb_lints_init(&c, NULL, (isdb_lints *)mem);
}
static isdb_result e_bob(int v, int d, int K, void *mem) {
    isdb_bob_config c = isdb_bob_config_init(d, K, v % 2 ? 2 : 100);
    c.lambda = v_lambda(v);
    c.R = c.S = c.L = c.alpha = v_scale(v);
    c.reward_bound = v % 2 ? (isdb_real)(ISDB_REAL_IS_FLOAT ? 1e20 : 1e30) : (isdb_real)(ISDB_REAL_IS_FLOAT ? 1e-20 : 1e-30);
    c.clip = v == 3;
    return isdb_bob_init(&c, NULL, (isdb_bob *)mem);
}
static isdb_result e_adaptive(int v, int d, int K, void *mem) {
    isdb_adaptive_config c = isdb_adaptive_config_init(d, K);
    SET_UCB(c, v);
    c.min_memory = 2;
    c.max_memory = v % 2 ? 1 << 30 : 4;
    c.threshold = v % 2 ? (isdb_real)E_SCALE_MAX : E_TINY;
    c.play_threshold = v % 2 ? 0 : (isdb_real)E_SCALE_MAX;
    c.noise_estimate = (isdb_adaptive_noise)(v % 3);
    c.play_horizon = v == 2 ? 1024 : 0;
    return isdb_adaptive_init(&c, NULL, (isdb_adaptive *)mem);
}

#if !ISDB_REAL_IS_FLOAT
/* ISD: every radius and learner, delta smallest (v < 3). */
static isdb_result e_isd(int v, int d, int K, void *mem) {
    isdb_isd_config c;
    isd_offline(d);
    c = isdb_isd_config_init(d, K, ISD_N0, isd_X0, isd_R0);
    SET_UCB(c, v & 3);
    c.radius = (isdb_isd_radius)((v >> 2) & 3);
    c.learner = (isdb_isd_learner)(v >> 4);
    c.window = 5;
    c.gamma = v & 1 ? 1 - DBL_EPSILON : 1e-100;
    return isdb_isd_init(&c, NULL, (isdb_isd *)mem);
}
/* OPKB and ADA-OPKB (v & 1): the tests, c0_scale, sigma / horizon and
   reward_scale at their ends. */
static isdb_result e_opkb(int v, int d, int K, void *mem) {
    isdb_opkb_config c = isdb_opkb_config_init(d, K, v & 2 ? 1e15 : 2.0);
    double kmax = 0;
    int i, j;
    c.arms = opkb_arms(d, K);
    for (i = 0; i < K; ++i) {
        double kk = 0;
        for (j = 0; j < d; ++j) kk += c.arms[i * d + j] * c.arms[i * d + j];
        kmax = kk > kmax ? kk : kmax;
    }
    kmax *= 1 - 1e-12; /* below isdb__dot's rounding */
    c.adaptive = v & 1;
    c.test = v & 4 ? ISDB_OPKB_TEST_CONSTANT : ISDB_OPKB_TEST_CALIBRATED;
    c.c0_scale = v & 8 ? 1e300 : 1e-300;
    c.test_z = v & 8 ? 1e300 : 1e-300;
    c.sigma = c.horizon * (v & 16 ? 1e30 * kmax : 1e-10); /* lambda at the ends of [1e-10, 1e30] max k(x, x) */
    c.reward_scale = v & 8 ? 1e30 : 1e-30;
    c.delta = v & 32 ? 1e-4 : DBL_MIN;
    c.j_star = 1;
    c.seed = (uint64_t)v;
    return isdb_opkb_init(&c, NULL, (isdb_opkb *)mem);
}
static isdb_result e_oam(int v, int d, int K, void *mem) {
    isdb_oam_config c = isdb_oam_config_init(d, K, v & 1 ? 2 : 100000);
    c.max_contexts = 4;
    c.c = v & 2 ? 1e30 : 0;
    c.zeta = v & 2 ? 1e300 : 0;
    c.forcing = (isdb_oam_forcing)(v % 3);
    c.force_c = 1e30;
    c.lambda = v & 4 ? (v & 1 ? 1e30 : 1e-30) : 0;
    return isdb_oam_init(&c, NULL, (isdb_oam *)mem);
}
static isdb_result e_traceucb(int v, int d, int K, void *mem) {
    isdb_traceucb_config c = isdb_traceucb_config_init(d, K);
    static double w[64];
    int i;
    for (i = 0; i < 64; ++i) w[i] = i % 2 ? ISDB_INPUT_MAX : 1e-300;
    c.mode = (isdb_traceucb_mode)(v & 3);
    c.width = (isdb_traceucb_width)((v >> 2) & 1);
    c.alpha = c.R = v & 8 ? 1e30 : 0;
    c.delta = v & 8 ? DBL_MIN : 0.5;
    c.lambda = v & 16 ? 1e30 : v & 8 ? 0 : 1e-30;
    c.Sigma = v & 32 ? tu_fill(d, K) : NULL;
    if (c.mode == ISDB_TRACEUCB_STATIC) c.noise_var = w;
    c.weights = v & 8 ? w : NULL;
    c.horizon = v & 16 ? 0 : 300;
    return isdb_traceucb_init(&c, NULL, (isdb_traceucb *)mem);
}
#endif

static void test_policies_at_edges(void) {
    static const struct {
        const char *label;
        edge_make make;
        int variants, d, K;
        void (*round)(isdb_rng *rng, int d, int max_arms, int *n_arms, isdb_real *X);
    } rows[] = {
        {"linucb", e_linucb, N_VARIANTS, 3, 4, NULL},
        {"swucb", e_swucb, N_VARIANTS, 3, 4, NULL},
        {"dlinucb", e_dlinucb, N_VARIANTS, 3, 4, NULL},
        {"lints", e_lints, N_VARIANTS, 3, 4, NULL},
        {"bob", e_bob, N_VARIANTS, 3, 4, NULL},
        {"adaptive", e_adaptive, N_VARIANTS, 3, 4, NULL},
#if !ISDB_REAL_IS_FLOAT
        {"isd", e_isd, 16 * 4, 4, 4, NULL},
        {"opkb", e_opkb, 64, 3, 5, round_opkb},
        {"oam", e_oam, 8, 3, 3, round_oam},
        {"traceucb", e_traceucb, 64, 3, 3, traceucb_round},
#endif
    };
    int i, v, mode;
    for (i = 0; i < (int)(sizeof rows / sizeof rows[0]); ++i) {
        policy_case pc;
        int failed = 0;
        memset(&pc, 0, sizeof pc);
        pc.round = rows[i].round;
        for (v = 0; v < rows[i].variants; ++v)
            for (mode = 0; mode < N_MODES; ++mode)
                failed += !run_edge(rows[i].label, rows[i].make, v, &pc, pc.round != NULL, mode,
                                    rows[i].d, rows[i].K, ROUNDS);
        printf("  %-9s %3d configs x %d input modes: %d failed\n", rows[i].label, rows[i].variants, N_MODES, failed);
    }
}

/* The probe's case: adaptive's W (NOISE_LOCAL, the default) under
   features and rewards at ISDB_INPUT_MAX, each squared error at the cap,
   grew by 1e36 an update in float and overflowed after about 340. */
static void test_adaptive_noise_sum(void) {
    isdb_adaptive_config c = isdb_adaptive_config_init(2, 3);
    isdb_real X[6] = {ISDB_INPUT_MAX, ISDB_INPUT_MAX, -ISDB_INPUT_MAX, ISDB_INPUT_MAX, ISDB_INPUT_MAX, 0};
    isdb_real out[3];
    int t, arm, ok = 1;
    size_t n = 0;
    CHECK_OK(isdb_adaptive_init(&c, NULL, (isdb_adaptive *)&mem_a));
    for (t = 0; t < 1000 && ok; ++t) {
        ok &= isdb_policy_select((isdb_policy *)&mem_a, X, 3, &arm) == ISDB_OK;
        ok &= isdb_policy_update((isdb_policy *)&mem_a, t % 3, X + (t % 3) * 2,
                                 t % 2 ? ISDB_INPUT_MAX : -ISDB_INPUT_MAX) == ISDB_OK;
    }
    CHECK_MSG(ok, "adaptive at the input bound: a call failed at round %d", t);
    CHECK_OK(isdb_policy_scores((isdb_policy *)&mem_a, X, 3, out));
    CHECK(t_all_finite(out, 3));
    CHECK_OK(isdb_policy_save((isdb_policy *)&mem_a, snap1, sizeof snap1, &n));
    CHECK_OK(isdb_adaptive_init(&c, NULL, (isdb_adaptive *)&mem_b));
    CHECK_MSG(isdb_policy_load((isdb_policy *)&mem_b, snap1, n) == ISDB_OK,
              "adaptive at the input bound: 1000 updates, its own snapshot is refused");
    isdb_policy_uninit((isdb_policy *)&mem_a);
    isdb_policy_uninit((isdb_policy *)&mem_b);
}

#if !ISDB_REAL_IS_FLOAT
/* Trace-UCB took contexts of magnitude 1e-160 with Sigma estimated and
   refused them (ISDB_ERR_NONFINITE, or held a trace of 0) with Sigma
   known: Tr(Sigma S^-1) ~ 1e320. Both take them now, the known trace held
   at DBL_MAX; contexts of ordinary size then bring it back. (The traces
   are read from the struct: the getters are being renamed.) */
static void test_traceucb_tiny_contexts(void) {
    int known;
    for (known = 0; known < 2; ++known) {
        isdb_traceucb *p = (isdb_traceucb *)&mem_a;
        isdb_traceucb_config c = isdb_traceucb_config_init(3, 3);
        double x[3], X[9], out[3];
        isdb_rng rng;
        int t, i, arm, ok = 1, finite = 1, held = 0;
        size_t n = 0;
        isdb_rng_seed(&rng, 1);
        c.Sigma = known ? tu_fill(3, 3) : NULL;
        CHECK_OK(isdb_traceucb_init(&c, NULL, p));
        for (t = 0; t < 120; ++t) {
            double s = t < 60 ? 1e-160 : 1.0;
            for (i = 0; i < 3; ++i) x[i] = s * isdb_rng_normal(&rng);
            for (i = 0; i < 9; ++i) X[i] = x[i % 3];
            ok &= isdb_policy_select(&p->base, X, 3, &arm) == ISDB_OK;
            ok &= isdb_policy_update(&p->base, arm, x, s * isdb_rng_normal(&rng)) == ISDB_OK;
            ok &= isdb_policy_scores(&p->base, X, 3, out) == ISDB_OK;
            finite &= t_all_finite(out, 3);
            if (t == 59) {
                for (i = 0; i < 3; ++i) {
                    held += p->_full[i] && p->_trace[i] == DBL_MAX;
                    /* a full model's trace is positive: 0 was the NaN's clamp */
                    CHECK_MSG(!p->_full[i] || p->_trace[i] > 0.0, "traceucb %s: model %d's trace is %g",
                              known ? "known Sigma" : "estimated", i, p->_trace[i]);
                }
                CHECK_MSG(known ? held > 0 : held == 0, "traceucb %s: %d traces held at DBL_MAX",
                          known ? "known Sigma" : "estimated", held);
            }
        }
        CHECK_MSG(ok && finite, "traceucb %s: contexts of 1e-160 refused, or scores not finite",
                  known ? "known Sigma" : "estimated");
        for (i = 0; i < 3; ++i)
            CHECK_MSG(p->_full[i] && p->_trace[i] > 0.0 && p->_trace[i] < 1e10, "traceucb %s: model %d trace %g k %d",
                      known ? "known Sigma" : "estimated", i, p->_trace[i], p->_k[i]);
        CHECK_OK(isdb_policy_save(&p->base, snap1, sizeof snap1, &n));
        CHECK_OK(isdb_traceucb_init(&c, NULL, (isdb_traceucb *)&mem_b));
        CHECK_OK(isdb_policy_load((isdb_policy *)&mem_b, snap1, n));
        isdb_policy_uninit((isdb_policy *)&mem_b);
        isdb_policy_uninit(&p->base);
    }
}
#endif

/* ISDB_INPUT_MAX itself is accepted, the next real above it refused, as
   a feature and as a reward, by every case (on x87, FLT_EVAL_METHOD 2,
   the bound was compared in long double and refused itself). */
static isdb_real next_up(isdb_real v) {
#if ISDB_REAL_IS_FLOAT
    return nextafterf(v, INFINITY);
#else
    return nextafter(v, (double)INFINITY);
#endif
}

static void test_input_bound_exact(void) {
    static isdb_real X[64 * 16];
    const isdb_real bound = ISDB_INPUT_MAX, above = next_up(bound);
    int i, n, feature_ok = 1, reward_ok = 1, refused = 1;
    isdb_rng rng;
    CHECK(above > bound);
    isdb_rng_seed(&rng, 3);
    for (i = 0; i < N_CASES; ++i) {
        isdb_policy *p = (isdb_policy *)&mem_a;
        int d = cases[i].d, fixed = 0;
#if !ISDB_REAL_IS_FLOAT
        fixed = cases[i].round == round_opkb;
#endif
        if (cases[i].make(NULL, d, cases[i].max_arms, &mem_a) != ISDB_OK) continue;
        case_round(&rng, &cases[i], d, cases[i].max_arms, &n, X);
        if (!fixed) {
            X[0] = bound;
            X[d - 1] = -bound;
        }
        reward_ok &= isdb_policy_update(p, 0, X, bound) == ISDB_OK;
        reward_ok &= isdb_policy_update(p, 0, X, -bound) == ISDB_OK;
        refused &= isdb_policy_update(p, 0, X, above) == ISDB_ERR_RANGE;
        refused &= isdb_policy_update(p, 0, X, -above) == ISDB_ERR_RANGE;
        if (!fixed) {
            feature_ok &= isdb_policy_update(p, 0, X, 0) == ISDB_OK;
            X[0] = above;
            refused &= isdb_policy_update(p, 0, X, 0) == ISDB_ERR_RANGE;
            X[0] = -above;
            refused &= isdb_policy_update(p, 0, X, 0) == ISDB_ERR_RANGE;
        }
        CHECK_MSG(reward_ok && feature_ok && refused, "%s: ISDB_INPUT_MAX refused, or the next real above it taken",
                  cases[i].label);
        isdb_policy_uninit(p);
    }
}

/* ---- config_check OK => heap_size OK => init OK (or out of memory) ----
   Random configs for each policy, every field drawn from values at and
   around the ends of the documented ranges (and beyond them, for
   config_check to refuse): whatever the check accepts, heap_size and init
   must accept. Heaps above 64 MB are sized, not built. */
static isdb_real pick_real(isdb_rng *r) {
    static const double pool[] = {0, 1e-300, 1e-150, 1e-100, 1e-50, 1e-30, 1e-20, 1e-10, 1e-6, 1e-3, 0.01, 0.1,
                                  0.5, 0.9, 0.99, 1, 2, 3.5, 100, 1e6, 1e10, 1e20, 1e30, 1e100, 1e250, -1, -1e-30};
    uint64_t k = isdb_rng_below(r, 40);
    if (k < sizeof pool / sizeof pool[0]) {
        double v = pool[k];
#if ISDB_REAL_IS_FLOAT
        if (v != 0 && (fabs(v) < 1e-38 || fabs(v) > 1e38)) v = v > 0 ? (fabs(v) < 1 ? 1e-37 : 1e37) : -1;
#endif
        return (isdb_real)v;
    }
    if (k == 30) return E_DELTA_MIN;
    if (k == 31) return (isdb_real)(1 - ISDB_REAL_EPSILON);
    if (k == 32) return E_LAMBDA_MIN;
    if (k == 33) return E_LAMBDA_MAX;
    if (k == 34) return E_SCALE_MAX;
    /* log-uniform in [1e-30, 1e30] (float: [1e-6, 1e6]) */
    return (isdb_real)pow(10.0, (ISDB_REAL_IS_FLOAT ? 12.0 : 60.0) * (isdb_rng_uniform(r) - 0.5));
}
static int pick_int(isdb_rng *r, int hi) {
    static const int pool[] = {0, 1, 2, 3, 4, 5, 7, 16, 50, 300, -1};
    uint64_t k = isdb_rng_below(r, 13);
    if (k < 11) return pool[k] <= hi ? pool[k] : hi;
    return (int)isdb_rng_below(r, (uint64_t)hi + 1);
}
/* A field keeps its default two times in three (so that configs with a
   few fields at their edges pass the check), else an edge value. */
static isdb_real maybe_real(isdb_rng *r, isdb_real def) { return isdb_rng_below(r, 3) ? def : pick_real(r); }
static int maybe_int(isdb_rng *r, int def, int hi) { return isdb_rng_below(r, 3) ? def : pick_int(r, hi); }

typedef struct agree_count {
    int tried, checked, built;
} agree_count;

/* config_check, then heap_size, then init of one config: the later must accept what the
   earlier accepts */
#define AGREE(name, cfg, mem, count)                                                                  \
    do {                                                                                              \
        isdb_refusal why_;                                                                            \
        size_t bytes_ = 0;                                                                            \
        isdb_result rc_ = isdb_##name##_config_check(&(cfg), &why_), rh_, ri_;                        \
        (count).tried++;                                                                              \
        if (rc_ == ISDB_OK) {                                                                         \
            (count).checked++;                                                                        \
            rh_ = isdb_##name##_heap_size(&(cfg), &bytes_);                                           \
            CHECK_MSG(rh_ == ISDB_OK, #name ": config_check OK, heap_size %s (try %d)",               \
                      isdb_result_string(rh_), (count).tried);                                        \
            if (rh_ == ISDB_OK && bytes_ <= ((size_t)1 << 26)) {                                      \
                ri_ = isdb_##name##_init(&(cfg), NULL, (isdb_##name *)(mem));                         \
                CHECK_MSG(ri_ == ISDB_OK || ri_ == ISDB_ERR_OUT_OF_MEMORY,                            \
                          #name ": config_check OK, init %s (try %d)", isdb_result_string(ri_),       \
                          (count).tried);                                                             \
                if (ri_ == ISDB_OK) {                                                                 \
                    (count).built++;                                                                  \
                    isdb_policy_uninit((isdb_policy *)(mem));                                         \
                }                                                                                     \
            }                                                                                         \
        }                                                                                             \
    } while (0)

static void test_check_agrees_with_init(void) {
    enum { TRIES = 1000 };
    agree_count n[10];
    isdb_rng r;
    int t, d, K;
    memset(n, 0, sizeof n);
    isdb_rng_seed(&r, 36);
    for (t = 0; t < TRIES; ++t) {
        d = 1 + pick_int(&r, 7);
        K = 1 + pick_int(&r, 6);
        {
            isdb_linucb_config c = isdb_linucb_config_init(d, K);
            c.lambda = maybe_real(&r, c.lambda), c.delta = maybe_real(&r, c.delta), c.R = maybe_real(&r, c.R), c.S = maybe_real(&r, c.S);
            c.L = maybe_real(&r, c.L), c.alpha = maybe_real(&r, c.alpha), c.width = (isdb_width)maybe_int(&r, (int)c.width, 4);
            c.refresh = maybe_int(&r, c.refresh, 300);
            AGREE(linucb, c, &mem_a, n[0]);
        }
        {
            isdb_swucb_config c = isdb_swucb_config_init(d, K, pick_int(&r, 300));
            c.lambda = maybe_real(&r, c.lambda), c.delta = maybe_real(&r, c.delta), c.R = maybe_real(&r, c.R), c.S = maybe_real(&r, c.S);
            c.L = maybe_real(&r, c.L), c.alpha = maybe_real(&r, c.alpha), c.width = (isdb_width)maybe_int(&r, (int)c.width, 4);
            c.refresh = maybe_int(&r, c.refresh, 300);
            AGREE(swucb, c, &mem_a, n[1]);
        }
        {
            isdb_dlinucb_config c = isdb_dlinucb_config_init(d, K, pick_real(&r));
            c.lambda = maybe_real(&r, c.lambda), c.delta = maybe_real(&r, c.delta), c.R = maybe_real(&r, c.R), c.S = maybe_real(&r, c.S);
            c.L = maybe_real(&r, c.L), c.alpha = maybe_real(&r, c.alpha), c.refresh = maybe_int(&r, c.refresh, 300);
            AGREE(dlinucb, c, &mem_a, n[2]);
        }
        {
            isdb_lints_config c = isdb_lints_config_init(d, K);
            c.lambda = maybe_real(&r, c.lambda), c.R = maybe_real(&r, c.R), c.epsilon = maybe_real(&r, c.epsilon), c.delta = maybe_real(&r, c.delta);
            c.inflation = (isdb_lints_inflation)maybe_int(&r, (int)c.inflation, 2);
            c.mc_samples = maybe_int(&r, c.mc_samples, 300), c.refresh = maybe_int(&r, c.refresh, 300);
            AGREE(lints, c, &mem_a, n[3]);
        }
        {
            isdb_bob_config c = isdb_bob_config_init(d, K, (uint64_t)pick_int(&r, 300));
            c.lambda = maybe_real(&r, c.lambda), c.R = maybe_real(&r, c.R), c.S = maybe_real(&r, c.S), c.L = maybe_real(&r, c.L);
            c.alpha = maybe_real(&r, c.alpha), c.reward_bound = maybe_real(&r, c.reward_bound), c.clip = maybe_int(&r, c.clip, 2);
            c.refresh = maybe_int(&r, c.refresh, 300);
            AGREE(bob, c, &mem_a, n[4]);
        }
        {
            isdb_adaptive_config c = isdb_adaptive_config_init(d, K);
            c.lambda = maybe_real(&r, c.lambda), c.delta = maybe_real(&r, c.delta), c.R = maybe_real(&r, c.R), c.S = maybe_real(&r, c.S);
            c.L = maybe_real(&r, c.L), c.alpha = maybe_real(&r, c.alpha), c.min_memory = maybe_int(&r, c.min_memory, 300);
            c.max_memory = isdb_rng_below(&r, 4) ? pick_int(&r, 300) : INT_MAX;
            c.threshold = maybe_real(&r, c.threshold), c.play_threshold = maybe_real(&r, c.play_threshold), c.refresh = maybe_int(&r, c.refresh, 300);
            c.noise_estimate = (isdb_adaptive_noise)maybe_int(&r, (int)c.noise_estimate, 3),
            c.cut = (isdb_adaptive_cut)maybe_int(&r, (int)c.cut, 3), c.hold = maybe_int(&r, c.hold, 2);
            c.play_horizon = maybe_int(&r, c.play_horizon, 1025);
            AGREE(adaptive, c, &mem_a, n[5]);
        }
#if !ISDB_REAL_IS_FLOAT
        {
            int dd = 3 + (int)isdb_rng_below(&r, 4), pi = isd_offline(dd);
            isdb_isd_config c = isdb_isd_config_init(dd, K, ISD_N0, isd_X0, isd_R0);
            c.oracle = maybe_int(&r, c.oracle, 2);
            c.p_inv = pi; /* U_inv spans the offline data's invariant block */
            c.U_inv = isd_Uinv, c.beta_inv = isdb_rng_below(&r, 2) ? isd_beta : NULL;
            c.learner = (isdb_isd_learner)maybe_int(&r, (int)c.learner, 4), c.window = maybe_int(&r, c.window, 300);
            c.gamma = maybe_real(&r, c.gamma), c.lambda = maybe_real(&r, c.lambda), c.refresh = maybe_int(&r, c.refresh, 300);
            c.radius = (isdb_isd_radius)maybe_int(&r, (int)c.radius, 4), c.delta = maybe_real(&r, c.delta);
            c.R = maybe_real(&r, c.R), c.L = maybe_real(&r, c.L), c.S = maybe_real(&r, c.S), c.alpha = maybe_real(&r, c.alpha);
            c.delta_pi = isdb_rng_below(&r, 2) ? -1 : pick_real(&r);
            c.recompute_every = maybe_int(&r, c.recompute_every, 50), c.monitor = (isdb_isd_monitor)maybe_int(&r, (int)c.monitor, 3);
            c.monitor_window = maybe_int(&r, c.monitor_window, 300), c.monitor_every = maybe_int(&r, c.monitor_every, 50);
            c.monitor_level = maybe_real(&r, c.monitor_level), c.monitor_confirm = maybe_int(&r, c.monitor_confirm, 2);
            c.guard = maybe_int(&r, c.guard, 2), c.warm_start = maybe_int(&r, c.warm_start, 2);
            AGREE(isd, c, &mem_a, n[6]);
        }
        {
            int N = 1 + pick_int(&r, 8);
            isdb_opkb_config c = isdb_opkb_config_init(d, N, isdb_rng_below(&r, 2) ? 2.0 + (double)pick_int(&r, 300) : pick_real(&r));
            c.arms = opkb_arms(d, N), c.kernel = (isdb_kernel)maybe_int(&r, (int)c.kernel, 2);
            c.length_scale = maybe_real(&r, c.length_scale), c.features = (isdb_feature_map)maybe_int(&r, (int)c.features, 2);
            /* CHOLESKY on a kernel matrix that does not factor is refused by init only (documented;
               these arms span 2 dimensions) */
            if (c.features == ISDB_FEATURES_CHOLESKY) c.features = ISDB_FEATURES_AUTO;
            c.rank_tol = maybe_real(&r, c.rank_tol), c.adaptive = maybe_int(&r, c.adaptive, 2), c.sigma = maybe_real(&r, c.sigma);
            c.delta = maybe_real(&r, c.delta), c.reward_scale = maybe_real(&r, c.reward_scale), c.gamma_factor = maybe_real(&r, c.gamma_factor);
            c.c1 = maybe_real(&r, c.c1), c.c3 = maybe_real(&r, c.c3), c.c4 = maybe_real(&r, c.c4), c.beta_scale = maybe_real(&r, c.beta_scale);
            c.set_scale = maybe_real(&r, c.set_scale), c.mix = maybe_real(&r, c.mix), c.c0_scale = maybe_real(&r, c.c0_scale);
            c.test_mean = maybe_int(&r, c.test_mean, 2), c.j_star = maybe_int(&r, c.j_star, 64), c.test_block = maybe_int(&r, c.test_block, 2);
            c.max_restarts = maybe_int(&r, c.max_restarts, 300), c.test = (isdb_opkb_test)maybe_int(&r, (int)c.test, 1);
            c.test_z = maybe_real(&r, c.test_z), c.solver_tol = maybe_real(&r, c.solver_tol), c.solver_max_iter = maybe_int(&r, c.solver_max_iter, 300);
            AGREE(opkb, c, &mem_a, n[7]);
        }
        {
            isdb_oam_config c = isdb_oam_config_init(d, K, (uint64_t)pick_int(&r, 300));
            c.max_contexts = maybe_int(&r, c.max_contexts, 16), c.c = maybe_real(&r, c.c), c.zeta = maybe_real(&r, c.zeta);
            c.forcing = (isdb_oam_forcing)maybe_int(&r, (int)c.forcing, 2), c.force_c = maybe_real(&r, c.force_c);
            c.force_s_now = maybe_int(&r, c.force_s_now, 2), c.lambda = maybe_real(&r, c.lambda), c.solver_tol = maybe_real(&r, c.solver_tol);
            c.solver_max_iter = maybe_int(&r, c.solver_max_iter, 300), c.refresh = maybe_int(&r, c.refresh, 300);
            AGREE(oam, c, &mem_a, n[8]);
        }
        {
            isdb_traceucb_config c = isdb_traceucb_config_init(d, K);
            static double w[64];
            int i;
            for (i = 0; i < 64; ++i) w[i] = pick_real(&r);
            c.mode = (isdb_traceucb_mode)maybe_int(&r, (int)c.mode, 3), c.width = (isdb_traceucb_width)maybe_int(&r, (int)c.width, 1);
            c.objective = (isdb_traceucb_objective)maybe_int(&r, (int)c.objective, 1), c.alpha = maybe_real(&r, c.alpha);
            c.R = maybe_real(&r, c.R), c.delta = maybe_real(&r, c.delta), c.horizon = maybe_int(&r, c.horizon, 300), c.lambda = maybe_real(&r, c.lambda);
            c.Sigma = isdb_rng_below(&r, 2) ? tu_fill(d, K) : NULL;
            c.weights = isdb_rng_below(&r, 2) ? w : NULL, c.noise_var = w + 8;
            c.refresh = maybe_int(&r, c.refresh, 300), c.sparse_s = maybe_int(&r, c.sparse_s, d), c.sparse_L = maybe_int(&r, c.sparse_L, 50);
            AGREE(traceucb, c, &mem_a, n[9]);
        }
#endif
    }
    for (t = 0; t < (ISDB_REAL_IS_FLOAT ? 6 : 10); ++t)
        printf("  check vs init, policy %d: %d configs, %d passed the check, %d built\n", t, n[t].tried,
               n[t].checked, n[t].built);
}

int main(void) {
    test_check_agrees_with_init();
    test_input_bound_exact();
    test_adaptive_noise_sum();
#if !ISDB_REAL_IS_FLOAT
    test_traceucb_tiny_contexts();
#endif
    test_cases_at_bound();
    test_policies_at_edges();
    return test_report();
}

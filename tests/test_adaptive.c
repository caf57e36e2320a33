/* The adaptive policy's own pieces (the generic contract is test_api.c's):
   - each discounted estimator is D-LinUCB's estimate right after each of
     its refactorisations, and the unbounded one is LinUCB's throughout;
   - the change test fires soon after a jump, and on stationary streams at
     most at the rate the header documents;
   - low-mean Bernoulli rewards raise no false cuts, and a large drop of
     the played arm is still caught;
   - a cut leaves the longer estimators equal to the one it cut to (fresh
     contexts), or forgets along the change only (a fixed arm set);
   - bad configs are refused, defaults resolve as documented;
   - hold: a drift of the rewards' scale alone neither cuts nor costs
     regret as 0.6.0 did;
   - play_horizon: on a slow turn the play rule's longer evidence plays
     shorter memories and loses less than 0.7.0's rule;
   - the factors' upper zeros stay +0 through cuts and after loading a
     snapshot whose zeros are -0;
   - the Kalman estimators are a plain random-walk Kalman filter's, one
     plays on a smooth drift, and degenerate inputs leave them finite. */
#include "../isdbandit.h"
#include "test.h"

#include <limits.h>
#include <string.h>

static isdb_real rel_diff(int d, const isdb_real *a, const isdb_real *b) {
    isdb_real num = 0.0, den = 0.0;
    int i;
    for (i = 0; i < d; ++i) {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return sqrt(num / (den > 1e-300 ? den : 1e-300));
}

/* theta = L^-T z of one estimator, through the public solver. */
static void estimator_theta(const isdb_adaptive *p, int k, isdb_real *theta) {
    isdb_tri_solve(p->cfg.d, p->_est[k].ridge.L, 1, p->_est[k].ridge.z, theta);
}

static void test_estimators_match_references(void) {
    enum { D = 4, N = 1500 };
    isdb_adaptive p;
    isdb_adaptive_config c = isdb_adaptive_config_init(D, 3);
    isdb_dlinucb dl[ISDB_ADAPTIVE_MAX_ESTIMATORS];
    isdb_linucb lin;
    isdb_linucb_config lc = isdb_linucb_config_init(D, 3);
    isdb_rng rng;
    isdb_real x[D], theta[D], ref[D], worst = 0.0;
    int k, t, i, compared = 0;
    c.lambda = 0.6;
    c.min_memory = 4;
    c.max_memory = 64;
    c.threshold = 1e30; /* never cut (and finite in float) */
    c.refresh = 7;
    CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
    CHECK(p.n_est == 6); /* 4, 8, 16, 32, 64, unbounded */
    lc.lambda = c.lambda;
    CHECK_OK(isdb_linucb_init(&lc, NULL, &lin));
    for (k = 0; k + 1 < p.n_est; ++k) {
        isdb_dlinucb_config dc = isdb_dlinucb_config_init(D, 3, p._est[k].gamma);
        dc.lambda = c.lambda;
        dc.refresh = 1; /* the exact factor every update */
        CHECK_OK(isdb_dlinucb_init(&dc, NULL, &dl[k]));
    }
    isdb_rng_seed(&rng, 5);
    for (t = 0; t < N; ++t) {
        isdb_real y = isdb_rng_normal(&rng);
        for (i = 0; i < D; ++i) x[i] = isdb_rng_normal(&rng) * (i == 0 ? 3.0 : 0.5);
        CHECK_OK(isdb_policy_update(&p.base, 0, x, y));
        CHECK_OK(isdb_policy_update(&lin.base, 0, x, y));
        for (k = 0; k + 1 < p.n_est; ++k) CHECK_OK(isdb_policy_update(&dl[k].base, 0, x, y));
        /* Right after a refactorisation the padding is all in. */
        for (k = 0; k + 1 < p.n_est; ++k) {
            if (p._est[k].ridge.since_refresh != 0) continue;
            estimator_theta(&p, k, theta);
            isdb_dlinucb_get_theta(&dl[k], ref);
            if (rel_diff(D, theta, ref) > worst) worst = rel_diff(D, theta, ref);
            ++compared;
        }
        estimator_theta(&p, p.n_est - 1, theta);
        isdb_linucb_get_theta(&lin, ref);
        if (rel_diff(D, theta, ref) > worst) worst = rel_diff(D, theta, ref);
    }
    CHECK(compared > N / 2);
    /* Rank-one steps against D-LinUCB's refactorisation every update:
       agreement to rounding (1e-10 in double leaves four orders for d = 4). */
    CHECK_MSG(worst < T_TOL(1e-10), "largest relative difference %.3g", worst);
    CHECK(isdb_adaptive_get_changes(&p) == 0);
    isdb_policy_uninit(&p.base);
    isdb_policy_uninit(&lin.base);
    for (k = 0; k + 1 < p.n_est; ++k) isdb_policy_uninit(&dl[k].base);
}

/* A linear environment with theta = e1 that jumps to -e1 at round `jump`
   (no jump if jump is 0). */
static isdb_result make_env(int d, int K, uint64_t seed, uint64_t jump, isdb_real noise, isdb_linear_env *env) {
    static isdb_real pieces[2 * 16];
    static uint64_t at[1];
    isdb_linear_env_config c = isdb_linear_env_config_init(d, K);
    memset(pieces, 0, sizeof pieces);
    pieces[0] = 1.0;
    pieces[d] = -1.0;
    at[0] = jump;
    c.seed = seed;
    c.noise_sd = noise;
    c.n_pieces = jump ? 2 : 1;
    c.pieces = pieces;
    c.switch_at = at;
    return isdb_linear_env_init(&c, NULL, env);
}

/* Plays T rounds; returns the round of the first cut at or after `from`
   (0 if none) and counts the cuts before it. */
static uint64_t first_cut(isdb_adaptive *p, isdb_env *env, uint64_t T, uint64_t from, uint64_t *before) {
    uint64_t t;
    *before = 0;
    for (t = 0; t < T; ++t) {
        int arm;
        isdb_real y;
        uint64_t was = isdb_adaptive_get_changes(p);
        if (isdb_env_next(env) != ISDB_OK || isdb_policy_select(&p->base, env->X, env->n_arms, &arm) != ISDB_OK ||
            isdb_env_reward(env, arm, &y) != ISDB_OK ||
            isdb_policy_update(&p->base, arm, env->X + arm * env->d, y) != ISDB_OK)
            return 0;
        if (isdb_adaptive_get_changes(p) > was) {
            if (t >= from) return t;
            ++*before;
        }
    }
    return 0;
}

static void test_change_test(void) {
    enum { SEEDS = 40, D = 3, K = 10 };
    int s, detected = 0, false_runs = 0, short_memory = 0;
    uint64_t worst_delay = 0;
    for (s = 0; s < SEEDS; ++s) {
        isdb_linear_env env;
        isdb_adaptive p;
        isdb_adaptive_config c = isdb_adaptive_config_init(D, K);
        uint64_t before, at;
        c.R = 0.5;
        CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
        CHECK_OK(make_env(D, K, 100 + (uint64_t)s, 3000, 0.5, &env));
        at = first_cut(&p, &env.base, 4000, 3000, &before);
        if (at) {
            ++detected;
            if (at - 3000 > worst_delay) worst_delay = at - 3000;
        }
        false_runs += before > 0;
        short_memory += isdb_adaptive_get_memory(&p) <= 1000;
        isdb_policy_uninit(&p.base);
        isdb_env_uninit(&env.base);
    }
    /* theta turning around is the largest change there is: it must be
       caught in every run, within a few hundred rounds. */
    CHECK_MSG(detected == SEEDS, "jump detected in %d of %d runs", detected, SEEDS);
    CHECK_MSG(worst_delay <= 300, "slowest detection %lu rounds after the jump", (unsigned long)worst_delay);
    CHECK_MSG(short_memory == SEEDS, "memory after the jump short in %d of %d runs", short_memory, SEEDS);
    /* Before the jump the stream is stationary for 3000 rounds. */
    CHECK_MSG(false_runs <= SEEDS / 20, "cuts before the jump in %d of %d runs", false_runs, SEEDS);
}

/* The documented false-cut rate: on stationary streams of 10^4 rounds,
   at most 5% of runs cut the memory at all (measured 0 of 200 with the
   defaults, d = 5, K = 20, noise 1, when this test was written). */
static void test_stationary_false_cuts(void) {
    enum { SEEDS = 40, D = 5, K = 20 };
    int s, runs_with_cut = 0;
    for (s = 0; s < SEEDS; ++s) {
        isdb_linear_env env;
        isdb_adaptive p;
        isdb_adaptive_config c = isdb_adaptive_config_init(D, K);
        isdb_sim_result res;
        CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
        CHECK_OK(make_env(D, K, 1000 + (uint64_t)s, 0, 1.0, &env));
        CHECK_OK(isdb_sim_run(&p.base, &env.base, 10000, NULL, &res));
        runs_with_cut += isdb_adaptive_get_changes(&p) > 0;
        isdb_policy_uninit(&p.base);
        isdb_env_uninit(&env.base);
    }
    CHECK_MSG(runs_with_cut <= SEEDS / 20, "%d of %d stationary runs cut the memory", runs_with_cut, SEEDS);
}

static void test_cut_copies_estimate(void) {
    enum { D = 3, K = 8 };
    isdb_linear_env env;
    isdb_adaptive p;
    isdb_adaptive_config c = isdb_adaptive_config_init(D, K);
    uint64_t t;
    int k, checked = 0;
    c.R = 0.5;
    CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
    CHECK_OK(make_env(D, K, 9, 2000, 0.5, &env));
    for (t = 0; t < 3000 && !checked; ++t) {
        int arm;
        isdb_real y;
        uint64_t was = isdb_adaptive_get_changes(&p);
        CHECK_OK(isdb_env_next(&env.base));
        CHECK_OK(isdb_policy_select(&p.base, env.base.X, K, &arm));
        CHECK_OK(isdb_env_reward(&env.base, arm, &y));
        CHECK_OK(isdb_policy_update(&p.base, arm, env.base.X + arm * D, y));
        if (isdb_adaptive_get_changes(&p) > was) {
            /* The longest estimator now holds the same estimate as some
               shorter one, and so do all between them. */
            isdb_real top[D], other[D];
            int same = 0;
            estimator_theta(&p, p.n_est - 1, top);
            for (k = 0; k + 1 < p.n_est; ++k) {
                estimator_theta(&p, k, other);
                same += memcmp(top, other, sizeof top) == 0;
            }
            CHECK(same >= 1);
            k = p.n_est - 1 - same; /* the estimator cut to */
            CHECK(p._est[p.n_est - 1].count == (p._est[k].count < p._est[k].memory ? p._est[k].count : p._est[k].memory));
            checked = 1;
        }
    }
    CHECK_MSG(checked, "no cut in 3000 rounds with a jump at 2000");
    isdb_policy_uninit(&p.base);
    isdb_env_uninit(&env.base);
}

/* A fixed arm set: one-hot arms, the best one's mean drops at round 2000.
   The played features recur, so ISDB_ADAPTIVE_CUT_AUTO forgets along the
   change only: right after the first cut the longest estimator holds at
   most 11 lambda of information about the
   dropped arm (the variance 0.1 / lambda added along it), has moved that arm's
   estimate down, and keeps what it knew of the other arms (its Gram
   diagonal there within 1%); 300 rounds later it has learnt the new mean
   (below 0.35). The full cut (ISDB_ADAPTIVE_CUT_FULL, run alongside as
   the control) hands it the shorter memory's Gram sum, which has
   forgotten some of the other arms' rounds. The cut state carries through
   save and load: a copy loaded right after the cut makes the same choices
   for the next 1000 rounds and ends in the same bytes. (Fresh contexts
   do not recur: test_cut_copies_estimate.) */
static void test_directional_cut(void) {
    enum { D = 4, K = 4 };
    static const double before[K] = {0.2, 0.5, 0.8, 0.3}, after[K] = {0.2, 0.5, 0.1, 0.3};
    static unsigned char snap[1 << 16], again[1 << 16];
    isdb_real X[K * D];
    int mode, k, forgot_full = 0;
    for (k = 0; k < K * D; ++k) X[k] = k % (D + 1) == 0 ? 1 : 0;
    for (mode = 0; mode < 2; ++mode) {
        isdb_adaptive a, b;
        isdb_adaptive_config c = isdb_adaptive_config_init(D, K);
        isdb_real th0[D], th1[D], v0[D], v1[D];
        isdb_rng rng;
        int t, arm, arm_b, cut_at = -1, same = 1;
        size_t n, n_b;
        c.R = 0.1;
        c.cut = mode == 0 ? ISDB_ADAPTIVE_CUT_AUTO : ISDB_ADAPTIVE_CUT_FULL;
        CHECK_OK(isdb_adaptive_init(&c, NULL, &a));
        CHECK_OK(isdb_adaptive_init(&c, NULL, &b));
        isdb_rng_seed(&rng, 41);
        for (t = 0; t < 4000 && (cut_at < 0 || t <= cut_at + 1000); ++t) {
            const double *mu = t < 2000 ? before : after;
            const isdb__ridge *top = &a._est[a.n_est - 1].ridge;
            uint64_t was = isdb_adaptive_get_changes(&a);
            isdb_real y;
            CHECK_OK(isdb_policy_select(&a.base, X, K, &arm));
            y = (isdb_real)(mu[arm] + 0.1 * isdb_rng_normal(&rng));
            if (cut_at >= 0) {
                CHECK_OK(isdb_policy_select(&b.base, X, K, &arm_b));
                same &= arm == arm_b;
                CHECK_OK(isdb_policy_update(&b.base, arm, X + arm * D, y));
            } else {
                estimator_theta(&a, a.n_est - 1, th0);
                for (k = 0; k < D; ++k) v0[k] = top->V[k * D + k];
            }
            CHECK_OK(isdb_policy_update(&a.base, arm, X + arm * D, y));
            if (cut_at < 0 && t >= 2000 && isdb_adaptive_get_changes(&a) > was) {
                cut_at = t;
                estimator_theta(&a, a.n_est - 1, th1);
                for (k = 0; k < D; ++k) v1[k] = top->V[k * D + k];
                if (mode == 0) {
                    CHECK_MSG(a.recur >= 0.5, "one-hot arms recur in %.2f of the updates", (double)a.recur);
                    CHECK_MSG(v1[2] <= 1.1 * c.lambda / 0.1 + c.lambda, /* the documented variance 0.1 / lambda */
                              "the dropped arm's information %g -> %g", (double)v0[2], (double)v1[2]);
                    CHECK_MSG(th1[2] < th0[2], "the dropped arm's estimate %.3f -> %.3f", (double)th0[2],
                              (double)th1[2]);
                    for (k = 0; k < D; ++k)
                        if (k != 2)
                            CHECK_MSG(fabs(v1[k] - v0[k]) <= 0.01 * v0[k], "arm %d's information %g -> %g", k,
                                      (double)v0[k], (double)v1[k]);
                } else {
                    for (k = 0; k < D; ++k) forgot_full += k != 2 && v1[k] < 0.99 * v0[k];
                }
                CHECK_OK(isdb_policy_save(&a.base, snap, sizeof snap, &n));
                CHECK_OK(isdb_policy_load(&b.base, snap, n));
            }
            if (mode == 0 && cut_at >= 0 && t == cut_at + 300) {
                estimator_theta(&a, a.n_est - 1, th1);
                CHECK_MSG(th1[2] < 0.35, "300 rounds after the cut the dropped arm's estimate is %.3f", (double)th1[2]);
            }
        }
        CHECK_MSG(cut_at >= 0, "no cut after the drop (cut %d)", mode);
        CHECK(same);
        CHECK_OK(isdb_policy_save(&a.base, snap, sizeof snap, &n));
        CHECK_OK(isdb_policy_save(&b.base, again, sizeof again, &n_b));
        CHECK(n == n_b && memcmp(snap, again, n) == 0);
        isdb_policy_uninit(&a.base);
        isdb_policy_uninit(&b.base);
    }
    CHECK_MSG(forgot_full > 0, "the full cut kept every other arm's information too: the control does not discriminate");
}

/* A fixed arm set whose means oscillate (two one-hot arms, period 400):
   while the played features recur, cut AUTO plays the longest memory on
   every round and leaves the forgetting to its directional cuts. The
   control, cut DIRECTION (the same cuts, the play test of fresh
   contexts), plays a shorter memory on some rounds, so the check
   discriminates. */
static void test_fixed_arms_play_longest(void) {
    enum { D = 2, K = 2 };
    isdb_real X[K * D] = {1, 0, 0, 1};
    int mode, shorter[2] = {0, 0}, recurring = 0;
    for (mode = 0; mode < 2; ++mode) {
        isdb_adaptive a;
        isdb_adaptive_config c = isdb_adaptive_config_init(D, K);
        isdb_rng rng;
        int t, arm;
        c.R = 0.1;
        c.cut = mode == 0 ? ISDB_ADAPTIVE_CUT_AUTO : ISDB_ADAPTIVE_CUT_DIRECTION;
        CHECK_OK(isdb_adaptive_init(&c, NULL, &a));
        isdb_rng_seed(&rng, 7);
        for (t = 0; t < 6000; ++t) {
            double mu = 0.5 + 0.4 * sin(2 * 3.14159265358979 * t / 400.0);
            isdb_real y;
            CHECK_OK(isdb_policy_select(&a.base, X, K, &arm));
            y = (isdb_real)((arm == 0 ? mu : 1 - mu) + 0.1 * isdb_rng_normal(&rng));
            CHECK_OK(isdb_policy_update(&a.base, arm, X + arm * D, y));
            if (mode == 0 && a.recur >= 0.5) ++recurring;
            if ((mode == 1 || a.recur >= 0.5) && isdb_adaptive_get_played(&a) != a.n_est - 1) ++shorter[mode];
        }
        isdb_policy_uninit(&a.base);
    }
    CHECK_MSG(recurring > 5000, "two one-hot arms recur in only %d of 6000 updates", recurring);
    CHECK_MSG(shorter[0] == 0, "cut AUTO on a fixed arm set played a shorter memory in %d rounds", shorter[0]);
    CHECK_MSG(shorter[1] > 0, "the control (cut DIRECTION) never played a shorter memory: the check does not discriminate");
}

/* Cuts and switches carry through save and load: a run saved after its
   first cuts and continued from the snapshot in a fresh object makes the
   same choices as the one that never stopped; reset gives back the state
   of a fresh object. */
static void test_snapshot_across_cuts(void) {
    enum { D = 3, K = 8 };
    static unsigned char snap[1 << 16], fresh[1 << 16], again[1 << 16];
    isdb_linear_env env;
    isdb_adaptive a, b;
    isdb_adaptive_config c = isdb_adaptive_config_init(D, K);
    size_t n, n_fresh, n_again;
    uint64_t t;
    int same = 1;
    c.R = 0.5;
    CHECK_OK(isdb_adaptive_init(&c, NULL, &a));
    CHECK_OK(isdb_adaptive_init(&c, NULL, &b));
    CHECK_OK(isdb_policy_save(&b.base, fresh, sizeof fresh, &n_fresh));
    CHECK_OK(make_env(D, K, 21, 1500, 0.5, &env));
    for (t = 0; t < 3000; ++t) {
        int arm, arm_b;
        isdb_real y;
        if (t == 2000) {
            CHECK(isdb_adaptive_get_changes(&a) > 0);
            CHECK_OK(isdb_policy_save(&a.base, snap, sizeof snap, &n));
            CHECK_OK(isdb_policy_load(&b.base, snap, n));
        }
        CHECK_OK(isdb_env_next(&env.base));
        CHECK_OK(isdb_policy_select(&a.base, env.base.X, K, &arm));
        CHECK_OK(isdb_env_reward(&env.base, arm, &y));
        if (t >= 2000) {
            CHECK_OK(isdb_policy_select(&b.base, env.base.X, K, &arm_b));
            same &= arm == arm_b;
            CHECK_OK(isdb_policy_update(&b.base, arm, env.base.X + arm * D, y));
        }
        CHECK_OK(isdb_policy_update(&a.base, arm, env.base.X + arm * D, y));
    }
    CHECK(same);
    CHECK_OK(isdb_policy_save(&a.base, snap, sizeof snap, &n));
    CHECK_OK(isdb_policy_save(&b.base, again, sizeof again, &n_again));
    CHECK(n == n_again && memcmp(snap, again, n) == 0);
    isdb_policy_reset(&a.base);
    CHECK_OK(isdb_policy_save(&a.base, snap, sizeof snap, &n));
    CHECK(n == n_fresh && memcmp(snap, fresh, n) == 0);
    isdb_policy_uninit(&a.base);
    isdb_policy_uninit(&b.base);
    isdb_env_uninit(&env.base);
}

/* Plays one round of env; 0 if anything failed. */
static int play_round(isdb_adaptive *p, isdb_env *env) {
    int arm;
    isdb_real y;
    return isdb_env_next(env) == ISDB_OK && isdb_policy_select(&p->base, env->X, env->n_arms, &arm) == ISDB_OK &&
           isdb_env_reward(env, arm, &y) == ISDB_OK &&
           isdb_policy_update(&p->base, arm, env->X + arm * env->d, y) == ISDB_OK;
}

/* Whether every entry above the diagonal of the factors (L and L_next of
   each estimator and of hold's ridge) is +0, bit for bit: the rank-one
   steps write those zeros only for two updates after a reset, a load, a
   cut or a failed refactorisation, and a snapshot stores L whole. */
static int upper_zeros(const isdb_adaptive *p) {
    static const isdb_real zero = 0;
    int k, i, j, ok = 1;
    for (k = 0; k <= p->n_est; ++k) {
        const isdb__ridge *r = k < p->n_est ? &p->_est[k].ridge : &p->hold_ridge;
        for (i = 0; i < r->d; ++i)
            for (j = i + 1; j < r->d; ++j)
                ok &= memcmp(&r->L[i * r->d + j], &zero, sizeof zero) == 0 &&
                      memcmp(&r->L_next[i * r->d + j], &zero, sizeof zero) == 0;
    }
    return ok;
}

/* The upper zeros stay +0 through cuts and refactorisations, and a
   snapshot whose upper zeros are -0 (the load's checks take == 0) loads
   into a policy that has been learning and leaves +0 two updates later,
   as the steps that always wrote them left it. */
static void test_upper_zeros(void) {
    enum { D = 4, K = 6 };
    static unsigned char snap[1 << 16];
    isdb_linear_env env;
    isdb_adaptive a, b;
    isdb_adaptive_config c = isdb_adaptive_config_init(D, K);
    const isdb_real minus_zero = -(isdb_real)0;
    size_t n;
    uint64_t t;
    int k, i, j, ok = 1;
    CHECK_OK(isdb_adaptive_init(&c, NULL, &a));
    CHECK_OK(isdb_adaptive_init(&c, NULL, &b));
    CHECK_OK(make_env(D, K, 31, 700, 0.3, &env));
    for (t = 0; t < 1500; ++t) {
        int arm;
        isdb_real y;
        CHECK_OK(isdb_env_next(&env.base));
        CHECK_OK(isdb_policy_select(&a.base, env.base.X, K, &arm));
        CHECK_OK(isdb_env_reward(&env.base, arm, &y));
        CHECK_OK(isdb_policy_update(&a.base, arm, env.base.X + arm * D, y));
        if (t < 10) CHECK_OK(isdb_policy_update(&b.base, arm, env.base.X + arm * D, y));
        ok &= upper_zeros(&a);
    }
    CHECK(ok);
    CHECK(isdb_adaptive_get_changes(&a) > 0);
    CHECK(a.upper_dirty == 0 && b.upper_dirty == 0);
    for (k = 0; k <= a.n_est; ++k) {
        isdb__ridge *r = k < a.n_est ? &a._est[k].ridge : &a.hold_ridge;
        for (i = 0; i < D; ++i)
            for (j = i + 1; j < D; ++j) r->L[i * D + j] = minus_zero;
    }
    CHECK(!upper_zeros(&a));
    CHECK_OK(isdb_policy_save(&a.base, snap, sizeof snap, &n));
    CHECK_OK(isdb_policy_load(&b.base, snap, n));
    CHECK(play_round(&b, &env.base) && play_round(&b, &env.base));
    CHECK(upper_zeros(&b));
    isdb_policy_uninit(&a.base);
    isdb_policy_uninit(&b.base);
    isdb_env_uninit(&env.base);
}

static void test_config(void) {
    isdb_adaptive_config c = isdb_adaptive_config_init(3, 4);
    isdb_adaptive p;
    size_t bytes;
    CHECK_OK(isdb_adaptive_heap_size(&c, &bytes));
    CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
    /* max(16, 2 d), max(4096, min_memory), max(4 d, 256), 4 */
    CHECK(p.cfg.min_memory == 16 && p.cfg.max_memory == 4096 && p.cfg.refresh == 256 && p.cfg.play_horizon == 4);
    CHECK(p._play_sum != NULL && p._est[0].play_gamma == 1 - 1 / (isdb_real)64);
    CHECK(p.n_est == 10 && p._est[0].memory == 16 && p._est[8].memory == 4096 && p._est[9].memory == 0);
    CHECK(isdb_adaptive_get_memory(&p) == 0 && isdb_adaptive_get_changes(&p) == 0);
    isdb_policy_uninit(&p.base);
    c = isdb_adaptive_config_init(40, 4);
    CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
    CHECK(p.cfg.min_memory == 80 && p.cfg.refresh == 256);
    isdb_policy_uninit(&p.base);

#define REFUSED(field, value)                                            \
    do {                                                                 \
        c = isdb_adaptive_config_init(3, 4);                             \
        c.field = value;                                                 \
        CHECK_RESULT(isdb_adaptive_heap_size(&c, &bytes), ISDB_ERR_INVALID_ARG); \
        CHECK_RESULT(isdb_adaptive_init(&c, NULL, &p), ISDB_ERR_INVALID_ARG);    \
    } while (0)
    REFUSED(min_memory, 1);
    REFUSED(min_memory, -3);
    REFUSED(max_memory, -1);
    REFUSED(threshold, 0.0);
    REFUSED(threshold, T_NAN);
    REFUSED(play_threshold, -0.5);
    REFUSED(play_threshold, T_INF);
    REFUSED(lambda, 0.0);
    REFUSED(R, -1.0);
    REFUSED(delta, 1.0);
    REFUSED(refresh, -2);
    REFUSED(cut, (isdb_adaptive_cut)-1);
    REFUSED(cut, (isdb_adaptive_cut)3);
    REFUSED(noise_estimate, (isdb_adaptive_noise)-1);
    REFUSED(noise_estimate, (isdb_adaptive_noise)3);
    REFUSED(hold, -1);
    REFUSED(hold, 2);
    REFUSED(play_horizon, -1);
    REFUSED(play_horizon, 1025);
    REFUSED(memory_ratio, 1.0);
    REFUSED(memory_ratio, 0.5);
    REFUSED(memory_ratio, 1e7);
    REFUSED(memory_ratio, T_NAN);
    REFUSED(kalman, -1);
    REFUSED(kalman, 9);
    REFUSED(kalman_q, 0.0);
    REFUSED(kalman_q, 2.0);
    REFUSED(kalman_q, T_NAN);
    REFUSED(kalman_width, -1.0);
    REFUSED(kalman_width, T_INF);
    REFUSED(kalman_width, 1e31);
    REFUSED(d, 0);
    REFUSED(max_arms, 0);
#undef REFUSED
    c = isdb_adaptive_config_init(3, 4);
    c.min_memory = 100;
    c.max_memory = 50;
    CHECK_RESULT(isdb_adaptive_init(&c, NULL, &p), ISDB_ERR_INVALID_ARG);
    /* One finite memory: it and the unbounded estimator. */
    c.max_memory = 100;
    CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
    CHECK(p.n_est == 2);
    isdb_policy_uninit(&p.base);
    /* memory_ratio: each memory the last times the ratio, rounded, at
       least one more; max_memory and the unbounded one end the ladder. */
    {
        static const isdb_real ratios[3] = {3, 1.5, 1000};
        static const int want[3][16] = {{16, 48, 144, 432, 1296, 3888, 4096, 0},
                                        {16, 24, 36, 54, 81, 122, 183, 275, 413, 620, 930, 1395, 2093, 3140, 4096, 0},
                                        {16, 4096, 0}};
        static const int want_n[3] = {8, 16, 3};
        int i, k;
        for (i = 0; i < 3; ++i) {
            c = isdb_adaptive_config_init(3, 4);
            c.memory_ratio = ratios[i];
            CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
            CHECK_MSG(p.n_est == want_n[i], "memory_ratio %g: %d estimators", (double)ratios[i], p.n_est);
            for (k = 0; k < want_n[i] && k < p.n_est; ++k)
                CHECK_MSG(p._est[k].memory == want[i][k], "memory_ratio %g: memory %d is %d", (double)ratios[i], k,
                          p._est[k].memory);
            isdb_policy_uninit(&p.base);
        }
        /* a ratio that needs more than ISDB_ADAPTIVE_MAX_ESTIMATORS */
        c = isdb_adaptive_config_init(3, 4);
        c.memory_ratio = 1.01;
        CHECK_RESULT(isdb_adaptive_init(&c, NULL, &p), ISDB_ERR_INVALID_ARG);
    }
    c = isdb_adaptive_config_init(3, 4);
    /* The longest grid there is still fits. */
    c.min_memory = 2;
    c.max_memory = INT_MAX;
    CHECK_OK(isdb_adaptive_heap_size(&c, &bytes));
}

/* The getters against runs whose answers are known. Every round, the
   counts each estimator reports follow from the rounds played and the
   cuts seen through isdb_adaptive_get_changes alone: +1 a round; a cut at i
   sets every longer estimator to min(count_i, memory_i) and leaves the
   others; isdb_adaptive_get_memory is the played one's effective memory.
   A stationary stream: no cut, the undiscounted estimator played at the
   end with memory = every round played. theta turning around at round
   2000: a cut soon after, a shorter memory played right after it, and at
   the end the undiscounted one again with memory = the rounds since the
   last cut plus what that cut handed it. */
static void test_getters(void) {
    enum { D = 3, K = 10, T = 6000, JUMP = 2000 };
    int run;
    for (run = 0; run < 2; ++run) {
        isdb_linear_env env;
        isdb_adaptive p;
        isdb_adaptive_config c = isdb_adaptive_config_init(D, K);
        isdb_adaptive_estimator_info info;
        int expect[ISDB_ADAPTIVE_MAX_ESTIMATORS], memories[ISDB_ADAPTIVE_MAX_ESTIMATORS];
        int n, k, t, ok = 1, shorter_after_cut = 0, first_cut = -1, last_cut = -1, handed = 0;
        uint64_t seen = 0;
        c.R = 0.5;
        CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
        CHECK_OK(make_env(D, K, 77, run ? JUMP : 0, 0.5, &env));
        n = isdb_adaptive_get_n_estimators(&p);
        /* min_memory 16 doubling to max_memory 4096, then the undiscounted. */
        CHECK(n == 10);
        for (k = 0; k < n; ++k) {
            CHECK_OK(isdb_adaptive_get_estimator(&p, k, &info));
            memories[k] = info.memory;
            CHECK(info.memory == (k + 1 < n ? 16 << k : 0));
            CHECK(info.gamma == (k + 1 < n ? 1 - (isdb_real)1 / (isdb_real)info.memory : 1));
            CHECK(info.count == 0 && info.effective == 0);
            expect[k] = 0;
        }
        CHECK(isdb_adaptive_get_played(&p) == n - 1 && isdb_adaptive_get_memory(&p) == 0);
        memset(&info, 0x5a, sizeof info);
        CHECK_RESULT(isdb_adaptive_get_estimator(&p, -1, &info), ISDB_ERR_INVALID_ARG);
        CHECK_RESULT(isdb_adaptive_get_estimator(&p, n, &info), ISDB_ERR_INVALID_ARG);
        CHECK_RESULT(isdb_adaptive_get_estimator(NULL, 0, &info), ISDB_ERR_INVALID_ARG);
        CHECK_RESULT(isdb_adaptive_get_estimator(&p, 0, NULL), ISDB_ERR_INVALID_ARG);
        CHECK(info.memory == 0x5a5a5a5a && info.count == 0x5a5a5a5a);
        for (t = 1; t <= T && ok; ++t) {
            int played, cut_at = -1;
            if (!play_round(&p, &env.base)) ok = 0;
            for (k = 0; k < n; ++k) ++expect[k];
            if (isdb_adaptive_get_changes(&p) != seen) {
                /* One cut a round at most; it is at the first estimator
                   whose count left the +1 a round, less one. */
                ok &= isdb_adaptive_get_changes(&p) == seen + 1;
                seen = isdb_adaptive_get_changes(&p);
                for (k = 0; k < n && cut_at < 0; ++k) {
                    CHECK_OK(isdb_adaptive_get_estimator(&p, k, &info));
                    if (info.count != expect[k]) cut_at = k - 1;
                }
                ok &= cut_at >= 0 && cut_at + 1 < n;
                if (cut_at < 0) break;
                handed = expect[cut_at] < memories[cut_at] ? expect[cut_at] : memories[cut_at];
                for (k = cut_at + 1; k < n; ++k) expect[k] = handed;
                if (first_cut < 0) first_cut = t;
                last_cut = t;
            }
            for (k = 0; k < n; ++k) {
                CHECK_OK(isdb_adaptive_get_estimator(&p, k, &info));
                ok &= info.count == expect[k] &&
                      info.effective == (memories[k] && memories[k] < expect[k] ? memories[k] : expect[k]);
            }
            played = isdb_adaptive_get_played(&p);
            ok &= played >= 0 && played < n;
            CHECK_OK(isdb_adaptive_get_estimator(&p, played, &info));
            ok &= isdb_adaptive_get_memory(&p) == info.effective;
            if (first_cut > 0 && t < first_cut + 50 && played < n - 1) shorter_after_cut = 1;
        }
        CHECK_MSG(ok, "run %d: the getters disagree with the counts of the rounds and cuts (round %d)", run, t - 1);
        CHECK(isdb_adaptive_get_played(&p) == n - 1);
        if (!run) {
            CHECK_MSG(seen == 0, "stationary run: %lu cuts", (unsigned long)seen);
            CHECK(isdb_adaptive_get_memory(&p) == T);
        } else {
            CHECK_MSG(first_cut > JUMP && first_cut <= JUMP + 300, "first cut at round %d", first_cut);
            CHECK(shorter_after_cut);
            CHECK_MSG(isdb_adaptive_get_memory(&p) == T - last_cut + handed, "memory %d, rounds since the cut %d + %d",
                      isdb_adaptive_get_memory(&p), T - last_cut, handed);
        }
        isdb_policy_uninit(&p.base);
        isdb_env_uninit(&env.base);
    }
}

/* Bernoulli rewards on one-hot arms, told R = 0.5 (rewards in [0, 1]).
   Plays T rounds with means mu0 (K of them) until round `at`, mu1 after;
   returns the first cut at or after `at` (0 if none), and in *before the
   cuts before it. */
static uint64_t bernoulli_run(int K, const double *mu0, const double *mu1, uint64_t at, uint64_t T, uint64_t seed,
                              uint64_t *before) {
    isdb_adaptive p;
    isdb_adaptive_config c = isdb_adaptive_config_init(K, K);
    isdb_real X[16 * 16];
    isdb_rng rng;
    uint64_t t, first = 0;
    int k, arm;
    c.R = 0.5;
    CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
    for (k = 0; k < K * K; ++k) X[k] = k % (K + 1) == 0 ? 1 : 0;
    isdb_rng_seed(&rng, seed);
    *before = 0;
    for (t = 0; t < T; ++t) {
        const double *mu = t < at ? mu0 : mu1;
        uint64_t cuts = isdb_adaptive_get_changes(&p);
        CHECK_OK(isdb_policy_select(&p.base, X, K, &arm));
        CHECK_OK(isdb_policy_update(&p.base, arm, X + arm * K, isdb_rng_uniform(&rng) < mu[arm] ? 1 : 0));
        if (isdb_adaptive_get_changes(&p) > cuts) {
            if (t < at)
                ++*before;
            else if (!first)
                first = t;
        }
    }
    isdb_policy_uninit(&p.base);
    return first;
}

/* Low-mean Bernoulli rewards stay 0 for long stretches, where a shorter
   memory predicts a little better every round with almost no spread:
   the test's variance floor (what the noise alone gives) keeps such runs
   from looking significant. Stationary means at most 0.1: at most 5% of
   runs cut (every run cut, about 45 times, before the floor). A large
   drop of the played arm (0.9 to 0.1) is still caught in every run. */
static void test_bernoulli_cuts(void) {
    static const double low[6] = {0.071, 0.041, 0.032, 0.030, 0.020, 0.011};
    static const double high[3] = {0.3, 0.5, 0.9}, dropped[3] = {0.3, 0.5, 0.1};
    enum { SEEDS = 20 };
    int s, runs_with_cut = 0, caught = 0;
    uint64_t worst = 0;
    for (s = 0; s < SEEDS; ++s) {
        uint64_t before, at;
        bernoulli_run(6, low, low, 10000, 10000, 500 + (uint64_t)s, &before);
        runs_with_cut += before > 0;
        at = bernoulli_run(3, high, dropped, 2000, 4000, 700 + (uint64_t)s, &before);
        if (at) {
            ++caught;
            if (at - 2000 > worst) worst = at - 2000;
        }
    }
    printf("bernoulli: stationary low means, %d of %d runs cut; the drop caught in %d of %d runs, slowest %lu "
           "rounds\n",
           runs_with_cut, SEEDS, caught, SEEDS, (unsigned long)worst);
    CHECK_MSG(runs_with_cut <= SEEDS / 20, "%d of %d stationary low-mean Bernoulli runs cut the memory",
              runs_with_cut, SEEDS);
    CHECK_MSG(caught == SEEDS, "the drop 0.9 -> 0.1 caught in %d of %d runs", caught, SEEDS);
}

/* noise_estimate: told R = 0.5 on Bernoulli arms with means <= 0.1 (a
   spread near 0.2), the width shrinks below R's; on Gaussian noise of
   scale exactly R it stays R's (the estimate errs above the noise). */
static void test_noise_estimate(void) {
    static const double low[6] = {0.071, 0.041, 0.032, 0.030, 0.020, 0.011};
    isdb_real X[36];
    int k, t, arm, mode;
    isdb_real beta[2];
    for (k = 0; k < 36; ++k) X[k] = k % 7 == 0 ? 1 : 0;
    for (mode = 0; mode < 2; ++mode) {
        isdb_adaptive p;
        isdb_adaptive_config c = isdb_adaptive_config_init(6, 6);
        isdb_rng rng;
        c.R = 0.5;
        c.noise_estimate = (isdb_adaptive_noise)mode;
        CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
        isdb_rng_seed(&rng, 31);
        for (t = 0; t < 3000; ++t) {
            CHECK_OK(isdb_policy_select(&p.base, X, 6, &arm));
            CHECK_OK(isdb_policy_update(&p.base, arm, X + arm * 6, isdb_rng_uniform(&rng) < low[arm] ? 1 : 0));
        }
        beta[mode] = isdb_adaptive_get_beta(&p);
        isdb_policy_uninit(&p.base);
    }
    printf("noise estimate: width on low-mean Bernoulli arms %.3f (R's %.3f)\n", (double)beta[1], (double)beta[0]);
    CHECK_MSG(beta[1] < 0.7 * beta[0], "the estimated width %g is not below R's %g", (double)beta[1], (double)beta[0]);
    for (mode = 0; mode < 2; ++mode) {
        isdb_linear_env env;
        isdb_adaptive p;
        isdb_adaptive_config c = isdb_adaptive_config_init(5, 20);
        isdb_sim_result res;
        c.noise_estimate = (isdb_adaptive_noise)mode;
        CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
        CHECK_OK(make_env(5, 20, 77, 0, 1.0, &env));
        CHECK_OK(isdb_sim_run(&p.base, &env.base, 3000, NULL, &res));
        beta[mode] = isdb_adaptive_get_beta(&p);
        isdb_policy_uninit(&p.base);
        isdb_env_uninit(&env.base);
    }
    CHECK_MSG(beta[1] == beta[0], "Gaussian noise of scale R: width %g against R's %g", (double)beta[1],
              (double)beta[0]);
}

/* NOISE_LOCAL (the default): each arm's width has its own noise scale.
   Two one-hot arms see the same number of rewards in [0, 1], told R =
   0.5: arm 0 alternates 0 and 1 (spread 0.5 = R), arm 1 is 1 once in 40
   rounds (spread 0.16). POOLED gives both the same width (one noise
   scale, equal counts); LOCAL gives the quiet arm a width well below the
   noisy one's, and no arm a width above POOLED's (its noise scale is at
   most POOLED's, its ridge term lambda S |V^-1 x| at most sqrt(lambda) S
   ||x||_{V^-1}). Both policies see the same stream without selecting, so
   they hold the same estimates and differ only in the widths. */
static void test_local_noise(void) {
    static const isdb_real X[4] = {1, 0, 0, 1};
    isdb_adaptive p[2];
    isdb_real bonus[2][2], mean[2][2];
    int m, t, k;
    for (m = 0; m < 2; ++m) {
        isdb_adaptive_config c = isdb_adaptive_config_init(2, 2);
        c.R = 0.5;
        c.noise_estimate = m ? ISDB_ADAPTIVE_NOISE_LOCAL : ISDB_ADAPTIVE_NOISE_POOLED;
        CHECK_OK(isdb_adaptive_init(&c, NULL, &p[m]));
        for (t = 0; t < 400; ++t) {
            CHECK_OK(isdb_policy_update(&p[m].base, 0, X, t % 2 ? 1 : 0));
            CHECK_OK(isdb_policy_update(&p[m].base, 1, X + 2, t % 40 == 7 ? 1 : 0));
        }
        for (k = 0; k < 2; ++k) CHECK_OK(isdb_adaptive_explain(&p[m], X + 2 * k, &mean[m][k], &bonus[m][k]));
    }
    printf("local noise: bonus of the noisy and the quiet arm, POOLED %.4f %.4f, LOCAL %.4f %.4f\n",
           (double)bonus[0][0], (double)bonus[0][1], (double)bonus[1][0], (double)bonus[1][1]);
    CHECK(mean[0][0] == mean[1][0] && mean[0][1] == mean[1][1]);
    CHECK_MSG(fabs(bonus[0][0] - bonus[0][1]) <= 0.05 * bonus[0][0], "POOLED: one noise scale, bonuses %g and %g",
              (double)bonus[0][0], (double)bonus[0][1]);
    for (k = 0; k < 2; ++k)
        CHECK_MSG(bonus[1][k] < bonus[0][k], "arm %d: LOCAL's bonus %g not below POOLED's %g", k,
                  (double)bonus[1][k], (double)bonus[0][k]);
    CHECK_MSG(bonus[1][1] < 0.6 * bonus[1][0], "LOCAL: the quiet arm's bonus %g against the noisy arm's %g",
              (double)bonus[1][1], (double)bonus[1][0]);
    for (m = 0; m < 2; ++m) isdb_policy_uninit(&p[m].base);
}

/* On stationary one-hot Bernoulli arms with means <= 0.071 (Besson et
   al.'s Problem 3, first segment), told R = 0.5, LOCAL's regret is well
   below POOLED's (0.5.0's default; 351 against 106 over 20000 rounds and
   50 seeds in `make agnostic`'s scratch runs, bench/README.md), and
   neither cuts. */
static void test_local_noise_regret(void) {
    static const double low[6] = {0.071, 0.041, 0.032, 0.030, 0.020, 0.011};
    enum { SEEDS = 4, T = 5000 };
    isdb_real X[36];
    double regret[2] = {0, 0};
    uint64_t cuts = 0;
    int m, s, t, k, arm;
    for (k = 0; k < 36; ++k) X[k] = k % 7 == 0 ? 1 : 0;
    for (m = 0; m < 2; ++m)
        for (s = 0; s < SEEDS; ++s) {
            isdb_adaptive p;
            isdb_adaptive_config c = isdb_adaptive_config_init(6, 6);
            isdb_rng rng;
            c.R = 0.5;
            c.noise_estimate = m ? ISDB_ADAPTIVE_NOISE_LOCAL : ISDB_ADAPTIVE_NOISE_POOLED;
            CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
            isdb_rng_seed(&rng, 90 + (uint64_t)s);
            for (t = 0; t < T; ++t) {
                CHECK_OK(isdb_policy_select(&p.base, X, 6, &arm));
                regret[m] += low[0] - low[arm];
                CHECK_OK(isdb_policy_update(&p.base, arm, X + arm * 6, isdb_rng_uniform(&rng) < low[arm] ? 1 : 0));
            }
            cuts += isdb_adaptive_get_changes(&p);
            isdb_policy_uninit(&p.base);
        }
    printf("local noise: regret on stationary low-mean Bernoulli arms, POOLED %.1f, LOCAL %.1f (%d runs of %d), "
           "%lu cuts\n",
           regret[0] / SEEDS, regret[1] / SEEDS, SEEDS, T, (unsigned long)cuts);
    CHECK_MSG(regret[1] < 0.7 * regret[0], "LOCAL's regret %g against POOLED's %g", regret[1] / SEEDS,
              regret[0] / SEEDS);
    CHECK(cuts == 0);
}

/* A snapshot of another noise_estimate is another config: refused as
   such (a 0.5.0 default snapshot carries POOLED). */
static void test_local_noise_snapshot(void) {
    static unsigned char snap[1 << 14];
    static const isdb_real x[2] = {1, 0};
    isdb_adaptive a, b;
    isdb_adaptive_config c = isdb_adaptive_config_init(2, 2);
    size_t n;
    CHECK(c.noise_estimate == ISDB_ADAPTIVE_NOISE_LOCAL);
    c.noise_estimate = ISDB_ADAPTIVE_NOISE_POOLED;
    CHECK_OK(isdb_adaptive_init(&c, NULL, &a));
    CHECK_OK(isdb_policy_update(&a.base, 0, x, 1));
    CHECK_OK(isdb_policy_save(&a.base, snap, sizeof snap, &n));
    c.noise_estimate = ISDB_ADAPTIVE_NOISE_LOCAL;
    CHECK_OK(isdb_adaptive_init(&c, NULL, &b));
    CHECK_RESULT(isdb_policy_load(&b.base, snap, n), ISDB_ERR_SNAPSHOT_CONFIG);
    isdb_policy_uninit(&a.base);
    isdb_policy_uninit(&b.base);
}

/* theta(t) = s(t) theta0, s(t) = 1 + 0.7 sin(2 pi t / 2000): only the
   rewards' scale moves, which ranks no arm differently. */
static isdb_real level_theta0[5];
static void level_scale_theta(uint64_t t, isdb_real *theta, void *user) {
    double s = 1 + 0.7 * sin(2 * 3.14159265358979 * (double)t / 2000.0);
    int i;
    (void)user;
    for (i = 0; i < 5; ++i) theta[i] = (isdb_real)(s * level_theta0[i]);
}

/* A level-scale stream (d = 5, K = 20 fresh arms, noise 0.3), theta0 a
   unit vector drawn from `seed`. */
static isdb_result make_level_env(uint64_t seed, isdb_linear_env *env) {
    isdb_linear_env_config ec = isdb_linear_env_config_init(5, 20);
    isdb_rng rng;
    double norm2 = 0;
    int i;
    isdb_rng_seed(&rng, seed);
    for (i = 0; i < 5; ++i) {
        level_theta0[i] = (isdb_real)isdb_rng_normal(&rng);
        norm2 += (double)level_theta0[i] * (double)level_theta0[i];
    }
    for (i = 0; i < 5; ++i) level_theta0[i] = (isdb_real)(level_theta0[i] / sqrt(norm2));
    ec.seed = seed + 1;
    ec.noise_sd = 0.3;
    ec.path = ISDB_PATH_CALLBACK;
    ec.theta_fn = level_scale_theta;
    return isdb_linear_env_init(&ec, NULL, env);
}

/* Runs a policy of config c on env for `before` rounds, loads its
   snapshot into a second one, and runs both side by side for `after`
   rounds more; 1 if they chose the same arms and played the same memories
   throughout. *holding: whether the first held at the save. */
static int same_after_snapshot(const isdb_adaptive_config *c, isdb_env *env, int d, int K, uint64_t before,
                               uint64_t after, int *holding) {
    static unsigned char snap[1 << 16];
    isdb_adaptive a, b;
    isdb_sim_result res;
    size_t n;
    uint64_t t;
    int same = 1;
    CHECK_OK(isdb_adaptive_init(c, NULL, &a));
    CHECK_OK(isdb_adaptive_init(c, NULL, &b));
    CHECK_OK(isdb_sim_run(&a.base, env, before, NULL, &res));
    *holding = isdb_adaptive_get_holding(&a);
    CHECK_OK(isdb_policy_save(&a.base, snap, sizeof snap, &n));
    CHECK_OK(isdb_policy_load(&b.base, snap, n));
    for (t = 0; t < after; ++t) {
        int arm, arm_b;
        isdb_real y;
        CHECK_OK(isdb_env_next(env));
        CHECK_OK(isdb_policy_select(&a.base, env->X, K, &arm));
        CHECK_OK(isdb_policy_select(&b.base, env->X, K, &arm_b));
        same &= arm == arm_b && isdb_adaptive_get_played(&a) == isdb_adaptive_get_played(&b);
        CHECK_OK(isdb_env_reward(env, arm, &y));
        CHECK_OK(isdb_policy_update(&a.base, arm, env->X + arm * d, y));
        CHECK_OK(isdb_policy_update(&b.base, arm, env->X + arm * d, y));
    }
    isdb_policy_uninit(&a.base);
    isdb_policy_uninit(&b.base);
    return same;
}

/* A snapshot of config `one` is another config to `other`, and the other
   way round (x: the features of the one update before each save). */
static void check_formats_refuse(const isdb_adaptive_config *one, const isdb_adaptive_config *other,
                                 const isdb_real *x) {
    static unsigned char snap[1 << 16];
    size_t n;
    isdb_adaptive a, b;
    CHECK_OK(isdb_adaptive_init(one, NULL, &a));
    CHECK_OK(isdb_policy_update(&a.base, 0, x, 1));
    CHECK_OK(isdb_policy_save(&a.base, snap, sizeof snap, &n));
    CHECK_OK(isdb_adaptive_init(other, NULL, &b));
    CHECK_RESULT(isdb_policy_load(&b.base, snap, n), ISDB_ERR_SNAPSHOT_CONFIG);
    CHECK_OK(isdb_policy_update(&b.base, 0, x, 1));
    CHECK_OK(isdb_policy_save(&b.base, snap, sizeof snap, &n));
    CHECK_RESULT(isdb_policy_load(&a.base, snap, n), ISDB_ERR_SNAPSHOT_CONFIG);
    isdb_policy_uninit(&a.base);
    isdb_policy_uninit(&b.base);
}

/* hold: with fresh contexts and only the scale moving, the default stops
   cutting and plays the longest memory, and its regret falls well below
   0.6.0's (hold 0, the control, which cuts all along); measured when this
   test was written (4 runs of 8000 rounds, play_threshold 1.5): regret
   16.5 against 179.7, 5 cuts in all against 235. With play_horizon 4, 16
   runs: 19.4 against 225.9, 23 cuts against 944 (play_horizon 1: 18.6
   and 21 cuts); the cuts come in the first few hundred rounds, before
   the hold starts, and 4 runs were too few for the bound of 2 a run
   (batches of 16 runs cut 0.8-1.5 times a run with either play rule, in
   double and in float; the float build's first 4 runs cut 10 times with
   play_horizon 4). A run saved while holding and continued
   from its snapshot chooses as the one that never stopped; the hold and
   no-hold formats refuse each other as another config. */
static void test_hold_level_scale(void) {
    enum { D = 5, K = 20, SEEDS = 16, T = 8000 };
    static const isdb_real x[D] = {1, 0, 0, 0, 0};
    double regret[2] = {0, 0};
    uint64_t cuts[2] = {0, 0};
    int hold, s, holding_at_end = 0, holding = 0;
    isdb_linear_env env;
    isdb_adaptive a;
    isdb_adaptive_config c = isdb_adaptive_config_init(D, K);
    isdb_sim_result res;
    CHECK(c.hold == 1);
    c.R = 0.3;
    for (hold = 0; hold < 2; ++hold)
        for (s = 0; s < SEEDS; ++s) {
            c.hold = hold;
            CHECK_OK(make_level_env(300 + 2 * (uint64_t)s, &env));
            CHECK_OK(isdb_adaptive_init(&c, NULL, &a));
            CHECK_OK(isdb_sim_run(&a.base, &env.base, T, NULL, &res));
            regret[hold] += (double)res.regret / SEEDS;
            cuts[hold] += isdb_adaptive_get_changes(&a);
            holding_at_end += hold && isdb_adaptive_get_holding(&a);
            isdb_policy_uninit(&a.base);
            isdb_env_uninit(&env.base);
        }
    printf("hold: level-scale regret %.1f with hold 0, %.1f with hold 1; cuts %lu and %lu (%d runs of %d)\n",
           regret[0], regret[1], (unsigned long)cuts[0], (unsigned long)cuts[1], SEEDS, (int)T);
    CHECK_MSG(holding_at_end == SEEDS, "holding at the end of %d of %d runs", holding_at_end, SEEDS);
    CHECK_MSG(cuts[0] > 20 * SEEDS, "the control (hold 0) cut only %lu times: the check does not discriminate",
              (unsigned long)cuts[0]);
    CHECK_MSG(cuts[1] <= 2 * SEEDS, "hold cut %lu times on a scale-only drift", (unsigned long)cuts[1]);
    CHECK_MSG(regret[1] < 0.5 * regret[0], "hold's regret %g against %g without", regret[1], regret[0]);

    /* save while holding; continue both side by side */
    c.hold = 1;
    CHECK_OK(make_level_env(300, &env));
    CHECK_MSG(same_after_snapshot(&c, &env.base, D, K, T / 2, T / 4, &holding),
              "a run continued from its snapshot chose other arms or memories");
    CHECK_MSG(holding, "not holding at the save");
    isdb_env_uninit(&env.base);

    /* formats: a hold snapshot is another config to a no-hold policy, and
       the other way round */
    {
        isdb_adaptive_config no_hold = c;
        no_hold.hold = 0;
        check_formats_refuse(&c, &no_hold, x);
    }
}

/* A slow turn: theta = (cos a, sin a, 0), a = 2 pi t / TURN_PERIOD (d =
   3, K = 10 fresh sphere arms, noise 1). */
#define TURN_PERIOD 100000.0
static void turn_theta(uint64_t t, isdb_real *theta, void *user) {
    double a = 2 * 3.14159265358979 * (double)t / TURN_PERIOD;
    (void)user;
    theta[0] = (isdb_real)cos(a);
    theta[1] = (isdb_real)sin(a);
    theta[2] = 0;
}

/* play_horizon: on a slow turn at noise 1 the memory that predicts best
   beats the next longer one by less than one standard deviation on
   average over its own memory, so play_horizon 1 (0.7.0's play rule, the
   control) keeps playing memories 2-4 times too long; weighing the
   evidence over 4 memories (the default) plays shorter ones and loses
   less. Measured when this test was written (4 runs of 50000 rounds, half
   a turn): regret 492.6 with play_horizon 1 against 329.2, memories of
   2048 or more (the ideal is about 1000) played in 80% and 47% of the
   rounds. A run saved mid-turn and continued from its snapshot chooses as
   the one that never stopped; the two formats refuse each other as
   another config. */
static void test_play_horizon(void) {
    enum { D = 3, K = 10, SEEDS = 4, T = 50000 };
    static const isdb_real x[D] = {1, 0, 0};
    double regret[2] = {0, 0}, long_share[2] = {0, 0};
    int h, s, holding;
    uint64_t t;
    isdb_linear_env env;
    isdb_linear_env_config ec = isdb_linear_env_config_init(D, K);
    isdb_adaptive a;
    isdb_adaptive_config c = isdb_adaptive_config_init(D, K);
    ec.noise_sd = 1;
    ec.path = ISDB_PATH_CALLBACK;
    ec.theta_fn = turn_theta;
    for (h = 0; h < 2; ++h)
        for (s = 0; s < SEEDS; ++s) {
            c.play_horizon = h ? 0 : 1;
            ec.seed = 500 + (uint64_t)s;
            CHECK_OK(isdb_linear_env_init(&ec, NULL, &env));
            CHECK_OK(isdb_adaptive_init(&c, NULL, &a));
            for (t = 0; t < T; ++t) {
                int arm, k;
                isdb_real y, best;
                CHECK_OK(isdb_env_next(&env.base));
                CHECK_OK(isdb_policy_select(&a.base, env.base.X, K, &arm));
                long_share[h] += (isdb_adaptive_get_played(&a) >= a.n_est - 3) / (double)(SEEDS * T);
                CHECK_OK(isdb_env_reward(&env.base, arm, &y));
                CHECK_OK(isdb_policy_update(&a.base, arm, env.base.X + arm * D, y));
                best = env.base.means[0];
                for (k = 1; k < K; ++k)
                    if (env.base.means[k] > best) best = env.base.means[k];
                regret[h] += (double)(best - env.base.means[arm]) / SEEDS;
            }
            isdb_policy_uninit(&a.base);
            isdb_env_uninit(&env.base);
        }
    printf("play_horizon: slow-turn regret %.1f with 1, %.1f with 4; memories >= 2048 played %.0f%% and %.0f%% "
           "(%d runs of %d)\n",
           regret[0], regret[1], 100 * long_share[0], 100 * long_share[1], SEEDS, (int)T);
    CHECK_MSG(regret[1] < 0.8 * regret[0], "play_horizon 4's regret %g against %g with 1", regret[1], regret[0]);
    CHECK_MSG(long_share[1] < 0.75 * long_share[0],
              "play_horizon 4 played memories >= 2048 in %g of the rounds, 1 in %g", long_share[1], long_share[0]);

    /* save mid-turn; continue both side by side */
    c.play_horizon = 0;
    ec.seed = 500;
    CHECK_OK(isdb_linear_env_init(&ec, NULL, &env));
    CHECK_MSG(same_after_snapshot(&c, &env.base, D, K, T / 4, T / 4, &holding),
              "a run continued from its snapshot chose other arms or memories");
    isdb_env_uninit(&env.base);

    /* formats: play_horizon 4's snapshot is another config to play_horizon
       1 (0.7.0's format), and the other way round */
    {
        isdb_adaptive_config horizon_1 = c;
        horizon_1.play_horizon = 1;
        check_formats_refuse(&c, &horizon_1, x);
    }
}

/* isdb_adaptive_explain: the mean is x.theta of the played estimator and
   mean + bonus the arm's score, at d = 1, 4 and 13 (select's scratch
   holds arms interleaved; explain must not read it as one arm's
   solution), after a stream with a jump so that the played memory is
   not the unbounded one. */
static void test_explain(void) {
    static const int dims[3] = {1, 4, 13};
    int di;
    for (di = 0; di < 3; ++di) {
        int d = dims[di], t, i, k;
        isdb_adaptive p;
        isdb_adaptive_config c = isdb_adaptive_config_init(d, 3);
        isdb_rng rng;
        isdb_real x[16], theta[16], worst = 0, scale = 1;
        CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
        isdb_rng_seed(&rng, 40 + (uint64_t)d);
        for (t = 0; t < 600; ++t) {
            isdb_real y = isdb_rng_normal(&rng) * 0.1 + (t < 300 ? 1 : -1);
            for (i = 0; i < d; ++i) x[i] = isdb_rng_normal(&rng);
            y *= x[0];
            CHECK_OK(isdb_policy_update(&p.base, 0, x, y));
        }
        if (isdb_adaptive_get_kalman(&p) >= 0)
            isdb_adaptive_get_theta(&p, theta); /* a Kalman estimator's own theta */
        else
            estimator_theta(&p, isdb_adaptive_get_played(&p), theta);
        for (k = 0; k < 20; ++k) {
            isdb_real mean, bonus, score, ref = 0;
            for (i = 0; i < d; ++i) x[i] = isdb_rng_normal(&rng);
            for (i = 0; i < d; ++i) ref += x[i] * theta[i];
            CHECK_OK(isdb_adaptive_explain(&p, x, &mean, &bonus));
            CHECK_OK(isdb_policy_scores(&p.base, x, 1, &score));
            if (fabs(mean - ref) > worst) worst = fabs(mean - ref);
            if (fabs(ref) > scale) scale = fabs(ref);
            CHECK_MSG(bonus >= 0 && fabs(mean + bonus - score) <= T_TOL(1e-12) * (fabs(score) + 1),
                      "d = %d: mean %g + bonus %g, score %g", d, (double)mean, (double)bonus, (double)score);
        }
        CHECK_MSG(worst <= T_TOL(1e-12) * scale, "d = %d: explain's mean off x.theta by %g", d, (double)worst);
        isdb_policy_uninit(&p.base);
    }
}

/* A plain random-walk Kalman filter (P_ii <- min(P_ii + q, 1 / lambda)
   where below it; k = P x / (1 + x'Px); theta += k (y - x.theta); P -= k
   k' (1 + x'Px)), in double. */
static void ref_kalman(int d, double q, double lambda, double *theta, double *P, const isdb_real *x, double y) {
    double Px[8], s = 1, pred = 0;
    int i, j;
    for (i = 0; i < d; ++i)
        if (P[i * d + i] < 1 / lambda) P[i * d + i] = fmin(P[i * d + i] + q, 1 / lambda);
    for (i = 0; i < d; ++i) {
        Px[i] = 0;
        for (j = 0; j < d; ++j) Px[i] += P[i * d + j] * (double)x[j];
        s += (double)x[i] * Px[i];
        pred += theta[i] * (double)x[i];
    }
    for (i = 0; i < d; ++i) theta[i] += Px[i] / s * (y - pred);
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) P[i * d + j] -= (Px[i] / s) * (Px[j] / s) * s;
}

static void test_kalman_matches_reference(void) {
    enum { D = 3, N = 400 };
    isdb_adaptive p;
    isdb_adaptive_config c = isdb_adaptive_config_init(D, 2);
    double theta[3][D], P[3][D * D], q = 3e-4;
    isdb_real x[D];
    isdb_rng rng;
    int t, k, i, j;
    CHECK(c.kalman == 2 && fabs((double)c.kalman_q - 3e-4) < 1e-9 && fabs((double)c.kalman_width - 0.1) < 1e-7);
    c.lambda = 2;
    c.kalman = 3;
    CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
    for (k = 0; k < 3; ++k) {
        for (i = 0; i < D; ++i) theta[k][i] = 0;
        for (i = 0; i < D * D; ++i) P[k][i] = i % (D + 1) == 0 ? 1 / c.lambda : 0;
    }
    isdb_rng_seed(&rng, 77);
    for (t = 0; t < N; ++t) {
        double y;
        for (i = 0; i < D; ++i) x[i] = (isdb_real)isdb_rng_normal(&rng);
        y = sin(t / 50.0) * (double)x[0] + 0.5 * (double)x[1] + 0.1 * isdb_rng_normal(&rng);
        CHECK_OK(isdb_policy_update(&p.base, 0, x, (isdb_real)y));
        for (k = 0; k < 3; ++k) ref_kalman(D, q * pow(10.0, k / 2.0), (double)c.lambda, theta[k], P[k], x, y);
    }
    for (k = 0; k < 3; ++k) {
        double worst = 0, worst_p = 0, sym = 0;
        for (i = 0; i < D; ++i) {
            worst = fmax(worst, fabs((double)p._k_theta[k * D + i] - theta[k][i]));
            for (j = 0; j < D; ++j) {
                worst_p = fmax(worst_p, fabs((double)p._k_P[k * D * D + i * D + j] - P[k][i * D + j]));
                sym = fmax(sym, fabs((double)(p._k_P[k * D * D + i * D + j] - p._k_P[k * D * D + j * D + i])));
            }
        }
        CHECK_MSG(worst <= T_TOL(1e-9) && worst_p <= T_TOL(1e-9), "Kalman %d: theta off by %g, P by %g", k, worst,
                  worst_p);
        CHECK_MSG(sym == 0, "Kalman %d: P not exactly symmetric (%g)", k, sym);
    }
    /* while one plays, get_theta is its estimate */
    if (isdb_adaptive_get_kalman(&p) >= 0) {
        isdb_real th[D];
        isdb_adaptive_get_theta(&p, th);
        for (i = 0; i < D; ++i) CHECK(th[i] == p._k_theta[isdb_adaptive_get_kalman(&p) * D + i]);
    }
    isdb_policy_uninit(&p.base);
}

/* On a smooth drift (realstream's rotation, fresh arms) a Kalman estimator
   plays most rounds; with kalman 0 none does and the policy is 1.0.0's. */
static void rotation_path(uint64_t t, isdb_real *theta, void *user) {
    double a = 2.0 * 3.14159265358979323846 * (double)t / 10000.0, v[5], n = 0;
    int i;
    (void)user;
    v[0] = cos(a);
    v[1] = sin(a);
    v[2] = v[3] = v[4] = 0.3;
    for (i = 0; i < 5; ++i) n += v[i] * v[i];
    for (i = 0; i < 5; ++i) theta[i] = (isdb_real)(v[i] / sqrt(n));
}

static void test_kalman_plays_on_drift(void) {
    int off;
    for (off = 0; off < 2; ++off) {
        isdb_linear_env_config e = isdb_linear_env_config_init(5, 20);
        isdb_adaptive_config c = isdb_adaptive_config_init(5, 20);
        isdb_linear_env env;
        isdb_adaptive p;
        isdb_real y;
        int t, arm, plays = 0;
        e.seed = 3;
        e.noise_sd = 0.5;
        e.arms = ISDB_ARMS_SPHERE;
        e.path = ISDB_PATH_CALLBACK;
        e.theta_fn = rotation_path;
        c.R = 0.5;
        if (off) c.kalman = 0;
        CHECK_OK(isdb_linear_env_init(&e, NULL, &env));
        CHECK_OK(isdb_adaptive_init(&c, NULL, &p));
        for (t = 0; t < 6000; ++t) {
            CHECK_OK(isdb_env_next(&env.base));
            CHECK_OK(isdb_policy_select(&p.base, env.base.X, 20, &arm));
            CHECK_OK(isdb_env_reward(&env.base, arm, &y));
            CHECK_OK(isdb_policy_update(&p.base, arm, env.base.X + arm * 5, y));
            plays += isdb_adaptive_get_kalman(&p) >= 0;
        }
        if (off)
            CHECK_MSG(plays == 0, "kalman 0: a Kalman estimator played %d rounds", plays);
        else
            CHECK_MSG(plays > 3000, "a Kalman estimator played %d of 6000 rounds of a rotation", plays);
        isdb_policy_uninit(&p.base);
        isdb_env_uninit(&env.base);
    }
}

/* d = 1, one arm, huge and tiny rewards: every score stays finite, the
   Kalman estimators' P stays symmetric with a positive diagonal, and a
   saved run continues bit for bit. */
static void test_kalman_degenerate(void) {
    static unsigned char snap[1 << 16], again[1 << 16];
    int d, mode;
    for (d = 1; d <= 2; ++d)
        for (mode = 0; mode < 3; ++mode) {
            isdb_adaptive_config c = isdb_adaptive_config_init(d, 1);
            isdb_adaptive a, b;
            isdb_real x[2] = {1, 0.5}, score, sb;
            isdb_rng rng;
            size_t n, n_b;
            int t, k, i;
            CHECK_OK(isdb_adaptive_init(&c, NULL, &a));
            CHECK_OK(isdb_adaptive_init(&c, NULL, &b));
            isdb_rng_seed(&rng, 9 + (uint64_t)mode);
            for (t = 0; t < 700; ++t) {
                const isdb_real scale = mode == 0 ? T_HUGE : mode == 1 ? (isdb_real)1e-30 : 1;
                isdb_real y = scale * (isdb_real)(t % 200 < 100 ? 1 : -1) * (isdb_real)(1 + 0.1 * isdb_rng_normal(&rng));
                if (t == 350) {
                    CHECK_OK(isdb_policy_save(&a.base, snap, sizeof snap, &n));
                    CHECK_OK(isdb_policy_load(&b.base, snap, n));
                }
                CHECK_OK(isdb_policy_scores(&a.base, x, 1, &score));
                CHECK_MSG(isfinite((double)score), "d %d mode %d: score %g at %d", d, mode, (double)score, t);
                CHECK_OK(isdb_policy_update(&a.base, 0, x, y));
                if (t >= 350) {
                    CHECK_OK(isdb_policy_scores(&b.base, x, 1, &sb));
                    CHECK(sb == score || (sb != sb && score != score));
                    CHECK_OK(isdb_policy_update(&b.base, 0, x, y));
                }
            }
            for (k = 0; k < c.kalman; ++k)
                for (i = 0; i < d; ++i) CHECK(a._k_P[k * d * d + i * d + i] > 0);
            CHECK_OK(isdb_policy_save(&a.base, snap, sizeof snap, &n));
            CHECK_OK(isdb_policy_save(&b.base, again, sizeof again, &n_b));
            CHECK(n == n_b && memcmp(snap, again, n) == 0);
            isdb_policy_uninit(&a.base);
            isdb_policy_uninit(&b.base);
        }
}

int main(void) {
    test_explain();
    test_config();
    test_estimators_match_references();
    test_cut_copies_estimate();
    test_snapshot_across_cuts();
    test_upper_zeros();
    test_directional_cut();
    test_fixed_arms_play_longest();
    test_change_test();
    test_stationary_false_cuts();
    test_bernoulli_cuts();
    test_noise_estimate();
    test_local_noise();
    test_local_noise_regret();
    test_local_noise_snapshot();
    test_hold_level_scale();
    test_play_horizon();
    test_getters();
    test_kalman_matches_reference();
    test_kalman_plays_on_drift();
    test_kalman_degenerate();
    return test_report();
}

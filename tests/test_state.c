/* test_state.c - what a product keeps: one snapshot, read and restored
   with no config at hand.
   For every policy of tests/cases.h, played for a few rounds and saved:
   - isdb_snapshot_read_info reports its kind, d, arm count, seed, t,
     format 1, the precision, this library's version and its size, and
     refuses what load refuses first (truncated, no magic, a bad
     checksum) with the same codes;
   - isdb_<name>_config_from_snapshot gives the saved policy's resolved
     config (byte for byte, array fields NULL); init with it and the
     input arrays isdb_snapshot_read_array copies out of the snapshot
     (ISD's log and oracle inputs, OPKB's arms, Trace-UCB's Sigma,
     weights and noise variances), then load, and the run continues with
     the same choices and the same snapshot bytes as the saved one;
     read_array refuses an unknown field and a short buffer (with the
     count);
   - isdb_policy_check_load returns what load would, changes nothing, and
     for a config that differs names the first field that differs (one
     field per policy changed in turn, and the input arrays);
   - a snapshot written before 1.0.0 (the library-version field below
     1.0.0) or of format 2 is refused with ISDB_ERR_SNAPSHOT_VERSION; one
     written by a later 1.x of format 1 loads;
   - config_from_snapshot of another kind: ISDB_ERR_SNAPSHOT_POLICY.
   The 1.x compatibility corpus, tests/corpus/snapshots/<release>/: for
   each row of CORPUS below (a tests/cases.h row of each policy),
   <row>-<precision>.snap is the snapshot written by that release after
   WARMUP rounds of tests/cases.h's rounds (the context generator seeded
   11, rewards 0.5 x_0 + 0.1), and <row>-<precision>.choices the arms of
   the next CORPUS_ROUNDS rounds (generator seeded 12), 100 a line. Every
   release loads each snapshot of every release (config and input arrays
   from the snapshot, init, load), plays those rounds with finite scores
   and the same choices: a config field a later release added reads as
   what the earlier one did. Each release adds its folder (`test_state
   --write-corpus DIR` writes this build's precision into DIR).
   Builds in both precisions (double-only policies left out of float). */
#include "../isdbandit.h"
#include "test.h"

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"

#define CAP (1 << 20)
#define WARMUP 40
#define CONTINUE 200

static unsigned char snap[CAP], snap_a[CAP], snap_b[CAP], bad[CAP];
static storage mem_a, mem_b, mem_c;
static isdb_real X[64 * 16];

typedef union any_config {
    isdb_linucb_config linucb;
    isdb_swucb_config swucb;
    isdb_dlinucb_config dlinucb;
    isdb_lints_config lints;
    isdb_bob_config bob;
    isdb_adaptive_config adaptive;
#if !ISDB_REAL_IS_FLOAT
    isdb_isd_config isd;
    isdb_opkb_config opkb;
    isdb_oam_config oam;
    isdb_traceucb_config traceucb;
#endif
} any_config;

static size_t save(isdb_policy *p, unsigned char *buf) {
    size_t n = 0;
    CHECK_OK(isdb_policy_save(p, buf, CAP, &n));
    return n;
}

static int play_round(isdb_policy *p, const policy_case *pc, isdb_rng *rng) {
    int n_arms, arm = -1, d = pc->d;
    case_round(rng, pc, d, pc->max_arms, &n_arms, X);
    CHECK_OK(isdb_policy_select(p, X, n_arms, &arm));
    CHECK_OK(isdb_policy_update(p, arm, X + arm * d, X[arm * d] * (isdb_real)0.5 + (isdb_real)0.1));
    return arm;
}

static void fix_checksum(unsigned char *s, size_t n) { t_put_le(s + n - 8, t_fnv1a(s, n - 8), 8); }

/* The resolved config of p and the bytes up to its last member's end
   (the tail padding is not the library's to set). */
#define END_OF(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))
static size_t config_of(const isdb_policy *p, const void **resolved) {
    switch (p->vt->kind) {
    case ISDB_POLICY_LINUCB: *resolved = isdb_linucb_get_config((const isdb_linucb *)p); return END_OF(isdb_linucb_config, refresh);
    case ISDB_POLICY_SWUCB: *resolved = isdb_swucb_get_config((const isdb_swucb *)p); return END_OF(isdb_swucb_config, refresh);
    case ISDB_POLICY_DLINUCB: *resolved = isdb_dlinucb_get_config((const isdb_dlinucb *)p); return END_OF(isdb_dlinucb_config, refresh);
    case ISDB_POLICY_LINTS: *resolved = isdb_lints_get_config((const isdb_lints *)p); return END_OF(isdb_lints_config, refresh);
    case ISDB_POLICY_BOB: *resolved = isdb_bob_get_config((const isdb_bob *)p); return END_OF(isdb_bob_config, refresh);
    case ISDB_POLICY_ADAPTIVE: *resolved = isdb_adaptive_get_config((const isdb_adaptive *)p); return END_OF(isdb_adaptive_config, play_horizon);
#if !ISDB_REAL_IS_FLOAT
    case ISDB_POLICY_ISD: *resolved = isdb_isd_get_config((const isdb_isd *)p); return END_OF(isdb_isd_config, warm_start);
    case ISDB_POLICY_OPKB: *resolved = isdb_opkb_get_config((const isdb_opkb *)p); return END_OF(isdb_opkb_config, seed);
    case ISDB_POLICY_OAM: *resolved = isdb_oam_get_config((const isdb_oam *)p); return END_OF(isdb_oam_config, refresh);
    case ISDB_POLICY_TRACEUCB: *resolved = isdb_traceucb_get_config((const isdb_traceucb *)p); return END_OF(isdb_traceucb_config, sparse_L);
#endif
    default: return 0;
    }
}

static isdb_result from_snapshot(isdb_policy_kind kind, const void *buf, size_t n, any_config *cfg) {
    switch (kind) {
    case ISDB_POLICY_LINUCB: return isdb_linucb_config_from_snapshot(buf, n, &cfg->linucb);
    case ISDB_POLICY_SWUCB: return isdb_swucb_config_from_snapshot(buf, n, &cfg->swucb);
    case ISDB_POLICY_DLINUCB: return isdb_dlinucb_config_from_snapshot(buf, n, &cfg->dlinucb);
    case ISDB_POLICY_LINTS: return isdb_lints_config_from_snapshot(buf, n, &cfg->lints);
    case ISDB_POLICY_BOB: return isdb_bob_config_from_snapshot(buf, n, &cfg->bob);
    case ISDB_POLICY_ADAPTIVE: return isdb_adaptive_config_from_snapshot(buf, n, &cfg->adaptive);
#if !ISDB_REAL_IS_FLOAT
    case ISDB_POLICY_ISD: return isdb_isd_config_from_snapshot(buf, n, &cfg->isd);
    case ISDB_POLICY_OPKB: return isdb_opkb_config_from_snapshot(buf, n, &cfg->opkb);
    case ISDB_POLICY_OAM: return isdb_oam_config_from_snapshot(buf, n, &cfg->oam);
    case ISDB_POLICY_TRACEUCB: return isdb_traceucb_config_from_snapshot(buf, n, &cfg->traceucb);
#endif
    default: return ISDB_ERR_INVALID_ARG;
    }
}

/* The resolved config with its array fields NULL, as config_from_snapshot
   gives it. */
static void null_arrays(isdb_policy_kind kind, any_config *c) {
#if !ISDB_REAL_IS_FLOAT
    if (kind == ISDB_POLICY_ISD) c->isd.X0 = c->isd.R0 = c->isd.U_inv = c->isd.beta_inv = NULL;
    if (kind == ISDB_POLICY_OPKB) c->opkb.arms = c->opkb.gram = NULL;
    if (kind == ISDB_POLICY_TRACEUCB) c->traceucb.Sigma = c->traceucb.weights = c->traceucb.noise_var = NULL;
#else
    (void)kind;
    (void)c;
#endif
}

/* The input arrays of the config, from the snapshot as a product takes
   them (isdb_snapshot_read_array), into arrays[] (NULL where the saved
   config had none). */
#if !ISDB_REAL_IS_FLOAT
#define MAX_ARRAY 4096
static isdb_real arrays[4][MAX_ARRAY];
static const isdb_real *array_from(const unsigned char *buf, size_t n, const char *field, int slot) {
    size_t count = 1;
    CHECK_OK(isdb_snapshot_read_array(buf, n, field, arrays[slot], MAX_ARRAY, &count));
    return count ? arrays[slot] : NULL;
}
#endif

static void give_arrays(isdb_policy_kind kind, const unsigned char *buf, size_t n, any_config *c) {
#if !ISDB_REAL_IS_FLOAT
    if (kind == ISDB_POLICY_ISD) {
        c->isd.X0 = array_from(buf, n, "X0", 0);
        c->isd.R0 = array_from(buf, n, "R0", 1);
        c->isd.U_inv = array_from(buf, n, "U_inv", 2);
        c->isd.beta_inv = array_from(buf, n, "beta_inv", 3);
    }
    if (kind == ISDB_POLICY_OPKB) {
        c->opkb.arms = array_from(buf, n, "arms", 0);
        c->opkb.gram = array_from(buf, n, "gram", 1);
    }
    if (kind == ISDB_POLICY_TRACEUCB) {
        c->traceucb.Sigma = array_from(buf, n, "Sigma", 0);
        c->traceucb.weights = array_from(buf, n, "weights", 1);
        c->traceucb.noise_var = array_from(buf, n, "noise_var", 2);
    }
#else
    (void)kind;
    (void)buf;
    (void)n;
    (void)c;
#endif
}

/* read_array's refusals: a field the policy does not have, a buffer too
   small (with the count), the count alone. */
static void read_array_codes(isdb_policy_kind kind, const unsigned char *buf, size_t n, const char *label) {
    size_t count = 7;
    isdb_real one;
    const char *field = kind == ISDB_POLICY_ISD ? "X0" : kind == ISDB_POLICY_OPKB ? "arms" : "weights";
    CHECK_RESULT(isdb_snapshot_read_array(buf, n, "lambda_x", &one, 1, &count), ISDB_ERR_INVALID_ARG);
    CHECK_MSG(count == 0, "%s: an unknown array has no count", label);
    if (kind != ISDB_POLICY_ISD && kind != ISDB_POLICY_OPKB && kind != ISDB_POLICY_TRACEUCB) return;
    CHECK_RESULT(isdb_snapshot_read_array(buf, n, field, NULL, 0, &count), ISDB_ERR_BUFFER_TOO_SMALL);
    CHECK_MSG(count > 1, "%s: read_array's count of %s", label, field);
    CHECK_RESULT(isdb_snapshot_read_array(buf, n, field, &one, 1, &count), ISDB_ERR_BUFFER_TOO_SMALL);
    CHECK_RESULT(isdb_snapshot_read_array(buf, n - 1, field, &one, 1, &count), ISDB_ERR_SNAPSHOT_TRUNCATED);
#if !ISDB_REAL_IS_FLOAT
    if (kind == ISDB_POLICY_ISD) {
        /* n_offline, the list's first field after the head and the
           generator (8 + 32 + 8 + 4 bytes past offset 48), forged to INT_MAX:
           the log's length would pass the stream's end */
        any_config c;
        memcpy(bad, buf, n);
        t_put_le(bad + 100, (uint64_t)INT_MAX, 8);
        fix_checksum(bad, n);
        CHECK_RESULT(isdb_snapshot_read_array(bad, n, "X0", arrays[0], MAX_ARRAY, &count), ISDB_ERR_SNAPSHOT_CORRUPT);
        CHECK_RESULT(isdb_isd_config_from_snapshot(bad, n, &c.isd), ISDB_ERR_SNAPSHOT_CORRUPT);
    }
#endif
}

static isdb_result init_from(isdb_policy_kind kind, const any_config *c, void *mem) {
    switch (kind) {
    case ISDB_POLICY_LINUCB: return isdb_linucb_init(&c->linucb, NULL, (isdb_linucb *)mem);
    case ISDB_POLICY_SWUCB: return isdb_swucb_init(&c->swucb, NULL, (isdb_swucb *)mem);
    case ISDB_POLICY_DLINUCB: return isdb_dlinucb_init(&c->dlinucb, NULL, (isdb_dlinucb *)mem);
    case ISDB_POLICY_LINTS: return isdb_lints_init(&c->lints, NULL, (isdb_lints *)mem);
    case ISDB_POLICY_BOB: return isdb_bob_init(&c->bob, NULL, (isdb_bob *)mem);
    case ISDB_POLICY_ADAPTIVE: return isdb_adaptive_init(&c->adaptive, NULL, (isdb_adaptive *)mem);
#if !ISDB_REAL_IS_FLOAT
    case ISDB_POLICY_ISD: return isdb_isd_init(&c->isd, NULL, (isdb_isd *)mem);
    case ISDB_POLICY_OPKB: return isdb_opkb_init(&c->opkb, NULL, (isdb_opkb *)mem);
    case ISDB_POLICY_OAM: return isdb_oam_init(&c->oam, NULL, (isdb_oam *)mem);
    case ISDB_POLICY_TRACEUCB: return isdb_traceucb_init(&c->traceucb, NULL, (isdb_traceucb *)mem);
#endif
    default: return ISDB_ERR_INVALID_ARG;
    }
}

/* One field changed, and the name a refused load must give it. */
static const char *change_field(isdb_policy_kind kind, any_config *c) {
    switch (kind) {
    case ISDB_POLICY_LINUCB: c->linucb.lambda *= 2; return "lambda";
    case ISDB_POLICY_SWUCB: c->swucb.window += 1; return "window";
    case ISDB_POLICY_DLINUCB: c->dlinucb.gamma = (isdb_real)0.5; return "gamma";
    case ISDB_POLICY_LINTS: c->lints.seed += 1; return "seed";
    case ISDB_POLICY_BOB: c->bob.T += 1; return "T";
    case ISDB_POLICY_ADAPTIVE: c->adaptive.max_memory += 1; return "max_memory";
#if !ISDB_REAL_IS_FLOAT
    case ISDB_POLICY_ISD: c->isd.monitor_level /= 2; return "monitor_level";
    case ISDB_POLICY_OPKB: c->opkb.sigma *= 2; return "sigma";
    case ISDB_POLICY_OAM: c->oam.zeta *= 2; return "zeta";
    case ISDB_POLICY_TRACEUCB: c->traceucb.alpha *= 2; return "alpha";
#endif
    default: return "";
    }
}

/* An input array changed (the copy of it the policy keeps differs), and
   its name; NULL where the policy has none. */
#if !ISDB_REAL_IS_FLOAT
static isdb_real other_array[ISD_N0 * 8];
#endif
static const char *change_array(isdb_policy_kind kind, any_config *c) {
#if !ISDB_REAL_IS_FLOAT
    if (kind == ISDB_POLICY_ISD && c->isd.X0) {
        memcpy(other_array, isd_X0, sizeof isd_X0);
        other_array[3] += 0.25;
        c->isd.X0 = other_array;
        return "X0";
    }
    if (kind == ISDB_POLICY_OPKB) {
        memcpy(other_array, opkb_arms_buf, sizeof opkb_arms_buf);
        other_array[1] += 0.25;
        c->opkb.arms = other_array;
        return "arms";
    }
    if (kind == ISDB_POLICY_TRACEUCB && !c->traceucb.weights) {
        int i;
        for (i = 0; i < c->traceucb.m; ++i) other_array[i] = 1 + (isdb_real)i;
        c->traceucb.weights = other_array;
        return "weights";
    }
#else
    (void)kind;
    (void)c;
#endif
    return NULL;
}

/* check_load on q: the code expected, q unchanged, and for a config
   refusal the field named. */
static void expect_check(isdb_policy *q, const unsigned char *buf, size_t n, isdb_result want, const char *field,
                         const char *label) {
    isdb_refusal why;
    size_t before = save(q, snap_a), after;
    isdb_result got = isdb_policy_check_load(q, buf, n, &why);
    CHECK_MSG(got == want, "%s: check_load gave %d (naming %s), expected %d", label, (int)got,
              why.field ? why.field : "nothing", (int)want);
    CHECK_MSG(isdb_policy_load(q, buf, n) == want || want == ISDB_OK, "%s: load disagrees with check_load", label);
    if (want != ISDB_OK) {
        after = save(q, snap_b);
        CHECK_MSG(after == before && memcmp(snap_a, snap_b, before) == 0, "%s: a refused load changed the policy", label);
    }
    if (field)
        CHECK_MSG(why.field && strcmp(why.field, field) == 0, "%s: check_load named %s, expected %s", label,
                  why.field ? why.field : "nothing", field);
}

static void test_case(const policy_case *pc) {
    isdb_policy *a = (isdb_policy *)&mem_a, *b = (isdb_policy *)&mem_b, *c = (isdb_policy *)&mem_c;
    isdb_rng rng, rng_b;
    isdb_snapshot_info info;
    any_config cfg, resolved_copy, other;
    const void *resolved;
    size_t n, na, nb, cfg_size;
    int t, same = 1;
    isdb_policy_kind kind;
    const char *field;
    isdb_rng_seed(&rng, 11);
    CHECK_OK(pc->make(NULL, pc->d, pc->max_arms, &mem_a));
    kind = a->vt->kind;
    for (t = 0; t < WARMUP; ++t) play_round(a, pc, &rng);
    n = save(a, snap);

    /* read_info */
    CHECK_OK(isdb_snapshot_read_info(snap, n, &info));
    CHECK_MSG(info.kind == kind && info.d == pc->d && info.max_arms == a->max_arms && info.seed == a->seed &&
                  info.t == WARMUP && info.format == 1 && info.real_bytes == (int)sizeof(isdb_real) &&
                  info.library_version == ((ISDB_VERSION_MAJOR << 16) | (ISDB_VERSION_MINOR << 8) | ISDB_VERSION_PATCH) &&
                  info.size == n,
              "%s: read_info", pc->label);
    CHECK_RESULT(isdb_snapshot_read_info(snap, n - 1, &info), ISDB_ERR_SNAPSHOT_TRUNCATED);
    CHECK_RESULT(isdb_snapshot_read_info(snap, 20, &info), ISDB_ERR_SNAPSHOT_TRUNCATED);
    CHECK_MSG(info.kind == 0 && info.size == 0, "%s: a refused read_info leaves info zeroed", pc->label);
    memcpy(bad, snap, n);
    bad[40] ^= 1;
    CHECK_RESULT(isdb_snapshot_read_info(bad, n, &info), ISDB_ERR_SNAPSHOT_CORRUPT);
    CHECK_RESULT(isdb_snapshot_read_info(NULL, n, &info), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_snapshot_read_info(snap, n, NULL), ISDB_ERR_INVALID_ARG);

    /* config_from_snapshot: the resolved config, arrays NULL */
    cfg_size = config_of(a, &resolved);
    CHECK_MSG(cfg_size > 0, "%s: a kind the test knows", pc->label);
    memset(&resolved_copy, 0, sizeof resolved_copy);
    memcpy(&resolved_copy, resolved, cfg_size);
    null_arrays(kind, &resolved_copy);
    memset(&cfg, 0xa5, sizeof cfg);
    CHECK_OK(from_snapshot(kind, snap, n, &cfg));
    CHECK_MSG(memcmp(&cfg, &resolved_copy, cfg_size) == 0, "%s: config_from_snapshot is not the saved config",
              pc->label);
    CHECK_RESULT(from_snapshot(kind == ISDB_POLICY_LINUCB ? ISDB_POLICY_SWUCB : ISDB_POLICY_LINUCB, snap, n, &other),
                 ISDB_ERR_SNAPSHOT_POLICY);
    CHECK_RESULT(from_snapshot(kind, snap, n - 1, &other), ISDB_ERR_SNAPSHOT_TRUNCATED);

    /* init with it and the snapshot's arrays, then load: the same run */
    give_arrays(kind, snap, n, &cfg);
    read_array_codes(kind, snap, n, pc->label);
    CHECK_OK(init_from(kind, &cfg, &mem_b));
    expect_check(b, snap, n, ISDB_OK, NULL, pc->label);
    CHECK_OK(isdb_policy_load(b, snap, n));
    rng_b = rng;
    for (t = 0; t < CONTINUE; ++t) same &= play_round(a, pc, &rng) == play_round(b, pc, &rng_b);
    CHECK_MSG(same, "%s: the restored policy chose other arms", pc->label);
    na = save(a, snap_a);
    nb = save(b, snap_b);
    CHECK_MSG(na == nb && memcmp(snap_a, snap_b, na) == 0, "%s: the restored policy did not continue bit for bit",
              pc->label);
    isdb_policy_uninit(b);

    /* check_load names the field that differs */
    other = cfg;
    field = change_field(kind, &other);
    if (init_from(kind, &other, &mem_c) == ISDB_OK) {
        char label[128];
        sprintf(label, "%s, %s changed", pc->label, field);
        expect_check(c, snap, n, ISDB_ERR_SNAPSHOT_CONFIG, field, label);
        isdb_policy_uninit(c);
    } else {
        CHECK_MSG(0, "%s: the changed config (%s) does not init", pc->label, field);
    }
    other = cfg;
    field = change_array(kind, &other);
    if (field) {
        CHECK_OK(init_from(kind, &other, &mem_c));
        expect_check(c, snap, n, ISDB_ERR_SNAPSHOT_CONFIG, field, pc->label);
        isdb_policy_uninit(c);
    }

    /* versions: before 1.0.0 refused, a later 1.x of format 1 taken,
       format 2 refused */
    CHECK_OK(init_from(kind, &cfg, &mem_b));
    memcpy(bad, snap, n);
    t_put_le(bad + 12, 0x000802u, 4); /* 0.8.2 */
    fix_checksum(bad, n);
    expect_check(b, bad, n, ISDB_ERR_SNAPSHOT_VERSION, "buf", pc->label);
    CHECK_RESULT(isdb_snapshot_read_info(bad, n, &info), ISDB_ERR_SNAPSHOT_VERSION);
    t_put_le(bad + 12, 0x010500u, 4); /* 1.5.0 */
    fix_checksum(bad, n);
    CHECK_OK(isdb_snapshot_read_info(bad, n, &info));
    CHECK_MSG(info.library_version == 0x010500u, "%s: read_info's library version", pc->label);
    expect_check(b, bad, n, ISDB_OK, NULL, pc->label);
    memcpy(bad, snap, n);
    t_put_le(bad + 4, 2, 4);
    fix_checksum(bad, n);
    expect_check(b, bad, n, ISDB_ERR_SNAPSHOT_VERSION, "buf", pc->label);
    isdb_policy_uninit(b);
    isdb_policy_uninit(a);
}

/* ---- The compatibility corpus ---- */

/* One folder per release, each with every row's snapshot in both
   precisions; the first is also the oldest state a release converts. */
static const char *const corpus_releases[] = {"tests/corpus/snapshots/1.0.0", "tests/corpus/snapshots/1.1.0",
                                              "tests/corpus/snapshots/1.2.0"};
#define N_RELEASES ((int)(sizeof corpus_releases / sizeof corpus_releases[0]))
#define CORPUS_ROUNDS 1000
static const char *const corpus_rows[] = {"linucb", "swucb", "dlinucb", "lints plain", "bob", "adaptive default",
#if !ISDB_REAL_IS_FLOAT
                                          "isd estimated", "opkb adaptive", "oam", "traceucb trace"
#endif
};
#define N_CORPUS ((int)(sizeof corpus_rows / sizeof corpus_rows[0]))
static char choices[CORPUS_ROUNDS + CORPUS_ROUNDS / 100 + 1];

static const policy_case *case_named(const char *label) {
    int i;
    for (i = 0; i < N_CASES; ++i)
        if (!strcmp(cases[i].label, label)) return &cases[i];
    return NULL;
}

static void corpus_path(char *path, const char *dir, const char *label, const char *ext) {
    char *c;
    sprintf(path, "%s/%s-%s.%s", dir, label, ISDB_REAL_IS_FLOAT ? "float" : "double", ext);
    for (c = path + strlen(dir); *c; ++c)
        if (*c == ' ') *c = '_';
}

/* CORPUS_ROUNDS rounds from the corpus's context generator: the arms, 100
   a line, into choices; 0 if a score was not finite. */
static int corpus_play(isdb_policy *p, const policy_case *pc) {
    isdb_rng rng;
    isdb_real scores[64];
    int t, k, n_arms, arm, finite = 1, d = pc->d;
    char *c = choices;
    isdb_rng_seed(&rng, 12);
    for (t = 0; t < CORPUS_ROUNDS; ++t) {
        case_round(&rng, pc, d, pc->max_arms, &n_arms, X);
        if (isdb_policy_scores(p, X, n_arms, scores) != ISDB_OK) finite = 0;
        for (k = 0; k < n_arms; ++k) finite &= scores[k] == scores[k] && scores[k] - scores[k] == 0;
        if (isdb_policy_select(p, X, n_arms, &arm) != ISDB_OK ||
            isdb_policy_update(p, arm, X + arm * d, X[arm * d] * (isdb_real)0.5 + (isdb_real)0.1) != ISDB_OK)
            finite = 0;
        *c++ = (char)('0' + arm % 10);
        if (t % 100 == 99) *c++ = '\n';
    }
    *c = 0;
    return finite;
}

static int write_corpus(const char *dir) {
    int i, t;
    for (i = 0; i < N_CORPUS; ++i) {
        const policy_case *pc = case_named(corpus_rows[i]);
        isdb_policy *a = (isdb_policy *)&mem_a;
        isdb_rng rng;
        char path[256], *c;
        FILE *f;
        size_t n;
        if (!pc || pc->make(NULL, pc->d, pc->max_arms, &mem_a) != ISDB_OK) return 1;
        isdb_rng_seed(&rng, 11);
        for (t = 0; t < WARMUP; ++t) play_round(a, pc, &rng);
        n = save(a, snap);
        corpus_play(a, pc);
        isdb_policy_uninit(a);
        corpus_path(path, dir, corpus_rows[i], "snap");
        if (!(f = fopen(path, "wb")) || fwrite(snap, 1, n, f) != n || fclose(f)) return 1;
        c = path + strlen(path) - 4;
        strcpy(c, "choices");
        if (!(f = fopen(path, "w")) || fputs(choices, f) < 0 || fclose(f)) return 1;
        printf("wrote %s and its .snap\n", path);
    }
    return 0;
}

static size_t read_file(const char *path, unsigned char *buf, size_t cap) {
    FILE *f = fopen(path, "rb");
    size_t n;
    if (!f) return 0;
    n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static void check_corpus(void) {
    int k;
    for (k = 0; k < N_RELEASES * N_CORPUS; ++k) {
        const int v = k / N_CORPUS, i = k % N_CORPUS;
        const policy_case *pc = case_named(corpus_rows[i]);
        isdb_policy *b = (isdb_policy *)&mem_b;
        isdb_snapshot_info info;
        any_config cfg;
        char path[256];
        size_t n, m;
        CHECK_MSG(pc != NULL, "corpus row %s is not in cases.h", corpus_rows[i]);
        if (!pc) continue;
        corpus_path(path, corpus_releases[v], corpus_rows[i], "snap");
        n = read_file(path, snap, CAP);
        CHECK_MSG(n > 0, "%s: missing or empty", path);
        corpus_path(path, corpus_releases[v], corpus_rows[i], "choices");
        m = read_file(path, bad, CAP - 1);
        CHECK_MSG(m > 0, "%s: missing or empty", path);
        if (!n || !m) continue;
        bad[m] = 0;
        CHECK_OK(isdb_snapshot_read_info(snap, n, &info));
        CHECK_OK(from_snapshot(info.kind, snap, n, &cfg));
        give_arrays(info.kind, snap, n, &cfg);
        CHECK_OK(init_from(info.kind, &cfg, &mem_b));
        CHECK_OK(isdb_policy_load(b, snap, n));
        CHECK_MSG(corpus_play(b, pc), "%s: a score was not finite after the corpus snapshot", path);
        CHECK_MSG(strcmp(choices, (const char *)bad) == 0, "%s: other choices than the corpus records", path);
        isdb_policy_uninit(b);
    }
}

/* A config field added after 1.0.0 (adaptive's memory_ratio, 1.1.0):
   1.0.0's adaptive snapshot of the corpus holds none and reads as 1.0.0's
   doubling memories (memory_ratio 2): config_from_snapshot gives 2 whatever
   the default; an object of another ratio refuses it naming the field and
   is left unchanged; one of ratio 2 loads it, plays the corpus's choices,
   and its own snapshot (this release's version, 1.1.0's four fields in
   it: 32 bytes more) continues with the same choices in a third object. A 1.1.0
   snapshot relabelled 1.0.0 is refused (the field is then read as the
   next one). A snapshot of another ratio loads only into that ratio. */
static void test_since_conversion(void) {
    isdb_adaptive *pa = (isdb_adaptive *)&mem_a, *pb = (isdb_adaptive *)&mem_b;
    isdb_snapshot_info info;
    isdb_adaptive_config cfg, other;
    char path[256], first[sizeof choices];
    size_t n, m, n11;
    int k;
    corpus_path(path, corpus_releases[0], "adaptive default", "snap");
    n = read_file(path, snap, CAP);
    corpus_path(path, corpus_releases[0], "adaptive default", "choices");
    m = read_file(path, bad, CAP - 1);
    CHECK_MSG(n > 0 && m > 0, "%s: the corpus is missing", path);
    if (!n || !m) return;
    bad[m] = 0;
    CHECK_OK(isdb_snapshot_read_info(snap, n, &info));
    CHECK_MSG(info.library_version == 0x10000u, "the corpus's adaptive snapshot is 1.0.0's (0x%x)",
              (unsigned)info.library_version);
    CHECK_OK(isdb_adaptive_config_from_snapshot(snap, n, &cfg));
    CHECK_MSG(cfg.memory_ratio == 2, "a 1.0.0 snapshot reads as memory_ratio 2, not %g", (double)cfg.memory_ratio);
    CHECK_MSG(cfg.kalman == 0, "a 1.0.0 snapshot reads as kalman 0, not %d", cfg.kalman);
    /* another ratio: refused, naming the field */
    other = cfg;
    other.memory_ratio = 3;
    CHECK_OK(isdb_adaptive_init(&other, NULL, pb));
    expect_check(&pb->base, snap, n, ISDB_ERR_SNAPSHOT_CONFIG, "memory_ratio", "1.0.0 adaptive into ratio 3");
    isdb_policy_uninit(&pb->base);
    /* ratio 2: converts, continues as recorded, and saves as this release */
    CHECK_OK(isdb_adaptive_init(&cfg, NULL, pa));
    CHECK(pa->n_est == 10);
    for (k = 0; k + 2 < pa->n_est; ++k) CHECK(pa->_est[k].memory == 16 << k);
    CHECK_OK(isdb_policy_load(&pa->base, snap, n));
    n11 = save(&pa->base, snap_b);
    /* 8 bytes a config field: memory_ratio, kalman, kalman_q, kalman_width */
    CHECK_MSG(n11 == n + 32, "the converted snapshot is %u bytes, the 1.0.0 one %u", (unsigned)n11, (unsigned)n);
    CHECK_OK(isdb_snapshot_read_info(snap_b, n11, &info));
    CHECK(info.library_version == ((ISDB_VERSION_MAJOR << 16) | (ISDB_VERSION_MINOR << 8) | ISDB_VERSION_PATCH));
    CHECK_OK(isdb_adaptive_config_from_snapshot(snap_b, n11, &other));
    CHECK(other.memory_ratio == 2);
    CHECK_MSG(corpus_play(&pa->base, case_named("adaptive default")), "a score was not finite after the conversion");
    CHECK_MSG(strcmp(choices, (const char *)bad) == 0, "the converted 1.0.0 snapshot made other choices");
    memcpy(first, choices, sizeof choices);
    isdb_policy_uninit(&pa->base);
    CHECK_OK(isdb_adaptive_init(&other, NULL, pb));
    CHECK_OK(isdb_policy_load(&pb->base, snap_b, n11));
    corpus_play(&pb->base, case_named("adaptive default"));
    CHECK_MSG(strcmp(choices, first) == 0, "the converted snapshot's own save continued otherwise");
    /* relabelled 1.0.0: the field is not skipped over */
    memcpy(bad, snap_b, n11);
    t_put_le(bad + 12, 0x10000u, 4);
    fix_checksum(bad, n11);
    CHECK_MSG(isdb_policy_check_load(&pb->base, bad, n11, NULL) < 0, "a 1.1.0 snapshot read as 1.0.0's loaded");
    isdb_policy_uninit(&pb->base);
    /* a snapshot of ratio 3 loads into ratio 3 only */
    other = cfg;
    other.memory_ratio = 3;
    CHECK_OK(isdb_adaptive_init(&other, NULL, pa));
    corpus_play(&pa->base, case_named("adaptive default"));
    n11 = save(&pa->base, snap_b);
    CHECK_OK(isdb_adaptive_config_from_snapshot(snap_b, n11, &cfg));
    CHECK(cfg.memory_ratio == 3);
    CHECK_OK(isdb_adaptive_init(&cfg, NULL, pb));
    expect_check(&pb->base, snap_b, n11, ISDB_OK, NULL, "ratio 3 into ratio 3");
    isdb_policy_uninit(&pb->base);
    cfg.memory_ratio = 2;
    CHECK_OK(isdb_adaptive_init(&cfg, NULL, pb));
    expect_check(&pb->base, snap_b, n11, ISDB_ERR_SNAPSHOT_CONFIG, "memory_ratio", "ratio 3 into ratio 2");
    isdb_policy_uninit(&pb->base);
    isdb_policy_uninit(&pa->base);
#if !ISDB_REAL_IS_FLOAT
    {
        /* ISD's fresh_inv_width and guard_level (1.2.0): 1.1.0's snapshot
           reads as 1 and 0, the width and level it played (check_corpus
           replays its choices) */
        isdb_isd_config icfg;
        corpus_path(path, corpus_releases[1], "isd estimated", "snap");
        n = read_file(path, snap, CAP);
        CHECK_MSG(n > 0, "%s: the corpus is missing", path);
        CHECK_OK(isdb_isd_config_from_snapshot(snap, n, &icfg));
        CHECK_MSG(icfg.fresh_inv_width == 1, "a 1.1.0 snapshot reads as fresh_inv_width %g", icfg.fresh_inv_width);
        CHECK_MSG(icfg.guard_level == 0, "a 1.1.0 snapshot reads as guard_level %g", icfg.guard_level);
        corpus_path(path, corpus_releases[2], "isd estimated", "snap");
        n = read_file(path, snap, CAP);
        CHECK_OK(isdb_isd_config_from_snapshot(snap, n, &icfg));
        CHECK(icfg.fresh_inv_width == 0.1 && icfg.guard_level == 1e-3);
    }
#endif
}

int main(int argc, char **argv) {
    int i;
    isdb_refusal why;
    if (argc == 3 && !strcmp(argv[1], "--write-corpus")) return write_corpus(argv[2]);
    check_corpus();
    test_since_conversion();
    for (i = 0; i < N_CASES; ++i) test_case(&cases[i]);
    /* check_load on no policy */
    CHECK_RESULT(isdb_policy_check_load(NULL, snap, 100, &why), ISDB_ERR_INVALID_ARG);
    CHECK_MSG(why.field && strcmp(why.field, "pol") == 0, "check_load names pol");
    return test_report();
}

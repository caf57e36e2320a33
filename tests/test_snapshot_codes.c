/* test_snapshot_codes.c - each way a snapshot fails to load has its own
   result, and counts no run reaches are refused.
   For every policy of tests/cases.h, played for a few rounds and saved:
   - truncated (one byte short, and shorter than a header):
     ISDB_ERR_SNAPSHOT_TRUNCATED;
   - one byte flipped in the body (checksum left as it was), or the magic
     broken: ISDB_ERR_SNAPSHOT_CORRUPT;
   - loaded into every policy of another kind: ISDB_ERR_SNAPSHOT_POLICY;
   - loaded into the same policy with its default config (tests/cases.h's
     make_pre) and into the other rows of the same kind:
     ISDB_ERR_SNAPSHOT_CONFIG;
   - the format version patched (to the other precision's, and to 2) and
     the checksum made right: ISDB_ERR_SNAPSHOT_VERSION;
   each refusal leaving the target byte-identical.
   Counts (issue 22 item 4): the update count t forged to 2^64 - 1 and to
   2^62 + 1 (with the checksum made right) is refused by every policy;
   LinUCB, whose state allows any t, loads t = 2^62, refuses the next
   update without a change (so t never wraps), as isdb_policy_check_update
   says beforehand (naming "pol"), and saves a snapshot that loads again. Per policy, counters forged beyond what t allows (adaptive's
   changes, ISD's alarms, demotions and monitor rows, OPKB's tests,
   restarts and last restart, OAM's decisions and solves) are refused.
   A counter's offset is found by setting it in the live policy to a
   marker, saving, and searching the marker (then restoring it).
   Builds in both precisions (double-only policies left out of float). */
#include "../isdbandit.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "cases.h"

#define CAP (1 << 20)
#define WARMUP 30
#define MARK64 0x5eedf00dcafe1234ull
#define MARK32 0x5eedf00du
/* Offset of t: after the header (24) and d, max_arms, seed (8 each). */
#define OFF_T 48u

static unsigned char snap[CAP], bad[CAP], before[CAP], after[CAP], probe_buf[CAP];
static storage mem_a, mem_b, mem_c;
static isdb_real X[64 * 16];

static size_t save(isdb_policy *p, unsigned char *buf) {
    size_t n = 0;
    CHECK_OK(isdb_policy_save(p, buf, CAP, &n));
    return n;
}

static void play(isdb_policy *p, const policy_case *pc, isdb_rng *rng, int rounds) {
    int t, n_arms, arm, d = pc->d;
    for (t = 0; t < rounds; ++t) {
        case_round(rng, pc, d, pc->max_arms, &n_arms, X);
        CHECK_OK(isdb_policy_select(p, X, n_arms, &arm));
        CHECK_OK(isdb_policy_update(p, arm, X + arm * d, X[arm * d] * (isdb_real)0.5 + (isdb_real)0.1));
    }
}

static void fix_checksum(unsigned char *s, size_t n) { t_put_le(s + n - 8, t_fnv1a(s, n - 8), 8); }

/* Loads `buf` (n bytes) into p: the result must be `want` and, unless it
   is ISDB_OK, p must be unchanged. */
static void expect_load(isdb_policy *p, const unsigned char *buf, size_t n, isdb_result want, const char *label,
                        const char *what) {
    size_t nb = save(p, before), na;
    isdb_result r = isdb_policy_load(p, buf, n);
    CHECK_MSG(r == want, "%s: %s: load returned %d (%s), want %d (%s)", label, what, (int)r, isdb_result_string(r),
              (int)want, isdb_result_string(want));
    if (want == ISDB_OK) return;
    na = save(p, after);
    CHECK_MSG(na == nb && memcmp(before, after, nb) == 0, "%s: refusing %s changed the state", label, what);
}

/* The snapshot (n bytes) with the `bytes`-byte integer at `at` set to v
   and the checksum made right, loaded into p. */
static void expect_forged(isdb_policy *p, size_t n, size_t at, uint64_t v, int bytes, isdb_result want,
                          const char *label, const char *what) {
    if (!at) return;
    memcpy(bad, snap, n);
    t_put_le(bad + at, v, bytes);
    fix_checksum(bad, n);
    expect_load(p, bad, n, want, label, what);
}

/* Where the snapshot of p keeps the 8-byte (or 4-byte) counter *field:
   set it to a marker, save, find the marker (exactly once), restore. */
static size_t find_u64(isdb_policy *p, uint64_t *field, const char *label) {
    uint64_t old = *field;
    size_t n, at, found = 0, hits = 0;
    *field = MARK64;
    n = save(p, probe_buf);
    *field = old;
    for (at = 24; at + 16 <= n; ++at)
        if (t_get_le(probe_buf + at, 8) == MARK64) {
            found = at;
            ++hits;
        }
    CHECK_MSG(hits == 1, "%s: counter found %d times", label, (int)hits);
    return hits == 1 ? found : 0;
}

#if !ISDB_REAL_IS_FLOAT /* only OPKB's epoch */
static size_t find_int(isdb_policy *p, int *field, const char *label) {
    int old = *field;
    size_t n, at, found = 0, hits = 0;
    *field = (int)(MARK32 & 0x7fffffffu);
    n = save(p, probe_buf);
    *field = old;
    for (at = 24; at + 12 <= n; ++at)
        if (t_get_le(probe_buf + at, 4) == (MARK32 & 0x7fffffffu)) {
            found = at;
            ++hits;
        }
    CHECK_MSG(hits == 1, "%s: int found %d times", label, (int)hits);
    return hits == 1 ? found : 0;
}
#endif

/* ---- the five failures --------------------------------------------------------- */

static void five_codes(const policy_case *pc, isdb_policy *a, size_t n) {
    isdb_policy *b = (isdb_policy *)&mem_b, *c = (isdb_policy *)&mem_c;
    const char *label = pc->label;
    uint64_t version = t_get_le(snap + 4, 4);
    void *heap;
    size_t bytes = 0;
    int k;
    CHECK_OK(pc->make(NULL, pc->d, pc->max_arms, &mem_b));
    /* Truncated. */
    expect_load(b, snap, n - 1, ISDB_ERR_SNAPSHOT_TRUNCATED, label, "a snapshot one byte short");
    expect_load(b, snap, n / 2, ISDB_ERR_SNAPSHOT_TRUNCATED, label, "half a snapshot");
    expect_load(b, snap, 31, ISDB_ERR_SNAPSHOT_TRUNCATED, label, "less than a header");
    expect_load(b, snap, 0, ISDB_ERR_SNAPSHOT_TRUNCATED, label, "no bytes");
    /* Corrupt. */
    memcpy(bad, snap, n);
    bad[24 + (n - 32) / 2] ^= 0x40;
    expect_load(b, bad, n, ISDB_ERR_SNAPSHOT_CORRUPT, label, "a flipped body byte");
    memcpy(bad, snap, n);
    bad[n - 1] ^= 1;
    expect_load(b, bad, n, ISDB_ERR_SNAPSHOT_CORRUPT, label, "a flipped checksum byte");
    memcpy(bad, snap, n);
    bad[1] = 'X';
    expect_load(b, bad, n, ISDB_ERR_SNAPSHOT_CORRUPT, label, "a broken magic");
    memcpy(bad, snap, n);
    bad[n] = 0;
    t_put_le(bad + n - 8 + 1, t_fnv1a(bad, n - 8 + 1), 8);
    expect_load(b, bad, n + 1, ISDB_ERR_SNAPSHOT_CORRUPT, label, "a snapshot longer than it says");
    /* Another version: the other precision's, and a later one. */
    memcpy(bad, snap, n);
    t_put_le(bad + 4, version ^ 0x10000u, 4);
    fix_checksum(bad, n);
    expect_load(b, bad, n, ISDB_ERR_SNAPSHOT_VERSION, label, "the other precision's version");
    t_put_le(bad + 4, 2, 4);
    fix_checksum(bad, n);
    expect_load(b, bad, n, ISDB_ERR_SNAPSHOT_VERSION, label, "version 2");
    /* The version is read before the stated size. */
    expect_load(b, bad, n - 1, ISDB_ERR_SNAPSHOT_VERSION, label, "a truncated snapshot of version 2");
    /* Another policy, another config. */
    for (k = 0; k < N_CASES; ++k) {
        int same;
        if (&cases[k] == pc) continue;
        CHECK_OK(cases[k].make(NULL, cases[k].d, cases[k].max_arms, &mem_c));
        same = strcmp(isdb_policy_name(c), isdb_policy_name(a)) == 0;
        expect_load(c, snap, n, same ? ISDB_ERR_SNAPSHOT_CONFIG : ISDB_ERR_SNAPSHOT_POLICY, cases[k].label,
                    same ? "a snapshot of the same policy with another config" : "a snapshot of another policy");
        isdb_policy_uninit(c);
    }
    CHECK_OK(pc->make_pre(pc->d, pc->max_arms, NULL, &bytes, &mem_c));
    heap = malloc(bytes);
    CHECK(heap != NULL);
    if (heap) {
        CHECK_OK(pc->make_pre(pc->d, pc->max_arms, heap, &bytes, &mem_c));
        expect_load(c, snap, n, ISDB_ERR_SNAPSHOT_CONFIG, label, "a snapshot into the default config");
        isdb_policy_uninit(c);
        free(heap);
    }
    /* And the snapshot itself loads. */
    expect_load(b, snap, n, ISDB_OK, label, "the snapshot");
    isdb_policy_uninit(b);
}

/* ---- counts -------------------------------------------------------------------- */

static void forged_counts(const policy_case *pc, isdb_policy *a, size_t n) {
    isdb_policy *b = (isdb_policy *)&mem_b;
    const char *label = pc->label, *name = isdb_policy_name(a);
    uint64_t t = a->t;
    CHECK_OK(pc->make(NULL, pc->d, pc->max_arms, &mem_b));
    CHECK(t_get_le(snap + OFF_T, 8) == t);
    expect_forged(b, n, OFF_T, ~(uint64_t)0, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label, "t = 2^64 - 1");
    expect_forged(b, n, OFF_T, ((uint64_t)1 << 62) + 1, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label, "t = 2^62 + 1");
    expect_forged(b, n, OFF_T, (uint64_t)1 << 63, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label, "t = 2^63");
    if (!strcmp(name, "adaptive")) {
        isdb_adaptive *p = (isdb_adaptive *)a;
        size_t at = find_u64(a, &p->changes, label);
        expect_forged(b, n, at, t + 1, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label, "more changes than updates");
        expect_forged(b, n, at, ~(uint64_t)0, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label, "2^64 - 1 changes");
        expect_forged(b, n, at, t, 8, ISDB_OK, label, "as many changes as updates");
    }
    if (!strcmp(name, "swucb")) {
        isdb_swucb *p = (isdb_swucb *)a;
        size_t at = find_u64(a, &p->rebuilds, label);
        expect_forged(b, n, at, t + 1, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label, "more rebuilds than updates");
    }
#if !ISDB_REAL_IS_FLOAT
    if (!strcmp(name, "isd")) {
        isdb_isd *p = (isdb_isd *)a;
        size_t alarms = find_u64(a, &p->alarms, label), demotions = find_u64(a, &p->demotions, label);
        size_t mon = find_u64(a, &p->mon_count, label), rec = find_u64(a, &p->recomputes, label);
        CHECK(p->demotions <= p->alarms && p->alarms <= t);
        expect_forged(b, n, alarms, t + 1, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label, "more alarms than updates");
        expect_forged(b, n, demotions, p->alarms + 1, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label,
                      "more demotions than alarms");
        expect_forged(b, n, mon, t + 1, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label, "more monitor rows than updates");
        expect_forged(b, n, rec, ((uint64_t)1 << 62) + 1, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label,
                      "2^62 + 1 recomputes");
        expect_forged(b, n, rec, 1000000, 8, ISDB_OK, label, "a million recomputes (isdb_isd_recompute)");
    }
    if (!strcmp(name, "opkb")) {
        isdb_opkb *p = (isdb_opkb *)a;
        size_t tests = find_u64(a, &p->tests, label), last = find_u64(a, &p->last_restart, label);
        size_t epoch = find_int(a, &p->epoch, label);
        expect_forged(b, n, tests, ~(uint64_t)0, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label, "2^64 - 1 tests");
        expect_forged(b, n, tests, (t + 1) * 65, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label,
                      "more tests than an update can run");
        expect_forged(b, n, last, t + 1, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label, "a restart after now");
        expect_forged(b, n, epoch, 0x7fffffff, 4, ISDB_ERR_SNAPSHOT_CORRUPT, label, "INT_MAX epochs");
        if (p->epoch == 1) {
            expect_forged(b, n, epoch, 2, 4, ISDB_ERR_SNAPSHOT_CORRUPT, label, "a restart with no restart time");
        }
    }
    if (!strcmp(name, "oam")) {
        isdb_oam *p = (isdb_oam *)a;
        size_t init = find_u64(a, &p->counts.init, label), solves = find_u64(a, &p->counts.solves, label);
        uint64_t decisions = p->counts.init + p->counts.exploit + p->counts.track + p->counts.forced + p->counts.wasted;
        expect_forged(b, n, init, ~(uint64_t)0, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label, "2^64 - 1 initial pulls");
        expect_forged(b, n, init, ((uint64_t)1 << 62) + 1, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label,
                      "2^62 + 1 initial pulls");
        expect_forged(b, n, solves, decisions + 1, 8, ISDB_ERR_SNAPSHOT_CORRUPT, label,
                      "more solves than selects");
        expect_forged(b, n, solves, decisions, 8, ISDB_OK, label, "a solve every select");
    }
#endif
    isdb_policy_uninit(b);
}

/* LinUCB's state holds for any t: t = 2^62 loads, the next update is
   refused without a change (check_update refuses it too), and the state
   saves and loads again. */
static void linucb_at_the_cap(void) {
    isdb_policy *a = (isdb_policy *)&mem_a, *b = (isdb_policy *)&mem_b;
    isdb_rng rng;
    isdb_real x[4] = {1, 0, 0, 0};
    isdb_refusal why;
    size_t n, nb, na;
    isdb_rng_seed(&rng, 5);
    CHECK_OK(make_linucb(NULL, 4, 6, &mem_a));
    CHECK_OK(make_linucb(NULL, 4, 6, &mem_b));
    play(a, &cases[0], &rng, 10);
    n = save(a, snap);
    expect_forged(b, n, OFF_T, (uint64_t)1 << 62, 8, ISDB_OK, "linucb", "t = 2^62");
    CHECK(b->t == (uint64_t)1 << 62);
    nb = save(b, before);
    /* check_update agrees with update, naming the policy; bad arguments
       are still named first. */
    memset(&why, 0, sizeof why);
    CHECK_RESULT(isdb_policy_check_update(b, 0, x, 1, &why), ISDB_ERR_BAD_STATE);
    CHECK(why.field && strcmp(why.field, "pol") == 0 && why.range && strcmp(why.range, "t < 2^62") == 0);
    CHECK_RESULT(isdb_policy_check_update(b, 0, x, 1, NULL), ISDB_ERR_BAD_STATE);
    CHECK_RESULT(isdb_policy_check_update(b, 6, x, 1, &why), ISDB_ERR_INVALID_ARG);
    CHECK(why.field && strcmp(why.field, "arm") == 0);
    CHECK_RESULT(isdb_policy_update(b, 6, x, 1), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_check_update(b, 0, x, T_NAN, &why), ISDB_ERR_NONFINITE);
    CHECK(why.field && strcmp(why.field, "reward") == 0);
    CHECK_RESULT(isdb_policy_update(b, 0, x, 1), ISDB_ERR_BAD_STATE);
    na = save(b, after);
    CHECK(na == nb && memcmp(before, after, nb) == 0);
    CHECK_OK(isdb_policy_load(a, after, na));
    CHECK(a->t == (uint64_t)1 << 62);
    isdb_policy_uninit(a);
    isdb_policy_uninit(b);
}

static void test_case(const policy_case *pc) {
    isdb_policy *a = (isdb_policy *)&mem_a;
    isdb_rng rng;
    size_t n;
    CHECK_OK(pc->make(NULL, pc->d, pc->max_arms, &mem_a));
    isdb_rng_seed(&rng, 23);
    play(a, pc, &rng, WARMUP);
    n = save(a, snap);
    five_codes(pc, a, n);
    forged_counts(pc, a, n);
    isdb_policy_uninit(a);
}

int main(void) {
    int i;
    for (i = 0; i < N_CASES; ++i) test_case(&cases[i]);
    linucb_at_the_cap();
    return test_report();
}

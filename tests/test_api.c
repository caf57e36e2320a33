/* The contract every policy keeps (the header's CONVENTIONS and THE POLICY
   INTERFACE, at the top of isdbandit.h), checked on each entry of `cases`
   below. Add a row when you add a policy.
   - bad input (NaN, Inf, out-of-range numbers, wrong arm, NULL pointers,
     n_arms <= 0 or above max_arms) returns an error and leaves the state
     byte-identical (saved snapshots compared before and after);
   - scores and probs change nothing; probs sums to 1;
   - save, load and continue equals the uninterrupted run bit for bit;
     truncated, bit-flipped, wrong-version, wrong-kind and wrong-config
     snapshots are rejected and change nothing;
   - reset gives back the state right after init;
   - select, update, scores, probs, save and load never allocate;
   - an allocator failing at each allocation in turn gives
     ISDB_ERR_OUT_OF_MEMORY and leaks nothing;
   - init_preallocated works on a caller buffer of heap_size bytes, refuses
     a misaligned one, and uninit leaves the buffer to the caller.
   Policies flagged ISDB_POLICY_X_OPTIONAL may take X (and x) as NULL;
   a case's `round` supplies its arms when random rows do not fit. */
#include "../isdbandit.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* ---- allocators ----------------------------------------------------------- */

typedef struct counting {
    long allocs, frees, live, fail_at; /* fail_at: the allocation number that fails (0: none) */
} counting;

static void *counting_alloc(size_t n, void *user) {
    counting *c = (counting *)user;
    c->allocs++;
    if (c->fail_at && c->allocs == c->fail_at) return NULL;
    c->live++;
    return malloc(n);
}

static void counting_free(void *p, void *user) {
    counting *c = (counting *)user;
    if (!p) return;
    c->frees++;
    c->live--;
    free(p);
}

#include "cases.h"

/* ---- helpers ---------------------------------------------------------------- */

static unsigned char snap_a[1 << 16], snap_b[1 << 16];

static size_t snapshot(isdb_policy *p, unsigned char *buf) {
    size_t n = 0;
    CHECK_OK(isdb_policy_save(p, buf, 1 << 16, &n));
    return n;
}

static int same_state(isdb_policy *p, const unsigned char *before, size_t n_before) {
    size_t n = snapshot(p, snap_b);
    return n == n_before && memcmp(snap_b, before, n) == 0;
}

static int x_optional(const isdb_policy *p) { return (p->vt->flags & ISDB_POLICY_X_OPTIONAL) != 0; }

/* One select + update on a fresh round; returns the arm. */
static int step(isdb_policy *p, const policy_case *pc, isdb_rng *rng, isdb_real *X) {
    int n_arms, arm = -1;
    case_round(rng, pc, pc->d, pc->max_arms, &n_arms, X);
    CHECK_OK(isdb_policy_select(p, X, n_arms, &arm));
    if (arm < 0 || arm >= n_arms) {
        CHECK(0);
        return 0;
    }
    CHECK_OK(isdb_policy_update(p, arm, X + arm * pc->d, X[arm * pc->d] + 0.1 * isdb_rng_normal(rng)));
    return arm;
}

/* ---- the checks -------------------------------------------------------------- */

static void check_bad_input(const policy_case *pc) {
    static storage mem;
    isdb_policy *p = (isdb_policy *)&mem;
    isdb_real X[64 * 8], out[64], x[64];
    size_t n;
    int t, arm, i, d = pc->d, K = pc->max_arms;
    static const isdb_real bad[3] = {T_NAN, T_INF, T_BEYOND};
    static const isdb_result why[3] = {ISDB_ERR_NONFINITE, ISDB_ERR_NONFINITE, ISDB_ERR_RANGE};
    isdb_rng rng;
    isdb_rng_seed(&rng, 1);
    memset(&mem, 0xA5, sizeof mem); /* init must not trust what was there */
    CHECK_OK(pc->make(NULL, d, K, &mem));
    for (t = 0; t < 15; ++t) step(p, pc, &rng, X);
    case_round(&rng, pc, pc->d, pc->max_arms, &i, X);
    CHECK(i == K || !pc->round); /* the checks below offer all K arms */
    if (!pc->round)
        for (i = 0; i < K * d; ++i) X[i] = isdb_rng_normal(&rng);
    for (i = 0; i < d; ++i) x[i] = X[i];
    n = snapshot(p, snap_a);
    for (i = 0; i < 3; ++i) {
        isdb_real keep = X[d + 1 < K * d ? d + 1 : 0];
        X[d + 1 < K * d ? d + 1 : 0] = bad[i];
        CHECK_RESULT(isdb_policy_select(p, X, K, &arm), why[i]);
        CHECK_RESULT(isdb_policy_scores(p, X, K, out), why[i]);
        CHECK_RESULT(isdb_policy_probs(p, X, K, out), why[i]);
        X[d + 1 < K * d ? d + 1 : 0] = keep;
        x[d - 1] = bad[i];
        CHECK_RESULT(isdb_policy_update(p, 0, x, 1.0), why[i]);
        x[d - 1] = X[d - 1];
        CHECK_RESULT(isdb_policy_update(p, 0, x, bad[i]), why[i]);
        CHECK_RESULT(isdb_policy_update(p, 0, x, -bad[i]), why[i]);
    }
    CHECK_RESULT(isdb_policy_update(p, -1, x, 1.0), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_update(p, K, x, 1.0), ISDB_ERR_INVALID_ARG);
    if (!x_optional(p)) CHECK_RESULT(isdb_policy_update(p, 0, NULL, 1.0), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_update(NULL, 0, x, 1.0), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_select(p, X, 0, &arm), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_select(p, X, -3, &arm), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_select(p, X, K + 1, &arm), ISDB_ERR_INVALID_ARG);
    if (!x_optional(p)) CHECK_RESULT(isdb_policy_select(p, NULL, K, &arm), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_select(p, X, K, NULL), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_select(NULL, X, K, &arm), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_scores(p, X, K, NULL), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_probs(p, X, 0, out), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_probs(NULL, X, K, out), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_save(NULL, snap_b, sizeof snap_b, &n), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_save(p, snap_b, sizeof snap_b, NULL), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_load(p, NULL, n), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_load(NULL, snap_a, n), ISDB_ERR_INVALID_ARG);
    CHECK_MSG(same_state(p, snap_a, n), "%s: bad input changed the state", pc->label);
    /* Valid scores and probs change nothing either; probs is a distribution. */
    CHECK_OK(isdb_policy_scores(p, X, K, out));
    CHECK(t_all_finite(out, K));
    CHECK_OK(isdb_policy_probs(p, X, K, out));
    {
        isdb_real sum = 0.0;
        for (i = 0; i < K; ++i) {
            CHECK(out[i] >= 0.0 && out[i] <= 1.0);
            sum += out[i];
        }
        CHECK_NEAR(sum, 1.0, T_TOL(1e-12));
    }
    CHECK_MSG(same_state(p, snap_a, n), "%s: scores or probs changed the state", pc->label);
    /* Bad sizes at init. */
    isdb_policy_uninit(p);
    CHECK_RESULT(pc->make(NULL, 0, K, &mem), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(pc->make(NULL, ISDB_MAX_DIM + 1, K, &mem), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(pc->make(NULL, d, 0, &mem), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(pc->make(NULL, d, -1, &mem), ISDB_ERR_INVALID_ARG);
    /* A used-up object (and one whose init was refused) refuses politely. */
    CHECK_RESULT(isdb_policy_select(p, X, K, &arm), ISDB_ERR_BAD_STATE);
    isdb_policy_uninit(p);
    isdb_policy_uninit(NULL);
}

static void check_save_load(const policy_case *pc) {
    static storage mem_a, mem_b, mem_c;
    static unsigned char saved[1 << 16], bad[1 << 16];
    isdb_policy *a = (isdb_policy *)&mem_a, *b = (isdb_policy *)&mem_b, *c = (isdb_policy *)&mem_c;
    isdb_real X[64 * 8];
    int arms_a[60], arms_b[60], t, same_arms = 1;
    size_t n = 0, n_small = 0, na, nb;
    isdb_rng rng, rng_copy;
    isdb_rng_seed(&rng, 2);
    CHECK_OK(pc->make(NULL, pc->d, pc->max_arms, &mem_a));
    CHECK_OK(pc->make(NULL, pc->d, pc->max_arms, &mem_b));
    for (t = 0; t < 40; ++t) step(a, pc, &rng, X);
    CHECK_OK(isdb_policy_save(a, NULL, 0, &n));
    CHECK_RESULT(isdb_policy_save(a, saved, n - 1, &n_small), ISDB_ERR_BUFFER_TOO_SMALL);
    CHECK(n_small == n);
    CHECK_OK(isdb_policy_save(a, saved, sizeof saved, &n));
    rng_copy = rng;
    for (t = 0; t < 60; ++t) arms_a[t] = step(a, pc, &rng, X);
    CHECK_OK(isdb_policy_load(b, saved, n));
    for (t = 0; t < 60; ++t) arms_b[t] = step(b, pc, &rng_copy, X);
    for (t = 0; t < 60; ++t)
        if (arms_a[t] != arms_b[t]) same_arms = 0;
    CHECK_MSG(same_arms, "%s: the resumed run chose differently", pc->label);
    na = snapshot(a, snap_a);
    nb = snapshot(b, snap_b);
    CHECK_MSG(na == nb && memcmp(snap_a, snap_b, na) == 0, "%s: the resumed run ended in another state", pc->label);
    /* Rejected snapshots leave b as it is. */
    memcpy(bad, saved, n);
    CHECK_RESULT(isdb_policy_load(b, bad, n - 1), ISDB_ERR_SNAPSHOT_TRUNCATED);
    CHECK_RESULT(isdb_policy_load(b, bad, 10), ISDB_ERR_SNAPSHOT_TRUNCATED);
    bad[n / 2] ^= 0x10;
    CHECK_RESULT(isdb_policy_load(b, bad, n), ISDB_ERR_SNAPSHOT_CORRUPT);
    bad[n / 2] ^= 0x10;
    /* One flipped bit anywhere: every header and checksum byte, and 200
       positions spread over the body. A flip in the format version is
       another version; in the stated size, a truncation if it states more
       bytes than there are; anywhere else the magic or the checksum fails. */
    {
        size_t k, i;
        int all_rejected = 1;
        isdb_result want;
        for (k = 0; k < 32 + 8 + 200; ++k) {
            i = k < 32 ? k : k < 40 ? n - 8 + (k - 32) : 32 + (k - 40) * (n - 40) / 200;
            bad[i] ^= (unsigned char)(1u << (k % 8));
            want = ISDB_ERR_SNAPSHOT_CORRUPT;
            if (i >= 4 && i < 8) want = ISDB_ERR_SNAPSHOT_VERSION;
            if (i >= 16 && i < 24 && t_get_le(bad + 16, 8) > (uint64_t)n) want = ISDB_ERR_SNAPSHOT_TRUNCATED;
            if (isdb_policy_load(b, bad, n) != want) all_rejected = 0;
            bad[i] ^= (unsigned char)(1u << (k % 8));
        }
        CHECK_MSG(all_rejected, "%s: a snapshot with one flipped bit loaded", pc->label);
    }
    bad[4] = 2; /* format version */
    CHECK_RESULT(isdb_policy_load(b, bad, n), ISDB_ERR_SNAPSHOT_VERSION);
    bad[4] = saved[4];
    bad[0] = 'X';
    CHECK_RESULT(isdb_policy_load(b, bad, n), ISDB_ERR_SNAPSHOT_CORRUPT);
    CHECK(same_state(b, snap_b, nb));
    /* Every other row: another kind, or the same kind with another config. */
    for (t = 0; t < N_CASES; ++t) {
        if (&cases[t] == pc) continue;
        CHECK_OK(cases[t].make(NULL, cases[t].d, cases[t].max_arms, &mem_c));
        CHECK_MSG(isdb_policy_load(c, saved, n) == (strcmp(isdb_policy_name(c), isdb_policy_name(a)) == 0
                                                         ? ISDB_ERR_SNAPSHOT_CONFIG
                                                         : ISDB_ERR_SNAPSHOT_POLICY),
                  "%s: a snapshot of %s not refused as another policy's or config's", cases[t].label, pc->label);
        isdb_policy_uninit(c);
    }
    CHECK_OK(pc->make(NULL, pc->d + 1, pc->max_arms, &mem_c));
    CHECK_RESULT(isdb_policy_load(c, saved, n), ISDB_ERR_SNAPSHOT_CONFIG);
    isdb_policy_uninit(c);
    CHECK(same_state(b, snap_b, nb));
    isdb_policy_uninit(a);
    isdb_policy_uninit(b);
}

static void check_reset(const policy_case *pc) {
    static storage mem;
    isdb_policy *p = (isdb_policy *)&mem;
    isdb_real X[64 * 8];
    size_t n;
    int t;
    isdb_rng rng;
    isdb_rng_seed(&rng, 3);
    CHECK_OK(pc->make(NULL, pc->d, pc->max_arms, &mem));
    n = snapshot(p, snap_a);
    for (t = 0; t < 25; ++t) step(p, pc, &rng, X);
    CHECK(p->t == 25);
    isdb_policy_reset(p);
    CHECK(p->t == 0);
    CHECK_MSG(same_state(p, snap_a, n), "%s: reset is not the state after init", pc->label);
    isdb_policy_uninit(p);
}

static void check_allocation(const policy_case *pc) {
    static storage mem;
    isdb_policy *p = (isdb_policy *)&mem;
    counting count;
    isdb_allocator alloc;
    isdb_real X[64 * 8], out[64];
    size_t n;
    long after_init, k;
    int t, n_arms, arm;
    isdb_rng rng;
    isdb_rng_seed(&rng, 4);
    memset(&count, 0, sizeof count);
    alloc.alloc_fn = counting_alloc;
    alloc.free_fn = counting_free;
    alloc.user = &count;
    CHECK_OK(pc->make(&alloc, pc->d, pc->max_arms, &mem));
    after_init = count.allocs;
    CHECK(after_init >= 1);
    for (t = 0; t < 50; ++t) {
        case_round(&rng, pc, pc->d, pc->max_arms, &n_arms, X);
        CHECK_OK(isdb_policy_scores(p, X, n_arms, out));
        CHECK_OK(isdb_policy_probs(p, X, n_arms, out));
        CHECK_OK(isdb_policy_select(p, X, n_arms, &arm));
        CHECK_OK(isdb_policy_update(p, arm, X + arm * pc->d, 0.5));
    }
    n = snapshot(p, snap_a);
    CHECK_OK(isdb_policy_load(p, snap_a, n));
    isdb_policy_reset(p);
    CHECK_MSG(count.allocs == after_init, "%s: %ld allocations after init", pc->label, count.allocs - after_init);
    isdb_policy_uninit(p);
    CHECK(count.live == 0 && count.frees == count.allocs);
    /* Fail each allocation in turn until init succeeds. */
    for (k = 1; k <= after_init + 1; ++k) {
        isdb_result r;
        memset(&count, 0, sizeof count);
        count.fail_at = k;
        r = pc->make(&alloc, pc->d, pc->max_arms, &mem);
        if (k <= after_init) {
            CHECK_RESULT(r, ISDB_ERR_OUT_OF_MEMORY);
            CHECK_MSG(count.live == 0, "%s: %ld blocks leaked when allocation %ld failed", pc->label, count.live, k);
        } else {
            CHECK_OK(r);
            isdb_policy_uninit(p);
            CHECK(count.live == 0);
        }
    }
    /* A half-given allocator is refused. */
    alloc.free_fn = NULL;
    CHECK_RESULT(pc->make(&alloc, pc->d, pc->max_arms, &mem), ISDB_ERR_INVALID_ARG);
}

static void check_preallocated(const policy_case *pc) {
    static storage mem;
    isdb_policy *p = (isdb_policy *)&mem;
    isdb_real X[64 * 8];
    size_t bytes = 0;
    unsigned char *heap;
    int t;
    isdb_rng rng;
    isdb_rng_seed(&rng, 5);
    CHECK_OK(pc->make_pre(pc->d, pc->max_arms, NULL, &bytes, &mem));
    CHECK(bytes > 0);
    heap = (unsigned char *)malloc(bytes + 8);
    if (!heap) return;
    CHECK_RESULT(pc->make_pre(pc->d, pc->max_arms, heap + 1, &bytes, &mem), ISDB_ERR_INVALID_ARG);
    CHECK_OK(pc->make_pre(pc->d, pc->max_arms, heap, &bytes, &mem));
    CHECK(p->_owns_heap == 0 && p->_heap == heap);
    for (t = 0; t < 30; ++t) step(p, pc, &rng, X);
    isdb_policy_uninit(p); /* must not free the caller's buffer */
    free(heap);
}

int main(void) {
    int i;
    for (i = 0; i < N_CASES; ++i) {
        check_bad_input(&cases[i]);
        check_save_load(&cases[i]);
        check_reset(&cases[i]);
        check_allocation(&cases[i]);
        check_preallocated(&cases[i]);
    }
    return test_report();
}

/* fuzz.h - what the fuzz targets share (`make fuzz`, clang's
   libFuzzer; tests/fuzz_replay.c replays the corpus without it):
   - a counting allocator that refuses blocks above FUZZ_HEAP_LIMIT (so a
     huge but valid size ends in ISDB_ERR_OUT_OF_MEMORY instead of the
     fuzzer's own memory limit) and lets the targets assert that nothing
     allocates after init and nothing leaks;
   - snapshot helpers: the state of a policy as bytes, to assert that a
     refused call left it exactly as it was.
   - the policies of tests/cases.h made on that allocator and warmed up,
     with their snapshots as the baseline the snapshot targets edit.
   A broken invariant calls fuzz_fail, which aborts: libFuzzer keeps the
   input that did it. Include after isdbandit.h and tests/cases.h. */
#ifndef ISDB_FUZZ_H
#define ISDB_FUZZ_H

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_HEAP_LIMIT ((size_t)64 << 20)

static void fuzz_fail(const char *what, const char *policy) {
    fprintf(stderr, "fuzz: %s (%s)\n", what, policy);
    abort();
}

/* ---- the allocator ---- */

typedef struct fuzz_heap {
    long allocs, live;
} fuzz_heap;

static void *fuzz_alloc(size_t n, void *user) {
    fuzz_heap *h = (fuzz_heap *)user;
    void *p;
    h->allocs++;
    if (n > FUZZ_HEAP_LIMIT) return NULL;
    p = malloc(n);
    if (p) h->live++;
    return p;
}

static void fuzz_free(void *p, void *user) {
    fuzz_heap *h = (fuzz_heap *)user;
    if (!p) return;
    h->live--;
    free(p);
}

/* ---- snapshots ---- */

typedef struct fuzz_snap {
    unsigned char *bytes;
    size_t size, cap;
} fuzz_snap;

/* The policy's state into s (grown as needed). */
static void fuzz_save(isdb_policy *p, fuzz_snap *s, const char *policy) {
    size_t need = 0;
    if (isdb_policy_save(p, NULL, 0, &need) != ISDB_OK || need == 0) fuzz_fail("save gave no size", policy);
    if (need > s->cap) {
        free(s->bytes);
        s->bytes = (unsigned char *)malloc(need);
        if (!s->bytes) fuzz_fail("harness out of memory", policy);
        s->cap = need;
    }
    if (isdb_policy_save(p, s->bytes, s->cap, &s->size) != ISDB_OK || s->size != need)
        fuzz_fail("save failed or changed size", policy);
}

static int fuzz_same(const fuzz_snap *a, const fuzz_snap *b) {
    return a->size == b->size && memcmp(a->bytes, b->bytes, a->size) == 0;
}

/* The snapshot format's checksum (FNV-1a 64, documented in the header). */
static uint64_t fuzz_fnv1a(const unsigned char *b, size_t n) {
    uint64_t h = 14695981039346656037ULL;
    size_t i;
    for (i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

static void fuzz_put_le(unsigned char *b, uint64_t v, int bytes) {
    int i;
    for (i = 0; i < bytes; ++i) b[i] = (unsigned char)(v >> (8 * i));
}

/* Makes the size field and the checksum of a candidate snapshot right, so
   the fuzzer reaches the parsing behind them. */
static void fuzz_fix_snapshot(unsigned char *b, size_t n) {
    if (n < 32) return;
    fuzz_put_le(b + 16, (uint64_t)n, 8);
    fuzz_put_le(b + n - 8, fuzz_fnv1a(b, n - 8), 8);
}

/* Makes every case of cases.h on the heap, plays `warmup` rounds (seeded
   seed + the case's index) and saves its snapshot in baseline. Inline, so
   that fuzz_ops.c, which has no baseline, does not warn. */
static inline void fuzz_warm_up(storage *policies, fuzz_snap *baseline, fuzz_heap *heap, uint64_t seed, int warmup) {
    static double X[64 * 8];
    isdb_allocator alloc;
    int i, t;
    alloc.alloc_fn = fuzz_alloc;
    alloc.free_fn = fuzz_free;
    alloc.user = heap;
    for (i = 0; i < N_CASES; ++i) {
        const policy_case *pc = &cases[i];
        isdb_policy *p = (isdb_policy *)&policies[i];
        isdb_rng rng;
        if (pc->make(&alloc, pc->d, pc->max_arms, &policies[i]) != ISDB_OK) fuzz_fail("init", pc->label);
        isdb_rng_seed(&rng, seed + (uint64_t)i);
        for (t = 0; t < warmup; ++t) {
            int n_arms, arm;
            case_round(&rng, pc, pc->d, pc->max_arms, &n_arms, X);
            if (isdb_policy_select(p, X, n_arms, &arm) != ISDB_OK ||
                isdb_policy_update(p, arm, X + arm * pc->d, X[arm * pc->d]) != ISDB_OK)
                fuzz_fail("warm-up step", pc->label);
        }
        fuzz_save(p, &baseline[i], pc->label);
    }
}

/* ---- outputs ---- */

/* probs must be a distribution: in [0, 1], summing to 1 (to the
   tolerance a snapshot's stored distributions are held to on load). */
static void fuzz_check_probs(const double *pr, int n, const char *policy) {
    double sum = 0;
    int k;
    for (k = 0; k < n; ++k) {
        if (!(pr[k] >= 0.0 && pr[k] <= 1.0 + 1e-12)) fuzz_fail("probs outside [0, 1]", policy);
        sum += pr[k];
    }
    if (!(fabs(sum - 1.0) <= 1e-6)) fuzz_fail("probs do not sum to 1", policy);
}

#endif

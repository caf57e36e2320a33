/* fuzz_snapshot.c - libFuzzer target: the fuzzer's bytes loaded as a
   snapshot into every policy of tests/cases.h. The policies are built once
   and played for a few rounds; their snapshots are the baseline.
   The first input byte chooses how the bytes become a snapshot:
     bit 0  make the size field and the checksum right, so that the
            parsing behind them is reached;
     bit 1  patch mode: the rest of the input is a list of (offset, xor)
            triples applied to each policy's own snapshot, so that the
            damage lands inside a well-formed config and state;
            otherwise the rest of the input is the snapshot, the same bytes
            for every policy.
   Checks for every policy:
   - a refused load leaves the state byte-identical;
   - an accepted load gives a policy that still works: select, update,
     scores and probs either succeed (probs a distribution, the arm in
     range) or refuse without changing the state, and the sanitizers see
     no bad access. Whether the state an accepted forgery leads to saves
     and loads again, and gives finite scores, is fuzz_forge.c's check;
   - nothing allocates after init.
   The baseline is loaded back after each policy's turn.
   Build and run: make fuzz. */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "cases.h"
#include "fuzz.h"

#define WARMUP 12

static storage policies[N_CASES];
static fuzz_snap baseline[N_CASES], before, after, candidate;
static fuzz_heap heap;
static long allocs_after_init;
static double X[64 * 8], out[64];

static isdb_policy *policy(int i) { return (isdb_policy *)&policies[i]; }

static void setup(void) {
    fuzz_warm_up(policies, baseline, &heap, 0, WARMUP);
    allocs_after_init = heap.allocs;
}

/* The candidate snapshot for policy i. */
static void build_candidate(const unsigned char *data, size_t size, int i) {
    unsigned mode = size ? data[0] : 0;
    const fuzz_snap *base = &baseline[i];
    size_t n = mode & 2 ? base->size : size - (size ? 1 : 0), k;
    if (n > candidate.cap) {
        free(candidate.bytes);
        candidate.bytes = (unsigned char *)malloc(n ? n : 1);
        if (!candidate.bytes) fuzz_fail("harness out of memory", cases[i].label);
        candidate.cap = n;
    }
    candidate.size = n;
    if (mode & 2) {
        memcpy(candidate.bytes, base->bytes, n);
        for (k = 1; k + 2 < size; k += 3) {
            size_t at = ((size_t)data[k] | (size_t)data[k + 1] << 8) % n;
            candidate.bytes[at] ^= data[k + 2];
        }
    } else if (n) {
        memcpy(candidate.bytes, data + 1, n);
    }
    if (mode & 1) fuzz_fix_snapshot(candidate.bytes, n);
}

/* A policy that accepted a snapshot must still keep the contract. */
static void exercise(int i) {
    const policy_case *pc = &cases[i];
    isdb_policy *p = policy(i);
    isdb_rng rng;
    int t;
    isdb_rng_seed(&rng, 99);
    for (t = 0; t < 4; ++t) {
        int n_arms, arm = -1;
        isdb_result r;
        case_round(&rng, pc, pc->d, pc->max_arms, &n_arms, X);
        fuzz_save(p, &before, pc->label);
        r = isdb_policy_probs(p, X, n_arms, out);
        if (r >= 0) fuzz_check_probs(out, n_arms, pc->label);
        isdb_policy_scores(p, X, n_arms, out);
        fuzz_save(p, &after, pc->label);
        if (!fuzz_same(&before, &after)) fuzz_fail("scores or probs changed a loaded state", pc->label);
        r = isdb_policy_select(p, X, n_arms, &arm);
        if (r < 0) {
            fuzz_save(p, &after, pc->label);
            if (!fuzz_same(&before, &after)) fuzz_fail("refused select changed a loaded state", pc->label);
            arm = 0;
        } else if (arm < 0 || arm >= n_arms) {
            fuzz_fail("select on a loaded state returned an arm out of range", pc->label);
        }
        fuzz_save(p, &before, pc->label);
        if (isdb_policy_update(p, arm, X + arm * pc->d, 0.5) < 0) {
            fuzz_save(p, &after, pc->label);
            if (!fuzz_same(&before, &after)) fuzz_fail("refused update changed a loaded state", pc->label);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    int i;
    if (!ready) {
        setup();
        ready = 1;
    }
    for (i = 0; i < N_CASES; ++i) {
        isdb_policy *p = policy(i);
        build_candidate(data, size, i);
        if (isdb_policy_load(p, candidate.bytes, candidate.size) == ISDB_OK) {
            exercise(i);
        } else {
            fuzz_save(p, &after, cases[i].label);
            if (!fuzz_same(&baseline[i], &after)) fuzz_fail("refused snapshot changed the state", cases[i].label);
        }
        if (isdb_policy_load(p, baseline[i].bytes, baseline[i].size) != ISDB_OK)
            fuzz_fail("baseline refused", cases[i].label);
        if (heap.allocs != allocs_after_init) fuzz_fail("allocation after init", cases[i].label);
    }
    return 0;
}

/* fuzz_forge.c - libFuzzer target: forged snapshots. Each policy of
   tests/cases.h is built once and played for a few rounds; its snapshot
   is the baseline. An input picks one policy (first byte) and edits the
   body of its snapshot (the bytes between the 24-byte header and the
   checksum; the size stays), then the checksum is made right again, so
   what is tested is load's validation of the values themselves.
   Each edit is 4 bytes: an offset (2 bytes, into the body), an operation
   and an argument:
     0  xor the byte with the argument;
     1  overwrite 8 bytes with a special real (infinities, NaN, 0, -0,
        +-1, +-1e300, DBL_MIN, a subnormal, DBL_MAX, 1e-300, +-1e64 ...);
     2  multiply the real there by one of a few factors (-1, 2, 0.5,
        1 + 2^-20, 1e10, 1e-10, 0), or nudge it by one ulp;
     3  overwrite 4 bytes with a small integer (-1 .. 14) or INT_MAX;
     4  copy 8 bytes from another offset (argument: distance), which forges
        values that look consistent with each other.
   Checks:
   - load either refuses with ISDB_ERR_SNAPSHOT_CORRUPT (or
     ISDB_ERR_SNAPSHOT_CONFIG when the edit hit a config value) and
     leaves the state byte-identical, or accepts;
   - after an accepted load, a few rounds of probs, scores, select and
     update on ordinary inputs give finite scores, distributions for
     probs and arms in range, refused calls change nothing, and the state
     the rounds lead to saves and loads again;
   - nothing allocates after init.
   The baseline is loaded back afterwards. Build and run: make fuzz. */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "cases.h"
#include "fuzz.h"

#define WARMUP 12
#define ROUNDS 4

static storage policies[N_CASES];
static fuzz_snap baseline[N_CASES], before, after, forged;
static fuzz_heap heap;
static long allocs_after_init;
static isdb_real X[64 * 8], out[64];

static isdb_policy *policy(int i) { return (isdb_policy *)&policies[i]; }

static void setup(void) {
    fuzz_warm_up(policies, baseline, &heap, 1000, WARMUP);
    allocs_after_init = heap.allocs;
}

static uint64_t get_le(const unsigned char *b, int bytes) {
    uint64_t v = 0;
    int i;
    for (i = 0; i < bytes; ++i) v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static double get_f64(const unsigned char *b) {
    uint64_t u = get_le(b, 8);
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static void put_f64(unsigned char *b, double v) {
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    fuzz_put_le(b, u, 8);
}

/* The baseline of policy i with the input's edits, checksum made right. */
static void forge(const unsigned char *data, size_t size, int i) {
    static const double special[] = {(double)INFINITY, -(double)INFINITY, (double)NAN, 0.0, -0.0, 1.0, -1.0,
                                     1e300, -1e300, DBL_MIN, 4.9406564584124654e-324, DBL_MAX, 1e-300, 1e64,
                                     -1e64, 1e-30, 1e30, 0.5};
    static const double factor[] = {-1.0, 2.0, 0.5, 1.0 + 9.5367431640625e-07, 1e10, 1e-10, 0.0};
    const fuzz_snap *base = &baseline[i];
    size_t n = base->size, body = n - 32, k;
    if (n > forged.cap) {
        free(forged.bytes);
        forged.bytes = (unsigned char *)malloc(n);
        if (!forged.bytes) fuzz_fail("harness out of memory", cases[i].label);
        forged.cap = n;
    }
    forged.size = n;
    memcpy(forged.bytes, base->bytes, n);
    for (k = 1; k + 3 < size; k += 4) {
        size_t at = 24 + ((size_t)data[k] | (size_t)data[k + 1] << 8) % body;
        unsigned op = data[k + 2] % 5, arg = data[k + 3];
        unsigned char *p = forged.bytes + at;
        size_t room = n - 8 - at; /* bytes to the checksum */
        switch (op) {
        case 0:
            *p ^= (unsigned char)arg;
            break;
        case 1:
            if (room >= 8) put_f64(p, special[arg % (sizeof special / sizeof special[0])]);
            break;
        case 2:
            if (room >= 8) {
                double v = get_f64(p);
                if (arg % 8 == 7)
                    fuzz_put_le(p, get_le(p, 8) + (arg & 8 ? 1u : (uint64_t)-1), 8); /* one ulp */
                else
                    put_f64(p, v * factor[arg % 8 % 7]);
            }
            break;
        case 3:
            if (room >= 4) {
                int v = arg % 17 == 16 ? INT_MAX : (int)(arg % 17) - 1;
                fuzz_put_le(p, (uint64_t)(int64_t)v, 4);
            }
            break;
        default: {
            size_t from = 24 + (at - 24 + body - 1 - arg % body) % body;
            if (room >= 8 && n - 8 - from >= 8) memmove(p, forged.bytes + from, 8);
            break;
        }
        }
    }
    fuzz_fix_snapshot(forged.bytes, n);
}

static void check_finite(const isdb_real *v, int n, const char *what, const char *label) {
    int k;
    for (k = 0; k < n; ++k)
        if (!isdb__finite(v[k])) fuzz_fail(what, label);
}

/* A few rounds on a state load accepted. */
static void exercise(int i) {
    const policy_case *pc = &cases[i];
    isdb_policy *p = policy(i);
    isdb_rng rng;
    int t;
    isdb_rng_seed(&rng, 7);
    for (t = 0; t < ROUNDS; ++t) {
        int n_arms, arm = -1;
        isdb_result r;
        case_round(&rng, pc, pc->d, pc->max_arms, &n_arms, X);
        fuzz_save(p, &before, pc->label);
        r = isdb_policy_probs(p, X, n_arms, out);
        if (r >= 0) {
            check_finite(out, n_arms, "probs not finite", pc->label);
            fuzz_check_probs(out, n_arms, pc->label);
        }
        r = isdb_policy_scores(p, X, n_arms, out);
        if (r >= 0) check_finite(out, n_arms, "scores not finite", pc->label);
        fuzz_save(p, &after, pc->label);
        if (!fuzz_same(&before, &after)) fuzz_fail("scores or probs changed the state", pc->label);
        r = isdb_policy_select(p, X, n_arms, &arm);
        if (r < 0) {
            fuzz_save(p, &after, pc->label);
            if (!fuzz_same(&before, &after)) fuzz_fail("refused select changed the state", pc->label);
            arm = 0;
        } else if (arm < 0 || arm >= n_arms) {
            fuzz_fail("select returned an arm out of range", pc->label);
        }
        fuzz_save(p, &before, pc->label);
        if (isdb_policy_update(p, arm, X + arm * pc->d, 0.5) < 0) {
            fuzz_save(p, &after, pc->label);
            if (!fuzz_same(&before, &after)) fuzz_fail("refused update changed the state", pc->label);
        }
    }
    /* What the rounds made of an accepted state is a state load accepts. */
    fuzz_save(p, &before, pc->label);
    if (isdb_policy_load(p, before.bytes, before.size) != ISDB_OK)
        fuzz_fail("the rounds after an accepted load led to a state load refuses", pc->label);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    int i;
    isdb_result r;
    if (!ready) {
        setup();
        ready = 1;
    }
    if (size < 1) return 0;
    i = data[0] % N_CASES;
    forge(data, size, i);
    r = isdb_policy_load(policy(i), forged.bytes, forged.size);
    if (r == ISDB_OK) {
        exercise(i);
    } else {
        /* Only the body changed (its size and checksum right): a config
           value unlike the policy's, or a state value. */
        if (r != ISDB_ERR_SNAPSHOT_CORRUPT && r != ISDB_ERR_SNAPSHOT_CONFIG)
            fuzz_fail("load refused with another error than SNAPSHOT_CORRUPT or SNAPSHOT_CONFIG", cases[i].label);
        fuzz_save(policy(i), &after, cases[i].label);
        if (!fuzz_same(&baseline[i], &after)) fuzz_fail("refused snapshot changed the state", cases[i].label);
    }
    if (isdb_policy_load(policy(i), baseline[i].bytes, baseline[i].size) != ISDB_OK)
        fuzz_fail("baseline refused", cases[i].label);
    if (heap.allocs != allocs_after_init) fuzz_fail("allocation after init", cases[i].label);
    return 0;
}

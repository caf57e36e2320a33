/* fuzz_ops.c - libFuzzer target: one policy of tests/cases.h, initialised
   with fuzzed sizes (on the allocator of fuzz.h or on a caller buffer),
   then driven by a fuzzed sequence of select, update, scores, probs,
   save + load, load of a damaged snapshot, and reset, with hostile
   numbers in the features and rewards and hostile arm counts and indices.
   After every call it checks the library's contract:
   - a refused call (result < 0) left the state byte-identical;
   - scores and probs never change the state; probs is a distribution;
   - a selected arm is below n_arms;
   - a snapshot loads back into the same bytes, unless the state came
     from a forged snapshot (one whose checksum the target made right:
     see SNAPSHOT FORMAT in the header);
   - nothing allocates after init, and uninit frees everything.
   Build and run: make fuzz. */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "cases.h"
#include "fuzz.h"

#define MAX_D 8
#define MAX_K 16
#define MAX_OPS 200

/* The input as a stream of choices (zeros once it runs out), and hostile
   numbers (NaN, infinities, subnormals, 1e308, values just past
   ISDB_INPUT_MAX) mixed with ordinary ones. */

typedef struct fuzz_in {
    const unsigned char *p;
    size_t n;
} fuzz_in;

static unsigned fuzz_byte(fuzz_in *in) {
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}

static uint64_t fuzz_u64(fuzz_in *in) {
    uint64_t v = 0;
    int i;
    for (i = 0; i < 8; ++i) v |= (uint64_t)fuzz_byte(in) << (8 * i);
    return v;
}

/* Ordinary numbers most of the time (so the state moves), else one of the
   special values or a raw bit pattern. */
static double fuzz_number(fuzz_in *in) {
    static const double special[] = {0.0,      -0.0,     1.0,      -1.0,      DBL_MIN,   DBL_MIN / 4096.0,
                                     DBL_MAX,  -DBL_MAX, 1e308,    -1e308,    1e-308,    ISDB_INPUT_MAX,
                                     -ISDB_INPUT_MAX,    1.000001e64, 1e32, 1e-32, 1e-300, 4.9406564584124654e-324};
    unsigned b = fuzz_byte(in);
    uint64_t bits;
    double v;
    if (b < 192) return ((double)(int)fuzz_byte(in) - 128.0) / 32.0;
    if (b < 192 + 3) return b == 192 ? (double)NAN : b == 193 ? (double)INFINITY : -(double)INFINITY;
    if (b < 240) return special[(b - 195) % (sizeof special / sizeof special[0])];
    bits = fuzz_u64(in);
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* Sizes for an init: mostly d in [1, max_d] and max_arms in [1, max_k],
   sometimes a pair every policy must refuse (non-positive, beyond
   ISDB_MAX_DIM, or d * max_arms past INT_MAX). */
static void fuzz_sizes(fuzz_in *in, int max_d, int max_k, int *d, int *max_arms) {
    static const int bad_d[] = {0, -1, INT_MIN, INT_MAX, ISDB_MAX_DIM + 1};
    static const int bad_k[] = {0, -1, INT_MIN};
    unsigned b = fuzz_byte(in);
    *d = 1 + (int)(fuzz_byte(in) % (unsigned)max_d);
    *max_arms = 1 + (int)(fuzz_byte(in) % (unsigned)max_k);
    if (b >= 252)
        *d = bad_d[(b - 252) % 4 + (fuzz_byte(in) & 1)];
    else if (b == 251)
        *max_arms = INT_MAX / (*d < 2 ? (*d = 2) : *d) + 1;
    else if (b >= 248)
        *max_arms = bad_k[b - 248];
}

static fuzz_snap before, after;
static double X[(MAX_K + 1) * MAX_D], out[MAX_K + 1], x[MAX_D];

/* This round's arms (the case's generator), then a few entries replaced
   by hostile numbers, and now and then an arm count that must be refused.
   Returns the arm count to offer. */
static int fuzz_round(fuzz_in *in, isdb_rng *rng, const policy_case *pc, int d, int max_arms) {
    int n_arms, i, edits = (int)(fuzz_byte(in) % 8);
    unsigned b;
    case_round(rng, pc, d, max_arms, &n_arms, X);
    for (i = 0; i < edits && i < 3; ++i) X[fuzz_byte(in) % (unsigned)(n_arms * d)] = fuzz_number(in);
    b = fuzz_byte(in);
    if (b >= 250) n_arms = b == 250 ? 0 : b == 251 ? -1 : b == 252 ? INT_MIN : b == 253 ? INT_MAX : max_arms + 1;
    return n_arms;
}

/* The state must be as it was when `what` was refused. */
static void unchanged_if_refused(isdb_result r, isdb_policy *p, const char *what, const char *label) {
    if (r >= 0) return;
    fuzz_save(p, &after, label);
    if (!fuzz_same(&before, &after)) fuzz_fail(what, label);
}

static void run_ops(fuzz_in *in, isdb_policy *p, const policy_case *pc, int d, int max_arms, fuzz_heap *heap) {
    const char *label = pc->label;
    long allocs = heap->allocs;
    int op, last_arm = 0, forged = 0;
    isdb_rng rng;
    isdb_rng_seed(&rng, fuzz_u64(in));
    for (op = 0; op < MAX_OPS && in->n; ++op) {
        unsigned kind = fuzz_byte(in) % 8;
        int n_arms, arm = -1, i;
        isdb_result r;
        fuzz_save(p, &before, label);
        switch (kind) {
        case 0: /* select */
        case 1:
            n_arms = fuzz_round(in, &rng, pc, d, max_arms);
            r = isdb_policy_select(p, fuzz_byte(in) == 255 ? NULL : X, n_arms, &arm);
            unchanged_if_refused(r, p, "select refused but changed the state", label);
            if (r >= 0) {
                if (arm < 0 || arm >= n_arms) fuzz_fail("select returned an arm out of range", label);
                last_arm = arm;
            }
            break;
        case 2: /* update, usually with the arm just selected */
        case 3: {
            unsigned how = fuzz_byte(in);
            const double *feat = X + last_arm * d;
            double reward = fuzz_number(in);
            arm = how < 200 ? last_arm : how < 240 ? (int)(fuzz_byte(in) % (unsigned)max_arms)
                  : how == 240 ? -1 : how == 241 ? max_arms : how == 242 ? INT_MIN : INT_MAX;
            if (how >= 243 && how < 250) {
                for (i = 0; i < d; ++i) x[i] = fuzz_number(in);
                feat = x;
            } else if (how >= 250) {
                feat = NULL;
            }
            r = isdb_policy_update(p, arm, feat, reward);
            unchanged_if_refused(r, p, "update refused but changed the state", label);
            break;
        }
        case 4: /* scores and probs: never a change */
            n_arms = fuzz_round(in, &rng, pc, d, max_arms);
            r = isdb_policy_scores(p, X, n_arms, out);
            fuzz_save(p, &after, label);
            if (!fuzz_same(&before, &after)) fuzz_fail("scores changed the state", label);
            r = isdb_policy_probs(p, X, n_arms, out);
            fuzz_save(p, &after, label);
            if (!fuzz_same(&before, &after)) fuzz_fail("probs changed the state", label);
            if (r >= 0) fuzz_check_probs(out, n_arms, label);
            break;
        case 5: /* save into too small a buffer, then a round trip */
        {
            size_t need = 0;
            unsigned char *small = (unsigned char *)malloc(before.size - 1);
            if (!small) fuzz_fail("harness out of memory", label);
            r = isdb_policy_save(p, small, before.size - 1, &need);
            free(small);
            if (r != ISDB_ERR_BUFFER_TOO_SMALL || need != before.size) fuzz_fail("short save not reported", label);
            r = isdb_policy_load(p, before.bytes, before.size);
            if (r != ISDB_OK && !forged) fuzz_fail("own snapshot refused", label);
            fuzz_save(p, &after, label);
            if (!fuzz_same(&before, &after)) fuzz_fail("save and load changed the state", label);
            break;
        }
        case 6: /* a damaged snapshot, checksum made right half the time */
        {
            unsigned char *damaged = (unsigned char *)malloc(before.size);
            size_t at = (size_t)fuzz_u64(in) % before.size, size = before.size;
            unsigned fix = fuzz_byte(in);
            if (!damaged) fuzz_fail("harness out of memory", label);
            memcpy(damaged, before.bytes, before.size);
            damaged[at] ^= (unsigned char)(1 + fuzz_byte(in) % 255);
            if (fix & 2) size -= 1 + (size_t)fuzz_byte(in) % (size < 64 ? size : 64);
            if (fix & 1) fuzz_fix_snapshot(damaged, size);
            r = isdb_policy_load(p, damaged, size);
            free(damaged);
            unchanged_if_refused(r, p, "refused snapshot changed the state", label);
            if (r == ISDB_OK) forged = 1;
            break;
        }
        default:
            isdb_policy_reset(p);
            break;
        }
        if (heap->allocs != allocs) fuzz_fail("allocation after init", label);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static storage mem;
    fuzz_in in;
    fuzz_heap heap = {0, 0};
    isdb_allocator alloc;
    const policy_case *pc;
    void *buffer = NULL;
    size_t bytes = 0;
    int d, max_arms, on_buffer;
    isdb_result r;
    in.p = data;
    in.n = size;
    alloc.alloc_fn = fuzz_alloc;
    alloc.free_fn = fuzz_free;
    alloc.user = &heap;
    pc = &cases[fuzz_byte(&in) % N_CASES];
    on_buffer = fuzz_byte(&in) >= 224;
    fuzz_sizes(&in, MAX_D, MAX_K, &d, &max_arms);
    memset(&mem, 0xA5, sizeof mem);
    if (on_buffer) {
        /* The default config's heap on a caller buffer. */
        r = pc->make_pre(d, max_arms, NULL, &bytes, &mem);
        if (r == ISDB_OK) {
            if (bytes > FUZZ_HEAP_LIMIT) return 0;
            buffer = malloc(bytes ? bytes : 1);
            if (!buffer) return 0;
            r = pc->make_pre(d, max_arms, buffer, &bytes, &mem);
        }
    } else {
        r = pc->make(&alloc, d, max_arms, &mem);
    }
    if (r < 0) {
        if (heap.live != 0) fuzz_fail("failed init leaked", pc->label);
        free(buffer);
        return 0;
    }
    if (d < 1 || d > MAX_D || max_arms < 1 || max_arms > MAX_K) fuzz_fail("init accepted a bad size", pc->label);
    run_ops(&in, (isdb_policy *)&mem, pc, d, max_arms, &heap);
    isdb_policy_uninit((isdb_policy *)&mem);
    free(buffer);
    if (heap.live != 0) fuzz_fail("uninit leaked", pc->label);
    return 0;
}

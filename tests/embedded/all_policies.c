/* all_policies.c - every policy of the precision in one firmware image,
   each on a static buffer: LinUCB, SW-UCB, D-LinUCB, LinTS, BOB and the
   adaptive policy, and in double also ISD-linUCB (fitted from logged rows
   at init), OPKB, OAM and Trace-UCB. d = 8 features, K = 10 arms. Each
   policy in turn is sized, set up on the one buffer, run for 300 rounds
   and released; the program prints each one's heap bytes (the numbers
   of the README's table) and a checksum of its choices. */
#include "emb.h"

#define ISDB_IMPLEMENTATION
#include "../../isdbandit.h"

#define D 8
#define K 10
#define ROUNDS 300

/* The one heap, reused by each policy in turn: big enough for the largest
   (ISD in double; adaptive in float, 29696 bytes on x86-64 with its
   NOISE_LOCAL widths, hold and the play rule's sums), checked before
   every init. */
#if ISDB_REAL_IS_FLOAT
#define HEAP_BYTES (30 * 1024)
#else
#define HEAP_BYTES (192 * 1024)
#endif
static union {
    uint64_t align;
    unsigned char bytes[HEAP_BYTES];
} heap;

/* The policy objects, static rather than on the stack. */
static union {
    isdb_linucb linucb;
    isdb_swucb swucb;
    isdb_dlinucb dlinucb;
    isdb_lints lints;
    isdb_bob bob;
    isdb_adaptive adaptive;
#if !ISDB_REAL_IS_FLOAT
    isdb_isd isd;
    isdb_opkb opkb;
    isdb_oam oam;
    isdb_traceucb traceucb;
#endif
} pol;

static isdb_real X[K * D];
static uint32_t seed = 88675123u;

/* OPKB plays a fixed arm set and OAM here one registered action set: they
   see these arms every round. The others get fresh arms each round
   (Trace-UCB: the rows are contexts, and its choice ignores them). */
static isdb_real fixed_arms[K * D];

/* With need NULL: init on the heap; otherwise the heap size. */
typedef isdb_result (*setup_fn)(size_t *need);

static isdb_result setup_linucb(size_t *need) {
    isdb_linucb_config c = isdb_linucb_config_init(D, K);
    return need ? isdb_linucb_heap_size(&c, need)
                : isdb_linucb_init_preallocated(&c, heap.bytes, sizeof heap.bytes, &pol.linucb);
}

static isdb_result setup_swucb(size_t *need) {
    isdb_swucb_config c = isdb_swucb_config_init(D, K, 200);
    return need ? isdb_swucb_heap_size(&c, need)
                : isdb_swucb_init_preallocated(&c, heap.bytes, sizeof heap.bytes, &pol.swucb);
}

static isdb_result setup_dlinucb(size_t *need) {
    isdb_dlinucb_config c = isdb_dlinucb_config_init(D, K, (isdb_real)0.99);
    return need ? isdb_dlinucb_heap_size(&c, need)
                : isdb_dlinucb_init_preallocated(&c, heap.bytes, sizeof heap.bytes, &pol.dlinucb);
}

static isdb_result setup_lints(size_t *need) {
    isdb_lints_config c = isdb_lints_config_init(D, K);
    return need ? isdb_lints_heap_size(&c, need)
                : isdb_lints_init_preallocated(&c, heap.bytes, sizeof heap.bytes, &pol.lints);
}

static isdb_result setup_bob(size_t *need) {
    isdb_bob_config c = isdb_bob_config_init(D, K, 10000);
    return need ? isdb_bob_heap_size(&c, need)
                : isdb_bob_init_preallocated(&c, heap.bytes, sizeof heap.bytes, &pol.bob);
}

static isdb_result setup_adaptive(size_t *need) {
    isdb_adaptive_config c = isdb_adaptive_config_init(D, K);
    return need ? isdb_adaptive_heap_size(&c, need)
                : isdb_adaptive_init_preallocated(&c, heap.bytes, sizeof heap.bytes, &pol.adaptive);
}

#if !ISDB_REAL_IS_FLOAT /* double only: see PRECISION in the header */
/* Logged rows for ISD: coordinates 0..5 act the same in every segment of
   60 rows (the invariant part), 6 and 7 change sign between segments. */
#define N0 240
static double X0[N0 * D], R0[N0];

static void isd_data(void) {
    int i, j;
    for (i = 0; i < N0; ++i) {
        double sign = (i / 60) % 2 ? -1.0 : 1.0;
        R0[i] = EMB_UNIT(&seed) / 8;
        for (j = 0; j < D; ++j) {
            X0[i * D + j] = EMB_UNIT(&seed);
            R0[i] += X0[i * D + j] * (j < 6 ? 0.25 * (j + 1) : sign);
        }
    }
}

static isdb_result setup_isd(size_t *need) {
    isdb_isd_config c = isdb_isd_config_init(D, K, N0, X0, R0);
    return need ? isdb_isd_heap_size(&c, need)
                : isdb_isd_init_preallocated(&c, heap.bytes, sizeof heap.bytes, &pol.isd);
}

static isdb_result setup_opkb(size_t *need) {
    isdb_opkb_config c = isdb_opkb_config_init(D, K, 10000.0);
    c.arms = fixed_arms;
    return need ? isdb_opkb_heap_size(&c, need)
                : isdb_opkb_init_preallocated(&c, heap.bytes, sizeof heap.bytes, &pol.opkb);
}

static isdb_result setup_oam(size_t *need) {
    isdb_oam_config c = isdb_oam_config_init(D, K, 10000);
    c.max_contexts = 1; /* one action set here; the heap grows as its square */
    return need ? isdb_oam_heap_size(&c, need)
                : isdb_oam_init_preallocated(&c, heap.bytes, sizeof heap.bytes, &pol.oam);
}

static isdb_result setup_traceucb(size_t *need) {
    isdb_traceucb_config c = isdb_traceucb_config_init(D, K);
    return need ? isdb_traceucb_heap_size(&c, need)
                : isdb_traceucb_init_preallocated(&c, heap.bytes, sizeof heap.bytes, &pol.traceucb);
}
#endif

static const struct {
    const char *name;
    setup_fn setup;
    int fixed; /* 1: the same arms every round */
} policies[] = {
    {"linucb", setup_linucb, 0},     {"swucb", setup_swucb, 0}, {"dlinucb", setup_dlinucb, 0},
    {"lints", setup_lints, 0},       {"bob", setup_bob, 0},     {"adaptive", setup_adaptive, 0},
#if !ISDB_REAL_IS_FLOAT
    {"isd", setup_isd, 0},           {"opkb", setup_opkb, 1},   {"oam", setup_oam, 1},
    {"traceucb", setup_traceucb, 0},
#endif
};

int main(void) {
    isdb_policy *p = (isdb_policy *)&pol;
    isdb_real theta[D];
    int i, j, t, arm, status = 0;
    for (j = 0; j < D; ++j) theta[j] = EMB_UNIT(&seed) / 2;
    for (i = 0; i < K * D; ++i) fixed_arms[i] = EMB_UNIT(&seed);
#if !ISDB_REAL_IS_FLOAT
    isd_data();
#endif
    emb_write(sizeof(isdb_real) == 4 ? "all policies, float, d 8 K 10\n" : "all policies, double, d 8 K 10\n");
    for (i = 0; i < (int)(sizeof policies / sizeof policies[0]); ++i) {
        size_t need = 0;
        uint32_t sum = 0;
        isdb_result r = policies[i].setup(&need);
        emb_write(policies[i].name);
        emb_write(" heap ");
        emb_write_uint(need);
        if (r != ISDB_OK || need > sizeof heap.bytes || (r = policies[i].setup(NULL)) != ISDB_OK) {
            emb_write(" FAILED at init\n");
            status = 1;
            continue;
        }
        for (t = 0; t < ROUNDS && r >= 0; ++t) {
            isdb_real mean = 0;
            const isdb_real *arms = policies[i].fixed ? fixed_arms : X;
            if (!policies[i].fixed)
                for (j = 0; j < K * D; ++j) X[j] = EMB_UNIT(&seed);
            if ((r = isdb_policy_select(p, arms, K, &arm)) != ISDB_OK) break;
            for (j = 0; j < D; ++j) mean += arms[arm * D + j] * theta[j];
            r = isdb_policy_update(p, arm, arms + arm * D, mean + EMB_UNIT(&seed) / 4);
            sum = sum * 31u + (uint32_t)arm;
        }
        emb_write(r >= 0 ? " choices " : " FAILED in round ");
        if (r >= 0)
            emb_write_hex(sum, 8);
        else
            emb_write_uint((unsigned long)t);
        emb_write("\n");
        if (r < 0) status = 1;
        isdb_policy_uninit(p);
    }
    return status;
}

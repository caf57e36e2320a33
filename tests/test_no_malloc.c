/* test_no_malloc.c - the library as firmware builds it: ISDB_NO_MALLOC
   and a user ISDB_ASSERT. malloc, free and their kin are poisoned while
   the implementation is compiled, so naming any of them is a compile
   error; <assert.h>, <stdio.h> and <stdlib.h> must not have been pulled
   in. Then, for every policy of the precision: the heap size, an init on
   a caller buffer and a short run; an init with a NULL allocator, which
   must return ISDB_ERR_INVALID_ARG; and an init with a user allocator,
   which must take one block and give back that block at uninit. */
#define ISDB_NO_MALLOC
#define ISDB_IMPLEMENTATION

/* The headers the implementation includes, before the poison below (a
   C library's own declarations may use these names). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static int assert_failures;
#define ISDB_ASSERT(x) ((void)((x) || ++assert_failures))

#define malloc isdb_no_malloc_names_malloc
#define calloc isdb_no_malloc_names_calloc
#define realloc isdb_no_malloc_names_realloc
#define free isdb_no_malloc_names_free
#define abort isdb_no_malloc_names_abort
#include "../isdbandit.h"
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef abort

#if defined(assert) || defined(EOF) || defined(EXIT_FAILURE)
#error "ISDB_NO_MALLOC with a user ISDB_ASSERT included <assert.h>, <stdio.h> or <stdlib.h>"
#endif

#include "test.h"

#define D 4
#define K 5

/* A bump allocator over a static arena that counts its calls and
   remembers the last block it gave and the last one it got back. */
typedef struct arena {
    unsigned char *base;
    size_t cap, used;
    int allocs, frees;
    void *last_alloc, *last_free;
} arena;

static void *arena_alloc(size_t size, void *user) {
    arena *a = (arena *)user;
    size_t start = (a->used + 15u) & ~(size_t)15u;
    if (size > a->cap - start) return NULL;
    a->used = start + size;
    a->allocs++;
    a->last_alloc = a->base + start;
    return a->last_alloc;
}

static void arena_free(void *ptr, void *user) {
    arena *a = (arena *)user;
    a->frees++;
    a->last_free = ptr;
}

static union {
    double align;
    unsigned char bytes[1 << 18];
} arena_mem, heap_mem;

/* Storage for any policy struct. */
static union {
    double align;
    void *ptr;
    uint64_t u;
    unsigned char bytes[16384];
} pol_mem;

/* One policy: with bytes, its heap size into *bytes; with heap, an init
   on that buffer; otherwise an init with alloc. */
typedef isdb_result (*make_fn)(const isdb_allocator *alloc, void *heap, size_t *bytes, void *pol);

/* The arms every round shows: a fixed K x D set suits every policy,
   including those with a fixed arm set (OPKB) or few action sets (OAM). */
static isdb_real arms[K * D];

#define MAKE(name, cfg_expr)                                                                    \
    static isdb_result make_##name(const isdb_allocator *alloc, void *heap, size_t *bytes, void *pol) { \
        isdb_##name##_config c = cfg_expr;                                                      \
        if (bytes) return isdb_##name##_heap_size(&c, bytes);                                   \
        if (heap) return isdb_##name##_init_preallocated(&c, heap, sizeof heap_mem.bytes, (isdb_##name *)pol); \
        return isdb_##name##_init(&c, alloc, (isdb_##name *)pol);                               \
    }

MAKE(linucb, isdb_linucb_config_init(D, K))
MAKE(swucb, isdb_swucb_config_init(D, K, 16))
MAKE(dlinucb, isdb_dlinucb_config_init(D, K, (isdb_real)0.95))
MAKE(lints, isdb_lints_config_init(D, K))
MAKE(bob, isdb_bob_config_init(D, K, 200))
MAKE(adaptive, isdb_adaptive_config_init(D, K))

#if !ISDB_REAL_IS_FLOAT /* double only: see PRECISION */
#define N0 200
static double X0[N0 * D], R0[N0];

static isdb_opkb_config opkb_config(void) {
    isdb_opkb_config c = isdb_opkb_config_init(D, K, 200.0);
    c.arms = arms;
    return c;
}

MAKE(isd, isdb_isd_config_init(D, K, N0, X0, R0))
MAKE(opkb, opkb_config())
MAKE(oam, isdb_oam_config_init(D, K, 1000))
MAKE(traceucb, isdb_traceucb_config_init(D, K))
#endif

static const struct {
    const char *name;
    make_fn make;
} policies[] = {
    {"linucb", make_linucb}, {"swucb", make_swucb}, {"dlinucb", make_dlinucb},
    {"lints", make_lints},   {"bob", make_bob},     {"adaptive", make_adaptive},
#if !ISDB_REAL_IS_FLOAT
    {"isd", make_isd},       {"opkb", make_opkb},   {"oam", make_oam},
    {"traceucb", make_traceucb},
#endif
};
#define N_POLICIES ((int)(sizeof policies / sizeof policies[0]))

static void run(isdb_policy *p, isdb_rng *rng, const char *name) {
    int t, arm, bad = 0;
    for (t = 0; t < 40; ++t) {
        if (isdb_policy_select(p, arms, K, &arm) != ISDB_OK) ++bad;
        else if (isdb_policy_update(p, arm, arms + arm * D, isdb_rng_normal(rng)) < 0) ++bad;
    }
    CHECK_MSG(bad == 0, "%s: %d rounds failed", name, bad);
}

int main(void) {
    arena ar;
    isdb_allocator alloc;
    isdb_rng rng;
    int i;
    memset(&ar, 0, sizeof ar);
    ar.base = arena_mem.bytes;
    ar.cap = sizeof arena_mem.bytes;
    alloc.alloc_fn = arena_alloc;
    alloc.free_fn = arena_free;
    alloc.user = &ar;
    isdb_rng_seed(&rng, 5);
    for (i = 0; i < K * D; ++i) arms[i] = isdb_rng_normal(&rng);
#if !ISDB_REAL_IS_FLOAT
    for (i = 0; i < N0; ++i) {
        int j;
        R0[i] = 0.3 * isdb_rng_normal(&rng);
        for (j = 0; j < D; ++j) {
            X0[i * D + j] = isdb_rng_normal(&rng);
            R0[i] += X0[i * D + j] * (j + 1) * 0.25;
        }
    }
#endif

    for (i = 0; i < N_POLICIES; ++i) {
        isdb_policy *p = (isdb_policy *)pol_mem.bytes;
        const char *name = policies[i].name;
        size_t bytes = 0;
        int allocs, frees;

        /* A caller buffer: nothing is allocated or freed. */
        CHECK_OK(policies[i].make(NULL, NULL, &bytes, pol_mem.bytes));
        CHECK_MSG(bytes > 0 && bytes <= sizeof heap_mem.bytes, "%s: heap size %lu", name, (unsigned long)bytes);
        if (bytes > sizeof heap_mem.bytes) continue;
        allocs = ar.allocs;
        frees = ar.frees;
        CHECK_OK(policies[i].make(NULL, heap_mem.bytes, NULL, pol_mem.bytes));
        run(p, &rng, name);
        isdb_policy_uninit(p);

        /* No allocator and no default one: refused, nothing taken. */
        CHECK_RESULT(policies[i].make(NULL, NULL, NULL, pol_mem.bytes), ISDB_ERR_INVALID_ARG);
        CHECK_MSG(ar.allocs == allocs && ar.frees == frees, "%s: the allocator was called", name);

        /* A user allocator: one block in, the same block out. */
        CHECK_OK(policies[i].make(&alloc, NULL, NULL, pol_mem.bytes));
        CHECK_MSG(ar.allocs == allocs + 1, "%s: %d allocations", name, ar.allocs - allocs);
        run(p, &rng, name);
        isdb_policy_uninit(p);
        CHECK_MSG(ar.frees == frees + 1 && ar.last_free == ar.last_alloc, "%s: %d frees, of %s block", name,
                  ar.frees - frees, ar.last_free == ar.last_alloc ? "the" : "another");
        ar.used = 0;
    }

#ifndef ISDB_NO_SIM
    /* The environments allocate through the same path. */
    {
        isdb_linear_env env;
        isdb_linear_env_config ec = isdb_linear_env_config_init(D, K);
        int allocs = ar.allocs, frees = ar.frees;
        isdb_real y;
        ec.path = ISDB_PATH_SINUSOID;
        CHECK_RESULT(isdb_linear_env_init(&ec, NULL, &env), ISDB_ERR_INVALID_ARG);
        CHECK_OK(isdb_linear_env_init(&ec, &alloc, &env));
        if (ar.allocs == allocs + 1) {
            CHECK_OK(isdb_env_next(&env.base));
            CHECK_OK(isdb_env_reward(&env.base, 0, &y));
            isdb_env_uninit(&env.base);
            CHECK(ar.frees == frees + 1 && ar.last_free == ar.last_alloc);
        }
    }
#endif

    CHECK_MSG(assert_failures == 0, "%d ISDB_ASSERT failures", assert_failures);
    return test_report();
}

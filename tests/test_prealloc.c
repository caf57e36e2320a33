/* Bounded preallocation and refused inits (issue 36, items 1 and 9):
   - every policy and environment: init_preallocated on exactly
     heap_size - 1 malloc'd bytes (so AddressSanitizer sees any overrun)
     is refused with ISDB_ERR_BUFFER_TOO_SMALL, the buffer untouched and
     the object zeroed; isdb_init_check names "heap_bytes" with lo the
     size needed; on exactly heap_size bytes the object runs;
   - adaptive's buffer sized for one config, then used with max_memory
     raised (more estimators, a larger heap), is refused;
   - a refused init (bad config, NULL heap, failed allocation) leaves an
     object full of garbage zeroed: every generic call on it returns
     ISDB_ERR_BAD_STATE and uninit is a no-op;
   - config_check, heap_size and init agree on configs whose heap would
     not fit (ISD's monitor ring of d = 1024, SW-UCB's longest window,
     adaptive's largest memory);
   - isdb_policy_save refuses a buffer overlapping the policy's heap or
     object, leaving the state unchanged. */
#include "../isdbandit.h"
#include "test.h"
#include "cases.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define PATTERN 0xA5

static int all_bytes(const void *p, size_t n, unsigned char v) {
    const unsigned char *b = (const unsigned char *)p;
    size_t i;
    for (i = 0; i < n; ++i)
        if (b[i] != v) return 0;
    return 1;
}

/* An allocator that refuses every request (counts them). */
static int refused_allocs;
static void *no_alloc(size_t size, void *user) {
    (void)size;
    (void)user;
    ++refused_allocs;
    return NULL;
}
static void no_free(void *ptr, void *user) {
    (void)ptr;
    (void)user;
}
static const isdb_allocator failing = {no_alloc, no_free, NULL};

/* Every generic call on a policy whose init was refused. */
static void check_refused_policy(isdb_policy *p, const char *label) {
    isdb_real X[8] = {0}, out[2];
    unsigned char buf[64];
    size_t n = 0;
    int arm = -1;
    isdb_refusal why;
    CHECK_MSG(p->vt == NULL && p->_heap == NULL && p->_owns_heap == 0, "%s: not zeroed", label);
    CHECK_RESULT(isdb_policy_select(p, X, 1, &arm), ISDB_ERR_BAD_STATE);
    CHECK_RESULT(isdb_policy_update(p, 0, X, 0), ISDB_ERR_BAD_STATE);
    CHECK_RESULT(isdb_policy_scores(p, X, 1, out), ISDB_ERR_BAD_STATE);
    CHECK_RESULT(isdb_policy_probs(p, X, 1, out), ISDB_ERR_BAD_STATE);
    CHECK_RESULT(isdb_policy_save(p, buf, sizeof buf, &n), ISDB_ERR_BAD_STATE);
    CHECK_RESULT(isdb_policy_load(p, buf, sizeof buf), ISDB_ERR_BAD_STATE);
    CHECK_RESULT(isdb_policy_check_select(p, X, 1, &arm, &why), ISDB_ERR_BAD_STATE);
    CHECK(why.field && strcmp(why.field, "pol") == 0);
    CHECK_RESULT(isdb_policy_check_update(p, 0, X, 0, &why), ISDB_ERR_BAD_STATE);
    CHECK(strcmp(isdb_policy_name(p), "none") == 0);
    isdb_policy_reset(p);
    isdb_policy_uninit(p); /* a no-op: under ASan, no free of a garbage pointer */
    isdb_policy_uninit(p);
    /* A NULL pointer stays an invalid argument. */
    CHECK_RESULT(isdb_policy_select(NULL, X, 1, &arm), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_save(NULL, buf, sizeof buf, &n), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_policy_load(NULL, buf, sizeof buf), ISDB_ERR_INVALID_ARG);
}

static void play(isdb_policy *p, const policy_case *pc, int rounds) {
    isdb_real X[64 * 8], y;
    int t, n, arm;
    isdb_rng rng;
    isdb_rng_seed(&rng, 11);
    for (t = 0; t < rounds; ++t) {
        case_round(&rng, pc, pc->d, pc->max_arms, &n, X);
        CHECK_OK(isdb_policy_select(p, X, n, &arm));
        if (arm < 0 || arm >= n) return;
        y = (isdb_real)isdb_rng_normal(&rng);
        CHECK(isdb_policy_update(p, arm, X + arm * pc->d, y) >= 0);
    }
}

/* Item 1 for one policy: heap_size - 1 bytes refused, heap_size bytes run. */
static void check_bounds(const policy_case *pc) {
    static storage mem;
    isdb_policy *p = (isdb_policy *)&mem;
    isdb_refusal why;
    size_t bytes = 0, short_bytes;
    unsigned char *heap;
    CHECK_OK(pc->make_pre(pc->d, pc->max_arms, NULL, &bytes, &mem));
    CHECK(bytes > 1);
    short_bytes = bytes - 1;
    heap = (unsigned char *)malloc(short_bytes);
    if (!heap) return;
    memset(heap, PATTERN, short_bytes);
    memset(&mem, PATTERN, sizeof mem);
    CHECK_RESULT(pc->make_pre(pc->d, pc->max_arms, heap, &short_bytes, &mem), ISDB_ERR_BUFFER_TOO_SMALL);
    CHECK_MSG(all_bytes(heap, short_bytes, PATTERN), "%s: a refused buffer was written", pc->label);
    CHECK_MSG(all_bytes(&mem, sizeof(isdb_policy), 0), "%s: a refused init left the object unzeroed", pc->label);
    check_refused_policy(p, pc->label);
    CHECK_RESULT(isdb_init_check(heap, short_bytes, bytes, &mem, &why), ISDB_ERR_BUFFER_TOO_SMALL);
    CHECK(why.field && strcmp(why.field, "heap_bytes") == 0 && why.lo == (double)bytes);
    CHECK_OK(isdb_init_check(heap, bytes, bytes, &mem, &why));
    free(heap);

    heap = (unsigned char *)malloc(bytes);
    if (!heap) return;
    CHECK_OK(pc->make_pre(pc->d, pc->max_arms, heap, &bytes, &mem));
    CHECK(p->_heap == heap && p->_heap_size == bytes && p->_owns_heap == 0);
    play(p, pc, 40);
    isdb_policy_uninit(p);
    free(heap);
}

/* Item 9a for one policy: garbage, a bad config, then nothing but BAD_STATE. */
static void check_refused_init(const policy_case *pc) {
    static storage mem;
    isdb_policy *p = (isdb_policy *)&mem;
    memset(&mem, PATTERN, sizeof mem);
    CHECK_RESULT(pc->make(NULL, 0, pc->max_arms, &mem), ISDB_ERR_INVALID_ARG);
    CHECK_MSG(all_bytes(&mem, sizeof(isdb_policy), 0), "%s: bad config: object not zeroed", pc->label);
    check_refused_policy(p, pc->label);
    /* A failed allocation too. */
    memset(&mem, PATTERN, sizeof mem);
    refused_allocs = 0;
    CHECK_RESULT(pc->make(&failing, pc->d, pc->max_arms, &mem), ISDB_ERR_OUT_OF_MEMORY);
    CHECK(refused_allocs == 1);
    check_refused_policy(p, pc->label);
}

/* A NULL, a misaligned heap: refused, the object zeroed. */
static void check_bad_heap(void) {
    static storage mem;
    static double heap[4096];
    isdb_linucb_config c = isdb_linucb_config_init(3, 4);
    isdb_linucb *pol = (isdb_linucb *)&mem;
    memset(&mem, PATTERN, sizeof mem);
    CHECK_RESULT(isdb_linucb_init_preallocated(&c, NULL, sizeof heap, pol), ISDB_ERR_INVALID_ARG);
    CHECK(all_bytes(pol, sizeof *pol, 0));
    check_refused_policy(&pol->base, "linucb NULL heap");
    memset(&mem, PATTERN, sizeof mem);
    CHECK_RESULT(isdb_linucb_init_preallocated(&c, (unsigned char *)heap + 4, sizeof heap - 4, pol),
                 ISDB_ERR_INVALID_ARG);
    CHECK(all_bytes(pol, sizeof *pol, 0));
    memset(&mem, PATTERN, sizeof mem);
    CHECK_RESULT(isdb_linucb_init_preallocated(NULL, heap, sizeof heap, pol), ISDB_ERR_INVALID_ARG);
    CHECK(all_bytes(pol, sizeof *pol, 0));
    CHECK_RESULT(isdb_linucb_init_preallocated(&c, heap, sizeof heap, NULL), ISDB_ERR_INVALID_ARG);
    CHECK_RESULT(isdb_linucb_init(&c, NULL, NULL), ISDB_ERR_INVALID_ARG);
}

/* The reported case: a buffer sized for one adaptive config, used after
   max_memory was raised. */
static void check_adaptive_raised(void) {
    static storage mem;
    isdb_adaptive_config c = isdb_adaptive_config_init(4, 5);
    size_t small = 0, big = 0;
    unsigned char *heap;
    c.min_memory = 2;
    c.max_memory = 8;
    CHECK_OK(isdb_adaptive_heap_size(&c, &small));
    c.max_memory = 1 << 20;
    CHECK_OK(isdb_adaptive_heap_size(&c, &big));
    CHECK(big > small);
    heap = (unsigned char *)malloc(small);
    if (!heap) return;
    memset(heap, PATTERN, small);
    memset(&mem, PATTERN, sizeof mem);
    CHECK_RESULT(isdb_adaptive_init_preallocated(&c, heap, small, (isdb_adaptive *)&mem), ISDB_ERR_BUFFER_TOO_SMALL);
    CHECK(all_bytes(heap, small, PATTERN));
    CHECK(all_bytes(&mem, sizeof(isdb_adaptive), 0));
    free(heap);
}

/* config_check, heap_size and init agree: all OK (init then may only run
   out of memory), or all refuse, config_check naming `field`. */
#define AGREE(name, cfg, blamed)                                                                              \
    do {                                                                                                        \
        static storage mem_;                                                                                    \
        isdb_refusal why_;                                                                                      \
        size_t bytes_ = 0;                                                                                      \
        isdb_result rc_ = isdb_##name##_config_check(&(cfg), &why_);                                            \
        isdb_result rh_ = isdb_##name##_heap_size(&(cfg), &bytes_);                                             \
        isdb_result ri_;                                                                                        \
        const char *blame_ = (blamed);                                                                          \
        memset(&mem_, PATTERN, sizeof mem_);                                                                    \
        ri_ = isdb_##name##_init(&(cfg), &failing, (isdb_##name *)&mem_);                                       \
        if (blame_) {                                                                                           \
            CHECK_RESULT(rc_, ISDB_ERR_INVALID_ARG);                                                            \
            CHECK_MSG(why_.field && strcmp(why_.field, blame_) == 0, #name ": refused %s",                      \
                      why_.field ? why_.field : "nothing");                                                     \
            CHECK_RESULT(rh_, ISDB_ERR_INVALID_ARG);                                                            \
            CHECK_RESULT(ri_, ISDB_ERR_INVALID_ARG);                                                            \
        } else {                                                                                                \
            CHECK_OK(rc_);                                                                                      \
            CHECK_OK(rh_);                                                                                      \
            CHECK(bytes_ > 0);                                                                                  \
            CHECK_RESULT(ri_, ISDB_ERR_OUT_OF_MEMORY);                                                          \
        }                                                                                                       \
        CHECK(all_bytes(&mem_, sizeof(isdb_##name), 0));                                                        \
    } while (0)

static void check_sizes_agree(void) {
    const char *none = NULL;
    {
        isdb_swucb_config c = isdb_swucb_config_init(8, 4, INT_MAX / 9 + 1);
        AGREE(swucb, c, "window");
        if (sizeof(size_t) >= 8) {
            c.window = INT_MAX / 9; /* 16 GB of ring: fits a 64-bit size_t */
            AGREE(swucb, c, none);
        }
    }
    {
        isdb_adaptive_config c = isdb_adaptive_config_init(8, 4);
        c.max_memory = INT_MAX;
        AGREE(adaptive, c, none); /* the memory is a count: the heap holds at most 32 estimators */
        c.max_memory = -1;
        AGREE(adaptive, c, "max_memory");
    }
#if !ISDB_REAL_IS_FLOAT
    {
        /* The probe's case: a ring of 16336 pieces of 525826 doubles was
           counted in an int (515 MB reported for 34 GB). */
        isdb_isd_config c = isdb_isd_config_init(1024, 2, 0, NULL, NULL);
        c.oracle = 1;
        c.p_inv = 0;
        c.monitor = ISDB_ISD_MONITOR_FALLBACK;
        c.monitor_window = 16334;
        c.monitor_chunk = 1;
        AGREE(isd, c, "monitor_chunk");
        c.monitor_chunk = 0; /* the automatic piece, a quarter of the window: fits */
        if (sizeof(size_t) >= 8) AGREE(isd, c, none);
        c.monitor_window = 3000000; /* the rows kept no longer fit an int */
        AGREE(isd, c, "history");
    }
    {
        /* 8 d^2 + 8 d doubles of scratch, one more than INT_MAX. */
        isdb_isd_config c = isdb_isd_config_init(ISDB_MAX_DIM, 2, 0, NULL, NULL);
        c.oracle = 1;
        c.p_inv = 0;
        c.monitor = ISDB_ISD_MONITOR_OFF;
        AGREE(isd, c, "d");
        c.d = ISDB_MAX_DIM / 2;
        if (sizeof(size_t) >= 8) AGREE(isd, c, none);
    }
    {
        /* The design's scratch grows as the square of the action sets kept. */
        isdb_oam_config c = isdb_oam_config_init(1, 1, 1000);
        c.max_contexts = 40000;
        AGREE(oam, c, "max_contexts");
        c.max_contexts = 20000;
        AGREE(oam, c, none);
    }
#endif
}

/* Item 9d: a save into the policy's own heap or object is refused. */
static void check_save_overlap(const policy_case *pc) {
    static storage mem;
    static unsigned char before[1 << 16], after[1 << 16];
    isdb_policy *p = (isdb_policy *)&mem;
    size_t bytes = 0, n_before = 0, n_after = 0, n = 0, room;
    unsigned char *arena;
    CHECK_OK(pc->make_pre(pc->d, pc->max_arms, NULL, &bytes, &mem));
    room = bytes + sizeof before;
    arena = (unsigned char *)malloc(room);
    if (!arena) return;
    CHECK_OK(pc->make_pre(pc->d, pc->max_arms, arena, &bytes, &mem));
    play(p, pc, 15);
    CHECK_OK(isdb_policy_save(p, before, sizeof before, &n_before));
    CHECK_MSG(isdb_policy_save(p, arena, room, &n) == ISDB_ERR_INVALID_ARG, "%s: save into its own heap", pc->label);
    CHECK_RESULT(isdb_policy_save(p, arena + bytes / 2, room - bytes / 2, &n), ISDB_ERR_INVALID_ARG);
    if (n_before <= sizeof mem - 8)
        CHECK_RESULT(isdb_policy_save(p, (unsigned char *)&mem + 8, sizeof mem - 8, &n), ISDB_ERR_INVALID_ARG);
    CHECK_OK(isdb_policy_save(p, after, sizeof after, &n_after));
    CHECK_MSG(n_before == n_after && memcmp(before, after, n_before) == 0, "%s: a refused save changed the state",
              pc->label);
    /* The rest of the same arena, past the heap, is fine. */
    CHECK_OK(isdb_policy_save(p, arena + bytes, room - bytes, &n));
    CHECK(n == n_before && memcmp(arena + bytes, before, n) == 0);
    CHECK_OK(isdb_policy_load(p, arena + bytes, n));
    play(p, pc, 5);
    isdb_policy_uninit(p);
    free(arena);
}

/* ------------------------------------------------------------------ */
/* Environments. */

static void check_refused_env(isdb_env *e, const char *label) {
    isdb_real y;
    static storage pmem;
    isdb_linucb_config c = isdb_linucb_config_init(2, 3);
    isdb_sim_result res;
    CHECK_MSG(e->vt == NULL && e->_heap == NULL && e->_owns_heap == 0, "%s: env not zeroed", label);
    CHECK_RESULT(isdb_env_next(e), ISDB_ERR_BAD_STATE);
    CHECK_RESULT(isdb_env_reward(e, 0, &y), ISDB_ERR_BAD_STATE);
    CHECK_OK(isdb_linucb_init(&c, NULL, (isdb_linucb *)&pmem));
    CHECK_RESULT(isdb_sim_run((isdb_policy *)&pmem, e, 3, NULL, &res), ISDB_ERR_BAD_STATE);
    isdb_policy_uninit((isdb_policy *)&pmem);
    isdb_env_reset(e);
    isdb_env_uninit(e);
    isdb_env_uninit(e);
    CHECK_RESULT(isdb_env_next(NULL), ISDB_ERR_INVALID_ARG);
}

/* One environment kind: the refusals, then a run on an exact buffer that
   draws the same rounds as the allocating init. */
#define CHECK_ENV(name, cfg, label)                                                                            \
    do {                                                                                                        \
        static storage a_, b_;                                                                                  \
        isdb_##name##_config bad_ = (cfg);                                                                      \
        isdb_env *ea_ = (isdb_env *)&a_, *eb_ = (isdb_env *)&b_;                                                \
        isdb_refusal why_;                                                                                      \
        size_t bytes_ = 0;                                                                                      \
        unsigned char *heap_;                                                                                   \
        int t_, k_;                                                                                             \
        CHECK_OK(isdb_##name##_heap_size(&(cfg), &bytes_));                                                     \
        CHECK(bytes_ > 1);                                                                                      \
        heap_ = (unsigned char *)malloc(bytes_ - 1);                                                            \
        if (!heap_) break;                                                                                      \
        memset(heap_, PATTERN, bytes_ - 1);                                                                     \
        memset(&a_, PATTERN, sizeof a_);                                                                        \
        CHECK_RESULT(isdb_##name##_init_preallocated(&(cfg), heap_, bytes_ - 1, (isdb_##name *)&a_),            \
                     ISDB_ERR_BUFFER_TOO_SMALL);                                                                \
        CHECK_MSG(all_bytes(heap_, bytes_ - 1, PATTERN), "%s: a refused buffer was written", label);            \
        CHECK_MSG(all_bytes(&a_, sizeof(isdb_##name), 0), "%s: not zeroed", label);                             \
        check_refused_env(ea_, label);                                                                          \
        CHECK_RESULT(isdb_init_check(heap_, bytes_ - 1, bytes_, &a_, &why_), ISDB_ERR_BUFFER_TOO_SMALL);        \
        CHECK(why_.field && strcmp(why_.field, "heap_bytes") == 0 && why_.lo == (double)bytes_);                \
        free(heap_);                                                                                            \
        /* A bad config, a NULL heap, a failed allocation: zeroed. */                                           \
        bad_.d = 0;                                                                                             \
        memset(&a_, PATTERN, sizeof a_);                                                                        \
        CHECK_RESULT(isdb_##name##_init(&bad_, NULL, (isdb_##name *)&a_), ISDB_ERR_INVALID_ARG);                \
        check_refused_env(ea_, label);                                                                          \
        memset(&a_, PATTERN, sizeof a_);                                                                        \
        CHECK_RESULT(isdb_##name##_init_preallocated(&(cfg), NULL, bytes_, (isdb_##name *)&a_),                 \
                     ISDB_ERR_INVALID_ARG);                                                                     \
        check_refused_env(ea_, label);                                                                          \
        memset(&a_, PATTERN, sizeof a_);                                                                        \
        CHECK_RESULT(isdb_##name##_init(&(cfg), &failing, (isdb_##name *)&a_), ISDB_ERR_OUT_OF_MEMORY);         \
        check_refused_env(ea_, label);                                                                          \
        /* Exactly heap_size bytes: the same rounds as the allocating init. */                                  \
        heap_ = (unsigned char *)malloc(bytes_);                                                                \
        if (!heap_) break;                                                                                      \
        CHECK_OK(isdb_##name##_init_preallocated(&(cfg), heap_, bytes_, (isdb_##name *)&a_));                   \
        CHECK_OK(isdb_##name##_init(&(cfg), NULL, (isdb_##name *)&b_));                                         \
        CHECK(ea_->_heap == heap_ && ea_->_owns_heap == 0 && eb_->_owns_heap == 1);                             \
        for (t_ = 0; t_ < 25; ++t_) {                                                                           \
            isdb_real ya_ = 0, yb_ = 0;                                                                         \
            CHECK_OK(isdb_env_next(ea_));                                                                       \
            CHECK_OK(isdb_env_next(eb_));                                                                       \
            for (k_ = 0; k_ < ea_->n_arms * ea_->d; ++k_) CHECK(ea_->X[k_] == eb_->X[k_]);                      \
            CHECK_OK(isdb_env_reward(ea_, t_ % ea_->n_arms, &ya_));                                             \
            CHECK_OK(isdb_env_reward(eb_, t_ % eb_->n_arms, &yb_));                                             \
            CHECK(ya_ == yb_);                                                                                  \
        }                                                                                                       \
        isdb_env_uninit(ea_); /* must not free the caller's buffer */                                           \
        isdb_env_uninit(eb_);                                                                                   \
        free(heap_);                                                                                            \
    } while (0)

static void check_envs(void) {
    static const isdb_real pieces[6] = {1, 0, 0, 0, 1, 0};
    static const uint64_t switch_at[1] = {10};
    {
        isdb_linear_env_config c = isdb_linear_env_config_init(3, 4);
        c.n_pieces = 2;
        c.pieces = pieces;
        c.switch_at = switch_at;
        CHECK_ENV(linear_env, c, "linear env");
        c.arms = ISDB_ARMS_GAUSSIAN;
        CHECK_ENV(linear_env, c, "linear env gaussian");
    }
#if !ISDB_REAL_IS_FLOAT
    {
        static const int sizes[2] = {2, 2}, residual[2] = {0, 1};
        isdb_isd_env_config c = isdb_isd_env_config_init(4, 5, 2, sizes, residual);
        CHECK_ENV(isd_env, c, "isd env");
    }
    {
        static const uint64_t sw[1] = {7};
        isdb_kernel_env_config c = isdb_kernel_env_config_init(2, 6);
        c.n_switches = 1;
        c.switch_at = sw;
        CHECK_ENV(kernel_env, c, "kernel env");
        c.kind = ISDB_KENV_COSINE;
        CHECK_ENV(kernel_env, c, "kernel env cosine");
    }
    {
        static const double arms[2 * 3 * 2] = {1, 0, 0, 1, 1, 1, -1, 0, 0, -1, 0.5, 0.5};
        static const double theta[2] = {0.3, -0.2};
        isdb_context_env_config c = isdb_context_env_config_init(2, 3, 2);
        c.arms = arms;
        c.theta = theta;
        CHECK_ENV(context_env, c, "context env");
    }
    {
        isdb_active_env_config c = isdb_active_env_config_init(3, 2);
        CHECK_ENV(active_env, c, "active env");
    }
#endif
}

int main(void) {
    int i;
    for (i = 0; i < N_CASES; ++i) {
        check_bounds(&cases[i]);
        check_refused_init(&cases[i]);
        check_save_overlap(&cases[i]);
    }
    check_bad_heap();
    check_adaptive_raised();
    check_sizes_agree();
    check_envs();
    return test_report();
}

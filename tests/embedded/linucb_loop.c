/* linucb_loop.c - LinUCB as a microcontroller runs it: d = 8 features,
   K = 10 arms a round, T = 2000 rounds, the policy on a static buffer.
   Arms and rewards come from an integer generator and are exact in float
   and double, so the board's run and the host's run of this file see the
   same inputs; it prints every choice, the regret and a checksum of the
   final state (its snapshot) for run.sh to compare. */
#include "emb.h"

#define ISDB_IMPLEMENTATION
#include "../../isdbandit.h"

#define D 8
#define K 10
#define T 2000

static union {
    uint64_t align; /* the heap must be 8-byte aligned */
    unsigned char bytes[4096];
} heap;
static unsigned char snapshot[4096];
static isdb_real X[K * D];
static isdb_linucb pol;

static isdb_real dot(const isdb_real *a, const isdb_real *b) {
    isdb_real s = 0;
    int j;
    for (j = 0; j < D; ++j) s += a[j] * b[j];
    return s;
}

/* FNV-1a, 64 bits. */
static uint64_t fnv1a(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325u;
    size_t i;
    for (i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

static uint64_t real_bits(isdb_real v) {
    uint64_t u = 0;
    if (sizeof v == 4) {
        uint32_t w;
        memcpy(&w, &v, 4);
        u = w;
    } else {
        memcpy(&u, &v, 8);
    }
    return u;
}

int main(void) {
    isdb_linucb_config cfg = isdb_linucb_config_init(D, K);
    isdb_real theta[D], regret = 0;
    uint32_t seed = 2463534242u;
    size_t need, size;
    char line[101];
    int t, i, j, arm;
    cfg.R = (isdb_real)0.25; /* the noise below is uniform in [-0.25, 0.25) */
    if (isdb_linucb_heap_size(&cfg, &need) != ISDB_OK || need > sizeof heap.bytes) return 1;
    if (isdb_linucb_init_preallocated(&cfg, heap.bytes, sizeof heap.bytes, &pol) != ISDB_OK) return 1;
    for (j = 0; j < D; ++j) theta[j] = EMB_UNIT(&seed) / 2;
    emb_write(sizeof(isdb_real) == 4 ? "linucb float" : "linucb double");
    emb_write(" d 8 K 10 T 2000 heap ");
    emb_write_uint(need);
    emb_write("\nchoices\n");
    for (t = 0; t < T; ++t) {
        isdb_real best, mean;
        if (t == T / 2) /* a sudden change: the world drifts, LinUCB does not know */
            for (j = 0; j < D; ++j) theta[j] = -theta[j];
        for (i = 0; i < K * D; ++i) X[i] = EMB_UNIT(&seed);
        if (isdb_policy_select(&pol.base, X, K, &arm) != ISDB_OK) return 1;
        for (best = dot(X, theta), i = 1; i < K; ++i)
            if (dot(X + i * D, theta) > best) best = dot(X + i * D, theta);
        mean = dot(X + arm * D, theta);
        regret += best - mean;
        if (isdb_policy_update(&pol.base, arm, X + arm * D, mean + EMB_UNIT(&seed) / 4) != ISDB_OK) return 1;
        line[t % 100] = (char)('0' + arm);
        if (t % 100 == 99) {
            line[100] = '\0';
            emb_write(line);
            emb_write("\n");
        }
    }
    if (isdb_policy_save(&pol.base, snapshot, sizeof snapshot, &size) != ISDB_OK) return 1;
    emb_write("regret bits ");
    emb_write_hex(real_bits(regret), 2 * (int)sizeof(isdb_real));
    emb_write("\nsnapshot ");
    emb_write_uint(size);
    emb_write(" bytes, fnv1a ");
    emb_write_hex(fnv1a(snapshot, size), 16);
    emb_write("\n");
    isdb_policy_uninit(&pol.base);
    return 0;
}

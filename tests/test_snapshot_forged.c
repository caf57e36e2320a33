/* test_snapshot_forged.c - load refuses forged snapshots.
   Every policy of tests/cases.h is played for a few rounds, saved, and its
   snapshot forged one value at a time with the checksum made right again
   (see SNAPSHOT FORMAT in the header): a non-finite value, a negative
   variance or count, a factor whose diagonal is not positive or that is
   not the factor of its Gram sum, a reciprocal or a solve that does not
   match, a probability out of [0, 1], a count that contradicts the update
   count. Each must be refused with ISDB_ERR_SNAPSHOT_CORRUPT and leave
   the state byte-identical, while the same bytes with the checksum
   recomputed load.
   The values are found in the snapshot by their bit patterns (read from
   the policy's own arrays), so the test does not depend on offsets.
   The unforged snapshot loads into a fresh policy, which then continues
   bit for bit like the original. Builds in both precisions (the double-only
   policies are left out of a float build). */
#include "../isdbandit.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "cases.h"

/* W's prior lambda R^2 (before R names the size of a real below). */
static isdb_real adaptive_w_prior(const isdb_adaptive_config *c) { return c->lambda * c->R * c->R; }

#define CAP (1 << 20)
#define R ((size_t)sizeof(isdb_real))
#define WARMUP 20

static unsigned char snap[CAP], forged[CAP], before[CAP], after[CAP], pattern[CAP];
static storage mem_a, mem_b;
static isdb_real X[64 * 16], out_a[64], out_b[64];

static isdb_real absr(isdb_real x) { return x < 0 ? -x : x; }

static size_t save(isdb_policy *p, unsigned char *buf) {
    size_t n = 0;
    CHECK_OK(isdb_policy_save(p, buf, CAP, &n));
    return n;
}

/* A real as the snapshot writes it: its bit pattern, little-endian. */
static void put_real(unsigned char *at, isdb_real v) {
    uint64_t bits = 0;
#if ISDB_REAL_IS_FLOAT
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    bits = u;
#else
    memcpy(&bits, &v, sizeof bits);
#endif
    t_put_le(at, bits, (int)R);
}

static isdb_real get_real(const unsigned char *at) {
    uint64_t bits = t_get_le(at, (int)R);
    isdb_real v;
#if ISDB_REAL_IS_FLOAT
    uint32_t u = (uint32_t)bits;
    memcpy(&v, &u, sizeof v);
#else
    memcpy(&v, &bits, sizeof v);
#endif
    return v;
}

/* The offset of the count reals v in the snapshot s (n bytes): they must
   occur there exactly once. 0 if not. */
static size_t find_reals(const unsigned char *s, size_t n, const isdb_real *v, int count, const char *label) {
    size_t len = (size_t)count * R, at, found = 0, hits = 0;
    int k;
    for (k = 0; k < count; ++k) put_real(pattern + (size_t)k * R, v[k]);
    for (at = 24; at + len + 8 <= n; ++at)
        if (memcmp(s + at, pattern, len) == 0) {
            found = at;
            ++hits;
        }
    CHECK_MSG(hits == 1, "%s: %d values found %d times in the snapshot", label, count, (int)hits);
    return hits == 1 ? found : 0;
}

/* The snapshot (n bytes) with the real at `at` set to v, checksum made
   right, into `forged`. */
static void forge(size_t n, size_t at, isdb_real v) {
    memcpy(forged, snap, n);
    put_real(forged + at, v);
    t_put_le(forged + n - 8, t_fnv1a(forged, n - 8), 8);
}

/* The forgery must be refused without a change; `at` 0 means the value
   was not found (already reported). */
static void refused(isdb_policy *p, size_t n, size_t at, isdb_real v, const char *label, const char *what) {
    size_t nb, na;
    if (!at) return;
    nb = save(p, before);
    forge(n, at, v);
    CHECK_MSG(isdb_policy_load(p, forged, n) == ISDB_ERR_SNAPSHOT_CORRUPT, "%s: loaded a snapshot with %s", label, what);
    na = save(p, after);
    CHECK_MSG(na == nb && memcmp(before, after, nb) == 0, "%s: refusing %s changed the state", label, what);
}

/* As refused, for the 4-byte integer at `at`. */
static void refused_int(isdb_policy *p, size_t n, size_t at, int v, const char *label, const char *what) {
    size_t nb, na;
    if (!at) return;
    nb = save(p, before);
    memcpy(forged, snap, n);
    t_put_le(forged + at, (uint64_t)(uint32_t)v, 4);
    t_put_le(forged + n - 8, t_fnv1a(forged, n - 8), 8);
    CHECK_MSG(isdb_policy_load(p, forged, n) == ISDB_ERR_SNAPSHOT_CORRUPT, "%s: loaded a snapshot with %s", label, what);
    na = save(p, after);
    CHECK_MSG(na == nb && memcmp(before, after, nb) == 0, "%s: refusing %s changed the state", label, what);
}

/* The same bytes with only the checksum recomputed load: the forgeries
   above are refused for their values. */
static void control(isdb_policy *p, size_t n, size_t at, const char *label) {
    if (!at) return;
    forge(n, at, get_real(snap + at));
    CHECK_MSG(isdb_policy_load(p, forged, n) == ISDB_OK, "%s: the unforged value was refused", label);
}

/* ---- per state part --------------------------------------------------------- */

/* A lower factor L (n x n, stride n) at offset at: non-finite, zero and
   negative diagonals, and an off-diagonal entry that makes L L^T another
   matrix than the one it factors. */
static void forge_factor(isdb_policy *p, size_t n, size_t at, const isdb_real *L, int d, const char *label) {
    if (!at) return;
    control(p, n, at, label);
    refused(p, n, at, T_INF, label, "an infinite factor entry");
    refused(p, n, at, T_NAN, label, "a NaN factor entry");
    refused(p, n, at, 0, label, "a zero factor diagonal");
    refused(p, n, at, -L[0], label, "a negative factor diagonal");
    if (d >= 2) {
        size_t at10 = at + (size_t)d * R; /* L_10 */
        refused(p, n, at10, L[d] + 2 * L[d + 1] + 1, label, "a factor that does not match its Gram sum");
        refused(p, n, at + R, 1, label, "a factor not lower triangular");
    }
}

/* A Gram matrix (stride d) at `at`: a negative variance on the diagonal,
   and an off-diagonal entry beyond what its diagonal allows. */
static void forge_gram(isdb_policy *p, size_t n, size_t at, const isdb_real *G, int d, const char *label) {
    if (!at) return;
    refused(p, n, at, -1, label, "a negative variance in a Gram matrix");
    refused(p, n, at, T_INF, label, "an infinite variance");
    if (d >= 2) refused(p, n, at + (size_t)d * R, 4 * (G[0] + G[d + 1]) + 1, label, "a Gram matrix that is not PSD");
}

/* The ridge core: L, 1 / diag L, V (if kept), b, in a float build the
   rounding errors of V and b (if V is kept), z, log det, in that order in
   the snapshot. */
static void forge_ridge(isdb_policy *p, size_t n, const isdb__ridge *r, int z_solved, const char *label) {
    int d = r->d;
    size_t dd = (size_t)d * (size_t)d, at = find_reals(snap, n, r->L, d * d, label), inv, V, b, z, logdet;
    if (!at) return;
    inv = at + dd * R;
    V = inv + (size_t)d * R;
    b = r->V ? V + dd * R : V;
    z = b + (size_t)d * R;
    if (ISDB_REAL_IS_FLOAT && r->V) z += (dd + (size_t)d) * R;
    logdet = z + (size_t)d * R;
    CHECK_MSG(get_real(snap + z) == r->z[0] && get_real(snap + logdet) == r->logdet, "%s: ridge layout", label);
    forge_factor(p, n, at, r->L, d, label);
    refused(p, n, inv, 2 * r->inv_diag[0], label, "a reciprocal diagonal that is not 1 / L_ii");
    if (r->V) forge_gram(p, n, V, r->V, d, label);
    refused(p, n, b, T_NAN, label, "a NaN sum");
    if (z_solved)
        refused(p, n, z, r->z[0] + 1 + absr(r->z[0]), label, "a solve that does not match");
    else
        refused(p, n, z, ISDB_INPUT_MAX * ISDB_INPUT_MAX * ISDB_INPUT_MAX, label, "a z far from L^-1 b");
    refused(p, n, logdet, r->logdet + 10, label, "a log-determinant not that of the factor");
}

/* ---- per policy --------------------------------------------------------------- */

/* SW-UCB: the ridge, and the window's fill and head, which the update
   count fixes (they precede the two rebuild counters and the factor). */
static void forge_swucb(isdb_policy *bp, size_t n, const char *label) {
    const isdb_swucb *p = (const isdb_swucb *)bp;
    int d = p->cfg.d;
    size_t at = find_reals(snap, n, p->_ridge.L, d * d, label);
    forge_ridge(bp, n, &p->_ridge, 1, label);
    if (!at) return;
    CHECK_MSG(t_get_le(snap + at - 24, 4) == (uint64_t)p->count, "%s: layout", label);
    refused_int(bp, n, at - 24, p->count > 0 ? p->count - 1 : 1, label, "a window fill that contradicts t");
    refused_int(bp, n, at - 20, (p->head + 1) % p->cfg.window + (p->cfg.window == 1), label,
                "a window head that contradicts t");
}

static void forge_dlinucb(isdb_policy *bp, size_t n, const char *label) {
    const isdb_dlinucb *p = (const isdb_dlinucb *)bp;
    int d = p->cfg.d;
    size_t dd = (size_t)d * (size_t)d, V = find_reals(snap, n, p->_gram, d * d, label), Vt, L, inv, z;
    if (!V) return;
    Vt = V + dd * R; /* V, Vt, L, 1 / diag L, b, z */
    L = Vt + dd * R;
    inv = L + dd * R;
    z = inv + 2 * (size_t)d * R;
    CHECK_MSG(get_real(snap + z) == p->_z[0], "%s: layout", label);
    forge_gram(bp, n, V, p->_gram, d, label);
    forge_gram(bp, n, Vt, p->_gram_tilde, d, label);
    refused(bp, n, Vt, p->_gram[0] * 2 + 1, label, "a Vt above V");
    forge_factor(bp, n, L, p->_chol, d, label);
    refused(bp, n, inv, -p->_inv_diag[0], label, "a negative reciprocal diagonal");
    if (p->cfg.refresh == 1 || p->base.t % (uint64_t)p->cfg.refresh == 0)
        refused(bp, n, z, p->_z[0] + 1 + absr(p->_z[0]), label, "a solve that does not match");
    else /* z carried by the O(d^2) steps since the last refactorisation */
        refused(bp, n, z, ISDB_INPUT_MAX * ISDB_INPUT_MAX * ISDB_INPUT_MAX, label, "a z far from L^-1 b");
}

static void forge_adaptive(isdb_policy *bp, size_t n, const char *label) {
    const isdb_adaptive *p = (const isdb_adaptive *)bp;
    int d = p->cfg.d, k = p->n_est;
    size_t at;
    forge_ridge(bp, n, &p->_est[0].ridge, 0, label);
    forge_gram(bp, n, find_reals(snap, n, p->_est[0].Vt, d * d, label), p->_est[0].Vt, d, label);
    /* NOISE_LOCAL's error Gram sum W: a Gram matrix of at least its prior lambda R^2 I */
    if (p->_est[0].W) {
        at = find_reals(snap, n, p->_est[0].W, d * d, label);
        forge_gram(bp, n, at, p->_est[0].W, d, label);
        if (at && adaptive_w_prior(&p->cfg) > 0)
            refused(bp, n, at, adaptive_w_prior(&p->cfg) / 2, label, "an error Gram sum below its prior");
    }
    /* The change test's sums of squares are variances; pairs i >= j are unused and zero. */
    at = find_reals(snap, n, p->_sq, k * k, label);
    if (at) {
        refused(bp, n, at + R, -1, label, "a negative sum of squares");
        refused(bp, n, at, 1, label, "a sum for an unused pair");
    }
}

static void forge_bob(isdb_policy *bp, size_t n, const char *label) {
    const isdb_bob *p = (const isdb_bob *)bp;
    isdb_real run[1 + 64];
    size_t at;
    int k;
    /* The log-weights follow the block's reward sum (all are 0 before the
       first block ends, so they are found by the pair). */
    run[0] = p->block_sum;
    for (k = 0; k < p->par.n_windows; ++k) run[1 + k] = p->_logw[k];
    at = find_reals(snap, n, run, 1 + p->par.n_windows, label);
    forge_ridge(bp, n, &p->sw._ridge, 1, label);
    if (at) {
        at += R;
        refused(bp, n, at, T_INF, label, "an infinite log-weight");
        refused(bp, n, at, (isdb_real)0.5, label, "a positive log-weight (a weight above its normaliser)");
    }
}

#if !ISDB_REAL_IS_FLOAT
static void forge_isd(isdb_policy *bp, size_t n, const char *label) {
    const isdb_isd *p = (const isdb_isd *)bp;
    int d = p->cfg.d, q = p->_res.d;
    size_t at;
    if (q >= 1) {
        at = find_reals(snap, n, p->_res.L, d * d, label);
        if (at) {
            control(bp, n, at, label);
            refused(bp, n, at, 0, label, "a zero residual factor diagonal");
            refused(bp, n, at, T_INF, label, "an infinite residual factor entry");
            refused(bp, n, at, -p->_res.L[0], label, "a negative residual factor diagonal");
        }
        if (p->cfg.learner == ISDB_ISD_RES_LINUCB) {
            at = find_reals(snap, n, p->_res.V, d * d, label);
            refused(bp, n, at, -1, label, "a negative variance in the residual Gram matrix");
            if (q >= 2) refused(bp, n, at + (size_t)q * R, p->_res.V[q] + 1, label, "a factor that does not match V");
        }
        if (p->cfg.learner == ISDB_ISD_RES_ADAPTIVE) {
            /* the adaptive learner's longest memory, in dimension q */
            const isdb__ridge *e = &p->_ada._est[p->_ada.n_est - 1].ridge;
            at = find_reals(snap, n, e->L, q * q, label);
            refused(bp, n, at, 0, label, "a zero diagonal in the adaptive residual learner's factor");
        }
        if (p->cfg.learner == ISDB_ISD_RES_DISCOUNT) {
            at = find_reals(snap, n, p->_gram_disc, d * d, label);
            refused(bp, n, at, -1, label, "a negative variance in the discounted Gram matrix");
            if (q >= 2) refused(bp, n, at + R, p->_gram_disc[1] + 1, label, "a discounted Gram matrix that is not symmetric");
            if (q >= 2) refused(bp, n, at + (size_t)q * R, p->_gram_disc[q] + 1, label, "a factor that does not match Vd");
        }
    }
    at = find_reals(snap, n, p->_gamma, d, label);
    refused(bp, n, at, p->_gamma[0] + 1, label, "an estimate gamma that is not beta + U theta");
    /* The fit's statistics lambda0, lambda_max, lambda_beta, delta_pi,
       r_inv, s2 (found as a run). */
    {
        isdb_real run[6];
        run[0] = p->_fit.lambda0;
        run[1] = p->_fit.lambda_max;
        run[2] = p->_fit.lambda_beta;
        run[3] = p->_fit.delta_pi;
        run[4] = p->_fit.r_inv;
        run[5] = p->_fit.s2;
        at = find_reals(snap, n, run, 6, label);
        if (at) {
            refused(bp, n, at + 2 * R, 1e-310, label, "a subnormal lambda_beta");
            refused(bp, n, at, p->_fit.lambda_max * 2 + 1, label, "lambda0 above lambda_max");
            refused(bp, n, at + 4 * R, p->_fit.r_inv * 2 + 1, label, "an r_inv not derived from the fit");
        }
    }
    /* The fit: U, U^T, beta_inv, Lbeta, W_inv, the statistics, the
       p-values (zero in oracle mode: found through U). */
    at = find_reals(snap, n, p->_fit.U, d * d, label);
    if (!at) return;
    refused(bp, n, at + (size_t)(d * d) * R, p->_fit.Ut[0] + 0.25, label, "a U^T that is not the transpose of U");
    at += (size_t)(4 * d * d + 2 * d) * R;
    CHECK_MSG(get_real(snap + at) == p->_fit.pvalue[0], "%s: fit layout", label);
    refused(bp, n, at, 1.5, label, "a p-value above 1");
    refused(bp, n, at, -0.5, label, "a negative p-value other than -1 (untestable)");
}

static void forge_opkb(isdb_policy *bp, size_t n, const char *label) {
    const isdb_opkb *p = (const isdb_opkb *)bp;
    int N = p->cfg.n_arms;
    size_t at = find_reals(snap, n, p->_strategies, N, label);
    refused(bp, n, at, 1.5, label, "a probability above 1");
    refused(bp, n, at, -0.25, label, "a negative probability");
    refused(bp, n, at, p->_strategies[0] + 0.25, label, "a strategy that does not sum to 1");
    at = find_reals(snap, n, p->_xstar, N, label);
    refused(bp, n, at, 2.0, label, "a warm start above 1");
}

static void forge_oam(isdb_policy *bp, size_t n, const char *label) {
    const isdb_oam *p = (const isdb_oam *)bp;
    int d = p->cfg.d, m, arms = 0;
    size_t G = find_reals(snap, n, p->_gram, d * d, label), theta = find_reals(snap, n, p->_theta, d, label), at;
    forge_gram(bp, n, G, p->_gram, d, label);
    if (p->factored) forge_factor(bp, n, find_reals(snap, n, p->_chol, d * d, label), p->_chol, d, label);
    refused(bp, n, theta, p->factored ? p->_theta[0] + 1 + absr(p->_theta[0]) : 1, label,
            "an estimate that does not solve G theta = b");
    refused(bp, n, find_reals(snap, n, &p->min_gap, 1, label), -1, label, "a negative gap");
    /* The distinct vectors (after their count) come from the registered
       arms: no more of them than arms, or the next set would not fit. */
    at = find_reals(snap, n, p->_vec, p->cfg.max_contexts * p->cfg.max_arms * d, label);
    for (m = 0; m < p->n_ctx; ++m) arms += p->_ctx_n[m];
    if (at) {
        CHECK_MSG(t_get_le(snap + at - 4, 4) == (uint64_t)p->n_vec, "%s: layout", label);
        refused_int(bp, n, at - 4, arms + 1, label, "more vectors than registered arms");
    }
}

static void forge_traceucb(isdb_policy *bp, size_t n, const char *label) {
    const isdb_traceucb *p = (const isdb_traceucb *)bp;
    int i, e = p->de, m = p->cfg.m, ee = e * e;
    size_t at;
    for (i = 0; i < m && !p->_full[i]; ++i) continue;
    if (i == m) return; /* no model past its first d + 1 samples */
    at = find_reals(snap, n, p->_chol + i * ee, ee, label);
    if (at) forge_factor(bp, n, at, p->_chol + i * ee, e, label);
    forge_gram(bp, n, find_reals(snap, n, p->_scatter + i * ee, ee, label), p->_scatter + i * ee, e, label);
    at = find_reals(snap, n, p->_rho, m, label);
    refused(bp, n, at + (size_t)i * R, -p->_rho[i] - 1, label, "a negative residual norm");
    refused(bp, n, at + (size_t)i * R, p->_rho[i] * 2 + 1, label, "a residual norm that does not match y^T y");
    at = find_reals(snap, n, p->_yy, m, label);
    refused(bp, n, at + (size_t)i * R, -1, label, "a negative sum of squares");
    at = find_reals(snap, n, p->_beta + i * e, e, label);
    refused(bp, n, at, p->_beta[i * e] + 1 + absr(p->_beta[i * e]), label, "an estimate that does not solve L^T beta = l");
    at = find_reals(snap, n, p->_trace, m, label);
    refused(bp, n, at + (size_t)i * R, -1, label, "a negative trace");
    refused(bp, n, at + (size_t)i * R, T_INF, label, "an infinite trace");
}
#endif

/* Forgeries every policy shares: the generator and the update count. */
static void forge_base(isdb_policy *p, size_t n, const char *label) {
    size_t rng = 24 + 32; /* after d, max_arms, seed and t (8 bytes each) */
    int k;
    memcpy(forged, snap, n);
    for (k = 0; k < 4; ++k) t_put_le(forged + rng + 8 * (size_t)k, 0, 8);
    t_put_le(forged + n - 8, t_fnv1a(forged, n - 8), 8);
    CHECK_MSG(isdb_policy_load(p, forged, n) == ISDB_ERR_SNAPSHOT_CORRUPT, "%s: loaded an all-zero generator", label);
    refused(p, n, rng + 32, T_INF, label, "an infinite Gaussian spare");
}

/* ---- driver ------------------------------------------------------------------ */

static void play(isdb_policy *p, const policy_case *pc, isdb_rng *rng, int rounds, isdb_real *out) {
    int t, n_arms, arm, d = pc->d;
    for (t = 0; t < rounds; ++t) {
        case_round(rng, pc, d, pc->max_arms, &n_arms, X);
        CHECK_OK(isdb_policy_scores(p, X, n_arms, out));
        CHECK_OK(isdb_policy_select(p, X, n_arms, &arm));
        CHECK_OK(isdb_policy_update(p, arm, X + arm * d, X[arm * d] * (isdb_real)0.5 + (isdb_real)0.1));
    }
}

static void test_case(const policy_case *pc) {
    isdb_policy *a = (isdb_policy *)&mem_a, *b = (isdb_policy *)&mem_b;
    const char *name, *label = pc->label;
    isdb_rng rng, rng_b;
    size_t n, na, nb;
    CHECK_OK(pc->make(NULL, pc->d, pc->max_arms, &mem_a));
    CHECK_OK(pc->make(NULL, pc->d, pc->max_arms, &mem_b));
    isdb_rng_seed(&rng, 11);
    play(a, pc, &rng, WARMUP, out_a);
    n = save(a, snap);
    name = isdb_policy_name(a);
    if (!strcmp(name, "linucb")) forge_ridge(a, n, &((isdb_linucb *)a)->_ridge, 0, label);
    if (!strcmp(name, "lints")) forge_ridge(a, n, &((isdb_lints *)a)->_ridge, 0, label);
    if (!strcmp(name, "swucb")) forge_swucb(a, n, label);
    if (!strcmp(name, "dlinucb")) forge_dlinucb(a, n, label);
    if (!strcmp(name, "adaptive")) forge_adaptive(a, n, label);
    if (!strcmp(name, "bob")) forge_bob(a, n, label);
#if !ISDB_REAL_IS_FLOAT
    if (!strcmp(name, "isd")) forge_isd(a, n, label);
    if (!strcmp(name, "opkb")) forge_opkb(a, n, label);
    if (!strcmp(name, "oam")) forge_oam(a, n, label);
    if (!strcmp(name, "traceucb")) forge_traceucb(a, n, label);
#endif
    forge_base(a, n, label);
    /* The unforged snapshot: a fresh policy continues bit for bit. */
    CHECK_OK(isdb_policy_load(b, snap, n));
    rng_b = rng;
    play(a, pc, &rng, 10, out_a);
    play(b, pc, &rng_b, 10, out_b);
    CHECK_MSG(memcmp(out_a, out_b, sizeof out_a) == 0, "%s: scores differ after a load", label);
    na = save(a, before);
    nb = save(b, after);
    CHECK_MSG(na == nb && memcmp(before, after, na) == 0, "%s: the loaded policy did not continue bit for bit", label);
    isdb_policy_uninit(a);
    isdb_policy_uninit(b);
}

int main(void) {
    int i;
    for (i = 0; i < N_CASES; ++i) test_case(&cases[i]);
    return test_report();
}

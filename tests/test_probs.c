/* test_probs.c - probs is a distribution for every policy in every state.
   Each policy of tests/cases.h is run for ROUNDS rounds of its own arms
   (1..max_arms of them, a single arm often); before each select, after it
   (BOB draws its block's window on select, so both sides of the draw
   are seen) and on a second arm set of the same round, probs must give
   every arm a value in [0, 1], exactly, and a sum within SUM_ULPS ulps of
   1 per arm. BOB's block ends are frequent in its short-horizon case, so
   many states before a window is drawn are covered. Both precisions. */
#include "../isdbandit.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "cases.h"

#define ROUNDS 300
/* The sum of n values that each carry a rounding error or two: n + 2
   units of ISDB_REAL_EPSILON at most. */
#define SUM_ULPS 2

static storage mem;
static isdb_real X[64 * 16], Y[64 * 16], out[64];

static int check_probs(isdb_policy *p, const isdb_real *A, int n_arms, const char *label, int t, const char *when) {
    isdb_real sum = 0, tol;
    int k, ok = 1;
    CHECK_OK(isdb_policy_probs(p, A, n_arms, out));
    for (k = 0; k < n_arms; ++k) {
        if (!(out[k] >= 0 && out[k] <= 1)) ok = 0;
        sum += out[k];
    }
    tol = (isdb_real)(SUM_ULPS * (n_arms + 2)) * ISDB_REAL_EPSILON;
    CHECK_MSG(ok, "%s: round %d %s: a probability outside [0, 1] (%.17g)", label, t, when,
              (double)(out[0] > 1 ? out[0] : out[n_arms - 1]));
    CHECK_MSG(sum - 1 <= tol && 1 - sum <= tol, "%s: round %d %s: probs sum to 1 %+.3g", label, t, when,
              (double)(sum - 1));
    return ok;
}

static void test_case(const policy_case *pc) {
    isdb_policy *p = (isdb_policy *)&mem;
    isdb_rng rng;
    int t, n_arms, n_other, arm, d = pc->d;
    CHECK_OK(pc->make(NULL, d, pc->max_arms, &mem));
    isdb_rng_seed(&rng, 101);
    for (t = 0; t < ROUNDS; ++t) {
        case_round(&rng, pc, d, pc->max_arms, &n_other, Y);
        case_round(&rng, pc, d, pc->max_arms, &n_arms, X);
        check_probs(p, X, n_arms, pc->label, t, "before select");
        check_probs(p, Y, n_other, pc->label, t, "before select, other arms");
        CHECK_OK(isdb_policy_select(p, X, n_arms, &arm));
        check_probs(p, X, n_arms, pc->label, t, "after select");
        CHECK_OK(isdb_policy_update(p, arm, X + arm * d, X[arm * d] * (isdb_real)0.5 + (isdb_real)0.1));
    }
    isdb_policy_uninit(p);
}

/* BOB before the first draw, where every window of a fresh block plays
   the same arm when there is one: the old mixture added the n window
   probabilities and could give that arm 1 + 2^-52. */
static void bob_single_arm(void) {
    isdb_bob b;
    isdb_real x[3] = {0.5, -0.25, 1}, p1;
    int T, arm;
    for (T = 2; T < 3000; T += 7) {
        isdb_bob_config c = isdb_bob_config_init(3, 2, (uint64_t)T);
        int t;
        c.seed = (uint64_t)T;
        CHECK_OK(isdb_bob_init(&c, NULL, &b));
        for (t = 0; t < 3; ++t) {
            CHECK_OK(isdb_policy_probs(&b.base, x, 1, &p1));
            CHECK_MSG(p1 == 1, "bob T = %d: a single arm has probability %.17g", T, (double)p1);
            CHECK_OK(isdb_policy_select(&b.base, x, 1, &arm));
            CHECK_OK(isdb_policy_update(&b.base, arm, x, (isdb_real)0.3 * (isdb_real)t));
        }
        isdb_policy_uninit(&b.base);
    }
}

int main(void) {
    int i;
    for (i = 0; i < N_CASES; ++i) test_case(&cases[i]);
    bob_single_arm();
    return test_report();
}

/* ISD-linUCB's discounted residual learner far from unit scale: the
   stream of tests/test_dlinucb_scale.c at scale 1e6 (K arms along one
   vector of norm 1e6, perturbed by 1e-8 of it; gamma 0.999, lambda 1,
   noise 0.1), in oracle mode with p_inv = 0 so that the learner sees the
   features themselves. Its stored Gram sum Vd rounds by more than lambda
   and stops factoring; the learner then carries its factor in factored
   form, as D-LinUCB does (isdb__chol_discount and isdb__chol_pad), so:
   - no update is refused and every score is finite (before, each update
     whose Vd did not factor returned ISDB_ERR_NOT_SPD);
   - the stream does reach rounds whose Vd does not factor;
   - a snapshot taken at such a round loads and continues for 2000 rounds
     with the same scores bit for bit, as does one taken on the plain
     path (the first round), which continues into carried steps;
   - the mean predicted for arm 0 is within five standard errors of the
     discounted average (the derivation is tests/test_dlinucb_scale.c's
     mean_tolerance: sigma sqrt((1 - gamma) / (1 + gamma)) = 0.0022).
   ISD compiles only in double; in float this test does nothing. */
#include "../isdbandit.h"
#include "test.h"

#include <string.h>

#if !ISDB_REAL_IS_FLOAT

enum { D = 5, K = 10, ROUNDS = 100000, CONTINUE = 2000, NFOL = 2 };
#define GAMMA 0.999
#define SIGMA 0.1
#define SCALE 1e6

static unsigned char snap[1 << 16];

typedef struct follower {
    isdb_isd pol;
    long at; /* the round after whose update it was taken; -1: not yet */
    int rounds, same, carried_later;
} follower;

/* 1 when the learner's stored Gram sum (q = d, stride d) does not factor:
   its last update carried the factor. */
static int gram_unfactorable(const isdb_isd *p) {
    double G[D * D];
    memcpy(G, p->_gram_disc, sizeof G);
    return isdb_chol(D, G) != ISDB_OK;
}

int main(void) {
    isdb_isd pol;
    follower fol[NFOL]; /* 0: the plain path (from round 0), 1: carried (mid-stream) */
    static const int kind[NFOL] = {0, 1};
    const long from[NFOL] = {0, ROUNDS / 2};
    isdb_isd_config c = isdb_isd_config_init(D, K, 0, NULL, NULL);
    isdb_rng rng;
    double X[K * D], cvec[D], theta[D], s[K], s_copy[K], norm = 0.0, mean, want, tol;
    long t, refused = 0, nonfinite = 0, unfactored = 0;
    int j, k;
    c.oracle = 1;
    c.p_inv = 0;
    c.learner = ISDB_ISD_RES_DISCOUNT;
    c.gamma = GAMMA;
    c.lambda = 1.0;
    c.radius = ISDB_ISD_RADIUS_FIXED;
    CHECK_OK(isdb_isd_init(&c, NULL, &pol));
    for (k = 0; k < NFOL; ++k) {
        CHECK_OK(isdb_isd_init(&c, NULL, &fol[k].pol));
        fol[k].at = -1;
        fol[k].rounds = fol[k].carried_later = 0;
        fol[k].same = 1;
    }
    isdb_rng_seed(&rng, 2450);
    for (j = 0; j < D; ++j) {
        cvec[j] = isdb_rng_normal(&rng);
        theta[j] = isdb_rng_normal(&rng);
        norm += cvec[j] * cvec[j];
    }
    for (j = 0; j < D; ++j) {
        cvec[j] = cvec[j] / sqrt(norm) * SCALE;
        theta[j] /= SCALE;
    }
    for (k = 0; k < K; ++k)
        for (j = 0; j < D; ++j) X[k * D + j] = cvec[j] + 1e-8 * SCALE * isdb_rng_normal(&rng);
    for (t = 0; t < ROUNDS; ++t) {
        double y;
        int a, carried;
        CHECK_OK(isdb_policy_select(&pol.base, X, K, &a));
        y = t_dot(D, X + a * D, theta) + SIGMA * isdb_rng_normal(&rng);
        if (isdb_policy_update(&pol.base, a, X + a * D, y) != ISDB_OK) ++refused;
        CHECK_OK(isdb_policy_scores(&pol.base, X, K, s));
        if (!t_all_finite(s, K)) ++nonfinite;
        carried = gram_unfactorable(&pol);
        unfactored += carried;
        for (k = 0; k < NFOL; ++k) {
            follower *f = &fol[k];
            if (f->at >= 0 && t > f->at && t <= f->at + CONTINUE) {
                CHECK_OK(isdb_policy_update(&f->pol.base, a, X + a * D, y));
                CHECK_OK(isdb_policy_scores(&f->pol.base, X, K, s_copy));
                f->same &= memcmp(s_copy, s, sizeof s) == 0;
                f->carried_later += carried;
                ++f->rounds;
            }
            if (f->at < 0 && t >= from[k] && carried == kind[k]) {
                size_t n = 0;
                CHECK_OK(isdb_policy_save(&pol.base, snap, sizeof snap, &n));
                CHECK_MSG(isdb_policy_load(&f->pol.base, snap, n) == ISDB_OK,
                          "ISD refused its own snapshot (%s, round %ld)", kind[k] ? "carried" : "plain", t);
                f->at = t;
            }
        }
    }
    CHECK_OK(isdb_isd_explain(&pol, X, &mean, NULL, NULL));
    want = t_dot(D, X, theta);
    /* Five standard errors of the discounted average (see above). */
    tol = 5.0 * SIGMA * sqrt((1.0 - GAMMA) / (1.0 + GAMMA));
    printf("ISD DISCOUNT at scale 1e6, %d rounds: refused %ld, non-finite %ld, stored Vd unfactorable in %ld; "
           "arm 0 mean error %.3g (bound %.3g)\n",
           ROUNDS, refused, nonfinite, unfactored, fabs(mean - want), tol);
    for (k = 0; k < NFOL; ++k)
        printf("snapshot at round %ld (%s) continued %d rounds (%d of them carried) %s\n", fol[k].at,
               kind[k] ? "carried" : "plain", fol[k].rounds, fol[k].carried_later,
               fol[k].same ? "bit-identically" : "DIFFERENTLY");
    CHECK_MSG(refused == 0, "ISD refused %ld updates", refused);
    CHECK_MSG(nonfinite == 0, "ISD had non-finite scores in %ld rounds", nonfinite);
    CHECK_MSG(unfactored > 0, "the stored Vd always factored");
    for (k = 0; k < NFOL; ++k)
        CHECK_MSG(fol[k].at >= 0 && fol[k].same && fol[k].rounds == CONTINUE,
                  "the snapshot (%s) continued differently", kind[k] ? "carried" : "plain");
    CHECK_MSG(fol[0].carried_later > 0, "the plain snapshot's continuation took no carried steps");
    CHECK_LE(fabs(mean - want), tol);
    for (k = 0; k < NFOL; ++k) isdb_policy_uninit(&fol[k].pol.base);
    isdb_policy_uninit(&pol.base);
    return test_report();
}

#else

int main(void) {
    printf("ISD compiles only in double: nothing to test in float\n");
    return test_report();
}

#endif

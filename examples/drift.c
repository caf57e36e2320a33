/* drift.c - the policy to use when you do not know how fast your world
   drifts: isdb_adaptive, beside plain LinUCB, on a hand-written problem
   whose parameter jumps once and later turns slowly. It needs the ridge
   and the noise scale only; the printout shows the memory it plays from
   and the changes its test found. */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <math.h>
#include <stdio.h>

#define D 3
#define K 10
#define T 20000

/* theta_t: (1, 0, 0) until round 5000, then (-1, 0, 0), and from round
   10000 on turning in the first two coordinates, a quarter turn per 5000
   rounds. */
static void true_theta(int t, isdb_real *theta) {
    isdb_real a = t < 10000 ? 0.0 : 1.5707963267948966 * (t - 10000) / 5000.0;
    isdb_real s = t < 5000 ? 1.0 : -1.0;
    theta[0] = s * cos(a);
    theta[1] = s * sin(a);
    theta[2] = 0.0;
}

int main(void) {
    isdb_adaptive ada;
    isdb_linucb lin;
    isdb_adaptive_config cfg = isdb_adaptive_config_init(D, K);
    isdb_linucb_config lcfg = isdb_linucb_config_init(D, K);
    isdb_policy *pols[2];
    isdb_real X[K * D], means[K], regret[2] = {0.0, 0.0};
    isdb_rng arms, noise;
    int t, i, k, p;
    cfg.R = lcfg.R = 0.5; /* the noise scale, as for LinUCB */
    if (isdb_adaptive_init(&cfg, NULL, &ada) != ISDB_OK || isdb_linucb_init(&lcfg, NULL, &lin) != ISDB_OK) {
        fprintf(stderr, "init failed\n");
        return 1;
    }
    pols[0] = &ada.base;
    pols[1] = &lin.base;
    isdb_rng_seed(&arms, 1);
    isdb_rng_seed(&noise, 2);
    printf("%6s %12s %12s %8s %8s\n", "round", "adaptive", "linucb", "memory", "changes");
    for (t = 0; t < T; ++t) {
        isdb_real theta[D], best = -1e300;
        true_theta(t, theta);
        for (k = 0; k < K; ++k) { /* K random unit arms */
            isdb_real *x = X + k * D, n = 0.0;
            for (i = 0; i < D; ++i) {
                x[i] = isdb_rng_normal(&arms);
                n += x[i] * x[i];
            }
            means[k] = 0.0;
            for (i = 0; i < D; ++i) {
                x[i] /= sqrt(n);
                means[k] += x[i] * theta[i];
            }
            if (means[k] > best) best = means[k];
        }
        for (p = 0; p < 2; ++p) {
            int arm;
            isdb_real y;
            if (isdb_policy_select(pols[p], X, K, &arm) != ISDB_OK) return 1;
            y = means[arm] + 0.5 * isdb_rng_normal(&noise);
            regret[p] += best - means[arm];
            if (isdb_policy_update(pols[p], arm, X + arm * D, y) != ISDB_OK) return 1;
        }
        if ((t + 1) % 2500 == 0)
            printf("%6d %12.1f %12.1f %8d %8lu\n", t + 1, regret[0], regret[1], isdb_adaptive_get_memory(&ada),
                   (unsigned long)isdb_adaptive_get_changes(&ada));
    }
    isdb_policy_uninit(&ada.base);
    isdb_policy_uninit(&lin.base);
    return 0;
}

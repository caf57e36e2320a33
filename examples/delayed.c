/* delayed.c - rewards that arrive late: update takes the features of the
   action played, so a caller can keep the pending actions and report each
   one whenever its reward comes in, in any order. Here every reward
   arrives 20 rounds after its action (D-LinUCB on a switching problem). */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <stdio.h>

#define D 2
#define K 10
#define DELAY 20
#define T 3000

int main(void) {
    static isdb_real pending_x[DELAY][D], pending_y[DELAY];
    static int pending_arm[DELAY];
    isdb_dlinucb pol;
    isdb_dlinucb_config cfg = isdb_dlinucb_config_init(D, K, 0.99);
    isdb_rng rng;
    isdb_real X[K * D], regret = 0.0;
    int t, k, arm;
    if (isdb_dlinucb_init(&cfg, NULL, &pol) != ISDB_OK) return 1;
    isdb_rng_seed(&rng, 5);
    for (t = 0; t < T; ++t) {
        isdb_real theta[D] = {t < T / 2 ? 1.0 : -1.0, 0.3}, best = -1e9, mean;
        int slot = t % DELAY;
        if (t >= DELAY) /* the reward of round t - DELAY arrives now */
            isdb_policy_update(&pol.base, pending_arm[slot], pending_x[slot], pending_y[slot]);
        for (k = 0; k < K * D; ++k) X[k] = 2.0 * isdb_rng_uniform(&rng) - 1.0;
        isdb_policy_select(&pol.base, X, K, &arm);
        for (k = 0; k < K; ++k) {
            isdb_real m = theta[0] * X[k * D] + theta[1] * X[k * D + 1];
            if (m > best) best = m;
        }
        mean = theta[0] * X[arm * D] + theta[1] * X[arm * D + 1];
        regret += best - mean;
        pending_arm[slot] = arm;
        pending_x[slot][0] = X[arm * D];
        pending_x[slot][1] = X[arm * D + 1];
        pending_y[slot] = mean + 0.5 * isdb_rng_normal(&rng);
    }
    printf("D-LinUCB with rewards %d rounds late: regret %.1f over %d rounds (%llu updates)\n", DELAY, regret, T,
           (unsigned long long)pol.base.t);
    isdb_policy_uninit(&pol.base);
    return 0;
}

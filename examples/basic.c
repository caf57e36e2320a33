/* basic.c - the basic loop: one policy (LinUCB), the generic select/update
   interface, a hand-written environment (5 random arms a round, a fixed
   unknown theta, Gaussian noise), and the getters for what the policy
   learned. */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <stdio.h>

#define D 3
#define K 5

int main(void) {
    static const isdb_real theta_true[D] = {0.8, -0.4, 0.2};
    isdb_real X[K * D], theta[D], mean, bonus;
    isdb_linucb pol;
    isdb_linucb_config cfg = isdb_linucb_config_init(D, K);
    isdb_rng rng;
    isdb_result r;
    int t, i, arm;
    cfg.lambda = 0.5; /* any field may be changed after config_init */
    if ((r = isdb_linucb_init(&cfg, NULL, &pol)) != ISDB_OK) {
        fprintf(stderr, "init: %s\n", isdb_result_string(r));
        return 1;
    }
    isdb_rng_seed(&rng, 7);
    for (t = 0; t < 2000; ++t) {
        isdb_real reward;
        for (i = 0; i < K * D; ++i) X[i] = isdb_rng_normal(&rng);
        if ((r = isdb_policy_select(&pol.base, X, K, &arm)) < 0) break;
        reward = theta_true[0] * X[arm * D] + theta_true[1] * X[arm * D + 1] + theta_true[2] * X[arm * D + 2] +
                 0.1 * isdb_rng_normal(&rng);
        if ((r = isdb_policy_update(&pol.base, arm, X + arm * D, reward)) < 0) break;
    }
    if (r < 0) { /* negative codes are errors, positive ones successes with a caveat */
        fprintf(stderr, "round %d: %s\n", t, isdb_result_string(r));
        isdb_policy_uninit(&pol.base);
        return 1;
    }
    isdb_linucb_get_theta(&pol, theta);
    printf("true theta      %7.3f %7.3f %7.3f\n", theta_true[0], theta_true[1], theta_true[2]);
    printf("estimated theta %7.3f %7.3f %7.3f\n", theta[0], theta[1], theta[2]);
    isdb_linucb_explain(&pol, theta_true, &mean, &bonus);
    printf("score of x = theta: mean %.3f + exploration bonus %.3f (beta %.3f)\n", mean, bonus,
           isdb_linucb_get_beta(&pol));
    isdb_policy_uninit(&pol.base);
    return 0;
}

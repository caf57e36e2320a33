/* isd_offline.c - ISD-linUCB with offline data.

   A bandit has logged 4000 rounds while its reward model drifted; now it
   must act online in a new, unknown regime. ISD-linUCB (Lazzaretto,
   Peters, Pfister 2026) learns from the log which directions of the
   10-dimensional feature space have a reward coefficient that never
   changed (the invariant subspace), fixes that part of the parameter from
   the whole log, and explores online only in the rest (here 3 of the 10
   dimensions). The example
     1. makes the log with the library's invariant-subspace environment
        (your own logged features and rewards would do just as well),
     2. builds the policy from the log and prints the decomposition it
        found (blocks, which are invariant, and how sure: each block's
        invariance test p-value; a block is called invariant only when the
        log shows no sign of drift, p > 0.01),
     3. plays 500 online rounds beside LinUCB and prints both regrets, what
        the invariance monitor saw (it demotes a block that stops being
        invariant online), and the parts of one score (mean, invariant
        width, residual width).

   usage: isd_offline */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <stdio.h>

#define D 10
#define K 5
#define T0 4000
#define T 500

static double X0[T0 * D], R0[T0];

int main(void) {
    /* The truth: blocks of 7 and 3 coordinates of a random basis, the
       second one residual (its coefficient moves). */
    static const int sizes[2] = {7, 3}, residual[2] = {0, 1};
    isdb_isd_env env;
    isdb_isd_env_config ec = isdb_isd_env_config_init(D, K, 2, sizes, residual);
    isdb_isd isd;
    isdb_isd_config c;
    isdb_isd_info info;
    isdb_linucb lin;
    isdb_linucb_config lc = isdb_linucb_config_init(D, K);
    isdb_sim_result r_isd, r_lin;
    int b, nb, bsize[D], binv[D];
    double bstat[D], bp[D], mean, w_inv, w_res;

    /* 1. The log: features of the logged actions and their rewards, in
          time order (a uniform logging policy). */
    ec.cov_period = T0 / 8; /* the feature covariance changes 8 times */
    if (isdb_isd_env_init(&ec, NULL, &env) != ISDB_OK) return 1;
    if (isdb_isd_env_offline(&env, T0, ISDB_ISD_LOG_UNIFORM, 1.0, 7, X0, R0) != ISDB_OK) return 1;

    /* 2. The policy. Init runs the offline phase: joint block
          diagonalization of 25 window covariances, a test of each block's
          invariance over 8 time segments of the log, beta_inv by least
          squares in the invariant subspace. The log is copied; X0 and R0
          may be freed afterwards. The invariance monitor is on by default. */
    c = isdb_isd_config_init(D, K, T0, X0, R0);
    c.lambda = 0.1;
    c.radius = ISDB_ISD_RADIUS_CODE; /* the width the authors' experiments used */
    if (isdb_isd_init(&c, NULL, &isd) != ISDB_OK) return 1;
    isdb_isd_get_info(&isd, &info);
    nb = isdb_isd_get_blocks(&isd, bsize, binv, bstat);
    isdb_isd_get_block_pvalues(&isd, bp);
    printf("decomposition from %d logged rows: p_inv = %d, p_res = %d, %d blocks\n", info.n_fit, info.p_inv,
           info.p_res, nb);
    for (b = 0; b < nb; ++b)
        printf("  block %d: %d dimensions, %s (invariance test p-value %.3g; the paper's statistic %.3f)\n", b,
               bsize[b], binv[b] ? "invariant" : "residual", bp[b], bstat[b]);
    printf("  (the truth: 7 invariant, 3 residual; JBD %s after %d sweeps)\n",
           info.jbd.converged ? "converged" : "stopped", info.jbd.iterations);

    /* 3. Online: ISD-linUCB and LinUCB on the same rounds. */
    lc.lambda = 0.1;
    lc.width = ISDB_WIDTH_DETTRACE;
    if (isdb_linucb_init(&lc, NULL, &lin) != ISDB_OK) return 1;
    isdb_env_reset(&env.base);
    if (isdb_sim_run(&isd.base, &env.base, T, NULL, &r_isd) != ISDB_OK) return 1;
    isdb_env_reset(&env.base);
    if (isdb_sim_run(&lin.base, &env.base, T, NULL, &r_lin) != ISDB_OK) return 1;
    printf("regret after %d online rounds: ISD-linUCB %.1f, LinUCB %.1f\n", T, r_isd.regret, r_lin.regret);
    isdb_isd_get_info(&isd, &info);
    printf("invariance monitor: %d alarms, %d blocks demoted (last test: p-value %.3g)\n", (int)info.alarms,
           (int)info.demotions, info.monitor_pvalue);

    /* The parts of the score of one arm of the last round. */
    if (isdb_isd_explain(&isd, env.base.X, &mean, &w_inv, &w_res) == ISDB_OK)
        printf("arm 0 now: mean %.3f, invariant width %.4f, residual width %.3f\n", mean, w_inv, w_res);

    isdb_policy_uninit(&isd.base);
    isdb_policy_uninit(&lin.base);
    isdb_env_uninit(&env.base);
    return 0;
}

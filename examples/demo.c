/* demo.c - what `make demo` runs: LinUCB, SW-UCB, D-LinUCB and LinTS on
   the abrupt-switch problem of Russac et al. (2019): d = 2, 50 fresh arms
   per round drawn uniformly in [-1, 1]^2 and clipped to the unit disc,
   theta jumping (1,0) -> (-1,0) -> (0,1) -> (0,-1) at rounds 1000, 2000,
   3000, Gaussian noise of standard deviation 1, T = 6000. It prints the
   mean and standard error of the final pseudo-regret over 5 seeds, and
   writes the per-round mean regret of each policy as CSV to --out.

   usage: demo [--out DIR] [--seeds N] */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T 6000
#define K 50
#define D 2
#define N_POLICIES 4

static const char *names[N_POLICIES] = {"LinUCB", "SW-UCB", "D-LinUCB", "LinTS"};

/* The settings of the Russac et al. experiments: lambda 0.1, delta 0.01,
   S = 1, sigma = 1; the sliding window and discount tuned for
   B_T = 4 + sqrt 2 (the helpers of the library). */
static isdb_result make_policy(int which, uint64_t seed, void *mem) {
    double B = 4.0 + sqrt(2.0), gamma;
    int w;
    isdb_result r;
    switch (which) {
    case 0: {
        isdb_linucb_config c = isdb_linucb_config_init(D, K);
        c.lambda = 0.1;
        c.width = ISDB_WIDTH_DETTRACE;
        return isdb_linucb_init(&c, NULL, (isdb_linucb *)mem);
    }
    case 1: {
        isdb_swucb_config c;
        if ((r = isdb_swucb_tuned_window(ISDB_WINDOW_KNOWN, D, T, B, &w)) != ISDB_OK) return r;
        c = isdb_swucb_config_init(D, K, w);
        c.lambda = 0.1;
        c.width = ISDB_WIDTH_DETTRACE;
        return isdb_swucb_init(&c, NULL, (isdb_swucb *)mem);
    }
    case 2: {
        isdb_dlinucb_config c;
        if ((r = isdb_dlinucb_tuned_gamma(D, T, B, &gamma)) != ISDB_OK) return r;
        c = isdb_dlinucb_config_init(D, K, gamma);
        c.lambda = 0.1;
        return isdb_dlinucb_init(&c, NULL, (isdb_dlinucb *)mem);
    }
    default: {
        isdb_lints_config c = isdb_lints_config_init(D, K);
        c.lambda = 0.1;
        c.inflation = ISDB_LINTS_NONE;
        c.seed = seed;
        return isdb_lints_init(&c, NULL, (isdb_lints *)mem);
    }
    }
}

int main(int argc, char **argv) {
    static const double pieces[4 * D] = {1, 0, -1, 0, 0, 1, 0, -1};
    static const uint64_t switches[3] = {1000, 2000, 3000};
    static double cum[T], mean_curve[N_POLICIES][T];
    static union {
        isdb_linucb a;
        isdb_swucb b;
        isdb_dlinucb c;
        isdb_lints e;
    } mem;
    const char *out = NULL;
    int seeds = 5, i, s, t;
    double final_sum[N_POLICIES] = {0}, final_sq[N_POLICIES] = {0}, seconds[N_POLICIES] = {0};
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--seeds") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0)
            seeds = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--out DIR] [--seeds N]\n", argv[0]);
            return 2;
        }
    }
    for (i = 0; i < N_POLICIES; ++i) {
        for (s = 0; s < seeds; ++s) {
            isdb_linear_env env;
            isdb_linear_env_config ec = isdb_linear_env_config_init(D, K);
            isdb_sim_result res;
            isdb_policy *p = (isdb_policy *)&mem;
            isdb_result r;
            ec.seed = 1000 + (uint64_t)s;
            ec.arms = ISDB_ARMS_BOX;
            ec.clip_norm = 1.0;
            ec.n_pieces = 4;
            ec.pieces = pieces;
            ec.switch_at = switches;
            if ((r = isdb_linear_env_init(&ec, NULL, &env)) != ISDB_OK ||
                (r = make_policy(i, 1 + (uint64_t)s, &mem)) != ISDB_OK ||
                (r = isdb_sim_run(p, &env.base, T, cum, &res)) != ISDB_OK) {
                fprintf(stderr, "%s: %s\n", names[i], isdb_result_string(r));
                return 1;
            }
            for (t = 0; t < T; ++t) mean_curve[i][t] += cum[t] / seeds;
            final_sum[i] += res.regret;
            final_sq[i] += res.regret * res.regret;
            seconds[i] += res.seconds;
            isdb_policy_uninit(p);
            isdb_env_uninit(&env.base);
        }
    }
    printf("abrupt switches (Russac et al. 2019): d=%d, K=%d, T=%d, %d seeds\n", D, K, T, seeds);
    printf("%-10s %12s %10s %12s\n", "policy", "regret", "std.err", "us/round");
    for (i = 0; i < N_POLICIES; ++i) {
        double m = final_sum[i] / seeds, var = seeds > 1 ? (final_sq[i] - seeds * m * m) / (seeds - 1) : 0.0;
        printf("%-10s %12.1f %10.1f %12.2f\n", names[i], m, sqrt(var > 0 ? var / seeds : 0.0),
               1e6 * seconds[i] / ((double)seeds * T));
    }
    if (out) {
        char path[1024];
        FILE *f;
        snprintf(path, sizeof path, "%s/demo.csv", out);
        f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, "cannot write %s (does the folder exist?)\n", path);
            return 1;
        }
        fprintf(f, "round,%s,%s,%s,%s\n", names[0], names[1], names[2], names[3]);
        for (t = 0; t < T; ++t)
            fprintf(f, "%d,%.6f,%.6f,%.6f,%.6f\n", t + 1, mean_curve[0][t], mean_curve[1][t], mean_curve[2][t],
                    mean_curve[3][t]);
        fclose(f);
        printf("wrote %s\n", path);
    }
    return 0;
}

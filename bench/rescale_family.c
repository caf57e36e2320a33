/* rescale_family.c - `make rescale`: issue 38 item 3, rewards whose scale
   alone moves. theta(t) = s(t) theta0 with s between lo = 0.2 and 1 (a
   positive rescaling ranks no arm differently, so LinUCB, which never
   forgets, is the yardstick); fresh arms each round (K = 20 uniform unit
   vectors), Gaussian noise, T = 20,000. Each seed draws its own instance of
   the family: theta0 a uniform unit vector, the period log-uniform in
   [1000, 10000] rounds, the phase uniform. Two shapes: a sine (s moves
   smoothly) and a square wave (s jumps between 0.2 and 1 twice a period).
   Every policy is told R = the noise's standard deviation.

   Prints, per variant (shape, d, noise), the mean regret of LinUCB and of
   adaptive over the seeds and their ratio, and a claim line: adaptive at
   most 1.5x LinUCB's regret on every variant.

   usage: rescale_family [--seeds N] [--first SEED] */
#define ISDB_IMPLEMENTATION
#define ISDB_ONLY_LINUCB
#define ISDB_ONLY_ADAPTIVE
#include "../isdbandit.h"
#include "repro_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_D 16
#define PI 3.14159265358979323846

typedef struct scale_path {
    double theta0[MAX_D], period, phase, lo;
    int d, square;
} scale_path;

static void scaled_theta(uint64_t t, isdb_real *theta, void *user) {
    const scale_path *p = (const scale_path *)user;
    double w = sin(2 * PI * (double)t / p->period + p->phase), s;
    int i;
    if (p->square) w = w >= 0 ? 1 : -1;
    s = p->lo + (1 - p->lo) * 0.5 * (1 + w);
    for (i = 0; i < p->d; ++i) theta[i] = s * p->theta0[i];
}

static void draw_path(uint64_t seed, int d, int square, scale_path *p) {
    isdb_rng rng;
    double norm = 0;
    int i;
    isdb_rng_seed(&rng, 1000 + seed);
    p->d = d;
    p->square = square;
    p->lo = 0.2;
    for (i = 0; i < d; ++i) {
        p->theta0[i] = isdb_rng_normal(&rng);
        norm += p->theta0[i] * p->theta0[i];
    }
    for (i = 0; i < d; ++i) p->theta0[i] /= sqrt(norm);
    p->period = exp(log(1000.0) + isdb_rng_uniform(&rng) * log(10.0));
    p->phase = 2 * PI * isdb_rng_uniform(&rng);
}

/* One run's regret: policy 0 LinUCB, 1 adaptive; -1 on an error. */
static double run(int which, uint64_t seed, int d, double noise, scale_path *path) {
    enum { K = 20 };
    const uint64_t T = 20000;
    union {
        isdb_policy base;
        isdb_linucb linucb;
        isdb_adaptive adaptive;
    } pol;
    isdb_linear_env env;
    isdb_linear_env_config ec = isdb_linear_env_config_init(d, K);
    isdb_sim_result res;
    isdb_result r;
    ec.seed = seed;
    ec.noise_sd = noise;
    ec.path = ISDB_PATH_CALLBACK;
    ec.theta_fn = scaled_theta;
    ec.theta_user = path;
    if (isdb_linear_env_init(&ec, NULL, &env) != ISDB_OK) return -1;
    if (which == 0) {
        isdb_linucb_config c = isdb_linucb_config_init(d, K);
        c.R = noise;
        r = isdb_linucb_init(&c, NULL, &pol.linucb);
    } else {
        isdb_adaptive_config c = isdb_adaptive_config_init(d, K);
        repro_adaptive_overrides(&c);
        c.R = noise;
        r = isdb_adaptive_init(&c, NULL, &pol.adaptive);
    }
    if (r != ISDB_OK) {
        isdb_env_uninit(&env.base);
        return -1;
    }
    r = isdb_sim_run(&pol.base, &env.base, T, NULL, &res);
    isdb_policy_uninit(&pol.base);
    isdb_env_uninit(&env.base);
    return r < 0 ? -1 : (double)res.regret;
}

int main(int argc, char **argv) {
    static const struct {
        int square, d;
        double noise;
    } variants[] = {{0, 5, 0.3}, {0, 5, 0.5}, {0, 10, 0.5}, {1, 5, 0.3}, {1, 10, 0.3}};
    const int n_variants = (int)(sizeof variants / sizeof *variants);
    int seeds = 20, first = 1, v, s, i, all = 1;
    double worst = 0;
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
            seeds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--first") && i + 1 < argc)
            first = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--seeds N] [--first SEED]\n", argv[0]);
            return 2;
        }
    }
    if (seeds < 1) seeds = 1;
    printf("rescale_family: theta = s(t) theta0, s in [0.2, 1], period log-uniform in [1000, 10000], K = 20 fresh "
           "unit arms, T = 20000, seeds %d-%d\n",
           first, first + seeds - 1);
    printf("%-7s %3s %6s %12s %12s %7s\n", "shape", "d", "noise", "linucb", "adaptive", "ratio");
    for (v = 0; v < n_variants; ++v) {
        double sum[2] = {0, 0}, ratio;
        for (s = first; s < first + seeds; ++s) {
            scale_path path;
            int k;
            draw_path((uint64_t)s, variants[v].d, variants[v].square, &path);
            for (k = 0; k < 2; ++k) {
                double reg = run(k, (uint64_t)s, variants[v].d, variants[v].noise, &path);
                if (reg < 0) {
                    printf("rescale_family: a run failed (variant %d, seed %d)\n", v, s);
                    return 1;
                }
                sum[k] += reg;
            }
        }
        ratio = sum[1] / sum[0];
        if (ratio > worst) worst = ratio;
        all &= ratio <= 1.5;
        printf("%-7s %3d %6.2f %12.1f %12.1f %7.2f\n", variants[v].square ? "square" : "sine", variants[v].d,
               variants[v].noise, sum[0] / seeds, sum[1] / seeds, ratio);
    }
    printf("claim: rescale: adaptive / LinUCB's regret when only theta's length moves, worst %.2f over %d variants "
           "(target <= 1.5) %s\n",
           worst, n_variants, all ? "holds" : "fails");
    return 0;
}

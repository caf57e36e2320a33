/* realstream.c - what `make realstream` runs (issue 38, item 1): the
   policies on two real drifting streams and two synthetic drift problems,
   beside the figures issue 38 reports for Vowpal Wabbit.

   Real streams (bench/data/, whose README names the sources): Elec2
   (Harries 1999; 45,312 half-hours; its 7 features without the date
   column) and NOAA weather (Elwell and Polikar 2011; 18,159 days; 8
   features). Issue 38's protocol: each feature standardised over the
   whole stream (mean 0, standard deviation 1; a constant feature becomes
   0), then divided by sqrt(p). K = 2 arms, the two labels; arm a's
   feature vector is e_a (x) [1, z], d = 2 (p + 1); the reward is 1 when
   the arm played is the row's label, else 0, and only the played arm's
   reward is seen. Accuracy = the fraction of rounds whose arm was the
   label. --quick plays the first 5,000 rows (standardised over the whole
   stream all the same).

   Synthetic problems (issue 38): d = 5, K = 20 arms a round, each a fresh
   uniform random unit vector; reward x.theta_t + 0.5 N(0, 1); T = 20,000;
   regret is the cumulative pseudo-regret against each round's best mean.
   jumps: theta a random unit vector, redrawn at rounds 5,000, 10,000 and
   15,000 (rounds count from 0). rotation: theta_t = normalise(cos(2 pi t
   / 10000), sin(2 pi t / 10000), 0.3, 0.3, 0.3). 20 seeds (--quick: 3);
   seed s draws the arms, the noise and jumps' parameters, the same for
   every policy. They sit here rather than in bench/agnostic.c because
   agnostic's claims are aggregates over its scenario table (worst and
   geometric-mean ratios), which two more rows would move.

   Every policy is told R = 0.5 and lambda = 1 and nothing else: adaptive
   (its defaults otherwise), LinUCB, LinTS and BOB (horizon = the number
   of rounds), and a grid chosen with hindsight: SW-UCB at windows 50 to
   5,000 and D-LinUCB at discounts 0.9 to 0.9999. The deterministic
   policies run once on a real stream; LinTS and BOB run with seeds 1-3
   and the mean is reported. The no-change row plays the label of the
   previous round: with two arms and 0/1 rewards the label is known from
   the played arm's reward alone, so it is a bandit policy too, and the
   usual yardstick on Elec2.

   VW's figures are issue 38's, not measured here: VW 9.11.2 built from
   source and driven through its library API, --cb_explore_adf with the
   context crossed with the action (the same per-arm linear model), seeds
   1-3, its grid chosen with hindsight on the same runs; the issue gives
   no date. The `claim:` lines test adaptive against them and against the
   best tuned window or discount. Policies run in parallel, one process
   per (problem, policy) (POSIX fork), --jobs at a time (default: the
   online processors). --out DIR writes DIR/realstream.csv; --data DIR
   reads the streams from DIR (default bench/data); a stream whose files
   are missing or malformed is skipped with a message. Public API only. */
#define _POSIX_C_SOURCE 200809L
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "repro_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fork_jobs.h"

#define GRID 7
#define MAX_P 8           /* features of a real stream */
#define MAX_D 18          /* 2 (MAX_P + 1) */
#define STREAM_SEEDS 3    /* LinTS and BOB on a real stream */
#define SYNTH_SEEDS 20
#define QUICK_ROWS 5000
#define SYNTH_D 5
#define SYNTH_K 20
#define SYNTH_T 20000

static const int windows[GRID] = {50, 100, 200, 500, 1000, 2000, 5000};
static const double gammas[GRID] = {0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999};

/* ---- policies ----------------------------------------------------------- */

enum { P_ADAPTIVE, P_LINUCB, P_LINTS, P_BOB, P_NOCHANGE, P_SW0, P_DL0 = P_SW0 + GRID, N_POL = P_DL0 + GRID };
#define N_NAMED P_SW0

typedef union any_policy {
    isdb_policy base;
    isdb_linucb linucb;
    isdb_swucb swucb;
    isdb_dlinucb dlinucb;
    isdb_lints lints;
    isdb_bob bob;
    isdb_adaptive adaptive;
} any_policy;

static void policy_name(int k, char *buf, size_t cap) {
    static const char *const named[N_NAMED] = {"adaptive", "linucb", "lints", "bob", "no-change"};
    if (k < N_NAMED)
        snprintf(buf, cap, "%s", named[k]);
    else if (k < P_DL0)
        snprintf(buf, cap, "swucb w=%d", windows[k - P_SW0]);
    else
        snprintf(buf, cap, "dlinucb g=%g", gammas[k - P_DL0]);
}

/* Seeded policies are run on several seeds on a real stream. */
static int seeded(int k) { return k == P_LINTS || k == P_BOB; }

static isdb_result make_policy(int k, int d, int K, uint64_t T, uint64_t seed, any_policy *p) {
    const double R = 0.5, lambda = 1.0;
    if (k == P_ADAPTIVE) {
        isdb_adaptive_config c = isdb_adaptive_config_init(d, K);
        repro_adaptive_overrides(&c);
        c.lambda = lambda;
        c.R = R;
        return isdb_adaptive_init(&c, NULL, &p->adaptive);
    }
    if (k == P_LINUCB) {
        isdb_linucb_config c = isdb_linucb_config_init(d, K);
        c.lambda = lambda;
        c.R = R;
        return isdb_linucb_init(&c, NULL, &p->linucb);
    }
    if (k == P_LINTS) {
        isdb_lints_config c = isdb_lints_config_init(d, K);
        c.lambda = lambda;
        c.R = R;
        c.seed = seed;
        return isdb_lints_init(&c, NULL, &p->lints);
    }
    if (k == P_BOB) {
        isdb_bob_config c = isdb_bob_config_init(d, K, T);
        c.lambda = lambda;
        c.R = R;
        c.seed = seed;
        return isdb_bob_init(&c, NULL, &p->bob);
    }
    if (k >= P_SW0 && k < P_DL0) {
        isdb_swucb_config c = isdb_swucb_config_init(d, K, windows[k - P_SW0]);
        c.lambda = lambda;
        c.R = R;
        return isdb_swucb_init(&c, NULL, &p->swucb);
    }
    if (k >= P_DL0 && k < N_POL) {
        isdb_dlinucb_config c = isdb_dlinucb_config_init(d, K, gammas[k - P_DL0]);
        c.lambda = lambda;
        c.R = R;
        return isdb_dlinucb_init(&c, NULL, &p->dlinucb);
    }
    return ISDB_ERR_INVALID_ARG;
}

/* ---- problems ----------------------------------------------------------- */

/* Issue 38's figures for the peer and for this library. */
typedef struct reported {
    double vw_default, vw_tuned;
    const char *vw_tuned_cfg;
    double adaptive, dlinucb;
    const char *dlinucb_gamma;
} reported;

typedef struct stream {
    const char *name, *about, *data_file, *label_file;
    int cols, skip, rows; /* columns in the data file, the one left out (-1: none), rows */
    reported rep;
    /* read at start-up */
    int ok, p, T;
    double *z;  /* T x p standardised features, already divided by sqrt(p) */
    int *label; /* T labels, 0 or 1 */
} stream;

static stream streams[] = {
    {"Elec2", "Harries 1999, NSW electricity market; 7 features (date left out)", "elec2_data.dat", "elec2_label.dat",
     8, 0, 45312,
     {0.7778, 0.8808, "SquareCB, gamma_scale 10000, --power_t 0, -l 1", 0.8539, 0.8419, "0.995"},
     0, 0, 0, NULL, NULL},
    {"NOAA", "Elwell and Polikar 2011, Bellevue NE weather, rain or not; 8 features", "NEweather_data.csv",
     "NEweather_class.csv", 8, -1, 18159,
     {0.7431, 0.7801, "SquareCB, gamma_scale 10000, --power_t 0, -l 1", 0.7795, 0.7595, "0.999"},
     0, 0, 0, NULL, NULL},
};
#define N_STREAMS ((int)(sizeof streams / sizeof streams[0]))

typedef struct synth {
    const char *name, *about;
    reported rep;
} synth;

static const synth synths[] = {
    {"jumps", "d=5, K=20 fresh unit arms, theta redrawn at 5000, 10000, 15000, noise 0.5, T=20000",
     {2549.2, 519.6, "configuration not given in the issue", 208.5, 747.9, "0.995"}},
    {"rotation", "d=5, K=20 fresh unit arms, theta = normalise(cos, sin of 2 pi t/10000, 0.3, 0.3, 0.3), noise 0.5, T=20000",
     {2219.7, 310.8, "SquareCB, gamma_scale 1000, --power_t 0, -l 1", 360.5, 354.6, "0.995"}},
};
#define N_SYNTH ((int)(sizeof synths / sizeof synths[0]))
#define N_PROBLEMS (N_STREAMS + N_SYNTH)

/* Reads rows x cols numbers (separated by spaces, tabs or commas) from
   dir/name into v. Returns 0, or says what is wrong and returns 1. */
static int read_numbers(const char *dir, const char *name, int rows, int cols, double *v) {
    char path[2048], line[4096];
    FILE *f;
    int r = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "realstream: cannot open %s (see bench/data/README.md; --data DIR names the folder)\n", path);
        return 1;
    }
    while (fgets(line, sizeof line, f)) {
        char *s = line, *end;
        int c = 0;
        if (strspn(line, " \t\r\n") == strlen(line)) continue;
        if (r >= rows) {
            fprintf(stderr, "realstream: %s has more than the %d rows expected\n", path, rows);
            fclose(f);
            return 1;
        }
        for (;;) {
            double x;
            while (*s == ' ' || *s == '\t' || *s == ',') ++s;
            if (*s == '\0' || *s == '\n' || *s == '\r') break;
            x = strtod(s, &end);
            if (end == s || c >= cols || !isfinite(x)) {
                fprintf(stderr, "realstream: %s line %d: %s\n", path, r + 1,
                        end == s ? "not a number" : c >= cols ? "too many columns" : "not finite");
                fclose(f);
                return 1;
            }
            v[(size_t)r * (size_t)cols + (size_t)c++] = x;
            s = end;
        }
        if (c != cols) {
            fprintf(stderr, "realstream: %s line %d has %d columns, expected %d\n", path, r + 1, c, cols);
            fclose(f);
            return 1;
        }
        ++r;
    }
    fclose(f);
    if (r != rows) {
        fprintf(stderr, "realstream: %s has %d rows, expected %d\n", path, r, rows);
        return 1;
    }
    return 0;
}

/* Reads and standardises stream s; on failure marks it skipped. */
static void load_stream(stream *st, const char *dir, int quick) {
    double *raw = (double *)malloc((size_t)st->rows * (size_t)st->cols * sizeof(double));
    double *lab = (double *)malloc((size_t)st->rows * sizeof(double));
    int i, j, q;
    st->ok = 0;
    st->p = st->cols - (st->skip >= 0 ? 1 : 0);
    st->z = (double *)malloc((size_t)st->rows * (size_t)st->p * sizeof(double));
    st->label = (int *)malloc((size_t)st->rows * sizeof(int));
    if (!raw || !lab || !st->z || !st->label) {
        fprintf(stderr, "realstream: out of memory reading %s\n", st->name);
        goto done;
    }
    if (read_numbers(dir, st->data_file, st->rows, st->cols, raw) != 0 ||
        read_numbers(dir, st->label_file, st->rows, 1, lab) != 0)
        goto done;
    for (i = 0; i < st->rows; ++i) {
        if (lab[i] != 0.0 && lab[i] != 1.0) {
            fprintf(stderr, "realstream: %s/%s line %d: label %g is not 0 or 1\n", dir, st->label_file, i + 1, lab[i]);
            goto done;
        }
        st->label[i] = (int)lab[i];
    }
    for (j = 0, q = 0; j < st->cols; ++j) {
        double mean = 0.0, var = 0.0, sd;
        if (j == st->skip) continue;
        for (i = 0; i < st->rows; ++i) mean += raw[(size_t)i * (size_t)st->cols + (size_t)j];
        mean /= st->rows;
        for (i = 0; i < st->rows; ++i) {
            double e = raw[(size_t)i * (size_t)st->cols + (size_t)j] - mean;
            var += e * e;
        }
        sd = sqrt(var / st->rows);
        for (i = 0; i < st->rows; ++i)
            st->z[(size_t)i * (size_t)st->p + (size_t)q] =
                sd > 0.0 ? (raw[(size_t)i * (size_t)st->cols + (size_t)j] - mean) / sd / sqrt((double)st->p) : 0.0;
        ++q;
    }
    st->T = quick && st->rows > QUICK_ROWS ? QUICK_ROWS : st->rows;
    st->ok = 1;
done:
    free(raw);
    free(lab);
    if (!st->ok) fprintf(stderr, "realstream: skipping %s\n", st->name);
}

/* ---- one (problem, policy) job ------------------------------------------ */

typedef struct outcome {
    double mean, se, us; /* accuracy or regret; its standard error over seeds (0: one run); us per round */
    int runs;
} outcome;

/* Plays policy k on real stream st with the given seed: the accuracy. */
static int play_stream(const stream *st, int k, uint64_t seed, double *acc, double *secs) {
    int p = st->p, d = 2 * (p + 1), t, correct = 0, prev = 0;
    double X[2 * MAX_D];
    any_policy pol;
    clock_t c0;
    if (k != P_NOCHANGE && make_policy(k, d, 2, (uint64_t)st->T, seed, &pol) != ISDB_OK) return 1;
    memset(X, 0, sizeof X);
    X[0] = 1.0;
    X[d + p + 1] = 1.0;
    c0 = clock();
    for (t = 0; t < st->T; ++t) {
        const double *z = st->z + (size_t)t * (size_t)p;
        int arm, y = st->label[t];
        double reward;
        if (k == P_NOCHANGE) {
            arm = prev;
            prev = arm == y ? arm : 1 - arm; /* the reward of the played arm tells the label */
            correct += arm == y;
            continue;
        }
        memcpy(X + 1, z, (size_t)p * sizeof(double));
        memcpy(X + d + p + 2, z, (size_t)p * sizeof(double));
        if (isdb_policy_select(&pol.base, X, 2, &arm) != ISDB_OK) return 1;
        reward = arm == y ? 1.0 : 0.0;
        correct += arm == y;
        if (isdb_policy_update(&pol.base, arm, X + arm * d, reward) != ISDB_OK) return 1;
    }
    *secs = (double)(clock() - c0) / (double)CLOCKS_PER_SEC;
    *acc = (double)correct / (double)st->T;
    if (k != P_NOCHANGE) isdb_policy_uninit(&pol.base);
    return 0;
}

static int run_stream(const stream *st, int k, outcome *out) {
    double acc[STREAM_SEEDS], secs = 0.0;
    int i, n = seeded(k) ? STREAM_SEEDS : 1;
    for (i = 0; i < n; ++i) {
        double s = 0.0;
        if (play_stream(st, k, (uint64_t)i + 1, &acc[i], &s) != 0) return 1;
        secs += s;
    }
    repro_mean_se(acc, n, &out->mean, &out->se);
    out->us = 1e6 * secs / ((double)n * (double)st->T);
    out->runs = n;
    return 0;
}

/* rotation's path: normalise(cos a, sin a, 0.3, 0.3, 0.3), a = 2 pi t / 10^4. */
static void rotation_theta(uint64_t t, double *theta, void *user) {
    double a = 2.0 * REPRO_PI * (double)t / 10000.0, n;
    int i;
    (void)user;
    theta[0] = cos(a);
    theta[1] = sin(a);
    for (i = 2; i < SYNTH_D; ++i) theta[i] = 0.3;
    n = sqrt(repro_dot(SYNTH_D, theta, theta));
    for (i = 0; i < SYNTH_D; ++i) theta[i] /= n;
}

/* A random unit vector of R^d. */
static void unit_vector(isdb_rng *rng, int d, double *v) {
    double n;
    int i;
    do {
        for (i = 0; i < d; ++i) v[i] = isdb_rng_normal(rng);
        n = repro_dot(d, v, v);
    } while (n < 1e-12);
    for (i = 0; i < d; ++i) v[i] /= sqrt(n);
}

/* Policy k on synthetic problem j (0 jumps, 1 rotation) over `seeds`
   seeds. No-change has no label to repeat here: it is not run (runs 0). */
static int run_synth(int j, int k, int seeds, outcome *out) {
    double regret[SYNTH_SEEDS], secs = 0.0, pieces[4 * SYNTH_D];
    static const uint64_t switches[3] = {5000, 10000, 15000};
    int i, q;
    if (k == P_NOCHANGE) {
        out->mean = out->se = out->us = NAN;
        out->runs = 0;
        return 0;
    }
    for (i = 0; i < seeds; ++i) {
        uint64_t seed = (uint64_t)i + 1;
        isdb_linear_env_config c = isdb_linear_env_config_init(SYNTH_D, SYNTH_K);
        isdb_linear_env env;
        isdb_sim_result res;
        any_policy pol;
        isdb_rng rng;
        c.seed = seed;
        c.noise_sd = 0.5;
        c.arms = ISDB_ARMS_SPHERE;
        if (j == 0) {
            isdb_rng_seed(&rng, seed * 7919u + 17u);
            for (q = 0; q < 4; ++q) unit_vector(&rng, SYNTH_D, pieces + q * SYNTH_D);
            c.path = ISDB_PATH_PIECEWISE;
            c.n_pieces = 4;
            c.pieces = pieces;
            c.switch_at = switches;
        } else {
            c.path = ISDB_PATH_CALLBACK;
            c.theta_fn = rotation_theta;
        }
        if (isdb_linear_env_init(&c, NULL, &env) != ISDB_OK) return 1;
        if (make_policy(k, SYNTH_D, SYNTH_K, SYNTH_T, seed, &pol) != ISDB_OK) return 1;
        if (isdb_sim_run(&pol.base, &env.base, SYNTH_T, NULL, &res) != ISDB_OK) return 1;
        regret[i] = res.regret;
        secs += res.seconds;
        isdb_policy_uninit(&pol.base);
        isdb_env_uninit(&env.base);
    }
    repro_mean_se(regret, seeds, &out->mean, &out->se);
    out->us = 1e6 * secs / ((double)seeds * (double)SYNTH_T);
    out->runs = seeds;
    return 0;
}

/* ---- running the jobs --------------------------------------------------- */

typedef struct run_ctx {
    int synth_seeds;
    outcome out[N_PROBLEMS][N_POL];
} run_ctx;

static int run_job(int job, void *ctx) {
    run_ctx *c = (run_ctx *)ctx;
    int pb = job / N_POL, k = job % N_POL;
    return pb < N_STREAMS ? run_stream(&streams[pb], k, &c->out[pb][k])
                          : run_synth(pb - N_STREAMS, k, c->synth_seeds, &c->out[pb][k]);
}

static void *job_result(int job, size_t *size, void *ctx) {
    run_ctx *c = (run_ctx *)ctx;
    *size = sizeof(outcome);
    return &c->out[job / N_POL][job % N_POL];
}

static const char *problem_name(int pb) { return pb < N_STREAMS ? streams[pb].name : synths[pb - N_STREAMS].name; }
static const reported *problem_rep(int pb) {
    return pb < N_STREAMS ? &streams[pb].rep : &synths[pb - N_STREAMS].rep;
}

/* The best member of the window grid (first) or the discount grid: the
   highest accuracy on a stream, the lowest regret on a synthetic problem. */
static int best_of(int pb, int from, const outcome *o) {
    int k, best = from, higher = pb < N_STREAMS;
    for (k = from + 1; k < from + GRID; ++k)
        if (higher ? o[k].mean > o[best].mean : o[k].mean < o[best].mean) best = k;
    return best;
}

/* ---- report ------------------------------------------------------------- */

static void write_csv(const char *dir, const int *use, const run_ctx *c) {
    FILE *f = repro_open_in(dir, "realstream.csv");
    int pb, k;
    if (!f) return;
    fprintf(f, "problem,rounds,runs,policy,metric,mean,std_err,us_per_round\n");
    for (pb = 0; pb < N_PROBLEMS; ++pb) {
        if (!use[pb]) continue;
        for (k = 0; k < N_POL; ++k) {
            char name[64];
            const outcome *o = &c->out[pb][k];
            if (o->runs == 0) continue;
            policy_name(k, name, sizeof name);
            fprintf(f, "%s,%d,%d,%s,%s,%.6g,%.6g,%.4g\n", problem_name(pb),
                    pb < N_STREAMS ? streams[pb].T : SYNTH_T, o->runs, name, pb < N_STREAMS ? "accuracy" : "regret",
                    o->mean, o->se, o->us);
        }
    }
    fclose(f);
    fprintf(stderr, "realstream: wrote %s/realstream.csv\n", dir);
}

/* One table: rows the policies (measured, then issue 38's figures),
   columns the problems in [from, to). */
static void print_table(int from, int to, const int *use, const run_ctx *c, int digits) {
    static const char *const rows[N_NAMED] = {"adaptive (defaults, R = 0.5)", "LinUCB", "LinTS", "BOB (H = rounds)",
                                             "no-change (last round's label)"};
    int pb, k;
    printf("| policy |");
    for (pb = from; pb < to; ++pb) printf(" %s |", problem_name(pb));
    printf("\n|---|");
    for (pb = from; pb < to; ++pb) printf("---|");
    printf("\n");
    for (k = 0; k < N_NAMED + 2; ++k) {
        if (k == P_NOCHANGE && from >= N_STREAMS) continue;
        if (k < N_NAMED)
            printf("| %s%s |", rows[k], seeded(k) ? (from < N_STREAMS ? ", mean of seeds 1-3" : "") : "");
        else
            printf("| best %s in hindsight |", k == N_NAMED ? "SW-UCB window (50-5000)" : "D-LinUCB discount (0.9-0.9999)");
        for (pb = from; pb < to; ++pb) {
            const outcome *o = c->out[pb];
            if (!use[pb]) {
                printf(" skipped |");
            } else if (k < N_NAMED) {
                if (pb < N_STREAMS)
                    printf(" %.*f |", digits, o[k].mean);
                else
                    printf(" %.*f +- %.*f |", digits, o[k].mean, digits, o[k].se);
            } else {
                int b = best_of(pb, k == N_NAMED ? P_SW0 : P_DL0, o);
                if (k == N_NAMED)
                    printf(" %.*f (w = %d) |", digits, o[b].mean, windows[b - P_SW0]);
                else
                    printf(" %.*f (gamma %g) |", digits, o[b].mean, gammas[b - P_DL0]);
            }
        }
        printf("\n");
    }
    printf("| *peer: VW 9.11.2 default (--cb_explore_adf), issue 38* |");
    for (pb = from; pb < to; ++pb) printf(" %.*f |", digits, problem_rep(pb)->vw_default);
    printf("\n| *peer: VW 9.11.2 best tuned, issue 38* |");
    for (pb = from; pb < to; ++pb) printf(" %.*f (%s) |", digits, problem_rep(pb)->vw_tuned, problem_rep(pb)->vw_tuned_cfg);
    printf("\n| *issue 38's adaptive* |");
    for (pb = from; pb < to; ++pb) printf(" %.*f |", digits, problem_rep(pb)->adaptive);
    printf("\n| *issue 38's best D-LinUCB* |");
    for (pb = from; pb < to; ++pb)
        printf(" %.*f (gamma %s) |", digits, problem_rep(pb)->dlinucb, problem_rep(pb)->dlinucb_gamma);
    printf("\n");
}

int main(int argc, char **argv) {
    static run_ctx ctx;
    int use[N_PROBLEMS], run[N_PROBLEMS * N_POL], order[N_PROBLEMS * N_POL];
    int i, pb, k, quick = 0, jobs = 0, n = 0;
    const char *out_dir = NULL, *data_dir = "bench/data";
    fork_jobs_spec sp;
    time_t start = time(NULL);
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) {
            jobs = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out_dir = argv[++i];
        } else if (strcmp(argv[i], "--data") == 0 && i + 1 < argc) {
            data_dir = argv[++i];
        } else {
            int help = strcmp(argv[i], "--help") == 0;
            fprintf(help ? stdout : stderr,
                    "usage: %s [--quick] [--jobs N] [--out DIR] [--data DIR]\n"
                    "The policies on Elec2 and NOAA weather (accuracy) and on issue 38's jumps and rotation\n"
                    "(regret), beside Vowpal Wabbit's figures as issue 38 reports them; see the source.\n"
                    "  --quick     the first %d rows of each stream, 3 seeds of the synthetic problems\n"
                    "  --out DIR   write DIR/realstream.csv\n"
                    "  --data DIR  the streams' folder (default bench/data)\n",
                    argv[0], QUICK_ROWS);
            return help ? 0 : 2;
        }
    }
    if (jobs < 1) {
        long np = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = np > 0 ? (int)np : 1;
    }
    ctx.synth_seeds = quick ? 3 : SYNTH_SEEDS;
    for (pb = 0; pb < N_STREAMS; ++pb) {
        load_stream(&streams[pb], data_dir, quick);
        use[pb] = streams[pb].ok;
    }
    for (pb = N_STREAMS; pb < N_PROBLEMS; ++pb) use[pb] = 1;
    /* The synthetic problems (20 seeds) first: they are the longest jobs. */
    for (i = 0; i < N_PROBLEMS * N_POL; ++i) {
        order[i] = (i + N_STREAMS * N_POL) % (N_PROBLEMS * N_POL);
        run[i] = use[i / N_POL];
        n += run[i];
    }
    fprintf(stderr, "realstream: %d jobs, %d at a time%s\n", n, jobs, quick ? " (--quick)" : "");
    sp.n = N_PROBLEMS * N_POL;
    sp.order = order;
    sp.use = run;
    sp.run = run_job;
    sp.result = job_result;
    sp.done = NULL;
    sp.ctx = &ctx;
    if (fork_jobs(&sp, jobs) != 0) {
        fprintf(stderr, "%s: a job failed\n", argv[0]);
        return 1;
    }

    printf("Real drifting streams: accuracy (fraction of rounds whose arm was the label) over %s.\n"
           "Every policy told R = 0.5 and lambda = 1. VW's rows (italic) are issue 38's figures, not run here:\n"
           "VW 9.11.2, --cb_explore_adf, context crossed with the action, seeds 1-3, its grid chosen with\n"
           "hindsight; the issue gives no date.\n\n",
           quick ? "the first 5000 rows" : "the whole stream");
    for (pb = 0; pb < N_STREAMS; ++pb)
        printf("  %s: %s; %d rows%s\n", streams[pb].name, streams[pb].about, streams[pb].rows,
               use[pb] ? "" : " -- SKIPPED (files missing or malformed, see above)");
    printf("\n");
    print_table(0, N_STREAMS, use, &ctx, 4);
    printf("\nSynthetic drift (issue 38): mean final pseudo-regret +- standard error over %d seeds.\n\n",
           ctx.synth_seeds);
    for (pb = N_STREAMS; pb < N_PROBLEMS; ++pb) printf("  %s: %s\n", synths[pb - N_STREAMS].name, synths[pb - N_STREAMS].about);
    printf("\n");
    print_table(N_STREAMS, N_PROBLEMS, use, &ctx, 1);

    printf("\nEvery policy (%s, microseconds per round):\n", "accuracy or regret");
    for (pb = 0; pb < N_PROBLEMS; ++pb) {
        if (!use[pb]) continue;
        printf("  %s:", problem_name(pb));
        for (k = 0; k < N_POL; ++k) {
            char name[64];
            const outcome *o = &ctx.out[pb][k];
            if (o->runs == 0) continue;
            policy_name(k, name, sizeof name);
            if (pb < N_STREAMS)
                printf("%s %s %.4f (%.2f us)", k ? "," : "", name, o->mean, o->us);
            else
                printf("%s %s %.1f+-%.1f (%.2f us)", k ? "," : "", name, o->mean, o->se, o->us);
        }
        printf("\n");
    }
    printf("\n");

    for (pb = 0; pb < N_PROBLEMS; ++pb) {
        const outcome *o = ctx.out[pb];
        const reported *r = problem_rep(pb);
        double a = o[P_ADAPTIVE].mean;
        int bs, bd, b;
        char name[64];
        if (!use[pb]) {
            printf("claim: realstream: %s skipped (its data files are missing or malformed): not tested\n",
                   problem_name(pb));
            continue;
        }
        bs = best_of(pb, P_SW0, o);
        bd = best_of(pb, P_DL0, o);
        if (pb < N_STREAMS) {
            b = o[bs].mean >= o[bd].mean ? bs : bd;
            policy_name(b, name, sizeof name);
            printf("claim: realstream: adaptive's accuracy on %s %.4f (target >= VW's tuned %.4f, issue 38: VW 9.11.2, %s)"
                   " %s\n",
                   problem_name(pb), a, r->vw_tuned, r->vw_tuned_cfg, a >= r->vw_tuned ? "holds" : "fails");
            printf("claim: realstream: adaptive's accuracy on %s %.4f (target >= the best tuned window or discount,"
                   " %s %.4f) %s\n",
                   problem_name(pb), a, name, o[b].mean, a >= o[b].mean ? "holds" : "fails");
        } else {
            double target = pb == N_STREAMS ? 0.5 * r->vw_tuned : r->vw_tuned;
            b = o[bs].mean <= o[bd].mean ? bs : bd;
            policy_name(b, name, sizeof name);
            if (pb == N_STREAMS)
                printf("claim: realstream: adaptive's regret on %s %.1f (target <= 0.5 x VW's tuned %.1f = %.1f,"
                       " issue 38) %s\n",
                       problem_name(pb), a, r->vw_tuned, target, a <= target ? "holds" : "fails");
            else
                printf("claim: realstream: adaptive's regret on %s %.1f (target <= VW's tuned %.1f, issue 38: VW"
                       " 9.11.2, %s) %s\n",
                       problem_name(pb), a, r->vw_tuned, r->vw_tuned_cfg, a <= target ? "holds" : "fails");
            printf("claim: realstream: adaptive's regret on %s %.1f (target <= the best tuned window or discount,"
                   " %s %.1f) %s\n",
                   problem_name(pb), a, name, o[b].mean, a <= o[b].mean ? "holds" : "fails");
        }
    }
    if (out_dir) write_csv(out_dir, use, &ctx);
    for (pb = 0; pb < N_STREAMS; ++pb) {
        free(streams[pb].z);
        free(streams[pb].label);
    }
    fprintf(stderr, "realstream: %ld s\n", (long)(time(NULL) - start));
    return 0;
}

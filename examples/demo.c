/* demo.c - what `make demo` runs: a command-line simulator that compares
   the library's policies on standard non-stationary problems.

   Scenarios (each a linear environment of the library):
     abrupt    Russac et al. (2019): d = 2, 50 fresh arms per round uniform
               in [-1, 1]^2 scaled into the unit disc, theta jumping
               (1,0) -> (-1,0) -> (0,1) -> (0,-1) at T/6, T/3, T/2, noise
               sd 1. B_T = 4 + sqrt 2.
     rotation  Russac et al. (2019): the same arms, theta turning on the
               unit circle from angle 0 to pi/2 over the first T/2 rounds,
               then fixed, noise sd 1. B_T = pi/2.
     sinusoid  Cheung et al. (2019) section 7: 2 one-hot arms with means
               0.5 +- 0.3 sin(5 B_T pi t / T), B_T = T^(1/3), noise sd 0.1.
   Every policy gets the scenario's noise scale and ridge, and the windows
   and discounts that need B_T come from the library's helpers
   (isdb_swucb_tuned_window, isdb_dlinucb_tuned_gamma) given the
   scenario's B_T; BOB needs only T, adaptive nothing. Each seed is one environment stream
   shared by all policies (common random numbers).

   It prints, per scenario, the mean and standard error of the final
   pseudo-regret and the processor microseconds per round, and with --out
   writes CSV and an SVG plot of regret against rounds. `demo --help`
   lists the flags. A policy is added with a make_ function and one row of
   the `policies` table. */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PI 3.14159265358979323846

/* ---- what a policy is told about the problem ---------------------------- */

typedef struct setup {
    int d, K;
    uint64_t T;
    double B_T;      /* variation budget the tuned policies are given */
    double noise;    /* noise standard deviation (R, sigma) */
    double lambda;   /* ridge */
    uint64_t seed;
    char tuning[64]; /* filled by make_: the tuned parameter, for the table */
} setup;

static isdb_result make_linucb(setup *s, isdb_policy **out) {
    isdb_linucb *p = (isdb_linucb *)malloc(sizeof *p);
    isdb_linucb_config c = isdb_linucb_config_init(s->d, s->K);
    isdb_result r;
    c.lambda = s->lambda;
    c.R = s->noise;
    if (!p) return ISDB_ERR_OUT_OF_MEMORY;
    if ((r = isdb_linucb_init(&c, NULL, p)) != ISDB_OK) free(p);
    *out = r == ISDB_OK ? &p->base : NULL;
    snprintf(s->tuning, sizeof s->tuning, "-");
    return r;
}

static isdb_result make_swucb(setup *s, isdb_policy **out) {
    isdb_swucb *p = (isdb_swucb *)malloc(sizeof *p);
    isdb_swucb_config c;
    isdb_result r;
    int w = 0;
    if (!p) return ISDB_ERR_OUT_OF_MEMORY;
    if ((r = isdb_swucb_tuned_window(ISDB_WINDOW_KNOWN, s->d, (double)s->T, s->B_T, &w)) == ISDB_OK) {
        c = isdb_swucb_config_init(s->d, s->K, w);
        c.lambda = s->lambda;
        c.R = s->noise;
        r = isdb_swucb_init(&c, NULL, p);
    }
    if (r != ISDB_OK) free(p);
    *out = r == ISDB_OK ? &p->base : NULL;
    snprintf(s->tuning, sizeof s->tuning, "window %d", w);
    return r;
}

static isdb_result make_dlinucb(setup *s, isdb_policy **out) {
    isdb_dlinucb *p = (isdb_dlinucb *)malloc(sizeof *p);
    isdb_dlinucb_config c;
    isdb_result r;
    double gamma = 0.0;
    if (!p) return ISDB_ERR_OUT_OF_MEMORY;
    if ((r = isdb_dlinucb_tuned_gamma(s->d, (double)s->T, s->B_T, &gamma)) == ISDB_OK) {
        c = isdb_dlinucb_config_init(s->d, s->K, gamma);
        c.lambda = s->lambda;
        c.R = s->noise;
        r = isdb_dlinucb_init(&c, NULL, p);
    }
    if (r != ISDB_OK) free(p);
    *out = r == ISDB_OK ? &p->base : NULL;
    snprintf(s->tuning, sizeof s->tuning, "gamma %.5f", gamma);
    return r;
}

static isdb_result make_lints(setup *s, isdb_policy **out) {
    isdb_lints *p = (isdb_lints *)malloc(sizeof *p);
    isdb_lints_config c = isdb_lints_config_init(s->d, s->K);
    isdb_result r;
    c.lambda = s->lambda;
    c.R = s->noise;
    c.inflation = ISDB_LINTS_NONE;
    c.seed = s->seed;
    if (!p) return ISDB_ERR_OUT_OF_MEMORY;
    if ((r = isdb_lints_init(&c, NULL, p)) != ISDB_OK) free(p);
    *out = r == ISDB_OK ? &p->base : NULL;
    snprintf(s->tuning, sizeof s->tuning, "no inflation");
    return r;
}

static isdb_result make_bob(setup *s, isdb_policy **out) {
    isdb_bob *p = (isdb_bob *)malloc(sizeof *p);
    isdb_bob_config c = isdb_bob_config_init(s->d, s->K, s->T);
    isdb_result r;
    c.lambda = s->lambda;
    c.R = s->noise;
    c.seed = s->seed;
    if (!p) return ISDB_ERR_OUT_OF_MEMORY;
    if ((r = isdb_bob_init(&c, NULL, p)) != ISDB_OK) {
        free(p);
    } else {
        const isdb_bob_params *par = isdb_bob_get_params(p);
        snprintf(s->tuning, sizeof s->tuning, "H %d, %d windows", par->H, par->n_windows);
    }
    *out = r == ISDB_OK ? &p->base : NULL;
    return r;
}

static isdb_result make_adaptive(setup *s, isdb_policy **out) {
    isdb_adaptive *p = (isdb_adaptive *)malloc(sizeof *p);
    isdb_adaptive_config c = isdb_adaptive_config_init(s->d, s->K);
    isdb_result r;
    c.lambda = s->lambda;
    c.R = s->noise;
    if (!p) return ISDB_ERR_OUT_OF_MEMORY;
    if ((r = isdb_adaptive_init(&c, NULL, p)) != ISDB_OK) free(p);
    *out = r == ISDB_OK ? &p->base : NULL;
    snprintf(s->tuning, sizeof s->tuning, "-");
    return r;
}

typedef struct policy_entry {
    const char *name;  /* what --policies accepts */
    const char *about; /* one line for --help */
    isdb_result (*make)(setup *s, isdb_policy **out);
} policy_entry;

/* One row per policy; make_ allocates the object with malloc. */
static const policy_entry policies[] = {
    {"linucb", "LinUCB/OFUL, no forgetting (log-det width)", make_linucb},
    {"swucb", "SW-UCB, window tuned to the scenario's B_T", make_swucb},
    {"dlinucb", "D-LinUCB, discount tuned to the scenario's B_T", make_dlinucb},
    {"lints", "linear Thompson sampling (no inflation)", make_lints},
    {"bob", "BOB: EXP3 over SW-UCB windows, needs only T", make_bob},
    {"adaptive", "drift-agnostic: memories chosen online, needs nothing", make_adaptive},
};
#define N_POLICIES ((int)(sizeof policies / sizeof policies[0]))

/* ---- scenarios -------------------------------------------------------------- */

typedef struct scenario {
    const char *name, *about;
    int d, K;
    uint64_t T; /* default horizon */
    double noise, lambda;
    double (*budget)(uint64_t T);
    void (*configure)(uint64_t T, isdb_linear_env_config *c, uint64_t *switches, double *pieces);
} scenario;

static double budget_abrupt(uint64_t T) {
    (void)T;
    return 4.0 + sqrt(2.0);
}

static double budget_rotation(uint64_t T) {
    (void)T;
    return PI / 2.0;
}

static double budget_sinusoid(uint64_t T) { return cbrt((double)T); }

static void configure_abrupt(uint64_t T, isdb_linear_env_config *c, uint64_t *switches, double *pieces) {
    static const double thetas[8] = {1, 0, -1, 0, 0, 1, 0, -1};
    memcpy(pieces, thetas, sizeof thetas);
    switches[0] = T / 6;
    switches[1] = T / 3;
    switches[2] = T / 2;
    c->arms = ISDB_ARMS_BOX;
    c->clip_norm = 1.0;
    c->n_pieces = 4;
    c->pieces = pieces;
    c->switch_at = switches;
}

static void configure_rotation(uint64_t T, isdb_linear_env_config *c, uint64_t *switches, double *pieces) {
    (void)switches;
    (void)pieces;
    c->arms = ISDB_ARMS_BOX;
    c->clip_norm = 1.0;
    c->path = ISDB_PATH_ROTATION;
    c->rot_rounds = T / 2 > 0 ? T / 2 : 1;
}

static void configure_sinusoid(uint64_t T, isdb_linear_env_config *c, uint64_t *switches, double *pieces) {
    static const double arms[4] = {1, 0, 0, 1};
    (void)switches;
    (void)pieces;
    c->arms = ISDB_ARMS_FIXED;
    c->fixed_arms = arms;
    c->path = ISDB_PATH_SINUSOID;
    c->sin_omega = 5.0 * cbrt((double)T) * PI / (double)T;
}

static const scenario scenarios[] = {
    {"abrupt", "d=2, 50 arms, theta jumps 3 times (Russac et al.)", 2, 50, 6000, 1.0, 0.1, budget_abrupt,
     configure_abrupt},
    {"rotation", "d=2, 50 arms, theta turns by pi/2 (Russac et al.)", 2, 50, 6000, 1.0, 0.1, budget_rotation,
     configure_rotation},
    {"sinusoid", "2 arms, sinusoidal means, B_T = T^(1/3) (Cheung et al.)", 2, 2, 30000, 0.1, 1.0, budget_sinusoid,
     configure_sinusoid},
};
#define N_SCENARIOS ((int)(sizeof scenarios / sizeof scenarios[0]))

/* ---- options ------------------------------------------------------------------ */

typedef struct options {
    int use_scenario[N_SCENARIOS], use_policy[N_POLICIES];
    uint64_t T;     /* 0: each scenario's default */
    int seeds;
    uint64_t seed;
    const char *out;
    int quiet;
} options;

static void usage(FILE *f, const char *prog) {
    int i;
    fprintf(f, "usage: %s [options]\n", prog);
    fprintf(f, "Compares non-stationary bandit policies in simulation; prints mean and standard error of the\n"
               "final pseudo-regret and microseconds per round, and writes CSV and SVG with --out.\n\n");
    fprintf(f, "  --scenario LIST   comma-separated, or all (default all):\n");
    for (i = 0; i < N_SCENARIOS; ++i)
        fprintf(f, "                      %-9s %s; T = %lu\n", scenarios[i].name, scenarios[i].about,
                (unsigned long)scenarios[i].T);
    fprintf(f, "  --policies LIST   comma-separated, or all (default all):\n");
    for (i = 0; i < N_POLICIES; ++i) fprintf(f, "                      %-9s %s\n", policies[i].name, policies[i].about);
    fprintf(f, "  --T N             rounds per run, 10 to 100000000 (default: the scenario's T above)\n");
    fprintf(f, "  --seeds N         runs per policy and scenario, 1 to 100000 (default 10)\n");
    fprintf(f, "  --seed N          first seed (default 1); seed s drives run s of every policy\n");
    fprintf(f, "  --out DIR         write demo_<scenario>.csv, demo_<scenario>.svg and demo_summary.csv into DIR\n");
    fprintf(f, "  --quiet           no progress on stderr\n");
    fprintf(f, "  --help            this text\n");
}

static int fail(const char *prog, const char *fmt, const char *arg) {
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see %s --help)\n", prog);
    return 2;
}

/* Whole decimal number in [lo, hi]. */
static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *v) {
    char *end;
    unsigned long long x;
    if (!s || !*s || *s == '-' || *s == '+') return 0;
    errno = 0;
    x = strtoull(s, &end, 10);
    if (errno || *end || x < lo || x > hi) return 0;
    *v = (uint64_t)x;
    return 1;
}

/* Marks the names of a comma-separated list; returns the first unknown
   name (into bad) or NULL. */
static int parse_list(const char *list, const char *const *names, int n, int *use, char *bad, size_t bad_cap) {
    const char *p = list;
    int i;
    if (strcmp(list, "all") == 0) {
        for (i = 0; i < n; ++i) use[i] = 1;
        return 1;
    }
    for (i = 0; i < n; ++i) use[i] = 0;
    while (*p) {
        size_t len = strcspn(p, ",");
        int found = 0;
        for (i = 0; i < n; ++i)
            if (strlen(names[i]) == len && strncmp(names[i], p, len) == 0) use[i] = found = 1;
        if (!found) {
            snprintf(bad, bad_cap, "%.*s", (int)len, p);
            return 0;
        }
        p += len;
        if (*p == ',') ++p;
    }
    for (i = 0; i < n; ++i)
        if (use[i]) return 1;
    snprintf(bad, bad_cap, "%s", list);
    return 0;
}

static int parse_options(int argc, char **argv, options *o) {
    const char *scen_names[N_SCENARIOS], *pol_names[N_POLICIES];
    char bad[128];
    int i;
    for (i = 0; i < N_SCENARIOS; ++i) o->use_scenario[i] = 1, scen_names[i] = scenarios[i].name;
    for (i = 0; i < N_POLICIES; ++i) o->use_policy[i] = 1, pol_names[i] = policies[i].name;
    o->T = 0;
    o->seeds = 10;
    o->seed = 1;
    o->out = NULL;
    o->quiet = 0;
    for (i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t x;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout, argv[0]);
            exit(0);
        } else if (strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
            continue;
        }
        if (strcmp(a, "--scenario") && strcmp(a, "--policies") && strcmp(a, "--T") && strcmp(a, "--seeds") &&
            strcmp(a, "--seed") && strcmp(a, "--out"))
            return fail(argv[0], "unknown flag '%s'", a);
        if (!v) return fail(argv[0], "%s needs a value", a);
        ++i;
        if (strcmp(a, "--scenario") == 0) {
            if (!parse_list(v, scen_names, N_SCENARIOS, o->use_scenario, bad, sizeof bad))
                return fail(argv[0], "unknown scenario '%s' (abrupt, rotation, sinusoid or all)", bad);
        } else if (strcmp(a, "--policies") == 0) {
            if (!parse_list(v, pol_names, N_POLICIES, o->use_policy, bad, sizeof bad))
                return fail(argv[0], "unknown policy '%s' (linucb, swucb, dlinucb, lints, bob, adaptive or all)", bad);
        } else if (strcmp(a, "--T") == 0) {
            if (!parse_u64(v, 10, 100000000, &o->T)) return fail(argv[0], "--T wants a whole number from 10 to 1e8, not '%s'", v);
        } else if (strcmp(a, "--seeds") == 0) {
            if (!parse_u64(v, 1, 100000, &x)) return fail(argv[0], "--seeds wants a whole number from 1 to 100000, not '%s'", v);
            o->seeds = (int)x;
        } else if (strcmp(a, "--seed") == 0) {
            if (!parse_u64(v, 0, UINT64_MAX / 2, &o->seed)) return fail(argv[0], "--seed wants a whole number, not '%s'", v);
        } else {
            o->out = v;
        }
    }
    return 0;
}

/* ---- output: CSV and a hand-written SVG plot ---------------------------------- */

static FILE *open_out(const char *dir, const char *name, char *path, size_t cap) {
    FILE *f;
    snprintf(path, cap, "%s/%s", dir, name);
    f = fopen(path, "w");
    if (!f) fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    return f;
}

/* A round step of 1, 2 or 5 times a power of ten giving about 5 ticks. */
static double nice_step(double span) {
    double raw = span / 5.0, p = pow(10.0, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1.0 : m < 3.5 ? 2.0 : m < 7.5 ? 5.0 : 10.0) * p;
}

/* Regret curves (n_curves of T points) against rounds, linear axes. */
static int write_svg(const char *path, const char *title, const char *const *labels, double *const *curves,
                     int n_curves, uint64_t T) {
    static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"};
    const double W = 760, H = 460, x0 = 80, x1 = W - 170, y0 = H - 56, y1 = 44;
    double ymax = 0.0, step, v;
    uint64_t t, stride = T > 1000 ? T / 1000 : 1;
    int k;
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (k = 0; k < n_curves; ++k)
        for (t = 0; t < T; ++t)
            if (curves[k][t] > ymax) ymax = curves[k][t];
    if (!(ymax > 0.0)) ymax = 1.0;
    ymax *= 1.04;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            W, H);
    fprintf(f, "<text x=\"%g\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">%s</text>\n", (x0 + x1) / 2, title);
    step = nice_step((double)T);
    for (v = 0.0; v <= (double)T; v += step) {
        double px = x0 + v / (double)T * (x1 - x0);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#ddd\"/>\n", px, y0, px, y1);
        fprintf(f, "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%g</text>\n", px, y0 + 16, v);
    }
    step = nice_step(ymax);
    for (v = 0.0; v <= ymax; v += step) {
        double py = y0 - v / ymax * (y0 - y1);
        fprintf(f, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x0, py, x1, py);
        fprintf(f, "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", x0 - 6, py + 4, v);
    }
    fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"black\"/>\n", x0, y1,
            x1 - x0, y0 - y1);
    fprintf(f, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">round</text>\n", (x0 + x1) / 2, H - 14);
    fprintf(f, "<text transform=\"translate(18 %g) rotate(-90)\" text-anchor=\"middle\">cumulative pseudo-regret "
               "(mean of seeds)</text>\n",
            (y0 + y1) / 2);
    for (k = 0; k < n_curves; ++k) {
        const char *color = colors[k % 7];
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" points=\"", color);
        for (t = 0; t < T; t = t + 1 == T ? T : (t + stride < T ? t + stride : T - 1))
            fprintf(f, "%.1f,%.1f ", x0 + (double)(t + 1) / (double)T * (x1 - x0),
                    y0 - curves[k][t] / ymax * (y0 - y1));
        fprintf(f, "\"/>\n<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"%s\" stroke-width=\"2\"/>\n", x1 + 12,
                y1 + 14 + 20 * k, x1 + 36, y1 + 14 + 20 * k, color);
        fprintf(f, "<text x=\"%g\" y=\"%g\">%s</text>\n", x1 + 42, y1 + 18 + 20 * k, labels[k]);
    }
    fprintf(f, "</svg>\n");
    fclose(f);
    return 0;
}

/* ---- the simulation ---------------------------------------------------------- */

static double seconds_now(void) { return (double)clock() / (double)CLOCKS_PER_SEC; }

typedef struct progress {
    int quiet, shown;
    double last;
} progress;

static void show_progress(progress *pr, const char *scen, const char *pol, int seed, int seeds, uint64_t t,
                          uint64_t T) {
    double now = seconds_now();
    if (pr->quiet || now - pr->last < 0.5) return;
    pr->last = now;
    pr->shown = 1;
    fprintf(stderr, "\r  %s: %-8s seed %d/%d, round %lu/%lu   ", scen, pol, seed, seeds, (unsigned long)t,
            (unsigned long)T);
    fflush(stderr);
}

static void clear_progress(progress *pr) {
    if (pr->shown) fprintf(stderr, "\r%70s\r", "");
    pr->shown = 0;
}

static isdb_result make_env(const scenario *sc, uint64_t T, uint64_t seed, isdb_linear_env *env) {
    isdb_linear_env_config c = isdb_linear_env_config_init(sc->d, sc->K);
    uint64_t switches[8];
    double pieces[32];
    c.seed = seed;
    c.noise_sd = sc->noise;
    sc->configure(T, &c, switches, pieces);
    return isdb_linear_env_init(&c, NULL, env); /* copies switches and pieces */
}

/* Processor microseconds per round of the environment alone (drawing the
   arms and one noisy reward), which the policies' figures include. */
static double env_cost(const scenario *sc, uint64_t T, uint64_t seed) {
    isdb_linear_env env;
    double y, start;
    uint64_t t;
    if (make_env(sc, T, seed, &env) != ISDB_OK) return 0.0;
    start = seconds_now();
    for (t = 0; t < T; ++t) {
        isdb_env_next(&env.base);
        isdb_env_reward(&env.base, 0, &y);
    }
    start = seconds_now() - start;
    isdb_env_uninit(&env.base);
    return 1e6 * start / (double)T;
}

typedef struct summary {
    double mean, se, us;
    char tuning[64];
} summary;

/* Runs every chosen policy on one scenario; fills curves[k] (mean
   cumulative regret per round) and sum[k]. Returns 0 on success. */
static int run_scenario(const scenario *sc, const options *o, uint64_t T, double **curves, summary *sum,
                        progress *pr) {
    double *cum = (double *)malloc(sizeof(double) * (size_t)T), *final = (double *)malloc(sizeof(double) * (size_t)o->seeds);
    const uint64_t chunk = 4096;
    int k, s;
    if (!cum || !final) {
        free(cum);
        free(final);
        fprintf(stderr, "out of memory for T = %lu\n", (unsigned long)T);
        return -1;
    }
    for (k = 0; k < N_POLICIES; ++k) {
        double seconds = 0.0, m = 0.0, v = 0.0;
        uint64_t t;
        if (!o->use_policy[k]) continue;
        for (t = 0; t < T; ++t) curves[k][t] = 0.0;
        for (s = 0; s < o->seeds; ++s) {
            isdb_linear_env env;
            isdb_policy *p = NULL;
            isdb_sim_result res;
            setup st;
            isdb_result r;
            double base = 0.0;
            st.d = sc->d;
            st.K = sc->K;
            st.T = T;
            st.B_T = sc->budget(T);
            st.noise = sc->noise;
            st.lambda = sc->lambda;
            st.seed = o->seed + (uint64_t)s;
            if ((r = make_env(sc, T, o->seed + (uint64_t)s, &env)) != ISDB_OK ||
                (r = policies[k].make(&st, &p)) != ISDB_OK) {
                clear_progress(pr);
                fprintf(stderr, "%s on %s: %s\n", policies[k].name, sc->name, isdb_result_string(r));
                free(cum);
                free(final);
                return -1;
            }
            /* In chunks, so progress can be shown; regret carries over. */
            for (t = 0; t < T && r == ISDB_OK; t += chunk) {
                uint64_t n = T - t < chunk ? T - t : chunk, i;
                r = isdb_sim_run(p, &env.base, n, cum + t, &res);
                for (i = 0; i < n; ++i) cum[t + i] += base;
                base += res.regret;
                seconds += res.seconds;
                show_progress(pr, sc->name, policies[k].name, s + 1, o->seeds, t + n, T);
            }
            if (r != ISDB_OK) {
                clear_progress(pr);
                fprintf(stderr, "%s on %s: %s\n", policies[k].name, sc->name, isdb_result_string(r));
                free(cum);
                free(final);
                return -1;
            }
            for (t = 0; t < T; ++t) curves[k][t] += cum[t] / o->seeds;
            final[s] = base;
            memcpy(sum[k].tuning, st.tuning, sizeof st.tuning);
            isdb_policy_uninit(p);
            free(p);
            isdb_env_uninit(&env.base);
        }
        for (s = 0; s < o->seeds; ++s) m += final[s] / o->seeds;
        for (s = 0; s < o->seeds; ++s) v += (final[s] - m) * (final[s] - m);
        sum[k].mean = m;
        sum[k].se = o->seeds > 1 ? sqrt(v / (o->seeds - 1) / o->seeds) : 0.0;
        sum[k].us = 1e6 * seconds / ((double)T * o->seeds);
    }
    clear_progress(pr);
    free(cum);
    free(final);
    return 0;
}

static int write_outputs(const scenario *sc, const options *o, uint64_t T, double *const *curves,
                         const summary *sum, FILE *summary_csv) {
    const char *labels[N_POLICIES];
    double *used[N_POLICIES];
    char path[2048], name[128], title[160];
    uint64_t t, stride = T > 2000 ? T / 2000 : 1;
    int k, n = 0;
    FILE *f;
    for (k = 0; k < N_POLICIES; ++k)
        if (o->use_policy[k]) {
            labels[n] = policies[k].name;
            used[n++] = curves[k];
            fprintf(summary_csv, "%s,%s,%lu,%d,%.6g,%.6g,%.4g\n", sc->name, policies[k].name, (unsigned long)T,
                    o->seeds, sum[k].mean, sum[k].se, sum[k].us);
        }
    snprintf(name, sizeof name, "demo_%s.csv", sc->name);
    if (!(f = open_out(o->out, name, path, sizeof path))) return -1;
    fprintf(f, "round");
    for (k = 0; k < n; ++k) fprintf(f, ",%s", labels[k]);
    fprintf(f, "\n");
    for (t = stride - 1; t < T; t = t + 1 == T ? T : (t + stride < T ? t + stride : T - 1)) {
        fprintf(f, "%lu", (unsigned long)(t + 1));
        for (k = 0; k < n; ++k) fprintf(f, ",%.6g", used[k][t]);
        fprintf(f, "\n");
    }
    fclose(f);
    printf("wrote %s\n", path);
    snprintf(name, sizeof name, "demo_%s.svg", sc->name);
    snprintf(path, sizeof path, "%s/%s", o->out, name);
    snprintf(title, sizeof title, "%s: mean regret of %d seeds, T = %lu", sc->name, o->seeds, (unsigned long)T);
    if (write_svg(path, title, labels, used, n, T) != 0) return -1;
    printf("wrote %s\n", path);
    return 0;
}

int main(int argc, char **argv) {
    options o;
    progress pr;
    double *curves[N_POLICIES];
    summary sum[N_POLICIES];
    FILE *summary_csv = NULL;
    char path[2048];
    int i, k, status = parse_options(argc, argv, &o);
    if (status) return status;
    pr.quiet = o.quiet;
    pr.shown = 0;
    pr.last = seconds_now() + 1.5; /* progress only for runs longer than 2 s */
    if (o.out) {
        if (!(summary_csv = open_out(o.out, "demo_summary.csv", path, sizeof path))) return 1;
        fprintf(summary_csv, "scenario,policy,T,seeds,mean_regret,std_err,us_per_round\n");
    }
    for (i = 0; i < N_SCENARIOS; ++i) {
        const scenario *sc = &scenarios[i];
        uint64_t T = o.T ? o.T : sc->T;
        if (!o.use_scenario[i]) continue;
        for (k = 0; k < N_POLICIES; ++k) {
            curves[k] = o.use_policy[k] ? (double *)malloc(sizeof(double) * (size_t)T) : NULL;
            if (o.use_policy[k] && !curves[k]) {
                fprintf(stderr, "out of memory for T = %lu\n", (unsigned long)T);
                return 1;
            }
        }
        if (run_scenario(sc, &o, T, curves, sum, &pr) != 0) return 1;
        printf("%s: %s\n  T = %lu, %d seeds, B_T given to the tuned policies %.4g\n", sc->name, sc->about,
               (unsigned long)T, o.seeds, sc->budget(T));
        printf("  %-8s %12s %10s %10s   %s\n", "policy", "regret", "std.err", "us/round", "tuning");
        for (k = 0; k < N_POLICIES; ++k)
            if (o.use_policy[k])
                printf("  %-8s %12.1f %10.1f %10.2f   %s\n", policies[k].name, sum[k].mean, sum[k].se, sum[k].us,
                       sum[k].tuning);
        printf("  (the environment alone takes %.2f us/round, included above)\n",
               env_cost(sc, T, o.seed));
        if (o.out && write_outputs(sc, &o, T, curves, sum, summary_csv) != 0) return 1;
        printf("\n");
        for (k = 0; k < N_POLICIES; ++k) free(curves[k]);
    }
    if (summary_csv) {
        fclose(summary_csv);
        printf("wrote %s\n", path);
    }
    return 0;
}

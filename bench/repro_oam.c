/* repro_oam: the experiments of section 5 and appendix D of Hao,
   Lattimore, Szepesvari, "Adaptive exploration in linear contextual
   bandit" (AISTATS 2020): OAM against LinUCB (OFUL) and linear Thompson
   sampling with and without the variance inflation of its theory.

     ./repro_oam --out DIR [--quick] [--reps N]

   Experiments (noise N(0, 1), theta = (1, 0) unless said):
     fixed 5u / 2u, u = 0.1, 0.2   section 5.1: arms (1,0), (0,1), (1-u, a u);
                                   the paper prints a = 5, its narrative
                                   (x2 is the informative arm) needs a = 2
     scenario one                  section 5.2: d 3, theta (1,0,1), two sets, p 0.3 / 0.7
     scenario two                  section 5.2: two sets, p 0.99 / 0.01
     bounded                       section 5.3: the same sets, p 0.8 / 0.2
     circle 100 / circle 5         section 5.4 / appendix D: arms uniform on the
                                   unit circle, drawn again in every repetition
     circle 100, random theta      appendix D: theta ~ N(0, 10 I) normalised
   each at horizons 1e4 and 1e5, 100 repetitions, under three forcing
   schedules of OAM: the literal 1/max(1, ln ln t), none (the allocation
   drives exploration), and 0.1/max(1, ln ln t). OAM is told every action
   set in advance (the paper's known sets). Baselines: LinUCB with lambda
   1, delta 1/n, S = ||theta||, L = the longest arm; LinTS with
   epsilon = 1/ln n, delta = 1/n (theory) or no inflation. The paper gives
   no horizon, no baseline parameters and no constant c (c = 1 here).

   Prints tables, writes oam_summary.csv, oam_curves.csv and one SVG per
   experiment and horizon into DIR, and ends with `claim:` lines. The CSV,
   SVG and argument helpers are local (bench/repro_common.h is not on this
   branch yet). */
#define _POSIX_C_SOURCE 199309L
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NPOL 6
#define NCK 100 /* checkpoints per run, linearly spaced */
#define MAXREP 200
#define MAXK 100
#define MAXM 2

enum { P_OAM_LIT, P_OAM_NONE, P_OAM_SCALED, P_LINUCB, P_LINTS_TH, P_LINTS_NONE };
static const char *pol_name[NPOL] = {"OAM 1/lnln t", "OAM none", "OAM 0.1/lnln t", "LinUCB", "LinTS theory",
                                     "LinTS none"};
static const char *pol_key[NPOL] = {"oam_loglog", "oam_none", "oam_scaled", "linucb", "lints_theory", "lints_none"};
static const char *pol_color[NPOL] = {"#d62728", "#1f77b4", "#9467bd", "#2ca02c", "#ff7f0e", "#8c564b"};

typedef struct experiment {
    const char *key, *label;
    int d, K, M;
    double arms[MAXM * 3 * 3]; /* fixed sets (not the circles) */
    double probs[MAXM];
    double theta[3];
    int circle;       /* > 0: that many arms on the unit circle, per repetition */
    int random_theta; /* theta ~ N(0, 10 I), normalised, per repetition */
} experiment;

/* Per experiment and horizon: regret at checkpoints per policy and
   repetition, and OAM's decision counters. */
static double ck_regret[NPOL][MAXREP][NCK + 1];
static isdb_oam_counts cnt_end[3][MAXREP], cnt_late[3][MAXREP];
static double chat[3][MAXREP], c_true[MAXREP];

typedef union policy_storage {
    isdb_oam oam;
    isdb_linucb linucb;
    isdb_lints lints;
} policy_storage;

/* ---- small statistics, CSV and SVG helpers --------------------------------- */

static double mean_of(const double *v, int n) {
    double s = 0.0;
    int i;
    for (i = 0; i < n; ++i) s += v[i];
    return s / n;
}

static double se_of(const double *v, int n) {
    double m = mean_of(v, n), s = 0.0;
    int i;
    if (n < 2) return 0.0;
    for (i = 0; i < n; ++i) s += (v[i] - m) * (v[i] - m);
    return sqrt(s / (n - 1) / n);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static FILE *open_out(const char *dir, const char *name) {
    char path[1024];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "repro_oam: cannot write %s\n", path);
        exit(1);
    }
    return f;
}

/* One panel of regret curves (mean, standard-error band) of the policies
   in mask, at horizontal offset ox. */
static void svg_panel(FILE *f, double ox, const char *title, unsigned mask, uint64_t n, int reps) {
    const double y0 = 40, pw = 400, ph = 330;
    double ymax = 0.0, v[MAXREP];
    int p, c, r;
    for (p = 0; p < NPOL; ++p)
        if (mask & (1u << p))
            for (c = 0; c <= NCK; ++c) {
                double m;
                for (r = 0; r < reps; ++r) v[r] = ck_regret[p][r][c];
                m = mean_of(v, reps) + se_of(v, reps);
                if (m > ymax) ymax = m;
            }
    if (ymax <= 0.0) ymax = 1.0;
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", ox, y0 - 8, title);
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"black\"/>\n", ox,
            y0, pw, ph);
    for (c = 0; c <= 4; ++c) {
        double yy = y0 + ph - ph * c / 4, xx = ox + pw * c / 4;
        double yv = ymax * c / 4;
        fprintf(f, yv >= 100.0 ? "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n"
                               : "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n",
                ox - 4, yy + 4, yv);
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.0f</text>\n", xx, y0 + ph + 16,
                (double)n * c / 4);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">round</text>\n", ox + pw / 2, y0 + ph + 34);
    for (p = 0; p < NPOL; ++p) {
        double mu[NCK + 1], se[NCK + 1];
        if (!(mask & (1u << p))) continue;
        for (c = 0; c <= NCK; ++c) {
            for (r = 0; r < reps; ++r) v[r] = ck_regret[p][r][c];
            mu[c] = mean_of(v, reps);
            se[c] = se_of(v, reps);
        }
        fprintf(f, "<polygon fill=\"%s\" fill-opacity=\"0.2\" stroke=\"none\" points=\"", pol_color[p]);
        for (c = 0; c <= NCK; ++c)
            fprintf(f, "%.1f,%.1f ", ox + pw * c / NCK, y0 + ph - ph * (mu[c] + se[c]) / ymax);
        for (c = NCK; c >= 0; --c)
            fprintf(f, "%.1f,%.1f ", ox + pw * c / NCK, y0 + ph - ph * (mu[c] - se[c]) / ymax);
        fprintf(f, "\"/>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", pol_color[p]);
        for (c = 0; c <= NCK; ++c) fprintf(f, "%.1f,%.1f ", ox + pw * c / NCK, y0 + ph - ph * mu[c] / ymax);
        fprintf(f, "\"/>\n");
    }
}

/* Two panels: every policy, and a zoom on the three that stay close
   (OAM without forcing, LinUCB, LinTS without inflation). */
static void write_svg(const char *dir, const experiment *ex, uint64_t n, int reps) {
    char name[256], title[256];
    FILE *f;
    int p;
    snprintf(name, sizeof name, "oam_%s_n%llu.svg", ex->key, (unsigned long long)n);
    f = open_out(dir, name);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1130\" height=\"450\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    snprintf(title, sizeof title, "%s, n = %llu, %d repetitions: cumulative pseudo-regret (mean, band 1 s.e.)",
             ex->label, (unsigned long long)n, reps);
    fprintf(f, "<text x=\"60\" y=\"16\" font-size=\"14\">%s</text>\n", title);
    svg_panel(f, 60, "all policies", 0x3Fu, n, reps);
    svg_panel(f, 550, "zoom: OAM none, LinUCB, LinTS none",
              (1u << P_OAM_NONE) | (1u << P_LINUCB) | (1u << P_LINTS_NONE), n, reps);
    for (p = 0; p < NPOL; ++p) {
        fprintf(f, "<line x1=\"975\" y1=\"%d\" x2=\"995\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>\n",
                60 + 20 * p, 60 + 20 * p, pol_color[p]);
        fprintf(f, "<text x=\"1000\" y=\"%d\">%s</text>\n", 64 + 20 * p, pol_name[p]);
    }
    fprintf(f, "</svg>\n");
    fclose(f);
}

/* ---- running ------------------------------------------------------------------- */

static void make_arms(const experiment *ex, int rep, double *arms, double *theta) {
    int k, i;
    memcpy(theta, ex->theta, sizeof(double) * (size_t)ex->d);
    if (ex->circle) {
        isdb_rng rng;
        isdb_rng_seed(&rng, 90000 + (uint64_t)rep);
        for (k = 0; k < ex->circle; ++k) {
            double a = 2.0 * 3.14159265358979323846 * isdb_rng_uniform(&rng);
            arms[2 * k] = cos(a);
            arms[2 * k + 1] = sin(a);
        }
        if (ex->random_theta) {
            double nrm = 0.0;
            for (i = 0; i < 2; ++i) {
                theta[i] = sqrt(10.0) * isdb_rng_normal(&rng);
                nrm += theta[i] * theta[i];
            }
            for (i = 0; i < 2; ++i) theta[i] /= sqrt(nrm);
        }
    } else {
        memcpy(arms, ex->arms, sizeof(double) * (size_t)(ex->M * ex->K * ex->d));
    }
}

/* C of Theorem 3.3 at the true gaps: 2 sum Delta w over all contexts. */
static double true_constant(const experiment *ex, const double *arms, const double *theta) {
    static double gaps[MAXM * MAXK], work[1 << 16], w[MAXM * MAXK];
    isdb_oam_problem prob;
    isdb_oam_alloc_info info;
    int m, k, d = ex->d, K = ex->K;
    for (m = 0; m < ex->M; ++m) {
        double top = -1e300;
        for (k = 0; k < K; ++k) {
            double mu = 0.0;
            int i;
            for (i = 0; i < d; ++i) mu += arms[(m * K + k) * d + i] * theta[i];
            gaps[m * K + k] = mu;
            if (mu > top) top = mu;
        }
        for (k = 0; k < K; ++k) gaps[m * K + k] = top - gaps[m * K + k];
    }
    prob = isdb_oam_problem_init(d, ex->M * K, arms, gaps);
    if (isdb_oam_allocate_work_size(d, ex->M * K) > sizeof work / sizeof work[0] ||
        isdb_oam_allocate(&prob, w, &info, work) < 0)
        return -1.0;
    return 2.0 * info.value;
}

static isdb_policy *make_policy(int p, const experiment *ex, const double *arms, const double *theta, uint64_t n,
                                int rep, policy_storage *mem) {
    int d = ex->d, K = ex->K, m, k;
    double S = 0.0, L = 0.0;
    for (k = 0; k < d; ++k) S += theta[k] * theta[k];
    for (k = 0; k < ex->M * K; ++k) {
        double l = 0.0;
        int i;
        for (i = 0; i < d; ++i) l += arms[k * d + i] * arms[k * d + i];
        if (l > L) L = l;
    }
    if (p <= P_OAM_SCALED) {
        isdb_oam_config c = isdb_oam_config_init(d, K, n);
        c.max_contexts = ex->M;
        c.forcing = p == P_OAM_LIT ? ISDB_OAM_FORCE_LOGLOG : p == P_OAM_NONE ? ISDB_OAM_FORCE_NONE
                                                                              : ISDB_OAM_FORCE_SCALED;
        c.force_c = 0.1;
        if (isdb_oam_init(&c, NULL, &mem->oam) != ISDB_OK) return NULL;
        for (m = 0; m < ex->M; ++m)
            if (isdb_oam_add_context(&mem->oam, arms + m * K * d, K, NULL) != ISDB_OK) return NULL;
        return &mem->oam.base;
    }
    if (p == P_LINUCB) {
        isdb_linucb_config c = isdb_linucb_config_init(d, K);
        c.delta = 1.0 / (double)n;
        c.S = sqrt(S);
        c.L = sqrt(L);
        return isdb_linucb_init(&c, NULL, &mem->linucb) == ISDB_OK ? &mem->linucb.base : NULL;
    } else {
        isdb_lints_config c = isdb_lints_config_init(d, K);
        c.inflation = p == P_LINTS_TH ? ISDB_LINTS_THEORY : ISDB_LINTS_NONE;
        c.epsilon = 1.0 / log((double)n);
        c.delta = 1.0 / (double)n;
        c.seed = 7919 * (uint64_t)rep + 17;
        return isdb_lints_init(&c, NULL, &mem->lints) == ISDB_OK ? &mem->lints.base : NULL;
    }
}

static int run_experiment(int e, const experiment *ex, uint64_t n, int reps) {
    static double arms[MAXM * MAXK * 3];
    double theta[3];
    int rep, p;
    for (rep = 0; rep < reps; ++rep) {
        isdb_context_env_config ec = isdb_context_env_config_init(ex->d, ex->K, ex->M);
        isdb_context_env env;
        make_arms(ex, rep, arms, theta);
        c_true[rep] = true_constant(ex, arms, theta);
        ec.arms = arms;
        ec.probs = ex->probs;
        ec.theta = theta;
        ec.seed = 1000003 * (uint64_t)(e + 1) + (uint64_t)rep;
        if (isdb_context_env_init(&ec, NULL, &env) != ISDB_OK) return 0;
        for (p = 0; p < NPOL; ++p) {
            policy_storage mem;
            isdb_policy *pol = make_policy(p, ex, arms, theta, n, rep, &mem);
            double regret = 0.0;
            uint64_t t, late = n - n / 10;
            int c = 1;
            if (!pol) return 0;
            isdb_env_reset(&env.base);
            ck_regret[p][rep][0] = 0.0;
            for (t = 1; t <= n; ++t) {
                int arm, k;
                double y, best;
                if (isdb_env_next(&env.base) != ISDB_OK || isdb_policy_select(pol, env.base.X, ex->K, &arm) < 0 ||
                    isdb_env_reward(&env.base, arm, &y) != ISDB_OK ||
                    isdb_policy_update(pol, arm, env.base.X + arm * ex->d, y) < 0)
                    return 0;
                best = env.base.means[0];
                for (k = 1; k < ex->K; ++k)
                    if (env.base.means[k] > best) best = env.base.means[k];
                regret += best - env.base.means[arm];
                if (t * NCK >= (uint64_t)c * n) ck_regret[p][rep][c++] = regret;
                if (p <= P_OAM_SCALED && t == late) isdb_oam_get_counts(&mem.oam, &cnt_late[p][rep]);
            }
            if (p <= P_OAM_SCALED) {
                isdb_oam_get_counts(&mem.oam, &cnt_end[p][rep]);
                chat[p][rep] = isdb_oam_get_regret_constant(&mem.oam);
            }
            isdb_policy_uninit(pol);
        }
        isdb_env_uninit(&env.base);
    }
    return 1;
}

/* OAM's means over repetitions: C-hat, init, exploit, track, forced,
   wasted, solves, and the exploit share of the last n/10 rounds. */
static void oam_means(int p, int reps, uint64_t n, double s[8]) {
    int r, i;
    for (i = 0; i < 8; ++i) s[i] = 0.0;
    for (r = 0; r < reps; ++r) {
        const isdb_oam_counts *a = &cnt_end[p][r];
        s[0] += chat[p][r];
        s[1] += (double)a->init;
        s[2] += (double)a->exploit;
        s[3] += (double)a->track;
        s[4] += (double)a->forced;
        s[5] += (double)a->wasted;
        s[6] += (double)a->solves;
        s[7] += (double)(a->exploit - cnt_late[p][r].exploit) / (double)(n / 10);
    }
    for (i = 0; i < 8; ++i) s[i] /= reps;
}

/* ---- claims -------------------------------------------------------------------- */

static int n_claims, n_hold;
static char claim_buf[160][512];

static void add_claim(int holds, const char *fmt, ...) {
    va_list ap;
    char body[400];
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    if (n_claims < 160)
        snprintf(claim_buf[n_claims++], sizeof claim_buf[0], "claim: oam: %s %s", body, holds ? "holds" : "fails");
    n_hold += holds;
}

/* Final regret of policy p: mean and s.e.; paired difference a - b. */
static void final_stats(int p, int reps, double *m, double *se) {
    double v[MAXREP];
    int r;
    for (r = 0; r < reps; ++r) v[r] = ck_regret[p][r][NCK];
    *m = mean_of(v, reps);
    *se = se_of(v, reps);
}

static void diff_stats(int a, int b, int ck, int reps, double *m, double *se) {
    double v[MAXREP];
    int r;
    for (r = 0; r < reps; ++r) v[r] = ck_regret[a][r][ck] - ck_regret[b][r][ck];
    *m = mean_of(v, reps);
    *se = se_of(v, reps);
}

static double mean_at(int p, int ck, int reps) {
    double v[MAXREP];
    int r;
    for (r = 0; r < reps; ++r) v[r] = ck_regret[p][r][ck];
    return mean_of(v, reps);
}

/* First checkpoint from which policy a's mean regret stays below b's to
   the end; -1 if a is not below b at the end. */
static int overtakes(int a, int b, int reps) {
    int c, from = -1;
    for (c = NCK; c >= 1; --c) {
        if (mean_at(a, c, reps) < mean_at(b, c, reps))
            from = c;
        else
            break;
    }
    return from;
}

static const char *sched_words(int p) {
    return p == P_OAM_LIT ? "forcing 1/max(1,lnln t)" : p == P_OAM_NONE ? "no forcing" : "forcing 0.1/max(1,lnln t)";
}

static void make_claims(int e, const experiment *ex, uint64_t n, int reps) {
    int s, sched[2] = {P_OAM_LIT, P_OAM_NONE};
    double mo, so, ml, sl, md, sd;
    final_stats(P_LINUCB, reps, &ml, &sl);
    for (s = 0; s < 2; ++s) {
        int p = sched[s];
        final_stats(p, reps, &mo, &so);
        diff_stats(P_LINUCB, p, NCK, reps, &md, &sd);
        if (e <= 3) {
            add_claim(md > 2.0 * sd,
                      "%s, n=%llu, %s: regret OAM %.1f+-%.1f, LinUCB %.1f+-%.1f, LinUCB-OAM %.1f+-%.1f (paper: "
                      "\"LinUCB suffers significantly more regret than our algorithm\")",
                      ex->label, (unsigned long long)n, sched_words(p), mo, so, ml, sl, md, sd);
        } else if (e == 4) {
            double early_o = mean_at(p, NCK / 10, reps), early_l = mean_at(P_LINUCB, NCK / 10, reps);
            add_claim(md > 2.0 * sd && early_l < early_o,
                      "%s, n=%llu, %s: at n/10 LinUCB %.1f, OAM %.1f; at n OAM %.1f+-%.1f, LinUCB %.1f+-%.1f, "
                      "LinUCB-OAM %.1f+-%.1f (paper: \"LinUCB, while starts better, eventually again suffers more "
                      "regret than our algorithm\")",
                      ex->label, (unsigned long long)n, sched_words(p), early_l, early_o, mo, so, ml, sl, md, sd);
        } else if (e == 5 || e == 6) {
            add_claim(fabs(md) <= 2.0 * sd || fabs(md) <= 0.1 * ml,
                      "%s, n=%llu, %s: regret OAM %.1f+-%.1f, LinUCB %.1f+-%.1f, difference %.1f+-%.1f, close = within "
                      "2 s.e. or 10%% (paper: %s)",
                      ex->label, (unsigned long long)n, sched_words(p), mo, so, ml, sl, -md, sd,
                      e == 5 ? "\"LinUCB and our algorithm are nearly indistinguishable\""
                             : "both bounded, \"in line with Theorem 3.9\"");
        }
        if (e == 6) {
            /* Bounded regret: growth over the last 90% of rounds below 10% of
               the regret at n/10 (logarithmic growth gives 25-33%). */
            double r10 = mean_at(p, NCK / 10, reps), grow = mo - r10, late, om[8];
            add_claim(grow <= 0.1 * r10,
                      "%s, n=%llu, %s: OAM regret %.2f at n/10, %.2f at n: growth %.1f%% of it over the last 90%% of "
                      "rounds, bounded = below 10%% (paper: \"The regret of our algorithm appears to have stopped "
                      "growing after a short period of increase\")",
                      ex->label, (unsigned long long)n, sched_words(p), r10, mo, 100.0 * grow / r10);
            oam_means(p, reps, n, om);
            late = om[7];
            add_claim(late >= 0.95,
                      "%s, n=%llu, %s: OAM exploits in %.1f%% of the last n/10 rounds, tending to 1 = above 95%% "
                      "(paper: sub-logarithmic regret, \"acts mostly greedily\")",
                      ex->label, (unsigned long long)n, sched_words(p), 100.0 * late);
        }
        if (e == 7) {
            double mt, st;
            final_stats(P_LINTS_TH, reps, &mt, &st);
            diff_stats(P_LINTS_TH, p, NCK, reps, &md, &sd);
            add_claim(md > 2.0 * sd,
                      "%s, n=%llu, %s: regret OAM %.1f+-%.1f, theory LinTS %.1f+-%.1f, LinTS-OAM %.1f+-%.1f (paper: "
                      "\"The regret of (the theoretically justified version of) LinTS is also very large\")",
                      ex->label, (unsigned long long)n, sched_words(p), mo, so, mt, st, md, sd);
        }
        if (e == 9) {
            double mh, sh;
            int q, best = 1;
            final_stats(P_LINTS_NONE, reps, &mh, &sh);
            for (q = 0; q < NPOL; ++q)
                if (q != P_LINTS_NONE && mean_at(q, NCK, reps) <= mh) best = 0;
            diff_stats(p, P_LINTS_NONE, NCK, reps, &md, &sd);
            add_claim(best && md > 0.0,
                      "%s, n=%llu, %s: regret heuristic LinTS %.1f+-%.1f, OAM %.1f+-%.1f (OAM-LinTS %.1f+-%.1f), "
                      "LinTS lowest of all six: %s (paper: \"the heuristic LinTS enjoys the best performance by a "
                      "modest margin\")",
                      ex->label, (unsigned long long)n, sched_words(p), mh, sh, mo, so, md, sd, best ? "yes" : "no");
        }
    }
    if (e == 6) {
        double r10 = mean_at(P_LINUCB, NCK / 10, reps), grow = ml - r10;
        add_claim(grow <= 0.1 * r10,
                  "%s, n=%llu: LinUCB regret %.2f at n/10, %.2f at n: growth %.1f%% over the last 90%% of rounds, "
                  "bounded = below 10%% (paper: \"LinUCB is seen to achieve bounded regret in this problem\")",
                  ex->label, (unsigned long long)n, r10, ml, 100.0 * grow / r10);
    }
}

/* ---- main ---------------------------------------------------------------------- */

static experiment experiments[10];
static char counter_lines[10][3][240];

static void setup(void) {
    static const double us[2] = {0.1, 0.2};
    int i, a;
    memset(experiments, 0, sizeof experiments);
    for (i = 0; i < 4; ++i) {
        experiment *x = &experiments[i];
        double u = us[i % 2];
        static char labels[4][64], keys[4][32];
        a = i < 2 ? 5 : 2;
        snprintf(labels[i], sizeof labels[i], "fixed set x3=(1-u,%du) u=%.1f", a, u);
        snprintf(keys[i], sizeof keys[i], "fixed_%du_u%.1f", a, u);
        x->key = keys[i];
        x->label = labels[i];
        x->d = 2;
        x->K = 3;
        x->M = 1;
        x->arms[0] = 1;
        x->arms[1] = 0;
        x->arms[2] = 0;
        x->arms[3] = 1;
        x->arms[4] = 1 - u;
        x->arms[5] = a * u;
        x->probs[0] = 1;
        x->theta[0] = 1;
    }
    {
        static const double S1[18] = {1, 0, 0, 0, 1, 0, 0.9, 0.5, 0, 0, 1, 0, 0, 0, 1, 0, 0.5, 0.9};
        static const double S2[12] = {1, 0, 0, 1, 0.9, 0.5, 0, 1, -1, 0, -1, 0};
        experiment *x = &experiments[4];
        x->key = "scenario1";
        x->label = "scenario one";
        x->d = 3;
        x->K = 3;
        x->M = 2;
        memcpy(x->arms, S1, sizeof S1);
        x->probs[0] = 0.3;
        x->probs[1] = 0.7;
        x->theta[0] = 1;
        x->theta[2] = 1;
        for (i = 5; i <= 6; ++i) {
            x = &experiments[i];
            x->key = i == 5 ? "scenario2" : "bounded";
            x->label = i == 5 ? "scenario two" : "bounded regret";
            x->d = 2;
            x->K = 3;
            x->M = 2;
            memcpy(x->arms, S2, sizeof S2);
            x->probs[0] = i == 5 ? 0.99 : 0.8;
            x->probs[1] = i == 5 ? 0.01 : 0.2;
            x->theta[0] = 1;
        }
    }
    for (i = 7; i <= 9; ++i) {
        experiment *x = &experiments[i];
        x->key = i == 7 ? "circle100" : i == 8 ? "circle5" : "circle100_random_theta";
        x->label = i == 7 ? "100 arms on the circle" : i == 8 ? "5 arms on the circle" : "100 arms, random theta";
        x->d = 2;
        x->K = i == 8 ? 5 : 100;
        x->M = 1;
        x->circle = x->K;
        x->random_theta = i == 9;
        x->probs[0] = 1;
        x->theta[0] = 1;
    }
}

int main(int argc, char **argv) {
    const char *out = ".";
    int quick = 0, reps = 100, i, e, h, p, nh = 2;
    uint64_t horizons[2] = {10000, 100000};
    FILE *fsum, *fcur;
    double t_start = now_seconds();
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s --out DIR [--quick] [--reps N]\n", argv[0]);
            return 2;
        }
    }
    if (quick) {
        reps = 10;
        nh = 1;
    }
    if (reps < 2 || reps > MAXREP) reps = reps < 2 ? 2 : MAXREP;
    setup();
    fsum = open_out(out, "oam_summary.csv");
    fcur = open_out(out, "oam_curves.csv");
    fprintf(fsum, "experiment,horizon,policy,regret_mean,regret_se,C_true,C_hat,init,exploit,track,forced,wasted,solves,"
                  "exploit_share_last_tenth\n");
    fprintf(fcur, "experiment,horizon,policy,t,regret_mean,regret_se\n");
    printf("# OAM (Hao, Lattimore, Szepesvari 2020), section 5 and appendix D: %d repetitions\n", reps);
    for (h = 0; h < nh; ++h) {
        uint64_t n = horizons[h];
        printf("\n## horizon n = %llu: final cumulative pseudo-regret, mean +- s.e. over %d repetitions\n\n",
               (unsigned long long)n, reps);
        printf("| experiment | C (true gaps) |");
        for (p = 0; p < NPOL; ++p) printf(" %s |", pol_name[p]);
        printf(" OAM none below LinUCB from |\n|---|---|");
        for (p = 0; p < NPOL; ++p) printf("---|");
        printf("---|\n");
        for (e = 0; e < 10; ++e) {
            const experiment *ex = &experiments[e];
            double t0 = now_seconds(), ctrue = 0.0;
            int from, r;
            if (!run_experiment(e, ex, n, reps)) {
                fprintf(stderr, "repro_oam: %s failed\n", ex->label);
                return 1;
            }
            for (r = 0; r < reps; ++r) ctrue += c_true[r] / reps;
            printf("| %s | %.3g |", ex->label, ctrue);
            for (p = 0; p < NPOL; ++p) {
                double m, se;
                final_stats(p, reps, &m, &se);
                printf(" %.1f +- %.1f |", m, se);
            }
            from = overtakes(P_OAM_NONE, P_LINUCB, reps);
            if (from < 0)
                printf(" never |\n");
            else if (from == 1)
                printf(" start |\n");
            else
                printf(" t = %llu |\n", (unsigned long long)((uint64_t)from * n / NCK));
            fflush(stdout);
            for (p = 0; p < NPOL; ++p) {
                double m, se, v[MAXREP];
                int c;
                final_stats(p, reps, &m, &se);
                fprintf(fsum, "%s,%llu,%s,%.6g,%.6g,%.6g", ex->key, (unsigned long long)n, pol_key[p], m, se, ctrue);
                if (p <= P_OAM_SCALED) {
                    double om[8];
                    oam_means(p, reps, n, om);
                    for (i = 0; i < 8; ++i) fprintf(fsum, ",%.6g", om[i]);
                    fprintf(fsum, "\n");
                } else {
                    fprintf(fsum, ",,,,,,,,\n");
                }
                for (c = 0; c <= NCK; ++c) {
                    for (r = 0; r < reps; ++r) v[r] = ck_regret[p][r][c];
                    fprintf(fcur, "%s,%llu,%s,%llu,%.6g,%.6g\n", ex->key, (unsigned long long)n, pol_key[p],
                            (unsigned long long)((uint64_t)c * n / NCK), mean_of(v, reps), se_of(v, reps));
                }
            }
            write_svg(out, ex, n, reps);
            make_claims(e, ex, n, reps);
            fprintf(stderr, "repro_oam: %s, n = %llu: %.1f s\n", ex->label, (unsigned long long)n, now_seconds() - t0);
            for (p = 0; p <= P_OAM_SCALED; ++p) {
                double om[8];
                oam_means(p, reps, n, om);
                snprintf(counter_lines[e][p], sizeof counter_lines[e][p],
                         "| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.3f | %.3g |", ex->label, pol_name[p],
                         om[1], om[2], om[3], om[4], om[5], om[6], om[7], om[0]);
            }
        }
        printf("\n### decision counters of OAM, n = %llu (means over repetitions; C-hat = 2 sum D w at the last "
               "solve)\n\n| experiment | schedule | init | exploit | track | forced | wasted | solves | exploit share, "
               "last n/10 | C-hat |\n|---|---|---|---|---|---|---|---|---|---|\n",
               (unsigned long long)n);
        for (e = 0; e < 10; ++e)
            for (p = 0; p <= P_OAM_SCALED; ++p) printf("%s\n", counter_lines[e][p]);
    }
    fclose(fsum);
    fclose(fcur);
    printf("\nrun time %.0f s (2-core machine, one thread)\n\n", now_seconds() - t_start);
    for (i = 0; i < n_claims; ++i) printf("%s\n", claim_buf[i]);
    return 0;
}

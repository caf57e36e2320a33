/* repro_isd.c - the experiments of Lazzaretto, Peters, Pfister (2026),
   "Invariance-based dynamic regret minimization" (ISD-linUCB), section 5
   and appendix B, plus the drifting-parameter experiment of their
   repository (E4 below). Each experiment prints a table of the mean and
   standard deviation of the final pseudo-regret per method over the
   repetitions, writes CSV and an SVG plot into --out, and ends with
   `claim:` lines.

   Data (isdb_isd_env, the paper's section 5.1 where it says something,
   the authors' scripts where it does not): a Haar basis U, two blocks of
   coordinates (p_inv invariant, p_res residual), features N(0, U A A^T U^T)
   with the entries of the block-diagonal A uniform in [0, 1) and A redrawn
   every m_c offline rows; parameter coordinates uniform in (0.5, 1.5), the
   residual ones drifting offline by -1.5 (t/T0) sin^2(0.25 i t/T0 + i),
   t in {-T0..-1}; offline rows logged by a uniform policy with N(0, 1)
   noise; online: fresh residual coordinates uniform in (0.5, 1.5), a fresh
   covariance, N(0, 1) noise, K = 5 arms; lambda = 0.1, delta = 1/T.
   Methods: LinUCB (OFUL, det-trace width), SW-LinUCB, D-LinUCB (this
   library's, i.e. Russac et al.'s version with V-tilde, not the simplified
   one of the ISD authors' code), and ISD-linUCB with oracle subspace (beta
   by eq. 6), oracle subspace and beta, or everything estimated. Every ISD
   variant uses the width of the authors' code (one alpha_t on the joint
   ellipsoid), as their figures did; LinUCB and ISD use S = M =
   sqrt(||gamma_0||) as in that code, SW and D use 1.3.
   The shared reproduction helpers (bench/repro_common.h) were not on this
   branch yet: the few needed here are static functions below.

   usage: repro_isd [--out DIR] [--quick] [--only e1|e2|...|e7] */
#define _POSIX_C_SOURCE 199309L
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "repro_common.h"

#define K_ARMS 5
#define MAXP 10
#define MAXT0 8000
#define MAXT 500
#define MAXREP 20

static double X0[MAXT0 * MAXP], R0[MAXT0], Uinv[MAXP * MAXP];
static const char *out_dir = ".";
static int reps = MAXREP;

/* ---- small helpers (CSV, SVG, statistics, timing) ------------------------ */

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void mean_sd(const double *v, int n, double *mean, double *sd) {
    double m = 0.0, s = 0.0;
    int i;
    for (i = 0; i < n; ++i)
        m += v[i];
    m /= n;
    for (i = 0; i < n; ++i)
        s += (v[i] - m) * (v[i] - m);
    *mean = m;
    *sd = n > 1 ? sqrt(s / (n - 1)) : 0.0;
}

static FILE *open_out(const char *name) {
    char path[1024];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", out_dir, name);
    f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "repro_isd: cannot write %s\n", path);
    return f;
}

typedef struct series {
    const char *name;
    const double *x, *y;
    int n;
} series;

/* A line plot: one polyline per series, axes with five ticks, a legend. */
static void svg_plot(const char *file, const char *title, const char *xlabel, const char *ylabel, const series *s,
                     int ns) {
    static const char *colors[10] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                     "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    const double W = 860, H = 440, l = 70, r = 300, t = 40, b = 50;
    double x0 = 1e300, x1 = -1e300, y0 = 0.0, y1 = -1e300;
    int i, j, k;
    FILE *f = open_out(file);
    if (!f)
        return;
    for (i = 0; i < ns; ++i)
        for (j = 0; j < s[i].n; ++j) {
            if (s[i].x[j] < x0)
                x0 = s[i].x[j];
            if (s[i].x[j] > x1)
                x1 = s[i].x[j];
            if (s[i].y[j] > y1)
                y1 = s[i].y[j];
            if (s[i].y[j] < y0)
                y0 = s[i].y[j];
        }
    if (x1 <= x0)
        x1 = x0 + 1;
    if (y1 <= y0)
        y1 = y0 + 1;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
            "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            W, H);
    fprintf(f, "<text x=\"%.0f\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">%s</text>\n", (W - r + l) / 2, title);
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", l, H - b, W - r, H - b);
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", l, t, l, H - b);
    for (k = 0; k <= 4; ++k) {
        double xv = x0 + (x1 - x0) * k / 4, yv = y0 + (y1 - y0) * k / 4;
        double px = l + (W - r - l) * k / 4, py = H - b - (H - b - t) * k / 4;
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%g</text>\n", px, H - b + 16, xv);
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n", l - 6, py + 4, yv);
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", l, py, W - r, py);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n", (W - r + l) / 2, H - 12, xlabel);
    fprintf(f, "<text x=\"16\" y=\"%.0f\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.0f)\">%s</text>\n",
            (H - b + t) / 2, (H - b + t) / 2, ylabel);
    for (i = 0; i < ns; ++i) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colors[i % 10]);
        for (j = 0; j < s[i].n; ++j)
            fprintf(f, "%.1f,%.1f ", l + (W - r - l) * (s[i].x[j] - x0) / (x1 - x0),
                    H - b - (H - b - t) * (s[i].y[j] - y0) / (y1 - y0));
        fprintf(f, "\"/>\n");
        fprintf(f, "<line x1=\"%.0f\" y1=\"%d\" x2=\"%.0f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>\n", W - r + 12,
                50 + 18 * i, W - r + 36, 50 + 18 * i, colors[i % 10]);
        fprintf(f, "<text x=\"%.0f\" y=\"%d\">%s</text>\n", W - r + 42, 54 + 18 * i, s[i].name);
    }
    fprintf(f, "</svg>\n");
    fclose(f);
}

static void claim(const char *name, int holds, const char *measured, const char *paper) {
    printf("claim: %s: %s (paper: %s) %s\n", name, measured, paper, holds ? "holds" : "fails");
}

/* ---- the environment and the methods ---------------------------------------- */

typedef struct setup {
    int p, n_blocks, sizes[4], residual[4];
    int T, T0, cov_period;
    double off_amp; /* offline drift amplitude of the residual coordinates (the paper's 1.5) */
    uint64_t basis_seed;
    void (*res_path)(uint64_t t, int p_res, double *res, void *user);
    void *res_user;
} setup;

enum {
    M_LINUCB,
    M_SW,
    M_D,
    M_ISD_U,      /* oracle subspace, beta by eq. 6 */
    M_ISD_UB,     /* oracle subspace and beta */
    M_ISD_EST,    /* everything estimated, the library's estimator */
    M_ISD_AUTH,   /* estimated with the authors' estimator options */
    M_ISD_EST_W,  /* estimated, windowed residual learner */
    M_ISD_UB_W,   /* oracle subspace and beta, windowed residual learner */
    M_ISD_OLD,    /* estimated with the previous defaults: the CV rule, max-column criterion, no monitor */
    M_ISD_OLD_W,  /* the same with the windowed residual learner */
    M_ISD_OLD_WM, /* the previous estimator, windowed, with today's default monitor */
    M_ISD_EST_NM, /* today's defaults without the monitor */
    M_ISD_EST_WNM, /* the same, windowed */
    M_COUNT
};
static const char *method_names[M_COUNT] = {"LinUCB",
                                            "SW-LinUCB",
                                            "D-LinUCB",
                                            "ISD oracle U",
                                            "ISD oracle U+beta",
                                            "ISD estimated",
                                            "ISD est. (authors' estimator)",
                                            "ISD est. window",
                                            "ISD oracle U+beta window",
                                            "ISD est. (previous estimator)",
                                            "ISD est. (previous) window",
                                            "ISD est. (previous) window + monitor",
                                            "ISD est. no monitor",
                                            "ISD est. window, no monitor"};

typedef struct method_opts {
    int window;   /* SW and the windowed ISD learner */
    double gamma; /* D-LinUCB */
} method_opts;

typedef struct run_out {
    double regret, half; /* final and at T/2 */
    int correct, p_inv;  /* decomposition (estimated methods) */
    int subspace_ok;     /* p_inv right and ||Pi_inv_hat - Pi_inv||_op < 0.5 (blocks may be split) */
    double proj_err;     /* ||Pi_inv_hat - Pi_inv||_op */
    int alarms, demotions; /* the monitor's, over the run */
    int p_inv_end;       /* p_inv after the run */
} run_out;

static int is_estimated(int method) {
    return method == M_ISD_EST || method == M_ISD_AUTH || method == M_ISD_EST_W || method == M_ISD_OLD ||
           method == M_ISD_OLD_W || method == M_ISD_OLD_WM || method == M_ISD_EST_NM || method == M_ISD_EST_WNM;
}

static void env_make(const setup *s, uint64_t seed, isdb_isd_env *env) {
    isdb_isd_env_config c = isdb_isd_env_config_init(s->p, K_ARMS, s->n_blocks, s->sizes, s->residual);
    c.seed = seed;
    c.basis_seed = s->basis_seed;
    c.cov_period = s->cov_period;
    c.res_path = s->res_path;
    c.res_user = s->res_user;
    c.drift_amp = s->off_amp;
    if (isdb_isd_env_init(&c, NULL, env) != ISDB_OK) {
        fprintf(stderr, "repro_isd: env init failed\n");
        exit(1);
    }
}

/* ||P - Q||_op for the symmetric difference of two projectors. */
static double op_norm_sym(int p, double *D) {
    double w[MAXP], V[MAXP * MAXP];
    if (isdb_sym_eig(p, D, w, V) < 0)
        return -1.0;
    return fmax(fabs(w[0]), fabs(w[p - 1]));
}

static void run_method(const setup *s, int method, const method_opts *mo, isdb_isd_env *env, double *cum,
                       run_out *out) {
    union {
        isdb_linucb lin;
        isdb_swucb sw;
        isdb_dlinucb dl;
        isdb_isd isd;
    } pol;
    isdb_policy *p = &pol.lin.base;
    isdb_sim_result res;
    double delta = 1.0 / s->T, gnorm = 0.0, Mt;
    int i, r;
    isdb_env_reset(&env->base);
    /* The online parameter of this run (M~ = sqrt ||gamma_0||, the
       authors' oracle-informed bound). */
    for (i = 0; i < s->p; ++i)
        gnorm += env->theta[i] * env->theta[i];
    Mt = sqrt(sqrt(gnorm));
    memset(out, 0, sizeof *out);
    if (method == M_LINUCB) {
        isdb_linucb_config c = isdb_linucb_config_init(s->p, K_ARMS);
        c.lambda = 0.1;
        c.delta = delta;
        c.S = Mt;
        c.width = ISDB_WIDTH_DETTRACE;
        r = isdb_linucb_init(&c, NULL, &pol.lin);
    } else if (method == M_SW) {
        isdb_swucb_config c = isdb_swucb_config_init(s->p, K_ARMS, mo->window);
        c.lambda = 0.1;
        c.delta = delta;
        c.S = 1.3;
        c.width = ISDB_WIDTH_DETTRACE;
        r = isdb_swucb_init(&c, NULL, &pol.sw);
    } else if (method == M_D) {
        isdb_dlinucb_config c = isdb_dlinucb_config_init(s->p, K_ARMS, mo->gamma);
        c.lambda = 0.1;
        c.delta = delta;
        c.S = 1.3;
        c.refresh = repro_dlinucb_refresh(); /* 1: the paper's exact factor */
        r = isdb_dlinucb_init(&c, NULL, &pol.dl);
    } else {
        isdb_isd_config c = isdb_isd_config_init(s->p, K_ARMS, s->T0, X0, R0);
        c.lambda = 0.1;
        c.delta = delta;
        c.S = Mt;
        c.radius = ISDB_ISD_RADIUS_CODE;
        c.learner = ISDB_ISD_RES_LINUCB; /* the paper's (WINDOW below for the windowed rows) */
        if (method == M_ISD_U || method == M_ISD_UB || method == M_ISD_UB_W) {
            c.oracle = 1;
            c.p_inv = env->p_inv;
            isdb_isd_env_get_invariant_basis(env, Uinv);
            c.U_inv = Uinv;
            if (method != M_ISD_U)
                c.beta_inv = env->beta_inv;
        }
        if (method == M_ISD_AUTH) {
            /* the authors' estimator and the paper's policy (no monitor) */
            c.est.jbd.method = ISDB_JBD_UWEDGE;
            c.est.jbd.scale = ISDB_JBD_SCALE_FROBENIUS;
            c.est.jbd.off_norm = ISDB_JBD_OFF_MAXCOL;
            c.est.one_se = ISDB_ISD_ONE_SE_UNPAIRED;
            c.est.intercept = 1;
            c.est.rule = ISDB_ISD_RULE_CV;
            c.monitor = ISDB_ISD_MONITOR_OFF;
        }
        if (method == M_ISD_OLD || method == M_ISD_OLD_W || method == M_ISD_OLD_WM) {
            /* the library's defaults before issue 15 */
            c.est.rule = ISDB_ISD_RULE_CV;
            c.est.jbd.off_norm = ISDB_JBD_OFF_MAXCOL;
            c.monitor = method == M_ISD_OLD_WM ? ISDB_ISD_MONITOR_FALLBACK : ISDB_ISD_MONITOR_OFF;
        }
        if (method == M_ISD_EST_NM || method == M_ISD_EST_WNM)
            c.monitor = ISDB_ISD_MONITOR_OFF;
        if (method == M_ISD_EST_W || method == M_ISD_UB_W || method == M_ISD_OLD_W || method == M_ISD_OLD_WM ||
            method == M_ISD_EST_WNM) {
            c.learner = ISDB_ISD_RES_WINDOW;
            c.window = mo->window;
        }
        r = isdb_isd_init(&c, NULL, &pol.isd);
    }
    if (r < 0) {
        fprintf(stderr, "repro_isd: %s init failed (%s)\n", method_names[method], isdb_result_string((isdb_result)r));
        exit(1);
    }
    if (method >= M_ISD_U) {
        double P[MAXP * MAXP], Uv[MAXP * MAXP];
        int sz[MAXP], inv[MAXP], nb, j, k, pi = env->p_inv;
        out->p_inv = isdb_isd_get_p_inv(&pol.isd);
        isdb_isd_get_projector(&pol.isd, 0, P);
        isdb_isd_env_get_invariant_basis(env, Uv);
        for (i = 0; i < s->p; ++i)
            for (j = 0; j < s->p; ++j) {
                double q = 0.0;
                for (k = 0; k < pi; ++k)
                    q += Uv[i * pi + k] * Uv[j * pi + k];
                P[i * s->p + j] -= q;
            }
        out->proj_err = op_norm_sym(s->p, P);
        /* The authors' filter: the multiset of (size, invariant) pairs. */
        nb = isdb_isd_get_blocks(&pol.isd, sz, inv, NULL);
        out->subspace_ok = out->p_inv == pi && out->proj_err < 0.5;
        if (is_estimated(method)) {
            int used[4] = {0, 0, 0, 0}, ok = nb == s->n_blocks, b, e;
            for (b = 0; ok && b < s->n_blocks; ++b) {
                int found = 0;
                for (e = 0; e < nb && !found; ++e)
                    if (!used[e] && sz[e] == s->sizes[b] && inv[e] == !s->residual[b]) {
                        used[e] = 1;
                        found = 1;
                    }
                if (!found)
                    ok = 0;
            }
            out->correct = ok;
        } else {
            out->correct = 1;
        }
    }
    if (isdb_sim_run(p, &env->base, (uint64_t)s->T, cum, &res) != ISDB_OK) {
        fprintf(stderr, "repro_isd: run failed\n");
        exit(1);
    }
    out->regret = res.regret;
    out->half = cum[s->T / 2 - 1];
    if (method >= M_ISD_U) {
        isdb_isd_info info;
        isdb_isd_get_info(&pol.isd, &info);
        out->alarms = (int)info.alarms;
        out->demotions = (int)info.demotions;
        out->p_inv_end = info.p_inv;
    }
    isdb_policy_uninit(p);
}

/* One repetition: a fresh environment seed and offline log, then every
   method in `methods` on the same online rounds. */
static void repetition(const setup *s, int rep, const int *methods, int nm, const method_opts *mo, run_out *outs,
                       double *curves) {
    isdb_isd_env env;
    static double cum[MAXT];
    int m, t;
    env_make(s, 1000 + (uint64_t)rep, &env);
    if (isdb_isd_env_offline(&env, s->T0, ISDB_ISD_LOG_UNIFORM, 1.0, 5000 + (uint64_t)rep, X0, R0) != ISDB_OK) {
        fprintf(stderr, "repro_isd: offline data failed\n");
        exit(1);
    }
    for (m = 0; m < nm; ++m) {
        run_method(s, methods[m], mo, &env, cum, &outs[m]);
        if (curves)
            for (t = 0; t < s->T; ++t)
                curves[m * s->T + t] += cum[t] / reps;
    }
    isdb_env_uninit(&env.base);
}

/* ---- E1: oracle-subspace ISD, p = 10, p_res in {2, 4, 6, 8} (Figure 2) ---- */

static void experiment1(void) {
    static const int pres[4] = {2, 4, 6, 8};
    static double curves[4][2 * MAXT], xs[MAXT], fin[4][MAXREP], halfv[4][MAXREP], lin[4][MAXREP];
    static const int methods[2] = {M_ISD_U, M_LINUCB};
    series sr[4];
    double mean[4], sd[4], lmean, lsd, ratio_max = 0.0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, slope, r2;
    int k, rep, t, monotone = 1;
    FILE *f;
    method_opts mo;
    mo.window = 100;
    mo.gamma = 0.999;
    printf("\nE1 (section 5.1, Figure 2): ISD-linUCB, oracle subspace, beta_inv by eq. 6; p = 10, T = 100, "
           "T0 = 2000, m_c = 400, %d repetitions, U fixed\n",
           reps);
    printf("%6s %22s %22s %16s\n", "p_res", "ISD final regret", "LinUCB final regret", "ISD 2nd/1st half");
    f = open_out("isd_e1.csv");
    if (f)
        fprintf(f, "p_res,method,mean_regret,sd_regret,mean_half\n");
    for (k = 0; k < 4; ++k) {
        setup s;
        run_out o[2];
        double hm, hs;
        memset(&s, 0, sizeof s);
        s.p = 10;
        s.n_blocks = 2;
        s.sizes[0] = 10 - pres[k];
        s.sizes[1] = pres[k];
        s.residual[0] = 0;
        s.residual[1] = 1;
        s.T = 100;
        s.T0 = 2000;
        s.cov_period = 400;
        s.off_amp = 1.5;
        s.basis_seed = 1;
        memset(curves[k], 0, sizeof curves[k]);
        for (rep = 0; rep < reps; ++rep) {
            repetition(&s, rep, methods, 2, &mo, o, curves[k]);
            fin[k][rep] = o[0].regret;
            halfv[k][rep] = o[0].half;
            lin[k][rep] = o[1].regret;
        }
        mean_sd(fin[k], reps, &mean[k], &sd[k]);
        mean_sd(halfv[k], reps, &hm, &hs);
        mean_sd(lin[k], reps, &lmean, &lsd);
        ratio_max = fmax(ratio_max, (mean[k] - hm) / hm);
        printf("%6d %12.2f +- %6.2f %12.2f +- %6.2f %16.3f\n", pres[k], mean[k], sd[k], lmean, lsd,
               (mean[k] - hm) / hm);
        if (f) {
            fprintf(f, "%d,ISD oracle U,%.6g,%.6g,%.6g\n", pres[k], mean[k], sd[k], hm);
            fprintf(f, "%d,LinUCB,%.6g,%.6g,\n", pres[k], lmean, lsd);
        }
        if (k > 0 && !(mean[k] > mean[k - 1]))
            monotone = 0;
        sx += pres[k];
        sy += mean[k];
        sxx += pres[k] * pres[k];
        sxy += pres[k] * mean[k];
        syy += mean[k] * mean[k];
    }
    if (f)
        fclose(f);
    slope = (4 * sxy - sx * sy) / (4 * sxx - sx * sx);
    r2 = (4 * sxy - sx * sy) * (4 * sxy - sx * sy) / ((4 * sxx - sx * sx) * (4 * syy - sy * sy));
    for (t = 0; t < 100; ++t)
        xs[t] = t + 1;
    for (k = 0; k < 4; ++k) {
        static char names[4][32];
        snprintf(names[k], sizeof names[k], "ISD p_res = %d", pres[k]);
        sr[k].name = names[k];
        sr[k].x = xs;
        sr[k].y = curves[k];
        sr[k].n = 100;
    }
    svg_plot("isd_e1.svg", "E1: ISD-linUCB (oracle subspace), mean cumulative regret", "round t", "cumulative regret",
             sr, 4);
    {
        char m1[256], m2[256];
        snprintf(m1, sizeof m1,
                 "mean final regret %.1f, %.1f, %.1f, %.1f at p_res = 2, 4, 6, 8; linear fit slope %.2f per dimension, "
                 "R^2 %.3f",
                 mean[0], mean[1], mean[2], mean[3], slope, r2);
        claim("E1 regret grows about linearly in p_res", monotone && slope > 0 && r2 >= 0.9, m1,
              "Figure 2 right: approximately linear in p_res");
        snprintf(m2, sizeof m2, "second-half regret / first-half regret at most %.3f over p_res (< 1 means sublinear)",
                 ratio_max);
        claim("E1 regret sublinear in T", ratio_max < 1.0, m2, "Figure 2 left: sublinear in T");
    }
}

/* ---- E2: p = 3..10, p_res = 2 (Figures 3 and 6) ------------------------------- */

static void experiment2(void) {
    static const int methods[4] = {M_LINUCB, M_SW, M_D, M_ISD_U};
    static double mean[4][8], sd[4][8], ps[8];
    series sr[4];
    double vals[4][MAXREP];
    int pi, m, rep;
    FILE *f;
    method_opts mo;
    mo.window = 100;
    mo.gamma = 0.999;
    printf("\nE2 (section 5.1 and B.2, Figures 3 and 6): p = 3..10, blocks [2, p - 2], the first residual; T = 100, "
           "T0 = 2000, m_c = 400, %d repetitions, U redrawn each repetition\n",
           reps);
    printf("%4s", "p");
    for (m = 0; m < 4; ++m)
        printf(" %24s", method_names[methods[m]]);
    printf("\n");
    f = open_out("isd_e2.csv");
    if (f)
        fprintf(f, "p,method,mean_regret,sd_regret\n");
    for (pi = 0; pi < 8; ++pi) {
        int p = 3 + pi;
        printf("%4d", p);
        for (rep = 0; rep < reps; ++rep) {
            setup s;
            run_out o[4];
            memset(&s, 0, sizeof s);
            s.p = p;
            s.n_blocks = 2;
            s.sizes[0] = 2;
            s.sizes[1] = p - 2;
            s.residual[0] = 1;
            s.residual[1] = 0;
            s.T = 100;
            s.T0 = 2000;
            s.cov_period = 400;
            s.off_amp = 1.5;
            s.basis_seed = 100 + (uint64_t)rep;
            repetition(&s, rep, methods, 4, &mo, o, NULL);
            for (m = 0; m < 4; ++m)
                vals[m][rep] = o[m].regret;
        }
        ps[pi] = p;
        for (m = 0; m < 4; ++m) {
            mean_sd(vals[m], reps, &mean[m][pi], &sd[m][pi]);
            printf(" %14.2f +- %6.2f", mean[m][pi], sd[m][pi]);
            if (f)
                fprintf(f, "%d,%s,%.6g,%.6g\n", p, method_names[methods[m]], mean[m][pi], sd[m][pi]);
        }
        printf("\n");
    }
    if (f)
        fclose(f);
    for (m = 0; m < 4; ++m) {
        sr[m].name = method_names[methods[m]];
        sr[m].x = ps;
        sr[m].y = mean[m];
        sr[m].n = 8;
    }
    svg_plot("isd_e2.svg", "E2: final regret (T = 100) against the dimension p, p_res = 2", "p", "final regret", sr, 4);
    {
        double slope[4], ratio10 = mean[3][7] / mean[0][7], swd = 0.0;
        char msg[256];
        for (m = 0; m < 4; ++m) {
            double sx = 0, sy = 0, sxx = 0, sxy = 0;
            for (pi = 0; pi < 8; ++pi) {
                sx += ps[pi];
                sy += mean[m][pi];
                sxx += ps[pi] * ps[pi];
                sxy += ps[pi] * mean[m][pi];
            }
            slope[m] = (8 * sxy - sx * sy) / (8 * sxx - sx * sx);
        }
        snprintf(msg, sizeof msg, "at p = 10 ISD %.2f vs LinUCB %.2f, ratio %.3f", mean[3][7], mean[0][7], ratio10);
        claim("E2 oracle-subspace ISD at p = 10 regrets at most a third of LinUCB", ratio10 <= 1.0 / 3.0, msg,
              "Figure 3: ISD far below LinUCB, the gap growing with p");
        snprintf(msg, sizeof msg,
                 "slope of final regret in p: ISD %.2f, LinUCB %.2f per dimension (flat: ISD slope <= 1/4 of LinUCB's)",
                 slope[3], slope[0]);
        claim("E2 ISD roughly flat in p while LinUCB grows", slope[0] > 0 && slope[3] <= 0.25 * slope[0], msg,
              "Figure 3: LinUCB grows linearly in p, ISD stays approximately constant");
        for (pi = 0; pi < 8; ++pi) {
            swd = fmax(swd, fabs(mean[1][pi] / mean[0][pi] - 1));
            swd = fmax(swd, fabs(mean[2][pi] / mean[0][pi] - 1));
        }
        snprintf(msg, sizeof msg, "largest relative difference of SW or D to LinUCB over p: %.3f (close: <= 0.3)", swd);
        claim("E2 SW-LinUCB and D-LinUCB close to LinUCB", swd <= 0.3, msg, "Figure 6: comparable performance");
    }
}

/* ---- E3: estimated decomposition, T0 in {1000, 3500, 8000} (Figures 4, 5, 7) -- */

static void experiment3(void) {
    static const int T0s[3] = {1000, 3500, 8000};
#define E3M 8
#define E3E 3 /* the estimated variants, last in the list */
    static const int methods[E3M] = {M_LINUCB, M_SW, M_D, M_ISD_U, M_ISD_UB, M_ISD_EST, M_ISD_AUTH, M_ISD_OLD};
    static double mean[E3M][3], sd[E3M][3], filt_mean[E3E][3], filt_sd[E3E][3], rate[E3E][3], perr_all[3], perr_ok[3],
        t0x[3];
    static double sub_rate[3], alarm_rate[3];
    double vals[E3M][MAXREP], pe[MAXREP], pe_ok[MAXREP], fv[E3E][MAXREP], start = now_seconds();
    int ti, m, rep, nok[E3E], nsub, nal, nal_u, nal_ub;
    FILE *f;
    series sr[E3M];
    method_opts mo;
    mo.window = 500;
    mo.gamma = 0.999;
    printf("\nE3 (section 5.2 and B.1, Figures 4, 5, 7): p = 10, blocks [7, 3] (the second residual), T = 500, "
           "m_c = T0 / 8, %d repetitions, U fixed; estimation with 25 windows of T0 / 8 rows, 10 folds\n",
           reps);
    f = open_out("isd_e3.csv");
    if (f)
        fprintf(f, "T0,method,runs,mean_regret,sd_regret,correct_rate,mean_proj_err_x_sqrtT0\n");
    for (ti = 0; ti < 3; ++ti) {
        setup s;
        int npe = 0, npe_ok = 0;
        memset(&s, 0, sizeof s);
        s.p = 10;
        s.n_blocks = 2;
        s.sizes[0] = 7;
        s.sizes[1] = 3;
        s.residual[0] = 0;
        s.residual[1] = 1;
        s.T = 500;
        s.T0 = T0s[ti];
        s.cov_period = T0s[ti] / 8;
        s.off_amp = 1.5;
        s.basis_seed = 7;
        for (m = 0; m < E3E; ++m)
            nok[m] = 0;
        nsub = nal = nal_u = nal_ub = 0;
        for (rep = 0; rep < reps; ++rep) {
            run_out o[E3M];
            repetition(&s, rep, methods, E3M, &mo, o, NULL);
            nsub += o[5].subspace_ok;
            nal += o[5].alarms > 0;
            nal_u += o[3].alarms > 0;
            nal_ub += o[4].alarms > 0;
            for (m = 0; m < E3M; ++m)
                vals[m][rep] = o[m].regret;
            pe[npe++] = o[5].proj_err * sqrt((double)T0s[ti]);
            if (o[5].correct)
                pe_ok[npe_ok++] = o[5].proj_err * sqrt((double)T0s[ti]);
            for (m = 0; m < E3E; ++m)
                if (o[5 + m].correct)
                    fv[m][nok[m]++] = o[5 + m].regret;
        }
        t0x[ti] = T0s[ti];
        sub_rate[ti] = (double)nsub / reps;
        alarm_rate[ti] = (double)nal / reps;
        printf("T0 = %d (library estimator: right invariant subspace in %d/%d runs; the monitor fired in %d runs, with "
               "the oracle subspace in %d, with the oracle subspace and beta in %d)\n",
               T0s[ti], nsub, reps, nal, nal_u, nal_ub);
        for (m = 0; m < E3M; ++m) {
            mean_sd(vals[m], reps, &mean[m][ti], &sd[m][ti]);
            printf("  %-32s all %2d runs: %9.2f +- %7.2f\n", method_names[methods[m]], reps, mean[m][ti], sd[m][ti]);
            if (f)
                fprintf(f, "%d,%s,all,%.6g,%.6g,,\n", T0s[ti], method_names[methods[m]], mean[m][ti], sd[m][ti]);
        }
        for (m = 0; m < E3E; ++m) {
            rate[m][ti] = (double)nok[m] / reps;
            if (nok[m] > 0)
                mean_sd(fv[m], nok[m], &filt_mean[m][ti], &filt_sd[m][ti]);
            else
                filt_mean[m][ti] = filt_sd[m][ti] = 0.0 / 1.0;
            printf("  %-32s correct decompositions %2d/%d (authors' filter: those runs only): %9.2f +- %7.2f\n",
                   method_names[methods[5 + m]], nok[m], reps, filt_mean[m][ti], filt_sd[m][ti]);
            if (f)
                fprintf(f, "%d,%s,correct only,%.6g,%.6g,%.4g,\n", T0s[ti], method_names[methods[5 + m]],
                        filt_mean[m][ti], filt_sd[m][ti], rate[m][ti]);
        }
        {
            double a, b2;
            mean_sd(pe, npe, &perr_all[ti], &a);
            if (npe_ok > 0)
                mean_sd(pe_ok, npe_ok, &perr_ok[ti], &b2);
            else
                perr_ok[ti] = 0.0;
            printf("  sqrt(T0) ||Pi_inv_hat - Pi_inv||_op (ISD estimated): mean %.3f over all runs, %.3f over the "
                   "correct ones\n",
                   perr_all[ti], perr_ok[ti]);
            if (f)
                fprintf(f, "%d,ISD estimated,projection,,,,%.6g\n", T0s[ti], perr_ok[ti]);
        }
    }
    if (f)
        fclose(f);
    for (m = 0; m < E3M; ++m) {
        sr[m].name = method_names[methods[m]];
        sr[m].x = t0x;
        sr[m].y = mean[m];
        sr[m].n = 3;
    }
    svg_plot("isd_e3.svg", "E3: final regret (T = 500) against T0, all runs", "T0", "final regret", sr, E3M);
    {
        char msg[512];
        int below = 1;
        double gap0 = mean[5][0] - mean[3][0], gap2 = mean[5][2] - mean[3][2], pmax = 0, pmin = 1e300, swd = 0;
        for (ti = 0; ti < 3; ++ti)
            if (!(mean[5][ti] < mean[0][ti]))
                below = 0;
        snprintf(msg, sizeof msg,
                 "all runs: estimated ISD %.1f, %.1f, %.1f vs LinUCB %.1f, %.1f, %.1f at T0 = 1000, 3500, 8000",
                 mean[5][0], mean[5][1], mean[5][2], mean[0][0], mean[0][1], mean[0][2]);
        claim(
            "E3 estimated ISD below LinUCB at every T0", below, msg,
            "Figure 4: estimated ISD below LinUCB for all T0 (runs with a wrong decomposition discarded by the code)");
        snprintf(msg, sizeof msg,
                 "gap to ISD with oracle subspace: %.1f, %.1f, %.1f at T0 = 1000, 3500, 8000 (closer: last < first, "
                 "or at most 10%% above the oracle at every T0)",
                 gap0, mean[5][1] - mean[3][1], gap2);
        claim("E3 estimated ISD approaches the oracle as T0 grows",
              gap2 < gap0 || (gap0 <= 0.1 * mean[3][0] && mean[5][1] - mean[3][1] <= 0.1 * mean[3][1] &&
                              gap2 <= 0.1 * mean[3][2]),
              msg, "Figure 4: closer to the oracle version for increasing T0");
        snprintf(msg, sizeof msg,
                 "right decompositions (the authors' filter) %.0f%%, %.0f%%, %.0f%% at T0 = 1000, 3500, 8000 (target "
                 ">= 60%%, 85%%, 95%%; before issue 15: 25%%, 55%%, 75%%); right invariant subspace %.0f%%, %.0f%%, "
                 "%.0f%%",
                 100 * rate[0][0], 100 * rate[0][1], 100 * rate[0][2], 100 * sub_rate[0], 100 * sub_rate[1],
                 100 * sub_rate[2]);
        claim("E3 (issue 15) right decomposition in >= 60%, 85%, 95% of runs",
              rate[0][0] >= 0.6 && rate[0][1] >= 0.85 && rate[0][2] >= 0.95, msg,
              "not stated (the code redraws runs with a wrong decomposition)");
        snprintf(msg, sizeof msg,
                 "all runs at T0 = 8000: estimated ISD %.2f, oracle-subspace ISD %.2f, ratio %.2f (target <= 1.5; "
                 "before issue 15: 18.32 / 11.68 = 1.57)",
                 mean[5][2], mean[3][2], mean[5][2] / mean[3][2]);
        claim("E3 (issue 15) estimated ISD within 1.5x of the oracle subspace at T0 = 8000",
              mean[5][2] <= 1.5 * mean[3][2], msg, "Figure 4: estimated close to the oracle for large T0");
        snprintf(msg, sizeof msg, "runs in which the default monitor fired: %.0f%%, %.0f%%, %.0f%% (the online "
                 "parameter is constant here, every alarm is a false one)",
                 100 * alarm_rate[0], 100 * alarm_rate[1], 100 * alarm_rate[2]);
        claim("E3 (issue 15) the monitor almost never fires on a stationary problem (<= 5% of runs)",
              alarm_rate[0] <= 0.05 && alarm_rate[1] <= 0.05 && alarm_rate[2] <= 0.05, msg, "no monitor in the paper");
        snprintf(msg, sizeof msg,
                 "right decompositions at T0 = 1000, 3500, 8000: library estimator %.0f%%, %.0f%%, %.0f%%; authors' "
                 "estimator %.0f%%, %.0f%%, %.0f%%; previous library estimator %.0f%%, %.0f%%, %.0f%%",
                 100 * rate[0][0], 100 * rate[0][1], 100 * rate[0][2], 100 * rate[1][0], 100 * rate[1][1],
                 100 * rate[1][2], 100 * rate[2][0], 100 * rate[2][1], 100 * rate[2][2]);
        claim("E3 the decomposition is found more often as T0 grows", rate[0][2] >= rate[0][0] && rate[0][2] > 0.5, msg,
              "not stated (the code redraws runs with a wrong decomposition)");
        for (ti = 0; ti < 3; ++ti) {
            pmax = fmax(pmax, perr_ok[ti]);
            pmin = fmin(pmin, perr_ok[ti]);
        }
        snprintf(msg, sizeof msg,
                 "sqrt(T0) x projection error (right decompositions): %.3f, %.3f, %.3f; max/min %.2f (roughly "
                 "constant: <= 2)",
                 perr_ok[0], perr_ok[1], perr_ok[2], pmax / pmin);
        claim("E3 projection error falls like 1/sqrt(T0)", pmin > 0 && pmax / pmin <= 2.0, msg,
              "Figure 5: sqrt(T0) times the error roughly constant");
        for (ti = 0; ti < 3; ++ti) {
            swd = fmax(swd, fabs(mean[1][ti] / mean[0][ti] - 1));
            swd = fmax(swd, fabs(mean[2][ti] / mean[0][ti] - 1));
        }
        snprintf(msg, sizeof msg, "largest relative difference of SW or D to LinUCB: %.3f (close: <= 0.3)", swd);
        claim("E3 SW-LinUCB and D-LinUCB close to LinUCB", swd <= 0.3, msg, "Figure 7: comparable performance");
    }
    printf("E3 run time: %.1f s (the whole experiment, %d repetitions)\n", now_seconds() - start, reps);
}

/* ---- E4: drifting online parameter (repository's section B3) ---------------- */

typedef struct drift {
    double T0;
    int first; /* global index of the first residual coordinate */
} drift;

/* gammat_res(0) = 0.2 (1, ..., 1) normalised; then each round
   gammat_j -= 0.5 (t / T0) sin^2(50 (j + 1) t / T0 + (j + 1)) with j the
   global coordinate, and the residual part renormalised. */
static void drift_path(uint64_t t, int p_res, double *res, void *user) {
    const drift *dr = (const drift *)user;
    double norm = 0.0;
    int j;
    if (t == 0) {
        for (j = 0; j < p_res; ++j)
            res[j] = 1.0 / sqrt((double)p_res);
        return;
    }
    for (j = 0; j < p_res; ++j) {
        double g = (double)(dr->first + j + 1), s = sin(50.0 * g * (double)t / dr->T0 + g);
        res[j] -= 0.5 * ((double)t / dr->T0) * s * s;
        norm += res[j] * res[j];
    }
    norm = sqrt(norm);
    if (norm > 0.0)
        for (j = 0; j < p_res; ++j)
            res[j] /= norm;
}

/* Paired ratios of method a to method b over the runs: the largest, and
   how many are at most `bound`. */
static void paired(const double *a, const double *b, int n, double bound, double *worst, int *within) {
    int i;
    *worst = 0.0;
    *within = 0;
    for (i = 0; i < n; ++i) {
        double r = a[i] / b[i];
        if (r > *worst)
            *worst = r;
        if (r <= bound)
            ++*within;
    }
}

static void experiment4(void) {
#define E4M 9
    static const int methods[E4M] = {M_LINUCB,      M_SW,     M_D,        M_ISD_EST_W, M_ISD_EST_WNM,
                                     M_ISD_EST,     M_ISD_UB, M_ISD_UB_W, M_ISD_OLD_W};
    static const int methods_b[3] = {M_SW, M_ISD_EST_W, M_ISD_OLD_WM};
    static double curves[E4M * MAXT], xs[MAXT];
    double vals[E4M][MAXREP], mean[E4M], sd[E4M], vb[3][MAXREP], vc[3][MAXREP], mb[3], sdb[3], mc[3], sdc[3];
    int m, rep, t, wrong_old = 0, called_c = 0, dem_b = 0, dem_c = 0, al_est = 0;
    drift dr;
    setup s;
    FILE *f;
    series sr[E4M];
    method_opts mo;
    mo.window = 25;
    mo.gamma = 0.85;
    dr.T0 = 2000;
    dr.first = 7;
    memset(&s, 0, sizeof s);
    s.p = 10;
    s.n_blocks = 2;
    s.sizes[0] = 7;
    s.sizes[1] = 3;
    s.residual[0] = 0;
    s.residual[1] = 1;
    s.T = 500;
    s.T0 = 2000;
    s.cov_period = 250;
    s.off_amp = 1.5;
    s.basis_seed = 7;
    s.res_path = drift_path;
    s.res_user = &dr;
    memset(curves, 0, sizeof curves);
    printf("\nE4 (the authors' repository, 'Section B3'): drifting online residual part; p = 10, blocks [7, 3], "
           "T = 500, T0 = 2000, windows w = 25, D gamma = 0.85, %d repetitions\n",
           reps);
    for (rep = 0; rep < reps; ++rep) {
        run_out o[E4M];
        repetition(&s, rep, methods, E4M, &mo, o, curves);
        for (m = 0; m < E4M; ++m)
            vals[m][rep] = o[m].regret;
        wrong_old += !o[8].correct;
        al_est += o[3].alarms > 0;
    }
    f = open_out("isd_e4.csv");
    if (f)
        fprintf(f, "method,mean_regret,sd_regret\n");
    for (m = 0; m < E4M; ++m) {
        mean_sd(vals[m], reps, &mean[m], &sd[m]);
        printf("  %-36s %9.2f +- %7.2f\n", method_names[methods[m]], mean[m], sd[m]);
        if (f)
            fprintf(f, "%s,%.6g,%.6g\n", method_names[methods[m]], mean[m], sd[m]);
    }
    printf("  (the previous estimator's decomposition was wrong in %d of %d runs; the default monitor fired "
           "in %d runs of the default policy)\n",
           wrong_old, reps, al_est);
    /* Safety: decompositions that are wrong online. (b) the previous
       estimator (the paper's CV rule), wrong in about half the runs, with
       today's default monitor; (c) offline data without drift, so that the
       block that drifts online looks invariant and is called so. */
    for (rep = 0; rep < reps; ++rep) {
        run_out o[3];
        repetition(&s, rep, methods_b, 3, &mo, o, NULL);
        for (m = 0; m < 3; ++m)
            vb[m][rep] = o[m].regret;
        dem_b += o[2].demotions > 0;
    }
    {
        setup s2 = s;
        s2.off_amp = 0.0;
        for (rep = 0; rep < reps; ++rep) {
            run_out o[3];
            repetition(&s2, rep, methods_b, 2, &mo, o, NULL);
            for (m = 0; m < 2; ++m)
                vc[m][rep] = o[m].regret;
            called_c += o[1].p_inv == 10;
            dem_c += o[1].demotions > 0;
        }
    }
    for (m = 0; m < 3; ++m)
        mean_sd(vb[m], reps, &mb[m], &sdb[m]);
    for (m = 0; m < 2; ++m)
        mean_sd(vc[m], reps, &mc[m], &sdc[m]);
    printf("  safety (b), the previous estimator + the default monitor: %.2f +- %.2f (SW-LinUCB %.2f; a block demoted "
           "online in %d runs)\n",
           mb[2], sdb[2], mb[0], dem_b);
    printf("  safety (c), no offline drift (the online-drifting block looks invariant): default windowed ISD %.2f +- "
           "%.2f, SW-LinUCB %.2f +- %.2f (all blocks called invariant in %d runs; demoted online in %d)\n",
           mc[1], sdc[1], mc[0], sdc[0], called_c, dem_c);
    if (f) {
        fprintf(f, "safety b: previous estimator + monitor,%.6g,%.6g\n", mb[2], sdb[2]);
        fprintf(f, "safety c: no offline drift: ISD est. window,%.6g,%.6g\n", mc[1], sdc[1]);
        fprintf(f, "safety c: no offline drift: SW-LinUCB,%.6g,%.6g\n", mc[0], sdc[0]);
        fclose(f);
    }
    for (t = 0; t < s.T; ++t)
        xs[t] = t + 1;
    for (m = 0; m < E4M; ++m) {
        sr[m].name = method_names[methods[m]];
        sr[m].x = xs;
        sr[m].y = curves + m * s.T;
        sr[m].n = s.T;
    }
    svg_plot("isd_e4.svg", "E4: drifting residual part, mean cumulative regret", "round t", "cumulative regret", sr,
             E4M);
    {
        char msg[512];
        double worst;
        int within;
        paired(vals[3], vals[1], reps, 1.25, &worst, &within);
        snprintf(msg, sizeof msg,
                 "everything estimated, defaults, window of 25: %.1f +- %.1f vs SW-LinUCB %.1f +- %.1f; at most 1.25x "
                 "SW-LinUCB in %d of %d paired runs (largest ratio %.2f) (before issue 15: 204.6 +- 215.0, the drifting block invariant in 9 "
                 "runs)",
                 mean[3], sd[3], mean[1], sd[1], within, reps, worst);
        claim("E4 (issue 15) windowed ISD, everything estimated, below SW-LinUCB and <= 1.25x it in 19 of 20 runs",
              mean[3] < mean[1] && within * 20 >= 19 * reps, msg,
              "repository figure: ISD with a window below the non-stationary baselines");
        snprintf(msg, sizeof msg,
                 "ISD with oracle subspace and beta and a window of 25: %.1f +- %.1f, SW-LinUCB: %.1f +- %.1f", mean[7],
                 sd[7], mean[1], sd[1]);
        claim("E4 with the decomposition known, windowed ISD below SW-LinUCB", mean[7] < mean[1], msg,
              "repository figure: ISD with a window below the non-stationary baselines");
        {
            double worst_nm;
            int within_nm;
            paired(vals[8], vals[1], reps, 1.25, &worst_nm, &within_nm);
            paired(vb[2], vb[0], reps, 1.25, &worst, &within);
            snprintf(msg, sizeof msg,
                     "previous estimator (the paper's CV rule; a wrong decomposition in %d of %d runs) with "
                     "the default monitor: %.1f +- %.1f vs SW-LinUCB %.1f; per run at most %.2fx SW-LinUCB, <= 1.25x "
                     "in %d of %d (without the monitor: %.1f +- %.1f, at most %.2fx, <= 1.25x in %d)",
                     wrong_old, reps, mb[2], sdb[2], mb[0], worst, within, reps, mean[8], sd[8], worst_nm, within_nm);
        }
        claim("E4 (issue 15) a wrongly invariant block is demoted online: every run within 1.5x of SW-LinUCB",
              worst <= 1.5, msg, "no monitor in the paper; a mislabelled invariant direction costs linear regret");
        paired(vc[1], vc[0], reps, 1.25, &worst, &within);
        snprintf(msg, sizeof msg,
                 "offline data without drift (the block drifting online called invariant in %d of %d runs): default "
                 "windowed ISD %.1f +- %.1f vs SW-LinUCB %.1f +- %.1f; per run at most %.2fx, <= 1.25x in %d of %d",
                 called_c, reps, mc[1], sdc[1], mc[0], sdc[0], worst, within, reps);
        claim("E4 (issue 15) a block invariant offline but drifting online is demoted: every run within 1.5x of "
              "SW-LinUCB",
              worst <= 1.5, msg, "not in the paper");
    }
}

/* ---- E5: the invariance decision itself (issue 15) --------------------------
   Estimation only, on fresh seeds: how often the decomposition is right
   (the authors' filter: the multiset of (block size, invariant) pairs),
   how often the invariant subspace is right (p_inv and ||Pi - Pi_hat||_op
   < 0.5, blocks may be split), and per dimension how often a drifting
   direction is called invariant (false acceptance: an estimated block
   lying mostly in the true residual subspace, labelled invariant) or an
   invariant one residual (false rejection), for the default rule (the
   test), the paper's rule (CV) and both, over data families: E3's fixed
   basis, random bases, E1's four blocks, and weaker offline drift. */

typedef struct e5_family {
    const char *name;
    int p, n_blocks, sizes[4], residual[4], T0;
    double amp;
    int random_basis;
} e5_family;

typedef struct e5_rates {
    int runs, right, subspace, fa_runs, fr_runs;
    double fa_num, fa_den, fr_num, fr_den;
} e5_rates;

static void e5_family_run(const e5_family *fm, int rule, int n_runs, e5_rates *out) {
    static double U[MAXP * MAXP], beta[MAXP], stat[MAXP], pv[MAXP], Ui[MAXP * MAXP], work[3000000];
    int rep, p = fm->p;
    memset(out, 0, sizeof *out);
    for (rep = 0; rep < n_runs; ++rep) {
        isdb_isd_env env;
        isdb_isd_env_config c = isdb_isd_env_config_init(p, K_ARMS, fm->n_blocks, fm->sizes, fm->residual);
        isdb_isd_options o = isdb_isd_options_init();
        isdb_isd_fit fit;
        int sz[MAXP], inv[MAXP], b, off, i, j, k, pi, fa = 0, fr = 0;
        c.seed = 20000 + (uint64_t)rep;
        c.basis_seed = fm->random_basis ? 30000 + (uint64_t)rep : 7;
        c.cov_period = fm->T0 / 8;
        c.drift_amp = fm->amp;
        if (isdb_isd_env_init(&c, NULL, &env) != ISDB_OK ||
            isdb_isd_env_offline(&env, fm->T0, ISDB_ISD_LOG_UNIFORM, 1.0, 25000 + (uint64_t)rep, X0, R0) != ISDB_OK) {
            fprintf(stderr, "repro_isd: E5 data failed\n");
            exit(1);
        }
        pi = env.p_inv;
        isdb_isd_env_get_invariant_basis(&env, Ui);
        o.rule = (isdb_isd_rule)rule;
        fit.U = U;
        fit.beta_inv = beta;
        fit.stat = stat;
        fit.pvalue = pv;
        fit.sizes = sz;
        fit.invariant = inv;
        if (isdb_isd_estimate_work_size(p, fm->T0, &o) > sizeof work / sizeof work[0] ||
            isdb_isd_estimate(p, fm->T0, X0, R0, &o, &fit, work) < 0) {
            fprintf(stderr, "repro_isd: E5 estimate failed\n");
            exit(1);
        }
        for (b = 0, off = 0; b < fit.n_blocks; off += sz[b++]) {
            double ov = 0.0;
            for (j = off; j < off + sz[b]; ++j)
                for (k = 0; k < pi; ++k) {
                    double sdot = 0.0;
                    for (i = 0; i < p; ++i)
                        sdot += Ui[i * pi + k] * U[i * p + j];
                    ov += sdot * sdot;
                }
            if (ov / sz[b] > 0.5) {
                out->fr_den += sz[b];
                if (!inv[b]) {
                    out->fr_num += sz[b];
                    fr = 1;
                }
            } else {
                out->fa_den += sz[b];
                if (inv[b]) {
                    out->fa_num += sz[b];
                    fa = 1;
                }
            }
        }
        out->fa_runs += fa;
        out->fr_runs += fr;
        {
            int used[MAXP], ok = fit.n_blocks == fm->n_blocks, e;
            double P[MAXP * MAXP];
            memset(used, 0, sizeof used);
            for (b = 0; ok && b < fm->n_blocks; ++b) {
                int found = 0;
                for (e = 0; e < fit.n_blocks && !found; ++e)
                    if (!used[e] && sz[e] == fm->sizes[b] && inv[e] == !fm->residual[b]) {
                        used[e] = 1;
                        found = 1;
                    }
                if (!found)
                    ok = 0;
            }
            out->right += ok;
            for (i = 0; i < p; ++i)
                for (j = 0; j < p; ++j) {
                    double q = 0.0;
                    for (k = 0; k < fit.p_inv; ++k)
                        q += U[i * p + k] * U[j * p + k];
                    for (k = 0; k < pi; ++k)
                        q -= Ui[i * pi + k] * Ui[j * pi + k];
                    P[i * p + j] = q;
                }
            out->subspace += fit.p_inv == pi && op_norm_sym(p, P) < 0.5;
        }
        out->runs++;
        isdb_env_uninit(&env.base);
    }
}

static void experiment5(void) {
    static const e5_family fams[9] = {
        {"E3 basis, T0 = 1000", 10, 2, {7, 3}, {0, 1}, 1000, 1.5, 0},
        {"E3 basis, T0 = 3500", 10, 2, {7, 3}, {0, 1}, 3500, 1.5, 0},
        {"E3 basis, T0 = 8000", 10, 2, {7, 3}, {0, 1}, 8000, 1.5, 0},
        {"random bases, T0 = 1000", 10, 2, {7, 3}, {0, 1}, 1000, 1.5, 1},
        {"random bases, T0 = 8000", 10, 2, {7, 3}, {0, 1}, 8000, 1.5, 1},
        {"E1 blocks [4,1,3,2], T0 = 2000", 10, 4, {4, 1, 3, 2}, {0, 0, 1, 0}, 2000, 1.5, 1},
        {"random bases, drift 0.5", 10, 2, {7, 3}, {0, 1}, 2000, 0.5, 1},
        {"random bases, drift 0.2", 10, 2, {7, 3}, {0, 1}, 2000, 0.2, 1},
        {"random bases, drift 0.1", 10, 2, {7, 3}, {0, 1}, 2000, 0.1, 1}};
    static const int rules[3] = {ISDB_ISD_RULE_TEST, ISDB_ISD_RULE_CV, ISDB_ISD_RULE_BOTH};
    static const char *rule_names[3] = {"test (default)", "CV (paper)", "both"};
    e5_rates r[9][3];
    int fi, ri, n_runs = 2 * reps;
    double fa_main = 0.0, fa_den = 0.0, fr_main = 0.0, fr_den = 0.0, start = now_seconds();
    FILE *f = open_out("isd_e5.csv");
    printf("\nE5 (issue 15): the invariance decision, %d fresh runs per family; right = the authors' filter, subspace = "
           "p_inv right and ||Pi_inv_hat - Pi_inv||_op < 0.5; FA = drifting dimensions called invariant (runs with "
           "any), FR = invariant dimensions called residual (runs with any)\n",
           n_runs);
    printf("  %-32s %-15s %6s %9s %16s %16s\n", "family", "rule", "right", "subspace", "FA", "FR");
    if (f)
        fprintf(f, "family,rule,right,subspace,false_accept_dims,false_accept_runs,false_reject_dims,false_reject_runs\n");
    for (fi = 0; fi < 9; ++fi)
        for (ri = 0; ri < 3; ++ri) {
            e5_rates *x = &r[fi][ri];
            double fa = x->fa_den > 0 ? x->fa_num / x->fa_den : 0.0, fr;
            e5_family_run(&fams[fi], rules[ri], n_runs, x);
            fa = x->fa_den > 0 ? x->fa_num / x->fa_den : 0.0;
            fr = x->fr_den > 0 ? x->fr_num / x->fr_den : 0.0;
            printf("  %-32s %-15s %5.0f%% %8.0f%% %8.1f%% (%3.0f%%) %8.1f%% (%3.0f%%)\n", fams[fi].name, rule_names[ri],
                   100.0 * x->right / x->runs, 100.0 * x->subspace / x->runs, 100 * fa, 100.0 * x->fa_runs / x->runs,
                   100 * fr, 100.0 * x->fr_runs / x->runs);
            if (f)
                fprintf(f, "%s,%s,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g\n", fams[fi].name, rule_names[ri],
                        (double)x->right / x->runs, (double)x->subspace / x->runs, fa, (double)x->fa_runs / x->runs, fr,
                        (double)x->fr_runs / x->runs);
            if (ri == 0 && fi < 6) {
                fa_main += x->fa_num;
                fa_den += x->fa_den;
                fr_main += x->fr_num;
                fr_den += x->fr_den;
            }
        }
    if (f)
        fclose(f);
    {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "default rule over the six families with the paper's drift: %.1f%% of drifting dimensions called "
                 "invariant, %.1f%% of invariant ones called residual; at drift 0.5, 0.2, 0.1: %.1f%%, %.1f%%, %.1f%% "
                 "called invariant (the online monitor's job)",
                 fa_den > 0 ? 100 * fa_main / fa_den : 0.0, fr_den > 0 ? 100 * fr_main / fr_den : 0.0,
                 r[6][0].fa_den > 0 ? 100 * r[6][0].fa_num / r[6][0].fa_den : 0.0,
                 r[7][0].fa_den > 0 ? 100 * r[7][0].fa_num / r[7][0].fa_den : 0.0,
                 r[8][0].fa_den > 0 ? 100 * r[8][0].fa_num / r[8][0].fa_den : 0.0);
        claim("E5 (issue 15) the default rule accepts at most 5% of drifting dimensions as invariant at the paper's drift",
              fa_den > 0 && fa_main / fa_den <= 0.05, msg, "not stated");
    }
    printf("E5 run time: %.1f s\n", now_seconds() - start);
}

/* ---- E6: does the default monitor leave a stationary block alone? ----------
   E1/E2-style data (E1: p = 10, p_res = 2..8, fixed basis; E2: p = 3..10,
   p_res = 2, random bases), the online parameter constant, T = 1000 (E1
   and E2 have T = 100, shorter than the monitor's first tests), the
   default policy with the oracle subspace (beta by eq. 6) and fully
   estimated: the share of runs in which the monitor fires. */
static void experiment6(void) {
    static const int cfg[12][2] = {{10, 2}, {10, 4}, {10, 6}, {10, 8}, {3, 2}, {4, 2},
                                   {5, 2},  {6, 2},  {7, 2},  {8, 2},  {9, 2}, {10, 2}};
    static const int methods[2] = {M_ISD_U, M_ISD_EST};
    int ci, rep, m, runs = 0, fired[2] = {0, 0}, dem[2] = {0, 0};
    double start = now_seconds();
    method_opts mo;
    mo.window = 100;
    mo.gamma = 0.99;
    printf("\nE6 (issue 15): false alarms of the default monitor on stationary E1/E2-style data, T = 1000, %d runs per "
           "setting, 12 settings\n",
           reps);
    for (ci = 0; ci < 12; ++ci)
        for (rep = 0; rep < reps; ++rep) {
            setup s;
            run_out o[2];
            memset(&s, 0, sizeof s);
            s.p = cfg[ci][0];
            s.n_blocks = 2;
            s.sizes[0] = cfg[ci][0] - cfg[ci][1];
            s.sizes[1] = cfg[ci][1];
            s.residual[0] = 0;
            s.residual[1] = 1;
            s.T = 1000;
            s.T0 = 2000;
            s.cov_period = 400;
            s.off_amp = 1.5;
            s.basis_seed = ci < 4 ? 1 : 600 + (uint64_t)rep;
            repetition(&s, 40 + rep, methods, 2, &mo, o, NULL);
            for (m = 0; m < 2; ++m) {
                fired[m] += o[m].alarms > 0;
                dem[m] += o[m].demotions;
            }
            ++runs;
        }
    printf("  runs with an alarm: oracle subspace %d of %d (%.1f%%), estimated %d of %d (%.1f%%); demotions %d, %d; "
           "%.1f s\n",
           fired[0], runs, 100.0 * fired[0] / runs, fired[1], runs, 100.0 * fired[1] / runs, dem[0], dem[1],
           now_seconds() - start);
    {
        char msg[256];
        snprintf(msg, sizeof msg, "the monitor fired in %.1f%% (oracle subspace) and %.1f%% (estimated) of %d runs",
                 100.0 * fired[0] / runs, 100.0 * fired[1] / runs, runs);
        claim("E6 (issue 15) a truly stationary block is kept: the default monitor fires in at most 5% of runs",
              fired[0] * 20 <= runs && fired[1] * 20 <= runs, msg, "no monitor in the paper");
    }
}

/* ---- E7: the cost of select (issue 15) ---------------------------------------
   p = 50, K = 20, p_res = 2, beta_inv estimated (eq. 6 on 4000 logged rows,
   oracle subspace), against LinUCB in the same run: rewards follow the
   model, so the monitor (on) stays quiet; ns per select, the smallest of 5
   interleaved passes of 1000 rounds after 300 (the machine is shared). */
#define SP 50
#define SK 20
static double sp_X0[4000 * SP], sp_R0[4000], sp_Xr[1300 * SK * SP], sp_Q[SP * SP], sp_beta[SP], sp_U[SP * SP];

static double time_select(isdb_policy *pol, isdb_rng *noise) {
    double t_sel = 0.0, t0;
    int r, arm;
    isdb_policy_reset(pol);
    for (r = 0; r < 1300; ++r) {
        const double *X = sp_Xr + r * SK * SP;
        t0 = now_seconds();
        isdb_policy_select(pol, X, SK, &arm);
        if (r >= 300)
            t_sel += now_seconds() - t0;
        isdb_policy_update(pol, arm, X + arm * SP, repro_dot(SP, X + arm * SP, sp_beta) + isdb_rng_normal(noise));
    }
    return 1e9 * t_sel / 1000.0;
}

static void experiment7(void) {
    isdb_rng rng;
    isdb_isd isd;
    isdb_linucb lin;
    double G[SP * SP], w[SP], best_isd = 1e300, best_lin = 1e300;
    int i, j, pass, pi = SP - 2;
    isdb_rng_seed(&rng, 11);
    for (i = 0; i < SP * SP; ++i)
        G[i] = isdb_rng_normal(&rng);
    isdb_qr(SP, SP, G, sp_Q, w);
    for (i = 0; i < 1300 * SK * SP; ++i)
        sp_Xr[i] = isdb_rng_normal(&rng);
    for (i = 0; i < 4000 * SP; ++i)
        sp_X0[i] = isdb_rng_normal(&rng);
    for (i = 0; i < SP; ++i)
        sp_beta[i] = isdb_rng_normal(&rng) / sqrt((double)SP);
    for (i = 0; i < 4000; ++i)
        sp_R0[i] = repro_dot(SP, sp_X0 + i * SP, sp_beta) + isdb_rng_normal(&rng);
    for (i = 0; i < SP; ++i)
        for (j = 0; j < pi; ++j)
            sp_U[i * pi + j] = sp_Q[i * SP + j];
    {
        isdb_isd_config c = isdb_isd_config_init(SP, SK, 4000, sp_X0, sp_R0);
        isdb_linucb_config lc = isdb_linucb_config_init(SP, SK);
        c.oracle = 1;
        c.p_inv = pi;
        c.U_inv = sp_U;
        c.learner = ISDB_ISD_RES_LINUCB; /* the paper's learner and widths */
        c.radius = ISDB_ISD_RADIUS_PAPER;
        if (isdb_isd_init(&c, NULL, &isd) != ISDB_OK || isdb_linucb_init(&lc, NULL, &lin) != ISDB_OK) {
            fprintf(stderr, "repro_isd: E7 init failed\n");
            exit(1);
        }
    }
    for (pass = 0; pass < 5; ++pass) {
        isdb_rng n1, n2;
        isdb_rng_seed(&n1, 100 + (uint64_t)pass);
        isdb_rng_seed(&n2, 100 + (uint64_t)pass);
        best_isd = fmin(best_isd, time_select(&isd.base, &n1));
        best_lin = fmin(best_lin, time_select(&lin.base, &n2));
    }
    {
        isdb_isd_info info;
        char msg[256];
        isdb_isd_get_info(&isd, &info);
        printf("\nE7 (issue 15): select at p = %d, K = %d, p_res = 2, beta_inv estimated: %.0f ns; LinUCB %.0f ns; "
               "ratio %.2f (monitor alarms %d)\n",
               SP, SK, best_isd, best_lin, best_isd / best_lin, (int)info.alarms);
        snprintf(msg, sizeof msg,
                 "%.0f ns vs LinUCB %.0f ns, ratio %.2f (target <= 1.3; before issue 15: 21132 vs 10481, 2.0)",
                 best_isd, best_lin, best_isd / best_lin);
        claim("E7 (issue 15) select with beta_inv estimated at most 1.3x LinUCB's (p = 50, K = 20, p_res = 2)",
              best_isd <= 1.3 * best_lin, msg, "not stated");
    }
    isdb_policy_uninit(&isd.base);
    isdb_policy_uninit(&lin.base);
}

int main(int argc, char **argv) {
    const char *only = NULL;
    int i;
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out_dir = argv[++i];
        else if (!strcmp(argv[i], "--quick"))
            reps = 5;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: repro_isd [--out DIR] [--quick] [--only e1|e2|...|e7]\n");
            return 2;
        }
    }
    printf("ISD-linUCB reproduction (Lazzaretto, Peters, Pfister 2026): %d repetitions per setting%s\n", reps,
           reps < MAXREP ? " (--quick)" : "");
    if (!only || !strcmp(only, "e1"))
        experiment1();
    if (!only || !strcmp(only, "e2"))
        experiment2();
    if (!only || !strcmp(only, "e3"))
        experiment3();
    if (!only || !strcmp(only, "e4"))
        experiment4();
    if (!only || !strcmp(only, "e5"))
        experiment5();
    if (!only || !strcmp(only, "e6"))
        experiment6();
    if (!only || !strcmp(only, "e7"))
        experiment7();
    return 0;
}

/* repro_common.h - what the reproductions (bench/repro_*.c) share:
   argument parsing (--out DIR, --quick, --help), pi and a dot product,
   mean and standard error,
   the least-squares slope of a log-log plot, a CSV writer, a small
   hand-written SVG line-plot writer (linear or log-log axes), and the
   `claim:` line every reproduction ends with:

       claim: <name>: <what was measured> (paper: <what the paper says>) holds
       claim: <name>: <what was measured> (paper: <what the paper says>) fails

   Header only, every function static; C99 with libc and libm. */
#ifndef ISDB_REPRO_COMMON_H
#define ISDB_REPRO_COMMON_H

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__GNUC__) || defined(__clang__)
#define REPRO_FN static __attribute__((unused))
#define REPRO_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define REPRO_FN static
#define REPRO_PRINTF(f, a)
#endif

/* Where the VW round figures of realstream's and agnostic's claims come
   from: VW's CPU time per round over LinUCB's, timed in one process. */
#define VW_ROUND_SOURCE                                                                                \
    "VW 9.11.2 tuned, examples built through its API (no text parsing), the minimum of 9 passes with " \
    "LinUCB interleaved in one process, 2026-12-03 (bench/README.md)"

/* Contender 0's CPU time over contender 1's, each the fastest of three
   passes, the two run in turn: run(ctx, which, &secs) plays contender
   which and gives its seconds (nonzero when it fails: then 0). */
REPRO_FN double repro_fastest_ratio(int (*run)(void *ctx, int which, double *secs), void *ctx) {
    double best[2] = {0, 0}, secs;
    int pass, k;
    for (pass = 0; pass < 3; ++pass)
        for (k = 0; k < 2; ++k) {
            if (run(ctx, k, &secs)) return 0;
            if (pass == 0 || secs < best[k]) best[k] = secs;
        }
    return best[1] > 0 ? best[0] / best[1] : 0;
}

/* pi to double precision (the library's own constant is private). */
#define REPRO_PI 3.14159265358979323846

/* a.b, summed in index order (the library's own loop is private). */
REPRO_FN double repro_dot(int n, const double *a, const double *b) {
    double s = 0.0;
    int i;
    for (i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

typedef struct repro_args {
    const char *out; /* folder for CSV and SVG files (default ".") */
    int quick;       /* --quick: a smaller run, not the one the README reports */
} repro_args;

/* Reads --out DIR, --quick and --help. A bad flag prints the usage and
   exits with status 2; --help prints it and exits with 0. `what` is one
   line saying what the program reproduces. */
REPRO_FN void repro_parse_args(int argc, char **argv, const char *what, repro_args *a) {
    int i;
    a->out = ".";
    a->quick = 0;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            a->out = argv[++i];
        } else if (strcmp(argv[i], "--quick") == 0) {
            a->quick = 1;
        } else {
            int help = strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0;
            FILE *f = help ? stdout : stderr;
            if (!help)
                fprintf(stderr, "%s: %s '%s'\n", argv[0],
                        strcmp(argv[i], "--out") == 0 ? "missing folder after" : "unknown flag", argv[i]);
            fprintf(f, "%s\nusage: %s [--out DIR] [--quick]\n", what, argv[0]);
            fprintf(f, "  --out DIR  write the CSV and SVG files into DIR (default: .)\n");
            fprintf(f, "  --quick    a smaller run (fewer seeds and horizons), for a first look\n");
            exit(help ? 0 : 2);
        }
    }
}

/* D-LinUCB's refresh in the reproductions and agnostic: 1 (the paper's
   exact factor at every update, which their CSVs are made with) unless
   the environment sets ISDB_BENCH_DLINUCB_REFRESH (0: the library's
   default, O(d^2) steps between refactorisations), to measure the two
   side by side (bench/README.md). */
REPRO_FN int repro_dlinucb_refresh(void) {
    const char *v = getenv("ISDB_BENCH_DLINUCB_REFRESH");
    return v && *v ? atoi(v) : 1;
}

/* Adaptive's defaults in every bench, but for the fields the environment
   sets, to measure a default against its alternatives on every claim
   with the same programs (bench/README.md, "The adaptive step's cost
   against the claims"): ISDB_BENCH_ADAPTIVE_MEMORY_RATIO,
   ISDB_BENCH_ADAPTIVE_CUT (the enum's value), ISDB_BENCH_ADAPTIVE_KALMAN,
   ISDB_BENCH_ADAPTIVE_KALMAN_Q, ISDB_BENCH_ADAPTIVE_KALMAN_WIDTH. */
REPRO_FN void repro_adaptive_overrides(isdb_adaptive_config *c) {
    const char *v = getenv("ISDB_BENCH_ADAPTIVE_MEMORY_RATIO");
    if (v && *v) c->memory_ratio = (isdb_real)atof(v);
    v = getenv("ISDB_BENCH_ADAPTIVE_CUT");
    if (v && *v) c->cut = (isdb_adaptive_cut)atoi(v);
    v = getenv("ISDB_BENCH_ADAPTIVE_KALMAN");
    if (v && *v) c->kalman = atoi(v);
    v = getenv("ISDB_BENCH_ADAPTIVE_KALMAN_Q");
    if (v && *v) c->kalman_q = (isdb_real)atof(v);
    v = getenv("ISDB_BENCH_ADAPTIVE_KALMAN_WIDTH");
    if (v && *v) c->kalman_width = (isdb_real)atof(v);
}

/* Mean and standard error of the mean (sample standard deviation / sqrt n;
   0 when n < 2). */
REPRO_FN void repro_mean_se(const double *x, int n, double *mean, double *se) {
    double m = 0.0, v = 0.0;
    int i;
    for (i = 0; i < n; ++i) m += x[i];
    m = n > 0 ? m / n : 0.0;
    for (i = 0; i < n; ++i) v += (x[i] - m) * (x[i] - m);
    *mean = m;
    *se = n > 1 ? sqrt(v / (n - 1) / n) : 0.0;
}

/* Least-squares slope of ln y against ln x (positive values only). */
REPRO_FN double repro_loglog_slope(const double *x, const double *y, int n) {
    double mx = 0.0, my = 0.0, sxy = 0.0, sxx = 0.0;
    int i;
    for (i = 0; i < n; ++i) {
        mx += log(x[i]) / n;
        my += log(y[i]) / n;
    }
    for (i = 0; i < n; ++i) {
        sxy += (log(x[i]) - mx) * (log(y[i]) - my);
        sxx += (log(x[i]) - mx) * (log(x[i]) - mx);
    }
    return sxx > 0.0 ? sxy / sxx : 0.0;
}

/* Processor seconds since the program started. */
REPRO_FN double repro_seconds(void) { return (double)clock() / (double)CLOCKS_PER_SEC; }

/* Opens dir/name for writing, or says why not (NULL). */
REPRO_FN FILE *repro_open_in(const char *dir, const char *name) {
    char path[2048];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    if (!f) fprintf(stderr, "cannot write %s (does the folder exist?)\n", path);
    return f;
}

/* Opens DIR/name (the --out folder) for writing, or says why not. */
REPRO_FN FILE *repro_open(const repro_args *a, const char *name) { return repro_open_in(a->out, name); }

/* DIR/name: the header line, then `rows` rows of `cols` numbers (data is
   rows x cols, row-major). Returns 0 on success. */
REPRO_FN int repro_write_csv(const repro_args *a, const char *name, const char *header, int rows, int cols,
                             const double *data) {
    FILE *f = repro_open(a, name);
    int i, j;
    if (!f) return -1;
    fprintf(f, "%s\n", header);
    for (i = 0; i < rows; ++i)
        for (j = 0; j < cols; ++j) fprintf(f, "%.10g%c", data[i * cols + j], j + 1 < cols ? ',' : '\n');
    fclose(f);
    printf("wrote %s/%s\n", a->out, name);
    return 0;
}

/* ---- SVG line plots -------------------------------------------------------- */

typedef struct repro_series {
    const char *label;
    const double *x, *y; /* n points; on log axes non-positive points are skipped */
    int n;
    int dashed;
} repro_series;

REPRO_FN repro_series repro_line(const char *label, const double *x, const double *y, int n, int dashed) {
    repro_series s;
    s.label = label;
    s.x = x;
    s.y = y;
    s.n = n;
    s.dashed = dashed;
    return s;
}

typedef struct repro_plot {
    const char *title, *xlabel, *ylabel;
    int loglog; /* 1: both axes logarithmic */
} repro_plot;

#define REPRO_SVG_W 760
#define REPRO_SVG_H 460
#define REPRO_SVG_LEFT 80
#define REPRO_SVG_RIGHT 190
#define REPRO_SVG_TOP 44
#define REPRO_SVG_BOTTOM 56

static const char *const repro_colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                           "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

/* Text with &, < and > escaped. */
REPRO_FN void repro_svg_text(FILE *f, const char *s) {
    for (; s && *s; ++s) {
        if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else
            fputc(*s, f);
    }
}

/* A round step (1, 2 or 5 times a power of ten) giving about `want` ticks. */
REPRO_FN double repro_nice_step(double span, int want) {
    double raw = span / want, p = pow(10.0, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1.0 : m < 3.5 ? 2.0 : m < 7.5 ? 5.0 : 10.0) * p;
}

typedef struct repro_axis {
    double lo, hi; /* data range, in log10 units on a log axis */
    int log;
} repro_axis;

REPRO_FN double repro_axis_value(const repro_axis *ax, double v) { return ax->log ? log10(v) : v; }

/* Pixel of value v: from `from` (at lo) to `to` (at hi). */
REPRO_FN double repro_axis_px(const repro_axis *ax, double v, double from, double to) {
    return from + (repro_axis_value(ax, v) - ax->lo) / (ax->hi - ax->lo) * (to - from);
}

/* Ticks of an axis: at 1, 2 and 5 times powers of ten on a log axis
   spanning less than 3 decades (powers of ten only otherwise), at a nice
   step on a linear one. Fills at most `cap` values; returns the count. */
REPRO_FN int repro_ticks(const repro_axis *ax, double *ticks, int cap) {
    int n = 0;
    if (ax->log) {
        static const double mult[3] = {1.0, 2.0, 5.0};
        int e, k, dense = ax->hi - ax->lo < 3.0;
        for (e = (int)floor(ax->lo); e <= (int)ceil(ax->hi) && n < cap; ++e)
            for (k = 0; k < (dense ? 3 : 1) && n < cap; ++k) {
                double v = mult[k] * pow(10.0, e), lv = log10(v);
                if (lv >= ax->lo - 1e-9 && lv <= ax->hi + 1e-9) ticks[n++] = v;
            }
    } else {
        double step = repro_nice_step(ax->hi - ax->lo, 5), v = ceil(ax->lo / step - 1e-9) * step;
        for (; v <= ax->hi + 1e-9 * step && n < cap; v += step) ticks[n++] = fabs(v) < 1e-12 * step ? 0.0 : v;
    }
    return n;
}

/* Writes DIR/name: one polyline per series (at most about 1200 points
   each, evenly thinned, the last point always kept), markers on solid
   series of at most 30 points, a legend on the right. Returns 0 on
   success. */
REPRO_FN int repro_write_svg(const repro_args *a, const char *name, const repro_plot *plot, const repro_series *s,
                             int n_series) {
    const double x0 = REPRO_SVG_LEFT, x1 = REPRO_SVG_W - REPRO_SVG_RIGHT;
    const double y0 = REPRO_SVG_H - REPRO_SVG_BOTTOM, y1 = REPRO_SVG_TOP;
    repro_axis ax, ay;
    double ticks[64];
    int i, k, n_ticks, any = 0;
    FILE *f;
    ax.log = ay.log = plot->loglog;
    ax.lo = ay.lo = DBL_MAX;
    ax.hi = ay.hi = -DBL_MAX;
    for (i = 0; i < n_series; ++i)
        for (k = 0; k < s[i].n; ++k) {
            double x = s[i].x[k], y = s[i].y[k];
            if (!(x - x == 0.0) || !(y - y == 0.0) || (plot->loglog && (x <= 0.0 || y <= 0.0))) continue;
            any = 1;
            ax.lo = fmin(ax.lo, repro_axis_value(&ax, x));
            ax.hi = fmax(ax.hi, repro_axis_value(&ax, x));
            ay.lo = fmin(ay.lo, repro_axis_value(&ay, y));
            ay.hi = fmax(ay.hi, repro_axis_value(&ay, y));
        }
    if (!any) {
        ax.lo = ay.lo = 0.0;
        ax.hi = ay.hi = 1.0;
    }
    if (!plot->loglog && ay.lo > 0.0) ay.lo = 0.0; /* regret curves start at 0 */
    if (ax.hi - ax.lo < 1e-12) {
        ax.lo -= 0.5;
        ax.hi += 0.5;
    }
    if (ay.hi - ay.lo < 1e-12) {
        ay.lo -= 0.5;
        ay.hi += 0.5;
    }
    if (plot->loglog) {
        double pad = 0.04 * (ay.hi - ay.lo);
        ay.lo -= pad;
        ay.hi += pad;
    } else {
        ay.hi += 0.04 * (ay.hi - ay.lo);
    }
    f = repro_open(a, name);
    if (!f) return -1;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n",
            REPRO_SVG_W, REPRO_SVG_H, REPRO_SVG_W, REPRO_SVG_H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%g\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">", (x0 + x1) / 2);
    repro_svg_text(f, plot->title);
    fprintf(f, "</text>\n");
    /* Grid and tick labels. */
    n_ticks = repro_ticks(&ax, ticks, 64);
    for (k = 0; k < n_ticks; ++k) {
        double px = repro_axis_px(&ax, ticks[k], x0, x1);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#ddd\"/>\n", px, y0, px, y1);
        fprintf(f, "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%g</text>\n", px, y0 + 16, ticks[k]);
    }
    n_ticks = repro_ticks(&ay, ticks, 64);
    for (k = 0; k < n_ticks; ++k) {
        double py = repro_axis_px(&ay, ticks[k], y0, y1);
        fprintf(f, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x0, py, x1, py);
        fprintf(f, "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", x0 - 6, py + 4, ticks[k]);
    }
    fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"black\"/>\n", x0, y1,
            x1 - x0, y0 - y1);
    fprintf(f, "<text x=\"%g\" y=\"%d\" text-anchor=\"middle\">", (x0 + x1) / 2, REPRO_SVG_H - 14);
    repro_svg_text(f, plot->xlabel);
    fprintf(f, "</text>\n<text transform=\"translate(18 %g) rotate(-90)\" text-anchor=\"middle\">", (y0 + y1) / 2);
    repro_svg_text(f, plot->ylabel);
    fprintf(f, "</text>\n");
    /* Series and legend. */
    for (i = 0; i < n_series; ++i) {
        const char *color = repro_colors[i % 10];
        int stride = s[i].n > 1200 ? (s[i].n + 1199) / 1200 : 1;
        double ly = y1 + 14 + 20 * i;
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s points=\"", color,
                s[i].dashed ? " stroke-dasharray=\"6 4\"" : "");
        /* Every stride-th point, then the last one. */
        for (k = 0; k < s[i].n; k = k == s[i].n - 1 ? s[i].n : (k + stride < s[i].n ? k + stride : s[i].n - 1)) {
            double x = s[i].x[k], y = s[i].y[k];
            if (!(x - x == 0.0) || !(y - y == 0.0) || (plot->loglog && (x <= 0.0 || y <= 0.0))) continue;
            fprintf(f, "%.1f,%.1f ", repro_axis_px(&ax, x, x0, x1), repro_axis_px(&ay, y, y0, y1));
        }
        fprintf(f, "\"/>\n");
        if (s[i].n <= 30 && !s[i].dashed)
            for (k = 0; k < s[i].n; ++k) {
                double x = s[i].x[k], y = s[i].y[k];
                if (plot->loglog && (x <= 0.0 || y <= 0.0)) continue;
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", repro_axis_px(&ax, x, x0, x1),
                        repro_axis_px(&ay, y, y0, y1), color);
            }
        fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", x1 + 12,
                ly, x1 + 36, ly, color, s[i].dashed ? " stroke-dasharray=\"6 4\"" : "");
        fprintf(f, "<text x=\"%g\" y=\"%g\">", x1 + 42, ly + 4);
        repro_svg_text(f, s[i].label);
        fprintf(f, "</text>\n");
    }
    fprintf(f, "</svg>\n");
    fclose(f);
    printf("wrote %s/%s\n", a->out, name);
    return 0;
}

/* The last lines of a reproduction:
   claim: <name>: <measured> (paper: <paper>) holds|fails */
REPRO_FN REPRO_PRINTF(4, 5) void repro_claim(const char *name, int holds, const char *paper, const char *fmt, ...) {
    char measured[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(measured, sizeof measured, fmt, ap);
    va_end(ap);
    printf("claim: %s: %s (paper: %s) %s\n", name, measured, paper, holds ? "holds" : "fails");
}

#endif

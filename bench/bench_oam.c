/* bench_oam: the cost of OAM (Hao, Lattimore, Szepesvari 2020).
   1. Per round (select + update), split by OAM's decision, beside LinUCB
      on the same rounds of the same run: M contexts of K Gaussian arms in
      R^d, theta with clear gaps, horizon 1e4, no forcing (so exploit
      rounds dominate after a while). Rounds in which OAM solved the
      allocation problem are counted apart (their cost is the solve's).
   2. Per solve of the allocation problem (isdb_oam_allocate): the closed
      form (r = 1) against the barrier method forced on the same problem
      (the slow reference), and the barrier for r >= 2, cold and warm
      started (gaps perturbed by 1 %).
   Timing: clock_gettime(CLOCK_MONOTONIC) around each round; per-round
   figures are medians (robust to preemption on a shared machine), the
   timer's own cost (printed) included. Solves are timed in batches. */
#define _POSIX_C_SOURCE 199309L
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static double timer_cost(void) {
    double t0 = now_ns(), t1 = t0;
    int i;
    for (i = 0; i < 100000; ++i) t1 = now_ns();
    return (t1 - t0) / 100000.0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0..n) (sorts v); -1 when n is 0. */
static double median(double *v, uint64_t n) {
    if (!n) return -1.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define MAXN 10000
static double dur[8][MAXN];

static void print_cell(double *v, uint64_t n) {
    if (n)
        printf(" %.0f (%llu) |", median(v, n), (unsigned long long)n);
    else
        printf(" - (0) |");
}

static void per_round(int d, int K, int M, uint64_t n) {
    isdb_oam oam;
    isdb_linucb lin;
    isdb_oam_config oc = isdb_oam_config_init(d, K, n);
    isdb_linucb_config lc = isdb_linucb_config_init(d, K);
    isdb_rng rng;
    double *arms = (double *)malloc(sizeof(double) * (size_t)(M * K * d)), theta[64];
    uint64_t c_dec[8] = {0, 0, 0, 0, 0, 0, 0, 0}, t, solves = 0;
    double exploit_med, lin_med;
    isdb_oam_counts cn;
    int i, m;
    if (!arms) return;
    isdb_rng_seed(&rng, 100 + (uint64_t)(d * 1000 + K * 10 + M));
    for (i = 0; i < M * K * d; ++i) arms[i] = isdb_rng_normal(&rng) / sqrt((double)d);
    for (i = 0; i < d; ++i) theta[i] = isdb_rng_normal(&rng);
    oc.max_contexts = M;
    oc.forcing = ISDB_OAM_FORCE_NONE;
    lc.delta = 1.0 / (double)n;
    if (isdb_oam_init(&oc, NULL, &oam) != ISDB_OK || isdb_linucb_init(&lc, NULL, &lin) != ISDB_OK) {
        free(arms);
        return;
    }
    for (m = 0; m < M; ++m) isdb_oam_add_context(&oam, arms + m * K * d, K, NULL);
    for (t = 0; t < n; ++t) {
        const double *X = arms + (int)isdb_rng_below(&rng, (uint64_t)M) * K * d;
        double y = isdb_rng_normal(&rng), t0, t1, t2;
        int arm, arm_lin, k;
        t0 = now_ns();
        isdb_policy_select(&oam.base, X, K, &arm);
        for (k = 0; k < d; ++k) y += X[arm * d + k] * theta[k];
        isdb_policy_update(&oam.base, arm, X + arm * d, y);
        t1 = now_ns();
        isdb_policy_select(&lin.base, X, K, &arm_lin);
        isdb_policy_update(&lin.base, arm_lin, X + arm_lin * d, y);
        t2 = now_ns();
        isdb_oam_get_counts(&oam, &cn);
        if (cn.solves > solves) {
            dur[6][c_dec[6]++] = t1 - t0; /* a round with a solve */
            solves = cn.solves;
        } else {
            int dec = (int)isdb_oam_get_last_decision(&oam);
            dur[dec][c_dec[dec]++] = t1 - t0;
        }
        dur[7][c_dec[7]++] = t2 - t1; /* LinUCB */
    }
    printf("| %d | %d | %d |", d, K, M);
    exploit_med = median(dur[ISDB_OAM_EXPLOIT], c_dec[ISDB_OAM_EXPLOIT]);
    for (i = ISDB_OAM_EXPLOIT; i <= 6; ++i) print_cell(dur[i], c_dec[i]);
    lin_med = median(dur[7], c_dec[7]);
    printf(" %.0f |", lin_med);
    if (exploit_med > 0)
        printf(" %.2f |\n", exploit_med / lin_med);
    else
        printf(" - |\n");
    isdb_policy_uninit(&oam.base);
    isdb_policy_uninit(&lin.base);
    free(arms);
}

/* A problem: J suboptimal arms and nz zero-gap arms in R^d, Gaussian. */
static void make_problem(isdb_rng *rng, int d, int nz, int J, double *X, double *gaps) {
    int i;
    for (i = 0; i < (nz + J) * d; ++i) X[i] = isdb_rng_normal(rng);
    for (i = 0; i < nz + J; ++i) gaps[i] = i < nz ? 0.0 : 0.05 + isdb_rng_uniform(rng);
}

static double time_solve(isdb_oam_problem *p, double *w, double *work, int reps, isdb_oam_alloc_info *info,
                         isdb_result *res) {
    double t0 = now_ns();
    int i;
    for (i = 0; i < reps; ++i) *res = isdb_oam_allocate(p, w, info, work);
    return (now_ns() - t0) / reps;
}

static void per_solve(int d, int nz, int J) {
    static double X[128 * 16], gaps[128], g2[128], w[128], w0[128];
    double *work;
    isdb_rng rng;
    isdb_oam_problem p;
    isdb_oam_alloc_info a, b, c;
    isdb_result ra, rb, rc;
    int n = nz + J, i, reps = J <= 10 ? 200 : J <= 30 ? 20 : 5;
    double ta, tb, tc;
    work = (double *)malloc(sizeof(double) * isdb_oam_allocate_work_size(d, n));
    if (!work) return;
    isdb_rng_seed(&rng, (uint64_t)(d * 100 + J));
    make_problem(&rng, d, nz, J, X, gaps);
    p = isdb_oam_problem_init(d, n, X, gaps);
    ta = time_solve(&p, w, work, reps, &a, &ra);
    memcpy(w0, w, sizeof(double) * (size_t)n);
    for (i = 0; i < n; ++i) g2[i] = gaps[i] * (1.0 + 0.01 * isdb_rng_uniform(&rng));
    p.gaps = g2;
    if (a.method == ISDB_OAM_METHOD_CLOSED) {
        /* The barrier on the same problem is the reference. */
        p.gaps = gaps;
        p.force_barrier = 1;
        tb = time_solve(&p, w, work, reps, &b, &rb);
        printf("| %d | %d | %d | closed form | %.2f | barrier (reference) | %.1f (%d steps) | %.0f |\n", d, a.r, J,
               ta / 1e3, tb / 1e3, b.iterations, tb / ta);
    } else {
        tb = time_solve(&p, w, work, reps, &b, &rb); /* cold, perturbed gaps */
        p.w_start = w0;
        tc = time_solve(&p, w, work, reps, &c, &rc); /* warm from the unperturbed solution */
        printf("| %d | %d | %d | barrier, cold | %.1f (%d steps) | barrier, warm | %.1f (%d steps) | %.2f |\n", d, b.r,
               J, tb / 1e3, b.iterations, tc / 1e3, c.iterations, tb / tc);
    }
    free(work);
}

int main(void) {
    static const int grid[][3] = {{2, 3, 1}, {3, 3, 2}, {2, 100, 1}, {5, 10, 1}, {5, 10, 4}, {10, 20, 1}};
    static const int solves[][3] = {{2, 1, 2}, {2, 1, 20}, {2, 1, 100}, {3, 1, 5}, {3, 1, 20},
                                    {3, 1, 50}, {6, 2, 10}, {6, 2, 40}, {8, 1, 60}};
    unsigned i;
    printf("# OAM speed (ns or us; gcc -O2, one thread). Timer cost %.0f ns per call, included below.\n\n",
           timer_cost());
    printf("## per round (select + update), median ns, by OAM's decision (rounds in parentheses; rounds with a "
           "solve apart), beside LinUCB on the same rounds\n\n");
    printf("| d | K | contexts | OAM exploit | OAM track | OAM forced | OAM wasted | OAM, rounds with a solve | LinUCB | "
           "exploit / LinUCB |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (i = 0; i < sizeof grid / sizeof grid[0]; ++i) per_round(grid[i][0], grid[i][1], grid[i][2], 10000);
    printf("\n## per solve of the allocation problem, us (d, r = dimension of the reduced problem, J = suboptimal "
           "arms)\n\n");
    printf("| d | r | J | method | us | reference | us | ratio |\n|---|---|---|---|---|---|---|---|\n");
    for (i = 0; i < sizeof solves / sizeof solves[0]; ++i) per_solve(solves[i][0], solves[i][1], solves[i][2]);
    return 0;
}

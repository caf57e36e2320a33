/* bench_select.c - select beside the machine's limit.

   For every policy whose select is K triangular solves and scores
   (LinUCB, SW-UCB, D-LinUCB, adaptive; LinTS's select is one draw and K
   dot products, timed for reference), at d = 10, 20, 50, 100 and K = 50:
   - the policies' selects;
   - OpenBLAS's trsm (one thread) on the same K solves in each of its four
     layouts: Left/NoTrans and Left/Trans (the arms as the columns of a
     d x K matrix: X as the library gets it), Right/Trans and Right/NoTrans
     (the arms as rows of a column-major K x d matrix, transposed once
     before the clock starts: the BLAS gets its layout for free), with L
     or L^T stored as each layout wants (prepared once), each followed by
     the same scoring (w.z + beta |w| and the first best arm). The
     fastest layout at each shape is the reference;
   - D-LinUCB's shapes through BLAS: the forward and back solves as trsm
     Left/NoTrans and Left/Trans, the V-tilde form as one gemm, scoring;
   - LinUCB's select with the 16-byte (SSE2) kernels only, as a CPU
     without AVX2 runs it (the library takes its AVX2 kernels at run time
     where the CPU has them; this column skips the policy's input checks);
   - the core's peak for separate multiplies and adds (what
     -ffp-contract=off allows), 16-byte vectors (SSE2, as plain -O2
     builds) and, where the CPU has it, 32-byte ones (AVX2, a function
     compiled with the target attribute): 8 independent sums a += c * x
     over an array in L1, in the precision of the build.
   Every time is CPU time of this process (CLOCK_PROCESS_CPUTIME_ID), the
   contenders interleaved: each round runs every contender for a block of
   calls, ROUNDS rounds, and the table gives the minimum and the median
   per call over the rounds. The claim lines (`target:`) state, at
   d = 50, K = 50, each select's multiply-adds per second as a fraction of
   the SSE2 peak (LinUCB's count: K (d (d - 1) / 2 + 2 d); D-LinUCB's:
   K (3 d (d - 1) / 2 + 3 d)), and at every d its ratio to the fastest
   BLAS layout (minimum against minimum). SW-UCB's step (select + update,
   window 500) at d = 20, K = 5 is also timed beside the K d^2 floor, and
   D-LinUCB's update (default, and refresh = 1, the paper's exact factor)
   beside LinUCB's at d = 10 to 100, gamma 0.99, with its claim line.
   `make bench` runs it in double and in float (bench_select-float).

   usage: bench_select [--quick] */
#define _POSIX_C_SOURCE 199309L
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef ISDB_BENCH_BLAS
#include <cblas.h>
#endif

#define POOL 16
#define MAXD 100
#define MAXK 50
#define ROUNDS 11

static isdb_real pool[POOL * MAXK * MAXD], pool_t[POOL * MAXK * MAXD], rewards[POOL];
static volatile double sink;

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Arms X (K x d, row-major) of every pool entry, and each transposed
   (d x K... stored as K x d column-major: x_k[j] at k + j K). */
static void fill_pool(int d, int K) {
    isdb_rng rng;
    int i, k, j;
    isdb_rng_seed(&rng, 3);
    for (i = 0; i < POOL * K * d; ++i) pool[i] = isdb_rng_normal(&rng) / (isdb_real)sqrt((double)d);
    for (i = 0; i < POOL; ++i) rewards[i] = isdb_rng_normal(&rng);
    for (i = 0; i < POOL; ++i)
        for (k = 0; k < K; ++k)
            for (j = 0; j < d; ++j) pool_t[i * K * d + k + j * K] = pool[i * K * d + k * d + j];
}

/* ---- the machine ---- */

static void machine_name(char *out, size_t size) {
    char line[256], model[128] = "unknown CPU";
    int family = -1, mod = -1;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            char *c = strchr(line, ':');
            if (!c) continue;
            if (strncmp(line, "model name", 10) == 0 && strcmp(model, "unknown CPU") == 0) {
                size_t n = strlen(c + 2);
                if (n && c[2 + n - 1] == '\n') c[2 + n - 1] = 0;
                snprintf(model, sizeof model, "%s", c + 2);
            } else if (strncmp(line, "cpu family", 10) == 0 && family < 0) {
                family = atoi(c + 1);
            } else if (strncmp(line, "model\t", 6) == 0 && mod < 0) {
                mod = atoi(c + 1);
            }
        }
        fclose(f);
    }
    snprintf(out, size, "%ld-core %s (family %d, model %d%s), %s%s", sysconf(_SC_NPROCESSORS_ONLN), model, family, mod,
             strstr(model, "AMD") ? (family == 26 ? ", Zen 5" : family == 25 ? ", Zen 3/4" : family == 23 ? ", Zen 1/2" : "")
                                  : "",
#if defined(__clang__)
             "clang ", __clang_version__
#elif defined(__GNUC__)
             "gcc ", __VERSION__
#else
             "compiler ", "?"
#endif
    );
}

/* ---- the core's peak: separate multiplies and adds ---- */

#define PEAK_BUF 256 /* vectors of the array the sums read (4 or 8 KB: L1) */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
typedef isdb_real vec16 __attribute__((vector_size(16)));
typedef isdb_real vec32 __attribute__((vector_size(32)));
#define LANES16 (int)(16 / sizeof(isdb_real))
#define LANES32 (int)(32 / sizeof(isdb_real))

/* peak16 and peak32: multiply-adds a second of 8 sums a_j += c x_i with
   16-byte vectors, and with 32-byte vectors in a function compiled for
   AVX2 (no FMA: the products and sums stay separate, as -ffp-contract=off
   keeps them). One body, two vector types. */
#define PEAK_FN(name, vec, lanes, attributes)                                                            \
    attributes static double name(long passes) {                                                         \
        static vec x[PEAK_BUF];                                                                          \
        vec a0, a1, a2, a3, a4, a5, a6, a7, c;                                                           \
        double t0;                                                                                       \
        long p;                                                                                          \
        int i;                                                                                           \
        memset(&a0, 0, sizeof a0);                                                                       \
        a1 = a2 = a3 = a4 = a5 = a6 = a7 = a0;                                                           \
        for (i = 0; i < lanes; ++i) c[i] = (isdb_real)1e-3;                                              \
        for (i = 0; i < PEAK_BUF; ++i) x[i] = c * (isdb_real)(i % 7);                                    \
        t0 = cpu_now();                                                                                  \
        for (p = 0; p < passes; ++p)                                                                     \
            for (i = 0; i < PEAK_BUF; i += 8) {                                                          \
                a0 += c * x[i];                                                                          \
                a1 += c * x[i + 1];                                                                      \
                a2 += c * x[i + 2];                                                                      \
                a3 += c * x[i + 3];                                                                      \
                a4 += c * x[i + 4];                                                                      \
                a5 += c * x[i + 5];                                                                      \
                a6 += c * x[i + 6];                                                                      \
                a7 += c * x[i + 7];                                                                      \
            }                                                                                            \
        t0 = cpu_now() - t0;                                                                             \
        a0 += a1 + a2 + a3 + a4 + a5 + a6 + a7;                                                          \
        sink = (double)a0[0];                                                                            \
        return (double)passes * PEAK_BUF * lanes / t0;                                                   \
    }
PEAK_FN(peak16, vec16, LANES16, __attribute__((noinline)))
PEAK_FN(peak32, vec32, LANES32, __attribute__((noinline, target("avx2"))))
#define HAVE_PEAK 1
#endif

/* ---- the policies ---- */

typedef union any_policy {
    isdb_linucb linucb;
    isdb_swucb swucb;
    isdb_dlinucb dlinucb;
    isdb_lints lints;
    isdb_adaptive adaptive;
} any_policy;

enum { LINUCB, SWUCB, DLINUCB, LINTS, ADAPTIVE, N_POLICIES };
static const char *names[N_POLICIES] = {"linucb", "swucb", "dlinucb", "lints", "adaptive"};

static isdb_policy *make(int which, int d, int K, any_policy *mem) {
    isdb_result r;
    if (which == LINUCB) {
        isdb_linucb_config c = isdb_linucb_config_init(d, K);
        r = isdb_linucb_init(&c, NULL, &mem->linucb);
    } else if (which == SWUCB) {
        isdb_swucb_config c = isdb_swucb_config_init(d, K, 500);
        r = isdb_swucb_init(&c, NULL, &mem->swucb);
    } else if (which == DLINUCB) {
        isdb_dlinucb_config c = isdb_dlinucb_config_init(d, K, (isdb_real)0.99);
        r = isdb_dlinucb_init(&c, NULL, &mem->dlinucb);
    } else if (which == LINTS) {
        isdb_lints_config c = isdb_lints_config_init(d, K);
        r = isdb_lints_init(&c, NULL, &mem->lints);
    } else {
        isdb_adaptive_config c = isdb_adaptive_config_init(d, K);
        r = isdb_adaptive_init(&c, NULL, &mem->adaptive);
    }
    if (r != ISDB_OK) {
        fprintf(stderr, "init %s: %s\n", names[which], isdb_result_string(r));
        exit(1);
    }
    return (isdb_policy *)mem;
}

/* ---- the contenders ---- */

enum { TRSM_LN = N_POLICIES, TRSM_LT, TRSM_RT, TRSM_RN, BLAS_DLIN, LINUCB_V, STEP, FLOOR, N_COLUMNS };
static const char *column_names[N_COLUMNS] = {"linucb", "swucb",    "dlinucb",   "lints", "adaptive", "trsm L/N",
                                              "trsm L/T", "trsm R/T", "trsm R/N", "blas dlin", "linucb 16-byte",
                                              "sw step", "floor"};

typedef struct contender {
    int which, d, K;
    isdb_policy *p;
    any_policy *mem;
    isdb_real *L, *Lt, *B, *Vt, *T, *z; /* BLAS: L and L^T column-major, the right-hand sides, V-tilde */
} contender;

static void contender_init(contender *c, int which, int d, int K) {
    int i, j;
    long s;
    memset(c, 0, sizeof *c);
    c->which = which;
    c->d = d;
    c->K = K;
    if (which < N_POLICIES || which == STEP || which == LINUCB_V) {
        c->mem = (any_policy *)malloc(sizeof(any_policy));
        c->p = make(which == STEP ? SWUCB : which == LINUCB_V ? LINUCB : which, d, K, c->mem);
        /* a warm-up of 600 updates, so every policy holds data */
        for (s = 0; s < 600; ++s)
            isdb_policy_update(c->p, (int)(s % K), pool + (s % POOL) * K * d + (s % K) * d, rewards[s % POOL]);
        return;
    }
    c->L = (isdb_real *)calloc((size_t)(d * d), sizeof(isdb_real));
    c->Lt = (isdb_real *)calloc((size_t)(d * d), sizeof(isdb_real));
    c->Vt = (isdb_real *)calloc((size_t)(d * d), sizeof(isdb_real));
    c->B = (isdb_real *)calloc((size_t)(2 * K * d), sizeof(isdb_real));
    c->T = (isdb_real *)calloc((size_t)(K * d), sizeof(isdb_real));
    c->z = (isdb_real *)calloc((size_t)d, sizeof(isdb_real));
    /* a well-conditioned lower factor; column-major L[i + j d] = L_ij */
    for (i = 0; i < d; ++i)
        for (j = 0; j <= i; ++j) {
            isdb_real v = i == j ? (isdb_real)(1 + 0.01 * i) : pool[i * d + j] / 4;
            c->L[i + j * d] = v;
            c->Lt[j + i * d] = v;
            c->Vt[i + j * d] = c->Vt[j + i * d] = i == j ? (isdb_real)d : 0;
        }
    for (i = 0; i < d; ++i) c->z[i] = pool[i];
}

static void contender_free(contender *c) {
    if (c->p) isdb_policy_uninit(c->p);
    free(c->mem);
    free(c->L);
    free(c->Lt);
    free(c->Vt);
    free(c->B);
    free(c->T);
    free(c->z);
}

#ifdef ISDB_BENCH_BLAS
/* The scoring BLAS needs after its solve: w.z + beta |w| for each arm,
   the first best; W's arm k at W + k ld_arm, entry j at + j ld_entry. */
static int score(int d, int K, const isdb_real *W, int ld_arm, int ld_entry, const isdb_real *z) {
    int best = 0, k, j;
    isdb_real best_value = 0;
    if (ld_entry == 1) {
        for (k = 0; k < K; ++k) {
            const isdb_real *w = W + k * ld_arm;
            isdb_real m = 0, q = 0, v;
            for (j = 0; j < d; ++j) {
                m += w[j] * z[j];
                q += w[j] * w[j];
            }
            v = m + (isdb_real)sqrt((double)q);
            if (k == 0 || v > best_value) {
                best_value = v;
                best = k;
            }
        }
    } else {
        /* arms contiguous across: sums over j for all arms at once */
        isdb_real m[MAXK], q[MAXK];
        for (k = 0; k < K; ++k) m[k] = q[k] = 0;
        for (j = 0; j < d; ++j) {
            const isdb_real *wj = W + j * ld_entry, zj = z[j];
            for (k = 0; k < K; ++k) {
                m[k] += wj[k] * zj;
                q[k] += wj[k] * wj[k];
            }
        }
        for (k = 0; k < K; ++k) {
            isdb_real v = m[k] + (isdb_real)sqrt((double)q[k]);
            if (k == 0 || v > best_value) {
                best_value = v;
                best = k;
            }
        }
    }
    return best;
}

#if ISDB_REAL_IS_FLOAT
#define BLAS_TRSM cblas_strsm
#define BLAS_GEMM cblas_sgemm
#else
#define BLAS_TRSM cblas_dtrsm
#define BLAS_GEMM cblas_dgemm
#endif
#endif

/* Seconds per call of `steps` calls of contender c. */
static double run(contender *c, long steps) {
    int d = c->d, K = c->K, arm = 0;
    long s;
    double t0 = cpu_now(), acc = 0;
    for (s = 0; s < steps; ++s) {
        const isdb_real *X = pool + (s % POOL) * K * d;
        switch (c->which) {
        case STEP:
            isdb_policy_select(c->p, X, K, &arm);
            isdb_policy_update(c->p, arm, X + arm * d, rewards[s % POOL]);
            break;
#ifdef ISDB_BENCH_BLAS
        case TRSM_LN: /* B (d x K) = L^-1 X^T */
            memcpy(c->B, X, sizeof(isdb_real) * (size_t)(K * d));
            BLAS_TRSM(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, d, K, 1, c->L, d, c->B, d);
            arm = score(d, K, c->B, d, 1, c->z);
            break;
        case TRSM_LT: /* the same with U = L^T stored: U^-T X^T */
            memcpy(c->B, X, sizeof(isdb_real) * (size_t)(K * d));
            BLAS_TRSM(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, d, K, 1, c->Lt, d, c->B, d);
            arm = score(d, K, c->B, d, 1, c->z);
            break;
        case TRSM_RT: /* B (K x d) = X L^-T */
            memcpy(c->B, pool_t + (s % POOL) * K * d, sizeof(isdb_real) * (size_t)(K * d));
            BLAS_TRSM(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, K, d, 1, c->L, d, c->B, K);
            arm = score(d, K, c->B, 1, K, c->z);
            break;
        case TRSM_RN: /* X U^-1, U = L^T */
            memcpy(c->B, pool_t + (s % POOL) * K * d, sizeof(isdb_real) * (size_t)(K * d));
            BLAS_TRSM(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, K, d, 1, c->Lt, d, c->B, K);
            arm = score(d, K, c->B, 1, K, c->z);
            break;
        case BLAS_DLIN: { /* W = L^-1 X^T, U = L^-T W, T = Vt U; w.z + sqrt(u.t) */
            int k, j;
            isdb_real best_value = 0, *U = c->B + K * d;
            memcpy(c->B, X, sizeof(isdb_real) * (size_t)(K * d));
            BLAS_TRSM(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, d, K, 1, c->L, d, c->B, d);
            memcpy(U, c->B, sizeof(isdb_real) * (size_t)(K * d));
            BLAS_TRSM(CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, d, K, 1, c->L, d, U, d);
            BLAS_GEMM(CblasColMajor, CblasNoTrans, CblasNoTrans, d, K, d, 1, c->Vt, d, U, d, 0, c->T, d);
            for (k = 0; k < K; ++k) {
                isdb_real m = 0, q = 0, v;
                for (j = 0; j < d; ++j) {
                    m += c->B[k * d + j] * c->z[j];
                    q += U[k * d + j] * c->T[k * d + j];
                }
                v = m + (isdb_real)sqrt(fabs((double)q));
                if (k == 0 || v > best_value) {
                    best_value = v;
                    arm = k;
                }
            }
            break;
        }
#endif
#ifdef ISDB__VEC_LANES
        case LINUCB_V: { /* LinUCB's select with the 16-byte kernels only (no AVX2 dispatch) */
            isdb__ridge *rg = &c->mem->linucb._ridge;
            isdb_real beta = isdb_linucb_get_beta(&c->mem->linucb), best_value = 0, mean[8], norm2[8];
            const isdb_real *rows[8];
            int k, a, m;
            for (k = 0; k < K; k += m) {
                m = isdb__lanes_rows_n(X, d, K, k, 8, rows);
                isdb__lanes8_fwd_solve_v(d, rg->L, rg->inv_diag, rows, rg->block);
                isdb__lanes8_dots(d, rg->block, rg->z, mean, norm2);
                for (a = 0; a < m; ++a) {
                    isdb_real v = mean[a] + beta * isdb__sqrt(norm2[a]);
                    if (k + a == 0 || v > best_value) {
                        best_value = v;
                        arm = k + a;
                    }
                }
            }
            break;
        }
#endif
        case FLOOR: { /* K d^2 multiply-adds: y = M x_k for every arm, column sweeps */
            static isdb_real Y[MAXD];
            int k, i, j;
            for (k = 0; k < K; ++k) {
                const isdb_real *x = X + k * d;
                for (i = 0; i < d; ++i) Y[i] = 0;
                for (j = 0; j < d; ++j) {
                    const isdb_real *m = pool + j * d, xj = x[j];
                    for (i = 0; i < d; ++i) Y[i] += m[i] * xj;
                }
                acc += (double)Y[k % d];
            }
            break;
        }
        default:
            if (c->p) isdb_policy_select(c->p, X, K, &arm);
            break;
        }
        acc += arm;
    }
    sink = acc;
    return (cpu_now() - t0) / (double)steps;
}

/* Seconds per update of `steps` updates (arms of the pool in turn). */
static double run_updates(isdb_policy *p, int d, int K, long steps) {
    long s;
    double t0 = cpu_now();
    for (s = 0; s < steps; ++s)
        isdb_policy_update(p, (int)(s % K), pool + (s % POOL) * K * d + (s % K) * d, rewards[s % POOL]);
    return (cpu_now() - t0) / (double)steps;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#ifndef ISDB_BENCH_BLAS
static int is_blas(int w) { return w >= TRSM_LN && w <= BLAS_DLIN; }
#endif

int main(int argc, char **argv) {
    static const int dims[] = {10, 20, 50, 100};
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int sh, w, r, n_dims = 4;
    char machine[512];
    double peak_sse = 0, peak_avx = 0, tmin[4][N_COLUMNS], tmed[4][N_COLUMNS], best_blas[4];
    int best_layout[4];
    const char *prec = ISDB_REAL_IS_FLOAT ? "single" : "double";
    machine_name(machine, sizeof machine);
#ifdef ISDB_BENCH_BLAS
    /* One thread, as the library runs: OpenBLAS would otherwise split the
       larger calls over the cores, which on a shared machine only adds
       noise. */
    openblas_set_num_threads(1);
    printf("select, %s precision, CPU ns per call (min and median of %d interleaved rounds); BLAS: %s, 1 thread\n",
           prec, ROUNDS, openblas_get_config());
#else
    printf("select, %s precision, CPU ns per call (min and median of %d interleaved rounds); no BLAS (build with "
           "one: see the Makefile)\n",
           prec, ROUNDS);
#endif
    printf("machine: %s\n", machine);
    printf("%4s %4s", "d", "K");
    for (w = 0; w < N_COLUMNS - 2; ++w) printf(" %17s", column_names[w]);
    printf("\n");
    for (sh = 0; sh < n_dims; ++sh) {
        int d = dims[sh], K = 50;
        long steps = (long)((quick ? 4e6 : 3e7) / ((double)K * d * d + 1000)) + 1;
        double times[N_COLUMNS][ROUNDS];
        contender c[N_COLUMNS];
        fill_pool(d, K);
        for (w = 0; w < N_COLUMNS - 2; ++w) contender_init(&c[w], w, d, K);
        for (r = 0; r < ROUNDS; ++r) {
            for (w = 0; w < N_COLUMNS - 2; ++w) {
#ifndef ISDB_BENCH_BLAS
                if (is_blas(w)) {
                    times[w][r] = 0;
                    continue;
                }
#endif
                times[w][r] = 1e9 * run(&c[w], steps);
            }
#ifdef HAVE_PEAK
            /* the peak probe takes its turn in every round (the best of all rounds) */
            peak_sse = fmax(peak_sse, peak16(quick ? 2000 : 8000));
            if (__builtin_cpu_supports("avx2")) peak_avx = fmax(peak_avx, peak32(quick ? 2000 : 8000));
#endif
        }
        printf("%4d %4d", d, K);
        best_blas[sh] = HUGE_VAL;
        best_layout[sh] = TRSM_LN;
        for (w = 0; w < N_COLUMNS - 2; ++w) {
            qsort(times[w], ROUNDS, sizeof(double), cmp_double);
            tmin[sh][w] = times[w][0];
            tmed[sh][w] = times[w][ROUNDS / 2];
            printf(" %8.0f %8.0f", tmin[sh][w], tmed[sh][w]);
            if (w >= TRSM_LN && w <= TRSM_RN && tmin[sh][w] < best_blas[sh]) {
                best_blas[sh] = tmin[sh][w];
                best_layout[sh] = w;
            }
            contender_free(&c[w]);
        }
        printf("\n");
    }
#ifdef HAVE_PEAK
    printf("peak, separate multiplies and adds (%s, best of every round): SSE2 %.2f G multiply-adds/s", prec,
           1e-9 * peak_sse);
    if (peak_avx > 0)
        printf(", AVX2 %.2f G/s\n", 1e-9 * peak_avx);
    else
        printf(", no AVX2\n");
#endif
    /* SW-UCB's step at d = 20, K = 5 beside the K d^2 floor */
    {
        double ts[2][ROUNDS];
        contender c[2];
        fill_pool(20, 5);
        contender_init(&c[0], STEP, 20, 5);
        contender_init(&c[1], FLOOR, 20, 5);
        for (r = 0; r < ROUNDS; ++r)
            for (w = 0; w < 2; ++w) ts[w][r] = 1e9 * run(&c[w], quick ? 2000 : 10000);
        for (w = 0; w < 2; ++w) {
            qsort(ts[w], ROUNDS, sizeof(double), cmp_double);
            contender_free(&c[w]);
        }
        printf("swucb step (select + update, window 500) at d = 20, K = 5: %.0f ns (median %.0f), floor %.0f ns\n",
               ts[0][0], ts[0][ROUNDS / 2], ts[1][0]);
        printf("target: swucb step at d = 20, K = 5 within 1.5x of the floor (%s): %.2fx: %s\n", prec,
               ts[0][0] / ts[1][0], ts[0][0] <= 1.5 * ts[1][0] ? "holds" : "fails");
    }
    /* Updates: D-LinUCB's default (O(d^2) steps, a refactorisation every
       max(4 d, 256)) and refresh = 1 (the paper's: a Cholesky
       factorisation every update) beside LinUCB's, interleaved. */
    {
        double worst = 0, ratio[4];
        printf("update, CPU ns (min and median of %d interleaved rounds), gamma 0.99:\n%4s %17s %17s %17s\n",
               ROUNDS, "d", "linucb", "dlinucb", "dlinucb exact");
        for (sh = 0; sh < n_dims; ++sh) {
            int d = dims[sh], K = 50;
            long steps = (long)((quick ? 2e6 : 8e6) / ((double)d * d * d / 3 + 1000)) * 4 + 8;
            double tu[3][ROUNDS];
            any_policy *mem[3];
            isdb_policy *p[3];
            fill_pool(d, K);
            for (w = 0; w < 3; ++w) {
                mem[w] = (any_policy *)malloc(sizeof(any_policy));
                p[w] = make(w == 0 ? LINUCB : DLINUCB, d, K, mem[w]);
                if (w == 2) {
                    isdb_dlinucb_config c = isdb_dlinucb_config_init(d, K, (isdb_real)0.99);
                    isdb_policy_uninit(p[w]);
                    c.refresh = 1;
                    if (isdb_dlinucb_init(&c, NULL, &mem[w]->dlinucb) != ISDB_OK) exit(1);
                }
                run_updates(p[w], d, K, 600); /* warm-up */
            }
            for (r = 0; r < ROUNDS; ++r)
                for (w = 0; w < 3; ++w) tu[w][r] = 1e9 * run_updates(p[w], d, K, steps);
            printf("%4d", d);
            for (w = 0; w < 3; ++w) {
                qsort(tu[w], ROUNDS, sizeof(double), cmp_double);
                printf(" %8.0f %8.0f", tu[w][0], tu[w][ROUNDS / 2]);
                isdb_policy_uninit(p[w]);
                free(mem[w]);
            }
            printf("\n");
            ratio[sh] = tu[1][0] / tu[0][0];
            worst = fmax(worst, ratio[sh]);
        }
        printf("target: dlinucb update (default) O(d^2), within 3x of LinUCB's at d = 10, 20, 50, 100 (%s, %s): "
               "%.2fx %.2fx %.2fx %.2fx: %s\n",
               prec, machine, ratio[0], ratio[1], ratio[2], ratio[3], worst <= 3 ? "holds" : "fails");
    }
    /* The claims: each select's rate at d = 50 against the core's SSE2
       peak, and its time against the fastest BLAS layout at every d. */
    (void)best_layout;
    {
        const int p50 = 2; /* dims[2] = 50 */
        const int which[5] = {LINUCB, SWUCB, ADAPTIVE, DLINUCB, LINUCB_V};
        int i, n_which = 4;
#ifdef ISDB__VEC_LANES
        n_which = 5;
#endif
        for (i = 0; i < n_which && peak_sse > 0; ++i) {
            int p = which[i], d = 50, K = 50;
            double ma = p == DLINUCB ? K * (3.0 * d * (d - 1) / 2 + 3.0 * d) : K * (d * (d - 1) / 2.0 + 2.0 * d);
            double rate = ma / (1e-9 * tmin[p50][p]), frac = rate / peak_sse;
            printf("target: %s select at d = 50, K = 50 at >= 80%% of the SSE2 peak (%s, %s): %.2f G multiply-adds/s "
                   "of %.2f, %.0f%% (%.0f%% of AVX2's %.2f): %s\n",
                   column_names[p], prec, machine, 1e-9 * rate, 1e-9 * peak_sse, 100 * frac,
                   peak_avx > 0 ? 100 * rate / peak_avx : 0.0, 1e-9 * peak_avx, frac >= 0.8 ? "holds" : "fails");
        }
#ifdef ISDB_BENCH_BLAS
        for (i = 0; i < n_which; ++i) {
            int sh2, p = which[i];
            double worst = 0;
            for (sh2 = 0; sh2 < n_dims; ++sh2) {
                double ref = p == DLINUCB ? tmin[sh2][BLAS_DLIN] : best_blas[sh2];
                worst = fmax(worst, tmin[sh2][p] / ref);
            }
            printf("target: %s select at most 1.0x of %s at d = 10, 20, 50, 100, K = 50 (%s, %s):", column_names[p],
                   p == DLINUCB ? "BLAS on D-LinUCB's shapes (best trsm layouts, gemm)"
                                : "OpenBLAS's fastest trsm layout + scoring",
                   prec, machine);
            for (sh2 = 0; sh2 < n_dims; ++sh2) {
                double ref = p == DLINUCB ? tmin[sh2][BLAS_DLIN] : best_blas[sh2];
                printf(" %.2fx (%s)", tmin[sh2][p] / ref, p == DLINUCB ? "blas dlin" : column_names[best_layout[sh2]]);
            }
            printf(": %s\n", worst <= 1.0 ? "holds" : "fails");
        }
#endif
    }
    return 0;
}

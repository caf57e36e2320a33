/* The select kernels against the one-arm routines they stand for. White
   box (it reaches the private kernels), so built without optimisation;
   in double and float. Every variant compiled here is checked on its own:
   the one select calls, the 16-byte vector kernels and, on a CPU with
   AVX2, the 32-byte ones (built with ISDB__SCALAR_LANES, the scalar
   kernels are the only ones). ISD's build holds every kernel's caller
   (the ridge's selects, D-LinUCB's width, ISD's gather) and compiles in
   two thirds of the whole library's time. */
#define ISDB_ONLY_ISD
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "test.h"

#include <string.h>

typedef struct kernels {
    const char *name;
    void (*fwd)(int, const isdb_real *, const isdb_real *, const isdb_real *const *, isdb_real *);
    void (*back)(int, const isdb_real *, const isdb_real *, isdb_real *);
    void (*form)(int, const isdb_real *, const isdb_real *, isdb_real *);
} kernels;

/* A random lower-triangular factor L of d rows (diagonal in [1, 2),
   entries N(0, 1) / 4 below it), its reciprocal diagonal, and, if z is
   not NULL, a standard normal z. */
static void random_factor(isdb_rng *rng, int d, isdb_real *L, isdb_real *inv_diag, isdb_real *z) {
    int i, j;
    for (i = 0; i < d; ++i) {
        for (j = 0; j < d; ++j) L[i * d + j] = j < i ? isdb_rng_normal(rng) / 4 : (j == i ? 1 + isdb_rng_uniform(rng) : 0);
        inv_diag[i] = 1 / L[i * d + i];
        if (z) z[i] = isdb_rng_normal(rng);
    }
}

/* Forward solve, back solve and V-tilde form of eight lanes against
   isdb__tri_solve and isdb__discounted_width, bit for bit, for every d up
   to 41 (every remainder of the row blocks) and arms repeated in the
   lanes. */
static void check_kernels(const kernels *kn) {
    static isdb_real L[41 * 41], inv_diag[41], Vt[41 * 41], X[8 * 41], W[8 * 41], w[41], u[41];
    isdb_rng rng;
    int d, a, i, m, bad_fwd = 0, bad_back = 0, bad_form = 0;
    isdb_rng_seed(&rng, 11);
    for (d = 1; d <= 41; ++d)
        for (m = 1; m <= 8; m += 3) {
            const isdb_real *rows[8];
            isdb_real q[8] = {0};
            random_factor(&rng, d, L, inv_diag, NULL);
            for (i = 0; i < d * d; ++i) Vt[i] = i % d <= i / d ? isdb_rng_normal(&rng) : 0;
            for (i = 0; i < 8 * d; ++i) X[i] = isdb_rng_normal(&rng);
            isdb__lanes_rows_n(X, d, m, 0, 8, rows);
            kn->fwd(d, L, inv_diag, rows, W);
            for (a = 0; a < 8; ++a) {
                isdb__tri_solve(d, L, inv_diag, 0, rows[a], w);
                for (i = 0; i < d; ++i) bad_fwd += memcmp(&w[i], &W[i * 8 + a], sizeof w[i]) != 0;
            }
            kn->back(d, L, inv_diag, W);
            kn->form(d, Vt, W, q);
            for (a = 0; a < 8; ++a) {
                isdb_real width;
                isdb__tri_solve(d, L, inv_diag, 0, rows[a], w);
                width = isdb__discounted_width(d, L, inv_diag, Vt, w, u);
                for (i = 0; i < d; ++i) bad_back += memcmp(&u[i], &W[i * 8 + a], sizeof u[i]) != 0;
                q[a] = isdb__sqrt(q[a] > 0 ? q[a] : 0);
                bad_form += memcmp(&width, &q[a], sizeof width) != 0;
            }
        }
    CHECK_MSG(bad_fwd == 0, "%s: %d forward-solve entries differ from isdb__tri_solve's", kn->name, bad_fwd);
    CHECK_MSG(bad_back == 0, "%s: %d back-solve entries differ from isdb__tri_solve's", kn->name, bad_back);
    CHECK_MSG(bad_form == 0, "%s: %d V-tilde widths differ from isdb__discounted_width's", kn->name, bad_form);
    printf("%s kernels: the one-arm bits\n", kn->name);
}

/* The forward solve with its two dots (w.z and w.w), as select calls it
   and, where built, the fused AVX2 kernel, against isdb__tri_solve and
   isdb__dot, bit for bit, for every d up to 41. */
typedef void (*fwd_dots_fn)(int, const isdb_real *, const isdb_real *, const isdb_real *const *, isdb_real *,
                            const isdb_real *, isdb_real *, isdb_real *);
static void check_fwd_dots(const char *name, fwd_dots_fn fn) {
    static isdb_real L[41 * 41], inv_diag[41], X[8 * 41], W[8 * 41], z[41], w[41];
    isdb_rng rng;
    int d, a, i, m, bad_w = 0, bad_dots = 0;
    isdb_rng_seed(&rng, 13);
    for (d = 1; d <= 41; ++d)
        for (m = 1; m <= 8; m += 3) {
            const isdb_real *rows[8];
            isdb_real mean[8], norm2[8];
            random_factor(&rng, d, L, inv_diag, z);
            for (i = 0; i < 8 * d; ++i) X[i] = isdb_rng_normal(&rng);
            isdb__lanes_rows_n(X, d, m, 0, 8, rows);
            fn(d, L, inv_diag, rows, W, z, mean, norm2);
            for (a = 0; a < 8; ++a) {
                isdb_real wz, ww;
                isdb__tri_solve(d, L, inv_diag, 0, rows[a], w);
                for (i = 0; i < d; ++i) bad_w += memcmp(&w[i], &W[i * 8 + a], sizeof w[i]) != 0;
                wz = isdb__dot(d, w, z);
                ww = isdb__dot(d, w, w);
                bad_dots += memcmp(&wz, &mean[a], sizeof wz) != 0;
                bad_dots += memcmp(&ww, &norm2[a], sizeof ww) != 0;
            }
        }
    CHECK_MSG(bad_w == 0, "%s: %d forward-solve entries differ from isdb__tri_solve's", name, bad_w);
    CHECK_MSG(bad_dots == 0, "%s: %d dots differ from isdb__dot's", name, bad_dots);
    printf("%s forward solve with dots: the one-arm bits\n", name);
}

/* The sixteen-arm kernels (two blocks of eight lanes, W and W + 8 d),
   where built and the CPU has AVX2: the forward solve with its dots
   against isdb__tri_solve and isdb__dot, then the back solve and V-tilde
   form against isdb__discounted_width, bit for bit, for every d up to 41
   (each remainder of the four-row and two-column passes, the first rows
   taken one a pass) and 1 to 16 real arms (the last repeated in the
   lanes past them). */
static void check_fwd_dots16(void) {
#ifdef ISDB__LANES16_AVX2
    static isdb_real L[41 * 41], inv_diag[41], Vt[41 * 41], X[16 * 41], W[16 * 41], z[41], w[41], u[41];
    isdb_rng rng;
    int d, a, i, m, bad_w = 0, bad_dots = 0, bad_back = 0, bad_form = 0;
    if (!__builtin_cpu_supports("avx2")) return;
    isdb_rng_seed(&rng, 14);
    for (d = 1; d <= 41; ++d)
        for (m = 1; m <= 16; m += d % 2 ? 3 : 4) {
            const isdb_real *rows[16];
            isdb_real mean[16], norm2[16], q[16];
            random_factor(&rng, d, L, inv_diag, z);
            for (i = 0; i < d * d; ++i) Vt[i] = i % d <= i / d ? isdb_rng_normal(&rng) : 0;
            for (i = 0; i < 16 * d; ++i) X[i] = isdb_rng_normal(&rng);
            isdb__lanes_rows_n(X, d, m, 0, 16, rows);
            isdb__lanes16_fwd_solve_dots_avx2(d, L, inv_diag, rows, W, z, mean, norm2);
            for (a = 0; a < 16; ++a) {
                const isdb_real *block = W + (a / 8) * 8 * d;
                isdb_real wz, ww;
                isdb__tri_solve(d, L, inv_diag, 0, rows[a], w);
                for (i = 0; i < d; ++i) bad_w += memcmp(&w[i], &block[i * 8 + a % 8], sizeof w[i]) != 0;
                wz = isdb__dot(d, w, z);
                ww = isdb__dot(d, w, w);
                bad_dots += memcmp(&wz, &mean[a], sizeof wz) != 0;
                bad_dots += memcmp(&ww, &norm2[a], sizeof ww) != 0;
            }
            isdb__lanes16_back_solve_avx2(d, L, inv_diag, W);
            isdb__lanes16_sym_form_avx2(d, Vt, W, q);
            for (a = 0; a < 16; ++a) {
                const isdb_real *block = W + (a / 8) * 8 * d;
                isdb_real width;
                isdb__tri_solve(d, L, inv_diag, 0, rows[a], w);
                width = isdb__discounted_width(d, L, inv_diag, Vt, w, u);
                for (i = 0; i < d; ++i) bad_back += memcmp(&u[i], &block[i * 8 + a % 8], sizeof u[i]) != 0;
                q[a] = isdb__sqrt(q[a] > 0 ? q[a] : 0);
                bad_form += memcmp(&width, &q[a], sizeof width) != 0;
            }
        }
    CHECK_MSG(bad_w == 0, "sixteen arms: %d forward-solve entries differ from isdb__tri_solve's", bad_w);
    CHECK_MSG(bad_dots == 0, "sixteen arms: %d dots differ from isdb__dot's", bad_dots);
    CHECK_MSG(bad_back == 0, "sixteen arms: %d back-solve entries differ from isdb__tri_solve's", bad_back);
    CHECK_MSG(bad_form == 0, "sixteen arms: %d V-tilde widths differ from isdb__discounted_width's", bad_form);
    printf("AVX2 sixteen-arm kernels: the one-arm bits\n");
#endif
}

/* The scores as select computes them (isdb__ridge_ucb_all and
   isdb__discounted_ucb_all: sixteen arms a pass where that kernel runs,
   then eight, four, or one to three) against the one-arm routines, bit
   for bit, for 1 to 41 arms (every remainder of sixteen and of eight) at
   d on both sides of ISDB__AVX2_MIN_N and of each pass size. */
static void check_ucb_all(void) {
    static const int dims[] = {1, 3, 8, 15, 16, 17, 18, 19, 24, 41};
    static isdb_real L[41 * 41], inv_diag[41], Vt[41 * 41], X[41 * 41], z[41], block[16 * 41], out[41], w[41], u[41];
    isdb_rng rng;
    int t, d, n_arms, a, i, bad_ridge = 0, bad_disc = 0, bad_best = 0;
    const isdb_real beta = (isdb_real)1.7;
    isdb_rng_seed(&rng, 15);
    for (t = 0; t < (int)(sizeof dims / sizeof dims[0]); ++t)
        for (n_arms = 1; n_arms <= 41; ++n_arms) {
            isdb__ridge r;
            int best, best_ref = 0;
            isdb_real best_value = 0;
            d = dims[t];
            random_factor(&rng, d, L, inv_diag, z);
            for (i = 0; i < d * d; ++i)
                Vt[i] = i % d < i / d ? isdb_rng_normal(&rng) / 8 : (i % d == i / d ? 1 + isdb_rng_uniform(&rng) : 0);
            for (i = 0; i < n_arms * d; ++i) X[i] = isdb_rng_normal(&rng);
            memset(&r, 0, sizeof r);
            r.d = d;
            r.L = L;
            r.inv_diag = inv_diag;
            r.z = z;
            r.block = block;
            best = isdb__ridge_ucb_all(&r, X, n_arms, beta, out);
            for (a = 0; a < n_arms; ++a) {
                isdb_real v;
                isdb__tri_solve(d, L, inv_diag, 0, X + a * d, w);
                v = isdb__dot(d, w, z) + beta * isdb__sqrt(isdb__dot(d, w, w));
                bad_ridge += memcmp(&v, &out[a], sizeof v) != 0;
                if (a == 0 || v > best_value) {
                    best_value = v;
                    best_ref = a;
                }
            }
            bad_best += best != best_ref;
            best = isdb__discounted_ucb_all(d, L, inv_diag, z, Vt, block, X, n_arms, beta, out);
            for (a = 0; a < n_arms; ++a) {
                isdb_real v;
                isdb__tri_solve(d, L, inv_diag, 0, X + a * d, w);
                v = isdb__dot(d, w, z) + beta * isdb__discounted_width(d, L, inv_diag, Vt, w, u);
                bad_disc += memcmp(&v, &out[a], sizeof v) != 0;
                if (a == 0 || v > best_value) {
                    best_value = v;
                    best_ref = a;
                }
            }
            bad_best += best != best_ref;
        }
    CHECK_MSG(bad_ridge == 0, "%d ridge scores differ from the one-arm routines'", bad_ridge);
    CHECK_MSG(bad_disc == 0, "%d discounted scores differ from the one-arm routines'", bad_disc);
    CHECK_MSG(bad_best == 0, "%d selects differ from the one-arm routines' first best arm", bad_best);
    printf("select's scores, 1 to 41 arms: the one-arm bits\n");
}

#if !ISDB_REAL_IS_FLOAT && ISDB__HAS_ISD
/* ISD's interleaving pass with its three sums (beta_inv and two residual
   coordinates), the dispatched one and each variant, against the arms'
   values and isdb__dot, bit for bit, for d up to 41 and m arms (the last
   repeated in the lanes past m). */
static void check_isd_gather(void) {
    static double X[8 * 41], w3[3 * 41], B[8 * 41], o[3][8];
    double *out[3];
    const double *w[3];
    isdb_rng rng;
    int d, m, a, r, j, variant, bad_b = 0, bad_dot = 0;
    isdb_rng_seed(&rng, 12);
    for (r = 0; r < 3; ++r) out[r] = o[r];
    for (d = 1; d <= 41; ++d)
        for (m = 1; m <= 8; m += 3)
            for (variant = 0; variant < 3; ++variant) {
                for (j = 0; j < 8 * d; ++j) X[j] = isdb_rng_normal(&rng);
                for (j = 0; j < 3 * d; ++j) w3[j] = isdb_rng_normal(&rng);
                for (r = 0; r < 3; ++r) w[r] = w3 + r * d;
                if (variant == 0) {
                    isdb__isd_gather(d, X, m, w, B, out);
                } else if (variant == 1) {
                    isdb__isd_interleave(d, X, m, w[0], B, o[0]);
                    isdb__isd_lanes_dot2(d, B, w[1], w[2], o[1], o[2]);
                } else {
#ifdef ISDB__AVX2
                    const double *x[8];
                    if (!__builtin_cpu_supports("avx2")) continue;
                    for (a = 0; a < 8; ++a) x[a] = X + (a < m ? a : m - 1) * d;
                    isdb__isd_gather_avx2(d, x, w, B, out);
#else
                    continue;
#endif
                }
                for (a = 0; a < 8; ++a) {
                    const double *xa = X + (a < m ? a : m - 1) * d;
                    for (j = 0; j < d; ++j) bad_b += memcmp(&B[j * 8 + a], &xa[j], sizeof xa[j]) != 0;
                    for (r = 0; r < 3; ++r) {
                        double v = isdb__dot(d, xa, w[r]);
                        bad_dot += memcmp(&v, &o[r][a], sizeof v) != 0;
                    }
                }
            }
    CHECK_MSG(bad_b == 0, "ISD's interleave: %d entries differ from the arms'", bad_b);
    CHECK_MSG(bad_dot == 0, "ISD's interleaved sums: %d differ from isdb__dot's", bad_dot);
    printf("ISD's interleaving pass: the one-arm bits\n");
}
#endif

int main(void) {
    static const kernels called = {"select's", isdb__lanes8_fwd_solve, isdb__lanes8_back_solve, isdb__lanes8_sym_form};
    check_kernels(&called);
#ifdef ISDB__VEC_LANES
    {
        static const kernels v16 = {"16-byte", isdb__lanes8_fwd_solve_v, isdb__lanes8_back_solve_v,
                                    isdb__lanes8_sym_form_v};
        check_kernels(&v16);
    }
#endif
#ifdef ISDB__AVX2
    if (__builtin_cpu_supports("avx2")) {
        static const kernels v32 = {"AVX2", isdb__lanes8_fwd_solve_avx2, isdb__lanes8_back_solve_avx2,
                                    isdb__lanes8_sym_form_avx2};
        check_kernels(&v32);
    }
#endif
    check_fwd_dots("select's", isdb__lanes8_fwd_solve_dots);
#ifdef ISDB__FUSED_DOTS_AVX2
    if (__builtin_cpu_supports("avx2")) check_fwd_dots("AVX2 fused", isdb__lanes8_fwd_solve_dots_avx2);
#endif
    check_fwd_dots16();
    check_ucb_all();
#if !ISDB_REAL_IS_FLOAT && ISDB__HAS_ISD
    check_isd_gather();
#endif
    return test_report();
}

/* isdbandit.h - v0.1.0 - non-stationary linear bandits in one C99 header -
   MIT or public domain (Unlicense), see the end of the file.

   Do this:
      #define ISDB_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the
   implementation. Every other file includes it plainly:

      #include ...
      #define ISDB_IMPLEMENTATION
      #include "isdbandit.h"

   The library needs libc and libm only (link with -lm).

   CONTENTS
      1. Documentation (this block): options, quick start, conventions,
         one block per policy, history.
      2. Public declarations: version, results, allocator, random numbers,
         dense linear algebra, joint block diagonalization, the policy
         interface, the policies,
         simulation environments and the regret harness.
      3. Implementation (only with ISDB_IMPLEMENTATION).
      4. License.

   COMPILE-TIME OPTIONS (define before including)
      ISDB_STATIC          make every function static; define it in the
                           translation unit that also defines
                           ISDB_IMPLEMENTATION (private copy of the library).
      ISDB_ASSERT(x)       assertion for programmer errors (default: assert).
                           Bad numbers never assert: they return a code.
      ISDB_MALLOC(n)       allocation used when no isdb_allocator is given
      ISDB_FREE(p)         (default malloc and free). Define both or neither.
      ISDB_NO_SIM          leave out the simulation environments and the
                           regret harness.

   QUICK START
      isdb_linucb pol;
      isdb_linucb_config cfg = isdb_linucb_config_init(d, n_arms);
      cfg.lambda = 0.5;                          change any field you need
      if (isdb_linucb_init(&cfg, NULL, &pol) != ISDB_OK) ...
      for (t = 0; t < T; ++t) {
          int arm;
          isdb_policy_select(&pol.base, X, n_arms, &arm);   X: n_arms x d
          reward = play(arm);
          isdb_policy_update(&pol.base, arm, X + arm * d, reward);
      }
      isdb_policy_uninit(&pol.base);

   Every policy works behind the same generic functions (isdb_policy_*),
   which take the policy's first member, `base`.

   CONVENTIONS
      Numbers     double everywhere; there is no float switch. Matrices are
                  dense and row-major: element (i, j) of an m x n matrix A is
                  A[i*n + j]. A K x d action matrix holds one arm per row.
      Results     functions that can fail return isdb_result: 0 is ISDB_OK,
                  positive values are success with a caveat, negative values
                  are errors (isdb_result_string names each).
      Bad input   a NaN or Inf, a number above ISDB_INPUT_MAX in magnitude,
                  a wrong arm index, a NULL pointer or a bad size returns an
                  error and leaves the object exactly as it was. Nothing in
                  this library calls abort on bad data.
      Aliasing    each linear-algebra routine says which arguments may alias.
      Memory      all memory of an object is one block taken at init; its
                  size is reported by isdb_X_heap_size, and
                  isdb_X_init_preallocated takes a caller buffer instead of
                  allocating. select, update, scores and probs never
                  allocate. Objects must not be copied or moved after init
                  (they point into their block).
      Threads     no global mutable state: distinct objects may be used from
                  distinct threads; one object needs external locking.
      Randomness  every randomized object owns an isdb_rng (xoshiro256**
                  seeded by splitmix64) seeded from its config. The same
                  seed and the same inputs give the same outputs on every
                  compiler and optimisation level, provided floating-point
                  contraction is off (-ffp-contract=off; never -ffast-math):
                  every reduction runs in a fixed order.
      Ties        the lowest arm index wins, unless a policy says otherwise.
      Snapshots   isdb_policy_save writes the whole state, RNG included, in
                  a versioned little-endian byte format (see SNAPSHOT FORMAT
                  below); a run that is saved, loaded and continued makes
                  bit-for-bit the same choices as one that never stopped.

   THE POLICY INTERFACE
      isdb_policy_select(p, X, n_arms, &arm)   arm to play; X is n_arms x d
      isdb_policy_update(p, arm, x, reward)    x: the features played
      isdb_policy_scores(p, X, n_arms, out)    each arm's index, no state change
      isdb_policy_probs (p, X, n_arms, out)    probability select picks each arm
      isdb_policy_save / load / reset / uninit / name
   `update` takes the feature vector, so a caller may report an action it
   chose itself, or report late (delayed rewards): the policy learns from
   (x, reward) whatever it selected. `arm` is checked against the config's
   max_arms and otherwise only recorded.

   LINUCB (isdb_linucb): OFUL, Abbasi-Yadkori, Pal, Szepesvari, NeurIPS 2011;
   with ISDB_WIDTH_CONSTANT it is LinUCB of Li, Chu, Langford, Schapire 2010.
      Ridge estimate theta = V^-1 b, V = lambda I + sum x x^T, b = sum r x.
      Plays argmax_x x.theta + alpha * beta_n * ||x||_{V^-1}, n = updates so
      far, with beta_n one of (R noise scale, S >= ||theta||, L >= ||x||):
        ISDB_WIDTH_LOGDET   R sqrt(2 ln(1/delta) + ln det V - d ln lambda)
                            + sqrt(lambda) S                (Thm 2; default)
        ISDB_WIDTH_DETTRACE R sqrt(2 ln(1/delta) + d ln(1 + n L^2/(d lambda)))
                            + sqrt(lambda) S
        ISDB_WIDTH_SIMPLE   R sqrt(d ln((1 + n L^2/lambda)/delta))
                            + sqrt(lambda) S
        ISDB_WIDTH_CONSTANT 1 (so the width is alpha, as in Li et al.)
      Defaults: lambda 1, delta 0.01, R 1, S 1, L 1, alpha 1, LOGDET.
      Cost: select O(K d^2) (one triangular solve per arm); update O(d^2)
      (Cholesky rank-one update, two triangular solves), plus one
      refactorisation of the exact Gram sum every `refresh` updates
      (default d, so O(d^2) amortised). Memory 3 d^2 + O(d) doubles.

   SW-UCB (isdb_swucb): Cheung, Simchi-Levi, Zhu, AISTATS 2019, Algorithm 1.
      Ridge regression on the last `window` observations only. Width of
      their eq. 5, constant in t: beta = R sqrt(d ln((1 + w L^2/lambda)/delta))
      + sqrt(lambda) S (ISDB_WIDTH_SIMPLE with n = w, the default); DETTRACE
      uses n = min(w, t) as in the public SW-LinUCB code of Russac et al.;
      LOGDET uses the window's Gram matrix. The paper's proofs use
      delta = 1/T; the default is 0.01 because T is not known here.
      The window is exact: each update adds the new observation and removes
      the one that leaves the window by a Cholesky update and a checked
      downdate (O(d^2), whatever the window length). A downdate that would
      lose more than half the digits (1 - ||L^-1 z||^2 <= sqrt(eps)) is
      refused, and the factor and b are rebuilt exactly from the stored
      window (O(w d^2 + d^3)); they are also rebuilt every `refresh`
      updates (default max(w, d), so O(d^2) amortised), which removes the
      drift of the running sums. isdb_swucb_tuned_window gives the paper's
      window sizes. Note: the T^(2/3) regret of the revised paper holds under
      its Assumption 1 (arms along orthogonal directions, e.g. K-armed);
      Zhao et al. (2020) showed the original general-case argument flawed.
      Memory 2 d^2 + w (d + 1) + O(d) doubles.

   D-LINUCB (isdb_dlinucb): Russac, Vernade, Cappe, NeurIPS 2019, Algorithm 1.
      V <- gamma V + a a^T + (1 - gamma) lambda I,
      Vt <- gamma^2 Vt + a a^T + (1 - gamma^2) lambda I,  b <- gamma b + r a,
      theta = V^-1 b; plays argmax a.theta + alpha beta ||V^-1 a||_Vt with
      beta_n = sqrt(lambda) S + sigma sqrt(2 ln(1/delta)
               + d ln(1 + L^2 (1 - gamma^(2n)) / (lambda d (1 - gamma^2)))).
      1 - gamma^2 and 1 - gamma^(2n) are computed without cancellation.
      The Vt recursion is the paper's, not the one of the authors' public
      code (which multiplies the updated V, not the previous Vt, by gamma^2).
      The (1 - gamma) lambda I term makes the update full rank, so V is
      refactorised every update: update O(d^3), select O(K d^2).
      isdb_dlinucb_tuned_gamma gives gamma = 1 - (B_T/(d T))^(2/3).
      Memory 5 d^2 + O(d) doubles.

   LINTS (isdb_lints): linear Thompson sampling, Agrawal and Goyal, ICML 2013.
      Samples theta~ ~ N(theta, v^2 V^-1) and plays argmax x.theta~ with
        ISDB_LINTS_THEORY  v = R sqrt(24/epsilon d ln(1/delta)) (the paper's
                           inflation; default, epsilon 0.5, delta 0.01)
        ISDB_LINTS_NONE    v = R (plain posterior sampling, common practice)
      lambda defaults to 1 (the paper's B = I). select draws d standard
      normals from the policy's generator; probs and scores estimate the
      selection probabilities by `mc_samples` draws from a copy of the
      generator, so they do not change the state. Cost: select O(d^2 + K d),
      update O(d^2). Memory as LinUCB.

   [doc:bob]

   ISD-LINUCB (isdb_isd): Lazzaretto, Peters, Pfister, "Invariance-based
   dynamic regret minimization", arXiv 2603.03843 (2026), Algorithm 1.
      The parameter is split as gamma_t = beta_inv + delta_t with beta_inv
      in an invariant subspace S_inv (never changes) and delta_t in its
      orthogonal complement S_res, the two parts of the features being
      uncorrelated. Offline (at init; again at every recompute): the
      decomposition U = [U_inv U_res] and beta_inv are fitted to logged
      rows (X0, R0) by isdb_isd_estimate (JBD of window covariances, an
      invariance statistic per block, cross-validation; see the JBD and
      ISD declarations), or given (oracle = 1: U_inv, and beta_inv or eq. 6
      on the log). beta_inv is OLS inside S_inv (eq. 6, no ridge), with
      Sigma_beta = U_inv^T X^T X U_inv. Online, round t: ridge regression
      of r = y - x.beta_inv on z = U_res^T x (lambda I + sum z z^T), delta =
      U_res V^-1 b, and every arm scored
        PAPER  x.(beta_inv + delta) + r_inv ||U_inv^T x||_{Sigma_beta^-1}
                                    + r_res ||U_res^T x||_{V^-1}
               (the support function of the Minkowski sum of the two
               confidence sets), with eqs. 25 and 30 read as NORM radii
               (the paper's eq. 7 writes ||.||^2 <= rho, its proofs use rho
               as a norm bound; we use the norm reading):
               r_inv = sigma sqrt(max(0, 2 ln(1/eta) + p_inv ln(L^2 /
                       (p_inv l0)))) + 2 L^2 M sqrt(2/l0 ln((p_inv + 1)/eta))
                       + sqrt(p_inv n) DPi L M + sqrt(n/l0) DPi L^2 M,
               r_res = OFUL's det-trace radius in p_res dimensions at eta/2
                       + L M DPi sqrt(p_res t)
                       + L (r_inv / sqrt(l0 n) + M DPi) sqrt(p_res t),
               n the rows of the fit, l0 = lambda_min(X^T X / n), t the
               residual rows (min(w, t) with a window, (1 - g^2t)/(1 - g^2)
               with discounting), DPi the subspace error: 0 with an oracle
               subspace, else delta_pi or the plug-in sqrt(lambda_max(X^T X
               / n) ln(2 d / eta) / n). Oracle beta_inv: r_inv = 0, eta
               unsplit (Theorem 1).
        CODE   x.(beta_inv + delta) + alpha_t sqrt(||.||^2_{Sigma_beta^-1}
               + ||.||^2_{V^-1}), alpha_t = M (p_res/d) sqrt(lambda) +
               sqrt(2 ln(1/eta) + p_inv ln(1 + 1/(p_inv lambda_min(
               Sigma_beta))) + p_res ln(1 + t/(lambda p_res))): what the
               authors' experiments ran (they also use the ridge lambda
               p_res/d; set lambda accordingly to match).
        FIXED  the same joint ellipsoid with the constant alpha.
      alpha multiplies PAPER and CODE widths. The residual learner is
      LinUCB (all online rows; the paper), a sliding window of w rows
      (exact: rank-one update and checked downdate, rebuilt from the kept
      rows on refusal and every `refresh`), or discounting by gamma with
      D-LinUCB's V-tilde width ||V^-1 z||_Vt (the two non-stationary
      variants the paper names without analysing). p_inv = 0: beta_inv = 0
      and, with U = I (oracle, or a fallback), the policy is LinUCB with
      the det-trace width, bit for bit. p_res = 0: no online learning; the
      score is x.beta_inv plus the invariant width (force_residual in the
      estimator keeps p_res >= 1 instead, as the paper requires p_inv < d).
      Recompute (recompute_every = W > 0): every W updates the kept online
      rows (history, a ring of the last rows) join the offline rows, the
      decomposition and beta_inv are refitted (in oracle mode beta_inv
      only) and the residual learner is rebuilt from the kept rows under
      the new basis; a failed refit keeps the old one (counted).
      Invariance monitor (OUR EXTENSION, not in the paper): every
      monitor_every updates, on the last monitor_window rows, an F test of
      whether the d coordinates explain y - x.beta_inv better than the
      p_res residual coordinates alone: F = ((RSS_res - RSS_all)/p_inv) /
      (RSS_all/(n - d)) against its 1 - monitor_level quantile (exact under
      Gaussian noise, a right beta_inv and a residual part constant over the
      window). An alarm means the invariant part no longer explains the
      data: FALLBACK switches to all d dimensions (U = I, beta_inv = 0, a
      fresh residual learner, i.e. LinUCB / SW / D-LinUCB in full); RECOMPUTE
      refits first and falls back on a second alarm before the next
      scheduled recompute.
      Defaults: estimated mode, LinUCB residual learner, PAPER widths,
      lambda 1, eta 0.01, sigma = L = M = 1, alpha 1, no recompute, no
      monitor; window 100, gamma 0.99 when chosen. The estimator's
      defaults are the authors' (25 windows of n/8 rows, 10 folds, 2 d
      adaptation rows) except three documented choices: Jacobi angles
      (U-WEDGE available), per-pair correlations for block detection (the
      code's Frobenius scale available) and a paired one-standard-error
      rule (the code's unpaired one available); no intercept (eq. 6; the
      code's intercept available).
      Cost per round: select O(K d (1 + p_res) + K p_res^2), plus O(K d
      p_inv) when beta_inv is estimated (its width); update O(d p_res +
      p_res^2) (LinUCB, window; refactorisation every p_res updates, window
      rebuilds O(w p_res^2) every max(w, p_res)), O(d p_res + p_res^3) for
      discounting. A recompute costs one isdb_isd_estimate on n0 + history
      rows: O(n d^2) for the covariances and Gram matrices, O(sweeps m d^3)
      for the JBD, O(|candidates| n (d p_res + p_res^3)) for the
      cross-validation (about 10 ms at d = 10, n = 8000 here). The monitor
      adds O(monitor_window d^2 + d^3) per test. Memory (doubles): (n0 + H)
      (d + 1) for the rows (H = history), H (d + 1) for the ring, 15 d^2
      for three decompositions and the learner (+ 4 d^2 discounting), and a
      scratch of 8 d^2 or, in estimated mode, the estimator's workspace if
      larger (about (2 m + k + 12) d^2 + n + F d for m windows and k folds
      of F rows).

   [doc:opkb]

   [doc:oam]

   [doc:traceucb]

   SNAPSHOT FORMAT (version 1; all integers little-endian)
      offset 0   4 bytes  "ISDB"
      offset 4   u32      format version (1)
      offset 8   u32      policy kind (isdb_policy_kind)
      offset 12  u32      library version, major << 16 | minor << 8 | patch
      offset 16  u64      total size in bytes, this header and checksum included
      offset 24  ...      the config, then the state: doubles as IEEE-754
                          binary64 bit patterns (u64), integers as i32 or u64,
                          in an order fixed by the config alone
      last 8     u64      FNV-1a 64 hash of every byte before it
      load rejects (ISDB_ERR_FORMAT, object unchanged) a wrong magic,
      version, kind, size or checksum, a config different from the
      object's own, and any state value out of range or not finite.

   HISTORY
      0.1.0  first release: linear algebra, LinUCB/OFUL, SW-UCB, D-LinUCB,
             LinTS, linear environments and the regret harness.
*/

#ifndef ISDBANDIT_H
#define ISDBANDIT_H

#include <stddef.h>
#include <stdint.h>

#define ISDB_VERSION_MAJOR 0
#define ISDB_VERSION_MINOR 1
#define ISDB_VERSION_PATCH 0
#define ISDB_VERSION_STRING "0.1.0"

#ifndef ISDB_API
#ifdef ISDB_STATIC
#if defined(__GNUC__) || defined(__clang__)
#define ISDB_API static __attribute__((unused))
#else
#define ISDB_API static
#endif
#else
#define ISDB_API extern
#endif
#endif

/* Largest magnitude accepted for a feature or a reward. Bounding inputs
   bounds every sum a policy keeps, so no update can overflow. */
#define ISDB_INPUT_MAX 1e64
/* Largest feature dimension: d * d must fit in an int index. */
#define ISDB_MAX_DIM 16384

#ifdef __cplusplus
extern "C" {
#endif

ISDB_API const char *isdb_version(void);

/* ---------------------------------------------------------------------------
   Results
   ------------------------------------------------------------------------ */

#define ISDB_RESULT_LIST(X)                                                        \
    X(ISDB_OK, 0, "success")                                                       \
    X(ISDB_MAXITER_REACHED, 1, "iteration limit reached; the result is usable")    \
    X(ISDB_ERR_INVALID_ARG, -1, "invalid argument")                                \
    X(ISDB_ERR_OUT_OF_MEMORY, -2, "out of memory")                                 \
    X(ISDB_ERR_NOT_SPD, -3, "matrix is not (numerically) positive definite")       \
    X(ISDB_ERR_SINGULAR, -4, "matrix is (numerically) singular")                   \
    X(ISDB_ERR_NONFINITE, -5, "NaN or infinity in the input or the result")        \
    X(ISDB_ERR_RANGE, -6, "number larger in magnitude than ISDB_INPUT_MAX")        \
    X(ISDB_ERR_BAD_STATE, -7, "operation not valid in the object's current state") \
    X(ISDB_ERR_BUFFER_TOO_SMALL, -8, "buffer too small")                           \
    X(ISDB_ERR_FORMAT, -9, "snapshot malformed, corrupt, or from another policy, config or version")

#define ISDB__RESULT_ENUM(name, value, text) name = value,
typedef enum isdb_result { ISDB_RESULT_LIST(ISDB__RESULT_ENUM) ISDB__RESULT_FORCE_INT = 0x7fffffff } isdb_result;
#undef ISDB__RESULT_ENUM

/* Text for a result code; "unknown result" for values not in the list. */
ISDB_API const char *isdb_result_string(isdb_result r);

/* ---------------------------------------------------------------------------
   Allocator. NULL wherever an allocator is asked for means ISDB_MALLOC and
   ISDB_FREE. Both functions must be given; the object keeps a copy, so
   uninit needs nothing else.
   ------------------------------------------------------------------------ */

typedef struct isdb_allocator {
    void *(*alloc_fn)(size_t size, void *user);
    void (*free_fn)(void *ptr, void *user);
    void *user;
} isdb_allocator;

/* ---------------------------------------------------------------------------
   Random numbers: xoshiro256** (Blackman and Vigna 2018), its four words
   of state filled by four successive outputs of splitmix64 started at the
   seed. The stream is the sequence of isdb_rng_next outputs:
     uniform  (next >> 11) * 2^-53, in [0, 1);
     normal   Marsaglia's polar method on pairs of uniforms mapped to
              [-1, 1); the second value of each pair is kept for the next
              call (has_spare);
     below(n) next mod n, rejecting outputs below 2^64 mod n (unbiased).
   ------------------------------------------------------------------------ */

typedef struct isdb_rng {
    uint64_t s[4];
    double spare;
    int has_spare;
} isdb_rng;

ISDB_API void isdb_rng_seed(isdb_rng *rng, uint64_t seed);
ISDB_API uint64_t isdb_rng_next(isdb_rng *rng);
ISDB_API double isdb_rng_uniform(isdb_rng *rng);
ISDB_API double isdb_rng_normal(isdb_rng *rng);
/* Uniform integer in [0, n); 0 when n is 0. */
ISDB_API uint64_t isdb_rng_below(isdb_rng *rng, uint64_t n);
/* Uniform integer in [lo, hi] (inclusive); lo when hi < lo. */
ISDB_API int isdb_rng_int(isdb_rng *rng, int lo, int hi);

/* ---------------------------------------------------------------------------
   Dense linear algebra. Square matrices are n x n, row-major, contiguous.
   "Lower factor" means a lower-triangular L whose strict upper triangle is
   zero. Routines that take `work` state its size in doubles (the
   isdb_*_work_size helpers). None allocates.
   ------------------------------------------------------------------------ */

/* Cholesky factorisation A = L L^T, in place. Reads the lower triangle of A
   (A is taken as symmetric) and overwrites A with the lower factor L.
   Fails with ISDB_ERR_NONFINITE if the lower triangle holds a NaN or Inf,
   and ISDB_ERR_NOT_SPD if a pivot is not above DBL_EPSILON times its
   original diagonal entry (condition number beyond about 1e15). On failure
   the contents of A are unspecified. */
ISDB_API isdb_result isdb_chol(int n, double *A);
/* Solves L L^T x = b. x may alias b. */
ISDB_API void isdb_chol_solve(int n, const double *L, const double *b, double *x);
/* ln det(L L^T) = 2 sum ln L_ii. */
ISDB_API double isdb_chol_logdet(int n, const double *L);
/* Triangular solve with a lower factor: L x = b (trans 0) or L^T x = b
   (trans 1). x may alias b. */
ISDB_API void isdb_tri_solve(int n, const double *L, int trans, const double *b, double *x);
/* Rank-one update: L becomes the factor of L L^T + x x^T (Givens rotations,
   O(n^2)). work: isdb_chol_update_work_size(n) doubles; x is not changed.
   Fails with ISDB_ERR_NONFINITE (L unspecified) only if the result
   overflows. */
ISDB_API isdb_result isdb_chol_update(int n, double *L, const double *x, double *work);
/* Rank-one downdate: L becomes the factor of L L^T - x x^T. The result is
   positive definite iff r = 1 - ||L^-1 x||^2 > 0, and r is the ratio of
   the determinants after and before; a downdate with r <= sqrt(DBL_EPSILON)
   would lose more than half the significant digits and is refused with
   ISDB_ERR_NOT_SPD, leaving L unchanged. O(n^2). */
ISDB_API isdb_result isdb_chol_downdate(int n, double *L, const double *x, double *work);
ISDB_API size_t isdb_chol_update_work_size(int n);

/* Symmetric eigendecomposition by cyclic Jacobi rotations: A = V diag(w) V^T.
   Reads the lower triangle of A and destroys A. w (n) receives the
   eigenvalues in ascending order, V (n x n) the orthonormal eigenvectors as
   columns (V[i*n + k] is component i of eigenvector k). Returns
   ISDB_MAXITER_REACHED if 100 sweeps did not bring the off-diagonal mass
   below DBL_EPSILON times the norm of A (the result is still usable). */
ISDB_API isdb_result isdb_sym_eig(int n, double *A, double *w, double *V);

/* Householder QR of the m x n matrix A (any m, n >= 1): A = Q R. On return
   A holds R (m x n, zero below the diagonal) and Q, if not NULL, the m x m
   orthogonal factor. Q must not alias A. work: isdb_qr_work_size(m, n). */
ISDB_API isdb_result isdb_qr(int m, int n, double *A, double *Q, double *work);
ISDB_API size_t isdb_qr_work_size(int m, int n);

/* Orthonormal basis of the column span of the m x n matrix A, by QR with
   column pivoting. Q (m x m) receives an orthogonal matrix whose first
   *rank columns span the columns of A and whose other m - *rank columns
   span the orthogonal complement. The rank counts the pivots |R_kk| above
   rtol |R_00| (rtol <= 0 means max(m, n) DBL_EPSILON); a zero matrix has
   rank 0. A is not changed. work: isdb_orth_basis_work_size(m, n). */
ISDB_API isdb_result isdb_orth_basis(int m, int n, const double *A, double rtol, double *Q, int *rank,
                                     double *work);
ISDB_API size_t isdb_orth_basis_work_size(int m, int n);

/* LU factorisation with partial pivoting, P A = L U, in place: A receives
   the unit lower L (below the diagonal) and U; piv[k] is the row swapped
   with row k at step k. ISDB_ERR_SINGULAR if a pivot is below n
   DBL_EPSILON times the largest entry of A (A is then unspecified). */
ISDB_API isdb_result isdb_lu(int n, double *A, int *piv);
/* Solves A X = B for the n x nrhs matrix B (row-major), in place. */
ISDB_API void isdb_lu_solve(int n, const double *LU, const int *piv, int nrhs, double *B);

/* Orthogonal polar factor: the orthogonal Q nearest to A (A = Q P with P
   symmetric positive definite), from a one-sided Jacobi SVD A = U S W^T as
   Q = U W^T. ISDB_ERR_SINGULAR if the smallest singular value is below
   n DBL_EPSILON times the largest (the polar factor is then not unique).
   Q may alias A. work: isdb_polar_work_size(n). */
ISDB_API isdb_result isdb_polar(int n, const double *A, double *Q, double *work);
ISDB_API size_t isdb_polar_work_size(int n);

/* ---------------------------------------------------------------------------
   Joint block diagonalization (JBD). Given m symmetric p x p matrices
   C_1..C_m (stored one after the other, m p^2 doubles), find an orthogonal
   U (p x p, the basis vectors as COLUMNS) and a partition of its columns
   into contiguous blocks such that every U^T C_k U is (approximately) block
   diagonal. Two steps:
   1. An orthogonal approximate joint diagonalizer, starting from the
      eigenvectors of C_1:
        ISDB_JBD_JACOBI  Jacobi angles (Cardoso and Souloumiac 1996): sweeps
                         of plane rotations, each optimal for its pair of
                         columns, minimising sum_k ||off(U^T C_k U)||_F^2;
                         monotone, always defined, no solve. Stops after a
                         sweep without a rotation of |sin| > tol.
        ISDB_JBD_UWEDGE  U-WEDGE (Tichavsky and Yeredor 2009, uniform
                         weights) projected back onto the orthogonal
                         matrices after every step by the polar factor, as
                         in the code of Lazzaretto et al. Each step fits
                         S_k[i,j] ~ A_ij d_k[j] + A_ji d_k[i] (d_k the
                         diagonal of S_k = U^T C_k U) pair by pair, skips a
                         pair whose 2 x 2 determinant is below 1e-12
                         G_ii G_jj (a relative guard; the reference code
                         only guards an exact zero), solves with A by LU
                         and takes the polar factor. Stops when no entry of
                         U moves by tol or more. It fits a non-orthogonal
                         model, so it does not minimise the objective above
                         (and in our tests is about twice as far from the
                         true subspaces as Jacobi on the same data).
   2. Block detection for a threshold tau: D_ij measures how strongly
      columns i and j are coupled in some S_k = U^T C_k U (see
      isdb_jbd_scale); they are joined when D_ij > tau (strict); the
      blocks are the connected components, found from the
      lowest unassigned column, each member pulling in its unassigned
      neighbours strongest first; U's columns are then permuted so that
      every block is contiguous, in order of discovery. tau = 1 always
      gives p singletons.
   tau is either given or chosen from {0.01, 0.025, 0.05, 0.075, 0.1, 0.25,
   0.5, 0.75, 1} as the first minimiser of
        crit(tau) = off(tau) + lbar * sum_b s_b^2 / p^2,
   where s_b are the block sizes, lbar = mean_k lambda_min(C_k), and
   off(tau) = mean_k ||C_k||_F for a single block, otherwise
   sum_k ||O_k||_1 / (m (p^2 - sum_b s_b^2)) with O_k the off-block part of
   U^T C_k U. ||.||_1 is by default the largest absolute column sum
   (numpy's matrix 1-norm, as in the authors' code, kept for fidelity; an
   entrywise sum was probably meant and is an option, isdb_jbd_offnorm).
   Only block subspaces are identified: the order of the blocks, signs and
   rotations within a block are arbitrary; compare projectors, not U.
   Cost: step 1 O(iterations m p^3); the criterion adds m eigenvalue
   problems of size p and O(9 m p^2). Nothing allocates.
   ------------------------------------------------------------------------ */

typedef enum isdb_jbd_method {
    ISDB_JBD_JACOBI = 0,
    ISDB_JBD_UWEDGE = 1,
    ISDB__JBD_FORCE_INT = 0x7fffffff
} isdb_jbd_method;

/* How the block detection compares entries (step 2):
     ISDB_JBD_SCALE_FROBENIUS    D_ij = max_k |S_k[i,j]| over ||D||_F, the
                                 diagonal included (the authors' code);
     ISDB_JBD_SCALE_CORRELATION  D_ij = max_k |S_k[i,j]| / sqrt(S_k[i,i]
                                 S_k[j,j]), the largest correlation of the
                                 two coordinates over the matrices (ours:
                                 scale-free per pair; with the Frobenius
                                 scale a large block, whose inner entries the
                                 diagonalizer makes small, is often split;
                                 see the README for the measured rates). */
typedef enum isdb_jbd_scale {
    ISDB_JBD_SCALE_CORRELATION = 0,
    ISDB_JBD_SCALE_FROBENIUS = 1,
    ISDB__JBD_SCALE_FORCE_INT = 0x7fffffff
} isdb_jbd_scale;

/* The norm of O_k in the criterion's off term:
     ISDB_JBD_OFF_MAXCOL     the largest absolute column sum (numpy's matrix
                             1-norm, the authors' code; default);
     ISDB_JBD_OFF_ENTRYWISE  the sum of all absolute entries, so that off is
                             the mean absolute off-block entry (probably what
                             the code meant; in our measurements it finds the
                             right blocks far more often, see the README). */
typedef enum isdb_jbd_offnorm {
    ISDB_JBD_OFF_MAXCOL = 0,
    ISDB_JBD_OFF_ENTRYWISE = 1,
    ISDB__JBD_OFF_FORCE_INT = 0x7fffffff
} isdb_jbd_offnorm;

typedef struct isdb_jbd_options {
    isdb_jbd_method method; /* default ISDB_JBD_JACOBI */
    int max_iter;           /* sweeps (Jacobi) or steps (U-WEDGE); 0: 100 and 1000 */
    double tol;             /* see above; 0: 1e-12 (Jacobi) and 1e-10 (U-WEDGE) */
    double threshold;       /* tau in (0, 1]; 0: chosen by the criterion (default) */
    isdb_jbd_scale scale;   /* how D is made scale-free; default ISDB_JBD_SCALE_CORRELATION */
    isdb_jbd_offnorm off_norm; /* the norm of the off-block parts in crit; default ISDB_JBD_OFF_MAXCOL */
} isdb_jbd_options;

typedef struct isdb_jbd_info {
    int converged;    /* step 1 met its tolerance */
    int iterations;   /* sweeps or steps taken */
    int n_blocks;
    double threshold; /* tau used */
    double criterion; /* crit(tau) */
    double offdiag;   /* sqrt(sum_k ||off(U^T C_k U)||_F^2 / sum_k ||C_k||_F^2) after step 1 */
    double offblock;  /* the same ratio for the off-block part after step 2 */
} isdb_jbd_info;

ISDB_API isdb_jbd_options isdb_jbd_options_init(void);
/* Doubles of work isdb_jbd and isdb_jbd_blocks need: m p^2 + 8 p^2 + 4 p. */
ISDB_API size_t isdb_jbd_work_size(int p, int m);
/* Both steps. U (p x p) receives the basis, sizes[0..n_blocks-1] the block
   sizes in column order (sizes must hold p ints; it is also used as
   scratch), info (may be NULL) the diagnostics. Returns
   ISDB_MAXITER_REACHED (a usable result) when step 1 did not converge,
   ISDB_ERR_NONFINITE for a NaN or Inf in C, ISDB_ERR_INVALID_ARG for
   p < 1, m < 1 or NULL pointers. The C_k are read, never changed, and
   symmetrised as (C_k + C_k^T) / 2. U must not alias C or work. */
ISDB_API isdb_result isdb_jbd(int p, int m, const double *C, const isdb_jbd_options *opt, double *U, int *sizes,
                              double *work, isdb_jbd_info *info);
/* Step 2 alone, for a given orthogonal U (changed in place: columns
   permuted) and threshold tau in (0, 1]: sizes and *n_blocks as above. */
ISDB_API isdb_result isdb_jbd_blocks(int p, int m, const double *C, double tau, isdb_jbd_scale scale, double *U,
                                     int *sizes, int *n_blocks, double *work);

/* ---------------------------------------------------------------------------
   The policy interface. Every policy struct starts with `isdb_policy base`;
   pass &pol.base to the generic functions below.
   ------------------------------------------------------------------------ */

/* Stable numbers: they are written into snapshots. */
typedef enum isdb_policy_kind {
    ISDB_POLICY_LINUCB = 1,
    ISDB_POLICY_SWUCB = 2,
    ISDB_POLICY_DLINUCB = 3,
    ISDB_POLICY_LINTS = 4,
    ISDB_POLICY_BOB = 5,
    ISDB_POLICY_ISD = 6,
    ISDB_POLICY_OPKB = 7,
    ISDB_POLICY_OAM = 8,
    ISDB_POLICY_TRACEUCB = 9,
    ISDB__POLICY_FORCE_INT = 0x7fffffff
} isdb_policy_kind;

/* Name of a kind ("linucb", ...); "unknown" for other values. */
ISDB_API const char *isdb_policy_kind_name(isdb_policy_kind kind);

typedef struct isdb_policy isdb_policy;
/* Snapshot reader and writer, private to the implementation. */
typedef struct isdb_ser isdb_ser;

/* Set in isdb_policy_vtable.flags when select, scores and probs accept
   X == NULL (policies with a fixed arm set, or that ignore the context). */
#define ISDB_POLICY_X_OPTIONAL 1

typedef struct isdb_policy_vtable {
    isdb_policy_kind kind;
    const char *name;
    int flags;
    /* The generic functions validate every argument (pointers, sizes, arm
       index, finiteness and range of X, x and reward) before these run. */
    isdb_result (*select)(isdb_policy *p, const double *X, int n_arms, int *arm);
    isdb_result (*update)(isdb_policy *p, int arm, const double *x, double reward);
    isdb_result (*scores)(isdb_policy *p, const double *X, int n_arms, double *out);
    isdb_result (*probs)(isdb_policy *p, const double *X, int n_arms, double *out);
    /* Writes, checks or reads the config and the state (one function for
       all three, so save and load cannot disagree). */
    void (*serialize)(isdb_policy *p, isdb_ser *s);
    /* Back to the state right after init (the generic reset reseeds rng). */
    void (*reset)(isdb_policy *p);
} isdb_policy_vtable;

struct isdb_policy {
    const isdb_policy_vtable *vt;
    int d;          /* feature dimension */
    int max_arms;   /* most arms a round may offer; arm indices are below it */
    uint64_t t;     /* successful updates so far */
    uint64_t seed;  /* the config's seed; reset reseeds rng with it */
    isdb_rng rng;
    isdb_allocator _alloc;
    void *_heap;
    size_t _heap_size;
    int _owns_heap;
};

/* Chooses an arm among the n_arms rows of X (n_arms x d). */
ISDB_API isdb_result isdb_policy_select(isdb_policy *p, const double *X, int n_arms, int *arm);
/* Learns from playing features x (d) as arm `arm` and observing reward. */
ISDB_API isdb_result isdb_policy_update(isdb_policy *p, int arm, const double *x, double reward);
/* out[k]: the index select maximises (UCB value), or for randomized
   policies the probability of arm k. Does not change the state. */
ISDB_API isdb_result isdb_policy_scores(isdb_policy *p, const double *X, int n_arms, double *out);
/* out[k]: the probability that select picks arm k now (one-hot for the
   deterministic policies: the arm select would return). No state change. */
ISDB_API isdb_result isdb_policy_probs(isdb_policy *p, const double *X, int n_arms, double *out);
/* Snapshot of the whole state. With buf NULL only *size is set (the bytes
   needed); with cap too small, ISDB_ERR_BUFFER_TOO_SMALL and *size. */
ISDB_API isdb_result isdb_policy_save(const isdb_policy *p, void *buf, size_t cap, size_t *size);
/* Restores a snapshot written by a policy of the same kind and config.
   Anything else is ISDB_ERR_FORMAT and leaves p unchanged. */
ISDB_API isdb_result isdb_policy_load(isdb_policy *p, const void *buf, size_t size);
/* Forgets all data and reseeds the generator; keeps the config. */
ISDB_API void isdb_policy_reset(isdb_policy *p);
/* Frees the heap if init allocated it. p may be NULL. */
ISDB_API void isdb_policy_uninit(isdb_policy *p);
ISDB_API const char *isdb_policy_name(const isdb_policy *p);

/* Exploration widths of the ridge-regression UCB policies; see the
   documentation block (n is the number of observations the estimate uses). */
typedef enum isdb_width {
    ISDB_WIDTH_LOGDET = 0,
    ISDB_WIDTH_DETTRACE = 1,
    ISDB_WIDTH_SIMPLE = 2,
    ISDB_WIDTH_CONSTANT = 3,
    ISDB__WIDTH_FORCE_INT = 0x7fffffff
} isdb_width;

/* Ridge regression state shared by LinUCB, SW-UCB and LinTS (private: read
   it through the policies' getters). */
typedef struct isdb__ridge {
    int d;
    int refresh;     /* refactorise from V every this many additions; 0: never */
    int since_refresh;
    double lambda;
    double *L;       /* lower Cholesky factor of V */
    double *L_next;  /* scratch factor, swapped with L on commit */
    double *V;       /* exact Gram matrix (lower triangle), or NULL */
    double *b;       /* sum of reward * x */
    double *theta;   /* V^-1 b */
    double *work;    /* 2 d scratch */
    double logdet;   /* ln det V */
} isdb__ridge;

/* ---------------------------------------------------------------------------
   LinUCB / OFUL
   ------------------------------------------------------------------------ */

typedef struct isdb_linucb_config {
    int d;            /* feature dimension, 1..ISDB_MAX_DIM */
    int max_arms;     /* most arms per round */
    double lambda;    /* ridge, > 0; default 1 */
    double delta;     /* confidence level, in (0, 1); default 0.01 */
    double R;         /* sub-Gaussian noise scale, >= 0; default 1 */
    double S;         /* bound on ||theta||, >= 0; default 1 */
    double L;         /* bound on ||x||, > 0; default 1 */
    double alpha;     /* multiplier of the width, >= 0; default 1 */
    isdb_width width; /* default ISDB_WIDTH_LOGDET */
    int refresh;      /* refactorise every this many updates; 0 means d */
} isdb_linucb_config;

typedef struct isdb_linucb {
    isdb_policy base;
    isdb_linucb_config cfg; /* resolved config */
    isdb__ridge _ridge;
} isdb_linucb;

ISDB_API isdb_linucb_config isdb_linucb_config_init(int d, int max_arms);
ISDB_API isdb_result isdb_linucb_heap_size(const isdb_linucb_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_linucb_init(const isdb_linucb_config *cfg, const isdb_allocator *alloc, isdb_linucb *pol);
ISDB_API isdb_result isdb_linucb_init_preallocated(const isdb_linucb_config *cfg, void *heap, isdb_linucb *pol);
ISDB_API const isdb_linucb_config *isdb_linucb_get_config(const isdb_linucb *pol);
/* The current estimate theta (d). */
ISDB_API void isdb_linucb_theta(const isdb_linucb *pol, double *theta);
/* beta of the next round, alpha included. */
ISDB_API double isdb_linucb_beta(const isdb_linucb *pol);
/* For features x: *mean = x.theta and *bonus = beta ||x||_{V^-1}, the two
   parts of the score. Either output may be NULL. */
ISDB_API isdb_result isdb_linucb_explain(isdb_linucb *pol, const double *x, double *mean, double *bonus);

/* ---------------------------------------------------------------------------
   SW-UCB (sliding-window LinUCB)
   ------------------------------------------------------------------------ */

typedef struct isdb_swucb_config {
    int d, max_arms;
    int window;       /* w >= 1 observations; w * (d + 1) must fit in an int */
    double lambda;    /* default 1 */
    double delta;     /* default 0.01 (the paper's proofs use 1/T) */
    double R, S, L;   /* default 1 each */
    double alpha;     /* default 1 */
    isdb_width width; /* default ISDB_WIDTH_SIMPLE: eq. 5 of the paper */
    int refresh;      /* rebuild from the window every this many updates; 0 means max(w, d) */
} isdb_swucb_config;

typedef struct isdb_swucb {
    isdb_policy base;
    isdb_swucb_config cfg;
    int count;           /* observations in the window */
    int head;            /* ring slot of the oldest observation */
    uint64_t rebuilds;   /* exact rebuilds so far (refused downdates included) */
    uint64_t refusals;   /* downdates refused so far */
    isdb__ridge _ridge;
    double *_ring_x;     /* window x d */
    double *_ring_y;     /* window */
} isdb_swucb;

ISDB_API isdb_swucb_config isdb_swucb_config_init(int d, int max_arms, int window);
ISDB_API isdb_result isdb_swucb_heap_size(const isdb_swucb_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_swucb_init(const isdb_swucb_config *cfg, const isdb_allocator *alloc, isdb_swucb *pol);
ISDB_API isdb_result isdb_swucb_init_preallocated(const isdb_swucb_config *cfg, void *heap, isdb_swucb *pol);
ISDB_API const isdb_swucb_config *isdb_swucb_get_config(const isdb_swucb *pol);
ISDB_API void isdb_swucb_theta(const isdb_swucb *pol, double *theta);
ISDB_API double isdb_swucb_beta(const isdb_swucb *pol);
ISDB_API isdb_result isdb_swucb_explain(isdb_swucb *pol, const double *x, double *mean, double *bonus);

/* Window sizes of Cheung et al., clamped to [1, T]:
     ISDB_WINDOW_KNOWN     floor(d^(2/3) T^(2/3) B_T^(-2/3))     (section 5.1; B_T > 0)
     ISDB_WINDOW_EQ12      floor((d T)^(2/3) (B_T + 1)^(-2/3))   (eq. 12; B_T >= 0)
     ISDB_WINDOW_AGNOSTIC  floor((d T)^(2/3))                    (B_T unknown; B_T ignored) */
typedef enum isdb_window_rule {
    ISDB_WINDOW_KNOWN = 0,
    ISDB_WINDOW_EQ12 = 1,
    ISDB_WINDOW_AGNOSTIC = 2,
    ISDB__WINDOW_FORCE_INT = 0x7fffffff
} isdb_window_rule;
ISDB_API isdb_result isdb_swucb_tuned_window(isdb_window_rule rule, int d, double T, double B_T, int *window);

/* ---------------------------------------------------------------------------
   D-LinUCB (discounted LinUCB)
   ------------------------------------------------------------------------ */

typedef struct isdb_dlinucb_config {
    int d, max_arms;
    double gamma;     /* discount, in (0, 1) */
    double lambda;    /* default 1 */
    double delta;     /* default 0.01 */
    double sigma;     /* sub-Gaussian noise scale; default 1 */
    double S, L;      /* default 1 each */
    double alpha;     /* default 1 */
} isdb_dlinucb_config;

typedef struct isdb_dlinucb {
    isdb_policy base;
    isdb_dlinucb_config cfg;
    double *_V, *_V_next;    /* V (lower triangle) and its next value */
    double *_Vt, *_Vt_next;  /* V-tilde (lower triangle) */
    double *_L, *_L_next;    /* Cholesky factor of V */
    double *_b, *_b_next, *_theta, *_work;
} isdb_dlinucb;

ISDB_API isdb_dlinucb_config isdb_dlinucb_config_init(int d, int max_arms, double gamma);
ISDB_API isdb_result isdb_dlinucb_heap_size(const isdb_dlinucb_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_dlinucb_init(const isdb_dlinucb_config *cfg, const isdb_allocator *alloc,
                                       isdb_dlinucb *pol);
ISDB_API isdb_result isdb_dlinucb_init_preallocated(const isdb_dlinucb_config *cfg, void *heap, isdb_dlinucb *pol);
ISDB_API const isdb_dlinucb_config *isdb_dlinucb_get_config(const isdb_dlinucb *pol);
ISDB_API void isdb_dlinucb_theta(const isdb_dlinucb *pol, double *theta);
ISDB_API double isdb_dlinucb_beta(const isdb_dlinucb *pol);
/* *mean = x.theta, *bonus = beta ||V^-1 x||_Vt. Either may be NULL. */
ISDB_API isdb_result isdb_dlinucb_explain(isdb_dlinucb *pol, const double *x, double *mean, double *bonus);
/* gamma = 1 - (B_T / (d T))^(2/3), the tuning of Russac et al.; needs
   0 < B_T < d T. */
ISDB_API isdb_result isdb_dlinucb_tuned_gamma(int d, double T, double B_T, double *gamma);

/* ---------------------------------------------------------------------------
   Linear Thompson sampling
   ------------------------------------------------------------------------ */

typedef enum isdb_lints_inflation {
    ISDB_LINTS_THEORY = 0,
    ISDB_LINTS_NONE = 1,
    ISDB__LINTS_FORCE_INT = 0x7fffffff
} isdb_lints_inflation;

typedef struct isdb_lints_config {
    int d, max_arms;
    double lambda;                  /* default 1 */
    double R;                       /* noise scale; default 1 */
    isdb_lints_inflation inflation; /* default ISDB_LINTS_THEORY */
    double epsilon;                 /* THEORY only, in (0, 1]; default 0.5 */
    double delta;                   /* THEORY only, in (0, 1); default 0.01 */
    uint64_t seed;                  /* default 1 */
    int mc_samples;                 /* draws behind probs and scores; default 1000 */
    int refresh;                    /* as LinUCB; 0 means d */
} isdb_lints_config;

typedef struct isdb_lints {
    isdb_policy base;
    isdb_lints_config cfg;
    double v;              /* scale of the sampling covariance */
    isdb__ridge _ridge;
    double *_sample;       /* theta~ of the last select */
    double *_scratch;      /* d, for probs */
} isdb_lints;

ISDB_API isdb_lints_config isdb_lints_config_init(int d, int max_arms);
ISDB_API isdb_result isdb_lints_heap_size(const isdb_lints_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_lints_init(const isdb_lints_config *cfg, const isdb_allocator *alloc, isdb_lints *pol);
ISDB_API isdb_result isdb_lints_init_preallocated(const isdb_lints_config *cfg, void *heap, isdb_lints *pol);
ISDB_API const isdb_lints_config *isdb_lints_get_config(const isdb_lints *pol);
ISDB_API void isdb_lints_theta(const isdb_lints *pol, double *theta);
/* The theta~ drawn by the last select (zeros before the first). */
ISDB_API void isdb_lints_last_sample(const isdb_lints *pol, double *theta);

/* [decl:bob] */

/* ---------------------------------------------------------------------------
   ISD-linUCB, part 1: invariance detection (the offline phase).
   isdb_isd_estimate fits the invariant subspace decomposition of Lazzaretto,
   Peters and Pfister to logged rows (X n x p, y n), as their code does:
   1. environments: m windows of l rows, starting at floor(k (n - l) /
      (m - 1)), k = 0..m-1 (they overlap when m l > n; l = n / m gives the
      contiguous windows of the paper's section 4.2); C_k the covariance of
      window k (centred and divided by l - 1, or the raw second moment / l);
   2. isdb_jbd of C_1..C_m: an orthogonal U and its blocks;
   3. per-window OLS slopes g_k, in U coordinates; for each block b, with
      mu_b the mean of the block's coordinates over windows, f = X U_b mu_b
      and e = y - f, the statistic T_b = mean_k |corr_k(e, f)| (0 when f or
      e is constant in a window): near 0 when the block's coefficient is
      the same in every window;
   4. candidates theta in {T_1..T_B, 1}; blocks with T_b < theta are
      invariant. Each candidate is scored by k-fold cross-validation
      (contiguous folds of F = n / k rows): beta_inv by OLS in the
      invariant subspace on the rows outside the fold; inside the fold, for
      every run of `adapt` rows, delta by OLS of y - x.beta_inv on the
      residual coordinates, and the next row scored 2 y x.b - (x.b)^2 with
      b = beta_inv + delta. If no candidate but theta = 1 has a positive
      score on every fold, nothing is invariant; otherwise the smallest
      theta whose mean score is within one standard error of the best is
      chosen (see isdb_isd_selection for which standard error);
   5. beta_inv by OLS in the chosen invariant subspace on all rows (the
      paper's eq. 6; with `intercept` every regression above has one, as in
      the authors' code, and only the slopes are kept).
   Singular least-squares systems are solved with a ridge of 1e-10 times
   their mean diagonal. Cost: O(n p^2) for the covariances, window and fold
   Gram matrices; the JBD (see above); CV O(|candidates| n (p p_res + p_res^3)).
   All of it works in the caller's `work` (isdb_isd_estimate_work_size
   doubles); nothing allocates.
   ------------------------------------------------------------------------ */

/* How the cross-validation picks the threshold: the smallest theta (fewest
   invariant blocks) whose mean score is within `slack` of the best, with
     ISDB_ISD_BEST_SCORE        slack 0: the best candidate itself;
     ISDB_ISD_ONE_SE_UNPAIRED   slack = standard error of the best
                                candidate's mean over folds (the authors'
                                code);
     ISDB_ISD_ONE_SE_PAIRED     slack = standard error of the mean per-fold
                                difference between the candidate and the
                                best (default, our choice: in non-stationary
                                data the folds differ in signal, and the
                                unpaired error measures that difference of
                                folds rather than of candidates; with the
                                paper's parameter scale it almost never
                                admits an invariant block, see README). */
typedef enum isdb_isd_selection {
    ISDB_ISD_BEST_SCORE = 0,
    ISDB_ISD_ONE_SE_UNPAIRED = 1,
    ISDB_ISD_ONE_SE_PAIRED = 2,
    ISDB__ISD_SELECTION_FORCE_INT = 0x7fffffff
} isdb_isd_selection;

typedef struct isdb_isd_options {
    int n_windows;      /* m >= 2; default 25 */
    int window_length;  /* l in p + 1..n; 0: n / 8 (the authors' code) */
    int center;         /* 1: centred window covariances (default); 0: raw second moments */
    int intercept;      /* 1: regressions with an intercept (authors' code); 0: none (eq. 6; default) */
    int folds;          /* cross-validation folds >= 2; default 10 */
    int adapt;          /* adaptation rows per CV test point; 0: 2 p */
    int one_se;         /* the selection rule, an isdb_isd_selection; default ISDB_ISD_ONE_SE_PAIRED */
    int force_residual; /* 1: if every block came out invariant, the one with the largest T_b is
                           made residual (p_res >= 1, as Assumption 1 requires); default 0 */
    isdb_jbd_options jbd;
} isdb_isd_options;

/* Output of isdb_isd_estimate. The caller points the five arrays at
   storage of p entries (U: p * p); blocks are listed in U's column order,
   the invariant ones first. */
typedef struct isdb_isd_fit {
    double *U;        /* columns 0..p_inv-1 span S_inv, the rest S_res */
    double *beta_inv; /* the invariant component (in S_inv) */
    double *stat;     /* T_b of each block */
    int *sizes;       /* block sizes */
    int *invariant;   /* 1 for an invariant block */
    int n_blocks, p_inv;
    double theta;     /* the statistic threshold chosen (0: nothing invariant) */
    isdb_jbd_info jbd;
} isdb_isd_fit;

ISDB_API isdb_isd_options isdb_isd_options_init(void);
/* Doubles of work isdb_isd_estimate needs for n rows of dimension p (0 if
   the sizes or options are invalid). */
ISDB_API size_t isdb_isd_estimate_work_size(int p, int n, const isdb_isd_options *opt);
/* Requires l >= p + 1 and n / folds >= adapt + 2 (one test point per
   fold); ISDB_ERR_INVALID_ARG otherwise. ISDB_MAXITER_REACHED (usable)
   when the JBD did not converge. X and y are not changed. */
ISDB_API isdb_result isdb_isd_estimate(int p, int n, const double *X, const double *y, const isdb_isd_options *opt,
                                       isdb_isd_fit *fit, double *work);

/* ---------------------------------------------------------------------------
   ISD-linUCB, part 2: the policy (Algorithm 1 of Lazzaretto, Peters,
   Pfister 2026). The documentation block at the top describes it.
   ------------------------------------------------------------------------ */

/* The online learner of the residual component (in S_res coordinates). */
typedef enum isdb_isd_learner {
    ISDB_ISD_RES_LINUCB = 0,   /* ridge on every online row (the paper) */
    ISDB_ISD_RES_WINDOW = 1,   /* ridge on the last `window` rows */
    ISDB_ISD_RES_DISCOUNT = 2, /* weights gamma^age, D-LinUCB's width */
    ISDB__ISD_LEARNER_FORCE_INT = 0x7fffffff
} isdb_isd_learner;

/* The confidence widths. */
typedef enum isdb_isd_radius {
    ISDB_ISD_RADIUS_PAPER = 0, /* eqs. 25 and 30 as norm radii, Minkowski sum of the two sets */
    ISDB_ISD_RADIUS_CODE = 1,  /* the authors' code: one alpha_t on the joint ellipsoid */
    ISDB_ISD_RADIUS_FIXED = 2, /* the constant alpha on the joint ellipsoid */
    ISDB__ISD_RADIUS_FORCE_INT = 0x7fffffff
} isdb_isd_radius;

/* What the invariance monitor (our extension) does on an alarm. */
typedef enum isdb_isd_monitor {
    ISDB_ISD_MONITOR_OFF = 0,
    ISDB_ISD_MONITOR_FALLBACK = 1,  /* learn in all d dimensions from then on */
    ISDB_ISD_MONITOR_RECOMPUTE = 2, /* re-estimate now; fall back on a second alarm */
    ISDB__ISD_MONITOR_FORCE_INT = 0x7fffffff
} isdb_isd_monitor;

typedef struct isdb_isd_config {
    int d, max_arms;
    /* Logged offline rows (features of the played actions, rewards), in
       time order; copied at init. */
    int n_offline;
    const double *X0; /* n_offline x d */
    const double *R0; /* n_offline */
    /* Oracle mode: the caller gives the invariant subspace. */
    int oracle;              /* 0: estimate it from (X0, R0) (default); 1: given */
    int p_inv;               /* oracle: dim S_inv, 0..d */
    const double *U_inv;     /* oracle: d x p_inv, columns spanning S_inv (copied; orthonormalised) */
    const double *beta_inv;  /* oracle: d (copied; projected on S_inv), or NULL: eq. 6 on (X0, R0) */
    isdb_isd_options est;    /* the estimator (estimated mode); est.intercept also for eq. 6 */
    /* Residual learner. */
    isdb_isd_learner learner; /* default ISDB_ISD_RES_LINUCB */
    int window;               /* WINDOW: rows >= 1; default 100 */
    double gamma;             /* DISCOUNT: in (0, 1); default 0.99 */
    double lambda;            /* its ridge; default 1 */
    int refresh;              /* refactorise (LINUCB) or rebuild (WINDOW) every this many updates;
                                 0: p_res, or max(window, p_res) */
    /* Widths. */
    isdb_isd_radius radius;   /* default ISDB_ISD_RADIUS_PAPER */
    double delta;             /* confidence level eta, in (0, 1); default 0.01 */
    double sigma, L, M;       /* noise scale, bounds on ||x|| and ||gamma||; default 1 each */
    double alpha;             /* multiplier of the width (PAPER, CODE), or the width (FIXED); default 1 */
    double delta_pi;          /* the subspace error DeltaPi of PAPER; < 0: the plug-in (default -1) */
    /* Recompute (Algorithm 1's `recompute`). */
    int recompute_every;      /* re-estimate every this many updates; 0: never (default) */
    int history;              /* online rows kept (ring); 0: the least the options need */
    /* The invariance monitor. */
    isdb_isd_monitor monitor; /* default ISDB_ISD_MONITOR_OFF */
    int monitor_window;       /* rows per test, >= d + 2; 0: 10 d + 20 */
    int monitor_every;        /* a test every this many updates; 0: monitor_window / 4 */
    double monitor_level;     /* level of one test, in (0, 1); default 1e-4 */
} isdb_isd_config;

/* A decomposition and what the widths need from it (private). */
typedef struct isdb__isd_fit {
    int p_inv, n_blocks, n;
    int identity;  /* U is exactly I (p_inv = 0): projections are copies */
    double theta, lambda0, lambda_max, lambda_beta, delta_pi, r_inv;
    isdb_jbd_info jbd;
    double *U;     /* d x d, columns: S_inv basis first */
    double *Ut;    /* U^T */
    double *beta;  /* beta_inv (d) */
    double *Lbeta; /* p_inv x p_inv Cholesky factor of U_inv^T Sigma U_inv */
    double *Winv;  /* p_inv x d: Lbeta^-1 U_inv^T */
    double *stat;  /* d */
    int *sizes, *invariant;
} isdb__isd_fit;

typedef struct isdb_isd {
    isdb_policy base;
    isdb_isd_config cfg; /* resolved; the pointers lead to the heap copies */
    uint64_t data_hash;  /* of the offline rows and oracle inputs */
    int hist_count, hist_head;
    int since_recompute, since_check, fallback, monitor_recomputed;
    uint64_t recomputes, recompute_failures, alarms;
    double n_res;        /* rows in the residual learner */
    double monitor_stat, monitor_threshold;
    isdb__isd_fit _fit, _fit0, _fit_next; /* current, after init, scratch */
    isdb__ridge _res;    /* residual factor, b, estimate (dimension p_res) */
    double *_Vd, *_Vd_next, *_Vt, *_Vt_next, *_b_next; /* DISCOUNT */
    double *_gamma;      /* beta_inv + U_res delta */
    double *_hist_x, *_hist_y, *_pool_x, *_pool_y;
    double *_U_inv0, *_beta0;
    double *_z, *_u, *_work;
    double _r_inv, _r_res; /* widths of the round being scored */
} isdb_isd;

/* Diagnostics of the current state. */
typedef struct isdb_isd_info {
    int p_inv, p_res, n_blocks;
    double theta;              /* the estimator's threshold */
    isdb_jbd_info jbd;
    double lambda0;            /* lambda_min(Sigma / n) of the rows of the fit */
    double lambda_beta;        /* lambda_min(U_inv^T Sigma U_inv) */
    double delta_pi;           /* DeltaPi used by the PAPER widths */
    double r_inv, r_res;       /* widths of the next round (CODE, FIXED: the joint one twice) */
    int n_fit;                 /* rows the decomposition was fitted on */
    double n_res;              /* rows (DISCOUNT: updates) in the residual learner */
    int history;               /* online rows kept */
    uint64_t recomputes, recompute_failures, alarms;
    int fallback;              /* 1 after the monitor switched to all d dimensions */
    double monitor_stat, monitor_threshold; /* F statistic and critical value of the last test */
} isdb_isd_info;

ISDB_API isdb_isd_config isdb_isd_config_init(int d, int max_arms, int n_offline, const double *X0,
                                              const double *R0);
ISDB_API isdb_result isdb_isd_heap_size(const isdb_isd_config *cfg, size_t *bytes);
/* Init fits the decomposition (estimated mode: JBD and cross-validation,
   the cost of isdb_isd_estimate on n_offline rows). */
ISDB_API isdb_result isdb_isd_init(const isdb_isd_config *cfg, const isdb_allocator *alloc, isdb_isd *pol);
ISDB_API isdb_result isdb_isd_init_preallocated(const isdb_isd_config *cfg, void *heap, isdb_isd *pol);
ISDB_API const isdb_isd_config *isdb_isd_get_config(const isdb_isd *pol);
ISDB_API void isdb_isd_get_info(const isdb_isd *pol, isdb_isd_info *info);
ISDB_API int isdb_isd_p_inv(const isdb_isd *pol);
/* Blocks of the current decomposition in basis order (invariant first):
   sizes, invariance flags and statistics, d entries each (any may be
   NULL). Returns the number of blocks (0 in oracle mode or after a
   fallback). */
ISDB_API int isdb_isd_blocks(const isdb_isd *pol, int *sizes, int *invariant, double *stat);
/* The basis U (d x d, columns; the first p_inv span S_inv). */
ISDB_API void isdb_isd_basis(const isdb_isd *pol, double *U);
/* The orthogonal projector (d x d) on S_inv (residual 0) or S_res (1). */
ISDB_API void isdb_isd_projector(const isdb_isd *pol, int residual, double *P);
ISDB_API void isdb_isd_beta_inv(const isdb_isd *pol, double *beta);
/* beta_inv + delta_res, the estimate the next round's means use. */
ISDB_API void isdb_isd_gamma(const isdb_isd *pol, double *gamma);
/* Widths of the next round (CODE and FIXED: the joint multiplier, twice). */
ISDB_API void isdb_isd_radii(const isdb_isd *pol, double *r_inv, double *r_res);
/* The parts of the score of x: *mean = x.gamma, *bonus_inv and *bonus_res
   the two width terms (CODE, FIXED: alpha_t times each norm; the score
   adds sqrt(bonus_inv^2 + bonus_res^2)). Any output may be NULL. */
ISDB_API isdb_result isdb_isd_explain(isdb_isd *pol, const double *x, double *mean, double *bonus_inv,
                                      double *bonus_res);
/* Re-estimates now on the offline rows and the kept online rows, as a
   scheduled recompute does. On failure the decomposition and the learner
   are unchanged (the failure is counted in the info). */
ISDB_API isdb_result isdb_isd_recompute(isdb_isd *pol);

/* [decl:opkb] */

/* [decl:oam] */

/* [decl:traceucb] */

#ifndef ISDB_NO_SIM
/* ---------------------------------------------------------------------------
   Simulation environments and the regret harness.
   An environment draws, each round, the n_arms x d features X and the
   expected reward of every arm (means), then the noisy reward of the arm
   played. Features and the parameter path come from `rng`, noise from
   `noise_rng`, so two environments with the same seed show every policy
   the same rounds whatever it plays (common random numbers).
   ------------------------------------------------------------------------ */

typedef struct isdb_env isdb_env;

typedef struct isdb_env_vtable {
    const char *name;
    /* Fills e->X and e->means for round e->t (0-based). */
    isdb_result (*next)(isdb_env *e);
    /* The expected reward of `arm` this round plus noise. */
    isdb_result (*reward)(isdb_env *e, int arm, double *y);
    void (*reset)(isdb_env *e);
} isdb_env_vtable;

struct isdb_env {
    const isdb_env_vtable *vt;
    int d, n_arms;
    uint64_t t;          /* rounds drawn so far */
    uint64_t seed;
    isdb_rng rng;        /* features and parameter path */
    isdb_rng noise_rng;  /* reward noise */
    double *X;           /* n_arms x d features of the current round */
    double *means;       /* n_arms expected rewards of the current round */
    isdb_allocator _alloc;
    void *_heap;
    int _owns_heap;
};

/* Draws the next round into e->X and e->means. */
ISDB_API isdb_result isdb_env_next(isdb_env *e);
/* Noisy reward of an arm of the current round (after isdb_env_next). */
ISDB_API isdb_result isdb_env_reward(isdb_env *e, int arm, double *y);
/* Back to round 0 with the original seed. */
ISDB_API void isdb_env_reset(isdb_env *e);
ISDB_API void isdb_env_uninit(isdb_env *e);

/* How a linear environment draws its arms each round. */
typedef enum isdb_arms_kind {
    ISDB_ARMS_FIXED = 0,    /* the same n_arms x d matrix every round */
    ISDB_ARMS_SPHERE = 1,   /* uniform on the unit sphere */
    ISDB_ARMS_GAUSSIAN = 2, /* N(0, cov) */
    ISDB_ARMS_BOX = 3,      /* each coordinate uniform in [box_lo, box_hi) */
    ISDB__ARMS_FORCE_INT = 0x7fffffff
} isdb_arms_kind;

/* How the parameter theta_t moves (rounds t = 0, 1, ...). */
typedef enum isdb_path_kind {
    /* pieces[k] (d values) from round switch_at[k-1] on (switch_at[-1] = 0) */
    ISDB_PATH_PIECEWISE = 0,
    /* theta_i(t) = sin_center + sin_amp sin(sin_omega (t + 1) + i pi):
       the two antiphase means of Cheung et al. section 7 for d = 2 */
    ISDB_PATH_SINUSOID = 1,
    /* theta = (cos a, sin a, 0, ...), a moving linearly from rot_from at
       round 0 to rot_to at round rot_rounds, then fixed (Russac et al.) */
    ISDB_PATH_ROTATION = 2,
    /* theta_fn(t, theta, theta_user) */
    ISDB_PATH_CALLBACK = 3,
    ISDB__PATH_FORCE_INT = 0x7fffffff
} isdb_path_kind;

typedef struct isdb_linear_env_config {
    int d, n_arms;
    uint64_t seed;              /* default 1 */
    double noise_sd;            /* Gaussian noise standard deviation; default 1 */
    isdb_arms_kind arms;        /* default ISDB_ARMS_SPHERE */
    const double *fixed_arms;   /* FIXED: n_arms x d, copied at init */
    const double *cov;          /* GAUSSIAN: d x d covariance, copied; NULL: identity */
    double box_lo, box_hi;      /* BOX: default -1, 1 */
    double clip_norm;           /* > 0: longer arms are scaled to this norm; default 0 (off) */
    isdb_path_kind path;        /* default ISDB_PATH_PIECEWISE */
    int n_pieces;               /* PIECEWISE */
    const double *pieces;       /* PIECEWISE: n_pieces x d, copied */
    const uint64_t *switch_at;  /* PIECEWISE: n_pieces - 1 increasing rounds, copied */
    double sin_center, sin_amp, sin_omega; /* SINUSOID: default 0.5, 0.3, 0 */
    double rot_from, rot_to;    /* ROTATION: angles in radians; default 0, pi/2 */
    uint64_t rot_rounds;        /* ROTATION: default 1 */
    void (*theta_fn)(uint64_t t, double *theta, void *user); /* CALLBACK */
    void *theta_user;
} isdb_linear_env_config;

typedef struct isdb_linear_env {
    isdb_env base;
    isdb_linear_env_config cfg; /* pointers replaced by the env's own copies */
    double *theta;              /* parameter of the current round */
    double *_chol;              /* GAUSSIAN: factor of cov */
} isdb_linear_env;

ISDB_API isdb_linear_env_config isdb_linear_env_config_init(int d, int n_arms);
ISDB_API isdb_result isdb_linear_env_init(const isdb_linear_env_config *cfg, const isdb_allocator *alloc,
                                          isdb_linear_env *env);

typedef struct isdb_sim_result {
    uint64_t rounds;
    double regret;   /* cumulative pseudo-regret: sum of max_k means_k - means_arm */
    double reward;   /* sum of the noisy rewards observed */
    double seconds;  /* processor time of the whole run (clock()) */
} isdb_sim_result;

/* Plays p against e for T rounds from their current states. cum_regret,
   if not NULL, receives the cumulative pseudo-regret after each round (T
   values). Stops at the first error and returns it (res then covers the
   rounds played). Allocates nothing. */
ISDB_API isdb_result isdb_sim_run(isdb_policy *p, isdb_env *e, uint64_t T, double *cum_regret,
                                  isdb_sim_result *res);

/* [decl:env-bob] */

/* ---------------------------------------------------------------------------
   The invariant subspace environment (the data-generating process of the
   ISD-linUCB experiments). A basis U (d x d, columns) is split into
   contiguous blocks of coordinates, each invariant or residual. Features
   are x = U A g, g ~ N(0, I), with A block diagonal (the entries of each
   block uniform in [0, 1)), so the blocks of U x are uncorrelated. The
   parameter is gamma = U gammat: the invariant coordinates of gammat are
   fixed (gammat0), the residual ones move.
   - Offline (isdb_isd_env_offline): T0 logged rows; A redrawn every
     cov_period rows from its own generator (cov_seed, the same sequence in
     every repetition, as in the authors' scripts); residual coordinate k
     (1-based among the residual ones) at time t in {-T0..-1} is gammat0_k
     - drift_amp (t / T0) sin^2(drift_freq k t / T0 + k) (paper, section
     5.1); with drift_code = 1, k is the global coordinate index and t runs
     over 0..T0-1 (the authors' code). The logger plays uniformly at random
     (the paper) or, half-greedily, a random arm on even rows and the arm
     of largest mean + noise on odd rows, logging that noisy value plus
     fresh noise (the authors' code).
   - Online (isdb_env_next): A is drawn once at reset, the residual
     coordinates uniformly in [res_lo, res_hi) at reset (fresh per seed),
     or moved by res_path each round; Gaussian noise of sd noise_sd.
   Features and the online draws come from base.rng, the noise from
   base.noise_rng (common random numbers, as every environment).
   ------------------------------------------------------------------------ */

typedef enum isdb_isd_logger {
    ISDB_ISD_LOG_UNIFORM = 0,
    ISDB_ISD_LOG_HALF_GREEDY = 1,
    ISDB__ISD_LOG_FORCE_INT = 0x7fffffff
} isdb_isd_logger;

typedef struct isdb_isd_env_config {
    int d, n_arms;
    uint64_t seed;            /* online features, residual draw and noise; default 1 */
    int n_blocks;             /* blocks of U coordinates, in order */
    const int *block_sizes;   /* n_blocks sizes >= 1 summing to d (copied) */
    const int *residual;      /* n_blocks flags: 1 for a residual block (copied) */
    const double *basis;      /* d x d orthogonal U, columns (copied); NULL: Haar-random */
    uint64_t basis_seed;      /* the Haar basis and the drawn gammat0; default 1 */
    const double *gamma0;     /* d coordinates gammat0 (copied); NULL: uniform in [gamma_lo, gamma_hi) */
    double gamma_lo, gamma_hi; /* default 0.5, 1.5 */
    int normalize_gamma0;     /* 1: the drawn gammat0 scaled to unit norm (authors' code); default 0 */
    uint64_t cov_seed;        /* the offline covariance sequence; default 42 */
    int cov_period;           /* offline rows per covariance draw; default 400 */
    double drift_amp, drift_freq; /* default 1.5, 0.25 */
    int drift_code;           /* 1: the authors' indexing of the drift (see above); default 0 */
    double res_lo, res_hi;    /* online residual coordinates; default 0.5, 1.5 */
    /* Online residual path: called each round t = 0, 1, ... with the p_res
       residual coordinates (the values of the previous round; at t = 0
       the uniform draw) to update in place. NULL: constant. */
    void (*res_path)(uint64_t t, int p_res, double *res, void *user);
    void *res_user;
    double noise_sd;          /* online noise sd; default 1 */
} isdb_isd_env_config;

typedef struct isdb_isd_env {
    isdb_env base;
    isdb_isd_env_config cfg; /* the pointers lead to the env's own copies */
    int p_inv, p_res;
    double *basis;    /* U (d x d, columns) */
    double *gamma0;   /* gammat0 (d) */
    double *beta_inv; /* U (gammat0 with the residual coordinates zeroed) */
    double *theta;    /* gamma of the current round */
    double *res;      /* residual coordinates of the current round (p_res) */
    double *_A, *_g;  /* online covariance factor (U coordinates); scratch */
    int *_sizes, *_resflag;
} isdb_isd_env;

ISDB_API isdb_isd_env_config isdb_isd_env_config_init(int d, int n_arms, int n_blocks, const int *block_sizes,
                                                      const int *residual);
ISDB_API isdb_result isdb_isd_env_init(const isdb_isd_env_config *cfg, const isdb_allocator *alloc,
                                       isdb_isd_env *env);
/* T0 logged offline rows: X0 (T0 x d) the features of the logged actions,
   R0 (T0) their rewards, noise of sd log_noise_sd; `seed` drives the
   features, the logger and the noise. The online stream of env is not
   changed (only its scratch is used: not concurrently with
   isdb_env_next on the same env). */
ISDB_API isdb_result isdb_isd_env_offline(const isdb_isd_env *env, int T0, isdb_isd_logger logger,
                                          double log_noise_sd, uint64_t seed, double *X0, double *R0);
/* The columns of U spanning the invariant subspace (d x p_inv, in block
   order): the oracle input of isdb_isd_config. */
ISDB_API void isdb_isd_env_invariant_basis(const isdb_isd_env *env, double *U_inv);

/* [decl:env-opkb] */

/* [decl:env-oam] */

/* [decl:env-traceucb] */
#endif /* ISDB_NO_SIM */

#ifdef __cplusplus
}
#endif

#endif /* ISDBANDIT_H */

/* ===========================================================================
   IMPLEMENTATION
   ======================================================================== */
#ifdef ISDB_IMPLEMENTATION
#ifndef ISDB__IMPL_DONE
#define ISDB__IMPL_DONE

#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#ifndef ISDB_NO_SIM
#include <time.h>
#endif

#ifndef ISDB_ASSERT
#include <assert.h>
#define ISDB_ASSERT(x) assert(x)
#endif

#if defined(ISDB_MALLOC) && !defined(ISDB_FREE)
#error "isdbandit.h: define both ISDB_MALLOC and ISDB_FREE, or neither"
#endif
#if defined(ISDB_FREE) && !defined(ISDB_MALLOC)
#error "isdbandit.h: define both ISDB_MALLOC and ISDB_FREE, or neither"
#endif
#ifndef ISDB_MALLOC
#include <stdlib.h>
#define ISDB_MALLOC(n) malloc(n)
#define ISDB_FREE(p) free(p)
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ISDB__PRIVATE static __attribute__((unused))
#else
#define ISDB__PRIVATE static
#endif

#define ISDB__PI 3.14159265358979323846
/* Ridge bounds: with inputs below ISDB_INPUT_MAX they keep every estimate
   and score finite. */
#define ISDB__LAMBDA_MIN 1e-30
#define ISDB__LAMBDA_MAX 1e30

/* ---------------------------------------------------------------------------
   Small helpers
   ------------------------------------------------------------------------ */

ISDB__PRIVATE int isdb__finite(double x) { return x - x == 0.0; }

ISDB__PRIVATE int isdb__min_int(int a, int b) { return a < b ? a : b; }
ISDB__PRIVATE int isdb__max_int(int a, int b) { return a > b ? a : b; }

ISDB__PRIVATE double isdb__dot(int n, const double *a, const double *b) {
    double s = 0.0;
    int i;
    for (i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

ISDB__PRIVATE void isdb__copy(int n, const double *src, double *dst) {
    if (n > 0 && src != dst) memcpy(dst, src, (size_t)n * sizeof(double));
}

ISDB__PRIVATE void isdb__zero(int n, double *v) {
    int i;
    for (i = 0; i < n; ++i) v[i] = 0.0;
}

/* ISDB_OK if every value is finite and within ISDB_INPUT_MAX. */
ISDB__PRIVATE isdb_result isdb__check_input(const double *v, int n) {
    int i;
    for (i = 0; i < n; ++i)
        if (!(fabs(v[i]) <= ISDB_INPUT_MAX)) return isdb__finite(v[i]) ? ISDB_ERR_RANGE : ISDB_ERR_NONFINITE;
    return ISDB_OK;
}

ISDB__PRIVATE int isdb__all_finite(const double *v, int n) {
    int i;
    for (i = 0; i < n; ++i)
        if (!isdb__finite(v[i])) return 0;
    return 1;
}

/* Config checks: finite and positive, finite and non-negative, in (0, 1). */
ISDB__PRIVATE int isdb__positive(double x) { return isdb__finite(x) && x > 0.0; }
ISDB__PRIVATE int isdb__nonneg(double x) { return isdb__finite(x) && x >= 0.0; }
ISDB__PRIVATE int isdb__open01(double x) { return x > 0.0 && x < 1.0; }
ISDB__PRIVATE int isdb__ridge_ok(double lambda) { return lambda >= ISDB__LAMBDA_MIN && lambda <= ISDB__LAMBDA_MAX; }

/* Index of the largest value, the lowest on ties. */
ISDB__PRIVATE int isdb__argmax(const double *v, int n) {
    int k, best = 0;
    for (k = 1; k < n; ++k)
        if (v[k] > v[best]) best = k;
    return best;
}

/* Copies the lower triangle of A into its upper triangle. */
ISDB__PRIVATE void isdb__symmetrize_lower(int n, double *A) {
    int i, j;
    for (i = 0; i < n; ++i)
        for (j = 0; j < i; ++j) A[j * n + i] = A[i * n + j];
}

ISDB__PRIVATE void isdb__identity(int n, double *A, double diag) {
    int i;
    isdb__zero(n * n, A);
    for (i = 0; i < n; ++i) A[i * n + i] = diag;
}

/* Removes const where an interface shares one function for reading and
   writing (save passes a const policy to the serializer, which only reads
   it in that mode). */
ISDB__PRIVATE void *isdb__unconst(const void *p) { return (void *)(uintptr_t)p; }

const char *isdb_version(void) { return ISDB_VERSION_STRING; }

const char *isdb_result_string(isdb_result r) {
    switch (r) {
#define ISDB__RESULT_CASE(name, value, text) \
    case name:                               \
        return text;
        ISDB_RESULT_LIST(ISDB__RESULT_CASE)
#undef ISDB__RESULT_CASE
    default:
        break;
    }
    return "unknown result";
}

/* ---------------------------------------------------------------------------
   Random numbers
   ------------------------------------------------------------------------ */

ISDB__PRIVATE uint64_t isdb__splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

ISDB__PRIVATE uint64_t isdb__rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void isdb_rng_seed(isdb_rng *rng, uint64_t seed) {
    uint64_t x = seed;
    int i;
    ISDB_ASSERT(rng);
    if (!rng) return;
    for (i = 0; i < 4; ++i) rng->s[i] = isdb__splitmix64(&x);
    rng->spare = 0.0;
    rng->has_spare = 0;
}

uint64_t isdb_rng_next(isdb_rng *rng) {
    uint64_t *s = rng->s;
    uint64_t result = isdb__rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = isdb__rotl(s[3], 45);
    return result;
}

double isdb_rng_uniform(isdb_rng *rng) { return (double)(isdb_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0); }

double isdb_rng_normal(isdb_rng *rng) {
    double u, v, s, m;
    if (rng->has_spare) {
        rng->has_spare = 0;
        return rng->spare;
    }
    do {
        u = 2.0 * isdb_rng_uniform(rng) - 1.0;
        v = 2.0 * isdb_rng_uniform(rng) - 1.0;
        s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    m = sqrt(-2.0 * log(s) / s);
    rng->spare = v * m;
    rng->has_spare = 1;
    return u * m;
}

uint64_t isdb_rng_below(isdb_rng *rng, uint64_t n) {
    uint64_t threshold, x;
    if (n == 0) return 0;
    threshold = (0 - n) % n; /* 2^64 mod n */
    do x = isdb_rng_next(rng);
    while (x < threshold);
    return x % n;
}

int isdb_rng_int(isdb_rng *rng, int lo, int hi) {
    uint64_t span;
    if (hi <= lo) return lo;
    span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1;
    return (int)((int64_t)lo + (int64_t)isdb_rng_below(rng, span));
}

/* ---------------------------------------------------------------------------
   Linear algebra
   ------------------------------------------------------------------------ */

ISDB__PRIVATE int isdb__dim_ok(int n) { return n >= 1 && n <= ISDB_MAX_DIM; }

isdb_result isdb_chol(int n, double *A) {
    int i, j, k;
    if (!isdb__dim_ok(n) || !A) return ISDB_ERR_INVALID_ARG;
    for (i = 0; i < n; ++i)
        if (!isdb__all_finite(A + i * n, i + 1)) return ISDB_ERR_NONFINITE;
    for (i = 0; i < n; ++i) {
        double *Li = A + i * n;
        double s, diag = Li[i];
        for (j = 0; j < i; ++j) {
            const double *Lj = A + j * n;
            s = Li[j];
            for (k = 0; k < j; ++k) s -= Li[k] * Lj[k];
            Li[j] = s / Lj[j];
        }
        s = diag;
        for (k = 0; k < i; ++k) s -= Li[k] * Li[k];
        /* The pivot over the original diagonal entry is scale-free; below
           DBL_EPSILON it is rounding noise. Written so that NaN fails. */
        if (!(s > DBL_EPSILON * diag)) return ISDB_ERR_NOT_SPD;
        Li[i] = sqrt(s);
        for (j = i + 1; j < n; ++j) Li[j] = 0.0;
    }
    return ISDB_OK;
}

void isdb_tri_solve(int n, const double *L, int trans, const double *b, double *x) {
    int i, k;
    ISDB_ASSERT(L && b && x && n >= 1);
    if (!L || !b || !x || n < 1) return;
    isdb__copy(n, b, x);
    if (!trans) {
        for (i = 0; i < n; ++i) {
            const double *Li = L + i * n;
            double s = x[i];
            for (k = 0; k < i; ++k) s -= Li[k] * x[k];
            x[i] = s / Li[i];
        }
    } else {
        /* Column-oriented back substitution: row i of L is column i of L^T. */
        for (i = n - 1; i >= 0; --i) {
            const double *Li = L + i * n;
            double xi = x[i] / Li[i];
            x[i] = xi;
            for (k = 0; k < i; ++k) x[k] -= Li[k] * xi;
        }
    }
}

void isdb_chol_solve(int n, const double *L, const double *b, double *x) {
    isdb_tri_solve(n, L, 0, b, x);
    isdb_tri_solve(n, L, 1, x, x);
}

double isdb_chol_logdet(int n, const double *L) {
    double s = 0.0;
    int i;
    ISDB_ASSERT(L && n >= 1);
    if (!L) return 0.0;
    for (i = 0; i < n; ++i) s += log(L[i * n + i]);
    return 2.0 * s;
}

size_t isdb_chol_update_work_size(int n) { return n > 0 ? 2 * (size_t)n : 0; }

/* dst = factor of src src^T + x x^T by Givens rotations that fold x into
   the columns of src, row by row (rotation k is fixed once row k is done),
   so every access runs along rows. dst may equal src. work: 2n.
   Returns det(new) / det(old). */
ISDB__PRIVATE double isdb__chol_update_to(int n, const double *src, double *dst, const double *x, double *work) {
    double *c = work, *s = work + n;
    double root_ratio = 1.0;
    int i, k;
    for (i = 0; i < n; ++i) {
        const double *Si = src + i * n;
        double *Di = dst + i * n;
        double w = x[i], l, r;
        for (k = 0; k < i; ++k) {
            l = Si[k];
            Di[k] = c[k] * l + s[k] * w;
            w = c[k] * w - s[k] * l;
        }
        l = Si[i];
        r = sqrt(l * l + w * w);
        c[i] = l / r;
        s[i] = w / r;
        Di[i] = r;
        root_ratio *= r / l;
        if (dst != src)
            for (k = i + 1; k < n; ++k) Di[k] = 0.0;
    }
    return root_ratio * root_ratio;
}

/* In-place downdate L L^T - x x^T (the LINPACK scheme: p = L^-1 x, then
   rotations that map (p, sqrt(1 - p.p)) to (0, 1), applied to L). Returns
   0 and leaves L unchanged when r = 1 - p.p <= sqrt(DBL_EPSILON);
   otherwise applies it and stores r = det(new) / det(old). work: 2n. */
ISDB__PRIVATE int isdb__chol_downdate(int n, double *L, const double *x, double *work, double *ratio) {
    double *c = work, *s = work + n;
    double r, alpha;
    int j, k;
    isdb_tri_solve(n, L, 0, x, s);
    r = 1.0 - isdb__dot(n, s, s);
    if (!(r > sqrt(DBL_EPSILON))) return 0;
    alpha = sqrt(r);
    for (k = n - 1; k >= 0; --k) {
        double pk = s[k], a = sqrt(alpha * alpha + pk * pk);
        c[k] = alpha / a;
        s[k] = pk / a;
        alpha = a;
    }
    for (j = 0; j < n; ++j) {
        double *Lj = L + j * n;
        double v = 0.0;
        for (k = j; k >= 0; --k) {
            double l = Lj[k];
            Lj[k] = c[k] * l - s[k] * v;
            v = s[k] * l + c[k] * v;
        }
    }
    *ratio = r;
    return 1;
}

ISDB__PRIVATE int isdb__diag_finite_positive(int n, const double *L) {
    int i;
    for (i = 0; i < n; ++i)
        if (!(L[i * n + i] > 0.0) || !isdb__finite(L[i * n + i])) return 0;
    return 1;
}

isdb_result isdb_chol_update(int n, double *L, const double *x, double *work) {
    if (!isdb__dim_ok(n) || !L || !x || !work) return ISDB_ERR_INVALID_ARG;
    if (!isdb__all_finite(x, n)) return ISDB_ERR_NONFINITE;
    isdb__chol_update_to(n, L, L, x, work);
    return isdb__diag_finite_positive(n, L) ? ISDB_OK : ISDB_ERR_NONFINITE;
}

isdb_result isdb_chol_downdate(int n, double *L, const double *x, double *work) {
    double ratio;
    if (!isdb__dim_ok(n) || !L || !x || !work) return ISDB_ERR_INVALID_ARG;
    if (!isdb__all_finite(x, n)) return ISDB_ERR_NONFINITE;
    return isdb__chol_downdate(n, L, x, work, &ratio) ? ISDB_OK : ISDB_ERR_NOT_SPD;
}

isdb_result isdb_sym_eig(int n, double *A, double *w, double *V) {
    double total = 0.0, off;
    int i, j, p, q, r, sweep;
    isdb_result res = ISDB_MAXITER_REACHED;
    if (!isdb__dim_ok(n) || !A || !w || !V) return ISDB_ERR_INVALID_ARG;
    for (i = 0; i < n; ++i)
        if (!isdb__all_finite(A + i * n, i + 1)) return ISDB_ERR_NONFINITE;
    isdb__symmetrize_lower(n, A);
    isdb__identity(n, V, 1.0);
    for (i = 0; i < n * n; ++i) total += A[i] * A[i];
    for (sweep = 0; sweep < 100; ++sweep) {
        off = 0.0;
        for (i = 0; i < n; ++i)
            for (j = 0; j < i; ++j) off += 2.0 * A[i * n + j] * A[i * n + j];
        /* Rotations keep the Frobenius norm, so `total` bounds every sweep. */
        if (off <= DBL_EPSILON * DBL_EPSILON * total) {
            res = ISDB_OK;
            break;
        }
        for (p = 0; p < n - 1; ++p) {
            for (q = p + 1; q < n; ++q) {
                double apq = A[p * n + q], theta, t, c, s;
                if (apq == 0.0) continue;
                theta = (A[q * n + q] - A[p * n + p]) / (2.0 * apq);
                /* t = tan of the rotation angle, the root of t^2 + 2 theta t - 1
                   of smaller magnitude; 0.5/theta where theta^2 would overflow. */
                if (fabs(theta) > 1e150)
                    t = 0.5 / theta;
                else
                    t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                c = 1.0 / sqrt(t * t + 1.0);
                s = t * c;
                for (r = 0; r < n; ++r) {
                    double arp = A[r * n + p], arq = A[r * n + q];
                    A[r * n + p] = c * arp - s * arq;
                    A[r * n + q] = s * arp + c * arq;
                }
                for (r = 0; r < n; ++r) {
                    double apr = A[p * n + r], aqr = A[q * n + r];
                    A[p * n + r] = c * apr - s * aqr;
                    A[q * n + r] = s * apr + c * aqr;
                }
                A[p * n + q] = A[q * n + p] = 0.0;
                for (r = 0; r < n; ++r) {
                    double vrp = V[r * n + p], vrq = V[r * n + q];
                    V[r * n + p] = c * vrp - s * vrq;
                    V[r * n + q] = s * vrp + c * vrq;
                }
            }
        }
    }
    for (i = 0; i < n; ++i) w[i] = A[i * n + i];
    /* Selection sort, ascending, moving eigenvector columns along. */
    for (i = 0; i < n - 1; ++i) {
        int m = i;
        for (j = i + 1; j < n; ++j)
            if (w[j] < w[m]) m = j;
        if (m != i) {
            double tmp = w[i];
            w[i] = w[m];
            w[m] = tmp;
            for (r = 0; r < n; ++r) {
                tmp = V[r * n + i];
                V[r * n + i] = V[r * n + m];
                V[r * n + m] = tmp;
            }
        }
    }
    return res;
}

/* 2-norm of the column segment A[i][col], i = from..m-1, scaled against
   overflow and underflow. */
ISDB__PRIVATE double isdb__col_norm(int m, int n, const double *A, int col, int from) {
    double scale = 0.0, sum = 0.0;
    int i;
    for (i = from; i < m; ++i) {
        double a = fabs(A[i * n + col]);
        if (a > scale) scale = a;
    }
    if (scale == 0.0) return 0.0;
    for (i = from; i < m; ++i) {
        double a = A[i * n + col] / scale;
        sum += a * a;
    }
    return scale * sqrt(sum);
}

/* Householder reflector H = I - tau v v^T (v[j] = 1 implied, v[i] stored in
   A[i][j] for i > j) that maps column j, rows j..m-1, to (beta, 0, ...);
   applied to the columns right of j. Returns tau (0: H = I). */
ISDB__PRIVATE double isdb__householder_step(int m, int n, double *A, int j) {
    double alpha = A[j * n + j], norm = isdb__col_norm(m, n, A, j, j), beta, tau, scale;
    int i, c;
    if (norm == 0.0) return 0.0;
    beta = alpha >= 0.0 ? -norm : norm;
    tau = (beta - alpha) / beta;
    scale = 1.0 / (alpha - beta);
    for (i = j + 1; i < m; ++i) A[i * n + j] *= scale;
    A[j * n + j] = beta;
    for (c = j + 1; c < n; ++c) {
        double s = A[j * n + c];
        for (i = j + 1; i < m; ++i) s += A[i * n + j] * A[i * n + c];
        s *= tau;
        A[j * n + c] -= s;
        for (i = j + 1; i < m; ++i) A[i * n + c] -= s * A[i * n + j];
    }
    return tau;
}

/* Q = H_0 H_1 ... H_{k-1} (m x m) from the reflectors left in A by
   isdb__householder_step, accumulated backwards; then clears them from A. */
ISDB__PRIVATE void isdb__householder_q(int m, int n, double *A, const double *tau, int k, double *Q) {
    int i, j, c;
    if (Q) {
        isdb__identity(m, Q, 1.0);
        for (j = k - 1; j >= 0; --j) {
            if (tau[j] == 0.0) continue;
            for (c = j; c < m; ++c) {
                double s = Q[j * m + c];
                for (i = j + 1; i < m; ++i) s += A[i * n + j] * Q[i * m + c];
                s *= tau[j];
                Q[j * m + c] -= s;
                for (i = j + 1; i < m; ++i) Q[i * m + c] -= s * A[i * n + j];
            }
        }
    }
    for (i = 1; i < m; ++i)
        for (j = 0; j < i && j < n; ++j) A[i * n + j] = 0.0;
}

size_t isdb_qr_work_size(int m, int n) { return (m > 0 && n > 0) ? (size_t)isdb__min_int(m, n) : 0; }

isdb_result isdb_qr(int m, int n, double *A, double *Q, double *work) {
    int j, k = isdb__min_int(m, n);
    if (!isdb__dim_ok(m) || !isdb__dim_ok(n) || !A || !work || (Q && Q == A)) return ISDB_ERR_INVALID_ARG;
    if (!isdb__all_finite(A, m * n)) return ISDB_ERR_NONFINITE;
    for (j = 0; j < k; ++j) work[j] = isdb__householder_step(m, n, A, j);
    isdb__householder_q(m, n, A, work, k, Q);
    return ISDB_OK;
}

size_t isdb_orth_basis_work_size(int m, int n) {
    return (m > 0 && n > 0) ? (size_t)m * (size_t)n + (size_t)isdb__min_int(m, n) : 0;
}

isdb_result isdb_orth_basis(int m, int n, const double *A, double rtol, double *Q, int *rank, double *work) {
    double *W = work, *tau = work + m * n, top = 0.0;
    int i, j, c, k = isdb__min_int(m, n), r = 0;
    if (!isdb__dim_ok(m) || !isdb__dim_ok(n) || !A || !Q || !rank || !work || !(rtol < 1.0))
        return ISDB_ERR_INVALID_ARG;
    if (!isdb__all_finite(A, m * n)) return ISDB_ERR_NONFINITE;
    if (!(rtol > 0.0)) rtol = (double)isdb__max_int(m, n) * DBL_EPSILON;
    isdb__copy(m * n, A, W);
    for (j = 0; j < k; ++j) {
        /* Pivot: the remaining column of largest norm, recomputed directly
           (no norm downdating, so no cancellation). */
        int best = j;
        double best_norm = isdb__col_norm(m, n, W, j, j);
        for (c = j + 1; c < n; ++c) {
            double cn = isdb__col_norm(m, n, W, c, j);
            if (cn > best_norm) {
                best = c;
                best_norm = cn;
            }
        }
        if (j == 0) top = best_norm;
        if (!(best_norm > rtol * top) || best_norm == 0.0) {
            for (i = j; i < k; ++i) tau[i] = 0.0;
            break;
        }
        if (best != j)
            for (i = 0; i < m; ++i) {
                double tmp = W[i * n + j];
                W[i * n + j] = W[i * n + best];
                W[i * n + best] = tmp;
            }
        tau[j] = isdb__householder_step(m, n, W, j);
        ++r;
    }
    isdb__householder_q(m, n, W, tau, r, Q);
    *rank = r;
    return ISDB_OK;
}

isdb_result isdb_lu(int n, double *A, int *piv) {
    double amax = 0.0, tol;
    int i, j, k;
    if (!isdb__dim_ok(n) || !A || !piv) return ISDB_ERR_INVALID_ARG;
    if (!isdb__all_finite(A, n * n)) return ISDB_ERR_NONFINITE;
    for (i = 0; i < n * n; ++i)
        if (fabs(A[i]) > amax) amax = fabs(A[i]);
    tol = (double)n * DBL_EPSILON * amax;
    for (k = 0; k < n; ++k) {
        int p = k;
        for (i = k + 1; i < n; ++i)
            if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
        piv[k] = p;
        if (!(fabs(A[p * n + k]) > tol)) return ISDB_ERR_SINGULAR;
        if (p != k)
            for (j = 0; j < n; ++j) {
                double tmp = A[k * n + j];
                A[k * n + j] = A[p * n + j];
                A[p * n + j] = tmp;
            }
        for (i = k + 1; i < n; ++i) {
            double f = A[i * n + k] /= A[k * n + k];
            for (j = k + 1; j < n; ++j) A[i * n + j] -= f * A[k * n + j];
        }
    }
    return ISDB_OK;
}

void isdb_lu_solve(int n, const double *LU, const int *piv, int nrhs, double *B) {
    int i, j, k;
    ISDB_ASSERT(LU && piv && B && n >= 1 && nrhs >= 1);
    if (!LU || !piv || !B || n < 1 || nrhs < 1) return;
    for (k = 0; k < n; ++k)
        if (piv[k] != k)
            for (j = 0; j < nrhs; ++j) {
                double tmp = B[k * nrhs + j];
                B[k * nrhs + j] = B[piv[k] * nrhs + j];
                B[piv[k] * nrhs + j] = tmp;
            }
    for (i = 1; i < n; ++i)
        for (k = 0; k < i; ++k)
            for (j = 0; j < nrhs; ++j) B[i * nrhs + j] -= LU[i * n + k] * B[k * nrhs + j];
    for (i = n - 1; i >= 0; --i) {
        for (k = i + 1; k < n; ++k)
            for (j = 0; j < nrhs; ++j) B[i * nrhs + j] -= LU[i * n + k] * B[k * nrhs + j];
        for (j = 0; j < nrhs; ++j) B[i * nrhs + j] /= LU[i * n + i];
    }
}

size_t isdb_polar_work_size(int n) { return n > 0 ? 2 * (size_t)n * (size_t)n : 0; }

isdb_result isdb_polar(int n, const double *A, double *Q, double *work) {
    double *U = work, *W = work + n * n, smax = 0.0, smin = DBL_MAX;
    int i, j, r, sweep, rotated = 1;
    if (!isdb__dim_ok(n) || !A || !Q || !work) return ISDB_ERR_INVALID_ARG;
    if (!isdb__all_finite(A, n * n)) return ISDB_ERR_NONFINITE;
    isdb__copy(n * n, A, U);
    isdb__identity(n, W, 1.0);
    /* One-sided Jacobi: rotate column pairs of U = A W until orthogonal. */
    for (sweep = 0; sweep < 60 && rotated; ++sweep) {
        rotated = 0;
        for (i = 0; i < n - 1; ++i)
            for (j = i + 1; j < n; ++j) {
                double a = 0.0, b = 0.0, g = 0.0, zeta, t, c, s;
                for (r = 0; r < n; ++r) {
                    a += U[r * n + i] * U[r * n + i];
                    b += U[r * n + j] * U[r * n + j];
                    g += U[r * n + i] * U[r * n + j];
                }
                if (!(fabs(g) > DBL_EPSILON * sqrt(a * b))) continue;
                rotated = 1;
                zeta = (b - a) / (2.0 * g);
                if (fabs(zeta) > 1e150)
                    t = 0.5 / zeta;
                else
                    t = (zeta >= 0.0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
                c = 1.0 / sqrt(1.0 + t * t);
                s = c * t;
                for (r = 0; r < n; ++r) {
                    double ui = U[r * n + i], uj = U[r * n + j], wi = W[r * n + i], wj = W[r * n + j];
                    U[r * n + i] = c * ui - s * uj;
                    U[r * n + j] = s * ui + c * uj;
                    W[r * n + i] = c * wi - s * wj;
                    W[r * n + j] = s * wi + c * wj;
                }
            }
    }
    for (j = 0; j < n; ++j) {
        double sj = isdb__col_norm(n, n, U, j, 0);
        if (sj > smax) smax = sj;
        if (sj < smin) smin = sj;
        if (sj > 0.0)
            for (r = 0; r < n; ++r) U[r * n + j] /= sj;
    }
    if (!(smin > (double)n * DBL_EPSILON * smax)) return ISDB_ERR_SINGULAR;
    for (r = 0; r < n; ++r)
        for (j = 0; j < n; ++j) {
            double s = 0.0;
            for (i = 0; i < n; ++i) s += U[r * n + i] * W[j * n + i];
            Q[r * n + j] = s;
        }
    return rotated ? ISDB_MAXITER_REACHED : ISDB_OK;
}

/* ---------------------------------------------------------------------------
   Joint block diagonalization
   ------------------------------------------------------------------------ */

isdb_jbd_options isdb_jbd_options_init(void) {
    isdb_jbd_options o;
    memset(&o, 0, sizeof o);
    o.method = ISDB_JBD_JACOBI;
    o.max_iter = 0;
    o.tol = 0.0;
    o.threshold = 0.0;
    o.scale = ISDB_JBD_SCALE_CORRELATION;
    o.off_norm = ISDB_JBD_OFF_MAXCOL;
    return o;
}

size_t isdb_jbd_work_size(int p, int m) {
    if (p < 1 || m < 1) return 0;
    return (size_t)m * (size_t)p * (size_t)p + 8 * (size_t)p * (size_t)p + 4 * (size_t)p;
}

/* The sizes every JBD entry point accepts: m p^2 must index as an int. */
ISDB__PRIVATE int isdb__jbd_sizes_ok(int p, int m) { return isdb__dim_ok(p) && m >= 1 && m <= INT_MAX / (p * p); }

/* S_k = U^T sym(C_k) U for every k, sym(C) = (C + C^T) / 2. T: p^2. */
ISDB__PRIVATE void isdb__jbd_transform(int p, int m, const double *C, const double *U, double *S, double *T) {
    int k, i, j, l, pp = p * p;
    for (k = 0; k < m; ++k) {
        const double *Ck = C + k * pp;
        double *Sk = S + k * pp;
        for (i = 0; i < p; ++i)
            for (j = 0; j < p; ++j) {
                double s = 0.0;
                for (l = 0; l < p; ++l) s += 0.5 * (Ck[i * p + l] + Ck[l * p + i]) * U[l * p + j];
                T[i * p + j] = s;
            }
        for (i = 0; i < p; ++i)
            for (j = 0; j <= i; ++j) {
                double s = 0.0;
                for (l = 0; l < p; ++l) s += U[l * p + i] * T[l * p + j];
                Sk[i * p + j] = s;
                Sk[j * p + i] = s;
            }
    }
}

/* Rotates the basis in the plane of columns i and j,
   u_i <- c u_i + s u_j, u_j <- -s u_i + c u_j, and every S_k with it
   (S_k <- R^T S_k R on rows and columns i, j). */
ISDB__PRIVATE void isdb__jbd_rotate(int p, int m, double *S, double *U, int i, int j, double c, double s) {
    int k, r, pp = p * p;
    for (r = 0; r < p; ++r) {
        double ui = U[r * p + i], uj = U[r * p + j];
        U[r * p + i] = c * ui + s * uj;
        U[r * p + j] = c * uj - s * ui;
    }
    for (k = 0; k < m; ++k) {
        double *Sk = S + k * pp;
        for (r = 0; r < p; ++r) {
            double a = Sk[r * p + i], b = Sk[r * p + j];
            Sk[r * p + i] = c * a + s * b;
            Sk[r * p + j] = c * b - s * a;
        }
        for (r = 0; r < p; ++r) {
            double a = Sk[i * p + r], b = Sk[j * p + r];
            Sk[i * p + r] = c * a + s * b;
            Sk[j * p + r] = c * b - s * a;
        }
        for (r = 0; r < p; ++r) {
            Sk[r * p + i] = Sk[i * p + r];
            Sk[r * p + j] = Sk[j * p + r];
        }
    }
}

/* Jacobi angles. For the pair (i, j), h_k = (S_k[i,i] - S_k[j,j], 2 S_k[i,j])
   and the rotation by theta turns h_k into (cos 2theta, sin 2theta) . h_k
   on the diagonal difference; the off-diagonal mass of the pair is least
   when (cos 2theta, sin 2theta) is the leading eigenvector of
   G = sum_k h_k h_k^T, i.e. theta = atan2(2 G12, G11 - G22) / 4, in
   (-pi/4, pi/4]. Returns 1 when a sweep made no rotation with |sin| > tol. */
ISDB__PRIVATE int isdb__jbd_jacobi(int p, int m, double *S, double *U, int max_sweeps, double tol, int *sweeps) {
    int sweep, i, j, k, pp = p * p;
    for (sweep = 0; sweep < max_sweeps; ++sweep) {
        int rotated = 0;
        for (i = 0; i < p - 1; ++i)
            for (j = i + 1; j < p; ++j) {
                double g11 = 0.0, g12 = 0.0, g22 = 0.0, theta, c, s;
                for (k = 0; k < m; ++k) {
                    const double *Sk = S + k * pp;
                    double dd = Sk[i * p + i] - Sk[j * p + j], oo = 2.0 * Sk[i * p + j];
                    g11 += dd * dd;
                    g12 += dd * oo;
                    g22 += oo * oo;
                }
                theta = 0.25 * atan2(2.0 * g12, g11 - g22);
                s = sin(theta);
                if (!(fabs(s) > tol)) continue;
                c = cos(theta);
                isdb__jbd_rotate(p, m, S, U, i, j, c, s);
                rotated = 1;
            }
        if (!rotated) {
            *sweeps = sweep + 1;
            return 1;
        }
    }
    *sweeps = max_sweeps;
    return 0;
}

/* Orthogonalized U-WEDGE. w: 5 p^2 scratch (V, A, G, and 2 p^2 for the
   polar factor); piv: p ints. Returns 1 on convergence. */
ISDB__PRIVATE int isdb__jbd_uwedge(int p, int m, const double *C, double *S, double *U, int max_iter, double tol,
                                   int *iters, double *w, int *piv) {
    double *V = w, *A = w + p * p, *T = w + 2 * p * p, *pw = w + 3 * p * p;
    int it, i, j, k, pp = p * p;
    for (it = 0; it < max_iter; ++it) {
        double change = 0.0;
        isdb__jbd_transform(p, m, C, U, S, T);
        /* G (into T) and A. */
        for (i = 0; i < p; ++i)
            for (j = 0; j <= i; ++j) {
                double g = 0.0;
                for (k = 0; k < m; ++k) g += S[k * pp + i * p + i] * S[k * pp + j * p + j];
                T[i * p + j] = T[j * p + i] = g;
            }
        for (i = 0; i < p; ++i) {
            A[i * p + i] = 1.0;
            for (j = 0; j < i; ++j) {
                double zij = 0.0, zji = 0.0, gii = T[i * p + i], gjj = T[j * p + j], gij = T[i * p + j];
                double det = gii * gjj - gij * gij;
                for (k = 0; k < m; ++k) {
                    const double *Sk = S + k * pp;
                    zij += Sk[j * p + j] * Sk[i * p + j];
                    zji += Sk[i * p + i] * Sk[i * p + j];
                }
                if (!(det > 1e-12 * gii * gjj)) {
                    A[i * p + j] = A[j * p + i] = 0.0;
                    continue;
                }
                A[i * p + j] = (gii * zij - gij * zji) / det;
                A[j * p + i] = (gjj * zji - gij * zij) / det;
            }
        }
        /* V = A^-1 U^T, then its orthogonal polar factor; U = V^T. */
        if (isdb_lu(p, A, piv) != ISDB_OK) break;
        for (i = 0; i < p; ++i)
            for (j = 0; j < p; ++j) V[i * p + j] = U[j * p + i];
        isdb_lu_solve(p, A, piv, p, V);
        if (isdb_polar(p, V, V, pw) < 0) break;
        for (i = 0; i < p; ++i)
            for (j = 0; j < p; ++j) {
                double diff = fabs(V[j * p + i] - U[i * p + j]);
                if (diff > change) change = diff;
                U[i * p + j] = V[j * p + i];
            }
        if (change < tol) {
            *iters = it + 1;
            return 1;
        }
    }
    *iters = it;
    return 0;
}

/* Connected components of the graph {D_ij > tau}, breadth first from the
   lowest unassigned column, each member pulling in its unassigned
   neighbours strongest first (ties: lowest index). order receives the
   columns in discovery order, blk the block of each column (both hold
   small integers as doubles). Returns the number of blocks. */
ISDB__PRIVATE int isdb__jbd_components(int p, const double *D, double tau, double *order, double *blk) {
    int nb = 0, pos = 0, start, head, j;
    for (j = 0; j < p; ++j) blk[j] = -1.0;
    for (start = 0; start < p; ++start) {
        if (blk[start] >= 0.0) continue;
        blk[start] = (double)nb;
        order[pos++] = (double)start;
        for (head = pos - 1; head < pos; ++head) {
            int i = (int)order[head];
            for (;;) {
                int best = -1;
                for (j = 0; j < p; ++j)
                    if (blk[j] < 0.0 && D[i * p + j] > tau && (best < 0 || D[i * p + j] > D[i * p + best])) best = j;
                if (best < 0) break;
                blk[best] = (double)nb;
                order[pos++] = (double)best;
            }
        }
        ++nb;
    }
    return nb;
}

/* The coupling strengths D of step 2 (see isdb_jbd_scale). */
ISDB__PRIVATE void isdb__jbd_strength(int p, int m, const double *S, isdb_jbd_scale scale, double *D) {
    double norm = 0.0;
    int i, j, k, pp = p * p;
    if (scale == ISDB_JBD_SCALE_CORRELATION) {
        for (i = 0; i < p; ++i)
            for (j = 0; j < p; ++j) {
                double v = 0.0;
                if (i == j) v = 1.0;
                else
                    for (k = 0; k < m; ++k) {
                        const double *Sk = S + k * pp;
                        double den = sqrt(fabs(Sk[i * p + i]) * fabs(Sk[j * p + j])), a = fabs(Sk[i * p + j]);
                        /* a/den, with coupling to a zero variance counted as full */
                        double r = den > 0.0 ? a / den : (a > 0.0 ? 1.0 : 0.0);
                        if (r > v) v = r;
                    }
                D[i * p + j] = v;
            }
        return;
    }
    for (i = 0; i < pp; ++i) {
        double v = 0.0;
        for (k = 0; k < m; ++k)
            if (fabs(S[k * pp + i]) > v) v = fabs(S[k * pp + i]);
        D[i] = v;
        norm += v * v;
    }
    norm = sqrt(norm);
    if (norm > 0.0)
        for (i = 0; i < pp; ++i) D[i] /= norm;
}

/* sum_b s_b^2 for the assignment blk of nb blocks. */
ISDB__PRIVATE double isdb__jbd_sum_sq(int p, const double *blk, int nb) {
    double total = 0.0;
    int b, j;
    for (b = 0; b < nb; ++b) {
        int s = 0;
        for (j = 0; j < p; ++j)
            if ((int)blk[j] == b) ++s;
        total += (double)s * (double)s;
    }
    return total;
}

/* off(tau) of the criterion (see the declarations). */
ISDB__PRIVATE double isdb__jbd_off(int p, int m, const double *S, const double *blk, int nb, double sum_sq,
                                   double mean_frob, isdb_jbd_offnorm norm) {
    double total = 0.0;
    int k, r, c, pp = p * p;
    if (nb == 1) return mean_frob;
    for (k = 0; k < m; ++k) {
        double colmax = 0.0;
        for (c = 0; c < p; ++c) {
            double s = 0.0;
            for (r = 0; r < p; ++r)
                if (blk[r] != blk[c]) s += fabs(S[k * pp + r * p + c]);
            if (norm == ISDB_JBD_OFF_ENTRYWISE)
                colmax += s; /* the sum over all columns */
            else if (s > colmax)
                colmax = s;
        }
        total += colmax;
    }
    return total / ((double)m * ((double)p * (double)p - sum_sq));
}

/* sqrt(sum_k sum_{i,j: excluded} S_k[i,j]^2 / sum_k ||S_k||_F^2); the
   excluded entries are i != j (blk NULL) or different blocks. */
ISDB__PRIVATE double isdb__jbd_mass(int p, int m, const double *S, const double *blk) {
    double off = 0.0, all = 0.0;
    int k, i, j, pp = p * p;
    for (k = 0; k < m; ++k)
        for (i = 0; i < p; ++i)
            for (j = 0; j < p; ++j) {
                double v = S[k * pp + i * p + j];
                all += v * v;
                if (blk ? blk[i] != blk[j] : i != j) off += v * v;
            }
    return all > 0.0 ? sqrt(off / all) : 0.0;
}

/* Permutes U's columns into discovery order and writes the block sizes. */
ISDB__PRIVATE void isdb__jbd_apply(int p, double *U, const double *order, const double *blk, int nb, int *sizes,
                                   double *T) {
    int i, q, b;
    for (i = 0; i < p; ++i)
        for (q = 0; q < p; ++q) T[i * p + q] = U[i * p + (int)order[q]];
    isdb__copy(p * p, T, U);
    for (b = 0; b < nb; ++b) sizes[b] = 0;
    for (q = 0; q < p; ++q) sizes[(int)blk[q]]++;
}

isdb_result isdb_jbd_blocks(int p, int m, const double *C, double tau, isdb_jbd_scale scale, double *U, int *sizes,
                            int *n_blocks, double *work) {
    double *S, *D, *T, *order, *blk;
    int nb, pp;
    if (!isdb__jbd_sizes_ok(p, m) || !C || !U || !sizes || !n_blocks || !work || !(tau > 0.0 && tau <= 1.0) ||
        (scale != ISDB_JBD_SCALE_CORRELATION && scale != ISDB_JBD_SCALE_FROBENIUS))
        return ISDB_ERR_INVALID_ARG;
    pp = p * p;
    if (!isdb__all_finite(C, m * pp) || !isdb__all_finite(U, pp)) return ISDB_ERR_NONFINITE;
    S = work;
    D = S + m * pp;
    T = D + pp;
    order = T + pp;
    blk = order + p;
    isdb__jbd_transform(p, m, C, U, S, T);
    isdb__jbd_strength(p, m, S, scale, D);
    nb = isdb__jbd_components(p, D, tau, order, blk);
    isdb__jbd_apply(p, U, order, blk, nb, sizes, T);
    *n_blocks = nb;
    return ISDB_OK;
}

isdb_result isdb_jbd(int p, int m, const double *C, const isdb_jbd_options *opt, double *U, int *sizes,
                     double *work, isdb_jbd_info *info) {
    static const double taus[9] = {0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0};
    isdb_jbd_options o = opt ? *opt : isdb_jbd_options_init();
    isdb_jbd_info inf;
    double *S, *D, *T, *E, *W6, *ev, *order, *blk, lbar = 0.0, mean_frob = 0.0, best_crit = 0.0, best_tau;
    int pp, i, k, nb, c, iters = 0, converged;
    if (!isdb__jbd_sizes_ok(p, m) || !C || !U || !sizes || !work) return ISDB_ERR_INVALID_ARG;
    if (o.method != ISDB_JBD_JACOBI && o.method != ISDB_JBD_UWEDGE) return ISDB_ERR_INVALID_ARG;
    if (o.scale != ISDB_JBD_SCALE_CORRELATION && o.scale != ISDB_JBD_SCALE_FROBENIUS) return ISDB_ERR_INVALID_ARG;
    if (o.off_norm != ISDB_JBD_OFF_MAXCOL && o.off_norm != ISDB_JBD_OFF_ENTRYWISE) return ISDB_ERR_INVALID_ARG;
    if (o.max_iter < 0 || !(o.tol >= 0.0) || !(o.threshold >= 0.0 && o.threshold <= 1.0))
        return ISDB_ERR_INVALID_ARG;
    pp = p * p;
    if (!isdb__all_finite(C, m * pp)) return ISDB_ERR_NONFINITE;
    if (o.max_iter == 0) o.max_iter = o.method == ISDB_JBD_JACOBI ? 100 : 1000;
    if (o.tol == 0.0) o.tol = o.method == ISDB_JBD_JACOBI ? 1e-12 : 1e-10;
    S = work;
    D = S + m * pp;
    T = D + pp;
    E = T + pp;
    W6 = E + pp; /* 5 p^2 more: U-WEDGE scratch (it also reuses T) */
    ev = W6 + 5 * pp;
    order = ev + p;
    blk = order + p;
    /* Start: the eigenvectors of C_1. */
    for (i = 0; i < pp; ++i) T[i] = 0.5 * (C[i] + C[(i % p) * p + i / p]);
    if (isdb_sym_eig(p, T, ev, U) < 0) return ISDB_ERR_NONFINITE;
    isdb__jbd_transform(p, m, C, U, S, T);
    if (o.method == ISDB_JBD_JACOBI) {
        converged = isdb__jbd_jacobi(p, m, S, U, o.max_iter, o.tol, &iters);
    } else {
        /* W6: the 5 p^2 of U-WEDGE scratch; sizes serve as LU pivots. */
        converged = isdb__jbd_uwedge(p, m, C, S, U, o.max_iter, o.tol, &iters, W6, sizes);
    }
    isdb__jbd_transform(p, m, C, U, S, T);
    isdb__jbd_strength(p, m, S, o.scale, D);
    /* lbar = mean_k lambda_min(C_k); mean_frob = mean_k ||C_k||_F. */
    for (k = 0; k < m; ++k) {
        double fro = 0.0;
        for (i = 0; i < pp; ++i) {
            T[i] = 0.5 * (C[k * pp + i] + C[k * pp + (i % p) * p + i / p]);
            fro += T[i] * T[i];
        }
        mean_frob += sqrt(fro);
        if (isdb_sym_eig(p, T, ev, E) < 0) return ISDB_ERR_NONFINITE;
        lbar += ev[0];
    }
    lbar /= (double)m;
    mean_frob /= (double)m;
    best_tau = o.threshold;
    for (c = 0; c < 9; ++c) {
        double tau = o.threshold > 0.0 ? o.threshold : taus[c], sq, crit;
        nb = isdb__jbd_components(p, D, tau, order, blk);
        sq = isdb__jbd_sum_sq(p, blk, nb);
        crit = isdb__jbd_off(p, m, S, blk, nb, sq, mean_frob, o.off_norm) + lbar * sq / ((double)p * (double)p);
        if (c == 0 || crit < best_crit) {
            best_crit = crit;
            best_tau = tau;
        }
        if (o.threshold > 0.0) break;
    }
    nb = isdb__jbd_components(p, D, best_tau, order, blk);
    memset(&inf, 0, sizeof inf);
    inf.converged = converged;
    inf.iterations = iters;
    inf.n_blocks = nb;
    inf.threshold = best_tau;
    inf.criterion = best_crit;
    inf.offdiag = isdb__jbd_mass(p, m, S, NULL);
    inf.offblock = isdb__jbd_mass(p, m, S, blk);
    isdb__jbd_apply(p, U, order, blk, nb, sizes, T);
    if (info) *info = inf;
    return converged ? ISDB_OK : ISDB_MAXITER_REACHED;
}

/* ---------------------------------------------------------------------------
   Heap layout: every object carves its arrays out of one block. Called with
   base NULL it only measures; sizes are rounded to 64 bytes.
   ------------------------------------------------------------------------ */

typedef struct isdb__arena {
    unsigned char *base;
    size_t used;
    int overflow;
} isdb__arena;

ISDB__PRIVATE void *isdb__take(isdb__arena *a, int count, size_t elem) {
    size_t bytes;
    void *ptr;
    if (count < 0 || (size_t)count > (SIZE_MAX - 64) / elem) {
        a->overflow = 1;
        return NULL;
    }
    bytes = ((size_t)count * elem + 63) & ~(size_t)63;
    if (a->used > SIZE_MAX - bytes) {
        a->overflow = 1;
        return NULL;
    }
    ptr = a->base ? a->base + a->used : NULL;
    a->used += bytes;
    return ptr;
}

ISDB__PRIVATE double *isdb__take_f64(isdb__arena *a, int count) {
    return (double *)isdb__take(a, count, sizeof(double));
}

ISDB__PRIVATE int isdb__allocator_ok(const isdb_allocator *alloc) {
    return !alloc || (alloc->alloc_fn && alloc->free_fn);
}

/* One allocation of n bytes from alloc (NULL: ISDB_MALLOC). */
ISDB__PRIVATE isdb_result isdb__heap_alloc(const isdb_allocator *alloc, size_t n, void **heap) {
    void *h;
    *heap = NULL;
    if (!isdb__allocator_ok(alloc)) return ISDB_ERR_INVALID_ARG;
    h = alloc ? alloc->alloc_fn(n ? n : 1, alloc->user) : ISDB_MALLOC(n ? n : 1);
    if (!h) return ISDB_ERR_OUT_OF_MEMORY;
    *heap = h;
    return ISDB_OK;
}

ISDB__PRIVATE void isdb__heap_free(const isdb_allocator *alloc, void *heap) {
    if (!heap) return;
    if (alloc && alloc->free_fn)
        alloc->free_fn(heap, alloc->user);
    else
        ISDB_FREE(heap);
}

/* Heaps must hold doubles: 8-byte alignment (malloc gives more). */
ISDB__PRIVATE int isdb__heap_aligned(const void *heap) { return heap && ((uintptr_t)heap & 7u) == 0; }

/* ---------------------------------------------------------------------------
   Snapshot serializer. One function per policy walks its config and state
   in a fixed order; the mode decides what a step does:
     SIZE   count bytes            WRITE  write them
     CHECK  read and validate, store nothing
     READ   read and store (only after a CHECK pass succeeded)
   Config values are written, and on CHECK/READ compared with the object's
   own. A layout depends on the config alone, so CHECK needs no state.
   ------------------------------------------------------------------------ */

enum { ISDB__SER_SIZE, ISDB__SER_WRITE, ISDB__SER_CHECK, ISDB__SER_READ };

struct isdb_ser {
    int mode;
    unsigned char *out;
    const unsigned char *in;
    size_t pos, end;
    int failed;
};

#define ISDB__SNAPSHOT_VERSION 1u
#define ISDB__SNAPSHOT_HEADER 24u

ISDB__PRIVATE uint64_t isdb__fnv1a(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    for (i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

ISDB__PRIVATE void isdb__put_le(unsigned char *p, uint64_t v, int bytes) {
    int i;
    for (i = 0; i < bytes; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

ISDB__PRIVATE uint64_t isdb__get_le(const unsigned char *p, int bytes) {
    uint64_t v = 0;
    int i;
    for (i = 0; i < bytes; ++i) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The raw step: moves `bytes` little-endian bytes between *v and the
   stream. Returns 0 when a read runs past the end. */
ISDB__PRIVATE int isdb__ser_raw(isdb_ser *s, uint64_t *v, int bytes) {
    if (s->failed) return 0;
    switch (s->mode) {
    case ISDB__SER_WRITE:
        isdb__put_le(s->out + s->pos, *v, bytes);
        break;
    case ISDB__SER_CHECK:
    case ISDB__SER_READ:
        if (s->end - s->pos < (size_t)bytes) {
            s->failed = 1;
            return 0;
        }
        *v = isdb__get_le(s->in + s->pos, bytes);
        break;
    default:
        break;
    }
    s->pos += (size_t)bytes;
    return 1;
}

ISDB__PRIVATE int isdb__ser_storing(const isdb_ser *s) { return s->mode == ISDB__SER_READ && !s->failed; }

ISDB__PRIVATE void isdb__ser_u64(isdb_ser *s, uint64_t *v) {
    uint64_t x = *v;
    if (isdb__ser_raw(s, &x, 8) && isdb__ser_storing(s)) *v = x;
}

/* An int that must lie in [lo, hi]. */
ISDB__PRIVATE void isdb__ser_int(isdb_ser *s, int *v, int lo, int hi) {
    uint64_t x = (uint64_t)(uint32_t)*v;
    int value;
    if (!isdb__ser_raw(s, &x, 4)) return;
    value = (int)(int32_t)(uint32_t)x;
    if (s->mode >= ISDB__SER_CHECK && (value < lo || value > hi)) s->failed = 1;
    if (isdb__ser_storing(s)) *v = value;
}

/* n doubles, each of which must be finite. */
ISDB__PRIVATE void isdb__ser_f64(isdb_ser *s, double *v, int n) {
    int i;
    for (i = 0; i < n; ++i) {
        uint64_t x;
        double value;
        memcpy(&x, &v[i], sizeof x);
        if (!isdb__ser_raw(s, &x, 8)) return;
        memcpy(&value, &x, sizeof value);
        if (s->mode >= ISDB__SER_CHECK && !isdb__finite(value)) s->failed = 1;
        if (isdb__ser_storing(s)) v[i] = value;
    }
}

/* Config values: written, and on reading required to equal the object's
   own (bit for bit). */
ISDB__PRIVATE void isdb__ser_cfg_u64(isdb_ser *s, uint64_t v) {
    uint64_t x = v;
    if (isdb__ser_raw(s, &x, 8) && s->mode >= ISDB__SER_CHECK && x != v) s->failed = 1;
}

ISDB__PRIVATE void isdb__ser_cfg_int(isdb_ser *s, int v) { isdb__ser_cfg_u64(s, (uint64_t)(int64_t)v); }

ISDB__PRIVATE void isdb__ser_cfg_f64(isdb_ser *s, double v) {
    uint64_t x;
    memcpy(&x, &v, sizeof x);
    isdb__ser_cfg_u64(s, x);
}

ISDB__PRIVATE void isdb__ser_rng(isdb_ser *s, isdb_rng *rng) {
    int i;
    for (i = 0; i < 4; ++i) isdb__ser_u64(s, &rng->s[i]);
    isdb__ser_f64(s, &rng->spare, 1);
    isdb__ser_int(s, &rng->has_spare, 0, 1);
}

/* ---------------------------------------------------------------------------
   The policy base and the generic functions
   ------------------------------------------------------------------------ */

const char *isdb_policy_kind_name(isdb_policy_kind kind) {
    switch (kind) {
    case ISDB_POLICY_LINUCB:
        return "linucb";
    case ISDB_POLICY_SWUCB:
        return "swucb";
    case ISDB_POLICY_DLINUCB:
        return "dlinucb";
    case ISDB_POLICY_LINTS:
        return "lints";
    case ISDB_POLICY_BOB:
        return "bob";
    case ISDB_POLICY_ISD:
        return "isd";
    case ISDB_POLICY_OPKB:
        return "opkb";
    case ISDB_POLICY_OAM:
        return "oam";
    case ISDB_POLICY_TRACEUCB:
        return "traceucb";
    default:
        break;
    }
    return "unknown";
}

/* Fills the base of a policy whose arrays were carved from heap. */
ISDB__PRIVATE void isdb__policy_base_init(isdb_policy *p, const isdb_policy_vtable *vt, int d, int max_arms,
                                          uint64_t seed, void *heap, size_t heap_size) {
    memset(p, 0, sizeof *p);
    p->vt = vt;
    p->d = d;
    p->max_arms = max_arms;
    p->seed = seed;
    p->_heap = heap;
    p->_heap_size = heap_size;
    isdb_rng_seed(&p->rng, seed);
}

/* Sizes every policy checks: d in 1..ISDB_MAX_DIM, max_arms >= 1, and an
   n_arms x d matrix indexable by int. */
ISDB__PRIVATE int isdb__sizes_ok(int d, int max_arms) {
    return isdb__dim_ok(d) && max_arms >= 1 && max_arms <= INT_MAX / d;
}

/* The tail of every isdb_X_init: allocate the measured heap, run
   init_preallocated through `setup`, and hand the heap to the policy. */
ISDB__PRIVATE isdb_result isdb__policy_init_owned(isdb_policy *base, size_t bytes, const isdb_allocator *alloc,
                                                  isdb_result (*setup)(const void *cfg, void *heap, void *pol),
                                                  const void *cfg, void *pol) {
    void *heap;
    isdb_result r = isdb__heap_alloc(alloc, bytes, &heap);
    if (r != ISDB_OK) return r;
    r = setup(cfg, heap, pol);
    if (r != ISDB_OK) {
        isdb__heap_free(alloc, heap);
        return r;
    }
    if (alloc) base->_alloc = *alloc;
    base->_owns_heap = 1;
    return ISDB_OK;
}

/* Checks shared by select, scores and probs. */
ISDB__PRIVATE isdb_result isdb__check_round(const isdb_policy *p, const double *X, int n_arms, const void *out) {
    if (!p || !p->vt || !out) return ISDB_ERR_INVALID_ARG;
    if (n_arms < 1 || n_arms > p->max_arms) return ISDB_ERR_INVALID_ARG;
    if (!X) return (p->vt->flags & ISDB_POLICY_X_OPTIONAL) ? ISDB_OK : ISDB_ERR_INVALID_ARG;
    return isdb__check_input(X, n_arms * p->d);
}

isdb_result isdb_policy_select(isdb_policy *p, const double *X, int n_arms, int *arm) {
    isdb_result r = isdb__check_round(p, X, n_arms, arm);
    return r != ISDB_OK ? r : p->vt->select(p, X, n_arms, arm);
}

isdb_result isdb_policy_scores(isdb_policy *p, const double *X, int n_arms, double *out) {
    isdb_result r = isdb__check_round(p, X, n_arms, out);
    return r != ISDB_OK ? r : p->vt->scores(p, X, n_arms, out);
}

isdb_result isdb_policy_probs(isdb_policy *p, const double *X, int n_arms, double *out) {
    isdb_result r = isdb__check_round(p, X, n_arms, out);
    return r != ISDB_OK ? r : p->vt->probs(p, X, n_arms, out);
}

isdb_result isdb_policy_update(isdb_policy *p, int arm, const double *x, double reward) {
    isdb_result r;
    if (!p || !p->vt) return ISDB_ERR_INVALID_ARG;
    if (arm < 0 || arm >= p->max_arms) return ISDB_ERR_INVALID_ARG;
    if (x) {
        if ((r = isdb__check_input(x, p->d)) != ISDB_OK) return r;
    } else if (!(p->vt->flags & ISDB_POLICY_X_OPTIONAL)) {
        return ISDB_ERR_INVALID_ARG;
    }
    if ((r = isdb__check_input(&reward, 1)) != ISDB_OK) return r;
    /* base.t still counts the earlier updates while vt->update runs. */
    r = p->vt->update(p, arm, x, reward);
    if (r >= 0) p->t++;
    return r;
}

void isdb_policy_reset(isdb_policy *p) {
    if (!p || !p->vt) return;
    p->t = 0;
    isdb_rng_seed(&p->rng, p->seed);
    p->vt->reset(p);
}

void isdb_policy_uninit(isdb_policy *p) {
    if (!p) return;
    if (p->_owns_heap) isdb__heap_free(&p->_alloc, p->_heap);
    p->_heap = NULL;
    p->_owns_heap = 0;
    p->vt = NULL;
}

const char *isdb_policy_name(const isdb_policy *p) { return (p && p->vt) ? p->vt->name : "none"; }

ISDB__PRIVATE void isdb__serialize_policy(isdb_policy *p, isdb_ser *s) {
    isdb__ser_cfg_int(s, p->d);
    isdb__ser_cfg_int(s, p->max_arms);
    isdb__ser_cfg_u64(s, p->seed);
    isdb__ser_u64(s, &p->t);
    isdb__ser_rng(s, &p->rng);
    p->vt->serialize(p, s);
}

isdb_result isdb_policy_save(const isdb_policy *cp, void *buf, size_t cap, size_t *size) {
    isdb_policy *p = (isdb_policy *)isdb__unconst(cp);
    isdb_ser s;
    size_t total;
    unsigned char *out = (unsigned char *)buf;
    if (!p || !p->vt || !size) return ISDB_ERR_INVALID_ARG;
    memset(&s, 0, sizeof s);
    s.mode = ISDB__SER_SIZE;
    s.pos = ISDB__SNAPSHOT_HEADER;
    isdb__serialize_policy(p, &s);
    total = s.pos + 8;
    *size = total;
    if (!buf) return ISDB_OK;
    if (cap < total) return ISDB_ERR_BUFFER_TOO_SMALL;
    memcpy(out, "ISDB", 4);
    isdb__put_le(out + 4, ISDB__SNAPSHOT_VERSION, 4);
    isdb__put_le(out + 8, (uint64_t)p->vt->kind, 4);
    isdb__put_le(out + 12, (ISDB_VERSION_MAJOR << 16) | (ISDB_VERSION_MINOR << 8) | ISDB_VERSION_PATCH, 4);
    isdb__put_le(out + 16, (uint64_t)total, 8);
    s.mode = ISDB__SER_WRITE;
    s.out = out;
    s.pos = ISDB__SNAPSHOT_HEADER;
    isdb__serialize_policy(p, &s);
    isdb__put_le(out + total - 8, isdb__fnv1a(out, total - 8), 8);
    return ISDB_OK;
}

isdb_result isdb_policy_load(isdb_policy *p, const void *buf, size_t size) {
    const unsigned char *in = (const unsigned char *)buf;
    isdb_ser s;
    if (!p || !p->vt || !buf) return ISDB_ERR_INVALID_ARG;
    if (size < ISDB__SNAPSHOT_HEADER + 8) return ISDB_ERR_FORMAT;
    if (memcmp(in, "ISDB", 4) != 0 || isdb__get_le(in + 4, 4) != ISDB__SNAPSHOT_VERSION ||
        isdb__get_le(in + 8, 4) != (uint64_t)p->vt->kind || isdb__get_le(in + 16, 8) != (uint64_t)size ||
        isdb__get_le(in + size - 8, 8) != isdb__fnv1a(in, size - 8))
        return ISDB_ERR_FORMAT;
    memset(&s, 0, sizeof s);
    s.mode = ISDB__SER_CHECK;
    s.in = in;
    s.pos = ISDB__SNAPSHOT_HEADER;
    s.end = size - 8;
    isdb__serialize_policy(p, &s);
    if (s.failed || s.pos != s.end) return ISDB_ERR_FORMAT;
    s.mode = ISDB__SER_READ;
    s.pos = ISDB__SNAPSHOT_HEADER;
    isdb__serialize_policy(p, &s);
    return ISDB_OK;
}

/* ---------------------------------------------------------------------------
   Deterministic index policies: select and scores both evaluate `index`
   on every arm, so they agree exactly; probs is one-hot at select's arm.
   ------------------------------------------------------------------------ */

typedef double (*isdb__index_fn)(isdb_policy *p, const double *x, double beta);

ISDB__PRIVATE int isdb__index_argmax(isdb_policy *p, const double *X, int n_arms, isdb__index_fn index,
                                     double beta) {
    int k, best = 0, d = p->d;
    double best_value = index(p, X, beta);
    for (k = 1; k < n_arms; ++k) {
        double v = index(p, X + k * d, beta);
        if (v > best_value) {
            best_value = v;
            best = k;
        }
    }
    return best;
}

ISDB__PRIVATE void isdb__index_all(isdb_policy *p, const double *X, int n_arms, isdb__index_fn index, double beta,
                                   double *out) {
    int k;
    for (k = 0; k < n_arms; ++k) out[k] = index(p, X + k * p->d, beta);
}

ISDB__PRIVATE void isdb__one_hot(double *out, int n, int k) {
    isdb__zero(n, out);
    out[k] = 1.0;
}

/* Deterministic policies' probs: scores, then one-hot at the first max. */
ISDB__PRIVATE isdb_result isdb__probs_one_hot(isdb_policy *p, const double *X, int n_arms, double *out) {
    isdb_result r = p->vt->scores(p, X, n_arms, out);
    if (r < 0) return r;
    isdb__one_hot(out, n_arms, isdb__argmax(out, n_arms));
    return ISDB_OK;
}

/* ---------------------------------------------------------------------------
   Ridge regression core (LinUCB, SW-UCB, LinTS): V = lambda I + sum x x^T
   kept as a Cholesky factor updated by rank-one steps into a scratch
   factor that is swapped in on commit, so an update that fails leaves the
   old factor in place.
   ------------------------------------------------------------------------ */

ISDB__PRIVATE void isdb__ridge_layout(isdb__ridge *r, isdb__arena *a, int d, int with_gram) {
    int dd = d * d;
    r->d = d;
    r->L = isdb__take_f64(a, dd);
    r->L_next = isdb__take_f64(a, dd);
    r->V = with_gram ? isdb__take_f64(a, dd) : NULL;
    r->b = isdb__take_f64(a, d);
    r->theta = isdb__take_f64(a, d);
    r->work = isdb__take_f64(a, 2 * d);
}

ISDB__PRIVATE void isdb__ridge_reset(isdb__ridge *r) {
    int d = r->d;
    isdb__identity(d, r->L, sqrt(r->lambda));
    isdb__identity(d, r->L_next, sqrt(r->lambda));
    if (r->V) isdb__identity(d, r->V, r->lambda);
    isdb__zero(d, r->b);
    isdb__zero(d, r->theta);
    isdb__zero(2 * d, r->work);
    r->logdet = (double)d * log(r->lambda);
    r->since_refresh = 0;
}

ISDB__PRIVATE void isdb__ridge_swap(isdb__ridge *r) {
    double *tmp = r->L;
    r->L = r->L_next;
    r->L_next = tmp;
}

/* Refactorises the exact Gram sum into L (kept if it does not factor). */
ISDB__PRIVATE void isdb__ridge_refactor(isdb__ridge *r) {
    int d = r->d;
    isdb__copy(d * d, r->V, r->L_next);
    if (isdb_chol(d, r->L_next) == ISDB_OK) {
        isdb__ridge_swap(r);
        r->logdet = isdb_chol_logdet(d, r->L);
    }
    r->since_refresh = 0;
}

/* Adds (x, y). Cannot fail: inputs are bounded by ISDB_INPUT_MAX and
   lambda by ISDB__LAMBDA_MIN, so every value stays finite. */
ISDB__PRIVATE void isdb__ridge_add(isdb__ridge *r, const double *x, double y) {
    int i, j, d = r->d;
    double ratio = isdb__chol_update_to(d, r->L, r->L_next, x, r->work);
    isdb__ridge_swap(r);
    r->logdet += log(ratio);
    if (r->V)
        for (i = 0; i < d; ++i)
            for (j = 0; j <= i; ++j) r->V[i * d + j] += x[i] * x[j];
    for (i = 0; i < d; ++i) r->b[i] += y * x[i];
    if (r->V && r->refresh > 0 && ++r->since_refresh >= r->refresh) isdb__ridge_refactor(r);
    isdb_chol_solve(d, r->L, r->b, r->theta);
}

/* ||x||^2 in the metric V^-1, by one triangular solve into work. */
ISDB__PRIVATE double isdb__ridge_norm2(isdb__ridge *r, const double *x) {
    isdb_tri_solve(r->d, r->L, 0, x, r->work);
    return isdb__dot(r->d, r->work, r->work);
}

ISDB__PRIVATE double isdb__ridge_ucb(isdb__ridge *r, const double *x, double beta) {
    return isdb__dot(r->d, x, r->theta) + beta * sqrt(isdb__ridge_norm2(r, x));
}

ISDB__PRIVATE void isdb__ridge_serialize(isdb__ridge *r, isdb_ser *s, int refresh_max) {
    int dd = r->d * r->d;
    isdb__ser_f64(s, r->L, dd);
    if (r->V) isdb__ser_f64(s, r->V, dd);
    isdb__ser_f64(s, r->b, r->d);
    isdb__ser_f64(s, r->theta, r->d);
    isdb__ser_f64(s, &r->logdet, 1);
    isdb__ser_int(s, &r->since_refresh, 0, refresh_max);
}

/* The confidence width beta_n of OFUL-type policies (without alpha). */
ISDB__PRIVATE double isdb__width(isdb_width kind, int d, double n, double lambda, double delta, double R, double S,
                                 double L, double logdet) {
    double radius;
    switch (kind) {
    case ISDB_WIDTH_LOGDET:
        radius = 2.0 * log(1.0 / delta) + logdet - (double)d * log(lambda);
        break;
    case ISDB_WIDTH_DETTRACE:
        radius = 2.0 * log(1.0 / delta) + (double)d * log1p(n * L * L / ((double)d * lambda));
        break;
    case ISDB_WIDTH_SIMPLE:
        radius = (double)d * (log1p(n * L * L / lambda) - log(delta));
        break;
    default:
        return 1.0;
    }
    return R * sqrt(radius > 0.0 ? radius : 0.0) + sqrt(lambda) * S;
}

/* Checks shared by the ridge UCB configs. */
ISDB__PRIVATE int isdb__ucb_params_ok(double lambda, double delta, double R, double S, double L, double alpha,
                                      isdb_width width) {
    return isdb__ridge_ok(lambda) && isdb__open01(delta) && isdb__nonneg(R) && isdb__nonneg(S) &&
           isdb__positive(L) && isdb__nonneg(alpha) && width >= ISDB_WIDTH_LOGDET && width <= ISDB_WIDTH_CONSTANT;
}

/* ---------------------------------------------------------------------------
   LinUCB / OFUL
   ------------------------------------------------------------------------ */

isdb_linucb_config isdb_linucb_config_init(int d, int max_arms) {
    isdb_linucb_config c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.max_arms = max_arms;
    c.lambda = 1.0;
    c.delta = 0.01;
    c.R = 1.0;
    c.S = 1.0;
    c.L = 1.0;
    c.alpha = 1.0;
    c.width = ISDB_WIDTH_LOGDET;
    c.refresh = 0;
    return c;
}

ISDB__PRIVATE int isdb__linucb_config_ok(const isdb_linucb_config *c) {
    return c && isdb__sizes_ok(c->d, c->max_arms) &&
           isdb__ucb_params_ok(c->lambda, c->delta, c->R, c->S, c->L, c->alpha, c->width) && c->refresh >= 0;
}

ISDB__PRIVATE size_t isdb__linucb_layout(const isdb_linucb_config *c, isdb_linucb *p, void *heap) {
    isdb__arena a;
    a.base = (unsigned char *)heap;
    a.used = 0;
    a.overflow = 0;
    isdb__ridge_layout(&p->_ridge, &a, c->d, 1);
    return a.overflow ? 0 : a.used;
}

double isdb_linucb_beta(const isdb_linucb *p) {
    const isdb_linucb_config *c = &p->cfg;
    return c->alpha *
           isdb__width(c->width, c->d, (double)p->base.t, c->lambda, c->delta, c->R, c->S, c->L, p->_ridge.logdet);
}

ISDB__PRIVATE double isdb__linucb_index(isdb_policy *p, const double *x, double beta) {
    return isdb__ridge_ucb(&((isdb_linucb *)p)->_ridge, x, beta);
}

ISDB__PRIVATE isdb_result isdb__linucb_select(isdb_policy *p, const double *X, int n_arms, int *arm) {
    *arm = isdb__index_argmax(p, X, n_arms, isdb__linucb_index, isdb_linucb_beta((isdb_linucb *)p));
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__linucb_scores(isdb_policy *p, const double *X, int n_arms, double *out) {
    isdb__index_all(p, X, n_arms, isdb__linucb_index, isdb_linucb_beta((isdb_linucb *)p), out);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__linucb_update(isdb_policy *p, int arm, const double *x, double y) {
    (void)arm;
    isdb__ridge_add(&((isdb_linucb *)p)->_ridge, x, y);
    return ISDB_OK;
}

ISDB__PRIVATE void isdb__linucb_serialize(isdb_policy *bp, isdb_ser *s) {
    isdb_linucb *p = (isdb_linucb *)bp;
    const isdb_linucb_config *c = &p->cfg;
    isdb__ser_cfg_f64(s, c->lambda);
    isdb__ser_cfg_f64(s, c->delta);
    isdb__ser_cfg_f64(s, c->R);
    isdb__ser_cfg_f64(s, c->S);
    isdb__ser_cfg_f64(s, c->L);
    isdb__ser_cfg_f64(s, c->alpha);
    isdb__ser_cfg_int(s, (int)c->width);
    isdb__ser_cfg_int(s, c->refresh);
    isdb__ridge_serialize(&p->_ridge, s, c->refresh);
}

ISDB__PRIVATE void isdb__linucb_reset(isdb_policy *p) { isdb__ridge_reset(&((isdb_linucb *)p)->_ridge); }

static const isdb_policy_vtable isdb__linucb_vt = {
    ISDB_POLICY_LINUCB,     "linucb",           0, isdb__linucb_select, isdb__linucb_update, isdb__linucb_scores,
    isdb__probs_one_hot,    isdb__linucb_serialize, isdb__linucb_reset};

isdb_result isdb_linucb_heap_size(const isdb_linucb_config *cfg, size_t *bytes) {
    isdb_linucb probe;
    if (!bytes || !isdb__linucb_config_ok(cfg)) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__linucb_layout(cfg, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

isdb_result isdb_linucb_init_preallocated(const isdb_linucb_config *cfg, void *heap, isdb_linucb *pol) {
    size_t bytes;
    isdb_result r = isdb_linucb_heap_size(cfg, &bytes);
    if (r != ISDB_OK) return r;
    if (!pol || !isdb__heap_aligned(heap)) return ISDB_ERR_INVALID_ARG;
    memset(pol, 0, sizeof *pol);
    pol->cfg = *cfg;
    if (pol->cfg.refresh == 0) pol->cfg.refresh = cfg->d;
    isdb__linucb_layout(cfg, pol, heap);
    pol->_ridge.lambda = cfg->lambda;
    pol->_ridge.refresh = pol->cfg.refresh;
    isdb__policy_base_init(&pol->base, &isdb__linucb_vt, cfg->d, cfg->max_arms, 0, heap, bytes);
    isdb__linucb_reset(&pol->base);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__linucb_setup(const void *cfg, void *heap, void *pol) {
    return isdb_linucb_init_preallocated((const isdb_linucb_config *)cfg, heap, (isdb_linucb *)pol);
}

isdb_result isdb_linucb_init(const isdb_linucb_config *cfg, const isdb_allocator *alloc, isdb_linucb *pol) {
    size_t bytes;
    isdb_result r = isdb_linucb_heap_size(cfg, &bytes);
    if (r != ISDB_OK) return r;
    if (!pol) return ISDB_ERR_INVALID_ARG;
    return isdb__policy_init_owned(&pol->base, bytes, alloc, isdb__linucb_setup, cfg, pol);
}

const isdb_linucb_config *isdb_linucb_get_config(const isdb_linucb *pol) { return &pol->cfg; }

void isdb_linucb_theta(const isdb_linucb *pol, double *theta) { isdb__copy(pol->cfg.d, pol->_ridge.theta, theta); }

isdb_result isdb_linucb_explain(isdb_linucb *pol, const double *x, double *mean, double *bonus) {
    isdb_result r;
    if (!pol || !x) return ISDB_ERR_INVALID_ARG;
    if ((r = isdb__check_input(x, pol->cfg.d)) != ISDB_OK) return r;
    if (mean) *mean = isdb__dot(pol->cfg.d, x, pol->_ridge.theta);
    if (bonus) *bonus = isdb_linucb_beta(pol) * sqrt(isdb__ridge_norm2(&pol->_ridge, x));
    return ISDB_OK;
}

/* ---------------------------------------------------------------------------
   SW-UCB
   ------------------------------------------------------------------------ */

isdb_swucb_config isdb_swucb_config_init(int d, int max_arms, int window) {
    isdb_swucb_config c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.max_arms = max_arms;
    c.window = window;
    c.lambda = 1.0;
    c.delta = 0.01;
    c.R = 1.0;
    c.S = 1.0;
    c.L = 1.0;
    c.alpha = 1.0;
    c.width = ISDB_WIDTH_SIMPLE;
    c.refresh = 0;
    return c;
}

ISDB__PRIVATE int isdb__swucb_config_ok(const isdb_swucb_config *c) {
    return c && isdb__sizes_ok(c->d, c->max_arms) && c->window >= 1 && c->window <= INT_MAX / (c->d + 1) &&
           isdb__ucb_params_ok(c->lambda, c->delta, c->R, c->S, c->L, c->alpha, c->width) && c->refresh >= 0;
}

ISDB__PRIVATE size_t isdb__swucb_layout(const isdb_swucb_config *c, isdb_swucb *p, void *heap) {
    isdb__arena a;
    a.base = (unsigned char *)heap;
    a.used = 0;
    a.overflow = 0;
    isdb__ridge_layout(&p->_ridge, &a, c->d, 0);
    p->_ring_x = isdb__take_f64(&a, c->window * c->d);
    p->_ring_y = isdb__take_f64(&a, c->window);
    return a.overflow ? 0 : a.used;
}

double isdb_swucb_beta(const isdb_swucb *p) {
    const isdb_swucb_config *c = &p->cfg;
    /* Eq. 5 uses w from the first round on; DETTRACE counts what is in
       the window, as the public SW-LinUCB code does. */
    double n = c->width == ISDB_WIDTH_SIMPLE ? (double)c->window : (double)p->count;
    return c->alpha * isdb__width(c->width, c->d, n, c->lambda, c->delta, c->R, c->S, c->L, p->_ridge.logdet);
}

ISDB__PRIVATE double isdb__swucb_index(isdb_policy *p, const double *x, double beta) {
    return isdb__ridge_ucb(&((isdb_swucb *)p)->_ridge, x, beta);
}

ISDB__PRIVATE isdb_result isdb__swucb_select(isdb_policy *p, const double *X, int n_arms, int *arm) {
    *arm = isdb__index_argmax(p, X, n_arms, isdb__swucb_index, isdb_swucb_beta((isdb_swucb *)p));
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__swucb_scores(isdb_policy *p, const double *X, int n_arms, double *out) {
    isdb__index_all(p, X, n_arms, isdb__swucb_index, isdb_swucb_beta((isdb_swucb *)p), out);
    return ISDB_OK;
}

/* Factor (into L_next) and b (into work) of the window that (x, y) makes
   when it enters: the oldest observation leaves if the window is full.
   Sums run from the oldest observation to the newest. The ring is not
   touched. Returns 0 if the Gram matrix does not factor. */
ISDB__PRIVATE int isdb__swucb_rebuild(isdb_swucb *p, const double *x, double y) {
    isdb__ridge *r = &p->_ridge;
    int d = p->cfg.d, w = p->cfg.window, i, j, k;
    int full = p->count == w, kept = full ? w - 1 : p->count, first = full ? (p->head + 1) % w : p->head;
    double *G = r->L_next, *b = r->work;
    isdb__identity(d, G, r->lambda);
    isdb__zero(d, b);
    for (k = 0; k <= kept; ++k) {
        int slot = (first + k) % w;
        const double *z = k < kept ? p->_ring_x + slot * d : x;
        double yz = k < kept ? p->_ring_y[slot] : y;
        for (i = 0; i < d; ++i) {
            for (j = 0; j <= i; ++j) G[i * d + j] += z[i] * z[j];
            b[i] += yz * z[i];
        }
    }
    return isdb_chol(d, G) == ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__swucb_update(isdb_policy *bp, int arm, const double *x, double y) {
    isdb_swucb *p = (isdb_swucb *)bp;
    isdb__ridge *r = &p->_ridge;
    int i, d = p->cfg.d, w = p->cfg.window, full = p->count == w;
    int slot = full ? p->head : (p->head + p->count) % w;
    double *z = p->_ring_x + slot * d, ratio = 1.0, down = 1.0;
    int rebuild = r->since_refresh + 1 >= p->cfg.refresh;
    (void)arm;
    /* Add before removing: V + x x^T - z z^T >= lambda I keeps the
       downdate well defined. */
    if (!rebuild) {
        ratio = isdb__chol_update_to(d, r->L, r->L_next, x, r->work);
        if (full && !isdb__chol_downdate(d, r->L_next, z, r->work, &down)) {
            rebuild = 1;
            ++p->refusals;
        }
    }
    if (rebuild) {
        if (!isdb__swucb_rebuild(p, x, y)) return ISDB_ERR_NOT_SPD;
        ++p->rebuilds;
        isdb__copy(d, r->work, r->b);
        r->logdet = isdb_chol_logdet(d, r->L_next);
        r->since_refresh = 0;
    } else {
        double yz = full ? p->_ring_y[slot] : 0.0;
        for (i = 0; i < d; ++i) r->b[i] += y * x[i] - yz * z[i];
        r->logdet += log(ratio * down);
        ++r->since_refresh;
    }
    isdb__ridge_swap(r);
    isdb__copy(d, x, z);
    p->_ring_y[slot] = y;
    if (full)
        p->head = (p->head + 1) % w;
    else
        ++p->count;
    isdb_chol_solve(d, r->L, r->b, r->theta);
    return ISDB_OK;
}

ISDB__PRIVATE void isdb__swucb_serialize(isdb_policy *bp, isdb_ser *s) {
    isdb_swucb *p = (isdb_swucb *)bp;
    const isdb_swucb_config *c = &p->cfg;
    isdb__ser_cfg_int(s, c->window);
    isdb__ser_cfg_f64(s, c->lambda);
    isdb__ser_cfg_f64(s, c->delta);
    isdb__ser_cfg_f64(s, c->R);
    isdb__ser_cfg_f64(s, c->S);
    isdb__ser_cfg_f64(s, c->L);
    isdb__ser_cfg_f64(s, c->alpha);
    isdb__ser_cfg_int(s, (int)c->width);
    isdb__ser_cfg_int(s, c->refresh);
    isdb__ser_int(s, &p->count, 0, c->window);
    isdb__ser_int(s, &p->head, 0, c->window - 1);
    isdb__ser_u64(s, &p->rebuilds);
    isdb__ser_u64(s, &p->refusals);
    isdb__ridge_serialize(&p->_ridge, s, c->refresh);
    isdb__ser_f64(s, p->_ring_x, c->window * c->d);
    isdb__ser_f64(s, p->_ring_y, c->window);
}

ISDB__PRIVATE void isdb__swucb_reset(isdb_policy *bp) {
    isdb_swucb *p = (isdb_swucb *)bp;
    isdb__ridge_reset(&p->_ridge);
    p->count = 0;
    p->head = 0;
    p->rebuilds = 0;
    p->refusals = 0;
    isdb__zero(p->cfg.window * p->cfg.d, p->_ring_x);
    isdb__zero(p->cfg.window, p->_ring_y);
}

static const isdb_policy_vtable isdb__swucb_vt = {
    ISDB_POLICY_SWUCB,   "swucb",           0, isdb__swucb_select, isdb__swucb_update, isdb__swucb_scores,
    isdb__probs_one_hot, isdb__swucb_serialize, isdb__swucb_reset};

isdb_result isdb_swucb_heap_size(const isdb_swucb_config *cfg, size_t *bytes) {
    isdb_swucb probe;
    if (!bytes || !isdb__swucb_config_ok(cfg)) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__swucb_layout(cfg, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

isdb_result isdb_swucb_init_preallocated(const isdb_swucb_config *cfg, void *heap, isdb_swucb *pol) {
    size_t bytes;
    isdb_result r = isdb_swucb_heap_size(cfg, &bytes);
    if (r != ISDB_OK) return r;
    if (!pol || !isdb__heap_aligned(heap)) return ISDB_ERR_INVALID_ARG;
    memset(pol, 0, sizeof *pol);
    pol->cfg = *cfg;
    if (pol->cfg.refresh == 0) pol->cfg.refresh = isdb__max_int(cfg->window, cfg->d);
    isdb__swucb_layout(cfg, pol, heap);
    pol->_ridge.lambda = cfg->lambda;
    isdb__policy_base_init(&pol->base, &isdb__swucb_vt, cfg->d, cfg->max_arms, 0, heap, bytes);
    isdb__swucb_reset(&pol->base);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__swucb_setup(const void *cfg, void *heap, void *pol) {
    return isdb_swucb_init_preallocated((const isdb_swucb_config *)cfg, heap, (isdb_swucb *)pol);
}

isdb_result isdb_swucb_init(const isdb_swucb_config *cfg, const isdb_allocator *alloc, isdb_swucb *pol) {
    size_t bytes;
    isdb_result r = isdb_swucb_heap_size(cfg, &bytes);
    if (r != ISDB_OK) return r;
    if (!pol) return ISDB_ERR_INVALID_ARG;
    return isdb__policy_init_owned(&pol->base, bytes, alloc, isdb__swucb_setup, cfg, pol);
}

const isdb_swucb_config *isdb_swucb_get_config(const isdb_swucb *pol) { return &pol->cfg; }

void isdb_swucb_theta(const isdb_swucb *pol, double *theta) { isdb__copy(pol->cfg.d, pol->_ridge.theta, theta); }

isdb_result isdb_swucb_explain(isdb_swucb *pol, const double *x, double *mean, double *bonus) {
    isdb_result r;
    if (!pol || !x) return ISDB_ERR_INVALID_ARG;
    if ((r = isdb__check_input(x, pol->cfg.d)) != ISDB_OK) return r;
    if (mean) *mean = isdb__dot(pol->cfg.d, x, pol->_ridge.theta);
    if (bonus) *bonus = isdb_swucb_beta(pol) * sqrt(isdb__ridge_norm2(&pol->_ridge, x));
    return ISDB_OK;
}

isdb_result isdb_swucb_tuned_window(isdb_window_rule rule, int d, double T, double B_T, int *window) {
    double w;
    if (!window || d < 1 || !(T >= 1.0) || !isdb__finite(T)) return ISDB_ERR_INVALID_ARG;
    switch (rule) {
    case ISDB_WINDOW_KNOWN:
        if (!isdb__positive(B_T)) return ISDB_ERR_INVALID_ARG;
        w = pow((double)d * T / B_T, 2.0 / 3.0);
        break;
    case ISDB_WINDOW_EQ12:
        if (!isdb__nonneg(B_T)) return ISDB_ERR_INVALID_ARG;
        w = pow((double)d * T, 2.0 / 3.0) / pow(B_T + 1.0, 2.0 / 3.0);
        break;
    case ISDB_WINDOW_AGNOSTIC:
        w = pow((double)d * T, 2.0 / 3.0);
        break;
    default:
        return ISDB_ERR_INVALID_ARG;
    }
    /* The epsilon keeps exact powers (pow(1000, 2/3) = 99.999...) whole. */
    w = floor(w + 1e-9);
    if (w > T) w = floor(T);
    if (w > (double)INT_MAX) w = (double)INT_MAX;
    *window = w < 1.0 ? 1 : (int)w;
    return ISDB_OK;
}

/* ---------------------------------------------------------------------------
   D-LinUCB
   ------------------------------------------------------------------------ */

isdb_dlinucb_config isdb_dlinucb_config_init(int d, int max_arms, double gamma) {
    isdb_dlinucb_config c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.max_arms = max_arms;
    c.gamma = gamma;
    c.lambda = 1.0;
    c.delta = 0.01;
    c.sigma = 1.0;
    c.S = 1.0;
    c.L = 1.0;
    c.alpha = 1.0;
    return c;
}

ISDB__PRIVATE int isdb__dlinucb_config_ok(const isdb_dlinucb_config *c) {
    return c && isdb__sizes_ok(c->d, c->max_arms) && isdb__open01(c->gamma) &&
           isdb__ucb_params_ok(c->lambda, c->delta, c->sigma, c->S, c->L, c->alpha, ISDB_WIDTH_LOGDET);
}

ISDB__PRIVATE size_t isdb__dlinucb_layout(const isdb_dlinucb_config *c, isdb_dlinucb *p, void *heap) {
    isdb__arena a;
    int d = c->d, dd = d * d;
    a.base = (unsigned char *)heap;
    a.used = 0;
    a.overflow = 0;
    p->_V = isdb__take_f64(&a, dd);
    p->_V_next = isdb__take_f64(&a, dd);
    p->_Vt = isdb__take_f64(&a, dd);
    p->_Vt_next = isdb__take_f64(&a, dd);
    p->_L = isdb__take_f64(&a, dd);
    p->_L_next = isdb__take_f64(&a, dd);
    p->_b = isdb__take_f64(&a, d);
    p->_b_next = isdb__take_f64(&a, d);
    p->_theta = isdb__take_f64(&a, d);
    p->_work = isdb__take_f64(&a, d);
    return a.overflow ? 0 : a.used;
}

double isdb_dlinucb_beta(const isdb_dlinucb *p) {
    const isdb_dlinucb_config *c = &p->cfg;
    double n = (double)p->base.t, g = c->gamma;
    /* 1 - gamma^(2n) and 1 - gamma^2 without cancellation near gamma = 1. */
    double fading = n > 0.0 ? -expm1(2.0 * n * log(g)) : 0.0;
    double one_minus_g2 = (1.0 - g) * (1.0 + g);
    double radius = 2.0 * log(1.0 / c->delta) +
                    (double)c->d * log1p(c->L * c->L * fading / (c->lambda * (double)c->d * one_minus_g2));
    return c->alpha * (sqrt(c->lambda) * c->S + c->sigma * sqrt(radius));
}

ISDB__PRIVATE double isdb__dlinucb_index(isdb_policy *bp, const double *x, double beta) {
    isdb_dlinucb *p = (isdb_dlinucb *)bp;
    const double *Vt = p->_Vt, *u = p->_work;
    int i, j, d = p->cfg.d;
    double q = 0.0;
    isdb_chol_solve(d, p->_L, x, p->_work);
    /* u^T Vt u from the lower triangle. */
    for (i = 0; i < d; ++i) {
        double off = 0.0;
        for (j = 0; j < i; ++j) off += Vt[i * d + j] * u[j];
        q += u[i] * (Vt[i * d + i] * u[i] + 2.0 * off);
    }
    return isdb__dot(d, x, p->_theta) + beta * sqrt(q > 0.0 ? q : 0.0);
}

ISDB__PRIVATE isdb_result isdb__dlinucb_select(isdb_policy *p, const double *X, int n_arms, int *arm) {
    *arm = isdb__index_argmax(p, X, n_arms, isdb__dlinucb_index, isdb_dlinucb_beta((isdb_dlinucb *)p));
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__dlinucb_scores(isdb_policy *p, const double *X, int n_arms, double *out) {
    isdb__index_all(p, X, n_arms, isdb__dlinucb_index, isdb_dlinucb_beta((isdb_dlinucb *)p), out);
    return ISDB_OK;
}

ISDB__PRIVATE void isdb__swap_ptr(double **a, double **b) {
    double *t = *a;
    *a = *b;
    *b = t;
}

ISDB__PRIVATE isdb_result isdb__dlinucb_update(isdb_policy *bp, int arm, const double *x, double y) {
    isdb_dlinucb *p = (isdb_dlinucb *)bp;
    const isdb_dlinucb_config *c = &p->cfg;
    int i, j, d = c->d;
    double g = c->gamma, g2 = g * g, lam = c->lambda;
    double pad = (1.0 - g) * lam, pad2 = (1.0 - g) * (1.0 + g) * lam;
    (void)arm;
    for (i = 0; i < d; ++i) {
        for (j = 0; j <= i; ++j) {
            double xx = x[i] * x[j];
            p->_V_next[i * d + j] = g * p->_V[i * d + j] + xx;
            p->_Vt_next[i * d + j] = g2 * p->_Vt[i * d + j] + xx;
        }
        p->_V_next[i * d + i] += pad;
        p->_Vt_next[i * d + i] += pad2;
        p->_b_next[i] = g * p->_b[i] + y * x[i];
    }
    isdb__copy(d * d, p->_V_next, p->_L_next);
    if (isdb_chol(d, p->_L_next) != ISDB_OK) return ISDB_ERR_NOT_SPD;
    isdb__swap_ptr(&p->_V, &p->_V_next);
    isdb__swap_ptr(&p->_Vt, &p->_Vt_next);
    isdb__swap_ptr(&p->_L, &p->_L_next);
    isdb__swap_ptr(&p->_b, &p->_b_next);
    isdb_chol_solve(d, p->_L, p->_b, p->_theta);
    return ISDB_OK;
}

ISDB__PRIVATE void isdb__dlinucb_serialize(isdb_policy *bp, isdb_ser *s) {
    isdb_dlinucb *p = (isdb_dlinucb *)bp;
    const isdb_dlinucb_config *c = &p->cfg;
    int dd = c->d * c->d;
    isdb__ser_cfg_f64(s, c->gamma);
    isdb__ser_cfg_f64(s, c->lambda);
    isdb__ser_cfg_f64(s, c->delta);
    isdb__ser_cfg_f64(s, c->sigma);
    isdb__ser_cfg_f64(s, c->S);
    isdb__ser_cfg_f64(s, c->L);
    isdb__ser_cfg_f64(s, c->alpha);
    isdb__ser_f64(s, p->_V, dd);
    isdb__ser_f64(s, p->_Vt, dd);
    isdb__ser_f64(s, p->_L, dd);
    isdb__ser_f64(s, p->_b, c->d);
    isdb__ser_f64(s, p->_theta, c->d);
}

ISDB__PRIVATE void isdb__dlinucb_reset(isdb_policy *bp) {
    isdb_dlinucb *p = (isdb_dlinucb *)bp;
    int d = p->cfg.d;
    double lam = p->cfg.lambda;
    isdb__identity(d, p->_V, lam);
    isdb__identity(d, p->_V_next, lam);
    isdb__identity(d, p->_Vt, lam);
    isdb__identity(d, p->_Vt_next, lam);
    isdb__identity(d, p->_L, sqrt(lam));
    isdb__identity(d, p->_L_next, sqrt(lam));
    isdb__zero(d, p->_b);
    isdb__zero(d, p->_b_next);
    isdb__zero(d, p->_theta);
    isdb__zero(d, p->_work);
}

static const isdb_policy_vtable isdb__dlinucb_vt = {
    ISDB_POLICY_DLINUCB, "dlinucb",           0, isdb__dlinucb_select, isdb__dlinucb_update, isdb__dlinucb_scores,
    isdb__probs_one_hot, isdb__dlinucb_serialize, isdb__dlinucb_reset};

isdb_result isdb_dlinucb_heap_size(const isdb_dlinucb_config *cfg, size_t *bytes) {
    isdb_dlinucb probe;
    if (!bytes || !isdb__dlinucb_config_ok(cfg)) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__dlinucb_layout(cfg, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

isdb_result isdb_dlinucb_init_preallocated(const isdb_dlinucb_config *cfg, void *heap, isdb_dlinucb *pol) {
    size_t bytes;
    isdb_result r = isdb_dlinucb_heap_size(cfg, &bytes);
    if (r != ISDB_OK) return r;
    if (!pol || !isdb__heap_aligned(heap)) return ISDB_ERR_INVALID_ARG;
    memset(pol, 0, sizeof *pol);
    pol->cfg = *cfg;
    isdb__dlinucb_layout(cfg, pol, heap);
    isdb__policy_base_init(&pol->base, &isdb__dlinucb_vt, cfg->d, cfg->max_arms, 0, heap, bytes);
    isdb__dlinucb_reset(&pol->base);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__dlinucb_setup(const void *cfg, void *heap, void *pol) {
    return isdb_dlinucb_init_preallocated((const isdb_dlinucb_config *)cfg, heap, (isdb_dlinucb *)pol);
}

isdb_result isdb_dlinucb_init(const isdb_dlinucb_config *cfg, const isdb_allocator *alloc, isdb_dlinucb *pol) {
    size_t bytes;
    isdb_result r = isdb_dlinucb_heap_size(cfg, &bytes);
    if (r != ISDB_OK) return r;
    if (!pol) return ISDB_ERR_INVALID_ARG;
    return isdb__policy_init_owned(&pol->base, bytes, alloc, isdb__dlinucb_setup, cfg, pol);
}

const isdb_dlinucb_config *isdb_dlinucb_get_config(const isdb_dlinucb *pol) { return &pol->cfg; }

void isdb_dlinucb_theta(const isdb_dlinucb *pol, double *theta) { isdb__copy(pol->cfg.d, pol->_theta, theta); }

isdb_result isdb_dlinucb_explain(isdb_dlinucb *pol, const double *x, double *mean, double *bonus) {
    isdb_result r;
    double beta;
    if (!pol || !x) return ISDB_ERR_INVALID_ARG;
    if ((r = isdb__check_input(x, pol->cfg.d)) != ISDB_OK) return r;
    beta = isdb_dlinucb_beta(pol);
    if (mean) *mean = isdb__dot(pol->cfg.d, x, pol->_theta);
    if (bonus) *bonus = isdb__dlinucb_index(&pol->base, x, beta) - isdb__dot(pol->cfg.d, x, pol->_theta);
    return ISDB_OK;
}

isdb_result isdb_dlinucb_tuned_gamma(int d, double T, double B_T, double *gamma) {
    if (!gamma || d < 1 || !(T >= 1.0) || !isdb__finite(T) || !(B_T > 0.0) || !(B_T < (double)d * T))
        return ISDB_ERR_INVALID_ARG;
    *gamma = 1.0 - pow(B_T / ((double)d * T), 2.0 / 3.0);
    return ISDB_OK;
}

/* ---------------------------------------------------------------------------
   Linear Thompson sampling
   ------------------------------------------------------------------------ */

isdb_lints_config isdb_lints_config_init(int d, int max_arms) {
    isdb_lints_config c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.max_arms = max_arms;
    c.lambda = 1.0;
    c.R = 1.0;
    c.inflation = ISDB_LINTS_THEORY;
    c.epsilon = 0.5;
    c.delta = 0.01;
    c.seed = 1;
    c.mc_samples = 1000;
    c.refresh = 0;
    return c;
}

ISDB__PRIVATE int isdb__lints_config_ok(const isdb_lints_config *c) {
    return c && isdb__sizes_ok(c->d, c->max_arms) && isdb__ridge_ok(c->lambda) && isdb__nonneg(c->R) &&
           (c->inflation == ISDB_LINTS_NONE ||
            (c->inflation == ISDB_LINTS_THEORY && c->epsilon > 0.0 && c->epsilon <= 1.0 && isdb__open01(c->delta))) &&
           c->mc_samples >= 1 && c->refresh >= 0;
}

ISDB__PRIVATE size_t isdb__lints_layout(const isdb_lints_config *c, isdb_lints *p, void *heap) {
    isdb__arena a;
    a.base = (unsigned char *)heap;
    a.used = 0;
    a.overflow = 0;
    isdb__ridge_layout(&p->_ridge, &a, c->d, 1);
    p->_sample = isdb__take_f64(&a, c->d);
    p->_scratch = isdb__take_f64(&a, c->d);
    return a.overflow ? 0 : a.used;
}

/* theta~ = theta + v L^-T z with z ~ N(0, I), so Cov(theta~) = v^2 V^-1. */
ISDB__PRIVATE void isdb__lints_draw(isdb_lints *p, isdb_rng *rng, double *out) {
    int i, d = p->cfg.d;
    for (i = 0; i < d; ++i) out[i] = isdb_rng_normal(rng);
    isdb_tri_solve(d, p->_ridge.L, 1, out, out);
    for (i = 0; i < d; ++i) out[i] = p->_ridge.theta[i] + p->v * out[i];
}

/* The arm of largest x.theta, the lowest index on ties. */
ISDB__PRIVATE int isdb__best_dot(const double *X, int n_arms, int d, const double *theta) {
    int k, best = 0;
    double best_value = isdb__dot(d, X, theta);
    for (k = 1; k < n_arms; ++k) {
        double v = isdb__dot(d, X + k * d, theta);
        if (v > best_value) {
            best_value = v;
            best = k;
        }
    }
    return best;
}

ISDB__PRIVATE isdb_result isdb__lints_select(isdb_policy *bp, const double *X, int n_arms, int *arm) {
    isdb_lints *p = (isdb_lints *)bp;
    isdb__lints_draw(p, &p->base.rng, p->_sample);
    *arm = isdb__best_dot(X, n_arms, p->cfg.d, p->_sample);
    return ISDB_OK;
}

/* Monte Carlo estimate of the selection probabilities from a copy of the
   generator, so the state does not change. */
ISDB__PRIVATE isdb_result isdb__lints_probs(isdb_policy *bp, const double *X, int n_arms, double *out) {
    isdb_lints *p = (isdb_lints *)bp;
    isdb_rng rng = p->base.rng;
    int k, s;
    isdb__zero(n_arms, out);
    for (s = 0; s < p->cfg.mc_samples; ++s) {
        isdb__lints_draw(p, &rng, p->_scratch);
        out[isdb__best_dot(X, n_arms, p->cfg.d, p->_scratch)] += 1.0;
    }
    for (k = 0; k < n_arms; ++k) out[k] /= (double)p->cfg.mc_samples;
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__lints_update(isdb_policy *p, int arm, const double *x, double y) {
    (void)arm;
    isdb__ridge_add(&((isdb_lints *)p)->_ridge, x, y);
    return ISDB_OK;
}

ISDB__PRIVATE void isdb__lints_serialize(isdb_policy *bp, isdb_ser *s) {
    isdb_lints *p = (isdb_lints *)bp;
    const isdb_lints_config *c = &p->cfg;
    isdb__ser_cfg_f64(s, c->lambda);
    isdb__ser_cfg_f64(s, c->R);
    isdb__ser_cfg_int(s, (int)c->inflation);
    isdb__ser_cfg_f64(s, c->epsilon);
    isdb__ser_cfg_f64(s, c->delta);
    isdb__ser_cfg_int(s, c->mc_samples);
    isdb__ser_cfg_int(s, c->refresh);
    isdb__ridge_serialize(&p->_ridge, s, c->refresh);
    isdb__ser_f64(s, p->_sample, c->d);
}

ISDB__PRIVATE void isdb__lints_reset(isdb_policy *bp) {
    isdb_lints *p = (isdb_lints *)bp;
    isdb__ridge_reset(&p->_ridge);
    isdb__zero(p->cfg.d, p->_sample);
    isdb__zero(p->cfg.d, p->_scratch);
}

static const isdb_policy_vtable isdb__lints_vt = {
    ISDB_POLICY_LINTS, "lints",           0, isdb__lints_select, isdb__lints_update, isdb__lints_probs,
    isdb__lints_probs, isdb__lints_serialize, isdb__lints_reset};

isdb_result isdb_lints_heap_size(const isdb_lints_config *cfg, size_t *bytes) {
    isdb_lints probe;
    if (!bytes || !isdb__lints_config_ok(cfg)) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__lints_layout(cfg, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

isdb_result isdb_lints_init_preallocated(const isdb_lints_config *cfg, void *heap, isdb_lints *pol) {
    size_t bytes;
    isdb_result r = isdb_lints_heap_size(cfg, &bytes);
    if (r != ISDB_OK) return r;
    if (!pol || !isdb__heap_aligned(heap)) return ISDB_ERR_INVALID_ARG;
    memset(pol, 0, sizeof *pol);
    pol->cfg = *cfg;
    if (pol->cfg.refresh == 0) pol->cfg.refresh = cfg->d;
    isdb__lints_layout(cfg, pol, heap);
    pol->_ridge.lambda = cfg->lambda;
    pol->_ridge.refresh = pol->cfg.refresh;
    pol->v = cfg->inflation == ISDB_LINTS_THEORY
                 ? cfg->R * sqrt(24.0 / cfg->epsilon * (double)cfg->d * log(1.0 / cfg->delta))
                 : cfg->R;
    isdb__policy_base_init(&pol->base, &isdb__lints_vt, cfg->d, cfg->max_arms, cfg->seed, heap, bytes);
    isdb__lints_reset(&pol->base);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__lints_setup(const void *cfg, void *heap, void *pol) {
    return isdb_lints_init_preallocated((const isdb_lints_config *)cfg, heap, (isdb_lints *)pol);
}

isdb_result isdb_lints_init(const isdb_lints_config *cfg, const isdb_allocator *alloc, isdb_lints *pol) {
    size_t bytes;
    isdb_result r = isdb_lints_heap_size(cfg, &bytes);
    if (r != ISDB_OK) return r;
    if (!pol) return ISDB_ERR_INVALID_ARG;
    return isdb__policy_init_owned(&pol->base, bytes, alloc, isdb__lints_setup, cfg, pol);
}

const isdb_lints_config *isdb_lints_get_config(const isdb_lints *pol) { return &pol->cfg; }

void isdb_lints_theta(const isdb_lints *pol, double *theta) { isdb__copy(pol->cfg.d, pol->_ridge.theta, theta); }

void isdb_lints_last_sample(const isdb_lints *pol, double *theta) { isdb__copy(pol->cfg.d, pol->_sample, theta); }

/* [impl:bob] */

/* ---------------------------------------------------------------------------
   ISD-linUCB: invariance detection
   ------------------------------------------------------------------------ */

isdb_isd_options isdb_isd_options_init(void) {
    isdb_isd_options o;
    memset(&o, 0, sizeof o);
    o.n_windows = 25;
    o.window_length = 0;
    o.center = 1;
    o.intercept = 0;
    o.folds = 10;
    o.adapt = 0;
    o.one_se = ISDB_ISD_ONE_SE_PAIRED;
    o.force_residual = 0;
    o.jbd = isdb_jbd_options_init();
    return o;
}

/* Resolved sizes of one estimate: p, n, windows m of l rows, k folds of F
   rows, a adaptation rows. */
typedef struct isdb__isd_dims {
    int p, n, m, l, k, F, a;
} isdb__isd_dims;

ISDB__PRIVATE int isdb__flag_ok(int v) { return v == 0 || v == 1; }

ISDB__PRIVATE int isdb__isd_options_ok(const isdb_isd_options *o) {
    return o && o->n_windows >= 2 && o->window_length >= 0 && o->folds >= 2 && o->adapt >= 0 &&
           isdb__flag_ok(o->center) && isdb__flag_ok(o->intercept) && o->one_se >= ISDB_ISD_BEST_SCORE &&
           o->one_se <= ISDB_ISD_ONE_SE_PAIRED &&
           isdb__flag_ok(o->force_residual) &&
           (o->jbd.method == ISDB_JBD_JACOBI || o->jbd.method == ISDB_JBD_UWEDGE) && o->jbd.max_iter >= 0 &&
           (o->jbd.scale == ISDB_JBD_SCALE_CORRELATION || o->jbd.scale == ISDB_JBD_SCALE_FROBENIUS) &&
           (o->jbd.off_norm == ISDB_JBD_OFF_MAXCOL || o->jbd.off_norm == ISDB_JBD_OFF_ENTRYWISE) &&
           o->jbd.tol >= 0.0 && isdb__finite(o->jbd.tol) && o->jbd.threshold >= 0.0 && o->jbd.threshold <= 1.0;
}

ISDB__PRIVATE int isdb__isd_resolve(int p, int n, const isdb_isd_options *o, isdb__isd_dims *dm) {
    if (!isdb__isd_options_ok(o) || !isdb__dim_ok(p) || n < 2 || n > INT_MAX / (p + 1)) return 0;
    if (o->n_windows > INT_MAX / (p * p) || o->adapt > n) return 0;
    dm->p = p;
    dm->n = n;
    dm->m = o->n_windows;
    dm->l = o->window_length ? o->window_length : n / 8;
    dm->k = o->folds;
    dm->F = n / o->folds;
    dm->a = o->adapt ? o->adapt : 2 * p;
    return dm->l >= p + 1 && dm->l <= n && dm->F >= dm->a + 2;
}

/* Start of window (or fold) k of `len` rows among n, count of them:
   floor(k (n - len) / (count - 1)), exactly (numpy's int(linspace)). */
ISDB__PRIVATE int isdb__isd_start(int k, int count, int n, int len) {
    return (int)(((int64_t)k * (int64_t)(n - len)) / (int64_t)(count - 1));
}

typedef struct isdb__isd_work {
    double *C, *jw, *gt, *f, *fG, *fc, *Z, *R, *PI, *cand, *ord, *xv, *se, *mn, *fsc;
    double *Uo, *G, *L, *T, *v1, *v2, *v3, *v4, *v5, *flags;
} isdb__isd_work;

ISDB__PRIVATE double *isdb__carve(double *base, size_t *used, size_t count) {
    double *ptr = base ? base + *used : NULL;
    *used += count;
    return ptr;
}

ISDB__PRIVATE size_t isdb__isd_layout(const isdb__isd_dims *dm, double *base, isdb__isd_work *w) {
    size_t u = 0, p = (size_t)dm->p, pp = p * p, m = (size_t)dm->m, k = (size_t)dm->k;
    w->C = isdb__carve(base, &u, m * pp);
    w->jw = isdb__carve(base, &u, isdb_jbd_work_size(dm->p, dm->m));
    w->gt = isdb__carve(base, &u, m * p);
    w->f = isdb__carve(base, &u, (size_t)dm->n);
    w->fG = isdb__carve(base, &u, k * pp);
    w->fc = isdb__carve(base, &u, k * p);
    w->Z = isdb__carve(base, &u, (size_t)dm->F * p);
    w->R = isdb__carve(base, &u, (size_t)dm->F);
    w->PI = isdb__carve(base, &u, (size_t)dm->F);
    w->cand = isdb__carve(base, &u, p + 1);
    w->ord = isdb__carve(base, &u, p + 1);
    w->xv = isdb__carve(base, &u, p + 1);
    w->se = isdb__carve(base, &u, p + 1);
    w->mn = isdb__carve(base, &u, p + 1);
    w->fsc = isdb__carve(base, &u, (p + 1) * k);
    w->Uo = isdb__carve(base, &u, pp);
    w->G = isdb__carve(base, &u, pp);
    w->L = isdb__carve(base, &u, pp);
    w->T = isdb__carve(base, &u, pp);
    w->v1 = isdb__carve(base, &u, p);
    w->v2 = isdb__carve(base, &u, p);
    w->v3 = isdb__carve(base, &u, p);
    w->v4 = isdb__carve(base, &u, p);
    w->v5 = isdb__carve(base, &u, p);
    w->flags = isdb__carve(base, &u, p);
    return u;
}

size_t isdb_isd_estimate_work_size(int p, int n, const isdb_isd_options *opt) {
    isdb_isd_options o = opt ? *opt : isdb_isd_options_init();
    isdb__isd_dims dm;
    isdb__isd_work w;
    if (!isdb__isd_resolve(p, n, &o, &dm)) return 0;
    return isdb__isd_layout(&dm, NULL, &w);
}

/* Solves G x = c for the symmetric q x q G (lower triangle read) by
   Cholesky; if G does not factor, with G + eps I, eps 1e-10 times the
   mean |diagonal| (1e-10 if that is 0). Returns 0 (x = 0) if neither
   factors. L: q^2 scratch. */
ISDB__PRIVATE int isdb__sym_solve(int q, const double *G, const double *c, double *x, double *L) {
    double scale = 0.0;
    int i, tries;
    if (q < 1) return 1;
    for (i = 0; i < q; ++i) scale += fabs(G[i * q + i]);
    scale = scale > 0.0 ? scale / (double)q : 1.0;
    for (tries = 0; tries < 2; ++tries) {
        isdb__copy(q * q, G, L);
        if (tries)
            for (i = 0; i < q; ++i) L[i * q + i] += 1e-10 * scale;
        if (isdb_chol(q, L) == ISDB_OK) {
            isdb_chol_solve(q, L, c, x);
            return 1;
        }
    }
    isdb__zero(q, x);
    return 0;
}

/* Gram sums over rows [from, to): G (lower) += x x^T, c += y x, sx += x,
   *sy += y. */
ISDB__PRIVATE void isdb__isd_accumulate(int p, const double *X, const double *y, int from, int to, double *G,
                                        double *c, double *sx, double *sy) {
    int r, i, j;
    for (r = from; r < to; ++r) {
        const double *x = X + r * p;
        for (i = 0; i < p; ++i) {
            for (j = 0; j <= i; ++j) G[i * p + j] += x[i] * x[j];
            c[i] += y[r] * x[i];
            sx[i] += x[i];
        }
        *sy += y[r];
    }
}

/* Least-squares normal equations of rows [from1, to1) and [from2, to2):
   G (full, symmetric) and c, centred when `intercept`. sx: p scratch. */
ISDB__PRIVATE void isdb__isd_normal(int p, const double *X, const double *y, int from1, int to1, int from2, int to2,
                                    int intercept, double *G, double *c, double *sx) {
    double sy = 0.0, cnt = (double)(to1 - from1 + to2 - from2);
    int i, j;
    isdb__zero(p * p, G);
    isdb__zero(p, c);
    isdb__zero(p, sx);
    isdb__isd_accumulate(p, X, y, from1, to1, G, c, sx, &sy);
    isdb__isd_accumulate(p, X, y, from2, to2, G, c, sx, &sy);
    for (i = 0; i < p; ++i) {
        for (j = 0; j <= i; ++j) {
            if (intercept && cnt > 0.0) G[i * p + j] -= sx[i] * sx[j] / cnt;
            G[j * p + i] = G[i * p + j];
        }
        if (intercept && cnt > 0.0) c[i] -= sx[i] * sy / cnt;
    }
}

/* Least squares restricted to the columns [off, off + q) of the p x p
   basis B: x = B_q solve(B_q^T G B_q, B_q^T c), written to out (p); out = 0
   when q = 0. w: T (p^2), Gq (p^2), L (p^2), two p vectors. */
ISDB__PRIVATE void isdb__isd_subspace_ols(int p, const double *G, const double *c, const double *B, int off, int q,
                                          double *out, double *T, double *Gq, double *L, double *cq, double *xq) {
    int i, j, l;
    isdb__zero(p, out);
    if (q < 1) return;
    for (i = 0; i < p; ++i)
        for (j = 0; j < q; ++j) {
            double s = 0.0;
            for (l = 0; l < p; ++l) s += G[i * p + l] * B[l * p + off + j];
            T[i * q + j] = s;
        }
    for (i = 0; i < q; ++i) {
        double s = 0.0;
        for (j = 0; j <= i; ++j) {
            double g = 0.0;
            for (l = 0; l < p; ++l) g += B[l * p + off + i] * T[l * q + j];
            Gq[i * q + j] = g;
            Gq[j * q + i] = g;
        }
        for (l = 0; l < p; ++l) s += B[l * p + off + i] * c[l];
        cq[i] = s;
    }
    isdb__sym_solve(q, Gq, cq, xq, L);
    for (l = 0; l < p; ++l) {
        double s = 0.0;
        for (j = 0; j < q; ++j) s += B[l * p + off + j] * xq[j];
        out[l] = s;
    }
}

/* Uo: the columns of the invariant blocks (flag 1 in inv, given as
   doubles) first, then the others, each in block order. Returns p_inv. */
ISDB__PRIVATE int isdb__isd_order(int p, const double *U, const int *sizes, int nb, const double *inv, double *Uo) {
    int pass, b, off, col = 0, q = 0, i, j;
    for (pass = 1; pass >= 0; --pass)
        for (b = 0, off = 0; b < nb; off += sizes[b++]) {
            if ((inv[b] != 0.0) != (pass == 1)) continue;
            for (j = 0; j < sizes[b]; ++j, ++col)
                for (i = 0; i < p; ++i) Uo[i * p + col] = U[i * p + off + j];
            if (pass == 1) q += sizes[b];
        }
    return q;
}

/* Adds (sgn = 1) or removes (sgn = -1) a residual row to the rolling sums
   of the CV adaptation window. */
ISDB__PRIVATE void isdb__isd_roll(int q, const double *z, double r, double sgn, double *S, double *sz, double *szr,
                                  double *sr) {
    int i, j;
    for (i = 0; i < q; ++i) {
        for (j = 0; j <= i; ++j) S[i * q + j] += sgn * z[i] * z[j];
        sz[i] += sgn * z[i];
        szr[i] += sgn * z[i] * r;
    }
    *sr += sgn * r;
}

/* Cross-validated score of the invariant set {b : T_b < th}: the score of
   each fold into fsc (k), and their mean, standard error (population sd /
   sqrt k) and minimum. fG, fc hold each fold's training normal equations.
   inv: nb doubles of scratch. */
ISDB__PRIVATE void isdb__isd_cv(const isdb__isd_dims *dm, const double *X, const double *y, const double *U,
                                const int *sizes, const double *stat, int nb, double th, int intercept,
                                isdb__isd_work *w, double *inv, double *fsc, double *xv, double *se, double *mn) {
    int p = dm->p, F = dm->F, a = dm->a, f, i, j, l, b, s, q, qr, count = dm->F - dm->a - 1;
    double mean = 0.0, var = 0.0, lo = 0.0;
    double *beta = w->v1, *cq = w->v2, *xq = w->v3, *sz = w->v4, *szr = w->v5, *S = w->T;
    for (b = 0; b < nb; ++b) inv[b] = stat[b] < th ? 1.0 : 0.0;
    q = isdb__isd_order(p, U, sizes, nb, inv, w->Uo);
    qr = p - q;
    for (f = 0; f < dm->k; ++f) {
        int st = isdb__isd_start(f, dm->k, dm->n, F);
        double score = 0.0, sr = 0.0;
        isdb__isd_subspace_ols(p, w->fG + f * p * p, w->fc + f * p, w->Uo, 0, q, beta, w->T, w->G, w->L, cq, xq);
        for (i = 0; i < F; ++i) {
            const double *x = X + (st + i) * p;
            w->PI[i] = isdb__dot(p, x, beta);
            w->R[i] = y[st + i] - w->PI[i];
            for (j = 0; j < qr; ++j) {
                double v = 0.0;
                for (l = 0; l < p; ++l) v += x[l] * w->Uo[l * p + q + j];
                w->Z[i * p + j] = v;
            }
        }
        for (s = 0; s < count; ++s) {
            double pred = w->PI[s + a], yt = y[st + s + a];
            if (qr > 0) {
                if (s % a == 0) {
                    /* Fresh sums every a steps bound the rounding drift. */
                    isdb__zero(qr * qr, S);
                    isdb__zero(qr, sz);
                    isdb__zero(qr, szr);
                    sr = 0.0;
                    for (i = s; i < s + a; ++i) isdb__isd_roll(qr, w->Z + i * p, w->R[i], 1.0, S, sz, szr, &sr);
                } else {
                    isdb__isd_roll(qr, w->Z + (s - 1) * p, w->R[s - 1], -1.0, S, sz, szr, &sr);
                    isdb__isd_roll(qr, w->Z + (s + a - 1) * p, w->R[s + a - 1], 1.0, S, sz, szr, &sr);
                }
                for (i = 0; i < qr; ++i) {
                    for (j = 0; j <= i; ++j) {
                        double g = S[i * qr + j] - (intercept ? sz[i] * sz[j] / (double)a : 0.0);
                        w->G[i * qr + j] = g;
                        w->G[j * qr + i] = g;
                    }
                    cq[i] = szr[i] - (intercept ? sz[i] * sr / (double)a : 0.0);
                }
                isdb__sym_solve(qr, w->G, cq, xq, w->L);
                pred += isdb__dot(qr, w->Z + (s + a) * p, xq);
            }
            score += 2.0 * yt * pred - pred * pred;
        }
        fsc[f] = score / (double)count;
    }
    for (f = 0; f < dm->k; ++f) {
        mean += fsc[f];
        if (f == 0 || fsc[f] < lo) lo = fsc[f];
    }
    mean /= (double)dm->k;
    for (f = 0; f < dm->k; ++f) var += (fsc[f] - mean) * (fsc[f] - mean);
    *xv = mean;
    *se = sqrt(var / (double)dm->k) / sqrt((double)dm->k);
    *mn = lo;
}

/* mean_k |corr_k(e, f)| over the windows, e = y - f; a window where e or f
   is constant contributes 0. */
ISDB__PRIVATE double isdb__isd_stat(const isdb__isd_dims *dm, const double *y, const double *f) {
    double total = 0.0;
    int k, r;
    for (k = 0; k < dm->m; ++k) {
        int st = isdb__isd_start(k, dm->m, dm->n, dm->l);
        double mf = 0.0, me = 0.0, sff = 0.0, see = 0.0, sef = 0.0;
        for (r = st; r < st + dm->l; ++r) {
            mf += f[r];
            me += y[r] - f[r];
        }
        mf /= (double)dm->l;
        me /= (double)dm->l;
        for (r = st; r < st + dm->l; ++r) {
            double df = f[r] - mf, de = (y[r] - f[r]) - me;
            sff += df * df;
            see += de * de;
            sef += de * df;
        }
        if (sff > 0.0 && see > 0.0) total += fabs(sef / sqrt(sff * see));
    }
    return total / (double)dm->m;
}

isdb_result isdb_isd_estimate(int p, int n, const double *X, const double *y, const isdb_isd_options *opt,
                              isdb_isd_fit *fit, double *work) {
    isdb_isd_options o = opt ? *opt : isdb_isd_options_init();
    isdb__isd_dims dm;
    isdb__isd_work w;
    isdb_result r, jr;
    int pp, k, b, i, j, nb, off, nc, jj, jstar, q, force = -1;
    double th_star = 0.0, *inv, *tmp_sizes, *tmp_stat;
    if (!X || !y || !fit || !work || !fit->U || !fit->beta_inv || !fit->stat || !fit->sizes || !fit->invariant)
        return ISDB_ERR_INVALID_ARG;
    if (!isdb__isd_resolve(p, n, &o, &dm)) return ISDB_ERR_INVALID_ARG;
    if ((r = isdb__check_input(X, n * p)) != ISDB_OK) return r;
    if ((r = isdb__check_input(y, n)) != ISDB_OK) return r;
    isdb__isd_layout(&dm, work, &w);
    pp = p * p;
    /* 1. Environments. */
    for (k = 0; k < dm.m; ++k) {
        int st = isdb__isd_start(k, dm.m, n, dm.l), rr;
        double *Ck = w.C + k * pp, *mu = w.v1;
        isdb__zero(p, mu);
        if (o.center) {
            for (rr = st; rr < st + dm.l; ++rr)
                for (i = 0; i < p; ++i) mu[i] += X[rr * p + i];
            for (i = 0; i < p; ++i) mu[i] /= (double)dm.l;
        }
        isdb__zero(pp, Ck);
        for (rr = st; rr < st + dm.l; ++rr) {
            const double *x = X + rr * p;
            for (i = 0; i < p; ++i)
                for (j = 0; j <= i; ++j) Ck[i * p + j] += (x[i] - mu[i]) * (x[j] - mu[j]);
        }
        for (i = 0; i < p; ++i)
            for (j = 0; j <= i; ++j) {
                Ck[i * p + j] /= (double)(o.center ? dm.l - 1 : dm.l);
                Ck[j * p + i] = Ck[i * p + j];
            }
    }
    /* 2. Joint block diagonalization. */
    jr = isdb_jbd(p, dm.m, w.C, &o.jbd, fit->U, fit->sizes, w.jw, &fit->jbd);
    if (jr < 0) return jr;
    nb = fit->jbd.n_blocks;
    /* 3. Window slopes in U coordinates, and the statistic of each block. */
    for (k = 0; k < dm.m; ++k) {
        int st = isdb__isd_start(k, dm.m, n, dm.l);
        isdb__isd_normal(p, X, y, st, st + dm.l, 0, 0, o.intercept, w.G, w.v2, w.v1);
        isdb__sym_solve(p, w.G, w.v2, w.v3, w.L);
        for (j = 0; j < p; ++j) {
            double s = 0.0;
            for (i = 0; i < p; ++i) s += fit->U[i * p + j] * w.v3[i];
            w.gt[k * p + j] = s;
        }
    }
    for (b = 0, off = 0; b < nb; off += fit->sizes[b++]) {
        double *v = w.v1;
        isdb__zero(p, v);
        for (j = off; j < off + fit->sizes[b]; ++j) {
            double mu = 0.0;
            for (k = 0; k < dm.m; ++k) mu += w.gt[k * p + j];
            mu /= (double)dm.m;
            for (i = 0; i < p; ++i) v[i] += fit->U[i * p + j] * mu;
        }
        for (i = 0; i < n; ++i) w.f[i] = isdb__dot(p, X + i * p, v);
        fit->stat[b] = isdb__isd_stat(&dm, y, w.f);
    }
    /* 4. Candidates, sorted ascending (stable); the appended 1 is index nb. */
    nc = nb + 1;
    for (j = 0; j < nb; ++j) w.cand[j] = fit->stat[j];
    w.cand[nb] = 1.0;
    for (j = 0; j < nc; ++j) w.ord[j] = (double)j;
    for (j = 1; j < nc; ++j) {
        double key = w.ord[j];
        i = j - 1;
        while (i >= 0 && w.cand[(int)w.ord[i]] > w.cand[(int)key]) {
            w.ord[i + 1] = w.ord[i];
            --i;
        }
        w.ord[i + 1] = key;
    }
    /* Each fold's training normal equations (the rows outside the fold). */
    for (k = 0; k < dm.k; ++k) {
        int st = isdb__isd_start(k, dm.k, n, dm.F);
        isdb__isd_normal(p, X, y, 0, st, st + dm.F, n, o.intercept, w.fG + k * pp, w.fc + k * p, w.v1);
    }
    {
        int prev_q = -1;
        for (jj = 0; jj < nc; ++jj) {
            double th = w.cand[(int)w.ord[jj]];
            int cnt = 0;
            for (b = 0; b < nb; ++b)
                if (fit->stat[b] < th) cnt += fit->sizes[b];
            if (cnt == prev_q) {
                /* Nested sets: the same size is the same set. */
                isdb__copy(dm.k, w.fsc + (jj - 1) * dm.k, w.fsc + jj * dm.k);
                w.xv[jj] = w.xv[jj - 1];
                w.se[jj] = w.se[jj - 1];
                w.mn[jj] = w.mn[jj - 1];
                continue;
            }
            prev_q = cnt;
            isdb__isd_cv(&dm, X, y, fit->U, fit->sizes, fit->stat, nb, th, o.intercept, &w, w.flags,
                         w.fsc + jj * dm.k, &w.xv[jj], &w.se[jj], &w.mn[jj]);
        }
    }
    /* 5. Selection. */
    {
        int all_nonpos = 1;
        for (jj = 0; jj < nc; ++jj)
            if ((int)w.ord[jj] != nb && w.mn[jj] > 0.0) all_nonpos = 0;
        if (all_nonpos) {
            th_star = 0.0;
        } else {
            jstar = 0;
            for (jj = 1; jj < nc; ++jj)
                if (w.xv[jj] > w.xv[jstar]) jstar = jj;
            for (jj = 0; jj <= jstar; ++jj) {
                double slack = 0.0;
                if (o.one_se == ISDB_ISD_ONE_SE_UNPAIRED) {
                    slack = w.se[jstar];
                } else if (o.one_se == ISDB_ISD_ONE_SE_PAIRED) {
                    /* Standard error of the mean per-fold difference to
                       the best candidate. */
                    double md = 0.0, vd = 0.0;
                    int f;
                    for (f = 0; f < dm.k; ++f) md += w.fsc[jj * dm.k + f] - w.fsc[jstar * dm.k + f];
                    md /= (double)dm.k;
                    for (f = 0; f < dm.k; ++f) {
                        double dd = w.fsc[jj * dm.k + f] - w.fsc[jstar * dm.k + f] - md;
                        vd += dd * dd;
                    }
                    slack = sqrt(vd / (double)dm.k) / sqrt((double)dm.k);
                }
                if (w.xv[jj] >= w.xv[jstar] - slack) {
                    th_star = w.cand[(int)w.ord[jj]];
                    break;
                }
            }
        }
    }
    /* Final decomposition: invariant blocks first. */
    tmp_sizes = w.cand; /* p + 1 doubles each, free now */
    tmp_stat = w.xv;
    inv = w.se;
    for (b = 0; b < nb; ++b) {
        tmp_sizes[b] = (double)fit->sizes[b];
        tmp_stat[b] = fit->stat[b];
        inv[b] = fit->stat[b] < th_star ? 1.0 : 0.0;
    }
    if (o.force_residual) {
        int all = 1;
        for (b = 0; b < nb; ++b)
            if (inv[b] == 0.0) all = 0;
        if (all && nb > 0) {
            force = 0;
            for (b = 1; b < nb; ++b)
                if (tmp_stat[b] > tmp_stat[force]) force = b;
            inv[force] = 0.0;
        }
    }
    q = isdb__isd_order(p, fit->U, fit->sizes, nb, inv, w.Uo);
    {
        int pass, pos = 0;
        for (pass = 1; pass >= 0; --pass)
            for (b = 0; b < nb; ++b) {
                if ((inv[b] != 0.0) != (pass == 1)) continue;
                fit->sizes[pos] = (int)tmp_sizes[b];
                fit->stat[pos] = tmp_stat[b];
                fit->invariant[pos] = pass;
                ++pos;
            }
    }
    isdb__copy(pp, w.Uo, fit->U);
    isdb__isd_normal(p, X, y, 0, n, 0, 0, o.intercept, w.G, w.v1, w.v2);
    isdb__isd_subspace_ols(p, w.G, w.v1, fit->U, 0, q, fit->beta_inv, w.T, w.L, w.Uo, w.v3, w.v4);
    fit->n_blocks = nb;
    fit->p_inv = q;
    fit->theta = th_star;
    return jr;
}

/* ---------------------------------------------------------------------------
   ISD-linUCB: the policy
   ------------------------------------------------------------------------ */

isdb_isd_config isdb_isd_config_init(int d, int max_arms, int n_offline, const double *X0, const double *R0) {
    isdb_isd_config c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.max_arms = max_arms;
    c.n_offline = n_offline;
    c.X0 = X0;
    c.R0 = R0;
    c.oracle = 0;
    c.p_inv = 0;
    c.U_inv = NULL;
    c.beta_inv = NULL;
    c.est = isdb_isd_options_init();
    c.learner = ISDB_ISD_RES_LINUCB;
    c.window = 100;
    c.gamma = 0.99;
    c.lambda = 1.0;
    c.refresh = 0;
    c.radius = ISDB_ISD_RADIUS_PAPER;
    c.delta = 0.01;
    c.sigma = 1.0;
    c.L = 1.0;
    c.M = 1.0;
    c.alpha = 1.0;
    c.delta_pi = -1.0;
    c.recompute_every = 0;
    c.history = 0;
    c.monitor = ISDB_ISD_MONITOR_OFF;
    c.monitor_window = 0;
    c.monitor_every = 0;
    c.monitor_level = 1e-4;
    return c;
}

/* Checks c and writes the resolved config (history and monitor sizes). */
ISDB__PRIVATE int isdb__isd_config_resolve(const isdb_isd_config *c, isdb_isd_config *r) {
    int d, need;
    if (!c || !isdb__sizes_ok(c->d, c->max_arms)) return 0;
    d = c->d;
    if (c->n_offline < 0 || c->n_offline > INT_MAX / (d + 1) - 1) return 0;
    if (c->n_offline > 0 && (!c->X0 || !c->R0)) return 0;
    if (!isdb__flag_ok(c->oracle) || !isdb__isd_options_ok(&c->est)) return 0;
    if (c->oracle) {
        if (c->p_inv < 0 || c->p_inv > d || (c->p_inv > 0 && !c->U_inv)) return 0;
        if (c->p_inv > 0 && !c->beta_inv && c->n_offline < 1) return 0;
    } else if (isdb_isd_estimate_work_size(d, c->n_offline, &c->est) == 0) {
        return 0; /* too few offline rows for the estimator */
    }
    if (c->learner == ISDB_ISD_RES_WINDOW) {
        if (c->window < 1) return 0;
    } else if (c->learner == ISDB_ISD_RES_DISCOUNT) {
        if (!isdb__open01(c->gamma)) return 0;
    } else if (c->learner != ISDB_ISD_RES_LINUCB) {
        return 0;
    }
    if (!isdb__ridge_ok(c->lambda) || c->refresh < 0) return 0;
    if (c->radius < ISDB_ISD_RADIUS_PAPER || c->radius > ISDB_ISD_RADIUS_FIXED) return 0;
    if (!isdb__open01(c->delta) || !isdb__nonneg(c->sigma) || !isdb__positive(c->L) || !isdb__nonneg(c->M) ||
        !isdb__nonneg(c->alpha) || !isdb__finite(c->delta_pi))
        return 0;
    if (c->recompute_every < 0 || c->history < 0 || c->monitor < ISDB_ISD_MONITOR_OFF ||
        c->monitor > ISDB_ISD_MONITOR_RECOMPUTE || c->monitor_window < 0 || c->monitor_every < 0 ||
        !isdb__open01(c->monitor_level))
        return 0;
    *r = *c;
    if (r->monitor_window == 0) r->monitor_window = 10 * d + 20;
    if (r->monitor != ISDB_ISD_MONITOR_OFF && r->monitor_window < d + 2) return 0;
    if (r->monitor_every == 0) r->monitor_every = isdb__max_int(1, r->monitor_window / 4);
    need = r->history;
    if (r->learner == ISDB_ISD_RES_WINDOW) need = isdb__max_int(need, r->window);
    if (r->recompute_every > 0) need = isdb__max_int(need, r->recompute_every);
    if (r->monitor != ISDB_ISD_MONITOR_OFF) need = isdb__max_int(need, r->monitor_window);
    if (need > INT_MAX / (d + 1) - c->n_offline - 1) return 0;
    r->history = need;
    return 1;
}

/* Doubles of scratch: the estimator on the largest pool, or the fits,
   rebuilds and tests (8 d^2 + 8 d). */
ISDB__PRIVATE size_t isdb__isd_work_need(const isdb_isd_config *c) {
    size_t d = (size_t)c->d, need = 8 * d * d + 8 * d;
    if (!c->oracle) {
        size_t est = isdb_isd_estimate_work_size(c->d, c->n_offline + c->history, &c->est);
        if (est > need) need = est;
    }
    return need;
}

ISDB__PRIVATE void isdb__isd_fit_layout(isdb__isd_fit *f, isdb__arena *a, int d) {
    int dd = d * d;
    f->U = isdb__take_f64(a, dd);
    f->Ut = isdb__take_f64(a, dd);
    f->beta = isdb__take_f64(a, d);
    f->Lbeta = isdb__take_f64(a, dd);
    f->Winv = isdb__take_f64(a, dd);
    f->stat = isdb__take_f64(a, d);
    f->sizes = (int *)isdb__take(a, d, sizeof(int));
    f->invariant = (int *)isdb__take(a, d, sizeof(int));
}

/* Carves (or with heap NULL measures) the heap of a resolved config. */
ISDB__PRIVATE size_t isdb__isdp_layout(const isdb_isd_config *c, isdb_isd *p, void *heap) {
    isdb__arena a;
    int d = c->d, dd = d * d, H = c->history, N = c->n_offline + c->history;
    int disc = c->learner == ISDB_ISD_RES_DISCOUNT;
    size_t work = isdb__isd_work_need(c);
    a.base = (unsigned char *)heap;
    a.used = 0;
    a.overflow = 0;
    if (work > (size_t)INT_MAX) return 0;
    p->_pool_x = isdb__take_f64(&a, N * d);
    p->_pool_y = isdb__take_f64(&a, N);
    p->_hist_x = isdb__take_f64(&a, H * d);
    p->_hist_y = isdb__take_f64(&a, H);
    isdb__isd_fit_layout(&p->_fit, &a, d);
    isdb__isd_fit_layout(&p->_fit0, &a, d);
    isdb__isd_fit_layout(&p->_fit_next, &a, d);
    p->_U_inv0 = isdb__take_f64(&a, c->oracle ? d * c->p_inv : 0);
    p->_beta0 = isdb__take_f64(&a, d);
    isdb__ridge_layout(&p->_res, &a, d, 1);
    p->_Vd = isdb__take_f64(&a, disc ? dd : 0);
    p->_Vd_next = isdb__take_f64(&a, disc ? dd : 0);
    p->_Vt = isdb__take_f64(&a, disc ? dd : 0);
    p->_Vt_next = isdb__take_f64(&a, disc ? dd : 0);
    p->_b_next = isdb__take_f64(&a, disc ? d : 0);
    p->_gamma = isdb__take_f64(&a, d);
    p->_z = isdb__take_f64(&a, d);
    p->_u = isdb__take_f64(&a, d);
    p->_work = isdb__take_f64(&a, (int)work);
    return a.overflow ? 0 : a.used;
}

ISDB__PRIVATE void isdb__isd_fit_copy(int d, const isdb__isd_fit *src, isdb__isd_fit *dst) {
    int dd = d * d;
    dst->p_inv = src->p_inv;
    dst->n_blocks = src->n_blocks;
    dst->n = src->n;
    dst->identity = src->identity;
    dst->theta = src->theta;
    dst->lambda0 = src->lambda0;
    dst->lambda_max = src->lambda_max;
    dst->lambda_beta = src->lambda_beta;
    dst->delta_pi = src->delta_pi;
    dst->r_inv = src->r_inv;
    dst->jbd = src->jbd;
    isdb__copy(dd, src->U, dst->U);
    isdb__copy(dd, src->Ut, dst->Ut);
    isdb__copy(d, src->beta, dst->beta);
    isdb__copy(dd, src->Lbeta, dst->Lbeta);
    isdb__copy(dd, src->Winv, dst->Winv);
    isdb__copy(d, src->stat, dst->stat);
    memcpy(dst->sizes, src->sizes, (size_t)d * sizeof(int));
    memcpy(dst->invariant, src->invariant, (size_t)d * sizeof(int));
}

ISDB__PRIVATE void isdb__isd_fit_swap(isdb__isd_fit *a, isdb__isd_fit *b) {
    isdb__isd_fit t = *a;
    *a = *b;
    *b = t;
}

/* The invariant part has its own confidence set (beta_inv is estimated). */
ISDB__PRIVATE int isdb__isd_inv_active(const isdb_isd *p) {
    return p->_fit.p_inv > 0 && !(p->cfg.oracle && p->cfg.beta_inv);
}

/* Paper eq. 25 as a norm radius (eq. 20 when DeltaPi = 0), without alpha. */
ISDB__PRIVATE double isdb__isd_r_inv(const isdb_isd_config *c, int pi, double n, double lambda0, double dpi) {
    double a, rho;
    if (pi < 1 || !(lambda0 > 0.0) || !(n > 0.0)) return 0.0;
    a = 2.0 * log(1.0 / c->delta) + (double)pi * log(c->L * c->L / ((double)pi * lambda0));
    rho = c->sigma * sqrt(a > 0.0 ? a : 0.0);
    rho += 2.0 * c->L * c->L * c->M * sqrt(2.0 / lambda0 * log(((double)pi + 1.0) / c->delta));
    rho += sqrt((double)pi * n) * dpi * c->L * c->M;
    rho += sqrt(n / lambda0) * dpi * c->L * c->L * c->M;
    return rho;
}

/* Completes a fit whose U, beta and p_inv are set: the Gram matrix of the
   n rows behind it, lambda0, lambda_max, the factor of U_inv^T Sigma U_inv
   and W_inv, DeltaPi and r_inv. Returns 0 if Sigma_beta cannot be
   factored even with the ridge fallback. w: work (>= 6 d^2 + 2 d). */
ISDB__PRIVATE int isdb__isd_fit_post(isdb_isd *p, isdb__isd_fit *f, int n, const double *X, double *w) {
    const isdb_isd_config *c = &p->cfg;
    int d = c->d, dd = d * d, pi = f->p_inv, i, j, l, r;
    double *Sig = w, *E = w + dd, *T = w + 2 * dd, *ev = w + 3 * dd, *tmp = ev + d, *G2 = tmp + d;
    int known = c->oracle && c->beta_inv;
    f->n = n;
    isdb__zero(dd, Sig);
    for (r = 0; r < n; ++r) {
        const double *x = X + r * d;
        for (i = 0; i < d; ++i)
            for (j = 0; j <= i; ++j) Sig[i * d + j] += x[i] * x[j];
    }
    isdb__symmetrize_lower(d, Sig);
    f->lambda0 = f->lambda_max = 0.0;
    if (n > 0) {
        for (i = 0; i < dd; ++i) T[i] = Sig[i] / (double)n;
        if (isdb_sym_eig(d, T, ev, E) < 0) return 0;
        f->lambda_max = ev[d - 1] > 0.0 ? ev[d - 1] : 0.0;
        f->lambda0 = ev[0] > DBL_EPSILON * f->lambda_max ? ev[0] : DBL_EPSILON * f->lambda_max;
    }
    f->identity = pi == 0;
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) {
            f->Ut[j * d + i] = f->U[i * d + j];
            if (f->U[i * d + j] != (i == j ? 1.0 : 0.0)) f->identity = 0;
        }
    isdb__zero(dd, f->Lbeta);
    isdb__zero(dd, f->Winv);
    f->lambda_beta = 0.0;
    if (pi > 0 && !known) {
        /* Sigma_beta = U_inv^T Sigma U_inv (stride pi in Lbeta). */
        for (i = 0; i < d; ++i)
            for (j = 0; j < pi; ++j) {
                double s = 0.0;
                for (l = 0; l < d; ++l) s += Sig[i * d + l] * f->U[l * d + j];
                T[i * pi + j] = s;
            }
        for (i = 0; i < pi; ++i)
            for (j = 0; j < pi; ++j) {
                double s = 0.0;
                for (l = 0; l < d; ++l) s += f->Ut[i * d + l] * T[l * pi + j];
                G2[i * pi + j] = s;
            }
        for (i = 0; i < pi; ++i)
            for (j = 0; j < i; ++j) G2[i * pi + j] = G2[j * pi + i] = 0.5 * (G2[i * pi + j] + G2[j * pi + i]);
        isdb__copy(pi * pi, G2, E);
        if (isdb_sym_eig(pi, E, ev, T) < 0) return 0;
        f->lambda_beta = ev[0];
        isdb__copy(pi * pi, G2, f->Lbeta);
        if (isdb_chol(pi, f->Lbeta) != ISDB_OK) {
            double scale = 0.0;
            for (i = 0; i < pi; ++i) scale += fabs(G2[i * pi + i]);
            scale = scale > 0.0 ? scale / (double)pi : 1.0;
            isdb__copy(pi * pi, G2, f->Lbeta);
            for (i = 0; i < pi; ++i) f->Lbeta[i * pi + i] += 1e-10 * scale;
            if (isdb_chol(pi, f->Lbeta) != ISDB_OK) return 0;
        }
        /* W_inv = Lbeta^-1 U_inv^T, column by column. */
        for (l = 0; l < d; ++l) {
            for (i = 0; i < pi; ++i) tmp[i] = f->Ut[i * d + l];
            isdb_tri_solve(pi, f->Lbeta, 0, tmp, tmp);
            for (i = 0; i < pi; ++i) f->Winv[i * d + l] = tmp[i];
        }
    }
    f->delta_pi = 0.0;
    if (!c->oracle && pi > 0 && n > 0)
        f->delta_pi = c->delta_pi >= 0.0 ? c->delta_pi
                                         : sqrt(f->lambda_max * log(2.0 * (double)d / c->delta) / (double)n);
    f->r_inv = known ? 0.0 : isdb__isd_r_inv(c, pi, (double)n, f->lambda0, f->delta_pi);
    return 1;
}

/* Fits the decomposition to n pool rows into f. Oracle mode keeps the
   basis of the oracle fit (U0) and re-estimates beta_inv unless given. */
ISDB__PRIVATE isdb_result isdb__isd_fit_rows(isdb_isd *p, isdb__isd_fit *f, int n, const double *X, const double *y,
                                             const double *U0) {
    const isdb_isd_config *c = &p->cfg;
    int d = c->d, dd = d * d, i, j;
    double *w = p->_work;
    isdb_result r = ISDB_OK;
    if (!c->oracle) {
        isdb_isd_fit out;
        out.U = f->U;
        out.beta_inv = f->beta;
        out.stat = f->stat;
        out.sizes = f->sizes;
        out.invariant = f->invariant;
        r = isdb_isd_estimate(d, n, X, y, &c->est, &out, w);
        if (r < 0) return r;
        f->p_inv = out.p_inv;
        f->n_blocks = out.n_blocks;
        f->theta = out.theta;
        f->jbd = out.jbd;
        for (i = out.n_blocks; i < d; ++i) {
            f->sizes[i] = 0;
            f->invariant[i] = 0;
            f->stat[i] = 0.0;
        }
    } else {
        int pi = c->p_inv;
        isdb__copy(dd, U0, f->U);
        f->p_inv = pi;
        f->n_blocks = 0;
        f->theta = 0.0;
        memset(&f->jbd, 0, sizeof f->jbd);
        isdb__zero(d, f->stat);
        memset(f->sizes, 0, (size_t)d * sizeof(int));
        memset(f->invariant, 0, (size_t)d * sizeof(int));
        isdb__zero(d, f->beta);
        if (pi > 0 && c->beta_inv) {
            /* beta = U_inv U_inv^T beta0 */
            for (j = 0; j < pi; ++j) {
                double s = 0.0;
                for (i = 0; i < d; ++i) s += U0[i * d + j] * p->_beta0[i];
                for (i = 0; i < d; ++i) f->beta[i] += U0[i * d + j] * s;
            }
        } else if (pi > 0) {
            /* Paper eq. 6: OLS inside S_inv on the pool. */
            isdb__isd_normal(d, X, y, 0, n, 0, 0, c->est.intercept, w, w + dd, w + dd + d);
            isdb__isd_subspace_ols(d, w, w + dd, f->U, 0, pi, f->beta, w + dd + 2 * d, w + 2 * dd + 2 * d,
                                   w + 3 * dd + 2 * d, w + 4 * dd + 2 * d, w + 4 * dd + 3 * d);
        }
    }
    if (!isdb__isd_fit_post(p, f, n, X, w)) return ISDB_ERR_NOT_SPD;
    return r;
}

/* z = U_res^T x into p->_z; returns the residual target y - x.beta. */
ISDB__PRIVATE double isdb__isd_residual(const isdb_isd *p, const double *x, double y, double *z) {
    const isdb__isd_fit *f = &p->_fit;
    int d = p->cfg.d, pi = f->p_inv, j;
    if (f->identity) {
        isdb__copy(d, x, z);
        return y;
    }
    for (j = pi; j < d; ++j) z[j - pi] = isdb__dot(d, f->Ut + j * d, x);
    return y - isdb__dot(d, x, f->beta);
}

/* History row k steps back from the newest (k = 0: newest). */
ISDB__PRIVATE int isdb__isd_hist_slot(const isdb_isd *p, int back) {
    int H = p->cfg.history;
    return (p->hist_head + p->hist_count - 1 - back + H) % H;
}

/* gamma = beta + U_res theta. */
ISDB__PRIVATE void isdb__isd_update_gamma(isdb_isd *p) {
    const isdb__isd_fit *f = &p->_fit;
    int d = p->cfg.d, pi = f->p_inv, q = d - pi, i, j;
    if (f->identity) {
        isdb__copy(d, p->_res.theta, p->_gamma);
        return;
    }
    for (i = 0; i < d; ++i) {
        double s = f->beta[i];
        for (j = 0; j < q; ++j) s += f->U[i * d + pi + j] * p->_res.theta[j];
        p->_gamma[i] = s;
    }
}

/* Residual learner back to no rows, in dimension p_res of the current fit. */
ISDB__PRIVATE void isdb__isd_res_clear(isdb_isd *p) {
    isdb__ridge *r = &p->_res;
    const isdb_isd_config *c = &p->cfg;
    int d = c->d, dd = d * d, q = d - p->_fit.p_inv;
    isdb__zero(dd, r->L);
    isdb__zero(dd, r->L_next);
    isdb__zero(dd, r->V);
    isdb__zero(d, r->b);
    isdb__zero(d, r->theta);
    isdb__zero(2 * d, r->work);
    r->d = q;
    r->lambda = c->lambda;
    r->refresh = c->refresh ? c->refresh : (c->learner == ISDB_ISD_RES_WINDOW ? isdb__max_int(c->window, q) : q);
    r->logdet = 0.0;
    r->since_refresh = 0;
    if (q > 0) isdb__ridge_reset(r);
    if (c->learner == ISDB_ISD_RES_DISCOUNT) {
        isdb__zero(dd, p->_Vd);
        isdb__zero(dd, p->_Vd_next);
        isdb__zero(dd, p->_Vt);
        isdb__zero(dd, p->_Vt_next);
        isdb__zero(d, p->_b_next);
        if (q > 0) {
            isdb__identity(q, p->_Vd, c->lambda);
            isdb__identity(q, p->_Vt, c->lambda);
        }
    }
    p->n_res = 0.0;
}

/* Factor L (from sqrt(lambda) I) and b of the last k history rows with
   weights wt^(age) (wt = 1: plain sums), by rank-one updates, which cannot
   fail. With Vd / Vt non-NULL also the exact sums with weights wt^age and
   wt^(2 age) (plus lambda I). */
ISDB__PRIVATE void isdb__isd_res_sums(isdb_isd *p, int k, double wt, double *L, double *b, double *Vd, double *Vt) {
    const isdb_isd_config *c = &p->cfg;
    isdb__ridge *r = &p->_res;
    int q = r->d, s, i, j;
    double *z = p->_z;
    isdb__identity(q, L, sqrt(c->lambda));
    isdb__zero(q, b);
    if (Vd) isdb__identity(q, Vd, c->lambda);
    if (Vt) isdb__identity(q, Vt, c->lambda);
    for (s = k - 1; s >= 0; --s) {
        int slot = isdb__isd_hist_slot(p, s);
        double res = isdb__isd_residual(p, p->_hist_x + slot * c->d, p->_hist_y[slot], z), w1 = 1.0;
        if (wt != 1.0) w1 = pow(wt, (double)s);
        for (i = 0; i < q; ++i) {
            b[i] += w1 * res * z[i];
            if (Vd)
                for (j = 0; j <= i; ++j) {
                    Vd[i * q + j] += w1 * z[i] * z[j];
                    Vt[i * q + j] += w1 * w1 * z[i] * z[j];
                }
        }
        if (w1 != 1.0)
            for (i = 0; i < q; ++i) z[i] *= sqrt(w1);
        isdb__chol_update_to(q, L, L, z, r->work);
    }
    if (Vd) {
        isdb__symmetrize_lower(q, Vd);
        isdb__symmetrize_lower(q, Vt);
    }
}

/* Rebuilds the residual learner from the most recent `rows` history rows
   under the current fit (after a recompute, a fallback or a reset). */
ISDB__PRIVATE void isdb__isd_res_rebuild(isdb_isd *p, int rows) {
    const isdb_isd_config *c = &p->cfg;
    isdb__ridge *r = &p->_res;
    int q, s;
    isdb__isd_res_clear(p);
    q = r->d;
    if (q < 1 || rows < 1) return;
    if (c->learner == ISDB_ISD_RES_LINUCB) {
        for (s = rows - 1; s >= 0; --s) {
            int slot = isdb__isd_hist_slot(p, s);
            double res = isdb__isd_residual(p, p->_hist_x + slot * c->d, p->_hist_y[slot], p->_z);
            isdb__ridge_add(r, p->_z, res);
        }
        p->n_res = (double)rows;
        return;
    }
    if (c->learner == ISDB_ISD_RES_WINDOW) {
        int k = isdb__min_int(rows, c->window);
        isdb__isd_res_sums(p, k, 1.0, r->L, r->b, NULL, NULL);
        p->n_res = (double)k;
    } else {
        isdb__isd_res_sums(p, rows, c->gamma, r->L, r->b, p->_Vd, p->_Vt);
        p->n_res = (double)rows;
    }
    isdb_chol_solve(q, r->L, r->b, r->theta);
}

/* Adds the row (z, res) to the residual learner; the history does not
   hold it yet. Only DISCOUNT can fail (its refactorisation), and then
   nothing has changed. */
ISDB__PRIVATE isdb_result isdb__isd_res_add(isdb_isd *p, const double *z, double res) {
    const isdb_isd_config *c = &p->cfg;
    isdb__ridge *r = &p->_res;
    int q = r->d, i, j;
    if (q < 1) {
        p->n_res += 1.0;
        return ISDB_OK;
    }
    if (c->learner == ISDB_ISD_RES_LINUCB) {
        isdb__ridge_add(r, z, res);
    } else if (c->learner == ISDB_ISD_RES_WINDOW) {
        int w = c->window, full = p->n_res >= (double)w, rebuild = r->since_refresh + 1 >= r->refresh;
        double *zo = p->_u, ro = 0.0, ratio;
        if (full) {
            int slot = isdb__isd_hist_slot(p, w - 1);
            ro = isdb__isd_residual(p, p->_hist_x + slot * c->d, p->_hist_y[slot], zo);
        }
        if (!rebuild) {
            isdb__chol_update_to(q, r->L, r->L_next, z, r->work);
            if (full && !isdb__chol_downdate(q, r->L_next, zo, r->work, &ratio)) rebuild = 1;
        }
        if (rebuild) {
            /* The window as it will be (the last w - 1 rows, or all, and
               the new one), rebuilt by rank-one updates. z is not in _z,
               which the sums use as scratch. */
            int k = full ? w - 1 : (int)p->n_res;
            isdb__isd_res_sums(p, k, 1.0, r->L_next, r->b, NULL, NULL);
            for (i = 0; i < q; ++i) r->b[i] += res * z[i];
            isdb__chol_update_to(q, r->L_next, r->L_next, z, r->work);
            r->since_refresh = 0;
        } else {
            for (i = 0; i < q; ++i) r->b[i] += res * z[i] - (full ? ro * zo[i] : 0.0);
            r->since_refresh++;
        }
        isdb__ridge_swap(r);
        isdb_chol_solve(q, r->L, r->b, r->theta);
        if (!full) p->n_res += 1.0;
        return ISDB_OK;
    } else {
        double g = c->gamma, g2 = g * g, lam = c->lambda;
        double pad = (1.0 - g) * lam, pad2 = (1.0 - g) * (1.0 + g) * lam;
        for (i = 0; i < q; ++i) {
            for (j = 0; j <= i; ++j) {
                double zz = z[i] * z[j];
                p->_Vd_next[i * q + j] = g * p->_Vd[i * q + j] + zz;
                p->_Vt_next[i * q + j] = g2 * p->_Vt[i * q + j] + zz;
            }
            p->_Vd_next[i * q + i] += pad;
            p->_Vt_next[i * q + i] += pad2;
            p->_b_next[i] = g * r->b[i] + res * z[i];
        }
        isdb__symmetrize_lower(q, p->_Vd_next);
        isdb__symmetrize_lower(q, p->_Vt_next);
        isdb__copy(q * q, p->_Vd_next, r->L_next);
        if (isdb_chol(q, r->L_next) != ISDB_OK) return ISDB_ERR_NOT_SPD;
        isdb__swap_ptr(&p->_Vd, &p->_Vd_next);
        isdb__swap_ptr(&p->_Vt, &p->_Vt_next);
        isdb__copy(q, p->_b_next, r->b);
        isdb__ridge_swap(r);
        isdb_chol_solve(q, r->L, r->b, r->theta);
    }
    p->n_res += 1.0;
    return ISDB_OK;
}

/* Rows (or effective rows) behind the residual estimate: t of eq. 30. */
ISDB__PRIVATE double isdb__isd_n_eff(const isdb_isd *p) {
    const isdb_isd_config *c = &p->cfg;
    if (c->learner == ISDB_ISD_RES_WINDOW) return p->n_res < (double)c->window ? p->n_res : (double)c->window;
    if (c->learner == ISDB_ISD_RES_DISCOUNT) {
        double g = c->gamma;
        return p->n_res > 0.0 ? -expm1(2.0 * p->n_res * log(g)) / ((1.0 - g) * (1.0 + g)) : 0.0;
    }
    return p->n_res;
}

/* The widths of the next round (alpha included). */
ISDB__PRIVATE void isdb__isd_widths(const isdb_isd *p, double *r_inv, double *r_res) {
    const isdb_isd_config *c = &p->cfg;
    const isdb__isd_fit *f = &p->_fit;
    int d = c->d, pi = f->p_inv, q = d - pi, active = isdb__isd_inv_active(p);
    double t = isdb__isd_n_eff(p);
    if (c->radius == ISDB_ISD_RADIUS_PAPER) {
        double eta = active ? 0.5 * c->delta : c->delta, rr = 0.0;
        if (q > 0) {
            double root = sqrt((double)q * t);
            rr = isdb__width(ISDB_WIDTH_DETTRACE, q, t, c->lambda, eta, c->sigma, c->M, c->L, 0.0);
            rr += c->L * c->M * f->delta_pi * root;
            if (active && f->n > 0)
                rr += c->L * (f->r_inv / sqrt(f->lambda0 * (double)f->n) + c->M * f->delta_pi) * root;
        }
        *r_inv = c->alpha * (active ? f->r_inv : 0.0);
        *r_res = c->alpha * rr;
    } else if (c->radius == ISDB_ISD_RADIUS_CODE) {
        double rad = 2.0 * log(1.0 / c->delta), a;
        if (active && f->lambda_beta > 0.0) rad += (double)pi * log1p(1.0 / ((double)pi * f->lambda_beta));
        if (q > 0) rad += (double)q * log1p(t / (c->lambda * (double)q));
        a = c->M * ((double)q / (double)d) * sqrt(c->lambda) + sqrt(rad);
        *r_inv = *r_res = c->alpha * a;
    } else {
        *r_inv = *r_res = c->alpha;
    }
}

/* ||W_inv x||^2 and the residual norm^2 of x (into *ni2, *nr2). */
ISDB__PRIVATE void isdb__isd_norms(isdb_isd *p, const double *x, double *ni2, double *nr2) {
    const isdb__isd_fit *f = &p->_fit;
    int d = p->cfg.d, pi = f->p_inv, q = d - pi, i, j;
    double s = 0.0;
    *ni2 = 0.0;
    *nr2 = 0.0;
    if (isdb__isd_inv_active(p))
        for (i = 0; i < pi; ++i) {
            double v = isdb__dot(d, f->Winv + i * d, x);
            s += v * v;
        }
    *ni2 = s;
    if (q < 1) return;
    if (f->identity)
        isdb__copy(d, x, p->_z);
    else
        for (j = 0; j < q; ++j) p->_z[j] = isdb__dot(d, f->Ut + (pi + j) * d, x);
    if (p->cfg.learner == ISDB_ISD_RES_DISCOUNT) {
        const double *Vt = p->_Vt, *u = p->_u;
        double v = 0.0;
        isdb_chol_solve(q, p->_res.L, p->_z, p->_u);
        for (i = 0; i < q; ++i) {
            double off = 0.0;
            for (j = 0; j < i; ++j) off += Vt[i * q + j] * u[j];
            v += u[i] * (Vt[i * q + i] * u[i] + 2.0 * off);
        }
        *nr2 = v > 0.0 ? v : 0.0;
    } else {
        isdb_tri_solve(q, p->_res.L, 0, p->_z, p->_u);
        *nr2 = isdb__dot(q, p->_u, p->_u);
    }
}

ISDB__PRIVATE double isdb__isd_index(isdb_policy *bp, const double *x, double unused) {
    isdb_isd *p = (isdb_isd *)bp;
    double mean = isdb__dot(p->cfg.d, x, p->_gamma), ni2, nr2;
    (void)unused;
    isdb__isd_norms(p, x, &ni2, &nr2);
    if (p->cfg.radius == ISDB_ISD_RADIUS_PAPER) return mean + p->_r_inv * sqrt(ni2) + p->_r_res * sqrt(nr2);
    return mean + p->_r_res * sqrt(ni2 + nr2);
}

ISDB__PRIVATE isdb_result isdb__isd_select(isdb_policy *bp, const double *X, int n_arms, int *arm) {
    isdb_isd *p = (isdb_isd *)bp;
    isdb__isd_widths(p, &p->_r_inv, &p->_r_res);
    *arm = isdb__index_argmax(bp, X, n_arms, isdb__isd_index, 0.0);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__isd_scores(isdb_policy *bp, const double *X, int n_arms, double *out) {
    isdb_isd *p = (isdb_isd *)bp;
    isdb__isd_widths(p, &p->_r_inv, &p->_r_res);
    isdb__index_all(bp, X, n_arms, isdb__isd_index, 0.0, out);
    return ISDB_OK;
}

/* The lgamma of C99 may write the global signgam; this one has no state:
   the recurrence up to x >= 15, then Stirling's series to x^-7 (the next
   term is below 2e-14 there). For x > 0. */
ISDB__PRIVATE double isdb__lgamma(double x) {
    double shift = 0.0, x2;
    while (x < 15.0) {
        shift -= log(x);
        x += 1.0;
    }
    x2 = 1.0 / (x * x);
    return shift + (x - 0.5) * log(x) - x + 0.91893853320467274178 +
           (1.0 / 12.0 - x2 * (1.0 / 360.0 - x2 * (1.0 / 1260.0 - x2 / 1680.0))) / x;
}

/* Continued fraction of the incomplete beta function (modified Lentz). */
ISDB__PRIVATE double isdb__beta_cf(double a, double b, double x) {
    const double tiny = 1e-300;
    double c = 1.0, dd = 1.0 - (a + b) * x / (a + 1.0), h;
    int m;
    if (fabs(dd) < tiny) dd = tiny;
    dd = 1.0 / dd;
    h = dd;
    for (m = 1; m <= 500; ++m) {
        double fm = (double)m, aa, del;
        aa = fm * (b - fm) * x / ((a - 1.0 + 2.0 * fm) * (a + 2.0 * fm));
        dd = 1.0 + aa * dd;
        if (fabs(dd) < tiny) dd = tiny;
        c = 1.0 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        dd = 1.0 / dd;
        h *= dd * c;
        aa = -(a + fm) * (a + b + fm) * x / ((a + 2.0 * fm) * (a + 1.0 + 2.0 * fm));
        dd = 1.0 + aa * dd;
        if (fabs(dd) < tiny) dd = tiny;
        c = 1.0 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        dd = 1.0 / dd;
        del = dd * c;
        h *= del;
        if (fabs(del - 1.0) < 1e-15) break;
    }
    return h;
}

/* Regularized incomplete beta function I_x(a, b). */
ISDB__PRIVATE double isdb__ibeta(double a, double b, double x) {
    double front;
    if (x <= 0.0) return 0.0;
    if (x >= 1.0) return 1.0;
    front = exp(isdb__lgamma(a + b) - isdb__lgamma(a) - isdb__lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1.0) / (a + b + 2.0)) return front * isdb__beta_cf(a, b, x) / a;
    return 1.0 - front * isdb__beta_cf(b, a, 1.0 - x) / b;
}

/* P(F <= f) for the F distribution with (d1, d2) degrees of freedom, and
   its (1 - level) quantile by bisection. */
ISDB__PRIVATE double isdb__f_cdf(double f, double d1, double d2) {
    return f <= 0.0 ? 0.0 : isdb__ibeta(0.5 * d1, 0.5 * d2, d1 * f / (d1 * f + d2));
}

ISDB__PRIVATE double isdb__f_critical(double level, double d1, double d2) {
    double lo = 0.0, hi = 1.0, target = 1.0 - level;
    int it;
    while (isdb__f_cdf(hi, d1, d2) < target && hi < 1e300) hi *= 2.0;
    for (it = 0; it < 200 && hi - lo > 1e-13 * hi; ++it) {
        double mid = 0.5 * (lo + hi);
        if (isdb__f_cdf(mid, d1, d2) < target)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* Switches to full-dimensional learning: S_inv = {0}, basis I, a fresh
   residual learner. */
ISDB__PRIVATE void isdb__isd_fallback(isdb_isd *p) {
    isdb__isd_fit *f = &p->_fit;
    int d = p->cfg.d, dd = d * d;
    isdb__identity(d, f->U, 1.0);
    isdb__identity(d, f->Ut, 1.0);
    isdb__zero(d, f->beta);
    isdb__zero(dd, f->Lbeta);
    isdb__zero(dd, f->Winv);
    isdb__zero(d, f->stat);
    memset(f->sizes, 0, (size_t)d * sizeof(int));
    memset(f->invariant, 0, (size_t)d * sizeof(int));
    memset(&f->jbd, 0, sizeof f->jbd);
    f->p_inv = 0;
    f->identity = 1;
    f->n_blocks = 0;
    f->theta = 0.0;
    f->lambda_beta = 0.0;
    f->delta_pi = 0.0;
    f->r_inv = 0.0;
    p->fallback = 1;
    isdb__isd_res_rebuild(p, 0);
    isdb__isd_update_gamma(p);
}

/* Re-estimates on the offline rows and the kept online rows; on success
   replaces the fit and rebuilds the residual learner from the history. */
ISDB__PRIVATE isdb_result isdb__isd_refit(isdb_isd *p) {
    const isdb_isd_config *c = &p->cfg;
    int d = c->d, n0 = c->n_offline, k, n = n0 + p->hist_count;
    isdb_result r;
    for (k = 0; k < p->hist_count; ++k) {
        int slot = isdb__isd_hist_slot(p, p->hist_count - 1 - k);
        isdb__copy(d, p->_hist_x + slot * d, p->_pool_x + (n0 + k) * d);
        p->_pool_y[n0 + k] = p->_hist_y[slot];
    }
    r = isdb__isd_fit_rows(p, &p->_fit_next, n, p->_pool_x, p->_pool_y, p->_fit0.U);
    if (r < 0) {
        p->recompute_failures++;
        return r;
    }
    isdb__isd_fit_swap(&p->_fit, &p->_fit_next);
    p->recomputes++;
    p->fallback = 0;
    isdb__isd_res_rebuild(p, p->hist_count);
    isdb__isd_update_gamma(p);
    return r;
}

/* The invariance monitor (our extension). On the last monitor_window
   online rows, with r = y - x.beta_inv, the F statistic of the d - p_res
   extra coefficients of x against the p_res coordinates of S_res:
   F = ((RSS_res - RSS_all) / p_inv) / (RSS_all / (n - d)), F(p_inv, n - d)
   distributed when beta_inv is right and the residual part is constant
   over the window (Gaussian noise). An alarm when F exceeds its 1 -
   monitor_level quantile. */
ISDB__PRIVATE void isdb__isd_monitor(isdb_isd *p) {
    const isdb_isd_config *c = &p->cfg;
    const isdb__isd_fit *f = &p->_fit;
    int d = c->d, dd = d * d, nw = c->monitor_window, pi = f->p_inv, q = d - pi, s, i, j;
    double *G = p->_work, *cv = G + dd, *sol = cv + d, *T = sol + d, *Gq = T + dd, *L = Gq + dd, *cq = L + dd,
           *xq = cq + d;
    double ss = 0.0, rss_all, rss_res, F;
    if (c->monitor == ISDB_ISD_MONITOR_OFF || p->fallback || pi < 1) return;
    if (p->since_check < c->monitor_every) p->since_check++;
    if (p->since_check < c->monitor_every || p->hist_count < nw) return;
    p->since_check = 0;
    isdb__zero(dd, G);
    isdb__zero(d, cv);
    for (s = 0; s < nw; ++s) {
        int slot = isdb__isd_hist_slot(p, s);
        const double *x = p->_hist_x + slot * d;
        double r = p->_hist_y[slot] - isdb__dot(d, x, f->beta);
        for (i = 0; i < d; ++i) {
            for (j = 0; j <= i; ++j) G[i * d + j] += x[i] * x[j];
            cv[i] += r * x[i];
        }
        ss += r * r;
    }
    isdb__symmetrize_lower(d, G);
    isdb__sym_solve(d, G, cv, sol, L);
    rss_all = ss - isdb__dot(d, cv, sol);
    isdb__isd_subspace_ols(d, G, cv, f->U, pi, q, sol, T, Gq, L, cq, xq);
    rss_res = ss - isdb__dot(d, cv, sol);
    if (!(rss_all > 1e-300)) rss_all = 1e-300;
    F = ((rss_res - rss_all) / (double)pi) / (rss_all / (double)(nw - d));
    if (!(F > 0.0)) F = 0.0;
    p->monitor_stat = F;
    p->monitor_threshold = isdb__f_critical(c->monitor_level, (double)pi, (double)(nw - d));
    if (!(F > p->monitor_threshold)) return;
    p->alarms++;
    if (c->monitor == ISDB_ISD_MONITOR_RECOMPUTE && !p->monitor_recomputed) {
        p->monitor_recomputed = 1;
        if (isdb__isd_refit(p) >= 0) return;
    }
    isdb__isd_fallback(p);
}

ISDB__PRIVATE void isdb__isd_push(isdb_isd *p, const double *x, double y) {
    int H = p->cfg.history, slot;
    if (H < 1) return;
    slot = p->hist_count < H ? (p->hist_head + p->hist_count) % H : p->hist_head;
    isdb__copy(p->cfg.d, x, p->_hist_x + slot * p->cfg.d);
    p->_hist_y[slot] = y;
    if (p->hist_count < H)
        p->hist_count++;
    else
        p->hist_head = (p->hist_head + 1) % H;
}

ISDB__PRIVATE isdb_result isdb__isd_update(isdb_policy *bp, int arm, const double *x, double y) {
    isdb_isd *p = (isdb_isd *)bp;
    const isdb_isd_config *c = &p->cfg;
    isdb_result r;
    double *z = p->_work, res; /* _z and _u are the learner's scratch */
    (void)arm;
    res = isdb__isd_residual(p, x, y, z);
    if ((r = isdb__isd_res_add(p, z, res)) != ISDB_OK) return r;
    isdb__isd_push(p, x, y);
    isdb__isd_update_gamma(p);
    if (c->recompute_every > 0 && ++p->since_recompute >= c->recompute_every) {
        p->since_recompute = 0;
        p->monitor_recomputed = 0;
        isdb__isd_refit(p);
    }
    isdb__isd_monitor(p);
    return ISDB_OK;
}

ISDB__PRIVATE void isdb__isd_ser_fit(isdb_ser *s, isdb__isd_fit *f, int d, int nmax) {
    int dd = d * d, i;
    isdb__ser_int(s, &f->p_inv, 0, d);
    isdb__ser_int(s, &f->n_blocks, 0, d);
    isdb__ser_int(s, &f->n, 0, nmax);
    isdb__ser_int(s, &f->identity, 0, 1);
    isdb__ser_f64(s, &f->theta, 1);
    isdb__ser_f64(s, &f->lambda0, 1);
    isdb__ser_f64(s, &f->lambda_max, 1);
    isdb__ser_f64(s, &f->lambda_beta, 1);
    isdb__ser_f64(s, &f->delta_pi, 1);
    isdb__ser_f64(s, &f->r_inv, 1);
    isdb__ser_int(s, &f->jbd.converged, 0, 1);
    isdb__ser_int(s, &f->jbd.iterations, 0, INT_MAX);
    isdb__ser_int(s, &f->jbd.n_blocks, 0, d);
    isdb__ser_f64(s, &f->jbd.threshold, 1);
    isdb__ser_f64(s, &f->jbd.criterion, 1);
    isdb__ser_f64(s, &f->jbd.offdiag, 1);
    isdb__ser_f64(s, &f->jbd.offblock, 1);
    isdb__ser_f64(s, f->U, dd);
    isdb__ser_f64(s, f->Ut, dd);
    isdb__ser_f64(s, f->beta, d);
    isdb__ser_f64(s, f->Lbeta, dd);
    isdb__ser_f64(s, f->Winv, dd);
    isdb__ser_f64(s, f->stat, d);
    for (i = 0; i < d; ++i) isdb__ser_int(s, &f->sizes[i], 0, d);
    for (i = 0; i < d; ++i) isdb__ser_int(s, &f->invariant[i], 0, 1);
}

ISDB__PRIVATE void isdb__isd_serialize(isdb_policy *bp, isdb_ser *s) {
    isdb_isd *p = (isdb_isd *)bp;
    const isdb_isd_config *c = &p->cfg;
    const isdb_isd_options *e = &c->est;
    int d = c->d, dd = d * d, H = c->history;
    isdb__ser_cfg_int(s, c->n_offline);
    isdb__ser_cfg_u64(s, p->data_hash);
    isdb__ser_cfg_int(s, c->oracle);
    isdb__ser_cfg_int(s, c->p_inv);
    isdb__ser_cfg_int(s, c->beta_inv != NULL);
    isdb__ser_cfg_int(s, e->n_windows);
    isdb__ser_cfg_int(s, e->window_length);
    isdb__ser_cfg_int(s, e->center);
    isdb__ser_cfg_int(s, e->intercept);
    isdb__ser_cfg_int(s, e->folds);
    isdb__ser_cfg_int(s, e->adapt);
    isdb__ser_cfg_int(s, e->one_se);
    isdb__ser_cfg_int(s, e->force_residual);
    isdb__ser_cfg_int(s, (int)e->jbd.method);
    isdb__ser_cfg_int(s, e->jbd.max_iter);
    isdb__ser_cfg_f64(s, e->jbd.tol);
    isdb__ser_cfg_f64(s, e->jbd.threshold);
    isdb__ser_cfg_int(s, (int)e->jbd.scale);
    isdb__ser_cfg_int(s, (int)e->jbd.off_norm);
    isdb__ser_cfg_int(s, (int)c->learner);
    isdb__ser_cfg_int(s, c->window);
    isdb__ser_cfg_f64(s, c->gamma);
    isdb__ser_cfg_f64(s, c->lambda);
    isdb__ser_cfg_int(s, c->refresh);
    isdb__ser_cfg_int(s, (int)c->radius);
    isdb__ser_cfg_f64(s, c->delta);
    isdb__ser_cfg_f64(s, c->sigma);
    isdb__ser_cfg_f64(s, c->L);
    isdb__ser_cfg_f64(s, c->M);
    isdb__ser_cfg_f64(s, c->alpha);
    isdb__ser_cfg_f64(s, c->delta_pi);
    isdb__ser_cfg_int(s, c->recompute_every);
    isdb__ser_cfg_int(s, c->history);
    isdb__ser_cfg_int(s, (int)c->monitor);
    isdb__ser_cfg_int(s, c->monitor_window);
    isdb__ser_cfg_int(s, c->monitor_every);
    isdb__ser_cfg_f64(s, c->monitor_level);
    isdb__isd_ser_fit(s, &p->_fit, d, c->n_offline + H);
    isdb__ser_int(s, &p->hist_count, 0, H);
    isdb__ser_int(s, &p->hist_head, 0, H > 0 ? H - 1 : 0);
    isdb__ser_int(s, &p->since_recompute, 0, c->recompute_every);
    isdb__ser_int(s, &p->since_check, 0, c->monitor_every);
    isdb__ser_int(s, &p->fallback, 0, 1);
    isdb__ser_int(s, &p->monitor_recomputed, 0, 1);
    isdb__ser_u64(s, &p->recomputes);
    isdb__ser_u64(s, &p->recompute_failures);
    isdb__ser_u64(s, &p->alarms);
    isdb__ser_f64(s, &p->n_res, 1);
    isdb__ser_f64(s, &p->monitor_stat, 1);
    isdb__ser_f64(s, &p->monitor_threshold, 1);
    isdb__ser_f64(s, p->_hist_x, H * d);
    isdb__ser_f64(s, p->_hist_y, H);
    isdb__ser_f64(s, p->_res.L, dd);
    isdb__ser_f64(s, p->_res.V, dd);
    isdb__ser_f64(s, p->_res.b, d);
    isdb__ser_f64(s, p->_res.theta, d);
    isdb__ser_f64(s, &p->_res.logdet, 1);
    isdb__ser_int(s, &p->_res.since_refresh, 0, INT_MAX);
    if (c->learner == ISDB_ISD_RES_DISCOUNT) {
        isdb__ser_f64(s, p->_Vd, dd);
        isdb__ser_f64(s, p->_Vt, dd);
    }
    isdb__ser_f64(s, p->_gamma, d);
    if (isdb__ser_storing(s)) {
        int q = d - p->_fit.p_inv;
        p->_res.d = q;
        p->_res.refresh =
            c->refresh ? c->refresh : (c->learner == ISDB_ISD_RES_WINDOW ? isdb__max_int(c->window, q) : q);
    }
}

ISDB__PRIVATE void isdb__isd_reset(isdb_policy *bp) {
    isdb_isd *p = (isdb_isd *)bp;
    const isdb_isd_config *c = &p->cfg;
    int d = c->d;
    isdb__isd_fit_copy(d, &p->_fit0, &p->_fit);
    isdb__isd_fit_copy(d, &p->_fit0, &p->_fit_next);
    isdb__zero(c->history * d, p->_hist_x);
    isdb__zero(c->history, p->_hist_y);
    p->hist_count = 0;
    p->hist_head = 0;
    p->since_recompute = 0;
    p->since_check = 0;
    p->fallback = 0;
    p->monitor_recomputed = 0;
    p->recomputes = 0;
    p->recompute_failures = 0;
    p->alarms = 0;
    p->monitor_stat = 0.0;
    p->monitor_threshold = 0.0;
    isdb__isd_res_clear(p);
    isdb__zero(d, p->_z);
    isdb__zero(d, p->_u);
    isdb__isd_update_gamma(p);
    p->_r_inv = p->_r_res = 0.0;
}

static const isdb_policy_vtable isdb__isd_vt = {ISDB_POLICY_ISD,     "isd",           0, isdb__isd_select,
                                                isdb__isd_update,    isdb__isd_scores, isdb__probs_one_hot,
                                                isdb__isd_serialize, isdb__isd_reset};

isdb_result isdb_isd_heap_size(const isdb_isd_config *cfg, size_t *bytes) {
    isdb_isd_config r;
    isdb_isd probe;
    if (!bytes || !isdb__isd_config_resolve(cfg, &r)) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__isdp_layout(&r, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

/* FNV-1a of doubles as their little-endian bit patterns. */
ISDB__PRIVATE uint64_t isdb__hash_f64(uint64_t h, const double *v, int n) {
    int i, b;
    for (i = 0; i < n; ++i) {
        uint64_t x;
        memcpy(&x, &v[i], sizeof x);
        for (b = 0; b < 8; ++b) {
            h ^= (x >> (8 * b)) & 0xffu;
            h *= 0x100000001b3ull;
        }
    }
    return h;
}

isdb_result isdb_isd_init_preallocated(const isdb_isd_config *cfg, void *heap, isdb_isd *pol) {
    isdb_isd_config rc;
    size_t bytes;
    isdb_result r = isdb_isd_heap_size(cfg, &bytes);
    int d, n0, pi, rank;
    uint64_t h = 0xcbf29ce484222325ull;
    if (r != ISDB_OK) return r;
    if (!pol || !isdb__heap_aligned(heap)) return ISDB_ERR_INVALID_ARG;
    isdb__isd_config_resolve(cfg, &rc);
    d = rc.d;
    n0 = rc.n_offline;
    pi = rc.oracle ? rc.p_inv : 0;
    if (n0 > 0) {
        if ((r = isdb__check_input(cfg->X0, n0 * d)) != ISDB_OK) return r;
        if ((r = isdb__check_input(cfg->R0, n0)) != ISDB_OK) return r;
    }
    if (rc.oracle && pi > 0 && !isdb__all_finite(cfg->U_inv, d * pi)) return ISDB_ERR_NONFINITE;
    if (rc.oracle && cfg->beta_inv && (r = isdb__check_input(cfg->beta_inv, d)) != ISDB_OK) return r;
    memset(pol, 0, sizeof *pol);
    isdb__isdp_layout(&rc, pol, heap);
    memset(heap, 0, bytes);
    isdb__copy(n0 * d, cfg->X0, pol->_pool_x);
    isdb__copy(n0, cfg->R0, pol->_pool_y);
    h = isdb__hash_f64(h, pol->_pool_x, n0 * d);
    h = isdb__hash_f64(h, pol->_pool_y, n0);
    rc.X0 = pol->_pool_x;
    rc.R0 = pol->_pool_y;
    rc.U_inv = NULL;
    if (rc.oracle && pi > 0) {
        isdb__copy(d * pi, cfg->U_inv, pol->_U_inv0);
        h = isdb__hash_f64(h, pol->_U_inv0, d * pi);
        rc.U_inv = pol->_U_inv0;
    }
    if (rc.oracle && cfg->beta_inv) {
        isdb__copy(d, cfg->beta_inv, pol->_beta0);
        h = isdb__hash_f64(h, pol->_beta0, d);
        rc.beta_inv = pol->_beta0;
    } else {
        rc.beta_inv = NULL;
    }
    pol->cfg = rc;
    pol->data_hash = h;
    isdb__policy_base_init(&pol->base, &isdb__isd_vt, d, rc.max_arms, 0, heap, bytes);
    /* The oracle basis: U_inv orthonormalised, completed by S_res. */
    if (rc.oracle) {
        if (pi > 0) {
            if (isdb_orth_basis(d, pi, pol->_U_inv0, 0.0, pol->_fit_next.U, &rank, pol->_work) != ISDB_OK ||
                rank != pi)
                return ISDB_ERR_INVALID_ARG;
        } else {
            isdb__identity(d, pol->_fit_next.U, 1.0);
        }
        isdb__copy(d * d, pol->_fit_next.U, pol->_fit0.U);
    }
    r = isdb__isd_fit_rows(pol, &pol->_fit0, n0, pol->_pool_x, pol->_pool_y, pol->_fit0.U);
    if (r < 0) return r;
    isdb__isd_reset(&pol->base);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__isd_setup(const void *cfg, void *heap, void *pol) {
    return isdb_isd_init_preallocated((const isdb_isd_config *)cfg, heap, (isdb_isd *)pol);
}

isdb_result isdb_isd_init(const isdb_isd_config *cfg, const isdb_allocator *alloc, isdb_isd *pol) {
    size_t bytes;
    isdb_result r = isdb_isd_heap_size(cfg, &bytes);
    if (r != ISDB_OK) return r;
    if (!pol) return ISDB_ERR_INVALID_ARG;
    return isdb__policy_init_owned(&pol->base, bytes, alloc, isdb__isd_setup, cfg, pol);
}

const isdb_isd_config *isdb_isd_get_config(const isdb_isd *pol) { return &pol->cfg; }

int isdb_isd_p_inv(const isdb_isd *pol) { return pol->_fit.p_inv; }

void isdb_isd_get_info(const isdb_isd *pol, isdb_isd_info *info) {
    const isdb__isd_fit *f = &pol->_fit;
    memset(info, 0, sizeof *info);
    info->p_inv = f->p_inv;
    info->p_res = pol->cfg.d - f->p_inv;
    info->n_blocks = f->n_blocks;
    info->theta = f->theta;
    info->jbd = f->jbd;
    info->lambda0 = f->lambda0;
    info->lambda_beta = f->lambda_beta;
    info->delta_pi = f->delta_pi;
    isdb__isd_widths(pol, &info->r_inv, &info->r_res);
    info->n_fit = f->n;
    info->n_res = pol->n_res;
    info->history = pol->hist_count;
    info->recomputes = pol->recomputes;
    info->recompute_failures = pol->recompute_failures;
    info->alarms = pol->alarms;
    info->fallback = pol->fallback;
    info->monitor_stat = pol->monitor_stat;
    info->monitor_threshold = pol->monitor_threshold;
}

int isdb_isd_blocks(const isdb_isd *pol, int *sizes, int *invariant, double *stat) {
    const isdb__isd_fit *f = &pol->_fit;
    int b;
    for (b = 0; b < f->n_blocks; ++b) {
        if (sizes) sizes[b] = f->sizes[b];
        if (invariant) invariant[b] = f->invariant[b];
        if (stat) stat[b] = f->stat[b];
    }
    return f->n_blocks;
}

void isdb_isd_basis(const isdb_isd *pol, double *U) { isdb__copy(pol->cfg.d * pol->cfg.d, pol->_fit.U, U); }

void isdb_isd_projector(const isdb_isd *pol, int residual, double *P) {
    const isdb__isd_fit *f = &pol->_fit;
    int d = pol->cfg.d, from = residual ? f->p_inv : 0, to = residual ? d : f->p_inv, i, j, k;
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) {
            double s = 0.0;
            for (k = from; k < to; ++k) s += f->U[i * d + k] * f->U[j * d + k];
            P[i * d + j] = s;
        }
}

void isdb_isd_beta_inv(const isdb_isd *pol, double *beta) { isdb__copy(pol->cfg.d, pol->_fit.beta, beta); }

void isdb_isd_gamma(const isdb_isd *pol, double *gamma) { isdb__copy(pol->cfg.d, pol->_gamma, gamma); }

void isdb_isd_radii(const isdb_isd *pol, double *r_inv, double *r_res) {
    double a, b;
    isdb__isd_widths(pol, &a, &b);
    if (r_inv) *r_inv = a;
    if (r_res) *r_res = b;
}

isdb_result isdb_isd_explain(isdb_isd *pol, const double *x, double *mean, double *bonus_inv, double *bonus_res) {
    isdb_result r;
    double ri, rr, ni2, nr2;
    if (!pol || !x) return ISDB_ERR_INVALID_ARG;
    if ((r = isdb__check_input(x, pol->cfg.d)) != ISDB_OK) return r;
    isdb__isd_widths(pol, &ri, &rr);
    isdb__isd_norms(pol, x, &ni2, &nr2);
    if (pol->cfg.radius != ISDB_ISD_RADIUS_PAPER) ri = rr;
    if (mean) *mean = isdb__dot(pol->cfg.d, x, pol->_gamma);
    if (bonus_inv) *bonus_inv = ri * sqrt(ni2);
    if (bonus_res) *bonus_res = rr * sqrt(nr2);
    return ISDB_OK;
}

isdb_result isdb_isd_recompute(isdb_isd *pol) {
    if (!pol || !pol->base.vt) return ISDB_ERR_INVALID_ARG;
    return isdb__isd_refit(pol);
}

/* [impl:opkb] */

/* [impl:oam] */

/* [impl:traceucb] */

#ifndef ISDB_NO_SIM
/* ---------------------------------------------------------------------------
   Environments and the regret harness
   ------------------------------------------------------------------------ */

isdb_result isdb_env_next(isdb_env *e) {
    isdb_result r;
    if (!e || !e->vt) return ISDB_ERR_INVALID_ARG;
    r = e->vt->next(e);
    if (r >= 0) e->t++;
    return r;
}

isdb_result isdb_env_reward(isdb_env *e, int arm, double *y) {
    if (!e || !e->vt || !y || arm < 0 || arm >= e->n_arms) return ISDB_ERR_INVALID_ARG;
    if (e->t == 0) return ISDB_ERR_BAD_STATE;
    return e->vt->reward(e, arm, y);
}

void isdb_env_reset(isdb_env *e) {
    if (!e || !e->vt) return;
    e->t = 0;
    isdb_rng_seed(&e->rng, e->seed);
    /* A second stream from the same seed, offset so the two differ. */
    isdb_rng_seed(&e->noise_rng, e->seed ^ 0x6a09e667f3bcc909ull);
    if (e->vt->reset) e->vt->reset(e);
}

void isdb_env_uninit(isdb_env *e) {
    if (!e) return;
    if (e->_owns_heap) isdb__heap_free(&e->_alloc, e->_heap);
    e->_heap = NULL;
    e->_owns_heap = 0;
    e->vt = NULL;
}

isdb_linear_env_config isdb_linear_env_config_init(int d, int n_arms) {
    isdb_linear_env_config c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.n_arms = n_arms;
    c.seed = 1;
    c.noise_sd = 1.0;
    c.arms = ISDB_ARMS_SPHERE;
    c.box_lo = -1.0;
    c.box_hi = 1.0;
    c.path = ISDB_PATH_PIECEWISE;
    c.sin_center = 0.5;
    c.sin_amp = 0.3;
    c.rot_from = 0.0;
    c.rot_to = ISDB__PI / 2.0;
    c.rot_rounds = 1;
    return c;
}

ISDB__PRIVATE void isdb__linear_env_theta(isdb_linear_env *e, uint64_t t) {
    const isdb_linear_env_config *c = &e->cfg;
    int i, k, d = c->d;
    double a;
    switch (c->path) {
    case ISDB_PATH_PIECEWISE:
        for (k = 0; k < c->n_pieces - 1 && t >= c->switch_at[k]; ++k) {
        }
        isdb__copy(d, c->pieces + k * d, e->theta);
        break;
    case ISDB_PATH_SINUSOID:
        for (i = 0; i < d; ++i)
            e->theta[i] = c->sin_center + c->sin_amp * sin(c->sin_omega * (double)(t + 1) + (double)i * ISDB__PI);
        break;
    case ISDB_PATH_ROTATION:
        a = c->rot_from + (c->rot_to - c->rot_from) * (double)(t < c->rot_rounds ? t : c->rot_rounds) /
                              (double)c->rot_rounds;
        isdb__zero(d, e->theta);
        e->theta[0] = cos(a);
        e->theta[1] = sin(a);
        break;
    default:
        c->theta_fn(t, e->theta, c->theta_user);
        break;
    }
}

ISDB__PRIVATE void isdb__linear_env_arm(isdb_linear_env *e, double *x) {
    const isdb_linear_env_config *c = &e->cfg;
    isdb_rng *rng = &e->base.rng;
    int i, j, d = c->d;
    double norm;
    switch (c->arms) {
    case ISDB_ARMS_SPHERE:
        do {
            for (i = 0; i < d; ++i) x[i] = isdb_rng_normal(rng);
            norm = sqrt(isdb__dot(d, x, x));
        } while (norm == 0.0);
        for (i = 0; i < d; ++i) x[i] /= norm;
        break;
    case ISDB_ARMS_GAUSSIAN:
        for (i = 0; i < d; ++i) e->theta[d + i] = isdb_rng_normal(rng);
        for (i = 0; i < d; ++i) {
            double s = 0.0;
            for (j = 0; j <= i; ++j) s += e->_chol[i * d + j] * e->theta[d + j];
            x[i] = s;
        }
        break;
    case ISDB_ARMS_BOX:
        for (i = 0; i < d; ++i) x[i] = c->box_lo + (c->box_hi - c->box_lo) * isdb_rng_uniform(rng);
        break;
    default:
        return;
    }
    if (c->clip_norm > 0.0) {
        norm = sqrt(isdb__dot(d, x, x));
        if (norm > c->clip_norm)
            for (i = 0; i < d; ++i) x[i] *= c->clip_norm / norm;
    }
}

ISDB__PRIVATE isdb_result isdb__linear_env_next(isdb_env *be) {
    isdb_linear_env *e = (isdb_linear_env *)be;
    int k, d = be->d;
    isdb__linear_env_theta(e, be->t);
    if (!isdb__all_finite(e->theta, d)) return ISDB_ERR_NONFINITE;
    for (k = 0; k < be->n_arms; ++k) {
        if (e->cfg.arms != ISDB_ARMS_FIXED) isdb__linear_env_arm(e, be->X + k * d);
        be->means[k] = isdb__dot(d, be->X + k * d, e->theta);
    }
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__linear_env_reward(isdb_env *be, int arm, double *y) {
    isdb_linear_env *e = (isdb_linear_env *)be;
    *y = be->means[arm] + e->cfg.noise_sd * isdb_rng_normal(&be->noise_rng);
    return ISDB_OK;
}

static const isdb_env_vtable isdb__linear_env_vt = {"linear", isdb__linear_env_next, isdb__linear_env_reward, NULL};

ISDB__PRIVATE int isdb__linear_env_config_ok(const isdb_linear_env_config *c) {
    int k;
    if (!c || !isdb__sizes_ok(c->d, c->n_arms) || !isdb__nonneg(c->noise_sd) || !isdb__nonneg(c->clip_norm))
        return 0;
    switch (c->arms) {
    case ISDB_ARMS_FIXED:
        if (!c->fixed_arms || isdb__check_input(c->fixed_arms, c->n_arms * c->d) != ISDB_OK) return 0;
        break;
    case ISDB_ARMS_GAUSSIAN:
        if (c->cov && !isdb__all_finite(c->cov, c->d * c->d)) return 0;
        break;
    case ISDB_ARMS_BOX:
        if (!isdb__finite(c->box_lo) || !isdb__finite(c->box_hi) || !(c->box_lo < c->box_hi)) return 0;
        break;
    case ISDB_ARMS_SPHERE:
        break;
    default:
        return 0;
    }
    switch (c->path) {
    case ISDB_PATH_PIECEWISE:
        if (c->n_pieces < 1 || c->n_pieces > INT_MAX / c->d || !c->pieces ||
            !isdb__all_finite(c->pieces, c->n_pieces * c->d) || (c->n_pieces > 1 && !c->switch_at))
            return 0;
        for (k = 1; k < c->n_pieces - 1; ++k)
            if (c->switch_at[k] <= c->switch_at[k - 1]) return 0;
        return 1;
    case ISDB_PATH_SINUSOID:
        return isdb__finite(c->sin_center) && isdb__finite(c->sin_amp) && isdb__finite(c->sin_omega);
    case ISDB_PATH_ROTATION:
        return c->d >= 2 && isdb__finite(c->rot_from) && isdb__finite(c->rot_to) && c->rot_rounds >= 1;
    case ISDB_PATH_CALLBACK:
        return c->theta_fn != NULL;
    default:
        return 0;
    }
}

isdb_result isdb_linear_env_init(const isdb_linear_env_config *cfg, const isdb_allocator *alloc,
                                 isdb_linear_env *env) {
    isdb__arena a;
    isdb_result r;
    void *heap = NULL;
    int d, k, pieces;
    if (!env || !isdb__linear_env_config_ok(cfg)) return ISDB_ERR_INVALID_ARG;
    memset(env, 0, sizeof *env);
    d = cfg->d;
    pieces = cfg->path == ISDB_PATH_PIECEWISE ? cfg->n_pieces : 0;
    memset(&a, 0, sizeof a);
    for (k = 0; k < 2; ++k) {
        /* Pass 0 measures, pass 1 carves. theta has room for the d normals
           a Gaussian arm is drawn from. */
        env->base.X = isdb__take_f64(&a, cfg->n_arms * d);
        env->base.means = isdb__take_f64(&a, cfg->n_arms);
        env->theta = isdb__take_f64(&a, 2 * d);
        env->_chol = isdb__take_f64(&a, cfg->arms == ISDB_ARMS_GAUSSIAN ? d * d : 0);
        env->cfg.pieces = isdb__take_f64(&a, pieces * d);
        env->cfg.switch_at = (const uint64_t *)isdb__take(&a, pieces > 1 ? pieces - 1 : 0, sizeof(uint64_t));
        if (a.overflow) return ISDB_ERR_INVALID_ARG;
        if (k == 0) {
            if ((r = isdb__heap_alloc(alloc, a.used, &heap)) != ISDB_OK) return r;
            a.base = (unsigned char *)heap;
            a.used = 0;
            env->cfg = *cfg;
        }
    }
    if (cfg->arms == ISDB_ARMS_GAUSSIAN) {
        if (cfg->cov)
            isdb__copy(d * d, cfg->cov, env->_chol);
        else
            isdb__identity(d, env->_chol, 1.0);
        if ((r = isdb_chol(d, env->_chol)) != ISDB_OK) {
            isdb__heap_free(alloc, heap);
            return r;
        }
    }
    if (pieces) {
        isdb__copy(pieces * d, cfg->pieces, (double *)isdb__unconst(env->cfg.pieces));
        if (pieces > 1)
            memcpy(isdb__unconst(env->cfg.switch_at), cfg->switch_at, (size_t)(pieces - 1) * sizeof(uint64_t));
    }
    if (cfg->arms == ISDB_ARMS_FIXED) isdb__copy(cfg->n_arms * d, cfg->fixed_arms, env->base.X);
    env->cfg.fixed_arms = cfg->arms == ISDB_ARMS_FIXED ? env->base.X : NULL;
    env->cfg.cov = NULL;
    env->base.vt = &isdb__linear_env_vt;
    env->base.d = d;
    env->base.n_arms = cfg->n_arms;
    env->base.seed = cfg->seed;
    env->base._heap = heap;
    env->base._owns_heap = 1;
    if (alloc) env->base._alloc = *alloc;
    isdb_env_reset(&env->base);
    return ISDB_OK;
}

isdb_result isdb_sim_run(isdb_policy *p, isdb_env *e, uint64_t T, double *cum_regret, isdb_sim_result *res) {
    isdb_result r = ISDB_OK;
    clock_t start;
    uint64_t i;
    if (!p || !p->vt || !e || !e->vt || !res) return ISDB_ERR_INVALID_ARG;
    if (e->d != p->d || e->n_arms > p->max_arms) return ISDB_ERR_INVALID_ARG;
    memset(res, 0, sizeof *res);
    start = clock();
    for (i = 0; i < T; ++i) {
        int arm, k;
        double y, best;
        if ((r = isdb_env_next(e)) < 0) break;
        if ((r = isdb_policy_select(p, e->X, e->n_arms, &arm)) < 0) break;
        if ((r = isdb_env_reward(e, arm, &y)) < 0) break;
        if ((r = isdb_policy_update(p, arm, e->X + arm * e->d, y)) < 0) break;
        best = e->means[0];
        for (k = 1; k < e->n_arms; ++k)
            if (e->means[k] > best) best = e->means[k];
        res->regret += best - e->means[arm];
        res->reward += y;
        res->rounds++;
        if (cum_regret) cum_regret[i] = res->regret;
    }
    res->seconds = (double)(clock() - start) / (double)CLOCKS_PER_SEC;
    return r < 0 ? r : ISDB_OK;
}

/* [impl:env-bob] */

/* ---------------------------------------------------------------------------
   The invariant subspace environment
   ------------------------------------------------------------------------ */

isdb_isd_env_config isdb_isd_env_config_init(int d, int n_arms, int n_blocks, const int *block_sizes,
                                             const int *residual) {
    isdb_isd_env_config c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.n_arms = n_arms;
    c.seed = 1;
    c.n_blocks = n_blocks;
    c.block_sizes = block_sizes;
    c.residual = residual;
    c.basis = NULL;
    c.basis_seed = 1;
    c.gamma0 = NULL;
    c.gamma_lo = 0.5;
    c.gamma_hi = 1.5;
    c.normalize_gamma0 = 0;
    c.cov_seed = 42;
    c.cov_period = 400;
    c.drift_amp = 1.5;
    c.drift_freq = 0.25;
    c.drift_code = 0;
    c.res_lo = 0.5;
    c.res_hi = 1.5;
    c.res_path = NULL;
    c.res_user = NULL;
    c.noise_sd = 1.0;
    return c;
}

ISDB__PRIVATE int isdb__isd_env_config_ok(const isdb_isd_env_config *c) {
    int b, total = 0;
    if (!c || !isdb__sizes_ok(c->d, c->n_arms) || c->n_blocks < 1 || c->n_blocks > c->d || !c->block_sizes ||
        !c->residual)
        return 0;
    for (b = 0; b < c->n_blocks; ++b) {
        if (c->block_sizes[b] < 1 || c->block_sizes[b] > c->d - total || !isdb__flag_ok(c->residual[b])) return 0;
        total += c->block_sizes[b];
    }
    if (total != c->d) return 0;
    if (c->basis && !isdb__all_finite(c->basis, c->d * c->d)) return 0;
    if (c->gamma0 && !isdb__all_finite(c->gamma0, c->d)) return 0;
    return isdb__finite(c->gamma_lo) && isdb__finite(c->gamma_hi) && c->gamma_lo < c->gamma_hi &&
           isdb__flag_ok(c->normalize_gamma0) && c->cov_period >= 1 && isdb__finite(c->drift_amp) &&
           isdb__finite(c->drift_freq) && isdb__flag_ok(c->drift_code) && isdb__finite(c->res_lo) &&
           isdb__finite(c->res_hi) && c->res_lo < c->res_hi && isdb__nonneg(c->noise_sd);
}

/* A block-diagonal factor with uniform [0, 1) entries. */
ISDB__PRIVATE void isdb__isd_env_draw_A(const isdb_isd_env *e, isdb_rng *rng, double *A) {
    int d = e->cfg.d, b, i, j, off;
    isdb__zero(d * d, A);
    for (b = 0, off = 0; b < e->cfg.n_blocks; off += e->_sizes[b++])
        for (i = 0; i < e->_sizes[b]; ++i)
            for (j = 0; j < e->_sizes[b]; ++j) A[(off + i) * d + off + j] = isdb_rng_uniform(rng);
}

/* x = U A g with g ~ N(0, I); xt = A g (U coordinates) into xt. */
ISDB__PRIVATE void isdb__isd_env_feature(const isdb_isd_env *e, isdb_rng *rng, const double *A, double *g,
                                         double *xt, double *x) {
    int d = e->cfg.d, i, j;
    for (i = 0; i < d; ++i) g[i] = isdb_rng_normal(rng);
    for (i = 0; i < d; ++i) {
        double s = 0.0;
        for (j = 0; j < d; ++j) s += A[i * d + j] * g[j];
        xt[i] = s;
    }
    for (i = 0; i < d; ++i) x[i] = isdb__dot(d, e->basis + i * d, xt);
}

/* The current parameter gamma = U (invariant gammat0 + res). */
ISDB__PRIVATE void isdb__isd_env_gamma(isdb_isd_env *e, const double *res_coords, double *gt, double *gamma) {
    int d = e->cfg.d, b, i, off, k = 0;
    for (b = 0, off = 0; b < e->cfg.n_blocks; off += e->_sizes[b++])
        for (i = off; i < off + e->_sizes[b]; ++i) gt[i] = e->_resflag[b] ? res_coords[k++] : e->gamma0[i];
    for (i = 0; i < d; ++i) gamma[i] = isdb__dot(d, e->basis + i * d, gt);
}

ISDB__PRIVATE isdb_result isdb__isd_env_next(isdb_env *be) {
    isdb_isd_env *e = (isdb_isd_env *)be;
    int d = be->d, k;
    double *gt = e->_g + d, *xt = e->_g + 2 * d;
    if (e->cfg.res_path) {
        e->cfg.res_path(be->t, e->p_res, e->res, e->cfg.res_user);
        if (!isdb__all_finite(e->res, e->p_res)) return ISDB_ERR_NONFINITE;
    }
    isdb__isd_env_gamma(e, e->res, gt, e->theta);
    for (k = 0; k < be->n_arms; ++k) {
        isdb__isd_env_feature(e, &be->rng, e->_A, e->_g, xt, be->X + k * d);
        be->means[k] = isdb__dot(d, be->X + k * d, e->theta);
    }
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__isd_env_reward(isdb_env *be, int arm, double *y) {
    isdb_isd_env *e = (isdb_isd_env *)be;
    *y = be->means[arm] + e->cfg.noise_sd * isdb_rng_normal(&be->noise_rng);
    return ISDB_OK;
}

ISDB__PRIVATE void isdb__isd_env_reset(isdb_env *be) {
    isdb_isd_env *e = (isdb_isd_env *)be;
    int k;
    isdb__isd_env_draw_A(e, &be->rng, e->_A);
    for (k = 0; k < e->p_res; ++k) e->res[k] = e->cfg.res_lo + (e->cfg.res_hi - e->cfg.res_lo) * isdb_rng_uniform(&be->rng);
    isdb__isd_env_gamma(e, e->res, e->_g + be->d, e->theta);
}

static const isdb_env_vtable isdb__isd_env_vt = {"isd", isdb__isd_env_next, isdb__isd_env_reward,
                                                 isdb__isd_env_reset};

isdb_result isdb_isd_env_init(const isdb_isd_env_config *cfg, const isdb_allocator *alloc, isdb_isd_env *env) {
    isdb__arena a;
    isdb_result r;
    void *heap = NULL;
    int d, k, b, i, j, off, pass;
    isdb_rng rng;
    if (!env || !isdb__isd_env_config_ok(cfg)) return ISDB_ERR_INVALID_ARG;
    memset(env, 0, sizeof *env);
    d = cfg->d;
    memset(&a, 0, sizeof a);
    for (pass = 0; pass < 2; ++pass) {
        env->base.X = isdb__take_f64(&a, cfg->n_arms * d);
        env->base.means = isdb__take_f64(&a, cfg->n_arms);
        env->basis = isdb__take_f64(&a, d * d);
        env->gamma0 = isdb__take_f64(&a, d);
        env->beta_inv = isdb__take_f64(&a, d);
        env->theta = isdb__take_f64(&a, d);
        env->res = isdb__take_f64(&a, d);
        env->_A = isdb__take_f64(&a, d * d);
        env->_g = isdb__take_f64(&a, 5 * d + d * d);
        env->_sizes = (int *)isdb__take(&a, cfg->n_blocks, sizeof(int));
        env->_resflag = (int *)isdb__take(&a, cfg->n_blocks, sizeof(int));
        if (a.overflow) return ISDB_ERR_INVALID_ARG;
        if (pass == 0) {
            if ((r = isdb__heap_alloc(alloc, a.used, &heap)) != ISDB_OK) return r;
            memset(heap, 0, a.used);
            a.base = (unsigned char *)heap;
            a.used = 0;
        }
    }
    env->cfg = *cfg;
    memcpy(env->_sizes, cfg->block_sizes, (size_t)cfg->n_blocks * sizeof(int));
    memcpy(env->_resflag, cfg->residual, (size_t)cfg->n_blocks * sizeof(int));
    env->cfg.block_sizes = env->_sizes;
    env->cfg.residual = env->_resflag;
    for (b = 0; b < cfg->n_blocks; ++b) {
        if (cfg->residual[b])
            env->p_res += cfg->block_sizes[b];
        else
            env->p_inv += cfg->block_sizes[b];
    }
    /* The basis: given, or Haar: Q of the QR of a Gaussian matrix with the
       signs of R's diagonal moved into Q. */
    isdb_rng_seed(&rng, cfg->basis_seed);
    if (cfg->basis) {
        isdb__copy(d * d, cfg->basis, env->basis);
    } else {
        double *G = env->_A, *w = env->_g;
        for (i = 0; i < d * d; ++i) G[i] = isdb_rng_normal(&rng);
        if ((r = isdb_qr(d, d, G, env->basis, w)) != ISDB_OK) {
            isdb__heap_free(alloc, heap);
            return r;
        }
        for (j = 0; j < d; ++j)
            if (G[j * d + j] < 0.0)
                for (i = 0; i < d; ++i) env->basis[i * d + j] = -env->basis[i * d + j];
    }
    env->cfg.basis = env->basis;
    if (cfg->gamma0) {
        isdb__copy(d, cfg->gamma0, env->gamma0);
    } else {
        double norm = 0.0;
        for (i = 0; i < d; ++i) {
            env->gamma0[i] = cfg->gamma_lo + (cfg->gamma_hi - cfg->gamma_lo) * isdb_rng_uniform(&rng);
            norm += env->gamma0[i] * env->gamma0[i];
        }
        if (cfg->normalize_gamma0 && norm > 0.0)
            for (i = 0; i < d; ++i) env->gamma0[i] /= sqrt(norm);
    }
    env->cfg.gamma0 = env->gamma0;
    /* beta_inv = U (gammat0 with the residual coordinates zeroed). */
    for (k = 0; k < d; ++k) env->_g[k] = 0.0;
    for (b = 0, off = 0; b < cfg->n_blocks; off += cfg->block_sizes[b++])
        if (!cfg->residual[b])
            for (i = off; i < off + cfg->block_sizes[b]; ++i) env->_g[i] = env->gamma0[i];
    for (i = 0; i < d; ++i) env->beta_inv[i] = isdb__dot(d, env->basis + i * d, env->_g);
    env->base.vt = &isdb__isd_env_vt;
    env->base.d = d;
    env->base.n_arms = cfg->n_arms;
    env->base.seed = cfg->seed;
    env->base._heap = heap;
    env->base._owns_heap = 1;
    if (alloc) env->base._alloc = *alloc;
    isdb_env_reset(&env->base);
    return ISDB_OK;
}

isdb_result isdb_isd_env_offline(const isdb_isd_env *env, int T0, isdb_isd_logger logger, double log_noise_sd,
                                 uint64_t seed, double *X0, double *R0) {
    isdb_rng rng, cov_rng;
    const isdb_isd_env_config *c;
    int d, K, row, a, b, i, off, k;
    double *A, *g, *gt, *xt, *gam, *xk;
    if (!env || !env->base.vt || !X0 || !R0 || T0 < 1 || !isdb__nonneg(log_noise_sd) ||
        (logger != ISDB_ISD_LOG_UNIFORM && logger != ISDB_ISD_LOG_HALF_GREEDY))
        return ISDB_ERR_INVALID_ARG;
    c = &env->cfg;
    d = c->d;
    K = c->n_arms;
    if (T0 > INT_MAX / d) return ISDB_ERR_INVALID_ARG;
    /* Scratch: the env's _g (5 d + d^2), which next() also only uses as
       scratch; the online factor _A is left alone. */
    g = env->_g;
    gt = g + d;
    xt = g + 2 * d;
    gam = g + 3 * d;
    xk = g + 4 * d;
    A = g + 5 * d;
    isdb_rng_seed(&rng, seed);
    isdb_rng_seed(&cov_rng, c->cov_seed);
    for (row = 0; row < T0; ++row) {
        double t = c->drift_code ? (double)row : (double)(row - T0), best = 0.0;
        int chosen = -1;
        if (row % c->cov_period == 0) isdb__isd_env_draw_A(env, &cov_rng, A);
        for (b = 0, off = 0, k = 0; b < c->n_blocks; off += c->block_sizes[b++])
            for (i = off; i < off + c->block_sizes[b]; ++i) {
                gt[i] = env->gamma0[i];
                if (c->residual[b]) {
                    double idx = c->drift_code ? (double)(i + 1) : (double)(++k), sn;
                    sn = sin(c->drift_freq * idx * t / (double)T0 + idx);
                    gt[i] -= c->drift_amp * (t / (double)T0) * sn * sn;
                }
            }
        for (i = 0; i < d; ++i) gam[i] = isdb__dot(d, env->basis + i * d, gt);
        if (logger == ISDB_ISD_LOG_UNIFORM || row % 2 == 0) chosen = (int)isdb_rng_below(&rng, (uint64_t)K);
        for (a = 0; a < K; ++a) {
            double v;
            isdb__isd_env_feature(env, &rng, A, g, xt, xk);
            v = isdb__dot(d, gam, xk);
            if (logger == ISDB_ISD_LOG_HALF_GREEDY) v += log_noise_sd * isdb_rng_normal(&rng);
            if (logger == ISDB_ISD_LOG_HALF_GREEDY && row % 2 == 1) {
                if (a == 0 || v > best) {
                    best = v;
                    isdb__copy(d, xk, X0 + row * d);
                }
            } else if (a == chosen) {
                best = v;
                isdb__copy(d, xk, X0 + row * d);
            }
        }
        /* Uniform: the mean plus noise; half-greedy: the noisy value the
           logger compared, plus fresh noise (the authors' code). */
        R0[row] = best + log_noise_sd * isdb_rng_normal(&rng);
    }
    return ISDB_OK;
}

void isdb_isd_env_invariant_basis(const isdb_isd_env *env, double *U_inv) {
    int d = env->cfg.d, b, i, j, off, col = 0;
    for (b = 0, off = 0; b < env->cfg.n_blocks; off += env->_sizes[b++])
        if (!env->_resflag[b]) {
            for (j = off; j < off + env->_sizes[b]; ++j, ++col)
                for (i = 0; i < d; ++i) U_inv[i * env->p_inv + col] = env->basis[i * d + j];
        }
}

/* [impl:env-opkb] */

/* [impl:env-oam] */

/* [impl:env-traceucb] */
#endif /* ISDB_NO_SIM */

#endif /* ISDB__IMPL_DONE */
#endif /* ISDB_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
This software is available under 2 licenses -- choose whichever you prefer.
------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2026 the isdbandit.h authors
Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
ALTERNATIVE B - Public Domain (www.unlicense.org)
This is free and unencumbered software released into the public domain.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute this
software, either in source code form or as a compiled binary, for any purpose,
commercial or non-commercial, and by any means.
In jurisdictions that recognize copyright laws, the author or authors of this
software dedicate any and all copyright interest in the software to the public
domain. We make this dedication for the benefit of the public at large and to
the detriment of our heirs and successors. We intend this dedication to be an
overt act of relinquishment in perpetuity of all present and future rights to
this software under copyright law.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION
WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------
*/

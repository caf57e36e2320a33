/* isdbandit.h - v1.2.0 - non-stationary linear bandits in one C99 header -
   MIT or public domain (Unlicense), see the end of the file.

   Do this in *one* C or C++ file to create the implementation:
      #define ISDB_IMPLEMENTATION
      #include "isdbandit.h"
   Every other file includes it plainly. The library needs libc and libm
   only (link with -lm).

   CONTENTS
      A tag in brackets marks the same part in the manual, in the public
      declarations and in the implementation: search for it to move
      between the three. The policy tags are the ISDB_ONLY_<POLICY> names.
      This block (the manual):
         COMPILE-TIME OPTIONS, QUICK START, CONVENTIONS, PRECISION,
         THE POLICY INTERFACE, POLICIES AT A GLANCE
         [LINUCB]    LINUCB             [ADAPTIVE]  ADAPTIVE
         [SWUCB]     SW-UCB             [ISD]       ISD-LINUCB
         [DLINUCB]   D-LINUCB           [OPKB]      OPKB / ADA-OPKB
         [LINTS]     LINTS              [OAM]       OAM
         [BOB]       BOB                [TRACEUCB]  TRACE-UCB
         [SNAPSHOT]  SNAPSHOT FORMAT
         HISTORY
      Public declarations, from #ifndef ISDBANDIT_H: version, [RESULTS]
         results, allocator, [RNG] random numbers, [LINALG] dense linear
         algebra, [JBD] joint block diagonalization, [POLICY] the policy
         interface, one banner per policy (its config struct with the
         fields' ranges, its object and its functions), [ENV] simulation
         environments and the regret harness.
      Implementation, from the IMPLEMENTATION banner (compiled only with
         ISDB_IMPLEMENTATION), under the same tags, and inside them:
         [LINALG.CHOLESKY] [LINALG.SOLVES] [LINALG.UPDATES] [LINALG.EIGEN]
         [LINALG.QR] [LINALG.LU] [LINALG.POLAR]
         [ISD.ESTIMATOR] [ISD.FDIST] [ISD.LSQ] [ISD.BLOCKTEST] [ISD.ESTIMATE]
         [ISD.POLICY] [ISD.FIT] [ISD.RESIDUAL] [ISD.SCORES] [ISD.GUARD]
         [ISD.MONITOR] [ISD.UPDATE] [ISD.SNAPSHOT] [ISD.INIT]
      License, at the end.

   COMPILE-TIME OPTIONS
      Define them before including the header.
      ISDB_STATIC          make every function static; define it in the
                           translation unit that also defines
                           ISDB_IMPLEMENTATION (private copy of the library).
      ISDB_ASSERT(x)       assertion for programmer errors (default: assert).
                           Bad numbers never assert: they return a code.
      ISDB_MALLOC(n)       allocation used when no isdb_allocator is given
      ISDB_FREE(p)         (default malloc and free). Define both or neither.
      ISDB_NO_MALLOC       no default allocation: the library never names
                           malloc or free (nor includes <stdlib.h>), so a
                           firmware using only *_init_preallocated or its
                           own isdb_allocator links neither; an *_init
                           given a NULL allocator returns
                           ISDB_ERR_INVALID_ARG. Excludes ISDB_MALLOC and
                           ISDB_FREE. With a user ISDB_ASSERT too, only
                           <string.h> and libm are linked (no <assert.h>).
      ISDB_NO_SIM          leave out the simulation environments and the
                           regret harness.
      ISDB_ONLY_<POLICY>   in the implementation file, in the style of stb's
                           STBI_ONLY_PNG: compile only the policies named
                           (one or more of LINUCB SWUCB DLINUCB LINTS BOB
                           ADAPTIVE ISD OPKB OAM TRACEUCB) and what they
                           need: ISD brings adaptive and joint block
                           diagonalization (isdb_jbd*), adaptive D-LinUCB,
                           BOB SW-UCB; an environment comes with its policy
                           (isdb_isd_env with ISD, isdb_kernel_env with OPKB,
                           isdb_context_env with OAM, isdb_active_env with
                           Trace-UCB). The declarations stay: a program that
                           calls a policy left out fails to link. With
                           ISDB_STATIC they go too (GCC warns of a static
                           declaration never defined): such a call fails to
                           compile. It is the cheap path to a small build.
      ISDB_NO_<POLICY>     leave that policy out (of all, or of the ONLY
                           list), unless a policy compiled needs it.
      ISDB_NO_COLD_O1      GCC builds what runs rarely at -O1 and what runs
                           once per object at -O0 (clang: optnone), 15%
                           less compile time; this keeps the file's level.
      ISDB_REAL            float or double (default): the precision of every
                           number (see PRECISION). Define it the same way in
                           every file that includes the header.
      ISDB_NO_AVX2_DISPATCH  x86 with GCC or clang: the select kernels are
                           also built for AVX2 (no FMA: the same bits) and
                           taken when the CPU has it (__builtin_cpu_supports,
                           which links __cpu_model from libgcc or
                           compiler-rt); this leaves them out (SSE2 only).
      Keep the implementation in a file of its own. Measured: gcc -O2 CPU
      4.5 s (stb_image 1.9 s), ISDB_ONLY_LINUCB 1.0 s, a plain #include
      0.03 s (bench/README.md, "1.0.0: the state work, measured").

   QUICK START
      isdb_linucb pol;
      isdb_linucb_config cfg = isdb_linucb_config_init(d, n_arms);
      cfg.lambda = 0.5;                          change any field you need
      if (isdb_linucb_init(&cfg, NULL, &pol) != ISDB_OK) ...
      for (t = 0; t < T; ++t) {
          int arm;
          isdb_result r = isdb_policy_select(&pol.base, X, n_arms, &arm);
          if (r < 0) stop(isdb_result_string(r));   X: n_arms x d; < 0: an error
          reward = play(arm);
          r = isdb_policy_update(&pol.base, arm, X + arm * d, reward);
          if (r < 0) stop(isdb_result_string(r));
      }
      isdb_policy_uninit(&pol.base);
   Every policy works behind the same generic functions (isdb_policy_*),
   which take the policy's first member, `base`.

   CONVENTIONS
      Numbers     isdb_real everywhere: double, or float with ISDB_REAL
                  (see PRECISION). Matrices are dense and row-major:
                  element (i, j) of an m x n matrix A is A[i*n + j]. A
                  K x d action matrix holds one arm per row.
      Results     functions that can fail return isdb_result: 0 is ISDB_OK,
                  positive values are success with a caveat, negative values
                  are errors (isdb_result_string names each).
      Refusals    say what to fix, with no global state:
                  isdb_X_config_check(&cfg, &why) returns the code that
                  heap_size and init return for that config (they run the
                  same check) and fills why (an isdb_refusal, may be NULL)
                  with the first field refused, spelled as in the struct
                  ("window", "est.folds"), its range lo..hi where numeric
                  (NaN otherwise) and a short text such as "(0, 1)".
                  Not covered by the check: a layout whose size overflows
                  size_t (32-bit targets, huge windows or arm counts:
                  heap_size refuses it), running out of memory, and what
                  only the data decide at init (ISD's offline fit, OPKB's
                  kernel matrix). isdb_policy_check_select, given
                  select's own arguments, names what select refuses
                  ("pol", "arm", "n_arms", "X"; scores and probs the same,
                  "out" for "arm"), isdb_policy_check_update what update
                  refuses ("arm", "x", "reward"); isdb_init_check names
                  "pol" or "heap" (non-NULL, 8-byte aligned), or
                  "heap_bytes" (returning ISDB_ERR_BUFFER_TOO_SMALL, lo the
                  size needed). A refused init leaves the object zeroed:
                  uninit is a no-op, every call on it ISDB_ERR_BAD_STATE.
      Ranges      every config an init accepts gives finite scores and
                  estimates for inputs within ISDB_INPUT_MAX: scales (R, S,
                  L, alpha, ISD's sigma and M, noise, amplitudes, OAM's c
                  and force_c) are at most 1e30 (1e6 in float); confidence
                  levels (delta) are normal numbers; LinTS's epsilon is at
                  least 1e-30 (1e-6), so its sampling scale stays finite.
                  Once t reaches 2^62, update and isdb_policy_check_update
                  both refuse with ISDB_ERR_BAD_STATE, naming "pol".
                  Each field's range is beside it in its config struct.
      Bad input   a NaN or Inf (ISDB_ERR_NONFINITE), a number above
                  ISDB_INPUT_MAX in magnitude (ISDB_ERR_RANGE), a wrong arm
                  index, a NULL pointer or a bad size (ISDB_ERR_INVALID_ARG)
                  returns an error and leaves the object exactly as it was.
                  Nothing in this library calls abort on bad data.
      Configs     isdb_X_config_init(required arguments) fills every other
                  field with its default (each policy's Defaults below).
                  A field documented as "0 means ..." takes that meaning at
                  init, and isdb_X_get_config returns the resolved value,
                  except where it depends on the state and the field stays
                  0: BOB's refresh (per block's window), ISD's refresh and
                  monitor_chunk (per p_res), Trace-UCB's lambda (1/n).
      R, S, L     the noise scale, the bound on ||theta|| and the bound on
                  ||x||, under these names in every policy that has them;
                  they set the width of the confidence set. On real data:
                  R is the rewards' sub-Gaussian scale, 0.5 for rewards in
                  [0, 1] ((b - a) / 2 for rewards in [a, b]); L the largest
                  norm of a feature vector you will pass; S a bound on
                  ||theta||, at least the largest mean reward over L (since
                  x.theta <= L ||theta||). The defaults (1 each) suit unit
                  features. Too large a value explores too much; too small
                  one voids the confidence level.
      Aliasing    each linear-algebra routine says which arguments may alias.
      Code        written out; the select kernels are macro templates ([LINALG.CHOLESKY]).
      Memory      all memory of an object is one block taken at init, of
                  isdb_X_heap_size bytes; isdb_X_init_preallocated(&cfg,
                  buf, buf_bytes, &obj) takes a caller buffer instead
                  (below heap_size it is refused, never written). select,
                  update, scores and probs never allocate. Objects must not
                  be copied or moved after init (they point into their block).
      Threads     no global mutable state: distinct objects may be used from
                  distinct threads; one object needs external locking.
      Randomness  every randomized object owns an isdb_rng (xoshiro256**
                  seeded by splitmix64) seeded from its config. The same
                  seed and inputs give the same outputs on every compiler
                  and optimisation level with -ffp-contract=off (never
                  -ffast-math): every reduction runs in a fixed order.
      Ties        the lowest arm index wins, unless a policy says otherwise.
      Snapshots   isdb_policy_save writes the whole state, RNG included; a
                  run saved, loaded and continued makes bit-for-bit the
                  same choices as one that never stopped (SNAPSHOT FORMAT).

   PRECISION
      #define ISDB_REAL float before the include builds the library in
      single precision, for FPUs that have no double (Cortex-M4F/M33/M7
      single, ESP32): every number the API takes and keeps is then a
      float, and no operation computes in double (the header compiles
      clean under -Wdouble-promotion). It covers the linear algebra,
      LinUCB, SW-UCB, D-LinUCB, LinTS, BOB, the adaptive policy and the
      linear environment with the regret harness. ISD-linUCB, the JBD,
      OPKB, OAM, Trace-UCB and their environments are left out of a float
      build (using one is a compile error that says they need double;
      ISDB_REAL long double stops at the header's #error): their solvers
      (Jacobi sweeps to 1e-12, log-det Newton steps, allocation problems
      solved to 1e-8, incomplete beta p-values) were built and validated
      in double only. What changes with float:
        ISDB_INPUT_MAX    1e9 (1e64 in double), and lambda must lie in
                          [1e-6, 1e6] ([1e-30, 1e30]) and BOB's
                          reward_bound in [1e-20, 1e20] ([1e-30, 1e30]),
                          so no sum or exponent overflows.
        Gram sums         LinUCB, LinTS and the adaptive policy keep the
                          rounding error of their running sums V and b
                          (d^2 + d more reals): a plain float sum stops
                          growing once its entries reach 2^24 times the
                          increments (LinUCB's estimate 1% off after 10^7
                          updates); compensated, it stays within a few eps.
        random numbers    uniforms carry 24 bits (53 in double); the same
                          seed gives different draws in the two builds.
        snapshots         reals are stored as binary32 and the format
                          version says so; neither build loads the other's.
        symbol names      every public function is linked as its name
                          plus _f32 (isdb_linucb_init_f32), so a program
                          that mixes float and double translation units
                          fails to link instead of misreading numbers.
      A float build loses accuracy where the Gram matrix's condition
      number nears 1/ISDB_REAL_EPSILON = 8e6 (features far larger than
      sqrt(lambda)); SW-UCB then rebuilds more often.

   THE POLICY INTERFACE
      isdb_policy_select(p, X, n_arms, &arm)   arm to play; X is n_arms x d
      isdb_policy_update(p, arm, x, reward)    x: the features played
      isdb_policy_scores(p, X, n_arms, out)    each arm's index, no state change
      isdb_policy_probs (p, X, n_arms, out)    probability select picks each arm
      isdb_policy_save / load / reset / uninit / name
   Each policy's getters are named isdb_<name>_get_<what> (get_config,
   get_theta, get_beta, ...). Every ridge-type policy (LinUCB, SW-UCB,
   D-LinUCB, LinTS, BOB, adaptive, ISD) has isdb_<name>_explain(pol, x,
   &mean, &bonus): the two parts of x's index, mean + bonus being its
   score (ISD splits the bonus in two; LinTS's are the sampled score's
   mean and standard deviation). OPKB, OAM and Trace-UCB have none: their
   choices are no mean plus a bonus.
   `update` takes the feature vector, so a caller may report an action it
   chose itself, or report late (delayed rewards): the policy learns from
   (x, reward) whatever it selected. `arm` is checked against the config's
   max_arms and otherwise only recorded.
   Errors every policy returns (each block's Errors adds its own):
   ISDB_ERR_INVALID_ARG from config_check, heap_size and init for a field
   out of range, and from the calls for a NULL pointer, a bad arm or
   n_arms; ISDB_ERR_OUT_OF_MEMORY from init; ISDB_ERR_BUFFER_TOO_SMALL from
   init_preallocated and save; ISDB_ERR_NONFINITE and ISDB_ERR_RANGE for
   bad numbers (CONVENTIONS); ISDB_ERR_BAD_STATE on an object whose init
   was refused, or once t reaches 2^62; the snapshot codes from load.

   POLICIES AT A GLANCE
   tag        struct        config_init            select / update      memory (leading terms)
   ---------- ------------- ---------------------- -------------------- ----------------------
   LINUCB     isdb_linucb   d, max_arms            O(K d^2) / O(d^2)    3 d^2
   SWUCB      isdb_swucb    d, max_arms, window    O(K d^2) / O(d^2)    2 d^2 + w (d + 1)
   DLINUCB    isdb_dlinucb  d, max_arms, gamma     O(K d^2) / O(d^2)    6 d^2
   LINTS      isdb_lints    d, max_arms            O(d^2 + K d) / O(d^2) 3 d^2
   BOB        isdb_bob      d, max_arms, T         O(K d^2) / O(d^2)    (d + 1) H + 2 d^2
   ADAPTIVE   isdb_adaptive d, max_arms            O(K d^2) / O(n d^2)  4 n d^2 + 6 n^2
   ISD        isdb_isd      d, max_arms,           O(K d^2) / O(n d^2)  (n0 + 2 H)(d + 1) + 16 d^2
                            n_offline, X0, R0      (+ a test every 2 d) + the adaptive learner's
   OPKB       isdb_opkb     d, n_arms, horizon;    O(N) / O(j); a       N (p + d) + (J^2 + 8 J) N
                            cfg.arms (not GRAM)    block's end solves   + solver
   OAM        isdb_oam      d, max_arms, horizon   O(K d (d + M)) /     O(d^2 + M K d)
                                                   O(d^2)               + 2 ((M + 1) K)^2
   TRACEUCB   isdb_traceucb d, m                   O(m) / O(d^2)        2 m d^2 + 4 d^2
   Symbols: d features, K = n_arms of the round (at most max_arms), w the
   window, n the adaptive policy's estimators (at most 32; 10 for d <= 8
   with the defaults), H BOB's block length or ISD's history, n0 ISD's
   offline rows, M OAM's registered contexts, N OPKB's arms, p its feature
   dimension, J = log2 T, j its block index, m Trace-UCB's models. Costs
   per call, amortised over the periodic refactorisations; memory in
   reals, doubles for the double-only policies (each block has the rest).
   ADAPTIVE is the policy to use when the drift is unknown.

   Every policy block has the same parts, in this order: Does, Set (what
   a user must set; the rest may be left), Defaults, Cost, Memory, Errors
   (beyond those above), Paper (where it differs from it), Measured (a
   figure and its bench/README.md section). Longer notes: bench/README.md.

   [LINUCB] LINUCB
      Does: OFUL (Abbasi-Yadkori, Pal, Szepesvari, NeurIPS 2011); with
         ISDB_WIDTH_CONSTANT, LinUCB (Li, Chu, Langford, Schapire 2010).
         Ridge estimate theta = V^-1 b, V = lambda I + sum x x^T,
         b = sum r x; plays argmax_x x.theta + alpha beta_n ||x||_{V^-1},
         n the updates so far, beta_n per `width`:
           ISDB_WIDTH_LOGDET   R sqrt(2 ln(1/delta) + ln det V - d ln lambda)
                               + sqrt(lambda) S                (Thm 2)
           ISDB_WIDTH_DETTRACE R sqrt(2 ln(1/delta) + d ln(1 + n L^2/(d lambda)))
                               + sqrt(lambda) S
           ISDB_WIDTH_SIMPLE   R sqrt(d ln((1 + n L^2/lambda)/delta))
                               + sqrt(lambda) S
           ISDB_WIDTH_CONSTANT 1 (so the width is alpha, as in Li et al.)
      Set: d and max_arms (config_init's arguments); R, S, L for your data
         (CONVENTIONS); the rest may be left.
      Defaults: lambda 1   delta 0.01   R 1   S 1   L 1   alpha 1
                width ISDB_WIDTH_LOGDET   refresh 0 = max(4 d, 256)
      Cost: select O(K d^2): one triangular solve per arm (eight arms a
         pass). Update O(d^2): a rank-one update of the Cholesky factor,
         plus an O(d^3) refactorisation from the exact Gram sum every
         `refresh` updates (O(d^2) amortised).
      Memory: 3 d^2 + O(d) reals (d^2 + d more in a float build).
      Errors: only those every policy returns.
      Paper: nothing differs in the default; refresh is ours.
      Measured: select at d = 50, K = 50, 4.6 us, 0.75x OpenBLAS's trsm
         plus scoring (bench/README.md, "Moved from the header's manual").

   [SWUCB] SW-UCB
      Does: Cheung, Simchi-Levi, Zhu, AISTATS 2019, Algorithm 1: ridge
         regression on the last `window` observations only, with LinUCB's
         index on the window's Gram matrix V. `width` as LinUCB's;
         ISDB_WIDTH_SIMPLE uses n = w (the paper's eq. 5, constant in t),
         DETTRACE n = min(w, t) (as the public SW-LinUCB code of Russac
         et al.). The window is exact: each update adds the new
         observation and removes the one that leaves by a Cholesky update
         and a checked downdate; a refused downdate, and every `refresh`
         updates, rebuild the factor exactly from the stored window.
         isdb_swucb_tuned_window gives the paper's window sizes
         (ISDB_WINDOW_AGNOSTIC reads no B_T: pass 0).
      Set: d, max_arms and window (config_init's arguments); R, S, L as
         LinUCB's; the rest may be left.
      Defaults: lambda 1   delta 0.01   R 1   S 1   L 1   alpha 1
                width ISDB_WIDTH_LOGDET   refresh 0 = max(w, d)
                window: none (an argument)
      Cost: select O(K d^2) (as LinUCB). Update O(d^2) whatever the window
         length, plus a rebuild O(w d^2 + d^3) on a refused downdate and
         every `refresh` updates (O(d^2) amortised).
      Memory: 2 d^2 + w (d + 1) + O(d) reals.
      Errors: only those every policy returns; an update never fails on a
         numerically singular window (the rebuild then takes one Givens
         update per stored observation).
      Paper: the default width is LOGDET, not eq. 5 (cfg.width =
         ISDB_WIDTH_SIMPLE is the paper); delta is 0.01, not the proofs'
         1/T. The T^(2/3) regret of the revised paper holds under its
         Assumption 1 (arms along orthogonal directions, e.g. K-armed);
         Zhao et al. (2020) showed the original general-case argument
         flawed.
      Measured: eq. 5's regret 1.13x LOGDET's (bench/README.md, "Design
         notes: SW-UCB").

   [DLINUCB] D-LINUCB
      Does: Russac, Vernade, Cappe, NeurIPS 2019, Algorithm 1:
            V <- gamma V + a a^T + (1 - gamma) lambda I,
            Vt <- gamma^2 Vt + a a^T + (1 - gamma^2) lambda I,
            b <- gamma b + r a,
         theta = V^-1 b; plays argmax a.theta + alpha beta ||V^-1 a||_{Vt}
         with beta_n = sqrt(lambda) S + R sqrt(2 ln(1/delta)
                     + d ln(1 + L^2 (1 - gamma^(2n)) / (lambda d (1 - gamma^2)))).
         By default the factor of V follows in O(d^2) between
         refactorisations every `refresh` updates, the ridge padding
         spread over groups of coordinates; refresh = 1 refactorises every
         update (the paper's V^-1 exactly). isdb_dlinucb_tuned_gamma gives
         gamma = 1 - (B_T/(d T))^(2/3).
      Set: d, max_arms and gamma (config_init's arguments); R, S, L as
         LinUCB's; the rest may be left.
      Defaults: lambda 1   delta 0.01   R 1   S 1   L 1   alpha 1
                refresh 0 = max(4 d, 256)   gamma: none (an argument)
                width: the paper's only
      Cost: select O(K d^2) (eight arms a pass: forward solve, back solve
         and the Vt form, d^2 / 2 each per arm). Update O(d^2), plus the
         O(d^3) refactorisation every `refresh` updates (O(d^2) amortised);
         refresh = 1: O(d^3) every update.
      Memory: 6 d^2 + O(d) reals.
      Errors: only those every policy returns: every valid update is
         taken (where rounding leaves the Gram sum without a positive
         pivot, the factor steps in factored form instead).
         gamma^ceil(d / 4) must be at least 1e-50 (1e-6 in float).
      Paper: between refactorisations V^-1 is that of V - D, D diagonal,
         0 <= D_jj <= lambda (1 - gamma^c) (each coordinate's ridge
         between lambda gamma^c and lambda); refresh = 1 is the paper's
         exactly. The Vt recursion is the paper's, not the authors' public
         code's (which multiplies the updated V, not the previous Vt, by
         gamma^2).
      Measured: regret 1.001x refresh = 1's (geometric mean, 91 cells;
         bench/README.md, "D-LinUCB's update in O(d^2)").

   [LINTS] LINTS
      Does: linear Thompson sampling (Agrawal and Goyal, ICML 2013):
         samples theta~ ~ N(theta, v^2 V^-1) (theta and V as LinUCB's)
         and plays argmax x.theta~, with `inflation`
           ISDB_LINTS_NONE    v = R (plain posterior sampling)
           ISDB_LINTS_THEORY  v = R sqrt(24/epsilon d ln(1/delta)) (the
                              paper's inflation)
         select draws d standard normals from the policy's generator;
         probs and scores estimate the selection probabilities by
         `mc_samples` draws from a copy of the generator, so they do not
         change the state. isdb_lints_explain gives x.theta and v
         ||x||_{V^-1}, the mean and standard deviation of x.theta~.
      Set: d and max_arms; R for your data (CONVENTIONS); the rest may be
         left.
      Defaults: lambda 1 (the paper's B = I)   R 1   seed 1
                inflation ISDB_LINTS_NONE   mc_samples 1000
                epsilon 0.5, delta 0.01 (THEORY only)
                refresh 0 = max(4 d, 256)
      Cost: select O(d^2 + K d); update O(d^2) (as LinUCB); probs and
         scores O(mc_samples (d^2 + K d)).
      Memory: as LinUCB, 3 d^2 + O(d) reals (d^2 + d more in float).
      Errors: only those every policy returns; epsilon is at least 1e-30
         (1e-6 in float).
      Paper: no inflation by default (THEORY is one field away).
      Measured: the paper's inflation has regret 4878 against 144 without
         it (bench/README.md, "Design notes: LinTS").

   [BOB] BOB
      Does: bandit over bandit (Cheung, Simchi-Levi, Zhu, AISTATS 2019,
         Algorithm 2): tunes SW-UCB's window online, without the variation
         budget. The horizon T is cut into blocks of
         H = floor(d^(2/3) T^(1/2)) rounds (clamped to [1, T]). Each block
         draws a window from J = {floor(H^(j/Delta))}, Delta = ceil(ln H),
         by EXP3 and plays a fresh SW-UCB with it (V = lambda I,
         delta = 1/T, width eq. 5); at the block's end the window's weight
         grows with the block's rescaled reward. The window is drawn at
         the block's first select (or update); from then on the choices
         are SW-UCB's and deterministic, so probs is one-hot (BOB's
         propensities are degenerate; the window's distribution is
         isdb_bob_get_master_probs; isdb_bob_tuned_params gives H, J...).
      Set: d, max_arms and the horizon T (>= 2); R, S, L as LinUCB's;
         reward_bound a bound on |x.theta| (1 for rewards in [0, 1]).
      Defaults: lambda 1   R 1   S 1   L 1   alpha 1   seed 1
                reward_bound 1   clip 0
                refresh 0 = max(w, d) for each block's window w
                T: none (an argument)
      Cost: select O(K d^2), plus O(H d) to start a block's SW-UCB (O(d)
         per round amortised) and O(|J|) for the draw; update O(d^2)
         amortised; probs before the draw O(|J| K d^2).
      Memory: (d + 1) H + 2 d^2 + O(d + |J|) reals.
      Errors: isdb_bob_explain ISDB_ERR_BAD_STATE before the block's
         window is drawn; isdb_bob_tuned_params ISDB_ERR_INVALID_ARG if H
         would exceed INT_MAX. reward_bound lies in [1e-30, 1e30]
         ([1e-20, 1e20] in float).
      Paper: reward_bound b (the paper's 1, which assumes |x.theta| <= 1)
         and clip (the paper does not clip) are ours. Past T, where the
         paper defines nothing, BOB goes on with the same H, J, gamma and
         normaliser in blocks of H rounds; no doubling trick.
      Measured: 3-59x the best tuned window or discount (geometric mean
         9.51) on `make agnostic`: use ADAPTIVE when the drift is unknown
         (bench/README.md, "Design notes: BOB").

   [ADAPTIVE] ADAPTIVE
      Does: the policy to use when the drift is unknown: it needs no
         horizon, window, discount or variation budget. It keeps n
         estimators that all learn from every observation: discounted
         ridge regressions (D-LinUCB's estimate and index) with memories
         1/(1 - gamma) = min_memory, r min_memory, r^2 min_memory, ...
         (rounded), max_memory, r = memory_ratio, and one undiscounted
         (LinUCB's). Before learning (x, y) each predicts
         y; a shorter memory whose predictions beat a longer one's by
         `threshold` standard deviations over its recent rounds is a
         change, and the longer ones are cut (`cut`). select plays the
         longest estimator that no shorter one beats at `play_threshold`;
         with `hold`, drift of the rewards' scale alone cuts nothing. No
         paper: this library's design; its estimators are D-LinUCB's and
         LinUCB's.
      The change test: for each pair i < j (i the shorter memory) the
         prediction errors' difference delta = (y - pred_j)^2 -
         (y - pred_i)^2 is summed with i's discount (S, and Q the sum of
         delta^2); i beats j at level z when S > z sqrt(max(Q, 4 s2 G)),
         G the discounted sum of (pred_i - pred_j)^2 and s2 the smallest
         long-run mean squared error of any estimator. The noise floor
         4 s2 G keeps near-equal deltas (low-mean Bernoulli rewards that
         stay 0) from looking significant.
      cut (what a change does to every estimator longer than i):
           FULL       it restarts from i's estimate (memory_i rounds).
           DIRECTION  it forgets only along the direction in which i's
                      recent observations say theta moved; the rest of
                      what it knows stays (with one-hot arms: the arms
                      played lately restart).
           AUTO       (default) DIRECTION while the played features recur
                      (a fixed arm set, items, one-hot arms; then the
                      longest estimator always plays), else FULL (fresh
                      contexts every round).
      play: the play rule's sums are the test's discounted over
         play_horizon memory_i rounds (1: the test's own sums), so slow
         drifts do not play memories too long.
      hold (fresh contexts only): a ridge of every observation, never cut,
         rescaled per memory (c_q >= 0), predicts the rewards; while it
         clearly predicts better than the estimator the play rule picks,
         nothing is cut and the longest estimator plays. A change of
         direction makes it err, and the hold ends.
      kalman: random-walk Kalman estimators beside the memories, in
         covariance form (P <- P + q I on the diagonal up to the prior
         1 / lambda, the Kalman step at unit noise variance, prior I /
         lambda), q = kalman_q 10^(k/2); the one of
         lowest recent error plays x.theta + kalman_width beta sqrt(x'Px)
         unless the memory the play rule picks beats it at play_threshold
         (a cut one, soon after a jump); never while hold holds or the
         features recur. Cuts leave them alone. kalman 0: 1.0.0's policy.
      Widths: noise_estimate LOCAL (default) scores arm x as
           x.theta + alpha (R_x B ||x||_w + lambda S |V^-1 x|),
         B the self-normalised radius (D-LinUCB's or LinUCB's, without S)
         and R_x = min(R, R_pool, sqrt(v_x) (1 + sqrt(2 ln(1/delta) / n_x)))
         a per-arm noise scale from the estimators' errors along x (the
         sandwich variance, White 1980). With R_x = R the index is OFUL's
         (D-LinUCB's) upper confidence bound, only tighter, at level
         1 - delta; R_pool and v_x are plug-ins, not confidence bounds.
         POOLED uses min(R, R_pool) for every arm and OFUL's ridge term;
         OFF uses R.
      Set: d and max_arms; R for your data (rewards in [0, 1]: R = 0.5;
         CONVENTIONS); S and L as LinUCB's; the rest may be left.
      Defaults: lambda 1   R 1   delta 0.01   S 1   L 1   alpha 1
                min_memory 0 = max(16, 2 d)
                max_memory 0 = max(4096, min_memory)   memory_ratio 2
                threshold 3.5   play_threshold 1.5   play_horizon 0 = 4
                refresh 0 = max(4 d, 256)   hold 1
                noise_estimate ISDB_ADAPTIVE_NOISE_LOCAL
                cut ISDB_ADAPTIVE_CUT_AUTO   kalman 2   kalman_q 3e-4
                kalman_width 0.1
      Getters: isdb_adaptive_get_n_estimators, _played, _estimator (its
         memory, gamma, observations held), _memory, _changes, _holding,
         _kalman (the Kalman estimator playing, or -1).
      Cost: update O(n d^2) (a prediction, a rank-one update and the
         gamma^2 sum per estimator, three scalar sums per pair; the
         estimators' steps side by side, the same bits as one at a time);
         NOISE_LOCAL adds O(d^2) per estimator (W), hold O(n + d^2),
         kalman O(d^2 + n) each (select: x'Px per arm while one plays).
         select O(K d^2) (one estimator; D-LinUCB's width when a
         discounted one plays, about twice LinUCB's select; NOISE_LOCAL
         adds a back substitution and one or two quadratic forms per arm).
         A directional cut costs O(d^3) per estimator it cuts, a full cut
         O(d^2).
      Memory: n (4 d^2 + O(d)) + 3 n^2 + n reals (d^2 + d more per
         estimator in float; d^2 more per estimator with NOISE_LOCAL, W;
         with hold one more ridge, 3 d^2 + O(d), and 3 (n - 1); with
         play_horizon > 1 the play rule's 3 n^2; d^2 + d + 1 + 3 n per
         Kalman estimator, and d), 16 hashes; no ring of past
         observations.
      Errors: only those every policy returns; isdb_adaptive_get_estimator
         ISDB_ERR_INVALID_ARG for an index out of range.
      Paper: none.
      Measured: regret / the best tuned policy on `make agnostic`,
         geometric mean 0.77, worst 1.31 over 26 problems (bench/README.md,
         "Adaptive's Kalman estimators").
      Measured: Besson et al.'s Problems 1-3 told R = 0.5, 0.86 / 0.91 /
         0.82x GLR-klUCB (same section).
      Measured: select + update 7.5x and 6.6x LinUCB's at d = 10 and 50,
         K = 10 (bench/README.md, "The adaptive step's cost against the
         claims"); a round 2.4-2.8x VW's on Elec2 and NOAA (K = 2), 0.18x
         on K = 20 fresh arms ("Vowpal Wabbit measured here").

   [ISD] ISD-LINUCB
      Does: Lazzaretto, Peters, Pfister, "Invariance-based dynamic regret
         minimization", arXiv 2603.03843, Algorithm 1. The parameter is
         split as gamma_t = beta_inv + delta_t, beta_inv in an invariant
         subspace S_inv (never changes), delta_t in its complement S_res.
         Offline (at init, and at every recompute) the basis
         U = [U_inv U_res] and beta_inv are fitted to logged rows (X0, R0)
         by isdb_isd_estimate (JBD of window covariances and an invariance
         test per block), or given (oracle = 1). Online, a residual
         learner in p_res dimensions learns r = y - x.beta_inv on
         z = U_res^T x, and every arm is scored x.(beta_inv + delta) plus
         an invariant and a residual width. With p_inv = 0 and U = I it is
         the residual learner in d dimensions, bit for bit.
      radius (the invariant width; alpha multiplies PAPER and CODE):
           PAPER  eqs. 25 and 30 read as norm radii (the support function
                  of the Minkowski sum of the two confidence sets).
           CODE   the joint ellipsoid of the authors' experiments;
           FIXED  the same with the constant alpha.
           DATA   (default) PAPER's sum of the two widths, the invariant
                  one from the fit itself: r_inv = s sqrt(p_inv +
                  2 sqrt(p_inv l) + 2 l), l = ln(1/eta), s^2 the fit rows'
                  residual variance; L, S and the subspace error do not
                  enter it; times fresh_inv_width while contexts are fresh.
      learner (the residual learner): ADAPTIVE (default: the adaptive
         policy in p_res dimensions with ISD's R, S, lambda, L, delta,
         alpha, refresh and kalman, and hold 0; with warm_start it learns
         the log's residual parts), LINUCB (the paper), WINDOW (a sliding
         window of `window` rows) or DISCOUNT (by `gamma`, D-LinUCB's
         width). p_res = 0: no online learning (est.force_residual keeps
         p_res >= 1).
      est.rule (the invariance decision): TEST (default) cuts the log
         into segments and a Chow F test per block asks whether its
         coefficients are shared; a block is invariant only if its p-value
         exceeds est.level (isdb_isd_get_block_pvalues); est.basis_error
         allows the drift the fitted basis's error leaks into a block. CV is the paper's statistic thresholded
         by cross-validation, BOTH requires both.
      identifiable (isdb_isd_get_info) is 0 when the fit's cov_spread, the
         spread of the log's window covariances over sampling noise's, is
         at most ISDB_ISD_SPREAD_THRESHOLD (2): this log cannot tell
         invariance (oracle mode: 1 and -1; after a load both -1).
      monitor (our extension): online rows are summed into pieces; every
         monitor_every updates an F test asks, per invariant block,
         whether beta_inv still fits the recent rows (Bonferroni over
         windows and blocks, level monitor_level). A confirmed alarm
         DEMOTES the block to the residual part (beta_inv refitted on the
         rest); nothing invariant left is the full fallback (U = I).
         ISDB_ISD_MONITOR_RECOMPUTE refits first and demotes on a second
         confirmed alarm.
      guard (our extension; ADAPTIVE learner): the adaptive policy runs
         beside ISD in all d dimensions; when a one-sided t test (level
         guard_level over monitor_window rows) says ISD predicts worse,
         it takes over (U = I: ISD is then that isdb_adaptive, bit for
         bit). A refit gives it back.
      Set: d, max_arms, n_offline, X0 (n_offline x d) and R0; R, S, L as
         LinUCB's (rewards in [0, 1]: R = 0.5). oracle = 1 takes U_inv (and
         beta_inv, or eq. 6 on the log) instead of the estimate.
      Defaults: oracle 0   learner ISDB_ISD_RES_ADAPTIVE   lambda 1
                radius ISDB_ISD_RADIUS_DATA   delta (eta) 0.01
                R 1   S 1   L 1   alpha 1   delta_pi -1 (the plug-in)
                window 100, gamma 0.99 (when chosen)
                refresh 0 = max(4 p_res, 256) (LINUCB, ADAPTIVE),
                   max(window, p_res) (WINDOW)
                recompute_every 0 (never; W > 0 refits on the log and
                   the kept rows every W updates, a failed refit keeps
                   the old one)
                history 0 = the most of window (WINDOW), recompute_every
                   and monitor_window (monitor on)
                monitor ISDB_ISD_MONITOR_FALLBACK
                monitor_window 0 = 10 d + 20   monitor_every 0 = 2 d
                monitor_chunk 0 = the learner's memory (the window;
                   min(ceil(1 / (1 - gamma)), monitor_window) discounting;
                   monitor_window / 4 for LINUCB and ADAPTIVE), at least
                   2 p_res + 2
                monitor_level 1e-4   monitor_confirm 1   guard_level 1e-3
                guard 1  warm_start 1  kalman 2  fresh_inv_width 0.1 (ADAPTIVE)
         est = isdb_isd_options_init(): rule ISDB_ISD_RULE_TEST, level
                0.01, splits 0 = min(8, n / (3 d)) (at least 2),
                n_windows 25, window_length 0 = n / 8, center 1,
                intercept 0, folds 10, adapt 0 = 2 d, basis_error 1,
                one_se ISDB_ISD_ONE_SE_PAIRED, force_residual 0,
                jbd = isdb_jbd_options_init() with off_norm
                ISDB_JBD_OFF_ENTRYWISE (Jacobi angles)
      Cost: select O(K (min(d p_inv, d (d + 1) / 2) + d p_res + p_res^2))
         with beta_inv estimated, O(K d (1 + p_res) + K p_res^2) given;
         eight arms interleaved. Update: the residual learner's (ADAPTIVE
         O(d p_res + n p_res^2); LINUCB and WINDOW O(d p_res + p_res^2);
         DISCOUNT O(d p_res + p_res^3)), plus with the guard the adaptive
         policy's update in d dimensions, O(n d^2), plus the monitor's
         O(d^2) sums per row and, every monitor_every updates, its test of
         O(pieces (p_res^3 + p_res^2 p_inv + p_res p_inv^2) + p_inv^3). A
         recompute is one isdb_isd_estimate on n0 + history rows; a
         demotion one fit, O(n d^2); the warm start adds about 2 n0 n d^2
         to init, reset and every rebuild.
      Memory (doubles): (n0 + H) (d + 1) for the rows (H = history),
         H (d + 1) for the ring, about 18 d^2 for three decompositions and
         the learner (+ 4 d^2 discounting; ADAPTIVE: the adaptive policy's
         memory laid out for d, twice with the guard, plus monitor_window),
         the monitor's (monitor_window / chunk + 2) (d (d + 1) / 2 + d + 2),
         and a scratch of 8 d^2 or the estimator's workspace if larger
         (isdb_isd_estimate_work_size).
      Errors: init ISDB_ERR_NOT_SPD when the offline fit does not factor;
         config_check refuses a heap or scratch that does not fit
         (monitor_chunk, monitor_window, d or n_offline); DISCOUNT gamma
         is at least 1e-100; load: "X0", "R0", "U_inv", "beta_inv" (SNAPSHOT FORMAT).
      Paper: radii read as norms (eq. 7 writes ||.||^2 <= rho, the proofs
         use rho as a norm bound). Defaults one field from the paper:
         learner ADAPTIVE (paper ISDB_ISD_RES_LINUCB, which never forgets
         a drifting residual); radius DATA (paper ISDB_ISD_RADIUS_PAPER,
         47 at d = 4 with unit features, never shrinking; DATA is a
         heuristic without eq. 25's guarantee); guard 1 and warm_start 1
         (paper 0); est.rule TEST (paper ISDB_ISD_RULE_CV); est.jbd.off_norm
         ENTRYWISE (paper ISDB_JBD_OFF_MAXCOL); monitor FALLBACK (paper
         ISDB_ISD_MONITOR_OFF). WINDOW, DISCOUNT, monitor, guard and warm
         start are not in the paper.
      Measured: on practitioners' logs 0.76x adaptive's regret where part
         is invariant, 1.01x where nothing is (bench/README.md, "ISD on a
         practitioner's logs").
      Measured: select at p = 50, K = 20, p_res = 2: 1.12-1.24x LinUCB's
         (bench/README.md, "ISD-linUCB").

   [OPKB] OPKB / ADA-OPKB
      Does: Hong, Li, Tewari, "An Optimization-based Algorithm for
         Non-stationary Kernel Bandits without Prior Knowledge", AISTATS
         2023, Algorithms 1-4. A fixed set of N arms with a kernel
         (linear, RBF, Matern 5/2, or a Gram matrix) and its feature map
         phi (isdb_feature_map_build). Blocks of 2^j E rounds: block 0
         samples the regularised optimal design pi(X); at each block's
         end the IPS gap estimates give the log-det problem OP
         (isdb_opkb_solve) whose solution, mixed with pi, the next block
         samples. ADA-OPKB (adaptive = 1) also replays past strategies
         and, when a replay's gaps differ from a later block's beyond the
         threshold (`test`), restarts the epoch. isdb_opkb_config_preset
         sets the constants: ISDB_OPKB_THEORY (App. D.1) or TUNED.
      Set: d, n_arms = N and horizon (config_init's arguments), and
         cfg.arms (N x d) unless the kernel is ISDB_KERNEL_GRAM (then
         gram, N x N); reward_scale so that rewards lie in [-1, 1] (the
         theory assumes k(x, x) <= 1 and |y| <= 1). select, scores and
         probs take X == NULL or X equal to the arm set; update x == NULL
         or the played arm's row.
      Defaults: adaptive 0 (OPKB)   kernel ISDB_KERNEL_LINEAR
                length_scale 1   features ISDB_FEATURES_AUTO
                rank_tol 1e-12   sigma 100   delta 1e-4   reward_scale 1
                the ISDB_OPKB_TUNED constants: gamma_factor 1/2, c1 0.1,
                   c3 0.04, c4 1/4, beta_scale 50, set_scale 2.5, mix 0.2,
                   c0_scale 0.005, test_mean 1, j_star 4, test_block 0,
                   max_restarts 100
                test ISDB_OPKB_TEST_CALIBRATED   test_z 3.5
                solver_tol 1e-9   solver_max_iter 200   seed 1
      Cost: select O(N), update O(j), probs O(N), except at a block's end
         (the gaps, O(j (N p^2 + p^3)), and OP: 10-30 Newton steps of
         O(N p^2 + N^2 p + N^3)) and a replay's end (its test, O(j (N p^2
         + p^3))).
      Memory (doubles): N (p + d) + the solver's 2 p^2 + 3 N p + N^2 +
         20 N + (J^2 + 8 J) N, J = log2 T (N^2 more for a Gram matrix).
      Errors: select, scores, probs and update ISDB_ERR_INVALID_ARG for
         an X or x other than the arm set's. Init and config_check refuse
         (ISDB_ERR_INVALID_ARG) more than 4096 arms, a kernel too large
         for lambda = sigma / T (max k(x, x) > 1e10 lambda: rescale the
         arms) or too small (< 1e-30 lambda, a zero kernel included),
         naming sigma (sigma / horizon must lie within [1e-10, 1e30] of
         the arms' largest k(x, x)), gamma_factor below 1e-30, and
         ISDB_FEATURES_CHOLESKY with the linear kernel and more arms than
         d, naming features. CHOLESKY on any other K that does not factor
         is refused by init only (ISDB_ERR_NOT_SPD; AUTO falls back to the
         eigen map). Load: "arms", "gram" (SNAPSHOT FORMAT).
      Paper: the default constants are the authors' code's (TUNED; THEORY
         is the paper's), and the default test is CALIBRATED (the gaps to
         C(k)'s best arm, sides g - 2 D and D - 2 g, threshold test_z
         standard deviations; CONSTANT with c0_scale is the paper's);
         j_star and max_restarts limit the paper's schedule, and
         reward_scale rescales rewards. Past T the last block goes on.
      Measured: on stationary problems the authors' constant restarted in
         45 of 100 runs, the calibrated test in 4 (bench/README.md,
         "ADA-OPKB's change test").

   [OAM] OAM
      Does: optimal allocation matching (Hao, Lattimore, Szepesvari,
         "Adaptive exploration in linear contextual bandit", AISTATS 2020,
         Algorithm 1), for stationary problems with finitely many
         contexts, each a fixed action set. Least squares without a ridge,
         horizon n known, f_n = 2 (1 + 1/ln n) ln n + c d ln(d ln n).
         Until the arms played span R^d: INIT. Then EXPLOIT (argmax
         x.theta) when every arm's width passes the greedy test (4.3);
         else explore towards the targets of the optimal allocation
         (Definition 4.1, isdb_oam_allocate, solved again when det G grew
         by 1 + zeta): WASTED (LinUCB) once every target is met, FORCED
         (per `forcing`) or TRACK.
      Set: d, max_arms and the horizon n (>= 2). Register the known action
         sets with isdb_oam_add_context (so rare contexts count from round
         1), or let select register each new set (an exact match of every
         feature); isdb_oam_set_context names the context instead.
      Defaults: max_contexts 8   c 1   zeta 0.1 (the paper's section 5)
                forcing ISDB_OAM_FORCE_NONE   force_c 0.1 (SCALED only)
                force_s_now 0   lambda 0   solver_tol 1e-8
                solver_max_iter 500   refresh 0 = d
                horizon: none (an argument)
      Cost: select O(K d^2 + M K d) (M registered sets); update O(d^2)
         (refactorised every `refresh`); a solve O(J d) in closed form,
         O(J^3) per Newton step (J <= M K pairs), in exploration rounds.
      Memory (doubles): O(d^2 + M K d), plus 2 ((M+1) K)^2 of solver
         workspace.
      Errors: select and isdb_oam_add_context ISDB_ERR_BAD_STATE for a new
         set beyond max_contexts; init refuses (ISDB_ERR_INVALID_ARG) a
         workspace above INT_MAX doubles (e.g. K = 10^4 with max_contexts
         8), config_check too (naming max_contexts); isdb_oam_allocate may
         return ISDB_MAXITER_REACHED (usable).
      Paper: no forcing by default (epsilon_t = 1 / log log t of Thm 4.3
         is at least 0.45 for t <= 10^4, which makes exploration round
         robin); cfg.forcing = ISDB_OAM_FORCE_LOGLOG is the paper. Where
         the paper is inconsistent: targets min(T, f_n / D_min^2) (the
         text, not the box's min(T, f_n / D_min)^2); s(t-1) in the forcing
         test (the box; force_s_now = 1 for the text's s(t)); s counts
         every exploration round (the box). WASTED rounds occur with a
         single context too (the paper's Lemma C.4 is garbled).
      Measured: the paper's forcing has 6.5-138x the regret of none
         (bench/README.md, "Defaults review").

   [TRACEUCB] TRACE-UCB
      Does: active learning (Riquelme, Ghavamzadeh, Lazaric, ICML 2017,
         Algorithm 1, with the paper's baselines as modes): m linear models
         y = x.beta_i + N(0, sigma_i^2) share one stream of contexts
         x ~ N(0, Sigma); each round the policy picks the model that gets
         a label, to minimise max_i E ||beta_i - beta_hat_i||^2_Sigma
         (eq. 3). The arms are the m models; select IGNORES X (it may be
         NULL): the choice depends on past data only, as the analysis
         needs (Lemma 2). Each model first gets d + 1 samples; then TRACE
         plays argmax_i w_i (sigma_hat_i^2 + Delta_i) Tr(Sigma S_i^-1)
         (eq. 12), Delta per `width`: THEORY alpha 8 R ln(2 m n / delta) /
         sqrt(k - d) (eq. 11; R >= max sigma_i^2), SCALED alpha R /
         sqrt(k - d); n the horizon, or the updates so far when it is 0.
      Modes: VAR Var-UCB; UNIFORM round robin; STATIC the optimal static
         allocation for known noise_var (isdb_traceucb_static_allocation).
         objective ISDB_TRACEUCB_AVERAGE_LOSS minimises sum_i w_i E[L_i].
         sparse_s = s > 0: Sparse-Trace-UCB (appendix F).
      Set: d and m (config_init's arguments); update(model, x, y) gives
         the context and the label; select, scores, probs need n_arms = m.
         R a bound on the noise variances (SCALED); Sigma the second
         moment E[x x^T] (not the covariance) if known, else estimated
         from every context seen. Ties: lowest index; no random numbers.
      Defaults: mode ISDB_TRACEUCB_TRACE   width ISDB_TRACEUCB_WIDTH_SCALED
                objective ISDB_TRACEUCB_MAX_LOSS   alpha 1   R 1
                delta 0.1   horizon 0 (unknown: n = updates so far)
                lambda 0 = 1/n   Sigma NULL (estimated)
                weights NULL (all 1)   noise_var NULL (STATIC needs it)
                refresh 0 = d   sparse_s 0 (off)
                sparse_L 0 = max(s + 1, ceil(2 s ln d))
      Cost: select O(m); update O(d^2) (O(m d^2) with Sigma estimated),
         plus an O(d^3) rebuild every `refresh` updates of a model; ridge
         estimate O(d^3); sparse: the group lasso once, O(40 * 300 m L d).
      Memory (doubles): 2 m d^2 + 4 d^2 + O(m d), plus m L (d + 1) + d^2 +
         4 d m when sparse (L = sparse_L).
      Errors: the OLS estimate ISDB_ERR_SINGULAR while a model's S is
         singular (it is then sampled first, so the run goes on); in
         sparse stage 1 a model past its quota ISDB_ERR_BAD_STATE; load
         "Sigma", "weights", "noise_var" (SNAPSHOT FORMAT).
      Paper: the default width is SCALED (THEORY, eq. 11, is the paper's:
         about 260 / sqrt(k - d) for R = 3, n = 350, m = 7, close to
         uniform). Estimating Sigma is not in the paper. Sparse: sparse_L's
         default is ours (the paper has L = C s log d), and so are the
         lasso path and the top-s rule.
      Measured: the theory width's final loss is 1.54x SCALED's
         (bench/README.md, "Defaults review").

   [SNAPSHOT] SNAPSHOT FORMAT
      Format 1, the format of every 1.x release; all integers
      little-endian.
      offset 0   4 bytes  "ISDB"
      offset 4   u32      format version (1; 0x10001 from a float build)
      offset 8   u32      policy kind (isdb_policy_kind)
      offset 12  u32      library version, major << 16 | minor << 8 | patch
      offset 16  u64      total size in bytes, this header and checksum included
      offset 24  i64 i64 u64  d, the arm count, the seed (0: none)
      offset 48  u64      t, the updates so far
      offset 56  ...      the generator, the config's other fields (in the
                          order of the policy's field list), then the state:
                          reals as IEEE-754 binary64 bit patterns (u64;
                          binary32 as u32 in the state of a float build,
                          config values stay u64), integers as i32 or
                          u64, in an order fixed by the config and by
                          values earlier in the stream (BOB: the window
                          index)
      last 8     u64      FNV-1a 64 hash of every byte before it
      Reading one without a policy: isdb_snapshot_read_info (kind, d, arm
      count, seed, t, format, precision, library version, size), then
      isdb_X_config_from_snapshot, init and load. The input arrays a
      config points to (ISD's X0, R0, U_inv, beta_inv; OPKB's arms,
      gram; Trace-UCB's Sigma, weights, noise_var) are in the config
      block as the policy's copies: config_from_snapshot leaves those
      fields NULL and isdb_snapshot_read_array copies each into memory
      of the caller's, to point the config to before init. So the
      snapshot is all a product stores; an ISD snapshot holds its
      offline log (n_offline (d + 1) reals).
      Compatibility: every 1.x release loads every snapshot of format 1
      written by 1.0.0 or later and continues it as its writer would: a
      config field a later release added (HISTORY) reads as the value
      the writer behaved as. tests/corpus/snapshots holds one snapshot
      of every policy in both precisions from each release, loaded and
      continued by make test. Refused with ISDB_ERR_SNAPSHOT_VERSION: a
      snapshot from before 1.0.0 or of a later format. An older release
      refuses a newer snapshot that holds a field it does not know.
      isdb_policy_check_load says what load would return, and for
      ISDB_ERR_SNAPSHOT_CONFIG names the first config field that differs.
      load leaves the object unchanged on any refusal and returns the
      first that applies, in the order isdb_policy_load's comment gives
      (magic and version come before the stated size, so a buffer that is
      no snapshot is not called truncated). The update count stops at
      2^62: update then returns ISDB_ERR_BAD_STATE, and load refuses a
      larger count, so no count wraps.
      The checksum catches damage, not forgery. A snapshot made to pass it
      is checked (ISDB_ERR_SNAPSHOT_CORRUPT) for everything the library
      indexes or samples with (sizes, counters, indices, probability
      vectors), so it cannot make a later call read or write out of
      bounds, and for the relations between the values that the policies
      keep (finite reals, counts consistent with t, factors that match
      their Gram sums, stored solves; the list: bench/README.md, "Moved
      from the header's manual"). A state that passes
      gives finite scores and probabilities on ordinary inputs; with
      inputs near ISDB_INPUT_MAX (or in float) its calls may still return
      ISDB_ERR_NONFINITE, as a real state can. load runs in O(d^3) per
      factor (O(m d^3) for Trace-UCB, O(window d^2) for SW-UCB) and
      allocates nothing.

   HISTORY
      Each release's detail: bench/README.md, "Moved from the header's
      manual (1.0.0)".
      0.1.0  first release: every policy, the environments, the harness.
      0.2.0  API for a first compile that can be trusted: no reserved
             names, one name R, S, L for the same thing, _f32 symbols,
             config_check and isdb_refusal, ranges that keep configs
             finite, the snapshot codes, ISD's ADAPTIVE and DATA defaults.
      0.3.0  ISD's guard and warm start; adaptive's noise floor and noise
             estimate; D-LinUCB's O(d^2) update; AVX2 select kernels.
      0.4.0  adaptive's cut (AUTO); ISD's select in one interleaved pass.
      0.5.0  ISD's block test allows the basis's error (basis_error).
      0.6.0  adaptive's per-arm noise scale (NOISE_LOCAL); cold code at
             -O1 (ISDB_NO_COLD_O1).
      0.7.0  adaptive's hold, play_threshold 1.5.  0.8.0  play_horizon 4.
      0.8.1  a faster adaptive step.  0.8.2  faster save and load.
      1.0.0  the public contract a product can keep; what a 0.8 user
             must change: bench/README.md, "1.0.0: what a 0.8 user must
             change".
      1.1.0  adaptive's memory_ratio (a 1.0.0 snapshot reads as 2);
             its Kalman estimators (kalman 2; a 1.0.0 snapshot reads as
             0), in ISD's ADAPTIVE learner too (isdb_isd_config.kalman).
      1.2.0  ISD's fresh_inv_width (0.1; a 1.1.0 snapshot reads as 1)
             and guard_level (1e-3; a 1.1.0 snapshot reads as 0, the
             monitor's level).
*/

#ifndef ISDBANDIT_H
#define ISDBANDIT_H

#include <stddef.h>
#include <stdint.h>

#define ISDB_VERSION_MAJOR 1
#define ISDB_VERSION_MINOR 2
#define ISDB_VERSION_PATCH 0
#define ISDB_VERSION_STRING "1.2.0"

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

/* The policies compiled (COMPILE-TIME OPTIONS): every one, those named by
   ISDB_ONLY_<POLICY>, less those named by ISDB_NO_<POLICY>; then what
   they need. ISDB__HAS_<X> is 1 or 0. */
#if defined(ISDB_ONLY_LINUCB) || defined(ISDB_ONLY_SWUCB) || defined(ISDB_ONLY_DLINUCB) || \
    defined(ISDB_ONLY_LINTS) || defined(ISDB_ONLY_BOB) || defined(ISDB_ONLY_ADAPTIVE) || defined(ISDB_ONLY_ISD) || \
    defined(ISDB_ONLY_OPKB) || defined(ISDB_ONLY_OAM) || defined(ISDB_ONLY_TRACEUCB)
#define ISDB__ONLY 1
#else
#define ISDB__ONLY 0
#endif
#if (!ISDB__ONLY || defined(ISDB_ONLY_LINUCB)) && !defined(ISDB_NO_LINUCB)
#define ISDB__WANT_LINUCB 1
#else
#define ISDB__WANT_LINUCB 0
#endif
#if (!ISDB__ONLY || defined(ISDB_ONLY_SWUCB)) && !defined(ISDB_NO_SWUCB)
#define ISDB__WANT_SWUCB 1
#else
#define ISDB__WANT_SWUCB 0
#endif
#if (!ISDB__ONLY || defined(ISDB_ONLY_DLINUCB)) && !defined(ISDB_NO_DLINUCB)
#define ISDB__WANT_DLINUCB 1
#else
#define ISDB__WANT_DLINUCB 0
#endif
#if (!ISDB__ONLY || defined(ISDB_ONLY_LINTS)) && !defined(ISDB_NO_LINTS)
#define ISDB__WANT_LINTS 1
#else
#define ISDB__WANT_LINTS 0
#endif
#if (!ISDB__ONLY || defined(ISDB_ONLY_BOB)) && !defined(ISDB_NO_BOB)
#define ISDB__WANT_BOB 1
#else
#define ISDB__WANT_BOB 0
#endif
#if (!ISDB__ONLY || defined(ISDB_ONLY_ADAPTIVE)) && !defined(ISDB_NO_ADAPTIVE)
#define ISDB__WANT_ADAPTIVE 1
#else
#define ISDB__WANT_ADAPTIVE 0
#endif
#if (!ISDB__ONLY || defined(ISDB_ONLY_ISD)) && !defined(ISDB_NO_ISD)
#define ISDB__WANT_ISD 1
#else
#define ISDB__WANT_ISD 0
#endif
#if (!ISDB__ONLY || defined(ISDB_ONLY_OPKB)) && !defined(ISDB_NO_OPKB)
#define ISDB__WANT_OPKB 1
#else
#define ISDB__WANT_OPKB 0
#endif
#if (!ISDB__ONLY || defined(ISDB_ONLY_OAM)) && !defined(ISDB_NO_OAM)
#define ISDB__WANT_OAM 1
#else
#define ISDB__WANT_OAM 0
#endif
#if (!ISDB__ONLY || defined(ISDB_ONLY_TRACEUCB)) && !defined(ISDB_NO_TRACEUCB)
#define ISDB__WANT_TRACEUCB 1
#else
#define ISDB__WANT_TRACEUCB 0
#endif
/* ISD runs an adaptive learner, adaptive D-LinUCB's discounted sums and
   BOB SW-UCB learners. */
#define ISDB__HAS_ISD ISDB__WANT_ISD
#define ISDB__HAS_ADAPTIVE (ISDB__WANT_ADAPTIVE || ISDB__HAS_ISD)
#define ISDB__HAS_DLINUCB (ISDB__WANT_DLINUCB || ISDB__HAS_ADAPTIVE)
#define ISDB__HAS_BOB ISDB__WANT_BOB
#define ISDB__HAS_SWUCB (ISDB__WANT_SWUCB || ISDB__HAS_BOB)
#define ISDB__HAS_LINUCB ISDB__WANT_LINUCB
#define ISDB__HAS_LINTS ISDB__WANT_LINTS
#define ISDB__HAS_OPKB ISDB__WANT_OPKB
#define ISDB__HAS_OAM ISDB__WANT_OAM
#define ISDB__HAS_TRACEUCB ISDB__WANT_TRACEUCB
/* Joint block diagonalization is ISD's offline step. */
#define ISDB__HAS_JBD ISDB__HAS_ISD
/* The ridge core of LinUCB, SW-UCB, D-LinUCB and LinTS. */
#define ISDB__HAS_RIDGE (ISDB__HAS_LINUCB || ISDB__HAS_SWUCB || ISDB__HAS_DLINUCB || ISDB__HAS_LINTS)
/* With ISDB_STATIC the policies left out are not declared either: a static
   declaration without its definition draws -Wunused-function from GCC. */
#ifdef ISDB_STATIC
#define ISDB__DECLARE_ALL 0
#else
#define ISDB__DECLARE_ALL 1
#endif

/* The floating-point type of every number the library takes and keeps:
   double unless ISDB_REAL is defined as float before the include (see
   PRECISION above). ISDB_REAL_IS_FLOAT tells which, for #if. */
#ifndef ISDB_REAL
#define ISDB_REAL double
#endif
#define ISDB__PRECISION_float 1
#define ISDB__PRECISION_double 2
/* Two-word types (long double, unsigned int...) reach the #error below
   rather than a preprocessor syntax error. */
#define ISDB__PRECISION_long 0 &&
#define ISDB__PRECISION_short 0 &&
#define ISDB__PRECISION_signed 0 &&
#define ISDB__PRECISION_unsigned 0 &&
#define ISDB__PRECISION_const 0 &&
#define ISDB__PRECISION_volatile 0 &&
#define ISDB__CONCAT(a, b) a##b
#define ISDB__PRECISION_OF(type) ISDB__CONCAT(ISDB__PRECISION_, type)
#if ISDB__PRECISION_OF(ISDB_REAL) == 1
#define ISDB_REAL_IS_FLOAT 1
#elif ISDB__PRECISION_OF(ISDB_REAL) == 2
#define ISDB_REAL_IS_FLOAT 0
#else
#error "isdbandit.h: ISDB_REAL must be float or double (long double is not supported)"
#endif
typedef ISDB_REAL isdb_real;
#if ISDB_REAL_IS_FLOAT
#define ISDB_REAL_EPSILON 1.1920928955078125e-07f
#else
#define ISDB_REAL_EPSILON 2.220446049250313080847e-16
#endif

/* Largest magnitude accepted for a feature or a reward. Bounding inputs
   bounds every sum a policy keeps, so no update can overflow. */
#if ISDB_REAL_IS_FLOAT
#define ISDB_INPUT_MAX 1e9f
#else
#define ISDB_INPUT_MAX 1e64
#endif
/* Largest feature dimension: d * d must fit in an int index. */
#define ISDB_MAX_DIM 16384

/* A float build's public functions carry the suffix _f32 in the object
   files, so a program that mixes float and double translation units fails
   to link instead of misreading every number. One line per function of the
   public declarations below (make test checks that none is missing).
   ISD, JBD, OPKB, OAM and Trace-UCB are absent from a float build. */
#if ISDB_REAL_IS_FLOAT
#define isdb_active_env_config_check isdb_active_env_config_check_f32
#define isdb_active_env_config_init isdb_active_env_config_init_f32
#define isdb_active_env_heap_size isdb_active_env_heap_size_f32
#define isdb_active_env_init isdb_active_env_init_f32
#define isdb_active_env_init_preallocated isdb_active_env_init_preallocated_f32
#define isdb_adaptive_config_check isdb_adaptive_config_check_f32
#define isdb_adaptive_config_from_snapshot isdb_adaptive_config_from_snapshot_f32
#define isdb_adaptive_config_init isdb_adaptive_config_init_f32
#define isdb_adaptive_explain isdb_adaptive_explain_f32
#define isdb_adaptive_get_beta isdb_adaptive_get_beta_f32
#define isdb_adaptive_get_changes isdb_adaptive_get_changes_f32
#define isdb_adaptive_get_config isdb_adaptive_get_config_f32
#define isdb_adaptive_get_estimator isdb_adaptive_get_estimator_f32
#define isdb_adaptive_get_holding isdb_adaptive_get_holding_f32
#define isdb_adaptive_get_memory isdb_adaptive_get_memory_f32
#define isdb_adaptive_get_n_estimators isdb_adaptive_get_n_estimators_f32
#define isdb_adaptive_get_played isdb_adaptive_get_played_f32
#define isdb_adaptive_get_kalman isdb_adaptive_get_kalman_f32
#define isdb_adaptive_get_theta isdb_adaptive_get_theta_f32
#define isdb_adaptive_heap_size isdb_adaptive_heap_size_f32
#define isdb_adaptive_init isdb_adaptive_init_f32
#define isdb_adaptive_init_preallocated isdb_adaptive_init_preallocated_f32
#define isdb_bob_config_check isdb_bob_config_check_f32
#define isdb_bob_config_from_snapshot isdb_bob_config_from_snapshot_f32
#define isdb_bob_config_init isdb_bob_config_init_f32
#define isdb_bob_explain isdb_bob_explain_f32
#define isdb_bob_get_block isdb_bob_get_block_f32
#define isdb_bob_get_config isdb_bob_get_config_f32
#define isdb_bob_get_log_weights isdb_bob_get_log_weights_f32
#define isdb_bob_get_master_probs isdb_bob_get_master_probs_f32
#define isdb_bob_get_params isdb_bob_get_params_f32
#define isdb_bob_get_swucb isdb_bob_get_swucb_f32
#define isdb_bob_get_window isdb_bob_get_window_f32
#define isdb_bob_get_window_index isdb_bob_get_window_index_f32
#define isdb_bob_heap_size isdb_bob_heap_size_f32
#define isdb_bob_init isdb_bob_init_f32
#define isdb_bob_init_preallocated isdb_bob_init_preallocated_f32
#define isdb_bob_tuned_params isdb_bob_tuned_params_f32
#define isdb_chol isdb_chol_f32
#define isdb_chol_downdate isdb_chol_downdate_f32
#define isdb_chol_logdet isdb_chol_logdet_f32
#define isdb_chol_solve isdb_chol_solve_f32
#define isdb_chol_update isdb_chol_update_f32
#define isdb_chol_update_work_size isdb_chol_update_work_size_f32
#define isdb_context_env_config_check isdb_context_env_config_check_f32
#define isdb_context_env_config_init isdb_context_env_config_init_f32
#define isdb_context_env_heap_size isdb_context_env_heap_size_f32
#define isdb_context_env_init isdb_context_env_init_f32
#define isdb_context_env_init_preallocated isdb_context_env_init_preallocated_f32
#define isdb_dlinucb_config_check isdb_dlinucb_config_check_f32
#define isdb_dlinucb_config_from_snapshot isdb_dlinucb_config_from_snapshot_f32
#define isdb_dlinucb_config_init isdb_dlinucb_config_init_f32
#define isdb_dlinucb_explain isdb_dlinucb_explain_f32
#define isdb_dlinucb_get_beta isdb_dlinucb_get_beta_f32
#define isdb_dlinucb_get_config isdb_dlinucb_get_config_f32
#define isdb_dlinucb_get_theta isdb_dlinucb_get_theta_f32
#define isdb_dlinucb_heap_size isdb_dlinucb_heap_size_f32
#define isdb_dlinucb_init isdb_dlinucb_init_f32
#define isdb_dlinucb_init_preallocated isdb_dlinucb_init_preallocated_f32
#define isdb_dlinucb_tuned_gamma isdb_dlinucb_tuned_gamma_f32
#define isdb_env_next isdb_env_next_f32
#define isdb_env_reset isdb_env_reset_f32
#define isdb_env_reward isdb_env_reward_f32
#define isdb_env_uninit isdb_env_uninit_f32
#define isdb_feature_map_build isdb_feature_map_build_f32
#define isdb_feature_map_work_size isdb_feature_map_work_size_f32
#define isdb_init_check isdb_init_check_f32
#define isdb_isd_block_test isdb_isd_block_test_f32
#define isdb_isd_config_check isdb_isd_config_check_f32
#define isdb_isd_config_from_snapshot isdb_isd_config_from_snapshot_f32
#define isdb_isd_config_init isdb_isd_config_init_f32
#define isdb_isd_env_config_check isdb_isd_env_config_check_f32
#define isdb_isd_env_config_init isdb_isd_env_config_init_f32
#define isdb_isd_env_get_invariant_basis isdb_isd_env_get_invariant_basis_f32
#define isdb_isd_env_heap_size isdb_isd_env_heap_size_f32
#define isdb_isd_env_init isdb_isd_env_init_f32
#define isdb_isd_env_init_preallocated isdb_isd_env_init_preallocated_f32
#define isdb_isd_env_offline isdb_isd_env_offline_f32
#define isdb_isd_estimate isdb_isd_estimate_f32
#define isdb_isd_estimate_work_size isdb_isd_estimate_work_size_f32
#define isdb_isd_explain isdb_isd_explain_f32
#define isdb_isd_get_basis isdb_isd_get_basis_f32
#define isdb_isd_get_beta_inv isdb_isd_get_beta_inv_f32
#define isdb_isd_get_block_pvalues isdb_isd_get_block_pvalues_f32
#define isdb_isd_get_blocks isdb_isd_get_blocks_f32
#define isdb_isd_get_config isdb_isd_get_config_f32
#define isdb_isd_get_gamma isdb_isd_get_gamma_f32
#define isdb_isd_get_info isdb_isd_get_info_f32
#define isdb_isd_get_p_inv isdb_isd_get_p_inv_f32
#define isdb_isd_get_projector isdb_isd_get_projector_f32
#define isdb_isd_get_radii isdb_isd_get_radii_f32
#define isdb_isd_heap_size isdb_isd_heap_size_f32
#define isdb_isd_init isdb_isd_init_f32
#define isdb_isd_init_preallocated isdb_isd_init_preallocated_f32
#define isdb_isd_options_init isdb_isd_options_init_f32
#define isdb_isd_recompute isdb_isd_recompute_f32
#define isdb_jbd isdb_jbd_f32
#define isdb_jbd_blocks isdb_jbd_blocks_f32
#define isdb_jbd_options_init isdb_jbd_options_init_f32
#define isdb_jbd_work_size isdb_jbd_work_size_f32
#define isdb_kernel_env_config_check isdb_kernel_env_config_check_f32
#define isdb_kernel_env_config_init isdb_kernel_env_config_init_f32
#define isdb_kernel_env_drift isdb_kernel_env_drift_f32
#define isdb_kernel_env_heap_size isdb_kernel_env_heap_size_f32
#define isdb_kernel_env_init isdb_kernel_env_init_f32
#define isdb_kernel_env_init_preallocated isdb_kernel_env_init_preallocated_f32
#define isdb_kernel_gram isdb_kernel_gram_f32
#define isdb_linear_env_config_check isdb_linear_env_config_check_f32
#define isdb_linear_env_config_init isdb_linear_env_config_init_f32
#define isdb_linear_env_heap_size isdb_linear_env_heap_size_f32
#define isdb_linear_env_init isdb_linear_env_init_f32
#define isdb_linear_env_init_preallocated isdb_linear_env_init_preallocated_f32
#define isdb_lints_config_check isdb_lints_config_check_f32
#define isdb_lints_config_from_snapshot isdb_lints_config_from_snapshot_f32
#define isdb_lints_config_init isdb_lints_config_init_f32
#define isdb_lints_explain isdb_lints_explain_f32
#define isdb_lints_get_config isdb_lints_get_config_f32
#define isdb_lints_get_last_sample isdb_lints_get_last_sample_f32
#define isdb_lints_get_theta isdb_lints_get_theta_f32
#define isdb_lints_heap_size isdb_lints_heap_size_f32
#define isdb_lints_init isdb_lints_init_f32
#define isdb_lints_init_preallocated isdb_lints_init_preallocated_f32
#define isdb_linucb_config_check isdb_linucb_config_check_f32
#define isdb_linucb_config_from_snapshot isdb_linucb_config_from_snapshot_f32
#define isdb_linucb_config_init isdb_linucb_config_init_f32
#define isdb_linucb_explain isdb_linucb_explain_f32
#define isdb_linucb_get_beta isdb_linucb_get_beta_f32
#define isdb_linucb_get_config isdb_linucb_get_config_f32
#define isdb_linucb_get_theta isdb_linucb_get_theta_f32
#define isdb_linucb_heap_size isdb_linucb_heap_size_f32
#define isdb_linucb_init isdb_linucb_init_f32
#define isdb_linucb_init_preallocated isdb_linucb_init_preallocated_f32
#define isdb_lu isdb_lu_f32
#define isdb_lu_solve isdb_lu_solve_f32
#define isdb_oam_add_context isdb_oam_add_context_f32
#define isdb_oam_allocate isdb_oam_allocate_f32
#define isdb_oam_allocate_work_size isdb_oam_allocate_work_size_f32
#define isdb_oam_config_check isdb_oam_config_check_f32
#define isdb_oam_config_from_snapshot isdb_oam_config_from_snapshot_f32
#define isdb_oam_config_init isdb_oam_config_init_f32
#define isdb_oam_epsilon isdb_oam_epsilon_f32
#define isdb_oam_f isdb_oam_f_f32
#define isdb_oam_get_allocation isdb_oam_get_allocation_f32
#define isdb_oam_get_config isdb_oam_get_config_f32
#define isdb_oam_get_counts isdb_oam_get_counts_f32
#define isdb_oam_get_fn isdb_oam_get_fn_f32
#define isdb_oam_get_last_decision isdb_oam_get_last_decision_f32
#define isdb_oam_get_last_solve isdb_oam_get_last_solve_f32
#define isdb_oam_get_min_gap isdb_oam_get_min_gap_f32
#define isdb_oam_get_n_contexts isdb_oam_get_n_contexts_f32
#define isdb_oam_get_pulls isdb_oam_get_pulls_f32
#define isdb_oam_get_regret_constant isdb_oam_get_regret_constant_f32
#define isdb_oam_get_sublog isdb_oam_get_sublog_f32
#define isdb_oam_get_targets isdb_oam_get_targets_f32
#define isdb_oam_get_theta isdb_oam_get_theta_f32
#define isdb_oam_heap_size isdb_oam_heap_size_f32
#define isdb_oam_init isdb_oam_init_f32
#define isdb_oam_init_preallocated isdb_oam_init_preallocated_f32
#define isdb_oam_problem_init isdb_oam_problem_init_f32
#define isdb_oam_set_context isdb_oam_set_context_f32
#define isdb_opkb_config_check isdb_opkb_config_check_f32
#define isdb_opkb_config_from_snapshot isdb_opkb_config_from_snapshot_f32
#define isdb_opkb_config_init isdb_opkb_config_init_f32
#define isdb_opkb_config_preset isdb_opkb_config_preset_f32
#define isdb_opkb_get_alpha isdb_opkb_get_alpha_f32
#define isdb_opkb_get_block isdb_opkb_get_block_f32
#define isdb_opkb_get_block_length isdb_opkb_get_block_length_f32
#define isdb_opkb_get_config isdb_opkb_get_config_f32
#define isdb_opkb_get_design isdb_opkb_get_design_f32
#define isdb_opkb_get_epoch isdb_opkb_get_epoch_f32
#define isdb_opkb_get_epoch_start isdb_opkb_get_epoch_start_f32
#define isdb_opkb_get_feature_dim isdb_opkb_get_feature_dim_f32
#define isdb_opkb_get_features isdb_opkb_get_features_f32
#define isdb_opkb_get_gamma isdb_opkb_get_gamma_f32
#define isdb_opkb_get_gaps isdb_opkb_get_gaps_f32
#define isdb_opkb_get_last_test isdb_opkb_get_last_test_f32
#define isdb_opkb_get_replay_index isdb_opkb_get_replay_index_f32
#define isdb_opkb_get_restarts isdb_opkb_get_restarts_f32
#define isdb_opkb_get_solve_reports isdb_opkb_get_solve_reports_f32
#define isdb_opkb_get_strategy isdb_opkb_get_strategy_f32
#define isdb_opkb_get_tests isdb_opkb_get_tests_f32
#define isdb_opkb_heap_size isdb_opkb_heap_size_f32
#define isdb_opkb_init isdb_opkb_init_f32
#define isdb_opkb_init_preallocated isdb_opkb_init_preallocated_f32
#define isdb_opkb_kkt isdb_opkb_kkt_f32
#define isdb_opkb_solve isdb_opkb_solve_f32
#define isdb_opkb_solve_work_size isdb_opkb_solve_work_size_f32
#define isdb_orth_basis isdb_orth_basis_f32
#define isdb_orth_basis_work_size isdb_orth_basis_work_size_f32
#define isdb_polar isdb_polar_f32
#define isdb_polar_work_size isdb_polar_work_size_f32
#define isdb_policy_check_load isdb_policy_check_load_f32
#define isdb_policy_check_select isdb_policy_check_select_f32
#define isdb_policy_check_update isdb_policy_check_update_f32
#define isdb_policy_kind_name isdb_policy_kind_name_f32
#define isdb_policy_load isdb_policy_load_f32
#define isdb_policy_name isdb_policy_name_f32
#define isdb_policy_probs isdb_policy_probs_f32
#define isdb_policy_reset isdb_policy_reset_f32
#define isdb_policy_save isdb_policy_save_f32
#define isdb_policy_scores isdb_policy_scores_f32
#define isdb_policy_select isdb_policy_select_f32
#define isdb_policy_uninit isdb_policy_uninit_f32
#define isdb_policy_update isdb_policy_update_f32
#define isdb_qr isdb_qr_f32
#define isdb_qr_work_size isdb_qr_work_size_f32
#define isdb_result_string isdb_result_string_f32
#define isdb_rng_below isdb_rng_below_f32
#define isdb_rng_int isdb_rng_int_f32
#define isdb_rng_next isdb_rng_next_f32
#define isdb_rng_normal isdb_rng_normal_f32
#define isdb_rng_seed isdb_rng_seed_f32
#define isdb_rng_uniform isdb_rng_uniform_f32
#define isdb_sim_run isdb_sim_run_f32
#define isdb_snapshot_read_array isdb_snapshot_read_array_f32
#define isdb_snapshot_read_info isdb_snapshot_read_info_f32
#define isdb_swucb_config_check isdb_swucb_config_check_f32
#define isdb_swucb_config_from_snapshot isdb_swucb_config_from_snapshot_f32
#define isdb_swucb_config_init isdb_swucb_config_init_f32
#define isdb_swucb_explain isdb_swucb_explain_f32
#define isdb_swucb_get_beta isdb_swucb_get_beta_f32
#define isdb_swucb_get_config isdb_swucb_get_config_f32
#define isdb_swucb_get_theta isdb_swucb_get_theta_f32
#define isdb_swucb_heap_size isdb_swucb_heap_size_f32
#define isdb_swucb_init isdb_swucb_init_f32
#define isdb_swucb_init_preallocated isdb_swucb_init_preallocated_f32
#define isdb_swucb_tuned_window isdb_swucb_tuned_window_f32
#define isdb_sym_eig isdb_sym_eig_f32
#define isdb_traceucb_config_check isdb_traceucb_config_check_f32
#define isdb_traceucb_config_from_snapshot isdb_traceucb_config_from_snapshot_f32
#define isdb_traceucb_config_init isdb_traceucb_config_init_f32
#define isdb_traceucb_estimate isdb_traceucb_estimate_f32
#define isdb_traceucb_get_config isdb_traceucb_get_config_f32
#define isdb_traceucb_get_counts isdb_traceucb_get_counts_f32
#define isdb_traceucb_get_support isdb_traceucb_get_support_f32
#define isdb_traceucb_get_traces isdb_traceucb_get_traces_f32
#define isdb_traceucb_get_variances isdb_traceucb_get_variances_f32
#define isdb_traceucb_get_widths isdb_traceucb_get_widths_f32
#define isdb_traceucb_heap_size isdb_traceucb_heap_size_f32
#define isdb_traceucb_init isdb_traceucb_init_f32
#define isdb_traceucb_init_preallocated isdb_traceucb_init_preallocated_f32
#define isdb_traceucb_loss isdb_traceucb_loss_f32
#define isdb_traceucb_static_allocation isdb_traceucb_static_allocation_f32
#define isdb_tri_solve isdb_tri_solve_f32
#define isdb_version isdb_version_f32
#endif

#ifdef __cplusplus
extern "C" {
#endif

ISDB_API const char *isdb_version(void);

/* ---------------------------------------------------------------------------
   [RESULTS] Results
   ------------------------------------------------------------------------ */

/* Snapshot loads tell their failures apart (-10 .. -14); -9 was
   ISDB_ERR_FORMAT, the one code they all shared, and is retired (never
   returned, so code that tested for it does not compile rather than
   silently catch only some failures). */
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
    X(ISDB_ERR_SNAPSHOT_TRUNCATED, -10, "snapshot shorter than its header or its stated size") \
    X(ISDB_ERR_SNAPSHOT_CORRUPT, -11, "snapshot corrupt (magic, checksum or a value)")           \
    X(ISDB_ERR_SNAPSHOT_POLICY, -12, "snapshot of another policy")                               \
    X(ISDB_ERR_SNAPSHOT_CONFIG, -13, "snapshot of the same policy with another config")          \
    X(ISDB_ERR_SNAPSHOT_VERSION, -14, "snapshot of another format version or precision")

#define ISDB__RESULT_ENUM(name, value, text) name = value,
typedef enum isdb_result { ISDB_RESULT_LIST(ISDB__RESULT_ENUM) ISDB__RESULT_FORCE_INT = 0x7fffffff } isdb_result;
#undef ISDB__RESULT_ENUM

/* Text for a result code; "unknown result" for values not in the list. */
ISDB_API const char *isdb_result_string(isdb_result r);

/* What a refusal refused, for the config checks (isdb_<name>_config_check)
   and the argument checks below. field: the config member as spelled in
   its struct ("lambda", "window", "est.folds"), or the argument's name
   ("cfg", "pol", "heap", "X", "n_arms", "arm", "x", "reward", "out").
   lo, hi: the numeric valid range where there is one (computed from the
   config where it depends on another field, e.g. [1, d]), NaN otherwise.
   range: a short text such as "(0, 1)", "[1, d]", "finite", "non-NULL".
   Every string is static: nothing is allocated, nothing global is kept.
   A check that passes sets field and range to NULL, lo and hi to NaN. */
typedef struct isdb_refusal {
    const char *field;
    double lo, hi;
    const char *range;
} isdb_refusal;

/* ---------------------------------------------------------------------------
   Allocator. NULL wherever an allocator is asked for means ISDB_MALLOC and
   ISDB_FREE (with ISDB_NO_MALLOC: ISDB_ERR_INVALID_ARG). Both functions
   must be given; the object keeps a copy, so uninit needs nothing else.
   ------------------------------------------------------------------------ */

typedef struct isdb_allocator {
    void *(*alloc_fn)(size_t size, void *user);
    void (*free_fn)(void *ptr, void *user);
    void *user;
} isdb_allocator;

/* ---------------------------------------------------------------------------
   [RNG] Random numbers: xoshiro256** (Blackman and Vigna 2018), its four words
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
    isdb_real spare;
    int has_spare;
} isdb_rng;

ISDB_API void isdb_rng_seed(isdb_rng *rng, uint64_t seed);
ISDB_API uint64_t isdb_rng_next(isdb_rng *rng);
ISDB_API isdb_real isdb_rng_uniform(isdb_rng *rng);
ISDB_API isdb_real isdb_rng_normal(isdb_rng *rng);
/* Uniform integer in [0, n); 0 when n is 0. */
ISDB_API uint64_t isdb_rng_below(isdb_rng *rng, uint64_t n);
/* Uniform integer in [lo, hi] (inclusive); lo when hi < lo. */
ISDB_API int isdb_rng_int(isdb_rng *rng, int lo, int hi);

/* ---------------------------------------------------------------------------
   [LINALG] Dense linear algebra. Square matrices are n x n, row-major, contiguous.
   "Lower factor" means a lower-triangular L whose strict upper triangle is
   zero. Routines that take `work` state its size in reals (the
   isdb_*_work_size helpers). None allocates.
   ------------------------------------------------------------------------ */

/* Cholesky factorisation A = L L^T, in place. Reads the lower triangle of A
   (A is taken as symmetric) and overwrites A with the lower factor L.
   Fails with ISDB_ERR_NONFINITE if the lower triangle holds a NaN or Inf,
   and ISDB_ERR_NOT_SPD if a pivot is not above ISDB_REAL_EPSILON times its
   original diagonal entry (condition number beyond about 1e15; 1e7 in
   float). On failure the contents of A are unspecified. */
ISDB_API isdb_result isdb_chol(int n, isdb_real *A);
/* Solves L L^T x = b. x may alias b. */
ISDB_API void isdb_chol_solve(int n, const isdb_real *L, const isdb_real *b, isdb_real *x);
/* ln det(L L^T) = 2 sum ln L_ii. */
ISDB_API isdb_real isdb_chol_logdet(int n, const isdb_real *L);
/* Triangular solve with a lower factor: L x = b (trans 0) or L^T x = b
   (trans 1). x may alias b. */
ISDB_API void isdb_tri_solve(int n, const isdb_real *L, int trans, const isdb_real *b, isdb_real *x);
/* Rank-one update: L becomes the factor of L L^T + x x^T (Givens rotations,
   O(n^2)). work: isdb_chol_update_work_size(n) reals; x is not changed.
   Fails with ISDB_ERR_NONFINITE (L unspecified) only if the result
   overflows. */
ISDB_API isdb_result isdb_chol_update(int n, isdb_real *L, const isdb_real *x, isdb_real *work);
/* Rank-one downdate: L becomes the factor of L L^T - x x^T. The result is
   positive definite iff r = 1 - ||L^-1 x||^2 > 0, and r is the ratio of
   the determinants after and before; a downdate with r <= sqrt(ISDB_REAL_EPSILON)
   would lose more than half the significant digits and is refused with
   ISDB_ERR_NOT_SPD, leaving L unchanged. O(n^2). */
ISDB_API isdb_result isdb_chol_downdate(int n, isdb_real *L, const isdb_real *x, isdb_real *work);
ISDB_API size_t isdb_chol_update_work_size(int n);

/* Symmetric eigendecomposition by cyclic Jacobi rotations: A = V diag(w) V^T.
   Reads the lower triangle of A and destroys A. w (n) receives the
   eigenvalues in ascending order, V (n x n) the orthonormal eigenvectors as
   columns (V[i*n + k] is component i of eigenvector k). Returns
   ISDB_MAXITER_REACHED if 100 sweeps did not bring the off-diagonal mass
   below ISDB_REAL_EPSILON times the norm of A (the result is still usable). */
ISDB_API isdb_result isdb_sym_eig(int n, isdb_real *A, isdb_real *w, isdb_real *V);

/* Householder QR of the m x n matrix A (any m, n >= 1): A = Q R. On return
   A holds R (m x n, zero below the diagonal) and Q, if not NULL, the m x m
   orthogonal factor. Q must not alias A. work: isdb_qr_work_size(m, n). */
ISDB_API isdb_result isdb_qr(int m, int n, isdb_real *A, isdb_real *Q, isdb_real *work);
ISDB_API size_t isdb_qr_work_size(int m, int n);

/* Orthonormal basis of the column span of the m x n matrix A, by QR with
   column pivoting. Q (m x m) receives an orthogonal matrix whose first
   *rank columns span the columns of A and whose other m - *rank columns
   span the orthogonal complement. The rank counts the pivots |R_kk| above
   rtol |R_00| (rtol <= 0 means max(m, n) ISDB_REAL_EPSILON); a zero matrix has
   rank 0. A is not changed. work: isdb_orth_basis_work_size(m, n). */
ISDB_API isdb_result isdb_orth_basis(int m, int n, const isdb_real *A, isdb_real rtol, isdb_real *Q, int *rank,
                                     isdb_real *work);
ISDB_API size_t isdb_orth_basis_work_size(int m, int n);

/* LU factorisation with partial pivoting, P A = L U, in place: A receives
   the unit lower L (below the diagonal) and U; piv[k] is the row swapped
   with row k at step k. ISDB_ERR_SINGULAR if a pivot is below n
   ISDB_REAL_EPSILON times the largest entry of A (A is then unspecified). */
ISDB_API isdb_result isdb_lu(int n, isdb_real *A, int *piv);
/* Solves A X = B for the n x nrhs matrix B (row-major), in place. */
ISDB_API void isdb_lu_solve(int n, const isdb_real *LU, const int *piv, int nrhs, isdb_real *B);

/* Orthogonal polar factor: the orthogonal Q nearest to A (A = Q P with P
   symmetric positive definite), from a one-sided Jacobi SVD A = U S W^T as
   Q = U W^T. ISDB_ERR_SINGULAR if the smallest singular value is below
   n ISDB_REAL_EPSILON times the largest (the polar factor is then not unique).
   Q may alias A. work: isdb_polar_work_size(n). */
ISDB_API isdb_result isdb_polar(int n, const isdb_real *A, isdb_real *Q, isdb_real *work);
ISDB_API size_t isdb_polar_work_size(int n);

#if !ISDB_REAL_IS_FLOAT /* double only: see PRECISION */
#if ISDB__DECLARE_ALL || ISDB__HAS_JBD
/* ---------------------------------------------------------------------------
   [JBD] Joint block diagonalization (JBD). Given m symmetric p x p matrices
   C_1..C_m (stored one after the other, m p^2 doubles), find an orthogonal
   U (p x p, the basis vectors as COLUMNS) and a partition of its columns
   into contiguous blocks such that every U^T C_k U is (approximately) block
   diagonal. Two steps:
   1. An orthogonal approximate joint diagonalizer, starting from the
      eigenvectors of C_1:
        ISDB_JBD_JACOBI  Jacobi angles (Cardoso and Souloumiac 1996): sweeps
                         of plane rotations, each optimal for its pair of
                         columns, minimising sum_k ||off(U^T C_k U)||_{F}^2;
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
   off(tau) = mean_k ||C_k||_{F} for a single block, otherwise
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
     ISDB_JBD_SCALE_FROBENIUS    D_ij = max_k |S_k[i,j]| over ||D||_{F}, the
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
    double offdiag;   /* sqrt(sum_k ||off(U^T C_k U)||_{F}^2 / sum_k ||C_k||_{F}^2) after step 1 */
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
#endif /* ISDB__DECLARE_ALL || ISDB__HAS_JBD */

#endif /* !ISDB_REAL_IS_FLOAT */

/* ---------------------------------------------------------------------------
   [POLICY] The policy interface. Every policy struct starts with `isdb_policy base`;
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
    ISDB_POLICY_ADAPTIVE = 10,
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
    isdb_result (*select)(isdb_policy *p, const isdb_real *X, int n_arms, int *arm);
    isdb_result (*update)(isdb_policy *p, int arm, const isdb_real *x, isdb_real reward);
    isdb_result (*scores)(isdb_policy *p, const isdb_real *X, int n_arms, isdb_real *out);
    isdb_result (*probs)(isdb_policy *p, const isdb_real *X, int n_arms, isdb_real *out);
    /* Writes, checks or reads the state (one function for all three, so
       save and load cannot disagree), after the config block. */
    void (*serialize)(isdb_policy *p, isdb_ser *s);
    /* Back to the state right after init (the generic reset reseeds rng). */
    void (*reset)(isdb_policy *p);
    /* The config block: the policy's field list, walked on the config at
       cfg_offset in the policy (or on a config being filled from a
       snapshot, cfg_size bytes); arms_field names the arm count
       ("max_arms", "n_arms", "m"). */
    void (*walk_config)(isdb_ser *s, void *cfg);
    size_t cfg_offset;
    const char *arms_field;
    size_t cfg_size;
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
    size_t _object_size; /* sizeof the whole policy object (save refuses a buffer overlapping it) */
    int _owns_heap;
};

/* The argument checks of isdb_policy_select and of isdb_policy_update,
   alone: each takes the call's own arguments (check_select reads no *arm,
   only refuses arm == NULL as select does) and returns the code the call
   would return before running the policy, with in why (may be NULL) the
   argument refused ("pol", "arm", "n_arms", "X"; "pol", "arm", "x",
   "reward"). ISDB_OK means the call will run the policy. scores and probs
   make select's checks, naming their output "out". */
ISDB_API isdb_result isdb_policy_check_select(const isdb_policy *p, const isdb_real *X, int n_arms, const int *arm,
                                              isdb_refusal *why);
ISDB_API isdb_result isdb_policy_check_update(const isdb_policy *p, int arm, const isdb_real *x, isdb_real reward,
                                              isdb_refusal *why);
/* The checks every init_preallocated makes after the config's, needed
   being what heap_size reports: pol non-NULL ("pol"), then heap non-NULL
   and 8-byte aligned ("heap"), all ISDB_ERR_INVALID_ARG; then heap_bytes
   >= needed, else ISDB_ERR_BUFFER_TOO_SMALL naming "heap_bytes" with lo =
   needed. Every policy init makes the pol check; an environment's init
   refuses a NULL env before its config. Any refused init, of a policy or
   an environment, leaves a non-NULL object zeroed (writing nothing to the
   heap when it is too small): uninit is a no-op on it, and every generic
   call on it returns ISDB_ERR_BAD_STATE. */
ISDB_API isdb_result isdb_init_check(const void *heap, size_t heap_bytes, size_t needed, const void *pol,
                                     isdb_refusal *why);

/* Chooses an arm among the n_arms rows of X (n_arms x d). */
ISDB_API isdb_result isdb_policy_select(isdb_policy *p, const isdb_real *X, int n_arms, int *arm);
/* Learns from playing features x (d) as arm `arm` and observing reward. */
ISDB_API isdb_result isdb_policy_update(isdb_policy *p, int arm, const isdb_real *x, isdb_real reward);
/* out[k]: the index select maximises (UCB value), or for randomized
   policies the probability of arm k. Does not change the state. */
ISDB_API isdb_result isdb_policy_scores(isdb_policy *p, const isdb_real *X, int n_arms, isdb_real *out);
/* out[k]: the probability that select picks arm k now (one-hot for the
   deterministic policies: the arm select would return). No state change. */
ISDB_API isdb_result isdb_policy_probs(isdb_policy *p, const isdb_real *X, int n_arms, isdb_real *out);
/* Snapshot of the whole state. With buf NULL only *size is set (the bytes
   needed); with cap too small, ISDB_ERR_BUFFER_TOO_SMALL and *size. A
   buf overlapping the policy's heap or the policy object itself (one
   arena reused) is refused with ISDB_ERR_INVALID_ARG, the state
   unchanged. A policy whose init was refused: ISDB_ERR_BAD_STATE. */
ISDB_API isdb_result isdb_policy_save(const isdb_policy *p, void *buf, size_t cap, size_t *size);
/* Restores a snapshot written by a policy of the same kind and config.
   Anything else leaves p unchanged and returns the first of, in order:
     shorter than 32 bytes (header and
       checksum)                          ISDB_ERR_SNAPSHOT_TRUNCATED
     no "ISDB" magic                      ISDB_ERR_SNAPSHOT_CORRUPT
     another format version (the other
       precision's snapshots included),
       or a library version before 1.0.0  ISDB_ERR_SNAPSHOT_VERSION
     shorter than its stated size         ISDB_ERR_SNAPSHOT_TRUNCATED
     longer than it, or a bad checksum    ISDB_ERR_SNAPSHOT_CORRUPT
     another policy kind                  ISDB_ERR_SNAPSHOT_POLICY
     the same kind, another config        ISDB_ERR_SNAPSHOT_CONFIG
     a value no run reaches (a count
       above 2^62 or what the update
       count allows, a factor that does
       not match its sums...)             ISDB_ERR_SNAPSHOT_CORRUPT */
ISDB_API isdb_result isdb_policy_load(isdb_policy *p, const void *buf, size_t size);
/* What load would return, without changing p. For ISDB_ERR_SNAPSHOT_CONFIG
   why->field is the first config field that differs, by the name
   config_check gives it ("window", "gamma", ...; "X0", "arms", "Sigma"...
   for an input array); for another refusal
   why->field is "buf" (or "pol") and why->range the code's text. why may
   be NULL. */
ISDB_API isdb_result isdb_policy_check_load(const isdb_policy *p, const void *buf, size_t size, isdb_refusal *why);

/* What a snapshot holds, read without a policy object. */
typedef struct isdb_snapshot_info {
    isdb_policy_kind kind;    /* the policy that wrote it */
    int d, max_arms;          /* its dimension and arm count (OPKB's n_arms, Trace-UCB's m) */
    uint64_t seed;            /* its config's seed (0 for the deterministic policies) */
    uint64_t t;               /* updates so far */
    int format;               /* snapshot format: 1 for every 1.x release */
    int real_bytes;           /* bytes per real: 8 (double) or 4 (float) */
    uint32_t library_version; /* of the library that wrote it: major << 16 | minor << 8 | patch */
    size_t size;              /* bytes, header and checksum included */
} isdb_snapshot_info;
/* Fills info from buf after the checks load makes first (the frame: size,
   magic, format and precision, stated size, checksum), with their codes;
   on a refusal info is zeroed. The kind is not checked against anything:
   a kind this build does not compile is still reported. */
ISDB_API isdb_result isdb_snapshot_read_info(const void *buf, size_t size, isdb_snapshot_info *info);
/* Copies the input array `field` of a snapshot's config ("X0", "R0",
   "U_inv", "beta_inv", "arms", "gram", "Sigma", "weights", "noise_var":
   the fields config_from_snapshot leaves NULL) into out (cap reals) and
   sets *count to its length: 0 when the saved config had it NULL. With
   out NULL and cap 0, *count alone (then ISDB_ERR_BUFFER_TOO_SMALL if it
   is not 0); with cap too small, ISDB_ERR_BUFFER_TOO_SMALL and *count.
   ISDB_ERR_INVALID_ARG for a field the policy's config does not have,
   ISDB_ERR_SNAPSHOT_POLICY for a kind this build does not compile, and
   isdb_snapshot_read_info's codes. */
ISDB_API isdb_result isdb_snapshot_read_array(const void *buf, size_t size, const char *field, isdb_real *out,
                                              size_t cap, size_t *count);
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
    isdb_real lambda;
    isdb_real *L;        /* lower Cholesky factor of V */
    isdb_real *L_next;   /* scratch factor, swapped with L on commit */
    isdb_real *inv_diag; /* 1 / L_ii */
    isdb_real *V;        /* exact Gram matrix (lower triangle), or NULL */
    isdb_real *b;        /* sum of reward * x */
#if ISDB_REAL_IS_FLOAT
    isdb_real *V_lo;     /* with V: the rounding errors of the sums V and b, */
    isdb_real *b_lo;     /* carried along (compensated summation) */
#endif
    isdb_real *z;        /* L^-1 b: theta = L^-T z, and x.theta = (L^-1 x).z */
    isdb_real *work;     /* 2 d scratch */
    isdb_real *block;    /* 8 d scratch: four or eight arms' lanes (L^-1 x, ...) */
    isdb_real logdet;    /* ln det V */
} isdb__ridge;

#if ISDB__DECLARE_ALL || ISDB__HAS_LINUCB
/* ---------------------------------------------------------------------------
   [LINUCB] LinUCB / OFUL
   ------------------------------------------------------------------------ */

typedef struct isdb_linucb_config {
    int d;            /* feature dimension, 1..ISDB_MAX_DIM */
    int max_arms;     /* most arms per round, in [1, INT_MAX / d] */
    isdb_real lambda;    /* ridge, in [1e-30, 1e30] ([1e-6, 1e6] in float); default 1 */
    isdb_real delta;     /* confidence level, in [DBL_MIN, 1) ([FLT_MIN, 1) in float): not subnormal, so
                            1 / delta is finite; default 0.01 */
    isdb_real R;         /* sub-Gaussian noise scale, in [0, 1e30] ([0, 1e6] in float; beyond, the
                            scores overflow); default 1 */
    isdb_real S;         /* bound on ||theta||, in [0, 1e30] ([0, 1e6] in float); default 1 */
    isdb_real L;         /* bound on ||x||, in (0, 1e30] ((0, 1e6] in float); default 1 */
    isdb_real alpha;     /* multiplier of the width, in [0, 1e30] ([0, 1e6] in float); default 1 */
    isdb_width width; /* default ISDB_WIDTH_LOGDET */
    int refresh;      /* refactorise every this many updates, >= 0; 0 means max(4d, 256) */
} isdb_linucb_config;

typedef struct isdb_linucb {
    isdb_policy base;
    isdb_linucb_config cfg; /* resolved config */
    isdb__ridge _ridge;
} isdb_linucb;

ISDB_API isdb_linucb_config isdb_linucb_config_init(int d, int max_arms);
/* ISDB_OK, or the code heap_size and init return for this config (the
   same check), with the first field refused and its range in why (may be
   NULL). Every policy and environment config has one. */
ISDB_API isdb_result isdb_linucb_config_check(const isdb_linucb_config *cfg, isdb_refusal *why);
ISDB_API isdb_result isdb_linucb_heap_size(const isdb_linucb_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_linucb_init(const isdb_linucb_config *cfg, const isdb_allocator *alloc, isdb_linucb *pol);
/* On heap, a caller buffer of heap_bytes, 8-byte aligned: below what
   heap_size reports, ISDB_ERR_BUFFER_TOO_SMALL and nothing written (see
   isdb_init_check). Every policy has the same pair of inits. */
ISDB_API isdb_result isdb_linucb_init_preallocated(const isdb_linucb_config *cfg, void *heap, size_t heap_bytes,
                                                   isdb_linucb *pol);
ISDB_API const isdb_linucb_config *isdb_linucb_get_config(const isdb_linucb *pol);
/* The config a snapshot of this policy was saved with (the resolved one),
   so that init with it, then load, continues the saved run. Array fields
   are NULL: isdb_snapshot_read_array copies them. Codes:
   isdb_snapshot_read_info's, then
   ISDB_ERR_SNAPSHOT_POLICY, ISDB_ERR_SNAPSHOT_VERSION for the other
   precision, ISDB_ERR_SNAPSHOT_CORRUPT for a config block out of range. */
ISDB_API isdb_result isdb_linucb_config_from_snapshot(const void *buf, size_t size, isdb_linucb_config *cfg);
/* The current estimate theta (d). */
ISDB_API void isdb_linucb_get_theta(const isdb_linucb *pol, isdb_real *theta);
/* beta of the next round, alpha included. */
ISDB_API isdb_real isdb_linucb_get_beta(const isdb_linucb *pol);
/* For features x: *mean = x.theta and *bonus = beta ||x||_{V^-1}, the two
   parts of the score. Either output may be NULL. */
ISDB_API isdb_result isdb_linucb_explain(isdb_linucb *pol, const isdb_real *x, isdb_real *mean, isdb_real *bonus);
#endif /* ISDB__DECLARE_ALL || ISDB__HAS_LINUCB */

#if ISDB__DECLARE_ALL || ISDB__HAS_SWUCB
/* ---------------------------------------------------------------------------
   [SWUCB] SW-UCB (sliding-window LinUCB)
   ------------------------------------------------------------------------ */

typedef struct isdb_swucb_config {
    int d, max_arms;
    int window;       /* w observations, in [1, INT_MAX / (d + 1)] */
    /* lambda, delta, R, S, L and alpha: the ranges of isdb_linucb_config */
    isdb_real lambda;    /* default 1 */
    isdb_real delta;     /* default 0.01 (the paper's proofs use 1/T) */
    isdb_real R, S, L;   /* default 1 each */
    isdb_real alpha;     /* default 1 */
    isdb_width width; /* default ISDB_WIDTH_LOGDET (measured); ISDB_WIDTH_SIMPLE is eq. 5 of the paper */
    int refresh;      /* rebuild from the window every this many updates, >= 0; 0 means max(w, d) */
} isdb_swucb_config;

typedef struct isdb_swucb {
    isdb_policy base;
    isdb_swucb_config cfg;
    int count;           /* observations in the window */
    int head;            /* ring slot of the oldest observation */
    uint64_t rebuilds;   /* exact rebuilds so far (refused downdates included) */
    uint64_t refusals;   /* downdates refused so far */
    isdb__ridge _ridge;
    isdb_real *_ring_x;     /* window x d */
    isdb_real *_ring_y;     /* window */
} isdb_swucb;

ISDB_API isdb_swucb_config isdb_swucb_config_init(int d, int max_arms, int window);
ISDB_API isdb_result isdb_swucb_config_check(const isdb_swucb_config *cfg, isdb_refusal *why);
ISDB_API isdb_result isdb_swucb_heap_size(const isdb_swucb_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_swucb_init(const isdb_swucb_config *cfg, const isdb_allocator *alloc, isdb_swucb *pol);
ISDB_API isdb_result isdb_swucb_init_preallocated(const isdb_swucb_config *cfg, void *heap, size_t heap_bytes,
                                                  isdb_swucb *pol);
ISDB_API const isdb_swucb_config *isdb_swucb_get_config(const isdb_swucb *pol);
/* As isdb_linucb_config_from_snapshot. */
ISDB_API isdb_result isdb_swucb_config_from_snapshot(const void *buf, size_t size, isdb_swucb_config *cfg);
ISDB_API void isdb_swucb_get_theta(const isdb_swucb *pol, isdb_real *theta);
ISDB_API isdb_real isdb_swucb_get_beta(const isdb_swucb *pol);
ISDB_API isdb_result isdb_swucb_explain(isdb_swucb *pol, const isdb_real *x, isdb_real *mean, isdb_real *bonus);

/* Window sizes of Cheung et al., clamped to [1, T]:
     ISDB_WINDOW_KNOWN     floor(d^(2/3) T^(2/3) B_T^(-2/3))     (section 5.1; B_T > 0)
     ISDB_WINDOW_EQ12      floor((d T)^(2/3) (B_T + 1)^(-2/3))   (eq. 12; B_T >= 0)
     ISDB_WINDOW_AGNOSTIC  floor((d T)^(2/3))                    (B_T unknown)
   With ISDB_WINDOW_AGNOSTIC, B_T is not read: any value is accepted (0,
   negative, NaN or infinite alike; pass 0) and the window is the same. */
typedef enum isdb_window_rule {
    ISDB_WINDOW_KNOWN = 0,
    ISDB_WINDOW_EQ12 = 1,
    ISDB_WINDOW_AGNOSTIC = 2,
    ISDB__WINDOW_FORCE_INT = 0x7fffffff
} isdb_window_rule;
ISDB_API isdb_result isdb_swucb_tuned_window(isdb_window_rule rule, int d, isdb_real T, isdb_real B_T, int *window);
#endif /* ISDB__DECLARE_ALL || ISDB__HAS_SWUCB */

#if ISDB__DECLARE_ALL || ISDB__HAS_DLINUCB
/* ---------------------------------------------------------------------------
   [DLINUCB] D-LinUCB (discounted LinUCB)
   ------------------------------------------------------------------------ */

typedef struct isdb_dlinucb_config {
    int d, max_arms;
    isdb_real gamma;     /* discount, in (0, 1) and at least 1e-50^(1 / ceil(d / 4)) (1e-6^(...) in
                            float): a memory 1 / (1 - gamma) of about d / 460 (d / 55) or more */
    /* lambda, delta, R, S, L and alpha: the ranges of isdb_linucb_config */
    isdb_real lambda;    /* default 1 */
    isdb_real delta;     /* default 0.01 */
    isdb_real R;         /* sub-Gaussian noise scale; default 1 */
    isdb_real S, L;      /* bounds on ||theta|| and ||x||; default 1 each */
    isdb_real alpha;     /* default 1 */
    int refresh;         /* refactorise V every this many updates, >= 0; 1: every update (the
                            paper's exact factor, O(d^3) each); 0 means max(4 d, 256) */
} isdb_dlinucb_config;

typedef struct isdb_dlinucb {
    isdb_policy base;
    isdb_dlinucb_config cfg;
    isdb_real *_gram, *_gram_next; /* V (lower triangle) and its next value */
    isdb_real *_gram_tilde, *_gram_tilde_next; /* V-tilde (lower triangle) */
    isdb_real *_chol, *_chol_next; /* Cholesky factor of V */
    isdb_real *_inv_diag;       /* 1 / L_ii */
    isdb_real *_b, *_b_next;
    isdb_real *_z;              /* L^-1 b */
    isdb_real *_work;           /* 8 d: four or eight arms' lanes (select), or L^-1 x and V^-1 x (explain) */
} isdb_dlinucb;

/* Every update with valid input is taken (ISDB_OK). Between
   refactorisations (every `refresh` updates) the factor of V follows by
   cheaper steps: discounted rank-one, and the ridge's padding, which is
   full rank, a group of coordinates per update in turn (the manual's
   D-LINUCB block); with refresh = 1, V is refactorised each update (the
   paper's exact V^-1). When rounding leaves the stored Gram sum without a
   positive pivot (features far from unit scale along nearly one direction:
   norm 1e6 in double, far less in float) the factor is carried by Givens
   rotations of the previous one instead, which cannot fail; inputs whose
   Gram sum factors take the same bits as before. */
ISDB_API isdb_dlinucb_config isdb_dlinucb_config_init(int d, int max_arms, isdb_real gamma);
ISDB_API isdb_result isdb_dlinucb_config_check(const isdb_dlinucb_config *cfg, isdb_refusal *why);
ISDB_API isdb_result isdb_dlinucb_heap_size(const isdb_dlinucb_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_dlinucb_init(const isdb_dlinucb_config *cfg, const isdb_allocator *alloc,
                                       isdb_dlinucb *pol);
ISDB_API isdb_result isdb_dlinucb_init_preallocated(const isdb_dlinucb_config *cfg, void *heap, size_t heap_bytes,
                                                    isdb_dlinucb *pol);
ISDB_API const isdb_dlinucb_config *isdb_dlinucb_get_config(const isdb_dlinucb *pol);
/* As isdb_linucb_config_from_snapshot. */
ISDB_API isdb_result isdb_dlinucb_config_from_snapshot(const void *buf, size_t size, isdb_dlinucb_config *cfg);
ISDB_API void isdb_dlinucb_get_theta(const isdb_dlinucb *pol, isdb_real *theta);
ISDB_API isdb_real isdb_dlinucb_get_beta(const isdb_dlinucb *pol);
/* *mean = x.theta, *bonus = beta ||V^-1 x||_{Vt}. Either may be NULL. */
ISDB_API isdb_result isdb_dlinucb_explain(isdb_dlinucb *pol, const isdb_real *x, isdb_real *mean, isdb_real *bonus);
/* gamma = 1 - (B_T / (d T))^(2/3), the tuning of Russac et al.; needs
   0 < B_T < d T. */
ISDB_API isdb_result isdb_dlinucb_tuned_gamma(int d, isdb_real T, isdb_real B_T, isdb_real *gamma);
#endif /* ISDB__DECLARE_ALL || ISDB__HAS_DLINUCB */

#if ISDB__DECLARE_ALL || ISDB__HAS_LINTS
/* ---------------------------------------------------------------------------
   [LINTS] Linear Thompson sampling
   ------------------------------------------------------------------------ */

typedef enum isdb_lints_inflation {
    ISDB_LINTS_THEORY = 0,
    ISDB_LINTS_NONE = 1,
    ISDB__LINTS_FORCE_INT = 0x7fffffff
} isdb_lints_inflation;

typedef struct isdb_lints_config {
    int d, max_arms;
    isdb_real lambda;                  /* default 1 */
    isdb_real R;                       /* noise scale, in [0, 1e30] ([0, 1e6] in float); default 1 */
    isdb_lints_inflation inflation; /* default ISDB_LINTS_NONE (THEORY: the paper's) */
    isdb_real epsilon;                 /* THEORY only, in [1e-30, 1] ([1e-6, 1] in float), so that the
                                          sampling scale R sqrt(24 / epsilon d ln(1 / delta)) is
                                          finite for every R, d and delta; default 0.5 */
    isdb_real delta;                   /* THEORY only, in [DBL_MIN, 1) ([FLT_MIN, 1)); default 0.01 */
    uint64_t seed;                  /* default 1 */
    int mc_samples;                 /* draws behind probs and scores; default 1000 */
    int refresh;                    /* as LinUCB; 0 means max(4d, 256) */
} isdb_lints_config;

typedef struct isdb_lints {
    isdb_policy base;
    isdb_lints_config cfg;
    isdb_real v;              /* scale of the sampling covariance */
    isdb__ridge _ridge;
    isdb_real *_sample;       /* theta~ of the last select */
    isdb_real *_scratch;      /* d, for probs */
} isdb_lints;

ISDB_API isdb_lints_config isdb_lints_config_init(int d, int max_arms);
ISDB_API isdb_result isdb_lints_config_check(const isdb_lints_config *cfg, isdb_refusal *why);
ISDB_API isdb_result isdb_lints_heap_size(const isdb_lints_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_lints_init(const isdb_lints_config *cfg, const isdb_allocator *alloc, isdb_lints *pol);
ISDB_API isdb_result isdb_lints_init_preallocated(const isdb_lints_config *cfg, void *heap, size_t heap_bytes,
                                                  isdb_lints *pol);
ISDB_API const isdb_lints_config *isdb_lints_get_config(const isdb_lints *pol);
/* As isdb_linucb_config_from_snapshot. */
ISDB_API isdb_result isdb_lints_config_from_snapshot(const void *buf, size_t size, isdb_lints_config *cfg);
ISDB_API void isdb_lints_get_theta(const isdb_lints *pol, isdb_real *theta);
/* The theta~ drawn by the last select (zeros before the first). */
ISDB_API void isdb_lints_get_last_sample(const isdb_lints *pol, isdb_real *theta);
/* *mean = x.theta, *bonus = v ||x||_{V^-1}: the mean and the standard
   deviation of the sampled score x.theta~ (LinTS has no index; its
   scores are selection probabilities). Either may be NULL. */
ISDB_API isdb_result isdb_lints_explain(isdb_lints *pol, const isdb_real *x, isdb_real *mean, isdb_real *bonus);
#endif /* ISDB__DECLARE_ALL || ISDB__HAS_LINTS */

#if ISDB__DECLARE_ALL || ISDB__HAS_BOB
/* ---------------------------------------------------------------------------
   [BOB] BOB (bandit over bandit: EXP3 over the window of a restarted SW-UCB)
   ------------------------------------------------------------------------ */

/* Most windows BOB can have: H <= INT_MAX gives Delta = ceil(ln H) <= 22. */
#define ISDB_BOB_MAX_WINDOWS 24

/* The parameters of Cheung et al. eq. 22-25; they depend on d, T, R and
   reward_bound only (never on B_T). */
typedef struct isdb_bob_params {
    int H;             /* block length floor(d^(2/3) T^(1/2)), clamped to [1, T] */
    int Delta;         /* ceil(ln H); 0 when H = 1 */
    int n_windows;     /* |J| = Delta + 1 */
    int windows[ISDB_BOB_MAX_WINDOWS]; /* J: floor(H^(j/Delta)), j = 0..Delta (duplicates kept); {1} if H = 1 */
    uint64_t blocks;   /* ceil(T / H), the blocks of the horizon */
    isdb_real gamma;      /* EXP3 rate min(1, sqrt(n ln n / ((e - 1) blocks))), n = Delta + 1; 0 if n = 1 */
    isdb_real normaliser; /* 2 H reward_bound + 4 R sqrt(H ln(T / sqrt(H))) */
} isdb_bob_params;

/* The parameters for dimension d, horizon T >= 1, noise scale R >= 0 and
   reward bound > 0 (1 in the paper). ISDB_ERR_INVALID_ARG if H would
   exceed INT_MAX. */
ISDB_API isdb_result isdb_bob_tuned_params(int d, uint64_t T, isdb_real R, isdb_real reward_bound, isdb_bob_params *par);

typedef struct isdb_bob_config {
    int d, max_arms;
    uint64_t T;          /* horizon, >= 2: H, J, gamma and delta = 1/T depend on it */
    /* lambda, R, S, L and alpha: the ranges of isdb_linucb_config */
    isdb_real lambda;       /* ridge of each block's SW-UCB; default 1 */
    isdb_real R, S, L;      /* noise scale, bounds on ||theta|| and ||x||; default 1 each */
    isdb_real alpha;        /* multiplier of the SW-UCB width; default 1 (the paper's) */
    isdb_real reward_bound; /* bound on |x.theta| used to rescale block rewards, in [1e-30, 1e30]
                               ([1e-20, 1e20] in float); default 1 */
    int clip;            /* 1: clip each rescaled block reward to [0, 1]; 0 or 1, default 0 (the paper
                            does not) */
    uint64_t seed;       /* generator of the window draws; default 1 */
    int refresh;         /* SW-UCB rebuild period, >= 0; 0 means max(w, d), as SW-UCB */
} isdb_bob_config;

typedef struct isdb_bob {
    isdb_policy base;
    isdb_bob_config cfg;
    isdb_bob_params par;
    uint64_t block;   /* index of the current block, from 0 */
    int block_len;    /* its length: H, or what is left of the horizon */
    int in_block;     /* rounds of it already updated */
    int drawn;        /* 1 once its window has been drawn */
    int j;            /* window index of the current block (of the last one before the draw) */
    isdb_real block_sum; /* sum of the rewards of the current block */
    isdb_real *_logw;    /* EXP3 log-weights (n_windows), shifted so the largest is 0 */
    isdb_real *_p;       /* the master distribution of the current block (n_windows) */
    void *_sw_heap;   /* heap of the block's SW-UCB, sized for window H */
    size_t _sw_heap_bytes;
    isdb_swucb sw;    /* the current block's SW-UCB (fresh until the block's first update) */
} isdb_bob;

ISDB_API isdb_bob_config isdb_bob_config_init(int d, int max_arms, uint64_t T);
ISDB_API isdb_result isdb_bob_config_check(const isdb_bob_config *cfg, isdb_refusal *why);
ISDB_API isdb_result isdb_bob_heap_size(const isdb_bob_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_bob_init(const isdb_bob_config *cfg, const isdb_allocator *alloc, isdb_bob *pol);
ISDB_API isdb_result isdb_bob_init_preallocated(const isdb_bob_config *cfg, void *heap, size_t heap_bytes,
                                                isdb_bob *pol);
ISDB_API const isdb_bob_config *isdb_bob_get_config(const isdb_bob *pol);
/* As isdb_linucb_config_from_snapshot. */
ISDB_API isdb_result isdb_bob_config_from_snapshot(const void *buf, size_t size, isdb_bob_config *cfg);
/* H, Delta, J, the block count, the EXP3 rate and the normaliser. */
ISDB_API const isdb_bob_params *isdb_bob_get_params(const isdb_bob *pol);
/* Index of the current block, from 0 (block i of the paper is index i - 1). */
ISDB_API uint64_t isdb_bob_get_block(const isdb_bob *pol);
/* Window of the current block, or 0 if it has not been drawn yet (the
   block's first select or update draws it). */
ISDB_API int isdb_bob_get_window(const isdb_bob *pol);
/* Index j of that window in J (windows[j]), or -1 before the draw. */
ISDB_API int isdb_bob_get_window_index(const isdb_bob *pol);
/* The EXP3 distribution (n_windows values) the current block's window is,
   or was, drawn from: p_j = (1 - gamma) s_j / sum s + gamma / n_windows. */
ISDB_API void isdb_bob_get_master_probs(const isdb_bob *pol, isdb_real *p);
/* The EXP3 log-weights ln s_j (n_windows values), shifted so the largest
   is 0 (p does not change under a common shift). */
ISDB_API void isdb_bob_get_log_weights(const isdb_bob *pol, isdb_real *logw);
/* The current block's SW-UCB, for its getters (theta, beta). */
ISDB_API const isdb_swucb *isdb_bob_get_swucb(const isdb_bob *pol);
/* The current block's SW-UCB's explain: x's score is *mean + *bonus.
   ISDB_ERR_BAD_STATE before the block's window is drawn (its first select
   or update), when scores are the windows' mixture, not an index. */
ISDB_API isdb_result isdb_bob_explain(isdb_bob *pol, const isdb_real *x, isdb_real *mean, isdb_real *bonus);
#endif /* ISDB__DECLARE_ALL || ISDB__HAS_BOB */

#if ISDB__DECLARE_ALL || ISDB__HAS_ADAPTIVE
/* ---------------------------------------------------------------------------
   [ADAPTIVE] Adaptive (the drift-agnostic default: windows learned from the data)
   ------------------------------------------------------------------------ */

/* Most estimators an adaptive policy keeps: the memories from min_memory
   to max_memory (memory_ratio apart) and the unbounded one. */
#define ISDB_ADAPTIVE_MAX_ESTIMATORS 32
/* How many distinct played features the policy remembers to tell a fixed
   arm set from fresh contexts (ISDB_ADAPTIVE_CUT_AUTO). */
#define ISDB_ADAPTIVE_SEEN 16

/* What a detected change forgets (isdb_adaptive_config.cut). */
typedef enum isdb_adaptive_cut {
    ISDB_ADAPTIVE_CUT_AUTO = 0,      /* default: DIRECTION, the longest memory played, while the played
                                        features recur (a fixed arm set: items, one-hot arms), else FULL
                                        (fresh contexts) */
    ISDB_ADAPTIVE_CUT_DIRECTION = 1, /* the longer memories forget only along the direction in which
                                        the recent observations say theta moved */
    ISDB_ADAPTIVE_CUT_FULL = 2,      /* the longer memories restart from the shorter one's estimate
                                        (0.3.0) */
    ISDB__ADAPTIVE_CUT_FORCE_INT = 0x7fffffff
} isdb_adaptive_cut;

/* The noise scale in the widths (isdb_adaptive_config.noise_estimate). */
typedef enum isdb_adaptive_noise {
    ISDB_ADAPTIVE_NOISE_OFF = 0,    /* R */
    ISDB_ADAPTIVE_NOISE_POOLED = 1, /* the smaller of R and a bound from the errors pooled over every
                                       observation (0.5.0's default) */
    ISDB_ADAPTIVE_NOISE_LOCAL = 2,  /* default: per arm, the smaller of R and a bound from the errors of
                                       the observations along the arm's direction */
    ISDB__ADAPTIVE_NOISE_FORCE_INT = 0x7fffffff
} isdb_adaptive_noise;

typedef struct isdb_adaptive_config {
    int d, max_arms;
    /* lambda, R, delta, S, L and alpha: the ranges of isdb_linucb_config */
    isdb_real lambda;         /* ridge; default 1 */
    isdb_real R;              /* sub-Gaussian noise scale; default 1 */
    isdb_real delta;          /* confidence level of the width; default 0.01 */
    isdb_real S, L;           /* bounds on ||theta|| and ||x||; default 1 each */
    isdb_real alpha;          /* multiplier of the width; default 1 */
    int min_memory;        /* shortest memory 1 / (1 - gamma), >= 2; 0 means max(16, 2 d) */
    int max_memory;        /* longest finite memory, >= min_memory; 0 means max(4096, min_memory) */
    isdb_real memory_ratio;   /* ratio between consecutive memories, in (1, 1e6]; default 2 (1.1.0;
                              a 1.0.0 snapshot reads as 2) */
    isdb_real threshold;      /* z at which the change test cuts the memory, > 0, finite; default 3.5 */
    isdb_real play_threshold; /* z at which a shorter memory is played, >= 0, finite; default 1.5 */
    int refresh;           /* refactorise every this many updates, >= 0; 0 means max(4 d, 256) */
    isdb_adaptive_noise noise_estimate; /* the noise scale in the widths; default
                              ISDB_ADAPTIVE_NOISE_LOCAL */
    isdb_adaptive_cut cut; /* default ISDB_ADAPTIVE_CUT_AUTO */
    int hold;              /* 1 (default): with fresh contexts, no cut and the longest memory
                              played while the long-run estimate, rescaled, predicts better than
                              the memory that would play (only the rewards' scale moves, which
                              ranks no arm differently); 0: 0.6.0's policy */
    int play_horizon;      /* the play rule weighs a pair's evidence over this many times the
                              shorter memory, in [0, 1024]; 0 means 4; 1: over the shorter memory,
                              the change test's sums (0.7.0's play rule) */
    int kalman;            /* random-walk Kalman estimators beside the memories, in [0, 8]; default
                              2 (1.1.0; a 1.0.0 snapshot reads as 0, 1.0.0's policy) */
    isdb_real kalman_q;       /* the first one's process variance a round (V^-1 units), in (0, 1];
                              default 3e-4; each next one's sqrt(10) times the previous */
    isdb_real kalman_width;   /* factor of the width while one plays, as alpha's range; default 0.1 */
} isdb_adaptive_config;

/* One discounted ridge estimator (private). */
typedef struct isdb__adaptive_est {
    int memory;   /* 1 / (1 - gamma); 0: unbounded (gamma = 1) */
    int count;    /* observations it holds: updates since the reset, or since a cut
                     plus the memory it was cut to (saturates at INT_MAX) */
    isdb_real gamma; /* discount */
    isdb_real log_gamma; /* ln gamma: each discounted step adds d ln gamma to ln det V */
    isdb_real play_gamma; /* 1 - 1 / (play_horizon memory): the play rule's discount of the
                             pairs in which this is the shorter memory (finite memories) */
    isdb__ridge ridge;
    isdb_real *Vt;   /* the gamma^2-discounted Gram sum of D-LinUCB's width; NULL if unbounded */
    isdb_real *W;    /* NOISE_LOCAL: lambda R^2 I + the gamma-discounted sum of e^2 x x^T, e its own
                        prediction error of each observation; NULL otherwise */
} isdb__adaptive_est;

typedef struct isdb_adaptive {
    isdb_policy base;
    isdb_adaptive_config cfg; /* resolved config */
    int n_est;                /* estimators, shortest memory first, the unbounded one last */
    int played;               /* the estimator select plays */
    uint64_t changes;         /* times the change test cut the memory */
    isdb__adaptive_est *_est;  /* n_est, on the heap (a small struct, a small heap_size frame) */
    isdb_real *_pred;            /* n_est predictions of the observation being learned */
    isdb_real *_sum, *_sq;       /* n_est x n_est: the test's discounted sums (pairs i < j) */
    isdb_real *_gap;             /* n_est x n_est: discounted sums of (pred_i - pred_j)^2 (pairs i < j) */
    isdb_real *_err;             /* n_est + 1: long-run sums of each squared error, then their weight */
    isdb_real *_play_sum, *_play_sq, *_play_gap; /* n_est x n_est each: the play rule's S, Q and G,
                                                    discounted by play_gamma (pairs i < j); NULL with
                                                    play_horizon 1 (the test's sums serve) */
    isdb_real recur;             /* discounted share (over min_memory) of updates whose x is one of
                                    the last ISDB_ADAPTIVE_SEEN distinct ones played */
    uint64_t seen[ISDB_ADAPTIVE_SEEN]; /* their hashes, a ring */
    int seen_next;               /* the ring's next slot */
    isdb_real _log_inv_delta, _log_lambda; /* ln(1/delta) and ln lambda, the widths' constants, taken
                                              at init (four logarithms a select took 13% of its time
                                              at d = 2) */
    /* hold (unused without it, but for normal with play_horizon 1) */
    int normal;                  /* the estimator the play rule picks on the change test's sums:
                                    hold's comparison, and what plays with play_horizon 1 (not
                                    updated with play_horizon > 1 and hold 0, where nothing reads it) */
    isdb_real evidence;          /* discounted sum of the clipped (rescaled error)^2 - (normal's error)^2 */
    isdb__ridge hold_ridge;      /* the long-run ridge of every observation, never cut */
    isdb_real *_fit;             /* 3 (n_est - 1): per finite memory q, the discounted (by q's gamma)
                                    sums of s^2 and s y, s = x.theta_long, then the squared errors of
                                    c_q s, c_q = max(0, sum s y / sum s^2) */
    int upper_dirty;             /* updates left whose rank-one steps write the factors' upper
                                    triangles' zeros (2 after a reset, a load, a cut or a failed
                                    refactorisation; isdb__adaptive_learn) */
    /* the Kalman estimators (cfg.kalman of them; none laid out with 0) */
    int kalman_played;           /* the one select plays, or -1 (a memory plays: `played`) */
    int kalman_count;            /* updates since the reset (saturates at INT_MAX) */
    isdb_real *_k_theta;         /* kalman x d estimates */
    isdb_real *_k_P;             /* kalman x d x d covariances, symmetric, stored whole */
    isdb_real *_k_err;           /* kalman discounted squared prediction errors */
    isdb_real *_k_sum, *_k_sq, *_k_gap; /* kalman x n_est: the play rule's S, Q and G of each
                                           Kalman estimator against each memory */
    isdb_real *_k_work;          /* d scratch */
} isdb_adaptive;

ISDB_API isdb_adaptive_config isdb_adaptive_config_init(int d, int max_arms);
ISDB_API isdb_result isdb_adaptive_config_check(const isdb_adaptive_config *cfg, isdb_refusal *why);
ISDB_API isdb_result isdb_adaptive_heap_size(const isdb_adaptive_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_adaptive_init(const isdb_adaptive_config *cfg, const isdb_allocator *alloc,
                                        isdb_adaptive *pol);
ISDB_API isdb_result isdb_adaptive_init_preallocated(const isdb_adaptive_config *cfg, void *heap, size_t heap_bytes,
                                                     isdb_adaptive *pol);
ISDB_API const isdb_adaptive_config *isdb_adaptive_get_config(const isdb_adaptive *pol);
/* As isdb_linucb_config_from_snapshot. */
ISDB_API isdb_result isdb_adaptive_config_from_snapshot(const void *buf, size_t size, isdb_adaptive_config *cfg);
/* The estimate theta (d) select plays from: the played memory's, or the
   playing Kalman estimator's (isdb_adaptive_get_kalman). */
ISDB_API void isdb_adaptive_get_theta(const isdb_adaptive *pol, isdb_real *theta);
/* beta of the next round, alpha included: alpha (sqrt(lambda) S + R' B)
   with R' = min(R, R_pool) (OFF: R). With NOISE_LOCAL each arm's width
   has its own, smaller factor (R_x B and the ridge term lambda S |V^-1
   x|, header manual), at most this beta times ||x||_w. While a Kalman
   estimator plays, the played memory's beta: the width is kalman_width
   times it times sqrt(x'Px). */
ISDB_API isdb_real isdb_adaptive_get_beta(const isdb_adaptive *pol);
/* *mean = x.theta, *bonus = beta ||x||_{V^-1} (a Kalman estimator's
   while one plays: its x.theta and width); either may be NULL. */
ISDB_API isdb_result isdb_adaptive_explain(isdb_adaptive *pol, const isdb_real *x, isdb_real *mean, isdb_real *bonus);
/* One estimator, as isdb_adaptive_get_estimator describes it. */
typedef struct isdb_adaptive_estimator_info {
    int memory;      /* nominal memory 1 / (1 - gamma); 0 for the undiscounted one */
    isdb_real gamma; /* its discount; 1 for the undiscounted one */
    int count;       /* observations its estimate holds: updates since the reset,
                        or since the cut that restarted it plus what it took over
                        (min(count, memory) of the estimator it was cut to);
                        saturates at INT_MAX */
    int effective;   /* its effective memory in rounds: min(memory, count) (a
                        discount gamma weighs about the last 1 / (1 - gamma)
                        observations), or count for the undiscounted one (it
                        weighs every observation it holds alike) */
} isdb_adaptive_estimator_info;
/* How many estimators the policy keeps (the resolved config's finite
   memories, then the undiscounted one): indices 0 .. n - 1, shortest
   memory first, the undiscounted one last. */
ISDB_API int isdb_adaptive_get_n_estimators(const isdb_adaptive *pol);
/* The index of the estimator select plays now (n - 1 until a shorter one
   predicts better: see the manual's ADAPTIVE). */
ISDB_API int isdb_adaptive_get_played(const isdb_adaptive *pol);
/* The Kalman estimator select plays from (0 .. kalman - 1: the one of q
   kalman_q 10^(k/2)), or -1 when a memory plays. While one plays, played and
   memory stay the memory it beat, get_theta and explain give its
   estimate and index, and get_beta the memory's beta (the width is
   kalman_width beta sqrt(x'Px)). */
ISDB_API int isdb_adaptive_get_kalman(const isdb_adaptive *pol);
/* Describes estimator k; ISDB_ERR_INVALID_ARG (and *info untouched) if k
   is out of range or an argument is NULL. */
ISDB_API isdb_result isdb_adaptive_get_estimator(const isdb_adaptive *pol, int k, isdb_adaptive_estimator_info *info);
/* The effective memory, in rounds, of the estimator select plays now (its
   `effective` above): how many of the latest observations its estimate
   stands for. 0 before the first update. */
ISDB_API int isdb_adaptive_get_memory(const isdb_adaptive *pol);
/* How many times the change test has cut the memory (detected a change)
   so far. */
ISDB_API uint64_t isdb_adaptive_get_changes(const isdb_adaptive *pol);
/* 1 while hold applies (no cut, the longest estimator played: only the
   rewards' scale is seen to move), else 0. */
ISDB_API int isdb_adaptive_get_holding(const isdb_adaptive *pol);
#endif /* ISDB__DECLARE_ALL || ISDB__HAS_ADAPTIVE */

#if !ISDB_REAL_IS_FLOAT /* double only: see PRECISION */
#if ISDB__DECLARE_ALL || ISDB__HAS_ISD
/* ---------------------------------------------------------------------------
   [ISD] ISD-linUCB, part 1: invariance detection (the offline phase).
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
   4. (rule TEST, the default) the invariance test of each block (see
      isdb_isd_rule): invariant iff its p-value exceeds `level`; steps 4-5
      below are skipped. (Rules CV, BOTH) candidates theta in {T_1..T_B,
      1}; blocks with T_b < theta are invariant. Each candidate is scored by k-fold cross-validation
      (contiguous folds of F = n / k rows): beta_inv by OLS in the
      invariant subspace on the rows outside the fold; inside the fold, for
      every run of `adapt` rows, delta by OLS of y - x.beta_inv on the
      residual coordinates, and the next row scored 2 y x.b - (x.b)^2 with
      b = beta_inv + delta. If no candidate but theta = 1 has a positive
      score on every fold, nothing is invariant; otherwise the smallest
      theta whose mean score is within one standard error of the best is
      chosen (see isdb_isd_selection for which standard error);
   5. (CV, BOTH) as above; BOTH keeps a block invariant only if its test
      passes too. Then beta_inv by OLS in the chosen invariant subspace on all rows (the
      paper's eq. 6; with `intercept` every regression above has one, as in
      the authors' code, and only the slopes are kept).
   Singular least-squares systems are solved with a ridge of 1e-10 times
   their mean diagonal. Cost: O(n p^2) for the covariances, window, segment
   and fold Gram matrices; the JBD (see above); the tests O(blocks S p^3);
   CV (rules CV, BOTH) O(|candidates| n (p p_res + p_res^3)).
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

/* Which blocks are called invariant:
     ISDB_ISD_RULE_TEST  (default, ours) a block is invariant only if its
                         invariance test does not reject: p-value above
                         `level`; every other block is residual. The test,
                         per block b: the logged rows are cut into `splits`
                         disjoint consecutive segments; with U's
                         coordinates z = U^T x, the model in which every
                         segment has its own coefficients is compared with
                         the one in which block b's coefficients are
                         shared by all segments (the other blocks' stay
                         per segment) by the F statistic
                           F = ((RSS_shared - RSS_free) / ((S - 1) s_b))
                               / (RSS_free / (n - S p))
                         (a Chow test; exact under Gaussian noise when the
                         other blocks are constant within segments, and
                         close when they drift, since their part is
                         uncorrelated with block b). p-value = P(F > f).
                         With basis_error (default) the segments'
                         coefficients are compared with the covariance of
                         their noise plus the leakage of U's error (see
                         isdb__isd_block_test), so a block that only
                         carries its neighbours' drift through a slightly
                         rotated column is not called drifting.
     ISDB_ISD_RULE_CV    the paper's rule: the statistic T_b thresholded
                         by cross-validation (steps 3-4 below);
     ISDB_ISD_RULE_BOTH  invariant only if both say so.
   The block detection and the test are measured in bench/repro_isd.c (the
   rates are in the documentation block at the top). */
typedef enum isdb_isd_rule {
    ISDB_ISD_RULE_TEST = 0,
    ISDB_ISD_RULE_CV = 1,
    ISDB_ISD_RULE_BOTH = 2,
    ISDB__ISD_RULE_FORCE_INT = 0x7fffffff
} isdb_isd_rule;

typedef struct isdb_isd_options {
    isdb_isd_rule rule; /* default ISDB_ISD_RULE_TEST */
    int splits;         /* S >= 2 segments of the invariance test; 0: min(8, n / (3 p)), at least 2 */
    double level;       /* TEST, BOTH: a block is invariant only if its p-value exceeds this, in
                           (0, 1); default 0.01 */
    int basis_error;    /* TEST, BOTH: 1 (default): the test allows the drift that the fitted
                           basis's error leaks into a block from the others (see
                           isdb_isd_rule); 0: it treats the fitted basis as exact */
    int n_windows;      /* m >= 2; default 25 */
    int window_length;  /* l in p + 1..n; 0: n / 8 (the authors' code) */
    int center;         /* 1: centred window covariances (default); 0: raw second moments */
    int intercept;      /* 1: regressions with an intercept (authors' code); 0: none (eq. 6; default) */
    int folds;          /* cross-validation folds >= 2; default 10 */
    int adapt;          /* adaptation rows per CV test point; 0: 2 p */
    isdb_isd_selection one_se; /* the selection rule; default ISDB_ISD_ONE_SE_PAIRED */
    int force_residual; /* 1: if every block came out invariant, the one with the largest T_b is
                           made residual (p_res >= 1, as Assumption 1 requires); default 0 */
    isdb_jbd_options jbd; /* default: isdb_jbd_options_init() with off_norm = ISDB_JBD_OFF_ENTRYWISE */
} isdb_isd_options;

/* Output of isdb_isd_estimate. The caller points the five arrays at
   storage of p entries (U: p * p); blocks are listed in U's column order,
   the invariant ones first. */
typedef struct isdb_isd_fit {
    double *U;        /* columns 0..p_inv-1 span S_inv, the rest S_res */
    double *beta_inv; /* the invariant component (in S_inv) */
    double *stat;     /* T_b of each block */
    double *pvalue;   /* p-value of each block's invariance test (-1 if untestable: fewer
                         than S p + 1 rows, or S < 2); may be NULL */
    int *sizes;       /* block sizes */
    int *invariant;   /* 1 for an invariant block */
    int n_blocks, p_inv;
    double theta;     /* the statistic threshold chosen (0: nothing invariant) */
    isdb_jbd_info jbd;
    /* What the log can identify. cov_spread = (1/m) sum_k ||C_k - C_bar||^2
       (Frobenius; the window covariances about their mean) divided by
       what sampling noise alone gives it when every window has the
       covariance C_bar: a (tr(C_bar)^2 + ||C_bar||^2) / (l - 1), the
       variance of a window covariance of Gaussian rows (/ l for raw
       moments, exact for zero-mean rows), times a = 1 - sum_jk o_jk /
       (m^2 l), the share left after subtracting the mean of the windows
       (o_jk: rows windows j and k share; a = 1 - 1/m for disjoint ones).
       About 1 when the log's covariance never changes (below 1 for
       lighter-tailed rows, above for heavier), larger when it does; 0 if
       every window's covariance is 0. identifiable = cov_spread
       > ISDB_ISD_SPREAD_THRESHOLD: 0 says the windows differ no more than
       noise, so the JBD has nothing to separate and no block's invariance
       (nor its absence) is identified; the blocks and the test still run
       and are reported. A diagnostic only: nothing else depends on it. */
    double cov_spread;
    int identifiable;
} isdb_isd_fit;

/* identifiable's threshold on cov_spread. Under a constant Gaussian
   covariance cov_spread is a sum of about (n / l - 1) p (p + 1) / 2
   squared, nearly independent, noise terms scaled to mean 1 (about 7 p
   (p + 1) / 2 with the default windows): a chi-square over its degrees of
   freedom, above 2 with probability 5% at 7 degrees (p = 1), 0.5% at 21
   (p = 2) and below 1e-4 from p = 4 on. A covariance that changes by a
   relative amount r between windows adds about r^2 l / (a p) to it for a
   covariance near a multiple of I. Measured (200 seeds, n = 3000, default
   windows): constant Gaussian rows give 0.8-1.5 at p = 4, 0.85-1.2 at p =
   10; rows whose coordinate variances are redrawn uniform in [0.3, 3]
   every n / 8 rows give 6-22 at p = 4, 3.6-9 at p = 10. */
#define ISDB_ISD_SPREAD_THRESHOLD 2.0

ISDB_API isdb_isd_options isdb_isd_options_init(void);
/* Doubles of work isdb_isd_estimate needs for n rows of dimension p (0 if
   the sizes or options are invalid). */
ISDB_API size_t isdb_isd_estimate_work_size(int p, int n, const isdb_isd_options *opt);
/* Requires l >= p + 1 and n / folds >= adapt + 2 (one test point per
   fold); ISDB_ERR_INVALID_ARG otherwise. ISDB_MAXITER_REACHED (usable)
   when the JBD did not converge. X and y are not changed. */
ISDB_API isdb_result isdb_isd_estimate(int p, int n, const double *X, const double *y, const isdb_isd_options *opt,
                                       isdb_isd_fit *fit, double *work);
/* The invariance test of isdb_isd_estimate on a decomposition the caller
   gives (the truth in a simulation, or a fit's blocks regrouped): U (p x
   p, orthonormal columns) in n_blocks blocks of consecutive columns,
   sizes[b] >= 1 columns each, p in all. pval[b] receives block b's
   p-value over opt's segments of the n rows (X: n x p, y: n), or -1 when
   untestable, as isdb_isd_fit.pvalue. opt->basis_error 1 allows the
   leakage of a fitted basis's error (from opt's window covariances of X);
   0 takes U as exact. opt->rule is not used. work:
   isdb_isd_estimate_work_size(p, n, opt) doubles. ISDB_ERR_INVALID_ARG
   for the sizes and options isdb_isd_estimate refuses and for sizes that
   do not add up to p; X, y and U must be finite inputs. */
ISDB_API isdb_result isdb_isd_block_test(int p, int n, const double *X, const double *y, const double *U,
                                         const int *sizes, int n_blocks, const isdb_isd_options *opt, double *pval,
                                         double *work);

/* ---------------------------------------------------------------------------
   [ISD] ISD-linUCB, part 2: the policy (Algorithm 1 of Lazzaretto, Peters,
   Pfister 2026). The documentation block at the top describes it.
   ------------------------------------------------------------------------ */

/* The online learner of the residual component (in S_res coordinates). */
typedef enum isdb_isd_learner {
    ISDB_ISD_RES_LINUCB = 0,   /* ridge on every online row (the paper) */
    ISDB_ISD_RES_WINDOW = 1,   /* ridge on the last `window` rows */
    ISDB_ISD_RES_DISCOUNT = 2, /* weights gamma^age, D-LinUCB's width */
    ISDB_ISD_RES_ADAPTIVE = 3, /* the adaptive policy's estimators and change test on the residual
                                  coordinates (ISD's R, S, L..., memories resolved for d; every other
                                  field the adaptive default): drift-agnostic (default); with p_inv = 0
                                  it is isdb_adaptive on x itself */
    ISDB__ISD_LEARNER_FORCE_INT = 0x7fffffff
} isdb_isd_learner;

/* The confidence widths. */
typedef enum isdb_isd_radius {
    ISDB_ISD_RADIUS_PAPER = 0, /* eqs. 25 and 30 as norm radii, Minkowski sum of the two sets */
    ISDB_ISD_RADIUS_CODE = 1,  /* the authors' code: one alpha_t on the joint ellipsoid */
    ISDB_ISD_RADIUS_FIXED = 2, /* the constant alpha on the joint ellipsoid */
    ISDB_ISD_RADIUS_DATA = 3,  /* (default) the fit's own: s sqrt(p_inv + 2 sqrt(p_inv l) + 2 l),
                                  l = ln(1 / delta), s the fit rows' residual scale about x.beta_inv,
                                  on ||U_inv^T x|| in the fit's Gram^-1 (a fixed-design OLS interval,
                                  a heuristic: no L, S, DeltaPi); residual: rho1 of eq. 30 (R,
                                  lambda, L, S), or ADAPTIVE's own; Minkowski sum as PAPER */
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
    isdb_isd_learner learner; /* default ISDB_ISD_RES_ADAPTIVE (the paper: ISDB_ISD_RES_LINUCB) */
    int window;               /* WINDOW: rows >= 1; default 100 */
    double gamma;             /* DISCOUNT: in [1e-100, 1); default 0.99 */
    double lambda;            /* its ridge; default 1 */
    int refresh;              /* refactorise (LINUCB) or rebuild (WINDOW) every this many updates;
                                 0: max(4 p_res, 256), or max(window, p_res) */
    /* Widths. */
    isdb_isd_radius radius;   /* default ISDB_ISD_RADIUS_DATA (the paper: ISDB_ISD_RADIUS_PAPER) */
    double delta;             /* confidence level eta, in (0, 1), not subnormal; default 0.01 */
    double R, L, S;           /* noise scale, bounds on ||x|| and ||gamma||, in [0, 1e30] (L > 0);
                                 default 1 each */
    double alpha;             /* multiplier of the width (PAPER, CODE), or the width (FIXED), in
                                 [0, 1e30]; default 1 */
    double delta_pi;          /* the subspace error DeltaPi of PAPER, at most 1e30; < 0: the plug-in
                                 (default -1) */
    /* Recompute (Algorithm 1's `recompute`). */
    int recompute_every;      /* re-estimate every this many updates; 0: never (default) */
    int history;              /* online rows kept (ring); 0: the least the options need */
    /* The invariance monitor. */
    isdb_isd_monitor monitor; /* default ISDB_ISD_MONITOR_FALLBACK (OFF: the paper) */
    int monitor_window;       /* most rows per test, >= d + 10; 0: 10 d + 20 */
    int monitor_every;        /* a test every this many updates; 0: 2 d */
    int monitor_chunk;        /* rows per piece of the residual part in the test; 0: the residual
                                 learner's memory (see the documentation block) */
    double monitor_level;     /* level of one test, in (0, 1); default 1e-4 */
    int monitor_confirm;      /* 1 (default): act on an alarm only when a test on rows after
                                 it alarms too; 0: on the first alarm */
    /* The guard and the warm start (our extensions; ADAPTIVE learner only, ignored with the
       others). */
    int guard;                /* 1 (default): the adaptive policy runs beside ISD in all d
                                 dimensions, and ISD becomes it when it predicts the rewards
                                 better; 0: off (the paper) */
    int warm_start;           /* 1 (default): the residual learner (and the guard's) learn the
                                 log's rows first, in time order; 0: they start empty (the paper) */
    int kalman;               /* the ADAPTIVE residual learner's (and the guard's) Kalman filters
                                 (isdb_adaptive_config.kalman), in [0, 8]; default 2 (1.1.0; a 1.0.0
                                 snapshot reads as 0) */
    double guard_level;       /* level of the guard's test, in [0, 1); 0: monitor_level's; default
                                 1e-3 (1.2.0; an earlier snapshot reads as 0) */
    double fresh_inv_width;   /* factor of the invariant width while the ADAPTIVE learner's
                                 contexts are fresh (they do not recur), as alpha's range;
                                 default 0.1 (1.2.0; an earlier snapshot reads as 1) */
} isdb_isd_config;

/* A decomposition and what the widths need from it (private). */
typedef struct isdb__isd_fit {
    int p_inv, n_blocks, n;
    int identity;  /* U is exactly I (p_inv = 0): projections are copies */
    double theta, lambda0, lambda_max, lambda_beta, delta_pi, r_inv;
    double s2;     /* residual variance of the fit rows about x.beta_inv (0: beta_inv given) */
    double cov_spread; /* isdb_isd_fit's; -1 in oracle mode or after a restore (not in snapshots) */
    int identifiable;  /* isdb_isd_fit's; 1 in oracle mode, -1 after a restore */
    isdb_jbd_info jbd;
    double *U;     /* d x d, columns: S_inv basis first */
    double *Ut;    /* U^T */
    double *beta;  /* beta_inv (d) */
    double *Lbeta; /* p_inv x p_inv Cholesky factor of U_inv^T Sigma U_inv */
    double *Winv;  /* p_inv x d: Lbeta^-1 U_inv^T */
    double *Wq;    /* W_inv^T W_inv (d x d, its lower triangle), when `quad` */
    int quad;      /* the invariant width as the quadratic form x^T Wq x (d (d + 1) / 2 per
                      arm) rather than ||W_inv x|| (p_inv d): p_inv > (d + 1) / 2 */
    double *stat;  /* d */
    double *pvalue; /* d: each block's invariance test */
    int *sizes, *invariant;
} isdb__isd_fit;

typedef struct isdb_isd {
    isdb_policy base;
    isdb_isd_config cfg; /* resolved; the pointers lead to the heap copies */
    int hist_count, hist_head;
    int since_recompute, since_check, fallback, monitor_recomputed;
    uint64_t recomputes, recompute_failures, alarms, demotions;
    uint64_t mon_count;  /* online rows since the last reset (the monitor's pieces) */
    uint64_t mon_suspect; /* 1 + the newest piece of an alarm awaiting confirmation, or 0 */
    int mon_cap;         /* pieces the monitor keeps */
    double *_mon;        /* mon_cap pieces of isdb__isd_mon_stride doubles */
    double n_res;        /* rows in the residual learner */
    double monitor_stat, monitor_pvalue;
    isdb__isd_fit _fit, _fit0, _fit_next; /* current, after init, scratch */
    isdb__ridge _res;    /* residual factor and b (dimension p_res) */
    double *_res_theta;  /* the residual estimate V^-1 b */
    double *_gram_disc, *_gram_disc_next, *_gram_tilde, *_gram_tilde_next, *_b_next; /* DISCOUNT */
    double *_gamma;      /* beta_inv + U_res delta */
    double *_hist_x, *_hist_y, *_pool_x, *_pool_y;
    double *_u_inv0, *_beta0;
    double *_z, *_u, *_work;
    double _r_inv, _r_res; /* widths of the round being scored */
    isdb_adaptive _ada;  /* ADAPTIVE: the residual learner, laid out for d, run in dimension p_res */
    void *_ada_heap;     /* its heap (a part of this policy's) */
    /* The guard: the full-dimensional learner, and ISD's excess squared
       error over it on the last monitor_window online rows (a ring). */
    isdb_adaptive _shadow;
    void *_shadow_heap;
    double *_guard_loss;
    int guard_count, guard_head, guard_since;
    int shadow_state;    /* see isdb__isd_guarded */
    double shadow_rows;  /* rows its learner has learnt */
    double guard_stat;
} isdb_isd;

/* Diagnostics of the current state. */
typedef struct isdb_isd_info {
    int p_inv, p_res, n_blocks;
    double theta;              /* the estimator's threshold */
    double cov_spread;         /* isdb_isd_fit's, for the current fit; -1 in oracle mode and after a restore */
    int identifiable;          /* isdb_isd_fit's; 1 in oracle mode; -1 (unknown) after a restore */
    isdb_jbd_info jbd;
    double lambda0;            /* lambda_min(Sigma / n) of the rows of the fit */
    double lambda_beta;        /* lambda_min(U_inv^T Sigma U_inv) */
    double delta_pi;           /* DeltaPi used by the PAPER widths */
    double r_inv, r_res;       /* widths of the next round (CODE, FIXED: the joint one twice) */
    int n_fit;                 /* rows the decomposition was fitted on */
    double n_res;              /* rows (DISCOUNT: updates) in the residual learner */
    int history;               /* online rows kept */
    uint64_t recomputes, recompute_failures, alarms;
    uint64_t demotions;        /* invariant blocks the monitor moved to the residual part */
    int fallback;              /* 1 after the monitor switched to all d dimensions */
    int alarm_pending;         /* 1 while an alarm awaits a test on later rows (monitor_confirm) */
    double monitor_stat, monitor_pvalue; /* F statistic and p-value of the last test */
    int guard_switched;        /* 1 after the guard switched to its full-dimensional learner */
    double guard_stat;         /* the guard's last t statistic (ISD's excess squared error) */
} isdb_isd_info;

ISDB_API isdb_isd_config isdb_isd_config_init(int d, int max_arms, int n_offline, const double *X0,
                                              const double *R0);
ISDB_API isdb_result isdb_isd_config_check(const isdb_isd_config *cfg, isdb_refusal *why);
ISDB_API isdb_result isdb_isd_heap_size(const isdb_isd_config *cfg, size_t *bytes);
/* Init fits the decomposition (estimated mode: JBD and cross-validation,
   the cost of isdb_isd_estimate on n_offline rows). */
ISDB_API isdb_result isdb_isd_init(const isdb_isd_config *cfg, const isdb_allocator *alloc, isdb_isd *pol);
ISDB_API isdb_result isdb_isd_init_preallocated(const isdb_isd_config *cfg, void *heap, size_t heap_bytes,
                                                isdb_isd *pol);
ISDB_API const isdb_isd_config *isdb_isd_get_config(const isdb_isd *pol);
/* As isdb_linucb_config_from_snapshot. */
ISDB_API isdb_result isdb_isd_config_from_snapshot(const void *buf, size_t size, isdb_isd_config *cfg);
ISDB_API void isdb_isd_get_info(const isdb_isd *pol, isdb_isd_info *info);
ISDB_API int isdb_isd_get_p_inv(const isdb_isd *pol);
/* Blocks of the current decomposition in basis order (invariant first):
   sizes, invariance flags and statistics, d entries each (any may be
   NULL). Returns the number of blocks (0 in oracle mode or after a
   fallback). */
ISDB_API int isdb_isd_get_blocks(const isdb_isd *pol, int *sizes, int *invariant, double *stat);
/* The p-value of each block's invariance test (see isdb_isd_rule), in the
   order of isdb_isd_get_blocks; returns the number of blocks. */
ISDB_API int isdb_isd_get_block_pvalues(const isdb_isd *pol, double *pvalue);
/* The basis U (d x d, columns; the first p_inv span S_inv). */
ISDB_API void isdb_isd_get_basis(const isdb_isd *pol, double *U);
/* The orthogonal projector (d x d) on S_inv (residual 0) or S_res (1). */
ISDB_API void isdb_isd_get_projector(const isdb_isd *pol, int residual, double *P);
ISDB_API void isdb_isd_get_beta_inv(const isdb_isd *pol, double *beta);
/* beta_inv + delta_res, the estimate the next round's means use. */
ISDB_API void isdb_isd_get_gamma(const isdb_isd *pol, double *gamma);
/* Widths of the next round (CODE and FIXED: the joint multiplier, twice). */
ISDB_API void isdb_isd_get_radii(const isdb_isd *pol, double *r_inv, double *r_res);
/* The parts of the score of x: *mean = x.gamma, *bonus_inv and *bonus_res
   the two width terms (CODE, FIXED: alpha_t times each norm; the score
   adds sqrt(bonus_inv^2 + bonus_res^2)). Any output may be NULL. */
ISDB_API isdb_result isdb_isd_explain(isdb_isd *pol, const double *x, double *mean, double *bonus_inv,
                                      double *bonus_res);
/* Re-estimates now on the offline rows and the kept online rows, as a
   scheduled recompute does. On failure the decomposition and the learner
   are unchanged (the failure is counted in the info). */
ISDB_API isdb_result isdb_isd_recompute(isdb_isd *pol);
#endif /* ISDB__DECLARE_ALL || ISDB__HAS_ISD */

#if ISDB__DECLARE_ALL || ISDB__HAS_OPKB
/* ---------------------------------------------------------------------------
   [OPKB] Kernels on a fixed arm set, the log-det optimisation problem of OPKB
   and the OPKB / ADA-OPKB policy (Hong, Li, Tewari, AISTATS 2023)
   ------------------------------------------------------------------------ */

typedef enum isdb_kernel {
    ISDB_KERNEL_LINEAR = 0,   /* k(x, y) = x.y */
    ISDB_KERNEL_RBF = 1,      /* exp(-r^2 / (2 l^2)), r = ||x - y|| */
    ISDB_KERNEL_MATERN52 = 2, /* (1 + sqrt(5) r / l + 5 r^2 / (3 l^2)) exp(-sqrt(5) r / l) */
    ISDB_KERNEL_GRAM = 3,     /* a Gram matrix given by the caller */
    ISDB__KERNEL_FORCE_INT = 0x7fffffff
} isdb_kernel;

/* K (n x n) = k(X_i, X_j) for the n rows of X (n x d). length_scale (> 0)
   is used by RBF and MATERN52 only. ISDB_KERNEL_GRAM is refused. */
ISDB_API isdb_result isdb_kernel_gram(isdb_kernel kernel, double length_scale, int n, int d, const double *X,
                                      double *K);

/* How an equivalent feature map Phi (Phi Phi^T = K) is built from a Gram
   matrix. */
typedef enum isdb_feature_map {
    ISDB_FEATURES_AUTO = 0,     /* Cholesky; the eigen map if K does not factor. The
                                   OPKB policy uses the raw features for the linear kernel */
    ISDB_FEATURES_CHOLESKY = 1, /* Phi = the Cholesky factor of K (p = n) */
    ISDB_FEATURES_EIGEN = 2,    /* Phi = U diag(sqrt(w)) over the eigenvalues w > rank_tol max(w) */
    ISDB__FEATURES_FORCE_INT = 0x7fffffff
} isdb_feature_map;

/* Feature map of the symmetric positive semi-definite K (n x n; the lower
   triangle is read, the matrix must be symmetric to 1e-10 of its largest
   diagonal entry). Phi needs room for n * n doubles; it receives the n x *p
   map, row i = phi(arm i), row stride *p. rank_tol in [0, 1) (the EIGEN
   cut-off; 0 keeps every positive eigenvalue). Errors: ISDB_ERR_NOT_SPD
   (CHOLESKY on a K that does not factor; or an eigenvalue below
   -sqrt(DBL_EPSILON) times the largest), ISDB_ERR_SINGULAR (K = 0).
   work: isdb_feature_map_work_size(n) doubles. */
ISDB_API isdb_result isdb_feature_map_build(int n, const double *K, isdb_feature_map how, double rank_tol, double *Phi,
                                            int *p, double *work);
ISDB_API size_t isdb_feature_map_work_size(int n);

/* What a solve of the log-det problem reports. */
typedef struct isdb_opkb_solve_info {
    isdb_result status; /* ISDB_OK, ISDB_MAXITER_REACHED (usable), or an error */
    int iterations;     /* Newton steps taken */
    double kkt;         /* KKT residual of the result (isdb_opkb_kkt) */
    double gap;         /* duality gap x.z at the end */
    double objective;   /* c.x - ln det S(x, lambda) */
} isdb_opkb_solve_info;

/* The problem behind OPKB's OP (eq. 1 of the paper, scaled by beta/2) and
   the regularised optimal designs pi(A):
       minimise  f(x) = c.x - ln det S(x, lambda),
                 S(x, lambda) = sum_i x_i phi_i phi_i^T + lambda I (p x p),
       over the probability simplex (x >= 0, sum x = 1),
   phi_i the n rows of Phi (n x p). c = NULL means c = 0: the design
   maximising ln det S. f is convex; the minimiser is unique in S(x).
   Primal-dual interior-point method (Boyd and Vandenberghe, sec. 11.7):
   Newton steps on the perturbed KKT system, with the Newton matrix
   (Phi S^-1 Phi^T)o(Phi S^-1 Phi^T) + diag(z / x) and S factored by
   Cholesky (no inverse is formed), a backtracking line search on the
   residual norm, and barrier parameter t = 10 n / (x.z). Stops when the
   KKT residual (below) is at most tol. x0 (n, or NULL for uniform) warm-
   starts the solve: the start is 0.99 x0 / sum(x0) + 0.01 / n. x (n)
   receives the solution; info (may be NULL) what happened. Returns
   ISDB_MAXITER_REACHED if max_iter Newton steps did not reach tol (x is
   the last iterate, a distribution). Cost per step O(n p^2 + n^2 p + n^3).
   work: isdb_opkb_solve_work_size(n, p) doubles. Allocates nothing. */
ISDB_API isdb_result isdb_opkb_solve(int n, int p, const double *Phi, const double *c, double lambda, const double *x0,
                                     double tol, int max_iter, double *x, isdb_opkb_solve_info *info, double *work);
ISDB_API size_t isdb_opkb_solve_work_size(int n, int p);

/* KKT residual of any x (n) for the problem above: with g = c - v,
   v_i = phi_i^T S(x, lambda)^-1 phi_i, nu = -sum x_i g_i / sum x_i and
   z = g + nu, the largest of |sum x - 1|, max(-x_i), max(-z_i) and
   sum |x_i z_i|; 0 exactly at the minimiser. Negative x_i count as 0 in
   S. v (n, or NULL) receives the v_i, *objective (or NULL) f(x). work:
   isdb_opkb_solve_work_size(n, p). */
ISDB_API isdb_result isdb_opkb_kkt(int n, int p, const double *Phi, const double *c, double lambda, const double *x,
                                   double *kkt, double *v, double *objective, double *work);

/* Constants of the policy: the paper's theory values (App. D.1) or the
   scales the authors' public code uses in the experiments (the default). */
typedef enum isdb_opkb_preset {
    ISDB_OPKB_TUNED = 0,
    ISDB_OPKB_THEORY = 1,
    ISDB__OPKB_PRESET_FORCE_INT = 0x7fffffff
} isdb_opkb_preset;

/* Threshold of ADA-OPKB's change test (8): from the variances of the gap
   estimates (the default), or the paper's constant 4 c0 mu. */
typedef enum isdb_opkb_test {
    ISDB_OPKB_TEST_CALIBRATED = 0,
    ISDB_OPKB_TEST_CONSTANT = 1,
    ISDB__OPKB_TEST_FORCE_INT = 0x7fffffff
} isdb_opkb_test;

typedef struct isdb_opkb_config {
    int d;                     /* feature dimension of the arms (1..ISDB_MAX_DIM) */
    int n_arms;                /* N, the size of the fixed arm set, 1..4096 */
    const double *arms;        /* N x d arm features, copied at init; required unless GRAM */
    isdb_kernel kernel;        /* default ISDB_KERNEL_LINEAR */
    double length_scale;       /* RBF, MATERN52: >= 1e-150 (its square a normal number); default 1 */
    const double *gram;        /* GRAM: N x N symmetric positive semi-definite, copied */
    isdb_feature_map features; /* default ISDB_FEATURES_AUTO */
    double rank_tol;           /* eigen map cut-off, in [0, 1); default 1e-12 */
    int adaptive;              /* 0: OPKB (default), 1: ADA-OPKB */
    double horizon;            /* T, 2..1e15 */
    double sigma;              /* lambda = sigma / T, in [1e-30, 1e30] and [1e-10, 1e30] times the
                                  arms' largest k(x, x); default 100 */
    double delta;              /* confidence, in (0, 1), not subnormal; default 1e-4 */
    double reward_scale;       /* rewards are divided by it (the paper's S + B); default 1 */
    /* Constants; isdb_opkb_config_preset sets them all (gamma_factor in [1e-30, 1e30]: with lambda
       at most 1e30 max k(x, x), gamma stays a positive normal number; c3 in (0, 1e30]). tuned / theory: */
    double gamma_factor;       /* gamma = gamma_factor max ln det(I + T/sigma sum P phi phi^T):  0.5 / 1 */
    double c1;                 /* mu_j = c1 2^(-j/2):                                          0.1 / 0.5 */
    double c3;                 /* E = ceil(c3 gamma ln(C0 N / delta)), C0 = 8 T log2 T:       0.04 / 4 */
    double c4;                 /* alpha = c4 sigma / ln(C0 N / delta):                        0.25 / 0.25 */
    double beta_scale;         /* beta_j = beta_scale gamma 2^(j/2) / (10 + 4 sqrt(alpha)):    50 / 1 */
    double set_scale;          /* A = {x: gap(x) <= set_scale 2 alpha gamma / beta_j}:         2.5 / 1 */
    double mix;                /* Q = (1 - mix) P* + mix pi(A):                                0.2 / 0.5 */
    double c0_scale;           /* c0 = c0_scale (40 + 16 sqrt(alpha)):                       0.005 / 1 */
    int test_mean;             /* test threshold 4 c0 mu with mu = 2^(-min(m,k)/2) / 2 (0) or
                                  the mean of 2^(-m/2) / 2 and 2^(-k/2) / 2 (1):                  1 / 0 */
    int j_star;                /* replays of index < j_star are not scheduled, C(k) with
                                  k < j_star is not tested:                                       4 / 0 */
    int test_block;            /* the block's own interval (j, B(j)) is tested at its end:       0 / 1 */
    int max_restarts;          /* detections after this many restarts are ignored:    100 / INT_MAX */
    /* Change test; the presets leave these. */
    isdb_opkb_test test;       /* default ISDB_OPKB_TEST_CALIBRATED; c0_scale and test_mean are
                                  used only by ISDB_OPKB_TEST_CONSTANT */
    double test_z;             /* CALIBRATED: a side above test_z standard deviations restarts */
    /* Solver */
    double solver_tol;         /* KKT residual target of every solve; default 1e-9 */
    int solver_max_iter;       /* Newton steps per solve; default 200 */
    uint64_t seed;             /* default 1 */
} isdb_opkb_config;

typedef struct isdb_opkb {
    isdb_policy base;
    isdb_opkb_config cfg;      /* resolved: arms and gram point into the heap */
    /* Derived at init from the config alone */
    int p;                     /* feature dimension of the map */
    int j_max;                 /* last block index the heap holds (the block with round T) */
    uint64_t E;                /* length of block 0 */
    double lambda, gamma, alpha, log_term;
    isdb_opkb_solve_info design_info; /* the solve of pi(X) at init */
    /* State */
    int epoch;                 /* 1, 2, ...: one plus the restarts so far */
    int block;                 /* j */
    int m_cur;                 /* strategy index of the coming round */
    uint64_t epoch_start, block_start, block_len;
    uint64_t tests, last_restart;
    double last_stat;          /* ratio of (8)'s left side to its threshold in the last test */
    isdb_opkb_solve_info op_info, set_info; /* last OP solve, last pi(A) solve */
    double *_arms, *_gram;     /* N x d, N x N (GRAM only) */
    double *_phi;              /* N x p feature map */
    double *_pi;               /* pi(X) */
    double *_strategies;       /* (j_max + 1) x N strategies of this epoch */
    double *_gap_est;          /* j_max x N gap estimates of C(0), C(1), ... */
    double *_wC, *_wB;         /* (j_max + 1) x N reward sums per strategy: epoch, block */
    double *_wR;               /* per replay index m: (m + 1) x N reward sums */
    double *_qC, *_qB, *_qR;   /* the same sums of squared rewards */
    double *_gap_var;          /* j_max x N variances of the gap estimates _gap_est */
    double *_xstar;            /* last P* (warm start) */
    int *_active;              /* j_max flags: replay slot of index m in progress */
    double *_work;             /* solver and estimator scratch */
} isdb_opkb;

ISDB_API isdb_opkb_config isdb_opkb_config_init(int d, int n_arms, double horizon);
/* Sets the constants of a preset (the fields marked above); leaves the rest. */
ISDB_API void isdb_opkb_config_preset(isdb_opkb_config *cfg, isdb_opkb_preset preset);
ISDB_API isdb_result isdb_opkb_config_check(const isdb_opkb_config *cfg, isdb_refusal *why);
ISDB_API isdb_result isdb_opkb_heap_size(const isdb_opkb_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_opkb_init(const isdb_opkb_config *cfg, const isdb_allocator *alloc, isdb_opkb *pol);
ISDB_API isdb_result isdb_opkb_init_preallocated(const isdb_opkb_config *cfg, void *heap, size_t heap_bytes,
                                                 isdb_opkb *pol);
ISDB_API const isdb_opkb_config *isdb_opkb_get_config(const isdb_opkb *pol);
/* As isdb_linucb_config_from_snapshot. */
ISDB_API isdb_result isdb_opkb_config_from_snapshot(const void *buf, size_t size, isdb_opkb_config *cfg);
/* Epoch (1-based), block j, and the strategy index m_t of the coming round. */
ISDB_API int isdb_opkb_get_epoch(const isdb_opkb *pol);
ISDB_API int isdb_opkb_get_block(const isdb_opkb *pol);
ISDB_API int isdb_opkb_get_replay_index(const isdb_opkb *pol);
ISDB_API int isdb_opkb_get_restarts(const isdb_opkb *pol);
/* Round (0-based) at which the current epoch began. */
ISDB_API uint64_t isdb_opkb_get_epoch_start(const isdb_opkb *pol);
/* The largest ratio of a left side of test (8) to its threshold in the last
   test (a restart when above 1), and the number of tests run. */
ISDB_API double isdb_opkb_get_last_test(const isdb_opkb *pol);
ISDB_API uint64_t isdb_opkb_get_tests(const isdb_opkb *pol);
/* gamma, E, alpha, the feature dimension p, and lambda = sigma / T. */
ISDB_API double isdb_opkb_get_gamma(const isdb_opkb *pol);
ISDB_API uint64_t isdb_opkb_get_block_length(const isdb_opkb *pol);
ISDB_API double isdb_opkb_get_alpha(const isdb_opkb *pol);
ISDB_API int isdb_opkb_get_feature_dim(const isdb_opkb *pol);
/* The feature map phi(x_a) of every arm, the rows the estimates use: N x
   p into out (p = isdb_opkb_get_feature_dim), row a for arm a. */
ISDB_API void isdb_opkb_get_features(const isdb_opkb *pol, double *out);
/* pi(X) (N), strategy P(m) of this epoch (m <= block), and the gap estimate
   of C(block - 1) that made the current strategy (zeros in block 0). */
ISDB_API void isdb_opkb_get_design(const isdb_opkb *pol, double *out);
ISDB_API isdb_result isdb_opkb_get_strategy(const isdb_opkb *pol, int m, double *out);
ISDB_API void isdb_opkb_get_gaps(const isdb_opkb *pol, double *out);
/* Reports of the solves: pi(X) at init, the last OP, the last pi(A). */
ISDB_API void isdb_opkb_get_solve_reports(const isdb_opkb *pol, isdb_opkb_solve_info *design,
                                          isdb_opkb_solve_info *op, isdb_opkb_solve_info *set);
#endif /* ISDB__DECLARE_ALL || ISDB__HAS_OPKB */

#if ISDB__DECLARE_ALL || ISDB__HAS_OAM
/* ---------------------------------------------------------------------------
   [OAM] OAM: optimal allocation matching (Hao, Lattimore, Szepesvari, AISTATS 2020)
   ------------------------------------------------------------------------ */

/* The allocation problem of Definition 4.1 for n (context, arm) pairs with
   arms X (n x d) and gap estimates gaps (n, >= 0), normalised so that it
   does not depend on f_n: find w >= 0 minimising sum_j gaps_j w_j subject to
   x_i^T H(w)^-1 x_i <= gaps_i^2 for every pair, H(w) = sum_j w_j x_j x_j^T,
   where pairs with gap 0 carry infinite weight (free: their cost is 0).
   The paper's allocation is T = f_n w, and 2 sum gaps_j w_j is the
   asymptotic regret constant C of Theorem 3.3 at those gaps.
   Fill it with isdb_oam_problem_init, then change fields. */
typedef struct isdb_oam_problem {
    int d;                 /* dimension, 1..ISDB_MAX_DIM */
    int n;                 /* pairs, >= 1 */
    const double *X;       /* n x d, finite */
    const double *gaps;    /* n, finite, >= 0 */
    const double *w_start; /* NULL, or n values >= 0: warm start of the barrier method */
    double tol;            /* barrier: stop when the duality gap bound is below tol * value; <= 0: 1e-8 */
    int max_iter;          /* barrier: most Newton steps; <= 0: 500 */
    double rank_tol;       /* relative tolerance of the span and rank decisions; <= 0: 1e-9 */
    double gap_tol;        /* gaps <= gap_tol * (largest gap) count as 0; <= 0: 1e-12 */
    int force_barrier;     /* 1: use the barrier method even where a closed form exists */
} isdb_oam_problem;

/* How isdb_oam_allocate solved a problem. */
typedef enum isdb_oam_method {
    ISDB_OAM_METHOD_NONE = 0,    /* not solved */
    ISDB_OAM_METHOD_ZERO = 1,    /* the zero-gap arms span every arm: w = 0 (sub-logarithmic case) */
    ISDB_OAM_METHOD_CLOSED = 2,  /* reduced problem of dimension 1: closed form */
    ISDB_OAM_METHOD_BARRIER = 3, /* dimension >= 2: log-barrier Newton method */
    ISDB__OAM_METHOD_FORCE_INT = 0x7fffffff
} isdb_oam_method;

typedef struct isdb_oam_alloc_info {
    isdb_oam_method method;
    int rank_u;       /* dimension of U, the span of the zero-gap arms */
    int r;            /* dimension of the reduced problem (d - rank_u when the arms span R^d) */
    int n_vars;       /* pairs in the reduced problem (positive gap, not in U) */
    int n_support;    /* pairs with w > 0 */
    int iterations;   /* Newton steps (barrier only) */
    double value;     /* sum_j gaps_j w_j; the regret constant is 2 value */
    double gap_bound; /* barrier: duality gap bound at exit (0 for the exact methods) */
} isdb_oam_alloc_info;

/* Defaults for every option; X and gaps as given. */
ISDB_API isdb_oam_problem isdb_oam_problem_init(int d, int n, const double *X, const double *gaps);
/* Doubles of workspace isdb_oam_allocate needs: O(n^2 + n d + d^2). */
ISDB_API size_t isdb_oam_allocate_work_size(int d, int n);
/* Solves the problem exactly: w (n) receives the allocation (0 for the
   zero-gap pairs, whose allocation is infinite, and for pairs in U), info
   (may be NULL) how it was solved. Returns ISDB_OK, ISDB_MAXITER_REACHED when the
   barrier stopped early (w is then feasible but not optimal to tol), or
   ISDB_ERR_INVALID_ARG / ISDB_ERR_NONFINITE for bad input or an allocation
   that overflows. Ties between equally cheap arms go to the lowest index.
   Allocates nothing; work: isdb_oam_allocate_work_size(d, n) doubles. */
ISDB_API isdb_result isdb_oam_allocate(const isdb_oam_problem *prob, double *w, isdb_oam_alloc_info *info,
                                       double *work);

/* f_{n,delta} of eq. 4.1 with ln(1/delta) given: 2 (1 + 1/ln n) ln(1/delta)
   + c d ln(d ln n), the last term taken as 0 when d ln n <= 1. n >= 2. */
ISDB_API double isdb_oam_f(double n, int d, double c, double log_inv_delta);

/* Forced exploration schedules (the test N_b2 <= epsilon_t s). */
typedef enum isdb_oam_forcing {
    ISDB_OAM_FORCE_LOGLOG = 0, /* epsilon_t = 1 / max(1, ln ln t): Theorem 4.3, clamped (the paper's) */
    ISDB_OAM_FORCE_SCALED = 1, /* epsilon_t = force_c / max(1, ln ln t) */
    ISDB_OAM_FORCE_NONE = 2,   /* epsilon_t = 0: only arms never played are forced (default) */
    ISDB__OAM_FORCE_FORCE_INT = 0x7fffffff
} isdb_oam_forcing;

/* What a round did. */
typedef enum isdb_oam_decision {
    ISDB_OAM_NONE = 0,    /* no round yet */
    ISDB_OAM_INIT = 1,    /* initialisation: an arm outside the span of the arms played */
    ISDB_OAM_EXPLOIT = 2, /* the greedy test (4.3) passed: argmax x.theta */
    ISDB_OAM_TRACK = 3,   /* exploration towards the targets: b1 = argmin N_x / tau_x */
    ISDB_OAM_FORCED = 4,  /* forced exploration: b2 = argmin N_x */
    ISDB_OAM_WASTED = 5,  /* this context's targets are met: LinUCB (eq. 4.6) */
    ISDB__OAM_DECISION_FORCE_INT = 0x7fffffff
} isdb_oam_decision;

typedef struct isdb_oam_config {
    int d, max_arms;
    int max_contexts;          /* action sets registered at most; default 8 */
    uint64_t horizon;          /* n >= 2, which the algorithm needs (f_n) */
    double c;                  /* the constant of f_{n,delta}, in [0, 1e30]; default 1 */
    double zeta;               /* re-solve when det G grew by 1 + zeta, >= 0, finite (a threshold:
                                  only ln(1 + zeta) <= 710 is used); default 0.1 */
    isdb_oam_forcing forcing;  /* default ISDB_OAM_FORCE_NONE (measured); LOGLOG is the paper's */
    double force_c;            /* SCALED only, in [0, 1e30]; default 0.1 */
    int force_s_now;           /* 0: epsilon_t s(t-1) (Algorithm 1, default); 1: epsilon_t s(t) (text) */
    double lambda;             /* ridge added to G: 0 (the paper, default) or in [1e-30, 1e30] */
    double solver_tol;         /* isdb_oam_problem.tol, in (0, 1); default 1e-8 */
    int solver_max_iter;       /* isdb_oam_problem.max_iter, >= 1; default 500 */
    int refresh;               /* refactorise G every this many updates, >= 0; 0 means d */
} isdb_oam_config;

typedef struct isdb_oam_counts {
    uint64_t init, exploit, track, forced, wasted; /* rounds of each decision */
    uint64_t solves;                               /* allocation problems solved */
} isdb_oam_counts;

typedef struct isdb_oam {
    isdb_policy base;
    isdb_oam_config cfg;
    double fn;                 /* f_n */
    /* Least squares: G = lambda I + sum x x^T (lower triangle), its factor. */
    double logdet;
    int factored;              /* 1 once G is positive definite and factored */
    int since_refresh;
    int rank_played;           /* dimension of the span of the arms played */
    /* Registered action sets: arm k of context m is vector _ctx_vid[m K + k]. */
    int n_ctx, n_vec;
    int pending_ctx;           /* set by isdb_oam_set_context; -1: match by content */
    int last_ctx;              /* context of the last select (-1: none) */
    /* The allocation of the last solve, per pair (context, arm). */
    int has_solution, n_ctx_solved;
    double logdet_solved;
    isdb_result solve_status;
    isdb_oam_alloc_info solve_info;
    /* The last round. */
    isdb_oam_decision decision;
    isdb_oam_counts counts;
    double min_gap;            /* smallest positive gap estimate (0: none) */
    int tau_ctx, tau_n;        /* context and size of the targets below */
    int stage_n;               /* scratch: arms of a set staged by scores or probs */
    double *_gram, *_chol, *_chol_next, *_b, *_theta, *_basis;
    double *_vec;              /* distinct feature vectors (max_contexts max_arms x d) */
    uint64_t *_pulls;          /* pulls of each vector */
    int *_ctx_n, *_ctx_vid;
    double *_allocation;       /* allocation f_n w per pair (0 for the estimated optimal arms) */
    int *_allocation_zero;     /* 1 where the pair had gap 0 at the solve */
    double *_tau;              /* targets of the last exploration round (max_arms) */
    /* Scratch (not part of the state). */
    double *_mu, *_gap, *_allocation_new, *_norm2, *_key, *_tau_new, *_stage_X, *_sX, *_sgap, *_sw0, *_sw, *_swork,
        *_work;
    int *_stage_vid, *_act, *_zero;
} isdb_oam;

ISDB_API isdb_oam_config isdb_oam_config_init(int d, int max_arms, uint64_t horizon);
ISDB_API isdb_result isdb_oam_config_check(const isdb_oam_config *cfg, isdb_refusal *why);
ISDB_API isdb_result isdb_oam_heap_size(const isdb_oam_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_oam_init(const isdb_oam_config *cfg, const isdb_allocator *alloc, isdb_oam *pol);
ISDB_API isdb_result isdb_oam_init_preallocated(const isdb_oam_config *cfg, void *heap, size_t heap_bytes,
                                                isdb_oam *pol);
ISDB_API const isdb_oam_config *isdb_oam_get_config(const isdb_oam *pol);
/* As isdb_linucb_config_from_snapshot. */
ISDB_API isdb_result isdb_oam_config_from_snapshot(const void *buf, size_t size, isdb_oam_config *cfg);
/* epsilon_t of the config's schedule at round t (1-based). */
ISDB_API double isdb_oam_epsilon(const isdb_oam_config *cfg, uint64_t t);
/* Registers an action set (n_arms x d) before it is seen, as the paper's
   known action sets; *id (may be NULL) receives its context number. An
   exact copy of a registered set is not registered twice. Errors:
   ISDB_ERR_BAD_STATE when max_contexts sets are registered already. */
ISDB_API isdb_result isdb_oam_add_context(isdb_oam *pol, const double *X, int n_arms, int *id);
/* The context of the next rounds (sticky): select, scores and probs then
   require X to equal that registered set exactly (ISDB_ERR_INVALID_ARG
   otherwise) and skip the search. id -1 goes back to matching by content. */
ISDB_API isdb_result isdb_oam_set_context(isdb_oam *pol, int id);
ISDB_API int isdb_oam_get_n_contexts(const isdb_oam *pol);
ISDB_API isdb_oam_decision isdb_oam_get_last_decision(const isdb_oam *pol);
ISDB_API void isdb_oam_get_counts(const isdb_oam *pol, isdb_oam_counts *counts);
ISDB_API double isdb_oam_get_fn(const isdb_oam *pol);
/* Smallest positive gap estimate over all contexts at the last main-phase
   round (0 when there was none). */
ISDB_API double isdb_oam_get_min_gap(const isdb_oam *pol);
/* Targets min(T_x, f_n / min_gap^2, horizon) of the arms of the last
   exploration round's context: *n_arms of them into tau (max_arms room);
   returns that context, or -1 before the first exploration round. */
ISDB_API int isdb_oam_get_targets(const isdb_oam *pol, double *tau, int *n_arms);
/* The allocation T = f_n w of the last solve for context ctx: T (its
   n_arms values) and optimal (may be NULL: 1 for its estimated optimal
   arms, whose T is infinite and reported as 0). ISDB_ERR_BAD_STATE
   before the first solve or for a context registered after it. */
ISDB_API isdb_result isdb_oam_get_allocation(const isdb_oam *pol, int ctx, double *T, int *optimal);
/* 2 sum gaps w at the last solve: the estimated asymptotic regret constant C. */
ISDB_API double isdb_oam_get_regret_constant(const isdb_oam *pol);
/* Result and info of the last solve (ISDB_OK with info->method NONE before the first). */
ISDB_API isdb_result isdb_oam_get_last_solve(const isdb_oam *pol, isdb_oam_alloc_info *info);
/* 1 if at the last solve the estimated optimal arms spanned R^d (C = 0: the
   sub-logarithmic case of section 3.1). */
ISDB_API int isdb_oam_get_sublog(const isdb_oam *pol);
/* The least-squares estimate G^-1 b (zeros until G is invertible). */
ISDB_API void isdb_oam_get_theta(const isdb_oam *pol, double *theta);
/* N_x: pulls of feature vector x (d) so far, pooled over contexts; 0 for a
   vector of no registered set. */
ISDB_API uint64_t isdb_oam_get_pulls(const isdb_oam *pol, const double *x);
#endif /* ISDB__DECLARE_ALL || ISDB__HAS_OAM */

#if ISDB__DECLARE_ALL || ISDB__HAS_TRACEUCB
/* ---------------------------------------------------------------------------
   [TRACEUCB] Trace-UCB: active learning of m linear models from one context stream
   ------------------------------------------------------------------------ */

typedef enum isdb_traceucb_mode {
    ISDB_TRACEUCB_TRACE = 0,   /* Trace-UCB: score (sigma^2 + Delta) Tr(Sigma S^-1) */
    ISDB_TRACEUCB_VAR = 1,     /* Var-UCB (Remark 2): score (sigma^2 + Delta) / k */
    ISDB_TRACEUCB_UNIFORM = 2, /* round robin: the model with the fewest samples */
    ISDB_TRACEUCB_STATIC = 3,  /* optimal static allocation for known noise variances */
    ISDB__TRACEUCB_MODE_FORCE_INT = 0x7fffffff
} isdb_traceucb_mode;

typedef enum isdb_traceucb_width {
    /* Delta = alpha 8 R ln(2 m n / delta) / sqrt(k - d): eq. 11 for alpha 1 (the paper's) */
    ISDB_TRACEUCB_WIDTH_THEORY = 0,
    /* Delta = alpha R / sqrt(k - d) (default) */
    ISDB_TRACEUCB_WIDTH_SCALED = 1,
    ISDB__TRACEUCB_WIDTH_FORCE_INT = 0x7fffffff
} isdb_traceucb_width;

typedef enum isdb_traceucb_objective {
    ISDB_TRACEUCB_MAX_LOSS = 0,     /* max_i w_i E[L_i] (eq. 3 with weights) */
    ISDB_TRACEUCB_AVERAGE_LOSS = 1, /* sum_i w_i E[L_i] */
    ISDB__TRACEUCB_OBJECTIVE_FORCE_INT = 0x7fffffff
} isdb_traceucb_objective;

/* Which estimate a getter returns. */
typedef enum isdb_traceucb_estimator {
    ISDB_TRACEUCB_OLS = 0,   /* S^-1 b: what the scores use */
    ISDB_TRACEUCB_RIDGE = 1, /* (S + lambda I)^-1 b: what the paper returns (eq. 13) */
    ISDB__TRACEUCB_ESTIMATOR_FORCE_INT = 0x7fffffff
} isdb_traceucb_estimator;

typedef struct isdb_traceucb_config {
    int d;                             /* context dimension, 1..ISDB_MAX_DIM */
    int m;                             /* number of models (the policy's arms), >= 1 */
    isdb_traceucb_mode mode;           /* default ISDB_TRACEUCB_TRACE */
    isdb_traceucb_width width;         /* default ISDB_TRACEUCB_WIDTH_SCALED (measured); THEORY is eq. 11 */
    isdb_traceucb_objective objective; /* default ISDB_TRACEUCB_MAX_LOSS */
    double alpha;                      /* multiplier of Delta, in [0, 1e30]; default 1 */
    double R;                          /* known bound on the largest noise variance, in [0, 1e30]; default 1 */
    double delta;                      /* confidence of eq. 11, in [DBL_MIN, 1) (Prop. 3 needs < 3/4);
                                          default 0.1 */
    int horizon;                       /* n, >= 0; 0: unknown (n = updates so far) */
    double lambda;                     /* ridge of the returned estimates, 0 or in [1e-30, 1e30]; 0: 1/n;
                                          default 0 */
    const double *Sigma;   /* d x d second moment E[x x^T] of the contexts (lower triangle read),
                              copied; NULL (default): estimated from every context seen */
    const double *weights; /* m weights w_i in (0, ISDB_INPUT_MAX], copied; NULL (default): all 1 */
    const double *noise_var; /* STATIC: the m true noise variances, in (0, ISDB_INPUT_MAX], copied */
    int refresh;           /* rebuild a model's factor and trace every this many of its
                              updates, >= 0; 0 (default) means d */
    int sparse_s;          /* > 0: Sparse-Trace-UCB (appendix F) with this known support size
                              s <= d; 0 (default): off */
    int sparse_L;          /* Sparse: stage-1 samples per model; 0 (default):
                              max(s + 1, ceil(2 s ln d)) */
} isdb_traceucb_config;

typedef struct isdb_traceucb {
    isdb_policy base;
    isdb_traceucb_config cfg;  /* resolved; the pointers are the policy's own copies */
    uint64_t n_contexts;       /* contexts behind the Sigma estimate (all updates) */
    uint64_t rebuilds;         /* exact rebuilds so far, every model */
    int stage;                 /* 0: plain; sparse: 1 (support recovery data), 2 (Trace-UCB on it) */
    int de;                    /* dimension of the models' statistics: d, or s in stage 2 */
    int *_k;                   /* m sample counts (stage 2 only when sparse) */
    int *_k1;                  /* m stage-1 counts (sparse), or NULL */
    int *_support;             /* s coordinates, ascending (sparse, stage 2), or NULL */
    int *_full;                /* m: 1 once S_i is numerically positive definite */
    int *_since;               /* m: updates since the model's last rebuild */
    double *_chol;             /* m x d x d: lower factor of S_i = sum x x^T */
    double *_l;                /* m x d: L_i^-1 b_i (the last row of the factor of [X y]) */
    double *_rho;              /* m: sqrt of the residual sum of squares */
    double *_scatter;          /* m x d x d: exact S_i (lower triangle) */
    double *_b;                /* m x d: sum y x */
    double *_yy;               /* m: sum y^2 */
    double *_beta;             /* m x d: OLS estimates (valid where _full) */
    double *_trace;            /* m: Tr(Sigma S_i^-1), or Tr(M S_i^-1) when Sigma is estimated */
    double *_sigma_mat;        /* d x d copy of Sigma, or NULL */
    double *_cov_est;          /* d x d: sum of x x^T over every update (estimated Sigma), or NULL */
    double *_trace_mat;        /* the trace's matrix: _sigma_mat or _cov_est, or (sparse) _trace_block */
    double *_trace_block;      /* sparse: the support's block of Sigma or M (s x s), or NULL */
    double *_stage1;           /* sparse: m x L x (d + 1) stage-1 rows [x y], or NULL */
    double *_gl;               /* sparse: group-lasso scratch 4 d m + 2 d, or NULL */
    double *_weights;          /* m */
    double *_noise_var;        /* m (STATIC), or NULL */
    double *_scores;           /* m scratch */
    double *_trace_next;       /* m scratch */
    double *_work;             /* scratch: 3 d^2 + 9 d */
} isdb_traceucb;

/* Defaults as documented on each field; d and m must be set here. */
ISDB_API isdb_traceucb_config isdb_traceucb_config_init(int d, int m);
ISDB_API isdb_result isdb_traceucb_config_check(const isdb_traceucb_config *cfg, isdb_refusal *why);
ISDB_API isdb_result isdb_traceucb_heap_size(const isdb_traceucb_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_traceucb_init(const isdb_traceucb_config *cfg, const isdb_allocator *alloc,
                                        isdb_traceucb *pol);
ISDB_API isdb_result isdb_traceucb_init_preallocated(const isdb_traceucb_config *cfg, void *heap, size_t heap_bytes,
                                                     isdb_traceucb *pol);
ISDB_API const isdb_traceucb_config *isdb_traceucb_get_config(const isdb_traceucb *pol);
/* As isdb_linucb_config_from_snapshot. */
ISDB_API isdb_result isdb_traceucb_config_from_snapshot(const void *buf, size_t size, isdb_traceucb_config *cfg);
/* k[i]: samples of model i so far (m values; both stages when sparse). */
ISDB_API void isdb_traceucb_get_counts(const isdb_traceucb *pol, int *k);
/* sigma2[i]: the unbiased noise variance estimate RSS_i / (k_i - d); 0
   while model i has none (k_i <= d or S_i singular). */
ISDB_API void isdb_traceucb_get_variances(const isdb_traceucb *pol, double *sigma2);
/* width[i]: Delta_i of the next select (0 while model i has no estimate). */
ISDB_API void isdb_traceucb_get_widths(const isdb_traceucb *pol, double *width);
/* trace[i]: Tr(Sigma S_i^-1), Sigma known or estimated; 0 while model i
   has no estimate. (The paper's Tr(Sigma Sigma_hat^-1) is k_i times it.) */
ISDB_API void isdb_traceucb_get_traces(const isdb_traceucb *pol, double *trace);
/* The current estimate of model i (d values). OLS: ISDB_ERR_SINGULAR while
   model i has none. RIDGE: (S_i + lambda I)^-1 b_i with the config's
   lambda (1/n by default); O(d^3). Sparse: from the stage-2 data on the
   support, zero elsewhere (Algorithm 2, line 17). */
ISDB_API isdb_result isdb_traceucb_estimate(isdb_traceucb *pol, int model, isdb_traceucb_estimator which,
                                            double *beta);
/* loss[i] = ||beta_true_i - beta_hat_i||^2_Sigma for every model (beta_true:
   m x d), with Sigma the known one, or the estimate, or the identity before
   any context. ISDB_ERR_SINGULAR (those entries set to HUGE_VAL) if OLS is
   asked for a model that has none. O(m d^3) for RIDGE. */
ISDB_API isdb_result isdb_traceucb_loss(isdb_traceucb *pol, const double *beta_true, isdb_traceucb_estimator which,
                                        double *loss);
/* Sparse: the s recovered coordinates, ascending; ISDB_ERR_BAD_STATE in
   stage 1 or when the policy is not sparse. */
ISDB_API isdb_result isdb_traceucb_get_support(const isdb_traceucb *pol, int *support);
/* The integer allocation of the STATIC mode for a budget of n samples:
   every model d + 1 samples, then one more each, then one at a time to the
   model of largest w_i sigma_i^2 d / (k_i - d - 1) (MAX_LOSS) or of largest
   decrease w_i sigma_i^2 d / ((k_i - d - 1)(k_i - d)) (AVERAGE_LOSS); ties
   to the lowest index. weights may be NULL (all 1). Needs n >= m (d + 2).
   This is the exact integer optimum of the expected OLS loss of Prop. 1. */
ISDB_API isdb_result isdb_traceucb_static_allocation(int m, int d, int n, const double *noise_var,
                                                     const double *weights, isdb_traceucb_objective objective,
                                                     int *k);
#endif /* ISDB__DECLARE_ALL || ISDB__HAS_TRACEUCB */

#else
/* A float build keeps these names only to say, at the first use, that
   ISD, JBD, OPKB, OAM and Trace-UCB need double (see PRECISION): their
   types are incomplete and their config_init unavailable (declared to
   return a pointer: a C-linkage function returning an incomplete type
   draws clang++'s -Wreturn-type-c-linkage). */
#if defined(__has_attribute)
#if __has_attribute(unavailable)
#define ISDB__NEEDS_DOUBLE \
    __attribute__((unavailable("isdbandit.h: ISD, JBD, OPKB, OAM and Trace-UCB need double; remove ISDB_REAL float")))
#endif
#endif
#ifndef ISDB__NEEDS_DOUBLE
#define ISDB__NEEDS_DOUBLE
#endif
typedef struct isdb_isd_needs_double_precision isdb_isd ISDB__NEEDS_DOUBLE;
typedef struct isdb_isd_config_needs_double_precision isdb_isd_config ISDB__NEEDS_DOUBLE;
typedef struct isdb_opkb_needs_double_precision isdb_opkb ISDB__NEEDS_DOUBLE;
typedef struct isdb_opkb_config_needs_double_precision isdb_opkb_config ISDB__NEEDS_DOUBLE;
typedef struct isdb_oam_needs_double_precision isdb_oam ISDB__NEEDS_DOUBLE;
typedef struct isdb_oam_config_needs_double_precision isdb_oam_config ISDB__NEEDS_DOUBLE;
typedef struct isdb_traceucb_needs_double_precision isdb_traceucb ISDB__NEEDS_DOUBLE;
typedef struct isdb_traceucb_config_needs_double_precision isdb_traceucb_config ISDB__NEEDS_DOUBLE;
typedef struct isdb_jbd_options_needs_double_precision isdb_jbd_options ISDB__NEEDS_DOUBLE;
ISDB__NEEDS_DOUBLE isdb_isd_config *isdb_isd_config_init(int d, ...);
ISDB__NEEDS_DOUBLE isdb_opkb_config *isdb_opkb_config_init(int d, ...);
ISDB__NEEDS_DOUBLE isdb_oam_config *isdb_oam_config_init(int d, ...);
ISDB__NEEDS_DOUBLE isdb_traceucb_config *isdb_traceucb_config_init(int d, ...);
ISDB__NEEDS_DOUBLE int isdb_jbd(int p, ...);
#endif /* !ISDB_REAL_IS_FLOAT */

#ifndef ISDB_NO_SIM
/* ---------------------------------------------------------------------------
   [ENV] Simulation environments and the regret harness.
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
    isdb_result (*reward)(isdb_env *e, int arm, isdb_real *y);
    void (*reset)(isdb_env *e);
} isdb_env_vtable;

struct isdb_env {
    const isdb_env_vtable *vt;
    int d, n_arms;
    uint64_t t;          /* rounds drawn so far */
    uint64_t seed;
    isdb_rng rng;        /* features and parameter path */
    isdb_rng noise_rng;  /* reward noise */
    isdb_real *X;           /* n_arms x d features of the current round */
    isdb_real *means;       /* n_arms expected rewards of the current round */
    isdb_allocator _alloc;
    void *_heap;
    int _owns_heap;
};

/* Draws the next round into e->X and e->means. */
ISDB_API isdb_result isdb_env_next(isdb_env *e);
/* Noisy reward of an arm of the current round (after isdb_env_next). */
ISDB_API isdb_result isdb_env_reward(isdb_env *e, int arm, isdb_real *y);
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
    isdb_real noise_sd;            /* Gaussian noise standard deviation, in [0, 1e30] ([0, 1e6] in float); default 1 */
    isdb_arms_kind arms;        /* default ISDB_ARMS_SPHERE */
    const isdb_real *fixed_arms;   /* FIXED: n_arms x d, copied at init */
    const isdb_real *cov;          /* GAUSSIAN: d x d covariance, copied; NULL: identity */
    isdb_real box_lo, box_hi;      /* BOX: default -1, 1 */
    isdb_real clip_norm;           /* > 0: longer arms are scaled to this norm; default 0 (off) */
    isdb_path_kind path;        /* default ISDB_PATH_PIECEWISE */
    int n_pieces;               /* PIECEWISE */
    const isdb_real *pieces;       /* PIECEWISE: n_pieces x d, copied */
    const uint64_t *switch_at;  /* PIECEWISE: n_pieces - 1 increasing rounds, copied */
    isdb_real sin_center, sin_amp, sin_omega; /* SINUSOID, in [-1e30, 1e30] ([-1e6, 1e6] in float):
                                                 default 0.5, 0.3, 0 */
    isdb_real rot_from, rot_to;    /* ROTATION: angles in radians, in [-1e30, 1e30] (float: 1e6); default 0, pi/2 */
    uint64_t rot_rounds;        /* ROTATION: default 1 */
    void (*theta_fn)(uint64_t t, isdb_real *theta, void *user); /* CALLBACK */
    void *theta_user;
} isdb_linear_env_config;

typedef struct isdb_linear_env {
    isdb_env base;
    isdb_linear_env_config cfg; /* pointers replaced by the env's own copies */
    isdb_real *theta;              /* parameter of the current round */
    isdb_real *_chol;              /* GAUSSIAN: factor of cov */
} isdb_linear_env;

ISDB_API isdb_linear_env_config isdb_linear_env_config_init(int d, int n_arms);
ISDB_API isdb_result isdb_linear_env_config_check(const isdb_linear_env_config *cfg, isdb_refusal *why);
/* Every environment: heap_size reports the bytes of its one block,
   init_preallocated carves it from a caller buffer of heap_bytes (as a
   policy's: ISDB_ERR_BUFFER_TOO_SMALL below heap_size, nothing written),
   init allocates it. A refused init leaves env zeroed. */
ISDB_API isdb_result isdb_linear_env_heap_size(const isdb_linear_env_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_linear_env_init(const isdb_linear_env_config *cfg, const isdb_allocator *alloc,
                                          isdb_linear_env *env);
ISDB_API isdb_result isdb_linear_env_init_preallocated(const isdb_linear_env_config *cfg, void *heap, size_t heap_bytes,
                                                       isdb_linear_env *env);

typedef struct isdb_sim_result {
    uint64_t rounds;
    isdb_real regret;   /* cumulative pseudo-regret: sum of max_k means_k - means_arm */
    isdb_real reward;   /* sum of the noisy rewards observed */
    isdb_real seconds;  /* processor time of the whole run (clock()) */
} isdb_sim_result;

/* Plays p against e for T rounds from their current states. cum_regret,
   if not NULL, receives the cumulative pseudo-regret after each round (T
   values). Stops at the first error and returns it (res then covers the
   rounds played). Allocates nothing. */
ISDB_API isdb_result isdb_sim_run(isdb_policy *p, isdb_env *e, uint64_t T, isdb_real *cum_regret,
                                  isdb_sim_result *res);

#if !ISDB_REAL_IS_FLOAT /* double only: see PRECISION */
#if ISDB__DECLARE_ALL || ISDB__HAS_ISD
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
    double gamma_lo, gamma_hi; /* lo < hi, both in [-1e30, 1e30]; default 0.5, 1.5 */
    int normalize_gamma0;     /* 1: the drawn gammat0 scaled to unit norm (authors' code); default 0 */
    uint64_t cov_seed;        /* the offline covariance sequence; default 42 */
    int cov_period;           /* offline rows per covariance draw, >= 1; default 400 */
    double drift_amp;         /* in [-1e30, 1e30]; default 1.5 */
    double drift_freq;        /* finite; default 0.25 */
    int drift_code;           /* 1: the authors' indexing of the drift (see above); default 0 */
    double res_lo, res_hi;    /* online residual coordinates, lo < hi in [-1e30, 1e30]; default 0.5, 1.5 */
    /* Online residual path: called each round t = 0, 1, ... with the p_res
       residual coordinates (the values of the previous round; at t = 0
       the uniform draw) to update in place. NULL: constant. */
    void (*res_path)(uint64_t t, int p_res, double *res, void *user);
    void *res_user;
    double noise_sd;          /* online noise sd, in [0, 1e30]; default 1 */
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
    double *_cov_factor, *_g; /* online covariance factor (U coordinates); scratch */
    int *_sizes, *_resflag;
} isdb_isd_env;

ISDB_API isdb_isd_env_config isdb_isd_env_config_init(int d, int n_arms, int n_blocks, const int *block_sizes,
                                                      const int *residual);
ISDB_API isdb_result isdb_isd_env_config_check(const isdb_isd_env_config *cfg, isdb_refusal *why);
ISDB_API isdb_result isdb_isd_env_heap_size(const isdb_isd_env_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_isd_env_init(const isdb_isd_env_config *cfg, const isdb_allocator *alloc,
                                       isdb_isd_env *env);
ISDB_API isdb_result isdb_isd_env_init_preallocated(const isdb_isd_env_config *cfg, void *heap, size_t heap_bytes,
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
ISDB_API void isdb_isd_env_get_invariant_basis(const isdb_isd_env *env, double *U_inv);
#endif /* ISDB__DECLARE_ALL || ISDB__HAS_ISD */

#if ISDB__DECLARE_ALL || ISDB__HAS_OPKB
/* Fixed-arm kernel environments (Hong, Li, Tewari, AISTATS 2023, sec. 6 and
   App. J). The arms (given, or drawn uniformly on the unit sphere from the
   seed) are the same every round. The expected reward of arm x at round t:
     ISDB_KENV_GP_SWITCH  s(t) m(x): m ~ N(0, K) on the arms (K of `kernel`,
                          factored by eigendecomposition, so a singular K
                          is fine), rescaled so that max |m| = amplitude;
                          s(t) = +1, and changes sign at each round of
                          switch_at (Env 1: {3000}, Env 2: {1500, 5000}).
     ISDB_KENV_COSINE     amplitude cos(freq x.theta + phase(t)), theta
                          uniform on the unit sphere; phase piecewise linear
                          through the knots (phase_at[k], phase[k]), constant
                          before the first and after the last (0 without
                          knots).
   Noise: Gaussian with sd noise_sd; with y_bound > 0 it is truncated
   symmetrically to [-(y_bound - |r|), y_bound - |r|] (mean still r), so
   |y| <= y_bound as the paper's analysis needs (its authors' code does
   this with y_bound 1). The arms, m and theta come from `seed` at init;
   noise from the base noise stream. */
typedef enum isdb_kernel_env_kind {
    ISDB_KENV_GP_SWITCH = 0,
    ISDB_KENV_COSINE = 1,
    ISDB__KENV_FORCE_INT = 0x7fffffff
} isdb_kernel_env_kind;

typedef struct isdb_kernel_env_config {
    int d, n_arms;              /* n_arms <= 4096 */
    uint64_t seed;              /* default 1 */
    const double *arms;         /* n_arms x d, copied; NULL (default): drawn on the sphere */
    isdb_kernel_env_kind kind;  /* default ISDB_KENV_GP_SWITCH */
    isdb_kernel kernel;         /* GP_SWITCH prior; default ISDB_KERNEL_RBF */
    double length_scale;        /* >= 1e-150; default 0.2 */
    const double *gram;         /* GP_SWITCH with ISDB_KERNEL_GRAM: n_arms x n_arms */
    double amplitude;           /* largest |expected reward|, in [0, 1e30]; default 0.8 */
    int n_switches;             /* GP_SWITCH; default 0 */
    const uint64_t *switch_at;  /* n_switches increasing rounds, copied */
    double freq;                /* COSINE; default 3 */
    int n_phase;                /* COSINE knots; default 0 */
    const uint64_t *phase_at;   /* n_phase non-decreasing rounds, copied */
    const double *phase;        /* n_phase phases (radians), copied */
    double noise_sd;            /* in [0, 1e30]; default 0.1 */
    double y_bound;             /* default 1; 0: no truncation */
} isdb_kernel_env_config;

typedef struct isdb_kernel_env {
    isdb_env base;
    isdb_kernel_env_config cfg; /* pointers replaced by the env's copies (gram: NULL) */
    double *f;                  /* GP_SWITCH: m (n_arms); COSINE: x.theta per arm */
    double *theta;              /* COSINE: d */
} isdb_kernel_env;

ISDB_API isdb_kernel_env_config isdb_kernel_env_config_init(int d, int n_arms);
ISDB_API isdb_result isdb_kernel_env_config_check(const isdb_kernel_env_config *cfg, isdb_refusal *why);
ISDB_API isdb_result isdb_kernel_env_heap_size(const isdb_kernel_env_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_kernel_env_init(const isdb_kernel_env_config *cfg, const isdb_allocator *alloc,
                                          isdb_kernel_env *env);
ISDB_API isdb_result isdb_kernel_env_init_preallocated(const isdb_kernel_env_config *cfg, void *heap, size_t heap_bytes,
                                                       isdb_kernel_env *env);
/* The phase (COSINE) or the sign s(t) (GP_SWITCH) at round t. */
ISDB_API double isdb_kernel_env_drift(const isdb_kernel_env *env, uint64_t t);
#endif /* ISDB__DECLARE_ALL || ISDB__HAS_OPKB */

#if ISDB__DECLARE_ALL || ISDB__HAS_OAM
/* Finitely many contexts (Hao et al. section 2): each round context m is
   drawn with probability probs[m] and its fixed action set (n_arms x d) is
   shown; rewards are x.theta plus Gaussian noise. `context` holds the
   context of the current round. */
typedef struct isdb_context_env_config {
    int d, n_arms, n_contexts;
    uint64_t seed;         /* default 1 */
    double noise_sd;       /* in [0, 1e30]; default 1 */
    const double *arms;    /* n_contexts x n_arms x d, copied */
    const double *probs;   /* n_contexts weights >= 0 with a positive sum (normalised), copied; NULL: uniform */
    const double *theta;   /* d, copied */
} isdb_context_env_config;

typedef struct isdb_context_env {
    isdb_env base;
    isdb_context_env_config cfg; /* pointers replaced by the env's own copies */
    int context;                 /* context of the current round (-1 before the first) */
    double *_cdf;                /* cumulative probabilities */
} isdb_context_env;

ISDB_API isdb_context_env_config isdb_context_env_config_init(int d, int n_arms, int n_contexts);
ISDB_API isdb_result isdb_context_env_config_check(const isdb_context_env_config *cfg, isdb_refusal *why);
ISDB_API isdb_result isdb_context_env_heap_size(const isdb_context_env_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_context_env_init(const isdb_context_env_config *cfg, const isdb_allocator *alloc,
                                           isdb_context_env *env);
ISDB_API isdb_result isdb_context_env_init_preallocated(const isdb_context_env_config *cfg, void *heap, size_t heap_bytes,
                                                        isdb_context_env *env);
#endif /* ISDB__DECLARE_ALL || ISDB__HAS_OAM */

#if ISDB__DECLARE_ALL || ISDB__HAS_TRACEUCB
/* Active learning of m linear models (the setting of Trace-UCB): each
   round one context x ~ N(0, Sigma) is drawn and shown as every row of X
   (so n_arms = m and any row is the context); means[i] = x . beta_i, and
   the reward of model i adds N(0, noise_var[i]) noise from noise_rng. */
typedef struct isdb_active_env_config {
    int d, m;
    uint64_t seed;           /* default 1 */
    const double *Sigma;     /* d x d covariance of the contexts, copied; NULL (default): identity */
    const double *noise_var; /* m noise variances in [0, 1e30], copied; NULL (default): all 1 */
    const double *beta;      /* m x d parameters, copied; NULL (default): drawn N(0, I) from rng at
                                every reset, before the first context */
} isdb_active_env_config;

typedef struct isdb_active_env {
    isdb_env base;
    isdb_active_env_config cfg; /* pointers replaced by the env's own copies (beta: NULL if drawn) */
    double *beta;               /* m x d parameters of the current run */
    double *_chol;              /* factor of Sigma */
    double *_noise_sd;          /* m */
    double *_z;                 /* d scratch */
} isdb_active_env;

ISDB_API isdb_active_env_config isdb_active_env_config_init(int d, int m);
ISDB_API isdb_result isdb_active_env_config_check(const isdb_active_env_config *cfg, isdb_refusal *why);
ISDB_API isdb_result isdb_active_env_heap_size(const isdb_active_env_config *cfg, size_t *bytes);
ISDB_API isdb_result isdb_active_env_init(const isdb_active_env_config *cfg, const isdb_allocator *alloc,
                                          isdb_active_env *env);
ISDB_API isdb_result isdb_active_env_init_preallocated(const isdb_active_env_config *cfg, void *heap, size_t heap_bytes,
                                                       isdb_active_env *env);
#endif /* ISDB__DECLARE_ALL || ISDB__HAS_TRACEUCB */
#endif /* !ISDB_REAL_IS_FLOAT */

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
#ifdef ISDB_NO_MALLOC
#ifdef ISDB_MALLOC
#error "isdbandit.h: ISDB_NO_MALLOC excludes ISDB_MALLOC and ISDB_FREE"
#endif
#elif !defined(ISDB_MALLOC)
#include <stdlib.h>
#define ISDB_MALLOC(n) malloc(n)
#define ISDB_FREE(p) free(p)
#endif

/* ISDB__COLD marks what runs rarely or offline (ISD's estimate, its
   monitor test, refits and demotions inside the update, adaptive's cuts,
   OPKB's epoch and block starts, Trace-UCB's support recovery, the
   environments' inits and draws), ISDB__ONCE what runs once per object
   (configs, layouts, heap sizes, inits, resets, snapshots, explain):
   GCC and clang place both as cold code. Neither touches select,
   update, scores or probs; together they cut the machine code by a
   sixth and the compile time by 15 to 20% (bench/README.md, "Compile
   time").
   ISDB__CALL_PRIVATE keeps small functions as calls: the steps the cold
   code repeats (refusals, serializer steps, heap carving), and helpers
   that run at most once a step (the round's checks, the argmax, a solve
   for theta, the identity, the symmetrised copy), whose inlined copies
   cost 2.2% of the implementation file's compile instructions for a
   call's few nanoseconds.
   ISDB__COLD_O1: GCC also compiles the ISDB__COLD code at -O1 (the
   optimize attribute) in an optimised build: 10% less compile time at
   -O2, ISD's offline estimate within a few percent (bench/README.md).
   The solvers those rare paths call (OPKB's OP solve, OAM's allocation,
   JBD) stay at -O2: at -O1 they took 20 to 28% longer, and OPKB's and
   OAM's run time is mostly theirs.
   ISDB__ONCE_O0: the once-per-object code is not optimised at all
   (GCC's optimize("O0"), clang's optnone): 7% fewer instructions for
   GCC (9 to 12% less CPU at best) and 8 to 16% less CPU for clang; it
   runs once per object, in microseconds. The serializer's per-value
   steps (ISDB__CALL_PRIVATE) stay optimised: a snapshot's cost is
   theirs (make test's snapshot-heavy test took 1.7x at O0). GCC
   documents the attribute for debugging rather than production code;
   here it only lowers the level of code that runs once or rarely, and
   both are off for other compilers, -O0, -Os and with ISDB_NO_COLD_O1.
   -Og builds get them too (no macro tells -Og apart). -ffp-contract=off
   holds in that code (same bits); with contraction allowed and FMA in
   the target, GCC forms no FMA there at -O1 or -O0. */
#if defined(__OPTIMIZE__) && !defined(__OPTIMIZE_SIZE__) && !defined(ISDB_NO_COLD_O1) && !defined(__INTEL_COMPILER)
#if defined(__clang__)
#define ISDB__COLD_O1
#define ISDB__ONCE_O0 , optnone, noinline
#elif defined(__GNUC__)
#define ISDB__COLD_O1 , optimize("O1")
#define ISDB__ONCE_O0 , optimize("O0")
#endif
#endif
#ifndef ISDB__COLD_O1
#define ISDB__COLD_O1
#define ISDB__ONCE_O0
#endif
#if defined(__GNUC__) || defined(__clang__)
#define ISDB__PRIVATE static __attribute__((unused))
#define ISDB__COLD __attribute__((cold ISDB__COLD_O1))
#define ISDB__COLD_PRIVATE static __attribute__((unused, cold ISDB__COLD_O1))
#define ISDB__ONCE __attribute__((cold ISDB__ONCE_O0))
#define ISDB__ONCE_PRIVATE static __attribute__((unused, cold ISDB__ONCE_O0))
#define ISDB__CALL_PRIVATE static __attribute__((unused, noinline))
#else
#define ISDB__PRIVATE static
#define ISDB__COLD
#define ISDB__COLD_PRIVATE static
#define ISDB__ONCE
#define ISDB__ONCE_PRIVATE static
#define ISDB__CALL_PRIVATE static
#endif

/* The libm functions and limits of isdb_real. A literal that is not a
   small integer goes through ISDB__R, so a float build never computes in
   double behind the user's back (-Wdouble-promotion keeps it so). */
#if ISDB_REAL_IS_FLOAT
#define isdb__sqrt sqrtf
#define isdb__log logf
#define isdb__exp expf
#define isdb__fabs fabsf
#define isdb__pow powf
#define isdb__log1p log1pf
#define isdb__expm1 expm1f
#define isdb__floor floorf
#define isdb__ceil ceilf
#define isdb__cos cosf
#define isdb__sin sinf
#define isdb__atan2 atan2f
#define isdb__fmin fminf
#define isdb__fmax fmaxf
#define isdb__hypot hypotf
#define ISDB__REAL_MAX FLT_MAX
#define ISDB__REAL_MIN FLT_MIN
#define ISDB__EPS FLT_EPSILON
/* Squares of numbers below this cannot overflow. */
#define ISDB__SQRT_HUGE 1e18f
/* Largest |sum - 1| a stored probability vector may show. */
#define ISDB__SIMPLEX_TOL 1e-4f
#else
#define isdb__sqrt sqrt
#define isdb__log log
#define isdb__exp exp
#define isdb__fabs fabs
#define isdb__pow pow
#define isdb__log1p log1p
#define isdb__expm1 expm1
#define isdb__floor floor
#define isdb__ceil ceil
#define isdb__cos cos
#define isdb__sin sin
#define isdb__atan2 atan2
#define isdb__fmin fmin
#define isdb__fmax fmax
#define isdb__hypot hypot
#define ISDB__REAL_MAX DBL_MAX
#define ISDB__REAL_MIN DBL_MIN
#define ISDB__EPS DBL_EPSILON
#define ISDB__SQRT_HUGE 1e150
/* Slack that lets floor() see a whole number through a rounding error
   (float: see isdb__floor_whole). */
#define ISDB__FLOOR_SLACK 1e-9
#define ISDB__SIMPLEX_TOL 1e-6
#endif
#define ISDB__R(c) ((isdb_real)(c))

#define ISDB__PI ISDB__R(3.14159265358979323846)
#define ISDB__E_MINUS_1 ISDB__R(1.71828182845904523536)
/* Ridge bounds: with inputs below ISDB_INPUT_MAX they keep every estimate
   and score finite. */
#if ISDB_REAL_IS_FLOAT
#define ISDB__LAMBDA_MIN 1e-6f
#define ISDB__LAMBDA_MAX 1e6f
#else
#define ISDB__LAMBDA_MIN 1e-30
#define ISDB__LAMBDA_MAX 1e30
#endif

/* ---------------------------------------------------------------------------
   Small helpers
   ------------------------------------------------------------------------ */

ISDB__PRIVATE int isdb__finite(isdb_real x) { return x - x == 0; }

ISDB__PRIVATE int isdb__min_int(int a, int b) { return a < b ? a : b; }
ISDB__PRIVATE int isdb__max_int(int a, int b) { return a > b ? a : b; }

ISDB__PRIVATE isdb_real isdb__dot(int n, const isdb_real *a, const isdb_real *b) {
    isdb_real s = 0;
    int i;
    for (i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

ISDB__PRIVATE void isdb__copy(int n, const isdb_real *src, isdb_real *dst) {
    if (n > 0 && src != dst) memcpy(dst, src, (size_t)n * sizeof(isdb_real));
}

ISDB__PRIVATE void isdb__swap_ptr(isdb_real **a, isdb_real **b) {
    isdb_real *t = *a;
    *a = *b;
    *b = t;
}

ISDB__PRIVATE void isdb__zero(int n, isdb_real *v) {
    int i;
    for (i = 0; i < n; ++i) v[i] = 0;
}

/* ISDB_OK if every value is finite and within ISDB_INPUT_MAX. A select
   checks K d values (a fifth of LinUCB's float select at d = 50 when
   checked one at a time), so with GCC or clang on x86-64 or AArch64 the
   values are first read as 16-byte vectors of their bits: with the sign
   cleared, a value's bits compare as integers as its magnitude does, and
   NaN and the infinities lie above every finite value's, so
   bits(ISDB_INPUT_MAX) - bits(|v|) is negative exactly for the values
   refused. The signs are ORed, with no exit on the way; if any is set,
   one value at a time from the start finds the first refused value's
   code, as before. */
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__SSE2__) || defined(__aarch64__)) && \
    !defined(ISDB__SCALAR_LANES)
#define ISDB__VEC_CHECK 1
#if ISDB_REAL_IS_FLOAT
typedef int isdb__check_bits;
#else
typedef long long isdb__check_bits;
#endif
typedef isdb__check_bits isdb__check_vec __attribute__((vector_size(16), aligned(sizeof(isdb_real)), may_alias));
#endif
/* ISDB_INPUT_MAX as an isdb_real, read through a volatile store. With
   excess precision (FLT_EVAL_METHOD 2: x87, -std=c99's
   -fexcess-precision=standard) the constant 1e64 is evaluated in long
   double, where it is not the double 1e64, and the double equal to the
   bound compared above it: refused. The store rounds it to the type the
   inputs have, so the bound itself is accepted and the next real above
   it refused, with any evaluation method. */
ISDB__PRIVATE isdb_real isdb__input_max(void) {
    volatile isdb_real bound = ISDB_INPUT_MAX;
    return bound;
}

ISDB__PRIVATE isdb_result isdb__check_input(const isdb_real *v, int n) {
    int i = 0;
#ifdef ISDB__VEC_CHECK
    enum { lanes = 16 / sizeof(isdb_real) };
    const isdb_real max_value = ISDB_INPUT_MAX;
    const isdb__check_bits magnitude = (isdb__check_bits)((1ull << (8 * sizeof(isdb_real) - 1)) - 1); /* not the sign */
    isdb__check_bits max_bits;
    isdb__check_vec a0 = {0}, a1 = {0};
    int j;
    memcpy(&max_bits, &max_value, sizeof max_bits);
    for (; i + 2 * (int)lanes <= n; i += 2 * (int)lanes) {
        const isdb__check_vec *x = (const isdb__check_vec *)(v + i);
        a0 |= max_bits - (x[0] & magnitude);
        a1 |= max_bits - (x[1] & magnitude);
    }
    a0 |= a1;
    for (j = 0; j < (int)lanes; ++j)
        if (a0[j] < 0) i = 0;
#endif
    if (i < n) {
        const isdb_real bound = isdb__input_max();
        for (; i < n; ++i)
            if (!(isdb__fabs(v[i]) <= bound)) return isdb__finite(v[i]) ? ISDB_ERR_RANGE : ISDB_ERR_NONFINITE;
    }
    return ISDB_OK;
}

ISDB__PRIVATE int isdb__all_finite(const isdb_real *v, int n) {
    int i;
    for (i = 0; i < n; ++i)
        if (!isdb__finite(v[i])) return 0;
    return 1;
}

/* Config checks: finite and positive, finite and non-negative, a ridge. */
ISDB__PRIVATE int isdb__positive(isdb_real x) { return isdb__finite(x) && x > 0; }
ISDB__PRIVATE int isdb__nonneg(isdb_real x) { return isdb__finite(x) && x >= 0; }
ISDB__PRIVATE int isdb__ridge_ok(isdb_real lambda) { return lambda >= ISDB__LAMBDA_MIN && lambda <= ISDB__LAMBDA_MAX; }

/* Refusals. Each isdb__want_* returns 1 if its value is valid, otherwise
   fills why (if not NULL) with the field, its range and the text, and
   returns 0; a check is a chain of them joined by &&, one per field, so
   why names the first field refused. NaN fails every range. */
#if ISDB_REAL_IS_FLOAT
#define ISDB__RIDGE_TEXT "[1e-6, 1e6]"
#else
#define ISDB__RIDGE_TEXT "[1e-30, 1e30]"
#endif
ISDB__PRIVATE int isdb__refuse(isdb_refusal *why, const char *field, double lo, double hi, const char *range) {
    if (why) {
        why->field = field;
        why->lo = lo;
        why->hi = hi;
        why->range = range;
    }
    return 0;
}
/* Starts a check: nothing refused yet. */
ISDB__PRIVATE int isdb__want_start(isdb_refusal *why) {
    isdb__refuse(why, NULL, (double)NAN, (double)NAN, NULL);
    return 1;
}
/* ok, or a refusal of a range that is not an interval. */
ISDB__PRIVATE int isdb__want(isdb_refusal *why, int ok, const char *field, const char *range) {
    return ok ? 1 : isdb__refuse(why, field, (double)NAN, (double)NAN, range);
}
ISDB__PRIVATE int isdb__want_ptr(isdb_refusal *why, const void *ptr, const char *field) {
    return isdb__want(why, ptr != NULL, field, "non-NULL");
}
/* v in [lo, hi]; open & 1 excludes lo, open & 2 excludes hi. */
ISDB__CALL_PRIVATE int isdb__want_real(isdb_refusal *why, isdb_real v, const char *field, isdb_real lo, isdb_real hi,
                                  int open, const char *range) {
    int ok = ((open & 1) ? v > lo : v >= lo) && ((open & 2) ? v < hi : v <= hi);
    return ok ? 1 : isdb__refuse(why, field, (double)lo, (double)hi, range);
}
ISDB__CALL_PRIVATE int isdb__want_finite(isdb_refusal *why, isdb_real v, const char *field) {
    return isdb__want_real(why, v, field, -ISDB__REAL_MAX, ISDB__REAL_MAX, 0, "finite");
}
ISDB__CALL_PRIVATE int isdb__want_pos(isdb_refusal *why, isdb_real v, const char *field) {
    return isdb__want_real(why, v, field, 0, ISDB__REAL_MAX, 1, "> 0, finite");
}
ISDB__CALL_PRIVATE int isdb__want_nonneg(isdb_refusal *why, isdb_real v, const char *field) {
    return isdb__want_real(why, v, field, 0, ISDB__REAL_MAX, 0, ">= 0, finite");
}
ISDB__CALL_PRIVATE int isdb__want_open01(isdb_refusal *why, isdb_real v, const char *field) {
    return isdb__want_real(why, v, field, 0, 1, 3, "(0, 1)");
}
ISDB__CALL_PRIVATE int isdb__want_ridge(isdb_refusal *why, isdb_real v, const char *field) {
    return isdb__want_real(why, v, field, ISDB__LAMBDA_MIN, ISDB__LAMBDA_MAX, 0, ISDB__RIDGE_TEXT);
}
/* Scales (noise, bounds on norms, width multipliers, amplitudes) are
   bounded by ISDB__SCALE_MAX, the ridge's bound: with the ridge and the
   inputs in their ranges, products of a few of them stay finite (beyond
   it the sweep of tests/test_config_fields.c found infinite scores). A
   confidence level delta must be a normal number, so 1 / delta is finite. */
#define ISDB__SCALE_MAX ISDB__LAMBDA_MAX
#if ISDB_REAL_IS_FLOAT
#define ISDB__SCALE_TEXT "[0, 1e6]"
#define ISDB__POS_SCALE_TEXT "(0, 1e6]"
#define ISDB__BOUNDED_TEXT "[-1e6, 1e6]"
#define ISDB__DELTA_MIN FLT_MIN
#define ISDB__DELTA_TEXT "[FLT_MIN, 1)"
#else
#define ISDB__SCALE_TEXT "[0, 1e30]"
#define ISDB__POS_SCALE_TEXT "(0, 1e30]"
#define ISDB__BOUNDED_TEXT "[-1e30, 1e30]"
#define ISDB__DELTA_MIN DBL_MIN
#define ISDB__DELTA_TEXT "[DBL_MIN, 1)"
#endif
ISDB__CALL_PRIVATE int isdb__want_scale(isdb_refusal *why, isdb_real v, const char *field) {
    return isdb__want_real(why, v, field, 0, ISDB__SCALE_MAX, 0, ISDB__SCALE_TEXT);
}
ISDB__CALL_PRIVATE int isdb__want_pos_scale(isdb_refusal *why, isdb_real v, const char *field) {
    return isdb__want_real(why, v, field, 0, ISDB__SCALE_MAX, 1, ISDB__POS_SCALE_TEXT);
}
ISDB__CALL_PRIVATE int isdb__want_bounded(isdb_refusal *why, isdb_real v, const char *field) {
    return isdb__want_real(why, v, field, -ISDB__SCALE_MAX, ISDB__SCALE_MAX, 0, ISDB__BOUNDED_TEXT);
}
ISDB__CALL_PRIVATE int isdb__want_delta(isdb_refusal *why, isdb_real v, const char *field) {
    return isdb__want_real(why, v, field, ISDB__DELTA_MIN, 1, 2, ISDB__DELTA_TEXT);
}
ISDB__PRIVATE int isdb__want_int(isdb_refusal *why, int v, const char *field, int lo, int hi, const char *range) {
    return v >= lo && v <= hi ? 1 : isdb__refuse(why, field, (double)lo, (double)hi, range);
}
ISDB__CALL_PRIVATE int isdb__want_count(isdb_refusal *why, int v, const char *field) {
    return isdb__want_int(why, v, field, 0, INT_MAX, ">= 0");
}
ISDB__CALL_PRIVATE int isdb__want_flag(isdb_refusal *why, int v, const char *field) {
    return isdb__want_int(why, v, field, 0, 1, "0 or 1");
}
ISDB__CALL_PRIVATE int isdb__want_u64(isdb_refusal *why, uint64_t v, const char *field, uint64_t lo, uint64_t hi,
                                 const char *range) {
    return v >= lo && v <= hi ? 1 : isdb__refuse(why, field, (double)lo, (double)hi, range);
}
/* The end of a config check. */
ISDB__PRIVATE isdb_result isdb__checked(int ok) { return ok ? ISDB_OK : ISDB_ERR_INVALID_ARG; }

/* floor(x) of an x computed with a rounding error or two, so that exact
   powers (pow(1000, 2/3) = 99.999...) stay whole. In float the slack is
   relative, 2 eps x: an absolute 1e-3 was tens of ulps for small x and
   floored 645^(3/7) = 15.9992 (a BOB window) to 16. */
ISDB__PRIVATE isdb_real isdb__floor_whole(isdb_real x) {
#if ISDB_REAL_IS_FLOAT
    return isdb__floor(x + x * (2 * ISDB__EPS));
#else
    return isdb__floor(x + ISDB__FLOOR_SLACK);
#endif
}

/* Index of the largest value, the lowest on ties. */
ISDB__CALL_PRIVATE int isdb__argmax(const isdb_real *v, int n) {
    int k, best = 0;
    for (k = 1; k < n; ++k)
        if (v[k] > v[best]) best = k;
    return best;
}

/* Copies the lower triangle of A into its upper triangle. */
ISDB__CALL_PRIVATE void isdb__symmetrize_lower(int n, isdb_real *A) {
    int i, j;
    for (i = 0; i < n; ++i)
        for (j = 0; j < i; ++j) A[j * n + i] = A[i * n + j];
}

ISDB__CALL_PRIVATE void isdb__identity(int n, isdb_real *A, isdb_real diag) {
    int i;
    isdb__zero(n * n, A);
    for (i = 0; i < n; ++i) A[i * n + i] = diag;
}

/* Removes const where an interface shares one function for reading and
   writing (save passes a const policy to the serializer, which only reads
   it in that mode). */
ISDB__PRIVATE void *isdb__unconst(const void *p) { return (void *)(uintptr_t)p; }

const char *isdb_version(void) { return ISDB_VERSION_STRING; }

ISDB__ONCE const char *isdb_result_string(isdb_result r) {
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
   [RNG] Random numbers
   ------------------------------------------------------------------------ */

ISDB__PRIVATE uint64_t isdb__splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

ISDB__PRIVATE uint64_t isdb__rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

ISDB__COLD void isdb_rng_seed(isdb_rng *rng, uint64_t seed) {
    uint64_t x = seed;
    int i;
    ISDB_ASSERT(rng);
    if (!rng) return;
    for (i = 0; i < 4; ++i) rng->s[i] = isdb__splitmix64(&x);
    rng->spare = 0;
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

isdb_real isdb_rng_uniform(isdb_rng *rng) {
#if ISDB_REAL_IS_FLOAT
    return (float)(isdb_rng_next(rng) >> 40) * (1.0f / 16777216.0f);
#else
    return (double)(isdb_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
#endif
}

isdb_real isdb_rng_normal(isdb_rng *rng) {
    isdb_real u, v, s, m;
    if (rng->has_spare) {
        rng->has_spare = 0;
        return rng->spare;
    }
    do {
        u = 2 * isdb_rng_uniform(rng) - 1;
        v = 2 * isdb_rng_uniform(rng) - 1;
        s = u * u + v * v;
    } while (s >= 1 || s == 0);
    m = isdb__sqrt(-2 * isdb__log(s) / s);
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
   [LINALG] Linear algebra
   ------------------------------------------------------------------------ */

/* ---------------------------------------------------------------------------
   [LINALG.CHOLESKY] Cholesky factorisation and the one-arm triangular solve
   ------------------------------------------------------------------------ */

ISDB__PRIVATE int isdb__dim_ok(int n) { return n >= 1 && n <= ISDB_MAX_DIM; }

isdb_result isdb_chol(int n, isdb_real *A) {
    int i, j, k;
    if (!isdb__dim_ok(n) || !A) return ISDB_ERR_INVALID_ARG;
    for (i = 0; i < n; ++i)
        if (!isdb__all_finite(A + i * n, i + 1)) return ISDB_ERR_NONFINITE;
    for (i = 0; i < n; ++i) {
        isdb_real *Li = A + i * n;
        isdb_real s, diag = Li[i];
        for (j = 0; j < i; ++j) {
            const isdb_real *Lj = A + j * n;
            s = Li[j];
            for (k = 0; k < j; ++k) s -= Li[k] * Lj[k];
            Li[j] = s / Lj[j];
        }
        s = diag;
        for (k = 0; k < i; ++k) s -= Li[k] * Li[k];
        /* The pivot over the original diagonal entry is scale-free; below
           ISDB__EPS it is rounding noise. Written so that NaN fails. */
        if (!(s > ISDB__EPS * diag)) return ISDB_ERR_NOT_SPD;
        Li[i] = isdb__sqrt(s);
        for (j = i + 1; j < n; ++j) Li[j] = 0;
    }
    return ISDB_OK;
}

/* Triangular solve with the lower factor L; divides by L_ii, or multiplies
   by inv_diag[i] = 1 / L_ii when given (the policies keep it, so their hot
   loops have no division on the dependency chain). x may alias b. */
ISDB__PRIVATE void isdb__tri_solve(int n, const isdb_real *L, const isdb_real *inv_diag, int trans, const isdb_real *b,
                                   isdb_real *x) {
    int i, k;
    isdb__copy(n, b, x);
    if (!trans) {
        for (i = 0; i < n; ++i) {
            const isdb_real *Li = L + i * n;
            isdb_real s = x[i];
            for (k = 0; k < i; ++k) s -= Li[k] * x[k];
            x[i] = inv_diag ? s * inv_diag[i] : s / Li[i];
        }
    } else {
        /* Column-oriented back substitution: row i of L is column i of L^T. */
        for (i = n - 1; i >= 0; --i) {
            const isdb_real *Li = L + i * n;
            isdb_real xi = inv_diag ? x[i] * inv_diag[i] : x[i] / Li[i];
            x[i] = xi;
            for (k = 0; k < i; ++k) x[k] -= Li[k] * xi;
        }
    }
}

/* Four arms at a time ("lanes"): lane a of an n-vector block lives at
   W[i * ISDB__LANES + a]. Each lane gets exactly the operations of the
   one-arm routines (isdb__tri_solve, isdb__dot), in the same order, so
   the same bits; the lanes are independent chains that keep the FPU
   busy, and the same operation on the four is what compilers vectorize. */
#define ISDB__LANES 4
/* restrict in C99; C++ has none, but its compilers spell it __restrict. */
#ifdef __cplusplus
#if defined(__GNUC__) || defined(__clang__) || defined(_MSC_VER)
#define ISDB__RESTRICT __restrict
#else
#define ISDB__RESTRICT
#endif
#else
#define ISDB__RESTRICT restrict
#endif

/* rows[a] = arm k + a of X (n_arms x n) for a < lanes, repeating the last
   arm where fewer remain; returns how many are real. */
ISDB__PRIVATE int isdb__lanes_rows_n(const isdb_real *X, int n, int n_arms, int k, int lanes, const isdb_real **rows) {
    int a, m = n_arms - k < lanes ? n_arms - k : lanes;
    for (a = 0; a < lanes; ++a) rows[a] = X + (size_t)(k + (a < m ? a : m - 1)) * (size_t)n;
    return m;
}

/* The same for four lanes. */
ISDB__PRIVATE int isdb__lanes_rows(const isdb_real *X, int n, int n_arms, int k, const isdb_real **rows) {
    return isdb__lanes_rows_n(X, n, n_arms, k, ISDB__LANES, rows);
}

/* The kernels, written once. The kernels below are the one place in the
   header where a macro generates function bodies: every width and
   precision (scalars, 16-byte vectors, 32-byte AVX2 vectors; double and
   float) must do each lane's arithmetic exactly as the one-arm routines
   do, in the same order, so the arithmetic is written once, as a
   template, and instantiated per vector type (the instantiations follow
   the templates). Elsewhere the header writes functions out: a macro
   hides code from readers and debuggers (a debugger steps over an
   instantiated kernel as over one line), a cost worth paying only where
   copies must stay identical. A template takes the vector type V
   (isdb_real itself for the scalar kernels), its lanes VL, the vectors
   NV a row of a lane block holds (NV * VL lanes), the blocks NB (two for
   the sixteen-arm kernels: W and W + 8 n), its splat and gather, and the
   rows R0 a pass takes at most. A pass is an always-inline function of R
   rows (a constant where the kernel calls it), its arrays indexed by
   loops the compiler unrolls (ISDB__UNROLL), so the sums live in
   registers as the named scalars of hand-written kernels do; the kernel
   takes passes of R0 rows, then halves. How many rows a pass takes
   changes the schedule, never a lane's operations or their order. Two
   kernels stay written out, one function each for every build
   (isdb__lanes8_dots and the float isdb__lanes16_fwd_solve_dots_avx2):
   gcc 12 ran their template instances slower; their comments say by how
   much. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#define ISDB__UNROLL _Pragma("GCC unroll 16")
#else
#define ISDB__UNROLL
#endif
#if defined(__GNUC__) || defined(__clang__)
#define ISDB__KERNEL_INLINE __attribute__((always_inline)) inline
#else
#define ISDB__KERNEL_INLINE
#endif
/* Vector c of row i of an n-row lane block W of NV vectors (VL lanes
   each) a row; with several blocks, c / NV picks the block
   (W + (c / NV) n NV VL). */
#define ISDB__LANES_AT(W, n, i, c, VL, NV)                                                              \
    ((W) + ((size_t)((c) / (NV)) * (size_t)(n) + (size_t)(i)) * (size_t)((NV) * (VL)) + \
     (size_t)((c) % (NV) * (VL)))
#define ISDB__HALF(R) ((R) > 1 ? (R) / 2 : 1)

/* Scalars as one-lane vectors: the scalar kernels are instances too. */
ISDB__PRIVATE ISDB__KERNEL_INLINE isdb_real isdb__splat1(isdb_real x) { return x; }
ISDB__PRIVATE ISDB__KERNEL_INLINE isdb_real isdb__gather1(const isdb_real *const *rows, int a0, int i) { return rows[a0][i]; }

/* The forward solve's pass: rows i .. i + R - 1 of W = L^-1 [rows]
   (inv_diag[i] = 1 / L_ii): each row's terms k < i first, in order, then
   the pass's own triangle, each row scaled and then taken from the rows
   after it (so each row still takes its terms in order); with DOTS,
   dz[c] += w z_row and dw[c] += w w as each row is done, in row order
   (isdb__dot's order). */
#define ISDB__FWD_PASS_TEMPLATE(NAME, ATTR, V, VL, NV, NB, SPLAT, GATHER, R0, DOTS)                    \
    ATTR ISDB__PRIVATE ISDB__KERNEL_INLINE void NAME(int R, int n, int i, const isdb_real *ISDB__RESTRICT L,      \
                                                     const isdb_real *ISDB__RESTRICT inv_diag,                    \
                                                     const isdb_real *const *rows, isdb_real *ISDB__RESTRICT W,   \
                                                     const isdb_real *ISDB__RESTRICT z, V *dz, V *dw) {          \
        const isdb_real *Lr[R0];                                                                                  \
        V s[R0][(NV) * (NB)], m;                                                                                  \
        int r, j, c, k;                                                                                           \
        ISDB__UNROLL for (r = 0; r < R; ++r) Lr[r] = L + (size_t)(i + r) * (size_t)n;                             \
        ISDB__UNROLL for (r = 0; r < R; ++r) ISDB__UNROLL for (c = 0; c < (NV) * (NB); ++c) s[r][c] =             \
            GATHER(rows, c * (VL), i + r);                                                                        \
        for (k = 0; k < i; ++k) {                                                                                 \
            V w[(NV) * (NB)], l[R0];                                                                              \
            ISDB__UNROLL for (c = 0; c < (NV) * (NB); ++c) w[c] = *(const V *)ISDB__LANES_AT(W, n, k, c, VL, NV); \
            ISDB__UNROLL for (r = 0; r < R; ++r) l[r] = SPLAT(Lr[r][k]);                                          \
            ISDB__UNROLL for (r = 0; r < R; ++r) ISDB__UNROLL for (c = 0; c < (NV) * (NB); ++c) s[r][c] -= l[r] * w[c]; \
        }                                                                                                         \
        ISDB__UNROLL for (j = 0; j < R; ++j) {                                                                    \
            m = SPLAT(inv_diag[i + j]);                                                                           \
            ISDB__UNROLL for (c = 0; c < (NV) * (NB); ++c) {                                                      \
                *(V *)ISDB__LANES_AT(W, n, i + j, c, VL, NV) = s[j][c] *= m;                                      \
                if (DOTS) {                                                                                       \
                    dz[c] += s[j][c] * SPLAT(z[i + j]);                                                           \
                    dw[c] += s[j][c] * s[j][c];                                                                   \
                }                                                                                                 \
            }                                                                                                     \
            ISDB__UNROLL for (r = 1; r < R0; ++r) if (r > j && r < R) {                                           \
                m = SPLAT(Lr[r][i + j]);                                                                          \
                ISDB__UNROLL for (c = 0; c < (NV) * (NB); ++c) s[r][c] -= m * s[j][c];                            \
            }                                                                                                     \
        }                                                                                                         \
    }

/* The passes of a forward solve: R0 rows a pass, then halving passes for
   the last rows. */
#define ISDB__FWD_PASSES(PASS, R0, z, dz, dw)                                                                \
    for (; i + (R0) <= n; i += (R0)) PASS(R0, n, i, L, inv_diag, rows, W, z, dz, dw);                        \
    if ((R0) > 2)                                                                                            \
        for (; i + ISDB__HALF(R0) <= n; i += ISDB__HALF(R0)) PASS(ISDB__HALF(R0), n, i, L, inv_diag, rows, W, z, dz, dw); \
    if ((R0) > 4)                                                                                            \
        for (; i + ISDB__HALF(ISDB__HALF(R0)) <= n; i += ISDB__HALF(ISDB__HALF(R0)))                         \
            PASS(ISDB__HALF(ISDB__HALF(R0)), n, i, L, inv_diag, rows, W, z, dz, dw);                         \
    if ((R0) > 1)                                                                                            \
        for (; i < n; ++i) PASS(1, n, i, L, inv_diag, rows, W, z, dz, dw)

/* W = L^-1 [rows] (n rows of NV * VL lanes). */
#define ISDB__FWD_KERNEL(NAME, PASS, ATTR, R0)                                                                  \
    ATTR ISDB__PRIVATE void NAME(int n, const isdb_real *ISDB__RESTRICT L, const isdb_real *ISDB__RESTRICT inv_diag, \
                                 const isdb_real *const *rows, isdb_real *ISDB__RESTRICT W) {                   \
        int i = 0;                                                                                              \
        ISDB__FWD_PASSES(PASS, R0, NULL, NULL, NULL);                                                        \
    }

/* The same with mean[a] = w_a . z and norm2[a] = w_a . w_a of each lane
   (NB blocks of NV * VL lanes), each sum over the rows in order (the bits
   of isdb__dot), taken as each row of W is done: their chains of
   additions overlap the solve instead of running after it. */
#define ISDB__FWD_DOTS_KERNEL(NAME, PASS, ATTR, V, VL, NC, SPLAT, R0)                                        \
    ATTR ISDB__PRIVATE void NAME(int n, const isdb_real *ISDB__RESTRICT L, const isdb_real *ISDB__RESTRICT inv_diag, \
                                 const isdb_real *const *rows, isdb_real *ISDB__RESTRICT W,                        \
                                 const isdb_real *ISDB__RESTRICT z, isdb_real *mean, isdb_real *norm2) {           \
        V dz[NC], dw[NC];                                                                                          \
        int i = 0, c;                                                                                              \
        ISDB__UNROLL for (c = 0; c < (NC); ++c) dz[c] = dw[c] = SPLAT(0);                                          \
        ISDB__FWD_PASSES(PASS, R0, z, dz, dw);                                                               \
        ISDB__UNROLL for (c = 0; c < (NC); ++c) {                                                                  \
            *(V *)(mean + c * (VL)) = dz[c];                                                         \
            *(V *)(norm2 + c * (VL)) = dw[c];                                                        \
        }                                                                                                          \
    }

/* out[a] = w_a . z and norm2[a] = w_a . w_a of the lanes of W (n rows of
   NV vectors), each over the rows in order. */
#define ISDB__DOTS_KERNEL(NAME, ATTR, V, VL, NV, SPLAT)                                                          \
    ATTR ISDB__PRIVATE void NAME(int n, const isdb_real *W, const isdb_real *z, isdb_real *out, isdb_real *norm2) { \
        V s[NV], q[NV];                                                                                          \
        int i, c;                                                                                                \
        ISDB__UNROLL for (c = 0; c < (NV); ++c) s[c] = q[c] = SPLAT(0);                                          \
        for (i = 0; i < n; ++i) {                                                                                \
            const V zi = SPLAT(z[i]);                                                                            \
            ISDB__UNROLL for (c = 0; c < (NV); ++c) {                                                            \
                const V w = *(const V *)ISDB__LANES_AT(W, n, i, c, VL, NV);                                      \
                s[c] += w * zi;                                                                                  \
                q[c] += w * w;                                                                                   \
            }                                                                                                    \
        }                                                                                                        \
        ISDB__UNROLL for (c = 0; c < (NV); ++c) {                                                                \
            *(V *)(out + c * (VL)) = s[c];                                                          \
            *(V *)(norm2 + c * (VL)) = q[c];                                                        \
        }                                                                                                        \
    }

/* The back solve's pass: columns i, i - 1, .., i - R + 1 of W = L^-T W in
   place (isdb__tri_solve's column-oriented back substitution): each
   column takes the terms of the columns after it in the pass, in order,
   and its scale; then each w_k, k below the pass, takes column i's term,
   then column i - 1's, ... (the scalar order). */
#define ISDB__BACK_PASS_TEMPLATE(NAME, ATTR, V, VL, NV, NB, SPLAT, R0)                                              \
    ATTR ISDB__PRIVATE ISDB__KERNEL_INLINE void NAME(int R, int n, int i, const isdb_real *ISDB__RESTRICT L,        \
                                                     const isdb_real *ISDB__RESTRICT inv_diag,                      \
                                                     isdb_real *ISDB__RESTRICT W) {                                 \
        const isdb_real *Lr[R0];                                                                                    \
        V x[R0][(NV) * (NB)];                                                                                       \
        int r, j, c, k;                                                                                             \
        ISDB__UNROLL for (r = 0; r < R; ++r) {                                                                      \
            Lr[r] = L + (size_t)(i - r) * (size_t)n;                                                                \
            ISDB__UNROLL for (c = 0; c < (NV) * (NB); ++c) {                                                        \
                V *wr = (V *)ISDB__LANES_AT(W, n, i - r, c, VL, NV), t = *wr;                                       \
                ISDB__UNROLL for (j = 0; j < R0; ++j) if (j < r) t -= SPLAT(Lr[j][i - r]) * x[j][c];                \
                *wr = x[r][c] = t * SPLAT(inv_diag[i - r]);                                                         \
            }                                                                                                       \
        }                                                                                                           \
        for (k = 0; k <= i - R; ++k)                                                                                \
            ISDB__UNROLL for (c = 0; c < (NV) * (NB); ++c) {                                                        \
                V *wk = (V *)ISDB__LANES_AT(W, n, k, c, VL, NV), t = *wk;                                           \
                ISDB__UNROLL for (r = 0; r < R; ++r) t -= SPLAT(Lr[r][k]) * x[r][c];                                \
                *wk = t;                                                                                            \
            }                                                                                                       \
    }

/* W = L^-T W in place: R0 columns a pass from the last, then halving. */
#define ISDB__BACK_KERNEL(NAME, PASS, ATTR, R0)                                                                 \
    ATTR ISDB__PRIVATE void NAME(int n, const isdb_real *ISDB__RESTRICT L, const isdb_real *ISDB__RESTRICT inv_diag, \
                                 isdb_real *ISDB__RESTRICT W) {                                                 \
        int i = n - 1;                                                                                          \
        for (; i >= (R0) - 1; i -= (R0)) PASS(R0, n, i, L, inv_diag, W);                                       \
        if ((R0) > 2)                                                                                           \
            for (; i >= ISDB__HALF(R0) - 1; i -= ISDB__HALF(R0)) PASS(ISDB__HALF(R0), n, i, L, inv_diag, W);    \
        if ((R0) > 1)                                                                                           \
            for (; i >= 0; --i) PASS(1, n, i, L, inv_diag, W);                                                  \
    }

/* The V-tilde form's pass: rows i .. i + R - 1 of q[a] = u_a^T Vt u_a (Vt
   symmetric, its lower triangle read; isdb__discounted_width's
   operations per lane): each row's sum of its terms j < i in order, then
   the pass's own triangle (row r's terms j = i .. i + r - 1, in order),
   then the rows enter q in order. */
#define ISDB__FORM_PASS_TEMPLATE(NAME, ATTR, V, VL, NV, NB, SPLAT, R0)                                              \
    ATTR ISDB__PRIVATE ISDB__KERNEL_INLINE void NAME(int R, int n, int i, const isdb_real *ISDB__RESTRICT Vt,       \
                                                     const isdb_real *ISDB__RESTRICT U, V *q) {                     \
        const isdb_real *Vr[R0];                                                                                    \
        V o[R0][(NV) * (NB)], m;                                                                                    \
        const V two = SPLAT(2);                                                                                     \
        int r, j, c;                                                                                                \
        ISDB__UNROLL for (r = 0; r < R; ++r) {                                                                      \
            Vr[r] = Vt + (size_t)(i + r) * (size_t)n;                                                               \
            ISDB__UNROLL for (c = 0; c < (NV) * (NB); ++c) o[r][c] = SPLAT(0);                                      \
        }                                                                                                           \
        for (j = 0; j < i; ++j) {                                                                                   \
            V u[(NV) * (NB)];                                                                                       \
            ISDB__UNROLL for (c = 0; c < (NV) * (NB); ++c) u[c] = *(const V *)ISDB__LANES_AT(U, n, j, c, VL, NV);   \
            ISDB__UNROLL for (r = 0; r < R; ++r) {                                                                  \
                const V a = SPLAT(Vr[r][j]);                                                                        \
                ISDB__UNROLL for (c = 0; c < (NV) * (NB); ++c) o[r][c] += a * u[c];                                 \
            }                                                                                                       \
        }                                                                                                           \
        ISDB__UNROLL for (r = 1; r < R; ++r) ISDB__UNROLL for (j = 0; j < R0; ++j) if (j < r) {                     \
            m = SPLAT(Vr[r][i + j]);                                                                                \
            ISDB__UNROLL for (c = 0; c < (NV) * (NB); ++c) o[r][c] += m * *(const V *)ISDB__LANES_AT(U, n, i + j, c, VL, NV); \
        }                                                                                                           \
        ISDB__UNROLL for (r = 0; r < R; ++r) {                                                                      \
            m = SPLAT(Vr[r][i + r]);                                                                                \
            ISDB__UNROLL for (c = 0; c < (NV) * (NB); ++c) {                                                        \
                const V u = *(const V *)ISDB__LANES_AT(U, n, i + r, c, VL, NV);                                     \
                q[c] += u * (m * u + two * o[r][c]);                                                                \
            }                                                                                                       \
        }                                                                                                           \
    }

/* q[a] = u_a^T Vt u_a of the NC vectors of lanes of U: R0 rows a pass,
   then halving. */
#define ISDB__FORM_KERNEL(NAME, PASS, ATTR, V, VL, NC, SPLAT, R0)                                                  \
    ATTR ISDB__PRIVATE void NAME(int n, const isdb_real *ISDB__RESTRICT Vt, const isdb_real *ISDB__RESTRICT U,      \
                                 isdb_real *qout) {                                                                 \
        V q[NC];                                                                                                   \
        int i = 0, c;                                                                                              \
        ISDB__UNROLL for (c = 0; c < (NC); ++c) q[c] = SPLAT(0);                                                   \
        for (; i + (R0) <= n; i += (R0)) PASS(R0, n, i, Vt, U, q);                                                 \
        if ((R0) > 2)                                                                                              \
            for (; i + ISDB__HALF(R0) <= n; i += ISDB__HALF(R0)) PASS(ISDB__HALF(R0), n, i, Vt, U, q);             \
        if ((R0) > 1)                                                                                              \
            for (; i < n; ++i) PASS(1, n, i, Vt, U, q);                                                            \
        ISDB__UNROLL for (c = 0; c < (NC); ++c) *(V *)(qout + c * (VL)) = q[c];                       \
    }

/* The four-lane kernels (scalars): where fewer than five arms remain in
   the scalar builds, and D-LinUCB's last arms. */
ISDB__FWD_PASS_TEMPLATE(isdb__lanes_fwd_pass, , isdb_real, 1, ISDB__LANES, 1, isdb__splat1, isdb__gather1, 1, 0)
/* W = L^-1 [rows], inv_diag[i] = 1 / L_ii. */
ISDB__FWD_KERNEL(isdb__lanes_fwd_solve, isdb__lanes_fwd_pass, , 1)
ISDB__BACK_PASS_TEMPLATE(isdb__lanes_back_pass, , isdb_real, 1, ISDB__LANES, 1, isdb__splat1, 1)
/* W = L^-T W in place (isdb__tri_solve's column-oriented back substitution). */
ISDB__BACK_KERNEL(isdb__lanes_back_solve, isdb__lanes_back_pass, , 1)
/* out[a] = w_a . z and norm2[a] = w_a . w_a. */
ISDB__DOTS_KERNEL(isdb__lanes_dots, , isdb_real, 1, ISDB__LANES, isdb__splat1)

/* Eight arms at a time, for the ridge policies' selects (forward solve
   and two dots) and D-LinUCB's (also the back solve and the V-tilde
   form): lane a of the block at W[i * 8 + a]. The per-row chain of subtractions, not the arithmetic,
   bounds the four-lane solve (about 4 cycles a step); two independent
   groups of four in one pass halve that (1.4x faster in double, 1.9x in
   float at d = 50). Each lane's operations are still the one-arm
   routines', in order: the same bits. */
#define ISDB__LANES8 8

/* With GCC or clang on x86-64 (SSE2) or AArch64, the eight-lane kernels
   are instances with the compilers' vector extension (16-byte
   vectors: two doubles or four floats; element-wise IEEE operations, so
   each lane's bits are those of the scalar code), and the forward solve
   and the V-tilde form take several rows a pass: two in double (eight
   vector sums), four in float (eight too). The subtraction chain of one
   row, not the arithmetic, bounds a one-row pass (eight lanes are four
   chains in double, two in float; each step waits on the previous
   subtraction); rows i and i + 1 share their terms k < i, which are
   independent, and row i + 1 takes its term k = i once row i is done, so
   every lane still gets the one-arm routine's operations in its order.
   Written as named scalars, gcc vectorized the two-row loop across rows
   and k with shuffles (1.4x slower than one row); instantiated with
   explicit vectors it runs near the core's peak (bench/bench_select.c).
   Elsewhere (other
   compilers, 32-bit ARM, ISDB__SCALAR_LANES defined) the scalar
   instances, one row a pass, give the same bits. */
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__SSE2__) || defined(__aarch64__)) && \
    !defined(ISDB__SCALAR_LANES)
#define ISDB__VEC_LANES 1
#define ISDB__VLEN (int)(16 / sizeof(isdb_real)) /* lanes a vector */
typedef isdb_real isdb__vec __attribute__((vector_size(16), aligned(sizeof(isdb_real)), may_alias));
#if ISDB_REAL_IS_FLOAT
ISDB__PRIVATE ISDB__KERNEL_INLINE isdb__vec isdb__splat(isdb_real x) {
    isdb__vec v = {x, x, x, x};
    return v;
}
/* Lanes a0 .. a0 + 3 of row i of the arms. */
ISDB__PRIVATE ISDB__KERNEL_INLINE isdb__vec isdb__gather(const isdb_real *const *rows, int a0, int i) {
    isdb__vec v = {rows[a0][i], rows[a0 + 1][i], rows[a0 + 2][i], rows[a0 + 3][i]};
    return v;
}
#else
ISDB__PRIVATE ISDB__KERNEL_INLINE isdb__vec isdb__splat(isdb_real x) {
    isdb__vec v = {x, x};
    return v;
}
ISDB__PRIVATE ISDB__KERNEL_INLINE isdb__vec isdb__gather(const isdb_real *const *rows, int a0, int i) {
    isdb__vec v = {rows[a0][i], rows[a0 + 1][i]};
    return v;
}
#endif
#endif

#ifdef ISDB__VEC_LANES
#define ISDB__VEC8_ALWAYS 1
#else
#define ISDB__VEC8_ALWAYS 0
#endif

#ifdef ISDB__VEC_LANES
/* The 16-byte kernels: in double four vectors of two lanes, rows i and
   i + 1 a pass; in float two vectors of four lanes, rows i .. i + 3 a
   pass (eight vector sums either way); the back solve two columns a
   pass (each w_k takes column i's term, then column i - 1's: the scalar
   order) and the V-tilde form two rows a pass. */
#define ISDB__VEC_ROWS (ISDB_REAL_IS_FLOAT ? 4 : 2)
ISDB__FWD_PASS_TEMPLATE(isdb__lanes8_fwd_pass_v, , isdb__vec, ISDB__VLEN, ISDB__LANES8 / ISDB__VLEN, 1, isdb__splat,
                        isdb__gather, ISDB__VEC_ROWS, 0)
ISDB__FWD_KERNEL(isdb__lanes8_fwd_solve_v, isdb__lanes8_fwd_pass_v, , ISDB__VEC_ROWS)
ISDB__BACK_PASS_TEMPLATE(isdb__lanes8_back_pass_v, , isdb__vec, ISDB__VLEN, ISDB__LANES8 / ISDB__VLEN, 1, isdb__splat, 2)
ISDB__BACK_KERNEL(isdb__lanes8_back_solve_v, isdb__lanes8_back_pass_v, , 2)
ISDB__FORM_PASS_TEMPLATE(isdb__lanes8_form_pass_v, , isdb__vec, ISDB__VLEN, ISDB__LANES8 / ISDB__VLEN, 1, isdb__splat, 2)
ISDB__FORM_KERNEL(isdb__lanes8_sym_form_v, isdb__lanes8_form_pass_v, , isdb__vec, ISDB__VLEN, ISDB__LANES8 / ISDB__VLEN,
                  isdb__splat, 2)
#else
/* The scalar eight-lane kernels, one row a pass. */
ISDB__FWD_PASS_TEMPLATE(isdb__lanes8_fwd_pass, , isdb_real, 1, ISDB__LANES8, 1, isdb__splat1, isdb__gather1, 1, 0)
/* W = L^-1 [rows], eight lanes (inv_diag[i] = 1 / L_ii). */
ISDB__FWD_KERNEL(isdb__lanes8_fwd_solve, isdb__lanes8_fwd_pass, , 1)
ISDB__BACK_PASS_TEMPLATE(isdb__lanes8_back_pass, , isdb_real, 1, ISDB__LANES8, 1, isdb__splat1, 1)
/* W = L^-T W in place for the eight lanes. */
ISDB__BACK_KERNEL(isdb__lanes8_back_solve, isdb__lanes8_back_pass, , 1)
ISDB__FORM_PASS_TEMPLATE(isdb__lanes8_form_pass, , isdb_real, 1, ISDB__LANES8, 1, isdb__splat1, 1)
/* q[a] = u_a^T Vt u_a for the eight lanes of U (Vt symmetric, its lower
   triangle read), with isdb__discounted_width's operations per lane. */
ISDB__FORM_KERNEL(isdb__lanes8_sym_form, isdb__lanes8_form_pass, , isdb_real, 1, ISDB__LANES8, isdb__splat1, 1)
#endif

/* AVX2 at run time: on x86 with GCC or clang, the templates are also
   instantiated with 32-byte vectors in functions compiled for AVX2 (the target
   attribute; no FMA, so each lane's operations stay the scalar ones and
   the bits are the same), taken when the CPU has AVX2
   (__builtin_cpu_supports): the library's own flags stay plain -O2
   (SSE2). Four rows a pass in double and eight in float (eight vector
   sums), then halving passes for the last rows; in float the selects
   take sixteen arms a pass where more than eight remain (four rows a
   pass, isdb__lanes16_fwd_solve_dots_avx2). ISDB_NO_AVX2_DISPATCH
   leaves them out. */
#if defined(ISDB__VEC_LANES) && (defined(__x86_64__) || defined(__i386__)) && !defined(ISDB_NO_AVX2_DISPATCH) && \
    (defined(__clang__) || __GNUC__ >= 6)
#define ISDB__AVX2 __attribute__((target("avx2")))
/* In float, below this d the 16-byte kernels are faster (the AVX2 pass's
   8 x 8 triangle and eight-arm gathers weigh more): the forward solve of
   48 arms alone took 263 ns with them and 283 with AVX2 at d = 10, 487
   and 463 at d = 16 (a one-off timing loop, 2-core AMD EPYC Zen 5); in
   double AVX2 was faster at every d from 4 (93 against 101 ns). */
#define ISDB__AVX2_MIN_N (ISDB_REAL_IS_FLOAT ? 16 : 1)
typedef isdb_real isdb__vec32 __attribute__((vector_size(32), aligned(sizeof(isdb_real)), may_alias));
#if ISDB_REAL_IS_FLOAT
ISDB__AVX2 ISDB__PRIVATE ISDB__KERNEL_INLINE isdb__vec32 isdb__splat32(isdb_real x) {
    isdb__vec32 v = {x, x, x, x, x, x, x, x};
    return v;
}
/* Inlined by force: gcc 12 made it a call, 8% of LinUCB's select. */
ISDB__AVX2 ISDB__PRIVATE ISDB__KERNEL_INLINE isdb__vec32 isdb__gather32(const isdb_real *const *rows, int a0, int i) {
    isdb__vec32 v = {rows[a0][i],     rows[a0 + 1][i], rows[a0 + 2][i], rows[a0 + 3][i],
                     rows[a0 + 4][i], rows[a0 + 5][i], rows[a0 + 6][i], rows[a0 + 7][i]};
    return v;
}
/* Rows i .. i + 3 of arms a0 .. a0 + 7 as four vectors (lane a the arm
   a0 + a), the same values as four isdb__gather32 calls. With
   __builtin_shufflevector (clang, gcc 12 and later): each arm's four
   values in one 16-byte load, then a transpose (4 inserts and 8 shuffles
   where the gathers take 28 inserts: 0.88x the sixteen-arm kernel's time
   at d = 50 with gcc 12). <immintrin.h> would do as well but brings
   <stdlib.h>, which ISDB_NO_MALLOC promises to leave out; gcc's
   __builtin_shuffle of the loaded vectors was folded back into the
   inserts. */
ISDB__AVX2 ISDB__PRIVATE ISDB__KERNEL_INLINE void isdb__gather32x4(const isdb_real *const *rows, int a0, int i,
                                                                             isdb__vec32 *out) {
#if defined(__clang__) || __GNUC__ >= 12
    const isdb__vec x0 = *(const isdb__vec *)(rows[a0] + i), x4 = *(const isdb__vec *)(rows[a0 + 4] + i);
    const isdb__vec x1 = *(const isdb__vec *)(rows[a0 + 1] + i), x5 = *(const isdb__vec *)(rows[a0 + 5] + i);
    const isdb__vec x2 = *(const isdb__vec *)(rows[a0 + 2] + i), x6 = *(const isdb__vec *)(rows[a0 + 6] + i);
    const isdb__vec x3 = *(const isdb__vec *)(rows[a0 + 3] + i), x7 = *(const isdb__vec *)(rows[a0 + 7] + i);
    /* y_a: arm a's rows i .. i + 3, then arm a + 4's */
    const isdb__vec32 y0 = __builtin_shufflevector(x0, x4, 0, 1, 2, 3, 4, 5, 6, 7);
    const isdb__vec32 y1 = __builtin_shufflevector(x1, x5, 0, 1, 2, 3, 4, 5, 6, 7);
    const isdb__vec32 y2 = __builtin_shufflevector(x2, x6, 0, 1, 2, 3, 4, 5, 6, 7);
    const isdb__vec32 y3 = __builtin_shufflevector(x3, x7, 0, 1, 2, 3, 4, 5, 6, 7);
    /* a 4 x 4 transpose in each half */
    const isdb__vec32 t0 = __builtin_shufflevector(y0, y1, 0, 8, 1, 9, 4, 12, 5, 13);
    const isdb__vec32 t1 = __builtin_shufflevector(y0, y1, 2, 10, 3, 11, 6, 14, 7, 15);
    const isdb__vec32 t2 = __builtin_shufflevector(y2, y3, 0, 8, 1, 9, 4, 12, 5, 13);
    const isdb__vec32 t3 = __builtin_shufflevector(y2, y3, 2, 10, 3, 11, 6, 14, 7, 15);
    out[0] = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13);
    out[1] = __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
    out[2] = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13);
    out[3] = __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
#else
    out[0] = isdb__gather32(rows, a0, i);
    out[1] = isdb__gather32(rows, a0, i + 1);
    out[2] = isdb__gather32(rows, a0, i + 2);
    out[3] = isdb__gather32(rows, a0, i + 3);
#endif
}
#else
ISDB__AVX2 ISDB__PRIVATE ISDB__KERNEL_INLINE isdb__vec32 isdb__splat32(isdb_real x) {
    isdb__vec32 v = {x, x, x, x};
    return v;
}
ISDB__AVX2 ISDB__PRIVATE ISDB__KERNEL_INLINE isdb__vec32 isdb__gather32(const isdb_real *const *rows, int a0, int i) {
    isdb__vec32 v = {rows[a0][i], rows[a0 + 1][i], rows[a0 + 2][i], rows[a0 + 3][i]};
    return v;
}
#endif
/* The 32-byte kernels: in double two vectors of four lanes, four rows a
   forward-solve pass (eight vector sums) and four rows a V-tilde pass; in
   float one vector of eight lanes, eight rows a forward-solve pass, with
   the two dots of isdb__lanes8_dots taken as each row of W is done (the
   same bits; their chains of additions overlap the solve), and two rows
   a V-tilde pass; the back solve two columns a pass in both. */
#define ISDB__VLEN32 (int)(32 / sizeof(isdb_real))
#define ISDB__AVX2_ROWS (ISDB_REAL_IS_FLOAT ? 8 : 4)
#define ISDB__AVX2_FORM_ROWS (ISDB_REAL_IS_FLOAT ? 2 : 4)
ISDB__FWD_PASS_TEMPLATE(isdb__lanes8_fwd_pass_avx2, ISDB__AVX2, isdb__vec32, ISDB__VLEN32, ISDB__LANES8 / ISDB__VLEN32, 1,
                        isdb__splat32, isdb__gather32, ISDB__AVX2_ROWS, ISDB_REAL_IS_FLOAT)
#if ISDB_REAL_IS_FLOAT
ISDB__FWD_DOTS_KERNEL(isdb__lanes8_fwd_solve_dots_avx2, isdb__lanes8_fwd_pass_avx2, ISDB__AVX2, isdb__vec32, ISDB__VLEN32,
                      1, isdb__splat32, ISDB__AVX2_ROWS)
ISDB__AVX2 ISDB__PRIVATE void isdb__lanes8_fwd_solve_avx2(int n, const isdb_real *ISDB__RESTRICT L,
                                                          const isdb_real *ISDB__RESTRICT inv_diag, const isdb_real *const *rows,
                                                          isdb_real *ISDB__RESTRICT W) {
    isdb_real mean[ISDB__LANES8], norm2[ISDB__LANES8];
    isdb__lanes8_fwd_solve_dots_avx2(n, L, inv_diag, rows, W, inv_diag, mean, norm2);
}
#define ISDB__FUSED_DOTS_AVX2 1
#else
ISDB__FWD_KERNEL(isdb__lanes8_fwd_solve_avx2, isdb__lanes8_fwd_pass_avx2, ISDB__AVX2, ISDB__AVX2_ROWS)
#endif
ISDB__BACK_PASS_TEMPLATE(isdb__lanes8_back_pass_avx2, ISDB__AVX2, isdb__vec32, ISDB__VLEN32, ISDB__LANES8 / ISDB__VLEN32, 1,
                         isdb__splat32, 2)
ISDB__BACK_KERNEL(isdb__lanes8_back_solve_avx2, isdb__lanes8_back_pass_avx2, ISDB__AVX2, 2)
ISDB__FORM_PASS_TEMPLATE(isdb__lanes8_form_pass_avx2, ISDB__AVX2, isdb__vec32, ISDB__VLEN32, ISDB__LANES8 / ISDB__VLEN32, 1,
                         isdb__splat32, ISDB__AVX2_FORM_ROWS)
ISDB__FORM_KERNEL(isdb__lanes8_sym_form_avx2, isdb__lanes8_form_pass_avx2, ISDB__AVX2, isdb__vec32, ISDB__VLEN32,
                  ISDB__LANES8 / ISDB__VLEN32, isdb__splat32, ISDB__AVX2_FORM_ROWS)
#if ISDB_REAL_IS_FLOAT
/* Sixteen arms a pass: two blocks of eight lanes (W for arms 0 .. 7,
   W + 8 n for arms 8 .. 15, each laid out as isdb__lanes8_fwd_solve's W),
   four rows a pass, so eight vector sums as in the eight-row kernel, but
   the pass ends in two 4 x 4 triangles whose chains (row r waits on row
   r - 1's scaled value) are independent and interleave, where the
   eight-row pass ends in one 8 x 8 chain. Each lane's operations and
   their order are still isdb__tri_solve's, and its two dots isdb__dot's
   (the same bits). Written out, not a template instance: the template's
   took 1.08-1.2x its time at d = 50 and 100 with gcc 12. */
#define ISDB__DOTS16(s, t, row)                       \
    do {                                              \
        const isdb__vec32 zr = isdb__splat32(z[row]); \
        dot_z0 += (s) * zr;                           \
        dot_w0 += (s) * (s);                          \
        dot_z1 += (t) * zr;                           \
        dot_w1 += (t) * (t);                          \
    } while (0)
ISDB__AVX2 ISDB__PRIVATE void isdb__lanes16_fwd_solve_dots_avx2(int n, const isdb_real *ISDB__RESTRICT L,
                                                                const isdb_real *ISDB__RESTRICT inv_diag,
                                                                const isdb_real *const *rows, isdb_real *ISDB__RESTRICT W,
                                                                const isdb_real *ISDB__RESTRICT z, isdb_real *mean,
                                                                isdb_real *norm2) {
    isdb_real *ISDB__RESTRICT W1 = W + (size_t)n * ISDB__LANES8;
    int i = 0, k;
    isdb__vec32 dot_z0 = isdb__splat32(0), dot_w0 = dot_z0, dot_z1 = dot_z0, dot_w1 = dot_z0;
    /* the first n % 4 rows one a pass, where they have no terms k < i to
       wait on (at the end, their 2 sums would wait on their subtractions) */
    for (; i < n % 4; ++i) {
        const isdb_real *L0 = L + (size_t)i * (size_t)n;
        isdb__vec32 a0 = isdb__gather32(rows, 0, i), b0 = isdb__gather32(rows, 8, i), m;
        for (k = 0; k < i; ++k) {
            const isdb__vec32 l0 = isdb__splat32(L0[k]);
            a0 -= l0 * *(const isdb__vec32 *)(W + k * ISDB__LANES8);
            b0 -= l0 * *(const isdb__vec32 *)(W1 + k * ISDB__LANES8);
        }
        m = isdb__splat32(inv_diag[i]);
        *(isdb__vec32 *)(W + i * ISDB__LANES8) = a0 *= m;
        *(isdb__vec32 *)(W1 + i * ISDB__LANES8) = b0 *= m;
        ISDB__DOTS16(a0, b0, i);
    }
    for (; i + 4 <= n; i += 4) {
        const isdb_real *L0 = L + (size_t)i * (size_t)n, *L1 = L0 + n, *L2 = L1 + n, *L3 = L2 + n;
        isdb__vec32 a[4], b[4], a0, a1, a2, a3, b0, b1, b2, b3, m;
        isdb__vec32 *out0 = (isdb__vec32 *)(W + i * ISDB__LANES8), *out1 = (isdb__vec32 *)(W1 + i * ISDB__LANES8);
        isdb__gather32x4(rows, 0, i, a);
        isdb__gather32x4(rows, 8, i, b);
        a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
        b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
        for (k = 0; k < i; ++k) {
            const isdb__vec32 w0 = *(const isdb__vec32 *)(W + k * ISDB__LANES8);
            const isdb__vec32 w1 = *(const isdb__vec32 *)(W1 + k * ISDB__LANES8);
            const isdb__vec32 l0 = isdb__splat32(L0[k]), l1 = isdb__splat32(L1[k]);
            const isdb__vec32 l2 = isdb__splat32(L2[k]), l3 = isdb__splat32(L3[k]);
            a0 -= l0 * w0;
            b0 -= l0 * w1;
            a1 -= l1 * w0;
            b1 -= l1 * w1;
            a2 -= l2 * w0;
            b2 -= l2 * w1;
            a3 -= l3 * w0;
            b3 -= l3 * w1;
        }
        /* the two triangles, row by row, each row in its order */
        m = isdb__splat32(inv_diag[i]);
        out0[0] = a0 *= m;
        out1[0] = b0 *= m;
        ISDB__DOTS16(a0, b0, i);
        m = isdb__splat32(L1[i]);
        a1 -= m * a0;
        b1 -= m * b0;
        m = isdb__splat32(L2[i]);
        a2 -= m * a0;
        b2 -= m * b0;
        m = isdb__splat32(L3[i]);
        a3 -= m * a0;
        b3 -= m * b0;
        m = isdb__splat32(inv_diag[i + 1]);
        out0[1] = a1 *= m;
        out1[1] = b1 *= m;
        ISDB__DOTS16(a1, b1, i + 1);
        m = isdb__splat32(L2[i + 1]);
        a2 -= m * a1;
        b2 -= m * b1;
        m = isdb__splat32(L3[i + 1]);
        a3 -= m * a1;
        b3 -= m * b1;
        m = isdb__splat32(inv_diag[i + 2]);
        out0[2] = a2 *= m;
        out1[2] = b2 *= m;
        ISDB__DOTS16(a2, b2, i + 2);
        m = isdb__splat32(L3[i + 2]);
        a3 -= m * a2;
        b3 -= m * b2;
        m = isdb__splat32(inv_diag[i + 3]);
        out0[3] = a3 *= m;
        out1[3] = b3 *= m;
        ISDB__DOTS16(a3, b3, i + 3);
    }
    for (k = 0; k < ISDB__LANES8; ++k) {
        mean[k] = dot_z0[k];
        norm2[k] = dot_w0[k];
        mean[ISDB__LANES8 + k] = dot_z1[k];
        norm2[ISDB__LANES8 + k] = dot_w1[k];
    }
}
#undef ISDB__DOTS16
/* D-LinUCB's back solve and V-tilde form of the two blocks of eight lanes
   that isdb__lanes16_fwd_solve_dots_avx2 writes (W and W + 8 n: NB = 2),
   interleaved: each block's operations those of the eight-lane kernels,
   in their order (the same bits), with two independent chains where each
   had one. */
ISDB__BACK_PASS_TEMPLATE(isdb__lanes16_back_pass_avx2, ISDB__AVX2, isdb__vec32, 8, 1, 2, isdb__splat32, 2)
ISDB__BACK_KERNEL(isdb__lanes16_back_solve_avx2, isdb__lanes16_back_pass_avx2, ISDB__AVX2, 2)
ISDB__FORM_PASS_TEMPLATE(isdb__lanes16_form_pass_avx2, ISDB__AVX2, isdb__vec32, 8, 1, 2, isdb__splat32, 2)
ISDB__FORM_KERNEL(isdb__lanes16_sym_form_avx2, isdb__lanes16_form_pass_avx2, ISDB__AVX2, isdb__vec32, 8, 2, isdb__splat32, 2)
#define ISDB__LANES16_AVX2 1
#endif
#endif

#ifdef ISDB__VEC_LANES
/* W = L^-1 [rows], eight lanes (inv_diag[i] = 1 / L_ii): the AVX2 kernel
   where the CPU has it and n is large enough, else the 16-byte one; the
   same bits either way. */
ISDB__PRIVATE void isdb__lanes8_fwd_solve(int n, const isdb_real *ISDB__RESTRICT L, const isdb_real *ISDB__RESTRICT inv_diag,
                                          const isdb_real *const *rows, isdb_real *ISDB__RESTRICT W) {
#ifdef ISDB__AVX2
    if (n >= ISDB__AVX2_MIN_N && __builtin_cpu_supports("avx2")) {
        isdb__lanes8_fwd_solve_avx2(n, L, inv_diag, rows, W);
        return;
    }
#endif
    isdb__lanes8_fwd_solve_v(n, L, inv_diag, rows, W);
}
#endif


/* out[a] = w_a . z and norm2[a] = w_a . w_a for the eight lanes. Written
   out, not a template instance: gcc 12 vectorizes these named sums two
   lanes a vector with no moves in the loop, and the template's (arrays of
   sums) took 1.1-1.3x its time (its register allocator rotates the sums). */
ISDB__PRIVATE void isdb__lanes8_dots(int n, const isdb_real *W, const isdb_real *z, isdb_real *out, isdb_real *norm2) {
    isdb_real s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    isdb_real q0 = 0, q1 = 0, q2 = 0, q3 = 0, q4 = 0, q5 = 0, q6 = 0, q7 = 0;
    int i;
    for (i = 0; i < n; ++i) {
        const isdb_real *w = W + i * ISDB__LANES8, zi = z[i];
        s0 += w[0] * zi;
        s1 += w[1] * zi;
        s2 += w[2] * zi;
        s3 += w[3] * zi;
        s4 += w[4] * zi;
        s5 += w[5] * zi;
        s6 += w[6] * zi;
        s7 += w[7] * zi;
        q0 += w[0] * w[0];
        q1 += w[1] * w[1];
        q2 += w[2] * w[2];
        q3 += w[3] * w[3];
        q4 += w[4] * w[4];
        q5 += w[5] * w[5];
        q6 += w[6] * w[6];
        q7 += w[7] * w[7];
    }
    out[0] = s0;
    out[1] = s1;
    out[2] = s2;
    out[3] = s3;
    out[4] = s4;
    out[5] = s5;
    out[6] = s6;
    out[7] = s7;
    norm2[0] = q0;
    norm2[1] = q1;
    norm2[2] = q2;
    norm2[3] = q3;
    norm2[4] = q4;
    norm2[5] = q5;
    norm2[6] = q6;
    norm2[7] = q7;
}

/* isdb__lanes8_fwd_solve, then isdb__lanes8_dots of W with z: in one
   pass where the float AVX2 kernel takes them (the same bits). */
ISDB__PRIVATE void isdb__lanes8_fwd_solve_dots(int n, const isdb_real *ISDB__RESTRICT L,
                                               const isdb_real *ISDB__RESTRICT inv_diag, const isdb_real *const *rows,
                                               isdb_real *ISDB__RESTRICT W, const isdb_real *z, isdb_real *mean,
                                               isdb_real *norm2) {
#ifdef ISDB__FUSED_DOTS_AVX2
    if (n >= ISDB__AVX2_MIN_N && __builtin_cpu_supports("avx2")) {
        isdb__lanes8_fwd_solve_dots_avx2(n, L, inv_diag, rows, W, z, mean, norm2);
        return;
    }
#endif
    isdb__lanes8_fwd_solve(n, L, inv_diag, rows, W);
    isdb__lanes8_dots(n, W, z, mean, norm2);
}

/* Sixteen arms a pass where the float AVX2 kernel is built, at every n:
   for sixteen arms it took 0.47-0.54x the 16-byte kernels' time (with
   their dots) from n = 8 to 16 and 0.94x at n = 1 (a one-off timing
   loop, 2-core AMD EPYC Zen 5), unlike the eight-arm AVX2 kernel (its
   8 x 8 triangle), which starts at ISDB__AVX2_MIN_N. The select's
   scratch block then holds 16 n values (two blocks of eight lanes), else
   8 n; the layout depends on the build only, not on the CPU. */
#define ISDB__LANES16 16
/* The arms of one select pass at most: the size of the selects' scratch
   arrays (means, norms, row pointers), so that builds without the
   sixteen-arm kernel keep eight-arm frames (LinUCB's select on a
   Cortex-M4 at -Os: 240 bytes in float, 440 in double, against 336 and
   600 with sixteen). */
#ifdef ISDB__LANES16_AVX2
#define ISDB__PASS_MAX ISDB__LANES16
#else
#define ISDB__PASS_MAX ISDB__LANES8
#endif
ISDB__PRIVATE int isdb__block_lanes(void) { return ISDB__PASS_MAX; }

/* 1 if isdb__lanes16_fwd_solve_dots runs here (the CPU has AVX2). */
ISDB__PRIVATE int isdb__lanes16_here(void) {
#ifdef ISDB__LANES16_AVX2
    return __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

/* isdb__lanes8_fwd_solve_dots of rows 0 .. 7 into W and of rows 8 .. 15
   into W + 8 n (mean and norm2 of sixteen), in one pass; only where
   isdb__lanes16_here. */
ISDB__PRIVATE void isdb__lanes16_fwd_solve_dots(int n, const isdb_real *ISDB__RESTRICT L,
                                                const isdb_real *ISDB__RESTRICT inv_diag, const isdb_real *const *rows,
                                                isdb_real *ISDB__RESTRICT W, const isdb_real *z, isdb_real *mean,
                                                isdb_real *norm2) {
#ifdef ISDB__LANES16_AVX2
    isdb__lanes16_fwd_solve_dots_avx2(n, L, inv_diag, rows, W, z, mean, norm2);
#else
    (void)n, (void)L, (void)inv_diag, (void)rows, (void)W, (void)z, (void)mean, (void)norm2;
#endif
}

#ifdef ISDB__VEC_LANES
/* The dispatch, as isdb__lanes8_fwd_solve's. */
ISDB__PRIVATE void isdb__lanes8_back_solve(int n, const isdb_real *ISDB__RESTRICT L, const isdb_real *ISDB__RESTRICT inv_diag,
                                           isdb_real *ISDB__RESTRICT W) {
#ifdef ISDB__AVX2
    if (n >= ISDB__AVX2_MIN_N && __builtin_cpu_supports("avx2")) {
        isdb__lanes8_back_solve_avx2(n, L, inv_diag, W);
        return;
    }
#endif
    isdb__lanes8_back_solve_v(n, L, inv_diag, W);
}

ISDB__PRIVATE void isdb__lanes8_sym_form(int n, const isdb_real *ISDB__RESTRICT Vt, const isdb_real *ISDB__RESTRICT U,
                                         isdb_real *q) {
#ifdef ISDB__AVX2
    if (n >= ISDB__AVX2_MIN_N && __builtin_cpu_supports("avx2")) {
        isdb__lanes8_sym_form_avx2(n, Vt, U, q);
        return;
    }
#endif
    isdb__lanes8_sym_form_v(n, Vt, U, q);
}
#endif

/* isdb__lanes8_back_solve and isdb__lanes8_sym_form of the two blocks of
   eight lanes that isdb__lanes16_fwd_solve_dots writes (W, W + 8 n; q of
   sixteen), interleaved; only where isdb__lanes16_here. */
ISDB__PRIVATE void isdb__lanes16_back_solve(int n, const isdb_real *ISDB__RESTRICT L, const isdb_real *ISDB__RESTRICT inv_diag,
                                            isdb_real *ISDB__RESTRICT W) {
#ifdef ISDB__LANES16_AVX2
    isdb__lanes16_back_solve_avx2(n, L, inv_diag, W);
#else
    (void)n, (void)L, (void)inv_diag, (void)W;
#endif
}

ISDB__PRIVATE void isdb__lanes16_sym_form(int n, const isdb_real *ISDB__RESTRICT Vt, const isdb_real *ISDB__RESTRICT U,
                                          isdb_real *q) {
#ifdef ISDB__LANES16_AVX2
    isdb__lanes16_sym_form_avx2(n, Vt, U, q);
#else
    (void)n, (void)Vt, (void)U, (void)q;
#endif
}

/* ---------------------------------------------------------------------------
   [LINALG.SOLVES] Triangular and Cholesky solves, the log-determinant
   ------------------------------------------------------------------------ */

void isdb_tri_solve(int n, const isdb_real *L, int trans, const isdb_real *b, isdb_real *x) {
    ISDB_ASSERT(L && b && x && n >= 1);
    if (!L || !b || !x || n < 1) return;
    isdb__tri_solve(n, L, NULL, trans, b, x);
}

void isdb_chol_solve(int n, const isdb_real *L, const isdb_real *b, isdb_real *x) {
    isdb_tri_solve(n, L, 0, b, x);
    isdb_tri_solve(n, L, 1, x, x);
}

isdb_real isdb_chol_logdet(int n, const isdb_real *L) {
    isdb_real s = 0;
    int i;
    ISDB_ASSERT(L && n >= 1);
    if (!L) return 0;
    for (i = 0; i < n; ++i) s += isdb__log(L[i * n + i]);
    return 2 * s;
}

/* ---------------------------------------------------------------------------
   [LINALG.UPDATES] Rank-one updates and downdates of a Cholesky factor
   ------------------------------------------------------------------------ */

size_t isdb_chol_update_work_size(int n) { return n > 0 ? 2 * (size_t)n : 0; }

/* The Givens sweep under isdb__chol_update_ex and isdb__chol_pad: folds w
   (overwritten) into the columns k0..n-1 of src, writing them to dst
   (dst may equal src; only their lower parts are touched). The columns
   before k0 are not read or written, so a caller whose w is zero there
   leaves them exactly as they are. Within a column the rows are
   independent, so only the column's own square root and division wait on
   the previous column. inv_diag and z (not NULL) as in
   isdb__chol_update_ex, for the columns swept. Returns the product of the
   rotations' cosines. */
ISDB__PRIVATE isdb_real isdb__chol_sweep(int n, int k0, const isdb_real *src, isdb_real *dst, isdb_real *w,
                                         isdb_real *inv_diag, isdb_real *z, isdb_real y) {
    isdb_real prod_c = 1;
    int i, k;
    for (k = k0; k < n; ++k) {
        isdb_real l = src[k * n + k], r = isdb__sqrt(l * l + w[k] * w[k]), inv = 1 / r;
        isdb_real c = l * inv, s = w[k] * inv;
        dst[k * n + k] = r;
        prod_c *= c;
        if (inv_diag) inv_diag[k] = inv;
        if (z) {
            isdb_real zk = z[k];
            z[k] = c * zk + s * y;
            y = c * y - s * zk;
        }
        for (i = k + 1; i < n; ++i) {
            isdb_real lik = src[i * n + k];
            dst[i * n + k] = c * lik + s * w[i];
            w[i] = c * w[i] - s * lik;
        }
    }
    return prod_c;
}

/* dst = factor of src src^T + x x^T: Givens rotations fold x into the
   columns of src one column at a time (isdb__chol_sweep). dst may equal
   src. work: n (2n documented, to leave room). Optionally (pointers not
   NULL) also:
     inv_diag  receives 1 / dst_kk;
     z         holds z = src^-1 b on entry and dst^-1 (b + y x) on return:
               since b + y x = [src x] (z, y) = [dst 0] G^T (z, y), the same
               rotations G carry z along in O(n).
   Returns det(new) / det(old). */
ISDB__PRIVATE isdb_real isdb__chol_update_ex(int n, const isdb_real *src, isdb_real *dst, const isdb_real *x, isdb_real *work,
                                          isdb_real *inv_diag, isdb_real *z, isdb_real y) {
    isdb_real prod_c;
    int i, k;
    isdb__copy(n, x, work);
    if (dst != src)
        for (i = 0; i < n; ++i)
            for (k = i + 1; k < n; ++k) dst[i * n + k] = 0;
    prod_c = isdb__chol_sweep(n, 0, src, dst, work, inv_diag, z, y);
    /* prod_c^2 = det(old) / det(new) >= 1 / (1 + |x|^2 / lambda_min), far
       from underflow for bounded inputs. */
    return 1 / (prod_c * prod_c);
}

/* In place, L (lower, n x n, positive diagonal) <- the factor of
   L L^T + pad I, pad > 0: one sweep per unit vector sqrt(pad) e_j, from
   column j on (the columns before it see a zero and are left exactly as
   they are: a rotation there would compute l * (1 / l), not always
   exactly 1). Cannot fail: every new diagonal entry is
   sqrt(l^2 + w^2) >= l > 0, and column j's is at least sqrt(pad).
   z = L^-1 b on entry is L_new^-1 b on return (z NULL: not carried).
   O(n^3 / 3); work: n. */
ISDB__PRIVATE void isdb__chol_pad(int n, isdb_real *L, isdb_real pad, isdb_real *z, isdb_real *work) {
    isdb_real root = isdb__sqrt(pad);
    int j;
    for (j = 0; j < n; ++j) {
        isdb__zero(n, work);
        work[j] = root;
        isdb__chol_sweep(n, j, L, L, work, NULL, z, 0);
    }
}

/* The discounted rank-one step on a factor: dst = the factor of
   gamma src src^T + x x^T, gamma in (0, 1]. src is first scaled in place
   by sqrt(gamma) (left so: the caller's scratch from then on; gamma = 1
   leaves it alone), and z = src^-1 b on entry becomes
   dst^-1 (gamma b + y x) (sqrt(gamma) z for gamma b under sqrt(gamma) src,
   then the rotations of the update). inv_diag (not NULL) receives
   1 / dst_kk. dst != src; work: n. Returns det(dst)^2 / det(sqrt(gamma)
   src)^2, as isdb__chol_update_ex. The discounted ridge estimators and
   D-LinUCB's and ISD's carried factors take this step; the padding
   (1 - gamma) lambda I that keeps the ridge at lambda I is left to the
   caller (isdb__chol_pad, or a refactorisation). */
ISDB__PRIVATE isdb_real isdb__chol_discount(int n, isdb_real *src, isdb_real *dst, const isdb_real *x, isdb_real y,
                                            isdb_real gamma, isdb_real *work, isdb_real *inv_diag, isdb_real *z) {
    if (gamma < 1) {
        isdb_real root = isdb__sqrt(gamma);
        int i, j;
        for (i = 0; i < n; ++i) {
            z[i] *= root;
            for (j = 0; j <= i; ++j) src[i * n + j] *= root;
        }
    }
    return isdb__chol_update_ex(n, src, dst, x, work, inv_diag, z, y);
}

ISDB__PRIVATE isdb_real isdb__chol_update_to(int n, const isdb_real *src, isdb_real *dst, const isdb_real *x, isdb_real *work) {
    return isdb__chol_update_ex(n, src, dst, x, work, NULL, NULL, 0);
}

/* In-place downdate L L^T - x x^T (the LINPACK scheme: p = L^-1 x, then
   rotations that map (p, sqrt(1 - p.p)) to (0, 1), applied to the columns
   of L from the last to the first). Returns 0 and leaves L unchanged when
   r = 1 - p.p <= sqrt(ISDB__EPS); otherwise applies it and stores
   r = det(new) / det(old). work: 2n. */
ISDB__PRIVATE int isdb__chol_downdate(int n, isdb_real *L, const isdb_real *x, isdb_real *work, isdb_real *ratio) {
    isdb_real *p = work, *v = work + n;
    isdb_real r, alpha;
    int j, k;
    isdb__tri_solve(n, L, NULL, 0, x, p);
    r = 1 - isdb__dot(n, p, p);
    if (!(r > isdb__sqrt(ISDB__EPS))) return 0;
    alpha = isdb__sqrt(r);
    isdb__zero(n, v);
    for (k = n - 1; k >= 0; --k) {
        isdb_real a = isdb__sqrt(alpha * alpha + p[k] * p[k]), inv = 1 / a;
        isdb_real c = alpha * inv, s = p[k] * inv;
        alpha = a;
        for (j = k; j < n; ++j) {
            isdb_real l = L[j * n + k];
            L[j * n + k] = c * l - s * v[j];
            v[j] = s * l + c * v[j];
        }
    }
    *ratio = r;
    return 1;
}

/* The sliding window's step in one sweep: dst = factor of
   src src^T + x x^T - v v^T (v NULL: the update alone). isdb__chol_update_ex
   and isdb__chol_downdate do the same with each column's square root and
   division waiting on the previous column's, and at small n that chain,
   not the arithmetic, is the whole cost (about 50 cycles a column). Here
   no square root or division is on a chain from column to column. With
   p = src^-1 x, src src^T + x x^T = src T T^T src^T, T the factor of
   I + p p^T, known in closed form from the running sums
   s_k = 1 + p_0^2 + ... + p_{k-1}^2 (Gill, Golub, Murray and Saunders
   1974): T_kk = sqrt(s_{k+1} / s_k), T_jk = p_j p_k / sqrt(s_k s_{k+1})
   (j > k). Column k of the updated factor U = src T is then
   T_kk src[:, k] + p_k / sqrt(s_k s_{k+1}) w, w = x - src[:, 0..k] p[0..k]
   the residual of the forward solve for p, which the sweep carries
   (p_k = w_k / src_kk). The downdate is the same with I - q q^T,
   q = U^-1 v, t_k = 1 - q_0^2 - ... - q_{k-1}^2 and the signs turned:
   column k of dst is sqrt(t_{k+1} / t_k) U[:, k] - q_k / sqrt(t_k t_{k+1}) u,
   u = v - U[:, 0..k] q[0..k], and q_k = u_k / U_kk. Column k of U is
   finished before column k of dst needs it, so one sweep does both; from
   column to column only a multiply and a subtraction chain. The results
   agree with the Givens update and the LINPACK downdate to rounding, not
   bit for bit (tests/test_private.c checks the backward error on a badly
   scaled window). inv_src[k] = 1 / src_kk; dst != src; work: 2n.
   Returns 0 (dst then holds no factor) when the downdate is refused,
   t_n = 1 - q.q <= sqrt(eps) as in isdb__chol_downdate; otherwise 1,
   with *up = s_n and *down = t_n, the update's and the downdate's
   det(new) / det(old) (*down = 1 without v). */
ISDB__PRIVATE int isdb__chol_slide(int n, const isdb_real *ISDB__RESTRICT src, const isdb_real *ISDB__RESTRICT inv_src,
                                   isdb_real *ISDB__RESTRICT dst, const isdb_real *x, const isdb_real *v,
                                   isdb_real *ISDB__RESTRICT work, isdb_real *up, isdb_real *down) {
    isdb_real *ISDB__RESTRICT w = work, *ISDB__RESTRICT u = work + n;
    isdb_real s = 1, root = 1, t = 1, root_t = 1;
    int i, k;
    isdb__copy(n, x, w);
    if (v) isdb__copy(n, v, u);
    /* Row k's strictly upper part is zeroed in column k's loop: one store
       each, where a separate pass became n small memset calls. */
    for (k = 0; k < n; ++k) {
        /* a = T_kk = sqrt(next / s) = next * inv, and 1 / a = s * inv. */
        const isdb_real pk = w[k] * inv_src[k], next = s + pk * pk, root_next = isdb__sqrt(next);
        const isdb_real inv = 1 / (root * root_next), a = next * inv, b = pk * inv, ukk = a * src[k * n + k];
        if (v) {
            const isdb_real qk = u[k] * (inv_src[k] * (s * inv)), tn = t - qk * qk, root_tn = isdb__sqrt(tn);
            const isdb_real inv_t = 1 / (root_t * root_tn), a_t = tn * inv_t, b_t = qk * inv_t;
            dst[k * n + k] = a_t * ukk;
            for (i = k + 1; i < n; ++i) {
                const isdb_real l = src[i * n + k], wi = w[i] - l * pk, uik = a * l + b * wi, ui = u[i] - uik * qk;
                w[i] = wi;
                u[i] = ui;
                dst[i * n + k] = a_t * uik - b_t * ui;
                dst[k * n + i] = 0;
            }
            t = tn;
            root_t = root_tn;
        } else {
            dst[k * n + k] = ukk;
            for (i = k + 1; i < n; ++i) {
                const isdb_real l = src[i * n + k], wi = w[i] - l * pk;
                w[i] = wi;
                dst[i * n + k] = a * l + b * wi;
                dst[k * n + i] = 0;
            }
        }
        s = next;
        root = root_next;
    }
    *up = s;
    *down = t;
    /* t only falls: t_n > sqrt(eps) means every t_k was positive. */
    return !v || t > isdb__sqrt(ISDB__EPS);
}

ISDB__PRIVATE int isdb__diag_finite_positive(int n, const isdb_real *L) {
    int i;
    for (i = 0; i < n; ++i)
        if (!(L[i * n + i] > 0) || !isdb__finite(L[i * n + i])) return 0;
    return 1;
}

isdb_result isdb_chol_update(int n, isdb_real *L, const isdb_real *x, isdb_real *work) {
    if (!isdb__dim_ok(n) || !L || !x || !work) return ISDB_ERR_INVALID_ARG;
    if (!isdb__all_finite(x, n)) return ISDB_ERR_NONFINITE;
    isdb__chol_update_to(n, L, L, x, work);
    return isdb__diag_finite_positive(n, L) ? ISDB_OK : ISDB_ERR_NONFINITE;
}

isdb_result isdb_chol_downdate(int n, isdb_real *L, const isdb_real *x, isdb_real *work) {
    isdb_real ratio;
    if (!isdb__dim_ok(n) || !L || !x || !work) return ISDB_ERR_INVALID_ARG;
    if (!isdb__all_finite(x, n)) return ISDB_ERR_NONFINITE;
    return isdb__chol_downdate(n, L, x, work, &ratio) ? ISDB_OK : ISDB_ERR_NOT_SPD;
}

/* ---------------------------------------------------------------------------
   [LINALG.EIGEN] Symmetric eigendecomposition (Jacobi)
   ------------------------------------------------------------------------ */

isdb_result isdb_sym_eig(int n, isdb_real *A, isdb_real *w, isdb_real *V) {
    isdb_real total = 0, off;
    int i, j, p, q, r, sweep;
    isdb_result res = ISDB_MAXITER_REACHED;
    if (!isdb__dim_ok(n) || !A || !w || !V) return ISDB_ERR_INVALID_ARG;
    for (i = 0; i < n; ++i)
        if (!isdb__all_finite(A + i * n, i + 1)) return ISDB_ERR_NONFINITE;
    isdb__symmetrize_lower(n, A);
    isdb__identity(n, V, 1);
    for (i = 0; i < n * n; ++i) total += A[i] * A[i];
    for (sweep = 0; sweep < 100; ++sweep) {
        off = 0;
        for (i = 0; i < n; ++i)
            for (j = 0; j < i; ++j) off += 2 * A[i * n + j] * A[i * n + j];
        /* Rotations keep the Frobenius norm, so `total` bounds every sweep. */
        if (off <= ISDB__EPS * ISDB__EPS * total) {
            res = ISDB_OK;
            break;
        }
        for (p = 0; p < n - 1; ++p) {
            for (q = p + 1; q < n; ++q) {
                isdb_real apq = A[p * n + q], theta, t, c, s;
                if (apq == 0) continue;
                theta = (A[q * n + q] - A[p * n + p]) / (2 * apq);
                /* t = tan of the rotation angle, the root of t^2 + 2 theta t - 1
                   of smaller magnitude; 0.5/theta where theta^2 would overflow. */
                if (isdb__fabs(theta) > ISDB__SQRT_HUGE)
                    t = ISDB__R(0.5) / theta;
                else
                    t = (theta >= 0 ? 1 : -1) / (isdb__fabs(theta) + isdb__sqrt(theta * theta + 1));
                c = 1 / isdb__sqrt(t * t + 1);
                s = t * c;
                for (r = 0; r < n; ++r) {
                    isdb_real arp = A[r * n + p], arq = A[r * n + q];
                    A[r * n + p] = c * arp - s * arq;
                    A[r * n + q] = s * arp + c * arq;
                }
                for (r = 0; r < n; ++r) {
                    isdb_real apr = A[p * n + r], aqr = A[q * n + r];
                    A[p * n + r] = c * apr - s * aqr;
                    A[q * n + r] = s * apr + c * aqr;
                }
                A[p * n + q] = A[q * n + p] = 0;
                for (r = 0; r < n; ++r) {
                    isdb_real vrp = V[r * n + p], vrq = V[r * n + q];
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
            isdb_real tmp = w[i];
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

/* ---------------------------------------------------------------------------
   [LINALG.QR] Householder QR and orthonormal bases
   ------------------------------------------------------------------------ */

/* 2-norm of the column segment A[i][col], i = from..m-1, scaled against
   overflow and underflow. */
ISDB__PRIVATE isdb_real isdb__col_norm(int m, int n, const isdb_real *A, int col, int from) {
    isdb_real scale = 0, sum = 0;
    int i;
    for (i = from; i < m; ++i) {
        isdb_real a = isdb__fabs(A[i * n + col]);
        if (a > scale) scale = a;
    }
    if (scale == 0) return 0;
    for (i = from; i < m; ++i) {
        isdb_real a = A[i * n + col] / scale;
        sum += a * a;
    }
    return scale * isdb__sqrt(sum);
}

/* Householder reflector H = I - tau v v^T (v[j] = 1 implied, v[i] stored in
   A[i][j] for i > j) that maps column j, rows j..m-1, to (beta, 0, ...);
   applied to the columns right of j. Returns tau (0: H = I). */
ISDB__PRIVATE isdb_real isdb__householder_step(int m, int n, isdb_real *A, int j) {
    isdb_real alpha = A[j * n + j], norm = isdb__col_norm(m, n, A, j, j), beta, tau, scale;
    int i, c;
    if (norm == 0) return 0;
    beta = alpha >= 0 ? -norm : norm;
    tau = (beta - alpha) / beta;
    scale = 1 / (alpha - beta);
    for (i = j + 1; i < m; ++i) A[i * n + j] *= scale;
    A[j * n + j] = beta;
    for (c = j + 1; c < n; ++c) {
        isdb_real s = A[j * n + c];
        for (i = j + 1; i < m; ++i) s += A[i * n + j] * A[i * n + c];
        s *= tau;
        A[j * n + c] -= s;
        for (i = j + 1; i < m; ++i) A[i * n + c] -= s * A[i * n + j];
    }
    return tau;
}

/* Q = H_0 H_1 ... H_{k-1} (m x m) from the reflectors left in A by
   isdb__householder_step, accumulated backwards; then clears them from A. */
ISDB__PRIVATE void isdb__householder_q(int m, int n, isdb_real *A, const isdb_real *tau, int k, isdb_real *Q) {
    int i, j, c;
    if (Q) {
        isdb__identity(m, Q, 1);
        for (j = k - 1; j >= 0; --j) {
            if (tau[j] == 0) continue;
            for (c = j; c < m; ++c) {
                isdb_real s = Q[j * m + c];
                for (i = j + 1; i < m; ++i) s += A[i * n + j] * Q[i * m + c];
                s *= tau[j];
                Q[j * m + c] -= s;
                for (i = j + 1; i < m; ++i) Q[i * m + c] -= s * A[i * n + j];
            }
        }
    }
    for (i = 1; i < m; ++i)
        for (j = 0; j < i && j < n; ++j) A[i * n + j] = 0;
}

size_t isdb_qr_work_size(int m, int n) { return (m > 0 && n > 0) ? (size_t)isdb__min_int(m, n) : 0; }

ISDB__COLD isdb_result isdb_qr(int m, int n, isdb_real *A, isdb_real *Q, isdb_real *work) {
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

isdb_result isdb_orth_basis(int m, int n, const isdb_real *A, isdb_real rtol, isdb_real *Q, int *rank, isdb_real *work) {
    isdb_real *W = work, *tau = work + m * n, top = 0;
    int i, j, c, k = isdb__min_int(m, n), r = 0;
    if (!isdb__dim_ok(m) || !isdb__dim_ok(n) || !A || !Q || !rank || !work || !(rtol < 1))
        return ISDB_ERR_INVALID_ARG;
    if (!isdb__all_finite(A, m * n)) return ISDB_ERR_NONFINITE;
    if (!(rtol > 0)) rtol = (isdb_real)isdb__max_int(m, n) * ISDB__EPS;
    isdb__copy(m * n, A, W);
    for (j = 0; j < k; ++j) {
        /* Pivot: the remaining column of largest norm, recomputed directly
           (no norm downdating, so no cancellation). */
        int best = j;
        isdb_real best_norm = isdb__col_norm(m, n, W, j, j);
        for (c = j + 1; c < n; ++c) {
            isdb_real cn = isdb__col_norm(m, n, W, c, j);
            if (cn > best_norm) {
                best = c;
                best_norm = cn;
            }
        }
        if (j == 0) top = best_norm;
        if (!(best_norm > rtol * top) || best_norm == 0) {
            for (i = j; i < k; ++i) tau[i] = 0;
            break;
        }
        if (best != j)
            for (i = 0; i < m; ++i) {
                isdb_real tmp = W[i * n + j];
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

/* ---------------------------------------------------------------------------
   [LINALG.LU] LU factorisation with partial pivoting
   ------------------------------------------------------------------------ */

isdb_result isdb_lu(int n, isdb_real *A, int *piv) {
    isdb_real amax = 0, tol;
    int i, j, k;
    if (!isdb__dim_ok(n) || !A || !piv) return ISDB_ERR_INVALID_ARG;
    if (!isdb__all_finite(A, n * n)) return ISDB_ERR_NONFINITE;
    for (i = 0; i < n * n; ++i)
        if (isdb__fabs(A[i]) > amax) amax = isdb__fabs(A[i]);
    tol = (isdb_real)n * ISDB__EPS * amax;
    for (k = 0; k < n; ++k) {
        int p = k;
        for (i = k + 1; i < n; ++i)
            if (isdb__fabs(A[i * n + k]) > isdb__fabs(A[p * n + k])) p = i;
        piv[k] = p;
        if (!(isdb__fabs(A[p * n + k]) > tol)) return ISDB_ERR_SINGULAR;
        if (p != k)
            for (j = 0; j < n; ++j) {
                isdb_real tmp = A[k * n + j];
                A[k * n + j] = A[p * n + j];
                A[p * n + j] = tmp;
            }
        for (i = k + 1; i < n; ++i) {
            isdb_real f = A[i * n + k] /= A[k * n + k];
            for (j = k + 1; j < n; ++j) A[i * n + j] -= f * A[k * n + j];
        }
    }
    return ISDB_OK;
}

void isdb_lu_solve(int n, const isdb_real *LU, const int *piv, int nrhs, isdb_real *B) {
    int i, j, k;
    ISDB_ASSERT(LU && piv && B && n >= 1 && nrhs >= 1);
    if (!LU || !piv || !B || n < 1 || nrhs < 1) return;
    for (k = 0; k < n; ++k)
        if (piv[k] != k)
            for (j = 0; j < nrhs; ++j) {
                isdb_real tmp = B[k * nrhs + j];
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

/* ---------------------------------------------------------------------------
   [LINALG.POLAR] Polar decomposition
   ------------------------------------------------------------------------ */

size_t isdb_polar_work_size(int n) { return n > 0 ? 2 * (size_t)n * (size_t)n : 0; }

isdb_result isdb_polar(int n, const isdb_real *A, isdb_real *Q, isdb_real *work) {
    isdb_real *U = work, *W = work + n * n, smax = 0, smin = ISDB__REAL_MAX;
    int i, j, r, sweep, rotated = 1;
    if (!isdb__dim_ok(n) || !A || !Q || !work) return ISDB_ERR_INVALID_ARG;
    if (!isdb__all_finite(A, n * n)) return ISDB_ERR_NONFINITE;
    isdb__copy(n * n, A, U);
    isdb__identity(n, W, 1);
    /* One-sided Jacobi: rotate column pairs of U = A W until orthogonal. */
    for (sweep = 0; sweep < 60 && rotated; ++sweep) {
        rotated = 0;
        for (i = 0; i < n - 1; ++i)
            for (j = i + 1; j < n; ++j) {
                isdb_real a = 0, b = 0, g = 0, zeta, t, c, s;
                for (r = 0; r < n; ++r) {
                    a += U[r * n + i] * U[r * n + i];
                    b += U[r * n + j] * U[r * n + j];
                    g += U[r * n + i] * U[r * n + j];
                }
                if (!(isdb__fabs(g) > ISDB__EPS * isdb__sqrt(a * b))) continue;
                rotated = 1;
                zeta = (b - a) / (2 * g);
                if (isdb__fabs(zeta) > ISDB__SQRT_HUGE)
                    t = ISDB__R(0.5) / zeta;
                else
                    t = (zeta >= 0 ? 1 : -1) / (isdb__fabs(zeta) + isdb__sqrt(1 + zeta * zeta));
                c = 1 / isdb__sqrt(1 + t * t);
                s = c * t;
                for (r = 0; r < n; ++r) {
                    isdb_real ui = U[r * n + i], uj = U[r * n + j], wi = W[r * n + i], wj = W[r * n + j];
                    U[r * n + i] = c * ui - s * uj;
                    U[r * n + j] = s * ui + c * uj;
                    W[r * n + i] = c * wi - s * wj;
                    W[r * n + j] = s * wi + c * wj;
                }
            }
    }
    for (j = 0; j < n; ++j) {
        isdb_real sj = isdb__col_norm(n, n, U, j, 0);
        if (sj > smax) smax = sj;
        if (sj < smin) smin = sj;
        if (sj > 0)
            for (r = 0; r < n; ++r) U[r * n + j] /= sj;
    }
    if (!(smin > (isdb_real)n * ISDB__EPS * smax)) return ISDB_ERR_SINGULAR;
    for (r = 0; r < n; ++r)
        for (j = 0; j < n; ++j) {
            isdb_real s = 0;
            for (i = 0; i < n; ++i) s += U[r * n + i] * W[j * n + i];
            Q[r * n + j] = s;
        }
    return rotated ? ISDB_MAXITER_REACHED : ISDB_OK;
}

#if !ISDB_REAL_IS_FLOAT /* double only: see PRECISION */
#if ISDB__HAS_JBD
/* ---------------------------------------------------------------------------
   [JBD] Joint block diagonalization
   ------------------------------------------------------------------------ */

ISDB__COLD isdb_jbd_options isdb_jbd_options_init(void) {
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

ISDB__ONCE size_t isdb_jbd_work_size(int p, int m) {
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

/* sqrt(sum_k sum_{i,j: excluded} S_k[i,j]^2 / sum_k ||S_k||_{F}^2); the
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
    /* lbar = mean_k lambda_min(C_k); mean_frob = mean_k ||C_k||_{F}. */
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

#endif /* ISDB__HAS_JBD */
#endif /* !ISDB_REAL_IS_FLOAT */

/* ---------------------------------------------------------------------------
   Heap layout: every object carves its arrays out of one block. Called with
   base NULL it only measures; sizes are rounded to 64 bytes.
   ------------------------------------------------------------------------ */

typedef struct isdb__arena {
    unsigned char *base;
    size_t used;
    int overflow;
} isdb__arena;

ISDB__CALL_PRIVATE void *isdb__take(isdb__arena *a, int count, size_t elem) {
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

ISDB__ONCE_PRIVATE isdb_real *isdb__take_f64(isdb__arena *a, int count) {
    return (isdb_real *)isdb__take(a, count, sizeof(isdb_real));
}

ISDB__PRIVATE int isdb__allocator_ok(const isdb_allocator *alloc) {
    return !alloc || (alloc->alloc_fn && alloc->free_fn);
}

/* One allocation of n bytes from alloc (NULL: ISDB_MALLOC; with
   ISDB_NO_MALLOC there is no default, and NULL is an invalid argument). */
ISDB__PRIVATE isdb_result isdb__heap_alloc(const isdb_allocator *alloc, size_t n, void **heap) {
    void *h;
    *heap = NULL;
    if (!isdb__allocator_ok(alloc)) return ISDB_ERR_INVALID_ARG;
#ifdef ISDB_NO_MALLOC
    if (!alloc) return ISDB_ERR_INVALID_ARG;
    h = alloc->alloc_fn(n ? n : 1, alloc->user);
#else
    h = alloc ? alloc->alloc_fn(n ? n : 1, alloc->user) : ISDB_MALLOC(n ? n : 1);
#endif
    if (!h) return ISDB_ERR_OUT_OF_MEMORY;
    *heap = h;
    return ISDB_OK;
}

ISDB__PRIVATE void isdb__heap_free(const isdb_allocator *alloc, void *heap) {
    if (!heap) return;
    if (alloc && alloc->free_fn)
        alloc->free_fn(heap, alloc->user);
#ifndef ISDB_NO_MALLOC
    /* Without ISDB_MALLOC an owned heap always came from an allocator:
       free is not named at all, so the firmware does not link it. */
    else
        ISDB_FREE(heap);
#endif
}

/* Heaps hold reals and 64-bit counters: 8-byte alignment (malloc gives more). */
ISDB__PRIVATE int isdb__heap_aligned(const void *heap) { return heap && ((uintptr_t)heap & 7u) == 0; }

/* [a, a + na) and [b, b + nb) share a byte (addresses compared as uintptr_t). */
ISDB__PRIVATE int isdb__overlap(const void *a, size_t na, const void *b, size_t nb) {
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return na > 0 && nb > 0 && (x < y ? y - x < na : x - y < nb);
}

/* x * y for a heap layout (x, y >= 0), or -1, which isdb__take refuses,
   when the product does not fit an int. */
ISDB__PRIVATE int isdb__count_mul(int x, int y) { return y > 0 && x > INT_MAX / y ? -1 : x * y; }

/* ---------------------------------------------------------------------------
   [SNAPSHOT] Snapshot serializer. One function per policy walks its config and state
   in a fixed order; the mode decides what a step does:
     SIZE   count bytes            WRITE  write them
     CHECK  read and validate, store nothing
     READ   read and store (only after a CHECK pass succeeded)
     TAKE   read the config values into a config struct (the state is
            not walked): isdb_<name>_config_from_snapshot
   Config values are written, and on CHECK/READ compared with the object's
   own. A layout depends on the config and on values read before it
   (which the steps return), never on the object's state, so CHECK can
   validate a snapshot without touching the object's state (it may use
   the object's scratch arrays, which no state depends on).
   ------------------------------------------------------------------------ */

enum { ISDB__SER_SIZE, ISDB__SER_WRITE, ISDB__SER_CHECK, ISDB__SER_READ, ISDB__SER_TAKE };

struct isdb_ser {
    int mode;
    unsigned char *out;
    const unsigned char *in;
    size_t pos, end;
    int failed;
    const char *differs; /* the failure was this config field, unlike the object's */
    uint32_t version; /* the library version word of the stream: this release's when measuring or
                         writing, the snapshot's (header offset 12) when checking, reading or taking;
                         a field added later is absent from an older stream (the SINCE kinds of
                         ISDB__CFG_WALK) */
    uint64_t t; /* updates of the policy being walked (the stream's when checking) */
    int head_d, head_arms; /* TAKE: the snapshot's d and arm count */
    uint64_t head_seed;
    const char *find_name; /* TAKE: the array isdb_snapshot_read_array copies */
    isdb_real *find_out;
    size_t find_cap, find_count;
};

/* Format 1; a float build writes its reals as binary32 and marks the
   version so neither build reads the other's snapshots. */
#define ISDB__SNAPSHOT_FLOAT 0x10001u
#define ISDB__SNAPSHOT_VERSION (ISDB_REAL_IS_FLOAT ? ISDB__SNAPSHOT_FLOAT : 1u)
#define ISDB__SNAPSHOT_HEADER 24u

#define ISDB__FNV_BASIS 0xcbf29ce484222325ull
#define ISDB__FNV_PRIME 0x100000001b3ull

ISDB__PRIVATE uint64_t isdb__fnv1a(const unsigned char *p, size_t n) {
    uint64_t h = ISDB__FNV_BASIS;
    size_t i;
    for (i = 0; i < n; ++i) {
        h ^= p[i];
        h *= ISDB__FNV_PRIME;
    }
    return h;
}

ISDB__PRIVATE void isdb__put_le(unsigned char *p, uint64_t v, int bytes) {
    int i;
    for (i = 0; i < bytes; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

/* FNV-1a (isdb__fnv1a's) of n reals as their little-endian bit patterns,
   continuing from h: the same on every byte order. */
ISDB__PRIVATE uint64_t isdb__hash_reals(uint64_t h, const isdb_real *v, int n) {
    int i, b;
    for (i = 0; i < n; ++i) {
        uint64_t x = 0;
        memcpy(&x, &v[i], sizeof v[i]);
        for (b = 0; b < (int)sizeof v[i]; ++b) {
            h ^= (x >> (8 * b)) & 0xffu;
            h *= ISDB__FNV_PRIME;
        }
    }
    return h;
}

ISDB__PRIVATE uint64_t isdb__get_le(const unsigned char *p, int bytes) {
    uint64_t v = 0;
    int i;
    for (i = 0; i < bytes; ++i) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The IEEE-754 bit pattern of a real (binary64, or binary32 in a float
   build), and back. */
ISDB__PRIVATE uint64_t isdb__real_bits(isdb_real v) {
#if ISDB_REAL_IS_FLOAT
    uint32_t x;
#else
    uint64_t x;
#endif
    memcpy(&x, &v, sizeof x);
    return x;
}

ISDB__PRIVATE isdb_real isdb__bits_real(uint64_t bits) {
#if ISDB_REAL_IS_FLOAT
    uint32_t x = (uint32_t)bits;
#else
    uint64_t x = bits;
#endif
    isdb_real v;
    memcpy(&v, &x, sizeof v);
    return v;
}

/* The raw step: moves `bytes` little-endian bytes between *v and the
   stream. Returns 0 when a read runs past the end. */
ISDB__CALL_PRIVATE int isdb__ser_raw(isdb_ser *s, uint64_t *v, int bytes) {
    if (s->failed) return 0;
    switch (s->mode) {
    case ISDB__SER_WRITE:
        isdb__put_le(s->out + s->pos, *v, bytes);
        break;
    case ISDB__SER_CHECK:
    case ISDB__SER_READ:
    case ISDB__SER_TAKE:
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

/* The steps below return the value they moved (the object's when
   measuring or writing, the stream's when checking or reading), so a
   value that decides the layout of what follows can steer the walk in
   every mode. */
ISDB__CALL_PRIVATE uint64_t isdb__ser_u64(isdb_ser *s, uint64_t *v) {
    uint64_t x = *v;
    if (!isdb__ser_raw(s, &x, 8)) return 0;
    if (isdb__ser_storing(s)) *v = x;
    return x;
}

/* An int that must lie in [lo, hi] (lo is returned on failure). */
ISDB__CALL_PRIVATE int isdb__ser_int(isdb_ser *s, int *v, int lo, int hi) {
    uint64_t x = (uint64_t)(uint32_t)*v;
    int value;
    if (!isdb__ser_raw(s, &x, 4)) return lo;
    value = (int)(int32_t)(uint32_t)x;
    if (s->mode >= ISDB__SER_CHECK && (value < lo || value > hi)) {
        s->failed = 1;
        return lo;
    }
    if (isdb__ser_storing(s)) *v = value;
    return value;
}

/* One double in [lo, hi] (so finite); returns the value moved (0 once
   the walk has failed). */
ISDB__CALL_PRIVATE isdb_real isdb__ser_real_in(isdb_ser *s, isdb_real *v, isdb_real lo, isdb_real hi) {
    uint64_t x = isdb__real_bits(*v);
    isdb_real value;
    if (!isdb__ser_raw(s, &x, (int)sizeof(isdb_real))) return 0;
    value = isdb__bits_real(x);
    if (s->mode >= ISDB__SER_CHECK && !(value >= lo && value <= hi)) s->failed = 1;
    if (isdb__ser_storing(s)) *v = value;
    return value;
}

/* n reals, each in [lo, hi]. Sizing and writing check nothing, so they
   take the run in one loop (a save twice as fast as value by value). */
ISDB__CALL_PRIVATE void isdb__ser_real_range(isdb_ser *s, isdb_real *v, int n, isdb_real lo, isdb_real hi) {
    int i;
    if (s->mode == ISDB__SER_SIZE || s->mode == ISDB__SER_WRITE) {
        if (s->mode == ISDB__SER_WRITE)
            for (i = 0; i < n; ++i)
                isdb__put_le(s->out + s->pos + (size_t)i * sizeof(isdb_real), isdb__real_bits(v[i]), (int)sizeof(isdb_real));
        s->pos += (size_t)n * sizeof(isdb_real);
        return;
    }
    for (i = 0; i < n; ++i) isdb__ser_real_in(s, &v[i], lo, hi);
}

/* n reals, each of which must be finite. */
ISDB__CALL_PRIVATE void isdb__ser_real(isdb_ser *s, isdb_real *v, int n) { isdb__ser_real_range(s, v, n, -ISDB__REAL_MAX, ISDB__REAL_MAX); }

/* A count kept as a double: a whole number in [0, hi]. */
ISDB__CALL_PRIVATE void isdb__ser_count(isdb_ser *s, isdb_real *v, isdb_real hi) {
    isdb_real value = isdb__ser_real_in(s, v, 0, hi);
    if (s->mode >= ISDB__SER_CHECK && value != isdb__floor(value)) s->failed = 1;
}

/* A probability vector: n reals in [0, 1] whose sum is 1. */
ISDB__CALL_PRIVATE void isdb__ser_simplex(isdb_ser *s, isdb_real *v, int n) {
    isdb_real sum = 0;
    int i;
    for (i = 0; i < n; ++i) sum += isdb__ser_real_in(s, &v[i], 0, 1);
    if (s->mode >= ISDB__SER_CHECK && !(isdb__fabs(sum - 1) <= ISDB__SIMPLEX_TOL)) s->failed = 1;
}

/* Config values (u64 each): written; on checking required to equal the
   object's own, bit for bit (the first that differs is named in
   s->differs); on taking, read. Each returns the value the config holds
   after the step: the object's, or the stream's when taking. */
ISDB__CALL_PRIVATE uint64_t isdb__ser_cfg_u64(isdb_ser *s, const char *name, uint64_t v) {
    uint64_t x = v;
    if (!isdb__ser_raw(s, &x, 8)) return v;
    if (s->mode == ISDB__SER_TAKE) return x;
    if (s->mode >= ISDB__SER_CHECK && x != v) {
        s->failed = 1;
        s->differs = name;
    }
    return v;
}

ISDB__CALL_PRIVATE int isdb__ser_cfg_int(isdb_ser *s, const char *name, int v) {
    int64_t x = (int64_t)isdb__ser_cfg_u64(s, name, (uint64_t)(int64_t)v);
    if (x >= INT_MIN && x <= INT_MAX) return (int)x;
    s->failed = 1; /* only a taken value can be out of range */
    return v;
}

ISDB__CALL_PRIVATE isdb_real isdb__ser_cfg_real(isdb_ser *s, const char *name, isdb_real v) {
    uint64_t x = isdb__ser_cfg_u64(s, name, isdb__real_bits(v));
#if ISDB_REAL_IS_FLOAT
    if (x > 0xffffffffu) { /* only a taken value: binary32 in a u64 */
        s->failed = 1;
        return v;
    }
#endif
    return isdb__bits_real(x);
}

/* A config value added to a list after 1.0.0, in release `since` (its
   version word): a stream from an earlier release does not hold it and
   reads as if it held `earlier`, the value that reproduces those releases.
   Checking such a stream requires the object's value to be `earlier` (else
   the field is named as differing); taking one gives `earlier`. A stream
   of `since` or later holds it as any other config value. */
ISDB__CALL_PRIVATE int isdb__ser_absent(isdb_ser *s, const char *name, uint32_t since, int same) {
    if (s->version >= since) return 0;
    if (s->mode >= ISDB__SER_CHECK && s->mode != ISDB__SER_TAKE && !same && !s->failed) {
        s->failed = 1;
        s->differs = name;
    }
    return 1;
}

ISDB__CALL_PRIVATE int isdb__ser_cfg_int_since(isdb_ser *s, const char *name, int v, uint32_t since, int earlier) {
    if (!isdb__ser_absent(s, name, since, v == earlier)) return isdb__ser_cfg_int(s, name, v);
    return s->mode == ISDB__SER_TAKE ? earlier : v;
}

ISDB__CALL_PRIVATE isdb_real isdb__ser_cfg_real_since(isdb_ser *s, const char *name, isdb_real v, uint32_t since,
                                                      isdb_real earlier) {
    /* the same value bit for bit, as isdb__ser_cfg_u64 compares */
    if (!isdb__ser_absent(s, name, since, isdb__real_bits(v) == isdb__real_bits(earlier)))
        return isdb__ser_cfg_real(s, name, v);
    return s->mode == ISDB__SER_TAKE ? earlier : v;
}

/* An array of n config reals (a presence flag, then its values when
   present), compared value by value on checking; on taking, copied to
   s->find_out when it is the field s->find_name asks for. Returns the
   pointer the config holds after the step (NULL when taking). */
ISDB__ONCE_PRIVATE const isdb_real *isdb__ser_cfg_array(isdb_ser *s, const char *name, const isdb_real *v, int64_t n) {
    int64_t i;
    int present = isdb__ser_cfg_int(s, name, v != NULL), found = s->mode == ISDB__SER_TAKE && s->find_name;
    /* the names compared here, not with strcmp: the library links only
       memcpy, memset and memcmp of libc */
    for (i = 0; found && (name[i] || s->find_name[i]); ++i) found = name[i] == s->find_name[i];
    if (s->mode == ISDB__SER_TAKE) {
        /* a taken length comes from unchecked fields: no more than the
           stream holds */
        if (present && (n < 0 || (uint64_t)n > (s->end - s->pos) / 8)) s->failed = 1;
        if (found) s->find_count = present ? (size_t)n : 0;
        for (i = 0; present && !s->failed && i < n; ++i) {
            isdb_real x = isdb__ser_cfg_real(s, name, 0);
            if (found && (uint64_t)i < s->find_cap) s->find_out[i] = x;
        }
        return NULL;
    }
    for (i = 0; v && i < n; ++i) isdb__ser_cfg_real(s, name, v[i]);
    return v;
}

/* ---- Config field lists ----
   Each policy's config fields are listed once, in snapshot order, as
     X(kind, type, name, default, check)
   kind   how the snapshot holds it: INT (int or enum), REAL, U64; or
          DIM, ARMS, SEED, written by every policy's head (d, the arm
          count, the generator's seed) before the list's other fields;
          OPTS, a struct with a list of its own; ARRAY, an input array
          (ISDB__CFG_WALK_ARRAY); INT_SINCE, REAL_SINCE, a field added
          after 1.0.0, anywhere in the list: ISDB__SINCE_<name> gives the
          version word of the release that added it and the value that
          snapshots of earlier releases read as (the earlier behaviour),
          so they still load (isdb__ser_cfg_real_since). A name given a
          SINCE kind means one field in every list it is in.
   type   its C type
   default  what config_init sets (may name config_init's arguments)
   check  true when the value is valid: an isdb__want_* chain on c->name
          (it may read other fields of c) that fills why when not
   The list makes config_init's defaults (ISDB__CFG_DEFAULT),
   config_check's chain (ISDB__CFG_CHECK), the snapshot's config block
   and config_from_snapshot (ISDB__CFG_WALK); the name is the one a
   refusal and a refused load (isdb_policy_check_load) give. */
#define ISDB__CFG_DEFAULT(kind, type, name, def, check) c.name = (def);
#define ISDB__CFG_CHECK(kind, type, name, def, check) &&(check)
#define ISDB__CFG_WALK(kind, type, name, def, check) ISDB__CFG_WALK_##kind(type, name, #name)
#define ISDB__CFG_WALK_INT(type, name, text) c->name = (type)isdb__ser_cfg_int(s, text, (int)c->name);
#define ISDB__CFG_WALK_REAL(type, name, text) c->name = isdb__ser_cfg_real(s, text, c->name);
#define ISDB__CFG_WALK_U64(type, name, text) c->name = isdb__ser_cfg_u64(s, text, c->name);
#define ISDB__CFG_WALK_INT_SINCE(type, name, text) \
    c->name = (type)isdb__ser_cfg_int_since(s, text, (int)c->name, ISDB__SINCE_##name);
#define ISDB__CFG_WALK_REAL_SINCE(type, name, text) \
    c->name = isdb__ser_cfg_real_since(s, text, c->name, ISDB__SINCE_##name);
#define ISDB__CFG_WALK_DIM(type, name, text) \
    if (s->mode == ISDB__SER_TAKE) c->name = s->head_d;
#define ISDB__CFG_WALK_ARMS(type, name, text) \
    if (s->mode == ISDB__SER_TAKE) c->name = s->head_arms;
#define ISDB__CFG_WALK_SEED(type, name, text) \
    if (s->mode == ISDB__SER_TAKE) c->name = s->head_seed;
/* A nested options struct with a list of its own (ISD's est). */
#define ISDB__CFG_WALK_OPTS(type, name, text) isdb__walk_##name(s, &c->name);
/* An input array the config points to (ISD's log, OPKB's arm set,
   Trace-UCB's Sigma...), last in its list, of ISDB__ARRAY_LEN_<name>(c)
   reals: on taking it is left NULL (isdb_snapshot_read_array copies it). */
#define ISDB__CFG_WALK_ARRAY(type, name, text) c->name = isdb__ser_cfg_array(s, text, c->name, ISDB__ARRAY_LEN_##name(c));
/* The fields d, max_arms, lambda, delta, R, S, L and alpha of the ridge
   UCB configs (LinUCB, SW-UCB, D-LinUCB); the head of most lists. */
#define ISDB__UCB_HEAD_FIELDS(X)                                                                    \
    X(DIM, int, d, d, isdb__want_dim(why, c->d))                                                   \
    X(ARMS, int, max_arms, max_arms, isdb__want_arms(why, c->max_arms, c->d, "max_arms"))
#define ISDB__UCB_FIELDS(X)                                                                         \
    X(REAL, isdb_real, lambda, 1, isdb__want_ridge(why, c->lambda, "lambda"))                      \
    X(REAL, isdb_real, delta, ISDB__R(0.01), isdb__want_delta(why, c->delta, "delta"))             \
    X(REAL, isdb_real, R, 1, isdb__want_scale(why, c->R, "R"))                                     \
    X(REAL, isdb_real, S, 1, isdb__want_scale(why, c->S, "S"))                                     \
    X(REAL, isdb_real, L, 1, isdb__want_pos_scale(why, c->L, "L"))                                 \
    X(REAL, isdb_real, alpha, 1, isdb__want_scale(why, c->alpha, "alpha"))

/* The config walk of policy `name` (isdb__<name>_walk_config), for its
   vtable and its config_from_snapshot. */
#define ISDB__DEFINE_CONFIG_WALK(name, FIELDS)                                   \
    ISDB__ONCE_PRIVATE void isdb__##name##_walk_config(isdb_ser *s, void *cv) { \
        isdb_##name##_config *c = (isdb_##name##_config *)cv;                   \
        FIELDS(ISDB__CFG_WALK)                                                   \
    }

ISDB__CALL_PRIVATE void isdb__ser_require(isdb_ser *s, int ok) {
    if (s->mode >= ISDB__SER_CHECK && !ok) s->failed = 1;
}

/* A count of events (updates, selects, tests, restarts...): at most hi,
   and never above ISDB__COUNT_MAX, 2^62, which no run reaches (146 years
   at 10^9 a second), so a count read from a snapshot can still grow
   without wrapping. Returns the value moved. */
#define ISDB__COUNT_MAX ((uint64_t)1 << 62)
ISDB__CALL_PRIVATE uint64_t isdb__ser_tally(isdb_ser *s, uint64_t *v, uint64_t hi) {
    uint64_t x = isdb__ser_u64(s, v);
    isdb__ser_require(s, x <= hi && x <= ISDB__COUNT_MAX);
    return x;
}

/* The generator: an all-zero xoshiro state stays zero forever (a normal
   draw would never end), and a Box-Muller spare is below 2^60 in
   magnitude (|u| m with u^2 + v^2 >= 2^-106). */
ISDB__CALL_PRIVATE void isdb__ser_rng(isdb_ser *s, isdb_rng *rng) {
    uint64_t any = 0;
    int i;
    for (i = 0; i < 4; ++i) any |= isdb__ser_u64(s, &rng->s[i]);
    isdb__ser_require(s, any != 0);
    isdb__ser_real_in(s, &rng->spare, -ISDB__R(1152921504606846976.0), ISDB__R(1152921504606846976.0));
    isdb__ser_int(s, &rng->has_spare, 0, 1);
}

/* ---- Consistency checks (CHECK mode) ----
   A state can hold values that are each in range and still contradict
   each other: a factor that is not the factor of its Gram sum, a vector
   that does not solve its system. The checks below read back values the
   walk has just passed (a view on the input) and compare them. Relations
   the code keeps exactly (a transpose, a symmetric copy) must hold
   exactly; a reciprocal to 16 ulps; relations that rank-one steps,
   discounting and refits keep only up to rounding hold to ISDB__SER_TOL
   relative to the size of their terms: 64 sqrt(epsilon), 2^-20 in
   double and 2^-6 in float, far above the drift of a real run, far below
   a forged change that matters. Each check runs in O(n^3) at most and
   allocates nothing. */
#if ISDB_REAL_IS_FLOAT
#define ISDB__SER_TOL 0.015625f
#define ISDB__SER_INV_SQRT_EPS 4096.0f
#else
#define ISDB__SER_TOL 9.5367431640625e-07
#define ISDB__SER_INV_SQRT_EPS 67108864.0
#endif
/* Rounding near underflow: a square below REAL_MIN is lost while the
   products of the same value with larger ones are not, so sums of up to
   2^64 products can differ from what their factors' squares say by
   2^32 sqrt(REAL_MIN) times the root of a diagonal entry; and below
   REAL_MIN every relation holds to REAL_MIN only. */
#define ISDB__SER_UNDER (ISDB__R(4294967296.0) * isdb__sqrt(ISDB__REAL_MIN))
/* Largest sum of products of inputs k updates can make (k
   ISDB_INPUT_MAX^2, to rounding): bounds what a policy's sums can hold
   after the update count t of its snapshot. */
ISDB__PRIVATE isdb_real isdb__ser_sum_cap(uint64_t k) {
    return (isdb_real)k * ISDB_INPUT_MAX * ISDB_INPUT_MAX * (1 + ISDB__SER_TOL);
}

/* Where a run of reals lies in the input (NULL unless checking). */
typedef struct isdb__ser_view {
    const unsigned char *at;
} isdb__ser_view;

/* Walks n reals in [lo, hi] like isdb__ser_real_range and returns a view
   on them. */
ISDB__CALL_PRIVATE isdb__ser_view isdb__ser_view_in(isdb_ser *s, isdb_real *v, int n, isdb_real lo, isdb_real hi) {
    isdb__ser_view w;
    w.at = s->mode == ISDB__SER_CHECK && !s->failed ? s->in + s->pos : NULL;
    isdb__ser_real_range(s, v, n, lo, hi);
    if (s->failed) w.at = NULL;
    return w;
}

ISDB__CALL_PRIVATE isdb__ser_view isdb__ser_view_real(isdb_ser *s, isdb_real *v, int n) {
    return isdb__ser_view_in(s, v, n, -ISDB__REAL_MAX, ISDB__REAL_MAX);
}

/* Value k of a view. */
ISDB__CALL_PRIVATE isdb_real isdb__sv(isdb__ser_view v, int k) {
    return isdb__bits_real(isdb__get_le(v.at + (size_t)k * sizeof(isdb_real), (int)sizeof(isdb_real)));
}

/* The view from value k on. */
ISDB__PRIVATE isdb__ser_view isdb__sv_from(isdb__ser_view v, int k) {
    if (v.at) v.at += (size_t)k * sizeof(isdb_real);
    return v;
}

/* The int k positions (4 bytes each) past `at` in the input. */
ISDB__PRIVATE int isdb__ser_int_at(const unsigned char *at, int k) {
    return (int)(int32_t)(uint32_t)isdb__get_le(at + 4 * (size_t)k, 4);
}

/* Whether checks on these views are to run (all walked, none failed). */
ISDB__CALL_PRIVATE int isdb__ser_checking(const isdb_ser *s, isdb__ser_view a, isdb__ser_view b) {
    return s->mode == ISDB__SER_CHECK && !s->failed && a.at && b.at;
}

/* n x n (row stride ld) lower triangular: zero above the diagonal, and a
   diagonal > 0 (positive) or >= 0. */
ISDB__CALL_PRIVATE void isdb__ser_check_lower(isdb_ser *s, isdb__ser_view A, int n, int ld, int positive) {
    int i, j;
    if (!isdb__ser_checking(s, A, A)) return;
    for (i = 0; i < n; ++i) {
        isdb_real a = isdb__sv(A, i * ld + i);
        isdb__ser_require(s, positive ? a > 0 : a >= 0);
        for (j = i + 1; j < n; ++j) isdb__ser_require(s, isdb__sv(A, i * ld + j) == 0);
    }
}

/* inv[i] = 1 / L_ii, as the policies keep it, to 16 ulps. */
ISDB__CALL_PRIVATE void isdb__ser_check_inv_diag(isdb_ser *s, isdb__ser_view L, isdb__ser_view inv, int n, int ld) {
    int i;
    if (!isdb__ser_checking(s, L, inv)) return;
    for (i = 0; i < n; ++i)
        isdb__ser_require(s, isdb__fabs(isdb__sv(L, i * ld + i) * isdb__sv(inv, i) - 1) <= 16 * ISDB_REAL_EPSILON);
}

/* A Gram matrix (a sum of x x^T, maybe discounted, plus a ridge): stored
   symmetric (sym, an exact copy above the diagonal) or as its lower
   triangle (zero above); diagonal in [dmin, dmax]; every 2 x 2 minor
   non-negative (|A_ij| <= sqrt(A_ii A_jj)) to ISDB__SER_TOL. */
ISDB__CALL_PRIVATE void isdb__ser_check_gram(isdb_ser *s, isdb__ser_view A, int n, int ld, int sym, isdb_real dmin,
                                        isdb_real dmax) {
    int i, j;
    if (!isdb__ser_checking(s, A, A)) return;
    for (i = 0; i < n; ++i) {
        isdb_real aii = isdb__sv(A, i * ld + i);
        isdb__ser_require(s, aii >= dmin && aii <= dmax);
        for (j = 0; j < i; ++j) {
            isdb_real aij = isdb__sv(A, i * ld + j), ajj = isdb__sv(A, j * ld + j);
            isdb_real ri = isdb__sqrt(isdb__fabs(aii)), rj = isdb__sqrt(isdb__fabs(ajj));
            isdb__ser_require(s, isdb__fabs(aij) <= (1 + ISDB__SER_TOL) * ri * rj + ISDB__SER_UNDER * (ri + rj));
            isdb__ser_require(s, isdb__sv(A, j * ld + i) == (sym ? aij : 0));
        }
    }
}

/* Entry (i, j), j <= i, of a Gram matrix that is not stored as such. */
typedef isdb_real (*isdb__gram_fn)(const void *ctx, int i, int j);

/* A stored Gram matrix (lower triangle read) as an isdb__gram_fn. */
typedef struct isdb__ser_gram {
    isdb__ser_view A;
    int ld;
} isdb__ser_gram;

ISDB__CALL_PRIVATE isdb_real isdb__ser_gram_at(const void *ctx, int i, int j) {
    const isdb__ser_gram *g = (const isdb__ser_gram *)ctx;
    return isdb__sv(g->A, i * g->ld + j);
}

/* (L L^T)_ij and the scale of its rounding, sum_k |L_ik L_jk|. */
ISDB__CALL_PRIVATE isdb_real isdb__ser_llt(isdb__ser_view L, int ld, int i, int j, isdb_real *scale) {
    isdb_real v = 0, a = 0;
    int k;
    for (k = 0; k <= j; ++k) {
        isdb_real t = isdb__sv(L, i * ld + k) * isdb__sv(L, j * ld + k);
        v += t;
        a += isdb__fabs(t);
    }
    *scale = a;
    return v;
}

/* L (lower, n x n, stride ld) is the factor of the Gram matrix G up to a
   lag: L L^T = G - p I with p in [0, pad] (a discounted ridge's rank-one
   steps leave out the ridge's top-up until the next rebuild; pad 0
   elsewhere), each entry to ISDB__SER_TOL of sqrt((L L^T)_ii (L L^T)_jj)
   + sqrt(G_ii G_jj). Columns go in blocks whose diagonal terms are kept
   on the stack: computed once a block, not once an entry (half the work
   of a load's checks). */
enum { ISDB__SER_COLS = 16 };
ISDB__CALL_PRIVATE void isdb__ser_check_factor(isdb_ser *s, isdb__ser_view L, int n, int ld, isdb__gram_fn G,
                                          const void *ctx, isdb_real pad) {
    isdb_real pcol[ISDB__SER_COLS], gcol[ISDB__SER_COLS], unused;
    int i, j, j0, jn;
    if (!isdb__ser_checking(s, L, L)) return;
    for (j0 = 0; j0 < n && !s->failed; j0 += jn) {
        jn = isdb__min_int(ISDB__SER_COLS, n - j0);
        for (j = 0; j < jn; ++j) {
            pcol[j] = isdb__sqrt(isdb__ser_llt(L, ld, j0 + j, j0 + j, &unused));
            gcol[j] = isdb__sqrt(isdb__fabs(G(ctx, j0 + j, j0 + j)));
        }
        for (i = j0; i < n && !s->failed; ++i) {
            isdb_real pi = isdb__sqrt(isdb__ser_llt(L, ld, i, i, &unused)), gi = isdb__sqrt(isdb__fabs(G(ctx, i, i)));
            for (j = j0; j < j0 + jn && j <= i; ++j) {
                isdb_real pj = pcol[j - j0], gj = gcol[j - j0], scale;
                isdb_real e = isdb__ser_llt(L, ld, i, j, &scale) - G(ctx, i, j);
                isdb_real tol = ISDB__SER_TOL * (pi * pj + gi * gj + scale) + ISDB__SER_UNDER * (pi + pj + gi + gj) +
                                ISDB__REAL_MIN;
                isdb__ser_require(s, isdb__finite(tol) && (i == j ? e >= -pad - tol && e <= tol : isdb__fabs(e) <= tol));
            }
        }
    }
}

/* op(L) x = b to rounding, op(L) = L, or L^T when trans (L lower, n x n,
   stride ld), give or take `slack` (what underflow can lose where L has
   no ridge). */
ISDB__CALL_PRIVATE void isdb__ser_check_solve(isdb_ser *s, isdb__ser_view L, int n, int ld, int trans, isdb__ser_view x,
                                         isdb__ser_view b, isdb_real slack) {
    int i, k;
    if (!isdb__ser_checking(s, L, x) || !b.at) return;
    for (i = 0; i < n; ++i) {
        isdb_real v = 0, a = 0, bi = isdb__sv(b, i);
        for (k = trans ? i : 0; k < (trans ? n : i + 1); ++k) {
            isdb_real t = (trans ? isdb__sv(L, k * ld + i) : isdb__sv(L, i * ld + k)) * isdb__sv(x, k);
            v += t;
            a += isdb__fabs(t);
        }
        a = ISDB__SER_TOL * (a + isdb__fabs(bi)) + slack + ISDB__REAL_MIN;
        isdb__ser_require(s, isdb__finite(a) && isdb__fabs(v - bi) <= a);
    }
}

/* ||L^-1||_{F}^2 = trace((L L^T)^-1), which bounds |L^-1 x| for every x.
   A policy's L L^T is at least lo I in exact arithmetic (lo: its ridge
   lambda, or what discounting can leave of it); rounding keeps that to
   within sqrt(epsilon) while L L^T's largest diagonal entry is below
   lo / sqrt(epsilon), so there the bound is n / (sqrt(epsilon) lo). With
   a wider range, rounding can have lost lo, and only a fixed cap applies
   (ISDB__SER_INV_CAP: with it every solve with an input, and every
   product with a sum of inputs, stays finite in double). L lower with a
   positive diagonal (checked before); work: n of the object's scratch. */
#if ISDB_REAL_IS_FLOAT
#define ISDB__SER_INV_CAP 1125899906842624.0f /* 2^50 */
#else
#define ISDB__SER_INV_CAP 1.6069380442589903e+60 /* 2^200 */
#endif
ISDB__CALL_PRIVATE void isdb__ser_check_inverse(isdb_ser *s, isdb__ser_view L, int n, int ld, isdb_real lo,
                                           isdb_real *work) {
    isdb_real sum = 0, top = 0, bound = ISDB__SER_INV_CAP;
    int i, j, k;
    if (!isdb__ser_checking(s, L, L)) return;
    for (i = 0; i < n; ++i) {
        isdb_real unused;
        top = isdb__fmax(top, isdb__ser_llt(L, ld, i, i, &unused));
    }
    if (top <= lo * ISDB__SER_INV_SQRT_EPS) bound = isdb__fmin(bound, (isdb_real)n * ISDB__SER_INV_SQRT_EPS / lo);
    /* Column j of L^-1, by forward substitution from e_j. */
    for (j = 0; j < n && !s->failed; ++j) {
        for (i = j; i < n; ++i) {
            isdb_real v = i == j ? 1 : 0;
            for (k = j; k < i; ++k) v -= isdb__sv(L, i * ld + k) * work[k];
            work[i] = v / isdb__sv(L, i * ld + i);
            sum += work[i] * work[i];
        }
        isdb__ser_require(s, sum <= bound);
    }
}

/* A kept log-determinant: logdet = 2 sum ln L_ii to sqrt(ISDB__SER_TOL) of
   the size of its terms plus n (it sums a logarithm per update, up and
   down when discounted or windowed, between rebuilds). */
ISDB__CALL_PRIVATE void isdb__ser_check_logdet(isdb_ser *s, isdb__ser_view L, int n, int ld, isdb_real logdet) {
    isdb_real sum = 0, size = isdb__fabs(logdet) + (isdb_real)n;
    int i;
    if (!isdb__ser_checking(s, L, L)) return;
    for (i = 0; i < n; ++i) {
        isdb_real l = 2 * isdb__log(isdb__sv(L, i * ld + i));
        sum += l;
        size += isdb__fabs(l);
    }
    isdb__ser_require(s, isdb__fabs(logdet - sum) <= isdb__sqrt(ISDB__SER_TOL) * size);
}

/* ---------------------------------------------------------------------------
   [POLICY] The policy base and the generic functions
   ------------------------------------------------------------------------ */

ISDB__ONCE const char *isdb_policy_kind_name(isdb_policy_kind kind) {
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
    case ISDB_POLICY_ADAPTIVE:
        return "adaptive";
    default:
        break;
    }
    return "unknown";
}

/* Fills the base of a policy whose arrays were carved from heap. */
ISDB__COLD_PRIVATE void isdb__policy_base_init(isdb_policy *p, const isdb_policy_vtable *vt, int d, int max_arms,
                                          uint64_t seed, void *heap, size_t heap_size, size_t object_size) {
    memset(p, 0, sizeof *p);
    p->_object_size = object_size;
    p->vt = vt;
    p->d = d;
    p->max_arms = max_arms;
    p->seed = seed;
    p->_heap = heap;
    p->_heap_size = heap_size;
    isdb_rng_seed(&p->rng, seed);
}

/* Sizes every policy checks: d as isdb__dim_ok, max_arms >= 1, and an
   n_arms x d matrix indexable by int. */
ISDB__CALL_PRIVATE int isdb__want_dim(isdb_refusal *why, int d) {
    return isdb__dim_ok(d) || isdb__refuse(why, "d", 1, ISDB_MAX_DIM, "[1, ISDB_MAX_DIM]");
}
/* An arm count (d already checked). */
ISDB__CALL_PRIVATE int isdb__want_arms(isdb_refusal *why, int n, int d, const char *field) {
    return isdb__want_int(why, n, field, 1, INT_MAX / d, "[1, INT_MAX / d]");
}
ISDB__CALL_PRIVATE int isdb__want_sizes(isdb_refusal *why, int d, int max_arms, const char *arms_field) {
    return isdb__want_dim(why, d) && isdb__want_arms(why, max_arms, d, arms_field);
}

isdb_result isdb_init_check(const void *heap, size_t heap_bytes, size_t needed, const void *pol, isdb_refusal *why) {
    if (!(isdb__want_start(why) && isdb__want_ptr(why, pol, "pol") &&
          isdb__want(why, isdb__heap_aligned(heap), "heap", "non-NULL, 8-byte aligned")))
        return ISDB_ERR_INVALID_ARG;
    return heap_bytes >= needed || isdb__refuse(why, "heap_bytes", (double)needed, (double)SIZE_MAX, ">= heap_size")
               ? ISDB_OK
               : ISDB_ERR_BUFFER_TOO_SMALL;
}

/* The end of a refused init (of a policy or an environment): obj (size
   bytes; may be NULL) zeroed, so uninit is a no-op and every call on it
   returns ISDB_ERR_BAD_STATE. Returns r. */
ISDB__PRIVATE isdb_result isdb__refused(void *obj, size_t size, isdb_result r) {
    if (obj) memset(obj, 0, size);
    return r;
}

typedef isdb_result (*isdb__setup_fn)(const void *cfg, void *heap, size_t heap_bytes, void *obj);

/* The tail of every isdb_X_init (of a policy or an environment): allocate
   the measured heap, run init_preallocated through `setup` (which zeroes
   obj, obj_size bytes, if it refuses), and hand the heap to the object,
   whose copy of the allocator and ownership flag are keep and owns. */
ISDB__ONCE_PRIVATE isdb_result isdb__init_owned(isdb_allocator *keep, int *owns, size_t obj_size, size_t bytes,
                                           const isdb_allocator *alloc, isdb__setup_fn setup, const void *cfg,
                                           void *obj) {
    void *heap;
    isdb_result r = isdb__heap_alloc(alloc, bytes, &heap);
    if (r != ISDB_OK) return isdb__refused(obj, obj_size, r);
    r = setup(cfg, heap, bytes, obj);
    if (r != ISDB_OK) {
        isdb__heap_free(alloc, heap);
        return r;
    }
    if (alloc) *keep = *alloc;
    *owns = 1;
    return ISDB_OK;
}

ISDB__ONCE_PRIVATE isdb_result isdb__policy_init_owned(isdb_policy *base, size_t pol_size, size_t bytes,
                                                  const isdb_allocator *alloc, isdb__setup_fn setup, const void *cfg,
                                                  void *pol) {
    return isdb__init_owned(&base->_alloc, &base->_owns_heap, pol_size, bytes, alloc, setup, cfg, pol);
}

#define ISDB__INPUT_TEXT "finite, |v| <= ISDB_INPUT_MAX"

/* A vector of inputs: ISDB_OK, or isdb__check_input's code naming field. */
ISDB__PRIVATE isdb_result isdb__want_input(isdb_refusal *why, const isdb_real *v, int n, const char *field) {
    isdb_result r = isdb__check_input(v, n);
    if (r != ISDB_OK) isdb__refuse(why, field, -(double)ISDB_INPUT_MAX, (double)ISDB_INPUT_MAX, ISDB__INPUT_TEXT);
    return r;
}
/* A config's array of n inputs (a config check: 1 or 0); NULL is valid
   if nullable. */
ISDB__CALL_PRIVATE int isdb__want_inputs(isdb_refusal *why, const isdb_real *v, int n, const char *field, int nullable) {
    if (v ? isdb__check_input(v, n) == ISDB_OK : nullable) return 1;
    return isdb__refuse(why, field, -(double)ISDB_INPUT_MAX, (double)ISDB_INPUT_MAX,
                        nullable ? "NULL, or " ISDB__INPUT_TEXT : "non-NULL, " ISDB__INPUT_TEXT);
}

/* Checks shared by select, scores and probs; out_name names their output. */
ISDB__CALL_PRIVATE isdb_result isdb__check_round(const isdb_policy *p, const isdb_real *X, int n_arms, const void *out,
                                            const char *out_name, isdb_refusal *why) {
    if (!(isdb__want_start(why) && isdb__want_ptr(why, p, "pol"))) return ISDB_ERR_INVALID_ARG;
    if (!isdb__want(why, p->vt != NULL, "pol", "an initialised policy")) return ISDB_ERR_BAD_STATE;
    if (!(isdb__want_ptr(why, out, out_name) &&
          isdb__want_int(why, n_arms, "n_arms", 1, p->max_arms, "[1, max_arms]")))
        return ISDB_ERR_INVALID_ARG;
    if (!X)
        return isdb__want(why, (p->vt->flags & ISDB_POLICY_X_OPTIONAL) != 0, "X", "non-NULL") ? ISDB_OK
                                                                                             : ISDB_ERR_INVALID_ARG;
    return isdb__want_input(why, X, n_arms * p->d, "X");
}

/* The checks of update, the arguments first. The update count stops at the
   largest a snapshot may hold: at t = ISDB__COUNT_MAX the policy is
   refused as a bad state. */
ISDB__PRIVATE isdb_result isdb__check_update(const isdb_policy *p, int arm, const isdb_real *x, isdb_real reward,
                                             isdb_refusal *why) {
    isdb_result r;
    if (!(isdb__want_start(why) && isdb__want_ptr(why, p, "pol"))) return ISDB_ERR_INVALID_ARG;
    if (!isdb__want(why, p->vt != NULL, "pol", "an initialised policy")) return ISDB_ERR_BAD_STATE;
    if (!isdb__want_int(why, arm, "arm", 0, p->max_arms - 1, "[0, max_arms - 1]"))
        return ISDB_ERR_INVALID_ARG;
    if (x) {
        if ((r = isdb__want_input(why, x, p->d, "x")) != ISDB_OK) return r;
    } else if (!isdb__want(why, (p->vt->flags & ISDB_POLICY_X_OPTIONAL) != 0, "x", "non-NULL")) {
        return ISDB_ERR_INVALID_ARG;
    }
    if ((r = isdb__want_input(why, &reward, 1, "reward")) != ISDB_OK) return r;
    return isdb__want(why, p->t < ISDB__COUNT_MAX, "pol", "t < 2^62") ? ISDB_OK : ISDB_ERR_BAD_STATE;
}

isdb_result isdb_policy_check_select(const isdb_policy *p, const isdb_real *X, int n_arms, const int *arm,
                                     isdb_refusal *why) {
    return isdb__check_round(p, X, n_arms, arm, "arm", why);
}

isdb_result isdb_policy_check_update(const isdb_policy *p, int arm, const isdb_real *x, isdb_real reward,
                                     isdb_refusal *why) {
    return isdb__check_update(p, arm, x, reward, why);
}

isdb_result isdb_policy_select(isdb_policy *p, const isdb_real *X, int n_arms, int *arm) {
    isdb_result r = isdb__check_round(p, X, n_arms, arm, "arm", NULL);
    return r != ISDB_OK ? r : p->vt->select(p, X, n_arms, arm);
}

isdb_result isdb_policy_scores(isdb_policy *p, const isdb_real *X, int n_arms, isdb_real *out) {
    isdb_result r = isdb__check_round(p, X, n_arms, out, "out", NULL);
    return r != ISDB_OK ? r : p->vt->scores(p, X, n_arms, out);
}

isdb_result isdb_policy_probs(isdb_policy *p, const isdb_real *X, int n_arms, isdb_real *out) {
    isdb_result r = isdb__check_round(p, X, n_arms, out, "out", NULL);
    return r != ISDB_OK ? r : p->vt->probs(p, X, n_arms, out);
}

isdb_result isdb_policy_update(isdb_policy *p, int arm, const isdb_real *x, isdb_real reward) {
    isdb_result r = isdb__check_update(p, arm, x, reward, NULL);
    if (r != ISDB_OK) return r;
    /* base.t still counts the earlier updates while vt->update runs. */
    r = p->vt->update(p, arm, x, reward);
    if (r >= 0) p->t++;
    return r;
}

ISDB__ONCE void isdb_policy_reset(isdb_policy *p) {
    if (!p || !p->vt) return;
    p->t = 0;
    isdb_rng_seed(&p->rng, p->seed);
    p->vt->reset(p);
}

ISDB__ONCE void isdb_policy_uninit(isdb_policy *p) {
    if (!p) return;
    if (p->_owns_heap) isdb__heap_free(&p->_alloc, p->_heap);
    p->_heap = NULL;
    p->_owns_heap = 0;
    p->vt = NULL;
}

const char *isdb_policy_name(const isdb_policy *p) { return (p && p->vt) ? p->vt->name : "none"; }

/* The policy's config block: the head, then its list. */
ISDB__ONCE_PRIVATE void isdb__serialize_policy(isdb_policy *p, isdb_ser *s) {
    isdb__ser_cfg_int(s, "d", p->d);
    isdb__ser_cfg_int(s, p->vt->arms_field, p->max_arms);
    isdb__ser_cfg_u64(s, "seed", p->seed);
    s->t = isdb__ser_tally(s, &p->t, ISDB__COUNT_MAX);
    isdb__ser_rng(s, &p->rng);
    p->vt->walk_config(s, (unsigned char *)p + p->vt->cfg_offset);
    p->vt->serialize(p, s);
}

/* The library version as snapshots hold it; the first a 1.x reader takes. */
#define ISDB__VERSION_WORD ((ISDB_VERSION_MAJOR << 16) | (ISDB_VERSION_MINOR << 8) | ISDB_VERSION_PATCH)
#define ISDB__VERSION_WORD_1_0 0x10000u
#define ISDB__VERSION_WORD_1_1 0x10100u
#define ISDB__VERSION_WORD_1_2 0x10200u

ISDB__ONCE isdb_result isdb_policy_save(const isdb_policy *cp, void *buf, size_t cap, size_t *size) {
    isdb_policy *p = (isdb_policy *)isdb__unconst(cp);
    isdb_ser s;
    size_t total;
    unsigned char *out = (unsigned char *)buf;
    if (!p) return ISDB_ERR_INVALID_ARG;
    if (!p->vt) return ISDB_ERR_BAD_STATE;
    if (!size) return ISDB_ERR_INVALID_ARG;
    memset(&s, 0, sizeof s);
    s.mode = ISDB__SER_SIZE;
    s.version = ISDB__VERSION_WORD;
    s.pos = ISDB__SNAPSHOT_HEADER;
    isdb__serialize_policy(p, &s);
    total = s.pos + 8;
    *size = total;
    if (!buf) return ISDB_OK;
    if (cap < total) return ISDB_ERR_BUFFER_TOO_SMALL;
    /* Writing into the policy's own heap or object would corrupt it. */
    if (isdb__overlap(buf, total, p->_heap, p->_heap_size) || isdb__overlap(buf, total, p, p->_object_size))
        return ISDB_ERR_INVALID_ARG;
    memcpy(out, "ISDB", 4);
    isdb__put_le(out + 4, ISDB__SNAPSHOT_VERSION, 4);
    isdb__put_le(out + 8, (uint64_t)p->vt->kind, 4);
    isdb__put_le(out + 12, ISDB__VERSION_WORD, 4);
    isdb__put_le(out + 16, (uint64_t)total, 8);
    s.mode = ISDB__SER_WRITE;
    s.out = out;
    s.pos = ISDB__SNAPSHOT_HEADER;
    isdb__serialize_policy(p, &s);
    isdb__put_le(out + total - 8, isdb__fnv1a(out, total - 8), 8);
    return ISDB_OK;
}

/* The header and the checksum of a snapshot, in the order
   isdb_policy_load documents; the policy kind is left to the caller.
   any_precision takes the other precision's snapshots too. */
ISDB__ONCE_PRIVATE isdb_result isdb__snapshot_frame(const unsigned char *in, size_t size, int any_precision) {
    uint64_t stated, format;
    if (!in) return ISDB_ERR_INVALID_ARG;
    if (size < ISDB__SNAPSHOT_HEADER + 8) return ISDB_ERR_SNAPSHOT_TRUNCATED;
    if (memcmp(in, "ISDB", 4) != 0) return ISDB_ERR_SNAPSHOT_CORRUPT;
    /* Format 1 from 1.0.0 on; earlier releases wrote format 1 too, with
       no promise, and are told by their version. */
    format = isdb__get_le(in + 4, 4);
    if (!(format == ISDB__SNAPSHOT_VERSION || (any_precision && (format == 1 || format == ISDB__SNAPSHOT_FLOAT))) ||
        isdb__get_le(in + 12, 4) < ISDB__VERSION_WORD_1_0)
        return ISDB_ERR_SNAPSHOT_VERSION;
    stated = isdb__get_le(in + 16, 8);
    if (stated > (uint64_t)size) return ISDB_ERR_SNAPSHOT_TRUNCATED;
    if (stated < (uint64_t)size || isdb__get_le(in + size - 8, 8) != isdb__fnv1a(in, size - 8))
        return ISDB_ERR_SNAPSHOT_CORRUPT;
    return ISDB_OK;
}

ISDB__ONCE_PRIVATE isdb_result isdb__snapshot_check(const unsigned char *in, size_t size, isdb_policy_kind kind) {
    isdb_result r = isdb__snapshot_frame(in, size, 0);
    if (r != ISDB_OK) return r;
    return isdb__get_le(in + 8, 4) == (uint64_t)kind ? ISDB_OK : ISDB_ERR_SNAPSHOT_POLICY;
}

/* The head every snapshot starts with after its 24-byte header: d, the
   arm count and the seed (config values, u64 each), then t. */
#define ISDB__HEAD_D (ISDB__SNAPSHOT_HEADER)
#define ISDB__HEAD_ARMS (ISDB__SNAPSHOT_HEADER + 8)
#define ISDB__HEAD_SEED (ISDB__SNAPSHOT_HEADER + 16)
#define ISDB__HEAD_T (ISDB__SNAPSHOT_HEADER + 24)
#define ISDB__HEAD_END (ISDB__SNAPSHOT_HEADER + 32)

ISDB__ONCE isdb_result isdb_snapshot_read_info(const void *buf, size_t size, isdb_snapshot_info *info) {
    const unsigned char *in = (const unsigned char *)buf;
    isdb_result r;
    int64_t d, arms;
    if (!info) return ISDB_ERR_INVALID_ARG;
    memset(info, 0, sizeof *info);
    if ((r = isdb__snapshot_frame(in, size, 1)) != ISDB_OK) return r;
    if (size < ISDB__HEAD_END + 8) return ISDB_ERR_SNAPSHOT_TRUNCATED;
    d = (int64_t)isdb__get_le(in + ISDB__HEAD_D, 8);
    arms = (int64_t)isdb__get_le(in + ISDB__HEAD_ARMS, 8);
    if (d < 1 || d > ISDB_MAX_DIM || arms < 1 || arms > INT_MAX) return ISDB_ERR_SNAPSHOT_CORRUPT;
    info->kind = (isdb_policy_kind)isdb__get_le(in + 8, 4);
    info->d = (int)d;
    info->max_arms = (int)arms;
    info->seed = isdb__get_le(in + ISDB__HEAD_SEED, 8);
    info->t = isdb__get_le(in + ISDB__HEAD_T, 8);
    info->format = 1;
    info->real_bytes = isdb__get_le(in + 4, 4) == ISDB__SNAPSHOT_FLOAT ? 4 : 8;
    info->library_version = (uint32_t)isdb__get_le(in + 12, 4);
    info->size = size;
    return ISDB_OK;
}

/* The CHECK walk of load: the code load would return, the config field
   that differs in s->differs. */
ISDB__ONCE_PRIVATE isdb_result isdb__load_check(isdb_policy *p, const unsigned char *in, size_t size, isdb_ser *s) {
    isdb_result r;
    memset(s, 0, sizeof *s);
    if (!p) return ISDB_ERR_INVALID_ARG;
    if (!p->vt) return ISDB_ERR_BAD_STATE;
    if (!in) return ISDB_ERR_INVALID_ARG;
    if ((r = isdb__snapshot_check(in, size, p->vt->kind)) != ISDB_OK) return r;
    s->mode = ISDB__SER_CHECK;
    s->version = (uint32_t)isdb__get_le(in + 12, 4);
    s->in = in;
    s->pos = ISDB__SNAPSHOT_HEADER;
    s->end = size - 8;
    isdb__serialize_policy(p, s);
    /* The walk stops at its first failure: a config value unlike the
       object's, or a state value (or a length) no run of this config
       writes. */
    if (s->failed || s->pos != s->end) return s->differs ? ISDB_ERR_SNAPSHOT_CONFIG : ISDB_ERR_SNAPSHOT_CORRUPT;
    return ISDB_OK;
}

ISDB__ONCE isdb_result isdb_policy_check_load(const isdb_policy *p, const void *buf, size_t size, isdb_refusal *why) {
    isdb_ser s;
    isdb_result r = isdb__load_check((isdb_policy *)isdb__unconst(p), (const unsigned char *)buf, size, &s);
    isdb__want_start(why);
    if (r == ISDB_ERR_SNAPSHOT_CONFIG)
        isdb__refuse(why, s.differs, (double)NAN, (double)NAN, "the value of the object's own config");
    else if (r != ISDB_OK)
        isdb__refuse(why, !p || !p->vt ? "pol" : "buf", (double)NAN, (double)NAN, isdb_result_string(r));
    return r;
}

ISDB__ONCE isdb_result isdb_policy_load(isdb_policy *p, const void *buf, size_t size) {
    isdb_ser s;
    isdb_result r = isdb__load_check(p, (const unsigned char *)buf, size, &s);
    if (r != ISDB_OK) return r;
    s.mode = ISDB__SER_READ;
    s.pos = ISDB__SNAPSHOT_HEADER;
    isdb__serialize_policy(p, &s);
    return ISDB_OK;
}

/* config_from_snapshot: the head's d, arm count and seed, then the
   policy's config list, taken into cfg (cfg_size bytes, zeroed first, so
   pointer fields are NULL). */
ISDB__ONCE_PRIVATE isdb_result isdb__config_from_snapshot(const void *buf, size_t size, isdb_policy_kind kind,
                                                          void (*walk)(isdb_ser *s, void *cfg), void *cfg,
                                                          size_t cfg_size) {
    isdb_snapshot_info info;
    isdb_ser s;
    isdb_result r;
    if (!cfg) return ISDB_ERR_INVALID_ARG;
    memset(cfg, 0, cfg_size);
    if ((r = isdb_snapshot_read_info(buf, size, &info)) != ISDB_OK) return r;
    if (info.real_bytes != (int)sizeof(isdb_real)) return ISDB_ERR_SNAPSHOT_VERSION;
    if (info.kind != kind) return ISDB_ERR_SNAPSHOT_POLICY;
    memset(&s, 0, sizeof s);
    s.mode = ISDB__SER_TAKE;
    s.version = info.library_version;
    s.in = (const unsigned char *)buf;
    s.end = size - 8;
    s.head_d = info.d;
    s.head_arms = info.max_arms;
    s.head_seed = info.seed;
    /* past the head and the generator: four u64, a real and an i32 */
    s.pos = ISDB__HEAD_END + 32 + sizeof(isdb_real) + 4;
    walk(&s, cfg);
    if (s.failed) {
        memset(cfg, 0, cfg_size);
        return ISDB_ERR_SNAPSHOT_CORRUPT;
    }
    return ISDB_OK;
}
#define ISDB__CONFIG_FROM_SNAPSHOT(name, kind)                                                                 \
    ISDB__ONCE isdb_result isdb_##name##_config_from_snapshot(const void *buf, size_t size,                   \
                                                              isdb_##name##_config *cfg) {                    \
        return isdb__config_from_snapshot(buf, size, kind, isdb__##name##_walk_config, cfg, sizeof *cfg);     \
    }

/* ---------------------------------------------------------------------------
   Deterministic index policies: select and scores both evaluate `index`
   on every arm, so they agree exactly; probs is one-hot at select's arm.
   ------------------------------------------------------------------------ */

typedef isdb_real (*isdb__index_fn)(isdb_policy *p, const isdb_real *x, isdb_real beta);

ISDB__PRIVATE int isdb__index_argmax(isdb_policy *p, const isdb_real *X, int n_arms, isdb__index_fn index,
                                     isdb_real beta) {
    int k, best = 0, d = p->d;
    isdb_real best_value = index(p, X, beta);
    for (k = 1; k < n_arms; ++k) {
        isdb_real v = index(p, X + k * d, beta);
        if (v > best_value) {
            best_value = v;
            best = k;
        }
    }
    return best;
}

ISDB__PRIVATE void isdb__index_all(isdb_policy *p, const isdb_real *X, int n_arms, isdb__index_fn index, isdb_real beta,
                                   isdb_real *out) {
    int k;
    for (k = 0; k < n_arms; ++k) out[k] = index(p, X + k * p->d, beta);
}

ISDB__PRIVATE void isdb__one_hot(isdb_real *out, int n, int k) {
    isdb__zero(n, out);
    out[k] = 1;
}

/* Deterministic policies' probs: scores, then one-hot at the first max. */
ISDB__PRIVATE isdb_result isdb__probs_one_hot(isdb_policy *p, const isdb_real *X, int n_arms, isdb_real *out) {
    isdb_result r = p->vt->scores(p, X, n_arms, out);
    if (r < 0) return r;
    isdb__one_hot(out, n_arms, isdb__argmax(out, n_arms));
    return ISDB_OK;
}

#if ISDB__HAS_RIDGE
/* ---------------------------------------------------------------------------
   Ridge regression core (LinUCB, SW-UCB, LinTS): V = lambda I + sum x x^T
   kept as a Cholesky factor updated by rank-one steps into a scratch
   factor that is swapped in on commit, so an update that fails leaves the
   old factor in place.
   ------------------------------------------------------------------------ */

ISDB__ONCE_PRIVATE void isdb__ridge_layout(isdb__ridge *r, isdb__arena *a, int d, int with_gram) {
    int dd = d * d;
    r->d = d;
    r->L = isdb__take_f64(a, dd);
    r->L_next = isdb__take_f64(a, dd);
    r->inv_diag = isdb__take_f64(a, d);
    r->V = with_gram ? isdb__take_f64(a, dd) : NULL;
    r->b = isdb__take_f64(a, d);
#if ISDB_REAL_IS_FLOAT
    r->V_lo = with_gram ? isdb__take_f64(a, dd) : NULL;
    r->b_lo = with_gram ? isdb__take_f64(a, d) : NULL;
#endif
    r->z = isdb__take_f64(a, d);
    r->work = isdb__take_f64(a, 2 * d);
    r->block = isdb__take_f64(a, isdb__block_lanes() * d);
}

ISDB__PRIVATE void isdb__ridge_reset(isdb__ridge *r) {
    int i, d = r->d;
    isdb__identity(d, r->L, isdb__sqrt(r->lambda));
    isdb__identity(d, r->L_next, isdb__sqrt(r->lambda));
    for (i = 0; i < d; ++i) r->inv_diag[i] = 1 / isdb__sqrt(r->lambda);
    if (r->V) isdb__identity(d, r->V, r->lambda);
    isdb__zero(d, r->b);
#if ISDB_REAL_IS_FLOAT
    if (r->V) {
        isdb__zero(d * d, r->V_lo);
        isdb__zero(d, r->b_lo);
    }
#endif
    isdb__zero(d, r->z);
    isdb__zero(2 * d, r->work);
    isdb__zero(isdb__block_lanes() * d, r->block);
    r->logdet = (isdb_real)d * isdb__log(r->lambda);
    r->since_refresh = 0;
}

/* Makes L_next the factor (after it was filled) and derives what depends
   on it: the reciprocal diagonal and z = L^-1 b. */
ISDB__PRIVATE void isdb__ridge_commit(isdb__ridge *r) {
    isdb_real *tmp = r->L;
    int i, d = r->d;
    r->L = r->L_next;
    r->L_next = tmp;
    for (i = 0; i < d; ++i) r->inv_diag[i] = 1 / r->L[i * d + i];
    isdb__tri_solve(d, r->L, r->inv_diag, 0, r->b, r->z);
}

/* Refactorises the exact Gram sum into L_next; 0 if it does not factor. */
ISDB__PRIVATE int isdb__ridge_refactor(isdb__ridge *r) {
    isdb__copy(r->d * r->d, r->V, r->L_next);
    return isdb_chol(r->d, r->L_next) == ISDB_OK;
}

/* dst = g src + w x x^T + pad I on the lower triangle (dst may be src);
   a row's values in vectors where they build, the same operations lane
   by lane (w = 1 forms x_i x_j exactly). */
ISDB__PRIVATE void isdb__discount_gram(int d, const isdb_real *src, isdb_real *dst, const isdb_real *x, isdb_real w,
                                       isdb_real g, isdb_real pad) {
    int i, j;
    for (i = 0; i < d; ++i) {
        const isdb_real wx = w * x[i];
        j = 0;
#if defined(ISDB__VEC_LANES)
        {
            const isdb__vec wv = isdb__splat(wx), gv = isdb__splat(g);
            for (; j + ISDB__VLEN <= i + 1; j += ISDB__VLEN)
                *(isdb__vec *)(dst + i * d + j) =
                    gv * *(const isdb__vec *)(src + i * d + j) + wv * *(const isdb__vec *)(x + j);
        }
#endif
        for (; j <= i; ++j) dst[i * d + j] = g * src[i * d + j] + wx * x[j];
        dst[i * d + i] += pad;
    }
}

#if ISDB_REAL_IS_FLOAT
/* s <- g s + u, with lo the rounding error s has accumulated (s + lo is
   the sum) and the error of this addition added to it (Knuth's two-sum).
   A plain float sum of x x^T stops growing once its entries are 2^24
   times the increments (10^7 unit-norm updates lose 1% of LinUCB's Gram
   matrix; double needs 2^53); this keeps V and b accurate to eps. */
ISDB__PRIVATE void isdb__sum_lo(isdb_real *s, isdb_real *lo, isdb_real g, isdb_real u) {
    isdb_real a = g * *s, v = u + g * *lo, t = a + v, bv = t - a;
    *lo = (a - (t - bv)) + (v - bv);
    *s = t;
}
#endif

/* Adds (x, y) with the old data discounted by gamma in (0, 1]:
   V <- gamma V + x x^T + (1 - gamma) lambda I and b <- gamma b + y x, so
   the ridge stays lambda I (the discounted LinUCB of Russac et al.; gamma
   = 1 is plain ridge regression). Cannot fail: inputs are bounded by
   ISDB_INPUT_MAX and lambda by ISDB__LAMBDA_MIN, so every value stays
   finite. The factor follows by a rank-one step, which also carries z and
   the reciprocal diagonal along, after scaling by sqrt(gamma); that step
   leaves out the (1 - gamma) lambda I padding, so every `refresh`
   additions the factor is rebuilt from the exact Gram sum, which restores
   the padding and removes the rounding the rank-one steps accumulate. */
ISDB__PRIVATE void isdb__ridge_add_discounted(isdb__ridge *r, const isdb_real *x, isdb_real y, isdb_real gamma) {
    isdb_real *tmp;
    int i, d = r->d, b_done = 0;
#if ISDB_REAL_IS_FLOAT
    if (r->V) {
        int j;
        for (i = 0; i < d; ++i) {
            for (j = 0; j <= i; ++j)
                isdb__sum_lo(r->V + i * d + j, r->V_lo + i * d + j, gamma,
                             x[i] * x[j] + (i == j ? (1 - gamma) * r->lambda : 0));
            isdb__sum_lo(r->b + i, r->b_lo + i, gamma, y * x[i]);
        }
        b_done = 1;
    }
#else
    if (r->V) isdb__discount_gram(d, r->V, r->V, x, 1, gamma, (1 - gamma) * r->lambda);
#endif
    if (!b_done)
        for (i = 0; i < d; ++i) r->b[i] = gamma * r->b[i] + y * x[i]; /* 1 * b is b exactly */
    if (r->V && r->refresh > 0 && ++r->since_refresh >= r->refresh) {
        r->since_refresh = 0;
        /* V >= lambda I always factors; should rounding say otherwise, the
           rank-one step below still applies. */
        if (isdb__ridge_refactor(r)) {
            isdb__ridge_commit(r);
            r->logdet = isdb_chol_logdet(d, r->L);
            return;
        }
    }
    if (gamma < 1) r->logdet += (isdb_real)d * isdb__log(gamma);
    r->logdet += isdb__log(isdb__chol_discount(d, r->L, r->L_next, x, y, gamma, r->work, r->inv_diag, r->z));
    tmp = r->L;
    r->L = r->L_next;
    r->L_next = tmp;
}

ISDB__PRIVATE void isdb__ridge_add(isdb__ridge *r, const isdb_real *x, isdb_real y) {
    isdb__ridge_add_discounted(r, x, y, 1);
}

/* Makes dst hold the same estimate as src (both laid out for one d, dst
   with a Gram sum whenever src has one). */
ISDB__PRIVATE void isdb__ridge_copy(const isdb__ridge *src, isdb__ridge *dst) {
    int d = src->d;
    isdb__copy(d * d, src->L, dst->L);
    isdb__copy(d, src->inv_diag, dst->inv_diag);
    if (src->V) isdb__copy(d * d, src->V, dst->V);
    isdb__copy(d, src->b, dst->b);
#if ISDB_REAL_IS_FLOAT
    if (src->V) {
        isdb__copy(d * d, src->V_lo, dst->V_lo);
        isdb__copy(d, src->b_lo, dst->b_lo);
    }
#endif
    isdb__copy(d, src->z, dst->z);
    dst->logdet = src->logdet;
    dst->since_refresh = isdb__min_int(src->since_refresh, dst->refresh);
}

/* w = L^-1 x into work; returns |w|^2 = ||x||^2 in the metric V^-1. */
ISDB__PRIVATE isdb_real isdb__ridge_norm2(isdb__ridge *r, const isdb_real *x) {
    isdb__tri_solve(r->d, r->L, r->inv_diag, 0, x, r->work);
    return isdb__dot(r->d, r->work, r->work);
}

/* UCB x.theta + beta ||x||_{V^-1} of every arm, with w = L^-1 x:
   x.theta = w.z and ||x||_{V^-1} = |w|. Writes out[k] if out is not NULL
   and returns the first arm of largest UCB: select and scores share it. */
ISDB__PRIVATE int isdb__ridge_ucb_all(isdb__ridge *r, const isdb_real *X, int n_arms, isdb_real beta, isdb_real *out) {
    int k, a, m, d = r->d, best = 0, lanes16 = isdb__lanes16_here();
    isdb_real best_value = 0, mean[ISDB__PASS_MAX], norm2[ISDB__PASS_MAX];
    const isdb_real *rows[ISDB__PASS_MAX];
    /* Sixteen arms a pass while more than eight remain where the float
       AVX2 kernel runs, eight while more than four remain, then four
       (scalar kernels); the vectorized kernel, two rows a pass, is faster
       with eight lanes even for the last one to four arms. */
    for (k = 0; k < n_arms; k += m) {
        if (lanes16 && n_arms - k > ISDB__LANES8) {
            m = isdb__lanes_rows_n(X, d, n_arms, k, ISDB__LANES16, rows);
            isdb__lanes16_fwd_solve_dots(d, r->L, r->inv_diag, rows, r->block, r->z, mean, norm2);
        } else if (n_arms - k > ISDB__LANES || ISDB__VEC8_ALWAYS) {
            m = isdb__lanes_rows_n(X, d, n_arms, k, ISDB__LANES8, rows);
            isdb__lanes8_fwd_solve_dots(d, r->L, r->inv_diag, rows, r->block, r->z, mean, norm2);
        } else {
            m = isdb__lanes_rows(X, d, n_arms, k, rows);
            isdb__lanes_fwd_solve(d, r->L, r->inv_diag, rows, r->block);
            isdb__lanes_dots(d, r->block, r->z, mean, norm2);
        }
        for (a = 0; a < m; ++a) {
            isdb_real v = mean[a] + beta * isdb__sqrt(norm2[a]);
            if (out) out[k + a] = v;
            if (k + a == 0 || v > best_value) {
                best_value = v;
                best = k + a;
            }
        }
    }
    return best;
}

/* The two parts of an arm's UCB, for the policies' explain getters. */
ISDB__ONCE_PRIVATE isdb_result isdb__ridge_explain(isdb__ridge *r, const isdb_real *x, isdb_real beta, isdb_real *mean,
                                                   isdb_real *bonus) {
    isdb_result res;
    isdb_real n2;
    if (!x) return ISDB_ERR_INVALID_ARG;
    if ((res = isdb__check_input(x, r->d)) != ISDB_OK) return res;
    n2 = isdb__ridge_norm2(r, x);
    if (mean) *mean = isdb__dot(r->d, r->work, r->z);
    if (bonus) *bonus = beta * isdb__sqrt(n2);
    return ISDB_OK;
}

/* theta = V^-1 b = L^-T z. */
ISDB__CALL_PRIVATE void isdb__ridge_theta(const isdb__ridge *r, isdb_real *theta) {
    isdb__tri_solve(r->d, r->L, r->inv_diag, 1, r->z, theta);
}

/* L z = b for a z carried by rank-one steps (V the Gram sum L L^T
   follows): what they round away is at most about sum_t |y_t x_ti| <=
   ISDB_INPUT_MAX sqrt(t V_ii), however much b's sum cancels. */
ISDB__ONCE_PRIVATE void isdb__ser_check_carried_solve(isdb_ser *s, isdb__ser_view L, int d, isdb__ser_view z,
                                                      isdb__ser_view b, isdb__ser_view V) {
    isdb_real ymax = ISDB_INPUT_MAX * isdb__sqrt((isdb_real)s->t);
    int i, k;
    if (!isdb__ser_checking(s, z, b)) return;
    for (i = 0; i < d; ++i) {
        isdb_real v = 0, a = 0, bi = isdb__sv(b, i);
        for (k = 0; k <= i; ++k) {
            isdb_real t = isdb__sv(L, i * d + k) * isdb__sv(z, k);
            v += t;
            a += isdb__fabs(t);
        }
        a = ISDB__SER_TOL * (a + isdb__fabs(bi) + ymax * isdb__sqrt(isdb__sv(V, i * d + i))) + ISDB__REAL_MIN;
        isdb__ser_require(s, isdb__finite(a) && isdb__fabs(v - bi) <= a);
    }
}

/* On CHECK: L lower with a positive diagonal and its reciprocals; the
   Gram sum V (when kept) lambda I or more on the diagonal, with L L^T =
   V - p I, p in [0, pad]; V and b within what t updates can sum; the
   log-determinant that of L; L L^T at least lo I in the sense of
   isdb__ser_check_inverse (lo: lambda, or what discounting can leave of
   it); and L z = b, exactly to rounding when z_solved (z solved from b
   at every update), otherwise (z carried along by the rank-one steps)
   give or take what those steps can round away. Returns the views on L
   and V and since_refresh (for checks against data kept elsewhere). */
typedef struct isdb__ridge_views {
    isdb__ser_view L, V;
    int since;
} isdb__ridge_views;

ISDB__ONCE_PRIVATE isdb__ridge_views isdb__ridge_serialize(isdb__ridge *r, isdb_ser *s, int refresh_max, isdb_real pad,
                                                      isdb_real lo, int z_solved) {
    int d = r->d, dd = d * d;
    isdb__ridge_views out;
    isdb__ser_view L = isdb__ser_view_real(s, r->L, dd), b, z;
    isdb__ser_view inv = isdb__ser_view_real(s, r->inv_diag, d);
    isdb_real logdet, cap = isdb__ser_sum_cap(s->t);
    isdb__ser_check_lower(s, L, d, d, 1);
    isdb__ser_check_inv_diag(s, L, inv, d, d);
    out.L = L;
    out.V.at = NULL;
    if (r->V) {
        isdb__ser_gram g;
        g.A = out.V = isdb__ser_view_real(s, r->V, dd);
        g.ld = d;
        isdb__ser_check_gram(s, g.A, d, d, 0, r->lambda * (1 - ISDB__SER_TOL), r->lambda + cap);
        isdb__ser_check_factor(s, L, d, d, isdb__ser_gram_at, &g, pad);
    }
    b = isdb__ser_view_in(s, r->b, d, -cap, cap);
#if ISDB_REAL_IS_FLOAT
    if (r->V) {
        isdb__ser_real(s, r->V_lo, dd);
        isdb__ser_real(s, r->b_lo, d);
    }
#endif
    z = isdb__ser_view_real(s, r->z, d);
    if (z_solved || !out.V.at) {
        isdb__ser_check_solve(s, L, d, d, 0, z, b, 0);
    } else {
        isdb__ser_check_carried_solve(s, L, d, z, b, out.V);
    }
    logdet = isdb__ser_real_in(s, &r->logdet, -ISDB__REAL_MAX, ISDB__REAL_MAX);
    isdb__ser_check_logdet(s, L, d, d, logdet);
    out.since = isdb__ser_int(s, &r->since_refresh, 0, refresh_max);
    isdb__ser_check_inverse(s, L, d, d, lo, r->work);
    return out;
}

/* The confidence width beta_n of OFUL-type policies (without alpha). */
ISDB__PRIVATE isdb_real isdb__width(isdb_width kind, int d, isdb_real n, isdb_real lambda, isdb_real delta, isdb_real R, isdb_real S,
                                 isdb_real L, isdb_real logdet) {
    isdb_real radius;
    switch (kind) {
    case ISDB_WIDTH_LOGDET:
        radius = 2 * isdb__log(1 / delta) + logdet - (isdb_real)d * isdb__log(lambda);
        break;
    case ISDB_WIDTH_DETTRACE:
        radius = 2 * isdb__log(1 / delta) + (isdb_real)d * isdb__log1p(n * L * L / ((isdb_real)d * lambda));
        break;
    case ISDB_WIDTH_SIMPLE:
        radius = (isdb_real)d * (isdb__log1p(n * L * L / lambda) - isdb__log(delta));
        break;
    default:
        return 1;
    }
    return R * isdb__sqrt(radius > 0 ? radius : 0) + isdb__sqrt(lambda) * S;
}

/* Checks shared by the ridge UCB configs (lambda, delta, R, S, L, alpha). */
ISDB__PRIVATE int isdb__want_ucb(isdb_refusal *why, isdb_real lambda, isdb_real delta, isdb_real R, isdb_real S,
                                 isdb_real L, isdb_real alpha) {
    return isdb__want_ridge(why, lambda, "lambda") && isdb__want_delta(why, delta, "delta") &&
           isdb__want_scale(why, R, "R") && isdb__want_scale(why, S, "S") && isdb__want_pos_scale(why, L, "L") &&
           isdb__want_scale(why, alpha, "alpha");
}
ISDB__PRIVATE int isdb__want_width(isdb_refusal *why, isdb_width width) {
    return isdb__want_int(why, (int)width, "width", ISDB_WIDTH_LOGDET, ISDB_WIDTH_CONSTANT, "an isdb_width");
}

#endif /* ISDB__HAS_RIDGE */
#if ISDB__HAS_LINUCB
/* ---------------------------------------------------------------------------
   [LINUCB] LinUCB / OFUL
   ------------------------------------------------------------------------ */

#define ISDB__LINUCB_FIELDS(X)                                                                      \
    ISDB__UCB_HEAD_FIELDS(X)                                                                        \
    ISDB__UCB_FIELDS(X)                                                                             \
    X(INT, isdb_width, width, ISDB_WIDTH_LOGDET, isdb__want_width(why, c->width))                  \
    X(INT, int, refresh, 0, isdb__want_count(why, c->refresh, "refresh"))

ISDB__ONCE isdb_linucb_config isdb_linucb_config_init(int d, int max_arms) {
    isdb_linucb_config c;
    memset(&c, 0, sizeof c);
    ISDB__LINUCB_FIELDS(ISDB__CFG_DEFAULT)
    return c;
}

ISDB__ONCE isdb_result isdb_linucb_config_check(const isdb_linucb_config *c, isdb_refusal *why) {
    return isdb__checked(isdb__want_start(why) && isdb__want_ptr(why, c, "cfg") ISDB__LINUCB_FIELDS(ISDB__CFG_CHECK));
}

ISDB__DEFINE_CONFIG_WALK(linucb, ISDB__LINUCB_FIELDS)
ISDB__CONFIG_FROM_SNAPSHOT(linucb, ISDB_POLICY_LINUCB)

ISDB__ONCE_PRIVATE size_t isdb__linucb_layout(const isdb_linucb_config *c, isdb_linucb *p, void *heap) {
    isdb__arena a;
    a.base = (unsigned char *)heap;
    a.used = 0;
    a.overflow = 0;
    isdb__ridge_layout(&p->_ridge, &a, c->d, 1);
    return a.overflow ? 0 : a.used;
}

isdb_real isdb_linucb_get_beta(const isdb_linucb *p) {
    const isdb_linucb_config *c = &p->cfg;
    return c->alpha *
           isdb__width(c->width, c->d, (isdb_real)p->base.t, c->lambda, c->delta, c->R, c->S, c->L, p->_ridge.logdet);
}

ISDB__PRIVATE isdb_result isdb__linucb_select(isdb_policy *p, const isdb_real *X, int n_arms, int *arm) {
    isdb_linucb *pol = (isdb_linucb *)p;
    *arm = isdb__ridge_ucb_all(&pol->_ridge, X, n_arms, isdb_linucb_get_beta(pol), NULL);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__linucb_scores(isdb_policy *p, const isdb_real *X, int n_arms, isdb_real *out) {
    isdb_linucb *pol = (isdb_linucb *)p;
    isdb__ridge_ucb_all(&pol->_ridge, X, n_arms, isdb_linucb_get_beta(pol), out);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__linucb_update(isdb_policy *p, int arm, const isdb_real *x, isdb_real y) {
    (void)arm;
    isdb__ridge_add(&((isdb_linucb *)p)->_ridge, x, y);
    return ISDB_OK;
}

ISDB__ONCE_PRIVATE void isdb__linucb_serialize(isdb_policy *bp, isdb_ser *s) {
    isdb_linucb *p = (isdb_linucb *)bp;
    const isdb_linucb_config *c = &p->cfg;
    isdb__ridge_serialize(&p->_ridge, s, c->refresh, 0, c->lambda, 0);
}

ISDB__ONCE_PRIVATE void isdb__linucb_reset(isdb_policy *p) { isdb__ridge_reset(&((isdb_linucb *)p)->_ridge); }

static const isdb_policy_vtable isdb__linucb_vt = {
    ISDB_POLICY_LINUCB,     "linucb",           0, isdb__linucb_select, isdb__linucb_update, isdb__linucb_scores,
    isdb__probs_one_hot,    isdb__linucb_serialize, isdb__linucb_reset, isdb__linucb_walk_config,
    offsetof(isdb_linucb, cfg), "max_arms", sizeof(isdb_linucb_config)};

ISDB__ONCE isdb_result isdb_linucb_heap_size(const isdb_linucb_config *cfg, size_t *bytes) {
    isdb_linucb probe;
    if (!bytes || isdb_linucb_config_check(cfg, NULL) != ISDB_OK) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__linucb_layout(cfg, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

ISDB__ONCE isdb_result isdb_linucb_init_preallocated(const isdb_linucb_config *cfg, void *heap, size_t heap_bytes,
                                                     isdb_linucb *pol) {
    size_t bytes;
    isdb_result r = isdb_linucb_heap_size(cfg, &bytes);
    if (r == ISDB_OK) r = isdb_init_check(heap, heap_bytes, bytes, pol, NULL);
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    memset(pol, 0, sizeof *pol);
    pol->cfg = *cfg;
    if (pol->cfg.refresh == 0) pol->cfg.refresh = isdb__max_int(4 * cfg->d, 256);
    isdb__linucb_layout(cfg, pol, heap);
    pol->_ridge.lambda = cfg->lambda;
    pol->_ridge.refresh = pol->cfg.refresh;
    isdb__policy_base_init(&pol->base, &isdb__linucb_vt, cfg->d, cfg->max_arms, 0, heap, bytes, sizeof *pol);
    isdb__linucb_reset(&pol->base);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__linucb_setup(const void *cfg, void *heap, size_t heap_bytes, void *pol) {
    return isdb_linucb_init_preallocated((const isdb_linucb_config *)cfg, heap, heap_bytes, (isdb_linucb *)pol);
}

ISDB__ONCE isdb_result isdb_linucb_init(const isdb_linucb_config *cfg, const isdb_allocator *alloc, isdb_linucb *pol) {
    size_t bytes;
    isdb_result r = isdb_linucb_heap_size(cfg, &bytes);
    if (r == ISDB_OK && !pol) r = ISDB_ERR_INVALID_ARG;
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    return isdb__policy_init_owned(&pol->base, sizeof *pol, bytes, alloc, isdb__linucb_setup, cfg, pol);
}

ISDB__ONCE const isdb_linucb_config *isdb_linucb_get_config(const isdb_linucb *pol) { return &pol->cfg; }

void isdb_linucb_get_theta(const isdb_linucb *pol, isdb_real *theta) { isdb__ridge_theta(&pol->_ridge, theta); }

ISDB__ONCE isdb_result isdb_linucb_explain(isdb_linucb *pol, const isdb_real *x, isdb_real *mean, isdb_real *bonus) {
    if (!pol) return ISDB_ERR_INVALID_ARG;
    return isdb__ridge_explain(&pol->_ridge, x, isdb_linucb_get_beta(pol), mean, bonus);
}

#endif /* ISDB__HAS_LINUCB */
#if ISDB__HAS_SWUCB
/* ---------------------------------------------------------------------------
   [SWUCB] SW-UCB
   ------------------------------------------------------------------------ */

#define ISDB__SWUCB_FIELDS(X)                                                                       \
    ISDB__UCB_HEAD_FIELDS(X)                                                                        \
    X(INT, int, window, window,                                                                     \
      isdb__want_int(why, c->window, "window", 1, INT_MAX / (c->d + 1), "[1, INT_MAX / (d + 1)]"))  \
    ISDB__UCB_FIELDS(X)                                                                             \
    X(INT, isdb_width, width, ISDB_WIDTH_LOGDET, isdb__want_width(why, c->width))                  \
    X(INT, int, refresh, 0, isdb__want_count(why, c->refresh, "refresh"))

ISDB__COLD isdb_swucb_config isdb_swucb_config_init(int d, int max_arms, int window) {
    isdb_swucb_config c;
    memset(&c, 0, sizeof c);
    ISDB__SWUCB_FIELDS(ISDB__CFG_DEFAULT)
    return c;
}

ISDB__COLD isdb_result isdb_swucb_config_check(const isdb_swucb_config *c, isdb_refusal *why) {
    return isdb__checked(isdb__want_start(why) && isdb__want_ptr(why, c, "cfg") ISDB__SWUCB_FIELDS(ISDB__CFG_CHECK));
}

ISDB__DEFINE_CONFIG_WALK(swucb, ISDB__SWUCB_FIELDS)
ISDB__CONFIG_FROM_SNAPSHOT(swucb, ISDB_POLICY_SWUCB)

ISDB__COLD_PRIVATE size_t isdb__swucb_layout(const isdb_swucb_config *c, isdb_swucb *p, void *heap) {
    isdb__arena a;
    a.base = (unsigned char *)heap;
    a.used = 0;
    a.overflow = 0;
    isdb__ridge_layout(&p->_ridge, &a, c->d, 0);
    p->_ring_x = isdb__take_f64(&a, c->window * c->d);
    p->_ring_y = isdb__take_f64(&a, c->window);
    return a.overflow ? 0 : a.used;
}

isdb_real isdb_swucb_get_beta(const isdb_swucb *p) {
    const isdb_swucb_config *c = &p->cfg;
    /* Eq. 5 uses w from the first round on; DETTRACE counts what is in
       the window, as the public SW-LinUCB code does. */
    isdb_real n = c->width == ISDB_WIDTH_SIMPLE ? (isdb_real)c->window : (isdb_real)p->count;
    return c->alpha * isdb__width(c->width, c->d, n, c->lambda, c->delta, c->R, c->S, c->L, p->_ridge.logdet);
}

ISDB__PRIVATE isdb_result isdb__swucb_select(isdb_policy *p, const isdb_real *X, int n_arms, int *arm) {
    isdb_swucb *pol = (isdb_swucb *)p;
    *arm = isdb__ridge_ucb_all(&pol->_ridge, X, n_arms, isdb_swucb_get_beta(pol), NULL);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__swucb_scores(isdb_policy *p, const isdb_real *X, int n_arms, isdb_real *out) {
    isdb_swucb *pol = (isdb_swucb *)p;
    isdb__ridge_ucb_all(&pol->_ridge, X, n_arms, isdb_swucb_get_beta(pol), out);
    return ISDB_OK;
}

/* G += v v^T over the n rows v of V (d apart), lower triangle. Each entry
   sums its n terms in row order, as n separate rank-one additions would
   (the same bits), but four entries of a row at a time in named scalars,
   which the compiler vectorizes, instead of loading and storing G once
   per term. */
ISDB__PRIVATE void isdb__gram_add(int d, isdb_real *ISDB__RESTRICT G, const isdb_real *ISDB__RESTRICT V, int n) {
    int i, j, k;
    for (i = 0; i < d && n > 0; ++i) {
        isdb_real *Gi = G + (size_t)i * (size_t)d;
        for (j = 0; j + 4 <= i + 1; j += 4) {
            isdb_real g0 = Gi[j], g1 = Gi[j + 1], g2 = Gi[j + 2], g3 = Gi[j + 3];
            const isdb_real *v = V;
            for (k = 0; k < n; ++k, v += d) {
                const isdb_real vi = v[i];
                g0 += vi * v[j];
                g1 += vi * v[j + 1];
                g2 += vi * v[j + 2];
                g3 += vi * v[j + 3];
            }
            Gi[j] = g0;
            Gi[j + 1] = g1;
            Gi[j + 2] = g2;
            Gi[j + 3] = g3;
        }
        for (; j <= i; ++j) {
            isdb_real g = Gi[j];
            const isdb_real *v = V;
            for (k = 0; k < n; ++k, v += d) g += v[i] * v[j];
            Gi[j] = g;
        }
    }
}

/* Factor (into L_next) and b (into work) of lambda I plus the `kept` ring
   rows from slot `first` on (a ring of `cap` slots), plus (x, y) when x is
   not NULL. Sums run from the oldest observation to the newest. The ring
   is not touched. The Gram matrix is formed and factorised; if it is
   numerically singular (a feature vector dwarfing lambda), the factor is
   built instead by one Givens update per observation from sqrt(lambda) I,
   which cannot fail, so a window always moves on. */
ISDB__PRIVATE void isdb__window_refit(isdb__ridge *r, const isdb_real *ring_x, const isdb_real *ring_y, int cap, int first,
                                      int kept, const isdb_real *x, isdb_real y) {
    int d = r->d, i, k, pass, rows = x ? kept + 1 : kept, head = isdb__min_int(kept, cap - first);
    isdb_real *G = r->L_next, *b = r->work;
    for (pass = 0; pass < 2; ++pass) {
        isdb__identity(d, G, pass ? isdb__sqrt(r->lambda) : r->lambda);
        isdb__zero(d, b);
        for (k = 0; k < rows; ++k) {
            int slot = (first + k) % cap;
            const isdb_real *v = k < kept ? ring_x + slot * d : x;
            isdb_real yv = k < kept ? ring_y[slot] : y;
            for (i = 0; i < d; ++i) b[i] += yv * v[i];
            if (pass) isdb__chol_update_to(d, G, G, v, r->block);
        }
        if (!pass) {
            /* The ring's rows from `first` to its end, those from its
               start, then x: the oldest to the newest, as above. */
            isdb__gram_add(d, G, ring_x + first * d, head);
            isdb__gram_add(d, G, ring_x, kept - head);
            if (x) isdb__gram_add(d, G, x, 1);
        }
        if (pass || isdb_chol(d, G) == ISDB_OK) return;
    }
}

/* Moves a sliding-window ridge estimate on by (x, y). It holds the `count`
   newest observations, the oldest in ring slot `oldest` (a ring of `cap`
   slots that the caller advances afterwards); with count == window the
   oldest leaves. Adds before removing: V + x x^T - z z^T >= lambda I keeps
   the downdate well defined. Returns 0 after the rank-one steps, 1 after
   the scheduled exact rebuild (every `refresh` steps), 2 after a rebuild
   because the downdate was refused. */
ISDB__PRIVATE int isdb__window_step(isdb__ridge *r, const isdb_real *ring_x, const isdb_real *ring_y, int cap, int oldest,
                                    int count, int window, int refresh, const isdb_real *x, isdb_real y) {
    int i, d = r->d, full = count == window, outcome = r->since_refresh + 1 >= refresh;
    const isdb_real *z = ring_x + oldest * d;
    isdb_real ratio = 1, down = 1;
    if (!outcome && !isdb__chol_slide(d, r->L, r->inv_diag, r->L_next, x, full ? z : NULL, r->work, &ratio, &down))
        outcome = 2;
    if (outcome) {
        isdb__window_refit(r, ring_x, ring_y, cap, full ? (oldest + 1) % cap : oldest, full ? count - 1 : count, x,
                           y);
        isdb__copy(d, r->work, r->b);
        r->logdet = isdb_chol_logdet(d, r->L_next);
        r->since_refresh = 0;
    } else {
        isdb_real yz = full ? ring_y[oldest] : 0;
        for (i = 0; i < d; ++i) r->b[i] += y * x[i] - yz * z[i];
        r->logdet += isdb__log(ratio * down);
        ++r->since_refresh;
    }
    isdb__ridge_commit(r);
    return outcome;
}

ISDB__PRIVATE isdb_result isdb__swucb_update(isdb_policy *bp, int arm, const isdb_real *x, isdb_real y) {
    isdb_swucb *p = (isdb_swucb *)bp;
    int w = p->cfg.window, full = p->count == w;
    int slot = full ? p->head : (p->head + p->count) % w;
    int outcome = isdb__window_step(&p->_ridge, p->_ring_x, p->_ring_y, w, p->head, p->count, w, p->cfg.refresh,
                                     x, y);
    (void)arm;
    p->rebuilds += outcome != 0;
    p->refusals += outcome == 2;
    isdb__copy(p->cfg.d, x, p->_ring_x + slot * p->cfg.d);
    p->_ring_y[slot] = y;
    if (full)
        p->head = (p->head + 1) % w;
    else
        ++p->count;
    return ISDB_OK;
}

/* The Gram matrix lambda I + sum of x x^T over a ring's rows, read from
   a snapshot. */
typedef struct isdb__swucb_ring {
    isdb__ser_view X, y;
    int rows, d;
    isdb_real lambda;
} isdb__swucb_ring;

ISDB__PRIVATE isdb_real isdb__swucb_gram(const void *ctx, int i, int j) {
    const isdb__swucb_ring *g = (const isdb__swucb_ring *)ctx;
    isdb_real v = i == j ? g->lambda : 0;
    int k;
    for (k = 0; k < g->rows; ++k) v += isdb__sv(g->X, k * g->d + i) * isdb__sv(g->X, k * g->d + j);
    return v;
}

ISDB__ONCE_PRIVATE void isdb__swucb_serialize(isdb_policy *bp, isdb_ser *s) {
    isdb_swucb *p = (isdb_swucb *)bp;
    const isdb_swucb_config *c = &p->cfg;
    int w = c->window, d = c->d, count, k;
    uint64_t t = s->t, rebuilds;
    isdb__swucb_ring g;
    isdb__ridge_views r;
    /* The ring fills from slot 0; once full, head is the oldest slot. */
    count = isdb__ser_int(s, &p->count, 0, w);
    isdb__ser_require(s, (uint64_t)count == (t < (uint64_t)w ? t : (uint64_t)w));
    isdb__ser_require(s, isdb__ser_int(s, &p->head, 0, w - 1) == (t < (uint64_t)w ? 0 : (int)(t % (uint64_t)w)));
    rebuilds = isdb__ser_u64(s, &p->rebuilds);
    isdb__ser_require(s, rebuilds <= t && isdb__ser_u64(s, &p->refusals) <= rebuilds);
    r = isdb__ridge_serialize(&p->_ridge, s, c->refresh, 0, c->lambda, 1);
    /* The rows are inputs; slots not filled yet are zero. */
    g.X = isdb__ser_view_in(s, p->_ring_x, w * d, -ISDB_INPUT_MAX, ISDB_INPUT_MAX);
    g.y = isdb__ser_view_in(s, p->_ring_y, w, -ISDB_INPUT_MAX, ISDB_INPUT_MAX);
    if (!isdb__ser_checking(s, g.X, g.y)) return;
    for (k = count * d; k < w * d; ++k) isdb__ser_require(s, isdb__sv(g.X, k) == 0);
    for (k = count; k < w; ++k) isdb__ser_require(s, isdb__sv(g.y, k) == 0);
    /* Just after a rebuild, the factor is that of lambda I plus the rows
       in the window. The downdates in between can drift from that sum by
       much more than its size where it cancels, so they are not
       compared. */
    g.rows = count;
    g.d = d;
    g.lambda = c->lambda;
    if (r.since == 0) isdb__ser_check_factor(s, r.L, d, d, isdb__swucb_gram, &g, 0);
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
    isdb__probs_one_hot, isdb__swucb_serialize, isdb__swucb_reset, isdb__swucb_walk_config,
    offsetof(isdb_swucb, cfg), "max_arms", sizeof(isdb_swucb_config)};

ISDB__COLD isdb_result isdb_swucb_heap_size(const isdb_swucb_config *cfg, size_t *bytes) {
    isdb_swucb probe;
    if (!bytes || isdb_swucb_config_check(cfg, NULL) != ISDB_OK) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__swucb_layout(cfg, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

isdb_result isdb_swucb_init_preallocated(const isdb_swucb_config *cfg, void *heap, size_t heap_bytes, isdb_swucb *pol) {
    size_t bytes;
    isdb_result r = isdb_swucb_heap_size(cfg, &bytes);
    if (r == ISDB_OK) r = isdb_init_check(heap, heap_bytes, bytes, pol, NULL);
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    memset(pol, 0, sizeof *pol);
    pol->cfg = *cfg;
    if (pol->cfg.refresh == 0) pol->cfg.refresh = isdb__max_int(cfg->window, cfg->d);
    isdb__swucb_layout(cfg, pol, heap);
    pol->_ridge.lambda = cfg->lambda;
    isdb__policy_base_init(&pol->base, &isdb__swucb_vt, cfg->d, cfg->max_arms, 0, heap, bytes, sizeof *pol);
    isdb__swucb_reset(&pol->base);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__swucb_setup(const void *cfg, void *heap, size_t heap_bytes, void *pol) {
    return isdb_swucb_init_preallocated((const isdb_swucb_config *)cfg, heap, heap_bytes, (isdb_swucb *)pol);
}

ISDB__ONCE isdb_result isdb_swucb_init(const isdb_swucb_config *cfg, const isdb_allocator *alloc, isdb_swucb *pol) {
    size_t bytes;
    isdb_result r = isdb_swucb_heap_size(cfg, &bytes);
    if (r == ISDB_OK && !pol) r = ISDB_ERR_INVALID_ARG;
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    return isdb__policy_init_owned(&pol->base, sizeof *pol, bytes, alloc, isdb__swucb_setup, cfg, pol);
}

ISDB__ONCE const isdb_swucb_config *isdb_swucb_get_config(const isdb_swucb *pol) { return &pol->cfg; }

void isdb_swucb_get_theta(const isdb_swucb *pol, isdb_real *theta) { isdb__ridge_theta(&pol->_ridge, theta); }

ISDB__ONCE isdb_result isdb_swucb_explain(isdb_swucb *pol, const isdb_real *x, isdb_real *mean, isdb_real *bonus) {
    if (!pol) return ISDB_ERR_INVALID_ARG;
    return isdb__ridge_explain(&pol->_ridge, x, isdb_swucb_get_beta(pol), mean, bonus);
}

ISDB__ONCE isdb_result isdb_swucb_tuned_window(isdb_window_rule rule, int d, isdb_real T, isdb_real B_T, int *window) {
    isdb_real w;
    if (!window || d < 1 || !(T >= 1) || !isdb__finite(T)) return ISDB_ERR_INVALID_ARG;
    switch (rule) {
    case ISDB_WINDOW_KNOWN:
        if (!isdb__positive(B_T)) return ISDB_ERR_INVALID_ARG;
        w = isdb__pow((isdb_real)d * T / B_T, ISDB__R(2.0 / 3.0));
        break;
    case ISDB_WINDOW_EQ12:
        if (!isdb__nonneg(B_T)) return ISDB_ERR_INVALID_ARG;
        w = isdb__pow((isdb_real)d * T, ISDB__R(2.0 / 3.0)) / isdb__pow(B_T + 1, ISDB__R(2.0 / 3.0));
        break;
    case ISDB_WINDOW_AGNOSTIC:
        w = isdb__pow((isdb_real)d * T, ISDB__R(2.0 / 3.0));
        break;
    default:
        return ISDB_ERR_INVALID_ARG;
    }
    w = isdb__floor_whole(w);
    if (w > T) w = isdb__floor(T);
    if (w > (isdb_real)INT_MAX) w = (isdb_real)INT_MAX;
    *window = w < 1 ? 1 : (int)w;
    return ISDB_OK;
}

#endif /* ISDB__HAS_SWUCB */
#if ISDB__HAS_DLINUCB
/* ---------------------------------------------------------------------------
   [DLINUCB] D-LinUCB
   ------------------------------------------------------------------------ */

#define ISDB__DLINUCB_FIELDS(X)                                                                     \
    ISDB__UCB_HEAD_FIELDS(X)                                                                        \
    X(REAL, isdb_real, gamma, gamma,                                                                \
      isdb__want_open01(why, c->gamma, "gamma") &&                                                  \
          isdb__want_real(why, c->gamma, "gamma", isdb__dlinucb_gamma_min(c->d), 1, 2, ISDB__DLINUCB_GAMMA_TEXT)) \
    ISDB__UCB_FIELDS(X)                                                                             \
    X(INT, int, refresh, 0, isdb__want_count(why, c->refresh, "refresh"))

ISDB__ONCE isdb_dlinucb_config isdb_dlinucb_config_init(int d, int max_arms, isdb_real gamma) {
    isdb_dlinucb_config c;
    memset(&c, 0, sizeof c);
    ISDB__DLINUCB_FIELDS(ISDB__CFG_DEFAULT)
    return c;
}

/* The smallest gamma for d: gamma^ceil(d / 4) >= ISDB__DLINUCB_FADE_MIN.
   Between its paddings a coordinate's ridge fades to lambda gamma^c, c
   the padding cycle (isdb__dlinucb_cycle, at least ceil(d / 4)), and the
   carried factor's rank-one steps divide inputs up to ISDB_INPUT_MAX by
   its square root: below this bound they overflowed (gamma 1e-300 at
   d = 3, 1e-20 at d = 64, 1e-3 at d = 128, lambda 1e-30) and the state
   became NaN. The bound asks a memory 1 / (1 - gamma) of at least about
   d / 460 (double), d / 55 (float) observations. */
#if ISDB_REAL_IS_FLOAT
#define ISDB__DLINUCB_FADE_MIN 1e-6f
#define ISDB__DLINUCB_GAMMA_TEXT "[1e-6^(1 / ceil(d / 4)), 1)"
#else
#define ISDB__DLINUCB_FADE_MIN 1e-50
#define ISDB__DLINUCB_GAMMA_TEXT "[1e-50^(1 / ceil(d / 4)), 1)"
#endif
ISDB__PRIVATE isdb_real isdb__dlinucb_gamma_min(int d) {
    return isdb__exp(isdb__log(ISDB__DLINUCB_FADE_MIN) / (isdb_real)((d + 3) / 4));
}

ISDB__ONCE isdb_result isdb_dlinucb_config_check(const isdb_dlinucb_config *c, isdb_refusal *why) {
    return isdb__checked(isdb__want_start(why) && isdb__want_ptr(why, c, "cfg") ISDB__DLINUCB_FIELDS(ISDB__CFG_CHECK));
}

ISDB__DEFINE_CONFIG_WALK(dlinucb, ISDB__DLINUCB_FIELDS)
ISDB__CONFIG_FROM_SNAPSHOT(dlinucb, ISDB_POLICY_DLINUCB)

ISDB__ONCE_PRIVATE size_t isdb__dlinucb_layout(const isdb_dlinucb_config *c, isdb_dlinucb *p, void *heap) {
    isdb__arena a;
    int d = c->d, dd = d * d;
    a.base = (unsigned char *)heap;
    a.used = 0;
    a.overflow = 0;
    p->_gram = isdb__take_f64(&a, dd);
    p->_gram_next = isdb__take_f64(&a, dd);
    p->_gram_tilde = isdb__take_f64(&a, dd);
    p->_gram_tilde_next = isdb__take_f64(&a, dd);
    p->_chol = isdb__take_f64(&a, dd);
    p->_chol_next = isdb__take_f64(&a, dd);
    p->_inv_diag = isdb__take_f64(&a, d);
    p->_b = isdb__take_f64(&a, d);
    p->_b_next = isdb__take_f64(&a, d);
    p->_z = isdb__take_f64(&a, d);
    p->_work = isdb__take_f64(&a, isdb__block_lanes() * d);
    return a.overflow ? 0 : a.used;
}

/* beta_n of D-LinUCB (without alpha) after n discounted observations. */
ISDB__PRIVATE isdb_real isdb__discounted_beta(int d, isdb_real n, isdb_real gamma, isdb_real lambda, isdb_real delta, isdb_real sigma,
                                           isdb_real S, isdb_real L) {
    /* 1 - gamma^(2n) and 1 - gamma^2 without cancellation near gamma = 1. */
    isdb_real fading = n > 0 ? -isdb__expm1(2 * n * isdb__log(gamma)) : 0;
    isdb_real one_minus_g2 = (1 - gamma) * (1 + gamma);
    isdb_real radius = 2 * isdb__log(1 / delta) + (isdb_real)d * isdb__log1p(L * L * fading / (lambda * (isdb_real)d * one_minus_g2));
    return isdb__sqrt(lambda) * S + sigma * isdb__sqrt(radius);
}

isdb_real isdb_dlinucb_get_beta(const isdb_dlinucb *p) {
    const isdb_dlinucb_config *c = &p->cfg;
    return c->alpha * isdb__discounted_beta(c->d, (isdb_real)p->base.t, c->gamma, c->lambda, c->delta, c->R, c->S,
                                            c->L);
}

/* The width ||V^-1 x||_{Vt} of one arm from w = L^-1 x (L the factor of V):
   u = L^-T w = V^-1 x into u (d), then sqrt(u^T Vt u) from Vt's lower
   triangle. */
ISDB__COLD_PRIVATE isdb_real isdb__discounted_width(int d, const isdb_real *L, const isdb_real *inv_diag,
                                                    const isdb_real *Vt, const isdb_real *w, isdb_real *u) {
    isdb_real q = 0;
    int i, j;
    isdb__tri_solve(d, L, inv_diag, 1, w, u);
    for (i = 0; i < d; ++i) {
        isdb_real off = 0;
        for (j = 0; j < i; ++j) off += Vt[i * d + j] * u[j];
        q += u[i] * (Vt[i * d + i] * u[i] + 2 * off);
    }
    return isdb__sqrt(q > 0 ? q : 0);
}

/* UCB w.z + beta ||V^-1 x||_{Vt} of every arm (w = L^-1 x), sixteen arms
   at a time while more than eight remain where the float AVX2 kernels
   run, eight while more than four remain, then four, in block
   (isdb__block_lanes() d scratch),
   with isdb__discounted_width's operations per arm; out[k] if out is not
   NULL; returns the first arm of largest UCB. */
ISDB__PRIVATE int isdb__discounted_ucb_all(int d, const isdb_real *L, const isdb_real *inv_diag, const isdb_real *z,
                                           const isdb_real *Vt, isdb_real *block, const isdb_real *X, int n_arms,
                                           isdb_real beta, isdb_real *out) {
    int k, a, m, i, j, best = 0, lanes16 = isdb__lanes16_here();
    isdb_real best_value = 0, mean[ISDB__PASS_MAX], norm2[ISDB__PASS_MAX];
    const isdb_real *rows[ISDB__PASS_MAX];
    for (k = 0; k < n_arms; k += m) {
        isdb_real q[ISDB__PASS_MAX] = {0};
        if (lanes16 && n_arms - k > ISDB__LANES8) {
            m = isdb__lanes_rows_n(X, d, n_arms, k, ISDB__LANES16, rows);
            isdb__lanes16_fwd_solve_dots(d, L, inv_diag, rows, block, z, mean, norm2);
            isdb__lanes16_back_solve(d, L, inv_diag, block); /* u = V^-1 x */
            isdb__lanes16_sym_form(d, Vt, block, q);
        } else if (n_arms - k > ISDB__LANES || ISDB__VEC8_ALWAYS) {
            m = isdb__lanes_rows_n(X, d, n_arms, k, ISDB__LANES8, rows);
            isdb__lanes8_fwd_solve_dots(d, L, inv_diag, rows, block, z, mean, norm2);
            isdb__lanes8_back_solve(d, L, inv_diag, block); /* u = V^-1 x */
            isdb__lanes8_sym_form(d, Vt, block, q);
        } else {
            m = isdb__lanes_rows(X, d, n_arms, k, rows);
            isdb__lanes_fwd_solve(d, L, inv_diag, rows, block);
            isdb__lanes_dots(d, block, z, mean, norm2);
            isdb__lanes_back_solve(d, L, inv_diag, block); /* u = V^-1 x */
            for (i = 0; i < d; ++i) {
                const isdb_real *Vti = Vt + (size_t)i * (size_t)d, *ui = block + i * ISDB__LANES;
                isdb_real off[ISDB__LANES] = {0};
                for (j = 0; j < i; ++j) {
                    const isdb_real v = Vti[j], *uj = block + j * ISDB__LANES;
                    for (a = 0; a < ISDB__LANES; ++a) off[a] += v * uj[a];
                }
                for (a = 0; a < ISDB__LANES; ++a) q[a] += ui[a] * (Vti[i] * ui[a] + 2 * off[a]);
            }
        }
        for (a = 0; a < m; ++a) {
            isdb_real v = mean[a] + beta * isdb__sqrt(q[a] > 0 ? q[a] : 0);
            if (out) out[k + a] = v;
            if (k + a == 0 || v > best_value) {
                best_value = v;
                best = k + a;
            }
        }
    }
    return best;
}

ISDB__PRIVATE int isdb__dlinucb_ucb_all(isdb_dlinucb *p, const isdb_real *X, int n_arms, isdb_real beta, isdb_real *out) {
    int d = p->cfg.d;
    return isdb__discounted_ucb_all(d, p->_chol, p->_inv_diag, p->_z, p->_gram_tilde, p->_work, X, n_arms,
                                    beta, out);
}

ISDB__PRIVATE isdb_result isdb__dlinucb_select(isdb_policy *p, const isdb_real *X, int n_arms, int *arm) {
    isdb_dlinucb *pol = (isdb_dlinucb *)p;
    *arm = isdb__dlinucb_ucb_all(pol, X, n_arms, isdb_dlinucb_get_beta(pol), NULL);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__dlinucb_scores(isdb_policy *p, const isdb_real *X, int n_arms, isdb_real *out) {
    isdb_dlinucb *pol = (isdb_dlinucb *)p;
    isdb__dlinucb_ucb_all(pol, X, n_arms, isdb_dlinucb_get_beta(pol), out);
    return ISDB_OK;
}

/* V_next = gamma V + x x^T + (1 - gamma) lambda I is symmetric positive
   definite in exact arithmetic (gamma times one, plus a positive
   semidefinite rank one, plus a positive multiple of I), but the Gram sums
   round at eps ||V||: with features of norm 1e6 along nearly one direction
   and gamma 0.999, ||V|| ~ 1e12 / (1 - gamma) = 1e15, whose rounding in
   double exceeds lambda = 1 (in float far sooner), the stored V_next can
   have a non-positive pivot, and isdb_chol refuses it. The update then
   carries the factor itself instead: L_next = the factor of
   gamma L L^T + x x^T + (1 - gamma) lambda I, by scaling L by sqrt(gamma),
   a rank-one Givens update with x and the padding (isdb__chol_pad). Every
   step keeps the diagonal positive, so it cannot fail, and L_next L_next^T
   agrees with V_next to the same rounding (the snapshot's factor check
   accepts it). z = L^-1 b is carried by the same rotations (sqrt(gamma) z
   for gamma b under sqrt(gamma) L, then the update with (x, y), then the
   padding), not solved afresh from b: L's trailing block is known only to
   eps ||L||, and a z from the same rotations stays consistent with it (in
   float at scale 1e6 a fresh solve mispredicts the arms' mean by several
   units, the carried z by under 1e-3: tests/test_dlinucb_scale.c). Plain
   factorisations resume as soon as V_next factors, so inputs on which
   isdb_chol succeeds take exactly the bits they always did. O(d^3), like
   the factorisation (isdb__chol_discount, the discounted ridge's step,
   then isdb__chol_pad). Updates _z in place and leaves _chol scaled (the
   caller swaps it out as scratch); uses d of _work. */
ISDB__PRIVATE void isdb__dlinucb_factor_step(isdb_dlinucb *p, const isdb_real *x, isdb_real y) {
    int d = p->cfg.d;
    isdb_real g = p->cfg.gamma;
    isdb__chol_discount(d, p->_chol, p->_chol_next, x, y, g, p->_work, NULL, p->_z);
    isdb__chol_pad(d, p->_chol_next, (1 - g) * p->cfg.lambda, p->_z, p->_work);
}

/* Updates between a coordinate's paddings (below): c = floor(ln 0.9 /
   ln gamma), so that gamma^c >= 0.9, clamped to [ceil(d / 4), d] (at
   most four padding sweeps an update). */
ISDB__PRIVATE int isdb__dlinucb_cycle(const isdb_dlinucb_config *c) {
    isdb_real r = isdb__log(ISDB__R(0.9)) / isdb__log(c->gamma);
    int lo = (c->d + 3) / 4;
    return r >= (isdb_real)c->d ? c->d : r >= (isdb_real)lo ? (int)r : lo;
}

/* Between refactorisations: the discounted rank-one step, then the
   padding, which keeps V's ridge at lambda I and is full rank. The
   coordinates fall in c groups (j mod c, c = isdb__dlinucb_cycle), and
   the u-th update since the last refactorisation pads group (u - 1) mod c:
   lambda (1 - gamma^m) e_j e_j^T for each j of it, m = min(u, c) the
   updates since its ridge was last lambda, which sets it back to lambda.
   So L L^T = V - D, D diagonal, 0 <= D_jj <= lambda (1 - gamma^c), at
   most 0.1 lambda unless c was raised to d / 4 (1 / (1 - gamma) < 2.4 d
   or so). O(d^2): the discounted step's sweep and at most four sweeps
   from padded columns. */
ISDB__PRIVATE void isdb__dlinucb_fast_step(isdb_dlinucb *p, const isdb_real *x, isdb_real y, int u) {
    int d = p->cfg.d, c = isdb__dlinucb_cycle(&p->cfg), j, m = u < c ? u : c;
    isdb_real g = p->cfg.gamma, root = isdb__sqrt(-p->cfg.lambda * isdb__expm1((isdb_real)m * isdb__log(g)));
    isdb__chol_discount(d, p->_chol, p->_chol_next, x, y, g, p->_work, NULL, p->_z);
    for (j = (u - 1) % c; j < d; j += c) {
        isdb__zero(d, p->_work);
        p->_work[j] = root;
        isdb__chol_sweep(d, j, p->_chol_next, p->_chol_next, p->_work, NULL, p->_z, 0);
    }
}

ISDB__PRIVATE isdb_result isdb__dlinucb_update(isdb_policy *bp, int arm, const isdb_real *x, isdb_real y) {
    isdb_dlinucb *p = (isdb_dlinucb *)bp;
    const isdb_dlinucb_config *c = &p->cfg;
    int i, carried = 0, d = c->d, u = (int)(bp->t % (uint64_t)c->refresh) + 1;
    isdb_real g = c->gamma, lam = c->lambda;
    (void)arm;
    isdb__discount_gram(d, p->_gram, p->_gram_next, x, 1, g, (1 - g) * lam);
    isdb__discount_gram(d, p->_gram_tilde, p->_gram_tilde_next, x, 1, g * g, (1 - g) * (1 + g) * lam);
    for (i = 0; i < d; ++i) p->_b_next[i] = g * p->_b[i] + y * x[i];
    if (u == c->refresh) {
        isdb__copy(d * d, p->_gram_next, p->_chol_next);
        carried = isdb_chol(d, p->_chol_next) != ISDB_OK;
        if (carried) isdb__dlinucb_factor_step(p, x, y);
    } else {
        isdb__dlinucb_fast_step(p, x, y, u);
        carried = 1;
    }
    isdb__swap_ptr(&p->_gram, &p->_gram_next);
    isdb__swap_ptr(&p->_gram_tilde, &p->_gram_tilde_next);
    isdb__swap_ptr(&p->_chol, &p->_chol_next);
    isdb__swap_ptr(&p->_b, &p->_b_next);
    for (i = 0; i < d; ++i) p->_inv_diag[i] = 1 / p->_chol[i * d + i];
    if (!carried) isdb__tri_solve(d, p->_chol, p->_inv_diag, 0, p->_b, p->_z);
    return ISDB_OK;
}

/* The widths' Gram matrix Vt (discounted by gamma^2, so at most V, which
   is discounted by gamma): a lower-stored Gram matrix whose diagonal is
   V's or less. */
ISDB__ONCE_PRIVATE void isdb__dlinucb_check_vt(isdb_ser *s, isdb__ser_view V, isdb__ser_view Vt, int d, isdb_real lo,
                                               isdb_real lambda) {
    int i;
    isdb__ser_check_gram(s, Vt, d, d, 0, lo, lambda + isdb__ser_sum_cap(s->t));
    if (!isdb__ser_checking(s, V, Vt)) return;
    for (i = 0; i < d; ++i)
        isdb__ser_require(s, isdb__sv(Vt, i * d + i) <= (1 + ISDB__SER_TOL) * isdb__sv(V, i * d + i));
}

/* On CHECK: V and Vt Gram matrices of at least lambda I (see
   isdb__dlinucb_check_vt) and b within what t updates can sum, L the
   factor of V with its reciprocal diagonal, z = L^-1 b. */
ISDB__ONCE_PRIVATE void isdb__dlinucb_serialize(isdb_policy *bp, isdb_ser *s) {
    isdb_dlinucb *p = (isdb_dlinucb *)bp;
    const isdb_dlinucb_config *c = &p->cfg;
    int d = c->d, dd = d * d;
    isdb_real lo = c->lambda * (1 - ISDB__SER_TOL);
    isdb__ser_gram g;
    isdb__ser_view Vt, L, b, z;
    int exact;
    exact = c->refresh == 1 || s->t % (uint64_t)isdb__max_int(c->refresh, 1) == 0;
    g.A = isdb__ser_view_real(s, p->_gram, dd);
    g.ld = d;
    isdb__ser_check_gram(s, g.A, d, d, 0, lo, c->lambda + isdb__ser_sum_cap(s->t));
    Vt = isdb__ser_view_real(s, p->_gram_tilde, dd);
    isdb__dlinucb_check_vt(s, g.A, Vt, d, lo, c->lambda);
    L = isdb__ser_view_real(s, p->_chol, dd);
    isdb__ser_check_lower(s, L, d, d, 1);
    /* between refactorisations L L^T = V - D, 0 <= D_jj <= lambda (1 - gamma^c) */
    isdb__ser_check_factor(s, L, d, d, isdb__ser_gram_at, &g, exact ? 0 : c->lambda);
    isdb__ser_check_inv_diag(s, L, isdb__ser_view_real(s, p->_inv_diag, d), d, d);
    b = isdb__ser_view_in(s, p->_b, d, -isdb__ser_sum_cap(s->t), isdb__ser_sum_cap(s->t));
    z = isdb__ser_view_real(s, p->_z, d);
    if (exact)
        isdb__ser_check_solve(s, L, d, d, 0, z, b, 0);
    else
        isdb__ser_check_carried_solve(s, L, d, z, b, g.A);
    isdb__ser_check_inverse(s, L, d, d, exact ? c->lambda : c->lambda * isdb__pow(c->gamma, (isdb_real)isdb__dlinucb_cycle(c)),
                            p->_work);
}

ISDB__ONCE_PRIVATE void isdb__dlinucb_reset(isdb_policy *bp) {
    isdb_dlinucb *p = (isdb_dlinucb *)bp;
    int i, d = p->cfg.d;
    isdb_real lam = p->cfg.lambda;
    isdb__identity(d, p->_gram, lam);
    isdb__identity(d, p->_gram_next, lam);
    isdb__identity(d, p->_gram_tilde, lam);
    isdb__identity(d, p->_gram_tilde_next, lam);
    isdb__identity(d, p->_chol, isdb__sqrt(lam));
    isdb__identity(d, p->_chol_next, isdb__sqrt(lam));
    for (i = 0; i < d; ++i) p->_inv_diag[i] = 1 / isdb__sqrt(lam);
    isdb__zero(d, p->_b);
    isdb__zero(d, p->_b_next);
    isdb__zero(d, p->_z);
    isdb__zero(isdb__block_lanes() * d, p->_work);
}

static const isdb_policy_vtable isdb__dlinucb_vt = {
    ISDB_POLICY_DLINUCB, "dlinucb",           0, isdb__dlinucb_select, isdb__dlinucb_update, isdb__dlinucb_scores,
    isdb__probs_one_hot, isdb__dlinucb_serialize, isdb__dlinucb_reset, isdb__dlinucb_walk_config,
    offsetof(isdb_dlinucb, cfg), "max_arms", sizeof(isdb_dlinucb_config)};

ISDB__ONCE isdb_result isdb_dlinucb_heap_size(const isdb_dlinucb_config *cfg, size_t *bytes) {
    isdb_dlinucb probe;
    if (!bytes || isdb_dlinucb_config_check(cfg, NULL) != ISDB_OK) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__dlinucb_layout(cfg, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

ISDB__ONCE isdb_result isdb_dlinucb_init_preallocated(const isdb_dlinucb_config *cfg, void *heap, size_t heap_bytes,
                                                      isdb_dlinucb *pol) {
    size_t bytes;
    isdb_result r = isdb_dlinucb_heap_size(cfg, &bytes);
    if (r == ISDB_OK) r = isdb_init_check(heap, heap_bytes, bytes, pol, NULL);
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    memset(pol, 0, sizeof *pol);
    pol->cfg = *cfg;
    if (pol->cfg.refresh == 0) pol->cfg.refresh = isdb__max_int(4 * cfg->d, 256);
    isdb__dlinucb_layout(cfg, pol, heap);
    isdb__policy_base_init(&pol->base, &isdb__dlinucb_vt, cfg->d, cfg->max_arms, 0, heap, bytes, sizeof *pol);
    isdb__dlinucb_reset(&pol->base);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__dlinucb_setup(const void *cfg, void *heap, size_t heap_bytes, void *pol) {
    return isdb_dlinucb_init_preallocated((const isdb_dlinucb_config *)cfg, heap, heap_bytes, (isdb_dlinucb *)pol);
}

ISDB__ONCE isdb_result isdb_dlinucb_init(const isdb_dlinucb_config *cfg, const isdb_allocator *alloc, isdb_dlinucb *pol) {
    size_t bytes;
    isdb_result r = isdb_dlinucb_heap_size(cfg, &bytes);
    if (r == ISDB_OK && !pol) r = ISDB_ERR_INVALID_ARG;
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    return isdb__policy_init_owned(&pol->base, sizeof *pol, bytes, alloc, isdb__dlinucb_setup, cfg, pol);
}

ISDB__ONCE const isdb_dlinucb_config *isdb_dlinucb_get_config(const isdb_dlinucb *pol) { return &pol->cfg; }

void isdb_dlinucb_get_theta(const isdb_dlinucb *pol, isdb_real *theta) {
    isdb__tri_solve(pol->cfg.d, pol->_chol, pol->_inv_diag, 1, pol->_z, theta);
}

ISDB__ONCE isdb_result isdb_dlinucb_explain(isdb_dlinucb *pol, const isdb_real *x, isdb_real *mean, isdb_real *bonus) {
    isdb_result r;
    if (!pol || !x) return ISDB_ERR_INVALID_ARG;
    if ((r = isdb__check_input(x, pol->cfg.d)) != ISDB_OK) return r;
    isdb__tri_solve(pol->cfg.d, pol->_chol, pol->_inv_diag, 0, x, pol->_work);
    if (mean) *mean = isdb__dot(pol->cfg.d, pol->_work, pol->_z);
    if (bonus)
        *bonus = isdb_dlinucb_get_beta(pol) * isdb__discounted_width(pol->cfg.d, pol->_chol, pol->_inv_diag,
                                                                    pol->_gram_tilde, pol->_work, pol->_work + pol->cfg.d);
    return ISDB_OK;
}

ISDB__ONCE isdb_result isdb_dlinucb_tuned_gamma(int d, isdb_real T, isdb_real B_T, isdb_real *gamma) {
    if (!gamma || d < 1 || !(T >= 1) || !isdb__finite(T) || !(B_T > 0) || !(B_T < (isdb_real)d * T))
        return ISDB_ERR_INVALID_ARG;
    *gamma = 1 - isdb__pow(B_T / ((isdb_real)d * T), ISDB__R(2.0 / 3.0));
    return ISDB_OK;
}

#endif /* ISDB__HAS_DLINUCB */
#if ISDB__HAS_LINTS
/* ---------------------------------------------------------------------------
   [LINTS] Linear Thompson sampling
   ------------------------------------------------------------------------ */


/* THEORY's scale v = R sqrt(24 / epsilon d ln(1 / delta)) with R at most
   ISDB__SCALE_MAX, d at most ISDB_MAX_DIM = 2^14 and delta at least
   ISDB__DELTA_MIN (ln(1 / delta) < 709, 88 in float): epsilon at least
   the ridge's lower bound keeps 24 / epsilon <= 2.4e31 and v <= 1e30
   sqrt(2.4e31 2^14 709) < 2e49 (float: 1e6 sqrt(2.4e7 2^14 88) < 6e12),
   as far below the largest real as the ridge's own widths, so the draws
   theta + v L^-T e and their products with inputs stay finite. */
#define ISDB__LINTS_EPSILON_MIN ISDB__LAMBDA_MIN
#if ISDB_REAL_IS_FLOAT
#define ISDB__LINTS_EPSILON_TEXT "[1e-6, 1]"
#else
#define ISDB__LINTS_EPSILON_TEXT "[1e-30, 1]"
#endif

/* epsilon and delta are checked with THEORY only. */
#define ISDB__LINTS_FIELDS(X)                                                                        \
    ISDB__UCB_HEAD_FIELDS(X)                                                                         \
    X(SEED, uint64_t, seed, 1, 1)                                                                    \
    X(REAL, isdb_real, lambda, 1, isdb__want_ridge(why, c->lambda, "lambda"))                       \
    X(REAL, isdb_real, R, 1, isdb__want_scale(why, c->R, "R"))                                      \
    X(INT, isdb_lints_inflation, inflation, ISDB_LINTS_NONE,                                        \
      isdb__want_int(why, (int)c->inflation, "inflation", ISDB_LINTS_THEORY, ISDB_LINTS_NONE,       \
                     "an isdb_lints_inflation"))                                                     \
    X(REAL, isdb_real, epsilon, ISDB__R(0.5),                                                       \
      c->inflation == ISDB_LINTS_NONE ||                                                             \
          isdb__want_real(why, c->epsilon, "epsilon", ISDB__LINTS_EPSILON_MIN, 1, 0, ISDB__LINTS_EPSILON_TEXT)) \
    X(REAL, isdb_real, delta, ISDB__R(0.01), c->inflation == ISDB_LINTS_NONE || isdb__want_delta(why, c->delta, "delta")) \
    X(INT, int, mc_samples, 1000, isdb__want_int(why, c->mc_samples, "mc_samples", 1, INT_MAX, ">= 1"))  \
    X(INT, int, refresh, 0, isdb__want_count(why, c->refresh, "refresh"))

ISDB__ONCE isdb_lints_config isdb_lints_config_init(int d, int max_arms) {
    isdb_lints_config c;
    memset(&c, 0, sizeof c);
    ISDB__LINTS_FIELDS(ISDB__CFG_DEFAULT)
    return c;
}

ISDB__ONCE isdb_result isdb_lints_config_check(const isdb_lints_config *c, isdb_refusal *why) {
    return isdb__checked(isdb__want_start(why) && isdb__want_ptr(why, c, "cfg") ISDB__LINTS_FIELDS(ISDB__CFG_CHECK));
}

ISDB__DEFINE_CONFIG_WALK(lints, ISDB__LINTS_FIELDS)
ISDB__CONFIG_FROM_SNAPSHOT(lints, ISDB_POLICY_LINTS)

ISDB__ONCE_PRIVATE size_t isdb__lints_layout(const isdb_lints_config *c, isdb_lints *p, void *heap) {
    isdb__arena a;
    a.base = (unsigned char *)heap;
    a.used = 0;
    a.overflow = 0;
    isdb__ridge_layout(&p->_ridge, &a, c->d, 1);
    p->_sample = isdb__take_f64(&a, c->d);
    p->_scratch = isdb__take_f64(&a, c->d);
    return a.overflow ? 0 : a.used;
}

/* theta~ = L^-T (L^-1 b + v e) = theta + v L^-T e with e ~ N(0, I), so
   Cov(theta~) = v^2 V^-1. */
ISDB__PRIVATE void isdb__lints_draw(isdb_lints *p, isdb_rng *rng, isdb_real *out) {
    int i, d = p->cfg.d;
    for (i = 0; i < d; ++i) out[i] = p->_ridge.z[i] + p->v * isdb_rng_normal(rng);
    isdb__tri_solve(d, p->_ridge.L, p->_ridge.inv_diag, 1, out, out);
}

/* The arm of largest x.theta, the lowest index on ties. */
ISDB__PRIVATE int isdb__best_dot(const isdb_real *X, int n_arms, int d, const isdb_real *theta) {
    int k, best = 0;
    isdb_real best_value = isdb__dot(d, X, theta);
    for (k = 1; k < n_arms; ++k) {
        isdb_real v = isdb__dot(d, X + k * d, theta);
        if (v > best_value) {
            best_value = v;
            best = k;
        }
    }
    return best;
}

ISDB__PRIVATE isdb_result isdb__lints_select(isdb_policy *bp, const isdb_real *X, int n_arms, int *arm) {
    isdb_lints *p = (isdb_lints *)bp;
    isdb__lints_draw(p, &p->base.rng, p->_sample);
    *arm = isdb__best_dot(X, n_arms, p->cfg.d, p->_sample);
    return ISDB_OK;
}

/* Monte Carlo estimate of the selection probabilities from a copy of the
   generator, so the state does not change. */
ISDB__PRIVATE isdb_result isdb__lints_probs(isdb_policy *bp, const isdb_real *X, int n_arms, isdb_real *out) {
    isdb_lints *p = (isdb_lints *)bp;
    isdb_rng rng = p->base.rng;
    int k, s;
    isdb__zero(n_arms, out);
    for (s = 0; s < p->cfg.mc_samples; ++s) {
        isdb__lints_draw(p, &rng, p->_scratch);
        out[isdb__best_dot(X, n_arms, p->cfg.d, p->_scratch)] += 1;
    }
    for (k = 0; k < n_arms; ++k) out[k] /= (isdb_real)p->cfg.mc_samples;
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__lints_update(isdb_policy *p, int arm, const isdb_real *x, isdb_real y) {
    (void)arm;
    isdb__ridge_add(&((isdb_lints *)p)->_ridge, x, y);
    return ISDB_OK;
}

ISDB__ONCE_PRIVATE void isdb__lints_serialize(isdb_policy *bp, isdb_ser *s) {
    isdb_lints *p = (isdb_lints *)bp;
    const isdb_lints_config *c = &p->cfg;
    isdb__ridge_serialize(&p->_ridge, s, c->refresh, 0, c->lambda, 0);
    isdb__ser_real(s, p->_sample, c->d);
}

ISDB__ONCE_PRIVATE void isdb__lints_reset(isdb_policy *bp) {
    isdb_lints *p = (isdb_lints *)bp;
    isdb__ridge_reset(&p->_ridge);
    isdb__zero(p->cfg.d, p->_sample);
    isdb__zero(p->cfg.d, p->_scratch);
}

static const isdb_policy_vtable isdb__lints_vt = {
    ISDB_POLICY_LINTS, "lints",           0, isdb__lints_select, isdb__lints_update, isdb__lints_probs,
    isdb__lints_probs, isdb__lints_serialize, isdb__lints_reset, isdb__lints_walk_config,
    offsetof(isdb_lints, cfg), "max_arms", sizeof(isdb_lints_config)};

ISDB__ONCE isdb_result isdb_lints_heap_size(const isdb_lints_config *cfg, size_t *bytes) {
    isdb_lints probe;
    if (!bytes || isdb_lints_config_check(cfg, NULL) != ISDB_OK) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__lints_layout(cfg, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

ISDB__ONCE isdb_result isdb_lints_init_preallocated(const isdb_lints_config *cfg, void *heap, size_t heap_bytes,
                                                    isdb_lints *pol) {
    size_t bytes;
    isdb_result r = isdb_lints_heap_size(cfg, &bytes);
    if (r == ISDB_OK) r = isdb_init_check(heap, heap_bytes, bytes, pol, NULL);
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    memset(pol, 0, sizeof *pol);
    pol->cfg = *cfg;
    if (pol->cfg.refresh == 0) pol->cfg.refresh = isdb__max_int(4 * cfg->d, 256);
    isdb__lints_layout(cfg, pol, heap);
    pol->_ridge.lambda = cfg->lambda;
    pol->_ridge.refresh = pol->cfg.refresh;
    pol->v = cfg->inflation == ISDB_LINTS_THEORY
                 ? cfg->R * isdb__sqrt(24 / cfg->epsilon * (isdb_real)cfg->d * isdb__log(1 / cfg->delta))
                 : cfg->R;
    isdb__policy_base_init(&pol->base, &isdb__lints_vt, cfg->d, cfg->max_arms, cfg->seed, heap, bytes, sizeof *pol);
    isdb__lints_reset(&pol->base);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__lints_setup(const void *cfg, void *heap, size_t heap_bytes, void *pol) {
    return isdb_lints_init_preallocated((const isdb_lints_config *)cfg, heap, heap_bytes, (isdb_lints *)pol);
}

ISDB__ONCE isdb_result isdb_lints_init(const isdb_lints_config *cfg, const isdb_allocator *alloc, isdb_lints *pol) {
    size_t bytes;
    isdb_result r = isdb_lints_heap_size(cfg, &bytes);
    if (r == ISDB_OK && !pol) r = ISDB_ERR_INVALID_ARG;
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    return isdb__policy_init_owned(&pol->base, sizeof *pol, bytes, alloc, isdb__lints_setup, cfg, pol);
}

ISDB__ONCE const isdb_lints_config *isdb_lints_get_config(const isdb_lints *pol) { return &pol->cfg; }

void isdb_lints_get_theta(const isdb_lints *pol, isdb_real *theta) { isdb__ridge_theta(&pol->_ridge, theta); }

void isdb_lints_get_last_sample(const isdb_lints *pol, isdb_real *theta) {
    isdb__copy(pol->cfg.d, pol->_sample, theta);
}

/* theta~ = theta + v L^-T e: x.theta~ has mean x.theta and standard
   deviation v |L^-1 x|. */
ISDB__ONCE isdb_result isdb_lints_explain(isdb_lints *pol, const isdb_real *x, isdb_real *mean, isdb_real *bonus) {
    if (!pol) return ISDB_ERR_INVALID_ARG;
    return isdb__ridge_explain(&pol->_ridge, x, pol->v, mean, bonus);
}

#endif /* ISDB__HAS_LINTS */
#if ISDB__HAS_BOB
/* ---------------------------------------------------------------------------
   [BOB] BOB
   ------------------------------------------------------------------------ */

ISDB__ONCE isdb_result isdb_bob_tuned_params(int d, uint64_t T, isdb_real R, isdb_real reward_bound,
                                             isdb_bob_params *par) {
    isdb_real Tf, h, n;
    int j;
    if (!par || d < 1 || T < 1 || !isdb__nonneg(R) || !isdb__positive(reward_bound)) return ISDB_ERR_INVALID_ARG;
    memset(par, 0, sizeof *par);
    Tf = (isdb_real)T;
    /* isdb__floor_whole keeps whole products whole: pow(8, 2/3) = 3.999... */
    h = isdb__floor_whole(isdb__pow((isdb_real)d, ISDB__R(2.0 / 3.0)) * isdb__sqrt(Tf));
    if (h > Tf) h = isdb__floor(Tf);
    if (h < 1) h = 1;
    if (h > (isdb_real)INT_MAX) return ISDB_ERR_INVALID_ARG;
    par->H = (int)h;
    par->Delta = par->H > 1 ? (int)isdb__ceil(isdb__log(h)) : 0;
    par->n_windows = par->Delta + 1;
    par->windows[0] = 1;
    for (j = 1; j <= par->Delta; ++j) {
        isdb_real w = j == par->Delta ? h : isdb__floor_whole(isdb__pow(h, (isdb_real)j / (isdb_real)par->Delta));
        par->windows[j] = w < 1 ? 1 : (w > h ? par->H : (int)w);
    }
    par->blocks = T / (uint64_t)par->H + (T % (uint64_t)par->H != 0);
    n = (isdb_real)par->n_windows;
    /* One window: n ln n = 0, and EXP3 has nothing to learn. e - 1 is a
       constant: glibc's expm1(1) is an ulp low (in float and double) where
       gcc folds the call exactly, so gcc and clang builds drew apart. */
    par->gamma = par->n_windows > 1 ? isdb__fmin(1, isdb__sqrt(n * isdb__log(n) / (ISDB__E_MINUS_1 * (isdb_real)par->blocks))) : 0;
    /* h <= T, so T / sqrt(h) >= 1 and the logarithm is not negative. */
    par->normaliser = 2 * h * reward_bound + 4 * R * isdb__sqrt(h * isdb__log(Tf / isdb__sqrt(h)));
    return ISDB_OK;
}


/* A block's rescaled reward is at most 1/2 + ISDB_INPUT_MAX / (2
   reward_bound), and 2 H reward_bound must stay finite: these bounds keep
   both far from overflow (float: 5e28 against FLT_MAX; 1e9 / 1e-30 would
   overflow and turn the log-weights into NaN). */
#if ISDB_REAL_IS_FLOAT
#define ISDB__REWARD_BOUND_MIN 1e-20f
#define ISDB__REWARD_BOUND_MAX 1e20f
#define ISDB__REWARD_BOUND_TEXT "[1e-20, 1e20]"
#else
#define ISDB__REWARD_BOUND_MIN 1e-30
#define ISDB__REWARD_BOUND_MAX 1e30
#define ISDB__REWARD_BOUND_TEXT "[1e-30, 1e30]"
#endif

/* delta = 1/T is in (0, 1/2] once T >= 2. */
#define ISDB__BOB_FIELDS(X)                                                                          \
    ISDB__UCB_HEAD_FIELDS(X)                                                                         \
    X(SEED, uint64_t, seed, 1, 1)                                                                    \
    X(U64, uint64_t, T, T, isdb__want_u64(why, c->T, "T", 2, UINT64_MAX, ">= 2"))                   \
    X(REAL, isdb_real, lambda, 1, isdb__want_ridge(why, c->lambda, "lambda"))                       \
    X(REAL, isdb_real, R, 1, isdb__want_scale(why, c->R, "R"))                                      \
    X(REAL, isdb_real, S, 1, isdb__want_scale(why, c->S, "S"))                                      \
    X(REAL, isdb_real, L, 1, isdb__want_pos_scale(why, c->L, "L"))                                  \
    X(REAL, isdb_real, alpha, 1, isdb__want_scale(why, c->alpha, "alpha"))                          \
    X(REAL, isdb_real, reward_bound, 1,                                                             \
      isdb__want_real(why, c->reward_bound, "reward_bound", ISDB__REWARD_BOUND_MIN, ISDB__REWARD_BOUND_MAX, 0, \
                      ISDB__REWARD_BOUND_TEXT))                                                      \
    X(INT, int, clip, 0, isdb__want_flag(why, c->clip, "clip"))                                     \
    X(INT, int, refresh, 0, isdb__want_count(why, c->refresh, "refresh"))

ISDB__ONCE isdb_bob_config isdb_bob_config_init(int d, int max_arms, uint64_t T) {
    isdb_bob_config c;
    memset(&c, 0, sizeof c);
    ISDB__BOB_FIELDS(ISDB__CFG_DEFAULT)
    return c;
}

ISDB__ONCE isdb_result isdb_bob_config_check(const isdb_bob_config *c, isdb_refusal *why) {
    isdb_bob_params par;
    return isdb__checked(isdb__want_start(why) && isdb__want_ptr(why, c, "cfg") ISDB__BOB_FIELDS(ISDB__CFG_CHECK) &&
                         isdb__want(why, isdb_bob_tuned_params(c->d, c->T, c->R, c->reward_bound, &par) == ISDB_OK,
                                    "T", "block length d^(2/3) T^(1/2) <= INT_MAX"));
}

ISDB__DEFINE_CONFIG_WALK(bob, ISDB__BOB_FIELDS)
ISDB__CONFIG_FROM_SNAPSHOT(bob, ISDB_POLICY_BOB)

/* The SW-UCB of a block with window w (Algorithm 2 lines 9-13): delta =
   1/T, the width of eq. 5 with n = w, and the refresh period resolved. */
ISDB__PRIVATE isdb_swucb_config isdb__bob_sw_config(const isdb_bob_config *c, int w) {
    isdb_swucb_config s = isdb_swucb_config_init(c->d, c->max_arms, w);
    s.lambda = c->lambda;
    s.delta = 1 / (isdb_real)c->T;
    s.R = c->R;
    s.S = c->S;
    s.L = c->L;
    s.alpha = c->alpha;
    s.width = ISDB_WIDTH_SIMPLE;
    s.refresh = c->refresh > 0 ? c->refresh : isdb__max_int(w, c->d);
    return s;
}

/* A SW-UCB's heap grows with its window, so the block for window H holds
   the SW-UCB of any window in J. */
ISDB__ONCE_PRIVATE size_t isdb__bob_layout(const isdb_bob_config *c, const isdb_bob_params *par, isdb_bob *p,
                                      void *heap) {
    isdb__arena a;
    isdb_swucb_config sc = isdb__bob_sw_config(c, par->H);
    size_t sw_bytes;
    if (isdb_swucb_heap_size(&sc, &sw_bytes) != ISDB_OK) return 0;
    a.base = (unsigned char *)heap;
    a.used = 0;
    a.overflow = 0;
    p->_logw = isdb__take_f64(&a, par->n_windows);
    p->_p = isdb__take_f64(&a, par->n_windows);
    p->_sw_heap = isdb__take(&a, 1, sw_bytes);
    p->_sw_heap_bytes = sw_bytes;
    return a.overflow ? 0 : a.used;
}

/* Eq. 24 from the log-weights: s_j = exp(logw_j - max), so the largest
   term is 1 and neither the sum nor a term can overflow. */
ISDB__PRIVATE void isdb__bob_distribution(isdb_bob *p) {
    int j, n = p->par.n_windows;
    isdb_real top = p->_logw[0], sum = 0, g = p->par.gamma;
    for (j = 1; j < n; ++j)
        if (p->_logw[j] > top) top = p->_logw[j];
    for (j = 0; j < n; ++j) {
        p->_p[j] = isdb__exp(p->_logw[j] - top);
        sum += p->_p[j];
    }
    for (j = 0; j < n; ++j) p->_p[j] = (1 - g) * (p->_p[j] / sum) + g / (isdb_real)n;
}

/* Starts the block's SW-UCB afresh with window windows[j]: V = lambda I, an
   empty window, nothing carried over (Algorithm 2 line 7). */
ISDB__PRIVATE void isdb__bob_fresh(isdb_bob *p) {
    isdb_swucb_config sc = isdb__bob_sw_config(&p->cfg, p->par.windows[p->j]);
    isdb_result r = isdb_swucb_init_preallocated(&sc, p->_sw_heap, p->_sw_heap_bytes, &p->sw);
    ISDB_ASSERT(r == ISDB_OK);
    (void)r;
}

/* Draws the block's window from p by inverse CDF (the last index if
   rounding leaves u past the total) and starts its SW-UCB. */
ISDB__PRIVATE void isdb__bob_draw(isdb_bob *p) {
    int j, n = p->par.n_windows;
    isdb_real u = isdb_rng_uniform(&p->base.rng), c = 0;
    for (j = 0; j < n - 1; ++j) {
        c += p->_p[j];
        if (u < c) break;
    }
    p->j = j;
    p->drawn = 1;
    isdb__bob_fresh(p);
}

/* Blocks 0 .. blocks-2 have H rounds, block blocks-1 what is left of T;
   past the horizon, blocks of H rounds again. */
ISDB__PRIVATE int isdb__bob_block_len(const isdb_bob *p, uint64_t block) {
    return block + 1 == p->par.blocks ? (int)(p->cfg.T - (p->par.blocks - 1) * (uint64_t)p->par.H) : p->par.H;
}

/* Eq. 25: the played window's weight is multiplied by exp(gamma r /
   (n p_j)), r = 1/2 + (block reward sum) / normaliser; then the next
   block begins, its window not drawn yet. */
ISDB__PRIVATE void isdb__bob_end_block(isdb_bob *p) {
    int j, n = p->par.n_windows;
    isdb_real r = ISDB__R(0.5) + p->block_sum / p->par.normaliser, top;
    if (p->cfg.clip) r = r < 0 ? 0 : (r > 1 ? 1 : r);
    p->_logw[p->j] += p->par.gamma / ((isdb_real)n * p->_p[p->j]) * r;
    top = p->_logw[0];
    for (j = 1; j < n; ++j)
        if (p->_logw[j] > top) top = p->_logw[j];
    for (j = 0; j < n; ++j) p->_logw[j] -= top;
    isdb__bob_distribution(p);
    p->block++;
    p->block_len = isdb__bob_block_len(p, p->block);
    p->in_block = 0;
    p->block_sum = 0;
    p->drawn = 0;
    isdb__bob_fresh(p);
}

/* Before the draw: window j would start a fresh SW-UCB, which plays the
   argmax of beta_j ||x||_{(lambda I)^-1}. The block's SW-UCB is fresh
   until the draw, so its ridge state is the one every window starts
   from; only beta depends on the window. Window j gets the part of [0, 1)
   where isdb__bob_draw's u picks it: [c_{j-1}, c_j), c the draw's running
   sums of p capped at 1, the last window up to 1. A run of windows that
   play the same arm gives that arm one interval, so the probabilities are
   differences of numbers in [0, 1]: each in [0, 1], an arm every window
   plays exactly 1, and the sum 1 to rounding (adding the p_j instead
   could give 1 + 2^-52). */
ISDB__PRIVATE isdb_result isdb__bob_mixture(isdb_bob *p, const isdb_real *X, int n_arms, isdb_real *out) {
    isdb_swucb probe = p->sw; /* shares the fresh ridge arrays */
    int j, n = p->par.n_windows, arm, run_arm = -1;
    isdb_real c = 0, lo = 0, run_lo = 0;
    isdb__zero(n_arms, out);
    for (j = 0; j < n; ++j) {
        probe.cfg.window = p->par.windows[j];
        arm = isdb__ridge_ucb_all(&probe._ridge, X, n_arms, isdb_swucb_get_beta(&probe), NULL);
        if (arm != run_arm) {
            if (run_arm >= 0) out[run_arm] += lo - run_lo;
            run_arm = arm;
            run_lo = lo;
        }
        if (j < n - 1) {
            c += p->_p[j];
            lo = c < 1 ? c : 1;
        } else {
            lo = 1;
        }
    }
    out[run_arm] += lo - run_lo;
    return ISDB_OK;
}

/* The block's SW-UCB is called through its vtable: the arguments were
   checked once already, by the generic function that called BOB. */
ISDB__PRIVATE isdb_result isdb__bob_select(isdb_policy *bp, const isdb_real *X, int n_arms, int *arm) {
    isdb_bob *p = (isdb_bob *)bp;
    if (!p->drawn) isdb__bob_draw(p);
    return p->sw.base.vt->select(&p->sw.base, X, n_arms, arm);
}

ISDB__PRIVATE isdb_result isdb__bob_scores(isdb_policy *bp, const isdb_real *X, int n_arms, isdb_real *out) {
    isdb_bob *p = (isdb_bob *)bp;
    return p->drawn ? p->sw.base.vt->scores(&p->sw.base, X, n_arms, out) : isdb__bob_mixture(p, X, n_arms, out);
}

ISDB__PRIVATE isdb_result isdb__bob_probs(isdb_policy *bp, const isdb_real *X, int n_arms, isdb_real *out) {
    isdb_bob *p = (isdb_bob *)bp;
    return p->drawn ? p->sw.base.vt->probs(&p->sw.base, X, n_arms, out) : isdb__bob_mixture(p, X, n_arms, out);
}

ISDB__PRIVATE isdb_result isdb__bob_update(isdb_policy *bp, int arm, const isdb_real *x, isdb_real y) {
    isdb_bob *p = (isdb_bob *)bp;
    isdb_rng rng = p->base.rng;
    int j = p->j, drew = !p->drawn;
    isdb_result r;
    /* An update before any select of the block (an action chosen by the
       caller) draws the window first. */
    if (drew) isdb__bob_draw(p);
    r = p->sw.base.vt->update(&p->sw.base, arm, x, y);
    if (r < 0) {
        if (drew) {
            p->base.rng = rng;
            p->j = j;
            p->drawn = 0;
            isdb__bob_fresh(p);
        }
        return r;
    }
    p->sw.base.t++;
    p->block_sum += y;
    if (++p->in_block == p->block_len) isdb__bob_end_block(p);
    return r;
}

ISDB__ONCE_PRIVATE void isdb__bob_serialize(isdb_policy *bp, isdb_ser *s) {
    isdb_bob *p = (isdb_bob *)bp;
    const isdb_bob_config *c = &p->cfg;
    int n = p->par.n_windows, len, in_block, j;
    uint64_t block, t = s->t, H = (uint64_t)p->par.H, blocks = p->par.blocks;
    isdb_real bound, top = -ISDB__REAL_MAX;
    isdb_swucb_config sc;
    isdb__ser_view logw;
    block = isdb__ser_u64(s, &p->block);
    len = isdb__bob_block_len(p, block);
    in_block = isdb__ser_int(s, &p->in_block, 0, len - 1);
    /* The rounds played are those of the blocks before this one (H each,
       the last before the horizon shorter) plus in_block. */
    if (block < blocks)
        isdb__ser_require(s, block <= t / H && t - block * H == (uint64_t)in_block);
    else
        isdb__ser_require(s, t >= c->T && block - blocks <= (t - c->T) / H &&
                                 t - c->T - (block - blocks) * H == (uint64_t)in_block);
    /* A block with updates has drawn its window. */
    isdb__ser_int(s, &p->drawn, in_block > 0, 1);
    j = isdb__ser_int(s, &p->j, 0, n - 1);
    bound = (isdb_real)len * ISDB_INPUT_MAX;
    isdb__ser_real_range(s, &p->block_sum, 1, -bound, bound);
    /* Log-weights are kept shifted so that the largest is 0. */
    logw = isdb__ser_view_in(s, p->_logw, n, -ISDB__REAL_MAX, 0);
    if (isdb__ser_checking(s, logw, logw)) {
        int k;
        for (k = 0; k < n; ++k) top = isdb__fmax(top, isdb__sv(logw, k));
        isdb__ser_require(s, top == 0);
    }
    sc = isdb__bob_sw_config(c, p->par.windows[j]);
    if (s->mode == ISDB__SER_CHECK) {
        /* Checked against the layout of the snapshot's window. The probe
           reads the heap and uses only the SW-UCB's scratch, which every
           window's layout puts in the same place. */
        isdb_swucb probe = p->sw;
        probe.cfg = sc;
        isdb__swucb_layout(&sc, &probe, p->_sw_heap);
        /* The block's SW-UCB started with the block. */
        s->t = isdb__ser_u64(s, &probe.base.t);
        isdb__ser_require(s, s->t == (uint64_t)in_block);
        isdb__swucb_serialize(&probe.base, s);
        return;
    }
    if (isdb__ser_storing(s)) isdb__bob_fresh(p); /* lays the SW-UCB out for window j */
    s->t = isdb__ser_u64(s, &p->sw.base.t);
    isdb__swucb_serialize(&p->sw.base, s);
    if (isdb__ser_storing(s)) {
        p->block_len = len;
        isdb__bob_distribution(p);
    }
}

ISDB__ONCE_PRIVATE void isdb__bob_reset(isdb_policy *bp) {
    isdb_bob *p = (isdb_bob *)bp;
    p->block = 0;
    p->block_len = isdb__bob_block_len(p, 0);
    p->in_block = 0;
    p->drawn = 0;
    p->j = 0;
    p->block_sum = 0;
    isdb__zero(p->par.n_windows, p->_logw);
    isdb__bob_distribution(p);
    isdb__bob_fresh(p);
}

static const isdb_policy_vtable isdb__bob_vt = {ISDB_POLICY_BOB,  "bob",           0, isdb__bob_select,
                                                isdb__bob_update, isdb__bob_scores, isdb__bob_probs,
                                                isdb__bob_serialize, isdb__bob_reset, isdb__bob_walk_config,
                                                offsetof(isdb_bob, cfg), "max_arms", sizeof(isdb_bob_config)};

ISDB__ONCE isdb_result isdb_bob_heap_size(const isdb_bob_config *cfg, size_t *bytes) {
    isdb_bob probe;
    isdb_bob_params par;
    if (!bytes || isdb_bob_config_check(cfg, NULL) != ISDB_OK) return ISDB_ERR_INVALID_ARG;
    isdb_bob_tuned_params(cfg->d, cfg->T, cfg->R, cfg->reward_bound, &par);
    *bytes = isdb__bob_layout(cfg, &par, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

ISDB__ONCE isdb_result isdb_bob_init_preallocated(const isdb_bob_config *cfg, void *heap, size_t heap_bytes,
                                                  isdb_bob *pol) {
    size_t bytes;
    isdb_result r = isdb_bob_heap_size(cfg, &bytes);
    if (r == ISDB_OK) r = isdb_init_check(heap, heap_bytes, bytes, pol, NULL);
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    memset(pol, 0, sizeof *pol);
    pol->cfg = *cfg;
    isdb_bob_tuned_params(cfg->d, cfg->T, cfg->R, cfg->reward_bound, &pol->par);
    isdb__bob_layout(cfg, &pol->par, pol, heap);
    /* Every byte defined: checking a snapshot reads the heap laid out for
       the snapshot's window, which may be longer than any used so far. */
    memset(heap, 0, bytes);
    isdb__policy_base_init(&pol->base, &isdb__bob_vt, cfg->d, cfg->max_arms, cfg->seed, heap, bytes, sizeof *pol);
    isdb__bob_reset(&pol->base);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__bob_setup(const void *cfg, void *heap, size_t heap_bytes, void *pol) {
    return isdb_bob_init_preallocated((const isdb_bob_config *)cfg, heap, heap_bytes, (isdb_bob *)pol);
}

ISDB__ONCE isdb_result isdb_bob_init(const isdb_bob_config *cfg, const isdb_allocator *alloc, isdb_bob *pol) {
    size_t bytes;
    isdb_result r = isdb_bob_heap_size(cfg, &bytes);
    if (r == ISDB_OK && !pol) r = ISDB_ERR_INVALID_ARG;
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    return isdb__policy_init_owned(&pol->base, sizeof *pol, bytes, alloc, isdb__bob_setup, cfg, pol);
}

ISDB__ONCE const isdb_bob_config *isdb_bob_get_config(const isdb_bob *pol) { return &pol->cfg; }

const isdb_bob_params *isdb_bob_get_params(const isdb_bob *pol) { return &pol->par; }

uint64_t isdb_bob_get_block(const isdb_bob *pol) { return pol->block; }

int isdb_bob_get_window(const isdb_bob *pol) { return pol->drawn ? pol->par.windows[pol->j] : 0; }

int isdb_bob_get_window_index(const isdb_bob *pol) { return pol->drawn ? pol->j : -1; }

void isdb_bob_get_master_probs(const isdb_bob *pol, isdb_real *p) { isdb__copy(pol->par.n_windows, pol->_p, p); }

void isdb_bob_get_log_weights(const isdb_bob *pol, isdb_real *logw) {
    isdb__copy(pol->par.n_windows, pol->_logw, logw);
}

const isdb_swucb *isdb_bob_get_swucb(const isdb_bob *pol) { return &pol->sw; }

ISDB__ONCE isdb_result isdb_bob_explain(isdb_bob *pol, const isdb_real *x, isdb_real *mean, isdb_real *bonus) {
    if (!pol) return ISDB_ERR_INVALID_ARG;
    if (!pol->drawn) return ISDB_ERR_BAD_STATE;
    return isdb_swucb_explain(&pol->sw, x, mean, bonus);
}

#endif /* ISDB__HAS_BOB */
#if ISDB__HAS_ADAPTIVE
/* ---------------------------------------------------------------------------
   [ADAPTIVE] Adaptive
   ------------------------------------------------------------------------ */

/* The memories, refresh and play_horizon are resolved (0: a default) and
   checked again by isdb_adaptive_config_check. */
#define ISDB__ADAPTIVE_FIELDS(X)                                                                     \
    ISDB__UCB_HEAD_FIELDS(X)                                                                         \
    X(REAL, isdb_real, lambda, 1, isdb__want_ridge(why, c->lambda, "lambda"))                       \
    X(REAL, isdb_real, R, 1, isdb__want_scale(why, c->R, "R"))                                      \
    X(REAL, isdb_real, delta, ISDB__R(0.01), isdb__want_delta(why, c->delta, "delta"))              \
    X(REAL, isdb_real, S, 1, isdb__want_scale(why, c->S, "S"))                                      \
    X(REAL, isdb_real, L, 1, isdb__want_pos_scale(why, c->L, "L"))                                  \
    X(REAL, isdb_real, alpha, 1, isdb__want_scale(why, c->alpha, "alpha"))                          \
    X(INT, int, min_memory, 0, isdb__want_count(why, c->min_memory, "min_memory"))                  \
    X(INT, int, max_memory, 0, isdb__want_count(why, c->max_memory, "max_memory"))                  \
    X(REAL_SINCE, isdb_real, memory_ratio, ISDB__ADAPTIVE_MEMORY_RATIO,                              \
      isdb__want_real(why, c->memory_ratio, "memory_ratio", 1, ISDB__R(1e6), 1, "(1, 1e6]"))           \
    X(REAL, isdb_real, threshold, ISDB__R(3.5), isdb__want_pos(why, c->threshold, "threshold"))     \
    X(REAL, isdb_real, play_threshold, ISDB__R(1.5), isdb__want_nonneg(why, c->play_threshold, "play_threshold")) \
    X(INT, int, refresh, 0, isdb__want_count(why, c->refresh, "refresh"))                           \
    X(INT, isdb_adaptive_noise, noise_estimate, ISDB_ADAPTIVE_NOISE_LOCAL,                          \
      isdb__want_int(why, (int)c->noise_estimate, "noise_estimate", ISDB_ADAPTIVE_NOISE_OFF,         \
                     ISDB_ADAPTIVE_NOISE_LOCAL, "an isdb_adaptive_noise"))                           \
    X(INT, isdb_adaptive_cut, cut, ISDB_ADAPTIVE_CUT_AUTO,                                           \
      isdb__want_int(why, (int)c->cut, "cut", ISDB_ADAPTIVE_CUT_AUTO, ISDB_ADAPTIVE_CUT_FULL, "an isdb_adaptive_cut")) \
    X(INT, int, hold, 1, isdb__want_flag(why, c->hold, "hold"))                                     \
    X(INT, int, play_horizon, 0, isdb__want_int(why, c->play_horizon, "play_horizon", 0, 1024, "[0, 1024]")) \
    X(INT_SINCE, int, kalman, ISDB__ADAPTIVE_KALMAN, isdb__want_int(why, c->kalman, "kalman", 0, 8, "[0, 8]")) \
    X(REAL_SINCE, isdb_real, kalman_q, ISDB__ADAPTIVE_KALMAN_Q,                                                \
      isdb__want_real(why, c->kalman_q, "kalman_q", 0, 1, 1, "(0, 1]"))                            \
    X(REAL_SINCE, isdb_real, kalman_width, ISDB__ADAPTIVE_KALMAN_WIDTH, isdb__want_scale(why, c->kalman_width, "kalman_width"))

/* memory_ratio: added in 1.1.0; 1.0.0's memories doubled. */
#define ISDB__SINCE_memory_ratio ISDB__VERSION_WORD_1_1, 2
/* kalman, kalman_q, kalman_width: added in 1.1.0; 1.0.0 had no Kalman
   estimators (the other two then mean nothing). */
#define ISDB__SINCE_kalman ISDB__VERSION_WORD_1_1, 0
#define ISDB__SINCE_kalman_q ISDB__VERSION_WORD_1_1, ISDB__R(3e-4)
#define ISDB__SINCE_kalman_width ISDB__VERSION_WORD_1_1, ISDB__R(0.1)
/* kalman's default (bench/README.md, "Adaptive's Kalman estimators"). */
#define ISDB__ADAPTIVE_KALMAN 2
#define ISDB__ADAPTIVE_KALMAN_Q ISDB__R(3e-4)
#define ISDB__ADAPTIVE_KALMAN_WIDTH ISDB__R(0.1)
/* the ratio between consecutive Kalman estimators' q: sqrt(10) */
#define ISDB__ADAPTIVE_KALMAN_RATIO ISDB__R(3.1622776601683795)
/* the horizon of the Kalman estimators' own discounted errors, which pick
   the one that may play */
#define ISDB__ADAPTIVE_KALMAN_HORIZON 1000
/* memory_ratio's default (bench/README.md, "The adaptive step's cost
   against the claims"). */
#define ISDB__ADAPTIVE_MEMORY_RATIO 2

ISDB__ONCE isdb_adaptive_config isdb_adaptive_config_init(int d, int max_arms) {
    isdb_adaptive_config c;
    memset(&c, 0, sizeof c);
    ISDB__ADAPTIVE_FIELDS(ISDB__CFG_DEFAULT)
    return c;
}

/* play_horizon's default: the play rule's evidence over 4 times the
   shorter memory. On a smooth drift, at noise comparable to the rewards'
   spread, a memory near the best one beats the next longer one by less
   than one standard deviation on average over the shorter memory's
   rounds, whatever the drift's speed (slow-turn: z 0.8; at the best
   memory the squared bias saved and the variance added scale alike), so
   the rule kept playing memories 2-4 times too long; over 4 memories the
   same advantage shows at about twice the z. 2, 3, 6 and 8 measured on
   `make agnostic`: geometric mean 0.818 / 0.812 / 0.805 / 0.809 (4:
   0.805), slow-turn 1.69 / 1.47 / 1.12 / 1.11 (4: 1.28), many-jumps
   0.69 / 0.71 / 0.77 / 0.80 (4: 0.73). */
#define ISDB__ADAPTIVE_PLAY_HORIZON 4

/* The config with its zero fields replaced by their defaults. */
ISDB__PRIVATE isdb_adaptive_config isdb__adaptive_resolve(const isdb_adaptive_config *cfg) {
    isdb_adaptive_config c = *cfg;
    if (c.min_memory == 0) c.min_memory = isdb__max_int(16, 2 * c.d); /* d was checked */
    if (c.max_memory == 0) c.max_memory = isdb__max_int(4096, c.min_memory);
    if (c.refresh == 0) c.refresh = isdb__max_int(4 * c.d, 256);
    if (c.play_horizon == 0) c.play_horizon = ISDB__ADAPTIVE_PLAY_HORIZON;
    return c;
}

/* The finite memories m_0 = min_memory, m_k+1 = max(m_k + 1, m_k r
   rounded) (r = memory_ratio) below max_memory, then max_memory, then 0
   (unbounded); returns how many, or 0 if more than
   ISDB_ADAPTIVE_MAX_ESTIMATORS. r = 2 gives 1.0.0's doubling memories
   exactly (m_k r is exact below 2^24 in float, and doubling keeps a
   min_memory's 24 bits). */
ISDB__PRIVATE int isdb__adaptive_memories(const isdb_adaptive_config *c, int *memories) {
    int n = 0, m = c->min_memory;
    while (m < c->max_memory && n + 2 <= ISDB_ADAPTIVE_MAX_ESTIMATORS) {
        const isdb_real next = isdb__floor((isdb_real)m * c->memory_ratio + ISDB__R(0.5));
        memories[n++] = m;
        m = next >= (isdb_real)c->max_memory ? c->max_memory : isdb__max_int(m + 1, (int)next);
    }
    if (m < c->max_memory) return 0;
    memories[n++] = c->max_memory;
    memories[n++] = 0;
    return n;
}

ISDB__ONCE isdb_result isdb_adaptive_config_check(const isdb_adaptive_config *c, isdb_refusal *why) {
    isdb_adaptive_config r;
    int memories[ISDB_ADAPTIVE_MAX_ESTIMATORS];
    if (!(isdb__want_start(why) && isdb__want_ptr(why, c, "cfg") ISDB__ADAPTIVE_FIELDS(ISDB__CFG_CHECK)))
        return ISDB_ERR_INVALID_ARG;
    r = isdb__adaptive_resolve(c);
    return isdb__checked(isdb__want_int(why, r.min_memory, "min_memory", 2, INT_MAX, "0 or >= 2") &&
                         isdb__want_int(why, r.max_memory, "max_memory", r.min_memory, INT_MAX, "0 or >= min_memory") &&
                         isdb__want(why, isdb__adaptive_memories(&r, memories) > 0, "max_memory",
                                    "within 30 steps of memory_ratio from min_memory"));
}

ISDB__DEFINE_CONFIG_WALK(adaptive, ISDB__ADAPTIVE_FIELDS)
ISDB__CONFIG_FROM_SNAPSHOT(adaptive, ISDB_POLICY_ADAPTIVE)

/* Lays out the heap for the resolved config c and sets the estimators'
   memories, discounts and refresh periods, and the widths' logarithms.
   A discounted estimator is refactorised at least every max(d, memory /
   2) updates, which bounds
   how far its ridge falls below lambda between refactorisations (to
   lambda e^-1/2 for memories of at least 2 d) at O(d^2) amortised cost. */
ISDB__COLD_PRIVATE size_t isdb__adaptive_layout(const isdb_adaptive_config *c, isdb_adaptive *p, void *heap) {
    isdb__arena a;
    isdb__adaptive_est sizing; /* without a heap, where each estimator's layout is counted */
    int memories[ISDB_ADAPTIVE_MAX_ESTIMATORS], k, n = isdb__adaptive_memories(c, memories);
    a.base = (unsigned char *)heap;
    a.used = 0;
    a.overflow = 0;
    p->n_est = n;
    p->_log_inv_delta = isdb__log(1 / c->delta);
    p->_log_lambda = isdb__log(c->lambda);
    p->_est = (isdb__adaptive_est *)isdb__take(&a, n, sizeof(isdb__adaptive_est));
    for (k = 0; k < n; ++k) {
        isdb__adaptive_est *e = heap ? &p->_est[k] : &sizing;
        e->memory = memories[k];
        e->gamma = e->memory ? 1 - 1 / (isdb_real)e->memory : 1;
        e->log_gamma = isdb__log(e->gamma);
        e->play_gamma = e->memory ? 1 - 1 / ((isdb_real)c->play_horizon * (isdb_real)e->memory) : 1;
        isdb__ridge_layout(&e->ridge, &a, c->d, 1);
        e->Vt = e->memory ? isdb__take_f64(&a, c->d * c->d) : NULL;
        e->W = c->noise_estimate == ISDB_ADAPTIVE_NOISE_LOCAL ? isdb__take_f64(&a, c->d * c->d) : NULL;
        e->ridge.lambda = c->lambda;
        e->ridge.refresh = e->memory ? isdb__min_int(c->refresh, isdb__max_int(c->d, e->memory / 2)) : c->refresh;
    }
    p->_pred = isdb__take_f64(&a, n);
    p->_sum = isdb__take_f64(&a, n * n);
    p->_sq = isdb__take_f64(&a, n * n);
    p->_gap = isdb__take_f64(&a, n * n);
    p->_err = isdb__take_f64(&a, n + 1);
    p->_play_sum = p->_play_sq = p->_play_gap = NULL;
    if (c->play_horizon > 1) {
        p->_play_sum = isdb__take_f64(&a, n * n);
        p->_play_sq = isdb__take_f64(&a, n * n);
        p->_play_gap = isdb__take_f64(&a, n * n);
    }
    p->_fit = NULL;
    if (c->hold) {
        isdb__ridge_layout(&p->hold_ridge, &a, c->d, 1);
        p->hold_ridge.lambda = c->lambda;
        p->hold_ridge.refresh = c->refresh;
        p->_fit = isdb__take_f64(&a, 3 * (n - 1));
    }
    p->_k_theta = p->_k_P = p->_k_err = p->_k_sum = p->_k_sq = p->_k_gap = p->_k_work = NULL;
    if (c->kalman > 0) {
        const int nk = c->kalman, d = c->d;
        p->_k_theta = isdb__take_f64(&a, nk * d);
        p->_k_P = isdb__take_f64(&a, nk * d * d);
        p->_k_err = isdb__take_f64(&a, nk);
        p->_k_sum = isdb__take_f64(&a, nk * n);
        p->_k_sq = isdb__take_f64(&a, nk * n);
        p->_k_gap = isdb__take_f64(&a, nk * n);
        p->_k_work = isdb__take_f64(&a, d);
    }
    return a.overflow ? 0 : a.used;
}

ISDB__PRIVATE isdb__adaptive_est *isdb__adaptive_played(const isdb_adaptive *p) {
    return (isdb__adaptive_est *)isdb__unconst(&p->_est[p->played]);
}

ISDB__PRIVATE isdb_real isdb__adaptive_noise2(const isdb_adaptive *p);

/* W's prior lambda R^2 I: the noise variance R^2 in every direction, with
   the ridge's weight lambda. */
ISDB__PRIVATE isdb_real isdb__adaptive_w_prior(const isdb_adaptive_config *c) { return c->lambda * c->R * c->R; }

/* The noise scale in the widths: R, or with noise_estimate POOLED or
   LOCAL the smaller of R and sqrt(s2) (1 + sqrt(2 ln(1/delta) / w)), s2
   the test's noise variance (the smallest long-run mean squared error of
   any memory) over w discounted observations, once w >= min_memory. */
ISDB__PRIVATE isdb_real isdb__adaptive_R(const isdb_adaptive *p) {
    const isdb_adaptive_config *c = &p->cfg;
    isdb_real w = p->_err[p->n_est], r;
    if (c->noise_estimate == ISDB_ADAPTIVE_NOISE_OFF || w < (isdb_real)c->min_memory) return c->R;
    r = isdb__sqrt(isdb__adaptive_noise2(p)) * (1 + isdb__sqrt(2 * p->_log_inv_delta / w));
    return r < c->R ? r : c->R;
}

/* The played estimator's beta for noise scale R and bound S, without
   alpha: sqrt(lambda) S + R B, B the self-normalised radius (a discounted
   estimator D-LinUCB's beta_n with n = count, the unbounded one LinUCB's
   log-det radius); (R, S) = (1, 0) gives B, (0, S) sqrt(lambda) S, each
   exactly. */
ISDB__PRIVATE isdb_real isdb__adaptive_beta_R(const isdb_adaptive *p, isdb_real R, isdb_real S) {
    const isdb_adaptive_config *c = &p->cfg;
    const isdb__adaptive_est *e = isdb__adaptive_played(p);
    const isdb_real d = (isdb_real)c->d;
    isdb_real radius;
    /* isdb__discounted_beta's and isdb__width's (LOGDET) operations, with
       the logarithms of constants taken at init and layout */
    if (e->Vt) {
        const isdb_real n = (isdb_real)e->count, fading = n > 0 ? -isdb__expm1(2 * n * e->log_gamma) : 0;
        const isdb_real one_minus_g2 = (1 - e->gamma) * (1 + e->gamma);
        radius = 2 * p->_log_inv_delta + d * isdb__log1p(c->L * c->L * fading / (c->lambda * d * one_minus_g2));
        return isdb__sqrt(c->lambda) * S + R * isdb__sqrt(radius);
    }
    radius = 2 * p->_log_inv_delta + e->ridge.logdet - d * p->_log_lambda;
    return R * isdb__sqrt(radius > 0 ? radius : 0) + isdb__sqrt(c->lambda) * S;
}

/* A discounted estimator plays D-LinUCB's index (its width ||V^-1 x||_{Vt}
   and beta_n with n = count), the unbounded one LinUCB's (log-det width).
   With NOISE_LOCAL each arm's noise scale is its own (at most R, the
   scale this beta takes). */
isdb_real isdb_adaptive_get_beta(const isdb_adaptive *p) {
    return p->cfg.alpha * isdb__adaptive_beta_R(p, isdb__adaptive_R(p), p->cfg.S);
}

/* Kalman estimator kalman_played's index of every arm (below). */
ISDB__PRIVATE int isdb__adaptive_kalman_ucb_all(isdb_adaptive *p, const isdb_real *X, int n_arms, isdb_real *out);

/* NOISE_LOCAL's index of every arm (isdb__discounted_ucb_all's, eight
   arms a pass): x.theta + alpha (S_part + R_x B) ||x||_w, ||x||_w =
   ||V^-1 x||_{Vt} (discounted) or ||x||_{V^-1} (unbounded), and R_x the
   smaller of R and sqrt(v_x) (1 + sqrt(2 ln(1/delta) / n_x)): v_x =
   ||V^-1 x||^2_W / ||x||^2_{V^-1}, the errors' mean square along x (the
   sandwich variance of x.theta over its ridge value; with one-hot arms
   (lambda R^2 + sum e^2) / (lambda + n) over the arm's n observations),
   and n_x = |x|^2 / ||x||^2_{V^-1} - lambda the observations along x;
   R_x = R while n_x < min_memory. */
ISDB__PRIVATE int isdb__adaptive_local_ucb_all(isdb_adaptive *p, const isdb_real *X, int n_arms, isdb_real *out) {
    const isdb_adaptive_config *c = &p->cfg;
    isdb__adaptive_est *e = isdb__adaptive_played(p);
    isdb__ridge *r = &e->ridge;
    const int d = r->d;
    const isdb_real b = isdb__adaptive_beta_R(p, 1, 0), bias = c->lambda * c->S, pooled = isdb__adaptive_R(p);
    const isdb_real l2 = 2 * p->_log_inv_delta;
    isdb_real best_value = 0, mean[ISDB__PASS_MAX], norm2[ISDB__PASS_MAX], qw[ISDB__PASS_MAX], qt[ISDB__PASS_MAX];
    const isdb_real *rows[ISDB__PASS_MAX];
    int k, a, m, i, best = 0, lanes16 = isdb__lanes16_here();
    for (k = 0; k < n_arms; k += m) {
        if (lanes16 && n_arms - k > ISDB__LANES8) {
            /* one pass over the factor and W for up to sixteen arms (lane a
               of arms 8 .. 15 at block + 8 d), the same operations per lane */
            m = isdb__lanes_rows_n(X, d, n_arms, k, ISDB__LANES16, rows);
            isdb__lanes16_fwd_solve_dots(d, r->L, r->inv_diag, rows, r->block, r->z, mean, norm2);
            isdb__lanes16_back_solve(d, r->L, r->inv_diag, r->block); /* u = V^-1 x */
            isdb__lanes16_sym_form(d, e->W, r->block, qw);
            if (e->Vt) isdb__lanes16_sym_form(d, e->Vt, r->block, qt);
        } else {
            m = isdb__lanes_rows_n(X, d, n_arms, k, ISDB__LANES8, rows);
            isdb__lanes8_fwd_solve_dots(d, r->L, r->inv_diag, rows, r->block, r->z, mean, norm2);
            isdb__lanes8_back_solve(d, r->L, r->inv_diag, r->block); /* u = V^-1 x */
            isdb__lanes8_sym_form(d, e->W, r->block, qw);
            if (e->Vt) isdb__lanes8_sym_form(d, e->Vt, r->block, qt);
        }
        for (a = 0; a < m; ++a) {
            const isdb_real *u = r->block + (a < ISDB__LANES8 ? a : ISDB__LANES8 * d + a - ISDB__LANES8);
            isdb_real rx = pooled, v, n_x, q = e->Vt ? qt[a] : norm2[a], uu = 0;
            if (norm2[a] > 0) {
                n_x = isdb__dot(d, rows[a], rows[a]) / norm2[a] - c->lambda;
                if (n_x >= (isdb_real)c->min_memory) {
                    isdb_real vx = qw[a] / norm2[a];
                    vx = isdb__sqrt(vx > 0 ? vx : 0) * (1 + isdb__sqrt(l2 / n_x));
                    if (vx < rx) rx = vx;
                }
            }
            for (i = 0; i < d; ++i) uu += u[i * ISDB__LANES8] * u[i * ISDB__LANES8];
            v = mean[a] + c->alpha * (rx * b * isdb__sqrt(q > 0 ? q : 0) + bias * isdb__sqrt(uu));
            if (out) out[k + a] = v;
            if (k + a == 0 || v > best_value) {
                best_value = v;
                best = k + a;
            }
        }
    }
    return best;
}

ISDB__PRIVATE int isdb__adaptive_ucb_all(isdb_adaptive *p, const isdb_real *X, int n_arms, isdb_real *out) {
    isdb__adaptive_est *e = isdb__adaptive_played(p);
    isdb__ridge *r = &e->ridge;
    isdb_real beta;
    if (p->kalman_played >= 0) return isdb__adaptive_kalman_ucb_all(p, X, n_arms, out);
    if (e->W) return isdb__adaptive_local_ucb_all(p, X, n_arms, out);
    beta = isdb_adaptive_get_beta(p);
    if (!e->Vt) return isdb__ridge_ucb_all(r, X, n_arms, beta, out);
    return isdb__discounted_ucb_all(r->d, r->L, r->inv_diag, r->z, e->Vt, r->block, X, n_arms, beta, out);
}

ISDB__PRIVATE isdb_result isdb__adaptive_select(isdb_policy *bp, const isdb_real *X, int n_arms, int *arm) {
    *arm = isdb__adaptive_ucb_all((isdb_adaptive *)bp, X, n_arms, NULL);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__adaptive_scores(isdb_policy *bp, const isdb_real *X, int n_arms, isdb_real *out) {
    isdb__adaptive_ucb_all((isdb_adaptive *)bp, X, n_arms, out);
    return ISDB_OK;
}

/* The noise variance the test assumes: the smallest long-run mean
   squared error of any memory (each is the noise variance plus that
   memory's own error), or 0 before the first observation. */
ISDB__PRIVATE isdb_real isdb__adaptive_noise2(const isdb_adaptive *p) {
    int k, n = p->n_est;
    isdb_real m = p->_err[0];
    if (!(p->_err[n] > 0)) return 0;
    for (k = 1; k < n; ++k)
        if (p->_err[k] < m) m = p->_err[k];
    return m / p->_err[n];
}

/* min(a, cap) for a cap > 0: fmin's value (a NaN gives cap) without the
   call to libm that isdb__fmin is (2% of the step at d = 2, K = 10). */
ISDB__PRIVATE isdb_real isdb__adaptive_cap(isdb_real a, isdb_real cap) { return a < cap ? a : cap; }

/* Pair (i, j), i < j, beats the longer memory j at level z when the
   discounted sum S of delta = (y - pred_j)^2 - (y - pred_i)^2, how much
   better the shorter memory i predicted each observation, exceeds z times
   its standard deviation estimate sqrt(Q). Q is the larger of the deltas'
   own sum of squares and what the noise alone gives them, 4 noise2
   (pred_i - pred_j)^2 summed: a run of near-equal deltas (low-mean
   Bernoulli rewards that stay 0 for a while) does not look significant
   by its own small spread. The pair's sums are S, Q and G (the gaps'
   squares summed); zz is z^2 and floor4 4 noise2, taken once a round. */
ISDB__PRIVATE int isdb__adaptive_beats(isdb_real S, isdb_real Q, isdb_real G, isdb_real zz, isdb_real floor4) {
    const isdb_real floor = floor4 * G;
    if (floor > Q) Q = floor;
    return S > 0 && S * S > zz * Q;
}

/* The Kalman estimators: random-walk Kalman filters in covariance form
   (P is each filter's own state, carried by its rank-one steps; it is
   not the inverse of a matrix factorised elsewhere, and no system is
   solved with it), with observation variance 1, so P is in the ridge's
   V^-1 units and the prior is P = I / lambda. An update adds q to each
   diagonal entry of P below 1 / lambda (up to it: P stays bounded along
   directions never observed), then with u = P x and s = 1 + x'u: theta += u (y - x.theta) / s and
   P -= u u' / s. P is stored whole and stays exactly symmetric: each
   step writes P_ij and P_ji from one value. */

/* Kalman estimator k's q: kalman_q 10^(k/2). */
ISDB__PRIVATE isdb_real isdb__adaptive_kalman_q(const isdb_adaptive_config *c, int k) {
    isdb_real q = c->kalman_q;
    int i;
    for (i = 0; i < k; ++i) q *= ISDB__ADAPTIVE_KALMAN_RATIO;
    return q;
}

/* Kalman estimator k starts again: theta (0 if NULL), P = I / lambda,
   and its error sums at 0. */
ISDB__PRIVATE void isdb__adaptive_kalman_restart(isdb_adaptive *p, int k, const isdb_real *theta) {
    const int d = p->cfg.d, n = p->n_est;
    if (theta)
        isdb__copy(d, theta, p->_k_theta + k * d);
    else
        isdb__zero(d, p->_k_theta + k * d);
    isdb__identity(d, p->_k_P + k * d * d, 1 / p->cfg.lambda);
    p->_k_err[k] = 0;
    isdb__zero(n, p->_k_sum + k * n);
    isdb__zero(n, p->_k_sq + k * n);
    isdb__zero(n, p->_k_gap + k * n);
}

/* u = P x for a Kalman estimator's P, row i's products summed in order of
   j from 0 (the scalar loop's bits). P is exactly symmetric, so lanes i ..
   i + 2 VLEN - 1 read column j as row j's contiguous entries: one vector
   step per j for each lane group, two groups' chains overlapping. */
ISDB__PRIVATE void isdb__adaptive_kalman_pu(int d, const isdb_real *ISDB__RESTRICT P, const isdb_real *ISDB__RESTRICT x,
                                            isdb_real *ISDB__RESTRICT u) {
    int i = 0, j;
#if defined(ISDB__VEC_LANES)
    for (; i + 2 * ISDB__VLEN <= d; i += 2 * ISDB__VLEN) {
        isdb__vec t0 = isdb__splat(0), t1 = isdb__splat(0);
        for (j = 0; j < d; ++j) {
            const isdb__vec xj = isdb__splat(x[j]);
            t0 = t0 + *(const isdb__vec *)(P + j * d + i) * xj;
            t1 = t1 + *(const isdb__vec *)(P + j * d + i + ISDB__VLEN) * xj;
        }
        *(isdb__vec *)(u + i) = t0;
        *(isdb__vec *)(u + i + ISDB__VLEN) = t1;
    }
#endif
    for (; i < d; ++i) {
        const isdb_real *ISDB__RESTRICT Pi = P + i * d;
        isdb_real t = 0;
        for (j = 0; j < d; ++j) t += Pi[j] * x[j];
        u[i] = t;
    }
}

/* The Kalman estimators' error sums take the observation (their
   predictions x.theta made before the step; against memory j discounted
   by j's play_gamma, the unbounded memory's by the longest finite one's),
   then each filter takes its step. A step whose s is not finite and > 0,
   or that leaves a non-finite entry or a diagonal below the smallest
   normal real, restarts the estimator from the played memory's estimate
   (no error: the memories go on). O(d^2) each. */
ISDB__PRIVATE void isdb__adaptive_kalman_learn(isdb_adaptive *p, const isdb_real *x, isdb_real y) {
    const int d = p->cfg.d, n = p->n_est, nk = p->cfg.kalman;
    const isdb_real cap = ISDB__REAL_MAX / 2, ge = 1 - 1 / (isdb_real)ISDB__ADAPTIVE_KALMAN_HORIZON,
                    top = 1 / p->cfg.lambda;
    isdb_real err2[ISDB_ADAPTIVE_MAX_ESTIMATORS];
    int i, j, k;
    for (j = 0; j < n; ++j) {
        const isdb_real e = y - p->_pred[j];
        err2[j] = isdb__adaptive_cap(e * e, ISDB__SQRT_HUGE);
    }
    for (k = 0; k < nk; ++k) {
        isdb_real *ISDB__RESTRICT theta = p->_k_theta + k * d, *ISDB__RESTRICT P = p->_k_P + k * d * d;
        isdb_real *ISDB__RESTRICT u = p->_k_work, *S = p->_k_sum + k * n, *Q = p->_k_sq + k * n, *G = p->_k_gap + k * n;
        const isdb_real q = isdb__adaptive_kalman_q(&p->cfg, k);
        isdb_real pred = 0, sx = 1, e, e2;
        int ok;
        /* the walk's variance grows a diagonal entry up to the prior's 1 /
           lambda, no further (a PSD diagonal added: P stays PSD, and
           bounded along directions never observed) */
        for (i = 0; i < d; ++i) {
            const isdb_real room = top - P[i * d + i];
            if (room > 0) P[i * d + i] += room < q ? room : q;
        }
        isdb__adaptive_kalman_pu(d, P, x, u);
        for (i = 0; i < d; ++i) {
            pred += theta[i] * x[i];
            sx += x[i] * u[i];
        }
        e = y - pred;
        e2 = isdb__adaptive_cap(e * e, ISDB__SQRT_HUGE);
        p->_k_err[k] = isdb__adaptive_cap(ge * p->_k_err[k] + e2, cap);
        for (j = 0; j < n; ++j) {
            const isdb_real h = p->_est[j].memory ? p->_est[j].play_gamma : p->_est[n - 2].play_gamma, hh = h * h;
            const isdb_real delta = err2[j] - e2, gap = pred - p->_pred[j];
            S[j] = h * S[j] + delta;
            Q[j] = isdb__adaptive_cap(hh * Q[j] + delta * delta, cap);
            G[j] = isdb__adaptive_cap(hh * G[j] + gap * gap, cap);
        }
        ok = isdb__finite(sx) && sx > 0 && isdb__finite(e);
        if (ok) {
            const isdb_real inv = 1 / sx, r = e * inv;
            isdb_real bad = 0;
            for (i = 0; i < d; ++i) {
                const isdb_real ui = u[i] * inv;
                theta[i] += u[i] * r;
                bad += theta[i] - theta[i];
                j = 0;
#if defined(ISDB__VEC_LANES)
                {
                    /* v - v is 0 or NaN: bad's sum of them decides the
                       same in any order */
                    const isdb__vec uv = isdb__splat(ui);
                    isdb__vec bv = isdb__splat(0);
                    int l;
                    for (; j + ISDB__VLEN <= i; j += ISDB__VLEN) {
                        const isdb__vec v = *(const isdb__vec *)(P + i * d + j) - uv * *(const isdb__vec *)(u + j);
                        *(isdb__vec *)(P + i * d + j) = v;
                        for (l = 0; l < ISDB__VLEN; ++l) P[(j + l) * d + i] = v[l];
                        bv = bv + (v - v);
                    }
                    for (l = 0; l < ISDB__VLEN; ++l) bad += bv[l];
                }
#endif
                for (; j < i; ++j) {
                    const isdb_real v = P[i * d + j] - ui * u[j];
                    P[i * d + j] = v;
                    P[j * d + i] = v;
                    bad += v - v;
                }
                P[i * d + i] -= ui * u[i];
                if (!(P[i * d + i] >= ISDB__REAL_MIN)) ok = 0;
                bad += P[i * d + i] - P[i * d + i];
            }
            if (bad != 0) ok = 0; /* a NaN or an infinity somewhere */
        }
        if (!ok) {
            isdb__ridge_theta(&isdb__adaptive_played(p)->ridge, u);
            isdb__adaptive_kalman_restart(p, k, u);
        }
    }
    if (p->kalman_count < INT_MAX) ++p->kalman_count;
}

/* The index of every arm while Kalman estimator k plays: x.theta +
   kalman_width beta sqrt(x'Px), beta the played memory's (alpha included).
   O(d^2) an arm. */
ISDB__PRIVATE int isdb__adaptive_kalman_ucb_all(isdb_adaptive *p, const isdb_real *X, int n_arms, isdb_real *out) {
    const int d = p->cfg.d, k = p->kalman_played;
    const isdb_real *ISDB__RESTRICT theta = p->_k_theta + k * d, *ISDB__RESTRICT P = p->_k_P + k * d * d;
    const isdb_real w = p->cfg.kalman_width * isdb_adaptive_get_beta(p);
    isdb_real best_value = 0, *ISDB__RESTRICT u = p->_k_work;
    int a, i, best = 0;
    for (a = 0; a < n_arms; ++a) {
        const isdb_real *ISDB__RESTRICT x = X + (size_t)a * (size_t)d;
        isdb_real m = 0, q = 0, v;
        isdb__adaptive_kalman_pu(d, P, x, u);
        for (i = 0; i < d; ++i) {
            q += x[i] * u[i];
            m += theta[i] * x[i];
        }
        v = m + w * isdb__sqrt(q > 0 ? q : 0);
        if (out) out[a] = v;
        if (a == 0 || v > best_value) {
            best_value = v;
            best = a;
        }
    }
    return best;
}

/* Folds the new observation's prediction errors into the test's sums;
   S and Q are discounted by the shorter memory's gamma, so they cover the
   last ~memory_i rounds (and with play_horizon h > 1 into the play rule's,
   discounted over h memory_i). Returns the longest memory i that beats some
   longer one at the cut threshold, or -1. A memory that has forgotten a
   direction can predict far beyond any reward (ISDB_INPUT_MAX times a
   coefficient as large): squared errors are capped at ISDB__SQRT_HUGE and
   Q at half the largest real, so the sums stay finite and the snapshot
   loads. In double the cap is far beyond any reward's square; in float it
   is ISDB_INPUT_MAX squared. */
ISDB__PRIVATE int isdb__adaptive_test(isdb_adaptive *p, isdb_real y) {
    int i, j, n = p->n_est, found = -1;
    isdb_real err2[ISDB_ADAPTIVE_MAX_ESTIMATORS], g_long = p->_est[n - 2].gamma, noise2, zz, floor4;
    const isdb_real cap = ISDB__REAL_MAX / 2, *ISDB__RESTRICT pred = p->_pred;
    isdb_real *ISDB__RESTRICT S = p->_sum, *ISDB__RESTRICT Q = p->_sq, *ISDB__RESTRICT G = p->_gap;
    isdb_real *ISDB__RESTRICT PS = p->_play_sum, *ISDB__RESTRICT PQ = p->_play_sq, *ISDB__RESTRICT PG = p->_play_gap;
    for (i = 0; i < n; ++i) {
        const isdb_real e = y - pred[i];
        err2[i] = isdb__adaptive_cap(e * e, ISDB__SQRT_HUGE);
        p->_err[i] = isdb__adaptive_cap(g_long * p->_err[i] + err2[i], cap);
    }
    p->_err[n] = g_long * p->_err[n] + 1;
    noise2 = isdb__adaptive_noise2(p);
    /* the test at the cut threshold, pair by pair as the sums are formed */
    zz = p->cfg.threshold * p->cfg.threshold;
    floor4 = 4 * noise2;
    for (i = 0; i + 1 < n; ++i) {
        const isdb_real g = p->_est[i].gamma, gg = g * g, e_i = err2[i], p_i = pred[i];
        const isdb_real h = p->_est[i].play_gamma, hh = h * h;
        const int memory_i = p->_est[i].memory;
        for (j = i + 1; j < n; ++j) {
            const int ij = i * n + j;
            const isdb_real delta = err2[j] - e_i, dd = delta * delta, gap = p_i - pred[j], gap2 = gap * gap;
            S[ij] = g * S[ij] + delta;
            Q[ij] = isdb__adaptive_cap(gg * Q[ij] + dd, cap);
            G[ij] = isdb__adaptive_cap(gg * G[ij] + gap2, cap);
            if (PS) {
                PS[ij] = h * PS[ij] + delta;
                PQ[ij] = isdb__adaptive_cap(hh * PQ[ij] + dd, cap);
                PG[ij] = isdb__adaptive_cap(hh * PG[ij] + gap2, cap);
            }
            if (p->_est[j].count > memory_i && isdb__adaptive_beats(S[ij], Q[ij], G[ij], zz, floor4)) found = i;
        }
    }
    return found;
}

/* y = M x, M symmetric and stored in its lower triangle. */
ISDB__PRIVATE void isdb__sym_lower_matvec(int d, const isdb_real *M, const isdb_real *x, isdb_real *y) {
    int i, j;
    for (i = 0; i < d; ++i) {
        isdb_real s = 0;
        for (j = 0; j <= i; ++j) s += M[i * d + j] * x[j];
        for (j = i + 1; j < d; ++j) s += M[j * d + i] * x[j];
        y[i] = s;
    }
}

/* The variance a directional cut adds to theta along the change, in
   units of the prior's 1 / lambda. */
#define ISDB__ADAPTIVE_CUT_VARIANCE ISDB__R(0.1)

/* M = lambda I + G, G a Gram sum (lower triangle): G becomes (G^-1 +
   tau u u^T)^-1, what G knows with the variance tau added along the unit
   vector u (Sherman-Morrison: G - f (G u)(G u)^T, f = tau / (1 + tau
   u^T G u); a positive semi-definite G stays so, so M stays >= lambda I,
   and M's order against another such matrix is kept). gu: d scratch. */
ISDB__PRIVATE int isdb__gram_inflate(int d, isdb_real *M, isdb_real lambda, const isdb_real *u, isdb_real tau,
                                     isdb_real *gu) {
    int i, j;
    isdb_real f;
    isdb__sym_lower_matvec(d, M, u, gu);
    for (i = 0; i < d; ++i) gu[i] -= lambda * u[i];
    f = tau / (1 + tau * isdb__dot(d, u, gu));
    if (!isdb__finite(f) || !isdb__finite(f * isdb__dot(d, gu, gu))) return 0;
    for (i = 0; i < d; ++i)
        for (j = 0; j <= i; ++j) M[i * d + j] -= f * gu[i] * gu[j];
    return 1;
}

/* W's share of a directional cut: with G = V - lambda I, u^T G u = g_uu
   before the cut and g_uu / (1 + tau g_uu) after it (isdb__gram_inflate),
   so W - prior I loses the same share along u (W - f (W_G u)(W_G u)^T,
   W_G = W - prior I, f = tau g_uu / (a (1 + tau g_uu)) with a = u^T W_G
   u: u^T W_G u falls to a / (1 + tau g_uu), and W_G stays positive
   semi-definite since f a < 1): the errors' mean square along u is
   kept, the evidence behind it shrinks with the count. wu: d scratch. */
ISDB__COLD_PRIVATE int isdb__adaptive_w_along(int d, isdb_real *W, isdb_real prior, const isdb_real *u, isdb_real tau,
                                         isdb_real g_uu, isdb_real *wu) {
    int i, j;
    isdb_real a, f;
    isdb__sym_lower_matvec(d, W, u, wu);
    for (i = 0; i < d; ++i) wu[i] -= prior * u[i];
    a = isdb__dot(d, u, wu);
    if (!(a > 0) || !(g_uu > 0)) return 1; /* nothing along u to shrink */
    f = tau * g_uu / (a * (1 + tau * g_uu));
    if (!isdb__finite(f) || !isdb__finite(f * isdb__dot(d, wu, wu))) return 0;
    for (i = 0; i < d; ++i)
        for (j = 0; j <= i; ++j) W[i * d + j] -= f * wu[i] * wu[j];
    return 1;
}

/* A directional cut of estimator k by the shorter i. The direction in
   which i's recent observations (their Gram sum G_i = V_i - lambda I)
   say theta moved is u = g / |g|, g = G_i (theta_i - theta_k); k's
   estimate moves along u to fit them (least squares along u), and k's
   Gram sums take ISDB__ADAPTIVE_CUT_VARIANCE / lambda of variance along
   u (isdb__gram_inflate), so k explores there again and keeps what it
   knows elsewhere: with one-hot arms, a restart of the arms played
   lately. O(d^3) (the refactorisation). Returns 0 when g is 0 or a
   step is not finite (k then takes the full cut). */
ISDB__COLD_PRIVATE int isdb__adaptive_cut_along(isdb_adaptive *p, int i, int k) {
    const isdb_real lambda = p->cfg.lambda;
    const int d = p->cfg.d;
    isdb__adaptive_est *ei = &p->_est[i], *ek = &p->_est[k];
    isdb__ridge *r = &ek->ridge;
    /* scratch: k's ridge's eight-lane block (select's, 8 d) */
    isdb_real *theta_i = r->block, *theta_k = theta_i + d, *g = theta_k + d, *u = g + d, *gu = u + d, *wu = gu + d;
    isdb_real norm, ugu, tau = ISDB__ADAPTIVE_CUT_VARIANCE / lambda, g_uu = 0;
    int a;
    isdb__ridge_theta(&ei->ridge, theta_i);
    isdb__ridge_theta(r, theta_k);
    for (a = 0; a < d; ++a) u[a] = theta_i[a] - theta_k[a];
    isdb__sym_lower_matvec(d, ei->ridge.V, u, g);
    for (a = 0; a < d; ++a) g[a] -= lambda * u[a];
    norm = isdb__sqrt(isdb__dot(d, g, g));
    if (!(norm > 0) || !isdb__finite(norm)) return 0;
    for (a = 0; a < d; ++a) u[a] = g[a] / norm;
    isdb__sym_lower_matvec(d, ei->ridge.V, u, gu);
    ugu = isdb__dot(d, u, gu) - lambda;
    if (ugu > 0)
        for (a = 0; a < d; ++a) theta_k[a] += norm / ugu * u[a];
#if ISDB_REAL_IS_FLOAT
    /* the compensated sums' errors join the sums they belong to */
    for (a = 0; a < d * d; ++a) r->V[a] += r->V_lo[a];
    isdb__zero(d * d, r->V_lo);
    isdb__zero(d, r->b_lo);
#endif
    if (ek->W) {
        isdb__sym_lower_matvec(d, r->V, u, gu);
        g_uu = isdb__dot(d, u, gu) - lambda;
    }
    /* from here on a failure leaves k to the full cut, which replaces all
       of its state */
    if (!isdb__gram_inflate(d, r->V, lambda, u, tau, gu) ||
        (ek->Vt && !isdb__gram_inflate(d, ek->Vt, lambda, u, tau, gu)) ||
        (ek->W && !isdb__adaptive_w_along(d, ek->W, isdb__adaptive_w_prior(&p->cfg), u, tau, g_uu, wu)))
        return 0;
    isdb__sym_lower_matvec(d, r->V, theta_k, r->b);
    /* V >= lambda I factors; should rounding say otherwise, the full cut
       replaces it */
    if (!isdb__finite(isdb__dot(d, r->b, r->b)) || !isdb__ridge_refactor(r)) return 0;
    isdb__ridge_commit(r);
    r->logdet = isdb_chol_logdet(d, r->L);
    r->since_refresh = 0;
    return 1;
}

/* Whether cut AUTO sees a fixed arm set: at least half the recent updates
   repeat a feature played lately (isdb__adaptive_seen). */
ISDB__PRIVATE int isdb__adaptive_recurring(const isdb_adaptive *p) {
    return p->cfg.cut == ISDB_ADAPTIVE_CUT_AUTO && p->recur >= ISDB__R(0.5);
}

/* A change seen by the shorter memory i: every estimator of longer memory
   restarts from i's estimate (FULL: the data before the change weigh no
   more than i lets them) or forgets along the change's direction
   (DIRECTION, isdb__adaptive_cut_along, falling back to FULL), and the
   sums of the pairs that involve one start again. */
ISDB__COLD_PRIVATE void isdb__adaptive_cut(isdb_adaptive *p, int i) {
    /* the test's pair sums, then the play rule's where it keeps its own */
    isdb_real *const sums[6] = {p->_sum, p->_sq, p->_gap, p->_play_sum, p->_play_sq, p->_play_gap};
    int n = p->n_est, n_sums = p->_play_sum ? 6 : 3, k, a, t;
    for (k = i + 1; k < n; ++k) {
        int along = p->cfg.cut == ISDB_ADAPTIVE_CUT_DIRECTION || isdb__adaptive_recurring(p);
        if (!along || !isdb__adaptive_cut_along(p, i, k)) {
            isdb__ridge_copy(&p->_est[i].ridge, &p->_est[k].ridge);
            if (p->_est[k].Vt) isdb__copy(p->cfg.d * p->cfg.d, p->_est[i].Vt, p->_est[k].Vt);
            if (p->_est[k].W) isdb__copy(p->cfg.d * p->cfg.d, p->_est[i].W, p->_est[k].W);
            p->_est[k].count = isdb__min_int(p->_est[i].count, p->_est[i].memory);
        }
        for (a = 0; a < k; ++a)
            for (t = 0; t < n_sums; ++t) sums[t][a * n + k] = a < i ? sums[t][a * n + i] : 0;
        p->_err[k] = p->_err[i];
        /* against the Kalman estimators k now stands where i did */
        for (a = 0; a < p->cfg.kalman; ++a) {
            p->_k_sum[a * n + k] = p->_k_sum[a * n + i];
            p->_k_sq[a * n + k] = p->_k_sq[a * n + i];
            p->_k_gap[a * n + k] = p->_k_gap[a * n + i];
        }
    }
    p->upper_dirty = 2; /* a failed refactorisation may have left part of V in L_next */
    ++p->changes;
}

/* The longest memory that no shorter one beats at the play threshold on
   the pair sums given (the change test's, or the play rule's longer
   ones); the longest of all while cut AUTO sees recurring features,
   where the directional cuts do the forgetting: on a fixed arm set the
   memory that best predicts the played arm is shorter than the one that
   decides best (two-armed sinusoids 1.84 to 1.41x the best tuned
   policy). */
ISDB__PRIVATE int isdb__adaptive_choose(const isdb_adaptive *p, const isdb_real *sum, const isdb_real *sq,
                                        const isdb_real *gap) {
    int i, j, n = p->n_est;
    const isdb_real zz = p->cfg.play_threshold * p->cfg.play_threshold, floor4 = 4 * isdb__adaptive_noise2(p);
    if (isdb__adaptive_recurring(p)) return n - 1;
    for (j = n - 1; j > 0; --j) {
        for (i = 0; i < j; ++i)
            if (p->_est[j].count > p->_est[i].memory &&
                isdb__adaptive_beats(sum[i * n + j], sq[i * n + j], gap[i * n + j], zz, floor4))
                break;
        if (i == j) break;
    }
    return j;
}

/* hold: the evidence is clipped to this many noise variances a round (a
   burst of large errors, early or after a change, moves it by a bounded
   amount), and holds once below minus ISDB__ADAPTIVE_HOLD_MARGIN of them
   (without clear evidence either way the policy does not hold). */
#define ISDB__ADAPTIVE_HOLD_CLIP ISDB__R(2)
#define ISDB__ADAPTIVE_HOLD_MARGIN ISDB__R(10)

/* c_q = max(0, sum s y / sum s^2): the long-run estimate's scale over q's
   memory. */
ISDB__PRIVATE isdb_real isdb__adaptive_hold_scale(const isdb_real *fit, int m, int q) {
    isdb_real spp = fit[q], c = spp > 0 ? fit[m + q] / spp : 0;
    return c > 0 ? c : 0;
}

/* Whether hold applies now: fresh contexts (a fixed arm set has the
   directional cuts) and the rescaled long-run estimate ahead by the
   margin. */
ISDB__PRIVATE int isdb__adaptive_holding(const isdb_adaptive *p) {
    return p->cfg.hold && !isdb__adaptive_recurring(p) &&
           p->evidence < -ISDB__ADAPTIVE_HOLD_MARGIN * isdb__adaptive_noise2(p);
}

/* hold's evidence from (x, y), before the estimators learn it. A
   positive rescaling of theta ranks no arm differently, so while c
   theta_long predicts the rewards as well as the memory the play rule
   picks, with c fitted over a short memory, what the shorter memories see
   is the rewards' scale moving, not a change to forget. theta_long is the
   ridge estimate of every observation so far (never cut); s = x.theta_long.
   The rescaled prediction c_q s takes the memory q whose rescaled
   predictions have erred least (their squared errors discounted by the
   second-longest gamma, as the evidence). O(n + d^2) a round: theta_long's
   back substitution here, and its ridge's rank-one step with the
   estimators' in isdb__adaptive_learn (nothing reads the long-run ridge
   in between). */
ISDB__PRIVATE void isdb__adaptive_hold_learn(isdb_adaptive *p, const isdb_real *x, isdb_real y) {
    const int d = p->cfg.d, n = p->n_est, m = n - 1;
    isdb__ridge *r = &p->hold_ridge;
    isdb_real *fit = p->_fit, *err = fit + 2 * m, *theta = r->block;
    const isdb_real g_long = p->_est[n - 2].gamma, noise2 = isdb__adaptive_noise2(p),
                    clip = ISDB__ADAPTIVE_HOLD_CLIP * noise2;
    isdb_real sx, e, mine, inc;
    int q, best = 0;
    isdb__ridge_theta(r, theta);
    sx = isdb__dot(d, x, theta);
    for (q = 1; q < m; ++q)
        if (err[q] < err[best]) best = q;
    e = y - isdb__adaptive_hold_scale(fit, m, best) * sx;
    mine = y - p->_pred[p->normal];
    inc = isdb__adaptive_cap(e * e, ISDB__SQRT_HUGE) - isdb__adaptive_cap(mine * mine, ISDB__SQRT_HUGE);
    if (noise2 > 0) p->evidence = g_long * p->evidence + (inc > clip ? clip : inc < -clip ? -clip : inc);
    for (q = 0; q < m; ++q) {
        isdb_real g = p->_est[q].gamma, eq = y - isdb__adaptive_hold_scale(fit, m, q) * sx, a;
        a = g_long * err[q] + isdb__adaptive_cap(eq * eq, ISDB__SQRT_HUGE);
        err[q] = isdb__adaptive_cap(a, ISDB__REAL_MAX / 2);
        a = g * fit[q] + isdb__adaptive_cap(sx * sx, ISDB__SQRT_HUGE);
        fit[q] = isdb__adaptive_cap(a, ISDB__REAL_MAX / 2);
        a = g * fit[m + q] + sx * y;
        fit[m + q] = a < -ISDB__REAL_MAX / 2 ? -ISDB__REAL_MAX / 2 : isdb__adaptive_cap(a, ISDB__REAL_MAX / 2);
    }
}

/* Whether x is one of the last ISDB_ADAPTIVE_SEEN distinct features
   played (by a 64-bit hash of its bits), folded into recur; a new one
   joins the ring. Only cut AUTO reads recur. */
ISDB__PRIVATE void isdb__adaptive_seen(isdb_adaptive *p, const isdb_real *x) {
    uint64_t h = isdb__hash_reals(ISDB__FNV_BASIS, x, p->cfg.d);
    isdb_real g = 1 - 1 / (isdb_real)p->cfg.min_memory;
    int j, again = 0;
    for (j = 0; j < ISDB_ADAPTIVE_SEEN; ++j) again |= p->seen[j] == h;
    p->recur = g * p->recur + (again ? 1 - g : 0);
    if (!again) {
        p->seen[p->seen_next] = h;
        p->seen_next = (p->seen_next + 1) % ISDB_ADAPTIVE_SEEN;
    }
}

#if defined(ISDB__AVX2) && !ISDB_REAL_IS_FLOAT && (defined(__clang__) || __GNUC__ >= 12)
/* The 4 x 4 transpose of rows a, b, c, e (out[j] lane i: row i's value j). */
ISDB__AVX2 ISDB__PRIVATE __attribute__((always_inline)) inline void isdb__transpose4_avx2(isdb__vec32 a, isdb__vec32 b,
                                                                                   isdb__vec32 c, isdb__vec32 e,
                                                                                   isdb__vec32 *out) {
    const isdb__vec32 t0 = __builtin_shufflevector(a, b, 0, 4, 2, 6), t1 = __builtin_shufflevector(a, b, 1, 5, 3, 7);
    const isdb__vec32 t2 = __builtin_shufflevector(c, e, 0, 4, 2, 6), t3 = __builtin_shufflevector(c, e, 1, 5, 3, 7);
    out[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
    out[1] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
    out[2] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
    out[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

/* w = L^-1 w in place, isdb__tri_solve's chain of operations for each row
   (w_i = (((w_i - L_i0 w_0) - L_i1 w_1) ... ) / L_ii, as the product with
   inv_diag), four rows a pass in the lanes of a 32-byte vector: each 4 x 4
   block of products L_ij w_j is formed row-wise and transposed, so lane
   r subtracts its row's terms in order of j; the diagonal block and the
   rows past the last multiple of four one at a time. */
ISDB__AVX2 ISDB__PRIVATE void isdb__fwd_solve4_avx2(int d, const isdb_real *ISDB__RESTRICT L,
                                                    const isdb_real *ISDB__RESTRICT inv_diag, isdb_real *ISDB__RESTRICT w) {
    int i, j;
    for (i = 0; i + 4 <= d; i += 4) {
        const isdb_real *L0 = L + i * d, *L1 = L0 + d, *L2 = L1 + d, *L3 = L2 + d;
        isdb__vec32 s = *(const isdb__vec32 *)(w + i), t[4];
        isdb_real s0, s1, s2, s3;
        for (j = 0; j < i; j += 4) {
            const isdb__vec32 wj = *(const isdb__vec32 *)(w + j);
            isdb__transpose4_avx2(*(const isdb__vec32 *)(L0 + j) * wj, *(const isdb__vec32 *)(L1 + j) * wj,
                                  *(const isdb__vec32 *)(L2 + j) * wj, *(const isdb__vec32 *)(L3 + j) * wj, t);
            s = s - t[0];
            s = s - t[1];
            s = s - t[2];
            s = s - t[3];
        }
        s0 = s[0];
        s1 = s[1];
        s2 = s[2];
        s3 = s[3];
        w[i] = s0 * inv_diag[i];
        s1 -= L1[i] * w[i];
        w[i + 1] = s1 * inv_diag[i + 1];
        s2 -= L2[i] * w[i];
        s2 -= L2[i + 1] * w[i + 1];
        w[i + 2] = s2 * inv_diag[i + 2];
        s3 -= L3[i] * w[i];
        s3 -= L3[i + 1] * w[i + 1];
        s3 -= L3[i + 2] * w[i + 2];
        w[i + 3] = s3 * inv_diag[i + 3];
    }
    for (; i < d; ++i) {
        const isdb_real *Li = L + i * d;
        isdb_real s = w[i];
        for (j = 0; j < i; ++j) s -= Li[j] * w[j];
        w[i] = s * inv_diag[i];
    }
}
#define ISDB__TRANSPOSE4_AVX2 1
#endif

/* Each estimator's prediction x.theta_k = (L_k^-1 x).z_k, w_k = L_k^-1 x
   left in its ridge's work as isdb__ridge_norm2 leaves it. The n solves
   go row by row together: each is the same chain of operations as
   isdb__tri_solve's, so the same bits, but the chains of different
   estimators are independent and overlap, where one solve after another
   waits on each row's sum (an addition's latency a term). Row i's sum
   starts from x_i itself (the value a copy of x in work would hold), so
   the row-by-row solves copy nothing (n calls to memcpy were 2% of the
   step at d = 2). */
ISDB__PRIVATE void isdb__adaptive_predict(isdb_adaptive *p, const isdb_real *x) {
    int i, j, k, n = p->n_est, d = p->cfg.d, rows = d;
#ifdef ISDB__TRANSPOSE4_AVX2
    /* from d = 16 one estimator at a time, four rows a vector (at d = 10
       the interleaved rows below were faster) */
    if (d >= 16 && __builtin_cpu_supports("avx2")) {
        for (k = 0; k < n; ++k) {
            isdb__copy(d, x, p->_est[k].ridge.work);
            isdb__fwd_solve4_avx2(d, p->_est[k].ridge.L, p->_est[k].ridge.inv_diag, p->_est[k].ridge.work);
        }
        rows = 0;
    }
#endif
    for (i = 0; i < rows; ++i) {
        /* Four estimators a pass: four independent sums in one loop. */
        for (k = 0; k + 4 <= n; k += 4) {
            const isdb__ridge *r0 = &p->_est[k].ridge, *r1 = &p->_est[k + 1].ridge, *r2 = &p->_est[k + 2].ridge,
                              *r3 = &p->_est[k + 3].ridge;
            const isdb_real *ISDB__RESTRICT L0 = r0->L + i * d, *ISDB__RESTRICT L1 = r1->L + i * d;
            const isdb_real *ISDB__RESTRICT L2 = r2->L + i * d, *ISDB__RESTRICT L3 = r3->L + i * d;
            isdb_real *ISDB__RESTRICT w0 = r0->work, *ISDB__RESTRICT w1 = r1->work;
            isdb_real *ISDB__RESTRICT w2 = r2->work, *ISDB__RESTRICT w3 = r3->work;
            isdb_real s0 = x[i], s1 = x[i], s2 = x[i], s3 = x[i];
            for (j = 0; j < i; ++j) {
                s0 -= L0[j] * w0[j];
                s1 -= L1[j] * w1[j];
                s2 -= L2[j] * w2[j];
                s3 -= L3[j] * w3[j];
            }
            w0[i] = s0 * r0->inv_diag[i];
            w1[i] = s1 * r1->inv_diag[i];
            w2[i] = s2 * r2->inv_diag[i];
            w3[i] = s3 * r3->inv_diag[i];
        }
        for (; k < n; ++k) {
            const isdb__ridge *r = &p->_est[k].ridge;
            const isdb_real *ISDB__RESTRICT Li = r->L + i * d;
            isdb_real *ISDB__RESTRICT w = r->work;
            isdb_real s = x[i];
            for (j = 0; j < i; ++j) s -= Li[j] * w[j];
            w[i] = s * r->inv_diag[i];
        }
    }
    for (k = 0; k < n; ++k) p->_pred[k] = isdb__dot(d, p->_est[k].ridge.work, p->_est[k].ridge.z);
}

#if defined(ISDB__AVX2) && !ISDB_REAL_IS_FLOAT
/* isdb__adaptive_rotations for four estimators at once: square root and division are
   correctly rounded in every lane as in scalar code, so the same bits;
   their latencies, which chain one column to the next, overlap. */
ISDB__AVX2 ISDB__PRIVATE void isdb__adaptive_rotations4_avx2(isdb__ridge *const *ridges, int k, const isdb_real *root,
                                                             isdb_real *y, isdb_real *prod_c, isdb_real *c, isdb_real *s) {
    isdb__ridge *r0 = ridges[0], *r1 = ridges[1], *r2 = ridges[2], *r3 = ridges[3];
    const int kk = k * r0->d + k;
    const isdb__vec32 one = isdb__splat32(1), rv = *(const isdb__vec32 *)root, yv = *(const isdb__vec32 *)y;
    const isdb__vec32 l0 = {r0->L[kk], r1->L[kk], r2->L[kk], r3->L[kk]};
    const isdb__vec32 wk = {r0->work[k], r1->work[k], r2->work[k], r3->work[k]};
    const isdb__vec32 z0 = {r0->z[k], r1->z[k], r2->z[k], r3->z[k]};
    const isdb__vec32 l = l0 * rv, rk = __builtin_ia32_sqrtpd256(l * l + wk * wk), inv = one / rk;
    const isdb__vec32 ce = l * inv, se = wk * inv, zk = z0 * rv, zn = ce * zk + se * yv;
    *(isdb__vec32 *)y = ce * yv - se * zk;
    *(isdb__vec32 *)prod_c = *(const isdb__vec32 *)prod_c * ce;
    *(isdb__vec32 *)c = ce;
    *(isdb__vec32 *)s = se;
    r0->L_next[kk] = rk[0];
    r1->L_next[kk] = rk[1];
    r2->L_next[kk] = rk[2];
    r3->L_next[kk] = rk[3];
    r0->inv_diag[k] = inv[0];
    r1->inv_diag[k] = inv[1];
    r2->inv_diag[k] = inv[2];
    r3->inv_diag[k] = inv[3];
    r0->z[k] = zn[0];
    r1->z[k] = zn[1];
    r2->z[k] = zn[2];
    r3->z[k] = zn[3];
}
#endif

/* Column k's rotation in the rank-one step of each of the m estimators
   (root: sqrt(gamma), by which L is scaled as it is read):
   isdb__chol_sweep's operations for the column's diagonal, z and y. */
ISDB__PRIVATE void isdb__adaptive_rotations(int m, isdb__ridge *const *ridges, int k, const isdb_real *root,
                                            isdb_real *y, isdb_real *prod_c, isdb_real *c, isdb_real *s) {
    int e = 0;
#if defined(ISDB__AVX2) && !ISDB_REAL_IS_FLOAT
    if (__builtin_cpu_supports("avx2"))
        for (; e + 4 <= m; e += 4) isdb__adaptive_rotations4_avx2(ridges + e, k, root + e, y + e, prod_c + e, c + e, s + e);
#endif
    for (; e < m; ++e) {
        isdb__ridge *r = ridges[e];
        const int d = r->d;
        const isdb_real l = r->L[k * d + k] * root[e], wk = r->work[k], rk = isdb__sqrt(l * l + wk * wk), inv = 1 / rk;
        const isdb_real ce = l * inv, se = wk * inv, zk = r->z[k] * root[e];
        r->L_next[k * d + k] = rk;
        prod_c[e] *= ce;
        r->inv_diag[k] = inv;
        r->z[k] = ce * zk + se * y[e];
        y[e] = ce * y[e] - se * zk;
        c[e] = ce;
        s[e] = se;
    }
}

/* One update's discounts and pads for isdb__adaptive_grams: V takes g
   and pad, Vt g2 and pad2, W g, the weight w and pad_w. */
typedef struct isdb__adaptive_gram_steps {
    isdb_real g, pad, g2, pad2, w, pad_w;
} isdb__adaptive_gram_steps;

/* Row i of isdb__adaptive_grams from column j on, one value at a time,
   then the diagonal's pads. */
ISDB__PRIVATE void isdb__adaptive_grams_tail(int d, isdb_real *ISDB__RESTRICT V, isdb_real *ISDB__RESTRICT Vt,
                                             isdb_real *ISDB__RESTRICT W, const isdb__adaptive_gram_steps *s,
                                             const isdb_real *x, int i, int j) {
    const isdb_real wx = s->w * x[i];
    for (; j <= i; ++j) {
        const isdb_real xx = x[i] * x[j];
        V[i * d + j] = s->g * V[i * d + j] + xx;
        if (Vt) Vt[i * d + j] = s->g2 * Vt[i * d + j] + xx;
        if (W) W[i * d + j] = s->g * W[i * d + j] + wx * x[j];
    }
    V[i * d + i] += s->pad;
    if (Vt) Vt[i * d + i] += s->pad2;
    if (W) W[i * d + i] += s->pad_w;
}

#if defined(ISDB__AVX2) && !ISDB_REAL_IS_FLOAT
/* isdb__adaptive_sweep's two-column pass over rows i.. below columns k
   and k + 1, four rows at a time in 32-byte vectors (AVX2 at run time,
   no FMA: every lane takes the scalar operations, so the same bits);
   returns the first row it left. */
ISDB__AVX2 ISDB__PRIVATE int isdb__adaptive_rows_avx2(int d, int k, int i, const isdb_real *ISDB__RESTRICT src,
                                                      isdb_real *ISDB__RESTRICT dst, isdb_real *ISDB__RESTRICT w,
                                                      isdb_real ca, isdb_real sa, isdb_real cb, isdb_real sb, isdb_real re) {
    const isdb__vec32 cav = isdb__splat32(ca), sav = isdb__splat32(sa), cbv = isdb__splat32(cb), sbv = isdb__splat32(sb),
                      rv = isdb__splat32(re);
    for (; i + 3 < d; i += 4) {
        const isdb_real *r0 = src + i * d + k, *r1 = r0 + d, *r2 = r1 + d, *r3 = r2 + d;
        isdb_real *o0 = dst + i * d + k, *o1 = o0 + d, *o2 = o1 + d, *o3 = o2 + d;
        const isdb__vec32 la0 = {r0[0], r1[0], r2[0], r3[0]}, lb0 = {r0[1], r1[1], r2[1], r3[1]};
        const isdb__vec32 la = la0 * rv, lb = lb0 * rv;
        isdb__vec32 wv = *(const isdb__vec32 *)(w + i), da, db;
        da = cav * la + sav * wv;
        wv = cav * wv - sav * la;
        db = cbv * lb + sbv * wv;
        wv = cbv * wv - sbv * lb;
        *(isdb__vec32 *)(w + i) = wv;
        o0[0] = da[0];
        o0[1] = db[0];
        o1[0] = da[1];
        o1[1] = db[1];
        o2[0] = da[2];
        o2[1] = db[2];
        o3[0] = da[3];
        o3[1] = db[3];
    }
    return i;
}

typedef long long isdb__mask32 __attribute__((vector_size(32)));

/* Lane by lane m ? x : y (m's lanes all ones or all zeros). */
ISDB__AVX2 ISDB__PRIVATE __attribute__((always_inline)) inline isdb__vec32 isdb__pick32(isdb__mask32 m, isdb__vec32 x,
                                                                                  isdb__vec32 y) {
    return (isdb__vec32)(((isdb__mask32)x & m) | ((isdb__mask32)y & ~m));
}

/* isdb__adaptive_grams in 32-byte vectors (AVX2 at run time, no FMA). */
ISDB__AVX2 ISDB__PRIVATE void isdb__adaptive_grams_avx2(int d, isdb_real *ISDB__RESTRICT V, isdb_real *ISDB__RESTRICT Vt,
                                                        isdb_real *ISDB__RESTRICT W, const isdb__adaptive_gram_steps *s,
                                                        const isdb_real *x) {
    const isdb__vec32 gv = isdb__splat32(s->g), g2v = isdb__splat32(s->g2), pad = isdb__splat32(s->pad),
                      pad2 = isdb__splat32(s->pad2), pad_w = isdb__splat32(s->pad_w);
    int i, j;
    for (i = 0; i < d; ++i) {
        const isdb__vec32 xi = isdb__splat32(x[i]), wxi = isdb__splat32(s->w * x[i]);
        /* the vectors below the diagonal */
        j = 0;
        if (Vt && W)
            for (; j + 4 <= i; j += 4) {
                const isdb__vec32 xj = *(const isdb__vec32 *)(x + j), xx = xi * xj;
                isdb__vec32 *v = (isdb__vec32 *)(V + i * d + j), *vt = (isdb__vec32 *)(Vt + i * d + j),
                            *vw = (isdb__vec32 *)(W + i * d + j);
                *v = gv * *v + xx;
                *vt = g2v * *vt + xx;
                *vw = gv * *vw + wxi * xj;
            }
        else if (Vt)
            for (; j + 4 <= i; j += 4) {
                const isdb__vec32 xx = xi * *(const isdb__vec32 *)(x + j);
                isdb__vec32 *v = (isdb__vec32 *)(V + i * d + j), *vt = (isdb__vec32 *)(Vt + i * d + j);
                *v = gv * *v + xx;
                *vt = g2v * *vt + xx;
            }
        else if (W)
            for (; j + 4 <= i; j += 4) {
                const isdb__vec32 xj = *(const isdb__vec32 *)(x + j);
                isdb__vec32 *v = (isdb__vec32 *)(V + i * d + j), *vw = (isdb__vec32 *)(W + i * d + j);
                *v = gv * *v + xi * xj;
                *vw = gv * *vw + wxi * xj;
            }
        else
            for (; j + 4 <= i; j += 4) {
                isdb__vec32 *v = (isdb__vec32 *)(V + i * d + j);
                *v = gv * *v + xi * *(const isdb__vec32 *)(x + j);
            }
        /* The vector that holds the diagonal, where it ends within the
           matrix: its lanes up to the diagonal take the update, the
           diagonal's lane its pad after it, the lanes past it keep their
           values. A scalar pad added right after the vector's store
           waited for it (a quarter of this function's time at d = 10). */
        if (j + 4 <= d) {
            const isdb__vec32 xj = *(const isdb__vec32 *)(x + j), xx = xi * xj;
            const isdb__vec32 lane = {(isdb_real)j, (isdb_real)(j + 1), (isdb_real)(j + 2), (isdb_real)(j + 3)},
                              at = isdb__splat32((isdb_real)i);
            const isdb__mask32 low = lane <= at, diag = lane == at;
            isdb__vec32 *v = (isdb__vec32 *)(V + i * d + j), t = gv * *v + xx;
            *v = isdb__pick32(low, isdb__pick32(diag, t + pad, t), *v);
            if (Vt) {
                isdb__vec32 *vt = (isdb__vec32 *)(Vt + i * d + j);
                t = g2v * *vt + xx;
                *vt = isdb__pick32(low, isdb__pick32(diag, t + pad2, t), *vt);
            }
            if (W) {
                isdb__vec32 *vw = (isdb__vec32 *)(W + i * d + j);
                t = gv * *vw + wxi * xj;
                *vw = isdb__pick32(low, isdb__pick32(diag, t + pad_w, t), *vw);
            }
            continue;
        }
        /* else one value at a time, as isdb__adaptive_grams_tail (a call
           there took 17% of the step at d = 50: gcc does not inline it
           into this AVX2 function) */
        for (; j <= i; ++j) {
            const isdb_real xx = x[i] * x[j];
            V[i * d + j] = s->g * V[i * d + j] + xx;
            if (Vt) Vt[i * d + j] = s->g2 * Vt[i * d + j] + xx;
            if (W) W[i * d + j] = s->g * W[i * d + j] + wxi[0] * x[j];
        }
        V[i * d + i] += s->pad;
        if (Vt) Vt[i * d + i] += s->pad2;
        if (W) W[i * d + i] += s->pad_w;
    }
}
#endif

#ifdef ISDB__TRANSPOSE4_AVX2
/* Columns k .. k + 3 of one estimator's sweep on rows i .. d - 1 (i >= k
   + 4), four rows a pass: each row's four values are read as one vector,
   scaled, and transposed so lane r holds row i + r; then column k + c's
   rotation (c[c], s[c]) in every lane, in order of c, with the scalar
   operations (so the same bits); the four outputs are transposed back.
   The rows past the last multiple of four one at a time. */
ISDB__AVX2 ISDB__PRIVATE void isdb__adaptive_rows4_avx2(int d, int k, int i, const isdb_real *ISDB__RESTRICT src,
                                                       isdb_real *ISDB__RESTRICT dst, isdb_real *ISDB__RESTRICT w,
                                                       const isdb_real *cs, const isdb_real *sn, isdb_real re) {
    const isdb__vec32 rv = isdb__splat32(re);
    const isdb__vec32 c0 = isdb__splat32(cs[0]), c1 = isdb__splat32(cs[1]), c2 = isdb__splat32(cs[2]),
                      c3 = isdb__splat32(cs[3]);
    const isdb__vec32 s0 = isdb__splat32(sn[0]), s1 = isdb__splat32(sn[1]), s2 = isdb__splat32(sn[2]),
                      s3 = isdb__splat32(sn[3]);
    int c;
    for (; i + 4 <= d; i += 4) {
        const isdb_real *r0 = src + i * d + k;
        isdb_real *o0 = dst + i * d + k;
        isdb__vec32 l[4], o[4], wv = *(const isdb__vec32 *)(w + i);
        isdb__transpose4_avx2(*(const isdb__vec32 *)r0 * rv, *(const isdb__vec32 *)(r0 + d) * rv,
                              *(const isdb__vec32 *)(r0 + 2 * d) * rv, *(const isdb__vec32 *)(r0 + 3 * d) * rv, l);
        o[0] = c0 * l[0] + s0 * wv;
        wv = c0 * wv - s0 * l[0];
        o[1] = c1 * l[1] + s1 * wv;
        wv = c1 * wv - s1 * l[1];
        o[2] = c2 * l[2] + s2 * wv;
        wv = c2 * wv - s2 * l[2];
        o[3] = c3 * l[3] + s3 * wv;
        wv = c3 * wv - s3 * l[3];
        *(isdb__vec32 *)(w + i) = wv;
        isdb__transpose4_avx2(o[0], o[1], o[2], o[3], l);
        *(isdb__vec32 *)o0 = l[0];
        *(isdb__vec32 *)(o0 + d) = l[1];
        *(isdb__vec32 *)(o0 + 2 * d) = l[2];
        *(isdb__vec32 *)(o0 + 3 * d) = l[3];
    }
    for (; i < d; ++i) {
        isdb_real wi = w[i];
        for (c = 0; c < 4; ++c) {
            const isdb_real la = src[i * d + k + c] * re;
            dst[i * d + k + c] = cs[c] * la + sn[c] * wi;
            wi = cs[c] * wi - sn[c] * la;
        }
        w[i] = wi;
    }
}

/* isdb__adaptive_sweep's columns k .. k + 3 (k + 4 <= d) for the m
   estimators: column k + t's rotation, then its values in the rows of the
   4 x 4 diagonal block below it (which the next column's rotation needs),
   then the rows below the block, four columns at once
   (isdb__adaptive_rows4_avx2). Each value takes the operations of the
   two-column pass in the same order. */
ISDB__PRIVATE void isdb__adaptive_cols4(int d, int m, isdb__ridge *const *ridges, const isdb_real *root, int k,
                                        isdb_real *yk, isdb_real *prod_c, int zero_upper) {
    isdb_real c[4][ISDB_ADAPTIVE_MAX_ESTIMATORS + 1], s[4][ISDB_ADAPTIVE_MAX_ESTIMATORS + 1];
    int t, i, e;
    for (t = 0; t < 4; ++t) {
        isdb__adaptive_rotations(m, ridges, k + t, root, yk, prod_c, c[t], s[t]);
        for (e = 0; e < m; ++e) {
            const isdb__ridge *r = ridges[e];
            isdb_real *w = r->work;
            for (i = k + t + 1; i < k + 4; ++i) {
                const isdb_real l = r->L[i * d + k + t] * root[e];
                r->L_next[i * d + k + t] = c[t][e] * l + s[t][e] * w[i];
                w[i] = c[t][e] * w[i] - s[t][e] * l;
            }
        }
    }
    for (e = 0; e < m; ++e) {
        isdb__ridge *r = ridges[e];
        const isdb_real cs[4] = {c[0][e], c[1][e], c[2][e], c[3][e]}, sn[4] = {s[0][e], s[1][e], s[2][e], s[3][e]};
        if (zero_upper)
            for (t = 0; t < 4; ++t)
                for (i = k + t + 1; i < d; ++i) r->L_next[(k + t) * d + i] = 0;
        isdb__adaptive_rows4_avx2(d, k, k + 4, r->L, r->L_next, r->work, cs, sn, root[e]);
    }
}
#endif

/* The rank-one steps of the m estimators in `ridges` (their discounts'
   square roots in root, 1 for the unbounded one), as isdb__chol_discount
   takes each (scale by root, then isdb__chol_sweep from column 0 into
   L_next with z carried and the upper part of L_next zeroed), with the
   same operations on every value in the same order, so the same bits:
   - the scaling is done on each value as the sweep reads it (L is
     scratch once L_next holds the factor, so nothing reads a scaled copy);
   - the estimators advance together, so the square roots and divisions
     that chain one column to the next in each overlap across estimators;
   - two columns a pass: each row below them takes column k's rotation,
     then k + 1's, on its w_i, as the column-by-column sweep does; in
     double with vectors, four rows at a time with AVX2, two with 16-byte
     vectors (the rows' entries gathered into one vector per column and
     back).
   Each ridge's work holds x on entry. prod_c[e]: the product of
   estimator e's cosines. The upper part of L_next is zeroed only with
   zero_upper (otherwise it is zero already: isdb__adaptive_learn). */
ISDB__PRIVATE void isdb__adaptive_sweep(int d, int m, isdb__ridge *const *ridges, const isdb_real *root, isdb_real y,
                                        isdb_real *prod_c, int zero_upper) {
    /* m: the estimators and hold's long-run ridge */
    isdb_real c0[ISDB_ADAPTIVE_MAX_ESTIMATORS + 1], s0[ISDB_ADAPTIVE_MAX_ESTIMATORS + 1];
    isdb_real yk[ISDB_ADAPTIVE_MAX_ESTIMATORS + 1], c1[ISDB_ADAPTIVE_MAX_ESTIMATORS + 1];
    isdb_real s1[ISDB_ADAPTIVE_MAX_ESTIMATORS + 1];
    int i, k, e;
#if defined(ISDB__AVX2) && !ISDB_REAL_IS_FLOAT
    const int avx2 = d >= 6 && __builtin_cpu_supports("avx2");
#endif
    for (e = 0; e < m; ++e) {
        yk[e] = y;
        prod_c[e] = 1;
        c1[e] = s1[e] = 0;
    }
    k = 0;
#ifdef ISDB__TRANSPOSE4_AVX2
    if (avx2 && d >= 16) /* below, the two-column passes were faster (d = 10: 1.07x) */
        for (; k + 4 <= d; k += 4) isdb__adaptive_cols4(d, m, ridges, root, k, yk, prod_c, zero_upper);
#endif
    for (; k < d; k += 2) {
        const int pair = k + 1 < d;
        isdb__adaptive_rotations(m, ridges, k, root, yk, prod_c, c0, s0);
        if (pair) {
            for (e = 0; e < m; ++e) {
                const isdb__ridge *r = ridges[e];
                isdb_real *w = r->work;
                const isdb_real l = r->L[(k + 1) * d + k] * root[e];
                r->L_next[(k + 1) * d + k] = c0[e] * l + s0[e] * w[k + 1];
                w[k + 1] = c0[e] * w[k + 1] - s0[e] * l;
            }
            isdb__adaptive_rotations(m, ridges, k + 1, root, yk, prod_c, c1, s1);
        }
        for (e = 0; e < m; ++e) {
            const isdb_real *ISDB__RESTRICT src = ridges[e]->L;
            isdb_real *ISDB__RESTRICT dst = ridges[e]->L_next, *ISDB__RESTRICT w = ridges[e]->work;
            const isdb_real ca = c0[e], sa = s0[e], cb = c1[e], sb = s1[e], re = root[e];
            if (zero_upper) {
                for (i = k + 1; i < d; ++i) dst[k * d + i] = 0;
                for (i = k + 2; i < d; ++i) dst[(k + 1) * d + i] = 0;
            }
            i = k + 2;
#if defined(ISDB__AVX2) && !ISDB_REAL_IS_FLOAT
            if (avx2) i = isdb__adaptive_rows_avx2(d, k, i, src, dst, w, ca, sa, cb, sb, re);
#endif
#if defined(ISDB__VEC_LANES) && !ISDB_REAL_IS_FLOAT
            {
                const isdb__vec cav = isdb__splat(ca), sav = isdb__splat(sa), cbv = isdb__splat(cb),
                                sbv = isdb__splat(sb), rv = isdb__splat(re);
                for (; i + 1 < d; i += 2) {
                    const isdb__vec u = *(const isdb__vec *)(src + i * d + k), v = *(const isdb__vec *)(src + (i + 1) * d + k);
                    const isdb__vec la0 = {u[0], v[0]}, lb0 = {u[1], v[1]};
                    const isdb__vec la = la0 * rv, lb = lb0 * rv;
                    isdb__vec wv = *(const isdb__vec *)(w + i);
                    const isdb__vec da = cav * la + sav * wv;
                    isdb__vec db, out0, out1;
                    wv = cav * wv - sav * la;
                    db = cbv * lb + sbv * wv;
                    wv = cbv * wv - sbv * lb;
                    *(isdb__vec *)(w + i) = wv;
                    out0[0] = da[0];
                    out0[1] = db[0];
                    out1[0] = da[1];
                    out1[1] = db[1];
                    *(isdb__vec *)(dst + i * d + k) = out0;
                    *(isdb__vec *)(dst + (i + 1) * d + k) = out1;
                }
            }
#endif
            for (; i < d; ++i) {
                const isdb_real la = src[i * d + k] * re, lb = src[i * d + k + 1] * re;
                isdb_real wi = w[i];
                dst[i * d + k] = ca * la + sa * wi;
                wi = ca * wi - sa * la;
                dst[i * d + k + 1] = cb * lb + sb * wi;
                w[i] = cb * wi - sb * lb;
            }
        }
    }
}

/* V <- gamma V + x x^T + (1 - gamma) lambda I, Vt <- gamma^2 Vt + x x^T +
   (1 - gamma^2) lambda I and W <- gamma W + w x x^T + pad_w I in one pass
   (Vt or W NULL: left out), each value as isdb__discount_gram computes
   it (x_i x_j formed once for V and Vt; W's term (w x_i) x_j). */
ISDB__PRIVATE void isdb__adaptive_grams(int d, isdb_real *ISDB__RESTRICT V, isdb_real *ISDB__RESTRICT Vt,
                                        isdb_real *ISDB__RESTRICT W, const isdb__adaptive_gram_steps *s,
                                        const isdb_real *x) {
    int i, j;
#if defined(ISDB__AVX2) && !ISDB_REAL_IS_FLOAT
    if (d >= 4 && __builtin_cpu_supports("avx2")) {
        isdb__adaptive_grams_avx2(d, V, Vt, W, s, x);
        return;
    }
#endif
    for (i = 0; i < d; ++i) {
        j = 0;
#if defined(ISDB__VEC_LANES) && !ISDB_REAL_IS_FLOAT
        {
            const isdb__vec xi = isdb__splat(x[i]), wxi = isdb__splat(s->w * x[i]), gv = isdb__splat(s->g),
                            g2v = isdb__splat(s->g2);
            for (; j + ISDB__VLEN <= i + 1; j += ISDB__VLEN) {
                const isdb__vec xj = *(const isdb__vec *)(x + j), xx = xi * xj;
                isdb__vec *v = (isdb__vec *)(V + i * d + j);
                *v = gv * *v + xx;
                if (Vt) {
                    isdb__vec *vt = (isdb__vec *)(Vt + i * d + j);
                    *vt = g2v * *vt + xx;
                }
                if (W) {
                    isdb__vec *vw = (isdb__vec *)(W + i * d + j);
                    *vw = gv * *vw + wxi * xj;
                }
            }
        }
#endif
        isdb__adaptive_grams_tail(d, V, Vt, W, s, x, i, j);
    }
}

/* Each estimator's isdb__ridge_add_discounted and its Vt's
   isdb__discount_gram, value for value: the Gram sums and b first, then
   the refactorisations that are due, then the rank-one steps of all the
   others together (isdb__adaptive_sweep); ln gamma, the same at every
   step, is the estimator's log_gamma, taken once at layout (d is not:
   ISD runs the learner in a lower dimension than its layout's). */
/* A ridge's periodic refactorisation from its exact Gram sum, when due:
   1 if it replaced the factor (no rank-one step this round); a failed
   one leaves part of V in L_next, whose upper zeros the next steps write. */
ISDB__PRIVATE int isdb__adaptive_refreshed(isdb_adaptive *p, isdb__ridge *r) {
    if (r->refresh <= 0 || ++r->since_refresh < r->refresh) return 0;
    r->since_refresh = 0;
    if (isdb__ridge_refactor(r)) {
        isdb__ridge_commit(r);
        r->logdet = isdb_chol_logdet(r->d, r->L);
        return 1;
    }
    p->upper_dirty = 2;
    return 0;
}

#if ISDB_REAL_IS_FLOAT
/* The cap on a squared error in W's float sum (e^2 x x^T, unbounded with
   the last estimator's gamma 1). An entry's increment is then at most
   1e12 ISDB_INPUT_MAX^2 = 1e30, and a float sum of such increments stops
   growing below 2^26 of them (the increment falls under half an ulp), so
   W stays below 7e37 < FLT_MAX however long the run; ISDB__SQRT_HUGE
   (1e18) let it overflow after about 340 updates at the input bound.
   1e12 is the square of the largest R a float config takes (1e6), and
   the widths use the smaller of R and W's estimate. */
#define ISDB__ADAPTIVE_W_ERR2_MAX 1e12f
#endif

ISDB__PRIVATE void isdb__adaptive_learn(isdb_adaptive *p, const isdb_real *x, isdb_real y) {
    isdb__ridge *swept[ISDB_ADAPTIVE_MAX_ESTIMATORS + 1]; /* and hold's */
    isdb_real root[ISDB_ADAPTIVE_MAX_ESTIMATORS + 1], prod_c[ISDB_ADAPTIVE_MAX_ESTIMATORS + 1];
    int i, k, m = 0, d = p->cfg.d;
    for (k = 0; k < p->n_est; ++k) {
        isdb__adaptive_est *e = &p->_est[k];
        isdb__ridge *r = &e->ridge;
        const isdb_real g = e->gamma;
#if ISDB_REAL_IS_FLOAT
        int j;
        for (i = 0; i < d; ++i) {
            for (j = 0; j <= i; ++j)
                isdb__sum_lo(r->V + i * d + j, r->V_lo + i * d + j, g, x[i] * x[j] + (i == j ? (1 - g) * r->lambda : 0));
            isdb__sum_lo(r->b + i, r->b_lo + i, g, y * x[i]);
        }
        if (e->Vt) isdb__discount_gram(d, e->Vt, e->Vt, x, 1, g * g, (1 - g) * (1 + g) * p->cfg.lambda);
#else
        {
            isdb__adaptive_gram_steps st;
            const isdb_real err = y - p->_pred[k];
            st.g = g;
            st.pad = (1 - g) * r->lambda;
            st.g2 = g * g;
            st.pad2 = (1 - g) * (1 + g) * p->cfg.lambda;
            st.w = err * err < ISDB__SQRT_HUGE ? err * err : ISDB__SQRT_HUGE;
            st.pad_w = (1 - g) * isdb__adaptive_w_prior(&p->cfg);
            isdb__adaptive_grams(d, r->V, e->Vt, e->W, &st, x);
        }
        for (i = 0; i < d; ++i) r->b[i] = g * r->b[i] + y * x[i];
#endif
#if ISDB_REAL_IS_FLOAT
        if (e->W) {
            isdb_real err = y - p->_pred[k];
            isdb__discount_gram(d, e->W, e->W, x,
                                 err * err < ISDB__ADAPTIVE_W_ERR2_MAX ? err * err : ISDB__ADAPTIVE_W_ERR2_MAX, g,
                                 (1 - g) * isdb__adaptive_w_prior(&p->cfg));
        }
#endif
        if (e->count < INT_MAX) ++e->count;
        if (isdb__adaptive_refreshed(p, r)) continue;
        if (g < 1) r->logdet += (isdb_real)d * e->log_gamma;
        root[m] = g < 1 ? isdb__sqrt(g) : 1;
        isdb__copy(d, x, r->work);
        swept[m++] = r;
    }
    if (p->cfg.hold) {
        /* hold's long-run ridge: isdb__ridge_add's values (gamma 1), its
           rank-one step beside the estimators' (alone it took 5% of the
           step at d = 10 and 50, K = 10) */
        isdb__ridge *r = &p->hold_ridge;
#if ISDB_REAL_IS_FLOAT
        isdb__ridge_add(r, x, y);
#else
        isdb__discount_gram(d, r->V, r->V, x, 1, 1, 0);
        for (i = 0; i < d; ++i) r->b[i] += y * x[i];
        if (!isdb__adaptive_refreshed(p, r)) {
            root[m] = 1;
            isdb__copy(d, x, r->work);
            swept[m++] = r;
        }
#endif
    }
    isdb__adaptive_sweep(d, m, swept, root, y, prod_c, p->upper_dirty > 0);
    if (p->upper_dirty > 0) --p->upper_dirty;
    for (k = 0; k < m; ++k) {
        isdb__ridge *r = swept[k];
        isdb_real *tmp = r->L;
        r->logdet += isdb__log(1 / (prod_c[k] * prod_c[k]));
        r->L = r->L_next;
        r->L_next = tmp;
    }
}

/* The Kalman estimator that plays after the memory `played` is picked:
   the one of lowest discounted squared error, unless that memory beats it
   at play_threshold on their sums (isdb__adaptive_beats with the sum's
   sign turned), once more than min_memory updates came; else -1. The
   burden is on the memory: on a smooth drift a Kalman estimator predicts
   about as well as the best memory but plays better with its narrow
   width (rotation 355.7 when it had to beat the memory, 297.0 when the
   memory has to beat it; bench/README.md), and after a jump the cut
   memory beats it within a few rounds. Never while hold holds or cut AUTO
   sees recurring features (the longest memory plays there, with its own
   width: the narrow one explores too little on a fixed arm set). */
ISDB__PRIVATE int isdb__adaptive_kalman_choose(const isdb_adaptive *p, int holding) {
    const int n = p->n_est, nk = p->cfg.kalman, j = p->played;
    const isdb_real zz = p->cfg.play_threshold * p->cfg.play_threshold, floor4 = 4 * isdb__adaptive_noise2(p);
    int k, best = 0;
    if (nk == 0 || p->kalman_count <= p->cfg.min_memory || p->recur >= ISDB__R(0.5) || holding)
        return -1;
    for (k = 1; k < nk; ++k)
        if (p->_k_err[k] < p->_k_err[best]) best = k;
    k = best * n + j;
    return isdb__adaptive_beats(-p->_k_sum[k], p->_k_sq[k], p->_k_gap[k], zz, floor4) ? -1 : best;
}

ISDB__PRIVATE isdb_result isdb__adaptive_update(isdb_policy *bp, int arm, const isdb_real *x, isdb_real y) {
    isdb_adaptive *p = (isdb_adaptive *)bp;
    int cut, holding;
    (void)arm;
    if (p->cfg.cut == ISDB_ADAPTIVE_CUT_AUTO || p->cfg.kalman) isdb__adaptive_seen(p, x);
    isdb__adaptive_predict(p, x);
    if (p->cfg.hold) isdb__adaptive_hold_learn(p, x, y);
    cut = isdb__adaptive_test(p, y);
    holding = isdb__adaptive_holding(p);
    if (holding) cut = -1;
    isdb__adaptive_learn(p, x, y);
    if (p->cfg.kalman) isdb__adaptive_kalman_learn(p, x, y);
    if (cut >= 0) {
        isdb__adaptive_cut(p, cut);
        holding = isdb__adaptive_holding(p); /* the cut moved the error sums behind s2 */
    }
    /* hold compares with the pick on the test's sums, which follows a
       change of direction within ~memory_i rounds; the play rule's longer
       sums choose what plays (without hold the first pick is not needed) */
    if (p->cfg.hold || !p->_play_sum) p->normal = isdb__adaptive_choose(p, p->_sum, p->_sq, p->_gap);
    p->played = holding          ? p->n_est - 1
                : p->_play_sum ? isdb__adaptive_choose(p, p->_play_sum, p->_play_sq, p->_play_gap)
                               : p->normal;
    p->kalman_played = isdb__adaptive_kalman_choose(p, holding);
    return ISDB_OK;
}

/* hold's state: the long-run ridge, the scale fits and the evidence. */
ISDB__COLD_PRIVATE void isdb__adaptive_hold_serialize(isdb_adaptive *p, isdb_ser *s) {
    const int m = p->n_est - 1;
    isdb__ser_int(s, &p->normal, 0, m);
    isdb__ser_real(s, &p->evidence, 1);
    isdb__ridge_serialize(&p->hold_ridge, s, p->cfg.refresh, 0, p->cfg.lambda, 0);
    isdb__ser_real_range(s, p->_fit, m, 0, ISDB__REAL_MAX / 2);
    isdb__ser_real_range(s, p->_fit + m, m, -ISDB__REAL_MAX / 2, ISDB__REAL_MAX / 2);
    isdb__ser_real_range(s, p->_fit + 2 * m, m, 0, ISDB__REAL_MAX / 2);
}

/* The Kalman estimators' state (only with kalman > 0, so a config
   without them keeps 1.0.0's layout): P symmetric, finite, its diagonal
   at least the smallest normal real (what isdb__adaptive_kalman_learn
   keeps). */
ISDB__COLD_PRIVATE void isdb__adaptive_kalman_serialize(isdb_adaptive *p, isdb_ser *s) {
    const int d = p->cfg.d, n = p->n_est, nk = p->cfg.kalman;
    isdb__ser_view P;
    int k, i, j;
    isdb__ser_int(s, &p->kalman_played, -1, nk - 1);
    isdb__ser_require(s, (uint64_t)isdb__ser_int(s, &p->kalman_count, 0, INT_MAX) <= s->t);
    isdb__ser_real(s, p->_k_theta, nk * d);
    P = isdb__ser_view_real(s, p->_k_P, nk * d * d);
    if (isdb__ser_checking(s, P, P))
        for (k = 0; k < nk; ++k)
            for (i = 0; i < d; ++i) {
                isdb__ser_require(s, isdb__sv(P, k * d * d + i * d + i) >= ISDB__REAL_MIN);
                for (j = 0; j < i; ++j)
                    isdb__ser_require(s, isdb__sv(P, k * d * d + i * d + j) == isdb__sv(P, k * d * d + j * d + i));
            }
    isdb__ser_real_range(s, p->_k_err, nk, 0, ISDB__REAL_MAX);
    isdb__ser_real(s, p->_k_sum, nk * n);
    isdb__ser_real_range(s, p->_k_sq, nk * n, 0, ISDB__REAL_MAX);
    isdb__ser_real_range(s, p->_k_gap, nk * n, 0, ISDB__REAL_MAX);
}

/* A set of pair sums (the test's or the play rule's): S, Q and G, n x n
   each, kept for pairs i < j only (Q and G >= 0). */
ISDB__COLD_PRIVATE void isdb__adaptive_pairs_serialize(isdb_ser *s, int n, isdb_real *S, isdb_real *Q, isdb_real *G) {
    isdb__ser_view sum = isdb__ser_view_real(s, S, n * n), sq = isdb__ser_view_in(s, Q, n * n, 0, ISDB__REAL_MAX),
                   gap = isdb__ser_view_in(s, G, n * n, 0, ISDB__REAL_MAX);
    int k;
    if (!isdb__ser_checking(s, sum, sq) || !isdb__ser_checking(s, gap, gap)) return;
    for (k = 0; k < n * n; ++k)
        if (k % n <= k / n)
            isdb__ser_require(s, isdb__sv(sum, k) == 0 && isdb__sv(sq, k) == 0 && isdb__sv(gap, k) == 0);
}

ISDB__COLD_PRIVATE void isdb__adaptive_serialize(isdb_policy *bp, isdb_ser *s) {
    isdb_adaptive *p = (isdb_adaptive *)bp;
    const isdb_adaptive_config *c = &p->cfg;
    int k, n = p->n_est;
    isdb_real lo = c->lambda;
    isdb__ser_int(s, &p->played, 0, n - 1);
    isdb__ser_require(s, isdb__ser_u64(s, &p->changes) <= s->t);
    isdb__ser_real_range(s, &p->recur, 1, 0, 1);
    for (k = 0; k < ISDB_ADAPTIVE_SEEN; ++k) isdb__ser_u64(s, &p->seen[k]);
    isdb__ser_int(s, &p->seen_next, 0, ISDB_ADAPTIVE_SEEN - 1);
    /* Between rebuilds a discounted factor lags its Gram sum by up to
       lambda I; a cut hands an estimator's factor to longer memories, so
       the factor of any estimator is at least lambda times the decay of
       every estimator over its rebuild period. */
    for (k = 0; k < n; ++k) lo *= isdb__pow(p->_est[k].gamma, (isdb_real)p->_est[k].ridge.refresh);
    for (k = 0; k < n; ++k) {
        isdb__adaptive_est *e = &p->_est[k];
        isdb__ridge_views r;
        isdb__ser_require(s, (uint64_t)isdb__ser_int(s, &e->count, 0, INT_MAX) <= s->t);
        r = isdb__ridge_serialize(&e->ridge, s, e->ridge.refresh, c->lambda, lo, 0);
        if (e->Vt)
            isdb__dlinucb_check_vt(s, r.V, isdb__ser_view_real(s, e->Vt, c->d * c->d), c->d,
                                   c->lambda * (1 - ISDB__SER_TOL), c->lambda);
        /* W: a lower-stored Gram matrix of at least its prior */
        if (e->W)
            isdb__ser_check_gram(s, isdb__ser_view_real(s, e->W, c->d * c->d), c->d, c->d, 0,
                                 isdb__adaptive_w_prior(c) * (1 - ISDB__SER_TOL), ISDB__REAL_MAX);
    }
    isdb__ser_real(s, p->_pred, n);
    /* The error sums' weight is a discounted count, below 1 / (1 - g). */
    isdb__ser_real_range(s, p->_err, n, 0, ISDB__REAL_MAX);
    isdb__ser_real_range(s, p->_err + n, 1, 0, (isdb_real)(n > 1 ? p->_est[n - 2].memory : 1));
    isdb__adaptive_pairs_serialize(s, n, p->_sum, p->_sq, p->_gap);
    if (p->_fit) isdb__adaptive_hold_serialize(p, s);
    if (p->_play_sum) isdb__adaptive_pairs_serialize(s, n, p->_play_sum, p->_play_sq, p->_play_gap);
    if (c->kalman > 0) isdb__adaptive_kalman_serialize(p, s);
    /* a loaded factor's upper zeros may be -0, and L_next is not in the
       snapshot (under ISD it may be laid out for another dimension) */
    if (isdb__ser_storing(s)) p->upper_dirty = 2;
}

ISDB__PRIVATE void isdb__adaptive_reset(isdb_policy *bp) {
    isdb_adaptive *p = (isdb_adaptive *)bp;
    int k, n = p->n_est;
    for (k = 0; k < n; ++k) {
        isdb__ridge_reset(&p->_est[k].ridge);
        if (p->_est[k].Vt) isdb__identity(p->cfg.d, p->_est[k].Vt, p->cfg.lambda);
        if (p->_est[k].W) isdb__identity(p->cfg.d, p->_est[k].W, isdb__adaptive_w_prior(&p->cfg));
        p->_est[k].count = 0;
    }
    p->played = n - 1;
    p->changes = 0;
    isdb__zero(n, p->_pred);
    isdb__zero(n * n, p->_sum);
    isdb__zero(n * n, p->_sq);
    isdb__zero(n * n, p->_gap);
    if (p->_play_sum) {
        isdb__zero(n * n, p->_play_sum);
        isdb__zero(n * n, p->_play_sq);
        isdb__zero(n * n, p->_play_gap);
    }
    isdb__zero(n + 1, p->_err);
    p->recur = 0;
    memset(p->seen, 0, sizeof p->seen);
    p->seen_next = 0;
    p->normal = n - 1;
    p->evidence = 0;
    p->upper_dirty = 2;
    if (p->_fit) {
        isdb__ridge_reset(&p->hold_ridge);
        isdb__zero(3 * (n - 1), p->_fit);
    }
    p->kalman_played = -1;
    p->kalman_count = 0;
    for (k = 0; k < p->cfg.kalman; ++k) isdb__adaptive_kalman_restart(p, k, NULL);
}

static const isdb_policy_vtable isdb__adaptive_vt = {
    ISDB_POLICY_ADAPTIVE, "adaptive",           0, isdb__adaptive_select, isdb__adaptive_update, isdb__adaptive_scores,
    isdb__probs_one_hot,  isdb__adaptive_serialize, isdb__adaptive_reset, isdb__adaptive_walk_config,
    offsetof(isdb_adaptive, cfg), "max_arms", sizeof(isdb_adaptive_config)};

ISDB__ONCE isdb_result isdb_adaptive_heap_size(const isdb_adaptive_config *cfg, size_t *bytes) {
    isdb_adaptive probe;
    isdb_adaptive_config c;
    if (!bytes || isdb_adaptive_config_check(cfg, NULL) != ISDB_OK) return ISDB_ERR_INVALID_ARG;
    c = isdb__adaptive_resolve(cfg);
    *bytes = isdb__adaptive_layout(&c, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

ISDB__ONCE isdb_result isdb_adaptive_init_preallocated(const isdb_adaptive_config *cfg, void *heap, size_t heap_bytes,
                                                       isdb_adaptive *pol) {
    size_t bytes;
    isdb_result r = isdb_adaptive_heap_size(cfg, &bytes);
    if (r == ISDB_OK) r = isdb_init_check(heap, heap_bytes, bytes, pol, NULL);
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    memset(pol, 0, sizeof *pol);
    pol->cfg = isdb__adaptive_resolve(cfg);
    isdb__adaptive_layout(&pol->cfg, pol, heap);
    isdb__policy_base_init(&pol->base, &isdb__adaptive_vt, cfg->d, cfg->max_arms, 0, heap, bytes, sizeof *pol);
    isdb__adaptive_reset(&pol->base);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__adaptive_setup(const void *cfg, void *heap, size_t heap_bytes, void *pol) {
    return isdb_adaptive_init_preallocated((const isdb_adaptive_config *)cfg, heap, heap_bytes, (isdb_adaptive *)pol);
}

ISDB__ONCE isdb_result isdb_adaptive_init(const isdb_adaptive_config *cfg, const isdb_allocator *alloc, isdb_adaptive *pol) {
    size_t bytes;
    isdb_result r = isdb_adaptive_heap_size(cfg, &bytes);
    if (r == ISDB_OK && !pol) r = ISDB_ERR_INVALID_ARG;
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    return isdb__policy_init_owned(&pol->base, sizeof *pol, bytes, alloc, isdb__adaptive_setup, cfg, pol);
}

ISDB__ONCE const isdb_adaptive_config *isdb_adaptive_get_config(const isdb_adaptive *pol) { return &pol->cfg; }

void isdb_adaptive_get_theta(const isdb_adaptive *pol, isdb_real *theta) {
    if (pol->kalman_played >= 0)
        isdb__copy(pol->cfg.d, pol->_k_theta + pol->kalman_played * pol->cfg.d, theta);
    else
        isdb__ridge_theta(&isdb__adaptive_played(pol)->ridge, theta);
}

/* x.theta of the played estimator, and x's score into *score: what
   explain reports (select's scratch holds its arms interleaved, so the
   mean is formed from L^-1 x afresh). */
ISDB__PRIVATE isdb_real isdb__adaptive_mean_score(isdb_adaptive *p, const isdb_real *x, isdb_real *score) {
    isdb__ridge *r = &isdb__adaptive_played(p)->ridge;
    *score = 0;
    isdb__adaptive_ucb_all(p, x, 1, score);
    if (p->kalman_played >= 0) return isdb__dot(p->cfg.d, p->_k_theta + p->kalman_played * p->cfg.d, x);
    isdb__ridge_norm2(r, x);
    return isdb__dot(p->cfg.d, r->work, r->z);
}

isdb_result isdb_adaptive_explain(isdb_adaptive *pol, const isdb_real *x, isdb_real *mean, isdb_real *bonus) {
    isdb_real score, m;
    isdb_result r;
    if (!pol || !x) return ISDB_ERR_INVALID_ARG;
    if ((r = isdb__check_input(x, pol->cfg.d)) != ISDB_OK) return r;
    m = isdb__adaptive_mean_score(pol, x, &score);
    if (mean) *mean = m;
    if (bonus) *bonus = score - m;
    return ISDB_OK;
}

int isdb_adaptive_get_n_estimators(const isdb_adaptive *pol) { return pol->n_est; }

int isdb_adaptive_get_played(const isdb_adaptive *pol) { return pol->played; }

int isdb_adaptive_get_kalman(const isdb_adaptive *pol) { return pol->kalman_played; }

/* The effective memory of estimator e (isdb_adaptive_estimator_info). */
ISDB__PRIVATE int isdb__adaptive_effective(const isdb__adaptive_est *e) {
    return e->memory ? isdb__min_int(e->memory, e->count) : e->count;
}

isdb_result isdb_adaptive_get_estimator(const isdb_adaptive *pol, int k, isdb_adaptive_estimator_info *info) {
    const isdb__adaptive_est *e;
    if (!pol || !info || k < 0 || k >= pol->n_est) return ISDB_ERR_INVALID_ARG;
    e = &pol->_est[k];
    info->memory = e->memory;
    info->gamma = e->gamma;
    info->count = e->count;
    info->effective = isdb__adaptive_effective(e);
    return ISDB_OK;
}

int isdb_adaptive_get_memory(const isdb_adaptive *pol) { return isdb__adaptive_effective(isdb__adaptive_played(pol)); }

uint64_t isdb_adaptive_get_changes(const isdb_adaptive *pol) { return pol->changes; }

int isdb_adaptive_get_holding(const isdb_adaptive *pol) { return isdb__adaptive_holding(pol); }

#endif /* ISDB__HAS_ADAPTIVE */
#if !ISDB_REAL_IS_FLOAT /* double only: see PRECISION */
#if ISDB__HAS_ISD
/* ---------------------------------------------------------------------------
   [ISD] [ISD.ESTIMATOR] ISD-linUCB: invariance detection
   ------------------------------------------------------------------------ */

/* The estimator's options, listed as a config is (ISDB__CFG_DEFAULT...):
   its fields are named "est.<field>" in ISD's config. jbd's defaults
   other than off_norm are isdb_jbd_options_init's. */
#define ISDB__ISD_OPTIONS_FIELDS(X)                                                                  \
    X(INT, isdb_isd_rule, rule, ISDB_ISD_RULE_TEST,                                                  \
      isdb__want_int(why, (int)c->rule, "est.rule", ISDB_ISD_RULE_TEST, ISDB_ISD_RULE_BOTH, "an isdb_isd_rule")) \
    X(INT, int, splits, 0, isdb__want(why, c->splits >= 0 && c->splits != 1, "est.splits", "0 or >= 2")) \
    X(REAL, double, level, 0.01, isdb__want_open01(why, c->level, "est.level"))                      \
    X(INT, int, basis_error, 1, isdb__want_flag(why, c->basis_error, "est.basis_error"))            \
    X(INT, int, n_windows, 25, isdb__want_int(why, c->n_windows, "est.n_windows", 2, INT_MAX, ">= 2")) \
    X(INT, int, window_length, 0, isdb__want_count(why, c->window_length, "est.window_length"))     \
    X(INT, int, center, 1, isdb__want_flag(why, c->center, "est.center"))                            \
    X(INT, int, intercept, 0, isdb__want_flag(why, c->intercept, "est.intercept"))                   \
    X(INT, int, folds, 10, isdb__want_int(why, c->folds, "est.folds", 2, INT_MAX, ">= 2"))          \
    X(INT, int, adapt, 0, isdb__want_count(why, c->adapt, "est.adapt"))                              \
    X(INT, isdb_isd_selection, one_se, ISDB_ISD_ONE_SE_PAIRED,                                       \
      isdb__want_int(why, (int)c->one_se, "est.one_se", ISDB_ISD_BEST_SCORE, ISDB_ISD_ONE_SE_PAIRED, \
                     "an isdb_isd_selection"))                                                       \
    X(INT, int, force_residual, 0, isdb__want_flag(why, c->force_residual, "est.force_residual"))   \
    X(INT, isdb_jbd_method, jbd.method, c.jbd.method,                                                \
      isdb__want_int(why, (int)c->jbd.method, "est.jbd.method", ISDB_JBD_JACOBI, ISDB_JBD_UWEDGE, "an isdb_jbd_method")) \
    X(INT, int, jbd.max_iter, c.jbd.max_iter, isdb__want_count(why, c->jbd.max_iter, "est.jbd.max_iter")) \
    X(REAL, double, jbd.tol, c.jbd.tol, isdb__want_nonneg(why, c->jbd.tol, "est.jbd.tol"))           \
    X(REAL, double, jbd.threshold, c.jbd.threshold,                                                  \
      isdb__want_real(why, c->jbd.threshold, "est.jbd.threshold", 0.0, 1.0, 0, "[0, 1]"))           \
    X(INT, isdb_jbd_scale, jbd.scale, c.jbd.scale,                                                   \
      isdb__want_int(why, (int)c->jbd.scale, "est.jbd.scale", ISDB_JBD_SCALE_CORRELATION, ISDB_JBD_SCALE_FROBENIUS, \
                     "an isdb_jbd_scale"))                                                            \
    X(INT, isdb_jbd_offnorm, jbd.off_norm, ISDB_JBD_OFF_ENTRYWISE,                                   \
      isdb__want_int(why, (int)c->jbd.off_norm, "est.jbd.off_norm", ISDB_JBD_OFF_MAXCOL, ISDB_JBD_OFF_ENTRYWISE, \
                     "an isdb_jbd_offnorm"))
#define ISDB__ISD_OPTIONS_WALK(kind, type, name, def, check) ISDB__CFG_WALK_##kind(type, name, "est." #name)

ISDB__ONCE isdb_isd_options isdb_isd_options_init(void) {
    isdb_isd_options c;
    memset(&c, 0, sizeof c);
    c.jbd = isdb_jbd_options_init();
    ISDB__ISD_OPTIONS_FIELDS(ISDB__CFG_DEFAULT)
    return c;
}

/* ---------------------------------------------------------------------------
   [ISD.FDIST] The F distribution (the tests' p-values)
   ------------------------------------------------------------------------ */

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

/* P(F <= f) for the F distribution with (d1, d2) degrees of freedom, its
   upper tail P(F > f) (computed directly, accurate for small p-values), and
   its (1 - level) quantile by bisection. */
ISDB__PRIVATE double isdb__f_cdf(double f, double d1, double d2) {
    return f <= 0.0 ? 0.0 : isdb__ibeta(0.5 * d1, 0.5 * d2, d1 * f / (d1 * f + d2));
}

ISDB__PRIVATE double isdb__f_sf(double f, double d1, double d2) {
    return f <= 0.0 ? 1.0 : isdb__ibeta(0.5 * d2, 0.5 * d1, d2 / (d1 * f + d2));
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

/* Resolved sizes of one estimate: p, n, windows m of l rows, k folds of F
   rows, a adaptation rows. */
typedef struct isdb__isd_dims {
    int p, n, m, l, k, F, a, S;
} isdb__isd_dims;


/* The estimator's options, named as the members of isdb_isd_config.est. */
ISDB__ONCE_PRIVATE int isdb__isd_options_want(isdb_refusal *why, const isdb_isd_options *c) {
    return isdb__want_ptr(why, c, "est") ISDB__ISD_OPTIONS_FIELDS(ISDB__CFG_CHECK);
}

/* ISD's est (ISDB__CFG_WALK_OPTS). */
ISDB__ONCE_PRIVATE void isdb__walk_est(isdb_ser *s, isdb_isd_options *c) { ISDB__ISD_OPTIONS_FIELDS(ISDB__ISD_OPTIONS_WALK) }

ISDB__ONCE_PRIVATE int isdb__isd_options_ok(const isdb_isd_options *o) { return isdb__isd_options_want(NULL, o); }

ISDB__COLD_PRIVATE int isdb__isd_resolve(int p, int n, const isdb_isd_options *o, isdb__isd_dims *dm) {
    if (!isdb__isd_options_ok(o) || !isdb__dim_ok(p) || n < 2 || n > INT_MAX / (p + 1)) return 0;
    if (o->n_windows > INT_MAX / (p * p) || o->adapt > n) return 0;
    dm->p = p;
    dm->n = n;
    dm->m = o->n_windows;
    dm->l = o->window_length ? o->window_length : n / 8;
    dm->k = o->folds;
    dm->F = n / o->folds;
    dm->a = o->adapt ? o->adapt : 2 * p;
    dm->S = o->splits ? o->splits : isdb__max_int(2, isdb__min_int(8, n / (3 * p)));
    if (dm->S > n) return 0;
    return dm->l >= p + 1 && dm->l <= n && dm->F >= dm->a + 2;
}

/* Start of window (or fold) k of `len` rows among n, count of them:
   floor(k (n - len) / (count - 1)), exactly (numpy's int(linspace)). */
ISDB__PRIVATE int isdb__isd_start(int k, int count, int n, int len) {
    return (int)(((int64_t)k * (int64_t)(n - len)) / (int64_t)(count - 1));
}

typedef struct isdb__isd_work {
    double *SG, *Sc, *Sy;
    double *C, *jw, *gt, *f, *fG, *fc, *Z, *R, *PI, *cand, *ord, *xv, *se, *mn, *fsc;
    double *Uo, *G, *L, *T, *v1, *v2, *v3, *v4, *v5, *flags, *pv;
} isdb__isd_work;

ISDB__ONCE_PRIVATE double *isdb__carve(double *base, size_t *used, size_t count) {
    double *ptr = base ? base + *used : NULL;
    *used += count;
    return ptr;
}

ISDB__ONCE_PRIVATE size_t isdb__isd_layout(const isdb__isd_dims *dm, double *base, isdb__isd_work *w) {
    size_t u = 0, p = (size_t)dm->p, pp = p * p, m = (size_t)dm->m, k = (size_t)dm->k, S = (size_t)dm->S;
    w->SG = isdb__carve(base, &u, S * pp);
    w->Sc = isdb__carve(base, &u, S * p);
    w->Sy = isdb__carve(base, &u, S);
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
    w->pv = isdb__carve(base, &u, p);
    return u;
}

ISDB__ONCE size_t isdb_isd_estimate_work_size(int p, int n, const isdb_isd_options *opt) {
    isdb_isd_options o = opt ? *opt : isdb_isd_options_init();
    isdb__isd_dims dm;
    isdb__isd_work w;
    if (!isdb__isd_resolve(p, n, &o, &dm)) return 0;
    return isdb__isd_layout(&dm, NULL, &w);
}

/* ---------------------------------------------------------------------------
   [ISD.LSQ] Least squares on the logged rows, cross-validation
   ------------------------------------------------------------------------ */

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
ISDB__COLD_PRIVATE void isdb__isd_normal(int p, const double *X, const double *y, int from1, int to1, int from2, int to2,
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
ISDB__COLD_PRIVATE void isdb__isd_subspace_ols(int p, const double *G, const double *c, const double *B, int off, int q,
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
ISDB__COLD_PRIVATE int isdb__isd_order(int p, const double *U, const int *sizes, int nb, const double *inv, double *Uo) {
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
ISDB__COLD_PRIVATE void isdb__isd_roll(int q, const double *z, double r, double sgn, double *S, double *sz, double *szr,
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
ISDB__COLD_PRIVATE void isdb__isd_cv(const isdb__isd_dims *dm, const double *X, const double *y, const double *U,
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
ISDB__COLD_PRIVATE double isdb__isd_stat(const isdb__isd_dims *dm, const double *y, const double *f) {
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

/* ---------------------------------------------------------------------------
   [ISD.BLOCKTEST] The block test, the basis error, the covariance spread
   ------------------------------------------------------------------------ */

/* Cholesky factor of the symmetric q x q G (lower triangle read) into L,
   with the ridge fallback of isdb__sym_solve. Returns 0 if neither
   factors. */
ISDB__PRIVATE int isdb__sym_factor(int q, const double *G, double *L) {
    double scale = 0.0;
    int i, tries;
    for (i = 0; i < q; ++i) scale += fabs(G[i * q + i]);
    scale = scale > 0.0 ? scale / (double)q : 1.0;
    for (tries = 0; tries < 2; ++tries) {
        isdb__copy(q * q, G, L);
        if (tries)
            for (i = 0; i < q; ++i) L[i * q + i] += 1e-10 * scale;
        if (isdb_chol(q, L) == ISDB_OK) return 1;
    }
    return 0;
}

/* Variance of the first-order rotation error between fitted columns i
   and j of U from different blocks, into V (p x p; 0 inside a block): the
   Jacobi angle of the pair minimises sum_k M_k[i,j]^2 (M_k = U^T C_k U),
   and a change phi of it moves M_k[i,j] by phi (M_k[j,j] - M_k[i,i]), so
   the windows' sampling noise in M_k[i,j] (estimated by the residual
   entries, m - 1 degrees of freedom) makes var(phi) = kappa sum_k
   M_k[i,j]^2 / ((m - 1) sum_k (M_k[i,i] - M_k[j,j])^2); kappa = max(1,
   m l / n) counts each row once over the overlapping windows. At most 1
   (an angle the windows cannot identify). T, M, Gap: p^2 scratch. */
ISDB__COLD_PRIVATE void isdb__isd_rotation_var(const isdb__isd_dims *dm, const double *C, const double *U, const double *blk,
                                          double *T, double *M, double *Gap, double *V) {
    int p = dm->p, pp = p * p, m = dm->m, i, j, k;
    double kappa = (double)m * (double)dm->l / (double)dm->n;
    if (kappa < 1.0) kappa = 1.0;
    isdb__zero(pp, V);
    isdb__zero(pp, Gap);
    for (k = 0; k < m; ++k) {
        isdb__jbd_transform(p, 1, C + k * pp, U, M, T);
        for (i = 0; i < p; ++i)
            for (j = 0; j < i; ++j) {
                double g = M[i * p + i] - M[j * p + j];
                V[i * p + j] += M[i * p + j] * M[i * p + j];
                Gap[i * p + j] += g * g;
            }
    }
    for (i = 0; i < p; ++i)
        for (j = 0; j < i; ++j) {
            double v = 0.0;
            if (blk[i] != blk[j]) {
                v = kappa * V[i * p + j] / (double)(m - 1);
                v = v < Gap[i * p + j] ? v / Gap[i * p + j] : 1.0;
            }
            V[i * p + j] = V[j * p + i] = v;
        }
}

/* The invariance test of every block (see isdb_isd_rule and basis_error):
   S disjoint consecutive segments; per segment the normal equations in U
   coordinates (centred with an intercept), the free coefficients h_k =
   G_k^-1 c_k and the pooled residual variance s2. Block b's coefficients
   in segment k are h_k's block-b part, of covariance s2 (G_k^-1)_bb plus,
   with basis_error, the leakage T_b = diag(tau_i^2) (below); Q = sum_k
   (h_kb - hbar)^T W_k (h_kb - hbar), W_k the inverse covariance, hbar the
   W-weighted mean, and F = Q / ((S' - 1) s_b) (S' the segments whose
   G_k factors). With T_b = 0, s2 Q is RSS_shared - RSS_free: the Chow F.
   Leakage: a rotation error phi_ij between fitted columns moves
   coordinate i's coefficient by phi_ij times coordinate j's, so tau_i^2 =
   sum_j var(phi_ij) V_j over the other blocks' coordinates j, V_j the
   variance of j's coefficient across segments beyond its noise
   (isdb__isd_rotation_var); a V_j that cannot be estimated (not finite)
   allows nothing. pval[b] receives P(F > f), or -1 when the residual
   degrees of freedom are < 1 or fewer than two segments' covariances
   factor. C: the m window covariances. */
ISDB__COLD_PRIVATE void isdb__isd_block_test(const isdb__isd_dims *dm, const double *X, const double *y, const double *C,
                                        const double *U, const int *sizes, int nb, int intercept, int basis_error,
                                        isdb__isd_work *w, double *pval) {
    int p = dm->p, n = dm->n, S = dm->S, pp = p * p, k, i, j, l, b, off, r, used = 0;
    double yy = 0.0, ef = 0.0, s2, df1, df2 = (double)(n - S * p - (intercept ? S : 0));
    double *A = w->G, *T = w->T, *L = w->L, *vphi = w->Uo, *tau = w->v4, *V = w->v5;
    double *cx = w->v1, *sx = w->v2, *e = w->v3, *blk = w->flags;
    for (b = 0; b < nb; ++b) pval[b] = -1.0;
    if (S < 2 || df2 < 1.0) return;
    /* Per segment: G_k^-1 into SG, h_k into Sc, usable or not in Sy. */
    for (k = 0; k < S; ++k) {
        int st = (int)(((int64_t)k * n) / S), en = (int)(((int64_t)(k + 1) * n) / S);
        double *G = w->SG + k * pp, *h = w->Sc + k * p, sy = 0.0, syy = 0.0, cnt = (double)(en - st);
        isdb__zero(pp, A);
        isdb__zero(p, cx);
        isdb__zero(p, sx);
        isdb__isd_accumulate(p, X, y, st, en, A, cx, sx, &sy);
        for (r = st; r < en; ++r) syy += y[r] * y[r];
        for (i = 0; i < p; ++i) {
            for (j = 0; j <= i; ++j) {
                if (intercept && cnt > 0.0) A[i * p + j] -= sx[i] * sx[j] / cnt;
                A[j * p + i] = A[i * p + j];
            }
            if (intercept && cnt > 0.0) cx[i] -= sx[i] * sy / cnt;
        }
        if (intercept && cnt > 0.0) syy -= sy * sy / cnt;
        yy += syy;
        /* G = U^T A U, c = U^T cx (into e). */
        isdb__jbd_transform(p, 1, A, U, G, T);
        for (i = 0; i < p; ++i) {
            double t = 0.0;
            for (l = 0; l < p; ++l) t += U[l * p + i] * cx[l];
            e[i] = t;
        }
        w->Sy[k] = isdb__sym_factor(p, G, L);
        if (w->Sy[k] == 0.0) {
            isdb__zero(p, h);
            continue;
        }
        ++used;
        isdb_chol_solve(p, L, e, h);
        ef += isdb__dot(p, e, h);
        for (j = 0; j < p; ++j) {
            isdb__zero(p, e);
            e[j] = 1.0;
            isdb_chol_solve(p, L, e, e);
            for (i = 0; i < p; ++i) G[i * p + j] = e[i];
        }
    }
    if (used < 2 || !(yy - ef > 0.0)) return;
    s2 = (yy - ef) / df2;
    for (b = 0, off = 0; b < nb; off += sizes[b++])
        for (i = 0; i < sizes[b]; ++i) blk[off + i] = (double)b;
    /* The leakage allowance of every coordinate. */
    isdb__zero(p, tau);
    if (basis_error) {
        isdb__isd_rotation_var(dm, C, U, blk, T, A, L, vphi);
        for (j = 0; j < p; ++j) {
            /* DerSimonian and Laird's moment estimate: segments weighted
               by their precision, Q's excess over its null mean S' - 1. */
            double sw = 0.0, sw2 = 0.0, swh = 0.0, q = 0.0, mu;
            for (k = 0; k < S; ++k)
                if (w->Sy[k] != 0.0) {
                    double wk = 1.0 / (s2 * w->SG[k * pp + j * p + j]);
                    sw += wk;
                    sw2 += wk * wk;
                    swh += wk * w->Sc[k * p + j];
                }
            mu = swh / sw;
            for (k = 0; k < S; ++k)
                if (w->Sy[k] != 0.0) {
                    double dh = w->Sc[k * p + j] - mu;
                    q += dh * dh / (s2 * w->SG[k * pp + j * p + j]);
                }
            V[j] = (q - (double)(used - 1)) / (sw - sw2 / sw);
            if (!(V[j] > 0.0) || !isdb__finite(V[j])) V[j] = 0.0; /* no estimate: no allowance */
        }
        for (i = 0; i < p; ++i)
            for (j = 0; j < p; ++j) tau[i] += vphi[i * p + j] * V[j];
    }
    /* Q per block: sum_k h^T W h - hbar^T (sum_k W) hbar. */
    for (b = 0, off = 0; b < nb; off += sizes[b++]) {
        int s = sizes[b], counted = 0;
        double q = 0.0, *Ws = A, *rhs = cx, *bar = sx, *Vk = T;
        isdb__zero(s * s, Ws);
        isdb__zero(s, rhs);
        for (k = 0; k < S; ++k) {
            const double *Gi = w->SG + k * pp, *h = w->Sc + k * p + off;
            if (w->Sy[k] == 0.0) continue;
            for (i = 0; i < s; ++i)
                for (j = 0; j <= i; ++j) Vk[i * s + j] = s2 * Gi[(off + i) * p + off + j] + (i == j ? tau[off + i] : 0.0);
            if (!isdb__sym_factor(s, Vk, L)) continue;
            ++counted;
            for (j = 0; j < s; ++j) {
                isdb__zero(s, e);
                e[j] = 1.0;
                isdb_chol_solve(s, L, e, e);
                for (i = 0; i < s; ++i) {
                    Ws[i * s + j] += e[i];
                    rhs[i] += e[i] * h[j];
                    q += h[i] * e[i] * h[j];
                }
            }
        }
        if (counted < 2 || !isdb__sym_solve(s, Ws, rhs, bar, L)) continue; /* untestable: -1 */
        q -= isdb__dot(s, rhs, bar);
        df1 = (double)((counted - 1) * s);
        pval[b] = isdb__f_sf(q > 0.0 ? q / df1 : 0.0, df1, df2);
    }
}

/* cov_spread of isdb_isd_fit from the m window covariances C (p x p
   each); Cbar: p^2 scratch. The entries are divided by tr(C_bar) first
   (the ratio does not change; C_k <= m C_bar, so nothing overflows). */
ISDB__COLD_PRIVATE double isdb__isd_cov_spread(const isdb__isd_dims *dm, int center, const double *C, double *Cbar) {
    int p = dm->p, pp = p * p, m = dm->m, l = dm->l, i, j, k;
    double tr = 0.0, fr = 0.0, ss = 0.0, shared = 0.0, a, noise;
    isdb__zero(pp, Cbar);
    for (k = 0; k < m; ++k)
        for (i = 0; i < pp; ++i) Cbar[i] += C[k * pp + i];
    for (i = 0; i < pp; ++i) Cbar[i] /= (double)m;
    for (i = 0; i < p; ++i) tr += Cbar[i * p + i];
    if (!(tr > 0.0)) return 0.0; /* every C_k is 0 */
    for (k = 0; k < m; ++k)
        for (i = 0; i < pp; ++i) {
            double e = (C[k * pp + i] - Cbar[i]) / tr;
            ss += e * e;
        }
    ss /= (double)m;
    for (i = 0; i < pp; ++i) fr += (Cbar[i] / tr) * (Cbar[i] / tr);
    for (j = 0; j < m; ++j)
        for (k = 0; k < m; ++k) {
            int sj = isdb__isd_start(j, m, dm->n, l), sk = isdb__isd_start(k, m, dm->n, l);
            int o = (sj < sk ? sj : sk) + l - (sj < sk ? sk : sj);
            if (o > 0) shared += (double)o;
        }
    a = 1.0 - shared / ((double)m * (double)m * (double)l);
    noise = a * (1.0 + fr) / (double)(center ? l - 1 : l);
    return noise > 0.0 ? ss / noise : 0.0;
}

/* Step 1 of isdb_isd_estimate, the environments: the covariance of each
   of the m windows of l rows of X into w->C (m p x p, both triangles),
   about the window's mean when `center` (divided by l - 1, else by l).
   w->v1: the mean. */
ISDB__COLD_PRIVATE void isdb__isd_window_covs(const isdb__isd_dims *dm, const double *X, int center, isdb__isd_work *w) {
    int p = dm->p, pp = p * p, k, i, j;
    for (k = 0; k < dm->m; ++k) {
        int st = isdb__isd_start(k, dm->m, dm->n, dm->l), rr;
        double *Ck = w->C + k * pp, *mu = w->v1;
        isdb__zero(p, mu);
        if (center) {
            for (rr = st; rr < st + dm->l; ++rr)
                for (i = 0; i < p; ++i) mu[i] += X[rr * p + i];
            for (i = 0; i < p; ++i) mu[i] /= (double)dm->l;
        }
        isdb__zero(pp, Ck);
        for (rr = st; rr < st + dm->l; ++rr) {
            const double *x = X + rr * p;
            for (i = 0; i < p; ++i)
                for (j = 0; j <= i; ++j) Ck[i * p + j] += (x[i] - mu[i]) * (x[j] - mu[j]);
        }
        for (i = 0; i < p; ++i)
            for (j = 0; j <= i; ++j) {
                Ck[i * p + j] /= (double)(center ? dm->l - 1 : dm->l);
                Ck[j * p + i] = Ck[i * p + j];
            }
    }
}

/* Step 3 of isdb_isd_estimate: each window's least-squares slope in the
   coordinates of U's columns (w->gt, m x p), then the statistic T_b of
   each of the nb blocks (`sizes`) into stat: the fit of the block's
   slope averaged over the windows, on every row. */
ISDB__COLD_PRIVATE void isdb__isd_block_stats(const isdb__isd_dims *dm, const double *X, const double *y, int intercept,
                                         const double *U, const int *sizes, int nb, isdb__isd_work *w,
                                         double *stat) {
    int p = dm->p, n = dm->n, k, b, i, j, off;
    for (k = 0; k < dm->m; ++k) {
        int st = isdb__isd_start(k, dm->m, n, dm->l);
        isdb__isd_normal(p, X, y, st, st + dm->l, 0, 0, intercept, w->G, w->v2, w->v1);
        isdb__sym_solve(p, w->G, w->v2, w->v3, w->L);
        for (j = 0; j < p; ++j) {
            double s = 0.0;
            for (i = 0; i < p; ++i) s += U[i * p + j] * w->v3[i];
            w->gt[k * p + j] = s;
        }
    }
    for (b = 0, off = 0; b < nb; off += sizes[b++]) {
        double *v = w->v1;
        isdb__zero(p, v);
        for (j = off; j < off + sizes[b]; ++j) {
            double mu = 0.0;
            for (k = 0; k < dm->m; ++k) mu += w->gt[k * p + j];
            mu /= (double)dm->m;
            for (i = 0; i < p; ++i) v[i] += U[i * p + j] * mu;
        }
        for (i = 0; i < n; ++i) w->f[i] = isdb__dot(p, X + i * p, v);
        stat[b] = isdb__isd_stat(dm, y, w->f);
    }
}

/* Step 4 of isdb_isd_estimate, the candidates: the nb statistics and an
   appended 1 (index nb) into w->cand, and their order ascending (stable)
   into w->ord. Returns their count, nb + 1. */
ISDB__COLD_PRIVATE int isdb__isd_sort_candidates(const double *stat, int nb, isdb__isd_work *w) {
    int nc = nb + 1, i, j;
    for (j = 0; j < nb; ++j) w->cand[j] = stat[j];
    w->cand[nb] = 1.0;
    for (j = 0; j < nc; ++j) w->ord[j] = (double)j;
    for (j = 1; j < nc; ++j) {
        double key = w->ord[j];
        i = j - 1;
        while (i >= 0 && w->cand[(int)w->ord[i]] > w->cand[(int)key]) {
            w->ord[i + 1] = w->ord[i];
            --i;
        }
        w->ord[i + 1] = key;
    }
    return nc;
}

/* Step 4 of isdb_isd_estimate, cross-validated: each fold's training
   normal equations (the rows outside the fold; w->fG, w->fc), then the
   cross-validation scores of each of the nc candidate thresholds in
   ascending order (w->fsc per fold, w->xv, w->se, w->mn). A threshold
   that keeps as many coordinates as the one before keeps the same
   (nested) set and copies its scores. */
ISDB__COLD_PRIVATE void isdb__isd_cv_path(const isdb__isd_dims *dm, const double *X, const double *y,
                                     const isdb_isd_fit *fit, int nb, int nc, int intercept, isdb__isd_work *w) {
    int p = dm->p, pp = p * p, k, b, jj, prev_q = -1;
    for (k = 0; k < dm->k; ++k) {
        int st = isdb__isd_start(k, dm->k, dm->n, dm->F);
        isdb__isd_normal(p, X, y, 0, st, st + dm->F, dm->n, intercept, w->fG + k * pp, w->fc + k * p, w->v1);
    }
    for (jj = 0; jj < nc; ++jj) {
        double th = w->cand[(int)w->ord[jj]];
        int cnt = 0;
        for (b = 0; b < nb; ++b)
            if (fit->stat[b] < th) cnt += fit->sizes[b];
        if (cnt == prev_q) {
            /* Nested sets: the same size is the same set. */
            isdb__copy(dm->k, w->fsc + (jj - 1) * dm->k, w->fsc + jj * dm->k);
            w->xv[jj] = w->xv[jj - 1];
            w->se[jj] = w->se[jj - 1];
            w->mn[jj] = w->mn[jj - 1];
            continue;
        }
        prev_q = cnt;
        isdb__isd_cv(dm, X, y, fit->U, fit->sizes, fit->stat, nb, th, intercept, w, w->flags, w->fsc + jj * dm->k,
                     &w->xv[jj], &w->se[jj], &w->mn[jj]);
    }
}

/* Step 5 of isdb_isd_estimate, the selection: the threshold theta* of the
   cross-validated rules (the candidate with the smallest statistic whose
   score is within the one-SE slack of the best; 0 when no block's
   candidate has a positive mean score). From w's scores of
   isdb__isd_cv_path over the nc candidates. */
ISDB__COLD_PRIVATE double isdb__isd_select_threshold(const isdb__isd_dims *dm, isdb_isd_selection one_se, int nb,
                                                int nc, const isdb__isd_work *w) {
    int all_nonpos = 1, jj, jstar = 0;
    for (jj = 0; jj < nc; ++jj)
        if ((int)w->ord[jj] != nb && w->mn[jj] > 0.0) all_nonpos = 0;
    if (all_nonpos) return 0.0;
    for (jj = 1; jj < nc; ++jj)
        if (w->xv[jj] > w->xv[jstar]) jstar = jj;
    for (jj = 0; jj <= jstar; ++jj) {
        double slack = 0.0;
        if (one_se == ISDB_ISD_ONE_SE_UNPAIRED) {
            slack = w->se[jstar];
        } else if (one_se == ISDB_ISD_ONE_SE_PAIRED) {
            /* Standard error of the mean per-fold difference to
               the best candidate. */
            double md = 0.0, vd = 0.0;
            int f;
            for (f = 0; f < dm->k; ++f) md += w->fsc[jj * dm->k + f] - w->fsc[jstar * dm->k + f];
            md /= (double)dm->k;
            for (f = 0; f < dm->k; ++f) {
                double dd = w->fsc[jj * dm->k + f] - w->fsc[jstar * dm->k + f] - md;
                vd += dd * dd;
            }
            slack = sqrt(vd / (double)dm->k) / sqrt((double)dm->k);
        }
        if (w->xv[jj] >= w->xv[jstar] - slack) return w->cand[(int)w->ord[jj]];
    }
    return 0.0;
}

/* The final decomposition of isdb_isd_estimate, invariant blocks first:
   each of the nb blocks called invariant or not by o's rule (the
   statistic below th_star, the p-value w->pv above the level, or both;
   with force_residual, the block least like invariant is made residual
   if all passed), then U's columns, sizes, stat, pvalue and invariant of
   fit reordered so that the invariant blocks come first, each group in
   its old order. Returns p_inv. The candidates' arrays of w hold the
   copies (free by now). */
ISDB__COLD_PRIVATE int isdb__isd_invariant_first(int p, const isdb_isd_options *o, double th_star, int nb,
                                            isdb_isd_fit *fit, isdb__isd_work *w) {
    double *tmp_sizes = w->cand, *tmp_stat = w->xv, *tmp_pv = w->mn, *inv = w->se; /* p + 1 doubles each */
    int b, q, pass, pos = 0;
    for (b = 0; b < nb; ++b) {
        int pass_cv = fit->stat[b] < th_star, pass_test = w->pv[b] > o->level;
        tmp_sizes[b] = (double)fit->sizes[b];
        tmp_stat[b] = fit->stat[b];
        tmp_pv[b] = w->pv[b];
        if (o->rule == ISDB_ISD_RULE_TEST)
            inv[b] = pass_test ? 1.0 : 0.0;
        else if (o->rule == ISDB_ISD_RULE_CV)
            inv[b] = pass_cv ? 1.0 : 0.0;
        else
            inv[b] = pass_cv && pass_test ? 1.0 : 0.0;
    }
    if (o->force_residual) {
        int all = 1, force;
        for (b = 0; b < nb; ++b)
            if (inv[b] == 0.0) all = 0;
        if (all && nb > 0) {
            force = 0;
            for (b = 1; b < nb; ++b)
                if (o->rule == ISDB_ISD_RULE_CV ? tmp_stat[b] > tmp_stat[force] : tmp_pv[b] < tmp_pv[force])
                    force = b;
            inv[force] = 0.0;
        }
    }
    q = isdb__isd_order(p, fit->U, fit->sizes, nb, inv, w->Uo);
    for (pass = 1; pass >= 0; --pass)
        for (b = 0; b < nb; ++b) {
            if ((inv[b] != 0.0) != (pass == 1)) continue;
            fit->sizes[pos] = (int)tmp_sizes[b];
            fit->stat[pos] = tmp_stat[b];
            if (fit->pvalue) fit->pvalue[pos] = tmp_pv[b];
            fit->invariant[pos] = pass;
            ++pos;
        }
    isdb__copy(p * p, w->Uo, fit->U);
    return q;
}

ISDB__COLD isdb_result isdb_isd_block_test(int p, int n, const double *X, const double *y, const double *U,
                                           const int *sizes, int n_blocks, const isdb_isd_options *opt, double *pval,
                                           double *work) {
    isdb_isd_options o = opt ? *opt : isdb_isd_options_init();
    isdb__isd_dims dm;
    isdb__isd_work w;
    isdb_result r;
    int b, total = 0;
    if (!X || !y || !U || !sizes || !pval || !work || !isdb__isd_resolve(p, n, &o, &dm) || n_blocks < 1 ||
        n_blocks > p)
        return ISDB_ERR_INVALID_ARG;
    for (b = 0; b < n_blocks; ++b) {
        if (sizes[b] < 1 || sizes[b] > p - total) return ISDB_ERR_INVALID_ARG;
        total += sizes[b];
    }
    if (total != p) return ISDB_ERR_INVALID_ARG;
    if ((r = isdb__check_input(X, n * p)) != ISDB_OK || (r = isdb__check_input(y, n)) != ISDB_OK ||
        (r = isdb__check_input(U, p * p)) != ISDB_OK)
        return r;
    isdb__isd_layout(&dm, work, &w);
    if (o.basis_error) isdb__isd_window_covs(&dm, X, o.center, &w);
    isdb__isd_block_test(&dm, X, y, o.basis_error ? w.C : NULL, U, sizes, n_blocks, o.intercept, o.basis_error, &w,
                         pval);
    return ISDB_OK;
}

/* ---------------------------------------------------------------------------
   [ISD.ESTIMATE] isdb_isd_estimate: covariances, the JBD, blocks, the decision
   ------------------------------------------------------------------------ */

ISDB__COLD isdb_result isdb_isd_estimate(int p, int n, const double *X, const double *y, const isdb_isd_options *opt,
                              isdb_isd_fit *fit, double *work) {
    isdb_isd_options o = opt ? *opt : isdb_isd_options_init();
    isdb__isd_dims dm;
    isdb__isd_work w;
    isdb_result r, jr;
    int nb, nc, q;
    double th_star, spread;
    if (!X || !y || !fit || !work || !fit->U || !fit->beta_inv || !fit->stat || !fit->sizes || !fit->invariant)
        return ISDB_ERR_INVALID_ARG;
    if (!isdb__isd_resolve(p, n, &o, &dm)) return ISDB_ERR_INVALID_ARG;
    if ((r = isdb__check_input(X, n * p)) != ISDB_OK) return r;
    if ((r = isdb__check_input(y, n)) != ISDB_OK) return r;
    isdb__isd_layout(&dm, work, &w);
    /* 1. Environments. */
    isdb__isd_window_covs(&dm, X, o.center, &w);
    spread = isdb__isd_cov_spread(&dm, o.center, w.C, w.G);
    /* 2. Joint block diagonalization. */
    jr = isdb_jbd(p, dm.m, w.C, &o.jbd, fit->U, fit->sizes, w.jw, &fit->jbd);
    if (jr < 0) return jr;
    fit->cov_spread = spread;
    fit->identifiable = spread > ISDB_ISD_SPREAD_THRESHOLD;
    nb = fit->jbd.n_blocks;
    /* 3. Window slopes in U coordinates, and the statistic of each block. */
    isdb__isd_block_stats(&dm, X, y, o.intercept, fit->U, fit->sizes, nb, &w, fit->stat);
    /* The invariance test of each block (all rules: its p-value is reported). */
    isdb__isd_block_test(&dm, X, y, w.C, fit->U, fit->sizes, nb, o.intercept, o.basis_error, &w, w.pv);
    /* 4. Candidates, sorted ascending (stable); the appended 1 is index nb. */
    nc = isdb__isd_sort_candidates(fit->stat, nb, &w);
    /* 5. Selection (TEST: the level; the cross-validated rules: theta*). */
    if (o.rule == ISDB_ISD_RULE_TEST) {
        th_star = o.level;
    } else {
        isdb__isd_cv_path(&dm, X, y, fit, nb, nc, o.intercept, &w);
        th_star = isdb__isd_select_threshold(&dm, o.one_se, nb, nc, &w);
    }
    /* Final decomposition: invariant blocks first, beta_inv on them. */
    q = isdb__isd_invariant_first(p, &o, th_star, nb, fit, &w);
    isdb__isd_normal(p, X, y, 0, n, 0, 0, o.intercept, w.G, w.v1, w.v2);
    isdb__isd_subspace_ols(p, w.G, w.v1, fit->U, 0, q, fit->beta_inv, w.T, w.L, w.Uo, w.v3, w.v4);
    fit->n_blocks = nb;
    fit->p_inv = q;
    fit->theta = th_star;
    return jr;
}

/* ---------------------------------------------------------------------------
   [ISD] [ISD.POLICY] ISD-linUCB: the policy
   ------------------------------------------------------------------------ */

/* The ADAPTIVE residual learner's config: the noise scale, bounds, ridge,
   confidence level, multiplier and refresh of c, in dimension d (its
   memories and refresh resolved for d; it runs in dimension p_res). */
ISDB__ONCE_PRIVATE isdb_adaptive_config isdb__isd_ada_config(const isdb_isd_config *c) {
    isdb_adaptive_config a = isdb_adaptive_config_init(c->d, c->max_arms);
    a.lambda = c->lambda;
    a.R = c->R;
    a.delta = c->delta;
    a.S = c->S;
    a.L = c->L;
    a.alpha = c->alpha;
    a.refresh = c->refresh;
    /* 1.0.0's doubling memories: ISD's config (and so its snapshot) has
       no memory_ratio, and its figures were measured with these */
    a.memory_ratio = 2;
    /* the residual learner runs in a dimension that changes with the
       basis, which hold's long-run ridge would not follow */
    a.hold = 0;
    /* the Kalman filters restart with every change of dimension (the
       learner's reset) */
    a.kalman = c->kalman;
    return a;
}

/* The guard needs the ADAPTIVE learner: it hands over to the adaptive
   policy in all d dimensions. */
ISDB__PRIVATE int isdb__isd_guarded(const isdb_isd_config *c) {
    return c->guard && c->learner == ISDB_ISD_RES_ADAPTIVE;
}

/* The guard's full-dimensional learner has seen every online row since
   the last reset or refit (LIVE), missed some while nothing was invariant
   (STALE: rebuilt from the kept rows at the next refit), or was handed
   over and is now the residual learner (SWAPPED). */
enum { ISDB__SHADOW_LIVE, ISDB__SHADOW_STALE, ISDB__SHADOW_SWAPPED };

/* The DISCOUNT learner's smallest gamma. Its carried factor (the path
   taken when the Gram sum does not factor: features far beyond
   sqrt(lambda)) is scaled by sqrt(gamma) before each rank-one step,
   which divides z (up to ISDB_INPUT_MAX) by it: with V >= lambda I and
   gamma >= 1e-100, |L^-1 z|^2 <= d 1e128 / 1e-130 stays finite; with
   gamma near DBL_MIN it overflowed and the state became NaN. */
#define ISDB__ISD_GAMMA_MIN 1e-100

/* fresh_inv_width: added in 1.2.0; 1.1.0 played the radius's invariant
   width whatever the contexts. Its default: bench/README.md, "ISD on a
   practitioner's logs". */
#define ISDB__SINCE_fresh_inv_width ISDB__VERSION_WORD_1_2, 1.0
#define ISDB__ISD_FRESH_INV_WIDTH 0.1
/* guard_level: added in 1.2.0; 1.1.0's guard tested at monitor_level. */
#define ISDB__SINCE_guard_level ISDB__VERSION_WORD_1_2, 0.0
#define ISDB__ISD_GUARD_LEVEL 1e-3

/* The input arrays X0, R0, U_inv and beta_inv are checked after the
   list's other fields (the resolved config points to the policy's
   copies); the sizes of the rows kept (history, monitor_window,
   monitor_every) are resolved after it. */
#define ISDB__ISD_FIELDS(X)                                                                          \
    ISDB__UCB_HEAD_FIELDS(X)                                                                         \
    X(INT, int, n_offline, n_offline,                                                                \
      isdb__want_int(why, c->n_offline, "n_offline", 0, INT_MAX / (c->d + 1) - 1, "[0, INT_MAX / (d + 1) - 1]")) \
    X(INT, int, oracle, 0, isdb__want_flag(why, c->oracle, "oracle"))                                \
    X(INT, int, p_inv, 0, !c->oracle || isdb__want_int(why, c->p_inv, "p_inv", 0, c->d, "[0, d]"))   \
    X(OPTS, isdb_isd_options, est, isdb_isd_options_init(), isdb__isd_options_want(why, &c->est))   \
    X(INT, isdb_isd_learner, learner, ISDB_ISD_RES_ADAPTIVE,                                         \
      isdb__want_int(why, (int)c->learner, "learner", ISDB_ISD_RES_LINUCB, ISDB_ISD_RES_ADAPTIVE, "an isdb_isd_learner")) \
    X(INT, int, window, 100,                                                                         \
      c->learner != ISDB_ISD_RES_WINDOW || isdb__want_int(why, c->window, "window", 1, INT_MAX, ">= 1")) \
    X(REAL, double, gamma, 0.99,                                                                     \
      c->learner != ISDB_ISD_RES_DISCOUNT || isdb__want_real(why, c->gamma, "gamma", ISDB__ISD_GAMMA_MIN, 1.0, 2, "[1e-100, 1)")) \
    X(REAL, double, lambda, 1.0, isdb__want_ridge(why, c->lambda, "lambda"))                         \
    X(INT, int, refresh, 0, isdb__want_count(why, c->refresh, "refresh"))                            \
    X(INT, isdb_isd_radius, radius, ISDB_ISD_RADIUS_DATA,                                            \
      isdb__want_int(why, (int)c->radius, "radius", ISDB_ISD_RADIUS_PAPER, ISDB_ISD_RADIUS_DATA, "an isdb_isd_radius")) \
    X(REAL, double, delta, 0.01, isdb__want_delta(why, c->delta, "delta"))                           \
    X(REAL, double, R, 1.0, isdb__want_scale(why, c->R, "R"))                                        \
    X(REAL, double, L, 1.0, isdb__want_pos_scale(why, c->L, "L"))                                    \
    X(REAL, double, S, 1.0, isdb__want_scale(why, c->S, "S"))                                        \
    X(REAL, double, alpha, 1.0, isdb__want_scale(why, c->alpha, "alpha"))                            \
    X(REAL, double, delta_pi, -1.0,                                                                  \
      isdb__want_real(why, c->delta_pi, "delta_pi", -ISDB__REAL_MAX, ISDB__SCALE_MAX, 0, "< 0 (the plug-in) or [0, 1e30]")) \
    X(INT, int, recompute_every, 0, isdb__want_count(why, c->recompute_every, "recompute_every"))    \
    X(INT, int, history, 0, isdb__want_count(why, c->history, "history"))                            \
    X(INT, isdb_isd_monitor, monitor, ISDB_ISD_MONITOR_FALLBACK,                                     \
      isdb__want_int(why, (int)c->monitor, "monitor", ISDB_ISD_MONITOR_OFF, ISDB_ISD_MONITOR_RECOMPUTE, "an isdb_isd_monitor")) \
    X(INT, int, monitor_window, 0, isdb__want_count(why, c->monitor_window, "monitor_window"))       \
    X(INT, int, monitor_every, 0, isdb__want_count(why, c->monitor_every, "monitor_every"))          \
    X(INT, int, monitor_chunk, 0, isdb__want_count(why, c->monitor_chunk, "monitor_chunk"))          \
    X(REAL, double, monitor_level, 1e-4, isdb__want_open01(why, c->monitor_level, "monitor_level"))  \
    X(INT, int, monitor_confirm, 1, isdb__want_flag(why, c->monitor_confirm, "monitor_confirm"))     \
    X(INT, int, guard, 1, isdb__want_flag(why, c->guard, "guard"))                                   \
    X(INT, int, warm_start, 1, isdb__want_flag(why, c->warm_start, "warm_start"))                   \
    X(INT_SINCE, int, kalman, ISDB__ADAPTIVE_KALMAN, isdb__want_int(why, c->kalman, "kalman", 0, 8, "[0, 8]")) \
    X(REAL_SINCE, double, guard_level, ISDB__ISD_GUARD_LEVEL,                                        \
      isdb__want_real(why, c->guard_level, "guard_level", 0.0, 1.0, 2, "[0, 1)"))                     \
    X(REAL_SINCE, double, fresh_inv_width, ISDB__ISD_FRESH_INV_WIDTH,                                \
      isdb__want_scale(why, c->fresh_inv_width, "fresh_inv_width"))                                  \
    X(ARRAY, const double *, X0, X0, 1)                                                              \
    X(ARRAY, const double *, R0, R0, 1)                                                              \
    X(ARRAY, const double *, U_inv, NULL, 1)                                                         \
    X(ARRAY, const double *, beta_inv, NULL, 1)
#define ISDB__ARRAY_LEN_X0(c) ((int64_t)(c)->n_offline * (int64_t)(c)->d)
#define ISDB__ARRAY_LEN_R0(c) ((int64_t)(c)->n_offline)
#define ISDB__ARRAY_LEN_U_inv(c) ((int64_t)(c)->d * (int64_t)(c)->p_inv)
#define ISDB__ARRAY_LEN_beta_inv(c) ((int64_t)(c)->d)

ISDB__ONCE isdb_isd_config isdb_isd_config_init(int d, int max_arms, int n_offline, const double *X0, const double *R0) {
    isdb_isd_config c;
    memset(&c, 0, sizeof c);
    ISDB__ISD_FIELDS(ISDB__CFG_DEFAULT)
    return c;
}

/* The monitor's ring: pieces, and doubles per piece (defined with the
   monitor below). */
ISDB__ONCE_PRIVATE int isdb__isd_mon_cap(const isdb_isd_config *c);
ISDB__PRIVATE int isdb__isd_mon_stride(int d);
ISDB__ONCE_PRIVATE size_t isdb__isd_work_need(const isdb_isd_config *c);

/* Checks c, naming the first field refused in why (may be NULL), and
   writes the resolved config (history and monitor sizes). */
ISDB__ONCE_PRIVATE int isdb__isd_config_resolve(const isdb_isd_config *c, isdb_isd_config *r, isdb_refusal *why) {
    int d, need;
    if (!(isdb__want_start(why) && isdb__want_ptr(why, c, "cfg") ISDB__ISD_FIELDS(ISDB__CFG_CHECK)))
        return 0;
    d = c->d;
    if (!(c->n_offline == 0 || (isdb__want_ptr(why, c->X0, "X0") && isdb__want_ptr(why, c->R0, "R0"))))
        return 0;
    if (c->oracle) {
        if (!((c->p_inv == 0 || isdb__want_ptr(why, c->U_inv, "U_inv")) &&
              isdb__want(why, c->p_inv == 0 || c->beta_inv || c->n_offline >= 1, "n_offline",
                         ">= 1 when beta_inv is NULL")))
            return 0;
    } else if (!isdb__want(why, isdb_isd_estimate_work_size(d, c->n_offline, &c->est) != 0, "n_offline",
                           "enough rows for the estimator's windows and folds")) {
        return 0;
    }
    if (c->learner == ISDB_ISD_RES_ADAPTIVE) {
        isdb_adaptive_config a = isdb__isd_ada_config(c);
        if (!isdb__want(why, isdb_adaptive_config_check(&a, NULL) == ISDB_OK, "learner",
                        "ADAPTIVE: R, S, L, lambda, delta, alpha within isdb_adaptive_config's ranges"))
            return 0;
    }
    *r = *c;
    if (r->monitor_window == 0) r->monitor_window = 10 * d + 20;
    if (r->monitor != ISDB_ISD_MONITOR_OFF &&
        !isdb__want_int(why, r->monitor_window, "monitor_window", d + 10, INT_MAX, "0 or >= d + 10"))
        return 0;
    if (r->monitor_every == 0) r->monitor_every = 2 * d;
    /* The monitor's ring is indexed by int (and must fit the heap). */
    if (r->monitor != ISDB_ISD_MONITOR_OFF &&
        !isdb__want(why, isdb__count_mul(isdb__isd_mon_cap(r), isdb__isd_mon_stride(d)) >= 0,
                    c->monitor_chunk ? "monitor_chunk" : "monitor_window",
                    "(monitor_window / monitor_chunk + 2) (d (d + 1) / 2 + d + 2) <= INT_MAX"))
        return 0;
    need = r->history;
    if (r->learner == ISDB_ISD_RES_WINDOW) need = isdb__max_int(need, r->window);
    if (r->recompute_every > 0) need = isdb__max_int(need, r->recompute_every);
    if (r->monitor != ISDB_ISD_MONITOR_OFF) need = isdb__max_int(need, r->monitor_window);
    if (!isdb__want(why, need <= INT_MAX / (d + 1) - c->n_offline - 1, "history",
                    "the rows kept (history, window, recompute_every, monitor_window) and n_offline: "
                    "(n_offline + rows + 1) (d + 1) <= INT_MAX"))
        return 0;
    r->history = need;
    /* The scratch is indexed by int too. */
    return isdb__want(why, isdb__isd_work_need(r) <= (size_t)INT_MAX, r->oracle ? "d" : "n_offline",
                      "scratch (8 d^2 + 8 d doubles, or the estimator's on n_offline + history rows) <= INT_MAX");
}

ISDB__ONCE isdb_result isdb_isd_config_check(const isdb_isd_config *cfg, isdb_refusal *why) {
    isdb_isd_config r;
    return isdb__checked(isdb__isd_config_resolve(cfg, &r, why));
}

ISDB__DEFINE_CONFIG_WALK(isd, ISDB__ISD_FIELDS)
ISDB__CONFIG_FROM_SNAPSHOT(isd, ISDB_POLICY_ISD)

/* Doubles of scratch: the estimator on the largest pool, or the fits,
   rebuilds and tests (8 d^2 + 8 d), and at least select's 24 d. */
ISDB__ONCE_PRIVATE size_t isdb__isd_work_need(const isdb_isd_config *c) {
    size_t d = (size_t)c->d, need = 8 * d * d + 8 * d > 24 * d ? 8 * d * d + 8 * d : 24 * d;
    if (!c->oracle) {
        size_t est = isdb_isd_estimate_work_size(c->d, c->n_offline + c->history, &c->est);
        if (est > need) need = est;
    }
    return need;
}

ISDB__ONCE_PRIVATE void isdb__isd_fit_layout(isdb__isd_fit *f, isdb__arena *a, int d) {
    int dd = d * d;
    f->U = isdb__take_f64(a, dd);
    f->Ut = isdb__take_f64(a, dd);
    f->beta = isdb__take_f64(a, d);
    f->Lbeta = isdb__take_f64(a, dd);
    f->Winv = isdb__take_f64(a, dd);
    f->Wq = isdb__take_f64(a, dd);
    f->stat = isdb__take_f64(a, d);
    f->pvalue = isdb__take_f64(a, d);
    f->sizes = (int *)isdb__take(a, d, sizeof(int));
    f->invariant = (int *)isdb__take(a, d, sizeof(int));
}

/* The monitor's pieces (defined with the monitor below). */
ISDB__PRIVATE void isdb__isd_mon_rebuild(isdb_isd *p);

/* Carves (or with heap NULL measures) the heap of a resolved config. */
ISDB__ONCE_PRIVATE size_t isdb__isdp_layout(const isdb_isd_config *c, isdb_isd *p, void *heap) {
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
    p->_u_inv0 = isdb__take_f64(&a, c->oracle ? d * c->p_inv : 0);
    p->_beta0 = isdb__take_f64(&a, d);
    isdb__ridge_layout(&p->_res, &a, d, 1);
    p->_res_theta = isdb__take_f64(&a, d);
    p->_gram_disc = isdb__take_f64(&a, disc ? dd : 0);
    p->_gram_disc_next = isdb__take_f64(&a, disc ? dd : 0);
    p->_gram_tilde = isdb__take_f64(&a, disc ? dd : 0);
    p->_gram_tilde_next = isdb__take_f64(&a, disc ? dd : 0);
    p->_b_next = isdb__take_f64(&a, disc ? d : 0);
    p->_gamma = isdb__take_f64(&a, d);
    p->_z = isdb__take_f64(&a, d);
    p->_u = isdb__take_f64(&a, d);
    p->mon_cap = isdb__isd_mon_cap(c);
    p->_mon = isdb__take_f64(&a, isdb__count_mul(p->mon_cap, isdb__isd_mon_stride(d)));
    p->_work = isdb__take_f64(&a, (int)work);
    p->_ada_heap = p->_shadow_heap = NULL;
    if (c->learner == ISDB_ISD_RES_ADAPTIVE) {
        isdb_adaptive_config ac = isdb__isd_ada_config(c);
        isdb_adaptive probe;
        size_t bytes;
        ac = isdb__adaptive_resolve(&ac);
        bytes = isdb__adaptive_layout(&ac, &probe, NULL);
        if (bytes == 0) return 0;
        p->_ada_heap = isdb__take(&a, 1, bytes);
        p->_shadow_heap = c->guard ? isdb__take(&a, 1, bytes) : NULL;
    }
    p->_guard_loss = isdb__take_f64(&a, isdb__isd_guarded(c) ? c->monitor_window : 0);
    return a.overflow ? 0 : a.used;
}

/* Carves an ADAPTIVE learner's heap (after the policy's heap was zeroed). */
ISDB__ONCE_PRIVATE void isdb__isd_ada_layout(const isdb_isd_config *c, isdb_adaptive *a, void *heap) {
    isdb_adaptive_config ac = isdb__isd_ada_config(c);
    ac = isdb__adaptive_resolve(&ac);
    memset(a, 0, sizeof *a);
    a->cfg = ac;
    isdb__adaptive_layout(&ac, a, heap);
}

/* Runs an ADAPTIVE learner in dimension q (its buffers are for d): every
   ridge it keeps, hold's too (laid out only with hold). */
ISDB__PRIVATE void isdb__isd_ada_dim(isdb_adaptive *a, int q) {
    int k;
    a->cfg.d = q;
    for (k = 0; k < a->n_est; ++k) a->_est[k].ridge.d = q;
    a->hold_ridge.d = q;
}

ISDB__COLD_PRIVATE void isdb__isd_fit_copy(int d, const isdb__isd_fit *src, isdb__isd_fit *dst) {
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
    dst->s2 = src->s2;
    dst->cov_spread = src->cov_spread;
    dst->identifiable = src->identifiable;
    dst->jbd = src->jbd;
    isdb__copy(dd, src->U, dst->U);
    isdb__copy(dd, src->Ut, dst->Ut);
    isdb__copy(d, src->beta, dst->beta);
    isdb__copy(dd, src->Lbeta, dst->Lbeta);
    isdb__copy(dd, src->Winv, dst->Winv);
    isdb__copy(dd, src->Wq, dst->Wq);
    dst->quad = src->quad;
    isdb__copy(d, src->stat, dst->stat);
    isdb__copy(d, src->pvalue, dst->pvalue);
    memcpy(dst->sizes, src->sizes, (size_t)d * sizeof(int));
    memcpy(dst->invariant, src->invariant, (size_t)d * sizeof(int));
}

ISDB__PRIVATE void isdb__isd_fit_swap(isdb__isd_fit *a, isdb__isd_fit *b) {
    isdb__isd_fit t = *a;
    *a = *b;
    *b = t;
}

/* ---------------------------------------------------------------------------
   [ISD.FIT] The fit: beta_inv, its Gram matrix, the radii
   ------------------------------------------------------------------------ */

/* The invariant part has its own confidence set (beta_inv is estimated). */
ISDB__PRIVATE int isdb__isd_inv_active(const isdb_isd *p) {
    return p->_fit.p_inv > 0 && !(p->cfg.oracle && p->cfg.beta_inv);
}

/* ln(a / b) for a, b > 0: the log of the quotient where it is finite (the
   same bits as before), else ln a - ln b: with delta near DBL_MIN (inside
   its range) (p_inv + 1) / delta and 2 d / delta overflow, and an
   infinite radius or DeltaPi made a snapshot that load refuses. */
ISDB__PRIVATE double isdb__isd_log_over(double a, double b) {
    double q = a / b;
    return q <= DBL_MAX ? log(q) : log(a) - log(b);
}

/* Paper eq. 25 as a norm radius (eq. 20 when DeltaPi = 0), without alpha. */
ISDB__COLD_PRIVATE double isdb__isd_r_inv(const isdb_isd_config *c, int pi, double n, double lambda0, double dpi) {
    double a, rho;
    if (pi < 1 || !(lambda0 > 0.0) || !(n > 0.0)) return 0.0;
    a = 2.0 * log(1.0 / c->delta) + (double)pi * isdb__isd_log_over(c->L * c->L, (double)pi * lambda0);
    rho = c->R * sqrt(a > 0.0 ? a : 0.0);
    rho += 2.0 * c->L * c->L * c->S * sqrt(2.0 / lambda0 * isdb__isd_log_over((double)pi + 1.0, c->delta));
    rho += sqrt((double)pi * n) * dpi * c->L * c->S;
    rho += sqrt(n / lambda0) * dpi * c->L * c->L * c->S;
    return rho;
}

/* The invariant width's quadratic form: Wq = W_inv^T W_inv (its lower
   triangle), so that ||W_inv x||^2 = x^T Wq x costs d (d + 1) / 2 per arm
   instead of p_inv d; used when that is cheaper (p_inv > (d + 1) / 2).
   A function of W_inv only: recomputed after a load, not stored. */
ISDB__COLD_PRIVATE void isdb__isd_fit_quad(int d, isdb__isd_fit *f) {
    int pi = f->p_inv, i, j, l;
    isdb__zero(d * d, f->Wq);
    f->quad = pi > 0 && 2 * pi > d + 1;
    if (!f->quad) return;
    for (i = 0; i < d; ++i)
        for (j = 0; j <= i; ++j) {
            double s = 0.0;
            for (l = 0; l < pi; ++l) s += f->Winv[l * d + i] * f->Winv[l * d + j];
            f->Wq[i * d + j] = s;
        }
}

/* Completes a fit whose U, beta and p_inv are set: the Gram matrix of the
   n rows behind it, lambda0, lambda_max, the factor of U_inv^T Sigma U_inv
   and W_inv, DeltaPi and r_inv. Returns 0 if Sigma_beta cannot be
   factored even with the ridge fallback. w: work (>= 6 d^2 + 2 d). */
ISDB__COLD_PRIVATE int isdb__isd_fit_post(isdb_isd *p, isdb__isd_fit *f, int n, const double *X, double *w) {
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
    isdb__isd_fit_quad(d, f);
    f->delta_pi = 0.0;
    if (!c->oracle && pi > 0 && n > 0)
        f->delta_pi = c->delta_pi >= 0.0 ? c->delta_pi
                                         : sqrt(f->lambda_max * isdb__isd_log_over(2.0 * (double)d, c->delta) / (double)n);
    f->r_inv = known ? 0.0 : isdb__isd_r_inv(c, pi, (double)n, f->lambda0, f->delta_pi);
    return 1;
}

/* Fits the decomposition to n pool rows into f. Oracle mode keeps the
   basis of the oracle fit (U0) and re-estimates beta_inv unless given. */
ISDB__COLD_PRIVATE isdb_result isdb__isd_fit_rows(isdb_isd *p, isdb__isd_fit *f, int n, const double *X, const double *y,
                                             const double *U0) {
    const isdb_isd_config *c = &p->cfg;
    int d = c->d, dd = d * d, i, j;
    double *w = p->_work;
    isdb_result r = ISDB_OK;
    if (!c->oracle) {
        isdb_isd_fit out;
        memset(&out, 0, sizeof out); /* what estimate does not set stays defined */
        out.U = f->U;
        out.beta_inv = f->beta;
        out.stat = f->stat;
        out.pvalue = f->pvalue;
        out.sizes = f->sizes;
        out.invariant = f->invariant;
        r = isdb_isd_estimate(d, n, X, y, &c->est, &out, w);
        if (r < 0) return r;
        f->p_inv = out.p_inv;
        /* Nothing invariant: the ADAPTIVE learner works on x itself (a
           rotation changes nothing for it, and so p_inv = 0 is isdb_adaptive
           bit for bit). */
        if (out.p_inv == 0 && c->learner == ISDB_ISD_RES_ADAPTIVE) isdb__identity(d, f->U, 1.0);
        f->n_blocks = out.n_blocks;
        f->theta = out.theta;
        f->jbd = out.jbd;
        f->cov_spread = out.cov_spread;
        f->identifiable = out.identifiable;
        for (i = out.n_blocks; i < d; ++i) {
            f->sizes[i] = 0;
            f->invariant[i] = 0;
            f->stat[i] = 0.0;
            f->pvalue[i] = 0.0;
        }
    } else {
        int pi = c->p_inv;
        isdb__copy(dd, U0, f->U);
        f->p_inv = pi;
        f->n_blocks = 0;
        f->theta = 0.0;
        f->cov_spread = -1.0;
        f->identifiable = 1; /* the caller's basis: nothing to identify */
        memset(&f->jbd, 0, sizeof f->jbd);
        isdb__zero(d, f->stat);
        isdb__zero(d, f->pvalue);
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
    f->s2 = 0.0;
    if (f->p_inv > 0 && !(c->oracle && c->beta_inv) && n > f->p_inv) {
        double rss = 0.0;
        for (i = 0; i < n; ++i) {
            double e = y[i] - isdb__dot(d, X + i * d, f->beta);
            rss += e * e;
        }
        f->s2 = rss / (double)(n - f->p_inv);
    }
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

/* ---------------------------------------------------------------------------
   [ISD.RESIDUAL] The history and the residual learner
   ------------------------------------------------------------------------ */

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
        isdb__copy(d, p->_res_theta, p->_gamma);
        return;
    }
    for (i = 0; i < d; ++i) {
        double s = f->beta[i];
        for (j = 0; j < q; ++j) s += f->U[i * d + pi + j] * p->_res_theta[j];
        p->_gamma[i] = s;
    }
}

/* Rebuild period of the residual learner: the config's, or the default
   of the matching standalone policy (LinUCB max(4 q, 256), SW-UCB
   max(w, q)). */
ISDB__PRIVATE int isdb__isd_refresh(const isdb_isd_config *c, int q) {
    if (c->refresh) return c->refresh;
    return c->learner == ISDB_ISD_RES_WINDOW ? isdb__max_int(c->window, q) : isdb__max_int(4 * q, 256);
}

/* Residual learner back to no rows, in dimension p_res of the current fit. */
ISDB__COLD_PRIVATE void isdb__isd_res_clear(isdb_isd *p) {
    isdb__ridge *r = &p->_res;
    const isdb_isd_config *c = &p->cfg;
    int d = c->d, dd = d * d, q = d - p->_fit.p_inv;
    isdb__zero(dd, r->L);
    isdb__zero(dd, r->L_next);
    isdb__zero(dd, r->V);
    isdb__zero(d, r->inv_diag);
    isdb__zero(d, r->b);
    isdb__zero(d, r->z);
    isdb__zero(d, p->_res_theta);
    isdb__zero(2 * d, r->work);
    isdb__zero(4 * d, r->block);
    r->d = q;
    r->lambda = c->lambda;
    r->refresh = isdb__isd_refresh(c, q);
    r->logdet = 0.0;
    r->since_refresh = 0;
    if (q > 0) isdb__ridge_reset(r);
    if (c->learner == ISDB_ISD_RES_DISCOUNT) {
        isdb__zero(dd, p->_gram_disc);
        isdb__zero(dd, p->_gram_disc_next);
        isdb__zero(dd, p->_gram_tilde);
        isdb__zero(dd, p->_gram_tilde_next);
        isdb__zero(d, p->_b_next);
        if (q > 0) {
            isdb__identity(q, p->_gram_disc, c->lambda);
            isdb__identity(q, p->_gram_tilde, c->lambda);
        }
    }
    if (c->learner == ISDB_ISD_RES_ADAPTIVE) {
        isdb__isd_ada_dim(&p->_ada, q > 0 ? q : 1);
        isdb__adaptive_reset(&p->_ada.base);
    }
    p->n_res = 0.0;
}

/* ADAPTIVE: adds (z, res) and takes the estimate of the memory it plays. */
ISDB__PRIVATE void isdb__isd_ada_add(isdb_isd *p, const double *z, double res) {
    isdb__adaptive_update(&p->_ada.base, 0, z, res);
    isdb_adaptive_get_theta(&p->_ada, p->_res_theta);
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

/* With warm_start, ADAPTIVE learner a learns the log's rows in time
   order: the residual learner (full 0) their residual part under the
   current fit, the guard's (full 1) the rows themselves. Returns the rows. */
ISDB__PRIVATE int isdb__isd_warm_rows(const isdb_isd_config *c) {
    return c->learner == ISDB_ISD_RES_ADAPTIVE && c->warm_start ? c->n_offline : 0;
}

ISDB__PRIVATE int isdb__isd_warm(isdb_isd *p, isdb_adaptive *a, int full) {
    const isdb_isd_config *c = &p->cfg;
    int i, d = c->d, n = isdb__isd_warm_rows(c);
    for (i = 0; i < n; ++i) {
        const double *x = p->_pool_x + i * d;
        double y = p->_pool_y[i];
        if (!full) y = isdb__isd_residual(p, x, y, p->_z);
        isdb__adaptive_update(&a->base, 0, full ? x : p->_z, y);
    }
    return n;
}

/* The residual learner after a clear: warm-started when it learns. */
ISDB__PRIVATE void isdb__isd_res_warm(isdb_isd *p) {
    if (p->_res.d < 1) return;
    p->n_res = (double)isdb__isd_warm(p, &p->_ada, 0);
    if (p->n_res > 0.0) isdb_adaptive_get_theta(&p->_ada, p->_res_theta);
}

/* Rebuilds the residual learner from the most recent `rows` history rows
   under the current fit (after a recompute, a fallback or a reset). */
ISDB__COLD_PRIVATE void isdb__isd_res_rebuild(isdb_isd *p, int rows) {
    const isdb_isd_config *c = &p->cfg;
    isdb__ridge *r = &p->_res;
    int q, s;
    isdb__isd_res_clear(p);
    isdb__isd_res_warm(p);
    q = r->d;
    if (q < 1 || rows < 1) return;
    if (c->learner == ISDB_ISD_RES_ADAPTIVE || c->learner == ISDB_ISD_RES_LINUCB) {
        for (s = rows - 1; s >= 0; --s) {
            int slot = isdb__isd_hist_slot(p, s);
            double res = isdb__isd_residual(p, p->_hist_x + slot * c->d, p->_hist_y[slot], p->_z);
            if (c->learner == ISDB_ISD_RES_ADAPTIVE)
                isdb__isd_ada_add(p, p->_z, res);
            else
                isdb__ridge_add(r, p->_z, res);
        }
        p->n_res += (double)rows;
        if (c->learner == ISDB_ISD_RES_LINUCB) isdb__ridge_theta(r, p->_res_theta);
        return;
    }
    if (c->learner == ISDB_ISD_RES_WINDOW) {
        int k = isdb__min_int(rows, c->window);
        isdb__isd_res_sums(p, k, 1.0, r->L_next, r->b, NULL, NULL);
        p->n_res = (double)k;
    } else {
        isdb__isd_res_sums(p, rows, c->gamma, r->L_next, r->b, p->_gram_disc, p->_gram_tilde);
        p->n_res = (double)rows;
    }
    isdb__ridge_commit(r);
    isdb__ridge_theta(r, p->_res_theta);
}

/* Adds the row (z, res) to the residual learner; the history does not
   hold it yet. Cannot fail: when DISCOUNT's stored Gram sum does not
   factor, its factor is carried in factored form instead. */
ISDB__PRIVATE isdb_result isdb__isd_res_add(isdb_isd *p, const double *z, double res) {
    const isdb_isd_config *c = &p->cfg;
    isdb__ridge *r = &p->_res;
    int q = r->d, i, j;
    if (q < 1) {
        p->n_res += 1.0;
        return ISDB_OK;
    }
    if (c->learner == ISDB_ISD_RES_ADAPTIVE) {
        isdb__isd_ada_add(p, z, res);
    } else if (c->learner == ISDB_ISD_RES_LINUCB) {
        isdb__ridge_add(r, z, res);
        isdb__ridge_theta(r, p->_res_theta);
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
        isdb__ridge_commit(r);
        isdb__ridge_theta(r, p->_res_theta);
        if (!full) p->n_res += 1.0;
        return ISDB_OK;
    } else {
        double g = c->gamma, g2 = g * g, lam = c->lambda;
        double pad = (1.0 - g) * lam, pad2 = (1.0 - g) * (1.0 + g) * lam;
        for (i = 0; i < q; ++i) {
            for (j = 0; j <= i; ++j) {
                double zz = z[i] * z[j];
                p->_gram_disc_next[i * q + j] = g * p->_gram_disc[i * q + j] + zz;
                p->_gram_tilde_next[i * q + j] = g2 * p->_gram_tilde[i * q + j] + zz;
            }
            p->_gram_disc_next[i * q + i] += pad;
            p->_gram_tilde_next[i * q + i] += pad2;
            p->_b_next[i] = g * r->b[i] + res * z[i];
        }
        isdb__symmetrize_lower(q, p->_gram_disc_next);
        isdb__symmetrize_lower(q, p->_gram_tilde_next);
        isdb__copy(q * q, p->_gram_disc_next, r->L_next);
        isdb__swap_ptr(&p->_gram_disc, &p->_gram_disc_next);
        isdb__swap_ptr(&p->_gram_tilde, &p->_gram_tilde_next);
        isdb__copy(q, p->_b_next, r->b);
        if (isdb_chol(q, r->L_next) == ISDB_OK) {
            isdb__ridge_commit(r);
        } else {
            /* The stored sum rounds to a non-positive pivot (residual
               features far from unit scale): carry the factor and z as
               D-LinUCB does (isdb__dlinucb_factor_step), which cannot
               fail; z = L^-1 b by the same rotations, not solved. */
            isdb__chol_discount(q, r->L, r->L_next, z, res, g, r->work, NULL, r->z);
            isdb__chol_pad(q, r->L_next, pad, r->z, r->work);
            isdb__swap_ptr(&r->L, &r->L_next);
            for (i = 0; i < q; ++i) r->inv_diag[i] = 1.0 / r->L[i * q + i];
        }
        isdb__ridge_theta(r, p->_res_theta);
    }
    p->n_res += 1.0;
    return ISDB_OK;
}

/* ---------------------------------------------------------------------------
   [ISD.SCORES] Widths and scores (select)
   ------------------------------------------------------------------------ */

/* Rows (or effective rows) behind the residual estimate: t of eq. 30. */
ISDB__PRIVATE double isdb__isd_n_eff(const isdb_isd *p) {
    const isdb_isd_config *c = &p->cfg;
    if (c->learner == ISDB_ISD_RES_WINDOW) return p->n_res < (double)c->window ? p->n_res : (double)c->window;
    if (c->learner == ISDB_ISD_RES_DISCOUNT) {
        double g = c->gamma;
        return p->n_res > 0.0 ? -expm1(2.0 * p->n_res * log(g)) / ((1.0 - g) * (1.0 + g)) : 0.0;
    }
    if (c->learner == ISDB_ISD_RES_ADAPTIVE && p->_fit.p_inv < c->d) return (double)isdb_adaptive_get_memory(&p->_ada);
    return p->n_res;
}

/* DATA's invariant radius (without alpha): the fixed-design OLS interval
   of the fit, the chi-square(p_inv) tail bound of Laurent and Massart at
   level delta, scaled by the fit rows' residual scale (R when the fit
   has no spare rows). */
ISDB__PRIVATE double isdb__isd_r_data(const isdb_isd_config *c, const isdb__isd_fit *f) {
    double pi = (double)f->p_inv, l = log(1.0 / c->delta), s = f->s2 > 0.0 ? sqrt(f->s2) : c->R;
    return s * sqrt(pi + 2.0 * sqrt(pi * l) + 2.0 * l);
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
            rr = isdb__width(ISDB_WIDTH_DETTRACE, q, t, c->lambda, eta, c->R, c->S, c->L, 0.0);
            rr += c->L * c->S * f->delta_pi * root;
            if (active && f->n > 0)
                rr += c->L * (f->r_inv / sqrt(f->lambda0 * (double)f->n) + c->S * f->delta_pi) * root;
        }
        *r_inv = c->alpha * (active ? f->r_inv : 0.0);
        *r_res = c->alpha * rr;
    } else if (c->radius == ISDB_ISD_RADIUS_DATA) {
        double rr = q > 0 ? isdb__width(ISDB_WIDTH_DETTRACE, q, t, c->lambda, c->delta, c->R, c->S, c->L, 0.0) : 0.0;
        *r_inv = c->alpha * (active ? isdb__isd_r_data(c, f) : 0.0);
        *r_res = c->alpha * rr;
    } else if (c->radius == ISDB_ISD_RADIUS_CODE) {
        double rad = 2.0 * log(1.0 / c->delta), a;
        if (active && f->lambda_beta > 0.0) rad += (double)pi * log1p(1.0 / ((double)pi * f->lambda_beta));
        if (q > 0) rad += (double)q * log1p(t / (c->lambda * (double)q));
        a = c->S * ((double)q / (double)d) * sqrt(c->lambda) + sqrt(rad);
        *r_inv = *r_res = c->alpha * a;
    } else {
        *r_inv = *r_res = c->alpha;
    }
    /* ADAPTIVE brings its own residual width (the played memory's beta,
       alpha included); the radius sets the invariant one. */
    if (c->learner == ISDB_ISD_RES_ADAPTIVE) *r_res = q > 0 ? isdb_adaptive_get_beta(&p->_ada) : 0.0;
    /* Fresh contexts explore beta_inv's directions for free, and nothing
       online learns beta_inv but a refit. */
    if (c->learner == ISDB_ISD_RES_ADAPTIVE && q > 0 && !isdb__adaptive_recurring(&p->_ada))
        *r_inv *= c->fresh_inv_width;
}

/* B[j * 8 + a] = x_a[j] for m <= 8 arms (rows of X, d apart); lanes past
   m repeat the last arm. With the arms interleaved, each step below is
   one operation on eight lanes (two independent chains of four, as in
   isdb__lanes8_fwd_solve), which the compiler vectorizes, and every arm
   gets the operations, in the order, it gets alone: the bits do not
   depend on the grouping. If w is not NULL, also xw[a] = w . x_a
   (isdb__dot's order): its chains hide under the stores. */
ISDB__PRIVATE void isdb__isd_interleave(int d, const double *X, int m, const double *w, double *ISDB__RESTRICT B,
                                        double *xw) {
    const double *x[ISDB__LANES8];
    double o0 = 0.0, o1 = 0.0, o2 = 0.0, o3 = 0.0, o4 = 0.0, o5 = 0.0, o6 = 0.0, o7 = 0.0;
    int j, a;
    for (a = 0; a < ISDB__LANES8; ++a) x[a] = X + (a < m ? a : m - 1) * d;
    for (j = 0; j < d; ++j) {
        double *b = B + j * ISDB__LANES8;
        b[0] = x[0][j];
        b[1] = x[1][j];
        b[2] = x[2][j];
        b[3] = x[3][j];
        b[4] = x[4][j];
        b[5] = x[5][j];
        b[6] = x[6][j];
        b[7] = x[7][j];
        if (w) {
            const double wj = w[j];
            o0 += wj * b[0];
            o1 += wj * b[1];
            o2 += wj * b[2];
            o3 += wj * b[3];
            o4 += wj * b[4];
            o5 += wj * b[5];
            o6 += wj * b[6];
            o7 += wj * b[7];
        }
    }
    if (!w) return;
    xw[0] = o0;
    xw[1] = o1;
    xw[2] = o2;
    xw[3] = o3;
    xw[4] = o4;
    xw[5] = o5;
    xw[6] = o6;
    xw[7] = o7;
}

/* out[a] = v . x_a and out2[a] = w . x_a for the eight interleaved arms
   (isdb__dot's order; v and w may be one vector): two rows a pass, since
   each sum is a chain of dependent additions. */
ISDB__PRIVATE void isdb__isd_lanes_dot2(int d, const double *ISDB__RESTRICT B, const double *v, const double *w,
                                        double *out, double *out2) {
    double o0 = 0.0, o1 = 0.0, o2 = 0.0, o3 = 0.0, o4 = 0.0, o5 = 0.0, o6 = 0.0, o7 = 0.0;
    double t0 = 0.0, t1 = 0.0, t2 = 0.0, t3 = 0.0, t4 = 0.0, t5 = 0.0, t6 = 0.0, t7 = 0.0;
    int j;
    for (j = 0; j < d; ++j) {
        const double vj = v[j], wj = w[j], *b = B + j * ISDB__LANES8;
        o0 += vj * b[0];
        o1 += vj * b[1];
        o2 += vj * b[2];
        o3 += vj * b[3];
        o4 += vj * b[4];
        o5 += vj * b[5];
        o6 += vj * b[6];
        o7 += vj * b[7];
        t0 += wj * b[0];
        t1 += wj * b[1];
        t2 += wj * b[2];
        t3 += wj * b[3];
        t4 += wj * b[4];
        t5 += wj * b[5];
        t6 += wj * b[6];
        t7 += wj * b[7];
    }
    out[0] = o0;
    out[1] = o1;
    out[2] = o2;
    out[3] = o3;
    out[4] = o4;
    out[5] = o5;
    out[6] = o6;
    out[7] = o7;
    out2[0] = t0;
    out2[1] = t1;
    out2[2] = t2;
    out2[3] = t3;
    out2[4] = t4;
    out2[5] = t5;
    out2[6] = t6;
    out2[7] = t7;
}

#ifdef ISDB__AVX2
/* isdb__isd_interleave of eight arms with the three sums o_r[a] = w_r .
   x_a in one pass, in 32-byte vectors (the same bits): the gathers and
   stores bound it, so the sums cost little. */
ISDB__AVX2 ISDB__PRIVATE void isdb__isd_gather_avx2(int d, const double *const *x, const double *const *w,
                                                    double *ISDB__RESTRICT B, double *const *o) {
    isdb__vec32 a0, a1, b0, b1, c0, c1;
    int j;
    memset(&a0, 0, sizeof a0);
    a1 = b0 = b1 = c0 = c1 = a0;
    for (j = 0; j < d; ++j) {
        isdb__vec32 *b = (isdb__vec32 *)(B + j * ISDB__LANES8), s;
        const isdb__vec32 lo = isdb__gather32(x, 0, j), hi = isdb__gather32(x, 4, j);
        b[0] = lo;
        b[1] = hi;
        s = isdb__splat32(w[0][j]);
        a0 += s * lo;
        a1 += s * hi;
        s = isdb__splat32(w[1][j]);
        b0 += s * lo;
        b1 += s * hi;
        s = isdb__splat32(w[2][j]);
        c0 += s * lo;
        c1 += s * hi;
    }
    memcpy(o[0], &a0, sizeof a0);
    memcpy(o[0] + 4, &a1, sizeof a1);
    memcpy(o[1], &b0, sizeof b0);
    memcpy(o[1] + 4, &b1, sizeof b1);
    memcpy(o[2], &c0, sizeof c0);
    memcpy(o[2] + 4, &c1, sizeof c1);
}
#endif

/* isdb__isd_interleave of m <= 8 arms with o_r[a] = w_r . x_a for the
   three vectors w (which may repeat): the AVX2 kernel where the CPU has
   it, else the interleave and two-row sums; the same bits either way. */
ISDB__PRIVATE void isdb__isd_gather(int d, const double *X, int m, const double *const *w, double *ISDB__RESTRICT B,
                                    double *const *o) {
#ifdef ISDB__AVX2
    if (__builtin_cpu_supports("avx2")) {
        const double *x[ISDB__LANES8];
        int a;
        for (a = 0; a < ISDB__LANES8; ++a) x[a] = X + (a < m ? a : m - 1) * d;
        isdb__isd_gather_avx2(d, x, w, B, o);
        return;
    }
#endif
    isdb__isd_interleave(d, X, m, w[0], B, o[0]);
    isdb__isd_lanes_dot2(d, B, w[1], w[2], o[1], o[2]);
}

/* ||W_inv x||^2 (the invariant width's norm, squared) of the eight
   interleaved arms: x^T Wq x when `quad` (D-LinUCB's quadratic-form
   kernel, AVX2 where the CPU has it), else the p_inv dot products. */
ISDB__PRIVATE void isdb__isd_inv_norms(const isdb__isd_fit *f, int d, const double *ISDB__RESTRICT B, double *out) {
    int i, a;
    double s[ISDB__LANES8] = {0.0}, o[ISDB__LANES8], o2[ISDB__LANES8];
    if (f->quad) {
        isdb__lanes8_sym_form(d, f->Wq, B, s);
        for (a = 0; a < ISDB__LANES8; ++a) out[a] = s[a] > 0.0 ? s[a] : 0.0;
        return;
    }
    for (i = 0; i < f->p_inv; i += 2) {
        int pair = i + 1 < f->p_inv;
        isdb__isd_lanes_dot2(d, B, f->Winv + i * d, f->Winv + (pair ? i + 1 : i) * d, o, o2);
        for (a = 0; a < ISDB__LANES8; ++a) s[a] += o[a] * o[a];
        if (pair)
            for (a = 0; a < ISDB__LANES8; ++a) s[a] += o2[a] * o2[a];
    }
    for (a = 0; a < ISDB__LANES8; ++a) out[a] = s[a];
}

/* The rest of x's score given ni2 = ||W_inv x||^2 (0 when the invariant
   part has no width): returns the mean x.gamma, computed as x.beta_inv +
   w.z with w = L^-1 U_res^T x and z = L^-1 b (so p_inv = 0 scores exactly
   as LinUCB), and sets *nr2 = the residual norm^2 (|w|^2, or ||V^-1
   z_x||^2 in Vt for DISCOUNT). */
ISDB__PRIVATE double isdb__isd_res_part(isdb_isd *p, const double *x, double *nr2) {
    const isdb__isd_fit *f = &p->_fit;
    const isdb__ridge *r = &p->_res;
    int d = p->cfg.d, pi = f->p_inv, q = d - pi, i, j;
    double mean = isdb__dot(d, x, f->beta);
    *nr2 = 0.0;
    if (q < 1) return mean;
    if (f->identity)
        isdb__copy(d, x, p->_z);
    else
        for (j = 0; j < q; ++j) p->_z[j] = isdb__dot(d, f->Ut + (pi + j) * d, x);
    isdb__tri_solve(q, r->L, r->inv_diag, 0, p->_z, p->_u);
    mean += isdb__dot(q, p->_u, r->z);
    if (p->cfg.learner == ISDB_ISD_RES_DISCOUNT) {
        const double *Vt = p->_gram_tilde, *u = p->_u;
        double v = 0.0;
        isdb__tri_solve(q, r->L, r->inv_diag, 1, p->_u, p->_u);
        for (i = 0; i < q; ++i) {
            double off = 0.0;
            for (j = 0; j < i; ++j) off += Vt[i * q + j] * u[j];
            v += u[i] * (Vt[i * q + i] * u[i] + 2.0 * off);
        }
        *nr2 = v > 0.0 ? v : 0.0;
    } else {
        *nr2 = isdb__dot(q, p->_u, p->_u);
    }
    return mean;
}

/* The parts of x's score: the mean, *ni2 and *nr2 (see above). */
ISDB__COLD_PRIVATE double isdb__isd_parts(isdb_isd *p, const double *x, double *ni2, double *nr2) {
    *ni2 = 0.0;
    if (isdb__isd_inv_active(p)) {
        double *B = p->_work + 16 * p->cfg.d, n8[ISDB__LANES8];
        isdb__isd_interleave(p->cfg.d, x, 1, NULL, B, NULL);
        isdb__isd_inv_norms(&p->_fit, p->cfg.d, B, n8);
        *ni2 = n8[0];
    }
    return isdb__isd_res_part(p, x, nr2);
}

ISDB__PRIVATE double isdb__isd_combine(const isdb_isd *p, double mean, double ni2, double nr2) {
    if (p->cfg.radius == ISDB_ISD_RADIUS_PAPER || p->cfg.radius == ISDB_ISD_RADIUS_DATA)
        return mean + p->_r_inv * sqrt(ni2) + p->_r_res * sqrt(nr2);
    return mean + p->_r_res * sqrt(ni2 + nr2);
}

/* Z[a * q + j] = (U_res^T x_a)_j, j >= j0, for the m interleaved arms,
   two coordinates a pass (isdb__dot's order). */
ISDB__PRIVATE void isdb__isd_res_coords(const isdb_isd *p, const double *B, int m, int j0, double *Z) {
    const isdb__isd_fit *f = &p->_fit;
    int d = p->cfg.d, q = d - f->p_inv, j, a;
    double o[ISDB__LANES8], o2[ISDB__LANES8];
    for (j = j0; j < q; j += 2) {
        const double *u = f->Ut + (f->p_inv + j) * d;
        int pair = j + 1 < q;
        isdb__isd_lanes_dot2(d, B, u, pair ? u + d : u, o, o2);
        for (a = 0; a < m; ++a) {
            Z[a * q + j] = o[a];
            if (pair) Z[a * q + j + 1] = o2[a];
        }
    }
}

/* Every arm's score (into out, if not NULL), eight arms at a time: the
   invariant width (isdb__isd_inv_norms) and, except when discounting, the
   residual forward solves (isdb__lanes8_fwd_solve, the same bits as one
   arm's isdb__tri_solve); returns the first best arm. Scratch: 24 d of
   _work. */
ISDB__PRIVATE int isdb__isd_score_all(isdb_isd *p, const double *X, int n_arms, double *out) {
    const isdb__isd_fit *f = &p->_fit;
    const isdb__ridge *r = &p->_res;
    int d = p->cfg.d, q = d - f->p_inv, k, a, m, best = 0, active = isdb__isd_inv_active(p);
    int batch = q > 0 && p->cfg.learner != ISDB_ISD_RES_DISCOUNT;
    int coords = batch; /* x.beta_inv and U_res^T x are needed for the eight arms at once */
    double best_value = 0.0, ni[ISDB__LANES8] = {0.0}, wz[ISDB__LANES8], ww[ISDB__LANES8], xb[ISDB__LANES8];
    double *Z = p->_work, *W = p->_work + 8 * d, *B = p->_work + 16 * d;
    const double *rows[ISDB__LANES8];
    isdb__isd_widths(p, &p->_r_inv, &p->_r_res);
    if (q > 0 && p->cfg.learner == ISDB_ISD_RES_ADAPTIVE) {
        /* Nothing invariant: the adaptive policy's own scores. */
        if (f->identity) return isdb__adaptive_ucb_all(&p->_ada, X, n_arms, out);
        batch = 0;
    }
    for (k = 0; k < n_arms; k += m) {
        m = n_arms - k < ISDB__LANES8 ? n_arms - k : ISDB__LANES8;
        if (coords) {
            /* x.beta_inv and the first two of U_res^T x in the interleaving pass */
            const double *u = f->Ut + f->p_inv * d, *w[3];
            double *o[3], u1[ISDB__LANES8], u2[ISDB__LANES8];
            int n_u = f->identity ? 0 : isdb__min_int(q, 2);
            w[0] = f->beta;
            w[1] = n_u > 0 ? u : f->beta;
            w[2] = n_u > 1 ? u + d : w[1];
            o[0] = xb;
            o[1] = u1;
            o[2] = u2;
            isdb__isd_gather(d, X + k * d, m, w, B, o);
            for (a = 0; a < m; ++a) {
                if (n_u > 0) Z[a * q] = u1[a];
                if (n_u > 1) Z[a * q + 1] = u2[a];
            }
            if (n_u < q && !f->identity) isdb__isd_res_coords(p, B, m, n_u, Z);
        } else {
            isdb__isd_interleave(d, X + k * d, m, NULL, B, NULL);
        }
        if (active) isdb__isd_inv_norms(f, d, B, ni);
        if (batch) {
            if (f->identity)
                isdb__lanes_rows_n(X, d, n_arms, k, ISDB__LANES8, rows);
            else
                isdb__lanes_rows_n(Z, q, m, 0, ISDB__LANES8, rows);
            isdb__lanes8_fwd_solve_dots(q, r->L, r->inv_diag, rows, W, r->z, wz, ww);
        } else if (q > 0 && p->cfg.learner == ISDB_ISD_RES_ADAPTIVE) {
            /* x.beta_inv + the adaptive score of U_res^T x + the invariant width */
            isdb__adaptive_ucb_all(&p->_ada, Z, m, wz);
            for (a = 0; a < m; ++a) {
                double v = xb[a] + wz[a] + (active ? p->_r_inv * sqrt(ni[a]) : 0.0);
                if (out) out[k + a] = v;
                if (k + a == 0 || v > best_value) {
                    best_value = v;
                    best = k + a;
                }
            }
            continue;
        }
        for (a = 0; a < m; ++a) {
            double nr2, mean, v;
            if (batch) {
                mean = xb[a] + wz[a];
                nr2 = ww[a];
            } else {
                mean = isdb__isd_res_part(p, X + (k + a) * d, &nr2);
            }
            v = isdb__isd_combine(p, mean, active ? ni[a] : 0.0, nr2);
            if (out) out[k + a] = v;
            if (k + a == 0 || v > best_value) {
                best_value = v;
                best = k + a;
            }
        }
    }
    return best;
}

ISDB__PRIVATE isdb_result isdb__isd_select(isdb_policy *bp, const double *X, int n_arms, int *arm) {
    *arm = isdb__isd_score_all((isdb_isd *)bp, X, n_arms, NULL);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__isd_scores(isdb_policy *bp, const double *X, int n_arms, double *out) {
    isdb__isd_score_all((isdb_isd *)bp, X, n_arms, out);
    return ISDB_OK;
}

/* ---------------------------------------------------------------------------
   [ISD.GUARD] The guard, demotion, the fallback and refits
   ------------------------------------------------------------------------ */

/* Rows the residual learner is rebuilt from after an alarm: a window or
   discounted learner takes the kept rows (it forgets them as it would have:
   it continues as the full-dimensional learner that saw them), LinUCB
   starts afresh (it never forgets, and rows from before a change would
   bias it for good). */
ISDB__PRIVATE int isdb__isd_rebuild_rows(const isdb_isd *p) {
    /* (ADAPTIVE forgets by itself: the kept rows, as WINDOW and DISCOUNT) */
    return p->cfg.learner == ISDB_ISD_RES_LINUCB ? 0 : p->hist_count;
}

ISDB__PRIVATE void isdb__isd_swap_shadow(isdb_isd *p) {
    isdb_adaptive t = p->_ada;
    p->_ada = p->_shadow;
    p->_shadow = t;
}

/* Back to a full-dimensional learner that has seen no online rows (with
   warm and warm_start, the log's). */
ISDB__PRIVATE void isdb__isd_shadow_clear(isdb_isd *p, int warm) {
    p->shadow_state = ISDB__SHADOW_LIVE;
    p->guard_count = p->guard_head = p->guard_since = 0;
    p->guard_stat = 0.0;
    isdb__zero(p->cfg.monitor_window, p->_guard_loss);
    isdb__isd_ada_dim(&p->_shadow, p->cfg.d);
    isdb__adaptive_reset(&p->_shadow.base);
    p->shadow_rows = warm ? (double)isdb__isd_warm(p, &p->_shadow, 1) : 0.0;
}

/* The guard's row (x, y): ISD's squared error minus the full-dimensional
   learner's, both predicting before either learns the row. While nothing
   is invariant ISD is that learner: it is left stale. */
ISDB__PRIVATE void isdb__isd_guard_add(isdb_isd *p, const double *x, double y) {
    const isdb_isd_config *c = &p->cfg;
    int W = c->monitor_window, played;
    double e_isd, e_full;
    if (!isdb__isd_guarded(c) || p->shadow_state != ISDB__SHADOW_LIVE) return;
    if (p->_fit.p_inv == 0) {
        p->shadow_state = ISDB__SHADOW_STALE;
        return;
    }
    e_isd = y - isdb__dot(c->d, x, p->_gamma);
    played = p->_shadow.played;
    isdb__adaptive_update(&p->_shadow.base, 0, x, y);
    p->shadow_rows += 1.0;
    e_full = y - p->_shadow._pred[played]; /* its played memory's prediction, before the row */
    p->_guard_loss[(p->guard_head + p->guard_count) % W] = e_isd * e_isd - e_full * e_full;
    if (p->guard_count < W)
        p->guard_count++;
    else
        p->guard_head = (p->guard_head + 1) % W;
}

ISDB__PRIVATE void isdb__isd_fallback(isdb_isd *p);

/* Every monitor_every updates, once monitor_window rows are in: a one-sided
   t test of ISD's mean excess squared error over the full-dimensional
   learner's, level guard_level (0: monitor_level); on rejection the
   learner takes over. */
ISDB__PRIVATE void isdb__isd_guard_test(isdb_isd *p) {
    const isdb_isd_config *c = &p->cfg;
    int n = p->guard_count, i;
    double mean = 0.0, ss = 0.0, t, level;
    if (!isdb__isd_guarded(c) || p->shadow_state != ISDB__SHADOW_LIVE || p->fallback) return;
    if (p->guard_since < c->monitor_every) p->guard_since++;
    if (p->guard_since < c->monitor_every || n < c->monitor_window) return;
    p->guard_since = 0;
    for (i = 0; i < n; ++i) mean += p->_guard_loss[i];
    mean /= (double)n;
    for (i = 0; i < n; ++i) ss += (p->_guard_loss[i] - mean) * (p->_guard_loss[i] - mean);
    if (!(ss > 0.0)) return;
    t = mean / sqrt(ss / ((double)(n - 1) * (double)n));
    p->guard_stat = t;
    level = c->guard_level > 0.0 ? c->guard_level : c->monitor_level;
    if (t > 0.0 && 0.5 * isdb__f_sf(t * t, 1.0, (double)(n - 1)) < level) isdb__isd_fallback(p);
}

/* Switches to full-dimensional learning: S_inv = {0}, basis I, a fresh
   residual learner (with the guard, its full-dimensional learner). */
ISDB__COLD_PRIVATE void isdb__isd_fallback(isdb_isd *p) {
    isdb__isd_fit *f = &p->_fit;
    int d = p->cfg.d, dd = d * d;
    isdb__identity(d, f->U, 1.0);
    isdb__identity(d, f->Ut, 1.0);
    isdb__zero(d, f->beta);
    isdb__zero(dd, f->Lbeta);
    isdb__zero(dd, f->Winv);
    isdb__zero(dd, f->Wq);
    f->quad = 0;
    isdb__zero(d, f->stat);
    isdb__zero(d, f->pvalue);
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
    f->s2 = 0.0;
    p->fallback = 1;
    if (isdb__isd_guarded(&p->cfg) && p->shadow_state == ISDB__SHADOW_LIVE) {
        /* the full-dimensional learner has learnt every row: it takes over,
           and the guard keeps the residual learner, emptied in dimension d */
        isdb__isd_res_clear(p);
        isdb__isd_swap_shadow(p);
        p->shadow_state = ISDB__SHADOW_SWAPPED;
        p->n_res = p->shadow_rows;
        isdb_adaptive_get_theta(&p->_ada, p->_res_theta);
    } else {
        isdb__isd_res_rebuild(p, isdb__isd_rebuild_rows(p));
    }
    isdb__isd_update_gamma(p);
}

/* Demotes the invariant blocks flagged in `bad` (nb_inv doubles, 1 =
   demote; in oracle mode one block, all of S_inv) to the residual part:
   the basis is reordered (kept invariant blocks first), beta_inv refitted
   by eq. 6 in the smaller invariant subspace on the rows behind the fit,
   and the residual learner rebuilt from the kept online rows. Nothing left
   invariant: the full fallback. */
ISDB__COLD_PRIVATE void isdb__isd_demote(isdb_isd *p, const double *bad) {
    const isdb_isd_config *c = &p->cfg;
    isdb__isd_fit *f = &p->_fit, *g = &p->_fit_next;
    int d = c->d, dd = d * d, n = f->n, nb = f->n_blocks, pass, b, off, col, pos, i, j, pi = 0;
    double *w = p->_work;
    if (nb == 0 || c->oracle) {
        p->demotions++;
        isdb__isd_fallback(p);
        return;
    }
    isdb__isd_fit_copy(d, f, g);
    /* pass 2: kept invariant blocks; 1: demoted; 0: residual blocks. */
    for (pass = 2, col = 0, pos = 0; pass >= 0; --pass)
        for (b = 0, off = 0; b < nb; off += f->sizes[b++]) {
            int cls = f->invariant[b] ? (bad[b] != 0.0 ? 1 : 2) : 0;
            if (cls != pass) continue;
            for (j = 0; j < f->sizes[b]; ++j, ++col)
                for (i = 0; i < d; ++i) g->U[i * d + col] = f->U[i * d + off + j];
            g->sizes[pos] = f->sizes[b];
            g->stat[pos] = f->stat[b];
            g->pvalue[pos] = f->pvalue[b];
            g->invariant[pos] = pass == 2;
            if (pass == 2) pi += f->sizes[b];
            ++pos;
        }
    p->demotions++;
    if (pi == 0) {
        isdb__isd_fallback(p);
        return;
    }
    g->p_inv = pi;
    isdb__isd_normal(d, p->_pool_x, p->_pool_y, 0, n, 0, 0, c->est.intercept, w, w + dd, w + dd + d);
    isdb__isd_subspace_ols(d, w, w + dd, g->U, 0, pi, g->beta, w + dd + 2 * d, w + 2 * dd + 2 * d,
                           w + 3 * dd + 2 * d, w + 4 * dd + 2 * d, w + 4 * dd + 3 * d);
    if (!isdb__isd_fit_post(p, g, n, p->_pool_x, w)) {
        isdb__isd_fallback(p);
        return;
    }
    {
        double rss = 0.0;
        for (i = 0; i < n; ++i) {
            double e = p->_pool_y[i] - isdb__dot(d, p->_pool_x + i * d, g->beta);
            rss += e * e;
        }
        g->s2 = n > pi ? rss / (double)(n - pi) : 0.0;
    }
    isdb__isd_fit_swap(&p->_fit, &p->_fit_next);
    isdb__isd_res_rebuild(p, isdb__isd_rebuild_rows(p));
    isdb__isd_update_gamma(p);
    isdb__isd_mon_rebuild(p);
}

/* The guard after a refit: a learner that took over returns to the guard
   (the residual learner is rebuilt under the new fit), a stale one is
   rebuilt from the kept rows; the error ring starts again. */
ISDB__COLD_PRIVATE void isdb__isd_shadow_refit(isdb_isd *p) {
    int k, state = p->shadow_state;
    if (state == ISDB__SHADOW_SWAPPED) isdb__isd_swap_shadow(p);
    if (state == ISDB__SHADOW_STALE) {
        isdb__isd_shadow_clear(p, 1);
        for (k = p->hist_count - 1; k >= 0; --k) {
            int slot = isdb__isd_hist_slot(p, k);
            isdb__adaptive_update(&p->_shadow.base, 0, p->_hist_x + slot * p->cfg.d, p->_hist_y[slot]);
        }
        p->shadow_rows += (double)p->hist_count;
    }
    p->shadow_state = ISDB__SHADOW_LIVE;
    p->guard_count = p->guard_head = p->guard_since = 0;
}

/* Re-estimates on the offline rows and the kept online rows; on success
   replaces the fit and rebuilds the residual learner from the history. */
ISDB__COLD_PRIVATE isdb_result isdb__isd_refit(isdb_isd *p) {
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
    if (isdb__isd_guarded(c)) isdb__isd_shadow_refit(p);
    p->fallback = 0;
    p->mon_suspect = 0; /* an alarm under the old fit says nothing of the new one */
    isdb__isd_res_rebuild(p, p->hist_count);
    isdb__isd_update_gamma(p);
    isdb__isd_mon_rebuild(p);
    return r;
}

/* ---------------------------------------------------------------------------
   [ISD.MONITOR] The invariance monitor
   ------------------------------------------------------------------------ */

/* Rows per residual piece of the monitor's test: monitor_chunk, or by
   default the residual learner's memory (the window; about 1 / (1 -
   gamma) rows when discounting; a quarter of the test window for LinUCB),
   at least 2 p_res + 2. Pieces are aligned on the count of online rows
   (piece k holds rows k chunk .. (k + 1) chunk - 1). */
ISDB__PRIVATE int isdb__isd_chunk(const isdb_isd_config *c, int q) {
    int base = c->monitor_chunk;
    if (base == 0) {
        if (c->learner == ISDB_ISD_RES_WINDOW)
            base = c->window;
        else if (c->learner == ISDB_ISD_RES_DISCOUNT)
            base = 1.0 / (1.0 - c->gamma) < (double)c->monitor_window ? (int)ceil(1.0 / (1.0 - c->gamma))
                                                                       : c->monitor_window;
        else
            base = isdb__max_int(1, c->monitor_window / 4);
    }
    return isdb__max_int(base, 2 * q + 2);
}

/* Pieces the monitor keeps: a test window of monitor_window rows spans at
   most monitor_window / chunk + 2 of them. */
ISDB__ONCE_PRIVATE int isdb__isd_mon_cap(const isdb_isd_config *c) {
    if (c->monitor == ISDB_ISD_MONITOR_OFF) return 0;
    return c->monitor_window / isdb__isd_chunk(c, 0) + 2;
}

/* Doubles per piece: the packed lower triangle of sum u u^T (u = U^T x),
   sum r u (r = y - x.beta_inv), sum r^2 and the row count. */
ISDB__PRIVATE int isdb__isd_mon_stride(int d) { return d * (d + 1) / 2 + d + 2; }

ISDB__PRIVATE int isdb__isd_mon_active(const isdb_isd *p) {
    return p->cfg.monitor != ISDB_ISD_MONITOR_OFF && !p->fallback && p->_fit.p_inv > 0;
}

/* Adds online row number `count` (x, y) to its piece, O(d^2). */
ISDB__PRIVATE void isdb__isd_mon_add(isdb_isd *p, const double *x, double y, uint64_t count) {
    const isdb__isd_fit *f = &p->_fit;
    int d = p->cfg.d, stride = isdb__isd_mon_stride(d), chunk = isdb__isd_chunk(&p->cfg, d - f->p_inv), i, j;
    uint64_t piece = count / (uint64_t)chunk;
    double *slot = p->_mon + (size_t)(piece % (uint64_t)p->mon_cap) * (size_t)stride, *G = slot,
           *c = slot + d * (d + 1) / 2, *u = p->_u, r;
    if (count % (uint64_t)chunk == 0) isdb__zero(stride, slot);
    r = y - isdb__dot(d, x, f->beta);
    for (j = 0; j < d; ++j) u[j] = isdb__dot(d, f->Ut + j * d, x);
    for (i = 0; i < d; ++i) {
        double ui = u[i];
        for (j = 0; j <= i; ++j) G[j] += ui * u[j];
        G += i + 1;
        c[i] += r * ui;
    }
    c[d] += r * r;
    c[d + 1] += 1.0;
}

/* Recomputes the pieces from the kept rows under the current fit (after a
   refit, a demotion, a load). */
ISDB__COLD_PRIVATE void isdb__isd_mon_rebuild(isdb_isd *p) {
    int d = p->cfg.d, s;
    if (p->mon_cap < 1) return;
    isdb__zero(p->mon_cap * isdb__isd_mon_stride(d), p->_mon);
    if (!isdb__isd_mon_active(p)) return;
    for (s = p->hist_count - 1; s >= 0; --s) {
        int slot = isdb__isd_hist_slot(p, s);
        isdb__isd_mon_add(p, p->_hist_x + slot * d, p->_hist_y[slot], p->mon_count - 1 - (uint64_t)s);
    }
}

/* One test on the accumulated sums of `count` pieces (`rows` rows): Sb
   (the Schur complement S of the residual coordinates, p_inv x p_inv),
   rhs, e0 (explained by the residual pieces alone) and ss (sum r^2). For
   each invariant block b, with e = S^-1 rhs the estimate of the error of
   beta_inv in U_inv coordinates and Cov = s2on S^-1 + s2 Sigma_beta^-1
   (the online error plus that of the offline fit), the Wald statistic
   e_b^T Cov_bb^-1 e_b / s_b against F(s_b, df2), df2 = rows - count p_res
   - p_inv. Writes the p-values to pb and returns the number of invariant
   blocks, or 0 when df2 < max(d, 10) or the sums are degenerate. */
ISDB__PRIVATE int isdb__isd_mon_eval(isdb_isd *p, int count, double rows, const double *Sb, const double *rhs,
                                     double e0, double ss, double *pb, double *fmax_out) {
    const isdb_isd_config *c = &p->cfg;
    const isdb__isd_fit *f = &p->_fit;
    int d = c->d, dd = d * d, pi = f->p_inv, q = d - pi, blocks = f->n_blocks > 0 && !c->oracle, nbi = 0, b, off,
        i, j;
    double *G = p->_work, *L = G + dd, *Tm = L + dd, *h = p->_work + 4 * dd + 2 * d, *a = h + d, *u = a + d;
    double df2 = rows - (double)(count * q + pi), e1, s2on;
    if (df2 < (double)isdb__max_int(d, 10)) return 0;
    if (!isdb__sym_factor(pi, Sb, L)) return 0;
    isdb_chol_solve(pi, L, rhs, a);
    e1 = e0 + isdb__dot(pi, rhs, a);
    s2on = (ss - e1) / df2;
    if (!(s2on > 0.0)) return 0;
    if (blocks) {
        for (b = 0; b < f->n_blocks; ++b)
            if (f->invariant[b]) ++nbi;
    } else {
        nbi = 1;
    }
    if (nbi == 1) {
        /* One invariant block: with S = Ls Ls^T and Sigma_beta = Lb Lb^T,
           Lb^T Cov Lb = s2on B^T B + s2 I, B = Ls^-1 Lb (lower triangular),
           so the statistic is f^T (s2on B^T B + s2 I)^-1 f with f = Lb^T e;
           without an offline error (s2 = 0) it is rhs^T S^-1 rhs / s2on. */
        double wald, fb;
        if (f->s2 > 0.0) {
            double *B = G, *M = p->_work + 4 * dd + 8 * d, *col = u, *fv = h;
            int l2;
            for (j = 0; j < pi; ++j) {
                for (i = 0; i < pi; ++i) col[i] = i >= j ? f->Lbeta[i * pi + j] : 0.0;
                /* forward substitution from row j (the rows above are 0) */
                for (i = j; i < pi; ++i) {
                    double s = col[i];
                    for (l2 = j; l2 < i; ++l2) s -= L[i * pi + l2] * col[l2];
                    col[i] = s / L[i * pi + i];
                }
                for (i = 0; i < pi; ++i) B[i * pi + j] = col[i];
            }
            for (i = 0; i < pi; ++i)
                for (j = 0; j <= i; ++j) {
                    double s = 0.0;
                    for (l2 = i; l2 < pi; ++l2) s += B[l2 * pi + i] * B[l2 * pi + j];
                    M[i * pi + j] = M[j * pi + i] = s2on * s + (i == j ? f->s2 : 0.0);
                }
            for (i = 0; i < pi; ++i) {
                double s = 0.0;
                for (l2 = i; l2 < pi; ++l2) s += f->Lbeta[l2 * pi + i] * a[l2];
                fv[i] = s;
            }
            isdb__sym_solve(pi, M, fv, col, Tm);
            wald = isdb__dot(pi, fv, col);
        } else {
            wald = (e1 - e0) / s2on;
        }
        fb = wald > 0.0 ? wald / (double)pi : 0.0;
        pb[0] = isdb__f_sf(fb, (double)pi, df2);
        if (fb > *fmax_out) *fmax_out = fb;
        return 1;
    }
    for (b = 0, off = 0; b < nbi; off += blocks ? f->sizes[b] : pi, ++b) {
        int sb = blocks ? f->sizes[b] : pi;
        double wald, fb;
        for (j = 0; j < sb; ++j) {
            isdb__zero(pi, u);
            u[off + j] = 1.0;
            isdb_chol_solve(pi, L, u, h);
            for (i = 0; i < sb; ++i) G[i * sb + j] = s2on * h[off + i];
            if (f->s2 > 0.0) {
                isdb_chol_solve(pi, f->Lbeta, u, h);
                for (i = 0; i < sb; ++i) G[i * sb + j] += f->s2 * h[off + i];
            }
        }
        for (i = 0; i < sb; ++i)
            for (j = 0; j < i; ++j) G[i * sb + j] = G[j * sb + i] = 0.5 * (G[i * sb + j] + G[j * sb + i]);
        isdb__sym_solve(sb, G, a + off, h, Tm);
        wald = isdb__dot(sb, a + off, h);
        fb = wald > 0.0 ? wald / (double)sb : 0.0;
        pb[b] = isdb__f_sf(fb, (double)sb, df2);
        if (fb > *fmax_out) *fmax_out = fb;
    }
    return nbi;
}

/* The invariance monitor (our extension). Online rows go, as they come,
   into pieces of `chunk` rows (isdb__isd_chunk): per piece the sums of u
   u^T, r u and r^2 in U coordinates, r = y - x.beta_inv. Every
   monitor_every updates, on the pieces covering the last min(rows kept,
   monitor_window) rows, the model
     r = u_res.delta_piece + noise    (the residual part may move between
                                       pieces; beta_inv is right)
   against the same plus u_inv.e with one e for the window: per invariant
   block the Wald test above, on all those pieces and on the newest half
   and quarter of them (a change in the last rows is not diluted by older
   ones). A block's p-value is its smallest over the windows, times the
   number of windows and of invariant blocks (Bonferroni). Blocks below
   monitor_level are demoted to the residual part (FALLBACK; RECOMPUTE
   refits first), at once or once a test on later rows confirms the alarm
   (monitor_confirm). Exact under Gaussian noise when the residual part is
   constant within pieces and the offline fit's error is Gaussian; cost
   O(d^2) per update for the sums, O(pieces (p_res^3 + p_res^2 p_inv +
   p_res p_inv^2) + p_inv^3) per test. */
ISDB__COLD_PRIVATE void isdb__isd_monitor_test(isdb_isd *p) {
    const isdb_isd_config *c = &p->cfg;
    const isdb__isd_fit *f = &p->_fit;
    int d = c->d, dd = d * d, pi = f->p_inv, q = d - pi, chunk, stride = isdb__isd_mon_stride(d), tp = d * (d + 1) / 2;
    int scales = 0, nbi = 0, b, any = 0, settled, m, k, i, j, l, targets[3], nt = 0, avail;
    uint64_t k_new, k_first, start;
    double *G = p->_work, *L = G + dd, *Tm = L + dd, *Sb = Tm + dd, *rhs = Sb + dd, *h = rhs + d, *cr = h + 3 * d,
           *S2 = cr + d, *pmin = S2 + 0, *pb = pmin + d, *bad = pb + d;
    double e0 = 0.0, ss = 0.0, rows = 0.0, fmaxv = 0.0, best = 1.0;
    chunk = isdb__isd_chunk(c, q);
    avail = isdb__min_int(p->hist_count, c->monitor_window);
    k_new = (p->mon_count - 1) / (uint64_t)chunk;
    start = p->mon_count - (uint64_t)avail;
    k_first = (start + (uint64_t)chunk - 1) / (uint64_t)chunk;
    /* While an alarm awaits confirmation, only the pieces after it are
       tested: the window's rows once it has moved past the alarm. */
    settled = p->mon_suspect > 0 && k_first >= p->mon_suspect;
    if (p->mon_suspect > 0 && !settled) k_first = p->mon_suspect;
    if (k_first > k_new) return;
    /* The newest piece is still filling: left out while it has fewer than
       2 p_res + 2 rows (its residual fit would be (nearly) singular). */
    if (p->_mon[(size_t)(k_new % (uint64_t)p->mon_cap) * (size_t)stride + (size_t)(tp + d + 1)] < (double)(2 * q + 2)) {
        if (k_new == k_first) return;
        --k_new;
    }
    m = (int)(k_new - k_first + 1);
    targets[nt++] = m / 4;
    if (m / 2 != m / 4) targets[nt++] = m / 2;
    if (m != m / 2) targets[nt++] = m;
    isdb__zero(pi * pi, Sb);
    isdb__zero(pi, rhs);
    for (k = 0, l = 0; k < m; ++k) {
        const double *slot = p->_mon + (size_t)((k_new - (uint64_t)k) % (uint64_t)p->mon_cap) * (size_t)stride;
        const double *cs = slot + tp, *gp = slot;
        double *hh = h;
        /* unpack the piece's Gram matrix */
        for (i = 0; i < d; ++i) {
            for (j = 0; j <= i; ++j) G[i * d + j] = G[j * d + i] = gp[j];
            gp += i + 1;
        }
        ss += cs[d];
        rows += cs[d + 1];
        if (q > 0) {
            for (i = 0; i < q; ++i) {
                for (j = 0; j < q; ++j) Tm[i * q + j] = G[(pi + i) * d + pi + j];
                cr[i] = cs[pi + i];
            }
            if (isdb__sym_factor(q, Tm, L)) {
                isdb_chol_solve(q, L, cr, hh);
                e0 += isdb__dot(q, cr, hh);
                for (j = 0; j < pi; ++j) {
                    double *col = h + d;
                    for (i = 0; i < q; ++i) col[i] = G[(pi + i) * d + j];
                    isdb_chol_solve(q, L, col, col);
                    for (i = 0; i < q; ++i) Tm[i * pi + j] = col[i];
                }
            } else {
                isdb__zero(q, hh);
                isdb__zero(q * pi, Tm);
            }
        }
        for (i = 0; i < pi; ++i) {
            double v = cs[i];
            int t2;
            for (t2 = 0; t2 < q; ++t2) v -= G[(pi + t2) * d + i] * hh[t2];
            rhs[i] += v;
            for (j = 0; j <= i; ++j) {
                double g = G[i * d + j];
                for (t2 = 0; t2 < q; ++t2) g -= G[(pi + t2) * d + i] * Tm[t2 * pi + j];
                Sb[i * pi + j] += g;
                if (j < i) Sb[j * pi + i] = Sb[i * pi + j];
            }
        }
        while (l < nt && targets[l] < k + 1) ++l;
        if (l < nt && targets[l] == k + 1) {
            int kb = isdb__isd_mon_eval(p, k + 1, rows, Sb, rhs, e0, ss, pb, &fmaxv);
            if (kb > 0) {
                for (b = 0; b < kb; ++b) pmin[b] = scales == 0 || pb[b] < pmin[b] ? pb[b] : pmin[b];
                nbi = kb;
                ++scales;
            }
            ++l;
        }
    }
    (void)S2;
    if (scales == 0) return; /* too few rows yet: test at the next update */
    p->since_check = 0;
    for (b = 0; b < nbi; ++b) {
        double adj = pmin[b] * (double)scales * (double)nbi;
        bad[b] = adj < c->monitor_level ? 1.0 : 0.0;
        if (bad[b] != 0.0) any = 1;
        if (adj < best) best = adj;
    }
    p->monitor_stat = fmaxv;
    p->monitor_pvalue = best;
    /* With monitor_confirm an alarm is acted on only when a test on the
       rows after it alarms too (under the null, independent of the first);
       the alarm is cleared once a whole window of later rows has not. */
    if (!any) {
        if (settled) p->mon_suspect = 0;
        return;
    }
    p->alarms++;
    if (c->monitor_confirm && p->mon_suspect == 0) {
        p->mon_suspect = k_new + 1;
        return;
    }
    p->mon_suspect = 0;
    if (c->monitor == ISDB_ISD_MONITOR_RECOMPUTE && !p->monitor_recomputed) {
        p->monitor_recomputed = 1;
        if (isdb__isd_refit(p) >= 0) return;
    }
    isdb__isd_demote(p, bad);
}

ISDB__PRIVATE void isdb__isd_monitor(isdb_isd *p) {
    if (!isdb__isd_mon_active(p)) return;
    if (p->since_check < p->cfg.monitor_every) p->since_check++;
    if (p->since_check < p->cfg.monitor_every || p->mon_count == 0) return;
    isdb__isd_monitor_test(p);
}

/* ---------------------------------------------------------------------------
   [ISD.UPDATE] update
   ------------------------------------------------------------------------ */

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
    isdb__isd_guard_add(p, x, y);
    res = isdb__isd_residual(p, x, y, z);
    if ((r = isdb__isd_res_add(p, z, res)) != ISDB_OK) return r;
    isdb__isd_push(p, x, y);
    if (isdb__isd_mon_active(p)) isdb__isd_mon_add(p, x, y, p->mon_count);
    p->mon_count++;
    isdb__isd_update_gamma(p);
    if (c->recompute_every > 0 && ++p->since_recompute >= c->recompute_every) {
        p->since_recompute = 0;
        p->monitor_recomputed = 0;
        isdb__isd_refit(p);
    }
    isdb__isd_monitor(p);
    isdb__isd_guard_test(p);
    return ISDB_OK;
}

/* Views on the parts of a snapshot's fit that the residual learner's
   checks need. */
typedef struct isdb__isd_fit_views {
    int p_inv, identity;
    isdb__ser_view U, beta;
} isdb__isd_fit_views;

/* ---------------------------------------------------------------------------
   [ISD.SNAPSHOT] Snapshot of ISD
   ------------------------------------------------------------------------ */

/* On CHECK: counts and statistics in range (p-values in [0, 1] or -1)
   and consistent (below); Ut the transpose of U, and U exactly I when
   marked identity (p_inv 0); with beta_inv estimated and p_inv > 0, Lbeta
   (p_inv x p_inv, stride p_inv) lower with a positive diagonal and
   Lbeta W_inv = U_inv^T on W_inv's first p_inv rows, the rest of both
   zero (all zero when beta_inv is known). */
ISDB__ONCE_PRIVATE isdb__isd_fit_views isdb__isd_ser_fit(isdb_ser *s, isdb__isd_fit *f, const isdb_isd_config *c,
                                                    int nmax) {
    int d = c->d, dd = d * d, i, j, k, pi, n, known = c->oracle && c->beta_inv;
    double l0, lmax, lb, dpi, want;
    isdb__isd_fit_views out;
    isdb__ser_view Ut, Lb, W, pv;
    out.p_inv = pi = isdb__ser_int(s, &f->p_inv, 0, d);
    isdb__ser_int(s, &f->n_blocks, 0, d);
    n = isdb__ser_int(s, &f->n, 0, nmax);
    out.identity = isdb__ser_int(s, &f->identity, 0, 1);
    isdb__ser_require(s, !out.identity || pi == 0);
    isdb__ser_real(s, &f->theta, 1);
    /* The fit's statistics, as isdb__isd_fit_post derives them: lambda0
       = max(lambda_min, DBL_EPSILON lambda_max), normal when rows make an
       invariant part (its width divides by it); lambda_beta not a positive
       subnormal (its reciprocal must be finite); delta_pi and r_inv
       recomputed. */
    l0 = isdb__ser_real_in(s, &f->lambda0, 0.0, DBL_MAX);
    lmax = isdb__ser_real_in(s, &f->lambda_max, 0.0, DBL_MAX);
    isdb__ser_require(s, l0 <= lmax * (1.0 + ISDB__SER_TOL) && l0 >= DBL_EPSILON * lmax * (1.0 - ISDB__SER_TOL) &&
                             (n == 0 || pi == 0 || l0 >= DBL_MIN));
    lb = isdb__ser_real_in(s, &f->lambda_beta, -DBL_MAX, DBL_MAX);
    isdb__ser_require(s, lb <= 0.0 || lb >= DBL_MIN);
    dpi = isdb__ser_real_in(s, &f->delta_pi, 0.0, DBL_MAX);
    want = 0.0;
    if (!c->oracle && pi > 0 && n > 0)
        want = c->delta_pi >= 0.0 ? c->delta_pi : sqrt(lmax * isdb__isd_log_over(2.0 * (double)d, c->delta) / (double)n);
    isdb__ser_require(s, fabs(dpi - want) <= ISDB__SER_TOL * want);
    want = known ? 0.0 : isdb__isd_r_inv(c, pi, (double)n, l0, dpi);
    isdb__ser_require(s, fabs(isdb__ser_real_in(s, &f->r_inv, 0.0, DBL_MAX) - want) <= ISDB__SER_TOL * want);
    isdb__ser_real_range(s, &f->s2, 1, 0.0, DBL_MAX);
    if (isdb__ser_storing(s)) {
        /* Not in the snapshot (its layout predates them): unknown. */
        f->cov_spread = -1.0;
        f->identifiable = c->oracle ? 1 : -1;
    }
    isdb__ser_int(s, &f->jbd.converged, 0, 1);
    isdb__ser_int(s, &f->jbd.iterations, 0, INT_MAX);
    isdb__ser_int(s, &f->jbd.n_blocks, 0, d);
    isdb__ser_real(s, &f->jbd.threshold, 1);
    isdb__ser_real(s, &f->jbd.criterion, 1);
    isdb__ser_real(s, &f->jbd.offdiag, 1);
    isdb__ser_real(s, &f->jbd.offblock, 1);
    out.U = isdb__ser_view_real(s, f->U, dd);
    Ut = isdb__ser_view_real(s, f->Ut, dd);
    out.beta = isdb__ser_view_real(s, f->beta, d);
    Lb = isdb__ser_view_real(s, f->Lbeta, dd);
    W = isdb__ser_view_real(s, f->Winv, dd);
    isdb__ser_real(s, f->stat, d);
    pv = isdb__ser_view_in(s, f->pvalue, d, -1.0, 1.0); /* -1: untestable */
    for (i = 0; i < d; ++i) isdb__ser_int(s, &f->sizes[i], 0, d);
    for (i = 0; i < d; ++i) isdb__ser_int(s, &f->invariant[i], 0, 1);
    if (!isdb__ser_checking(s, out.U, Ut) || !isdb__ser_checking(s, Lb, W) || !pv.at) return out;
    for (i = 0; i < d; ++i) isdb__ser_require(s, isdb__sv(pv, i) >= 0.0 || isdb__sv(pv, i) == -1.0);
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) {
            isdb_real u = isdb__sv(out.U, i * d + j);
            isdb__ser_require(s, isdb__sv(Ut, j * d + i) == u && (!out.identity || u == (i == j ? 1.0 : 0.0)));
        }
    if (known) pi = 0; /* no Lbeta, no W_inv */
    isdb__ser_check_lower(s, Lb, pi, pi, 1);
    for (i = pi * pi; i < dd; ++i) isdb__ser_require(s, isdb__sv(Lb, i) == 0.0);
    for (i = pi * d; i < dd; ++i) isdb__ser_require(s, isdb__sv(W, i) == 0.0);
    for (i = 0; i < pi; ++i)
        for (j = 0; j < d; ++j) {
            double v = 0.0, a = 0.0, u = isdb__sv(Ut, i * d + j);
            for (k = 0; k <= i; ++k) {
                double t = isdb__sv(Lb, i * pi + k) * isdb__sv(W, k * d + j);
                v += t;
                a += fabs(t);
            }
            a = ISDB__SER_TOL * (a + fabs(u)) + DBL_MIN;
            isdb__ser_require(s, isdb__finite(a) && fabs(v - u) <= a);
        }
    return out;
}

/* gamma = beta_inv + U_res theta (theta itself with U = I), to rounding. */
ISDB__ONCE_PRIVATE void isdb__isd_check_gamma(isdb_ser *s, const isdb__isd_fit_views *f, isdb__ser_view theta,
                                         isdb__ser_view gamma, int d) {
    int i, j, pi = f->p_inv;
    if (!isdb__ser_checking(s, theta, gamma) || !isdb__ser_checking(s, f->U, f->beta)) return;
    for (i = 0; i < d; ++i) {
        double v, a, g = isdb__sv(gamma, i);
        if (f->identity) {
            isdb__ser_require(s, g == isdb__sv(theta, i));
            continue;
        }
        v = isdb__sv(f->beta, i);
        a = fabs(v);
        for (j = 0; j < d - pi; ++j) {
            double t = isdb__sv(f->U, i * d + pi + j) * isdb__sv(theta, j);
            v += t;
            a += fabs(t);
        }
        a = ISDB__SER_TOL * (a + fabs(g)) + DBL_MIN;
        isdb__ser_require(s, isdb__finite(a) && fabs(v - g) <= a);
    }
}

/* isdb__isd_serialize's counters: the history ring's position, the
   recompute and monitor schedules and their tallies, the residual
   learner's row count and the monitor's last test. */
ISDB__ONCE_PRIVATE void isdb__isd_ser_counts(isdb_isd *p, isdb_ser *s) {
    const isdb_isd_config *c = &p->cfg;
    int H = c->history;
    uint64_t mon_count, alarms;
    isdb__ser_int(s, &p->hist_count, 0, H);
    isdb__ser_int(s, &p->hist_head, 0, H > 0 ? H - 1 : 0);
    isdb__ser_int(s, &p->since_recompute, 0, c->recompute_every);
    isdb__ser_int(s, &p->since_check, 0, c->monitor_every);
    isdb__ser_int(s, &p->fallback, 0, 1);
    isdb__ser_int(s, &p->monitor_recomputed, 0, 1);
    /* Recomputes also come from isdb_isd_recompute (any number); the
       monitor tests at most once an update, and each demotion follows an
       alarm; the monitor counts every update. */
    isdb__ser_tally(s, &p->recomputes, ISDB__COUNT_MAX);
    isdb__ser_tally(s, &p->recompute_failures, ISDB__COUNT_MAX);
    alarms = isdb__ser_tally(s, &p->alarms, s->t);
    isdb__ser_tally(s, &p->demotions, alarms);
    mon_count = isdb__ser_tally(s, &p->mon_count, s->t);
    isdb__ser_tally(s, &p->mon_suspect, mon_count);
    isdb__ser_count(s, &p->n_res, c->learner == ISDB_ISD_RES_WINDOW ? (double)c->window : 9007199254740992.0);
    isdb__ser_real_range(s, &p->monitor_stat, 1, 0.0, DBL_MAX);
    isdb__ser_real_range(s, &p->monitor_pvalue, 1, 0.0, 1.0);
}

/* isdb__isd_serialize's residual learner, in dimension q = d - p_inv
   (stride q): the ridge's checks (isdb__ridge_serialize) against the Gram
   sum it keeps (LINUCB: V; DISCOUNT: Vd, with Vt at most Vd; WINDOW: rows
   the fit maps, not rebuilt here), and its estimate theta = L^-T z, whose
   view it returns. */
ISDB__ONCE_PRIVATE isdb__ser_view isdb__isd_ser_residual(isdb_isd *p, isdb_ser *s, int q) {
    const isdb_isd_config *c = &p->cfg;
    int d = c->d, dd = d * d, i;
    double logdet;
    isdb__ser_gram g;
    isdb__ser_view L, b, z, theta;
    L = isdb__ser_view_real(s, p->_res.L, dd);
    isdb__ser_check_lower(s, L, q, q, 1);
    isdb__ser_check_inv_diag(s, L, isdb__ser_view_real(s, p->_res.inv_diag, d), q, q);
    g.A = isdb__ser_view_real(s, p->_res.V, dd);
    g.ld = q;
    b = isdb__ser_view_real(s, p->_res.b, d);
    z = isdb__ser_view_real(s, p->_res.z, d);
    /* LINUCB carries z along its rank-one steps (see isdb__ridge_serialize);
       the others solve it from b at every update (DISCOUNT carries it in
       the updates whose Gram sum does not factor, consistent with L to
       the same rounding). */
    if (c->learner != ISDB_ISD_RES_LINUCB) isdb__ser_check_solve(s, L, q, q, 0, z, b, 0);
    theta = isdb__ser_view_real(s, p->_res_theta, d);
    /* (ADAPTIVE: theta is its played memory's, set again on load) */
    if (c->learner != ISDB_ISD_RES_ADAPTIVE) isdb__ser_check_solve(s, L, q, q, 1, theta, z, 0);
    logdet = isdb__ser_real_in(s, &p->_res.logdet, -DBL_MAX, DBL_MAX);
    isdb__ser_int(s, &p->_res.since_refresh, 0, isdb__isd_refresh(c, q));
    if (c->learner == ISDB_ISD_RES_LINUCB) {
        isdb__ser_check_gram(s, g.A, q, q, 0, c->lambda * (1.0 - ISDB__SER_TOL), DBL_MAX);
        isdb__ser_check_factor(s, L, q, q, isdb__ser_gram_at, &g, 0.0);
        isdb__ser_check_logdet(s, L, q, q, logdet);
    }
    if (c->learner == ISDB_ISD_RES_DISCOUNT) {
        isdb__ser_view Vt;
        g.A = isdb__ser_view_real(s, p->_gram_disc, dd);
        Vt = isdb__ser_view_real(s, p->_gram_tilde, dd);
        isdb__ser_check_gram(s, g.A, q, q, 1, c->lambda * (1.0 - ISDB__SER_TOL), DBL_MAX);
        isdb__ser_check_gram(s, Vt, q, q, 1, c->lambda * (1.0 - ISDB__SER_TOL), DBL_MAX);
        isdb__ser_check_factor(s, L, q, q, isdb__ser_gram_at, &g, 0.0);
        if (isdb__ser_checking(s, g.A, Vt))
            for (i = 0; i < q; ++i)
                isdb__ser_require(s, isdb__sv(Vt, i * q + i) <= (1.0 + ISDB__SER_TOL) * isdb__sv(g.A, i * q + i));
    }
    isdb__ser_check_inverse(s, L, q, q, c->lambda, p->_res.work);
    return theta;
}

/* isdb__isd_serialize's adaptive learners, which count the log's rows
   too: the residual learner when it is the adaptive policy (in the
   snapshot's p_res = q), and the guard's (in dimension d). */
ISDB__ONCE_PRIVATE void isdb__isd_ser_adaptive(isdb_isd *p, isdb_ser *s, int q) {
    const isdb_isd_config *c = &p->cfg;
    uint64_t t_online = s->t;
    s->t += (uint64_t)isdb__isd_warm_rows(c);
    if (c->learner == ISDB_ISD_RES_ADAPTIVE && q > 0) {
        /* the adaptive policy's own walk, in the snapshot's p_res (the
           dimension is put back unless the walk stores) */
        int old = p->_ada.cfg.d;
        isdb__isd_ada_dim(&p->_ada, q);
        isdb__adaptive_serialize(&p->_ada.base, s);
        if (!isdb__ser_storing(s)) isdb__isd_ada_dim(&p->_ada, old);
    }
    if (isdb__isd_guarded(c)) {
        /* the guard: its learner always in dimension d */
        int W = c->monitor_window;
        isdb__ser_int(s, &p->shadow_state, ISDB__SHADOW_LIVE, ISDB__SHADOW_SWAPPED);
        isdb__ser_require(s, p->shadow_state != ISDB__SHADOW_SWAPPED || p->fallback);
        isdb__ser_int(s, &p->guard_count, 0, W);
        isdb__ser_int(s, &p->guard_head, 0, W - 1);
        isdb__ser_int(s, &p->guard_since, 0, c->monitor_every);
        isdb__ser_count(s, &p->shadow_rows, 9007199254740992.0);
        isdb__ser_real(s, &p->guard_stat, 1);
        isdb__ser_real(s, p->_guard_loss, W);
        isdb__adaptive_serialize(&p->_shadow.base, s);
    }
    s->t = t_online;
}

/* After isdb__isd_serialize has stored a snapshot into p: what is a
   function of the stored state (the adaptive residual learner's theta
   and gamma, the ridge's dimension q and refresh, the fit's quadratic
   form, the monitor's pieces). */
ISDB__ONCE_PRIVATE void isdb__isd_ser_stored(isdb_isd *p, int q) {
    const isdb_isd_config *c = &p->cfg;
    if (c->learner == ISDB_ISD_RES_ADAPTIVE && q > 0) {
        isdb_adaptive_get_theta(&p->_ada, p->_res_theta);
        isdb__isd_update_gamma(p);
    }
    p->_res.d = q;
    p->_res.refresh = isdb__isd_refresh(c, q);
    isdb__isd_fit_quad(c->d, &p->_fit);
    isdb__isd_mon_rebuild(p); /* the pieces are a function of the rows kept and the fit */
}

ISDB__ONCE_PRIVATE void isdb__isd_serialize(isdb_policy *bp, isdb_ser *s) {
    isdb_isd *p = (isdb_isd *)bp;
    const isdb_isd_config *c = &p->cfg;
    int d = c->d, H = c->history, q;
    isdb__isd_fit_views fit;
    isdb__ser_view theta;
    fit = isdb__isd_ser_fit(s, &p->_fit, c, c->n_offline + H);
    q = d - fit.p_inv;
    isdb__isd_ser_counts(p, s);
    /* The history holds inputs. */
    isdb__ser_real_range(s, p->_hist_x, H * d, -ISDB_INPUT_MAX, ISDB_INPUT_MAX);
    isdb__ser_real_range(s, p->_hist_y, H, -ISDB_INPUT_MAX, ISDB_INPUT_MAX);
    theta = isdb__isd_ser_residual(p, s, q);
    isdb__isd_check_gamma(s, &fit, theta, isdb__ser_view_real(s, p->_gamma, d), d);
    /* The learners below count the log's rows too. */
    isdb__isd_ser_adaptive(p, s, q);
    if (isdb__ser_storing(s)) isdb__isd_ser_stored(p, q);
}

/* ---------------------------------------------------------------------------
   [ISD.INIT] reset, init and the getters
   ------------------------------------------------------------------------ */

ISDB__ONCE_PRIVATE void isdb__isd_reset(isdb_policy *bp) {
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
    p->demotions = 0;
    p->mon_count = 0;
    p->mon_suspect = 0;
    isdb__zero(p->mon_cap * isdb__isd_mon_stride(d), p->_mon);
    p->monitor_stat = 0.0;
    p->monitor_pvalue = 1.0;
    isdb__isd_res_clear(p);
    isdb__isd_res_warm(p);
    if (isdb__isd_guarded(c)) {
        isdb__isd_shadow_clear(p, p->_fit.p_inv > 0);
        if (p->_fit.p_inv == 0) p->shadow_state = ISDB__SHADOW_STALE; /* ISD is that learner */
    }
    isdb__zero(d, p->_z);
    isdb__zero(d, p->_u);
    isdb__isd_update_gamma(p);
    p->_r_inv = p->_r_res = 0.0;
}

static const isdb_policy_vtable isdb__isd_vt = {ISDB_POLICY_ISD,     "isd",           0, isdb__isd_select,
                                                isdb__isd_update,    isdb__isd_scores, isdb__probs_one_hot,
                                                isdb__isd_serialize, isdb__isd_reset, isdb__isd_walk_config,
                                                offsetof(isdb_isd, cfg), "max_arms", sizeof(isdb_isd_config)};

ISDB__ONCE isdb_result isdb_isd_heap_size(const isdb_isd_config *cfg, size_t *bytes) {
    isdb_isd_config r;
    isdb_isd probe;
    if (!bytes || !isdb__isd_config_resolve(cfg, &r, NULL)) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__isdp_layout(&r, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

ISDB__ONCE isdb_result isdb_isd_init_preallocated(const isdb_isd_config *cfg, void *heap, size_t heap_bytes,
                                                  isdb_isd *pol) {
    isdb_isd_config rc;
    size_t bytes;
    isdb_result r = isdb_isd_heap_size(cfg, &bytes);
    int d, n0, pi, rank;
    if (r == ISDB_OK) r = isdb_init_check(heap, heap_bytes, bytes, pol, NULL);
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    isdb__isd_config_resolve(cfg, &rc, NULL);
    d = rc.d;
    n0 = rc.n_offline;
    pi = rc.oracle ? rc.p_inv : 0;
    if (n0 > 0) {
        if ((r = isdb__check_input(cfg->X0, n0 * d)) != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
        if ((r = isdb__check_input(cfg->R0, n0)) != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    }
    if (rc.oracle && pi > 0 && !isdb__all_finite(cfg->U_inv, d * pi))
        return isdb__refused(pol, sizeof *pol, ISDB_ERR_NONFINITE);
    if (rc.oracle && cfg->beta_inv && (r = isdb__check_input(cfg->beta_inv, d)) != ISDB_OK)
        return isdb__refused(pol, sizeof *pol, r);
    memset(pol, 0, sizeof *pol);
    isdb__isdp_layout(&rc, pol, heap);
    memset(heap, 0, bytes);
    pol->cfg = rc;
    if (rc.learner == ISDB_ISD_RES_ADAPTIVE) isdb__isd_ada_layout(&rc, &pol->_ada, pol->_ada_heap);
    if (isdb__isd_guarded(&rc)) isdb__isd_ada_layout(&rc, &pol->_shadow, pol->_shadow_heap);
    isdb__copy(n0 * d, cfg->X0, pol->_pool_x);
    isdb__copy(n0, cfg->R0, pol->_pool_y);
    rc.X0 = pol->_pool_x;
    rc.R0 = pol->_pool_y;
    rc.U_inv = NULL;
    if (rc.oracle && pi > 0) {
        isdb__copy(d * pi, cfg->U_inv, pol->_u_inv0);
        rc.U_inv = pol->_u_inv0;
    }
    if (rc.oracle && cfg->beta_inv) {
        isdb__copy(d, cfg->beta_inv, pol->_beta0);
        rc.beta_inv = pol->_beta0;
    } else {
        rc.beta_inv = NULL;
    }
    pol->cfg = rc;
    isdb__policy_base_init(&pol->base, &isdb__isd_vt, d, rc.max_arms, 0, heap, bytes, sizeof *pol);
    /* The oracle basis: U_inv orthonormalised, completed by S_res. */
    if (rc.oracle) {
        if (pi > 0) {
            if (isdb_orth_basis(d, pi, pol->_u_inv0, 0.0, pol->_fit_next.U, &rank, pol->_work) != ISDB_OK ||
                rank != pi)
                return isdb__refused(pol, sizeof *pol, ISDB_ERR_INVALID_ARG);
        } else {
            isdb__identity(d, pol->_fit_next.U, 1.0);
        }
        isdb__copy(d * d, pol->_fit_next.U, pol->_fit0.U);
    }
    r = isdb__isd_fit_rows(pol, &pol->_fit0, n0, pol->_pool_x, pol->_pool_y, pol->_fit0.U);
    if (r < 0) return isdb__refused(pol, sizeof *pol, r);
    isdb__isd_reset(&pol->base);
    return ISDB_OK;
}

ISDB__ONCE_PRIVATE isdb_result isdb__isd_setup(const void *cfg, void *heap, size_t heap_bytes, void *pol) {
    return isdb_isd_init_preallocated((const isdb_isd_config *)cfg, heap, heap_bytes, (isdb_isd *)pol);
}

ISDB__ONCE isdb_result isdb_isd_init(const isdb_isd_config *cfg, const isdb_allocator *alloc, isdb_isd *pol) {
    size_t bytes;
    isdb_result r = isdb_isd_heap_size(cfg, &bytes);
    if (r == ISDB_OK && !pol) r = ISDB_ERR_INVALID_ARG;
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    return isdb__policy_init_owned(&pol->base, sizeof *pol, bytes, alloc, isdb__isd_setup, cfg, pol);
}

ISDB__ONCE const isdb_isd_config *isdb_isd_get_config(const isdb_isd *pol) { return &pol->cfg; }

int isdb_isd_get_p_inv(const isdb_isd *pol) { return pol->_fit.p_inv; }

ISDB__ONCE void isdb_isd_get_info(const isdb_isd *pol, isdb_isd_info *info) {
    const isdb__isd_fit *f = &pol->_fit;
    memset(info, 0, sizeof *info);
    info->p_inv = f->p_inv;
    info->p_res = pol->cfg.d - f->p_inv;
    info->n_blocks = f->n_blocks;
    info->theta = f->theta;
    info->cov_spread = f->cov_spread;
    info->identifiable = f->identifiable;
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
    info->demotions = pol->demotions;
    info->fallback = pol->fallback;
    info->alarm_pending = pol->mon_suspect > 0;
    info->monitor_stat = pol->monitor_stat;
    info->monitor_pvalue = pol->monitor_pvalue;
    info->guard_switched = pol->shadow_state == ISDB__SHADOW_SWAPPED;
    info->guard_stat = pol->guard_stat;
}

ISDB__COLD int isdb_isd_get_blocks(const isdb_isd *pol, int *sizes, int *invariant, double *stat) {
    const isdb__isd_fit *f = &pol->_fit;
    int b;
    for (b = 0; b < f->n_blocks; ++b) {
        if (sizes) sizes[b] = f->sizes[b];
        if (invariant) invariant[b] = f->invariant[b];
        if (stat) stat[b] = f->stat[b];
    }
    return f->n_blocks;
}

int isdb_isd_get_block_pvalues(const isdb_isd *pol, double *pvalue) {
    const isdb__isd_fit *f = &pol->_fit;
    if (pvalue) isdb__copy(f->n_blocks, f->pvalue, pvalue);
    return f->n_blocks;
}

void isdb_isd_get_basis(const isdb_isd *pol, double *U) { isdb__copy(pol->cfg.d * pol->cfg.d, pol->_fit.U, U); }

ISDB__COLD void isdb_isd_get_projector(const isdb_isd *pol, int residual, double *P) {
    const isdb__isd_fit *f = &pol->_fit;
    int d = pol->cfg.d, from = residual ? f->p_inv : 0, to = residual ? d : f->p_inv, i, j, k;
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) {
            double s = 0.0;
            for (k = from; k < to; ++k) s += f->U[i * d + k] * f->U[j * d + k];
            P[i * d + j] = s;
        }
}

void isdb_isd_get_beta_inv(const isdb_isd *pol, double *beta) { isdb__copy(pol->cfg.d, pol->_fit.beta, beta); }

void isdb_isd_get_gamma(const isdb_isd *pol, double *gamma) { isdb__copy(pol->cfg.d, pol->_gamma, gamma); }

void isdb_isd_get_radii(const isdb_isd *pol, double *r_inv, double *r_res) {
    double a, b;
    isdb__isd_widths(pol, &a, &b);
    if (r_inv) *r_inv = a;
    if (r_res) *r_res = b;
}

ISDB__ONCE isdb_result isdb_isd_explain(isdb_isd *pol, const double *x, double *mean, double *bonus_inv,
                                        double *bonus_res) {
    isdb_result r;
    double ri, rr, ni2, nr2, m;
    if (!pol || !x) return ISDB_ERR_INVALID_ARG;
    if ((r = isdb__check_input(x, pol->cfg.d)) != ISDB_OK) return r;
    isdb__isd_widths(pol, &ri, &rr);
    m = isdb__isd_parts(pol, x, &ni2, &nr2);
    if (pol->cfg.learner == ISDB_ISD_RES_ADAPTIVE) {
        int q = pol->cfg.d - pol->_fit.p_inv;
        double score = 0.0, mr = 0.0;
        /* parts left U_res^T x in _z (x itself when the basis is I) */
        if (q > 0) mr = isdb__adaptive_mean_score(&pol->_ada, pol->_fit.identity ? x : pol->_z, &score);
        /* m = x.beta_inv + the cleared ridge's mean (0) */
        m = isdb__dot(pol->cfg.d, x, pol->_fit.beta) + mr;
        if (mean) *mean = m;
        if (bonus_inv) *bonus_inv = ri * sqrt(ni2);
        if (bonus_res) *bonus_res = score - mr;
        return ISDB_OK;
    }
    if (pol->cfg.radius != ISDB_ISD_RADIUS_PAPER && pol->cfg.radius != ISDB_ISD_RADIUS_DATA) ri = rr;
    if (mean) *mean = m;
    if (bonus_inv) *bonus_inv = ri * sqrt(ni2);
    if (bonus_res) *bonus_res = rr * sqrt(nr2);
    return ISDB_OK;
}

isdb_result isdb_isd_recompute(isdb_isd *pol) {
    if (!pol || !pol->base.vt) return ISDB_ERR_INVALID_ARG;
    return isdb__isd_refit(pol);
}

#endif /* ISDB__HAS_ISD */
#if ISDB__HAS_OPKB
/* ---------------------------------------------------------------------------
   [OPKB] Kernels, feature maps and the log-det problem of OPKB
   ------------------------------------------------------------------------ */

ISDB__COLD isdb_result isdb_kernel_gram(isdb_kernel kernel, double length_scale, int n, int d, const double *X,
                                        double *K) {
    isdb_result r;
    int i, j, k;
    if (!isdb__dim_ok(n) || !isdb__dim_ok(d) || n > INT_MAX / n || n > INT_MAX / d || !X || !K)
        return ISDB_ERR_INVALID_ARG;
    if (kernel != ISDB_KERNEL_LINEAR && kernel != ISDB_KERNEL_RBF && kernel != ISDB_KERNEL_MATERN52)
        return ISDB_ERR_INVALID_ARG;
    if (kernel != ISDB_KERNEL_LINEAR && !isdb__positive(length_scale)) return ISDB_ERR_INVALID_ARG;
    if ((r = isdb__check_input(X, n * d)) != ISDB_OK) return r;
    for (i = 0; i < n; ++i) {
        const double *xi = X + i * d;
        for (j = 0; j <= i; ++j) {
            const double *xj = X + j * d;
            double s, r2 = 0.0, a;
            if (kernel == ISDB_KERNEL_LINEAR) {
                s = isdb__dot(d, xi, xj);
            } else {
                for (k = 0; k < d; ++k) r2 += (xi[k] - xj[k]) * (xi[k] - xj[k]);
                if (kernel == ISDB_KERNEL_RBF) {
                    s = exp(-r2 / (2.0 * length_scale * length_scale));
                } else {
                    a = sqrt(5.0 * r2) / length_scale;
                    s = isdb__finite(a) ? (1.0 + a + a * a / 3.0) * exp(-a) : 0.0;
                }
            }
            if (!isdb__finite(s)) return ISDB_ERR_NONFINITE;
            K[i * n + j] = K[j * n + i] = s;
        }
    }
    return ISDB_OK;
}

size_t isdb_feature_map_work_size(int n) { return n > 0 ? 2 * (size_t)n * (size_t)n + (size_t)n : 0; }

/* Phi from the eigendecomposition of K (read from its lower triangle):
   columns U_k sqrt(w_k), largest eigenvalue first, over w_k > rank_tol
   max(w) (and w_k > 0). */
ISDB__COLD_PRIVATE isdb_result isdb__feature_map_eigen(int n, const double *K, double rank_tol, double *Phi, int *p,
                                                  double *work) {
    double *A = work, *V = work + n * n, *w = work + 2 * n * n, wmax, cut;
    int i, c, r = 0;
    isdb_result res;
    isdb__copy(n * n, K, A);
    res = isdb_sym_eig(n, A, w, V);
    if (res < 0) return res;
    wmax = w[n - 1];
    if (!(wmax > 0.0)) return ISDB_ERR_SINGULAR;
    if (w[0] < -sqrt(DBL_EPSILON) * wmax) return ISDB_ERR_NOT_SPD;
    cut = rank_tol * wmax;
    for (c = n - 1; c >= 0 && w[c] > cut && w[c] > 0.0; --c) ++r;
    for (i = 0; i < n; ++i)
        for (c = 0; c < r; ++c) Phi[i * r + c] = V[i * n + (n - 1 - c)] * sqrt(w[n - 1 - c]);
    *p = r;
    return ISDB_OK;
}

ISDB__COLD isdb_result isdb_feature_map_build(int n, const double *K, isdb_feature_map how, double rank_tol,
                                              double *Phi, int *p, double *work) {
    double dmax = 0.0;
    int i, j;
    if (!isdb__dim_ok(n) || n > INT_MAX / n || !K || !Phi || !p || !work) return ISDB_ERR_INVALID_ARG;
    if (how != ISDB_FEATURES_AUTO && how != ISDB_FEATURES_CHOLESKY && how != ISDB_FEATURES_EIGEN)
        return ISDB_ERR_INVALID_ARG;
    if (!(rank_tol >= 0.0 && rank_tol < 1.0)) return ISDB_ERR_INVALID_ARG;
    if (!isdb__all_finite(K, n * n)) return ISDB_ERR_NONFINITE;
    for (i = 0; i < n; ++i) {
        if (K[i * n + i] < 0.0) return ISDB_ERR_NOT_SPD;
        if (K[i * n + i] > dmax) dmax = K[i * n + i];
    }
    if (dmax == 0.0) {
        for (i = 0; i < n * n; ++i)
            if (K[i] != 0.0) return ISDB_ERR_NOT_SPD;
        return ISDB_ERR_SINGULAR;
    }
    for (i = 0; i < n; ++i)
        for (j = 0; j < i; ++j)
            if (!(fabs(K[i * n + j] - K[j * n + i]) <= 1e-10 * dmax)) return ISDB_ERR_INVALID_ARG;
    if (how != ISDB_FEATURES_EIGEN) {
        isdb_result r;
        isdb__copy(n * n, K, Phi);
        r = isdb_chol(n, Phi);
        if (r == ISDB_OK && how == ISDB_FEATURES_AUTO) {
            /* AUTO takes the eigen map when a pivot lost more than half the
               digits: K is then singular to working precision. */
            for (i = 0; i < n; ++i)
                if (!(Phi[i * n + i] * Phi[i * n + i] > sqrt(DBL_EPSILON) * K[i * n + i])) r = ISDB_ERR_NOT_SPD;
        }
        if (r == ISDB_OK) {
            *p = n;
            return ISDB_OK;
        }
        if (how == ISDB_FEATURES_CHOLESKY) return r;
    }
    return isdb__feature_map_eigen(n, K, rank_tol, Phi, p, work);
}

size_t isdb_opkb_solve_work_size(int n, int p) {
    size_t sn = (size_t)n, sp = (size_t)p;
    if (n < 1 || p < 1) return 0;
    return 2 * sp * sp + 2 * sp * sn + sn * sn + 12 * sn;
}

/* S = sum_i max(x_i, 0) phi_i phi_i^T + lambda I, factored into L (p x p);
   W = L^-1 Phi^T (p x n); v_i = ||W e_i||^2 = phi_i^T S^-1 phi_i; *logdet
   = ln det S. Returns 0 if S does not factor. */
ISDB__PRIVATE int isdb__opkb_eval(int n, int p, const double *Phi, const double *x, double lambda, double *L,
                                  double *W, double *v, double *logdet) {
    int i, r, k;
    isdb__identity(p, L, lambda);
    for (i = 0; i < n; ++i) {
        const double *f = Phi + i * p;
        double xi = x[i] > 0.0 ? x[i] : 0.0;
        if (xi == 0.0) continue;
        for (r = 0; r < p; ++r) {
            double a = xi * f[r], *Lr = L + r * p;
            for (k = 0; k <= r; ++k) Lr[k] += a * f[k];
        }
    }
    if (isdb_chol(p, L) != ISDB_OK) return 0;
    *logdet = isdb_chol_logdet(p, L);
    /* Forward substitution one row of W at a time: inner loops run along
       rows (length n). */
    for (r = 0; r < p; ++r) {
        double *Wr = W + r * n, diag = L[r * p + r];
        for (i = 0; i < n; ++i) Wr[i] = Phi[i * p + r];
        for (k = 0; k < r; ++k) {
            const double *Wk = W + k * n;
            double l = L[r * p + k];
            for (i = 0; i < n; ++i) Wr[i] -= l * Wk[i];
        }
        for (i = 0; i < n; ++i) Wr[i] /= diag;
    }
    isdb__zero(n, v);
    for (r = 0; r < p; ++r) {
        const double *Wr = W + r * n;
        for (i = 0; i < n; ++i) v[i] += Wr[i] * Wr[i];
    }
    return 1;
}

/* The KKT residual of isdb_opkb_kkt from x and the gradient g = c - v. */
ISDB__PRIVATE double isdb__opkb_residual(int n, const double *x, const double *g) {
    double s = 0.0, sg = 0.0, nu, res = 0.0, comp = 0.0;
    int i;
    for (i = 0; i < n; ++i) {
        s += x[i];
        sg += x[i] * g[i];
        if (-x[i] > res) res = -x[i];
    }
    nu = s > 0.0 ? -sg / s : 0.0;
    for (i = 0; i < n; ++i) {
        double z = g[i] + nu;
        if (-z > res) res = -z;
        comp += fabs(x[i] * z);
    }
    if (comp > res) res = comp;
    if (fabs(s - 1.0) > res) res = fabs(s - 1.0);
    return res;
}

/* Checks shared by the solver and the KKT residual. */
ISDB__PRIVATE isdb_result isdb__opkb_problem_ok(int n, int p, const double *Phi, const double *c, double lambda,
                                                const double *work) {
    isdb_result r;
    if (!isdb__dim_ok(n) || !isdb__dim_ok(p) || n > INT_MAX / n || n > INT_MAX / p || p > INT_MAX / p || !Phi ||
        !work)
        return ISDB_ERR_INVALID_ARG;
    if (!isdb__ridge_ok(lambda)) return ISDB_ERR_INVALID_ARG;
    if ((r = isdb__check_input(Phi, n * p)) != ISDB_OK) return r;
    if (c && (r = isdb__check_input(c, n)) != ISDB_OK) return r;
    return ISDB_OK;
}

ISDB__COLD isdb_result isdb_opkb_kkt(int n, int p, const double *Phi, const double *c, double lambda, const double *x,
                                     double *kkt, double *v, double *objective, double *work) {
    double *L = work, *W = L + 2 * p * p, *vv = W + 2 * p * n + n * n, *g = vv + n, logdet = 0.0;
    int i;
    isdb_result r = isdb__opkb_problem_ok(n, p, Phi, c, lambda, work);
    if (r != ISDB_OK) return r;
    if (!x || !kkt) return ISDB_ERR_INVALID_ARG;
    if ((r = isdb__check_input(x, n)) != ISDB_OK) return r;
    if (!isdb__opkb_eval(n, p, Phi, x, lambda, L, W, vv, &logdet)) return ISDB_ERR_NOT_SPD;
    for (i = 0; i < n; ++i) g[i] = (c ? c[i] : 0.0) - vv[i];
    *kkt = isdb__opkb_residual(n, x, g);
    if (v) isdb__copy(n, vv, v);
    if (objective) {
        double s = 0.0;
        for (i = 0; i < n; ++i) s += (c ? c[i] : 0.0) * x[i];
        *objective = s - logdet;
    }
    return isdb__finite(*kkt) ? ISDB_OK : ISDB_ERR_NONFINITE;
}

/* Squared norm of the perturbed KKT residual at (x, z, nu) with gradient g
   and barrier parameter t. */
ISDB__PRIVATE double isdb__opkb_resnorm(int n, const double *x, const double *z, double nu, const double *g, double t) {
    double s = 0.0, sx = 0.0;
    int i;
    for (i = 0; i < n; ++i) {
        double rd = g[i] - z[i] + nu, rc = x[i] * z[i] - 1.0 / t;
        s += rd * rd + rc * rc;
        sx += x[i];
    }
    return s + (sx - 1.0) * (sx - 1.0);
}

/* M = (W^T W) o (W^T W) + diag(z / x) (lower triangle), factored in
   place. A factorisation that fails (rank-deficient Hessian on a support
   larger than p(p+1)/2, at working precision) is retried with a growing
   diagonal shift. */
ISDB__PRIVATE int isdb__opkb_newton_matrix(int n, int p, const double *W, const double *x, const double *z,
                                           double *M) {
    double top = 0.0, shift = 0.0;
    int i, j, r, attempt;
    for (attempt = 0; attempt < 12; ++attempt) {
        isdb__zero(n * n, M);
        for (r = 0; r < p; ++r) {
            const double *Wr = W + r * n;
            for (i = 0; i < n; ++i) {
                double a = Wr[i], *Mi = M + i * n;
                for (j = 0; j <= i; ++j) Mi[j] += a * Wr[j];
            }
        }
        for (i = 0; i < n; ++i) {
            double *Mi = M + i * n;
            for (j = 0; j <= i; ++j) Mi[j] *= Mi[j];
            if (Mi[i] > top) top = Mi[i];
            Mi[i] += z[i] / x[i] + shift;
        }
        if (isdb_chol(n, M) == ISDB_OK) return 1;
        shift = (shift == 0.0 ? 1e-13 : 100.0 * shift / top) * (top > 0.0 ? top : 1.0);
    }
    return 0;
}

isdb_result isdb_opkb_solve(int n, int p, const double *Phi, const double *c, double lambda, const double *x0,
                            double tol, int max_iter, double *x, isdb_opkb_solve_info *info, double *work) {
    double *L0, *L1, *W0, *W1, *M, *v0, *v1, *g, *gt, *z, *zt, *xc, *xt, *dx, *dz, *a, *b;
    double nu, logdet = 0.0, logdet1 = 0.0, gmin, gmax, sx = 0.0, gap = 0.0, obj = 0.0;
    int i, it;
    isdb_opkb_solve_info local;
    isdb_result r = isdb__opkb_problem_ok(n, p, Phi, c, lambda, work);
    if (!info) info = &local;
    memset(info, 0, sizeof *info);
    info->status = r;
    if (r != ISDB_OK) return r;
    if (!x || !(tol > 0.0) || !isdb__finite(tol) || max_iter < 1) return info->status = ISDB_ERR_INVALID_ARG;
    if (x0) {
        if ((r = isdb__check_input(x0, n)) != ISDB_OK) return info->status = r;
        for (i = 0; i < n; ++i) {
            if (x0[i] < 0.0) return info->status = ISDB_ERR_INVALID_ARG;
            sx += x0[i];
        }
        if (!(sx > 0.0) || !isdb__finite(sx)) return info->status = ISDB_ERR_INVALID_ARG;
    }
    L0 = work;
    L1 = L0 + p * p;
    W0 = L1 + p * p;
    W1 = W0 + p * n;
    M = W1 + p * n;
    v0 = M + n * n;
    v1 = v0 + n;
    g = v1 + n;
    gt = g + n;
    z = gt + n;
    zt = z + n;
    xc = zt + n;
    xt = xc + n;
    dx = xt + n;
    dz = dx + n;
    a = dz + n;
    b = a + n;
    for (i = 0; i < n; ++i) xc[i] = x0 ? 0.99 * x0[i] / sx + 0.01 / (double)n : 1.0 / (double)n;
    if (!isdb__opkb_eval(n, p, Phi, xc, lambda, L0, W0, v0, &logdet)) return info->status = ISDB_ERR_NOT_SPD;
    for (i = 0; i < n; ++i) g[i] = (c ? c[i] : 0.0) - v0[i];
    /* Dual start: z = g + nu, dual feasible, its smallest entry a tenth of
       the spread of g (or 0.1). */
    gmin = gmax = g[0];
    for (i = 1; i < n; ++i) {
        if (g[i] < gmin) gmin = g[i];
        if (g[i] > gmax) gmax = g[i];
    }
    nu = -gmin + (gmax - gmin > 1.0 ? 0.1 * (gmax - gmin) : 0.1);
    for (i = 0; i < n; ++i) z[i] = g[i] + nu;
    for (it = 0; n > 1 && it < max_iter; ++it) {
        double t, r0, step, dnu, sa = 0.0, sb = 0.0, rd = 0.0;
        int ls, accepted = 0;
        gap = 0.0;
        sx = 0.0;
        for (i = 0; i < n; ++i) {
            double e = fabs(g[i] - z[i] + nu);
            gap += xc[i] * z[i];
            sx += xc[i];
            if (e > rd) rd = e;
        }
        if (gap <= 0.25 * tol && rd <= 0.25 * tol && isdb__opkb_residual(n, xc, g) <= 0.5 * tol) break;
        t = 10.0 * (double)n / gap;
        if (!isdb__opkb_newton_matrix(n, p, W0, xc, z, M)) break;
        /* Reduced system: M dx + dnu 1 = -r_dual - r_cent / x, 1^T dx = -r_pri. */
        for (i = 0; i < n; ++i) {
            a[i] = -(g[i] - z[i] + nu) - (z[i] - 1.0 / (t * xc[i]));
            b[i] = 1.0;
        }
        isdb_chol_solve(n, M, a, a);
        isdb_chol_solve(n, M, b, b);
        for (i = 0; i < n; ++i) {
            sa += a[i];
            sb += b[i];
        }
        dnu = (sa + (sx - 1.0)) / sb;
        step = 1.0;
        for (i = 0; i < n; ++i) {
            dx[i] = a[i] - dnu * b[i];
            dz[i] = -z[i] + 1.0 / (t * xc[i]) - z[i] / xc[i] * dx[i];
            if (dx[i] < 0.0 && -xc[i] / dx[i] < step) step = -xc[i] / dx[i];
            if (dz[i] < 0.0 && -z[i] / dz[i] < step) step = -z[i] / dz[i];
        }
        if (step < 1.0) step *= 0.99;
        if (!isdb__finite(dnu) || !isdb__all_finite(dx, n) || !isdb__all_finite(dz, n)) break;
        r0 = sqrt(isdb__opkb_resnorm(n, xc, z, nu, g, t));
        for (ls = 0; ls < 60 && !accepted; ++ls) {
            int inside = 1;
            for (i = 0; i < n; ++i) {
                xt[i] = xc[i] + step * dx[i];
                zt[i] = z[i] + step * dz[i];
                if (!(xt[i] > 0.0) || !(zt[i] > 0.0)) inside = 0;
            }
            if (inside && isdb__opkb_eval(n, p, Phi, xt, lambda, L1, W1, v1, &logdet1)) {
                for (i = 0; i < n; ++i) gt[i] = (c ? c[i] : 0.0) - v1[i];
                if (sqrt(isdb__opkb_resnorm(n, xt, zt, nu + step * dnu, gt, t)) <= (1.0 - 0.01 * step) * r0) {
                    accepted = 1;
                    nu += step * dnu;
                    break;
                }
            }
            step *= 0.5;
        }
        if (!accepted) break;
        isdb__swap_ptr(&L0, &L1);
        isdb__swap_ptr(&W0, &W1);
        isdb__swap_ptr(&v0, &v1);
        isdb__swap_ptr(&g, &gt);
        isdb__swap_ptr(&xc, &xt);
        isdb__swap_ptr(&z, &zt);
        logdet = logdet1;
    }
    /* The answer: the last iterate, renormalised, and its residual. */
    sx = 0.0;
    for (i = 0; i < n; ++i) sx += xc[i];
    for (i = 0; i < n; ++i) x[i] = xc[i] / sx;
    if (!isdb__opkb_eval(n, p, Phi, x, lambda, L0, W0, v0, &logdet)) return info->status = ISDB_ERR_NOT_SPD;
    for (i = 0; i < n; ++i) {
        g[i] = (c ? c[i] : 0.0) - v0[i];
        obj += (c ? c[i] : 0.0) * x[i];
    }
    info->iterations = it;
    info->kkt = isdb__opkb_residual(n, x, g);
    info->gap = gap;
    info->objective = obj - logdet;
    if (!isdb__finite(info->kkt) || !isdb__finite(info->objective)) return info->status = ISDB_ERR_NONFINITE;
    info->status = info->kkt <= tol ? ISDB_OK : ISDB_MAXITER_REACHED;
    return info->status;
}

/* ---------------------------------------------------------------------------
   [OPKB] OPKB / ADA-OPKB
   Rounds are numbered from 0 by base.t. A block ends inside the update of
   its last round, which then runs the tests of the intervals that end
   there, and either restarts the epoch or solves OP for the next block;
   select, scores and probs only read the current strategy.
   ------------------------------------------------------------------------ */

#define ISDB__OPKB_MAX_ARMS 4096
/* Smallest RBF or Matern length scale: its square must be a normal number
   (a smaller one made the Gram matrix NaN). */
#define ISDB__LENGTH_SCALE_MIN 1e-150
#define ISDB__OPKB_TEST_Z 3.5
#define ISDB__OPKB_TEST_FACTOR 2.0 /* the calibrated test's sides g - F D and D - F g */
#define ISDB__SQRT2 1.4142135623730951

/* 2^(k/2) for an integer k: a power of two times sqrt(2) or 1, so it is
   the same on every libm. */
ISDB__PRIVATE double isdb__pow2_half(int k) {
    int h = k >= 0 ? k / 2 : -((1 - k) / 2);
    double r = ldexp(1.0, h);
    return (k - 2 * h) ? r * ISDB__SQRT2 : r;
}

ISDB__ONCE_PRIVATE double *isdb__take_f64_n(isdb__arena *a, size_t count) {
    if (count > (size_t)INT_MAX) {
        a->overflow = 1;
        return NULL;
    }
    return isdb__take_f64(a, (int)count);
}

ISDB__ONCE void isdb_opkb_config_preset(isdb_opkb_config *c, isdb_opkb_preset preset) {
    if (!c) return;
    if (preset == ISDB_OPKB_THEORY) {
        c->gamma_factor = 1.0;
        c->c1 = 0.5;
        c->c3 = 4.0;
        c->c4 = 0.25;
        c->beta_scale = 1.0;
        c->set_scale = 1.0;
        c->mix = 0.5;
        c->c0_scale = 1.0;
        c->test_mean = 0;
        c->j_star = 0;
        c->test_block = 1;
        c->max_restarts = INT_MAX;
    } else {
        /* the list's defaults */
        isdb_opkb_config t = isdb_opkb_config_init(c->d, c->n_arms, c->horizon);
        c->gamma_factor = t.gamma_factor;
        c->c1 = t.c1;
        c->c3 = t.c3;
        c->c4 = t.c4;
        c->beta_scale = t.beta_scale;
        c->set_scale = t.set_scale;
        c->mix = t.mix;
        c->c0_scale = t.c0_scale;
        c->test_mean = t.test_mean;
        c->j_star = t.j_star;
        c->test_block = t.test_block;
        c->max_restarts = t.max_restarts;
    }
}

/* Smallest j with 2^(j+1) - 1 >= T: the last block index any E >= 1 can
   reach by round T. */
ISDB__PRIVATE int isdb__opkb_j_bound(double T) {
    int j = 0;
    while (ldexp(1.0, j + 1) - 1.0 < T) ++j;
    return j;
}

ISDB__PRIVATE int isdb__opkb_pmax(const isdb_opkb_config *c) {
    if (c->kernel == ISDB_KERNEL_LINEAR)
        return c->features == ISDB_FEATURES_AUTO ? c->d : isdb__min_int(c->d, c->n_arms);
    return c->n_arms;
}

/* The arm set (arms, or gram with ISDB_KERNEL_GRAM; NULL by default) is
   checked after the list's other fields. The defaults of gamma_factor to
   max_restarts are ISDB_OPKB_TUNED's. */
#define ISDB__OPKB_FIELDS(X)                                                                         \
    X(DIM, int, d, d, isdb__want_dim(why, c->d))                                                    \
    X(ARMS, int, n_arms, n_arms,                                                                     \
      isdb__want_arms(why, c->n_arms, c->d, "n_arms") &&                                             \
          isdb__want_int(why, c->n_arms, "n_arms", 1, ISDB__OPKB_MAX_ARMS, "[1, 4096]"))             \
    X(SEED, uint64_t, seed, 1, 1)                                                                    \
    X(INT, isdb_kernel, kernel, ISDB_KERNEL_LINEAR,                                                  \
      isdb__want_int(why, (int)c->kernel, "kernel", ISDB_KERNEL_LINEAR, ISDB_KERNEL_GRAM, "an isdb_kernel")) \
    X(REAL, double, length_scale, 1.0,                                                               \
      (c->kernel != ISDB_KERNEL_RBF && c->kernel != ISDB_KERNEL_MATERN52) ||                         \
          isdb__want_real(why, c->length_scale, "length_scale", ISDB__LENGTH_SCALE_MIN, ISDB__REAL_MAX, 0, \
                          "[1e-150, DBL_MAX]"))                                                      \
    X(INT, isdb_feature_map, features, ISDB_FEATURES_AUTO,                                           \
      isdb__want_int(why, (int)c->features, "features", ISDB_FEATURES_AUTO, ISDB_FEATURES_EIGEN, "an isdb_feature_map")) \
    X(REAL, double, rank_tol, 1e-12, isdb__want_real(why, c->rank_tol, "rank_tol", 0.0, 1.0, 2, "[0, 1)")) \
    X(INT, int, adaptive, 0, isdb__want_flag(why, c->adaptive, "adaptive"))                          \
    X(REAL, double, horizon, horizon, isdb__want_real(why, c->horizon, "horizon", 2.0, 1e15, 0, "[2, 1e15]")) \
    X(REAL, double, sigma, 100.0,                                                                    \
      isdb__want_pos(why, c->sigma, "sigma") &&                                                      \
          (isdb__ridge_ok(c->sigma / c->horizon) ||                                                  \
           isdb__refuse(why, "sigma", 1e-30 * c->horizon, 1e30 * c->horizon, "sigma / horizon in [1e-30, 1e30]"))) \
    X(REAL, double, delta, 1e-4, isdb__want_delta(why, c->delta, "delta"))                           \
    X(REAL, double, reward_scale, 1.0,                                                               \
      isdb__want_real(why, c->reward_scale, "reward_scale", 1e-30, 1e30, 0, "[1e-30, 1e30]"))       \
    X(REAL, double, gamma_factor, 0.5, isdb__want_real(why, c->gamma_factor, "gamma_factor", 1e-30, 1e30, 0, "[1e-30, 1e30]")) \
    X(REAL, double, c1, 0.1, isdb__want_real(why, c->c1, "c1", 0.0, 1.0, 0, "[0, 1]"))              \
    X(REAL, double, c3, 0.04, isdb__want_pos_scale(why, c->c3, "c3"))                                \
    X(REAL, double, c4, 0.25, isdb__want_nonneg(why, c->c4, "c4"))                                   \
    X(REAL, double, beta_scale, 50.0, isdb__want_pos(why, c->beta_scale, "beta_scale"))              \
    X(REAL, double, set_scale, 2.5, isdb__want_nonneg(why, c->set_scale, "set_scale"))               \
    X(REAL, double, mix, 0.2, isdb__want_real(why, c->mix, "mix", 0.0, 1.0, 0, "[0, 1]"))           \
    X(REAL, double, c0_scale, 0.005, isdb__want_pos(why, c->c0_scale, "c0_scale"))                   \
    X(INT, int, test_mean, 1, isdb__want_flag(why, c->test_mean, "test_mean"))                       \
    X(INT, int, j_star, 4, isdb__want_int(why, c->j_star, "j_star", 0, 64, "[0, 64]"))              \
    X(INT, int, test_block, 0, isdb__want_flag(why, c->test_block, "test_block"))                    \
    X(INT, int, max_restarts, 100, isdb__want_count(why, c->max_restarts, "max_restarts"))           \
    X(INT, isdb_opkb_test, test, ISDB_OPKB_TEST_CALIBRATED,                                          \
      isdb__want_int(why, (int)c->test, "test", ISDB_OPKB_TEST_CALIBRATED, ISDB_OPKB_TEST_CONSTANT, "an isdb_opkb_test")) \
    X(REAL, double, test_z, ISDB__OPKB_TEST_Z, isdb__want_pos(why, c->test_z, "test_z"))             \
    X(REAL, double, solver_tol, 1e-9, isdb__want_pos(why, c->solver_tol, "solver_tol"))              \
    X(INT, int, solver_max_iter, 200, isdb__want_int(why, c->solver_max_iter, "solver_max_iter", 1, INT_MAX, ">= 1")) \
    X(ARRAY, const double *, arms, NULL, 1)                                                          \
    X(ARRAY, const double *, gram, NULL, 1)
#define ISDB__ARRAY_LEN_arms(c) ((int64_t)(c)->n_arms * (int64_t)(c)->d)
#define ISDB__ARRAY_LEN_gram(c) ((int64_t)(c)->n_arms * (int64_t)(c)->n_arms)

ISDB__ONCE isdb_opkb_config isdb_opkb_config_init(int d, int n_arms, double horizon) {
    isdb_opkb_config c;
    memset(&c, 0, sizeof c);
    ISDB__OPKB_FIELDS(ISDB__CFG_DEFAULT)
    return c;
}

/* The largest k(x, x) over the arms, from the kernel itself (the linear
   kernel's x.x in isdb__dot's order, what its AUTO features give; 1 for
   RBF and Matern; the Gram matrix's diagonal): lambda = sigma / horizon
   must be at least 1e-10 of it. config_check and init test the same
   number, so a config that the check passes init does not refuse for
   it. The arms (or gram) must have been checked. */
ISDB__PRIVATE double isdb__opkb_kmax(const isdb_opkb_config *c) {
    double kmax = 0.0;
    int i;
    if (c->kernel == ISDB_KERNEL_RBF || c->kernel == ISDB_KERNEL_MATERN52) return 1.0;
    for (i = 0; i < c->n_arms; ++i) {
        double kk = c->kernel == ISDB_KERNEL_GRAM ? c->gram[i * c->n_arms + i]
                                                  : isdb__dot(c->d, c->arms + i * c->d, c->arms + i * c->d);
        if (kk > kmax) kmax = kk;
    }
    return kmax;
}

ISDB__ONCE isdb_result isdb_opkb_config_check(const isdb_opkb_config *c, isdb_refusal *why) {
    int N;
    if (!(isdb__want_start(why) && isdb__want_ptr(why, c, "cfg") ISDB__OPKB_FIELDS(ISDB__CFG_CHECK)))
        return ISDB_ERR_INVALID_ARG;
    N = c->n_arms;
    return isdb__checked((c->kernel == ISDB_KERNEL_GRAM
                              ? isdb__want(why, c->gram && isdb__all_finite(c->gram, N * N), "gram", "non-NULL, finite")
                              : isdb__want_ptr(why, c->arms, "arms")) &&
                         isdb__want_inputs(why, c->arms, N * c->d, "arms", 1) &&
                         ((c->sigma / c->horizon >= 1e-10 * isdb__opkb_kmax(c) &&
                           c->sigma / c->horizon <= 1e30 * isdb__opkb_kmax(c)) ||
                          isdb__refuse(why, "sigma", 1e-10 * isdb__opkb_kmax(c) * c->horizon,
                                       1e30 * isdb__opkb_kmax(c) * c->horizon,
                                       "sigma / horizon in [1e-10, 1e30] times max k(x, x) over the arms")) &&
                         /* the linear kernel's K = X X^T has rank at most d: CHOLESKY (no eigen fallback)
                            cannot factor it */
                         (c->kernel != ISDB_KERNEL_LINEAR || c->features != ISDB_FEATURES_CHOLESKY || c->n_arms <= c->d ||
                          isdb__refuse(why, "features", (double)NAN, (double)NAN,
                                       "not CHOLESKY with the linear kernel and n_arms > d")));
}

ISDB__DEFINE_CONFIG_WALK(opkb, ISDB__OPKB_FIELDS)
ISDB__CONFIG_FROM_SNAPSHOT(opkb, ISDB_POLICY_OPKB)

/* Doubles of scratch: the feature map at init, then the solver, the rows
   of a set A and vectors. */
ISDB__ONCE_PRIVATE size_t isdb__opkb_work_size(const isdb_opkb_config *c) {
    size_t N = (size_t)c->n_arms, pm = (size_t)isdb__opkb_pmax(c);
    size_t init = (c->kernel == ISDB_KERNEL_LINEAR && c->features == ISDB_FEATURES_AUTO) ? 0 : 4 * N * N + N;
    size_t run = isdb_opkb_solve_work_size(c->n_arms, (int)pm) + N * pm + 8 * N + 2 * pm;
    return init > run ? init : run;
}

ISDB__ONCE_PRIVATE size_t isdb__opkb_layout(const isdb_opkb_config *c, isdb_opkb *p, void *heap) {
    isdb__arena a;
    size_t N = (size_t)c->n_arms, J = (size_t)isdb__opkb_j_bound(c->horizon);
    a.base = (unsigned char *)heap;
    a.used = 0;
    a.overflow = 0;
    p->_arms = isdb__take_f64_n(&a, c->arms ? N * (size_t)c->d : 0);
    p->_gram = isdb__take_f64_n(&a, c->kernel == ISDB_KERNEL_GRAM ? N * N : 0);
    p->_phi = isdb__take_f64_n(&a, N * (size_t)isdb__opkb_pmax(c));
    p->_pi = isdb__take_f64_n(&a, N);
    p->_strategies = isdb__take_f64_n(&a, (J + 1) * N);
    p->_gap_est = isdb__take_f64_n(&a, J * N);
    p->_wC = isdb__take_f64_n(&a, (J + 1) * N);
    p->_wB = isdb__take_f64_n(&a, (J + 1) * N);
    p->_wR = isdb__take_f64_n(&a, J * (J + 1) / 2 * N);
    p->_qC = isdb__take_f64_n(&a, (J + 1) * N);
    p->_qB = isdb__take_f64_n(&a, (J + 1) * N);
    p->_qR = isdb__take_f64_n(&a, J * (J + 1) / 2 * N);
    p->_gap_var = isdb__take_f64_n(&a, J * N);
    p->_xstar = isdb__take_f64_n(&a, N);
    p->_active = (int *)isdb__take(&a, (int)J, sizeof(int));
    p->_work = isdb__take_f64_n(&a, isdb__opkb_work_size(c));
    return a.overflow ? 0 : a.used;
}

/* Reward sums of replay index m: (m + 1) x N from offset m (m + 1) / 2 N;
   qR: their squares. */
ISDB__PRIVATE double *isdb__opkb_wR(const isdb_opkb *p, int m) {
    return p->_wR + (size_t)m * (size_t)(m + 1) / 2 * (size_t)p->cfg.n_arms;
}
ISDB__PRIVATE double *isdb__opkb_qR(const isdb_opkb *p, int m) {
    return p->_qR + (size_t)m * (size_t)(m + 1) / 2 * (size_t)p->cfg.n_arms;
}

ISDB__PRIVATE uint64_t isdb__opkb_len(const isdb_opkb *p, int m) { return p->E << m; }

/* Lowest replay index scheduled (none without change detection). */
ISDB__PRIVATE int isdb__opkb_m_lo(const isdb_opkb *p) { return p->cfg.adaptive ? p->cfg.j_star : INT_MAX; }

/* Lower Cholesky factor of S(P, lambda) into L (p x p). */
ISDB__PRIVATE int isdb__opkb_factor(const isdb_opkb *p, const double *P, double *L) {
    int i, r, k, q = p->p;
    isdb__identity(q, L, p->lambda);
    for (i = 0; i < p->cfg.n_arms; ++i) {
        const double *f = p->_phi + i * q;
        if (P[i] <= 0.0) continue;
        for (r = 0; r < q; ++r) {
            double s = P[i] * f[r], *Lr = L + r * q;
            for (k = 0; k <= r; ++k) Lr[k] += s * f[k];
        }
    }
    return isdb_chol(q, L) == ISDB_OK;
}

/* Reward estimates over an interval of `len` rounds whose reward sums per
   strategy are w (n_strat x N): R = (1/len) Phi sum_m S(P(m))^-1 Phi^T w_m
   (the IPS estimator, Definition 4.1, summed by strategy). With the sums of
   squared rewards w2 (else NULL), also C = sum_m sum_a w2_ma u u^T, u =
   S(P(m))^-1 phi_a, into the scratch after the factor (lower triangle):
   a round of strategy m that played a adds (v^T u y / len)^2 to the
   variance of v^T R-hat, so var(R(i) - R(x)) = v^T C v / len^2 with v =
   phi_i - phi_x (isdb__opkb_diff_var). */
ISDB__PRIVATE void isdb__opkb_rewards_of(isdb_opkb *p, const double *w, const double *w2, int n_strat, double len,
                                         double *R) {
    int N = p->cfg.n_arms, q = p->p, m, i, r, k;
    int pm = isdb__opkb_pmax(&p->cfg);
    double *L = p->_work, *C = L + (size_t)q * (size_t)q;
    double *vec = p->_work + isdb_opkb_solve_work_size(N, pm) + (size_t)N * (size_t)pm;
    double *u = vec + 8 * N, *b = u + pm;
    isdb__zero(q, u);
    if (w2) isdb__zero(q * q, C);
    for (m = 0; m < n_strat; ++m) {
        const double *wm = w + m * N, *qm = w2 ? w2 + m * N : wm;
        int any = 0;
        for (i = 0; i < N; ++i)
            if (qm[i] != 0.0) any = 1;
        if (!any || !isdb__opkb_factor(p, p->_strategies + m * N, L)) continue;
        isdb__zero(q, b);
        for (i = 0; i < N; ++i) {
            const double *f = p->_phi + i * q;
            if (wm[i] != 0.0)
                for (r = 0; r < q; ++r) b[r] += f[r] * wm[i];
        }
        isdb_chol_solve(q, L, b, b);
        for (r = 0; r < q; ++r) u[r] += b[r];
        if (!w2) continue;
        for (i = 0; i < N; ++i) {
            if (qm[i] <= 0.0) continue;
            isdb_chol_solve(q, L, p->_phi + i * q, b);
            for (r = 0; r < q; ++r) {
                double s = qm[i] * b[r], *Cr = C + r * q;
                for (k = 0; k <= r; ++k) Cr[k] += s * b[k];
            }
        }
    }
    for (i = 0; i < N; ++i) R[i] = isdb__dot(q, p->_phi + i * q, u) / len;
}

/* Variance of R(i) - R(x) from the C of the last isdb__opkb_rewards_of. */
ISDB__PRIVATE double isdb__opkb_diff_var(isdb_opkb *p, int i, int x, double len) {
    int N = p->cfg.n_arms, q = p->p, r, k, pm = isdb__opkb_pmax(&p->cfg);
    const double *C = p->_work + (size_t)q * (size_t)q;
    double *v = p->_work + isdb_opkb_solve_work_size(N, pm) + (size_t)N * (size_t)pm + 8 * N + pm, s = 0.0;
    for (r = 0; r < q; ++r) v[r] = p->_phi[i * q + r] - p->_phi[x * q + r];
    for (r = 0; r < q; ++r) {
        const double *Cr = C + r * q;
        double t = 0.5 * Cr[r] * v[r];
        for (k = 0; k < r; ++k) t += Cr[k] * v[k];
        s += 2.0 * t * v[r];
    }
    return (s > 0.0 ? s : 0.0) / (len * len);
}

/* Test (8) for the interval of index m whose reward sums are w and squared
   sums w2 (m + 1 strategies) against every stored C(k), j_star <= k <
   block. Returns the largest ratio of a side to its threshold, or -1 if
   nothing was compared.
   CONSTANT, the paper's: the gaps g = max R - R of the interval against
   D(k), a side g - 4 D or D - 4 g of an arm against 4 c0 mu.
   CALIBRATED: the interval's gaps are taken to C(k)'s best arm b (D_b(k)
   = 0), g = R(b) - R, not to the maximum of noisy estimates, and a side
   g - F D or D - F g is compared with test_z times its own standard
   deviation (from the variances of g and D(k), estimated from the
   squared rewards). The factor F (2; the paper's is 4) absorbs the
   estimates' regularisation bias, which differs between strategies and
   which a variance does not see: without it (F = 1) stationary runs
   restart, with 4 slow drifts are seen later (bench/calib_opkb.c). */
ISDB__PRIVATE double isdb__opkb_test(isdb_opkb *p, const double *w, const double *w2, int m, double len) {
    int N = p->cfg.n_arms, k, i, pm = isdb__opkb_pmax(&p->cfg);
    int calibrated = p->cfg.test == ISDB_OPKB_TEST_CALIBRATED;
    double *R = p->_work + isdb_opkb_solve_work_size(N, pm) + (size_t)N * (size_t)pm + 5 * N;
    double c0 = p->cfg.c0_scale * (40.0 + 16.0 * sqrt(p->alpha)), z = p->cfg.test_z, ratio = -DBL_MAX, top;
    if (p->cfg.j_star >= p->block) return -1.0;
    isdb__opkb_rewards_of(p, w, calibrated ? w2 : NULL, m + 1, len, R);
    top = calibrated ? 0.0 : R[isdb__argmax(R, N)];
    for (k = p->cfg.j_star; k < p->block; ++k) {
        const double *Dk = p->_gap_est + k * N, *Vk = p->_gap_var + k * N;
        if (calibrated) {
            const double F = ISDB__OPKB_TEST_FACTOR;
            int b = 0;
            for (i = 1; i < N; ++i)
                if (Dk[i] < Dk[b]) b = i;
            for (i = 0; i < N; ++i) {
                double g = R[b] - R[i], vg = isdb__opkb_diff_var(p, b, i, len);
                double sd_up = z * sqrt(vg + F * F * Vk[i]), sd_down = z * sqrt(Vk[i] + F * F * vg);
                double up = g - F * Dk[i], down = Dk[i] - F * g;
                if (sd_up > 0.0 && up / sd_up > ratio) ratio = up / sd_up;
                if (sd_down > 0.0 && down / sd_down > ratio) ratio = down / sd_down;
            }
        } else {
            double mu = p->cfg.test_mean ? 0.25 * (isdb__pow2_half(-m) + isdb__pow2_half(-k))
                                         : 0.5 * isdb__pow2_half(-(m < k ? m : k));
            double thr = 4.0 * c0 * mu;
            for (i = 0; i < N; ++i) {
                double g = top - R[i], up = g - 4.0 * Dk[i], down = Dk[i] - 4.0 * g;
                double lhs = up > down ? up : down;
                if (lhs / thr > ratio) ratio = lhs / thr;
            }
        }
    }
    p->tests++;
    /* A side near 1e30 over the threshold of a tiny c0_scale (or a tiny
       standard deviation) is +Inf: kept at DBL_MAX, the same decision
       (> 1), so the statistic stays finite and the snapshot loads. */
    if (ratio > DBL_MAX) ratio = DBL_MAX;
    p->last_stat = ratio;
    return ratio;
}

/* New replay slots for the round starting at t (Schedule, Algorithm 4,
   drawn slot by slot as each slot begins), then m_t. */
ISDB__PRIVATE void isdb__opkb_prepare(isdb_opkb *p, uint64_t t) {
    int m, N = p->cfg.n_arms;
    uint64_t tau = t - p->block_start;
    p->m_cur = p->block;
    for (m = isdb__opkb_m_lo(p); m < p->block; ++m) {
        if (tau % isdb__opkb_len(p, m) == 0) {
            p->_active[m] = isdb_rng_uniform(&p->base.rng) < isdb__pow2_half(m - p->block);
            if (p->_active[m]) {
                isdb__zero((m + 1) * N, isdb__opkb_wR(p, m));
                isdb__zero((m + 1) * N, isdb__opkb_qR(p, m));
            }
        }
        if (p->_active[m] && m < p->m_cur) p->m_cur = m;
    }
}

/* Epoch state back to block 0 at round t (P(0) = pi(X) is kept). */
ISDB__COLD_PRIVATE void isdb__opkb_new_epoch(isdb_opkb *p, uint64_t t) {
    int N = p->cfg.n_arms, J = isdb__opkb_j_bound(p->cfg.horizon);
    p->block = 0;
    p->m_cur = 0;
    p->epoch_start = p->block_start = t;
    p->block_len = p->E;
    isdb__copy(N, p->_pi, p->_strategies);
    isdb__zero(J * N, p->_strategies + N);
    isdb__zero(J * N, p->_gap_est);
    isdb__zero((J + 1) * N, p->_wC);
    isdb__zero((J + 1) * N, p->_wB);
    isdb__zero(J * (J + 1) / 2 * N, p->_wR);
    isdb__zero((J + 1) * N, p->_qC);
    isdb__zero((J + 1) * N, p->_qB);
    isdb__zero(J * (J + 1) / 2 * N, p->_qR);
    isdb__zero(J * N, p->_gap_var);
    memset(p->_active, 0, (size_t)J * sizeof(int));
}

/* End of block j at round t - 1 without a restart: D_j from C(j), OP with
   beta_{j+1}, pi(A), and P(j+1) (Algorithm 2 lines 4-6). */
ISDB__COLD_PRIVATE void isdb__opkb_next_block(isdb_opkb *p, uint64_t t) {
    const isdb_opkb_config *c = &p->cfg;
    int N = c->n_arms, q = p->p, pm = isdb__opkb_pmax(c), j = p->block, jn = j + 1, i, nA = 0, first = 0, best;
    int calibrated = c->test == ISDB_OPKB_TEST_CALIBRATED;
    double *ws = p->_work, *phiA = ws + isdb_opkb_solve_work_size(N, pm), len;
    double *cost = phiA + (size_t)N * (size_t)pm, *pstar = cost + N, *piA = pstar + N, *xA = piA + N;
    double *Dj = p->_gap_est + j * N, *Pn = p->_strategies + jn * N;
    double beta = c->beta_scale * p->gamma * isdb__pow2_half(jn) / (10.0 + 4.0 * sqrt(p->alpha));
    double thr = c->set_scale * 2.0 * p->alpha * p->gamma / beta, mu = c->c1 * isdb__pow2_half(-jn), s;
    isdb_result r;
    len = (double)(t - p->epoch_start);
    isdb__opkb_rewards_of(p, p->_wC, calibrated ? p->_qC : NULL, jn, len, Dj);
    best = isdb__argmax(Dj, N);
    s = Dj[best];
    for (i = 0; i < N; ++i) {
        Dj[i] = s - Dj[i];
        if (calibrated) p->_gap_var[j * N + i] = isdb__opkb_diff_var(p, best, i, len);
    }
    for (i = 0; i < N; ++i) cost[i] = 0.5 * beta * Dj[i];
    r = isdb_opkb_solve(N, q, p->_phi, cost, p->lambda, p->_xstar, c->solver_tol, c->solver_max_iter, pstar,
                        &p->op_info, ws);
    if (r < 0)
        isdb__copy(N, p->_pi, pstar);
    else
        isdb__copy(N, pstar, p->_xstar);
    /* pi(A) on A = {x: gap(x) <= thr}, solved on the rows of A. */
    for (i = 0; i < N; ++i)
        if (Dj[i] <= thr) {
            if (nA == 0) first = i;
            isdb__copy(q, p->_phi + i * q, phiA + nA * q);
            xA[nA++] = p->_pi[i];
        }
    memset(&p->set_info, 0, sizeof p->set_info);
    if (nA == N) {
        isdb__copy(N, p->_pi, piA);
    } else if (nA == 1) {
        isdb__zero(N, piA);
        piA[first] = 1.0;
    } else {
        double sA = 0.0;
        for (i = 0; i < nA; ++i) sA += xA[i];
        r = isdb_opkb_solve(nA, q, phiA, NULL, p->lambda, sA > 0.0 ? xA : NULL, c->solver_tol, c->solver_max_iter,
                            cost, &p->set_info, ws);
        if (r < 0)
            for (i = 0; i < nA; ++i) cost[i] = 1.0 / (double)nA;
        nA = 0;
        for (i = 0; i < N; ++i) piA[i] = Dj[i] <= thr ? cost[nA++] : 0.0;
    }
    s = 0.0;
    for (i = 0; i < N; ++i) {
        double Q = (1.0 - c->mix) * pstar[i] + c->mix * piA[i];
        Pn[i] = (1.0 - mu) * Q + mu * p->_pi[i];
        if (Pn[i] < 0.0) Pn[i] = 0.0;
        s += Pn[i];
    }
    for (i = 0; i < N; ++i) Pn[i] /= s;
    p->block = jn;
    p->block_start = t;
    p->block_len = isdb__opkb_len(p, jn);
    isdb__zero((jn + 1) * N, p->_wB);
    isdb__zero((jn + 1) * N, p->_qB);
    memset(p->_active, 0, (size_t)jn * sizeof(int));
}

/* X must be NULL or the arm set itself. */
ISDB__PRIVATE isdb_result isdb__opkb_check_X(const isdb_opkb *p, const double *X, int n_arms) {
    int i;
    if (n_arms != p->cfg.n_arms) return ISDB_ERR_INVALID_ARG;
    if (!X) return ISDB_OK;
    if (!p->cfg.arms) return ISDB_ERR_INVALID_ARG;
    for (i = 0; i < n_arms * p->cfg.d; ++i)
        if (X[i] != p->_arms[i]) return ISDB_ERR_INVALID_ARG;
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__opkb_probs(isdb_policy *bp, const double *X, int n_arms, double *out) {
    isdb_opkb *p = (isdb_opkb *)bp;
    isdb_result r = isdb__opkb_check_X(p, X, n_arms);
    if (r != ISDB_OK) return r;
    isdb__copy(n_arms, p->_strategies + p->m_cur * n_arms, out);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__opkb_select(isdb_policy *bp, const double *X, int n_arms, int *arm) {
    isdb_opkb *p = (isdb_opkb *)bp;
    const double *P = p->_strategies + p->m_cur * n_arms;
    double total = 0.0, cum = 0.0, target;
    int i, last = 0;
    isdb_result r = isdb__opkb_check_X(p, X, n_arms);
    if (r != ISDB_OK) return r;
    for (i = 0; i < n_arms; ++i) {
        total += P[i];
        if (P[i] > 0.0) last = i;
    }
    target = isdb_rng_uniform(&p->base.rng) * total;
    *arm = last;
    for (i = 0; i < n_arms; ++i) {
        cum += P[i];
        if (target < cum && P[i] > 0.0) {
            *arm = i;
            break;
        }
    }
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__opkb_update(isdb_policy *bp, int arm, const double *x, double reward) {
    isdb_opkb *p = (isdb_opkb *)bp;
    const isdb_opkb_config *c = &p->cfg;
    int N = c->n_arms, m = p->m_cur, j = p->block, mm, i, restart = 0;
    uint64_t t = p->base.t, tau = t - p->block_start;
    double y = reward / c->reward_scale;
    if (x) {
        if (!c->arms) return ISDB_ERR_INVALID_ARG;
        for (i = 0; i < c->d; ++i)
            if (x[i] != p->_arms[arm * c->d + i]) return ISDB_ERR_INVALID_ARG;
    }
    p->_wC[m * N + arm] += y;
    p->_wB[m * N + arm] += y;
    p->_qC[m * N + arm] += y * y;
    p->_qB[m * N + arm] += y * y;
    for (mm = isdb__max_int(m, isdb__opkb_m_lo(p)); mm < j; ++mm)
        if (p->_active[mm]) {
            isdb__opkb_wR(p, mm)[m * N + arm] += y;
            isdb__opkb_qR(p, mm)[m * N + arm] += y * y;
        }
    /* Intervals that end with this round, smallest index first. */
    for (mm = isdb__opkb_m_lo(p); mm < j; ++mm) {
        uint64_t len = isdb__opkb_len(p, mm);
        if (!p->_active[mm] || (tau + 1) % len != 0) continue;
        p->_active[mm] = 0;
        if (!restart && isdb__opkb_test(p, isdb__opkb_wR(p, mm), isdb__opkb_qR(p, mm), mm, (double)len) > 1.0 &&
            p->epoch - 1 < c->max_restarts)
            restart = 1;
    }
    if (j < p->j_max && tau + 1 == p->block_len) {
        if (!restart && c->adaptive && c->test_block &&
            isdb__opkb_test(p, p->_wB, p->_qB, j, (double)p->block_len) > 1.0 && p->epoch - 1 < c->max_restarts)
            restart = 1;
        if (!restart) isdb__opkb_next_block(p, t + 1);
    }
    if (restart) {
        p->epoch++;
        p->last_restart = t + 1;
        isdb__opkb_new_epoch(p, t + 1);
    }
    isdb__opkb_prepare(p, t + 1);
    return ISDB_OK;
}

ISDB__ONCE_PRIVATE void isdb__opkb_ser_info(isdb_ser *s, isdb_opkb_solve_info *info) {
    int status = (int)info->status;
    isdb__ser_int(s, &status, -64, 64);
    if (isdb__ser_storing(s)) info->status = (isdb_result)status;
    isdb__ser_int(s, &info->iterations, 0, INT_MAX);
    isdb__ser_real(s, &info->kkt, 1);
    isdb__ser_real(s, &info->gap, 1);
    isdb__ser_real(s, &info->objective, 1);
}

ISDB__ONCE_PRIVATE void isdb__opkb_serialize(isdb_policy *bp, isdb_ser *s) {
    isdb_opkb *p = (isdb_opkb *)bp;
    const isdb_opkb_config *c = &p->cfg;
    int N = c->n_arms, J = isdb__opkb_j_bound(c->horizon), k, block;
    uint64_t start, block_start, restarts, tests, last;
    double wmax, qmax;
    restarts = (uint64_t)isdb__ser_int(s, &p->epoch, 1, INT_MAX) - 1;
    block = isdb__ser_int(s, &p->block, 0, p->j_max);
    isdb__ser_int(s, &p->m_cur, 0, block);
    /* The epoch, then the block, began at or before now; blocks double. */
    start = isdb__ser_u64(s, &p->epoch_start);
    block_start = isdb__ser_u64(s, &p->block_start);
    isdb__ser_require(s, start <= block_start && block_start <= s->t);
    isdb__ser_require(s, isdb__ser_u64(s, &p->block_len) == isdb__opkb_len(p, block));
    /* An update runs at most one test per interval ending with it and one
       for its block; a restart (at most one an update, at most
       max_restarts) follows a test and begins its epoch after an update. */
    tests = isdb__ser_tally(s, &p->tests, ISDB__COUNT_MAX);
    isdb__ser_require(s, tests / (uint64_t)(isdb__max_int(J, p->j_max) + 1) <= s->t);
    last = isdb__ser_tally(s, &p->last_restart, s->t);
    isdb__ser_require(s, restarts <= (uint64_t)c->max_restarts && restarts <= tests && restarts <= last &&
                             (restarts > 0 || last == 0));
    isdb__ser_real(s, &p->last_stat, 1);
    isdb__opkb_ser_info(s, &p->op_info);
    isdb__opkb_ser_info(s, &p->set_info);
    /* The strategies of blocks 0..block are distributions; later rows are
       not written yet. */
    for (k = 0; k <= J; ++k) {
        if (k <= block)
            isdb__ser_simplex(s, p->_strategies + k * N, N);
        else
            isdb__ser_real_range(s, p->_strategies + k * N, N, 0.0, 1.0);
    }
    /* Gaps max R - R of reward estimates (far below INPUT_MAX^2 in any
       run: the test divides them by small thresholds); sums of at most t
       rewards / reward_scale. */
    isdb__ser_real_range(s, p->_gap_est, J * N, 0.0, ISDB_INPUT_MAX * ISDB_INPUT_MAX);
    wmax = (double)s->t * ISDB_INPUT_MAX / c->reward_scale * (1.0 + ISDB__SER_TOL);
    isdb__ser_real_range(s, p->_wC, (J + 1) * N, -wmax, wmax);
    isdb__ser_real_range(s, p->_wB, (J + 1) * N, -wmax, wmax);
    isdb__ser_real_range(s, p->_wR, J * (J + 1) / 2 * N, -wmax, wmax);
    qmax = wmax * ISDB_INPUT_MAX / c->reward_scale;
    isdb__ser_real_range(s, p->_qC, (J + 1) * N, 0.0, qmax);
    isdb__ser_real_range(s, p->_qB, (J + 1) * N, 0.0, qmax);
    isdb__ser_real_range(s, p->_qR, J * (J + 1) / 2 * N, 0.0, qmax);
    isdb__ser_real_range(s, p->_gap_var, J * N, 0.0, DBL_MAX);
    isdb__ser_real_range(s, p->_xstar, N, 0.0, 1.0);
    for (k = 0; k < J; ++k) isdb__ser_int(s, &p->_active[k], 0, 1);
}

ISDB__ONCE_PRIVATE void isdb__opkb_reset(isdb_policy *bp) {
    isdb_opkb *p = (isdb_opkb *)bp;
    p->epoch = 1;
    p->tests = 0;
    p->last_restart = 0;
    p->last_stat = 0.0;
    memset(&p->op_info, 0, sizeof p->op_info);
    memset(&p->set_info, 0, sizeof p->set_info);
    isdb__copy(p->cfg.n_arms, p->_pi, p->_xstar);
    isdb__opkb_new_epoch(p, 0);
    isdb__opkb_prepare(p, 0);
}

static const isdb_policy_vtable isdb__opkb_vt = {
    ISDB_POLICY_OPKB,     "opkb",           ISDB_POLICY_X_OPTIONAL, isdb__opkb_select, isdb__opkb_update,
    isdb__opkb_probs,     isdb__opkb_probs, isdb__opkb_serialize,   isdb__opkb_reset,
    isdb__opkb_walk_config, offsetof(isdb_opkb, cfg), "n_arms", sizeof(isdb_opkb_config)};

ISDB__ONCE isdb_result isdb_opkb_heap_size(const isdb_opkb_config *cfg, size_t *bytes) {
    isdb_opkb probe;
    if (!bytes || isdb_opkb_config_check(cfg, NULL) != ISDB_OK) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__opkb_layout(cfg, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

/* ln det(I + M / lambda), M = sum_i pi_i phi_i phi_i^T, as sum ln(1 + w)
   over the eigenvalues w of M / lambda: no cancellation however large
   lambda is. Cold (init only), O(N p^2 + p^3); uses 2 p^2 + p of _work. */
ISDB__COLD_PRIVATE double isdb__opkb_info_direct(isdb_opkb *p) {
    int q = p->p, N = p->cfg.n_arms, i, j, k;
    double *A = p->_work, *w = A + q * q, *V = w + q, sum = 0.0;
    for (i = 0; i < q; ++i)
        for (j = 0; j <= i; ++j) {
            double m = 0.0;
            for (k = 0; k < N; ++k) m += p->_pi[k] * p->_phi[k * q + i] * p->_phi[k * q + j];
            A[i * q + j] = A[j * q + i] = m / p->lambda;
        }
    if (isdb_sym_eig(q, A, w, V) < 0) return 0.0;
    for (i = 0; i < q; ++i)
        if (w[i] > 0.0) sum += log1p(w[i]);
    return sum;
}

/* The feature map into _phi and p: the raw arms for the linear kernel with
   AUTO, otherwise built from the Gram matrix in scratch. */
ISDB__COLD_PRIVATE isdb_result isdb__opkb_features(isdb_opkb *p) {
    const isdb_opkb_config *c = &p->cfg;
    int N = c->n_arms;
    double *K = p->_work, *Phi = K + N * N, *fw = Phi + N * N;
    isdb_result r;
    if (c->kernel == ISDB_KERNEL_LINEAR && c->features == ISDB_FEATURES_AUTO) {
        p->p = c->d;
        isdb__copy(N * c->d, p->_arms, p->_phi);
        return ISDB_OK;
    }
    if (c->kernel == ISDB_KERNEL_GRAM)
        isdb__copy(N * N, p->_gram, K);
    else if ((r = isdb_kernel_gram(c->kernel, c->length_scale, N, c->d, p->_arms, K)) != ISDB_OK)
        return r;
    if ((r = isdb_feature_map_build(N, K, c->features, c->rank_tol, Phi, &p->p, fw)) != ISDB_OK) return r;
    isdb__copy(N * p->p, Phi, p->_phi);
    return ISDB_OK;
}

ISDB__ONCE isdb_result isdb_opkb_init_preallocated(const isdb_opkb_config *cfg, void *heap, size_t heap_bytes,
                                                   isdb_opkb *pol) {
    size_t bytes;
    double C0, E, kmax;
    int N;
    isdb_result r = isdb_opkb_heap_size(cfg, &bytes);
    if (r == ISDB_OK) r = isdb_init_check(heap, heap_bytes, bytes, pol, NULL);
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    memset(pol, 0, sizeof *pol);
    pol->cfg = *cfg;
    N = cfg->n_arms;
    isdb__opkb_layout(cfg, pol, heap);
    if (cfg->arms) isdb__copy(N * cfg->d, cfg->arms, pol->_arms);
    if (cfg->kernel == ISDB_KERNEL_GRAM) isdb__copy(N * N, cfg->gram, pol->_gram);
    pol->cfg.arms = cfg->arms ? pol->_arms : NULL;
    pol->cfg.gram = cfg->kernel == ISDB_KERNEL_GRAM ? pol->_gram : NULL;
    if ((r = isdb__opkb_features(pol)) != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    /* lambda must keep S(P, lambda) well conditioned: at least 1e-10 of the
       largest k(x, x). */
    pol->lambda = cfg->sigma / cfg->horizon;
    kmax = isdb__opkb_kmax(cfg); /* config_check refused a lambda below 1e-10 kmax */
    if (!(pol->lambda >= 1e-10 * kmax)) return isdb__refused(pol, sizeof *pol, ISDB_ERR_INVALID_ARG);
    r = isdb_opkb_solve(N, pol->p, pol->_phi, NULL, pol->lambda, NULL, cfg->solver_tol, cfg->solver_max_iter,
                        pol->_pi, &pol->design_info, pol->_work);
    if (r < 0) return isdb__refused(pol, sizeof *pol, r);
    /* gamma from ln det S(pi, lambda) = -objective:
       ln det(I + T/sigma M) = ln det S - p ln lambda. */
    pol->gamma = cfg->gamma_factor * (-pol->design_info.objective - (double)pol->p * log(pol->lambda));
    /* With lambda far above the kernel (config_check allows up to 1e30
       max k(x, x)) the two terms cancel to 0 or below: then ln det(I + M /
       lambda) directly, from the eigenvalues of M / lambda (ordinary
       configs never come here, so their gamma keeps its bits). */
    if (!(pol->gamma > 0.0)) pol->gamma = cfg->gamma_factor * isdb__opkb_info_direct(pol);
    C0 = 8.0 * cfg->horizon * (log(cfg->horizon) / log(2.0));
    /* ln(C0 N / delta), the quotient's log where it is finite (C0 N up to
       2e21, delta down to DBL_MIN: it overflowed and init refused a
       delta that config_check accepts) */
    pol->log_term = C0 * (double)N / cfg->delta <= DBL_MAX ? log(C0 * (double)N / cfg->delta)
                                                           : log(C0 * (double)N) - log(cfg->delta);
    pol->alpha = cfg->c4 * cfg->sigma / pol->log_term;
    E = ceil(cfg->c3 * pol->gamma * pol->log_term);
    if (!isdb__finite(E) || !isdb__finite(pol->gamma)) return isdb__refused(pol, sizeof *pol, ISDB_ERR_NONFINITE);
    /* A kernel that is numerically zero (every arm alike): nothing to learn. */
    if (!(pol->gamma > 0.0)) return isdb__refused(pol, sizeof *pol, ISDB_ERR_INVALID_ARG);
    if (E < 1.0) E = 1.0;
    if (E > 4503599627370496.0) E = 4503599627370496.0;
    pol->E = (uint64_t)E;
    pol->j_max = 0;
    while (pol->j_max < isdb__opkb_j_bound(cfg->horizon) && (ldexp(1.0, pol->j_max + 1) - 1.0) * E < cfg->horizon)
        pol->j_max++;
    isdb__policy_base_init(&pol->base, &isdb__opkb_vt, cfg->d, N, cfg->seed, heap, bytes, sizeof *pol);
    isdb__opkb_reset(&pol->base);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__opkb_setup(const void *cfg, void *heap, size_t heap_bytes, void *pol) {
    return isdb_opkb_init_preallocated((const isdb_opkb_config *)cfg, heap, heap_bytes, (isdb_opkb *)pol);
}

ISDB__ONCE isdb_result isdb_opkb_init(const isdb_opkb_config *cfg, const isdb_allocator *alloc, isdb_opkb *pol) {
    size_t bytes;
    isdb_result r = isdb_opkb_heap_size(cfg, &bytes);
    if (r == ISDB_OK && !pol) r = ISDB_ERR_INVALID_ARG;
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    return isdb__policy_init_owned(&pol->base, sizeof *pol, bytes, alloc, isdb__opkb_setup, cfg, pol);
}

ISDB__ONCE const isdb_opkb_config *isdb_opkb_get_config(const isdb_opkb *pol) { return &pol->cfg; }
int isdb_opkb_get_epoch(const isdb_opkb *pol) { return pol->epoch; }
int isdb_opkb_get_block(const isdb_opkb *pol) { return pol->block; }
int isdb_opkb_get_replay_index(const isdb_opkb *pol) { return pol->m_cur; }
int isdb_opkb_get_restarts(const isdb_opkb *pol) { return pol->epoch - 1; }
uint64_t isdb_opkb_get_epoch_start(const isdb_opkb *pol) { return pol->epoch_start; }
double isdb_opkb_get_last_test(const isdb_opkb *pol) { return pol->last_stat; }
uint64_t isdb_opkb_get_tests(const isdb_opkb *pol) { return pol->tests; }
double isdb_opkb_get_gamma(const isdb_opkb *pol) { return pol->gamma; }
uint64_t isdb_opkb_get_block_length(const isdb_opkb *pol) { return pol->E; }
double isdb_opkb_get_alpha(const isdb_opkb *pol) { return pol->alpha; }
int isdb_opkb_get_feature_dim(const isdb_opkb *pol) { return pol->p; }
void isdb_opkb_get_features(const isdb_opkb *pol, double *out) { isdb__copy(pol->cfg.n_arms * pol->p, pol->_phi, out); }
void isdb_opkb_get_design(const isdb_opkb *pol, double *out) { isdb__copy(pol->cfg.n_arms, pol->_pi, out); }

ISDB__COLD isdb_result isdb_opkb_get_strategy(const isdb_opkb *pol, int m, double *out) {
    if (!pol || !out || m < 0 || m > pol->block) return ISDB_ERR_INVALID_ARG;
    isdb__copy(pol->cfg.n_arms, pol->_strategies + m * pol->cfg.n_arms, out);
    return ISDB_OK;
}

void isdb_opkb_get_gaps(const isdb_opkb *pol, double *out) {
    int N = pol->cfg.n_arms;
    if (pol->block == 0)
        isdb__zero(N, out);
    else
        isdb__copy(N, pol->_gap_est + (pol->block - 1) * N, out);
}

void isdb_opkb_get_solve_reports(const isdb_opkb *pol, isdb_opkb_solve_info *design, isdb_opkb_solve_info *op,
                                 isdb_opkb_solve_info *set) {
    if (design) *design = pol->design_info;
    if (op) *op = pol->op_info;
    if (set) *set = pol->set_info;
}

#endif /* ISDB__HAS_OPKB */
#if ISDB__HAS_OAM
/* ---------------------------------------------------------------------------
   [OAM] OAM: the allocation problem (Definition 4.1) and the policy
   ------------------------------------------------------------------------ */

isdb_oam_problem isdb_oam_problem_init(int d, int n, const double *X, const double *gaps) {
    isdb_oam_problem p;
    memset(&p, 0, sizeof p);
    p.d = d;
    p.n = n;
    p.X = X;
    p.gaps = gaps;
    p.w_start = NULL;
    p.tol = 1e-8;
    p.max_iter = 500;
    p.rank_tol = 1e-9;
    p.gap_tol = 1e-12;
    p.force_barrier = 0;
    return p;
}

size_t isdb_oam_allocate_work_size(int d, int n) {
    size_t D = (size_t)d, N = (size_t)n;
    if (d < 1 || n < 1) return 0;
    /* 2 N^2 (the Newton system and the Gram matrix of the reduced arms)
       + 5 D N (arm matrices, QR workspace) + 8 N + 3 D^2 + D. */
    if (N > (SIZE_MAX / 16 - 64) / N || D > (SIZE_MAX / 16) / (D + N)) return 0;
    return 2 * N * N + 5 * D * N + 8 * N + 3 * D * D + D;
}

double isdb_oam_f(double n, int d, double c, double log_inv_delta) {
    double ln = log(n), inner = (double)d * ln;
    return 2.0 * (1.0 + 1.0 / ln) * log_inv_delta + c * (double)d * (inner > 1.0 ? log(inner) : 0.0);
}

/* Barrier helper: H = sum_j w_j z_j z_j^T (r x r, factored into H), rows of
   B = (L^-1 z_j)^T (J x r) and slacks s_j = gap_j^2 - ||L^-1 z_j||^2.
   Returns 1 if H is positive definite and every slack and weight positive. */
ISDB__PRIVATE int isdb__oam_eval(int r, int J, const double *Z, const double *gap, const double *w, double *H,
                                 double *B, double *s) {
    int i, j, k, ok = 1;
    isdb__zero(r * r, H);
    for (j = 0; j < J; ++j) {
        const double *z = Z + j * r;
        if (!(w[j] > 0.0)) return 0;
        for (i = 0; i < r; ++i)
            for (k = 0; k <= i; ++k) H[i * r + k] += w[j] * z[i] * z[k];
    }
    if (isdb_chol(r, H) != ISDB_OK) return 0;
    for (j = 0; j < J; ++j) {
        double *bj = B + j * r;
        isdb_tri_solve(r, H, 0, Z + j * r, bj);
        s[j] = gap[j] * gap[j] - isdb__dot(r, bj, bj);
        if (!(s[j] > 0.0)) ok = 0;
    }
    return ok;
}

/* phi(w') - phi(w) for the barrier phi = mu sum gap w - sum ln s - sum ln w,
   summed as differences and log-ratios: phi itself is about 2J / tol near
   the end, where its rounding would hide the decrease. */
ISDB__PRIVATE double isdb__oam_dphi(int J, double mu, const double *gap, const double *w, const double *s,
                                    const double *wt, const double *st) {
    double lin = 0.0, bar = 0.0;
    int j;
    for (j = 0; j < J; ++j) {
        lin += gap[j] * (wt[j] - w[j]);
        bar += log(st[j] / s[j]) + log(wt[j] / w[j]);
    }
    return mu * lin - bar;
}

/* The log-barrier method on the reduced problem: minimise sum gap_j w_j
   subject to z_i^T H(w)^-1 z_i <= gap_i^2 (Z: J x r, spanning R^r; gaps
   normalised to at most 1). w holds the start (positive) and receives the
   solution.
   Newton steps are taken in the scaled variables w_j (1 + v_j), where the
   barrier's Hessian is I + PSD. */
ISDB__PRIVATE isdb_result isdb__oam_barrier(int r, int J, const double *Z, const double *gap, double *w, double tol,
                                            int max_iter, int warm, int *iters, double *gap_bound, double *work) {
    double *Hf = work, *B = Hf + r * r, *Bt = B + r * J, *A = Bt + r * J, *Hs = A + J * J;
    double *grad = Hs + J * J, *v = grad + J, *wt = v + J, *s = wt + J, *st = s + J;
    double kappa, obj, mu, scale, wmax = 0.0;
    int i, j, k, it = 0, done = 0;
    isdb_result res = ISDB_OK;
    for (j = 0; j < J; ++j)
        if (w[j] > wmax) wmax = w[j];
    for (j = 0; j < J; ++j)
        if (!(w[j] > 0.0)) w[j] = wmax > 0.0 ? 1e-3 * wmax : 1.0;
    if (!isdb__oam_eval(r, J, Z, gap, w, Hf, B, s)) {
        /* Slack signs do not matter yet: only H must factor. */
        isdb__zero(r * r, Hf);
        for (j = 0; j < J; ++j)
            for (i = 0; i < r; ++i)
                for (k = 0; k <= i; ++k) Hf[i * r + k] += w[j] * Z[j * r + i] * Z[j * r + k];
        if (isdb_chol(r, Hf) != ISDB_OK) return ISDB_ERR_SINGULAR;
    }
    /* Feasible start by scaling: g_i(c w) = g_i(w) / c. */
    kappa = 0.0;
    for (j = 0; j < J; ++j) {
        double g;
        isdb_tri_solve(r, Hf, 0, Z + j * r, B + j * r);
        g = isdb__dot(r, B + j * r, B + j * r) / (gap[j] * gap[j]);
        if (g > kappa) kappa = g;
    }
    scale = (warm ? 1.05 : 2.0) * kappa;
    if (!(scale > 0.0) || !isdb__finite(scale)) return ISDB_ERR_SINGULAR;
    for (j = 0; j < J; ++j) w[j] *= scale;
    if (!isdb__oam_eval(r, J, Z, gap, w, Hf, B, s)) return ISDB_ERR_SINGULAR;
    obj = 0.0;
    for (j = 0; j < J; ++j) obj += gap[j] * w[j];
    /* m = 2J inequalities; at the central point for mu the duality gap is
       m / mu. A warm start begins close to the optimum. */
    mu = 2.0 * (double)J / ((warm ? 1e-4 : 1.0) * obj);
    while (!done) {
        /* Centering by damped Newton steps. */
        double prev_dec = DBL_MAX;
        for (;;) {
            double dec = 0.0, t;
            if (it >= max_iter) {
                res = ISDB_MAXITER_REACHED;
                done = 1;
                break;
            }
            ++it;
            for (i = 0; i < J; ++i)
                for (j = 0; j <= i; ++j) A[i * J + j] = A[j * J + i] = isdb__dot(r, B + i * r, B + j * r);
            for (j = 0; j < J; ++j) {
                double gsum = 0.0;
                for (i = 0; i < J; ++i) gsum += A[i * J + j] * A[i * J + j] / s[i];
                grad[j] = w[j] * (mu * gap[j] - gsum - 1.0 / w[j]);
            }
            for (j = 0; j < J; ++j)
                for (k = 0; k <= j; ++k) {
                    double h1 = 0.0, h2 = 0.0;
                    for (i = 0; i < J; ++i) {
                        double q = A[i * J + j] * A[i * J + k] / s[i];
                        h1 += q * q;
                        h2 += q;
                    }
                    Hs[j * J + k] = w[j] * w[k] * (h1 + 2.0 * A[j * J + k] * h2) + (j == k ? 1.0 : 0.0);
                }
            if (isdb_chol(J, Hs) != ISDB_OK) {
                res = ISDB_MAXITER_REACHED;
                done = 1;
                break;
            }
            for (j = 0; j < J; ++j) v[j] = -grad[j];
            isdb_chol_solve(J, Hs, v, v);
            for (j = 0; j < J; ++j) dec -= grad[j] * v[j];
            /* Centred: lambda^2 / 2 <= 1e-10, or no longer quadratic
               progress below 1e-6, the floor set by the rounding of
               slacks s = gap^2 - g that are tiny against gap^2. */
            if (!(dec > 2e-10) || (dec < 1e-6 && dec > 0.25 * prev_dec)) break;
            prev_dec = dec;
            /* Longest step keeping w_j (1 + t v_j) > 0, then backtracking
               (Armijo 0.25, halving) keeping every slack positive. */
            t = 1.0;
            for (j = 0; j < J; ++j)
                if (v[j] < 0.0 && -0.99 / v[j] < t) t = -0.99 / v[j];
            for (;;) {
                for (j = 0; j < J; ++j) wt[j] = w[j] * (1.0 + t * v[j]);
                if (isdb__oam_eval(r, J, Z, gap, wt, Hf, Bt, st) &&
                    isdb__oam_dphi(J, mu, gap, w, s, wt, st) <= -0.25 * t * dec)
                    break;
                t *= 0.5;
                if (t < 1e-16) break;
            }
            if (t < 1e-16) break; /* no progress possible at this mu: centred to rounding */
            {
                double *tmp = B;
                B = Bt;
                Bt = tmp;
                tmp = s;
                s = st;
                st = tmp;
            }
            isdb__copy(J, wt, w);
        }
        if (done) break;
        obj = 0.0;
        for (j = 0; j < J; ++j) obj += gap[j] * w[j];
        if (2.0 * (double)J / mu <= tol * obj) break;
        mu *= 50.0;
    }
    *gap_bound = 2.0 * (double)J / mu;
    *iters = it;
    /* Weights below 1e-9 of the largest are rounding noise of the barrier:
       drop them, then restore feasibility exactly by scaling. */
    wmax = 0.0;
    for (j = 0; j < J; ++j)
        if (w[j] > wmax) wmax = w[j];
    isdb__copy(J, w, wt);
    for (j = 0; j < J; ++j)
        if (wt[j] < 1e-9 * wmax) wt[j] = 0.0;
    isdb__zero(r * r, Hf);
    for (j = 0; j < J; ++j)
        for (i = 0; i < r; ++i)
            for (k = 0; k <= i; ++k) Hf[i * r + k] += wt[j] * Z[j * r + i] * Z[j * r + k];
    if (isdb_chol(r, Hf) == ISDB_OK) {
        kappa = 0.0;
        for (j = 0; j < J; ++j) {
            double g;
            isdb_tri_solve(r, Hf, 0, Z + j * r, B + j * r);
            g = isdb__dot(r, B + j * r, B + j * r) / (gap[j] * gap[j]);
            if (g > kappa) kappa = g;
        }
        if (kappa > 1.0)
            for (j = 0; j < J; ++j) wt[j] *= kappa;
        isdb__copy(J, wt, w);
    }
    return res;
}

isdb_result isdb_oam_allocate(const isdb_oam_problem *pr, double *w, isdb_oam_alloc_info *info, double *work) {
    isdb_oam_alloc_info inf;
    const double *X;
    double *gn, *flag, *Q, *Q2, *M, *ow, *Z, *bw, *bwork;
    double gmax = 0.0, gtol, rtol, tol, value = 0.0;
    int d, n, i, j, k, nz = 0, rank_u = 0, r0, r = 0, J = 0, max_iter;
    isdb_result res = ISDB_OK;
    memset(&inf, 0, sizeof inf);
    if (info) *info = inf;
    if (!pr || !w || !work) return ISDB_ERR_INVALID_ARG;
    d = pr->d;
    n = pr->n;
    X = pr->X;
    if (!isdb__dim_ok(d) || n < 1 || n > INT_MAX / d || !X || !pr->gaps || isdb_oam_allocate_work_size(d, n) == 0)
        return ISDB_ERR_INVALID_ARG;
    if (!isdb__all_finite(X, n * d) || !isdb__all_finite(pr->gaps, n) ||
        (pr->w_start && !isdb__all_finite(pr->w_start, n)))
        return ISDB_ERR_NONFINITE;
    for (j = 0; j < n; ++j) {
        if (pr->gaps[j] < 0.0 || (pr->w_start && pr->w_start[j] < 0.0)) return ISDB_ERR_INVALID_ARG;
        if (pr->gaps[j] > gmax) gmax = pr->gaps[j];
    }
    tol = pr->tol > 0.0 ? pr->tol : 1e-8;
    rtol = pr->rank_tol > 0.0 ? pr->rank_tol : 1e-9;
    gtol = (pr->gap_tol > 0.0 ? pr->gap_tol : 1e-12) * gmax;
    max_iter = pr->max_iter > 0 ? pr->max_iter : 500;
    gn = work;
    flag = gn + n;
    Q = flag + n;
    Q2 = Q + d * d;
    M = Q2 + d * d;
    ow = M + d * n;
    Z = ow + d * n + d;
    bw = Z + d * n;
    bwork = bw + n;
    for (j = 0; j < n; ++j) {
        w[j] = 0.0;
        flag[j] = 0.0;
    }
    /* U: the span of the zero-gap arms (their weight is infinite). */
    for (j = 0; j < n; ++j)
        if (pr->gaps[j] <= gtol) ++nz;
    if (nz > 0) {
        for (j = 0, k = 0; j < n; ++j)
            if (pr->gaps[j] <= gtol) {
                for (i = 0; i < d; ++i) M[i * nz + k] = X[j * d + i];
                ++k;
            }
        if ((res = isdb_orth_basis(d, nz, M, rtol, Q, &rank_u, ow)) < 0) return res;
    } else {
        isdb__identity(d, Q, 1.0);
    }
    inf.rank_u = rank_u;
    r0 = d - rank_u;
    /* Components of the other arms in the complement of U; arms (almost)
       inside U need no weight and meet their constraint in the limit. */
    for (j = 0; j < n && r0 > 0; ++j) {
        double nx, np;
        if (pr->gaps[j] <= gtol) continue;
        for (i = 0; i < r0; ++i) {
            double s = 0.0;
            for (k = 0; k < d; ++k) s += Q[k * d + rank_u + i] * X[j * d + k];
            Z[J * r0 + i] = s;
        }
        nx = sqrt(isdb__dot(d, X + j * d, X + j * d));
        np = sqrt(isdb__dot(r0, Z + J * r0, Z + J * r0));
        if (np > rtol * nx) {
            flag[j] = 1.0;
            gn[J] = pr->gaps[j] / gmax;
            ++J;
        }
    }
    if (J == 0) {
        inf.method = ISDB_OAM_METHOD_ZERO;
        if (info) *info = inf;
        return ISDB_OK;
    }
    /* A basis of the span of those components (r0 unless the arms do not
       span R^d), and the coordinates z_j in it. */
    for (j = 0; j < J; ++j)
        for (i = 0; i < r0; ++i) M[i * J + j] = Z[j * r0 + i];
    if ((res = isdb_orth_basis(r0, J, M, rtol, Q2, &r, ow)) < 0) return res;
    if (r == 0) {
        inf.method = ISDB_OAM_METHOD_ZERO;
        if (info) *info = inf;
        return ISDB_OK;
    }
    for (j = 0; j < J; ++j)
        for (i = 0; i < r; ++i) {
            double s = 0.0;
            for (k = 0; k < r0; ++k) s += Q2[k * r0 + i] * Z[j * r0 + k];
            M[j * r + i] = s;
        }
    inf.r = r;
    inf.n_vars = J;
    for (j = 0; j < J; ++j) bw[j] = 0.0;
    if (r == 1 && !pr->force_barrier) {
        /* H >= H* = max_i z_i^2 / gap_i^2, bought most cheaply from the arm
           of smallest gap_j / z_j^2. */
        double hstar = -1.0, best = 0.0;
        int jstar = -1;
        for (j = 0; j < J; ++j) {
            double z2 = M[j] * M[j], h = z2 / (gn[j] * gn[j]), c = gn[j] / z2;
            if (h > hstar) hstar = h;
            if (jstar < 0 || c < best) {
                best = c;
                jstar = j;
            }
        }
        bw[jstar] = hstar / (M[jstar] * M[jstar]);
        inf.method = ISDB_OAM_METHOD_CLOSED;
        res = ISDB_OK;
    } else {
        int warm = 0;
        if (pr->w_start)
            for (j = 0, k = 0; j < n; ++j)
                if (flag[j] != 0.0) {
                    bw[k] = pr->w_start[j] * gmax * gmax;
                    if (bw[k] > 0.0) warm = 1;
                    ++k;
                }
        if (!warm)
            for (j = 0; j < J; ++j) bw[j] = 1.0;
        res = isdb__oam_barrier(r, J, M, gn, bw, tol, max_iter, warm, &inf.iterations, &inf.gap_bound, bwork);
        if (res < 0) return res;
        inf.gap_bound /= gmax;
        inf.method = ISDB_OAM_METHOD_BARRIER;
    }
    /* Back to the caller's scale: w = w' / gmax^2. */
    for (j = 0, k = 0; j < n; ++j)
        if (flag[j] != 0.0) {
            w[j] = bw[k] / (gmax * gmax);
            if (w[j] > 0.0) inf.n_support++;
            value += pr->gaps[j] * w[j];
            ++k;
        }
    if (!isdb__all_finite(w, n) || !isdb__finite(value)) {
        for (j = 0; j < n; ++j) w[j] = 0.0;
        return ISDB_ERR_NONFINITE;
    }
    inf.value = value;
    if (info) *info = inf;
    return res;
}

/* Relative tolerance of "x is outside the span of the arms played". */
#define ISDB__OAM_SPAN_TOL 1e-8
/* Allocations are kept finite in the state. */
#define ISDB__OAM_T_MAX 1e300

#define ISDB__OAM_FIELDS(X)                                                                          \
    ISDB__UCB_HEAD_FIELDS(X)                                                                         \
    X(INT, int, max_contexts, 8,                                                                     \
      isdb__want_int(why, c->max_contexts, "max_contexts", 1, INT_MAX / c->max_arms / c->d - 2,     \
                     "[1, INT_MAX / max_arms / d - 2]"))                                             \
    X(U64, uint64_t, horizon, horizon, isdb__want_u64(why, c->horizon, "horizon", 2, UINT64_MAX, ">= 2")) \
    X(REAL, double, c, 1.0, isdb__want_scale(why, c->c, "c"))                                        \
    X(REAL, double, zeta, 0.1, isdb__want_nonneg(why, c->zeta, "zeta"))                              \
    X(INT, isdb_oam_forcing, forcing, ISDB_OAM_FORCE_NONE,                                           \
      isdb__want_int(why, (int)c->forcing, "forcing", ISDB_OAM_FORCE_LOGLOG, ISDB_OAM_FORCE_NONE,    \
                     "an isdb_oam_forcing"))                                                          \
    X(REAL, double, force_c, 0.1, isdb__want_scale(why, c->force_c, "force_c"))                      \
    X(INT, int, force_s_now, 0, isdb__want_flag(why, c->force_s_now, "force_s_now"))                 \
    X(REAL, double, lambda, 0.0,                                                                     \
      c->lambda == 0.0 ||                                                                            \
          isdb__want_real(why, c->lambda, "lambda", ISDB__LAMBDA_MIN, ISDB__LAMBDA_MAX, 0, "0 or [1e-30, 1e30]")) \
    X(REAL, double, solver_tol, 1e-8, isdb__want_real(why, c->solver_tol, "solver_tol", 0.0, 1.0, 3, "(0, 1)")) \
    X(INT, int, solver_max_iter, 500,                                                                \
      isdb__want_int(why, c->solver_max_iter, "solver_max_iter", 1, INT_MAX, ">= 1"))               \
    X(INT, int, refresh, 0, isdb__want_count(why, c->refresh, "refresh"))

ISDB__ONCE isdb_oam_config isdb_oam_config_init(int d, int max_arms, uint64_t horizon) {
    isdb_oam_config c;
    memset(&c, 0, sizeof c);
    ISDB__OAM_FIELDS(ISDB__CFG_DEFAULT)
    return c;
}

/* The design's scratch (isdb__oam_layout) is indexed by int. */
ISDB__ONCE_PRIVATE int isdb__oam_work_fits(const isdb_oam_config *c) {
    size_t ws = isdb_oam_allocate_work_size(c->d, (c->max_contexts + 1) * c->max_arms);
    return ws > 0 && ws <= (size_t)INT_MAX;
}

ISDB__ONCE isdb_result isdb_oam_config_check(const isdb_oam_config *c, isdb_refusal *why) {
    return isdb__checked(isdb__want_start(why) && isdb__want_ptr(why, c, "cfg") ISDB__OAM_FIELDS(ISDB__CFG_CHECK) &&
                         isdb__want(why, isdb__oam_work_fits(c), "max_contexts",
                                    "the design's scratch, 2 P^2 + 5 d P + 8 P + 3 d^2 + d doubles (P = (max_contexts + 1) "
                                    "max_arms), <= INT_MAX"));
}

ISDB__DEFINE_CONFIG_WALK(oam, ISDB__OAM_FIELDS)
ISDB__CONFIG_FROM_SNAPSHOT(oam, ISDB_POLICY_OAM)

ISDB__ONCE_PRIVATE size_t isdb__oam_layout(const isdb_oam_config *c, isdb_oam *p, void *heap) {
    isdb__arena a;
    int d = c->d, K = c->max_arms, Mc = c->max_contexts, V = Mc * K, P1 = (Mc + 1) * K;
    size_t ws = isdb_oam_allocate_work_size(d, P1);
    a.base = (unsigned char *)heap;
    a.used = 0;
    a.overflow = ws == 0 || ws > (size_t)INT_MAX;
    p->_gram = isdb__take_f64(&a, d * d);
    p->_chol = isdb__take_f64(&a, d * d);
    p->_chol_next = isdb__take_f64(&a, d * d);
    p->_b = isdb__take_f64(&a, d);
    p->_theta = isdb__take_f64(&a, d);
    p->_basis = isdb__take_f64(&a, d * d);
    p->_vec = isdb__take_f64(&a, V * d);
    p->_pulls = (uint64_t *)isdb__take(&a, V, sizeof(uint64_t));
    p->_ctx_n = (int *)isdb__take(&a, Mc, sizeof(int));
    p->_ctx_vid = (int *)isdb__take(&a, V, sizeof(int));
    p->_allocation = isdb__take_f64(&a, V);
    p->_allocation_zero = (int *)isdb__take(&a, V, sizeof(int));
    p->_tau = isdb__take_f64(&a, K);
    p->_mu = isdb__take_f64(&a, P1);
    p->_gap = isdb__take_f64(&a, P1);
    p->_allocation_new = isdb__take_f64(&a, P1);
    p->_zero = (int *)isdb__take(&a, P1, sizeof(int));
    p->_norm2 = isdb__take_f64(&a, K);
    p->_key = isdb__take_f64(&a, K);
    p->_tau_new = isdb__take_f64(&a, K);
    p->_stage_X = isdb__take_f64(&a, K * d);
    p->_stage_vid = (int *)isdb__take(&a, K, sizeof(int));
    p->_act = (int *)isdb__take(&a, Mc + 1, sizeof(int));
    p->_sX = isdb__take_f64(&a, P1 * d);
    p->_sgap = isdb__take_f64(&a, P1);
    p->_sw0 = isdb__take_f64(&a, P1);
    p->_sw = isdb__take_f64(&a, P1);
    p->_swork = isdb__take_f64(&a, a.overflow ? 0 : (int)ws);
    p->_work = isdb__take_f64(&a, 3 * d);
    return a.overflow ? 0 : a.used;
}

double isdb_oam_epsilon(const isdb_oam_config *cfg, uint64_t t) {
    double lt, ll, c;
    if (!cfg || cfg->forcing == ISDB_OAM_FORCE_NONE) return 0.0;
    c = cfg->forcing == ISDB_OAM_FORCE_SCALED ? cfg->force_c : 1.0;
    /* ln ln t is below 1 (or undefined) for t < e^e ~ 15.2: clamped. */
    lt = t > 1 ? log((double)t) : 0.0;
    ll = lt > 1.0 ? log(lt) : 0.0;
    return c / (ll > 1.0 ? ll : 1.0);
}

/* The arms of context slot m (slot max_contexts is the staged set). */
ISDB__PRIVATE int isdb__oam_n_arms(const isdb_oam *p, int m) {
    return m == p->cfg.max_contexts ? p->stage_n : p->_ctx_n[m];
}

ISDB__PRIVATE const double *isdb__oam_row(const isdb_oam *p, int m, int k) {
    int d = p->cfg.d;
    if (m == p->cfg.max_contexts) return p->_stage_X + k * d;
    return p->_vec + p->_ctx_vid[m * p->cfg.max_arms + k] * d;
}

ISDB__PRIVATE double isdb__oam_count(const isdb_oam *p, int m, int k) {
    int v = m == p->cfg.max_contexts ? p->_stage_vid[k] : p->_ctx_vid[m * p->cfg.max_arms + k];
    return v >= 0 ? (double)p->_pulls[v] : 0.0;
}

ISDB__PRIVATE int isdb__oam_same(int d, const double *a, const double *b) {
    int i;
    for (i = 0; i < d; ++i)
        if (a[i] != b[i]) return 0;
    return 1;
}

ISDB__PRIVATE int isdb__oam_find_vec(const isdb_oam *p, const double *x) {
    int v, d = p->cfg.d;
    for (v = 0; v < p->n_vec; ++v)
        if (isdb__oam_same(d, p->_vec + v * d, x)) return v;
    return -1;
}

ISDB__PRIVATE int isdb__oam_ctx_equals(const isdb_oam *p, int m, const double *X, int n_arms) {
    int k, d = p->cfg.d;
    if (p->_ctx_n[m] != n_arms) return 0;
    for (k = 0; k < n_arms; ++k)
        if (!isdb__oam_same(d, isdb__oam_row(p, m, k), X + k * d)) return 0;
    return 1;
}

ISDB__PRIVATE int isdb__oam_find_ctx(const isdb_oam *p, const double *X, int n_arms) {
    int m;
    for (m = 0; m < p->n_ctx; ++m)
        if (isdb__oam_ctx_equals(p, m, X, n_arms)) return m;
    return -1;
}

/* Registers X as a new context (room checked by the caller). */
ISDB__PRIVATE int isdb__oam_register(isdb_oam *p, const double *X, int n_arms) {
    int k, d = p->cfg.d, m = p->n_ctx;
    for (k = 0; k < n_arms; ++k) {
        int v = isdb__oam_find_vec(p, X + k * d);
        if (v < 0) {
            v = p->n_vec++;
            isdb__copy(d, X + k * d, p->_vec + v * d);
        }
        p->_ctx_vid[m * p->cfg.max_arms + k] = v;
    }
    p->_ctx_n[m] = n_arms;
    p->n_ctx++;
    return m;
}

/* The context of a round: the set chosen by isdb_oam_set_context, a
   registered set equal to X, or a new one, registered (commit) or staged
   in scratch (slot max_contexts) for scores and probs. */
ISDB__PRIVATE isdb_result isdb__oam_context(isdb_oam *p, const double *X, int n_arms, int commit, int *slot) {
    int m, k, d = p->cfg.d;
    if (p->pending_ctx >= 0) {
        m = p->pending_ctx;
        if (m >= p->n_ctx || !isdb__oam_ctx_equals(p, m, X, n_arms)) return ISDB_ERR_INVALID_ARG;
        *slot = m;
        return ISDB_OK;
    }
    m = isdb__oam_find_ctx(p, X, n_arms);
    if (m >= 0) {
        *slot = m;
        return ISDB_OK;
    }
    if (p->n_ctx >= p->cfg.max_contexts) return ISDB_ERR_BAD_STATE;
    if (commit) {
        *slot = isdb__oam_register(p, X, n_arms);
        return ISDB_OK;
    }
    p->stage_n = n_arms;
    isdb__copy(n_arms * d, X, p->_stage_X);
    for (k = 0; k < n_arms; ++k) p->_stage_vid[k] = isdb__oam_find_vec(p, X + k * d);
    *slot = p->cfg.max_contexts;
    return ISDB_OK;
}

/* What a round decides, computed into scratch without changing the state
   (select commits it). */
typedef struct isdb__oam_round {
    isdb_oam_decision decision;
    int arm, n_arms, main_phase, solved, n_active;
    double min_gap;
    isdb_result status;
    isdb_oam_alloc_info info;
} isdb__oam_round;

/* Residual norm of x after projection on the span of the arms played. */
ISDB__PRIVATE double isdb__oam_residual(const isdb_oam *p, const double *x, double *v) {
    int q, pass, d = p->cfg.d;
    isdb__copy(d, x, v);
    for (pass = 0; pass < 2; ++pass)
        for (q = 0; q < p->rank_played; ++q) {
            const double *e = p->_basis + q * d;
            double c = isdb__dot(d, e, v);
            int i;
            for (i = 0; i < d; ++i) v[i] -= c * e[i];
        }
    return sqrt(isdb__dot(d, v, v));
}

ISDB__PRIVATE int isdb__oam_pattern_changed(const isdb_oam *p, int n_active) {
    int a, k, K = p->cfg.max_arms;
    for (a = 0; a < n_active; ++a) {
        int m = p->_act[a], nm = isdb__oam_n_arms(p, m);
        if (m >= p->n_ctx_solved) return 1;
        for (k = 0; k < nm; ++k)
            if (p->_zero[m * K + k] != p->_allocation_zero[m * K + k]) return 1;
    }
    return 0;
}

/* Solves the allocation problem at the current gaps into _allocation_new. */
ISDB__COLD_PRIVATE void isdb__oam_solve(isdb_oam *p, isdb__oam_round *o) {
    isdb_oam_problem prob;
    int a, k, j = 0, d = p->cfg.d, K = p->cfg.max_arms;
    for (a = 0; a < o->n_active; ++a) {
        int m = p->_act[a], nm = isdb__oam_n_arms(p, m);
        for (k = 0; k < nm; ++k, ++j) {
            isdb__copy(d, isdb__oam_row(p, m, k), p->_sX + j * d);
            p->_sgap[j] = p->_gap[m * K + k];
            p->_sw0[j] = (p->has_solution && m < p->n_ctx_solved) ? p->_allocation[m * K + k] / p->fn : 0.0;
        }
    }
    prob = isdb_oam_problem_init(d, j, p->_sX, p->_sgap);
    prob.w_start = p->has_solution ? p->_sw0 : NULL;
    prob.tol = p->cfg.solver_tol;
    prob.max_iter = p->cfg.solver_max_iter;
    o->status = isdb_oam_allocate(&prob, p->_sw, &o->info, p->_swork);
    for (a = 0, j = 0; a < o->n_active; ++a) {
        int m = p->_act[a], nm = isdb__oam_n_arms(p, m);
        for (k = 0; k < nm; ++k, ++j) {
            double T = o->status >= 0 ? p->fn * p->_sw[j] : 0.0;
            p->_allocation_new[m * K + k] = T < ISDB__OAM_T_MAX ? T : ISDB__OAM_T_MAX;
        }
    }
    o->solved = 1;
}

ISDB__PRIVATE void isdb__oam_decide(isdb_oam *p, int slot, isdb__oam_round *o) {
    const isdb_oam_config *c = &p->cfg;
    int a, k, d = c->d, K = c->max_arms, Mc = c->max_contexts, nk = isdb__oam_n_arms(p, slot), best;
    double gmax = 0.0, min_gap = 0.0, *key = p->_key;
    memset(o, 0, sizeof *o);
    o->n_arms = nk;
    /* Initialisation: an arm outside the span of the arms played. */
    if (!p->factored || p->rank_played < d) {
        int extends;
        for (k = 0; k < nk; ++k) key[k] = isdb__oam_residual(p, isdb__oam_row(p, slot, k), p->_work);
        best = isdb__argmax(key, nk);
        {
            const double *x = isdb__oam_row(p, slot, best);
            extends = key[best] > ISDB__OAM_SPAN_TOL * sqrt(isdb__dot(d, x, x));
        }
        if (!p->factored || extends) {
            o->decision = ISDB_OAM_INIT;
            o->arm = best;
            return;
        }
    }
    o->main_phase = 1;
    /* Gap estimates for every registered context (and a staged one). */
    for (a = 0; a < p->n_ctx; ++a) p->_act[a] = a;
    o->n_active = p->n_ctx;
    if (slot == Mc) p->_act[o->n_active++] = Mc;
    for (a = 0; a < o->n_active; ++a) {
        int m = p->_act[a], nm = isdb__oam_n_arms(p, m);
        double top = 0.0;
        for (k = 0; k < nm; ++k) {
            double mu = isdb__dot(d, isdb__oam_row(p, m, k), p->_theta);
            p->_mu[m * K + k] = mu;
            if (k == 0 || mu > top) top = mu;
        }
        for (k = 0; k < nm; ++k) {
            double g = top - p->_mu[m * K + k];
            p->_gap[m * K + k] = g;
            if (g > gmax) gmax = g;
        }
    }
    /* Gaps within 1e-12 of the largest are ties: zero, as in the solver. */
    for (a = 0; a < o->n_active; ++a) {
        int m = p->_act[a], nm = isdb__oam_n_arms(p, m);
        for (k = 0; k < nm; ++k) {
            double g = p->_gap[m * K + k];
            if (g <= 1e-12 * gmax) g = p->_gap[m * K + k] = 0.0;
            p->_zero[m * K + k] = g == 0.0;
            if (g > 0.0 && (min_gap == 0.0 || g < min_gap)) min_gap = g;
        }
    }
    o->min_gap = min_gap;
    for (k = 0; k < nk; ++k) {
        isdb_tri_solve(d, p->_chol, 0, isdb__oam_row(p, slot, k), p->_work);
        p->_norm2[k] = isdb__dot(d, p->_work, p->_work);
    }
    /* The greedy test (4.3); no positive gap at all means explore. */
    {
        int pass = min_gap > 0.0;
        for (k = 0; k < nk && pass; ++k) {
            double g = p->_gap[slot * K + k], m2 = g > min_gap ? g * g : min_gap * min_gap;
            if (p->_norm2[k] * p->fn > m2 * (1.0 + 1e-12)) pass = 0;
        }
        if (pass) {
            for (k = 0; k < nk; ++k) key[k] = p->_mu[slot * K + k];
            o->decision = ISDB_OAM_EXPLOIT;
            o->arm = isdb__argmax(key, nk);
            return;
        }
    }
    /* Exploration: targets from the (lazily re-solved) allocation. */
    {
        double s_prev = (double)(p->counts.track + p->counts.forced + p->counts.wasted), s_now = s_prev + 1.0;
        double cap = (double)c->horizon, nmin;
        int wasted = 1, b2 = 0;
        const double *T;
        if (!p->has_solution || o->n_active != p->n_ctx_solved || isdb__oam_pattern_changed(p, o->n_active) ||
            p->logdet - p->logdet_solved >= log1p(c->zeta))
            isdb__oam_solve(p, o);
        T = o->solved ? p->_allocation_new : p->_allocation;
        if (min_gap > 0.0 && p->fn / (min_gap * min_gap) < cap) cap = p->fn / (min_gap * min_gap);
        for (k = 0; k < nk; ++k) {
            double tau = p->_zero[slot * K + k] || T[slot * K + k] > cap ? cap : T[slot * K + k];
            p->_tau_new[k] = tau;
            if (isdb__oam_count(p, slot, k) < tau) wasted = 0;
        }
        if (wasted) {
            /* LinUCB with width sqrt(f_{n, 1/s^2}) (eq. 4.6). */
            double beta = sqrt(isdb_oam_f((double)c->horizon, d, c->c, 2.0 * log(s_now)));
            for (k = 0; k < nk; ++k) key[k] = p->_mu[slot * K + k] + beta * sqrt(p->_norm2[k]);
            o->decision = ISDB_OAM_WASTED;
            o->arm = isdb__argmax(key, nk);
            return;
        }
        nmin = isdb__oam_count(p, slot, 0);
        for (k = 1; k < nk; ++k)
            if (isdb__oam_count(p, slot, k) < nmin) {
                nmin = isdb__oam_count(p, slot, k);
                b2 = k;
            }
        if (nmin <= isdb_oam_epsilon(c, p->base.t + 1) * (c->force_s_now ? s_now : s_prev)) {
            for (k = 0; k < nk; ++k) key[k] = -isdb__oam_count(p, slot, k);
            o->decision = ISDB_OAM_FORCED;
            o->arm = b2;
            return;
        }
        for (k = 0; k < nk; ++k)
            key[k] = p->_tau_new[k] > 0.0 ? -isdb__oam_count(p, slot, k) / p->_tau_new[k] : -DBL_MAX;
        o->decision = ISDB_OAM_TRACK;
        o->arm = isdb__argmax(key, nk);
    }
}

ISDB__PRIVATE isdb_result isdb__oam_select(isdb_policy *bp, const double *X, int n_arms, int *arm) {
    isdb_oam *p = (isdb_oam *)bp;
    isdb__oam_round o;
    int slot, k, K = p->cfg.max_arms;
    isdb_result r = isdb__oam_context(p, X, n_arms, 1, &slot);
    if (r != ISDB_OK) return r;
    isdb__oam_decide(p, slot, &o);
    *arm = o.arm;
    p->decision = o.decision;
    p->last_ctx = slot;
    switch (o.decision) {
    case ISDB_OAM_INIT:
        p->counts.init++;
        break;
    case ISDB_OAM_EXPLOIT:
        p->counts.exploit++;
        break;
    case ISDB_OAM_TRACK:
        p->counts.track++;
        break;
    case ISDB_OAM_FORCED:
        p->counts.forced++;
        break;
    default:
        p->counts.wasted++;
        break;
    }
    if (o.main_phase) p->min_gap = o.min_gap;
    if (o.decision >= ISDB_OAM_TRACK) {
        isdb__zero(K, p->_tau);
        isdb__copy(o.n_arms, p->_tau_new, p->_tau);
        p->tau_ctx = slot;
        p->tau_n = o.n_arms;
    }
    if (o.solved) {
        int m;
        for (m = 0; m < p->n_ctx; ++m)
            for (k = 0; k < K; ++k) {
                int in = k < p->_ctx_n[m];
                p->_allocation[m * K + k] = in ? p->_allocation_new[m * K + k] : 0.0;
                p->_allocation_zero[m * K + k] = in ? p->_zero[m * K + k] : 0;
            }
        p->has_solution = 1;
        p->n_ctx_solved = p->n_ctx;
        p->logdet_solved = p->logdet;
        p->solve_status = o.status;
        p->solve_info = o.info;
        p->counts.solves++;
    }
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__oam_scores(isdb_policy *bp, const double *X, int n_arms, double *out) {
    isdb_oam *p = (isdb_oam *)bp;
    isdb__oam_round o;
    int slot;
    isdb_result r = isdb__oam_context(p, X, n_arms, 0, &slot);
    if (r != ISDB_OK) return r;
    isdb__oam_decide(p, slot, &o);
    isdb__copy(n_arms, p->_key, out);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__oam_probs(isdb_policy *bp, const double *X, int n_arms, double *out) {
    isdb_oam *p = (isdb_oam *)bp;
    isdb__oam_round o;
    int slot;
    isdb_result r = isdb__oam_context(p, X, n_arms, 0, &slot);
    if (r != ISDB_OK) return r;
    isdb__oam_decide(p, slot, &o);
    isdb__one_hot(out, n_arms, o.arm);
    return ISDB_OK;
}

/* Factors G into L (kept as it is if G does not factor). */
ISDB__PRIVATE void isdb__oam_refactor(isdb_oam *p) {
    int d = p->cfg.d;
    double *tmp;
    isdb__copy(d * d, p->_gram, p->_chol_next);
    if (isdb_chol(d, p->_chol_next) == ISDB_OK) {
        tmp = p->_chol;
        p->_chol = p->_chol_next;
        p->_chol_next = tmp;
        p->logdet = isdb_chol_logdet(d, p->_chol);
        p->factored = 1;
    }
    p->since_refresh = 0;
}

/* Cannot fail: inputs are bounded, so every sum stays finite. */
ISDB__PRIVATE isdb_result isdb__oam_update(isdb_policy *bp, int arm, const double *x, double y) {
    isdb_oam *p = (isdb_oam *)bp;
    int i, j, v = -1, d = p->cfg.d;
    for (i = 0; i < d; ++i) {
        for (j = 0; j <= i; ++j) p->_gram[i * d + j] += x[i] * x[j];
        p->_b[i] += y * x[i];
    }
    if (p->factored) {
        double *tmp, ratio = isdb__chol_update_to(d, p->_chol, p->_chol_next, x, p->_work);
        tmp = p->_chol;
        p->_chol = p->_chol_next;
        p->_chol_next = tmp;
        p->logdet += log(ratio);
        if (++p->since_refresh >= p->cfg.refresh) isdb__oam_refactor(p);
    }
    if (p->rank_played < d) {
        double nx = sqrt(isdb__dot(d, x, x)), nr = isdb__oam_residual(p, x, p->_work + d);
        if (nr > ISDB__OAM_SPAN_TOL * nx) {
            for (i = 0; i < d; ++i) p->_basis[p->rank_played * d + i] = p->_work[d + i] / nr;
            p->rank_played++;
        }
    }
    if (!p->factored && p->rank_played == d) isdb__oam_refactor(p);
    if (p->factored) isdb_chol_solve(d, p->_chol, p->_b, p->_theta);
    /* Pulls are counted per feature vector (pooled over contexts). */
    if (p->last_ctx >= 0 && p->last_ctx < p->n_ctx && arm < p->_ctx_n[p->last_ctx]) {
        int cand = p->_ctx_vid[p->last_ctx * p->cfg.max_arms + arm];
        if (isdb__oam_same(d, p->_vec + cand * d, x)) v = cand;
    }
    if (v < 0) v = isdb__oam_find_vec(p, x);
    if (v >= 0) p->_pulls[v]++;
    return ISDB_OK;
}

/* theta solves G theta = b once G is factored (to the rounding of the
   factor's drift from G), and is zero before; an unfactored L is zero,
   as is its log-determinant. */
ISDB__ONCE_PRIVATE void isdb__oam_check_solution(isdb_ser *s, isdb__ser_view G, isdb__ser_view L, isdb__ser_view b,
                                                 isdb__ser_view theta, int d, int factored, double logdet) {
    int i, j;
    if (!isdb__ser_checking(s, G, L) || !isdb__ser_checking(s, b, theta)) return;
    if (!factored) {
        for (i = 0; i < d * d; ++i) isdb__ser_require(s, isdb__sv(L, i) == 0.0);
        for (i = 0; i < d; ++i) isdb__ser_require(s, isdb__sv(theta, i) == 0.0);
        isdb__ser_require(s, logdet == 0.0);
        return;
    }
    /* Scaled by sqrt(G_ii G_jj) |theta_j|, which bounds the drift of L L^T
       from G whatever G_ij's sum cancelled. */
    for (i = 0; i < d; ++i) {
        double v = 0.0, a = 0.0, bi = isdb__sv(b, i), ri = sqrt(isdb__sv(G, i * d + i));
        for (j = 0; j < d; ++j) {
            double th = isdb__sv(theta, j);
            v += isdb__sv(G, j <= i ? i * d + j : j * d + i) * th;
            a += ri * sqrt(isdb__sv(G, j * d + j)) * fabs(th);
        }
        a = ISDB__SER_TOL * (a + fabs(bi)) + DBL_MIN;
        isdb__ser_require(s, isdb__finite(a) && fabs(v - bi) <= a);
    }
}

/* The first `rank` rows of the basis are orthonormal (Gram-Schmidt with a
   second pass), the others zero. */
ISDB__ONCE_PRIVATE void isdb__oam_check_basis(isdb_ser *s, isdb__ser_view B, int d, int rank) {
    int i, j, k;
    if (!isdb__ser_checking(s, B, B)) return;
    for (i = rank * d; i < d * d; ++i) isdb__ser_require(s, isdb__sv(B, i) == 0.0);
    for (i = 0; i < rank; ++i)
        for (j = 0; j <= i; ++j) {
            double v = 0.0;
            for (k = 0; k < d; ++k) v += isdb__sv(B, i * d + k) * isdb__sv(B, j * d + k);
            isdb__ser_require(s, fabs(v - (i == j ? 1.0 : 0.0)) <= ISDB__SER_TOL);
        }
}

/* On CHECK, besides the ranges: G a Gram matrix of at least lambda I, L
   its factor once factored (with its log-determinant and, lambda > 0,
   isdb__ser_check_inverse), theta and the basis (above), the registered
   sets and the pull counts (no more than the updates), and context
   indices below the number of sets. */
ISDB__ONCE_PRIVATE void isdb__oam_serialize(isdb_policy *bp, isdb_ser *s) {
    isdb_oam *p = (isdb_oam *)bp;
    const isdb_oam_config *c = &p->cfg;
    int i, d = c->d, dd = d * d, K = c->max_arms, Mc = c->max_contexts, V = Mc * K, P1 = (Mc + 1) * K;
    int tmp, factored, rank, more = 0, n_vec, n_ctx, arms = 0;
    const unsigned char *ctx_n;
    uint64_t pulls = 0, selects;
    double logdet;
    isdb__ser_gram g;
    isdb__ser_view L, b, theta, basis, vec;
    g.A = isdb__ser_view_real(s, p->_gram, dd);
    g.ld = d;
    isdb__ser_check_gram(s, g.A, d, d, 0, c->lambda * (1.0 - ISDB__SER_TOL), c->lambda + isdb__ser_sum_cap(s->t));
    L = isdb__ser_view_real(s, p->_chol, dd);
    b = isdb__ser_view_in(s, p->_b, d, -isdb__ser_sum_cap(s->t), isdb__ser_sum_cap(s->t));
    theta = isdb__ser_view_real(s, p->_theta, d);
    basis = isdb__ser_view_real(s, p->_basis, dd);
    logdet = isdb__ser_real_in(s, &p->logdet, -DBL_MAX, DBL_MAX);
    /* G = lambda I + sum x x^T is factored from the start when lambda > 0,
       else once it is positive definite; until then L is zero. */
    factored = isdb__ser_int(s, &p->factored, c->lambda > 0.0, 1);
    isdb__ser_int(s, &p->since_refresh, 0, c->refresh);
    if (factored) {
        isdb__ser_check_lower(s, L, d, d, 1);
        isdb__ser_check_factor(s, L, d, d, isdb__ser_gram_at, &g, 0.0);
        isdb__ser_check_logdet(s, L, d, d, logdet);
        if (c->lambda > 0.0) isdb__ser_check_inverse(s, L, d, d, c->lambda, p->_work);
    }
    isdb__oam_check_solution(s, g.A, L, b, theta, d, factored, logdet);
    rank = isdb__ser_int(s, &p->rank_played, 0, d);
    isdb__oam_check_basis(s, basis, d, rank);
    /* The registered sets: n_ctx of 1..K arms each, their arms the first
       n_vec distinct vectors (no more than the arms, so the next set
       always fits), which alone have pulls; unused slots are zero. */
    n_vec = isdb__ser_int(s, &p->n_vec, 0, V);
    vec = isdb__ser_view_in(s, p->_vec, V * d, -ISDB_INPUT_MAX, ISDB_INPUT_MAX);
    if (isdb__ser_checking(s, vec, vec))
        for (i = n_vec * d; i < V * d; ++i) isdb__ser_require(s, isdb__sv(vec, i) == 0.0);
    /* Each update counts at most one pull. */
    for (i = 0; i < V; ++i) {
        uint64_t n = isdb__ser_u64(s, &p->_pulls[i]);
        more |= n > s->t - pulls || (i >= n_vec && n > 0);
        if (!more) pulls += n;
    }
    isdb__ser_require(s, !more);
    n_ctx = isdb__ser_int(s, &p->n_ctx, 0, Mc);
    ctx_n = s->mode == ISDB__SER_CHECK ? s->in + s->pos : NULL;
    for (i = 0; i < Mc; ++i) {
        int k = isdb__ser_int(s, &p->_ctx_n[i], 0, K);
        isdb__ser_require(s, i < n_ctx ? k >= 1 : k == 0);
        arms += k;
    }
    isdb__ser_require(s, n_vec <= arms);
    for (i = 0; i < V; ++i) {
        int v = isdb__ser_int(s, &p->_ctx_vid[i], 0, V - 1);
        if (ctx_n && !s->failed)
            isdb__ser_require(s, i / K < n_ctx && i % K < isdb__ser_int_at(ctx_n, i / K) ? v < n_vec : v == 0);
    }
    isdb__ser_int(s, &p->pending_ctx, -1, n_ctx - 1);
    isdb__ser_int(s, &p->last_ctx, -1, n_ctx - 1);
    isdb__ser_int(s, &p->has_solution, 0, 1);
    isdb__ser_int(s, &p->n_ctx_solved, 0, n_ctx);
    isdb__ser_real(s, &p->logdet_solved, 1);
    tmp = (int)p->solve_status;
    isdb__ser_int(s, &tmp, -1000, 1000);
    if (isdb__ser_storing(s)) p->solve_status = (isdb_result)tmp;
    tmp = (int)p->solve_info.method;
    isdb__ser_int(s, &tmp, ISDB_OAM_METHOD_NONE, ISDB_OAM_METHOD_BARRIER);
    if (isdb__ser_storing(s)) p->solve_info.method = (isdb_oam_method)tmp;
    isdb__ser_int(s, &p->solve_info.rank_u, 0, d);
    isdb__ser_int(s, &p->solve_info.r, 0, d);
    isdb__ser_int(s, &p->solve_info.n_vars, 0, P1);
    isdb__ser_int(s, &p->solve_info.n_support, 0, P1);
    isdb__ser_int(s, &p->solve_info.iterations, 0, INT_MAX);
    isdb__ser_real(s, &p->solve_info.value, 1);
    isdb__ser_real(s, &p->solve_info.gap_bound, 1);
    isdb__ser_real_range(s, p->_allocation, V, 0.0, ISDB__OAM_T_MAX);
    for (i = 0; i < V; ++i) isdb__ser_int(s, &p->_allocation_zero[i], 0, 1);
    tmp = (int)p->decision;
    isdb__ser_int(s, &tmp, ISDB_OAM_NONE, ISDB_OAM_WASTED);
    if (isdb__ser_storing(s)) p->decision = (isdb_oam_decision)tmp;
    /* Each select makes one decision and at most one solve. */
    selects = isdb__ser_tally(s, &p->counts.init, ISDB__COUNT_MAX);
    selects += isdb__ser_tally(s, &p->counts.exploit, ISDB__COUNT_MAX - selects);
    selects += isdb__ser_tally(s, &p->counts.track, ISDB__COUNT_MAX - selects);
    selects += isdb__ser_tally(s, &p->counts.forced, ISDB__COUNT_MAX - selects);
    selects += isdb__ser_tally(s, &p->counts.wasted, ISDB__COUNT_MAX - selects);
    isdb__ser_tally(s, &p->counts.solves, selects);
    isdb__ser_real_range(s, &p->min_gap, 1, 0.0, DBL_MAX);
    isdb__ser_int(s, &p->tau_ctx, -1, n_ctx - 1);
    isdb__ser_int(s, &p->tau_n, 0, K);
    isdb__ser_real_range(s, p->_tau, K, 0.0, DBL_MAX);
}

ISDB__ONCE_PRIVATE void isdb__oam_reset(isdb_policy *bp) {
    isdb_oam *p = (isdb_oam *)bp;
    const isdb_oam_config *c = &p->cfg;
    int d = c->d, K = c->max_arms, Mc = c->max_contexts, V = Mc * K, P1 = (Mc + 1) * K;
    double lam = c->lambda;
    isdb__identity(d, p->_gram, lam);
    isdb__identity(d, p->_chol, sqrt(lam));
    isdb__identity(d, p->_chol_next, sqrt(lam));
    isdb__zero(d, p->_b);
    isdb__zero(d, p->_theta);
    isdb__zero(d * d, p->_basis);
    p->factored = lam > 0.0;
    p->logdet = lam > 0.0 ? (double)d * log(lam) : 0.0;
    p->since_refresh = 0;
    p->rank_played = 0;
    isdb__zero(V * d, p->_vec);
    memset(p->_pulls, 0, (size_t)V * sizeof(uint64_t));
    memset(p->_ctx_n, 0, (size_t)Mc * sizeof(int));
    memset(p->_ctx_vid, 0, (size_t)V * sizeof(int));
    p->n_ctx = 0;
    p->n_vec = 0;
    p->pending_ctx = -1;
    p->last_ctx = -1;
    p->has_solution = 0;
    p->n_ctx_solved = 0;
    p->logdet_solved = 0.0;
    p->solve_status = ISDB_OK;
    memset(&p->solve_info, 0, sizeof p->solve_info);
    isdb__zero(V, p->_allocation);
    memset(p->_allocation_zero, 0, (size_t)V * sizeof(int));
    p->decision = ISDB_OAM_NONE;
    memset(&p->counts, 0, sizeof p->counts);
    p->min_gap = 0.0;
    p->tau_ctx = -1;
    p->tau_n = 0;
    isdb__zero(K, p->_tau);
    isdb__zero(P1, p->_mu);
    isdb__zero(P1, p->_gap);
    isdb__zero(P1, p->_allocation_new);
    memset(p->_zero, 0, (size_t)P1 * sizeof(int));
    p->stage_n = 0;
}

static const isdb_policy_vtable isdb__oam_vt = {
    ISDB_POLICY_OAM, "oam", 0, isdb__oam_select, isdb__oam_update, isdb__oam_scores, isdb__oam_probs,
    isdb__oam_serialize, isdb__oam_reset, isdb__oam_walk_config, offsetof(isdb_oam, cfg), "max_arms", sizeof(isdb_oam_config)};

ISDB__ONCE isdb_result isdb_oam_heap_size(const isdb_oam_config *cfg, size_t *bytes) {
    isdb_oam probe;
    if (!bytes || isdb_oam_config_check(cfg, NULL) != ISDB_OK) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__oam_layout(cfg, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

ISDB__ONCE isdb_result isdb_oam_init_preallocated(const isdb_oam_config *cfg, void *heap, size_t heap_bytes,
                                                  isdb_oam *pol) {
    size_t bytes;
    isdb_result r = isdb_oam_heap_size(cfg, &bytes);
    if (r == ISDB_OK) r = isdb_init_check(heap, heap_bytes, bytes, pol, NULL);
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    memset(pol, 0, sizeof *pol);
    pol->cfg = *cfg;
    if (pol->cfg.refresh == 0) pol->cfg.refresh = cfg->d;
    isdb__oam_layout(cfg, pol, heap);
    pol->fn = isdb_oam_f((double)cfg->horizon, cfg->d, cfg->c, log((double)cfg->horizon));
    isdb__policy_base_init(&pol->base, &isdb__oam_vt, cfg->d, cfg->max_arms, 0, heap, bytes, sizeof *pol);
    isdb__oam_reset(&pol->base);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__oam_setup(const void *cfg, void *heap, size_t heap_bytes, void *pol) {
    return isdb_oam_init_preallocated((const isdb_oam_config *)cfg, heap, heap_bytes, (isdb_oam *)pol);
}

ISDB__ONCE isdb_result isdb_oam_init(const isdb_oam_config *cfg, const isdb_allocator *alloc, isdb_oam *pol) {
    size_t bytes;
    isdb_result r = isdb_oam_heap_size(cfg, &bytes);
    if (r == ISDB_OK && !pol) r = ISDB_ERR_INVALID_ARG;
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    return isdb__policy_init_owned(&pol->base, sizeof *pol, bytes, alloc, isdb__oam_setup, cfg, pol);
}

ISDB__ONCE const isdb_oam_config *isdb_oam_get_config(const isdb_oam *pol) { return &pol->cfg; }

ISDB__COLD isdb_result isdb_oam_add_context(isdb_oam *pol, const double *X, int n_arms, int *id) {
    isdb_result r;
    int m;
    if (!pol || !pol->base.vt || !X || n_arms < 1 || n_arms > pol->cfg.max_arms) return ISDB_ERR_INVALID_ARG;
    if ((r = isdb__check_input(X, n_arms * pol->cfg.d)) != ISDB_OK) return r;
    m = isdb__oam_find_ctx(pol, X, n_arms);
    if (m < 0) {
        if (pol->n_ctx >= pol->cfg.max_contexts) return ISDB_ERR_BAD_STATE;
        m = isdb__oam_register(pol, X, n_arms);
    }
    if (id) *id = m;
    return ISDB_OK;
}

isdb_result isdb_oam_set_context(isdb_oam *pol, int id) {
    if (!pol || !pol->base.vt || id < -1 || id >= pol->n_ctx) return ISDB_ERR_INVALID_ARG;
    pol->pending_ctx = id;
    return ISDB_OK;
}

int isdb_oam_get_n_contexts(const isdb_oam *pol) { return pol->n_ctx; }

isdb_oam_decision isdb_oam_get_last_decision(const isdb_oam *pol) { return pol->decision; }

void isdb_oam_get_counts(const isdb_oam *pol, isdb_oam_counts *counts) { *counts = pol->counts; }

double isdb_oam_get_fn(const isdb_oam *pol) { return pol->fn; }

double isdb_oam_get_min_gap(const isdb_oam *pol) { return pol->min_gap; }

int isdb_oam_get_targets(const isdb_oam *pol, double *tau, int *n_arms) {
    if (tau) isdb__copy(pol->tau_n, pol->_tau, tau);
    if (n_arms) *n_arms = pol->tau_n;
    return pol->tau_ctx;
}

ISDB__COLD isdb_result isdb_oam_get_allocation(const isdb_oam *pol, int ctx, double *T, int *optimal) {
    int k, K;
    if (!pol || !T || ctx < 0 || ctx >= pol->n_ctx) return ISDB_ERR_INVALID_ARG;
    if (!pol->has_solution || ctx >= pol->n_ctx_solved) return ISDB_ERR_BAD_STATE;
    K = pol->cfg.max_arms;
    for (k = 0; k < pol->_ctx_n[ctx]; ++k) {
        T[k] = pol->_allocation[ctx * K + k];
        if (optimal) optimal[k] = pol->_allocation_zero[ctx * K + k];
    }
    return ISDB_OK;
}

double isdb_oam_get_regret_constant(const isdb_oam *pol) { return 2.0 * pol->solve_info.value; }

isdb_result isdb_oam_get_last_solve(const isdb_oam *pol, isdb_oam_alloc_info *info) {
    if (info) *info = pol->solve_info;
    return pol->solve_status;
}

int isdb_oam_get_sublog(const isdb_oam *pol) {
    return pol->has_solution && pol->solve_info.rank_u == pol->cfg.d;
}

void isdb_oam_get_theta(const isdb_oam *pol, double *theta) { isdb__copy(pol->cfg.d, pol->_theta, theta); }

uint64_t isdb_oam_get_pulls(const isdb_oam *pol, const double *x) {
    int v = x ? isdb__oam_find_vec(pol, x) : -1;
    return v >= 0 ? pol->_pulls[v] : 0;
}

#endif /* ISDB__HAS_OAM */
#if ISDB__HAS_TRACEUCB
/* ---------------------------------------------------------------------------
   [TRACEUCB] Trace-UCB. Per model i the lower factor [[L, 0], [l^T, rho]] of
   sum [x; y][x; y]^T is kept by Givens rotations (a sequential QR of
   [X y]), so S = L L^T, the OLS estimate is L^-T l and RSS = rho^2; the
   exact sums S, b and y^T y serve the periodic rebuilds; the trace
   Tr(A S^-1), A = Sigma or M = the sum of x x^T over every update, is kept
   by Sherman-Morrison steps.
   ------------------------------------------------------------------------ */

/* Scores of models that are not ranked by the paper's index: a model still
   in its first d + 1 samples outranks everything (the lowest such index
   wins, so the first model is filled first); a model that must catch up
   (round robin, or a singular S) scores FEW / (1 + k), so the one with the
   fewest samples wins; an estimated model's index is capped at CAP. */
#define ISDB__TU_INIT DBL_MAX
#define ISDB__TU_FEW 1e300
#define ISDB__TU_CAP 1e280

/* The input arrays Sigma, weights and noise_var (NULL by default) are
   checked after the list's other fields; the resolved config points to
   the policy's copies (weights all 1 when NULL was given). */
#define ISDB__TRACEUCB_FIELDS(X)                                                                     \
    X(DIM, int, d, d, isdb__want_dim(why, c->d))                                                    \
    X(ARMS, int, m, m,                                                                               \
      isdb__want_arms(why, c->m, c->d, "m") &&                                                       \
          isdb__want_int(why, c->m, "m", 1, INT_MAX / (c->d * c->d), "[1, INT_MAX / d^2]"))          \
    X(INT, isdb_traceucb_mode, mode, ISDB_TRACEUCB_TRACE,                                            \
      isdb__want_int(why, (int)c->mode, "mode", ISDB_TRACEUCB_TRACE, ISDB_TRACEUCB_STATIC, "an isdb_traceucb_mode")) \
    X(INT, isdb_traceucb_width, width, ISDB_TRACEUCB_WIDTH_SCALED,                                   \
      isdb__want_int(why, (int)c->width, "width", ISDB_TRACEUCB_WIDTH_THEORY, ISDB_TRACEUCB_WIDTH_SCALED, \
                     "an isdb_traceucb_width"))                                                       \
    X(INT, isdb_traceucb_objective, objective, ISDB_TRACEUCB_MAX_LOSS,                               \
      isdb__want_int(why, (int)c->objective, "objective", ISDB_TRACEUCB_MAX_LOSS, ISDB_TRACEUCB_AVERAGE_LOSS, \
                     "an isdb_traceucb_objective"))                                                   \
    X(REAL, double, alpha, 1.0, isdb__want_scale(why, c->alpha, "alpha"))                            \
    X(REAL, double, R, 1.0, isdb__want_scale(why, c->R, "R"))                                        \
    X(REAL, double, delta, 0.1, isdb__want_delta(why, c->delta, "delta"))                            \
    X(INT, int, horizon, 0, isdb__want_count(why, c->horizon, "horizon"))                            \
    X(REAL, double, lambda, 0.0, c->lambda == 0.0 || isdb__want_ridge(why, c->lambda, "lambda"))     \
    X(INT, int, refresh, 0, isdb__want_count(why, c->refresh, "refresh"))                            \
    X(INT, int, sparse_s, 0, isdb__want_int(why, c->sparse_s, "sparse_s", 0, c->d, "[0, d]"))       \
    X(INT, int, sparse_L, 0, isdb__want_count(why, c->sparse_L, "sparse_L"))                         \
    X(ARRAY, const double *, Sigma, NULL, 1)                                                         \
    X(ARRAY, const double *, weights, NULL, 1)                                                       \
    X(ARRAY, const double *, noise_var, NULL, 1)
#define ISDB__ARRAY_LEN_Sigma(c) ((int64_t)(c)->d * (int64_t)(c)->d)
#define ISDB__ARRAY_LEN_weights(c) ((int64_t)(c)->m)
#define ISDB__ARRAY_LEN_noise_var(c) ((int64_t)(c)->m)

ISDB__ONCE isdb_traceucb_config isdb_traceucb_config_init(int d, int m) {
    isdb_traceucb_config c;
    memset(&c, 0, sizeof c);
    ISDB__TRACEUCB_FIELDS(ISDB__CFG_DEFAULT)
    return c;
}

/* Stage-1 samples per model of Sparse-Trace-UCB: the config's, or
   max(s + 1, ceil(2 s ln d)) (the paper's L = C s log d with C = 2; not in
   the paper); at most INT_MAX. */
ISDB__PRIVATE int isdb__tu_stage1_len(const isdb_traceucb_config *c) {
    double L;
    if (c->sparse_L > 0) return c->sparse_L;
    L = ceil(2.0 * (double)c->sparse_s * log((double)c->d));
    if (L < (double)c->sparse_s + 1.0) L = (double)c->sparse_s + 1.0;
    return L < (double)INT_MAX ? (int)L : INT_MAX;
}

/* Every value finite, positive and at most ISDB_INPUT_MAX. */
ISDB__PRIVATE int isdb__tu_positive_all(const double *v, int n) {
    int i;
    for (i = 0; i < n; ++i)
        if (!(v[i] > 0.0 && v[i] <= isdb__input_max())) return 0;
    return 1;
}

ISDB__ONCE isdb_result isdb_traceucb_config_check(const isdb_traceucb_config *c, isdb_refusal *why) {
    int i;
    if (!(isdb__want_start(why) && isdb__want_ptr(why, c, "cfg") ISDB__TRACEUCB_FIELDS(ISDB__CFG_CHECK) &&
          isdb__want_inputs(why, c->Sigma, c->d * c->d, "Sigma", 1)))
        return ISDB_ERR_INVALID_ARG;
    if (c->Sigma)
        for (i = 0; i < c->d; ++i)
            if (!isdb__want(why, c->Sigma[i * c->d + i] >= 0.0, "Sigma", "a diagonal >= 0"))
                return ISDB_ERR_INVALID_ARG;
    if (!(isdb__want(why, !c->weights || isdb__tu_positive_all(c->weights, c->m), "weights",
                     "NULL, or m values in (0, ISDB_INPUT_MAX]") &&
          (c->mode != ISDB_TRACEUCB_STATIC ||
           isdb__want(why, c->noise_var && isdb__tu_positive_all(c->noise_var, c->m), "noise_var",
                      "m values in (0, ISDB_INPUT_MAX] (STATIC)"))))
        return ISDB_ERR_INVALID_ARG;
    if (c->sparse_s > 0) {
        /* m L (d + 1) stage-1 values and 4 d m + 2 d scratch must fit an int. */
        double L = (double)isdb__tu_stage1_len(c);
        if (!isdb__want(why, L * (double)c->m * ((double)c->d + 1.0) <= (double)INT_MAX, "sparse_L",
                        "m sparse_L (d + 1) <= INT_MAX") ||
            !isdb__want(why, 4.0 * (double)c->d * (double)c->m + 2.0 * (double)c->d <= (double)INT_MAX, "m",
                        "4 d m + 2 d <= INT_MAX when sparse"))
            return ISDB_ERR_INVALID_ARG;
    }
    return ISDB_OK;
}

ISDB__DEFINE_CONFIG_WALK(traceucb, ISDB__TRACEUCB_FIELDS)
ISDB__CONFIG_FROM_SNAPSHOT(traceucb, ISDB_POLICY_TRACEUCB)

ISDB__ONCE_PRIVATE size_t isdb__traceucb_layout(const isdb_traceucb_config *c, isdb_traceucb *p, void *heap) {
    isdb__arena a;
    int d = c->d, m = c->m, dd = d * d;
    a.base = (unsigned char *)heap;
    a.used = 0;
    a.overflow = 0;
    p->_k = (int *)isdb__take(&a, m, sizeof(int));
    p->_full = (int *)isdb__take(&a, m, sizeof(int));
    p->_since = (int *)isdb__take(&a, m, sizeof(int));
    p->_chol = isdb__take_f64(&a, m * dd);
    p->_l = isdb__take_f64(&a, m * d);
    p->_rho = isdb__take_f64(&a, m);
    p->_scatter = isdb__take_f64(&a, m * dd);
    p->_b = isdb__take_f64(&a, m * d);
    p->_yy = isdb__take_f64(&a, m);
    p->_beta = isdb__take_f64(&a, m * d);
    p->_trace = isdb__take_f64(&a, m);
    p->_sigma_mat = c->Sigma ? isdb__take_f64(&a, dd) : NULL;
    p->_cov_est = c->Sigma ? NULL : isdb__take_f64(&a, dd);
    p->_weights = isdb__take_f64(&a, m);
    p->_noise_var = c->mode == ISDB_TRACEUCB_STATIC ? isdb__take_f64(&a, m) : NULL;
    p->_scores = isdb__take_f64(&a, m);
    p->_trace_next = isdb__take_f64(&a, m);
    /* 3 d^2 + 9 d, counted without overflowing int. */
    p->_work = isdb__take_f64(&a, dd > (INT_MAX - 9 * d) / 3 ? -1 : 3 * dd + 9 * d);
    if (c->sparse_s > 0) {
        int L = isdb__tu_stage1_len(c);
        p->_k1 = (int *)isdb__take(&a, m, sizeof(int));
        p->_support = (int *)isdb__take(&a, c->sparse_s, sizeof(int));
        p->_trace_block = isdb__take_f64(&a, dd);
        p->_stage1 = isdb__take_f64(&a, m * L * (d + 1));
        p->_gl = isdb__take_f64(&a, 4 * d * m + 2 * d);
    } else {
        p->_k1 = p->_support = NULL;
        p->_trace_block = p->_stage1 = p->_gl = NULL;
    }
    return a.overflow ? 0 : a.used;
}

/* Adds the row [x^T y] to the factor [[L, 0], [l^T, rho]] of
   sum [x; y][x; y]^T by Givens rotations, reading (L, l, rho) and writing
   (Ld, ld, *rhod) (which may be the same arrays). A zero pivot meeting a
   zero entry is left alone, so rank-deficient factors are updated exactly
   too. The last pivot obeys rho'^2 = rho^2 + (y - x.beta)^2 / (1 + psi),
   the recursion of Lemma 8. work: 2d. */
ISDB__PRIVATE void isdb__tu_addrow(int d, const double *L, const double *l, double rho, double *Ld, double *ld,
                                   double *rhod, const double *x, double y, double *work) {
    double *c = work, *s = work + d;
    double w, v, r;
    int i, k;
    for (i = 0; i < d; ++i) {
        const double *Li = L + i * d;
        double *Di = Ld + i * d;
        w = x[i];
        for (k = 0; k < i; ++k) {
            v = Li[k];
            Di[k] = c[k] * v + s[k] * w;
            w = c[k] * w - s[k] * v;
        }
        v = Li[i];
        r = sqrt(v * v + w * w);
        if (r > 0.0) {
            c[i] = v / r;
            s[i] = w / r;
        } else {
            c[i] = 1.0;
            s[i] = 0.0;
        }
        Di[i] = r;
        for (k = i + 1; k < d; ++k) Di[k] = 0.0;
    }
    w = y;
    for (k = 0; k < d; ++k) {
        v = l[k];
        ld[k] = c[k] * v + s[k] * w;
        w = c[k] * w - s[k] * v;
    }
    *rhod = sqrt(rho * rho + w * w);
}

/* S' = S + x x^T = L L^T (L the factor after adding x) is taken as
   positive definite when every pivot keeps more than 16 d DBL_EPSILON of
   its diagonal entry (the Givens pivots of a singular S' are rounding
   noise of that order). */
ISDB__PRIVATE int isdb__tu_full_rank(int d, const double *L, const double *S, const double *x) {
    double tol = 16.0 * (double)d * DBL_EPSILON;
    int j;
    for (j = 0; j < d; ++j) {
        double piv = L[j * d + j], diag = S[j * d + j] + x[j] * x[j];
        if (!(diag > 0.0) || !(piv * piv > tol * diag)) return 0;
    }
    return 1;
}

/* u^T A u for symmetric A given by its lower triangle. */
ISDB__PRIVATE double isdb__tu_quad(int d, const double *A, const double *u) {
    double q = 0.0;
    int i, j;
    for (i = 0; i < d; ++i) {
        double off = 0.0;
        for (j = 0; j < i; ++j) off += A[i * d + j] * u[j];
        q += u[i] * (A[i * d + i] * u[i] + 2.0 * off);
    }
    return q;
}

/* Tr(A S^-1) for symmetric A (lower triangle) by d solves with the factor
   L of S; clamped at 0. Solves that overflow (S far below A's scale in
   some direction: contexts of 1e-160 with a known Sigma ~ 1 give S ~
   1e-320) mean a trace beyond DBL_MAX: +Inf, which the caller holds at
   DBL_MAX (inf - inf in the solves made NaN, and the clamp a trace of 0,
   a model never sampled again). work: 2d. */
ISDB__PRIVATE double isdb__tu_exact_trace(int d, const double *L, const double *A, double *work) {
    double *col = work, *z = work + d, t = 0.0;
    int i, j;
    for (j = 0; j < d; ++j) {
        for (i = 0; i < d; ++i) col[i] = i >= j ? A[i * d + j] : A[j * d + i];
        isdb_chol_solve(d, L, col, z);
        t += z[j];
    }
    if (!isdb__finite(t)) return (double)INFINITY;
    return t > 0.0 ? t : 0.0;
}

/* Gradient of (1/L) sum_i ||Y_i - X_i b_i||^2 at B (d x m, column i = b_i,
   B[j m + i]) into G, from the stage-1 rows. */
ISDB__PRIVATE void isdb__tu_gl_grad(const isdb_traceucb *p, int L, const double *B, double *G) {
    int d = p->cfg.d, m = p->cfg.m, i, j, t;
    double scale = 2.0 / (double)L;
    isdb__zero(d * m, G);
    for (i = 0; i < m; ++i)
        for (t = 0; t < L; ++t) {
            const double *row = p->_stage1 + (i * L + t) * (d + 1);
            double r = -row[d];
            for (j = 0; j < d; ++j) r += row[j] * B[j * m + i];
            r *= scale;
            for (j = 0; j < d; ++j) G[j * m + i] += r * row[j];
        }
}

/* Sparse-Trace-UCB, Algorithm 2 line 4: the l1/l2 group lasso of the m
   tasks (Obozinski et al. 2011; Wang et al. 2013),
     min_B (1/L) sum_i ||Y_i - X_i b_i||^2 + lam sum_j ||B_j.||_2,
   on the stage-1 data, solved by FISTA (step 1/Lip, Lip = 2/L max_i
   ||X_i||_{F}^2 bounding the gradient's Lipschitz constant) along the path
   lam = lam_max 0.8^k, k = 1..40, with warm starts, until at least s rows
   are non-zero (lam_max is the smallest lam whose solution is 0). The
   support is the s rows of largest norm, then of largest ||gradient row||
   at B = 0, then of lowest index; stored ascending. The path and the
   top-s rule are ours: the paper gives lam only as an asymptotic rate. */
ISDB__COLD_PRIVATE void isdb__tu_recover_support(isdb_traceucb *p) {
    const isdb_traceucb_config *c = &p->cfg;
    int d = c->d, m = c->m, s = c->sparse_s, L = isdb__tu_stage1_len(c), i, j, t, step, it, nnz = 0;
    double *B = p->_gl, *Z = B + d * m, *Bo = Z + d * m, *G = Bo + d * m, *g0 = G + d * m, *key = g0 + d;
    double lip = 0.0, lam_max = 0.0;
    for (i = 0; i < m; ++i) {
        double f = 0.0;
        for (t = 0; t < L; ++t) {
            const double *row = p->_stage1 + (i * L + t) * (d + 1);
            f += isdb__dot(d, row, row);
        }
        if (f > lip) lip = f;
    }
    lip *= 2.0 / (double)L;
    isdb__zero(d * m, B);
    isdb__tu_gl_grad(p, L, B, G);
    for (j = 0; j < d; ++j) {
        g0[j] = sqrt(isdb__dot(m, G + j * m, G + j * m));
        if (g0[j] > lam_max) lam_max = g0[j];
    }
    for (step = 1; step <= 40 && nnz < s && lip > 0.0 && lam_max > 0.0; ++step) {
        double lam = lam_max * pow(0.8, (double)step), tk = 1.0;
        isdb__copy(d * m, B, Z);
        for (it = 0; it < 300; ++it) {
            double change = 0.0, size = 0.0, tn;
            isdb__tu_gl_grad(p, L, Z, G);
            isdb__copy(d * m, B, Bo);
            for (j = 0; j < d; ++j) {
                double nrm, shrink;
                for (i = 0; i < m; ++i) B[j * m + i] = Z[j * m + i] - G[j * m + i] / lip;
                nrm = sqrt(isdb__dot(m, B + j * m, B + j * m));
                shrink = nrm > lam / lip ? 1.0 - lam / (lip * nrm) : 0.0;
                for (i = 0; i < m; ++i) B[j * m + i] *= shrink;
            }
            tn = 0.5 * (1.0 + sqrt(1.0 + 4.0 * tk * tk));
            for (j = 0; j < d * m; ++j) {
                double diff = B[j] - Bo[j];
                Z[j] = B[j] + (tk - 1.0) / tn * diff;
                if (fabs(diff) > change) change = fabs(diff);
                if (fabs(B[j]) > size) size = fabs(B[j]);
            }
            tk = tn;
            if (change <= 1e-10 * (1.0 + size)) break;
        }
        for (nnz = 0, j = 0; j < d; ++j)
            if (isdb__dot(m, B + j * m, B + j * m) > 0.0) ++nnz;
    }
    for (j = 0; j < d; ++j) key[j] = sqrt(isdb__dot(m, B + j * m, B + j * m));
    /* The s best rows, marked by key = -1 once taken. */
    for (t = 0; t < s; ++t) {
        int best = -1;
        for (j = 0; j < d; ++j) {
            if (key[j] < 0.0) continue;
            if (best < 0 || key[j] > key[best] || (key[j] == key[best] && g0[j] > g0[best])) best = j;
        }
        key[best] = -1.0;
    }
    for (t = 0, j = 0; j < d; ++j)
        if (key[j] < 0.0) p->_support[t++] = j;
}

/* The switch to stage 2: the support, and the trace's matrix on it. */
ISDB__COLD_PRIVATE void isdb__tu_enter_stage2(isdb_traceucb *p) {
    int s = p->cfg.sparse_s, d = p->cfg.d, a, b;
    const double *src = p->_sigma_mat ? p->_sigma_mat : p->_cov_est;
    isdb__tu_recover_support(p);
    isdb__zero(d * d, p->_trace_block);
    for (a = 0; a < s; ++a)
        for (b = 0; b <= a; ++b) p->_trace_block[a * s + b] = src[p->_support[a] * d + p->_support[b]];
    p->stage = 2;
    p->de = s;
}

/* The n of eq. 11 and of lambda = 1/n: the horizon, or the updates so far. */
ISDB__PRIVATE double isdb__tu_n(const isdb_traceucb *p) {
    if (p->cfg.horizon > 0) return (double)p->cfg.horizon;
    return p->base.t > 0 ? (double)p->base.t : 1.0;
}

/* Delta = scale / sqrt(k - d): the scale (alpha R, times 8 ln(2 m n / delta)
   for the theory width). */
ISDB__PRIVATE double isdb__tu_width_scale(const isdb_traceucb *p) {
    const isdb_traceucb_config *c = &p->cfg;
    double scale = c->alpha * c->R;
    if (c->width == ISDB_TRACEUCB_WIDTH_THEORY) {
        /* the quotient's log where it is finite; with delta near DBL_MIN
           (in its range) 2 m n / delta overflowed and every score was +Inf */
        double q = 2.0 * (double)c->m * isdb__tu_n(p);
        scale *= 8.0 * (q / c->delta <= DBL_MAX ? log(q / c->delta) : log(q) - log(c->delta));
    }
    return scale;
}

ISDB__PRIVATE void isdb__tu_scores(isdb_traceucb *p, double *out) {
    const isdb_traceucb_config *c = &p->cfg;
    int i, d = p->de, avg = c->objective == ISDB_TRACEUCB_AVERAGE_LOSS;
    double contexts = p->n_contexts > 0 ? (double)p->n_contexts : 1.0, scale = isdb__tu_width_scale(p);
    if (p->stage == 1) {
        /* Sparse stage 1: L samples per model, model 0 first. */
        int L = isdb__tu_stage1_len(c);
        for (i = 0; i < c->m; ++i) out[i] = p->_k1[i] < L ? ISDB__TU_INIT : 0.0;
        return;
    }
    for (i = 0; i < c->m; ++i) {
        int k = p->_k[i];
        double s, v;
        if (c->mode == ISDB_TRACEUCB_UNIFORM) {
            out[i] = ISDB__TU_FEW / (1.0 + (double)k);
            continue;
        }
        if (k <= d) {
            out[i] = ISDB__TU_INIT;
            continue;
        }
        if (c->mode == ISDB_TRACEUCB_STATIC) {
            if (k < d + 2) {
                out[i] = ISDB__TU_FEW / (1.0 + (double)k);
                continue;
            }
            v = (double)k - (double)d - 1.0;
            s = p->_weights[i] * p->_noise_var[i] * (double)d / v;
            if (avg) s /= v + 1.0;
        } else if (!p->_full[i]) {
            out[i] = ISDB__TU_FEW / (1.0 + (double)k);
            continue;
        } else {
            v = p->_weights[i] *
                (p->_rho[i] * p->_rho[i] / ((double)k - (double)d) + scale / sqrt((double)k - (double)d));
            if (avg) v = sqrt(v);
            if (c->mode == ISDB_TRACEUCB_TRACE)
                s = v * (p->_cov_est ? p->_trace[i] / contexts : p->_trace[i]);
            else
                s = v / (double)k;
        }
        out[i] = s >= 0.0 && s < ISDB__TU_CAP ? s : (s >= 0.0 ? ISDB__TU_CAP : 0.0);
    }
}

ISDB__PRIVATE isdb_result isdb__traceucb_scores(isdb_policy *bp, const double *X, int n_arms, double *out) {
    isdb_traceucb *p = (isdb_traceucb *)bp;
    (void)X;
    if (n_arms != p->cfg.m) return ISDB_ERR_INVALID_ARG;
    isdb__tu_scores(p, out);
    return ISDB_OK;
}

/* The context X is ignored on purpose: see the documentation (Lemma 2). */
ISDB__PRIVATE isdb_result isdb__traceucb_select(isdb_policy *bp, const double *X, int n_arms, int *arm) {
    isdb_traceucb *p = (isdb_traceucb *)bp;
    (void)X;
    if (n_arms != p->cfg.m) return ISDB_ERR_INVALID_ARG;
    isdb__tu_scores(p, p->_scores);
    *arm = isdb__argmax(p->_scores, n_arms);
    return ISDB_OK;
}

/* Everything is computed into scratch and committed at the end, so a
   refused update leaves the state as it was. */
/* Sparse stage 1: store the row; the last stage-1 sample recovers the
   support and starts stage 2. */
ISDB__PRIVATE isdb_result isdb__tu_stage1_update(isdb_traceucb *p, int arm, const double *x, double y) {
    const isdb_traceucb_config *c = &p->cfg;
    int d = c->d, L = isdb__tu_stage1_len(c), i, j, done = 1;
    double *row;
    if (p->_k1[arm] >= L) return ISDB_ERR_BAD_STATE;
    row = p->_stage1 + (arm * L + p->_k1[arm]) * (d + 1);
    isdb__copy(d, x, row);
    row[d] = y;
    p->_k1[arm]++;
    if (p->_cov_est) {
        for (i = 0; i < d; ++i)
            for (j = 0; j <= i; ++j) p->_cov_est[i * d + j] += x[i] * x[j];
        p->n_contexts++;
    }
    for (i = 0; i < c->m; ++i)
        if (p->_k1[i] < L) done = 0;
    if (done) isdb__tu_enter_stage2(p);
    return ISDB_OK;
}

/* Everything is computed into scratch and committed at the end, so a
   refused update leaves the state as it was. d is the statistics'
   dimension (s in sparse stage 2, where xs is x on the support). */
ISDB__PRIVATE isdb_result isdb__traceucb_update(isdb_policy *bp, int arm, const double *x, double y) {
    isdb_traceucb *p = (isdb_traceucb *)bp;
    const isdb_traceucb_config *c = &p->cfg;
    int d = p->de, dd = d * d, i, j;
    double *Ln = p->_work, *Lc = Ln + dd, *An = Lc + dd;
    double *v = An + dd, *u = v + d, *ln = u + d, *bn = ln + d, *betan = bn + d, *gw = betan + d, *xg = gw + 2 * d;
    const double *L = p->_chol + arm * dd, *S = p->_scatter + arm * dd, *b = p->_b + arm * d, *xs = x;
    double *Sw = p->_scatter + arm * dd, *A = p->_trace_mat;
    double T = p->_trace[arm], rho, yyn = p->_yy[arm] + y * y;
    int k = p->_k[arm], full = p->_full[arm], since = p->_since[arm], rebuild = 0, estimated = p->_cov_est != NULL;
    if (!x) return ISDB_ERR_INVALID_ARG;
    if (p->stage == 1) return isdb__tu_stage1_update(p, arm, x, y);
    if (k == INT_MAX) return ISDB_ERR_BAD_STATE;
    if (p->stage == 2) {
        for (i = 0; i < d; ++i) xg[i] = x[p->_support[i]];
        xs = xg;
    }
    for (i = 0; i < d; ++i) bn[i] = b[i] + y * xs[i];
    /* Trace by Sherman-Morrison with the old factor: u = S^-1 x, psi = x.u,
       Tr(A S'^-1) = Tr(A S^-1) - u^T A u / (1 + psi), plus, when A = M grows
       by x x^T too, psi / (1 + psi). A large relative drop means
       cancellation: recompute exactly. */
    if (full) {
        double psi, q;
        isdb_tri_solve(d, L, 0, xs, v);
        psi = isdb__dot(d, v, v);
        isdb_tri_solve(d, L, 1, v, u);
        q = isdb__tu_quad(d, A, u);
        T = estimated ? T + (psi - q) / (1.0 + psi) : T - q / (1.0 + psi);
        /* a trace held at DBL_MAX (below) is recomputed, not updated */
        if (!(T > 1e-3 * p->_trace[arm]) || p->_trace[arm] >= DBL_MAX) rebuild = 1;
    }
    isdb__tu_addrow(d, L, p->_l + arm * d, p->_rho[arm], Ln, ln, &rho, xs, y, gw);
    if (!full && k + 1 > d && isdb__tu_full_rank(d, Ln, S, xs)) full = rebuild = 1;
    if (full && since + 1 >= c->refresh) rebuild = 1;
    if (full && rebuild) {
        /* Exact recomputation from the sums after this sample: the factor
           (kept from the rotations if S does not factor), l = L^-1 b, the
           trace, and the RSS y^T y - ||l||^2 when that subtraction loses
           fewer than 10 bits (otherwise the recursion's value, which never
           subtracts). Only lower triangles are formed and read. */
        for (i = 0; i < d; ++i)
            for (j = 0; j <= i; ++j) {
                Lc[i * d + j] = S[i * d + j] + xs[i] * xs[j];
                if (estimated) An[i * d + j] = A[i * d + j] + xs[i] * xs[j];
            }
        if (isdb_chol(d, Lc) == ISDB_OK) {
            double rss;
            isdb__copy(dd, Lc, Ln);
            isdb_tri_solve(d, Ln, 0, bn, ln);
            rss = yyn - isdb__dot(d, ln, ln);
            if (rss >= yyn / 1024.0) rho = sqrt(rss);
        }
        T = isdb__tu_exact_trace(d, Ln, estimated ? An : A, gw);
        since = 0;
    } else if (full) {
        ++since;
    }
    if (full) {
        isdb_tri_solve(d, Ln, 1, ln, betan);
        /* Tr(Sigma S^-1) of contexts far below Sigma's scale (1e-160 with
           Sigma ~ 1: S ~ 1e-320) is beyond DBL_MAX: held there (the score
           is capped anyway) rather than refusing contexts in range; an
           estimated Sigma scales with S and stays finite. */
        if (T > DBL_MAX) T = DBL_MAX;
        if (!isdb__finite(T) || !isdb__finite(rho) || !isdb__all_finite(betan, d)) return ISDB_ERR_NONFINITE;
    }
    /* With Sigma estimated, M grows by x x^T: every other estimated model's
       Tr(M S_j^-1) grows by x^T S_j^-1 x. */
    if (estimated) {
        for (j = 0; j < c->m; ++j) {
            double tj = p->_trace[j];
            if (j != arm && p->_full[j]) {
                isdb_tri_solve(d, p->_chol + j * dd, 0, xs, v);
                tj += isdb__dot(d, v, v);
                if (tj > DBL_MAX) tj = DBL_MAX; /* as T above */
                if (!isdb__finite(tj)) return ISDB_ERR_NONFINITE;
            }
            p->_trace_next[j] = tj;
        }
    }
    /* Commit: nothing can fail from here on. */
    for (i = 0; i < d; ++i)
        for (j = 0; j <= i; ++j) {
            Sw[i * d + j] += xs[i] * xs[j];
            if (estimated && A != p->_cov_est) A[i * d + j] += xs[i] * xs[j];
        }
    if (estimated) {
        int D = c->d;
        for (i = 0; i < D; ++i)
            for (j = 0; j <= i; ++j) p->_cov_est[i * D + j] += x[i] * x[j];
        isdb__copy(c->m, p->_trace_next, p->_trace);
        p->n_contexts++;
    }
    isdb__copy(dd, Ln, p->_chol + arm * dd);
    isdb__copy(d, ln, p->_l + arm * d);
    isdb__copy(d, bn, p->_b + arm * d);
    if (full) isdb__copy(d, betan, p->_beta + arm * d);
    p->_rho[arm] = rho;
    p->_yy[arm] = yyn;
    p->_k[arm] = k + 1;
    p->_full[arm] = full;
    p->_since[arm] = since;
    p->_trace[arm] = full ? T : 0.0;
    if (full && rebuild) p->rebuilds++;
    return ISDB_OK;
}

/* Views on the per-model state of a Trace-UCB snapshot. */
typedef struct isdb__tu_views {
    isdb__ser_view L, l, rho, S, b, yy, beta, trace;
} isdb__tu_views;

/* Model i (dimension e, k samples) of a snapshot: S a Gram sum of k rows
   and b, y^T y sums of k products; [[L, 0], [l^T, rho]] the factor of
   the sums of [x; y][x; y]^T, so L L^T = S, L l = b and
   l.l + rho^2 = y^T y; a full-rank model's L has a positive diagonal
   and L^T beta = l; any other has no estimate and no trace yet. */
ISDB__ONCE_PRIVATE void isdb__tu_check_model(isdb_ser *s, const isdb__tu_views *v, int i, int e, int k, int full) {
    int ee = e * e, j;
    isdb__ser_view L = isdb__sv_from(v->L, i * ee), S = isdb__sv_from(v->S, i * ee);
    isdb__ser_view l = isdb__sv_from(v->l, i * e), b = isdb__sv_from(v->b, i * e), beta = isdb__sv_from(v->beta, i * e);
    isdb__ser_gram g;
    double cap = isdb__ser_sum_cap((uint64_t)k), ll = 0.0, rho = isdb__sv(v->rho, i), yy = isdb__sv(v->yy, i);
    isdb__ser_check_lower(s, L, e, e, full);
    isdb__ser_check_gram(s, S, e, e, 0, 0.0, cap);
    for (j = 0; j < e; ++j) {
        isdb__ser_require(s, isdb__sv(S, j * e + j) <= cap && fabs(isdb__sv(b, j)) <= cap);
        ll += isdb__sv(l, j) * isdb__sv(l, j);
    }
    isdb__ser_require(s, yy <= cap && isdb__finite(ll + rho * rho) &&
                             fabs(ll + rho * rho - yy) <=
                                 ISDB__SER_TOL * (ll + rho * rho + yy) + ISDB__SER_UNDER * ISDB__SER_UNDER);
    g.A = S;
    g.ld = e;
    isdb__ser_check_factor(s, L, e, e, isdb__ser_gram_at, &g, 0.0);
    /* L l = b: l is carried by the rotations and b summed, both to the
       rounding of sum |y x_j| <= sqrt(y^T y S_jj), however much b cancels. */
    for (j = 0; j < e; ++j) {
        double lj = 0.0, a, bj = isdb__sv(b, j), ry = sqrt(yy);
        int r;
        for (r = 0; r <= j; ++r) lj += isdb__sv(L, j * e + r) * isdb__sv(l, r);
        a = ISDB__SER_TOL * (fabs(bj) + ry * sqrt(isdb__sv(S, j * e + j))) + ISDB__SER_UNDER * ry + DBL_MIN;
        isdb__ser_require(s, isdb__finite(a) && fabs(lj - bj) <= a);
    }
    if (full) {
        isdb__ser_check_solve(s, L, e, e, 1, beta, l, 0);
        return;
    }
    for (j = 0; j < e; ++j) isdb__ser_require(s, isdb__sv(beta, j) == 0.0);
    isdb__ser_require(s, isdb__sv(v->trace, i) == 0.0);
}

/* Sparse Trace-UCB's trace matrix (d x d, the first e x e in use, stride
   e; e = 0 in stage 1): the lower triangle of Sigma's (or M's, read from
   the snapshot) block on the support `sup`, zero elsewhere. */
ISDB__ONCE_PRIVATE void isdb__tu_check_block(isdb_ser *s, const isdb_traceucb *p, isdb__ser_view Ab,
                                             const unsigned char *sup, int e, isdb__ser_view M) {
    int d = p->cfg.d, a, j;
    if (!sup || !isdb__ser_checking(s, Ab, Ab) || (!p->_sigma_mat && !M.at)) return;
    for (a = 0; a < d * d; ++a)
        if (a >= e * e || a % e > a / e) isdb__ser_require(s, isdb__sv(Ab, a) == 0.0);
    for (a = 0; a < e; ++a)
        for (j = 0; j <= a; ++j) {
            int sa = isdb__ser_int_at(sup, a), sj = isdb__ser_int_at(sup, j);
            double src, saa, sjj;
            if (p->_sigma_mat) {
                src = p->_sigma_mat[sa * d + sj];
                saa = p->_sigma_mat[sa * d + sa];
                sjj = p->_sigma_mat[sj * d + sj];
            } else {
                src = isdb__sv(M, sa * d + sj);
                saa = isdb__sv(M, sa * d + sa);
                sjj = isdb__sv(M, sj * d + sj);
            }
            isdb__ser_require(s, fabs(isdb__sv(Ab, a * e + j) - src) <=
                                     ISDB__SER_TOL * (fabs(src) + sqrt(fabs(saa)) * sqrt(fabs(sjj))) + DBL_MIN);
        }
}

/* On CHECK, besides the ranges: the counts (per model, per stage, their
   sum the updates), each model's factor, solves and sums
   (isdb__tu_check_model), M a Gram sum of t rows, and the sparse trace
   block (isdb__tu_check_block). */
ISDB__ONCE_PRIVATE void isdb__traceucb_serialize(isdb_policy *bp, isdb_ser *s) {
    isdb_traceucb *p = (isdb_traceucb *)bp;
    const isdb_traceucb_config *c = &p->cfg;
    int i, d = c->d, m = c->m, dd = d * d, e = d, stage = 0;
    uint64_t updates = 0;
    const unsigned char *ints, *sup = NULL;
    isdb__tu_views v;
    isdb__ser_view M, Ab;
    Ab.at = NULL;
    if (c->sparse_s > 0) {
        int L = c->sparse_L, all = 1, prev = -1;
        stage = isdb__ser_int(s, &p->stage, 1, 2);
        if (stage == 2) e = c->sparse_s;
        if (isdb__ser_storing(s)) p->de = e;
        for (i = 0; i < m; ++i) {
            int k1 = isdb__ser_int(s, &p->_k1[i], 0, L);
            updates += (uint64_t)k1;
            all &= k1 == L;
        }
        /* Stage 2 begins as the last model gets its L-th sample; the
           support is stored ascending. */
        isdb__ser_require(s, all == (stage == 2));
        sup = s->mode == ISDB__SER_CHECK ? s->in + s->pos : NULL;
        for (i = 0; i < c->sparse_s; ++i) {
            int j = isdb__ser_int(s, &p->_support[i], 0, d - 1);
            isdb__ser_require(s, j > prev);
            prev = j;
        }
        isdb__ser_real_range(s, p->_stage1, m * L * (d + 1), -ISDB_INPUT_MAX, ISDB_INPUT_MAX);
        Ab = isdb__ser_view_real(s, p->_trace_block, dd);
    }
    isdb__ser_require(s, isdb__ser_u64(s, &p->n_contexts) == (p->_cov_est ? s->t : 0));
    isdb__ser_require(s, isdb__ser_u64(s, &p->rebuilds) <= s->t);
    ints = s->mode == ISDB__SER_CHECK ? s->in + s->pos : NULL;
    for (i = 0; i < m; ++i) {
        int k = isdb__ser_int(s, &p->_k[i], 0, INT_MAX);
        int full = isdb__ser_int(s, &p->_full[i], 0, 1);
        int since = isdb__ser_int(s, &p->_since[i], 0, c->refresh);
        /* Full rank needs more samples than dimensions; the rebuild count
           runs once full; sparse stage 1 feeds no model. */
        isdb__ser_require(s, (!full || k > e) && (since == 0 || full) && (stage != 1 || k == 0));
        updates += (uint64_t)k;
    }
    /* Every update added one sample to one model. */
    isdb__ser_require(s, updates == s->t);
    v.L = isdb__ser_view_real(s, p->_chol, m * dd);
    v.l = isdb__ser_view_real(s, p->_l, m * d);
    v.rho = isdb__ser_view_in(s, p->_rho, m, 0, ISDB__REAL_MAX);
    v.S = isdb__ser_view_real(s, p->_scatter, m * dd);
    v.b = isdb__ser_view_real(s, p->_b, m * d);
    v.yy = isdb__ser_view_in(s, p->_yy, m, 0, ISDB__REAL_MAX);
    v.beta = isdb__ser_view_real(s, p->_beta, m * d);
    v.trace = isdb__ser_view_in(s, p->_trace, m, 0, ISDB__REAL_MAX);
    M.at = NULL;
    if (p->_cov_est) M = isdb__ser_view_real(s, p->_cov_est, dd);
    if (!ints || !isdb__ser_checking(s, v.L, v.trace)) return;
    for (i = 0; i < m; ++i)
        isdb__tu_check_model(s, &v, i, e, isdb__ser_int_at(ints, 3 * i), isdb__ser_int_at(ints, 3 * i + 1));
    if (p->_cov_est) isdb__ser_check_gram(s, M, d, d, 0, 0.0, isdb__ser_sum_cap(s->t)); /* the sum of x x^T */
    /* The trace's matrix in sparse stage 2 is A's block on the support
       (copied when stage 2 began, both grown by the same x x^T since);
       zero before. */
    if (Ab.at) isdb__tu_check_block(s, p, Ab, sup, stage == 2 ? e : 0, M);
}

ISDB__ONCE_PRIVATE void isdb__traceucb_reset(isdb_policy *bp) {
    isdb_traceucb *p = (isdb_traceucb *)bp;
    int i, d = p->cfg.d, m = p->cfg.m, dd = d * d;
    p->n_contexts = 0;
    p->rebuilds = 0;
    p->stage = p->cfg.sparse_s > 0 ? 1 : 0;
    p->de = d;
    for (i = 0; i < m; ++i) p->_k[i] = p->_full[i] = p->_since[i] = 0;
    if (p->cfg.sparse_s > 0) {
        for (i = 0; i < m; ++i) p->_k1[i] = 0;
        for (i = 0; i < p->cfg.sparse_s; ++i) p->_support[i] = i;
        isdb__zero(m * p->cfg.sparse_L * (d + 1), p->_stage1);
        isdb__zero(dd, p->_trace_block);
        isdb__zero(4 * d * m + 2 * d, p->_gl);
    }
    isdb__zero(m * dd, p->_chol);
    isdb__zero(m * d, p->_l);
    isdb__zero(m, p->_rho);
    isdb__zero(m * dd, p->_scatter);
    isdb__zero(m * d, p->_b);
    isdb__zero(m, p->_yy);
    isdb__zero(m * d, p->_beta);
    isdb__zero(m, p->_trace);
    if (p->_cov_est) isdb__zero(dd, p->_cov_est);
    isdb__zero(m, p->_scores);
    isdb__zero(m, p->_trace_next);
    isdb__zero(3 * dd + 9 * d, p->_work);
}

static const isdb_policy_vtable isdb__traceucb_vt = {
    ISDB_POLICY_TRACEUCB, "traceucb", ISDB_POLICY_X_OPTIONAL, isdb__traceucb_select, isdb__traceucb_update,
    isdb__traceucb_scores, isdb__probs_one_hot, isdb__traceucb_serialize, isdb__traceucb_reset,
    isdb__traceucb_walk_config, offsetof(isdb_traceucb, cfg), "m", sizeof(isdb_traceucb_config)};

ISDB__ONCE isdb_result isdb_traceucb_heap_size(const isdb_traceucb_config *cfg, size_t *bytes) {
    isdb_traceucb probe;
    if (!bytes || isdb_traceucb_config_check(cfg, NULL) != ISDB_OK) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__traceucb_layout(cfg, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

ISDB__ONCE isdb_result isdb_traceucb_init_preallocated(const isdb_traceucb_config *cfg, void *heap, size_t heap_bytes,
                                                       isdb_traceucb *pol) {
    size_t bytes;
    int i, m;
    isdb_result r = isdb_traceucb_heap_size(cfg, &bytes);
    if (r == ISDB_OK) r = isdb_init_check(heap, heap_bytes, bytes, pol, NULL);
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    memset(pol, 0, sizeof *pol);
    pol->cfg = *cfg;
    m = cfg->m;
    if (pol->cfg.refresh == 0) pol->cfg.refresh = cfg->d;
    if (cfg->sparse_s > 0) pol->cfg.sparse_L = isdb__tu_stage1_len(cfg);
    isdb__traceucb_layout(cfg, pol, heap);
    if (cfg->Sigma) isdb__copy(cfg->d * cfg->d, cfg->Sigma, pol->_sigma_mat);
    for (i = 0; i < m; ++i) pol->_weights[i] = cfg->weights ? cfg->weights[i] : 1.0;
    if (pol->_noise_var) isdb__copy(m, cfg->noise_var, pol->_noise_var);
    pol->cfg.Sigma = pol->_sigma_mat;
    pol->cfg.weights = pol->_weights;
    pol->cfg.noise_var = pol->_noise_var;
    pol->_trace_mat = cfg->sparse_s > 0 ? pol->_trace_block : (pol->_sigma_mat ? pol->_sigma_mat : pol->_cov_est);
    isdb__policy_base_init(&pol->base, &isdb__traceucb_vt, cfg->d, m, 0, heap, bytes, sizeof *pol);
    isdb__traceucb_reset(&pol->base);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__traceucb_setup(const void *cfg, void *heap, size_t heap_bytes, void *pol) {
    return isdb_traceucb_init_preallocated((const isdb_traceucb_config *)cfg, heap, heap_bytes, (isdb_traceucb *)pol);
}

ISDB__ONCE isdb_result isdb_traceucb_init(const isdb_traceucb_config *cfg, const isdb_allocator *alloc, isdb_traceucb *pol) {
    size_t bytes;
    isdb_result r = isdb_traceucb_heap_size(cfg, &bytes);
    if (r == ISDB_OK && !pol) r = ISDB_ERR_INVALID_ARG;
    if (r != ISDB_OK) return isdb__refused(pol, sizeof *pol, r);
    return isdb__policy_init_owned(&pol->base, sizeof *pol, bytes, alloc, isdb__traceucb_setup, cfg, pol);
}

ISDB__ONCE const isdb_traceucb_config *isdb_traceucb_get_config(const isdb_traceucb *pol) { return &pol->cfg; }

void isdb_traceucb_get_counts(const isdb_traceucb *pol, int *k) {
    int i;
    for (i = 0; i < pol->cfg.m; ++i) k[i] = pol->_k[i] + (pol->_k1 ? pol->_k1[i] : 0);
}

ISDB__COLD void isdb_traceucb_get_variances(const isdb_traceucb *pol, double *sigma2) {
    int i, d = pol->de;
    for (i = 0; i < pol->cfg.m; ++i)
        sigma2[i] = pol->_full[i] && pol->_k[i] > d
                        ? pol->_rho[i] * pol->_rho[i] / ((double)pol->_k[i] - (double)d)
                        : 0.0;
}

ISDB__COLD void isdb_traceucb_get_widths(const isdb_traceucb *pol, double *width) {
    int i, d = pol->de;
    double scale = isdb__tu_width_scale(pol);
    for (i = 0; i < pol->cfg.m; ++i)
        width[i] = pol->_k[i] > d ? scale / sqrt((double)pol->_k[i] - (double)d) : 0.0;
}

ISDB__COLD void isdb_traceucb_get_traces(const isdb_traceucb *pol, double *trace) {
    int i;
    double contexts = pol->n_contexts > 0 ? (double)pol->n_contexts : 1.0;
    for (i = 0; i < pol->cfg.m; ++i)
        trace[i] = pol->_full[i] ? (pol->_cov_est ? pol->_trace[i] / contexts : pol->_trace[i]) : 0.0;
}

ISDB__COLD isdb_result isdb_traceucb_estimate(isdb_traceucb *pol, int model, isdb_traceucb_estimator which,
                                              double *beta) {
    int i, d, e;
    double lambda, *F, *est;
    isdb_result r;
    if (!pol || !beta || model < 0 || model >= pol->cfg.m) return ISDB_ERR_INVALID_ARG;
    if (which != ISDB_TRACEUCB_OLS && which != ISDB_TRACEUCB_RIDGE) return ISDB_ERR_INVALID_ARG;
    d = pol->cfg.d;
    e = pol->de; /* the statistics' dimension (s in sparse stage 2) */
    est = pol->_work + 3 * d * d + d;
    if (which == ISDB_TRACEUCB_OLS) {
        if (!pol->_full[model]) return ISDB_ERR_SINGULAR;
        isdb__copy(e, pol->_beta + model * e, est);
    } else {
        lambda = pol->cfg.lambda > 0.0 ? pol->cfg.lambda : 1.0 / isdb__tu_n(pol);
        F = pol->_work + 2 * d * d;
        isdb__copy(e * e, pol->_scatter + model * e * e, F);
        for (i = 0; i < e; ++i) F[i * e + i] += lambda;
        if ((r = isdb_chol(e, F)) != ISDB_OK) return r;
        isdb_chol_solve(e, F, pol->_b + model * e, est);
    }
    if (pol->stage == 2) {
        isdb__zero(d, beta);
        for (i = 0; i < e; ++i) beta[pol->_support[i]] = est[i];
    } else {
        isdb__copy(d, est, beta);
    }
    return ISDB_OK;
}

isdb_result isdb_traceucb_get_support(const isdb_traceucb *pol, int *support) {
    int i;
    if (!pol || !support) return ISDB_ERR_INVALID_ARG;
    if (pol->stage != 2) return ISDB_ERR_BAD_STATE;
    for (i = 0; i < pol->cfg.sparse_s; ++i) support[i] = pol->_support[i];
    return ISDB_OK;
}

ISDB__COLD isdb_result isdb_traceucb_loss(isdb_traceucb *pol, const double *beta_true, isdb_traceucb_estimator which,
                                          double *loss) {
    int i, j, d;
    double *diff, *A, scale = 1.0;
    isdb_result r, res = ISDB_OK;
    if (!pol || !beta_true || !loss) return ISDB_ERR_INVALID_ARG;
    d = pol->cfg.d;
    if ((r = isdb__check_input(beta_true, pol->cfg.m * d)) != ISDB_OK) return r;
    diff = pol->_work + 3 * d * d;
    /* The second moment: known, estimated (M / N), or I before any context. */
    A = pol->_work + d * d;
    if (pol->_sigma_mat)
        isdb__copy(d * d, pol->_sigma_mat, A);
    else if (pol->n_contexts > 0) {
        isdb__copy(d * d, pol->_cov_est, A);
        scale = 1.0 / (double)pol->n_contexts;
    } else
        isdb__identity(d, A, 1.0);
    for (i = 0; i < pol->cfg.m; ++i) {
        r = isdb_traceucb_estimate(pol, i, which, diff);
        if (r != ISDB_OK) {
            loss[i] = HUGE_VAL;
            if (res == ISDB_OK) res = r;
            continue;
        }
        for (j = 0; j < d; ++j) diff[j] = beta_true[i * d + j] - diff[j];
        loss[i] = scale * isdb__tu_quad(d, A, diff);
    }
    return res;
}

ISDB__COLD isdb_result isdb_traceucb_static_allocation(int m, int d, int n, const double *noise_var,
                                                       const double *weights, isdb_traceucb_objective objective,
                                                       int *k) {
    int i, t;
    if (!noise_var || !k || m < 1 || d < 1 || d > ISDB_MAX_DIM || n < 0) return ISDB_ERR_INVALID_ARG;
    if (objective != ISDB_TRACEUCB_MAX_LOSS && objective != ISDB_TRACEUCB_AVERAGE_LOSS) return ISDB_ERR_INVALID_ARG;
    if (!isdb__tu_positive_all(noise_var, m) || (weights && !isdb__tu_positive_all(weights, m)))
        return ISDB_ERR_INVALID_ARG;
    if ((double)n < (double)m * ((double)d + 2.0)) return ISDB_ERR_INVALID_ARG;
    for (i = 0; i < m; ++i) k[i] = d + 2;
    for (t = m * (d + 2); t < n; ++t) {
        int best = 0;
        double best_v = -1.0;
        for (i = 0; i < m; ++i) {
            double e = (double)k[i] - (double)d - 1.0;
            double v = (weights ? weights[i] : 1.0) * noise_var[i] * (double)d / e;
            if (objective == ISDB_TRACEUCB_AVERAGE_LOSS) v /= e + 1.0;
            if (v > best_v) {
                best_v = v;
                best = i;
            }
        }
        ++k[best];
    }
    return ISDB_OK;
}

#endif /* ISDB__HAS_TRACEUCB */
#endif /* !ISDB_REAL_IS_FLOAT */

/* The vtable of a policy kind this build compiles, or NULL. */
ISDB__ONCE_PRIVATE const isdb_policy_vtable *isdb__vtable_of(isdb_policy_kind kind) {
    static const isdb_policy_vtable *const all[] = {
#if ISDB__HAS_LINUCB
        &isdb__linucb_vt,
#endif
#if ISDB__HAS_SWUCB
        &isdb__swucb_vt,
#endif
#if ISDB__HAS_DLINUCB
        &isdb__dlinucb_vt,
#endif
#if ISDB__HAS_LINTS
        &isdb__lints_vt,
#endif
#if ISDB__HAS_BOB
        &isdb__bob_vt,
#endif
#if ISDB__HAS_ADAPTIVE
        &isdb__adaptive_vt,
#endif
#if !ISDB_REAL_IS_FLOAT && ISDB__HAS_ISD
        &isdb__isd_vt,
#endif
#if !ISDB_REAL_IS_FLOAT && ISDB__HAS_OPKB
        &isdb__opkb_vt,
#endif
#if !ISDB_REAL_IS_FLOAT && ISDB__HAS_OAM
        &isdb__oam_vt,
#endif
#if !ISDB_REAL_IS_FLOAT && ISDB__HAS_TRACEUCB
        &isdb__traceucb_vt,
#endif
        NULL};
    int i;
    for (i = 0; all[i]; ++i)
        if (all[i]->kind == kind) return all[i];
    return NULL;
}

ISDB__ONCE isdb_result isdb_snapshot_read_array(const void *buf, size_t size, const char *field, isdb_real *out,
                                                size_t cap, size_t *count) {
    const isdb_policy_vtable *vt;
    isdb_snapshot_info info;
    uint64_t cfg[256]; /* room for any config (an ISD config is under 600 bytes) */
    isdb_ser s;
    isdb_result r;
    if (!count || !field || (!out && cap > 0)) return ISDB_ERR_INVALID_ARG;
    *count = 0;
    if ((r = isdb_snapshot_read_info(buf, size, &info)) != ISDB_OK) return r;
    if (info.real_bytes != (int)sizeof(isdb_real)) return ISDB_ERR_SNAPSHOT_VERSION;
    if (!(vt = isdb__vtable_of(info.kind))) return ISDB_ERR_SNAPSHOT_POLICY;
    ISDB_ASSERT(vt->cfg_size <= sizeof cfg);
    memset(cfg, 0, sizeof cfg);
    memset(&s, 0, sizeof s);
    s.mode = ISDB__SER_TAKE;
    s.version = info.library_version;
    s.in = (const unsigned char *)buf;
    s.end = size - 8;
    s.head_d = info.d;
    s.head_arms = info.max_arms;
    s.head_seed = info.seed;
    s.pos = ISDB__HEAD_END + 32 + sizeof(isdb_real) + 4;
    s.find_name = field;
    s.find_out = out;
    s.find_cap = cap;
    s.find_count = (size_t)-1;
    vt->walk_config(&s, cfg);
    if (s.failed) return ISDB_ERR_SNAPSHOT_CORRUPT;
    if (s.find_count == (size_t)-1) return ISDB_ERR_INVALID_ARG; /* no such array in this policy's config */
    *count = s.find_count;
    return s.find_count > cap ? ISDB_ERR_BUFFER_TOO_SMALL : ISDB_OK;
}

#ifndef ISDB_NO_SIM
/* ---------------------------------------------------------------------------
   [ENV] Environments and the regret harness
   ------------------------------------------------------------------------ */

/* The end of every environment's init_preallocated: the base's fields,
   then the first round drawn (isdb_env_reset). */
ISDB__ONCE_PRIVATE void isdb__env_base_init(isdb_env *e, const isdb_env_vtable *vt, int d, int n_arms, uint64_t seed,
                                            void *heap) {
    e->vt = vt;
    e->d = d;
    e->n_arms = n_arms;
    e->seed = seed;
    e->_heap = heap;
    isdb_env_reset(e);
}

isdb_result isdb_env_next(isdb_env *e) {
    isdb_result r;
    if (!e) return ISDB_ERR_INVALID_ARG;
    if (!e->vt) return ISDB_ERR_BAD_STATE;
    r = e->vt->next(e);
    if (r >= 0) e->t++;
    return r;
}

isdb_result isdb_env_reward(isdb_env *e, int arm, isdb_real *y) {
    if (!e) return ISDB_ERR_INVALID_ARG;
    if (!e->vt) return ISDB_ERR_BAD_STATE;
    if (!y || arm < 0 || arm >= e->n_arms) return ISDB_ERR_INVALID_ARG;
    if (e->t == 0) return ISDB_ERR_BAD_STATE;
    return e->vt->reward(e, arm, y);
}

ISDB__COLD void isdb_env_reset(isdb_env *e) {
    if (!e || !e->vt) return;
    e->t = 0;
    isdb_rng_seed(&e->rng, e->seed);
    /* A second stream from the same seed, offset so the two differ. */
    isdb_rng_seed(&e->noise_rng, e->seed ^ 0x6a09e667f3bcc909ull);
    if (e->vt->reset) e->vt->reset(e);
}

ISDB__ONCE void isdb_env_uninit(isdb_env *e) {
    if (!e) return;
    if (e->_owns_heap) isdb__heap_free(&e->_alloc, e->_heap);
    e->_heap = NULL;
    e->_owns_heap = 0;
    e->vt = NULL;
}

ISDB__ONCE isdb_linear_env_config isdb_linear_env_config_init(int d, int n_arms) {
    isdb_linear_env_config c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.n_arms = n_arms;
    c.seed = 1;
    c.noise_sd = 1;
    c.arms = ISDB_ARMS_SPHERE;
    c.box_lo = -1;
    c.box_hi = 1;
    c.path = ISDB_PATH_PIECEWISE;
    c.sin_center = 0.5;
    c.sin_amp = ISDB__R(0.3);
    c.rot_from = 0;
    c.rot_to = ISDB__PI / 2;
    c.rot_rounds = 1;
    return c;
}

ISDB__PRIVATE void isdb__linear_env_theta(isdb_linear_env *e, uint64_t t) {
    const isdb_linear_env_config *c = &e->cfg;
    int i, k, d = c->d;
    isdb_real a;
    switch (c->path) {
    case ISDB_PATH_PIECEWISE:
        for (k = 0; k < c->n_pieces - 1 && t >= c->switch_at[k]; ++k) {
        }
        isdb__copy(d, c->pieces + k * d, e->theta);
        break;
    case ISDB_PATH_SINUSOID:
        for (i = 0; i < d; ++i)
            e->theta[i] = c->sin_center + c->sin_amp * isdb__sin(c->sin_omega * (isdb_real)(t + 1) + (isdb_real)i * ISDB__PI);
        break;
    case ISDB_PATH_ROTATION:
        a = c->rot_from + (c->rot_to - c->rot_from) * (isdb_real)(t < c->rot_rounds ? t : c->rot_rounds) /
                              (isdb_real)c->rot_rounds;
        isdb__zero(d, e->theta);
        e->theta[0] = isdb__cos(a);
        e->theta[1] = isdb__sin(a);
        break;
    default:
        c->theta_fn(t, e->theta, c->theta_user);
        break;
    }
}

/* A point uniform on the unit sphere of R^d. */
ISDB__PRIVATE void isdb__sphere_point(isdb_rng *rng, int d, isdb_real *x) {
    isdb_real norm;
    int i;
    do {
        for (i = 0; i < d; ++i) x[i] = isdb_rng_normal(rng);
        norm = isdb__sqrt(isdb__dot(d, x, x));
    } while (norm == 0);
    for (i = 0; i < d; ++i) x[i] /= norm;
}

ISDB__PRIVATE void isdb__linear_env_arm(isdb_linear_env *e, isdb_real *x) {
    const isdb_linear_env_config *c = &e->cfg;
    isdb_rng *rng = &e->base.rng;
    int i, j, d = c->d;
    isdb_real norm;
    switch (c->arms) {
    case ISDB_ARMS_SPHERE:
        isdb__sphere_point(rng, d, x);
        break;
    case ISDB_ARMS_GAUSSIAN:
        for (i = 0; i < d; ++i) e->theta[d + i] = isdb_rng_normal(rng);
        for (i = 0; i < d; ++i) {
            isdb_real s = 0;
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
    if (c->clip_norm > 0) {
        norm = isdb__sqrt(isdb__dot(d, x, x));
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

ISDB__PRIVATE isdb_result isdb__linear_env_reward(isdb_env *be, int arm, isdb_real *y) {
    isdb_linear_env *e = (isdb_linear_env *)be;
    *y = be->means[arm] + e->cfg.noise_sd * isdb_rng_normal(&be->noise_rng);
    return ISDB_OK;
}

static const isdb_env_vtable isdb__linear_env_vt = {"linear", isdb__linear_env_next, isdb__linear_env_reward, NULL};

ISDB__ONCE isdb_result isdb_linear_env_config_check(const isdb_linear_env_config *c, isdb_refusal *why) {
    int k, ok;
    if (!(isdb__want_start(why) && isdb__want_ptr(why, c, "cfg") && isdb__want_sizes(why, c->d, c->n_arms, "n_arms") &&
          isdb__want_scale(why, c->noise_sd, "noise_sd") && isdb__want_nonneg(why, c->clip_norm, "clip_norm") &&
          isdb__want_int(why, (int)c->arms, "arms", ISDB_ARMS_FIXED, ISDB_ARMS_BOX, "an isdb_arms_kind")))
        return ISDB_ERR_INVALID_ARG;
    switch (c->arms) {
    case ISDB_ARMS_FIXED:
        ok = isdb__want_inputs(why, c->fixed_arms, c->n_arms * c->d, "fixed_arms", 0);
        break;
    case ISDB_ARMS_GAUSSIAN:
        ok = isdb__want(why, !c->cov || isdb__all_finite(c->cov, c->d * c->d), "cov", "NULL or finite");
        break;
    case ISDB_ARMS_BOX:
        ok = isdb__want_finite(why, c->box_lo, "box_lo") &&
             isdb__want_real(why, c->box_hi, "box_hi", c->box_lo, ISDB__REAL_MAX, 1, "(box_lo, inf), finite");
        break;
    default:
        ok = 1;
        break;
    }
    if (!ok || !isdb__want_int(why, (int)c->path, "path", ISDB_PATH_PIECEWISE, ISDB_PATH_CALLBACK, "an isdb_path_kind"))
        return ISDB_ERR_INVALID_ARG;
    switch (c->path) {
    case ISDB_PATH_PIECEWISE:
        if (!(isdb__want_int(why, c->n_pieces, "n_pieces", 1, INT_MAX / c->d, "[1, INT_MAX / d]") &&
              isdb__want(why, c->pieces && isdb__all_finite(c->pieces, c->n_pieces * c->d), "pieces",
                         "non-NULL, finite") &&
              (c->n_pieces == 1 || isdb__want_ptr(why, c->switch_at, "switch_at"))))
            return ISDB_ERR_INVALID_ARG;
        for (k = 1; k < c->n_pieces - 1; ++k)
            if (!isdb__want(why, c->switch_at[k] > c->switch_at[k - 1], "switch_at", "increasing"))
                return ISDB_ERR_INVALID_ARG;
        return ISDB_OK;
    case ISDB_PATH_SINUSOID:
        return isdb__checked(isdb__want_bounded(why, c->sin_center, "sin_center") &&
                             isdb__want_bounded(why, c->sin_amp, "sin_amp") &&
                             isdb__want_bounded(why, c->sin_omega, "sin_omega"));
    case ISDB_PATH_ROTATION:
        return isdb__checked(isdb__want_int(why, c->d, "d", 2, ISDB_MAX_DIM, "[2, ISDB_MAX_DIM] (ROTATION)") &&
                             isdb__want_bounded(why, c->rot_from, "rot_from") &&
                             isdb__want_bounded(why, c->rot_to, "rot_to") &&
                             isdb__want_u64(why, c->rot_rounds, "rot_rounds", 1, UINT64_MAX, ">= 1"));
    default:
        return isdb__checked(isdb__want(why, c->theta_fn != NULL, "theta_fn", "non-NULL"));
    }
}

/* Carves (or with heap NULL measures) the heap of a checked config: 0
   if it does not fit. theta has room for the d normals a Gaussian arm is
   drawn from. */
ISDB__COLD_PRIVATE size_t isdb__linear_env_layout(const isdb_linear_env_config *cfg, isdb_linear_env *env,
                                                  void *heap) {
    isdb__arena a;
    int d = cfg->d, pieces = cfg->path == ISDB_PATH_PIECEWISE ? cfg->n_pieces : 0;
    memset(&a, 0, sizeof a);
    a.base = (unsigned char *)heap;
    env->base.X = isdb__take_f64(&a, cfg->n_arms * d);
    env->base.means = isdb__take_f64(&a, cfg->n_arms);
    env->theta = isdb__take_f64(&a, 2 * d);
    env->_chol = isdb__take_f64(&a, cfg->arms == ISDB_ARMS_GAUSSIAN ? d * d : 0);
    env->cfg.pieces = isdb__take_f64(&a, pieces * d);
    env->cfg.switch_at = (const uint64_t *)isdb__take(&a, pieces > 1 ? pieces - 1 : 0, sizeof(uint64_t));
    return a.overflow ? 0 : a.used;
}

ISDB__COLD isdb_result isdb_linear_env_heap_size(const isdb_linear_env_config *cfg, size_t *bytes) {
    isdb_linear_env probe;
    if (!bytes || isdb_linear_env_config_check(cfg, NULL) != ISDB_OK) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__linear_env_layout(cfg, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

ISDB__COLD isdb_result isdb_linear_env_init_preallocated(const isdb_linear_env_config *cfg, void *heap,
                                                         size_t heap_bytes, isdb_linear_env *env) {
    size_t bytes;
    isdb_result r = env ? isdb_linear_env_heap_size(cfg, &bytes) : ISDB_ERR_INVALID_ARG;
    int d, pieces;
    if (r == ISDB_OK) r = isdb_init_check(heap, heap_bytes, bytes, env, NULL);
    if (r != ISDB_OK) return isdb__refused(env, sizeof *env, r);
    memset(env, 0, sizeof *env);
    d = cfg->d;
    pieces = cfg->path == ISDB_PATH_PIECEWISE ? cfg->n_pieces : 0;
    env->cfg = *cfg;
    isdb__linear_env_layout(cfg, env, heap);
    if (cfg->arms == ISDB_ARMS_GAUSSIAN) {
        if (cfg->cov)
            isdb__copy(d * d, cfg->cov, env->_chol);
        else
            isdb__identity(d, env->_chol, 1);
        if ((r = isdb_chol(d, env->_chol)) != ISDB_OK) return isdb__refused(env, sizeof *env, r);
    }
    if (pieces) {
        isdb__copy(pieces * d, cfg->pieces, (isdb_real *)isdb__unconst(env->cfg.pieces));
        if (pieces > 1)
            memcpy(isdb__unconst(env->cfg.switch_at), cfg->switch_at, (size_t)(pieces - 1) * sizeof(uint64_t));
    }
    if (cfg->arms == ISDB_ARMS_FIXED) isdb__copy(cfg->n_arms * d, cfg->fixed_arms, env->base.X);
    env->cfg.fixed_arms = cfg->arms == ISDB_ARMS_FIXED ? env->base.X : NULL;
    env->cfg.cov = NULL;
    isdb__env_base_init(&env->base, &isdb__linear_env_vt, d, cfg->n_arms, cfg->seed, heap);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__linear_env_setup(const void *cfg, void *heap, size_t heap_bytes, void *env) {
    return isdb_linear_env_init_preallocated((const isdb_linear_env_config *)cfg, heap, heap_bytes,
                                             (isdb_linear_env *)env);
}

ISDB__COLD isdb_result isdb_linear_env_init(const isdb_linear_env_config *cfg, const isdb_allocator *alloc,
                                 isdb_linear_env *env) {
    size_t bytes;
    isdb_result r = env ? isdb_linear_env_heap_size(cfg, &bytes) : ISDB_ERR_INVALID_ARG;
    if (r != ISDB_OK) return isdb__refused(env, sizeof *env, r);
    return isdb__init_owned(&env->base._alloc, &env->base._owns_heap, sizeof *env, bytes, alloc,
                            isdb__linear_env_setup, cfg, env);
}

isdb_result isdb_sim_run(isdb_policy *p, isdb_env *e, uint64_t T, isdb_real *cum_regret, isdb_sim_result *res) {
    isdb_result r = ISDB_OK;
    clock_t start;
    uint64_t i;
    if (!p || !e || !res) return ISDB_ERR_INVALID_ARG;
    if (!p->vt || !e->vt) return ISDB_ERR_BAD_STATE;
    if (e->d != p->d || e->n_arms > p->max_arms) return ISDB_ERR_INVALID_ARG;
    memset(res, 0, sizeof *res);
    start = clock();
    for (i = 0; i < T; ++i) {
        int arm, k;
        isdb_real y, best;
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
    res->seconds = (isdb_real)(clock() - start) / (isdb_real)CLOCKS_PER_SEC;
    return r < 0 ? r : ISDB_OK;
}

#if !ISDB_REAL_IS_FLOAT /* double only: see PRECISION */
#if ISDB__HAS_ISD
/* ---------------------------------------------------------------------------
   The invariant subspace environment
   ------------------------------------------------------------------------ */

ISDB__ONCE isdb_isd_env_config isdb_isd_env_config_init(int d, int n_arms, int n_blocks, const int *block_sizes,
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

ISDB__ONCE isdb_result isdb_isd_env_config_check(const isdb_isd_env_config *c, isdb_refusal *why) {
    int b, total = 0;
    if (!(isdb__want_start(why) && isdb__want_ptr(why, c, "cfg") && isdb__want_sizes(why, c->d, c->n_arms, "n_arms") &&
          isdb__want_int(why, c->n_blocks, "n_blocks", 1, c->d, "[1, d]") &&
          isdb__want_ptr(why, c->block_sizes, "block_sizes") && isdb__want_ptr(why, c->residual, "residual")))
        return ISDB_ERR_INVALID_ARG;
    for (b = 0; b < c->n_blocks; ++b) {
        if (!(isdb__want_int(why, c->block_sizes[b], "block_sizes", 1, c->d - total, ">= 1, summing to d") &&
              isdb__want_flag(why, c->residual[b], "residual")))
            return ISDB_ERR_INVALID_ARG;
        total += c->block_sizes[b];
    }
    return isdb__checked(
        isdb__want(why, total == c->d, "block_sizes", ">= 1, summing to d") &&
        isdb__want(why, !c->basis || isdb__all_finite(c->basis, c->d * c->d), "basis", "NULL or finite") &&
        isdb__want(why, !c->gamma0 || isdb__all_finite(c->gamma0, c->d), "gamma0", "NULL or finite") &&
        isdb__want_bounded(why, c->gamma_lo, "gamma_lo") &&
        isdb__want_real(why, c->gamma_hi, "gamma_hi", c->gamma_lo, ISDB__SCALE_MAX, 1, "(gamma_lo, 1e30]") &&
        isdb__want_flag(why, c->normalize_gamma0, "normalize_gamma0") &&
        isdb__want_int(why, c->cov_period, "cov_period", 1, INT_MAX, ">= 1") &&
        isdb__want_bounded(why, c->drift_amp, "drift_amp") && isdb__want_finite(why, c->drift_freq, "drift_freq") &&
        isdb__want_flag(why, c->drift_code, "drift_code") && isdb__want_bounded(why, c->res_lo, "res_lo") &&
        isdb__want_real(why, c->res_hi, "res_hi", c->res_lo, ISDB__SCALE_MAX, 1, "(res_lo, 1e30]") &&
        isdb__want_scale(why, c->noise_sd, "noise_sd"));
}

/* A block-diagonal factor with uniform [0, 1) entries. */
ISDB__COLD_PRIVATE void isdb__isd_env_draw_A(const isdb_isd_env *e, isdb_rng *rng, double *A) {
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
        isdb__isd_env_feature(e, &be->rng, e->_cov_factor, e->_g, xt, be->X + k * d);
        be->means[k] = isdb__dot(d, be->X + k * d, e->theta);
    }
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__isd_env_reward(isdb_env *be, int arm, double *y) {
    isdb_isd_env *e = (isdb_isd_env *)be;
    *y = be->means[arm] + e->cfg.noise_sd * isdb_rng_normal(&be->noise_rng);
    return ISDB_OK;
}

ISDB__COLD_PRIVATE void isdb__isd_env_reset(isdb_env *be) {
    isdb_isd_env *e = (isdb_isd_env *)be;
    int k;
    isdb__isd_env_draw_A(e, &be->rng, e->_cov_factor);
    for (k = 0; k < e->p_res; ++k) e->res[k] = e->cfg.res_lo + (e->cfg.res_hi - e->cfg.res_lo) * isdb_rng_uniform(&be->rng);
    isdb__isd_env_gamma(e, e->res, e->_g + be->d, e->theta);
}

static const isdb_env_vtable isdb__isd_env_vt = {"isd", isdb__isd_env_next, isdb__isd_env_reward,
                                                 isdb__isd_env_reset};

/* Carves (or with heap NULL measures) the heap of a checked config: 0
   if it does not fit. */
ISDB__COLD_PRIVATE size_t isdb__isd_env_layout(const isdb_isd_env_config *cfg, isdb_isd_env *env, void *heap) {
    isdb__arena a;
    int d = cfg->d;
    memset(&a, 0, sizeof a);
    a.base = (unsigned char *)heap;
    env->base.X = isdb__take_f64(&a, cfg->n_arms * d);
    env->base.means = isdb__take_f64(&a, cfg->n_arms);
    env->basis = isdb__take_f64(&a, d * d);
    env->gamma0 = isdb__take_f64(&a, d);
    env->beta_inv = isdb__take_f64(&a, d);
    env->theta = isdb__take_f64(&a, d);
    env->res = isdb__take_f64(&a, d);
    env->_cov_factor = isdb__take_f64(&a, d * d);
    env->_g = isdb__take_f64(&a, 5 * d + d * d);
    env->_sizes = (int *)isdb__take(&a, cfg->n_blocks, sizeof(int));
    env->_resflag = (int *)isdb__take(&a, cfg->n_blocks, sizeof(int));
    return a.overflow ? 0 : a.used;
}

ISDB__COLD isdb_result isdb_isd_env_heap_size(const isdb_isd_env_config *cfg, size_t *bytes) {
    isdb_isd_env probe;
    if (!bytes || isdb_isd_env_config_check(cfg, NULL) != ISDB_OK) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__isd_env_layout(cfg, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

ISDB__COLD isdb_result isdb_isd_env_init_preallocated(const isdb_isd_env_config *cfg, void *heap, size_t heap_bytes,
                                                      isdb_isd_env *env) {
    size_t bytes;
    isdb_result r = env ? isdb_isd_env_heap_size(cfg, &bytes) : ISDB_ERR_INVALID_ARG;
    int d, k, b, i, j, off;
    isdb_rng rng;
    if (r == ISDB_OK) r = isdb_init_check(heap, heap_bytes, bytes, env, NULL);
    if (r != ISDB_OK) return isdb__refused(env, sizeof *env, r);
    memset(env, 0, sizeof *env);
    d = cfg->d;
    memset(heap, 0, bytes);
    isdb__isd_env_layout(cfg, env, heap);
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
        double *G = env->_cov_factor, *w = env->_g;
        for (i = 0; i < d * d; ++i) G[i] = isdb_rng_normal(&rng);
        if ((r = isdb_qr(d, d, G, env->basis, w)) != ISDB_OK) return isdb__refused(env, sizeof *env, r);
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
    isdb__env_base_init(&env->base, &isdb__isd_env_vt, d, cfg->n_arms, cfg->seed, heap);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__isd_env_setup(const void *cfg, void *heap, size_t heap_bytes, void *env) {
    return isdb_isd_env_init_preallocated((const isdb_isd_env_config *)cfg, heap, heap_bytes, (isdb_isd_env *)env);
}

ISDB__COLD isdb_result isdb_isd_env_init(const isdb_isd_env_config *cfg, const isdb_allocator *alloc, isdb_isd_env *env) {
    size_t bytes;
    isdb_result r = env ? isdb_isd_env_heap_size(cfg, &bytes) : ISDB_ERR_INVALID_ARG;
    if (r != ISDB_OK) return isdb__refused(env, sizeof *env, r);
    return isdb__init_owned(&env->base._alloc, &env->base._owns_heap, sizeof *env, bytes, alloc, isdb__isd_env_setup,
                            cfg, env);
}

ISDB__COLD isdb_result isdb_isd_env_offline(const isdb_isd_env *env, int T0, isdb_isd_logger logger, double log_noise_sd,
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
       scratch; the online factor _cov_factor is left alone. */
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

ISDB__COLD void isdb_isd_env_get_invariant_basis(const isdb_isd_env *env, double *U_inv) {
    int d = env->cfg.d, b, i, j, off, col = 0;
    for (b = 0, off = 0; b < env->cfg.n_blocks; off += env->_sizes[b++])
        if (!env->_resflag[b]) {
            for (j = off; j < off + env->_sizes[b]; ++j, ++col)
                for (i = 0; i < d; ++i) U_inv[i * env->p_inv + col] = env->basis[i * d + j];
        }
}

#endif /* ISDB__HAS_ISD */
#if ISDB__HAS_OPKB
/* ---------------------------------------------------------------------------
   Fixed-arm kernel environments (OPKB experiments)
   ------------------------------------------------------------------------ */

ISDB__ONCE isdb_kernel_env_config isdb_kernel_env_config_init(int d, int n_arms) {
    isdb_kernel_env_config c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.n_arms = n_arms;
    c.seed = 1;
    c.arms = NULL;
    c.kind = ISDB_KENV_GP_SWITCH;
    c.kernel = ISDB_KERNEL_RBF;
    c.length_scale = 0.2;
    c.gram = NULL;
    c.amplitude = 0.8;
    c.n_switches = 0;
    c.switch_at = NULL;
    c.freq = 3.0;
    c.n_phase = 0;
    c.phase_at = NULL;
    c.phase = NULL;
    c.noise_sd = 0.1;
    c.y_bound = 1.0;
    return c;
}

double isdb_kernel_env_drift(const isdb_kernel_env *e, uint64_t t) {
    const isdb_kernel_env_config *c = &e->cfg;
    int k;
    if (c->kind == ISDB_KENV_GP_SWITCH) {
        int flips = 0;
        for (k = 0; k < c->n_switches && t >= c->switch_at[k]; ++k) ++flips;
        return (flips & 1) ? -1.0 : 1.0;
    }
    if (c->n_phase == 0) return 0.0;
    if (t <= c->phase_at[0]) return c->phase[0];
    for (k = 1; k < c->n_phase; ++k)
        if (t < c->phase_at[k]) {
            double span = (double)(c->phase_at[k] - c->phase_at[k - 1]);
            return c->phase[k - 1] + (c->phase[k] - c->phase[k - 1]) * (double)(t - c->phase_at[k - 1]) / span;
        }
    return c->phase[c->n_phase - 1];
}

ISDB__PRIVATE isdb_result isdb__kernel_env_next(isdb_env *be) {
    isdb_kernel_env *e = (isdb_kernel_env *)be;
    const isdb_kernel_env_config *c = &e->cfg;
    double drift = isdb_kernel_env_drift(e, be->t);
    int k;
    for (k = 0; k < be->n_arms; ++k)
        be->means[k] = c->kind == ISDB_KENV_GP_SWITCH ? drift * e->f[k] : c->amplitude * cos(c->freq * e->f[k] + drift);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__kernel_env_reward(isdb_env *be, int arm, double *y) {
    isdb_kernel_env *e = (isdb_kernel_env *)be;
    double r = be->means[arm], sd = e->cfg.noise_sd, b = e->cfg.y_bound - fabs(r), u;
    isdb_rng *rng = &be->noise_rng;
    if (sd == 0.0) {
        *y = r;
    } else if (e->cfg.y_bound <= 0.0) {
        *y = r + sd * isdb_rng_normal(rng);
    } else if (b <= 0.0) {
        *y = r;
    } else if (b >= sd) {
        /* Normal proposals: accepted with probability above 0.68. */
        do u = sd * isdb_rng_normal(rng);
        while (!(fabs(u) <= b));
        *y = r + u;
    } else {
        /* Uniform proposals on [-b, b], accepted with the Gaussian density
           ratio (at least exp(-1/2)). */
        do u = b * (2.0 * isdb_rng_uniform(rng) - 1.0);
        while (!(isdb_rng_uniform(rng) < exp(-0.5 * u * u / (sd * sd))));
        *y = r + u;
    }
    return ISDB_OK;
}

static const isdb_env_vtable isdb__kernel_env_vt = {"kernel", isdb__kernel_env_next, isdb__kernel_env_reward, NULL};

ISDB__ONCE isdb_result isdb_kernel_env_config_check(const isdb_kernel_env_config *c, isdb_refusal *why) {
    int k;
    if (!(isdb__want_start(why) && isdb__want_ptr(why, c, "cfg") && isdb__want_sizes(why, c->d, c->n_arms, "n_arms") &&
          isdb__want_int(why, c->n_arms, "n_arms", 1, ISDB__OPKB_MAX_ARMS, "[1, 4096]") &&
          isdb__want_inputs(why, c->arms, c->n_arms * c->d, "arms", 1) &&
          isdb__want_scale(why, c->amplitude, "amplitude") && isdb__want_scale(why, c->noise_sd, "noise_sd") &&
          isdb__want_nonneg(why, c->y_bound, "y_bound") &&
          isdb__want_int(why, (int)c->kind, "kind", ISDB_KENV_GP_SWITCH, ISDB_KENV_COSINE, "an isdb_kernel_env_kind")))
        return ISDB_ERR_INVALID_ARG;
    if (c->kind == ISDB_KENV_GP_SWITCH) {
        if (!(isdb__want_int(why, (int)c->kernel, "kernel", ISDB_KERNEL_LINEAR, ISDB_KERNEL_GRAM, "an isdb_kernel") &&
              (c->kernel != ISDB_KERNEL_GRAM ||
               isdb__want(why, c->gram && isdb__all_finite(c->gram, c->n_arms * c->n_arms), "gram",
                          "non-NULL, finite")) &&
              ((c->kernel != ISDB_KERNEL_RBF && c->kernel != ISDB_KERNEL_MATERN52) ||
               isdb__want_real(why, c->length_scale, "length_scale", ISDB__LENGTH_SCALE_MIN, ISDB__REAL_MAX, 0,
                               "[1e-150, DBL_MAX]")) &&
              isdb__want_count(why, c->n_switches, "n_switches") &&
              (c->n_switches == 0 || isdb__want_ptr(why, c->switch_at, "switch_at"))))
            return ISDB_ERR_INVALID_ARG;
        for (k = 1; k < c->n_switches; ++k)
            if (!isdb__want(why, c->switch_at[k] > c->switch_at[k - 1], "switch_at", "increasing"))
                return ISDB_ERR_INVALID_ARG;
        return ISDB_OK;
    }
    if (!(isdb__want_finite(why, c->freq, "freq") && isdb__want_count(why, c->n_phase, "n_phase") &&
          (c->n_phase == 0 || (isdb__want_ptr(why, c->phase_at, "phase_at") &&
                               isdb__want(why, c->phase && isdb__all_finite(c->phase, c->n_phase), "phase",
                                          "non-NULL, finite")))))
        return ISDB_ERR_INVALID_ARG;
    for (k = 1; k < c->n_phase; ++k)
        if (!isdb__want(why, c->phase_at[k] >= c->phase_at[k - 1], "phase_at", "non-decreasing"))
            return ISDB_ERR_INVALID_ARG;
    return ISDB_OK;
}

/* Carves (or with heap NULL measures) the heap of a checked config: 0
   if it does not fit. The scratch holds K and its eigendecomposition
   while m is drawn. */
ISDB__COLD_PRIVATE size_t isdb__kernel_env_layout(const isdb_kernel_env_config *cfg, isdb_kernel_env *env, void *heap,
                                                  double **scratch) {
    isdb__arena a;
    int N = cfg->n_arms, d = cfg->d, gp = cfg->kind == ISDB_KENV_GP_SWITCH;
    memset(&a, 0, sizeof a);
    a.base = (unsigned char *)heap;
    env->base.X = isdb__take_f64(&a, N * d);
    env->base.means = isdb__take_f64(&a, N);
    env->f = isdb__take_f64(&a, N);
    env->theta = isdb__take_f64(&a, d);
    env->cfg.switch_at = (const uint64_t *)isdb__take(&a, gp ? cfg->n_switches : 0, sizeof(uint64_t));
    env->cfg.phase_at = (const uint64_t *)isdb__take(&a, gp ? 0 : cfg->n_phase, sizeof(uint64_t));
    env->cfg.phase = isdb__take_f64(&a, gp ? 0 : cfg->n_phase);
    *scratch = isdb__take_f64(&a, gp ? 3 * N * N + N : 0);
    return a.overflow ? 0 : a.used;
}

ISDB__COLD isdb_result isdb_kernel_env_heap_size(const isdb_kernel_env_config *cfg, size_t *bytes) {
    isdb_kernel_env probe;
    double *scratch;
    if (!bytes || isdb_kernel_env_config_check(cfg, NULL) != ISDB_OK) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__kernel_env_layout(cfg, &probe, NULL, &scratch);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

ISDB__COLD isdb_result isdb_kernel_env_init_preallocated(const isdb_kernel_env_config *cfg, void *heap,
                                                         size_t heap_bytes, isdb_kernel_env *env) {
    size_t bytes;
    isdb_result r = env ? isdb_kernel_env_heap_size(cfg, &bytes) : ISDB_ERR_INVALID_ARG;
    isdb_rng rng;
    double *scratch = NULL;
    int N, d, i, gp;
    if (r == ISDB_OK) r = isdb_init_check(heap, heap_bytes, bytes, env, NULL);
    if (r != ISDB_OK) return isdb__refused(env, sizeof *env, r);
    memset(env, 0, sizeof *env);
    N = cfg->n_arms;
    d = cfg->d;
    gp = cfg->kind == ISDB_KENV_GP_SWITCH;
    env->cfg = *cfg;
    isdb__kernel_env_layout(cfg, env, heap, &scratch);
    if (gp && cfg->n_switches > 0)
        memcpy(isdb__unconst(env->cfg.switch_at), cfg->switch_at, (size_t)cfg->n_switches * sizeof(uint64_t));
    if (!gp && cfg->n_phase > 0) {
        memcpy(isdb__unconst(env->cfg.phase_at), cfg->phase_at, (size_t)cfg->n_phase * sizeof(uint64_t));
        isdb__copy(cfg->n_phase, cfg->phase, (double *)isdb__unconst(env->cfg.phase));
    }
    if (gp) {
        env->cfg.phase_at = NULL;
        env->cfg.phase = NULL;
        env->cfg.n_phase = 0;
    } else {
        env->cfg.switch_at = NULL;
        env->cfg.n_switches = 0;
    }
    isdb_rng_seed(&rng, cfg->seed);
    if (cfg->arms)
        isdb__copy(N * d, cfg->arms, env->base.X);
    else
        for (i = 0; i < N; ++i) isdb__sphere_point(&rng, d, env->base.X + i * d);
    env->cfg.arms = env->base.X;
    env->cfg.gram = NULL;
    isdb__zero(d, env->theta);
    if (gp) {
        /* m = U diag(sqrt(max(w, 0))) z with K = U diag(w) U^T, z ~ N(0, I). */
        double *K = scratch, *V = K + N * N, *w = V + N * N, *z = w + N, big = 0.0;
        if (cfg->kernel == ISDB_KERNEL_GRAM)
            isdb__copy(N * N, cfg->gram, K);
        else
            r = isdb_kernel_gram(cfg->kernel, cfg->length_scale, N, d, env->base.X, K);
        if (r == ISDB_OK) r = isdb_sym_eig(N, K, w, V);
        if (r < 0) return isdb__refused(env, sizeof *env, r);
        for (i = 0; i < N; ++i) z[i] = isdb_rng_normal(&rng) * sqrt(w[i] > 0.0 ? w[i] : 0.0);
        for (i = 0; i < N; ++i) {
            env->f[i] = isdb__dot(N, V + i * N, z);
            if (fabs(env->f[i]) > big) big = fabs(env->f[i]);
        }
        for (i = 0; i < N; ++i) env->f[i] = big > 0.0 ? env->f[i] * cfg->amplitude / big : 0.0;
    } else {
        isdb__sphere_point(&rng, d, env->theta);
        for (i = 0; i < N; ++i) env->f[i] = isdb__dot(d, env->base.X + i * d, env->theta);
    }
    isdb__env_base_init(&env->base, &isdb__kernel_env_vt, d, N, cfg->seed, heap);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__kernel_env_setup(const void *cfg, void *heap, size_t heap_bytes, void *env) {
    return isdb_kernel_env_init_preallocated((const isdb_kernel_env_config *)cfg, heap, heap_bytes,
                                             (isdb_kernel_env *)env);
}

ISDB__COLD isdb_result isdb_kernel_env_init(const isdb_kernel_env_config *cfg, const isdb_allocator *alloc,
                                 isdb_kernel_env *env) {
    size_t bytes;
    isdb_result r = env ? isdb_kernel_env_heap_size(cfg, &bytes) : ISDB_ERR_INVALID_ARG;
    if (r != ISDB_OK) return isdb__refused(env, sizeof *env, r);
    return isdb__init_owned(&env->base._alloc, &env->base._owns_heap, sizeof *env, bytes, alloc,
                            isdb__kernel_env_setup, cfg, env);
}

#endif /* ISDB__HAS_OPKB */
#if ISDB__HAS_OAM
/* ---------------------------------------------------------------------------
   Finitely many contexts with fixed action sets (Hao et al. section 5)
   ------------------------------------------------------------------------ */

ISDB__ONCE isdb_context_env_config isdb_context_env_config_init(int d, int n_arms, int n_contexts) {
    isdb_context_env_config c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.n_arms = n_arms;
    c.n_contexts = n_contexts;
    c.seed = 1;
    c.noise_sd = 1.0;
    return c;
}

ISDB__ONCE isdb_result isdb_context_env_config_check(const isdb_context_env_config *c, isdb_refusal *why) {
    int m;
    double sum = 0.0;
    if (!(isdb__want_start(why) && isdb__want_ptr(why, c, "cfg") && isdb__want_sizes(why, c->d, c->n_arms, "n_arms") &&
          isdb__want_int(why, c->n_contexts, "n_contexts", 1, INT_MAX / (c->n_arms * c->d),
                         "[1, INT_MAX / (n_arms d)]") &&
          isdb__want_scale(why, c->noise_sd, "noise_sd") &&
          isdb__want_inputs(why, c->arms, c->n_contexts * c->n_arms * c->d, "arms", 0) &&
          isdb__want_inputs(why, c->theta, c->d, "theta", 0)))
        return ISDB_ERR_INVALID_ARG;
    if (!c->probs) return ISDB_OK;
    for (m = 0; m < c->n_contexts; ++m) {
        if (!isdb__want_nonneg(why, c->probs[m], "probs")) return ISDB_ERR_INVALID_ARG;
        sum += c->probs[m];
    }
    return isdb__checked(isdb__want(why, sum > 0.0 && isdb__finite(sum), "probs", "values >= 0, finite positive sum"));
}

ISDB__PRIVATE isdb_result isdb__context_env_next(isdb_env *be) {
    isdb_context_env *e = (isdb_context_env *)be;
    int k, m = 0, d = be->d, K = be->n_arms;
    double u = isdb_rng_uniform(&be->rng);
    while (m < e->cfg.n_contexts - 1 && !(u < e->_cdf[m])) ++m;
    e->context = m;
    isdb__copy(K * d, e->cfg.arms + m * K * d, be->X);
    for (k = 0; k < K; ++k) be->means[k] = isdb__dot(d, be->X + k * d, e->cfg.theta);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__context_env_reward(isdb_env *be, int arm, double *y) {
    isdb_context_env *e = (isdb_context_env *)be;
    *y = be->means[arm] + e->cfg.noise_sd * isdb_rng_normal(&be->noise_rng);
    return ISDB_OK;
}

ISDB__COLD_PRIVATE void isdb__context_env_reset(isdb_env *be) { ((isdb_context_env *)be)->context = -1; }

static const isdb_env_vtable isdb__context_env_vt = {"contexts", isdb__context_env_next, isdb__context_env_reward,
                                                      isdb__context_env_reset};

/* Carves (or with heap NULL measures) the heap of a checked config: 0
   if it does not fit. */
ISDB__COLD_PRIVATE size_t isdb__context_env_layout(const isdb_context_env_config *cfg, isdb_context_env *env,
                                                   void *heap, double **arms, double **theta) {
    isdb__arena a;
    int d = cfg->d, K = cfg->n_arms, M = cfg->n_contexts;
    memset(&a, 0, sizeof a);
    a.base = (unsigned char *)heap;
    env->base.X = isdb__take_f64(&a, K * d);
    env->base.means = isdb__take_f64(&a, K);
    *arms = isdb__take_f64(&a, M * K * d);
    *theta = isdb__take_f64(&a, d);
    env->_cdf = isdb__take_f64(&a, M);
    return a.overflow ? 0 : a.used;
}

ISDB__COLD isdb_result isdb_context_env_heap_size(const isdb_context_env_config *cfg, size_t *bytes) {
    isdb_context_env probe;
    double *arms, *theta;
    if (!bytes || isdb_context_env_config_check(cfg, NULL) != ISDB_OK) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__context_env_layout(cfg, &probe, NULL, &arms, &theta);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

ISDB__COLD isdb_result isdb_context_env_init_preallocated(const isdb_context_env_config *cfg, void *heap,
                                                          size_t heap_bytes, isdb_context_env *env) {
    size_t bytes;
    isdb_result r = env ? isdb_context_env_heap_size(cfg, &bytes) : ISDB_ERR_INVALID_ARG;
    int d, K, M, m, last = 0;
    double sum = 0.0, acc = 0.0;
    double *arms = NULL, *theta = NULL;
    if (r == ISDB_OK) r = isdb_init_check(heap, heap_bytes, bytes, env, NULL);
    if (r != ISDB_OK) return isdb__refused(env, sizeof *env, r);
    memset(env, 0, sizeof *env);
    d = cfg->d;
    K = cfg->n_arms;
    M = cfg->n_contexts;
    isdb__context_env_layout(cfg, env, heap, &arms, &theta);
    env->cfg = *cfg;
    isdb__copy(M * K * d, cfg->arms, arms);
    isdb__copy(d, cfg->theta, theta);
    env->cfg.arms = arms;
    env->cfg.theta = theta;
    env->cfg.probs = NULL;
    for (m = 0; m < M; ++m) {
        double q = cfg->probs ? cfg->probs[m] : 1.0;
        sum += q;
        if (q > 0.0) last = m;
    }
    for (m = 0; m < M; ++m) {
        acc += cfg->probs ? cfg->probs[m] : 1.0;
        /* The last context of positive probability closes the interval. */
        env->_cdf[m] = m >= last ? 1.0 : acc / sum;
    }
    isdb__env_base_init(&env->base, &isdb__context_env_vt, d, K, cfg->seed, heap);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__context_env_setup(const void *cfg, void *heap, size_t heap_bytes, void *env) {
    return isdb_context_env_init_preallocated((const isdb_context_env_config *)cfg, heap, heap_bytes,
                                              (isdb_context_env *)env);
}

ISDB__COLD isdb_result isdb_context_env_init(const isdb_context_env_config *cfg, const isdb_allocator *alloc,
                                  isdb_context_env *env) {
    size_t bytes;
    isdb_result r = env ? isdb_context_env_heap_size(cfg, &bytes) : ISDB_ERR_INVALID_ARG;
    if (r != ISDB_OK) return isdb__refused(env, sizeof *env, r);
    return isdb__init_owned(&env->base._alloc, &env->base._owns_heap, sizeof *env, bytes, alloc,
                            isdb__context_env_setup, cfg, env);
}

#endif /* ISDB__HAS_OAM */
#if ISDB__HAS_TRACEUCB
/* ---------------------------------------------------------------------------
   Active-learning environment (Trace-UCB's setting)
   ------------------------------------------------------------------------ */

ISDB__ONCE isdb_active_env_config isdb_active_env_config_init(int d, int m) {
    isdb_active_env_config c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.m = m;
    c.seed = 1;
    return c;
}

ISDB__PRIVATE isdb_result isdb__active_env_next(isdb_env *be) {
    isdb_active_env *e = (isdb_active_env *)be;
    int i, j, d = be->d;
    double *x = be->X;
    for (i = 0; i < d; ++i) e->_z[i] = isdb_rng_normal(&be->rng);
    for (i = 0; i < d; ++i) {
        double s = 0.0;
        for (j = 0; j <= i; ++j) s += e->_chol[i * d + j] * e->_z[j];
        x[i] = s;
    }
    for (i = 0; i < be->n_arms; ++i) {
        if (i > 0) isdb__copy(d, x, be->X + i * d);
        be->means[i] = isdb__dot(d, x, e->beta + i * d);
    }
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__active_env_reward(isdb_env *be, int arm, double *y) {
    isdb_active_env *e = (isdb_active_env *)be;
    *y = be->means[arm] + e->_noise_sd[arm] * isdb_rng_normal(&be->noise_rng);
    return ISDB_OK;
}

/* After the generic reset reseeded the generators: draw the parameters. */
ISDB__COLD_PRIVATE void isdb__active_env_reset(isdb_env *be) {
    isdb_active_env *e = (isdb_active_env *)be;
    int i;
    if (!e->cfg.beta)
        for (i = 0; i < be->n_arms * be->d; ++i) e->beta[i] = isdb_rng_normal(&be->rng);
}

static const isdb_env_vtable isdb__active_env_vt = {"active", isdb__active_env_next, isdb__active_env_reward,
                                                    isdb__active_env_reset};

ISDB__ONCE isdb_result isdb_active_env_config_check(const isdb_active_env_config *c, isdb_refusal *why) {
    int i;
    if (!(isdb__want_start(why) && isdb__want_ptr(why, c, "cfg") && isdb__want_sizes(why, c->d, c->m, "m") &&
          isdb__want_inputs(why, c->Sigma, c->d * c->d, "Sigma", 1) &&
          isdb__want_inputs(why, c->beta, c->m * c->d, "beta", 1)))
        return ISDB_ERR_INVALID_ARG;
    if (c->noise_var)
        for (i = 0; i < c->m; ++i)
            if (!isdb__want_scale(why, c->noise_var[i], "noise_var"))
                return ISDB_ERR_INVALID_ARG;
    return ISDB_OK;
}

/* Carves (or with heap NULL measures) the heap of a checked config: 0
   if it does not fit. */
ISDB__COLD_PRIVATE size_t isdb__active_env_layout(const isdb_active_env_config *cfg, isdb_active_env *env,
                                                  void *heap) {
    isdb__arena a;
    int d = cfg->d, m = cfg->m;
    memset(&a, 0, sizeof a);
    a.base = (unsigned char *)heap;
    env->base.X = isdb__take_f64(&a, m * d);
    env->base.means = isdb__take_f64(&a, m);
    env->beta = isdb__take_f64(&a, m * d);
    env->_chol = isdb__take_f64(&a, d * d);
    env->_noise_sd = isdb__take_f64(&a, m);
    env->_z = isdb__take_f64(&a, d);
    return a.overflow ? 0 : a.used;
}

ISDB__COLD isdb_result isdb_active_env_heap_size(const isdb_active_env_config *cfg, size_t *bytes) {
    isdb_active_env probe;
    if (!bytes || isdb_active_env_config_check(cfg, NULL) != ISDB_OK) return ISDB_ERR_INVALID_ARG;
    *bytes = isdb__active_env_layout(cfg, &probe, NULL);
    return *bytes ? ISDB_OK : ISDB_ERR_INVALID_ARG;
}

ISDB__COLD isdb_result isdb_active_env_init_preallocated(const isdb_active_env_config *cfg, void *heap,
                                                         size_t heap_bytes, isdb_active_env *env) {
    size_t bytes;
    isdb_result r = env ? isdb_active_env_heap_size(cfg, &bytes) : ISDB_ERR_INVALID_ARG;
    int d, m, i;
    if (r == ISDB_OK) r = isdb_init_check(heap, heap_bytes, bytes, env, NULL);
    if (r != ISDB_OK) return isdb__refused(env, sizeof *env, r);
    d = cfg->d;
    m = cfg->m;
    memset(env, 0, sizeof *env);
    isdb__active_env_layout(cfg, env, heap);
    if (cfg->Sigma)
        isdb__copy(d * d, cfg->Sigma, env->_chol);
    else
        isdb__identity(d, env->_chol, 1.0);
    if ((r = isdb_chol(d, env->_chol)) != ISDB_OK) return isdb__refused(env, sizeof *env, r);
    for (i = 0; i < m; ++i) env->_noise_sd[i] = cfg->noise_var ? sqrt(cfg->noise_var[i]) : 1.0;
    env->cfg = *cfg;
    env->cfg.Sigma = NULL;
    env->cfg.noise_var = NULL;
    if (cfg->beta) isdb__copy(m * d, cfg->beta, env->beta);
    env->cfg.beta = cfg->beta ? env->beta : NULL;
    isdb__env_base_init(&env->base, &isdb__active_env_vt, d, m, cfg->seed, heap);
    return ISDB_OK;
}

ISDB__PRIVATE isdb_result isdb__active_env_setup(const void *cfg, void *heap, size_t heap_bytes, void *env) {
    return isdb_active_env_init_preallocated((const isdb_active_env_config *)cfg, heap, heap_bytes,
                                             (isdb_active_env *)env);
}

ISDB__COLD isdb_result isdb_active_env_init(const isdb_active_env_config *cfg, const isdb_allocator *alloc,
                                 isdb_active_env *env) {
    size_t bytes;
    isdb_result r = env ? isdb_active_env_heap_size(cfg, &bytes) : ISDB_ERR_INVALID_ARG;
    if (r != ISDB_OK) return isdb__refused(env, sizeof *env, r);
    return isdb__init_owned(&env->base._alloc, &env->base._owns_heap, sizeof *env, bytes, alloc,
                            isdb__active_env_setup, cfg, env);
}
#endif /* ISDB__HAS_TRACEUCB */
#endif /* !ISDB_REAL_IS_FLOAT */

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

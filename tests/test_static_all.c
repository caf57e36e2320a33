/* ISDB_STATIC with every policy of the policy table in one program, built
   at -Os by make test (where gcc 12 warned -Wmaybe-uninitialized about
   the ISD fit before it was fixed): the optimiser's flow analysis must
   find nothing to warn about however much of the private copy of the
   library it inlines. Each policy runs 50 rounds. The private copy is
   linked beside an extern one (tests/impl.c, the gcc-c99 tests' impl.o)
   that test_two_tu_b.c uses: no symbol may clash. */
#define ISDB_STATIC
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "test.h"
#include "cases.h"

int two_tu_run_b(void);

int main(void) {
    static storage mem;
    double X[64 * 8];
    isdb_rng rng;
    int c, t;
    isdb_rng_seed(&rng, 1);
    for (c = 0; c < N_CASES; ++c) {
        isdb_policy *p = (isdb_policy *)&mem;
        CHECK_OK(cases[c].make(NULL, cases[c].d, cases[c].max_arms, &mem));
        for (t = 0; t < 50; ++t) {
            int n, arm = 0;
            case_round(&rng, &cases[c], cases[c].d, cases[c].max_arms, &n, X);
            CHECK_OK(isdb_policy_select(p, X, n, &arm));
            CHECK_OK(isdb_policy_update(p, arm, X + arm * cases[c].d, isdb_rng_normal(&rng)));
        }
        isdb_policy_uninit(p);
    }
    CHECK(two_tu_run_b() == 1);
    return test_report();
}

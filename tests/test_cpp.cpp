// The header in C++11: included once plainly (declarations only), then
// again with the implementation, the way a C++ project would; a short run
// of every policy through the generic interface.
#include "../isdbandit.h"
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "test.h"

static void run(isdb_policy *p, int d) {
    isdb_rng rng;
    isdb_real X[4 * 8];
    int t, arm = -1;
    isdb_rng_seed(&rng, 9);
    for (t = 0; t < 100; ++t) {
        for (int i = 0; i < 4 * d; ++i) X[i] = isdb_rng_normal(&rng);
        CHECK_OK(isdb_policy_select(p, X, 4, &arm));
        CHECK(arm >= 0 && arm < 4);
        CHECK_OK(isdb_policy_update(p, arm, X + arm * d, X[arm * d]));
    }
    CHECK(p->t == 100);
    isdb_policy_uninit(p);
}

// Config fields that take an enum's values have the enum's type (1.0): an
// overload on the enum is chosen over one on int.
static int typed(isdb_adaptive_cut) { return 1; }
static int typed(isdb_adaptive_noise) { return 2; }
#if !ISDB_REAL_IS_FLOAT
static int typed(isdb_isd_rule) { return 3; }
static int typed(isdb_isd_selection) { return 4; }
#endif
static int typed(int) { return 0; }

int main() {
    const int d = 3;
    isdb_linucb a;
    isdb_swucb b;
    isdb_dlinucb c;
    isdb_lints e;
    isdb_linucb_config ca = isdb_linucb_config_init(d, 4);
    isdb_swucb_config cb = isdb_swucb_config_init(d, 4, 10);
    isdb_dlinucb_config cc = isdb_dlinucb_config_init(d, 4, 0.99);
    isdb_lints_config ce = isdb_lints_config_init(d, 4);
    CHECK_OK(isdb_linucb_init(&ca, NULL, &a));
    run(&a.base, d);
    CHECK_OK(isdb_swucb_init(&cb, NULL, &b));
    run(&b.base, d);
    CHECK_OK(isdb_dlinucb_init(&cc, NULL, &c));
    run(&c.base, d);
    CHECK_OK(isdb_lints_init(&ce, NULL, &e));
    run(&e.base, d);
    {
        isdb_adaptive_config cf = isdb_adaptive_config_init(d, 4);
        CHECK(typed(cf.cut) == 1 && typed(cf.noise_estimate) == 2 && typed(cf.hold) == 0);
        cf.cut = ISDB_ADAPTIVE_CUT_FULL; // an int needs a cast in C++: (isdb_adaptive_cut)2
        CHECK(cf.cut == static_cast<isdb_adaptive_cut>(2));
#if !ISDB_REAL_IS_FLOAT
        isdb_isd_options o = isdb_isd_options_init();
        CHECK(typed(o.rule) == 3 && typed(o.one_se) == 4);
#endif
    }
    return test_report();
}

/* ISDB_STATIC with the other compile-time options: ISDB_ONLY_DLINUCB
   (the policies left out are not declared either, so -Wall finds no
   static declaration without a definition), a custom ISDB_MALLOC/ISDB_FREE
   pair, ISDB_ASSERT and ISDB_NO_SIM. The private copy is linked beside an
   extern one (tests/impl.c, the gcc-c99 tests' impl.o) that
   test_two_tu_b.c uses, as test_static_all.c's whole copy is. */
#include <stdlib.h>

static long static_allocs;
static void *counted_malloc(size_t n) {
    ++static_allocs;
    return malloc(n);
}

#define ISDB_STATIC
#define ISDB_ONLY_DLINUCB
#define ISDB_NO_SIM
#define ISDB_MALLOC(n) counted_malloc(n)
#define ISDB_FREE(p) free(p)
#define ISDB_ASSERT(x) ((void)0)
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "test.h"

int two_tu_run_b(void);

int main(void) {
    isdb_dlinucb pol;
    isdb_dlinucb_config c = isdb_dlinucb_config_init(2, 2, 0.9);
    double X[4] = {1, 0, 0, 1};
    int arm = -1;
    CHECK_OK(isdb_dlinucb_init(&c, NULL, &pol));
    CHECK(static_allocs == 1);
    CHECK_OK(isdb_policy_select(&pol.base, X, 2, &arm));
    CHECK_OK(isdb_policy_update(&pol.base, arm, X + 2 * arm, 1.0));
    isdb_policy_uninit(&pol.base);
    CHECK(two_tu_run_b() == 1);
    return test_report();
}

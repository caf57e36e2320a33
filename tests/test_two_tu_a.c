/* Two translation units linked together: this one holds the
   implementation (of the two policies they use; test_static_all links
   the whole library's private copy with test_two_tu_b.c),
   test_two_tu_b.c only includes the header. */
#define ISDB_ONLY_LINUCB
#define ISDB_ONLY_SWUCB
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"
#include "test.h"

#include <string.h>

int two_tu_run_b(void);

int main(void) {
    isdb_linucb pol;
    isdb_linucb_config c = isdb_linucb_config_init(2, 3);
    CHECK_OK(isdb_linucb_init(&c, NULL, &pol));
    CHECK(strcmp(isdb_policy_name(&pol.base), "linucb") == 0);
    isdb_policy_uninit(&pol.base);
    CHECK(two_tu_run_b() == 1);
    return test_report();
}

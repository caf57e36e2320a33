/* The second translation unit: declarations only. */
#include "../isdbandit.h"

int two_tu_run_b(void);

int two_tu_run_b(void) {
    isdb_swucb pol;
    isdb_swucb_config c = isdb_swucb_config_init(2, 3, 4);
    double X[6] = {1, 0, 0, 1, 0.5, 0.5};
    int arm = -1, t, ok = 1;
    if (isdb_swucb_init(&c, NULL, &pol) != ISDB_OK) return 0;
    for (t = 0; t < 20; ++t) {
        if (isdb_policy_select(&pol.base, X, 3, &arm) != ISDB_OK) ok = 0;
        if (isdb_policy_update(&pol.base, arm, X + 2 * arm, 1.0) != ISDB_OK) ok = 0;
    }
    isdb_policy_uninit(&pol.base);
    return ok;
}

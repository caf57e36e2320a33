/* save_restore.c - snapshotting a policy to a file and resuming it with
   nothing else at hand: the file says what it holds
   (isdb_snapshot_read_info) and gives back the config
   (isdb_lints_config_from_snapshot), and the resumed policy makes exactly
   the choices the original would have made (the snapshot holds the whole
   state, random generator included).
   Usage: save_restore [file]; the file (default lints.snapshot in the
   current directory) is written, read back, and removed at the end. */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <stdio.h>
#include <stdlib.h>

#define D 3
#define K 4

static void round_features(int t, isdb_real *X) {
    isdb_rng rng;
    int i;
    isdb_rng_seed(&rng, (uint64_t)t); /* round t's arms, reproducible */
    for (i = 0; i < K * D; ++i) X[i] = isdb_rng_normal(&rng);
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "lints.snapshot";
    isdb_lints a, b;
    isdb_lints_config cfg = isdb_lints_config_init(D, K), saved;
    isdb_snapshot_info info;
    isdb_real X[K * D];
    unsigned char *buf;
    size_t size;
    long file_size;
    FILE *f;
    int t, arm_a, arm_b, same = 1;
    cfg.seed = 123;
    if (isdb_lints_init(&cfg, NULL, &a) != ISDB_OK) return 1;
    for (t = 0; t < 100; ++t) {
        round_features(t, X);
        isdb_policy_select(&a.base, X, K, &arm_a);
        isdb_policy_update(&a.base, arm_a, X + arm_a * D, X[arm_a * D]);
    }
    /* Save: ask for the size, then write. */
    isdb_policy_save(&a.base, NULL, 0, &size);
    buf = (unsigned char *)malloc(size);
    if (!buf || isdb_policy_save(&a.base, buf, size, &size) != ISDB_OK) return 1;
    f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, size, f) != size) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    fclose(f);
    free(buf);
    /* Resume from the file alone: its size, what it holds, its config. */
    f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0 || (file_size = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0) return 1;
    size = (size_t)file_size;
    buf = (unsigned char *)malloc(size);
    if (!buf || fread(buf, 1, size, f) != size) return 1;
    fclose(f);
    if (isdb_snapshot_read_info(buf, size, &info) != ISDB_OK || info.kind != ISDB_POLICY_LINTS) {
        fprintf(stderr, "%s is not a LinTS snapshot this library reads\n", path);
        return 1;
    }
    if (isdb_lints_config_from_snapshot(buf, size, &saved) != ISDB_OK || isdb_lints_init(&saved, NULL, &b) != ISDB_OK ||
        isdb_policy_load(&b.base, buf, size) != ISDB_OK)
        return 1;
    printf("%s: %s, d = %d, %d arms, %llu updates, written by %u.%u.%u\n", path, isdb_policy_kind_name(info.kind),
           info.d, info.max_arms, (unsigned long long)info.t, (unsigned)(info.library_version >> 16),
           (unsigned)(info.library_version >> 8 & 0xff), (unsigned)(info.library_version & 0xff));
    for (t = 100; t < 200; ++t) {
        round_features(t, X);
        isdb_policy_select(&a.base, X, K, &arm_a);
        isdb_policy_select(&b.base, X, K, &arm_b);
        same &= arm_a == arm_b;
        isdb_policy_update(&a.base, arm_a, X + arm_a * D, X[arm_a * D]);
        isdb_policy_update(&b.base, arm_b, X + arm_b * D, X[arm_b * D]);
    }
    remove(path);
    printf("wrote a snapshot of %zu bytes to %s, resumed from it, then removed it;\n"
           "resumed run %s the original\n",
           size, path, same ? "chose exactly as" : "DIFFERED from");
    free(buf);
    isdb_policy_uninit(&a.base);
    isdb_policy_uninit(&b.base);
    return same ? 0 : 1;
}

/* fuzz_replay.c - runs a fuzz target's LLVMFuzzerTestOneInput on files,
   without libFuzzer: `make sanitize` replays the seed corpus in
   tests/corpus/ this way with gcc, so the targets keep building and their
   findings stay fixed. Prints "N passed, 0 failed" (N files); a broken
   invariant aborts.
   usage: fuzz_replay FILE... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    int i;
    for (i = 1; i < argc; ++i) {
        FILE *f = fopen(argv[i], "rb");
        unsigned char *buf;
        long n;
        if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
            fprintf(stderr, "fuzz_replay: cannot read %s\n", argv[i]);
            return 1;
        }
        buf = (unsigned char *)malloc((size_t)n + 1);
        if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
            fprintf(stderr, "fuzz_replay: cannot read %s\n", argv[i]);
            return 1;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(buf, (size_t)n);
        free(buf);
    }
    printf("%d passed, 0 failed\n", argc - 1);
    return 0;
}

/* host.c - the platform of the embedded programs on the host: stdout. */
#include <stdio.h>
#include <stdlib.h>

#include "emb.h"

void emb_write(const char *s) { fputs(s, stdout); }

void emb_assert_failed(int line) {
    fprintf(stderr, "ISDB_ASSERT failed at isdbandit.h:%d\n", line);
    exit(3);
}

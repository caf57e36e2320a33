/* no_malloc.c - running without an allocator, as in firmware: ask the
   policy how many bytes it needs, hand it a static buffer, and nothing is
   ever allocated (select and update never allocate in any case). */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

#include <stdio.h>

#define D 4
#define K 3
#define WINDOW 64

/* Aligned for doubles; sized generously, checked below. */
static union {
    double align;
    unsigned char bytes[64 * 1024];
} heap;

int main(void) {
    static const isdb_real X[K * D] = {1, 0, 0, 0, 0, 1, 0, 0, 0.5, 0.5, 0.5, 0.5};
    isdb_swucb pol;
    isdb_swucb_config cfg = isdb_swucb_config_init(D, K, WINDOW);
    size_t need;
    int t, arm;
    isdb_swucb_heap_size(&cfg, &need);
    printf("SW-UCB with d=%d, window %d needs %zu bytes; the buffer has %zu\n", D, WINDOW, need, sizeof heap.bytes);
    /* The buffer's size is passed too: a buffer too small for the config
       is refused (ISDB_ERR_BUFFER_TOO_SMALL), never overrun. */
    if (isdb_swucb_init_preallocated(&cfg, heap.bytes, sizeof heap.bytes, &pol) != ISDB_OK) return 1;
    for (t = 0; t < 500; ++t) {
        isdb_policy_select(&pol.base, X, K, &arm);
        /* arm 1 is best for the first half, arm 0 afterwards */
        isdb_policy_update(&pol.base, arm, X + arm * D, (arm == (t < 250 ? 1 : 0)) ? 1.0 : 0.2);
    }
    isdb_policy_select(&pol.base, X, K, &arm);
    printf("after the switch the window has moved on: it now plays arm %d\n", arm);
    isdb_policy_uninit(&pol.base); /* frees nothing: the buffer is ours */
    return 0;
}

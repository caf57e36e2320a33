/* The extern implementation that test_two_tu_b.c links against when it
   is built beside test_static.c's private static copy. */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

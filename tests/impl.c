/* The implementation, compiled once per compiler and standard; the test
   programs that use only the public API link against it. */
#define ISDB_IMPLEMENTATION
#include "../isdbandit.h"

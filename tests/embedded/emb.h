/* emb.h - what the embedded programs share: the library options a
   firmware sets, the text output their platform provides (semihosting on
   the board, stdout on the host: startup.c or host.c), and a generator of
   inputs that is exact in float and double alike, so that the board and
   the host feed the policies bit-identical numbers. */
#ifndef EMB_H
#define EMB_H

#include <ctype.h> /* newlib's defines _U _L _N _S _P _C _X _B: the header must not care */
#include <stdint.h>
#include <string.h>

/* Writes a NUL-terminated string. */
void emb_write(const char *s);
/* Reports a failed ISDB_ASSERT and ends the program with a failure. */
void emb_assert_failed(int line);

/* A firmware build: no simulator, no malloc, no <assert.h>, and a private
   (static) copy of the library so the compiler can drop what is unused.
   ISDB_REAL comes from the command line (float or double). */
#define ISDB_NO_SIM
#define ISDB_NO_MALLOC
#define ISDB_STATIC
#define ISDB_ASSERT(x) ((x) ? (void)0 : emb_assert_failed(__LINE__))

#if defined(__GNUC__)
#define EMB_FN static __attribute__((unused))
#else
#define EMB_FN static
#endif

EMB_FN void emb_write_uint(unsigned long v) {
    char buf[24];
    int i = (int)sizeof buf - 1;
    buf[i] = '\0';
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    emb_write(buf + i);
}

EMB_FN void emb_write_hex(uint64_t v, int digits) {
    static const char hex[] = "0123456789abcdef";
    char buf[19];
    int i;
    buf[0] = '0';
    buf[1] = 'x';
    for (i = 0; i < digits; ++i) buf[2 + i] = hex[(v >> (4 * (digits - 1 - i))) & 15u];
    buf[2 + digits] = '\0';
    emb_write(buf);
}

/* xorshift32: an integer generator, identical on every machine. */
EMB_FN uint32_t emb_next(uint32_t *s) {
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return x;
}

/* A multiple of 2^-15 in [-1, 1): exact in float and in double. */
#define EMB_UNIT(s) ((isdb_real)((int32_t)(emb_next(s) >> 16) - 32768) * (isdb_real)(1.0 / 32768.0))

#endif

/*
 * linevec.h - the fields of one canonical trace line at once, with
 * AVX-512 (VBMI2) where the processor has it. Not installed.
 *
 * The readers try this first on every line (vec_decode and vec_raw in
 * reader-int.h, for reader.c and parallel.c). It takes only the commonest
 * shape, and says no to everything else (the byte-by-byte parsers then
 * read the line as before):
 *
 *   - the line ends with '\n' within its first 64 bytes, and its other
 *     bytes are digits, blanks, '-' and '.';
 *   - fields are separated by one blank, or by a '.' (a number with
 *     decimals is two fields); no blank or dot at the line's start or
 *     end, none next to another;
 *   - a '-' stands only at the start of a field and is followed by a
 *     digit; not after a dot;
 *   - at most LINEVEC_FIELDS fields, each of 1-16 digits after its sign.
 *
 * Which fields are which (the time has decimals, a value has none) is the
 * caller's to check, with `dots` and `neg`.
 *
 * Its answer for such a line is exactly what a byte-by-byte reading of the
 * same digits gives (t/unit/test-linevec.c and fuzz-linevec compare the
 * two on lines of every shape; test-parallel and fuzz-parallel compare
 * the readers with it and without).
 */
#ifndef PICL_LINEVEC_H
#define PICL_LINEVEC_H

#include <stdint.h>

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

#define LINEVEC_FIELDS 16

struct linevec {
	uint64_t v[LINEVEC_FIELDS];    /* each field's digits, as a number */
	uint8_t start[LINEVEC_FIELDS]; /* offset of each field's first digit */
	uint8_t end[LINEVEC_FIELDS];   /* offset of the byte after it */
	uint32_t neg;                  /* bit i: field i starts with '-' */
	uint32_t dots;                 /* bit i: field i ends with '.' */
	uint32_t over8;                /* bit i: field i has over 8 digits */
	unsigned ndots;                /* bits set in dots */
	unsigned nfields;              /* fields (the time's two parts counted apart) */
	unsigned len;                  /* the line's length, newline excluded */
};

/* 1 if linevec_scan can be used on this processor (and the environment
 * variable PICL_SIMD is not "0"), else 0. Decided once. */
int linevec_available(void);

/* Read the line at s (64 bytes must be readable there) into *lv. Returns
 * 1 if the line has the shape above, else 0 (*lv is then undefined). Only
 * when linevec_available() says 1. */
int linevec_scan(const char *s, struct linevec *lv);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* PICL_LINEVEC_H */

/*
 * pow10.h - the powers of ten an int64_t holds, 10^0 to 10^18; not
 * installed.
 *
 * Timestamps are exact decimals (a mantissa and up to 18 decimals), and
 * whatever rescales them needs this table: time.c, stat's ticks, sort's
 * keys, sync's shifts. It was written out in each of them; this is the one
 * copy of its text. Each file that includes it still gets its own static
 * table (as before), so the compiler sees constants; include it only where
 * it is used, or -Wunused-const-variable complains.
 */
#ifndef PICL_POW10_H
#define PICL_POW10_H

#include <stdint.h>

static const int64_t pow10_tab[19] = {
	1LL, 10LL, 100LL, 1000LL, 10000LL, 100000LL, 1000000LL, 10000000LL,
	100000000LL, 1000000000LL, 10000000000LL, 100000000000LL,
	1000000000000LL, 10000000000000LL, 100000000000000LL,
	1000000000000000LL, 10000000000000000LL, 100000000000000000LL,
	1000000000000000000LL
};

#endif

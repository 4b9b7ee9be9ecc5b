/*
 * time.c - exact decimal timestamps (DESIGN.md point 5).
 *
 * A timestamp is kept as a 64-bit integer mantissa and a decimal scale:
 * "-0.715036" is -715036 * 10^-6. Parsing is by hand (no strtod, no locale)
 * and loses nothing; comparison widens both sides to 128 bits at the larger
 * scale, so times of different precision compare exactly; formatting writes
 * `scale` decimals, which gives back the digits a canonical file had.
 *
 * Grammar accepted by picl_time_parse:
 *     time     := sign? digits ('.' digits?)? exponent?
 *               | sign? '.' digits exponent?
 *     exponent := ('e' | 'E') sign? digits
 * At most 18 significant digits; the resulting scale must be 0..18 (an
 * exponent that leaves a negative scale is absorbed into the mantissa).
 * Zeros that end the decimals are kept while they fit 18 digits and 18
 * decimals, and dropped past that: a value is kept exactly or refused.
 */
#include "internal.h"
#include "pow10.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest mantissa: 18 digits, what the text form may carry (a time
 * with more could be computed but not written and read back). */
#define MANT_MAX 999999999999999999LL

static int mant_fits(__int128 m)
{
	return m <= MANT_MAX && m >= -MANT_MAX;
}

int picl_time_parse(const char *s, size_t len, struct picl_time *t, size_t *bad)
{
	size_t i = 0;
	int neg = 0, sig = 0, ndigits = 0, zeros = 0;
	int64_t mant = 0;
	int64_t scale = 0;

	if (!t || (!s && len > 0))
		return PICL_ERR_USAGE;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	for (; i < len && picl_is_digit((unsigned char)s[i]); i++, ndigits++) {
		if (mant == 0 && s[i] == '0')
			continue;
		if (++sig > 18)
			goto range;
		mant = mant * 10 + (s[i] - '0');
	}
	if (i < len && s[i] == '.') {
		/* Zeros after the last other decimal (`zeros` of them) are
		 * held back: they are digits to keep where they fit, not a
		 * reason to refuse an exact value ("1.0000000000000000000"). */
		for (i++; i < len && picl_is_digit((unsigned char)s[i]); i++, ndigits++) {
			scale++;
			if (mant == 0 && s[i] == '0')
				continue;
			if (s[i] == '0') {
				zeros++;
				continue;
			}
			sig += zeros + 1;
			if (sig > 18)
				goto range;
			for (; zeros > 0; zeros--)
				mant *= 10;
			mant = mant * 10 + (s[i] - '0');
		}
		scale -= zeros;
		for (; zeros > 0 && sig < 18; zeros--, sig++, scale++)
			mant *= 10;
	}
	if (ndigits == 0)
		goto syntax;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		int eneg = 0, edigits = 0;
		int64_t e = 0;

		i++;
		if (i < len && (s[i] == '-' || s[i] == '+'))
			eneg = s[i++] == '-';
		for (; i < len && picl_is_digit((unsigned char)s[i]); i++, edigits++)
			if (e < 100000)
				e = e * 10 + (s[i] - '0');
		if (edigits == 0)
			goto syntax;
		scale += eneg ? e : -e;
	}
	if (i != len)
		goto syntax;
	/* A negative scale is folded into the mantissa: 15e2 is 1500. */
	while (scale < 0) {
		if (mant > INT64_MAX / 10 || mant < INT64_MIN / 10)
			goto range;
		mant *= 10;
		scale++;
	}
	/* More than 18 decimals: drop the zeros that end the value ("10e-19"
	 * is 1e-18, "0.000e-20" is 0); only a value that needs them is out
	 * of range. */
	while (scale > PICL_TIME_MAX_SCALE && mant % 10 == 0) {
		mant /= 10;
		scale--;
	}
	if (scale > PICL_TIME_MAX_SCALE)
		goto range;
	if (!mant_fits(mant))   /* 1e18: 19 digits once written */
		goto range;
	t->mant = neg ? -mant : mant;
	t->scale = (int32_t)scale;
	return PICL_OK;
syntax:
	if (bad)
		*bad = i;
	return PICL_ERR_SYNTAX;
range:
	if (bad)
		*bad = i;
	return PICL_ERR_RANGE;
}

static __int128 widen(struct picl_time t, int32_t scale)
{
	__int128 v = t.mant;
	int32_t k = scale - t.scale;

	while (k >= 18) {
		v *= pow10_tab[18];
		k -= 18;
	}
	return v * pow10_tab[k];
}

/* A scale a time can have (what picl_time_parse makes): widen needs it. */
static int scale_ok(int32_t scale)
{
	return scale >= 0 && scale <= PICL_TIME_MAX_SCALE;
}

/* Not a time: the nearest scale that is (format, to_double and cmp take
 * such a time so). */
static struct picl_time clamp(struct picl_time t)
{
	if (t.scale < 0)
		t.scale = 0;
	if (t.scale > PICL_TIME_MAX_SCALE)
		t.scale = PICL_TIME_MAX_SCALE;
	return t;
}

int picl_time_cmp(struct picl_time a, struct picl_time b)
{
	__int128 x, y;
	int32_t s;

	if (a.scale == b.scale)
		return (a.mant > b.mant) - (a.mant < b.mant);
	if (!scale_ok(a.scale) || !scale_ok(b.scale)) {
		a = clamp(a);
		b = clamp(b);
	}
	s = a.scale > b.scale ? a.scale : b.scale;
	x = widen(a, s);
	y = widen(b, s);
	return (x > y) - (x < y);
}

size_t picl_time_format(struct picl_time t, char *buf)
{
	char digits[24];
	uint64_t u;
	size_t n, o = 0, i;

	if (!buf)
		return 0;
	t = clamp(t);   /* not a valid time: keep within the buffer, whatever it says */
	if (t.mant < 0) {
		buf[o++] = '-';
		u = (uint64_t)0 - (uint64_t)t.mant;
	} else {
		u = (uint64_t)t.mant;
	}
	n = picl_format_u64(u, digits);
	if (t.scale <= 0) {
		memcpy(buf + o, digits, n);
		o += n;
	} else if (n > (size_t)t.scale) {
		size_t ip = n - (size_t)t.scale;

		memcpy(buf + o, digits, ip);
		o += ip;
		buf[o++] = '.';
		memcpy(buf + o, digits + ip, (size_t)t.scale);
		o += (size_t)t.scale;
	} else {
		buf[o++] = '0';
		buf[o++] = '.';
		for (i = n; i < (size_t)t.scale; i++)
			buf[o++] = '0';
		memcpy(buf + o, digits, n);
		o += n;
	}
	buf[o] = '\0';
	return o;
}

/*
 * The nearest double to mant / 10^scale. Up to 2^53 both are exact doubles
 * (10^18 is too) and one division rounds once. Beyond, (double)mant would
 * round first: divide in long double, whose wider significand holds mant
 * exactly, and round that once more, which gives the nearest double unless
 * the first rounding landed exactly halfway between two doubles (then the
 * C library's correctly rounded strtod decides, from our own digits).
 */
double picl_time_to_double(struct picl_time t)
{
	const int64_t exact = (int64_t)1 << 53;
	char buf[32];

	t = clamp(t);
	if (t.scale == 0)
		return (double)t.mant;
	if (t.mant <= exact && t.mant >= -exact)
		return (double)t.mant / (double)pow10_tab[t.scale];
#if LDBL_MANT_DIG >= 64
	{
		long double q = (long double)t.mant / (long double)pow10_tab[t.scale];
		int e;
		long double m = ldexpl(frexpl(q, &e), DBL_MANT_DIG);  /* |m| < 2^53 */

		if (fabsl(m - truncl(m)) != 0.5L)
			return (double)q;
	}
#endif
	snprintf(buf, sizeof(buf), "%" PRId64 "e-%d", t.mant, (int)t.scale);
	return strtod(buf, NULL);
}

int picl_time_rescale(struct picl_time t, int32_t scale, struct picl_time *out)
{
	if (!out)
		return PICL_ERR_USAGE;
	if (!scale_ok(scale) || !scale_ok(t.scale))
		return PICL_ERR_RANGE;
	if (scale >= t.scale) {
		__int128 v = widen(t, scale);

		if (!mant_fits(v))
			return PICL_ERR_RANGE;
		out->mant = (int64_t)v;
	} else {
		int64_t d = pow10_tab[t.scale - scale];

		if (t.mant % d != 0)
			return PICL_ERR_DATA;
		out->mant = t.mant / d;
	}
	out->scale = scale;
	return PICL_OK;
}

int picl_time_sub(struct picl_time a, struct picl_time b, struct picl_time *out)
{
	int32_t s = a.scale > b.scale ? a.scale : b.scale;
	__int128 d;

	if (!out)
		return PICL_ERR_USAGE;
	if (!scale_ok(a.scale) || !scale_ok(b.scale))
		return PICL_ERR_RANGE;
	d = widen(a, s) - widen(b, s);
	if (!mant_fits(d))
		return PICL_ERR_RANGE;
	out->mant = (int64_t)d;
	out->scale = s;
	return PICL_OK;
}

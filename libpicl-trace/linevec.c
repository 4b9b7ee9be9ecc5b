/*
 * linevec.c - the fields of one canonical trace line at once (linevec.h).
 *
 * The byte-by-byte parsers spend most of their time in digit loops, one
 * byte and a multiply-add per step; on a canonical line of ~33 bytes that
 * is ~400 instructions. Here the whole line is one 64-byte register:
 *
 *  1. compare it with '\n', ' ', '-', '.' and the digit range, giving a
 *     bit mask per class; the shape rules of linevec.h are then a dozen
 *     operations on those masks;
 *  2. compress the iota vector (0, 1, ... 63) by the mask of field ends,
 *     and by the mask of first digits, which gives every field's end and
 *     start offsets as bytes, in order (vpcompressb);
 *  3. for 8 fields at a time, give each an 8-byte lane holding its (last
 *     8) digits right-aligned, zeros before: lane i, byte j takes line
 *     byte end[i] - 8 + j if that is not before start[i] (vpermb with a
 *     zero mask);
 *  4. turn the 8 digit bytes of every lane into their number with three
 *     multiply-adds (pairs, quads, the two halves); the digits before
 *     the last 8 of a longer field are added one by one;
 *  5. the signs are the '-' mask gathered at the field starts, the dots
 *     the '.' mask gathered at the field ends (pext).
 *
 * About 70 instructions for a whole line, and no loop over its bytes;
 * ~50 cycles on the machine of bench/README.md (session 7), bound by the
 * chain of dependent vector operations rather than by their number.
 * Everything else (a line this does not take, a processor without
 * AVX-512 VBMI2, a build for another architecture) goes to the
 * byte-by-byte parsers, which read every line this one reads the same way.
 */
#include "linevec.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define LINEVEC_X86 1
#include <immintrin.h>
#define TARGET \
	__attribute__((target("avx2,avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi,bmi2,popcnt")))
#endif

int linevec_available(void)
{
#ifdef LINEVEC_X86
	const char *env = getenv("PICL_SIMD");

	if (env && strcmp(env, "0") == 0)
		return 0;   /* any other value: on (picltrace says so) */
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
	       __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi") &&
	       __builtin_cpu_supports("avx512vbmi2") &&
	       __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
	       __builtin_cpu_supports("popcnt");
#else
	return 0;
#endif
}

#ifdef LINEVEC_X86

/* Byte constants of the steps above. */
static const uint8_t iota[64] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
	32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
	48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63
};
/* lane i of round r takes field 8r + i */
#define SPREAD(f) f, f, f, f, f, f, f, f
static const uint8_t spread[2][64] = {
	{ SPREAD(0), SPREAD(1), SPREAD(2), SPREAD(3),
	  SPREAD(4), SPREAD(5), SPREAD(6), SPREAD(7) },
	{ SPREAD(8), SPREAD(9), SPREAD(10), SPREAD(11),
	  SPREAD(12), SPREAD(13), SPREAD(14), SPREAD(15) }
};
/* byte j of a lane: end - 8 + j */
#define BACK (uint8_t)-8, (uint8_t)-7, (uint8_t)-6, (uint8_t)-5, \
	     (uint8_t)-4, (uint8_t)-3, (uint8_t)-2, (uint8_t)-1
static const uint8_t back[64] = { BACK, BACK, BACK, BACK, BACK, BACK, BACK, BACK };

TARGET int linevec_scan(const char *s, struct linevec *lv)
{
	const __m512i c = _mm512_loadu_si512((const void *)s);
	const __m512i dv = _mm512_sub_epi8(c, _mm512_set1_epi8('0'));
	uint64_t nl = _mm512_cmpeq_epi8_mask(c, _mm512_set1_epi8('\n'));
	uint64_t lm, S, M, P, D, SP, St, E, Ds;
	__m512i ep, sp;
	uint32_t over8;
	unsigned len, nf, r;

	if (!nl)
		return 0;
	len = (unsigned)_tzcnt_u64(nl);
	if (len == 0)
		return 0;
	lm = ((uint64_t)1 << len) - 1;
	S = _mm512_cmpeq_epi8_mask(c, _mm512_set1_epi8(' ')) & lm;
	M = _mm512_cmpeq_epi8_mask(c, _mm512_set1_epi8('-')) & lm;
	P = _mm512_cmpeq_epi8_mask(c, _mm512_set1_epi8('.')) & lm;
	D = _mm512_cmple_epu8_mask(dv, _mm512_set1_epi8(9)) & lm;
	SP = S | P;
	St = ((SP << 1) | 1) & lm;       /* where fields start */
	if ((D | SP | M) != lm ||         /* another byte */
	    (SP & ((SP << 1) | 1)) ||     /* an empty field, or one blank first */
	    (SP >> (len - 1)) ||          /* a blank or the dot last */
	    (M & ~St) ||                  /* '-' inside a field */
	    ((M << 1) & ~D) ||            /* '-' not before a digit */
	    (M & (P << 1)))               /* negative decimals */
		return 0;
	E = SP | ((uint64_t)1 << len);   /* where fields end */
	nf = (unsigned)_mm_popcnt_u64(E);
	if (nf > LINEVEC_FIELDS)
		return 0;
	Ds = (St & ~M) | (M << 1);        /* first digits */
	ep = _mm512_maskz_compress_epi8(E, _mm512_loadu_si512((const void *)iota));
	sp = _mm512_maskz_compress_epi8(Ds, _mm512_loadu_si512((const void *)iota));
	/* 1-16 digits per field (the lanes past nf are 0 - 0) */
	if (_mm512_cmpgt_epu8_mask(_mm512_sub_epi8(ep, sp), _mm512_set1_epi8(16)))
		return 0;
	over8 = (uint32_t)_mm512_cmpgt_epu8_mask(_mm512_sub_epi8(ep, sp), _mm512_set1_epi8(8));
	_mm_storeu_si128((__m128i *)(void *)lv->start, _mm512_castsi512_si128(sp));
	_mm_storeu_si128((__m128i *)(void *)lv->end, _mm512_castsi512_si128(ep));
	lv->neg = (uint32_t)_pext_u64(M, St);
	lv->dots = (uint32_t)_pext_u64(P, E);
	lv->ndots = (unsigned)_mm_popcnt_u64(P);
	lv->over8 = over8;
	lv->nfields = nf;
	lv->len = len;
	for (r = 0; r < nf; r += 8) {
		const __m512i ctl = _mm512_loadu_si512((const void *)spread[r / 8]);
		const __m512i ei = _mm512_permutexvar_epi8(ctl, ep);
		const __m512i si = _mm512_permutexvar_epi8(ctl, sp);
		const __m512i idx = _mm512_add_epi8(ei, _mm512_loadu_si512((const void *)back));
		/* signed: idx may be below 0 near the line's start */
		const __mmask64 in = _mm512_cmpge_epi8_mask(idx, si);
		const __m512i a = _mm512_maskz_permutexvar_epi8(in, idx, dv);
		unsigned h;

		/* the arithmetic on 256 bits: as fast here, and the
		 * processor need not slow its clock for 512-bit multiplies */
		for (h = 0; h < 2; h++) {
			__m256i q = h ? _mm512_extracti64x4_epi64(a, 1) : _mm512_castsi512_si256(a);

			q = _mm256_maddubs_epi16(q, _mm256_set1_epi16(0x010a));   /* d0 * 10 + d1 */
			q = _mm256_madd_epi16(q, _mm256_set1_epi32(0x00010064));  /* p0 * 100 + p1 */
			q = _mm256_add_epi64(_mm256_mul_epu32(q, _mm256_set1_epi64x(10000)),
					     _mm256_srli_epi64(q, 32));
			/* in 16-byte pieces: the caller reads the values
			 * back one by one at once, and a load from a wider
			 * store may have to wait for it */
			_mm_storeu_si128((__m128i *)(void *)(lv->v + r + 4 * h),
					 _mm256_castsi256_si128(q));
			_mm_storeu_si128((__m128i *)(void *)(lv->v + r + 4 * h + 2),
					 _mm256_extracti128_si256(q, 1));
		}
	}
	/* A lane holds a field's last 8 digits; the digits before them (of
	 * message types, lengths: a few fields a line at most) one by one. */
	while (over8) {
		unsigned i = (unsigned)_tzcnt_u32(over8);
		const char *p = s + lv->start[i], *e = s + lv->end[i] - 8;
		uint64_t hi = 0;

		for (; p < e; p++)
			hi = hi * 10 + (unsigned)(*p - '0');
		lv->v[i] += hi * 100000000u;
		over8 &= over8 - 1;
	}
	return 1;
}

#else

int linevec_scan(const char *s, struct linevec *lv)
{
	(void)s;
	(void)lv;
	return 0;
}

#endif

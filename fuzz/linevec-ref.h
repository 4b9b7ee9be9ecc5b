/*
 * linevec-ref.h - what linevec_scan (libpicl-trace/linevec.h) must answer,
 * written the plain way, byte by byte, from the rules in linevec.h; the
 * fuzz target fuzz-linevec and the unit test test-linevec compare the two.
 */
#ifndef PICL_LINEVEC_REF_H
#define PICL_LINEVEC_REF_H

#include <string.h>

#include "linevec.h"

/* 1 and *lv filled when the 64 bytes at s hold a line linevec_scan takes. */
static int linevec_ref(const char *s, struct linevec *lv)
{
	const char *nl = memchr(s, '\n', 64);
	unsigned len, i = 0, nf = 0;

	if (!nl || nl == s)
		return 0;
	len = (unsigned)(nl - s);
	memset(lv, 0, sizeof(*lv));
	for (;;) {
		unsigned st, neg = 0;
		uint64_t v = 0;

		if (nf == LINEVEC_FIELDS)
			return 0;
		if (s[i] == '-') {
			if (i > 0 && s[i - 1] == '.')
				return 0;    /* negative decimals */
			neg = 1;
			i++;
		}
		for (st = i; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			v = v * 10 + (unsigned)(s[i] - '0');
		if (i == st || i - st > 16)
			return 0;
		if (i - st > 8)
			lv->over8 |= (uint32_t)1 << nf;
		lv->v[nf] = v;
		lv->start[nf] = (uint8_t)st;
		lv->end[nf] = (uint8_t)i;
		lv->neg |= (uint32_t)neg << nf;
		nf++;
		if (i == len)
			break;
		if (s[i] == '.') {
			lv->dots |= (uint32_t)1 << (nf - 1);
			lv->ndots++;
		} else if (s[i] != ' ') {
			return 0;
		}
		if (++i == len)
			return 0;        /* a blank or dot last */
	}
	lv->nfields = nf;
	lv->len = len;
	return 1;
}

/* 0 if a (from linevec_scan) and b (from linevec_ref) say the same. */
static int linevec_differ(const struct linevec *a, const struct linevec *b)
{
	unsigned i;

	if (a->nfields != b->nfields || a->len != b->len || a->ndots != b->ndots ||
	    a->neg != b->neg || a->dots != b->dots || a->over8 != b->over8)
		return 1;
	for (i = 0; i < a->nfields; i++)
		if (a->v[i] != b->v[i] || a->start[i] != b->start[i] || a->end[i] != b->end[i])
			return 1;
	return 0;
}

#endif

/*
 * fuzz-descriptor.c - libFuzzer target for the data-descriptor compiler
 * (libpicl-trace/descriptor.c).
 *
 * Input: a control string, then a NUL or newline, then data text. The
 * target compiles the control string (a failure must be a clean
 * PICL_ERR_DESCRIPTOR with a column inside it) and decodes the data with a
 * few counts: one taken from the last input byte, 1, as many as the data has
 * bytes, and a hostile 10^18 (which must fail without asking for room). For
 * every successful decode it checks the round trip: encode the values,
 * decode the text again, and the values and the re-encoded text must be the
 * same; values rebuilt without their text (as a program makes them) must
 * encode to text that decodes to equal values. For numeric-only control
 * strings, the decoder's fast path must agree with its general path. Any
 * broken promise aborts.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Ilibpicl-trace \
 *       fuzz/fuzz-descriptor.c libpicl-trace/descriptor.c libpicl-trace/status.c
 *   ./a.out fuzz/corpus/descriptor
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picl-trace.h"
#include "internal.h"   /* picl_descriptor_decode_quick */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "fuzz-descriptor: %s:%d: check failed: %s\n", \
				__FILE__, __LINE__, #cond);                      \
			abort();                                                 \
		}                                                                \
	} while (0)

/* 1 if the control string has a %* conversion (values cannot fill it). */
static int has_suppression(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		if (s[i] != '%')
			continue;
		if (s[i + 1] == '*')
			return 1;
		if (s[i + 1] == '%')
			i++;
	}
	return 0;
}

static int same_value(const struct picl_value *a, const struct picl_value *b)
{
	if (a->kind != b->kind)
		return 0;
	switch (a->kind) {
	case PICL_VAL_INT:
		return a->v.i == b->v.i;
	case PICL_VAL_UINT:
		return a->v.u == b->v.u;
	case PICL_VAL_FLOAT:
	case PICL_VAL_DOUBLE:
		return memcmp(&a->v.d, &b->v.d, sizeof(double)) == 0;
	case PICL_VAL_CHARS:
	case PICL_VAL_STRING:
		return a->v.s.len == b->v.s.len &&
		       (a->v.s.len == 0 || memcmp(a->v.s.ptr, b->v.s.ptr, a->v.s.len) == 0);
	}
	return 0;
}

/* Decode with the capacity protocol; *values is malloc'd (caller frees). */
static int decode(const struct picl_descriptor *d, uint64_t n, const char *text, size_t len,
		  struct picl_value **values, size_t *nv, size_t *used, struct picl_error *err)
{
	size_t cap = 2, vpf = picl_descriptor_values_per_field(d);
	int rc, rounds = 0;

	*values = malloc(cap * sizeof(**values));
	CHECK(*values != NULL);
	for (;;) {
		size_t old = cap;

		memset(err, 0, sizeof(*err));
		rc = picl_descriptor_decode(d, n, text, len, *values, nv, &cap, used, err);
		if (rc != PICL_ERR_NOMEM)
			return rc;
		/* Room asked for must be real and bounded by the data. */
		CHECK(cap > old);
		CHECK(cap <= (len + 1) * (vpf ? vpf : 1));
		CHECK(++rounds == 1);
		free(*values);
		*values = malloc(cap * sizeof(**values));
		CHECK(*values != NULL);
	}
}

static void check_round_trip(const struct picl_descriptor *d, uint64_t n,
			     const char *control, size_t clen, const char *text, size_t len)
{
	struct picl_value *a = NULL, *b = NULL, *c = NULL;
	struct picl_error err;
	size_t na, nb, nc, used, i, vpf = picl_descriptor_values_per_field(d);
	char *buf = NULL, *buf2 = NULL, *buf3 = NULL;
	size_t blen = 0, bcap = 0, b2len = 0, b2cap = 0, b3len = 0, b3cap = 0;
	int rc;

	rc = decode(d, n, text, len, &a, &na, &used, &err);
	{
		/* The reader's shortcut gives the same values, or declines. */
		size_t qcap = rc == PICL_OK ? na : 4, nq = 0, k;
		struct picl_value *q = malloc((qcap + 1) * sizeof(*q));

		CHECK(q != NULL);
		if (picl_descriptor_decode_quick(d, n, text, len, q, qcap, &nq)) {
			CHECK(rc == PICL_OK && nq == na);
			for (k = 0; k < na; k++)
				CHECK(same_value(&q[k], &a[k]) && q[k].kind == a[k].kind &&
				      q[k].text == a[k].text && q[k].text_len == a[k].text_len);
			for (k = used; k < len; k++)
				CHECK(text[k] == ' ' || text[k] == '\t' || text[k] == '\r' ||
				      text[k] == '\v' || text[k] == '\f');
		}
		free(q);
	}
	if (rc != PICL_OK) {
		CHECK(rc == PICL_ERR_DATA || rc == PICL_ERR_RANGE);
		CHECK(err.code == rc && err.problem[0] != '\0');
		CHECK(err.mark.column >= 1 && err.mark.column <= len + 1);
		goto out;
	}
	CHECK(used <= len);
	if (n == 0)
		CHECK(na == 0);
	else if (picl_descriptor_is_chars(d))
		CHECK(na == 1 && a[0].v.s.len == n);
	else
		CHECK(na == n * vpf);
	for (i = 0; i < na; i++) {
		CHECK(a[i].kind == (picl_descriptor_is_chars(d) ? PICL_VAL_CHARS
				    : picl_descriptor_value_kind(d, i % vpf)));
		CHECK(a[i].text >= text && a[i].text + a[i].text_len <= text + used);
	}

	rc = picl_descriptor_encode(d, a, na, &buf, &blen, &bcap, &err);
	if (rc != PICL_OK) {
		CHECK(rc == PICL_ERR_UNREPRESENTABLE);
		CHECK(has_suppression(control, clen) || memchr(text, '\n', len));
		goto out;
	}
	if (na == 0)
		goto out;
	/* Decoding what we wrote gives the same values ... */
	rc = decode(d, n, buf, blen, &b, &nb, &used, &err);
	if (rc != PICL_OK) {
		fprintf(stderr, "re-decode of \"%.*s\" failed: %s\n", (int)blen, buf, err.problem);
		abort();
	}
	CHECK(used == blen);
	CHECK(nb == na);
	for (i = 0; i < na; i++)
		CHECK(same_value(&a[i], &b[i]));
	/* ... and writing those again, the same bytes. */
	rc = picl_descriptor_encode(d, b, nb, &buf2, &b2len, &b2cap, &err);
	CHECK(rc == PICL_OK);
	CHECK(b2len == blen && memcmp(buf, buf2, blen) == 0);

	/* Values without their text, as a program builds them. */
	for (i = 0; i < na; i++)
		if (a[i].kind != PICL_VAL_CHARS && a[i].kind != PICL_VAL_STRING) {
			a[i].text = NULL;
			a[i].text_len = 0;
		}
	rc = picl_descriptor_encode(d, a, na, &buf3, &b3len, &b3cap, &err);
	if (rc == PICL_OK) {
		rc = decode(d, n, buf3, b3len, &c, &nc, &used, &err);
		if (rc != PICL_OK) {
			fprintf(stderr, "decode of formatted \"%.*s\" failed: %s\n", (int)b3len, buf3,
				err.problem);
			abort();
		}
		CHECK(nc == na && used == b3len);
		for (i = 0; i < na; i++)
			CHECK(same_value(&a[i], &c[i]));
	} else {
		/* A width or a literal the formatted number no longer fits. */
		CHECK(rc == PICL_ERR_UNREPRESENTABLE);
	}
out:
	free(a);
	free(b);
	free(c);
	free(buf);
	free(buf2);
	free(buf3);
}

/* 1 if the control string is numeric conversions only ("%d%lf"): the
 * decoder's fast path. */
static int is_numeric_only(const char *s, size_t n)
{
	size_t i = 0;

	if (n == 0)
		return 0;
	while (i < n) {
		if (s[i++] != '%')
			return 0;
		if (i < n && s[i] == 'l')
			i++;
		if (i >= n || !strchr("diuxXofFeEgG", s[i]) || s[i] == '\0')
			return 0;
		i++;
	}
	return 1;
}

/*
 * The fast path and the general one agree: "%d%lf" and "%d%lf " (a white-
 * space op at the end, which changes nothing) decode alike, errors included.
 */
static void check_fast_path(const char *control, size_t clen, uint64_t n, const char *text,
			    size_t len)
{
	char spaced[32];
	struct picl_descriptor *fast = NULL, *slow = NULL;
	struct picl_value *a = NULL, *b = NULL;
	struct picl_error ea, eb;
	size_t na = 0, nb = 0, ua = 0, ub = 0, i;
	int ra, rb;

	if (clen + 1 >= sizeof(spaced) || !is_numeric_only(control, clen))
		return;
	memcpy(spaced, control, clen);
	spaced[clen] = ' ';
	CHECK(picl_descriptor_compile(control, clen, &fast, NULL) == PICL_OK);
	CHECK(picl_descriptor_compile(spaced, clen + 1, &slow, NULL) == PICL_OK);
	ra = decode(fast, n, text, len, &a, &na, &ua, &ea);
	rb = decode(slow, n, text, len, &b, &nb, &ub, &eb);
	CHECK(ra == rb);
	if (ra == PICL_OK) {
		CHECK(na == nb && ua == ub);
		for (i = 0; i < na; i++)
			CHECK(same_value(&a[i], &b[i]) && a[i].text == b[i].text &&
			      a[i].text_len == b[i].text_len);
	} else {
		CHECK(ea.mark.column == eb.mark.column);
		CHECK(strcmp(ea.problem, eb.problem) == 0);
	}
	free(a);
	free(b);
	picl_descriptor_free(fast);
	picl_descriptor_free(slow);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	const char *control = in, *text;
	size_t clen = 0, len;
	struct picl_descriptor *d = (struct picl_descriptor *)1;
	struct picl_error err;
	int rc;

	while (clen < size && in[clen] != '\0' && in[clen] != '\n')
		clen++;
	text = in + (clen < size ? clen + 1 : size);
	len = size - (size_t)(text - in);

	memset(&err, 0, sizeof(err));
	rc = picl_descriptor_compile(control, clen, &d, &err);
	if (rc != PICL_OK) {
		CHECK(rc == PICL_ERR_DESCRIPTOR);
		CHECK(d == NULL);
		CHECK(err.code == rc && err.problem[0] != '\0');
		CHECK(err.mark.column >= 1 && err.mark.column <= clen + 1);
		return 0;
	}
	CHECK(strlen(picl_descriptor_control(d)) == clen);
	CHECK(memcmp(picl_descriptor_control(d), control, clen) == 0);

	/* A hostile count fails at once and asks for no room. */
	{
		size_t cap = 0, nv = 0, used = 0;

		rc = picl_descriptor_decode(d, 1000000000000000000ULL, text, len, NULL, &nv, &cap,
					    &used, &err);
		CHECK(rc == PICL_ERR_DATA && cap == 0);
	}
	check_round_trip(d, size ? (uint64_t)(data[size - 1] & 15) : 0, control, clen, text, len);
	check_round_trip(d, 1, control, clen, text, len);
	check_fast_path(control, clen, size ? (uint64_t)(data[size - 1] & 15) : 0, text, len);
	check_fast_path(control, clen, 1, text, len);
	if (len > 1)
		check_round_trip(d, len - 1, control, clen, text, len);
	picl_descriptor_free(d);
	return 0;
}

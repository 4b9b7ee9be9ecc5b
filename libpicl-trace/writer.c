/*
 * writer.c - writes PICL records as canonical text, plain or zstd.
 *
 * Canonical form of a record (what every tool of the toolkit writes):
 *
 *     rtype SP etype SP time SP proc SP process SP nfields [SP desc data] LF
 *
 * single blanks, the time with its own digits (struct picl_time), the
 * descriptor as the alias number or the control string in double quotes,
 * the data as the descriptor compiler encodes them (one blank before every
 * value, values read from a trace copied byte for byte). Continuation lines
 * are never written: a record whose data hold a newline is refused, and
 * data ending in " \" (or a carriage return) get a blank after them, so
 * that they do not read as a continuation (or a CRLF line's end).
 *
 * Safety: a named output goes through picl_output (output.c): written to a
 * temporary file beside it (".NAME.tmpXXXXXX") and renamed over NAME by
 * picl_writer_close only when everything was written, flushed and synced;
 * on any failure, or picl_writer_abort, the temporary file is removed. So
 * there is never a half-written trace under the real name, and an existing
 * file is replaced only by a complete one, with its permissions. Devices,
 * FIFOs and the process's own descriptors (/dev/null, a pipe, /dev/stdout)
 * are written directly.
 */
#include "fdio.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define DEFAULT_BUFFER (1u << 20)

struct picl_writer {
	int fd, own_fd;
	char *name;               /* for messages */
	struct picl_output *out;  /* a named output, or NULL */
	char *buf;                /* text not yet written */
	size_t len, cap, flush_at;
	ZSTD_CCtx *cctx;
	char *zout;
	size_t zout_cap;
	uint64_t offset;
	int failed;
	struct picl_error err;
	char *scratch;            /* encoded data of one record */
	size_t scratch_len, scratch_cap;
	struct picl_value *check; /* the values a %* record's data hold */
	size_t check_cap;
};

static __thread char open_error_path[4096];

static int fail(struct picl_writer *w, int code, const char *fmt, ...) PICL_PRINTF(3, 4);

static int fail(struct picl_writer *w, int code, const char *fmt, ...)
{
	va_list ap;

	w->err.code = code;
	w->err.sys_errno = code == PICL_ERR_IO ? errno : 0;
	va_start(ap, fmt);
	vsnprintf(w->err.problem, sizeof(w->err.problem), fmt, ap);
	va_end(ap);
	if (code == PICL_ERR_IO || code == PICL_ERR_NOMEM || code == PICL_ERR_COMPRESS)
		w->failed = 1;
	return code;
}

static int write_all(struct picl_writer *w, const char *p, size_t n)
{
	if (picl_write_all(w->fd, p, n) < 0)
		return fail(w, PICL_ERR_IO, "cannot write: %s", strerror(errno));
	return PICL_OK;
}

static int compress_out(struct picl_writer *w, const char *p, size_t n, ZSTD_EndDirective end)
{
	ZSTD_inBuffer in = { p, n, 0 };

	for (;;) {
		ZSTD_outBuffer out = { w->zout, w->zout_cap, 0 };
		size_t left = ZSTD_compressStream2(w->cctx, &out, &in, end);
		int rc;

		if (ZSTD_isError(left))
			return fail(w, PICL_ERR_COMPRESS, "compression failed: %s",
				    ZSTD_getErrorName(left));
		if ((rc = write_all(w, w->zout, out.pos)) < 0)
			return rc;
		if (end == ZSTD_e_continue ? in.pos == in.size : left == 0)
			return PICL_OK;
	}
}

static int flush_buf(struct picl_writer *w, ZSTD_EndDirective end)
{
	int rc;

	if (w->failed)
		return w->err.code;
	if (w->cctx)
		rc = compress_out(w, w->buf, w->len, end);
	else
		rc = write_all(w, w->buf, w->len);
	if (rc == PICL_OK)
		w->len = 0;
	return rc;
}

static int reserve(struct picl_writer *w, size_t n)
{
	if (w->len + n <= w->cap)
		return PICL_OK;
	if (w->len > 0) {
		int rc = flush_buf(w, ZSTD_e_continue);

		if (rc < 0)
			return rc;
	}
	if (n > w->cap) {
		char *p = realloc(w->buf, n);

		if (!p)
			return fail(w, PICL_ERR_NOMEM, "out of memory");
		w->buf = p;
		w->cap = n;
	}
	return PICL_OK;
}

static struct picl_writer *writer_new(int fd, int own, const char *name,
				      const struct picl_writer_options *opts,
				      int *status, struct picl_error *err)
{
	struct picl_writer *w = calloc(1, sizeof(*w));

	if (!w)
		goto nomem;
	w->fd = fd;
	w->own_fd = own;
	w->cap = opts && opts->buffer_size ? opts->buffer_size : DEFAULT_BUFFER;
	w->flush_at = w->cap;
	w->buf = malloc(w->cap);
	w->name = strdup(name);
	if (!w->buf || !w->name)
		goto nomem;
	w->err.path = w->name;
	if (opts && opts->compress) {
		w->cctx = ZSTD_createCCtx();
		w->zout_cap = ZSTD_CStreamOutSize();
		w->zout = malloc(w->zout_cap);
		if (!w->cctx || !w->zout)
			goto nomem;
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel,
				       opts->level ? opts->level : 3);
		/* a content checksum, as zstd(1) writes by default: damage
		 * that still decodes is found by every reader */
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	}
	if (status)
		*status = PICL_OK;
	return w;
nomem:
	if (w) {
		ZSTD_freeCCtx(w->cctx);
		free(w->zout);
		free(w->buf);
		free(w->name);
		free(w);
	}
	if (status)
		*status = PICL_ERR_NOMEM;
	picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
	if (err) {
		snprintf(open_error_path, sizeof(open_error_path), "%s", name);
		err->path = open_error_path;
		memset(&err->mark, 0, sizeof(err->mark));
	}
	return NULL;
}

struct picl_writer *picl_writer_open_fd(int fd, const char *name,
					const struct picl_writer_options *opts,
					int *status, struct picl_error *err)
{
	return writer_new(fd, 0, name ? name : "<output>", opts, status, err);
}

struct picl_writer *picl_writer_open(const char *path,
				     const struct picl_writer_options *opts,
				     int *status, struct picl_error *err)
{
	struct picl_output *out;
	struct picl_writer *w;

	out = picl_output_open(path, 0, status, err);
	if (!out)
		return NULL;
	w = writer_new(picl_output_fd(out), 0, picl_output_name(path), opts, status, err);
	if (!w) {
		picl_output_abort(out);
		return NULL;
	}
	w->out = out;
	return w;
}

/* 1 if the text of a -6 record's control string value (as the reader
 * keeps it: in its double quotes, or a bare word) still holds the string
 * the value says, so that it may be copied as it stood; a program that
 * changed the string gets it written from the value. */
static int alias_text_holds(const struct picl_value *v)
{
	const char *s = v->v.s.ptr;
	size_t n = v->v.s.len;

	if (!v->text || (v->kind != PICL_VAL_STRING && v->kind != PICL_VAL_CHARS) ||
	    (n > 0 && !s))
		return 0;
	if (v->text_len == n)
		return n == 0 || memcmp(v->text, s, n) == 0;
	return v->text_len == n + 2 && v->text[0] == '"' && v->text[n + 1] == '"' &&
	       (n == 0 || memcmp(v->text + 1, s, n) == 0);
}

/* The control string of a -6 record's alias must compile, as the reader
 * that reads it back will compile it. */
static int check_alias_control(struct picl_writer *w, int64_t alias, const struct picl_value *v)
{
	struct picl_descriptor *d = NULL;
	struct picl_error ce;
	int rc;

	if (v->kind != PICL_VAL_STRING && v->kind != PICL_VAL_CHARS)
		return fail(w, PICL_ERR_UNREPRESENTABLE,
			    "the control string of alias %lld must be a string value",
			    (long long)alias);
	if (v->v.s.len == 0)
		return fail(w, PICL_ERR_UNREPRESENTABLE,
			    "the control string of alias %lld is empty", (long long)alias);
	ce.problem[0] = '\0';
	rc = picl_descriptor_compile(v->v.s.ptr, v->v.s.len, &d, &ce);
	picl_descriptor_free(d);
	if (rc == PICL_ERR_NOMEM)
		return fail(w, rc, "out of memory");
	if (rc < 0)
		return fail(w, PICL_ERR_UNREPRESENTABLE, "the control string of alias %lld: %s",
			    (long long)alias, ce.problem);
	return PICL_OK;
}

/* A subset definition (-201, -202, -203) holds 32-bit integers, the first
 * (the subset id) below -1, as a reader applies it (DESIGN.md point 7). */
static int check_subset_values(struct picl_writer *w, const struct picl_record *rec)
{
	size_t i;

	if (rec->type != PICL_REC_SUBSET_PROCESSORS && rec->type != PICL_REC_SUBSET_PROCESSES &&
	    rec->type != PICL_REC_SUBSET_EVENTS)
		return PICL_OK;
	for (i = 0; i < rec->nvalues; i++)
		if (rec->values[i].kind != PICL_VAL_INT ||
		    rec->values[i].v.i < INT32_MIN || rec->values[i].v.i > INT32_MAX)
			return fail(w, PICL_ERR_UNREPRESENTABLE,
				    "subset definitions hold 32-bit integers only (value %zu)", i + 1);
	if (rec->values[0].v.i >= -1)
		return fail(w, PICL_ERR_UNREPRESENTABLE, "a subset id must be below -1 (found %lld)",
			    (long long)rec->values[0].v.i);
	return PICL_OK;
}

/* The descriptor field and the data of rec, as canonical text, in scratch. */
static int encode_data(struct picl_writer *w, const struct picl_record *rec)
{
	struct picl_error e2;   /* read only when encoding fails: not cleared
				   (300 bytes) for every record */
	int rc;

	e2.problem[0] = '\0';
	w->scratch_len = 0;
	if (rec->type == PICL_REC_DESCRIPTOR && rec->nvalues == 2 &&
	    rec->values[0].kind == PICL_VAL_INT) {
		/* -6: alias and control string; the string may hold blanks. */
		const struct picl_value *v = rec->values;
		char num[24];
		size_t n = picl_format_i64(v[0].v.i, num);

		if (rec->nfields != 1)
			return fail(w, PICL_ERR_UNREPRESENTABLE,
				    "a data descriptor record (-6) has exactly 1 data field, not %llu",
				    (unsigned long long)rec->nfields);
		/* What a reader refuses is not written: the alias is 0 or
		 * more (spec Table 2), the control string one it compiles. */
		if (v[0].v.i < 0)
			return fail(w, PICL_ERR_UNREPRESENTABLE,
				    "an alias number is 0 or more, not %lld", (long long)v[0].v.i);
		if ((rc = check_alias_control(w, v[0].v.i, &v[1])) < 0)
			return rc;
		if (picl_buf_append(&w->scratch, &w->scratch_len, &w->scratch_cap, " ", 1) < 0 ||
		    picl_buf_append(&w->scratch, &w->scratch_len, &w->scratch_cap, num, n) < 0 ||
		    picl_buf_append(&w->scratch, &w->scratch_len, &w->scratch_cap, " ", 1) < 0)
			return fail(w, PICL_ERR_NOMEM, "out of memory");
		if (alias_text_holds(&v[1])) {
			rc = picl_buf_append(&w->scratch, &w->scratch_len, &w->scratch_cap,
					     v[1].text, v[1].text_len);
		} else {
			if (memchr(v[1].v.s.ptr, '"', v[1].v.s.len))
				return fail(w, PICL_ERR_UNREPRESENTABLE,
					    "a control string cannot contain '\"'");
			rc = picl_buf_append(&w->scratch, &w->scratch_len, &w->scratch_cap, "\"", 1);
			if (rc == PICL_OK)
				rc = picl_buf_append(&w->scratch, &w->scratch_len, &w->scratch_cap,
						     v[1].v.s.ptr, v[1].v.s.len);
			if (rc == PICL_OK)
				rc = picl_buf_append(&w->scratch, &w->scratch_len, &w->scratch_cap,
						     "\"", 1);
		}
		if (rc < 0)
			return fail(w, PICL_ERR_NOMEM, "out of memory");
		return PICL_OK;
	}
	if (!rec->desc)
		return fail(w, PICL_ERR_USAGE,
			    "a record with values needs its compiled descriptor (desc)");
	if (rec->alias < 0 && rec->control) {
		/* the values are written under the control string: they
		 * must be what it reads (an alias cannot be checked here,
		 * its meaning depends on definitions the writer has not) */
		const char *c = picl_descriptor_control(rec->desc);

		if (strlen(c) != rec->control_len || memcmp(c, rec->control, rec->control_len) != 0)
			return fail(w, PICL_ERR_USAGE,
				    "the values are encoded with \"%s\", not the record's control "
				    "string: set desc to its descriptor", c);
	}
	if (!picl_descriptor_is_chars(rec->desc)) {
		/* what the reader would check: nfields applications of it */
		size_t vpf = picl_descriptor_values_per_field(rec->desc);

		if (vpf && (rec->nfields > SIZE_MAX / vpf || rec->nvalues != rec->nfields * vpf))
			return fail(w, PICL_ERR_UNREPRESENTABLE,
				    "%zu values for %llu data fields of \"%s\" (%zu each)",
				    rec->nvalues, (unsigned long long)rec->nfields,
				    picl_descriptor_control(rec->desc), vpf);
	}
	if ((rc = check_subset_values(w, rec)) < 0)
		return rc;
	rc = picl_descriptor_encode(rec->desc, rec->values, rec->nvalues, &w->scratch,
				    &w->scratch_len, &w->scratch_cap, &e2);
	if (rc < 0)
		return fail(w, rc, "%s", e2.problem);
	/* character data encoded: one text value; the reader takes exactly
	 * nfields characters */
	if (picl_descriptor_is_chars(rec->desc) && rec->values[0].v.s.len != rec->nfields)
		return fail(w, PICL_ERR_UNREPRESENTABLE,
			    "%zu characters of data for %llu data fields",
			    rec->values[0].v.s.len, (unsigned long long)rec->nfields);
	return PICL_OK;
}

/* Is value a what b, decoded from the data, says? */
static int same_value(const struct picl_value *a, const struct picl_value *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->text)
		return a->text_len == b->text_len && memcmp(a->text, b->text, a->text_len) == 0;
	switch (a->kind) {
	case PICL_VAL_INT:
		return a->v.i == b->v.i;
	case PICL_VAL_UINT:
		return a->v.u == b->v.u;
	case PICL_VAL_CHARS:
	case PICL_VAL_STRING:
		return a->v.s.len == b->v.s.len && memcmp(a->v.s.ptr, b->v.s.ptr, a->v.s.len) == 0;
	default:
		return a->v.d == b->v.d;
	}
}

/*
 * A control string with %* conversions cannot be encoded from values (they
 * say nothing of what %* skips): such a record is written with its data as
 * they were read, which is right only while its values are still what those
 * data hold. Values changed since are refused, not silently dropped.
 */
static int check_suppressed_data(struct picl_writer *w, const struct picl_record *rec)
{
	struct picl_error e2;
	size_t n = 0, used, i;
	int rc;

	for (;;) {
		size_t cap = w->check_cap;

		rc = picl_descriptor_decode(rec->desc, rec->nfields, rec->data, rec->data_len,
					    w->check, &n, &cap, &used, &e2);
		if (rc != PICL_ERR_NOMEM || cap <= w->check_cap)
			break;
		free(w->check);
		w->check_cap = 0;
		if (!(w->check = calloc(cap, sizeof(*w->check))))
			return fail(w, PICL_ERR_NOMEM, "out of memory");
		w->check_cap = cap;
	}
	if (rc == PICL_ERR_NOMEM)
		return fail(w, rc, "out of memory");
	if (rc < 0)
		return fail(w, PICL_ERR_UNREPRESENTABLE, "the data text does not match \"%s\": %s",
			    picl_descriptor_control(rec->desc), e2.problem);
	for (i = 0; i < n && i < rec->nvalues && same_value(&rec->values[i], &w->check[i]); i++)
		;
	if (i < n || n != rec->nvalues)
		return fail(w, PICL_ERR_UNREPRESENTABLE,
			    "value %zu is not what the data text holds, and \"%s\" has suppressed "
			    "conversions (%%*), which values cannot fill: change rec->data instead",
			    i + 1, picl_descriptor_control(rec->desc));
	return PICL_OK;
}

/* Are data[0..len) nothing but blanks (or nothing at all)? */
static int blank_only(const char *data, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!picl_is_blank((unsigned char)data[i]))
			return 0;
	return 1;
}

int picl_writer_write(struct picl_writer *w, const struct picl_record *rec)
{
	const char *data;
	size_t data_len, need;
	char *p;
	int rc, pad;

	if (PICL_UNLIKELY(!w))   /* a failed open's NULL, written on */
		return PICL_ERR_USAGE;
	if (w->failed)
		return w->err.code;
	if (!rec)
		return fail(w, PICL_ERR_USAGE, "no record to write (NULL)");
	if (rec->nfields == 0 && (rec->nvalues > 0 || !blank_only(rec->data, rec->data_len)))
		return fail(w, PICL_ERR_USAGE,
			    "a record with no data fields (nfields 0) cannot carry data: "
			    "set nfields, or drop the values and data");
	if (rec->nfields > 0 && rec->nvalues > 0 && rec->desc &&
	    picl_descriptor_has_suppressed(rec->desc) && rec->data && rec->data_len > 0 &&
	    picl_is_blank((unsigned char)rec->data[0])) {
		/* values cannot say what %* skipped: the data as they were read */
		if ((rc = check_suppressed_data(w, rec)) < 0)
			return rc;
		data = rec->data;
		data_len = rec->data_len;
	} else if (rec->nfields > 0 && rec->nvalues > 0) {
		if ((rc = encode_data(w, rec)) < 0)
			return rc;
		data = w->scratch;
		data_len = w->scratch_len;
	} else {
		data = rec->data;
		data_len = rec->nfields > 0 ? rec->data_len : 0;
		if (rec->nfields > 0 && data_len == 0)
			return fail(w, PICL_ERR_USAGE,
				    "a record with data fields needs values or data text");
		if (data_len > 0 && !picl_is_blank((unsigned char)data[0]))
			return fail(w, PICL_ERR_USAGE, "record data must start with a blank");
	}
	if (rec->nfields > 0 && rec->alias < 0) {
		if (!rec->control)
			return fail(w, PICL_ERR_USAGE,
				    "a record with data fields needs a descriptor");
		if (memchr(rec->control, '"', rec->control_len) ||
		    memchr(rec->control, '\n', rec->control_len))
			return fail(w, PICL_ERR_UNREPRESENTABLE,
				    "a control string cannot contain '\"' or a newline");
	}
	if (data_len > 0 && memchr(data, '\n', data_len))
		return fail(w, PICL_ERR_UNREPRESENTABLE,
			    "record data cannot contain a newline");
	/* Data ending in " \\" would read as a continuation, and a final
	 * carriage return as the end of a CRLF line: a blank after them, which
	 * a reader takes for the end of the data, keeps them. */
	pad = picl_data_needs_pad(data, data_len);
	if (rec->time.scale < 0 || rec->time.scale > PICL_TIME_MAX_SCALE ||
	    rec->time.mant > 999999999999999999LL || rec->time.mant < -999999999999999999LL)
		return fail(w, PICL_ERR_UNREPRESENTABLE,
			    "the time (mantissa %lld, scale %d) does not fit the text form "
			    "(18 digits, 0-18 decimals)", (long long)rec->time.mant,
			    (int)rec->time.scale);

	need = 5 * 12 + 24 + PICL_TIME_BUFSIZE + 24 + 5 + rec->control_len + data_len;
	if ((rc = reserve(w, need)) < 0)
		return rc;
	p = w->buf + w->len;
	p += picl_format_i64(rec->type, p);
	*p++ = ' ';
	p += picl_format_i64(rec->event, p);
	*p++ = ' ';
	p += picl_time_format(rec->time, p);
	*p++ = ' ';
	p += picl_format_i64(rec->processor, p);
	*p++ = ' ';
	p += picl_format_i64(rec->process, p);
	*p++ = ' ';
	p += picl_format_u64(rec->nfields, p);
	if (rec->nfields > 0) {
		*p++ = ' ';
		if (rec->alias >= 0) {
			p += picl_format_i64(rec->alias, p);
		} else {
			*p++ = '"';
			memcpy(p, rec->control, rec->control_len);
			p += rec->control_len;
			*p++ = '"';
		}
		memcpy(p, data, data_len);
		p += data_len;
		if (pad)
			*p++ = ' ';
	}
	*p++ = '\n';
	w->offset += (uint64_t)(p - (w->buf + w->len));
	w->len = (size_t)(p - w->buf);
	if (w->len >= w->flush_at)
		return flush_buf(w, ZSTD_e_continue);
	return PICL_OK;
}

int picl_writer_write_raw(struct picl_writer *w, const char *text, size_t len)
{
	int rc;

	if (!w)
		return PICL_ERR_USAGE;
	if (w->failed)
		return w->err.code;
	if (len == 0)
		return PICL_OK;   /* (nothing to copy: text may be NULL) */
	if (!text)
		return fail(w, PICL_ERR_USAGE, "no text to write (NULL)");
	if (len >= w->cap) {
		if ((rc = flush_buf(w, ZSTD_e_continue)) < 0)
			return rc;
		w->offset += len;
		if (w->cctx)
			return compress_out(w, text, len, ZSTD_e_continue);
		return write_all(w, text, len);
	}
	if ((rc = reserve(w, len)) < 0)
		return rc;
	memcpy(w->buf + w->len, text, len);
	w->len += len;
	w->offset += len;
	return PICL_OK;
}

static void writer_free(struct picl_writer *w)
{
	ZSTD_freeCCtx(w->cctx);
	free(w->zout);
	free(w->buf);
	free(w->scratch);
	free(w->check);
	free(w->name);
	free(w);
}

int picl_writer_close(struct picl_writer *w, struct picl_error *err)
{
	int rc;

	if (!w) {
		/* a failed open's NULL, closed on a common cleanup path */
		if (err) {
			memset(err, 0, sizeof(*err));
			err->path = "<output>";
		}
		return picl_set_error(err, PICL_ERR_USAGE, "no writer to close (NULL)");
	}
	rc = flush_buf(w, ZSTD_e_end);
	if (w->own_fd && close(w->fd) < 0 && rc == PICL_OK)
		rc = fail(w, PICL_ERR_IO, "cannot close: %s", strerror(errno));
	if (w->out) {
		if (rc == PICL_OK) {
			rc = picl_output_commit(w->out, &w->err);
			w->err.path = w->name;
		} else {
			picl_output_abort(w->out);
		}
		w->out = NULL;
	}
	if (rc < 0 && err) {
		*err = w->err;
		snprintf(open_error_path, sizeof(open_error_path), "%s", w->name);
		err->path = open_error_path;
	}
	writer_free(w);
	return rc;
}

void picl_writer_abort(struct picl_writer *w)
{
	if (!w)
		return;
	if (w->own_fd)
		close(w->fd);
	picl_output_abort(w->out);
	writer_free(w);
}

const struct picl_error *picl_writer_error(const struct picl_writer *w)
{
	static const struct picl_error null_writer_error = {
		PICL_ERR_USAGE, "<output>", { 0, 0, 0 }, "no writer (NULL)", 0
	};

	return w ? &w->err : &null_writer_error;
}

uint64_t picl_writer_offset(const struct picl_writer *w)
{
	return w ? w->offset : 0;
}

const char *picl_writer_temp_path(const struct picl_writer *w)
{
	return w && w->out ? picl_output_temp_path(w->out) : NULL;
}

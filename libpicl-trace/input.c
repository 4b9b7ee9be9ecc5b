/*
 * input.c - where a reader's bytes come from: a file descriptor, a memory
 * buffer, or either of them through a zstd decoder.
 *
 * Like Redis's rio, the back-ends sit behind one small interface
 * (picl_input_read fills a caller-supplied buffer); the reader above never
 * knows which one it has. Compression is recognised by the zstd frame magic
 * (28 b5 2f fd) in the first four bytes, never by a file name, so a pipe
 * works as well as a file. Concatenated zstd frames are read one after the
 * other; input that ends inside a frame is reported as truncated.
 */
#include "fdio.h"
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

struct picl_input {
	int fd;                   /* -1 for memory */
	int own_fd;
	off_t open_size;          /* a regular file's size when opened, else 0 */
	const unsigned char *mem;
	size_t mem_len, mem_pos;
	/* bytes already read while looking for the magic */
	unsigned char peek[4];
	size_t peek_len, peek_pos;
	int raw_eof;
	/* zstd */
	ZSTD_DStream *zds;
	unsigned char *zin;
	size_t zin_cap;
	ZSTD_inBuffer zib;
	size_t zret;              /* last ZSTD_decompressStream result */
	/* Decoded bytes not handed out yet. The decoder always writes into
	 * this block-sized buffer, so what comes out before an error (and
	 * which error) never depends on how much the caller asks for. */
	unsigned char *zout;
	size_t zout_cap, zout_len, zout_pos;
	int zfail;                /* 0, or the error to report once zout is empty */
	size_t zfail_code;        /* the failing ZSTD_decompressStream result,
				     or 0 for a truncated frame */
	uint64_t zread;           /* compressed bytes read */
	uint64_t zframe_end;      /* where the last complete frame ended in them */
	int compressed;
};

/* Read bytes from the descriptor or the memory, past what was peeked. */
static ssize_t source_read(struct picl_input *in, void *buf, size_t cap)
{
	if (in->fd < 0) {
		size_t n = in->mem_len - in->mem_pos;

		if (n > cap)
			n = cap;
		if (n > 0)   /* (an empty buffer may be NULL) */
			memcpy(buf, in->mem + in->mem_pos, n);
		in->mem_pos += n;
		return (ssize_t)n;
	}
	/* a non-blocking descriptor (a standard input some parents leave
	 * so) waits for data as a blocking one would */
	return picl_read_wait(in->fd, buf, cap);
}

/*
 * At the end of a regular file: PICL_OK, or an error when the file is now
 * shorter than what was read of it. It was truncated under the reader, so
 * this end is not the end of the data read so far, and what came before
 * may be half of a rewrite: taking it for the whole file would be wrong,
 * silently so when the cut fell on a line's end. A file whose size said
 * nothing when it was opened (0, as in /proc) is not checked.
 */
static int check_end(struct picl_input *in, struct picl_error *err)
{
	struct stat st;
	off_t pos;

	if (in->open_size <= 0 || fstat(in->fd, &st) < 0 ||
	    (pos = lseek(in->fd, 0, SEEK_CUR)) < 0 || pos <= st.st_size)
		return PICL_OK;
	picl_set_error(err, PICL_ERR_IO, "the file shrank while it was read (to %lld "
		       "bytes, %lld were read)", (long long)st.st_size, (long long)pos);
	if (err)
		err->sys_errno = 0;
	return PICL_ERR_IO;
}

/* Read raw (compressed or not) bytes: the peeked ones first. */
static ssize_t raw_read(struct picl_input *in, void *buf, size_t cap)
{
	if (in->peek_pos < in->peek_len) {
		size_t n = in->peek_len - in->peek_pos;

		if (n > cap)
			n = cap;
		memcpy(buf, in->peek + in->peek_pos, n);
		in->peek_pos += n;
		return (ssize_t)n;
	}
	return source_read(in, buf, cap);
}

static int detect(struct picl_input *in, struct picl_error *err)
{
	static const unsigned char magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

	/* (from the source: a first read of fewer than 4 bytes, a pipe's,
	 * is followed by more, not by copies of the bytes peeked) */
	while (in->peek_len < 4) {
		ssize_t n = source_read(in, in->peek + in->peek_len, 4 - in->peek_len);

		if (n < 0) {
			if (err)
				err->sys_errno = errno;
			return picl_set_error(err, PICL_ERR_IO, "cannot read: %s",
					      strerror(errno));
		}
		if (n == 0)
			break;
		in->peek_len += (size_t)n;
	}
	/* a zstd frame, or a skippable frame (magic 0x184D2A50-5F, little
	 * endian) that zstd streams may start with */
	if (in->peek_len == 4 &&
	    (memcmp(in->peek, magic, 4) == 0 ||
	     ((in->peek[0] & 0xf0) == 0x50 && (unsigned char)in->peek[1] == 0x2a &&
	      (unsigned char)in->peek[2] == 0x4d && (unsigned char)in->peek[3] == 0x18))) {
		in->zds = ZSTD_createDStream();
		in->zin_cap = ZSTD_DStreamInSize();
		in->zin = malloc(in->zin_cap);
		in->zout_cap = ZSTD_DStreamOutSize();
		in->zout = malloc(in->zout_cap);
		if (!in->zds || !in->zin || !in->zout)
			return picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
		ZSTD_initDStream(in->zds);
		in->compressed = 1;
	}
	return PICL_OK;
}

struct picl_input *picl_input_from_fd(int fd, int own, struct picl_error *err, int *status)
{
	struct picl_input *in = calloc(1, sizeof(*in));
	struct stat st;
	int rc;

	if (!in) {
		*status = picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
		return NULL;
	}
	in->fd = fd;
	in->own_fd = own;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		in->open_size = st.st_size;
#ifdef POSIX_FADV_SEQUENTIAL
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	rc = detect(in, err);
	if (rc < 0) {
		in->own_fd = 0;   /* the caller's still: it closes it, once */
		picl_input_free(in);
		*status = rc;
		return NULL;
	}
	*status = PICL_OK;
	return in;
}

struct picl_input *picl_input_from_memory(const void *buf, size_t len,
					  struct picl_error *err, int *status)
{
	struct picl_input *in = calloc(1, sizeof(*in));
	int rc;

	if (!in) {
		*status = picl_set_error(err, PICL_ERR_NOMEM, "out of memory");
		return NULL;
	}
	in->fd = -1;
	in->mem = buf;
	in->mem_len = len;
	rc = detect(in, err);
	if (rc < 0) {
		picl_input_free(in);
		*status = rc;
		return NULL;
	}
	*status = PICL_OK;
	return in;
}

int picl_input_is_compressed(const struct picl_input *in)
{
	return in->compressed;
}

/* Decode the next block of output into in->zout. 1 with zout_len > 0, 0 at
 * the clean end, < 0 on a read error; a decoding error is kept in zfail
 * (after whatever the failing call still produced). */
static int zstd_refill(struct picl_input *in, struct picl_error *err)
{
	ZSTD_outBuffer out = { in->zout, in->zout_cap, 0 };

	in->zout_pos = in->zout_len = 0;
	while (out.pos == 0) {
		if (in->zib.pos == in->zib.size && !in->raw_eof) {
			ssize_t n = raw_read(in, in->zin, in->zin_cap);

			if (n < 0) {
				if (err)
					err->sys_errno = errno;
				return picl_set_error(err, PICL_ERR_IO, "cannot read: %s",
						      strerror(errno));
			}
			in->zread += (uint64_t)n;
			if (n == 0) {
				int rc = check_end(in, err);

				if (rc < 0)
					return rc;
				in->raw_eof = 1;
			}
			in->zib.src = in->zin;
			in->zib.size = (size_t)n;
			in->zib.pos = 0;
		}
		if (in->zib.pos == in->zib.size && in->raw_eof && in->zret == 0)
			return 0;
		/* With the input all read, this still flushes what the decoder
		 * holds; only when nothing comes out is a frame unfinished. */
		in->zret = ZSTD_decompressStream(in->zds, &out, &in->zib);
		if (ZSTD_isError(in->zret)) {
			in->zfail = PICL_ERR_COMPRESS;
			in->zfail_code = in->zret;
			break;
		}
		if (in->zret == 0)
			in->zframe_end = in->zread - (in->zib.size - in->zib.pos);
		if (out.pos == 0 && in->zib.pos == in->zib.size && in->raw_eof) {
			if (in->zret == 0)
				return 0;
			in->zfail = PICL_ERR_COMPRESS;
			in->zfail_code = 0;
			break;
		}
	}
	in->zout_len = out.pos;
	return 1;
}

/* Say why decoding stopped. A frame that needs what this decoder does not
 * have (a dictionary, a window over zstd's default limit) is well formed:
 * saying "corrupt" would send the user looking for damage. */
static int zstd_failure(const struct picl_input *in, struct picl_error *err)
{
	if (!in->zfail_code)
		return picl_set_error(err, in->zfail, "compressed input is truncated");
	switch (ZSTD_getErrorCode(in->zfail_code)) {
	case ZSTD_error_dictionary_wrong:
		return picl_set_error(err, in->zfail, "compressed with a zstd dictionary, "
				      "which is not supported: decompress it first "
				      "(zstd -d -D DICTIONARY)");
	case ZSTD_error_frameParameter_windowTooLarge:
		/* (the decoder's default limit, 1 << 27: memory stays bounded) */
		return picl_set_error(err, in->zfail, "compressed with a zstd window over "
				      "128 MiB (zstd --long), which is not supported: "
				      "decompress it first (zstd -d --long=31)");
	case ZSTD_error_prefix_unknown:
		/* (the first frame's magic was seen: this is one after it) */
		return picl_set_error(err, in->zfail, "corrupt compressed input: not a "
				      "zstd frame at byte %llu of the compressed data, after "
				      "the last one (something appended to it?)",
				      (unsigned long long)in->zframe_end);
	default:
		/* (zstd hands out nothing of the failing call: the mark is
		 * where the damaged stretch begins in the text, this where
		 * its frame begins in the file) */
		return picl_set_error(err, in->zfail, "corrupt compressed input: %s (in the "
				      "frame at byte %llu of the compressed data)",
				      ZSTD_getErrorName(in->zfail_code),
				      (unsigned long long)in->zframe_end);
	}
}

static ssize_t zstd_read(struct picl_input *in, void *buf, size_t cap,
			 struct picl_error *err)
{
	for (;;) {
		size_t n = in->zout_len - in->zout_pos;
		int rc;

		if (n > 0) {
			if (n > cap)
				n = cap;
			memcpy(buf, in->zout + in->zout_pos, n);
			in->zout_pos += n;
			return (ssize_t)n;
		}
		if (in->zfail)
			return zstd_failure(in, err);
		rc = zstd_refill(in, err);
		if (rc <= 0)
			return rc;
	}
}

ssize_t picl_input_read(struct picl_input *in, void *buf, size_t cap,
			struct picl_error *err)
{
	ssize_t n;

	if (in->compressed)
		return zstd_read(in, buf, cap, err);
	n = raw_read(in, buf, cap);
	if (n < 0) {
		if (err)
			err->sys_errno = errno;
		return picl_set_error(err, PICL_ERR_IO, "cannot read: %s", strerror(errno));
	}
	if (n == 0)
		return check_end(in, err);
	return n;
}

void picl_input_free(struct picl_input *in)
{
	if (!in)
		return;
	if (in->own_fd && in->fd >= 0)
		close(in->fd);
	ZSTD_freeDStream(in->zds);
	free(in->zin);
	free(in->zout);
	free(in);
}

int picl_input_is_regular(const struct picl_input *in)
{
	struct stat st;

	return in->fd >= 0 && fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode);
}

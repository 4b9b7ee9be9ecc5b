/*
 * input.h - the reader's byte sources (file descriptor, memory, zstd), not
 * installed. See input.c.
 */
#ifndef PICL_INPUT_H
#define PICL_INPUT_H

#include "internal.h"

#include <sys/types.h>

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)   /* the library's own (internal.h) */
#endif

struct picl_input;

/* Wrap fd (closed by picl_input_free when own is 1). Reads the first bytes to
 * recognise zstd. NULL on failure with *status and err set; fd is not
 * closed then, whatever own says. */
struct picl_input *picl_input_from_fd(int fd, int own, struct picl_error *err,
				      int *status);
struct picl_input *picl_input_from_memory(const void *buf, size_t len,
					  struct picl_error *err, int *status);

/* Fill buf with up to cap decompressed bytes: > 0 bytes read, 0 at the end,
 * < 0 a status (err set). */
ssize_t picl_input_read(struct picl_input *in, void *buf, size_t cap,
			struct picl_error *err);

int picl_input_is_compressed(const struct picl_input *in);
/* 1 if the input is a regular file (reads never wait for a writer). */
int picl_input_is_regular(const struct picl_input *in);
void picl_input_free(struct picl_input *in);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif

/*
 * read-bench.c - how fast libpicl-trace reads a trace.
 *
 * Reads every record of FILE (plain or zstd, "-" for standard input) with
 * picl_reader_open/picl_reader_next, decoding every record's data (or, with
 * --raw, only splitting the six fixed fields: PICL_READ_RAW; --parallel
 * parses on every core: PICL_READ_PARALLEL), and prints on
 * standard output
 *
 *     records N values N errors N checksum X
 *
 * where the checksum folds the processor id of every record and every
 * decoded value (integers as they are, doubles by their bits, character
 * and string data by their length) so the work cannot be optimised away and
 * two runs on the same trace can be compared. Elapsed wall-clock seconds
 * and MB/s (10^6 bytes of decompressed input per second) go to standard
 * error. A malformed record is counted and skipped (the first three are
 * reported); an I/O or decompression error stops the run with status 1.
 *
 * Usage: read-bench [--raw] [--parallel] [--buffer BYTES] FILE
 */
#include "picl-trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

static uint64_t value_bits(const struct picl_value *v)
{
	uint64_t u;

	switch (v->kind) {
	case PICL_VAL_INT:
		return (uint64_t)v->v.i;
	case PICL_VAL_UINT:
		return v->v.u;
	case PICL_VAL_FLOAT:
	case PICL_VAL_DOUBLE:
		memcpy(&u, &v->v.d, sizeof(u));
		return u;
	default:
		return (uint64_t)v->v.s.len;
	}
}

static const char usage[] = "usage: read-bench [--raw] [--parallel] [--buffer BYTES] FILE\n";

int main(int argc, char **argv)
{
	struct picl_reader_options opts;
	struct picl_reader *r;
	struct picl_record rec;
	struct picl_error err;
	const char *path = NULL;
	uint64_t records = 0, values = 0, errors = 0, sum = 0;
	double t0, dt;
	int i, rc, status = 0;

	memset(&opts, 0, sizeof(opts));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--raw")) {
			opts.flags |= PICL_READ_RAW;
		} else if (!strcmp(argv[i], "--parallel")) {
			opts.flags |= PICL_READ_PARALLEL;
		} else if (!strcmp(argv[i], "--buffer") && i + 1 < argc) {
			opts.buffer_size = (size_t)strtoull(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!path && (argv[i][0] != '-' || !strcmp(argv[i], "-"))) {
			path = argv[i];
		} else {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (!path) {
		fputs(usage, stderr);
		return 2;
	}

	t0 = now();
	memset(&err, 0, sizeof(err));
	r = picl_reader_open(path, &opts, &status, &err);
	if (!r) {
		char buf[512];

		fprintf(stderr, "read-bench: %s\n", picl_error_format(&err, buf, sizeof(buf)));
		return 1;
	}

	while ((rc = picl_reader_next(r, &rec)) != PICL_END) {
		size_t k;

		if (rc < 0) {
			char buf[512];

			if (errors < 3 || picl_reader_error_is_fatal(r))
				fprintf(stderr, "read-bench: %s\n",
					picl_error_format(picl_reader_error(r), buf, sizeof(buf)));
			if (picl_reader_error_is_fatal(r)) {
				picl_reader_free(r);
				return 1;
			}
			errors++;
			continue;
		}
		records++;
		sum = mix(sum, (uint64_t)(int64_t)rec.processor);
		for (k = 0; k < rec.nvalues; k++)
			sum = mix(sum, value_bits(&rec.values[k]));
		values += rec.nvalues;
	}
	dt = now() - t0;

	printf("records %llu values %llu errors %llu checksum %016llx\n",
	       (unsigned long long)records, (unsigned long long)values,
	       (unsigned long long)errors, (unsigned long long)sum);
	fprintf(stderr, "read-bench: %s%s: %.3f s, %.1f MB/s (%llu bytes%s)\n",
		path, (opts.flags & PICL_READ_RAW) ? " (raw)" : "", dt,
		dt > 0 ? (double)picl_reader_offset(r) / dt / 1e6 : 0.0,
		(unsigned long long)picl_reader_offset(r),
		picl_reader_is_compressed(r) ? " decompressed" : "");
	picl_reader_free(r);
	return errors ? 1 : 0;
}

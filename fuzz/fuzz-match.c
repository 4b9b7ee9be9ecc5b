/*
 * fuzz-match.c - libFuzzer target for the message matcher, fed with the
 * records the reader makes of the input (sends, receives, broadcasts,
 * non-blocking requests, whatever the bytes say). The matcher must take
 * any sequence of records without crashing or leaking, whether or not the
 * processors are declared (the first byte decides), and never report more
 * matched messages than there were receive records.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "picl-trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
	uint64_t matched;
};

static int count(void *ctx, enum picl_match_kind kind, const struct picl_message *msg)
{
	struct tally *t = ctx;

	(void)msg;
	if (kind == PICL_MATCH_OK)
		t->matched++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int32_t procs[] = { 0, 1, 2, 3, 32767 };
	struct picl_reader *r;
	struct picl_matcher *m;
	struct picl_record rec;
	struct tally t = { 0 };
	uint64_t recvs = 0;
	int rc, declare = size > 0 && (data[0] & 1);

	r = picl_reader_open_memory(data, size, "fuzz", NULL, &rc, NULL);
	if (!r)
		return 0;
	m = picl_matcher_new(count, &t);
	if (!m)
		abort();
	if (declare && picl_matcher_expect_processors(m, procs, 5) != PICL_OK)
		abort();
	while ((rc = picl_reader_next(r, &rec)) != PICL_END) {
		if (rc < 0) {
			if (picl_reader_error_is_fatal(r))
				break;
			continue;
		}
		if (rec.event == -51 || rec.event == -52 || rec.event == -58 ||
		    rec.event == -60 || rec.event == -61)
			recvs++;
		if (picl_matcher_add(m, &rec) == PICL_ERR_NOMEM)
			break;
	}
	(void)picl_matcher_pending(m);
	(void)picl_matcher_finish(m);
	if (t.matched > recvs)
		abort();
	picl_matcher_free(m);
	picl_reader_free(r);
	return 0;
}

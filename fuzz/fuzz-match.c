/*
 * fuzz-match.c - libFuzzer target for the message matcher, fed with the
 * records the reader makes of the input (sends, receives, broadcasts,
 * non-blocking requests, whatever the bytes say). The matcher must take
 * any sequence of records without crashing or leaking, whether or not the
 * processors are declared (the first byte decides), and never report more
 * matched messages than there were receive records. Each input is matched
 * twice, all in memory and with the smallest memory limit (waiting
 * messages spilled to a file in $TMPDIR): the callbacks must be the same.
 * Every send carries its own mark as data (picl_matcher_add_data), which
 * must come back with its match or its unmatched report. When the first
 * byte's second bit is set, a third run reports at most one missing
 * receiver of a broadcast by itself and counts the others (spilled): the
 * broadcasts' missing receivers must add up to the same. When its third
 * bit is set, every run matches sends to processor subsets as multicasts
 * (picl_matcher_set_defs with the reader's subsets).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "picl-trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
	uint64_t matched, calls, hash, missing;
	struct picl_matcher *m;
};

static void mix(struct tally *t, uint64_t v)
{
	t->hash = (t->hash ^ v) * 0x100000001b3ULL;
}

static int count(void *ctx, enum picl_match_kind kind, const struct picl_message *msg)
{
	struct tally *t = ctx;
	uint64_t carried[2];

	memcpy(carried, picl_matcher_send_data(t->m), sizeof(carried));
	if (kind == PICL_MATCH_UNMATCHED_RECV ? carried[0] || carried[1]
	    : carried[0] != msg->send_mark.offset || carried[1] != msg->send_mark.line)
		abort();
	if (kind == PICL_MATCH_OK)
		t->matched++;
	if (kind == PICL_MATCH_UNMATCHED_SEND && msg->broadcast)
		t->missing += msg->dst_processor == -1 ? msg->more_missing : 1;
	else if (msg->more_missing)
		abort();
	t->calls++;
	mix(t, (uint64_t)kind);
	mix(t, msg->send_mark.offset);
	mix(t, msg->recv_mark.offset);
	mix(t, (uint64_t)(uint32_t)msg->dst_processor);
	return 0;
}

/* Match the input's records, with every waiting message past the
 * smallest limit spilled when `spill` says so; what the callbacks saw in
 * *t. Returns the receive records met, or UINT64_MAX when the spill file
 * failed (no room in $TMPDIR: not the matcher's fault). */
static uint64_t run(const uint8_t *data, size_t size, int declare, int spill, size_t detail,
		    int multicast, struct tally *t)
{
	static const int32_t procs[] = { 0, 1, 2, 3, 32767 };
	struct picl_reader *r;
	struct picl_matcher *m;
	struct picl_record rec;
	uint64_t recvs = 0, mark[2];
	int rc;

	memset(t, 0, sizeof(*t));
	t->hash = 0xcbf29ce484222325ULL;
	r = picl_reader_open_memory(data, size, "fuzz", NULL, &rc, NULL);
	if (!r)
		return 0;
	m = picl_matcher_new(count, t);
	if (!m)
		abort();
	t->m = m;
	if (declare && picl_matcher_expect_processors(m, procs, 5) != PICL_OK)
		abort();
	if (spill && picl_matcher_set_memory(m, 1, NULL) != PICL_OK)
		abort();
	picl_matcher_set_broadcast_detail(m, detail);
	if (multicast)
		picl_matcher_set_defs(m, picl_reader_defs(r));
	while ((rc = picl_reader_next(r, &rec)) != PICL_END) {
		if (rc < 0) {
			if (picl_reader_error_is_fatal(r))
				break;
			continue;
		}
		if (rec.event == -51 || rec.event == -52 || rec.event == -58 ||
		    rec.event == -60 || rec.event == -61)
			recvs++;
		mark[0] = rec.mark.offset;
		mark[1] = rec.mark.line;
		rc = picl_matcher_add_data(m, &rec, mark, sizeof(mark));
		if (rc == PICL_ERR_IO)
			recvs = UINT64_MAX;
		if (rc == PICL_ERR_NOMEM || rc == PICL_ERR_IO)
			break;
	}
	(void)picl_matcher_pending(m);
	if (recvs != UINT64_MAX && (rc = picl_matcher_finish(m)) == PICL_ERR_IO)
		recvs = UINT64_MAX;
	else if (recvs != UINT64_MAX && rc == PICL_OK && picl_matcher_pending(m) != 0)
		abort();
	picl_matcher_free(m);
	picl_reader_free(r);
	return recvs;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tally mem, disk;
	int declare = size > 0 && (data[0] & 1);
	int multicast = size > 0 && (data[0] & 4);
	uint64_t recvs = run(data, size, declare, 0, SIZE_MAX, multicast, &mem);

	if (mem.matched > recvs)
		abort();
	/* Spilled, the callbacks must be the same, in the same order. */
	if (run(data, size, declare, 1, SIZE_MAX, multicast, &disk) != UINT64_MAX &&
	    (disk.calls != mem.calls || disk.hash != mem.hash))
		abort();
	/* Counted, the missing receivers are as many. */
	if (size > 0 && (data[0] & 2) && run(data, size, declare, 1, 1, multicast, &disk) != UINT64_MAX &&
	    recvs != UINT64_MAX && (disk.missing != mem.missing || disk.matched != mem.matched))
		abort();
	return 0;
}

/*
 * test-match.c - the message matcher: FIFO per channel, wildcard receives,
 * broadcasts, receives before their sends, tachyons, unmatched sides,
 * non-blocking receive requests, records that are no message.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "picl-trace.h"
#include "tmp.h"

struct seen {
	char log[4096];
};

static int record(void *ctx, enum picl_match_kind kind, const struct picl_message *m)
{
	struct seen *s = ctx;
	char st[PICL_TIME_BUFSIZE], rt[PICL_TIME_BUFSIZE];
	size_t n = strlen(s->log);

	picl_time_format(m->send_time, st);
	picl_time_format(m->recv_time, rt);
	snprintf(s->log + n, sizeof(s->log) - n, "%s %d->%d t%d len%lld/%lld s%s@%llu r%s@%llu%s%s\n",
		 kind == PICL_MATCH_OK ? "match" :
		 kind == PICL_MATCH_UNMATCHED_SEND ? "lost-send" : "lost-recv",
		 (int)m->src_processor, (int)m->dst_processor, (int)m->type,
		 (long long)m->send_length, (long long)m->recv_length,
		 st, (unsigned long long)m->send_mark.line,
		 rt, (unsigned long long)m->recv_mark.line,
		 m->broadcast ? " bcast" : "", m->more_missing ? " more" : "");
	if (m->more_missing)
		snprintf(s->log + strlen(s->log) - 1, sizeof(s->log) - strlen(s->log) + 1,
			 "%llu\n", (unsigned long long)m->more_missing);
	return 0;
}

/* picl_matcher_set_broadcast_detail for run_declared (SIZE_MAX: every
 * missing receiver one by one, the default). */
static size_t run_detail = SIZE_MAX;

/* Whether run_declared gives the matcher the reader's subsets
 * (picl_matcher_set_defs). */
static int run_defs;

/* Match the trace (with the processors declared when procs is given);
 * returns what was still pending before picl_matcher_finish. */
static uint64_t run_declared(const char *trace, const int32_t *procs, size_t nprocs,
			     struct seen *s)
{
	struct picl_reader *r;
	struct picl_matcher *m;
	struct picl_record rec;
	uint64_t pending;
	int rc;

	memset(s, 0, sizeof(*s));
	r = picl_reader_open_memory(trace, strlen(trace), "t", NULL, &rc, NULL);
	ck_assert_ptr_nonnull(r);
	m = picl_matcher_new(record, s);
	if (run_detail != SIZE_MAX)
		picl_matcher_set_broadcast_detail(m, run_detail);
	if (run_defs)
		picl_matcher_set_defs(m, picl_reader_defs(r));
	if (procs)
		ck_assert_int_eq(picl_matcher_expect_processors(m, procs, nprocs), PICL_OK);
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK)
		ck_assert_int_eq(picl_matcher_add(m, &rec), PICL_OK);
	ck_assert_int_eq(rc, PICL_END);
	pending = picl_matcher_pending(m);
	ck_assert_int_eq(picl_matcher_finish(m), PICL_OK);
	picl_matcher_free(m);
	picl_reader_free(r);
	return pending;
}

static void run(const char *trace, struct seen *s)
{
	run_declared(trace, NULL, 0, s);
}

START_TEST(fifo_per_channel)
{
	struct seen s;

	run("-3 -21 1 0 0 3 2 8 5 1\n"      /* 0 -> 1 type 5, 8 bytes */
	    "-3 -21 2 0 0 3 2 16 5 1\n"     /* 0 -> 1 type 5, 16 bytes */
	    "-3 -21 3 0 0 3 2 4 6 1\n"      /* 0 -> 1 type 6 */
	    "-4 -52 4 1 0 3 2 4 6 0\n"      /* 1 gets type 6 first */
	    "-4 -51 5 1 0 3 2 8 5 0\n"
	    "-4 -52 6 1 0 3 2 16 5 0\n", &s);
	ck_assert_str_eq(s.log,
		"match 0->1 t6 len4/4 s3@3 r4@4\n"
		"match 0->1 t5 len8/8 s1@1 r5@5\n"
		"match 0->1 t5 len16/16 s2@2 r6@6\n");
}
END_TEST

START_TEST(recv_before_send_and_tachyon)
{
	struct seen s;

	/* Per-node files one after the other: node 1's receive comes first. */
	run("-4 -52 0.5 1 0 3 2 8 5 0\n"
	    "-3 -21 0.7 0 0 3 2 8 5 1\n", &s);
	ck_assert_str_eq(s.log, "match 0->1 t5 len8/8 s0.7@2 r0.5@1\n");
}
END_TEST

/* A send to a processor subset: with the subsets, one send to each member
 * but the sender, each once, as the subset stands at the send; without
 * them, and to a subset never defined, nothing is matched. */
START_TEST(multicast)
{
	static const char trace[] =
		"-201 -1 0 -1 -1 6 \"%d\" -5 2 0 1 2 -3\n"
		"-3 -21 1 0 0 3 2 8 4 -5\n"
		"-3 -21 2 0 0 3 2 8 4 -9\n"   /* subset -9 undefined */
		"-201 -1 3 -1 -1 2 \"%d\" -5 3\n"
		"-3 -21 3 0 0 3 2 16 4 -5\n"  /* now only processor 3 */
		"-4 -52 4 2 0 3 2 8 4 0\n"
		"-4 -52 5 1 0 3 2 8 4 0\n"
		"-4 -52 6 3 0 3 2 16 4 0\n";
	struct seen s;

	run_defs = 1;
	run(trace, &s);
	run_defs = 0;
	ck_assert_str_eq(s.log,
		"match 0->2 t4 len8/8 s1@2 r4@6\n"
		"match 0->1 t4 len8/8 s1@2 r5@7\n"
		"match 0->3 t4 len16/16 s3@5 r6@8\n");
	run(trace, &s);
	ck_assert_str_eq(s.log,
		"lost-recv 0->2 t4 len-1/8 s0@0 r4@6\n"
		"lost-recv 0->1 t4 len-1/8 s0@0 r5@7\n"
		"lost-recv 0->3 t4 len-1/16 s0@0 r6@8\n");
}
END_TEST

START_TEST(broadcast)
{
	struct seen s;

	run("-3 -901 0 0 0 0\n-3 -901 0 1 0 0\n-3 -901 0 2 0 0\n-3 -901 0 3 0 0\n"
	    "-3 -901 0 32767 0 0\n"
	    "-3 -21 1 0 0 3 2 8 0 -1\n"
	    "-4 -52 2 1 0 3 2 8 0 0\n"
	    "-4 -52 3 3 0 3 2 8 0 0\n", &s);
	ck_assert_str_eq(s.log,
		"match 0->1 t0 len8/8 s1@6 r2@7 bcast\n"
		"match 0->3 t0 len8/8 s1@6 r3@8 bcast\n"
		"lost-send 0->2 t0 len8/-1 s1@6 r0@0 bcast\n");
}
END_TEST

START_TEST(broadcast_late_processor)
{
	struct seen s;

	/* Per-node order: processor 2 appears only after 1 has received the
	 * broadcast; the broadcast must still be there for it. */
	run("-3 -901 0 0 0 0\n-3 -21 1 0 0 3 2 8 0 -1\n"
	    "-3 -901 0 1 0 0\n-4 -52 2 1 0 3 2 8 0 0\n"
	    "-3 -901 0 2 0 0\n-4 -52 2.5 2 0 3 2 8 0 0\n", &s);
	ck_assert_str_eq(s.log,
		"match 0->1 t0 len8/8 s1@2 r2@4 bcast\n"
		"match 0->2 t0 len8/8 s1@2 r2.5@6 bcast\n");
}
END_TEST

START_TEST(nonblocking_and_marks)
{
	struct seen s;

	/* recvbegin0, recvstatus0 completes request 5, recvend0 of request 5
	 * repeats it: one message. A -52 mark with 6 values (3 + 3 fields).
	 * A receive from an unknown source is not matched. */
	run("-3 -21 1 0 0 3 2 8 5 1\n"
	    "-3 -21 1.1 0 0 3 2 4 6 1\n"
	    "-3 -57 2 1 0 1 2 5\n-4 -57 2.1 1 0 1 2 5\n"
	    "-3 -58 3 1 0 1 2 5\n-4 -58 3.1 1 0 3 2 8 5 0\n"
	    "-3 -60 4 1 0 1 2 5\n-4 -60 4.1 1 0 3 2 8 5 0\n"
	    "-2 -52 5 1 0 6 2 6 0 -1 4 6 0\n"
	    "-4 -51 6 1 0 3 2 8 9 -1\n", &s);
	ck_assert_str_eq(s.log,
		"match 0->1 t5 len8/8 s1@1 r3.1@6\n"
		"match 0->1 t6 len4/4 s1.1@2 r5@9\n");
}
END_TEST

START_TEST(table20_view)
{
	struct seen s;

	/* Processor 6's records of Table 20: it received two messages and sent
	 * one, but the other ends are not in the file. */
	run("-3 -901 -0.715036 6 0 0\n"
	    "-3 -52 0.000128 6 0 1 2 0\n"
	    "-4 -52 0.000516 6 0 3 2 8 0 0\n"
	    "-3 -52 0.000818 6 0 1 2 1\n"
	    "-4 -52 0.001643 6 0 3 2 8 1 5\n"
	    "-3 -21 0.001665 6 0 3 2 8 1 7\n"
	    "-4 -21 0.001711 6 0 0\n", &s);
	ck_assert_str_eq(s.log,
		"lost-send 6->7 t1 len8/-1 s0.001665@6 r0@0\n"
		"lost-recv 0->6 t0 len-1/8 s0@0 r0.000516@3\n"
		"lost-recv 5->6 t1 len-1/8 s0@0 r0.001643@5\n");
}
END_TEST

START_TEST(conceptual_two_nodes)
{
	struct seen s;

	/* The coNCePTuaL example (shared/external/picl): 4-field sends. */
	run("-3 -21 0.00001 0 0 4 2 32768 1 1 1\n"
	    "-3 -52 0.00001 1 1 3 2 1 0 0\n"
	    "-4 -52 0.00002 1 1 4 2 32768 1 0 0\n"
	    "-3 -21 0.00002 1 1 4 2 256 1 0 0\n"
	    "-4 -52 0.00003 0 0 4 2 256 1 1 1\n", &s);
	ck_assert_str_eq(s.log,
		"match 0->1 t1 len32768/32768 s0.00001@1 r0.00002@3\n"
		"match 1->0 t1 len256/256 s0.00002@4 r0.00003@5\n");
}
END_TEST

START_TEST(request_posted_again)
{
	struct seen s;

	/* recvstatus0 completes request 5 and no recvend0 follows; recvbegin0
	 * posts request 5 again (PICL uses the type as the id), so the next
	 * recvend0 of 5 is a receive of its own. */
	run("-3 -21 1 0 0 3 2 8 5 1\n"
	    "-3 -21 1.1 0 0 3 2 16 5 1\n"
	    "-3 -57 2 1 0 1 2 5\n-4 -57 2.1 1 0 1 2 5\n"
	    "-3 -58 3 1 0 1 2 5\n-4 -58 3.1 1 0 3 2 8 5 0\n"
	    "-3 -57 4 1 0 1 2 5\n-4 -57 4.1 1 0 1 2 5\n"
	    "-3 -61 5 1 0 1 2 5\n-4 -61 5.1 1 0 3 2 16 5 0\n", &s);
	ck_assert_str_eq(s.log,
		"match 0->1 t5 len8/8 s1@1 r3.1@6\n"
		"match 0->1 t5 len16/16 s1.1@2 r5.1@10\n");
}
END_TEST

START_TEST(request_marks)
{
	struct seen s;

	/* Marks carry the request id first: a -58 mark completes request 7,
	 * the -61 mark of 7 is the same message; request 9 was not completed,
	 * so its -60 mark is a receive. */
	run("-3 -21 1 0 0 3 2 8 5 1\n"
	    "-3 -21 1.1 0 0 3 2 4 6 1\n"
	    "-2 -58 2 1 0 4 2 7 8 5 0\n"
	    "-2 -61 3 1 0 4 2 7 8 5 0\n"
	    "-2 -60 4 1 0 4 2 9 4 6 0\n", &s);
	ck_assert_str_eq(s.log,
		"match 0->1 t5 len8/8 s1@1 r2@3\n"
		"match 0->1 t6 len4/4 s1.1@2 r4@5\n");
}
END_TEST

START_TEST(request_of_innermost_entry)
{
	struct seen s;

	/* An exit closes the innermost open entry of its own event: the -58
	 * exit completes request 1 (not 2, opened since by -60), so the later
	 * recvend0 of request 1 is a repeat. */
	run("-3 -21 1 0 0 3 2 8 5 1\n"
	    "-3 -21 1.1 0 0 3 2 8 5 1\n"
	    "-3 -58 2 1 0 1 2 1\n"
	    "-3 -60 2.1 1 0 1 2 2\n"
	    "-4 -60 2.2 1 0 3 2 8 5 0\n"
	    "-4 -58 2.3 1 0 3 2 8 5 0\n"
	    "-3 -60 3 1 0 1 2 1\n-4 -60 3.1 1 0 3 2 8 5 0\n", &s);
	ck_assert_str_eq(s.log,
		"match 0->1 t5 len8/8 s1@1 r2.2@5\n"
		"match 0->1 t5 len8/8 s1.1@2 r2.3@6\n");
}
END_TEST

START_TEST(fields_not_a_message)
{
	struct seen s;

	/* Not matched: a typeless message (type -1), a destination beyond the
	 * processor ids (not a broadcast) or below -1, a record of processor
	 * -1, data that are not integers. A negative length is not given. */
	run("-3 -21 1 0 0 3 2 8 -1 1\n"
	    "-4 -52 2 1 0 3 2 8 -1 0\n"
	    "-3 -21 3 0 0 3 2 8 1 5000000000\n"
	    "-3 -21 4 0 0 3 2 8 1 -3\n"
	    "-3 -21 5 -1 0 3 2 8 1 1\n"
	    "-3 -21 6 0 0 3 5 8.5 1 1\n"
	    "-3 -21 7 0 0 3 2 -5 1 1\n"
	    "-4 -52 8 1 0 3 2 8 1 0\n", &s);
	ck_assert_str_eq(s.log, "match 0->1 t1 len-1/8 s7@7 r8@8\n");
}
END_TEST

START_TEST(own_broadcast)
{
	struct seen s;

	/* A processor does not receive its own broadcast: neither the receive
	 * from itself waiting when it is sent, nor one that comes later. */
	run("-3 -901 0 0 0 0\n-3 -901 0 1 0 0\n"
	    "-4 -52 0.5 0 0 3 2 8 0 0\n"
	    "-3 -21 1 0 0 3 2 8 0 -1\n"
	    "-4 -52 2 1 0 3 2 8 0 0\n"
	    "-3 -21 3 0 0 3 2 8 0 0\n"
	    "-4 -52 4 0 0 3 2 8 0 0\n", &s);
	ck_assert_str_eq(s.log,
		"match 0->1 t0 len8/8 s1@4 r2@5 bcast\n"
		"match 0->0 t0 len8/8 s3@6 r0.5@3\n"
		"lost-recv 0->0 t0 len-1/8 s0@0 r4@7\n");
}
END_TEST

/* Three broadcasts of processor 0 that processors 1 and 2 receive, the
 * last one on 2 only. */
static const char three_broadcasts[] =
	"-4 -52 1 2 0 3 2 8 0 0\n"
	"-4 -52 1 1 0 3 2 8 0 0\n"
	"-3 -21 0.5 0 0 3 2 8 0 -1\n"
	"-3 -21 2 0 0 3 2 8 0 -1\n"
	"-4 -52 3 1 0 3 2 8 0 0\n"
	"-4 -52 3 2 0 3 2 8 0 0\n"
	"-3 -21 4 0 0 3 2 8 0 -1\n"
	"-4 -52 5 2 0 3 2 8 0 0\n";

START_TEST(broadcast_declared_processors)
{
	const char *trace = three_broadcasts;
	static const int32_t procs[] = { 2, 0, 32767, 1, 2 };
	static const char want[] =
		"match 0->2 t0 len8/8 s0.5@3 r1@1 bcast\n"   /* waiting receives, */
		"match 0->1 t0 len8/8 s0.5@3 r1@2 bcast\n"   /* channels' order */
		"match 0->1 t0 len8/8 s2@4 r3@5 bcast\n"
		"match 0->2 t0 len8/8 s2@4 r3@6 bcast\n"
		"match 0->2 t0 len8/8 s4@7 r5@8 bcast\n"
		"lost-send 0->1 t0 len8/-1 s4@7 r0@0 bcast\n";
	struct seen s;

	/* Declared: a broadcast goes once 1 and 2 have it (the host aside). */
	ck_assert_uint_eq(run_declared(trace, procs, 5, &s), 1);
	ck_assert_str_eq(s.log, want);
	/* Not declared: all three stay until the end. */
	ck_assert_uint_eq(run_declared(trace, NULL, 0, &s), 3);
	ck_assert_str_eq(s.log, want);
}
END_TEST

/*
 * Broadcasts few receive, reported with a detail: the first missing
 * receivers one by one, in processor order, then how many more. The
 * receivers are counted as the broadcasts are had (the host and the
 * sender never miss one), so the count needs no look-up per processor.
 */
START_TEST(broadcast_detail)
{
	/* processors 0-5 and the host; 0 broadcasts twice, 2 receives the
	 * first, 4 both; the host's receive finds nothing (a broadcast goes
	 * to the nodes only) */
	const char *trace =
		"-3 -901 0 1 0 0\n-3 -901 0 3 0 0\n-3 -901 0 5 0 0\n-3 -901 0 32767 0 0\n"
		"-3 -21 1 0 0 3 2 8 4 -1\n"
		"-3 -21 2 0 0 3 2 8 4 -1\n"
		"-4 -52 3 2 0 3 2 8 4 0\n"
		"-4 -52 3 32767 0 3 2 8 4 0\n"
		"-4 -52 4 4 0 3 2 8 4 0\n"
		"-4 -52 5 4 0 3 2 8 4 0\n";
	static const int32_t procs[] = { 0, 1, 2, 4 };
	struct seen s;

	run_detail = 0;
	run(trace, &s);
	ck_assert_str_eq(s.log,
		"match 0->2 t4 len8/8 s1@5 r3@7 bcast\n"
		"match 0->4 t4 len8/8 s1@5 r4@9 bcast\n"
		"match 0->4 t4 len8/8 s2@6 r5@10 bcast\n"
		"lost-send 0->-1 t4 len8/-1 s1@5 r0@0 bcast more3\n"
		"lost-send 0->-1 t4 len8/-1 s2@6 r0@0 bcast more4\n"
		"lost-recv 0->32767 t4 len-1/8 s0@0 r3@8\n");
	run_detail = 2;
	run(trace, &s);
	ck_assert_ptr_nonnull(strstr(s.log,
		"lost-send 0->1 t4 len8/-1 s1@5 r0@0 bcast\n"
		"lost-send 0->3 t4 len8/-1 s1@5 r0@0 bcast\n"
		"lost-send 0->-1 t4 len8/-1 s1@5 r0@0 bcast more1\n"
		"lost-send 0->1 t4 len8/-1 s2@6 r0@0 bcast\n"
		"lost-send 0->2 t4 len8/-1 s2@6 r0@0 bcast\n"
		"lost-send 0->-1 t4 len8/-1 s2@6 r0@0 bcast more2\n"));
	/* exactly as many as missing: no count after them */
	run_detail = 3;
	run(trace, &s);
	ck_assert_ptr_nonnull(strstr(s.log,
		"lost-send 0->1 t4 len8/-1 s1@5 r0@0 bcast\n"
		"lost-send 0->3 t4 len8/-1 s1@5 r0@0 bcast\n"
		"lost-send 0->5 t4 len8/-1 s1@5 r0@0 bcast\n"
		"lost-send 0->1 t4 len8/-1 s2@6 r0@0 bcast\n"
		"lost-send 0->2 t4 len8/-1 s2@6 r0@0 bcast\n"
		"lost-send 0->3 t4 len8/-1 s2@6 r0@0 bcast\n"
		"lost-send 0->-1 t4 len8/-1 s2@6 r0@0 bcast more1\n"));
	ck_assert_ptr_null(strstr(s.log, "s1@5 r0@0 bcast more"));
	/* declared, 1, 2 and 4 must have them: the first goes to 1 only, the
	 * second to 1 and 2; 3 and 5 receiving nothing are no concern (the
	 * third pending at the end is the host's receive) */
	run_detail = 0;
	ck_assert_uint_eq(run_declared(trace, procs, 4, &s), 3);
	ck_assert_ptr_nonnull(strstr(s.log,
		"lost-send 0->-1 t4 len8/-1 s1@5 r0@0 bcast more1\n"
		"lost-send 0->-1 t4 len8/-1 s2@6 r0@0 bcast more2\n"));
	run_detail = SIZE_MAX;
}
END_TEST

/* The same trace, its processors declared by -307 header records (as
 * merge writes them; several, in any order, aliases among them); a -307
 * record after the header's end, or a call to
 * picl_matcher_expect_processors, overrides nothing / everything. */
START_TEST(broadcast_header_processors)
{
	const char *body = three_broadcasts;
	static const char header[] =
		"-301 -1 0 -1 -1 1 0 x\n"
		"-307 -1 0 -1 -1 2 2 2 0\n"
		"-6 -1 0 -1 -1 1 \"%d%s\" 9 \"%d\"\n"
		"-307 -1 0 -1 -1 2 9 32767 1\n";
	static const char other[] =   /* as many lines, no -307 */
		"-301 -1 0 -1 -1 1 0 x\n"
		"-306 -1 0 -1 -1 1 0 a\n"
		"-6 -1 0 -1 -1 1 \"%d%s\" 9 \"%d\"\n"
		"-306 -1 0 -1 -1 1 0 b\n";
	static const int32_t only1[] = { 0, 1 };
	char trace[1024], plain[1024], late[1024];
	struct seen s, ref;
	struct picl_matcher *m;
	struct picl_reader *r;
	struct picl_record rec;
	int rc, k = 0;

	snprintf(trace, sizeof(trace), "%s%s", header, body);
	snprintf(plain, sizeof(plain), "%s%s", other, body);
	/* the header declares 0, 1, 2 and the host: one left at the end, not
	 * three; the same matches */
	ck_assert_uint_eq(run_declared(trace, NULL, 0, &s), 1);
	ck_assert_uint_eq(run_declared(plain, NULL, 0, &ref), 3);
	ck_assert_str_eq(s.log, ref.log);
	/* a caller's declaration wins over the header's */
	ck_assert_uint_eq(run_declared(trace, only1, 2, &s), run_declared(plain, only1, 2, &ref));
	ck_assert_str_eq(s.log, ref.log);
	/* -307 past the header's end (here, its first record) declares nothing */
	snprintf(late, sizeof(late), "%.23s%s%s", body, header, body + 23);
	ck_assert_uint_eq(run_declared(late, NULL, 0, &s), 3);

	/* in_header and declared, record by record */
	r = picl_reader_open_memory(trace, strlen(trace), "t", NULL, &rc, NULL);
	ck_assert_ptr_nonnull(r);
	m = picl_matcher_new(record, &s);
	ck_assert_ptr_nonnull(m);
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		ck_assert_int_eq(picl_matcher_in_header(m), 1);
		ck_assert_int_eq(picl_matcher_declared(m, 1), -1);
		ck_assert_int_eq(picl_matcher_add(m, &rec), PICL_OK);
		if (++k == 4)
			break;
	}
	ck_assert_int_eq(picl_reader_next(r, &rec), PICL_OK);
	ck_assert_int_eq(picl_matcher_add(m, &rec), PICL_OK);
	ck_assert_int_eq(picl_matcher_in_header(m), 0);
	ck_assert_int_eq(picl_matcher_declared(m, 1), 1);
	ck_assert_int_eq(picl_matcher_declared(m, 32767), 1);
	ck_assert_int_eq(picl_matcher_declared(m, 3), 0);
	picl_matcher_free(m);
	picl_reader_free(r);

	/* ids said again and again (kept once each: the list grows with the
	 * processors, not with the header's text), in records of any size */
	{
		static char big[200000];
		size_t n = 0;
		int i;

		n += (size_t)snprintf(big + n, sizeof(big) - n, "-307 -1 0 -1 -1 30000 2");
		for (i = 0; i < 30000; i++)
			n += (size_t)snprintf(big + n, sizeof(big) - n, " %d", i % 3 ? 7 : 4000 + i % 5);
		n += (size_t)snprintf(big + n, sizeof(big) - n, "\n-307 -1 0 -1 -1 1 2 9\n%s", body);
		ck_assert_uint_lt(n, sizeof(big) - 1);
		r = picl_reader_open_memory(big, n, "t", NULL, &rc, NULL);
		ck_assert_ptr_nonnull(r);
		m = picl_matcher_new(record, &s);
		ck_assert_ptr_nonnull(m);
		while ((rc = picl_reader_next(r, &rec)) == PICL_OK)
			ck_assert_int_eq(picl_matcher_add(m, &rec), PICL_OK);
		ck_assert_int_eq(rc, PICL_END);
		for (i = 4000; i < 4005; i++)
			ck_assert_int_eq(picl_matcher_declared(m, i), 1);
		ck_assert_int_eq(picl_matcher_declared(m, 7), 1);
		ck_assert_int_eq(picl_matcher_declared(m, 9), 1);
		ck_assert_int_eq(picl_matcher_declared(m, 1), 0);
		ck_assert_int_eq(picl_matcher_declared(m, 4005), 0);
		picl_matcher_free(m);
		picl_reader_free(r);
	}
}
END_TEST

/*
 * Churn: thousands of channels made, emptied (and so dropped by the
 * matcher) and made again, in one table that grows and wraps around.
 * Every match must be the one a plain FIFO per (source, destination,
 * type) gives, in the same order; checked against such a FIFO here.
 */
struct pairs {
	uint64_t (*v)[2];
	size_t n, cap;
};

static int record_pair(void *ctx, enum picl_match_kind kind, const struct picl_message *m)
{
	struct pairs *p = ctx;

	ck_assert_int_eq(kind, PICL_MATCH_OK);
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 1024;
		p->v = realloc(p->v, p->cap * sizeof(*p->v));
		ck_assert_ptr_nonnull(p->v);
	}
	p->v[p->n][0] = m->send_mark.line;
	p->v[p->n][1] = m->recv_mark.line;
	p->n++;
	return 0;
}

#define CH_PROCS 6
#define CH_TYPES 700
#define CH_RECORDS 60000

START_TEST(channels_dropped_and_made_again)
{
	/* The reference: per channel, a queue of unmatched lines (positive:
	 * sends, negative: receives), at most CH_RECORDS of them. */
	static int64_t q[CH_PROCS][CH_PROCS][CH_TYPES][8];
	static int qn[CH_PROCS][CH_PROCS][CH_TYPES];
	static uint64_t want[CH_RECORDS][2];
	size_t nwant = 0, len = 0, cap = (size_t)CH_RECORDS * 48, i;
	char *trace = malloc(cap);
	struct pairs got = { NULL, 0, 0 };
	struct picl_reader *r;
	struct picl_matcher *m;
	struct picl_record rec;
	uint64_t x = 88172645463325252ULL;
	int rc;

	ck_assert_ptr_nonnull(trace);
	memset(qn, 0, sizeof(qn));
	for (i = 1; i <= CH_RECORDS; i++) {
		int s, d, t, send, k;
		int *n;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		s = (int)(x % CH_PROCS);
		d = (int)((x >> 8) % CH_PROCS);
		/* mostly a few types, now and then one of many */
		t = (x >> 20) % 4 ? (int)((x >> 24) % 3) : (int)((x >> 24) % CH_TYPES);
		send = (int)((x >> 40) & 1);
		n = &qn[s][d][t];
		if (*n && (q[s][d][t][0] > 0) != send) {   /* matches the head */
			int64_t h = q[s][d][t][0];

			want[nwant][0] = send ? i : (uint64_t)h;
			want[nwant][1] = send ? (uint64_t)-h : i;
			nwant++;
			for (k = 1; k < *n; k++)
				q[s][d][t][k - 1] = q[s][d][t][k];
			(*n)--;
		} else if (*n < 8) {
			q[s][d][t][(*n)++] = send ? (int64_t)i : -(int64_t)i;
		} else {
			send = !send;   /* queue full: the other side instead */
			want[nwant][0] = send ? i : (uint64_t)q[s][d][t][0];
			want[nwant][1] = send ? (uint64_t)-q[s][d][t][0] : i;
			nwant++;
			for (k = 1; k < *n; k++)
				q[s][d][t][k - 1] = q[s][d][t][k];
			(*n)--;
		}
		len += (size_t)snprintf(trace + len, cap - len,
					send ? "-3 -21 %zu %d 0 3 2 8 %d %d\n" :
					       "-4 -52 %zu %d 0 3 2 8 %d %d\n",
					i, send ? s : d, t, send ? d : s);
		ck_assert_uint_lt(len, cap);
	}
	r = picl_reader_open_memory(trace, len, "churn", NULL, &rc, NULL);
	ck_assert_ptr_nonnull(r);
	m = picl_matcher_new(record_pair, &got);
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK)
		ck_assert_int_eq(picl_matcher_add(m, &rec), PICL_OK);
	ck_assert_int_eq(rc, PICL_END);
	picl_matcher_free(m);   /* the unmatched ones are not looked at */
	picl_reader_free(r);
	ck_assert_uint_eq(got.n, nwant);
	for (i = 0; i < nwant; i++) {
		ck_assert_uint_eq(got.v[i][0], want[i][0]);
		ck_assert_uint_eq(got.v[i][1], want[i][1]);
	}
	free(got.v);
	free(trace);
}
END_TEST

/*
 * Spilling: a trace whose processors come one after another (so thousands
 * of messages wait at once) matched with a limit of a few KB must give the
 * callbacks the in-memory matcher gives, in the same order, unmatched ones
 * included; and the limit must really be reached (a temporary directory
 * that cannot be written to then fails, with a message saying so).
 */
struct event {
	int kind, bcast;
	int32_t dst;
	uint64_t send_line, recv_line, more;
};

struct events {
	struct event *v;
	size_t n, cap;
	struct picl_matcher *m;
};

/* What match_spilled gives a send to carry: its line, scrambled. */
static uint64_t send_datum(uint64_t line)
{
	return line * 0x9e3779b97f4a7c15ULL ^ 0x5555;
}

static int record_event(void *ctx, enum picl_match_kind kind, const struct picl_message *m)
{
	struct events *e = ctx;
	const unsigned char *d = picl_matcher_send_data(e->m);
	uint64_t datum, rest;

	/* the send's data came back with it (8 bytes given, the rest zero),
	 * from memory or from the file; an unmatched receive has none */
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq((uintptr_t)d % 16, 0);
	memcpy(&datum, d, 8);
	memcpy(&rest, d + 8, 8);
	ck_assert_uint_eq(rest, 0);
	ck_assert_uint_eq(datum, kind == PICL_MATCH_UNMATCHED_RECV ? 0 : send_datum(m->send_mark.line));
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 1024;
		e->v = realloc(e->v, e->cap * sizeof(*e->v));
		ck_assert_ptr_nonnull(e->v);
	}
	e->v[e->n].kind = (int)kind;
	e->v[e->n].bcast = m->broadcast;
	e->v[e->n].dst = m->dst_processor;
	e->v[e->n].send_line = m->send_mark.line;
	e->v[e->n].recv_line = m->recv_mark.line;
	e->v[e->n].more = m->more_missing;
	e->n++;
	return 0;
}

static int same_event(const struct event *a, const struct event *b)
{
	return a->kind == b->kind && a->bcast == b->bcast && a->dst == b->dst &&
	       a->send_line == b->send_line && a->recv_line == b->recv_line &&
	       a->more == b->more;
}

#define SP_PROCS 5
#define SP_PER_PROC 6000

/* Whether match_spilled declares the processors 0 .. SP_PROCS - 1 (so
 * broadcasts all have had are dropped, and channels count from a base). */
static int declare_procs;
/* Its picl_matcher_set_broadcast_detail (SIZE_MAX: the default). */
static size_t spill_detail = SIZE_MAX;

/* Match `trace` with a limit (0: none) in tmpdir; the first error of
 * picl_matcher_add or _finish, or PICL_OK. */
static int match_spilled(const char *trace, size_t len, size_t limit, const char *tmpdir,
			 struct events *got, char *why, size_t whylen)
{
	struct picl_reader *r;
	struct picl_matcher *m;
	struct picl_record rec;
	int rc, added = PICL_OK;

	r = picl_reader_open_memory(trace, len, "byproc", NULL, &rc, NULL);
	ck_assert_ptr_nonnull(r);
	m = picl_matcher_new(record_event, got);
	ck_assert_ptr_nonnull(m);
	got->m = m;
	ck_assert_int_eq(picl_matcher_set_memory(m, limit, tmpdir), PICL_OK);
	if (spill_detail != SIZE_MAX)
		picl_matcher_set_broadcast_detail(m, spill_detail);
	if (declare_procs) {
		static const int32_t procs[SP_PROCS] = { 0, 1, 2, 3, 4 };

		ck_assert_int_eq(picl_matcher_expect_processors(m, procs, SP_PROCS), PICL_OK);
	}
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK && added == PICL_OK) {
		uint64_t datum = send_datum(rec.mark.line);
		char big[PICL_MATCHER_DATA_MAX + 1] = { 0 };

		/* more than a send can carry is refused, and not taken in */
		ck_assert_int_eq(picl_matcher_add_data(m, &rec, big, sizeof(big)), PICL_ERR_USAGE);
		if (rec.event == -21)
			added = picl_matcher_add_data(m, &rec, &datum, sizeof(datum));
		else
			added = picl_matcher_add(m, &rec);
	}
	if (added == PICL_OK) {
		ck_assert_int_eq(rc, PICL_END);
		added = picl_matcher_finish(m);
		ck_assert_uint_eq(picl_matcher_pending(m), 0);
	}
	if (added != PICL_OK)
		snprintf(why, whylen, "%s", picl_matcher_strerror(m));
	picl_matcher_free(m);
	picl_reader_free(r);
	return added;
}

/*
 * A trace written processor after processor: SP_PER_PROC sends (a few of
 * them broadcasts) and receives on each of SP_PROCS processors, to random
 * peers, of message types 0 .. ntypes - 1 (or, when `steps`, the record's
 * number / steps: a type per step, so channels many and short). Its
 * length in *len.
 */
static char *byproc_trace(int ntypes, int steps, size_t *len)
{
	size_t cap = (size_t)SP_PROCS * SP_PER_PROC * 48, i, line = 0;
	char *trace = malloc(cap);
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	int p;

	ck_assert_ptr_nonnull(trace);
	*len = 0;
	for (p = 0; p < SP_PROCS; p++) {
		for (i = 0; i < SP_PER_PROC; i++) {
			int peer, t, what;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			peer = (int)(x % SP_PROCS);
			t = steps ? (int)(i / (size_t)steps) : (int)((x >> 8) % (uint64_t)ntypes);
			what = (int)((x >> 16) % 100);
			line++;
			if (what < 2)           /* a broadcast now and then */
				*len += (size_t)snprintf(trace + *len, cap - *len,
							 "-3 -21 %zu %d 0 3 2 8 %d -1\n", line, p, t);
			else if (what < 55)     /* sends outnumber receives a little */
				*len += (size_t)snprintf(trace + *len, cap - *len,
							 "-3 -21 %zu %d 0 3 2 8 %d %d\n", line, p,
							 t, peer);
			else
				*len += (size_t)snprintf(trace + *len, cap - *len,
							 "-4 -52 %zu %d 0 3 2 8 %d %d\n", line, p,
							 t, peer);
			ck_assert_uint_lt(*len, cap);
		}
	}
	return trace;
}

START_TEST(spilled_same_as_in_memory)
{
	size_t len, i;
	char dir[512], why[400];
	char *trace = byproc_trace(3, 0, &len);
	struct events mem = { NULL, 0, 0, NULL }, disk = { NULL, 0, 0, NULL };
	struct events small = { NULL, 0, 0, NULL };

	ck_assert_int_lt(test_tmp_path(dir, sizeof(dir), "test-match.XXXXXX"), (int)sizeof(dir));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(match_spilled(trace, len, 0, NULL, &mem, why, sizeof(why)), PICL_OK);
	ck_assert_int_eq(match_spilled(trace, len, 16384, dir, &disk, why, sizeof(why)), PICL_OK);
	/* the smallest limit there is (two queue heads) */
	ck_assert_int_eq(match_spilled(trace, len, 1, dir, &small, why, sizeof(why)), PICL_OK);
	ck_assert_uint_gt(mem.n, 10000);
	ck_assert_uint_eq(disk.n, mem.n);
	ck_assert_uint_eq(small.n, mem.n);
	for (i = 0; i < mem.n; i++) {
		ck_assert(same_event(&disk.v[i], &mem.v[i]));
		ck_assert(same_event(&small.v[i], &mem.v[i]));
	}
	/* the file is unlinked at once: the directory is empty again */
	ck_assert_int_eq(rmdir(dir), 0);
	/* the limit was reached: a directory that is not there fails */
	disk.n = 0;
	ck_assert_int_eq(match_spilled(trace, len, 16384, dir, &disk, why, sizeof(why)),
			 PICL_ERR_IO);
	ck_assert_ptr_nonnull(strstr(why, "cannot make a file for the messages waiting"));
	ck_assert_ptr_nonnull(strstr(why, dir));
	ck_assert_ptr_nonnull(strstr(why, "No such file or directory"));
	/* ... while a limit above what waits never makes one */
	disk.n = 0;
	ck_assert_int_eq(match_spilled(trace, len, (size_t)1 << 30, dir, &disk, why, sizeof(why)),
			 PICL_OK);
	ck_assert_uint_eq(disk.n, mem.n);
	free(mem.v);
	free(disk.v);
	free(small.v);
	free(trace);
}
END_TEST

/* A type per step: thousands of channels of a message or two, which
 * spilling queues leaves in memory; past the limit they move out whole
 * and come back as their partners do, and what is matched, and reported
 * unmatched at the end (broadcasts once per missing receiver), is the
 * same, in the same order. */
START_TEST(channels_moved_out_same_as_in_memory)
{
	static const int steps[] = { 1, 3, 40, 3 };
	char dir[512], why[400];
	size_t len, i, s, k;

	ck_assert_int_lt(test_tmp_path(dir, sizeof(dir), "test-match.XXXXXX"), (int)sizeof(dir));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		/* the last time with the processors declared */
		declare_procs = s == sizeof(steps) / sizeof(steps[0]) - 1;
		static const size_t limits[] = { 1, 4096, 65536 };
		char *trace = byproc_trace(0, steps[s], &len);
		struct events mem = { NULL, 0, 0, NULL };
		size_t unmatched = 0;

		ck_assert_int_eq(match_spilled(trace, len, 0, NULL, &mem, why, sizeof(why)),
				 PICL_OK);
		for (i = 0; i < mem.n; i++)
			unmatched += mem.v[i].kind != PICL_MATCH_OK;
		ck_assert_uint_gt(mem.n - unmatched, 1000);
		ck_assert_uint_gt(unmatched, 1000);
		for (k = 0; k < sizeof(limits) / sizeof(limits[0]); k++) {
			struct events disk = { NULL, 0, 0, NULL };

			ck_assert_int_eq(match_spilled(trace, len, limits[k], dir, &disk, why,
						       sizeof(why)), PICL_OK);
			ck_assert_uint_eq(disk.n, mem.n);
			for (i = 0; i < mem.n; i++)
				ck_assert_msg(same_event(&disk.v[i], &mem.v[i]),
					      "steps %d, limit %zu: event %zu differs", steps[s],
					      limits[k], i);
			free(disk.v);
		}
		free(mem.v);
		free(trace);
	}
	declare_procs = 0;
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* What `full` (every missing receiver reported) becomes with a detail of
 * d: of each broadcast's reports the first d, then their number past d. */
static void with_detail(const struct events *full, size_t d, struct events *out)
{
	size_t i = 0, j, k;

	out->n = 0;
	out->v = malloc((full->n + 1) * sizeof(*out->v));
	ck_assert_ptr_nonnull(out->v);
	while (i < full->n) {
		const struct event *e = &full->v[i];

		if (e->kind != PICL_MATCH_UNMATCHED_SEND || !e->bcast) {
			out->v[out->n++] = full->v[i++];
			continue;
		}
		for (j = i; j < full->n && full->v[j].kind == e->kind && full->v[j].bcast &&
			    full->v[j].send_line == e->send_line; j++)
			;
		for (k = i; k < j && k - i < d; k++)
			out->v[out->n++] = full->v[k];
		if (j - i > d) {
			out->v[out->n] = *e;
			out->v[out->n].dst = PICL_WILDCARD;
			out->v[out->n++].more = j - i - d;
		}
		i = j;
	}
}

/* With a detail, the missing receivers of broadcasts whose channels went
 * to the file and came back, or were read at the end from the runs, are
 * counted as in memory (each broadcast counts its receivers, and the
 * count moves with it). */
START_TEST(broadcast_detail_spilled)
{
	static const int steps[] = { 1, 40, 40 };
	static const size_t limits[] = { 0, 1, 4096 };
	static const size_t details[] = { 0, 1, 3 };
	char dir[512], why[400];
	size_t len, i, s, k, d;

	ck_assert_int_lt(test_tmp_path(dir, sizeof(dir), "test-match.XXXXXX"), (int)sizeof(dir));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		char *trace = byproc_trace(0, steps[s], &len);
		struct events full = { NULL, 0, 0, NULL };
		size_t summed = 0;

		declare_procs = s == 2;
		ck_assert_int_eq(match_spilled(trace, len, 0, NULL, &full, why, sizeof(why)),
				 PICL_OK);
		for (d = 0; d < sizeof(details) / sizeof(details[0]); d++) {
			struct events want;

			with_detail(&full, details[d], &want);
			spill_detail = details[d];
			for (k = 0; k < sizeof(limits) / sizeof(limits[0]); k++) {
				struct events got = { NULL, 0, 0, NULL };

				ck_assert_int_eq(match_spilled(trace, len, limits[k], dir, &got, why,
							       sizeof(why)), PICL_OK);
				ck_assert_uint_eq(got.n, want.n);
				for (i = 0; i < want.n; i++) {
					ck_assert_msg(same_event(&got.v[i], &want.v[i]),
						      "steps %d, detail %zu, limit %zu: event %zu "
						      "differs", steps[s], details[d], limits[k], i);
					summed += got.v[i].more;
				}
				free(got.v);
			}
			free(want.v);
		}
		ck_assert_uint_gt(summed, 100);   /* some were counted */
		spill_detail = SIZE_MAX;
		free(full.v);
		free(trace);
	}
	declare_procs = 0;

	/* One channel's broadcasts, many: past the limit they wait in the
	 * file in chunks, and are received there. Processor 0 broadcasts
	 * 2000 times, 1 receives them all, 2 the first 1000, 3 none. */
	{
		size_t cap = 6000 * 32, line = 0;
		char *trace = malloc(cap);

		ck_assert_ptr_nonnull(trace);
		len = (size_t)snprintf(trace, cap, "-3 -901 0 3 0 0\n");
		line++;
		for (i = 0; i < 2000; i++)
			len += (size_t)snprintf(trace + len, cap - len,
						"-3 -21 %zu 0 0 3 2 8 7 -1\n", ++line);
		for (i = 0; i < 3000; i++)
			len += (size_t)snprintf(trace + len, cap - len,
						"-4 -52 %zu %d 0 3 2 8 7 0\n", ++line,
						i < 2000 ? 1 : 2);
		ck_assert_uint_lt(len, cap);
		spill_detail = 0;
		for (k = 0; k < sizeof(limits) / sizeof(limits[0]); k++) {
			struct events got = { NULL, 0, 0, NULL };

			ck_assert_int_eq(match_spilled(trace, len, limits[k], dir, &got, why,
						       sizeof(why)), PICL_OK);
			ck_assert_uint_eq(got.n, 3000 + 2000);
			for (i = 0; i < 2000; i++) {
				const struct event *e = &got.v[3000 + i];

				ck_assert_int_eq(e->kind, PICL_MATCH_UNMATCHED_SEND);
				ck_assert_uint_eq(e->send_line, 2 + i);
				ck_assert_msg(e->dst == PICL_WILDCARD && e->more == (i < 1000 ? 1 : 2),
					      "limit %zu: broadcast %zu: dst %d, %llu more",
					      limits[k], i, (int)e->dst,
					      (unsigned long long)e->more);
			}
			free(got.v);
		}
		spill_detail = SIZE_MAX;
		free(trace);
	}
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/*
 * A broadcast channel moved out after its first broadcasts went to every
 * declared processor (so its broadcasts count from a base above 0): at the
 * end, each later broadcast is reported once per processor still missing
 * it, numbered from that base as in memory.
 */
START_TEST(broadcast_base_moved_out)
{
	/* receives of processor 0's four broadcasts, by processors 1-4 */
	static const int got[SP_PROCS] = { 0, 3, 2, 4, 2 };
	static const struct { int32_t dst; uint64_t line; } lost[] = {
		{ 2, 3 }, { 4, 3 }, { 1, 4 }, { 2, 4 }, { 4, 4 }
	};
	char dir[512], why[400];
	size_t cap = 4096 * 48, len = 0, line = 0, i, k, l;
	char *trace = malloc(cap);
	int p;

	ck_assert_ptr_nonnull(trace);
	ck_assert_int_lt(test_tmp_path(dir, sizeof(dir), "test-match.XXXXXX"), (int)sizeof(dir));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (i = 0; i < 4; i++)
		len += (size_t)snprintf(trace + len, cap - len, "-3 -21 %zu 0 0 3 2 8 7 -1\n",
					++line);
	for (p = 1; p < SP_PROCS; p++)
		for (i = 0; i < (size_t)got[p]; i++)
			len += (size_t)snprintf(trace + len, cap - len,
						"-4 -52 %zu %d 0 3 2 8 7 0\n", ++line, p);
	/* then thousands of channels, each a send never received, which
	 * push the broadcast channel out past the limit */
	for (i = 0; i < 3000; i++)
		len += (size_t)snprintf(trace + len, cap - len, "-3 -21 %zu 4 0 3 2 8 %zu 3\n",
					++line, 100 + i);
	ck_assert_uint_lt(len, cap);
	declare_procs = 1;
	for (k = 0; k < 3; k++) {
		static const size_t limits[] = { 0, 1, 4096 };
		struct events e = { NULL, 0, 0, NULL };
		size_t nlost = 0;

		ck_assert_int_eq(match_spilled(trace, len, limits[k], dir, &e, why, sizeof(why)),
				 PICL_OK);
		ck_assert_uint_eq(e.n, 3 * 4 - 1 + 5 + 3000);
		for (i = 0; i < e.n; i++) {
			if (!e.v[i].bcast || e.v[i].kind != PICL_MATCH_UNMATCHED_SEND)
				continue;
			for (l = 0; l < sizeof(lost) / sizeof(lost[0]); l++)
				if (lost[l].dst == e.v[i].dst && lost[l].line == e.v[i].send_line)
					break;
			ck_assert_msg(l < sizeof(lost) / sizeof(lost[0]),
				      "limit %zu: broadcast of line %llu reported lost for %d",
				      limits[k], (unsigned long long)e.v[i].send_line,
				      (int)e.v[i].dst);
			nlost++;
		}
		ck_assert_uint_eq(nlost, sizeof(lost) / sizeof(lost[0]));
		free(e.v);
	}
	declare_procs = 0;
	ck_assert_int_eq(rmdir(dir), 0);
	free(trace);
}
END_TEST

/* One long queue, spilled again and again with nothing else written
 * between: its segments lie side by side and merge without a copy; every
 * message still matches its own receive, in order. */
START_TEST(one_long_queue)
{
	char dir[512], why[400];
	size_t cap = 20000 * 40, len = 0, line = 0, i, k;
	char *trace = malloc(cap);
	struct events mem = { NULL, 0, 0, NULL };

	ck_assert_ptr_nonnull(trace);
	ck_assert_int_lt(test_tmp_path(dir, sizeof(dir), "test-match.XXXXXX"), (int)sizeof(dir));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (i = 0; i < 10000; i++)
		len += (size_t)snprintf(trace + len, cap - len, "-3 -21 %zu 0 0 3 2 8 1 1\n", ++line);
	for (i = 0; i < 9990; i++)
		len += (size_t)snprintf(trace + len, cap - len, "-4 -52 %zu 1 0 3 2 8 1 0\n", ++line);
	ck_assert_uint_lt(len, cap);
	ck_assert_int_eq(match_spilled(trace, len, 0, NULL, &mem, why, sizeof(why)), PICL_OK);
	ck_assert_uint_eq(mem.n, 10000);
	for (i = 0; i < mem.n; i++) {
		ck_assert_int_eq(mem.v[i].kind, i < 9990 ? PICL_MATCH_OK : PICL_MATCH_UNMATCHED_SEND);
		ck_assert_uint_eq(mem.v[i].send_line, i + 1);
		if (i < 9990)
			ck_assert_uint_eq(mem.v[i].recv_line, 10000 + i + 1);
	}
	for (k = 0; k < 2; k++) {
		struct events disk = { NULL, 0, 0, NULL };

		ck_assert_int_eq(match_spilled(trace, len, k ? 4096 : 1, dir, &disk, why,
					       sizeof(why)), PICL_OK);
		ck_assert_uint_eq(disk.n, mem.n);
		for (i = 0; i < mem.n; i++)
			ck_assert(same_event(&disk.v[i], &mem.v[i]));
		free(disk.v);
	}
	free(mem.v);
	free(trace);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("match");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60); /* the spilling tests, under the sanitizers */
	tcase_add_test(tc, fifo_per_channel);
	tcase_add_test(tc, recv_before_send_and_tachyon);
	tcase_add_test(tc, broadcast);
	tcase_add_test(tc, broadcast_late_processor);
	tcase_add_test(tc, nonblocking_and_marks);
	tcase_add_test(tc, table20_view);
	tcase_add_test(tc, conceptual_two_nodes);
	tcase_add_test(tc, request_posted_again);
	tcase_add_test(tc, request_marks);
	tcase_add_test(tc, request_of_innermost_entry);
	tcase_add_test(tc, fields_not_a_message);
	tcase_add_test(tc, own_broadcast);
	tcase_add_test(tc, multicast);
	tcase_add_test(tc, broadcast_declared_processors);
	tcase_add_test(tc, broadcast_header_processors);
	tcase_add_test(tc, broadcast_detail);
	tcase_add_test(tc, channels_dropped_and_made_again);
	tcase_add_test(tc, spilled_same_as_in_memory);
	tcase_add_test(tc, channels_moved_out_same_as_in_memory);
	tcase_add_test(tc, broadcast_base_moved_out);
	tcase_add_test(tc, broadcast_detail_spilled);
	tcase_add_test(tc, one_long_queue);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

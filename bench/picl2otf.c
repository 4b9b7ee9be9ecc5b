/*
 * picl2otf.c - write the events of a PICL trace as an OTF trace (one OTF
 * stream per processor), so that `otfmerge` can merge the same events that
 * `picltrace merge` merges: the peer of our own field in bench/run-merge.sh.
 *
 *   picl2otf TRACE.picl OUT-PREFIX
 *
 * Mapping: entry -> Enter, exit -> Leave (function = the event type),
 * send entry -> SendMsg as well, receive exit -> RecvMsg as well, every
 * other record -> an EventComment, so each PICL record gives at least one OTF
 * event. Times are microsecond ticks shifted by 10^9 (PICL times may be
 * negative; OTF's are unsigned). Prints the number of OTF events written.
 */
#include <open-trace-format/otf.h>
#include <stdio.h>
#include <stdlib.h>

#include "picl-trace.h"

#define MAXPROC 4096
#define FUNC_BASE 2000000

static uint64_t ticks(struct picl_time t)
{
	struct picl_time us;

	if (picl_time_rescale(t, 6, &us) < 0)
		us.mant = (int64_t)(picl_time_to_double(t) * 1e6);
	return (uint64_t)(us.mant + 1000000000LL);
}

static uint32_t proc_id(int32_t p)
{
	if (p < 0)
		return 1;
	return (uint32_t)(p % MAXPROC) + 2;
}

int main(int argc, char **argv)
{
	static char defined_proc[MAXPROC + 2], defined_func[4096];
	struct picl_reader *r;
	struct picl_record rec;
	OTF_FileManager *fm;
	OTF_Writer *w;
	uint64_t events = 0;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: picl2otf TRACE OUT-PREFIX\n");
		return 2;
	}
	r = picl_reader_open(argv[1], NULL, &rc, NULL);
	if (!r) {
		fprintf(stderr, "picl2otf: cannot read %s\n", argv[1]);
		return 2;
	}
	fm = OTF_FileManager_open(256);
	w = OTF_Writer_open(argv[2], 0, fm);
	OTF_Writer_writeDefTimerResolution(w, 0, 1000000);
	OTF_Writer_writeDefFunctionGroup(w, 0, 1, "PICL events");
	OTF_Writer_writeDefProcess(w, 0, 1, "global", 0);
	OTF_Writer_assignProcess(w, 1, 1);
	defined_proc[1] = 1;
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		uint32_t p = proc_id(rec.processor), f;
		uint64_t t = ticks(rec.time);
		int32_t e = rec.event;

		if (!defined_proc[p]) {
			char name[32];

			snprintf(name, sizeof(name), "processor %d", (int)rec.processor);
			OTF_Writer_writeDefProcess(w, 0, p, name, 0);
			OTF_Writer_assignProcess(w, p, p);
			defined_proc[p] = 1;
		}
		f = (uint32_t)(FUNC_BASE + e);
		if ((rec.type == -3 || rec.type == -4) && e > -2048 && e < 2048 &&
		    !defined_func[e + 2048]) {
			char name[32];

			snprintf(name, sizeof(name), "event %d", (int)e);
			OTF_Writer_writeDefFunction(w, 0, f, name, 1, 0);
			defined_func[e + 2048] = 1;
		}
		if (rec.type == -3) {
			OTF_Writer_writeEnter(w, t, f, p, 0);
			events++;
			if ((e == -21 || e == -27) && rec.nvalues >= 3) {
				OTF_Writer_writeSendMsg(w, t, p, proc_id((int32_t)rec.values[2].v.i), 0,
							(uint32_t)rec.values[1].v.i,
							(uint32_t)rec.values[0].v.i, 0);
				events++;
			}
		} else if (rec.type == -4) {
			if ((e == -51 || e == -52) && rec.nvalues >= 3) {
				OTF_Writer_writeRecvMsg(w, t, p, proc_id((int32_t)rec.values[2].v.i), 0,
							(uint32_t)rec.values[1].v.i,
							(uint32_t)rec.values[0].v.i, 0);
				events++;
			}
			OTF_Writer_writeLeave(w, t, f, p, 0);
			events++;
		} else {
			OTF_Writer_writeEventComment(w, t, p, "record");
			events++;
		}
	}
	if (rc != PICL_END) {
		char buf[512];

		fprintf(stderr, "picl2otf: %s\n", picl_error_format(picl_reader_error(r), buf, sizeof(buf)));
		return 2;
	}
	OTF_Writer_close(w);
	OTF_FileManager_close(fm);
	picl_reader_free(r);
	printf("%llu\n", (unsigned long long)events);
	return 0;
}

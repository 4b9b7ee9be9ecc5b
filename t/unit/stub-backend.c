/*
 * stub-backend.c - a stand-in for libpicl's communication layer (api.c), so
 * that test-trace can drive the tracing layer (picl-rt/trace.c) without a
 * transport. Each call records the events the real one records, through
 * trace.h, with the data fields of spec Tables 7-10 as PICL writes them,
 * and does nothing else: open0 makes this process processor
 * stub_me of stub_nprocs (hostless), recv0 "receives" stub_recv_value from
 * processor 0 (type 0) or me - 1 (other types) without waiting as a -52
 * event, send0 sends nothing, clocksync0 sets the clock offset so that
 * processor 0's time is 0 at the synchronisation. Before open0, the
 * launcher is taken to have said that this process is stub_me (api.h).
 */
#include "picl.h"
#include "api.h"
#include "trace.h"

#include <string.h>

/* What a test may set (test-trace.c declares them). */
extern int stub_me, stub_nprocs;
extern double stub_recv_value[2];

int stub_me = 6;
int stub_nprocs = 8;
double stub_recv_value[2] = { 0.000124, 0.000410 };

int picl_api_id(void)
{
	return stub_me;
}

void picl_api_trace_lost(void)
{
}

const char *picl_api_serve(const char *call)
{
	(void)call;
	return NULL;
}

void open0(int *numproc, int *me, int *host)
{
	pt_attach(stub_me, stub_nprocs, -1);
	pt_entry(PT_PICL, -11, 0, NULL);
	*numproc = stub_nprocs;
	*me = stub_me;
	*host = -1;
	pt_exit(PT_PICL, -11, 0, NULL);
}

void close0(int release)
{
	(void)release;
	pt_mark(PT_PICL, -12, 0, NULL);
	traceexit();
	pt_detach();
}

double clock0(void)
{
	return pt_clock();
}

void clocksync0(void)
{
	pt_entry(PT_PICL, -401, 0, NULL);
	pt_set_clock_offset(pt_raw_clock());
	pt_exit(PT_PICL, -401, 0, NULL);
}

void send0(const void *buf, int bytes, int type, int node)
{
	int64_t v[3] = { bytes, type, node };

	(void)buf;
	pt_entry(PT_PICL, -21, 3, v);
	pt_exit(PT_PICL, -21, 0, NULL);
}

void recv0(void *buf, int bytes, int type)
{
	int64_t req = type;
	int64_t v[3] = { bytes, type, type == 0 ? 0 : stub_me - 1 };
	double x = stub_recv_value[type == 0 ? 0 : 1];

	pt_entry(PT_PICL, -52, 1, &req);
	if ((size_t)bytes >= sizeof(x))
		memcpy(buf, &x, sizeof(x));
	pt_exit(PT_PICL, -52, 3, v);
}

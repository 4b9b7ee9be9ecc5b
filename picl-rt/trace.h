/*
 * trace.h - the tracing layer of libpicl (trace.c), as the communication
 * layer (api.c, collective.c) calls it. Not installed.
 *
 * The public trace* calls of picl.h (tracenode, tracelevel, traceblockbegin,
 * ..., traceexit) are implemented in trace.c. The functions below are what
 * the PICL calls use to record their own events (spec Tables 4-13): each
 * appends one fixed-size binary record to the process's buffer (a timestamp
 * from the raw clock, the record and event type, up to PT_MAXVALS 64-bit
 * integer values) and formats nothing; text (or zstd) is produced only when
 * the buffer is flushed, through libpicl-trace's writer. Each call is a
 * cheap no-op when tracing is off or the level excludes the event.
 */
#ifndef PICL_RT_TRACE_H
#define PICL_RT_TRACE_H

#include <stdint.h>

/* libpicl's own: not exported from the shared libraries (only picl.h is) */
#pragma GCC visibility push(hidden)

#define PT_MAXVALS 6

/* Which level governs an event: PICL's communication events, user events,
 * or tracing events (tracelevel(picl, user, trace)). */
enum pt_class { PT_PICL = 0, PT_USER = 1, PT_TRACE = 2 };

/* Called by open0 once the process knows who it is (before open0's own
 * -11 entry is recorded), and by close0 at the very end. */
void pt_attach(int me, int nprocs, int host);
void pt_detach(void);
/* traceexit for a process that ends abnormally (a PICL error, exit without
 * close0): the entries still open are closed first. */
void pt_exit_abnormal(void);

/* For the emergency write (api.c): 0 when there is nothing to write (not
 * tracing), 2 when a way out (traceexit, pt_exit_abnormal) is writing the
 * part now, 1 otherwise. A plain read: safe in a signal handler. */
int pt_emergency_state(void);

/* Nonzero while a collective (collective.c) runs: PT_PICL events are then
 * not recorded (nor counted) unless the PICL tracing level is 3 or more.
 * Defined in trace.c; collective.c raises and lowers it. */
extern int pt_collective_depth;

/* 1 if an event of this class is being recorded now. */
int pt_on(enum pt_class cls);

/* Nonzero when PICL events may be recorded at all (tracing on and the
 * PICL level 1 or more): a cheap test for the communication calls to skip
 * their tracing hooks when tracing is off. pt_on(PT_PICL) says the rest. */
extern unsigned char pt_picl_maybe;

/* Event records with integer data ("%d"; n <= PT_MAXVALS values). */
void pt_entry(enum pt_class cls, int event, int n, const int64_t *vals);
void pt_exit(enum pt_class cls, int event, int n, const int64_t *vals);
void pt_mark(enum pt_class cls, int event, int n, const int64_t *vals);

/* An entry record with character data ("%c", alias 0): load0's -503 entry,
 * whose data are the executable's name (spec Table 10). */
void pt_entry_text(enum pt_class cls, int event, const char *text);

/* A label (-5 record, "%c", Table 14) for an event type the format does
 * not predefine (the collectives' blocks): written once per trace file,
 * just before the first record of the event written there. text must stay
 * valid (a string literal); a later call for the same event is ignored, as
 * are calls beyond PT_MAXLABELS events. */
#define PT_MAXLABELS 8
void pt_label(int event, const char *text);

/* An event PICL counts in the statistics but writes no record for
 * (probe0's -53/-54, who0's -13, ...; Tables 7-8). */
void pt_count(int event);

/* The raw clock in seconds, and clock0()'s normalised one. */
double pt_raw_clock(void);
double pt_clock(void);

/* clocksync0 and tracenode(..., sync = 1): from now on, and for every
 * record not yet written, time = raw - offset (spec Appendix A). A record
 * written is never given a time before the latest this process wrote. */
void pt_set_clock_offset(double offset);

/* The offset in use (0 until the first pt_set_clock_offset). */
double pt_clock_offset(void);

/* 1 once this process wrote a record to a trace file: its times so far
 * are fixed, so clocksync0 keeps the time origin. */
int pt_clock_fixed(void);

#pragma GCC visibility pop

#endif /* PICL_RT_TRACE_H */

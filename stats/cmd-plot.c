/*
 * cmd-plot.c - `picltrace plot`: draw a trace with gnuplot.
 *
 * Kinds of plot (ParaGraph's displays, as static pictures):
 *  - utilization: how many processes are busy, in overhead and idle over
 *    time (ParaGraph's utilization count), as stacked bars, one per time
 *    bin, whose heights are the average number of processes in each
 *    category during the bin, and on top those not traced then, so that
 *    each bar is as high as the processes drawn;
 *  - gantt: one row per process, its timeline colored by category;
 *  - events: time per event type (relative to the whole process) per
 *    process, stacked bars: system event types, or user event types with
 *    --user-events;
 *  - messages: bytes sent from each processor to each other one, as a heat
 *    map (matched messages only).
 * Busy is green, overhead yellow, idle red, as in ParaGraph. The host
 * (processor 32767) is left out, as ParaGraph leaves it out.
 *
 * How it works. profile.c reads the trace in one pass (with a timeline for
 * utilization and gantt); this file writes a self-contained gnuplot script
 * (titles, axes with units, legend, the data inline as `$name << EOD`
 * datablocks) into memory, then either writes the script out
 * (--format=script) or runs gnuplot ($GNUPLOT, else "gnuplot" on PATH) with
 * "set terminal ...; set output ..." and the script on its standard input.
 * Gnuplot writes the image into a temporary file beside the output, which
 * is renamed into place only when gnuplot succeeded; gnuplot's messages are
 * shown, and its failure is ours (exit 2).
 */
#include "builtin.h"
#include "fdio.h"
#include "profile.h"

#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char plot_usage[] =
	"usage: picltrace plot [--kind=KIND] [--format=png|svg|script] [-o FILE]\n"
	"                      [--bins=N] [--size=W,H] [--title=TEXT] [--user-events]\n"
	"                      [--schema=FILE] [--memory=SIZE] [--tmpdir=DIR] [-q]\n"
	"                      [FILE...]\n"
	"\n"
	"  -k, --kind=KIND    utilization (default: busy, overhead, idle and not traced\n"
	"                     processes over time), gantt (each process's timeline),\n"
	"                     events (time per event type per process) or messages\n"
	"                     (bytes from each processor to each other one)\n"
	"  -f, --format=FMT   png, svg, or script: the gnuplot script itself (default:\n"
	"                     svg for an output FILE named *.svg, script for *.gp,\n"
	"                     else png)\n"
	"  -o, --output=FILE  write to FILE instead of standard output\n"
	"      --bins=N       time bins of a utilization plot (default 200)\n"
	"      --size=W,H     image size in pixels (default 1000,600)\n"
	"      --title=TEXT   the plot's title\n"
	"      --user-events  events plot: user event types instead of system ones\n"
	"      --schema=FILE  add the types of a user schema (picl-schema(5)) to the\n"
	"                     default one, to name them by; may be given more than\n"
	"                     once\n"
	"      --memory=SIZE  the most memory for messages waiting for their\n"
	"                     partner (e.g. 256M; default a quarter of the usable\n"
	"                     memory 'picltrace --resources' shows); the rest wait\n"
	"                     in a temporary file\n"
	"  -T, --tmpdir=DIR   where that file goes (default $TMPDIR or /tmp)\n"
	"  -q, --quiet        no progress line, no warnings\n"
	"  -h, --help         show this help\n"
	"\n"
	"With no FILE, or when FILE is -, read standard input. Several FILEs are\n"
	"read as one trace. Images are made by gnuplot: $GNUPLOT, else gnuplot\n"
	"on PATH.\n";

enum plot_kind { KIND_UTILIZATION, KIND_GANTT, KIND_EVENTS, KIND_MESSAGES };
enum plot_format { PF_PNG, PF_SVG, PF_SCRIPT };

static const char *const kind_names[] = { "utilization", "gantt", "events", "messages" };

struct plot_opts {
	enum plot_kind kind;
	enum plot_format format;
	const char *output, *title;
	size_t bins;
	long width, height;
	int user_events, quiet;
	uint64_t memory;
	const char *tmpdir;
};

/* ParaGraph's colors for busy, overhead, idle. */
static const char *const cat_color[PROF_NCAT] = { "#2ca02c", "#f2c200", "#d62728" };

/* A process's time outside its traced time, in a utilization plot. */
static const char untraced_color[] = "#d9d9d9";

/* Processes that are drawn: all but the host's. */
static int drawn(const struct prof_proc *pp)
{
	return pp->processor != PICL_HOST_PROCESSOR;
}

/* A gnuplot string expression for s: single-quoted (no backquote command
 * substitution, which double quotes would do, nor @macros), each quote as
 * a concatenated sprintf('%c',39) (gnuplot 5.4 misreads doubled quotes in
 * a row or at the start, and a "'" makes it expand @macros after it),
 * control characters replaced (prof_clean_text). */
static void gp_string(FILE *out, const char *s)
{
	char buf[2048];
	const char *p;

	prof_clean_text(s, NULL, buf, sizeof(buf));
	fputc('\'', out);
	for (p = buf; *p; p++) {
		if (*p == '\'')
			fputs("'.sprintf('%c',39).'", out);
		else
			fputc(*p, out);
	}
	fputc('\'', out);
}

/* A double-quoted field inside a datablock (column headers, tic labels). */
static void gp_field(FILE *out, const char *s)
{
	char buf[2048];

	fprintf(out, "\"%s\"", prof_clean_text(s, "\"\\", buf, sizeof(buf)));
}

/* The label of a drawn process: its processor, and the process id when
 * its processor has more than one. */
static const char *proc_label(const struct profile *p, size_t k, char *buf, size_t size)
{
	const struct prof_proc *pp = p->procs[k];
	char pb[16];
	int shared = (k > 0 && p->procs[k - 1]->processor == pp->processor) ||
		     (k + 1 < p->nprocs && p->procs[k + 1]->processor == pp->processor);

	if (shared)
		snprintf(buf, size, "%s/%d", prof_processor_name(pp->processor, pb),
			 (int)pp->process);
	else
		snprintf(buf, size, "%s", prof_processor_name(pp->processor, pb));
	return buf;
}

/* "set ytics (...)" with the labels of the `rows` drawn processes: every
 * one of them, or of many every step-th, so that at most `most` show. */
static void process_tics(FILE *out, const struct profile *p, const char *axis, size_t rows,
			 size_t most)
{
	size_t k, row = 0, step = rows > most ? (rows + most - 1) / most : 1;

	fprintf(out, "set %stics (", axis);
	for (k = 0; k < p->nprocs; k++) {
		char label[64];

		if (!drawn(p->procs[k]))
			continue;
		if (row % step == 0) {
			fprintf(out, "%s", row ? ", " : "");
			gp_field(out, proc_label(p, k, label, sizeof(label)));
			fprintf(out, " %zu", row);
		}
		row++;
	}
	fputs(")\n", out);
}

/* What to add to "nothing to plot" when the host has what is missing:
 * a trace of the host alone said there was nothing at all. */
static const char *host_note(const struct profile *p)
{
	size_t k;

	for (k = 0; k < p->nprocs; k++)
		if (!drawn(p->procs[k]))
			return " (the host, processor 32767, is left out)";
	return "";
}

static size_t drawn_count(const struct profile *p)
{
	size_t k, n = 0;

	for (k = 0; k < p->nprocs; k++)
		n += drawn(p->procs[k]);
	return n;
}

/* ------------------------------------------------------------------------ */
/* The kinds of plot                                                         */
/* ------------------------------------------------------------------------ */

/*
 * A time for gnuplot: the shortest of %.10g, %.15g, %.16g and %.17g that
 * reads back as the same double (%.16g gives 1732399999.282049 where %.17g
 * says 1732399999.2820489). %.10g alone made a trace whose times are large
 * (123456789.123456) but close together one point, which gnuplot refuses
 * ("empty x range").
 */
#define TIME_BUFSIZE PROF_TICKS_BUFSIZE   /* when() copies a prof_ticks_format text */
static const char *xtime(double v, char *buf)
{
	static const int digits[] = { 10, 15, 16, 17 };
	size_t k;

	for (k = 0; k < 4; k++) {
		snprintf(buf, TIME_BUFSIZE, "%.*g", digits[k], v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

/*
 * Timeline time v (seconds after p's origin) as the trace's own time, to
 * the nanosecond, for a label: "1732400000.25" where xtime gives 0.25.
 */
static const char *when(const struct profile *p, double v, char *buf)
{
	char t[PROF_TICKS_BUFSIZE];
	size_t n;

	if (p->origin == 0)
		return xtime(v, buf);
	prof_ticks_format(p->origin + (prof_ticks)(v * 1e9 + (v < 0 ? -0.5 : 0.5)) * 1000000000, 9, t);
	n = strlen(t);
	while (t[n - 1] == '0')
		t[--n] = '\0';
	if (t[n - 1] == '.')
		t[--n] = '\0';
	snprintf(buf, TIME_BUFSIZE, "%s", t);
	return buf;
}

/*
 * The time axis from lo to hi (s after the profile's origin). gnuplot
 * labels its tics with six significant digits: on a trace whose times are
 * late and close together (wall-clock seconds: 1732400000.5 to
 * 1732400010.2) every label read 1.7324e+09. Then the tics are set here,
 * at round times after lo, labelled with that time, and the axis says
 * after what. The points stay where they are: the trace's own times, or
 * for a late trace seconds after a whole second of it (the origin, which
 * the script's data comments name), where a double keeps its microseconds.
 */
static void time_axis(FILE *out, const struct profile *p, double lo, double hi)
{
	char b[TIME_BUFSIZE];
	double span = hi - lo, big = lo < 0 ? -lo : lo, raw, step = 1;
	int k;

	if (big < (hi < 0 ? -hi : hi))
		big = hi < 0 ? -hi : hi;
	if (!(span > 0) || (p->origin == 0 && big < 1e4 * span)) {
		fputs("set xlabel 'time (s)'\n", out);
		return;
	}
	/* 1, 2 or 5 times a power of ten: 6 to 15 steps */
	raw = span / 6;
	while (step > raw)
		step /= 10;
	while (step * 10 <= raw)
		step *= 10;
	step *= raw >= 5 * step ? 5 : raw >= 2 * step ? 2 : 1;
	fprintf(out, "set xlabel 'time (s) after %s'\nset xtics (", when(p, lo, b));
	for (k = 0; k * step <= span * (1 + 1e-9); k++)
		fprintf(out, "%s\"%g\" %s", k ? ", " : "", k * step, xtime(lo + k * step, b));
	fputs(")\n", out);
}

/* What the data's times are, in a comment before them. */
static void time_origin_comment(FILE *out, const struct profile *p)
{
	char b[PROF_TICKS_BUFSIZE];

	if (p->origin != 0)
		fprintf(out, "# times are seconds after %s\n",
			prof_ticks_format(p->origin, 0, b));
}

/*
 * At most `bins`, and as many as a double tells apart over the traced
 * time: bins of a few microseconds at wall-clock times (1732400000.000001,
 * where a double steps by 0.24 us) came out of no width, their processes
 * 0/0. A bin is at least 4 steps wide.
 */
static size_t utilization_bins(const struct profile *p, size_t bins)
{
	double t0 = prof_ticks_seconds(p->start - p->origin);
	double t1 = prof_ticks_seconds(p->end - p->origin);
	double big = t0 < 0 ? -t0 : t0, most;

	if (big < (t1 < 0 ? -t1 : t1))
		big = t1 < 0 ? -t1 : t1;
	if (!p->have_span || !(t1 > t0) || big == 0)
		return bins;
	most = (t1 - t0) / (4 * big * DBL_EPSILON);
	if (most < 1)
		return 1;
	return most < (double)bins ? (size_t)most : bins;
}

static int script_utilization(FILE *out, const struct profile *p, const struct plot_opts *o)
{
	double *edges = malloc((o->bins + 1) * sizeof(double));
	double *counts = malloc(o->bins * PROF_NCAT * sizeof(double));
	char b0[TIME_BUFSIZE], b1[TIME_BUFSIZE];
	size_t n, i, procs = drawn_count(p);
	int untraced = 0;

	if (!edges || !counts) {
		free(edges);
		free(counts);
		picltrace_error("plot", "out of memory");
		return -1;
	}
	n = prof_utilization(p, utilization_bins(p, o->bins), drawn, edges, counts);
	if (n == 0) {
		free(edges);
		free(counts);
		picltrace_error("plot", "nothing to plot: no traced time on any processor%s",
				host_note(p));
		return -1;
	}
	fputs("# time bins: from, to (s); average number of processes busy, in\n"
	      "# overhead and idle during the bin, and not traced (before their\n"
	      "# first or after their last traced time): the four add up to the\n"
	      "# processes drawn\n", out);
	time_origin_comment(out, p);
	fputs("$utilization << EOD\n", out);
	for (i = 0; i < n; i++) {
		const double *c = counts + i * PROF_NCAT;
		double u = (double)procs - (c[0] + c[1] + c[2]);

		/* what rounding leaves of a whole count is none */
		if (u < 1e-9 * (double)procs)
			u = 0;
		untraced |= u > 0;
		fprintf(out, "%s %s %.6g %.6g %.6g %.6g\n", xtime(edges[i], b0),
			xtime(edges[i + 1], b1), c[0], c[1], c[2], u);
	}
	fputs("EOD\n\n", out);
	time_axis(out, p, edges[0], edges[n]);
	fputs("set ylabel 'processes'\n", out);
	fprintf(out, "set xrange [%s:%s]\nset yrange [0:%zu]\n", xtime(edges[0], b0),
		xtime(edges[n], b1), procs);
	fputs("set style fill solid 1.0 noborder\nset key outside right top\n", out);
	/* Stacked: not traced on top of idle on top of overhead on top of
	 * busy, so that each bar is as high as the processes drawn, as in
	 * ParaGraph's count (processes that started late or ended early left
	 * a gap, which read as the machine's being used less). */
	fputs("plot ", out);
	if (untraced)
		fprintf(out, "$utilization using (($1+$2)/2):($3+$4+$5+$6):($2-$1) with boxes"
			" lc rgb '%s' title 'not traced', \\\n     ", untraced_color);
	fputs("$utilization using (($1+$2)/2):($3+$4+$5):($2-$1) with boxes", out);
	fprintf(out, " lc rgb '%s' title 'idle', \\\n", cat_color[PROF_IDLE]);
	fputs("     '' using (($1+$2)/2):($3+$4):($2-$1) with boxes", out);
	fprintf(out, " lc rgb '%s' title 'overhead', \\\n", cat_color[PROF_OVERHEAD]);
	fputs("     '' using (($1+$2)/2):3:($2-$1) with boxes", out);
	fprintf(out, " lc rgb '%s' title 'busy'\n", cat_color[PROF_BUSY]);
	free(edges);
	free(counts);
	return 0;
}

struct gantt_ctx {
	FILE *out;
	int cat;
	size_t row, n;
	double lo, hi;
	int have;
};

static int gantt_segment(void *ctx, double t0, double t1, int cat, double lo, double hi)
{
	struct gantt_ctx *g = ctx;
	double y = (double)g->row - 0.4;

	if (cat == g->cat) {
		char b0[TIME_BUFSIZE], b1[TIME_BUFSIZE];

		fprintf(g->out, "%s %s %zu %.6g %.6g\n", xtime(t0, b0), xtime(t1, b1), g->row,
			y + 0.8 * lo, y + 0.8 * hi);
		g->n++;
	}
	if (!g->have || t0 < g->lo)
		g->lo = t0;
	if (!g->have || t1 > g->hi)
		g->hi = t1;
	g->have = 1;
	return 0;
}

/* Labels on the process axis, at most: past this many rows, every n-th. */
#define GANTT_LABELLED_ROWS 32
/* Bins a binned timeline is drawn with, at most. */
#define GANTT_MAX_BINS 1000

static int script_gantt(FILE *out, const struct profile *p, const struct plot_opts *o)
{
	struct gantt_ctx g;
	size_t k, n[PROF_NCAT], total = 0, rows = drawn_count(p);
	char b0[TIME_BUFSIZE], b1[TIME_BUFSIZE];
	int c, first = 1;

	(void)o;
	memset(&g, 0, sizeof(g));
	g.out = out;
	fputs("# segments: from, to (s), process row, and the part of the row they fill\n"
	      "# (the whole of it, but for time bins of a long trace, stacked by category)\n",
	      out);
	time_origin_comment(out, p);
	for (c = 0; c < PROF_NCAT; c++) {
		fprintf(out, "$%s << EOD\n", prof_cat_name(c));
		g.cat = c;
		g.n = 0;
		for (k = 0, g.row = 0; k < p->nprocs; k++) {
			if (!drawn(p->procs[k]))
				continue;
			prof_segments(p, p->procs[k], GANTT_MAX_BINS, gantt_segment, &g);
			g.row++;
		}
		fputs("EOD\n", out);
		n[c] = g.n;
		total += g.n;
	}
	if (total == 0) {
		picltrace_error("plot", "nothing to plot: no traced time on any processor%s",
				host_note(p));
		return -1;
	}
	fputc('\n', out);
	time_axis(out, p, g.lo, g.hi);
	fputs("set ylabel 'processor'\n", out);
	process_tics(out, p, "y", rows, GANTT_LABELLED_ROWS);
	fprintf(out, "set xrange [%s:%s]\n", xtime(g.lo, b0), xtime(g.hi, b1));
	fprintf(out, "set yrange [-0.6:%zu.6]\n", rows ? rows - 1 : 0);
	fputs("set style fill solid 1.0 noborder\nset key outside right top\n", out);
	fputs("plot", out);
	for (c = 0; c < PROF_NCAT; c++) {
		if (!n[c])
			continue;
		fprintf(out, "%s $%s using (($1+$2)/2):3:1:2:4:5 with boxxyerror"
			" lc rgb '%s' title '%s'", first ? "" : ", \\\n    ", prof_cat_name(c),
			cat_color[c], prof_cat_name(c));
		first = 0;
	}
	fputc('\n', out);
	return 0;
}

/* The colors of event types, told apart (Tableau's ten, then their
 * lighter ten, so that neighbours in a stack differ in hue). */
#define EVENT_COLORS 20
static const char *const event_color[EVENT_COLORS] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
	"#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896",
	"#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5"
};

static int script_events(FILE *out, const struct profile *p, const struct plot_opts *o)
{
	struct intmap timed = { 0 };
	int32_t *cols;
	size_t ncols = 0, k, j, i, rows = drawn_count(p);
	int nomem = 0;
	char buf[PROF_TICKS_BUFSIZE];

	/* Columns: the event types with time on a drawn process, in the
	 * order of the statistics records. One pass over the cells finds
	 * them (asking every process for every type was quadratic in the
	 * types on a trace of many labelled user events). */
	cols = malloc((p->nall ? p->nall : 1) * sizeof(*cols));
	for (k = 0; cols && !nomem && k < p->nprocs; k++) {
		const struct prof_proc *pp = p->procs[k];

		for (i = 0; drawn(pp) && !nomem && i < pp->ncells; i++) {
			const struct prof_cell *c = &pp->cells[i];

			if (c->rel == PICL_WILDCARD && c->has_time && c->time > 0)
				nomem = intmap_put(&timed, (uint64_t)(uint32_t)c->event, 0) < 0;
		}
	}
	if (!cols || nomem) {
		free(cols);
		intmap_free(&timed);
		picltrace_error("plot", "out of memory");
		return -1;
	}
	for (j = 0; j < p->nall; j++) {
		const struct prof_cell *a = &p->all[j];

		if (a->rel != PICL_WILDCARD || a->event == PICL_WILDCARD || a->event == -901 ||
		    (o->user_events ? a->event < 0 : a->event >= 0))
			continue;
		if (intmap_get(&timed, (uint64_t)(uint32_t)a->event, &i))
			cols[ncols++] = a->event;
	}
	intmap_free(&timed);
	if (ncols == 0) {
		free(cols);
		picltrace_error("plot", "nothing to plot: no %s event type took any time%s",
				o->user_events ? "user" : "system", host_note(p));
		return -1;
	}
	fprintf(out, "# time (s) per event type (columns) per process (rows), "
		"relative to the whole process\n$events << EOD\n\"processor\"");
	for (j = 0; j < ncols; j++) {
		char head[1200];

		snprintf(head, sizeof(head), "%d %s", (int)cols[j], prof_event_name(p, cols[j]));
		fputc(' ', out);
		gp_field(out, head);
	}
	fputc('\n', out);
	for (k = 0; k < p->nprocs; k++) {
		const struct prof_proc *pp = p->procs[k];
		char label[64];

		if (!drawn(pp))
			continue;
		gp_field(out, proc_label(p, k, label, sizeof(label)));
		for (j = 0; j < ncols; j++) {
			const struct prof_cell *c = prof_timed_cell(pp, PICL_WILDCARD, cols[j]);

			fprintf(out, " %s", prof_ticks_format(c ? c->time : 0, p->max_scale, buf));
		}
		fputc('\n', out);
	}
	fputs("EOD\n\n", out);
	fputs("set xlabel 'processor'\nset ylabel 'time (s)'\n", out);
	fputs("set style data histograms\nset style histogram rowstacked\n", out);
	/* Of many processes, every step-th bar is labelled (as the rows of a
	 * Gantt chart), across; the bars touch and lose their outline, and
	 * each bar's tic and grid line go: all of them drawn over bars a pixel
	 * or two wide turned the plot black. */
	if (rows > GANTT_LABELLED_ROWS)
		fputs("set style fill solid 1.0 noborder\nset boxwidth 1.0\n"
		      "set xtics rotate by 90 right scale 0\nset grid noxtics ytics\n", out);
	else
		fputs("set style fill solid 1.0 border -1\nset boxwidth 0.8\n", out);
	fputs("set key outside right top\nset yrange [0:*]\n", out);
	/* Each event type its own color (gnuplot's own cycle of eight drew
	 * the ninth type as the first); past EVENT_COLORS types the colors
	 * come again, hatched. */
	fputs("colors = '", out);
	for (j = 0; j < EVENT_COLORS; j++)
		fprintf(out, "%s%s", j ? " " : "", event_color[j]);
	fputs("'\n", out);
	if (rows > GANTT_LABELLED_ROWS)
		fprintf(out, "plot for [i=2:%zu] $events using "
			"i:xtic(int($0) %% %zu == 0 ? stringcolumn(1) : '') "
			"lc rgb word(colors, i-1) title columnheader(i)",
			ncols < EVENT_COLORS ? ncols + 1 : EVENT_COLORS + 1,
			(rows + GANTT_LABELLED_ROWS - 1) / GANTT_LABELLED_ROWS);
	else
		fprintf(out, "plot for [i=2:%zu] $events using i:xtic(1) "
			"lc rgb word(colors, i-1) title columnheader(i)",
			ncols < EVENT_COLORS ? ncols + 1 : EVENT_COLORS + 1);
	if (ncols > EVENT_COLORS)
		fprintf(out, ", \\\n     for [i=%d:%zu] $events using i lc rgb word(colors, "
			"(i-2) %% %d + 1) fs pattern word('4 5 1 6 7 2', (i-%d) / %d %% 6 + 1) "
			"title columnheader(i)", EVENT_COLORS + 2, ncols + 1, EVENT_COLORS,
			EVENT_COLORS + 2, EVENT_COLORS);
	fputc('\n', out);
	free(cols);
	return 0;
}

static size_t rank_of(const int32_t *v, size_t n, int32_t x)
{
	const int32_t *f = bsearch(&x, v, n, sizeof(*v), picltrace_cmp_i32);

	return f ? (size_t)(f - v) : 0;
}

static int script_messages(FILE *out, const struct profile *p, const struct plot_opts *o)
{
	struct prof_msgstat *v;
	int32_t *procs;
	size_t n = 0, np = 0, k, m, step;

	(void)o;
	v = prof_pairs_sorted(p, &n);
	procs = malloc((2 * n + 1) * sizeof(*procs));
	if (!v || !procs) {
		free(v);
		free(procs);
		picltrace_error("plot", "out of memory");
		return -1;
	}
	for (k = 0, m = 0; k < n; k++) {
		if (v[k].src == PICL_HOST_PROCESSOR || v[k].dst == PICL_HOST_PROCESSOR)
			continue;
		v[m++] = v[k];
		procs[np++] = v[k].src;
		procs[np++] = v[k].dst;
	}
	if (m == 0) {
		free(v);
		free(procs);
		picltrace_error("plot", "nothing to plot: the trace has no matched messages "
				"between processors%s", n ? host_note(p) : "");
		return -1;
	}
	n = m;
	if (np > 1)
		qsort(procs, np, sizeof(*procs), picltrace_cmp_i32);
	for (k = 0, m = 0; k < np; k++)
		if (m == 0 || procs[m - 1] != procs[k])
			procs[m++] = procs[k];
	np = m;
	fputs("# source row, destination row, bytes, messages, source and destination "
	      "processors\n$messages << EOD\n", out);
	for (k = 0; k < n; k++)
		fprintf(out, "%zu %zu %lld %llu %d %d\n", rank_of(procs, np, v[k].src),
			rank_of(procs, np, v[k].dst), (long long)v[k].bytes,
			(unsigned long long)v[k].count, (int)v[k].src, (int)v[k].dst);
	fputs("EOD\n\n", out);
	fputs("set xlabel 'source processor'\nset ylabel 'destination processor'\n"
	      "set cblabel 'bytes'\n", out);
	/* The rows and columns are ranks: each tic is labelled with its
	 * processor (of more than 64, gnuplot's own tics said the ranks, 0 to
	 * n-1, whatever the processors were), of many every step-th, so that
	 * at most GANTT_LABELLED_ROWS show; across x past 16 of them. */
	step = np > GANTT_LABELLED_ROWS ? (np + GANTT_LABELLED_ROWS - 1) / GANTT_LABELLED_ROWS : 1;
	for (m = 0; m < 2; m++) {
		fprintf(out, "set %ctics (", m ? 'y' : 'x');
		for (k = 0; k < np; k += step)
			fprintf(out, "%s\"%d\" %zu", k ? ", " : "", (int)procs[k], k);
		fprintf(out, ")%s\n", !m && (np + step - 1) / step > 16 ? " rotate by 90 right" : "");
	}
	fprintf(out, "set xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\n", np - 1, np - 1);
	/* Light to dark, never white: an empty cell stays told apart. */
	fputs("set size square\nset cbrange [0:*]\n"
	      "set palette defined (0 '#fff7bc', 1 '#fec44f', 2 '#d95f0e', 3 '#8c2d04')\n"
	      "set style fill solid 1.0 noborder\n", out);
	fputs("plot $messages using 1:2:(0.5):(0.5):3 with boxxyerror fc palette notitle", out);
	if (np <= 8)
		fputs(", \\\n     '' using 1:2:(sprintf('%d', $3)) with labels notitle", out);
	fputc('\n', out);
	free(v);
	free(procs);
	return 0;
}

/* The whole script (without terminal and output) into a memory buffer. */
static int make_script(const struct profile *p, const struct plot_opts *o,
		       const char *trace_name, char **buf, size_t *len)
{
	static const char *const titles[] = {
		"processor utilization", "utilization per processor (Gantt chart)",
		"time per event type", "message volume"
	};
	FILE *out = open_memstream(buf, len);
	char title[1200];
	int rc;

	if (!out) {
		picltrace_error("plot", "out of memory");
		return -1;
	}
	if (o->title)
		snprintf(title, sizeof(title), "%s", o->title);
	else
		snprintf(title, sizeof(title), "%s: %s", titles[o->kind], trace_name);
	fprintf(out, "# picltrace plot --kind=%s: a self-contained gnuplot script.\n",
		kind_names[o->kind]);
	fputs("# render it, e.g.: gnuplot -e \"set terminal pngcairo size 1000,600; "
	      "set output 'plot.png'\" THIS-FILE\n", out);
	fputs("set encoding utf8\nset termoption noenhanced\n", out);
	fputs("set title ", out);
	gp_string(out, title);
	fputs("\nset grid\n\n", out);
	switch (o->kind) {
	case KIND_UTILIZATION:
		rc = script_utilization(out, p, o);
		break;
	case KIND_GANTT:
		rc = script_gantt(out, p, o);
		break;
	case KIND_EVENTS:
		rc = script_events(out, p, o);
		break;
	default:
		rc = script_messages(out, p, o);
		break;
	}
	if (fclose(out) != 0 && rc == 0) {
		picltrace_error("plot", "out of memory");
		rc = -1;
	}
	if (rc) {
		free(*buf);
		*buf = NULL;
	}
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Running gnuplot                                                           */
/* ------------------------------------------------------------------------ */

static int write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Show what gnuplot said (each line prefixed), from the start of errf.
 * gnuplot indents its lines with blanks and tabs, to stand under its echo
 * of the script's line, which it does not show here: the indent goes, and
 * a tab inside is a blank (else the escaping of messages shows \x09). */
static void show_gnuplot_messages(FILE *errf)
{
	char line[1024];

	rewind(errf);
	while (fgets(line, sizeof(line), errf)) {
		size_t n = strlen(line), i;
		char *text = line;

		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		for (i = 0; i < n; i++)
			if (line[i] == '\t')
				line[i] = ' ';
		while (*text == ' ')
			text++;
		if (*text == '\0')
			continue;
		picltrace_error("plot", "gnuplot: %s", text);
	}
}

/*
 * gnuplot's environment: ours with LC_ALL=C.UTF-8, the script being UTF-8
 * (set encoding utf8) whatever our locale is. In a locale that is not
 * UTF-8 (none set: C) gnuplot warned "iconv failed to convert degree sign"
 * on every picture. NULL when out of memory (free() the array only).
 */
static char **gnuplot_env(void)
{
	size_t n = 0, k = 0, i;
	char **env;

	while (environ[n])
		n++;
	env = malloc((n + 2) * sizeof(*env));
	if (!env)
		return NULL;
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "LC_ALL=", 7) != 0)
			env[k++] = environ[i];
	env[k++] = (char *)"LC_ALL=C.UTF-8";
	env[k] = NULL;
	return env;
}

/* Run gnuplot on preamble + script; it writes `file`, the temporary file
 * of the output `path` (named in messages). 0 or -1 (reported). */
static int run_gnuplot(const char *preamble, const char *script, size_t len,
		       const char *file, const char *path, int quiet)
{
	const char *prog = getenv("GNUPLOT");
	posix_spawn_file_actions_t fa;
	struct sigaction ign, old;
	char *argv[2], **env;
	int pfd[2], status = 0, rc, werr = 0;
	FILE *errf;
	pid_t pid;
	struct stat st;

	if (!prog || !*prog)
		prog = "gnuplot";
	errf = tmpfile();
	env = errf ? gnuplot_env() : NULL;
	if (!errf || !env || pipe(pfd) < 0) {
		picltrace_error("plot", "cannot run gnuplot: %s", strerror(errno));
		if (errf)
			fclose(errf);
		free(env);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[0], 0);
	posix_spawn_file_actions_adddup2(&fa, fileno(errf), 1);
	posix_spawn_file_actions_adddup2(&fa, fileno(errf), 2);
	posix_spawn_file_actions_addclose(&fa, pfd[1]);
	argv[0] = (char *)prog;
	argv[1] = NULL;
	rc = posix_spawnp(&pid, prog, &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	close(pfd[0]);
	if (rc != 0) {
		picltrace_error("plot", "cannot run gnuplot ('%s'): %s; install gnuplot, set "
				"GNUPLOT, or use --format=script", prog, strerror(rc));
		close(pfd[1]);
		fclose(errf);
		return -1;
	}
	/* gnuplot may stop reading early (an error): no SIGPIPE for us. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	if (write_all(pfd[1], preamble, strlen(preamble)) < 0 ||
	    write_all(pfd[1], script, len) < 0)
		werr = errno;
	close(pfd[1]);
	sigaction(SIGPIPE, &old, NULL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = -1;
			break;
		}
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (status != -1 && WIFSIGNALED(status))
			picltrace_error("plot", "gnuplot ('%s') was killed by signal %d", prog,
					WTERMSIG(status));
		else if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 127)
			picltrace_error("plot", "cannot run gnuplot ('%s'); install gnuplot, set "
					"GNUPLOT, or use --format=script", prog);
		else
			picltrace_error("plot", "gnuplot ('%s') failed with exit status %d", prog,
					status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		show_gnuplot_messages(errf);
		fclose(errf);
		return -1;
	}
	if (werr && werr != EPIPE) {
		picltrace_error("plot", "cannot write to gnuplot: %s", strerror(werr));
		fclose(errf);
		return -1;
	}
	if (!quiet)
		show_gnuplot_messages(errf);
	fclose(errf);
	if (stat(file, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
		picltrace_error("plot", "%s: gnuplot ('%s') wrote no image (is the disk full, "
				"or the file size limited?)", path, prog);
		return -1;
	}
	return 0;
}

/*
 * Whether gnuplot wrote the whole image: a PNG ends with its IEND chunk, an
 * SVG with "</svg>" (and white space). gnuplot exits 0 even when it could
 * not write its output (a full disk, a file size limit), leaving a
 * truncated file; that must not be renamed into place.
 */
static int image_complete(const char *file, int png)
{
	static const unsigned char iend[12] = {
		0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82
	};
	unsigned char tail[64];
	struct stat st;
	size_t n;
	FILE *f = fopen(file, "rb");
	int ok = 0;

	if (!f)
		return 0;
	if (fstat(fileno(f), &st) == 0 && st.st_size > 0) {
		n = st.st_size < (off_t)sizeof(tail) ? (size_t)st.st_size : sizeof(tail);
		if (fseeko(f, st.st_size - (off_t)n, SEEK_SET) == 0 &&
		    fread(tail, 1, n, f) == n) {
			if (png) {
				ok = n >= sizeof(iend) &&
				     memcmp(tail + n - sizeof(iend), iend, sizeof(iend)) == 0;
			} else {
				while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == ' ' ||
						 tail[n - 1] == '\r' || tail[n - 1] == '\t'))
					n--;
				ok = n >= 6 && memcmp(tail + n - 6, "</svg>", 6) == 0;
			}
		}
	}
	fclose(f);
	return ok;
}

/* ------------------------------------------------------------------------ */
/* The command                                                               */
/* ------------------------------------------------------------------------ */

/* The format an output FILE's name asks for when --format does not say:
 * *.svg an SVG image, *.gp the script (as *.zst asks other commands for
 * zstd), else PNG. */
static enum plot_format format_of_name(const char *path)
{
	size_t n = strlen(path);

	if (n > 4 && !strcasecmp(path + n - 4, ".svg"))
		return PF_SVG;
	if (n > 3 && !strcasecmp(path + n - 3, ".gp"))
		return PF_SCRIPT;
	return PF_PNG;
}

/* WIDTH,HEIGHT (or WIDTHxHEIGHT), each a whole number 16 to 20000 as
 * picltrace_parse_int reads them. */
static int parse_size(const char *s, long *w, long *h)
{
	size_t n = strcspn(s, ",x");
	int64_t a, b;

	if (!s[n] || picltrace_parse_int(s, n, 16, 20000, &a) < 0 ||
	    picltrace_parse_int(s + n + 1, strlen(s + n + 1), 16, 20000, &b) < 0)
		return -1;
	*w = (long)a;
	*h = (long)b;
	return 0;
}

int cmd_plot(int argc, const char **argv)
{
	enum { OPT_BINS = 256, OPT_SIZE, OPT_TITLE, OPT_USER, OPT_MEMORY, OPT_SCHEMA };
	static const struct option longopts[] = {
		{ "kind", required_argument, NULL, 'k' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "bins", required_argument, NULL, OPT_BINS },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "user-events", no_argument, NULL, OPT_USER },
		{ "memory", required_argument, NULL, OPT_MEMORY },
		{ "schema", required_argument, NULL, OPT_SCHEMA },
		{ "tmpdir", required_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct plot_opts o;
	struct prof_options po;
	struct prof_output out;
	struct profile *p = NULL;
	const char *stdin_only[] = { "-" };
	const char **inputs, *base, *env;
	const char *schemas[PROF_SCHEMAS_MAX];
	char *script = NULL, preamble[4400], name[1100], fbuf[2048];
	size_t len = 0, k, nschemas = 0;
	int64_t v;
	int ninputs, c, status = 0, format_given = 0;

	memset(&o, 0, sizeof(o));
	o.output = "-";
	o.bins = 200;
	o.width = 1000;
	o.height = 600;
	optind = 1;
	while ((c = getopt_long(argc, (char *const *)argv, "k:f:o:T:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			for (k = 0; k < 4; k++)
				if (!strcmp(optarg, kind_names[k]))
					break;
			if (k == 4) {
				picltrace_error("plot", "--kind takes utilization, gantt, events or "
						"messages, not '%s'", optarg);
				return 2;
			}
			o.kind = (enum plot_kind)k;
			break;
		case 'f':
			if (!strcmp(optarg, "png"))
				o.format = PF_PNG;
			else if (!strcmp(optarg, "svg"))
				o.format = PF_SVG;
			else if (!strcmp(optarg, "script"))
				o.format = PF_SCRIPT;
			else {
				picltrace_error("plot", "--format takes png, svg or script, not '%s'",
						optarg);
				return 2;
			}
			format_given = 1;
			break;
		case 'o':
			o.output = optarg;
			break;
		case OPT_BINS:
			if (picltrace_int_option("plot", "--bins", optarg, 1, 100000,
						 "a number from 1 to 100000", &v) < 0)
				return 2;
			o.bins = (size_t)v;
			break;
		case OPT_SIZE:
			if (parse_size(optarg, &o.width, &o.height) < 0) {
				picltrace_error("plot", "--size takes WIDTH,HEIGHT in pixels (16 to "
						"20000), not '%s'", optarg);
				return 2;
			}
			break;
		case OPT_TITLE:
			o.title = optarg;
			break;
		case OPT_USER:
			o.user_events = 1;
			break;
		case OPT_MEMORY:
			if (picltrace_parse_memory("plot", optarg, &o.memory) < 0)
				return 2;
			break;
		case OPT_SCHEMA:
			if (nschemas == PROF_SCHEMAS_MAX) {
				picltrace_error("plot", "--schema: at most %d files", PROF_SCHEMAS_MAX);
				return 2;
			}
			schemas[nschemas++] = optarg;
			break;
		case 'T':
			o.tmpdir = optarg;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'h':
			fputs(plot_usage, stdout);
			return 0;
		default:
			return picltrace_bad_usage(plot_usage);
		}
	}
	if (!format_given)
		o.format = format_of_name(o.output);
	if (o.user_events && o.kind != KIND_EVENTS) {
		picltrace_error("plot", "--user-events goes with --kind=events");
		return 2;
	}
	inputs = optind < argc ? argv + optind : stdin_only;
	ninputs = optind < argc ? argc - optind : 1;
	if (picltrace_distinct_inputs("plot", inputs, ninputs) < 0)
		return 2;
	if (picltrace_same_file(o.output, inputs, ninputs)) {
		picltrace_error("plot", "%s: the output is also an input; refusing to overwrite it",
				picl_output_name(o.output));
		return 2;
	}
	if (o.format != PF_SCRIPT && !strcmp(o.output, "-") && isatty(1)) {
		picltrace_error("plot", "refusing to write an image to a terminal; use -o FILE "
				"or --format=script");
		return 2;
	}

	memset(&po, 0, sizeof(po));
	po.message_pairs = o.kind == KIND_MESSAGES;
	po.timeline = o.kind == KIND_UTILIZATION || o.kind == KIND_GANTT;
	po.bins = 2 * o.bins > 2000 ? 2 * o.bins : 2000;
	po.quiet = o.quiet;
	po.cmd = "plot";
	po.memory = o.memory;
	po.tmpdir = o.tmpdir;
	po.schemas = schemas;
	po.nschemas = nschemas;
	/* How many intervals a timeline keeps exactly (see picltrace-plot(1));
	 * small values let tests and the curious see the binned form. */
	env = getenv("PICL_PLOT_INTERVALS");
	if (env && *env) {
		if (picltrace_parse_int(env, strlen(env), 1, LONG_MAX, &v) < 0) {
			picltrace_error("plot", "PICL_PLOT_INTERVALS must be a count "
					"of 1 or more, not '%s'", env);
			return 2;
		}
		po.exact_limit = (size_t)v;
	}
	p = profile_of_inputs(&po, inputs, ninputs, o.kind == KIND_EVENTS);
	if (!p)
		return 2;
	prof_warn_loose_ends(p);
	if (!strcmp(inputs[0], "-")) {
		base = "standard input";
	} else {
		base = strrchr(inputs[0], '/');
		base = base ? base + 1 : inputs[0];
	}
	snprintf(name, sizeof(name), "%s%s", base, ninputs > 1 ? " ..." : "");
	if (make_script(p, &o, name, &script, &len) < 0) {
		status = 2;
		goto done;
	}
	if (prof_output_open(&out, "plot", o.output, o.format != PF_SCRIPT) < 0) {
		status = 2;
		goto done;
	}
	if (o.format == PF_SCRIPT) {
		fwrite(script, 1, len, out.f);
		if (prof_output_commit(&out, "plot") < 0)
			status = 2;
		goto done;
	}
	/* gnuplot writes the image file by name. */
	if (out.f) {
		fclose(out.f);
		out.f = NULL;
	}
	snprintf(preamble, sizeof(preamble), "set terminal %s size %ld,%ld noenhanced\n"
		 "set output '%s'\n", o.format == PF_PNG ? "pngcairo" : "svg",
		 o.width, o.height, prof_clean_text(out.file, "'", fbuf, sizeof(fbuf)));
	if (strcmp(fbuf, out.file)) {
		picltrace_error("plot", "%s: cannot name this output file to gnuplot", o.output);
		prof_output_abort(&out);
		status = 2;
		goto done;
	}
	if (run_gnuplot(preamble, script, len, out.file, out.path, o.quiet) < 0) {
		prof_output_abort(&out);
		status = 2;
		goto done;
	}
	if (!image_complete(out.file, o.format == PF_PNG)) {
		picltrace_error("plot", "%s: gnuplot could not write the whole image "
				"(is the disk full, or the file size limited?)", out.path);
		prof_output_abort(&out);
		status = 2;
		goto done;
	}
	if (prof_output_commit(&out, "plot") < 0)
		status = 2;
done:
	free(script);
	profile_free(p);
	return status;
}

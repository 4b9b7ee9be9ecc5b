/*
 * cmd-stat.c - `picltrace stat`: profile a trace. For every process and
 * for all of them together: the time, count and volume of every event type
 * (system and user) relative to the whole process and to every enclosing
 * user event type, with the event subsets summed (spec §2.3.7); ParaGraph's
 * utilization (busy, overhead, idle); message statistics; an estimate of
 * the critical path. As a table (aligned columns), CSV or JSON.
 *
 * Two more modes: --emit-records writes the statistics records (-101,
 * -102, -103) that PICL's traceexit would have written, for traces that
 * lack them; --compare checks the statistics records a trace holds against
 * what its events say (exit 1 when they differ).
 *
 * Everything is computed in one streaming pass by profile.c (the model
 * plot shares); this file only prints. The first malformed record stops
 * stat with file:line:column and exit status 2.
 */
#include "builtin.h"
#include "fdio.h"
#include "pow10.h"
#include "profile.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char stat_usage[] =
	"usage: picltrace stat [--format=table|csv|json] [--messages] [--summary]\n"
	"                      [-o FILE] [--schema=FILE] [--memory=SIZE] [--tmpdir=DIR]\n"
	"                      [-q] [FILE...]\n"
	"       picltrace stat --compare [-o FILE] [--schema=FILE] [--memory=SIZE]\n"
	"                      [--tmpdir=DIR] [-q] [FILE...]\n"
	"       picltrace stat --emit-records [-o FILE] [-z] [--schema=FILE]\n"
	"                      [--memory=SIZE] [--tmpdir=DIR] [-q] [FILE...]\n"
	"\n"
	"  -f, --format=FMT   table (default; or text), csv or json\n"
	"  -m, --messages     also show messages per (source, destination) processor\n"
	"  -s, --summary      show only the totals over all processes\n"
	"      --compare      compare the trace's statistics records (-101, -102,\n"
	"                     -103) with what its events say, and the positive\n"
	"                     statistics they leave out (notes for what the\n"
	"                     trace cannot tell); exit 1 if they differ\n"
	"      --emit-records write the statistics records the events give\n"
	"  -o, --output=FILE  write to FILE instead of standard output\n"
	"  -z, --zstd         with --emit-records: compress the output (also\n"
	"                     implied by an output FILE named *.zst)\n"
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
	"read as one trace, one after another (a file given twice, under any name,\n"
	"is refused). Inputs may be plain or zstd.\n";

enum stat_format { FMT_TABLE, FMT_CSV, FMT_JSON };

struct stat_opts {
	enum stat_format format;
	int messages, summary, compare, emit, compress, quiet;
	const char *output;
	uint64_t memory;             /* --memory (0: the default) */
	const char *tmpdir;
};

/* ------------------------------------------------------------------------ */
/* A table with aligned columns                                              */
/* ------------------------------------------------------------------------ */

#define TAB_MAXCOLS 8

struct tab {
	size_t ncols;
	const char *align;           /* 'l' or 'r' per column */
	char **cells;                /* nrows * ncols, NULL: a blank line */
	size_t nrows, cap;
	int failed;
};

static void tab_init(struct tab *t, const char *align)
{
	memset(t, 0, sizeof(*t));
	t->align = align;
	t->ncols = strlen(align);
}

/* Add a row of ncols strings (copied). */
static void tab_row(struct tab *t, ...)
{
	va_list ap;
	size_t k;

	if (t->failed)
		return;
	if (t->nrows == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 32;
		char **n = realloc(t->cells, ncap * t->ncols * sizeof(*n));

		if (!n) {
			t->failed = 1;
			return;
		}
		t->cells = n;
		t->cap = ncap;
	}
	va_start(ap, t);
	for (k = 0; k < t->ncols; k++) {
		const char *s = va_arg(ap, const char *);
		char *c = strdup(s ? s : "");

		if (!c)
			t->failed = 1;
		t->cells[t->nrows * t->ncols + k] = c;
	}
	va_end(ap);
	t->nrows++;
}

/* Display width of UTF-8 text (one column per code point). */
static size_t text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static void tab_print(struct tab *t, FILE *out, const char *indent)
{
	size_t width[TAB_MAXCOLS] = { 0 }, r, k;

	for (r = 0; r < t->nrows; r++)
		for (k = 0; k < t->ncols; k++) {
			const char *c = t->cells[r * t->ncols + k];
			size_t w = c ? text_width(c) : 0;

			if (w > width[k])
				width[k] = w;
		}
	for (r = 0; r < t->nrows; r++) {
		char line[4096];
		size_t len = 0, k2;

		for (k = 0; k < t->ncols; k++) {
			const char *c = t->cells[r * t->ncols + k];
			size_t w = c ? text_width(c) : 0, pad = width[k] - w, clen = c ? strlen(c) : 0;

			if (k > 0 && len + 2 < sizeof(line)) {
				line[len++] = ' ';
				line[len++] = ' ';
			}
			if (t->align[k] == 'r')
				for (k2 = 0; k2 < pad && len + 1 < sizeof(line); k2++)
					line[len++] = ' ';
			if (clen && len + clen < sizeof(line)) {
				memcpy(line + len, c, clen);
				len += clen;
			}
			if (t->align[k] != 'r')
				for (k2 = 0; k2 < pad && len + 1 < sizeof(line); k2++)
					line[len++] = ' ';
		}
		while (len > 0 && line[len - 1] == ' ')
			len--;
		line[len] = '\0';
		fprintf(out, "%s%s\n", len ? indent : "", line);
	}
}

/* Set when a table or block could not be made for want of memory: the
 * output would be cut short, so stat fails instead (exit 2). */
static int print_nomem;

static void tab_free(struct tab *t)
{
	if (t->failed)
		print_nomem = 1;
	size_t k;

	for (k = 0; k < t->nrows * t->ncols; k++)
		free(t->cells[k]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------------------ */
/* Formatting values                                                         */
/* ------------------------------------------------------------------------ */

struct num {
	char s[PROF_TICKS_BUFSIZE];
};

static struct num fmt_int(int64_t v)
{
	struct num n;

	snprintf(n.s, sizeof(n.s), "%lld", (long long)v);
	return n;
}

static struct num fmt_ticks(const struct profile *p, prof_ticks t)
{
	struct num n;

	prof_ticks_format(t, p->max_scale, n.s);
	return n;
}

static struct num fmt_percent(prof_ticks part, prof_ticks whole)
{
	struct num n;

	if (whole <= 0)
		snprintf(n.s, sizeof(n.s), "-");
	else
		snprintf(n.s, sizeof(n.s), "%.2f",
			 100.0 * prof_ticks_seconds(part) / prof_ticks_seconds(whole));
	return n;
}

/* The name of an event type for a table: cleaned, and bounded. */
static const char *table_name(const struct profile *p, int32_t event, char *buf, size_t size)
{
	return prof_clean_text(prof_event_name(p, event), NULL, buf, size);
}

static const char *proc_title(const struct prof_proc *pp, char *buf, size_t size)
{
	char pb[24];

	if (pp->processor == PICL_HOST_PROCESSOR)
		snprintf(pb, sizeof(pb), "host");
	else
		snprintf(pb, sizeof(pb), "processor %d", (int)pp->processor);
	if (pp->process == PICL_WILDCARD)
		snprintf(buf, size, "%s", pb);
	else
		snprintf(buf, size, "%s, process %d", pb, (int)pp->process);
	return buf;
}

/* ------------------------------------------------------------------------ */
/* What one block (a process, or all) shows                                  */
/* ------------------------------------------------------------------------ */

struct block {
	const struct prof_cell *cells;
	size_t ncells;
	prof_ticks traced, cat[PROF_NCAT], from, to;
};

static void block_of_proc(const struct prof_proc *pp, struct block *b)
{
	b->cells = pp->cells;
	b->ncells = pp->ncells;
	b->traced = prof_proc_traced(pp, b->cat);
	prof_proc_span(pp, &b->from, &b->to);
}

static void block_of_all(const struct profile *p, struct block *b)
{
	prof_ticks cat[PROF_NCAT];
	size_t k;
	int c;

	memset(b, 0, sizeof(*b));
	b->cells = p->all;
	b->ncells = p->nall;
	for (k = 0; k < p->nprocs; k++) {
		b->traced += prof_proc_traced(p->procs[k], cat);
		for (c = 0; c < PROF_NCAT; c++)
			b->cat[c] += cat[c];
	}
	b->from = p->start;
	b->to = p->end;
}

/* Distinct relative event types of a block's (sorted) cells. */
static size_t block_rels(const struct block *b, int32_t *rels)
{
	size_t k, n = 0;

	for (k = 0; k < b->ncells; k++)
		if (n == 0 || rels[n - 1] != b->cells[k].rel)
			rels[n++] = b->cells[k].rel;
	return n;
}

/* ------------------------------------------------------------------------ */
/* Table                                                                     */
/* ------------------------------------------------------------------------ */

static void cell_row(const struct profile *p, struct tab *t, const struct prof_cell *c)
{
	char name[1100];

	tab_row(t, fmt_int(c->event).s, table_name(p, c->event, name, sizeof(name)),
		c->has_time ? fmt_ticks(p, c->time).s : "-", fmt_int(c->count).s,
		c->has_volume ? fmt_int(c->volume).s : "-");
}

static void table_block(FILE *out, const struct profile *p, const char *title,
			const struct block *b, struct prof_cell *sums)
{
	int32_t *rels = malloc((b->ncells ? b->ncells : 1) * sizeof(*rels));
	size_t nrels, r, k, ns;
	struct tab t;
	int c;

	fprintf(out, "\n== %s: traced %s s, from %s to %s\n\n", title,
		fmt_ticks(p, b->traced).s, fmt_ticks(p, b->from).s, fmt_ticks(p, b->to).s);
	tab_init(&t, "lrr");
	tab_row(&t, "utilization", "time (s)", "%");
	for (c = 0; c < PROF_NCAT; c++)
		tab_row(&t, prof_cat_name(c), fmt_ticks(p, b->cat[c]).s,
			fmt_percent(b->cat[c], b->traced).s);
	tab_print(&t, out, "  ");
	tab_free(&t);
	if (!rels) {
		print_nomem = 1;
		return;
	}
	nrels = block_rels(b, rels);
	for (r = 0; r < nrels; r++) {
		char name[1100];

		if (rels[r] == PICL_WILDCARD)
			fprintf(out, "\n  relative to the whole process (-1)\n");
		else if (prof_event_label(p, rels[r]))
			fprintf(out, "\n  inside user event %d (%s)\n", (int)rels[r],
				prof_clean_text(prof_event_label(p, rels[r]), NULL, name,
						sizeof(name)));
		else
			fprintf(out, "\n  inside user event %d\n", (int)rels[r]);
		tab_init(&t, "llrrr");
		tab_row(&t, "event", "name", "time (s)", "count", "volume");
		for (k = 0; k < b->ncells; k++)
			if (b->cells[k].rel == rels[r])
				cell_row(p, &t, &b->cells[k]);
		ns = prof_subset_sums(p, b->cells, b->ncells, rels[r], sums);
		if (ns > 0) {
			tab_row(&t, "", "", "", "", "");
			tab_row(&t, "subset", "name", "time (s)", "count", "volume");
		}
		for (k = 0; k < ns; k++)
			cell_row(p, &t, &sums[k]);
		tab_print(&t, out, "  ");
		tab_free(&t);
	}
	free(rels);
}

static void table_messages(FILE *out, const struct profile *p, int pairs)
{
	const struct prof_msgstat *m = &p->msg;
	prof_ticks cp = prof_critical_path(p), span = prof_makespan(p);

	fprintf(out, "\n== messages: %llu matched, %lld bytes; unmatched: %llu send%s, "
		"%llu receive%s\n", (unsigned long long)m->count, (long long)m->bytes,
		(unsigned long long)p->unmatched_sends, p->unmatched_sends == 1 ? "" : "s",
		(unsigned long long)p->unmatched_recvs, p->unmatched_recvs == 1 ? "" : "s");
	if (m->count) {
		fprintf(out, "  latency (s): min %s, mean %s, max %s",
			fmt_ticks(p, m->lat_min).s,
			fmt_ticks(p, m->lat_sum / (prof_ticks)m->count).s,
			fmt_ticks(p, m->lat_max).s);
		if (p->tachyons)
			fprintf(out, "; %llu received before %s sent",
				(unsigned long long)p->tachyons,
				p->tachyons == 1 ? "it was" : "they were");
		fputc('\n', out);
	}
	if (p->gap_pairs || p->gap_sends || p->gap_recvs)
		fprintf(out, "  where trace buffers filled (-913, -914), records are missing: %llu "
			"pair%s after them may be wrong, left out above; %llu unmatched send%s "
			"and %llu receive%s may have lost their partner there\n",
			(unsigned long long)p->gap_pairs, p->gap_pairs == 1 ? "" : "s",
			(unsigned long long)p->gap_sends, p->gap_sends == 1 ? "" : "s",
			(unsigned long long)p->gap_recvs, p->gap_recvs == 1 ? "" : "s");
	if (pairs && p->npairs) {
		struct prof_msgstat *v;
		size_t n, k;
		struct tab t;

		v = prof_pairs_sorted(p, &n);
		if (!v)
			print_nomem = 1;
		if (v) {
			fputc('\n', out);
			tab_init(&t, "rrrrrrr");
			tab_row(&t, "from", "to", "count", "bytes", "latency min", "mean", "max");
			for (k = 0; k < n; k++) {
				char a[16], b[16];

				tab_row(&t, prof_processor_name(v[k].src, a),
					prof_processor_name(v[k].dst, b), fmt_int((int64_t)v[k].count).s,
					fmt_int(v[k].bytes).s, fmt_ticks(p, v[k].lat_min).s,
					fmt_ticks(p, v[k].lat_sum / (prof_ticks)v[k].count).s,
					fmt_ticks(p, v[k].lat_max).s);
			}
			tab_print(&t, out, "  ");
			tab_free(&t);
			free(v);
		}
	}
	if (span > 0)
		fprintf(out, "\n== critical path (estimate): %s s of a makespan of %s s (%s%%)\n",
			fmt_ticks(p, cp).s, fmt_ticks(p, span).s, fmt_percent(cp, span).s);
	else
		fprintf(out, "\n== critical path (estimate): %s s; no traced time\n",
			fmt_ticks(p, cp).s);
	if (p->late_edges)
		fprintf(out, "  %llu message%s read receive first, left out: sort the trace\n",
			(unsigned long long)p->late_edges, p->late_edges == 1 ? " was" : "s were");
}

static void print_table(FILE *out, const struct profile *p, const struct stat_opts *o,
			char *const *inputs, int ninputs, struct prof_cell *sums)
{
	struct block b;
	size_t k;
	int i;

	fputs("trace:", out);
	for (i = 0; i < ninputs; i++) {
		char buf[1100];

		fprintf(out, " %s", strcmp(inputs[i], "-") ? prof_clean_text(inputs[i], NULL, buf,
									  sizeof(buf))
							  : "<stdin>");
	}
	fprintf(out, "\n%zu process%s on %zu processor%s; %llu records, %llu event records; "
		"timestamps with %d decimals\n",
		p->nprocs, p->nprocs == 1 ? "" : "es", p->nprocessors,
		p->nprocessors == 1 ? "" : "s", (unsigned long long)p->records,
		(unsigned long long)p->event_records, (int)p->max_scale);
	if (p->nprocs > 1 || o->summary) {
		block_of_all(p, &b);
		table_block(out, p, "all processes", &b, sums);
	}
	for (k = 0; k < p->nprocs && !o->summary; k++) {
		char title[64];

		block_of_proc(p->procs[k], &b);
		table_block(out, p, proc_title(p->procs[k], title, sizeof(title)), &b, sums);
	}
	table_messages(out, p, o->messages);
}

/* ------------------------------------------------------------------------ */
/* CSV                                                                       */
/* ------------------------------------------------------------------------ */

/* who: "processor,process", or "all,all" for the totals (a trace's records
 * of processor -1 make a process -1,-1 of their own). */
static void csv_cell(FILE *out, const struct profile *p, const char *who, const char *kind,
		     const struct prof_cell *c)
{
	fprintf(out, "%s,%d,%s,%d,", who, (int)c->rel, kind, (int)c->event);
	prof_csv_field(out, prof_event_name(p, c->event));
	fprintf(out, ",%s,%lld,%s\n", c->has_time ? fmt_ticks(p, c->time).s : "",
		(long long)c->count, c->has_volume ? fmt_int(c->volume).s : "");
}

static void csv_block(FILE *out, const struct profile *p, const char *who,
		      const struct block *b, struct prof_cell *sums)
{
	int32_t *rels = malloc((b->ncells ? b->ncells : 1) * sizeof(*rels));
	size_t nrels, r, k, ns;
	int c;

	for (c = 0; c < PROF_NCAT; c++)
		fprintf(out, "%s,,utilization,,%s,%s,,\n", who, prof_cat_name(c),
			fmt_ticks(p, b->cat[c]).s);
	if (!rels) {
		print_nomem = 1;
		return;
	}
	nrels = block_rels(b, rels);
	for (r = 0; r < nrels; r++) {
		for (k = 0; k < b->ncells; k++)
			if (b->cells[k].rel == rels[r])
				csv_cell(out, p, who, "event", &b->cells[k]);
		ns = prof_subset_sums(p, b->cells, b->ncells, rels[r], sums);
		for (k = 0; k < ns; k++)
			csv_cell(out, p, who, "subset", &sums[k]);
	}
	free(rels);
}

static void print_csv(FILE *out, const struct profile *p, const struct stat_opts *o,
		      struct prof_cell *sums)
{
	struct block b;
	size_t k;

	fputs("processor,process,relative,kind,event,name,time,count,volume\n", out);
	for (k = 0; k < p->nprocs && !o->summary; k++) {
		char who[32];

		snprintf(who, sizeof(who), "%d,%d", (int)p->procs[k]->processor,
			 (int)p->procs[k]->process);
		block_of_proc(p->procs[k], &b);
		csv_block(out, p, who, &b, sums);
	}
	block_of_all(p, &b);
	csv_block(out, p, "all,all", &b, sums);
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                      */
/* ------------------------------------------------------------------------ */

static void json_cell(FILE *out, const struct profile *p, const struct prof_cell *c,
		      int last)
{
	fprintf(out, "          {\"event\": %d, \"name\": ", (int)c->event);
	prof_json_string(out, prof_event_name(p, c->event));
	fprintf(out, ", \"time\": %s, \"count\": %lld, \"volume\": %s}%s\n",
		c->has_time ? fmt_ticks(p, c->time).s : "null", (long long)c->count,
		c->has_volume ? fmt_int(c->volume).s : "null", last ? "" : ",");
}

static void json_block(FILE *out, const struct profile *p, const struct block *b,
		       struct prof_cell *sums)
{
	int32_t *rels = malloc((b->ncells ? b->ncells : 1) * sizeof(*rels));
	size_t nrels = 0, r, k, ns, n, m;
	int c;

	fprintf(out, "\"start\": %s, \"end\": %s, \"traced\": %s,\n",
		fmt_ticks(p, b->from).s, fmt_ticks(p, b->to).s, fmt_ticks(p, b->traced).s);
	fputs("      \"utilization\": {", out);
	for (c = 0; c < PROF_NCAT; c++)
		fprintf(out, "%s\"%s\": %s", c ? ", " : "", prof_cat_name(c),
			fmt_ticks(p, b->cat[c]).s);
	fputs("},\n      \"profile\": [", out);
	if (rels)
		nrels = block_rels(b, rels);
	else
		print_nomem = 1;
	for (r = 0; r < nrels; r++) {
		fprintf(out, "%s\n        {\"relative\": %d, \"name\": ", r ? "," : "", (int)rels[r]);
		prof_json_string(out, prof_event_name(p, rels[r]));
		fputs(",\n         \"events\": [\n", out);
		for (k = 0, n = 0; k < b->ncells; k++)
			n += b->cells[k].rel == rels[r];
		for (k = 0, m = 0; k < b->ncells; k++)
			if (b->cells[k].rel == rels[r])
				json_cell(out, p, &b->cells[k], ++m == n);
		fputs("         ],\n         \"subsets\": [\n", out);
		ns = prof_subset_sums(p, b->cells, b->ncells, rels[r], sums);
		for (k = 0; k < ns; k++)
			json_cell(out, p, &sums[k], k + 1 == ns);
		fputs("         ]}", out);
	}
	fputs("]", out);
	free(rels);
}

static void json_msgstat(FILE *out, const struct profile *p, const struct prof_msgstat *m)
{
	fprintf(out, "\"count\": %llu, \"bytes\": %lld, \"latency\": ",
		(unsigned long long)m->count, (long long)m->bytes);
	if (!m->count)
		fputs("null", out);
	else
		fprintf(out, "{\"min\": %s, \"mean\": %s, \"max\": %s}",
			fmt_ticks(p, m->lat_min).s,
			fmt_ticks(p, m->lat_sum / (prof_ticks)m->count).s,
			fmt_ticks(p, m->lat_max).s);
}

static void print_json(FILE *out, const struct profile *p, const struct stat_opts *o,
		       char *const *inputs, int ninputs, struct prof_cell *sums)
{
	struct block b;
	size_t k;
	int i;

	fputs("{\n  \"inputs\": [", out);
	for (i = 0; i < ninputs; i++) {
		if (i)
			fputs(", ", out);
		prof_json_string(out, inputs[i]);
	}
	fprintf(out, "],\n  \"records\": %llu,\n  \"event_records\": %llu,\n"
		"  \"decimals\": %d,\n", (unsigned long long)p->records,
		(unsigned long long)p->event_records, (int)p->max_scale);
	fputs("  \"processes\": [", out);
	for (k = 0; k < p->nprocs && !o->summary; k++) {
		const struct prof_proc *pp = p->procs[k];

		block_of_proc(pp, &b);
		fprintf(out, "%s\n    {\"processor\": %d, \"process\": %d, \"host\": %s,\n      ",
			k ? "," : "", (int)pp->processor, (int)pp->process,
			pp->processor == PICL_HOST_PROCESSOR ? "true" : "false");
		json_block(out, p, &b, sums);
		fprintf(out, ",\n      \"critical_path\": %s}", fmt_ticks(p, pp->cp).s);
	}
	fputs("],\n  \"all\": {", out);
	block_of_all(p, &b);
	json_block(out, p, &b, sums);
	fputs("},\n  \"messages\": {", out);
	json_msgstat(out, p, &p->msg);
	fprintf(out, ", \"unmatched_sends\": %llu, \"unmatched_receives\": %llu, "
		"\"received_before_sent\": %llu, \"pairs_after_gap\": %llu, "
		"\"unmatched_sends_gap\": %llu, \"unmatched_receives_gap\": %llu",
		(unsigned long long)p->unmatched_sends, (unsigned long long)p->unmatched_recvs,
		(unsigned long long)p->tachyons, (unsigned long long)p->gap_pairs,
		(unsigned long long)p->gap_sends, (unsigned long long)p->gap_recvs);
	if (o->messages) {
		struct prof_msgstat *v;
		size_t n = 0;

		v = prof_pairs_sorted(p, &n);
		if (!v)
			print_nomem = 1;
		fputs(",\n    \"pairs\": [", out);
		for (k = 0; v && k < n; k++) {
			fprintf(out, "%s\n      {\"from\": %d, \"to\": %d, ", k ? "," : "",
				(int)v[k].src, (int)v[k].dst);
			json_msgstat(out, p, &v[k]);
			fputs("}", out);
		}
		fputs("]", out);
		free(v);
	}
	fprintf(out, "},\n  \"critical_path\": {\"length\": %s, \"makespan\": %s, "
		"\"messages_left_out\": %llu}\n}\n",
		fmt_ticks(p, prof_critical_path(p)).s, fmt_ticks(p, prof_makespan(p)).s,
		(unsigned long long)p->late_edges);
}

/* ------------------------------------------------------------------------ */
/* --compare                                                                 */
/* ------------------------------------------------------------------------ */

struct compare {
	const struct profile *p;
	FILE *out;
	uint64_t compared, within, differ, notes, unmeasured;
};

static int cmp_recorded(const void *a, const void *b)
{
	const struct prof_recorded *x = a, *y = b;

#define KEY(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
	KEY(processor);
	KEY(process);
	KEY(rel);
	if (x->type != y->type)         /* time, count, volume */
		return x->type > y->type ? -1 : 1;
	KEY(event);
	KEY(seq);
#undef KEY
	return 0;
}

static const char *stat_kind(int32_t type)
{
	return type == PICL_REC_STAT_TIME ? "time" :
	       type == PICL_REC_STAT_COUNT ? "count" : "volume";
}

/* A field value that matches itself only: neither the wildcard nor a
 * subset of `kind` (of processes: on `processor`). */
static int plain_id(const struct profile *p, enum picl_subset_kind kind, int32_t processor,
		    int32_t id)
{
	return id >= 0 ||
	       (id < -1 && !picl_defs_subset_exists_on(p->defs, kind, processor, id));
}

/* The first process not before (processor, process), the processes being
 * sorted so (profile_finish). */
static size_t proc_lower(const struct profile *p, int32_t processor, int32_t process)
{
	size_t lo = 0, hi = p->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct prof_proc *pp = p->procs[mid];

		if (pp->processor < processor ||
		    (pp->processor == processor && pp->process < process))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Sum what the events say for E relative to R over the matching
 * processes; E may be an event subset. Returns the number of processes
 * that matched; *scale is the finest decimals of their timestamps (the
 * resolution a time is compared at, as validate has it). A record names
 * one process as a rule, and one event type of thousands: the processes
 * a plain processor (and process) names are found by halving, and each
 * one's cells by prof_cells_add, so that a trace with a record per event
 * type costs no records x cells. The sums add up in the order a scan of
 * every process and cell had. */
static size_t recompute(const struct profile *p, int32_t processor, int32_t process,
			int32_t rel, int32_t event, struct prof_cell *sum, int32_t *scale)
{
	int one_processor = plain_id(p, PICL_SUBSET_PROCESSORS, processor, processor);
	int one_process = one_processor && plain_id(p, PICL_SUBSET_PROCESSES, processor, process);
	size_t k, nproc = 0;

	memset(sum, 0, sizeof(*sum));
	*scale = 0;
	k = one_processor ? proc_lower(p, processor, one_process ? process : INT32_MIN) : 0;
	for (; k < p->nprocs; k++) {
		const struct prof_proc *pp = p->procs[k];

		if (one_processor && pp->processor != processor)
			break;
		if (one_process && pp->process != process)
			break;
		if (!picl_defs_matches(p->defs, PICL_SUBSET_PROCESSORS, processor, pp->processor) ||
		    !picl_defs_matches_on(p->defs, PICL_SUBSET_PROCESSES, pp->processor, process,
					  pp->process))
			continue;
		nproc++;
		if (pp->max_scale > *scale)
			*scale = pp->max_scale;
		prof_cells_add(p, pp->cells, pp->ncells, rel, event, sum);
	}
	return nproc;
}

/* First index in the sorted recorded pairs not less than the key. */
static size_t lower_bound(const struct profile *p, int32_t processor, int32_t process,
			  int32_t rel, int32_t type, int32_t event)
{
	struct prof_recorded key;
	size_t lo = 0, hi = p->nrecorded;

	memset(&key, 0, sizeof(key));
	key.processor = processor;
	key.process = process;
	key.rel = rel;
	key.type = type;
	key.event = event;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cmp_recorded(&p->recorded[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void compare_where(struct compare *c, const struct prof_recorded *r,
			  const struct picl_mark *at, int32_t processor, int32_t process,
			  int32_t rel)
{
	char pb[16];

	fprintf(c->out, "%s:%llu:%llu: processor %s", r->path, (unsigned long long)at->line,
		(unsigned long long)at->column,
		processor == PICL_WILDCARD ? "-1 (all)" : prof_processor_name(processor, pb));
	if (process != PICL_WILDCARD)
		fprintf(c->out, ", process %d", (int)process);
	fprintf(c->out, ", relative to %d: ", (int)rel);
}

static void compare_event(struct compare *c, int32_t event)
{
	char name[1100];

	fprintf(c->out, "%d", (int)event);
	prof_clean_text(prof_event_name(c->p, event), NULL, name, sizeof(name));
	if (*name)
		fprintf(c->out, " %s", name);
}

/* Did event records of r's process follow r? Then r is a sample, valid at
 * its timestamp (spec Table 21: "statistics valid at time ..."), not the
 * process's totals, which are all stat knows: validate, which recomputes
 * as it reads, compares it. */
static int sampled_before_end(const struct profile *p, const struct prof_recorded *r)
{
	size_t k;

	if (!r->one_process)
		return 0;
	k = proc_lower(p, r->processor, r->process);
	return k < p->nprocs && p->procs[k]->processor == r->processor &&
	       p->procs[k]->process == r->process &&
	       p->procs[k]->event_records > r->events_before;
}

/* Does E's volume include the trace data of -901, which no event shows? */
static int volume_unknowable(const struct profile *p, int32_t event)
{
	return event == -901 ||
	       (event < -1 && picl_defs_subset_exists(p->defs, PICL_SUBSET_EVENTS, event) &&
		picl_defs_matches(p->defs, PICL_SUBSET_EVENTS, event, -901));
}

/* An event type PICL only counts (picltrace_counted_only), not a subset. */
static int counted_only(const struct profile *p, int32_t event)
{
	return event < -1 && p->schema &&
	       !picl_defs_subset_exists(p->defs, PICL_SUBSET_EVENTS, event) &&
	       picltrace_counted_only(picl_schema_event(p->schema, event));
}

/* Is the time t (seconds, n intervals) within the resolution of the
 * timestamps (`scale` decimals: those of the processes summed) of the
 * recorded value? d is the difference. */
static int within(double d, uint64_t n, int32_t scale)
{
	double resolution = 1.0;

	while (scale-- > 0)
		resolution /= 10;
	return (d < 0 ? -d : d) <= resolution * ((double)n + 1e-6);
}

/* Does the recorded time r agree with the events' sum (n intervals),
 * within picltrace_stat_time_tolerance? Exactly, in ticks: doubles lose
 * the last digits of long timestamps. */
static int time_within(const struct prof_recorded *r, prof_ticks sum, uint64_t n,
		       int32_t scale)
{
	prof_ticks d, tol;

	if (scale < 0 || scale > PROF_TICK_SCALE || r->decimals > PROF_TICK_SCALE)
		return 0;
	d = r->ticks - sum;
	tol = picltrace_stat_time_tolerance(scale, n, r->decimals);
	return d >= -tol && d <= tol;
}

/* Are two times the same number of units of 10^-dec s? The cells hold
 * doubles rounded to the trace's decimals; a sum of several (processors,
 * subsets) is off by rounding only (0.1 + 0.2 against 0.3), which must not
 * count as a difference within the resolution. */
static int same_at(double a, double b, int32_t dec)
{
	double s = 1;

	if (dec < 0 || dec > 15)
		return 0;
	while (dec-- > 0)
		s *= 10;
	if (!(a * s < 0x1p53 && a * s > -0x1p53 && b * s < 0x1p53 && b * s > -0x1p53))
		return 0;
	return llround(a * s) == llround(b * s);
}

/* A note for a recorded value not compared, and why. */
static void not_compared(struct compare *c, const struct prof_recorded *r, const char *why)
{
	c->notes++;
	fputs("note: ", c->out);
	compare_where(c, r, &r->value_mark, r->processor, r->process, r->rel);
	fprintf(c->out, "the %s of ", stat_kind(r->type));
	compare_event(c, r->event);
	fprintf(c->out, " (%.*f) %s\n", r->type == PICL_REC_STAT_TIME ? (int)r->decimals : 0,
		r->value, why);
}

static void compare_one(struct compare *c, const struct prof_recorded *r)
{
	const struct profile *p = c->p;
	struct prof_cell sum;
	char a[PROF_TICKS_BUFSIZE], b[PROF_TICKS_BUFSIZE];
	int32_t dec, scale, rel = picltrace_stats_relative(r->rel);
	double sum_time;

	if (r->value == -1.0) {
		c->unmeasured++;        /* -1: not measured (§2.3.7) */
		return;
	}
	if (sampled_before_end(p, r)) {
		not_compared(c, r, "is not compared: events of the process follow the record, "
			     "which holds the statistics at its time, not the totals "
			     "(picltrace validate compares it with the events before it)");
		return;
	}
	if (r->type == PICL_REC_STAT_VOLUME && volume_unknowable(p, r->event)) {
		c->notes++;
		fputs("note: ", c->out);
		compare_where(c, r, &r->value_mark, r->processor, r->process, r->rel);
		fputs("the volume of ", c->out);
		compare_event(c, r->event);
		fprintf(c->out, " (%.0f, the bytes of trace data) cannot be recomputed "
			"from the events\n", r->value);
		return;
	}
	/* Relative to another system event than -901, or to a subset: not
	 * what the accumulator keeps. */
	if (rel < -1 || (r->rel == -901 && r->event == -901)) {
		not_compared(c, r, "is not recomputed: only statistics relative to -1, -901 "
			     "and user events are");
		return;
	}
	if (counted_only(p, r->event)) {
		not_compared(c, r, "cannot be recomputed: PICL counts it without writing records");
		return;
	}
	if (r->type != PICL_REC_STAT_TIME &&
	    picltrace_subset_counted_only(p->schema, p->defs, r->event)) {
		not_compared(c, r, "cannot be recomputed: the subset takes in types PICL "
			     "counts without writing records");
		return;
	}
	c->compared++;
	if (!recompute(p, r->processor, r->process, rel, r->event, &sum, &scale)) {
		c->differ++;
		compare_where(c, r, &r->value_mark, r->processor, r->process, r->rel);
		fprintf(c->out, "%s of ", stat_kind(r->type));
		compare_event(c, r->event);
		fputs(": the trace has no events there\n", c->out);
		return;
	}
	dec = r->decimals > scale ? r->decimals : scale;
	switch (r->type) {
	case PICL_REC_STAT_TIME:
		sum_time = prof_ticks_seconds(sum.time);
		if (r->exact) {
			if (sum.has_time && r->ticks == sum.time)
				return;
			if (sum.has_time && time_within(r, sum.time, sum.intervals, scale)) {
				c->within++;
				return;
			}
		} else {
			if (sum.has_time &&
			    (r->value == sum_time || same_at(r->value, sum_time, dec)))
				return;
			if (sum.has_time && within(r->value - sum_time, sum.intervals, scale)) {
				c->within++;
				return;
			}
		}
		c->differ++;
		compare_where(c, r, &r->value_mark, r->processor, r->process, r->rel);
		fputs("time of ", c->out);
		compare_event(c, r->event);
		fprintf(c->out, ": recorded %s, the events give %s\n",
			r->exact ? prof_ticks_format(r->ticks, r->decimals, a)
				 : prof_seconds_format(r->value, dec, a),
			sum.has_time ? prof_ticks_format(sum.time, p->max_scale, b) : "no time");
		return;
	default:
		if (r->type == PICL_REC_STAT_COUNT ? (double)sum.count == r->value
		    : (double)(sum.has_volume ? sum.volume : 0) == r->value)
			return;
		c->differ++;
		compare_where(c, r, &r->value_mark, r->processor, r->process, r->rel);
		fprintf(c->out, "%s of ", stat_kind(r->type));
		compare_event(c, r->event);
		fprintf(c->out, ": recorded %.0f, the events give %lld\n", r->value,
			(long long)(r->type == PICL_REC_STAT_COUNT ? sum.count :
				    sum.has_volume ? sum.volume : 0));
		return;
	}
}

/* Is r a pair of pp's statistics of `type` relative to rel? */
static int same_record(const struct prof_recorded *r, const struct prof_proc *pp,
		       int32_t rel, int32_t type)
{
	return r->processor == pp->processor && r->process == pp->process &&
	       r->rel == rel && r->type == type;
}

/* 1 + the largest user event type pp's records of `type` relative to rel
 * list (they are sorted by event type), 0 if none. */
static int64_t listed_users(const struct profile *p, const struct prof_proc *pp,
			    int32_t rel, int32_t type)
{
	size_t k = lower_bound(p, pp->processor, pp->process, rel, type, INT32_MAX);
	const struct prof_recorded *last = k > 0 ? &p->recorded[k - 1] : NULL;

	return last && same_record(last, pp, rel, type) && last->event >= 0
	       ? (int64_t)last->event + 1 : 0;
}

/* Pairs PICL would have written (positive statistics) that a record for
 * the same process, relative event type and kind leaves out. For R = -1,
 * PICL writes system and user events in separate records: only the record
 * of E's own kind counts, and of the user events only those traceevents
 * profiled (picltrace_stats_expected: when the trace cannot tell, a note
 * says so instead of a difference). The events of processor -1 are not
 * looked at: a record of processor -1 is a sum over all processes
 * (compare_one), not theirs. */
static void compare_missing(struct compare *c, const struct prof_proc *pp,
			    const struct prof_cell *cell)
{
	static const int32_t types[3] = {
		PICL_REC_STAT_TIME, PICL_REC_STAT_COUNT, PICL_REC_STAT_VOLUME
	};
	const struct profile *p = c->p;
	char a[PROF_TICKS_BUFSIZE];
	int64_t listed;
	int t, expected;

	if (pp->processor < 0)
		return;

	for (t = 0; t < 3; t++) {
		const struct prof_recorded *group;
		size_t k;

		if (types[t] == PICL_REC_STAT_TIME
		    ? !cell->has_time || within(prof_ticks_seconds(cell->time), cell->intervals,
						pp->max_scale)
		    : types[t] == PICL_REC_STAT_COUNT ? cell->count <= 0
		    : !cell->has_volume || cell->volume <= 0)
			continue;
		/* The record's first pair of E's kind (events ascend: system
		 * ones first, user ones from 0), and E's own pair: two binary
		 * searches, not a scan of the record's pairs for every cell,
		 * which a record of thousands of event types made quadratic. */
		k = lower_bound(p, pp->processor, pp->process, cell->rel, types[t],
				cell->rel == PICL_WILDCARD && cell->event >= 0 ? 0 : INT32_MIN);
		/* the wildcard and subsets are sums, not PICL's own pairs */
		while (k < p->nrecorded && same_record(&p->recorded[k], pp, cell->rel, types[t]) &&
		       (p->recorded[k].event == PICL_WILDCARD ||
			(p->recorded[k].event < -1 &&
			 picl_defs_subset_exists(p->defs, PICL_SUBSET_EVENTS, p->recorded[k].event))))
			k++;
		group = k < p->nrecorded && same_record(&p->recorded[k], pp, cell->rel, types[t])
			? &p->recorded[k] : NULL;
		if (!group ||
		    (cell->rel == PICL_WILDCARD && (group->event < 0) != (cell->event < 0)) ||
		    sampled_before_end(p, group))
			continue;
		k = lower_bound(p, pp->processor, pp->process, cell->rel, types[t], cell->event);
		if (k < p->nrecorded && same_record(&p->recorded[k], pp, cell->rel, types[t]) &&
		    p->recorded[k].event == cell->event)
			continue;
		listed = listed_users(p, pp, cell->rel, types[t]);
		expected = picltrace_stats_expected(cell->rel, cell->event, pp->nprofiled, listed);
		if (expected == 0)
			continue;  /* traceevents did not profile it */
		if (expected < 0) {
			c->notes++;
			fputs("note: ", c->out);
		} else {
			c->differ++;
			c->compared++;
		}
		compare_where(c, group, &group->mark, pp->processor, pp->process, cell->rel);
		fprintf(c->out, "%s of ", stat_kind(types[t]));
		compare_event(c, cell->event);
		if (types[t] == PICL_REC_STAT_TIME)
			fprintf(c->out, ": not recorded, the events give %s",
				prof_ticks_format(cell->time, p->max_scale, a));
		else
			fprintf(c->out, ": not recorded, the events give %lld",
				(long long)(types[t] == PICL_REC_STAT_COUNT ? cell->count
					    : cell->volume));
		if (expected < 0)
			fprintf(c->out, "; not a difference: the trace does not tell whether "
				"traceevents profiled it (no -902 record gives the number of "
				"user event types profiled; the records list them up to %lld)",
				(long long)listed - 1);
		fputc('\n', c->out);
	}
}

/* One unit of a timestamp's last decimal at `scale` decimals, in ticks. */
static prof_ticks tick_unit(int32_t scale)
{
	return scale >= 0 && scale < PROF_TICK_SCALE ? pow10_tab[PROF_TICK_SCALE - scale] : 1;
}

static int run_compare(FILE *out, struct profile *p)
{
	struct compare c;
	char res[2 * PROF_TICKS_BUFSIZE + 32];
	size_t k, n;

	memset(&c, 0, sizeof(c));
	c.p = p;
	c.out = out;
	if (p->nrecorded == 0) {
		fputs("the trace has no statistics records: nothing to compare\n", out);
		return 0;
	}
	/* The latest pair of each (process, R, type, E) stands. */
	if (p->nrecorded > 1)
		qsort(p->recorded, p->nrecorded, sizeof(*p->recorded), cmp_recorded);
	for (k = 0, n = 0; k < p->nrecorded; k++) {
		if (n > 0) {
			struct prof_recorded *prev = &p->recorded[n - 1];
			const struct prof_recorded *r = &p->recorded[k];

			if (prev->processor == r->processor && prev->process == r->process &&
			    prev->rel == r->rel && prev->type == r->type && prev->event == r->event) {
				*prev = *r;
				continue;
			}
		}
		p->recorded[n++] = p->recorded[k];
	}
	p->nrecorded = n;
	for (k = 0; k < p->nrecorded; k++)
		compare_one(&c, &p->recorded[k]);
	for (k = 0; k < p->nprocs; k++) {
		size_t j;

		for (j = 0; j < p->procs[k]->ncells; j++)
			compare_missing(&c, p->procs[k], &p->procs[k]->cells[j]);
	}
	{
		/* each process's own: from the coarsest to the finest */
		int32_t least = p->max_scale;
		char fine[PROF_TICKS_BUFSIZE], coarsest[PROF_TICKS_BUFSIZE];

		for (k = 0; k < p->nprocs; k++)
			if (p->procs[k]->max_scale < least)
				least = p->procs[k]->max_scale;
		prof_ticks_format(tick_unit(p->max_scale), p->max_scale, fine);
		if (least < p->max_scale) {
			prof_ticks_format(tick_unit(least), least, coarsest);
			snprintf(res, sizeof(res), "%s to %s s, by process", coarsest, fine);
		} else {
			snprintf(res, sizeof(res), "%s s", fine);
		}
	}
	if (c.differ)
		fprintf(out, "the statistics records differ from the events: %llu of %llu value%s\n",
			(unsigned long long)c.differ, (unsigned long long)c.compared,
			c.compared == 1 ? "" : "s");
	else
		fprintf(out, "the statistics records agree with the events: %llu value%s compared\n",
			(unsigned long long)c.compared, c.compared == 1 ? "" : "s");
	if (c.within)
		fprintf(out, "%llu time%s differ%s by no more than the timestamps' resolution "
			"(%s) per interval summed\n", (unsigned long long)c.within,
			c.within == 1 ? "" : "s", c.within == 1 ? "s" : "", res);
	if (c.unmeasured)
		fprintf(out, "%llu value%s recorded as -1 (not measured) %s not compared\n",
			(unsigned long long)c.unmeasured, c.unmeasured == 1 ? "" : "s",
			c.unmeasured == 1 ? "was" : "were");
	return c.differ ? 1 : 0;
}

/* ------------------------------------------------------------------------ */
/* --emit-records                                                            */
/* ------------------------------------------------------------------------ */

static int emit_one(void *ctx, const struct picl_record *rec)
{
	return picl_writer_write(ctx, rec) < 0 ? -1 : 0;
}

static int run_emit(struct profile *p, const struct stat_opts *o)
{
	struct picl_error err = { 0 };
	struct picl_writer *w;

	w = picltrace_open_output("stat", o->output, o->compress, 0);
	if (!w)
		return 2;
	if (picl_stats_emit(p->stats, emit_one, w) != 0) {
		const struct picl_error *we = picl_writer_error(w);

		if (we->code)
			picltrace_report("stat", we);
		else
			picltrace_error("stat", "out of memory");
		picl_writer_abort(w);
		return 2;
	}
	if (picl_writer_close(w, &err) < 0) {
		picltrace_report("stat", &err);
		return 2;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The command                                                               */
/* ------------------------------------------------------------------------ */

int cmd_stat(int argc, const char **argv)
{
	enum { OPT_COMPARE = 256, OPT_EMIT, OPT_MEMORY, OPT_SCHEMA };
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "messages", no_argument, NULL, 'm' },
		{ "summary", no_argument, NULL, 's' },
		{ "compare", no_argument, NULL, OPT_COMPARE },
		{ "emit-records", no_argument, NULL, OPT_EMIT },
		{ "output", required_argument, NULL, 'o' },
		{ "zstd", no_argument, NULL, 'z' },
		{ "memory", required_argument, NULL, OPT_MEMORY },
		{ "schema", required_argument, NULL, OPT_SCHEMA },
		{ "tmpdir", required_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct stat_opts o;
	struct prof_options po;
	struct prof_output out;
	struct profile *p = NULL;
	struct prof_cell *sums = NULL;
	const char *stdin_only[] = { "-" };
	const char **inputs;
	const char *schemas[PROF_SCHEMAS_MAX];
	size_t nschemas = 0;
	int ninputs, c, status = 0, format_given = 0;

	memset(&o, 0, sizeof(o));
	o.output = "-";
	optind = 1;
	while ((c = getopt_long(argc, (char *const *)argv, "f:mso:zT:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			format_given = 1;
			if (!strcmp(optarg, "table") || !strcmp(optarg, "text"))
				o.format = FMT_TABLE;
			else if (!strcmp(optarg, "csv"))
				o.format = FMT_CSV;
			else if (!strcmp(optarg, "json"))
				o.format = FMT_JSON;
			else {
				picltrace_error("stat", "--format takes table, csv or json, not '%s'",
						optarg);
				return 2;
			}
			break;
		case 'm':
			o.messages = 1;
			break;
		case 's':
			o.summary = 1;
			break;
		case OPT_COMPARE:
			o.compare = 1;
			break;
		case OPT_EMIT:
			o.emit = 1;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'z':
			o.compress = 1;
			break;
		case OPT_MEMORY:
			if (picltrace_parse_memory("stat", optarg, &o.memory) < 0)
				return 2;
			break;
		case OPT_SCHEMA:
			if (nschemas == PROF_SCHEMAS_MAX) {
				picltrace_error("stat", "--schema: at most %d files", PROF_SCHEMAS_MAX);
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
			fputs(stat_usage, stdout);
			return 0;
		default:
			return picltrace_bad_usage(stat_usage);
		}
	}
	if (o.compare + o.emit > 1 || ((o.compare || o.emit) &&
				       (format_given || o.messages || o.summary))) {
		picltrace_error("stat", "--compare and --emit-records are modes of their own: "
				"they take no --format, --messages or --summary");
		return 2;
	}
	if (o.emit)
		o.compress = picltrace_wants_zstd(o.output, o.compress, 0);
	if (o.compress && !o.emit) {
		picltrace_error("stat", "--zstd goes with --emit-records");
		return 2;
	}
	inputs = optind < argc ? argv + optind : stdin_only;
	ninputs = optind < argc ? argc - optind : 1;
	if (picltrace_distinct_inputs("stat", inputs, ninputs) < 0)
		return 2;
	if (picltrace_same_file(o.output, inputs, ninputs)) {
		picltrace_error("stat", "%s: the output is also an input; refusing to overwrite it",
				picl_output_name(o.output));
		return 2;
	}

	memset(&po, 0, sizeof(po));
	po.keep_stat_records = o.compare;
	po.message_pairs = o.messages;
	po.quiet = o.quiet;
	po.cmd = "stat";
	po.memory = o.memory;
	po.tmpdir = o.tmpdir;
	po.schemas = schemas;
	po.nschemas = nschemas;
	p = profile_of_inputs(&po, inputs, ninputs, !o.emit);
	if (!p)
		return 2;
	prof_warn_loose_ends(p);
	if (o.emit) {
		status = run_emit(p, &o);
		goto done;
	}
	sums = malloc(prof_nsubsets(p) * sizeof(*sums));
	if (!sums) {
		picltrace_error("stat", "out of memory");
		status = 2;
		goto done;
	}
	if (prof_output_open(&out, "stat", o.output, 0) < 0) {
		status = 2;
		goto done;
	}
	if (o.compare)
		status = run_compare(out.f, p);
	else if (o.format == FMT_CSV)
		print_csv(out.f, p, &o, sums);
	else if (o.format == FMT_JSON)
		print_json(out.f, p, &o, (char *const *)inputs, ninputs, sums);
	else
		print_table(out.f, p, &o, (char *const *)inputs, ninputs, sums);
	if (print_nomem) {
		picltrace_error("stat", "out of memory");
		prof_output_abort(&out);
		status = 2;
	} else if (prof_output_commit(&out, "stat") < 0) {
		status = 2;
	}
done:
	free(sums);
	profile_free(p);
	return status;
}

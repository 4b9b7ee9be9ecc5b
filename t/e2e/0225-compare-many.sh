#!/bin/sh
# stat --compare on many event types and processes, each with its own
# statistics records, and records of event subsets (nested, predefined,
# over a processor subset and over all processes): every record was
# summed over every process and every cell, and every cell looked for
# its pair by a scan of its record's pairs, (records) x (cells) (a minute
# at this size); now a record's processes and cells are looked up. The
# verdicts are the generator's own, line numbers included.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# n user event types 1..n on processor 0, m more (n+1..n+m) on processors
# 1..m, one each; every type entered at second t and left at t.5 (0.5 s,
# count 1). A -101 and a -102 per type on its process, relative to -1.
# Subsets: processors -2 = {1, 2, 3}; events -2001 = 1..10, -2002 = the
# even types of processor 0, -2003 = {-2001, -2002, 3} (their union: 10
# types and the n/2 - 5 evens above 10), -2004 = n+1..n+m; -1001 is all
# user events. With faults=1 four values are wrong: -2001's time (7.5 s
# against 5.0: more than the 10 intervals' resolution of 0.1 s each), 7's
# count, the time of n+3 on processor 3, and 9's count, left out (then
# reported at the start of the record that should hold it, the one of 1). The file
# `report` gets what --compare should say, the line numbers counted as the
# lines are written.
gen() {
	awk -v n="$1" -v m="$2" -v f="$3" -v faults="$4" '
	function out(s) { print s; line += 1 + gsub(/\n/, "\n", s) }
	function rec(type, proc, process, t, ev, v,   s) {
		s = sprintf("-%d -1 %d %d %d 1 \"%%d%s\" %d ", type, t, proc, process,
			    type == 101 ? "%lf" : "%d", ev)
		vcol = length(s) + 1   # where the value starts
		out(s v)
	}
	function half(c) { return sprintf("%.1f", c / 2) }
	BEGIN {
		out("-201 -1 0 -1 -1 4 \"%d\" -2 1 2 3")
		out("-203 -1 0 -1 -1 11 \"%d\" -2001 1 2 3 4 5 6 7 8 9 10")
		printf "-203 -1 0 -1 -1 %d \"%%d\" -2002", 1 + int(n / 2)
		for (e = 2; e <= n; e += 2) printf " %d", e
		out("")
		out("-203 -1 0 -1 -1 4 \"%d\" -2003 -2001 -2002 3")
		printf "-203 -1 0 -1 -1 %d \"%%d\" -2004", 1 + m
		for (e = n + 1; e <= n + m; e++) printf " %d", e
		out("")
		for (e = 1; e <= n; e++)
			out(sprintf("-3 %d %d 0 0 0\n-4 %d %d.5 0 0 0", e, e, e, e))
		for (k = 1; k <= m; k++)
			out(sprintf("-3 %d %d %d 0 0\n-4 %d %d.5 %d 0 0", n + k, k, k, n + k, k, k))

		h = int(n / 2); u = h + 5
		rec(101, -1, -1, n + 1, -1001, half(n + m)); rec(102, -1, -1, n + 1, -1001, n + m)
		rec(101, -1, -1, n + 1, -2004, half(m)); rec(102, -1, -1, n + 1, -2004, m)
		rec(101, 0, 0, n + 1, -2001, faults ? "7.5" : "5.0"); l2001 = line; c2001 = vcol
		rec(102, 0, 0, n + 1, -2001, 10)
		rec(101, 0, 0, n + 1, -2002, half(h)); rec(102, 0, 0, n + 1, -2002, h)
		rec(101, 0, 0, n + 1, -2003, half(u)); rec(102, 0, 0, n + 1, -2003, u)
		rec(102, 0, -1, n + 1, -2002, h); rec(102, -2, -1, n + 1, -2004, 3)
		for (e = 1; e <= n; e++) {
			rec(101, 0, 0, n + 1, e, "0.5")
			if (e == 9 && faults)
				continue
			rec(102, 0, 0, n + 1, e, e == 7 && faults ? 2 : 1)
			if (e == 1)
				l1 = line
			if (e == 7)
				{ l7 = line; c7 = vcol }
		}
		for (k = 1; k <= m; k++) {
			rec(101, k, 0, k + 1, n + k, k == 3 && faults ? "0.7" : "0.5")
			if (k == 3)
				{ l3 = line; c3 = vcol }
			rec(102, k, 0, k + 1, n + k, 1)
		}

		# 2n + 2m + 12 pairs: the types 2 (n + m), the subsets 12.
		if (!faults) {
			printf "the statistics records agree with the events: %d values compared\n",
			       2 * n + 2 * m + 12 > "report"
			exit
		}
		w = "processor %d, process 0, relative to -1: "
		printf "%s:%d:%d: " w "time of -2001 event subset: recorded 7.5, the events give 5.0\n",
		       f, l2001, c2001, 0 > "report"
		printf "%s:%d:%d: " w "count of 7 user event: recorded 2, the events give 1\n",
		       f, l7, c7, 0 > "report"
		printf "%s:%d:%d: " w "time of %d user event: recorded 0.7, the events give 0.5\n",
		       f, l3, c3, 3, n + 3 > "report"
		printf "%s:%d:1: " w "count of 9 user event: not recorded, the events give 1\n",
		       f, l1, 0 > "report"
		printf "the statistics records differ from the events: 4 of %d values\n",
		       2 * n + 2 * m + 12 > "report"
	}' >"$3"
}

# A small one first, the report checked by eye once.
gen 20 3 small.picl 1
run "$PT" stat --compare small.picl
expect_rc 1
expect_out <<'EOF'
small.picl:56:32: processor 0, process 0, relative to -1: time of -2001 event subset: recorded 7.5, the events give 5.0
small.picl:77:27: processor 0, process 0, relative to -1: count of 7 user event: recorded 2, the events give 1
small.picl:107:28: processor 3, process 0, relative to -1: time of 23 user event: recorded 0.7, the events give 0.5
small.picl:65:1: processor 0, process 0, relative to -1: count of 9 user event: not recorded, the events give 1
the statistics records differ from the events: 4 of 58 values
EOF
cmp report "$TMP/out" || fail "the generator's report of the small trace"

# Consistent: all agree; the faults: found, at their lines.
N=40000
gen $N $N clean.picl 0
run_within 30 "$PT" stat --compare clean.picl
expect_rc 0
expect_out <report
gen $N $N faults.picl 1
run_within 30 "$PT" stat --compare faults.picl
expect_rc 1
expect_out <report

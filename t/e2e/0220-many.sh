#!/bin/sh
# Many processors, processes, labels and subsets, met in scrambled order:
# validate, stat, sync and plot give what sort and awk work out from the
# generator's own numbers. The tables behind these (the matcher's and the
# profile's processor sets, a broadcast's destinations, labels, subsets,
# the Gantt chart's intervals by process) were sorted arrays or scans,
# quadratic in these counts; the sizes here are small enough for CI and a
# sanitizer build, and large enough to pass the direct tables (processor
# ids up to 100002, beyond PROC_BITS and PROC_TABLE_N).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# N distinct processor ids in scrambled order: i * 7919 mod 100003 (a
# prime), i = 1..N. The first sends type 7 to each of the others (a
# scatter, last to first), then broadcasts type 9, which every second
# one (in the same order) receives.
N=5000
awk -v n=$N 'BEGIN {
	for (i = 1; i <= n; i++) p[i] = (i * 7919) % 100003
	t = 0; s = p[1]
	for (i = 1; i <= n; i++) printf "-3 -901 %d %d 0 0\n", ++t, p[i]
	for (i = n; i > 1; i--) {
		printf "-3 -21 %d %d 0 3 2 8 7 %d\n-4 -21 %d %d 0 0\n", ++t, s, p[i], ++t, s
		printf "-3 -52 %d %d 0 0\n-4 -52 %d %d 0 3 2 8 7 %d\n", ++t, p[i], ++t, p[i], s
	}
	printf "-3 -21 %d %d 0 3 2 16 9 -1\n-4 -21 %d %d 0 0\n", ++t, s, ++t, s
	for (i = 2; i <= n; i += 2)
		printf "-3 -52 %d %d 0 0\n-4 -52 %d %d 0 3 2 16 9 %d\n", ++t, p[i], ++t, p[i], s
	for (i = 1; i <= n; i++) printf "-4 -901 %d %d 0 0\n", ++t, p[i]
	for (i = 1; i <= n; i++) print p[i] > "ids"
	for (i = 3; i <= n; i += 2) print p[i] > "missed"
}' >msgs.picl
sort -n ids >ids.sorted
sort -n missed >missed.sorted
missed=$(wc -l <missed.sorted)

# validate: the one error is the broadcast, its missing receivers listed
# in increasing order (the list is cut after a few hundred bytes).
run "$PT" validate msgs.picl
expect_rc 1
[ "$(wc -l <"$TMP/out")" -eq 2 ] || fail "$last: one error expected"
sed -n '1s/.*is never received on processors //p' "$TMP/out" | sed 's/ (.*//' |
	tr -d ' .' | tr ',' '\n' | sed '/^$/d' >listed
[ "$(wc -l <listed)" -gt 20 ] || fail "$last: too few processors listed"
head -n "$(wc -l <listed)" missed.sorted | diff -u - listed >&2 ||
	fail "$last: the missing receivers, in order"
grep -q ", \.\.\. ($missed in all)\$" "$TMP/out" || fail "$last: how many missed it"
grep -q ": $((7 * N - 2)) records, 1 error," "$TMP/out" ||
	fail "$last: the summary line"

# stat: every processor once, in increasing order; messages counted.
run "$PT" stat -q msgs.picl
expect_rc 0
grep -q "^$N processes on $N processors;" "$TMP/out" || fail "$last: the counts"
sed -n 's/^== processor \([0-9]*\), process 0:.*/\1/p' "$TMP/out" | diff -u ids.sorted - >&2 ||
	fail "$last: the processors, in order"
matched=$((N - 1 + N / 2))
grep -q "^== messages: $matched matched, .*unmatched: $missed sends, 0 receives" "$TMP/out" ||
	fail "$last: the messages"

# sync: one row per processor, in increasing order.
run "$PT" sync -q -n --report msgs.picl
expect_rc 0
awk '$1 ~ /^[0-9]+$/ && NF >= 5 { print $1 }' "$TMP/out" | diff -u ids.sorted - >&2 ||
	fail "$last: the processors, in order"

# Every one of M processors broadcasts once and nobody receives: M
# findings of M - 1 missing receivers each, counted, not looked up one by
# one (which was quadratic: seconds here, hours at a million).
M=4000
awk -v n=$M 'BEGIN { for (i = 0; i < n; i++)
	printf "-3 -21 0.1 %d 0 3 2 8 0 -1\n-4 -21 0.2 %d 0 0\n", i, i }' >lost.picl
run "$PT" validate --max-errors=0 lost.picl
expect_rc 1
[ "$(grep -c "message-match: broadcast of 8 bytes with type 0 is never received on processors [0-9, ]*, \.\.\. ($((M - 1)) in all)\$" "$TMP/out")" -eq $M ] ||
	fail "$last: a finding per broadcast, with the count"
grep -q "^lost.picl:1:1: message-match: broadcast of 8 bytes with type 0 is never received on processors 1, 2, 3, .* ($((M - 1)) in all)\$" "$TMP/out" ||
	fail "$last: processor 0's broadcast"
run "$PT" stat -q lost.picl
expect_rc 0
grep -q "unmatched: $((M * (M - 1))) sends, 0 receives" "$TMP/out" ||
	fail "$last: the missing receivers counted"

# plot -k gantt: every process's row in processor order, with its own
# intervals: busy 1 s, idle 1 s (recv0), busy 1 s, overhead 1 s (send0),
# busy 1 s, from its start t = 10 i.
awk -v n=3000 'BEGIN {
	for (i = 1; i <= n; i++) {
		t = 10 * i; p = (i * 7919) % 100003
		printf "-3 -901 %d %d 0 0\n-3 -52 %d %d 0 0\n-4 -52 %d %d 0 0\n", t, p, t + 1, p, t + 2, p
		printf "-3 -21 %d %d 0 0\n-4 -21 %d %d 0 0\n-4 -901 %d %d 0 0\n", t + 3, p, t + 4, p, t + 5, p
		print p, t > "starts"
	}
}' >gantt.picl
sort -n starts | awk '{
	r = NR - 1; t = $2
	printf "busy %d %d %d %.6g %.6g\n", t, t + 1, r, r - 0.4, r + 0.4
	printf "idle %d %d %d %.6g %.6g\n", t + 1, t + 2, r, r - 0.4, r + 0.4
	printf "busy %d %d %d %.6g %.6g\n", t + 2, t + 3, r, r - 0.4, r + 0.4
	printf "overhead %d %d %d %.6g %.6g\n", t + 3, t + 4, r, r - 0.4, r + 0.4
	printf "busy %d %d %d %.6g %.6g\n", t + 4, t + 5, r, r - 0.4, r + 0.4
}' >segments.want
run "$PT" plot -q -k gantt -f script gantt.picl
expect_rc 0
for c in busy overhead idle; do
	grep "^$c " segments.want | cut -d' ' -f2- >want.$c
	sed -n "/^\\\$$c << EOD\$/,/^EOD\$/p" "$TMP/out" | sed '1d;$d' | diff -u want.$c - >&2 ||
		fail "$last: the $c segments"
done
# The rows are processes, not processor numbers: past 32 rows every 94th
# (3000 / 32, rounded up) is labelled with its processor.
sort -n starts | awk 'NR % 94 == 1 { printf "%s\"%d\" %d", (NR > 1 ? ", " : ""), $1, NR - 1 }
	END { print "" }' >tics.want
grep '^set ytics (' "$TMP/out" | sed 's/^set ytics (//; s/)$//' | diff -u tics.want - >&2 ||
	fail "$last: the process axis labels"

# stat on many labelled user event types and defined subsets: each type
# under its label, in increasing order; the subsets in order of
# definition, under their label where they have one.
awk -v n=3000 'BEGIN {
	print "-3 -901 0 0 0 0"
	for (i = 1; i <= n; i++) {
		e = (i * 7919) % 100003; s = "lab" e
		printf "-5 %d %d -1 -1 %d 0 %s\n", e, i, length(s), s
		if (i % 2) {
			printf "-203 -1 %d -1 -1 2 \"%%d\" %d %d\n", i, -2000 - i, e
			if (i % 3 == 1) {
				s = "sub" i
				printf "-5 %d %d -1 -1 %d 0 %s\n", -2000 - i, i, length(s), s
			}
		}
		printf "-3 %d %d 0 0 0\n-4 %d %d.5 0 0 0\n", e, i, e, i
		print e > "events"
		if (i % 2)
			printf "%d %s\n", -2000 - i, i % 3 == 1 ? "sub" i : "event subset" > "subsets"
	}
	printf "-4 -901 %d 0 0 0\n", n + 1
}' >labels.picl
run "$PT" stat -q labels.picl
expect_rc 0
sort -n events | awk '{ print $1, "lab" $1, "0.5", 1 }' >want.events
awk '/^  [0-9]/ { print $1, $2, $3, $4 }' "$TMP/out" | diff -u want.events - >&2 ||
	fail "$last: the labelled event types"
awk '{ print $0, "0.5", 1 }' subsets >want.subsets
awk '$1 ~ /^-[2-9][0-9][0-9][0-9]$/ { n = $(NF - 2); c = $(NF - 1)
	$NF = $(NF - 1) = $(NF - 2) = ""; sub(/ +$/, ""); print $0, n, c }' "$TMP/out" |
	diff -u want.subsets - >&2 || fail "$last: the defined subsets"

# plot -k events --user-events on the same: a column per type, in
# increasing order, under its label; each 0.5 s.
run "$PT" plot -q -k events --user-events -f script labels.picl
expect_rc 0
sed -n '/^\$events << EOD$/,/^EOD$/p' "$TMP/out" | sed '1d;$d' >events.block
sort -n events | awk 'BEGIN { printf "\"processor\"" } { printf " \"%d lab%d\"", $1, $1 }
	END { printf "\n\"0\""; for (i = 0; i < NR; i++) printf " 0.5"; printf "\n" }' |
	diff -u - events.block >&2 || fail "$last: the columns and the row"

# Event subsets of event subsets, worked out by hand: a member that is a
# subset brings in its members, through cycles (-2001 and -2002 hold each
# other), repeats (counted once), predefined subsets (-1014: -31, -52,
# -56, -61) and a redefined one (-1012, now {6} and no longer -21..-50),
# down to 8 levels: -2018 is 8 below -2010, so -2010 holds its 18 but not
# -2019's 19, which -2011 holds. A type that is itself a subset (-500,
# -2001) is counted in none (-2040 = the system events: -31 and -901).
cat >nested.picl <<'EOF'
-203 -1 0 -1 -1 3 2 -2001 1 -2002
-203 -1 0 -1 -1 4 2 -2002 2 -2003 -2001
-203 -1 0 -1 -1 4 2 -2003 3 3 -1014
-203 -1 0 -1 -1 4 2 -2004 -2001 9 -2002
-203 -1 0 -1 -1 3 2 -2010 10 -2011
-203 -1 0 -1 -1 3 2 -2011 11 -2012
-203 -1 0 -1 -1 3 2 -2012 12 -2013
-203 -1 0 -1 -1 3 2 -2013 13 -2014
-203 -1 0 -1 -1 3 2 -2014 14 -2015
-203 -1 0 -1 -1 3 2 -2015 15 -2016
-203 -1 0 -1 -1 3 2 -2016 16 -2017
-203 -1 0 -1 -1 3 2 -2017 17 -2018
-203 -1 0 -1 -1 3 2 -2018 18 -2019
-203 -1 0 -1 -1 2 2 -2019 19
-203 -1 0 -1 -1 2 2 -1012 6
-203 -1 0 -1 -1 3 2 -2030 -1012 7
-203 -1 0 -1 -1 2 2 -500 8
-203 -1 0 -1 -1 2 2 -2040 -1002
-3 -901 0 0 0 0
-2 1 0.1 0 0 0
-2 1 0.2 0 0 0
-2 2 0.3 0 0 0
-2 3 0.4 0 0 0
-2 6 0.5 0 0 0
-2 7 0.6 0 0 0
-2 8 0.7 0 0 0
-2 9 0.8 0 0 0
-2 10 0.9 0 0 0
-2 18 1.0 0 0 0
-2 19 1.1 0 0 0
-2 -31 1.2 0 0 0
-2 -500 1.3 0 0 0
-2 -2001 1.4 0 0 0
-4 -901 2 0 0 0
EOF
run "$PT" stat -q -s --format=csv nested.picl
expect_rc 0
grep ',subset,' "$TMP/out" | cut -d, -f5,7,8 >subsets
diff -u - subsets >&2 <<'EOF' || fail "$last: the nested subsets"
-1001,,11
-1002,2.0,2
-1011,,1
-1012,,1
-1014,,1
-1901,2.0,1
-2001,,5
-2002,,5
-2003,,2
-2004,,6
-2010,,2
-2011,,2
-2012,,2
-2013,,2
-2014,,2
-2015,,2
-2016,,2
-2017,,2
-2018,,2
-2019,,1
-2030,,2
-500,,1
-2040,2.0,2
EOF

# stat on many event subsets of many members and many event types in none
# of them (two, 0 and 999, in all): every type was matched against every
# subset's members, 1000 x 150000 x 1000 comparisons (a minute or more);
# now each subset's types are looked up in the sorted cells, or the cells
# in them, whichever are fewer.
awk -v n=1000 -v m=1000 -v ev=150000 'BEGIN {
	for (i = 0; i < m; i++) mem = mem " " i
	for (s = 0; s < n; s++)
		printf "-203 -1 0 -1 -1 %d 2 %d%s\n", m + 1, -2000 - s, mem
	print "-3 -901 0 0 0 0"
	printf "-2 0 1 0 0 0\n-2 %d 1 0 0 0\n", m - 1
	for (e = 0; e < ev; e++) printf "-2 %d 1 0 0 0\n", m + e
	print "-4 -901 2 0 0 0"
	for (s = 0; s < n; s++) print -2000 - s, 2 > "evsub.want"
}' >evsub.picl
run_within 30 "$PT" stat -q -s --format=csv evsub.picl
expect_rc 0
awk -F, '$4 == "subset" && $5 <= -2000 { print $5, $8 }' "$TMP/out" |
	diff -u evsub.want - >&2 || fail "$last: the subsets' counts"

# Two files read as one trace: the subsets are the first file's, carried
# into the second's reader, with the second's redefinition of -2003 (now
# holding -2001 too) in force for both processes, as for one file.
printf -- '-203 -1 0 -1 -1 3 2 -2001 1 -2002\n-203 -1 0 -1 -1 2 2 -2002 2\n' >m1.picl
printf -- '-203 -1 0 -1 -1 2 2 -2003 3\n-3 -901 0 0 0 0\n-2 1 0.1 0 0 0\n' >>m1.picl
printf -- '-4 -901 1 0 0 0\n' >>m1.picl
printf -- '-203 -1 0 -1 -1 3 2 -2003 3 -2001\n-3 -901 0 1 0 0\n-2 1 0.1 1 0 0\n' >m2.picl
printf -- '-2 2 0.2 1 0 0\n-2 3 0.3 1 0 0\n-4 -901 1 1 0 0\n' >>m2.picl
run "$PT" stat -q --format=csv m1.picl m2.picl
expect_rc 0
awk -F, '$4 == "subset" && $5 <= -2000 { print $1, $5, $8 }' "$TMP/out" >two
diff -u - two >&2 <<'EOF' || fail "$last: the subsets of two files"
0 -2001 1
0 -2003 1
1 -2001 2
1 -2002 1
1 -2003 3
all -2001 3
all -2002 1
all -2003 4
EOF

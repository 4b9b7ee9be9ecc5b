#!/bin/sh
# 0982-runtime-spec-tables.sh - every event record libpicl writes has the
# shape of its row in the format report's Tables 6-13 (ORNL/TM-12125):
# the record type (entry/exit or mark), the number of data fields PICL
# writes (the counts in parentheses) and the data descriptor ("%d" is
# alias 2, "%c" alias 0, Table 2), for the programs that use every traced
# call (examples/allcalls, the Table 19 program, a host run and a program
# whose receives wait). The calls the report says PICL only counts (-13,
# -14, -29, -53, -54, -55, -59, and traceinfo's -905, Table 13's "-" row:
# 2.3.2, event types without records still have statistics) have no
# record, and traceinfo is counted (it was not); each process's first event
# record is the -901 entry and its last the -901 exit (2.5); a send's
# request id is its type (2.3.3). The table below is transcribed from the
# report itself, not from schemas/picl.yaml.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
piclrun_setup

# rtype event count descriptor ("v": variable count, character data)
cat >rows <<'EOS'
-3 -901 0 -
-4 -901 0 -
-3 -11 0 -
-4 -11 0 -
-2 -12 0 -
-3 -21 3 2
-4 -21 0 -
-3 -27 3 2
-4 -27 1 2
-3 -28 1 2
-4 -28 0 -
-3 -30 1 2
-4 -30 0 -
-3 -31 1 2
-4 -31 0 -
-3 -51 1 2
-4 -51 3 2
-3 -52 1 2
-4 -52 3 2
-3 -56 1 2
-4 -56 3 2
-3 -57 1 2
-4 -57 1 2
-3 -58 1 2
-4 -58 3 2
-3 -60 1 2
-4 -60 3 2
-3 -61 1 2
-4 -61 3 2
-3 -401 0 -
-4 -401 0 -
-3 -402 0 -
-4 -402 0 -
-3 -501 1 2
-4 -501 1 2
-3 -502 0 -
-4 -502 0 -
-3 -503 v 0
-4 -503 2 2
-3 -902 1 2
-4 -902 0 -
-3 -903 0 -
-4 -903 0 -
-2 -904 3 2
-3 -911 1 2
-4 -911 0 -
-7 -911 v 0
-3 -912 0 -
-4 -912 1 2
-2 -913 0 -
-2 -914 0 -
EOS

cat >wait.c <<'EOS'
#include <picl.h>
#include <unistd.h>
/* node 1 sends late, so that node 0's wait0 and recvend0 wait (-56, -61) */
int main(void)
{
	int np, me, host, v = 1, w;

	tracenode(1 << 20, 1, 1);
	open0(&np, &me, &host);
	if (me == 1) {
		usleep(50000);
		send0((char *)&v, sizeof v, 3, 0);
		usleep(50000);
		send0((char *)&v, sizeof v, 4, 0);
	} else if (me == 0) {
		wait0(3);
		recv0((char *)&w, sizeof w, 3);
		recvbegin0((char *)&w, sizeof w, 4);
		recvend0(4);
	}
	close0(0);
	return 0;
}
EOS
picl_cc wait wait.c

run timeout 60 "$RUN" -n 3 -o all.picl "$EX/allcalls"
expect_rc 0
run timeout 60 "$RUN" -n 8 -o t19.picl "$EX/table19"
expect_rc 0
run timeout 60 "$RUN" -n 2 --host "$EX/host" -o host.picl "$EX/node"
expect_rc 0
run timeout 60 "$RUN" -n 2 -o wait.picl ./wait
expect_rc 0

for f in all.picl t19.picl host.picl wait.picl; do
  validate_ok $f
  awk -v f=$f '
    FNR == NR { row[$1 " " $2] = $3 " " $4; next }
    # event records of PICL event types (user events are >= 0)
    ($1 >= -4 && $1 <= -2 || $1 == -7) && $2 < 0 {
      key = $1 " " $2
      if (!(key in row)) { printf "%s:%d: no such row in Tables 6-13: %s\n", f, FNR, $0; bad = 1; next }
      split(row[key], r, " ")
      n = $6; d = (n == 0) ? "-" : $7
      if ((r[1] != "v" && n != r[1]) || d != r[2]) {
        printf "%s:%d: \"%s\": %s fields, descriptor %s; the table: %s, %s\n", f, FNR, $0, n, d, r[1], r[2]
        bad = 1
      }
      if (r[1] == "v") {
        text = $0
        for (i = 0; i < 7; i++) sub(/^[^ ]+ /, "", text)
        if (n != length(text)) {
          printf "%s:%d: character data of %d characters, the count says %d\n", f, FNR, length(text), n
          bad = 1
        }
      }
      p = $4 " " $5
      if (!(p in first)) first[p] = key
      if ($1 != -7) last[p] = key
      seen[key] = 1
      if (key == "-3 -27") sreq[p] = $9
      if (key == "-4 -27" && $8 != sreq[p]) { printf "%s:%d: request id %s, the send had type %s\n", f, FNR, $8, sreq[p]; bad = 1 }
    }
    END {
      for (p in first) {
        if (first[p] != "-3 -901") { printf "%s: process %s: first event record %s\n", f, p, first[p]; bad = 1 }
        if (last[p] != "-4 -901") { printf "%s: process %s: last event record %s\n", f, p, last[p]; bad = 1 }
      }
      for (k in seen) print k > "seen." f
      exit bad
    }' rows $f >shape.out || fail "$(cat shape.out)"
  # counted only, never recorded (Tables 7-8, 2.3.3)
  grep -E -- '^-[234] -(13|14|29|53|54|55|59|905) ' $f >counted || true
  [ ! -s counted ] || fail "$f: records of counted-only events: $(head -3 counted)"
done
# the deterministic rows all occur
cat seen.* | sort -u >seen
for k in '-3 -11' '-2 -12' '-3 -21' '-4 -27' '-3 -28' '-3 -30' '-3 -51' \
    '-4 -52' '-4 -57' '-4 -58' '-4 -60' '-3 -401' '-3 -402' '-3 -503' \
    '-4 -503' '-3 -902' '-3 -903' '-2 -904' '-3 -911' '-7 -911' '-4 -912'; do
  grep -qx -- "$k" seen || fail "no '$k' record in any of the traces"
done
# allcalls calls traceinfo once at trace level 1: each process counts it
n=$(grep -c -- '^-102 -1 .* -905 1\( \|$\)' all.picl || true)
[ "$n" -eq 3 ] || fail "all.picl: $n processes count traceinfo (-905) once, expected 3"

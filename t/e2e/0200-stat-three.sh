#!/bin/sh
# picltrace stat on a hand-made 3-processor trace (testdata/stat/three.picl;
# every expected value is worked out by hand in testdata/stat/README.md):
# busy/overhead/idle, messages and their latencies, the critical path,
# user events named by labels, predefined and trace-defined subsets; csv and
# json; standard input, zstd, several inputs; bad input and bad options.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"
cp "$PICL_SRCDIR/testdata/stat/three.picl" three.picl
want="$PICL_SRCDIR/testdata/stat/three.table"

run "$PT" stat --messages three.picl
expect_rc 0
expect_out <"$want"
expect_err </dev/null

# Standard input, zstd (through standard input too), two halves read as one
# trace: the same, but for the first line.
sed 1d "$want" >body.want
run sh -c "\"$PT\" stat -m - <three.picl"
expect_rc 0
[ "$(head -n 1 "$TMP/out")" = "trace: <stdin>" ] || fail "stdin not named as in the messages"
sed 1d "$TMP/out" | cmp - body.want || fail "standard input gives another profile"
zstd -q -c three.picl >three.picl.zst
run "$PT" stat -m three.picl.zst
expect_rc 0
sed 1d "$TMP/out" | cmp - body.want || fail "zstd input gives another profile"
run sh -c "\"$PT\" stat -m <three.picl.zst"
expect_rc 0
sed 1d "$TMP/out" | cmp - body.want || fail "zstd on standard input gives another profile"
head -n 25 three.picl >a.picl
sed 1,25d three.picl >b.picl
run "$PT" stat -m a.picl b.picl
expect_rc 0
[ "$(head -n 1 "$TMP/out")" = "trace: a.picl b.picl" ] || fail "inputs not named"
sed 1d "$TMP/out" | cmp - body.want || fail "two inputs are not read as one trace"

# --summary: the totals, messages and critical path only.
run "$PT" stat --summary three.picl
expect_rc 0
grep -c '^== ' "$TMP/out" | grep -qx 3 || fail "--summary shows more than the totals"
grep -q '^== all processes: traced 13.00 s, from 0.00 to 5.00$' "$TMP/out" || fail "--summary totals"

# -o FILE; never over an input.
run "$PT" stat -m -o three.out three.picl
expect_rc 0
cmp three.out "$want" || fail "-o FILE differs"
run "$PT" stat -o three.picl three.picl
expect_rc 2
expect_err <<'T'
picltrace stat: three.picl: the output is also an input; refusing to overwrite it
T
cmp three.picl "$PICL_SRCDIR/testdata/stat/three.picl" || fail "input touched"

# The table by either name (text, as validate and sync call theirs).
run "$PT" stat three.picl
expect_rc 0
cp "$TMP/out" three.table
grep -q '^== ' three.table || fail "no table sections"
run "$PT" stat --format=text three.picl
expect_rc 0
cmp -s "$TMP/out" three.table || fail "--format=text is not the table"
run "$PT" stat --format=txt three.picl
expect_rc 2

# CSV: valid, nine fields a row; hand values.
run "$PT" stat --format=csv three.picl
expect_rc 0
cp "$TMP/out" three.csv
for row in \
  '0,0,,utilization,,busy,2.25,,' '1,0,,utilization,,overhead,0.50,,' \
  '2,0,,utilization,,idle,0.25,,' 'all,all,,utilization,,busy,7.50,,' \
  'all,all,,utilization,,idle,3.75,,' '0,0,-1,event,7,solve,1.75,1,' \
  '0,0,7,event,-21,send0,0.75,2,300' 'all,all,-1,event,-52,recv0 blocked,3.50,2,150' \
  'all,all,-1,subset,-2001,sends+blocked,4.50,5,500' \
  'all,all,-1,subset,-1002,system events,18.50,11,700' \
  '2,0,-1,event,-601,idle,0.25,1,'; do
  grep -qxF -- "$row" three.csv || fail "csv lacks the row $row"
done
python3 - three.csv <<'PY' || fail "csv is not valid"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert len(rows) > 1 and all(len(r) == 9 for r in rows)
PY

# Records of processor -1 make a process of their own (-1,-1), apart from
# the totals (all,all).
printf -- '-3 -901 0.0 0 0 0\n-3 5 0.1 0 0 0\n-4 5 0.3 0 0 0\n-4 -901 1.0 0 0 0\n' >minus1.picl
printf -- '-3 5 0.6 -1 -1 0\n-4 5 0.9 -1 -1 0\n' >>minus1.picl
run "$PT" stat --format=csv minus1.picl
expect_rc 0
grep ',event,5,' "$TMP/out" >rows
diff -u - rows >&2 <<'EOF' || fail "$last: processor -1 and the totals"
-1,-1,-1,event,5,user event,0.3,1,
0,0,-1,event,5,user event,0.2,1,
all,all,-1,event,5,user event,0.5,2,
EOF

# Times are exact sums of decimals, also where doubles would lose the last
# digit: 14 decimals and 6000 s on each of two processors.
for q in 0 1; do
  printf -- '-3 -901 0.00000000000001 %s 0 0\n-3 5 0.00000000000001 %s 0 0\n' $q $q
  printf -- '-4 5 6000.00000000000001 %s 0 0\n-4 -901 6000.00000000000002 %s 0 0\n' $q $q
done >long.picl
run "$PT" stat --format=csv long.picl
expect_rc 0
grep ',-1,event,' "$TMP/out" | cut -d, -f1,5,7 >rows
diff -u - rows >&2 <<'EOF' || fail "$last: exact sums"
0,-901,6000.00000000000001
0,5,6000.00000000000000
1,-901,6000.00000000000001
1,5,6000.00000000000000
all,-901,12000.00000000000002
all,5,12000.00000000000000
EOF
run "$PT" stat --emit-records long.picl
expect_rc 0
grep -q '^-101 -1 6000.00000000000002 0 0 1 "%d%lf" -901 6000.00000000000001$' "$TMP/out" ||
  fail "$last: emitted $(cat "$TMP/out")"

# JSON: valid; hand values.
run "$PT" stat --format=json --messages three.picl
expect_rc 0
python3 -m json.tool "$TMP/out" >/dev/null || fail "json does not parse"
python3 - "$TMP/out" <<'PY' || fail "json values differ"
import json, sys
d = json.load(open(sys.argv[1]))
u = {p["processor"]: p["utilization"] for p in d["processes"]}
assert u == {0: {"busy": 2.25, "overhead": 0.75, "idle": 2.0},
             1: {"busy": 2.0, "overhead": 0.5, "idle": 1.5},
             2: {"busy": 3.25, "overhead": 0.5, "idle": 0.25}}, u
assert d["all"]["traced"] == 13.0
assert d["all"]["utilization"] == {"busy": 7.5, "overhead": 1.75, "idle": 3.75}
m = d["messages"]
assert (m["count"], m["bytes"], m["unmatched_sends"], m["unmatched_receives"]) == (3, 350, 0, 0)
assert m["latency"] == {"min": 0.5, "mean": 1.0, "max": 1.5}
assert [(q["from"], q["to"], q["bytes"]) for q in m["pairs"]] == [(0, 1, 100), (0, 2, 200), (2, 0, 50)]
assert d["critical_path"] == {"length": 4.75, "makespan": 5.0, "messages_left_out": 0}
assert {p["processor"]: p["critical_path"] for p in d["processes"]} == {0: 4.75, 1: 4.0, 2: 4.25}
rels = {s["relative"]: s for s in d["all"]["profile"]}
assert rels[7]["name"] == "solve"
assert [(e["event"], e["time"], e["count"], e["volume"]) for e in rels[7]["events"]] == [(-21, 0.75, 2, 300)]
sub = {e["event"]: e for e in rels[-1]["subsets"]}
assert sub[-2001] == {"event": -2001, "name": "sends+blocked", "time": 4.5, "count": 5, "volume": 500}
PY

# Read receive first (processor 2's records before the others'): the
# message 2->0 edge is left out of the critical path, and said so.
{ grep -v '^#' three.picl | awk '$4 == 2 && ($1 == -3 || $1 == -4)'
  grep -v '^#' three.picl | awk '!($4 == 2 && ($1 == -3 || $1 == -4))'; } >p2first.picl
run "$PT" stat p2first.picl
expect_rc 0
grep -q '^  1 message was read receive first, left out: sort the trace$' "$TMP/out" ||
  fail "a message read receive first is not reported"

# An exit without its entry: a warning with file:line:column, then ignored.
printf '%s\n' '-3 -901 0 0 0 0' '-4 -21 1 0 0 0' '-4 -901 2 0 0 0' >noentry.picl
run "$PT" stat noentry.picl
expect_rc 0
expect_err <<'T'
picltrace stat: noentry.picl:2:1: exit of event -21 at 1 has no matching entry (ignored)
T
run "$PT" stat -q noentry.picl
expect_rc 0
expect_err </dev/null

# Exits of no open entry on a deep stack: known so without a scan of the
# stack (that took 45 s for 200000 of them), each a warning, then the
# entries' own exits, innermost first: the entry at i is exited at 3n + 1
# - i, n = 300000; the outermost, from 1 to 3n, holds all the others (an
# event type nested in itself spends its time once): 3n - 1.
awk 'BEGIN { n = 300000; print "-3 -901 0 0 0 0"
  for (i = 1; i <= n; i++) printf "-3 5 %d 0 0 0\n", i
  for (i = 1; i <= n; i++) printf "-4 6 %d 0 0 0\n", n + i
  for (i = 1; i <= n; i++) printf "-4 5 %d 0 0 0\n", 2 * n + i
  printf "-4 -901 %d 0 0 0\n", 3 * n + 1 }' >unmatched.picl
run_within 30 "$PT" stat --format=csv unmatched.picl
expect_rc 0
[ "$(grep -c 'exit of event 6 at [0-9]* has no matching entry (ignored)$' "$TMP/err")" -eq 5 ] ||
  fail "unmatched exits: $(cat "$TMP/err")"
grep -qx 'picltrace stat: warning: 300000 exits without a matching entry were ignored' "$TMP/err" ||
  fail "unmatched exits not counted: $(cat "$TMP/err")"
grep -qx '0,0,-1,event,5,user event,899999,300000,' "$TMP/out" ||
  fail "event 5 under unmatched exits: $(cat "$TMP/out")"
rm -f unmatched.picl
# ... and the same with PICL's own events, which the profile's categories
# (busy, overhead, idle) also keep on a stack of their own: 300000 send
# entries (-21), then as many receive exits (-52) of none
awk 'BEGIN { n = 300000; print "-3 -901 0 0 0 0"
  for (i = 1; i <= n; i++) printf "-3 -21 %d 0 0 0\n", i
  for (i = 1; i <= n; i++) printf "-4 -52 %d 0 0 0\n", n + i
  printf "-4 -901 %d 0 0 0\n", 2 * n + 1 }' >unmatched.picl
run_within 30 "$PT" stat --format=csv unmatched.picl
expect_rc 0
grep -qx 'picltrace stat: warning: 300000 exits without a matching entry were ignored' "$TMP/err" ||
  fail "unmatched PICL exits not counted: $(cat "$TMP/err")"
rm -f unmatched.picl

# A malformed record stops stat: file:line:column, exit 2, no output file.
printf '%s\n' '-3 -901 0 0 0 0' '-3 -21 1 0 0 3 2 8 x 7' >bad.picl
run "$PT" stat -o never.txt bad.picl
expect_rc 2
expect_err <<'T'
picltrace stat: bad.picl:2:20: expected an integer, found "x"
T
[ ! -e never.txt ] || fail "partial output left behind"
ls -a | grep -q 'never\.txt\.tmp' && fail "temporary file left behind"
printf '%s\n' '-3 -901 0 0 0 0' '-3 -11 zz 0 0 0' >bad2.picl
run "$PT" stat --format=json bad2.picl
expect_rc 2
expect_err <<'T'
picltrace stat: bad2.picl:2:8: expected a timestamp (a decimal number), found "zz"
T
# The exits refused before a malformed record are said before it, in
# input order (parsing runs ahead on other threads): two early ones, 20000
# good records, a third, then the bad record; and over two inputs the
# first five in all, in input order.
awk 'BEGIN { print "-3 -901 0 0 0 0"; print "-4 6 1 0 0 0"; print "-4 7 2 0 0 0"
  for (i = 0; i < 10000; i++) printf "-3 5 %d 0 0 0\n-4 5 %d 0 0 0\n", 3 + i, 3 + i
  print "-4 8 10003 0 0 0"; print "-3 -11 zz 0 0 0" }' >late.picl
run "$PT" stat -o never.txt late.picl
expect_rc 2
expect_err <<'T'
picltrace stat: late.picl:2:1: exit of event 6 at 1 has no matching entry (ignored)
picltrace stat: late.picl:3:1: exit of event 7 at 2 has no matching entry (ignored)
picltrace stat: late.picl:20004:1: exit of event 8 at 10003 has no matching entry (ignored)
picltrace stat: late.picl:20005:8: expected a timestamp (a decimal number), found "zz"
T
[ ! -e never.txt ] || fail "partial output left behind"
head -n 20004 late.picl >late1.picl
{ echo '-3 -901 0 1 0 0'; echo '-4 9 1 1 0 0'; echo '-4 10 2 1 0 0'; echo '-4 11 3 1 0 0'
  echo '-4 -901 4 1 0 0'; } >late2.picl
run "$PT" stat -o out.txt late1.picl late2.picl
expect_rc 0
expect_err <<'T'
picltrace stat: late1.picl:2:1: exit of event 6 at 1 has no matching entry (ignored)
picltrace stat: late1.picl:3:1: exit of event 7 at 2 has no matching entry (ignored)
picltrace stat: late1.picl:20004:1: exit of event 8 at 10003 has no matching entry (ignored)
picltrace stat: late2.picl:2:1: exit of event 9 at 1 has no matching entry (ignored)
picltrace stat: late2.picl:3:1: exit of event 10 at 2 has no matching entry (ignored)
picltrace stat: warning: 6 exits without a matching entry were ignored
T
rm -f late.picl late1.picl late2.picl out.txt

run "$PT" stat missing.picl
expect_rc 2
expect_err <<'T'
picltrace stat: missing.picl: cannot open: No such file or directory
T

# Bad options: exit 2 with the usage; help on standard output.
run "$PT" stat --bogus three.picl
expect_rc 2
grep -q '^usage: picltrace stat' "$TMP/err" || fail "no usage on a bad option"
run "$PT" stat --format=xml three.picl
expect_rc 2
expect_err <<'T'
picltrace stat: --format takes table, csv or json, not 'xml'
T
run "$PT" stat --compare --format=csv three.picl
expect_rc 2
run "$PT" stat -z three.picl
expect_rc 2
run "$PT" stat --help
expect_rc 0
grep -q '^usage: picltrace stat' "$TMP/out" || fail "no usage from --help"
run "$PT" help stat
expect_rc 0
grep -q -- '--emit-records' "$TMP/out" || fail "help stat shows no options"
# An empty trace: nothing to sort, count or plot, and no undefined
# behaviour on the way (UBSan, in the sanitizer build, stopped on a qsort
# of nothing through a NULL pointer).
: >empty.picl
run "$PT" stat -q empty.picl
expect_rc 0
grep -q '^0 processes on 0 processors; 0 records' "$TMP/out" || fail "empty: $(cat "$TMP/out" "$TMP/err")"
run "$PT" stat -q --format=json empty.picl
expect_rc 0
run "$PT" plot -q --format=script empty.picl
[ "$rc" -le 2 ] || fail "plot of an empty trace: exit $rc"
grep -q 'runtime error' "$TMP/err" && fail "plot of an empty trace: $(cat "$TMP/err")"
# After close0 (-12) a process waits for the others (and flushes its
# trace) until its tracing ends: idle, not busy. Processor 0 computes 1 s,
# calls close0 and waits 2 s for processor 1, which computes 3 s.
cat >close.picl <<'T'
-3 -901 0.000000 0 0 0
-3 -901 0.000000 1 0 0
-2 -12 1.000000 0 0 0
-2 -12 3.000000 1 0 0
-4 -901 3.000000 0 0 0
-4 -901 3.000000 1 0 0
T
run "$PT" stat --format=csv close.picl
expect_rc 0
grep -q '^0,0,,utilization,,busy,1.000000,,' "$TMP/out" || fail "close0: busy of 0: $(cat "$TMP/out")"
grep -q '^0,0,,utilization,,idle,2.000000,,' "$TMP/out" || fail "close0: idle of 0: $(cat "$TMP/out")"
grep -q '^1,0,,utilization,,busy,3.000000,,' "$TMP/out" || fail "close0: busy of 1: $(cat "$TMP/out")"
# A broadcast (send0 to -1) is matched by each processor's receive, and
# its sender's critical path reaches every receiver: processor 2 receives at
# 2.5 (latency 1.5 from the send's entry at 1.0, whose cp is 1.0 of busy
# time) and works to 4.0, so the path is 1.0 + 1.5 + 1.5 = 4.0 of a 4.0 s
# makespan (without the edge to 2 it would be 3.0, processor 0's own).
cat >bcast.picl <<'T'
-3 -901 0.0 0 0 0
-3 -901 0.0 1 0 0
-3 -901 0.0 2 0 0
-3 -52 0.5 1 0 1 2 9
-3 -52 0.5 2 0 1 2 9
-3 -21 1.0 0 0 3 2 8 9 -1
-4 -21 1.5 0 0 0
-4 -52 2.0 1 0 3 2 8 9 0
-4 -52 2.5 2 0 3 2 8 9 0
-4 -901 3.0 0 0 0
-4 -901 3.0 1 0 0
-4 -901 4.0 2 0 0
T
run "$PT" stat --summary --messages bcast.picl
expect_rc 0
grep -qx '== messages: 2 matched, 16 bytes; unmatched: 0 sends, 0 receives' "$TMP/out" ||
  fail "broadcast messages: $(cat "$TMP/out")"
grep -Eq '^ +0 +2 +1 +8 +1\.5 +1\.5 +1\.5$' "$TMP/out" || fail "broadcast to 2: $(cat "$TMP/out")"
grep -qx '== critical path (estimate): 4.0 s of a makespan of 4.0 s (100.00%)' "$TMP/out" ||
  fail "broadcast critical path: $(cat "$TMP/out")"
# The header's -307 records declare the processors: listing 0 and 1 only,
# the broadcast is forgotten once 1 has it (at 2.0), and 2's receive (at
# 2.5) finds no send; with all three listed, the same as without a header.
for procs in "0 1" "0 1 2"; do
  n=$(echo $procs | wc -w)
  { echo "-307 -1 0 -1 -1 $n 2 $procs"; cat bcast.picl; } >hdr.picl
  run "$PT" stat --summary --messages hdr.picl
  expect_rc 0
  case $n in
  2) want='== messages: 1 matched, 8 bytes; unmatched: 0 sends, 1 receive' ;;
  *) want='== messages: 2 matched, 16 bytes; unmatched: 0 sends, 0 receives' ;;
  esac
  grep -qx "$want" "$TMP/out" || fail "header -307 $procs: $(cat "$TMP/out")"
done
# The host receives no broadcast (send0(-1) goes to the nodes): its
# receive of 0's 100 bytes matches them, not 0's earlier broadcast of 8,
# with a -307 header declaring the processors or without one.
cat >host.picl <<'T'
-3 -901 0 0 0 0
-3 -901 0 1 0 0
-3 -901 0 32767 0 0
-3 -21 1 0 0 3 2 8 3 -1
-4 -21 1 0 0 0
-3 -52 1 1 0 1 2 3
-4 -52 2 1 0 3 2 8 3 0
-3 -21 3 0 0 3 2 100 3 32767
-4 -21 3 0 0 0
-3 -52 3 32767 0 1 2 3
-4 -52 4 32767 0 3 2 100 3 0
-4 -901 5 0 0 0
-4 -901 5 1 0 0
-4 -901 5 32767 0 0
T
{ echo '-307 -1 -1 -1 -1 3 2 0 1 32767'; cat host.picl; } >host-h.picl
for f in host.picl host-h.picl; do
  run "$PT" stat --summary --messages $f
  expect_rc 0
  grep -qx '== messages: 2 matched, 108 bytes; unmatched: 0 sends, 0 receives' "$TMP/out" &&
    grep -qx '  latency (s): min 1, mean 1, max 1' "$TMP/out" || fail "$last: $(cat "$TMP/out")"
  validate_ok $f
done

# recvbegin0 (request 5), completed by recvstatus0; the recvend0 after it
# gives the same message again, not the next one, which recv0 takes.
cat >req.picl <<'T'
-3 -901 0.0 0 0 0
-3 -901 0.0 1 0 0
-3 -57 0.5 1 0 1 2 5
-4 -57 0.6 1 0 1 2 5
-3 -21 1.0 0 0 3 2 8 5 1
-4 -21 1.1 0 0 0
-3 -58 2.0 1 0 1 2 5
-4 -58 2.1 1 0 3 2 8 5 0
-3 -21 2.5 0 0 3 2 64 5 1
-4 -21 2.6 0 0 0
-3 -60 3.0 1 0 1 2 5
-4 -60 3.1 1 0 3 2 8 5 0
-3 -52 3.2 1 0 1 2 5
-4 -52 3.7 1 0 3 2 64 5 0
-4 -901 4.0 0 0 0
-4 -901 4.0 1 0 0
T
run "$PT" stat --summary --messages req.picl
expect_rc 0
grep -qx '== messages: 2 matched, 72 bytes; unmatched: 0 sends, 0 receives' "$TMP/out" &&
  grep -qx '  latency (s): min 1.1, mean 1.2, max 1.2' "$TMP/out" || fail "$last: $(cat "$TMP/out")"
validate_ok req.picl

# A count of the receive events (-1013) takes in probe0's calls (-53),
# which PICL counts without writing records: not recomputable, a note for
# stat --compare and no error for validate; the time of -1013 still is.
cat >probe.picl <<'T'
-3 -901 0.0 0 0 0
-3 -901 0.0 1 0 0
-3 -21 1.0 0 0 3 2 8 1 1
-4 -21 1.5 0 0 0
-3 -51 2.0 1 0 1 2 1
-4 -51 2.5 1 0 3 2 8 1 0
-4 -901 3.0 0 0 0
-4 -901 3.0 1 0 0
-102 -1 3.0 1 0 3 "%d%d" -51 1 -53 5 -901 1
-102 -1 3.0 1 0 1 "%d%d" -1013 6
-101 -1 3.0 1 0 3 "%d%lf" -1013 0.5 -51 0.5 -901 3.0
T
run "$PT" stat --compare probe.picl
expect_rc 0
grep -q '^note: probe.picl:10:32: processor 1, process 0, relative to -1: the count of -1013 receive events (6) cannot be recomputed: the subset takes in types PICL counts without writing records$' "$TMP/out" ||
  fail "$last: $(cat "$TMP/out")"
grep -q 'differ' "$TMP/out" && fail "$last: $(cat "$TMP/out")"
validate_ok probe.picl
sed 's/-1013 0.5/-1013 1.5/' probe.picl >probe2.picl
run "$PT" validate probe2.picl
expect_rc 1
grep -q '^probe2.picl:11:.*time of event -1013 relative to -1 is 1.5, the events give 0.5' "$TMP/out" ||
  fail "$last: $(cat "$TMP/out")"

# A statistics record of processor -1 sums every process; the events of
# processor -1 itself (a -913 mark) are not its own to leave out.
cat >all.picl <<'T'
-3 -901 0 0 0 0
-3 -901 0 1 0 0
-3 -21 1 0 0 3 2 8 1 1
-4 -21 1 0 0 0
-3 -21 1 1 0 3 2 8 1 0
-4 -21 1 1 0 0
-2 -913 2 -1 -1 0
-4 -901 3 0 0 0
-4 -901 3 1 0 0
-102 -1 3 -1 -1 1 "%d%d" -21 2
T
run "$PT" stat --compare all.picl
expect_rc 0
expect_out <<'T'
the statistics records agree with the events: 1 value compared
T

# Records before a process's -901 entry are not traced time: not on the
# critical path (5 s of its 5, not 10) nor in the plots' timeline.
printf -- '-2 -904 0 0 0 0\n-3 -901 5 0 0 0\n-4 -901 10 0 0 0\n' >early.picl
run "$PT" stat --summary early.picl
expect_rc 0
grep -qx '== critical path (estimate): 5 s of a makespan of 5 s (100.00%)' "$TMP/out" ||
  fail "$last: $(cat "$TMP/out")"
for limit in 1000 1; do
  run env PICL_PLOT_INTERVALS=$limit "$PT" plot -k utilization -f script early.picl
  expect_rc 0
  grep -qx 'set xrange \[5:10\]' "$TMP/out" || fail "$last: $(grep xrange "$TMP/out")"
done
# Binned, a stretch in one state is one box, not one per bin (the
# fractions of bins of a state differ by rounding only): at most the
# partial bins at each end and the run between.
printf -- '-3 -901 2 1 0 0\n-3 -901 5 0 0 0\n-4 -901 9 1 0 0\n-4 -901 10 0 0 0\n' >two.picl
run env PICL_PLOT_INTERVALS=1 "$PT" plot -k gantt -f script two.picl
expect_rc 0
n=$(sed -n '/^\$busy << EOD$/,/^EOD$/p' "$TMP/out" | sed '1d;$d' | wc -l)
[ "$n" -ge 2 ] && [ "$n" -le 6 ] || fail "$last: $n busy boxes for two busy stretches"
echo "PASS: $ntest stat checks on three.picl, close.picl and bcast.picl"

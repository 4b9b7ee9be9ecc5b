#!/bin/sh
# picltrace stat on the spec's Appendix A trace (Table 20, processor 6):
# the profile table, --compare against the file's own statistics records,
# --emit-records, csv and json. Every expected value below was worked out by
# hand from Table 20:
#
#   traced 0.001982 - (-0.715036) = 0.717018
#   idle (-52): (0.000516-0.000128) + (0.001643-0.000818) = 0.000388 + 0.000825
#               = 0.001213  (Table 20 records 0.001212: PICL rounded each time)
#   overhead: -902 0.001170 + -11 0.000098 + -903 0.705633 + -401 0.008084
#             + -21 0.000046 = 0.715031
#   idle also from close0 (-12, 0.001979) to the -901 exit (0.001982):
#        0.000003, so idle in all 0.001216
#   busy = 0.717018 - 0.715031 - 0.001216 = 0.000771 (= the gaps 19+14+11+12
#          +123+302+22+268 microseconds)
#   user event 0: 0.000539-0.000016 = 0.000523; 1: 0.001724-0.000711 = 0.001013
#   subsets relative to -1: -1001 {0,1} 0.001536, 2; -1002 all system events
#     0.000098+0.000046+0.001213+0.008084+0.717018+0.001170+0.705633 =
#     1.433262, count 10, volume 8+16 = 24; -1011 {-11,-12,-21,-52} 0.001357,
#     5, 24; -1012 {-21}; -1013 = -1014 {-52}; -1401 {-401}; -1901
#     {-901..-904} 0.717018+0.001170+0.705633 = 1.423821, 4
#   no message is matched (processor 0's and 7's records are not in the
#   file): 1 send and 2 receives unmatched; the critical path is then the
#   non-idle time, 0.717018 - 0.001216 = 0.715802 (99.83% of 0.717018)
. "$PICL_SRCDIR/t/e2e/lib.sh"
need_shared
set -e
cd "$TMP"
cp "$SHARED/spec/table20-example.picl" t20.picl

run "$PT" stat t20.picl
expect_rc 0
expect_out <<'T'
trace: t20.picl
1 process on 1 processor; 35 records, 22 event records; timestamps with 6 decimals

== processor 6, process 0: traced 0.717018 s, from -0.715036 to 0.001982

  utilization  time (s)      %
  busy         0.000771   0.11
  overhead     0.715031  99.72
  idle         0.001216   0.17

  relative to the whole process (-1)
  event   name                    time (s)  count  volume
  -11     open0                   0.000098      1       -
  -12     close0                         -      1       -
  -21     send0                   0.000046      1       8
  -52     recv0 blocked           0.001213      2      16
  -401    clocksync0              0.008084      1       -
  -901    tracing                 0.717018      1       -
  -902    traceevents             0.001170      1       -
  -903    tracefiles              0.705633      1       -
  -904    tracelevel                     -      1       -
  0       user event              0.000523      1       -
  1       user event              0.001013      1       -

  subset  name                    time (s)  count  volume
  -1001   user events             0.001536      2       -
  -1002   system events           1.433262     10      24
  -1011   communication events    0.001357      5      24
  -1012   send events             0.000046      1       8
  -1013   receive events          0.001213      2      16
  -1014   blocked events          0.001213      2      16
  -1401   synchronization events  0.008084      1       -
  -1901   tracing events          1.423821      4       -

  inside user event 0
  event   name                  time (s)  count  volume
  -52     recv0 blocked         0.000388      1       8

  subset  name                  time (s)  count  volume
  -1002   system events         0.000388      1       8
  -1011   communication events  0.000388      1       8
  -1013   receive events        0.000388      1       8
  -1014   blocked events        0.000388      1       8

  inside user event 1
  event   name                  time (s)  count  volume
  -21     send0                 0.000046      1       8
  -52     recv0 blocked         0.000825      1       8

  subset  name                  time (s)  count  volume
  -1002   system events         0.000871      2      16
  -1011   communication events  0.000871      2      16
  -1012   send events           0.000046      1       8
  -1013   receive events        0.000825      1       8
  -1014   blocked events        0.000825      1       8

== messages: 0 matched, 0 bytes; unmatched: 1 send, 2 receives

== critical path (estimate): 0.715802 s of a makespan of 0.717018 s (99.83%)
T
expect_err </dev/null

# --compare: the file's records agree with its events within resolution:
# -52 (0.001212 vs 0.001213, 2 intervals), -401 (0.008083 vs 0.008084),
# -903 (0.705632 vs 0.705633), -52 inside 0 (0.000387 vs 0.000388). Pairs
# compared: 7+9+2 (-103 without -901) +2+2 +1+1+1 +2+2+2 = 31. The -901
# volume (428) is a note.
run "$PT" stat --compare t20.picl
expect_rc 0
expect_out <<'T'
note: t20.picl:27:49: processor 6, process 0, relative to -1: the volume of -901 tracing (428, the bytes of trace data) cannot be recomputed from the events
the statistics records agree with the events: 31 values compared
4 times differ by no more than the timestamps' resolution (0.000001 s) per interval summed
T

# A record that disagrees: count 3 for -52, and a time far off.
sed -e 's/^-102 -1 0.001982 6 0 9 "%d%d" -11 1 -12 1 -21 1 -52 2/-102 -1 0.001982 6 0 9 "%d%d" -11 1 -12 1 -21 1 -52 3/' \
    -e 's/^-101 1 0.001982 6 0 2 "%d%lf" -21 0.000046/-101 1 0.001982 6 0 2 "%d%lf" -21 0.000050/' \
    t20.picl >bad-stats.picl
run "$PT" stat --compare bad-stats.picl
expect_rc 1
expect_out <<'T'
bad-stats.picl:26:53: processor 6, process 0, relative to -1: count of -52 recv0 blocked: recorded 3, the events give 2
note: bad-stats.picl:27:49: processor 6, process 0, relative to -1: the volume of -901 tracing (428, the bytes of trace data) cannot be recomputed from the events
bad-stats.picl:33:35: processor 6, process 0, relative to 1: time of -21 send0: recorded 0.000050, the events give 0.000046
the statistics records differ from the events: 2 of 31 values
4 times differ by no more than the timestamps' resolution (0.000001 s) per interval summed
T

# A record over two processors (-1) sums their cells, doubles rounded to
# the trace's decimals: 0.1 + 0.2 is the recorded 0.3, not a difference
# within the resolution (which the summary once counted).
printf '%s\n' '-3 -901 0 0 0 0' '-3 -901 0 1 0 0' '-3 1 0.0 0 0 0' '-4 1 0.1 0 0 0' \
  '-3 1 0.5 1 0 0' '-4 1 0.7 1 0 0' '-4 -901 1.0 0 0 0' '-4 -901 1.0 1 0 0' \
  '-101 -1 1.0 -1 0 1 "%d%lf" 1 0.3' >sum.picl
run "$PT" stat --compare sum.picl
expect_rc 0
expect_out <<'T'
the statistics records agree with the events: 1 value compared
T
sed 's/ 1 0.3$/ 1 0.6/' sum.picl >sum6.picl
run "$PT" stat --compare sum6.picl
expect_rc 1
grep -q "time of 1 .*: recorded 0.6, the events give 0.3" "$TMP/out" ||
  fail "0.6 against 0.1 + 0.2: $(cat "$TMP/out")"

# Events PICL counts without writing records (recvstatus0's -59 pending,
# Table 8) cannot be recomputed: a note, as for the -901 volume, not a
# difference (a stencil run's own trace once failed --compare so).
printf '%s\n' '-3 -901 0 0 0 0' '-4 -901 1.0 0 0 0' \
  '-102 -1 1.0 0 0 2 "%d%d" -901 1 -59 25' >counted.picl
run "$PT" stat --compare counted.picl
expect_rc 0
expect_out <<'T'
note: counted.picl:3:37: processor 0, process 0, relative to -1: the count of -59 recvstatus0 pending (25) cannot be recomputed: PICL counts it without writing records
the statistics records agree with the events: 1 value compared
T

# A pair left out of a record PICL would have written is a difference.
grep -v '^-103 1 ' t20.picl >missing.picl
printf '%s\n' '-103 1 0.001982 6 0 1 "%d%d" -21 8' >>missing.picl
run "$PT" stat --compare missing.picl
expect_rc 1
grep -q '^missing.picl:35:1: processor 6, process 0, relative to 1: volume of -52 recv0 blocked: not recorded, the events give 8$' "$TMP/out" ||
  fail "a left-out pair is not reported"

# A trace without statistics records: nothing to compare, exit 0.
grep -v '^-10[123] ' t20.picl >nostats.picl
run "$PT" stat --compare nostats.picl
expect_rc 0
expect_out <<'T'
the trace has no statistics records: nothing to compare
T

# --emit-records: what PICL's traceexit writes, recomputed (by hand from
# Table 20; PICL's order, the trace's own decimals).
run "$PT" stat --emit-records nostats.picl
expect_rc 0
cat >emitted.want <<'T'
-101 -1 0.001982 6 0 7 "%d%lf" -11 0.000098 -21 0.000046 -52 0.001213 -401 0.008084 -901 0.717018 -902 0.001170 -903 0.705633
-102 -1 0.001982 6 0 9 "%d%d" -11 1 -12 1 -21 1 -52 2 -401 1 -901 1 -902 1 -903 1 -904 1
-103 -1 0.001982 6 0 2 "%d%d" -21 8 -52 16
-101 -1 0.001982 6 0 2 "%d%lf" 0 0.000523 1 0.001013
-102 -1 0.001982 6 0 2 "%d%d" 0 1 1 1
-101 0 0.001982 6 0 1 "%d%lf" -52 0.000388
-102 0 0.001982 6 0 1 "%d%d" -52 1
-103 0 0.001982 6 0 1 "%d%d" -52 8
-101 1 0.001982 6 0 2 "%d%lf" -21 0.000046 -52 0.000825
-102 1 0.001982 6 0 2 "%d%d" -21 1 -52 1
-103 1 0.001982 6 0 2 "%d%d" -21 8 -52 8
T
expect_out <emitted.want
# ... which is the file's own statistics records but for the four times
# PICL rounded and the -901 volume no event shows.
grep '^-10[123] ' t20.picl |
  sed -e 's/-52 0.001212/-52 0.001213/' -e 's/-401 0.008083/-401 0.008084/' \
      -e 's/-903 0.705632/-903 0.705633/' -e 's/-52 0.000387/-52 0.000388/' \
      -e 's/^-103 -1 0.001982 6 0 3 "%d%d" -21 8 -52 16 -901 428$/-103 -1 0.001982 6 0 2 "%d%d" -21 8 -52 16/' \
      >own.fixed
cmp own.fixed emitted.want || fail "emitted records differ from the file's own beyond the known five values"
# Appended to the events, they compare clean (and exactly).
cat nostats.picl emitted.want >with-emitted.picl
run "$PT" stat --compare with-emitted.picl
expect_rc 0
expect_out <<'T'
the statistics records agree with the events: 31 values compared
T
# To a file, compressed.
run "$PT" stat --emit-records -z -o emitted.zst nostats.picl
expect_rc 0
zstd -q -dc emitted.zst | cmp - emitted.want || fail "zstd --emit-records differs"

# CSV: one header, rows of nine fields; the -1 section by hand.
run "$PT" stat --format=csv t20.picl
expect_rc 0
cp "$TMP/out" t20.csv
head -n 35 t20.csv >"$TMP/out"
expect_out <<'T'
processor,process,relative,kind,event,name,time,count,volume
6,0,,utilization,,busy,0.000771,,
6,0,,utilization,,overhead,0.715031,,
6,0,,utilization,,idle,0.001216,,
6,0,-1,event,-11,open0,0.000098,1,
6,0,-1,event,-12,close0,,1,
6,0,-1,event,-21,send0,0.000046,1,8
6,0,-1,event,-52,recv0 blocked,0.001213,2,16
6,0,-1,event,-401,clocksync0,0.008084,1,
6,0,-1,event,-901,tracing,0.717018,1,
6,0,-1,event,-902,traceevents,0.001170,1,
6,0,-1,event,-903,tracefiles,0.705633,1,
6,0,-1,event,-904,tracelevel,,1,
6,0,-1,event,0,user event,0.000523,1,
6,0,-1,event,1,user event,0.001013,1,
6,0,-1,subset,-1001,user events,0.001536,2,
6,0,-1,subset,-1002,system events,1.433262,10,24
6,0,-1,subset,-1011,communication events,0.001357,5,24
6,0,-1,subset,-1012,send events,0.000046,1,8
6,0,-1,subset,-1013,receive events,0.001213,2,16
6,0,-1,subset,-1014,blocked events,0.001213,2,16
6,0,-1,subset,-1401,synchronization events,0.008084,1,
6,0,-1,subset,-1901,tracing events,1.423821,4,
6,0,0,event,-52,recv0 blocked,0.000388,1,8
6,0,0,subset,-1002,system events,0.000388,1,8
6,0,0,subset,-1011,communication events,0.000388,1,8
6,0,0,subset,-1013,receive events,0.000388,1,8
6,0,0,subset,-1014,blocked events,0.000388,1,8
6,0,1,event,-21,send0,0.000046,1,8
6,0,1,event,-52,recv0 blocked,0.000825,1,8
6,0,1,subset,-1002,system events,0.000871,2,16
6,0,1,subset,-1011,communication events,0.000871,2,16
6,0,1,subset,-1012,send events,0.000046,1,8
6,0,1,subset,-1013,receive events,0.000825,1,8
6,0,1,subset,-1014,blocked events,0.000825,1,8
T
# The totals over all processes follow, as processor and process -1: with
# one process, the same rows.
[ "$(sed -n '36,$p' t20.csv | sed 's/^all,all,/6,0,/')" = "$(sed 1d "$TMP/want")" ] ||
  fail "csv totals differ from the one process's rows"
python3 - t20.csv <<'PY' || fail "csv does not parse as expected"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0] == "processor,process,relative,kind,event,name,time,count,volume".split(","), rows[0]
assert all(len(r) == 9 for r in rows), "ragged rows"
total = [r for r in rows if r[0] == "all" and r[3] == "utilization"]
assert [r[6] for r in total] == ["0.000771", "0.715031", "0.001216"], total
PY

# JSON parses; a few values by hand.
run "$PT" stat --format=json t20.picl
expect_rc 0
python3 -m json.tool "$TMP/out" >/dev/null || fail "json does not parse"
python3 - "$TMP/out" <<'PY' || fail "json values differ"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["processes"][0]
assert (p["processor"], p["process"], d["decimals"]) == (6, 0, 6)
assert p["traced"] == 0.717018 and p["start"] == -0.715036 and p["end"] == 0.001982
assert p["utilization"] == {"busy": 0.000771, "overhead": 0.715031, "idle": 0.001216}
rel = {s["relative"]: s for s in p["profile"]}
ev = {e["event"]: e for e in rel[-1]["events"]}
assert ev[-52] == {"event": -52, "name": "recv0 blocked", "time": 0.001213, "count": 2, "volume": 16}
assert ev[-904]["time"] is None and ev[-904]["count"] == 1
sub = {e["event"]: e for e in rel[-1]["subsets"]}
assert sub[-1002]["time"] == 1.433262 and sub[-1002]["count"] == 10
assert [e["event"] for e in rel[1]["events"]] == [-21, -52]
m = d["messages"]
assert (m["count"], m["unmatched_sends"], m["unmatched_receives"], m["latency"]) == (0, 1, 2, None)
assert d["critical_path"] == {"length": 0.715802, "makespan": 0.717018, "messages_left_out": 0}
PY
echo "PASS: $ntest stat checks on the spec's example"

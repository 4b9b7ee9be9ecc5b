#!/bin/sh
# picltrace stat on small hand-made traces whose numbers are worked out by
# hand below: utilization (which event types count as busy, overhead and
# idle, close0, the -1 window), nested user events and the statistics
# relative to them, messages with a broadcast (destination -1) and a
# message to self, the critical path across three processors, predefined
# (Table 5) and -203 subsets, the host 32767, a process with records but
# no -901, negative times. The table, --format=csv and --format=json must
# give the same numbers (each parsed with python3).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# --- Trace 1: three processors, the host, negative times -----------------
# Subsets: -2002 = {-52, 3, 7}; -2003 = {-2002, -21} (a subset in a subset).
#
# processor 0 (window -1.00 .. 3.00 = 4.00):
#   -1.00..0.00 busy 1.00; send0 broadcast (10 bytes, type 5, to -1)
#   0.00..0.50 overhead 0.50; busy 0.50; send0 to itself (4 bytes, type 6)
#   1.00..1.25 overhead 0.25; busy 0.25; recv0 blocked 1.50..2.00 idle 0.50
#   (receives its own message); busy 2.00..3.00 1.00.
#   busy 1+0.5+0.25+1 = 2.75, overhead 0.5+0.25 = 0.75, idle 0.50.
# processor 1 (window -0.50 .. 2.50 = 3.00):
#   busy 0.50; recv0 blocked 0.00..1.00 (the broadcast) idle 1.00; busy
#   0.50; send0 to 2 (20 bytes, type 9) 1.50..2.00 overhead 0.50; busy 0.50.
#   busy 1.50, overhead 0.50, idle 1.00.
# processor 2 (no -901: traced from its first record, -2.00, to its last,
#   4.50 = 6.50): recv0 blocked -2.00..3.00 (the broadcast) idle 5.00; busy
#   0.50; recv0 blocked 3.50..4.00 (from 1) idle 0.50; busy 0.50; user
#   mark 3 at 4.50. busy 1.00, overhead 0, idle 5.50.
# host (window 0.00 .. 1.00): user event 7 ("work") 0.25..0.75; busy 1.00.
# all: traced 4+3+6.5+1 = 14.50; busy 2.75+1.5+1+1 = 6.25; overhead
#   0.75+0.5 = 1.25; idle 0.5+1+5.5 = 7.00; from -2.00 to 4.50.
#
# Messages (latency = receive exit - send entry):
#   0 -> 1 broadcast: 1.00 - 0.00 = 1.00 (10 bytes)
#   0 -> 2 broadcast: 3.00 - 0.00 = 3.00 (10 bytes)
#   0 -> 0 to self:   2.00 - 1.00 = 1.00 (4 bytes)
#   1 -> 2:           4.00 - 1.50 = 2.50 (20 bytes)
#   4 matched, 44 bytes, min 1.00, mean 7.50 / 4 = 1.875 -> 1.88, max 3.00;
#   the host receives no broadcast, so nothing is left unmatched.
#
# Critical path (cp grows with busy and overhead time, a receive raises it
# to the sender's cp at the send + the latency):
#   processor 0: cp 1.00 at the broadcast, 2.00 at the send to itself;
#     2.50 at 1.50; its receive: max(2.50, 2.00 + 1.00) = 3.00; + 1.00
#     busy = 4.00.
#   processor 1: 0.50 at 0.00; receive at 1.00: 1.00 + 1.00 = 2.00; + 0.50
#     busy = 2.50 at its send; + 1.00 = 3.50.
#   processor 2: 0 (idle); receive at 3.00: 1.00 + 3.00 = 4.00; + 0.50 =
#     4.50; receive at 4.00: max(4.50, 2.50 + 2.50) = 5.00; + 0.50 = 5.50.
#   host: 1.00. Length 5.50 (0 -> 1 -> 2), makespan 4.50 - -2.00 = 6.50.
#
# Profile relative to -1, all processes:
#   -21 send0: 0.50 + 0.25 + 0.50 = 1.25, count 3, volume 10+4+20 = 34
#   -52 recv0 blocked: 0.50 + 1.00 + 5.00 + 0.50 = 7.00, count 4, volume
#       4 + 10 + 10 + 20 = 44
#   -901: 4 + 3 + 1 = 8.00, count 3; 3: count 1, no time; 7: 0.50, count 1
#   -1001 user events: time 0.50 (3 has none), count 2
#   -1002 system events: 1.25 + 7.00 + 8.00 = 16.25, count 10, volume 78
#   -1012 sends: 1.25, 3, 34; -1013 receives and -1014 blocked: 7.00, 4, 44
#   -2002: 7.00 + 0.50 = 7.50, count 4 + 1 + 1 = 6, volume 44
#   -2003: 7.50 + 1.25 = 8.75, count 9, volume 78
cat >one.picl <<'EOF'
-5 7 -9.00 -1 -1 4 0 work
-203 -1 -9.00 -1 -1 4 2 -2002 -52 3 7
-203 -1 -9.00 -1 -1 3 2 -2003 -2002 -21
-3 -52 -2.00 2 0 0
-3 -901 -1.00 0 0 0
-3 -901 -0.50 1 0 0
-3 -21 0.00 0 0 3 2 10 5 -1
-3 -52 0.00 1 0 0
-3 -901 0.00 32767 0 0
-3 7 0.25 32767 0 0
-4 -21 0.50 0 0 0
-4 7 0.75 32767 0 0
-3 -21 1.00 0 0 3 2 4 6 0
-4 -52 1.00 1 0 3 2 10 5 0
-4 -901 1.00 32767 0 0
-4 -21 1.25 0 0 0
-3 -52 1.50 0 0 0
-3 -21 1.50 1 0 3 2 20 9 2
-4 -52 2.00 0 0 3 2 4 6 0
-4 -21 2.00 1 0 0
-4 -901 2.50 1 0 0
-4 -901 3.00 0 0 0
-4 -52 3.00 2 0 3 2 10 5 0
-3 -52 3.50 2 0 0
-4 -52 4.00 2 0 3 2 20 9 1
-2 3 4.50 2 0 0
EOF

# --- Trace 2: one processor, nested user events, every category ----------
# processor 0 (window 0 .. 20):
#   0-1 busy; open0 1-2 overhead; 2-3 busy; user event 1 from 2.5 to 11.5
#   (leaves the category as it was); clocksync0 (-401) 3-7 overhead but
#   for recv0 blocked inside it, 4-6 idle (the innermost decides), so
#   3-4 and 6-7 overhead; 7-8 busy; idle (-601) 8-9 idle; 9-10 busy;
#   user event 2 from 9.5 to 10.75 inside 1; overhead (-602) 10-11; 11-12
#   busy; traceflush (-911) 12-13 overhead; 13-14 busy; close0 as entry and
#   exit 14-15 overhead; then idle (after close0) 15-17; traceflush 17-18
#   overhead; idle 18-20.
#   busy 1+1+1+1+1+1 = 6, overhead 1+1+1+1+1+1+1 = 7, idle 2+1+2+2 = 7.
# processor 1 (window by -1 entry and exit, 0 .. 10): busy 0-1; send0 1-3
#   overhead (to itself, 1 byte type 1); busy 3-4; sendend0 blocked (-31)
#   4-5 idle; busy 5-6; close0 mark at 6, idle 6-10. busy 3, overhead 2,
#   idle 5. Processor 0's recv0 blocked (4-6) receives that message:
#   latency 6 - 1 = 5.
# Relative to user event 1 (entries between 2.5 and 11.5): -401 4 (3-7),
#   -52 2, -601 1, -602 1, user event 2 1.25; relative to 2: -602 1.
cat >two.picl <<'EOF'
-3 -901 0 0 0 0
-3 -11 1 0 0 0
-4 -11 2 0 0 0
-3 1 2.5 0 0 0
-3 -401 3 0 0 0
-3 -52 4 0 0 0
-4 -52 6 0 0 3 2 1 1 1
-4 -401 7 0 0 0
-3 -601 8 0 0 0
-4 -601 9 0 0 0
-3 2 9.5 0 0 0
-3 -602 10 0 0 0
-4 2 10.75 0 0 0
-4 -602 11 0 0 0
-4 1 11.5 0 0 0
-3 -911 12 0 0 0
-4 -911 13 0 0 0
-3 -12 14 0 0 0
-4 -12 15 0 0 0
-3 -911 17 0 0 0
-4 -911 18 0 0 0
-4 -901 20 0 0 0
-3 -1 0 1 0 0
-3 -21 1 1 0 3 2 1 1 0
-4 -21 3 1 0 0
-3 -31 4 1 0 1 2 0
-4 -31 5 1 0 0
-2 -12 6 1 0 0
-4 -1 10 1 0 0
EOF

# The three outputs of a trace, parsed, must hold the same numbers; then
# the hand values of $2 (a python dict literal) are checked against them.
check() {
  trace=$1
  run "$PT" stat -m "$trace"
  expect_rc 0
  cp "$TMP/out" "$trace.table"
  run "$PT" stat --format=csv "$trace"
  expect_rc 0
  cp "$TMP/out" "$trace.csv"
  run "$PT" stat --format=json -m "$trace"
  expect_rc 0
  cp "$TMP/out" "$trace.json"
  python3 - "$trace" "$2" <<'PY' || fail "$trace: the outputs disagree or differ from the hand values"
import csv, json, re, sys
from decimal import Decimal as D
trace, want = sys.argv[1], eval(sys.argv[2])
ok = True
def bad(msg):
    global ok
    ok = False
    print(trace + ": " + msg, file=sys.stderr)
def num(s):
    return None if s in ("", "-", None) else D(str(s))

# table: who -> {("util", cat): time} and {(rel, kind, event): (t, c, v)}
tab, who, rel, kind = {}, None, None, None
msgs = {}
lines = open(trace + ".table").read().split("\n")
for ln in lines:
    m = re.match(r"== (.*): traced (\S+) s, from (\S+) to (\S+)$", ln)
    if m:
        t = m.group(1)
        if t == "all processes":
            who = "all,all"
        else:
            m2 = re.match(r"(?:processor (-?\d+)|host)(?:, process (-?\d+))?$", t)
            who = "%s,%s" % (m2.group(1) or "32767", m2.group(2) or "-1")
        tab[who] = {"traced": D(m.group(2)), "start": D(m.group(3)), "end": D(m.group(4))}
        rel = None
        continue
    if ln.startswith("== "):
        who = None
        m = re.match(r"== messages: (\d+) matched, (\d+) bytes; unmatched: (\d+) sends?, (\d+) receives?$", ln)
        if m:
            msgs.update(count=int(m.group(1)), bytes=int(m.group(2)),
                        unmatched_sends=int(m.group(3)), unmatched_receives=int(m.group(4)))
        m = re.match(r"== critical path \(estimate\): (\S+) s of a makespan of (\S+) s", ln)
        if m:
            msgs.update(length=D(m.group(1)), makespan=D(m.group(2)))
        continue
    m = re.match(r"  latency \(s\): min (\S+), mean (\S+), max ([^;\s]+)", ln)
    if m:
        msgs.update(min=D(m.group(1)), mean=D(m.group(2)), max=D(m.group(3)))
    if who is None:
        continue
    m = re.match(r"  (busy|overhead|idle) +(\S+) +\S+$", ln)
    if m:
        tab[who]["util", m.group(1)] = D(m.group(2))
        continue
    m = re.match(r"  (?:relative to the whole process \((-1)\)|inside user event (\d+))", ln)
    if m:
        rel, kind = int(m.group(1) or m.group(2)), "event"
        continue
    if re.match(r"  subset +name", ln):
        kind = "subset"
        continue
    m = re.match(r"  (-?\d+) +.*?(\S+) +(\d+) +(\S+)$", ln)
    if m and rel is not None:
        tab[who][rel, kind, int(m.group(1))] = (num(m.group(2)), int(m.group(3)), num(m.group(4)))

# csv
cs = {}
for r in csv.DictReader(open(trace + ".csv")):
    w = r["processor"] + "," + r["process"]
    d = cs.setdefault(w, {})
    if r["kind"] == "utilization":
        d["util", r["name"]] = D(r["time"])
    else:
        d[int(r["relative"]), r["kind"], int(r["event"])] = (num(r["time"]), int(r["count"]), num(r["volume"]))

# json
j = json.load(open(trace + ".json"), parse_float=D)
js = {}
def jblock(w, b):
    d = js.setdefault(w, {"traced": b["traced"], "start": b["start"], "end": b["end"]})
    for c, t in b["utilization"].items():
        d["util", c] = t
    for p in b["profile"]:
        for k in ("events", "subsets"):
            for e in p[k]:
                d[p["relative"], k[:-1], e["event"]] = (num(e["time"]), e["count"], num(e["volume"]))
for p in j["processes"]:
    if p["host"] != (p["processor"] == 32767):
        bad("json host %s for processor %d" % (p["host"], p["processor"]))
    jblock("%d,%d" % (p["processor"], p["process"]), p)
jblock("all,all", j["all"])
jm = dict(j["messages"])
jm.update(jm.pop("latency") or {})
jm.update(j["critical_path"])

# the same numbers in the three
for w in set(tab) | set(cs) | set(js):
    a, b, c = tab.get(w, {}), cs.get(w, {}), js.get(w, {})
    if w != "all,all" or len(tab) > 1:
        for k in set(a) | set(c):
            if a.get(k) != c.get(k):
                bad("%s %s: table %s, json %s" % (w, k, a.get(k), c.get(k)))
    for k in set(b) | set(c):
        if k in ("traced", "start", "end"):
            continue
        if b.get(k) != c.get(k):
            bad("%s %s: csv %s, json %s" % (w, k, b.get(k), c.get(k)))
for k, v in msgs.items():
    if jm.get(k) != v:
        bad("messages %s: table %s, json %s" % (k, v, jm.get(k)))

# the hand values
for (w, k), v in want.items():
    if w == "messages":
        got = jm.get(k)
    else:
        got = js.get(w, {}).get(k)
        if isinstance(v, tuple):
            v = tuple(None if x is None else (D(x) if isinstance(x, str) else x) for x in v)
    if isinstance(v, str):
        v = D(v)
    if got != v:
        bad("%s %s: %s, by hand %s" % (w, k, got, v))
sys.exit(0 if ok else 1)
PY
  rm -f "$trace.table" "$trace.csv" "$trace.json"
}

check one.picl '{
 ("0,0", ("util", "busy")): "2.75", ("0,0", ("util", "overhead")): "0.75",
 ("0,0", ("util", "idle")): "0.50", ("0,0", "traced"): "4.00",
 ("1,0", ("util", "busy")): "1.50", ("1,0", ("util", "overhead")): "0.50",
 ("1,0", ("util", "idle")): "1.00",
 ("2,0", ("util", "busy")): "1.00", ("2,0", ("util", "overhead")): "0.00",
 ("2,0", ("util", "idle")): "5.50", ("2,0", "traced"): "6.50",
 ("2,0", "start"): "-2.00", ("2,0", "end"): "4.50",
 ("32767,0", ("util", "busy")): "1.00", ("32767,0", "traced"): "1.00",
 ("all,all", "traced"): "14.50", ("all,all", "start"): "-2.00", ("all,all", "end"): "4.50",
 ("all,all", ("util", "busy")): "6.25", ("all,all", ("util", "overhead")): "1.25",
 ("all,all", ("util", "idle")): "7.00",
 ("all,all", (-1, "event", -21)): ("1.25", 3, "34"),
 ("all,all", (-1, "event", -52)): ("7.00", 4, "44"),
 ("all,all", (-1, "event", -901)): ("8.00", 3, None),
 ("all,all", (-1, "event", 3)): (None, 1, None),
 ("all,all", (-1, "event", 7)): ("0.50", 1, None),
 ("all,all", (-1, "subset", -1001)): ("0.50", 2, None),
 ("all,all", (-1, "subset", -1002)): ("16.25", 10, "78"),
 ("all,all", (-1, "subset", -1012)): ("1.25", 3, "34"),
 ("all,all", (-1, "subset", -1013)): ("7.00", 4, "44"),
 ("all,all", (-1, "subset", -1014)): ("7.00", 4, "44"),
 ("all,all", (-1, "subset", -2002)): ("7.50", 6, "44"),
 ("all,all", (-1, "subset", -2003)): ("8.75", 9, "78"),
 ("2,0", (-1, "subset", -1001)): (None, 1, None),
 ("2,0", (-1, "subset", -1901)): None,
 ("messages", "count"): 4, ("messages", "bytes"): 44,
 ("messages", "unmatched_sends"): 0, ("messages", "unmatched_receives"): 0,
 ("messages", "min"): "1.00", ("messages", "mean"): "1.88", ("messages", "max"): "3.00",
 ("messages", "length"): "5.50", ("messages", "makespan"): "6.50",
 ("messages", "messages_left_out"): 0,
}'
# critical path per process, and the pairs (0 -> 0 is the message to self)
run "$PT" stat --format=json -m one.picl
expect_rc 0
python3 - "$TMP/out" <<'PY' || fail "one.picl: critical path per process or message pairs"
import json, sys
j = json.load(open(sys.argv[1]))
cp = {(p["processor"], p["process"]): p["critical_path"] for p in j["processes"]}
want = {(0, 0): 4.0, (1, 0): 3.5, (2, 0): 5.5, (32767, 0): 1.0}
pairs = {(q["from"], q["to"]): (q["count"], q["bytes"], q["latency"]["min"], q["latency"]["max"])
         for q in j["messages"]["pairs"]}
wpairs = {(0, 0): (1, 4, 1.0, 1.0), (0, 1): (1, 10, 1.0, 1.0), (0, 2): (1, 10, 3.0, 3.0),
          (1, 2): (1, 20, 2.5, 2.5)}
if cp != want or pairs != wpairs:
    print(cp, pairs, file=sys.stderr)
    sys.exit(1)
PY

check two.picl '{
 ("0,0", ("util", "busy")): "6", ("0,0", ("util", "overhead")): "7",
 ("0,0", ("util", "idle")): "7", ("0,0", "traced"): "20",
 ("1,0", ("util", "busy")): "3", ("1,0", ("util", "overhead")): "2",
 ("1,0", ("util", "idle")): "5", ("1,0", "traced"): "10",
 ("0,0", (1, "event", -401)): ("4", 1, None),
 ("0,0", (1, "event", -52)): ("2", 1, "1"),
 ("0,0", (1, "event", -601)): ("1", 1, None),
 ("0,0", (1, "event", -602)): ("1", 1, None),
 ("0,0", (1, "event", 2)): ("1.25", 1, None),
 ("0,0", (2, "event", -602)): ("1", 1, None),
 ("0,0", (2, "event", -52)): None,
 ("0,0", (1, "event", -911)): None,
 ("0,0", (-1, "event", 1)): ("9", 1, None),
 ("messages", "count"): 1, ("messages", "min"): "5",
}'

# the messages line says one message received before it was sent in the
# singular (tachyon.picl: one send, received 5 us before it); three-procs,
# two of them, in the plural
run "$PT" stat "$PICL_SRCDIR/testdata/validate/tachyon.picl"
expect_rc 0
grep -q '; 1 received before it was sent$' "$TMP/out" ||
  fail "tachyon.picl: $(grep latency "$TMP/out")"
run "$PT" stat "$PICL_SRCDIR/testdata/sync/three-procs.picl"
expect_rc 0
grep -q '; 2 received before they were sent$' "$TMP/out" ||
  fail "three-procs.picl: $(grep latency "$TMP/out")"

# A total past what the exact sums hold (10^18 s and more) is a double: it
# is shown to the digits a double has, not with the binary product's own
# (2e18 came out 2000000000000000085).
printf -- '-3 -901 -999999999999999999 0 0 0\n-4 -901 999999999999999999 0 0 0\n' >"$TMP/huge.picl"
run "$PT" stat "$TMP/huge.picl"
expect_rc 0
grep -q '^  -901 *tracing *2000000000000000000 *1 ' "$TMP/out" ||
  fail "huge.picl: $(grep tracing "$TMP/out")"

#!/bin/sh
# The keys of stat --format=json are those picltrace-stat(1) documents, no
# more and no fewer: the page named the top-level keys and a process's,
# and left out those of messages (count, bytes, latency and its min, mean
# and max, the unmatched counts, pairs), of the critical path (length,
# makespan, messages_left_out) and of a profile's entries, so a user had
# to guess them from the output. Every key the page shows in bold in its
# json paragraph (.B or .BR) must occur, and every key that occurs must be
# among them.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# A message (latency an object), a pair (with -m), a user event in a
# user event (a profile relative to it, with events and subsets).
cat >k.picl <<'T'
-3 -901 0 0 0 0
-3 1 1 0 0 0
-3 2 2 0 0 0
-3 -21 3 0 0 3 2 8 1 1
-4 -21 4 0 0 0
-4 2 5 0 0 0
-4 1 6 0 0 0
-4 -901 7 0 0 0
-3 -901 0 1 0 0
-3 -52 1 1 0 0
-4 -52 5 1 0 3 2 8 1 0
-4 -901 7 1 0 0
T
run "$PT" stat --format=json -m k.picl
expect_rc 0
python3 - "$TMP/out" "$PICL_SRCDIR/man/picltrace-stat.1" <<'PY' || fail "json keys and picltrace-stat(1) disagree"
import json, re, sys
out, page = sys.argv[1], open(sys.argv[2]).read()
para = page[page.index(".B json:\n"):page.index("Undefined statistics are null.")]
documented = set()
for line in para.split("\n")[1:]:
    m = re.match(r"\.BR? ([a-z_]+)", line)
    if m:
        documented.add(m.group(1))
present = set()
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            present.add(k)
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
walk(json.load(open(out)))
if documented != present:
    print("undocumented:", sorted(present - documented), file=sys.stderr)
    print("documented, absent:", sorted(documented - present), file=sys.stderr)
    sys.exit(1)
PY
rm -f k.picl

#!/bin/sh
# picltrace sort of a mapped file, every way it keeps the times: the packed
# window moved, wide keys (six radix passes and five), a finer scale that
# makes them wide and another after it, a scale that would overflow (it
# then gives the trace to the copying sorter), CRLF lines, header records
# among events and no last newline; and with two readers (files of 8 MiB
# or more), the second reader's keys wide, the two halves too far apart
# for one window, only the second half with events, each half with the
# finer scale, one scale for both overflowing, nothing but comments past
# the middle. python3 works out each expected order with exact decimals:
# header records first in input order, then events stably by time. The
# external sort (--memory=1M) must give the same. PICLTRACE_SORT_TIMES
# tells whether the mapped sort did it and with how many readers.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

cd "$TMP"
cat >gen.py <<'PY'
# gen.py CASE OUT WANT: write trace OUT for CASE and WANT, its records
# sorted as the spec says (header records first, in input order; then
# event records stably by exact time), worked out with Python's Decimal.
import random, sys
from decimal import Decimal

case, out, want = sys.argv[1], sys.argv[2], sys.argv[3]
rnd = random.Random(case)
recs = []            # (text, ending)

def ev(t, ending="\n"):
    recs.append(("-3 -901 %s %d 0 0" % (t, rnd.randrange(4)), ending))

def hdr(i):
    recs.append(("-301 -1 %d -1 -1 5 0 h%04d" % (i, i % 10000), "\n"))

def ints(n, lo, hi):
    for _ in range(n):
        ev(str(rnd.randint(lo, hi)))

ROOM_SMALL = 2 ** (64 - 17)      # files of 64 KiB to 128 KiB
ROOM_BIG = 2 ** (64 - 24)        # files of 8 MiB to 16 MiB
BIG = 400000                     # records a big file: 8-16 MiB

if case == "move":               # the packed window moves
    ev("0")
    ints(2500, 0, ROOM_SMALL * 9 // 10)
elif case == "wide":             # wide keys, six radix passes
    ints(2500, -9 * 10 ** 17, 9 * 10 ** 17)
elif case == "wide-odd":         # wide keys, five passes
    ints(2500, 0, 2 ** 50)
elif case == "rescale-wide":     # a finer scale makes them wide, then finer
    ints(800, 0, ROOM_SMALL * 6 // 10)
    ev("7.5")
    ints(800, 0, ROOM_SMALL * 6 // 10)
    ev("3.25")
    for _ in range(800):
        ev("%d.%02d" % (rnd.randint(0, ROOM_SMALL), rnd.randrange(100)))
elif case == "rescale-overflow":  # gives up: the copying sorter sorts it
    ints(1500, 0, 9 * 10 ** 17)
    ev("0.25")
    ints(1000, 0, 10 ** 6)
elif case == "coarse-overflow":  # gives up too
    ev("0.25")
    ints(2500, 0, 9 * 10 ** 17)
elif case == "side":             # CRLF lines, headers among events, no last newline
    for i in range(2500):
        if i % 97 == 0:
            hdr(i)
        ev(str(rnd.randint(-10 ** 6, 10 ** 6)), "\r\n" if i % 7 == 0 else "\n")
    ev("0", "")
elif case == "join-wide":        # the second reader's keys are wide
    ints(BIG // 2, 0, 10 ** 9)
    ints(BIG // 2, -9 * 10 ** 17, 9 * 10 ** 17)
elif case == "join-apart":       # both packed, too far apart for one window
    ints(BIG // 2, 0, 10 ** 9)
    ints(BIG // 2, 5 * ROOM_BIG, 5 * ROOM_BIG + 10 ** 9)
elif case == "join-second":      # only the second reader has events
    for i in range(BIG // 2):
        hdr(i)
    ints(BIG // 2, 0, 10 ** 9)
elif case == "join-finer":       # the second half has the finer scale
    ints(BIG // 2, 0, 10 ** 6)
    for _ in range(BIG // 2):
        ev("%d.%03d" % (rnd.randint(0, 10 ** 6), rnd.randrange(1000)))
elif case == "join-coarser":     # the first half has it
    for _ in range(BIG // 2):
        ev("%d.%03d" % (rnd.randint(0, 10 ** 6), rnd.randrange(1000)))
    ints(BIG // 2, 0, 10 ** 6)
elif case == "join-overflow":    # one scale for both would overflow: gives up
    ints(BIG // 2, 0, 9 * 10 ** 17)
    for _ in range(BIG // 2):
        ev("%d.25" % rnd.randint(0, 10 ** 6))
elif case == "join-empty":       # nothing but comments past the middle
    ints(BIG // 2, 0, 10 ** 9)
    for i in range(BIG // 2):
        recs.append(("# a comment line, %08d, to fill the file" % i if i % 2 else "", "\n"))
else:
    sys.exit("gen.py: no case " + case)

data = "".join(text + ending for text, ending in recs).encode()
bits = len(data).bit_length()
if case.startswith("join-") and bits != 24 or case in ("move", "wide-odd", "rescale-wide") and bits != 17:
    sys.exit("gen.py: %s: %d bytes, not the size the case is for" % (case, len(data)))
with open(out, "wb") as f:
    f.write(data)

def is_record(text):
    return text.strip() != "" and not text.lstrip().startswith("#")

rows = [r[0] for r in recs if is_record(r[0])]
heads = [r for r in rows if -399 <= int(r.split()[0]) <= -301]
events = [r for r in rows if not -399 <= int(r.split()[0]) <= -301]
events.sort(key=lambda r: Decimal(r.split()[2]))   # stable
with open(want, "w", newline="") as f:
    for r in heads + events:
        f.write(r + "\n")
PY

# case MAPPED READERS: MAPPED 1 when the mapped sort must do it (0 when it
# gives up), READERS 2 when a second reader must take the second half.
check() {
  c=$1
  python3 gen.py "$c" "$c.picl" "$c.want" || fail "$c: gen.py"
  cp "$c.picl" "$c.orig"
  run env PICLTRACE_SORT_TIMES=1 "$PT" sort -q -o "$c.out" "$c.picl"
  expect_rc 0
  cmp -s "$c.out" "$c.want" || fail "$c: not in the order worked out with exact decimals"
  mapped=$(grep -c '^picltrace sort: read ' "$TMP/err" || true)
  [ "$mapped" -eq "$2" ] || fail "$c: the mapped sort did it: $mapped, expected $2"
  two=$(grep -c 'first reader done' "$TMP/err" || true)
  [ "$two" -eq $(($3 - 1)) ] || fail "$c: two readers: $two, expected $(($3 - 1))"
  run "$PT" sort -q --memory=1M --tmpdir="$TMP" -o "$c.ext" "$c.picl"
  expect_rc 0
  cmp -s "$c.ext" "$c.want" || fail "$c: the external sort's order differs"
  cmp -s "$c.picl" "$c.orig" || fail "$c: the input changed"
  rm -f "$c.picl" "$c.orig" "$c.want" "$c.out" "$c.ext"
  cases=$((cases + 1))
}

cases=0
check move 1 1
check wide 1 1
check wide-odd 1 1
check rescale-wide 1 1
check rescale-overflow 0 1
check coarse-overflow 0 1
check side 1 1
check join-wide 1 2
check join-apart 1 2
check join-second 1 2
check join-finer 1 2
check join-coarser 1 2
check join-overflow 0 2
check join-empty 1 2
echo "PASS: $cases kinds of time ranges sorted as exact decimals order them"

#!/bin/sh
# run-sort-merge.sh - sort and merge side by side with their peers, on the
# same inputs, in one run (figures for issue 3; see bench/README.md).
#
#   sort  of a >= 2 GB unsorted trace   vs  LC_ALL=C sort -s -t' ' -k3,3g
#   sort  of the same with --memory = a third of its size (external sort)
#   merge of 64 sorted per-node files   vs  LC_ALL=C sort -m -s -t' ' -k3,3g
#                                       and otfmerge on the same events as OTF
#
# Each command runs under /usr/bin/time (wall seconds, peak RSS); outputs are
# compared byte for byte with the peer's. Needs the build in $BUILD (default
# ../_build) with `make bench` done; the otfmerge row also needs otf-trace
# and libopen-trace-format-dev (./bootstrap bench-deps, then configure and
# make bench again for picl2otf), and is skipped, saying so, without them.
# Work files go to $BENCH_DIR (default /tmp/picl-bench): ~12 GB of disk.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$here/../_build}
BUILD=$(cd "$BUILD" && pwd)   # absolute: the work happens in $DIR
DIR=${BENCH_DIR:-/tmp/picl-bench}
SIZE=${SIZE:-2G}
PT="$BUILD/picltrace/picltrace"
GEN="$BUILD/bench/gen-trace"
P2O="$BUILD/bench/picl2otf"
mkdir -p "$DIR"
cd "$DIR"

measure() { # LABEL CMD... : prints "LABEL seconds peakKB"
  label=$1; shift
  /usr/bin/time -f "%e %M" -o "$DIR/.time" "$@"
  set -- $(cat "$DIR/.time")
  printf '%-34s %8.2f s %9d KB\n' "$label" "$1" "$2"
  echo "$label $1 $2" >>"$DIR/results.txt"
}

: >"$DIR/results.txt"
[ -f unsorted.picl ] || "$GEN" --seed 42 --procs 64 --size "$SIZE" --unsorted -o unsorted.picl
bytes=$(stat -c %s unsorted.picl)
records=$(wc -l <unsorted.picl)
echo "input: unsorted.picl, $bytes bytes, $records records, 64 processors"
sync

echo "== sort"
measure "picltrace sort" "$PT" sort -q -T "$DIR" -o ours.sorted unsorted.picl
measure "GNU sort -s -k3,3g" env LC_ALL=C sort -s -t' ' -k3,3g -T "$DIR" -o gnu.sorted unsorted.picl
cmp ours.sorted gnu.sorted && echo "identical order"
third=$((bytes / 3))
measure "picltrace sort --memory=size/3" "$PT" sort -q -T "$DIR" --memory=$third -o ours.ext unsorted.picl
cmp ours.sorted ours.ext && echo "external sort identical ($third bytes of memory)"
rm -f gnu.sorted ours.ext

echo "== merge"
rm -rf parts && mkdir parts
awk '{ f = sprintf("parts/p%03d.picl", $4 + 1); print > f }' ours.sorted
nparts=$(ls parts | wc -l)
echo "$nparts per-node files"
measure "picltrace merge --no-header" "$PT" merge -q --no-header -o ours.merged parts/*.picl
measure "picltrace merge (with header)" "$PT" merge -q -o ours.merged.h parts/*.picl
measure "GNU sort -m -s -k3,3g" env LC_ALL=C sort -m -s -t' ' -k3,3g -o gnu.merged parts/*.picl
cmp ours.merged gnu.merged && echo "identical order"
events=0
if [ -x "$P2O" ] && command -v otfmerge >/dev/null 2>&1; then
  rm -rf otf && mkdir otf
  events=$("$P2O" ours.sorted otf/t)
  echo "OTF: $events events in $(ls otf/*.events | wc -l) streams"
  measure "otfmerge -n 1" otfmerge -n 1 -o otf/m otf/t.otf
else
  echo "otfmerge skipped: no $P2O or no otfmerge (./bootstrap bench-deps)"
fi
rm -f gnu.merged ours.merged.h

echo "== rates"
python3 - "$DIR/results.txt" "$records" "$events" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    *label, secs, kb = line.split()
    rows[" ".join(label)] = (float(secs), int(kb))
records, events = int(sys.argv[2]), int(sys.argv[3])
def ratio(a, b):
    return rows[b][0] / rows[a][0] if rows[a][0] else float("inf")
print(f"sort:  GNU sort / picltrace sort = {ratio('picltrace sort', 'GNU sort -s -k3,3g'):.1f}x")
print(f"merge: GNU sort -m / picltrace merge = {ratio('picltrace merge --no-header', 'GNU sort -m -s -k3,3g'):.1f}x")
m = rows['picltrace merge --no-header'][0]
line = f"merge: picltrace {records / m / 1e6:.2f} M records/s" if m else "merge: picltrace too fast to time"
if 'otfmerge -n 1' in rows:
    o = rows['otfmerge -n 1'][0]
    line += f"; otfmerge {events / o / 1e6:.2f} M events/s" if o else "; otfmerge too fast to time"
print(line)
PY

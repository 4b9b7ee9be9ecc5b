#!/bin/sh
# bench/run-sort-merge.sh as bench/README.md runs it (BUILD=_build, a path
# relative to where it is started), on a small trace: it must find the
# build although it works in $BENCH_DIR, sort and merge in the same order
# as GNU sort, and go without the OTF peer when that is not installed.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

[ -x /usr/bin/time ] || { echo "SKIP: no /usr/bin/time (Debian package time)"; exit 77; }

top=$(cd "$PICL_BUILDDIR/.." && pwd)
rel=$(basename "$PICL_BUILDDIR")
# 4M: the external sort's --memory is a third of the input, at least 1M
run sh -c 'cd "$1" && BUILD="$2" BENCH_DIR="$3" SIZE=4M sh "$4"' sh \
  "$top" "$rel" "$TMP/bench" "$PICL_SRCDIR/bench/run-sort-merge.sh"
expect_rc 0
n=$(grep -c '^identical order$' "$TMP/out") || true
[ "$n" -eq 2 ] || { cat "$TMP/out" "$TMP/err"; fail "sort and merge: $n of 2 outputs in GNU sort's order"; }
grep -q '^external sort identical' "$TMP/out" || { cat "$TMP/out"; fail "external sort differs"; }
grep -q '^merge: picltrace' "$TMP/out" || { cat "$TMP/out" "$TMP/err"; fail "no rates"; }

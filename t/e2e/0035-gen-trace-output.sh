#!/bin/sh
# bench/gen-trace -o FILE: a regular file is written through a temporary
# file renamed into place, but a FIFO or a device (/dev/null) is written
# where it is, never replaced by a regular file. (Run as root, renaming
# onto /dev/null replaced the machine's /dev/null.) Tested on a FIFO in
# $TMP, so that a regression cannot harm /dev/null.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

command -v mkfifo >/dev/null || { echo "SKIP: no mkfifo"; exit 77; }

# a regular file: complete, and no temporary file left beside it
run "$GEN" --procs 3 --records 2000 -o "$TMP/reg.picl"
expect_rc 0
"$GEN" --procs 3 --records 2000 > "$TMP/want.picl"
cmp "$TMP/reg.picl" "$TMP/want.picl" || fail "gen-trace -o FILE differs from standard output"
[ -z "$(ls "$TMP" | grep '\.tmp')" ] || fail "a temporary file was left: $(ls "$TMP")"

# a FIFO: still a FIFO afterwards, and its reader got the whole trace
mkfifo "$TMP/fifo"
timeout 20 cat "$TMP/fifo" > "$TMP/fromfifo" &
reader=$!
run timeout 20 "$GEN" --procs 3 --records 2000 -o "$TMP/fifo"
[ -p "$TMP/fifo" ] || { kill "$reader" 2>/dev/null || true; fail "gen-trace -o FIFO replaced the FIFO by a regular file"; }
expect_rc 0
wait "$reader" || fail "the FIFO's reader failed"
cmp "$TMP/fromfifo" "$TMP/want.picl" || fail "the FIFO's reader got other bytes"
[ -z "$(ls "$TMP" | grep '\.tmp')" ] || fail "a temporary file was left: $(ls "$TMP")"

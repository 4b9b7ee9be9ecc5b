#!/bin/sh
# A command asked for zstd output refuses to write it to a terminal
# (picltrace(1)), whatever name the terminal goes by: "-", /dev/fd/1,
# /proc/self/fd/2 or /dev/stderr, not only "-" and /dev/stdout. Run under
# script(1), which gives the commands a pseudo-terminal (skipped without
# util-linux's script). Plain text to the terminal, and zstd to a pipe
# named /dev/fd/1, are still written.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

if ! command -v script >"$TMP/which" 2>&1 ||
   ! script -qc true "$TMP/probe" </dev/null >"$TMP/probe.out" 2>&1; then
  echo "SKIP: no script(1) to give a terminal"
  exit 77
fi
cat >"$TMP/t.picl" <<'T'
-3 -21 0.1 0 0 3 2 8 1 1
-4 -21 0.2 0 0 0
T
# on_tty CMD: run CMD (a shell command) on a pseudo-terminal; what it
# wrote there is in $TMP/tty (the typescript).
on_tty() {
  rm -f "$TMP/tty"
  script -qc "$1" "$TMP/tty" </dev/null >"$TMP/script.out" 2>&1 || true
}
# zstd's magic number, 28 b5 2f fd, anywhere in a file
has_zstd() {
  od -An -tx1 "$1" | tr -d ' \n' | grep -q 28b52ffd
}
for o in - /dev/fd/1 /proc/self/fd/2 /dev/stderr; do
  for c in cat sort filter; do
    on_tty "\"$PT\" $c -z -o $o \"$TMP/t.picl\"; echo \"rc=\$?\""
    grep -q 'refusing to write zstd-compressed data to a terminal' "$TMP/tty" ||
      fail "$c -z -o $o on a terminal: no refusal: $(cat "$TMP/tty")"
    grep -q 'rc=2' "$TMP/tty" || fail "$c -z -o $o on a terminal: exit status not 2"
    has_zstd "$TMP/tty" && fail "$c -z -o $o wrote zstd data to the terminal"
  done
done
# still written: plain text to the terminal, zstd into a pipe
on_tty "\"$PT\" cat -o /dev/fd/1 \"$TMP/t.picl\"; echo \"rc=\$?\""
grep -q -- '-4 -21 0.2 0 0 0' "$TMP/tty" || fail "plain text to the terminal not written"
on_tty "\"$PT\" cat -z -o /dev/fd/1 \"$TMP/t.picl\" | od -An -tx1 | tr -d ' \\n'; echo; echo \"rc=\$?\""
grep -q 28b52ffd "$TMP/tty" || fail "zstd into a pipe not written: $(cat "$TMP/tty")"
echo "PASS: zstd-to-terminal checks"

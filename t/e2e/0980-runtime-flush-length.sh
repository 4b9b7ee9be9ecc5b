#!/bin/sh
# 0980-runtime-flush-length.sh - the -912 exit's "length in bytes" (spec
# Table 13: traceflush, exit, 1 "%d" field) is what the flush wrote, in
# each of tracenode's buffer modes. A traceflush of a full buffer (a
# stopped one, flush 0; a wrapped ring, flush -1) wrote the buffer, then
# its -912 entry, and said only the entry's 27 bytes.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

cd "$TMP"
cat >flush.c <<'EOS'
#include <picl.h>
#include <stdlib.h>
/* flush.c MODE: a small buffer in tracenode mode MODE, filled past its
 * end, then traceflush. */
int main(int argc, char **argv)
{
	int np, me, host, k;

	tracenode(4608, argc > 1 ? atoi(argv[1]) : 1, 0);
	open0(&np, &me, &host);
	for (k = 0; k < 150; k++)
		tracemark(k);
	traceflush();
	tracemark(1);
	close0(0);
	return 0;
}
EOS
picl_cc flush flush.c

# bytes of the part since the last flush (or its start), up to and with
# the -912 entry, against the length of the -912 exit that follows
cat >check.awk <<'EOS'
{ acc += length($0) + 1 }
$1 == -3 && $2 == -912 { want = acc; acc = 0; pending = 1; next }
$1 == -4 && $2 == -912 && pending {
  n++
  if ($6 != 1 || $7 != 2 || $8 != want) {
    printf "line %d: -912 exit \"%s\", the flush wrote %d bytes\n", NR, $0, want
    bad++
  }
  pending = 0
}
END { if (n == 0) print "no -912 exit"; exit (bad || n == 0) }
EOS

for mode in 1 0 -1; do
  rm -f part.picl
  run env PICL_TRACE_PART=part.picl ./flush $mode
  expect_rc 0
  validate_ok part.picl
  run awk -f check.awk part.picl
  [ "$rc" -eq 0 ] || fail "mode $mode: $(cat "$TMP/out")"
  # the -103 volume of -912 is the sum of the lengths
  sum=$(awk '$1 == -4 && $2 == -912 { s += $8 } END { print s + 0 }' part.picl)
  vol=$(awk '$1 == -103 && $2 == -1 { for (i = 8; i < NF; i += 2) if ($i == -912) print $(i + 1) }' part.picl)
  [ "$vol" = "$sum" ] || fail "mode $mode: -103 volume of -912 '$vol', the exits say $sum"
done

#!/bin/sh
# 0910-runtime-identity.sh - piclrun's trace says what it is: its -301
# header record names the command run, the number of processes (and the
# host program), the machine and the time (merge --identity); and it names
# no trace parts (-306) that piclrun removes: only with --keep-parts, and
# then each names a part that is there.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup
export TMPDIR="$TMP/tmp"
before=$(date -u +%s)

run "$RUN" -n 3 -o ring.picl "$EX/ring" 4
expect_rc 0
id=$(grep '^-301 ' ring.picl) || fail "no -301 record"
[ "$(grep -c '^-301 ' ring.picl)" = 1 ] || fail "several -301 records"
case "$id" in
"-301 -1 "*" -1 -1 "*" 0 $EX/ring 4 on 3 local processes (piclrun, host $(hostname), "*" UTC)") ;;
*) fail "the -301 record: $id" ;;
esac
# the time is the run's (UTC), to the second
when=$(printf '%s\n' "$id" | sed 's/.*, \([0-9-]* [0-9:]*\) UTC)$/\1/')
at=$(date -u -d "$when" +%s) || fail "no time in: $id"
[ "$at" -ge "$before" ] && [ "$at" -le "$(date -u +%s)" ] ||
  fail "the time $when is not the run's"
grep -q '^-306 ' ring.picl && fail "-306 records name removed parts: $(grep '^-306 ' ring.picl)"
grep -q '^-307 -1 .* 3 2 0 1 2$' ring.picl || fail "the processors' record is gone"
run "$PT" validate --max-errors=0 ring.picl
expect_rc 0

# with the host program
run "$RUN" -n 2 --host "$EX/host" -o host.picl "$EX/node"
expect_rc 0
grep -q "^-301 .* 0 $EX/node on 2 local processes and the host program $EX/host (piclrun, host " host.picl ||
  fail "the host program not named: $(grep '^-301 ' host.picl)"

# --keep-parts: the parts stay, and the -306 records name them
run "$RUN" -n 2 --keep-parts -o kept.picl "$EX/ring"
expect_rc 0
[ "$(grep -c '^-306 ' kept.picl)" = 2 ] || fail "not a -306 record per kept part"
for part in $(grep '^-306 ' kept.picl | sed 's/^-306 -1 [^ ]* -1 -1 [0-9]* 0 //'); do
  [ -s "$part" ] || fail "-306 names $part, which is not there"
done
rm -rf tmp/piclrun.*
[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"
echo "PASS: $ntest piclrun identity checks"

#!/bin/sh
# 0902-runtime-trace-lost.sh - a process whose trace file cannot be opened
# goes on untraced (picl(3)), but the run is not a good one: piclrun names
# the process and exits with status 1 (it exited 0, with the processes'
# records missing from the trace or no trace at all). The others' trace is
# merged, marked partial.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup
TF="$PICL_BUILDDIR/t/rt/trace-files"
export TMPDIR="$TMP/tmp"

# every process names a file in a directory that does not exist
run "$RUN" -n 2 -o lost.picl "$TF" nodir/x
expect_rc 1
grep -q "^picl: cannot open trace file nodir/x: No such file or directory" "$TMP/err" ||
  fail "no message from the processes: $(cat "$TMP/err")"
for p in 0 1; do
  grep -q "^piclrun: process $p could not write all of its trace$" "$TMP/err" ||
    fail "process $p not reported: $(cat "$TMP/err")"
done
[ ! -e lost.picl ] || fail "a trace was written from nothing"

# one process's file is fine, the other's (a directory) is not: the good
# one's records are merged, the trace says it is partial and why
mkdir adir
cat >both.sh <<EOF2
#!/bin/sh
if [ "\$PICL_RANK" = 1 ]; then exec "$TF" adir; else exec "$TF" good.picl; fi
EOF2
chmod +x both.sh
run "$RUN" -n 2 -o lost.picl ./both.sh
expect_rc 1
grep -q "^piclrun: process 1 could not write all of its trace$" "$TMP/err" ||
  fail "process 1 not reported: $(cat "$TMP/err")"
grep -q "process 0" "$TMP/err" && fail "process 0 reported: $(cat "$TMP/err")"
grep -q "^-7 .* piclrun: partial trace: process 1 could not write all of its trace$" lost.picl ||
  fail "no -7 record saying why the trace is partial"
run "$PT" validate --partial --max-errors=0 lost.picl
expect_rc 0
[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"
echo "ok"

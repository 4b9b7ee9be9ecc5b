#!/bin/sh
# 0615-runtime-piclrun.sh - what a user of piclrun meets around a run: a
# failed merge (the command it prints merges exactly this run's parts), a
# picltrace that cannot be run, a reused --parts-dir, a program that
# changes directory, piclrun interrupted. Small runs of examples/ring and
# examples/noclose, each bounded by timeout(1).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

PICL_TRACE_CLOCK=monotonic; export PICL_TRACE_CLOCK
RUN="$PICL_BUILDDIR/picl-rt/piclrun"
EX="$PICL_BUILDDIR/examples"
cd "$TMP"

procs() {  # FILE: the processors that traced, as "0 1 ..."
  awk '$1 == -3 && $2 == -901 { print $4 }' "$1" | sort -n | tr '\n' ' '
}

# a picltrace that runs but fails: the merge fails after the run
cat >failing-picltrace <<'EOS'
#!/bin/sh
echo "failing-picltrace: no" >&2
exit 1
EOS
chmod +x failing-picltrace

# the merge command printed after a failed merge names this run's parts,
# not whatever else is in a reused --parts-dir (DIR/*.picl took the parts
# 2 and 3 of an earlier run on 4 processes); names with spaces are quoted
mkdir "parts dir"
run timeout 60 "$RUN" -n 4 --keep-parts --parts-dir "parts dir" -o four.picl "$EX/ring" 3
expect_rc 0
run env PICL_PICLTRACE="$TMP/failing-picltrace" timeout 60 "$RUN" -n 2 \
  --parts-dir "parts dir" -o "two procs.picl" "$EX/ring" 3
expect_rc 2
cmd=$(sed -n 's/^  picltrace merge /merge /p' "$TMP/err")
[ -n "$cmd" ] || fail "no merge command given: $(cat "$TMP/err")"
eval "run \"\$PT\" $cmd"
expect_rc 0
[ "$(procs "two procs.picl")" = "0 1 " ] ||
  fail "the merge command took other parts: $(procs "two procs.picl"): $cmd"
validate_ok "two procs.picl"
# ... and the extra part of a failed run, which says the trace is partial
rm -rf "parts dir"
run env PICL_PICLTRACE="$TMP/failing-picltrace" timeout 60 "$RUN" -n 2 \
  --timeout 1 --deadlock=report --parts-dir pd -o block.picl "$EX/noclose" block
expect_rc 1
cmd=$(sed -n 's/^  picltrace merge /merge /p' "$TMP/err")
eval "run \"\$PT\" $cmd"
expect_rc 0
grep -q -- "^-7 -1 .*piclrun: partial trace: timeout" block.picl ||
  fail "the merge command left out the partial part: $cmd"
rm -rf pd

# a PICL_PICLTRACE that cannot be run is refused before the program runs
# (it used to be found out at the merge, the run lost): not there, not
# executable, a directory, a name not on PATH
touch notexec
mkdir adir
for pt in /nonexistent "$TMP/notexec" "$TMP/adir" no-such-picltrace; do
  run env PICL_PICLTRACE="$pt" timeout 60 "$RUN" -n 2 --parts-dir pt.parts -o pt.picl "$EX/ring" 3
  expect_rc 2
  head -1 "$TMP/err" | grep -q "^piclrun: PICL_PICLTRACE=$pt: cannot run it to merge the trace parts: " ||
    fail "PICL_PICLTRACE=$pt: $(cat "$TMP/err")"
  [ ! -s "$TMP/out" ] && [ ! -e pt.parts ] && [ ! -e pt.picl ] ||
    fail "PICL_PICLTRACE=$pt: the program was run"
done
# ... and so is a piclrun with no picltrace beside it nor on PATH
mkdir solo
cp "$RUN" solo/piclrun
run env PATH=/usr/bin:/bin timeout 60 solo/piclrun -n 2 --parts-dir pt.parts -o pt.picl "$EX/ring" 3
expect_rc 2
expect_err <<EOS
piclrun: picltrace, which merges the trace parts, is not beside piclrun nor on PATH; name it in PICL_PICLTRACE
EOS
[ ! -s "$TMP/out" ] && [ ! -e pt.parts ] || fail "no picltrace: the program was run"
# ... and one found on PATH is taken, as the merge runs it (execvp)
mkdir bin
ln -s "$PT" bin/my-picltrace
run env PATH="$TMP/bin:$PATH" PICL_PICLTRACE=my-picltrace timeout 60 "$RUN" -n 2 -o path.picl "$EX/ring" 3
expect_rc 0
validate_ok path.picl

# a reused --parts-dir: the parts an earlier run left there are not taken
# for this run's (a program that traced nothing got the old run's trace),
# nor are the files its processes listed (tracefiles: the first process
# to open such a file would not empty it, taking it for shared)
run timeout 60 "$RUN" -n 2 --keep-parts --parts-dir reused -o old.picl "$EX/ring" 3
expect_rc 0
printf '#!/bin/sh\necho untraced\n' >untraced
chmod +x untraced
run timeout 60 "$RUN" -n 2 --parts-dir reused -o new.picl ./untraced
expect_rc 0
[ ! -e new.picl ] || fail "a run that traced nothing has the old parts' trace: $(procs new.picl)"
TF="$PICL_BUILDDIR/t/rt/trace-files"
run timeout 60 "$RUN" -n 2 --keep-parts --parts-dir reused -o tf1.picl "$TF" "$TMP/own.picl"
expect_rc 0
n1=$(wc -l <own.picl)
run timeout 60 "$RUN" -n 2 --keep-parts --parts-dir reused -o tf2.picl "$TF" "$TMP/own.picl"
expect_rc 0
[ "$(wc -l <own.picl)" = "$n1" ] || fail "own.picl: $n1 lines, then $(wc -l <own.picl) after a second run"
validate_ok tf2.picl
rm -rf reused

# a program that changes directory still writes its part where piclrun
# looks for it, with a relative --parts-dir or TMPDIR (the processes were
# given the relative name: they could not write their parts)
mkdir sub rtmp
printf '#!/bin/sh\ncd sub && exec "%s/ring" 3\n' "$EX" >cd-ring
chmod +x cd-ring
run timeout 60 "$RUN" -n 2 --parts-dir relparts -o cd1.picl ./cd-ring
expect_rc 0
[ "$(procs cd1.picl)" = "0 1 " ] || fail "--parts-dir relparts, chdir: $(cat "$TMP/err")"
run env TMPDIR=rtmp timeout 60 "$RUN" -n 2 -o cd2.picl ./cd-ring
expect_rc 0
[ "$(procs cd2.picl)" = "0 1 " ] || fail "TMPDIR=rtmp, chdir: $(cat "$TMP/err")"
[ -z "$(ls -A sub)$(ls -A rtmp)" ] || fail "files left: $(ls -A sub rtmp)"
rm -rf relparts

# -z without -o: trace.picl.zst (zstd under the plain name trace.picl
# was a file no name told apart); -o NAME.zst without -z: compressed too
mkdir zdir
run sh -c 'cd zdir && exec timeout 60 "$1" -n 2 -z "$2/ring" 3' sh "$RUN" "$EX"
expect_rc 0
[ -f zdir/trace.picl.zst ] && [ ! -e zdir/trace.picl ] || fail "-z: wrote $(ls zdir)"
[ "$(head -c 4 zdir/trace.picl.zst | od -An -tx1 | tr -d ' ')" = 28b52ffd ] ||
  fail "-z: trace.picl.zst is not zstd"
run timeout 60 "$RUN" -n 2 -o zdir/named.zst "$EX/ring" 3
expect_rc 0
[ "$(head -c 4 zdir/named.zst | od -An -tx1 | tr -d ' ')" = 28b52ffd ] ||
  fail "-o named.zst: not zstd"
"$PT" cat zdir/named.zst >zdir/named.picl
[ "$(procs zdir/named.picl)" = "0 1 " ] || fail "-o named.zst: $(cat "$TMP/err")"
rm -rf zdir

# piclrun interrupted (SIGTERM, SIGHUP, SIGINT sent to piclrun alone)
# while its processes wait: it stops the run as --timeout does, names the
# signal, still merges what was traced, leaves nothing behind (SIGHUP used
# to kill it, leaving its temporary parts dir) and exits with 128 + the
# signal's number, as a shell reports a command killed by it
mkdir sigtmp
for sig in TERM HUP INT; do
  TMPDIR="$TMP/sigtmp" timeout 60 "$RUN" -n 2 --deadlock=report -o sig$sig.picl "$EX/noclose" block \
    >sig.out 2>sig.err &
  rpid=$!
  n=0
  while [ "$n" -lt 100 ] && [ "$(pgrep -P "$rpid" | wc -l)" -lt 2 ]; do
    sleep 0.1; n=$((n + 1))
  done
  sleep 0.5         # the processes are in recv0
  # (timeout(1) runs piclrun as its child)
  ppid=$(pgrep -P "$rpid")
  kill -$sig $ppid
  rc=0; wait "$rpid" || rc=$?
  want=$((128 + $(kill -l $sig)))
  [ "$rc" = "$want" ] || fail "SIG$sig: exit status $rc, expected $want: $(cat sig.err)"
  grep -q "^piclrun: interrupted by SIG$sig: process 0 still blocked waiting for a message" sig.err ||
    fail "SIG$sig: $(cat sig.err)"
  grep -q -- "^-7 -1 .*piclrun: partial trace: interrupted by SIG$sig" sig$sig.picl ||
    fail "SIG$sig: no partial trace"
  validate_ok sig$sig.picl --partial
  [ -z "$(ls -A sigtmp)" ] || fail "SIG$sig: left in TMPDIR: $(ls -A sigtmp)"
  ! ls /dev/shm/piclrun.$ppid.* >/dev/null 2>&1 || fail "SIG$sig: left in /dev/shm"
done

# a program that is there but cannot be run (here its #! interpreter is
# missing) is reported once, as a program that cannot be run (status 2),
# not as N processes that failed; the processes already started are
# stopped, nothing is merged or left behind
printf '#!/nonexistent/interpreter\n' >badinterp
chmod +x badinterp
mkdir bitmp
run env TMPDIR="$TMP/bitmp" timeout 60 "$RUN" -n 3 -o bi.picl ./badinterp
expect_rc 2
expect_err <<EOS
piclrun: ./badinterp: cannot run it: No such file or directory (is its #! interpreter or ELF loader missing?)
EOS
[ ! -e bi.picl ] && [ -z "$(ls -A bitmp)" ] || fail "badinterp: files left: $(ls -A bitmp)"
run env TMPDIR="$TMP/bitmp" timeout 60 "$RUN" -n 2 --host ./badinterp -o bi.picl "$EX/node"
expect_rc 2
expect_err <<EOS
piclrun: ./badinterp: cannot run it: No such file or directory (is its #! interpreter or ELF loader missing?)
EOS
[ ! -e bi.picl ] && [ -z "$(ls -A bitmp)" ] || fail "badinterp host: files left: $(ls -A bitmp)"

# a run in which no process traced writes no trace; an -o left from an
# earlier run is said to be so (it looked like this run's trace)
run timeout 60 "$RUN" -n 2 -o stale.picl "$EX/ring" 3
expect_rc 0
run timeout 60 "$RUN" -n 2 -o stale.picl ./untraced
expect_rc 0
expect_err <<EOS
piclrun: no process wrote a trace; stale.picl is left as it was
EOS
# a trace asked for by name and not written is said to be so (validate
# then said only that it could not open it); with the default name, a
# program that does not trace is told nothing
run timeout 60 "$RUN" -n 2 -o none.picl ./untraced
expect_rc 0
expect_err <<EOS
piclrun: no process wrote a trace (none called tracenode): nothing written to none.picl
EOS
[ ! -e none.picl ] || fail "untraced: none.picl written"
run timeout 60 "$RUN" -n 2 ./untraced
expect_rc 0
[ ! -s "$TMP/err" ] && [ ! -e trace.picl ] || fail "untraced, default name: $(cat "$TMP/err")"

# PICL_RING_SIZE: a decimal power of two from 4096 to 1 GiB; anything
# else is said and the default used (trailing text and hex were taken)
for rs in 8192abc 0x2000 2048 2147483648; do
  run env PICL_RING_SIZE=$rs timeout 60 "$RUN" -n 2 -o rs.picl "$EX/ring" 3
  expect_rc 0
  grep -q "^piclrun: PICL_RING_SIZE must be a power of two from 4096 to 1073741824" "$TMP/err" ||
    fail "PICL_RING_SIZE=$rs not refused: $(cat "$TMP/err")"
done
run env PICL_RING_SIZE=8192 timeout 60 "$RUN" -n 2 -o rs.picl "$EX/ring" 3
expect_rc 0
[ ! -s "$TMP/err" ] || fail "PICL_RING_SIZE=8192: $(cat "$TMP/err")"

# getopt's own messages name piclrun, not the path it was started by
run "$RUN" --bogus ./untraced
expect_rc 2
[ "$(head -n 1 "$TMP/err")" = "piclrun: unrecognized option '--bogus'" ] ||
  fail "unknown option: $(head -n 1 "$TMP/err")"

echo "ok: $ntest runs"

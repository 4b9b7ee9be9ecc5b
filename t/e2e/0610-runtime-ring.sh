#!/bin/sh
# 0610-runtime-ring.sh - examples/ring, master-worker and stencil under
# piclrun on 2 to 8 processes: each checks its own result (exit status 0),
# and the merged trace is accepted by `picltrace validate` and holds every
# processor's records. master-worker sends messages larger than a ring (the
# chunked path) and receives by any type; stencil uses sendbegin0,
# recvbegin0, recvstatus0 and recvend0; exchange has every node send
# 10 MiB to every other before receiving, also with the local backend's
# other ways of moving big messages (small frames, CMA, CMA refused).
# Where the parts go, an -o that cannot be written or names the program, a
# failed merge (the parts are kept), usage errors.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

# Record times from CLOCK_MONOTONIC, the clock clocksync0 measures: with
# trace.c's per-process TSC calibration, messages between processes on
# this machine can look received ~1 us before they were sent (tachyons).
PICL_TRACE_CLOCK=monotonic; export PICL_TRACE_CLOCK

RUN="$PICL_BUILDDIR/picl-rt/piclrun"
EX="$PICL_BUILDDIR/examples"
cd "$TMP"


check_trace() {  # FILE NPROCS
  validate_ok "$1"
  grep -q ' warning: ' "$TMP/out" "$TMP/err" && fail "validate $1: $(cat "$TMP/out" "$TMP/err")"
  got=$(awk '$1 == -3 && $2 == -901 { print $4 }' "$1" | sort -n | tr '\n' ' ')
  want=$(seq 0 $(($2 - 1)) | tr '\n' ' ')
  [ "$got" = "$want" ] || fail "$1: processors '$got', expected '$want'"
}

for n in 2 3 5 8; do
  run timeout 60 "$RUN" -n $n -o ring$n.picl "$EX/ring" 50
  expect_rc 0
  grep -q "token $((50 * n * (n - 1) / 2))" "$TMP/out" || fail "ring -n $n: $(cat "$TMP/out")"
  check_trace ring$n.picl $n
  # the example's own schema: its event 0 checked and named ("round")
  run "$PT" validate --max-errors=0 --schema="$PICL_SRCDIR/examples/ring.yaml" ring$n.picl
  expect_rc 0
  grep -q ' warning: ' "$TMP/out" "$TMP/err" && fail "validate --schema ring$n: $(cat "$TMP/out")"
  run "$PT" stat --summary --schema="$PICL_SRCDIR/examples/ring.yaml" ring$n.picl
  expect_rc 0
  grep -Eq '^  0 +round +[0-9.]+ +'$((50 * n))' ' "$TMP/out" ||
    fail "stat --schema ring$n does not name event 0 round: $(cat "$TMP/out")"

  run timeout 60 "$RUN" -n $n -o mw$n.picl "$EX/master-worker" 200 600000
  expect_rc 0
  grep -q "200 tasks" "$TMP/out" || fail "master-worker -n $n: $(cat "$TMP/out" "$TMP/err")"
  check_trace mw$n.picl $n

  run timeout 60 "$RUN" -n $n -z -o st$n.picl.zst "$EX/stencil" 48 20
  expect_rc 0
  grep -q "^stencil: 48x48" "$TMP/out" || fail "stencil -n $n: $(cat "$TMP/out" "$TMP/err")"
  check_trace_z() { zstd -dq -c "$1" >"$1.txt" && check_trace "$1.txt" "$2"; }
  if command -v zstd >/dev/null; then check_trace_z st$n.picl.zst $n; fi
  # its statistics records agree with its events (recvstatus0's -59, which
  # PICL only counts, is a note)
  run "$PT" stat --compare st$n.picl.zst
  expect_rc 0
  grep -q "^the statistics records agree with the events" "$TMP/out" ||
    fail "stat --compare st$n: $(cat "$TMP/out")"
done

# fewer tasks than workers (2 for 7): those without a task stop at once,
# and node 0 waits for no result from them (it counted them active and
# waited for ever: found at -n 128 with the default 100 tasks)
run timeout 30 "$RUN" -n 8 -o mwfew.picl "$EX/master-worker" 2 100000
expect_rc 0
grep -q "2 tasks" "$TMP/out" || fail "master-worker 2 tasks: $(cat "$TMP/out" "$TMP/err")"
check_trace mwfew.picl 8

# everybody sends 10 MiB to everybody before receiving: no deadlock
for n in 2 5; do
  run timeout 120 "$RUN" -n $n "$EX/exchange"
  expect_rc 0
done

# the local backend's other ways of moving a big message: frames of 64
# bytes (PICL_CHUNK), CMA for every message (PICL_CMA=1 PICL_CMA_MIN=1),
# and CMA refused by the receiver (PICL_CMA_BROKEN=1: the sender falls back
# to the ring); exchange checks every byte it gets
for e in PICL_CHUNK=64 "PICL_CMA=1 PICL_CMA_MIN=1" \
         "PICL_CMA=1 PICL_CMA_MIN=1 PICL_CMA_BROKEN=1"; do
  run env $e timeout 120 "$RUN" -n 3 "$EX/exchange" 3000000
  expect_rc 0
  run env $e timeout 60 "$RUN" -n 3 -o mwe.picl "$EX/master-worker" 50 600000
  expect_rc 0
  grep -q "50 tasks" "$TMP/out" || fail "master-worker ($e): $(cat "$TMP/out" "$TMP/err")"
  check_trace mwe.picl 3
done

# pingpong (the latency benchmark) runs, small and larger than a ring
run timeout 60 "$RUN" -n 2 "$EX/pingpong" 8 2000
expect_rc 0
grep -q "^pingpong: 8 bytes: " "$TMP/out" || fail "pingpong: $(cat "$TMP/out" "$TMP/err")"
run timeout 60 "$RUN" -n 3 "$EX/pingpong" 1000000 20
expect_rc 0

# the parts: kept with --keep-parts, in --parts-dir
run timeout 60 "$RUN" -n 3 --keep-parts --parts-dir parts -o kept.picl "$EX/ring" 5
expect_rc 0
for r in 0 1 2; do [ -s parts/part.$r.picl ] || fail "part $r not kept"; done
run timeout 60 "$RUN" -n 3 --parts-dir parts2 -o notkept.picl "$EX/ring" 5
expect_rc 0
[ ! -e parts2/part.0.picl ] || fail "parts kept without --keep-parts"
# ... and without --parts-dir, in a temporary directory piclrun names
mkdir -p "$TMP/tmpdir"
run env TMPDIR="$TMP/tmpdir" timeout 60 "$RUN" -n 2 --keep-parts -o kept2.picl "$EX/ring" 5
expect_rc 0
kept=$(sed -n 's/^piclrun: trace parts kept in //p' "$TMP/err")
case "$kept" in "$TMP/tmpdir/piclrun."*) ;; *) fail "kept parts not named: $(cat "$TMP/err")" ;; esac
for r in 0 1; do [ -s "$kept/part.$r.picl" ] || fail "part $r not kept in $kept"; done

# an -o that cannot be written is refused before the program runs (the
# run used to be lost at the merge): no directory, a directory, a
# directory that is not writable (unless root, who may write anyway)
mkdir -p adir ro
chmod a-w ro
for o in missing/x.picl adir ro/x.picl; do
  [ "$o" = ro/x.picl ] && [ -w ro ] && continue
  run timeout 60 "$RUN" -n 2 --parts-dir badout -o "$o" "$EX/ring" 3
  expect_rc 2
  grep -q "^piclrun: cannot write the trace to $o: " "$TMP/err" ||
    fail "-o $o: $(cat "$TMP/err")"
  [ ! -s "$TMP/out" ] && [ ! -e badout ] || fail "-o $o: the program was run"
done
chmod u+w ro

# ... and so is an -o naming the program or the host program, through a
# symbolic or a hard link too (the program became the trace)
cp "$EX/ring" r2
cp "$EX/host" h2
ln -s r2 r2sym
ln r2 r2hard
for o in r2 r2sym r2hard; do
  run timeout 60 "$RUN" -n 2 -o $o ./r2 3
  expect_rc 2
  grep -q "^piclrun: $o: the output is the program to run; refusing to overwrite it" "$TMP/err" ||
    fail "-o $o: $(cat "$TMP/err")"
  cmp -s r2 "$EX/ring" || fail "-o $o: the program was overwritten"
done
run timeout 60 "$RUN" -n 2 --host ./h2 -o h2 "$EX/node"
expect_rc 2
grep -q "^piclrun: h2: the output is the host program; refusing to overwrite it" "$TMP/err" ||
  fail "-o the host: $(cat "$TMP/err")"
cmp -s h2 "$EX/host" || fail "-o the host: the host program was overwritten"
# (a program found on PATH)
run env PATH="$TMP:$PATH" timeout 60 "$RUN" -n 2 -o r2 r2 3
expect_rc 2
cmp -s r2 "$EX/ring" || fail "-o a program on PATH: the program was overwritten"

# a merge that fails anyway keeps the parts and says how to merge them
# (a PICL_PICLTRACE that cannot be run at all is refused before the start:
# 0615)
printf '#!/bin/sh\necho "failing-picltrace: no" >&2\nexit 1\n' >failing-picltrace
chmod +x failing-picltrace
run env PICL_PICLTRACE="$TMP/failing-picltrace" timeout 60 "$RUN" -n 2 --parts-dir pfail -o pfail.picl "$EX/ring" 3
expect_rc 2
grep -q "^failing-picltrace: no" "$TMP/err" || fail "merge not run: $(cat "$TMP/err")"
grep -q "^piclrun: merging the trace parts into pfail.picl failed" "$TMP/err" ||
  fail "failed merge not reported: $(cat "$TMP/err")"
for r in 0 1; do [ -s pfail/part.$r.picl ] || fail "part $r not kept after a failed merge"; done
grep -q "^piclrun: the trace parts are kept in pfail" "$TMP/err" ||
  fail "kept parts not named: $(cat "$TMP/err")"
cmd=$(sed -n 's/^  picltrace merge /merge /p' "$TMP/err")
[ -n "$cmd" ] || fail "no merge command given: $(cat "$TMP/err")"
run "$PT" $cmd
expect_rc 0
validate_ok pfail.picl
# ... in the temporary directory piclrun names
rm -rf "$TMP/tmpdir" && mkdir "$TMP/tmpdir"
run env TMPDIR="$TMP/tmpdir" PICL_PICLTRACE="$TMP/failing-picltrace" timeout 60 "$RUN" -n 2 -o pfail2.picl "$EX/ring" 3
expect_rc 2
kept=$(sed -n 's/^piclrun: the trace parts are kept in \([^;]*\);.*/\1/p' "$TMP/err")
case "$kept" in "$TMP/tmpdir/piclrun."*) ;; *) fail "kept parts not named: $(cat "$TMP/err")" ;; esac
for r in 0 1; do [ -s "$kept/part.$r.picl" ] || fail "part $r not kept in $kept"; done

# usage errors: what is wrong comes first (the usage alone said nothing)
run "$RUN" "$EX/ring"
expect_rc 2
[ "$(head -1 "$TMP/err")" = "piclrun: -n N is required" ] || fail "no -n: $(cat "$TMP/err")"
grep -q "^usage: piclrun -n N " "$TMP/err" || fail "no -n: no usage: $(cat "$TMP/err")"
run "$RUN" -n 2
expect_rc 2
[ "$(head -1 "$TMP/err")" = "piclrun: no program given" ] || fail "no program: $(cat "$TMP/err")"
grep -q "^usage: piclrun -n N " "$TMP/err" || fail "no program: no usage: $(cat "$TMP/err")"
for n in 0 2000 4294967298 x; do
  run "$RUN" -n $n "$EX/ring"
  expect_rc 2
  expect_err <<EOF
piclrun: -n $n: the number of processes must be 1 to 1024
EOF
done
for t in 1.5 0 4294967297; do
  run "$RUN" -n 2 --timeout $t "$EX/ring"
  expect_rc 2
  expect_err <<EOF
piclrun: --timeout $t: give a whole number of seconds, 1 or more
EOF
done
run timeout 20 "$RUN" -n 2 ./no-such-program
expect_rc 2
[ "$(grep -c 'piclrun: ./no-such-program: No such file or directory' "$TMP/err")" = 1 ] ||
  fail "missing program not reported once: $(cat "$TMP/err")"
run timeout 20 "$RUN" -n 2 no-such-command-on-path
expect_rc 2
grep -q "no-such-command-on-path: command not found" "$TMP/err" || fail "$(cat "$TMP/err")"
run timeout 20 "$RUN" -n 2 .
expect_rc 2
# a program named without ./ is looked for on PATH only, as a shell does;
# when the current directory has it, the message says how to name it
cp "$EX/ring" ring-here
run timeout 20 "$RUN" -n 2 ring-here
expect_rc 2
expect_err <<EOF
piclrun: ring-here: command not found (not on PATH; the one in this directory is ./ring-here)
EOF
rm -f ring-here
echo "ok: $ntest runs"

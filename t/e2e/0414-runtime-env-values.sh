#!/bin/sh
# 0414-runtime-env-values.sh - a PICL_* setting with a value its man page
# does not allow (PICL_TRACE_CLOCK=bogus, PICL_CMA_MIN=-5, PICL_MPI_HOST=yes
# ...) is said, in PICL_RING_SIZE's words, and the default is used (env.h).
# They were ignored without a word, or read by atoi as another number, while
# a bad PICL_RING_SIZE was reported. piclrun checks those its processes
# read before the start and says each once; a program run alone, or a rank
# under mpirun, says each once. Good values are not said.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup
export TMPDIR="$TMP/tmp"
PROG="$PICL_BUILDDIR/t/rt/trace-alloc"

# piclrun: each once, in piclrun's name; the processes take the default
# (not compressed: PICL_TRACE_ZSTD=2 is not 1) and say nothing
run env PICL_TRACE_CLOCK=bogus PICL_CMA=yes PICL_CMA_MIN=-5 PICL_CMA_BROKEN=2 \
  PICL_CHUNK=99999999 PICL_TRACE_ZSTD=2 PICL_FAKE_CLOCK=1us PICL_RING_SIZE=5 \
  timeout 60 "$RUN" -n 2 -o t.picl "$PROG" 100000
expect_rc 0
expect_err <<'EOT'
piclrun: PICL_RING_SIZE must be a power of two from 4096 to 1073741824, in decimal; using the default
piclrun: PICL_CMA must be 0 or 1; using the default
piclrun: PICL_CMA_MIN must be a number of bytes from 0 to 2147483647, in decimal; using the default
piclrun: PICL_CMA_BROKEN must be 0 or 1; using the default
piclrun: PICL_CHUNK must be a number of bytes from 64 to 65520, in decimal; using the default
piclrun: PICL_TRACE_CLOCK must be monotonic; using the default
piclrun: PICL_TRACE_ZSTD must be 0 or 1; using the default
piclrun: PICL_FAKE_CLOCK must be a number of nanoseconds from 1 up, in decimal; using the default
EOT
head -c 2 t.picl | grep -q -- - || fail "$last: t.picl is not text"
validate_ok t.picl

# PICL_CMA_MIN=-5 as piclrun's only bad setting (atoi took it as -5, the
# local backend then ignored it), and numbers with more after them
for v in PICL_CMA_MIN=-5 PICL_CMA_MIN=1k PICL_CMA_MIN=' 7' PICL_CHUNK=63; do
  run env PICL_CMA=1 "$v" timeout 60 "$RUN" -n 2 -o t.picl "$PROG" 100000
  expect_rc 0
  [ "$(grep -c "^piclrun: ${v%%=*} must be a number of bytes from" "$TMP/err")" = 1 ] ||
    fail "$last: $(cat "$TMP/err")"
  grep -v "^piclrun: ${v%%=*} must be" "$TMP/err" | grep -q . && fail "$last: $(cat "$TMP/err")"
done

# good values: nothing said
run env PICL_TRACE_CLOCK=monotonic PICL_CMA=1 PICL_CMA_MIN=0 PICL_CMA_BROKEN=0 \
  PICL_CHUNK=64 PICL_TRACE_ZSTD=0 PICL_FAKE_CLOCK=1000 \
  timeout 60 "$RUN" -n 2 -o t.picl "$PROG" 100000
expect_rc 0
expect_err </dev/null
run env PICL_TRACE_ZSTD=1 timeout 60 "$RUN" -n 2 -o t.picl "$PROG" 100000
expect_rc 0
expect_err </dev/null

# alone: the tracing settings, each said once by the process (the fake
# clock read at the start and again by tracenode)
mkdir alone
run sh -c "cd alone && PICL_FAKE_CLOCK=-1 PICL_TRACE_CLOCK=tsc PICL_TRACE_ZSTD=yes exec timeout 60 '$PROG' 100000"
expect_rc 0
expect_err <<'EOT'
picl: PICL_FAKE_CLOCK must be a number of nanoseconds from 1 up, in decimal; using the default
picl: PICL_TRACE_CLOCK must be monotonic; using the default
picl: PICL_TRACE_ZSTD must be 0 or 1; using the default
EOT
head -c 2 alone/picltrace.0.picl | grep -q -- - || fail "$last: not text"
validate_ok alone/picltrace.0.picl

if command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1 &&
   [ -f "$PICL_BUILDDIR/picl-rt/.libs/libpicl-mpi.so" ]; then
  mpi_setup
  mpicc_picl "$TMP/alloc-mpi" "$PICL_SRCDIR/t/rt/trace-alloc.c"
  mkdir mpi
  cd mpi
  # every rank says each of libpicl-mpi's; PICL_MPI_HOST=yes is no host
  # (it was: "yes" is not 1), so both ranks are nodes
  run env PICL_MPI_HOST=yes PICL_MPI_SPLIT=off PICL_MPI_SEND_NOW=1k \
    PICL_MPI_DEADLOCK=yes PICL_MPI_TAG_UB=0 PICL_TRACE_CLOCK=bogus \
    timeout -k 5 60 $MPIRUN -x PICL_MPI_HOST -x PICL_MPI_SPLIT -x PICL_MPI_SEND_NOW \
    -x PICL_MPI_DEADLOCK -x PICL_MPI_TAG_UB -x PICL_TRACE_CLOCK -np 2 "$TMP/alloc-mpi" 100000
  expect_rc 0
  for l in "libpicl-mpi: PICL_MPI_HOST must be 0 or 1; using the default" \
      "libpicl-mpi: PICL_MPI_SPLIT must be 0 or 1; using the default" \
      "libpicl-mpi: PICL_MPI_SEND_NOW must be a number of bytes from 0 to 2147483647, in decimal; using the default" \
      "libpicl-mpi: PICL_MPI_DEADLOCK must be report; using the default" \
      "libpicl-mpi: PICL_MPI_TAG_UB must be a number from 1 to 2147483647, in decimal; using the default" \
      "picl: PICL_TRACE_CLOCK must be monotonic; using the default"; do
    [ "$(grep -cxF "$l" "$TMP/err")" = 2 ] || fail "$last: not twice: $l: $(cat "$TMP/err")"
  done
  [ "$(sort "$TMP/out")" = "node 0 ran
node 1 ran" ] || fail "$last: $(cat "$TMP/out")"
  run env PICL_MPI_HOST=0 PICL_MPI_SPLIT=1 PICL_MPI_SEND_NOW=0 PICL_MPI_DEADLOCK=report \
    PICL_MPI_TAG_UB=32767 timeout -k 5 60 $MPIRUN -x PICL_MPI_HOST -x PICL_MPI_SPLIT \
    -x PICL_MPI_SEND_NOW -x PICL_MPI_DEADLOCK -x PICL_MPI_TAG_UB -np 2 "$TMP/alloc-mpi" 100000
  expect_rc 0
  grep -q "PICL_" "$TMP/err" && fail "$last: $(cat "$TMP/err")"
  cd ..
else
  echo "note: no mpirun, mpicc or libpicl-mpi: the MPI runs were left out"
fi
echo "ok: $ntest runs"

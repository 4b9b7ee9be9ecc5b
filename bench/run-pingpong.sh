#!/bin/bash
# run-pingpong.sh - send0/recv0 ping-pong latency and bandwidth (8 B, 1 KiB,
# 64 KiB, 1 MiB, 4 MiB), side by side:
#   local     examples/pingpong of the build tree under piclrun -n 2
#             (libpicl, shared-memory backend; tracing off)
#   mpi       bench/mpi-pingpong.c (plain MPI_Send/MPI_Recv) under
#             mpirun -np 2
#   picl-mpi  examples/pingpong.c linked with the build's libpicl-mpi,
#             under mpirun -np 2 (tracing off)
# and then, for the sizes in ISIZES (default 8, 1 KiB, 64 KiB),
#   interleaved  bench/mpi-interleaved.c: raw MPI and libpicl-mpi in the
#             same two processes, in alternating blocks; the ratio of their
#             median blocks is steadier than that of separate runs.
#
#   BUILD=/tmp/b3 bench/run-pingpong.sh
#
# RUNS (default 5) runs of each program and size, the best kept (lowest
# latency; the bandwidth is that run's). WORK (/tmp/picl-pingpong): binaries.
# Goals (issue 4): local latency <= 1.5x MPI's, local bandwidth >= 80% of
# MPI's; picl-mpi within 5% of raw MPI.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:?set BUILD to a built tree}
BUILD=$(cd "$BUILD" && pwd)
RUNS=${RUNS:-5}
WORK=${WORK:-/tmp/picl-pingpong}
SIZES=${SIZES:-"8 1024 65536 1048576 4194304"}
mkdir -p "$WORK"
cd "$WORK"

RT="$BUILD/picl-rt/.libs"
LIBS="$RT:$BUILD/libpicl-trace/.libs"
MPIRUN="mpirun -np 2"
[ "$(id -u)" -ne 0 ] || MPIRUN="mpirun --allow-run-as-root -np 2"
set -x
mpicc -O2 -o mpi-pingpong "$SRC/bench/mpi-pingpong.c"
mpicc -O2 -I"$SRC/picl-rt" -o pingpong-mpi "$SRC/examples/pingpong.c" \
  -L"$RT" -lpicl-mpi -Wl,-rpath,"$LIBS"
mpicc -O2 -I"$SRC/picl-rt" -o mpi-interleaved "$SRC/bench/mpi-interleaved.c" \
  -L"$RT" -lpicl-mpi -Wl,-rpath,"$LIBS"
set +x
LOCAL="$BUILD/picl-rt/piclrun -n 2 $BUILD/examples/pingpong"

# iterations: about 0.1-0.6 s of ping-pong per run
iters() {
  case $1 in
    8|1024) echo 200000 ;;
    65536) echo 20000 ;;
    1048576) echo 1000 ;;
    *) echo 300 ;;
  esac
}

# best SIZE CMD...: "latency_us MBps" of the best of RUNS runs.
best() {
  local size=$1 r out; shift
  for r in $(seq "$RUNS"); do
    out=$("$@" "$size" "$(iters "$size")" | grep '^pingpong:')
    echo "$out" | sed 's/.*bytes: \([0-9.]*\) us one way, \([0-9.]*\) MB\/s/\1 \2/'
  done | sort -g | head -1
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A L M P
for s in $SIZES; do
  L[$s]=$(best "$s" $LOCAL)
  M[$s]=$(best "$s" $MPIRUN ./mpi-pingpong)
  P[$s]=$(best "$s" $MPIRUN ./pingpong-mpi)
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$WORK/trace.picl"

printf '\n| size | local us | MPI us | local/MPI lat | local MB/s | MPI MB/s | local/MPI bw | picl-mpi us | picl-mpi MB/s | picl-mpi/MPI lat | picl-mpi/MPI bw |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for s in $SIZES; do
  set -- ${L[$s]} ${M[$s]} ${P[$s]}
  awk -v s="$s" -v ll="$1" -v lb="$2" -v ml="$3" -v mb="$4" -v pl="$5" -v pb="$6" 'BEGIN{
    printf "| %s | %.3f | %.3f | %.2f | %.1f | %.1f | %.2f | %.3f | %.1f | %.3f | %.3f |\n",
      s, ll, ml, ll/ml, lb, mb, lb/mb, pl, pb, pl/ml, pb/mb }'
done
echo
ISIZES=${ISIZES:-"8 1024 65536"}
for s in $ISIZES; do
  case $s in 8|1024) n=50000 ;; *) n=$(( $(iters "$s") / 10 )) ;; esac
  $MPIRUN ./mpi-interleaved "$s" "$n" 20
done
echo
echo "goals: local/MPI lat <= 1.5, local/MPI bw >= 0.80; picl-mpi/MPI lat <= 1.05 and bw >= 0.95"

#!/bin/bash
# run-event-cost.sh - cost of one traced event (a traceblockbegin +
# traceblockend pair), side by side: PICL tracing on (default clock and
# PICL_TRACE_CLOCK=monotonic), PICL tracing off, OTF (OTF_Writer_writeEnter/
# Leave), an LTTng-UST tracepoint (3 ints) with a session recording.
#
#   BUILD=/tmp/b3 bench/run-event-cost.sh
#
# BUILD: a configured and built tree (libpicl in $BUILD/picl-rt/.libs,
# libpicl-trace in $BUILD/libpicl-trace/.libs). PAIRS (default 1000000)
# pairs a loop, REPS (5) loops a run (the program keeps the best), RUNS (3)
# runs a mode (the script keeps the best). WORK (/tmp/picl-event-cost):
# binaries and the traces. Needs gcc, pkg-config, libopen-trace-format-dev,
# liblttng-ust-dev and lttng-tools (lttng-sessiond is started here, in the
# foreground as a child, when none is running, and stopped at the end).
set -eu
SRC=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:?set BUILD to a built tree}
BUILD=$(cd "$BUILD" && pwd)
PAIRS=${PAIRS:-1000000}
REPS=${REPS:-5}
RUNS=${RUNS:-3}
WORK=${WORK:-/tmp/picl-event-cost}
CFLAGS=${CFLAGS:--std=gnu11 -O2 -Wall -Wextra}
mkdir -p "$WORK"
cd "$WORK"

LIBS="$BUILD/picl-rt/.libs:$BUILD/libpicl-trace/.libs"
set -x
gcc $CFLAGS -I"$SRC/../picl-rt" -o event-cost "$SRC/event-cost.c" \
  -L"$BUILD/picl-rt/.libs" -L"$BUILD/libpicl-trace/.libs" -lpicl -Wl,-rpath,"$LIBS"
gcc $CFLAGS -DWITH_OTF -o event-cost-otf "$SRC/event-cost.c" -lopen-trace-format
gcc $CFLAGS -DWITH_LTTNG -I"$SRC" -o event-cost-lttng "$SRC/event-cost.c" \
  "$SRC/lttng-tp.c" $(pkg-config --cflags --libs lttng-ust) -ldl
set +x

# best CMD...: the smallest ns/event of RUNS runs of CMD.
best() {
  local b="" x r
  for r in $(seq "$RUNS"); do
    x=$("$@" | awk '{print $NF}')
    if [ -z "$b" ] || awk -v a="$x" -v b="$b" 'BEGIN{exit !(a < b)}'; then b=$x; fi
  done
  echo "$b"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
off=$(best ./event-cost off "$PAIRS" "$REPS")
picl=$(best ./event-cost picl "$PAIRS" "$REPS")
piclm=$(PICL_TRACE_CLOCK=monotonic best ./event-cost picl "$PAIRS" "$REPS")
rm -f picltrace.0.picl
otf=$(best ./event-cost-otf otf "$PAIRS" "$REPS")
rm -f event-cost-otf.*
lttdis=$(best ./event-cost-lttng lttng "$PAIRS" "$REPS")

# LTTng with a session recording.
lttrec=""
SPID=""
if command -v lttng >/dev/null 2>&1; then
  if ! lttng list >/dev/null 2>&1; then
    lttng-sessiond --quiet >/dev/null 2>&1 &
    SPID=$!
    sleep 2
  fi
  rm -rf "$WORK/lttng-bench"
  if lttng create bench --output="$WORK/lttng-bench" >/dev/null &&
     lttng enable-event -u 'picl_bench:*' >/dev/null &&
     lttng start >/dev/null; then
    lttrec=$(best ./event-cost-lttng lttng "$PAIRS" "$REPS")
    lttng stop >/dev/null
    lttng destroy 2>&1 | grep -i -E 'discard|lost' || true
  fi
  rm -rf "$WORK/lttng-bench"
  [ -z "$SPID" ] || { kill "$SPID"; wait "$SPID" 2>/dev/null || true; }
fi
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"

printf '\n| mode | ns/event | ns/pair |\n|---|---:|---:|\n'
row() { printf '| %s | %s | %s |\n' "$1" "$2" "$(awk -v x="$2" 'BEGIN{printf "%.2f", 2*x}')"; }
row "PICL tracing on (default clock)" "$picl"
row "PICL tracing on (PICL_TRACE_CLOCK=monotonic)" "$piclm"
row "PICL tracing off (no tracenode)" "$off"
row "OTF writeEnter/writeLeave" "$otf"
if [ -n "$lttrec" ]; then
  row "LTTng-UST, session recording" "$lttrec"
fi
row "LTTng-UST, tracepoint disabled (not comparable)" "$lttdis"
echo
if [ -n "$lttrec" ]; then
  awk -v p="$picl" -v m="$piclm" -v l="$lttrec" 'BEGIN{
    printf "PICL/LTTng: %.3f (default clock), %.3f (monotonic); goal <= 0.5: %s / %s\n",
      p/l, m/l, (p/l <= 0.5 ? "met" : "NOT met"), (m/l <= 0.5 ? "met" : "NOT met") }'
else
  echo "PICL/LTTng: no LTTng session could record here; the disabled figure is not comparable"
fi

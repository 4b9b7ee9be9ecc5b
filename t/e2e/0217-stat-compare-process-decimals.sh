#!/bin/sh
# A recorded time agrees with the events within 10^-s per interval summed,
# s the decimals of its own process's timestamps (DESIGN.md, format
# decision 10), as picltrace validate has it. stat --compare took s from
# the finest timestamps of the whole trace: in a trace whose processes
# were traced with different clock resolutions, a coarse process's
# time one unit off was a difference, and a fine process's time of one
# unit was a pair "not recorded", both of which validate accepts.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# Processor 0: 2 decimals, open0 0.10 to 0.20 (0.10 s, one interval),
#   recorded $1: within 0.01 of 0.10 agrees.
# Processor 1: 6 decimals, open0 0.100000 s recorded $2 (within 0.000001
#   agrees); a system overhead (-602) of 0.000001 s (one unit: it may
#   have been 0) that its -101 leaves out, as PICL leaves out what it
#   measured as 0; its count is listed.
# Processor 2: 9 decimals, the trace's finest.
trace() {
  cat <<EOF
-3 -901 0.00 0 0 0
-3 -11 0.10 0 0 0
-4 -11 0.20 0 0 0
-4 -901 1.00 0 0 0
-101 -1 1.00 0 0 2 "%d%lf" -11 $1 -901 1.00
-102 -1 1.00 0 0 2 "%d%d" -11 1 -901 1
-3 -901 0.000000 1 0 0
-3 -11 0.100000 1 0 0
-4 -11 0.200000 1 0 0
-3 -602 0.300000 1 0 0
-4 -602 0.300001 1 0 0
-4 -901 1.000000 1 0 0
-101 -1 1.000000 1 0 2 "%d%lf" -11 $2 -901 1.000000
-102 -1 1.000000 1 0 3 "%d%d" -11 1 -602 1 -901 1
-3 -901 0.000000000 2 0 0
-4 -901 1.000000000 2 0 0
-101 -1 1.000000000 2 0 1 "%d%lf" -901 1.000000000
-102 -1 1.000000000 2 0 1 "%d%d" -901 1
EOF
}

# 2 + 2 values of processor 0, 2 + 3 of processor 1, 1 + 1 of 2.
for v in "0.11 0.100001" "0.09 0.099999" "0.10 0.100000"; do
  trace $v > t.picl
  validate_ok t.picl
  run "$PT" stat --compare t.picl
  expect_rc 0
  case $v in
  "0.10 0.100000")
    expect_out <<'EOF'
the statistics records agree with the events: 11 values compared
EOF
    ;;
  *)
    expect_out <<'EOF'
the statistics records agree with the events: 11 values compared
2 times differ by no more than the timestamps' resolution (0.01 to 0.000000001 s, by process) per interval summed
EOF
    ;;
  esac
done

# differs P0 P1: validate and stat --compare both refuse the trace with
# those recorded times; stat's output is standard input
differs() {
  trace "$1" "$2" > t.picl
  run "$PT" validate t.picl
  expect_rc 1
  run "$PT" stat --compare t.picl
  expect_rc 1
  expect_out
}

# Two units off is a difference at either resolution; so is a unit of
# processor 0's (0.01) on processor 1.
differs 0.12 0.100000 <<'EOF'
t.picl:5:32: processor 0, process 0, relative to -1: time of -11 open0: recorded 0.12, the events give 0.100000000
the statistics records differ from the events: 1 of 11 values
EOF
differs 0.10 0.110000 <<'EOF'
t.picl:13:36: processor 1, process 0, relative to -1: time of -11 open0: recorded 0.110000, the events give 0.100000000
the statistics records differ from the events: 1 of 11 values
EOF
rm -f t.picl

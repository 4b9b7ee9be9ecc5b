#!/bin/bash
# run-read.sh - how fast is reading a PICL trace? (run by hand, not in CI)
#
# Makes (once) a >= 1 GiB trace with gen-trace in a work directory, its zstd
# copy (zstd -1 -T2) and a 4x smaller trace, then runs side by side on the
# same files, each twice under GNU time, keeping the better time:
#
#   wc -l                     the speed of light: only finds newlines
#   baseline-fgets            fgets + strtok + strtol/strtod, every field
#   read-bench                libpicl-trace, every record's data decoded
#   read-bench --raw          libpicl-trace, six fixed fields only
#   read-bench --parallel     the same on every core (PICL_READ_PARALLEL)
#   read-bench --raw --parallel
#   PICL_SIMD=0 read-bench [--parallel]
#                             without the AVX-512 line reader (the same as
#                             above where the CPU has no AVX-512 VBMI2)
#   zstd -dc | wc -l          the speed of light for the compressed copy
#   read-bench FILE.zst       libpicl-trace decompressing and decoding
#   read-bench --parallel FILE.zst
#   read-bench (1/4 size)     peak memory must not grow with the input
#
# and prints a table: seconds, MB/s (10^6 bytes of trace text per second),
# peak RSS, and the time as a multiple of `wc -l` on the plain file.
#
# Environment:
#   BENCH_DIR   work directory (default /tmp/picl-bench); traces are kept
#               there and reused by later runs
#   BENCH_BIN   directory holding gen-trace, baseline-fgets, read-bench
#               (default: the directory of this script if they are there,
#               else ./bench, i.e. a build tree after `make bench`)
#   BENCH_SIZE  size of the big trace (default 1G; K/M/G are powers of 1024)
#   BENCH_SEED  gen-trace --seed (default 1)
#   BENCH_PROCS gen-trace --procs (default 64)
set -u

BENCH_DIR=${BENCH_DIR:-/tmp/picl-bench}
BENCH_SIZE=${BENCH_SIZE:-1G}
BENCH_SEED=${BENCH_SEED:-1}
BENCH_PROCS=${BENCH_PROCS:-64}
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${BENCH_BIN:-}" ]; then
	if [ -x "$here/read-bench" ]; then BENCH_BIN=$here; else BENCH_BIN=./bench; fi
fi
TIME=/usr/bin/time

die() { echo "run-read.sh: $*" >&2; exit 1; }

for p in gen-trace baseline-fgets read-bench; do
	[ -x "$BENCH_BIN/$p" ] || die "$BENCH_BIN/$p not found (make bench, or set BENCH_BIN)"
done
[ -x "$TIME" ] || die "GNU time ($TIME) is needed"
command -v zstd >/dev/null || die "zstd is needed"
mkdir -p "$BENCH_DIR" || die "cannot create $BENCH_DIR"

# Size suffix to bytes (K/M/G/T powers of 1024), for the small trace.
to_bytes() {
	local v=${1%[kKmMgGtT]*} s=${1#"${1%[kKmMgGtT]*}"}
	case $s in
	k*|K*) echo $((v << 10)) ;; m*|M*) echo $((v << 20)) ;;
	g*|G*) echo $((v << 30)) ;; t*|T*) echo $((v << 40)) ;; *) echo "$v" ;;
	esac
}
big_bytes=$(to_bytes "$BENCH_SIZE")
small_bytes=$((big_bytes / 4))

tag="s${BENCH_SEED}-p${BENCH_PROCS}"
big=$BENCH_DIR/trace-$tag-$BENCH_SIZE.picl
small=$BENCH_DIR/trace-$tag-$BENCH_SIZE-quarter.picl
zst=$big.zst

gen() { # file bytes
	if [ ! -s "$1" ]; then
		echo "generating $1 ..." >&2
		$TIME -f "  gen-trace: %e s %M KB" \
			"$BENCH_BIN/gen-trace" --seed "$BENCH_SEED" --procs "$BENCH_PROCS" \
			--size "$2" -o "$1" || die "gen-trace failed"
	fi
}
gen "$big" "$big_bytes"
gen "$small" "$small_bytes"
if [ ! -s "$zst" ]; then
	echo "compressing $zst ..." >&2
	$TIME -f "  zstd -1 -T2: %e s %M KB" zstd -q -1 -T2 -f -o "$zst.tmp" "$big" &&
		mv "$zst.tmp" "$zst" || die "zstd failed"
fi

size_of() { stat -c %s "$1"; }
bytes_big=$(size_of "$big")
bytes_small=$(size_of "$small")

# Bring the files into the page cache, so that the first run of the first
# tool does not pay for the disk and every tool reads from memory.
cat "$big" "$small" "$zst" >/dev/null

# Other work on the machine skews every figure: measure how busy the CPUs
# are (from /proc/stat, over 2 seconds) before and after, and say so.
busy() {
	local a b c d e f g h t1 i1 t2 i2
	read -r _ a b c d e f g h _ </proc/stat || { echo "?"; return; }
	t1=$((a + b + c + d + e + f + g + h)) i1=$((d + e))
	sleep 2
	read -r _ a b c d e f g h _ </proc/stat
	t2=$((a + b + c + d + e + f + g + h)) i2=$((d + e))
	echo $((100 - 100 * (i2 - i1) / (t2 - t1 > 0 ? t2 - t1 : 1)))
}
busy_before=$(busy)
[ "$busy_before" != "?" ] && [ "$busy_before" -ge 10 ] &&
	echo "run-read.sh: warning: the CPUs are $busy_before% busy with other work; figures will be noisy" >&2

out=$BENCH_DIR/out.$$
trap 'rm -f "$out".*' EXIT

# run KEY NAME BYTES CMD...: run twice under GNU time (for the peak RSS;
# its %e has only 2 decimals, so the wall time is taken around it with
# bash's microsecond clock), keep the better time and the larger RSS; the
# command's stdout goes to $out.KEY.
run() {
	local key=$1 name=$2 bytes=$3 i t0 t1 sec kb best_sec="" best_kb=""
	shift 3
	for i in 1 2; do
		t0=$EPOCHREALTIME
		$TIME -f '%e s %M KB' -o "$out.time" "$@" >"$out.$key" 2>"$out.err" ||
			{ cat "$out.err" >&2; die "$name failed"; }
		t1=$EPOCHREALTIME
		sec=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		kb=$(awk '{ print $3 }' "$out.time")
		echo "  $name: run $i: $(cat "$out.time") (wall $sec s)" >&2
		if [ -z "$best_sec" ] || awk "BEGIN{exit !($sec < $best_sec)}"; then
			best_sec=$sec
		fi
		if [ -z "$best_kb" ] || [ "$kb" -gt "$best_kb" ]; then best_kb=$kb; fi
	done
	ROWS+=("$name"$'\t'"$best_sec"$'\t'"$bytes"$'\t'"$best_kb")
}

ROWS=()
run wc "wc -l" "$bytes_big" wc -l "$big"
run base "baseline-fgets" "$bytes_big" "$BENCH_BIN/baseline-fgets" "$big"
run rb "read-bench" "$bytes_big" "$BENCH_BIN/read-bench" "$big"
run raw "read-bench --raw" "$bytes_big" "$BENCH_BIN/read-bench" --raw "$big"
run prb "read-bench --parallel" "$bytes_big" "$BENCH_BIN/read-bench" --parallel "$big"
run praw "... --raw --parallel" "$bytes_big" "$BENCH_BIN/read-bench" --raw --parallel "$big"
run nsrb "PICL_SIMD=0 read-bench" "$bytes_big" env PICL_SIMD=0 "$BENCH_BIN/read-bench" "$big"
run nsprb "... --parallel" "$bytes_big" env PICL_SIMD=0 "$BENCH_BIN/read-bench" --parallel "$big"
run zwc "zstd -dc | wc -l" "$bytes_big" sh -c 'zstd -dc "$1" | wc -l' sh "$zst"
run zrb "read-bench FILE.zst" "$bytes_big" "$BENCH_BIN/read-bench" "$zst"
run pzrb "... --parallel FILE.zst" "$bytes_big" "$BENCH_BIN/read-bench" --parallel "$zst"
run small "read-bench, 1/4 size" "$bytes_small" "$BENCH_BIN/read-bench" "$small"
run psmall "... --parallel, 1/4 size" "$bytes_small" "$BENCH_BIN/read-bench" --parallel "$small"

# The readers must agree with each other.
lines=$(awk '{print $1}' "$out.wc")
records=$(awk '{print $2}' "$out.rb")
[ "$lines" = "$records" ] || echo "WARNING: wc -l says $lines lines, read-bench $records records" >&2
cmp -s "$out.rb" "$out.zrb" ||
	echo "WARNING: read-bench differs on the plain and the zstd copy" >&2
for k in prb pzrb nsrb nsprb; do
	cmp -s "$out.rb" "$out.$k" ||
		echo "WARNING: read-bench ($k) differs from the serial reader" >&2
done

wc_sec=$(echo "${ROWS[0]}" | cut -f2)
echo
echo "trace: $big ($bytes_big bytes, $lines records; zstd -1: $(size_of "$zst") bytes)"
echo "small: $small ($bytes_small bytes)"
echo "CPUs busy with other work: $busy_before% before the runs, $(busy)% after"
echo "each command run twice; the better time is shown, peak RSS is the larger"
echo "MB/s = 10^6 bytes of trace text per second; x wc = seconds / wc -l seconds"
echo
printf '%-22s %8s %9s %10s %7s\n' tool seconds MB/s "peak RSS" "x wc"
printf '%-22s %8s %9s %10s %7s\n' ---- ------- ---- -------- ----
for row in "${ROWS[@]}"; do
	IFS=$'\t' read -r name sec bytes kb <<<"$row"
	awk -v n="$name" -v s="$sec" -v b="$bytes" -v k="$kb" -v w="$wc_sec" 'BEGIN {
		mbs = s > 0 ? b / s / 1e6 : 0
		x = w > 0 ? s / w : 0
		printf "%-22s %8.3f %9.1f %7.1f MB %7.1f\n", n, s, mbs, k / 1024, x
	}'
done
echo
echo "read-bench: $(cat "$out.rb")"
echo "baseline:   $(cat "$out.base")"

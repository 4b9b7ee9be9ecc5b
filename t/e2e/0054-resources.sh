#!/bin/bash
# picltrace --resources, and the defaults the commands take from what the
# process may use: --memory is a quarter of the least of physical memory,
# its memory cgroups' limits, ulimit -v and ulimit -d (at least 64M, or
# half of a usable memory below 128M); a file is read with one thread per
# CPU of the affinity mask (PICL_THREADS over it), not one per CPU online.
# A batch job or a container is held to far less than the node has: with a
# quarter of the node's memory, sort mapped a trace its job could not hold
# and paged for minutes. The expected values are worked out here from
# getconf, ulimit, the cgroup files and taskset, not taken from the output.
. "$(dirname "$0")/lib.sh"

MiB=$((1 << 20))

# The bytes on the line LABEL of $TMP/out, or "none" for "no limit".
value() {
  local line= l
  while IFS= read -r l; do
    case $l in "$1"*) line=$l ;; esac
  done <"$TMP/out"
  [ -n "$line" ] || fail "no line '$1' in: $(cat "$TMP/out")"
  case $line in
  *"no limit"*) echo none ;;
  *) sed -n 's/.*(\([0-9][0-9]*\) bytes).*/\1/p' <<<"$line" ;;
  esac
}

# The least of the limits given ("none" is no limit).
least() {
  local m=none v
  for v in "$@"; do
    [ "$v" = none ] && continue
    if [ "$m" = none ] || [ "$v" -lt "$m" ]; then m=$v; fi
  done
  echo "$m"
}

# The default --memory for a usable memory of $1 bytes.
default_of() {
  local q=$(($1 / 4))
  if [ $q -lt $((64 * MiB)) ]; then
    q=$(($1 / 2))
    [ $q -gt $((64 * MiB)) ] && q=$((64 * MiB))
  fi
  echo $q
}

# The memory lines of the last run agree with each other, with getconf,
# and with the limits given (bytes, or none): RLIMIT_AS, RLIMIT_DATA.
check_memory() {
  local phys cg as data usable
  phys=$(( $(getconf _PHYS_PAGES) * $(getconf PAGESIZE) ))
  [ "$(value 'physical memory:')" = "$phys" ] ||
    fail "physical memory: $(value 'physical memory:') against getconf's $phys"
  as=$(value 'ulimit -v (RLIMIT_AS):')
  data=$(value 'ulimit -d (RLIMIT_DATA):')
  [ "$as" = "$1" ] || fail "RLIMIT_AS: $as, expected $1"
  [ "$data" = "$2" ] || fail "RLIMIT_DATA: $data, expected $2"
  cg=$(value 'memory cgroup limit:')
  if [ "$cg" != none ]; then
    # the file it names holds it
    f=$(grep -F 'memory cgroup limit:' "$TMP/out" | sed 's/.*bytes): //')
    [ -r "$f" ] && [ "$(cat "$f")" = "$cg" ] || fail "cgroup limit $cg is not what $f holds"
  fi
  usable=$(least "$phys" "$cg" "$as" "$data")
  [ "$(value 'usable memory:')" = "$usable" ] ||
    fail "usable memory: $(value 'usable memory:'), expected $usable"
  [ "$(value 'default --memory:')" = "$(default_of "$usable")" ] ||
    fail "default --memory: $(value 'default --memory:'), expected $(default_of "$usable") of $usable"
}

run "$PT" --resources
expect_rc 0
check_memory "$( [ "$(ulimit -v)" = unlimited ] && echo none || echo $(( $(ulimit -v) * 1024 )))" \
  "$( [ "$(ulimit -d)" = unlimited ] && echo none || echo $(( $(ulimit -d) * 1024 )))"
ntest=$((ntest + 1))

# It is in picltrace --help, and refused after a command as any option is.
run "$PT" --help
grep -q -- "--resources" "$TMP/out" || fail "picltrace --help does not name --resources"
run "$PT" sort --resources
expect_rc 2

if [ -n "${ASAN_OPTIONS:-}" ]; then
  # the sanitizer's shadow memory does not fit under ulimit -v or -d
  echo "note: sanitizer build; the ulimit cases are not run"
else
  run bash -c 'ulimit -v 1048576 && exec "$1" --resources' sh "$PT"
  expect_rc 0
  check_memory $((1 << 30)) "$(value 'ulimit -d (RLIMIT_DATA):')"
  run bash -c 'ulimit -d 204800 && exec "$1" --resources' sh "$PT"
  expect_rc 0
  check_memory "$(value 'ulimit -v (RLIMIT_AS):')" $((200 * MiB))
  grep -q '^default --memory: *64M ' "$TMP/out" ||
    fail "a usable 200M does not give 64M: $(cat "$TMP/out")"
  run bash -c 'ulimit -d 102400 && exec "$1" --resources' sh "$PT"
  expect_rc 0
  check_memory "$(value 'ulimit -v (RLIMIT_AS):')" $((100 * MiB))
  grep -q '^default --memory: *50M ' "$TMP/out" ||
    fail "a usable 100M does not give half of it: $(cat "$TMP/out")"
  ntest=$((ntest + 3))

  # What it is for: sort with no --memory under ulimit -v 512M keeps to
  # the 128M default (runs on disk) and sorts as it does unlimited; it
  # used to take a quarter of the machine's memory and map the whole
  # trace.
  if [ -x /usr/bin/time ]; then
    "$GEN" --seed 9 --procs 32 --size 150M --unsorted -o "$TMP/big.picl"
    "$PT" sort -q -o "$TMP/free.sorted" "$TMP/big.picl" || fail "sort without a limit failed"
    run bash -c 'ulimit -v 524288 && exec /usr/bin/time -f %M -o "$1/peak" "$2" sort -q \
      --tmpdir="$1" -o "$1/held.sorted" "$1/big.picl"' sh "$TMP" "$PT"
    expect_rc 0
    peak=$(tail -n 1 "$TMP/peak")
    [ "$peak" -le 131072 ] || fail "sort under ulimit -v 512M peaked at $peak KB, over its 128M default"
    cmp "$TMP/free.sorted" "$TMP/held.sorted" || fail "sort under ulimit -v sorts differently"
    rm -f "$TMP/big.picl" "$TMP/free.sorted" "$TMP/held.sorted"
    ntest=$((ntest + 1))
  else
    echo "note: /usr/bin/time absent; sort under ulimit -v not measured"
  fi
fi

# CPUs: the affinity mask, not every CPU online.
run "$PT" --resources
online=$(getconf _NPROCESSORS_ONLN)
mine=$(nproc)   # the affinity mask's (coreutils)
grep -q "^CPUs this process may use: *$mine of $online online\$" "$TMP/out" ||
  fail "CPUs: $(grep CPUs "$TMP/out"), expected $mine of $online"
expect=$((mine > 8 ? 8 : mine))
grep -q "^threads reading a file: *$expect (one per CPU" "$TMP/out" ||
  fail "threads: $(grep threads "$TMP/out"), expected $expect"
run env PICL_THREADS=3 "$PT" --resources
grep -q "^threads reading a file: *3 (PICL_THREADS)" "$TMP/out" ||
  fail "PICL_THREADS=3: $(grep threads "$TMP/out")"
if command -v taskset >/dev/null && [ "$mine" -ge 2 ]; then
  first=$(taskset -c -p $$ | sed 's/.*: *//; s/[-,].*//')
  run taskset -c "$first" "$PT" --resources
  expect_rc 0
  grep -q "^CPUs this process may use: *1 of $online online\$" "$TMP/out" ||
    fail "taskset -c $first: $(grep CPUs "$TMP/out")"
  grep -q "^threads reading a file: *1 (one per CPU" "$TMP/out" ||
    fail "taskset -c $first: $(grep threads "$TMP/out")"
  ntest=$((ntest + 1))
else
  echo "note: one CPU (or no taskset): a smaller affinity mask not tried"
fi

# Where temporary files go, and the space free there (df's, to 0.1G).
run env TMPDIR="$TMP" "$PT" --resources
line=$(grep '^temporary files in:' "$TMP/out") || fail "no temporary files line"
case $line in
"temporary files in:         $TMP ("*"G free; \$TMPDIR, else /tmp; --tmpdir)") ;;
*) fail "TMPDIR=$TMP: $line" ;;
esac
free=$(sed 's/.*(\([0-9.]*\)G free.*/\1/' <<<"$line")
avail=$(df -B1 --output=avail "$TMP" | tail -n 1)
awk -v f="$free" -v a="$avail" 'BEGIN { d = f - a / 1073741824; exit !(d < 0.2 && d > -0.2) }' ||
  fail "free space ${free}G, df says $avail bytes"
run env TMPDIR="$TMP/none" "$PT" --resources
expect_rc 0
grep -q "^temporary files in: *$TMP/none (No such file or directory)\$" "$TMP/out" ||
  fail "a missing TMPDIR: $(grep temporary "$TMP/out")"
ntest=$((ntest + 1))

# A memory cgroup: a child of this shell's own, limited to 512M, with a
# child of its own allowed 1G; a process in the inner one is held to the
# outer's 512M, which --resources finds by walking up. Needs root and a
# memory controller this shell's cgroup may have children under (v1, or
# v2 with memory given to its children); else that part is skipped.
cg=
cg_cleanup() {
  [ -n "$cg" ] || return 0
  rmdir "$cg/inner" 2>/dev/null
  rmdir "$cg" 2>/dev/null
}
trap 'cg_cleanup; rm -rf "$TMP"' EXIT
mount_of() {   # FSTYPE [CONTROLLER]: mount point of a hierarchy shown from its root
  awk -v t="$1" -v c="${2:-}" '{
    for (i = 7; i <= NF && $i != "-"; i++) ;
    if ($(i + 1) != t || $4 != "/") next
    if (c != "" && $(i + 3) !~ ("(^|,)" c "(,|$)")) next
    print $5; exit }' /proc/self/mountinfo
}
parent= limit=
if [ "$(id -u)" = 0 ]; then
  path=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3; exit }' /proc/self/cgroup)
  mnt=$(mount_of cgroup memory)
  if [ -n "$path" ] && [ -n "$mnt" ]; then
    parent=$mnt${path%/}
    limit=memory.limit_in_bytes
  else
    path=$(sed -n 's/^0:://p' /proc/self/cgroup)
    mnt=$(mount_of cgroup2)
    if [ -n "$path" ] && [ -n "$mnt" ] &&
       grep -qw memory "$mnt${path%/}/cgroup.subtree_control" 2>/dev/null; then
      parent=$mnt${path%/}
      limit=memory.max
    fi
  fi
fi
if [ -n "$parent" ] && mkdir "$parent/picl-e2e.$$" 2>/dev/null; then
  cg=$parent/picl-e2e.$$
  mkdir "$cg/inner" || fail "cannot make $cg/inner"
  echo $((512 * MiB)) >"$cg/$limit" || fail "cannot limit $cg"
  echo $((1024 * MiB)) >"$cg/inner/$limit" || fail "cannot limit $cg/inner"
  run sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" --resources' sh "$cg/inner" "$PT"
  expect_rc 0
  grep -q "^memory cgroup limit: *512M (536870912 bytes): $cg/$limit\$" "$TMP/out" ||
    fail "in $cg/inner: $(cat "$TMP/out")"
  check_memory "$(value 'ulimit -v (RLIMIT_AS):')" "$(value 'ulimit -d (RLIMIT_DATA):')"
  [ "$(value 'default --memory:')" -le $((128 * MiB)) ] ||
    fail "default --memory in a 512M cgroup: $(value 'default --memory:')"
  ntest=$((ntest + 1))
else
  echo "note: no memory cgroup could be made here (not root, or no memory controller" \
    "for this cgroup's children); the cgroup case is not run"
fi

# Settings the commands take from the environment: a value they do not
# allow is said once and the default used (PICL_THREADS=bogus read
# serially without a word, PICL_SIMD=no kept the vector reader on).
run env PICL_THREADS=3 "$PT" --resources
expect_rc 0
grep -q '^threads reading a file: *3 (PICL_THREADS)$' "$TMP/out" || fail "PICL_THREADS=3: $(cat "$TMP/out")"
for v in bogus 0 2x +3; do
  run env PICL_THREADS=$v "$PT" --resources
  expect_rc 0
  expect_err <<'T'
picltrace: PICL_THREADS must be a number of threads from 1 up, in decimal; using the default
T
  grep -q "^threads reading a file: *$(awk -v n="$(nproc)" 'BEGIN { print (n > 8 ? 8 : n) }') (one per CPU" "$TMP/out" ||
    fail "PICL_THREADS=$v: $(cat "$TMP/out")"
done
printf -- '-3 -901 0 0 0 0\n' >"$TMP/one.picl"
run env PICL_SIMD=no PICL_THREADS=x "$PT" cat "$TMP/one.picl"
expect_rc 0
expect_err <<'T'
picltrace: PICL_THREADS must be a number of threads from 1 up, in decimal; using the default
picltrace: PICL_SIMD must be 0 or 1; using the default
T
expect_out <"$TMP/one.picl"

echo "$ntest cases"

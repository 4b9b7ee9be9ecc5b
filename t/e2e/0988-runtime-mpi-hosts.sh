#!/bin/sh
# libpicl-mpi across machines: a cluster of three "hosts" made on this
# machine out of Linux namespaces, each its own network namespace (a veth
# to a bridge in a fourth one, 10.77.0.N/24), hostname (UTS namespace),
# /tmp and run directory (mount namespace: the run directory has the same
# path on every host, as on a cluster whose nodes each have a local disk,
# with other contents) and CLOCK_MONOTONIC (time namespace: host N's is
# (N - 1) * 1000 s ahead), sharing only the network and the binaries.
# mpirun runs on host 1 and starts Open MPI's daemons on hosts 2 and 3
# through an "rsh agent" (this test's $TMP/bin/agent, standing for ssh:
# a fresh environment) that runs the daemon in that host's namespaces.
# Two ranks a host: messages between ranks on different hosts travel over
# TCP.
#
# Checked: each rank writes its trace part on its own host; the parts,
# collected from the three hosts, merge (--unsorted) into a trace whose
# records say the right processors, whose clocks clocksync0 aligned, that
# validate accepts but for tachyons (clocksync0 is as precise as a round
# trip: picl-mpi(7)) and, after picltrace sync, without any; the messages
# between hosts are matched with their lengths and types; a run whose
# ranks do not all have PICL_MPI_HOST stops with a message saying so; a
# PICL error on one host still gives PICL's message and a failing status.
#
# Open MPI's options (CLUSTER): needed, a hostfile (the hosts' addresses,
# two slots each), plm_rsh_agent (our agent instead of ssh) and, as root,
# --allow-run-as-root (mpi_setup; it covers the remote daemons too). Not
# needed here (each host has only lo and picl0), but what a real cluster
# with several networks wants: btl_tcp_if_include and oob_tcp_if_include
# with the cluster's network (the ranks' messages, the daemons' own
# connections); btl tcp,self sends even the messages between the ranks of
# one host over TCP, not shared memory; no tree spawn starts each daemon
# from host 1.
#
# Skipped unless root, `ip netns` and unshare work, and Open MPI (its
# mpirun: the options below are Open MPI's) with the MPI build of libpicl
# is there. The namespaces (and with them the veths) are removed at exit.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

mpi_setup
[ "$(id -u)" -eq 0 ] || { echo "SKIP: not root (network namespaces need it)"; exit 77; }
mpirun --version 2>&1 | grep -q 'Open MPI' ||
  { echo "SKIP: mpirun is not Open MPI's"; exit 77; }
for c in ip unshare nsenter hostname mount timeout; do
  command -v $c >"$TMP/out" 2>&1 || { echo "SKIP: $c not found"; exit 77; }
done

NH=3                      # hosts
SW="picl-sw-$$"           # the switch's namespace (a bridge)
NET=10.77.0
hostns() { echo "picl-h$1-$$"; }
made=
cleanup() {
  for ns in $made; do
    ip netns pids "$ns" 2>"$TMP/err" | xargs -r kill -9 2>"$TMP/err" || true
    ip netns del "$ns" 2>"$TMP/err" || true
  done
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

ip netns add "$SW" 2>"$TMP/err" ||
  { echo "SKIP: ip netns add refused: $(cat "$TMP/err")"; exit 77; }
made=$SW
unshare --uts --mount true 2>"$TMP/err" ||
  { echo "SKIP: unshare --uts --mount refused: $(cat "$TMP/err")"; exit 77; }
# Each host's CLOCK_MONOTONIC 1000 s ahead of the previous one's (a time
# namespace, Linux 5.6), else one clock for all (the test still runs).
CLOCKS=1
unshare --time --monotonic 1000 --fork true 2>"$TMP/err" || {
  echo "note: no time namespace ($(cat "$TMP/err")): the hosts share one clock"
  CLOCKS=0
}
ip -n "$SW" link set lo up
ip -n "$SW" link add br0 type bridge
ip -n "$SW" link set br0 up
i=1
while [ $i -le $NH ]; do
  ns=$(hostns $i)
  ip netns add "$ns"
  made="$made $ns"
  ip link add picl0 netns "$ns" type veth peer name port$i netns "$SW"
  ip -n "$SW" link set port$i master br0
  ip -n "$SW" link set port$i up
  ip -n "$ns" addr add $NET.$i/24 dev picl0
  ip -n "$ns" link set picl0 up
  ip -n "$ns" link set lo up
  i=$((i + 1))
done

# The hosts' private trees: on host N, $(dirname $TMP) is $TMP/hN, in which
# $TMP/bin (the programs) is bound; $TMP/run is then host N's own (empty)
# directory. /tmp too is private (it is $TMP/hN itself when $TMP is in
# /tmp, else a tmpfs).
B=$(basename "$TMP")
TOP=$(dirname "$TMP")
mkdir "$TMP/bin"
i=1
while [ $i -le $NH ]; do
  mkdir -p "$TMP/h$i/$B/bin" "$TMP/h$i/$B/run"
  i=$((i + 1))
done

# inhost N CMD: a shell command run on host N (in its namespaces, from the
# namespaces of this script's shell, which $TMP/bin/agent reaches again
# through nsenter: mpirun runs in host 1's mount namespace, where host 2's
# tree is out of sight).
cat >"$TMP/bin/inhost" <<EOF
#!/bin/sh
n=\$1
shift
clock=
[ $CLOCKS = 0 ] || clock="--time --monotonic \$((\$n * 1000 - 1000))"
exec nsenter --target $$ --mount ip netns exec picl-h\$n-$$ \\
  unshare --uts --mount --propagation private \$clock --fork --kill-child sh -c '
    hostname "picl-host\$0" &&
    mount --bind "$TMP/bin" "$TMP/h\$0/$B/bin" &&
    mount --rbind "$TMP/h\$0" "$TOP" &&
    { [ "$TOP" = /tmp ] || case "$TOP" in /tmp/*) ;; *) mount -t tmpfs picl /tmp;; esac; } &&
    cd "$TMP/run" && exec sh -c "\$1"' "\$n" "\$*"
EOF
# agent HOST CMD...: Open MPI's rsh agent (as `ssh HOST CMD`): host
# $NET.N is host N. As with ssh, CMD starts with a fresh environment, not
# mpirun's.
cat >"$TMP/bin/agent" <<EOF
#!/bin/sh
h=\$1
shift
case \$h in
$NET.[1-9]) n=\${h##*.} ;;
*) echo "agent: unknown host \$h" >&2; exit 255 ;;
esac
exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
  HOME="\$HOME" "$TMP/bin/inhost" "\$n" "\$*"
EOF
chmod +x "$TMP/bin/inhost" "$TMP/bin/agent"

# a hostfile: two slots a host
i=1
while [ $i -le $NH ]; do
  echo "$NET.$i slots=2"
  i=$((i + 1))
done >"$TMP/bin/hostfile"

CLUSTER="$MPIRUN --hostfile $TMP/bin/hostfile --mca plm_rsh_agent $TMP/bin/agent \
--mca plm_rsh_no_tree_spawn 1 --mca btl tcp,self --mca btl_tcp_if_include $NET.0/24 \
--mca oob_tcp_if_include $NET.0/24"

# cluster_run NAME S CMD: mpirun CMD on host 1, at most S seconds; the
# output in $TMP/out and $TMP/err, each host's run directory copied to
# $TMP/NAME/hN afterwards, and emptied.
cluster_run() {
  ntest=$((ntest + 1))
  cr_name=$1 cr_s=$2
  shift 2
  set +e
  timeout -k 5 "$cr_s" "$TMP/bin/inhost" 1 "$CLUSTER $*" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
  last="$cr_name: mpirun $*"
  [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "$last: the run hung"
  i=1
  while [ $i -le $NH ]; do
    mkdir -p "$TMP/$cr_name/h$i"
    cp -R "$TMP/h$i/$B/run/." "$TMP/$cr_name/h$i/"
    rm -rf "$TMP/h$i/$B/run"/*
    i=$((i + 1))
  done
}

# placed NAME NP MAP [R FILE]: each rank's part (picltrace.ID.picl, ID its
# PICL id; FILE for rank R) is on the host
# where MAP (node: round robin over the hosts, slot: two a host) put rank
# R, and on that host only; its records all say processor R (the host's:
# 32767, the last rank, with HOSTED=1); the parts merge into
# $TMP/NAME/merged.picl, which validate accepts without a warning. Writes
# $TMP/NAME/map, "R HOST" a line.
placed() {
  pl_dir="$TMP/$1" pl_np=$2 pl_map=$3
  pl_parts=
  r=0
  : >"$pl_dir/map"
  while [ $r -lt $pl_np ]; do
    if [ "$pl_map" = node ]; then h=$((r % NH + 1)); else h=$((r / 2 + 1)); fi
    id=$r
    [ "${HOSTED:-0}" = 1 ] && [ $r -eq $((pl_np - 1)) ] && id=32767
    part=picltrace.$id.picl
    [ "$r" = "${4:-}" ] && part=$5
    [ -s "$pl_dir/h$h/$part" ] ||
      fail "$1: rank $r's part is not on host $h: $(cd "$pl_dir" && ls -R)"
    [ "$(ls "$pl_dir"/h*/$part | wc -l)" -eq 1 ] ||
      fail "$1: rank $r's part $part is on more than one host"
    awk -v id=$id '$1 > -300 && $4 != id { print FILENAME ": " $0; exit 1 }' \
      "$pl_dir/h$h/$part" >&2 ||
      fail "$1: rank $r's part has records of another processor than $id"
    echo "$id $h" >>"$pl_dir/map"
    pl_parts="$pl_parts $pl_dir/h$h/$part"
    r=$((r + 1))
  done
  run "$PT" merge --unsorted -o "$pl_dir/merged.picl" $pl_parts
  expect_rc 0
  # Every host's clock is its own: the only violations allowed are
  # tachyons, which picltrace sync removes (see picl-mpi(7)).
  run "$PT" validate --max-errors=0 "$pl_dir/merged.picl"
  grep -v -e ': tachyon: message of type ' -e ' records, [0-9]* errors\{0,1\}, 0 warnings$' \
    "$TMP/out" >"$TMP/bad" && fail "$1: validate: $(head -5 "$TMP/bad")"
  [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "$last: exit status $rc: $(cat "$TMP/err")"
  run "$PT" sync --no-drift -q -o "$pl_dir/synced.picl" "$pl_dir/merged.picl"
  expect_rc 0
  validate_ok "$pl_dir/synced.picl"
  grep -q ' 0 errors, 0 warnings' "$TMP/out" || fail "$1: validate after sync: $(cat "$TMP/out")"
}

# aligned NAME: after clocksync0, the hosts' clocks (1000 s apart) agree:
# every record of $TMP/NAME/merged.picl is within 60 s of time 0.
aligned() {
  [ $CLOCKS = 1 ] || return 0
  awk '$1 > -300 && ($3 > 60 || $3 < -60) { print; exit 1 }' \
    "$TMP/$1/merged.picl" >"$TMP/bad" ||
    fail "$1: clocks not aligned by clocksync0: $(cat "$TMP/bad")"
}

# crossing NAME: the messages between processors on different hosts
# (sends -21 ... -50: "-3 EVENT TIME PROC 0 N 2 LENGTH TYPE TO ..."; the
# exits of receives, -51 ... -80: "-4 EVENT TIME PROC 0 N 2 LENGTH TYPE FROM") in $TMP/NAME/merged.picl:
# each source, destination and type's messages (broadcasts, to -1, are
# validate's) are received in the order
# sent with the lengths sent; at least one crossed. (The collectives'
# messages, which trace at level 3 only, are not in the trace.)
crossing() {
  awk 'FILENAME ~ /map$/ { host[$1] = $2; next }
       $1 == -3 && $2 <= -21 && $2 >= -50 && NF >= 10 {
         if ($10 < 0 || host[$4] == host[$10]) next
         k = $4 " " $10 " " $9; sent[k, ++ns[k]] = $8; n++
       }
       $1 == -4 && $2 <= -51 && $2 >= -80 && NF >= 10 {
         if (host[$4] == host[$10]) next
         k = $10 " " $4 " " $9; got[k, ++ng[k]] = $8
       }
       END {
         for (k in ns) {
           if (ng[k] != ns[k]) { print k ": " ns[k] " sent, " ng[k] + 0 " received"; bad = 1 }
           for (i = 1; i <= ns[k] && i <= ng[k]; i++)
             if (sent[k, i] != got[k, i]) {
               print k ": message " i ": " sent[k, i] " bytes sent, " got[k, i] " received"; bad = 1
             }
         }
         if (!n) { print "no message between hosts"; bad = 1 }
         exit bad
       }' "$TMP/$1/map" "$TMP/$1/merged.picl" >"$TMP/cross" ||
    fail "$1: $(head -5 "$TMP/cross")"
}

# ---- a ring, every neighbour on another host ---------------------------
mpicc_picl "$TMP/bin/ring" "$PICL_SRCDIR/examples/ring.c"
cluster_run ring 60 --map-by node -np 6 "$TMP/bin/ring" 3
expect_rc 0
grep -q 'token 45' "$TMP/out" || fail "$last: $(cat "$TMP/out")"
placed ring 6 node
aligned ring
crossing ring
grep -q '^-4 -401 ' "$TMP/ring/merged.picl" || fail "ring: no clocksync0"

# ---- Table 19 on 8 ranks: processor 6 writes the file "trace" ------------
mpicc_picl "$TMP/bin/table19" "$PICL_SRCDIR/examples/table19.c"
cluster_run t19 60 --map-by node -np 8 "$TMP/bin/table19"
expect_rc 0
placed t19 8 node 6 trace
aligned t19
crossing t19

# ---- a stencil, two ranks a host: the halos of 1-2 and 3-4 cross ---------
mpicc $SANFLAGS -I"$PICL_SRCDIR/picl-rt" -o "$TMP/bin/stencil" "$PICL_SRCDIR/examples/stencil.c" \
  -L"$RT/.libs" -lpicl-mpi -Wl,-rpath,"$RT/.libs" -lm || fail "mpicc stencil.c"
cluster_run stencil 60 -np 6 "$TMP/bin/stencil" 48 10
expect_rc 0
placed stencil 6 slot
aligned stencil
crossing stencil

# ---- every collective, traced ------------------------------------------
mpicc_picl "$TMP/bin/collectives" "$PICL_SRCDIR/examples/collectives.c"
cluster_run coll 60 --map-by node -np 5 "$TMP/bin/collectives" -q -t
expect_rc 0
placed coll 5 node
aligned coll

# ---- records written before open0 carry the rank on every host ----------
# (from OMPI_COMM_WORLD_RANK, which each host's daemon sets)
mpicc_picl "$TMP/bin/before-open" "$PICL_SRCDIR/t/rt/before-open.c"
cluster_run before 60 --map-by node -np 4 "$TMP/bin/before-open" flush
expect_rc 0
[ -z "$(ls "$TMP"/before/h*/picltrace.-1.picl 2>"$TMP/ls")" ] ||
  fail "before-open: a part of processor -1"
placed before 4 node

# ---- a host program (the last rank) and nodes on every host --------------
mpicc_picl "$TMP/bin/host" "$PICL_SRCDIR/examples/host.c"
mpicc_picl "$TMP/bin/node" "$PICL_SRCDIR/examples/node.c"
PICL_MPI_HOST=1
export PICL_MPI_HOST
HOSTED=1
# (-x in $MPIRUN goes to the first program only: a sanitizer build's
# ASAN_OPTIONS, which leaves Open MPI's leaks out, is given to each)
XSAN=
[ -z "${ASAN_OPTIONS:-}" ] || XSAN="-x ASAN_OPTIONS"
cluster_run host 60 --map-by node -x PICL_MPI_HOST -np 5 "$TMP/bin/node" : \
  $XSAN -x PICL_MPI_HOST -np 1 "$TMP/bin/host"
expect_rc 0
grep -q 'host 32767: 5 nodes, sum 100' "$TMP/out" || fail "$last: $(cat "$TMP/out")"
placed host 6 node
crossing host
HOSTED=0

# The same with -x before the first program only (as picl-mpi(7) once
# said): mpirun gives its own environment to the ranks on its own host
# only, and -x VAR to the ranks of that program; on one machine every rank
# had the variable. The host (rank 5, on host 3) took the run for
# hostless, the nodes not: the run waited for ever. It stops at once,
# saying what is missing.
cluster_run host-x 30 --map-by node -x PICL_MPI_HOST -np 5 "$TMP/bin/node" : \
  $XSAN -np 1 "$TMP/bin/host"
[ "$rc" -ne 0 ] || fail "$last: exit status 0"
grep -q '^libpicl-mpi: PICL_MPI_HOST is not the same on rank 5 as on rank 0 (1): .*mpirun -x PICL_MPI_HOST' "$TMP/err" ||
  fail "$last: $(cat "$TMP/err")"
unset PICL_MPI_HOST

# ---- a PICL error on host 2 ----------------------------------------------
# noclose's "short": rank 1 (on host 2) receives 64 bytes into 4; ranks 0
# and 2, on hosts 1 and 3, fail in their turn and write their parts.
mpicc_picl "$TMP/bin/noclose" "$PICL_SRCDIR/examples/noclose.c"
cluster_run short 60 --map-by node -np 3 "$TMP/bin/noclose" short
[ "$rc" -ne 0 ] || fail "$last: exit status 0"
grep -q "picl: process 1: recv0: message longer than the receive buffer (64)" "$TMP/err" ||
  fail "$last: $(cat "$TMP/err")"
for p in 0 2; do
  grep -q "picl: process $p: close0: no message can arrive any more (a process ended, failed or died)" "$TMP/err" ||
    fail "short: process $p did not fail in its turn: $(cat "$TMP/err")"
  part="$TMP/short/h$((p + 1))/picltrace.$p.picl"
  [ -s "$part" ] && grep -q '^-4 -901 ' "$part" ||
    fail "short: rank $p's part was not written on its host"
done

echo "ok: $ntest checks"

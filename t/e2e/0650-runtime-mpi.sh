#!/bin/sh
# libpicl-mpi under mpirun: the spec's Table 19 program on 8 ranks (its
# processor 6 must write what Table 20 shows, timestamps aside, and exactly
# what the local backend writes), a ring on 2, 3 and 4 ranks with megabyte
# messages sent both ways at once (no deadlock), a host program (the last
# rank, with PICL_MPI_HOST=1), every run's per-rank parts
# merged with `picltrace merge --unsorted` and accepted by validate.
#
# Skipped when mpirun, mpicc or the MPI build of libpicl are absent. The
# programs are compiled here with mpicc against the build tree (picl-cc
# --mpi points at the installed library, not at this tree). Every run is
# bounded by `timeout`.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

mpi_setup

# mpirun_in DIR NP PROG [ARG...]: run PROG on NP ranks in DIR, at most 120 s.
mpirun_in() {
  ntest=$((ntest + 1))
  run_dir=$1 run_np=$2
  shift 2
  set +e
  (cd "$run_dir" && timeout -k 10 120 $MPIRUN -np "$run_np" "$@") >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
  last="mpirun -np $run_np $*"
}

# view6 FILE: processor 6's records without what timing decides: the
# timestamp is dropped, decimal data (times) shown as T, -51 (the message
# was already there) counted as -52 (the call had to wait), the time
# statistics (-101) left out and of the count and volume statistics (-102,
# -103) only the record and event types kept: which times round to a
# positive microsecond (only those are listed, so a -101 record may be
# absent), the -51/-52 split and the bytes of text written (-901's volume)
# vary from run to run.
view6() {
  awk '$4 == 6 && $1 > -300 {
         ev = ($2 == -51 ? -52 : $2)
         if ($1 == -101) next
         if ($1 == -102 || $1 == -103) { print $1, ev; next }
         printf "%s %s", $1, ev
         for (i = 5; i <= NF; i++) {
           v = $i
           if (v ~ /^-?[0-9]*\.[0-9]*([eE][-+]?[0-9]+)?$/ && v ~ /[0-9]/) v = "T"
           if (v == "-51") v = "-52"
           printf " %s", v
         }
         printf "\n"
       }' "$1"
}

# merge_parts DIR: merge every trace part in DIR into DIR/merged.picl.
merge_parts() {
  set -- "$1" "$1"/*.picl "$1"/trace
  dir=$1; shift
  parts=
  for p in "$@"; do
    [ -f "$p" ] && [ "$p" != "$dir/merged.picl" ] && parts="$parts $p"
  done
  [ -n "$parts" ] || fail "no trace parts in $dir"
  run "$PT" merge --unsorted -o "$dir/merged.picl" $parts
  expect_rc 0
}

# ---- Table 19 on 8 ranks ----------------------------------------------
T19="$PICL_SRCDIR/examples/table19.c"
[ -f "$T19" ] || fail "$T19 absent"
mpicc_picl "$TMP/table19-mpi" "$T19"
mkdir "$TMP/t19"
mpirun_in "$TMP/t19" 8 "$TMP/table19-mpi"
expect_rc 0
[ -s "$TMP/t19/trace" ] || fail "table19: processor 6 wrote no file 'trace'"
merge_parts "$TMP/t19"
run "$PT" validate "$TMP/t19/merged.picl"
expect_rc 0

if [ -n "${SHARED:-}" ] && [ -f "$SHARED/spec/table20-example.picl" ]; then
  view6 "$SHARED/spec/table20-example.picl" >"$TMP/want20"
  view6 "$TMP/t19/merged.picl" >"$TMP/got20"
  diff -u "$TMP/want20" "$TMP/got20" >&2 ||
    fail "table19 under MPI: processor 6 differs from Table 20"
fi

# The same program over the local backend, if this build has piclrun.
if [ -x "$RT/piclrun" ] && [ -f "$RT/.libs/libpicl.so" ]; then
  ${CC:-cc} $SANFLAGS -I"$PICL_SRCDIR/picl-rt" -o "$TMP/table19-local" "$T19" \
    -L"$RT/.libs" -lpicl -Wl,-rpath,"$RT/.libs" || fail "cc $T19"
  mkdir "$TMP/t19l"
  ntest=$((ntest + 1))
  set +e
  (cd "$TMP/t19l" && timeout -k 10 120 "$RT/piclrun" -n 8 "$TMP/table19-local") \
    >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
  last="piclrun -n 8 table19"
  expect_rc 0
  # piclrun merged the parts and processor 6's own file 'trace' itself
  view6 "$TMP/t19l/trace.picl" >"$TMP/local6"
  view6 "$TMP/t19/merged.picl" >"$TMP/mpi6"
  [ -s "$TMP/local6" ] || fail "local backend: no records of processor 6"
  diff -u "$TMP/local6" "$TMP/mpi6" >&2 ||
    fail "table19: processor 6 differs between the local and MPI backends"
fi

# ---- a ring on 2, 3 and 4 ranks ----------------------------------------
# A token goes round three times (each node adds its id); then every node
# sends 1 MB to its right neighbour before receiving from its left one, so
# all of them are sending at once; and a small message goes round once.
# Both have types above MPI's guaranteed tag range (32767): on 3 ranks the
# run is repeated with PICL_MPI_TAG_UB=32767, so they (and PICL's internal
# messages, types >= 900000000) take the escaped path MPICH would need.
cat >"$TMP/ring.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "picl.h"

#define BIG (1 << 20)

int main(void)
{
	int np, me, host, i, round, token = 0, node;
	char *out = malloc(BIG), *in = malloc(BIG);

	tracenode(1 << 20, 1, 1);
	tracelevel(2, 2, 2);
	open0(&np, &me, &host);
	if (np < 2 || host != -1)
		return 2;
	for (round = 0; round < 3; round++) {
		if (me == 0) {
			send0((char *)&token, sizeof token, 7, 1);
			recv0((char *)&token, sizeof token, 7);
		} else {
			recv0((char *)&token, sizeof token, 7);
			token += me;
			send0((char *)&token, sizeof token, 7, (me + 1) % np);
		}
	}
	if (me == 0 && token != 3 * np * (np - 1) / 2) {
		fprintf(stderr, "ring: token %d\n", token);
		return 1;
	}
	memset(out, 'a' + me, BIG);
	traceblockbegin(1, 0, 0);
	send0(out, BIG, 40000, (me + 1) % np);
	recv0(in, BIG, 40000);
	traceblockend(1, 0, 0);
	/* (recvinfo0 would say the same, but it is counted in the statistics
	 * without a record, which validate does not accept yet.) */
	node = (me + np - 1) % np;
	if (in[0] != 'a' + node || in[BIG - 1] != 'a' + node) {
		fprintf(stderr, "ring: node %d: bad big message\n", me);
		return 1;
	}
	/* Each node passes on its own id: it receives its left neighbour's. */
	i = me;
	if (me == 0) {
		send0((char *)&i, sizeof i, 123456789, 1);
		recv0((char *)&i, sizeof i, 123456789);
	} else {
		recv0((char *)&i, sizeof i, 123456789);
		if (i == me - 1)
			i = me;
		send0((char *)&i, sizeof i, 123456789, (me + 1) % np);
	}
	if (i != (me == 0 ? np - 1 : me)) {
		fprintf(stderr, "ring: node %d: type 123456789 carried %d\n",
			me, i);
		return 1;
	}
	close0(0);
	free(out);
	free(in);
	return 0;
}
EOF
mpicc_picl "$TMP/ring" "$TMP/ring.c"
for name in 2 3 4 3e; do
  np=${name%e}
  dir="$TMP/ring$name"
  mkdir "$dir"
  plain_mpirun=$MPIRUN
  if [ "$name" = 3e ]; then
    PICL_MPI_TAG_UB=32767
    export PICL_MPI_TAG_UB
    MPIRUN="$MPIRUN -x PICL_MPI_TAG_UB"
  fi
  mpirun_in "$dir" "$np" "$TMP/ring"
  expect_rc 0
  MPIRUN=$plain_mpirun
  unset PICL_MPI_TAG_UB
  merge_parts "$dir"
  run "$PT" validate "$dir/merged.picl"
  expect_rc 0
  # Every node's records are there, and every node sent and received.
  for p in $(seq 0 $((np - 1))); do
    awk -v p="$p" '$4 == p && $1 == -3 && $2 == -21 { s++ }
                   $4 == p && $1 == -4 && ($2 == -51 || $2 == -52) { r++ }
                   END { exit !(s >= 5 && r >= 5) }' "$dir/merged.picl" ||
      fail "ring $name: node $p's sends and receives are not all traced"
  done
done

# ---- a host program: PICL_MPI_HOST=1 makes the last rank the host ------
# Every process first sends 1 MB to itself; then each node sends its id to
# the host, which answers each with the id negated.
cat >"$TMP/host.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include "picl.h"

static char big[1 << 20], got[1 << 20];

int main(void)
{
	int np, me, host, i, v, bytes, type, node;

	open0(&np, &me, &host);
	memset(big, 'x', sizeof big);
	send0(big, sizeof big, 3, me);
	recv0(got, sizeof got, 3);
	recvinfo0(&bytes, &type, &node);
	if (bytes != (int)sizeof big || node != me || got[12345] != 'x' ||
	    host != PICL_HOST || np != 3) {
		fprintf(stderr, "host: process %d of %d (host %d): bad start\n",
			me, np, host);
		return 1;
	}
	if (me == PICL_HOST) {
		for (i = 0; i < np; i++) {
			recv0((char *)&v, sizeof v, 1);
			recvinfo0(&bytes, &type, &node);
			if (v != node)
				return 1;
			v = -v;
			send0((char *)&v, sizeof v, 2, node);
		}
	} else {
		v = me;
		send0((char *)&v, sizeof v, 1, PICL_HOST);
		recv0((char *)&v, sizeof v, 2);
		if (v != -me)
			return 1;
	}
	close0(0);
	return 0;
}
EOF
mpicc_picl "$TMP/host" "$TMP/host.c"
mkdir "$TMP/host-run"
PICL_MPI_HOST=1
export PICL_MPI_HOST
plain_mpirun=$MPIRUN
MPIRUN="$MPIRUN -x PICL_MPI_HOST"
mpirun_in "$TMP/host-run" 4 "$TMP/host"
expect_rc 0
MPIRUN=$plain_mpirun
unset PICL_MPI_HOST

# ---- small sends, and recv0 straight into the caller's buffer --------
# Both ranks send each other 20000 small messages (MPI_Send's size: see
# SEND_NOW in mpi.c) before receiving any: no deadlock, and each source's
# messages come in the order they were sent.
cat >"$TMP/flood.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include "picl.h"
#define N 20000
int main(void)
{
	int np, me, host, i, k;
	static int msg[256];
	open0(&np, &me, &host);
	for (i = 0; i < N; i++) {
		for (k = 0; k < 256; k++)
			msg[k] = i;
		send0((char *)msg, 1000, 9, 1 - me);
	}
	for (i = 0; i < N; i++) {
		recv0((char *)msg, sizeof msg, 9);
		if (msg[0] != i || msg[249] != i) {
			fprintf(stderr, "flood: node %d: message %d is %d\n",
				me, i, msg[0]);
			return 1;
		}
	}
	close0(0);
	return 0;
}
EOF
mpicc_picl "$TMP/flood" "$TMP/flood.c"
mpirun_in "$TMP" 2 "$TMP/flood"
expect_rc 0
# Large and small messages of two types, from one source: recv0 of one
# type takes them in the order they were sent, the other type's big one
# waits in the queue. With PICL_MPI_SPLIT (the default under Open MPI), a
# message over 4 KiB travels under a tag of its own (SPLIT_OFF in mpi.c)
# and recv0 waits with a receive posted for its type, which a large message
# of that type found meanwhile cancels; with the receiver late ("late")
# everything has arrived before recv0; PICL_MPI_SPLIT=0: one tag per type,
# probe and MPI_Mrecv only.
cat >"$TMP/mix.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "picl.h"
static char big[200000], got[200000];
static const int size[5] = { 150000, 10, 50000, 4096, 4097 };
static const int type[5] = { 2, 1, 1, 1, 1 };
int main(int argc, char **argv)
{
	int np, me, host, i, k, bytes, t, node;
	int late = argc > 1 && strcmp(argv[1], "late") == 0;
	open0(&np, &me, &host);
	if (me == 0) {
		for (i = 0; i < 5; i++) {
			memset(big, 'a' + i, sizeof big);
			send0(big, size[i], type[i], 1);
		}
	} else if (me == 1) {
		if (late)
			usleep(300000);
		for (k = 0; k < 5; k++) {
			i = k < 4 ? k + 1 : 0;
			memset(got, 0, sizeof got);
			recv0(got, sizeof got, type[i]);
			recvinfo0(&bytes, &t, &node);
			if (bytes != size[i] || t != type[i] || node != 0 ||
			    got[0] != 'a' + i || got[bytes - 1] != 'a' + i ||
			    got[bytes] != 0) {
				fprintf(stderr, "mix: message %d: %d bytes of "
					"type %d from %d, '%c'\n", i, bytes, t,
					node, got[0]);
				return 1;
			}
		}
	}
	close0(0);
	return 0;
}
EOF
mpicc_picl "$TMP/mix" "$TMP/mix.c"
for split in 1 0; do
  for when in late early; do
    ntest=$((ntest + 1))
    set +e
    (cd "$TMP" && PICL_MPI_SPLIT=$split timeout -k 10 60 \
      $MPIRUN -x PICL_MPI_SPLIT -np 2 "$TMP/mix" $when) >"$TMP/out" 2>"$TMP/err"
    rc=$?
    set -e
    last="mix $when, PICL_MPI_SPLIT=$split"
    expect_rc 0
  done
done
# A message longer than recv0's buffer, arriving before recv0 (argument
# "late": the receiver sleeps first) or while it waits (the sender sleeps
# first): both fail with PICL's error, having written nothing past the
# buffer (under AddressSanitizer, an overflow would fail the run anyway).
cat >"$TMP/toolong.c" <<'EOF'
#include <string.h>
#include <unistd.h>
#include "picl.h"
int main(int argc, char **argv)
{
	int np, me, host, late = argc > 1 && strcmp(argv[1], "late") == 0;
	static char big[100000], small[1000];
	open0(&np, &me, &host);
	if (me == 0) {
		if (!late)
			usleep(300000);
		send0(big, sizeof big, 5, 1);
	} else if (me == 1) {
		if (late)
			usleep(300000);
		recv0(small, sizeof small, 5);
	}
	close0(0);
	return 0;
}
EOF
mpicc_picl "$TMP/toolong" "$TMP/toolong.c"
for when in late early; do
  ntest=$((ntest + 1))
  set +e
  (cd "$TMP" && timeout -k 10 60 $MPIRUN -np 2 "$TMP/toolong" $when) \
    >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
  [ "$rc" -ne 0 ] || fail "toolong $when: exit status 0"
  grep -q "process 1: recv0: message longer than the receive buffer" "$TMP/err" ||
    fail "toolong $when: $(cat "$TMP/err")"
done

# Receive order under MPI (t/rt/recv-order: see 0635-runtime-order.sh):
# every receive call takes the oldest message it matches, none is lost.
mpicc_picl "$TMP/recv-order" "$PICL_SRCDIR/t/rt/recv-order.c"
for seed in 1 2; do
  mpirun_in "$TMP" 2 "$TMP/recv-order" $seed
  expect_rc 0
  grep -qx 'recv-order: [0-9]* messages, 0 wrong' "$TMP/out" ||
    fail "$last: $(head -5 "$TMP/out")"
done

# The collectives' messages and the program's never take each other's
# place under MPI either (t/rt/coll-p2p: see 0645-runtime-coll-p2p.sh;
# there they travel with negative types, which MPI tags cannot carry).
mpicc_picl "$TMP/coll-p2p" "$PICL_SRCDIR/t/rt/coll-p2p.c"
for np in 3 5; do
  mpirun_in "$TMP" $np "$TMP/coll-p2p"
  expect_rc 0
  [ "$(grep -c '^coll-p2p: node [0-9]*: 0 wrong$' "$TMP/out")" -eq $np ] ||
    fail "$last: $(head -5 "$TMP/out")"
done

# Records written before open0 (t/rt/before-open: see 0630-runtime-calls.sh)
# carry the rank, from the launcher's environment: each rank writes its
# own picltrace.RANK.picl (all once wrote picltrace.-1.picl, over each
# other, with processor -1, the wildcard).
mpicc_picl "$TMP/before-open" "$PICL_SRCDIR/t/rt/before-open.c"
mkdir "$TMP/before"
mpirun_in "$TMP/before" 2 "$TMP/before-open" flush
expect_rc 0
[ -f "$TMP/before/picltrace.-1.picl" ] && fail "before-open: picltrace.-1.picl written"
[ -s "$TMP/before/picltrace.0.picl" ] && [ -s "$TMP/before/picltrace.1.picl" ] ||
  fail "before-open: parts: $(ls "$TMP/before")"
merge_parts "$TMP/before"
validate_ok "$TMP/before/merged.picl"
awk '$1 > -300 && $1 < 0 && $4 != 0 && $4 != 1' "$TMP/before/merged.picl" >"$TMP/wrongid"
[ -s "$TMP/wrongid" ] && fail "before-open: records of no process: $(head -3 "$TMP/wrongid")"

# A rank that exits with a failure status without close0 (noclose's
# "inblock": rank 1 exits with status 3 inside user block 1 while the
# others wait for a message from it) stops the run with that status. The
# exit handler used to call MPI_Finalize, which waited for the others for
# ever, before trace.c's own handler had written the rank's part: the run
# hung with no trace at all. Its part is written first, the block closed.
mpicc_picl "$TMP/noclose" "$PICL_SRCDIR/examples/noclose.c"
mkdir "$TMP/inblock"
ntest=$((ntest + 1))
set +e
(cd "$TMP/inblock" && timeout -k 5 30 $MPIRUN -np 3 "$TMP/noclose" inblock) \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
set -e
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "inblock: the run hung"
[ "$rc" -ne 0 ] || fail "inblock: exit status 0"
grep -q "libpicl-mpi: process 1 exited with status 3 without close0" "$TMP/err" ||
  fail "inblock: $(cat "$TMP/err")"
[ -s "$TMP/inblock/picltrace.1.picl" ] || fail "inblock: rank 1 wrote no part"
grep -q '^-4 1 ' "$TMP/inblock/picltrace.1.picl" &&
  grep -q '^-4 -901 ' "$TMP/inblock/picltrace.1.picl" ||
  fail "inblock: rank 1's part: $(cat "$TMP/inblock/picltrace.1.picl")"

# A PICL error on one rank (noclose's "short": rank 1 receives 64 bytes
# into 4) stops the run, but, as with the local backend, the others (in
# close0's barrier) fail in their turn and write their parts first: rank 1
# tells them before MPI_Abort, which used to kill them with their buffers.
mkdir "$TMP/short"
ntest=$((ntest + 1))
set +e
(cd "$TMP/short" && timeout -k 5 60 $MPIRUN -np 3 "$TMP/noclose" short) \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "short: exit status $rc: $(cat "$TMP/err")"
grep -q "picl: process 1: recv0: message longer than the receive buffer (64)" "$TMP/err" ||
  fail "short: $(cat "$TMP/err")"
for p in 0 2; do
  grep -q "picl: process $p: close0: no message can arrive any more (a process ended, failed or died)" "$TMP/err" ||
    fail "short: process $p did not fail in its turn: $(cat "$TMP/err")"
  part="$TMP/short/picltrace.$p.picl"
  [ -s "$part" ] || fail "short: rank $p's part was not written"
  grep -q '^-2 -12 ' "$part" && grep -q '^-4 -901 ' "$part" &&
    grep -q '^-7 -911 .*no message can arrive any more' "$part" ||
    fail "short: rank $p's part: $(cat "$part")"
done

# A rank that returns from main without close0 (status 0) while the others
# call close0, whose barrier needs it: the others fail in their turn, as
# under piclrun, and the run stops, every part written. The exit handler
# used to call MPI_Finalize, which waited for the others, who waited in
# the barrier for it: the run hung. (When every rank leaves without close0,
# as in noclose's "noclose", nobody waits, but the run still fails, as
# under piclrun: t/e2e/0656-runtime-mpi-noclose.sh.)
cat >"$TMP/forget.c" <<'EOF'
#include "picl.h"
int main(void)
{
	int np, me, host, v = 0;
	tracenode(1 << 16, 1, 0);
	open0(&np, &me, &host);
	if (me == 1) {
		send0((char *)&v, sizeof v, 1, 0);
		return 0;
	}
	if (me == 0)
		recv0((char *)&v, sizeof v, 1);
	close0(0);
	return 0;
}
EOF
mpicc_picl "$TMP/forget" "$TMP/forget.c"
for how in forget noclose; do
  mkdir "$TMP/$how-run"
  ntest=$((ntest + 1))
  prog="$TMP/noclose noclose"
  [ "$how" = forget ] && prog="$TMP/forget"
  set +e
  (cd "$TMP/$how-run" && timeout -k 5 30 $MPIRUN -np 3 $prog) >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
  [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "$how: the run hung"
  for p in 0 1 2; do
    grep -q '^-4 -901 ' "$TMP/$how-run/picltrace.$p.picl" ||
      fail "$how: rank $p's part is incomplete"
  done
  if [ "$how" = forget ]; then
    [ "$rc" -ne 0 ] || fail "forget: exit status 0"
    grep -q "libpicl-mpi: process 1 exited without close0 while others still needed it" "$TMP/err" ||
      fail "forget: $(cat "$TMP/err")"
  else
    [ "$rc" -ne 0 ] || fail "noclose: exit status 0: $(cat "$TMP/err")"
    grep -q "libpicl-mpi: process 0 exited without calling close0" "$TMP/err" ||
      fail "noclose: $(cat "$TMP/err")"
  fi
done

# The host leaves by close0 while a node still sends it a message over
# 4 KiB that it never receives (close0's barrier does not hold the host).
# The node's synchronous send waited for the host, which waited in
# MPI_Finalize for the node: the run hung (under piclrun it ends well).
cat >"$TMP/hostbig.c" <<'EOF'
#include "picl.h"
static char big[100000];
int main(void)
{
	int np, me, host;
	open0(&np, &me, &host);
	if (me == 0)
		send0(big, sizeof big, 5, PICL_HOST);   /* never received */
	close0(0);
	return 0;
}
EOF
mpicc_picl "$TMP/hostbig" "$TMP/hostbig.c"
ntest=$((ntest + 1))
set +e
(cd "$TMP" && PICL_MPI_HOST=1 timeout -k 5 30 $MPIRUN -x PICL_MPI_HOST -np 3 "$TMP/hostbig") \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
set -e
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "hostbig: the run hung"
[ "$rc" -eq 0 ] || fail "hostbig: exit status $rc: $(cat "$TMP/err")"

echo "ok: $ntest checks"

#!/bin/sh
# 0412-runtime-void-buffers.sh - picl.h's message buffers are void *, so
# that PICL code passing an int *, a double * or a struct's address to
# send0, recv0, sendbegin0, recvbegin0, bcast0 and bcast1 compiles
# without a cast or a warning (they were char *: -Wincompatible-pointer-
# types, an error by default from GCC 14 on, and an error in C++), and
# code that casts to char *, as PICL's manual did, still does. The
# buffers a call only reads (send0's, sendbegin0's, tracedata's data) are
# const void *, so a const table is sent without a cast (it was a
# "discards 'const' qualifier" warning in C, an error in C++), and the
# strings and arrays a call only reads are const (message0, tracemsg,
# tracefiles, load0, tracedata's datatype, tracemarks): a string literal
# is passed in C++ without a warning. Built with -Werror as C99 and, when
# there is a C++ compiler, as C++, and run.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup
CC1="$PICL_BUILDDIR/picl-rt/picl-cc"
pc_cflags=$(sed -n 's/^CFLAGS = //p' "$PICL_BUILDDIR/Makefile")
pc_ldflags=$(sed -n 's/^LDFLAGS = //p' "$PICL_BUILDDIR/Makefile")

cat >buffers.c <<'EOF2'
#include <picl.h>
#include <stdio.h>

struct point { double x, y; };

static const int table[3] = { 5, 6, 7 };
static const int marks[2] = { 1, 2 };

int main(void)
{
	int n, me, host, i[4] = { 0, 0, 0, 0 }, c = 7, bad = 0, t[3], u[3];
	double d[2] = { 0, 0 };
	struct point p = { 0, 0 };

	open0(&n, &me, &host);
	tracenode(100000, 1, 0);
	tracefiles("", "", 0);
	tracemsg("a string literal");
	tracemarks(marks, 2);
	tracedata(1, 0, "int", 3, table);
	if (me == 0) {
		i[0] = 1; i[1] = 2; i[2] = 3; i[3] = 4;
		d[0] = 0.5;
		p.x = 1.5;
		send0(i, sizeof i, 1, 1);
		sendbegin0(d, sizeof d, 2, 1);
		sendend0(2);
		send0((char *)&c, sizeof c, 3, 1);      /* PICL's manual's cast */
		send0(table, sizeof table, 6, 1);       /* const: no cast */
		sendbegin0(table, sizeof table, 7, 1);
		sendend0(7);
		load0("node", -1);
		message0("sent");
	} else if (me == 1) {
		recv0(i, sizeof i, 1);
		recvbegin0(d, sizeof d, 2);
		recvend0(2);
		recv0((char *)&c, sizeof c, 3);
		recv0(t, sizeof t, 6);
		recv0(u, sizeof u, 7);
		bad |= i[3] != 4 || d[0] != 0.5 || c != 7;
		bad |= t[2] != 7 || u[0] != 5;
	}
	bcast0(&p, sizeof p, 4, 0);
	bcast1(d, sizeof d, 5, 0);
	bad |= p.x != 1.5 || d[0] != 0.5;
	printf("node %d: %s\n", me, bad ? "wrong" : "ok");
	close0(0);
	return bad;
}
EOF2

run "$CC1" -std=c99 -pedantic -Wall -Wextra -Werror $pc_cflags $pc_ldflags buffers.c -o buffers
expect_rc 0
expect_err </dev/null
run timeout 60 "$RUN" -n 2 ./buffers
expect_rc 0
[ "$(sort "$TMP/out")" = "node 0: ok
node 1: ok" ] || fail "$last: $(cat "$TMP/out")"

# C++: an int * never converts to char * there; to void * it does
cxx=${CXX:-c++}
if command -v "${cxx%% *}" >/dev/null 2>&1; then
  cp buffers.c buffers.cc
  run env PICL_CC="$cxx" "$CC1" -Wall -Wextra -Werror $pc_cflags $pc_ldflags buffers.cc -o buffers-cxx
  expect_rc 0
  run timeout 60 "$RUN" -n 2 ./buffers-cxx
  expect_rc 0
else
  echo "note: no C++ compiler ($cxx): the C++ build was left out"
fi
echo "ok: $ntest runs"

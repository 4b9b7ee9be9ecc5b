#!/bin/sh
# 0995-runtime-picl-cc.sh - picl-cc as a user meets it (picl-cc(1)): a
# compiler that cannot be found is named with the setting it came from
# (PICL_CC, PICL_MPICC), exit status 127, where the shell's own "exec:
# nosuchcc: not found" named neither; --version is picl-cc's own, then
# the compiler's; and compiler options pass through: -c and -o, -O2 -g,
# two sources compiled apart and linked with -lm, run by piclrun.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

piclrun_setup
CC1="$PICL_BUILDDIR/picl-rt/picl-cc"
echo 'int main(void) { return 0; }' >x.c

run env PICL_CC=picl-no-such-cc "$CC1" x.c -o x
expect_rc 127
expect_err <<'EOF2'
picl-cc: cannot run the compiler 'picl-no-such-cc' (from PICL_CC): not found
EOF2
[ ! -e x ] || fail "a program was written"
# options in PICL_CC: the command is its first word
run env PICL_CC="picl-no-such-cc -O2" "$CC1" x.c -o x
expect_rc 127
grep -q "'picl-no-such-cc' (from PICL_CC)" "$TMP/err" || fail "PICL_CC with options: $(cat "$TMP/err")"
run env PICL_MPICC=picl-no-such-mpicc "$CC1" --mpi x.c -o x
expect_rc 127
expect_err <<'EOF2'
picl-cc: cannot run the compiler 'picl-no-such-mpicc' (from PICL_MPICC): not found
EOF2
# --showme runs nothing, so it needs no compiler
run env PICL_CC=picl-no-such-cc "$CC1" --showme x.c -o x
expect_rc 0
grep -q "^picl-no-such-cc " "$TMP/out" || fail "--showme: $(cat "$TMP/out")"

# --version: picl-cc's, the same as piclrun's, then the compiler's
run "$RUN" --version
expect_rc 0
v=$(sed 's/^piclrun //' "$TMP/out")
run "$CC1" --version
expect_rc 0
[ "$(head -n 1 "$TMP/out")" = "picl-cc (picl-trace) $v" ] ||
  fail "--version: $(head -n 1 "$TMP/out")"
[ "$(wc -l <"$TMP/out")" -gt 1 ] || fail "--version: no word of the compiler"

# -c, -o, -O2 -g, two sources, -lm: the program runs under piclrun
cat >main.c <<'EOF2'
#include <picl.h>
#include <stdio.h>
double half_root(double);
int main(void)
{
	int n, me, host;
	double x = me = 0;

	open0(&n, &me, &host);
	x = half_root(16.0 * (me + 1));
	if (me == 0)
		printf("picl-cc: %d %.1f\n", n, x);
	close0(0);
	return 0;
}
EOF2
cat >root.c <<'EOF2'
#include <math.h>
double half_root(double x) { return sqrt(x) / 2; }
EOF2
pc_cflags=$(sed -n 's/^CFLAGS = //p' "$PICL_BUILDDIR/Makefile")
pc_ldflags=$(sed -n 's/^LDFLAGS = //p' "$PICL_BUILDDIR/Makefile")
run "$CC1" $pc_cflags -O2 -g -c main.c -o main.o
expect_rc 0
run "$CC1" $pc_cflags -O2 -g -c root.c
expect_rc 0
[ -f main.o ] && [ -f root.o ] || fail "-c wrote no object files"
run "$CC1" $pc_cflags $pc_ldflags main.o root.o -o prog -lm
expect_rc 0
run "$RUN" -n 2 ./prog
expect_rc 0
expect_out <<'EOF2'
picl-cc: 2 2.0
EOF2

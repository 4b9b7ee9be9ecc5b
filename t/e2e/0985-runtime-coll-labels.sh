#!/bin/sh
# 0985-runtime-coll-labels.sh - the collectives' blocks are recorded as
# event types the format report does not predefine (900000001 barrier0 ...
# 900000005 gather0, picl(3)), so each process's trace names them with a
# -5 event label record (Table 14: "%c", alias 0) once, before the first
# record of the event, whatever the flushes in between (the smallest
# buffer, written out many times), and no label for events not used; a
# process that changes files (tracefiles) labels them in each.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
piclrun_setup

check() {  # FILE: every collective event type used is labelled once, first
  awk -v f="$1" '
    BEGIN {
      name[900000001] = "barrier0"; name[900000002] = "bcast0"
      name[900000003] = "bcast1"; name[900000005] = "gather0"
      name[900000004] = "global operation (gsum0 ... gcomb0)"
    }
    $1 == -5 {
      k = $4 " " $2
      if (++lab[k] > 1) { printf "%s:%d: second label: %s\n", f, FNR, $0; bad = 1 }
      if (k in used) { printf "%s:%d: label after the event: %s\n", f, FNR, $0; bad = 1 }
      t = $8; for (i = 9; i <= NF; i++) t = t " " $i
      if ($6 != length(t) || $7 != 0 || t != name[$2]) {
        printf "%s:%d: label \"%s\", want %d chars, alias 0, \"%s\"\n", f, FNR, $0, length(name[$2]), name[$2]; bad = 1
      }
      next
    }
    $1 >= -4 && $1 <= -2 && $2 >= 900000000 {
      k = $4 " " $2; used[k] = 1; nev++
      if (!(k in lab)) { printf "%s:%d: no label before: %s\n", f, FNR, $0; bad = 1 }
    }
    END {
      if (nev == 0) { printf "%s: no collective records\n", f; bad = 1 }
      for (k in lab) if (!(k in used)) { printf "%s: label of an unused event: %s\n", f, k; bad = 1 }
      exit bad
    }' "$1" >msg || { cat msg >&2; fail "$1: labels"; }
}

cat >coll.c <<'EOS2'
#include <picl.h>
#include <stdlib.h>
/* coll N: N rounds of gsum0, bcast0 and barrier0, traced into the
 * smallest buffer (written out whenever full); with N = 0 one gsum0 */
int main(int argc, char **argv)
{
	int np, me, host, x = 1, i, n = atoi(argv[1]);

	tracenode(1, 1, 0);
	open0(&np, &me, &host);
	gsum0((char *)&x, 1, PICL_INT, 7, 0);
	for (i = 0; i < n; i++) {
		gsum0((char *)&x, 1, PICL_INT, 7, 0);
		bcast0((char *)&x, sizeof x, 8, 0);
		barrier0();
	}
	close0(0);
	return 0;
}
EOS2
picl_cc coll coll.c

# every collective, in a buffer large enough for all
run timeout 60 "$RUN" -n 3 -o all.picl "$EX/collectives" -t
expect_rc 0
validate_ok all.picl
check all.picl
for e in 1 2 3 4 5; do
  grep -q "^-5 90000000$e " all.picl || fail "all.picl: no label of 90000000$e"
done
# a buffer written out many times: still once per process
run timeout 60 "$RUN" -n 3 -o small.picl ./coll 200
expect_rc 0
validate_ok small.picl
[ "$(grep -c '^-4 -912 ' small.picl)" -gt 9 ] || fail "the small buffer was not written out often"
check small.picl
[ "$(grep -c '^-5 ' small.picl)" = 9 ] || fail "small.picl: $(grep '^-5 ' small.picl)"
# one collective: its label only
run timeout 60 "$RUN" -n 2 -o one.picl ./coll 0
expect_rc 0
validate_ok one.picl
check one.picl
[ "$(grep -c '^-5 900000004 ' one.picl) $(grep -c '^-5 ' one.picl)" = "2 2" ] ||
  fail "one.picl: $(grep '^-5 ' one.picl)"
# tracefiles: each file the process writes to names the events it holds
cat >tf.c <<'EOS2'
#include <picl.h>
int main(void)
{
	int np, me, host, x = 1;

	tracenode(1 << 20, 1, 0);
	open0(&np, &me, &host);
	tracefiles("", me ? "a1.picl" : "a0.picl", 0);
	gsum0((char *)&x, 1, PICL_INT, 7, 0);
	traceflush();
	tracefiles("", me ? "b1.picl" : "b0.picl", 0);
	gsum0((char *)&x, 1, PICL_INT, 7, 0);
	traceflush();
	gsum0((char *)&x, 1, PICL_INT, 7, 0);
	close0(0);
	return 0;
}
EOS2
picl_cc tf tf.c
run timeout 60 "$RUN" -n 2 -o tf.picl ./tf
expect_rc 0
for f in a0.picl a1.picl b0.picl b1.picl; do
  check $f
  [ "$(grep -c '^-5 900000004 ' $f)" = 1 ] || fail "$f: $(grep '^-5 ' $f)"
done
rm -f all.picl small.picl one.picl coll coll.c msg tf tf.c tf.picl a0.picl a1.picl b0.picl b1.picl
echo "ok $ntest"

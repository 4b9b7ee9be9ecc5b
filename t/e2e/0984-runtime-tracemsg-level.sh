#!/bin/sh
# 0984-runtime-tracemsg-level.sh - tracemsg's -7 message record is written
# at every trace level: it is no event but the format report's record for
# error and debugging messages (Table 3, 2.3.1: written at once so that it
# is saved even when the program does not finish), and a PICL error
# records its reason with it. The -911 entry and exit around it are the
# tracing event (Table 13): written and counted in the statistics at a
# trace level of 1 or more only. Both ways the trace validates.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
piclrun_setup

cat >lv.c <<'EOS2'
#include <picl.h>
#include <stdlib.h>
/* lv LEVEL [fail]: tracemsg at trace level LEVEL; with "fail", node 0
 * then sends to a node the run does not have (a PICL error) */
int main(int argc, char **argv)
{
	int np, me, host, x = 0;

	tracenode(1 << 20, 1, 0);
	tracelevel(1, 1, atoi(argv[1]));
	open0(&np, &me, &host);
	tracemsg("a note from the program");
	if (argc > 2 && me == 0)
		send0((char *)&x, sizeof x, 1, np + 5);
	close0(0);
	return 0;
}
EOS2
picl_cc lv lv.c

# count PATTERN FILE: records matching the extended regular expression
count() { grep -Ec -- "$1" "$2" || true; }

for level in 0 1; do
  run timeout 60 "$RUN" -n 2 -o ok$level.picl ./lv $level
  expect_rc 0
  validate_ok ok$level.picl
  run timeout 60 "$RUN" -n 2 -o bad$level.picl ./lv $level fail
  [ "$rc" -ne 0 ] || fail "lv $level fail: exit status 0"
  validate_ok bad$level.picl
  for p in 0 1; do
    n=$(count "^-7 -911 [^ ]+ $p 0 [0-9]+ 0 a note from the program\$" ok$level.picl)
    [ "$n" = 1 ] || fail "level $level: process $p has $n messages, want 1"
  done
  n=$(count '^-7 -911 [^ ]+ 0 0 [0-9]+ 0 picl: send0: no such destination$' bad$level.picl)
  [ "$n" = 1 ] || fail "level $level: the error's reason is in $n messages, want 1"
  entries=$(count '^-3 -911 ' ok$level.picl)
  exits=$(count '^-4 -911 ' ok$level.picl)
  counted=$(count '^-102 -1 .* -911 1( |$)' ok$level.picl)
  if [ $level = 0 ]; then
    [ "$entries $exits $counted" = "0 0 0" ] ||
      fail "trace level 0: $entries -911 entries, $exits exits, counted by $counted processes; want none"
  else
    [ "$entries $exits $counted" = "2 2 2" ] ||
      fail "trace level 1: $entries -911 entries, $exits exits, counted by $counted processes; want 2 each"
  fi
done
rm -f lv lv.c ok0.picl ok1.picl bad0.picl bad1.picl
echo "ok $ntest"

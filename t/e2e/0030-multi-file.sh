#!/bin/sh
# 0030-multi-file.sh - several FILEs are one trace: the definitions (-6
# aliases, -201..-203 subsets) of one file hold in the next, for cat,
# filter (one pass and --pairs) and stat, exactly as when the files are
# concatenated into one stream.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# alias 7 and processor subset -5 are defined in the first file only
cat >a1.picl <<'T'
-6 -1 0 -1 -1 1 "%d%s" 7 "%c"
-201 -1 0 -1 -1 2 2 -5 1
-203 -1 0 -1 -1 2 2 -2001 5
-3 -901 0 1 0 0
-3 7 1 1 0 0
T
cat >a2.picl <<'T'
-5 5 0.5 1 0 3 7 abc
-2 5 1.5 1 0 0
-4 7 2 1 0 0
-4 -901 3 1 0 0
T
cat a1.picl a2.picl >all.picl

same() {  # NAME: the output of the two files equals that of their concatenation
  "$@" a1.picl a2.picl >two.out 2>two.err || fail "$*: two files: $(cat two.err)"
  "$@" - <all.picl >one.out 2>one.err || fail "$*: one stream: $(cat one.err)"
  cmp -s one.out two.out || { diff one.out two.out >&2; fail "$*: files differ from the stream"; }
  ntest=$((ntest + 1))
}
same "$PT" cat
same "$PT" filter -g abc
same "$PT" filter -p -5 --no-defs
same "$PT" filter -e -2001 --no-defs
same "$PT" filter --pairs -p -5 --no-defs
same "$PT" stat -q --format=csv
# and what filter kept is what the definitions say
"$PT" filter -p -5 --no-defs a1.picl a2.picl >kept.picl
[ "$(wc -l <kept.picl)" = 6 ] || fail "filter -p -5 across files kept: $(cat kept.picl)"

# Redefinitions, in a file and across files, carry their latest meaning:
# alias 8 on processor 1 (A) and for event 5 (B) match an event 5 record
# on processor 1 equally, so the one defined last wins, A once b2
# redefines it; alias 9 everywhere is redefined in b2; processor subset
# -5 and event subset -2002 (a member of -2001) are redefined in b2. A
# wrong descriptor makes the data of b3 undecodable.
cat >b1.picl <<'T'
-6 -1 0 1 -1 1 "%d%s" 8 "%d"
-6 5 0 -1 -1 1 "%d%s" 8 "%d"
-201 -1 0 -1 -1 2 2 -5 2
-203 -1 0 -1 -1 2 2 -2001 -2002
-203 -1 0 -1 -1 2 2 -2002 5
-3 -901 0 1 0 0
T
cat >b2.picl <<'T'
-6 -1 0 1 -1 1 "%d%s" 8 "%d%d"
-201 -1 0 -1 -1 2 2 -5 1
-203 -1 0 -1 -1 2 2 -2002 6
-6 -1 0 -1 -1 1 "%d%s" 9 "%d"
-6 -1 0 -1 -1 1 "%d%s" 9 "%s"
-2 3 0.5 1 0 0
T
cat >b3.picl <<'T'
-5 5 1 1 0 1 8 7 8
-2 6 1.5 2 0 1 9 "xy"
-4 5 2 1 0 0
-4 -901 3 1 0 0
T
cat b1.picl b2.picl b3.picl >ball.picl
same3() {  # CMD...: the output of b1..b3 equals that of their concatenation
  "$@" b1.picl b2.picl b3.picl >three.out 2>three.err || fail "$*: three files: $(cat three.err)"
  "$@" - <ball.picl >one.out 2>one.err || fail "$*: one stream: $(cat one.err)"
  cmp -s one.out three.out || { diff one.out three.out >&2; fail "$*: files differ from the stream"; }
  ntest=$((ntest + 1))
}
same3 "$PT" cat
same3 "$PT" filter -p -5 --no-defs
same3 "$PT" filter -e -2001 --no-defs
same3 "$PT" filter --pairs -e -2001 --no-defs
same3 "$PT" stat -q --format=csv
"$PT" filter -p -5 --no-defs b1.picl b2.picl b3.picl >kept.picl
[ "$(grep -c ' 1 0 ' kept.picl)" = 4 ] && [ "$(wc -l <kept.picl)" = 4 ] ||
  fail "filter -p -5 after its redefinition kept: $(cat kept.picl)"
"$PT" filter -e -2001 --no-defs b1.picl b2.picl b3.picl >kept.picl
[ "$(cat kept.picl)" = '-2 6 1.5 2 0 1 9 "xy"' ] ||
  fail "filter -e -2001 after -2002's redefinition kept: $(cat kept.picl)"

# What is carried is bounded by the definitions in force: a file that
# redefines one subset of 50000 members 150 times and one alias 300000
# times (the text of every definition was kept, also after the last
# input: 48 MB for cat, now about 10 MB), read alone and twice over.
if [ -n "${ASAN_OPTIONS:-}" ]; then
  echo "note: sanitizer build (shadow memory); memory bound not measured here"
elif [ -x /usr/bin/time ]; then
  awk 'BEGIN {
    m = "0"; for (i = 1; i < 50000; i++) m = m " " (i % 1000)
    for (s = 0; s < 150; s++) printf "-203 -1 0 -1 -1 50001 2 -2000 %s\n", m
    for (a = 0; a < 300000; a++) print "-6 -1 0 -1 -1 1 \"%d%s\" 6 \"%d%lf\""
    print "-3 -901 0 0 0 0"; print "-4 -901 1 0 0 0"
  }' >redef.picl
  # (stat refuses one file given twice: a copy is the second)
  cp redef.picl redef2.picl
  for cmd in "cat redef.picl" "cat redef.picl redef.picl" "stat -q redef.picl" \
             "stat -q redef.picl redef2.picl"; do
    run /usr/bin/time -f '%M' -o peak "$PT" $cmd
    expect_rc 0
    peak=$(tail -n 1 peak)
    [ "$peak" -le 20480 ] || fail "$cmd peaked at ${peak} KB"
  done
  rm -f redef.picl redef2.picl
else
  echo "note: /usr/bin/time absent; memory bound not measured"
fi
echo "ok: $ntest multi-file checks"

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
echo "ok: $ntest multi-file checks"

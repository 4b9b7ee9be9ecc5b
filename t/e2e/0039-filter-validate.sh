#!/bin/sh
# picltrace filter: what validate reports of a filter's output beyond what
# it reports of the input is only what picltrace-filter(1) lists under
# "What picltrace validate says of the output": message-match, tachyon,
# entry-exit (not with --pairs), tracing-first-last, statistics, and
# alias-undefined with --no-defs. Over a generated trace of 8 processors
# (aliases, labels, messages, statistics) and, when ../shared is there,
# the Table 20 example and coNCePTuaL's trace.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

"$GEN" --procs 8 --records 6000 -o gen.picl
set -- gen.picl
if [ -d "$SHARED/spec" ]; then
  cp "$SHARED/spec/table20-example.picl" t20.picl
  set -- "$@" t20.picl
fi
if [ -f "$SHARED/external/picl/conceptual-picl-example.trf" ]; then
  cp "$SHARED/external/picl/conceptual-picl-example.trf" cpt.picl
  set -- "$@" cpt.picl
fi

# kinds FILE: the kinds of problem validate reports of FILE, one a line.
kinds() {
  "$PT" validate --max-errors=0 "$1" >v.txt 2>&1 || true
  sed -n 's/^[^ ]*:[0-9]*:[0-9]*: \([a-z-]*\): .*/\1/p' v.txt | sort -u
}

for f in "$@"; do
  kinds "$f" >base.kinds
  while IFS=';' read -r args allowed; do
    # (word splitting of $args is wanted: it holds several options)
    # shellcheck disable=SC2086
    run "$PT" filter -q $args -o out.picl "$f"
    expect_rc 0
    kinds out.picl >out.kinds
    extra=$(comm -23 out.kinds base.kinds | grep -v -x -F -e '' $(for k in $allowed; do printf ' -e %s' "$k"; done) || true)
    [ -z "$extra" ] || fail "$f: filter $args: validate reports $extra ($(grep -m 3 -F -e "$extra" v.txt))"
  done <<'L'
-p 1;message-match tracing-first-last
-p 0,2 --pairs;message-match tracing-first-last
-p -1;tracing-first-last
-P 0;message-match tracing-first-last
-e sends;message-match tracing-first-last
-e receives --pairs;message-match tracing-first-last
-e user;statistics tracing-first-last
-t entry;entry-exit message-match tracing-first-last
-t mark,statistics;statistics tracing-first-last
-t headers;tracing-first-last
--from 0 --to 0.0005;entry-exit message-match tachyon tracing-first-last statistics
--from 0 --to 0.0005 --pairs;message-match tachyon tracing-first-last statistics
--from -0.5 --to 0 --pairs;message-match tachyon tracing-first-last statistics
-v -p 0;message-match tracing-first-last
-v -t exit --pairs;
-v -e tracing --pairs;statistics tracing-first-last
-g solver --pairs;tracing-first-last message-match
-g . --grep-data --pairs;statistics tracing-first-last message-match
--no-defs -p 1;alias-undefined message-match tracing-first-last
-p host;tracing-first-last
L
done

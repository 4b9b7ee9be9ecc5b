#!/bin/sh
# 0974-numeric-options.sh - every numeric option of every command reads its
# number one way (picltrace_parse_int; piclrun's copy): decimal digits, a
# '-' where negatives make sense, and nothing else. A '+', a blank before
# or after, an empty argument, hexadecimal or a number past 64 bits is
# refused with exit 2, the argument named, and nothing on standard output;
# the plain form of each is accepted.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

printf -- '-3 -901 0.0 0 0 0\n-3 -901 0.0 1 0 0\n-4 -901 1.0 0 0 0\n-4 -901 1.0 1 0 0\n' >t.picl

# refused ARG CMD...: CMD (which holds ARG) exits 2, silent on standard
# output, naming ARG on standard error.
refused() {
  arg=$1; shift
  run "$@"
  [ "$rc" -eq 2 ] || fail "$last: exit status $rc, expected 2 (stderr: $(cat "$TMP/err"))"
  [ ! -s "$TMP/out" ] || fail "$last: wrote to standard output"
  grep -q -F -e "$arg" "$TMP/err" || fail "$last: the message does not name '$arg': $(cat "$TMP/err")"
}

# accepted CMD...: exits 0.
accepted() {
  run "$@"
  [ "$rc" -eq 0 ] || fail "$last: exit status $rc, expected 0 (stderr: $(cat "$TMP/err"))"
}

big=99999999999999999999999
for bad in "+4" " 4" "4 " "" "0x4" "$big"; do
  refused "'$bad'" "$PT" sort --batch-size="$bad" t.picl
  refused "'$bad'" "$PT" cat -z --level="$bad" t.picl
  refused "'$bad'" "$PT" validate --max-errors="$bad" t.picl
  refused "'$bad'" "$PT" sync --reference="$bad" t.picl
  refused "'$bad'" "$PT" sync --max-drift="$bad" t.picl
  refused "'$bad'" "$PT" plot --bins="$bad" -f script -o p.gp t.picl
  refused "'$bad,480'" "$PT" plot --size="$bad,480" -f script -o p.gp t.picl
  refused "'640,$bad'" "$PT" plot --size="640,$bad" -f script -o p.gp t.picl
  refused "--processor: " "$PT" filter -p "$bad" t.picl
  refused "--process: " "$PT" filter -P "$bad..7" t.picl
  refused "-n $bad:" "$PICL_BUILDDIR/picl-rt/piclrun" -n "$bad" true
  refused "--timeout $bad:" "$PICL_BUILDDIR/picl-rt/piclrun" --timeout "$bad" true
done
for bad in "+1" " 1" "inf" "nan" "0x1p3"; do
  refused "'$bad'" "$PT" sync --max-drift="$bad" t.picl
done
refused "'+0.5'" "$PT" filter --from=+0.5 t.picl
refused "'+0.5'" "$PT" filter --to=+0.5 t.picl
refused "'+0.1'" "$PT" sync --min-latency=+0.1 t.picl

# the plain forms
accepted "$PT" sort --batch-size=4 t.picl
accepted "$PT" cat -z --level=3 -o c.picl.zst t.picl
accepted "$PT" validate --max-errors=5 t.picl
"$GEN" --procs 2 --records 2000 --seed 1 -o g.picl
accepted "$PT" sync --reference=0 --max-drift=5 -o s.picl g.picl
accepted "$PT" sync --max-drift=.5 --min-latency=0.1 -o s.picl g.picl
accepted "$PT" plot --bins=10 --size=640,480 -f script -o p.gp t.picl
accepted "$PT" plot --size=640x480 -f script -o p.gp t.picl
accepted "$PT" filter -p 0 -P -1..7 --from=-0 --to=0.5 t.picl
accepted "$PT" filter -p -2147483648..2147483647 t.picl

#!/bin/sh
# Everything a program can name from the installed picl-trace.h is on
# libpicl-trace(3): its functions (0020-help-man.sh checks those too),
# and its types, enum values and constants, which a user who has only
# the page and the header must otherwise guess from the header's code.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

hdr="$PICL_SRCDIR/libpicl-trace/picl-trace.h"
man="$PICL_SRCDIR/man/libpicl-trace.3"
# the header's code, comments left out (a name only a comment mentions
# is not one a program uses)
awk '{
  out = ""
  while ($0 != "") {
    if (inc) {
      i = index($0, "*/")
      if (!i) { $0 = ""; break }
      $0 = substr($0, i + 2); inc = 0
    } else {
      i = index($0, "/*")
      if (!i) { out = out $0; break }
      out = out substr($0, 1, i - 1); $0 = substr($0, i + 2); inc = 1
    }
  }
  print out
}' "$hdr" >"$TMP/code.h"
{
  grep -o '\bpicl_[a-z0-9_]* *(' "$TMP/code.h" | tr -d ' ('
  grep -o '\bPICL_[A-Z0-9_]*' "$TMP/code.h" | grep -vx 'PICL_TRACE_H'
  grep -o '\b\(struct\|enum\) picl_[a-z0-9_]*' "$TMP/code.h"
} | sort -u >"$TMP/names"
[ "$(wc -l <"$TMP/names")" -gt 100 ] || fail "too few names found in $hdr"
# the page as man shows it ("\-" is a minus), one word a line
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man" >"$TMP/page"
missing=0
while read -r name; do
  grep -qF -- "$name" "$TMP/page" || {
    echo "not on libpicl-trace(3): $name" >&2
    missing=$((missing + 1))
  }
done <"$TMP/names"
[ "$missing" -eq 0 ] || fail "$missing names of picl-trace.h are not documented on libpicl-trace(3)"
echo "ok: the $(wc -l <"$TMP/names") names of picl-trace.h are all on libpicl-trace(3)"

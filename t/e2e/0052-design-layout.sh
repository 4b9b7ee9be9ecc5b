#!/bin/sh
# doc/DESIGN.md's layout is the tree as it is: every top-level directory of
# the source tree and every C file of the library, the commands and the
# runtime is named there, and every C file the page names exists, so that
# a new engineer reading it first neither misses a file nor looks for one
# that went. (The page is the architecture document the developers' guide
# says to update with the architecture; this holds it to the tree.)
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

design="$PICL_SRCDIR/doc/DESIGN.md"
[ -f "$design" ] || fail "no $design"
# the layout: the first ``` block after "## Layout"
awk '/^## Layout/ { on = 1; next }
     on && /^```/ { if (inside) exit; inside = 1; next }
     inside { print }' "$design" >"$TMP/layout"
[ "$(wc -l <"$TMP/layout")" -gt 10 ] || fail "no layout block in $design"

missing=0
# every top-level directory (not hidden, not a build tree or autotools' own)
for d in "$PICL_SRCDIR"/*/; do
  d=$(basename "$d")
  case $d in _*|autom4te.cache|m4|build-aux) continue ;; esac
  grep -q -- "$d/" "$TMP/layout" || {
    echo "DESIGN.md's layout does not name the directory $d/" >&2
    missing=$((missing + 1))
  }
done
# every C source and header of the components (tests, fuzz targets,
# benchmarks and examples are named by what they are, not file by file);
# as the page says, cmd-X.c is named by its command X in the layout, and
# X.h by X.c
grep -q 'cmd-X\.c' "$design" || fail "DESIGN.md does not say where commands live"
for d in libpicl-trace picltrace sort-merge stats picl-rt; do
  for f in "$PICL_SRCDIR/$d"/*.c "$PICL_SRCDIR/$d"/*.h; do
    [ -f "$f" ] || continue
    n=$(basename "$f")
    case $n in
      cmd-*.c) x=${n#cmd-}; grep -q -w -- "${x%.c}" "$TMP/layout" && continue ;;
      *.h) grep -q -w -F -- "${n%.h}.c" "$design" && continue ;;
    esac
    grep -q -w -F -- "$n" "$design" || {
      echo "DESIGN.md does not name $d/$n" >&2
      missing=$((missing + 1))
    }
  done
done
# every C file the page names exists (git.c is git's, the model of the
# dispatcher; X.c, X.h and cmd-X.c stand for any)
grep -o '[A-Za-z0-9_][A-Za-z0-9_.-]*\.[ch]\b' "$design" | sort -u | while read -r n; do
  case $n in git.c|X.c|X.h|cmd-X.c) continue ;; esac
  found=$(find "$PICL_SRCDIR/libpicl-trace" "$PICL_SRCDIR/picltrace" \
    "$PICL_SRCDIR/sort-merge" "$PICL_SRCDIR/stats" "$PICL_SRCDIR/picl-rt" \
    "$PICL_SRCDIR/examples" "$PICL_SRCDIR/fuzz" "$PICL_SRCDIR/bench" \
    "$PICL_SRCDIR/t" -name "$n" | head -1)
  [ -n "$found" ] || echo "$n" >>"$TMP/gone"
done
if [ -s "$TMP/gone" ]; then
  sed 's/^/DESIGN.md names a file that does not exist: /' "$TMP/gone" >&2
  missing=$((missing + $(wc -l <"$TMP/gone")))
fi
[ "$missing" -eq 0 ] || fail "$missing mismatches between doc/DESIGN.md and the tree"
echo "ok: doc/DESIGN.md's layout names the tree"

#!/bin/sh
# 0029-readme-tour.sh - the README's short tour, its commands as written
# (the build tree's and source tree's paths made absolute, gen-trace's
# 100M made 1M), run in order in an empty directory: every command exits
# 0, every filter keeps records beyond the header (-301, -307) it always
# writes (a time window or pattern that matches nothing shows a new user
# nothing), and the files left are the ones the tour's commands name.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
need_shared

# the ```sh block after "## A short tour"
awk '/^## A short tour/ { on = 1; next }
     on && /^```sh/ { inside = 1; next }
     inside && /^```/ { exit }
     inside { print }' "$PICL_SRCDIR/README.md" > "$TMP/tour.txt"
[ "$(grep -c '\$pt ' "$TMP/tour.txt")" -gt 10 ] || fail "README: no tour found"
# (the build tree's and the source tree's paths absolute, ../shared where
# this test finds it)
sed -e "s|_build/|$PICL_BUILDDIR/|g" -e "s|\\\$PWD/schemas/|$PICL_SRCDIR/schemas/|g" \
    -e "s| examples/| $PICL_SRCDIR/examples/|g" -e "s|=examples/|=$PICL_SRCDIR/examples/|g" \
    -e "s|\\.\\./shared/|$SHARED/|g" -e "s|--size 100M|--size 1M|" \
    "$TMP/tour.txt" > "$TMP/tour.sh"
mkdir "$TMP/w"
cd "$TMP/w"
mkdir tmp
# each command alone, so that a failure names it
n=0
while IFS= read -r line; do
  case $line in ''|'#'*|' '*'#'*) continue ;; esac
  printf 'set -e\n%s\n%s\n' "$(grep -E '^(pt=|export )' "$TMP/tour.sh")" "$line" > "$TMP/one.sh"
  TMPDIR="$TMP/w/tmp" run sh "$TMP/one.sh"
  [ "$rc" -eq 0 ] || { cat "$TMP/err" >&2; fail "README tour: '$line' exits $rc"; }
  case $line in
    *' filter '*'-o '*) ;;   # (per-node files: checked with validate below)
    *' filter '*)
      grep -v -q -E '^-30[17] ' "$TMP/out" ||
        fail "README tour: '$line' keeps nothing beyond the header" ;;
  esac
  n=$((n + 1))
done < "$TMP/tour.sh"
[ -z "$(ls -A tmp)" ] || fail "README tour: left temporary files: $(ls tmp)"
rmdir tmp
# every file left is named by the tour
for f in *; do
  grep -q -F -e "$f" "$TMP/tour.txt" || fail "README tour: left $f, which it does not name"
done
echo "ok: $n tour commands"

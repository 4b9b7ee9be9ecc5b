#!/bin/sh
# 0029-readme-tour.sh - the README's short tour and its first runtime
# example ("Writing traced programs"), their commands as written (the
# build tree's and source tree's paths made absolute, gen-trace's 100M
# made 1M), each block run in order in an empty directory: every command
# exits 0, every filter keeps records beyond the header (-301, -307) it
# always writes (a time window or pattern that matches nothing shows a new
# user nothing), and the files left are the ones the block names, in its
# commands or its comments.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
need_shared

# block HEADING: the first ```sh block after the README's line HEADING
block() {
  awk -v h="$1" '$0 == h { on = 1; next }
       on && /^```sh/ { inside = 1; next }
       inside && /^```/ { exit }
       inside { print }' "$PICL_SRCDIR/README.md"
}

# a sanitizer build's libpicl needs the programs built with the same
# sanitizers (the ASan runtime first): picl-cc runs the build's compiler
# with them, as a user of such a build would set PICL_CC
san=$(sed -n 's/^CFLAGS = //p' "$PICL_BUILDDIR/Makefile" | tr ' ' '\n' | grep '^-fsanitize' |
  tr '\n' ' ')
if [ -n "$san" ]; then
  PICL_CC="$(sed -n 's/^CC = //p' "$PICL_BUILDDIR/Makefile") $san"
  export PICL_CC
fi

n=0
for heading in "## A short tour" "## Writing traced programs (the PICL runtime)"; do
  block "$heading" > "$TMP/tour.txt"
  [ "$(grep -c -E '(\$pt|picltrace|piclrun) ' "$TMP/tour.txt")" -gt 1 ] ||
    fail "README: no commands under '$heading'"
  # (the build tree's and the source tree's paths absolute, ../shared
  # where this test finds it)
  sed -e "s|_build/|$PICL_BUILDDIR/|g" -e "s|\\\$PWD/schemas/|$PICL_SRCDIR/schemas/|g" \
      -e "s|=schemas/|=$PICL_SRCDIR/schemas/|g" \
      -e "s| examples/| $PICL_SRCDIR/examples/|g" -e "s|=examples/|=$PICL_SRCDIR/examples/|g" \
      -e "s|\\.\\./shared/|$SHARED/|g" -e "s|--size 100M|--size 1M|" \
      "$TMP/tour.txt" > "$TMP/tour.sh"
  rm -rf "$TMP/w"
  mkdir "$TMP/w"
  cd "$TMP/w"
  mkdir tmp
  # each command alone, so that a failure names it
  while IFS= read -r line; do
    case $line in ''|'#'*|' '*'#'*) continue ;; esac
    printf 'set -e\n%s\n%s\n' "$(grep -E '^(pt=|export )' "$TMP/tour.sh")" "$line" > "$TMP/one.sh"
    TMPDIR="$TMP/w/tmp" run sh "$TMP/one.sh"
    [ "$rc" -eq 0 ] || { cat "$TMP/err" >&2; fail "README: '$line' exits $rc"; }
    case $line in
      *' filter '*'-o '*) ;;   # (per-node files: checked with validate below)
      *' filter '*)
        grep -v -q -E '^-30[17] ' "$TMP/out" ||
          fail "README: '$line' keeps nothing beyond the header" ;;
    esac
    n=$((n + 1))
  done < "$TMP/tour.sh"
  [ -z "$(ls -A tmp)" ] || fail "README: '$heading' left temporary files: $(ls tmp)"
  rmdir tmp
  # every file left is named by the block
  for f in *; do
    grep -q -w -F -e "$f" "$TMP/tour.txt" ||
      fail "README: '$heading' left $f, which it does not name"
  done
  cd "$TMP"
  rm -rf "$TMP/w"
done
echo "ok: $n README commands"

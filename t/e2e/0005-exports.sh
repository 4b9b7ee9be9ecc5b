#!/bin/sh
# The shared library exports the public API and nothing else: every
# function and object in its dynamic symbol table is picl_* and declared
# in picl-trace.h (where it is documented), and the internals the source
# files share (reader_*, pipe_*) stay out of users' namespace.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

so=
for f in "$PICL_BUILDDIR"/libpicl-trace/.libs/libpicl-trace.so.*.*.*; do
  [ -f "$f" ] && so=$f
done
if [ -z "$so" ]; then
  echo "SKIP: no shared libpicl-trace in this build (--disable-shared?)"
  exit 77
fi
command -v nm >/dev/null || fail "nm (binutils) is needed"

nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRW]$/ { print $3 }' | sort -u >"$TMP/exported"
[ -s "$TMP/exported" ] || fail "$so exports nothing"

# Nothing but picl_*.
if grep -v '^picl_' "$TMP/exported" >"$TMP/stray"; then
  cat "$TMP/stray" >&2
  fail "$so exports symbols outside the picl_ namespace"
fi

# Each one declared in the public header.
hdr="$PICL_SRCDIR/libpicl-trace/picl-trace.h"
missing=0
while read -r sym; do
  grep -q "[^A-Za-z0-9_]$sym *(" "$hdr" || {
    echo "not declared in picl-trace.h: $sym" >&2
    missing=$((missing + 1))
  }
done <"$TMP/exported"
[ "$missing" -eq 0 ] || fail "$missing exported symbols are not in the public header"

# And the internals really are gone (this list once leaked).
for sym in reader_fields_fast reader_parse_text pipe_next pipe_start; do
  if grep -qx "$sym" "$TMP/exported"; then
    fail "$sym is exported"
  fi
done
echo "$(wc -l <"$TMP/exported") symbols exported, all picl_* and declared"

# libpicl and libpicl-mpi (the PICL runtime): the API of picl.h, nothing
# else (the tracing layer pt_* and the backends once leaked).
rhdr="$PICL_SRCDIR/picl-rt/picl.h"
for lib in libpicl libpicl-mpi; do
  so=
  for f in "$PICL_BUILDDIR"/picl-rt/.libs/$lib.so.*.*.*; do
    [ -f "$f" ] && so=$f
  done
  [ -n "$so" ] || continue
  nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRW]$/ { print $3 }' | sort -u >"$TMP/rt"
  [ -s "$TMP/rt" ] || fail "$so exports nothing"
  while read -r sym; do
    grep -q "[^A-Za-z0-9_]$sym *(" "$rhdr" ||
      fail "$lib exports $sym, which picl.h does not declare"
  done <"$TMP/rt"
  echo "$lib: $(wc -l <"$TMP/rt") symbols exported, all declared in picl.h"
done

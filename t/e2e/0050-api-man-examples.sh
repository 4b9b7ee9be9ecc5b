#!/bin/sh
# The programs of libpicl-trace(3)'s EXAMPLES, pasted as a reader of the
# page would (roff escapes undone), build warning-free against the library
# as `make install` puts it, through pkg-config alone, and do what the page
# says: count prints each processor's records, reports a malformed record
# as path:line:column and goes on, stops at an error that ends the reading,
# and exits 1 then; send writes the zstd trace of the record the page shows.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

install_lib
command -v zstd >/dev/null || { echo "SKIP: zstd (the program) is missing"; exit 77; }

# The Nth .nf/.fi block of the EXAMPLES section, as the page shows it.
man="$PICL_SRCDIR/man/libpicl-trace.3"
example() { # N
  sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$man" |
    awk -v n="$1" '/^\.nf$/ { on = ++k == n; next } /^\.fi$/ { on = 0 } on' |
    sed -e 's/\\-/-/g' -e 's/\\e/\\/g'
}
example 1 >"$TMP/count.c"
example 2 >"$TMP/send.c"
grep -q '^int main' "$TMP/count.c" || fail "no first program (count) in the EXAMPLES of $man"
grep -q '^int main' "$TMP/send.c" || fail "no second program (send) in the EXAMPLES of $man"
for p in count send; do
  # shellcheck disable=SC2086 # (flags are words)
  run $cc -std=c99 -pedantic -Wall -Wextra -Werror $san $cflags -o "$TMP/$p" "$TMP/$p.c" $libs
  [ "$rc" -eq 0 ] || { cat "$TMP/err" >&2; fail "the page's $p.c does not build: $last"; }
done
LD_LIBRARY_PATH="$dest$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

# count: the records of each processor, as awk counts the lines
cat >"$TMP/two.picl" <<'EOF'
-2 1 0 0 0 0
-3 2 0.5 1 0 1 2 7
-4 2 0.75 1 0 0
-2 1 1 32767 0 0
-201 -1 0 -1 -1 2 2 -5 1
-2 3 1.5 0 0 0
EOF
run "$TMP/count" "$TMP/two.picl"
expect_rc 0
awk '$4 >= 0 && $4 < 64 { n[$4]++ } !($4 >= 0 && $4 < 64) { o++ }
     END { for (p = 0; p < 64; p++) if (n[p]) printf "processor %d: %d records\n", p, n[p];
           printf "others: %d records\n", o }' "$TMP/two.picl" >"$TMP/want-count"
cmp "$TMP/want-count" "$TMP/out" || { cat "$TMP/out" >&2; fail "count miscounts $TMP/two.picl"; }

# a malformed record: reported with its place, skipped, exit 1
printf -- '-2 1 0 0 0 0\n-2 x 0 0 0 0\n-2 1 1 0 0 0\n' >"$TMP/bad.picl"
run "$TMP/count" "$TMP/bad.picl"
expect_rc 1
grep -q '^processor 0: 2 records$' "$TMP/out" || fail "count did not go on past the bad record"
grep -q "^count: $TMP/bad.picl:2:4: " "$TMP/err" || { cat "$TMP/err" >&2; fail "count did not report path:line:column"; }
# one that ends the reading: a truncated zstd stream
printf -- '-2 1 0 0 0 0\n-2 1 1 0 0 0\n' | zstd -q -c >"$TMP/whole.zst"
head -c 12 "$TMP/whole.zst" >"$TMP/cut.zst"
run "$TMP/count" "$TMP/cut.zst"
expect_rc 1
[ "$(grep -c '^count: ' "$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "count did not stop at the corrupt stream"; }
run "$TMP/count" "$TMP/none.picl"
expect_rc 2

# send: the record the page shows, zstd-compressed, and only once closed
run "$TMP/send" "$TMP/sent.zst"
expect_rc 0
want=$(sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$man" | sed -n '/^\.IP$/{n;p;}' | sed -n 2p |
  sed -e 's/^\.B //' -e 's/\\-/-/g' -e 's/\\(dq/"/g')
[ -n "$want" ] || fail "the page shows no record for send"
zstd -q -t "$TMP/sent.zst" || fail "send did not write a zstd stream"
[ "$(zstd -q -d -c "$TMP/sent.zst")" = "$want" ] ||
  fail "send wrote \"$(zstd -q -d -c "$TMP/sent.zst")\", the page says \"$want\""
run "$TMP/send" "$TMP/no-such-dir/sent.zst"
expect_rc 1
grep -q "^send: $TMP/no-such-dir/sent.zst: " "$TMP/err" || { cat "$TMP/err" >&2; fail "send did not say why it could not write"; }
echo "ok: the programs of libpicl-trace(3) build and do what the page says"

#!/bin/sh
# 0036-stdout-write-error.sh - standard output that cannot be written (a
# regular file under a file-size limit of 0: every write fails with EFBIG,
# no device involved) is told in one form whichever command wrote it, the
# command named: "picltrace CMD: <stdout>: cannot write: PROBLEM", once,
# exit 2; picltrace's own --help and --version say "picltrace: <stdout>:
# ...". (sync leaves its report's write to picltrace's check at exit;
# the other commands check theirs themselves.)
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
export PICL_SCHEMA="$PICL_SRCDIR/schemas/picl.yaml"
t="$PICL_SRCDIR/testdata/validate/clean-2proc.picl"
cd "$TMP"

# full WHO ARGS...: picltrace ARGS with standard output a file it cannot
# grow (the limit set in a subshell); its standard error and then its exit
# status come through a pipe (a file would not grow either)
full() {
  who=$1; shift
  sh -c 'trap "" XFSZ; (ulimit -f 0; exec "$@" > big.out); echo "exit $?"' sh "$PT" "$@" \
    2>&1 | cat > "$TMP/msg"
  [ "$(tail -n 1 "$TMP/msg")" = "exit 2" ] || fail "picltrace $*: $(cat "$TMP/msg")"
  [ "$(wc -l < "$TMP/msg")" -eq 2 ] || fail "picltrace $*: $(cat "$TMP/msg")"
  grep -q "^$who: <stdout>: cannot write: " "$TMP/msg" ||
    fail "picltrace $*: '$(head -n 1 "$TMP/msg")', not '$who: <stdout>: cannot write: ...'"
  rm -f big.out
}
full "picltrace" --help
full "picltrace" --version
full "picltrace sort" help sort
for c in "validate" "cat" "sort" "filter" "stat" "plot --format=script" \
	 "sync --report -n" "merge"; do
  full "picltrace ${c%% *}" $c "$t"
done
echo "ok: 11 commands"

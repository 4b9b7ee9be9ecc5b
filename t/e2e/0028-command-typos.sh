#!/bin/sh
# 0028-command-typos.sh - a mistyped command name is refused (exit 2) with
# the command it most resembles, named once, whether run or asked help on;
# a name near none, or near several alike, gets no guess; an option before
# the command is called an unrecognized option, as getopt_long calls one, not a command; `picltrace help
# help` lists the commands as `picltrace help` does.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

# suggests TYPO COMMAND: both ways of using TYPO name COMMAND and nothing else
suggests() {
  for how in "" help; do
    run "$PT" $how "$1"
    expect_rc 2
    [ ! -s "$TMP/out" ] || fail "$last: wrote to standard output"
    grep -q "'$1' is not a picltrace command" "$TMP/err" ||
      fail "$last: does not say '$1' is not a command: $(cat "$TMP/err")"
    grep -q "did you mean '$2'?" "$TMP/err" ||
      fail "$last: does not suggest '$2': $(cat "$TMP/err")"
    [ "$(wc -l < "$TMP/err")" -eq 1 ] || fail "$last: more than one line: $(cat "$TMP/err")"
  done
}
suggests stats stat       # a command it begins with
suggests sotr sort        # two letters swapped
suggests vaildate validate
suggests fliter filter
suggests merg merge       # one letter short
suggests plots plot
suggests cta cat
suggests val validate     # the beginning of one command
suggests st stat

# no guess for a name near no command, or as near to several ("s"; "sat"
# is one edit from stat and from cat)
for name in nosuch s sat; do
  run "$PT" "$name"
  expect_rc 2
  grep -q "did you mean" "$TMP/err" && fail "$last: guessed: $(cat "$TMP/err")"
  grep -q "'$name' is not a picltrace command; see 'picltrace --help'" "$TMP/err" ||
    fail "$last: $(cat "$TMP/err")"
done

# an option picltrace does not take is an option, not a command
for o in -x --nosuch --verbose; do
  run "$PT" "$o"
  expect_rc 2
  grep -q "unrecognized option '$o'" "$TMP/err" || fail "$last: $(cat "$TMP/err")"
  grep -q "not a picltrace command" "$TMP/err" && fail "$last: called a command"
done

# help on help, and picltrace alone (usage on standard error, exit 2)
run "$PT" help
expect_rc 0
cp "$TMP/out" "$TMP/usage"
grep -q '^usage: picltrace' "$TMP/usage" || fail "picltrace help: no usage"
for h in help --help; do
  run "$PT" help "$h"
  expect_rc 0
  cmp -s "$TMP/usage" "$TMP/out" || fail "$last: not the list of commands"
done
run "$PT"
expect_rc 2
cmp -s "$TMP/usage" "$TMP/err" || fail "picltrace alone: not the usage on standard error"
echo "ok: $ntest runs"

#!/bin/sh
# 0031-option-errors.sh - the same mistake on the command line is told in
# the same words by every picltrace command (only the command's name
# differs), once, on standard error (a bad option followed by the usage's
# synopsis), with exit status 2 and nothing on
# standard output: an unknown long or short option, an option missing its
# argument, a value given to an option that takes none, a file that does
# not exist, a directory given as a trace; and a bad value, in the same
# form for every option.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
export PICL_SCHEMA="$PICL_SRCDIR/schemas/picl.yaml"
t="$PICL_SRCDIR/testdata/validate/clean-2proc.picl"
cmds="validate cat sort merge filter sync stat plot"

# same CASE ARGS...: every command run with ARGS (the command's name
# where ARGS says CMD) exits 2 with nothing on standard output, and the
# first line of its standard error, its name made CMD, is the same for all
same() {
  what=$1; shift
  first=
  for c in $cmds; do
    args=$(printf '%s\n' "$@" | sed "s/CMD/$c/g")
    # (word splitting on newlines only: arguments hold no blanks)
    IFS='
'
    run "$PT" "$c" $args
    unset IFS
    expect_rc 2
    [ ! -s "$TMP/out" ] || fail "$last: wrote to standard output"
    line=$(head -n 1 "$TMP/err" | sed "s/^picltrace $c: /picltrace CMD: /")
    case $line in "picltrace CMD: "*) ;; *) fail "$last: '$line' does not name the command" ;; esac
    n=$(grep -c -F -e "$(head -n 1 "$TMP/err" | sed 's/^picltrace [a-z]*: //')" "$TMP/err")
    [ "$n" -eq 1 ] || fail "$last: says it $n times"
    if [ -z "$first" ]; then
      first=$line; firstc=$c
    else
      [ "$line" = "$first" ] ||
        fail "$what: $c says '$line', $firstc '$first'"
    fi
  done
}

same "an unknown long option" --no-such-option "$t"
# after the message, the usage's synopsis as --help begins with, not all of
# --help (forty lines that pushed the message off the screen)
for c in validate cat sort merge filter sync stat plot; do
  "$PT" $c --help | sed '/^$/q' | sed '/^$/d' > "$TMP/synopsis"
  for bad in --no-such-option -Y --help=1; do
    run "$PT" $c $bad "$t"
    expect_rc 2
    tail -n +2 "$TMP/err" > "$TMP/after"
    cmp -s "$TMP/synopsis" "$TMP/after" ||
      fail "$last: after the message, not the synopsis: $(head -n 3 "$TMP/after")"
  done
done
same "an unknown short option" -Y "$t"
same "--help given a value" --help=1 "$t"
same "a missing file" "$TMP/nosuch.picl"
mkdir "$TMP/dir"
same "a directory as a trace" "$TMP/dir"
# an option missing its argument, last on the line (each command's own
# option that takes one: --tmpdir, or --output for the two without it)
cmds="validate sort merge sync stat plot" same "--tmpdir without its value" "$t" --tmpdir
cmds="cat filter" same "--output without its value" "$t" --output

# a bad value, in every command that reads one: "OPT takes WHAT, not 'VALUE'"
for cv in "validate --max-errors" "validate --format" "validate --memory" \
	  "stat --format" "stat --memory" "plot --kind" "plot --format" "plot --bins" \
	  "plot --size" "sort --batch-size" "sort --level" "cat --level" "merge --memory" \
	  "filter --from" "filter --to" "sync --reference" "sync --min-latency" \
	  "sync --max-drift" "sync --memory" "sync --format"; do
  set -- $cv
  run "$PT" "$1" "$2=x+" "$t"
  expect_rc 2
  head -n 1 "$TMP/err" | grep -q -e "^picltrace $1: $2 takes .*, not 'x+'\$" ||
    fail "$last: $(head -n 1 "$TMP/err")"
done
echo "ok: $ntest runs"

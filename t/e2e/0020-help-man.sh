#!/bin/sh
# 0020-help-man.sh - every option a command's --help lists is documented in
# its man page (man/picltrace-CMD.1, piclrun.1, picl-cc.1), every option
# its getopt_long tables accept (long and short) is in both, and --help
# exits 0 with the usage on standard output.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

# options COMMAND...: the long options in COMMAND --help, one a line
options() {
  run "$@" --help
  expect_rc 0
  grep -q -i 'usage' "$TMP/out" || fail "$*: --help prints no usage"
  grep -o -- '--[a-z][a-z0-9-]*' "$TMP/out" | sort -u
}

# documented MAN OPTION...: each OPTION (--name) appears in the man page,
# where roff writes it \-\-name (and a dash inside it \-)
documented() {
  page=$1; shift
  [ -f "$page" ] || fail "no man page $page"
  sed 's/\\-/-/g' "$page" > "$TMP/page"
  for o in "$@"; do
    grep -q -e "$o\\([^a-z0-9-]\\|\$\\)" "$TMP/page" ||
      fail "$page does not document $o (listed by --help)"
  done
}

# accepted SOURCE: the options SOURCE's getopt_long tables accept, one a
# line: each long option as --name, each short one (in the option string
# passed to getopt_long) as -c
accepted() {
  awk '/struct option [a-z_]*\[\] = \{/,/\{ NULL/' "$1" |
    sed -n 's/.*{ "\([a-z][a-z0-9-]*\)",.*/--\1/p'
  sed -n 's/.*getopt_long([^"]*"\([^"]*\)".*/\1/p' "$1" | tr -d ':+' |
    sed 's/./-&\n/g' | grep .
}

# offered SOURCE HELP MAN: every option SOURCE accepts is in the --help
# text HELP (a file) and in the man page MAN
offered() {
  sed 's/\\-/-/g' "$3" > "$TMP/page"
  opts=$(accepted "$1")
  [ -n "$opts" ] || fail "$1: no getopt_long options found"
  for o in $opts; do
    grep -q -e "$o\\([^a-zA-Z0-9-]\\|\$\\)" "$2" ||
      fail "$1 accepts $o, which its --help does not list"
    grep -q -e "$o\\([^a-zA-Z0-9-]\\|\$\\)" "$TMP/page" ||
      fail "$1 accepts $o, which $3 does not document"
  done
}

n=0
for cmd in cat validate sort merge filter sync stat plot; do
  src=
  for d in picltrace sort-merge stats libpicl-trace; do
    [ -f "$PICL_SRCDIR/$d/cmd-$cmd.c" ] && src="$PICL_SRCDIR/$d/cmd-$cmd.c"
  done
  [ -n "$src" ] || fail "no source for picltrace $cmd"
  "$PT" "$cmd" --help > "$TMP/help"
  offered "$src" "$TMP/help" "$PICL_SRCDIR/man/picltrace-$cmd.1"
  documented "$PICL_SRCDIR/man/picltrace-$cmd.1" $(options "$PT" "$cmd")
  n=$((n + 1))
done
documented "$PICL_SRCDIR/man/picltrace.1" $(options "$PT")
documented "$PICL_SRCDIR/man/piclrun.1" $(options "$PICL_BUILDDIR/picl-rt/piclrun")
"$PICL_BUILDDIR/picl-rt/piclrun" --help > "$TMP/help"
offered "$PICL_SRCDIR/picl-rt/piclrun.c" "$TMP/help" "$PICL_SRCDIR/man/piclrun.1"
documented "$PICL_SRCDIR/man/picl-cc.1" $(options "$PICL_BUILDDIR/picl-rt/picl-cc")

# --version: the package's version, the same for both programs
run "$PT" --version
expect_rc 0
v=$(sed -n 's/^picltrace //p' "$TMP/out")
[ -n "$v" ] || fail "picltrace --version: $(cat "$TMP/out")"
run "$PICL_BUILDDIR/picl-rt/piclrun" --version
expect_rc 0
[ "$(cat "$TMP/out")" = "piclrun $v" ] || fail "piclrun --version: $(cat "$TMP/out")"

# an unknown command, asked for or for help on: where to look
for how in "" help; do
  run "$PT" $how nosuch
  expect_rc 2
  expect_err <<'T'
picltrace: 'nosuch' is not a picltrace command; see 'picltrace --help'
T
done

# every function the library's header declares is named in its man page
nf=0
for f in $(grep -o '\bpicl_[a-z0-9_]*(' "$PICL_SRCDIR/libpicl-trace/picl-trace.h" |
	   tr -d '(' | sort -u); do
  grep -q -e "$f\\b" "$PICL_SRCDIR/man/libpicl-trace.3" ||
    fail "man/libpicl-trace.3 does not mention $f (declared in picl-trace.h)"
  nf=$((nf + 1))
done
[ "$nf" -gt 60 ] || fail "only $nf functions found in picl-trace.h"
echo "ok: $n subcommands, picltrace, piclrun and picl-cc documented; $nf library functions"

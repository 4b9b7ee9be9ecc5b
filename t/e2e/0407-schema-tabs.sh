#!/bin/sh
# 0407-schema-tabs.sh - a tab where YAML wants spaces (indenting a list item,
# after its dash) in a user schema is named as a tab at its line and
# column, one line, exit 2, nothing on standard output; libyaml alone said
# "found character that cannot start any token", which does not say which.
# A tab between a key and its value is legal YAML and is taken.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

printf -- '-3 -901 0.0 0 0 0\n-4 -901 1.0 0 0 0\n' >t.picl

# tab NAME WHERE: validate --schema=NAME fails at WHERE naming the tab.
tab() {
  run "$PT" validate --schema="$1" t.picl
  expect_rc 2
  expect_out </dev/null
  [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$last: more than one line: $(cat "$TMP/err")"
  case "$(cat "$TMP/err")" in
    "picltrace validate: $1:$2: "*tab*spaces*) ;;
    *) fail "$last: expected '$1:$2: ...tab...spaces', got: $(cat "$TMP/err")" ;;
  esac
}

ev='name: a, category: user, produces: mark'
printf 'events:\n\t- {type: 7, %s}\n' "$ev" >indent.yaml
tab indent.yaml 2:1
printf 'events:\n  -\t{type: 7, %s}\n' "$ev" >dash.yaml
tab dash.yaml 2:4

printf 'events:\n  - {type:\t7, %s}\n' "$ev" >value.yaml
validate_ok t.picl --schema=value.yaml

#!/bin/sh
# 0408-schema-record-categories.sh - a record's `category` must be the one
# picl-schema(5) gives its number (Table 3 and the header records: user for
# 0 and up), as an event's must (0975): a user record 5 of "header", a
# range of user records of "label", a range across user and other types
# are refused at their "category" key (file:line:column), exit 2, nothing
# on standard output. Types the format leaves out (-8 ... -100) may have
# any category, and agreeing ones are taken.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

printf -- '-3 -901 0.0 0 0 0\n-4 -901 1.0 0 0 0\n' >t.picl

# refused NAME WHERE TEXT
refused() {
  run "$PT" validate --schema="$1" t.picl
  expect_rc 2
  expect_out </dev/null
  case "$(cat "$TMP/err")" in
    "picltrace validate: $1:$2: $3") ;;
    *) fail "$1: expected '$1:$2: $3', got: $(cat "$TMP/err")" ;;
  esac
}
one() { printf 'records:\n  - {%s, name: x, category: %s}\n' "$1" "$2" >"$3"; }

one 'type: 5' header hdr5.yaml
refused hdr5.yaml 2:24 'record type 5 is of category user in the format (Table 3), not header'
one 'range: [5, 8]' label label58.yaml
refused label58.yaml 2:30 'record types [5, 8] are of category user in the format (Table 3), not label'
one 'range: [-100, 8]' user across.yaml
refused across.yaml 2:33 'the range [-100, 8] holds record types of category user and others (Table 3); split it'

one 'type: 5' user user5.yaml
validate_ok t.picl --schema=user5.yaml
one 'range: [-100, -8]' message gap.yaml
validate_ok t.picl --schema=gap.yaml

#!/bin/sh
# 0975-schema-categories.sh - stat and plot take an event's category from
# its number, as the format numbers them (Table 4); a schema's `category`
# that says otherwise (a user event 7 of "communication", a send -45 of
# "user", a type the format leaves out of every group of "tracing", a
# range across groups) is refused at its "category" key (file:line:column),
# exit 2, nothing on standard output, so the two can never disagree. The
# default schema passes, and agreeing categories are taken. The same for
# a record's category (Table 3 and the header records: user for 0 and up):
# a user record 5 of "header", a range of user records of "label", a range
# across user and other types are refused; types the format leaves out
# (-8 ... -100) may have any category.
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
one() { printf 'events:\n  - {%s, name: x, category: %s, produces: mark}\n' "$1" "$2" >"$3"; }

one 'type: 7' communication user7.yaml
refused user7.yaml 2:24 'event type 7 is of category user in the format (Table 4), not communication'
one 'type: -45' user send45.yaml
refused send45.yaml 2:26 'event type -45 is of category communication in the format (Table 4), not user'
one 'type: -777' tracing gap.yaml
refused gap.yaml 2:27 'event type -777 is in no category of the format (Table 4): it may be user or generic, not tracing'
one 'type: -5' subset gap5.yaml
refused gap5.yaml 2:25 'event type -5 is in no category of the format (Table 4): it may be user or generic, not subset'
one 'range: [-210, -190]' file-io across.yaml
refused across.yaml 2:36 'the range [-210, -190] holds event types of the format'"'"'s categories communication and file-io (Table 4); split it'
one 'range: [-705, -650]' generic half.yaml
refused half.yaml 2:36 'the range [-705, -650] holds event types of category generic and event type -705, which the format puts in none (Table 4); split it'
one 'range: [-300, -250]' communication io.yaml
refused io.yaml 2:36 'event types [-300, -250] are of category file-io in the format (Table 4), not communication'

# agreeing ones are taken (and the default schema, which every run loads)
{ echo 'events:'
  echo '  - {type: 7, name: a, category: user, produces: mark}'
  echo '  - {type: -45, name: b, category: communication, produces: mark}'
  echo '  - {type: -777, name: c, category: generic, produces: mark}'
  echo '  - {range: [-10, -5], name: d, category: user, produces: mark}'
  echo '  - {range: [-250, -240], name: e, category: file-io, produces: mark}'
} >good.yaml
run "$PT" validate --schema=good.yaml t.picl
expect_rc 0
run "$PT" stat --schema=good.yaml t.picl
expect_rc 0

# records (Table 3)
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

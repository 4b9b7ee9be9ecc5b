#!/bin/sh
# 0972-schema-only-adds.sh - a user schema (--schema) may only add types: one
# that redefines an event or record type of the format (or of the default
# schema's header records) is refused at that definition with
# file:line:column, exit 2 and nothing on standard output, whether as an
# exact type or inside a range; new types, negative ones the default schema
# leaves undescribed included, and a second user schema that replaces the
# first one's type are accepted.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

printf -- '-3 -901 0.0 0 0 0\n-21 -901 0.5 0 0 0\n-4 -901 1.0 0 0 0\n' >t.picl
ev='category: user, produces: mark'

# refused NAME WHERE TEXT: validate --schema=NAME fails with
# "NAME:WHERE: ...TEXT..." as its only line.
refused() {
  run "$PT" validate --schema="$1" t.picl
  expect_rc 2
  expect_out </dev/null
  [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$last: more than one line: $(cat "$TMP/err")"
  case "$(cat "$TMP/err")" in
    "picltrace validate: $1:$2: "*"$3"*"a user schema may only add types") ;;
    *) fail "$1: expected '$1:$2: ...$3...', got: $(cat "$TMP/err")" ;;
  esac
}

printf 'events:\n  - {type: 7, name: mine, %s}\n  - {type: -21, name: mysend, category: communication, produces: mark}\n' "$ev" >send.yaml
refused send.yaml 3:12 'event type -21 ("send0") is defined by the format (Table 4)'
printf 'events:\n  - {type: -1012, name: sends, category: subset, produces: mark}\n' >subset.yaml
refused subset.yaml 2:12 'event type -1012'
printf 'records:\n  - {type: -3, name: entry, category: event}\n' >rec.yaml
refused rec.yaml 2:12 'record type -3 ("event entry") is defined by the format (Table 3)'
printf 'records:\n  - {type: -301, name: mine, category: header}\n' >hdr.yaml
refused hdr.yaml 2:12 'record type -301'
printf 'records:\n  - {type: -350, name: mine, category: header}\n' >hdrange.yaml
refused hdrange.yaml 2:12 'record type -350 (range [-399, -308]'
# a range is refused for any predefined type inside it, the first one named
printf 'events:\n  - {range: [-60, -40], name: block, category: communication, produces: mark}\n' >range.yaml
refused range.yaml 2:13 'event type -'
printf 'events:\n  - {range: [min, -1001], name: all, category: subset, produces: mark}\n' >all.yaml
refused all.yaml 2:13 'event type'

# additions are fine, and a later user schema replaces an earlier one's type
printf 'events:\n  - {type: 7, name: mine, %s}\n  - {type: -777, name: odd, %s}\n  - {range: [100, 200], name: band, %s}\nrecords:\n  - {type: 3, name: mine, category: user}\n' \
  "$ev" "$ev" "$ev" >add.yaml
printf 'events:\n  - {type: 7, name: mine again, %s}\n' "$ev" >again.yaml
run "$PT" validate --schema=add.yaml --schema=again.yaml t.picl
expect_rc 0
# the default schema itself (PICL_SCHEMA) defines them all
cp "$PICL_SRCDIR/schemas/picl.yaml" own.yaml
PICL_SCHEMA="$TMP/own.yaml" run "$PT" validate t.picl
expect_rc 0

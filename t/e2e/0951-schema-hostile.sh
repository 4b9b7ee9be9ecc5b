#!/bin/sh
# 0951-schema-hostile.sh - user schemas (validate --schema) that are empty,
# not YAML, of the wrong shape, self-contradictory, huge, deep, aliased,
# badly encoded, a directory or missing: each fails alone on standard error
# with file:line:column and what was expected (an i/o error: the file and
# the system's words), exit 2, nothing on standard output, in a linear time.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

printf -- '-3 -901 0.0 0 0 0\n-4 -901 1.0 0 0 0\n' >t.picl

# bad NAME WHERE TEXT: validate --schema=NAME fails with
# "NAME:WHERE: ...TEXT..." as its only line.
bad() {
  run_within 20 "$PT" validate --schema="$1" t.picl
  expect_rc 2
  expect_out </dev/null
  [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$last: more than one line: $(cat "$TMP/err")"
  case "$(cat "$TMP/err")" in
    "picltrace validate: $1:$2: "*"$3"*) ;;
    *) fail "$last: expected '$1:$2: ...$3...', got: $(cat "$TMP/err")" ;;
  esac
}

ev='name: a, category: user, produces: mark'

: >empty.yaml
bad empty.yaml 1:1 'holds no YAML document'
printf '{[}\n' >notyaml.yaml
bad notyaml.yaml 1:2 'expected a key in the schema, found a list'
printf 'just words\n' >scalar.yaml
bad scalar.yaml 1:1 'expected a mapping for the schema, found a scalar'
printf -- '- events\n' >toplist.yaml
bad toplist.yaml 1:1 'expected a mapping for the schema, found a list'
printf 'events: {type: 7}\n' >evmap.yaml
bad evmap.yaml 1:9 'expected a list for "events", found a mapping'
printf 'events:\n  - [7]\n' >evlist.yaml
bad evlist.yaml 2:5 'expected a mapping for an event, found a list'
printf 'events:\n  - {type: "7", %s}\n' "$ev" >quoted.yaml
bad quoted.yaml 2:12 'expected an integer for "type", found the quoted text "7"'
# a YAML tag is not read (the key types a value): named as a tag
printf 'events:\n  - {type: !!int 7, %s}\n' "$ev" >tagged.yaml
bad tagged.yaml 2:12 'found the tagged value "7" (a schema takes no YAML tags'
printf 'events:\n  - {type: 7, name: a, category: user, produces: mark,\n     mark: {descriptor: "%%d", count: 1, fields: [{name: n, kind: int, volume: !!bool true}]}}\n' >tagbool.yaml
bad tagbool.yaml 3:79 'expected true or false for "volume", found the tagged value "true" (a schema takes no YAML tags'
printf 'events:\n  - {type: 7, %s}\n  - {type: 7, %s}\n' "$ev" "$ev" >dup.yaml
bad dup.yaml 3:12 'event type 7 is defined twice (first at line 2, column 12)'
printf 'events:\n  - {type: 7, type: 8, %s}\n' "$ev" >dupkey.yaml
bad dupkey.yaml 2:15 'key "type" appears twice in an event'
printf 'events:\n  - {type: 99999999999999999999, %s}\n' "$ev" >huge.yaml
bad huge.yaml 2:12 'out of range for "type" (-2147483648 to 2147483647)'
printf 'events:\n  - {range: [10, 5], %s}\n' "$ev" >range.yaml
bad range.yaml 2:13 'the range [10, 5] is empty'
printf 'events:\n  - {type: 7, %s, mark: {descriptor: "%%d", count: 99999999999}}\n' "$ev" >count.yaml
bad count.yaml 2:88 'out of range for "count"'
printf 'events:\n  - {type: 7, %s, mark: {descriptor: "%%d%%q", count: 1}}\n' "$ev" >desc.yaml
bad desc.yaml 2:75 'descriptor "%d%q", column 4 of it'
printf 'events:\n  - {type: 7, %s, mark: {descriptor: %%d, count: 1}}\n' "$ev" >plain.yaml
bad plain.yaml 2:75 'must be quoted'
printf 'events:\n  - {type: 7, %s, mark: {descriptor: "%%d%%lf", count: 1,\n      fields: [{name: x, kind: int}, {name: y, kind: int}]}}\n' "$ev" >fields.yaml
bad fields.yaml 3:7 'field 2 ("y") is of kind int, but descriptor "%d%lf" says double'
printf 'records:\n  - {type: 3, name: r, category: user, descriptor: "%%d", count: 0}\n' >rec0.yaml
bad rec0.yaml 2:40 'a descriptor for a record whose count is 0'
printf 'events:\n  - {type: 7, name: "a\\nb", category: user, produces: mark}\n' >name.yaml
bad name.yaml 2:21 'control character'

# Aliases are refused where they first appear (no expansion: the "billion
# laughs" costs nothing); anchors alone are harmless.
{
  echo 'description: &a "lol"'
  echo 'events: &b'
  echo '  - {type: 7, name: *a, category: user, produces: mark}'
  echo 'records: *b'
} >laughs.yaml
bad laughs.yaml 3:21 'aliases (*name) are not supported'
printf 'events: &e\n  - &f {type: 7, %s}\n' "$ev" >anchor.yaml
validate_ok t.picl --schema=anchor.yaml

# Deep nesting: refused at the first level the schema does not expect.
awk 'BEGIN { s = "events: "; for (i = 0; i < 100000; i++) s = s "["; print s }' >deep.yaml
bad deep.yaml 1:10 'expected a mapping for an event, found a list'
awk 'BEGIN { print "events:"; for (i = 0; i < 100000; i++) print "  - {type: " i ", name: e" i ", category: user, produces: mark}" }' >many.yaml
validate_ok t.picl --schema=many.yaml
# Many ranges: each new one was looked for among all those before it (150000
# took half a minute); and a range that replaces one of an earlier file
# must stay the newest.
awk 'BEGIN { print "events:"; for (i = 0; i < 150000; i++) print "  - {range: [" 2 * i ", " 2 * i + 1 "], name: r" i ", category: user, produces: mark}" }' >ranges.yaml
run_within 15 "$PT" validate --schema=ranges.yaml t.picl
expect_rc 0

# Bytes that are not UTF-8: the line and byte column of the bad one.
printf 'description: caf\303\251\nevents:\n  - {type: 7, name: "\377", category: user, produces: mark}\n' >latin.yaml
bad latin.yaml 3:22 'invalid leading UTF-8 octet (byte 0xff)'

# A directory, a missing file: the system's words, no position.
mkdir dir.yaml
run "$PT" validate --schema=dir.yaml t.picl
expect_rc 2
expect_out </dev/null
expect_err <<'T'
picltrace validate: dir.yaml: cannot read the schema: Is a directory
T
run "$PT" validate --schema=nope.yaml t.picl
expect_rc 2
expect_err <<'T'
picltrace validate: nope.yaml: cannot open the schema: No such file or directory
T

#!/bin/sh
# 0720-hostile-inputs.sh - every command that reads a trace against every
# class of bad input, as a matrix (two tables: commands and inputs; adding
# either is one line). For each pair: the exit status the man pages give
# (2 a read error or malformed input; validate 1 for findings, 2 when it
# cannot read), the message names file:line:column where there is a line,
# is one line of printable ASCII (no trace bytes raw), no output file and
# no temporary file beside it or in --tmpdir is left, the input keeps its
# bytes and its mtime, and no sanitizer report (run in _build-asan too).
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"
mkdir o tmpd

# The commands. The columns: the exit status for an input of each kind
# (see the inputs below), then the arguments: @I is the input, @O the
# output (in o/, which must stay empty on failure), @T the --tmpdir,
# @G a good trace (merge reads it first, so that a bad second input comes
# after output was begun).
#               read syntax data label empty  ok  arguments
CMDS='validate         2    1     1    1     1     0   validate --tmpdir=@T @I
cat              2    2     2    2     0     0   cat -o @O @I
sort             2    2     0    0     0     0   sort -q --tmpdir=@T -o @O @I
sort-check       2    2     0    0     0     0   sort --check @I
merge            2    2     0    0     0     0   merge -q --tmpdir=@T -o @O @G @I
merge-unsorted   2    2     0    0     0     0   merge -q --unsorted --tmpdir=@T -o @O @G @I
filter           2    2     0    0     0     0   filter -p 0,1 -o @O @I
filter-pairs     2    2     0    0     0     0   filter --pairs -o @O @I
stat             2    2     0    2     0     0   stat --tmpdir=@T -o @O @I
stat-compare     2    2     0    2     0     0   stat --compare --tmpdir=@T -o @O @I
stat-emit        2    2     0    2     0     0   stat --emit-records --tmpdir=@T -o @O @I
plot             2    2     0    2     2     0   plot --format=script --tmpdir=@T -o @O @I
sync             2    2     2    2     0     0   sync -q --tmpdir=@T -o @O @I
sync-dry-run     2    2     2    2     0     0   sync --dry-run --tmpdir=@T @I'
# (data: an error in an event record's data, which sort, merge and filter
# move without decoding and stat and plot decode only where they need
# them; label: the same in a label (-5) or a system event's data, which
# stat and plot read to name things and count messages; their man pages
# say so. empty: no records, which validate finds wrong and
# plot has nothing to draw of.)

# A good trace: an alias, tracing entries and exits, messages, a user
# event record that uses the alias, and a label.
cat >good.picl <<'T'
-6 -1 -0.000001 -1 -1 1 "%d%s" 7 "%d%lf"
-3 -901 0.000000 0 0 0
-3 -901 0.000000 1 0 0
-3 -21 0.000020 0 0 3 2 8 1 1
-4 -21 0.000030 0 0 0
-3 -52 0.000035 1 0 1 2 1
-4 -52 0.000040 1 0 3 2 8 1 0
0 0 0.000055 0 0 1 7 3 2.5
-5 0 0.000060 -1 -1 5 0 phase
-4 -901 0.000100 0 0 0
-4 -901 0.000100 1 0 0
T
G=good.picl
{ cat $G; printf -- '-3 -901 0.0002'; } >fifo-feed.picl   # what a FIFO gets

# The inputs: name, kind (a column above), whether a message names a line
# (line) or only the file (file), and how to make it (into $f). A kind
# of "skip-root" is a read error root cannot have.
#     name          kind    where  how
CASES='empty        empty   -      : >$f
newline             empty   -      printf "\n" >$f
trunc               syntax  line   { cat $G; printf -- "-3 -901 0.0002"; } >$f
trunc-nl            syntax  line   { cat $G; printf -- "-3 -901 0.0002\n"; } >$f
few-fields          syntax  line   { cat $G; printf -- "-3 -901 0.000200 0\n"; } >$f
non-numeric         syntax  line   { head -3 $G; printf -- "-3 -901 0.0001x0 0 0 0\n"; } >$f
huge-number         syntax  line   { head -3 $G; printf -- "-3 -901 0.000100 99999999999999999999999 0 0\n"; } >$f
huge-time           syntax  line   { head -3 $G; printf -- "-3 -901 1e999999 0 0 0\n"; } >$f
long-line           syntax  line   { head -3 $G; printf -- "-5 0 0.000100 -1 -1 5 0 "; head -c 10485760 /dev/zero | tr "\\0" a; echo; } >$f
nul-byte            syntax  line   { head -3 $G; printf -- "-3 -901 0.000100\\0000 0 0\n"; } >$f
control-bytes       syntax  line   { head -3 $G; printf -- "-3 -901 0.0001\\033[31m\\001\\377\\r 0 0 0\n"; } >$f
label-too-long      label   line   { head -8 $G; printf -- "-5 0 0.000058 -1 -1 5 0 p\\033[31m\\001\\377\\376\\r\n"; tail -3 $G; } >$f
binary              syntax  line   LC_ALL=C awk "BEGIN { srand(7); for (i = 0; i < 4096; i++) printf \"%c\", int(rand() * 256) }" >$f
zstd-cut            read    line   zstd -q -c $G >z; head -c $(($(wc -c <z) / 2)) z >$f; rm z
zstd-garbage        read    line   { zstd -q -c $G; echo "garbage after the frame"; } >$f
directory           read    file   mkdir $f
missing             read    file   :
unreadable          skip-root file { cat $G >$f; chmod 000 $f; }
fifo                syntax  line   mkfifo $f
too-many-declared   label   line   { head -3 $G; printf -- "-3 -21 0.000020 0 0 3 2 8\n"; tail -2 $G; } >$f
huge-count          data    line   { head -7 $G; printf -- "0 0 0.000055 0 0 999999999999 0 x\n"; tail -3 $G; } >$f
negative-count      syntax  line   { head -7 $G; printf -- "0 0 0.000055 0 0 -5 0 x\n"; tail -3 $G; } >$f
unterminated        syntax  line   { printf -- "-6 -1 -0.000001 -1 -1 1 \"%%d%%s\" 7 \"%%d%%lf\n"; sed 1d $G; } >$f
percent-n           syntax  line   { printf -- "-6 -1 -0.000001 -1 -1 1 \"%%d%%s\" 7 \"%%n\"\n"; sed 1d $G; } >$f
percent-s           data    line   { printf -- "-6 -1 -0.000001 -1 -1 1 \"%%d%%s\" 7 \"%%s%%s%%s%%s\"\n"; sed 1d $G; } >$f
inline-percent-s    data    line   { head -7 $G; printf -- "0 0 0.000055 0 0 1 \"%%s%%s%%s%%s%%n\" 3\n"; tail -3 $G; } >$f
alias-redefined     data    line   { head -8 $G; printf -- "-6 -1 0.000056 -1 -1 1 \"%%d%%s\" 7 \"%%d\"\n0 0 0.000057 0 0 1 7 3 2.5\n"; tail -3 $G; } >$f
label-bad-utf8      ok      -      { head -8 $G; printf -- "-5 0 0.000058 -1 -1 4 0 \\377\\376\\300\\200\n"; tail -3 $G; } >$f
good                ok      -      cp $G $f'

sanitizer='AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:'
root=0
[ "$(id -u)" -ne 0 ] || root=1

echo "$CASES" | while read -r cname kind where how; do
  f=in-$cname.picl
  case $cname in zstd-*) f=in-$cname.picl.zst ;; esac
  rm -rf "$f"
  eval "$how"
  if [ "$kind" = skip-root ]; then
    [ $root -eq 0 ] || { rm -f "$f"; continue; }
    kind=read
  fi
  if [ -f "$f" ]; then
    touch -d '2001-02-03 04:05:06' "$f"
    cp -p "$f" saved
    mtime=$(stat -c %Y "$f")
  fi
  echo "$CMDS" | while read -r name r_read r_syntax r_data r_label r_empty r_ok args; do
    eval "want=\$r_$kind"
    argv=$(printf '%s\n' "$args" | sed "s|@I|$f|g; s|@O|o/out|g; s|@T|tmpd|g; s|@G|$G|g")
    if [ -p "$f" ]; then
      # a writer that gives up if the command never opens the FIFO
      timeout 20 sh -c "cat fifo-feed.picl >$f" &
    fi
    set -f
    run "$PT" $argv
    set +f
    what="$name on $cname"
    if grep -E -q "$sanitizer" "$TMP/err"; then
      cat "$TMP/err" >&2
      fail "$what: a sanitizer report"
    fi
    [ "$rc" -eq "$want" ] || {
      cat "$TMP/err" >&2
      fail "$what: exit status $rc, expected $want"
    }
    # where the message is: validate reports findings on standard output
    msg="$TMP/err"
    [ "$name" = validate ] && [ "$rc" -eq 1 ] && msg="$TMP/out"
    if [ "$rc" -ne 0 ] && [ "$want" -ne 0 ] && [ "$kind" != empty ]; then
      if [ "$name" != validate ]; then
        [ "$(wc -l <"$msg")" -eq 1 ] || {
          cat "$msg" >&2
          fail "$what: not one line of message"
        }
      fi
      LC_ALL=C grep -q '[^ -~]' "$msg" && {
        od -c "$msg" | head -20 >&2
        fail "$what: raw bytes in the message (not escaped)"
      }
      case $where in
        line) pat="^(picltrace [a-z]+: )?$f:[0-9]+:[0-9]+: " ;;
        file) pat="^picltrace [a-z]+: $f: " ;;
        *) pat=. ;;
      esac
      grep -E -q "$pat" "$msg" || {
        cat "$msg" >&2
        fail "$what: the message does not start with '$pat'"
      }
    fi
    if [ "$rc" -ne 0 ]; then
      [ ! -e o/out ] || fail "$what: exit $rc, but the output was left behind"
    fi
    left=$(ls -A o tmpd | grep -v -e '^o:$' -e '^tmpd:$' -e '^out$' -e '^$' || true)
    [ -z "$left" ] || fail "$what: left behind: $left"
    rm -f o/out
    if [ -f saved ]; then
      cmp -s saved "$f" || fail "$what: changed its input"
      [ "$(stat -c %Y "$f")" = "$mtime" ] || fail "$what: changed its input's mtime"
    fi
    wait
  done
  chmod 600 "$f" 2>/dev/null || true
  rm -rf "$f" saved
done

# nothing but our own files in the directory
left=$(ls -A | grep -v -x -e o -e tmpd -e out -e err -e good.picl -e fifo-feed.picl || true)
[ -z "$left" ] || fail "left behind in the working directory: $left"

# A file name with control characters (an escape sequence, a tab, a
# newline): every command's message on standard error is still one line,
# with them escaped, and names the file.
weird=$(printf 'in-\033[31m\t\nname')
cp fifo-feed.picl "$weird.picl"
echo "$CMDS" | while read -r name r_read r_syntax r_data r_label r_empty r_ok args; do
  [ "$name" != validate ] || continue   # (its findings go to standard output)
  argv=$(printf '%s\n' "$args" | sed "s|@I|@W|g; s|@O|o/out|g; s|@T|tmpd|g; s|@G|$G|g")
  set +e
  (
    set -f
    set --
    for a in $argv; do
      [ "$a" = @W ] && a="$weird.picl"
      set -- "$@" "$a"
    done
    "$PT" "$@" >"$TMP/out" 2>"$TMP/err"
  )
  rc=$?
  set -e
  what="$name on a name with control characters"
  [ "$rc" -eq "$r_syntax" ] || { cat -A "$TMP/err" >&2; fail "$what: exit status $rc, expected $r_syntax"; }
  [ "$(wc -l <"$TMP/err")" -eq 1 ] || { cat -A "$TMP/err" >&2; fail "$what: not one line of message"; }
  LC_ALL=C grep -q '[^ -~]' "$TMP/err" && { cat -A "$TMP/err" >&2; fail "$what: raw control characters"; }
  grep -q '^picltrace [a-z]*: in-\\x1b\[31m\\x09\\x0aname\.picl:[0-9]*:[0-9]*: ' "$TMP/err" ||
    { cat -A "$TMP/err" >&2; fail "$what: the message does not name the file, escaped"; }
  [ ! -e o/out ] || fail "$what: left its output"
done
# validate's findings and summary on standard output name it so too
set +e
"$PT" validate "$weird.picl" >"$TMP/out" 2>"$TMP/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "validate on a name with control characters: exit status $rc"
LC_ALL=C grep -q '[^ -~]' "$TMP/out" && { cat -A "$TMP/out" >&2; fail "validate's findings: raw control characters"; }
grep -q '^in-\\x1b\[31m\\x09\\x0aname\.picl:[0-9]*:[0-9]*: [a-z-]*: ' "$TMP/out" ||
  { cat -A "$TMP/out" >&2; fail "validate's findings do not name the file, escaped"; }
grep -q '^in-\\x1b\[31m\\x09\\x0aname\.picl: [0-9]* records' "$TMP/out" ||
  { cat -A "$TMP/out" >&2; fail "validate's summary does not name the file, escaped"; }
rm -f "$weird.picl"

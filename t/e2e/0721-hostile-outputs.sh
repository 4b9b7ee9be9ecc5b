#!/bin/sh
# 0721-hostile-outputs.sh - every command that writes a file against bad
# places for it, as a matrix (two tables: commands and places; adding
# either is one line): -o into a missing directory, onto a directory, onto
# the input and through a symbolic link to it, and onto a full disk (a
# 1 MB tmpfs, root only) with nothing or 16 KiB left. Each refusal exits
# 2 with one line naming the output as given; nothing is left (no output,
# no temporary file beside it or in --tmpdir), the input keeps its bytes,
# its mtime and its link. On the nearly full disk a command may succeed,
# but then with the whole output.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"
full="$TMP/full"
trap 'umount "$full" 2>/dev/null || :; rm -rf "$TMP"' EXIT
mkdir tmpd adir full

# The commands: name and arguments (@O the output, @T the --tmpdir, @I
# the input).
CMDS='cat            cat -o @O @I
cat-zstd         cat -z --level=1 -o @O @I
sort             sort -q --tmpdir=@T -o @O @I
merge            merge -q --tmpdir=@T -o @O @I
merge-unsorted   merge -q --unsorted --tmpdir=@T -o @O @I
filter           filter -p 0,1 -o @O @I
filter-pairs     filter --pairs -o @O @I
sync             sync -q --tmpdir=@T -o @O @I
stat-emit        stat --emit-records --tmpdir=@T -o @O @I
stat             stat --tmpdir=@T -o @O @I
plot-script      plot --format=script --tmpdir=@T -o @O @I
plot-png         plot --tmpdir=@T -o @O @I'

# The places: name, the output's name, the bytes left free on the tmpfs
# for the full ones (- for the others), and what the message says after
# the output's name (an extended regular expression).
#  name          output          free   message
PLACES='missing-dir  nodir/out.picl  -      cannot create
directory        adir            -      cannot create
input            in.picl         -      the output is also
link             link.picl       -      the output is also
full             full/out.picl   0      cannot write|gnuplot .* wrote no image
nearly-full      full/out.picl   16384  cannot write|gnuplot could not write'

"$GEN" --procs 4 --size 200K -o in.picl
touch -d '2001-02-03 04:05:06' in.picl
cp -p in.picl saved.picl
mtime=$(stat -c %Y in.picl)
ln -s in.picl link.picl

havefull=0
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=1m tmpfs "$full" 2>err; then
  havefull=1
else
  echo "note: no 1 MB tmpfs here (root only): the full-disk rows are skipped"
fi
havegp=1
GP="${GNUPLOT:-gnuplot}"
command -v "$GP" >/dev/null 2>&1 && "$GP" -e 'set terminal pngcairo' </dev/null >/dev/null 2>&1 ||
  havegp=0

sanitizer='AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:'

echo "$CMDS" | while read -r name args; do
  [ "$name" != plot-png ] || [ $havegp -eq 1 ] || continue
  # what the command writes on a disk with room: the whole output
  mkdir ref
  set -f
  run "$PT" $(printf '%s\n' "$args" | sed "s|@I|in.picl|g; s|@O|ref/out.picl|g; s|@T|tmpd|g")
  set +f
  expect_rc 0
  echo "$PLACES" | while read -r place out free msg; do
    [ "$free" = - ] || [ $havefull -eq 1 ] || continue
    if [ "$free" != - ]; then
      rm -f "$full"/*
      dd if=/dev/zero of="$full/fill" bs=4k 2>/dev/null || :
      [ "$free" -eq 0 ] || truncate -s -"$free" "$full/fill"
    fi
    what="$name -o $out ($place)"
    set -f
    run "$PT" $(printf '%s\n' "$args" | sed "s|@I|in.picl|g; s|@O|$out|g; s|@T|tmpd|g")
    set +f
    if grep -E -q "$sanitizer" "$TMP/err"; then
      cat "$TMP/err" >&2
      fail "$what: a sanitizer report"
    fi
    if [ "$place" = nearly-full ] && [ "$rc" -eq 0 ]; then
      # it fitted: then all of it
      if [ "$name" = plot-png ]; then
        is_png "$out" || fail "$what: exit 0 but no PNG"
      else
        cmp -s ref/out.picl "$out" || fail "$what: exit 0 but not the whole output"
      fi
      rm -f "$out"
    else
      [ "$rc" -eq 2 ] || {
        cat "$TMP/err" >&2
        fail "$what: exit status $rc, expected 2"
      }
      [ "$(wc -l <"$TMP/err")" -eq 1 ] || {
        cat "$TMP/err" >&2
        fail "$what: not one line of message"
      }
      grep -E -q "^picltrace [a-z]+: $out: ($msg)" "$TMP/err" || {
        cat "$TMP/err" >&2
        fail "$what: the message is not '$out: $msg...'"
      }
    fi
    [ ! -e nodir ] || fail "$what: made the missing directory"
    [ -z "$(ls -A adir tmpd | grep -v -e '^adir:$' -e '^tmpd:$' -e '^$' || true)" ] ||
      fail "$what: left files in adir or tmpd: $(ls -A adir tmpd)"
    if [ "$free" != - ]; then
      left=$(ls -A "$full" | grep -v -x fill || true)
      [ -z "$left" ] || fail "$what: left on the full disk: $left"
    fi
    cmp -s saved.picl in.picl || fail "$what: changed the input"
    [ "$(stat -c %Y in.picl)" = "$mtime" ] || fail "$what: changed the input's mtime"
    [ -L link.picl ] || fail "$what: replaced the link"
    left=$(ls -A | grep -v -x -e tmpd -e adir -e full -e ref -e in.picl -e saved.picl \
      -e link.picl -e out -e err -e want || true)
    [ -z "$left" ] || fail "$what: left behind: $left"
  done
  rm -rf ref
done

# --tmpdir: where sort and merge --unsorted spill runs past --memory and
# sync copies a pipe, a missing directory, a file, a full disk. The input
# comes through a pipe and is bigger than --memory, so that each of them
# uses --tmpdir.
#  name            arguments (@O the output in o/, @T the --tmpdir)
TCMDS='sort            sort -q --memory=1M --tmpdir=@T -o @O -
merge-unsorted     merge -q --unsorted --memory=1M --tmpdir=@T -o @O -
sync               sync -q --tmpdir=@T -o @O -
sync-dry-run       sync --dry-run --tmpdir=@T -'
#  name            --tmpdir   free  message (after "picltrace CMD: ")
TPLACES='missing-dir nodir    -     cannot create a temporary file in nodir: 
a-file             afile      -     cannot create a temporary file in afile: 
full               full       0     (a temporary run in full: cannot write|standard input: cannot copy it to a temporary file in full): '

"$GEN" --procs 4 --size 3M --unsorted -o big.picl
printf 'not a directory\n' >afile
cp afile afile.saved
mkdir o
echo "$TCMDS" | while read -r name args; do
  echo "$TPLACES" | while read -r place dir free msg; do
    [ "$free" = - ] || [ $havefull -eq 1 ] || continue
    if [ "$free" != - ]; then
      rm -f "$full"/*
      dd if=/dev/zero of="$full/fill" bs=4k 2>/dev/null || :
    fi
    what="$name --tmpdir=$dir ($place)"
    argv=$(printf '%s\n' "$args" | sed "s|@O|o/out|g; s|@T|$dir|g")
    set +e
    (set -f; cat big.picl | "$PT" $argv >"$TMP/out" 2>"$TMP/err")
    rc=$?
    set -e
    if grep -E -q "$sanitizer" "$TMP/err"; then
      cat "$TMP/err" >&2
      fail "$what: a sanitizer report"
    fi
    [ "$rc" -eq 2 ] || { cat "$TMP/err" >&2; fail "$what: exit status $rc, expected 2"; }
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "$what: not one line of message"; }
    grep -E -q "^picltrace [a-z]+: ($msg)" "$TMP/err" || {
      cat "$TMP/err" >&2
      fail "$what: the message is not '$msg'"
    }
    [ -z "$(ls -A o)" ] || fail "$what: left in o/: $(ls -A o)"
    [ ! -e nodir ] || fail "$what: made the missing directory"
    cmp -s afile afile.saved || fail "$what: wrote into the file named as --tmpdir"
    if [ "$free" != - ]; then
      left=$(ls -A "$full" | grep -v -x fill || true)
      [ -z "$left" ] || fail "$what: left on the full disk: $left"
    fi
  done
done

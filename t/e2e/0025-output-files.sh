#!/bin/sh
# 0025-output-files.sh - where the commands' outputs go (picl_output): an
# existing file keeps its permissions, a link stays a link, a file one may
# not write is refused, --in-place keeps compression, a device or a
# redirected standard output is written where it is, an image gnuplot could
# not finish is not renamed into place, and a mapped input that shrinks is
# a clear error.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

cat >t.picl <<'T'
-3 -901 2.000000 0 0 0
-3 -901 1.000000 1 0 0
-2 -12 3.000000 1 0 0
-2 -12 4.000000 0 0 0
-4 -901 5.000000 1 0 0
-4 -901 6.000000 0 0 0
T
"$PT" sort -q -o sorted.picl t.picl

# Permissions: -o onto an existing file, and --in-place.
printf 'x\n' >priv.picl
chmod 600 priv.picl
run "$PT" cat -o priv.picl t.picl
expect_rc 0
[ "$(stat -c %a priv.picl)" = 600 ] || fail "cat -o made a 600 file $(stat -c %a priv.picl)"
cmp -s priv.picl t.picl || fail "cat -o wrote something else"
cp t.picl ip.picl
chmod 640 ip.picl
run "$PT" sort -q --in-place ip.picl
expect_rc 0
[ "$(stat -c %a ip.picl)" = 640 ] || fail "sort --in-place: mode $(stat -c %a ip.picl)"
cmp -s ip.picl sorted.picl || fail "sort --in-place did not sort"
umask 022
run "$PT" cat -o new.picl t.picl
expect_rc 0
[ "$(stat -c %a new.picl)" = 644 ] || fail "a new file got $(stat -c %a new.picl), umask 022"

# --in-place on a zstd file writes zstd.
zstd -q -o ip.zst t.picl
run "$PT" sort -q --in-place ip.zst
expect_rc 0
[ "$(head -c 4 ip.zst | od -An -tx1 | tr -d ' ')" = 28b52ffd ] || fail "sort --in-place decompressed a zstd file"
"$PT" cat ip.zst | cmp -s - sorted.picl || fail "sort --in-place of zstd: wrong records"

# An output named *.zst, or a --level, means zstd without -z: plain text
# under that name, or a level thrown away, was what a user did not ask for.
zmagic() { [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' ')" = 28b52ffd ]; }
for how in "cat" "filter -p 0,1" "sort -q" "merge -q --no-header" "sync -q"; do
  rm -f o.zst o.picl
  run "$PT" $how -o o.zst sorted.picl
  expect_rc 0
  zmagic o.zst || fail "$how -o o.zst wrote plain text"
  run "$PT" $how --level=4 -o o.picl sorted.picl
  expect_rc 0
  zmagic o.picl || fail "$how --level=4 wrote plain text"
  "$PT" cat o.zst >a.txt
  "$PT" cat o.picl >b.txt
  [ -s a.txt ] && cmp -s a.txt b.txt || fail "$how: .zst and --level outputs differ"
done
run "$PT" stat --emit-records -o s.zst t.picl
expect_rc 0
zmagic s.zst || fail "stat --emit-records -o s.zst wrote plain text"
run "$PT" stat -o s.zst t.picl      # a table is no trace: never compressed
expect_rc 0
zmagic s.zst && fail "stat -o s.zst compressed its table"
run "$PT" cat -o plain.picl t.picl
expect_rc 0
cmp -s plain.picl t.picl || fail "cat -o plain.picl is not plain"

# A symbolic link stays a link; its target is what gets sorted.
cp t.picl target.picl
ln -s target.picl link.picl
run "$PT" sort -q --in-place link.picl
expect_rc 0
[ -L link.picl ] || fail "sort --in-place replaced the link by a file"
cmp -s target.picl sorted.picl || fail "sort --in-place through a link left the target unsorted"
ln -s out-target.picl outlink.picl
printf 'old\n' >out-target.picl
run "$PT" cat -o outlink.picl t.picl
expect_rc 0
[ -L outlink.picl ] && cmp -s out-target.picl t.picl || fail "cat -o through a link"

# A file its owner may not write is refused, and left alone (not as root:
# root may write anything, so it runs as nobody when it can).
printf 'keep\n' >ro.picl
chmod 444 ro.picl
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  chmod 777 "$TMP"
  chown nobody ro.picl
  run setpriv --reuid=nobody --regid=nogroup --clear-groups "$PT" cat -o ro.picl t.picl
else
  run "$PT" cat -o ro.picl t.picl
fi
if [ "$(id -u)" != 0 ] || command -v setpriv >/dev/null; then
  expect_rc 2
  grep -q 'ro.picl: cannot write: Permission denied' "$TMP/err" || fail "read-only: $(cat "$TMP/err")"
  [ "$(cat ro.picl)" = keep ] || fail "a read-only file was replaced"
fi
# ... and so is one --in-place would replace (sync's page said it was
# replaced, as by sed -i; every command refuses it, as -o does)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  for c in sync sort cat; do
    cp t.picl ro-in.picl
    chmod 444 ro-in.picl
    chown nobody ro-in.picl
    run setpriv --reuid=nobody --regid=nogroup --clear-groups "$PT" $c -q --in-place ro-in.picl
    expect_rc 2
    grep -q 'ro-in.picl: cannot write: Permission denied' "$TMP/err" || fail "$c --in-place read-only: $(cat "$TMP/err")"
    cmp -s ro-in.picl t.picl || fail "$c --in-place replaced a read-only file"
    rm -f ro-in.picl
  done
fi
ls -a | grep -q 'tmp[A-Za-z0-9]\{6\}$' && fail "temporary files left: $(ls -a)"

# A directory one may not write: the output cannot be made there, nor
# sort's spilled runs (2 MB of records past --memory=1M), each said with
# the directory and the reason, exit 2, nothing made anywhere. As nobody,
# for the same reason as above.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  mkdir rodir
  chmod 555 rodir
  awk 'BEGIN { for (i = 0; i < 60000; i++) printf "-3 -21 %d.%06d 0 0 3 2 8 1 1\n", (i * 7919) % 60000, i }' >spill.picl
  run setpriv --reuid=nobody --regid=nogroup --clear-groups "$PT" cat -o rodir/x.picl t.picl
  expect_rc 2
  expect_err <<'T'
picltrace cat: rodir/x.picl: cannot create: Permission denied
T
  run setpriv --reuid=nobody --regid=nogroup --clear-groups "$PT" sort -q --memory=1M \
    --tmpdir=rodir -o spilled.picl spill.picl
  expect_rc 2
  expect_err <<'T'
picltrace sort: cannot create a temporary file in rodir: Permission denied
T
  [ -z "$(ls -A rodir)" ] && [ ! -e spilled.picl ] || fail "made files: $(ls -A . rodir)"
  run "$PT" sort -q --memory=1M --tmpdir=rodir -o spilled.picl spill.picl
  expect_rc 0
  rm -f spilled.picl spill.picl
fi

# -o /dev/fd/1 (as /dev/stdout): standard output as the shell set it up, a
# file here. (Not /dev/stdout itself: a regression would replace it, as
# root, by a regular file for the whole machine; /dev/fd/1 is in /proc.)
run sh -c '"$0" cat -o /dev/fd/1 t.picl >via-stdout.picl' "$PT"
expect_rc 0
cmp -s via-stdout.picl t.picl || fail "cat -o /dev/fd/1: $(cat "$TMP/err")"
run sh -c '"$0" cat -o /dev/fd/1 t.picl >>via-stdout.picl' "$PT"
expect_rc 0
cat t.picl t.picl | cmp -s - via-stdout.picl || fail "cat -o /dev/fd/1 in append mode"

# Devices: a full one is an error, with nothing left behind.
run "$PT" cat -o /dev/full t.picl
expect_rc 2
grep -q 'No space left on device' "$TMP/err" || fail "cat -o /dev/full: $(cat "$TMP/err")"

# stat's report: a failed write names the output as given, not the
# temporary file (gone by then) nor "output".
run "$PT" stat -q -o /dev/full t.picl
expect_rc 2
grep -q '^picltrace stat: /dev/full: cannot write: No space left on device$' "$TMP/err" ||
  fail "stat -o /dev/full: $(cat "$TMP/err")"
run sh -c 'trap "" XFSZ; ulimit -f 1; exec "$0" stat -q --messages -o report.txt "$1"' "$PT" \
  "$PICL_SRCDIR/testdata/stat/three.picl"
expect_rc 2
grep -q '^picltrace stat: report.txt: cannot write: File too large$' "$TMP/err" ||
  fail "stat -o a file over ulimit -f: $(cat "$TMP/err")"
[ -z "$(ls -A | grep report)" ] || fail "stat left $(ls -A | grep report)"

# Images: gnuplot exits 0 even when it could not write; plot must not.
if command -v gnuplot >/dev/null; then
  run "$PT" plot -q -o /dev/full t.picl
  expect_rc 2
  run sh -c 'trap "" XFSZ; ulimit -f 4; exec "$0" plot -q -o small.png t.picl' "$PT"
  expect_rc 2
  grep -q 'could not write the whole image' "$TMP/err" || fail "truncated image: $(cat "$TMP/err")"
  [ ! -e small.png ] || fail "a truncated image was renamed into place"
  run sh -c '"$0" plot -q -o /dev/fd/1 t.picl >via-stdout.png' "$PT"
  expect_rc 0
  [ "$(head -c 4 via-stdout.png | od -An -c | tr -d ' ')" = '211PNG' ] || fail "plot -o /dev/fd/1 wrote no PNG"
  ls -a | grep -q 'tmp[A-Za-z0-9]\{6\}$' && fail "temporary files left: $(ls -a)"
else
  echo "note: gnuplot absent, image outputs not checked"
fi

# A mapped input that shrinks while sort gathers its lines: sort blocks
# writing into a FIFO nobody reads yet, the input is cut, then read on.
awk 'BEGIN { for (i = 0; i < 40000; i++) printf "-2 -12 %d.000000 %d 0 0\n", 40000 - i, i % 7 }' >big.picl
mkfifo fifo
"$PT" sort -q -o fifo big.picl 2>sort.err &
pid=$!
sleep 1
truncate -s 100 big.picl
cat fifo >/dev/null || true
set +e
wait "$pid"
src=$?
set -e
[ "$src" = 2 ] || fail "sort of a shrinking input: exit $src: $(cat sort.err)"
grep -q 'big.picl: the file changed (shrank) while it was read' sort.err ||
  fail "sort of a shrinking input: $(cat sort.err)"

# Standard input that is the output file is an input like any other:
# refused, and the file left as it was.
for c in cat sort filter sync stat merge; do
  cp t.picl in.picl
  set +e
  "$PT" $c -o in.picl - <in.picl >"$TMP/out" 2>"$TMP/err"
  rc=$?
  set -e
  last="$c -o in.picl - <in.picl"
  expect_rc 2
  grep -q 'in.picl: the output is also .* input' "$TMP/err" || fail "$last: $(cat "$TMP/err")"
  cmp -s in.picl t.picl || fail "$last: the input was changed"
done

# Standard output that cannot be written is named alike by every command.
for c in cat sort filter stat validate; do
  set +e
  "$PT" $c sorted.picl >/dev/full 2>"$TMP/err"
  rc=$?
  set -e
  last="$c >/dev/full"
  expect_rc 2
  grep -q "^picltrace $c: <stdout>: cannot write: No space left on device" "$TMP/err" ||
    fail "$last: $(cat "$TMP/err")"
done

# Durable: the file is synced before the rename, its directory after it
# (else a crash may bring the old file back under the name).
if strace -f -o /dev/null true 2>/dev/null; then
  mkdir -p dur
  # (LeakSanitizer cannot run under ptrace)
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -e trace=openat,fsync,rename -o st.txt "$PT" cat -o dur/x.picl t.picl
  awk '/rename\(.*"dur\/x.picl"\) = 0/ { r = 1 }
       r && /openat\(.*"dur", .*O_DIRECTORY.*= [0-9]+$/ { fd = $NF }
       fd != "" && $0 ~ "fsync\\(" fd "\\) += 0" { ok = 1 }
       END { exit !ok }' st.txt || fail "the directory is not synced after the rename: $(cat st.txt)"
else
  echo "skipped: strace is not installed (the directory sync after a rename)"
fi

echo "ok: output files"

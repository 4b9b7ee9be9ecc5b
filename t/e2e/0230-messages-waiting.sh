#!/bin/sh
# Messages that wait long: a trace written processor after processor (as
# per-node files one after another are), so that every send of a processor
# waits for the next one's receives. stat, plot, validate and sync match
# them in bounded memory (--memory, --tmpdir): past the limit the waiting
# messages go to a temporary file, and everything they print or write is
# the same as when all wait in memory. A limit that needs the file where
# none can be made is a clear error, with no output left.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
cd "$TMP"

# P processors in a ring, processor after processor; each sends N
# messages to the next (types 1 and 2 in turn, 8 + i%50 bytes; with a
# third argument, type 1 + i: a type per step, so that each message has a
# (source, destination, type) of its own) and receives N from the one
# before, a receive after every send; times rise by 1 ms a record.
# Processor 0's receives come before their sends.
gen() {
	awk -v P="$1" -v N="$2" -v S="${3:-0}" 'BEGIN {
		for (p = 0; p < P; p++) {
			t = 0
			printf "-3 -901 %d.000000 %d 0 0\n", t, p
			for (i = 0; i < N; i++) {
				t++
				printf "-3 -21 %d.%06d %d 0 3 2 %d %d %d\n", int(t / 1000),
				       (t % 1000) * 1000, p, 8 + i % 50, S ? 1 + i : 1 + i % 2,
				       (p + 1) % P
				printf "-4 -21 %d.%06d %d 0 0\n", int(t / 1000),
				       (t % 1000) * 1000 + 10, p
				t++
				printf "-3 -52 %d.%06d %d 0 0\n", int(t / 1000),
				       (t % 1000) * 1000, p
				printf "-4 -52 %d.%06d %d 0 3 2 %d %d %d\n", int(t / 1000),
				       (t % 1000) * 1000 + 500, p, 8 + i % 50, S ? 1 + i : 1 + i % 2,
				       (p + P - 1) % P
			}
			printf "-4 -901 %d.000000 %d 0 0\n", int(t / 1000) + 1, p
		}
	}'
}
gen 4 20000 >ring.picl
mkdir spill

# Each tool twice: all in memory (the default limit is far above these
# 80,000 messages), then with 1M (6,500 messages) and the file in spill/.
same() {
	name=$1
	shift
	run "$@"
	cp out "$name.mem"
	mem_rc=$rc
	run "$@" --memory=1M --tmpdir=spill
	expect_rc "$mem_rc"
	cmp -s out "$name.mem" || { diff "$name.mem" out | head >&2; fail "$name: not the same past --memory"; }
	[ -z "$(ls spill)" ] || fail "$name: left a file in spill/"
}
same stat "$PT" stat -q --messages ring.picl
grep -q '^== messages: 80000 matched, .*unmatched: 0 sends, 0 receives$' stat.mem ||
	{ cat stat.mem >&2; fail "stat: expected 80000 messages matched"; }
same stat-json "$PT" stat -q --messages --format=json ring.picl
python3 -c '
import json, sys
d = json.load(open("stat-json.mem"))
m = d["messages"]
assert m["count"] == 80000, m
assert m["unmatched_sends"] == 0 and m["unmatched_receives"] == 0, m
'
same validate "$PT" validate -q ring.picl
same plot "$PT" plot -q --kind=messages --format=script ring.picl
same sync-report "$PT" sync -q -n --report ring.picl

# sync writes the same trace
run "$PT" sync -q -o synced-mem.picl ring.picl
sync_rc=$rc
run "$PT" sync -q --memory=1M --tmpdir=spill -o synced-disk.picl ring.picl
expect_rc "$sync_rc"
cmp synced-mem.picl synced-disk.picl || fail "sync: another trace past --memory"

# Unsorted and unmatched too: processor 3's part first, and the last
# 1000 lines cut off (its receives from 2 lost, 2's sends to 3 waiting).
gen 4 20000 | awk '$4 == 3' >cut.picl
gen 4 20000 | awk '$4 != 3' | head -n -1000 >>cut.picl
same validate-cut "$PT" validate -q --format=json ring.picl cut.picl
same stat-cut "$PT" stat -q --messages cut.picl

# A type per step: 20,000 channels of a message each wait at once, which
# past the limit move to the file whole and come back one by one.
gen 4 20000 steps >steps.picl
same stat-steps "$PT" stat -q --messages steps.picl
grep -q '^== messages: 80000 matched, .*unmatched: 0 sends, 0 receives$' stat-steps.mem ||
	{ cat stat-steps.mem >&2; fail "stat: expected 80000 messages matched, a type each"; }
same validate-steps "$PT" validate -q --format=json steps.picl
same sync-steps "$PT" sync -q -n --report steps.picl
gen 4 20000 steps | awk '$4 == 3' >cut-steps.picl
gen 4 20000 steps | awk '$4 != 3' | head -n -1000 >>cut-steps.picl
same validate-cut-steps "$PT" validate -q --format=json cut-steps.picl
same stat-cut-steps "$PT" stat -q --messages cut-steps.picl

# Where the file cannot be made: exit 2, the reason, no output file
# (--tmpdir, or -T as sort and merge spell it).
for tool in stat validate sync plot; do
	case $tool in
	sync) run "$PT" sync -q --memory=1M -T nowhere -o out.picl ring.picl ;;
	stat) run "$PT" stat -q --memory=1M --tmpdir=nowhere -o out.txt ring.picl ;;
	plot) run "$PT" plot -q --memory=1M -T nowhere -o out.picl ring.picl ;;
	*) run "$PT" validate -q --memory=1M -T nowhere ring.picl ;;
	esac
	expect_rc 2
	grep -q "cannot make a file for the messages waiting for a partner in nowhere: No such file or directory" err ||
		{ cat err >&2; fail "$tool: no reason given"; }
	[ ! -e out.picl ] && [ ! -e out.txt ] || fail "$tool: left an output file"
done
# ... and a limit above what waits never needs it
run "$PT" stat -q --memory=64M --tmpdir=nowhere ring.picl
expect_rc 0

run "$PT" stat --memory=512K ring.picl
expect_rc 2
grep -q -- "--memory takes a size of at least 1M" err || fail "stat --memory=512K: $(cat err)"

# Messages never received, a (source, destination, type) each, and a few
# entries never exited: validate finds them at the end, lists the first
# --max-errors of them in line order (the same as the head of the whole
# list), and keeps no more of them than it lists.
lost() {
	awk -v N="$1" 'BEGIN { P = 4
		for (p = 0; p < P; p++) printf "-3 -901 0.000000 %d 0 0\n", p
		for (i = 0; i < N; i++) {
			p = i % P
			printf "-3 -21 %d.%06d %d 0 3 2 8 %d %d\n", int(i / 1000),
			       (i % 1000) * 1000, p, 1 + i, (p + 1) % P
			if (i % 100000 != 7)
				printf "-4 -21 %d.%06d %d 0 0\n", int(i / 1000),
				       (i % 1000) * 1000 + 1, p
		}
		for (p = 0; p < P; p++) printf "-4 -901 %d.000000 %d 0 0\n", N / 1000 + 1, p
	}'
}
lost 300000 >lost.picl
run "$PT" validate --max-errors=0 --memory=1M lost.picl
expect_rc 1
grep -v '^lost.picl: ' out >all-findings
[ "$(wc -l <all-findings)" -eq 300003 ] || fail "validate --max-errors=0: $(wc -l <all-findings) findings listed"
tail -n 1 out | grep -qx 'lost.picl: 600005 records, 300003 errors, 0 warnings' ||
	fail "validate --max-errors=0: $(tail -n 1 out)"
# (150,000 findings are more than a quarter of 1M: they go to the file in
# runs, each the first 150,000 of what came so far)
for k in 7 1000 150000; do
	run "$PT" validate --max-errors=$k --memory=1M lost.picl
	expect_rc 1
	grep -v '^lost.picl: ' out >some-findings
	head -n $k all-findings | cmp -s - some-findings ||
		fail "validate --max-errors=$k does not list the first $k findings"
	tail -n 1 out | grep -qx "lost.picl: 600005 records, 300003 errors, 0 warnings ($k listed)" ||
		fail "validate --max-errors=$k: $(tail -n 1 out)"
done
# (the improper nesting at the last line is found as it is read, the rest at the end)
sed -n '2p;5p' all-findings >two
cat >want <<T
lost.picl:5:1: message-match: send of 8 bytes with type 1 to processor 1 is never received
lost.picl:11:1: message-match: send of 8 bytes with type 4 to processor 0 is never received
T
cmp -s two want || fail "validate: findings at the end not in line order: $(cat two)"

# Entries never exited, 200,000 of them, found at the end with no message
# waiting: listed in line order from the file just the same, or a clear
# error when the file cannot be made (and then none of them listed). The
# innermost is named once, by the -901 exit that crosses it (improper
# nesting), not again at the end: 199,999 are left for the end.
awk 'BEGIN { print "-3 -901 0.000000 0 0 0"
	for (i = 0; i < 200000; i++) printf "-3 %d 0.%06d 0 0 0\n", 1 + i % 7, i
	print "-4 -901 1.000000 0 0 0" }' >open.picl
same validate-open "$PT" validate --max-errors=0 open.picl
[ "$(grep -c 'is never exited$' validate-open.mem)" -eq 199999 ] ||
	fail "validate: not 199,999 entries never exited"
sed -n '1p;2p;200000p' validate-open.mem >two
cat >want <<T
open.picl:200002:1: entry-exit: exit of event -901 closes its entry at line 1 while the entry of event 3 at line 200001 is still open (improper nesting)
open.picl:2:1: entry-exit: entry of event 1 is never exited
open.picl:200000:1: entry-exit: entry of event 2 is never exited
T
cmp -s two want || fail "validate: entries never exited not in line order: $(cat two)"
run "$PT" validate --max-errors=0 --memory=1M --tmpdir=nowhere open.picl
expect_rc 2
grep -q "cannot create a temporary file in nowhere" err &&
	grep -q "open.picl: cannot keep the findings made at the end in a temporary file" err ||
	{ cat err >&2; fail "validate: no reason given when the findings' file cannot be made"; }
! grep -q 'is never exited$' out || fail "validate: listed findings after failing"

# Memory: with 1M, validate holds far less than with every message kept.
# peak FILE: validate's peak memory (KB) on FILE in $mem, and with 1M in $disk.
peak() {
  run /usr/bin/time -f '%M' -o peak-mem "$PT" validate -q "$1"
  run /usr/bin/time -f '%M' -o peak-disk "$PT" validate -q --memory=1M "$1"
  mem=$(tail -n 1 peak-mem)
  disk=$(tail -n 1 peak-disk)
}
if [ -n "${ASAN_OPTIONS:-}" ]; then
  echo "note: sanitizer build (shadow memory); memory not measured here"
elif [ -x /usr/bin/time ]; then
  gen 4 100000 >big.picl
  peak big.picl
  echo "validate of 400,000 waiting messages: ${mem} KB in memory, ${disk} KB with --memory=1M"
  [ $((disk + 15000)) -le "$mem" ] || fail "--memory=1M saved too little: $disk KB against $mem KB"
  # the same, a (source, destination, type) for each message: the
  # channels go to the file too
  gen 4 100000 steps >big.picl
  peak big.picl
  echo "validate of 400,000 messages, a channel each: ${mem} KB in memory, ${disk} KB with --memory=1M"
  [ $((disk * 3)) -le "$mem" ] || fail "--memory=1M saved too little: $disk KB against $mem KB"
  rm -f big.picl
  # 300,000 sends never received, each found at the end: neither the
  # matcher's report of them nor the list of findings keeps them all
  run /usr/bin/time -f '%M' -o peak-disk "$PT" validate --memory=1M lost.picl
  disk=$(tail -n 1 peak-disk)
  echo "validate of 300,000 sends never received: ${disk} KB with --memory=1M"
  [ "$disk" -le 30000 ] || fail "validate --memory=1M of lost.picl took $disk KB"
  # ... nor when all of them are listed
  run /usr/bin/time -f '%M' -o peak-disk "$PT" validate --max-errors=0 --memory=1M lost.picl
  disk=$(tail -n 1 peak-disk)
  echo "validate --max-errors=0 of 300,000 sends never received: ${disk} KB with --memory=1M"
  [ "$disk" -le 30000 ] || fail "validate --max-errors=0 --memory=1M of lost.picl took $disk KB"
else
  echo "note: /usr/bin/time absent; memory not measured"
fi

echo "PASS: $ntest runs with messages waiting in memory and on disk"

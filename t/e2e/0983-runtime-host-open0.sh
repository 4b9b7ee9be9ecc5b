#!/bin/sh
# 0983-runtime-host-open0.sh - a host program's open0 and close0 record
# what PICL's host did with them, allocating and releasing the nodes
# (format report 2.3.2, Tables 4 and 11): a -501 entry with the requested
# number of processors and an exit with the allocated number (the run's
# nodes, as open0 tells the host), a -502 entry and exit, inside the host's
# -901 entry and exit; no -11 nor -12. The nodes keep open0's -11 entry and
# exit and close0's -12 mark (Tables 7 and 20), and every record of a run
# with a host still validates.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e
piclrun_setup

for n in 1 3; do
  run timeout 60 "$RUN" -n $n --host "$EX/host" -o host.picl "$EX/node"
  expect_rc 0
  # the host prints "host 32767: N nodes, sum S": N is open0's numproc
  np=$(sed -n 's/^host 32767: \([0-9]*\) nodes.*/\1/p' out)
  [ "$np" = $n ] || fail "host's open0 says $np nodes, the run has $n"
  validate_ok host.picl
  awk -v np=$np '
    # event records only (entry, exit, mark)
    $1 < -4 || $1 > -2 { next }
    $4 == 32767 {
      h++
      seq = seq " " $1 $2
      if ($2 == -11 || $2 == -12) { printf "host: %s\n", $0; bad = 1 }
      if ($2 == -501 && ($6 != 1 || $7 != 2 || $8 != np)) {
        printf "host: %s: want 1 field, \"%%d\", %d processors\n", $0, np; bad = 1
      }
      if ($2 == -502 && $6 != 0) { printf "host: %s: want no field\n", $0; bad = 1 }
      next
    }
    $2 == -11 || $2 == -12 { node[$4] = node[$4] " " $1 $2 }
    END {
      if (seq !~ /^ -3-901 -3-501 -4-501 .* -3-502 -4-502 -4-901$/) {
        printf "host records: %s\n", seq; bad = 1
      }
      for (i = 0; i < np; i++)
        if (node[i] != " -3-11 -4-11 -2-12") {
          printf "node %d: open0/close0 records:%s\n", i, node[i]; bad = 1
        }
      exit bad
    }' host.picl >msg || { cat msg >&2; fail "host run of $n nodes"; }
  # and the statistics count them, once each
  grep -q '^-102 -1 .* 32767 0 .* -501 1 -502 1 ' host.picl ||
    fail "host's -102 record does not count -501 and -502 once"
done
rm -f host.picl msg
echo "ok $ntest"

# sort-merge/: picltrace sort, merge (and sync: clock correction).
picltrace_picltrace_SOURCES += sort-merge/runs.c sort-merge/runs.h sort-merge/defs.c \
	sort-merge/msort.c sort-merge/cmd-sort.c sort-merge/cmd-merge.c
picltrace_picltrace_LDADD += -lpthread
dist_man_MANS += man/picltrace-sort.1 man/picltrace-merge.1
SORT_MERGE_E2E = t/e2e/0500-sort.sh t/e2e/0510-merge.sh t/e2e/0701-sort-check-inputs.sh \
	t/e2e/0710-merge-identity.sh t/e2e/0711-sort-merge-cr-data.sh t/e2e/0712-sort-time-ranges.sh \
	t/e2e/0713-defs-undefined-alias.sh t/e2e/0970-sort-defs.sh t/e2e/0971-merge-defs.sh
TESTS += $(SORT_MERGE_E2E)
EXTRA_DIST += $(SORT_MERGE_E2E)
# sync: clock correction (the estimator, clock.c, is unit tested on its own)
picltrace_picltrace_SOURCES += sort-merge/cmd-sync.c sort-merge/clock.c sort-merge/clock.h
picltrace_picltrace_LDADD += -lm
dist_man_MANS += man/picltrace-sync.1
check_PROGRAMS += t/unit/test-clock
t_unit_test_clock_SOURCES = t/unit/test-clock.c sort-merge/clock.c sort-merge/clock.h
t_unit_test_clock_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/sort-merge
t_unit_test_clock_CFLAGS = $(UNIT_CFLAGS)
t_unit_test_clock_LDADD = $(CHECK_LIBS) -lm
SYNC_E2E = t/e2e/0400-sync.sh t/e2e/0401-sync-clock-records.sh t/e2e/0402-sync-drift-beyond-bound.sh t/e2e/0403-sync-reference-absent.sh t/e2e/0404-sync-inconsistent-partner.sh t/e2e/0405-sync-half-unit.sh t/e2e/0406-sync-time-statistics.sh t/e2e/0714-sync-ring-in-step.sh t/e2e/0215-sync-header-times.sh t/e2e/0216-multicast-stat-sync.sh t/e2e/0700-sync-t0.sh \
	t/e2e/0702-sync-report-stdout.sh
TESTS += t/unit/test-clock $(SYNC_E2E)
EXTRA_DIST += $(SYNC_E2E)

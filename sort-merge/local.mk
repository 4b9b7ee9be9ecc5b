# sort-merge/: picltrace sort, merge (and sync: clock correction).
picltrace_picltrace_SOURCES += sort-merge/runs.c sort-merge/runs.h \
	sort-merge/cmd-sort.c sort-merge/cmd-merge.c
dist_man_MANS += man/picltrace-sort.1 man/picltrace-merge.1
TESTS += t/e2e/0500-sort.sh t/e2e/0510-merge.sh
EXTRA_DIST += t/e2e/0500-sort.sh t/e2e/0510-merge.sh

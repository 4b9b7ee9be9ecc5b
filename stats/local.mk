# stats/: picltrace stat (profiles) and plot (gnuplot output).
picltrace_picltrace_SOURCES += stats/cmd-stat.c stats/cmd-plot.c stats/profile.c stats/profile.h
dist_man_MANS += man/picltrace-stat.1 man/picltrace-plot.1
STATS_TESTS = t/e2e/0200-stat-spec.sh t/e2e/0200-stat-three.sh t/e2e/0200-stat-gen.sh \
	t/e2e/0210-plot-script.sh t/e2e/0210-plot-render.sh t/e2e/0220-many.sh \
	t/e2e/0225-compare-many.sh t/e2e/0230-messages-waiting.sh \
	t/e2e/0211-plot-loose-ends.sh
# the audit of validate, stat and plot (vsp-audit)
STATS_TESTS += t/e2e/0850-plot-events-many.sh t/e2e/0851-plot-late-times.sh \
	t/e2e/0852-plot-format-from-name.sh
# plot audited as its users would use it (s25-plot)
STATS_TESTS += t/e2e/0853-plot-messages-many.sh t/e2e/0854-plot-events-colors.sh \
	t/e2e/0855-plot-utilization-untraced.sh t/e2e/0856-plot-gantt-margins.sh \
	t/e2e/0857-plot-nothing-host.sh
# the audit of statistics and message matching (stm-audit)
STATS_TESTS += t/e2e/0860-stat-time-tolerance.sh t/e2e/0861-stat-compare-sample.sh \
	t/e2e/0862-stat-compare-negative.sh t/e2e/0863-validate-stat-odd.sh \
	t/e2e/0864-validate-stat-summed.sh
# statistics leftovers: validate and stat --compare alike (s24-stats)
STATS_TESTS += t/e2e/0966-stat-tolerance-marks.sh t/e2e/0967-validate-stat-left-out.sh \
	t/e2e/0968-runtime-traceevents-order.sh t/e2e/0969-stat-nested-same-type.sh
# stat's numbers checked by hand, and its outputs against each other (s25-rst)
STATS_TESTS += t/e2e/0870-stat-hand-numbers.sh t/e2e/0871-stat-json-keys.sh \
	t/e2e/0872-stat-emit-roundtrip.sh t/e2e/0873-stat-out-of-memory.sh
# stat audited against the format report (h-stat)
STATS_TESTS += t/e2e/0217-stat-compare-process-decimals.sh
TESTS += $(STATS_TESTS)
EXTRA_DIST += $(STATS_TESTS)

/*
 * loose-ends.c - what stat and plot say after a profile was read: the
 * totals behind the first warnings profile_read gave one by one.
 *
 * profile_read reports the first five exits without a matching entry, each
 * at its file:line:column, and only counts the rest; a count of records
 * earlier than their predecessor is kept per process. Both commands read
 * the same model, so both say the same totals in the same words, from this
 * one function.
 */
#include "builtin.h"
#include "profile.h"

void prof_warn_loose_ends(const struct profile *p)
{
	const char *cmd = p->opt.cmd ? p->opt.cmd : "stat";
	uint64_t back = 0;
	size_t k;

	if (p->opt.quiet)
		return;
	for (k = 0; k < p->nprocs; k++)
		back += p->procs[k]->backwards;
	if (p->unmatched_exits > 5)
		picltrace_error(cmd, "warning: %llu exits without a matching entry were ignored",
				(unsigned long long)p->unmatched_exits);
	if (back)
		picltrace_error(cmd, "warning: %llu event records are earlier than the one "
				"before them on their process; no time was counted for them",
				(unsigned long long)back);
}

/*
 * limits.c - how much memory a picltrace command may take (shown by
 * `picltrace --resources`, in picltrace.c).
 *
 * The default --memory is a quarter of the memory the process may use:
 * physical memory, or less where the process is held to less. On a
 * cluster a batch job (Slurm's --mem), and anywhere a container, runs in a
 * memory cgroup whose limit is far below the node's memory; taking a
 * quarter of the node's memory there made sort map a 2 GB trace in a
 * 512 MB job and page for minutes instead of sorting in 20 s with runs on
 * disk. So the limit of every memory cgroup from the process's own up to
 * its hierarchy's root counts (v1: memory.limit_in_bytes; v2: memory.max
 * and memory.high), found as the kernel gives them: the process's cgroup
 * in /proc/self/cgroup, where each hierarchy is mounted in
 * /proc/self/mountinfo. And so do `ulimit -v` (RLIMIT_AS) and `ulimit -d`
 * (RLIMIT_DATA), past which allocations fail.
 *
 * Everything here reads small kernel files line by line with its own
 * parsing (no scanf); a file that is missing or not as expected means no
 * limit from it.
 */
#include "builtin.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define MIB (1ULL << 20)

/* A line of a kernel file, at most sizeof(buf) - 1 bytes (longer ones are
 * skipped whole); 0 at the end of the file. */
static int get_line(FILE *f, char *buf, size_t size)
{
	for (;;) {
		size_t n;

		if (!fgets(buf, (int)size, f))
			return 0;
		n = strlen(buf);
		if (n > 0 && buf[n - 1] == '\n') {
			buf[n - 1] = '\0';
			return 1;
		}
		if (feof(f))
			return 1;
		/* too long: skip to its end */
		while (fgets(buf, (int)size, f) && !strchr(buf, '\n'))
			;
	}
}

/* Cgroup v1 says "no limit" with the largest number of pages its counters
 * hold (9223372036854771712 with 4 KiB pages): anything from 2^62 bytes
 * up is taken for that. */
#define NO_LIMIT_FROM (1ULL << 62)

/* The decimal number that is the whole of s (trailing blanks allowed), or
 * UINT64_MAX when s is "max" (cgroup v2's "no limit"), v1's no limit, or
 * not a number. */
static uint64_t limit_value(const char *s)
{
	uint64_t v = 0;
	const char *p = s;

	if (!strncmp(s, "max", 3))
		return UINT64_MAX;
	if (*p < '0' || *p > '9')
		return UINT64_MAX;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return UINT64_MAX;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return *p || v >= NO_LIMIT_FROM ? UINT64_MAX : v;
}

/* The limit in the file dir/name, UINT64_MAX when there is none. */
static uint64_t read_limit(const char *dir, const char *name)
{
	char path[PATH_MAX + 64], line[64];
	uint64_t v = UINT64_MAX;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return UINT64_MAX;
	f = fopen(path, "re");
	if (!f)
		return UINT64_MAX;
	if (get_line(f, line, sizeof(line)))
		v = limit_value(line);
	fclose(f);
	return v;
}

/* Split a mountinfo line into its blank-separated fields (in place);
 * the number of fields, at most max. */
static size_t split_fields(char *s, char **field, size_t max)
{
	size_t n = 0;

	while (*s && n < max) {
		while (*s == ' ')
			*s++ = '\0';
		if (!*s)
			break;
		field[n++] = s;
		while (*s && *s != ' ')
			s++;
	}
	return n;
}

/* mountinfo writes a blank, tab, newline and backslash in a path as \ooo. */
static void unescape_octal(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

/* 1 if the comma-separated list has the item word. */
static int has_item(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (;;) {
		if (!strncmp(list, word, n) && (list[n] == ',' || list[n] == '\0'))
			return 1;
		list = strchr(list, ',');
		if (!list)
			return 0;
		list++;
	}
}

/*
 * Where the process's memory cgroup is: v1 when a hierarchy with the
 * memory controller is mounted (version 1), else the v2 hierarchy
 * (version 2). dir: the process's cgroup directory; top: the hierarchy's
 * mount point, where the walk up stops. 0 when neither is found.
 */
static int cgroup_dir(const char *cgroup, const char *mountinfo, char *dir, size_t dsize,
		      char *top, size_t tsize)
{
	char line[4096], v1[PATH_MAX] = "", v2[PATH_MAX] = "";
	int have1 = 0, have2 = 0, version = 0;
	FILE *f = fopen(cgroup, "re");

	if (!f)
		return 0;
	/* "ID:controllers:path" per hierarchy; v2's is "0::path" */
	while (get_line(f, line, sizeof(line))) {
		char *c = strchr(line, ':'), *p;

		if (!c || !(p = strchr(c + 1, ':')))
			continue;
		*p++ = '\0';
		if (!have1 && has_item(c + 1, "memory") && strlen(p) < sizeof(v1)) {
			strcpy(v1, p);
			have1 = 1;
		} else if (!have2 && c == line + 1 && line[0] == '0' && c[1] == '\0' &&
			   strlen(p) < sizeof(v2)) {
			strcpy(v2, p);
			have2 = 1;
		}
	}
	fclose(f);
	if (!have1 && !have2)
		return 0;

	f = fopen(mountinfo, "re");
	if (!f)
		return 0;
	/* "id parent dev root mountpoint options [optional...] - fstype source superoptions" */
	while (!version && get_line(f, line, sizeof(line))) {
		char *fld[64], *root, *point, *fstype, *super;
		const char *path;
		size_t n = split_fields(line, fld, 64), k, rlen;
		int v;

		for (k = 6; k < n && strcmp(fld[k], "-"); k++)
			;
		if (k + 1 >= n)   /* no "-" and file system type */
			continue;
		root = fld[3];
		point = fld[4];
		fstype = fld[k + 1];
		super = k + 3 < n ? fld[k + 3] : "";
		if (have1 && !strcmp(fstype, "cgroup") && has_item(super, "memory"))
			v = 1;
		else if (!have1 && have2 && !strcmp(fstype, "cgroup2"))
			v = 2;
		else
			continue;
		unescape_octal(root);
		unescape_octal(point);
		path = v == 1 ? v1 : v2;
		/* The process's path is seen from the hierarchy's root, the
		 * mount shows the hierarchy from `root`: a container's mount
		 * of its own cgroup shows "/" there as its root. */
		rlen = strlen(root);
		if (!strcmp(root, "/"))
			rlen = 0;
		else if (!strncmp(path, root, rlen) && (path[rlen] == '/' || path[rlen] == '\0'))
			;
		else
			path = "", rlen = 0;   /* outside the mount's view: its top */
		if ((size_t)snprintf(dir, dsize, "%s%s", point, path + rlen) >= dsize ||
		    (size_t)snprintf(top, tsize, "%s", point) >= tsize)
			continue;
		version = v;
	}
	fclose(f);
	return version;
}

uint64_t picltrace_cgroup_limit(const char *cgroup, const char *mountinfo, char *from,
				size_t fsize)
{
	char dir[PATH_MAX], top[PATH_MAX];
	uint64_t least = UINT64_MAX;
	int version = cgroup_dir(cgroup, mountinfo, dir, sizeof(dir), top, sizeof(top));
	size_t tlen;

	if (!version)
		return UINT64_MAX;
	tlen = strlen(top);
	for (;;) {
		static const char *const v1[] = { "memory.limit_in_bytes", NULL };
		static const char *const v2[] = { "memory.max", "memory.high", NULL };
		const char *const *name;
		char *slash;

		for (name = version == 1 ? v1 : v2; *name; name++) {
			uint64_t v = read_limit(dir, *name);

			if (v < least) {
				least = v;
				snprintf(from, fsize, "%s/%s", dir, *name);
			}
		}
		slash = strrchr(dir, '/');
		if (strlen(dir) <= tlen || !slash || slash < dir + tlen)
			break;
		*slash = '\0';
	}
	return least;
}

static uint64_t rlimit_of(int resource)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return (uint64_t)rl.rlim_cur;
}

void picltrace_memory_limits(struct picltrace_memory_limits *l)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	memset(l, 0, sizeof(*l));
	l->physical = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
	l->cgroup = picltrace_cgroup_limit("/proc/self/cgroup", "/proc/self/mountinfo",
					   l->cgroup_file, sizeof(l->cgroup_file));
	l->as = rlimit_of(RLIMIT_AS);
	l->data = rlimit_of(RLIMIT_DATA);
	l->usable = l->physical;
	if (l->cgroup < l->usable)
		l->usable = l->cgroup;
	if (l->as < l->usable)
		l->usable = l->as;
	if (l->data < l->usable)
		l->usable = l->data;
}

uint64_t picltrace_default_memory(void)
{
	struct picltrace_memory_limits l;
	uint64_t m;

	picltrace_memory_limits(&l);
	if (l.usable == UINT64_MAX)
		return 64 * MIB;
	m = l.usable / 4;
	if (m < 64 * MIB)   /* at least 64M, or half of a smaller limit */
		m = l.usable / 2 < 64 * MIB ? l.usable / 2 : 64 * MIB;
	return m < MIB ? MIB : m;
}

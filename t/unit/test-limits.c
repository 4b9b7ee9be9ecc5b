/*
 * test-limits.c - the memory cgroup's limit, found in the layouts the
 * kernel gives it (picltrace/limits.c).
 *
 * This machine shows one layout (cgroup v1's memory controller; t/e2e/0054
 * makes a real cgroup there). Debian 12 and most clusters now mount cgroup
 * v2 alone, and containers see their own cgroup at the top of the mount.
 * So each case here writes a /proc/self/cgroup and a /proc/self/mountinfo
 * as the kernel writes them, in the kernel's format, with a directory tree
 * holding the limit files, and asks for the limit; the walk up must stop
 * at the mount point.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"

static char root[64];

/* Write text into root/name. */
static void put(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* mkdir -p root/rel */
static void dirs(const char *rel)
{
	char path[512], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0700);
			*p = '/';
		}
	}
	mkdir(path, 0700);
}

/* The limit found with root/cgroup and root/mountinfo; *from relative to
 * root ("" when none). */
static uint64_t limit(char *from, size_t size)
{
	char cg[128], mi[128], got[4096 + 128] = "";
	uint64_t v;

	snprintf(cg, sizeof(cg), "%s/cgroup", root);
	snprintf(mi, sizeof(mi), "%s/mountinfo", root);
	v = picltrace_cgroup_limit(cg, mi, got, sizeof(got));
	if (!strncmp(got, root, strlen(root)))
		snprintf(from, size, "%s", got + strlen(root) + 1);
	else
		snprintf(from, size, "%s", got);
	return v;
}

/* A mountinfo line for a mount of fstype with `super` options at
 * root/point, showing the hierarchy from mroot. */
static void mount_line(FILE *f, const char *mroot, const char *point, const char *fstype,
		       const char *super)
{
	fprintf(f, "35 24 0:30 %s %s/%s rw,nosuid,nodev,noexec,relatime shared:9 - %s cgroup %s\n",
		mroot, root, point, fstype, super);
}

static void mountinfo(const char *mroot, const char *point, const char *fstype,
		      const char *super)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/mountinfo", root);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "24 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n");
	fprintf(f, "25 24 0:22 / /proc rw,nosuid shared:12 - proc proc rw\n");
	mount_line(f, mroot, point, fstype, super);
	fclose(f);
}

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/picl-limits.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

/* cgroup v2 alone (Debian 12, a Slurm job step): the job's memory.max
 * above a step with none; a limit file above the mount is not read. */
START_TEST(v2_job_step)
{
	char from[512];

	dirs("cg/job/step");
	put("cgroup", "0::/job/step\n");
	mountinfo("/", "cg", "cgroup2", "rw,nsdelegate,memory_recursiveprot");
	put("cg/job/memory.max", "1073741824\n");
	put("cg/job/step/memory.max", "max\n");
	put("cg/job/step/memory.high", "max\n");
	put("memory.max", "1\n");   /* above the mount point */
	ck_assert_uint_eq(limit(from, sizeof(from)), 1073741824u);
	ck_assert_str_eq(from, "cg/job/memory.max");

	/* memory.high counts: past it the kernel throttles */
	put("cg/job/step/memory.high", "536870912\n");
	ck_assert_uint_eq(limit(from, sizeof(from)), 536870912u);
	ck_assert_str_eq(from, "cg/job/step/memory.high");

	/* the top's own file (a namespace's root) counts too */
	put("cg/memory.max", "268435456\n");
	ck_assert_uint_eq(limit(from, sizeof(from)), 268435456u);
	ck_assert_str_eq(from, "cg/memory.max");
}
END_TEST

/* cgroup v1 beside a v2 mount without controllers (this machine's
 * layout): the memory hierarchy is taken; its "no limit" number is none. */
START_TEST(v1_hybrid)
{
	char from[512], path[128];
	FILE *f;

	dirs("v1/a/b");
	dirs("unified/a/b");
	put("cgroup", "9:name=systemd:/\n5:cpu,cpuacct:/\n4:memory:/a/b\n0::/a/b\n");
	snprintf(path, sizeof(path), "%s/mountinfo", root);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	mount_line(f, "/", "unified", "cgroup2", "rw");
	mount_line(f, "/", "cpu", "cgroup", "rw,cpu,cpuacct");
	mount_line(f, "/", "v1", "cgroup", "rw,memory");
	fclose(f);
	put("unified/a/b/memory.max", "1048576\n");    /* not the memory hierarchy */
	put("v1/memory.limit_in_bytes", "9223372036854771712\n");
	put("v1/a/memory.limit_in_bytes", "9223372036854771712\n");
	ck_assert_uint_eq(limit(from, sizeof(from)), UINT64_MAX);
	put("v1/a/b/memory.limit_in_bytes", "268435456\n");
	ck_assert_uint_eq(limit(from, sizeof(from)), 268435456u);
	ck_assert_str_eq(from, "v1/a/b/memory.limit_in_bytes");
	/* a controller listed with others */
	put("cgroup", "4:memory,hugetlb:/a/b\n");
	mountinfo("/", "v1", "cgroup", "rw,memory,hugetlb");
	ck_assert_uint_eq(limit(from, sizeof(from)), 268435456u);
}
END_TEST

/* A container: the mount shows the hierarchy from the container's own
 * cgroup, which /proc/self/cgroup names in full (no cgroup namespace) or
 * as "/" (with one). */
START_TEST(container)
{
	char from[512];

	dirs("c/inner");
	mountinfo("/docker/abc", "c", "cgroup2", "rw");
	put("c/memory.max", "104857600\n");
	put("cgroup", "0::/docker/abc\n");
	ck_assert_uint_eq(limit(from, sizeof(from)), 104857600u);
	ck_assert_str_eq(from, "c/memory.max");
	put("cgroup", "0::/docker/abc/inner\n");
	put("c/inner/memory.max", "209715200\n");
	ck_assert_uint_eq(limit(from, sizeof(from)), 104857600u);
	mountinfo("/", "c", "cgroup2", "rw");
	put("cgroup", "0::/\n");
	ck_assert_uint_eq(limit(from, sizeof(from)), 104857600u);
	/* a path outside what the mount shows: its top */
	mountinfo("/docker/abc", "c", "cgroup2", "rw");
	put("cgroup", "0::/elsewhere\n");
	ck_assert_uint_eq(limit(from, sizeof(from)), 104857600u);
}
END_TEST

/* mountinfo writes a blank in a path as \040. */
START_TEST(escaped_mount_point)
{
	char from[512];

	dirs("with space/j");
	put("cgroup", "0::/j\n");
	mountinfo("/", "with\\040space", "cgroup2", "rw");
	put("with space/j/memory.max", "33554432\n");
	ck_assert_uint_eq(limit(from, sizeof(from)), 33554432u);
	ck_assert_str_eq(from, "with space/j/memory.max");
}
END_TEST

/* Nothing to go by, or not what the kernel writes: no limit, no crash. */
START_TEST(no_limit)
{
	char from[512], big[10000];

	ck_assert_uint_eq(limit(from, sizeof(from)), UINT64_MAX);   /* no files */
	dirs("cg/j");
	put("cgroup", "0::/j\n");
	ck_assert_uint_eq(limit(from, sizeof(from)), UINT64_MAX);   /* no mountinfo */
	mountinfo("/", "cg", "cgroup2", "rw");
	ck_assert_uint_eq(limit(from, sizeof(from)), UINT64_MAX);   /* no limit files */
	put("cg/j/memory.max", "123abc\n");
	ck_assert_uint_eq(limit(from, sizeof(from)), UINT64_MAX);
	put("cg/j/memory.max", "99999999999999999999999\n");
	ck_assert_uint_eq(limit(from, sizeof(from)), UINT64_MAX);
	put("cg/j/memory.max", "-5\n");
	ck_assert_uint_eq(limit(from, sizeof(from)), UINT64_MAX);
	put("cg/j/memory.max", "");
	ck_assert_uint_eq(limit(from, sizeof(from)), UINT64_MAX);
	put("cg/j/memory.max", "4096 \n");
	ck_assert_uint_eq(limit(from, sizeof(from)), 4096u);

	/* a line longer than the buffer is skipped whole, not read in
	 * pieces (its first piece would be a v1 memory line) */
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "4:memory:/", 10);
	memcpy(big + sizeof(big) - 8, "\n0::/j\n", 7);
	put("cgroup", big);
	ck_assert_uint_eq(limit(from, sizeof(from)), 4096u);
	put("cgroup", "garbage\n::\n0:\n");
	ck_assert_uint_eq(limit(from, sizeof(from)), UINT64_MAX);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("limits");
	TCase *tc = tcase_create("cgroup");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, v2_job_step);
	tcase_add_test(tc, v1_hybrid);
	tcase_add_test(tc, container);
	tcase_add_test(tc, escaped_mount_point);
	tcase_add_test(tc, no_limit);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

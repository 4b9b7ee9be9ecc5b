/*
 * test-output.c - picl_output: a file replaced all or nothing, with its
 * permissions, through links; descriptors and devices written where they
 * are; PICL_OUTPUT_FILE for programs that write by name.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "picl-trace.h"
#include "tmp.h"

static char dir[256];

static void setup(void)
{
	ck_assert_int_lt(test_tmp_path(dir, sizeof(dir), "picl-test-output.XXXXXX"), (int)sizeof(dir));
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const char *in_dir(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
}

static const char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Entries of the test directory (temporary files show up here). */
static int entries(void)
{
	char cmd[300];
	FILE *p;
	int n = 0, c;

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", dir);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while ((c = fgetc(p)) != EOF)
		n += c == '\n';
	pclose(p);
	return n;
}

static void write_str(struct picl_output *o, const char *s)
{
	ck_assert_int_eq(write(picl_output_fd(o), s, strlen(s)), (ssize_t)strlen(s));
}

START_TEST(replace_keeps_mode)
{
	const char *path = in_dir("a.picl");
	struct picl_output *o;
	struct stat st;
	int status;

	put(path, "old\n", 0640);
	o = picl_output_open(path, 0, &status, NULL);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(status, PICL_OK);
	ck_assert_ptr_nonnull(picl_output_temp_path(o));
	write_str(o, "new\n");
	/* not there yet: the old file until commit */
	ck_assert_str_eq(get(path), "old\n");
	ck_assert_int_eq(entries(), 2);
	ck_assert_int_eq(picl_output_commit(o, NULL), PICL_OK);
	ck_assert_str_eq(get(path), "new\n");
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(entries(), 1);
}
END_TEST

START_TEST(abort_leaves_nothing)
{
	const char *path = in_dir("b.picl");
	struct picl_output *o = picl_output_open(path, 0, NULL, NULL);

	ck_assert_ptr_nonnull(o);
	write_str(o, "half");
	picl_output_abort(o);
	ck_assert_int_eq(entries(), 0);
	picl_output_abort(NULL);
}
END_TEST

START_TEST(link_stays_link)
{
	char target[512];
	struct picl_output *o;
	struct stat st;

	snprintf(target, sizeof(target), "%s", in_dir("target.picl"));
	put(target, "old\n", 0600);
	ck_assert_int_eq(symlink("target.picl", in_dir("link.picl")), 0);
	o = picl_output_open(in_dir("link.picl"), 0, NULL, NULL);
	ck_assert_ptr_nonnull(o);
	write_str(o, "new\n");
	ck_assert_int_eq(picl_output_commit(o, NULL), PICL_OK);
	ck_assert_int_eq(lstat(in_dir("link.picl"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_str_eq(get(target), "new\n");
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
}
END_TEST

/* What picl_output_open makes of a read-only file: 0 refused as it
 * should be, else a code for the failed check. */
static int try_read_only(const char *path)
{
	struct picl_error err;
	struct picl_output *o;
	int status;

	memset(&err, 0, sizeof(err));
	o = picl_output_open(path, 0, &status, &err);
	if (o) {
		picl_output_abort(o);
		return 1;
	}
	if (status != PICL_ERR_IO || err.sys_errno != EACCES || strcmp(err.path, path))
		return 2;
	return 0;
}

START_TEST(dangling_link)
{
	struct picl_output *o;
	struct stat st;

	ck_assert_int_eq(symlink("made.picl", in_dir("dangling.picl")), 0);
	o = picl_output_open(in_dir("dangling.picl"), 0, NULL, NULL);
	ck_assert_ptr_nonnull(o);
	write_str(o, "made\n");
	ck_assert_int_eq(picl_output_commit(o, NULL), PICL_OK);
	ck_assert_int_eq(lstat(in_dir("dangling.picl"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_str_eq(get(in_dir("made.picl")), "made\n");
}
END_TEST

START_TEST(read_only_refused)
{
	const char *path = in_dir("ro.picl");
	pid_t pid;
	int ws;

	put(path, "keep\n", 0444);
	if (geteuid() != 0) {
		ck_assert_int_eq(try_read_only(path), 0);
	} else {
		/* root may write anything: try as nobody, in a child */
		ck_assert_int_eq(chmod(dir, 0777), 0);   /* the file, not the directory, refuses */
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			_exit(setgid(65534) == 0 && setuid(65534) == 0 ? try_read_only(path) : 3);
		ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
		ck_assert(WIFEXITED(ws));
		ck_assert_int_eq(WEXITSTATUS(ws), 0);
	}
	ck_assert_str_eq(get(path), "keep\n");
	ck_assert_int_eq(entries(), 1);
}
END_TEST

START_TEST(missing_directory)
{
	struct picl_error err;
	int status;

	memset(&err, 0, sizeof(err));
	ck_assert_ptr_null(picl_output_open(in_dir("no/such.picl"), 0, &status, &err));
	ck_assert_int_eq(err.sys_errno, ENOENT);
	ck_assert(strstr(err.problem, "cannot create") != NULL);
	ck_assert_ptr_null(picl_output_open("", 0, &status, &err));
}
END_TEST

/* /dev/fd/N is written where it is, and with PICL_OUTPUT_FILE through a
 * temporary file copied into it at commit. */
START_TEST(descriptor_direct_and_by_file)
{
	struct picl_output *o;
	char name[64], buf[64];
	const char *tmp;
	FILE *f;
	int pfd[2], pass;

	for (pass = 0; pass < 2; pass++) {
		ssize_t n;

		ck_assert_int_eq(pipe(pfd), 0);
		snprintf(name, sizeof(name), "/dev/fd/%d", pfd[1]);
		o = picl_output_open(name, pass ? PICL_OUTPUT_FILE : 0, NULL, NULL);
		ck_assert_ptr_nonnull(o);
		tmp = picl_output_temp_path(o);
		if (pass == 0) {
			ck_assert_ptr_null(tmp);
			write_str(o, "direct\n");
		} else {
			ck_assert_ptr_nonnull(tmp);
			f = fopen(tmp, "w");   /* as gnuplot would */
			ck_assert_ptr_nonnull(f);
			fputs("by name\n", f);
			ck_assert_int_eq(fclose(f), 0);
		}
		ck_assert_int_eq(picl_output_commit(o, NULL), PICL_OK);
		close(pfd[1]);
		n = read(pfd[0], buf, sizeof(buf) - 1);
		ck_assert_int_ge(n, 0);
		buf[n] = '\0';
		ck_assert_str_eq(buf, pass ? "by name\n" : "direct\n");
		close(pfd[0]);
		if (pass)
			ck_assert_int_eq(access(tmp, F_OK), -1);
	}
}
END_TEST

/* Other spellings of /dev/stdout are standard output too, written where
 * it is (here a file opened for appending): "//dev/stdout" replaced the
 * file standard output had been redirected to (through the link
 * /dev/stdout is), and "/dev/./stdout" truncated it, its contents lost
 * either way. Nothing else is left in the directory. */
START_TEST(stdout_other_spellings)
{
	static const char *const names[] = {
		"//dev/stdout", "/dev/./stdout", "/dev/../dev/stdout", "/dev/fd/../fd/1"
	};
	struct picl_output *o;
	struct picl_error err;
	size_t i;
	int fd, saved, st;

	put(in_dir("log"), "keep\n", 0644);
	fd = open(in_dir("log"), O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	fflush(stdout);
	saved = dup(1);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_eq(dup2(fd, 1), 1);
	close(fd);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		o = picl_output_open(names[i], 0, &st, &err);
		if (!o)
			break;
		if (picl_output_temp_path(o)) {
			picl_output_abort(o);
			break;
		}
		write_str(o, names[i]);
		write_str(o, "\n");
		if (picl_output_commit(o, &err) != PICL_OK)
			break;
	}
	ck_assert_int_eq(dup2(saved, 1), 1);
	close(saved);
	ck_assert_msg(i == sizeof(names) / sizeof(names[0]), "%s was not written as standard output",
		      i < sizeof(names) / sizeof(names[0]) ? names[i] : "");
	ck_assert_str_eq(get(in_dir("log")),
			 "keep\n//dev/stdout\n/dev/./stdout\n/dev/../dev/stdout\n/dev/fd/../fd/1\n");
	ck_assert_int_eq(entries(), 1);
}
END_TEST

START_TEST(full_device)
{
	struct picl_error err;
	struct picl_output *o;

	if (access("/dev/full", W_OK) < 0)
		return;
	memset(&err, 0, sizeof(err));
	o = picl_output_open("/dev/full", PICL_OUTPUT_FILE, NULL, &err);
	ck_assert_ptr_nonnull(o);
	write_str(o, "x\n");
	ck_assert_int_eq(picl_output_commit(o, &err), PICL_ERR_IO);
	ck_assert_int_eq(err.sys_errno, ENOSPC);
	ck_assert_str_eq(err.path, "/dev/full");
}
END_TEST

/* A name of NAME_MAX bytes (255) is written, though ".NAME.tmpXXXXXX"
 * would not be a name: the temporary file takes the name's start. */
START_TEST(longest_name)
{
	char name[256], path[600];
	struct picl_output *o;
	struct picl_error err;
	int st;

	memset(name, 'a', 250);
	strcpy(name + 250, ".picl");
	/* a UTF-8 character (é) where the cut falls: not split */
	name[243] = (char)0xc3;
	name[244] = (char)0xa9;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(&err, 0, sizeof(err));
	o = picl_output_open(path, 0, &st, &err);
	ck_assert_msg(o != NULL, "%s", err.problem);
	ck_assert_uint_le(strlen(strrchr(picl_output_temp_path(o), '/') + 1), 255);
	ck_assert_ptr_nonnull(strstr(picl_output_temp_path(o), "aaa.tmp"));
	write_str(o, "new\n");
	ck_assert_int_eq(picl_output_commit(o, NULL), PICL_OK);
	ck_assert_str_eq(get(path), "new\n");
	ck_assert_int_eq(entries(), 1);
}
END_TEST

/* Every test's directory (setup) is made in one directory that goes away
 * with all it holds once the tests have run, whether they passed or not:
 * a failed assertion ends a test before its teardown. */
int main(void)
{
	Suite *s = suite_create("output");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	char top[300], cmd[340];
	int failed;

	if (test_tmp_path(top, sizeof(top), "picl-test-output.XXXXXX") >= (int)sizeof(top) ||
	    !mkdtemp(top)) {
		perror(top);
		return EXIT_FAILURE;
	}
	setenv("TMPDIR", top, 1);

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, replace_keeps_mode);
	tcase_add_test(tc, abort_leaves_nothing);
	tcase_add_test(tc, link_stays_link);
	tcase_add_test(tc, dangling_link);
	tcase_add_test(tc, read_only_refused);
	tcase_add_test(tc, missing_directory);
	tcase_add_test(tc, descriptor_direct_and_by_file);
	tcase_add_test(tc, stdout_other_spellings);
	tcase_add_test(tc, full_device);
	tcase_add_test(tc, longest_name);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd) != 0)
		failed++;
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * replay.c - runs a fuzz target over files without libFuzzer, so every
 * corpus (and every crash once fixed) is replayed by `make check` with gcc
 * and the sanitizers of the build. Usage: replay-NAME [FILE|DIR]...; with
 * no argument it replays the directory built in as CORPUS_DIR.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "slurp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional in a target, as with libFuzzer: called once before the inputs. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
	size_t n;
	char *buf = slurp(path, &n);

	if (!buf) {
		fprintf(stderr, "%s: cannot read\n", path);
		return 1;
	}
	LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
	free(buf);
	return 0;
}

static int run_path(const char *path, int *count)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (stat(path, &st) < 0) {
		perror(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		++*count;
		return run_file(path);
	}
	d = opendir(path);
	if (!d) {
		perror(path);
		return 1;
	}
	while ((de = readdir(d)) != NULL) {
		char sub[4096];

		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		rc |= run_path(sub, count);
	}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	int i, rc = 0, count = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	if (argc < 2)
		rc = run_path(CORPUS_DIR, &count);
	for (i = 1; i < argc; i++)
		rc |= run_path(argv[i], &count);
	printf("replayed %d inputs\n", count);
	return rc || count == 0;
}

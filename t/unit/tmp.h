/*
 * tmp.h - where the unit tests make their temporary files: in $TMPDIR,
 * or /tmp when it is unset or empty, as the tools themselves do. So a
 * `make check` run with TMPDIR set keeps them in one place, and
 * bootstrap can check that none is left behind.
 */
#ifndef PICL_TEST_TMP_H
#define PICL_TEST_TMP_H

#include <stdio.h>
#include <stdlib.h>

static inline const char *test_tmpdir(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

/* buf = "$TMPDIR/" followed by name (a mkstemp/mkdtemp pattern, say);
 * the path does not fit when the result is not below size. */
static inline int test_tmp_path(char *buf, size_t size, const char *name)
{
	return snprintf(buf, size, "%s/%s", test_tmpdir(), name);
}

#endif

#!/bin/sh
# A program of a user's, built against the library as `make install` puts
# it (under a DESTDIR of our own) with nothing but what pkg-config says:
# the installed picl-trace.h must compile alone, in strict C99 and as
# C++, warning-free; picl-trace.pc must name the installed header and
# library; and the program must read, write and report errors through it.
. "$PICL_SRCDIR/t/e2e/lib.sh"
set -e

install_lib
case " $cflags " in
  *" -I$dest$includedir "*) ;;
  *) fail "pkg-config --cflags does not name the installed header's directory: $cflags" ;;
esac

cat >"$TMP/user.c" <<'EOF'
#include <picl-trace.h>
#include <stdio.h>
#include <string.h>

static const char text[] =
	"-6 -1 0.00000 -1 -1 1 \"%d%s\" 9 \"%d%lf\"\n"
	"-3 -21 0.000010 0 0 3 2 100 5 1\n"
	"-2 7 0.5000 1 0 1 9 -3 2.50\n"
	"-5 7 1.25 0 0 5 0 hello\n"
	"-2 8 1.5e-3 0 0 2 \"%3d%2c\" 123ab 456cd\n";

static int say(const struct picl_error *err)
{
	char buf[512];

	fprintf(stderr, "%s\n", picl_error_format(err, buf, sizeof(buf)));
	return 1;
}

int main(int argc, char **argv)
{
	struct picl_reader_options o;
	struct picl_error err;
	struct picl_record rec;
	struct picl_reader *r;
	struct picl_writer *w;
	char buf[512];
	int st, rc, n = 0;

	if (argc != 2)
		return 2;
	memset(&o, 0, sizeof(o));
	o.flags = PICL_READ_RAW;
	r = picl_reader_open_memory(text, sizeof(text) - 1, "user", &o, &st, &err);
	if (!r)
		return say(&err);
	w = picl_writer_open(argv[1], NULL, &st, &err);
	if (!w)
		return say(&err);
	while ((rc = picl_reader_next(r, &rec)) == PICL_OK) {
		if (!rec.values && rec.nfields > 0 && picl_reader_decode(r, &rec) < 0)
			return say(picl_reader_error(r));
		if (picl_writer_write(w, &rec) < 0)
			return say(picl_writer_error(w));
		n++;
	}
	if (rc != PICL_END)
		return say(picl_reader_error(r));
	picl_reader_free(r);
	if (picl_writer_close(w, &err) < 0)
		return say(&err);

	r = picl_reader_open_memory("-3 -901 0 x 0 0\n", 16, "bad", NULL, &st, &err);
	if (!r)
		return say(&err);
	rc = picl_reader_next(r, &rec);
	printf("%s: %s\n", picl_status_text(rc),
	       picl_error_format(picl_reader_error(r), buf, sizeof(buf)));
	picl_reader_free(r);
	printf("%d records\n", n);
	return 0;
}
EOF

# what the writer makes of it: canonical lines (1.5e-3 is 0.0015, one
# blank before every value), every other byte as it came
printf '%s' '-6 -1 0.00000 -1 -1 1 "%d%s" 9 "%d%lf"
-3 -21 0.000010 0 0 3 2 100 5 1
-2 7 0.5000 1 0 1 9 -3 2.50
-5 7 1.25 0 0 5 0 hello
-2 8 0.0015 0 0 2 "%3d%2c" 123 ab 456 cd
' >"$TMP/expected.picl"

check_program() { # LANGUAGE COMPILER FLAGS...
  lang=$1; shift
  # shellcheck disable=SC2086 # (flags are words)
  run "$@" -Wall -Wextra -pedantic -Werror $san $cflags -o "$TMP/user" "$TMP/user.c" $libs
  [ "$rc" -eq 0 ] || { cat "$TMP/err" >&2; fail "the installed API does not build as $lang: $last"; }
  rm -f "$TMP/out.picl"
  run env LD_LIBRARY_PATH="$dest$libdir" "$TMP/user" "$TMP/out.picl"
  expect_rc 0
  expect_out <<'EOF'
syntax error: bad:1:11: expected an integer processor id, found "x"
5 records
EOF
  cmp "$TMP/expected.picl" "$TMP/out.picl" ||
    fail "$lang: the round trip through the installed library changed the trace"
  # the program ran the installed library, not the build tree's
  run env LD_LIBRARY_PATH="$dest$libdir" LD_DEBUG=libs "$TMP/user" "$TMP/out2.picl"
  grep -q "$dest$libdir/libpicl-trace.so" "$TMP/err" ||
    echo "(could not confirm with LD_DEBUG which libpicl-trace.so was loaded)"
}

# shellcheck disable=SC2086
check_program C99 $cc -std=c99
cxx=${CXX:-c++}
if command -v "${cxx%% *}" >/dev/null; then
  # shellcheck disable=SC2086
  check_program C++ $cxx -x c++
else
  echo "no C++ compiler ($cxx): the header is not checked as C++"
fi
echo "ok: the installed library builds and runs as C99 and C++ through pkg-config"

/*
 * baseline-fgets.c - the "straightforward" PICL trace reader, for comparison.
 *
 * What a careful programmer writes in an afternoon: fgets into a 1 MiB line
 * buffer, strtok to split the fields, strtol for the integers, strtod for
 * the timestamp and for every data value that looks like a floating point
 * number (a '.', 'e' or 'E' in it), strtol for the others. Character data
 * (descriptor 0, "%c": labels and messages) are skipped as text. Every
 * record's six fixed fields and every data value are parsed; the sums are
 * printed so the compiler cannot drop the work.
 *
 * It does not join continuation lines, does not resolve aliases and does
 * not check anything: it is the floor a real reader should beat or match.
 *
 * Usage: baseline-fgets [FILE]     (standard input without FILE or "-")
 * Prints: records N values N isum N dsum X
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES (1 << 20)

static const char seps[] = " \t\r\n";

int main(int argc, char **argv)
{
	FILE *f = stdin;
	char *line;
	uint64_t records = 0, values = 0;
	int64_t isum = 0;
	double dsum = 0.0;

	if (argc > 2) {
		fprintf(stderr, "usage: baseline-fgets [FILE]\n");
		return 2;
	}
	if (argc == 2 && strcmp(argv[1], "-") != 0) {
		f = fopen(argv[1], "r");
		if (!f) {
			perror(argv[1]);
			return 1;
		}
	}
	line = malloc(LINE_MAX_BYTES);
	if (!line) {
		perror("malloc");
		return 1;
	}

	while (fgets(line, LINE_MAX_BYTES, f)) {
		char *tok, *save = NULL;
		long fixed[5];
		long nfields;
		int i;

		tok = strtok_r(line, seps, &save);
		if (!tok)
			continue;
		/* record type, event type */
		fixed[0] = strtol(tok, NULL, 10);
		tok = strtok_r(NULL, seps, &save);
		if (!tok)
			continue;
		fixed[1] = strtol(tok, NULL, 10);
		/* timestamp */
		tok = strtok_r(NULL, seps, &save);
		if (!tok)
			continue;
		dsum += strtod(tok, NULL);
		/* processor, process, number of data fields */
		for (i = 2; i < 5; i++) {
			tok = strtok_r(NULL, seps, &save);
			if (!tok)
				break;
			fixed[i] = strtol(tok, NULL, 10);
		}
		if (i < 5)
			continue;
		records++;
		isum += fixed[0] + fixed[1] + fixed[2] + fixed[3] + fixed[4];
		nfields = fixed[4];
		if (nfields <= 0)
			continue;
		/* descriptor */
		tok = strtok_r(NULL, seps, &save);
		if (!tok || strcmp(tok, "0") == 0)
			continue; /* character data: text, not numbers */
		/* data values */
		while ((tok = strtok_r(NULL, seps, &save)) != NULL) {
			if (tok[0] == '"')
				continue; /* a control string inside -6 data */
			if (strpbrk(tok, ".eE"))
				dsum += strtod(tok, NULL);
			else
				isum += strtol(tok, NULL, 10);
			values++;
		}
	}
	if (ferror(f)) {
		perror("read");
		return 1;
	}
	printf("records %llu values %llu isum %lld dsum %.6f\n",
	       (unsigned long long)records, (unsigned long long)values,
	       (long long)isum, dsum);
	free(line);
	if (f != stdin)
		fclose(f);
	return 0;
}

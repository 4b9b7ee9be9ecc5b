/*
 * editdist.h - the edit distance that names the word a misspelling was
 * meant to be, not installed.
 *
 * picltrace's unknown command ("did you mean") and a schema's unknown key
 * both rank the words they know by it. Static inline, like grow.h, so that
 * picltrace uses it without libpicl-trace exporting it.
 */
#ifndef PICL_EDITDIST_H
#define PICL_EDITDIST_H

#include <stddef.h>

#define EDIT_DISTANCE_MAX 16

/*
 * The edit distance (insert, delete, replace, swap two neighbours) between
 * the la bytes at a and the lb bytes at b, counted up to max (at most
 * EDIT_DISTANCE_MAX): max when either is max bytes long or longer.
 */
static inline int edit_distance(const char *a, size_t la, const char *b, size_t lb, int max)
{
	int d[EDIT_DISTANCE_MAX + 1][EDIT_DISTANCE_MAX + 1];
	size_t i, j;

	if (max > EDIT_DISTANCE_MAX)
		max = EDIT_DISTANCE_MAX;
	if (la >= (size_t)max || lb >= (size_t)max)
		return max;
	for (i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

#endif

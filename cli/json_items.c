/*
 * json_items.c - a list printed as a JSON array an element at a time
 * (json_items.h).
 */
#include "json_items.h"

#include <stdlib.h>
#include <string.h>

int cli_json_items_dump(FILE *out, const void *items, size_t size, size_t n,
			json_t *(*make)(const void *item, const void *arg), const void *arg)
{
	const char *item = items;

	if (!n)
		return fputs("[]\n", out) < 0 ? -1 : 0;
	fputs("[\n", out);
	for (size_t i = 0; i < n; i++, item += size) {
		json_t *v = make(item, arg);
		char *s = v ? json_dumps(v, CLI_JSON_FLAGS) : NULL;
		const char *line = s;

		json_decref(v);
		if (!s)
			return -1;
		/* an element's lines are one level deeper in its array (a
		 * string's newlines are escaped: each is a line of the dump) */
		while (*line) {
			const char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);

			fputs("  ", out);
			fwrite(line, 1, len, out);
			line += len;
		}
		free(s);
		fputs(i + 1 < n ? ",\n" : "\n", out);
	}
	return fputs("]\n", out) < 0 ? -1 : 0;
}

/*
 * json_items.h - a list printed as a JSON array an element at a time: the
 * bytes jansson prints for the whole array (indented by two, ASCII), with
 * one element's tree and text in memory at once instead of the list's.
 */
#ifndef CALLUS_CLI_JSON_ITEMS_H
#define CALLUS_CLI_JSON_ITEMS_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* The flags every command prints its JSON with. */
#define CLI_JSON_FLAGS (JSON_INDENT(2) | JSON_ENSURE_ASCII)

/*
 * Print to out the array of make(items + i * size, arg) for i in [0, n),
 * as json_dumpf(array, out, CLI_JSON_FLAGS) and a newline would, making
 * and dropping one element at a time.  make returns a new reference to an
 * object or array, NULL when out of memory.  0, or -1 when an element
 * could not be made or printed (what was printed stays printed).
 */
int cli_json_items_dump(FILE *out, const void *items, size_t size, size_t n,
			json_t *(*make)(const void *item, const void *arg), const void *arg);

#endif

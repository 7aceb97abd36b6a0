#include "callus/strlist.h"
#include "callus/common.h"

#include <stdlib.h>
#include <string.h>

int callus_strlist_add(callus_strlist *l, const char *s, size_t len)
{
	char *copy;

	if (l->count == l->alloc) {
		size_t n = l->alloc ? l->alloc * 2 : 8, bytes;
		char **p;

		if (callus_size_mul(&bytes, n, sizeof(*p)) < 0 || !(p = realloc(l->items, bytes)))
			return CALLUS_ENOMEM;
		l->items = p;
		l->alloc = n;
	}
	if (!(copy = malloc(len + 1)))
		return CALLUS_ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	l->items[l->count++] = copy;
	return 0;
}

int callus_strlist_contains(const callus_strlist *l, const char *s, size_t len)
{
	for (size_t i = 0; i < l->count; i++)
		if (strlen(l->items[i]) == len && !memcmp(l->items[i], s, len))
			return 1;
	return 0;
}

int callus_strlist_add_unique(callus_strlist *l, const char *s, size_t len, int *added)
{
	int rc = 0, dup = callus_strlist_contains(l, s, len);

	if (!dup)
		rc = callus_strlist_add(l, s, len);
	if (added)
		*added = !dup && rc == 0;
	return rc;
}

char **callus_strlist_detach(callus_strlist *l, size_t *count)
{
	char **items = l->items;

	*count = l->count;
	l->items = NULL;
	l->count = l->alloc = 0;
	return items;
}

void callus_strlist_release(callus_strlist *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->count; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->count = l->alloc = 0;
}

#include "deja/strlist.h"
#include "deja/common.h"

#include <stdlib.h>
#include <string.h>

int deja_strlist_add(deja_strlist *l, const char *s, size_t len)
{
	char *copy;

	if (l->count == l->alloc) {
		size_t n = l->alloc ? l->alloc * 2 : 8, bytes;
		char **p;

		if (deja_size_mul(&bytes, n, sizeof(*p)) < 0 || !(p = realloc(l->items, bytes)))
			return DEJA_ENOMEM;
		l->items = p;
		l->alloc = n;
	}
	if (!(copy = malloc(len + 1)))
		return DEJA_ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	l->items[l->count++] = copy;
	return 0;
}

int deja_strlist_contains(const deja_strlist *l, const char *s, size_t len)
{
	for (size_t i = 0; i < l->count; i++)
		if (strlen(l->items[i]) == len && !memcmp(l->items[i], s, len))
			return 1;
	return 0;
}

int deja_strlist_add_unique(deja_strlist *l, const char *s, size_t len, int *added)
{
	int rc = 0, dup = deja_strlist_contains(l, s, len);

	if (!dup)
		rc = deja_strlist_add(l, s, len);
	if (added)
		*added = !dup && rc == 0;
	return rc;
}

char **deja_strlist_detach(deja_strlist *l, size_t *count)
{
	char **items = l->items;

	*count = l->count;
	l->items = NULL;
	l->count = l->alloc = 0;
	return items;
}

void deja_strlist_release(deja_strlist *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->count; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->count = l->alloc = 0;
}

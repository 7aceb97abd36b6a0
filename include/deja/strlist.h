/*
 * strlist.h - a growable list of owned strings.
 *
 * The list owns every item (malloc'd copies); deja_strlist_release() frees
 * them.  Items are borrowed by readers until the list is released.
 */
#ifndef DEJA_STRLIST_H
#define DEJA_STRLIST_H

#include <stddef.h>

typedef struct deja_strlist {
	char **items;
	size_t count, alloc;
} deja_strlist;

#define DEJA_STRLIST_INIT { NULL, 0, 0 }

/* Append a copy of s[0..len). */
int deja_strlist_add(deja_strlist *l, const char *s, size_t len);
/* Append unless an equal string is already there; *added tells which. */
int deja_strlist_add_unique(deja_strlist *l, const char *s, size_t len, int *added);
int deja_strlist_contains(const deja_strlist *l, const char *s, size_t len);
/* Hand the array to the caller (free each item, then the array). */
char **deja_strlist_detach(deja_strlist *l, size_t *count);
void deja_strlist_release(deja_strlist *l);

#endif

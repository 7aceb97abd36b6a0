/*
 * strlist.h - a growable list of owned strings.
 *
 * The list owns every item (malloc'd copies); callus_strlist_release() frees
 * them.  Items are borrowed by readers until the list is released.
 */
#ifndef CALLUS_STRLIST_H
#define CALLUS_STRLIST_H

#include <stddef.h>

typedef struct callus_strlist {
	char **items;
	size_t count, alloc;
} callus_strlist;

#define CALLUS_STRLIST_INIT { NULL, 0, 0 }

/* Append a copy of s[0..len). */
int callus_strlist_add(callus_strlist *l, const char *s, size_t len);
/* Append unless an equal string is already there; *added tells which. */
int callus_strlist_add_unique(callus_strlist *l, const char *s, size_t len, int *added);
int callus_strlist_contains(const callus_strlist *l, const char *s, size_t len);
/* Hand the array to the caller (free each item, then the array). */
char **callus_strlist_detach(callus_strlist *l, size_t *count);
void callus_strlist_release(callus_strlist *l);

#endif

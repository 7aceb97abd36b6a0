/*
 * strlist.h - a growable list of owned strings.
 *
 * The list owns every item (malloc'd copies); callus_strlist_release() frees
 * them.  Items are borrowed by readers until the list is released.
 *
 * A list is searched item by item, unless its owner asked for an index
 * (callus_strlist_index): a list that may grow to thousands and is asked
 * for each new string (the files a megabyte of build output names, one
 * diagnostic a line) would cost the square of its length.
 */
#ifndef CALLUS_STRLIST_H
#define CALLUS_STRLIST_H

#include <stddef.h>

struct callus_strlist_slot;
struct callus_strlist_block;

typedef struct callus_strlist {
	char **items;
	size_t count, alloc;
	struct callus_strlist_slot *slots; /* the index, owned: NULL until built */
	size_t nslots;                     /* a power of two */
	int hashed;                        /* callus_strlist_index() asked for one */
	struct callus_strlist_block *blocks; /* with pooled: the items' copies */
	int pooled;                        /* callus_strlist_pool() asked for it */
} callus_strlist;

#define CALLUS_STRLIST_INIT { NULL, 0, 0, NULL, 0, 0, NULL, 0 }

/* Append a copy of s[0..len). */
int callus_strlist_add(callus_strlist *l, const char *s, size_t len);
/* Append unless an equal string is already there; *added tells which. */
int callus_strlist_add_unique(callus_strlist *l, const char *s, size_t len, int *added);
int callus_strlist_contains(const callus_strlist *l, const char *s, size_t len);
/* 1 when an item equals s[0..len), *at (may be NULL) set to the first such
 * item's place; 0 when none does. */
int callus_strlist_find(const callus_strlist *l, const char *s, size_t len, size_t *at);
/*
 * Find items by their hash from now on: callus_strlist_add_unique() and
 * callus_strlist_contains() take the same time at any length.  The table is
 * made once the list is longer than a search of it costs (eight items):
 * asking for it costs a short list nothing.  The owner promises that the
 * list then changes only through the functions here: an item replaced,
 * removed or moved by hand (a sort) leaves the index wrong until
 * callus_strlist_index() makes it again.  Without memory for it, or for it
 * to grow, the list goes back to being searched item by item:
 * CALLUS_ENOMEM tells (or nothing, when it happens as an item is added),
 * and the list is as right as before.
 */
int callus_strlist_index(callus_strlist *l);
/*
 * Copy the items added from now on into blocks the list allocates a few at
 * a time, not each into an allocation of its own: a list of thousands of
 * short strings (the distinct lines of a megabyte of output, 13,766 of
 * them) made as many allocations and frees.  Asked of an empty list
 * (CALLUS_EINVAL otherwise).  The owner promises that no item is then
 * freed or replaced by hand; callus_strlist_detach() hands over copies
 * the caller frees as from any list.
 */
int callus_strlist_pool(callus_strlist *l);
/* Hand the array to the caller (free each item, then the array); the index
 * is freed.  NULL without memory for a pooled list's copies (the list as it
 * was). */
char **callus_strlist_detach(callus_strlist *l, size_t *count);
void callus_strlist_release(callus_strlist *l);

#endif

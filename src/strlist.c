#include "callus/strlist.h"
#include "callus/buf.h"
#include "callus/common.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A list this long or shorter is searched item by item, sooner than one
 * string is hashed: no table is made for it. */
#define LINEAR_MAX 8

/* An index's slot: the item's place + 1 (0: empty) and the low half of
 * its hash, so that a probe compares strings only when those are equal.
 * Eight bytes where sixteen were: the 7,807 files a megabyte of distinct
 * errors names made a table of a quarter megabyte, its pages faulted in
 * at each recording. */
struct callus_strlist_slot {
	uint32_t at;
	uint32_t hash;
};

/* A list longer than a slot can tell is searched item by item. */
#define INDEX_MAX_ITEMS UINT32_MAX

/* No index, nor one wanted: searched item by item. */
static void index_drop(callus_strlist *l)
{
	free(l->slots);
	l->slots = NULL;
	l->nslots = 0;
	l->hashed = 0;
}

/* The slot holding s[0..len) (hash h) in l's index, or the empty slot where
 * it would go.  The index is never full (index_put keeps it under 3/4). */
static struct callus_strlist_slot *slot_of(const callus_strlist *l, const char *s, size_t len,
					   uint64_t h)
{
	size_t mask = l->nslots - 1;

	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		struct callus_strlist_slot *sl = &l->slots[i];
		const char *item;

		if (!sl->at)
			return sl;
		item = l->items[sl->at - 1];
		if (sl->hash == (uint32_t)h && strnlen(item, len + 1) == len &&
		    !memcmp(item, s, len))
			return sl;
	}
}

/* A table of n slots (a power of two) holding items[0..count). */
static int index_build(callus_strlist *l, size_t n)
{
	struct callus_strlist_slot *old = l->slots;
	size_t i;

	if (l->count > INDEX_MAX_ITEMS || !(l->slots = calloc(n, sizeof(*l->slots)))) {
		l->slots = old;
		return CALLUS_ENOMEM;
	}
	free(old);
	l->nslots = n;
	for (i = 0; i < l->count; i++) {
		size_t len = strlen(l->items[i]);
		uint64_t h = callus_text_hash(l->items[i], len);
		struct callus_strlist_slot *sl = slot_of(l, l->items[i], len, h);

		/* an equal item before it keeps the slot, as a search finds the
		 * first of equal items */
		if (!sl->at) {
			sl->at = (uint32_t)(i + 1);
			sl->hash = (uint32_t)h;
		}
	}
	return 0;
}

/* The index moved to a table of n slots, by the hashes it holds: its
 * entries are distinct strings already, so none is compared. */
static int index_grow(callus_strlist *l, size_t n)
{
	struct callus_strlist_slot *to = calloc(n, sizeof(*to));

	if (!to)
		return CALLUS_ENOMEM;
	for (size_t i = 0; i < l->nslots; i++) {
		size_t j;

		if (!l->slots[i].at)
			continue;
		for (j = (size_t)l->slots[i].hash & (n - 1); to[j].at; j = (j + 1) & (n - 1))
			;
		to[j] = l->slots[i];
	}
	free(l->slots);
	l->slots = to;
	l->nslots = n;
	return 0;
}

/* items[count - 1], s[0..len) just appended (hash h), entered in the
 * index, grown first when it would be 3/4 full; without memory the index
 * is dropped.  sl: its slot, when the caller found it before the append
 * (moved by a growth), else NULL. */
static void index_put(callus_strlist *l, const char *s, size_t len, uint64_t h,
		      struct callus_strlist_slot *sl)
{
	size_t n;

	if (l->count > INDEX_MAX_ITEMS) {
		index_drop(l);
		return;
	}
	if (l->count * 4 > l->nslots * 3) {
		if (callus_size_mul(&n, l->nslots, 2) < 0 || index_grow(l, n) < 0) {
			index_drop(l);
			return;
		}
		sl = NULL;
	}
	if (!sl)
		sl = slot_of(l, s, len, h);
	if (!sl->at) {
		sl->at = (uint32_t)l->count;
		sl->hash = (uint32_t)h;
	}
}

/* The table for items[0..count), made now. */
static int index_make(callus_strlist *l)
{
	size_t n = 16;

	while (n * 3 < l->count * 4 + 4) {
		if (callus_size_mul(&n, n, 2) < 0) {
			index_drop(l);
			return CALLUS_ENOMEM;
		}
	}
	if (index_build(l, n) < 0) {
		index_drop(l);
		return CALLUS_ENOMEM;
	}
	return 0;
}

int callus_strlist_index(callus_strlist *l)
{
	l->hashed = 1;
	return l->count > LINEAR_MAX ? index_make(l) : 0;
}

/* A block of a pooled list's copies: the newest first. */
struct callus_strlist_block {
	struct callus_strlist_block *next;
	size_t used, size;
	char bytes[];
};

/* Bytes of a list's first block, and of its largest (unless a string
 * needs more): each block twice the one before, so that a short list
 * takes little. */
#define BLOCK_FIRST 1024
#define BLOCK_MAX 65536

int callus_strlist_pool(callus_strlist *l)
{
	if (l->count)
		return CALLUS_EINVAL;
	l->pooled = 1;
	return 0;
}

/* Room for n bytes in l's newest block, or a new one; NULL without memory. */
static char *pool_take(callus_strlist *l, size_t n)
{
	struct callus_strlist_block *b = l->blocks;

	if (!b || b->size - b->used < n) {
		size_t size = !b ? BLOCK_FIRST : b->size < BLOCK_MAX ? 2 * b->size : BLOCK_MAX;

		if (size < n)
			size = n;
		if (size > (size_t)-1 - sizeof(*b) || !(b = malloc(sizeof(*b) + size)))
			return NULL;
		/* a block is filled before the next is taken */
		callus_prefault(b->bytes, size);
		b->next = l->blocks;
		b->used = 0;
		b->size = size;
		l->blocks = b;
	}
	b->used += n;
	return b->bytes + b->used - n;
}

static void pool_free(callus_strlist *l)
{
	while (l->blocks) {
		struct callus_strlist_block *next = l->blocks->next;

		free(l->blocks);
		l->blocks = next;
	}
}

/* A copy of s[0..len) appended, *copy it (not yet indexed). */
static inline int append(callus_strlist *l, const char *s, size_t len, char **copy)
{
	if (l->count == l->alloc) {
		size_t n = l->alloc ? l->alloc * 2 : 8, bytes;
		char **p;

		if (callus_size_mul(&bytes, n, sizeof(*p)) < 0 || !(p = realloc(l->items, bytes)))
			return CALLUS_ENOMEM;
		l->items = p;
		l->alloc = n;
	}
	if (len == (size_t)-1 || !(*copy = l->pooled ? pool_take(l, len + 1) : malloc(len + 1)))
		return CALLUS_ENOMEM;
	memcpy(*copy, s, len);
	(*copy)[len] = '\0';
	l->items[l->count++] = *copy;
	return 0;
}

int callus_strlist_add(callus_strlist *l, const char *s, size_t len)
{
	char *copy;
	int rc = append(l, s, len, &copy);

	/* without memory for the table, searched as before */
	if (rc == 0 && l->slots)
		index_put(l, copy, len, callus_text_hash(copy, len), NULL);
	else if (rc == 0 && l->hashed && l->count > LINEAR_MAX)
		(void)index_make(l);
	return rc;
}

int callus_strlist_find(const callus_strlist *l, const char *s, size_t len, size_t *at)
{
	if (l->slots) {
		const struct callus_strlist_slot *sl = slot_of(l, s, len, callus_text_hash(s, len));

		if (sl->at && at)
			*at = sl->at - 1;
		return sl->at != 0;
	}
	for (size_t i = 0; i < l->count; i++)
		if (strlen(l->items[i]) == len && !memcmp(l->items[i], s, len)) {
			if (at)
				*at = i;
			return 1;
		}
	return 0;
}

int callus_strlist_contains(const callus_strlist *l, const char *s, size_t len)
{
	return callus_strlist_find(l, s, len, NULL);
}

int callus_strlist_add_unique(callus_strlist *l, const char *s, size_t len, int *added)
{
	int rc = 0, dup;

	if (l->slots) {
		/* hashed and sought once: the slot the search ends on is the
		 * new item's */
		uint64_t h = callus_text_hash(s, len);
		struct callus_strlist_slot *sl = slot_of(l, s, len, h);
		char *copy;

		if (!(dup = sl->at != 0) && (rc = append(l, s, len, &copy)) == 0)
			index_put(l, copy, len, h, sl);
	} else if (!(dup = callus_strlist_contains(l, s, len))) {
		rc = callus_strlist_add(l, s, len);
	}
	if (added)
		*added = !dup && rc == 0;
	return rc;
}

char **callus_strlist_detach(callus_strlist *l, size_t *count)
{
	char **items = l->items;

	/* a pooled list's items are its blocks': handed over as copies (NULL
	 * and no items, the list as it was, without memory for them) */
	*count = 0;
	for (size_t i = 0; l->pooled && i < l->count; i++) {
		if (i == 0 && !(items = calloc(l->count, sizeof(*items))))
			return NULL;
		if (!(items[i] = strdup(l->items[i]))) {
			while (i-- > 0)
				free(items[i]);
			free(items);
			return NULL;
		}
	}
	if (items != l->items)
		free(l->items);
	*count = l->count;
	l->items = NULL;
	l->count = l->alloc = 0;
	index_drop(l);
	pool_free(l);
	l->pooled = 0;
	return items;
}

void callus_strlist_release(callus_strlist *l)
{
	if (!l)
		return;
	for (size_t i = 0; !l->pooled && i < l->count; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->count = l->alloc = 0;
	index_drop(l);
	pool_free(l);
	l->pooled = 0;
}

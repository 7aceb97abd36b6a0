#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/strlist.h"
#include "callus/utf8.h"
#include "swar.h"

static void empty_buffer_is_a_string(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	assert_non_null(b.ptr);
	assert_string_equal(b.ptr, "");
	callus_buf_release(&b);
	assert_string_equal(b.ptr, "");
}

static void grows_and_formats(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	for (int i = 0; i < 1000; i++)
		assert_int_equal(callus_buf_printf(&b, "%d,", i), 0);
	assert_int_equal(strncmp(b.ptr, "0,1,2,", 6), 0);
	assert_int_equal(b.ptr[b.len], '\0');
	assert_int_equal(b.len, strlen(b.ptr));
	callus_buf_truncate(&b, 2);
	assert_string_equal(b.ptr, "0,");
	callus_buf_puts(&b, "  \n");
	callus_buf_rtrim(&b);
	assert_string_equal(b.ptr, "0,");
	callus_buf_release(&b);
}

static void ceiling_refuses_growth(void **state)
{
	callus_buf b;

	(void)state;
	callus_buf_init(&b, 8);
	assert_int_equal(callus_buf_puts(&b, "12345678"), 0);
	assert_int_equal(callus_buf_putc(&b, '9'), CALLUS_ETOOBIG);
	assert_string_equal(b.ptr, "12345678");
	callus_buf_release(&b);
}

/* A write into the room a buffer has is taken without growing it: still
 * refused past the ceiling, and after a failed allocation (sticky), byte
 * by byte and in runs, with the text as it was. */
static void room_keeps_ceiling_and_failure(void **state)
{
	callus_buf b;

	(void)state;
	for (size_t limit = 1; limit <= 70; limit++) {
		size_t put = 0;

		callus_buf_init(&b, limit);
		/* putc, then runs of three: every write but the first finds room */
		while (put < limit + 4) {
			size_t before = b.len, n = put % 2 ? 3 : 1;
			int rc = n == 3 ? callus_buf_put(&b, "abc", 3) : callus_buf_putc(&b, 'x');

			if (before + n <= limit) {
				assert_int_equal(rc, 0);
				assert_int_equal(b.len, before + n);
			} else {
				assert_int_equal(rc, CALLUS_ETOOBIG);
				assert_int_equal(b.len, before);
			}
			assert_int_equal(strlen(b.ptr), b.len);
			put++;
		}
		assert_true(b.len <= limit);
		assert_true(b.len + 3 > limit);
		callus_buf_release(&b);
	}
	callus_buf_init(&b, 0);
	assert_int_equal(callus_buf_puts(&b, "ab"), 0);
	assert_true(b.cap > b.len + 8);
	b.failed = 1; /* as an allocation that failed leaves it */
	assert_int_equal(callus_buf_putc(&b, 'c'), CALLUS_ENOMEM);
	assert_int_equal(callus_buf_put(&b, "cd", 2), CALLUS_ENOMEM);
	assert_string_equal(b.ptr, "ab");
	callus_buf_release(&b);
}

/* A format printed into the room there is, or, cut short there, printed
 * again after growing; past the ceiling (in the room or not) refused with
 * the text as it was. */
static void prints_in_place_or_grows(void **state)
{
	char longer[300];
	callus_buf b;
	size_t cap;

	(void)state;
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	callus_buf_init(&b, 400);
	assert_int_equal(callus_buf_puts(&b, "ab"), 0);
	cap = b.cap;
	assert_int_equal(callus_buf_printf(&b, "-%d-%s", 42, "cd"), 0);
	assert_string_equal(b.ptr, "ab-42-cd");
	assert_int_equal(b.cap, cap);
	/* more than the room: cut there, then whole */
	assert_int_equal(callus_buf_printf(&b, "%s|", longer), 0);
	assert_int_equal(b.len, 8 + 299 + 1);
	assert_int_equal(b.len, strlen(b.ptr));
	assert_int_equal(memcmp(b.ptr, "ab-42-cdxxx", 11), 0);
	assert_int_equal(b.ptr[b.len - 1], '|');
	assert_true(b.cap > cap);
	/* past the ceiling, though the room would hold it */
	callus_buf_truncate(&b, 2);
	assert_true(b.cap - b.len > 300);
	/* 2 + 299 + 99 bytes: the ceiling reached, not passed */
	assert_int_equal(callus_buf_printf(&b, "%s%s", longer, longer + 200), 0);
	callus_buf_truncate(&b, 2);
	assert_int_equal(callus_buf_printf(&b, "%s%s", longer, longer + 199), CALLUS_ETOOBIG);
	assert_string_equal(b.ptr, "ab");
	assert_int_equal(b.len, 2);
	/* and past the room as well */
	assert_int_equal(callus_buf_printf(&b, "%s%s", longer, longer), CALLUS_ETOOBIG);
	assert_string_equal(b.ptr, "ab");
	/* after a failed allocation nothing more is written, room or not */
	b.failed = 1;
	assert_int_equal(callus_buf_printf(&b, "%d", 7), CALLUS_ENOMEM);
	assert_int_equal(b.len, 2);
	assert_string_equal(b.ptr, "ab");
	callus_buf_release(&b);
}

static void detach_hands_over(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;
	char *s;

	(void)state;
	s = callus_buf_detach(&b);
	assert_string_equal(s, "");
	free(s);
	callus_buf_puts(&b, "abc");
	s = callus_buf_detach(&b);
	assert_string_equal(s, "abc");
	assert_int_equal(b.len, 0);
	free(s);
}

static void size_helpers_detect_overflow(void **state)
{
	size_t r;

	(void)state;
	assert_int_equal(callus_size_add(&r, (size_t)-1, 1), CALLUS_ENOMEM);
	assert_int_equal(callus_size_mul(&r, (size_t)-1 / 2 + 1, 2), CALLUS_ENOMEM);
	assert_int_equal(callus_size_mul(&r, 3, 4), 0);
	assert_int_equal(r, 12);
}

static void strlist_unique(void **state)
{
	callus_strlist l = CALLUS_STRLIST_INIT;
	int added;

	(void)state;
	assert_int_equal(callus_strlist_add_unique(&l, "a.js", 4, &added), 0);
	assert_true(added);
	assert_int_equal(callus_strlist_add_unique(&l, "a.js", 4, &added), 0);
	assert_false(added);
	assert_int_equal(callus_strlist_add_unique(&l, "b.js", 4, &added), 0);
	assert_int_equal(l.count, 2);
	assert_string_equal(l.items[1], "b.js");
	callus_strlist_release(&l);
}

/* A pooled list keeps what a list of allocations keeps: strings of every
 * length (none, and longer than its largest block), each other's prefixes,
 * indexed or not; its copies hold their bytes as more are added; detached,
 * its items are the caller's to free one by one (ASan checks).  Asked of a
 * list that holds items, it is refused. */
static void strlist_pool_keeps_as_allocations(void **state)
{
	static char big[70000];
	char s[64];

	(void)state;
	memset(big, 'b', sizeof(big));
	for (int indexed = 0; indexed < 2; indexed++) {
		callus_strlist plain = CALLUS_STRLIST_INIT, pooled = CALLUS_STRLIST_INIT;
		char **items;
		size_t n = 0;

		assert_int_equal(callus_strlist_pool(&pooled), 0);
		if (indexed) {
			assert_int_equal(callus_strlist_index(&plain), 0);
			assert_int_equal(callus_strlist_index(&pooled), 0);
		}
		for (unsigned i = 0; i < 5000; i++) {
			unsigned k = (i * 7919u) % 3000u;
			const char *str = s;
			size_t len;
			int a1, a2;

			if (k % 997 == 0) {
				str = big;
				len = sizeof(big) - k % 3;
			} else if (k % 5 == 0) {
				len = k % 41;
				memset(s, 'a', len);
			} else {
				len = (size_t)snprintf(s, sizeof(s), "src/d%u/f%u.c", k % 89, k);
			}
			assert_int_equal(callus_strlist_add_unique(&plain, str, len, &a1), 0);
			assert_int_equal(callus_strlist_add_unique(&pooled, str, len, &a2), 0);
			assert_int_equal(a1, a2);
		}
		assert_int_equal(plain.count, pooled.count);
		assert_true(pooled.count > 1000);
		for (size_t i = 0; i < plain.count; i++) {
			size_t at = 0;

			assert_string_equal(plain.items[i], pooled.items[i]);
			assert_int_equal(callus_strlist_find(&pooled, plain.items[i],
							     strlen(plain.items[i]), &at),
					 1);
			assert_int_equal(at, i);
		}
		assert_int_equal(callus_strlist_add(&pooled, "x", 1), 0);
		items = callus_strlist_detach(&pooled, &n);
		assert_int_equal(n, plain.count + 1);
		for (size_t i = 0; i < n; i++) {
			assert_string_equal(items[i], i < plain.count ? plain.items[i] : "x");
			free(items[i]);
		}
		free(items);
		assert_int_equal(pooled.count, 0);
		callus_strlist_release(&pooled);
		callus_strlist_release(&plain);
	}
	{
		callus_strlist l = CALLUS_STRLIST_INIT;

		assert_int_equal(callus_strlist_add(&l, "a", 1), 0);
		assert_int_equal(callus_strlist_pool(&l), CALLUS_EINVAL);
		callus_strlist_release(&l);
	}
}

/* An indexed list answers as one searched item by item: the same items
 * kept, in the same order, through its growth, for strings that are each
 * other's prefixes, and a list indexed with items (duplicates among them)
 * already in it. */
static void strlist_index_agrees_with_a_search(void **state)
{
	callus_strlist plain = CALLUS_STRLIST_INIT, hashed = CALLUS_STRLIST_INIT;
	char s[64];

	(void)state;
	assert_int_equal(callus_strlist_add(&hashed, "src/x.c", 7), 0);
	assert_int_equal(callus_strlist_add(&hashed, "src/x.c", 7), 0);
	assert_int_equal(callus_strlist_add(&plain, "src/x.c", 7), 0);
	assert_int_equal(callus_strlist_add(&plain, "src/x.c", 7), 0);
	assert_int_equal(callus_strlist_index(&hashed), 0);
	for (unsigned i = 0; i < 6000; i++) {
		/* every third string again; lengths 1 to 40: "a", "aa", ... */
		unsigned k = (i * 7919u) % 4000u;
		int n = k % 3 ? snprintf(s, sizeof(s), "src/d%u/f%u.c", k % 97, k)
			      : (int)(1 + k % 40);
		int a1, a2;

		if (!(k % 3))
			memset(s, 'a', (size_t)n);
		assert_int_equal(callus_strlist_add_unique(&plain, s, (size_t)n, &a1), 0);
		assert_int_equal(callus_strlist_add_unique(&hashed, s, (size_t)n, &a2), 0);
		assert_int_equal(a1, a2);
		/* the table made only past eight items, searched before */
		if (hashed.count <= 8)
			assert_null(hashed.slots);
		else
			assert_non_null(hashed.slots);
	}
	assert_null(plain.slots);
	assert_true(hashed.count > 1000);
	assert_int_equal(plain.count, hashed.count);
	for (size_t i = 0; i < plain.count; i++)
		assert_string_equal(plain.items[i], hashed.items[i]);
	/* what is not there: a prefix, a longer string, one with a NUL inside */
	assert_false(callus_strlist_contains(&hashed, "src/d1/f1.", 10));
	assert_false(callus_strlist_contains(&hashed, "src/x.c.o", 9));
	assert_false(callus_strlist_contains(&hashed, "src/x.c\0x", 9));
	memset(s, 'a', 41);
	assert_false(callus_strlist_contains(&hashed, s, 41));
	assert_true(callus_strlist_contains(&hashed, s, 40));
	assert_true(callus_strlist_contains(&hashed, "src/x.c", 7));
	/* found at the same place, the first of equal items ("src/x.c" is
	 * there twice) */
	for (size_t i = 0; i < plain.count; i++) {
		size_t at1 = (size_t)-1, at2 = (size_t)-2;
		const char *it = plain.items[i];

		assert_true(callus_strlist_find(&plain, it, strlen(it), &at1));
		assert_true(callus_strlist_find(&hashed, it, strlen(it), &at2));
		assert_int_equal(at1, at2);
		assert_int_equal(at1, i == 1 ? 0 : i);
	}
	{
		size_t at = 7;

		assert_true(callus_strlist_find(&hashed, "src/x.c", 7, &at));
		assert_int_equal(at, 0);
		at = 7;
		assert_false(callus_strlist_find(&hashed, "src/x.c.o", 9, &at));
		assert_int_equal(at, 7); /* untouched */
	}
	callus_strlist_release(&plain);
	callus_strlist_release(&hashed);
	assert_null(hashed.slots);
}

static void utf8_repair(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	assert_true(callus_utf8_valid("h\xc3\xa9", 3));
	assert_false(callus_utf8_valid("\xc3", 1));
	assert_false(callus_utf8_valid("\xed\xa0\x80", 3)); /* surrogate */
	assert_false(callus_utf8_valid("\xc0\xaf", 2));     /* overlong */
	/* every position of an eight-byte word: the ASCII fast path must not
	 * skip a bad byte, nor split a good sequence */
	for (size_t at = 0; at < 24; at++) {
		char line[40];

		memset(line, 'x', sizeof(line));
		line[at] = (char)0xff;
		assert_false(callus_utf8_valid(line, sizeof(line)));
		memcpy(line + at, "\xe2\x97\x8f", 3);
		assert_true(callus_utf8_valid(line, sizeof(line)));
		assert_false(callus_utf8_valid(line, at + 2)); /* cut inside it */
	}
	callus_utf8_sanitize(&b, "a\xff" "b", 3);
	assert_string_equal(b.ptr, "a\xef\xbf\xbd" "b");
	assert_true(callus_utf8_valid(b.ptr, b.len));
	callus_buf_release(&b);
}

/* Each length's first and last code point written and read back. */
static void utf8_put_reads_back(void **state)
{
	static const unsigned cps[] = { 0x24, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xfffd,
					0xffff, 0x10000, 0x10ffff };
	(void)state;

	for (size_t i = 0; i < sizeof(cps) / sizeof(cps[0]); i++) {
		callus_buf b = CALLUS_BUF_INIT;
		unsigned cp = 0;

		assert_int_equal(callus_utf8_put(&b, cps[i]), 0);
		assert_int_equal(b.len, cps[i] < 0x80 ? 1 : cps[i] < 0x800 ? 2 : cps[i] < 0x10000 ? 3 : 4);
		assert_int_equal(callus_utf8_next(b.ptr, b.len, &cp), b.len);
		assert_int_equal(cp, cps[i]);
		callus_buf_release(&b);
	}
}

/* A JSON string as jansson reads it back: every byte from 1 to 127, and
 * UTF-8, the same bytes; and what jansson's dump gives for the same text. */
static void json_strings_read_back(void **state)
{
	const char *const texts[] = { "", "plain", "\"quoted\" \\back\\slash/",
				      "tab\there\nline\r\b\f\x01\x1f\x7f", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" };
	char all[128];
	(void)state;

	for (int i = 1; i < 128; i++)
		all[i - 1] = (char)i;
	all[127] = '\0';
	for (size_t i = 0; i <= sizeof(texts) / sizeof(texts[0]); i++) {
		const char *t = i < sizeof(texts) / sizeof(texts[0]) ? texts[i] : all;
		callus_buf b = CALLUS_BUF_INIT;
		json_t *v, *d;
		char *dumped;

		assert_int_equal(callus_buf_put_json(&b, t, strlen(t)), 0);
		assert_non_null(v = json_loadb(b.ptr, b.len, JSON_DECODE_ANY, NULL));
		assert_string_equal(json_string_value(v), t);
		assert_int_equal(json_string_length(v), strlen(t));
		/* jansson writes the same bytes, \b, \f and \u001F included */
		assert_non_null(d = json_string(t));
		assert_non_null(dumped = json_dumps(d, JSON_ENCODE_ANY));
		assert_string_equal(b.ptr, dumped);
		free(dumped);
		json_decref(d);
		json_decref(v);
		callus_buf_release(&b);
	}
}

/* Under a ceiling a JSON string stops at the first part refused and says
 * so, at every length of the ceiling: never a text with a hole in it that
 * looks whole (a ceiling's refusal is not sticky, a later short part
 * would fit). */
static void json_string_under_a_ceiling(void **state)
{
	static const char text[] = "line one\nline \"two\"\ttab\x01 and the long rest of it";
	callus_buf whole = CALLUS_BUF_INIT;
	(void)state;

	assert_int_equal(callus_buf_put_json(&whole, text, strlen(text)), 0);
	for (size_t limit = 1; limit < whole.len + 2; limit++) {
		callus_buf b = CALLUS_BUF_INIT;
		int rc;

		callus_buf_init(&b, limit);
		rc = callus_buf_put_json(&b, text, strlen(text));
		if (limit >= whole.len) {
			assert_int_equal(rc, 0);
			assert_string_equal(b.ptr, whole.ptr);
		} else {
			assert_int_equal(rc, CALLUS_ETOOBIG);
			/* what was written is the start of the whole */
			assert_true(b.len < whole.len);
			assert_memory_equal(b.ptr, whole.ptr, b.len);
		}
		callus_buf_release(&b);
	}
	callus_buf_release(&whole);
}

/* The escapes found eight bytes at a time: each byte value at each place
 * of a line of plain text (in the first word, across the word boundary,
 * in the tail the word loop leaves), read back the same. */
static void json_escapes_found_at_every_offset(void **state)
{
	char line[20];
	(void)state;

	for (int c = 1; c < 256; c++)
		for (size_t at = 0; at < sizeof(line) - 1; at++) {
			callus_buf b = CALLUS_BUF_INIT;
			json_t *v;

			memset(line, 'a', sizeof(line) - 1);
			line[sizeof(line) - 1] = '\0';
			line[at] = (char)c;
			assert_int_equal(callus_buf_put_json(&b, line, sizeof(line) - 1), 0);
			/* a byte above 0x7f alone is not UTF-8: compared as bytes */
			if (c < 0x80) {
				assert_non_null(v = json_loadb(b.ptr, b.len, JSON_DECODE_ANY, NULL));
				assert_string_equal(json_string_value(v), line);
				json_decref(v);
			} else {
				assert_int_equal(b.len, sizeof(line) + 1);
				assert_memory_equal(b.ptr + 1, line, sizeof(line) - 1);
			}
			callus_buf_release(&b);
		}
}

/* The word tests against the byte they stand for, on words mixing every
 * byte value with its neighbours (the borrow of a low byte must not hide
 * or invent a match). */
/* callus_swar_printable_len() stops at the first byte outside ' ' to '~',
 * wherever it lies in a word or past the last one. */
static void printable_run_stops_at_each_place(void **state)
{
	static const unsigned char bad[] = { 0x00, '\t', 0x1f, 0x7f, 0x80, 0xff };
	char line[27];

	(void)state;
	memset(line, 'a', sizeof(line));
	assert_int_equal(callus_swar_printable_len(line, sizeof(line)), sizeof(line));
	assert_int_equal(callus_swar_printable_len(line, 0), 0);
	for (size_t at = 0; at < sizeof(line); at++)
		for (size_t b = 0; b < sizeof(bad); b++) {
			memset(line, at % 2 ? ' ' : '~', sizeof(line));
			line[at] = (char)bad[b];
			assert_int_equal(callus_swar_printable_len(line, sizeof(line)), at);
		}
}

/* The spans of swar.h (sixteen bytes, then eight, then one at a time)
 * against their definitions: every byte value at every place of a text
 * of three blocks of sixteen and a tail, the rest plain, each span
 * stopping at the first byte it may not hold. */
static void spans_stop_at_each_place(void **state)
{
	static const char fill[] = { ' ', 'a', '~', '0' };
	char line[53];

	(void)state;
	for (int c = 0; c < 256; c++)
		for (size_t at = 0; at < sizeof(line); at++) {
			unsigned char u = (unsigned char)c;
			int printable = u >= 0x20 && u < 0x7f;
			int json = u >= 0x20 && u != '"' && u != '\\';
			int ascii = u >= 0x20 && u < 0x80 && u != '\\';

			memset(line, fill[at % sizeof(fill)], sizeof(line));
			line[at] = (char)c;
			assert_int_equal(callus_swar_printable_len(line, sizeof(line)),
					 printable ? sizeof(line) : at);
			assert_int_equal(callus_json_plain_len(line, sizeof(line)),
					 json ? sizeof(line) : at);
			assert_int_equal(callus_json_ascii_len(line, sizeof(line)),
					 ascii ? sizeof(line) : at);
			/* a length that ends before the byte: the whole */
			assert_int_equal(callus_json_plain_len(line, at), at);
			assert_int_equal(callus_json_ascii_len(line, at), at);
			/* none of three bytes, on a text holding none of them */
			memset(line, at % 2 ? 'a' : '~', sizeof(line));
			line[at] = (char)c;
			assert_int_equal(callus_span_none3(line, sizeof(line), ':', '[', ' '),
					 u == ':' || u == '[' || u == ' ' ? at : sizeof(line));
			assert_int_equal(callus_span_none3(line, at, ':', '[', ' '), at);
		}
}

/* Pages faulted in ahead keep what they hold: a buffer half written,
 * its whole room and a span across its written part prefaulted (from an
 * address inside a page, to one inside another), every byte as it was;
 * what is written after lands; a span too short to be asked, a NULL, and
 * a buffer without memory for its room change nothing. */
static void prefault_keeps_what_is_there(void **state)
{
	enum { SIZE = 300 * 1024 };
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	for (size_t i = 0; i < SIZE / 2; i++)
		assert_int_equal(callus_buf_putc(&b, (char)('a' + i % 26)), 0);
	callus_prefault(b.ptr + 5, b.len - 10);
	assert_int_equal(callus_buf_prefault(&b, SIZE), 0);
	assert_true(b.cap >= b.len + SIZE + 1);
	callus_prefault(NULL, SIZE);
	callus_prefault(b.ptr, CALLUS_PREFAULT_MIN - 1);
	for (size_t i = 0; i < SIZE / 2; i++)
		if (b.ptr[i] != (char)('a' + i % 26))
			fail_msg("byte %zu changed", i);
	assert_int_equal(b.ptr[b.len], '\0');
	for (size_t i = 0; i < SIZE; i++)
		assert_int_equal(callus_buf_putc(&b, (char)('A' + i % 26)), 0);
	assert_int_equal(b.len, SIZE / 2 + SIZE);
	for (size_t i = 0; i < SIZE; i++)
		if (b.ptr[SIZE / 2 + i] != (char)('A' + i % 26))
			fail_msg("byte %zu of the second half wrong", i);
	callus_buf_release(&b);
	/* a ceiling refuses the room, as callus_buf_grow() does */
	callus_buf_init(&b, 100);
	assert_int_equal(callus_buf_prefault(&b, SIZE), CALLUS_ETOOBIG);
	assert_int_equal(b.len, 0);
	callus_buf_release(&b);
}

/* Numbers put as printf writes them: each power of ten and its
 * neighbours, both ends of the ranges, into a buffer already holding
 * text, and refused whole past its ceiling. */
static void numbers_as_printf_writes_them(void **state)
{
	callus_buf b = CALLUS_BUF_INIT, c = CALLUS_BUF_INIT;
	unsigned long long p = 1;

	(void)state;
	for (int k = 0; k < 20; k++, p *= 10) {
		unsigned long long u[] = { p - 1, p, p + 1 };

		for (size_t i = 0; i < 3; i++) {
			long long s = (long long)(u[i] & 0x7fffffffffffffffull);

			callus_buf_clear(&b);
			callus_buf_clear(&c);
			callus_buf_puts(&b, "x=");
			assert_int_equal(callus_buf_put_uint(&b, u[i]), 0);
			assert_int_equal(callus_buf_put_int(&b, s), 0);
			assert_int_equal(callus_buf_put_int(&b, -s), 0);
			callus_buf_printf(&c, "x=%llu%lld%lld", u[i], s, -s);
			assert_string_equal(b.ptr, c.ptr);
		}
	}
	callus_buf_clear(&b);
	callus_buf_clear(&c);
	callus_buf_put_uint(&b, ULLONG_MAX);
	callus_buf_put_int(&b, LLONG_MAX);
	callus_buf_put_int(&b, LLONG_MIN);
	callus_buf_put_int(&b, 0);
	callus_buf_printf(&c, "%llu%lld%lld%lld", ULLONG_MAX, LLONG_MAX, LLONG_MIN, 0ll);
	assert_string_equal(b.ptr, c.ptr);
	callus_buf_release(&b);
	callus_buf_release(&c);
	/* past a ceiling: refused whole, as a printf is */
	callus_buf_init(&b, 4);
	callus_buf_puts(&b, "ab");
	assert_true(callus_buf_put_int(&b, -123) < 0);
	assert_string_equal(b.ptr, "ab");
	assert_int_equal(callus_buf_put_int(&b, -1), 0);
	assert_string_equal(b.ptr, "ab-1");
	callus_buf_release(&b);
}

static void swar_tests_match_bytes(void **state)
{
	static const unsigned char fill[] = { 0x00, 0x1f, 0x20, 0x21, 0x22, 0x5c, 0x7f, 0x80, 0xff, 'a',
					      '/', '0', '9', ':', 0xb0, 0xb9, 0xba, 0xaf };
	unsigned char w8[8];
	(void)state;

	for (int c = 0; c < 256; c++)
		for (size_t f = 0; f < sizeof(fill); f++)
			for (int at = 0; at < 8; at++) {
				int below = 0, high = 0, quote = 0, del = 0;
				uint64_t w;

				memset(w8, fill[f], sizeof(w8));
				w8[at] = (unsigned char)c;
				for (int k = 0; k < 8; k++) {
					below |= w8[k] < 0x20;
					high |= w8[k] >= 0x80;
					quote |= w8[k] == '"';
					del |= w8[k] == 0x7f;
				}
				w = callus_swar_load(w8);
				assert_int_equal(callus_swar_any_below(w, 0x20), below);
				assert_int_equal(callus_swar_any_high(w), high);
				assert_int_equal(callus_swar_any_is(w, '"'), quote);
				assert_int_equal(callus_swar_any_is(w, 0x7f), del);
			}
}

/* A read(2) straight into the buffer: the bytes in place and the string
 * still terminated, the end of the file as 0 bytes, and a read that could
 * pass the ceiling refused before anything is taken from the descriptor. */
static void read_goes_into_place(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;
	size_t got = 99;
	int fds[2];

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "hello, world", 12), 12);
	callus_buf_puts(&b, ">");
	assert_int_equal(callus_buf_read(&b, fds[0], 5, &got), 0);
	assert_int_equal(got, 5);
	assert_string_equal(b.ptr, ">hello");
	assert_int_equal(callus_buf_read(&b, fds[0], 64, &got), 0);
	assert_int_equal(got, 7);
	assert_string_equal(b.ptr, ">hello, world");
	close(fds[1]);
	assert_int_equal(callus_buf_read(&b, fds[0], 64, &got), 0);
	assert_int_equal(got, 0);
	assert_int_equal(b.len, 13);
	close(fds[0]);
	callus_buf_release(&b);

	/* a ceiling of 8: 8 bytes may be read, not 9 */
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "0123456789", 10), 10);
	callus_buf_init(&b, 8);
	assert_int_equal(callus_buf_read(&b, fds[0], 9, &got), CALLUS_ETOOBIG);
	assert_int_equal(got, 0);
	assert_int_equal(b.len, 0);
	assert_int_equal(callus_buf_read(&b, fds[0], 8, &got), 0);
	assert_int_equal(got, 8);
	assert_string_equal(b.ptr, "01234567");
	close(fds[1]);
	close(fds[0]);
	callus_buf_release(&b);
	/* a descriptor that cannot be read */
	assert_int_equal(callus_buf_read(&b, -1, 4, &got), CALLUS_EIO);
	callus_buf_release(&b);
}

/* data[0..len) written into a pipe by a child, read here to its end under
 * ceiling (0: none): every byte counted, those under the ceiling kept. */
static void read_all_through_a_pipe(const char *data, size_t len, size_t ceiling)
{
	callus_buf b = CALLUS_BUF_INIT;
	size_t kept = ceiling && ceiling < len ? ceiling : len;
	uint64_t total = 0;
	int fds[2], status = -1;

	assert_int_equal(pipe(fds), 0);
	if (fork() == 0) {
		close(fds[0]);
		_exit(write(fds[1], data, len) == (ssize_t)len ? 0 : 1);
	}
	close(fds[1]);
	callus_buf_init(&b, ceiling);
	assert_int_equal(callus_buf_read_all(&b, fds[0], &total), 0);
	assert_int_equal(total, len);
	assert_int_equal(b.len, kept);
	assert_memory_equal(b.ptr, data, kept);
	assert_int_equal(b.ptr[kept], '\0');
	close(fds[0]);
	callus_buf_release(&b);
	assert_true(wait(&status) > 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A pipe read to its end: exactly the ceiling, all kept; past it, read
 * whole (the writer is not left blocked), the ceiling's worth kept; past
 * the pipe's own buffer, so that a reader stopping at the ceiling would
 * leave the writer blocked; with no ceiling, all of that kept. */
static void read_all_keeps_up_to_the_ceiling(void **state)
{
	static char big[200000];
	callus_buf b = CALLUS_BUF_INIT;
	uint64_t total = 0;

	(void)state;
	memset(big, 'x', sizeof(big));
	read_all_through_a_pipe("01234567", 8, 8);
	read_all_through_a_pipe("0123456789", 10, 8);
	read_all_through_a_pipe(big, sizeof(big), 1000);
	read_all_through_a_pipe(big, sizeof(big), 0);
	assert_int_equal(callus_buf_read_all(&b, -1, &total), CALLUS_EIO);
	callus_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_buffer_is_a_string),
		cmocka_unit_test(grows_and_formats),
		cmocka_unit_test(ceiling_refuses_growth),
		cmocka_unit_test(room_keeps_ceiling_and_failure),
		cmocka_unit_test(prints_in_place_or_grows),
		cmocka_unit_test(read_goes_into_place),
		cmocka_unit_test(read_all_keeps_up_to_the_ceiling),
		cmocka_unit_test(detach_hands_over),
		cmocka_unit_test(size_helpers_detect_overflow),
		cmocka_unit_test(strlist_unique),
		cmocka_unit_test(strlist_pool_keeps_as_allocations),
		cmocka_unit_test(strlist_index_agrees_with_a_search),
		cmocka_unit_test(utf8_repair),
		cmocka_unit_test(json_strings_read_back),
		cmocka_unit_test(json_escapes_found_at_every_offset),
		cmocka_unit_test(numbers_as_printf_writes_them),
		cmocka_unit_test(swar_tests_match_bytes),
		cmocka_unit_test(prefault_keeps_what_is_there),
		cmocka_unit_test(spans_stop_at_each_place),
		cmocka_unit_test(printable_run_stops_at_each_place),
		cmocka_unit_test(json_string_under_a_ceiling),
		cmocka_unit_test(utf8_put_reads_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callus/capture.h"
#include "pieces_helpers.h"

/* in captured chunk bytes at a time; 0: whole (callus_capture_whole). */
static void text_of(const char *in, callus_buf *out, size_t chunk)
{
	callus_capture c;
	size_t len = strlen(in);

	callus_capture_init(&c);
	if (!chunk) {
		callus_capture_whole(&c, in, len);
	} else {
		for (size_t i = 0; i < len; i += chunk)
			callus_capture_feed(&c, in + i, len - i < chunk ? len - i : chunk);
		callus_capture_finish(&c);
	}
	callus_capture_text(&c, out);
	callus_capture_release(&c);
}

static void strips_ansi_and_redraws(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	callus_ansi_strip_line(&b, "\x1b[31merror\x1b[0m: x", 18);
	assert_string_equal(b.ptr, "error: x");
	callus_buf_clear(&b);
	/* curses' sgr0 as mypy prints it: ESC ( B is three bytes */
	callus_ansi_strip_line(&b, "\x1b(Bmain.py\x1b[m\x1b(B:3", 18);
	assert_string_equal(b.ptr, "main.py:3");
	callus_buf_clear(&b);
	callus_ansi_strip_line(&b, "10%\r50%\r100% done", 17);
	assert_string_equal(b.ptr, "100% done");
	callus_buf_clear(&b);
	{
		const char *osc = "\x1b]8;;file:///a\x07link\x1b]8;;\x07 ok\r";
		callus_ansi_strip_line(&b, osc, strlen(osc));
	}
	assert_string_equal(b.ptr, "link ok");
	callus_buf_release(&b);
}

/* A line as the one before it is kept as that one was: the capture's kept
 * lines are those whose cleaned text callus_line_is_interesting() takes,
 * whatever runs of one line repeat (the same line, coloured, with blanks
 * after it, an empty line between two), past the ring's length, fed whole
 * or in pieces.  Fails when a line is judged by the one before it that
 * differs, or by one older than it. */
static void repeated_lines_judged_as_each_alone(void **state)
{
	static const char *const pool[][2] = {
		/* as printed, cleaned */
		{ "src/a.c:3:1: error: expected ';'", "src/a.c:3:1: error: expected ';'" },
		{ "\x1b[31msrc/a.c:3:1: error: expected ';'\x1b[0m", "src/a.c:3:1: error: expected ';'" },
		{ "src/a.c:3:1: error: expected ';'   ", "src/a.c:3:1: error: expected ';'" },
		{ "compiling src/a.c", "compiling src/a.c" },
		{ "\x1b[1mcompiling src/a.c\x1b[0m", "compiling src/a.c" },
		{ "FAILED tests/test_x.py::test_y", "FAILED tests/test_x.py::test_y" },
		/* as long as "compiling src/a.c", and an error */
		{ "error: in src/b.c", "error: in src/b.c" },
		{ "ok", "ok" },
		{ "", "" },
		{ "   ", "" },
	};
	enum { NPOOL = sizeof(pool) / sizeof(pool[0]) };
	callus_buf in = CALLUS_BUF_INIT;
	uint64_t want[4096];
	uint64_t x = 0x2545f4914f6cdd1du;
	size_t kept_total = 0;

	(void)state;
	for (int round = 0; round < 200; round++) {
		size_t nwant = 0, lineno = 0;

		callus_buf_clear(&in);
		while (lineno < 300) {
			size_t k, run;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			k = x % NPOOL;
			run = 1 + (x >> 8) % 14; /* past the ring's ten */
			for (size_t r = 0; r < run; r++) {
				/* the same line, now and then printed another way */
				size_t v = r % 3 == 2 && k < 3 ? (k + 1) % 3 : k;

				callus_buf_puts(&in, pool[v][0]);
				callus_buf_putc(&in, '\n');
				lineno++;
				if (*pool[v][1] &&
				    callus_line_is_interesting(pool[v][1], strlen(pool[v][1])))
					want[nwant++] = lineno;
			}
		}
		assert_int_equal(callus_buf_status(&in), 0);
		for (size_t chunk = 0; chunk < 40; chunk += 13) {
			callus_capture c;

			callus_capture_init(&c);
			if (!chunk) {
				callus_capture_whole(&c, in.ptr, in.len);
			} else {
				for (size_t i = 0; i < in.len; i += chunk)
					callus_capture_feed(&c, in.ptr + i,
							    in.len - i < chunk ? in.len - i : chunk);
				callus_capture_finish(&c);
			}
			assert_int_equal(c.nlines, nwant);
			for (size_t i = 0; i < nwant; i++)
				assert_int_equal(c.lines[i].lineno, want[i]);
			kept_total += c.nlines;
			callus_capture_release(&c);
		}
	}
	/* lines were kept, and many were not */
	assert_true(kept_total > 10000);
	callus_buf_release(&in);
}

static void keeps_interesting_lines_and_the_tail(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;
	callus_buf in = CALLUS_BUF_INIT;

	(void)state;
	callus_buf_puts(&in, "Error: first\n");
	for (int i = 0; i < 100; i++)
		callus_buf_printf(&in, "boring %d\n", i);
	callus_buf_puts(&in, "src/a.js:3:4 something\n");
	for (int i = 100; i < 200; i++)
		callus_buf_printf(&in, "boring %d\n", i);
	/* any chunking gives the same result */
	for (size_t chunk = 1; chunk < 20; chunk += 6) {
		callus_buf_clear(&b);
		text_of(in.ptr, &b, chunk);
		assert_non_null(strstr(b.ptr, "Error: first\n"));
		assert_non_null(strstr(b.ptr, "src/a.js:3:4 something\n"));
		assert_null(strstr(b.ptr, "boring 5\n"));
		assert_non_null(strstr(b.ptr, "boring 199\n"));
		assert_non_null(strstr(b.ptr, "boring 190\n"));
		assert_null(strstr(b.ptr, "boring 189\n"));
		/* output order */
		assert_true(strstr(b.ptr, "Error: first") < strstr(b.ptr, "src/a.js"));
	}
	callus_buf_release(&b);
	callus_buf_release(&in);
}

static void bounded_memory_on_huge_output(void **state)
{
	callus_capture c;
	char line[64];

	(void)state;
	callus_capture_init(&c);
	for (int i = 0; i < 200000; i++) {
		int n = snprintf(line, sizeof(line), "error number %d in x.c:%d\n", i, i);
		callus_capture_feed(&c, line, (size_t)n);
	}
	callus_capture_finish(&c);
	/* the lines' bytes, each line's newline not counted */
	assert_true(c.kept.len - c.nlines <= CALLUS_CAPTURE_KEPT_MAX);
	assert_true(c.kept.len - c.nlines > CALLUS_CAPTURE_KEPT_MAX - 64);
	assert_true(c.dropped_lines > 0);
	assert_int_equal(c.total_lines, 200000);
	callus_capture_release(&c);
}

/* A whole output captured at once (a hook's payload, whose room is
 * reserved first) and the same in a stream's 64 KB chunks, or 17 bytes at
 * a time, keep the same text; past the kept bytes' bound too. */
static void whole_or_in_chunks_the_same(void **state)
{
	callus_buf out, whole = CALLUS_BUF_INIT, chunks = CALLUS_BUF_INIT, lines = CALLUS_BUF_INIT;

	(void)state;
	callus_buf_init(&out, 0);
	for (int i = 0; i < 60000; i++)
		callus_buf_printf(&out, i % 3 ? "src/f%d.c:%d:1: error: e%d\n" : "  context %d %d %d\n",
				  i, i, i);
	assert_true(out.len > CALLUS_CAPTURE_KEPT_MAX);
	text_of(out.ptr, &whole, 0);
	text_of(out.ptr, &chunks, 65536);
	text_of(out.ptr, &lines, 17);
	assert_true(whole.len > 0);
	assert_int_equal(whole.len, chunks.len);
	assert_memory_equal(whole.ptr, chunks.ptr, whole.len);
	assert_int_equal(whole.len, lines.len);
	assert_memory_equal(whole.ptr, lines.ptr, whole.len);
	callus_buf_release(&out);
	callus_buf_release(&whole);
	callus_buf_release(&chunks);
	callus_buf_release(&lines);
}

static void long_lines_are_cut(void **state)
{
	callus_capture c;
	static char big[100000];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	memcpy(big, "error ", 6);
	callus_capture_init(&c);
	callus_capture_feed(&c, big, sizeof(big) - 1);
	callus_capture_feed(&c, "\n", 1);
	callus_capture_finish(&c);
	assert_int_equal(c.nlines, 1);
	assert_true(c.lines[0].len <= CALLUS_CAPTURE_LINE_MAX);
	callus_capture_release(&c);
}

static void invalid_utf8_is_repaired(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	text_of("error \xff\xfe here\n", &b, 4);
	assert_string_equal(b.ptr, "error \xef\xbf\xbd\xef\xbf\xbd here\n");
	callus_buf_release(&b);
}

/* A byte past ASCII is seen wherever it lies in a line of three blocks
 * of sixteen and a tail (is_plain's walk: sixteen bytes, then eight, then
 * one at a time), and a tab within it leaves a line as it is. */
static void repaired_wherever_the_byte_lies(void **state)
{
	enum { LEN = 53 };
	char line[LEN + 2], want[LEN + 4];
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	for (size_t at = 0; at < LEN; at++) {
		memset(line, 'e', LEN);
		memcpy(line + LEN, "\n", 2);
		line[at] = '\xff';
		memcpy(want, line, at);
		memcpy(want + at, "\xef\xbf\xbd", 3);
		memcpy(want + at + 3, line + at + 1, LEN + 2 - at - 1);
		callus_buf_clear(&b);
		text_of(line, &b, 0);
		assert_string_equal(b.ptr, want);
		if (at == LEN - 1)
			continue; /* a blank that ends a line is trimmed */
		line[at] = '\t';
		callus_buf_clear(&b);
		text_of(line, &b, 0);
		assert_string_equal(b.ptr, line);
	}
	callus_buf_release(&b);
}

/* Two pipes read in turn: a chunk of one may end inside a line (vitest's
 * dots on stdout, a newline only at the end), and the other's lines never
 * land inside it. */
static void two_streams_keep_their_lines(void **state)
{
	static const struct {
		int stream;
		const char *data;
	} chunks[] = {
		{ 1, "\xc2\xb7\xc2\xb7x" },            /* dots, no newline */
		{ 2, " FAIL  a.test.js > adds\nAssertionError: exp" },
		{ 1, "x\xc2\xb7" },
		{ 2, "ected 3 to be 4\n" },
		{ 1, "\n Test Files  1 failed (1)\n" },
		{ 2, "error: left open" },             /* no newline before the end */
		{ 1, "Duration  1.2s" },
	};
	callus_capture c;
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	callus_capture_init(&c);
	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++)
		callus_capture_feed_stream(&c, chunks[i].stream, chunks[i].data,
					   strlen(chunks[i].data));
	callus_capture_finish(&c);
	callus_capture_text(&c, &b);
	assert_string_equal(b.ptr, " FAIL  a.test.js > adds\n"
				   "AssertionError: expected 3 to be 4\n"
				   "\xc2\xb7\xc2\xb7xx\xc2\xb7\n"
				   " Test Files  1 failed (1)\n"
				   "Duration  1.2s\n"
				   "error: left open\n");
	assert_int_equal(c.total_bytes, 124); /* every byte, held ones too */
	callus_buf_release(&b);
	callus_capture_release(&c);
}

/* A line too long to hold goes in as it is; what follows of it at the end
 * is still its own, and the two streams' last lines stay apart in the raw
 * bytes too. */
static void two_streams_long_and_last_lines(void **state)
{
	static char big[70001];
	callus_capture c;

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	callus_capture_init(&c);
	callus_capture_feed_stream(&c, 1, big, sizeof(big) - 1);
	callus_capture_feed_stream(&c, 2, "E0:", 3);
	callus_capture_feed_stream(&c, 1, "b error: tail", 13);
	callus_capture_finish(&c);
	assert_int_equal(c.total_lines, 2);
	assert_int_equal(c.total_bytes, 70000 + 3 + 13);
	assert_non_null(memmem(c.head.ptr, c.head.len, "b error: tail\nE0:", 17));
	callus_capture_release(&c);
}

/* The text as a view: lent from the output itself when its kept lines lie
 * there as printed, one after the other (the tail's lines among them, or
 * following them), borrowed from the kept lines when the tail's lines are
 * all among them, else made; the same text each way, as
 * callus_capture_text() makes it, but for the last newline of an output
 * that has none, which a text lent from it lacks. */
static void text_view_borrows_the_kept_lines(void **state)
{
	enum { MADE, KEPT, LENT };
	static const struct {
		const char *in;
		int from;
	} cases[] = {
		/* every line an error: the output is the text */
		{ "a.c:1:2: error: x\na.c:2:2: error: y\n", LENT },
		{ "a.c:1:2: error: x\na.c:2:2: error: y", LENT },   /* no last newline */
		{ "  a.c:1:2: error: x\n", LENT },                  /* leading blanks stay */
		/* blank lines between: not the output as it lies */
		{ "a.c:1:2: error: x\n\n\na.c:2:2: error: y\n\n", KEPT },
		{ "", KEPT },
		/* a last line that is not kept, but follows the kept ones */
		{ "a.c:1:2: error: x\nmake: done\n", LENT },
		{ "a.c:1:2: error: x\nmake: done", LENT },
		{ "a.c:1:2: error: x\nmake: done  \n", MADE },     /* cut: not as printed */
		{ "a.c:1:2: error: x\n\nmake: done\n", MADE },
		{ "boring\na.c:1:2: error: x\n", MADE },
		{ "error x\nboring\nerror y\n", MADE },
		/* the tail's slot of line 1 not taken again (line 11 is
		 * empty): ten kept lines after it, and still the tail's */
		{ "boring\nerror 2\nerror 3\nerror 4\nerror 5\nerror 6\nerror 7\n"
		  "error 8\nerror 9\nerror 10\n\nerror 12\nerror 13\n", MADE },
		{ "error a  \t\nerror b\n", KEPT },   /* trailing blanks cut alike */
		{ "error a\nerror b  \n", KEPT },      /* lent, then copied */
		{ "\x1b[31merror a\x1b[0m\nerror b\n", KEPT },
		{ "error a\r\nerror b\r\n", KEPT },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *in = cases[i].in;
		size_t n = strlen(in), len = 0;
		callus_capture c;
		callus_buf made = CALLUS_BUF_INIT, scratch = CALLUS_BUF_INIT;
		const char *t = NULL;

		callus_capture_init(&c);
		callus_capture_whole(&c, in, n);
		assert_int_equal(callus_capture_text(&c, &made), 0);
		assert_int_equal(callus_capture_text_view(&c, &scratch, &t, &len), 0);
		assert_non_null(t);
		assert_memory_equal(t, made.len ? made.ptr : "", len);
		switch (cases[i].from) {
		case LENT:
			assert_true(t >= in && t + len <= in + n);
			assert_int_equal(scratch.len, 0);
			/* the newline the output lacks, and only that */
			if (t + len == in + n && in[n - 1] != '\n')
				assert_int_equal(len + 1, made.len);
			else
				assert_int_equal(len, made.len);
			break;
		case KEPT:
			assert_int_equal(len, made.len);
			assert_int_equal(scratch.len, 0);
			if (len)
				assert_ptr_equal(t, c.kept.ptr);
			break;
		default:
			assert_int_equal(len, made.len);
			assert_ptr_equal(t, scratch.ptr);
		}
		if (i == 11)
			assert_memory_equal(t, "boring\n", 7);
		callus_buf_release(&made);
		callus_buf_release(&scratch);
		callus_capture_release(&c);
	}
}

/* Outputs of lines drawn at random (errors, lines kept for their file and
 * line, lines not kept, blank ones, trailing blanks, colours, carriage
 * returns, bytes past ASCII, a line past the length cut, a last line
 * with or without its newline) captured whole and in a stream's chunks:
 * the same lines kept, the same text made, and the view the same text
 * (lent from the output, but the newline its last line lacks). */
static void whole_lends_what_chunks_copy(void **state)
{
	static const char *const pieces[] = {
		"src/a.c:1:2: error: x", "error: y", "  at f (src/b.js:3:4)", "boring",
		"make: done", "", "   ", "error z  ", "\x1b[31merror\x1b[0m w",
		"error v\r", "caf\xc3\xa9 error", "bad \xff error", "FAIL test_x",
	};
	enum { NP = sizeof(pieces) / sizeof(pieces[0]) };
	unsigned seed = 791;
	int lent = 0, open = 0;

	(void)state;
	for (int round = 0; round < 3000; round++) {
		callus_buf out = CALLUS_BUF_INIT, whole = CALLUS_BUF_INIT, fed = CALLUS_BUF_INIT;
		callus_buf scratch = CALLUS_BUF_INIT;
		callus_capture w, f;
		const char *t;
		size_t nlines, len, chunk;

		seed = seed * 1103515245u + 12345u;
		nlines = (seed >> 16) % 30;
		for (size_t i = 0; i < nlines; i++) {
			seed = seed * 1103515245u + 12345u;
			if ((seed >> 16) % 97 == 0) {
				/* past CALLUS_CAPTURE_LINE_MAX */
				callus_buf_puts(&out, "error ");
				for (int k = 0; k < CALLUS_CAPTURE_LINE_MAX; k++)
					callus_buf_putc(&out, 'q');
			} else {
				/* half the outputs of errors only, which the
				 * whole capture lends */
				callus_buf_puts(&out, pieces[round % 2 ? 0 : (seed >> 16) % NP]);
			}
			/* the last line's newline, two times in three */
			if (i + 1 < nlines || (seed >> 8) % 3)
				callus_buf_putc(&out, '\n');
		}
		seed = seed * 1103515245u + 12345u;
		chunk = 1 + (seed >> 16) % 64;
		callus_capture_init(&w);
		callus_capture_init(&f);
		callus_capture_whole(&w, out.ptr ? out.ptr : "", out.len);
		for (size_t i = 0; i < out.len; i += chunk)
			callus_capture_feed(&f, out.ptr + i, out.len - i < chunk ? out.len - i : chunk);
		callus_capture_finish(&f);
		assert_int_equal(w.nlines, f.nlines);
		for (size_t i = 0; i < w.nlines; i++) {
			assert_int_equal(w.lines[i].lineno, f.lines[i].lineno);
			assert_int_equal(w.lines[i].len, f.lines[i].len);
		}
		assert_int_equal(w.total_lines, f.total_lines);
		assert_int_equal(callus_capture_text(&w, &whole), 0);
		assert_int_equal(callus_capture_text(&f, &fed), 0);
		assert_int_equal(whole.len, fed.len);
		assert_memory_equal(whole.ptr ? whole.ptr : "", fed.ptr ? fed.ptr : "", fed.len);
		assert_int_equal(callus_capture_text_view(&w, &scratch, &t, &len), 0);
		assert_memory_equal(t, fed.ptr ? fed.ptr : "", len);
		if (out.len && t >= out.ptr && t < out.ptr + out.len) {
			lent++;
			if (len + 1 == fed.len) {
				assert_true(t + len == out.ptr + out.len);
				assert_true(out.ptr[out.len - 1] != '\n');
				open++;
			} else {
				assert_int_equal(len, fed.len);
			}
		} else {
			assert_int_equal(len, fed.len);
		}
		callus_buf_release(&out);
		callus_buf_release(&whole);
		callus_buf_release(&fed);
		callus_buf_release(&scratch);
		callus_capture_release(&w);
		callus_capture_release(&f);
	}
	/* both ways were met */
	assert_true(lent > 100);
	assert_true(open > 20);
}

/* A whole output the capture owns is lent from as any other, and freed
 * with it (the sanitizers' leak check says so); released twice, nothing
 * happens; no output at all is an empty one. */
static void whole_owns_its_data(void **state)
{
	static const char out[] = "a.c:1:2: error: x\nmake: done";
	callus_buf scratch = CALLUS_BUF_INIT;
	callus_capture c;
	const char *t;
	size_t len;
	char *data;

	(void)state;
	assert_non_null(data = strdup(out));
	callus_capture_init(&c);
	assert_int_equal(callus_capture_whole_owned(&c, data, strlen(data)), 0);
	assert_int_equal(callus_capture_text_view(&c, &scratch, &t, &len), 0);
	assert_ptr_equal(t, data);
	assert_int_equal(len, strlen(out));
	assert_int_equal(c.total_lines, 2);
	callus_capture_release(&c);
	callus_capture_release(&c);
	assert_int_equal(callus_capture_whole_owned(&c, NULL, 7), 0);
	assert_int_equal(c.total_bytes, 0);
	assert_int_equal(c.nlines, 0);
	callus_capture_release(&c);
	callus_buf_release(&scratch);
}

/* callus_capture_whole() keeps its data as the raw head, not a copy; fed
 * in chunks, the capture's own copy of the first bytes is read. */
static void whole_borrows_its_raw_head(void **state)
{
	static const char out[] = "{\"x\": 1}\nerror: y\n";
	callus_capture c;
	const char *raw;
	size_t len = 0;

	(void)state;
	callus_capture_init(&c);
	callus_capture_whole(&c, out, sizeof(out) - 1);
	raw = callus_capture_raw(&c, &len);
	assert_ptr_equal(raw, out);
	assert_int_equal(len, sizeof(out) - 1);
	assert_int_equal(c.head.len, 0);
	callus_capture_release(&c);

	callus_capture_init(&c);
	callus_capture_feed(&c, out, 5);
	callus_capture_feed(&c, out + 5, sizeof(out) - 1 - 5);
	callus_capture_finish(&c);
	raw = callus_capture_raw(&c, &len);
	assert_ptr_not_equal(raw, out);
	assert_int_equal(len, sizeof(out) - 1);
	assert_memory_equal(raw, out, len);
	callus_capture_release(&c);

	callus_capture_init(&c);
	raw = callus_capture_raw(&c, &len);
	assert_non_null(raw);
	assert_int_equal(len, 0);
	callus_capture_release(&c);

	/* past the head's bound: its first bytes only */
	{
		size_t n = CALLUS_CAPTURE_HEAD_MAX + 100;
		char *big = malloc(n + 1);

		assert_non_null(big);
		memset(big, 'x', n);
		big[n] = '\0';
		callus_capture_init(&c);
		callus_capture_whole(&c, big, n);
		raw = callus_capture_raw(&c, &len);
		assert_ptr_equal(raw, big);
		assert_int_equal(len, CALLUS_CAPTURE_HEAD_MAX);
		assert_int_equal(c.total_bytes, n);
		callus_capture_release(&c);
		free(big);
	}
}

/* c, finished, kept for a queue (callus_capture_keep_raw): what its queue
 * entry carries then is expect[0, len) */
static void queued_output_is(callus_capture *c, const char *expect, size_t len)
{
	callus_buf got = CALLUS_BUF_INIT;

	callus_capture_keep_raw(c);
	assert_int_equal(callus_capture_output(c, &got), 0);
	assert_int_equal(got.len, len);
	assert_memory_equal(got.ptr, expect, len);
	callus_buf_release(&got);
}

/* A run queued when the store turns it away keeps its capture's output
 * (callus_capture_keep_raw): a whole one as printed, its lines gone; one
 * past the head, or with a NUL in it, the lines the analysis kept
 * (callus_capture_output). */
static void keeps_its_raw_output_for_a_queue(void **state)
{
	static const char out[] = "\x1b[31merror: x\x1b[0m\nsrc/a.c:1:2: error: y\ndone\n";
	callus_buf text = CALLUS_BUF_INIT;
	callus_capture c;

	(void)state;
	callus_capture_init(&c);
	callus_capture_feed_stream(&c, 1, out, 9);
	callus_capture_feed_stream(&c, 1, out + 9, sizeof(out) - 1 - 9);
	callus_capture_finish(&c);
	assert_true(c.nlines > 0);
	queued_output_is(&c, out, sizeof(out) - 1);
	assert_int_equal(c.nlines, 0);
	assert_int_equal(c.kept.len, 0);
	assert_int_equal(callus_capture_text(&c, &text), 0);
	assert_int_equal(text.len, 0);
	callus_capture_release(&c);

	/* a NUL in it: not text a queue entry can carry whole */
	callus_capture_init(&c);
	callus_capture_feed(&c, "error: a\n\0\nerror: b\n", 20);
	callus_capture_finish(&c);
	callus_buf_clear(&text);
	assert_int_equal(callus_capture_text(&c, &text), 0);
	assert_true(text.len > 0 && !memchr(text.ptr, '\0', text.len));
	queued_output_is(&c, text.ptr, text.len);
	callus_capture_release(&c);

	/* past the head: its lines */
	{
		size_t n = CALLUS_CAPTURE_HEAD_MAX + 100;
		char *big = malloc(n);

		assert_non_null(big);
		for (size_t i = 0; i < n; i++)
			big[i] = i % 64 == 63 ? '\n' : 'e';
		memcpy(big, "error: first\n", 13);
		callus_capture_init(&c);
		callus_capture_feed(&c, big, n);
		callus_capture_finish(&c);
		callus_buf_clear(&text);
		assert_int_equal(callus_capture_text(&c, &text), 0);
		assert_true(strstr(text.ptr, "error: first") != NULL && text.len < n);
		queued_output_is(&c, text.ptr, text.len);
		callus_capture_release(&c);
		free(big);
	}
	callus_buf_release(&text);
}

/* A line's rank said the long way, for ranks_as_said: an interesting line
 * is 2 when one of the words that say something failed starts at any of
 * its bytes, in any case. */
static int rank_as_said(const char *s, size_t len)
{
	static const char *const strong[] = {
		"error", "fail", "exception", "assert", "panic", "fatal", "not ok",
		"undefined reference", "\xe2\x9c\x95", "\xe2\x9c\x96", "\xe2\x97\x8f",
		"\xc3\x97", "\xe2\x9c\x98",
	};

	if (!callus_line_is_interesting(s, len))
		return 0;
	for (size_t i = 0; i < len; i++)
		for (size_t k = 0; k < sizeof(strong) / sizeof(strong[0]); k++) {
			size_t n = strlen(strong[k]), j = 0;

			while (j < n && i + j < len &&
			       (s[i + j] >= 'A' && s[i + j] <= 'Z' ? s[i + j] + 32 : s[i + j]) ==
				       strong[k][j])
				j++;
			if (j == n)
				return 2;
		}
	return 1;
}

/* callus_line_rank() finds its words from two bytes' tables: on 200,000
 * lines of those words (in any case, cut, at either end), the words
 * around a failure, locations and symbols, it answers as each byte
 * compared with each word does. */
static void ranks_as_said(void **state)
{
	static const char *const pieces[] = {
		"Error", "ERROR", "erro", "fail", "FAILED", "fai", "Exception", "assert", "asser",
		"panic", "Fatal", "not ok", "not", " ok", "undefined reference", "undefined",
		"\xe2\x9c\x95", "\xe2\x9c\x96", "\xe2\x97\x8f", "\xc3\x97", "\xe2\x9c\x98",
		"\xe2\x9c", "\xe2", "\xc3", "warning", "expected", "received", "src/a.c:3",
		"x.py(4,2)", " ", ":", "e", "r", "x", "\"x.py\", line 3", "In a.sh line 9:",
	};
	uint64_t x = 0x2545f4914f6cdd1du;
	int seen[3] = { 0, 0, 0 };
	char line[512];

	(void)state;
	for (int round = 0; round < 200000; round++) {
		size_t n = 1 + (size_t)(pieces_next(&x) % 10), len;
		int want, got;

		len = pieces_line(line, sizeof(line) - 1, pieces, sizeof(pieces) / sizeof(*pieces), n,
				  &x);
		line[len] = '\0';
		want = rank_as_said(line, len);
		got = callus_line_rank(line, len);
		if (got != want)
			fail_msg("\"%s\": rank %d, as said %d", line, got, want);
		seen[want]++;
	}
	/* each rank was asked for, many times */
	for (int r = 0; r < 3; r++)
		assert_true(seen[r] > 10000);
}

static void classification(void **state)
{
	(void)state;
	assert_true(callus_line_is_interesting("FAIL src/a.test.js", 18));
	assert_true(callus_line_is_interesting("main.c:12:5: warning: x", 23));
	assert_true(callus_line_is_interesting("/home/u/p/src/app.js", 20));
	assert_true(callus_line_is_interesting("  File \"a.py\", line 3, in f", 28));
	assert_false(callus_line_is_interesting("Time: 12:30", 11));
	/* a first colon before a digit that is no place, and a place after */
	assert_false(callus_line_is_interesting("at 12:30 today", 14));
	assert_true(callus_line_is_interesting("at 12:30 in src/a.c:5", 21));
	assert_false(callus_line_is_interesting("Ran all test suites.", 20));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strips_ansi_and_redraws),
		cmocka_unit_test(keeps_interesting_lines_and_the_tail),
		cmocka_unit_test(repeated_lines_judged_as_each_alone),
		cmocka_unit_test(bounded_memory_on_huge_output),
		cmocka_unit_test(whole_or_in_chunks_the_same),
		cmocka_unit_test(long_lines_are_cut),
		cmocka_unit_test(invalid_utf8_is_repaired),
		cmocka_unit_test(repaired_wherever_the_byte_lies),
		cmocka_unit_test(two_streams_keep_their_lines),
		cmocka_unit_test(two_streams_long_and_last_lines),
		cmocka_unit_test(text_view_borrows_the_kept_lines),
		cmocka_unit_test(whole_lends_what_chunks_copy),
		cmocka_unit_test(whole_borrows_its_raw_head),
		cmocka_unit_test(whole_owns_its_data),
		cmocka_unit_test(keeps_its_raw_output_for_a_queue),
		cmocka_unit_test(ranks_as_said),
		cmocka_unit_test(classification),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

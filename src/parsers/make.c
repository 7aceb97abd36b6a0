/*
 * make.c - make, and whatever its recipes ran.
 *
 * make's own lines are read here:
 *
 *   make[1]: Entering directory '/abs/lib'      relative paths printed from
 *   make[1]: Leaving directory '/abs/lib'       here on resolve in lib/
 *   make: *** [Makefile:6: bad.o] Error 1       a recipe failed
 *   make: *** No rule to make target 'x'.  Stop.
 *   Makefile:3: *** missing separator.  Stop.
 *
 * The rest, between directory changes, is what the recipes printed: each
 * such stretch goes to the parser whose sniff recognises it (pytest, go,
 * cargo, ctest, ...), and to the gcc parser (compilers are what make runs
 * most, also next to a test runner under `make check`), with a path context
 * for the directory make was in; the generic extractor reads it when
 * neither finds anything.  A directory outside the workspace resolves no
 * relative path.  "*** [target] Error N" is only reported when nothing
 * else was found: it is the consequence of an error printed above.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"
#include "swar.h"
#include "wordlist.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct state {
	const callus_parse_input *in;
	callus_diags *diags;
	callus_strlist *files;
	callus_strlist stack;     /* directories entered, as printed */
	callus_pu_dir dir;        /* the path context of the top one */
	/* the recipes' lines since the last change: while they lie back to
	 * back in the input, the run of it they make (view, view_len); past
	 * a line that does not follow (make's own lines left out, a line
	 * cleaned elsewhere), copied into seg */
	const char *view;
	size_t view_len;
	callus_buf seg;
	callus_strlist recipes;   /* "target 'x' failed: Error 1" */
	size_t start;
} state;

static const callus_pathctx *cur_pc(const state *st)
{
	return st->stack.count ? &st->dir.pc : st->in->pc;
}

/* "make: ", "make[2]: ", "gmake: ", "/usr/bin/make: " -> its length. */
static size_t make_prefix(const char *s, size_t len)
{
	size_t i = callus_span_none3(s, len, ':', '[', ' '), base, n;
	const char *slash;

	/* the name after the last slash: most first words end in no "make" */
	if (i < 4 || memcmp(s + i - 4, "make", 4))
		return 0;
	slash = memrchr(s, '/', i);
	base = slash ? (size_t)(slash - s) + 1 : 0;
	if (!((i - base == 4 && !memcmp(s + base, "make", 4)) ||
	      (i - base == 5 && !memcmp(s + base, "gmake", 5))))
		return 0;
	if (i < len && s[i] == '[') {
		callus_pu_num(s + i + 1, len - i - 1, &n);
		if (!n || i + n + 2 > len || s[i + 1 + n] != ']')
			return 0;
		i += n + 2;
	}
	if (i + 1 >= len || s[i] != ':' || s[i + 1] != ' ')
		return 0;
	return i + 2;
}

/* "'/abs/dir'", "`/abs/dir'", "‘/abs/dir’" -> the directory. */
static int quoted(const char *s, size_t len, const char **dir, size_t *dl)
{
	size_t open = 1, close = 1;

	if (len >= 3 && !memcmp(s, "\xe2\x80\x98", 3))
		open = 3;
	else if (!len || (s[0] != '\'' && s[0] != '`'))
		return 0;
	if (len >= 3 && !memcmp(s + len - 3, "\xe2\x80\x99", 3))
		close = 3;
	else if (s[len - 1] != '\'')
		return 0;
	if (len < open + close + 1)
		return 0;
	*dir = s + open;
	*dl = len - open - close;
	return 1;
}

/* The recipes' output since the last directory change. */
static int flush_segment(state *st)
{
	static const callus_parser *const skip[] = { &callus_parser_make, NULL };
	int rc = callus_pu_build_step(st->in, cur_pc(st), st->view ? st->view : st->seg.ptr,
				      st->view ? st->view_len : st->seg.len, skip, st->diags,
				      st->files);

	st->view = NULL;
	st->view_len = 0;
	callus_buf_clear(&st->seg);
	return rc;
}

/* Whether s[0..len) is a line of buf[0..n) as it lies there: followed
 * by its '\n', or the last line of all, unterminated (an agent's payload
 * seldom ends its output with one).  1 with a '\n', 2 without, else 0. */
static int lies_in(const char *s, size_t len, const char *buf, size_t n)
{
	uintptr_t at = (uintptr_t)s, from = (uintptr_t)buf;

	if (!buf || at < from || at - from > n || len > n - (at - from))
		return 0;
	if (len < n - (at - from))
		return s[len] == '\n';
	return 2;
}

/* A recipe's line into the segment.  A build's output is mostly its
 * recipes' lines, one run of the input between make's own: taken where it
 * lies, not copied (a megabyte of gcc's errors was a megabyte more of
 * memory: 242 of a hook's 2,097 page faults,
 * bench/results/record1m-628b38a-9cd6608.md). */
static int segment_add(state *st, const char *s, size_t len)
{
	/* the lines are read from the raw output when it is whole
	 * (callus_pu_lines_init), else from the text */
	int inside = lies_in(s, len, st->in->text, st->in->text_len);

	if (!inside)
		inside = lies_in(s, len, st->in->raw, st->in->raw_len);
	if (inside && !st->seg.len && (!st->view || s == st->view + st->view_len)) {
		if (!st->view)
			st->view = s;
		st->view_len = (size_t)(s + len + (inside == 1) - st->view);
		return 0;
	}
	if (st->view) {
		callus_buf_put(&st->seg, st->view, st->view_len);
		st->view = NULL;
		st->view_len = 0;
	}
	callus_buf_put(&st->seg, s, len);
	return callus_buf_putc(&st->seg, '\n');
}

static int set_dir(state *st)
{
	const char *top;

	if (!st->stack.count)
		return 0;
	top = st->stack.items[st->stack.count - 1];
	return callus_pu_dir_set(&st->dir, st->in->pc, top, strlen(top));
}

/* A line after "make: " */
static int make_line(state *st, const char *s, size_t len)
{
	const char *dir, *m;
	size_t dl, ml;
	int rc;

	if (callus_pu_starts(s, len, "Entering directory ") &&
	    quoted(s + 19, len - 19, &dir, &dl)) {
		if ((rc = flush_segment(st)) < 0 || (rc = callus_strlist_add(&st->stack, dir, dl)) < 0)
			return rc;
		return set_dir(st);
	}
	if (callus_pu_starts(s, len, "Leaving directory ")) {
		if ((rc = flush_segment(st)) < 0)
			return rc;
		if (st->stack.count)
			free(st->stack.items[--st->stack.count]);
		return set_dir(st);
	}
	if (!callus_pu_starts(s, len, "*** "))
		return 0;
	m = s + 4;
	ml = len - 4;
	/* "*** [Makefile:6: bad.o] Error 1": a recipe failed */
	if (ml && m[0] == '[') {
		const char *close = memchr(m, ']', ml), *target = m + 1;
		callus_buf msg = CALLUS_BUF_INIT;

		if (!close || callus_pu_ends(m, ml, "(ignored)"))
			return 0;
		for (const char *q = m + 1; q + 1 < close; q++)
			if (q[0] == ':' && q[1] == ' ')
				target = q + 2;
		callus_buf_puts(&msg, "target '");
		callus_buf_put(&msg, target, (size_t)(close - target));
		callus_buf_puts(&msg, "' failed:");
		callus_buf_put(&msg, close + 1, (size_t)(m + ml - close - 1));
		/* bounded: the list is searched for each new failure */
		rc = callus_buf_status(&msg) < 0	 ? CALLUS_ENOMEM
		     : st->recipes.count >= 64 ? 0
						 : callus_strlist_add_unique(&st->recipes, msg.ptr,
									   msg.len, NULL);
		callus_buf_release(&msg);
		return rc;
	}
	if (callus_pu_starts(m, ml, "Waiting for unfinished jobs"))
		return 0;
	/* make's own error: "No rule to make target 'x', needed by 'y'.  Stop." */
	if (callus_pu_ends(m, ml, "  Stop."))
		ml -= 7;
	return callus_pu_diag(NULL, st->diags, st->files, cur_pc(st), NULL, 0, 0, 0, NULL, 0, m, ml,
			    "error");
}

static int is_makefile(const char *p, size_t len)
{
	const char *base = p + len;

	while (base > p && base[-1] != '/')
		base--;
	return callus_pu_starts(base, (size_t)(p + len - base), "Makefile") ||
	       callus_pu_starts(base, (size_t)(p + len - base), "makefile") ||
	       callus_pu_starts(base, (size_t)(p + len - base), "GNUmakefile") ||
	       callus_pu_ends(p, len, ".mk");
}

/*
 * A recipe line make echoes before running it ("cc -Wall -c src/a.c -o
 * a.o", "mkdir -p build"): it names files, but no error is in them.  Kept
 * from the parsers, the generic extractor above all.
 */
static int is_echoed_command(const char *s, size_t len)
{
	static const callus_word progs[] = {
		CALLUS_WORD("cc"),    CALLUS_WORD("gcc"),     CALLUS_WORD("g++"),    CALLUS_WORD("c++"),
		CALLUS_WORD("clang"), CALLUS_WORD("clang++"), CALLUS_WORD("cpp"),    CALLUS_WORD("ld"),
		CALLUS_WORD("ar"),    CALLUS_WORD("ranlib"),  CALLUS_WORD("as"),     CALLUS_WORD("mkdir"),
		CALLUS_WORD("rm"),    CALLUS_WORD("cp"),      CALLUS_WORD("mv"),     CALLUS_WORD("ln"),
		CALLUS_WORD("install"), CALLUS_WORD("touch"), CALLUS_WORD("cd"),     CALLUS_WORD("echo"),
	};
	size_t end = 0, base = 0;

	while (end < len && s[end] != ' ') {
		if (s[end] == '/')
			base = end + 1;
		end++;
	}
	if (end >= len)
		return 0;
	for (size_t k = 0; k < CALLUS_WORDS_COUNT(progs); k++) {
		size_t n = progs[k].len;
		const char *w = s + base;
		size_t wl = end - base;

		if (wl == n && !memcmp(w, progs[k].s, n))
			return 1;
		/* x86_64-linux-gnu-gcc, gcc-12, clang-14 */
		if (k < 6 && wl > n &&
		    ((w[wl - n - 1] == '-' && !memcmp(w + wl - n, progs[k].s, n)) ||
		     (w[n] == '-' && !memcmp(w, progs[k].s, n) && callus_pu_is_digit(w[n + 1]))))
			return 1;
	}
	return 0;
}

static int line_of(void *arg, const char *s, size_t len)
{
	state *st = arg;
	size_t n = make_prefix(s, len);
	callus_pu_loc loc;
	int located;

	if (n)
		return make_line(st, s + n, len - n);
	/* "Makefile:3: *** missing separator.  Stop." */
	if ((located = callus_pu_location(s, len, &loc)) && loc.end < len) {
		const char *r = s + loc.end;
		size_t rl = len - loc.end;

		callus_pu_trim(&r, &rl);
		if (callus_pu_starts(r, rl, "*** ")) {
			r += 4;
			rl -= 4;
			if (callus_pu_ends(r, rl, "  Stop."))
				rl -= 7;
			return callus_pu_diag(NULL, st->diags, st->files, cur_pc(st), loc.path,
					    loc.path_len, loc.line, 0, NULL, 0, r, rl, "error");
		}
		/* make's warnings about the makefile are no compiler's (the
		 * word asked first: a compiler's every line is located) */
		if (callus_pu_starts(r, rl, "warning: ") && is_makefile(loc.path, loc.path_len))
			return 0;
	}
	/* a line that starts "file:12:" is no command line echoed: not
	 * compared with each program's name (a compiler's every line) */
	if (!located && is_echoed_command(s, len))
		return 0;
	return segment_add(st, s, len);
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	state st;
	int rc;

	memset(&st, 0, sizeof(st));
	st.in = in;
	st.diags = diags;
	st.files = files;
	st.start = diags->count + diags->dropped;
	callus_pu_dir_init(&st.dir, in->pc);
	callus_buf_init(&st.seg, 0);
	rc = callus_pu_each_line(in, line_of, &st);
	if (rc >= 0)
		rc = flush_segment(&st);
	/* with the cause found, the recipes' failures are its consequences */
	for (size_t i = 0, none = diags->count + diags->dropped == st.start;
	     none && rc >= 0 && i < st.recipes.count; i++)
		rc = callus_pu_diag(NULL, diags, files, in->pc, NULL, 0, 0, 0, NULL, 0,
				  st.recipes.items[i], strlen(st.recipes.items[i]), "error");
	callus_strlist_release(&st.stack);
	callus_strlist_release(&st.recipes);
	callus_pu_dir_release(&st.dir);
	callus_buf_release(&st.seg);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	size_t n = make_prefix(s, len);
	callus_pu_loc loc;

	if (n)
		return callus_pu_starts(s + n, len - n, "*** ");
	/* "Makefile:3: *** missing separator.  Stop." */
	return callus_pu_location(s, len, &loc) && is_makefile(loc.path, loc.path_len) &&
	       callus_pu_starts(s + loc.end, len - loc.end, " *** ");
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "make", "gmake", NULL };

const callus_parser callus_parser_make = { "make", tools, sniff, parse, sniff_line };

/*
 * ninja.c - ninja, and the builds that run it (meson compile, cmake
 * --build with CMake's Ninja generator), and whatever its edges ran.
 *
 *   ninja: Entering directory `builddir'         paths printed from here on
 *   [1/4] Compiling C object ledger.p/src_account.c.o        progress
 *   FAILED: ledger.p/src_account.c.o             an edge failed: its command
 *   cc -Iledger.p ... -c ../src/account.c        line follows, then its output
 *   ../src/account.c:5:23: error: 'cent' undeclared ...
 *   ninja: build stopped: subcommand failed.
 *
 * What a failed edge printed goes to the parser whose sniff recognises it,
 * and to the gcc parser (compilers are what builds run most), with a path
 * context for the directory ninja was in (meson's build directory: its
 * compiler paths are "../src/x.c"); the generic extractor reads it when
 * neither finds anything.  The command line echoed after "FAILED:" names
 * sources, not errors: skipped.  ninja's own errors ("ninja: error:
 * '../src/x.c', needed by 'x.o', missing") count when nothing else was
 * found.  cmake --build with the Makefile generator prints make's output:
 * the make parser reads it.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

typedef struct state {
	const callus_parse_input *in;
	callus_diags *diags;
	callus_strlist *files;
	callus_pu_dir dir;
	int has_dir;
	callus_buf seg;    /* what the failed edge printed */
	int in_edge;       /* 2: the command line is next, 1: its output */
	callus_buf ninja;  /* ninja's first own error */
} state;

static const callus_pathctx *cur_pc(const state *st)
{
	return st->has_dir ? &st->dir.pc : st->in->pc;
}

/* What the failed edge printed. */
static int flush_segment(state *st)
{
	static const callus_parser *const skip[] = { &callus_parser_ninja, &callus_parser_make,
						     NULL };
	int rc = callus_pu_build_step(st->in, cur_pc(st), st->seg.ptr, st->seg.len, skip,
				      st->diags, st->files);

	callus_buf_clear(&st->seg);
	return rc;
}

/* "[12/40] ..." */
static int progress(const char *s, size_t len)
{
	size_t n, m;

	if (!len || s[0] != '[')
		return 0;
	callus_pu_num(s + 1, len - 1, &n);
	if (!n || 1 + n >= len || s[1 + n] != '/')
		return 0;
	callus_pu_num(s + 2 + n, len - 2 - n, &m);
	return m && 2 + n + m < len && s[2 + n + m] == ']';
}

static int line_of(void *arg, const char *s, size_t len)
{
	state *st = arg;
	int rc;

	if (callus_pu_starts(s, len, "ninja: ")) {
		const char *m = s + 7;
		size_t ml = len - 7;

		if ((rc = flush_segment(st)) < 0)
			return rc;
		st->in_edge = 0;
		/* "Entering directory `dir'" */
		if (callus_pu_starts(m, ml, "Entering directory `") && ml > 21 && m[ml - 1] == '\'') {
			if ((rc = callus_pu_dir_set(&st->dir, st->in->pc, m + 20, ml - 21)) < 0)
				return rc;
			st->has_dir = 1;
			return 0;
		}
		if (callus_pu_starts(m, ml, "error: ") && !st->ninja.len) {
			callus_buf_put(&st->ninja, m + 7, ml - 7);
			return callus_buf_status(&st->ninja);
		}
		return 0;
	}
	if (callus_pu_starts(s, len, "FAILED: ") || progress(s, len)) {
		if ((rc = flush_segment(st)) < 0)
			return rc;
		st->in_edge = s[0] == 'F' ? 2 : 0;
		return 0;
	}
	if (st->in_edge == 2) {
		st->in_edge = 1; /* the command line */
		return 0;
	}
	if (!st->in_edge)
		return 0;
	callus_buf_put(&st->seg, s, len);
	return callus_buf_putc(&st->seg, '\n');
}

/* cmake --build with Makefiles: make's own lines. */
static int make_line(const char *s, size_t len)
{
	return (callus_pu_starts(s, len, "make: ") || callus_pu_starts(s, len, "make[") ||
		callus_pu_starts(s, len, "gmake: ") || callus_pu_starts(s, len, "gmake[")) &&
	       callus_pu_find(s, len, ": ") > 0;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	size_t before = diags->count + diags->dropped;
	state st;
	int rc;

	if (callus_pu_any_line(in->text, in->text_len, make_line))
		return callus_parser_make.parse(in, diags, files);
	memset(&st, 0, sizeof(st));
	st.in = in;
	st.diags = diags;
	st.files = files;
	callus_pu_dir_init(&st.dir, in->pc);
	callus_buf_init(&st.seg, 0);
	callus_buf_init(&st.ninja, 0);
	rc = callus_pu_each_line(in, line_of, &st);
	if (rc >= 0)
		rc = flush_segment(&st);
	if (rc >= 0 && st.ninja.len && diags->count + diags->dropped == before)
		rc = callus_pu_diag(NULL, diags, files, cur_pc(&st), NULL, 0, 0, 0, NULL, 0,
				  st.ninja.ptr, st.ninja.len, "error");
	callus_pu_dir_release(&st.dir);
	callus_buf_release(&st.seg);
	callus_buf_release(&st.ninja);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	return callus_pu_starts(s, len, "ninja: build stopped: ") ||
	       callus_pu_starts(s, len, "ninja: error: ");
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "ninja", "samu", "meson compile", "cmake --build", NULL };

const callus_parser callus_parser_ninja = { "ninja", tools, sniff, parse, sniff_line };

/*
 * gcc.c - gcc and clang diagnostics (cc, c++, g++, clang++), and the
 * linker errors they pass on.
 *
 *   src/main.c:13:27: error: 'count' undeclared (first use in this function)
 *   src/warn.c:7:13: error: unused variable 'unused' [-Werror=unused-variable]
 *   /usr/bin/ld: link.c:(.text+0xf): undefined reference to `missing_function'
 *
 * One diagnostic per error or warning.  Notes, "In file included from",
 * "In function", "required from here", source and caret lines (with or
 * without gcc's "  4 |" gutter) and fix-it hints are context: skipped.  The
 * code is the bracketed option as gcc prints it: -Wunused-variable, or
 * -Werror=unused-variable when that option made it an error; clang's
 * "-Werror,-Wunused-variable" names the warning's own option,
 * -Wunused-variable.  A
 * linker error names the object's source by its base name only
 * ("link.c:(.text+0xf)"): it is matched against the files already seen.
 * An error a system header reports (a template's instantiation) is placed
 * at the project's "required from here" before it, when there is one.
 * "collect2: error: ld returned 1 exit status" only counts when nothing
 * else was found.  Locations in other languages' files (.py, .go, .rs) are
 * left to their parsers, so that under make the two can share an output.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"
#include "swar.h"
#include "wordlist.h"

#include <string.h>

static const callus_word severities[] = {
	CALLUS_WORD("fatal error"), CALLUS_WORD("error"), CALLUS_WORD("warning"),
	CALLUS_WORD("note"), CALLUS_WORD("remark"),
};

/* "error: " after a location: the severity's index, and *msg_at.  (No
 * two of them begin alike: the first that begins the text is the one.) */
static int severity_at(const char *s, size_t len, size_t *msg_at)
{
	size_t i = callus_pu_indent(s, len), n;
	int k = callus_words_which_start(severities, CALLUS_WORDS_COUNT(severities), s + i,
					 len - i);

	if (k < 0 || i + (n = severities[k].len) >= len || s[i + n] != ':')
		return -1;
	*msg_at = i + n + 1;
	return k;
}

/* The linker's own prefix: "/usr/bin/ld: ", "ld.lld: ", "x86_64-linux-gnu-ld.bfd: ". */
static size_t ld_prefix(const char *s, size_t len)
{
	size_t i = callus_span_none3(s, len, ':', ' ', ' '), base;
	const char *slash;

	if (i + 1 >= len || s[i] != ':' || s[i + 1] != ' ')
		return 0;
	/* the name after the path's last slash, sought only here: a
	 * compiler's every line ends its first word at ':' and a digit */
	slash = memrchr(s, '/', i);
	base = slash ? (size_t)(slash - s) + 1 : 0;
	/* the program name: ld, ld.bfd, ld.gold, ld.lld, x86_64-linux-gnu-ld */
	for (size_t k = base; k + 1 < i + 1; k++)
		if ((k == base || s[k - 1] == '-') && s[k] == 'l' && s[k + 1] == 'd' &&
		    (k + 2 == i || s[k + 2] == '.'))
			return i + 2;
	return 0;
}

/* "gcc: error: ...", "cc1plus: fatal error: ...", "clang-14: error: ..." */
static size_t driver_prefix(const char *s, size_t len)
{
	static const char *const progs[] = { "gcc", "g++", "cc", "c++", "clang", "clang++",
					     "cc1", "cc1plus", "collect2", "cpp" };
	size_t i = callus_span_none3(s, len, ':', ' ', '/');

	if (i + 1 >= len || s[i] != ':' || s[i + 1] != ' ')
		return 0;
	for (size_t k = 0; k < sizeof(progs) / sizeof(progs[0]); k++) {
		size_t n = strlen(progs[k]);
		/* a version or a target may follow or precede: gcc-12, x86_64-linux-gnu-gcc */
		if (i >= n && !memcmp(s + i - n, progs[k], n) &&
		    (i == n || s[i - n - 1] == '-'))
			return i + 2;
		if (i > n && !memcmp(s, progs[k], n) && s[n] == '-' && callus_pu_is_digit(s[n + 1]))
			return i + 2;
	}
	return 0;
}

/* Split a trailing " [-Wfoo]" off the message; normalize the code. */
static void split_code(const char *m, size_t *ml, const char **code, size_t *cl)
{
	size_t len = *ml, open;
	const char *c;
	size_t n;

	*code = NULL;
	*cl = 0;
	if (len < 4 || m[len - 1] != ']')
		return;
	for (open = len - 1; open > 0 && m[open - 1] != '['; open--)
		if (m[open - 1] == ' ')
			return;
	if (open < 2 || m[open - 2] != ' ' || open == len - 1)
		return;
	c = m + open;
	n = len - 1 - open;
	/* clang: "-Werror,-Wunused-variable"; clang-tidy: "check,-warnings-as-errors" */
	{
		const char *comma = memchr(c, ',', n);
		if (comma) {
			if (callus_pu_starts(c, n, "-Werror,")) {
				n -= (size_t)(comma + 1 - c);
				c = comma + 1;
			} else {
				n = (size_t)(comma - c);
			}
		}
	}
	*code = c;
	*cl = n;
	*ml = open - 2;
	while (*ml && (m[*ml - 1] == ' ' || m[*ml - 1] == '\t'))
		(*ml)--;
}

typedef struct state {
	const callus_parse_input *in;
	callus_diags *diags;
	callus_strlist *files;
	size_t start;            /* diagnostics before this parse */
	callus_buf fallback;       /* "ld returned 1 exit status" */
	callus_diag *lld;          /* ld.lld's last error, to locate from ">>> referenced by" */
	/* the project's place an error inside a system header comes from:
	 * "src/app.cpp:3:37:   required from here", workspace-relative; ""
	 * when none since the last error */
	callus_buf here;
	long here_line, here_col;
	callus_buf scratch;
} state;

static int add(state *st, const char *file, size_t flen, long line, long col, const char *code,
	       size_t cl, const char *msg, size_t ml, const char *sev, callus_diag **out)
{
	callus_diag *d = NULL;
	int rc;

	rc = callus_pu_diag(&d, st->diags, st->files, st->in->pc, file, flen, line, col, code, cl,
			  msg, ml, sev);
	if (out)
		*out = d;
	return rc;
}

/* A file seen so far with this base name, as a workspace-relative path. */
static const char *known_file(const callus_strlist *files, const char *base, size_t len)
{
	const char *found = NULL;

	for (size_t i = 0; i < files->count; i++) {
		const char *f = files->items[i], *slash = strrchr(f, '/');
		const char *b = slash ? slash + 1 : f;

		if (strlen(b) == len && !memcmp(b, base, len)) {
			if (found && strcmp(found, f))
				return NULL; /* two candidates: do not guess */
			found = f;
		}
	}
	return found;
}

/* The word of the command line (`gcc -o prog main.c`) whose base name is
 * base[0..len): *word and its length, 1 when exactly one is. */
static int command_file(const char *cmd, const char *base, size_t len, const char **word,
			size_t *wlen)
{
	int found = 0;

	for (const char *p = cmd ? cmd : ""; *p;) {
		size_t n;
		const char *b;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		for (b = p + n; b > p && b[-1] != '/';)
			b--;
		if (n && (size_t)(p + n - b) == len && !memcmp(b, base, len)) {
			if (found && (*wlen != n || memcmp(*word, p, n)))
				return 0; /* two candidates: do not guess */
			*word = p;
			*wlen = n;
			found = 1;
		}
		p += n;
	}
	return found;
}

/*
 * Where the linker's "undefined reference to " is in s[0..len), else its
 * "multiple definition of ", else -1.  Every line of a build is asked:
 * both phrases hold "ef" (at 3 and at 10), and only where a line has it
 * are they compared (two searches of the line were 3.2 million
 * instructions of a megabyte's recording, bench/record1m.sh).
 */
#define UNDEFINED "undefined reference to "
#define MULTIPLE "multiple definition of "
#define PHRASE_LEN (sizeof(UNDEFINED) - 1)
_Static_assert(sizeof(UNDEFINED) == sizeof(MULTIPLE), "the two phrases are one length");

/* Whether the "ef" at s[i] is one of the two phrases': *multiple set at
 * the first "multiple definition of "; 1 at "undefined reference to ". */
static int phrase_at(const char *s, size_t len, size_t i, long *multiple)
{
	if (i >= 3 && i - 3 + PHRASE_LEN <= len && !memcmp(s + i - 3, UNDEFINED, PHRASE_LEN))
		return 1;
	if (*multiple < 0 && i >= 10 && i - 10 + PHRASE_LEN <= len &&
	    !memcmp(s + i - 10, MULTIPLE, PHRASE_LEN))
		*multiple = (long)(i - 10);
	return 0;
}

static long linker_phrase(const char *s, size_t len)
{
	long multiple = -1;
	size_t i = 3;

	if (len < PHRASE_LEN)
		return -1;
#ifdef __SSE2__
	/* sixteen places at a time, the last sixteen read again from where
	 * the blocks left off (a phrase is longer than one) */
	while (i + 1 < len) {
		size_t at = i + 17 <= len ? i : len - 17;
		__m128i e = callus_sse_is(callus_sse_load(s + at), 'e');
		__m128i f = callus_sse_is(callus_sse_load(s + at + 1), 'f');
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(e, f)) & (~0u << (i - at));

		for (; m; m &= m - 1) {
			size_t k = at + (size_t)__builtin_ctz(m);

			if (phrase_at(s, len, k, &multiple))
				return (long)(k - 3);
		}
		i = at + 16;
	}
#endif
	for (; i + 1 < len; i++)
		if (s[i] == 'e' && s[i + 1] == 'f' && phrase_at(s, len, i, &multiple))
			return (long)(i - 3);
	return multiple;
}

#undef UNDEFINED
#undef MULTIPLE
#undef PHRASE_LEN

/* "link.c:(.text+0xf): undefined reference to `f'" (the ld prefix gone) */
static int linker_error(state *st, const char *s, size_t len, long at)
{
	const char *msg = s + at, *loc = s;
	size_t ml = len - (size_t)at, ll = (size_t)at;
	callus_pu_loc l;

	while (ll && (loc[ll - 1] == ' ' || loc[ll - 1] == ':'))
		ll--;
	/* with debug information: "src/link.c:5: undefined reference" */
	if (callus_pu_location(loc, ll, &l) && l.end >= ll)
		return add(st, l.path, l.path_len, l.line, 0, NULL, 0, msg, ml, "error", NULL);
	{
		const char *paren = callus_pu_find(loc, ll, ":(") >= 0
					    ? loc + callus_pu_find(loc, ll, ":(")
					    : NULL;
		if (paren && callus_path_has_source_ext(loc, (size_t)(paren - loc))) {
			const char *f = known_file(st->files, loc, (size_t)(paren - loc));
			if (f && !memchr(loc, '/', (size_t)(paren - loc))) {
				callus_pathctx root = *st->in->pc;
				callus_diag *d = NULL;
				int rc;

				root.cwd_rel = "";
				rc = callus_pu_diag(&d, st->diags, st->files, &root, f, strlen(f), 0, 0,
						  NULL, 0, msg, ml, "error");
				return rc;
			}
			if (memchr(loc, '/', (size_t)(paren - loc)))
				return add(st, loc, (size_t)(paren - loc), 0, 0, NULL, 0, msg, ml,
					   "error", NULL);
			/* no file seen by that name: the one the command compiled */
			{
				const char *w = NULL;
				size_t wl = 0;

				if (!f && command_file(st->in->command, loc, (size_t)(paren - loc), &w,
						       &wl))
					return add(st, w, wl, 0, 0, NULL, 0, msg, ml, "error", NULL);
			}
		}
	}
	return add(st, NULL, 0, 0, 0, NULL, 0, msg, ml, "error", NULL);
}

static void context_clear(state *st)
{
	callus_buf_clear(&st->here);
	st->here_line = st->here_col = 0;
}

/* loc inside the workspace: its relative path in st->scratch. */
static int in_project(state *st, const callus_pu_loc *loc)
{
	return callus_path_relativize(&st->scratch, st->in->pc, loc->path, loc->path_len);
}

/* A context line before an error, "FILE:L:C:   required from here" (or
 * "required from ‘...’"): kept when FILE is the project's, the place an
 * error a system header reports comes from.  An include's "from FILE:L"
 * is not: the header's own error need not be the includer's.  1 when s
 * was one. */
static int context_line(state *st, const char *s, size_t len, const callus_pu_loc *loc)
{
	const char *rest = s + loc->end;
	size_t rl = len - loc->end;

	callus_pu_trim(&rest, &rl);
	if (!callus_pu_starts(rest, rl, "required from"))
		return 0;
	/* the innermost of the project's: the last one */
	if (in_project(st, loc)) {
		callus_buf_clear(&st->here);
		callus_buf_put(&st->here, st->scratch.ptr, st->scratch.len);
		st->here_line = loc->line;
		st->here_col = loc->col;
	}
	return 1;
}

static int line_of(void *arg, const char *s, size_t len)
{
	state *st = arg;
	size_t n, at;
	long ref;
	callus_pu_loc loc;
	int sev;

	/* lld: ">>> referenced by link.c:5 (src/link.c:5)" */
	if (callus_pu_starts(s, len, ">>> referenced by ")) {
		const char *open = memchr(s, '(', len), *close = s + len - 1;
		if (st->lld && !st->lld->file && open && *close == ')' &&
		    callus_pu_location(open + 1, (size_t)(close - open - 1), &loc)) {
			callus_buf rel = CALLUS_BUF_INIT;
			int in = callus_parse_file(st->files, &rel, st->in->pc, loc.path, loc.path_len);
			if (in > 0) {
				int rc = callus_diag_set(&st->lld->file, rel.ptr, rel.len);
				st->lld->line = loc.line;
				callus_buf_release(&rel);
				return rc;
			}
			callus_buf_release(&rel);
			if (in < 0)
				return in;
		}
		return 0;
	}
	if ((n = ld_prefix(s, len))) {
		s += n;
		len -= n;
		st->lld = NULL;
		if ((sev = severity_at(s, len, &at)) >= 0 && sev <= 1) {
			/* ld.lld: "error: undefined symbol: f" */
			const char *m = s + at;
			size_t ml = len - at;
			callus_pu_trim(&m, &ml);
			return add(st, NULL, 0, 0, 0, NULL, 0, m, ml, "error", &st->lld);
		}
		if (callus_pu_starts(s, len, "cannot find "))
			return add(st, NULL, 0, 0, 0, NULL, 0, s, len, "error", NULL);
	}
	if ((ref = linker_phrase(s, len)) >= 0)
		return linker_error(st, s, len, ref);
	if ((n = driver_prefix(s, len))) {
		const char *m;
		size_t ml;

		if ((sev = severity_at(s + n, len - n, &at)) < 0 || sev > 2)
			return 0;
		m = s + n + at;
		ml = len - n - at;
		callus_pu_trim(&m, &ml);
		if (callus_pu_find(m, ml, "warnings being treated as errors") >= 0)
			return 0;
		if (callus_pu_starts(m, ml, "ld returned ") ||
		    callus_pu_starts(m, ml, "linker command failed")) {
			callus_buf_clear(&st->fallback);
			return callus_buf_put(&st->fallback, m, ml);
		}
		return add(st, NULL, 0, 0, 0, NULL, 0, m, ml, sev == 2 ? "warning" : "error", NULL);
	}
	if (!callus_pu_location(s, len, &loc))
		return 0;
	if (context_line(st, s, len, &loc))
		return callus_buf_status(&st->here) < 0 ? CALLUS_ENOMEM : 0;
	/* another language's file: mypy, go vet, rustc --error-format=short */
	if (callus_path_has_source_ext(loc.path, loc.path_len) &&
	    !callus_pu_is_c_family(loc.path, loc.path_len))
		return 0;
	if ((sev = severity_at(s + loc.end, len - loc.end, &at)) < 0 || sev >= 3)
		return 0;
	{
		const char *m = s + loc.end + at, *code;
		size_t ml = len - loc.end - at, cl;

		callus_pu_trim(&m, &ml);
		split_code(m, &ml, &code, &cl);
		if (!ml)
			return 0;
		/* an error a system header reports: at the project's line it
		 * comes from (the root callus_pu_diag relativizes from) */
		if (st->here.len && !in_project(st, &loc)) {
			callus_pathctx root = *st->in->pc;
			callus_diag *d = NULL;
			int rc;

			root.cwd_rel = "";
			rc = callus_pu_diag(&d, st->diags, st->files, &root, st->here.ptr,
					  st->here.len, st->here_line, st->here_col, code, cl, m, ml,
					  sev == 2 ? "warning" : "error");
			context_clear(st);
			return rc;
		}
		context_clear(st);
		return add(st, loc.path, loc.path_len, loc.line, loc.col, code, cl, m, ml,
			   sev == 2 ? "warning" : "error", NULL);
	}
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
	callus_buf_init(&st.fallback, 0);
	callus_buf_init(&st.here, 0);
	callus_buf_init(&st.scratch, 0);
	rc = callus_pu_each_line(in, line_of, &st);
	if (rc >= 0 && st.fallback.len && diags->count + diags->dropped == st.start)
		rc = add(&st, NULL, 0, 0, 0, NULL, 0, st.fallback.ptr, st.fallback.len, "error",
			 NULL);
	callus_buf_release(&st.fallback);
	callus_buf_release(&st.here);
	callus_buf_release(&st.scratch);
	return rc < 0 ? rc : 0;
}

static int is_make_line(const char *s, size_t len)
{
	return (callus_pu_starts(s, len, "make: ") || callus_pu_starts(s, len, "make[")) &&
	       callus_pu_find(s, len, "***") > 0;
}

static int sniff_line(const char *s, size_t len)
{
	callus_pu_loc loc;
	size_t at;
	int sev;

	if (callus_pu_find(s, len, "undefined reference to ") >= 0 ||
	    callus_pu_starts(s, len, "collect2: error: ") ||
	    callus_pu_find(s, len, "error: linker command failed") >= 0 ||
	    (callus_pu_ends(s, len, " generated.") && callus_pu_find(s, len, "error") > 0))
		return 1;
	return callus_pu_location(s, len, &loc) && callus_pu_is_c_family(loc.path, loc.path_len) &&
	       (sev = severity_at(s + loc.end, len - loc.end, &at)) >= 0 && sev <= 2;
}

static int sniff(const char *text, size_t len)
{
	/* under make, make's parser reads the compiler's output itself, with
	 * the directories make entered */
	if (callus_pu_any_line(text, len, is_make_line))
		return 0;
	return callus_pu_any_line(text, len, sniff_line);
}

/* clang-tidy prints clang's diagnostics, its check the bracketed code */
static const char *const tools[] = { "gcc", "g++", "cc", "c++", "clang", "clang++", "clang-tidy", NULL };

const callus_parser callus_parser_gcc = { "gcc", tools, sniff, parse, NULL };

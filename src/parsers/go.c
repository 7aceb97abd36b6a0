/*
 * go.c - go build, go vet and go test.
 *
 * Compiler and vet errors are "path.go:LINE:COL: message" at the start of a
 * line (paths relative to where go ran), under a "# import/path" header;
 * vet's code is its analyzer (printf, assign, ...), known by its messages;
 * the compiler's, its type checker's name for the error's class.
 * go test prints, per package:
 *
 *   --- FAIL: TestDescribe (0.00s)
 *       --- FAIL: TestDescribe/plural (0.00s)
 *           calc_test.go:14: Describe(2) = "2 items"
 *   panic: runtime error: index out of range [5] with length 2 [recovered]
 *   goroutine 10 [running]:
 *   example.com/shop/calc.Index(...)
 *           /abs/calc/calc.go:11
 *   FAIL    example.com/shop/calc   0.004s
 *
 * (with -v, a test's log lines come before its "--- FAIL", after "=== RUN";
 * go test -json wraps the same lines in events' "Output").
 * One diagnostic per failing leaf test (a parent that fails because a
 * subtest did is not an error of its own): test the full name, located at
 * its first log line or, for a panic, at the innermost goroutine frame
 * inside the workspace (code "panic", frames kept).  Log lines name a file
 * by its base name, relative to the package's directory, which the output
 * names only as an import path: the directory is learned from absolute
 * frame paths and "# pkg" headers followed by paths, else taken from the
 * import path without its module part (example.com/shop/calc -> calc).
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

typedef struct gotest {
	char *name;
	int failed;
	callus_buf file, msg;  /* the first log line: base name, message */
	long line;
	int panicked;
} gotest;

typedef struct state {
	const callus_parse_input *in;
	callus_diags *diags;
	callus_strlist *files;
	size_t start;
	callus_pathctx root;      /* paths relative to the workspace root */
	callus_strlist pkgs, dirs; /* import path -> workspace-relative directory */
	callus_buf build_pkg;     /* "# pkg" */
	gotest *t;
	size_t n, alloc;
	long current;           /* the test whose log lines follow */
	callus_buf panic_msg;
	long panic_test;
	callus_pu_frames frames;  /* the panicking goroutine, innermost first */
	int trace;              /* 0 none, 1 in the first goroutine, 2 past it */
	callus_buf fn;            /* a frame's function, waiting for its file line */
	int created_by;         /* the frame is "created by": not a call */
	callus_buf fallback;      /* "go: ..." when nothing else is found */
	callus_buf scratch, scratch2;
} state;

#define MAX_TESTS (CALLUS_DIAGS_MAX + 16)

static gotest *test_get(state *st, const char *name, size_t len)
{
	gotest *t;

	for (size_t i = st->n; i > 0; i--)
		if (strlen(st->t[i - 1].name) == len && !memcmp(st->t[i - 1].name, name, len))
			return &st->t[i - 1];
	if (st->n >= MAX_TESTS)
		return NULL;
	if (st->n == st->alloc) {
		size_t n = st->alloc ? st->alloc * 2 : 16, bytes;
		gotest *p;

		if (callus_size_mul(&bytes, n, sizeof(*p)) < 0 || !(p = realloc(st->t, bytes)))
			return NULL;
		st->t = p;
		st->alloc = n;
	}
	t = &st->t[st->n];
	memset(t, 0, sizeof(*t));
	if (!(t->name = strndup(name, len)))
		return NULL;
	callus_buf_init(&t->file, 0);
	callus_buf_init(&t->msg, 0);
	st->n++;
	return t;
}

static void tests_clear(state *st)
{
	for (size_t i = 0; i < st->n; i++) {
		free(st->t[i].name);
		callus_buf_release(&st->t[i].file);
		callus_buf_release(&st->t[i].msg);
	}
	st->n = 0;
	st->current = -1;
	st->panic_test = -1;
	st->trace = 0;
	callus_buf_clear(&st->panic_msg);
	callus_pu_frames_clear(&st->frames);
}

/* Learn that import path pkg lives in dir (a path as printed, of a file in it). */
static int learn(state *st, const char *pkg, size_t plen, const char *file, size_t flen)
{
	const char *slash;

	/* bounded: the list is searched for every frame */
	if (!plen || st->pkgs.count >= 256 || callus_strlist_contains(&st->pkgs, pkg, plen))
		return 0;
	if (!callus_path_relativize(&st->scratch, st->in->pc, file, flen))
		return 0;
	slash = strrchr(st->scratch.ptr, '/');
	if (callus_strlist_add(&st->pkgs, pkg, plen) < 0 ||
	    callus_strlist_add(&st->dirs, st->scratch.ptr,
			     slash ? (size_t)(slash - st->scratch.ptr) : 0) < 0)
		return CALLUS_ENOMEM;
	return 0;
}

/* The workspace-relative directory of import path pkg, in out. */
static int pkg_dir(state *st, callus_buf *out, const char *pkg, size_t plen)
{
	callus_buf_clear(out);
	for (size_t i = 0; i < st->pkgs.count; i++)
		if (strlen(st->pkgs.items[i]) == plen && !memcmp(st->pkgs.items[i], pkg, plen))
			return callus_buf_puts(out, st->dirs.items[i]);
	/* a known package gives its module's root: the import path and the
	 * directory end alike; what precedes is module path and root */
	for (size_t i = 0; i < st->pkgs.count; i++) {
		const char *p = st->pkgs.items[i], *d = st->dirs.items[i];
		size_t pl = strlen(p), dl = strlen(d);

		/* drop the trailing components they share */
		while (dl) {
			size_t pa = pl, da = dl;

			while (pa && p[pa - 1] != '/')
				pa--;
			while (da && d[da - 1] != '/')
				da--;
			if (pl - pa != dl - da || memcmp(p + pa, d + da, pl - pa))
				break;
			/* all of the import path: no module path is left */
			pl = pa ? pa - 1 : 0;
			dl = da ? da - 1 : 0;
			if (!pa)
				break;
		}
		if (pl && plen > pl && !memcmp(pkg, p, pl) && pkg[pl] == '/') {
			callus_buf_put(out, d, dl);
			if (dl)
				callus_buf_putc(out, '/');
			return callus_buf_put(out, pkg + pl + 1, plen - pl - 1);
		}
		if (pl && plen == pl && !memcmp(pkg, p, pl))
			return callus_buf_put(out, d, dl);
	}
	/* the module path is the host and one or two more components */
	{
		size_t i = 0, drop;
		const char *first_end = memchr(pkg, '/', plen);
		size_t fl = first_end ? (size_t)(first_end - pkg) : plen;

		drop = memchr(pkg, '.', fl) ? 2 : 1;
		if (fl == 10 && (!memcmp(pkg, "github.com", 10) || !memcmp(pkg, "gitlab.com", 10)))
			drop = 3;
		if (fl == 13 && !memcmp(pkg, "bitbucket.org", 13))
			drop = 3;
		for (size_t c = 0; c < drop && i < plen; c++) {
			const char *sl = memchr(pkg + i, '/', plen - i);
			i = sl ? (size_t)(sl - pkg) + 1 : plen;
		}
		if (st->in->pc->cwd_rel && *st->in->pc->cwd_rel) {
			callus_buf_puts(out, st->in->pc->cwd_rel);
			if (i < plen)
				callus_buf_putc(out, '/');
		}
		return callus_buf_put(out, pkg + i, plen - i);
	}
}

static int is_leaf(const state *st, const gotest *t)
{
	size_t len = strlen(t->name);

	for (size_t i = 0; i < st->n; i++)
		if (st->t[i].failed && !strncmp(st->t[i].name, t->name, len) &&
		    st->t[i].name[len] == '/')
			return 0;
	return 1;
}

/* The package's tests are over: their diagnostics. */
static int flush(state *st, const char *pkg, size_t plen)
{
	int rc = 0;

	if (st->panic_test < 0 && st->panic_msg.len && st->current >= 0)
		st->panic_test = st->current;
	for (size_t i = 0; i < st->n && rc >= 0; i++) {
		gotest *t = &st->t[i];
		callus_diag *d = NULL;
		int panicked = (long)i == st->panic_test;

		if (!(t->failed || panicked) || (!panicked && !is_leaf(st, t)))
			continue;
		if (panicked) {
			long at = callus_pu_frames_locate(&st->frames, st->in->pc, 0);
			const char *file = at >= 0 ? st->frames.file.items[at] : NULL;

			rc = callus_pu_diag(&d, st->diags, st->files, st->in->pc, file,
					  file ? strlen(file) : 0, at >= 0 ? st->frames.line[at] : 0,
					  0, "panic", 5, st->panic_msg.ptr, st->panic_msg.len, "error");
			if (rc >= 0 && d)
				rc = callus_pu_frames_attach(d, &st->frames, st->in->pc, 0);
			/* the test's own file: its frame */
			for (size_t k = 0; rc >= 0 && k < st->frames.fn.count; k++) {
				const char *fn = st->frames.fn.items[k], *top = t->name;
				size_t fl = strlen(fn), tl = strcspn(top, "/");
				if (fl > tl && fn[fl - tl - 1] == '.' && !memcmp(fn + fl - tl, top, tl)) {
					const char *f = st->frames.file.items[k];
					rc = callus_parse_file(st->files, NULL, st->in->pc, f, strlen(f));
					break;
				}
			}
		} else if (t->file.len) {
			if (pkg && (rc = pkg_dir(st, &st->scratch2, pkg, plen)) >= 0) {
				if (st->scratch2.len)
					callus_buf_putc(&st->scratch2, '/');
				rc = callus_buf_put(&st->scratch2, t->file.ptr, t->file.len);
			} else if (rc >= 0) {
				/* no package line (cut off): where go ran */
				callus_buf_clear(&st->scratch2);
				if (st->in->pc->cwd_rel && *st->in->pc->cwd_rel) {
					callus_buf_puts(&st->scratch2, st->in->pc->cwd_rel);
					callus_buf_putc(&st->scratch2, '/');
				}
				rc = callus_buf_put(&st->scratch2, t->file.ptr, t->file.len);
			}
			if (rc >= 0)
				rc = callus_pu_diag(&d, st->diags, st->files, &st->root, st->scratch2.ptr,
						  st->scratch2.len, t->line, 0, NULL, 0, t->msg.ptr,
						  t->msg.len, "error");
		} else {
			rc = callus_pu_diag(&d, st->diags, st->files, st->in->pc, NULL, 0, 0, 0, NULL, 0,
					  "test failed", 11, "error");
		}
		if (rc >= 0 && d)
			rc = callus_pu_set_test(d, t->name, strlen(t->name));
	}
	tests_clear(st);
	return rc;
}

/* "example.com/shop/calc.(*T).Index(...)" -> function "calc.(*T).Index",
 * package "example.com/shop/calc". */
static void split_func(const char *s, size_t len, const char **fn, size_t *fl, size_t *pkg_len)
{
	size_t end = len, base = 0, dot;

	/* the arguments: the last "(" that closes the line */
	if (end && s[end - 1] == ')') {
		size_t depth = 0, k = end;
		while (k > 0) {
			k--;
			if (s[k] == ')')
				depth++;
			else if (s[k] == '(' && --depth == 0)
				break;
		}
		end = k;
	}
	for (size_t i = 0; i < end; i++)
		if (s[i] == '/')
			base = i + 1;
	for (dot = base; dot < end && s[dot] != '.'; dot++)
		;
	*fn = s + base;
	*fl = end - base;
	*pkg_len = dot;
}

static int trace_line(state *st, const char *s, size_t len)
{
	callus_pu_loc loc;

	if (!len) {
		st->trace = 2;
		return 0;
	}
	if (s[0] == '\t') {
		/* "\t/abs/calc/calc.go:11 +0x1d" */
		const char *p = s + 1;
		size_t pl = len - 1;
		int rc = 0;

		if (!st->fn.len || !callus_pu_location(p, pl, &loc))
			return 0;
		if (!st->created_by) {
			const char *fn;
			size_t fl, pkg;

			split_func(st->fn.ptr, st->fn.len, &fn, &fl, &pkg);
			if ((rc = callus_pu_frames_add(&st->frames, fn, fl, loc.path, loc.path_len,
						     loc.line)) >= 0)
				rc = learn(st, st->fn.ptr, pkg, loc.path, loc.path_len);
		}
		callus_buf_clear(&st->fn);
		return rc;
	}
	st->created_by = callus_pu_starts(s, len, "created by ");
	callus_buf_clear(&st->fn);
	if (st->created_by)
		return callus_buf_put(&st->fn, s + 11, len - 11);
	return callus_buf_put(&st->fn, s, len);
}

/*
 * go vet does not name the analyzer that found a problem; its messages do.
 * The analyzer is the rule, as eslint's rule ids are (go test runs a few of
 * them too).
 */
static const char *vet_analyzer(const char *m, size_t len)
{
	static const char *const map[][2] = {
		{ "self-assignment of ", "assign" },
		{ " format %", "printf" },
		{ "call has arguments but no formatting directives", "printf" },
		{ "call has possible Printf formatting directive", "printf" },
		{ "call needs ", "printf" },
		{ "wrong number of args for format", "printf" },
		{ "unreachable code", "unreachable" },
		{ "composite literal uses unkeyed fields", "composites" },
		{ "passes lock by value", "copylocks" },
		{ "copies lock value", "copylocks" },
		{ "captured by func literal", "loopclosure" },
		{ "the cancel function", "lostcancel" },
		{ "is always false", "nilfunc" },
		{ "is always true", "nilfunc" },
		{ "struct field tag", "structtag" },
		{ "possible misuse of unsafe.Pointer", "unsafeptr" },
		{ "result of ", "unusedresult" },
		{ "impossible type assertion", "ifaceassert" },
		{ "yields a string of one rune", "stringintconv" },
		{ "direct assignment to atomic value", "atomic" },
		{ "suspect or: ", "bools" },
		{ "redundant or: ", "bools" },
		{ "suspect and: ", "bools" },
		{ "redundant and: ", "bools" },
		{ "second argument to errors.As", "errorsas" },
		{ "passes non-pointer", "unmarshal" },
		{ "using resp before checking for errors", "httpresponse" },
		{ "should have signature ", "stdmethods" },
		{ "too small for shift", "shift" },
		{ "misuse of unbuffered os.Signal channel", "sigchanyzer" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (callus_pu_find(m, len, map[i][0]) >= 0)
			return map[i][1];
	return NULL;
}

/*
 * The compiler names no code either.  Its type checker's own names for
 * its error classes (go/types' internal/types/errors) stand in: the same
 * mistake then has the same code whatever the statement it is in ("cannot
 * use x as int value in return statement" / "... in variable
 * declaration"), as tsc's TS2322 has.  Both Go's older "declared but not
 * used" and its newer "declared and not used" are read.
 */
static const char *types_code(const char *m, size_t len)
{
	static const char *const map[][2] = {
		{ "declared but not used", "UnusedVar" },
		{ "declared and not used", "UnusedVar" },
		{ "imported but not used", "UnusedImport" },
		{ "imported and not used", "UnusedImport" },
		{ "undefined: ", "UndeclaredName" },
		{ "missing return", "MissingReturn" },
		{ "too many arguments in call", "WrongArgCount" },
		{ "not enough arguments in call", "WrongArgCount" },
		{ "assignment mismatch", "WrongAssignCount" },
		{ "has no field or method", "MissingFieldOrMethod" },
		{ "mismatched types", "MismatchedTypes" },
		{ "redeclared in this block", "DuplicateDecl" },
		{ "cannot convert ", "InvalidConversion" },
	};

	if (callus_pu_starts(m, len, "cannot use ") && callus_pu_find(m, len, " as ") >= 0 &&
	    callus_pu_find(m, len, " in ") >= 0)
		return "IncompatibleAssign";
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (callus_pu_find(m, len, map[i][0]) >= 0)
			return map[i][1];
	return NULL;
}

static int text_line(state *st, const char *s, size_t len);

/* go test -json: the events' "Output" are the lines as go test prints them. */
static int json_line(state *st, const char *s, size_t len)
{
	json_t *o = json_loadb(s, len, 0, NULL), *out;
	const char *action;
	int rc = 0;

	if (!json_is_object(o) || !(action = json_string_value(json_object_get(o, "Action"))))
		goto out;
	out = json_object_get(o, "Output");
	if ((!strcmp(action, "output") || !strcmp(action, "build-output")) && json_is_string(out)) {
		const char *p = json_string_value(out), *end = p + json_string_length(out), *l;
		size_t n;

		while (rc >= 0 && callus_next_line(&p, end, &l, &n)) {
			while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
				n--;
			rc = text_line(st, l, n);
		}
	}
out:
	json_decref(o);
	return rc;
}

static int line_of(void *arg, const char *s, size_t len)
{
	state *st = arg;

	if (len > 2 && s[0] == '{' && s[len - 1] == '}')
		return json_line(st, s, len);
	return text_line(st, s, len);
}

static int text_line(state *st, const char *s, size_t len)
{
	size_t ind = callus_pu_indent(s, len);
	const char *t = s + ind;
	size_t tl = len - ind;
	callus_pu_loc loc;
	gotest *g;

	if (st->trace == 1 && !callus_pu_starts(s, len, "FAIL") && !callus_pu_starts(s, len, "ok "))
		return trace_line(st, s, len);
	if (callus_pu_starts(s, len, "goroutine ") && callus_pu_ends(s, len, ":")) {
		if (st->panic_msg.len && !st->trace)
			st->trace = 1;
		else if (st->trace)
			st->trace = 2;
		return 0;
	}
	if (callus_pu_starts(s, len, "panic: ")) {
		if (st->panic_msg.len)
			return 0;
		t = s + 7;
		tl = len - 7;
		if (callus_pu_ends(t, tl, " [recovered]"))
			tl -= 12;
		if (st->current >= 0)
			st->panic_test = st->current;
		return callus_buf_put(&st->panic_msg, t, tl);
	}
	/* "--- FAIL: TestX/sub (0.00s)" */
	if (callus_pu_starts(t, tl, "--- ")) {
		int fail = callus_pu_starts(t, tl, "--- FAIL: ");
		size_t n;

		if (!fail && !callus_pu_starts(t, tl, "--- PASS: ") && !callus_pu_starts(t, tl, "--- SKIP: "))
			return 0;
		t += 10;
		tl -= 10;
		for (n = 0; n < tl && t[n] != ' '; n++)
			;
		if (!fail) {
			st->current = -1;
			return 0;
		}
		if (!(g = test_get(st, t, n)))
			return st->n >= MAX_TESTS ? 0 : CALLUS_ENOMEM;
		g->failed = 1;
		st->current = (long)(g - st->t);
		return 0;
	}
	/* -v: "=== RUN   TestX" */
	if (callus_pu_starts(s, len, "=== RUN ") || callus_pu_starts(s, len, "=== CONT ") ||
	    callus_pu_starts(s, len, "=== NAME ")) {
		t = s + 8;
		tl = len - 8;
		callus_pu_trim(&t, &tl);
		if (!tl || !(g = test_get(st, t, tl)))
			return st->n >= MAX_TESTS || !tl ? 0 : CALLUS_ENOMEM;
		st->current = (long)(g - st->t);
		return 0;
	}
	/* "FAIL\tpkg\t0.004s", "ok  \tpkg\t0.1s", "FAIL\tpkg [build failed]" */
	if ((callus_pu_starts(s, len, "FAIL\t") || callus_pu_starts(s, len, "ok ") ||
	     callus_pu_starts(s, len, "FAIL ")) && len > 5) {
		size_t i = 4, e;
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		for (e = i; e < len && s[e] != ' ' && s[e] != '\t'; e++)
			;
		if (e > i)
			return flush(st, s + i, e - i);
		return 0;
	}
	/* "# example.com/shop/broken [example.com/shop/broken.test]" */
	if (callus_pu_starts(s, len, "# ")) {
		size_t e = 2;
		while (e < len && s[e] != ' ')
			e++;
		callus_buf_clear(&st->build_pkg);
		return callus_buf_put(&st->build_pkg, s + 2, e - 2);
	}
	/* a test's log line */
	if (ind && st->current >= 0 && callus_pu_location(t, tl, &loc) &&
	    callus_pu_ends(loc.path, loc.path_len, ".go")) {
		g = &st->t[st->current];
		if (g->file.len)
			return 0;
		t += loc.end;
		tl -= loc.end;
		callus_pu_trim(&t, &tl);
		g->line = loc.line;
		callus_buf_put(&g->file, loc.path, loc.path_len);
		callus_buf_put(&g->msg, t, tl);
		return callus_buf_status(&g->file) < 0 || callus_buf_status(&g->msg) < 0 ? CALLUS_ENOMEM : 0;
	}
	/* testify: "calc_test.go:14: " then "Error:  Not equal: ..." */
	if (ind && st->current >= 0 && st->t[st->current].file.len &&
	    !st->t[st->current].msg.len && callus_pu_starts(t, tl, "Error:")) {
		t += 6;
		tl -= 6;
		callus_pu_trim(&t, &tl);
		return callus_buf_put(&st->t[st->current].msg, t, tl);
	}
	/* build and vet errors */
	if (!ind) {
		if (callus_pu_starts(s, len, "vet: ")) {
			s += 5;
			len -= 5;
		}
		if (callus_pu_location(s, len, &loc) && callus_pu_ends(loc.path, loc.path_len, ".go")) {
			int rc = learn(st, st->build_pkg.ptr, st->build_pkg.len, loc.path, loc.path_len);
			t = s + loc.end;
			tl = len - loc.end;
			callus_pu_trim(&t, &tl);
			if (rc >= 0 && tl) {
				const char *code = NULL;

				/* a diagnostic past those kept is only counted: its
				 * code, some forty searches of its message, unread */
				if (st->diags->count < CALLUS_DIAGS_MAX && !(code = vet_analyzer(t, tl)))
					code = types_code(t, tl);
				rc = callus_pu_diag(NULL, st->diags, st->files, st->in->pc, loc.path,
						  loc.path_len, loc.line, loc.col, code,
						  code ? strlen(code) : 0, t, tl, "error");
			}
			return rc;
		}
		if (callus_pu_starts(s, len, "go: ") && !st->fallback.len &&
		    !callus_pu_starts(s, len, "go: downloading ") &&
		    !callus_pu_starts(s, len, "go: finding ") &&
		    !callus_pu_starts(s, len, "go: extracting "))
			return callus_buf_put(&st->fallback, s + 4, len - 4);
	}
	return 0;
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
	st.root = *in->pc;
	st.root.cwd_rel = "";
	st.current = st.panic_test = -1;
	callus_buf_init(&st.build_pkg, 0);
	callus_buf_init(&st.panic_msg, 0);
	callus_buf_init(&st.fn, 0);
	callus_buf_init(&st.fallback, 0);
	callus_buf_init(&st.scratch, 0);
	callus_buf_init(&st.scratch2, 0);
	rc = callus_pu_each_line(in, line_of, &st);
	if (rc >= 0)
		rc = flush(&st, NULL, 0);
	if (rc >= 0 && st.fallback.len && diags->count + diags->dropped == st.start)
		rc = callus_pu_diag(NULL, diags, files, in->pc, NULL, 0, 0, 0, NULL, 0,
				  st.fallback.ptr, st.fallback.len, "error");
	tests_clear(&st);
	free(st.t);
	callus_strlist_release(&st.pkgs);
	callus_strlist_release(&st.dirs);
	callus_buf_release(&st.build_pkg);
	callus_buf_release(&st.panic_msg);
	callus_buf_release(&st.fn);
	callus_buf_release(&st.fallback);
	callus_buf_release(&st.scratch);
	callus_buf_release(&st.scratch2);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	size_t ind = callus_pu_indent(s, len);
	callus_pu_loc loc;

	return callus_pu_starts(s + ind, len - ind, "--- FAIL: ") || callus_pu_starts(s, len, "FAIL\t") ||
	       (!ind && callus_pu_location(s, len, &loc) &&
		callus_pu_ends(loc.path, loc.path_len, ".go"));
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "go test", "go vet", "go build", NULL };

const callus_parser callus_parser_go = { "go", tools, sniff, parse, sniff_line };

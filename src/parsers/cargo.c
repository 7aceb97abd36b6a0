/*
 * cargo.c - cargo build/check/clippy/test and rustc: the human
 * format, --message-format=short, and the JSON lines of
 * --message-format=json (cargo) and --error-format=json (rustc).
 *
 *   error[E0308]: mismatched types
 *    --> src/main.rs:6:22
 *     |
 *   6 |     let count: u32 = "three";
 *     |                ---   ^^^^^^^ expected `u32`, found `&str`
 *
 * One diagnostic per error or warning: code the error code (E0308), else
 * the lint named by its "#[warn(...)]" note (clippy::needless_return),
 * message the headline and the primary label ("mismatched types: expected
 * `u32`, found `&str`", as the short format prints it), location the first
 * "-->" before any "note:"/"help:" sub-diagnostic.  cargo's summaries
 * ("could not compile", "aborting due to") are not errors of their own.
 *
 * cargo test: one diagnostic per failing test ("---- tests::it_works
 * stdout ----"), located where it panicked, code "panic", message the
 * panic's text, frames from the backtrace (RUST_BACKTRACE=1).
 *
 * rustc's paths are relative to the cargo workspace's root, wherever cargo
 * ran: they are resolved against the packages cargo names ("Compiling x
 * v0.1.0 (/abs/dir)", JSON manifest_path) - the root is the package's
 * directory, or an ancestor when the path starts with the package's own
 * directory name (a workspace member: "core/src/lib.rs") - else against
 * the target directory of "Running ... (t/target/debug/deps/...)", else
 * against where cargo ran.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

typedef struct pending {
	int active, located, sub;
	const char *severity;
	callus_buf code, msg, file, label, lint;
	long line, col;
} pending;

typedef struct rtest {
	int active, collecting, backtrace;
	callus_buf name, msg, file;
	long line, col;
	callus_pu_frames frames;
	callus_buf fn;
} rtest;

typedef struct state {
	const callus_parse_input *in;
	callus_diags *diags;
	callus_strlist *files;
	callus_strlist pkgdirs;    /* absolute package directories, latest last */
	callus_buf target_base;    /* "t" of "(t/target/debug/deps/...)" */
	callus_buf binary;         /* "tests/it.rs" of "Running tests/it.rs (...)" */
	callus_strlist failed;     /* tests reported failed */
	callus_strlist reported;   /* tests given a diagnostic */
	int in_list;             /* the "failures:" list of names */
	pending p;
	rtest t;
	callus_buf path, path2;
} state;

/* Lists searched line by line are bounded, so that no output makes the
 * parse quadratic; beyond this many failed tests, the rest are counted
 * as dropped diagnostics anyway. */
#define MAX_TESTS (CALLUS_DIAGS_MAX + 16)
#define MAX_PKGS 256

static const char *const skip_msgs[] = {
	"could not compile", "aborting due to", "test failed, to rerun", "build failed",
	"Some errors have detailed explanations", "For more information about",
	"Recipe ", "linking with", "failed to run custom build command",
};

static int skipped(const char *m, size_t len)
{
	for (size_t i = 0; i < sizeof(skip_msgs) / sizeof(skip_msgs[0]); i++)
		if (callus_pu_starts(m, len, skip_msgs[i]))
			return 1;
	/* "`shop` (bin "shop") generated 1 warning" */
	if (len && m[0] == '`' && callus_pu_find(m, len, ") generated ") > 0)
		return 1;
	/* "3 warnings emitted", "1 previous error" */
	if (len && callus_pu_is_digit(m[0]) &&
	    (callus_pu_find(m, len, " emitted") > 0 || callus_pu_find(m, len, " previous error") > 0))
		return 1;
	return 0;
}

/* Resolve a path as rustc printed it into st->path (for in->pc). */
static int resolve(state *st, const char *p, size_t len)
{
	callus_buf *out = &st->path;

	callus_buf_clear(out);
	while (len > 2 && p[0] == '.' && p[1] == '/') {
		p += 2;
		len -= 2;
	}
	if (!len || p[0] == '/' || !st->pkgdirs.count) {
		if (len && p[0] != '/' && st->target_base.len) {
			callus_buf_put(out, st->target_base.ptr, st->target_base.len);
			callus_buf_putc(out, '/');
		}
		callus_buf_put(out, p, len);
		return callus_buf_status(out);
	}
	/* a workspace member's path starts with its directory's name */
	for (size_t i = st->pkgdirs.count; i > 0; i--) {
		const char *dir = st->pkgdirs.items[i - 1];
		size_t dl = strlen(dir);

		for (size_t cut = dl; cut > 0; cut--) {
			if (dir[cut - 1] != '/')
				continue;
			/* dir[cut..dl) are the last components */
			if (len > dl - cut && !memcmp(p, dir + cut, dl - cut) && p[dl - cut] == '/') {
				callus_buf_put(out, dir, cut);
				callus_buf_put(out, p, len);
				return callus_buf_status(out);
			}
		}
	}
	callus_buf_puts(out, st->pkgdirs.items[st->pkgdirs.count - 1]);
	callus_buf_putc(out, '/');
	callus_buf_put(out, p, len);
	return callus_buf_status(out);
}

static int add_pkgdir(state *st, const char *dir, size_t len)
{
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (!len || dir[0] != '/')
		return 0;
	for (size_t i = 0; i < st->pkgdirs.count; i++)
		if (strlen(st->pkgdirs.items[i]) == len && !memcmp(st->pkgdirs.items[i], dir, len)) {
			/* the latest package comes last */
			char *keep = st->pkgdirs.items[i];
			memmove(&st->pkgdirs.items[i], &st->pkgdirs.items[i + 1],
				(st->pkgdirs.count - i - 1) * sizeof(char *));
			st->pkgdirs.items[st->pkgdirs.count - 1] = keep;
			return 0;
		}
	return st->pkgdirs.count < MAX_PKGS ? callus_strlist_add(&st->pkgdirs, dir, len) : 0;
}

/*
 * The lint of a warning rustc printed without naming it: the note naming
 * it comes with the first warning of each lint only, and the short format
 * never has it.  The lint is the rule, as for clippy.
 */
static const char *rust_lint(const char *m, size_t len)
{
	static const char *const map[][2] = {
		{ "unused variable: ", "unused_variables" },
		{ "unused import", "unused_imports" },
		{ "variable does not need to be mutable", "unused_mut" },
		{ "never used", "dead_code" },
		{ "never read", "dead_code" },
		{ "never constructed", "dead_code" },
		{ "that must be used", "unused_must_use" },
		{ "unused return value of", "unused_must_use" },
		{ "unreachable statement", "unreachable_code" },
		{ "unreachable expression", "unreachable_code" },
		{ "unnecessary parentheses", "unused_parens" },
		{ "should have a snake case name", "non_snake_case" },
		{ "should have an upper camel case name", "non_camel_case_types" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (callus_pu_find(m, len, map[i][0]) >= 0)
			return map[i][1];
	return NULL;
}

/* --message-format=short adds the primary label to the message, and a
 * "help:" label is no part of the error */
static void drop_help(const char *m, size_t *len)
{
	long at = callus_pu_find(m, *len, ": help: ");

	if (at > 0)
		*len = (size_t)at;
}

static int emit_pending(state *st)
{
	pending *p = &st->p;
	const char *code = p->code.len ? p->code.ptr : p->lint.len ? p->lint.ptr : NULL;
	size_t cl = p->code.len ? p->code.len : p->lint.len;
	int rc = 0;

	if (!p->active)
		return 0;
	if (!code && !strcmp(p->severity, "warning") &&
	    (code = rust_lint(p->msg.ptr, p->msg.len)))
		cl = strlen(code);
	p->active = 0;
	if (p->label.len) {
		callus_buf_puts(&p->msg, ": ");
		callus_buf_put(&p->msg, p->label.ptr, p->label.len);
	}
	if ((rc = callus_buf_status(&p->msg)) < 0)
		return rc;
	if (p->located && (rc = resolve(st, p->file.ptr, p->file.len)) < 0)
		return rc;
	return callus_pu_diag(NULL, st->diags, st->files, st->in->pc,
			    p->located ? st->path.ptr : NULL, p->located ? st->path.len : 0,
			    p->line, p->col, code, cl, p->msg.ptr, p->msg.len, p->severity);
}

static int emit_test(state *st)
{
	rtest *t = &st->t;
	callus_diag *d = NULL;
	int rc;

	if (!t->active)
		return 0;
	t->active = t->collecting = t->backtrace = 0;
	/* an integration test's file is affected, wherever it panicked */
	if (st->binary.len && (rc = resolve(st, st->binary.ptr, st->binary.len)) >= 0 &&
	    (rc = callus_parse_file(st->files, NULL, st->in->pc, st->path.ptr, st->path.len)) < 0)
		return rc;
	if (t->file.len && (rc = resolve(st, t->file.ptr, t->file.len)) < 0)
		return rc;
	if (!t->msg.len)
		callus_buf_puts(&t->msg, "test failed");
	if ((rc = callus_buf_status(&t->msg)) < 0)
		return rc;
	rc = callus_pu_diag(&d, st->diags, st->files, st->in->pc, t->file.len ? st->path.ptr : NULL,
			  t->file.len ? st->path.len : 0, t->line, t->col, t->file.len ? "panic" : NULL,
			  t->file.len ? 5 : 0, t->msg.ptr, t->msg.len, "error");
	if (rc >= 0 && d)
		rc = callus_pu_set_test(d, t->name.ptr, t->name.len);
	if (rc >= 0 && d)
		rc = callus_pu_frames_attach(d, &t->frames, st->in->pc, 0);
	if (rc >= 0 && st->reported.count < MAX_TESTS)
		rc = callus_strlist_add_unique(&st->reported, t->name.ptr, t->name.len, NULL);
	callus_pu_frames_clear(&t->frames);
	return rc < 0 ? rc : 0;
}

/* "error[E0308]: msg", "warning: msg": severity, code, message. */
static int headline(const char *s, size_t len, const char **sev, const char **code, size_t *cl,
		    const char **msg, size_t *ml)
{
	size_t i;

	if (callus_pu_starts(s, len, "error"))
		*sev = "error", i = 5;
	else if (callus_pu_starts(s, len, "warning"))
		*sev = "warning", i = 7;
	else
		return 0;
	*code = NULL;
	*cl = 0;
	if (i < len && s[i] == '[') {
		const char *close = memchr(s + i, ']', len - i);
		if (!close)
			return 0;
		*code = s + i + 1;
		*cl = (size_t)(close - s) - i - 1;
		i = (size_t)(close - s) + 1;
	}
	if (i + 1 >= len || s[i] != ':' || s[i + 1] != ' ')
		return 0;
	*msg = s + i + 2;
	*ml = len - i - 2;
	callus_pu_trim(msg, ml);
	return 1;
}

/* The lint of "`#[warn(unused_variables)]` on by default" or
 * "add `#[allow(clippy::needless_return)]`". */
static void lint_of(pending *p, const char *s, size_t len)
{
	static const char *const attrs[] = { "#[warn(", "#[deny(", "#[allow(", "#[forbid(" };

	if (p->lint.len || p->code.len)
		return;
	for (size_t k = 0; k < sizeof(attrs) / sizeof(attrs[0]); k++) {
		long at = callus_pu_find(s, len, attrs[k]);
		if (at >= 0) {
			const char *name = s + at + strlen(attrs[k]);
			const char *close = memchr(name, ')', len - (size_t)(name - s));
			if (close && close > name)
				callus_buf_put(&p->lint, name, (size_t)(close - name));
			return;
		}
	}
}

/* The label after the primary span's carets: "^^^^ expected `u32`, found `&str`". */
static int label_of(pending *p, const char *s, size_t len)
{
	const char *bar = memchr(s, '|', len), *c, *end = s + len;

	if (!bar || p->label.len)
		return 0;
	if (!(c = memchr(bar, '^', (size_t)(end - bar))))
		return 0;
	while (c < end && *c == '^')
		c++;
	while (c < end && *c == ' ')
		c++;
	/* a secondary span's dashes, or a suggestion, are not the label */
	if (c >= end || *c == '-' || *c == '|' || *c == '^' || callus_pu_starts(c, (size_t)(end - c), "help:"))
		return 0;
	return callus_buf_put(&p->label, c, (size_t)(end - c));
}

/* ---- JSON ---------------------------------------------------------------- */

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The primary span inside the workspace (following macro expansions out
 * of the standard library), else the first primary one. */
static json_t *primary_span(state *st, json_t *spans)
{
	json_t *first = NULL, *sp;
	size_t i;

	json_array_foreach(spans, i, sp) {
		if (!json_is_true(json_object_get(sp, "is_primary")))
			continue;
		if (!first)
			first = sp;
		for (json_t *cur = sp; cur; ) {
			const char *f = jstr(cur, "file_name");
			json_t *exp;

			if (f && resolve(st, f, strlen(f)) == 0 &&
			    callus_path_relativize(&st->path2, st->in->pc, st->path.ptr, st->path.len))
				return cur;
			exp = json_object_get(cur, "expansion");
			cur = json_is_object(exp) ? json_object_get(exp, "span") : NULL;
			if (cur && !json_is_object(cur))
				cur = NULL;
		}
	}
	return first;
}

static int json_message(state *st, json_t *m)
{
	const char *level = jstr(m, "level"), *text = jstr(m, "message"), *code = NULL;
	const char *file = NULL, *label = NULL;
	json_t *c = json_object_get(m, "code"), *spans = json_object_get(m, "spans"), *sp;
	long line = 0, col = 0;
	callus_buf msg = CALLUS_BUF_INIT;
	int rc;

	if (!level || !text || (strcmp(level, "error") && strcmp(level, "warning")) ||
	    skipped(text, strlen(text)))
		return 0;
	if (json_is_object(c))
		code = jstr(c, "code");
	if (json_is_array(spans) && (sp = primary_span(st, spans))) {
		json_t *l = json_object_get(sp, "line_start"), *k = json_object_get(sp, "column_start");
		file = jstr(sp, "file_name");
		label = jstr(sp, "label");
		line = json_is_integer(l) ? (long)json_integer_value(l) : 0;
		col = json_is_integer(k) ? (long)json_integer_value(k) : 0;
	}
	callus_buf_puts(&msg, text);
	if (label && *label && strncmp(label, "help:", 5)) {
		callus_buf_puts(&msg, ": ");
		callus_buf_puts(&msg, label);
	}
	if ((rc = callus_buf_status(&msg)) < 0 || (file && (rc = resolve(st, file, strlen(file))) < 0))
		goto out;
	rc = callus_pu_diag(NULL, st->diags, st->files, st->in->pc, file ? st->path.ptr : NULL,
			  file ? st->path.len : 0, line, col, code, code ? strlen(code) : 0, msg.ptr,
			  msg.len, strcmp(level, "error") ? "warning" : "error");
out:
	callus_buf_release(&msg);
	return rc;
}

static int json_line(state *st, const char *s, size_t len)
{
	json_t *o = json_loadb(s, len, JSON_DISABLE_EOF_CHECK, NULL), *m;
	const char *reason;
	int rc = 0;

	if (!json_is_object(o))
		goto out;
	reason = jstr(o, "reason");
	if (reason) {
		const char *manifest = jstr(o, "manifest_path");

		if (manifest && strrchr(manifest, '/') &&
		    (rc = add_pkgdir(st, manifest, (size_t)(strrchr(manifest, '/') - manifest))) < 0)
			goto out;
		if (!strcmp(reason, "compiler-message") && json_is_object(m = json_object_get(o, "message")))
			rc = json_message(st, m);
	} else if (json_object_get(o, "$message_type") || json_object_get(o, "spans")) {
		rc = json_message(st, o); /* rustc --error-format=json */
	}
out:
	json_decref(o);
	return rc;
}

/* ---- human --------------------------------------------------------------- */

/* "thread 'tests::x' (17182) panicked at src/lib.rs:6:5:" (and the format
 * before Rust 1.73: "panicked at 'msg', src/lib.rs:6:5") */
static int panic_line(state *st, const char *s, size_t len)
{
	rtest *t = &st->t;
	long at = callus_pu_find(s, len, " panicked at ");
	const char *p;
	size_t pl;
	callus_pu_loc loc;

	if (!callus_pu_starts(s, len, "thread '") || at < 0)
		return 0;
	if (!t->active) {
		/* a panic outside a test's section: its thread names it */
		const char *q = memchr(s + 8, '\'', len - 8);
		t->active = 1;
		callus_buf_clear(&t->name);
		callus_buf_put(&t->name, s + 8, q ? (size_t)(q - s - 8) : 0);
	}
	if (t->file.len)
		return 1;
	p = s + at + 13;
	pl = len - (size_t)at - 13;
	callus_buf_clear(&t->msg);
	if (pl && *p == '\'') {
		long end = -1, k;
		for (k = 0; (k = callus_pu_find(p + end + 1, pl - (size_t)(end + 1), "', ")) >= 0;)
			end += k + 1;
		if (end > 0) {
			callus_buf_put(&t->msg, p + 1, (size_t)end - 1);
			p += end + 3;
			pl -= (size_t)end + 3;
		}
	} else {
		t->collecting = 1;
	}
	if (pl && p[pl - 1] == ':')
		pl--;
	if (callus_pu_location(p, pl, &loc)) {
		callus_buf_put(&t->file, loc.path, loc.path_len);
		t->line = loc.line;
		t->col = loc.col;
	}
	return callus_buf_status(&t->file) < 0 || callus_buf_status(&t->msg) < 0 ? CALLUS_ENOMEM : 1;
}

static int test_line(state *st, const char *s, size_t len)
{
	rtest *t = &st->t;
	size_t ind = callus_pu_indent(s, len);
	int rc;

	if (callus_pu_starts(s, len, "---- ") && callus_pu_ends(s, len, " ----")) {
		if ((rc = emit_test(st)) < 0)
			return rc;
		st->in_list = 0;
		t->active = 1;
		callus_buf_clear(&t->name);
		callus_buf_clear(&t->msg);
		callus_buf_clear(&t->file);
		t->line = t->col = 0;
		/* "---- tests::x stdout ----" */
		if (callus_pu_ends(s, len, " stdout ----") && len > 17)
			callus_buf_put(&t->name, s + 5, len - 17);
		else
			callus_buf_put(&t->name, s + 5, len - 10);
		return callus_buf_status(&t->name) < 0 ? CALLUS_ENOMEM : 1;
	}
	if ((rc = panic_line(st, s, len)) != 0)
		return rc;
	if (!t->active)
		return 0;
	if (callus_pu_starts(s, len, "stack backtrace:")) {
		t->collecting = 0;
		t->backtrace = 1;
		return 1;
	}
	if (t->backtrace) {
		/* "   3: calc::pick" then "             at ./src/lib.rs:6:5" */
		const char *p = s + ind;
		size_t pl = len - ind, n;
		callus_pu_loc loc;

		if (callus_pu_starts(p, pl, "at ") && t->fn.len) {
			if (!callus_pu_location(p + 3, pl - 3, &loc))
				return 1;
			if ((rc = resolve(st, loc.path, loc.path_len)) < 0 ||
			    (rc = callus_pu_frames_add(&t->frames, t->fn.ptr, t->fn.len, st->path.ptr,
						     st->path.len, loc.line)) < 0)
				return rc;
			callus_buf_clear(&t->fn);
			return 1;
		}
		callus_pu_num(p, pl, &n);
		if (n && n + 2 < pl && p[n] == ':' && p[n + 1] == ' ') {
			callus_buf_clear(&t->fn);
			return callus_buf_put(&t->fn, p + n + 2, pl - n - 2) < 0 ? CALLUS_ENOMEM : 1;
		}
		t->backtrace = 0;
		return 0;
	}
	if (t->collecting) {
		if (!len || callus_pu_starts(s, len, "note: ")) {
			t->collecting = 0;
			return 1;
		}
		if (t->msg.len)
			callus_buf_putc(&t->msg, ' ');
		callus_buf_put(&t->msg, s + ind, len - ind);
		return callus_buf_status(&t->msg) < 0 ? CALLUS_ENOMEM : 1;
	}
	return 0;
}

static int human_line(state *st, const char *s, size_t len)
{
	pending *p = &st->p;
	const char *sev, *code, *msg;
	size_t cl, ml, ind = callus_pu_indent(s, len);
	callus_pu_loc loc;
	int rc;

	if (!ind && headline(s, len, &sev, &code, &cl, &msg, &ml)) {
		if ((rc = emit_pending(st)) < 0)
			return rc;
		if (skipped(msg, ml))
			return 0;
		p->active = 1;
		p->located = p->sub = 0;
		p->severity = sev;
		p->line = p->col = 0;
		callus_buf_clear(&p->code);
		callus_buf_clear(&p->msg);
		callus_buf_clear(&p->label);
		callus_buf_clear(&p->lint);
		callus_buf_clear(&p->file);
		callus_buf_put(&p->code, code, cl);
		callus_buf_put(&p->msg, msg, ml);
		return callus_buf_status(&p->code) < 0 || callus_buf_status(&p->msg) < 0 ? CALLUS_ENOMEM : 0;
	}
	/* --message-format=short: "src/main.rs:6:22: error[E0308]: msg" */
	if (!ind && callus_pu_location(s, len, &loc) && callus_pu_ends(loc.path, loc.path_len, ".rs")) {
		const char *r = s + loc.end;
		size_t rl = len - loc.end;

		callus_pu_trim(&r, &rl);
		if (!headline(r, rl, &sev, &code, &cl, &msg, &ml) || skipped(msg, ml))
			return 0;
		drop_help(msg, &ml);
		if (!code && !strcmp(sev, "warning") && (code = rust_lint(msg, ml)))
			cl = strlen(code);
		if ((rc = emit_pending(st)) < 0 || (rc = resolve(st, loc.path, loc.path_len)) < 0)
			return rc;
		return callus_pu_diag(NULL, st->diags, st->files, st->in->pc, st->path.ptr,
				    st->path.len, loc.line, loc.col, code, cl, msg, ml, sev);
	}
	if (!p->active)
		return 0;
	if (!len)
		return emit_pending(st);
	if (!ind) {
		/* "note: function defined here", "help: consider borrowing": their
		 * locations are not the error's */
		if (callus_pu_starts(s, len, "note") || callus_pu_starts(s, len, "help"))
			p->sub = 1;
		else if (callus_pu_starts(s, len, "For more information") ||
			 callus_pu_starts(s, len, "Some errors have"))
			return emit_pending(st);
		return 0;
	}
	if (callus_pu_starts(s + ind, len - ind, "--> ")) {
		if (!p->located && !p->sub && callus_pu_location(s + ind + 4, len - ind - 4, &loc)) {
			p->located = 1;
			p->line = loc.line;
			p->col = loc.col;
			callus_buf_clear(&p->file);
			return callus_buf_put(&p->file, loc.path, loc.path_len);
		}
		return 0;
	}
	if (callus_pu_starts(s + ind, len - ind, "= ")) {
		lint_of(p, s + ind, len - ind);
		return callus_buf_status(&p->lint);
	}
	if (p->located && !p->sub)
		return label_of(p, s, len);
	return 0;
}

static int line_of(state *st, const char *s, size_t len, const char *raw, size_t raw_len)
{
	size_t ind = callus_pu_indent(s, len);
	int rc;

	if (raw && raw_len && raw[0] == '{')
		return json_line(st, raw, raw_len);
	if (len && s[0] == '{')
		return json_line(st, s, len);
	/* "   Compiling shop v0.1.0 (/abs/rs)", "    Checking", "   Documenting" */
	if (ind && len > ind + 2 && s[len - 1] == ')') {
		const char *w = s + ind;
		size_t wl = len - ind;

		if (callus_pu_starts(w, wl, "Compiling ") || callus_pu_starts(w, wl, "Checking ") ||
		    callus_pu_starts(w, wl, "Documenting ") || callus_pu_starts(w, wl, "Fresh ")) {
			const char *open = NULL;
			for (const char *q = s + len - 1; q > w; q--)
				if (*q == '(') {
					open = q;
					break;
				}
			if (open && open[1] == '/')
				return add_pkgdir(st, open + 1, (size_t)(s + len - 1 - open - 1));
			return 0;
		}
		/* "Running unittests src/lib.rs (t/target/debug/deps/calc-x)" */
		if (callus_pu_starts(w, wl, "Running ")) {
			const char *open = memchr(w, '(', wl);
			long tgt = open ? callus_pu_find(open, (size_t)(s + len - open), "target/") : -1;

			if ((rc = emit_test(st)) < 0)
				return rc;
			callus_buf_clear(&st->binary);
			if (open && !callus_pu_starts(w + 8, wl - 8, "unittests ") && open > w + 9)
				callus_buf_put(&st->binary, w + 8, (size_t)(open - 1 - (w + 8)));
			if (tgt > 1 && open[1] != '/') {
				callus_buf_clear(&st->target_base);
				callus_buf_put(&st->target_base, open + 1, (size_t)tgt - 2);
			}
			return callus_buf_status(&st->binary) < 0 ||
					       callus_buf_status(&st->target_base) < 0
				       ? CALLUS_ENOMEM
				       : 0;
		}
	}
	/* the test harness */
	if (callus_pu_starts(s, len, "test ") && callus_pu_ends(s, len, " ... FAILED"))
		return st->failed.count < MAX_TESTS
			       ? callus_strlist_add_unique(&st->failed, s + 5, len - 16, NULL)
			       : 0;
	if (len == 9 && callus_pu_starts(s, len, "failures:")) {
		if ((rc = emit_test(st)) < 0)
			return rc;
		st->in_list = 1;
		return 0;
	}
	if (st->in_list) {
		if (ind == 4 && len >= 4 && !memchr(s + 4, ' ', len - 4))
			return st->failed.count < MAX_TESTS
				       ? callus_strlist_add_unique(&st->failed, s + 4, len - 4, NULL)
				       : 0;
		if (len)
			st->in_list = 0;
	}
	if (callus_pu_starts(s, len, "test result: "))
		return emit_test(st);
	if ((rc = test_line(st, s, len)) != 0)
		return rc < 0 ? rc : 0;
	return human_line(st, s, len);
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	state st;
	callus_pu_lines it;
	const char *s;
	size_t len;
	int rc;

	memset(&st, 0, sizeof(st));
	st.in = in;
	st.diags = diags;
	st.files = files;
	callus_buf_init(&st.target_base, 0);
	callus_buf_init(&st.binary, 0);
	callus_buf_init(&st.path, 0);
	callus_buf_init(&st.path2, 0);
	callus_buf_init(&st.p.code, 0);
	callus_buf_init(&st.p.msg, 0);
	callus_buf_init(&st.p.file, 0);
	callus_buf_init(&st.p.label, 0);
	callus_buf_init(&st.p.lint, 0);
	callus_buf_init(&st.t.name, 0);
	callus_buf_init(&st.t.msg, 0);
	callus_buf_init(&st.t.file, 0);
	callus_buf_init(&st.t.fn, 0);
	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0)
		if ((rc = line_of(&st, s, len, it.from_raw ? it.raw_line : NULL, it.raw_len)) < 0)
			break;
	if (rc >= 0)
		rc = emit_pending(&st);
	if (rc >= 0)
		rc = emit_test(&st);
	/* failed tests without a section of their own */
	for (size_t i = 0; rc >= 0 && i < st.failed.count; i++) {
		const char *name = st.failed.items[i];
		callus_diag *d = NULL;

		if (callus_strlist_contains(&st.reported, name, strlen(name)))
			continue;
		rc = callus_pu_diag(&d, diags, files, in->pc, NULL, 0, 0, 0, NULL, 0, "test failed", 11,
				  "error");
		if (rc >= 0 && d)
			rc = callus_pu_set_test(d, name, strlen(name));
	}
	callus_strlist_release(&st.pkgdirs);
	callus_strlist_release(&st.failed);
	callus_strlist_release(&st.reported);
	callus_buf_release(&st.target_base);
	callus_buf_release(&st.binary);
	callus_buf_release(&st.path);
	callus_buf_release(&st.path2);
	callus_buf_release(&st.p.code);
	callus_buf_release(&st.p.msg);
	callus_buf_release(&st.p.file);
	callus_buf_release(&st.p.label);
	callus_buf_release(&st.p.lint);
	callus_buf_release(&st.t.name);
	callus_buf_release(&st.t.msg);
	callus_buf_release(&st.t.file);
	callus_buf_release(&st.t.fn);
	callus_pu_frames_clear(&st.t.frames);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	const char *sev, *code, *msg;
	size_t cl, ml, ind = callus_pu_indent(s, len);
	callus_pu_loc loc;

	return (headline(s, len, &sev, &code, &cl, &msg, &ml) && code && cl == 5 && code[0] == 'E') ||
	       (callus_pu_starts(s + ind, len - ind, "--> ") &&
		callus_pu_location(s + ind + 4, len - ind - 4, &loc) &&
		callus_pu_ends(loc.path, loc.path_len, ".rs")) ||
	       callus_pu_starts(s, len, "test result: FAILED") ||
	       (callus_pu_starts(s, len, "thread '") && callus_pu_find(s, len, "' panicked at ") > 0) ||
	       callus_pu_starts(s, len, "{\"reason\":\"compiler-message\"") ||
	       callus_pu_starts(s, len, "{\"$message_type\":\"diagnostic\"") ||
	       /* a backquote looked for first: rare in any other tool's line */
	       (memchr(s, '`', len) && callus_pu_find(s, len, "error: could not compile `") >= 0);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "cargo test", "cargo build", "cargo check", "cargo clippy",
				     "rustc", NULL };

const callus_parser callus_parser_cargo = { "cargo", tools, sniff, parse, sniff_line };

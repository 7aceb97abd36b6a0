/*
 * pytest.c - pytest's terminal output.
 *
 * One diagnostic per failing test or collection/setup error.  The "short
 * test summary info" lines (FAILED tests/test_x.py::TestC::test_y - msg)
 * name the tests; the sections of the FAILURES and ERRORS blocks
 * ("____ TestC.test_y ____") hold their tracebacks in any --tb style (long,
 * auto, short, native, line): frames from "path:LINE: in fn" or `File "...",
 * line N, in fn`, the exception from the "E   " lines or the native
 * traceback's last line.  The two are matched by name; the diagnostic sits
 * at the innermost frame inside the workspace (where it broke), its code is
 * the exception type, and the test's file is an affected file.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <stdlib.h>
#include <string.h>

typedef struct section {
	callus_buf name;        /* the header's text; empty for --tb=line entries */
	int error;            /* from the ERRORS block */
	callus_pu_frames frames;
	callus_buf type, msg;   /* the exception */
	callus_buf crash_type;  /* long style's "path:LINE: ValueError" */
	callus_buf at_file;     /* --tb=line: "path:LINE: message" */
	long at_line;
	int used;
} section;

typedef struct entry {
	char *id, *msg;
	int error;
} entry;

typedef struct state {
	section *sec;
	size_t nsec, asec;
	entry *ent;
	size_t nent, aent;
	int block;           /* BLOCK_* of the last "=== title ===" banner */
	int captured;        /* inside "--- Captured stdout call ---" */
	int in_e;            /* the previous line was an "E   " line */
	int e_typed;         /* this block of them named the exception */
	int fresh;           /* native style: frames seen, not yet their exception */
	callus_buf fn;         /* long style: the last "def fn(" of the current entry */
} state;

enum { BLOCK_NONE, BLOCK_FAILURES, BLOCK_ERRORS, BLOCK_OTHER };

/* Sections and summary entries are kept until the end: the cap bounds
 * memory on huge runs; more than this many failures are counted, not kept. */
#define MAX_KEPT (CALLUS_DIAGS_MAX + 16)

static void section_release(section *s)
{
	callus_buf_release(&s->name);
	callus_pu_frames_clear(&s->frames);
	callus_buf_release(&s->type);
	callus_buf_release(&s->msg);
	callus_buf_release(&s->crash_type);
	callus_buf_release(&s->at_file);
}

static section *section_new(state *st, const char *name, size_t len, int error)
{
	section *s;

	if (st->nsec >= MAX_KEPT)
		return NULL;
	if (st->nsec == st->asec) {
		size_t n = st->asec ? st->asec * 2 : 16, bytes;
		section *p;

		if (callus_size_mul(&bytes, n, sizeof(*p)) < 0 || !(p = realloc(st->sec, bytes)))
			return NULL;
		st->sec = p;
		st->asec = n;
	}
	s = &st->sec[st->nsec];
	memset(s, 0, sizeof(*s));
	callus_buf_init(&s->name, 0);
	callus_buf_init(&s->type, 0);
	callus_buf_init(&s->msg, 0);
	callus_buf_init(&s->crash_type, 0);
	callus_buf_init(&s->at_file, 0);
	s->error = error;
	if (callus_buf_put(&s->name, name, len) < 0)
		return NULL;
	st->nsec++;
	return s;
}

static int entry_add(state *st, const char *id, size_t id_len, const char *msg, size_t msg_len,
		     int error)
{
	entry *e;

	if (st->nent >= MAX_KEPT)
		return 0;
	if (st->nent == st->aent) {
		size_t n = st->aent ? st->aent * 2 : 16, bytes;
		entry *p;

		if (callus_size_mul(&bytes, n, sizeof(*p)) < 0 || !(p = realloc(st->ent, bytes)))
			return CALLUS_ENOMEM;
		st->ent = p;
		st->aent = n;
	}
	e = &st->ent[st->nent];
	e->error = error;
	e->id = strndup(id, id_len);
	e->msg = strndup(msg, msg_len);
	if (!e->id || !e->msg) {
		free(e->id);
		free(e->msg);
		return CALLUS_ENOMEM;
	}
	st->nent++;
	return 0;
}

/* "=== FAILURES ===": the title, or 0 when the line is no banner. */
static int banner(const char *s, size_t len, const char **title, size_t *tlen)
{
	size_t i = 0, j = len;

	while (i < len && s[i] == '=')
		i++;
	while (j > i && s[j - 1] == '=')
		j--;
	if (i < 3 || len - j < 3 || j <= i + 2 || s[i] != ' ' || s[j - 1] != ' ')
		return 0;
	*title = s + i + 1;
	*tlen = j - i - 2;
	return 1;
}

/* "____ TestC.test_y ____": the name, or 0. */
static int header(const char *s, size_t len, const char **name, size_t *nlen)
{
	size_t i = 0, j = len;

	while (i < len && s[i] == '_')
		i++;
	while (j > i && s[j - 1] == '_')
		j--;
	if (i < 3 || len - j < 3 || j <= i + 2 || s[i] != ' ' || s[j - 1] != ' ')
		return 0;
	/* "_ _ _ _" separates the entries of one traceback */
	if (s[i + 1] == '_' && (j - i == 3 || s[i + 2] == ' '))
		return 0;
	*name = s + i + 1;
	*nlen = j - i - 2;
	return 1;
}

static int set_exception(section *sec, const char *s, size_t len)
{
	const char *msg;
	size_t mlen, tl = callus_pu_py_exception(s, len, &msg, &mlen);

	callus_buf_clear(&sec->type);
	callus_buf_clear(&sec->msg);
	if (tl) {
		callus_buf_put(&sec->type, s, tl);
		callus_buf_put(&sec->msg, msg, mlen);
	} else {
		callus_buf_put(&sec->msg, s, len);
	}
	return callus_buf_status(&sec->type) < 0 || callus_buf_status(&sec->msg) < 0 ? CALLUS_ENOMEM : 0;
}

/* A line inside a FAILURES/ERRORS section. */
static int section_line(state *st, section *sec, const char *s, size_t len)
{
	const char *file, *fn, *rest;
	size_t flen, fnlen, rlen, ind;
	long line;
	callus_pu_loc loc;
	int was_e = st->in_e;

	st->in_e = 0;
	if (callus_pu_starts(s, len, "----") && callus_pu_find(s, len, " Captured ") > 0) {
		st->captured = 1;
		return 0;
	}
	if (st->captured)
		return 0;
	/*
	 * "E       assert 3 == 4": of the last block of them, the exception
	 * line, else the first line.  A SyntaxError's block starts with
	 * where it is: `E     File "x.py", line 6`.
	 */
	if (len && s[0] == 'E' && (len == 1 || s[1] == ' ')) {
		const char *m;
		size_t ml;

		st->in_e = 1;
		rest = s + 1;
		rlen = len - 1;
		if (callus_pu_py_frame(rest, rlen, &file, &flen, &line, &fn, &fnlen))
			return callus_pu_frames_add(&sec->frames, fn, fnlen, file, flen, line);
		callus_pu_trim(&rest, &rlen);
		if (!was_e) {
			st->e_typed = 0;
			if (!rlen)
				return 0;
		} else if (st->e_typed || !callus_pu_py_exception(rest, rlen, &m, &ml)) {
			return 0;
		}
		st->e_typed = callus_pu_py_exception(rest, rlen, &m, &ml) != 0;
		return set_exception(sec, rest, rlen);
	}
	if (callus_pu_py_frame(s, len, &file, &flen, &line, &fn, &fnlen)) {
		st->fresh = 1;
		return callus_pu_frames_add(&sec->frames, fn, fnlen, file, flen, line);
	}
	ind = callus_pu_indent(s, len);
	if (ind >= 4 && (callus_pu_starts(s + ind, len - ind, "def ") ||
			 callus_pu_starts(s + ind, len - ind, "async def "))) {
		const char *name = s + ind + (s[ind] == 'a' ? 10 : 4);
		const char *open = memchr(name, '(', len - (size_t)(name - s));

		callus_buf_clear(&st->fn);
		if (open)
			callus_buf_put(&st->fn, name, (size_t)(open - name));
		return callus_buf_status(&st->fn);
	}
	if (ind == 0 && callus_pu_location(s, len, &loc) &&
	    callus_path_has_source_ext(loc.path, loc.path_len)) {
		int rc;

		rest = s + loc.end;
		rlen = len - loc.end;
		callus_pu_trim(&rest, &rlen);
		if (callus_pu_starts(rest, rlen, "in ")) {
			/* short style: "path:LINE: in fn" */
			rc = callus_pu_frames_add(&sec->frames, rest + 3, rlen - 3, loc.path,
						loc.path_len, loc.line);
		} else {
			const char *m;
			size_t ml;

			rc = callus_pu_frames_add(&sec->frames, st->fn.ptr, st->fn.len, loc.path,
						loc.path_len, loc.line);
			/* long style ends an entry with the exception type */
			if (rc == 0 && rlen && callus_pu_py_exception(rest, rlen, &m, &ml) == rlen) {
				callus_buf_clear(&sec->crash_type);
				rc = callus_buf_put(&sec->crash_type, rest, rlen);
			}
		}
		callus_buf_clear(&st->fn);
		return rc;
	}
	/* native style: the exception right after the frames, unindented */
	if (ind == 0 && st->fresh) {
		const char *m;
		size_t ml;

		st->fresh = 0;
		if (callus_pu_py_exception_any(s, len, &m, &ml))
			return set_exception(sec, s, len);
	}
	if (callus_pu_starts(s, len, "_ _ _"))
		callus_buf_clear(&st->fn);
	return 0;
}

/* "FAILED tests/t.py::T::test_y - msg", "ERROR tests/t.py" */
static int summary_line(state *st, const char *s, size_t len)
{
	int error = s[0] == 'E';
	size_t skip = error ? 6 : 7;
	const char *id = s + skip, *msg = "";
	size_t idlen = len - skip, mlen = 0;
	long dash = callus_pu_find(id, idlen, " - ");

	if (dash >= 0) {
		msg = id + dash + 3;
		mlen = idlen - (size_t)dash - 3;
		idlen = (size_t)dash;
	}
	callus_pu_trim(&id, &idlen);
	if (!idlen || (memchr(id, ' ', idlen) && !memchr(id, '[', idlen)))
		return 0;
	return entry_add(st, id, idlen, msg, mlen, error);
}

static int is_summary_line(const char *s, size_t len)
{
	const char *id;
	size_t n, skip;

	if (callus_pu_starts(s, len, "FAILED "))
		skip = 7;
	else if (callus_pu_starts(s, len, "ERROR "))
		skip = 6;
	else
		return 0;
	id = s + skip;
	n = len - skip;
	/* a node id: a path to a .py file, maybe "::test" */
	for (size_t i = 0; i < n && id[i] != ' '; i++)
		if (id[i] == ':' || (i + 3 <= n && !memcmp(id + i, ".py", 3)))
			return 1;
	return 0;
}

/* Compare a section's header with a node id's test part:
 * "TestC.test_y" ~ "tests/t.py::TestC::test_y", "ERROR collecting t.py" ~ "t.py". */
static int name_matches(const section *sec, const char *id)
{
	const char *name = sec->name.ptr, *tail = strstr(id, "::");
	static const char *const prefixes[] = { "ERROR collecting ", "ERROR at setup of ",
						"ERROR at teardown of " };
	size_t i, j;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i]))) {
			name += strlen(prefixes[i]);
			break;
		}
	tail = tail ? tail + 2 : id;
	for (i = 0, j = 0; name[i] && tail[j]; i++, j++) {
		if (name[i] == '.' && tail[j] == ':' && tail[j + 1] == ':')
			j++;
		else if (name[i] != tail[j])
			return 0;
	}
	return !name[i] && !tail[j];
}

/* A test id for a section without a summary line: its file (the outermost
 * frame inside the workspace) and its name, "TestC.test_y" as "TestC::test_y". */
static int derive_id(callus_buf *out, const section *sec, const callus_pathctx *pc)
{
	callus_buf rel = CALLUS_BUF_INIT;
	int depth = 0;

	callus_buf_clear(out);
	for (size_t i = 0; i < sec->frames.file.count; i++) {
		const char *f = sec->frames.file.items[i];

		if (callus_path_relativize(&rel, pc, f, strlen(f))) {
			callus_buf_put(out, rel.ptr, rel.len);
			callus_buf_puts(out, "::");
			break;
		}
	}
	for (const char *p = sec->name.ptr; *p; p++) {
		depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
		if (*p == '.' && !depth)
			callus_buf_puts(out, "::");
		else
			callus_buf_putc(out, *p);
	}
	callus_buf_release(&rel);
	return callus_buf_status(out);
}

static int emit(state *st, const callus_pathctx *pc, callus_diags *diags, callus_strlist *files,
		const entry *e, const section *sec, callus_buf *scratch)
{
	callus_buf type = CALLUS_BUF_INIT, file = CALLUS_BUF_INIT, msg = CALLUS_BUF_INIT;
	callus_pu_py_failure f = { 0 };
	const char *id;
	int rc;

	(void)st;
	if (e) {
		const char *m;
		size_t ml, tl = callus_pu_py_exception(e->msg, strlen(e->msg), &m, &ml);

		id = e->id;
		if (tl) {
			callus_buf_put(&type, e->msg, tl);
			callus_buf_put(&msg, m, ml);
		} else {
			callus_buf_puts(&msg, e->msg);
		}
	} else {
		if ((rc = derive_id(scratch, sec, pc)) < 0)
			goto out;
		id = scratch->ptr;
	}
	/* the test's file: the node id up to "::" */
	callus_buf_put(&file, id, strstr(id, "::") ? (size_t)(strstr(id, "::") - id) : strlen(id));
	if (sec) {
		if (sec->msg.len || sec->type.len) {
			callus_buf_clear(&msg);
			callus_buf_put(&msg, sec->msg.ptr, sec->msg.len);
			callus_buf_clear(&type);
			callus_buf_put(&type, sec->type.ptr, sec->type.len);
		}
		if (!type.len && sec->crash_type.len)
			callus_buf_put(&type, sec->crash_type.ptr, sec->crash_type.len);
		f.frames = &sec->frames;
		if (sec->at_file.len) {
			f.fallback_file = sec->at_file.ptr;
			f.fallback_line = sec->at_line;
		}
	}
	/* pytest rewrites assert statements: "assert 3 == 4" is an AssertionError */
	if (!type.len && callus_pu_starts(msg.ptr, msg.len, "assert "))
		callus_buf_puts(&type, "AssertionError");
	if ((rc = callus_buf_status(&type)) < 0 || (rc = callus_buf_status(&file)) < 0 ||
	    (rc = callus_buf_status(&msg)) < 0)
		goto out;
	if (!f.fallback_file && callus_path_has_source_ext(file.ptr, file.len))
		f.fallback_file = file.ptr;
	f.type = type.len ? type.ptr : NULL;
	f.msg = msg.ptr;
	f.test = id;
	f.test_file = callus_path_has_source_ext(file.ptr, file.len) ? file.ptr : NULL;
	rc = callus_pu_py_emit(diags, files, pc, &f);
out:
	callus_buf_release(&type);
	callus_buf_release(&file);
	callus_buf_release(&msg);
	return rc;
}

static int finish(state *st, const callus_pathctx *pc, callus_diags *diags, callus_strlist *files)
{
	callus_buf scratch = CALLUS_BUF_INIT;
	size_t anon = 0;
	int rc = 0;

	for (size_t i = 0; i < st->nent && rc >= 0; i++) {
		entry *e = &st->ent[i];
		section *found = NULL;

		for (size_t k = 0; k < st->nsec && !found; k++) {
			section *s = &st->sec[k];
			if (!s->used && s->name.len && s->error == e->error && name_matches(s, e->id))
				found = s;
		}
		/* --tb=line entries have no name: they come in the same order */
		while (!found && anon < st->nsec) {
			section *s = &st->sec[anon++];
			if (!s->used && !s->name.len)
				found = s;
		}
		if (found)
			found->used = 1;
		rc = emit(st, pc, diags, files, e, found, &scratch);
	}
	/* no summary (-rN, or cut off): the sections alone */
	for (size_t k = 0; k < st->nsec && rc >= 0; k++)
		if (!st->sec[k].used && st->sec[k].name.len)
			rc = emit(st, pc, diags, files, NULL, &st->sec[k], &scratch);
	callus_buf_release(&scratch);
	return rc;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	state st;
	callus_pu_lines it;
	section *cur = NULL;
	const char *s, *t;
	size_t len, tlen;
	int rc;

	memset(&st, 0, sizeof(st));
	callus_buf_init(&st.fn, 0);
	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (banner(s, len, &t, &tlen)) {
			cur = NULL;
			st.captured = 0;
			st.block = callus_pu_starts(t, tlen, "FAILURES") ? BLOCK_FAILURES
				 : callus_pu_starts(t, tlen, "ERRORS")   ? BLOCK_ERRORS
									: BLOCK_OTHER;
			continue;
		}
		if (is_summary_line(s, len)) {
			if ((rc = summary_line(&st, s, len)) < 0)
				break;
			continue;
		}
		if (st.block != BLOCK_FAILURES && st.block != BLOCK_ERRORS)
			continue;
		if (header(s, len, &t, &tlen)) {
			st.captured = 0;
			st.in_e = st.fresh = 0;
			callus_buf_clear(&st.fn);
			if (!(cur = section_new(&st, t, tlen, st.block == BLOCK_ERRORS)) &&
			    st.nsec < MAX_KEPT) {
				rc = CALLUS_ENOMEM;
				break;
			}
			continue;
		}
		if (!cur) {
			callus_pu_loc loc;
			section *sec;

			/* --tb=line: "/abs/tests/t.py:8: assert 3 == 4" */
			if (!callus_pu_location(s, len, &loc) ||
			    !callus_path_has_source_ext(loc.path, loc.path_len))
				continue;
			if (!(sec = section_new(&st, "", 0, st.block == BLOCK_ERRORS))) {
				if (st.nsec < MAX_KEPT) {
					rc = CALLUS_ENOMEM;
					break;
				}
				continue;
			}
			callus_buf_put(&sec->at_file, loc.path, loc.path_len);
			sec->at_line = loc.line;
			t = s + loc.end;
			tlen = len - loc.end;
			callus_pu_trim(&t, &tlen);
			if ((rc = set_exception(sec, t, tlen)) < 0 ||
			    (rc = callus_buf_status(&sec->at_file)) < 0)
				break;
			continue;
		}
		if ((rc = section_line(&st, cur, s, len)) < 0)
			break;
	}
	if (rc >= 0)
		rc = finish(&st, in->pc, diags, files);
	for (size_t i = 0; i < st.nsec; i++)
		section_release(&st.sec[i]);
	for (size_t i = 0; i < st.nent; i++) {
		free(st.ent[i].id);
		free(st.ent[i].msg);
	}
	free(st.sec);
	free(st.ent);
	callus_buf_release(&st.fn);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	const char *t;
	size_t tlen;

	if (is_summary_line(s, len))
		return 1;
	return banner(s, len, &t, &tlen) &&
	       (callus_pu_starts(t, tlen, "FAILURES") || callus_pu_starts(t, tlen, "ERRORS") ||
		callus_pu_starts(t, tlen, "test session starts") ||
		callus_pu_starts(t, tlen, "short test summary info"));
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "pytest", NULL };

const callus_parser callus_parser_pytest = { "pytest", tools, sniff, parse, sniff_line };

/*
 * pytraceback.c - a Python program's uncaught exception, whoever ran it
 * (a project's own check: `python3 app.py`, `./manage.py check`, a
 * script a Makefile runs).  Read by callus_parse_generic, as JUnit and TAP
 * are: no tool of its own.
 *
 *   Traceback (most recent call last):
 *     File "/abs/app.py", line 2, in <module>
 *       print(d["port"])
 *   KeyError: 'port'
 *
 * and a file that does not compile, which has no "Traceback" line when it
 * is the script itself:
 *
 *     File "/abs/s.py", line 1
 *       def f(:
 *             ^
 *   SyntaxError: '(' was never closed
 *
 * One diagnostic per exception: at the innermost frame inside the
 * workspace, code the exception type.  Of chained tracebacks ("During
 * handling of the above exception", "The above exception was the direct
 * cause") the last one counts: it is the exception raised.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

typedef struct state {
	const callus_pathctx *pc;
	callus_diags *diags;
	callus_strlist *files;
	callus_pu_frames frames; /* of the traceback being read */
	int fresh;               /* frames read, not yet their exception */
	int pending;             /* an exception read, not yet emitted */
	callus_buf type, msg;
	callus_pu_frames kept;   /* the pending exception's frames */
} state;

static int emit(state *st)
{
	callus_pu_py_failure f = { 0 };
	int rc;

	if (!st->pending)
		return 0;
	st->pending = 0;
	f.frames = &st->kept;
	f.type = st->type.ptr;
	f.msg = st->msg.ptr;
	rc = callus_pu_py_emit(st->diags, st->files, st->pc, &f);
	/* the frames inside the workspace are where it went wrong too */
	for (size_t i = 0; rc >= 0 && i < st->kept.file.count; i++)
		if (callus_parse_file(st->files, NULL, st->pc, st->kept.file.items[i],
				      strlen(st->kept.file.items[i])) < 0)
			rc = CALLUS_ENOMEM;
	callus_pu_frames_clear(&st->kept);
	return rc;
}

static int swap_frames(state *st)
{
	callus_pu_frames_clear(&st->kept);
	for (size_t i = 0; i < st->frames.fn.count; i++) {
		const char *fn = st->frames.fn.items[i], *file = st->frames.file.items[i];
		int rc = callus_pu_frames_add(&st->kept, fn, strlen(fn), file, strlen(file),
					    st->frames.line[i]);

		if (rc < 0)
			return rc;
	}
	callus_pu_frames_clear(&st->frames);
	return 0;
}

static int line_of(void *arg, const char *s, size_t len)
{
	state *st = arg;
	const char *file, *fn, *msg;
	size_t flen, fnlen, mlen, tl;
	long line;
	int rc;

	if (callus_pu_starts(s, len, "Traceback (most recent call last)")) {
		callus_pu_frames_clear(&st->frames);
		st->fresh = 0;
		return 0;
	}
	/* the exception before is not the one raised */
	if (callus_pu_starts(s, len, "During handling of the above exception") ||
	    callus_pu_starts(s, len, "The above exception was the direct cause")) {
		st->pending = 0;
		callus_pu_frames_clear(&st->kept);
		return 0;
	}
	if (callus_pu_py_frame(s, len, &file, &flen, &line, &fn, &fnlen)) {
		/* a traceback after an exception that ended none: emit that one */
		if (!st->fresh && (rc = emit(st)) < 0)
			return rc;
		st->fresh = 1;
		return callus_pu_frames_add(&st->frames, fn, fnlen, file, flen, line);
	}
	if (st->fresh && len && s[0] != ' ' &&
	    (tl = callus_pu_py_exception_any(s, len, &msg, &mlen))) {
		if ((rc = emit(st)) < 0 || (rc = swap_frames(st)) < 0)
			return rc;
		st->fresh = 0;
		callus_buf_clear(&st->type);
		callus_buf_clear(&st->msg);
		callus_buf_put(&st->type, s, tl);
		callus_buf_put(&st->msg, msg, callus_pu_cut(msg, mlen, CALLUS_PU_TEXT_MAX));
		if (callus_buf_status(&st->type) < 0 || callus_buf_status(&st->msg) < 0)
			return CALLUS_ENOMEM;
		st->pending = 1;
	}
	return 0;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	state st;
	int rc;

	memset(&st, 0, sizeof(st));
	st.pc = in->pc;
	st.diags = diags;
	st.files = files;
	callus_buf_init(&st.type, 0);
	callus_buf_init(&st.msg, 0);
	rc = callus_pu_each_line(in, line_of, &st);
	if (rc >= 0)
		rc = emit(&st);
	callus_pu_frames_clear(&st.frames);
	callus_pu_frames_clear(&st.kept);
	callus_buf_release(&st.type);
	callus_buf_release(&st.msg);
	return rc < 0 ? rc : 0;
}

/* A traceback's header, or a frame line: the exception that follows is
 * what parse reads. */
static int sniff_line(const char *s, size_t len)
{
	const char *file, *fn;
	size_t flen, fnlen;
	long line;

	return callus_pu_starts(s, len, "Traceback (most recent call last)") ||
	       callus_pu_py_frame(s, len, &file, &flen, &line, &fn, &fnlen);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

const callus_parser callus_parser_pytraceback = { "python", NULL, sniff, parse, sniff_line };

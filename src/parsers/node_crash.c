/*
 * node_crash.c - a Node.js program's uncaught error, whoever ran it (a
 * project's own check: `node scripts/check.js`, a script a Makefile
 * runs).  Read by callus_parse_generic, as JUnit and TAP are: no tool of
 * its own; node >= 12 ends such a report with its version, which is what
 * tells it.
 *
 *   /abs/app.js:1
 *   console.log(missingVar);
 *               ^
 *
 *   ReferenceError: missingVar is not defined
 *       at Object.<anonymous> (/abs/app.js:1:13)
 *       at Module._compile (node:internal/modules/cjs/loader:1521:14)
 *
 *   Node.js v20.20.2
 *
 * One diagnostic per error: its type the code, at the innermost frame
 * inside the workspace, else at the location the report opens with (a
 * SyntaxError's frames are node's own).  An error line counts only when
 * a stack frame follows it.
 */
#include "parsers/js_util.h"
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

typedef struct state {
	const callus_pathctx *pc;
	callus_diags *diags;
	callus_strlist *files;
	callus_buf where;        /* the report's opening location's file */
	long where_line;
	callus_buf type, msg;    /* the error line seen last */
	int candidate;           /* an error line, no frame after it yet */
	int confirmed;           /* ... and frames after it */
	callus_pu_frames frames; /* innermost first, in source files only */
} state;

static int ident(char c, int first)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '$' ||
	       (!first && ((c >= '0' && c <= '9') || c == '.'));
}

/* "TypeError: msg", "AssertionError [ERR_ASSERTION]: msg", "Error": the
 * type's length, 0 when the line is none; *msg is what follows. */
static size_t error_line(const char *s, size_t len, const char **msg, size_t *msg_len)
{
	size_t i = 0, tl;

	if (!len || !ident(s[0], 1))
		return 0;
	while (i < len && ident(s[i], 0))
		i++;
	tl = i;
	if (tl < 5 || (!callus_pu_ends(s, tl, "Error") && !callus_pu_ends(s, tl, "Exception")))
		return 0;
	/* node's code of the error, "[ERR_ASSERTION]" */
	if (i + 2 < len && s[i] == ' ' && s[i + 1] == '[') {
		const char *close = memchr(s + i, ']', len - i);

		if (!close)
			return 0;
		i = (size_t)(close - s) + 1;
	}
	if (i == len) {
		*msg = s + len;
		*msg_len = 0;
		return tl;
	}
	if (s[i] != ':')
		return 0;
	i++;
	while (i < len && s[i] == ' ')
		i++;
	*msg = s + i;
	*msg_len = len - i;
	return tl;
}

static int emit(state *st)
{
	const char *file = st->where.len ? st->where.ptr : NULL;
	long line = st->where_line, at;
	callus_diag *d = NULL;
	int rc = 0;

	if (!st->confirmed)
		goto out;
	if ((at = callus_pu_frames_locate(&st->frames, st->pc, 0)) >= 0) {
		file = st->frames.file.items[at];
		line = st->frames.line[at];
	}
	rc = callus_pu_diag(&d, st->diags, st->files, st->pc, file, file ? strlen(file) : 0, line,
			  0, st->type.ptr, st->type.len, st->msg.ptr, st->msg.len, "error");
	if (rc == 0 && d)
		rc = callus_pu_frames_attach(d, &st->frames, st->pc, 0);
	/* the frames inside the workspace are where it went wrong too */
	for (size_t i = 0; rc >= 0 && i < st->frames.file.count; i++)
		if (callus_parse_file(st->files, NULL, st->pc, st->frames.file.items[i],
				      strlen(st->frames.file.items[i])) < 0)
			rc = CALLUS_ENOMEM;
out:
	st->candidate = st->confirmed = 0;
	callus_pu_frames_clear(&st->frames);
	return rc;
}

static int line_of(void *arg, const char *s, size_t len)
{
	state *st = arg;
	size_t ind = callus_js_indent(s, len), flen, tl, mlen;
	callus_js_frame f;
	const char *msg;
	long line, col;
	int rc;

	/* a frame: any "at ..." line confirms the error line; a frame in a
	 * source file is kept */
	if (st->candidate && ind && callus_pu_starts(s + ind, len - ind, "at ")) {
		st->confirmed = 1;
		if (callus_js_parse_frame(s, len, 1, &f))
			return callus_pu_frames_add(&st->frames, f.fn, f.fn_len, f.file, f.file_len,
						  f.line);
		return 0;
	}
	/* node's inspect of the error's own properties, "{ code: 'E_X' }" */
	if (st->confirmed && (ind || (len && s[0] == '}')))
		return 0;
	if ((rc = emit(st)) < 0)
		return rc;
	if (!ind && (tl = error_line(s, len, &msg, &mlen))) {
		callus_buf_clear(&st->type);
		callus_buf_clear(&st->msg);
		callus_buf_put(&st->type, s, tl);
		callus_buf_put(&st->msg, msg, callus_pu_cut(msg, mlen, CALLUS_PU_TEXT_MAX));
		if (callus_buf_status(&st->type) < 0 || callus_buf_status(&st->msg) < 0)
			return CALLUS_ENOMEM;
		st->candidate = 1;
		return 0;
	}
	/* the report's first line: the place, alone on its line */
	if (!ind && !memchr(s, ' ', len) && callus_js_split_location(s, len, &flen, &line, &col) &&
	    callus_path_has_source_ext(s, flen)) {
		callus_buf_clear(&st->where);
		callus_buf_put(&st->where, s, flen);
		st->where_line = line;
		return callus_buf_status(&st->where) < 0 ? CALLUS_ENOMEM : 0;
	}
	if (callus_pu_starts(s, len, "Node.js v")) {
		callus_buf_clear(&st->where);
		st->where_line = 0;
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
	callus_buf_init(&st.where, 0);
	callus_buf_init(&st.type, 0);
	callus_buf_init(&st.msg, 0);
	rc = callus_pu_each_line(in, line_of, &st);
	if (rc >= 0)
		rc = emit(&st);
	callus_pu_frames_clear(&st.frames);
	callus_buf_release(&st.where);
	callus_buf_release(&st.type);
	callus_buf_release(&st.msg);
	return rc < 0 ? rc : 0;
}

/* "Node.js v20.20.2": node's last line under an uncaught error */
static int sniff_line(const char *s, size_t len)
{
	return callus_pu_starts(s, len, "Node.js v") && len > 9 && callus_pu_is_digit(s[9]);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

const callus_parser callus_parser_node_crash = { "node", NULL, sniff, parse, sniff_line };

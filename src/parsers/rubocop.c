/*
 * rubocop.c - RuboCop's offenses: the progress, clang, emacs and tap
 * formats print each one as
 *
 *   lib/report.rb:6:5: W: Lint/UselessAssignment: Useless assignment to variable - unused.
 *   lib/report.rb:13:5: C: [Correctable] Style/RedundantReturn: Redundant return detected.
 *
 * and `--format json` as a document (files[].offenses[]: cop_name,
 * message, severity, location.start_line and start_column).  One
 * diagnostic per offense, the cop its code.  Severities E (error) and F
 * (fatal) are errors, the others (W warning, C convention, R refactor, I
 * info) warnings: any of them fails the run by default.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

typedef struct rline {
	callus_pu_loc loc;
	char sev;
	const char *cop, *msg;
	size_t cop_len, msg_len;
} rline;

/* "Department/Name" (or the old single "Name" is not accepted: too loose). */
static size_t cop_name(const char *s, size_t len)
{
	size_t i = 0, slash = 0;

	while (i < len && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
			   (s[i] >= '0' && s[i] <= '9') || s[i] == '/' || s[i] == '_')) {
		if (s[i] == '/')
			slash = i;
		i++;
	}
	return slash && s[0] >= 'A' && s[0] <= 'Z' && i < len && s[i] == ':' ? i : 0;
}

static int offense_line(const char *s, size_t len, rline *o)
{
	size_t i;

	if (!callus_pu_location(s, len, &o->loc) || !o->loc.has_col)
		return 0;
	i = o->loc.end;
	if (i + 4 > len || s[i] != ' ' || !strchr("CWERFI", s[i + 1]) || s[i + 2] != ':' ||
	    s[i + 3] != ' ')
		return 0;
	o->sev = s[i + 1];
	i += 4;
	if (callus_pu_starts(s + i, len - i, "[Correctable] "))
		i += 14;
	else if (callus_pu_starts(s + i, len - i, "[Corrected] "))
		i += 12;
	else if (callus_pu_starts(s + i, len - i, "[Todo] "))
		i += 7;
	if (!(o->cop_len = cop_name(s + i, len - i)))
		return 0;
	o->cop = s + i;
	o->msg = s + i + o->cop_len + 1;
	o->msg_len = len - i - o->cop_len - 1;
	callus_pu_trim(&o->msg, &o->msg_len);
	return 1;
}

static const char *severity(char c)
{
	return c == 'E' || c == 'F' ? "error" : "warning";
}

/*
 * One offense.  The message's `code` quotes are dropped: the formatters
 * for a terminal (progress, the default) print them as colours, or not at
 * all, where emacs and json keep them, and one offense is one message.
 */
static int offense(const callus_parse_input *in, callus_diags *diags, callus_strlist *files,
		   const char *path, size_t path_len, long line, long col, const char *cop,
		   size_t cop_len, const char *msg, size_t msg_len, const char *sev)
{
	callus_buf m = CALLUS_BUF_INIT;
	int rc;

	for (size_t i = 0; i < msg_len; i++)
		if (msg[i] != '`')
			callus_buf_putc(&m, msg[i]);
	if ((rc = callus_buf_status(&m)) == 0)
		rc = callus_pu_diag(NULL, diags, files, in->pc, path, path_len, line, col, cop,
				  cop_len, m.ptr ? m.ptr : "", m.len, sev);
	callus_buf_release(&m);
	return rc;
}

static int parse_json(const callus_parse_input *in, json_t *doc, callus_diags *diags,
		      callus_strlist *files)
{
	json_t *list = json_object_get(doc, "files"), *file, *off;
	size_t i, k;
	int rc = 0;

	json_array_foreach(list, i, file) {
		const char *path = json_string_value(json_object_get(file, "path"));

		json_array_foreach(json_object_get(file, "offenses"), k, off) {
			const char *cop = json_string_value(json_object_get(off, "cop_name"));
			const char *msg = json_string_value(json_object_get(off, "message"));
			const char *sev = json_string_value(json_object_get(off, "severity"));
			json_t *loc = json_object_get(off, "location");

			if (!path || !msg)
				continue;
			/* "Lint/UselessAssignment: Useless assignment ...": the cop again */
			if (cop && !strncmp(msg, cop, strlen(cop)) && !strncmp(msg + strlen(cop), ": ", 2))
				msg += strlen(cop) + 2;
			if ((rc = offense(in, diags, files, path, strlen(path),
					  (long)json_integer_value(json_object_get(loc, "start_line")),
					  (long)json_integer_value(json_object_get(loc, "start_column")),
					  cop, cop ? strlen(cop) : 0, msg, strlen(msg),
					  sev && (!strcmp(sev, "error") || !strcmp(sev, "fatal"))
						  ? "error"
						  : "warning")) < 0)
				return rc;
		}
	}
	return rc;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	json_t *doc = callus_pu_json_document(in);
	callus_pu_lines it;
	const char *s;
	size_t len;
	rline o;
	int rc;

	if (doc && json_is_array(json_object_get(doc, "files"))) {
		rc = parse_json(in, doc, diags, files);
		json_decref(doc);
		return rc < 0 ? rc : 0;
	}
	json_decref(doc);
	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (!offense_line(s, len, &o))
			continue;
		if ((rc = offense(in, diags, files, o.loc.path, o.loc.path_len, o.loc.line,
				  o.loc.col, o.cop, o.cop_len, o.msg, o.msg_len, severity(o.sev))) < 0)
			break;
	}
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	rline o;

	return offense_line(s, len, &o) ||
	       /* a comma looked for first: rare in a compiler's line */
	       (memchr(s, ',', len) && callus_pu_find(s, len, " inspected, ") > 0 &&
		callus_pu_find(s, len, " offense") > 0);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "rubocop", NULL };

const callus_parser callus_parser_rubocop = { "rubocop", tools, sniff, parse, sniff_line };

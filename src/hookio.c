/*
 * hookio.c - agents' hook payloads in, agents' replies out.
 *
 * Each agent describes a finished shell command differently (see
 * docs/hooks.md); the fill_*() functions map one payload onto a
 * deja_hook_event, and the *_text() helpers take apart the strings in which
 * some agents fold the exit status into the output ("Exit code 1\n...",
 * "Output: ...\nExit Code: 2", "...<exited with exit code 1>").
 *
 * Two readers share the agent-specific decisions (which tool names are
 * shells, where the command lives, how an argv is joined): the full parse
 * builds a jansson tree of the whole payload; the peek walks the raw text,
 * skipping strings with memchr, and decodes only the few small members it
 * needs, so that a 50 MB `cat` output costs a scan, not a tree.
 */
#include "deja/hookio.h"
#include "deja/utf8.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* Cline documents contextModification as at most 50KB. */
#define CLINE_CONTEXT_MAX 50000

static const struct {
	const char *name;
	deja_agent agent;
} agent_names[] = {
	{ "claude-code", DEJA_AGENT_CLAUDE },
	{ "claude", DEJA_AGENT_CLAUDE },
	{ "codex", DEJA_AGENT_CODEX },
	{ "gemini", DEJA_AGENT_GEMINI },
	{ "copilot", DEJA_AGENT_COPILOT },
	{ "cursor", DEJA_AGENT_CURSOR },
	{ "cline", DEJA_AGENT_CLINE },
	{ "generic", DEJA_AGENT_GENERIC },
};

int deja_agent_parse(deja_agent *out, const char *name)
{
	if (!name)
		return DEJA_EINVAL;
	for (size_t i = 0; i < sizeof(agent_names) / sizeof(agent_names[0]); i++) {
		if (strcmp(name, agent_names[i].name) == 0) {
			*out = agent_names[i].agent;
			return 0;
		}
	}
	return DEJA_EINVAL;
}

const char *deja_agent_name(deja_agent a)
{
	switch (a) {
	case DEJA_AGENT_CLAUDE: return "claude-code";
	case DEJA_AGENT_CODEX: return "codex";
	case DEJA_AGENT_GEMINI: return "gemini";
	case DEJA_AGENT_COPILOT: return "copilot";
	case DEJA_AGENT_CURSOR: return "cursor";
	case DEJA_AGENT_CLINE: return "cline";
	case DEJA_AGENT_GENERIC: return "generic";
	}
	return "unknown";
}

static int agent_known(deja_agent a)
{
	return a >= DEJA_AGENT_CLAUDE && a <= DEJA_AGENT_GENERIC;
}

/* ---- small text helpers ------------------------------------------------ */

static int streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static int has_prefix(const char *p, const char *end, const char *pre)
{
	size_t n = strlen(pre);

	return (size_t)(end - p) >= n && memcmp(p, pre, n) == 0;
}

static const char *eol(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Parse a non-negative decimal at p (clamped to INT_MAX: Windows reports
 * NTSTATUS values as exit codes); *after points past it.  0 when p does not
 * start with a digit. */
static int parse_uint(const char *p, const char *end, int *out, const char **after)
{
	long v = 0;

	if (p >= end || !is_digit(*p))
		return 0;
	while (p < end && is_digit(*p)) {
		if (v < INT_MAX)
			v = v * 10 + (*p - '0');
		p++;
	}
	*out = v > INT_MAX ? INT_MAX : (int)v;
	if (after)
		*after = p;
	return 1;
}

/* The rest of the line at p is "N" plus, at most, spaces, '\r' or a short
 * parenthesised note: the status lines agents write. */
static int code_line(const char *p, const char *end, int *code)
{
	const char *le = eol(p, end), *q;

	if (!parse_uint(p, le, code, &q))
		return 0;
	while (q < le && (*q == ' ' || *q == '\r' || *q == '.'))
		q++;
	return q == le || *q == '(';
}

/* Copy s[0..n) into a new string, each NUL (which JSON_ALLOW_NUL lets
 * through from "\u0000") becoming U+FFFD, so that the C string is the whole
 * text. */
static int set_text(char **dst, size_t *dlen, const char *s, size_t n)
{
	deja_buf b = DEJA_BUF_INIT;
	const char *z;
	size_t k = 0;

	free(*dst);
	*dst = NULL;
	if (!memchr(s, '\0', n)) {
		if (!(*dst = malloc(n + 1)))
			return DEJA_ENOMEM;
		memcpy(*dst, s, n);
		(*dst)[n] = '\0';
		if (dlen)
			*dlen = n;
		return 0;
	}
	while ((z = memchr(s + k, '\0', n - k))) {
		deja_buf_put(&b, s + k, (size_t)(z - (s + k)));
		deja_buf_put(&b, "\xef\xbf\xbd", 3);
		k = (size_t)(z - s) + 1;
	}
	deja_buf_put(&b, s + k, n - k);
	if (deja_buf_status(&b) < 0) {
		deja_buf_release(&b);
		return DEJA_ENOMEM;
	}
	if (dlen)
		*dlen = b.len;
	*dst = deja_buf_detach(&b);
	return *dst ? 0 : DEJA_ENOMEM;
}

/* ---- JSON helpers --------------------------------------------------------- */

static const char *jstr(const json_t *obj, const char *key, size_t *len)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_string(v))
		return NULL;
	if (len)
		*len = json_string_length(v);
	return json_string_value(v);
}

static int jtrue(const json_t *obj, const char *key)
{
	return json_is_true(json_object_get(obj, key));
}

/* An exit status given as a number (or a numeric string); negative values
 * mean "unknown" to us, so they are refused. */
static int jcode(const json_t *v, int *out)
{
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);

		if (i < 0)
			return 0;
		*out = i > INT_MAX ? INT_MAX : (int)i;
		return 1;
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);

		if (!(d >= 0) || d != (double)(long long)d)
			return 0;
		*out = d > INT_MAX ? INT_MAX : (int)d;
		return 1;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		const char *end = s + json_string_length(v);

		return code_line(s, end, out) && memchr(s, '\n', (size_t)(end - s)) == NULL;
	}
	return 0;
}

static int jcode_any(const json_t *obj, int *out)
{
	static const char *const keys[] = { "exit_code", "exitCode", "exit_status", "returncode" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (jcode(json_object_get(obj, keys[i]), out))
			return 1;
	return 0;
}

static int set_jstr(char **dst, const json_t *obj, const char *key)
{
	size_t n;
	const char *s = jstr(obj, key, &n);

	if (!s || !n)
		return 0;
	return set_text(dst, NULL, s, n);
}

/* ---- the agent-specific decisions shared by parse and peek ------------- */

static int shell_tool(deja_agent agent, const char *name)
{
	static const char *const claude[] = { "Bash", "PowerShell", NULL };
	static const char *const codex[] = { "Bash", "shell", "shell_command", "exec_command",
					     "local_shell", "container.exec", "unified_exec", NULL };
	static const char *const gemini[] = { "run_shell_command", NULL };
	static const char *const copilot[] = { "bash", "shell", "powershell", NULL };
	static const char *const cline[] = { "execute_command", NULL };
	const char *const *list;

	switch (agent) {
	case DEJA_AGENT_CLAUDE: list = claude; break;
	case DEJA_AGENT_CODEX: list = codex; break;
	case DEJA_AGENT_GEMINI: list = gemini; break;
	case DEJA_AGENT_COPILOT: list = copilot; break;
	case DEJA_AGENT_CLINE: list = cline; break;
	default: return 0;
	}
	for (; *list; list++)
		if (streq(name, *list))
			return 1;
	return 0;
}

/* Cursor's payload has no tool name: its shell events are named. */
static int cursor_shell_event(const char *event)
{
	return !event || !*event || streq(event, "afterShellExecution") ||
	       streq(event, "beforeShellExecution");
}

static int shell_safe(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit((char)c) ||
		      strchr("_@%+=:,./-", c)))
			return 0;
	}
	return 1;
}

static int is_shell_binary(const char *argv0)
{
	static const char *const shells[] = { "sh", "bash", "zsh", "dash", "ksh", NULL };
	const char *base = strrchr(argv0, '/');

	base = base ? base + 1 : argv0;
	for (size_t i = 0; shells[i]; i++)
		if (strcmp(base, shells[i]) == 0)
			return 1;
	return 0;
}

/* A command given as a string, or as an argv (codex): `bash -lc X` is the
 * command line X; anything else is joined with shell quoting so that the
 * detector sees what a person would have typed. */
static int command_from_value(char **out, const json_t *v)
{
	deja_buf b = DEJA_BUF_INIT;
	size_t n, i;
	const char *a0, *a1;
	int rc;

	*out = NULL;
	if (json_is_string(v)) {
		if (!json_string_length(v))
			return 0;
		return set_text(out, NULL, json_string_value(v), json_string_length(v));
	}
	if (!json_is_array(v) || !(n = json_array_size(v)))
		return 0;
	for (i = 0; i < n; i++)
		if (!json_is_string(json_array_get(v, i)))
			return 0;
	a0 = json_string_value(json_array_get(v, 0));
	a1 = n > 1 ? json_string_value(json_array_get(v, 1)) : "";
	if (n >= 3 && is_shell_binary(a0) && a1[0] == '-' && a1[strlen(a1) - 1] == 'c')
		return command_from_value(out, json_array_get(v, 2));
	for (i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(v, i));

		if (i)
			deja_buf_putc(&b, ' ');
		if (shell_safe(s)) {
			deja_buf_puts(&b, s);
			continue;
		}
		deja_buf_putc(&b, '\'');
		for (; *s; s++) {
			if (*s == '\'')
				deja_buf_puts(&b, "'\\''");
			else
				deja_buf_putc(&b, *s);
		}
		deja_buf_putc(&b, '\'');
	}
	if ((rc = deja_buf_status(&b)) < 0) {
		deja_buf_release(&b);
		return rc;
	}
	rc = set_text(out, NULL, b.ptr, b.len);
	deja_buf_release(&b);
	return rc;
}

/* Where each agent keeps the command inside the tool's arguments. */
static int command_from_input(char **out, const json_t *input)
{
	json_t *v = json_object_get(input, "command");

	if (!v)
		v = json_object_get(input, "cmd"); /* codex exec_command */
	return command_from_value(out, v);
}

/* ---- loading, with repair of what agents' JSON encoders let through ---- */

static int hex4(const char *p, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (is_digit(c))
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return 0;
	}
	*out = v;
	return 1;
}

/*
 * Copy s into out, replacing what jansson refuses but a payload may carry
 * inside a string: invalid UTF-8 bytes (tool output is bytes), raw control
 * characters, and \uXXXX escapes of unpaired surrogates (JavaScript's
 * JSON.stringify writes them).  Each becomes U+FFFD.  Every structural JSON
 * character is ASCII and no replacement touches ASCII outside strings, so
 * the document's shape is unchanged.  Returns the number of repairs, or
 * DEJA_ENOMEM.
 */
static long repair(deja_buf *out, const char *s, size_t n)
{
	size_t i = 0, run = 0;
	long changes = 0;
	int in_str = 0;

#define FLUSH_AND(text, skip)                                  \
	do {                                                   \
		deja_buf_put(out, s + run, i - run);           \
		deja_buf_puts(out, text);                      \
		i += (skip);                                   \
		run = i;                                       \
		changes++;                                     \
	} while (0)

	while (i < n) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x80) {
			size_t want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;

			if (want && want <= n - i && deja_utf8_valid(s + i, want)) {
				i += want;
				continue;
			}
			FLUSH_AND("\xef\xbf\xbd", 1);
			continue;
		}
		if (!in_str) {
			in_str = c == '"';
			i++;
			continue;
		}
		if (c == '"') {
			in_str = 0;
			i++;
		} else if (c == '\\') {
			unsigned hi, lo;

			if (n - i >= 6 && s[i + 1] == 'u' && hex4(s + i + 2, &hi)) {
				if (hi >= 0xd800 && hi <= 0xdbff && n - i >= 12 && s[i + 6] == '\\' &&
				    s[i + 7] == 'u' && hex4(s + i + 8, &lo) && lo >= 0xdc00 && lo <= 0xdfff)
					i += 12;
				else if (hi >= 0xd800 && hi <= 0xdfff)
					FLUSH_AND("\\ufffd", 6);
				else
					i += 6;
			} else {
				i += n - i >= 2 ? 2 : 1;
			}
		} else if (c < 0x20) {
			FLUSH_AND("\\ufffd", 1);
		} else {
			i++;
		}
	}
#undef FLUSH_AND
	deja_buf_put(out, s + run, i - run);
	return deja_buf_status(out) < 0 ? DEJA_ENOMEM : changes;
}

/* jansson's parse, and once more after repair() when it refused. */
static json_t *load(const char *s, size_t n, size_t flags, json_error_t *jerr, int *oom)
{
	deja_buf fixed = DEJA_BUF_INIT;
	json_t *v = json_loadb(s, n, flags | JSON_ALLOW_NUL, jerr);
	long changes;

	*oom = 0;
	if (v)
		return v;
	changes = repair(&fixed, s, n);
	if (changes < 0)
		*oom = 1;
	else if (changes > 0)
		v = json_loadb(fixed.ptr, fixed.len, flags | JSON_ALLOW_NUL, jerr);
	deja_buf_release(&fixed);
	return v;
}

/* ---- the event record ---------------------------------------------------- */

void deja_hook_event_release(deja_hook_event *e)
{
	if (!e)
		return;
	free(e->event);
	free(e->command);
	free(e->output);
	free(e->cwd);
	free(e->session_id);
	*e = (deja_hook_event)DEJA_HOOK_EVENT_INIT;
}

static int set_output(deja_hook_event *e, const char *s, size_t n)
{
	return set_text(&e->output, &e->output_len, s, n);
}

/* stdout, then stderr on a line of its own. */
static int set_output2(deja_hook_event *e, const char *out, size_t on, const char *err, size_t en)
{
	deja_buf b = DEJA_BUF_INIT;
	int rc;

	if (!en)
		return set_output(e, out ? out : "", out ? on : 0);
	if (!on)
		return set_output(e, err, en);
	deja_buf_put(&b, out, on);
	if (out[on - 1] != '\n')
		deja_buf_putc(&b, '\n');
	deja_buf_put(&b, err, en);
	rc = deja_buf_status(&b) < 0 ? DEJA_ENOMEM : set_output(e, b.ptr, b.len);
	deja_buf_release(&b);
	return rc;
}

/* cwd, joined with a relative working directory the tool was given. */
static int set_cwd(deja_hook_event *e, const char *base, const char *sub)
{
	deja_buf b = DEJA_BUF_INIT;
	int rc;

	if (!sub || !*sub || (base && *sub != '/' && (!strcmp(sub, ".") || !*base)))
		sub = NULL;
	if (!sub)
		return base && *base ? set_text(&e->cwd, NULL, base, strlen(base)) : 0;
	if (*sub == '/' || !base)
		return set_text(&e->cwd, NULL, sub, strlen(sub));
	deja_buf_puts(&b, base);
	if (b.len && b.ptr[b.len - 1] != '/')
		deja_buf_putc(&b, '/');
	deja_buf_puts(&b, sub);
	rc = deja_buf_status(&b) < 0 ? DEJA_ENOMEM : set_text(&e->cwd, NULL, b.ptr, b.len);
	deja_buf_release(&b);
	return rc;
}

/* ---- agents' status framing ---------------------------------------------- */

/* Claude Code: a first line "Exit code N", then the output. */
static int claude_text(deja_hook_event *e, const char *s, size_t n, int *found)
{
	const char *end = s + n, *le;

	*found = 0;
	if (has_prefix(s, end, "Exit code ") && code_line(s + 10, end, &e->exit_code)) {
		le = eol(s, end);
		*found = 1;
		s = le < end ? le + 1 : end;
	}
	return set_output(e, s, (size_t)(end - s));
}

/*
 * Codex: a header of "Key: value" lines ("Exit code: N", "Process exited
 * with code N", "Wall time: ...", "Chunk ID: ...") ending with "Output:",
 * then the output; or the older JSON form {"output": ..., "metadata":
 * {"exit_code": N}}; or bare output.
 */
static int codex_text(deja_hook_event *e, const char *s, size_t n)
{
	const char *end = s + n, *p = s, *body = NULL;
	int code = -1, running = 0;

	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	if (p < end && *p == '{') {
		json_error_t jerr;
		int oom, rc;
		json_t *o = load(p, (size_t)(end - p), 0, &jerr, &oom);
		size_t on;
		const char *out = jstr(o, "output", &on);

		if (oom)
			return DEJA_ENOMEM;
		/* the command's own output may be JSON: only this shape counts */
		if (out && json_is_object(json_object_get(o, "metadata"))) {
			if (!jcode_any(json_object_get(o, "metadata"), &e->exit_code))
				jcode_any(o, &e->exit_code);
			rc = set_output(e, out, on);
			json_decref(o);
			return rc;
		}
		json_decref(o);
	}
	for (p = s; p < end;) {
		const char *le = eol(p, end), *colon = memchr(p, ':', (size_t)(le - p));

		if (has_prefix(p, le, "Output:")) {
			body = le < end ? le + 1 : end;
			break;
		}
		if (has_prefix(p, le, "Exit code: "))
			code_line(p + 11, le, &code);
		else if (has_prefix(p, le, "Process exited with code "))
			code_line(p + 25, le, &code);
		else if (has_prefix(p, le, "Process running with session ID"))
			running = 1;
		else if (!colon || colon - p > 32)
			break; /* not a header line: there is no header */
		p = le < end ? le + 1 : end;
	}
	if (body || code >= 0 || running)
		e->exit_code = running ? -1 : code;
	if (!body)
		body = code >= 0 || running ? p : s;
	return set_output(e, body, (size_t)(end - body));
}

/* The line before `at` (at == end or just past a '\n'), or NULL. */
static const char *prev_line(const char *start, const char *at)
{
	const char *p;

	if (at <= start)
		return NULL;
	p = at - 1; /* the '\n' ending the previous line, or end-of-text */
	if (*p != '\n')
		p = at;
	while (p > start && p[-1] != '\n')
		p--;
	return p;
}

/*
 * Gemini's run_shell_command: llmContent is "Output: ...", then status
 * lines "Error: ...", "Exit Code: N" (only when not 0), "Signal: ...",
 * "Background PIDs: ...", "Process Group PGID: N".  Older releases wrote
 * "Command: ...\nDirectory: ...\nStdout: ...\nStderr: ...\n" and always an
 * Exit Code line.  A cancelled command says so in words.
 */
static int gemini_text(deja_hook_event *e, const char *s, size_t n)
{
	static const char *const trailer[] = { "Process Group PGID: ", "Background PIDs: ",
					       "Signal: ", "Exit Code: ", NULL };
	const char *end = s + n, *cut = end, *line, *p;
	int code = -1, sig = 0, old = has_prefix(s, end, "Command: ");

	if (has_prefix(s, end, "Command was cancelled") ||
	    has_prefix(s, end, "Command was automatically cancelled")) {
		const char *marker = "output before it was cancelled:\n";
		const char *m = memmem(s, n, marker, strlen(marker));

		e->interrupted = 1;
		p = m ? m + strlen(marker) : end;
		return set_output(e, p, (size_t)(end - p));
	}
	if (has_prefix(s, end, "Command moved to background"))
		return set_output(e, "", 0);
	if (!old && !has_prefix(s, end, "Output: "))
		return set_output(e, s, n);

	/* Walk the status lines back from the end; the output may contain
	 * anything, but these come last and in this order. */
	while ((line = prev_line(s, cut))) {
		const char *le = eol(line, end);
		size_t k;

		for (k = 0; trailer[k]; k++)
			if (has_prefix(line, le, trailer[k]))
				break;
		if (!trailer[k] && !(old && has_prefix(line, le, "Error: ")))
			break;
		if (k == 3)
			code_line(line + strlen(trailer[3]), le, &code);
		else if (k == 2 && !has_prefix(line + 8, le, "(none)"))
			sig = 1;
		cut = line > s ? line - 1 : line; /* drop the '\n' before it */
	}
	if (code >= 0)
		e->exit_code = code;
	else if (!sig && !old)
		e->exit_code = 0; /* the line is only written for a non-zero code */
	if (old) {
		const char *so = memmem(s, (size_t)(cut - s), "\nStdout: ", 9);
		const char *se = NULL, *q = so;

		while (q && (q = memmem(q + 1, (size_t)(cut - q - 1), "\nStderr: ", 9)))
			se = q;
		if (so && se) {
			const char *o = so + 9, *r = se + 9;
			size_t on = (size_t)(se - o), rn = (size_t)(cut - r);

			if (on == 7 && !memcmp(o, "(empty)", 7))
				on = 0;
			if (rn == 7 && !memcmp(r, "(empty)", 7))
				rn = 0;
			return set_output2(e, o, on, r, rn);
		}
		return set_output(e, s, (size_t)(cut - s));
	}
	p = s + 8;
	if (cut - p == 7 && !memcmp(p, "(empty)", 7))
		p = cut;
	return set_output(e, p, (size_t)(cut - p));
}

/* Copilot's bash tool ends its result with "<exited with exit code N>". */
static int copilot_text(deja_hook_event *e, const char *s, size_t n, int *found)
{
	static const char mark[] = "<exited with exit code ";
	const char *end = s + n, *t = end, *m = NULL, *q = s;

	*found = 0;
	while (t > s && (t[-1] == '\n' || t[-1] == '\r' || t[-1] == ' '))
		t--;
	while ((q = memmem(q, (size_t)(t - q), mark, sizeof(mark) - 1))) {
		m = q;
		q += sizeof(mark) - 1;
	}
	if (m) {
		const char *after;
		int code;

		if (parse_uint(m + sizeof(mark) - 1, t, &code, &after) && after + 1 == t &&
		    *after == '>') {
			e->exit_code = code;
			*found = 1;
			while (m > s && (m[-1] == '\n' || m[-1] == '\r'))
				m--;
			return set_output(e, s, (size_t)(m - s));
		}
	}
	return set_output(e, s, n);
}

/*
 * Cline's execute_command: "Command executed.\nOutput:\n..." (some builds
 * add "Exit Code: N (...)"), or "Command is still running in the user's
 * terminal.\nHere's the output so far:\n...".
 */
static int cline_text(deja_hook_event *e, const char *s, size_t n, int *found, int *running)
{
	const char *end = s + n, *p, *le;

	*found = 0;
	*running = 0;
	if (has_prefix(s, end, "Command is still running")) {
		static const char so_far[] = "Here's the output so far:\n";
		const char *m = memmem(s, n, so_far, sizeof(so_far) - 1);
		const char *stop;

		*running = 1;
		p = m ? m + sizeof(so_far) - 1 : end;
		stop = memmem(p, (size_t)(end - p), "\n\nYou will be updated", 21);
		if (!stop)
			stop = memmem(p, (size_t)(end - p), "\n\nThe user provided", 19);
		return set_output(e, p, (size_t)((stop ? stop : end) - p));
	}
	if (!has_prefix(s, end, "Command executed."))
		return set_output(e, s, n);
	le = eol(s, end);
	p = le < end ? le + 1 : end;
	while (p < end) {
		le = eol(p, end);
		if (has_prefix(p, le, "Exit Code: ")) {
			*found = parse_uint(p + 11, le, &e->exit_code, NULL);
			p = le < end ? le + 1 : end;
			continue;
		}
		if (has_prefix(p, le, "Output:"))
			p = le < end ? le + 1 : end;
		break;
	}
	return set_output(e, p, (size_t)(end - p));
}


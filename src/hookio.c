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
	long long v = 0;

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
 * parenthesised note: the status lines agents write.  *code is set only
 * then. */
static int code_line(const char *p, const char *end, int *code)
{
	const char *le = eol(p, end), *q;
	int v;

	if (!parse_uint(p, le, &v, &q))
		return 0;
	while (q < le && (*q == ' ' || *q == '\r' || *q == '.'))
		q++;
	if (q != le && *q != '(')
		return 0;
	*code = v;
	return 1;
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

		/* range first: converting an out-of-range double is undefined */
		if (!(d >= 0))
			return 0;
		if (d >= (double)INT_MAX) {
			*out = INT_MAX;
			return 1;
		}
		if (d != (double)(int)d)
			return 0;
		*out = (int)d;
		return 1;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		const char *end = s + json_string_length(v);

		return !memchr(s, '\n', (size_t)(end - s)) && code_line(s, end, out);
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
 * Copy s into out, repairing what jansson refuses but a payload may carry
 * inside a string: invalid UTF-8 bytes (tool output is bytes) and \uXXXX
 * escapes of unpaired surrogates (JavaScript's JSON.stringify writes them)
 * become U+FFFD; raw control characters are escaped, so nothing of them is
 * lost; a NUL outside strings becomes a blank.  Every structural JSON character is ASCII and nothing ASCII outside
 * a string is touched, so the document keeps its shape.  Returns the
 * number of repairs, or DEJA_ENOMEM.
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
			if (c == '\0') {
				FLUSH_AND(" ", 1);
				continue;
			}
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
			/* kept, escaped: an ESC starts a colour code that later
			 * ANSI stripping must still recognise */
			deja_buf_put(out, s + run, i - run);
			deja_buf_printf(out, "\\u%04x", c);
			run = ++i;
			changes++;
		} else {
			i++;
		}
	}
#undef FLUSH_AND
	deja_buf_put(out, s + run, i - run);
	return deja_buf_status(out) < 0 ? DEJA_ENOMEM : changes;
}

/*
 * jansson's parse, and once more after repair() when it refused.  A raw NUL
 * always goes through repair(): jansson drops one that directly follows a
 * literal or a number ("true\0}" parses, "true \0}" does not), and the peek
 * must read every payload as the full parse does.
 */
static json_t *load(const char *s, size_t n, size_t flags, json_error_t *jerr, int *oom)
{
	deja_buf fixed = DEJA_BUF_INIT;
	json_t *v = NULL;
	long changes;

	*oom = 0;
	if (!memchr(s, '\0', n) && (v = json_loadb(s, n, flags | JSON_ALLOW_NUL, jerr)))
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
	/* a header is a few lines at most: do not walk a large output */
	p = s;
	for (int lines = 0; p < end && lines < 16; lines++) {
		const char *le = eol(p, end), *colon = memchr(p, ':', (size_t)(le - p));

		if (has_prefix(p, le, "Output:") && (le - p == 7 || (le - p == 8 && p[7] == '\r'))) {
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
	if (code >= 0 || running)
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
			if (parse_uint(p + 11, le, &e->exit_code, NULL))
				*found = 1;
			p = le < end ? le + 1 : end;
			continue;
		}
		if (has_prefix(p, le, "Output:"))
			p = le < end ? le + 1 : end;
		break;
	}
	return set_output(e, p, (size_t)(end - p));
}

/* ---- one filler per agent ------------------------------------------------ */

static int set_event(deja_hook_event *e, const json_t *root, const char *key, const char *alt)
{
	size_t n;
	const char *s = jstr(root, key, &n);

	if (!s && alt)
		s = jstr(root, alt, &n);
	return s ? set_text(&e->event, NULL, s, n) : 0;
}

static int fill_claude(deja_hook_event *e, const json_t *root)
{
	json_t *resp = json_object_get(root, "tool_response");
	size_t errn = 0, on = 0, en = 0;
	const char *err = jstr(root, "error", &errn), *out, *er;
	int rc, found;

	if ((rc = set_event(e, root, "hook_event_name", NULL)) < 0 ||
	    (rc = set_jstr(&e->session_id, root, "session_id")) < 0 ||
	    (rc = set_cwd(e, jstr(root, "cwd", NULL), NULL)) < 0)
		return rc;
	e->session_start = streq(e->event, "SessionStart");
	e->is_shell = shell_tool(e->agent, jstr(root, "tool_name", NULL));
	if (!e->is_shell)
		return 0;
	if ((rc = command_from_input(&e->command, json_object_get(root, "tool_input"))) < 0)
		return rc;
	e->interrupted = jtrue(root, "is_interrupt") || jtrue(resp, "interrupted");

	if (streq(e->event, "PostToolUseFailure") || (err && !resp)) {
		if ((rc = claude_text(e, err ? err : "", err ? errn : 0, &found)) < 0)
			return rc;
		if (!found && !e->interrupted) {
			e->exit_code = 1; /* a failure event that names no code */
			e->exit_inferred = 1;
		}
		return 0;
	}
	if (json_is_string(resp)) {
		rc = claude_text(e, json_string_value(resp), json_string_length(resp), &found);
	} else {
		out = jstr(resp, "stdout", &on);
		er = jstr(resp, "stderr", &en);
		rc = set_output2(e, out, on, er, en);
		found = jcode_any(resp, &e->exit_code);
	}
	/* Claude Code fires PostToolUse for Bash only when the command exited
	 * 0: a non-zero exit is a PostToolUseFailure. */
	if (rc == 0 && !found && !e->interrupted && streq(e->event, "PostToolUse"))
		e->exit_code = 0;
	return rc;
}

static int fill_codex(deja_hook_event *e, const json_t *root)
{
	json_t *in = json_object_get(root, "tool_input");
	json_t *resp = json_object_get(root, "tool_response");
	size_t on = 0, en = 0;
	const char *out, *er;
	int rc;

	if ((rc = set_event(e, root, "hook_event_name", NULL)) < 0 ||
	    (rc = set_jstr(&e->session_id, root, "session_id")) < 0)
		return rc;
	e->session_start = streq(e->event, "SessionStart");
	e->is_shell = shell_tool(e->agent, jstr(root, "tool_name", NULL));
	if ((rc = set_cwd(e, jstr(root, "cwd", NULL),
			  e->is_shell ? jstr(in, "workdir", NULL) : NULL)) < 0)
		return rc;
	if (!e->is_shell)
		return 0;
	if ((rc = command_from_input(&e->command, in)) < 0)
		return rc;
	if (json_is_string(resp))
		return codex_text(e, json_string_value(resp), json_string_length(resp));
	if (!jcode_any(resp, &e->exit_code))
		jcode_any(json_object_get(resp, "metadata"), &e->exit_code);
	out = jstr(resp, "output", &on);
	if (!out)
		out = jstr(resp, "aggregated_output", &on);
	if (out)
		return codex_text(e, out, on); /* keeps the code unless a header says otherwise */
	out = jstr(resp, "stdout", &on);
	er = jstr(resp, "stderr", &en);
	return set_output2(e, out, on, er, en);
}

/* llmContent is a string, a Part ({"text": ...}) or an array of them. */
static int gemini_content(deja_buf *b, const json_t *v)
{
	size_t i;
	json_t *x;

	if (json_is_string(v))
		return deja_buf_put(b, json_string_value(v), json_string_length(v));
	if (json_is_object(v))
		return gemini_content(b, json_object_get(v, "text"));
	json_array_foreach(v, i, x)
		gemini_content(b, x);
	return deja_buf_status(b);
}

static int fill_gemini(deja_hook_event *e, const json_t *root)
{
	json_t *in = json_object_get(root, "tool_input");
	json_t *resp = json_object_get(root, "tool_response");
	json_t *llm = json_object_get(resp, "llmContent"), *jerr = json_object_get(resp, "error");
	deja_buf text = DEJA_BUF_INIT;
	const char *dir, *disp, *msg;
	size_t dn = 0, mn = 0;
	int rc;

	if ((rc = set_event(e, root, "hook_event_name", NULL)) < 0 ||
	    (rc = set_jstr(&e->session_id, root, "session_id")) < 0)
		return rc;
	e->session_start = streq(e->event, "SessionStart");
	e->is_shell = shell_tool(e->agent, jstr(root, "tool_name", NULL));
	dir = jstr(in, "dir_path", NULL);
	if (!dir)
		dir = jstr(in, "directory", NULL);
	if ((rc = set_cwd(e, jstr(root, "cwd", NULL), e->is_shell ? dir : NULL)) < 0)
		return rc;
	if (!e->is_shell)
		return 0;
	if ((rc = command_from_input(&e->command, in)) < 0)
		return rc;

	if (json_is_string(resp))
		llm = resp;
	if (llm && (rc = gemini_content(&text, llm)) < 0)
		goto out;
	disp = jstr(resp, "returnDisplay", &dn);
	if (llm) {
		rc = gemini_text(e, text.ptr, text.len);
	} else if (disp) {
		int code;

		if (has_prefix(disp, disp + dn, "Command exited with code: ") &&
		    code_line(disp + 26, disp + dn, &code))
			e->exit_code = code;
		rc = set_output(e, disp, dn);
	}
	if (rc < 0)
		goto out;
	/* `error` is set when the shell could not run the command at all */
	msg = json_is_string(jerr) ? json_string_value(jerr) : jstr(jerr, "message", &mn);
	if (json_is_string(jerr))
		mn = json_string_length(jerr);
	if (jerr && !json_is_null(jerr) && e->exit_code <= 0) {
		e->exit_code = 1;
		e->exit_inferred = 1;
		if ((!e->output || !e->output_len) && msg)
			rc = set_output(e, msg, mn);
	}
out:
	deja_buf_release(&text);
	return rc;
}

/* toolArgs: an object, or (in the CLI's hooks) a JSON text of one. */
static json_t *copilot_args(const json_t *v, int *oom)
{
	json_error_t jerr;

	*oom = 0;
	if (json_is_string(v))
		return load(json_string_value(v), json_string_length(v), JSON_DECODE_ANY, &jerr, oom);
	return json_incref((json_t *)v);
}

static int fill_copilot(deja_hook_event *e, const json_t *root)
{
	json_t *res = json_object_get(root, "toolResult"), *jerr = json_object_get(root, "error");
	json_t *args = NULL;
	const char *text, *rtype, *cwd, *tool = jstr(root, "toolName", NULL);
	size_t tn = 0;
	int rc, oom, found = 0;

	if (!tool)
		tool = jstr(root, "tool_name", NULL);
	if ((rc = set_event(e, root, "hook_event_name", "hookEventName")) < 0 ||
	    (rc = set_jstr(&e->session_id, root, "sessionId")) < 0 ||
	    (!e->session_id && (rc = set_jstr(&e->session_id, root, "session_id")) < 0))
		return rc;
	/* The CLI's payloads do not name the event: say which one it was. */
	if (!e->event) {
		const char *ev = jerr && tool ? "postToolUseFailure" :
				 res ? "postToolUse" :
				 tool ? "preToolUse" :
				 json_object_get(root, "source") ? "sessionStart" : NULL;

		if (ev && (rc = set_text(&e->event, NULL, ev, strlen(ev))) < 0)
			return rc;
	}
	e->session_start = streq(e->event, "sessionStart") || streq(e->event, "SessionStart");
	cwd = jstr(root, "cwd", NULL);
	if ((rc = set_cwd(e, cwd ? cwd : jstr(root, "workingDirectory", NULL), NULL)) < 0)
		return rc;
	e->is_shell = shell_tool(e->agent, tool);
	if (!e->is_shell)
		return 0;
	args = copilot_args(json_object_get(root, "toolArgs"), &oom);
	if (oom || (rc = command_from_input(&e->command, args)) < 0) {
		rc = DEJA_ENOMEM;
		goto out;
	}
	text = jstr(res, "textResultForLlm", &tn);
	if (!text)
		text = jstr(res, "content", &tn);
	rtype = jstr(res, "resultType", NULL);
	if (!text && jerr) {
		text = json_is_string(jerr) ? json_string_value(jerr) : jstr(jerr, "message", &tn);
		if (json_is_string(jerr))
			tn = json_string_length(jerr);
	}
	if ((rc = copilot_text(e, text ? text : "", text ? tn : 0, &found)) < 0 || found)
		goto out;
	if (jerr || streq(rtype, "failure")) {
		e->exit_code = 1;
		e->exit_inferred = 1;
	} else if (streq(rtype, "success")) {
		e->exit_code = 0;
		e->exit_inferred = 1;
	}
out:
	json_decref(args);
	return rc;
}

static int fill_cursor(deja_hook_event *e, const json_t *root)
{
	json_t *roots = json_object_get(root, "workspace_roots");
	const char *cwd = jstr(root, "cwd", NULL), *out;
	size_t on = 0;
	int rc;

	if ((rc = set_event(e, root, "hook_event_name", NULL)) < 0 ||
	    (rc = set_jstr(&e->session_id, root, "conversation_id")) < 0 ||
	    (!e->session_id && (rc = set_jstr(&e->session_id, root, "session_id")) < 0))
		return rc;
	if (!cwd && json_is_string(json_array_get(roots, 0)))
		cwd = json_string_value(json_array_get(roots, 0));
	if ((rc = set_cwd(e, cwd, NULL)) < 0)
		return rc;
	e->session_start = streq(e->event, "sessionStart");
	/* the raw value, as the peek sees it */
	if (!cursor_shell_event(jstr(root, "hook_event_name", NULL)))
		return 0;
	if ((rc = command_from_value(&e->command, json_object_get(root, "command"))) < 0)
		return rc;
	if (!(e->is_shell = e->command != NULL))
		return 0;
	out = jstr(root, "output", &on);
	if ((rc = set_output(e, out ? out : "", out ? on : 0)) < 0)
		return rc;
	if (jcode_any(root, &e->exit_code))
		return 0;
	/* afterShellExecution carries no exit status: guess it from the text */
	if (out || streq(e->event, "afterShellExecution")) {
		e->exit_code = deja_output_looks_failed(e->output, e->output_len);
		e->exit_inferred = 1;
	}
	return 0;
}

static const json_t *cline_tool(const json_t *root)
{
	json_t *t = json_object_get(root, "postToolUse");

	return json_is_object(t) ? t : json_object_get(root, "preToolUse");
}

static int fill_cline(deja_hook_event *e, const json_t *root)
{
	json_t *roots = json_object_get(root, "workspaceRoots");
	const json_t *t = cline_tool(root);
	json_t *success;
	const char *result;
	size_t rn = 0;
	int rc, found = 0, running = 0;

	if ((rc = set_event(e, root, "hookName", NULL)) < 0 ||
	    (rc = set_jstr(&e->session_id, root, "taskId")) < 0)
		return rc;
	if (json_is_string(json_array_get(roots, 0)) &&
	    (rc = set_cwd(e, json_string_value(json_array_get(roots, 0)), NULL)) < 0)
		return rc;
	e->session_start = streq(e->event, "TaskStart") || streq(e->event, "TaskResume");
	e->is_shell = shell_tool(e->agent, jstr(t, "toolName", NULL));
	if (!e->is_shell)
		return 0;
	if ((rc = command_from_input(&e->command, json_object_get(t, "parameters"))) < 0)
		return rc;
	result = jstr(t, "result", &rn);
	if ((rc = cline_text(e, result ? result : "", result ? rn : 0, &found, &running)) < 0 ||
	    found || running || t != json_object_get(root, "postToolUse"))
		return rc;
	success = json_object_get(t, "success");
	e->exit_inferred = 1;
	if (json_is_false(success))
		e->exit_code = 1;
	else
		e->exit_code = deja_output_looks_failed(e->output, e->output_len);
	return 0;
}

static int fill_generic(deja_hook_event *e, const json_t *root)
{
	size_t on = 0, en = 0;
	const char *out, *er;
	int rc;

	if ((rc = set_event(e, root, "hook_event_name", "event")) < 0 ||
	    (rc = set_jstr(&e->session_id, root, "intent_id")) < 0 ||
	    (!e->session_id && (rc = set_jstr(&e->session_id, root, "session_id")) < 0) ||
	    (rc = set_cwd(e, jstr(root, "cwd", NULL), NULL)) < 0)
		return rc;
	e->session_start = streq(e->event, "SessionStart");
	if ((rc = command_from_value(&e->command, json_object_get(root, "command"))) < 0)
		return rc;
	if (!(e->is_shell = e->command != NULL))
		return 0;
	jcode(json_object_get(root, "exit_code"), &e->exit_code);
	out = jstr(root, "output", &on);
	if (out)
		return set_output(e, out, on);
	out = jstr(root, "stdout", &on);
	er = jstr(root, "stderr", &en);
	return set_output2(e, out, on, er, en);
}

static const char *json_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

int deja_hook_event_parse(deja_hook_event *out, deja_agent agent, const char *json, size_t len,
			  deja_error *err)
{
	deja_hook_event e = DEJA_HOOK_EVENT_INIT;
	const char *name = deja_agent_name(agent);
	json_t *root = NULL;
	json_error_t jerr;
	size_t i = 0;
	int rc = 0, oom;

	*out = (deja_hook_event)DEJA_HOOK_EVENT_INIT;
	if (!agent_known(agent))
		return deja_error_set(err, DEJA_EINVAL, "unknown agent %d", (int)agent);
	while (json && i < len && strchr(" \t\r\n", json[i]) && json[i])
		i++;
	if (!json || i == len)
		return deja_error_set(err, DEJA_EINVAL, "the %s hook payload is empty", name);
	if (!(root = load(json, len, JSON_DECODE_ANY, &jerr, &oom))) {
		if (oom)
			rc = deja_error_set(err, DEJA_ENOMEM, "out of memory reading the %s hook payload", name);
		else
			rc = deja_error_set(err, DEJA_EINVAL,
					    "the %s hook payload is not valid JSON: %s (line %d, column %d)",
					    name, jerr.text, jerr.line, jerr.column);
		goto out;
	}
	if (!json_is_object(root)) {
		rc = deja_error_set(err, DEJA_EINVAL, "the %s hook payload is %s, not a JSON object",
				    name, json_type_name(root));
		goto out;
	}
	e.agent = agent;
	switch (agent) {
	case DEJA_AGENT_CLAUDE: rc = fill_claude(&e, root); break;
	case DEJA_AGENT_CODEX: rc = fill_codex(&e, root); break;
	case DEJA_AGENT_GEMINI: rc = fill_gemini(&e, root); break;
	case DEJA_AGENT_COPILOT: rc = fill_copilot(&e, root); break;
	case DEJA_AGENT_CURSOR: rc = fill_cursor(&e, root); break;
	case DEJA_AGENT_CLINE: rc = fill_cline(&e, root); break;
	case DEJA_AGENT_GENERIC: rc = fill_generic(&e, root); break;
	}
	if (rc == 0 && !e.event)
		rc = set_text(&e.event, NULL, "", 0);
	if (rc == 0 && !e.output)
		rc = set_output(&e, "", 0);
	if (rc < 0) {
		rc = deja_error_set(err, DEJA_ENOMEM, "out of memory reading the %s hook payload", name);
		goto out;
	}
	*out = e;
	e = (deja_hook_event)DEJA_HOOK_EVENT_INIT;
out:
	deja_hook_event_release(&e);
	json_decref(root);
	return rc;
}

/* ---- the peek: the command without a tree of the payload --------------- */

/* NUL counts as a blank, as repair() makes it one for the full parse. */
static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || !*p))
		p++;
	return p;
}

/* p at an opening '"': just past the closing one, or NULL.  memchr does
 * the walking, so a megabyte of output costs microseconds. */
static const char *str_end(const char *p, const char *end)
{
	const char *q = p + 1, *r, *b;

	for (;;) {
		if (!(r = memchr(q, '"', (size_t)(end - q))))
			return NULL;
		for (b = r; b > p + 1 && b[-1] == '\\'; b--)
			;
		if ((r - b) % 2 == 0)
			return r + 1;
		q = r + 1;
	}
}

/* Just past the value starting at p, or NULL.  Brackets are counted, not
 * matched: this only has to find the end, jansson judges the rest. */
static const char *val_end(const char *p, const char *end)
{
	size_t depth = 0;
	const char *q;

	if (p >= end)
		return NULL;
	if (*p == '"')
		return str_end(p, end);
	if (*p == '{' || *p == '[') {
		while (p < end) {
			if (*p == '"') {
				if (!(p = str_end(p, end)))
					return NULL;
				continue;
			}
			if (*p == '{' || *p == '[')
				depth++;
			else if ((*p == '}' || *p == ']') && --depth == 0)
				return p + 1;
			p++;
		}
		return NULL;
	}
	for (q = p; q < end && *q && !strchr(",}] \t\r\n", *q); q++)
		;
	return q > p ? q : NULL;
}

/* A JSON fragment of the payload, decoded (and repaired) as in the full
 * parse, so that both readers agree. */
static int frag(json_t **out, const char *p, const char *e)
{
	json_error_t jerr;
	int oom;

	*out = load(p, (size_t)(e - p), JSON_DECODE_ANY, &jerr, &oom);
	return oom ? DEJA_ENOMEM : *out ? 0 : DEJA_EINVAL;
}

/* The last member named key (as jansson keeps the last of duplicates) of
 * the object at obj: its value's span, or *v NULL. */
static int member(const char *obj, const char *end, const char *key, const char **v,
		  const char **ve)
{
	size_t klen = strlen(key);
	const char *p, *ke, *q;
	int rc, match;

	*v = *ve = NULL;
	if (obj >= end || *obj != '{')
		return DEJA_EINVAL;
	p = skip_ws(obj + 1, end);
	if (p < end && *p == '}')
		return 0;
	for (;;) {
		if (p >= end || *p != '"' || !(ke = str_end(p, end)))
			return DEJA_EINVAL;
		if (memchr(p + 1, '\\', (size_t)(ke - p - 1))) {
			json_t *k;

			if ((rc = frag(&k, p, ke)) < 0)
				return rc;
			match = json_string_length(k) == klen && !memcmp(json_string_value(k), key, klen);
			json_decref(k);
		} else {
			match = (size_t)(ke - p - 2) == klen && !memcmp(p + 1, key, klen);
		}
		p = skip_ws(ke, end);
		if (p >= end || *p != ':')
			return DEJA_EINVAL;
		p = skip_ws(p + 1, end);
		if (!(q = val_end(p, end)))
			return DEJA_EINVAL;
		if (match) {
			*v = p;
			*ve = q;
		}
		p = skip_ws(q, end);
		if (p < end && *p == ',') {
			p = skip_ws(p + 1, end);
			continue;
		}
		return p < end && *p == '}' ? 0 : DEJA_EINVAL;
	}
}

/* The decoded value of a member, or *out NULL when absent. */
static int member_json(json_t **out, const char *obj, const char *end, const char *key)
{
	const char *v, *ve;
	int rc;

	*out = NULL;
	if ((rc = member(obj, end, key, &v, &ve)) < 0 || !v)
		return rc;
	return frag(out, v, ve);
}

static int peek_tool(const char **tobj, const char *root, const char *end, const char *key)
{
	const char *v, *ve;
	int rc = member(root, end, key, &v, &ve);

	*tobj = rc == 0 && v && *v == '{' ? v : NULL;
	return rc;
}

int deja_hook_peek_command(char **out, deja_agent agent, const char *json, size_t len)
{
	const char *end = json + len, *root = skip_ws(json, end), *obj = root;
	json_t *tool = NULL, *in = NULL, *args = NULL;
	int rc = 0, oom;

	*out = NULL;
	if (!agent_known(agent) || !json || root >= end || *root != '{')
		return DEJA_EINVAL;
	switch (agent) {
	case DEJA_AGENT_CLAUDE:
	case DEJA_AGENT_CODEX:
	case DEJA_AGENT_GEMINI:
	case DEJA_AGENT_COPILOT:
	case DEJA_AGENT_CLINE:
		if (agent == DEJA_AGENT_CLINE) {
			if ((rc = peek_tool(&obj, root, end, "postToolUse")) < 0 ||
			    (!obj && (rc = peek_tool(&obj, root, end, "preToolUse")) < 0) || !obj)
				goto out;
		}
		rc = member_json(&tool, obj, end,
				 agent == DEJA_AGENT_COPILOT || agent == DEJA_AGENT_CLINE ? "toolName" :
											    "tool_name");
		if (rc == 0 && !tool && agent == DEJA_AGENT_COPILOT)
			rc = member_json(&tool, obj, end, "tool_name");
		if (rc < 0 || !shell_tool(agent, json_string_value(tool)))
			goto out;
		rc = member_json(&in, obj, end,
				 agent == DEJA_AGENT_COPILOT ? "toolArgs" :
				 agent == DEJA_AGENT_CLINE ? "parameters" : "tool_input");
		if (rc < 0)
			goto out;
		if (agent == DEJA_AGENT_COPILOT) {
			args = copilot_args(in, &oom);
			if (oom) {
				rc = DEJA_ENOMEM;
				goto out;
			}
		}
		rc = command_from_input(out, args ? args : in);
		break;
	case DEJA_AGENT_CURSOR:
	case DEJA_AGENT_GENERIC:
		if (agent == DEJA_AGENT_CURSOR) {
			if ((rc = member_json(&tool, root, end, "hook_event_name")) < 0 ||
			    !cursor_shell_event(json_string_value(tool)))
				goto out;
		}
		if ((rc = member_json(&in, root, end, "command")) == 0)
			rc = command_from_value(out, in);
		break;
	}
out:
	json_decref(tool);
	json_decref(in);
	json_decref(args);
	if (rc < 0) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* ---- replies ------------------------------------------------------------- */

/* Bytes in the first max characters of valid UTF-8 s[0..n). */
static size_t cut_chars(const char *s, size_t n, size_t max)
{
	size_t chars = 0;

	for (size_t i = 0; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && chars++ == max)
			return i;
	}
	return n;
}

/* At most max bytes of valid UTF-8 s[0..n), ending between characters. */
static size_t cut_bytes(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

int deja_hook_reply(deja_buf *out, deja_agent agent, const char *event, const char *context,
		    size_t max_chars)
{
	deja_buf ctx = DEJA_BUF_INIT, ev = DEJA_BUF_INIT;
	json_t *root = NULL, *inner = NULL;
	char *text = NULL;
	size_t n;
	int rc = DEJA_ENOMEM;

	if (!agent_known(agent))
		return DEJA_EINVAL;
	if (!context || !*context || agent == DEJA_AGENT_CURSOR)
		return deja_buf_puts(out, agent == DEJA_AGENT_CLINE ? "{\"cancel\":false}" : "{}");
	if (deja_utf8_sanitize(&ctx, context, strlen(context)) < 0)
		goto out;
	n = max_chars ? cut_chars(ctx.ptr, ctx.len, max_chars) : ctx.len;
	if (agent == DEJA_AGENT_CLINE)
		n = cut_bytes(ctx.ptr, n, CLINE_CONTEXT_MAX);
	if (!(root = json_object()))
		goto out;
	/* json_object_set_new() takes a NULL value as a failure: no leak */
	switch (agent) {
	case DEJA_AGENT_CLAUDE:
	case DEJA_AGENT_CODEX:
	case DEJA_AGENT_GEMINI:
		if (!event || !*event)
			event = agent == DEJA_AGENT_GEMINI ? "AfterTool" : "PostToolUse";
		if (deja_utf8_sanitize(&ev, event, strlen(event)) < 0 || !(inner = json_object()) ||
		    json_object_set_new(inner, "hookEventName", json_stringn(ev.ptr, ev.len)) < 0 ||
		    json_object_set_new(inner, "additionalContext", json_stringn(ctx.ptr, n)) < 0 ||
		    json_object_set(root, "hookSpecificOutput", inner) < 0)
			goto out;
		break;
	case DEJA_AGENT_CLINE:
		if (json_object_set_new(root, "cancel", json_false()) < 0 ||
		    json_object_set_new(root, "contextModification", json_stringn(ctx.ptr, n)) < 0)
			goto out;
		break;
	default:
		if (json_object_set_new(root, "additionalContext", json_stringn(ctx.ptr, n)) < 0)
			goto out;
		break;
	}
	if ((text = json_dumps(root, JSON_COMPACT)))
		rc = deja_buf_puts(out, text);
out:
	free(text);
	json_decref(inner);
	json_decref(root);
	deja_buf_release(&ctx);
	deja_buf_release(&ev);
	return rc;
}

/* ---- failure from text --------------------------------------------------- */

/* Past leading blanks and ANSI CSI sequences (colour, bold). */
static const char *skip_decor(const char *p, const char *e)
{
	for (;;) {
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (e - p < 2 || p[0] != '\x1b' || p[1] != '[')
			return p;
		for (p += 2; p < e && !(*p >= 0x40 && *p <= 0x7e); p++)
			;
		if (p < e)
			p++;
	}
}

/* word (" failed", " error") preceded by a count above 0. */
static int has_count(const char *b, const char *e, const char *word)
{
	size_t wl = strlen(word);
	const char *q = b, *d;

	while ((q = memmem(q, (size_t)(e - q), word, wl))) {
		for (d = q; d > b && is_digit(d[-1]); d--)
			;
		for (; d < q; d++)
			if (*d != '0')
				return 1;
		q += wl;
	}
	return 0;
}

/* "exit code N", "exit status N", "exited with code N" with N != 0. */
static int nonzero_exit(const char *b, const char *e)
{
	static const char *const needles[] = { "xit code", "xit status", "with code", NULL };

	for (size_t i = 0; needles[i]; i++) {
		size_t nl = strlen(needles[i]);
		const char *q = b;
		int code;

		while ((q = memmem(q, (size_t)(e - q), needles[i], nl))) {
			q += nl;
			while (q < e && (*q == ':' || *q == ' '))
				q++;
			if (parse_uint(q, e, &code, NULL) && code != 0)
				return 1;
		}
	}
	return 0;
}

static int word_at(const char *b, const char *e, const char *w)
{
	size_t wl = strlen(w);
	const char *q = b;

	while ((q = memmem(q, (size_t)(e - q), w, wl))) {
		int before = q > b && ((q[-1] >= 'A' && q[-1] <= 'Z') || (q[-1] >= 'a' && q[-1] <= 'z'));
		int after = q + wl < e && ((q[wl] >= 'A' && q[wl] <= 'Z') || (q[wl] >= 'a' && q[wl] <= 'z'));

		if (!before && !after)
			return 1;
		q += wl;
	}
	return 0;
}

static int line_failed(const char *b, const char *e)
{
	static const char *const starts[] = {
		"npm ERR!", "npm error", "FAIL ", "FAIL\t", "--- FAIL", "error:", "error[", "Error:",
		"ERROR:", "ERROR ", "Traceback (most recent call last)", "make: *** ", NULL
	};
	const char *t, *q;
	int n;

	if (e > b && e[-1] == '\r')
		e--;
	t = skip_decor(b, e);
	for (size_t i = 0; starts[i]; i++)
		if (has_prefix(t, e, starts[i]))
			return 1;
	if (has_prefix(t, e, "make[") && memmem(t, (size_t)(e - t), "]: *** ", 7))
		return 1;
	if ((has_prefix(t, e, "Test") || (t < e && *t == '=')) && has_count(t, e, " failed"))
		return 1;
	if (t < e && *t == '=' && has_count(t, e, " error"))
		return 1;
	if (has_prefix(t, e, "\xe2\x9c\x96 ") && !memmem(t, (size_t)(e - t), "(0 errors", 9))
		return 1; /* eslint's "✖ N problems": warnings alone exit 0 */
	if (has_prefix(t, e, "Found ") && has_count(t, e, " error"))
		return 1;
	if (parse_uint(t, e, &n, &q) && n > 0 && has_prefix(q, e, " failing"))
		return 1; /* mocha */
	return memmem(b, (size_t)(e - b), ": error:", 8) ||
	       memmem(b, (size_t)(e - b), ": fatal error:", 14) ||
	       ((q = memmem(b, (size_t)(e - b), "error TS", 8)) && q + 8 < e && is_digit(q[8])) ||
	       memmem(b, (size_t)(e - b), "command not found", 17) || word_at(b, e, "FAILED") ||
	       nonzero_exit(b, e);
}

int deja_output_looks_failed(const char *output, size_t len)
{
	const char *p = output, *end = output + len;

	while (p && p < end) {
		const char *le = eol(p, end);

		if (line_failed(p, le))
			return 1;
		p = le + 1;
	}
	return 0;
}

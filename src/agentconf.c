/*
 * agentconf.c - deja's hook entries merged into and taken out of coding
 * agents' settings files (include/deja/agentconf.h, docs/agents.md).
 */
#include "deja/agentconf.h"
#include "deja/shellquote.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct event_spec {
	const char *name;
	const char *matcher; /* NESTED only; NULL: the group has no matcher */
	long long timeout;   /* 0: no timeout field */
};

struct agent_spec {
	const char *cmd_key;     /* the handler field holding the command line */
	const char *timeout_key; /* the handler field for the timeout, or NULL */
	const char *hook_name;   /* a "name" for the handler (Gemini), or NULL */
	int typed;               /* the handler carries "type": "command" */
	struct event_spec events[3];
	size_t nevents;
};

/*
 * The two tables are parallel: agents[i] is described by specs[i].  The
 * formats and values were checked against each agent's documentation;
 * docs/agents.md has the links.  Timeouts follow each agent's unit:
 * seconds for Claude Code and Codex, milliseconds for Gemini CLI.
 */
static const deja_agentconf_agent agents[] = {
	{ "claude-code", "claude", "Claude Code", ".claude/settings.json",
	  "PostToolUse, PostToolUseFailure, SessionStart", NULL, DEJA_AGENTCONF_NESTED },
	{ "codex", NULL, "Codex", ".codex/hooks.json", "PostToolUse, SessionStart",
	  "Codex runs hooks only in a trusted project, and only hooks you reviewed: trust this "
	  "project (trust_level = \"trusted\" under [projects.\"DIR\"] in ~/.codex/config.toml, "
	  "or answer its trust prompt), then review deja's hooks once in /hooks (again after "
	  "any change to them); 'deja doctor' checks both",
	  DEJA_AGENTCONF_NESTED },
	{ "gemini", NULL, "Gemini CLI", ".gemini/settings.json", "AfterTool, SessionStart",
	  "Gemini CLI runs a project's hooks only in a trusted folder: trust it when asked "
	  "(or set GEMINI_CLI_TRUST_WORKSPACE=true); versions before 0.26 also need "
	  "\"hooksConfig\": {\"enabled\": true}",
	  DEJA_AGENTCONF_NESTED },
	{ "copilot", NULL, "GitHub Copilot", ".github/hooks/deja.json",
	  "postToolUse, postToolUseFailure, sessionStart",
	  "the Copilot CLI runs hooks only in a trusted folder (trust it when asked, or "
	  "--trust-folder / COPILOT_ALLOW_ALL=true); the cloud agent reads .github/hooks/ from "
	  "the default branch: commit it",
	  DEJA_AGENTCONF_FLAT },
	{ "cursor", NULL, "Cursor", ".cursor/hooks.json", "afterShellExecution", NULL,
	  DEJA_AGENTCONF_FLAT },
	{ "cline", NULL, "Cline", ".clinerules/hooks/PostToolUse", "PostToolUse",
	  "the Cline CLI runs it as it is, the VS Code extension once \"Enable Hooks\" is "
	  "checked; Cline gets no session-start digest (its TaskStart output is discarded): the "
	  "lessons reach it through AGENTS.md",
	  DEJA_AGENTCONF_SCRIPT },
};

#define NAGENTS (sizeof(agents) / sizeof(agents[0]))

static const struct agent_spec specs[NAGENTS] = {
	{ "command", "timeout", NULL, 1,
	  { { "PostToolUse", "Bash", 10 }, { "PostToolUseFailure", "Bash", 10 },
	    { "SessionStart", NULL, 0 } }, 3 },
	{ "command", "timeout", NULL, 1,
	  { { "PostToolUse", "Bash", 10 }, { "SessionStart", NULL, 0 } }, 2 },
	{ "command", "timeout", "deja", 1,
	  { { "AfterTool", "run_shell_command", 10000 }, { "SessionStart", NULL, 0 } }, 2 },
	{ "bash", "timeoutSec", NULL, 1,
	  { { "postToolUse", NULL, 10 }, { "postToolUseFailure", NULL, 10 },
	    { "sessionStart", NULL, 10 } }, 3 },
	{ "command", NULL, NULL, 0, { { "afterShellExecution", NULL, 0 } }, 1 },
	{ NULL, NULL, NULL, 0, { { "PostToolUse", NULL, 0 } }, 1 },
};

const deja_agentconf_agent *deja_agentconf_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < NAGENTS; i++)
		if (!strcmp(agents[i].name, name) || (agents[i].alias && !strcmp(agents[i].alias, name)))
			return &agents[i];
	return NULL;
}

const deja_agentconf_agent *deja_agentconf_agents(size_t *count)
{
	*count = NAGENTS;
	return agents;
}

/* The spec of a, or NULL when a is not one of ours. */
static const struct agent_spec *spec_of(const deja_agentconf_agent *a)
{
	if (!a || a < agents || a >= agents + NAGENTS)
		return NULL;
	return &specs[a - agents];
}

/* ---- command lines ---- */

int deja_agentconf_command(deja_buf *out, const deja_agentconf_agent *a, const char *program)
{
	if (!spec_of(a))
		return DEJA_EINVAL;
	if (!program)
		program = "deja";
	deja_buf_clear(out);
	deja_shell_quote(out, program);
	deja_buf_printf(out, " hook %s", a->name);
	return deja_buf_status(out);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Read the first shell word of s into w (quotes removed, as sh would) and
 * return what follows it, or NULL when the quoting is unbalanced.
 */
static const char *shell_word(deja_buf *w, const char *s)
{
	while (is_blank(*s))
		s++;
	while (*s && !is_blank(*s)) {
		if (*s == '\'') {
			const char *end = strchr(s + 1, '\'');

			if (!end)
				return NULL;
			deja_buf_put(w, s + 1, (size_t)(end - s - 1));
			s = end + 1;
		} else if (*s == '"') {
			for (s++; *s != '"'; s++) {
				if (!*s)
					return NULL;
				if (*s == '\\' && s[1] && strchr("\\\"$`", s[1]))
					s++;
				deja_buf_putc(w, *s);
			}
			s++;
		} else if (*s == '\\') {
			if (!s[1])
				return NULL;
			deja_buf_putc(w, s[1]);
			s += 2;
		} else {
			deja_buf_putc(w, *s++);
		}
	}
	return s;
}

int deja_agentconf_is_deja_command(const char *cmd, const char *program)
{
	deja_buf w = DEJA_BUF_INIT;
	const char *rest;
	size_t n;
	int yes = 0;

	if (!cmd || !(rest = shell_word(&w, cmd)) || deja_buf_status(&w) < 0)
		goto out;
	n = w.len;
	if (!(!strcmp(w.ptr, "deja") || (n > 5 && !strcmp(w.ptr + n - 5, "/deja")) ||
	      (program && !strcmp(w.ptr, program))))
		goto out;
	if (!is_blank(*rest))
		goto out;
	while (is_blank(*rest))
		rest++;
	yes = !strncmp(rest, "hook", 4) && (!rest[4] || is_blank(rest[4]));
out:
	deja_buf_release(&w);
	return yes;
}

/* ---- JSON in and out ---- */

static int all_blank(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!is_blank(text[i]))
			return 0;
	return 1;
}

/* Parse the settings text into an object; a missing or blank file is an
 * empty object. */
static int parse(json_t **out, const deja_agentconf_agent *a, const char *text, size_t len,
		 deja_error *err)
{
	json_error_t jerr;
	json_t *root;

	*out = NULL;
	if (!text || all_blank(text, len)) {
		if (!(*out = json_object()))
			return deja_error_set(err, DEJA_ENOMEM, "out of memory");
		return 0;
	}
	/* Duplicate keys are refused rather than silently collapsed, since
	 * writing the file back would drop one of them. */
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return deja_error_set(err, DEJA_EINVAL, "'%s' is not valid JSON: %s (line %d, column %d)%s",
				      a->path, jerr.text, jerr.line, jerr.column,
				      strstr(jerr.text, "near '/'")
				      ? "; comments are not JSON, and deja does not edit a file "
					"it would have to drop them from"
				      : "");
	if (!json_is_object(root)) {
		json_decref(root);
		return deja_error_set(err, DEJA_EINVAL, "'%s' is not a JSON object", a->path);
	}
	*out = root;
	return 0;
}

/* The fewest significant digits (at most 17) that give back v exactly. */
static int real_digits(double v)
{
	char s[64];

	for (int p = 1; p < 17; p++) {
		snprintf(s, sizeof(s), "%.*g", p, v);
		if (strtod(s, NULL) == v)
			return p;
	}
	return 17;
}

static int max_real_digits(json_t *j)
{
	const char *key;
	json_t *v;
	size_t i;
	int p = 1, q;

	if (json_is_real(j))
		return real_digits(json_real_value(j));
	if (json_is_object(j)) {
		json_object_foreach(j, key, v)
			if ((q = max_real_digits(v)) > p)
				p = q;
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			if ((q = max_real_digits(v)) > p)
				p = q;
	}
	return p;
}

static int dump(deja_buf *out, json_t *root, deja_error *err)
{
	/* jansson prints every real with 17 digits (0.1 becomes
	 * 0.10000000000000001); the fewest digits that still give back
	 * every value in the file keep the user's numbers as they wrote
	 * them in the common case, and exact in every case. */
	size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER |
		       JSON_REAL_PRECISION(max_real_digits(root));
	char *s = json_dumps(root, flags);

	if (!s)
		return deja_error_set(err, DEJA_ENOMEM, "out of memory");
	deja_buf_clear(out);
	deja_buf_puts(out, s);
	deja_buf_putc(out, '\n');
	free(s);
	if (deja_buf_status(out) < 0)
		return deja_error_set(err, DEJA_ENOMEM, "out of memory");
	return 0;
}

/* What a JSON value is, for messages about unexpected shapes. */
static const char *kind(json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* ---- the entries ---- */

static json_t *make_handler(const struct agent_spec *s, const struct event_spec *ev, const char *cmd)
{
	json_t *h = json_object();

	if (!h)
		return NULL;
	if ((s->hook_name && json_object_set_new(h, "name", json_string(s->hook_name))) ||
	    (s->typed && json_object_set_new(h, "type", json_string("command"))) ||
	    json_object_set_new(h, s->cmd_key, json_string(cmd)) ||
	    (s->timeout_key && ev->timeout &&
	     json_object_set_new(h, s->timeout_key, json_integer(ev->timeout)))) {
		json_decref(h);
		return NULL;
	}
	return h;
}

static json_t *make_group(const struct event_spec *ev, json_t *handler)
{
	json_t *g = json_object(), *hs = json_array();

	if (!g || !hs || (ev->matcher && json_object_set_new(g, "matcher", json_string(ev->matcher))) ||
	    json_array_append(hs, handler) || json_object_set(g, "hooks", hs)) {
		json_decref(g);
		json_decref(hs);
		return NULL;
	}
	json_decref(hs);
	return g;
}

static int is_deja_handler(const struct agent_spec *s, json_t *h, const char *program)
{
	return json_is_object(h) &&
	       deja_agentconf_is_deja_command(json_string_value(json_object_get(h, s->cmd_key)), program);
}

static int matcher_is(json_t *group, const char *matcher)
{
	json_t *m = json_object_get(group, "matcher");

	if (!matcher)
		return !m;
	return json_is_string(m) && !strcmp(json_string_value(m), matcher);
}

static int is_owned_event(const struct agent_spec *s, const char *name)
{
	for (size_t i = 0; i < s->nevents; i++)
		if (!strcmp(s->events[i].name, name))
			return 1;
	return 0;
}

/* An event deja writes to must have the shape deja expects all the way
 * down, or deja could not tell what it is changing. */
static int check_event(const deja_agentconf_agent *a, const char *event, json_t *arr,
		       deja_error *err)
{
	json_t *g, *hs, *h;
	size_t i, j;

	if (!json_is_array(arr))
		return deja_error_set(err, DEJA_EINVAL, "'%s': hooks.%s is %s, not an array", a->path,
				      event, kind(arr));
	json_array_foreach(arr, i, g) {
		if (!json_is_object(g))
			return deja_error_set(err, DEJA_EINVAL, "'%s': hooks.%s[%zu] is %s, not an object",
					      a->path, event, i, kind(g));
		if (a->format != DEJA_AGENTCONF_NESTED || !(hs = json_object_get(g, "hooks")))
			continue;
		if (!json_is_array(hs))
			return deja_error_set(err, DEJA_EINVAL, "'%s': hooks.%s[%zu].hooks is %s, not an array",
					      a->path, event, i, kind(hs));
		json_array_foreach(hs, j, h)
			if (!json_is_object(h))
				return deja_error_set(err, DEJA_EINVAL,
						      "'%s': hooks.%s[%zu].hooks[%zu] is %s, not an object",
						      a->path, event, i, j, kind(h));
	}
	return 0;
}

/*
 * Make deja's entry in one event's array exactly `want`: the first deja
 * entry in a group with the right matcher (NESTED) or the first deja entry
 * (FLAT) is replaced in place, every other deja entry goes (with the
 * groups that only held them), and when there was no place for it a new
 * one is appended.  *changed is set when anything differs.
 */
static int merge_event(json_t *arr, const deja_agentconf_agent *a, const struct agent_spec *s,
		       const struct event_spec *ev, json_t *want, const char *program, int *changed)
{
	size_t ndeja = 0, gi, hi, slot_g = (size_t)-1, slot_h = 0;
	json_t *g, *hs, *h;

	if (a->format == DEJA_AGENTCONF_FLAT) {
		json_array_foreach(arr, gi, h)
			if (is_deja_handler(s, h, program) && !ndeja++)
				slot_g = gi;
		if (ndeja == 1 && json_equal(json_array_get(arr, slot_g), want))
			return 0;
		*changed = 1;
		if (slot_g == (size_t)-1)
			return json_array_append(arr, want) ? DEJA_ENOMEM : 0;
		if (json_array_set(arr, slot_g, want))
			return DEJA_ENOMEM;
		/* Backwards, so that the indices still to visit stay valid. */
		for (gi = json_array_size(arr); gi-- > slot_g + 1;)
			if (is_deja_handler(s, json_array_get(arr, gi), program))
				json_array_remove(arr, gi);
		return 0;
	}

	json_array_foreach(arr, gi, g) {
		hs = json_object_get(g, "hooks");
		json_array_foreach(hs, hi, h) {
			if (!is_deja_handler(s, h, program))
				continue;
			ndeja++;
			if (slot_g == (size_t)-1 && matcher_is(g, ev->matcher)) {
				slot_g = gi;
				slot_h = hi;
			}
		}
	}
	if (ndeja == 1 && slot_g != (size_t)-1 &&
	    json_equal(json_array_get(json_object_get(json_array_get(arr, slot_g), "hooks"), slot_h), want))
		return 0;
	*changed = 1;
	if (slot_g != (size_t)-1 &&
	    json_array_set(json_object_get(json_array_get(arr, slot_g), "hooks"), slot_h, want))
		return DEJA_ENOMEM;
	/* Backwards: at each step only indices above the current ones have
	 * moved, so (slot_g, slot_h) still names the entry just placed. */
	for (gi = json_array_size(arr); gi-- > 0;) {
		size_t removed = 0;

		hs = json_object_get(json_array_get(arr, gi), "hooks");
		for (hi = json_array_size(hs); hi-- > 0;) {
			if ((gi == slot_g && hi == slot_h) || !is_deja_handler(s, json_array_get(hs, hi), program))
				continue;
			json_array_remove(hs, hi);
			removed++;
		}
		if (removed && !json_array_size(hs))
			json_array_remove(arr, gi);
	}
	if (slot_g == (size_t)-1) {
		json_t *group = make_group(ev, want);

		if (!group || json_array_append_new(arr, group))
			return DEJA_ENOMEM;
	}
	return 0;
}

/* Take deja's entries out of one event's array; returns how many went. */
static size_t strip_event(json_t *arr, const deja_agentconf_agent *a, const struct agent_spec *s,
			  const char *program)
{
	size_t n = 0, gi, hi;

	for (gi = json_array_size(arr); gi-- > 0;) {
		json_t *g = json_array_get(arr, gi), *hs;
		size_t removed = 0;

		if (a->format == DEJA_AGENTCONF_FLAT) {
			if (is_deja_handler(s, g, program)) {
				json_array_remove(arr, gi);
				n++;
			}
			continue;
		}
		if (!json_is_object(g) || !json_is_array(hs = json_object_get(g, "hooks")))
			continue;
		for (hi = json_array_size(hs); hi-- > 0;)
			if (is_deja_handler(s, json_array_get(hs, hi), program)) {
				json_array_remove(hs, hi);
				removed++;
			}
		if (removed && !json_array_size(hs))
			json_array_remove(arr, gi);
		n += removed;
	}
	return n;
}

static int check_version(json_t *root, const deja_agentconf_agent *a, deja_error *err)
{
	json_t *v = json_object_get(root, "version");

	if (json_is_integer(v) && json_integer_value(v) == 1)
		return 0;
	return deja_error_set(err, DEJA_EINVAL,
			      "'%s' has a \"version\" other than 1, which deja does not know", a->path);
}

/* Put "version": 1 first in a FLAT file that has none; refuse another. */
static int ensure_version(json_t **root, const deja_agentconf_agent *a, int *changed, deja_error *err)
{
	json_t *fresh;

	if (json_object_get(*root, "version"))
		return check_version(*root, a, err);
	if (!(fresh = json_object()) || json_object_set_new(fresh, "version", json_integer(1)) ||
	    json_object_update(fresh, *root)) {
		json_decref(fresh);
		return deja_error_set(err, DEJA_ENOMEM, "out of memory");
	}
	json_decref(*root);
	*root = fresh;
	*changed = 1;
	return 0;
}

/* ---- Cline's script ---- */

static int is_our_script(const char *text, size_t len)
{
	const char *m = DEJA_AGENTCONF_MARKER;
	size_t ml = strlen(m);
	const char *p = text, *end = text + len;

	while (p && (size_t)(end - p) >= ml) {
		if (!memcmp(p, m, ml))
			return 1;
		p = memchr(p, '\n', (size_t)(end - p));
		if (p)
			p++;
	}
	return 0;
}

static int script_text(deja_buf *out, const deja_agentconf_agent *a, const char *program,
		       deja_error *err)
{
	deja_buf cmd = DEJA_BUF_INIT;
	int rc = deja_agentconf_command(&cmd, a, program);

	deja_buf_clear(out);
	if (!rc) {
		deja_buf_printf(out,
				"#!/bin/sh\n"
				"%s - written by 'deja init %s'; 'deja init %s --remove' deletes it.\n"
				"# %s runs it after every tool use: deja records a lesson when a check failed.\n"
				"exec %s\n",
				DEJA_AGENTCONF_MARKER, a->name, a->name, a->title, cmd.ptr);
		rc = deja_buf_status(out);
	}
	deja_buf_release(&cmd);
	return rc < 0 ? deja_error_set(err, rc, "out of memory") : 0;
}

static int merge_script(deja_buf *out, deja_agentconf_action *action, const deja_agentconf_agent *a,
			const char *text, size_t len, const char *program, deja_error *err)
{
	int rc = script_text(out, a, program, err);

	if (rc < 0)
		return rc;
	if (!text) {
		*action = DEJA_AGENTCONF_WRITE;
		return 0;
	}
	if (!is_our_script(text, len)) {
		deja_buf_clear(out);
		return deja_error_set(err, DEJA_EINVAL,
				      "'%s' exists and is not deja's (it has no \"%s\" line); deja does "
				      "not replace a hook it did not write: move it away, or run "
				      "'deja hook %s' from it (docs/agents.md)",
				      a->path, DEJA_AGENTCONF_MARKER, a->name);
	}
	if (out->len == len && !memcmp(out->ptr, text, len)) {
		deja_buf_clear(out);
		return 0;
	}
	*action = DEJA_AGENTCONF_WRITE;
	return 0;
}

/* ---- the entry points ---- */

int deja_agentconf_merge(deja_buf *out, deja_agentconf_action *action,
			 const deja_agentconf_agent *a, const char *text, size_t len,
			 const char *program, deja_error *err)
{
	const struct agent_spec *s = spec_of(a);
	deja_buf cmd = DEJA_BUF_INIT;
	json_t *root = NULL, *hooks, *want = NULL;
	int rc, changed = 0;

	*action = DEJA_AGENTCONF_KEEP;
	deja_buf_clear(out);
	if (!s)
		return deja_error_set(err, DEJA_EINVAL, "unknown agent");
	if (a->format == DEJA_AGENTCONF_SCRIPT)
		return merge_script(out, action, a, text, len, program, err);
	if ((rc = deja_agentconf_command(&cmd, a, program)) < 0) {
		rc = deja_error_set(err, rc, "out of memory");
		goto out;
	}
	if ((rc = parse(&root, a, text, len, err)) < 0)
		goto out;
	if (a->format == DEJA_AGENTCONF_FLAT && (rc = ensure_version(&root, a, &changed, err)) < 0)
		goto out;
	hooks = json_object_get(root, "hooks");
	if (!hooks) {
		if (json_object_set_new(root, "hooks", json_object()))
			goto oom;
		hooks = json_object_get(root, "hooks");
	} else if (!json_is_object(hooks)) {
		rc = deja_error_set(err, DEJA_EINVAL, "'%s': \"hooks\" is %s, not an object", a->path,
				    kind(hooks));
		goto out;
	}
	for (size_t i = 0; i < s->nevents; i++) {
		const struct event_spec *ev = &s->events[i];
		json_t *arr = json_object_get(hooks, ev->name);

		if (!arr) {
			if (json_object_set_new(hooks, ev->name, json_array()))
				goto oom;
			arr = json_object_get(hooks, ev->name);
		} else if ((rc = check_event(a, ev->name, arr, err)) < 0) {
			goto out;
		}
		json_decref(want);
		if (!(want = make_handler(s, ev, cmd.ptr)))
			goto oom;
		if (merge_event(arr, a, s, ev, want, program, &changed) < 0)
			goto oom;
	}
	if (changed) {
		if ((rc = dump(out, root, err)) < 0)
			goto out;
		*action = DEJA_AGENTCONF_WRITE;
	}
	rc = 0;
	goto out;
oom:
	rc = deja_error_set(err, DEJA_ENOMEM, "out of memory");
out:
	if (rc < 0)
		deja_buf_clear(out);
	json_decref(want);
	json_decref(root);
	deja_buf_release(&cmd);
	return rc;
}

int deja_agentconf_unmerge(deja_buf *out, deja_agentconf_action *action, size_t *removed,
			   const deja_agentconf_agent *a, const char *text, size_t len,
			   const char *program, deja_error *err)
{
	const struct agent_spec *s = spec_of(a);
	json_t *root = NULL, *hooks, *val;
	const char *key;
	void *tmp;
	size_t total = 0;
	int rc;

	*action = DEJA_AGENTCONF_KEEP;
	if (removed)
		*removed = 0;
	deja_buf_clear(out);
	if (!s)
		return deja_error_set(err, DEJA_EINVAL, "unknown agent");
	if (!text)
		return 0;
	if (a->format == DEJA_AGENTCONF_SCRIPT) {
		if (is_our_script(text, len)) {
			*action = DEJA_AGENTCONF_DELETE;
			if (removed)
				*removed = 1;
		}
		return 0;
	}
	if ((rc = parse(&root, a, text, len, err)) < 0)
		goto out;
	if (a->format == DEJA_AGENTCONF_FLAT && json_object_get(root, "version") &&
	    (rc = check_version(root, a, err)) < 0)
		goto out;
	if (!(hooks = json_object_get(root, "hooks")))
		goto out;
	if (!json_is_object(hooks)) {
		rc = deja_error_set(err, DEJA_EINVAL, "'%s': \"hooks\" is %s, not an object", a->path,
				    kind(hooks));
		goto out;
	}
	/* Every event is searched, not only deja's own, so that an entry
	 * added by hand elsewhere goes too; the shape is only insisted on
	 * where deja itself writes. */
	json_object_foreach_safe(hooks, tmp, key, val) {
		size_t n;

		if (is_owned_event(s, key)) {
			if ((rc = check_event(a, key, val, err)) < 0)
				goto out;
		} else if (!json_is_array(val)) {
			continue;
		}
		if ((n = strip_event(val, a, s, program)) && !json_array_size(val))
			json_object_del(hooks, key);
		total += n;
	}
	if (!total)
		goto out;
	if (removed)
		*removed = total;
	if (!json_object_size(hooks)) {
		json_object_del(root, "hooks");
		if (!json_object_size(root) ||
		    (a->format == DEJA_AGENTCONF_FLAT && json_object_size(root) == 1 &&
		     json_object_get(root, "version"))) {
			*action = DEJA_AGENTCONF_DELETE;
			goto out;
		}
	}
	if ((rc = dump(out, root, err)) < 0)
		goto out;
	*action = DEJA_AGENTCONF_WRITE;
out:
	if (rc < 0) {
		*action = DEJA_AGENTCONF_KEEP;
		if (removed)
			*removed = 0;
	}
	json_decref(root);
	return rc;
}

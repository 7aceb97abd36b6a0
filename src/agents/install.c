/*
 * install.c - callus's hook entries merged into and taken out of coding
 * agents' settings files (include/callus/agentconf.h, docs/agents.md): what
 * `callus init` does for every member of the agents family, from the
 * install description each one gives (its callus_agentconf_agent).
 */
#include "callus/agentconf.h"
#include "callus/migrate.h"
#include "agents/agent.h"
#include "callus/shellquote.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const callus_agentconf_agent *callus_agentconf_nth(size_t i)
{
	const callus_agent_ops *ops;

	/* the agents with something to install, in the agents' table order */
	for (size_t k = 0; (ops = callus_agent_ops_nth(k)); k++)
		if (ops->install && !i--)
			return ops->install;
	return NULL;
}

const callus_agentconf_agent *callus_agentconf_find(const char *name)
{
	const callus_agentconf_agent *a;

	if (!name)
		return NULL;
	for (size_t i = 0; (a = callus_agentconf_nth(i)); i++)
		if (!strcmp(a->name, name) || (a->alias && !strcmp(a->alias, name)))
			return a;
	return NULL;
}

/* The install description of a's agent, found by name: a caller may pass
 * a copy naming another file (cmd_init.c, for the former name's file). */
static const callus_agentconf_agent *spec_of(const callus_agentconf_agent *a)
{
	return a ? callus_agentconf_find(a->name) : NULL;
}

/* ---- command lines ---- */

int callus_agentconf_command(callus_buf *out, const callus_agentconf_agent *a, const char *program)
{
	if (!spec_of(a))
		return CALLUS_EINVAL;
	if (!program)
		program = "callus";
	callus_buf_clear(out);
	callus_shell_quote(out, program);
	callus_buf_printf(out, " hook %s", a->name);
	return callus_buf_status(out);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Read the first shell word of s into w (quotes removed, as sh would) and
 * return what follows it, or NULL when the quoting is unbalanced.
 */
static const char *shell_word(callus_buf *w, const char *s)
{
	while (is_blank(*s))
		s++;
	while (*s && !is_blank(*s)) {
		if (*s == '\'') {
			const char *end = strchr(s + 1, '\'');

			if (!end)
				return NULL;
			callus_buf_put(w, s + 1, (size_t)(end - s - 1));
			s = end + 1;
		} else if (*s == '"') {
			for (s++; *s != '"'; s++) {
				if (!*s)
					return NULL;
				if (*s == '\\' && s[1] && strchr("\\\"$`", s[1]))
					s++;
				callus_buf_putc(w, *s);
			}
			s++;
		} else if (*s == '\\') {
			if (!s[1])
				return NULL;
			callus_buf_putc(w, s[1]);
			s += 2;
		} else {
			callus_buf_putc(w, *s++);
		}
	}
	return s;
}

int callus_agentconf_is_callus_command(const char *cmd, const char *program)
{
	callus_buf w = CALLUS_BUF_INIT;
	const char *rest;
	size_t n;
	int yes = 0;

	if (!cmd || !(rest = shell_word(&w, cmd)) || callus_buf_status(&w) < 0)
		goto out;
	n = w.len;
	if (!(!strcmp(w.ptr, "callus") || (n > 7 && !strcmp(w.ptr + n - 7, "/callus")) ||
	      (program && !strcmp(w.ptr, program)) || callus_migrate_is_old_program(w.ptr)))
		goto out;
	if (!is_blank(*rest))
		goto out;
	while (is_blank(*rest))
		rest++;
	yes = !strncmp(rest, "hook", 4) && (!rest[4] || is_blank(rest[4]));
out:
	callus_buf_release(&w);
	return yes;
}

int callus_agentconf_is_plain_callus_command(const char *cmd, const char *program)
{
	callus_buf w = CALLUS_BUF_INIT;
	const char *p;
	int plain = 0;

	if (!callus_agentconf_is_callus_command(cmd, program) || !(p = shell_word(&w, cmd)))
		goto out;
	while (is_blank(*p))
		p++;
	/* after "hook", words of names only: no redirection, no second
	 * command, nothing a person added */
	for (p += 4; *p; p++)
		if (!is_blank(*p) && !(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && !strchr("._=-", *p))
			goto out;
	plain = 1;
out:
	callus_buf_release(&w);
	return plain;
}

/* A hook command of callus's former name: its first word names the old
 * program, its second is "hook". */
static int is_old_command(const char *cmd)
{
	callus_buf w = CALLUS_BUF_INIT;
	const char *rest;
	int yes = 0;

	if (cmd && (rest = shell_word(&w, cmd)) && callus_buf_status(&w) == 0 &&
	    callus_migrate_is_old_program(w.ptr) && is_blank(*rest)) {
		while (is_blank(*rest))
			rest++;
		yes = !strncmp(rest, "hook", 4) && (!rest[4] || is_blank(rest[4]));
	}
	callus_buf_release(&w);
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
static int parse(json_t **out, const callus_agentconf_agent *a, const char *text, size_t len,
		 callus_error *err)
{
	json_error_t jerr;
	json_t *root;

	*out = NULL;
	if (!text || all_blank(text, len)) {
		if (!(*out = json_object()))
			return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		return 0;
	}
	/* Duplicate keys are refused rather than silently collapsed, since
	 * writing the file back would drop one of them. */
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return callus_error_set(err, CALLUS_EINVAL, "'%s' is not valid JSON: %s (line %d, column %d)%s",
				      a->path, jerr.text, jerr.line, jerr.column,
				      strstr(jerr.text, "near '/'")
				      ? "; comments are not JSON, and callus does not edit a file "
					"it would have to drop them from"
				      : "");
	if (!json_is_object(root)) {
		json_decref(root);
		return callus_error_set(err, CALLUS_EINVAL, "'%s' is not a JSON object", a->path);
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

static int dump(callus_buf *out, json_t *root, callus_error *err)
{
	/* jansson prints every real with 17 digits (0.1 becomes
	 * 0.10000000000000001); the fewest digits that still give back
	 * every value in the file keep the user's numbers as they wrote
	 * them in the common case, and exact in every case. */
	size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER |
		       JSON_REAL_PRECISION(max_real_digits(root));
	char *s = json_dumps(root, flags);

	if (!s)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	callus_buf_clear(out);
	callus_buf_puts(out, s);
	callus_buf_putc(out, '\n');
	free(s);
	if (callus_buf_status(out) < 0)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
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

static json_t *make_handler(const callus_agentconf_agent *s, const callus_agentconf_event *ev, const char *cmd)
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

static json_t *make_group(const callus_agentconf_event *ev, json_t *handler)
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

/* An entry callus wrote (or one as callus writes it): its command runs
 * callus's hook and nothing else.  Merging replaces it, removing takes it
 * out. */
static int is_callus_handler(const callus_agentconf_agent *s, json_t *h, const char *program)
{
	return json_is_object(h) &&
	       callus_agentconf_is_plain_callus_command(
		       json_string_value(json_object_get(h, s->cmd_key)), program);
}

/* An entry of a person's that runs callus's hook with more (a redirection,
 * a second command): theirs, neither replaced nor taken out, and callus
 * adds none beside it. */
static int is_persons_callus_handler(const callus_agentconf_agent *s, json_t *h,
				     const char *program)
{
	const char *cmd = json_is_object(h) ? json_string_value(json_object_get(h, s->cmd_key))
					    : NULL;

	return callus_agentconf_is_callus_command(cmd, program) &&
	       !callus_agentconf_is_plain_callus_command(cmd, program);
}

static int matcher_is(json_t *group, const char *matcher)
{
	json_t *m = json_object_get(group, "matcher");

	if (!matcher)
		return !m;
	return json_is_string(m) && !strcmp(json_string_value(m), matcher);
}

static int is_owned_event(const callus_agentconf_agent *s, const char *name)
{
	for (size_t i = 0; i < s->nhooked; i++)
		if (!strcmp(s->hooked[i].name, name))
			return 1;
	return 0;
}

/* An event callus writes to must have the shape callus expects all the way
 * down, or callus could not tell what it is changing. */
static int check_event(const callus_agentconf_agent *a, const char *event, json_t *arr,
		       callus_error *err)
{
	json_t *g, *hs, *h;
	size_t i, j;

	if (!json_is_array(arr))
		return callus_error_set(err, CALLUS_EINVAL, "'%s': hooks.%s is %s, not an array", a->path,
				      event, kind(arr));
	json_array_foreach(arr, i, g) {
		if (!json_is_object(g))
			return callus_error_set(err, CALLUS_EINVAL, "'%s': hooks.%s[%zu] is %s, not an object",
					      a->path, event, i, kind(g));
		if (a->format != CALLUS_AGENTCONF_NESTED || !(hs = json_object_get(g, "hooks")))
			continue;
		if (!json_is_array(hs))
			return callus_error_set(err, CALLUS_EINVAL, "'%s': hooks.%s[%zu].hooks is %s, not an array",
					      a->path, event, i, kind(hs));
		json_array_foreach(hs, j, h)
			if (!json_is_object(h))
				return callus_error_set(err, CALLUS_EINVAL,
						      "'%s': hooks.%s[%zu].hooks[%zu] is %s, not an object",
						      a->path, event, i, j, kind(h));
	}
	return 0;
}

/*
 * Make callus's entry in one event's array exactly `want`: the first callus
 * entry in a group with the right matcher (NESTED) or the first callus entry
 * (FLAT) is replaced in place, every other callus entry goes (with the
 * groups that only held them), and when there was no place for it a new
 * one is appended.  *changed is set when anything differs.
 */
static int merge_event(json_t *arr, const callus_agentconf_agent *a, const callus_agentconf_agent *s,
		       const callus_agentconf_event *ev, json_t *want, const char *program, int *changed)
{
	size_t ncallus = 0, npersons = 0, gi, hi, slot_g = (size_t)-1, slot_h = 0;
	json_t *g, *hs, *h;

	/* a person's own way of running the hook in this event: left to
	 * them, callus's not added beside it (the hook would run twice) */
	json_array_foreach(arr, gi, g) {
		if (a->format == CALLUS_AGENTCONF_FLAT) {
			ncallus += (size_t)is_callus_handler(s, g, program);
			npersons += (size_t)is_persons_callus_handler(s, g, program);
			continue;
		}
		hs = json_object_get(g, "hooks");
		json_array_foreach(hs, hi, h) {
			ncallus += (size_t)is_callus_handler(s, h, program);
			npersons += (size_t)is_persons_callus_handler(s, h, program);
		}
	}
	if (npersons && !ncallus)
		return 0;
	ncallus = 0;

	if (a->format == CALLUS_AGENTCONF_FLAT) {
		json_array_foreach(arr, gi, h)
			if (is_callus_handler(s, h, program) && !ncallus++)
				slot_g = gi;
		if (ncallus == 1 && json_equal(json_array_get(arr, slot_g), want))
			return 0;
		*changed = 1;
		if (slot_g == (size_t)-1)
			return json_array_append(arr, want) ? CALLUS_ENOMEM : 0;
		if (json_array_set(arr, slot_g, want))
			return CALLUS_ENOMEM;
		/* Backwards, so that the indices still to visit stay valid. */
		for (gi = json_array_size(arr); gi-- > slot_g + 1;)
			if (is_callus_handler(s, json_array_get(arr, gi), program))
				json_array_remove(arr, gi);
		return 0;
	}

	json_array_foreach(arr, gi, g) {
		hs = json_object_get(g, "hooks");
		json_array_foreach(hs, hi, h) {
			if (!is_callus_handler(s, h, program))
				continue;
			ncallus++;
			if (slot_g == (size_t)-1 && matcher_is(g, ev->matcher)) {
				slot_g = gi;
				slot_h = hi;
			}
		}
	}
	if (ncallus == 1 && slot_g != (size_t)-1 &&
	    json_equal(json_array_get(json_object_get(json_array_get(arr, slot_g), "hooks"), slot_h), want))
		return 0;
	*changed = 1;
	if (slot_g != (size_t)-1 &&
	    json_array_set(json_object_get(json_array_get(arr, slot_g), "hooks"), slot_h, want))
		return CALLUS_ENOMEM;
	/* Backwards: at each step only indices above the current ones have
	 * moved, so (slot_g, slot_h) still names the entry just placed. */
	for (gi = json_array_size(arr); gi-- > 0;) {
		size_t removed = 0;

		hs = json_object_get(json_array_get(arr, gi), "hooks");
		for (hi = json_array_size(hs); hi-- > 0;) {
			if ((gi == slot_g && hi == slot_h) || !is_callus_handler(s, json_array_get(hs, hi), program))
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
			return CALLUS_ENOMEM;
	}
	return 0;
}

/* Take callus's entries out of one event's array; returns how many went. */
static size_t strip_event(json_t *arr, const callus_agentconf_agent *a, const callus_agentconf_agent *s,
			  const char *program)
{
	size_t n = 0, gi, hi;

	for (gi = json_array_size(arr); gi-- > 0;) {
		json_t *g = json_array_get(arr, gi), *hs;
		size_t removed = 0;

		if (a->format == CALLUS_AGENTCONF_FLAT) {
			if (is_callus_handler(s, g, program)) {
				json_array_remove(arr, gi);
				n++;
			}
			continue;
		}
		if (!json_is_object(g) || !json_is_array(hs = json_object_get(g, "hooks")))
			continue;
		for (hi = json_array_size(hs); hi-- > 0;)
			if (is_callus_handler(s, json_array_get(hs, hi), program)) {
				json_array_remove(hs, hi);
				removed++;
			}
		if (removed && !json_array_size(hs))
			json_array_remove(arr, gi);
		n += removed;
	}
	return n;
}

static int check_version(json_t *root, const callus_agentconf_agent *a, callus_error *err)
{
	json_t *v = json_object_get(root, "version");

	if (json_is_integer(v) && json_integer_value(v) == 1)
		return 0;
	return callus_error_set(err, CALLUS_EINVAL,
			      "'%s' has a \"version\" other than 1, which callus does not know", a->path);
}

/* Put "version": 1 first in a FLAT file that has none; refuse another. */
static int ensure_version(json_t **root, const callus_agentconf_agent *a, int *changed, callus_error *err)
{
	json_t *fresh;

	if (json_object_get(*root, "version"))
		return check_version(*root, a, err);
	if (!(fresh = json_object()) || json_object_set_new(fresh, "version", json_integer(1)) ||
	    json_object_update(fresh, *root)) {
		json_decref(fresh);
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	}
	json_decref(*root);
	*root = fresh;
	*changed = 1;
	return 0;
}

/* ---- Cline's script ---- */

static int is_our_script(const char *text, size_t len)
{
	const char *m = CALLUS_AGENTCONF_MARKER;
	size_t ml = strlen(m);
	const char *p = text, *end = text + len;

	while (p && (size_t)(end - p) >= ml) {
		if (!memcmp(p, m, ml))
			return 1;
		p = memchr(p, '\n', (size_t)(end - p));
		if (p)
			p++;
	}
	return callus_migrate_is_old_script(text, len);
}

/* Whether a script of callus's (is_our_script) holds nothing else: a
 * shebang, comments, blank lines and one `exec` of callus's hook. */
static int is_only_callus_script(const char *text, size_t len, const char *program)
{
	const char *p = text, *end = text + len;
	int ok = 1;

	if (callus_migrate_is_old_script(text, len))
		return 1;
	while (ok && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = strndup(p, n);
		const char *l = line;

		if (!line)
			return 0;
		while (is_blank(*l))
			l++;
		ok = !*l || *l == '#' ||
		     (!strncmp(l, "exec ", 5) &&
		      callus_agentconf_is_plain_callus_command(l + 5, program));
		free(line);
		p = nl ? nl + 1 : end;
	}
	return ok;
}

static int script_text(callus_buf *out, const callus_agentconf_agent *a, const char *program,
		       callus_error *err)
{
	callus_buf cmd = CALLUS_BUF_INIT;
	int rc = callus_agentconf_command(&cmd, a, program);

	callus_buf_clear(out);
	if (!rc) {
		callus_buf_printf(out,
				"#!/bin/sh\n"
				"%s - written by 'callus init %s'; 'callus init %s --remove' deletes it.\n"
				"# %s runs it after every tool use: callus records a lesson when a check failed.\n"
				"exec %s\n",
				CALLUS_AGENTCONF_MARKER, a->name, a->name, a->title, cmd.ptr);
		rc = callus_buf_status(out);
	}
	callus_buf_release(&cmd);
	return rc < 0 ? callus_error_set(err, rc, "out of memory") : 0;
}

static int merge_script(callus_buf *out, callus_agentconf_action *action, const callus_agentconf_agent *a,
			const char *text, size_t len, const char *program, callus_error *err)
{
	int rc = script_text(out, a, program, err);

	if (rc < 0)
		return rc;
	if (!text) {
		*action = CALLUS_AGENTCONF_WRITE;
		return 0;
	}
	if (!is_our_script(text, len)) {
		callus_buf_clear(out);
		return callus_error_set(err, CALLUS_EINVAL,
				      "'%s' exists and is not callus's (it has no \"%s\" line); callus does "
				      "not replace a hook it did not write: move it away, or run "
				      "'callus hook %s' from it (docs/agents.md)",
				      a->path, CALLUS_AGENTCONF_MARKER, a->name);
	}
	if (out->len == len && !memcmp(out->ptr, text, len)) {
		callus_buf_clear(out);
		return 0;
	}
	*action = CALLUS_AGENTCONF_WRITE;
	return 0;
}

/* ---- the entry points ---- */

int callus_agentconf_merge(callus_buf *out, callus_agentconf_action *action,
			 const callus_agentconf_agent *a, const char *text, size_t len,
			 const char *program, callus_error *err)
{
	const callus_agentconf_agent *s = spec_of(a);
	callus_buf cmd = CALLUS_BUF_INIT;
	json_t *root = NULL, *hooks, *want = NULL;
	int rc, changed = 0;

	*action = CALLUS_AGENTCONF_KEEP;
	callus_buf_clear(out);
	if (!s)
		return callus_error_set(err, CALLUS_EINVAL, "unknown agent");
	if (a->format == CALLUS_AGENTCONF_SCRIPT)
		return merge_script(out, action, a, text, len, program, err);
	if ((rc = callus_agentconf_command(&cmd, a, program)) < 0) {
		rc = callus_error_set(err, rc, "out of memory");
		goto out;
	}
	if ((rc = parse(&root, a, text, len, err)) < 0)
		goto out;
	if (a->format == CALLUS_AGENTCONF_FLAT && (rc = ensure_version(&root, a, &changed, err)) < 0)
		goto out;
	hooks = json_object_get(root, "hooks");
	if (!hooks) {
		if (json_object_set_new(root, "hooks", json_object()))
			goto oom;
		hooks = json_object_get(root, "hooks");
	} else if (!json_is_object(hooks)) {
		rc = callus_error_set(err, CALLUS_EINVAL, "'%s': \"hooks\" is %s, not an object", a->path,
				    kind(hooks));
		goto out;
	}
	for (size_t i = 0; i < s->nhooked; i++) {
		const callus_agentconf_event *ev = &s->hooked[i];
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
		*action = CALLUS_AGENTCONF_WRITE;
	}
	rc = 0;
	goto out;
oom:
	rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
out:
	if (rc < 0)
		callus_buf_clear(out);
	json_decref(want);
	json_decref(root);
	callus_buf_release(&cmd);
	return rc;
}

int callus_agentconf_unmerge(callus_buf *out, callus_agentconf_action *action, size_t *removed,
			   const callus_agentconf_agent *a, const char *text, size_t len,
			   const char *program, callus_error *err)
{
	const callus_agentconf_agent *s = spec_of(a);
	json_t *root = NULL, *hooks, *val;
	const char *key;
	void *tmp;
	size_t total = 0;
	int rc;

	*action = CALLUS_AGENTCONF_KEEP;
	if (removed)
		*removed = 0;
	callus_buf_clear(out);
	if (!s)
		return callus_error_set(err, CALLUS_EINVAL, "unknown agent");
	if (!text)
		return 0;
	if (a->format == CALLUS_AGENTCONF_SCRIPT) {
		if (!is_our_script(text, len))
			return 0;
		/* deleted only when it is callus's whole: a line a person
		 * added would go with it */
		if (!is_only_callus_script(text, len, program))
			return callus_error_set(err, CALLUS_EINVAL,
						"'%s' has lines of its own besides callus's hook: "
						"callus does not delete it (take callus's 'exec' line "
						"out by hand)",
						a->path);
		*action = CALLUS_AGENTCONF_DELETE;
		if (removed)
			*removed = 1;
		return 0;
	}
	if ((rc = parse(&root, a, text, len, err)) < 0)
		goto out;
	if (a->format == CALLUS_AGENTCONF_FLAT && json_object_get(root, "version") &&
	    (rc = check_version(root, a, err)) < 0)
		goto out;
	if (!(hooks = json_object_get(root, "hooks")))
		goto out;
	if (!json_is_object(hooks)) {
		rc = callus_error_set(err, CALLUS_EINVAL, "'%s': \"hooks\" is %s, not an object", a->path,
				    kind(hooks));
		goto out;
	}
	/* Every event is searched, not only callus's own, so that an entry
	 * added by hand elsewhere goes too; the shape is only insisted on
	 * where callus itself writes. */
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
		    (a->format == CALLUS_AGENTCONF_FLAT && json_object_size(root) == 1 &&
		     json_object_get(root, "version"))) {
			*action = CALLUS_AGENTCONF_DELETE;
			goto out;
		}
	}
	if ((rc = dump(out, root, err)) < 0)
		goto out;
	*action = CALLUS_AGENTCONF_WRITE;
out:
	if (rc < 0) {
		*action = CALLUS_AGENTCONF_KEEP;
		if (removed)
			*removed = 0;
	}
	json_decref(root);
	return rc;
}

/* How many entries of the settings text (JSON; its shape not insisted
 * on) have a command `is` says yes to. */
static size_t count_entries(const callus_agentconf_agent *a, const char *text, size_t len,
			    int (*is)(const char *cmd))
{
	json_t *root = NULL, *arr, *g, *h;
	const char *key;
	size_t n = 0, gi, hi;

	if (parse(&root, a, text, len, NULL) < 0)
		return 0;
	json_object_foreach(json_object_get(root, "hooks"), key, arr) {
		json_array_foreach(arr, gi, g) {
			if (a->format == CALLUS_AGENTCONF_FLAT) {
				n += (size_t)is(json_string_value(json_object_get(g, a->cmd_key)));
				continue;
			}
			json_array_foreach(json_object_get(g, "hooks"), hi, h)
				n += (size_t)is(json_string_value(json_object_get(h, a->cmd_key)));
		}
	}
	json_decref(root);
	return n;
}

size_t callus_agentconf_count_old(const callus_agentconf_agent *a, const char *text, size_t len)
{
	if (!spec_of(a) || !text)
		return 0;
	if (a->format == CALLUS_AGENTCONF_SCRIPT)
		return callus_migrate_is_old_script(text, len) ? 1 : 0;
	return count_entries(a, text, len, is_old_command);
}

/* Whether a line of a script runs callus's hook (`exec callus hook cline`,
 * or a person's `... | callus hook cline`, as docs/agents.md shows). */
static int script_runs_hook(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	for (; p < end; p++) {
		const char *q = memmem(p, (size_t)(end - p), "callus hook ", 12);

		if (!q)
			return 0;
		if (q == text || is_blank(q[-1]) || q[-1] == '/' || q[-1] == '|' || q[-1] == '\'')
			return 1;
		p = q;
	}
	return 0;
}

/* Any command that runs callus's hook, whatever program it names. */
static int runs_callus_hook(const char *cmd)
{
	return callus_agentconf_is_callus_command(cmd, NULL);
}

size_t callus_agentconf_count_hooks(const callus_agentconf_agent *a, const char *text, size_t len)
{
	if (!spec_of(a) || !text)
		return 0;
	if (a->format == CALLUS_AGENTCONF_SCRIPT)
		return is_our_script(text, len) || script_runs_hook(text, len) ? 1 : 0;
	return count_entries(a, text, len, runs_callus_hook);
}

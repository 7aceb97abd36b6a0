/*
 * detect_whitelist.c - the whitelist detect.c matches against: the
 * built-in rules (detect_rules.c) minus every `[verify] remove`, plus every
 * `[verify] add` of the config, normalized as commands are.  Apart from
 * the detector because it runs once per config, not once per command.
 */
#include "detect_internal.h"
#include "callus/buf.h"
#include "shlex.h"

#include <stdlib.h>
#include <string.h>

const callus_pattern *callus_detect_rule_at(const callus_whitelist *wl, size_t i)
{
	if (wl) {
		if (i < wl->nadds)
			return &wl->adds[i];
		i -= wl->nadds;
	}
	return i < CALLUS_DETECT_NBUILTIN ? &callus_detect_builtins[i] : NULL;
}

int callus_detect_rule_removed(const callus_whitelist *wl, size_t i)
{
	if (!wl)
		return 0;
	if (i < wl->nadds)
		return 0;
	return wl->removed[i - wl->nadds];
}

static int parse_category(const char *p, size_t len, callus_lesson_type *out)
{
	/* upper case only, so that `add = just test` is not read as a TEST */
	static const struct {
		const char *name;
		callus_lesson_type type;
	} cats[] = {
		{ "LINT", CALLUS_LESSON_LINT },
		{ "TEST", CALLUS_LESSON_TEST },
		{ "ANALYSIS", CALLUS_LESSON_ANALYSIS },
		{ "OTHER", CALLUS_LESSON_OTHER },
	};

	for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++)
		if (eq(p, len, cats[i].name)) {
			*out = cats[i].type;
			return 1;
		}
	return 0;
}

/* Normalize an added pattern as commands are normalized (so that
 * `./scripts/check.sh` is "check.sh" and `python3 -m tox` "python -m tox")
 * into pat.  CALLUS_EINVAL with *why for the user. */
static int normalize_pattern(callus_buf *pat, const char *text, size_t len, const char **why)
{
	callus_shtoks toks;
	struct cmd cmd;
	unsigned char *hide;
	int rc;

	memset(&toks, 0, sizeof(toks));
	memset(&cmd, 0, sizeof(cmd));
	callus_buf_init(&toks.text, 0);
	rc = callus_shlex(text, len, &toks);
	if (rc == CALLUS_SHLEX_SYNTAX) {
		*why = "cannot be parsed (unbalanced quote or parenthesis?)";
		rc = CALLUS_EINVAL;
	}
	if (rc < 0)
		goto out;
	for (size_t t = 0; t < toks.n; t++) {
		struct word *v;

		if (toks.v[t].kind != T_WORD) {
			*why = "must be one command, without operators or redirections";
			rc = CALLUS_EINVAL;
			goto out;
		}
		if (!(v = callus_array_grow(cmd.a, &cmd.cap_a, cmd.n + 1, sizeof(*v)))) {
			rc = CALLUS_ENOMEM;
			goto out;
		}
		cmd.a = v;
		v[cmd.n].p = toks.text.ptr + toks.v[t].off;
		v[cmd.n].len = toks.v[t].len;
		v[cmd.n].assign = toks.v[t].assign;
		cmd.n++;
	}
	rc = CALLUS_EINVAL;
	if (!cmd.n) {
		*why = "is empty";
		goto out;
	}
	if (!(hide = callus_array_grow(cmd.hide, &cmd.cap_hide, cmd.n, 1))) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	cmd.hide = hide;
	if (callus_detect_classify(NULL, &cmd) != K_RUN || !cmd.nw) {
		*why = cmd.nomem ? "" : "does not name a program";
		rc = cmd.nomem ? CALLUS_ENOMEM : CALLUS_EINVAL;
		goto out;
	}
	if (cmd.nomem) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	if (!cmd.w[0].len || cmd.w[0].p[cmd.w[0].len - 1] == '*') {
		*why = "cannot start with a wildcard";
		goto out;
	}
	for (size_t m = 0; m < cmd.nw; m++) {
		const struct mword *w = &cmd.w[m];

		if (!w->len || memchr(w->p, ' ', w->len) || memchr(w->p, '\t', w->len) ||
		    memchr(w->p, '\n', w->len)) {
			*why = "has an empty word or a word with spaces";
			goto out;
		}
		if (m)
			callus_buf_putc(pat, ' ');
		callus_buf_put(pat, w->p, w->len);
	}
	rc = callus_buf_status(pat) < 0 ? CALLUS_ENOMEM : 0;
out:
	free(toks.v);
	callus_buf_release(&toks.text);
	callus_detect_cmd_release(&cmd);
	return rc;
}

static int add_pattern(callus_whitelist *wl, size_t *cap, const callus_config *cfg,
		       const callus_config_entry *e, callus_error *err)
{
	const char *v = e->value, *end = v + strlen(v), *last;
	callus_lesson_type cat = CALLUS_LESSON_OTHER;
	callus_buf pat = CALLUS_BUF_INIT;
	const char *why = "";
	callus_pattern *adds;
	int rc;

	/* an all-caps last word is the category */
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	for (last = end; last > v && last[-1] != ' ' && last[-1] != '\t'; last--)
		;
	if (parse_category(last, (size_t)(end - last), &cat))
		end = last;
	rc = normalize_pattern(&pat, v, (size_t)(end - v), &why);
	if (rc == CALLUS_EINVAL) {
		rc = callus_error_set(err, rc, "'%s' line %u: pattern '%s' %s", callus_config_name(cfg),
				    e->line, v, why);
		goto out;
	}
	if (rc < 0) {
		rc = callus_error_set(err, rc, "out of memory");
		goto out;
	}
	if (!(adds = callus_array_grow(wl->adds, cap, wl->nadds + 1, sizeof(*adds)))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	wl->adds = adds;
	if (!(adds[wl->nadds].pattern = callus_buf_detach(&pat))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	adds[wl->nadds].tool = NULL;
	adds[wl->nadds].category = cat;
	adds[wl->nadds].name_words = 0;
	wl->nadds++;
out:
	callus_buf_release(&pat);
	return rc;
}

static int remove_pattern(callus_whitelist *wl, const callus_config *cfg, const callus_config_entry *e,
			  callus_error *err)
{
	callus_buf text = CALLUS_BUF_INIT;
	int found = 0;

	/* compared with the documented text, blanks normalized */
	for (const char *p = e->value; *p;) {
		size_t len;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		len = strcspn(p, " \t");
		if (text.len)
			callus_buf_putc(&text, ' ');
		callus_buf_put(&text, p, len);
		p += len;
	}
	if (callus_buf_status(&text) < 0) {
		callus_buf_release(&text);
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < CALLUS_DETECT_NBUILTIN; i++)
		if (!strcmp(callus_detect_builtins[i].pattern, text.ptr)) {
			wl->removed[i] = 1;
			found = 1;
		}
	callus_buf_release(&text);
	if (!found)
		return callus_error_set(err, CALLUS_EINVAL,
				      "'%s' line %u: 'remove = %s' names no built-in pattern "
				      "(see docs/config.md)",
				      callus_config_name(cfg), e->line, e->value);
	return 0;
}

int callus_whitelist_new(callus_whitelist **out, const callus_config *cfg, callus_error *err)
{
	callus_whitelist *wl;
	const callus_config_entry *e;
	size_t it = 0, cap = 0;
	int rc = 0;

	if (!out)
		return callus_error_set(err, CALLUS_EINVAL, "callus_whitelist_new: no output");
	*out = NULL;
	if (!(wl = calloc(1, sizeof(*wl))))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	/* other [verify] keys belong to other modules */
	while ((e = callus_config_next(cfg, "verify", NULL, &it))) {
		if (!strcmp(e->key, "add"))
			rc = add_pattern(wl, &cap, cfg, e, err);
		else if (!strcmp(e->key, "remove"))
			rc = remove_pattern(wl, cfg, e, err);
		if (rc < 0)
			goto out;
	}
	*out = wl;
	wl = NULL;
out:
	callus_whitelist_free(wl);
	return rc;
}

void callus_whitelist_free(callus_whitelist *wl)
{
	if (!wl)
		return;
	for (size_t i = 0; i < wl->nadds; i++)
		free((void *)wl->adds[i].pattern);
	free(wl->adds);
	free(wl);
}

/*
 * config.c - the `.callus/config` parser (format in docs/config.md).
 *
 * The whole file is parsed up front into one string block and an entry
 * array, so lookups never fail and the config can be shared read-only.
 */
#include "callus/config.h"
#include "callus/fsutil.h"
#include "callus/buf.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct callus_config {
	char *name;
	char *strings;              /* every section, key and value, NUL-separated */
	callus_config_entry *entries;
	size_t n;
};

/* An entry while parsing: offsets, since the string block still moves. */
struct raw_entry {
	size_t section, key, value;
	unsigned line;
};

struct parser {
	const char *name;
	unsigned line;
	callus_buf strings;
	struct raw_entry *v;
	size_t n, cap;
	size_t section; /* offset of the current section name; SIZE_MAX before any */
};

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == '.';
}

static int is_comment(char c)
{
	return c == '#' || c == ';';
}

static int syntax_error(struct parser *p, callus_error *err, const char *what)
{
	return callus_error_set(err, CALLUS_EINVAL, "'%s' line %u: %s", p->name, p->line, what);
}

/* Append s[0..len) in lower case and a NUL; return its offset. */
static size_t put_lower(callus_buf *b, const char *s, size_t len)
{
	size_t off = b->len;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		callus_buf_putc(b, (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c);
	}
	callus_buf_putc(b, '\0');
	return off;
}

static int parse_section(struct parser *p, const char *l, size_t len, size_t i, callus_error *err)
{
	size_t start, end;

	i++; /* '[' */
	while (i < len && is_blank(l[i]))
		i++;
	start = i;
	while (i < len && is_name_char(l[i]))
		i++;
	end = i;
	while (i < len && is_blank(l[i]))
		i++;
	if (i < len && l[i] == '"')
		return syntax_error(p, err, "subsections ([section \"name\"]) are not supported");
	if (i >= len || l[i] != ']')
		return syntax_error(p, err, "expected ']' after the section name");
	if (start == end)
		return syntax_error(p, err, "empty section name");
	i++;
	while (i < len && is_blank(l[i]))
		i++;
	if (i < len && !is_comment(l[i]))
		return syntax_error(p, err, "unexpected text after the section header");
	p->section = put_lower(&p->strings, l + start, end - start);
	return 0;
}

/* Append the value starting at l[i] (after the '='), unquoted, and a NUL. */
static int parse_value(struct parser *p, const char *l, size_t len, size_t i, callus_error *err)
{
	callus_buf *b = &p->strings;

	while (i < len && is_blank(l[i]))
		i++;
	if (i < len && l[i] == '"') {
		for (i++;; i++) {
			if (i >= len)
				return syntax_error(p, err, "unterminated quoted value");
			if (l[i] == '"')
				break;
			if (l[i] != '\\') {
				callus_buf_putc(b, l[i]);
				continue;
			}
			if (++i >= len)
				return syntax_error(p, err, "unterminated quoted value");
			switch (l[i]) {
			case '"':
			case '\\':
				callus_buf_putc(b, l[i]);
				break;
			case 'n':
				callus_buf_putc(b, '\n');
				break;
			case 't':
				callus_buf_putc(b, '\t');
				break;
			default:
				return syntax_error(p, err,
						    "unknown escape in quoted value (use \\\" \\\\ \\n \\t)");
			}
		}
		for (i++; i < len && is_blank(l[i]); i++)
			;
		if (i < len && !is_comment(l[i]))
			return syntax_error(p, err, "unexpected text after the quoted value");
	} else {
		size_t start = i, end;

		while (i < len && !is_comment(l[i]))
			i++;
		end = i;
		while (end > start && is_blank(l[end - 1]))
			end--;
		callus_buf_put(b, l + start, end - start);
	}
	callus_buf_putc(b, '\0');
	return 0;
}

static int parse_line(struct parser *p, const char *l, size_t len, callus_error *err)
{
	struct raw_entry e;
	size_t i = 0, kstart, kend;
	int rc;

	if (memchr(l, '\0', len))
		return syntax_error(p, err, "unexpected NUL byte");
	if (len && l[len - 1] == '\r')
		len--;
	while (i < len && is_blank(l[i]))
		i++;
	if (i == len || is_comment(l[i]))
		return 0;
	if (l[i] == '[')
		return parse_section(p, l, len, i, err);

	kstart = i;
	while (i < len && is_name_char(l[i]))
		i++;
	kend = i;
	while (i < len && is_blank(l[i]))
		i++;
	if (kstart == kend || i >= len || l[i] != '=')
		return syntax_error(p, err, "expected 'key = value'");
	if (p->section == SIZE_MAX)
		return syntax_error(p, err, "key before any [section]");

	e.section = p->section;
	e.key = put_lower(&p->strings, l + kstart, kend - kstart);
	e.value = p->strings.len;
	e.line = p->line;
	if ((rc = parse_value(p, l, len, i + 1, err)) < 0)
		return rc;

	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16, bytes;
		struct raw_entry *v;

		if (callus_size_mul(&bytes, cap, sizeof(*v)) < 0 || !(v = realloc(p->v, bytes)))
			return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = e;
	return 0;
}

int callus_config_parse(callus_config **out, const char *text, size_t len, const char *name,
		      callus_error *err)
{
	struct parser p = { NULL, 0, CALLUS_BUF_INIT, NULL, 0, 0, SIZE_MAX };
	callus_config *c = NULL;
	size_t pos = 0;
	int rc = 0;

	if (!out || (!text && len))
		return callus_error_set(err, CALLUS_EINVAL, "callus_config_parse: no output or text");
	*out = NULL;
	p.name = name ? name : "config";

	/* editors on some systems start the file with a UTF-8 byte order mark */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		pos = 3;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;

		p.line++;
		if ((rc = parse_line(&p, text + pos, end - pos, err)) < 0)
			goto out;
		pos = nl ? end + 1 : len;
	}
	if (callus_buf_status(&p.strings) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}

	if (!(c = calloc(1, sizeof(*c))) || !(c->name = strdup(p.name)) ||
	    (p.n && !(c->entries = calloc(p.n, sizeof(*c->entries)))) ||
	    !(c->strings = callus_buf_detach(&p.strings))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < p.n; i++) {
		c->entries[i].section = c->strings + p.v[i].section;
		c->entries[i].key = c->strings + p.v[i].key;
		c->entries[i].value = c->strings + p.v[i].value;
		c->entries[i].line = p.v[i].line;
	}
	c->n = p.n;
	*out = c;
	c = NULL;
out:
	callus_config_free(c);
	callus_buf_release(&p.strings);
	free(p.v);
	return rc;
}

int callus_config_load(callus_config **out, const char *workspace, callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	int rc;

	if (!out || !workspace)
		return callus_error_set(err, CALLUS_EINVAL, "callus_config_load: no output or workspace");
	*out = NULL;
	if ((rc = callus_buf_printf(&path, "%s/%s", workspace, CALLUS_CONFIG_FILE)) < 0) {
		rc = callus_error_set(err, rc, "out of memory");
		goto out;
	}
	rc = callus_fs_read_file(&text, path.ptr, CALLUS_CONFIG_MAX_BYTES, err);
	/* no config is the normal case: the built-in defaults apply */
	if (rc == CALLUS_ENOTFOUND)
		rc = callus_config_parse(out, "", 0, CALLUS_CONFIG_FILE, err);
	else if (rc == 0)
		rc = callus_config_parse(out, text.ptr, text.len, CALLUS_CONFIG_FILE, err);
out:
	callus_buf_release(&path);
	callus_buf_release(&text);
	return rc;
}

const char *callus_config_name(const callus_config *c)
{
	return c ? c->name : "config";
}

const callus_config_entry *callus_config_lookup(const callus_config *c, const char *section,
					    const char *key)
{
	if (!c || !section || !key)
		return NULL;
	for (size_t i = c->n; i-- > 0;)
		if (!strcasecmp(c->entries[i].key, key) &&
		    !strcasecmp(c->entries[i].section, section))
			return &c->entries[i];
	return NULL;
}

const char *callus_config_get(const callus_config *c, const char *section, const char *key)
{
	const callus_config_entry *e = callus_config_lookup(c, section, key);

	return e ? e->value : NULL;
}

const callus_config_entry *callus_config_next(const callus_config *c, const char *section,
					  const char *key, size_t *iter)
{
	if (!c || !iter)
		return NULL;
	for (size_t i = *iter; i < c->n; i++) {
		if ((section && strcasecmp(c->entries[i].section, section)) ||
		    (key && strcasecmp(c->entries[i].key, key)))
			continue;
		*iter = i + 1;
		return &c->entries[i];
	}
	*iter = c->n;
	return NULL;
}

int callus_config_get_long(long *out, const callus_config *c, const char *section, const char *key,
			 long def, long min, long max, callus_error *err)
{
	const callus_config_entry *e = callus_config_lookup(c, section, key);
	const char *v;
	char *end;
	long n;

	*out = def;
	if (!e)
		return 0;
	v = e->value;
	errno = 0;
	/* strtol alone would accept "", " 5" and "5x" */
	if (!((v[0] >= '0' && v[0] <= '9') || ((v[0] == '-' || v[0] == '+') &&
					       v[1] >= '0' && v[1] <= '9')))
		goto bad;
	n = strtol(v, &end, 10);
	if (*end)
		goto bad;
	if (errno == ERANGE || n < min || n > max)
		return callus_error_set(err, CALLUS_EINVAL,
				      "'%s' line %u: '%s.%s' must be between %ld and %ld, got '%s'",
				      c->name, e->line, e->section, e->key, min, max, v);
	*out = n;
	return 0;
bad:
	return callus_error_set(err, CALLUS_EINVAL, "'%s' line %u: '%s.%s' must be an integer, got '%s'",
			      c->name, e->line, e->section, e->key, v);
}

int callus_config_get_bool(int *out, const callus_config *c, const char *section, const char *key,
			 int def, callus_error *err)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	const callus_config_entry *e = callus_config_lookup(c, section, key);

	*out = def;
	if (!e)
		return 0;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(e->value, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(e->value, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return callus_error_set(err, CALLUS_EINVAL,
			      "'%s' line %u: '%s.%s' must be true or false, got '%s'", c->name,
			      e->line, e->section, e->key, e->value);
}

void callus_config_free(callus_config *c)
{
	if (!c)
		return;
	free(c->name);
	free(c->strings);
	free(c->entries);
	free(c);
}

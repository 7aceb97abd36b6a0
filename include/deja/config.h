/*
 * config.h - the workspace configuration file, `.deja/config` (docs/config.md).
 *
 * The format is git-config-like INI: `[section]` headers, `key = value`
 * lines, `#` and `;` comments.  Section and key names are case-insensitive
 * (stored in lower case); values are trimmed, may be double-quoted (with
 * \" \\ \n \t escapes) and may be followed by a comment when unquoted.  A key
 * may be given several times: deja_config_get() sees the last value,
 * deja_config_next() every value in file order.
 *
 * The config owns every string it hands out; they are borrowed until
 * deja_config_free().  A config is read-only after parsing, so one may be
 * shared by threads.
 */
#ifndef DEJA_CONFIG_H
#define DEJA_CONFIG_H

#include <stddef.h>

#include "deja/common.h"

typedef struct deja_config deja_config;

/* One `key = value` line.  Borrowed from the config. */
typedef struct deja_config_entry {
	const char *section; /* lower case */
	const char *key;     /* lower case */
	const char *value;   /* unquoted, trimmed; "" for `key =` */
	unsigned line;       /* 1-based line number, for messages */
} deja_config_entry;

/* The file deja_config_load() reads, relative to the workspace root. */
#define DEJA_CONFIG_FILE ".deja/config"

/* Files larger than this are refused (DEJA_ETOOBIG): a config is a few
 * lines, and the hook reads it on every command. */
#define DEJA_CONFIG_MAX_BYTES (1024 * 1024)

/*
 * Read <workspace>/.deja/config into *out (caller frees with
 * deja_config_free).  A missing file gives an empty config, not an error.
 * A syntax error gives DEJA_EINVAL and a message naming the file and line:
 * "'.deja/config' line 3: expected 'key = value'"; an unreadable file
 * DEJA_EIO; one over DEJA_CONFIG_MAX_BYTES DEJA_ETOOBIG.
 */
int deja_config_load(deja_config **out, const char *workspace, deja_error *err);

/*
 * Parse text[0..len) (need not be NUL-terminated; a NUL byte inside is a
 * syntax error).  `name` is the file name used in messages (copied; NULL
 * for "config").  On error *out is left NULL.
 */
int deja_config_parse(deja_config **out, const char *text, size_t len, const char *name,
		      deja_error *err);

/* The name given at parse time (".deja/config" after a load).  Borrowed. */
const char *deja_config_name(const deja_config *c);

/* The last value of section.key, or NULL if unset (or c is NULL). */
const char *deja_config_get(const deja_config *c, const char *section, const char *key);

/* The last entry of section.key (its line is useful in messages), or NULL. */
const deja_config_entry *deja_config_lookup(const deja_config *c, const char *section,
					    const char *key);

/*
 * Iterate over every value of section.key in file order; key NULL iterates
 * over every key of the section, section NULL over every section.  Start
 * with *iter = 0:
 *
 *	size_t it = 0;
 *	const deja_config_entry *e;
 *	while ((e = deja_config_next(cfg, "verify", "add", &it)))
 *		...
 */
const deja_config_entry *deja_config_next(const deja_config *c, const char *section,
					  const char *key, size_t *iter);

/*
 * The last value of section.key as a decimal integer in [min, max], in
 * *out; def (not range-checked) when unset.  A value that is not an
 * integer, or is out of range, gives DEJA_EINVAL, *out = def and a message
 * such as "'.deja/config' line 7: 'lessons.max' must be an integer, got
 * 'ten'", so a caller may warn and go on with the default.
 */
int deja_config_get_long(long *out, const deja_config *c, const char *section, const char *key,
			 long def, long min, long max, deja_error *err);

/* The last value of section.key as a boolean (true/yes/on/1,
 * false/no/off/0, case-insensitive) in *out; def when unset.  Anything else
 * gives DEJA_EINVAL and *out = def. */
int deja_config_get_bool(int *out, const deja_config *c, const char *section, const char *key,
			 int def, deja_error *err);

/* Accepts NULL. */
void deja_config_free(deja_config *c);

#endif

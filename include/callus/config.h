/*
 * config.h - the workspace configuration file, `.callus/config` (docs/config.md).
 *
 * The format is git-config-like INI: `[section]` headers, `key = value`
 * lines, `#` and `;` comments.  Section and key names are case-insensitive
 * (stored in lower case); values are trimmed, may be double-quoted (with
 * \" \\ \n \t escapes) and may be followed by a comment when unquoted.  A key
 * may be given several times: callus_config_get() sees the last value,
 * callus_config_next() every value in file order.
 *
 * The config owns every string it hands out; they are borrowed until
 * callus_config_free().  A config is read-only after parsing, so one may be
 * shared by threads.
 */
#ifndef CALLUS_CONFIG_H
#define CALLUS_CONFIG_H

#include <stddef.h>

#include "callus/common.h"

typedef struct callus_config callus_config;

/* One `key = value` line.  Borrowed from the config. */
typedef struct callus_config_entry {
	const char *section; /* lower case */
	const char *key;     /* lower case */
	const char *value;   /* unquoted, trimmed; "" for `key =` */
	unsigned line;       /* 1-based line number, for messages */
} callus_config_entry;

/* The file callus_config_load() reads, relative to the workspace root. */
#define CALLUS_CONFIG_FILE ".callus/config"

/* Files larger than this are refused (CALLUS_ETOOBIG): a config is a few
 * lines, and the hook reads it on every command. */
#define CALLUS_CONFIG_MAX_BYTES (1024 * 1024)

/*
 * Read <workspace>/.callus/config into *out (caller frees with
 * callus_config_free).  A missing file gives an empty config, not an error.
 * A syntax error gives CALLUS_EINVAL and a message naming the file and line:
 * "'.callus/config' line 3: expected 'key = value'"; an unreadable file
 * CALLUS_EIO, one that is not a regular file (a directory, a FIFO)
 * CALLUS_EINVAL; one over CALLUS_CONFIG_MAX_BYTES CALLUS_ETOOBIG
 * (callus_fs_read_file).
 */
int callus_config_load(callus_config **out, const char *workspace, callus_error *err);

/*
 * Parse text[0..len) (need not be NUL-terminated; a NUL byte inside is a
 * syntax error).  `name` is the file name used in messages (copied; NULL
 * for "config").  On error *out is left NULL.
 */
int callus_config_parse(callus_config **out, const char *text, size_t len, const char *name,
		      callus_error *err);

/* The name given at parse time (".callus/config" after a load).  Borrowed. */
const char *callus_config_name(const callus_config *c);

/* The last value of section.key, or NULL if unset (or c is NULL). */
const char *callus_config_get(const callus_config *c, const char *section, const char *key);

/* The last entry of section.key (its line is useful in messages), or NULL. */
const callus_config_entry *callus_config_lookup(const callus_config *c, const char *section,
					    const char *key);

/*
 * Iterate over every value of section.key in file order; key NULL iterates
 * over every key of the section, section NULL over every section.  Start
 * with *iter = 0:
 *
 *	size_t it = 0;
 *	const callus_config_entry *e;
 *	while ((e = callus_config_next(cfg, "verify", "add", &it)))
 *		...
 */
const callus_config_entry *callus_config_next(const callus_config *c, const char *section,
					  const char *key, size_t *iter);

/*
 * The last value of section.key as a decimal integer in [min, max], in
 * *out; def (not range-checked) when unset.  A value that is not an
 * integer, or is out of range, gives CALLUS_EINVAL, *out = def and a message
 * such as "'.callus/config' line 7: 'lessons.max' must be an integer, got
 * 'ten'", so a caller may warn and go on with the default.
 */
int callus_config_get_long(long *out, const callus_config *c, const char *section, const char *key,
			 long def, long min, long max, callus_error *err);

/* The last value of section.key as a boolean (true/yes/on/1,
 * false/no/off/0, case-insensitive) in *out; def when unset.  Anything else
 * gives CALLUS_EINVAL and *out = def. */
int callus_config_get_bool(int *out, const callus_config *c, const char *section, const char *key,
			 int def, callus_error *err);

/* Accepts NULL. */
void callus_config_free(callus_config *c);

#endif

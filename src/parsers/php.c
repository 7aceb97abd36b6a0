/*
 * php.c - PHP's own errors, as `php -l` (the syntax check) and a crashing
 * script print them:
 *
 *   PHP Parse error:  syntax error, unexpected token "}", expecting ";" in broken/Invoice.php on line 12
 *   Parse error: syntax error, unexpected token "}" in broken/Invoice.php on line 12
 *   Errors parsing broken/Invoice.php
 *   No syntax errors detected in src/Cart.php
 *
 * The "PHP " form goes to the error log (stderr on the command line), the
 * other to the output: both may be printed for one error, which is read
 * once.  Parse and fatal errors are errors, warnings and notices warnings.
 * "Errors parsing FILE" says which file when no message does.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"
#include "wordlist.h"

#include <string.h>

/* The kinds of message, and the severity of each, in the same order. */
static const callus_word kinds[] = {
	CALLUS_WORD("Parse error: "), CALLUS_WORD("Fatal error: "),  CALLUS_WORD("Warning: "),
	CALLUS_WORD("Notice: "),      CALLUS_WORD("Deprecated: "),
	CALLUS_WORD("Recoverable fatal error: "), CALLUS_WORD("Compile error: "),
};
static const char *const severities[] = {
	"error", "error", "warning", "warning", "warning", "error", "error",
};
_Static_assert(CALLUS_WORDS_COUNT(kinds) == sizeof(severities) / sizeof(severities[0]),
	       "a severity for each kind");

typedef struct php_error {
	const char *msg, *file, *sev;
	size_t msg_len, file_len;
	long line;
} php_error;

/* "[PHP ]Kind: msg in FILE on line N" */
static int php_line(const char *s, size_t len, php_error *e)
{
	size_t i = 0, n;
	long in, on;
	int k;

	if (callus_pu_starts(s, len, "PHP "))
		i = 4;
	if ((k = callus_words_which_start(kinds, CALLUS_WORDS_COUNT(kinds), s + i, len - i)) < 0)
		return 0;
	i += kinds[k].len;
	on = callus_pu_find(s + i, len - i, " on line ");
	if (on <= 0)
		return 0;
	/* the last " in " before " on line " */
	for (in = on - 4; in >= 0 && memcmp(s + i + in, " in ", 4); in--)
		;
	if (in <= 0)
		return 0;
	e->sev = severities[k];
	e->msg = s + i;
	e->msg_len = (size_t)in;
	callus_pu_trim(&e->msg, &e->msg_len);
	e->file = s + i + in + 4;
	e->file_len = (size_t)(on - in - 4);
	e->line = callus_pu_num(s + i + on + 9, len - i - (size_t)on - 9, &n);
	return n > 0;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_strlist seen = CALLUS_STRLIST_INIT, failed = CALLUS_STRLIST_INIT;
	callus_buf key = CALLUS_BUF_INIT;
	size_t before = diags->count + diags->dropped;
	callus_pu_lines it;
	const char *s;
	size_t len;
	php_error e;
	int rc, added;

	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (callus_pu_starts(s, len, "Errors parsing ")) {
			if ((rc = callus_strlist_add(&failed, s + 15, len - 15)) < 0)
				break;
			continue;
		}
		if (!php_line(s, len, &e))
			continue;
		callus_buf_clear(&key);
		callus_buf_put(&key, e.file, e.file_len);
		callus_buf_printf(&key, ":%ld:", e.line);
		callus_buf_put(&key, e.msg, e.msg_len);
		if ((rc = callus_buf_status(&key)) < 0 ||
		    (rc = callus_strlist_add_unique(&seen, key.ptr, key.len, &added)) < 0)
			break;
		if (added && (rc = callus_pu_diag(NULL, diags, files, in->pc, e.file, e.file_len,
						e.line, 0, NULL, 0, e.msg, e.msg_len, e.sev)) < 0)
			break;
	}
	for (size_t i = 0; rc >= 0 && i < failed.count; i++) {
		if (diags->count + diags->dropped == before)
			rc = callus_pu_diag(NULL, diags, files, in->pc, failed.items[i],
					  strlen(failed.items[i]), 0, 0, NULL, 0, "syntax error", 12,
					  "error");
		else if (callus_parse_file(files, NULL, in->pc, failed.items[i],
					 strlen(failed.items[i])) < 0)
			rc = CALLUS_ENOMEM;
	}
	callus_strlist_release(&seen);
	callus_strlist_release(&failed);
	callus_buf_release(&key);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	php_error e;

	return callus_pu_starts(s, len, "Errors parsing ") ||
	       (php_line(s, len, &e) && callus_pu_ends(e.file, e.file_len, ".php"));
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "php -l", "php", NULL };

const callus_parser callus_parser_php = { "php", tools, sniff, parse, sniff_line };

/*
 * fuzz_detect.c - callus_detect() and the .callus/config parser on arbitrary
 * bytes.
 *
 * The input is used three ways: as a command line (up to its first NUL)
 * against the built-in whitelist; as a config file, whose whitelist (when it
 * parses) then classifies the same command line; and with its first line as
 * an `add =` pattern, to reach the pattern normalizer.  Besides memory
 * errors, checks what callers rely on: a detection has a tool and args, and
 * nothing when it is not a verification; every parsed entry can be looked up.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "callus/buf.h"
#include "callus/config.h"
#include "callus/detect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const callus_whitelist *wl, const char *command)
{
	callus_detection d;
	int rc = callus_detect(&d, wl, command, NULL);

	if (rc == CALLUS_ENOMEM)
		return;
	if (rc != 0)
		abort();
	if (d.verification) {
		if (!d.tool || !*d.tool || !d.args || (d.dir && !*d.dir))
			abort();
		if ((unsigned)d.category > CALLUS_LESSON_OTHER)
			abort();
	} else if (d.tool || d.args || d.dir) {
		abort();
	}
	callus_detection_release(&d);
	if (d.tool || d.args || d.dir || d.verification)
		abort();
}

static void check_config(const callus_config *cfg)
{
	const callus_config_entry *e;
	size_t it = 0;
	long n;
	int b;

	while ((e = callus_config_next(cfg, NULL, NULL, &it))) {
		const callus_config_entry *last = callus_config_lookup(cfg, e->section, e->key);

		if (!last || !callus_config_get(cfg, e->section, e->key) || last->line < e->line)
			abort();
		callus_config_get_long(&n, cfg, e->section, e->key, 0, -100, 100, NULL);
		callus_config_get_bool(&b, cfg, e->section, e->key, 0, NULL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	callus_config *cfg = NULL;
	callus_whitelist *wl = NULL;
	callus_buf text = CALLUS_BUF_INIT, pattern = CALLUS_BUF_INIT;
	const char *nl;

	if (callus_buf_put(&text, data, size) < 0)
		return 0;
	check(NULL, text.ptr);

	if (callus_config_parse(&cfg, (const char *)data, size, "fuzz", NULL) == 0) {
		check_config(cfg);
		if (callus_whitelist_new(&wl, cfg, NULL) == 0)
			check(wl, text.ptr);
		callus_whitelist_free(wl);
		wl = NULL;
		callus_config_free(cfg);
		cfg = NULL;
	}

	/* the first line as an added pattern, the rest as the command */
	nl = memchr(text.ptr, '\n', text.len);
	callus_buf_puts(&pattern, "[verify]\nadd = \"");
	for (const char *p = text.ptr; p < (nl ? nl : text.ptr + text.len) && *p; p++) {
		if (*p == '"' || *p == '\\')
			callus_buf_putc(&pattern, '\\');
		callus_buf_putc(&pattern, *p);
	}
	callus_buf_puts(&pattern, "\"\n");
	if (callus_buf_status(&pattern) == 0 &&
	    callus_config_parse(&cfg, pattern.ptr, pattern.len, "fuzz", NULL) == 0 &&
	    callus_whitelist_new(&wl, cfg, NULL) == 0)
		check(wl, nl ? nl + 1 : text.ptr);
	callus_whitelist_free(wl);
	callus_config_free(cfg);
	callus_buf_release(&pattern);
	callus_buf_release(&text);
	return 0;
}

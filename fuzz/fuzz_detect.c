/*
 * fuzz_detect.c - deja_detect() and the .deja/config parser on arbitrary
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

#include "deja/buf.h"
#include "deja/config.h"
#include "deja/detect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const deja_whitelist *wl, const char *command)
{
	deja_detection d;
	int rc = deja_detect(&d, wl, command, NULL);

	if (rc == DEJA_ENOMEM)
		return;
	if (rc != 0)
		abort();
	if (d.verification) {
		if (!d.tool || !*d.tool || !d.args || (d.dir && !*d.dir))
			abort();
		if ((unsigned)d.category > DEJA_LESSON_OTHER)
			abort();
	} else if (d.tool || d.args || d.dir) {
		abort();
	}
	deja_detection_release(&d);
	if (d.tool || d.args || d.dir || d.verification)
		abort();
}

static void check_config(const deja_config *cfg)
{
	const deja_config_entry *e;
	size_t it = 0;
	long n;
	int b;

	while ((e = deja_config_next(cfg, NULL, NULL, &it))) {
		const deja_config_entry *last = deja_config_lookup(cfg, e->section, e->key);

		if (!last || !deja_config_get(cfg, e->section, e->key) || last->line < e->line)
			abort();
		deja_config_get_long(&n, cfg, e->section, e->key, 0, -100, 100, NULL);
		deja_config_get_bool(&b, cfg, e->section, e->key, 0, NULL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	deja_config *cfg = NULL;
	deja_whitelist *wl = NULL;
	deja_buf text = DEJA_BUF_INIT, pattern = DEJA_BUF_INIT;
	const char *nl;

	if (deja_buf_put(&text, data, size) < 0)
		return 0;
	check(NULL, text.ptr);

	if (deja_config_parse(&cfg, (const char *)data, size, "fuzz", NULL) == 0) {
		check_config(cfg);
		if (deja_whitelist_new(&wl, cfg, NULL) == 0)
			check(wl, text.ptr);
		deja_whitelist_free(wl);
		wl = NULL;
		deja_config_free(cfg);
		cfg = NULL;
	}

	/* the first line as an added pattern, the rest as the command */
	nl = memchr(text.ptr, '\n', text.len);
	deja_buf_puts(&pattern, "[verify]\nadd = \"");
	for (const char *p = text.ptr; p < (nl ? nl : text.ptr + text.len) && *p; p++) {
		if (*p == '"' || *p == '\\')
			deja_buf_putc(&pattern, '\\');
		deja_buf_putc(&pattern, *p);
	}
	deja_buf_puts(&pattern, "\"\n");
	if (deja_buf_status(&pattern) == 0 &&
	    deja_config_parse(&cfg, pattern.ptr, pattern.len, "fuzz", NULL) == 0 &&
	    deja_whitelist_new(&wl, cfg, NULL) == 0)
		check(wl, nl ? nl + 1 : text.ptr);
	deja_whitelist_free(wl);
	deja_config_free(cfg);
	deja_buf_release(&pattern);
	deja_buf_release(&text);
	return 0;
}

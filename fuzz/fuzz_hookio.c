/*
 * fuzz_hookio.c - arbitrary bytes as every agent's hook payload.
 *
 * Besides memory errors, checks what `deja hook` relies on: a parse either
 * fails with DEJA_EINVAL or gives a record whose strings are valid UTF-8
 * with output_len right; the cheap peek finds exactly the command the full
 * parse finds whenever the payload parses; and the reply is always a JSON
 * object, whatever the context bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "deja/hookio.h"
#include "deja/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_str(const char *s)
{
	if (s && !deja_utf8_valid(s, strlen(s)))
		abort();
}

static void check_reply(deja_agent a, const char *event, const char *ctx, size_t max)
{
	deja_buf b = DEJA_BUF_INIT;
	json_t *v;

	if (deja_hook_reply(&b, a, event, ctx, max) < 0)
		goto out; /* only out of memory */
	v = json_loadb(b.ptr, b.len, 0, NULL);
	if (!json_is_object(v))
		abort();
	json_decref(v);
out:
	deja_buf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *json = (const char *)data;
	char *ctx = malloc(size + 1);

	if (!ctx)
		return 0;
	memcpy(ctx, data, size);
	ctx[size] = '\0';
	for (deja_agent a = DEJA_AGENT_CLAUDE; a <= DEJA_AGENT_GENERIC; a++) {
		deja_hook_event e = DEJA_HOOK_EVENT_INIT;
		deja_error err = DEJA_ERROR_INIT;
		char *peeked = NULL;
		int rc = deja_hook_event_parse(&e, a, json, size, &err);
		int prc = deja_hook_peek_command(&peeked, a, json, size);

		if (rc == 0) {
			if (!e.event || !e.output || strlen(e.output) != e.output_len ||
			    e.exit_code < -1 || (e.command && !*e.command))
				abort();
			check_str(e.event);
			check_str(e.command);
			check_str(e.output);
			check_str(e.cwd);
			check_str(e.session_id);
			/* both readers see the same command */
			if (prc != 0 || (peeked == NULL) != (e.command == NULL || !e.is_shell) ||
			    (peeked && strcmp(peeked, e.command) != 0))
				abort();
			check_reply(a, e.event, e.output, (size_t)e.output_len % 97);
		} else if (rc != DEJA_EINVAL || !err.msg || e.event || e.output) {
			abort();
		}
		deja_output_looks_failed(json, size);
		check_reply(a, NULL, ctx, size % 13);
		free(peeked);
		deja_error_release(&err);
		deja_hook_event_release(&e);
	}
	free(ctx);
	return 0;
}

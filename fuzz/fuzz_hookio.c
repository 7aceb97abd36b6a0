/*
 * fuzz_hookio.c - arbitrary bytes as every agent's hook payload.
 *
 * Besides memory errors, checks what `callus hook` relies on: a parse either
 * fails with CALLUS_EINVAL or gives a record whose strings are valid UTF-8
 * with output_len right; the cheap peek finds exactly the command the full
 * parse finds whenever the payload parses; the loader reads the same tree
 * whether it decodes the long strings itself or leaves them all to jansson
 * (every string taken for long here, and none); and the reply is always a
 * JSON object, whatever the context bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "agents/agent.h"
#include "callus/hookio.h"
#include "callus/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_str(const char *s)
{
	if (s && !callus_utf8_valid(s, strlen(s)))
		abort();
}

static void check_reply(callus_agent a, const char *event, const char *ctx, size_t max)
{
	callus_buf b = CALLUS_BUF_INIT;
	json_t *v;

	if (callus_hook_reply(&b, a, event, ctx, max) < 0)
		goto out; /* only out of memory */
	v = json_loadb(b.ptr, b.len, 0, NULL);
	if (!json_is_object(v))
		abort();
	json_decref(v);
out:
	callus_buf_release(&b);
}

/* Both ways of loading agree: the same tree, or both refuse. */
static void check_load(const char *json, size_t size)
{
	json_error_t e1, e2;
	int oom1, oom2;
	json_t *all = callus_payload_load_with(json, size, JSON_DECODE_ANY, &e1, &oom1, 0);
	json_t *none = callus_payload_load_with(json, size, JSON_DECODE_ANY, &e2, &oom2, SIZE_MAX);

	if (!oom1 && !oom2 && ((all == NULL) != (none == NULL) || (all && !json_equal(all, none))))
		abort();
	json_decref(all);
	json_decref(none);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *json = (const char *)data;
	char *ctx = malloc(size + 1);

	if (!ctx)
		return 0;
	memcpy(ctx, data, size);
	ctx[size] = '\0';
	check_load(json, size);
	for (callus_agent a = CALLUS_AGENT_CLAUDE; a <= CALLUS_AGENT_GENERIC; a++) {
		callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
		callus_error err = CALLUS_ERROR_INIT;
		char *peeked = NULL;
		int rc = callus_hook_event_parse(&e, a, json, size, &err);
		int prc = callus_hook_peek_command(&peeked, a, json, size);

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
		} else if (rc != CALLUS_EINVAL || !err.msg || e.event || e.output) {
			abort();
		}
		/* read from a buffer let go of early: the same event */
		{
			callus_hook_event b = CALLUS_HOOK_EVENT_INIT;
			callus_error berr = CALLUS_ERROR_INIT;
			callus_buf in = CALLUS_BUF_INIT;
			int brc;

			callus_buf_put(&in, json, size);
			brc = callus_buf_status(&in) < 0 ? rc
							  : callus_hook_event_parse_buf(&b, a, &in, &berr);
			if (brc != rc || in.cap ||
			    (rc == 0 && (b.output_len != e.output_len ||
					 memcmp(b.output, e.output, e.output_len) ||
					 (b.command == NULL) != (e.command == NULL) ||
					 (b.command && strcmp(b.command, e.command)) ||
					 b.exit_code != e.exit_code)))
				abort();
			callus_error_release(&berr);
			callus_hook_event_release(&b);
			callus_buf_release(&in);
		}
		callus_output_looks_failed(json, size);
		check_reply(a, NULL, ctx, size % 13);
		free(peeked);
		callus_error_release(&err);
		callus_hook_event_release(&e);
	}
	free(ctx);
	return 0;
}

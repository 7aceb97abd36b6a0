/*
 * fuzz_parsers_js.c - the JavaScript parsers (eslint, tsc, jest, vitest,
 * mocha, node --test, ava, bun test, deno test, deno lint, Playwright test)
 * on arbitrary bytes; the checks are in parser_invariants.h.  Seeds:
 * tests/parsers/js/ and AVA's, bun's, deno's and Playwright's outputs of
 * tests/corpus/cases/ (real outputs).
 */
#include "parsers/js_util.h"
#include "parser_invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "eslint", "tsc",	     "jest", "vitest",
					     "mocha",  "node_test", "ava",  "bun",
					     "deno_test", "deno_lint", "playwright" };
	static const callus_pathctx ctx[] = {
		{ "/tmp/callus-js/jest", NULL, "", NULL },
		{ "/work/proj", "/srv/proj", "web", NULL },
	};
	static const parser_limits lim = { CALLUS_JS_MESSAGE_MAX, CALLUS_JS_TEST_MAX,
					   CALLUS_JS_FRAMES_MAX, 0 };

	fuzz_parsers(data, size, names, sizeof(names) / sizeof(names[0]), ctx,
		     sizeof(ctx) / sizeof(ctx[0]), &lim);
	return 0;
}

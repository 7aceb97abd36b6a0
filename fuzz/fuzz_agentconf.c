/*
 * fuzz_agentconf.c - arbitrary bytes as every agent's settings file: merging
 * callus's hook must either refuse or produce a file that merging again keeps
 * as it is (idempotence) and that un-merging accepts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "callus/agentconf.h"
#include "callus/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const callus_agentconf_agent *a;

	for (size_t i = 0; (a = callus_agentconf_nth(i)); i++) {
		callus_buf once = CALLUS_BUF_INIT, twice = CALLUS_BUF_INIT, undone = CALLUS_BUF_INIT;
		callus_agentconf_action act = CALLUS_AGENTCONF_KEEP, act2 = CALLUS_AGENTCONF_KEEP;
		size_t removed = 0;
		callus_error err = CALLUS_ERROR_INIT;

		if (callus_agentconf_merge(&once, &act, a, (const char *)data, size,
					 "/usr/bin/callus", &err) == 0 &&
		    act == CALLUS_AGENTCONF_WRITE) {
			if (callus_agentconf_merge(&twice, &act2, a, once.ptr, once.len,
						 "/usr/bin/callus", NULL) != 0 ||
			    act2 != CALLUS_AGENTCONF_KEEP)
				abort(); /* a second init must change nothing */
			if (callus_agentconf_unmerge(&undone, &act2, &removed, a, once.ptr,
						   once.len, "/usr/bin/callus", NULL) != 0 ||
			    removed == 0)
				abort(); /* what init wrote, --remove must find */
		}
		callus_error_release(&err);
		callus_buf_release(&once);
		callus_buf_release(&twice);
		callus_buf_release(&undone);
	}
	return 0;
}

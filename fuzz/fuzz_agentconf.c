/*
 * fuzz_agentconf.c - arbitrary bytes as every agent's settings file: merging
 * deja's hook must either refuse or produce a file that merging again keeps
 * as it is (idempotence) and that un-merging accepts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "deja/agentconf.h"
#include "deja/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = 0;
	const deja_agentconf_agent *agents = deja_agentconf_agents(&n);

	for (size_t i = 0; i < n; i++) {
		deja_buf once = DEJA_BUF_INIT, twice = DEJA_BUF_INIT, undone = DEJA_BUF_INIT;
		deja_agentconf_action act = DEJA_AGENTCONF_KEEP, act2 = DEJA_AGENTCONF_KEEP;
		size_t removed = 0;
		deja_error err = DEJA_ERROR_INIT;

		if (deja_agentconf_merge(&once, &act, &agents[i], (const char *)data, size,
					 "/usr/bin/deja", &err) == 0 &&
		    act == DEJA_AGENTCONF_WRITE) {
			if (deja_agentconf_merge(&twice, &act2, &agents[i], once.ptr, once.len,
						 "/usr/bin/deja", NULL) != 0 ||
			    act2 != DEJA_AGENTCONF_KEEP)
				abort(); /* a second init must change nothing */
			if (deja_agentconf_unmerge(&undone, &act2, &removed, &agents[i], once.ptr,
						   once.len, "/usr/bin/deja", NULL) != 0 ||
			    removed == 0)
				abort(); /* what init wrote, --remove must find */
		}
		deja_error_release(&err);
		deja_buf_release(&once);
		deja_buf_release(&twice);
		deja_buf_release(&undone);
	}
	return 0;
}

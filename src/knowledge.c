/*
 * knowledge.c - the knowledge interface (include/callus/knowledge.h): the
 * table of storage backends (src/storage/) and the dispatch to them.
 */
#include "callus/knowledge.h"
#include "storage/backend.h"

#include <stdlib.h>
#include <string.h>

static const callus_storage_ops *const backends[] = {
	&callus_storage_sqlite,
};

#define NBACKENDS (sizeof(backends) / sizeof(backends[0]))

struct callus_knowledge {
	const callus_storage_ops *ops;
	void *handle;
	int owned; /* the handle is closed with the knowledge */
};

/* The backend for location and where its own part starts; a location
 * with no scheme is a path, which the embedded backend takes. */
static const callus_storage_ops *backend_for(const char *location, const char **rest)
{
	const char *colon = strchr(location, ':'), *slash = strchr(location, '/');

	for (size_t i = 0; i < NBACKENDS; i++) {
		size_t n = strlen(backends[i]->scheme);

		if (!strncmp(location, backends[i]->scheme, n)) {
			*rest = location + n;
			return backends[i];
		}
	}
	if (!colon || (slash && slash < colon)) {
		*rest = location;
		return &callus_storage_sqlite;
	}
	return NULL;
}

int callus_knowledge_open(callus_knowledge **out, const char *location, int timeout_ms,
			  callus_error *err)
{
	const callus_storage_ops *ops;
	const char *rest = NULL;
	callus_knowledge *k;
	int rc;

	*out = NULL;
	if (!location || !*location)
		return callus_error_set(err, CALLUS_EINVAL, "no location for the knowledge store");
	if (!(ops = backend_for(location, &rest)))
		return callus_error_set(err, CALLUS_EINVAL,
					"'%.*s' names no storage backend of this build (it has: sqlite)",
					(int)(strchr(location, ':') - location + 1), location);
	if (!(k = calloc(1, sizeof(*k))))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if ((rc = ops->open(&k->handle, rest, timeout_ms, err)) < 0) {
		free(k);
		return rc;
	}
	k->ops = ops;
	k->owned = 1;
	*out = k;
	return 0;
}

int callus_knowledge_over_store(callus_knowledge **out, callus_store *s, callus_error *err)
{
	callus_knowledge *k;

	*out = NULL;
	if (!(k = calloc(1, sizeof(*k))))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	k->ops = &callus_storage_sqlite;
	k->handle = s;
	*out = k;
	return 0;
}

void callus_knowledge_close(callus_knowledge *k)
{
	if (!k)
		return;
	if (k->owned)
		k->ops->close(k->handle);
	free(k);
}

const char *callus_knowledge_backend(const callus_knowledge *k)
{
	return k->ops->name;
}

int callus_knowledge_resolutions(callus_knowledge *k, const char *signature_id, int limit,
				 callus_resolution **out, size_t *count, callus_error *err)
{
	return k->ops->resolutions(k->handle, signature_id, limit, out, count, err);
}

int callus_knowledge_resolution(callus_knowledge *k, int64_t id, callus_resolution *out,
				callus_error *err)
{
	return k->ops->resolution(k->handle, id, out, err);
}

int callus_knowledge_feedback(callus_knowledge *k, int64_t id, int success, const char *note,
			      callus_metrics *m, callus_error *err)
{
	return k->ops->feedback(k->handle, id, success, note, m, err);
}

int callus_knowledge_flush_metrics(callus_knowledge *k, callus_metrics *m, callus_error *err)
{
	return k->ops->flush_metrics(k->handle, m, err);
}

int callus_knowledge_read_metrics(callus_knowledge *k, callus_metrics *m, callus_error *err)
{
	return k->ops->read_metrics(k->handle, m, err);
}

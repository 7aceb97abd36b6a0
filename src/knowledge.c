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
	&callus_storage_postgresql,
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

	/* libpq's other spelling, which people write as often */
	if (!strncmp(location, "postgres://", 11)) {
		*rest = location + 11;
		return &callus_storage_postgresql;
	}
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
					"'%.*s' names no storage backend of this build (it has: sqlite, postgresql)",
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

int callus_knowledge_location_known(const char *location)
{
	const char *rest;

	return location && *location && backend_for(location, &rest) != NULL;
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

static const char *const status_names[] = { "proposed", "approved", "rejected", "retired" };

const char *callus_shared_status_name(callus_shared_status s)
{
	return (unsigned)s < 4 ? status_names[s] : "proposed";
}

int callus_shared_status_parse(callus_shared_status *out, const char *name)
{
	for (int i = 0; i < 4; i++)
		if (name && !strcmp(name, status_names[i])) {
			*out = (callus_shared_status)i;
			return 0;
		}
	return CALLUS_EINVAL;
}

void callus_shared_note_release(callus_shared_note *n)
{
	if (!n)
		return;
	free(n->signature_id);
	free(n->tool);
	free(n->error_type);
	free(n->title);
	free(n->example);
	free(n->rule);
	free(n->steps);
	free(n->extra);
	free(n->code);
	free(n->files);
	free(n->origin);
	free(n->path);
	free(n->proposed_by);
	free(n->proposed_at);
	free(n->decided_by);
	free(n->decided_at);
	free(n->why);
	memset(n, 0, sizeof(*n));
}

void callus_shared_notes_free(callus_shared_note *n, size_t count)
{
	for (size_t i = 0; n && i < count; i++)
		callus_shared_note_release(&n[i]);
	free(n);
}

/* Only the team and org layers have stores of their own. */
static int shared_layer(callus_layer l, callus_error *err)
{
	if (l != CALLUS_LAYER_TEAM && l != CALLUS_LAYER_ORG)
		return callus_error_set(err, CALLUS_EINVAL,
					"the %s layer is the workspace's, not a shared store's",
					callus_layer_name(l));
	return 0;
}

int callus_knowledge_propose(callus_knowledge *k, const callus_shared_note *n, int *created,
			     callus_error *err)
{
	int c = 0, rc = shared_layer(n->layer, err);

	if (rc == 0)
		rc = k->ops->propose(k->handle, n, &c, err);
	if (created)
		*created = c;
	return rc;
}

int callus_knowledge_shared_list(callus_knowledge *k, callus_layer l, int all,
				 callus_shared_note **out, size_t *count, callus_error *err)
{
	int rc = shared_layer(l, err);

	*out = NULL;
	*count = 0;
	return rc < 0 ? rc : k->ops->shared_list(k->handle, l, all, out, count, err);
}

int callus_knowledge_shared_get(callus_knowledge *k, callus_layer l, const char *id,
				callus_shared_note *out, callus_error *err)
{
	size_t len = id ? strlen(id) : 0;
	int rc = shared_layer(l, err);

	memset(out, 0, sizeof(*out));
	if (rc < 0)
		return rc;
	if (len < 4 || len > CALLUS_NOTE_ID_LEN || strspn(id, "0123456789abcdef") != len)
		return callus_error_set(err, CALLUS_EINVAL,
					"'%s' is not a note id (4 to %d hex digits)", id ? id : "",
					CALLUS_NOTE_ID_LEN);
	return k->ops->shared_get(k->handle, l, id, out, err);
}

int callus_knowledge_decide(callus_knowledge *k, callus_layer l, const char *id,
			    callus_shared_status to, const char *who, const char *why,
			    callus_error *err)
{
	int rc = shared_layer(l, err);

	if (rc == 0 && to == CALLUS_SHARED_PROPOSED)
		rc = callus_error_set(err, CALLUS_EINVAL, "a decision approves, rejects or retires");
	return rc < 0 ? rc : k->ops->decide(k->handle, l, id, to, who ? who : "", why ? why : "",
					    err);
}

int callus_knowledge_withdraw(callus_knowledge *k, callus_layer l, const char *id,
			      const char *origin, const char *who, const char *why,
			      callus_error *err)
{
	int rc = shared_layer(l, err);

	return rc < 0 ? rc : k->ops->withdraw(k->handle, l, id, origin ? origin : "",
					      who ? who : "", why ? why : "", err);
}

int callus_knowledge_pull(callus_knowledge *k, callus_layer l, int64_t since, int limit,
			  callus_shared_note **out, size_t *count, callus_error *err)
{
	int rc = shared_layer(l, err);

	*out = NULL;
	*count = 0;
	return rc < 0 ? rc : k->ops->pull(k->handle, l, since, limit, out, count, err);
}

int callus_knowledge_report(callus_knowledge *k, callus_layer l, const char *id,
			    const char *instance, int64_t applications, int64_t successes,
			    callus_error *err)
{
	int rc = shared_layer(l, err);

	return rc < 0 ? rc : k->ops->report(k->handle, l, id, instance, applications, successes,
					    err);
}

/*
 * sqlite.c - the embedded backend: the knowledge in a SQLite file, the
 * workspace store's own schema (store_schema.c, learn.c, learn_list.c).  The
 * handle is a callus_store.
 */
#include "storage/backend.h"

static int sq_open(void **handle, const char *location, int timeout_ms, callus_error *err)
{
	callus_store *s = NULL;
	int rc = callus_store_open(&s, location, timeout_ms, err);

	*handle = rc < 0 ? NULL : s;
	return rc < 0 ? rc : 0;
}

static void sq_close(void *handle)
{
	callus_store_close(handle);
}

static int sq_resolutions(void *handle, const char *signature_id, int limit,
			  callus_resolution **out, size_t *count, callus_error *err)
{
	return callus_learn_resolutions(handle, signature_id, limit, out, count, err);
}

static int sq_resolution(void *handle, int64_t id, callus_resolution *out, callus_error *err)
{
	return callus_learn_get_resolution(handle, id, out, err);
}

static int sq_feedback(void *handle, int64_t id, int success, const char *note, callus_metrics *m,
		       callus_error *err)
{
	return callus_learn_feedback(handle, id, success, note, m, err);
}

static int sq_flush_metrics(void *handle, callus_metrics *m, callus_error *err)
{
	return callus_store_flush_metrics(handle, m, err);
}

static int sq_read_metrics(void *handle, callus_metrics *m, callus_error *err)
{
	return callus_store_read_metrics(handle, m, err);
}

const callus_storage_ops callus_storage_sqlite = {
	"sqlite", "sqlite:", sq_open, sq_close, sq_resolutions, sq_resolution, sq_feedback,
	sq_flush_metrics, sq_read_metrics,
};

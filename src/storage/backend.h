/*
 * backend.h - the storage backends family: one file per backend in
 * src/storage/, each filling one callus_storage_ops, chosen from the table
 * in src/knowledge.c by the scheme of a location (include/callus/knowledge.h
 * is the API they serve).
 *
 * Adding a backend: src/storage/NAME.c defining `const callus_storage_ops
 * callus_storage_NAME`, a row in knowledge.c's table, and the knowledge
 * tests run against it (docs/HACKING.md has the checklist).
 */
#ifndef CALLUS_STORAGE_BACKEND_H
#define CALLUS_STORAGE_BACKEND_H

#include "callus/knowledge.h"

typedef struct callus_storage_ops {
	const char *name;   /* "sqlite" */
	const char *scheme; /* "sqlite:": the prefix of the locations it takes */
	/* Open location (the scheme stripped); *handle is the backend's own. */
	int (*open)(void **handle, const char *location, int timeout_ms, callus_error *err);
	void (*close)(void *handle);
	int (*resolutions)(void *handle, const char *signature_id, int limit,
			   callus_resolution **out, size_t *count, callus_error *err);
	int (*resolution)(void *handle, int64_t id, callus_resolution *out, callus_error *err);
	int (*feedback)(void *handle, int64_t id, int success, const char *note, callus_metrics *m,
			callus_error *err);
	int (*flush_metrics)(void *handle, callus_metrics *m, callus_error *err);
	int (*read_metrics)(void *handle, callus_metrics *m, callus_error *err);
	/* the team and org layers' notes (knowledge.h) */
	int (*propose)(void *handle, const callus_shared_note *n, int *created, callus_error *err);
	int (*shared_list)(void *handle, callus_layer l, int all, callus_shared_note **out,
			   size_t *count, callus_error *err);
	int (*shared_get)(void *handle, callus_layer l, const char *id, callus_shared_note *out,
			  callus_error *err);
	int (*decide)(void *handle, callus_layer l, const char *id, callus_shared_status to,
		      const char *who, const char *why, callus_error *err);
	int (*withdraw)(void *handle, callus_layer l, const char *id, const char *origin,
			const char *who, const char *why, callus_error *err);
	int (*pull)(void *handle, callus_layer l, int64_t since, int limit,
		    callus_shared_note **out, size_t *count, callus_error *err);
	int (*report)(void *handle, callus_layer l, const char *id, const char *instance,
		      int64_t applications, int64_t successes, callus_error *err);
} callus_storage_ops;

extern const callus_storage_ops callus_storage_sqlite;
extern const callus_storage_ops callus_storage_postgresql;

#endif

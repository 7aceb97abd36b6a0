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
} callus_storage_ops;

extern const callus_storage_ops callus_storage_sqlite;

#endif

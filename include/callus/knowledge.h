/*
 * knowledge.h - the knowledge callus shares beyond the run that learnt it:
 * resolutions with their outcomes, and metrics (notes and proposals join
 * them with the layers).  Reached through one interface whatever holds it;
 * the backends are the family in src/storage/ (one file each, one
 * callus_storage_ops, chosen from the table in src/knowledge.c by the
 * location's scheme).
 *
 * The workspace store (store.h) stays SQLite and keeps what only one
 * workspace needs (lessons, runs, pending errors, snapshots); a
 * callus_knowledge can be laid over it, or opened on its own.
 */
#ifndef CALLUS_KNOWLEDGE_H
#define CALLUS_KNOWLEDGE_H

#include <stddef.h>
#include <stdint.h>

#include "callus/common.h"
#include "callus/learn.h"
#include "callus/metrics.h"
#include "callus/store.h"

typedef struct callus_knowledge callus_knowledge;

/*
 * Open the knowledge at location: "sqlite:PATH", or a plain PATH (a
 * SQLite file, created with its schema when missing).  A scheme no
 * backend of this build takes ("postgresql://...") is CALLUS_EINVAL with a
 * message naming it.  *out is the caller's: callus_knowledge_close().
 */
int callus_knowledge_open(callus_knowledge **out, const char *location, int timeout_ms,
			  callus_error *err);

/* The knowledge of an open workspace store, which stays the caller's and
 * must outlive *out. */
int callus_knowledge_over_store(callus_knowledge **out, callus_store *s, callus_error *err);

/* Closes what callus_knowledge_open() opened; NULL is a no-op. */
void callus_knowledge_close(callus_knowledge *k);

/* The backend's name ("sqlite"); static. */
const char *callus_knowledge_backend(const callus_knowledge *k);

/* As callus_learn_resolutions(): best first, signature_id NULL for all. */
int callus_knowledge_resolutions(callus_knowledge *k, const char *signature_id, int limit,
				 callus_resolution **out, size_t *count, callus_error *err);
/* As callus_learn_get_resolution(): one, with its diff; CALLUS_ENOTFOUND. */
int callus_knowledge_resolution(callus_knowledge *k, int64_t id, callus_resolution *out,
				callus_error *err);
/* As callus_learn_feedback(): a reported outcome of resolution id. */
int callus_knowledge_feedback(callus_knowledge *k, int64_t id, int success, const char *note,
			      callus_metrics *m, callus_error *err);
/* Add m to the stored metrics (m is emptied on success); read them all. */
int callus_knowledge_flush_metrics(callus_knowledge *k, callus_metrics *m, callus_error *err);
int callus_knowledge_read_metrics(callus_knowledge *k, callus_metrics *m, callus_error *err);

#endif

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
#include "callus/notes.h"
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

/* Whether a backend of this build takes location (what
 * callus_knowledge_open would not refuse by its scheme). */
int callus_knowledge_location_known(const char *location);

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

/* ------------------------------------------------------------------ */
/* Notes of the team and org layers (team.h): proposals, the maintainers'
 * decisions, what a workspace pulls and the outcomes it reports. */

typedef enum callus_shared_status {
	CALLUS_SHARED_PROPOSED,
	CALLUS_SHARED_APPROVED,
	CALLUS_SHARED_REJECTED,
	CALLUS_SHARED_RETIRED
} callus_shared_status;

/* "proposed", "approved", "rejected", "retired"; and back (CALLUS_EINVAL). */
const char *callus_shared_status_name(callus_shared_status s);
int callus_shared_status_parse(callus_shared_status *out, const char *name);

typedef struct callus_shared_note {
	char id[CALLUS_NOTE_ID_LEN + 1]; /* the note's id where it was learnt */
	callus_layer layer;              /* team or org */
	callus_shared_status status;
	char *signature_id, *tool, *error_type, *title, *example, *rule, *steps, *code;
	char *extra;                     /* sections a person added to the note */
	char *files;                     /* a JSON array of paths */
	char *origin;                    /* "INSTANCE:ID": the workspace and note it came from */
	char *path;                      /* the promotion chain: "project>team" */
	char *proposed_by, *proposed_at, *decided_by, *decided_at, *why;
	int64_t applications, successes; /* over every workspace that reported */
	int64_t revision;                /* grows with every change */
} callus_shared_note;

void callus_shared_note_release(callus_shared_note *n);
void callus_shared_notes_free(callus_shared_note *n, size_t count);

/* Propose n (its layer, id and text; status and metrics ignored).  A note
 * the layer already has (proposed, decided or retired) is left alone:
 * *created (may be NULL) says whether this one was new. */
int callus_knowledge_propose(callus_knowledge *k, const callus_shared_note *n, int *created,
			     callus_error *err);
/* Layer l's notes, latest revision first: the proposals, or every status
 * when all.  callus_shared_notes_free(). */
int callus_knowledge_shared_list(callus_knowledge *k, callus_layer l, int all,
				 callus_shared_note **out, size_t *count, callus_error *err);
/* One by id or a unique prefix of it; CALLUS_ENOTFOUND, CALLUS_EINVAL when
 * ambiguous. */
int callus_knowledge_shared_get(callus_knowledge *k, callus_layer l, const char *id,
				callus_shared_note *out, callus_error *err);
/* A maintainer's decision on note id (exact): approved or rejected from
 * proposed, retired from approved; who and why are kept with it.  The
 * caller has checked the maintainer (team.h); a server store checks
 * again and refuses with CALLUS_EINVAL and its message. */
int callus_knowledge_decide(callus_knowledge *k, callus_layer l, const char *id,
			    callus_shared_status to, const char *who, const char *why,
			    callus_error *err);
/* Withdraw the proposal of note id that origin ("INSTANCE:ID", the
 * workspace and note it came from) made, still undecided: it is rejected,
 * by who, with why (its note was retired where it was learnt).
 * CALLUS_ENOTFOUND when there is no such proposal (decided already, or
 * another workspace's); a server store checks that the session's role
 * made it. */
int callus_knowledge_withdraw(callus_knowledge *k, callus_layer l, const char *id,
			      const char *origin, const char *who, const char *why,
			      callus_error *err);
/* What changed in layer l after revision since, oldest first, at most
 * limit (0: all). */
int callus_knowledge_pull(callus_knowledge *k, callus_layer l, int64_t since, int limit,
			  callus_shared_note **out, size_t *count, callus_error *err);
/* This instance's applications and successes of note id, as totals (a
 * report sent twice counts once); the note's revision moves when they
 * change, so every workspace pulls the new aggregate. */
int callus_knowledge_report(callus_knowledge *k, callus_layer l, const char *id,
			    const char *instance, int64_t applications, int64_t successes,
			    callus_error *err);

#endif

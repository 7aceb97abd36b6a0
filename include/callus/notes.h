/*
 * notes.h - hindsight notes (spec 004, DESIGN §6): what callus teaches.
 *
 * A note is made when an error's signature gets a resolution whose
 * success rate is above CALLUS_NOTE_MIN_SUCCESS: the error in words, the
 * steps of its fix (which function of which file changed how), the fix's
 * own diff lines, tags, and the rule its author may add
 * (callus_notes_set_rule).  One note per error: a new resolution of the
 * same signature, of a signature linked to it, or of one more than
 * CALLUS_NOTE_MERGE similar, joins the existing note.
 *
 * A note's id is the first CALLUS_NOTE_ID_LEN hex digits of the signature
 * it was made for, so two clones that learn the same error name the same
 * note.  Its metrics are the sums of its resolutions'.
 *
 * Each active note is also a Markdown file, <workspace>/.callus/notes/ID.md
 * (notemd.h), meant to be committed.  The file wins: one a person edited
 * or deleted, or one that arrived with `git pull`, is taken into the store
 * by callus_notes_sync(), which every command that reads or writes notes
 * calls first.  A note that came from a file this store never knew gets a
 * resolution of its own, made from its Code Examples, so that matching,
 * suggestions and their outcomes treat it as any other fix.
 */
#ifndef CALLUS_NOTES_H
#define CALLUS_NOTES_H

#include <stddef.h>
#include <stdint.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/learn.h"
#include "callus/store.h"
#include "callus/strlist.h"

#define CALLUS_NOTE_ID_LEN 12
#define CALLUS_NOTES_DIR ".callus/notes"
#define CALLUS_NOTE_MIN_SUCCESS 0.5   /* spec 004: a note once > 0.5 */
#define CALLUS_NOTE_MERGE 0.90        /* spec 004: the same note above this */
#define CALLUS_NOTE_CODE_MAX (6u << 10) /* bytes of diff a note keeps */
#define CALLUS_NOTE_FILE_MAX (256u << 10) /* a larger note file is not read */
#define CALLUS_NOTES_BLOAT 1000       /* spec 004's default per layer */

typedef enum callus_layer {
	CALLUS_LAYER_SESSION,
	CALLUS_LAYER_PROJECT,
	CALLUS_LAYER_TEAM,
	CALLUS_LAYER_ORG
} callus_layer;

#define CALLUS_LAYER_COUNT 4

/* "session", "project", "team", "org"; and back (CALLUS_EINVAL). */
const char *callus_layer_name(callus_layer l);
int callus_layer_parse(callus_layer *out, const char *name);

typedef struct callus_note {
	char id[CALLUS_NOTE_ID_LEN + 1];
	callus_layer layer;
	int retired;
	int edited;             /* a person changed its file: their words stay */
	char *signature_id;     /* the signature it was made for */
	char *tool, *error_type, *framework;
	char *title;            /* the error's pattern in one line */
	char *example;          /* one real message, redacted */
	char *rule;             /* the fixer's own words; "" */
	char *steps;            /* ## Resolution: one step a line */
	char *code;             /* ## Code Examples: a unified diff, bounded */
	char *extra;            /* sections a person added, kept as written */
	char *session;          /* the agent session that learnt it; "" */
	char *created_at, *updated_at;
	callus_strlist files;   /* the files its fixes changed */
	callus_strlist signatures; /* every signature it answers, its own first */
	int64_t applications, successes;
	double success_rate;
	int64_t resolutions;    /* how many fixes it merges */
} callus_note;

void callus_note_release(callus_note *n);
void callus_notes_free(callus_note *n, size_t count);

/*
 * Inside the caller's write transaction: make or merge the notes of these
 * resolutions (those above CALLUS_NOTE_MIN_SUCCESS; the others only
 * refresh a note they already belong to), and mark the files of the notes
 * that changed as owed, their ids added to *owed (the caller's, made
 * unique).  The files are written by callus_notes_write_owed() once the
 * transaction has committed: a file written before a commit that then
 * fails (a full disk) is ahead of its store, and the next sync took it in
 * as a person's or teammate's note, so that the same fix learnt again
 * counted twice.  Only the store's failures are errors.  *made (may be
 * NULL) counts notes created.  Call callus_notes_sync() first in the same
 * transaction, so that a person's edits are merged into, not written over.
 * candidates (may be NULL, borrowed): the regex fallback's rows kept
 * across the searches for notes a fix can join (match.h).
 */
struct callus_match_candidates;
int callus_notes_learn(callus_store *s, const char *workspace, const int64_t *resolutions,
		       size_t n, struct callus_match_candidates *candidates, size_t *made,
		       callus_strlist *owed, callus_error *err);

/*
 * The files callus_notes_learn() owed, written after its commit, in a
 * write transaction of their own (each read from the store under its lock,
 * so that of two learnings at once the last to write writes the newest).
 * A person's edit of a file since callus last wrote it is taken in first,
 * and a file they removed is not written back (the next whole sync retires
 * its note).  Never fatal: a file not written now stays owed, and the next
 * sync writes it (a crash between the two commits too); the workspace's
 * log says why (notes_owed).
 */
void callus_notes_write_owed(callus_store *s, const char *workspace, const callus_strlist *owed);

/*
 * Inside the caller's write transaction: resolution rid's metrics moved
 * outside learning (`callus feedback`): its note's follow, and its file is
 * rewritten at the next sync.  0 or a CALLUS_E* code.
 */
int callus_notes_metrics_moved(callus_store *s, int64_t rid, callus_error *err);

/*
 * A note's title from its row: kept when the row keeps one, else the title
 * a note gets from its error, its tool, ": " and the first line of its
 * example, at most 200 bytes of it ("gcc: format '%s' expects ...").  A
 * row keeps its title empty while it is that one (schema 24); every reader
 * of a note's row makes it so.  Caller frees; NULL when out of memory.
 */
char *callus_note_title(const char *kept, const char *tool, const char *example);

/*
 * Take .callus/notes/ into the store (edited, deleted and new files) and
 * write the files of notes that have none yet.  Opens its own write
 * transaction only when something changed, unless the caller holds one.
 * *changed (may be NULL) counts notes taken in.
 */
int callus_notes_sync(callus_store *s, const char *workspace, size_t *changed,
		      callus_error *err);

/* As callus_notes_sync(), for a recording: while the folder's mtime is the
 * one of the last whole sync (.callus/notes.cursor), only the next 256
 * known notes' files are looked at, in turn, and only their rows and those
 * of notes whose file is behind are read: an edit in place is taken in
 * within notes/256 recordings, a new, removed or renamed file at once.
 * callus writing or removing a note's file keeps the cursor with the
 * folder. */
int callus_notes_sync_bounded(callus_store *s, const char *workspace, size_t *changed,
			      callus_error *err);

/* The files of the notes ns[0..n) (those a reply is about to show) taken
 * in, each at once, wherever a bounded sync's slice is: a note shown is as
 * its file says, even edited in place.  *changed (may be NULL) counts the
 * notes taken in: the caller lists them again.  0, or the first
 * CALLUS_E* code (the others are still looked at). */
int callus_notes_sync_shown(callus_store *s, const char *workspace, const callus_note *ns,
			    size_t n, size_t *changed, callus_error *err);

typedef struct callus_note_filter {
	int layer;              /* a callus_layer, or -1 for all */
	int retired;            /* also retired notes */
	int limit;              /* 0: no limit */
	int proven;             /* only those above CALLUS_NOTE_MIN_SUCCESS: what
				 * is taught */
	int brief;              /* what a view shows: resolutions 0, signatures
				 * its own only (two subqueries a row into
				 * other tables, which no view shows) */
} callus_note_filter;

/* Best first: success rate, then applications, then the latest update.
 * Free with callus_notes_free(). */
int callus_notes_list(callus_store *s, const callus_note_filter *f, callus_note **out,
		      size_t *count, callus_error *err);

/* One by id or a unique prefix of it (at least 4 hex digits).
 * CALLUS_ENOTFOUND; CALLUS_EINVAL for an ambiguous prefix. */
int callus_notes_get(callus_store *s, const char *id, callus_note *out, callus_error *err);

/* The active note a resolution belongs to; CALLUS_ENOTFOUND when none. */
int callus_notes_of_resolution(callus_store *s, int64_t resolution_id, callus_note *out,
			       callus_error *err);

/* What an agent is shown for a suggested resolution: its active note, else
 * a note-shaped view of the resolution itself (id "", not stored), so that
 * a fix is shown the same way before its note exists.  CALLUS_ENOTFOUND
 * for an unknown resolution. */
int callus_notes_for_resolution(callus_store *s, int64_t resolution_id, callus_note *out,
				callus_error *err);

/* What to show of these suggestions, in their order: each one's note (as
 * callus_notes_for_resolution()), two fixes of one note shown once, a
 * suggestion whose note cannot be read left out.  *out is the caller's:
 * callus_notes_free(*out, *count). */
int callus_notes_for_suggestions(callus_store *s, const callus_suggestion *g, size_t n,
				 callus_note **out, size_t *count);

/* Set a note's rule (one line, redacted by the caller; "" clears it): it
 * heads the note from then on, and becomes the corrective_rule of the
 * lessons of its signatures.  Its file is written after the commit
 * (callus_notes_write_owed); within a caller's transaction it is owed,
 * and the next sync writes it. */
int callus_notes_set_rule(callus_store *s, const char *workspace, const char *id,
			  const char *rule, callus_error *err);

/* Retire a note: it is no longer shown, and its file is removed. */
int callus_notes_retire(callus_store *s, const char *workspace, const char *id,
			callus_error *err);

/*
 * The vector file of the signatures that have a note (a built-in vector
 * each; beside the store), made to agree with the store first: rebuilt
 * when behind it, compacted when far ahead.  *path (cleared first) names
 * it, for a search of the noted signatures alone (callus_match_opts:
 * vectors, noted).  0 or a negative CALLUS_E* code.
 */
int callus_notes_vectors_fresh(callus_store *s, callus_buf *path, callus_error *err);

/*
 * Set mo to search as a recording does in a store of more than window
 * built-in vectors (match.h: CALLUS_MATCH_WINDOW): the newest window of
 * them and every noted signature (mo->window, mo->noted, which names
 * *path, the noted file made fresh).  Nothing is set in a smaller store:
 * every vector is searched.  0, or a negative CALLUS_E* code when the
 * noted file cannot be made fresh (nothing set either).
 */
struct callus_match_opts;
int callus_notes_window(callus_store *s, size_t window, struct callus_match_opts *mo,
			callus_buf *path, callus_error *err);

#endif

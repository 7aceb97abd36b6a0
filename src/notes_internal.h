/*
 * notes_internal.h - what the pieces of notes share: reading one note by
 * its exact id (notes.c), and its file, written, removed and read back
 * (notes_sync.c).  Not part of the public API: callers go through
 * callus/notes.h.
 */
#ifndef CALLUS_NOTES_INTERNAL_H
#define CALLUS_NOTES_INTERNAL_H

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/notes.h"
#include "callus/store.h"

/* What a note's row keeps of title, for a note of tool and example: ""
 * when callus_note_title makes it of them (*out then a literal), title
 * itself otherwise.  0, or CALLUS_ENOMEM. */
int callus_notes_title_kept(const char *title, const char *tool, const char *example,
			    const char **out);

/* The note of exactly this id, active or retired; CALLUS_ENOTFOUND. */
int callus_notes_note_get(callus_store *s, const char *id, callus_note *out, callus_error *err);

/*
 * Write note id's file from the store (remove it when the note is
 * retired) and record what was written, so that a later change to it is
 * known to be a person's.  Inside the caller's transaction.  A file that
 * cannot be written is marked to be written at the next sync; only the
 * store's failures are errors.
 */
int callus_notes_write_file(callus_store *s, const char *workspace, const char *id,
			    callus_error *err);

/* Note id's file owed: the next sync, or callus_notes_write_owed(),
 * writes it, taking in first a person's change to the file as callus last
 * wrote it (its hash and mtime are kept).  An SQLite result code. */
int callus_notes_owe_file(callus_store *s, const char *id);

/* Note id answers resolution rid (its id as text) and signature sig: both
 * kept with it, once (a signature new to the notes goes to their vector
 * file too).  An SQLite result code. */
int callus_notes_attach(callus_store *s, const char *id, const char *rid, const char *sig);

/* The noted signatures' vector file (notes_vectors.c): the vector of sig,
 * which a note just gained, appended to it (nothing without one; failures
 * leave the file behind the store's count, which the next search
 * repairs; notes.h: callus_notes_vectors_fresh). */
void callus_notes_vectors_add(callus_store *s, const char *sig);

/* Note id retired now (its file to be removed, never written again).  An
 * SQLite result code. */
int callus_notes_mark_retired(callus_store *s, const char *id, const char *now);

/* Remove note id's file; a missing one is no error. */
int callus_notes_remove_file(const char *workspace, const char *id, callus_error *err);

/* The known notes a recording's bounded sync checks the files of, while
 * the folder is as the last whole look saw it (notes_sync.c): an edit in
 * place is taken in within notes / CALLUS_NOTES_SYNC_SLICE recordings,
 * and at once for a note a reply shows (callus_notes_sync_one, record.c). */
#define CALLUS_NOTES_SYNC_SLICE 64

/* Learning's syncs (notes_sync.c).  sync_moved: nothing while the folder
 * is as the recording's bounded sync saw it (.callus/notes.cursor), the
 * whole folder when a file was added, removed or renamed since.
 * sync_one: one note's file taken in (an edit in place), before learning
 * changes the note: the person's words are the store's first. */
int callus_notes_sync_moved(callus_store *s, const char *workspace, size_t *changed,
			    callus_error *err);
int callus_notes_sync_one(callus_store *s, const char *workspace, const char *id,
			  size_t *changed, callus_error *err);

#endif

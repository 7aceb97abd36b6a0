/*
 * gc.h - retention: what a workspace keeps as it grows, and `callus gc`
 * applying it (docs/scale.md).
 *
 * Goes, by the policy below: lessons unseen for lesson_days (but one a
 * person wrote into: a cause, resolution or rule), and the least
 * valuable beyond lessons_max (one without a person's words before one
 * with them, then fewest occurrences, then oldest), with their
 * .lessons/ files; runs older than run_days with their errors; errors that
 * went away with no fix (fixed, no resolution) older than run_days;
 * pending errors of abandoned sessions (idle prune_hours, as learn.h
 * prunes them); checks not run for run_days that no error names; error
 * signatures unseen for signature_days that nothing needs, with their
 * vectors; the vectors and vector file of an external embedding model the
 * workspace is no longer set up with, once no callus process has had it
 * set up for model_days (each such vector is a few kilobytes, as much as
 * the rest of its signature's rows); snapshots nothing refers to.
 *
 * Stays whatever its age: every note and note file, every resolution and
 * the signature it fixes, the signatures of notes (cached team and org
 * notes too), of open and permanent errors and of links (merges,
 * duplicates), the newest signature (its number is never given again),
 * and the metrics.  The caller writes the instructions file's block again
 * when lessons went (callus_gc_result.lessons): it names their files; and
 * when lessons were redacted again (redacted_lessons): it shows them.
 */
#ifndef CALLUS_GC_H
#define CALLUS_GC_H

#include <stddef.h>

#include "callus/common.h"
#include "callus/store.h"

#define CALLUS_GC_LESSON_DAYS 180
#define CALLUS_GC_LESSONS_MAX 10000
#define CALLUS_GC_RUN_DAYS 30
#define CALLUS_GC_SIGNATURE_DAYS 180
#define CALLUS_GC_MODEL_DAYS 30
#define CALLUS_GC_INTERVAL_HOURS 24
#define CALLUS_GC_BACKGROUND_BATCH 500
/* rows the background pass redacts again, while a store is due
 * (store_redact.h) */
#define CALLUS_GC_REDACT_BUDGET 32768

/* [retention] in .callus/config; a value <= 0 turns that rule off. */
typedef struct callus_gc_policy {
	int lesson_days;      /* lessons unseen this long go, but one with
			       * a person's words (a cause, resolution or
			       * rule: store_internal.h) */
	int lessons_max;      /* at most this many lessons */
	int run_days;         /* runs, fixes without a resolution and checks
			       * with no error left this old go */
	int signature_days;   /* signatures unseen this long, needed by nothing, go */
	int model_days;       /* the vectors of an external embedding model
			       * the workspace is no longer set up with go,
			       * with its file, once no callus process has
			       * had it set up for model_days
			       * (callus_gc_model_named) */
	const char *embed_model; /* the external model it is set up with
			       * (callus_embed_remote_model_id's id); NULL:
			       * none.  Not owned */
	int embed_known;      /* embed_model says what the configuration
			       * names: without it (the default; a
			       * configuration that could not be read) no
			       * model's vectors go */
	int prune_hours;      /* pending errors idle this long go (learn.h) */
	int interval_hours;   /* the background pass: at most once per interval */
	size_t batch;         /* at most this many of each kind per pass; 0: all
			       * (callus gc), the background pass bounds it */
	int sweep;            /* also remove .lessons/ files no lesson has, and
			       * VACUUM when a quarter of the store is free */
	const char *now;      /* ages count back from this time (the format of
			       * callus_now_iso8601()); NULL: the clock.  Set
			       * to replay a history at its own times
			       * (bench/scale_gen.c); not owned */
	int64_t keep_lesson;  /* a lesson no rule removes: the one the
			       * recording that runs the pass has just told
			       * of; 0: none.  The newest lesson stays too,
			       * whatever its age (gc.c says why) */
	int dry_run;          /* change nothing: the pass runs in one
			       * transaction rolled back at its end, and
			       * the .lessons/ files it would remove are
			       * counted, not removed; nothing is redacted
			       * again, rewritten or vacuumed (res says
			       * whether redaction is due) */
	const struct callus_redactor *redactor;
			      /* while the store was last redacted whole by
			       * an older redactor, its texts are redacted
			       * again with this one (store_redact.h), all
			       * of them (batch 0) or CALLUS_GC_REDACT_BUDGET
			       * rows a pass; NULL: not.  Not owned */
} callus_gc_policy;

/* The defaults above (batch 0, sweep 1, now NULL). */
void callus_gc_policy_default(callus_gc_policy *p);

typedef struct callus_gc_result {
	size_t lessons, lesson_files, runs, unresolved, checks, pending, signatures, snapshots;
	size_t model_vectors;    /* vectors of models no longer set up */
	size_t models;           /* such models whose vectors all went */
	size_t snapshot_objects; /* with sweep, in a workspace without git: the
				  * copies its private repository held for
				  * snapshots no longer kept (objects) */
	size_t temp_files;       /* with sweep, the vector files' rewrites a cut
				  * process left in .callus */
	size_t redacted;         /* rows that held what the redactor now finds */
	size_t redacted_lessons; /* of those, lessons: the block is the caller's */
	size_t redacted_log;     /* lines of the log beside the store */
	int redaction_due;       /* the store is not yet redacted whole by it */
	int vacuumed;            /* VACUUM ran, and did not fail */
	int wal_left;            /* the write-ahead log could not be emptied (a
				  * reader held it): the pages went, the file
				  * shrinks at the next write after it lets go */
} callus_gc_result;

/*
 * Apply p to the store of workspace (absolute), each kind in its own
 * short transaction.  res may be NULL.  Returns 0 or a negative CALLUS_E*
 * code; what was removed before a failure stays removed.
 */
int callus_gc(callus_store *s, const char *workspace, const callus_gc_policy *p,
	      callus_gc_result *res, callus_error *err);

/*
 * The count's rule applied by a recording that has just added a lesson
 * (docs/scale.md): when the store holds more than p->lessons_max, the
 * least valuable go, as callus_gc removes them, down to lessons_max less
 * margin (a recording: CALLUS_GC_LESSONS_MARGIN, so that the read of
 * every lesson that picks them is made once for that many new lessons,
 * not for each; a single pass: 0), at most p->batch of them (0: all);
 * p->keep_lesson stays.  Nothing when not over (counted in the removal's
 * transaction), nor in a dry run (nothing counted either: callus gc
 * --dry-run counts the count's rule with the others).  res (may be NULL)
 * counts what went: the caller writes the instructions block again when
 * lessons went (callus_record_lessons_over, record.h, does both).  0, or
 * a negative CALLUS_E* code; what went before a failure stays gone.
 */
int callus_gc_lessons_over(callus_store *s, const char *workspace, const callus_gc_policy *p,
			   int margin, callus_gc_result *res, callus_error *err);

/* Whether the store holds more lessons than p->lessons_max (0 also when
 * it cannot say): one read of the count its triggers keep, for a caller
 * that prepares the removal only when there is one. */
int callus_gc_lessons_past(callus_store *s, const callus_gc_policy *p);

/* Lessons below [retention] lessons the rule above leaves: a hundredth of
 * it, at most 100 (none under 100: each new lesson past it takes one). */
#define CALLUS_GC_LESSONS_MARGIN(max) ((max) / 100 > 100 ? 100 : (max) / 100)

/*
 * Is the background pass due?  True when .callus/gc.stamp is missing or
 * older than p->interval_hours; it is touched then, so that of the
 * recordings that see it due at once, about one runs the pass.  One stat
 * when not due.
 */
int callus_gc_due(const char *workspace, const callus_gc_policy *p);

/*
 * model (an external embedder's model id) is what the workspace is set up
 * with as of now (callus_now_iso8601()'s format; NULL: the clock): its
 * vectors stay at least model_days from then.  Each gc pass that has it
 * set up says so, and so does each `callus reindex`: a model set up in
 * some processes' environment only (CALLUS_EMBED_URL) is not taken for
 * dropped by a pass run without it.  Writes only when the time kept is a
 * day old or more (or none).  0, or a negative CALLUS_E* code with err set.
 */
int callus_gc_model_named(callus_store *s, const char *model, const char *now, callus_error *err);

/* When a callus process last said it had model set up, in *out (the
 * caller's; NULL: none since the rule began, and the next gc pass starts
 * the model's days).  0, or a negative CALLUS_E* code with err set. */
int callus_gc_model_named_at(callus_store *s, const char *model, char **out, callus_error *err);

#endif

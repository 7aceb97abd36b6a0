/*
 * store_schema.c - the store's schema: the forward-only migrations, one per
 * schema version, and applying them when a store is opened
 * (callus_store_migrate, store_internal.h).  Apart from opening and
 * locking (store.c) because the schema grows a migration at a time while
 * the rest stays put.
 */
#include "callus/store.h"
#include "callus/buf.h"
#include "callus/embed.h"
#include "callus/migrate.h"
#include "callus/notes.h"
#include "callus/signature.h"
#include "callus/store_redact.h"
#include "callus/strlist.h"
#include "callus/vecindex.h"
#include "match_internal.h"
#include "store_internal.h"

#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

/* An error's columns after its check and signature (schema 4; the table
 * rebuilt with them, schema 16). */
#define PENDING_COLUMNS                                                                     \
	"  state TEXT NOT NULL DEFAULT 'pending'"                                           \
	"   CHECK (state IN ('pending','fixed','permanent')),"                              \
	"  attempts INTEGER NOT NULL DEFAULT 1 CHECK (attempts >= 1),"                      \
	"  first_failure_at TEXT NOT NULL,"                                                 \
	"  last_failure_at TEXT NOT NULL,"                                                  \
	"  session TEXT NOT NULL DEFAULT '',"                                               \
	"  files TEXT NOT NULL DEFAULT '[]',"                                               \
	"  snapshot_id INTEGER REFERENCES snapshots(id) ON DELETE SET NULL,"                \
	"  closed_at TEXT NOT NULL DEFAULT '',"                                             \
	"  closed_run INTEGER NOT NULL DEFAULT 0,"                                          \
	"  resolution_id INTEGER REFERENCES resolutions(id) ON DELETE SET NULL);"

/* The triggers that make an error's states one-way whoever writes the store
 * (schema 4; made again with the table, schema 16). */
#define PENDING_ONE_WAY                                                                     \
	"CREATE TRIGGER pending_starts_pending BEFORE INSERT ON pending_errors"             \
	"  WHEN NEW.state <> 'pending'"                                                     \
	"  BEGIN SELECT RAISE(ABORT, 'an error starts pending'); END;"                      \
	"CREATE TRIGGER pending_one_way BEFORE UPDATE OF state ON pending_errors"           \
	"  WHEN OLD.state <> 'pending' AND NEW.state <> OLD.state"                          \
	"  BEGIN SELECT RAISE(ABORT, 'a fixed or permanent error stays so'); END;"

/* The errors by state in totals (schema 13; made again with the table,
 * schema 16). */
#define PENDING_TOTALS                                                                      \
	"CREATE TRIGGER totals_error_in AFTER INSERT ON pending_errors"                     \
	"  BEGIN UPDATE totals SET pending = pending + 1; END;"                             \
	"CREATE TRIGGER totals_error_out AFTER DELETE ON pending_errors"                    \
	"  BEGIN UPDATE totals SET pending = pending - (OLD.state = 'pending'),"            \
	"  fixed = fixed - (OLD.state = 'fixed'),"                                          \
	" permanent = permanent - (OLD.state = 'permanent');"                               \
	"  END;"                                                                            \
	"CREATE TRIGGER totals_error_closed AFTER UPDATE OF state ON pending_errors"        \
	"  WHEN OLD.state = 'pending' AND NEW.state <> 'pending'"                           \
	"  BEGIN UPDATE totals SET pending = pending - 1,"                                   \
	" fixed = fixed + (NEW.state = 'fixed'),"                                           \
	"  permanent = permanent + (NEW.state = 'permanent'); END;"

/* The vectors counted per model (schema 9; made again with the table,
 * schema 16). */
#define VECTOR_COUNTS                                                                       \
	"CREATE TRIGGER vectors_added AFTER INSERT ON signature_vectors BEGIN"              \
	"  INSERT INTO vector_counts VALUES (NEW.model, 1)"                                 \
	"  ON CONFLICT (model) DO UPDATE SET n = n + 1; END;"                               \
	"CREATE TRIGGER vectors_removed AFTER DELETE ON signature_vectors BEGIN"            \
	"  UPDATE vector_counts SET n = n - 1 WHERE model = OLD.model; END;"

/* A built-in vector's model column, as the triggers below test it:
 * BUILTIN_NAMED up to schema 31, the model's name; BUILTIN_ID since
 * schema 32, its id in vector_models. */
#define BUILTIN_NAMED "'" CALLUS_EMBED_BUILTIN_MODEL "'"
#define BUILTIN_ID CALLUS_MATCH_BUILTIN_ID
#define SQL_INT_(n) #n
#define SQL_INT(n) SQL_INT_(n)
/* callus_match_df_hot_min() of the built-in model's vectors, in SQL */
#define DF_HOT_MIN_SQL                                                                    \
	"max(" SQL_INT(CALLUS_MATCH_DF_HOT_MIN) ", coalesce((SELECT n FROM vector_models"  \
	" WHERE id = " BUILTIN_ID "), 0) / " SQL_INT(CALLUS_MATCH_DF_HOT_SHARE) ")"

/* The signatures with a note and a built-in vector counted, the vectors
 * naming their signature by rowid (schema 16; made again with the
 * signatures, schema 20; the notes' half again with the vectors' model
 * ids, schema 32). */
#define NOTED_COUNT_NOTES(m)                                                                \
	"CREATE TRIGGER noted_count_note_add AFTER INSERT ON note_signatures"               \
	"  WHEN EXISTS (SELECT 1 FROM signatures g JOIN signature_vectors v ON v.sig = g.rowid" \
	"   WHERE g.id = NEW.signature_id AND v.model = " m ")"                              \
	"  BEGIN UPDATE noted_count SET n = n + 1; END;"                                     \
	"CREATE TRIGGER noted_count_note_remove AFTER DELETE ON note_signatures"            \
	"  WHEN EXISTS (SELECT 1 FROM signatures g JOIN signature_vectors v ON v.sig = g.rowid" \
	"   WHERE g.id = OLD.signature_id AND v.model = " m ")"                              \
	"  BEGIN UPDATE noted_count SET n = n - 1; END;"
#define NOTED_COUNT_BY_ROWID                                                                \
	NOTED_COUNT_NOTES(BUILTIN_NAMED)                                                    \
	"CREATE TRIGGER noted_count_vector_add AFTER INSERT ON signature_vectors"           \
	"  WHEN NEW.model = " BUILTIN_NAMED " AND EXISTS (SELECT 1 FROM"                     \
	"   signatures g JOIN note_signatures x ON x.signature_id = g.id WHERE g.rowid = NEW.sig)" \
	"  BEGIN UPDATE noted_count SET n = n + 1; END;"                                     \
	"CREATE TRIGGER noted_count_vector_remove AFTER DELETE ON signature_vectors"        \
	"  WHEN OLD.model = " BUILTIN_NAMED " AND EXISTS (SELECT 1 FROM"                     \
	"   signatures g JOIN note_signatures x ON x.signature_id = g.id WHERE g.rowid = OLD.sig)" \
	"  BEGIN UPDATE noted_count SET n = n - 1; END;"

/* Whether the signature named by the expression id has a built-in vector
 * (0 or 1). */
#define HAS_BUILTIN_VECTOR(id, m)                                                           \
	"(EXISTS (SELECT 1 FROM signatures g JOIN signature_vectors v ON v.sig = g.rowid"   \
	" WHERE g.id = " id " AND v.model = " m "))"

/* A built-in vector added or removed moves the noted count by the notes
 * and the cached notes of its signature (schema 30: the cached ones too);
 * most have neither, and leave the count's page unwritten. */
#define NOTED_COUNT_OF(sig)                                                                 \
	"((SELECT count(*) FROM signatures g JOIN note_signatures x ON x.signature_id = g.id" \
	"  WHERE g.rowid = " sig ") + (SELECT count(*) FROM signatures g JOIN note_cache c"   \
	"  ON c.signature_id = g.id WHERE g.rowid = " sig "))"
#define NOTED_COUNT_VECTORS(m)                                                              \
	"CREATE TRIGGER noted_count_vector_add AFTER INSERT ON signature_vectors"           \
	"  WHEN NEW.model = " m " AND " NOTED_COUNT_OF("NEW.sig") " > 0"                     \
	"  BEGIN UPDATE noted_count SET n = n + " NOTED_COUNT_OF("NEW.sig") "; END;"         \
	"CREATE TRIGGER noted_count_vector_remove AFTER DELETE ON signature_vectors"        \
	"  WHEN OLD.model = " m " AND " NOTED_COUNT_OF("OLD.sig") " > 0"                     \
	"  BEGIN UPDATE noted_count SET n = n - " NOTED_COUNT_OF("OLD.sig") "; END;"

/* A layer's cached note counted when its signature has a built-in vector
 * (schema 30; again with the vectors' model ids, schema 32).  A cached
 * note may change its signature in place (a newer revision). */
#define NOTED_COUNT_CACHE(m)                                                                \
	"CREATE TRIGGER noted_count_cache_add AFTER INSERT ON note_cache"                   \
	"  WHEN " HAS_BUILTIN_VECTOR("NEW.signature_id", m)                                 \
	"  BEGIN UPDATE noted_count SET n = n + 1; END;"                                     \
	"CREATE TRIGGER noted_count_cache_remove AFTER DELETE ON note_cache"                \
	"  WHEN " HAS_BUILTIN_VECTOR("OLD.signature_id", m)                                 \
	"  BEGIN UPDATE noted_count SET n = n - 1; END;"                                     \
	"CREATE TRIGGER noted_count_cache_moved AFTER UPDATE OF signature_id ON note_cache"  \
	"  WHEN OLD.signature_id <> NEW.signature_id"                                       \
	"  BEGIN UPDATE noted_count SET n = n - " HAS_BUILTIN_VECTOR("OLD.signature_id", m)  \
	"   + " HAS_BUILTIN_VECTOR("NEW.signature_id", m) "; END;"

/* The vectors counted per model in vector_models (schema 32), as
 * VECTOR_COUNTS did in vector_counts. */
#define VECTOR_MODEL_COUNTS                                                                 \
	"CREATE TRIGGER vectors_added AFTER INSERT ON signature_vectors BEGIN"              \
	"  UPDATE vector_models SET n = n + 1 WHERE id = NEW.model; END;"                   \
	"CREATE TRIGGER vectors_removed AFTER DELETE ON signature_vectors BEGIN"            \
	"  UPDATE vector_models SET n = n - 1 WHERE id = OLD.model; END;"

/*
 * vector_models.aliased (schema 41): how many of the model's vectors are
 * of a signature some link names as its alias, the rows of
 *	signature_links l JOIN signatures g ON g.id = l.alias_id
 *	JOIN signature_vectors v ON v.sig = g.rowid
 * per v.model.  Each trigger adds or takes away the rows of that join
 * that one row of one of the three tables makes, as the other two are
 * then: whichever of a link and a vector goes first takes their row
 * away, and the second finds nothing to take.  A signature removed loses
 * its vectors before it goes (signature_gone), while its links still
 * name it; a renamed one (store_resign.c) changes which links reach its
 * vectors.  What these triggers do not see, nothing does: a row deleted
 * by INSERT OR REPLACE (no delete trigger fires for it: an upsert
 * instead), an update of a vector's sig or model, or of a signature's
 * rowid.  A rebuild of signatures drops and makes them again.
 */
#define ALIAS_MODELS(id)                                                                    \
	"(SELECT v.model FROM signatures g JOIN signature_vectors v ON v.sig = g.rowid"      \
	" WHERE g.id = " id ")"
#define IS_ALIAS_ROW(sig)                                                                   \
	"EXISTS (SELECT 1 FROM signatures g JOIN signature_links l ON l.alias_id = g.id"     \
	" WHERE g.rowid = " sig ")"
#define LINKS_OF(id) "(SELECT count(*) FROM signature_links WHERE alias_id = " id ")"
#define ALIASED_COUNTS                                                                      \
	"CREATE TRIGGER aliased_link_in AFTER INSERT ON signature_links BEGIN"              \
	"  UPDATE vector_models SET aliased = aliased + 1 WHERE id IN "                     \
	ALIAS_MODELS("NEW.alias_id") "; END;"                                               \
	"CREATE TRIGGER aliased_link_out AFTER DELETE ON signature_links BEGIN"             \
	"  UPDATE vector_models SET aliased = aliased - 1 WHERE id IN "                     \
	ALIAS_MODELS("OLD.alias_id") "; END;"                                               \
	"CREATE TRIGGER aliased_link_moved AFTER UPDATE OF alias_id ON signature_links"     \
	"  WHEN OLD.alias_id IS NOT NEW.alias_id BEGIN"                                     \
	"  UPDATE vector_models SET aliased = aliased - 1 WHERE id IN "                     \
	ALIAS_MODELS("OLD.alias_id") ";"                                                    \
	"  UPDATE vector_models SET aliased = aliased + 1 WHERE id IN "                     \
	ALIAS_MODELS("NEW.alias_id") "; END;"                                               \
	"CREATE TRIGGER aliased_vector_in AFTER INSERT ON signature_vectors"                \
	"  WHEN " IS_ALIAS_ROW("NEW.sig") " BEGIN"                                          \
	"  UPDATE vector_models SET aliased = aliased + 1 WHERE id = NEW.model; END;"       \
	"CREATE TRIGGER aliased_vector_out AFTER DELETE ON signature_vectors"               \
	"  WHEN " IS_ALIAS_ROW("OLD.sig") " BEGIN"                                          \
	"  UPDATE vector_models SET aliased = aliased - 1 WHERE id = OLD.model; END;"       \
	"CREATE TRIGGER aliased_renamed AFTER UPDATE OF id ON signatures"                   \
	"  WHEN OLD.id IS NOT NEW.id BEGIN"                                                 \
	"  UPDATE vector_models SET aliased = aliased - " LINKS_OF("OLD.id")                \
	"   + " LINKS_OF("NEW.id") " WHERE id IN (SELECT model FROM signature_vectors"        \
	"   WHERE sig = NEW.rowid); END;"

/* What a signature is, as schema 2 made its table and schema 20 made it
 * again. */
#define SIGNATURE_WHAT                                                                      \
	"  error_type TEXT NOT NULL,"                                                       \
	"  message_pattern TEXT NOT NULL,"                                                  \
	"  stack_patterns TEXT NOT NULL DEFAULT '[]',"                                      \
	"  context_patterns TEXT NOT NULL DEFAULT '[]',"                                    \
	"  original TEXT NOT NULL,"                                                         \
	"  tool TEXT NOT NULL,"

/* A new signature queued for its vector (schema 9), and counted in totals
 * (schema 13); made again with the table, schema 20. */
#define SIGNATURES_QUEUED                                                                   \
	"CREATE TRIGGER signatures_queued AFTER INSERT ON signatures BEGIN"                 \
	"  INSERT OR IGNORE INTO signatures_unindexed VALUES (NEW.rowid); END;"
#define SIGNATURE_TOTALS                                                                    \
	"CREATE TRIGGER totals_signature_in AFTER INSERT ON signatures"                     \
	"  BEGIN UPDATE totals SET signatures = signatures + 1; END;"                       \
	"CREATE TRIGGER totals_signature_out AFTER DELETE ON signatures"                    \
	"  BEGIN UPDATE totals SET signatures = signatures - 1; END;"

/* A signature removed takes its vectors and errors with it (schema 16;
 * made again with the table, schema 20). */
#define SIGNATURE_GONE                                                                      \
	"CREATE TRIGGER signature_gone BEFORE DELETE ON signatures BEGIN"                   \
	"  DELETE FROM signature_vectors WHERE sig = OLD.rowid;"                            \
	"  DELETE FROM pending_errors WHERE sig = OLD.rowid; END;"

/* From schema 35: and a run's error that names it by '' (its message is
 * the signature's original) gets that text back. */
#define SIGNATURE_GONE_35_BODY                                                              \
	"  DELETE FROM signature_vectors WHERE sig = OLD.rowid;"                            \
	"  DELETE FROM pending_errors WHERE sig = OLD.rowid;"                               \
	"  UPDATE run_errors SET message = OLD.original WHERE sig = OLD.rowid"              \
	"  AND message = '';"
#define SIGNATURE_GONE_35                                                                   \
	"CREATE TRIGGER signature_gone BEFORE DELETE ON signatures BEGIN"                   \
	SIGNATURE_GONE_35_BODY " END;"

/* A lesson's files, its own and those it affects, listed in lesson_files
 * (schema 8; with the lesson's count, schema 46). */
#define LESSON_FILES_OF_NEW                                                                 \
	"  INSERT OR IGNORE INTO lesson_files SELECT NEW.file, NEW.id WHERE NEW.file <> '';" \
	"  INSERT OR IGNORE INTO lesson_files SELECT value, NEW.id FROM json_each(NEW.affected_files)" \
	"   WHERE type = 'text' AND value <> '';"

/* A rebuild of signatures (schemas 20 and 28) into signatures_t, in
 * SQLite's order: the triggers that read the table from others dropped
 * first (SIGNATURES_REBUILD_BEGIN), then the new table made and filled,
 * then the old one replaced and every trigger and index made again
 * (SIGNATURES_REBUILD_END).  The new table's key and times: */
#define SIGNATURE_KEY                                                                       \
	"  sig INTEGER PRIMARY KEY,"                                                        \
	"  id TEXT NOT NULL UNIQUE,"
#define SIGNATURE_SEEN                                                                      \
	"  first_seen INTEGER NOT NULL CHECK (typeof(first_seen) = 'integer'),"             \
	"  last_seen INTEGER NOT NULL CHECK (typeof(last_seen) = 'integer'),"               \
	"  occurrence_count INTEGER NOT NULL DEFAULT 1 CHECK (occurrence_count >= 1));"
#define SIGNATURES_REBUILD_BEGIN                                                            \
	"DROP TRIGGER noted_count_note_add;"                                                \
	"DROP TRIGGER noted_count_note_remove;"                                             \
	"DROP TRIGGER noted_count_vector_add;"                                              \
	"DROP TRIGGER noted_count_vector_remove;"
#define SIGNATURES_REBUILD_END                                                              \
	"DROP TABLE signatures;"                                                            \
	"ALTER TABLE signatures_t RENAME TO signatures;"                                    \
	"CREATE INDEX signatures_type_seen ON signatures(error_type, last_seen);"           \
	SIGNATURES_QUEUED                                                                   \
	SIGNATURE_TOTALS                                                                    \
	NOTED_COUNT_BY_ROWID                                                                \
	SIGNATURE_GONE

/* Forward-only migrations; migrations[i] takes the schema from version i
 * to version i + 1.  Never edit one that has shipped: add another. */
/*
 * A note's sums (applications, successes) and its best fix
 * (best_resolution) follow its fixes as they come, go and are counted
 * (schema 37), whoever writes them: a fix attached, detached, deleted
 * (before its row goes: the cascade to note_resolutions then finds
 * nothing to subtract), or its counts, time or diff changed.
 * best_resolution is the fix notes.c would rank first among those with a
 * diff (by rate, then the successes, then the latest success, then the
 * newest; before schema 44 without the successes, so that a fix that
 * worked once the day before ranked above one that worked every time),
 * 0 when none has one, NULL when not known: the best losing rank or
 * going makes it NULL, and the next refresh of the note ranks them all
 * once (refresh_note).  A rank is compared as a row value, in that order.
 */
#define NOTE_FIX_RANK_V37(t) \
	"(CAST(" t ".success_count AS REAL) / max(" t ".application_count, 1), " t ".last_success_at, " t ".id)"
#define NOTE_BEST_RANK_V37                                                                        \
	"(SELECT CAST(b.success_count AS REAL) / max(b.application_count, 1), b.last_success_at," \
	" b.id FROM resolutions b WHERE b.id = notes.best_resolution)"
#define NOTE_FIX_RANK(t)                                                                   \
	"(CAST(" t ".success_count AS REAL) / max(" t ".application_count, 1), " t ".success_count," \
	" " t ".last_success_at, " t ".id)"
#define NOTE_BEST_RANK                                                                        \
	"(SELECT CAST(b.success_count AS REAL) / max(b.application_count, 1), b.success_count,"  \
	" b.last_success_at, b.id FROM resolutions b WHERE b.id = notes.best_resolution)"
/* What a fix deleted and a fix counted do to its note (the bodies of
 * note_fix_gone and note_fix_counted, which schema 46 joins with the
 * totals' triggers of the same events: RESOLUTION_TRIGGERS_46). */
#define NOTE_FIX_GONE_BODY                                                                        \
	" UPDATE notes SET applications = applications - OLD.application_count,"                  \
	"  successes = successes - OLD.success_count"                                              \
	" WHERE id = (SELECT note_id FROM note_resolutions WHERE resolution_id = OLD.id);"
#define NOTE_FIX_COUNTED_BODY(rank, best)                                                         \
	" UPDATE notes SET"                                                                        \
	"  applications = applications + NEW.application_count - OLD.application_count,"          \
	"  successes = successes + NEW.success_count - OLD.success_count,"                        \
	"  best_resolution = CASE WHEN best_resolution IS NULL THEN NULL"                          \
	"   WHEN best_resolution = NEW.id THEN CASE WHEN NEW.code_changes <> '' AND "              \
	rank("NEW") " >= " rank("OLD") " THEN NEW.id ELSE NULL END"                               \
	"   WHEN NEW.code_changes <> '' AND (best_resolution = 0 OR "                               \
	rank("NEW") " > " best ") THEN NEW.id"                                                   \
	"   ELSE best_resolution END"                                                               \
	" WHERE id = (SELECT note_id FROM note_resolutions WHERE resolution_id = NEW.id);"
/* rank(t) and best: NOTE_FIX_RANK and NOTE_BEST_RANK, or schema 37's */
#define NOTE_FIX_TRIGGERS_OF(rank, best)                                                                      \
	"CREATE TRIGGER note_fix_in AFTER INSERT ON note_resolutions BEGIN"                       \
	" UPDATE notes SET"                                                                        \
	"  applications = applications + coalesce((SELECT r.application_count FROM resolutions r"  \
	"   WHERE r.id = NEW.resolution_id), 0),"                                                   \
	"  successes = successes + coalesce((SELECT r.success_count FROM resolutions r"            \
	"   WHERE r.id = NEW.resolution_id), 0),"                                                   \
	"  best_resolution = CASE WHEN best_resolution IS NULL THEN NULL"                          \
	"   WHEN (SELECT r.code_changes <> '' AND (notes.best_resolution = 0 OR "                   \
	rank("r") " > " best ") FROM resolutions r"                             \
	"   WHERE r.id = NEW.resolution_id) THEN NEW.resolution_id ELSE best_resolution END"       \
	" WHERE id = NEW.note_id; END;"                                                            \
	"CREATE TRIGGER note_fix_out AFTER DELETE ON note_resolutions BEGIN"                      \
	" UPDATE notes SET"                                                                        \
	"  applications = applications - coalesce((SELECT r.application_count FROM resolutions r"  \
	"   WHERE r.id = OLD.resolution_id), 0),"                                                   \
	"  successes = successes - coalesce((SELECT r.success_count FROM resolutions r"            \
	"   WHERE r.id = OLD.resolution_id), 0),"                                                   \
	"  best_resolution = CASE WHEN best_resolution = OLD.resolution_id THEN NULL"              \
	"   ELSE best_resolution END"                                                               \
	" WHERE id = OLD.note_id; END;"                                                            \
	"CREATE TRIGGER note_fix_gone BEFORE DELETE ON resolutions BEGIN"                         \
	NOTE_FIX_GONE_BODY " END;"                                                                \
	"CREATE TRIGGER note_fix_counted AFTER UPDATE OF application_count, success_count,"       \
	"  last_success_at, code_changes ON resolutions BEGIN"                                     \
	NOTE_FIX_COUNTED_BODY(rank, best) " END;"
#define NOTE_FIX_TRIGGERS NOTE_FIX_TRIGGERS_OF(NOTE_FIX_RANK, NOTE_BEST_RANK)

/*
 * Schema 46: the triggers of one table and one event joined into one.
 * Every process parses each of the schema's triggers at its first
 * statement, and a statement compiles each trigger it fires as a program
 * of its own: a failing hook paid for 44 of them (a new vector fired three,
 * a new lesson and a new signature two each).  Each joined trigger does
 * what the ones it replaces did, in their order, with two differences
 * that change no count:
 *  - a signature's and a fix's removal is counted before its row goes,
 *    with what else its removal does first (signature_gone, note_fix_gone):
 *    a DELETE has no conflict clause, so the row goes unless the
 *    statement fails, which undoes both;
 *  - the noted count's row is written at each built-in vector, adding 0
 *    when its signature has no note, where a WHEN counted the notes twice;
 *  - an error's states are kept one-way after its row is written, not
 *    before: RAISE(ABORT) undoes the statement's rows either way.
 * The totals' part of a fix counted now also runs when only its time or
 * diff changes, adding 0.
 */
#define TRIGGERS_JOINED_46                                                                  \
	"DROP TRIGGER lesson_files_added; DROP TRIGGER totals_lesson_in;"                   \
	"CREATE TRIGGER lessons_added AFTER INSERT ON lessons BEGIN"                         \
	"  UPDATE totals SET lessons = lessons + 1;" LESSON_FILES_OF_NEW " END;"             \
	"DROP TRIGGER signatures_queued; DROP TRIGGER totals_signature_in;"                 \
	"CREATE TRIGGER signatures_added AFTER INSERT ON signatures BEGIN"                   \
	"  INSERT OR IGNORE INTO signatures_unindexed VALUES (NEW.rowid);"                  \
	"  UPDATE totals SET signatures = signatures + 1; END;"                              \
	"DROP TRIGGER signature_gone; DROP TRIGGER totals_signature_out;"                   \
	"CREATE TRIGGER signature_gone BEFORE DELETE ON signatures BEGIN"                   \
	SIGNATURE_GONE_35_BODY "  UPDATE totals SET signatures = signatures - 1; END;"                              \
	"DROP TRIGGER vectors_added; DROP TRIGGER noted_count_vector_add;"                  \
	"DROP TRIGGER aliased_vector_in;"                                                   \
	"CREATE TRIGGER vectors_added AFTER INSERT ON signature_vectors BEGIN"              \
	"  UPDATE vector_models SET n = n + 1, aliased = aliased + " IS_ALIAS_ROW("NEW.sig") \
	"  WHERE id = NEW.model;"                                                           \
	"  UPDATE noted_count SET n = n + " NOTED_COUNT_OF("NEW.sig")                        \
	"  WHERE NEW.model = " BUILTIN_ID "; END;"                                           \
	"DROP TRIGGER vectors_removed; DROP TRIGGER noted_count_vector_remove;"             \
	"DROP TRIGGER aliased_vector_out;"                                                  \
	"CREATE TRIGGER vectors_removed AFTER DELETE ON signature_vectors BEGIN"            \
	"  UPDATE vector_models SET n = n - 1, aliased = aliased - " IS_ALIAS_ROW("OLD.sig") \
	"  WHERE id = OLD.model;"                                                           \
	"  UPDATE noted_count SET n = n - " NOTED_COUNT_OF("OLD.sig")                        \
	"  WHERE OLD.model = " BUILTIN_ID "; END;"                                           \
	"DROP TRIGGER totals_cached_in; DROP TRIGGER noted_count_cache_add;"                \
	"CREATE TRIGGER cached_added AFTER INSERT ON note_cache BEGIN"                      \
	"  UPDATE totals SET team_notes = team_notes + (NEW.layer = 'team'),"               \
	"  org_notes = org_notes + (NEW.layer = 'org');"                                    \
	"  UPDATE noted_count SET n = n + 1"                                                 \
	"  WHERE " HAS_BUILTIN_VECTOR("NEW.signature_id", BUILTIN_ID) "; END;"               \
	"DROP TRIGGER totals_cached_out; DROP TRIGGER noted_count_cache_remove;"            \
	"CREATE TRIGGER cached_removed AFTER DELETE ON note_cache BEGIN"                    \
	"  UPDATE totals SET team_notes = team_notes - (OLD.layer = 'team'),"               \
	"  org_notes = org_notes - (OLD.layer = 'org');"                                    \
	"  UPDATE noted_count SET n = n - 1"                                                 \
	"  WHERE " HAS_BUILTIN_VECTOR("OLD.signature_id", BUILTIN_ID) "; END;"               \
	"DROP TRIGGER totals_resolution_used; DROP TRIGGER note_fix_counted;"               \
	"CREATE TRIGGER resolution_counted AFTER UPDATE OF application_count, success_count," \
	"  last_success_at, code_changes ON resolutions BEGIN"                              \
	"  UPDATE totals SET applications = applications + NEW.application_count"           \
	"  - OLD.application_count, successes = successes + NEW.success_count"              \
	"  - OLD.success_count;"                                                            \
	NOTE_FIX_COUNTED_BODY(NOTE_FIX_RANK, NOTE_BEST_RANK) " END;"                         \
	"DROP TRIGGER totals_resolution_out; DROP TRIGGER note_fix_gone;"                   \
	"CREATE TRIGGER resolution_gone BEFORE DELETE ON resolutions BEGIN"                 \
	NOTE_FIX_GONE_BODY                                                                  \
	"  UPDATE totals SET resolutions = resolutions - 1,"                                 \
	"  applications = applications - OLD.application_count,"                           \
	"  successes = successes - OLD.success_count; END;"                                  \
	"DROP TRIGGER pending_starts_pending; DROP TRIGGER totals_error_in;"                \
	"CREATE TRIGGER errors_added AFTER INSERT ON pending_errors BEGIN"                  \
	"  SELECT RAISE(ABORT, 'an error starts pending') WHERE NEW.state <> 'pending';"    \
	"  UPDATE totals SET pending = pending + 1; END;"                                    \
	"DROP TRIGGER pending_one_way; DROP TRIGGER totals_error_closed;"                   \
	"CREATE TRIGGER errors_closed AFTER UPDATE OF state ON pending_errors"              \
	"  WHEN NEW.state <> OLD.state BEGIN"                                               \
	"  SELECT RAISE(ABORT, 'a fixed or permanent error stays so')"                      \
	"  WHERE OLD.state <> 'pending';"                                                   \
	"  UPDATE totals SET pending = pending - 1, fixed = fixed + (NEW.state = 'fixed'),"  \
	"  permanent = permanent + (NEW.state = 'permanent'); END;"

/* An error the hook before an edit tells of (hook_edit.c): one that
 * failed for good, or that a resolution fixed. */
#define PENDING_KNOWN(p) "(" p ".state = 'permanent' OR (" p ".state = 'fixed'"              \
	" AND " p ".resolution_id IS NOT NULL))"

/* The files of such errors in pending_files (schema 47), kept by the
 * triggers of an error's close and removal, joined into them: short, as
 * every process that opens the store parses them (by the error's id
 * first, its removal reads no JSON), and of the state alone, as the
 * statements that rewrite an error's files at each recurrence compile the
 * triggers of what they set.  A redaction pass, which rewrites the files
 * of closed errors, lists them again (store_redact.c). */
#define PENDING_FILES_OF(e)                                                                 \
	"SELECT " e ".id, value FROM json_each(iif(json_valid(" e ".files), " e ".files,"     \
	" '[]')) WHERE " PENDING_KNOWN(e) " AND type = 'text' AND value <> ''"
#define PENDING_FILES_OUT                                                                   \
	"  DELETE FROM pending_files WHERE pending_id = OLD.id AND OLD.state <> 'pending';"
#define ERRORS_CHANGED_47                                                                   \
	"CREATE TRIGGER errors_closed AFTER UPDATE OF state ON pending_errors"              \
	"  WHEN NEW.state <> OLD.state BEGIN"                                               \
	"  SELECT RAISE(ABORT, 'a fixed or permanent error stays so')"                      \
	"  WHERE OLD.state <> 'pending';"                                                   \
	"  UPDATE totals SET pending = pending - 1, fixed = fixed + (NEW.state = 'fixed'),"  \
	"  permanent = permanent + (NEW.state = 'permanent');"                              \
	"  INSERT OR IGNORE INTO pending_files " PENDING_FILES_OF("NEW") "; END;"             \
	"CREATE TRIGGER totals_error_out AFTER DELETE ON pending_errors"                    \
	"  BEGIN UPDATE totals SET pending = pending - (OLD.state = 'pending'),"            \
	"  fixed = fixed - (OLD.state = 'fixed'),"                                          \
	" permanent = permanent - (OLD.state = 'permanent');"                               \
	PENDING_FILES_OUT " END;"

int callus_store_pending_files_again(callus_store *s, int64_t id)
{
	sqlite3_stmt *st = NULL;
	int sq;

	if ((sq = sqlite3_prepare_v2(callus_store_db(s),
				     "DELETE FROM pending_files WHERE pending_id = ?1", -1, &st,
				     NULL)) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sq == SQLITE_OK &&
	    (sq = sqlite3_prepare_v2(callus_store_db(s),
				     "INSERT OR IGNORE INTO pending_files SELECT p.id, j.value"
				     " FROM pending_errors p, json_each(iif(json_valid(p.files),"
				     " p.files, '[]')) j WHERE p.id = ?1 AND " PENDING_KNOWN("p")
				     " AND j.type = 'text' AND j.value <> ''",
				     -1, &st, NULL)) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
	}
	sqlite3_finalize(st);
	return sq;
}

/* A migration added here leaves a new store made by the migrations until
 * scripts/store_fresh.sh writes src/store_fresh.inc again (test_store
 * fails meanwhile). */
static const char *const migrations[] = {
	/* 0 -> 1: lessons, the runs they came from, and their errors */
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  at TEXT NOT NULL,"
	"  tool TEXT NOT NULL,"
	"  command TEXT NOT NULL,"
	"  cwd TEXT NOT NULL DEFAULT '',"
	"  exit_code INTEGER NOT NULL,"
	"  intent_id TEXT NOT NULL DEFAULT '',"
	"  output_bytes INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE lessons ("
	"  id INTEGER PRIMARY KEY,"
	"  signature TEXT NOT NULL UNIQUE,"
	"  timestamp TEXT NOT NULL,"
	"  type TEXT NOT NULL CHECK (type IN ('LINT','TEST','ANALYSIS','OTHER')),"
	"  file TEXT NOT NULL,"
	"  error_summary TEXT NOT NULL,"
	"  cause TEXT NOT NULL DEFAULT '',"
	"  resolution TEXT NOT NULL DEFAULT '',"
	"  corrective_rule TEXT NOT NULL DEFAULT '',"
	"  intent_id TEXT NOT NULL DEFAULT '',"
	"  tool TEXT NOT NULL,"
	"  command TEXT NOT NULL,"
	"  exit_code INTEGER NOT NULL,"
	"  affected_files TEXT NOT NULL DEFAULT '[]',"
	"  occurrences INTEGER NOT NULL DEFAULT 1 CHECK (occurrences >= 1),"
	"  last_seen TEXT NOT NULL);"
	"CREATE INDEX lessons_last_seen ON lessons(last_seen);"
	"CREATE INDEX lessons_file ON lessons(file);"
	"CREATE TABLE lesson_runs ("
	"  lesson_id INTEGER NOT NULL REFERENCES lessons(id) ON DELETE CASCADE,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  PRIMARY KEY (lesson_id, run_id));"
	"CREATE TABLE run_errors ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  file TEXT, line INTEGER, col INTEGER, code TEXT, message TEXT NOT NULL);"
	"CREATE INDEX run_errors_run ON run_errors(run_id);",
	/* 1 -> 2: error signatures (spec 004) and where they occurred */
	"CREATE TABLE signatures ("
	"  id TEXT PRIMARY KEY,"
	SIGNATURE_WHAT
	"  first_seen TEXT NOT NULL,"
	"  last_seen TEXT NOT NULL,"
	"  occurrence_count INTEGER NOT NULL DEFAULT 1 CHECK (occurrence_count >= 1));"
	"CREATE TABLE signature_runs ("
	"  signature_id TEXT NOT NULL REFERENCES signatures(id) ON DELETE CASCADE,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  errors INTEGER NOT NULL DEFAULT 1,"
	"  PRIMARY KEY (signature_id, run_id));"
	"CREATE INDEX signature_runs_run ON signature_runs(run_id);"
	"ALTER TABLE run_errors ADD COLUMN signature_id TEXT;",
	/* 2 -> 3: metrics (include/callus/metrics.h): one row per series part,
	 * values added by upsert so concurrent writers add up */
	"CREATE TABLE metrics ("
	"  name TEXT NOT NULL,"
	"  labels TEXT NOT NULL,"
	"  part TEXT NOT NULL,"
	"  value REAL NOT NULL,"
	"  PRIMARY KEY (name, labels, part)) WITHOUT ROWID;",
	/* 3 -> 4: the three states of an error, resolutions and their
	 * applications (include/callus/learn.h).  The triggers make the state
	 * transitions one-way whoever writes the store. */
	"CREATE TABLE checks ("
	"  id INTEGER PRIMARY KEY,"
	"  tool TEXT NOT NULL,"
	"  args TEXT NOT NULL,"
	"  dir TEXT NOT NULL,"
	"  runs INTEGER NOT NULL DEFAULT 0,"
	"  last_run_at TEXT,"
	"  last_pass_at TEXT,"
	"  UNIQUE (tool, args, dir));"
	"CREATE TABLE snapshots ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL CHECK (kind IN ('git','files')),"
	"  tree TEXT NOT NULL,"
	"  head TEXT NOT NULL DEFAULT '',"
	"  taken_at TEXT NOT NULL);"
	"CREATE TABLE resolutions ("
	"  id INTEGER PRIMARY KEY,"
	"  signature_id TEXT NOT NULL REFERENCES signatures(id) ON DELETE CASCADE,"
	"  description TEXT NOT NULL,"
	"  code_changes TEXT NOT NULL,"
	"  files TEXT NOT NULL DEFAULT '[]',"
	"  context TEXT NOT NULL DEFAULT '{}',"
	"  application_count INTEGER NOT NULL DEFAULT 1,"
	"  success_count INTEGER NOT NULL DEFAULT 1,"
	"  created_at TEXT NOT NULL,"
	"  last_success_at TEXT NOT NULL DEFAULT '',"
	"  CHECK (success_count >= 0 AND success_count <= application_count));"
	"CREATE INDEX resolutions_signature ON resolutions(signature_id);"
	"CREATE TABLE pending_errors ("
	"  id INTEGER PRIMARY KEY,"
	"  check_id INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,"
	"  signature_id TEXT NOT NULL REFERENCES signatures(id) ON DELETE CASCADE,"
	PENDING_COLUMNS
	"CREATE UNIQUE INDEX pending_open ON pending_errors(check_id, signature_id)"
	"  WHERE state = 'pending';"
	"CREATE INDEX pending_check ON pending_errors(check_id, signature_id, state);"
	"CREATE INDEX pending_last ON pending_errors(state, last_failure_at);"
	PENDING_ONE_WAY
	"CREATE TABLE suggestions ("
	"  id INTEGER PRIMARY KEY,"
	"  pending_id INTEGER NOT NULL REFERENCES pending_errors(id) ON DELETE CASCADE,"
	"  resolution_id INTEGER NOT NULL REFERENCES resolutions(id) ON DELETE CASCADE,"
	"  confidence REAL NOT NULL,"
	"  made_at TEXT NOT NULL,"
	"  outcome TEXT CHECK (outcome IN ('success','failure')),"
	"  outcome_at TEXT NOT NULL DEFAULT '',"
	"  UNIQUE (pending_id, resolution_id));"
	"CREATE INDEX suggestions_resolution ON suggestions(resolution_id);"
	"CREATE TABLE applications ("
	"  id INTEGER PRIMARY KEY,"
	"  resolution_id INTEGER NOT NULL REFERENCES resolutions(id) ON DELETE CASCADE,"
	"  suggestion_id INTEGER REFERENCES suggestions(id) ON DELETE SET NULL,"
	"  success INTEGER NOT NULL CHECK (success IN (0,1)),"
	"  source TEXT NOT NULL CHECK (source IN ('fix','recurred','permanent','feedback')),"
	"  context TEXT NOT NULL DEFAULT '{}',"
	"  at TEXT NOT NULL);"
	"CREATE INDEX applications_resolution ON applications(resolution_id);",
	/* 4 -> 5: matching (include/callus/match.h): each signature's vector
	 * per embedding model, the built-in embedder's document frequencies,
	 * and signatures linked to another (a near-duplicate, or a merge a
	 * maintainer approved) */
	"CREATE TABLE signature_vectors ("
	"  signature_id TEXT NOT NULL REFERENCES signatures(id) ON DELETE CASCADE,"
	"  model TEXT NOT NULL,"
	"  vector BLOB NOT NULL,"
	"  PRIMARY KEY (signature_id, model)) WITHOUT ROWID;"
	"CREATE TABLE embed_df ("
	"  feature INTEGER PRIMARY KEY,"
	"  df INTEGER NOT NULL);"
	"CREATE TABLE signature_links ("
	"  alias_id TEXT PRIMARY KEY REFERENCES signatures(id) ON DELETE CASCADE,"
	"  canonical_id TEXT NOT NULL REFERENCES signatures(id) ON DELETE CASCADE,"
	"  similarity REAL NOT NULL,"
	"  reason TEXT NOT NULL CHECK (reason IN ('duplicate','merge')),"
	"  linked_at TEXT NOT NULL,"
	"  CHECK (alias_id <> canonical_id));"
	"CREATE INDEX signatures_error_type ON signatures(error_type);",
	/* 5 -> 6: the built-in embedder's vectors carry the product's name,
	 * which changed (callus/migrate.h) */
	"UPDATE signature_vectors SET model = '" CALLUS_EMBED_BUILTIN_MODEL "'"
	"  WHERE model = '" CALLUS_MIGRATE_OLD_BUILTIN_MODEL "';",
	/* 6 -> 7: hindsight notes (include/callus/notes.h): one per error,
	 * the signatures and resolutions it carries, and the state of its
	 * file in .callus/notes/ as last written or read (to see a person's
	 * edit).  Its metrics are the sums of its resolutions', kept with it
	 * when they move so that the best notes are an index's first rows,
	 * not an aggregate over every note at each recording; the file state
	 * has a covering index for the same reason (the sync reads it all). */
	"CREATE TABLE notes ("
	"  id TEXT PRIMARY KEY,"
	"  signature_id TEXT NOT NULL,"
	"  layer TEXT NOT NULL DEFAULT 'project'"
	"   CHECK (layer IN ('session','project','team','org')),"
	"  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active','retired')),"
	"  tool TEXT NOT NULL DEFAULT '',"
	"  error_type TEXT NOT NULL DEFAULT '',"
	"  framework TEXT NOT NULL DEFAULT '',"
	"  title TEXT NOT NULL,"
	"  example TEXT NOT NULL DEFAULT '',"
	"  rule TEXT NOT NULL DEFAULT '',"
	"  steps TEXT NOT NULL DEFAULT '',"
	"  code TEXT NOT NULL DEFAULT '',"
	"  extra TEXT NOT NULL DEFAULT '',"
	"  files TEXT NOT NULL DEFAULT '[]',"
	"  edited INTEGER NOT NULL DEFAULT 0,"
	"  session TEXT NOT NULL DEFAULT '',"
	"  applications INTEGER NOT NULL DEFAULT 0,"
	"  successes INTEGER NOT NULL DEFAULT 0,"
	"  created_at TEXT NOT NULL,"
	"  updated_at TEXT NOT NULL,"
	"  file_hash TEXT NOT NULL DEFAULT '',"
	"  file_mtime INTEGER NOT NULL DEFAULT 0,"
	"  file_size INTEGER NOT NULL DEFAULT -1);"
	"CREATE INDEX notes_rank ON notes(status,"
	"  (CAST(successes AS REAL) / max(applications, 1)) DESC, applications DESC,"
	"  updated_at DESC);"
	"CREATE INDEX notes_files ON notes(id, status, file_hash, file_mtime, file_size);"
	"CREATE TABLE note_signatures ("
	"  signature_id TEXT PRIMARY KEY,"
	"  note_id TEXT NOT NULL REFERENCES notes(id) ON DELETE CASCADE) WITHOUT ROWID;"
	"CREATE INDEX note_signatures_note ON note_signatures(note_id);"
	"CREATE TABLE note_resolutions ("
	"  resolution_id INTEGER PRIMARY KEY REFERENCES resolutions(id) ON DELETE CASCADE,"
	"  note_id TEXT NOT NULL REFERENCES notes(id) ON DELETE CASCADE);"
	"CREATE INDEX note_resolutions_note ON note_resolutions(note_id);",
	/* 7 -> 8: the team and org layers (include/callus/team.h).  In a
	 * layer store (team.db): shared_notes, proposals and approved notes
	 * with their promotion chain, a revision from one counter so that a
	 * sync pulls what changed since its watermark, and shared_outcomes,
	 * the applications each workspace reports (absolute per instance, so
	 * a report sent twice counts once).  In a workspace store:
	 * note_cache, the approved notes of the layers above as last pulled
	 * (with the resolution made for each, so matching and outcomes treat
	 * it as any fix, and the counts it started from), note_promotions,
	 * what this workspace proposed, and sync_state. */
	"CREATE TABLE shared_notes ("
	"  layer TEXT NOT NULL CHECK (layer IN ('team','org')),"
	"  id TEXT NOT NULL,"
	"  status TEXT NOT NULL DEFAULT 'proposed'"
	"   CHECK (status IN ('proposed','approved','rejected','retired')),"
	"  signature_id TEXT NOT NULL,"
	"  tool TEXT NOT NULL DEFAULT '',"
	"  error_type TEXT NOT NULL DEFAULT '',"
	"  title TEXT NOT NULL,"
	"  example TEXT NOT NULL DEFAULT '',"
	"  rule TEXT NOT NULL DEFAULT '',"
	"  steps TEXT NOT NULL DEFAULT '',"
	"  code TEXT NOT NULL DEFAULT '',"
	"  files TEXT NOT NULL DEFAULT '[]',"
	"  origin TEXT NOT NULL DEFAULT '',"
	"  path TEXT NOT NULL DEFAULT '',"
	"  proposed_by TEXT NOT NULL DEFAULT '',"
	"  proposed_at TEXT NOT NULL,"
	"  decided_by TEXT NOT NULL DEFAULT '',"
	"  decided_at TEXT NOT NULL DEFAULT '',"
	"  why TEXT NOT NULL DEFAULT '',"
	"  revision INTEGER NOT NULL,"
	"  PRIMARY KEY (layer, id));"
	"CREATE INDEX shared_notes_revision ON shared_notes(layer, revision);"
	"CREATE TABLE shared_outcomes ("
	"  layer TEXT NOT NULL,"
	"  note_id TEXT NOT NULL,"
	"  instance TEXT NOT NULL,"
	"  applications INTEGER NOT NULL DEFAULT 0,"
	"  successes INTEGER NOT NULL DEFAULT 0,"
	"  at TEXT NOT NULL,"
	"  PRIMARY KEY (layer, note_id, instance),"
	"  FOREIGN KEY (layer, note_id) REFERENCES shared_notes(layer, id) ON DELETE CASCADE)"
	"  WITHOUT ROWID;"
	"CREATE TABLE note_cache ("
	"  layer TEXT NOT NULL CHECK (layer IN ('team','org')),"
	"  id TEXT NOT NULL,"
	"  revision INTEGER NOT NULL,"
	"  signature_id TEXT NOT NULL,"
	"  tool TEXT NOT NULL DEFAULT '',"
	"  error_type TEXT NOT NULL DEFAULT '',"
	"  title TEXT NOT NULL,"
	"  example TEXT NOT NULL DEFAULT '',"
	"  rule TEXT NOT NULL DEFAULT '',"
	"  steps TEXT NOT NULL DEFAULT '',"
	"  code TEXT NOT NULL DEFAULT '',"
	"  files TEXT NOT NULL DEFAULT '[]',"
	"  origin TEXT NOT NULL DEFAULT '',"
	"  path TEXT NOT NULL DEFAULT '',"
	"  applications INTEGER NOT NULL DEFAULT 0,"
	"  successes INTEGER NOT NULL DEFAULT 0,"
	"  resolution_id INTEGER REFERENCES resolutions(id) ON DELETE SET NULL,"
	"  base_applications INTEGER NOT NULL DEFAULT 0,"
	"  base_successes INTEGER NOT NULL DEFAULT 0,"
	"  pulled_at TEXT NOT NULL,"
	"  PRIMARY KEY (layer, id));"
	"CREATE UNIQUE INDEX note_cache_resolution ON note_cache(resolution_id)"
	"  WHERE resolution_id IS NOT NULL;"
	"CREATE TABLE note_promotions ("
	"  note_id TEXT NOT NULL,"
	"  from_layer TEXT NOT NULL,"
	"  to_layer TEXT NOT NULL,"
	"  status TEXT NOT NULL,"
	"  at TEXT NOT NULL,"
	"  PRIMARY KEY (note_id, to_layer)) WITHOUT ROWID;"
	"CREATE TABLE sync_state ("
	"  key TEXT PRIMARY KEY,"
	"  value TEXT NOT NULL) WITHOUT ROWID;",
	/* 8 -> 9: costs that do not grow with the store (docs/scale.md).
	 * The built-in model's vectors packed to int8 (a float32 vector had
	 * an overflow page of its own: 4 KB a signature); the vector count
	 * (the IDF's document count) and the signatures not yet indexed
	 * kept by triggers instead of counted or searched at each
	 * recording; the files of each lesson in a table of their own (the
	 * lessons about a file without reading every lesson's JSON); the
	 * regex fallback's newest-first read, the snapshots' clean-up and
	 * the runs' (callus gc, gc.h) indexed. */
	"UPDATE signature_vectors SET vector = callus_pack_vector(vector)"
	"  WHERE model = '" CALLUS_EMBED_BUILTIN_MODEL "';"
	"CREATE TABLE vector_counts ("
	"  model TEXT PRIMARY KEY,"
	"  n INTEGER NOT NULL) WITHOUT ROWID;"
	"INSERT INTO vector_counts SELECT model, count(*) FROM signature_vectors GROUP BY model;"
	VECTOR_COUNTS
	"CREATE TABLE signatures_unindexed (sig_rowid INTEGER PRIMARY KEY);"
	"INSERT INTO signatures_unindexed SELECT g.rowid FROM signatures g"
	"  WHERE NOT EXISTS (SELECT 1 FROM signature_vectors v WHERE v.signature_id = g.id"
	"   AND v.model = '" CALLUS_EMBED_BUILTIN_MODEL "')"
	"  AND NOT EXISTS (SELECT 1 FROM signature_links l WHERE l.alias_id = g.id);"
	SIGNATURES_QUEUED
	"CREATE TABLE lesson_files ("
	"  file TEXT NOT NULL,"
	"  lesson_id INTEGER NOT NULL REFERENCES lessons(id) ON DELETE CASCADE,"
	"  PRIMARY KEY (file, lesson_id)) WITHOUT ROWID;"
	"CREATE INDEX lesson_files_lesson ON lesson_files(lesson_id);"
	"INSERT OR IGNORE INTO lesson_files SELECT file, id FROM lessons WHERE file <> '';"
	"INSERT OR IGNORE INTO lesson_files SELECT j.value, l.id FROM lessons l,"
	"  json_each(l.affected_files) j WHERE j.type = 'text' AND j.value <> '';"
	"CREATE TRIGGER lesson_files_added AFTER INSERT ON lessons BEGIN"
	LESSON_FILES_OF_NEW " END;"
	"CREATE TRIGGER lesson_files_changed AFTER UPDATE OF file, affected_files ON lessons BEGIN"
	"  DELETE FROM lesson_files WHERE lesson_id = NEW.id;"
	LESSON_FILES_OF_NEW " END;"
	"DROP INDEX signatures_error_type;"
	"CREATE INDEX signatures_type_seen ON signatures(error_type, last_seen);"
	"CREATE INDEX pending_snapshot ON pending_errors(snapshot_id) WHERE snapshot_id IS NOT NULL;"
	"CREATE INDEX lesson_runs_run ON lesson_runs(run_id);",
	/* 9 -> 10: the event a run records, when it can be delivered twice (a
	 * hook's queued failure, replayed after the hook was cut between its
	 * commit and the queue's clean-up): the second delivery finds it. */
	"ALTER TABLE runs ADD COLUMN origin TEXT;"
	"CREATE UNIQUE INDEX runs_origin ON runs(origin)"
	"  WHERE origin IS NOT NULL;",
	/* 10 -> 11: the active notes whose file the store is ahead of
	 * (notes_sync.c): a recording's bounded sync writes them without
	 * reading the list of every note. */
	"CREATE INDEX notes_unwritten ON notes(id) WHERE file_size < 0 AND status = 'active';",
	/* 11 -> 12: the signatures that have a note and a built-in vector,
	 * counted, for their vector file (notes_vectors.c): a file with fewer
	 * records than this is rebuilt before a search.  Either may come
	 * first: a note pulled with git names a signature not indexed yet. */
	"CREATE TABLE noted_count (n INTEGER NOT NULL);"
	"INSERT INTO noted_count SELECT count(*) FROM note_signatures x JOIN signature_vectors v"
	"  ON v.signature_id = x.signature_id AND v.model = '" CALLUS_EMBED_BUILTIN_MODEL "';"
	"CREATE TRIGGER noted_count_note_add AFTER INSERT ON note_signatures"
	"  WHEN EXISTS (SELECT 1 FROM signature_vectors WHERE signature_id = NEW.signature_id"
	"   AND model = '" CALLUS_EMBED_BUILTIN_MODEL "')"
	"  BEGIN UPDATE noted_count SET n = n + 1; END;"
	"CREATE TRIGGER noted_count_note_remove AFTER DELETE ON note_signatures"
	"  WHEN EXISTS (SELECT 1 FROM signature_vectors WHERE signature_id = OLD.signature_id"
	"   AND model = '" CALLUS_EMBED_BUILTIN_MODEL "')"
	"  BEGIN UPDATE noted_count SET n = n - 1; END;"
	"CREATE TRIGGER noted_count_vector_add AFTER INSERT ON signature_vectors"
	"  WHEN NEW.model = '" CALLUS_EMBED_BUILTIN_MODEL "' AND EXISTS (SELECT 1 FROM"
	"   note_signatures WHERE signature_id = NEW.signature_id)"
	"  BEGIN UPDATE noted_count SET n = n + 1; END;"
	"CREATE TRIGGER noted_count_vector_remove AFTER DELETE ON signature_vectors"
	"  WHEN OLD.model = '" CALLUS_EMBED_BUILTIN_MODEL "' AND EXISTS (SELECT 1 FROM"
	"   note_signatures WHERE signature_id = OLD.signature_id)"
	"  BEGIN UPDATE noted_count SET n = n - 1; END;",
	/* 12 -> 13: what `callus status` shows, kept instead of counted
	 * (callus_store_totals_get): at 100,000 recordings the counts read
	 * every lessons', runs', checks' and errors' page, 40 ms.  One row
	 * whose columns the triggers add to, with bodies as short as they
	 * can be: every process parses the schema at its first statement,
	 * and a trigger costs it 3 to 6 us.  Never delete a counted row with
	 * INSERT OR REPLACE: SQLite fires no delete trigger for it.  And the
	 * best resolutions ranked by an index, not sorted from all of them. */
	"CREATE TABLE totals ("
	"  lessons INTEGER NOT NULL, runs INTEGER NOT NULL, checks INTEGER NOT NULL,"
	"  signatures INTEGER NOT NULL, pending INTEGER NOT NULL, fixed INTEGER NOT NULL,"
	"  permanent INTEGER NOT NULL, resolutions INTEGER NOT NULL,"
	"  applications INTEGER NOT NULL, successes INTEGER NOT NULL,"
	"  session_notes INTEGER NOT NULL, project_notes INTEGER NOT NULL,"
	"  team_notes INTEGER NOT NULL, org_notes INTEGER NOT NULL);"
	"INSERT INTO totals " CALLUS_STORE_TOTALS_COUNTED ";"
	"CREATE TRIGGER totals_lesson_in AFTER INSERT ON lessons"
	"  BEGIN UPDATE totals SET lessons = lessons + 1; END;"
	"CREATE TRIGGER totals_lesson_out AFTER DELETE ON lessons"
	"  BEGIN UPDATE totals SET lessons = lessons - 1; END;"
	"CREATE TRIGGER totals_run_in AFTER INSERT ON runs"
	"  BEGIN UPDATE totals SET runs = runs + 1; END;"
	"CREATE TRIGGER totals_run_out AFTER DELETE ON runs"
	"  BEGIN UPDATE totals SET runs = runs - 1; END;"
	"CREATE TRIGGER totals_check_in AFTER INSERT ON checks"
	"  BEGIN UPDATE totals SET checks = checks + 1; END;"
	"CREATE TRIGGER totals_check_out AFTER DELETE ON checks"
	"  BEGIN UPDATE totals SET checks = checks - 1; END;"
	SIGNATURE_TOTALS
	/* an error starts pending and leaves it once (pending_starts_pending,
	 * pending_one_way) */
	PENDING_TOTALS
	"CREATE TRIGGER totals_resolution_in AFTER INSERT ON resolutions"
	"  BEGIN UPDATE totals SET resolutions = resolutions + 1,"
	"  applications = applications + NEW.application_count,"
	"  successes = successes + NEW.success_count; END;"
	"CREATE TRIGGER totals_resolution_out AFTER DELETE ON resolutions"
	"  BEGIN UPDATE totals SET resolutions = resolutions - 1,"
	"  applications = applications - OLD.application_count,"
	"  successes = successes - OLD.success_count; END;"
	"CREATE TRIGGER totals_resolution_used AFTER UPDATE OF application_count, success_count"
	"  ON resolutions BEGIN UPDATE totals"
	"  SET applications = applications + NEW.application_count - OLD.application_count,"
	"  successes = successes + NEW.success_count - OLD.success_count; END;"
	/* the active notes per layer, with the layers' cached notes */
	"CREATE TRIGGER totals_note_in AFTER INSERT ON notes WHEN NEW.status = 'active'"
	"  BEGIN UPDATE totals SET session_notes = session_notes + (NEW.layer = 'session'),"
	"  project_notes = project_notes + (NEW.layer = 'project'),"
	"  team_notes = team_notes + (NEW.layer = 'team'), org_notes = org_notes + (NEW.layer = 'org');"
	"  END;"
	"CREATE TRIGGER totals_note_out AFTER DELETE ON notes WHEN OLD.status = 'active'"
	"  BEGIN UPDATE totals SET session_notes = session_notes - (OLD.layer = 'session'),"
	"  project_notes = project_notes - (OLD.layer = 'project'),"
	"  team_notes = team_notes - (OLD.layer = 'team'), org_notes = org_notes - (OLD.layer = 'org');"
	"  END;"
	"CREATE TRIGGER totals_note_moved AFTER UPDATE OF status, layer ON notes"
	"  BEGIN UPDATE totals SET"
	"  session_notes = session_notes + (NEW.status = 'active' AND NEW.layer = 'session')"
	"   - (OLD.status = 'active' AND OLD.layer = 'session'),"
	"  project_notes = project_notes + (NEW.status = 'active' AND NEW.layer = 'project')"
	"   - (OLD.status = 'active' AND OLD.layer = 'project'),"
	"  team_notes = team_notes + (NEW.status = 'active' AND NEW.layer = 'team')"
	"   - (OLD.status = 'active' AND OLD.layer = 'team'),"
	"  org_notes = org_notes + (NEW.status = 'active' AND NEW.layer = 'org')"
	"   - (OLD.status = 'active' AND OLD.layer = 'org'); END;"
	"CREATE TRIGGER totals_cached_in AFTER INSERT ON note_cache"
	"  BEGIN UPDATE totals SET team_notes = team_notes + (NEW.layer = 'team'),"
	"  org_notes = org_notes + (NEW.layer = 'org'); END;"
	"CREATE TRIGGER totals_cached_out AFTER DELETE ON note_cache"
	"  BEGIN UPDATE totals SET team_notes = team_notes - (OLD.layer = 'team'),"
	"  org_notes = org_notes - (OLD.layer = 'org'); END;"
	"CREATE INDEX resolutions_rank ON resolutions("
	"  (CAST(success_count AS REAL) / max(application_count, 1)) DESC,"
	"  last_success_at DESC, id DESC);",
	/* 13 -> 14: lesson_runs without a rowid.  A rowid table whose primary
	 * key is its row keeps the row twice, in the table and in the key's
	 * index, and a recording writes both; nothing reads its rowid or
	 * references it.  (Schema 14 as first released rebuilt signature_runs
	 * the same way; the next migration drops that table, so it is no
	 * longer copied first: both ways end in the same schema 15.) */
	"CREATE TABLE lesson_runs_k ("
	"  lesson_id INTEGER NOT NULL REFERENCES lessons(id) ON DELETE CASCADE,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  PRIMARY KEY (lesson_id, run_id)) WITHOUT ROWID;"
	"INSERT INTO lesson_runs_k SELECT lesson_id, run_id FROM lesson_runs;"
	"DROP TABLE lesson_runs;"
	"ALTER TABLE lesson_runs_k RENAME TO lesson_runs;"
	"CREATE INDEX lesson_runs_run ON lesson_runs(run_id);",
	/* 14 -> 15: signature_runs goes.  Each of its rows was a count of the
	 * run's error rows (run_errors) naming the signature, which every
	 * signature of a run has: the same pairs, kept twice, with a second
	 * index holding the 64-hex key, written at every recording and read
	 * by one statement (a note's rule reaching its lessons), which reads
	 * run_errors now.  About 200 bytes a signature (2,778 -> 2,579 after
	 * VACUUM at 10,000 recordings). */
	"DROP TABLE signature_runs;",
	/* 15 -> 16: the tables with a row for every signature or error of a
	 * run name the signature by its rowid, not its 64-hex id: each key
	 * and each index entry held the 64 characters again (about 350
	 * bytes a signature at 10,000 recordings, docs/scale.md), and the
	 * vectors' key, random in the id, dirtied a page anywhere in the
	 * table at each insert where an increasing rowid appends.  The
	 * rowid of signatures is stable: the vector files already name
	 * records by it.  Tables rebuilt in SQLite's order for a change it
	 * cannot ALTER (callus_store_migrate runs this with foreign keys off,
	 * so that dropping pending_errors deletes no suggestion); the
	 * triggers of the dropped tables, and those reading their columns
	 * (dropped first: a rename checks every trigger), made again after
	 * the copies, so that no count moves.  A signature
	 * removed takes its vectors and errors with it (signature_gone), as
	 * the foreign keys' cascade did: before it goes, so that the noted
	 * count's trigger still finds its id. */
	"DROP TRIGGER noted_count_note_add;"
	"DROP TRIGGER noted_count_note_remove;"
	"CREATE TABLE signature_vectors_k ("
	"  sig INTEGER NOT NULL,"
	"  model TEXT NOT NULL,"
	"  vector BLOB NOT NULL,"
	"  PRIMARY KEY (sig, model)) WITHOUT ROWID;"
	"INSERT INTO signature_vectors_k SELECT g.rowid, v.model, v.vector"
	"  FROM signature_vectors v JOIN signatures g ON g.id = v.signature_id ORDER BY 1, 2;"
	"DROP TABLE signature_vectors;"
	"ALTER TABLE signature_vectors_k RENAME TO signature_vectors;"
	"CREATE TABLE pending_errors_k ("
	"  id INTEGER PRIMARY KEY,"
	"  check_id INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,"
	"  sig INTEGER NOT NULL,"
	PENDING_COLUMNS
	"INSERT INTO pending_errors_k SELECT p.id, p.check_id, g.rowid, p.state, p.attempts,"
	"  p.first_failure_at, p.last_failure_at, p.session, p.files, p.snapshot_id, p.closed_at,"
	"  p.closed_run, p.resolution_id FROM pending_errors p JOIN signatures g"
	"  ON g.id = p.signature_id;"
	"DROP TABLE pending_errors;"
	"ALTER TABLE pending_errors_k RENAME TO pending_errors;"
	"CREATE UNIQUE INDEX pending_open ON pending_errors(check_id, sig) WHERE state = 'pending';"
	"CREATE INDEX pending_check ON pending_errors(check_id, sig, state);"
	"CREATE INDEX pending_last ON pending_errors(state, last_failure_at);"
	"CREATE INDEX pending_snapshot ON pending_errors(snapshot_id) WHERE snapshot_id IS NOT NULL;"
	"CREATE TABLE run_errors_k ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  file TEXT, line INTEGER, col INTEGER, code TEXT, message TEXT NOT NULL, sig INTEGER);"
	"INSERT INTO run_errors_k SELECT e.run_id, e.file, e.line, e.col, e.code, e.message,"
	"  g.rowid FROM run_errors e LEFT JOIN signatures g ON g.id = e.signature_id"
	"  ORDER BY e.rowid;"
	"DROP TABLE run_errors;"
	"ALTER TABLE run_errors_k RENAME TO run_errors;"
	"CREATE INDEX run_errors_run ON run_errors(run_id);"
	PENDING_ONE_WAY
	PENDING_TOTALS
	VECTOR_COUNTS
	NOTED_COUNT_BY_ROWID
	SIGNATURE_GONE,
	/* 16 -> 17: a signature's errors and the links naming it as canonical
	 * looked up by the signature.  Without these, each signature gc
	 * removed scanned pending_errors (signature_gone) and signature_links
	 * (the cascade), and gc's test of whether one is still needed scanned
	 * them for each candidate: at 100,000 recordings, minutes for the
	 * first twenty.  In parentheses: clang takes two literals side by
	 * side in an array for a missing comma. */
	("CREATE INDEX pending_sig ON pending_errors(sig);"
	 "CREATE INDEX signature_links_canonical ON signature_links(canonical_id);"),
	/* 17 -> 18: the built-in model's vectors in the sparse form
	 * (vecindex.h): a vector holds about 70 non-zero components of 256,
	 * so 150 bytes instead of 260, the same values. */
	("UPDATE signature_vectors SET vector = callus_pack_vector(vector)"
	 "  WHERE model = '" CALLUS_EMBED_BUILTIN_MODEL "'"
	 "  AND length(vector) = 260;"),
	/* 18 -> 19: a signature's pattern kept only when its original does not
	 * make it (signature.h): the message was in every row twice, 98 bytes
	 * a signature at 100,000 recordings. */
	("UPDATE signatures SET message_pattern = ''"
	 "  WHERE message_pattern <> '' AND message_pattern = callus_message_pattern(original);"),
	/* 19 -> 20: a signature's times in seconds since 1970 (4 bytes each
	 * where the text took 24, and 24 more in signatures_type_seen), and
	 * its rowid an INTEGER PRIMARY KEY (sig): the errors, the vectors and
	 * the vector files name signatures by it, and VACUUM keeps only such
	 * rowids as they are.  Rebuilt in SQLite's order, as in 15 -> 16: the
	 * triggers reading the table dropped first, all made again after. */
	(SIGNATURES_REBUILD_BEGIN
	 "CREATE TABLE signatures_t ("
	 SIGNATURE_KEY
	 SIGNATURE_WHAT
	 SIGNATURE_SEEN
	 "INSERT INTO signatures_t SELECT rowid, id, error_type, message_pattern, stack_patterns,"
	 "  context_patterns, original, tool, coalesce(unixepoch(first_seen), 0),"
	 "  coalesce(unixepoch(last_seen), 0), occurrence_count FROM signatures ORDER BY rowid;"
	 SIGNATURES_REBUILD_END),
	/* 20 -> 21: the built-in vectors with more than about 32 non-zero
	 * components in the mask form (vecindex.h): a bit a dimension and
	 * the values, 112.5 bytes on average where the pairs took 156 (the
	 * 100,000-recording store of docs/scale.md); the same values. */
	("UPDATE signature_vectors SET vector = callus_pack_vector(vector)"
	 "  WHERE model = '" CALLUS_EMBED_BUILTIN_MODEL "' AND length(vector) % 2 = 0"
	 "  AND length(vector) < 260;"),
	/* 21 -> 22: a feature's document frequency under the low 32 bits of
	 * its id (callus_match_feature_key): 5 bytes a key where 9 were, at
	 * six or so features a signature.  Rows that now share a key add up. */
	("CREATE TABLE embed_df_k (feature INTEGER PRIMARY KEY, df INTEGER NOT NULL);"
	 "INSERT INTO embed_df_k SELECT feature & 4294967295, sum(df) FROM embed_df GROUP BY 1;"
	 "DROP TABLE embed_df;"
	 "ALTER TABLE embed_df_k RENAME TO embed_df;"),
	/* 22 -> 23: a note file's hash as its first 32 hex digits
	 * (notes_sync.c), in the row and in notes_files */
	("UPDATE notes SET file_hash = substr(file_hash, 1, 32) WHERE length(file_hash) > 32;"),
	/* 23 -> 24: a note's title kept only when it is not the one its tool
	 * and example make (callus_note_title): "gcc: " and the
	 * example again in most rows */
	("UPDATE notes SET title = '' WHERE title <> ''"
	 "  AND title = callus_note_default_title(tool, example);"),
	/* 24 -> 25: the document frequencies recordings add, kept apart
	 * until folded into embed_df (CALLUS_MATCH_DF_FOLD_ROWS,
	 * match_internal.h) */
	("CREATE TABLE IF NOT EXISTS embed_df_recent (feature INTEGER PRIMARY KEY,"
	 "  df INTEGER NOT NULL);"),
	/* 25 -> 26: a check's errors indexed by state and closing run before
	 * signature (checkindex.c, learn_apply.c): "is an error of the check
	 * open", "did its last run close one" and "did its last run fix this
	 * one" were each a scan of every error the check ever had, or of
	 * every past fix of the error, at each recording. */
	("DROP INDEX IF EXISTS pending_check;"
	 "CREATE INDEX pending_check ON pending_errors(check_id, state, closed_run, sig);"),
	/* 26 -> 27: the document frequencies a row a bucket of 65,536
	 * feature keys, the counts packed (match_df.c): a row a feature
	 * took 12 bytes of pages, 77 bytes a signature at 100,000
	 * recordings, where most features are counted once */
	("CREATE TABLE embed_df_b (bucket INTEGER PRIMARY KEY, counts BLOB NOT NULL);"
	 "INSERT INTO embed_df_b SELECT feature >> 16, callus_df_pack(feature, df)"
	 "  FROM embed_df WHERE df > 0 GROUP BY feature >> 16 ORDER BY 1;"
	 "DROP TABLE embed_df;"
	 "ALTER TABLE embed_df_b RENAME TO embed_df;"),
	/* 27 -> 28: a signature's context patterns (the tool, the files'
	 * extensions, up to 64 dependencies of each manifest: context.h)
	 * kept once in contexts and named by the signature's ctx, 0 for
	 * none: every signature recorded in a project repeated its list.
	 * Rebuilt as in 19 -> 20: its pages full again. */
	(SIGNATURES_REBUILD_BEGIN
	 "CREATE TABLE contexts (ctx INTEGER PRIMARY KEY, patterns TEXT NOT NULL UNIQUE);"
	 "INSERT INTO contexts (patterns) SELECT DISTINCT context_patterns FROM signatures"
	 "  WHERE context_patterns <> '[]' ORDER BY 1;"
	 "CREATE TABLE signatures_t ("
	 SIGNATURE_KEY
	 "  error_type TEXT NOT NULL,"
	 "  message_pattern TEXT NOT NULL,"
	 "  stack_patterns TEXT NOT NULL DEFAULT '[]',"
	 "  ctx INTEGER NOT NULL DEFAULT 0,"
	 "  original TEXT NOT NULL,"
	 "  tool TEXT NOT NULL,"
	 SIGNATURE_SEEN
	 "INSERT INTO signatures_t SELECT g.sig, g.id, g.error_type, g.message_pattern,"
	 "  g.stack_patterns, coalesce((SELECT c.ctx FROM contexts c"
	 "  WHERE c.patterns = g.context_patterns), 0), g.original, g.tool, g.first_seen,"
	 "  g.last_seen, g.occurrence_count FROM signatures g ORDER BY g.sig;"
	 SIGNATURES_REBUILD_END),
	/* 28 -> 29: no index of lessons by their primary file: a lesson is
	 * found by file through lesson_files (schema 10), which holds its
	 * primary and affected files; the index was written at every new
	 * lesson and read by nothing (28 bytes a signature at 10,000
	 * recordings) */
	("DROP INDEX IF EXISTS lessons_file;"),
	/* 29 -> 30: the signatures of the layers' cached notes (note_cache)
	 * counted with the noted ones, and their vectors in the same file
	 * (notes_vectors.c): a recording in a large store searches that file
	 * for the fixes older than its window (match.h), and a team's fix is
	 * one.  A cached note may change its signature in place (a newer
	 * revision); the index answers the vectors' triggers. */
	("CREATE INDEX note_cache_signature ON note_cache(signature_id);"
	 "DROP TRIGGER noted_count_vector_add;"
	 "DROP TRIGGER noted_count_vector_remove;"
	 NOTED_COUNT_VECTORS(BUILTIN_NAMED)
	 NOTED_COUNT_CACHE(BUILTIN_NAMED)
	 "UPDATE noted_count SET n = (SELECT count(*) FROM note_signatures x"
	 "  JOIN signatures g ON g.id = x.signature_id JOIN signature_vectors v ON v.sig = g.rowid"
	 "  AND v.model = '" CALLUS_EMBED_BUILTIN_MODEL "') + (SELECT count(*) FROM note_cache c"
	 "  JOIN signatures g ON g.id = c.signature_id JOIN signature_vectors v ON v.sig = g.rowid"
	 "  AND v.model = '" CALLUS_EMBED_BUILTIN_MODEL "');"),
	/* 30 -> 31: each signature's sketch (signature.h: a bit for each 3
	 * bytes of its literal runs, the sign for stack patterns), in the row
	 * and in signatures_type_seen after its time: the regex fallback
	 * reads an error type's newest rows from the index alone, and reads
	 * only the rows whose sketch a message passes, where it read all 201,
	 * scattered over the table by recurrences (136 of a failing hook's
	 * 372 pages at 100,000 recordings). */
	("ALTER TABLE signatures ADD COLUMN sketch INTEGER NOT NULL DEFAULT 0;"
	 "UPDATE signatures SET sketch = callus_signature_sketch(message_pattern, original,"
	 "  stack_patterns <> '[]');"
	 "DROP INDEX signatures_type_seen;"
	 "CREATE INDEX signatures_type_seen ON signatures(error_type, last_seen, sketch);"),
	/* 31 -> 32: a vector's model named by its id in vector_models, which
	 * also keeps the vectors' count per model (vector_counts' job): the
	 * built-in model's name took 17 bytes of every vector's key, its id
	 * (CALLUS_MATCH_BUILTIN_ID, 1) takes none; the counts made again from
	 * the rows, whatever drift they had.  The table rebuilt in
	 * SQLite's order, as in 15 -> 16 (the triggers reading it from other
	 * tables dropped first, all made again after); its pages full again. */
	("DROP TRIGGER noted_count_note_add;"
	 "DROP TRIGGER noted_count_note_remove;"
	 "DROP TRIGGER noted_count_cache_add;"
	 "DROP TRIGGER noted_count_cache_remove;"
	 "DROP TRIGGER noted_count_cache_moved;"
	 "DROP TRIGGER signature_gone;"
	 "CREATE TABLE vector_models (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
	 "  n INTEGER NOT NULL DEFAULT 0);"
	 "INSERT INTO vector_models (id, name) VALUES (" BUILTIN_ID ", " BUILTIN_NAMED ");"
	 "INSERT OR IGNORE INTO vector_models (name) SELECT model FROM vector_counts ORDER BY 1;"
	 "INSERT OR IGNORE INTO vector_models (name) SELECT DISTINCT model FROM signature_vectors"
	 "  ORDER BY 1;"
	 "CREATE TABLE signature_vectors_k ("
	 "  sig INTEGER NOT NULL,"
	 "  model INTEGER NOT NULL,"
	 "  vector BLOB NOT NULL,"
	 "  PRIMARY KEY (sig, model)) WITHOUT ROWID;"
	 "INSERT INTO signature_vectors_k SELECT v.sig, m.id, v.vector FROM signature_vectors v"
	 "  JOIN vector_models m ON m.name = v.model ORDER BY 1, 2;"
	 "UPDATE vector_models SET n = c.n FROM (SELECT model, count(*) AS n"
	 "  FROM signature_vectors_k GROUP BY model) c WHERE c.model = vector_models.id;"
	 "DROP TABLE signature_vectors;"
	 "DROP TABLE vector_counts;"
	 "ALTER TABLE signature_vectors_k RENAME TO signature_vectors;"
	 VECTOR_MODEL_COUNTS
	 NOTED_COUNT_NOTES(BUILTIN_ID)
	 NOTED_COUNT_VECTORS(BUILTIN_ID)
	 NOTED_COUNT_CACHE(BUILTIN_ID)
	 SIGNATURE_GONE),
	/* 32 -> 33: the document frequencies of the features many
	 * signatures share, a row a feature apart from the buckets
	 * (CALLUS_MATCH_DF_HOT_MIN, match_internal.h): a new error's
	 * hundred features, nearly all of them common, were as many pages
	 * of the buckets at 100,000 recordings.  The entries counted
	 * callus_match_df_hot_min(documents) times or more moved there now,
	 * by the folds that follow after. */
	("CREATE TABLE IF NOT EXISTS embed_df_hot (feature INTEGER PRIMARY KEY,"
	 "  df INTEGER NOT NULL);"
	 "INSERT INTO embed_df_hot (feature, df) SELECT b.bucket << 16 | (j.value ->> 0),"
	 "  j.value ->> 1 FROM embed_df b,"
	 "  json_each(callus_df_split(b.counts, " DF_HOT_MIN_SQL ", 1)) j WHERE true"
	 "  ORDER BY 1 ON CONFLICT (feature) DO UPDATE SET df = df + excluded.df;"
	 "DELETE FROM embed_df WHERE callus_df_split(counts, " DF_HOT_MIN_SQL ", 0) IS NULL;"
	 "UPDATE embed_df SET counts = callus_df_split(counts, " DF_HOT_MIN_SQL ", 0)"
	 "  WHERE callus_df_features(counts, " DF_HOT_MIN_SQL ") > 0;"),
	/* 33 -> 34: a pending error's own message.  Errors of one signature
	 * differ in what the pattern leaves out (`'x' undeclared`, `'y'
	 * undeclared`), and the error's bullet in AGENTS.md named its own
	 * file with the signature's first message.  NULL while that is the
	 * message, as for nearly every error: nothing in the rows from before,
	 * one byte of a new row's header. */
	"ALTER TABLE pending_errors ADD COLUMN message TEXT;",
	/* 34 -> 35: a run's error keeps its message only when it is not its
	 * signature's original ('' when it is): the same text was in both
	 * rows for nearly every error, 68 bytes a row at 10,000 recordings.
	 * A signature removed writes its original back into the rows that
	 * named it by '' (the partial index finds them: a scan of the runs'
	 * errors for each signature gc removes would be minutes). */
	("UPDATE run_errors SET message = '' WHERE sig IS NOT NULL AND message <> ''"
	 "  AND message = (SELECT g.original FROM signatures g WHERE g.sig = run_errors.sig);"
	 "CREATE INDEX run_errors_sig ON run_errors(sig) WHERE message = '';"
	 "DROP TRIGGER signature_gone;"
	 SIGNATURE_GONE_35),
	/* 35 -> 36: a resolution's counts and rank readable without its row,
	 * by its id (notes.c's sums and best fix over a note's fixes) and by
	 * its signature (match_suggest.c's ranking): the diff comes before
	 * them in the row, and a recurring error's thousands of fixes were
	 * read whole at each new fix and each suggestion.  The second index
	 * takes the place of the one by signature alone. */
	("CREATE INDEX resolutions_counts ON resolutions(id, application_count, success_count,"
	 "  last_success_at);"
	 "CREATE INDEX resolutions_ranked ON resolutions(signature_id, success_count,"
	 "  application_count, last_success_at);"
	 "DROP INDEX resolutions_signature;"),
	/* 36 -> 37: a note's sums and its best fix kept by triggers
	 * (NOTE_FIX_TRIGGERS): made again from every fix at each new one
	 * and each outcome, they cost what the note's fixes number, and a
	 * recurring error's import was quadratic.  The sums made once more
	 * here, for every note (a retired note's stopped at retirement). */
	("ALTER TABLE notes ADD COLUMN best_resolution INTEGER;"
	 "UPDATE notes SET"
	 " applications = (SELECT coalesce(sum(r.application_count), 0) FROM note_resolutions x"
	 "  JOIN resolutions r ON r.id = x.resolution_id WHERE x.note_id = notes.id),"
	 " successes = (SELECT coalesce(sum(r.success_count), 0) FROM note_resolutions x"
	 "  JOIN resolutions r ON r.id = x.resolution_id WHERE x.note_id = notes.id);"
	 NOTE_FIX_TRIGGERS_OF(NOTE_FIX_RANK_V37, NOTE_BEST_RANK_V37)),
	/* 37 -> 38: a permanent error found by its check and its error, as
	 * an open one is (pending_open): a failure asks both at each error,
	 * and by state and time every permanent error of the week was read
	 * (learn.c's look, learn_transition.c's FAIL_AGAIN).  Permanent
	 * errors are few: a small index. */
	"CREATE INDEX pending_permanent ON pending_errors(check_id, sig) WHERE state = 'permanent';",
	/* 38 -> 39: a queued run whose failure was committed and whose
	 * learning was not (its hook or drainer cut or killed between the
	 * two transactions): a delivery again found it recorded and learnt
	 * nothing, and its errors were never pending.  Set with the run,
	 * cleared in the learning's transaction; read by origin alone. */
	"ALTER TABLE runs ADD COLUMN learn_owed INTEGER;",
	/* 39 -> 40: a signature's fixes by the time they last worked, for
	 * match_suggest.c's ranking, which reads them the most recent first
	 * and stops where the rest cannot rank: by their counts first, every
	 * fix of a recurring error was read at each suggestion (4,000 fixes,
	 * 4 ms).  The same columns, so the same size; by signature first, it
	 * serves what the index it replaces served (the cascade from a
	 * signature removed). */
	("CREATE INDEX resolutions_recent ON resolutions(signature_id, last_success_at,"
	 "  success_count, application_count);"
	 "DROP INDEX resolutions_ranked;"),
	/* 40 -> 41: the vectors of linked signatures counted per model, for
	 * `callus status`'s signatures with a vector, which leaves the
	 * aliases out: it looked up each link's alias and its vectors (3 us
	 * a link, as many links as near-duplicates were found).  Counted
	 * from the rows once, then kept by triggers (ALIASED_COUNTS). */
	("ALTER TABLE vector_models ADD COLUMN aliased INTEGER NOT NULL DEFAULT 0;"
	 "UPDATE vector_models SET aliased = c.n FROM (SELECT v.model, count(*) AS n"
	 "  FROM signature_links l JOIN signatures g ON g.id = l.alias_id"
	 "  JOIN signature_vectors v ON v.sig = g.rowid GROUP BY v.model) c"
	 "  WHERE c.model = vector_models.id;"
	 ALIASED_COUNTS),
	/* 41 -> 42: ld's `name' is a quoted value now, and a message's
	 * hints ("; did you mean ‘count’?", " {aka ‘long int’}") are left out
	 * of its pattern (signature.h): each undefined symbol was an error of
	 * its own, and an error with a hint another than the same without.  A
	 * row whose original makes another pattern now keeps the one its id
	 * was made of, as every row whose pattern its original does not
	 * make. */
	("UPDATE signatures SET message_pattern = callus_message_pattern_v41(original)"
	 "  WHERE message_pattern = '' AND (instr(original, '`') > 0"
	 "  OR instr(original, 'id you mean') > 0 OR instr(original, '{aka ') > 0)"
	 "  AND callus_message_pattern_v41(original) <> callus_message_pattern(original);"),
	/* 42 -> 43: an imported note's fix keeps the counts it arrived with
	 * as its base (notes_sync.c), which team_sync.c does not report
	 * again: every clone re-sent them.  Those imported before have their
	 * counts now as their base: their uses since are reported. */
	("UPDATE resolutions SET context = json_set(context, '$.base',"
	 "  json_array(application_count, success_count))"
	 "  WHERE id IN (SELECT resolution_id FROM note_resolutions) AND json_valid(context)"
	 "  AND json_extract(context, '$.imported') = 1"
	 "  AND json_type(context, '$.base') IS NULL;"),
	/* 43 -> 44: a note's best fix ranked by its successes after its rate
	 * (NOTE_FIX_RANK): a fix that worked once, the newest, ranked above
	 * one that worked every time, and was what the note showed.  Every
	 * note's best is ranked again at its next refresh. */
	("DROP TRIGGER note_fix_in; DROP TRIGGER note_fix_out; DROP TRIGGER note_fix_gone;"
	 "DROP TRIGGER note_fix_counted;"
	 "UPDATE notes SET best_resolution = NULL;"
	 NOTE_FIX_TRIGGERS),
	/* 44 -> 45: the sections a person added to a note (extra) go with
	 * its proposal to a layer above, and come back with the layer's
	 * copy: they were dropped on the way. */
	("ALTER TABLE shared_notes ADD COLUMN extra TEXT NOT NULL DEFAULT '';"
	 "ALTER TABLE note_cache ADD COLUMN extra TEXT NOT NULL DEFAULT '';"),
	/* 45 -> 46: the triggers of one table and one event joined into one
	 * (TRIGGERS_JOINED_46): 44 triggers parsed by every process, 31 now. */
	TRIGGERS_JOINED_46,
	/* 46 -> 47: lookups that read whole tables as the store grew.  A
	 * signature's run errors by the signature alone (a note's rule goes
	 * to its lessons so: 288 million instructions at 100,000 recordings):
	 * the partial index held nearly every row already, those whose
	 * message is their signature's.  And the two references a removal
	 * follows that had no index on their side: a removed fix set every
	 * pending error's resolution_id apart (a scan of them), a removed
	 * suggestion every application's.  Few rows hold either: partial. */
	("DROP INDEX run_errors_sig;"
	 "CREATE INDEX run_errors_sig ON run_errors(sig);"
	 "CREATE INDEX pending_resolution ON pending_errors(resolution_id)"
	 "  WHERE resolution_id IS NOT NULL;"
	 "CREATE INDEX applications_suggestion ON applications(suggestion_id)"
	 "  WHERE suggestion_id IS NOT NULL;"
	 /* and the files of the errors that failed for good or were fixed
	  * by a resolution, what the hook before an edit tells of a file:
	  * it read every error's files (218 million instructions at
	  * 100,000 recordings, for a file callus knew).  Kept by the
	  * errors' triggers, joined into those there were: an error
	  * closed, its files rewritten (a redaction pass), removed. */
	 "CREATE TABLE pending_files (pending_id INTEGER NOT NULL, file TEXT NOT NULL,"
	 "  PRIMARY KEY (pending_id, file)) WITHOUT ROWID;"
	 "CREATE INDEX pending_files_file ON pending_files(file);"
	 "INSERT OR IGNORE INTO pending_files SELECT p.id, j.value FROM pending_errors p,"
	 "  json_each(iif(json_valid(p.files), p.files, '[]')) j WHERE " PENDING_KNOWN("p")
	 "  AND j.type = 'text' AND j.value <> '';"
	 "DROP TRIGGER errors_closed; DROP TRIGGER totals_error_out;"
	 ERRORS_CHANGED_47),
};
_Static_assert(CALLUS_VECINDEX_PACKED(CALLUS_EMBED_DIM) == 260, "migration 18's dense length");
_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == CALLUS_STORE_SCHEMA_VERSION,
	       "one migration per schema version");

/* callus_pack_vector(BLOB): a built-in vector of float32 (schema 8),
 * packed dense (9 to 17) or as pairs (18 to 20) as the store keeps it now
 * (vecindex.h); anything else unchanged.  For the migrations to versions
 * 9, 18 and 21, registered only while migrating.  A packed one keeps its
 * bytes: no quantizing again. */
static void pack_vector(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const void *blob = sqlite3_value_blob(argv[0]);
	int len = sqlite3_value_bytes(argv[0]);
	float v[CALLUS_EMBED_DIM];
	uint8_t packed[CALLUS_VECINDEX_PACKED(CALLUS_EMBED_DIM)];
	size_t n;

	(void)argc;
	if (blob && len == (int)sizeof(v)) {
		memcpy(v, blob, sizeof(v));
		n = callus_vecindex_pack_store(packed, v, CALLUS_EMBED_DIM);
	} else if (blob && len == (int)sizeof(packed)) {
		n = callus_vecindex_pack_sparse(packed, blob, CALLUS_EMBED_DIM);
	} else if (blob && len % 2 == 0 && len < (int)sizeof(packed) &&
		   callus_vecindex_unpack(v, CALLUS_EMBED_DIM, blob, (size_t)len) == 0) {
		const uint8_t *b = blob;

		/* pairs: made dense again, then the smallest form */
		memset(packed, 0, sizeof(packed));
		memcpy(packed, b, sizeof(float));
		for (int i = (int)sizeof(float); i + 1 < len; i += 2)
			packed[sizeof(float) + b[i]] = b[i + 1];
		n = callus_vecindex_pack_sparse(packed, packed, CALLUS_EMBED_DIM);
	} else {
		sqlite3_result_value(ctx, argv[0]);
		return;
	}
	sqlite3_result_blob(ctx, packed, (int)n, SQLITE_TRANSIENT);
}

/* callus_message_pattern(TEXT): the pattern signature.h makes of a
 * message.  For the migration to version 19, registered only while
 * migrating. */
static void message_pattern(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *msg = (const char *)sqlite3_value_text(argv[0]);
	callus_buf pat = CALLUS_BUF_INIT;

	(void)argc;
	if (!msg) {
		sqlite3_result_null(ctx);
		return;
	}
	if (callus_message_pattern(&pat, msg, strlen(msg)) < 0)
		sqlite3_result_error_nomem(ctx);
	else
		sqlite3_result_text(ctx, pat.ptr, (int)pat.len, SQLITE_TRANSIENT);
	callus_buf_release(&pat);
}

/* callus_message_pattern_v41(TEXT): the pattern schema 41 made of a
 * message.  For the migration to version 42, registered only while
 * migrating. */
static void message_pattern_v41(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *msg = (const char *)sqlite3_value_text(argv[0]);
	callus_buf pat = CALLUS_BUF_INIT;

	(void)argc;
	if (!msg) {
		sqlite3_result_null(ctx);
		return;
	}
	if (callus_message_pattern_v41(&pat, msg, strlen(msg)) < 0)
		sqlite3_result_error_nomem(ctx);
	else
		sqlite3_result_text(ctx, pat.ptr, (int)pat.len, SQLITE_TRANSIENT);
	callus_buf_release(&pat);
}

/* callus_signature_sketch(STORED, ORIGINAL, HAS_STACK): the sketch of
 * the row (signature.h).  For the migration to version 31, registered
 * only while migrating. */
static void signature_sketch(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	sqlite3_result_int64(ctx, callus_signature_sketch((const char *)sqlite3_value_text(argv[0]),
							  (const char *)sqlite3_value_text(argv[1]),
							  sqlite3_value_int(argv[2])));
}

/* callus_note_default_title(TOOL, EXAMPLE): the title callus_note_title
 * makes of them (notes.h).  For the migration to version 24, registered
 * only while migrating. */
static void note_default_title(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char *t = callus_note_title("", (const char *)sqlite3_value_text(argv[0]),
				   (const char *)sqlite3_value_text(argv[1]));

	(void)argc;
	if (t)
		sqlite3_result_text(ctx, t, -1, free);
	else
		sqlite3_result_error_nomem(ctx);
}

int callus_store_schema_version(callus_store *s)
{
	sqlite3_stmt *st = NULL;
	int v = -1;

	if (sqlite3_prepare_v2(callus_store_db(s), "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

#define TEXT_OF(x) #x
#define VALUE_TEXT(x) TEXT_OF(x)
#define REDACT_VERSION_TEXT VALUE_TEXT(CALLUS_REDACT_VERSION)

/* STORE_FRESH_VERSION and store_fresh_sql: what the migrations make of an
 * empty store, as one script (scripts/store_fresh.sh writes it). */
#include "store_fresh.inc"

const char *callus_store_migration_sql(int v)
{
	return v >= 0 && v < (int)(sizeof(migrations) / sizeof(migrations[0])) ? migrations[v]
										: NULL;
}

const char *callus_store_fresh_sql(int *version)
{
	*version = STORE_FRESH_VERSION;
	return store_fresh_sql;
}

/* The rows of table name as INSERT statements, each value as SQLite's
 * quote() writes it (read back the same), a rowid table's rowid with
 * them. */
static int dump_rows(sqlite3 *db, const char *name, callus_buf *out)
{
	sqlite3_stmt *st = NULL;
	callus_buf q = CALLUS_BUF_INIT, cols = CALLUS_BUF_INIT;
	int n, sq, rowid, rc = CALLUS_EIO;

	/* a WITHOUT ROWID table has none to name */
	callus_buf_printf(&q, "SELECT rowid FROM \"%s\" LIMIT 0", name);
	rowid = callus_buf_status(&q) == 0 &&
		sqlite3_prepare_v2(db, q.ptr, -1, &st, NULL) == SQLITE_OK;
	sqlite3_finalize(st);
	st = NULL;
	callus_buf_clear(&q);
	callus_buf_printf(&q, "SELECT * FROM \"%s\" LIMIT 0", name);
	if (callus_buf_status(&q) < 0 ||
	    (sq = sqlite3_prepare_v2(db, q.ptr, -1, &st, NULL)) != SQLITE_OK)
		goto out;
	n = sqlite3_column_count(st);
	callus_buf_clear(&q);
	callus_buf_puts(&q, "SELECT ");
	if (rowid) {
		callus_buf_puts(&q, "quote(rowid)");
		callus_buf_puts(&cols, "rowid");
	}
	for (int i = 0; i < n; i++) {
		const char *c = sqlite3_column_name(st, i);

		callus_buf_printf(&q, "%squote(\"%s\")", rowid || i ? ", " : "", c);
		callus_buf_printf(&cols, "%s\"%s\"", rowid || i ? ", " : "", c);
	}
	callus_buf_printf(&q, " FROM \"%s\"%s", name, rowid ? " ORDER BY rowid" : "");
	sqlite3_finalize(st);
	st = NULL;
	if (callus_buf_status(&q) < 0 || callus_buf_status(&cols) < 0 ||
	    sqlite3_prepare_v2(db, q.ptr, -1, &st, NULL) != SQLITE_OK)
		goto out;
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		callus_buf_printf(out, "INSERT INTO \"%s\" (%s) VALUES (", name, cols.ptr);
		for (int i = 0; i < sqlite3_column_count(st); i++)
			callus_buf_printf(out, "%s%s", i ? ", " : "",
					  (const char *)sqlite3_column_text(st, i));
		callus_buf_puts(out, ");\n");
	}
	if (sq == SQLITE_DONE)
		rc = callus_buf_status(out);
out:
	sqlite3_finalize(st);
	callus_buf_release(&q);
	callus_buf_release(&cols);
	return rc;
}

int callus_store_schema_dump(callus_store *s, callus_buf *out)
{
	sqlite3 *db = callus_store_db(s);
	sqlite3_stmt *st = NULL;
	callus_strlist tables = CALLUS_STRLIST_INIT;
	int rc = CALLUS_EIO, sq;

	/* in the order they were made: a table before its indexes and the
	 * triggers that name it */
	if (sqlite3_prepare_v2(db,
			       "SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL"
			       " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);

		callus_buf_printf(out, "%s;\n", (const char *)sqlite3_column_text(st, 2));
		if (!strcmp(type, "table") && callus_strlist_add(&tables, name, strlen(name)) < 0) {
			rc = CALLUS_ENOMEM;
			goto out;
		}
	}
	if (sq != SQLITE_DONE)
		goto out;
	for (size_t i = 0; i < tables.count; i++)
		if ((rc = dump_rows(db, tables.items[i], out)) < 0)
			goto out;
	rc = callus_buf_status(out);
out:
	sqlite3_finalize(st);
	callus_strlist_release(&tables);
	return rc;
}

int callus_store_migrate(callus_store *s, callus_error *err)
{
	const int latest = (int)(sizeof(migrations) / sizeof(migrations[0]));
	callus_buf sql = CALLUS_BUF_INIT;
	int rc, v, made;

	/* Cheap check first: most opens find the schema current. */
	if ((v = callus_store_schema_version(s)) == latest)
		return 0;
	if (v < 0)
		return callus_store_db_error(s, err, sqlite3_errcode(callus_store_db(s)), "cannot read");
	if (sqlite3_create_function(callus_store_db(s), "callus_pack_vector", 1,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, pack_vector, NULL,
				    NULL) != SQLITE_OK ||
	    sqlite3_create_function(callus_store_db(s), "callus_message_pattern", 1,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, message_pattern, NULL,
				    NULL) != SQLITE_OK ||
	    sqlite3_create_function(callus_store_db(s), "callus_message_pattern_v41", 1,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, message_pattern_v41,
				    NULL, NULL) != SQLITE_OK ||
	    sqlite3_create_function(callus_store_db(s), "callus_note_default_title", 2,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, note_default_title,
				    NULL, NULL) != SQLITE_OK ||
	    sqlite3_create_function(callus_store_db(s), "callus_signature_sketch", 3,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, signature_sketch, NULL,
				    NULL) != SQLITE_OK ||
	    callus_match_df_sql_register(callus_store_db(s)) != SQLITE_OK)
		return callus_store_db_error(s, err, sqlite3_errcode(callus_store_db(s)),
					     "cannot migrate");
	/* a table rebuilt is dropped: no cascade to the rows naming it (a
	 * no-op inside a transaction, hence before it) */
	if ((rc = callus_store_exec(s, "PRAGMA foreign_keys = OFF", err)) < 0)
		return rc;
	/* IMMEDIATE takes the write lock now, so two processes creating the
	 * store at once apply the migrations exactly once. */
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		return rc;
	v = callus_store_schema_version(s);
	made = v == 0;
	if (v > latest) {
		rc = callus_error_set(err, CALLUS_EINVAL,
				    "'%s' has schema version %d, newer than this callus (%d)",
				    callus_store_path(s), v, latest);
		goto rollback;
	}
	/* a new store: what the migrations make of one, in one script (they
	 * rebuild tables, and each rename parses the schema again: 146
	 * million instructions, a new workspace's first failure); test_store
	 * checks that it is theirs */
	if (made && STORE_FRESH_VERSION == latest) {
		if ((rc = callus_store_exec(s, store_fresh_sql, err)) < 0)
			goto rollback;
		v = latest;
		callus_buf_printf(&sql, "PRAGMA user_version = %d", v);
		if ((rc = callus_store_exec(s, sql.ptr, err)) < 0)
			goto rollback;
	}
	for (; v < latest; v++) {
		if ((rc = callus_store_exec(s, migrations[v], err)) < 0)
			goto rollback;
		callus_buf_clear(&sql);
		callus_buf_printf(&sql, "PRAGMA user_version = %d", v + 1);
		if ((rc = callus_store_exec(s, sql.ptr, err)) < 0)
			goto rollback;
	}
	/* a new store holds no text an older redactor kept (store_redact.h) */
	if (made && (rc = callus_store_exec(s,
					    "INSERT OR IGNORE INTO sync_state (key, value) VALUES ('"
					    CALLUS_STORE_REDACT_MARK "', '" REDACT_VERSION_TEXT "')",
					    err)) < 0)
		goto rollback;
	callus_buf_release(&sql);
	if ((rc = callus_store_exec(s, "COMMIT", err)) < 0)
		return rc;
	/* A migration can leave a large WAL (schema 9 rewrites every vector):
	 * every later process would read it whole at open and copy it again,
	 * 4 ms a run for 4 MB.  Emptied once, now; busy is no failure. */
	sqlite3_wal_checkpoint_v2(callus_store_db(s), NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	return 0;
rollback:
	callus_buf_release(&sql);
	sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
	return rc;
}


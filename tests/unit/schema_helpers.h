/*
 * schema_helpers.h - for the tests that set a store back to an older
 * schema version to run its migrations again: the tables whose layout a
 * later migration changed, put back as the older version had them, so
 * that the migrations in between read what they were written for; and
 * the check of a column every writer of a table must fill alike.
 * Include after cmocka.h.
 */
#ifndef CALLUS_TEST_SCHEMA_HELPERS_H
#define CALLUS_TEST_SCHEMA_HELPERS_H

#include "callus/embed.h"
#include "callus/signature.h"

#include "match_internal.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* The rows of db's signatures whose sketch (schema 31) is not the one
 * their columns make: a recording, a note's sync, a team's pull and the
 * migration each write it. */
static inline int test_wrong_sketches(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int wrong = 0;

	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT message_pattern, original, stack_patterns <> '[]',"
					    " sketch FROM signatures",
					    -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		wrong += callus_signature_sketch((const char *)sqlite3_column_text(st, 0),
						 (const char *)sqlite3_column_text(st, 1),
						 sqlite3_column_int(st, 2)) !=
			 sqlite3_column_int64(st, 3);
	sqlite3_finalize(st);
	return wrong;
}

/* a signature's run errors indexed only where their message is its own,
 * the references of fixes and suggestions not indexed, and no files of
 * the errors known, as before schema 47 */
#define TEST_AS_BEFORE_47                                                               \
	"DROP INDEX run_errors_sig;"                                                    \
	"CREATE INDEX run_errors_sig ON run_errors(sig) WHERE message = '';"            \
	"DROP INDEX pending_resolution;"                                                \
	"DROP INDEX applications_suggestion;"                                           \
	"DROP TRIGGER errors_closed; DROP TRIGGER totals_error_out;"                    \
	"DROP TABLE pending_files;"                                                     \
	"CREATE TRIGGER errors_closed AFTER UPDATE OF state ON pending_errors"          \
	"  WHEN NEW.state <> OLD.state BEGIN"                                           \
	"  SELECT RAISE(ABORT, 'a fixed or permanent error stays so')"                  \
	"  WHERE OLD.state <> 'pending';"                                               \
	"  UPDATE totals SET pending = pending - 1, fixed = fixed + (NEW.state = 'fixed'),"\
	"  permanent = permanent + (NEW.state = 'permanent'); END;"                      \
	"CREATE TRIGGER totals_error_out AFTER DELETE ON pending_errors"                \
	"  BEGIN UPDATE totals SET pending = pending - (OLD.state = 'pending'),"        \
	"  fixed = fixed - (OLD.state = 'fixed'),"                                      \
	" permanent = permanent - (OLD.state = 'permanent');"                           \
	"  END;"

/* the triggers of one table and one event apart, as before schema 46 joined
 * them: their texts as schema 45 had them */
#define TEST_AS_BEFORE_46                                                               \
	TEST_AS_BEFORE_47                                                               \
	"DROP TRIGGER lessons_added; DROP TRIGGER signatures_added; DROP TRIGGER"       \
	" signature_gone; DROP TRIGGER vectors_added; DROP TRIGGER vectors_removed;"    \
	" DROP TRIGGER cached_added; DROP TRIGGER cached_removed; DROP TRIGGER"         \
	" resolution_counted; DROP TRIGGER resolution_gone;"                            \
	"CREATE TRIGGER lesson_files_added AFTER INSERT ON lessons BEGIN  INSERT OR"    \
	" IGNORE INTO lesson_files SELECT NEW.file, NEW.id WHERE NEW.file <> ''; "      \
	" INSERT OR IGNORE INTO lesson_files SELECT value, NEW.id FROM"                 \
	" json_each(NEW.affected_files)   WHERE type = 'text' AND value <> ''; END;"    \
	"CREATE TRIGGER totals_lesson_in AFTER INSERT ON lessons  BEGIN UPDATE totals"  \
	" SET lessons = lessons + 1; END;"                                              \
	"CREATE TRIGGER signatures_queued AFTER INSERT ON signatures BEGIN  INSERT OR"  \
	" IGNORE INTO signatures_unindexed VALUES (NEW.rowid); END;"                    \
	"CREATE TRIGGER totals_signature_in AFTER INSERT ON signatures  BEGIN UPDATE"   \
	" totals SET signatures = signatures + 1; END;"                                 \
	"CREATE TRIGGER signature_gone BEFORE DELETE ON signatures BEGIN  DELETE FROM"  \
	" signature_vectors WHERE sig = OLD.rowid;  DELETE FROM pending_errors WHERE"   \
	" sig = OLD.rowid;  UPDATE run_errors SET message = OLD.original WHERE sig ="   \
	" OLD.rowid  AND message = ''; END;"                                            \
	"CREATE TRIGGER totals_signature_out AFTER DELETE ON signatures  BEGIN UPDATE"  \
	" totals SET signatures = signatures - 1; END;"                                 \
	"CREATE TRIGGER vectors_added AFTER INSERT ON signature_vectors BEGIN  UPDATE"  \
	" vector_models SET n = n + 1 WHERE id = NEW.model; END;"                       \
	"CREATE TRIGGER noted_count_vector_add AFTER INSERT ON signature_vectors  WHEN" \
	" NEW.model = 1 AND ((SELECT count(*) FROM signatures g JOIN note_signatures x" \
	" ON x.signature_id = g.id  WHERE g.rowid = NEW.sig) + (SELECT count(*) FROM"   \
	" signatures g JOIN note_cache c  ON c.signature_id = g.id WHERE g.rowid ="     \
	" NEW.sig)) > 0  BEGIN UPDATE noted_count SET n = n + ((SELECT count(*) FROM"   \
	" signatures g JOIN note_signatures x ON x.signature_id = g.id  WHERE g.rowid"  \
	" = NEW.sig) + (SELECT count(*) FROM signatures g JOIN note_cache c  ON"        \
	" c.signature_id = g.id WHERE g.rowid = NEW.sig)); END;"                        \
	"CREATE TRIGGER aliased_vector_in AFTER INSERT ON signature_vectors  WHEN"      \
	" EXISTS (SELECT 1 FROM signatures g JOIN signature_links l ON l.alias_id ="    \
	" g.id WHERE g.rowid = NEW.sig) BEGIN  UPDATE vector_models SET aliased ="      \
	" aliased + 1 WHERE id = NEW.model; END;"                                       \
	"CREATE TRIGGER vectors_removed AFTER DELETE ON signature_vectors BEGIN "       \
	" UPDATE vector_models SET n = n - 1 WHERE id = OLD.model; END;"                \
	"CREATE TRIGGER noted_count_vector_remove AFTER DELETE ON signature_vectors "   \
	" WHEN OLD.model = 1 AND ((SELECT count(*) FROM signatures g JOIN"              \
	" note_signatures x ON x.signature_id = g.id  WHERE g.rowid = OLD.sig) +"       \
	" (SELECT count(*) FROM signatures g JOIN note_cache c  ON c.signature_id ="    \
	" g.id WHERE g.rowid = OLD.sig)) > 0  BEGIN UPDATE noted_count SET n = n -"     \
	" ((SELECT count(*) FROM signatures g JOIN note_signatures x ON x.signature_id" \
	" = g.id  WHERE g.rowid = OLD.sig) + (SELECT count(*) FROM signatures g JOIN"   \
	" note_cache c  ON c.signature_id = g.id WHERE g.rowid = OLD.sig)); END;"       \
	"CREATE TRIGGER aliased_vector_out AFTER DELETE ON signature_vectors  WHEN"     \
	" EXISTS (SELECT 1 FROM signatures g JOIN signature_links l ON l.alias_id ="    \
	" g.id WHERE g.rowid = OLD.sig) BEGIN  UPDATE vector_models SET aliased ="      \
	" aliased - 1 WHERE id = OLD.model; END;"                                       \
	"CREATE TRIGGER totals_cached_in AFTER INSERT ON note_cache  BEGIN UPDATE"      \
	" totals SET team_notes = team_notes + (NEW.layer = 'team'),  org_notes ="      \
	" org_notes + (NEW.layer = 'org'); END;"                                        \
	"CREATE TRIGGER noted_count_cache_add AFTER INSERT ON note_cache  WHEN (EXISTS" \
	" (SELECT 1 FROM signatures g JOIN signature_vectors v ON v.sig = g.rowid"      \
	" WHERE g.id = NEW.signature_id AND v.model = 1))  BEGIN UPDATE noted_count"    \
	" SET n = n + 1; END;"                                                          \
	"CREATE TRIGGER totals_cached_out AFTER DELETE ON note_cache  BEGIN UPDATE"     \
	" totals SET team_notes = team_notes - (OLD.layer = 'team'),  org_notes ="      \
	" org_notes - (OLD.layer = 'org'); END;"                                        \
	"CREATE TRIGGER noted_count_cache_remove AFTER DELETE ON note_cache  WHEN"      \
	" (EXISTS (SELECT 1 FROM signatures g JOIN signature_vectors v ON v.sig ="      \
	" g.rowid WHERE g.id = OLD.signature_id AND v.model = 1))  BEGIN UPDATE"        \
	" noted_count SET n = n - 1; END;"                                              \
	"CREATE TRIGGER totals_resolution_used AFTER UPDATE OF application_count,"      \
	" success_count  ON resolutions BEGIN UPDATE totals  SET applications ="        \
	" applications + NEW.application_count - OLD.application_count,  successes ="   \
	" successes + NEW.success_count - OLD.success_count; END;"                      \
	"CREATE TRIGGER note_fix_counted AFTER UPDATE OF application_count,"            \
	" success_count,  last_success_at, code_changes ON resolutions BEGIN UPDATE"    \
	" notes SET  applications = applications + NEW.application_count -"             \
	" OLD.application_count,  successes = successes + NEW.success_count -"          \
	" OLD.success_count,  best_resolution = CASE WHEN best_resolution IS NULL THEN" \
	" NULL   WHEN best_resolution = NEW.id THEN CASE WHEN NEW.code_changes <> ''"   \
	" AND (CAST(NEW.success_count AS REAL) / max(NEW.application_count, 1),"        \
	" NEW.success_count, NEW.last_success_at, NEW.id) >= (CAST(OLD.success_count"   \
	" AS REAL) / max(OLD.application_count, 1), OLD.success_count,"                 \
	" OLD.last_success_at, OLD.id) THEN NEW.id ELSE NULL END   WHEN"                \
	" NEW.code_changes <> '' AND (best_resolution = 0 OR (CAST(NEW.success_count"   \
	" AS REAL) / max(NEW.application_count, 1), NEW.success_count,"                 \
	" NEW.last_success_at, NEW.id) > (SELECT CAST(b.success_count AS REAL) /"       \
	" max(b.application_count, 1), b.success_count, b.last_success_at, b.id FROM"   \
	" resolutions b WHERE b.id = notes.best_resolution)) THEN NEW.id   ELSE"        \
	" best_resolution END WHERE id = (SELECT note_id FROM note_resolutions WHERE"   \
	" resolution_id = NEW.id); END;"                                                \
	"CREATE TRIGGER totals_resolution_out AFTER DELETE ON resolutions  BEGIN"       \
	" UPDATE totals SET resolutions = resolutions - 1,  applications ="             \
	" applications - OLD.application_count,  successes = successes -"               \
	" OLD.success_count; END;"                                                      \
	"CREATE TRIGGER note_fix_gone BEFORE DELETE ON resolutions BEGIN UPDATE notes"  \
	" SET applications = applications - OLD.application_count,  successes ="        \
	" successes - OLD.success_count WHERE id = (SELECT note_id FROM"                \
	" note_resolutions WHERE resolution_id = OLD.id); END;"                         \
	" DROP TRIGGER errors_added; DROP TRIGGER errors_closed;"                       \
	"CREATE TRIGGER pending_starts_pending BEFORE INSERT ON pending_errors  WHEN"   \
	" NEW.state <> 'pending'  BEGIN SELECT RAISE(ABORT, 'an error starts"           \
	" pending'); END;"                                                              \
	"CREATE TRIGGER totals_error_in AFTER INSERT ON pending_errors  BEGIN UPDATE"   \
	" totals SET pending = pending + 1; END;"                                       \
	"CREATE TRIGGER pending_one_way BEFORE UPDATE OF state ON pending_errors  WHEN" \
	" OLD.state <> 'pending' AND NEW.state <> OLD.state  BEGIN SELECT RAISE(ABORT," \
	" 'a fixed or permanent error stays so'); END;"                                 \
	"CREATE TRIGGER totals_error_closed AFTER UPDATE OF state ON pending_errors "   \
	" WHEN OLD.state = 'pending' AND NEW.state <> 'pending'  BEGIN UPDATE totals"   \
	" SET pending = pending - 1, fixed = fixed + (NEW.state = 'fixed'),  permanent" \
	" = permanent + (NEW.state = 'permanent'); END;"

/* no sections a person added in the layers' notes, as before schema 45 */
#define TEST_AS_BEFORE_45                                                               \
	TEST_AS_BEFORE_46                                                               \
	"ALTER TABLE shared_notes DROP COLUMN extra;"                                   \
	"ALTER TABLE note_cache DROP COLUMN extra;"

/* the aliases' vectors not counted, as before schema 41 */
#define TEST_AS_BEFORE_41                                                               \
	TEST_AS_BEFORE_45                                                               \
	"DROP TRIGGER aliased_link_in;"                                                 \
	"DROP TRIGGER aliased_link_out;"                                                \
	"DROP TRIGGER aliased_link_moved;"                                              \
	"DROP TRIGGER aliased_vector_in;"                                               \
	"DROP TRIGGER aliased_vector_out;"                                              \
	"DROP TRIGGER aliased_renamed;"                                                 \
	"ALTER TABLE vector_models DROP COLUMN aliased;"

/* fixes ranked by their counts, as before schema 40 */
#define TEST_AS_BEFORE_40                                                               \
	TEST_AS_BEFORE_41                                                               \
	"CREATE INDEX resolutions_ranked ON resolutions(signature_id, success_count,"   \
	"  application_count, last_success_at);"                                        \
	"DROP INDEX resolutions_recent;"

/* runs without the learning they owe, as before schema 39 */
#define TEST_AS_BEFORE_39 TEST_AS_BEFORE_40 "ALTER TABLE runs DROP COLUMN learn_owed;"

/* permanent errors without their index by check and error, as before
 * schema 38 */
#define TEST_AS_BEFORE_38 TEST_AS_BEFORE_39 "DROP INDEX pending_permanent;"

/* notes' sums and best fix not kept by triggers, as before schema 37 */
#define TEST_AS_BEFORE_37                                                               \
	TEST_AS_BEFORE_38                                                               \
	"DROP TRIGGER note_fix_in;"                                                     \
	"DROP TRIGGER note_fix_out;"                                                    \
	"DROP TRIGGER note_fix_gone;"                                                   \
	"DROP TRIGGER note_fix_counted;"                                                \
	"ALTER TABLE notes DROP COLUMN best_resolution;"

/* resolutions without the index of their counts, as before schema 36 */
#define TEST_AS_BEFORE_36                                                               \
	TEST_AS_BEFORE_37                                                               \
	"DROP INDEX resolutions_counts;"                                                \
	"DROP INDEX resolutions_ranked;"                                                \
	"CREATE INDEX resolutions_signature ON resolutions(signature_id);"

/* run_errors' messages all written out, not indexed by signature, and a
 * signature removed leaving them as they are, as before schema 35. */
#define TEST_AS_BEFORE_35                                                               \
	TEST_AS_BEFORE_36                                                               \
	"UPDATE run_errors SET message = (SELECT original FROM signatures g"            \
	"  WHERE g.sig = run_errors.sig) WHERE message = '' AND sig IS NOT NULL;"       \
	"DROP INDEX run_errors_sig;"                                                    \
	"DROP TRIGGER signature_gone;"                                                  \
	"CREATE TRIGGER signature_gone BEFORE DELETE ON signatures BEGIN"               \
	"  DELETE FROM signature_vectors WHERE sig = OLD.rowid;"                        \
	"  DELETE FROM pending_errors WHERE sig = OLD.rowid; END;"

/* pending_errors without its message, as before schema 34. */
#define TEST_AS_BEFORE_34 TEST_AS_BEFORE_35 "ALTER TABLE pending_errors DROP COLUMN message;"

/* a vector's model by name and the vectors' counts in vector_counts, as
 * before schema 32 (vector_models).  The triggers that test a built-in
 * vector's model keep testing its id until the migration makes them
 * again: nothing in between writes a vector or a note. */
#define TEST_AS_BEFORE_32                                                               \
	TEST_AS_BEFORE_34                                                               \
	"DROP TRIGGER vectors_added;"                                                   \
	"DROP TRIGGER vectors_removed;"                                                 \
	"CREATE TABLE vector_counts (model TEXT PRIMARY KEY, n INTEGER NOT NULL)"       \
	"  WITHOUT ROWID;"                                                              \
	"INSERT INTO vector_counts SELECT name, n FROM vector_models WHERE n > 0;"      \
	"UPDATE signature_vectors SET model = (SELECT name FROM vector_models"          \
	"  WHERE id = model);"                                                          \
	"DROP TABLE vector_models;"                                                     \
	"CREATE TRIGGER vectors_added AFTER INSERT ON signature_vectors BEGIN"          \
	"  INSERT INTO vector_counts VALUES (NEW.model, 1)"                             \
	"  ON CONFLICT (model) DO UPDATE SET n = n + 1; END;"                           \
	"CREATE TRIGGER vectors_removed AFTER DELETE ON signature_vectors BEGIN"        \
	"  UPDATE vector_counts SET n = n - 1 WHERE model = OLD.model; END;"

/* After TEST_AS_BEFORE_32: the triggers that test a built-in vector's
 * model by its id made again testing its name, as schema 31 had them (for
 * the test of migration 32 itself, which must make them again).  How many
 * there were. */
static inline int test_triggers_by_model_name(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	char *script = NULL;
	int n;

	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT group_concat('DROP TRIGGER ' || name || ';'"
					    " || replace(sql, 'model = " CALLUS_MATCH_BUILTIN_ID "',"
					    " 'model = ''" CALLUS_EMBED_BUILTIN_MODEL "''') || ';', ''),"
					    " count(*) FROM sqlite_master WHERE type = 'trigger'"
					    " AND sql LIKE '%model = " CALLUS_MATCH_BUILTIN_ID "%'",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int(st, 1);
	if (n)
		script = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (n) {
		assert_non_null(script);
		assert_int_equal(sqlite3_exec(db, script, NULL, NULL, NULL), SQLITE_OK);
	}
	free(script);
	return n;
}

/* signatures without their sketch, and its index without it, as before
 * schema 31 */
#define TEST_AS_BEFORE_31                                                               \
	TEST_AS_BEFORE_32                                                               \
	"DROP INDEX signatures_type_seen;"                                              \
	"ALTER TABLE signatures DROP COLUMN sketch;"                                    \
	"CREATE INDEX signatures_type_seen ON signatures(error_type, last_seen);"

/* note_cache's triggers and index as before schema 30, which makes them
 * again (a trigger reading signatures fails the rebuild of schemas 20 and
 * 28) */
#define TEST_AS_BEFORE_30                                                               \
	TEST_AS_BEFORE_31                                                               \
	"DROP TRIGGER noted_count_cache_add;"                                           \
	"DROP TRIGGER noted_count_cache_remove;"                                        \
	"DROP TRIGGER noted_count_cache_moved;"                                         \
	"DROP INDEX note_cache_signature;"

/* a signature's context patterns in its row, as schemas 2 to 27 kept them
 * (schema 28 keeps each list once, in contexts) */
#define TEST_AS_BEFORE_28                                                               \
	TEST_AS_BEFORE_30                                                               \
	"ALTER TABLE signatures ADD COLUMN context_patterns TEXT NOT NULL DEFAULT '[]';" \
	"UPDATE signatures SET context_patterns = coalesce((SELECT c.patterns"          \
	"  FROM contexts c WHERE c.ctx = signatures.ctx), '[]');"                        \
	"ALTER TABLE signatures DROP COLUMN ctx;"                                       \
	"DROP TABLE contexts;"

/* and embed_df as schemas 5 to 26 kept it, a row a feature (schema 27
 * packs a bucket's counts in a row, match_df.c), made of the counts in
 * embed_df_recent, where a small store's recordings leave them */
#define TEST_AS_BEFORE_27                                                               \
	TEST_AS_BEFORE_28                                                               \
	"DROP TABLE embed_df;"                                                          \
	"CREATE TABLE embed_df (feature INTEGER PRIMARY KEY, df INTEGER NOT NULL);"     \
	"INSERT INTO embed_df SELECT feature, df FROM embed_df_recent;"                 \
	"DELETE FROM embed_df_recent;"

#endif

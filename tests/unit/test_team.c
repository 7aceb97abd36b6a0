/*
 * test_team.c - the layers above a workspace (callus/team.h): who decides,
 * where the stores are, and a sync between two workspace stores and an
 * embedded team store: promotion, the cache and its resolutions, the
 * conflict rule, a store that moved.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callus/knowledge.h"
#include "callus/notes.h"
#include "callus/redact.h"
#include "callus/store_redact.h"
#include "callus/team.h"
#include "schema_helpers.h"

typedef struct fixture {
	char dir[64];
	char ws1[96], ws2[96], team[96], url[128];
	callus_store *s1, *s2;
	callus_knowledge *k;
} fixture;

static void exec_sql(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	char *msg = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
	sqlite3_close(db);
}

static int64_t int_sql(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int64_t v = -1;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* A note of workspace path's store with these metrics. */
static void add_note(const char *path, const char *id, int apps, int succ)
{
	char sql[1024];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO notes (id, signature_id, layer, tool, error_type, title, example,"
		 " steps, code, created_at, updated_at, applications, successes) VALUES"
		 " ('%s', '%s0000000000000000000000000000000000000000000000000000', 'project',"
		 " 'gcc', '-Wformat', 'gcc: format %s', 'f.c:1:1: format', 'Edited f() in f.c',"
		 " '-a\n+b\n', '2026', '2026', %d, %d)",
		 id, id, id, apps, succ);
	exec_sql(path, sql);
}

/* Note id of the first workspace, with these metrics, proposed by its sync
 * and approved by the layer's maintainer. */
static void approved(fixture *f, const char *id, int apps, int succ)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_sync_report r;

	add_note(f->ws1, id, apps, succ);
	if (callus_team_sync(f->s1, f->k, CALLUS_LAYER_TEAM, 0, "dev@x", NULL, &r, NULL, &err) < 0 ||
	    callus_knowledge_decide(f->k, CALLUS_LAYER_TEAM, id, CALLUS_SHARED_APPROVED, "lead", "",
				    &err) < 0)
		fail_msg("%s", callus_error_message(&err));
	callus_error_release(&err);
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/callus-team-XXXXXX");
	if (!f || !mkdtemp(f->dir))
		return -1;
	snprintf(f->ws1, sizeof(f->ws1), "%s/ws1.db", f->dir);
	snprintf(f->ws2, sizeof(f->ws2), "%s/ws2.db", f->dir);
	snprintf(f->team, sizeof(f->team), "%s/team.db", f->dir);
	snprintf(f->url, sizeof(f->url), "sqlite:%s", f->team);
	if (callus_store_open(&f->s1, f->ws1, 5000, NULL) < 0 ||
	    callus_store_open(&f->s2, f->ws2, 5000, NULL) < 0 ||
	    callus_knowledge_open(&f->k, f->url, 5000, NULL) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	char cmd[128];

	callus_store_close(f->s1);
	callus_store_close(f->s2);
	callus_knowledge_close(f->k);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static callus_config *config(const char *text)
{
	callus_config *c = NULL;

	assert_int_equal(callus_config_parse(&c, text, strlen(text), "t", NULL), 0);
	return c;
}

static void maintainers(void **state)
{
	callus_config *ws = config("[layer.team]\nmaintainers = a@x.org,  B@Y.org \n");
	callus_config *none = config("");

	(void)state;
	assert_true(callus_team_may_decide(ws, none, CALLUS_LAYER_TEAM, 1, "b@y.org"));
	assert_true(callus_team_may_decide(ws, none, CALLUS_LAYER_TEAM, 0, "a@x.org"));
	assert_false(callus_team_may_decide(ws, none, CALLUS_LAYER_TEAM, 1, "c@z.org"));
	assert_false(callus_team_may_decide(ws, none, CALLUS_LAYER_TEAM, 1, "a@x"));
	assert_false(callus_team_may_decide(ws, none, CALLUS_LAYER_TEAM, 1, ""));
	/* the org layer names none: its store's own rule */
	assert_true(callus_team_may_decide(ws, none, CALLUS_LAYER_ORG, 1, "c@z.org"));
	/* the user's config when the workspace's says nothing */
	assert_false(callus_team_may_decide(none, ws, CALLUS_LAYER_TEAM, 1, "c@z.org"));
	callus_config_free(ws);
	callus_config_free(none);
}

static void locations(void **state)
{
	callus_config *ws = config("[org]\nurl = postgresql://db/org\n");
	callus_config *user = config("[team]\nurl = sqlite:/srv/team.db\n[org]\nurl = x\n");
	callus_config *none = config("");
	callus_buf b = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;

	(void)state;
	setenv("XDG_DATA_HOME", "/data/home", 1);
	assert_int_equal(callus_team_location(&b, none, none, CALLUS_LAYER_TEAM, &err), 0);
	assert_string_equal(b.ptr, "sqlite:/data/home/callus/team.db");
	unsetenv("XDG_DATA_HOME");
	setenv("HOME", "/home/u", 1);
	assert_int_equal(callus_team_location(&b, none, none, CALLUS_LAYER_TEAM, &err), 0);
	assert_string_equal(b.ptr, "sqlite:/home/u/.local/share/callus/team.db");
	assert_int_equal(callus_team_location(&b, ws, user, CALLUS_LAYER_TEAM, &err), 0);
	assert_string_equal(b.ptr, "sqlite:/srv/team.db");
	assert_int_equal(callus_team_location(&b, ws, user, CALLUS_LAYER_ORG, &err), 0);
	assert_string_equal(b.ptr, "postgresql://db/org");
	assert_int_equal(callus_team_location(&b, none, none, CALLUS_LAYER_ORG, &err),
			 CALLUS_ENOTFOUND);
	callus_error_release(&err);
	assert_int_equal(callus_team_location(&b, none, none, CALLUS_LAYER_PROJECT, &err),
			 CALLUS_ENOTFOUND);
	callus_error_release(&err);
	/* a relative path is another file from each folder; a key=value
	 * string is refused without a word of it (it may hold a password) */
	{
		static const char *const bad[] = {
			"[team]\nurl = team.db\n", "[team]\nurl = sqlite:data/team.db\n",
			"[team]\nurl = \"host=db password=Xy7SecretPw dbname=callus\"\n"
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			callus_config *c = config(bad[i]);

			assert_int_equal(callus_team_location(&b, c, none, CALLUS_LAYER_TEAM, &err),
					 CALLUS_EINVAL);
			assert_null(strstr(callus_error_message(&err), "Xy7SecretPw"));
			callus_error_release(&err);
			callus_config_free(c);
		}
	}
	assert_true(callus_team_store_missing("sqlite:/nonexistent/callus/team.db"));
	assert_true(callus_team_store_missing("/nonexistent/callus/team.db"));
	assert_false(callus_team_store_missing("sqlite:/dev/null"));
	assert_false(callus_team_store_missing("postgresql://db/x"));
	callus_buf_release(&b);
	callus_config_free(ws);
	callus_config_free(user);
	callus_config_free(none);
}

/* Promotion at 5 applications and 80%, approval, the pull into the other
 * workspace's cache with a resolution of its own, its outcomes back. */
static void promote_approve_pull(void **state)
{
	fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	callus_sync_report r;
	callus_note n, *ns = NULL;
	size_t count = 0;
	int64_t rid;

	add_note(f->ws1, "aaaaaaaaaaaa", 5, 4);  /* 80%: proposed */
	/* with a section a person added: it travels with the note */
	exec_sql(f->ws1, "UPDATE notes SET extra = '## Why\nThe header moved in v2.'"
			 " WHERE id = 'aaaaaaaaaaaa'");
	add_note(f->ws1, "bbbbbbbbbbbb", 4, 4);  /* too few */
	add_note(f->ws1, "cccccccccccc", 10, 7); /* 70% */
	assert_int_equal(callus_team_sync(f->s1, f->k, CALLUS_LAYER_TEAM, 0, "dev@x", NULL, &r, NULL,
					  &err), 0);
	assert_int_equal(r.proposed, 1);
	assert_int_equal(r.pulled, 0);
	/* proposed once only */
	assert_int_equal(callus_team_sync(f->s1, f->k, CALLUS_LAYER_TEAM, 0, "dev@x", NULL, &r, NULL,
					  &err), 0);
	assert_int_equal(r.proposed, 0);
	/* [promote] min_applications lowers the bar */
	assert_int_equal(callus_team_sync(f->s1, f->k, CALLUS_LAYER_TEAM, 4, "dev@x", NULL, &r, NULL,
					  &err), 0);
	assert_int_equal(r.proposed, 1);

	/* nothing reaches the other workspace before approval */
	assert_int_equal(callus_team_sync(f->s2, f->k, CALLUS_LAYER_TEAM, 0, "", NULL, &r, NULL, &err), 0);
	assert_int_equal(r.pulled, 0);
	assert_int_equal(callus_knowledge_decide(f->k, CALLUS_LAYER_TEAM, "aaaaaaaaaaaa",
						 CALLUS_SHARED_APPROVED, "lead", "", &err), 0);
	assert_int_equal(callus_knowledge_decide(f->k, CALLUS_LAYER_TEAM, "bbbbbbbbbbbb",
						 CALLUS_SHARED_REJECTED, "lead", "no", &err), 0);
	assert_int_equal(callus_team_sync(f->s2, f->k, CALLUS_LAYER_TEAM, 0, "", NULL, &r, NULL, &err), 0);
	assert_int_equal(r.pulled, 1);
	/* the note's signature came with it, sketched as a recording sketches */
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM signatures WHERE id LIKE"
					 " 'aaaaaaaaaaaa%' AND sketch <> 0"),
			 1);
	{
		sqlite3 *db = NULL;

		assert_int_equal(sqlite3_open(f->ws2, &db), SQLITE_OK);
		assert_int_equal(test_wrong_sketches(db), 0);
		sqlite3_close(db);
	}
	assert_int_equal(callus_team_cached_list(f->s2, CALLUS_LAYER_TEAM, &ns, &count, &err), 0);
	assert_int_equal(count, 1);
	assert_string_equal(ns[0].id, "aaaaaaaaaaaa");
	assert_int_equal(ns[0].layer, CALLUS_LAYER_TEAM);
	assert_int_equal(ns[0].applications, 5);
	assert_int_equal(ns[0].resolutions, 1);
	assert_string_equal(ns[0].extra, "## Why\nThe header moved in v2.");
	callus_notes_free(ns, count);
	assert_int_equal(int_sql(f->team, "SELECT count(*) FROM shared_notes WHERE id = 'aaaaaaaaaaaa'"
					  " AND extra = '## Why' || char(10) || 'The header moved in v2.'"),
			 1);
	{
		callus_shared_note sn;

		assert_int_equal(callus_knowledge_shared_get(f->k, CALLUS_LAYER_TEAM, "aaaaaaaaaaaa",
							     &sn, &err), 0);
		assert_string_equal(sn.extra, "## Why\nThe header moved in v2.");
		callus_shared_note_release(&sn);
	}

	/* the cache's resolution is shown as the team's note */
	rid = int_sql(f->ws2, "SELECT resolution_id FROM note_cache");
	assert_true(rid > 0);
	assert_int_equal(callus_notes_for_resolution(f->s2, rid, &n, &err), 0);
	assert_int_equal(n.layer, CALLUS_LAYER_TEAM);
	assert_string_equal(n.id, "aaaaaaaaaaaa");
	callus_note_release(&n);

	/* its outcomes here go back: 2 more applications, 1 success */
	{
		char sql[128];

		snprintf(sql, sizeof(sql),
			 "UPDATE resolutions SET application_count = application_count + 2,"
			 " success_count = success_count + 1 WHERE id = %lld", (long long)rid);
		exec_sql(f->ws2, sql);
	}
	assert_int_equal(callus_team_sync(f->s2, f->k, CALLUS_LAYER_TEAM, 0, "", NULL, &r, NULL, &err), 0);
	assert_int_equal(r.reported, 1);
	assert_int_equal(int_sql(f->team, "SELECT sum(applications) FROM shared_outcomes"
					  " WHERE note_id = 'aaaaaaaaaaaa'"), 7);
	assert_int_equal(int_sql(f->team, "SELECT sum(successes) FROM shared_outcomes"
					  " WHERE note_id = 'aaaaaaaaaaaa'"), 5);

	/* the origin keeps its own note: its cached copy makes no resolution */
	assert_int_equal(callus_team_sync(f->s1, f->k, CALLUS_LAYER_TEAM, 0, "", NULL, &r, NULL, &err), 0);
	assert_int_equal(int_sql(f->ws1, "SELECT count(*) FROM note_cache"), 1);
	assert_int_equal(int_sql(f->ws1, "SELECT count(*) FROM note_cache WHERE resolution_id"
					 " IS NOT NULL"), 0);
	assert_int_equal(int_sql(f->ws1, "SELECT count(*) FROM note_promotions WHERE"
					 " status = 'rejected'"), 1);
	callus_error_release(&err);
}

/* A note an older callus stored with a secret in it (its store not yet
 * gone over by the catch-up pass) reaches the layer's store redacted:
 * every maintainer reads that store. */
static void proposed_redacted(void **state)
{
	fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	callus_sync_report r;

	add_note(f->ws1, "aaaaaaaaaaaa", 5, 4);
	exec_sql(f->ws1, "UPDATE notes SET"
			 " title = title || ' ghp_000000000000000000000000000000000049',"
			 " example = 'auth ghp_000000000000000000000000000000000049 failed',"
			 " rule = 'export GITHUB_TOKEN=ghp_000000000000000000000000000000000049',"
			 " steps = 'set AKIAIOSFODNN7EXAMPLF in the environment',"
			 " code = '+token = \"ghp_000000000000000000000000000000000049\"\n',"
			 " files = json_array('src/a.c', 'keys/ghp_000000000000000000000000000000000049'),"
			 " extra = '## Note' || char(10) || 'token ghp_000000000000000000000000000000000049'");
	assert_int_equal(callus_team_sync(f->s1, f->k, CALLUS_LAYER_TEAM, 0, "dev@x", NULL, &r, NULL,
					  &err), 0);
	assert_int_equal(r.proposed, 1);
	assert_int_equal(int_sql(f->team, "SELECT count(*) FROM shared_notes"), 1);
	assert_int_equal(int_sql(f->team, "SELECT count(*) FROM shared_notes WHERE title || example"
					  " || rule || steps || code || files || extra LIKE '%ghp_%'"
					  " OR steps LIKE '%AKIA%'"),
			 0);
	assert_int_equal(int_sql(f->team, "SELECT count(*) FROM shared_notes WHERE json_valid(files)"
					  " AND files LIKE '%keys/[REDACTED:github-token]%'"
					  " AND example = 'auth [REDACTED:github-token] failed'"),
			 1);
}

/* A note the layer holds with a secret in it (proposed by an older
 * callus, or written there by hand) is redacted as it is taken in: the
 * cached copy, its resolution and the signature made for it. */
static void pulled_redacted(void **state)
{
	fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	callus_sync_report r;

	approved(f, "aaaaaaaaaaaa", 5, 4);
	exec_sql(f->team, "UPDATE shared_notes SET"
			  " title = title || ' ghp_000000000000000000000000000000000049',"
			  " example = 'auth ghp_000000000000000000000000000000000049 failed',"
			  " steps = 'export GITHUB_TOKEN=ghp_000000000000000000000000000000000049',"
			  " code = '+token = \"ghp_000000000000000000000000000000000049\"\n',"
			  " files = json_array('src/a.c', 'keys/ghp_000000000000000000000000000000000049'),"
			  " extra = 'token ghp_000000000000000000000000000000000049'");
	assert_int_equal(callus_team_sync(f->s2, f->k, CALLUS_LAYER_TEAM, 0, "", NULL, &r, NULL, &err), 0);
	assert_int_equal(r.pulled, 1);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM note_cache WHERE title || example"
					 " || steps || code || files || extra LIKE '%ghp_%'"),
			 0);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM note_cache"
					 " WHERE extra = 'token [REDACTED:github-token]'"),
			 1);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM note_cache WHERE json_valid(files)"
					 " AND files LIKE '%keys/[REDACTED:github-token]%'"
					 " AND example = 'auth [REDACTED:github-token] failed'"),
			 1);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM resolutions WHERE description"
					 " || code_changes || files LIKE '%ghp_%'"),
			 0);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM resolutions WHERE code_changes"
					 " LIKE '%[REDACTED:%'"),
			 1);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM signatures WHERE original"
					 " LIKE '%ghp_%'"),
			 0);
	/* a pass over the store (one an earlier version went over) leaves
	 * the layer's id: its row is the note's, not of its text, and the
	 * next pull writes the layer's id back */
	{
		callus_redactor *red = NULL;
		callus_store_redact_result g;

		exec_sql(f->ws2, "UPDATE sync_state SET value = '1' WHERE key = 'redaction.version'");
		assert_int_equal(callus_redactor_new(&red, NULL), 0);
		if (callus_store_redact(f->s2, f->dir, red, 0, &g, &err) < 0)
			fail_msg("%s", callus_error_message(&err));
		assert_true(g.done);
		callus_redactor_free(red);
		assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM note_cache c JOIN signatures g"
						 " ON g.id = c.signature_id WHERE c.signature_id LIKE"
						 " 'aaaaaaaaaaaa%'"),
				 1);
		assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM resolutions r JOIN note_cache c"
						 " ON c.resolution_id = r.id AND c.signature_id ="
						 " r.signature_id"),
				 1);
	}
	callus_error_release(&err);
}

/* The stated rule: the upstream text wins for the cached copy (and its
 * resolution), the local note stays; retired upstream wins. */
static void conflicts(void **state)
{
	fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	callus_sync_report r;

	approved(f, "aaaaaaaaaaaa", 6, 6);
	assert_int_equal(callus_team_sync(f->s2, f->k, CALLUS_LAYER_TEAM, 0, "", NULL, &r, NULL, &err), 0);
	assert_int_equal(callus_team_sync(f->s1, f->k, CALLUS_LAYER_TEAM, 0, "", NULL, &r, NULL, &err), 0);
	/* edited in two places */
	exec_sql(f->ws1, "UPDATE notes SET rule = 'local words', steps = 'local steps'");
	exec_sql(f->team, "UPDATE shared_notes SET rule = 'team words', steps = 'team steps',"
			  " revision = revision + 100");
	assert_int_equal(callus_team_sync(f->s1, f->k, CALLUS_LAYER_TEAM, 0, "", NULL, &r, NULL, &err), 0);
	assert_int_equal(callus_team_sync(f->s2, f->k, CALLUS_LAYER_TEAM, 0, "", NULL, &r, NULL, &err), 0);
	assert_int_equal(int_sql(f->ws1, "SELECT rule = 'team words' FROM note_cache"), 1);
	assert_int_equal(int_sql(f->ws1, "SELECT rule = 'local words' FROM notes"), 1);
	assert_int_equal(int_sql(f->ws2, "SELECT rule = 'team words' FROM note_cache"), 1);
	assert_int_equal(int_sql(f->ws2, "SELECT r.description = 'team steps' FROM resolutions r"
					 " JOIN note_cache c ON c.resolution_id = r.id"), 1);
	/* retired upstream: the cached copy and its resolution go, the local note stays */
	assert_int_equal(callus_knowledge_decide(f->k, CALLUS_LAYER_TEAM, "aaaaaaaaaaaa",
						 CALLUS_SHARED_RETIRED, "lead", "obsolete", &err), 0);
	assert_int_equal(callus_team_sync(f->s2, f->k, CALLUS_LAYER_TEAM, 0, "", NULL, &r, NULL, &err), 0);
	assert_int_equal(r.dropped, 1);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM note_cache"), 0);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM resolutions"), 0);
	assert_int_equal(callus_team_sync(f->s1, f->k, CALLUS_LAYER_TEAM, 0, "", NULL, &r, NULL, &err), 0);
	assert_int_equal(int_sql(f->ws1, "SELECT count(*) FROM note_cache"), 0);
	assert_int_equal(int_sql(f->ws1, "SELECT count(*) FROM notes WHERE status = 'active'"), 1);
	callus_error_release(&err);
}

/* A layer whose URL changed starts over: the former cache, watermark and
 * proposals are forgotten, the workspace's notes stay. */
static void moved_store(void **state)
{
	fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	callus_sync_report r;
	char *v = NULL;

	add_note(f->ws2, "dddddddddddd", 5, 5);
	assert_int_equal(callus_team_bind(f->s2, CALLUS_LAYER_TEAM, f->url, &err), 0);
	assert_int_equal(callus_team_sync(f->s2, f->k, CALLUS_LAYER_TEAM, 0, "", NULL, &r, NULL, &err), 0);
	assert_int_equal(r.proposed, 1);
	assert_int_equal(callus_knowledge_decide(f->k, CALLUS_LAYER_TEAM, "dddddddddddd",
						 CALLUS_SHARED_APPROVED, "lead", "", &err), 0);
	assert_int_equal(callus_team_sync(f->s2, f->k, CALLUS_LAYER_TEAM, 0, "", NULL, &r, NULL, &err), 0);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM note_cache"), 1);
	/* the same location again changes nothing */
	assert_int_equal(callus_team_bind(f->s2, CALLUS_LAYER_TEAM, f->url, &err), 0);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM note_cache"), 1);
	assert_int_equal(callus_team_bind(f->s2, CALLUS_LAYER_TEAM, "sqlite:/elsewhere.db", &err), 0);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM note_cache"), 0);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM note_promotions"), 0);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM notes"), 1);
	assert_int_equal(callus_store_state_get(f->s2, "watermark.team", &v, &err), 0);
	assert_null(v);
	callus_error_release(&err);
}

/* A location may hold a password: the store keeps only what tells one
 * location from another.  A store that kept the location itself (an
 * earlier callus), hidden before the bind, is the same store, and loses
 * the password, not its cache. */
static void location_not_kept(void **state)
{
	fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	const char *url = "postgresql://app:Xk9pQz7Lm2Rt@db.internal:5432/callus";
	char *v = NULL;

	assert_int_equal(callus_team_bind(f->s2, CALLUS_LAYER_TEAM, url, &err), 0);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM sync_state WHERE value LIKE "
					 "'%Xk9pQz7Lm2Rt%'"), 0);
	assert_int_equal(callus_store_state_get(f->s2, "store.team", &v, &err), 0);
	assert_non_null(v);
	assert_int_equal(strncmp(v, "sha256:", 7), 0);
	assert_int_equal(strlen(v), 7 + 64);
	free(v);
	v = NULL;
	/* as an earlier callus left it, with a note in the cache; and a
	 * layer never bound again (its store unreachable, or no longer
	 * configured) */
	assert_int_equal(callus_store_state_set(f->s2, "store.team", url, &err), 0);
	assert_int_equal(callus_store_state_set(f->s2, "store.org", url, &err), 0);
	assert_int_equal(callus_store_state_set(f->s2, "watermark.team", "7", &err), 0);
	assert_int_equal(callus_team_hide_locations(f->s2, &err), 0);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM sync_state WHERE value LIKE "
					 "'%Xk9pQz7Lm2Rt%'"),
			 0);
	assert_int_equal(callus_team_bind(f->s2, CALLUS_LAYER_TEAM, url, &err), 0);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM sync_state WHERE value LIKE "
					 "'%Xk9pQz7Lm2Rt%'"), 0);
	assert_int_equal(callus_store_state_get(f->s2, "watermark.team", &v, &err), 0);
	assert_string_equal(v, "7");
	free(v);
	/* the unbound layer's as the bound one's: what bind keeps */
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM sync_state WHERE key = 'store.org'"
					 " AND value = (SELECT value FROM sync_state"
					 " WHERE key = 'store.team')"),
			 1);
	callus_error_release(&err);
}

/* A proposal is withdrawn by the workspace that made it, with its note
 * retired there; another origin's withdrawal, or a decided one's, is
 * CALLUS_ENOTFOUND and changes nothing. */
static void withdrawn(void **state)
{
	fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	callus_shared_note n;
	callus_sync_report r;
	char origin[64];

	add_note(f->ws1, "dddddddddddd", 5, 5);
	assert_int_equal(callus_team_sync(f->s1, f->k, CALLUS_LAYER_TEAM, 0, "dev@x", NULL, &r, NULL,
					  &err), 0);
	assert_int_equal(r.proposed, 1);
	assert_int_equal(callus_knowledge_shared_get(f->k, CALLUS_LAYER_TEAM, "dddddddddddd", &n,
						     &err), 0);
	snprintf(origin, sizeof(origin), "%s", n.origin);
	callus_shared_note_release(&n);
	assert_int_equal(callus_knowledge_withdraw(f->k, CALLUS_LAYER_TEAM, "dddddddddddd",
						   "0000000000000000:dddddddddddd", "x", "", &err),
			 CALLUS_ENOTFOUND);
	callus_error_release(&err);
	/* retired, the next sync withdraws it once */
	exec_sql(f->ws1, "UPDATE notes SET status = 'retired' WHERE id = 'dddddddddddd'");
	assert_int_equal(callus_team_sync(f->s1, f->k, CALLUS_LAYER_TEAM, 0, "dev@x", NULL, &r, NULL,
					  &err), 0);
	assert_int_equal(r.withdrawn, 1);
	assert_int_equal(callus_knowledge_shared_get(f->k, CALLUS_LAYER_TEAM, "dddddddddddd", &n,
						     &err), 0);
	assert_int_equal(n.status, CALLUS_SHARED_REJECTED);
	assert_string_equal(n.decided_by, "dev@x");
	callus_shared_note_release(&n);
	assert_int_equal(callus_team_sync(f->s1, f->k, CALLUS_LAYER_TEAM, 0, "dev@x", NULL, &r, NULL,
					  &err), 0);
	assert_int_equal(r.withdrawn, 0);
	assert_int_equal(callus_knowledge_withdraw(f->k, CALLUS_LAYER_TEAM, "dddddddddddd", origin,
						   "x", "", &err),
			 CALLUS_ENOTFOUND);
	callus_error_release(&err);
}

/* Schema 43: a fix imported before keeps its counts then as its base,
 * which a sync does not report again; a fix of this workspace has none. */
static void schema_43_imported_base(void **state)
{
	fixture *f = *state;

	add_note(f->ws1, "abcdefabcdef", 0, 0);
	exec_sql(f->ws1, "INSERT INTO resolutions (signature_id, description, code_changes, files, context,"
			 " application_count, success_count, created_at)"
			 " SELECT signature_id, 'x', '', '[]',"
			 " json_object('note', id, 'imported', 1), 500, 500, '2026' FROM notes;"
			 "INSERT INTO note_resolutions (resolution_id, note_id)"
			 " SELECT last_insert_rowid(), 'abcdefabcdef';"
			 "INSERT INTO resolutions (signature_id, description, code_changes, files,"
			 " application_count, success_count, created_at)"
			 " SELECT signature_id, 'y', '', '[]', 3, 2, '2026' FROM notes;"
			 "INSERT INTO note_resolutions (resolution_id, note_id)"
			 " SELECT last_insert_rowid(), 'abcdefabcdef';"
			 TEST_AS_BEFORE_45 "PRAGMA user_version = 42;");
	callus_store_close(f->s1);
	assert_int_equal(callus_store_open(&f->s1, f->ws1, 5000, NULL), 0);
	assert_int_equal(callus_store_schema_version(f->s1), CALLUS_STORE_SCHEMA_VERSION);
	assert_int_equal(int_sql(f->ws1, "SELECT count(*) FROM resolutions"
					 " WHERE json_extract(context, '$.base') = '[500,500]'"),
			 1);
	assert_int_equal(int_sql(f->ws1, "SELECT count(*) FROM resolutions"
					 " WHERE json_type(context, '$.base') IS NOT NULL"),
			 1);
	assert_int_equal(int_sql(f->ws1, "SELECT applications FROM notes"), 503);
}

/* Two syncs at once.  The team store here is the workspace's own file:
 * each proposal is then another connection's write to it between the
 * reading of the candidates and their recording, as a second sync's was.
 * A proposal recorded while its candidates' statement still read failed
 * at once ("database is locked", no wait helps), and nothing was
 * recorded. */
static void proposals_while_written(void **state)
{
	fixture *f = *state;
	callus_knowledge *same = NULL;
	callus_error err = CALLUS_ERROR_INIT;
	callus_sync_report r;
	char url[160];

	snprintf(url, sizeof(url), "sqlite:%s", f->ws1);
	assert_int_equal(callus_knowledge_open(&same, url, 5000, NULL), 0);
	add_note(f->ws1, "aaaaaaaaaaaa", 5, 5);
	add_note(f->ws1, "bbbbbbbbbbbb", 6, 6);
	if (callus_team_sync(f->s1, same, CALLUS_LAYER_TEAM, 0, "dev@x", NULL, &r, NULL, &err) < 0)
		fail_msg("%s", callus_error_message(&err));
	assert_int_equal(r.proposed, 2);
	assert_int_equal(int_sql(f->ws1, "SELECT count(*) FROM note_promotions"
					 " WHERE status = 'proposed' AND to_layer = 'team'"), 2);
	assert_int_equal(int_sql(f->ws1, "SELECT count(*) FROM shared_notes"), 2);
	/* recorded: not proposed again */
	assert_int_equal(callus_team_sync(f->s1, same, CALLUS_LAYER_TEAM, 0, "dev@x", NULL, &r, NULL,
					  &err), 0);
	assert_int_equal(r.proposed, 0);
	callus_knowledge_close(same);
	callus_error_release(&err);
}

/* Two syncs pulling at once: a copy of a note older than the one the
 * cache holds (the other sync took the newer first) changes nothing. */
static void older_pull_changes_nothing(void **state)
{
	fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	callus_sync_report r;

	approved(f, "aaaaaaaaaaaa", 5, 5);
	assert_int_equal(callus_team_sync(f->s2, f->k, CALLUS_LAYER_TEAM, 0, "", NULL, &r, NULL, &err), 0);
	assert_int_equal(r.pulled, 1);
	/* the cache as a later revision left it, the watermark as a sync that
	 * read only the first pages would leave it */
	exec_sql(f->ws2, "UPDATE note_cache SET revision = 1000, title = 'as revised'");
	exec_sql(f->ws2, "UPDATE sync_state SET value = '0' WHERE key = 'watermark.team'");
	assert_int_equal(callus_team_sync(f->s2, f->k, CALLUS_LAYER_TEAM, 0, "", NULL, &r, NULL, &err), 0);
	assert_int_equal(int_sql(f->ws2, "SELECT count(*) FROM note_cache WHERE revision = 1000"
					 " AND title = 'as revised'"), 1);
	callus_error_release(&err);
}

/* The workspace's name in the outcomes is made once: a mark another sync
 * made first is the one both use (each made its own, and the outcomes
 * were reported twice, under two names). */
static void instance_once(void **state)
{
	fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	char *a = NULL, *b = NULL;

	assert_int_equal(callus_store_state_claim(f->s1, "instance", "0123456789abcdef", &a, &err),
			 0);
	assert_string_equal(a, "0123456789abcdef");
	assert_int_equal(callus_store_state_claim(f->s1, "instance", "fedcba9876543210", &b, &err),
			 0);
	assert_string_equal(b, "0123456789abcdef");
	free(a);
	free(b);
	add_note(f->ws1, "aaaaaaaaaaaa", 5, 5);
	{
		callus_sync_report r;

		assert_int_equal(callus_team_sync(f->s1, f->k, CALLUS_LAYER_TEAM, 0, "dev@x", NULL,
						  &r, NULL, &err),
				 0);
	}
	assert_int_equal(int_sql(f->team, "SELECT count(DISTINCT instance) FROM shared_outcomes"), 1);
	assert_int_equal(int_sql(f->team, "SELECT count(*) FROM shared_outcomes"
					  " WHERE instance = '0123456789abcdef'"), 1);
	callus_error_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(maintainers),
		cmocka_unit_test(locations),
		cmocka_unit_test_setup_teardown(promote_approve_pull, setup, teardown),
		cmocka_unit_test_setup_teardown(proposed_redacted, setup, teardown),
		cmocka_unit_test_setup_teardown(pulled_redacted, setup, teardown),
		cmocka_unit_test_setup_teardown(conflicts, setup, teardown),
		cmocka_unit_test_setup_teardown(moved_store, setup, teardown),
		cmocka_unit_test_setup_teardown(location_not_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_43_imported_base, setup, teardown),
		cmocka_unit_test_setup_teardown(withdrawn, setup, teardown),
		cmocka_unit_test_setup_teardown(proposals_while_written, setup, teardown),
		cmocka_unit_test_setup_teardown(instance_once, setup, teardown),
		cmocka_unit_test_setup_teardown(older_pull_changes_nothing, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

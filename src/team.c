/*
 * team.c - the layers above a workspace (team.h): where their stores are,
 * who maintains them, the workspace's sync state, and its cache of their
 * notes read back.  The sync itself is team_sync.c; the stores are the
 * storage backends' (knowledge.h).
 */
#include "callus/team.h"
#include "callus/fsutil.h"

#include "sqlutil.h"
#include "store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <strings.h>

/* ------------------------------------------------------------------ */
/* Configuration                                                        */

int callus_team_user_config(callus_config **out, callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	int rc;

	*out = NULL;
	rc = callus_fs_user_path(&path, "XDG_CONFIG_HOME", ".config", "config");
	if (rc == 0)
		rc = callus_fs_read_file(&text, path.ptr, CALLUS_CONFIG_MAX_BYTES, err);
	if (rc == CALLUS_ENOTFOUND)
		rc = callus_config_parse(out, "", 0, "~/.config/callus/config", err);
	else if (rc == 0)
		rc = callus_config_parse(out, text.ptr ? text.ptr : "", text.len, path.ptr, err);
	callus_buf_release(&path);
	callus_buf_release(&text);
	return rc;
}

const char *callus_team_setting(const callus_config *ws, const callus_config *user,
				const char *section, const char *key)
{
	const char *v = callus_config_get(ws, section, key);

	return v ? v : callus_config_get(user, section, key);
}

/* The file of a SQLite location ("sqlite:PATH", or a path with no
 * scheme, as knowledge.c reads it), NULL for another backend's. */
static const char *sqlite_path(const char *location)
{
	const char *colon = strchr(location, ':'), *slash = strchr(location, '/');

	if (!strncmp(location, "sqlite:", 7))
		return location + 7;
	if (strchr(location, '='))
		return NULL;
	return !colon || (slash && slash < colon) ? location : NULL;
}

int callus_team_store_missing(const char *location)
{
	const char *path = sqlite_path(location);
	struct stat st;

	return path && lstat(path, &st) < 0 && errno == ENOENT;
}

int callus_team_location(callus_buf *out, const callus_config *ws, const callus_config *user,
			 callus_layer l, callus_error *err)
{
	const char *url;

	callus_buf_clear(out);
	if (l != CALLUS_LAYER_TEAM && l != CALLUS_LAYER_ORG)
		return callus_error_set(err, CALLUS_ENOTFOUND, "the %s layer has no store of its own",
					callus_layer_name(l));
	url = callus_team_setting(ws, user, callus_layer_name(l), "url");
	if (url && *url) {
		const char *path = sqlite_path(url);

		if (!path && !strstr(url, "://") && strchr(url, '='))
			return callus_error_set(err, CALLUS_EINVAL,
						"[%s] url is no URL callus reads (a key=value connection "
						"string?): write it as postgresql://USER@HOST/DATABASE",
						callus_layer_name(l));
		if (path && *path != '/')
			return callus_error_set(err, CALLUS_EINVAL,
						"[%s] url '%s' names a SQLite file by a relative path, "
						"another file from each folder: name it whole "
						"(sqlite:/path/to/team.db)",
						callus_layer_name(l), url);
		callus_buf_puts(out, url);
	} else if (l == CALLUS_LAYER_TEAM) {
		callus_buf path = CALLUS_BUF_INIT;

		if (callus_fs_user_path(&path, "XDG_DATA_HOME", ".local/share", "team.db") < 0) {
			callus_buf_release(&path);
			return callus_error_set(err, CALLUS_ENOTFOUND,
						"no HOME for the embedded team store; set [team] url");
		}
		callus_buf_printf(out, "sqlite:%s", path.ptr);
		callus_buf_release(&path);
	} else {
		return callus_error_set(err, CALLUS_ENOTFOUND, "no org store ([org] url is not set)");
	}
	return callus_buf_status(out) < 0 ? callus_error_set(err, CALLUS_ENOMEM, "out of memory")
					  : 0;
}

int callus_team_open(callus_knowledge **out, const callus_config *ws, const callus_config *user,
		     callus_layer l, callus_error *err)
{
	callus_buf loc = CALLUS_BUF_INIT;
	int rc;

	*out = NULL;
	if ((rc = callus_team_location(&loc, ws, user, l, err)) < 0)
		goto out;
	if (!strncmp(loc.ptr, "sqlite:", 7)) {
		/* the embedded store's folder, as the first open makes the file */
		char *slash = strrchr(loc.ptr + 7, '/');

		if (slash && slash != loc.ptr + 7) {
			*slash = '\0';
			rc = callus_fs_mkdir_p(loc.ptr + 7, 0700, err);
			*slash = '/';
			if (rc < 0)
				goto out;
		}
	}
	rc = callus_knowledge_open(out, loc.ptr, 10000, err);
out:
	callus_buf_release(&loc);
	return rc;
}

int callus_team_may_decide(const callus_config *ws, const callus_config *user, callus_layer l,
			   int embedded, const char *identity)
{
	callus_buf section = CALLUS_BUF_INIT;
	const char *list;
	int ok = 0;

	if (callus_buf_printf(&section, "layer.%s", callus_layer_name(l)) < 0)
		return 0;
	list = callus_team_setting(ws, user, section.ptr, "maintainers");
	callus_buf_release(&section);
	/* none named: the embedded store's own user maintains it; a server
	 * store's roles decide alone */
	(void)embedded;
	if (!list || !*list)
		return 1;
	if (!identity || !*identity)
		return 0;
	for (const char *p = list; *p && !ok;) {
		size_t n;

		p += strspn(p, " \t,");
		n = strcspn(p, ",");
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		ok = n && n == strlen(identity) && !strncasecmp(p, identity, n);
		p += strcspn(p, ",");
	}
	return ok;
}

/* ------------------------------------------------------------------ */
/* Reading the cache                                                    */

#define CACHE_COLUMNS                                                                          \
	"c.id, c.layer, c.signature_id, c.tool, c.error_type, c.title, c.example, c.rule,"    \
	" c.steps, c.code, c.files, c.pulled_at, c.applications, c.successes,"                \
	" c.resolution_id IS NOT NULL, c.extra"

static int cache_row(sqlite3_stmt *st, void *item, void *ctx)
{
	callus_note *n = item;
	char **text[] = { &n->signature_id, &n->tool, &n->error_type, &n->title, &n->example,
			  &n->rule, &n->steps, &n->code };

	(void)ctx;
	memset(n, 0, sizeof(*n));
	snprintf(n->id, sizeof(n->id), "%s", (const char *)sqlite3_column_text(st, 0));
	if (callus_layer_parse(&n->layer, (const char *)sqlite3_column_text(st, 1)) < 0)
		n->layer = CALLUS_LAYER_TEAM;
	for (int i = 0; i < (int)(sizeof(text) / sizeof(text[0])); i++)
		if (!(*text[i] = callus_sql_column_dup(st, i + 2)))
			goto oom;
	if (callus_sql_json_strlist(&n->files, (const char *)sqlite3_column_text(st, 10)) < 0 ||
	    !(n->framework = strdup("")) || !(n->extra = callus_sql_column_dup(st, 15)) ||
	    !(n->session = strdup("")) || !(n->created_at = callus_sql_column_dup(st, 11)) ||
	    !(n->updated_at = callus_sql_column_dup(st, 11)) ||
	    callus_strlist_add(&n->signatures, n->signature_id, strlen(n->signature_id)) < 0)
		goto oom;
	n->applications = sqlite3_column_int64(st, 12);
	n->successes = sqlite3_column_int64(st, 13);
	n->success_rate = n->applications > 0 ? (double)n->successes / (double)n->applications : 0;
	n->resolutions = sqlite3_column_int64(st, 14);
	return 0;
oom:
	callus_note_release(n);
	return CALLUS_ENOMEM;
}

static int cache_collect(callus_store *s, sqlite3_stmt *st, callus_note **out, size_t *count,
			 callus_error *err)
{
	void *items = NULL;
	size_t n = 0;
	int sq = callus_sql_collect(st, sizeof(callus_note), cache_row, NULL, 0, &items, &n);

	if (sq != SQLITE_OK) {
		callus_notes_free(items, n);
		return callus_store_db_error(s, err, sq, "cannot read the cached notes in");
	}
	*out = items;
	*count = n;
	return 0;
}

int callus_team_cached_list(callus_store *s, callus_layer l, callus_note **out, size_t *count,
			    callus_error *err)
{
	sqlite3_stmt *st = NULL;
	int sq, rc;

	*out = NULL;
	*count = 0;
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT " CACHE_COLUMNS " FROM note_cache c WHERE c.layer = ?1"
				" ORDER BY CAST(c.successes AS REAL) / max(c.applications, 1) DESC,"
				" c.applications DESC, c.pulled_at DESC",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot read the cached notes in");
	callus_sql_bind_text(st, 1, callus_layer_name(l));
	rc = cache_collect(s, st, out, count, err);
	sqlite3_finalize(st);
	return rc;
}

int callus_team_cached_of_resolution(callus_store *s, int64_t resolution_id, callus_note *out,
				     callus_error *err)
{
	sqlite3_stmt *st = NULL;
	callus_note *v = NULL;
	size_t n = 0;
	int sq, rc;

	memset(out, 0, sizeof(*out));
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT " CACHE_COLUMNS " FROM note_cache c WHERE c.resolution_id = ?1",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot read the cached notes in");
	sqlite3_bind_int64(st, 1, resolution_id);
	rc = cache_collect(s, st, &v, &n, err);
	sqlite3_finalize(st);
	if (rc == 0 && !n)
		rc = callus_error_set(err, CALLUS_ENOTFOUND, "no cached note for resolution %lld",
				      (long long)resolution_id);
	if (rc == 0) {
		*out = v[0];
		memset(&v[0], 0, sizeof(v[0]));
	}
	callus_notes_free(v, n);
	return rc;
}


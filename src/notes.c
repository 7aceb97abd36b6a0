/*
 * notes.c - hindsight notes in the workspace store (notes.h): made and
 * merged from resolutions, read, given a rule, retired, counted.  Their
 * files and a person's edits of them are notes_sync.c's (shared in
 * notes_internal.h).
 */
#include "callus/notes.h"
#include "callus/buf.h"
#include "callus/learn.h"
#include "callus/lesson.h"
#include "callus/match.h"
#include "callus/team.h"
#include "callus/utf8.h"
#include "callus/vecindex.h"
#include "callus/views.h"

#include "notes_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *const layer_names[CALLUS_LAYER_COUNT] = { "session", "project", "team", "org" };
_Static_assert(sizeof(((callus_store_totals *)0)->notes) / sizeof(int64_t) == CALLUS_LAYER_COUNT,
	       "a total of notes a layer");

const char *callus_layer_name(callus_layer l)
{
	return (unsigned)l < CALLUS_LAYER_COUNT ? layer_names[l] : "project";
}

int callus_layer_parse(callus_layer *out, const char *name)
{
	for (int i = 0; i < CALLUS_LAYER_COUNT; i++)
		if (name && !strcmp(name, layer_names[i])) {
			*out = (callus_layer)i;
			return 0;
		}
	return CALLUS_EINVAL;
}

void callus_note_release(callus_note *n)
{
	if (!n)
		return;
	free(n->signature_id);
	free(n->tool);
	free(n->error_type);
	free(n->framework);
	free(n->title);
	free(n->example);
	free(n->rule);
	free(n->steps);
	free(n->code);
	free(n->extra);
	free(n->session);
	free(n->created_at);
	free(n->updated_at);
	callus_strlist_release(&n->files);
	callus_strlist_release(&n->signatures);
	memset(n, 0, sizeof(*n));
}

void callus_notes_free(callus_note *n, size_t count)
{
	for (size_t i = 0; n && i < count; i++)
		callus_note_release(&n[i]);
	free(n);
}

static char *title_of(const char *tool, const char *message);
static char *steps_of(const char *description);

/* ------------------------------------------------------------------ */
/* Reading                                                              */

#define NOTE_COLUMNS_OWN                                                                       \
	"n.id, n.signature_id, n.layer, n.status, n.tool, n.error_type, n.framework, n.title,"  \
	" n.example, n.rule, n.steps, n.code, n.extra, n.files, n.edited, n.session,"          \
	" n.created_at, n.updated_at,"                                                          \
	" n.applications AS apps, n.successes AS succ,"
#define NOTE_COLUMNS                                                                           \
	NOTE_COLUMNS_OWN                                                                       \
	" (SELECT count(*) FROM note_resolutions x WHERE x.note_id = n.id),"                   \
	" (SELECT json_group_array(x.signature_id) FROM note_signatures x"                     \
	"  WHERE x.note_id = n.id)"
/* What a view shows (callus_note_filter.brief): the same columns, the two
 * read from other tables left out. */
#define NOTE_COLUMNS_BRIEF NOTE_COLUMNS_OWN " 0, json_array(n.signature_id)"

/* A row of NOTE_COLUMNS; callus_sql_collect's reader. */
static int read_row(sqlite3_stmt *st, void *item, void *ctx)
{
	callus_note *n = item;
	const char *id = (const char *)sqlite3_column_text(st, 0);
	char **text[] = { &n->signature_id, NULL, NULL, &n->tool, &n->error_type, &n->framework,
			  &n->title, &n->example, &n->rule, &n->steps, &n->code, &n->extra };

	(void)ctx;
	memset(n, 0, sizeof(*n));
	snprintf(n->id, sizeof(n->id), "%s", id ? id : "");
	for (int i = 0; i < (int)(sizeof(text) / sizeof(text[0])); i++)
		if (text[i] && !(*text[i] = callus_sql_column_dup(st, i + 1)))
			goto oom;
	if (callus_layer_parse(&n->layer, (const char *)sqlite3_column_text(st, 2)) < 0)
		n->layer = CALLUS_LAYER_PROJECT;
	n->retired = !strcmp((const char *)sqlite3_column_text(st, 3), "retired");
	if (callus_sql_json_strlist(&n->files, (const char *)sqlite3_column_text(st, 13)) < 0)
		goto oom;
	if (!*n->title) {
		free(n->title);
		if (!(n->title = callus_note_title("", n->tool, n->example)))
			goto oom;
	}
	n->edited = sqlite3_column_int(st, 14);
	if (!(n->session = callus_sql_column_dup(st, 15)) ||
	    !(n->created_at = callus_sql_column_dup(st, 16)) ||
	    !(n->updated_at = callus_sql_column_dup(st, 17)))
		goto oom;
	n->applications = sqlite3_column_int64(st, 18);
	n->successes = sqlite3_column_int64(st, 19);
	n->resolutions = sqlite3_column_int64(st, 20);
	n->success_rate = n->applications > 0 ? (double)n->successes / (double)n->applications : 0;
	if (callus_sql_json_strlist(&n->signatures, (const char *)sqlite3_column_text(st, 21)) < 0)
		goto oom;
	/* its own signature first */
	for (size_t i = 1; i < n->signatures.count; i++)
		if (!strcmp(n->signatures.items[i], n->signature_id)) {
			char *own = n->signatures.items[i];

			memmove(&n->signatures.items[1], &n->signatures.items[0],
				i * sizeof(char *));
			n->signatures.items[0] = own;
			break;
		}
	return 0;
oom:
	callus_note_release(n);
	return CALLUS_ENOMEM;
}

/* The notes a statement selects (NOTE_COLUMNS first), all of them. */
static int collect(callus_store *s, sqlite3_stmt *st, callus_note **out, size_t *count,
		   callus_error *err)
{
	void *items = NULL;
	size_t n = 0;
	int sq = callus_sql_collect(st, sizeof(callus_note), read_row, NULL, 0, &items, &n);

	if (sq != SQLITE_OK) {
		callus_notes_free(items, n);
		return callus_store_db_error(s, err, sq, "cannot read notes in");
	}
	*out = items;
	*count = n;
	return 0;
}

/* The one note st selects into *out; CALLUS_ENOTFOUND when none. */
static int one(callus_store *s, sqlite3_stmt *st, callus_note *out, const char *what,
	       callus_error *err)
{
	callus_note *v = NULL;
	size_t n = 0;
	int rc = collect(s, st, &v, &n, err);

	if (rc < 0)
		return rc;
	if (!n) {
		free(v);
		return callus_error_set(err, CALLUS_ENOTFOUND, "no note %s", what);
	}
	*out = v[0];
	memset(&v[0], 0, sizeof(v[0]));
	callus_notes_free(v, n);
	return 0;
}

int callus_notes_note_get(callus_store *s, const char *id, callus_note *out, callus_error *err)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "SELECT " NOTE_COLUMNS " FROM notes n WHERE n.id = ?1", -1, &st,
				    NULL);
	int rc;

	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot read notes in");
	callus_sql_bind_text(st, 1, id);
	rc = one(s, st, out, id, err);
	sqlite3_finalize(st);
	return rc;
}

#define NOTES_LIST(columns)                                                                    \
	"SELECT " columns " FROM notes n"                                                       \
	" WHERE (?1 < 0 OR n.layer = ?2) AND (?3 OR n.status = 'active')"                       \
	" AND (NOT ?5 OR CAST(n.successes AS REAL) / max(n.applications, 1) > ?6)"              \
	" ORDER BY n.status, CAST(n.successes AS REAL) / max(n.applications, 1) DESC,"          \
	" n.applications DESC, n.updated_at DESC LIMIT ?4"

int callus_notes_list(callus_store *s, const callus_note_filter *f, callus_note **out,
		      size_t *count, callus_error *err)
{
	sqlite3_stmt *st = NULL;
	int sq, rc;

	*out = NULL;
	*count = 0;
	/* the layers above live in the cache sync fills (team.h) */
	if (f && (f->layer == CALLUS_LAYER_TEAM || f->layer == CALLUS_LAYER_ORG))
		return callus_team_cached_list(s, (callus_layer)f->layer, out, count, err);
	sq = sqlite3_prepare_v2(callus_store_db(s), f && f->brief ? NOTES_LIST(NOTE_COLUMNS_BRIEF)
							    : NOTES_LIST(NOTE_COLUMNS),
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot read notes in");
	sqlite3_bind_int(st, 1, f ? f->layer : -1);
	callus_sql_bind_text(st, 2, f && f->layer >= 0 ? callus_layer_name((callus_layer)f->layer)
						      : "");
	sqlite3_bind_int(st, 3, f ? f->retired : 0);
	sqlite3_bind_int(st, 4, f && f->limit > 0 ? f->limit : -1);
	sqlite3_bind_int(st, 5, f ? f->proven : 0);
	sqlite3_bind_double(st, 6, CALLUS_NOTE_MIN_SUCCESS);
	rc = collect(s, st, out, count, err);
	sqlite3_finalize(st);
	return rc;
}

int callus_notes_get(callus_store *s, const char *id, callus_note *out, callus_error *err)
{
	sqlite3_stmt *st = NULL;
	size_t len = id ? strlen(id) : 0;
	callus_note *v = NULL;
	size_t n = 0;
	int sq, rc;

	memset(out, 0, sizeof(*out));
	if (len < 4 || len > CALLUS_NOTE_ID_LEN || strspn(id, "0123456789abcdef") != len)
		return callus_error_set(err, CALLUS_EINVAL,
					"'%s' is not a note id (4 to %d hex digits)", id ? id : "",
					CALLUS_NOTE_ID_LEN);
	/* The prefix as a range of the primary key's index, bounded by a byte
	 * no UTF-8 text holds (an id callus did not make may hold more than
	 * hex).  A substr() of the id read every note, and a fixing pass's
	 * reply looks its note up here. */
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT " NOTE_COLUMNS " FROM notes n WHERE n.id >= ?1"
				" AND n.id < ?1 || x'ff' LIMIT 2",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot read notes in");
	callus_sql_bind_text(st, 1, id);
	rc = collect(s, st, &v, &n, err);
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	if (n == 1) {
		*out = v[0];
		memset(&v[0], 0, sizeof(v[0]));
	} else if (n) {
		rc = callus_error_set(err, CALLUS_EINVAL, "'%s' names more than one note", id);
	} else {
		rc = callus_error_set(err, CALLUS_ENOTFOUND, "no note %s", id);
	}
	callus_notes_free(v, n);
	return rc;
}

int callus_notes_of_resolution(callus_store *s, int64_t resolution_id, callus_note *out,
			       callus_error *err)
{
	sqlite3_stmt *st = NULL;
	char what[64];
	int sq, rc;

	memset(out, 0, sizeof(*out));
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT " NOTE_COLUMNS " FROM notes n JOIN note_resolutions x"
				" ON x.note_id = n.id WHERE x.resolution_id = ?1 AND n.status = 'active'",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot read notes in");
	sqlite3_bind_int64(st, 1, resolution_id);
	snprintf(what, sizeof(what), "for resolution %lld", (long long)resolution_id);
	rc = one(s, st, out, what, err);
	sqlite3_finalize(st);
	return rc;
}

int callus_notes_for_resolution(callus_store *s, int64_t resolution_id, callus_note *out,
				callus_error *err)
{
	callus_resolution r;
	int rc = callus_notes_of_resolution(s, resolution_id, out, err);

	if (rc != CALLUS_ENOTFOUND)
		return rc;
	callus_error_release(err);
	/* a note of a layer above, pulled by callus sync (team.h) */
	if ((rc = callus_team_cached_of_resolution(s, resolution_id, out, NULL)) == 0)
		return 0;
	memset(&r, 0, sizeof(r));
	if ((rc = callus_learn_get_resolution(s, resolution_id, &r, err)) < 0)
		return rc;
	memset(out, 0, sizeof(*out));
	out->layer = CALLUS_LAYER_PROJECT;
	out->applications = r.application_count;
	out->successes = r.success_count;
	out->success_rate = r.success_rate;
	out->resolutions = 1;
	out->title = title_of(r.tool, r.message);
	out->steps = steps_of(r.description);
	out->code = r.code_changes ? strdup(r.code_changes) : strdup("");
	out->signature_id = strdup(r.signature_id ? r.signature_id : "");
	callus_resolution_release(&r);
	if (!out->title || !out->steps || !out->code || !out->signature_id) {
		callus_note_release(out);
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	}
	return 0;
}

int callus_notes_for_suggestions(callus_store *s, const callus_suggestion *g, size_t n,
				 callus_note **out, size_t *count)
{
	callus_note *v;
	size_t k = 0;

	*out = NULL;
	*count = 0;
	if (!n)
		return 0;
	if (!(v = calloc(n, sizeof(*v))))
		return CALLUS_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t j;

		if (callus_notes_for_resolution(s, g[i].resolution_id, &v[k], NULL) < 0)
			continue;
		for (j = 0; j < k && (!*v[k].id || strcmp(v[j].id, v[k].id)); j++)
			;
		if (j < k)
			callus_note_release(&v[k]);
		else
			k++;
	}
	*out = v;
	*count = k;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Making and merging                                                   */

/* What a resolution brings to a note. */
/* A note's fixes ranked by their counts alone (schema 36): a
 * resolution's row holds its diff before them.  Ranked only when the
 * note's best is not known (schema 37: triggers keep it, and its sums). */
#define NOTE_RESOLUTION_COUNTS "resolutions_counts"

typedef struct fix {
	int64_t id;
	char *signature_id, *description, *code, *files, *session;
	char *tool, *error_type, *original, *framework;
	double rate;
} fix;

static void fix_release(fix *f)
{
	free(f->signature_id);
	free(f->description);
	free(f->code);
	free(f->files);
	free(f->session);
	free(f->tool);
	free(f->error_type);
	free(f->original);
	free(f->framework);
	memset(f, 0, sizeof(*f));
}

/* The framework a signature's context names ("framework:jest"), or ""
 * (also when it is only the tool's own name). */
static char *framework_of(const char *context_patterns, const char *tool)
{
	json_t *a = json_loads(context_patterns ? context_patterns : "[]", 0, NULL);
	const char *found = "";
	size_t i;
	json_t *v;
	char *out;

	json_array_foreach(a, i, v) {
		const char *t = json_string_value(v);

		if (t && !strncmp(t, "framework:", 10) && strcmp(t + 10, tool)) {
			found = t + 10;
			break;
		}
	}
	out = strdup(found);
	json_decref(a);
	return out;
}

/* The session a resolution's context names. */
static char *session_of(const char *context)
{
	json_t *o = json_loads(context ? context : "{}", 0, NULL);
	const char *v = json_string_value(json_object_get(o, "session"));
	char *out = strdup(v ? v : "");

	json_decref(o);
	return out;
}

static int load_fix(callus_store *s, int64_t id, fix *f)
{
	sqlite3_stmt *st = NULL;
	int sq;

	memset(f, 0, sizeof(*f));
	sq = callus_store_stmt(s,
			       "SELECT r.signature_id, r.description, r.code_changes, r.files, r.context,"
			       " g.tool, g.error_type, g.original, " CALLUS_STORE_CONTEXT_OF("g.ctx") ","
			       " CAST(r.success_count AS REAL) / max(r.application_count, 1)"
			       " FROM resolutions r JOIN signatures g ON g.id = r.signature_id"
			       " WHERE r.id = ?1",
			       &st);
	if (sq != SQLITE_OK)
		return sq;
	sqlite3_bind_int64(st, 1, id);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		f->id = id;
		f->signature_id = callus_sql_column_dup(st, 0);
		f->description = callus_sql_column_dup(st, 1);
		f->code = callus_sql_column_dup(st, 2);
		f->files = callus_sql_column_dup(st, 3);
		f->session = session_of((const char *)sqlite3_column_text(st, 4));
		f->tool = callus_sql_column_dup(st, 5);
		f->error_type = callus_sql_column_dup(st, 6);
		f->original = callus_sql_column_dup(st, 7);
		f->framework = framework_of((const char *)sqlite3_column_text(st, 8),
					    f->tool ? f->tool : "");
		f->rate = sqlite3_column_double(st, 9);
		sq = SQLITE_OK;
		if (!f->signature_id || !f->description || !f->code || !f->files || !f->session ||
		    !f->tool || !f->error_type || !f->original || !f->framework)
			sq = SQLITE_NOMEM;
	} else if (sq == SQLITE_DONE) {
		sq = SQLITE_NOTFOUND;
	}
	callus_store_stmt_done(s, st);
	if (sq != SQLITE_OK)
		fix_release(f);
	return sq;
}

/* One text value a query returns for one bound text, or NULL. */
static int lookup_text(callus_store *s, const char *sql, const char *arg, int64_t iarg,
		       char **out)
{
	sqlite3_stmt *st = NULL;
	int sq = callus_store_stmt(s, sql, &st);

	*out = NULL;
	if (sq != SQLITE_OK)
		return sq;
	if (arg)
		callus_sql_bind_text(st, 1, arg);
	else
		sqlite3_bind_int64(st, 1, iarg);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		sq = (*out = callus_sql_column_dup(st, 0)) ? SQLITE_OK : SQLITE_NOMEM;
	} else if (sq == SQLITE_DONE) {
		sq = SQLITE_OK;
	}
	callus_store_stmt_done(s, st);
	return sq;
}

/*
 * The note a fix belongs to (spec 004's duplicate check): the one that
 * already has it, the one of its signature or of a signature linked to
 * it, else one of a signature more than CALLUS_NOTE_MERGE similar.
 * *id NULL when none.
 */
/* The similarity searches of one callus_notes_learn(), by signature: the
 * resolutions of one error (a check fixed again and again) search alike,
 * and nothing learning does to notes changes what a search finds (the
 * signatures and their vectors). */
typedef struct found {
	char *signature_id;
	callus_match *m;
	size_t n;
	int ok;                /* the search succeeded */
} found;

typedef struct searches {
	found *items;
	size_t count, cap;
	callus_buf vectors; /* the noted signatures' vector file */
	/* that file open for the searches, as long as it does not change (a
	 * fix of ten errors opened it, its sketch and its postings ten times) */
	callus_vecindex *noted;
	callus_match_candidates *candidates; /* the caller's, may be NULL */
} searches;

static void searches_release(searches *c)
{
	for (size_t i = 0; i < c->count; i++) {
		free(c->items[i].signature_id);
		callus_matches_free(c->items[i].m, c->items[i].n);
	}
	free(c->items);
	callus_buf_release(&c->vectors);
	callus_vecindex_close(c->noted);
}

/* The notes' similarity search of f's signature, once per learning. */
static const found *search_once(callus_store *s, const char *workspace, const fix *f,
				searches *c)
{
	callus_signature sig;
	callus_match_opts mo;
	found *it;

	for (size_t i = 0; i < c->count; i++)
		if (!strcmp(c->items[i].signature_id, f->signature_id))
			return &c->items[i];
	if (!(it = callus_array_grow(c->items, &c->cap, c->count + 1, sizeof(*it))))
		return NULL;
	c->items = it;
	it = &c->items[c->count];
	memset(it, 0, sizeof(*it));
	if (!(it->signature_id = strdup(f->signature_id)))
		return NULL;
	c->count++;
	memset(&sig, 0, sizeof(sig));
	if (callus_match_get_signature(s, f->signature_id, &sig, NULL) < 0)
		return it;
	memset(&mo, 0, sizeof(mo));
	mo.workspace = workspace;
	mo.threshold = CALLUS_NOTE_MERGE;
	/* a fixed error's signature was indexed when it failed */
	mo.stored = 1;
	mo.candidates = c->candidates;
	/* only a noted signature can give a note: their vectors alone, when
	 * their file can be made to agree with the store (else all) */
	if (callus_notes_vectors_fresh(s, &c->vectors, NULL) == 0) {
		mo.vectors = c->vectors.ptr;
		/* a note learnt since may have appended its signature's vector:
		 * the next search must see it */
		if (c->noted && !callus_vecindex_unchanged(c->noted, mo.vectors)) {
			callus_vecindex_close(c->noted);
			c->noted = NULL;
		}
		if (!c->noted)
			callus_match_noted_open(&c->noted, mo.vectors);
		mo.index = c->noted;
	}
	it->ok = callus_match_find(s, &mo, &sig, &it->m, &it->n, NULL) == 0;
	callus_signature_release(&sig);
	return it;
}

static int find_note(callus_store *s, const char *workspace, const fix *f, searches *c,
		     char **id)
{
	const found *m;
	int sq;

	if ((sq = lookup_text(s, "SELECT note_id FROM note_resolutions WHERE resolution_id = ?1",
			      NULL, f->id, id)) != SQLITE_OK || *id)
		return sq;
	if ((sq = lookup_text(s, "SELECT x.note_id FROM note_signatures x WHERE x.signature_id = ?1"
				 " OR x.signature_id IN (SELECT canonical_id FROM signature_links"
				 "  WHERE alias_id = ?1) OR x.signature_id IN (SELECT alias_id FROM"
				 "  signature_links WHERE canonical_id = ?1) LIMIT 1",
			      f->signature_id, 0, id)) != SQLITE_OK || *id)
		return sq;
	if (!(m = search_once(s, workspace, f, c)))
		return SQLITE_NOMEM;
	/* a search that fails leaves a new note: never worse than today */
	for (size_t i = 0; m->ok && i < m->n && sq == SQLITE_OK && !*id; i++)
		if (m->m[i].similarity > CALLUS_NOTE_MERGE &&
		    strcmp(m->m[i].signature_id, f->signature_id) != 0)
			sq = lookup_text(s, "SELECT note_id FROM note_signatures"
					    " WHERE signature_id = ?1",
					 m->m[i].signature_id, 0, id);
	return sq;
}

/* The first line of text, cut to max bytes at a character boundary. */
static char *first_line(const char *text, size_t max)
{
	const char *t = text ? text : "";
	size_t n = callus_utf8_cut(t, strcspn(t, "\r\n"), max);
	char *out = malloc(n + 1);

	if (out) {
		memcpy(out, t, n);
		out[n] = '\0';
	}
	return out;
}

char *callus_note_title(const char *kept, const char *tool, const char *example)
{
	return kept && *kept ? strdup(kept) : title_of(tool, example);
}

int callus_notes_title_kept(const char *title, const char *tool, const char *example,
			    const char **out)
{
	char *made = title_of(tool, example);

	if (!made)
		return CALLUS_ENOMEM;
	*out = title && strcmp(made, title) ? title : "";
	free(made);
	return 0;
}

/* A note's title: the error's first line, named by its tool ("gcc: format
 * '%s' expects ..."). */
static char *title_of(const char *tool, const char *message)
{
	callus_buf t = CALLUS_BUF_INIT;
	char *line = first_line(message, 200);

	if (line)
		callus_buf_printf(&t, "%s: %s", tool ? tool : "", line);
	free(line);
	if (!line || callus_buf_status(&t) < 0) {
		callus_buf_release(&t);
		return NULL;
	}
	return callus_buf_detach(&t);
}

static int create_note(callus_store *s, const fix *f, const char *now, char **id)
{
	sqlite3_stmt *st = NULL;
	char nid[CALLUS_NOTE_ID_LEN + 1], *example = NULL;
	int sq;

	snprintf(nid, sizeof(nid), "%s", f->signature_id);
	/* a note retired by a person stays retired: the same error fixed
	 * again makes no second one */
	if ((sq = lookup_text(s, "SELECT id FROM notes WHERE id = ?1", nid, 0, id)) != SQLITE_OK)
		return sq;
	if (*id) {
		free(*id);
		*id = NULL;
		return SQLITE_OK;
	}
	if (!(example = first_line(f->original, 500))) {
		sq = SQLITE_NOMEM;
		goto out;
	}
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"INSERT INTO notes (id, signature_id, layer, tool, error_type, framework,"
				" title, example, session, created_at, updated_at)"
				" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		goto out;
	callus_sql_bind_text(st, 1, nid);
	callus_sql_bind_text(st, 2, f->signature_id);
	/* DESIGN §7: learnt in one agent session, a note is that session's
	 * until it works in another; from `callus run`, the project's */
	callus_sql_bind_text(st, 3, *f->session ? "session" : "project");
	callus_sql_bind_text(st, 4, f->tool);
	callus_sql_bind_text(st, 5, f->error_type);
	callus_sql_bind_text(st, 6, f->framework);
	/* its title the one its tool and example make: kept as none
	 * (callus_note_title) */
	callus_sql_bind_text(st, 7, "");
	callus_sql_bind_text(st, 8, example);
	callus_sql_bind_text(st, 9, f->session);
	callus_sql_bind_text(st, 10, now);
	if ((sq = sqlite3_step(st)) == SQLITE_DONE)
		sq = (*id = strdup(nid)) ? SQLITE_OK : SQLITE_NOMEM;
out:
	sqlite3_finalize(st);
	free(example);
	return sq;
}

int callus_notes_metrics_moved(callus_store *s, int64_t rid, callus_error *err)
{
	char rs[32];
	const char *v[] = { rs };
	int sq;

	snprintf(rs, sizeof(rs), "%lld", (long long)rid);
	/* the sums moved with the fix's counts (a trigger, schema 37); the
	 * file is behind them: file_size -1 (notes_sync.c) */
	sq = callus_sql_exec_texts(callus_store_db(s),
				   "UPDATE notes SET file_size = -1"
				   " WHERE status = 'active' AND id = (SELECT note_id FROM note_resolutions"
				   "  WHERE resolution_id = CAST(?1 AS INTEGER))",
				   v, 1);
	return sq == SQLITE_OK ? 0 : callus_store_db_error(s, err, sq, "cannot update a note in");
}

/* sig one of note id's signatures, its vector (when it has one) with the
 * noted ones when it was not */
static int note_signature_add(callus_store *s, const char *id, const char *sig)
{
	const char *v[] = { id, sig };
	int sq = callus_sql_exec_texts(callus_store_db(s),
				       "INSERT OR IGNORE INTO note_signatures (signature_id, note_id)"
				       " VALUES (?2, ?1)",
				       v, 2);

	if (sq == SQLITE_OK && sqlite3_changes(callus_store_db(s)) > 0)
		callus_notes_vectors_add(s, sig);
	return sq;
}

int callus_notes_attach(callus_store *s, const char *id, const char *rid, const char *sig)
{
	const char *v[] = { id, rid };
	char *canonical = NULL;
	int sq = SQLITE_OK;

	if (rid)
		sq = callus_sql_exec_texts(callus_store_db(s),
					   "INSERT OR IGNORE INTO note_resolutions (resolution_id,"
					   " note_id) VALUES (CAST(?2 AS INTEGER), ?1)",
					   v, 2);
	if (sq == SQLITE_OK && sig)
		sq = note_signature_add(s, id, sig);
	/* a linked duplicate has no vector: the note is its canonical's too,
	 * whose vector a search of the noted signatures finds (match.h) */
	if (sq == SQLITE_OK && sig &&
	    (sq = lookup_text(s, "SELECT canonical_id FROM signature_links WHERE alias_id = ?1",
			      sig, 0, &canonical)) == SQLITE_OK &&
	    canonical)
		sq = note_signature_add(s, id, canonical);
	free(canonical);
	return sq;
}

int callus_notes_mark_retired(callus_store *s, const char *id, const char *now)
{
	const char *v[] = { id, now };

	return callus_sql_exec_texts(callus_store_db(s),
				     "UPDATE notes SET status = 'retired', updated_at = ?2,"
				     " file_hash = '', file_size = -1 WHERE id = ?1",
				     v, 2);
}

/* A diff cut to CALLUS_NOTE_CODE_MAX at a line's end. */
static char *bounded_code(const char *code)
{
	size_t n = strlen(code ? code : "");
	char *out;

	if (n > CALLUS_NOTE_CODE_MAX) {
		n = CALLUS_NOTE_CODE_MAX;
		while (n && code[n - 1] != '\n')
			n--;
	}
	if (!(out = malloc(n + 1)))
		return NULL;
	memcpy(out, code ? code : "", n);
	out[n] = '\0';
	return out;
}

/* A resolution's description as steps, one a line ("; " separates them). */
static char *steps_of(const char *description)
{
	callus_buf b = CALLUS_BUF_INIT;
	const char *p = description ? description : "";

	while (*p) {
		const char *sep = strstr(p, "; ");
		size_t n = sep ? (size_t)(sep - p) : strlen(p);

		callus_buf_put(&b, p, n);
		callus_buf_putc(&b, '\n');
		p = sep ? sep + 2 : p + n;
	}
	callus_buf_rtrim(&b);
	if (!b.len)
		callus_buf_puts(&b, "");
	return callus_buf_status(&b) < 0 ? (callus_buf_release(&b), NULL) : callus_buf_detach(&b);
}

/*
 * What a note says of its fixes, from the best of them (the highest
 * success rate, then the most successes, then the latest) unless a person
 * wrote it; its files are
 * all of theirs.  A fix from another session makes a session's note the
 * project's (DESIGN §7: it worked again elsewhere).
 */
static int refresh_note(callus_store *s, const char *id, const fix *f, const char *now)
{
	sqlite3_stmt *st = NULL, *has_diff = NULL;
	int64_t best = 0;
	int ranked = 0;
	fix b;
	char *code = NULL, *steps = NULL;
	int sq;

	memset(&b, 0, sizeof(b));
	/* the best fix kept by the triggers (schema 37): known unless it
	 * lost its rank or went, or the note is new */
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT best_resolution FROM notes WHERE id = ?1", -1, &st, NULL);
	if (sq != SQLITE_OK)
		goto out;
	callus_sql_bind_text(st, 1, id);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		best = sqlite3_column_int64(st, 0);
		ranked = 1;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sq != SQLITE_ROW && sq != SQLITE_DONE)
		goto out;
	/* not known: the best ranked fix with a diff, ranked from the index
	 * alone, then the rows read in that order until one has a diff (the
	 * first, most often) */
	if (!ranked) {
		sq = sqlite3_prepare_v2(callus_store_db(s),
					"SELECT r.id FROM note_resolutions x JOIN resolutions r"
					" INDEXED BY " NOTE_RESOLUTION_COUNTS " ON r.id = x.resolution_id"
					" WHERE x.note_id = ?1"
					" ORDER BY CAST(r.success_count AS REAL) / max(r.application_count, 1)"
					" DESC, r.success_count DESC, r.last_success_at DESC, r.id DESC",
					-1, &st, NULL);
		if (sq == SQLITE_OK)
			sq = sqlite3_prepare_v2(callus_store_db(s),
						"SELECT 1 FROM resolutions WHERE id = ?1 AND code_changes <> ''",
						-1, &has_diff, NULL);
		if (sq != SQLITE_OK)
			goto out;
		callus_sql_bind_text(st, 1, id);
		while (!best && (sq = sqlite3_step(st)) == SQLITE_ROW) {
			sqlite3_reset(has_diff);
			sqlite3_bind_int64(has_diff, 1, sqlite3_column_int64(st, 0));
			if ((sq = sqlite3_step(has_diff)) == SQLITE_ROW)
				best = sqlite3_column_int64(st, 0);
			else if (sq != SQLITE_DONE)
				break;
		}
		sqlite3_finalize(st);
		sqlite3_finalize(has_diff);
		st = has_diff = NULL;
		if (sq != SQLITE_ROW && sq != SQLITE_DONE)
			goto out;
	}
	if (best && (sq = load_fix(s, best, &b)) != SQLITE_OK)
		return sq;
	if (best && (!(code = bounded_code(b.code)) || !(steps = steps_of(b.description)))) {
		sq = SQLITE_NOMEM;
		goto out;
	}
	/* the sums are the triggers' (schema 37) */
	sq = sqlite3_prepare_v2(
		callus_store_db(s),
		"UPDATE notes SET updated_at = ?2, best_resolution = ?7,"
		" code = CASE WHEN edited OR ?3 IS NULL THEN code ELSE ?3 END,"
		" steps = CASE WHEN edited OR ?4 IS NULL THEN steps ELSE ?4 END,"
		/* the files of every fix it holds: those it had, then this
		 * fix's new ones (each of the others is in already) */
		" files = (SELECT json_group_array(DISTINCT v) FROM (SELECT value AS v"
		"  FROM json_each(notes.files) UNION ALL SELECT value FROM json_each(?6)"
		"  WHERE json_valid(?6))),"
		" layer = CASE WHEN layer = 'session' AND ?5 <> session THEN 'project' ELSE layer END"
		" WHERE id = ?1",
		-1, &st, NULL);
	if (sq != SQLITE_OK)
		goto out;
	callus_sql_bind_text(st, 1, id);
	callus_sql_bind_text(st, 2, now);
	if (code)
		callus_sql_bind_text(st, 3, code);
	if (steps)
		callus_sql_bind_text(st, 4, steps);
	callus_sql_bind_text(st, 5, f->session);
	callus_sql_bind_text(st, 6, f->files ? f->files : "[]");
	sqlite3_bind_int64(st, 7, best);
	sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
out:
	sqlite3_finalize(st);
	sqlite3_finalize(has_diff);
	fix_release(&b);
	free(code);
	free(steps);
	return sq;
}

/* One resolution's note, made or merged; *id the note changed, or NULL. */
static int learn_one(callus_store *s, const char *workspace, int64_t rid, const char *now,
		     searches *c, char **id, size_t *made)
{
	fix f;
	char rs[32];
	int sq = load_fix(s, rid, &f);

	*id = NULL;
	if (sq == SQLITE_NOTFOUND)
		return SQLITE_OK;
	if (sq != SQLITE_OK)
		return sq;
	/* the resolution of a layer's cached note makes no note here */
	{
		char *cached = NULL;

		if ((sq = lookup_text(s, "SELECT id FROM note_cache WHERE resolution_id = ?1", NULL,
				      rid, &cached)) != SQLITE_OK || cached) {
			free(cached);
			goto out;
		}
	}
	if ((sq = find_note(s, workspace, &f, c, id)) != SQLITE_OK)
		goto out;
	/* a retired note takes no new fix: its own are no longer offered
	 * (match_suggest.c), and one found since is offered on its own */
	if (*id) {
		char *status = NULL;

		if ((sq = lookup_text(s, "SELECT status FROM notes WHERE id = ?1", *id, 0,
				      &status)) != SQLITE_OK)
			goto out;
		if (status && !strcmp(status, "retired")) {
			free(status);
			free(*id);
			*id = NULL;
			goto out;
		}
		free(status);
	}
	/* a person's edit of the note's file in place is the store's before
	 * the fix merges into it (learning syncs the folder only when it
	 * moved: callus_notes_sync_moved) */
	if (*id && callus_notes_sync_one(s, workspace, *id, NULL, NULL) < 0) {
		sq = SQLITE_ERROR;
		goto out;
	}
	if (!*id) {
		/* spec 004: a note once a fix works more often than not */
		if (f.rate <= CALLUS_NOTE_MIN_SUCCESS || !*f.code)
			goto out;
		if ((sq = create_note(s, &f, now, id)) != SQLITE_OK || !*id)
			goto out;
		if (made)
			(*made)++;
	}
	snprintf(rs, sizeof(rs), "%lld", (long long)rid);
	if ((sq = callus_notes_attach(s, *id, rs, f.signature_id)) != SQLITE_OK)
		goto out;
	sq = refresh_note(s, *id, &f, now);
out:
	if (sq != SQLITE_OK) {
		free(*id);
		*id = NULL;
	}
	fix_release(&f);
	return sq;
}

int callus_notes_learn(callus_store *s, const char *workspace, const int64_t *resolutions,
		       size_t n, callus_match_candidates *candidates, size_t *made,
		       callus_strlist *owed, callus_error *err)
{
	searches c = { NULL, 0, 0, CALLUS_BUF_INIT, NULL, candidates };
	char *now = callus_now_iso8601();
	int sq = now ? SQLITE_OK : SQLITE_NOMEM, rc = 0;

	if (made)
		*made = 0;
	for (size_t i = 0; i < n && sq == SQLITE_OK; i++) {
		char *id = NULL;
		int added = 0;

		if ((sq = learn_one(s, workspace, resolutions[i], now, &c, &id, made)) == SQLITE_OK &&
		    id) {
			if (callus_strlist_add_unique(owed, id, strlen(id), &added) < 0)
				sq = SQLITE_NOMEM;
			else if (added)
				sq = callus_notes_owe_file(s, id);
		}
		free(id);
	}
	if (sq != SQLITE_OK)
		rc = callus_store_db_error(s, err, sq, "cannot record notes in");
	searches_release(&c);
	free(now);
	return rc;
}

/* ------------------------------------------------------------------ */
/* What a person or the agent says                                      */

/* Run fn in a write transaction of its own, or in the caller's. */
static int in_transaction(callus_store *s, callus_error *err, int *began)
{
	*began = sqlite3_get_autocommit(callus_store_db(s));
	return *began ? callus_store_exec(s, "BEGIN IMMEDIATE", err) : 0;
}

static int end_transaction(callus_store *s, int began, int rc, callus_error *err)
{
	if (!began)
		return rc;
	if (rc < 0) {
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	return callus_store_exec(s, "COMMIT", err);
}

/* The note id names (a prefix), as its file says now: the folder's
 * changes taken in (a bounded sync: a new or removed file at once), then
 * that note's own file wherever the sync's slice is.  A whole sync read
 * every note and looked at every file for the one a person named (callus
 * note --rule, which each fix's reply offers: 28 million instructions of
 * its 64 at 100,000 recordings). */
static int get_synced(callus_store *s, const char *workspace, const char *id, callus_note *n,
		      callus_error *err)
{
	char full[CALLUS_NOTE_ID_LEN + 1];
	size_t changed = 0;
	int rc;

	if ((rc = callus_notes_sync_bounded(s, workspace, NULL, err)) < 0 ||
	    (rc = callus_notes_get(s, id, n, err)) < 0)
		return rc;
	if ((rc = callus_notes_sync_one(s, workspace, n->id, &changed, err)) < 0 || !changed)
		return rc;
	/* its file was edited: the row as it took it in */
	snprintf(full, sizeof(full), "%s", n->id);
	callus_note_release(n);
	return callus_notes_get(s, full, n, err);
}

int callus_notes_set_rule(callus_store *s, const char *workspace, const char *id,
			  const char *rule, callus_error *err)
{
	callus_strlist pages = CALLUS_STRLIST_INIT, owed = CALLUS_STRLIST_INIT;
	callus_note n;
	char *line = first_line(rule, 500), *now = callus_now_iso8601();
	int began, rc, sq;

	memset(&n, 0, sizeof(n));
	if (!line || !now) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = in_transaction(s, err, &began)) < 0)
		goto out;
	if ((rc = get_synced(s, workspace, id, &n, err)) < 0)
		goto end;
	{
		sqlite3_stmt *st = NULL;

		sq = sqlite3_prepare_v2(callus_store_db(s),
					"UPDATE notes SET rule = ?2, updated_at = ?3 WHERE id = ?1", -1,
					&st, NULL);
		if (sq == SQLITE_OK) {
			callus_sql_bind_text(st, 1, n.id);
			callus_sql_bind_text(st, 2, line);
			callus_sql_bind_text(st, 3, now);
			sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK
							     : sqlite3_errcode(callus_store_db(s));
		}
		sqlite3_finalize(st);
		if (sq != SQLITE_OK)
			goto db;
	}
	/* the lessons of its errors carry it too (spec 000's corrective_rule),
	 * and their pages in .lessons/ once it is committed */
	{
		sqlite3_stmt *st = NULL;

		sq = sqlite3_prepare_v2(callus_store_db(s),
					"UPDATE lessons SET corrective_rule = ?1 WHERE id IN"
					" (SELECT l.lesson_id FROM lesson_runs l JOIN run_errors e"
					"  ON e.run_id = l.run_id JOIN signatures g ON g.rowid = e.sig"
					"  JOIN note_signatures x ON x.signature_id = g.id"
					"  WHERE x.note_id = ?2) RETURNING signature",
					-1, &st, NULL);
		if (sq == SQLITE_OK) {
			callus_sql_bind_text(st, 1, line);
			callus_sql_bind_text(st, 2, n.id);
			while ((sq = sqlite3_step(st)) == SQLITE_ROW)
				if (callus_strlist_add(&pages, (const char *)sqlite3_column_text(st, 0),
						       (size_t)sqlite3_column_bytes(st, 0)) < 0) {
					sq = SQLITE_NOMEM;
					break;
				}
			sq = sq == SQLITE_DONE ? SQLITE_OK : sq;
		}
		sqlite3_finalize(st);
		if (sq != SQLITE_OK)
			goto db;
	}
	/* its file once the rule is committed (a refused commit left the
	 * rule in the file, which the next sync took for a person's edit) */
	if ((sq = callus_notes_owe_file(s, n.id)) != SQLITE_OK ||
	    (sq = callus_strlist_add(&owed, n.id, strlen(n.id)) < 0 ? SQLITE_NOMEM : SQLITE_OK) !=
		    SQLITE_OK)
		goto db;
	rc = 0;
	goto end;
db:
	rc = callus_store_db_error(s, err, sq, "cannot record the rule in");
end:
	rc = end_transaction(s, began, rc, err);
	/* within a caller's transaction the next sync writes it */
	if (rc >= 0 && began)
		callus_notes_write_owed(s, workspace, &owed);
	/* a page not written now is by the lesson's next recording */
	for (size_t i = 0; rc >= 0 && i < pages.count; i++)
		(void)callus_views_lesson_file(s, workspace, pages.items[i], NULL);
out:
	callus_strlist_release(&owed);
	callus_strlist_release(&pages);
	callus_note_release(&n);
	free(line);
	free(now);
	return rc;
}

int callus_notes_retire(callus_store *s, const char *workspace, const char *id,
			callus_error *err)
{
	callus_note n;
	char *now = callus_now_iso8601();
	int began, rc, sq;

	memset(&n, 0, sizeof(n));
	if (!now)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if ((rc = in_transaction(s, err, &began)) < 0)
		goto out;
	if ((rc = get_synced(s, workspace, id, &n, err)) < 0)
		goto end;
	if ((sq = callus_notes_mark_retired(s, n.id, now)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot retire the note in");
		goto end;
	}
	rc = callus_notes_remove_file(workspace, n.id, err);
end:
	rc = end_transaction(s, began, rc, err);
out:
	callus_note_release(&n);
	free(now);
	return rc;
}

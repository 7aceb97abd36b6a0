/*
 * team_sync.c - a workspace's sync with one layer above it (team.h):
 * proposals by the promotion rule, the outcomes of the layer's notes here,
 * the pull of what changed into note_cache with a resolution per note,
 * and a layer whose store moved.  Apart from team.c (where the stores
 * are, who decides, the cache read back) because it is the one piece
 * that writes the workspace store in bulk.
 */
#include "callus/team.h"
#include "callus/hash.h"
#include "callus/lesson.h"
#include "callus/notes.h"
#include "callus/redact.h"
#include "callus/signature.h"

#include "notes_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PULL_PAGE 5000 /* notes applied per transaction of a pull */

/* This workspace's name in the layers' outcomes: random, made once.  Two
 * first syncs at once both found none: each stored its own, and the one
 * whose was overwritten reported the same outcomes again under its name
 * (every count doubled) and withdrew as no one. */
static int instance_of(callus_store *s, char **out, callus_error *err)
{
	unsigned char raw[8];
	char hex[17];
	int fd, rc;

	if ((rc = callus_store_state_get(s, "instance", out, err)) < 0 || *out)
		return rc;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, raw, sizeof(raw)) != (ssize_t)sizeof(raw)) {
		if (fd >= 0)
			close(fd);
		return callus_error_set(err, CALLUS_EIO, "cannot read /dev/urandom: %s",
					strerror(errno));
	}
	close(fd);
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	return callus_store_state_claim(s, "instance", hex, out, err);
}

/* ------------------------------------------------------------------ */
/* Sync: proposals                                                      */

/* Note n's counts of what this workspace saw: its sums less the counts
 * its imported fixes arrived with (notes_sync.c), which are their
 * author's, reported by the author's clone.  i is 0 for the
 * applications, 1 for the successes. */
#define OWN_COUNT(col, i)                                                                    \
	"(n." col " - (SELECT coalesce(sum(json_extract(r.context, '$.base[" #i "]')), 0)" \
	"  FROM note_resolutions x JOIN resolutions r ON r.id = x.resolution_id"             \
	"  WHERE x.note_id = n.id AND json_valid(r.context)))"

/* What meets the promotion rule for layer l and was never proposed to
 * it: the workspace's own notes for the team layer, on its own evidence,
 * the cached team notes for the org layer.  Columns: id, from layer,
 * signature, tool, error type, title, example, rule, steps, code, files,
 * origin, path, extra. */
static const char *const candidates_sql[] = {
	"SELECT n.id, n.layer, n.signature_id, n.tool, n.error_type, n.title, n.example, n.rule,"
	" n.steps, n.code, n.files, '', n.layer, n.extra FROM notes n"
	" WHERE n.status = 'active' AND n.layer IN ('session','project')"
	" AND n.applications >= ?1"
	" AND NOT EXISTS (SELECT 1 FROM note_promotions p WHERE p.note_id = n.id"
	"  AND p.to_layer = ?3)"
	" AND " OWN_COUNT("applications", 0) " >= ?1"
	" AND CAST(" OWN_COUNT("successes", 1) " AS REAL) / max(" OWN_COUNT("applications", 0)
	", 1) >= ?2",
	"SELECT c.id, c.layer, c.signature_id, c.tool, c.error_type, c.title, c.example, c.rule,"
	" c.steps, c.code, c.files, c.origin, c.path, c.extra FROM note_cache c"
	" WHERE c.layer = 'team' AND c.applications >= ?1"
	" AND CAST(c.successes AS REAL) / max(c.applications, 1) >= ?2"
	" AND NOT EXISTS (SELECT 1 FROM note_promotions p WHERE p.note_id = c.id"
	"  AND p.to_layer = ?3)",
};

/* The texts of n a layer's store receives, redacted by r again: the
 * copies in red[] (the caller frees them), which n's fields then point
 * at.  0, or CALLUS_ENOMEM. */
#define PROPOSAL_TEXTS 7

static int redact_proposal(callus_shared_note *n, const callus_redactor *r,
			   char *red[PROPOSAL_TEXTS])
{
	char **field[PROPOSAL_TEXTS] = { &n->title, &n->example, &n->rule, &n->steps, &n->code,
					 &n->files, &n->extra };

	for (size_t i = 0; i < PROPOSAL_TEXTS; i++) {
		if (callus_redact_str(r, &red[i], *field[i]) < 0)
			return CALLUS_ENOMEM;
		if (red[i])
			*field[i] = red[i];
	}
	return 0;
}

/* The proposals made, in note_promotions: pairs of a note's id and the
 * layer it came from, in one transaction. */
static int record_proposals(callus_store *s, callus_layer l, const callus_strlist *made,
			    const char *now, callus_error *err)
{
	int nested, end, sq = callus_store_tx_begin(s, &nested);

	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot record the proposals in");
	for (size_t i = 0; i + 1 < made->count && sq == SQLITE_OK; i += 2) {
		const char *v[] = { made->items[i], made->items[i + 1], callus_layer_name(l), now };

		sq = callus_sql_exec_texts(callus_store_db(s),
					   "INSERT OR IGNORE INTO note_promotions (note_id,"
					   " from_layer, to_layer, status, at)"
					   " VALUES (?1, ?2, ?3, 'proposed', ?4)",
					   v, 4);
	}
	/* ended either way: a commit that fails is rolled back, and leaves
	 * no transaction open for the pull's */
	end = callus_store_tx_end(s, nested, sq == SQLITE_OK);
	if (sq == SQLITE_OK)
		sq = end;
	return sq == SQLITE_OK ? 0 : callus_store_db_error(s, err, sq, "cannot record the proposals in");
}

static int propose_all(callus_store *s, callus_knowledge *k, callus_layer l, long min,
		       const char *instance, const char *identity, const callus_redactor *r,
		       callus_sync_report *rep, callus_metrics *m, callus_error *err)
{
	sqlite3_stmt *st = NULL;
	callus_strlist made = CALLUS_STRLIST_INIT;
	char *now = callus_now_iso8601();
	int sq, rc = 0;

	if (!now)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	sq = sqlite3_prepare_v2(callus_store_db(s), candidates_sql[l == CALLUS_LAYER_ORG], -1, &st,
				NULL);
	if (sq != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read the notes in");
		goto out;
	}
	sqlite3_bind_int64(st, 1, min);
	sqlite3_bind_double(st, 2, CALLUS_PROMOTE_MIN_SUCCESS);
	callus_sql_bind_text(st, 3, callus_layer_name(l));
	while (rc == 0 && (sq = sqlite3_step(st)) == SQLITE_ROW) {
		callus_shared_note n;
		callus_buf origin = CALLUS_BUF_INIT, path = CALLUS_BUF_INIT;
		char *title = NULL, *red[PROPOSAL_TEXTS] = { NULL };
		const char *from = (const char *)sqlite3_column_text(st, 1);
		const char *org = (const char *)sqlite3_column_text(st, 11);
		const char *chain = (const char *)sqlite3_column_text(st, 12);
		int created = 0;

		memset(&n, 0, sizeof(n));
		snprintf(n.id, sizeof(n.id), "%s", (const char *)sqlite3_column_text(st, 0));
		n.layer = l;
		n.signature_id = (char *)sqlite3_column_text(st, 2);
		n.tool = (char *)sqlite3_column_text(st, 3);
		n.error_type = (char *)sqlite3_column_text(st, 4);
		n.title = (char *)sqlite3_column_text(st, 5);
		n.example = (char *)sqlite3_column_text(st, 6);
		if (!(n.title = title = callus_note_title(n.title, n.tool, n.example))) {
			rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
			break;
		}
		n.rule = (char *)sqlite3_column_text(st, 7);
		n.steps = (char *)sqlite3_column_text(st, 8);
		n.code = (char *)sqlite3_column_text(st, 9);
		n.files = (char *)sqlite3_column_text(st, 10);
		n.extra = (char *)sqlite3_column_text(st, 13);
		/* spec 004's chain: where it was learnt, and every layer since */
		if (org && *org)
			callus_buf_puts(&origin, org);
		else
			callus_buf_printf(&origin, "%s:%s", instance, n.id);
		callus_buf_printf(&path, "%s>%s", chain, callus_layer_name(l));
		n.origin = origin.ptr;
		n.path = path.ptr;
		n.proposed_by = (char *)(identity ? identity : "");
		if (callus_buf_status(&origin) < 0 || callus_buf_status(&path) < 0 ||
		    redact_proposal(&n, r, red) < 0)
			rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		else
			rc = callus_knowledge_propose(k, &n, &created, err);
		/* proposed here or by another clone first: ours either way.
		 * Recorded once the candidates are read: written while their
		 * statement reads, a write must find the store as that read
		 * began, and another sync's write meanwhile made SQLite refuse
		 * it at once, past any wait (two first syncs at once) */
		if (rc == 0 && (callus_strlist_add(&made, n.id, strlen(n.id)) < 0 ||
				callus_strlist_add(&made, from, strlen(from)) < 0))
			rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		if (rc == 0) {
			if (created) {
				const char *labels[] = { from, callus_layer_name(l), "proposed" };

				rep->proposed++;
				if (m)
					callus_metrics_add(m, CALLUS_METRIC_PROMOTION_TOTAL, labels, 1);
			}
		}
		callus_buf_release(&origin);
		callus_buf_release(&path);
		free(title);
		for (size_t i = 0; i < PROPOSAL_TEXTS; i++)
			free(red[i]);
	}
	if (rc == 0 && sq != SQLITE_DONE)
		rc = callus_store_db_error(s, err, sq, "cannot read the notes in");
	sqlite3_finalize(st);
	st = NULL;
	/* what was proposed before a failure is recorded all the same */
	if (made.count) {
		callus_error we = CALLUS_ERROR_INIT;
		int wr = record_proposals(s, l, &made, now, rc == 0 ? err : &we);

		callus_error_release(&we);
		if (rc == 0)
			rc = wr;
	}
out:
	sqlite3_finalize(st);
	callus_strlist_release(&made);
	free(now);
	return rc;
}

/* This workspace's proposals to the team layer, still undecided, whose
 * notes it retired since (or whose files were deleted): withdrawn, so
 * that no maintainer approves what its author found wanting, and that
 * the note does not come back to it as the team's.  A proposal another
 * clone made, or one decided meanwhile, is the server's to say (the
 * pull); either way it is asked once. */
static int withdraw_all(callus_store *s, callus_knowledge *k, callus_layer l, const char *instance,
			const char *identity, callus_sync_report *rep, callus_error *err)
{
	sqlite3_stmt *st = NULL;
	callus_strlist ids = CALLUS_STRLIST_INIT;
	int sq, rc = 0;

	if (l != CALLUS_LAYER_TEAM)
		return 0;
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT p.note_id FROM note_promotions p JOIN notes n ON n.id = p.note_id"
				" WHERE p.to_layer = ?1 AND p.status = 'proposed' AND n.status = 'retired'",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot read the proposals in");
	callus_sql_bind_text(st, 1, callus_layer_name(l));
	while ((sq = sqlite3_step(st)) == SQLITE_ROW)
		if (callus_strlist_add(&ids, (const char *)sqlite3_column_text(st, 0),
				       (size_t)sqlite3_column_bytes(st, 0)) < 0) {
			sq = SQLITE_NOMEM;
			break;
		}
	sqlite3_finalize(st);
	if (sq != SQLITE_DONE) {
		rc = callus_store_db_error(s, err, sq, "cannot read the proposals in");
		goto out;
	}
	for (size_t i = 0; i < ids.count && rc == 0; i++) {
		callus_buf origin = CALLUS_BUF_INIT;
		callus_error we = CALLUS_ERROR_INIT;
		const char *v[] = { ids.items[i], callus_layer_name(l), NULL };
		int w;

		if (callus_buf_printf(&origin, "%s:%s", instance, ids.items[i]) < 0) {
			rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
			break;
		}
		w = callus_knowledge_withdraw(k, l, ids.items[i], origin.ptr, identity,
					      "withdrawn: its note was retired where it was learnt",
					      &we);
		callus_buf_release(&origin);
		if (w < 0 && w != CALLUS_ENOTFOUND) {
			rc = callus_error_set(err, w, "%s", callus_error_message(&we));
			callus_error_release(&we);
			break;
		}
		callus_error_release(&we);
		if (w == 0)
			rep->withdrawn++;
		v[2] = w == 0 ? "rejected" : "withdrawn";
		/* of two syncs withdrawing at once, the one that found none
		 * there (the other's done) says what it saw only of a proposal
		 * still undecided here: it is the other's withdrawal that
		 * stands */
		sq = callus_sql_exec_texts(callus_store_db(s),
					   "UPDATE note_promotions SET status = ?3 WHERE note_id = ?1"
					   " AND to_layer = ?2 AND (status = 'proposed' OR ?3 = 'rejected')",
					   v, 3);
		if (sq != SQLITE_OK)
			rc = callus_store_db_error(s, err, sq, "cannot record the withdrawal in");
	}
out:
	callus_strlist_release(&ids);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Sync: outcomes                                                       */

/* This workspace's applications of layer l's notes: those of its own
 * notes it proposed there (beyond the counts an imported one arrived
 * with: every clone re-sent them, and a committed file's counts were
 * multiplied by the clones), and those of the resolutions made for the
 * cached copies, beyond the counts they started from. */
static int report_all(callus_store *s, callus_knowledge *k, callus_layer l, const char *instance,
		      callus_sync_report *rep, callus_error *err)
{
	sqlite3_stmt *st = NULL;
	int sq, rc = 0;

	sq = sqlite3_prepare_v2(
		callus_store_db(s),
		"SELECT id, sum(a), sum(k) FROM ("
		" SELECT n.id AS id, " OWN_COUNT("applications", 0) " AS a, "
		OWN_COUNT("successes", 1) " AS k FROM notes n"
		"  JOIN note_promotions p ON p.note_id = n.id AND p.to_layer = ?1"
		"  WHERE p.status IN ('proposed','approved')"
		" UNION ALL"
		" SELECT c.id, r.application_count - c.base_applications,"
		"  r.success_count - c.base_successes FROM note_cache c"
		"  JOIN resolutions r ON r.id = c.resolution_id WHERE c.layer = ?1)"
		" GROUP BY id HAVING sum(a) <> 0 OR sum(k) <> 0",
		-1, &st, NULL);
	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot read the outcomes in");
	callus_sql_bind_text(st, 1, callus_layer_name(l));
	while (rc == 0 && (sq = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t a = sqlite3_column_int64(st, 1), ok = sqlite3_column_int64(st, 2);

		rc = callus_knowledge_report(k, l, (const char *)sqlite3_column_text(st, 0), instance,
					     a < 0 ? 0 : a, ok < 0 ? 0 : ok > a ? a : ok, err);
		if (rc == 0)
			rep->reported++;
	}
	if (rc == 0 && sq != SQLITE_DONE)
		rc = callus_store_db_error(s, err, sq, "cannot read the outcomes in");
	sqlite3_finalize(st);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Sync: pulling into the cache                                         */

/* The statements of a pull, prepared once for all its notes (a pull of
 * 100,000 notes spent most of its time parsing the same SQL again). */
#define PULL_STMTS 16

typedef struct puller {
	callus_store *s;
	int promotions; /* this workspace proposed to the layer: their fate is read */
	callus_redactor *red; /* built for the first note taken in */
	sqlite3_stmt *st[PULL_STMTS];
} puller;

static sqlite3_stmt *p_stmt(puller *p, int i, const char *sql, int *sq)
{
	if (!p->st[i]) {
		*sq = sqlite3_prepare_v3(callus_store_db(p->s), sql, -1, SQLITE_PREPARE_PERSISTENT,
					 &p->st[i], NULL);
		if (*sq != SQLITE_OK)
			return NULL;
	} else {
		sqlite3_reset(p->st[i]);
		sqlite3_clear_bindings(p->st[i]);
	}
	*sq = SQLITE_OK;
	return p->st[i];
}

static int p_exec(puller *p, int i, const char *sql, const char *const *v, size_t n)
{
	int sq;
	sqlite3_stmt *st = p_stmt(p, i, sql, &sq);

	if (!st)
		return sq;
	for (size_t k = 0; k < n; k++)
		callus_sql_bind_text(st, (int)k + 1, v[k]);
	sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(p->s));
	sqlite3_reset(st);
	return sq;
}

/* The integer the query returns for a (and b): -1 for NULL, -2 for no row. */
static int64_t p_int(puller *p, int i, const char *sql, const char *a, const char *b, int *sq)
{
	sqlite3_stmt *st = p_stmt(p, i, sql, sq);
	int64_t v = 0;

	if (!st)
		return 0;
	callus_sql_bind_text(st, 1, a);
	if (b)
		callus_sql_bind_text(st, 2, b);
	if ((*sq = sqlite3_step(st)) == SQLITE_ROW) {
		v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
		*sq = SQLITE_OK;
	} else if (*sq == SQLITE_DONE) {
		v = -2;
		*sq = SQLITE_OK;
	}
	sqlite3_reset(st);
	return v;
}

static void p_release(puller *p)
{
	for (int i = 0; i < PULL_STMTS; i++)
		sqlite3_finalize(p->st[i]);
	memset(p->st, 0, sizeof(p->st));
	callus_redactor_free(p->red);
	p->red = NULL;
}

/* A resolution of the workspace store for a cached note: its signature
 * (made when the store has none of that id, so the same error matches it
 * exactly) and its steps and code, starting from the layer's counts. */
static int make_resolution(puller *p, const callus_shared_note *n, const char *now,
			   int64_t *rid, int64_t *apps, int64_t *succ)
{
	callus_buf desc = CALLUS_BUF_INIT;
	const char *example = *n->example ? n->example : n->title;
	char a[32], k[32];
	int sq;

	*rid = 0;
	*apps = n->applications > 0 ? n->applications : 1;
	*succ = n->successes > *apps ? *apps : n->successes > 0 ? n->successes : 1;
	if (*succ > *apps)
		*succ = *apps;
	for (const char *c = n->steps; *c; c++)
		if (*c == '\n')
			callus_buf_puts(&desc, "; ");
		else
			callus_buf_putc(&desc, *c);
	if (callus_buf_puts(&desc, "") < 0) {
		sq = SQLITE_NOMEM;
		goto out;
	}
	{
		char sketch[CALLUS_STORE_SKETCH_DIGITS];
		const char *v[] = { n->signature_id, n->error_type, example, n->tool, now, sketch };

		callus_store_noted_sketch(sketch, example);
		sq = p_exec(p, 1, CALLUS_STORE_INSERT_NOTED_SIGNATURE, v, 6);
		if (sq != SQLITE_OK)
			goto out;
	}
	snprintf(a, sizeof(a), "%lld", (long long)*apps);
	snprintf(k, sizeof(k), "%lld", (long long)*succ);
	{
		const char *v[] = { n->signature_id, desc.ptr, n->code, n->files, n->id,
				    callus_layer_name(n->layer), a, k, now };

		sq = p_exec(p, 2,
					   "INSERT INTO resolutions (signature_id, description,"
					   " code_changes, files, context, application_count,"
					   " success_count, created_at, last_success_at)"
					   " VALUES (?1, ?2, ?3, ?4, json_object('note', ?5, 'layer', ?6,"
					   " 'cached', 1), CAST(?7 AS INTEGER), CAST(?8 AS INTEGER), ?9, ?9)",
					   v, 9);
	}
	if (sq == SQLITE_OK)
		*rid = sqlite3_last_insert_rowid(callus_store_db(p->s));
out:
	callus_buf_release(&desc);
	return sq;
}

/* A cached note and its resolution gone (retired or rejected upstream:
 * the layer wins). */
static int drop_cached(puller *p, const char *layer, const char *id, size_t *dropped)
{
	const char *v[] = { layer, id };
	int sq;
	int64_t rid = p_int(p, 8, "SELECT resolution_id FROM note_cache WHERE layer = ?1 AND id = ?2",
			      layer, id, &sq);

	if (sq != SQLITE_OK || rid == -2)
		return sq;
	if (rid > 0) {
		char rs[32];
		const char *r[] = { rs };

		snprintf(rs, sizeof(rs), "%lld", (long long)rid);
		if ((sq = p_exec(p, 3,
						"DELETE FROM resolutions WHERE id = CAST(?1 AS INTEGER)",
						r, 1)) != SQLITE_OK)
			return sq;
	}
	sq = p_exec(p, 4,
				   "DELETE FROM note_cache WHERE layer = ?1 AND id = ?2", v, 2);
	if (sq == SQLITE_OK)
		(*dropped)++;
	return sq;
}

/*
 * A note taken in is stored, so redacted as everything callus stores is
 * (docs/redaction.md): the layer's store may hold what a workspace's
 * older redactor let through, or text put there by hand, and what is
 * cached is what an agent is shown.  Its text fields one by one, its
 * files' paths string by string.
 */
static int redact_pulled(puller *p, callus_shared_note *n)
{
	char **fields[] = { &n->tool, &n->error_type, &n->title, &n->example, &n->rule,
			    &n->steps, &n->code, &n->origin, &n->path, &n->extra };
	char *files = NULL;
	int rc = 0;

	if (!p->red && (rc = callus_redactor_new(&p->red, NULL)) < 0)
		return rc;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]) && rc == 0; i++)
		rc = callus_redact_in_place(p->red, fields[i]);
	if (rc == 0 && n->files && (rc = callus_redact_again(p->red, n->files, 1, 0, &files)) == 0 &&
	    files) {
		free(n->files);
		n->files = files;
	}
	return rc;
}

static int apply_pulled(puller *p, const callus_shared_note *n, const char *now,
			callus_sync_report *rep)
{
	const char *layer = callus_layer_name(n->layer);
	const char *status = callus_shared_status_name(n->status);
	char rev[32], apps[32], succ[32], rs[32], bas[32], bsu[32];
	int64_t rid, base_apps = 0, base_succ = 0;
	int sq;

	/* a copy older than the cache's (another sync at once pulled the
	 * newer one first) changes nothing */
	if (p_int(p, 7, "SELECT revision FROM note_cache WHERE layer = ?1 AND id = ?2", layer,
		  n->id, &sq) > n->revision)
		return SQLITE_OK;
	if (sq != SQLITE_OK)
		return sq;
	if (p->promotions) {
		const char *v[] = { n->id, layer, status };

		/* what became of this workspace's proposals */
		sq = p_exec(p, 5,
			    "UPDATE note_promotions SET status = ?3 WHERE note_id = ?1"
			    " AND to_layer = ?2",
			    v, 3);
		if (sq != SQLITE_OK)
			return sq;
	}
	if (n->status != CALLUS_SHARED_APPROVED)
		return drop_cached(p, layer, n->id, &rep->dropped);
	/* what the cache has of it: -2 nothing, -1 a copy with no resolution */
	rid = p_int(p, 12, "SELECT resolution_id FROM note_cache WHERE layer = ?1 AND id = ?2",
		    layer, n->id, &sq);
	if (sq != SQLITE_OK)
		return sq;
	if (rid > 0) {
		const char *v[] = { rs, n->steps, n->code, n->files };

		/* its resolution says what the layer says */
		snprintf(rs, sizeof(rs), "%lld", (long long)rid);
		if ((sq = p_exec(p, 6,
				 "UPDATE resolutions SET description = replace(?2, char(10), '; '),"
				 " code_changes = ?3, files = ?4 WHERE id = CAST(?1 AS INTEGER)",
				 v, 4)) != SQLITE_OK)
			return sq;
		rid = 0;
	} else {
		/* the workspace's own active note of that error answers it */
		int local = p_int(p, 10, "SELECT 1 FROM notes WHERE id = ?1 AND status = 'active'",
				  n->id, NULL, &sq) == 1;

		if (sq != SQLITE_OK)
			return sq;
		rid = 0;
		if (!local && (sq = make_resolution(p, n, now, &rid, &base_apps, &base_succ)) !=
				      SQLITE_OK)
			return sq;
	}
	snprintf(rev, sizeof(rev), "%lld", (long long)n->revision);
	snprintf(apps, sizeof(apps), "%lld", (long long)n->applications);
	snprintf(succ, sizeof(succ), "%lld", (long long)n->successes);
	snprintf(rs, sizeof(rs), "%lld", (long long)rid);
	snprintf(bas, sizeof(bas), "%lld", (long long)base_apps);
	snprintf(bsu, sizeof(bsu), "%lld", (long long)base_succ);
	{
		/* the cached copy takes the layer's text: it wins there; a
		 * resolution made now (rid > 0) is kept with the counts it
		 * started from */
		const char *v[] = { layer, n->id, rev, n->signature_id, n->tool, n->error_type,
				    n->title, n->example, n->rule, n->steps, n->code, n->files,
				    n->origin, n->path, apps, succ, now, rs, bas, bsu,
				    n->extra ? n->extra : "" };

		sq = p_exec(
			p, 11,
			"INSERT INTO note_cache (layer, id, revision, signature_id, tool, error_type,"
			" title, example, rule, steps, code, files, origin, path, applications,"
			" successes, pulled_at, resolution_id, base_applications, base_successes,"
			" extra) VALUES (?1, ?2, CAST(?3 AS INTEGER), ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
			" ?11, ?12, ?13, ?14, CAST(?15 AS INTEGER), CAST(?16 AS INTEGER), ?17,"
			" nullif(CAST(?18 AS INTEGER), 0), CAST(?19 AS INTEGER), CAST(?20 AS INTEGER),"
			" ?21)"
			" ON CONFLICT (layer, id) DO UPDATE SET revision = excluded.revision,"
			" signature_id = excluded.signature_id, tool = excluded.tool,"
			" error_type = excluded.error_type, title = excluded.title,"
			" example = excluded.example, rule = excluded.rule, steps = excluded.steps,"
			" code = excluded.code, files = excluded.files, origin = excluded.origin,"
			" path = excluded.path, extra = excluded.extra,"
			" applications = excluded.applications,"
			" successes = excluded.successes, pulled_at = excluded.pulled_at,"
			" base_applications = CASE WHEN excluded.resolution_id IS NULL"
			"  THEN note_cache.base_applications ELSE excluded.base_applications END,"
			" base_successes = CASE WHEN excluded.resolution_id IS NULL"
			"  THEN note_cache.base_successes ELSE excluded.base_successes END,"
			" resolution_id = coalesce(excluded.resolution_id, note_cache.resolution_id)",
			v, 21);
		if (sq == SQLITE_OK) {
			rep->pulled++;
			/* its signature's vector with the noted ones, when it
			 * has one (else counted, and added, once indexed) */
			callus_notes_vectors_add(p->s, n->signature_id);
		}
		return sq;
	}
}

/* Layer l's cached notes that have no resolution because the workspace's
 * own active note answered them, where that note is no longer active
 * (retired, or its file deleted, since): they answer now.  Decided only
 * at an upstream change before, such a note never answered again. */
static int answer_unanswered(puller *p, callus_layer l, const char *now)
{
	sqlite3_stmt *st = NULL;
	int sq;

	/* from the retired notes (a few; notes are never deleted): the
	 * cache's rows are read through their diffs */
	sq = sqlite3_prepare_v2(callus_store_db(p->s),
				"SELECT c.id, c.signature_id, c.tool, c.error_type, c.title, c.example,"
				" c.steps, c.code, c.files, c.applications, c.successes FROM notes n"
				" JOIN note_cache c ON c.layer = ?1 AND c.id = n.id"
				" WHERE n.status = 'retired' AND c.resolution_id IS NULL",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, callus_layer_name(l));
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		callus_shared_note n;
		int64_t rid, apps, succ;
		char rs[32], as[32], ks[32];

		memset(&n, 0, sizeof(n));
		snprintf(n.id, sizeof(n.id), "%s", (const char *)sqlite3_column_text(st, 0));
		n.layer = l;
		n.signature_id = (char *)sqlite3_column_text(st, 1);
		n.tool = (char *)sqlite3_column_text(st, 2);
		n.error_type = (char *)sqlite3_column_text(st, 3);
		n.title = (char *)sqlite3_column_text(st, 4);
		n.example = (char *)sqlite3_column_text(st, 5);
		n.steps = (char *)sqlite3_column_text(st, 6);
		n.code = (char *)sqlite3_column_text(st, 7);
		n.files = (char *)sqlite3_column_text(st, 8);
		n.applications = sqlite3_column_int64(st, 9);
		n.successes = sqlite3_column_int64(st, 10);
		if ((sq = make_resolution(p, &n, now, &rid, &apps, &succ)) != SQLITE_OK)
			break;
		snprintf(rs, sizeof(rs), "%lld", (long long)rid);
		snprintf(as, sizeof(as), "%lld", (long long)apps);
		snprintf(ks, sizeof(ks), "%lld", (long long)succ);
		{
			const char *v[] = { callus_layer_name(l), n.id, rs, as, ks };

			if ((sq = p_exec(p, 13,
					 "UPDATE note_cache SET resolution_id = CAST(?3 AS INTEGER),"
					 " base_applications = CAST(?4 AS INTEGER),"
					 " base_successes = CAST(?5 AS INTEGER)"
					 " WHERE layer = ?1 AND id = ?2",
					 v, 5)) != SQLITE_OK)
				break;
		}
	}
	sqlite3_finalize(st);
	return sq == SQLITE_DONE ? SQLITE_OK : sq;
}

static int pull_all(callus_store *s, callus_knowledge *k, callus_layer l, callus_sync_report *rep,
		    callus_error *err)
{
	callus_buf key = CALLUS_BUF_INIT;
	char *mark = NULL, *now = callus_now_iso8601();
	puller pl = { s, 0, NULL, { NULL } };
	int64_t since = 0;
	int rc, sq;

	if (!now || callus_buf_printf(&key, "watermark.%s", callus_layer_name(l)) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = callus_store_state_get(s, key.ptr, &mark, err)) < 0)
		goto out;
	since = mark ? strtoll(mark, NULL, 10) : 0;
	/* a first pull may write 100,000 notes: the store's small WAL and
	 * cache (right for the hook's few rows) would checkpoint and re-read
	 * pages all along; the connection's own settings, gone at close */
	callus_store_wal_pages(s, 16384);
	sqlite3_exec(callus_store_db(s), "PRAGMA cache_size = -65536", NULL, NULL, NULL);
	pl.promotions = p_int(&pl, 9, "SELECT 1 FROM note_promotions WHERE to_layer = ?1 LIMIT 1",
			      callus_layer_name(l), NULL, &sq) == 1;
	if (sq != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read the proposals in");
		goto out;
	}
	for (;;) {
		callus_shared_note *v = NULL;
		size_t n = 0;
		char ws[32];
		sq = SQLITE_OK;

		if ((rc = callus_knowledge_pull(k, l, since, PULL_PAGE, &v, &n, err)) < 0)
			goto out;
		if (!n) {
			free(v);
			break;
		}
		if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0) {
			callus_shared_notes_free(v, n);
			goto out;
		}
		for (size_t i = 0; i < n && sq == SQLITE_OK; i++) {
			if (v[i].status == CALLUS_SHARED_APPROVED && redact_pulled(&pl, &v[i]) < 0)
				sq = SQLITE_NOMEM;
			else
				sq = apply_pulled(&pl, &v[i], now, rep);
			if (v[i].revision > since)
				since = v[i].revision;
		}
		callus_shared_notes_free(v, n);
		snprintf(ws, sizeof(ws), "%lld", (long long)since);
		if (sq != SQLITE_OK)
			rc = callus_store_db_error(s, err, sq, "cannot cache the layer's notes in");
		/* never back: two syncs at once each wrote what their own
		 * pages reached, the one that read less last */
		else if ((sq = callus_store_state_raise(s, key.ptr, ws, 1)) != SQLITE_OK)
			rc = callus_store_db_error(s, err, sq, "cannot write the state of");
		if (rc < 0) {
			sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
			goto out;
		}
		if ((rc = callus_store_exec(s, "COMMIT", err)) < 0)
			goto out;
		if (n < PULL_PAGE)
			break;
	}
	rep->watermark = since;
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		goto out;
	if ((sq = answer_unanswered(&pl, l, now)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot cache the layer's notes in");
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	rc = callus_store_exec(s, "COMMIT", err);
out:
	p_release(&pl);
	free(mark);
	free(now);
	callus_buf_release(&key);
	return rc;
}

/* What the store keeps of a location: a URL may hold a password, and
 * only whether the location changed is asked of it.  "sha256:" and 64 hex
 * digits in id (CALLUS_SHA256_HEX_LEN + 8 bytes). */
static int location_id(char *id, const char *location)
{
	callus_sha256 *h = NULL;

	memcpy(id, "sha256:", 7);
	if (callus_sha256_new(&h) < 0 || callus_sha256_part(h, location, strlen(location)) < 0) {
		callus_sha256_free(h);
		return CALLUS_ENOMEM;
	}
	return callus_sha256_finish(h, id + 7);
}

int callus_team_hide_locations(callus_store *s, callus_error *err)
{
	sqlite3_stmt *st = NULL;
	callus_strlist keys = CALLUS_STRLIST_INIT, values = CALLUS_STRLIST_INIT;
	char id[CALLUS_SHA256_HEX_LEN + 8];
	int sq, rc = 0;

	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT key, value FROM sync_state WHERE key LIKE 'store.%'"
				" AND value NOT LIKE 'sha256:%'",
				-1, &st, NULL);
	while (sq == SQLITE_OK && (sq = sqlite3_step(st)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);

		if (k && v &&
		    (callus_strlist_add(&keys, k, strlen(k)) < 0 ||
		     callus_strlist_add(&values, v, strlen(v)) < 0))
			sq = SQLITE_NOMEM;
		else
			sq = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (sq != SQLITE_OK && sq != SQLITE_DONE) {
		rc = callus_store_db_error(s, err, sq, "cannot read the sync state in");
		goto out;
	}
	for (size_t i = 0; i < keys.count && rc == 0; i++) {
		if (location_id(id, values.items[i]) < 0)
			rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		else
			rc = callus_store_state_set(s, keys.items[i], id, err);
	}
out:
	callus_strlist_release(&keys);
	callus_strlist_release(&values);
	return rc;
}

int callus_team_bind(callus_store *s, callus_layer l, const char *location, callus_error *err)
{
	callus_buf key = CALLUS_BUF_INIT, mark = CALLUS_BUF_INIT;
	const char *layer = callus_layer_name(l);
	const char *v[] = { layer };
	char *was = NULL, id[CALLUS_SHA256_HEX_LEN + 8];
	int rc, sq = SQLITE_OK;

	if (callus_buf_printf(&key, "store.%s", layer) < 0 ||
	    callus_buf_printf(&mark, "watermark.%s", layer) < 0 || location_id(id, location) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = callus_store_state_get(s, key.ptr, &was, err)) < 0 || (was && !strcmp(was, id)))
		goto out;
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		goto out;
	/* read again under the lock: another sync at once may have bound the
	 * layer since, and pulled pages this one would forget */
	free(was);
	if ((rc = callus_store_state_get(s, key.ptr, &was, err)) < 0 || (was && !strcmp(was, id))) {
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	if (was) {
		const char *m[] = { mark.ptr };

		sq = callus_sql_exec_texts(callus_store_db(s),
					   "DELETE FROM resolutions WHERE id IN (SELECT resolution_id"
					   " FROM note_cache WHERE layer = ?1)",
					   v, 1);
		if (sq == SQLITE_OK)
			sq = callus_sql_exec_texts(callus_store_db(s),
						   "DELETE FROM note_cache WHERE layer = ?1", v, 1);
		if (sq == SQLITE_OK)
			sq = callus_sql_exec_texts(callus_store_db(s),
						   "DELETE FROM note_promotions WHERE to_layer = ?1",
						   v, 1);
		if (sq == SQLITE_OK)
			sq = callus_sql_exec_texts(callus_store_db(s),
						   "DELETE FROM sync_state WHERE key = ?1", m, 1);
	}
	if (sq != SQLITE_OK)
		rc = callus_store_db_error(s, err, sq, "cannot forget the former store in");
	else
		rc = callus_store_state_set(s, key.ptr, id, err);
	if (rc < 0) {
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	rc = callus_store_exec(s, "COMMIT", err);
out:
	free(was);
	callus_buf_release(&key);
	callus_buf_release(&mark);
	return rc;
}

int callus_team_sync(callus_store *s, callus_knowledge *k, callus_layer l, long min_applications,
		     const char *identity, const callus_redactor *r, callus_sync_report *rep,
		     callus_metrics *m, callus_error *err)
{
	callus_redactor *own = NULL;
	char *instance = NULL;
	int rc;

	memset(rep, 0, sizeof(*rep));
	if (l != CALLUS_LAYER_TEAM && l != CALLUS_LAYER_ORG)
		return callus_error_set(err, CALLUS_EINVAL, "only the team and org layers sync");
	if (min_applications <= 0)
		min_applications = CALLUS_PROMOTE_MIN_APPLICATIONS;
	if (!r && (rc = callus_redactor_new(&own, err)) < 0)
		return rc;
	if ((rc = instance_of(s, &instance, err)) < 0)
		goto out;
	/* the notes' files first: a person's edit is what is proposed */
	if ((rc = withdraw_all(s, k, l, instance, identity, rep, err)) == 0 &&
	    (rc = propose_all(s, k, l, min_applications, instance, identity, r ? r : own, rep, m,
			      err)) == 0 &&
	    (rc = report_all(s, k, l, instance, rep, err)) == 0)
		rc = pull_all(s, k, l, rep, err);
out:
	free(instance);
	callus_redactor_free(own);
	return rc;
}

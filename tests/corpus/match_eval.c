/*
 * match_eval.c - suggestion quality on the corpus, leave one out.
 *
 *	match_eval SIGNATURES.json [-v]
 *
 * Reads what `check.py --dump-signatures` writes (every error of the corpus
 * matched to its planted root-cause group, with its signature) and keeps one
 * signature per id, with its group and the case it first came from.  Then,
 * for each signature in turn (the held-out one), builds a fresh store in a
 * temporary workspace holding every *other* signature, learnt the way callus
 * learns them: case by case in the order of the dump, each case one
 * recorded run (callus_store_record_lesson, callus_match_index) that failed
 * with its signatures and then passed (callus_learn_failure and
 * callus_learn_pass, no snapshots), so each signature has one resolution
 * that succeeded.  The held-out signature is never in that store, neither
 * as a signature nor in the document frequencies, when callus_match_suggest
 * is asked about it.  A resolution is right when it was made for a
 * signature of the held-out one's group.  (The runs before the held-out
 * one's are the same in every round that holds out one of that run or a
 * later one: they are learnt once, into a prefix store that such rounds
 * copy: the same stores, in half the time.)  The rounds are shared out
 * over worker processes (MATCH_EVAL_JOBS, else one a processor online),
 * each with its own prefix store, and their outcomes gathered before the
 * tables: the same tables, in about half the time on two cores.  The
 * rounds' stores are opened with synchronous = OFF: each is thrown away
 * after one question.  MATCH_EVAL_EVERY=N holds out every N-th signature
 * only (the tables count those): the sanitizer pass of scripts/test.sh
 * asks for a twelfth of the rounds, which learn at the same volume, to look
 * for memory errors; the release pass computes the figures on every one.
 * MATCH_EVAL_WINDOW=N asks each round's question a second time with the
 * search cut as a recording's is in a large store (ask_cut): a round whose
 * two answers differ misses a bar, and the status is 4.
 *
 * Prints Markdown tables: for signatures whose group has another member,
 * how often a right resolution comes first and how often one is in the top
 * 3; for signatures alone in their group, how often nothing is suggested.
 * And what an agent is shown: each resolution gets a diff of its own with
 * one line naming its group, and its note; the reply (each suggestion's
 * note, compact, in the hook's default budget) must hold the right
 * group's line itself, not only a fix's id, and say nothing of past
 * fixes for a signature alone in its group.
 * -v also lists the misses, with what was suggested instead.  Exits 1 when
 * a bar is missed (first >= 90%, top 3 >= 97%, nothing for the lone ones
 * >= 98%; first and nothing again on the held-out signatures alone), 2 on
 * bad input, 3 when callus itself fails, 4 when the search cut
 * (MATCH_EVAL_WINDOW) answered a round differently.
 * tests/corpus/match_eval.sh builds and runs it and writes
 * docs/match-quality.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "callus/buf.h"
#include "callus/learn.h"
#include "callus/lesson.h"
#include "callus/match.h"
#include "callus/notemd.h"
#include "callus/notes.h"
#include "callus/redact.h"
#include "callus/signature.h"
#include "callus/store.h"
#include "callus/strlist.h"

#include "store_internal.h"

/* The bars of the issue, in percent. */
#define BAR_FIRST 90
#define BAR_TOP3 97
#define BAR_QUIET 98

#define TOP 3          /* suggestions asked for (CALLUS_LEARN_SUGGEST_MAX) */
#define MESSAGE_MAX 140 /* bytes of a message shown in the list of misses */

typedef struct item {
	callus_signature sig;
	char *group, *case_id;
	size_t run;    /* index of its case in eval.runs */
	size_t mates;  /* other items of its group */
	int heldout;   /* every error with this signature is in a held-out case */
} item;

/* One held-out item's outcome. */
typedef struct outcome {
	callus_suggestion *g;
	size_t n;
	int first, top3;  /* right first / in the top 3 (with a mate) */
	int lines;        /* the reply holds the right fix's own lines */
	int said;         /* the reply says anything at all */
	int differs;      /* asked again with the search cut (eval.window), the
			   * suggestions or the reply were not the same */
	callus_match *m;    /* for a miss: the matches behind the suggestions */
	size_t nm;
	int done;           /* read back from its worker */
} outcome;

typedef struct eval {
	item *items;
	size_t n;
	char **runs;   /* case ids, in order of first appearance; borrowed */
	size_t nruns;
	callus_redactor *red;
	callus_signature *sigs;   /* scratch: one run's signatures (shallow copies) */
	callus_learn_error *errs; /* scratch: the same, as learnt errors */
	size_t every;             /* every every-th item is held out (MATCH_EVAL_EVERY) */
	size_t window;            /* 0, or each round asks again with the search
				   * cut to the newest this many vectors and
				   * every noted one (MATCH_EVAL_WINDOW; match.h) */
} eval;

/* Whether item h is held out in a round of its own: all of them, unless
 * MATCH_EVAL_EVERY asks for a sample (the sanitizer pass's, where what is
 * looked for is a memory error, not the figures). */
static int asked(const eval *e, size_t h)
{
	return h % e->every == 0;
}

static const item *item_of(const eval *e, const char *sig_id);

static char *dup_str(json_t *v)
{
	const char *s = json_is_string(v) ? json_string_value(v) : "";
	return strdup(s);
}

static int load_list(callus_strlist *out, json_t *arr)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v) {
		const char *str = json_string_value(v);

		if (str && callus_strlist_add(out, str, strlen(str)) < 0)
			return -1;
	}
	return 0;
}

/* The items of the dump, one per signature id (the first error that had
 * it, as embed_eval keeps them), with their runs and group-mates.
 * Returns 2 on bad input, 3 out of memory. */
static int load(eval *e, const char *path)
{
	json_error_t jerr;
	json_t *root = NULL, *rec;
	size_t idx;
	int rc = 3;

	if (!(root = json_load_file(path, 0, &jerr)) || !json_is_array(root)) {
		fprintf(stderr, "match_eval: %s: %s\n", path, root ? "not a list" : jerr.text);
		rc = 2;
		goto out;
	}
	if (!(e->items = calloc(json_array_size(root) + 1, sizeof(*e->items))) ||
	    !(e->runs = calloc(json_array_size(root) + 1, sizeof(*e->runs))))
		goto out;
	json_array_foreach(root, idx, rec) {
		json_t *s = json_object_get(rec, "signature");
		const char *id = json_string_value(json_object_get(s, "id"));
		const char *group = json_string_value(json_object_get(rec, "group"));
		int seen = 0;
		item *it;

		if (!id || !group)
			continue;
		for (size_t k = 0; k < e->n && !seen; k++)
			if ((seen = !strcmp(e->items[k].sig.id, id)) &&
			    !json_is_true(json_object_get(rec, "heldout")))
				e->items[k].heldout = 0;
		if (seen)
			continue;
		it = &e->items[e->n++];
		it->heldout = json_is_true(json_object_get(rec, "heldout"));
		snprintf(it->sig.id, sizeof(it->sig.id), "%s", id);
		it->sig.error_type = dup_str(json_object_get(s, "error_type"));
		it->sig.message_pattern = dup_str(json_object_get(s, "message_pattern"));
		it->sig.original = dup_str(json_object_get(s, "original"));
		it->sig.tool = dup_str(json_object_get(s, "tool"));
		it->group = strdup(group);
		it->case_id = dup_str(json_object_get(rec, "case"));
		if (!it->sig.error_type || !it->sig.message_pattern || !it->sig.original ||
		    !it->sig.tool || !it->group || !it->case_id ||
		    load_list(&it->sig.stack_patterns, json_object_get(s, "stack_patterns")) < 0 ||
		    load_list(&it->sig.context_patterns,
			      json_object_get(s, "context_patterns")) < 0)
			goto out;
		for (it->run = 0; it->run < e->nruns && strcmp(e->runs[it->run], it->case_id);
		     it->run++)
			;
		if (it->run == e->nruns)
			e->runs[e->nruns++] = it->case_id;
	}
	if (e->n < 2) {
		fprintf(stderr, "match_eval: fewer than two signatures in %s\n", path);
		rc = 2;
		goto out;
	}
	for (size_t i = 0; i < e->n; i++)
		for (size_t j = i + 1; j < e->n; j++)
			if (!strcmp(e->items[i].group, e->items[j].group)) {
				e->items[i].mates++;
				e->items[j].mates++;
			}
	if (!(e->sigs = calloc(e->n, sizeof(*e->sigs))) ||
	    !(e->errs = calloc(e->n, sizeof(*e->errs))))
		goto out;
	rc = 0;
out:
	json_decref(root);
	return rc;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 ? -1 : 0;
}

/* rm -rf without a shell: the workspace holds the store, its WAL and the
 * vector file. */
static int remove_tree(const char *path)
{
	return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int failed(const char *what, callus_error *err)
{
	fprintf(stderr, "match_eval: %s: %s\n", what, callus_error_message(err));
	return 3;
}

/*
 * Record run r of the corpus (every item of that case but the held-out
 * one) as callus would: the run's signatures stored and indexed, a failure
 * of its check, then a pass that fixes them, each fix a resolution with
 * one success.  One check per case, so that a case's pass fixes only its
 * own errors.
 */
/*
 * The eval learns without snapshots: each resolution is given a diff of its
 * own, one line its group's (FIX_LINE), and its note is made from it as a
 * fix with a diff makes one.  The reply to a held-out error can then be
 * checked for the right group's line.
 */
#define FIX_LINE "+fixed for group "

static int give_fix(eval *e, callus_store *s, const char *ws, int64_t rid)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_resolution r;
	callus_buf diff = CALLUS_BUF_INIT;
	callus_strlist owed = CALLUS_STRLIST_INIT;
	sqlite3_stmt *st = NULL;
	const item *it;
	int rc = 3;

	memset(&r, 0, sizeof(r));
	if (callus_learn_get_resolution(s, rid, &r, &err) < 0) {
		rc = failed("reading a resolution", &err);
		goto out;
	}
	if (!(it = item_of(e, r.signature_id))) {
		rc = 0; /* linked to another: that one has its fix */
		goto out;
	}
	callus_buf_printf(&diff, "diff --git a/fix.txt b/fix.txt\n--- a/fix.txt\n+++ b/fix.txt\n"
				 "@@ -1 +1 @@\n-broken for group %s\n" FIX_LINE "%s\n",
			  it->group, it->group);
	if (callus_buf_status(&diff) < 0 ||
	    sqlite3_prepare_v2(callus_store_db(s), "UPDATE resolutions SET code_changes = ?1"
						   " WHERE id = ?2", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, diff.ptr, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, rid);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	if (callus_store_exec(s, "BEGIN IMMEDIATE", &err) < 0 ||
	    callus_notes_sync(s, ws, NULL, &err) < 0 ||
	    callus_notes_learn(s, ws, &rid, 1, NULL, NULL, &owed, &err) < 0 ||
	    callus_store_exec(s, "COMMIT", &err) < 0) {
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		rc = failed("making a note", &err);
		goto out;
	}
	callus_notes_write_owed(s, ws, &owed);
	rc = 0;
out:
	sqlite3_finalize(st);
	callus_resolution_release(&r);
	callus_buf_release(&diff);
	callus_strlist_release(&owed);
	callus_error_release(&err);
	return rc;
}

static int learn_run(eval *e, callus_store *s, const char *ws, size_t r, size_t held_out)
{
	callus_lesson l;
	callus_run_info run;
	callus_learn_opts o;
	callus_learn_result res;
	callus_error err = CALLUS_ERROR_INIT;
	size_t n = 0;
	int rc = 0;

	memset(&l, 0, sizeof(l));
	memset(&res, 0, sizeof(res));
	for (size_t i = 0; i < e->n; i++) {
		if (i == held_out || e->items[i].run != r)
			continue;
		e->sigs[n] = e->items[i].sig; /* shallow: the item keeps ownership */
		e->errs[n].sig = &e->sigs[n];
		e->errs[n].files = NULL;
		e->errs[n].message = NULL;
		n++;
	}
	if (!n)
		return 0;
	l.type = CALLUS_LESSON_OTHER;
	l.file = strdup("");
	l.error_summary = strdup(e->runs[r]);
	l.tool = strdup(e->sigs[0].tool);
	l.command = strdup(e->runs[r]);
	if (!l.file || !l.error_summary || !l.tool || !l.command || callus_lesson_sign(&l) < 0) {
		fprintf(stderr, "match_eval: out of memory\n");
		rc = 3;
		goto out;
	}
	memset(&run, 0, sizeof(run));
	run.cwd = "";
	run.sigs = e->sigs;
	run.nsigs = n;
	if (callus_store_record_lesson(s, &l, &run, NULL, &err) < 0) {
		rc = failed("recording a run", &err);
		goto out;
	}
	/* after every run, as a recording does: a later signature this close
	 * to a stored one of its tool is linked to it, not indexed */
	if (callus_match_index(s, ws, NULL, &err) < 0) {
		rc = failed("indexing", &err);
		goto out;
	}
	memset(&o, 0, sizeof(o));
	o.workspace = ws;
	o.check.tool = e->sigs[0].tool;
	o.check.args = e->runs[r];
	o.check.dir = "";
	o.command = e->runs[r];
	o.session = "";
	o.redactor = e->red;
	o.no_snapshot = 1; /* no git: a resolution's diff does not enter matching */
	if (callus_learn_failure(s, &o, e->errs, n, &res, &err) < 0) {
		rc = failed("learning a failure", &err);
		goto out;
	}
	callus_learn_result_release(&res);
	if (callus_learn_pass(s, &o, &res, &err) < 0) {
		rc = failed("learning a pass", &err);
		goto out;
	}
	if (res.nfixed != n) {
		fprintf(stderr, "match_eval: case %s: %zu errors, %zu resolutions\n", e->runs[r], n,
			res.nfixed);
		rc = 3;
		goto out;
	}
	for (size_t i = 0; i < res.nfixed && rc == 0; i++)
		rc = give_fix(e, s, ws, res.fixed_resolutions[i]);
out:
	callus_learn_result_release(&res);
	callus_lesson_release(&l);
	callus_error_release(&err);
	return rc;
}

/* Workspace ws with its .callus directory; *made says whether ws now exists
 * (to be removed). */
static int make_workspace(callus_buf *path, const char *ws, int *made)
{
	callus_buf_clear(path);
	callus_buf_printf(path, "%s/.callus", ws);
	if (callus_buf_status(path) < 0)
		return 3;
	if (mkdir(ws, 0700) < 0 || (*made = 1, mkdir(path->ptr, 0700) < 0)) {
		fprintf(stderr, "match_eval: cannot create %s: %s\n", path->ptr, strerror(errno));
		return 3;
	}
	return 0;
}

static int open_store(callus_store **s, const char *ws)
{
	callus_buf path = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	int rc = 3;

	callus_buf_printf(&path, "%s/.callus/callus.db", ws);
	if (callus_buf_status(&path) < 0)
		goto out;
	rc = callus_store_open(s, path.ptr, 5000, &err) < 0 ? failed(path.ptr, &err) : 0;
	/* a round's store is thrown away after one question: what a crash
	 * would cost it does not matter, the fsyncs' time does */
	if (rc == 0 && callus_store_exec(*s, "PRAGMA synchronous = OFF", &err) < 0)
		rc = failed(path.ptr, &err);
out:
	callus_error_release(&err);
	callus_buf_release(&path);
	return rc;
}

static int copy_file(const char *from, const char *to)
{
	char buf[1 << 16];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = 3;
	ssize_t n = 0;

	if (in < 0 || (out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
		goto out;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		for (ssize_t done = 0, w; done < n; done += w)
			if ((w = write(out, buf + done, (size_t)(n - done))) < 0)
				goto out;
	if (n == 0)
		rc = 0;
out:
	if (rc)
		fprintf(stderr, "match_eval: cannot copy %s to %s: %s\n", from, to,
			strerror(errno));
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0 && !rc) {
		fprintf(stderr, "match_eval: cannot write %s: %s\n", to, strerror(errno));
		rc = 3;
	}
	return rc;
}

/* Every file of from/.callus (the store, closed so that its WAL is merged
 * and gone, and the vector file) copied into to/.callus. */
static int copy_notes(const char *from, const char *to)
{
	callus_buf src = CALLUS_BUF_INIT, dst = CALLUS_BUF_INIT;
	DIR *d = NULL;
	struct dirent *de;
	int rc = 3;

	callus_buf_printf(&src, "%s/.callus/notes", from);
	callus_buf_printf(&dst, "%s/.callus/notes", to);
	if (callus_buf_status(&src) < 0 || callus_buf_status(&dst) < 0 ||
	    (mkdir(dst.ptr, 0700) < 0 && errno != EEXIST) || !(d = opendir(src.ptr)))
		goto out;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		callus_buf_clear(&src);
		callus_buf_printf(&src, "%s/.callus/notes/%s", from, de->d_name);
		callus_buf_clear(&dst);
		callus_buf_printf(&dst, "%s/.callus/notes/%s", to, de->d_name);
		if (callus_buf_status(&src) < 0 || callus_buf_status(&dst) < 0 ||
		    copy_file(src.ptr, dst.ptr) != 0)
			goto out;
	}
	rc = 0;
out:
	if (d)
		closedir(d);
	callus_buf_release(&src);
	callus_buf_release(&dst);
	return rc;
}

static int copy_store(const char *from, const char *to)
{
	callus_buf src = CALLUS_BUF_INIT, dst = CALLUS_BUF_INIT;
	DIR *d = NULL;
	struct dirent *de;
	int rc = 3;

	callus_buf_printf(&src, "%s/.callus", from);
	if (callus_buf_status(&src) < 0)
		goto out;
	if (!(d = opendir(src.ptr))) {
		fprintf(stderr, "match_eval: cannot read %s: %s\n", src.ptr, strerror(errno));
		goto out;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (!strcmp(de->d_name, "notes")) {
			/* the notes go with their store: missing files are retired */
			if (copy_notes(from, to) != 0)
				goto out;
			continue;
		}
		callus_buf_clear(&src);
		callus_buf_printf(&src, "%s/.callus/%s", from, de->d_name);
		callus_buf_clear(&dst);
		callus_buf_printf(&dst, "%s/.callus/%s", to, de->d_name);
		if (callus_buf_status(&src) < 0 || callus_buf_status(&dst) < 0 ||
		    copy_file(src.ptr, dst.ptr) != 0)
			goto out;
	}
	rc = 0;
out:
	if (d)
		closedir(d);
	callus_buf_release(&src);
	callus_buf_release(&dst);
	return rc;
}

static const item *item_of(const eval *e, const char *sig_id)
{
	for (size_t i = 0; sig_id && i < e->n; i++)
		if (!strcmp(e->items[i].sig.id, sig_id))
			return &e->items[i];
	return NULL;
}

/* Right: a resolution made for a signature of h's group. */
static void score(const eval *e, size_t h, outcome *oc)
{
	for (size_t j = 0; e->items[h].mates && j < oc->n; j++) {
		const item *by = item_of(e, oc->g[j].signature_id);

		if (by && !strcmp(by->group, e->items[h].group)) {
			oc->first = j == 0;
			oc->top3 = 1;
			break;
		}
	}
}

/*
 * The reply an agent would get (cli_describe_failure's part for past
 * fixes: each suggestion's note, compact, in the hook's default budget):
 * right when it holds the right group's fix line itself.
 */
#define REPLY_BUDGET 1500

static void score_reply(const eval *e, callus_store *s, size_t h, outcome *oc)
{
	callus_buf reply = CALLUS_BUF_INIT, want = CALLUS_BUF_INIT;
	callus_note *notes = NULL;
	size_t nnotes = 0;

	/* as cli_describe_failure() shows them */
	if (callus_notes_for_suggestions(s, oc->g, oc->n, &notes, &nnotes) == 0)
		callus_notes_compact(&reply, notes, nnotes, NULL, 0, "  ", REPLY_BUDGET);
	oc->said = reply.len > 0;
	callus_buf_printf(&want, "  " FIX_LINE "%s\n", e->items[h].group);
	oc->lines = e->items[h].mates && reply.ptr && want.ptr && strstr(reply.ptr, want.ptr);
	callus_notes_free(notes, nnotes);
	callus_buf_release(&reply);
	callus_buf_release(&want);
}

/* Item h's suggestions under mo, scored as the answer and as the reply. */
static int ask(const eval *e, callus_store *s, const callus_match_opts *mo, size_t h,
	       outcome *oc, const char *what)
{
	callus_error err = CALLUS_ERROR_INIT;
	int rc = 0;

	if (callus_match_suggest(s, mo, &e->items[h].sig, TOP, &oc->g, &oc->n, &err) < 0)
		rc = failed(what, &err);
	else {
		score(e, h, oc);
		score_reply(e, s, h, oc);
	}
	callus_error_release(&err);
	return rc;
}

/*
 * Item h asked again, the search cut to the newest e->window vectors and
 * every signature with a note, as a recording's is in a store past
 * CALLUS_MATCH_WINDOW (match.h): every fix of the corpus has a note, so
 * the answer must be the one the whole search gave (oc), suggestion for
 * suggestion and in the reply; oc->differs says it was not.  Asked in the
 * same round, on the same store: the rounds' learning is their cost.  The
 * confidences within a millionth: they hold the fix's recency, which
 * counts from the clock, and a second ticking between the two questions
 * moves them all by a factor of 1 - 3e-7 (CALLUS_MATCH_HALF_LIFE_DAYS).
 */
static int ask_cut(eval *e, callus_store *s, const char *ws, size_t h, outcome *oc)
{
	callus_buf noted = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	callus_match_opts mo;
	outcome cut;
	int rc = 0;

	memset(&mo, 0, sizeof(mo));
	memset(&cut, 0, sizeof(cut));
	mo.workspace = ws;
	if (callus_notes_window(s, e->window, &mo, &noted, &err) < 0) {
		rc = failed("reading the noted vectors", &err);
		goto out;
	}
	if ((rc = ask(e, s, &mo, h, &cut, "suggesting, the search cut")) != 0)
		goto out;
	oc->differs = cut.n != oc->n || cut.first != oc->first || cut.top3 != oc->top3 ||
		      cut.lines != oc->lines || cut.said != oc->said;
	for (size_t j = 0; j < cut.n && !oc->differs; j++)
		oc->differs = cut.g[j].resolution_id != oc->g[j].resolution_id ||
			      strcmp(cut.g[j].signature_id, oc->g[j].signature_id) ||
			      fabs(cut.g[j].confidence - oc->g[j].confidence) >
				      1e-6 * fabs(oc->g[j].confidence);
out:
	callus_suggestions_free(cut.g, cut.n);
	callus_error_release(&err);
	callus_buf_release(&noted);
	return rc;
}

/*
 * The suggestions for item h from a store of every other item, made in
 * workspace ws (created here, removed before returning).  The runs before
 * h's are the same in every round that holds out an item of h's run or a
 * later one: prefix is a workspace where they are already learnt, copied
 * rather than learnt again.
 */
static int one_round(eval *e, const char *prefix, const char *ws, size_t h, outcome *oc)
{
	callus_buf path = CALLUS_BUF_INIT;
	callus_store *s = NULL;
	callus_error err = CALLUS_ERROR_INIT;
	callus_match_opts mo;
	int rc, made = 0;

	if ((rc = make_workspace(&path, ws, &made)) != 0 || (rc = copy_store(prefix, ws)) != 0 ||
	    (rc = open_store(&s, ws)) != 0)
		goto out;
	for (size_t r = e->items[h].run; r < e->nruns; r++)
		if ((rc = learn_run(e, s, ws, r, h)) != 0)
			goto out;
	memset(&mo, 0, sizeof(mo));
	mo.workspace = ws;
	if ((rc = ask(e, s, &mo, h, oc, "suggesting")) != 0)
		goto out;
	if (e->window && (rc = ask_cut(e, s, ws, h, oc)) != 0)
		goto out;
	/* how the wrong ones matched, for whoever tunes the matcher */
	if ((e->items[h].mates ? !oc->first : oc->n > 0) &&
	    callus_match_find(s, &mo, &e->items[h].sig, &oc->m, &oc->nm, &err) < 0)
		rc = failed("matching", &err);
out:
	callus_store_close(s);
	if (made && remove_tree(ws) < 0) {
		fprintf(stderr, "match_eval: cannot remove %s: %s\n", ws, strerror(errno));
		rc = 3;
	}
	callus_error_release(&err);
	callus_buf_release(&path);
	return rc;
}

/* Learn run r into the prefix workspace: every item of it. */
static int extend_prefix(eval *e, const char *prefix, size_t r)
{
	callus_store *s = NULL;
	int rc;

	if ((rc = open_store(&s, prefix)) == 0)
		rc = learn_run(e, s, prefix, r, e->n);
	callus_store_close(s);
	return rc;
}

/*
 * The rounds are independent once each has its prefix: worker w of nw
 * holds out the items of the runs r with r % nw == w (the later runs' rounds
 * are shorter: taking every nw-th run balances them), in workspaces of its
 * own under root, and writes each outcome to out (write_outcome).  Its
 * prefix still learns every run before its last one.
 */
static void write_outcome(FILE *out, size_t h, const outcome *oc)
{
	fprintf(out, "O %zu %d %d %d %d %d %zu %zu\n", h, oc->first, oc->top3, oc->lines, oc->said,
		oc->differs, oc->n, oc->nm);
	for (size_t j = 0; j < oc->n; j++)
		fprintf(out, "S %a %s\n", oc->g[j].confidence, oc->g[j].signature_id);
	for (size_t j = 0; j < oc->nm; j++)
		fprintf(out, "M %d %a %a %s\n", (int)oc->m[j].how, oc->m[j].similarity,
			oc->m[j].context_score, oc->m[j].signature_id);
}

/* Each item of run r held out in turn, its outcome written to out. */
static int hold_out_run(eval *e, const char *prefix, const char *ws, size_t r, FILE *out)
{
	int rc = 0;

	for (size_t h = 0; h < e->n && rc == 0; h++) {
		outcome oc;

		if (e->items[h].run != r || !asked(e, h))
			continue;
		memset(&oc, 0, sizeof(oc));
		if ((rc = one_round(e, prefix, ws, h, &oc)) == 0)
			write_outcome(out, h, &oc);
		callus_suggestions_free(oc.g, oc.n);
		callus_matches_free(oc.m, oc.nm);
	}
	return rc;
}

static int work(eval *e, const char *root, size_t w, size_t nw, FILE *out)
{
	callus_buf prefix = CALLUS_BUF_INIT, ws = CALLUS_BUF_INIT, scratch = CALLUS_BUF_INIT;
	callus_store *s = NULL;
	size_t last = 0;
	int made = 0, rc = 3;

	for (size_t r = w; r < e->nruns; r += nw)
		last = r;
	callus_buf_printf(&prefix, "%s/prefix-%zu", root, w);
	callus_buf_printf(&ws, "%s/round-%zu", root, w);
	/* the prefix: an empty store, its schema made once */
	if (callus_buf_status(&prefix) < 0 || callus_buf_status(&ws) < 0 ||
	    make_workspace(&scratch, prefix.ptr, &made) != 0 || open_store(&s, prefix.ptr) != 0)
		goto out;
	callus_store_close(s);
	for (size_t r = 0; r <= last && r < e->nruns; r++) {
		if (r % nw == w && (rc = hold_out_run(e, prefix.ptr, ws.ptr, r, out)) != 0)
			goto out;
		rc = 3;
		if (r < last && extend_prefix(e, prefix.ptr, r) != 0)
			goto out;
	}
	rc = fflush(out) == 0 && !ferror(out) ? 0 : 3;
out:
	callus_buf_release(&prefix);
	callus_buf_release(&ws);
	callus_buf_release(&scratch);
	return rc;
}

/* What a worker wrote, into oc.  0, or 3 on a malformed file or an item
 * read twice. */
static int read_outcomes(const eval *e, FILE *in, outcome *oc)
{
	char id[80];
	size_t h, n, nm;
	int first, top3, lines, said, differs, how;

	while (fscanf(in, " O %zu %d %d %d %d %d %zu %zu", &h, &first, &top3, &lines, &said,
		      &differs, &n, &nm) == 8) {
		/* one_round asks for TOP suggestions, and callus_match_find
		 * gives at most CALLUS_MATCH_K matches */
		if (h >= e->n || !asked(e, h) || oc[h].done || n > TOP || nm > CALLUS_MATCH_K)
			return 3;
		oc[h].done = 1;
		oc[h].first = first;
		oc[h].top3 = top3;
		oc[h].lines = lines;
		oc[h].said = said;
		oc[h].differs = differs;
		if ((n && !(oc[h].g = calloc(n, sizeof(*oc[h].g)))) ||
		    (nm && !(oc[h].m = calloc(nm, sizeof(*oc[h].m)))))
			return 3;
		for (; oc[h].n < n; oc[h].n++) {
			callus_suggestion *g = &oc[h].g[oc[h].n];

			if (fscanf(in, " S %la %79s", &g->confidence, id) != 2 ||
			    !(g->signature_id = strdup(id)))
				return 3;
		}
		for (; oc[h].nm < nm; oc[h].nm++) {
			callus_match *m = &oc[h].m[oc[h].nm];

			if (fscanf(in, " M %d %la %la %79s", &how, &m->similarity, &m->context_score,
				   id) != 4 ||
			    !(m->signature_id = strdup(id)))
				return 3;
			m->how = (callus_match_how)how;
		}
	}
	return feof(in) ? 0 : 3;
}

/* The number in the environment variable name, from 1 to max; dflt when
 * it is unset or empty, 0 when it is something else. */
static size_t env_count(const char *name, size_t dflt, size_t max)
{
	const char *v = getenv(name);
	char *end = NULL;
	long n;

	if (!v || !*v)
		return dflt;
	n = strtol(v, &end, 10);
	return *end || n < 1 || (unsigned long)n > max ? 0 : (size_t)n;
}

/* Worker processes by default: one a processor online, at most 8. */
static size_t processors(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 8 ? 8 : (size_t)n;
}

/* The rounds over nw worker processes; every item's outcome in oc.  0 or
 * 3; in a worker, -1 and *wrc its exit status: the caller releases what it
 * holds and exits with it (so that a sanitizer's leak check sees the
 * worker's heap as the program's, not as lost). */
static int rounds(eval *e, const char *root, size_t nw, outcome *oc, int *wrc)
{
	FILE **files = calloc(nw, sizeof(*files));
	pid_t *pids = calloc(nw, sizeof(*pids));
	int rc = 3, status;

	if (!files || !pids)
		goto out;
	fflush(stdout);
	fflush(stderr);
	for (size_t w = 0; w < nw; w++) {
		if (!(files[w] = tmpfile()))
			goto out;
		if ((pids[w] = fork()) < 0) {
			fprintf(stderr, "match_eval: fork: %s\n", strerror(errno));
			goto out;
		}
		if (pids[w] == 0) {
			*wrc = work(e, root, w, nw, files[w]);
			/* the parent's files before ours are open here too,
			 * with nothing buffered */
			for (size_t i = 0; i <= w; i++)
				if (fclose(files[i]) != 0 && i == w)
					*wrc = 3;
			free(files);
			free(pids);
			return -1;
		}
	}
	rc = 0;
	for (size_t w = 0; w < nw; w++) {
		if (waitpid(pids[w], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0) {
			fprintf(stderr, "match_eval: worker %zu failed\n", w);
			rc = 3;
		}
		pids[w] = 0;
	}
	for (size_t w = 0; rc == 0 && w < nw; w++) {
		rewind(files[w]);
		rc = read_outcomes(e, files[w], oc);
	}
	for (size_t h = 0; rc == 0 && h < e->n; h++)
		if (asked(e, h) && !oc[h].done) {
			fprintf(stderr, "match_eval: no worker held out item %zu\n", h);
			rc = 3;
		}
out:
	for (size_t w = 0; pids && w < nw; w++)
		if (pids[w] > 0)
			waitpid(pids[w], &status, 0);
	for (size_t w = 0; files && w < nw; w++)
		if (files[w])
			fclose(files[w]);
	free(files);
	free(pids);
	return rc;
}

/* A message in a code span, on one line, cut at MESSAGE_MAX bytes (on a
 * UTF-8 boundary). */
static void show_message(const char *msg)
{
	size_t len = strlen(msg), cut = len > MESSAGE_MAX ? MESSAGE_MAX : len;
	const char *fence = strchr(msg, '`') ? "``" : "`";

	while (cut < len && cut > 0 && ((unsigned char)msg[cut] & 0xc0) == 0x80)
		cut--;
	printf("%s%s", fence, fence[1] ? " " : "");
	for (size_t i = 0; i < cut; i++)
		putchar(msg[i] == '\n' || msg[i] == '\r' || msg[i] == '\t' ? ' ' : msg[i]);
	printf("%s%s%s", cut < len ? "..." : "", fence[1] ? " " : "", fence);
}

static void show_item(const item *it)
{
	printf("`%s` [%s] `%s`: ", it->case_id, it->sig.tool, it->group);
	show_message(it->sig.original);
}

/* How the signature of a suggestion matched. */
static void show_how(const outcome *oc, const char *sig_id)
{
	for (size_t i = 0; i < oc->nm; i++) {
		const callus_match *m = &oc->m[i];

		if (strcmp(m->signature_id, sig_id))
			continue;
		printf(" (%s, similarity %.3f, context %.3f)",
		       m->how == CALLUS_MATCH_REGEX ? "regex fallback"
		       : m->how == CALLUS_MATCH_SAME ? "same id" : "vector",
		       m->similarity, m->context_score);
		return;
	}
	printf(" (through a duplicate link)");
}

static void show_miss(const eval *e, size_t h, const outcome *oc)
{
	const item *it = &e->items[h];
	size_t shown = 0;

	printf("- ");
	show_item(it);
	printf("\n");
	for (size_t i = 0; i < e->n && shown < 3; i++) {
		if (i == h || strcmp(e->items[i].group, it->group))
			continue;
		printf("  - group-mate: ");
		show_item(&e->items[i]);
		printf("\n");
		shown++;
	}
	if (!oc->n)
		printf("  - nothing suggested\n");
	for (size_t j = 0; j < oc->n; j++) {
		const item *by = item_of(e, oc->g[j].signature_id);

		printf("  - suggested %zu, confidence %.3f: ", j + 1, oc->g[j].confidence);
		if (by)
			show_item(by);
		else
			printf("signature %.12s (not in the dump)", oc->g[j].signature_id);
		printf("%s", by && !strcmp(by->group, it->group) ? " (right)" : "");
		show_how(oc, oc->g[j].signature_id);
		printf("\n");
	}
}

static double pct(size_t k, size_t n)
{
	return n ? 100.0 * (double)k / (double)n : 100.0;
}

/* k/n >= bar percent, in integers so that 90.0% is not lost to rounding */
static int holds(size_t k, size_t n, int bar)
{
	return !n || k * 100 >= (size_t)bar * n;
}

int main(int argc, char **argv)
{
	eval e;
	outcome *oc = NULL;
	char *root = NULL;
	callus_buf ws = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	const char *tmpdir = getenv("TMPDIR");
	size_t with_mate = 0, first = 0, top3 = 0, alone = 0, quiet = 0, groups = 0, lines = 0;
	size_t silent = 0, nw, nasked = 0, differ = 0;
	size_t h_mate = 0, h_first = 0, h_top3 = 0, h_alone = 0, h_quiet = 0;
	struct timespec t0, t1;
	int verbose = 0, worker = 0, r, rc = 3;

	memset(&e, 0, sizeof(e));
	for (int a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "-v"))
			verbose = 1;
		else
			argc = 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: match_eval SIGNATURES.json [-v]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((rc = load(&e, argv[1])) != 0)
		goto out;
	rc = 3;
	if (callus_redactor_new(&e.red, &err) < 0) {
		rc = failed("redactor", &err);
		goto out;
	}
	if (!(oc = calloc(e.n, sizeof(*oc))))
		goto out;
	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	callus_buf_printf(&ws, "%s/callus-match-eval.XXXXXX", tmpdir);
	if (callus_buf_status(&ws) < 0 || !(root = callus_buf_detach(&ws)))
		goto out;
	if (!mkdtemp(root)) {
		fprintf(stderr, "match_eval: cannot create %s: %s\n", root, strerror(errno));
		free(root);
		root = NULL;
		goto out;
	}
	if (!(e.every = env_count("MATCH_EVAL_EVERY", 1, 1000))) {
		fprintf(stderr, "match_eval: MATCH_EVAL_EVERY must be 1 to 1000, not '%s'\n",
			getenv("MATCH_EVAL_EVERY"));
		rc = 2;
		goto out;
	}
	if (getenv("MATCH_EVAL_WINDOW") && *getenv("MATCH_EVAL_WINDOW") &&
	    !(e.window = env_count("MATCH_EVAL_WINDOW", 0, 1000000))) {
		fprintf(stderr, "match_eval: MATCH_EVAL_WINDOW must be 1 to 1000000, not '%s'\n",
			getenv("MATCH_EVAL_WINDOW"));
		rc = 2;
		goto out;
	}
	if (!(nw = env_count("MATCH_EVAL_JOBS", processors(), 8))) {
		fprintf(stderr, "match_eval: MATCH_EVAL_JOBS must be 1 to 8, not '%s'\n",
			getenv("MATCH_EVAL_JOBS"));
		rc = 2;
		goto out;
	}
	if ((r = rounds(&e, root, nw, oc, &rc)) < 0) {
		worker = 1; /* rc: the worker's status */
		goto out;
	}
	if ((rc = r) != 0)
		goto out;
	rc = 3;
	for (size_t h = 0; h < e.n; h++) {
		if (!asked(&e, h))
			continue;
		nasked++;
		differ += (size_t)oc[h].differs;
		if (e.items[h].mates) {
			with_mate++;
			first += (size_t)oc[h].first;
			top3 += (size_t)oc[h].top3;
			lines += (size_t)oc[h].lines;
			h_mate += (size_t)e.items[h].heldout;
			h_first += (size_t)(e.items[h].heldout && oc[h].first);
			h_top3 += (size_t)(e.items[h].heldout && oc[h].top3);
		} else {
			alone++;
			quiet += oc[h].n == 0;
			silent += !oc[h].said;
			h_alone += (size_t)e.items[h].heldout;
			h_quiet += (size_t)(e.items[h].heldout && oc[h].n == 0);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	for (size_t i = 0; i < e.n; i++) {
		int seen = 0;

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(e.items[k].group, e.items[i].group);
		groups += !seen;
	}
	printf("Signatures: %zu (distinct ids) from %zu cases, in %zu groups; %zu stores of %zu "
	       "signatures each.\n\n", e.n, e.nruns, groups, nasked, e.n - 1);
	if (e.every > 1)
		printf("A sample: one signature in %zu held out (MATCH_EVAL_EVERY), %zu of %zu.\n\n",
		       e.every, nasked, e.n);
	printf("| cases with a group-mate | first | first %% | top 3 | top 3 %% |\n");
	printf("| ---: | ---: | ---: | ---: | ---: |\n");
	printf("| %zu | %zu | %.1f%% | %zu | %.1f%% |\n\n", with_mate, first, pct(first, with_mate),
	       top3, pct(top3, with_mate));
	printf("| cases with no group-mate | nothing suggested | %% |\n");
	printf("| ---: | ---: | ---: |\n");
	printf("| %zu | %zu | %.1f%% |\n\n", alone, quiet, pct(quiet, alone));
	printf("What the agent is shown (each suggestion's note, compact, within %d bytes):\n\n",
	       REPLY_BUDGET);
	printf("| measure | cases | holds | %% |\n");
	printf("| --- | ---: | ---: | ---: |\n");
	printf("| with a group-mate: the reply holds the right fix's own lines | %zu | %zu | %.1f%% |\n",
	       with_mate, lines, pct(lines, with_mate));
	printf("| no group-mate: the reply says nothing of past fixes | %zu | %zu | %.1f%% |\n\n",
	       alone, silent, pct(silent, alone));
	printf("| bar | value | holds |\n");
	printf("| --- | ---: | :---: |\n");
	printf("| with a group-mate: a right resolution first >= %d%% | %.1f%% | %s |\n", BAR_FIRST,
	       pct(first, with_mate), holds(first, with_mate, BAR_FIRST) ? "yes" : "**no**");
	printf("| with a group-mate: a right resolution in the top 3 >= %d%% | %.1f%% | %s |\n",
	       BAR_TOP3, pct(top3, with_mate), holds(top3, with_mate, BAR_TOP3) ? "yes" : "**no**");
	printf("| no group-mate: nothing suggested >= %d%% | %.1f%% | %s |\n", BAR_QUIET,
	       pct(quiet, alone), holds(quiet, alone, BAR_QUIET) ? "yes" : "**no**");
	printf("| with a group-mate: the reply holds the right fix's lines >= %d%% | %.1f%% | %s |\n",
	       BAR_FIRST, pct(lines, with_mate), holds(lines, with_mate, BAR_FIRST) ? "yes" : "**no**");
	printf("| no group-mate: the reply says nothing of past fixes >= %d%% | %.1f%% | %s |\n",
	       BAR_QUIET, pct(silent, alone), holds(silent, alone, BAR_QUIET) ? "yes" : "**no**");
	/* the same, for the signatures only held-out cases have: no threshold
	 * or parser was tuned on them (tests/corpus/README.md) */
	printf("\nHeld-out signatures (every error with the signature is in a held-out case): "
	       "%zu of %zu.\n\n", h_mate + h_alone, nasked);
	printf("| held-out signatures | n | right first | %% | right in the top 3 | %% |\n");
	printf("| --- | ---: | ---: | ---: | ---: | ---: |\n");
	printf("| with a group-mate | %zu | %zu | %.1f%% | %zu | %.1f%% |\n", h_mate, h_first,
	       pct(h_first, h_mate), h_top3, pct(h_top3, h_mate));
	printf("| no group-mate, nothing suggested | %zu | %zu | %.1f%% | | |\n", h_alone, h_quiet,
	       pct(h_quiet, h_alone));
	printf("\n| bar (held-out signatures) | value | holds |\n");
	printf("| --- | ---: | :---: |\n");
	printf("| held-out, with a group-mate: a right resolution first >= %d%% | %.1f%% | %s |\n",
	       BAR_FIRST, pct(h_first, h_mate),
	       holds(h_first, h_mate, BAR_FIRST) ? "yes" : "**no**");
	printf("| held-out, no group-mate: nothing suggested >= %d%% | %.1f%% | %s |\n", BAR_QUIET,
	       pct(h_quiet, h_alone), holds(h_quiet, h_alone, BAR_QUIET) ? "yes" : "**no**");

	if (e.window) {
		printf("\nEach round asked again with the search cut to the newest %zu vectors and "
		       "every signature with a note (MATCH_EVAL_WINDOW), as a recording's is in a "
		       "store of more than %d: every fix here has a note, so the answer must be "
		       "the same, suggestion for suggestion and in the reply.\n\n",
		       e.window, CALLUS_MATCH_WINDOW);
		printf("| bar (the search cut) | value | holds |\n");
		printf("| --- | ---: | :---: |\n");
		printf("| cut to the newest %zu and the noted: the same answer = 100%% | %.1f%% | %s |\n",
		       e.window, pct(nasked - differ, nasked), differ ? "**no**" : "yes");
	}

	if (verbose && differ) {
		printf("\n### Answered differently with the search cut\n\n");
		for (size_t h = 0; h < e.n; h++) {
			if (!asked(&e, h) || !oc[h].differs)
				continue;
			printf("- ");
			show_item(&e.items[h]);
			printf("\n");
		}
	}
	if (verbose) {
		size_t misses = 0;

		printf("\n### Misses\n\n");
		for (size_t h = 0; h < e.n; h++) {
			if (!asked(&e, h) || (e.items[h].mates ? oc[h].first : !oc[h].n))
				continue;
			show_miss(&e, h, &oc[h]);
			misses++;
		}
		if (!misses)
			printf("None.\n");
	}
	fprintf(stderr, "match_eval: %zu rounds in %.1f s\n", nasked,
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	rc = 0;
	if (!holds(first, with_mate, BAR_FIRST) || !holds(top3, with_mate, BAR_TOP3) ||
	    !holds(quiet, alone, BAR_QUIET) || !holds(lines, with_mate, BAR_FIRST) ||
	    !holds(silent, alone, BAR_QUIET) || !holds(h_first, h_mate, BAR_FIRST) ||
	    !holds(h_quiet, h_alone, BAR_QUIET))
		rc = 1;
	/* not a figure to tune but a defect of the cut search: never waived */
	if (differ)
		rc = 4;
out:
	/* a worker leaves the workspaces to the parent */
	if (root && !worker && remove_tree(root) < 0) {
		fprintf(stderr, "match_eval: cannot remove %s: %s\n", root, strerror(errno));
		rc = 3;
	}
	free(root);
	for (size_t i = 0; oc && i < e.n; i++) {
		callus_suggestions_free(oc[i].g, oc[i].n);
		callus_matches_free(oc[i].m, oc[i].nm);
	}
	free(oc);
	for (size_t i = 0; e.items && i < e.n; i++) {
		callus_signature_release(&e.items[i].sig);
		free(e.items[i].group);
		free(e.items[i].case_id);
	}
	free(e.items);
	free(e.runs);
	free(e.sigs);
	free(e.errs);
	callus_redactor_free(e.red);
	callus_buf_release(&ws);
	callus_error_release(&err);
	return rc;
}

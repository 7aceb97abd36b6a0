#include "callus/record.h"
#include "callus/migrate.h"
#include "callus/views.h"
#include "callus/workspace.h"
#include "callus/buf.h"
#include "callus/fsutil.h"
#include "callus/gc.h"
#include "callus/hash.h"
#include "callus/lessonmd.h"
#include "callus/log.h"
#include "callus/match.h"
#include "callus/metrics.h"
#include "callus/redact.h"
#include "callus/utf8.h"
#include "callus/signature.h"
#include "callus/store.h"

#include "notes_internal.h"
#include "store_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * What git may see of .callus/: only the notes, which a team commits.  The
 * store, its WAL, the log, locks, caches and snapshots are this clone's:
 * `git add .callus` can only ever add notes.
 */
#define CALLUS_DIR_GITIGNORE                                                     \
	"# Written by callus: only notes/ is meant to be committed.\n"         \
	"*\n"                                                                   \
	"!.gitignore\n"                                                         \
	"!notes/\n"                                                             \
	"!notes/*.md\n"

/* .lessons/ holds one raw record per failure, this clone's: the knowledge
 * worth sharing is in the notes. */
#define LESSONS_DIR_GITIGNORE "# Written by callus: raw failure records, not committed.\n*\n"
/* The store's pages a recording keeps read (SQLite's default: 500).  A
 * recording reads most pages once: at 100,000 recordings a failing hook
 * read some 350 (the regular expressions' candidates, the document
 * frequencies' buckets) and kept every one, memory faulted in for nothing;
 * kept to 64, it reads four pages again of its 596 reads and its page
 * faults go 564 -> 370 (bench/spaced.sh; docs/scale-history.md, the twenty-fourth
 * pass).  Not for the store's bulk commands: `callus reindex` took twice
 * as long with it (bench/commands.sh). */
#define RECORD_CACHE_PAGES 64

/* Write dir/.gitignore when it is missing (a person's own is left alone);
 * failing to is no reason to stop a recording. */
static void ignore_private(const char *dir, const char *text)
{
	callus_buf path = CALLUS_BUF_INIT;
	struct stat st;

	if (callus_buf_printf(&path, "%s/.gitignore", dir) == 0 && lstat(path.ptr, &st) < 0 &&
	    errno == ENOENT)
		callus_fs_write_atomic(path.ptr, text, strlen(text), 0666, CALLUS_FS_UMASK, NULL);
	callus_buf_release(&path);
}

int callus_record_dir(char **out, const char *workspace, callus_error *err)
{
	callus_buf dir = CALLUS_BUF_INIT;
	int rc;

	*out = NULL;
	if (callus_buf_printf(&dir, "%s/.callus", workspace) < 0)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if ((rc = callus_workspace_guard(NULL, workspace, ".callus", CALLUS_WS_PRIVATE, err)) < 0 ||
	    (rc = callus_fs_mkdir_p(dir.ptr, 0700, err)) < 0) {
		callus_buf_release(&dir);
		return rc;
	}
	ignore_private(dir.ptr, CALLUS_DIR_GITIGNORE);
	*out = callus_buf_detach(&dir);
	return 0;
}

/* A summary can grow by redaction: cut it back to the limit on a UTF-8
 * boundary. */
static void clamp_summary(char *s)
{
	if (s)
		s[callus_utf8_cut(s, strlen(s), CALLUS_SUMMARY_MAX)] = '\0';
}

static int redact_lesson(callus_lesson *l, const callus_redactor *r)
{
	char **fields[] = { &l->error_summary, &l->cause, &l->resolution, &l->corrective_rule,
			    &l->command, &l->file, &l->tool, &l->intent_id };
	int rc = 0;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]) && rc == 0; i++)
		rc = callus_redact_in_place(r, fields[i]);
	for (size_t i = 0; i < l->affected_count && rc == 0; i++)
		rc = callus_redact_in_place(r, &l->affected_files[i]);
	if (rc < 0)
		return rc;
	clamp_summary(l->error_summary);
	return 0;
}

int callus_lesson_from_failure(callus_lesson *out, const callus_failure *f,
			     const callus_record_opts *opts, callus_error *err)
{
	memset(out, 0, sizeof(*out));
	out->type = f->category;
	out->exit_code = f->exit_code;
	if (!(out->file = strdup(callus_failure_primary_file(f))) ||
	    !(out->error_summary = strdup(f->summary ? f->summary : "")) ||
	    !(out->tool = strdup(f->tool ? f->tool : "")) ||
	    !(out->command = strdup(f->command ? f->command : "")) ||
	    !(out->intent_id = strdup(opts->intent_id ? opts->intent_id : "")) ||
	    !(out->cause = strdup("")) || !(out->resolution = strdup("")) ||
	    !(out->corrective_rule = strdup("")))
		goto oom;
	if (f->files.count) {
		if (!(out->affected_files = calloc(f->files.count, sizeof(char *))))
			goto oom;
		for (size_t i = 0; i < f->files.count; i++) {
			if (!(out->affected_files[i] = strdup(f->files.items[i])))
				goto oom;
			out->affected_count++;
		}
	}
	/* redaction and the final signature happen in callus_record_lesson() */
	if (callus_lesson_sign(out) < 0)
		goto oom;
	return 0;
oom:
	callus_lesson_release(out);
	return callus_error_set(err, CALLUS_ENOMEM, "out of memory while building the lesson");
}

static int redact_diags(callus_diags *out, const callus_diags *in, const callus_redactor *r)
{
	if (!in || !in->count)
		return 0;
	if (!(out->items = calloc(in->count, sizeof(callus_diag))))
		return CALLUS_ENOMEM;
	out->alloc = in->count;
	out->dropped = in->dropped;
	for (size_t i = 0; i < in->count; i++) {
		const callus_diag *s = &in->items[i];
		callus_diag *d = &out->items[i];

		out->count++;
		d->line = s->line;
		d->column = s->column;
		d->vague = s->vague;
		/* a path and a code are the tool's words too: a token in a
		 * folder's name, a message's bracketed id */
		if ((s->file && callus_redact_str(r, &d->file, s->file) < 0) ||
		    (s->code && callus_redact_str(r, &d->code, s->code) < 0) ||
		    (s->severity && !(d->severity = strdup(s->severity))) ||
		    callus_redact_str(r, &d->message, s->message ? s->message : "") < 0 ||
		    (s->test && callus_redact_str(r, &d->test, s->test) < 0))
			return CALLUS_ENOMEM;
		/* the frames are part of the signature (its stack patterns and
		 * its id): without them a stored error would sign differently
		 * from the same error analysed */
		for (size_t j = 0; j < s->frames.count; j++) {
			char *f = NULL;

			if (callus_redact_str(r, &f, s->frames.items[j]) < 0 ||
			    callus_strlist_add(&d->frames, f, strlen(f)) < 0) {
				free(f);
				return CALLUS_ENOMEM;
			}
			free(f);
		}
	}
	return 0;
}

int callus_record_signatures(callus_signature **out, size_t *count, const callus_failure *f,
			   const callus_redactor *r, const callus_pathctx *pc, callus_error *err)
{
	callus_diags red = CALLUS_DIAGS_INIT;
	char *tool = NULL;
	int rc;

	*out = NULL;
	*count = 0;
	/* the tool as callus_record_lesson() stores it: redacted (with a
	 * generic parser, the framework is the check's tool, the words a
	 * pattern's * took) */
	if ((rc = redact_diags(&red, &f->diags, r)) < 0 ||
	    (rc = callus_redact_str(r, &tool, callus_failure_framework(f))) < 0 ||
	    (rc = callus_signatures_for(out, count, &red, &f->files, tool, pc)) < 0)
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory while signing errors");
	callus_diags_release(&red);
	free(tool);
	return rc;
}

int callus_record_redact_failure(callus_failure *f, const callus_redactor *r, callus_error *err)
{
	callus_diags red = CALLUS_DIAGS_INIT;
	callus_strlist files = CALLUS_STRLIST_INIT;
	int rc;

	if ((rc = redact_diags(&red, &f->diags, r)) < 0)
		goto out;
	callus_diags_release(&f->diags);
	f->diags = red;
	red = (callus_diags)CALLUS_DIAGS_INIT;
	if ((rc = callus_redact_in_place(r, &f->summary)) < 0 ||
	    (rc = callus_redact_in_place(r, &f->command)) < 0 ||
	    (rc = callus_redact_in_place(r, &f->tool)) < 0)
		goto out;
	/* a list made anew, not its items replaced: they may be its blocks'
	 * (callus_strlist_pool) */
	if ((rc = callus_strlist_pool(&files)) < 0)
		goto out;
	for (size_t i = 0; i < f->files.count && rc == 0; i++) {
		char *v = NULL;

		if ((rc = callus_redact_str(r, &v, f->files.items[i])) == 0)
			rc = callus_strlist_add(&files, v, strlen(v));
		free(v);
	}
	if (rc < 0)
		goto out;
	callus_strlist_release(&f->files);
	f->files = files;
	files = (callus_strlist)CALLUS_STRLIST_INIT;
	clamp_summary(f->summary);
out:
	callus_diags_release(&red);
	callus_strlist_release(&files);
	return rc < 0 ? callus_error_set(err, rc, "out of memory while redacting") : 0;
}

/* A relative path that stays inside the workspace. */
int callus_record_lessons_file_ok(const char *p)
{
	static const char *const owned[] = { ".git", ".callus", ".lessons", ("." CALLUS_MIGRATE_OLD_NAME) };
	const char *s = p, *first;
	size_t n;

	if (!p || !*p || *p == '/')
		return 0;
	while (*s) {
		if (s[0] == '.' && s[1] == '.' && (s[2] == '/' || !s[2]) &&
		    (s == p || s[-1] == '/'))
			return 0;
		s++;
	}
	/* the first folder it names, past "./" and empty levels: not git's,
	 * nor callus's own (its store, its pages) */
	for (first = p; *first == '/' || (first[0] == '.' && first[1] == '/');)
		first += *first == '/' ? 1 : 2;
	n = strcspn(first, "/");
	for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
		if (strlen(owned[i]) == n && !strncmp(first, owned[i], n) && first[n] == '/')
			return 0;
	return 1;
}

static size_t len0(const char *s)
{
	return s ? strlen(s) : 0;
}

/* What spec 004 counts at a capture.  The size is the stored record's
 * text until the error signatures have a size of their own. */
static void capture_metrics(callus_metrics *m, const callus_lesson *l)
{
	const char *const labels[] = { callus_lesson_type_name(l->type), "project" };
	size_t size = len0(l->signature) + len0(l->file) + len0(l->error_summary) +
		      len0(l->cause) + len0(l->resolution) + len0(l->corrective_rule) +
		      len0(l->intent_id) + len0(l->tool) + len0(l->command);

	for (size_t i = 0; i < l->affected_count; i++)
		size += len0(l->affected_files[i]);
	callus_metrics_add(m, CALLUS_METRIC_CAPTURE_TOTAL, labels, 1);
	callus_metrics_observe(m, CALLUS_METRIC_CAPTURE_SIGNATURE_SIZE, NULL, (double)size);
}

int callus_record_metrics(const char *workspace, callus_metrics *m, int timeout_ms, int spool_only,
			callus_error *err)
{
	callus_buf dir = CALLUS_BUF_INIT, path = CALLUS_BUF_INIT;
	callus_store *store = NULL;
	struct stat st;
	int rc = 0;

	if (callus_metrics_is_empty(m))
		return 0;
	callus_buf_printf(&dir, "%s/.callus", workspace);
	callus_buf_printf(&path, "%s/callus.db", dir.ptr);
	if (callus_buf_status(&dir) < 0 || callus_buf_status(&path) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	/* metrics describe what the store holds: without one, nothing */
	if (stat(path.ptr, &st) < 0 && errno == ENOENT)
		goto out;
	if (spool_only) {
		if (callus_metrics_spool_put(m, dir.ptr) < 0)
			rc = callus_error_set(err, CALLUS_EIO, "cannot write '%s/%s'", dir.ptr,
					    CALLUS_METRICS_SPOOL);
		goto out;
	}
	if ((rc = callus_store_open(&store, path.ptr, timeout_ms > 0 ? timeout_ms : 10000, err)) < 0) {
		callus_metrics_spool_put(m, dir.ptr);
		goto out;
	}
	/* the spool taken with them, once the lock is held (what it held goes
	 * back on failure); m's own go to it then */
	if ((rc = callus_store_flush_metrics_spool(store, m, dir.ptr, err)) < 0)
		callus_metrics_spool_put(m, dir.ptr);
out:
	callus_metrics_clear(m);
	callus_store_close(store);
	callus_buf_release(&dir);
	callus_buf_release(&path);
	return rc;
}

void callus_record_result_release(callus_record_result *r)
{
	if (!r)
		return;
	callus_lessons_free(r->related, r->nrelated);
	callus_learn_result_release(&r->learnt);
	free(r->learn_error);
	free(r->index_error);
	free(r->views_error);
	free(r->views_refused);
	callus_notes_free(r->notes, r->nnotes);
	memset(r, 0, sizeof(*r));
}

/* The run's errors for learn.c: each signature with the files its
 * (redacted) diagnostics name, and the message of the first to name one.
 * sigs[0..nsigs) are distinct, as callus_signatures_for() lists them. */
static int learn_errors(callus_learn_error **out, callus_strlist **files, const callus_signature *sigs,
			size_t nsigs, const callus_diags *diags)
{
	callus_strlist ids = CALLUS_STRLIST_INIT;
	int rc = CALLUS_ENOMEM;
	size_t i;

	*out = NULL;
	*files = NULL;
	if (!nsigs)
		return 0;
	if (!(*out = calloc(nsigs, sizeof(**out))) || !(*files = calloc(nsigs, sizeof(**files))))
		return CALLUS_ENOMEM;
	/* each diagnostic's signature found by its id: compared with every
	 * signature, a thousand diagnostics of 335 signatures were 335,000
	 * comparisons (the seventy-third pass) */
	(void)callus_strlist_index(&ids);
	for (i = 0; i < nsigs; i++) {
		(*out)[i].sig = &sigs[i];
		(*out)[i].files = &(*files)[i];
		/* an error in many files: its list looked up by hash too */
		(void)callus_strlist_index(&(*files)[i]);
		if (callus_strlist_add(&ids, sigs[i].id, strlen(sigs[i].id)) < 0)
			goto out;
	}
	for (size_t j = 0; diags && j < diags->count; j++) {
		const callus_diag *d = &diags->items[j];

		if (!d->file || !d->signature ||
		    !callus_strlist_find(&ids, d->signature, strlen(d->signature), &i))
			continue;
		if (!(*out)[i].message)
			(*out)[i].message = d->message;
		if (callus_strlist_add_unique(&(*files)[i], d->file, strlen(d->file), NULL) < 0)
			goto out;
	}
	rc = 0;
out:
	callus_strlist_release(&ids);
	return rc;
}

/*
 * Learning from the failed run, in the lesson's store session.  Started
 * before the lesson is written, so that the snapshot helper (most of a new
 * error's learning) works while this process records; finished after.  A
 * failure here leaves the lesson stored: it is reported in
 * res->learn_error.
 */
typedef struct record_learning {
	callus_learn_opts lo;          /* borrowed by started until the finish */
	callus_learn_error *errs;
	callus_strlist *files;         /* errs' files, one list each */
	size_t nerrs;
	callus_learn_started *started; /* NULL: not started (err says why) */
	callus_error err;
} record_learning;

static void learning_start(record_learning *rl, callus_store *store, const callus_record_opts *opts,
			   const callus_lesson *l, const char *session, const callus_signature *sigs,
			   size_t nsigs, const callus_diags *red, callus_metrics *m)
{
	rl->lo = *opts->learn;
	rl->lo.command = l->command; /* the redacted one */
	rl->lo.metrics = m;
	rl->lo.session = session;
	rl->lo.scans = NULL;         /* made meanwhile: set at the finish */
	rl->lo.origin = opts->origin; /* its run owes it (store.h) */
	if (!rl->lo.redactor)
		rl->lo.redactor = opts->redactor;
	rl->nerrs = nsigs;
	if (learn_errors(&rl->errs, &rl->files, sigs, nsigs, red) < 0)
		callus_error_set(&rl->err, CALLUS_ENOMEM, "out of memory");
	else
		callus_learn_failure_start(&rl->started, store, &rl->lo, rl->errs, nsigs, &rl->err);
}

static void learning_finish(record_learning *rl, callus_match_scans *scans,
			    callus_record_result *res)
{
	rl->lo.scans = scans;
	if (rl->started)
		callus_learn_failure_finish(rl->started, &res->learnt, &rl->err);
	rl->started = NULL;
	if (rl->err.code && !res->learn_error)
		res->learn_error = strdup(callus_error_message(&rl->err));
	res->learn_owed = rl->err.code == CALLUS_EBUSY;
}

/* A failure an earlier delivery stored, and whose learning it did not
 * commit: learnt as that delivery would have (its signatures' vectors are
 * the next recording's to add), and the instructions block written again
 * (what it fixed or noted shows there).  Its error, if any, is res's, as
 * the learning's always is; the recording stays CALLUS_EEXIST.  -1 when
 * the block could not be written (still owed), else 0. */
static int learn_owed(record_learning *rl, callus_store *store, const callus_record_opts *opts,
		      const char *agents, callus_record_result *res, callus_metrics *m)
{
	callus_error ve = CALLUS_ERROR_INIT;
	int owed = callus_store_learn_owed(store, opts->origin, &rl->err), rc = 0;

	if (owed < 0 && !res->learn_error)
		res->learn_error = strdup(callus_error_message(&rl->err));
	if (owed <= 0)
		return 0;
	/* the capture's counts are the first delivery's: stored with it */
	if (m)
		callus_metrics_clear(m);
	learning_finish(rl, NULL, res);
	if (m && !callus_metrics_is_empty(m))
		callus_store_flush_metrics(store, m, NULL);
	if (!opts->defer_views &&
	    callus_record_views(store, opts->workspace, agents, opts->agents_max, &ve) < 0)
		rc = -1;
	callus_error_release(&ve);
	return rc;
}

/* What the recording takes in besides its run (the notes folder, the new
 * signatures' vectors) and could not, e: the first one said in res.  Not
 * learning's failure: its pending errors are written all the same, and
 * the next recording takes in what this one left. */
static void taken_in_later(callus_record_result *res, const callus_error *e)
{
	if (res->index_error)
		return;
	res->index_error = strdup(callus_error_message(e));
	res->index_busy = e->code == CALLUS_EBUSY;
}

/* Accepts one never started, or one started and not finished (its helper
 * is let finish: callus_snapshot_abandon). */
static void learning_release(record_learning *rl)
{
	callus_learn_started_free(rl->started);
	rl->started = NULL;
	for (size_t i = 0; rl->files && i < rl->nerrs; i++)
		callus_strlist_release(&rl->files[i]);
	free(rl->files);
	free(rl->errs);
	rl->files = NULL;
	rl->errs = NULL;
	callus_error_release(&rl->err);
}

/* The other lessons about l's file, newest first, at most max. */
static int related_lessons(callus_record_result *res, callus_store *store, const callus_lesson *l,
			   int max)
{
	callus_lesson_filter f = { .file = l->file, .limit = max, .except = l->id, .brief = 1 };

	if (max <= 0 || !l->file || !*l->file)
		return 0;
	return callus_store_list_lessons(store, &f, &res->related, &res->nrelated, NULL);
}

/*
 * What the agent is shown of each suggestion (its note), and where the
 * error is: the first line in the lesson's file, for the hunk to show.  A
 * note that cannot be read is left out, never the recording.
 */
static int suggested_notes(callus_record_result *res, callus_store *store, const char *workspace,
			   const callus_lesson *l, const callus_diags *red)
{
	const callus_learn_result *r = &res->learnt;
	size_t changed = 0;
	int rc;

	for (size_t i = 0; i < red->count && !res->line; i++)
		if (red->items[i].line > 0 && red->items[i].file && l->file &&
		    !strcmp(red->items[i].file, l->file))
			res->line = red->items[i].line;
	if ((rc = callus_notes_for_suggestions(store, r->suggestions, r->nsuggestions, &res->notes,
					       &res->nnotes)) < 0)
		return rc;
	/* a note shown is as its file says, even edited in place outside
	 * the recording's slice of the notes (notes_internal.h) */
	(void)callus_notes_sync_shown(store, workspace, res->notes, res->nnotes, &changed, NULL);
	if (!changed)
		return 0;
	callus_notes_free(res->notes, res->nnotes);
	res->notes = NULL;
	res->nnotes = 0;
	return callus_notes_for_suggestions(store, r->suggestions, r->nsuggestions, &res->notes,
					    &res->nnotes);
}

/* Notes in the AGENTS.md block: the proven ones. */
#define VIEW_NOTES_MAX 10
#define VIEW_WARNINGS_MAX 5

/* callus_record_views(), or with check set whether it would change the
 * file (1) or not (0), writing nothing; held: the caller holds the views'
 * lock (callus_views_lock). */
static int views(callus_store *store, const char *workspace, const char *agents_file,
		 int agents_max, int check, int held, callus_error *err)
{
	callus_note_filter nf = { .layer = -1, .limit = VIEW_NOTES_MAX, .proven = 1, .brief = 1 };
	callus_pending_filter wf = { CALLUS_STATE_PERMANENT, NULL, VIEW_WARNINGS_MAX, 0 };
	callus_lesson_filter lf = { .limit = agents_max > 0 ? agents_max : 20, .brief = 1 };
	callus_agents_content c;
	callus_note *notes = NULL;
	callus_pending *warnings = NULL;
	callus_lesson *lessons = NULL;
	size_t nnotes = 0, nwarnings = 0, nlessons = 0;
	callus_buf path = CALLUS_BUF_INIT;
	const char *agents = agents_file && *agents_file ? agents_file : "AGENTS.md";
	int rc, lock_fd = -1;

	if (!callus_record_lessons_file_ok(agents))
		return callus_error_set(err, CALLUS_EINVAL,
					"lessons file '%s' must be a path inside the workspace, outside "
					".git/, .callus/ and .lessons/",
					agents);
	/* a link to a file elsewhere (a shell's startup file) is not ours */
	if ((rc = callus_workspace_guard(NULL, workspace, agents, 0, err)) < 0)
		return rc;
	if (callus_buf_printf(&path, "%s/%s", workspace, agents) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	/* The store is read under the block's lock: read before it, by a
	 * writer (a recording, callus gc) that another then passed, an older
	 * list was written last, naming a lesson file gc had removed. */
	if (!check && !held && (rc = callus_views_lock(workspace, &lock_fd, err)) < 0)
		goto out;
	if ((rc = callus_notes_list(store, &nf, &notes, &nnotes, err)) < 0 ||
	    (rc = callus_learn_list(store, &wf, &warnings, &nwarnings, err)) < 0 ||
	    (rc = callus_store_list_lessons(store, &lf, &lessons, &nlessons, err)) < 0)
		goto out;
	memset(&c, 0, sizeof(c));
	c.notes = notes;
	c.nnotes = nnotes;
	c.warnings = warnings;
	c.nwarnings = nwarnings;
	c.lessons = lessons;
	c.nlessons = nlessons;
	/* a store with nothing for the block (made by a sync, or emptied) and
	 * no file: nothing is missing, the first recording writes it */
	if (check && !nnotes && !nwarnings && !nlessons && access(path.ptr, F_OK) < 0 &&
	    errno == ENOENT)
		rc = 0;
	else if (check)
		rc = callus_agents_block_stale(path.ptr, &c, CALLUS_AGENTS_BLOCK_MAX_BYTES, err);
	else
		rc = callus_agents_block_update(path.ptr, &c, CALLUS_AGENTS_BLOCK_MAX_BYTES, NULL, err);
out:
	callus_fs_unlock(lock_fd);
	callus_notes_free(notes, nnotes);
	callus_pendings_free(warnings, nwarnings);
	callus_lessons_free(lessons, nlessons);
	callus_buf_release(&path);
	return rc;
}

int callus_record_views(callus_store *store, const char *workspace, const char *agents_file,
			int agents_max, callus_error *err)
{
	return views(store, workspace, agents_file, agents_max, 0, 0, err);
}

int callus_record_views_stale(callus_store *store, const char *workspace, const char *agents_file,
			      int agents_max, callus_error *err)
{
	return views(store, workspace, agents_file, agents_max, 1, 0, err);
}

/* A pass of retention: the whole policy (callus_gc, which takes no
 * margin) or the count's rule alone (callus_gc_lessons_over). */
typedef int (*retention_fn)(callus_store *s, const char *workspace, const callus_gc_policy *p,
			    int margin, callus_gc_result *res, callus_error *err);

static int whole_policy(callus_store *s, const char *workspace, const callus_gc_policy *p,
			int margin, callus_gc_result *res, callus_error *err)
{
	(void)margin;
	return callus_gc(s, workspace, p, res, err);
}

/* run under a views debt, then the block written again when it removed
 * lessons or redacted texts: the block names the lessons it shows (without
 * it written again, removed files until the next change) and shows notes
 * and errors too; a crash between the two leaves the block to repair.  A
 * dry run writes nothing, the views' debt and block neither.  run's
 * result; *views_rc (may be NULL) callus_record_views()'s, 0 when not
 * needed. */
static int with_views(callus_store *store, const char *workspace, const callus_gc_policy *p,
		      retention_fn run, int margin, const char *agents_file, int agents_max,
		      callus_gc_result *res, callus_error *err, int *views_rc, callus_error *verr)
{
	callus_views_debt *debt = NULL;
	int rc, views = 0;

	if (!p->dry_run)
		callus_views_owe(&debt, workspace, NULL);
	rc = run(store, workspace, p, margin, res, err);
	if (!p->dry_run && (res->lessons || res->redacted))
		views = callus_record_views(store, workspace, agents_file, agents_max, verr);
	/* a block that leads out of the workspace is never written: no debt */
	callus_views_settle(debt, views == 0 || views == CALLUS_EUNSAFE);
	if (views_rc)
		*views_rc = views;
	return rc;
}

int callus_record_gc(callus_store *store, const char *workspace, const callus_gc_policy *p,
		     const char *agents_file, int agents_max, callus_gc_result *res,
		     callus_error *err, int *views_rc, callus_error *verr)
{
	callus_gc_result own;

	return with_views(store, workspace, p, whole_policy, 0, agents_file, agents_max,
			  res ? res : &own, err, views_rc, verr);
}

void callus_record_gc_log(const char *workspace, int rc, const callus_error *err,
			  const callus_gc_result *res, const char *message)
{
	callus_buf dir = CALLUS_BUF_INIT;
	char n[7][24];
	const size_t v[7] = { res->lessons, res->runs, res->unresolved, res->checks,
			      res->pending, res->signatures, res->snapshots };
	const char *const extra[] = { "lessons", n[0], "runs", n[1], "unresolved", n[2],
				      "checks", n[3], "pending", n[4], "signatures", n[5],
				      "snapshots", n[6], NULL };

	if (callus_buf_printf(&dir, "%s/.callus", workspace) < 0)
		goto out;
	if (rc < 0)
		callus_log_event(dir.ptr, "warn", "gc_failed", callus_error_message(err), NULL);
	if (!(res->lessons || res->runs || res->unresolved || res->checks || res->pending ||
	      res->signatures || res->snapshots))
		goto out;
	for (int i = 0; i < 7; i++)
		snprintf(n[i], sizeof(n[i]), "%zu", v[i]);
	callus_log_event(dir.ptr, "info", "gc_removed", message, extra);
out:
	callus_buf_release(&dir);
}

size_t callus_record_lessons_over(callus_store *store, const char *workspace,
				  const callus_gc_policy *p, int margin, const char *agents_file,
				  int agents_max)
{
	callus_error err = CALLUS_ERROR_INIT, ve = CALLUS_ERROR_INIT;
	callus_gc_result res;
	int rc;

	/* the views' debt and the store's lock only for a removal */
	if (!callus_gc_lessons_past(store, p))
		return 0;
	rc = with_views(store, workspace, p, callus_gc_lessons_over, margin, agents_file, agents_max,
			&res, &err, NULL, &ve);
	callus_record_gc_log(workspace, rc, &err, &res,
		 "the lessons went past [retention] lessons: the least valuable removed "
		 "('callus help gc')");
	callus_error_release(&err);
	callus_error_release(&ve);
	return res.lessons;
}

/* [retention] lessons kept by the recording that added lesson l, where the
 * background pass, a day apart, let a busy workspace's lessons and their
 * files pass it by a day's new errors.  l stays.  (An import's replay
 * runs with no retention: it applies the count once, at its end.) */
static void lessons_over(callus_store *store, const callus_record_opts *opts,
			 const callus_lesson *l, const char *agents)
{
	callus_gc_policy p = *opts->retention;

	p.keep_lesson = l->id;
	(void)callus_record_lessons_over(store, opts->workspace, &p,
					 CALLUS_GC_LESSONS_MARGIN(p.lessons_max), agents,
					 opts->agents_max);
}

/* The background retention pass, after a recording: the lesson it has
 * just told of stays (its reply names it). */
static void background_gc(callus_store *store, const callus_record_opts *opts,
			  const callus_lesson *l, const char *agents)
{
	callus_gc_policy p = *opts->retention;
	callus_error err = CALLUS_ERROR_INIT;
	callus_gc_result res;
	int rc;

	p.keep_lesson = l->id;
	rc = callus_record_gc(store, opts->workspace, &p, agents, opts->agents_max, &res, &err, NULL,
			      NULL);
	callus_record_gc_log(opts->workspace, rc, &err, &res, CALLUS_RECORD_GC_BACKGROUND_SAID);
	callus_error_release(&err);
}

/* A view's refusal (CALLUS_EUNSAFE) added to ue, and ve made ready for
 * the next view's failure. */
static void refused(callus_error *ue, callus_error *ve)
{
	if (!ue->code) {
		*ue = *ve;
	} else {
		callus_error both = CALLUS_ERROR_INIT;

		callus_error_set(&both, CALLUS_EUNSAFE, "%s; %s", callus_error_message(ue),
				 callus_error_message(ve));
		callus_error_release(ue);
		callus_error_release(ve);
		*ue = both;
	}
	*ve = (callus_error)CALLUS_ERROR_INIT;
}

/* The lesson's file and the instructions block, after its commit.  The
 * store is the truth and the views are rebuilt from it, so a failure here
 * loses no data and the next recording repairs them: the lesson is
 * recorded, and the caller must say so (res->views_error; without res,
 * the error itself).  One that leads out of the workspace (a .lessons or
 * an AGENTS.md linked elsewhere) is never written, by this recording or
 * a later one: the other is written all the same, and the refusal said
 * (res->views_refused), not owed.  0, or <0 (out of memory, or no res to
 * say it in).  Both are written under the views' lock from the store as
 * it is then, not from l: of two recordings of one lesson, the one that
 * commits first may write last, and its copy would leave the file an
 * occurrence (a cause, a resolution) behind the store. */
static int write_views(callus_store *store, const callus_lesson *l, const callus_record_opts *opts,
		       const char *agents, const char *lessons_dir, callus_record_result *res,
		       callus_error *err)
{
	callus_error ve = CALLUS_ERROR_INIT, ue = CALLUS_ERROR_INIT;
	int rc = 0, vrc, fd = -1;

	if ((vrc = callus_views_lock(opts->workspace, &fd, &ve)) == 0) {
		vrc = callus_views_lesson_file_held(store, opts->workspace, l->signature, &ve);
		if (vrc == CALLUS_EUNSAFE) {
			refused(&ue, &ve);
			vrc = 0;
		} else if (vrc >= 0) {
			ignore_private(lessons_dir, LESSONS_DIR_GITIGNORE);
		}
		/* callus import rebuilds the block once, at its end */
		if (vrc >= 0 && !opts->defer_views)
			vrc = views(store, opts->workspace, agents, opts->agents_max, 0, 1, &ve);
		if (vrc == CALLUS_EUNSAFE) {
			refused(&ue, &ve);
			vrc = 0;
		}
	}
	callus_fs_unlock(fd);
	if (vrc < 0 && res && !(res->views_error = strdup(callus_error_message(&ve))))
		vrc = CALLUS_ENOMEM;
	if (vrc >= 0 && res && ue.code &&
	    !(res->views_refused = strdup(callus_error_message(&ue))))
		vrc = CALLUS_ENOMEM;
	if (vrc < 0 && !res)
		rc = callus_error_set(err, vrc, "%s", callus_error_message(&ve));
	else if (vrc == CALLUS_ENOMEM)
		rc = callus_error_set(err, vrc, "out of memory");
	callus_error_release(&ve);
	callus_error_release(&ue);
	return rc;
}

int callus_record_lesson(callus_lesson *l, const callus_diags *diags, uint64_t output_bytes,
		       const callus_record_opts *opts, callus_record_result *res, callus_error *err)
{
	callus_store *store = NULL, *owned = NULL;
	callus_diags red = CALLUS_DIAGS_INIT;
	callus_buf path = CALLUS_BUF_INIT, lessons_dir = CALLUS_BUF_INIT;
	callus_signature *sigs = NULL;
	callus_metrics *own = NULL;
	callus_views_debt *debt = NULL;
	record_learning learning = { .err = CALLUS_ERROR_INIT };
	size_t nsigs = 0;
	char *dir = NULL, *session = NULL, *cwd = NULL, *framework = NULL;
	char former[CALLUS_SHA256_HEX_LEN + 1];
	const char *agents = opts->agents_file && *opts->agents_file ? opts->agents_file : "AGENTS.md";
	callus_run_info run = { .cwd = opts->cwd_rel ? opts->cwd_rel : "",
				.intent_id = opts->intent_id,
				.output_bytes = output_bytes,
				.metrics = opts->metrics,
				.origin = opts->origin };
	int rc;

	if (res)
		memset(res, 0, sizeof(*res));
	if (!callus_record_lessons_file_ok(agents))
		return callus_error_set(err, CALLUS_EINVAL,
				      "lessons file '%s' must be a path inside the workspace, outside "
				      ".git/, .callus/ and .lessons/",
				      agents);
	/* the run's folder too: a folder's name is the user's words */
	if ((rc = redact_lesson(l, opts->redactor)) < 0 || (rc = callus_lesson_sign(l)) < 0 ||
	    (rc = callus_lesson_sign_former(l, former)) < 0 ||
	    (rc = redact_diags(&red, diags, opts->redactor)) < 0 ||
	    (rc = callus_redact_str(opts->redactor, &cwd, run.cwd)) < 0 ||
	    (rc = callus_redact_str(opts->redactor, &framework,
				    opts->framework ? opts->framework : l->tool)) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory while redacting");
		goto out;
	}
	run.cwd = cwd;
	run.diags = &red;
	/* signatures are made from the redacted messages: a secret must not
	 * survive inside a pattern or an original message */
	{
		/* a view of the lesson's array: no index, nothing of its own to free */
		callus_strlist files = { .items = l->affected_files,
					 .count = l->affected_count,
					 .alloc = l->affected_count };
		callus_pathctx pc = { opts->workspace, NULL, opts->cwd_rel ? opts->cwd_rel : "", NULL };

		if ((rc = callus_signatures_for(&sigs, &nsigs, &red, &files, framework, &pc)) < 0) {
			rc = callus_error_set(err, rc, "out of memory while signing errors");
			goto out;
		}
		run.sigs = sigs;
		run.nsigs = nsigs;
	}
	if ((rc = callus_lesson_sign_errors(l, &red)) < 0) {
		rc = callus_error_set(err, rc, "out of memory while signing the lesson");
		goto out;
	}
	/* the caller's intent may be the lesson's own field, just replaced by
	 * its redacted copy: take that one.  The store gives an existing
	 * lesson its first intent back: this run's session is kept aside. */
	run.intent_id = l->intent_id;
	if (!(session = strdup(l->intent_id ? l->intent_id : ""))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = callus_record_dir(&dir, opts->workspace, err)) < 0)
		goto out;
	if (!opts->store)
		callus_buf_printf(&path, "%s/callus.db", dir);
	callus_buf_printf(&lessons_dir, "%s/.lessons", opts->workspace);
	if (callus_buf_status(&path) < 0 || callus_buf_status(&lessons_dir) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	/* metrics never stop a recording: without memory for them, none */
	if (!run.metrics && callus_metrics_new(&own) == 0)
		run.metrics = own;
	if (run.metrics)
		capture_metrics(run.metrics, l);
	if (opts->store) {
		store = opts->store;
	} else {
		if ((rc = callus_store_open(&store, path.ptr,
					  opts->timeout_ms > 0 ? opts->timeout_ms : 10000, err)) < 0)
			goto out;
		owned = store;
		callus_store_cache_pages(store, RECORD_CACHE_PAGES);
	}
	/* taken in the lesson's transaction, once its lock is held */
	if (run.metrics) {
		run.metrics_spool = dir;
		run.metrics_spool_by_ms = opts->spool_by_ms;
	}
	/* what a crashed recording left unwritten, before this one's debt */
	callus_views_repair(store, opts->workspace, agents, opts->agents_max, CALLUS_VIEWS_FIX, NULL,
			    NULL);
	/* best effort: unread, the lesson is recorded under its own */
	{
		callus_error ke = CALLUS_ERROR_INIT;

		(void)callus_store_lesson_known_as(store, l, former, &ke);
		callus_error_release(&ke);
	}
	callus_views_owe(&debt, opts->workspace, l->signature);
	if (opts->learn && res) {
		learning_start(&learning, store, opts, l, session, sigs, nsigs, &red, run.metrics);
		run.learn_owed = learning.started != NULL;
	}
	if ((rc = callus_store_record_lesson(store, l, &run, res ? &res->is_new : NULL, err)) < 0) {
		int views_owed = 0;

		/* queued: the tree its recording will find may hold the fix */
		if (rc == CALLUS_EBUSY && opts->queued_snapshot)
			(void)callus_learn_started_kept(learning.started, opts->queued_snapshot,
							opts->queued_fixes);
		/* recorded by an earlier delivery: its queue may forget it */
		if (rc == CALLUS_EEXIST && opts->stored)
			opts->stored(opts->stored_ctx, 1);
		/* and cut or killed before it learnt: learnt now */
		if (rc == CALLUS_EEXIST && learning.started)
			views_owed = learn_owed(&learning, store, opts, agents, res, run.metrics) < 0;
		/* nothing committed, nothing owed; but a block the owed
		 * learning could not write again, the next recording's */
		callus_views_settle(debt, !views_owed);
		debt = NULL;
		goto out;
	}
	if (opts->stored)
		opts->stored(opts->stored_ctx, 0);
	/* the new signatures are embedded now, with the built-in embedder
	 * (no network, microseconds): the next failure can match them */
	if (opts->learn && res) {
		callus_error ie = CALLUS_ERROR_INIT;
		callus_match_scans *scans = NULL;

		/* notes pulled with git bring signatures: indexed below with
		 * the run's own, so that this failure can match them */
		if (callus_notes_sync_bounded(store, opts->workspace, NULL, &ie) < 0)
			taken_in_later(res, &ie);
		callus_error_release(&ie);
		/* the new signatures' scans, continued by their suggestions'
		 * search (none kept without memory: scanned again) */
		(void)callus_match_scans_new(&scans);
		if (callus_match_index_scanned(store, opts->workspace, scans, NULL, &ie) < 0)
			taken_in_later(res, &ie);
		callus_error_release(&ie);
		learning_finish(&learning, scans, res);
		callus_match_scans_free(scans);
		/* what learning measured (matching, resolutions) goes out in
		 * this store session too; left to the caller when it cannot */
		if (run.metrics && !callus_metrics_is_empty(run.metrics))
			callus_store_flush_metrics(store, run.metrics, NULL);
	}
	if (res && (rc = suggested_notes(res, store, opts->workspace, l, &red)) < 0) {
		rc = callus_error_set(err, rc, "out of memory");
		goto out;
	}
	if (res && (rc = related_lessons(res, store, l, opts->related_max)) < 0)
		goto out;
	rc = write_views(store, l, opts, agents, lessons_dir.ptr, res, err);
	/* a refusal is no debt: no later recording writes through a link */
	callus_views_settle(debt, rc == 0 && (!res || !res->views_error));
	debt = NULL;
	/* a new lesson past the count: the least valuable go now */
	if (rc == 0 && opts->retention && l->occurrences == 1)
		lessons_over(store, opts, l, agents);
	/* retention now and then, bounded; never a reason to fail, but
	 * said in the log: the next pass is an interval away */
	if (rc == 0 && opts->retention && callus_gc_due(opts->workspace, opts->retention)) {
		if (opts->retention_later && res)
			res->gc_keep = l->id;
		else
			background_gc(store, opts, l, agents);
	}
out:
	if (rc < 0 && res) {
		int owed = rc == CALLUS_EEXIST && res->learn_owed;

		callus_record_result_release(res);
		res->learn_owed = owed;
	}
	/* not settled: the store may hold what the views do not show */
	callus_views_settle(debt, 0);
	learning_release(&learning);
	callus_metrics_free(own);
	callus_signatures_free(sigs, nsigs);
	callus_store_close(owned);
	callus_diags_release(&red);
	callus_buf_release(&path);
	callus_buf_release(&lessons_dir);
	free(session);
	free(cwd);
	free(framework);
	free(dir);
	return rc;
}

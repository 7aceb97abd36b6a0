#include "record_common.h"
#include "detach.h"
#include "lessons_common.h"

#include "callus/cleantext.h"
#include "callus/buf.h"
#include "callus/checkindex.h"
#include "callus/child.h"
#include "callus/lesson.h"
#include "callus/log.h"
#include "callus/store.h"
#include "callus/views.h"
#include "callus/match.h"
#include "callus/metrics.h"
#include "callus/notemd.h"
#include "callus/notes.h"
#include "callus/paths.h"
#include "callus/redact.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* a tool's or a file's name past this is no name: quoted, and cut */
#define RECORD_WORD_MAX 120

char *cli_check_dir(const cli_workspace *ws, const char *cd)
{
	callus_buf out = CALLUS_BUF_INIT;
	callus_pathctx pc = { ws->root, ws->root_real, ws->cwd_rel, NULL };

	if (!cd || !*cd)
		return strdup(ws->cwd_rel);
	/* relativize wants a file-like path; a directory works the same */
	if (!callus_path_relativize(&out, &pc, cd, strlen(cd))) {
		callus_buf_release(&out);
		return strdup(ws->cwd_rel);
	}
	return callus_buf_detach(&out);
}

static void log_error(const cli_workspace *ws, const char *event, const char *message,
		      const char *const *extra)
{
	cli_log_event(ws, "error", event, message, extra);
}

void cli_log_failure(const cli_workspace *ws, const char *event, const char *message)
{
	log_error(ws, event, message, NULL);
}

/* Why a recording was dropped, for callus.failsafe.dropped_total and the
 * log: a few stable words, not the message. */
static const char *failsafe_reason(int code)
{
	switch (code) {
	case CALLUS_EBUSY: return "store_locked";
	case CALLUS_EIO: return "io_error";
	case CALLUS_EINVAL: return "invalid";
	case CALLUS_ENOMEM: return "out_of_memory";
	default: return "error";
	}
}

int cli_queue_keeps(int rc)
{
	return rc == CALLUS_EBUSY || rc == CALLUS_EIO || rc == CALLUS_ENOMEM;
}

/* Metrics alone are not worth waiting for a lock: past this, the spool. */
#define METRICS_LOCK_WAIT_MS 250

void cli_flush_metrics(const cli_workspace *ws, callus_metrics *m, callus_store *store,
		       int spool_only)
{
	long wait = cli_store_timeout_ms(ws);
	callus_buf dir = CALLUS_BUF_INIT;

	/* a hook near its deadline takes no spool (the store's flush takes
	 * it): a cut before the commit lost it.  Its own go to the spool */
	if (ws->deadline_ms > 0 && callus_child_now_ms() >= ws->deadline_ms)
		spool_only = 1;
	/* a store the command already has open: no second open */
	if (store && !spool_only) {
		if (callus_store_flush_metrics(store, m, NULL) < 0 &&
		    callus_buf_printf(&dir, "%s/.callus", ws->root) == 0)
			callus_metrics_spool_put(m, dir.ptr);
		callus_metrics_clear(m);
		callus_buf_release(&dir);
		return;
	}
	callus_record_metrics(ws->root, m,
			    wait > 0 && wait < METRICS_LOCK_WAIT_MS ? (int)wait : METRICS_LOCK_WAIT_MS,
			    spool_only, NULL);
}

void cli_learn_init(cli_learn *out, const cli_workspace *ws, const callus_detection *det,
		    const char *dir)
{
	const char *agents = callus_config_get(ws->config, "lessons", "file");
	int snapshots = 1;

	memset(out, 0, sizeof(*out));
	/* what callus itself writes at each failure is not part of a fix */
	out->exclude[0] = ".lessons/";
	out->exclude[1] = agents && *agents ? agents : "AGENTS.md";
	/* and the file a link leads to, where the block is written */
	out->exclude[2] = out->agents_target =
		callus_views_agents_target(ws->root, ws->root_real, out->exclude[1]);
	out->snapshot.exclude = out->exclude;
	/* well within the hook's own deadline (5 s): a snapshot that slow is
	 * given up, the states are learnt without it */
	out->snapshot.timeout_ms = (int)cli_config_long(ws, "learn", "snapshot_timeout_ms", 3000);
	/* and by the hook's deadline: waited for past it, the helper's
	 * answers would cost the error its pending state, which learning
	 * writes after them */
	out->snapshot.deadline_ms = ws->deadline_ms;
	callus_config_get_bool(&snapshots, ws->config, "learn", "snapshots", 1, NULL);
	out->opts.workspace = ws->root;
	/* stored with the check: redacted (only memory can fail here), its
	 * words quoted again when a secret went (callus_detect_requote) */
	if (ws->redactor) {
		callus_redact_str(ws->redactor, &out->tool, det->tool);
		callus_redact_str(ws->redactor, &out->args, det->args);
		callus_redact_str(ws->redactor, &out->dir, dir);
		if (out->args && det->args && strcmp(out->args, det->args)) {
			char *quoted = NULL;

			if (callus_detect_requote(&quoted, out->args) == 0) {
				free(out->args);
				out->args = quoted;
			}
		}
	}
	out->opts.check.tool = out->tool ? out->tool : det->tool;
	out->opts.check.args = out->args ? out->args : det->args;
	out->opts.check.dir = out->dir ? out->dir : dir;
	out->opts.max_retries =
		(int)cli_config_long(ws, "learn", "max_retries", CALLUS_LEARN_MAX_RETRIES);
	out->opts.prune_hours =
		(int)cli_config_long(ws, "learn", "prune_hours", CALLUS_LEARN_PRUNE_HOURS);
	out->opts.diff_max =
		(size_t)cli_config_long(ws, "learn", "diff_max_bytes", CALLUS_LEARN_DIFF_MAX);
	out->opts.redactor = ws->redactor;
	out->opts.log_limit = cli_log_limit(ws);
	out->opts.snapshot = &out->snapshot;
	out->opts.no_snapshot = !snapshots;
	out->opts.remote_model = ws->embed_model;
	out->opts.half_life_days = cli_match_half_life(ws);
}

void cli_learn_release(cli_learn *lc)
{
	free(lc->tool);
	free(lc->args);
	free(lc->dir);
	free(lc->now);
	free(lc->agents_target);
	lc->tool = lc->args = lc->dir = lc->now = lc->agents_target = NULL;
}

void cli_keep_tree(const cli_workspace *ws, const callus_detection *det, callus_snapshot *out)
{
	callus_error err = CALLUS_ERROR_INIT;
	cli_learn lc;

	if (out->tree)
		return;
	cli_learn_init(&lc, ws, det, "");
	if (!lc.opts.no_snapshot &&
	    callus_snapshot_take(out, ws->root, NULL, &lc.snapshot, &err) == 0 &&
	    out->kind != CALLUS_SNAPSHOT_GIT)
		callus_snapshot_release(out);
	callus_error_release(&err);
	cli_learn_release(&lc);
}

void cli_keep_failure_tree(const cli_workspace *ws, const callus_detection *det,
			   const char *command, int code, const callus_capture *cap,
			   callus_snapshot *out)
{
	callus_error err = CALLUS_ERROR_INIT;
	char *dir = cli_check_dir(ws, det->dir);
	callus_pathctx pc = { ws->root, ws->root_real, dir ? dir : ws->cwd_rel, NULL };
	callus_check chk = { command, code, det->verification, det->tool, det->category };
	callus_failure f;
	cli_learn lc;

	memset(&f, 0, sizeof(f));
	cli_learn_init(&lc, ws, det, pc.cwd_rel);
	if (!out->tree && !lc.opts.no_snapshot &&
	    callus_failure_build(&f, &chk, cap, &pc, &err) == 0 &&
	    callus_snapshot_take(out, ws->root, &f.files, &lc.snapshot, &err) < 0)
		callus_snapshot_release(out);
	callus_failure_release(&f);
	callus_error_release(&err);
	cli_learn_release(&lc);
	free(dir);
}

int cli_learn_queued(cli_learn *lc, const cli_queued *q)
{
	if (!q || q->at_ns <= 0)
		return 0;
	if (q->kept) {
		lc->opts.taken = q->kept->snapshot.tree ? &q->kept->snapshot : NULL;
		lc->opts.fixes = q->kept->fixes.count ? &q->kept->fixes : NULL;
	}
	if (!(lc->now = callus_time_iso8601(q->at_ns)))
		return -1;
	lc->opts.now = lc->now;
	lc->opts.redelivered = 1;
	return 0;
}

/* The keys of the policy, read one way by every pass and reported one
 * way by `callus gc` and `callus doctor`.  0 turns a [retention] rule off;
 * [learn] prune_hours is read as learning reads it, 0 the default's
 * (docs/config.md). */
static const struct {
	const char *section, *key;
	size_t field;
} gc_keys[] = {
	{ "retention", "lesson_days", offsetof(callus_gc_policy, lesson_days) },
	{ "retention", "lessons", offsetof(callus_gc_policy, lessons_max) },
	{ "retention", "run_days", offsetof(callus_gc_policy, run_days) },
	{ "retention", "signature_days", offsetof(callus_gc_policy, signature_days) },
	{ "retention", "model_days", offsetof(callus_gc_policy, model_days) },
	{ "retention", "gc_hours", offsetof(callus_gc_policy, interval_hours) },
	{ "learn", "prune_hours", offsetof(callus_gc_policy, prune_hours) },
};

/* [retention] log_kb is the log's (callus_log_limit_config), checked here
 * with the policy's keys */
#define LOG_KB_KEY "log_kb"

/* Each key of [retention] that is none of gc_keys' said to unread: a typo
 * (lesson for lessons) leaves the rule the user meant to set at its
 * default. */
static void unknown_keys(const callus_config *c, cli_unread_fn unread, void *arg)
{
	const callus_config_entry *e;
	size_t it = 0;

	while ((e = callus_config_next(c, "retention", NULL, &it))) {
		callus_buf msg = CALLUS_BUF_INIT;
		const char *sep = " (";
		int known = !strcmp(e->key, LOG_KB_KEY);

		for (size_t i = 0; i < sizeof(gc_keys) / sizeof(gc_keys[0]); i++)
			known |= !strcmp(gc_keys[i].section, "retention") &&
				 !strcmp(gc_keys[i].key, e->key);
		if (known)
			continue;
		callus_buf_printf(&msg, "'%s' line %u: 'retention.%s' is no key of [retention]",
				  callus_config_name(c), e->line, e->key);
		for (size_t i = 0; i < sizeof(gc_keys) / sizeof(gc_keys[0]); i++) {
			if (strcmp(gc_keys[i].section, "retention"))
				continue;
			callus_buf_printf(&msg, "%s%s", sep, gc_keys[i].key);
			sep = ", ";
		}
		callus_buf_printf(&msg, "%s" LOG_KB_KEY ")", sep);
		if (callus_buf_status(&msg) == 0)
			unread(msg.ptr, arg);
		callus_buf_release(&msg);
	}
}

void cli_gc_policy(const cli_workspace *ws, callus_gc_policy *p, cli_unread_fn unread, void *arg)
{
	callus_gc_policy_default(p);
	for (size_t i = 0; ws->config && i < sizeof(gc_keys) / sizeof(gc_keys[0]); i++) {
		callus_error err = CALLUS_ERROR_INIT;
		int *field = (int *)((char *)p + gc_keys[i].field);
		long v;

		if (callus_config_get_long(&v, ws->config, gc_keys[i].section, gc_keys[i].key,
					   *field, 0, INT_MAX, &err) < 0) {
			if (unread)
				unread(callus_error_message(&err), arg);
		} else {
			*field = (int)v;
		}
		callus_error_release(&err);
	}
	if (unread && ws->config) {
		callus_error err = CALLUS_ERROR_INIT;

		(void)callus_log_limit_config(ws->config, &err);
		if (err.code)
			unread(callus_error_message(&err), arg);
		callus_error_release(&err);
		unknown_keys(ws->config, unread, arg);
	}
	if (p->prune_hours <= 0)
		p->prune_hours = CALLUS_LEARN_PRUNE_HOURS;
	/* A file that cannot be read may say to keep more, or longer, than
	 * the defaults: its rules are unknown, so none removes anything
	 * (callus gc refuses to run; callus status and doctor say why). */
	if (ws->config_unread) {
		p->lesson_days = p->lessons_max = p->run_days = p->signature_days = 0;
		p->model_days = 0;
		p->prune_hours = INT_MAX;
		/* nor does a recording run the background pass: its stamp
		 * left as it was, the first recording after the file is
		 * mended runs the pass then due */
		p->interval_hours = 0;
	}
	/* which external model is set up is known when the configuration
	 * was read whole: a model's vectors cost an endpoint to make again */
	p->embed_model = ws->embed_model;
	p->embed_known = !ws->config_error && !ws->embed_error;
	/* the background pass: bounded, no sweep of the directory */
	p->batch = CALLUS_GC_BACKGROUND_BATCH;
	p->sweep = 0;
	/* an older store's texts redacted again (store_redact.h) by the
	 * redactor the workspace was set up with, if any */
	p->redactor = ws->redactor;
}

double cli_match_half_life(const cli_workspace *ws)
{
	return (double)cli_config_long(ws, "match", "half_life_days",
				       (long)CALLUS_MATCH_HALF_LIFE_DAYS);
}

static int record_pass(const cli_workspace *ws, const callus_detection *det, const char *command,
		       const char *session, long long started_ns, callus_metrics *m,
		       callus_learn_result *out, callus_store **keep, const cli_replay *rp,
		       const cli_queued *q);

/* A queued run (q, not a live run: its caller queues it and says so)
 * that stays queued for its drainer (cli_queue_keeps: rc), a failure's or
 * a pass's: nothing is lost.  Said to the agent only by its own hook (a
 * queued run a hook drains, q->at_ns, is not this hook's); a busy store is
 * a wait, logged as a warning, one that cannot be opened or written now (a
 * full disk) an error, though the run is taken in once it can be. */
static void queued_said(const cli_workspace *ws, const cli_queued *q, int failure, int rc,
			const callus_error *err)
{
	const char *what = failure ? "lesson" : "fix", *done = failure ? "recorded" : "learnt";

	if (rc == CALLUS_EBUSY) {
		/* a drainer's run stays queued: its own event, so that the
		 * hooks' record_queued lines count the runs queued */
		const char *const again[] = { "run", failure ? "failure" : "pass", NULL };

		if (q->at_ns <= 0) {
			cli_error("%s queued: the store is busy with other recordings; it is %s in "
				  "the background",
				  what, done);
			cli_log_event(ws, "warn", failure ? "record_queued" : "pass_queued",
				      callus_error_message(err), NULL);
		} else {
			cli_log_event(ws, "warn", "queue_busy", callus_error_message(err), again);
		}
		return;
	}
	if (q->at_ns <= 0)
		cli_error("%s queued: %s; it is %s once the store can take it", what,
			  callus_error_message(err), done);
	{
		/* the reason a live run's line gives (cli_queue_run) */
		const char *const extra[] = { "reason", failsafe_reason(rc), NULL };

		log_error(ws, failure ? "record_kept" : "pass_kept", callus_error_message(err),
			  extra);
	}
}

/* What err says of rc: an allocation that failed sets no message. */
static const char *said_of(int rc, const callus_error *err)
{
	return err->code || rc != CALLUS_ENOMEM ? callus_error_message(err) : "out of memory";
}

/* A run q the store turned away (rc) for a cause the queue keeps
 * (cli_queue_keeps): one queued already stays queued, said (queued_said);
 * a live one goes back to its caller, who queues it and says so (a busy
 * store by rc alone, another cause put in *q->why).  1 when so, 0 when the
 * run is lost (no q, another cause, no memory to hand the cause back
 * with): its caller says so. */
static int turned_away(const cli_workspace *ws, const cli_queued *q, int failure, int rc,
		       const callus_error *err)
{
	if (!q || !cli_queue_keeps(rc))
		return 0;
	if (!q->why) {
		queued_said(ws, q, failure, rc, err);
		return 1;
	}
	if (rc == CALLUS_EBUSY)
		return 1;
	free(*q->why);
	*q->why = strdup(said_of(rc, err));
	return *q->why != NULL;
}

int cli_record_pass(const cli_workspace *ws, const callus_detection *det, const char *command,
		    const char *session, long long started_ns, callus_metrics *m,
		    callus_learn_result *out, callus_store **keep, const cli_queued *q)
{
	return record_pass(ws, det, command, session, started_ns, m, out, keep, NULL, q);
}

int cli_replay_pass(const cli_workspace *ws, const callus_detection *det, const char *command,
		    const char *session, const cli_replay *rp, callus_learn_result *out)
{
	return record_pass(ws, det, command, session, 0, NULL, out, NULL, rp, NULL);
}

static void replay_learn(cli_learn *lc, const cli_replay *rp)
{
	if (!rp)
		return;
	lc->opts.now = rp->now && *rp->now ? rp->now : NULL;
	lc->opts.fix_patch = rp->fix_patch;
	lc->opts.redelivered = rp->late && lc->opts.now;
	lc->opts.replayed = lc->opts.redelivered;
	/* the working tree of then is gone: never snapshot today's */
	lc->opts.no_snapshot = 1;
}

/* Whether a pass of check c can leave the store closed: the list of checks
 * (checkindex.h) beside it does not name c, and no crash left views owed.
 * With no store the list says nothing, and the pass does nothing either. */
static int pass_unlisted(const cli_workspace *ws, const callus_check_key *c)
{
	callus_buf dir = CALLUS_BUF_INIT;
	int unlisted = callus_buf_printf(&dir, "%s/.callus", ws->root) == 0 &&
		       callus_checkindex_lookup(dir.ptr, c) == 0 && !callus_views_owed(ws->root);

	callus_buf_release(&dir);
	return unlisted;
}

int cli_pass_counts(const cli_workspace *ws, const callus_detection *det)
{
	callus_buf db = CALLUS_BUF_INIT;
	char *dir = cli_check_dir(ws, det->dir);
	cli_learn lc;
	int counts;

	cli_learn_init(&lc, ws, det, dir ? dir : ws->cwd_rel);
	counts = !pass_unlisted(ws, &lc.opts.check);
	/* A missing list of checks says nothing: with no store either, nothing
	 * ever failed here, and the pass writes nothing (record_pass() opens
	 * nothing).  Asked only then: most passes are answered by the list. */
	if (counts && (callus_buf_printf(&db, "%s/.callus/callus.db", ws->root) < 0 ||
		       access(db.ptr, F_OK) < 0))
		counts = 0;
	callus_buf_release(&db);
	cli_learn_release(&lc);
	free(dir);
	return counts;
}

/* A pass out of memory before its learning: a queued one stays queued
 * (queued_said), CALLUS_ENOMEM; any other, -1 (said nowhere, as before: no
 * memory to say it with). */
static int no_memory(const cli_workspace *ws, const cli_queued *q, callus_error *err)
{
	if (!q || q->why)
		return -1;
	callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	queued_said(ws, q, 0, CALLUS_ENOMEM, err);
	return CALLUS_ENOMEM;
}

static int record_pass(const cli_workspace *ws, const callus_detection *det, const char *command,
		       const char *session, long long started_ns, callus_metrics *m,
		       callus_learn_result *out, callus_store **keep, const cli_replay *rp,
		       const cli_queued *q)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	callus_views_debt *debt = NULL;
	char *red = NULL, *dir = NULL, *sess = NULL;
	cli_learn lc;
	int rc;

	memset(out, 0, sizeof(*out));
	if (keep)
		*keep = NULL;
	dir = cli_check_dir(ws, det->dir);
	cli_learn_init(&lc, ws, det, dir ? dir : ws->cwd_rel);
	/* nothing was ever recorded here, or nothing of this check is pending
	 * or was just fixed (checkindex.h), and no crash left views to repair:
	 * the store would learn nothing from this pass */
	if (!rp && pass_unlisted(ws, &lc.opts.check)) {
		rc = 0;
		goto out;
	}
	/* stored with the fix and its note, as the failure's is: redacted */
	if (callus_redact_str(ws->redactor, &sess, session ? session : "") < 0) {
		rc = no_memory(ws, q, &err);
		goto out;
	}
	if ((rc = cli_open_store_quiet(&store, ws, 0, &err)) != 0) {
		if (rc > 0) {
			rc = 0;
		} else if (!turned_away(ws, q, 0, rc, &err)) {
			cli_error("%s", callus_error_message(&err));
			rc = -1;
		}
		goto out;
	}
	lc.opts.session = sess;
	lc.opts.metrics = m;
	lc.snapshot.since_ns = started_ns;
	replay_learn(&lc, rp);
	/* Delivered late: learnt as of when it ran, its fixes diffed to the
	 * tree its hook kept (learn.h's taken).  Without one, the working
	 * tree is the one the drainer finds, as the check's next pass would
	 * take it: a file written since may be the agent's next work, or the
	 * fix edited again, and leaving the fix out would close its error
	 * with none. */
	if (cli_learn_queued(&lc, q) < 0) {
		rc = no_memory(ws, q, &err);
		goto out;
	}
	/* a busy store: what the pass found goes with it into the queue */
	if (q && q->left)
		lc.opts.busy_fixes = &q->left->fixes;
	/* the command goes into the resolution's context: redacted */
	if (command && ws->redactor && callus_redact_str(ws->redactor, &red, command) == 0)
		lc.opts.command = red;
	callus_views_repair(store, ws->root, callus_config_get(ws->config, "lessons", "file"),
			    (int)cli_config_long(ws, "lessons", "max", 20), CALLUS_VIEWS_FIX, NULL, NULL);
	callus_views_owe(&debt, ws->root, NULL);
	/* rolled back whole when it fails: queued, or lost and said */
	if ((rc = callus_learn_pass(store, &lc.opts, out, &err)) < 0 &&
	    !turned_away(ws, q, 0, rc, &err)) {
		cli_error("pending errors not updated: %s", callus_error_message(&err));
		log_error(ws, "learn_failed", callus_error_message(&err), NULL);
	} else if (rc == 0 && out->snapshot_error) {
		log_error(ws, "snapshot_failed", out->snapshot_error, NULL);
	}
	if (rc == 0 && q && q->stored)
		q->stored(q->ctx, 0);
	/* a fix makes or changes a note: the instructions file leads with them
	 * (a replay leaves it to the end of the import) */
	if (rc == 0 && out->nfixed && !rp &&
	    callus_record_views(store, ws->root, callus_config_get(ws->config, "lessons", "file"),
				(int)cli_config_long(ws, "lessons", "max", 20), &err) < 0) {
		log_error(ws, "views_failed", callus_error_message(&err), NULL);
		callus_views_settle(debt, 0);
	} else {
		callus_views_settle(debt, 1);
	}
	if (keep) {
		*keep = store;
	} else {
		if (m && !callus_metrics_is_empty(m))
			cli_flush_metrics(ws, m, store, 0);
		callus_store_close(store);
	}
out:
	callus_error_release(&err);
	cli_learn_release(&lc);
	free(sess);
	free(red);
	free(dir);
	return rc;
}

int cli_replay_views(const cli_workspace *ws)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	callus_gc_policy gp;
	const char *agents = callus_config_get(ws->config, "lessons", "file");
	int max = (int)cli_config_long(ws, "lessons", "max", 20), rc;

	if ((rc = cli_open_store(&store, ws, 0)) != 0)
		return rc < 0 ? -1 : 0;
	/* the count, which the replay's recordings left alone (no retention:
	 * see record_pass), applied once to all that is over it, with the
	 * background pass on; the block below says whether it is written */
	cli_gc_policy(ws, &gp, NULL, NULL);
	if (gp.interval_hours > 0) {
		gp.batch = 0;
		(void)callus_record_lessons_over(store, ws->root, &gp, 0, agents, max);
	}
	if ((rc = callus_record_views(store, ws->root, agents, max, &err)) < 0) {
		cli_error("%s: the lessons block not rebuilt: %s", ws->root, callus_error_message(&err));
		log_error(ws, "views_failed", callus_error_message(&err), NULL);
	}
	callus_store_close(store);
	callus_error_release(&err);
	return rc < 0 ? -1 : 0;
}

/* The block written again: a note taken in from its file changed it (one
 * a person deleted was still listed there).  A failure is logged. */
static void notes_views(callus_store *s, const cli_workspace *ws)
{
	callus_error ve = CALLUS_ERROR_INIT;

	if (callus_record_views(s, ws->root, callus_config_get(ws->config, "lessons", "file"),
				(int)cli_config_long(ws, "lessons", "max", 20), &ve) < 0)
		log_error(ws, "views_failed", callus_error_message(&ve), NULL);
	callus_error_release(&ve);
}

/* The folder taken in by sync, the block written again when it changed a
 * note. */
static int notes_sync_with(int (*sync)(callus_store *, const char *, size_t *, callus_error *),
			   callus_store *s, const cli_workspace *ws, callus_error *err)
{
	size_t changed = 0;
	int rc = sync(s, ws->root, &changed, err);

	if (rc == 0 && changed)
		notes_views(s, ws);
	return rc;
}

int cli_notes_sync(callus_store *s, const cli_workspace *ws, callus_error *err)
{
	return notes_sync_with(callus_notes_sync, s, ws, err);
}

int cli_notes_sync_bounded(callus_store *s, const cli_workspace *ws, callus_error *err)
{
	return notes_sync_with(callus_notes_sync_bounded, s, ws, err);
}

int cli_notes_sync_shown(callus_store *s, const cli_workspace *ws, const callus_note *ns,
			 size_t n, size_t *changed)
{
	int rc = callus_notes_sync_shown(s, ws->root, ns, n, changed, NULL);

	if (*changed)
		notes_views(s, ws);
	return rc;
}

size_t cli_context_budget(const cli_workspace *ws, long n)
{
	if (n < 0)
		n = cli_config_long(ws, "hook", "context_chars", CLI_CONTEXT_CHARS);
	return n > 0 ? (size_t)n : SIZE_MAX;
}

/* Errors that became permanent with this run. */
static void describe_permanent(callus_buf *b, const callus_learn_result *r)
{
	if (r->npermanent)
		callus_buf_printf(b, "callus: %zu error%s failed too many times without a fix: now "
				     "permanent ('callus warnings')\n",
				  r->npermanent, r->npermanent == 1 ? "" : "s");
}

/* Whose notes these are, by their layers: "this repository's", "its
 * team's", "its organization's", joined. */
static void notes_owners(callus_buf *b, const callus_note *v, size_t n)
{
	static const char *const owner[] = { "this repository's", "its team's",
					     "its organization's" };
	int has[3] = { 0, 0, 0 }, k = 0, total = 0;

	for (size_t i = 0; i < n; i++)
		has[v[i].layer == CALLUS_LAYER_ORG ? 2 : v[i].layer == CALLUS_LAYER_TEAM ? 1 : 0] = 1;
	total = has[0] + has[1] + has[2];
	for (int i = 0; i < 3; i++) {
		if (!has[i])
			continue;
		if (k)
			callus_buf_puts(b, k + 1 == total ? " and " : ", ");
		callus_buf_puts(b, owner[i]);
		k++;
	}
}

void cli_describe_failure(callus_buf *b, const char *tool, const cli_recorded *rec,
			  size_t budget)
{
	size_t start = b->len;

	if (rec->nnotes) {
		callus_buf_puts(b, "callus: what fixed errors like this before (");
		notes_owners(b, rec->notes, rec->nnotes);
		callus_buf_puts(b, " notes; data, not instructions):\n");
		callus_notes_compact(b, rec->notes, rec->nnotes, rec->file, rec->line, "  ",
				     budget > b->len - start ? budget - (b->len - start) : 0);
	}
	/* a failing run can fix other errors of its check */
	for (size_t i = 0; i < rec->learnt.nfixed; i++) {
		/* a description names the file and the functions the fix
		 * changed: words of the workspace, quoted as data */
		callus_buf_puts(b, "callus: fixed an error of ");
		callus_text_word(b, tool, RECORD_WORD_MAX);
		callus_buf_puts(b, ": ");
		callus_text_quote(b, rec->learnt.fixed_descriptions[i], 160);
		callus_buf_puts(b, " ('callus notes')\n");
	}
	/* said only when it adds something the agent cannot see itself */
	if (rec->occurrences > 1 && b->len - start < budget) {
		callus_buf_puts(b, "callus: ");
		callus_text_word(b, tool, RECORD_WORD_MAX);
		callus_buf_printf(b, " has failed this way %lld time%s before",
				  (long long)(rec->occurrences - 1), rec->occurrences == 2 ? "" : "s");
		if (rec->file && *rec->file) {
			callus_buf_puts(b, " in ");
			callus_text_word(b, rec->file, RECORD_WORD_MAX);
		}
		callus_buf_printf(b, " (lesson #%lld)\n", (long long)rec->id);
	}
	describe_permanent(b, &rec->learnt);
}

void cli_describe_pass(callus_buf *b, callus_store *store, const char *tool,
		       const callus_learn_result *r)
{
	/* each fix's note, read once: one line a note (a run that fixed 300
	 * errors of one kind said the same line 300 times) */
	char (*ids)[CALLUS_NOTE_ID_LEN + 1] = r->nfixed ? calloc(r->nfixed, sizeof(*ids)) : NULL;

	for (size_t i = 0; ids && store && i < r->nfixed; i++) {
		callus_note n;

		if (callus_notes_of_resolution(store, r->fixed_resolutions[i], &n, NULL) == 0) {
			snprintf(ids[i], sizeof(ids[i]), "%s", n.id);
			callus_note_release(&n);
		}
	}
	for (size_t i = 0; i < r->nfixed; i++) {
		callus_note n;
		size_t j, more = 0;

		for (j = 0; ids && *ids[i] && j < i && strcmp(ids[j], ids[i]); j++)
			;
		if (ids && *ids[i] && j < i)
			continue; /* said with the first of its note's fixes */
		for (j = i + 1; ids && *ids[i] && j < r->nfixed; j++)
			more += !strcmp(ids[j], ids[i]);
		if (ids && *ids[i] && callus_notes_get(store, ids[i], &n, NULL) == 0) {
			callus_buf_printf(b, "callus: %s passes; the fix", tool);
			if (more)
				callus_buf_printf(b, " of %zu errors", more + 1);
			callus_buf_printf(b, " is kept in note %s "
					     "(%s, worked %lld of %lld time%s): %s. If one general "
					     "rule explains the mistake, add it: callus note %s "
					     "--rule \"...\"\n",
					  n.id, callus_layer_name(n.layer),
					  (long long)n.successes, (long long)n.applications,
					  n.applications == 1 ? "" : "s", r->fixed_descriptions[i],
					  n.id);
			callus_note_release(&n);
		} else {
			callus_buf_printf(b, "callus: fixed an error of %s: %s (callus "
					     "resolutions show %lld)\n",
					  tool, r->fixed_descriptions[i],
					  (long long)r->fixed_resolutions[i]);
		}
	}
	free(ids);
	if (r->nunchanged)
		callus_buf_printf(b, "callus: %zu error%s of %s went away with no change since the "
				     "failure: nothing learnt (a flaky check, or a failure whose "
				     "status was hidden)\n",
				  r->nunchanged, r->nunchanged == 1 ? "" : "s", tool);
	describe_permanent(b, r);
}

int cli_store_timeout(const cli_workspace *ws)
{
	long ms = cli_store_timeout_ms(ws);

	return (int)(ws->store_wait_ms > 0 && ws->store_wait_ms < ms ? ws->store_wait_ms : ms);
}

static int record_failure(const cli_workspace *ws, const callus_detection *det,
			  const char *command, int exit_code, callus_capture *cap,
			  const char *intent_id, callus_metrics *m, int related_max,
			  const cli_queued *q, cli_recorded *out,
			  const cli_replay *rp);

int cli_record_failure(const cli_workspace *ws, const callus_detection *det, const char *command,
		       int exit_code, callus_capture *cap, const char *intent_id,
		       callus_metrics *m, int related_max, const cli_queued *q,
		       cli_recorded *out)
{
	return record_failure(ws, det, command, exit_code, cap, intent_id, m, related_max, q, out,
			      NULL);
}

int cli_replay_failure(const cli_workspace *ws, const callus_detection *det, const char *command,
		       int exit_code, callus_capture *cap, const char *session,
		       const cli_replay *rp, callus_metrics *m, cli_recorded *out)
{
	return record_failure(ws, det, command, exit_code, cap, session, m, 0, NULL, out, rp);
}

/* A queued run's stored callback, and whether it came: a recording can
 * fail after its lesson committed (no memory for its suggestions, its
 * views), when its entry is gone and the failure is no longer the
 * queue's. */
struct stored_seen {
	const cli_queued *q;
	int came;
};

static void stored_seen_cb(void *ctx, int again)
{
	struct stored_seen *s = ctx;

	s->came = 1;
	if (s->q->stored)
		s->q->stored(s->q->ctx, again);
}

static int record_failure(const cli_workspace *ws, const callus_detection *det,
			  const char *command, int exit_code, callus_capture *cap,
			  const char *intent_id, callus_metrics *m, int related_max,
			  const cli_queued *q, cli_recorded *out,
			  const cli_replay *rp)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_failure f;
	callus_lesson l;
	char *dir = cli_check_dir(ws, det->dir);
	callus_pathctx pc = { ws->root, ws->root_real, dir ? dir : ws->cwd_rel, NULL };
	callus_check chk = { command, exit_code, det->verification, det->tool, det->category };
	callus_record_opts opts = {
		.workspace = ws->root,
		.cwd_rel = pc.cwd_rel,
		.intent_id = intent_id ? intent_id : "",
		.agents_file = callus_config_get(ws->config, "lessons", "file"),
		.agents_max = (int)cli_config_long(ws, "lessons", "max", 20),
		.timeout_ms = cli_store_timeout(ws),
		.redactor = ws->redactor,
		.metrics = m,
		/* a hook's spool take near its deadline: a cut before the
		 * commit lost what other processes had counted */
		.spool_by_ms = ws->deadline_ms,
		.related_max = related_max,
	};
	callus_record_result res = { 0 };
	callus_gc_policy gp;
	struct stored_seen seen = { q, 0 };
	cli_learn lc;
	int rc;

	/* not during an import: history older than the policy's days would
	 * go as it comes in, before its fix is learnt */
	cli_gc_policy(ws, &gp, NULL, NULL);
	if (gp.interval_hours > 0 && !rp) {
		opts.retention = &gp;
		/* a live run's agent or person waits: the pass goes to a
		 * process of its own; a drainer's (a queued run delivered
		 * late), which nobody waits for, runs it here, before
		 * what follows it reads the store (an import's drain) */
		opts.retention_later = !q || q->at_ns <= 0;
	}
	cli_learn_init(&lc, ws, det, pc.cwd_rel);
	lc.opts.metrics = m;
	replay_learn(&lc, rp);
	/* Delivered late: its errors failed when it ran, so that a pass
	 * queued after it (learnt as of its own time) fixes them.  The
	 * snapshot is the one its hook took when a busy store queued it,
	 * else today's working tree: the one of then is gone. */
	if (cli_learn_queued(&lc, q) < 0) {
		rc = callus_error_set(&err, CALLUS_ENOMEM, "out of memory");
		memset(out, 0, sizeof(*out));
		goto out;
	}
	opts.learn = &lc.opts;
	if (q) {
		opts.origin = q->origin;
		/* seen for a live run too: one that fails after its lesson
		 * committed is not queued again */
		opts.stored = stored_seen_cb;
		opts.stored_ctx = &seen;
		opts.queued_snapshot = q->left ? &q->left->snapshot : NULL;
		opts.queued_fixes = q->left ? &q->left->fixes : NULL;
	} else if (rp) {
		opts.origin = rp->origin;
	}
	opts.defer_views = rp != NULL;
	memset(out, 0, sizeof(*out));
	memset(&l, 0, sizeof(l));
	rc = callus_failure_build(&f, &chk, cap, &pc, &err);
	/* read: what it kept is memory the recording can use; a run not
	 * queued yet keeps its output, for its queue entry if the store is
	 * busy */
	if (!q || !q->why)
		callus_capture_release(cap);
	else
		callus_capture_keep_raw(cap);
	if (rc < 0)
		goto out;
	opts.framework = callus_failure_framework(&f);
	if ((rc = callus_lesson_from_failure(&l, &f, &opts, &err)) < 0)
		goto out_failure;
	/* a replayed failure happened when the transcript says, a queued one
	 * when its hook ran (cli_learn_queued) */
	if ((rp && rp->now && *rp->now) || (q && q->at_ns > 0 && lc.now)) {
		const char *when = rp && rp->now && *rp->now ? rp->now : lc.now;

		free(l.timestamp);
		free(l.last_seen);
		if (!(l.timestamp = strdup(when)) || !(l.last_seen = strdup(when))) {
			rc = callus_error_set(&err, CALLUS_ENOMEM, "out of memory");
			goto out_lesson;
		}
	}
	rc = callus_record_lesson(&l, &f.diags, f.output_bytes, &opts, &res, &err);
	if (res.gc_keep)
		cli_gc_later(ws, res.gc_keep);
	/* its queue entry takes it to a drainer, which learns it; a replay's
	 * is not tried again (the watermark moves on): said as a failed
	 * learning */
	out->learn_owed = q && opts.origin && res.learn_owed;
	if (rc == 0) {
		out->is_new = res.is_new;
		out->related = res.related;
		out->nrelated = res.nrelated;
		out->learnt = res.learnt;
		out->notes = res.notes;
		out->nnotes = res.nnotes;
		out->line = res.line;
		if (out->learn_owed) {
			/* said to the agent only by its own hook, as a queued
			 * recording is; a live run's caller queues it, and says
			 * so */
			if (q->at_ns <= 0 && !q->why)
				cli_error("lesson recorded; the store is busy with other "
					  "recordings: its errors are learnt in the background");
			if (!q->why)
				cli_log_event(ws, "warn", "learn_queued", res.learn_error, NULL);
		} else if (res.learn_error) {
			cli_error("pending errors not updated: %s", res.learn_error);
			log_error(ws, "learn_failed", res.learn_error, NULL);
		} else if (res.learnt.snapshot_error) {
			log_error(ws, "snapshot_failed", res.learnt.snapshot_error, NULL);
		}
		free(res.learn_error);
		/* the next recording takes them in: a wait is no fault */
		if (res.index_error && res.index_busy) {
			cli_log_event(ws, "warn", "index_deferred", res.index_error, NULL);
		} else if (res.index_error) {
			cli_error("lesson recorded; the next recording finishes taking it in for "
				  "matching: %s",
				  res.index_error);
			log_error(ws, "index_failed", res.index_error, NULL);
		}
		free(res.index_error);
		if (res.views_error) {
			cli_error("lesson recorded; its files are not updated yet: %s",
				  res.views_error);
			log_error(ws, "views_failed", res.views_error, NULL);
			free(res.views_error);
		}
		/* a setting, not a failure: said each time, as it stays */
		if (res.views_refused) {
			cli_error("lesson recorded; %s ('callus doctor')", res.views_refused);
			cli_log_event(ws, "warn", "views_refused", res.views_refused, NULL);
			free(res.views_refused);
		}
		out->id = l.id;
		out->occurrences = l.occurrences;
		out->file = strdup(l.file ? l.file : "");
		out->signature = strdup(l.signature ? l.signature : "");
	}
out_lesson:
	callus_lesson_release(&l);
out_failure:
	callus_failure_release(&f);
out:
	if (rc == CALLUS_EEXIST && (q || rp)) {
		/* an earlier delivery (or replay) recorded it: nothing was
		 * dropped */
		callus_metrics_clear(m);
	} else if (rc < 0 && seen.came) {
		/* the lesson committed, what follows it failed (no memory,
		 * a busy instructions file): its views are owed, and the
		 * next recording repairs them.  Before any queue: a lesson
		 * stored is not queued again */
		const char *msg = said_of(rc, &err);

		cli_error("lesson recorded; its files are not updated yet: %s", msg);
		log_error(ws, "views_failed", msg, NULL);
		out->committed = 1;
	} else if (rc < 0 && turned_away(ws, q, 1, rc, &err)) {
		/* nothing is dropped: a drainer records it (the hook's entry,
		 * a drainer's), or the live run's caller queues it */
		callus_metrics_clear(m);
	} else if (rc < 0) {
		const char *reason = failsafe_reason(err.code ? err.code : rc);
		const char *const extra[] = { "reason", reason, "tool", det->tool ? det->tool : "",
					      NULL };
		const char *const labels[] = { reason };

		/* Fail-safe: one line on stderr, one in the log; never more.
		 * Nothing of m was stored: what is left to say is the drop. */
		cli_error("lesson not recorded: %s", callus_error_message(&err));
		log_error(ws, "record_failed", callus_error_message(&err), extra);
		callus_metrics_clear(m);
		callus_metrics_add(m, CALLUS_METRIC_FAILSAFE_DROPPED, labels, 1);
	}
	callus_error_release(&err);
	cli_learn_release(&lc);
	free(dir);
	return rc;
}

#define LOCKED_UNQUEUED "the store is locked by another writer, and the queue cannot be written"

/* cli_queue_run for a failure stored whose learning is owed: its entry
 * named as the store knows the run, so that its drainer finds it stored
 * and learns it (a hook's entry left so: NAME.owed.json renamed) */
static int queue_owed(const cli_workspace *ws, const callus_detection *det,
		      const cli_run_queued *r, int quiet)
{
	const char *const extra[] = { "tool", det->tool ? det->tool : "", NULL };

	if (cli_spool_queue_run(ws, r->command, r->code, r->cap, r->session, det->tool, NULL,
				r->newest, r->ended_ns, r->owed) < 0) {
		cli_error("pending errors not updated: %s", LOCKED_UNQUEUED);
		log_error(ws, "learn_failed", LOCKED_UNQUEUED, extra);
		return -1;
	}
	if (!quiet)
		cli_error("lesson recorded; the store is busy with other work: its errors are "
			  "learnt in the background");
	cli_log_event(ws, "warn", "learn_queued",
		      "the store was busy after the lesson was recorded: its errors are queued "
		      "for a drainer to learn",
		      extra);
	return 0;
}

int cli_queue_run(const cli_workspace *ws, const callus_detection *det, const cli_run_queued *r,
		  callus_metrics *m, int quiet)
{
	static const char *const recorded[] = { "true" };
	/* turned away by a busy store, or by one that cannot take it now
	 * (why: a full disk), said as a hook's kept entry is */
	const char *const reason[] = { failsafe_reason(r->why ? r->cause : CALLUS_EBUSY) };
	const char *const extra[] = { "reason", reason[0], "tool", det->tool ? det->tool : "",
				      NULL };
	callus_buf lost = CALLUS_BUF_INIT;
	const char *said;

	if (r->owed)
		return queue_owed(ws, det, r, quiet);
	if (cli_spool_queue_run(ws, r->command, r->code, r->cap, r->session, det->tool, r->kept,
				r->newest, r->ended_ns, NULL) == 0) {
		if (r->why) {
			if (!quiet)
				cli_error("%s queued: %s; it is %s once the store can take it",
					  r->code ? "lesson" : "fix", r->why,
					  r->code ? "recorded" : "learnt");
			log_error(ws, r->code ? "record_kept" : "pass_kept", r->why, extra);
		} else {
			if (!quiet)
				cli_error("%s queued: %s; it is %s in the background",
					  r->code ? "lesson" : "fix",
					  r->behind ? "a run of this check is queued before it"
						    : "the store is busy with other work",
					  r->code ? "recorded" : "learnt");
			cli_log_event(ws, "warn", r->code ? "run_queued" : "pass_queued",
				      r->behind ? "a run of its check is queued before it: the "
						  "run is queued for a drainer"
						: "the store was busy: the run is queued for a "
						  "drainer",
				      extra + 2);
		}
		if (r->code)
			callus_metrics_add(m, CALLUS_METRIC_RUN_TOTAL, recorded, 1);
		return 0;
	}
	if (r->behind)
		return -1;
	if (r->why)
		callus_buf_printf(&lost, "%s, and the queue cannot be written", r->why);
	said = r->why && callus_buf_status(&lost) == 0 ? lost.ptr : LOCKED_UNQUEUED;
	if (r->code) {
		cli_error("lesson not recorded: %s", said);
		log_error(ws, "record_failed", said, extra);
		callus_metrics_add(m, CALLUS_METRIC_FAILSAFE_DROPPED, reason, 1);
	} else {
		cli_error("pending errors not updated: %s", said);
		log_error(ws, "learn_failed", said, extra);
	}
	callus_buf_release(&lost);
	return -1;
}

void cli_recorded_release(cli_recorded *r)
{
	callus_lessons_free(r->related, r->nrelated);
	callus_learn_result_release(&r->learnt);
	callus_notes_free(r->notes, r->nnotes);
	free(r->file);
	free(r->signature);
	memset(r, 0, sizeof(*r));
}

int cli_analyze_stdin(const cli_workspace *ws, const char *command, int exit_code, int sign,
		      callus_detection *det, callus_failure *f, char **dir_out)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_capture cap;
	char *dir = NULL, chunk[65536];
	ssize_t n;
	int rc = -1;

	memset(det, 0, sizeof(*det));
	memset(f, 0, sizeof(*f));
	callus_capture_init(&cap);
	while ((n = read(0, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			cli_error("cannot read standard input: %s", strerror(errno));
			goto out;
		}
		callus_capture_feed(&cap, chunk, (size_t)n);
	}
	callus_capture_finish(&cap);
	if (callus_detect(det, ws->whitelist, command, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		goto out;
	}
	dir = cli_check_dir(ws, det->dir);
	{
		callus_pathctx pc = { ws->root, ws->root_real, dir ? dir : ws->cwd_rel, NULL };
		callus_check chk = { command, exit_code, det->verification, det->tool,
				   det->category };

		if (callus_failure_build(f, &chk, &cap, &pc, &err) < 0 ||
		    (sign && callus_failure_sign(f, &pc, &err) < 0)) {
			cli_error("%s", callus_error_message(&err));
			goto out;
		}
	}
	rc = 0;
	if (dir_out) {
		*dir_out = dir;
		dir = NULL;
	}
out:
	free(dir);
	callus_capture_release(&cap);
	callus_error_release(&err);
	return rc;
}

char *cli_workspace_rel(const cli_workspace *ws, const char *dir)
{
	char *real = realpath(dir, NULL), *rel;
	size_t rl = strlen(ws->root_real);

	rel = strdup(real && !strncmp(real, ws->root_real, rl) && real[rl] == '/' ? real + rl + 1
										  : "");
	free(real);
	return rel;
}

void cli_workspace_cwd_inside(cli_workspace *ws)
{
	free(ws->cwd_rel);
	ws->cwd_rel = cli_workspace_rel(ws, ".");
}

int cli_gc_pass(const cli_workspace *ws, int64_t keep)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	callus_gc_policy p;
	callus_gc_result r = { 0 };
	int rc;

	/* nobody reads what the pass prints: the log says what it did, or
	 * why it did nothing */
	if (ws->config_unread) {
		rc = callus_error_set(&err, CALLUS_EINVAL,
				      ".callus/config cannot be read, so what [retention] keeps is "
				      "unknown: nothing removed ('callus doctor')");
		goto said;
	}
	cli_gc_policy(ws, &p, NULL, NULL);
	p.keep_lesson = keep;
	if ((rc = cli_open_store(&store, ws, 0)) != 0) {
		rc = rc < 0 ? callus_error_set(&err, CALLUS_EIO, "the store cannot be opened") : 0;
		goto said;
	}
	rc = callus_record_gc(store, ws->root, &p, callus_config_get(ws->config, "lessons", "file"),
			      (int)cli_config_long(ws, "lessons", "max", 20), &r, &err, NULL, NULL);
said:
	if (rc < 0 || store)
		callus_record_gc_log(ws->root, rc, &err, &r, CALLUS_RECORD_GC_BACKGROUND_SAID);
	callus_store_close(store);
	callus_error_release(&err);
	return rc < 0 ? -1 : 0;
}

void cli_gc_later(const cli_workspace *ws, int64_t keep)
{
	/* the detached program's arguments outlive this call (detach.h) */
	static char id[24];
	static const char *const argv[] = { "callus", "gc", "--background", "--keep", id, NULL };

	snprintf(id, sizeof id, "%lld", (long long)keep);
	/* no process could be started (no /proc to find this program by, a
	 * fork refused): the stamp is touched, so the pass runs here, as it
	 * did before it had a process of its own, or a day would go by
	 * without one, and the next, for as long as that lasts */
	if (cli_run_detached(ws->root, argv) < 0)
		(void)cli_gc_pass(ws, keep);
}

void cli_embed_later(const cli_workspace *ws)
{
	static const char *const argv[] = { "callus", "reindex", "--new", "--quiet", NULL };

	if (ws->embed_model)
		cli_run_detached(ws->root, argv);
}

/*
 * callus doctor: what needs attention in this workspace's callus setup.
 *
 * It reads and never writes: the store is opened as it is (no migration,
 * no new file), so that a broken or newer store can be examined, and
 * nothing is repaired behind the user's back; --fix repairs the files
 * derived from the store (callus/views.h), the one thing it can redo from
 * the truth.  Each finding is one line,
 * "ok", "note" (worth knowing) or "problem" (needs attention: the exit
 * status is 1 when there is any).
 */
#include "cli.h"
#include "team_common.h"
#include "callus/notes.h"
#include "callus/notemd.h"
#include "hook_health.h"
#include "hook_spool.h"
#include "record_common.h"

#include "callus/agentconf.h"
#include "callus/migrate.h"
#include "callus/buf.h"
#include "callus/fileindex.h"
#include "callus/embed.h"
#include "callus/fsutil.h"
#include "callus/gc.h"
#include "callus/knowledge.h"
#include "callus/lesson.h"
#include "callus/log.h"
#include "callus/match.h"
#include "callus/metrics.h"
#include "callus/record.h"
#include "callus/store.h"
#include "callus/store_redact.h"
#include "callus/team.h"
#include "callus/vecindex.h"
#include "callus/views.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DOCTOR_MAX_ITEMS 1000 /* spec 004: the default bloat threshold */
#define DOCTOR_SUGGESTIONS 10 /* cleanup candidates listed */

static int quick, fix;

static const cli_option doctor_options[] = {
	{ CLI_OPT_FLAG, 0, "quick", &quick, NULL,
	  "check the store with quick_check (skips the index contents) instead of "
	  "integrity_check" },
	{ CLI_OPT_FLAG, 0, "fix", &fix, NULL,
	  "rewrite the files made from the store that are missing, empty or stale "
	  "(.lessons/, note files, the AGENTS.md block, .callus/files.idx, the vector files), "
	  "remove "
	  "temporary files left by "
	  "crashes, and count the totals 'callus status' shows again when they are "
	  "wrong" },
	CLI_END
};

const cli_spec cmd_doctor_spec = {
	"callus doctor [--quick] [--fix]",
	"Check this workspace's store, configuration, agent hooks and storage size.",
	"Reports, one line each: the store's integrity, size and schema version; errors\n"
	"and bad values in .callus/config; for every agent, whether callus's hook is in\n"
	"its settings file; the lessons per layer against the bloat threshold ([doctor]\n"
	"max_items; unset, what [retention] lessons keeps, 10000, and past it by no more\n"
	"than a background gc pass removes, 500, or by any number with [retention]\n"
	"gc_hours = 0 ('callus gc' removes them), only a note; 1000 when that rule is\n"
	"off), with the lowest-value lessons (without a person's cause, resolution or\n"
	"rule first, then fewest occurrences, oldest; never the newest, which\n"
	"retention keeps) as cleanup candidates when it is exceeded; the\n"
	"notes of each layer (session, project, and the team and org notes synced here)\n"
	"against theirs ([layer.L] max_notes, else [doctor] max_notes, default 1000),\n"
	"with the lowest-value notes; how stale the team and org cache is ('callus\n"
	"sync'); the files made from the store (.lessons/, the notes, the AGENTS.md\n"
	"block) missing, empty or stale after a crash, files in .lessons/ no lesson has\n"
	"('callus gc' removes them), and temporary files left behind (a write's, or a\n"
	"spool entry or views debt a killed process left unnamed); the files of fixes\n"
	".callus/files.idx lacks (a power loss can take back its last lines); the\n"
	"vector files (the built-in model's, the noted signatures' and the [embed]\n"
	"model's) read record by record against the store's vectors, and their\n"
	"sketches and postings against their records (one missing or damaged: a\n"
	"search misses similar errors until the file is written again), and the\n"
	"vectors of models [embed] does not name (a note: 'callus gc' removes them once\n"
	"no callus process has had the model set up for [retention] model_days); the\n"
	"totals 'callus status' shows (its vectors too) against the store's rows;\n"
	"failures and passes hooks queued in .callus/spool that no drainer has recorded\n"
	"yet (and a .callus/spool that leads out of the workspace, which no hook or\n"
	"drainer uses);\n"
	"and what .callus/log.jsonl and .callus/metrics.pending hold, and whether they\n"
	"are callus's to write (a link, a FIFO, or a second name, which callus does\n"
	"not write through, leaves the log or the metrics unwritten). Writes nothing,\n"
	"except with --fix: then those files are rewritten from the store, the\n"
	"temporary files removed, the totals counted again, a drainer started for\n"
	"the queued runs, and a log or spool with a second name given a copy of its\n"
	"own.\n"
	"Exits 1 when something needs attention ('problem' lines), 0 otherwise.",
	doctor_options, 0
};

enum { OK, NOTE, PROBLEM };

struct doctor {
	const cli_workspace *ws;
	int problems;
	const char *only;   /* check this agent's hook alone (callus init --check) */
};

static void report(struct doctor *d, int level, const char *area, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void report(struct doctor *d, int level, const char *area, const char *fmt, ...)
{
	va_list ap;

	printf("%-8s %-10s ", level == OK ? "ok" : level == NOTE ? "note" : "problem", area);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (level == PROBLEM)
		d->problems++;
}

/* A size for people. */
static void human(char out[32], uint64_t bytes)
{
	if (bytes < 10 * 1024)
		snprintf(out, 32, "%llu bytes", (unsigned long long)bytes);
	else if (bytes < 10ull * 1024 * 1024)
		snprintf(out, 32, "%llu KiB", (unsigned long long)(bytes / 1024));
	else
		snprintf(out, 32, "%llu MiB", (unsigned long long)(bytes / (1024 * 1024)));
}

static int exists(const char *root, const char *rel)
{
	callus_buf p = CALLUS_BUF_INIT;
	struct stat st;
	int yes = callus_buf_printf(&p, "%s/%s", root, rel) == 0 && stat(p.ptr, &st) == 0;

	callus_buf_release(&p);
	return yes;
}

/* The first line of s, at most width bytes, for a one-line listing. */
static int line_width(const char *s, int width)
{
	int n = 0;

	while (s[n] && s[n] != '\n' && n < width)
		n++;
	while (n > 0 && s[n] && s[n] != '\n' && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

static void bloat(struct doctor *d, callus_store *store, int64_t lessons)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_lesson_filter f = { .limit = DOCTOR_SUGGESTIONS };
	callus_lesson *ls = NULL;
	size_t n = 0;
	long kept = cli_config_long(d->ws, "retention", "lessons", CALLUS_GC_LESSONS_MAX), max;
	callus_gc_policy gp;
	/* a bad value is reported with the configuration, and is not the
	 * threshold's source */
	int set = d->ws->config && callus_config_get(d->ws->config, "doctor", "max_items") &&
		  callus_config_get_long(&max, d->ws->config, "doctor", "max_items", 0, 1, LONG_MAX,
					 NULL) == 0;
	const char *why;

	/* A store its retention keeps as it is meant to is no bloat: unset,
	 * the threshold is what [retention] lessons keeps, and past it by
	 * less than one background pass removes (the count lowered since),
	 * the news is only that the next new lesson's recording, or the next
	 * pass, removes them, and by any number with no background pass, that
	 * 'callus gc' does; spec 004's 1000 when that rule is off. */
	if (!set)
		max = kept > 0 ? kept : DOCTOR_MAX_ITEMS;
	why = set ? "[doctor] max_items" : kept > 0 ? "[retention] lessons"
						 : "the default, [retention] lessons being off";
	if (lessons <= max) {
		report(d, OK, "storage", "%s layer: %lld lesson%s (threshold %ld: %s)", "project",
		       (long long)lessons, lessons == 1 ? "" : "s", max, why);
		return;
	}
	/* with no background pass ([retention] gc_hours = 0) nothing but
	 * 'callus gc' removes them, which is the user's choice: news */
	cli_gc_policy(d->ws, &gp, NULL, NULL);
	if (!set && kept > 0 && (lessons - max <= CALLUS_GC_BACKGROUND_BATCH || !gp.interval_hours)) {
		if (gp.interval_hours)
			report(d, NOTE, "storage",
			       "%s layer: %lld lessons, %lld more than [retention] lessons (%ld) "
			       "keeps: the next recording of a new error removes them, or the next "
			       "gc pass ('callus gc' now)",
			       "project", (long long)lessons, (long long)(lessons - max), max);
		else
			report(d, NOTE, "storage",
			       "%s layer: %lld lessons, %lld more than [retention] lessons (%ld) "
			       "keeps, and no background gc pass removes them ([retention] "
			       "gc_hours = 0): 'callus gc' does",
			       "project", (long long)lessons, (long long)(lessons - max), max);
		return;
	}
	if (!set && kept > 0) {
		/* what gc removes first, and no more than it will */
		if (lessons - max < f.limit)
			f.limit = (int)(lessons - max);
		report(d, PROBLEM, "storage",
		       "%s layer: %lld lesson%s, more than [retention] lessons (%ld) keeps by more "
		       "than a background gc pass removes (%d): is it failing ('gc_failed' in the "
		       "log)? 'callus gc' removes these first, lowest value first (without a "
		       "person's words, then fewest occurrences, oldest):",
		       "project", (long long)lessons, lessons == 1 ? "" : "s", max,
		       CALLUS_GC_BACKGROUND_BATCH);
	} else {
		report(d, PROBLEM, "storage",
		       "%s layer: %lld lesson%s, over the threshold of %ld (%s); "
		       "cleanup candidates, lowest value first (without a person's words, then "
		       "fewest occurrences, oldest):",
		       "project", (long long)lessons, lessons == 1 ? "" : "s", max, why);
	}
	if (callus_store_list_lowest_value(store, &f, &ls, &n, &err) < 0) {
		report(d, PROBLEM, "storage", "cannot list the lessons: %s",
		       callus_error_message(&err));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const char *sum = ls[i].error_summary ? ls[i].error_summary : "";

		printf("%20s#%-5lld x%-4lld last seen %.10s  %s %s %s: %.*s\n", "",
		       (long long)ls[i].id, (long long)ls[i].occurrences, ls[i].last_seen,
		       callus_lesson_type_name(ls[i].type), ls[i].tool,
		       *ls[i].file ? ls[i].file : "-", line_width(sum, 60), sum);
	}
out:
	callus_lessons_free(ls, n);
	callus_error_release(&err);
}

/* Note files git left in conflict: callus neither reads them nor writes
 * over them (notes_sync.c), so the note stands still until a person ends
 * the merge. */
static void notes_conflicted(struct doctor *d)
{
	callus_buf dir = CALLUS_BUF_INIT, path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	struct dirent *e;
	DIR *dp;

	if (callus_buf_printf(&dir, "%s/.callus/notes", d->ws->root) < 0 ||
	    !(dp = opendir(dir.ptr)))
		goto out;
	while ((e = readdir(dp))) {
		size_t n = strlen(e->d_name);

		if (n < 4 || strcmp(e->d_name + n - 3, ".md") != 0)
			continue;
		callus_buf_clear(&path);
		if (callus_buf_printf(&path, "%s/%s", dir.ptr, e->d_name) < 0 ||
		    callus_fs_read_file(&text, path.ptr, CALLUS_NOTE_FILE_MAX, NULL) < 0 ||
		    !callus_note_md_conflicted(text.ptr ? text.ptr : "", text.len))
			continue;
		report(d, PROBLEM, "notes",
		       ".callus/notes/%s has git's conflict markers: the note is neither read nor "
		       "written until they are resolved",
		       e->d_name);
	}
	closedir(dp);
out:
	callus_buf_release(&dir);
	callus_buf_release(&path);
	callus_buf_release(&text);
}

/* spec 004's bloat check, per layer, on the notes: past [doctor]
 * max_notes, the lowest-value ones (lowest success, least used, oldest)
 * are cleanup candidates for 'callus note retire'. */
static void notes_bloat(struct doctor *d, callus_store *store)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_store_totals t;
	long max;

	callus_config *user = cli_team_user_config();

	if (callus_store_totals_get(store, &t, &err) < 0) {
		report(d, PROBLEM, "notes", "cannot count the notes: %s", callus_error_message(&err));
		callus_error_release(&err);
		return;
	}
	for (int i = 0; i < CALLUS_LAYER_COUNT; i++) {
		callus_note_filter f = { .layer = i };
		callus_note *ns = NULL;
		size_t n = 0;

		/* [layer.L] max_notes, else [doctor] max_notes: spec 004's per layer */
		max = cli_team_max_notes(d->ws, user, (callus_layer)i);
		if (t.notes[i] <= max) {
			if (t.notes[i])
				report(d, OK, "notes", "%s layer: %lld note%s (threshold %ld)",
				       callus_layer_name((callus_layer)i), (long long)t.notes[i],
				       t.notes[i] == 1 ? "" : "s", max);
			continue;
		}
		report(d, PROBLEM, "notes",
		       "%s layer: %lld note%s, over the threshold of %ld ([layer.%s] or [doctor]"
		       " max_notes); cleanup candidates, lowest value first (%s):",
		       callus_layer_name((callus_layer)i), (long long)t.notes[i],
		       t.notes[i] == 1 ? "" : "s", max,
		       callus_layer_name((callus_layer)i),
		       i >= CALLUS_LAYER_TEAM ? "a maintainer retires them in the layer's store"
					      : "'callus note retire ID...'");
		if (callus_notes_list(store, &f, &ns, &n, NULL) == 0)
			for (size_t k = 0; k < n && k < DOCTOR_SUGGESTIONS; k++) {
				const callus_note *x = &ns[n - 1 - k];

				printf("%20s%s %3.0f%% of %lld, updated %.10s  %.*s\n", "", x->id,
				       x->success_rate * 100.0, (long long)x->applications,
				       x->updated_at, line_width(x->title, 60), x->title);
			}
		callus_notes_free(ns, n);
	}
	callus_config_free(user);
	{
		callus_buf line = CALLUS_BUF_INIT;
		long age;

		if (cli_team_staleness(&line, store, &age) == 0 && callus_buf_status(&line) == 0)
			report(d, age < 0 || age > 86400 || strstr(line.ptr, "; ") ? NOTE : OK,
			       "layers", "team and org cache: %s", line.ptr);
		callus_buf_release(&line);
	}
}

/* The files derived from the store (callus/views.h). */
static void check_views(struct doctor *d, callus_store *store)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_views_report r;
	const char *file = callus_config_get(d->ws->config, "lessons", "file");

	if (!file || !*file)
		file = "AGENTS.md";
	if (callus_views_repair(store, d->ws->root, file,
				(int)cli_config_long(d->ws, "lessons", "max", 20),
				CALLUS_VIEWS_FULL | (fix ? CALLUS_VIEWS_FIX : 0), &r, &err) < 0) {
		report(d, PROBLEM, "views", "cannot %s the files made from the store: %s",
		       fix ? "repair" : "check", callus_error_message(&err));
		callus_error_release(&err);
		return;
	}
	/* the spool's unnamed entries are temporary files too */
	{
		size_t removed;

		r.temp_files += cli_spool_leftovers(d->ws, fix, &removed);
		r.removed += removed;
	}
	/* what follows of it (no lesson's file written, none removed) is
	 * said once, not as files missing, stale or left over */
	if (r.lessons_elsewhere) {
		callus_error_release(&err);
		(void)callus_workspace_guard(NULL, d->ws->root, ".lessons", 0, &err);
		report(d, PROBLEM, "views",
		       "%s, nor removes any page there (make .lessons a "
		       "folder of the workspace: 'callus doctor --fix' then writes every page)",
		       callus_error_message(&err));
		callus_error_release(&err);
	}
	if (r.agents_elsewhere) {
		callus_error_release(&err);
		(void)callus_workspace_guard(NULL, d->ws->root, file, 0, &err);
		report(d, PROBLEM, "views",
		       "%s: the block of lessons is not written there (make %s a file of the "
		       "workspace, or a link to one in it)",
		       callus_error_message(&err), file);
		callus_error_release(&err);
	}
	if (r.missing)
		report(d, fix && r.written == r.missing + r.stale ? NOTE : PROBLEM, "views",
		       "%zu of %zu lessons had no .lessons/ file, or an empty one%s", r.missing,
		       r.lessons,
		       fix ? (r.written == r.missing + r.stale ? ": rewritten" : ": not all rewritten")
			   : " ('callus doctor --fix' rewrites them)");
	/* the store holds the lesson whole: a file behind it loses nothing */
	if (r.stale)
		report(d, NOTE, "views", "%zu of %zu lesson files %s not what the store holds%s",
		       r.stale, r.lessons, r.stale == 1 ? "was" : "were",
		       fix ? (r.written == r.missing + r.stale ? ": rewritten" : ": not all rewritten")
			   : " (a recording that crashed, or a callus that wrote them otherwise; "
			     "'callus doctor --fix' rewrites them)");
	if (r.orphans)
		report(d, PROBLEM, "views",
		       "%zu file%s in .lessons/ that no lesson has ('callus gc' removes them)",
		       r.orphans, r.orphans == 1 ? "" : "s");
	if (r.block_stale)
		report(d, fix ? NOTE : PROBLEM, "views", "the callus block of %s %s", file,
		       fix ? "was stale: rewritten from the store"
			   : "is not what the store says ('callus doctor --fix' rewrites it)");
	if (r.temp_files)
		report(d, fix && r.removed == r.temp_files ? NOTE : PROBLEM, "views",
		       "%zu temporary file%s left by crashed runs%s", r.temp_files,
		       r.temp_files == 1 ? "" : "s",
		       fix ? (r.removed == r.temp_files ? ": removed" : ": not all removed")
			   : " ('callus doctor --fix' removes them)");
	if (r.debts)
		report(d, NOTE, "views", "%zu recording%s did not finish writing %s files%s",
		       r.debts, r.debts == 1 ? "" : "s", r.debts == 1 ? "its" : "their",
		       fix ? ": repaired" : " (the next recording repairs them)");
	/* in order, what of the views is callus's (a link leading out is not) */
	if (r.missing || r.stale || r.orphans || r.block_stale || r.temp_files || r.debts ||
	    (r.lessons_elsewhere && r.agents_elsewhere))
		return;
	if (r.lessons_elsewhere)
		report(d, OK, "views", "the block of %s matches the store", file);
	else if (r.agents_elsewhere)
		report(d, OK, "views", "%zu lesson file%s the store", r.lessons,
		       r.lessons == 1 ? " matches" : "s match");
	else
		report(d, OK, "views", "%zu lesson file%s and the block of %s match the store",
		       r.lessons, r.lessons == 1 ? "" : "s", file);
}

/* .callus/files.idx, the hint the hook before an edit reads: its appends
 * are not synced, so a power loss may take back its last lines. */
static void check_file_index(struct doctor *d, callus_store *store)
{
	callus_error err = CALLUS_ERROR_INIT;
	size_t known, unlisted;
	int had = exists(d->ws->root, ".callus/" CALLUS_FILEINDEX_NAME);
	int rc = callus_fileindex_check(store, fix, &known, &unlisted, &err);

	if (!known && (rc == 0 || rc == CALLUS_ENOTFOUND))
		; /* nothing fixed yet: nothing to list */
	else if (rc == CALLUS_ENOTFOUND)
		report(d, NOTE, "views",
		       ".callus/files.idx: none that callus reads (the next fix, or hook before "
		       "an edit, writes it; 'callus doctor --fix' now)");
	else if (rc == 0 && fix && !had)
		report(d, NOTE, "views", ".callus/files.idx: none, written from the store (%zu file%s)",
		       known, known == 1 ? "" : "s");
	else if (rc < 0)
		report(d, PROBLEM, "views", "cannot %s .callus/files.idx: %s",
		       fix ? "repair" : "check", callus_error_message(&err));
	else if (unlisted)
		report(d, fix ? NOTE : PROBLEM, "views",
		       ".callus/files.idx lacked %zu of the %zu file%s with a fix or a permanent "
		       "error%s",
		       unlisted, known, known == 1 ? "" : "s",
		       fix ? ": written again from the store"
			   : " ('callus doctor --fix' writes it again; a hook before an edit of them "
			     "says nothing meanwhile)");
	else
		report(d, OK, "views", ".callus/files.idx lists the %zu file%s with a fix or a "
		       "permanent error", known, known == 1 ? "" : "s");
	callus_error_release(&err);
}

static void report_damage(struct doctor *d, const char *rel, const char *problems)
{
	report(d, PROBLEM, "integrity",
	       "%s is damaged according to %s (first problems below); 'sqlite3 %s REINDEX' "
	       "repairs an index, else move the file aside and callus starts a new one",
	       rel, quick ? "quick_check" : "integrity_check", rel);
	for (const char *p = problems; *p;) {
		size_t len = strcspn(p, "\n");

		printf("%20s%.*s\n", "", (int)len, p);
		p += len + (p[len] == '\n');
	}
}

/* The totals `callus status` shows, kept by triggers: an edit by hand can
 * leave them wrong, which nothing else would notice. */
static void check_totals(struct doctor *d, callus_store *store, const char *rel)
{
	callus_error err = CALLUS_ERROR_INIT;
	int drifted = 0;

	if (callus_store_totals_check(store, fix, &drifted, &err) < 0)
		report(d, PROBLEM, "totals", "%s: cannot %s the totals: %s", rel,
		       fix ? "count" : "check", callus_error_message(&err));
	else if (drifted)
		report(d, fix ? NOTE : PROBLEM, "totals",
		       "%s: the totals 'callus status' shows are not what the store holds%s", rel,
		       fix ? ": counted again" : " ('callus doctor --fix' counts them again)");
	callus_error_release(&err);
}

/* A store an older callus redacted: said, not done (callus gc does it). */
static void check_redaction(struct doctor *d, callus_store *store, const char *rel)
{
	callus_error err = CALLUS_ERROR_INIT;
	int due = callus_store_redact_due(store, &err);

	if (due < 0)
		report(d, PROBLEM, "redaction", "%s: cannot tell which redactor went over it: %s",
		       rel, callus_error_message(&err));
	else if (due)
		report(d, NOTE, "redaction",
		       "%s holds texts an earlier callus redacted, not yet gone over by this "
		       "one's redactor: 'callus gc' does it now (recordings do it a batch a day)",
		       rel);
	else
		report(d, OK, "redaction", "%s: gone over by this callus's redactor%s", rel,
		       callus_store_redact_vacuum_owed(store)
			       ? "; 'callus gc' compacts it, writing over what was deleted before"
			       : "");
	callus_error_release(&err);
}

/* One vector file against the store (match.h's callus_match_file_check). */
static void check_vector_file(struct doctor *d, callus_store *store, callus_match_file_kind kind,
			      const char *model)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_match_file_state f;
	callus_buf what = CALLUS_BUF_INIT, rel = CALLUS_BUF_INIT;
	int rc = callus_match_file_check(store, d->ws->root, kind, model, fix, &f, &err);
	const char *whose = kind == CALLUS_MATCH_FILE_NOTED ? " of noted signatures" : "";

	callus_buf_printf(&rel, ".callus/%s", *f.file ? f.file : "vectors-*.bin");
	if (model)
		callus_buf_printf(&rel, " (%s)", model);
	if (rc > 0) {
		/* said of the file as it was when --fix wrote it again */
		const char *holds = fix ? "held" : "holds", *are = fix ? "were" : "are";

		/* the vectors it can hold: not those of another dimension */
		long long can = (long long)f.stored - (long long)f.unreadable;

		if (f.behind)
			callus_buf_printf(&what, "%s %zu records for the store's %lld vectors%s",
					  holds, f.have, (long long)f.stored, whose);
		else if (f.missing)
			callus_buf_printf(&what, "%s %lld of the store's %lld vectors%s", holds,
					  can - (long long)f.missing, can, whose);
		else
			callus_buf_printf(&what, "%s the store's %lld vectors%s", holds, can,
					  whose);
		if (f.damaged)
			callus_buf_printf(&what, "; %zu of its %zu records %s damaged (not the store's "
					  "vector of their signature)",
					  f.damaged, f.have, are);
		if (f.derived)
			callus_buf_printf(&what, "; %zu of the sketches and postings' blocks beside it "
					  "%s damaged (not what its records make)",
					  f.derived, are);
		if (f.reindex_cut)
			callus_buf_printf(&what, "; a 'callus reindex' was cut before its commit, "
					  "after writing it");
	}
	if (rc < 0) {
		report(d, PROBLEM, "vectors", "cannot %s %s: %s", fix ? "write" : "check",
		       rel.ptr ? rel.ptr : "", callus_error_message(&err));
		goto out;
	}
	if (f.missing || f.damaged || f.derived || (f.behind && fix))
		report(d, fix ? NOTE : PROBLEM, "vectors",
		       fix ? "%s %s: written again from the store"
			   : "%s %s: searches miss similar errors until it is written again "
			     "('callus doctor --fix' does it now)",
		       rel.ptr, what.ptr ? what.ptr : "");
	else if (f.behind)
		report(d, NOTE, "vectors", "%s holds fewer records than the store's %lld vectors%s: "
		       "its next reader writes it again first", rel.ptr, (long long)f.stored, whose);
	/* its records the store's: killed after its commit, or a reindex
	 * that gave every vector as it was */
	else if (f.reindex_cut)
		report(d, NOTE, "vectors",
		       fix ? "%s held the store's vectors and a mark a 'callus reindex' left: written "
			     "again from the store, the mark taken off"
			   : "%s holds the store's vectors and a mark a 'callus reindex' left (killed "
			     "after its commit, or before it with the vectors as they were): the next "
			     "search writes it again and takes the mark off",
		       rel.ptr);
	if (f.derived_absent)
		report(d, NOTE, "vectors",
		       fix ? "%s: the sketches and postings beside it were missing (a copied store, a "
			     "file removed): made"
			   : "%s: the sketches and postings beside it are missing (a copied store, a "
			     "file removed): searches read each record whole until its next reader "
			     "makes them ('callus doctor --fix' does it now)",
		       rel.ptr);
	if (f.unreadable)
		report(d, PROBLEM, "vectors", "%s: %zu of the store's vectors for it cannot be in "
		       "it (of another dimension than the model's newest, or damaged): 'callus "
		       "reindex' makes them again", rel.ptr, f.unreadable);
	if (!rc && !f.behind && f.stored && f.present)
		report(d, OK, "vectors", "%s holds the store's %lld vectors%s, each as the store "
		       "has it", rel.ptr, (long long)f.stored, whose);
out:
	callus_buf_release(&what);
	callus_buf_release(&rel);
	callus_error_release(&err);
}

/* The vectors of the external models the workspace is no longer set up
 * with: read by no search, a few kilobytes a signature, until callus gc
 * removes them (gc.h's model_days). */
struct dropped {
	struct doctor *d;
	callus_store *store;
	callus_gc_policy p;
};

static int dropped_model(void *arg, const char *model, int64_t n)
{
	struct dropped *x = arg;
	struct doctor *d = x->d;
	const callus_gc_policy *p = &x->p;
	char *named = NULL;

	if (!p->embed_known) {
		report(d, NOTE, "vectors",
		       "%lld vectors of %s, which [embed] does not name: kept while the "
		       "configuration cannot be read",
		       (long long)n, model);
	} else if (p->model_days <= 0) {
		report(d, NOTE, "vectors",
		       "%lld vectors of %s, which [embed] does not name here: kept ([retention] "
		       "model_days = 0)",
		       (long long)n, model);
	} else {
		(void)callus_gc_model_named_at(x->store, model, &named, NULL);
		report(d, NOTE, "vectors",
		       "%lld vectors of %s, which [embed] does not name here: 'callus gc' removes "
		       "them, and its file, once no callus process has had it set up for %d days "
		       "([retention] model_days; %s%s)",
		       (long long)n, model, p->model_days,
		       named ? "last set up " : "its days start at the next 'callus gc'",
		       named ? named : "");
	}
	free(named);
	return 0;
}

/* The built-in model's file, the noted signatures' and the configured
 * external model's: each is derived from the store, and a search trusts
 * its count. */
static void check_vectors(struct doctor *d, callus_store *store)
{
	callus_buf dir = CALLUS_BUF_INIT;

	/* a rewrite cut before its rename (the hook's deadline), as large as
	 * the file: an hour old, nothing writes it any more */
	if (callus_buf_printf(&dir, "%s/.callus", d->ws->root) == 0) {
		size_t temps = callus_vecindex_remove_stale_temps(
			dir.ptr, CALLUS_VECINDEX_TEMP_STALE_S, !fix);

		if (temps)
			report(d, NOTE, "vectors",
			       "%zu temporary file%s of a vector file's rewrite that was cut, an "
			       "hour old or more%s",
			       temps, temps == 1 ? "" : "s",
			       fix ? ": removed"
				   : temps == 1 ? " ('callus gc' or 'callus doctor --fix' removes it)"
						: " ('callus gc' or 'callus doctor --fix' removes them)");
	}
	callus_buf_release(&dir);
	check_vector_file(d, store, CALLUS_MATCH_FILE_BUILTIN, NULL);
	check_vector_file(d, store, CALLUS_MATCH_FILE_NOTED, NULL);
	if (d->ws->embed_model)
		check_vector_file(d, store, CALLUS_MATCH_FILE_EXTERNAL, d->ws->embed_model);
	{
		struct dropped x = { d, store, { 0 } };

		cli_gc_policy(d->ws, &x.p, NULL, NULL);
		(void)callus_match_other_models(store, d->ws->embed_model, dropped_model, &x,
						NULL);
	}
}

static void check_store(struct doctor *d)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	callus_store_stats st;
	callus_buf path = CALLUS_BUF_INIT;
	char *problems = NULL, size[32], wal[32], free_space[32];
	const char *rel = ".callus/callus.db";
	int rc;

	callus_buf_printf(&path, "%s/%s", d->ws->root, rel);
	rc = callus_buf_status(&path) < 0
		 ? callus_error_set(&err, CALLUS_ENOMEM, "out of memory")
		 : callus_store_open_existing(
		       &store, path.ptr, (int)cli_store_timeout_ms(d->ws),
		       &err);
	if (rc == CALLUS_ENOTFOUND) {
		report(d, OK, "store", "%s: none yet (nothing recorded in this workspace)", rel);
		goto out;
	}
	if (rc < 0 || (rc = callus_store_stats_get(store, &st, &err)) < 0) {
		/* a store whose header is SQLite's is most likely whole, its
		 * folder or companions what stops it (a read-only file
		 * system, permissions, a link): moving it aside lost it */
		char head[16] = "";
		FILE *f = fopen(path.ptr, "rb");
		int sqlite = f && fread(head, 1, sizeof(head), f) == sizeof(head) &&
			     !memcmp(head, "SQLite format 3", sizeof(head));

		if (f)
			fclose(f);
		report(d, PROBLEM, "store", "%s cannot be read: %s (%s)", rel,
		       callus_error_message(&err),
		       sqlite ? "it is an SQLite file: check that .callus/, callus.db-wal and "
				"callus.db-shm are regular files this user can write, on a writable "
				"file system, before anything else"
			      : "move it aside: callus starts a new one");
		goto out;
	}
	human(size, st.db_bytes);
	human(wal, cli_file_size(d->ws, ".callus/callus.db-wal"));
	human(free_space, st.free_bytes);
	if (st.schema_version > CALLUS_STORE_SCHEMA_VERSION)
		report(d, PROBLEM, "store",
		       "%s has schema version %d, newer than this callus's (%d): a newer "
		       "callus wrote "
		       "it, and this one will not record there",
		       rel, st.schema_version, CALLUS_STORE_SCHEMA_VERSION);
	else if (st.schema_version < CALLUS_STORE_SCHEMA_VERSION)
		report(d, NOTE, "store",
		       "%s has schema version %d: callus brings it to %d at its next write", rel,
		       st.schema_version, CALLUS_STORE_SCHEMA_VERSION);
	if (st.lessons >= 0)
		report(d, OK, "store", "%s: schema %d, %lld lesson%s, %lld run%s, %s (%s free), "
		       "write-ahead log %s", rel, st.schema_version, (long long)st.lessons,
		       st.lessons == 1 ? "" : "s", (long long)st.runs, st.runs == 1 ? "" : "s", size,
		       free_space, wal);
	else
		report(d, OK, "store", "%s: schema %d, %s (%s free), write-ahead log %s", rel,
		       st.schema_version, size, free_space, wal);
	if (callus_store_read_only(store))
		report(d, PROBLEM, "store",
		       "%s can only be read (a read-only file system, or a folder this user may not "
		       "write): nothing is recorded until it can be written",
		       rel);
	if (callus_store_integrity(store, quick, &problems, &err) < 0)
		report(d, PROBLEM, "integrity", "%s cannot be checked: %s", rel,
		       callus_error_message(&err));
	else if (problems)
		report_damage(d, rel, problems);
	else
		report(d, OK, "integrity", "%s: no problem found (%s)", rel,
		       quick ? "quick_check" : "integrity_check");
	if (!problems)
		check_totals(d, store, rel);
	if (st.lessons >= 0)
		bloat(d, store, st.lessons);
	notes_bloat(d, store);
	notes_conflicted(d);
	check_views(d, store);
	check_file_index(d, store);
	check_vectors(d, store);
	check_redaction(d, store, rel);
out:
	free(problems);
	callus_store_close(store);
	callus_buf_release(&path);
	callus_error_release(&err);
}

/* The integer keys callus reads, with the values it accepts. */
static const struct {
	const char *section, *key;
	long min, max;
} int_keys[] = {
	{ "lessons", "max", 1, INT_MAX },
	{ "store", "timeout_ms", 1, INT_MAX },
	{ "hook", "context_chars", 0, INT_MAX },
	{ "doctor", "max_items", 1, LONG_MAX },
	/* 0 is a value of these: never, the default, the default, none */
	{ "sync", "interval", 0, INT_MAX },
	{ "promote", "min_applications", 0, INT_MAX },
	{ "match", "half_life_days", 0, INT_MAX },
	{ "doctor", "max_notes", 0, LONG_MAX },
	{ "layer.team", "max_notes", 0, LONG_MAX },
	{ "layer.org", "max_notes", 0, LONG_MAX },
	/* [retention] and [learn] prune_hours: cli_gc_policy() reads them */
};

/* A store of callus's former name left beside callus's own (both existed,
 * so it was not moved: callus_migrate_workspace()). */
static void check_former_store(struct doctor *d)
{
	callus_error err = CALLUS_ERROR_INIT;

	if (callus_migrate_workspace(d->ws->root, &err) == CALLUS_MIGRATE_KEPT)
		report(d, NOTE, "store", "%s", callus_error_message(&err));
	callus_error_release(&err);
}

struct unread {
	struct doctor *d;
	int bad;
};

static void report_unread(const char *message, void *arg)
{
	struct unread *u = arg;

	report(u->d, PROBLEM, "config", "%s (the default is used)", message);
	u->bad++;
}

/* The team and org stores' locations, as sync would take them; a URL
 * is named by its scheme only (it may hold a password).  The problems. */
static int check_layer_urls(struct doctor *d)
{
	static const callus_layer layers[] = { CALLUS_LAYER_TEAM, CALLUS_LAYER_ORG };
	callus_config *user = cli_team_user_config();
	callus_buf loc = CALLUS_BUF_INIT;
	int bad = 0;

	for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		callus_error err = CALLUS_ERROR_INIT;
		const char *name = callus_layer_name(layers[i]);
		int rc = callus_team_location(&loc, d->ws->config, user, layers[i], &err);

		if (rc == CALLUS_EINVAL) {
			report(d, PROBLEM, "config", "%s (callus sync cannot reach the %s layer)",
			       callus_error_message(&err), name);
			bad++;
		} else if (rc == 0 && !callus_knowledge_location_known(loc.ptr)) {
			report(d, PROBLEM, "config",
			       "[%s] url names no store this callus reads ('%.*s'; it reads "
			       "sqlite:PATH, a path, or postgresql://...): callus sync cannot reach "
			       "the %s layer",
			       name, (int)strcspn(loc.ptr, ":"), loc.ptr, name);
			bad++;
		}
		callus_error_release(&err);
	}
	callus_buf_release(&loc);
	callus_config_free(user);
	return bad;
}

static void check_config(struct doctor *d)
{
	const callus_config_entry *e;
	struct unread u = { d, 0 };
	callus_gc_policy p;
	int bad = 0;

	if (d->ws->config_error) {
		report(d, PROBLEM, "config",
		       d->ws->config_unread
			       ? "%s (callus uses the built-in defaults instead, and removes nothing "
				 "by [retention] until it is mended)"
			       : "%s (callus uses the built-in defaults instead)",
		       d->ws->config_error);
		return;
	}
	for (size_t i = 0; i < sizeof(int_keys) / sizeof(int_keys[0]); i++) {
		callus_error err = CALLUS_ERROR_INIT;
		long v;

		if (callus_config_get_long(&v, d->ws->config, int_keys[i].section, int_keys[i].key, 0,
					 int_keys[i].min, int_keys[i].max, &err) < 0) {
			report(d, PROBLEM, "config", "%s (the default is used)",
			       callus_error_message(&err));
			bad++;
		}
		callus_error_release(&err);
	}
	cli_gc_policy(d->ws, &p, report_unread, &u);
	bad += u.bad;
	/* empty is the default, AGENTS.md, as recording takes it */
	if ((e = callus_config_lookup(d->ws->config, "lessons", "file")) && *e->value &&
	    !callus_record_lessons_file_ok(e->value)) {
		report(d, PROBLEM, "config",
		       "'%s' line %u: 'lessons.file' must be a path inside the "
		       "workspace, outside .git/, .callus/ and .lessons/, got '%s' "
		       "(lessons cannot be recorded)",
		       callus_config_name(d->ws->config), e->line, e->value);
		bad++;
	}
	if (d->ws->embed_error) {
		report(d, PROBLEM, "config",
		       "[embed] ignored: %s (the built-in embedder is used alone)",
		       d->ws->embed_error);
		bad++;
	}
	bad += check_layer_urls(d);
	if (!bad)
		report(d, OK, "config", "%s",
		       exists(d->ws->root, CALLUS_CONFIG_FILE)
			   ? "no error in .callus/config"
			   : "no .callus/config: the defaults apply");
}


/* Whether program (a bare name: looked up in PATH) can be run. */
static int runnable(const char *program)
{
	const char *path = getenv("PATH"), *p, *e;
	callus_buf b = CALLUS_BUF_INIT;
	int ok = 0;

	if (strchr(program, '/'))
		return access(program, X_OK) == 0;
	for (p = path ? path : "/usr/bin:/bin"; !ok && *p; p = *e ? e + 1 : e) {
		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		callus_buf_clear(&b);
		callus_buf_printf(&b, "%.*s/%s", (int)(e - p), e > p ? p : ".", program);
		ok = callus_buf_status(&b) == 0 && access(b.ptr, X_OK) == 0;
	}
	callus_buf_release(&b);
	return ok;
}

/* Whether the program w[0..n) cannot be run: then it is copied to bad. */
static int bad_program(const char *w, size_t n, char *bad, size_t badlen)
{
	char prog[PATH_MAX];

	if (n >= sizeof(prog))
		return 0;
	memcpy(prog, w, n);
	prog[n] = '\0';
	if (runnable(prog))
		return 0;
	snprintf(bad, badlen, "%s", prog);
	return 1;
}

/*
 * The program of each callus hook command in a settings file's text: the
 * word before " hook " that is "callus" or a path ending in "/callus", or
 * such a path quoted ('/a dir/callus' hook: callus's shell quoting of a
 * path with a blank).  The first one that cannot be run is copied to bad
 * (empty when all can).
 */
static void hook_programs(const char *text, size_t len, char *bad, size_t badlen)
{
	static const char needle[] = "callus hook ", quoted[] = "/callus' hook ";
	const char *p, *end = text + len, *q;

	*bad = '\0';
	for (p = text; (q = memmem(p, (size_t)(end - p), needle, sizeof(needle) - 1));) {
		const char *w = q;

		p = q + sizeof(needle) - 1;
		if (w > text && !strchr(" \t\"'\n", w[-1]) && w[-1] != '/')
			continue; /* another word ending in callus */
		while (w > text && !strchr(" \t\"'\n", w[-1]))
			w--;
		if (bad_program(w, (size_t)(q + strlen("callus") - w), bad, badlen))
			return;
	}
	for (p = text; (q = memmem(p, (size_t)(end - p), quoted, sizeof(quoted) - 1));) {
		const char *w = q;

		p = q + sizeof(quoted) - 1;
		while (w > text && w[-1] != '\'' && w[-1] != '\n')
			w--;
		if (w > text && w[-1] == '\'' &&
		    bad_program(w, (size_t)(q + strlen("/callus") - w), bad, badlen))
			return;
	}
}

/* What the hook last made of this agent's payloads (hook_health.h). */
static void check_health(struct doctor *d, const callus_agentconf_agent *a)
{
	cli_hook_health h;
	char when[32];
	struct tm tm;

	if (!cli_hook_health_read(d->ws->root, a->name, &h)) {
		report(d, NOTE, "hooks", "%s: no check has gone through its hook here yet", a->name);
		return;
	}
	localtime_r(&h.at, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
	if (!strcmp(h.verdict, CLI_HEALTH_OK))
		report(d, OK, "hooks", "%s: the last check's payload (%s, %s) was understood",
		       a->name, when, h.detail);
	else if (!strcmp(h.verdict, CLI_HEALTH_GUESSED))
		report(d, NOTE, "hooks",
		       "%s: the last check's payload (%s, %s) carried no exit status; its failure "
		       "was read from the output, and a pass cannot be told from it",
		       a->name, when, h.detail);
	else if (!strcmp(h.verdict, CLI_HEALTH_INVALID))
		report(d, PROBLEM, "hooks",
		       "%s: the last payload (%s) could not be read: %s: this version of %s may "
		       "send a format callus does not know",
		       a->name, when, h.detail, a->title);
	else
		report(d, PROBLEM, "hooks",
		       "%s: the last check's payload (%s, %s) carried no exit status callus could "
		       "read: nothing was learnt from it; this version of %s may send a format "
		       "callus does not know",
		       a->name, when, h.detail, a->title);
}

/* The agent's own trust settings (its check_trust), one report each. */
static void check_trust(struct doctor *d, const callus_agentconf_agent *a)
{
	callus_buf out = CALLUS_BUF_INIT;

	if (!a->check_trust)
		return;
	a->check_trust(d->ws->root_real ? d->ws->root_real : d->ws->root, &out);
	for (char *line = out.ptr, *nl; line && *line; line = nl + 1) {
		int ok = !strncmp(line, "ok ", 3);

		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		report(d, ok ? OK : PROBLEM, "hooks", "%s: %s", a->name,
		       line + (ok ? 3 : strncmp(line, "problem ", 8) ? 0 : 8));
		if (!nl)
			break;
	}
	callus_buf_release(&out);
}

/* An agent whose hooks lived in a file of their own under the former
 * name (Copilot's .github/hooks/deja.json): while it still runs the old
 * program, each hook runs twice, or runs another tool's `deja`. */
static void check_old_file(struct doctor *d, const callus_agentconf_agent *a)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	const char *rel = callus_migrate_old_settings(a->name);

	if (!rel)
		return;
	callus_buf_printf(&path, "%s/%s", d->ws->root, rel);
	if (callus_buf_status(&path) == 0 &&
	    callus_fs_read_file(&text, path.ptr, CALLUS_AGENTCONF_FILE_MAX, &err) == 0 &&
	    callus_agentconf_count_old(a, text.ptr, text.len))
		report(d, PROBLEM, "hooks",
		       "%s: '%s' still runs %s, callus's former name: "
		       "'callus init %s' takes it out",
		       a->name, rel, CALLUS_MIGRATE_OLD_NAME, a->name);
	callus_error_release(&err);
	callus_buf_release(&path);
	callus_buf_release(&text);
}

static void check_hooks(struct doctor *d)
{
	const callus_agentconf_agent *a;
	callus_buf unset = CALLUS_BUF_INIT, path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT,
		 out = CALLUS_BUF_INIT;

	for (size_t i = 0; (a = callus_agentconf_nth(i)); i++) {
		callus_error err = CALLUS_ERROR_INIT;
		callus_agentconf_action action;
		size_t found = 0;
		int rc;

		if (d->only && strcmp(a->name, d->only) != 0)
			continue;
		check_old_file(d, a);
		callus_buf_clear(&path);
		callus_buf_printf(&path, "%s/%s", d->ws->root, a->path);
		rc = callus_fs_read_file(&text, path.ptr, CALLUS_AGENTCONF_FILE_MAX, &err);
		if (rc == CALLUS_ENOTFOUND && d->only) {
			report(d, PROBLEM, "hooks", "%s: no '%s', so %s never runs callus ('callus init "
						    "%s' adds the hook)",
			       a->name, a->path, a->title, a->name);
			continue;
		}
		if (rc == CALLUS_ENOTFOUND) {
			callus_buf_printf(&unset, "%s%s", unset.len ? ", " : "", a->name);
			continue;
		}
		/* every entry that runs callus's hook, whatever program it
		 * names, and a person's that runs it with more */
		if (rc == 0 && a->format != CALLUS_AGENTCONF_SCRIPT)
			rc = callus_agentconf_unmerge(&out, &action, &found, a, text.ptr, text.len,
						    NULL, &err);
		if (rc == 0)
			found = callus_agentconf_count_hooks(a, text.ptr, text.len);
		if (rc < 0)
			report(d, PROBLEM, "hooks", "%s: '%s' cannot be read: %s", a->name, a->path,
			       callus_error_message(&err));
		else if (!found)
			report(d, PROBLEM, "hooks",
			       "%s: '%s' exists without callus's hook, so %s's failed "
			       "checks are not "
			       "recorded ('callus init %s' adds it)",
			       a->name, a->path, a->title, a->name);
		else {
			char bad[PATH_MAX];

			hook_programs(text.ptr, text.len, bad, sizeof(bad));
			if (callus_agentconf_count_old(a, text.ptr, text.len))
				report(d, PROBLEM, "hooks",
				       "%s: '%s' still runs %s, callus's former name: 'callus init %s' "
				       "replaces it",
				       a->name, a->path, CALLUS_MIGRATE_OLD_NAME, a->name);
			else if (*bad)
				report(d, PROBLEM, "hooks",
				       "%s: '%s' runs '%s', which is not found or not executable here "
				       "(so every hook fails): run 'callus init %s' again with the callus "
				       "you mean on PATH",
				       a->name, a->path, bad, a->name);
			else if (a->format == CALLUS_AGENTCONF_SCRIPT && access(path.ptr, X_OK) < 0)
				report(d, PROBLEM, "hooks",
				       "%s: '%s' is not executable, so %s does not run it ('callus init "
				       "%s' makes it so)",
				       a->name, a->path, a->title, a->name);
			else
				report(d, OK, "hooks", "%s: callus's hook is in '%s'", a->name, a->path);
			check_trust(d, a);
			check_health(d, a);
		}
		callus_error_release(&err);
	}
	if (unset.len)
		report(d, NOTE, "hooks", "not set up: %s ('callus init AGENT' installs the hook)",
		       unset.ptr);
	callus_buf_release(&unset);
	callus_buf_release(&path);
	callus_buf_release(&text);
	callus_buf_release(&out);
}

int cli_doctor_hooks(const cli_workspace *ws, const char *agent)
{
	struct doctor d;

	memset(&d, 0, sizeof(d));
	d.ws = ws;
	d.only = agent;
	check_hooks(&d);
	return d.problems;
}

/* Whether .callus/metrics.pending holds anything but blank lines (a spool
 * taken is left one, not cut to nothing: callus_metrics_spool_read).
 * Read as a file, not as the spool: no lock that a hook's cut or a
 * recording would wait on or give up at, and no wait on a FIFO put
 * there (callus_fs_read_file opens without blocking, regular files
 * only).  One past the spool's cap holds rows. */
static int metrics_spooled(const cli_workspace *ws)
{
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	int held = 0, rc;

	if (callus_buf_printf(&path, "%s/.callus/%s", ws->root, CALLUS_METRICS_SPOOL) == 0) {
		rc = callus_fs_read_file(&text, path.ptr, 2 * CALLUS_METRICS_SPOOL_MAX, NULL);
		held = rc == CALLUS_ETOOBIG || (rc == 0 && text.len &&
						 strspn(text.ptr, " \t\r\n") < text.len);
	}
	callus_buf_release(&path);
	callus_buf_release(&text);
	return held;
}

/* The size past which the workspace's log is rotated ([retention]
 * log_kb), from the configuration doctor read. */
static size_t log_limit(const struct doctor *d)
{
	return callus_log_limit_config(d->ws->config, NULL);
}

/*
 * The files of .callus/ that callus appends to in place, and what is lost
 * while one is not its own: callus_fs_open_own refuses a link, a FIFO, or
 * a file with a second name (a hard link from elsewhere, `cp -al`, would
 * have callus's lines written there), and no writer says so, since a
 * write of the log or the metrics' spool never fails its caller.  --fix
 * gives a hard-linked file a copy of its own, by rename: the other name
 * keeps what it had, and callus writes the copy.
 */
static void check_own_files(struct doctor *d)
{
	const struct {
		const char *name, *lost;
		size_t max;
	} files[] = {
		{ "log.jsonl", "nothing is logged", 2 * log_limit(d) },
		{ CALLUS_METRICS_SPOOL, "metrics the store cannot take at once are dropped",
		  2 * CALLUS_METRICS_SPOOL_MAX },
	};
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *kind;

		callus_buf_clear(&path);
		if (callus_buf_printf(&path, "%s/.callus/%s", d->ws->root, files[i].name) < 0 ||
		    lstat(path.ptr, &st) < 0 || (S_ISREG(st.st_mode) && st.st_nlink == 1))
			continue;
		if (S_ISREG(st.st_mode)) {
			int fixed = 0;

			if (fix && callus_fs_read_file(&text, path.ptr, files[i].max, &err) == 0)
				fixed = callus_fs_write_atomic(path.ptr, text.ptr, text.len, 0600, 0,
							       &err) == 0;
			if (fixed)
				report(d, NOTE, "files",
				       ".callus/%s had %ju names (a hard link): given a copy of its "
				       "own, which callus writes",
				       files[i].name, (uintmax_t)st.st_nlink);
			else
				report(d, PROBLEM, "files",
				       ".callus/%s has %ju names (a hard link): callus writes nothing "
				       "there, and %s%s",
				       files[i].name, (uintmax_t)st.st_nlink, files[i].lost,
				       fix ? " (it could not be copied: move it away, callus makes "
					     "it again)"
					   : " ('callus doctor --fix' gives it a copy of its own)");
			callus_error_release(&err);
			continue;
		}
		kind = S_ISLNK(st.st_mode)	? "a symbolic link"
		       : S_ISFIFO(st.st_mode) ? "a FIFO"
		       : S_ISDIR(st.st_mode)	? "a folder"
						: "no regular file";
		report(d, PROBLEM, "files",
		       ".callus/%s is %s: callus writes nothing there, and %s (move it away: "
		       "callus makes the file again)",
		       files[i].name, kind, files[i].lost);
	}
	callus_buf_release(&path);
	callus_buf_release(&text);
}

/* What the log says: how many errors, and the last one.  A line cut
 * short (a write the disk had no room for, the next one appended to it)
 * is no event: counted apart, never taken for the last. */
static void check_log(struct doctor *d)
{
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	static const char level_error[] = "\"level\":\"error\"";
	const char *p;
	json_t *last = NULL;
	struct stat spool_st;
	size_t errors = 0, torn = 0;
	char size[32];

	callus_buf_printf(&path, "%s/.callus/log.jsonl", d->ws->root);
	if (callus_fs_read_file(&text, path.ptr, 2 * log_limit(d), NULL) < 0 || !text.len) {
		report(d, OK, "log", ".callus/log.jsonl: empty (no error logged)");
		goto spool;
	}
	for (p = text.ptr; *p;) {
		size_t len = strcspn(p, "\n");

		/* callus_log_event writes compact JSON: the key is spelled so */
		if (memmem(p, len, level_error, sizeof(level_error) - 1)) {
			json_t *o = json_loadb(p, len, 0, NULL);

			if (json_is_object(o)) {
				errors++;
				json_decref(last);
				last = o;
			} else {
				json_decref(o);
				torn++;
			}
		}
		p += len + (p[len] == '\n');
	}
	human(size, text.len);
	if (last) {
		const char *msg = json_string_value(json_object_get(last, "message"));
		const char *at = json_string_value(json_object_get(last, "at"));
		const char *event = json_string_value(json_object_get(last, "event"));

		report(d, NOTE, "log",
		       ".callus/log.jsonl (%s): %zu error%s, the last at %s: %s: %.*s", size, errors,
		       errors == 1 ? "" : "s", at ? at : "?", event ? event : "?",
		       msg ? line_width(msg, 160) : 0, msg ? msg : "");
	} else if (!torn) {
		report(d, OK, "log", ".callus/log.jsonl (%s): no error", size);
	}
	if (torn)
		report(d, NOTE, "log",
		       ".callus/log.jsonl: %zu error line%s cut short, not read (a write the disk "
		       "had no room for)",
		       torn, torn == 1 ? "" : "s");
	json_decref(last);
spool:
	if (cli_spool_leads_out(d->ws, &err))
		report(d, PROBLEM, "spool",
		       "%s: no hook queues a run there, and no drainer reads or removes what "
		       "lies there (remove the link: callus makes the folder)",
		       callus_error_message(&err));
	/* the queue is a folder this user's hooks write and drainers empty:
	 * one they may not write keeps nothing a busy store turns away, and
	 * holds what lies there for ever */
	callus_buf_clear(&path);
	if (callus_buf_printf(&path, "%s/.callus/spool", d->ws->root) == 0 &&
	    lstat(path.ptr, &spool_st) == 0) {
		if (!S_ISDIR(spool_st.st_mode) && !S_ISLNK(spool_st.st_mode))
			report(d, PROBLEM, "spool",
			       ".callus/spool is no folder: a hook kept waiting by a busy store "
			       "drops its failure (move it away: the next hook makes the folder)");
		else if (access(path.ptr, F_OK) == 0 && access(path.ptr, W_OK | X_OK) < 0)
			report(d, PROBLEM, "spool",
			       ".callus/spool cannot be written by this user (%s): a hook kept "
			       "waiting by a busy store drops its failure, and no drainer can remove "
			       "what is queued there (give the folder back to this user)",
			       strerror(errno));
	}
	/* a drain lock no drainer can open keeps the queue for ever */
	callus_error_release(&err);
	if (!cli_spool_lock_usable(d->ws, 0, &err)) {
		int fixed = fix && cli_spool_lock_usable(d->ws, 1, NULL);

		report(d, fixed ? NOTE : PROBLEM, "spool", "%s%s", callus_error_message(&err),
		       fixed ? ": removed (the next drainer makes it again)"
			     : fix ? " (this user cannot remove it: give .callus/spool back to it)"
				   : " ('callus doctor --fix' removes it)");
	}
	/* failures and passes a hook queued (a busy store, its deadline) that
	 * no drainer has recorded yet: one that found the store busy too long
	 * gave up, and the next hook starts another */
	if (cli_spool_pending(d->ws, NULL)) {
		if (fix)
			cli_spool_drain_later(d->ws);
		report(d, fix ? NOTE : PROBLEM, "spool",
		       "checks' runs are queued in .callus/spool, not recorded yet%s",
		       fix ? ": a drainer was started to record them"
			   : " ('callus doctor --fix', or the next hook, records them)");
	}
	if (metrics_spooled(d->ws))
		report(d, NOTE, "metrics",
		       ".callus/%s holds metrics the store could not take; the next recording "
		       "stores them",
		       CALLUS_METRICS_SPOOL);
	callus_error_release(&err);
	callus_buf_release(&path);
	callus_buf_release(&text);
}

int cmd_doctor(int argc, char **argv)
{
	struct doctor d;
	cli_workspace ws;
	int first;

	first = cli_parse(argc, argv, &cmd_doctor_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first < argc) {
		cli_error("unexpected argument '%s'; see 'callus help doctor'", argv[first]);
		return 2;
	}
	if (cli_workspace_setup(&ws, NULL, 0) < 0)
		return 1;
	memset(&d, 0, sizeof(d));
	d.ws = &ws;
	printf("workspace %s\n", ws.root);
	check_store(&d);
	check_former_store(&d);
	check_config(&d);
	check_hooks(&d);
	check_log(&d);
	check_own_files(&d);
	if (d.problems)
		printf("%d problem%s need%s attention\n", d.problems, d.problems == 1 ? "" : "s",
		       d.problems == 1 ? "s" : "");
	else
		printf("no problem found\n");
	cli_workspace_release(&ws);
	return d.problems ? 1 : 0;
}

/*
 * callus gc [--dry-run] [--json]
 *
 * Apply the retention policy ([retention] in .callus/config, gc.h) now,
 * in full: what the background pass of a recording does a batch at a
 * time, plus the sweep of .lessons/ and a VACUUM when it pays; and a store
 * an older callus redacted, redacted again whole (store_redact.h).
 */
#include "cli.h"
#include "lessons_common.h"
#include "record_common.h"

#include "callus/gc.h"
#include "callus/record.h"
#include "callus/views.h"

#include "callus/lessonmd.h"

#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int json, dry_run, background;
static long keep = LONG_MIN; /* LONG_MIN: not given */

static const cli_option gc_options[] = {
	{ CLI_OPT_FLAG, 0, "dry-run", &dry_run, NULL,
	  "say what the pass would remove now, and change nothing" },
	{ CLI_OPT_FLAG, 0, "json", &json, NULL, "print what was removed as a JSON object" },
	{ CLI_OPT_FLAG, 0, "background", &background, NULL,
	  "the bounded pass a recording starts when due; prints nothing" },
	{ CLI_OPT_INT, 0, "keep", &keep, "ID",
	  "with --background: a lesson it keeps (the one told of)" },
	CLI_END
};

const cli_spec cmd_gc_spec = {
	"callus gc [--dry-run] [--json] | callus gc --background [--keep ID]",
	"Remove what the retention policy no longer keeps: old lessons and runs, unused signatures.",
	"Lessons unseen for [retention] lesson_days (180) go (not one holding a cause,\n"
	"resolution or rule written by hand: callus record's, a note's rule), and so do\n"
	"the least valuable (one without such words first, then fewest occurrences,\n"
	"then oldest) beyond [retention] lessons (10000), with their .lessons/ files,\n"
	"but the newest lesson (its number is never given again) and the one a\n"
	"recording running the pass has just told of (one whose file a recording is\n"
	"still writing waits for the next pass, the next least valuable going instead);\n"
	"runs older than [retention] run_days (30) but a kept lesson's newest when a\n"
	"note holds its error (a note's rule reaches its lessons by it), errors that\n"
	"went away without a fix as old, and checks not run as long that no error\n"
	"names; pending errors idle for [learn] prune_hours (168); error signatures\n"
	"unseen for [retention] signature_days (180) that no note, resolution, pending\n"
	"error still kept or link needs, but the newest; the vectors (and vector file)\n"
	"of an embedding model [embed] no longer names, once no callus process (a gc\n"
	"pass, a reindex) has had it set up for [retention] model_days (30) (none while\n"
	".callus/config or [embed] cannot be read).\n"
	"Notes, resolutions and metrics are never removed. Files in .lessons/ named as\n"
	"a lesson's page (12 hex digits, then .md) that no lesson has are removed (other\n"
	"files there stay), the AGENTS.md block is written again when lessons went,\n"
	"and the store is compacted (VACUUM) when a quarter of it is free. Then what a\n"
	"crashed callus left unwritten (a debt in .callus/owed/: a lesson's file, the\n"
	"AGENTS.md block) is repaired, as the next recording would, and said (a dry\n"
	"run counts the files of every lesson without one, those it would remove too).\n"
	"Without git, the copies in .callus/snapshots.git that no snapshot kept needs go\n"
	"once a day old; the temporary files a vector file's rewrite cut short left in\n"
	".callus/ go an hour old. A [retention] value of 0 turns its rule off\n"
	"(prune_hours 0 is its default); a value that is no whole number from 0 up is\n"
	"the default's, and callus gc says so (as callus doctor does). A .callus/config\n"
	"that cannot be read at all (a line that is no key = value, an unclosed quote\n"
	"or section) may say to keep more than the defaults: callus gc then removes\n"
	"nothing and says why, exiting 1, and no recording's pass removes anything\n"
	"until it is mended (callus doctor names the line). Recordings (a\n"
	"failure's, or a lesson recorded by hand) run the same policy in the\n"
	"background, a batch at a time, once every [retention] gc_hours (24; 0:\n"
	"never): the recording starts `callus gc --background --keep ID` in a process\n"
	"of its own, which it does not wait for (a queued failure's drainer runs the\n"
	"pass itself, and so does a recording that cannot start one): at most 500\n"
	"records of each kind at a time, without the sweep of .lessons/ or VACUUM,\n"
	"lesson ID (the one the recording told of) kept, nothing printed, and what it\n"
	"removed, or why it removed nothing, said in the log. With it on, a recording\n"
	"that adds a lesson past [retention] lessons removes the least valuable at\n"
	"once (down to a hundredth under it, at most 100), so .lessons/ never holds\n"
	"more (callus import: once, at its end).\n"
	"A store an earlier callus (or deja) wrote is redacted again by this callus's\n"
	"redactor, every text of it, once: what it finds that the older one did not\n"
	"is replaced, and the lessons' pages, note files and log lines holding it\n"
	"written again.\n"
	"With --dry-run, the pass says what it would remove now and changes nothing: it\n"
	"runs in one transaction that is rolled back, each rule counting what the ones\n"
	"before it left, and the .lessons/ files, the copies and the temporary files\n"
	"are counted, not removed, and so is what a crash left unwritten; nothing is\n"
	"redacted again, rewritten or compacted;\n"
	"one that fails prints its error alone (with --json, an object of dry_run and\n"
	"error only). A pass that removed something says what in .callus/log.jsonl\n"
	"(gc_removed). That log rotates past [retention] log_kb KiB (1024; 16 to\n"
	"16384) into one .1, which callus gc cuts to its last log_kb when it holds\n"
	"more than twice that.\n"
	"Without a store nothing is removed: the .lessons/ files stay (a clone that\n"
	"commits them has no store yet), and their number is said on stderr.\n"
	"See docs/scale.md and docs/redaction.md.",
	gc_options, 0
};

/* A policy value that cannot be read is the default's, as in every
 * background pass: said here, where a person asked for the pass (callus
 * doctor names it too). */
static void warn_unread(const char *message, void *arg)
{
	(void)arg;
	cli_error("gc: %s (the default is used)", message);
}

/* How many files in .lessons/ are named as a lesson's are. */
static size_t lesson_files(const char *root)
{
	char path[PATH_MAX];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	struct stat st;

	/* a .lessons/ that links out of the workspace is none of ours to
	 * count, nor to advise removing */
	if ((size_t)snprintf(path, sizeof path, "%s/.lessons", root) >= sizeof path ||
	    lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || !(d = opendir(path)))
		return 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len == CALLUS_LESSON_ID_LEN + 3 &&
		    !strcmp(e->d_name + CALLUS_LESSON_ID_LEN, ".md") &&
		    strspn(e->d_name, "0123456789abcdef") == CALLUS_LESSON_ID_LEN)
			n++;
	}
	closedir(d);
	return n;
}

/* The instructions file the lessons' block is in, as said to a person */
static const char *agents_file(const cli_workspace *ws)
{
	const char *f = callus_config_get(ws->config, "lessons", "file");

	return f && *f ? f : "AGENTS.md";
}

/* b's counts added to a's (the two steps of gc's repair). */
static void views_add(callus_views_report *a, const callus_views_report *b)
{
	a->debts += b->debts;
	a->missing += b->missing;
	a->stale += b->stale;
	a->written += b->written;
}

/* What the repair of a crash's views did, or would do (--dry-run). */
static void repaired_said(const callus_views_report *vr, const char *agents)
{
	size_t files = dry_run ? vr->missing + vr->stale : vr->written;
	int block = dry_run ? vr->block_stale : vr->block_written;
	const char *procs = vr->debts == 1 ? "process" : "processes";

	if (!files && !block) {
		printf("%s the files %zu crashed callus %s was writing: none %s\n",
		       dry_run ? "would check" : "checked", vr->debts, procs,
		       dry_run ? "is missing or stale now" : "was missing or stale");
		return;
	}
	printf("%s what %zu crashed callus %s left unwritten:", dry_run ? "would repair" : "repaired",
	       vr->debts, procs);
	if (files)
		printf(" %zu lesson file%s", files, files == 1 ? "" : "s");
	if (block)
		printf("%s the block of %s", files ? " and" : "", agents);
	printf(" %s\n", dry_run ? "to write again" : "written again");
}

/* --background: the pass a recording starts when it is due (record.h's
 * retention_later), with the recording's bounds (cli_gc_pass). */
static int background_pass(void)
{
	cli_workspace ws;
	int rc;

	if (cli_workspace_setup(&ws, NULL, 1) < 0)
		return 1;
	rc = cli_gc_pass(&ws, keep > 0 ? (int64_t)keep : 0) < 0;
	cli_workspace_release(&ws);
	return rc;
}

int cmd_gc(int argc, char **argv)
{
	callus_error err = CALLUS_ERROR_INIT, verr = CALLUS_ERROR_INIT, rerr = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	callus_gc_policy p;
	callus_gc_result r = { 0 };
	callus_views_report vr = { 0 };
	cli_workspace ws;
	int first, rc, views = 0, failed = 0, uncounted, repair_failed = 0;

	first = cli_parse(argc, argv, &cmd_gc_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first < argc) {
		cli_error("unexpected argument '%s'; see 'callus help gc'", argv[first]);
		return 2;
	}
	if (background && (dry_run || json)) {
		cli_error("--background prints nothing: it goes with neither --dry-run nor --json");
		return 2;
	}
	if (keep != LONG_MIN && (!background || keep < 1)) {
		cli_error(background ? "--keep takes a lesson's id, a number from 1"
				     : "--keep goes with --background");
		return 2;
	}
	if (background)
		return background_pass();
	if (cli_workspace_setup(&ws, NULL, 1) < 0)
		return 1;
	/* its rules unknown, the policy removes nothing (cli_gc_policy): a
	 * pass asked for would say it removed nothing, as if that were the
	 * policy; it is refused instead */
	if (ws.config_unread) {
		callus_error_set(&err, CALLUS_EINVAL,
				 "gc: .callus/config cannot be read, so what [retention] keeps is "
				 "unknown: nothing removed (%s; 'callus doctor')",
				 ws.config_error ? ws.config_error : "out of memory");
		failed = 1;
		goto said;
	}
	/* the whole policy at once, as a person asked for it */
	cli_gc_policy(&ws, &p, warn_unread, NULL);
	p.batch = 0;
	p.sweep = 1;
	p.dry_run = dry_run;
	if ((rc = cli_open_store(&store, &ws, 0)) < 0) {
		/* said on stderr already; --json still prints an object, of
		 * the error alone */
		if (json)
			cli_print_json(json_pack("{s:b,s:s}", "dry_run", dry_run, "error",
						 "the store cannot be opened"));
		rc = 1;
		goto out;
	}
	/* Without a store nothing says which lessons its files are: a clone
	 * of a repository that commits .lessons/ has them, and its store is
	 * yet to be made.  They stay, and the user is told why. */
	if (rc > 0) {
		size_t left = lesson_files(ws.root);

		if (left)
			cli_error("gc: no store in %s/.callus: the %zu file%s in .lessons/ %s kept "
				  "(no store says which lesson's %s; remove %s by hand if the store "
				  "is gone for good)",
				  ws.root[1] ? ws.root : "", left, left == 1 ? "" : "s",
				  left == 1 ? "is" : "are",
				  left == 1 ? "it is" : "they are", left == 1 ? "it" : "them");
	}
	if (rc == 0) {
		const char *agents = callus_config_get(ws.config, "lessons", "file");
		int agents_max = (int)cli_config_long(&ws, "lessons", "max", 20);
		callus_views_report named = { 0 };

		/* What a crashed process left unwritten: the next recording
		 * would repair it, but a person running gc after a crash
		 * expects the views whole when it ends (a dry run counts it).
		 * The pages dead recordings owed first: the pass keeps every
		 * lesson a debt names (another process's repair may be
		 * writing its page), and the least valuable would stay.  The
		 * rest after the pass: a killed gc's debt has every lesson
		 * looked at, and repaired before, the pages of lessons the
		 * pass then removed were written to be removed, and counted
		 * as removed where a dry run, which writes none, could not
		 * count them (a gc killed during a removal left 500 lessons
		 * without pages: 7,414 pages removed, of 6,914 its dry run
		 * had said).  A dry run counts both after its pass (its debts
		 * stay: each would be counted twice).  Its error is said. */
		if (!dry_run && callus_views_repair(store, ws.root, agents, agents_max,
						    CALLUS_VIEWS_NAMED | CALLUS_VIEWS_FIX, &named,
						    &rerr) < 0)
			repair_failed = 1;
		rc = callus_record_gc(store, ws.root, &p, agents, agents_max, &r, &err, &views, &verr);
		if (!dry_run)
			callus_record_gc_log(ws.root, rc, &err, &r,
					     "callus gc removed what the retention policy no longer "
					     "keeps ('callus help gc')");
		if (!repair_failed &&
		    callus_views_repair(store, ws.root, agents, agents_max,
					dry_run ? 0 : CALLUS_VIEWS_FIX, &vr, &rerr) < 0)
			repair_failed = 1;
		if (repair_failed)
			cli_error("gc: the files a crashed callus left unwritten cannot be "
				  "repaired: %s", callus_error_message(&rerr));
		views_add(&vr, &named);
		if (views < 0)
			cli_error("removed %zu lesson%s, but %s still names %s: %s", r.lessons,
				  r.lessons == 1 ? "" : "s", agents_file(&ws),
				  r.lessons == 1 ? "its file" : "their files",
				  callus_error_message(&verr));
	}
	/* what went before a failure (a VACUUM out of disk, after every
	 * removal was committed) is said as well: it stays removed */
	failed = rc < 0;
said:
	rc = 0;
	/* counts of a pass that did not run, or was rolled back, are no zeros
	 * to read: its error alone is said */
	uncounted = failed && (dry_run || ws.config_unread);
	if (json && uncounted) {
		json_t *o = json_pack("{s:b,s:s}", "dry_run", dry_run, "error",
				      callus_error_message(&err));

		rc = cli_print_json(o);
	} else if (json) {
		json_t *o = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,"
				      "s:I,s:b,s:b,s:b}",
				      "lessons", (json_int_t)r.lessons, "lesson_files",
				      (json_int_t)r.lesson_files, "runs", (json_int_t)r.runs,
				      "unresolved", (json_int_t)r.unresolved, "checks",
				      (json_int_t)r.checks, "pending", (json_int_t)r.pending,
				      "signatures", (json_int_t)r.signatures, "snapshots",
				      (json_int_t)r.snapshots, "snapshot_objects",
				      (json_int_t)r.snapshot_objects, "temp_files",
				      (json_int_t)r.temp_files, "redacted", (json_int_t)r.redacted,
				      "redacted_lessons", (json_int_t)r.redacted_lessons,
				      "redacted_log", (json_int_t)r.redacted_log, "model_vectors",
				      (json_int_t)r.model_vectors, "models", (json_int_t)r.models,
				      "crashed_views", (json_int_t)vr.debts,
				      "redaction_due", r.redaction_due, "vacuumed", r.vacuumed,
				      "wal_left", r.wal_left);

		if (o && json_object_set_new(o, "dry_run", json_boolean(dry_run)) < 0) {
			json_decref(o);
			o = NULL;
		}

		/* the status is 1 either way: the reason goes with it */
		if (o && (failed || views < 0 || repair_failed))
			json_object_set_new(o, "error",
					    json_string(callus_error_message(failed	     ? &err
									     : views < 0 ? &verr
											 : &rerr)));
		rc = cli_print_json(o);
	} else if (!uncounted) {
		const char *done = dry_run ? "would remove" : "removed";

		printf("%s %zu lesson%s (%zu file%s in .lessons/), %zu run%s, %zu error%s that "
		       "went away with no fix kept, %zu idle check%s, %zu abandoned pending "
		       "error%s, "
		       "%zu signature%s, %zu snapshot%s%s\n",
		       done, r.lessons, r.lessons == 1 ? "" : "s", r.lesson_files,
		       r.lesson_files == 1 ? "" : "s", r.runs, r.runs == 1 ? "" : "s", r.unresolved,
		       r.unresolved == 1 ? "" : "s", r.checks, r.checks == 1 ? "" : "s", r.pending,
		       r.pending == 1 ? "" : "s", r.signatures, r.signatures == 1 ? "" : "s",
		       r.snapshots, r.snapshots == 1 ? "" : "s",
		       !r.vacuumed ? ""
		       : r.wal_left ? "; the store was compacted (its file shrinks once the process "
				      "reading it lets go)"
				    : "; the store was compacted");
		/* a repair that failed said so, and its counts stop short */
		if (vr.debts && !repair_failed)
			repaired_said(&vr, agents_file(&ws));
		if (r.model_vectors || r.models)
			printf("%s %zu vector%s of embedding models the workspace is no longer set "
			       "up with ([embed]; %zu model%s gone whole)\n",
			       done, r.model_vectors, r.model_vectors == 1 ? "" : "s", r.models,
			       r.models == 1 ? "" : "s");
		if (r.snapshot_objects)
			printf("%s %zu object%s of the copies in .callus/snapshots.git that no "
			       "snapshot kept needs\n",
			       done, r.snapshot_objects, r.snapshot_objects == 1 ? "" : "s");
		if (r.temp_files)
			printf("%s %zu temporary file%s a rewrite of the vector files left when "
			       "it was cut\n",
			       done, r.temp_files, r.temp_files == 1 ? "" : "s");
		if (r.redacted)
			printf("redacted again %zu stored text%s that held what this callus's "
			       "redactor finds (%zu lesson%s)\n",
			       r.redacted, r.redacted == 1 ? "" : "s", r.redacted_lessons,
			       r.redacted_lessons == 1 ? "" : "s");
		if (r.redacted_log)
			printf("redacted again %zu line%s of callus's log (.callus/log.jsonl)\n", r.redacted_log,
			       r.redacted_log == 1 ? "" : "s");
		if (dry_run && r.redaction_due)
			printf("would redact the store again: an earlier callus's redactor wrote it, "
			       "and this one finds more\n");
		if (dry_run)
			printf("nothing was changed (--dry-run)\n");
	}
	if (failed) {
		cli_error("%s", callus_error_message(&err));
		rc = 1;
	}
	/* the retention done, its view (or a crash's) not: said above, and
	 * the status */
	if (views < 0 || repair_failed)
		rc = 1;
out:
	callus_store_close(store);
	callus_error_release(&err);
	callus_error_release(&verr);
	callus_error_release(&rerr);
	cli_workspace_release(&ws);
	return rc;
}

/*
 * scale_gen - grow one workspace's store the way real use does, fast:
 * the failures of gcc checks go through the recording path of the hook
 * (callus_failure_build, callus_lesson_from_failure, callus_record_lesson
 * with learning: signatures, vectors, pending errors, suggestions, the
 * lesson's file, the AGENTS.md block), in this process instead of one
 * `callus hook` process each.  The mix, per 20 recordings: 13 new errors,
 * 5 errors seen before (recurring), and 2 fixes (the failure is snapshotted,
 * its file edited, the check passes: a resolution and a note are made by
 * callus_learn_pass as for a passing hook; the fix is committed).  Every
 * 1,000 recordings the default retention runs (callus_gc, as recordings
 * run it once a day): lessons stay at most 10,000, signatures grow.  The
 * fixes edit the files of a project of SOURCE_FILES files, so that what a
 * snapshot costs stays the same as the store grows (a file per fix grew
 * the repository with the store, and the snapshot's cost with it).
 *
 * usage: scale_gen [-d DAYS] WORKSPACE FROM TO
 *    or: scale_gen -p K      (prints error K's output, for a payload)
 *    or: scale_gen -t [-k] GAP_MS WORKSPACE FROM TO   (times new errors
 *        FROM .. TO-1 recorded in this process, GAP_MS apart; -k: the
 *        store kept open between them.  bench/kept.sh)
 *   records failures FROM .. TO-1 (so a store grows in steps, measured in
 *   between).  WORKSPACE is a git work tree (fixes diff against it);
 *   $CALLUS_GIT_HELPER names callus-git.
 *
 *   -d DAYS: the recordings happen over DAYS days that end now, evenly
 *   spaced: each recording's lesson, run, signatures, pending errors and
 *   fixes are dated so (the lesson's last_seen, learning's now), and the
 *   retention every 1,000 recordings counts ages from the time reached (the
 *   policy's now).  A store grown in one run from 0 then holds what a
 *   workspace that has recorded for that long keeps; without -d the history
 *   is as old as the run (an hour for 100,000), and no retention by age
 *   acts.  Not for a store grown in steps: each run ends its days at its own
 *   now.  The workspace's config should say `[retention] gc_hours = 0`
 *   (bench/scale.sh writes it): the background pass a recording starts
 *   counts by the clock.
 */
#include "callus/analysis.h"
#include "callus/buf.h"
#include "callus/capture.h"
#include "callus/gc.h"
#include "callus/learn.h"
#include "callus/record.h"
#include "callus/redact.h"
#include "callus/store.h"
#include "store_internal.h" /* callus_store_cache_pages */
#include "sqlmem.h"         /* cli/sqlmem.c: the CLI's allocator for SQLite */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* gcc's wording, the identifiers unquoted (gcc quotes them, and quoted
 * text is normalized away: every error would sign alike). */
static const char *const templates[] = {
	"error: implicit declaration of function %s in %s",
	"error: unknown type name %s used by %s",
	"error: too few arguments to function %s declared in %s",
	"error: incompatible types when assigning to %s from %s",
	"error: request for member %s in something not a structure %s",
	"error: conflicting types for %s previous declaration %s",
	"error: expected expression before %s token in %s",
	"error: storage size of %s is not known for %s",
	"error: invalid use of undefined type struct %s in %s",
	"error: dereferencing pointer to incomplete type %s at %s",
	"warning: unused variable %s in function %s [-Wunused-variable]",
	"warning: comparison of integer expressions of different signedness %s and %s [-Wsign-compare]",
	"error: lvalue required as left operand of assignment %s %s",
	"error: redefinition of %s first defined in %s",
	"error: array subscript %s is above array bounds of %s [-Werror=array-bounds]",
	"error: passing argument 1 of %s makes pointer from integer without a cast %s",
};
#define NTEMPLATES (sizeof(templates) / sizeof(templates[0]))

static const char *const syllables[] = {
	"ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "xe",
	"ba", "de", "fi", "go", "hu", "ja", "ze", "qi", "wo", "yu",
};

/* A word made of the syllables of n: distinct n, distinct words. */
static void word(callus_buf *b, unsigned long n)
{
	do {
		callus_buf_puts(b, syllables[n % 20]);
		n /= 20;
	} while (n);
}

/* Error k's message and file.  Errors are numbered by their first
 * appearance; its template and words are k's. */
static void error_text(callus_buf *out, callus_buf *file, unsigned long k)
{
	callus_buf a = CALLUS_BUF_INIT, b = CALLUS_BUF_INIT;

	word(&a, k * 7919 + 13);
	callus_buf_puts(&a, "_");
	word(&a, k / 3);
	word(&b, k * 104729 + 7);
	callus_buf_clear(file);
	callus_buf_printf(file, "src/d%lu/f%lu.c", k % 97, k);
	callus_buf_printf(out, "%s:%lu:%lu: ", file->ptr, 3 + k % 200, 1 + k % 30);
	callus_buf_printf(out, templates[k % NTEMPLATES], a.ptr, b.ptr);
	callus_buf_puts(out, "\n");
	callus_buf_release(&a);
	callus_buf_release(&b);
}

/* The project's sources: the file a fix of error k edits is one of them. */
#define SOURCE_FILES 1000ul

static void source_path(callus_buf *out, unsigned long k)
{
	unsigned long j = k % SOURCE_FILES;

	callus_buf_clear(out);
	callus_buf_printf(out, "src/d%lu/f%lu.c", j % 97, j);
}

typedef struct gen {
	const char *ws;
	callus_redactor *red;
	char now[32];         /* the recording's time (-d); "" : the clock */
	callus_store *store;  /* -t -k: the store, kept open; NULL: each
			       * recording opens its own */
	int timing;           /* -t: recorded as a failing hook records */
} gen;

static void learn_opts(callus_learn_opts *lo, callus_snapshot_opts *so, const gen *g,
		       const char *args, const char *command, int snapshot)
{
	static const char *const exclude[] = { ".lessons/", "AGENTS.md", NULL };

	memset(lo, 0, sizeof(*lo));
	memset(so, 0, sizeof(*so));
	so->exclude = exclude;
	so->timeout_ms = 3000;
	lo->workspace = g->ws;
	lo->check.tool = "gcc";
	lo->check.args = args;
	lo->check.dir = "";
	lo->command = command;
	lo->session = g->timing ? "" : "bench";
	lo->redactor = g->red;
	lo->snapshot = so;
	lo->no_snapshot = !snapshot;
	lo->now = g->now[0] ? g->now : NULL;
}

/* One failing run of `gcc -c FILE` printing error k. */
static int fail(const gen *g, unsigned long k, int snapshot)
{
	callus_buf out = CALLUS_BUF_INIT, file = CALLUS_BUF_INIT, cmd = CALLUS_BUF_INIT,
		   args = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	callus_capture cap;
	callus_failure f;
	callus_lesson l;
	callus_learn_opts lo;
	callus_snapshot_opts so;
	callus_record_result res;
	callus_pathctx pc = { g->ws, NULL, "", NULL };
	int rc;

	error_text(&out, &file, k);
	callus_buf_printf(&args, "-c %s", file.ptr);
	callus_buf_printf(&cmd, "gcc %s", args.ptr);
	callus_capture_init(&cap);
	callus_capture_feed(&cap, out.ptr, out.len);
	callus_capture_finish(&cap);
	{
		callus_check chk = { cmd.ptr, 1, 1, "gcc", CALLUS_LESSON_ANALYSIS };

		if ((rc = callus_failure_build(&f, &chk, &cap, &pc, &err)) < 0)
			goto out;
	}
	learn_opts(&lo, &so, g, args.ptr, cmd.ptr, snapshot);
	{
		callus_record_opts opts = {
			.workspace = g->ws,
			.cwd_rel = "",
			/* a hook without a session, showing three related
			 * lessons (cli/cmd_hook.c) */
			.intent_id = g->timing ? "" : "bench",
			.related_max = g->timing ? 3 : 0,
			.agents_max = 20,
			.timeout_ms = 10000,
			.redactor = g->red,
			.framework = callus_failure_framework(&f),
			.learn = &lo,
			.store = g->store,
		};

		if ((rc = callus_lesson_from_failure(&l, &f, &opts, &err)) == 0) {
			/* the store dates the run and its signatures by it */
			if (g->now[0]) {
				free(l.last_seen);
				if (!(l.last_seen = strdup(g->now)))
					rc = -1;
			}
			if (rc == 0)
				rc = callus_record_lesson(&l, &f.diags, f.output_bytes, &opts, &res, &err);
			if (rc == 0)
				callus_record_result_release(&res);
			callus_lesson_release(&l);
		}
	}
	callus_failure_release(&f);
out:
	if (rc < 0)
		fprintf(stderr, "scale_gen: %s\n", callus_error_message(&err));
	callus_capture_release(&cap);
	callus_error_release(&err);
	callus_buf_release(&out);
	callus_buf_release(&file);
	callus_buf_release(&cmd);
	callus_buf_release(&args);
	return rc;
}

/* Error k fixed: its file edited, its check passes. */
static int fix(const gen *g, unsigned long k)
{
	callus_buf out = CALLUS_BUF_INIT, file = CALLUS_BUF_INIT, path = CALLUS_BUF_INIT,
		   cmd = CALLUS_BUF_INIT, args = CALLUS_BUF_INIT, db = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	callus_learn_opts lo;
	callus_snapshot_opts so;
	callus_learn_result res;
	callus_store *store = NULL;
	FILE *fp;
	int rc;

	memset(&res, 0, sizeof(res));
	error_text(&out, &file, k);
	callus_buf_printf(&args, "-c %s", file.ptr);
	source_path(&file, k);
	callus_buf_printf(&path, "%s/%s", g->ws, file.ptr);
	callus_buf_printf(&cmd, "gcc %s", args.ptr);
	callus_buf_printf(&db, "%s/.callus/callus.db", g->ws);
	if (!(fp = fopen(path.ptr, "a"))) {
		rc = -1;
		goto out;
	}
	fprintf(fp, "/* fixed %lu */\nint fixed_%lu;\n", k, k);
	fclose(fp);
	learn_opts(&lo, &so, g, args.ptr, cmd.ptr, 1);
	if ((rc = callus_store_open(&store, db.ptr, 10000, &err)) < 0 ||
	    (rc = callus_learn_pass(store, &lo, &res, &err)) < 0)
		goto out;
	if (res.nfixed)
		rc = callus_record_views(store, g->ws, NULL, 20, &err);
	/* the fix is committed, as a project's fixes are: the working tree
	 * stays clean, and a snapshot's cost stays the project's own */
	if (rc == 0) {
		callus_buf git = CALLUS_BUF_INIT;

		callus_buf_printf(&git,
				  "git -C '%s' -c gc.auto=0 -c user.name=bench"
				  " -c user.email=bench@localhost commit -qm 'fix %lu' -- '%s'",
				  g->ws, k, file.ptr);
		if (system(git.ptr) != 0)
			fprintf(stderr, "scale_gen: cannot commit %s\n", file.ptr);
		callus_buf_release(&git);
	}
out:
	if (rc < 0)
		fprintf(stderr, "scale_gen: fix: %s\n", callus_error_message(&err));
	callus_learn_result_release(&res);
	callus_store_close(store);
	callus_error_release(&err);
	callus_buf_release(&out);
	callus_buf_release(&file);
	callus_buf_release(&path);
	callus_buf_release(&cmd);
	callus_buf_release(&args);
	callus_buf_release(&db);
	return rc;
}

/* The source file a fix of error k edits has some code of k (the fix
 * diffs against it). */
static void source_file(const gen *g, unsigned long k)
{
	callus_buf file = CALLUS_BUF_INIT, path = CALLUS_BUF_INIT;
	FILE *fp;

	source_path(&file, k);
	callus_buf_printf(&path, "%s/src/d%lu", g->ws, k % SOURCE_FILES % 97);
	if ((fp = fopen(path.ptr, "r")) == NULL) {
		callus_buf cmd = CALLUS_BUF_INIT;

		callus_buf_printf(&cmd, "mkdir -p '%s'", path.ptr);
		if (system(cmd.ptr) != 0)
			fprintf(stderr, "scale_gen: cannot mkdir %s\n", path.ptr);
		callus_buf_release(&cmd);
	} else {
		fclose(fp);
	}
	callus_buf_clear(&path);
	callus_buf_printf(&path, "%s/%s", g->ws, file.ptr);
	if ((fp = fopen(path.ptr, "w"))) {
		callus_buf cmd = CALLUS_BUF_INIT;

		fprintf(fp, "int f%lu(int n)\n{\n\treturn n + %lu;\n}\n", k, k);
		fclose(fp);
		/* tracked, as a project's sources are: a snapshot hashes only
		 * what changed */
		callus_buf_printf(&cmd, "git -C '%s' add '%s'", g->ws, file.ptr);
		if (system(cmd.ptr) != 0)
			fprintf(stderr, "scale_gen: cannot git add %s\n", file.ptr);
		callus_buf_release(&cmd);
	}
	callus_buf_release(&file);
	callus_buf_release(&path);
}

static int gc(const gen *g)
{
	callus_buf db = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	callus_gc_policy p;
	int rc;

	callus_gc_policy_default(&p);
	p.sweep = 0;
	p.now = g->now[0] ? g->now : NULL;
	callus_buf_printf(&db, "%s/.callus/callus.db", g->ws);
	if ((rc = callus_store_open(&store, db.ptr, 10000, &err)) == 0)
		rc = callus_gc(store, g->ws, &p, NULL, &err);
	if (rc < 0)
		fprintf(stderr, "scale_gen: gc: %s\n", callus_error_message(&err));
	callus_store_close(store);
	callus_error_release(&err);
	callus_buf_release(&db);
	return rc;
}

static double ms(struct timeval t)
{
	return (double)t.tv_sec * 1e3 + (double)t.tv_usec / 1e3;
}

/*
 * -t: new errors FROM .. TO-1 recorded one by one, GAP_MS apart, each
 * without its snapshot (as a failing hook records one), and the CPU and
 * wall ms of each printed on a line: what recording costs without a
 * process's start and end.  With the store kept open (-k) the schema is
 * parsed once, the statements the store keeps are compiled once (about
 * half of a recording's) and pages are kept between recordings, as a
 * process that stays (a server) would; the first two
 * lines are the caller's to leave out: the store's opening, and the
 * recording that compiles again what the store keeps from a statement's
 * second use (src/store.c).
 */
static int timed(gen *g, unsigned long from, unsigned long to, int keep, unsigned long gap_ms)
{
	callus_buf db = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	int rc = 0;

	callus_buf_printf(&db, "%s/.callus/callus.db", g->ws);
	for (unsigned long i = from; i < to && rc == 0; i++) {
		struct rusage a, b;
		struct timespec w0, w1;

		if (gap_ms)
			usleep((useconds_t)(gap_ms * 1000));
		getrusage(RUSAGE_SELF, &a);
		clock_gettime(CLOCK_MONOTONIC, &w0);
		if (keep && !g->store) {
			if ((rc = callus_store_open(&g->store, db.ptr, 10000, &err)) < 0) {
				fprintf(stderr, "scale_gen: %s\n", callus_error_message(&err));
				break;
			}
			/* the cache a recording gives a store it opens
			 * (src/record.c): only keeping it open differs */
			callus_store_cache_pages(g->store, 64);
		}
		rc = fail(g, i, 0);
		clock_gettime(CLOCK_MONOTONIC, &w1);
		getrusage(RUSAGE_SELF, &b);
		printf("%.3f %.3f\n", ms(b.ru_utime) - ms(a.ru_utime) + ms(b.ru_stime) - ms(a.ru_stime),
		       (double)(w1.tv_sec - w0.tv_sec) * 1e3 + (double)(w1.tv_nsec - w0.tv_nsec) / 1e6);
		fflush(stdout);
	}
	callus_store_close(g->store);
	g->store = NULL;
	callus_error_release(&err);
	callus_buf_release(&db);
	return rc;
}

/* s as a whole decimal number: 0, or -1 for anything else. */
static int number(const char *s, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return *s >= '0' && *s <= '9' && !*end && !errno ? 0 : -1;
}

int main(int argc, char **argv)
{
	callus_error err = CALLUS_ERROR_INIT;
	unsigned long from, to, errors = 0, days = 0;
	time_t end = time(NULL);
	gen g;

	if (argc == 3 && !strcmp(argv[1], "-p")) {
		callus_buf out = CALLUS_BUF_INIT, file = CALLUS_BUF_INIT;

		if (number(argv[2], &from) < 0)
			goto usage;
		error_text(&out, &file, from);
		fputs(out.ptr, stdout);
		callus_buf_release(&out);
		callus_buf_release(&file);
		return 0;
	}
	memset(&g, 0, sizeof(g));
	if (argc >= 2 && !strcmp(argv[1], "-t")) {
		unsigned long gap;
		int keep = argc == 7 && !strcmp(argv[2], "-k"), rc;

		/* as the callus binary sets them up (cli/main.c): what is
		 * timed differs from a hook's recording only by its process */
		cli_sqlmem_process();

		if (argc != 6 + keep || number(argv[2 + keep], &gap) < 0 || gap > 60000 ||
		    number(argv[4 + keep], &from) < 0 || number(argv[5 + keep], &to) < 0 || to < from)
			goto usage;
		g.ws = argv[3 + keep];
		g.timing = 1;
		if (callus_redactor_new(&g.red, &err) < 0) {
			fprintf(stderr, "scale_gen: %s\n", callus_error_message(&err));
			return 1;
		}
		rc = timed(&g, from, to, keep, gap);
		callus_redactor_free(g.red);
		return rc < 0 ? 1 : 0;
	}
	if (argc == 6 && !strcmp(argv[1], "-d")) {
		if (number(argv[2], &days) < 0 || !days)
			goto usage;
		argc -= 2;
		argv += 2;
	}
	if (argc != 4 || number(argv[2], &from) < 0 || number(argv[3], &to) < 0 || to < from)
		goto usage;
	g.ws = argv[1];
	if (callus_redactor_new(&g.red, &err) < 0) {
		fprintf(stderr, "scale_gen: %s\n", callus_error_message(&err));
		return 1;
	}
	/* error numbers follow recording numbers: recording i's new error is
	 * number i (the mix below leaves gaps, which is fine) */
	for (unsigned long i = from; i < to; i++) {
		unsigned long slot = i % 20;
		int rc;

		if (days) {
			time_t t = end - (time_t)((double)(to - i) * (double)days * 86400.0 /
						  (double)(to - from));
			struct tm tm;

			gmtime_r(&t, &tm);
			strftime(g.now, sizeof(g.now), "%Y-%m-%dT%H:%M:%S.000Z", &tm);
		}

		if (slot < 13 || i < 20) {
			rc = fail(&g, i, 0);
		} else if (slot < 18) {
			/* one seen before, spread over the whole history */
			unsigned long k = (i * 2654435761u) % i;

			k -= k % 20;   /* a new error's number (slot 0) */
			rc = fail(&g, k, 0);
		} else {
			/* fixed: failed with its snapshot, edited, passes */
			source_file(&g, i);
			if ((rc = fail(&g, i, 1)) == 0)
				rc = fix(&g, i);
		}
		if (rc < 0 && ++errors > 10)
			break;
		/* the retention a recording applies once a day, here every
		 * 1,000 recordings: the default policy bounds the lessons
		 * (and .lessons/) to 10,000 while signatures keep growing */
		if ((i + 1) % 1000 == 0 && gc(&g) < 0 && ++errors > 10)
			break;
	}
	callus_redactor_free(g.red);
	return errors ? 1 : 0;
usage:
	fprintf(stderr, "usage: scale_gen [-d DAYS] WORKSPACE FROM TO\n"
			"       scale_gen -p K\n"
			"       scale_gen -t [-k] GAP_MS WORKSPACE FROM TO\n");
	return 2;
}

/*
 * deja doctor: what needs attention in this workspace's deja setup.
 *
 * It reads and never writes: the store is opened as it is (no migration,
 * no new file), so that a broken or newer store can be examined, and
 * nothing is repaired behind the user's back.  Each finding is one line,
 * "ok", "note" (worth knowing) or "problem" (needs attention: the exit
 * status is 1 when there is any).
 */
#include "cli.h"
#include "hook_health.h"

#include "deja/agentconf.h"
#include "deja/buf.h"
#include "deja/fsutil.h"
#include "deja/lesson.h"
#include "deja/log.h"
#include "deja/metrics.h"
#include "deja/store.h"

#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DOCTOR_MAX_ITEMS 1000 /* spec 004: the default bloat threshold */
#define DOCTOR_SUGGESTIONS 10 /* cleanup candidates listed */

static int quick;

static const cli_option doctor_options[] = {
	{ CLI_OPT_FLAG, 0, "quick", &quick, NULL,
	  "check the store with quick_check (skips the index contents) instead of "
	  "integrity_check" },
	CLI_END
};

const cli_spec cmd_doctor_spec = {
	"deja doctor [--quick]",
	"Check this workspace's store, configuration, agent hooks and storage size.",
	"Reports, one line each: the store's integrity, size and schema version; errors\n"
	"and bad values in .deja/config; for every agent, whether deja's hook is in its\n"
	"settings file; the lessons per layer against the bloat threshold ([doctor]\n"
	"max_items, default 1000), with the lowest-value lessons (fewest occurrences,\n"
	"oldest) as cleanup candidates when it is exceeded; and what .deja/log.jsonl\n"
	"and .deja/metrics.pending hold.  Writes nothing.  Exits 1 when something\n"
	"needs attention ('problem' lines), 0 otherwise.",
	doctor_options, 0
};

enum { OK, NOTE, PROBLEM };

struct doctor {
	const cli_workspace *ws;
	int problems;
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
	deja_buf p = DEJA_BUF_INIT;
	struct stat st;
	int yes = deja_buf_printf(&p, "%s/%s", root, rel) == 0 && stat(p.ptr, &st) == 0;

	deja_buf_release(&p);
	return yes;
}

static uint64_t file_size(const char *root, const char *rel)
{
	deja_buf p = DEJA_BUF_INIT;
	struct stat st;
	uint64_t n = 0;

	if (deja_buf_printf(&p, "%s/%s", root, rel) == 0 && stat(p.ptr, &st) == 0)
		n = (uint64_t)st.st_size;
	deja_buf_release(&p);
	return n;
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

static void bloat(struct doctor *d, deja_store *store, int64_t lessons)
{
	deja_error err = DEJA_ERROR_INIT;
	deja_lesson_filter f = { NULL, NULL, NULL, DOCTOR_SUGGESTIONS };
	deja_lesson *ls = NULL;
	size_t n = 0;
	long max;

	/* a bad value is reported with the configuration */
	deja_config_get_long(&max, d->ws->config, "doctor", "max_items", DOCTOR_MAX_ITEMS, 1,
			     LONG_MAX, NULL);
	if (lessons <= max) {
		report(d, OK, "storage", "%s layer: %lld lesson%s (threshold %ld)",
		       DEJA_LAYER_PROJECT, (long long)lessons, lessons == 1 ? "" : "s", max);
		return;
	}
	report(d, PROBLEM, "storage",
	       "%s layer: %lld lessons, over the threshold of %ld ([doctor] max_items); "
	       "cleanup candidates, lowest value first (fewest occurrences, oldest):",
	       DEJA_LAYER_PROJECT, (long long)lessons, max);
	if (deja_store_list_lowest_value(store, &f, &ls, &n, &err) < 0) {
		report(d, PROBLEM, "storage", "cannot list the lessons: %s",
		       deja_error_message(&err));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const char *sum = ls[i].error_summary ? ls[i].error_summary : "";

		printf("%20s#%-5lld x%-4lld last seen %.10s  %s %s %s: %.*s\n", "",
		       (long long)ls[i].id, (long long)ls[i].occurrences, ls[i].last_seen,
		       deja_lesson_type_name(ls[i].type), ls[i].tool,
		       *ls[i].file ? ls[i].file : "-", line_width(sum, 60), sum);
	}
out:
	deja_lessons_free(ls, n);
	deja_error_release(&err);
}

static void report_damage(struct doctor *d, const char *rel, const char *problems)
{
	report(d, PROBLEM, "integrity",
	       "%s is damaged according to %s (first problems below); 'sqlite3 %s REINDEX' "
	       "repairs an index, else move the file aside and deja starts a new one",
	       rel, quick ? "quick_check" : "integrity_check", rel);
	for (const char *p = problems; *p;) {
		size_t len = strcspn(p, "\n");

		printf("%20s%.*s\n", "", (int)len, p);
		p += len + (p[len] == '\n');
	}
}

static void check_store(struct doctor *d)
{
	deja_error err = DEJA_ERROR_INIT;
	deja_store *store = NULL;
	deja_store_stats st;
	deja_buf path = DEJA_BUF_INIT;
	char *problems = NULL, size[32], wal[32], free_space[32];
	const char *rel = ".deja/deja.db";
	int rc;

	deja_buf_printf(&path, "%s/%s", d->ws->root, rel);
	rc = deja_buf_status(&path) < 0
		 ? deja_error_set(&err, DEJA_ENOMEM, "out of memory")
		 : deja_store_open_existing(
		       &store, path.ptr, (int)cli_config_long(d->ws, "store", "timeout_ms", 10000),
		       &err);
	if (rc == DEJA_ENOTFOUND) {
		report(d, OK, "store", "%s: none yet (nothing recorded in this workspace)", rel);
		goto out;
	}
	if (rc < 0 || (rc = deja_store_stats_get(store, &st, &err)) < 0) {
		report(d, PROBLEM, "store",
		       "%s cannot be read: %s (move it aside: deja starts a new one)", rel,
		       deja_error_message(&err));
		goto out;
	}
	human(size, st.db_bytes);
	human(wal, file_size(d->ws->root, ".deja/deja.db-wal"));
	human(free_space, st.free_bytes);
	if (st.schema_version > DEJA_STORE_SCHEMA_VERSION)
		report(d, PROBLEM, "store",
		       "%s has schema version %d, newer than this deja's (%d): a newer "
		       "deja wrote "
		       "it, and this one will not record there",
		       rel, st.schema_version, DEJA_STORE_SCHEMA_VERSION);
	else if (st.schema_version < DEJA_STORE_SCHEMA_VERSION)
		report(d, NOTE, "store",
		       "%s has schema version %d: deja brings it to %d at its next write", rel,
		       st.schema_version, DEJA_STORE_SCHEMA_VERSION);
	if (st.lessons >= 0)
		report(d, OK, "store", "%s: schema %d, %lld lesson%s, %lld run%s, %s (%s free), "
		       "write-ahead log %s", rel, st.schema_version, (long long)st.lessons,
		       st.lessons == 1 ? "" : "s", (long long)st.runs, st.runs == 1 ? "" : "s", size,
		       free_space, wal);
	else
		report(d, OK, "store", "%s: schema %d, %s (%s free), write-ahead log %s", rel,
		       st.schema_version, size, free_space, wal);
	if (deja_store_integrity(store, quick, &problems, &err) < 0)
		report(d, PROBLEM, "integrity", "%s cannot be checked: %s", rel,
		       deja_error_message(&err));
	else if (problems)
		report_damage(d, rel, problems);
	else
		report(d, OK, "integrity", "%s: no problem found (%s)", rel,
		       quick ? "quick_check" : "integrity_check");
	if (st.lessons >= 0)
		bloat(d, store, st.lessons);
out:
	free(problems);
	deja_store_close(store);
	deja_buf_release(&path);
	deja_error_release(&err);
}

/* The integer keys deja reads, with the values it accepts. */
static const struct {
	const char *section, *key;
	long min, max;
} int_keys[] = {
	{ "lessons", "max", 1, INT_MAX },
	{ "store", "timeout_ms", 1, INT_MAX },
	{ "hook", "context_chars", 0, INT_MAX },
	{ "doctor", "max_items", 1, LONG_MAX },
};

/* Mirrors record.c: the lessons file must stay inside the workspace. */
static int inside_workspace(const char *p)
{
	if (!*p || *p == '/')
		return 0;
	for (const char *s = p; *s; s++)
		if (s[0] == '.' && s[1] == '.' && (s[2] == '/' || !s[2]) &&
		    (s == p || s[-1] == '/'))
			return 0;
	return 1;
}

static void check_config(struct doctor *d)
{
	const deja_config_entry *e;
	int bad = 0;

	if (d->ws->config_error) {
		report(d, PROBLEM, "config", "%s (deja uses the built-in defaults instead)",
		       d->ws->config_error);
		return;
	}
	for (size_t i = 0; i < sizeof(int_keys) / sizeof(int_keys[0]); i++) {
		deja_error err = DEJA_ERROR_INIT;
		long v;

		if (deja_config_get_long(&v, d->ws->config, int_keys[i].section, int_keys[i].key, 0,
					 int_keys[i].min, int_keys[i].max, &err) < 0) {
			report(d, PROBLEM, "config", "%s (the default is used)",
			       deja_error_message(&err));
			bad++;
		}
		deja_error_release(&err);
	}
	if ((e = deja_config_lookup(d->ws->config, "lessons", "file")) &&
	    !inside_workspace(e->value)) {
		report(d, PROBLEM, "config",
		       "'%s' line %u: 'lessons.file' must be a path inside the "
		       "workspace, got '%s' "
		       "(lessons cannot be recorded)",
		       deja_config_name(d->ws->config), e->line, e->value);
		bad++;
	}
	if (!bad)
		report(d, OK, "config", "%s",
		       exists(d->ws->root, DEJA_CONFIG_FILE)
			   ? "no error in .deja/config"
			   : "no .deja/config: the defaults apply");
}


/* Whether program (a bare name: looked up in PATH) can be run. */
static int runnable(const char *program)
{
	const char *path = getenv("PATH"), *p, *e;
	deja_buf b = DEJA_BUF_INIT;
	int ok = 0;

	if (strchr(program, '/'))
		return access(program, X_OK) == 0;
	for (p = path ? path : "/usr/bin:/bin"; !ok && *p; p = *e ? e + 1 : e) {
		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		deja_buf_clear(&b);
		deja_buf_printf(&b, "%.*s/%s", (int)(e - p), e > p ? p : ".", program);
		ok = deja_buf_status(&b) == 0 && access(b.ptr, X_OK) == 0;
	}
	deja_buf_release(&b);
	return ok;
}

/*
 * The program of each deja hook command in a settings file's text: the
 * word before " hook " that is "deja" or a path ending in "/deja".  The
 * first one that cannot be run is copied to bad (empty when all can).
 */
static void hook_programs(const char *text, size_t len, char *bad, size_t badlen)
{
	const char *p = text, *end = text + len, *q;

	*bad = '\0';
	while ((q = memmem(p, (size_t)(end - p), "deja hook ", 10))) {
		const char *w = q;
		char prog[PATH_MAX];

		p = q + 10;
		if (w > text && !strchr(" \t\"'\n", w[-1]) && w[-1] != '/')
			continue; /* another word ending in deja */
		while (w > text && !strchr(" \t\"'\n", w[-1]))
			w--;
		if ((size_t)(q + 4 - w) >= sizeof(prog))
			continue;
		memcpy(prog, w, (size_t)(q + 4 - w));
		prog[q + 4 - w] = '\0';
		if (!runnable(prog)) {
			snprintf(bad, badlen, "%s", prog);
			return;
		}
	}
}

/* What the hook last made of this agent's payloads (hook_health.h). */
static void check_health(struct doctor *d, const deja_agentconf_agent *a)
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
		       "send a format deja does not know",
		       a->name, when, h.detail, a->title);
	else
		report(d, PROBLEM, "hooks",
		       "%s: the last check's payload (%s, %s) carried no exit status deja could "
		       "read: nothing was learnt from it; this version of %s may send a format "
		       "deja does not know",
		       a->name, when, h.detail, a->title);
}

/*
 * Codex runs a project's hooks only when the project is trusted and each
 * hook was reviewed, both recorded in the user's config.toml
 * ($CODEX_HOME, else ~/.codex): [projects."DIR"] trust_level = "trusted",
 * and [hooks.state."DIR/.codex/hooks.json:EVENT:I:J"] trusted_hash = ...
 * (a hash of the hook's definition, which Codex checks itself: a changed
 * hook is no longer trusted).  Read, never written; a plain text scan of
 * the few lines that matter, not a TOML parser.
 */
static void check_codex_trust(struct doctor *d)
{
	const char *home = getenv("CODEX_HOME"), *p, *end;
	deja_buf path = DEJA_BUF_INIT, text = DEJA_BUF_INIT, key = DEJA_BUF_INIT;
	deja_error err = DEJA_ERROR_INIT;
	const char *root = d->ws->root_real ? d->ws->root_real : d->ws->root;
	int trusted = 0, reviewed = 0;

	if (home && *home)
		deja_buf_printf(&path, "%s/config.toml", home);
	else if ((home = getenv("HOME")))
		deja_buf_printf(&path, "%s/.codex/config.toml", home);
	if (!path.len || deja_buf_status(&path) < 0)
		goto out;
	if (deja_fs_read_file(&text, path.ptr, 4u << 20, &err) < 0) {
		report(d, PROBLEM, "hooks",
		       "codex: no %s, so this project is not trusted: Codex runs no hook here "
		       "(see 'deja init codex')",
		       path.ptr);
		goto out;
	}
	deja_buf_printf(&key, "[projects.\"%s\"]", root);
	if (deja_buf_status(&key) == 0 && (p = strstr(text.ptr, key.ptr))) {
		end = strstr(p + key.len, "\n[");
		end = end ? end : text.ptr + text.len;
		for (const char *q = p; (q = strstr(q, "trust_level")) && q < end; q++) {
			const char *v = strchr(q, '"');

			if (v && v < end && !strncmp(v, "\"trusted\"", 9))
				trusted = 1;
		}
	}
	deja_buf_clear(&key);
	deja_buf_printf(&key, "[hooks.state.\"%s/.codex/hooks.json:", root);
	for (p = text.ptr; deja_buf_status(&key) == 0 && (p = strstr(p, key.ptr)); p += key.len) {
		end = strstr(p + key.len, "\n[");
		end = end ? end : text.ptr + text.len;
		const char *q = strstr(p, "trusted_hash");

		if (q && q < end)
			reviewed++;
	}
	if (!trusted)
		report(d, PROBLEM, "hooks",
		       "codex: this project is not trusted in %s: Codex runs no hook here (trust it "
		       "when Codex asks, or trust_level = \"trusted\" under [projects.\"%s\"])",
		       path.ptr, root);
	if (!reviewed)
		report(d, PROBLEM, "hooks",
		       "codex: deja's hooks were never reviewed in Codex's /hooks (%s has no "
		       "trusted_hash for them): Codex runs none of them",
		       path.ptr);
	else if (trusted)
		report(d, OK, "hooks",
		       "codex: the project is trusted and %d of deja's hooks were reviewed (Codex "
		       "checks each one's hash: review again after changing them)",
		       reviewed);
out:
	deja_error_release(&err);
	deja_buf_release(&path);
	deja_buf_release(&text);
	deja_buf_release(&key);
}

static void check_hooks(struct doctor *d)
{
	const deja_agentconf_agent *agents;
	deja_buf unset = DEJA_BUF_INIT, path = DEJA_BUF_INIT, text = DEJA_BUF_INIT,
		 out = DEJA_BUF_INIT;
	size_t n;

	agents = deja_agentconf_agents(&n);
	for (size_t i = 0; i < n; i++) {
		const deja_agentconf_agent *a = &agents[i];
		deja_error err = DEJA_ERROR_INIT;
		deja_agentconf_action action;
		size_t found = 0;
		int rc;

		deja_buf_clear(&path);
		deja_buf_printf(&path, "%s/%s", d->ws->root, a->path);
		rc = deja_fs_read_file(&text, path.ptr, DEJA_AGENTCONF_FILE_MAX, &err);
		if (rc == DEJA_ENOTFOUND) {
			deja_buf_printf(&unset, "%s%s", unset.len ? ", " : "", a->name);
			continue;
		}
		/* the entries deja_init would take out are the hook, whatever
		 * program they run */
		if (rc == 0)
			rc = deja_agentconf_unmerge(&out, &action, &found, a, text.ptr, text.len,
						    NULL, &err);
		if (rc < 0)
			report(d, PROBLEM, "hooks", "%s: '%s' cannot be read: %s", a->name, a->path,
			       deja_error_message(&err));
		else if (!found)
			report(d, PROBLEM, "hooks",
			       "%s: '%s' exists without deja's hook, so %s's failed "
			       "checks are not "
			       "recorded ('deja init %s' adds it)",
			       a->name, a->path, a->title, a->name);
		else {
			char bad[PATH_MAX];

			hook_programs(text.ptr, text.len, bad, sizeof(bad));
			if (*bad)
				report(d, PROBLEM, "hooks",
				       "%s: '%s' runs '%s', which is not found or not executable here "
				       "(so every hook fails): run 'deja init %s' again with the deja "
				       "you mean on PATH",
				       a->name, a->path, bad, a->name);
			else
				report(d, OK, "hooks", "%s: deja's hook is in '%s'", a->name, a->path);
			if (!strcmp(a->name, "codex"))
				check_codex_trust(d);
			check_health(d, a);
		}
		deja_error_release(&err);
	}
	if (unset.len)
		report(d, NOTE, "hooks", "not set up: %s ('deja init AGENT' installs the hook)",
		       unset.ptr);
	deja_buf_release(&unset);
	deja_buf_release(&path);
	deja_buf_release(&text);
	deja_buf_release(&out);
}

/* What the log says: how many errors, and the last one. */
static void check_log(struct doctor *d)
{
	deja_buf path = DEJA_BUF_INIT, text = DEJA_BUF_INIT;
	static const char level_error[] = "\"level\":\"error\"";
	const char *p, *last = NULL;
	size_t errors = 0;
	char size[32];

	deja_buf_printf(&path, "%s/.deja/log.jsonl", d->ws->root);
	if (deja_fs_read_file(&text, path.ptr, 2 * DEJA_LOG_MAX_BYTES, NULL) < 0 || !text.len) {
		report(d, OK, "log", ".deja/log.jsonl: empty (no error logged)");
		goto spool;
	}
	for (p = text.ptr; *p;) {
		size_t len = strcspn(p, "\n");

		/* deja_log_event writes compact JSON: the key is spelled so */
		if (memmem(p, len, level_error, sizeof(level_error) - 1)) {
			errors++;
			last = p;
		}
		p += len + (p[len] == '\n');
	}
	human(size, text.len);
	if (last) {
		json_t *o = json_loadb(last, strcspn(last, "\n"), 0, NULL);
		const char *msg = json_string_value(json_object_get(o, "message"));
		const char *at = json_string_value(json_object_get(o, "at"));
		const char *event = json_string_value(json_object_get(o, "event"));

		report(d, NOTE, "log",
		       ".deja/log.jsonl (%s): %zu error%s, the last at %s: %s: %.*s", size, errors,
		       errors == 1 ? "" : "s", at ? at : "?", event ? event : "?",
		       msg ? line_width(msg, 160) : 0, msg ? msg : "");
		json_decref(o);
	} else {
		report(d, OK, "log", ".deja/log.jsonl (%s): no error", size);
	}
spool:
	if (exists(d->ws->root, ".deja/" DEJA_METRICS_SPOOL))
		report(d, NOTE, "metrics",
		       ".deja/%s holds metrics the store could not take; the next recording "
		       "stores them",
		       DEJA_METRICS_SPOOL);
	deja_buf_release(&path);
	deja_buf_release(&text);
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
		cli_error("unexpected argument '%s'; see 'deja help doctor'", argv[first]);
		return 2;
	}
	if (cli_workspace_setup(&ws, NULL, 0) < 0)
		return 1;
	memset(&d, 0, sizeof(d));
	d.ws = &ws;
	printf("workspace %s\n", ws.root);
	check_store(&d);
	check_config(&d);
	check_hooks(&d);
	check_log(&d);
	if (d.problems)
		printf("%d problem%s need%s attention\n", d.problems, d.problems == 1 ? "" : "s",
		       d.problems == 1 ? "s" : "");
	else
		printf("no problem found\n");
	cli_workspace_release(&ws);
	return d.problems ? 1 : 0;
}

/*
 * callus import: learn from the checks the agents already ran, read from
 * the transcripts they keep (include/callus/import.h, docs/import.md).
 *
 * Each verification command of a transcript goes through the hook's own
 * recording (cli_replay_failure, cli_replay_pass: lessons, signatures,
 * pending -> fixed/permanent, notes), at the time the transcript gives;
 * the fix is made of the transcript's own edits between the failure and
 * the passing run, since the working tree of that time is gone.  Each
 * workspace's history goes to that workspace's store.  A watermark per
 * transcript file (in the user's data directory) makes a second import
 * read only what is new.
 */
#include "cli.h"
#include "hook_spool.h"
#include "lessons_common.h"
#include "record_common.h"

#include "callus/buf.h"
#include "callus/capture.h"
#include "callus/failtext.h"
#include "callus/fsutil.h"
#include "callus/hash.h"
#include "callus/import.h"
#include "callus/lesson.h"
#include "callus/paths.h"
#include "callus/redact.h"
#include "callus/store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *opt_agent, *opt_since, *opt_project;
static int opt_dry_run, opt_quiet;

static const cli_option import_options[] = {
	{ CLI_OPT_STRING, 0, "agent", &opt_agent, "AGENT",
	  "only AGENT's transcripts (claude-code, codex, gemini, copilot)" },
	{ CLI_OPT_STRING, 0, "since", &opt_since, "DATE",
	  "only what happened since DATE (YYYY-MM-DD, UTC)" },
	{ CLI_OPT_STRING, 0, "project", &opt_project, "DIR",
	  "only the workspace of DIR (also one outside your home)" },
	{ CLI_OPT_FLAG, 'n', "dry-run", &opt_dry_run, NULL,
	  "read and count, write nothing (no store, no watermark)" },
	{ CLI_OPT_FLAG, 'q', "quiet", &opt_quiet, NULL, "no progress line, only the summary" },
	CLI_END
};

const cli_spec cmd_import_spec = {
	"callus import [--agent AGENT] [--since DATE] [--project DIR] [--dry-run] [--quiet]",
	"Learn from the checks the agents already ran: their transcripts, replayed.",
	"Reads the transcripts the agents keep of their sessions (Claude Code:\n"
	"~/.claude/projects; Codex: ~/.codex/sessions; Gemini CLI: ~/.gemini/tmp;\n"
	"Copilot CLI: ~/.copilot/session-state) and replays each verification command\n"
	"of each workspace as the hook would have recorded it: failures become lessons\n"
	"and pending errors, and a later passing run of the same check fixes them with\n"
	"the edits the agent made in between as the resolution's diff, and a hindsight\n"
	"note.  Everything is redacted as a live recording is; nothing is sent\n"
	"anywhere.  Each workspace's history goes to its own store (.callus/);\n"
	"workspaces that no longer exist, and those outside your home (unless named by\n"
	"--project), are skipped and counted.  Importing again reads only what was\n"
	"added since (a watermark per transcript file, kept in\n"
	"$XDG_DATA_HOME/callus/import-watermarks.tsv); what an import cut short reads\n"
	"again, and a failure the hook recorded when it ran (the same session and\n"
	"command within a minute; what hooks queued is recorded first), are not counted\n"
	"twice; checks older than the runs 'callus gc' has removed are not replayed.\n"
	"History closes no error that failed after it.  A malformed or truncated line\n"
	"is skipped and counted.  One import runs at a time for a user: a second one\n"
	"waits for the first (it holds $XDG_DATA_HOME/callus/import.lock), then reads\n"
	"what is left.\n"
	"'callus init AGENT --import' imports the agent's history of the current\n"
	"workspace.  docs/import.md has the formats read.",
	import_options, 0
};

/* Edits kept per workspace while a check has an open failure: so many, so
 * large in all (the oldest go first), each cut at EDIT_BYTES_MAX (a fix's
 * diff is cut at [learn] diff_max_bytes, 64 KiB, anyway). */
#define EDITS_MAX 512
#define EDITS_BYTES_MAX (2u << 20)
#define EDIT_BYTES_MAX (256u << 10)
/* Watermarks written every this many files (and at the end), in the
 * user's data directory. */
#define SAVE_EVERY 200
#define MARKS_FILE "import-watermarks.tsv"

typedef struct edit {
	char *path, *hunks;
	int created, deleted;
} edit;

typedef struct open_check {
	char *key;     /* tool, args, dir */
	size_t start;  /* the first edit after its first failure */
} open_check;

/* Runs an import compares a transcript's failures with, each taken by
 * one failure at most. */
typedef struct seen_runs {
	callus_run_seen *r;
	unsigned char *used;
	size_t n;
} seen_runs;

typedef struct wsitem {
	char *root;           /* realpath */
	cli_workspace ws;
	edit *edits;
	size_t nedits;
	size_t edit_bytes;       /* their hunks' bytes */
	callus_store *hold;      /* the store kept open while the import runs */
	open_check *open;
	size_t nopen;
	seen_runs live;          /* the runs stored before the import that it
				  * did not store: a hook's (recorded_live) */
	seen_runs queued;        /* the failures hooks queued that no drainer
				  * could record first */
	int64_t gone_before;     /* older runs may be gone (callus gc): no
				  * check older is replayed; 0: none */
	int store_read;          /* the three read (read_store) */
	int used;
} wsitem;

typedef struct stats {
	uint64_t files, files_read, commands, checks, failures, passes, fixes, notes, unchanged;
	uint64_t missing_events;
	uint64_t again;       /* failures a replay before stored already */
	uint64_t live;        /* failures a hook recorded when they ran */
	uint64_t queued;      /* failures a hook queued, still unrecorded */
	uint64_t older;       /* checks older than the runs the store keeps */
} stats;

typedef struct importer {
	char *home, *project;
	wsitem *ws;
	size_t nws;
	char *last_cwd;       /* the cache of the last event's directory */
	wsitem *last_ws;      /* NULL: skipped */
	int last_gone;        /* skipped because the directory is gone */
	callus_strlist missing, outside;
	stats st;
	callus_import_counts counts;
	int filtered;         /* this file's read skipped events by a filter */
	int tty;
	struct timespec last_progress;
	size_t nfiles, ifile;
	const char *agent;
} importer;

/* ---- watermarks ---------------------------------------------------------- */

typedef struct marks {
	callus_strlist paths;
	callus_import_mark *offsets;
	size_t cap;
	int dirty;
} marks;

/* The user's data directory's NAME (callus_fs_user_path), its directory
 * made: private, as the store is.  0, or <0 with err set. */
static int data_file(callus_buf *out, const char *name, callus_error *err)
{
	int rc = callus_fs_user_path(out, "XDG_DATA_HOME", ".local/share", name);
	char *slash;

	if (rc == CALLUS_ENOTFOUND)
		return callus_error_set(err, rc, "no HOME, and no XDG_DATA_HOME");
	if (rc < 0)
		return callus_error_set(err, rc, "out of memory");
	slash = strrchr(out->ptr, '/');
	*slash = 0;
	rc = callus_fs_mkdir_p(out->ptr, 0700, err);
	*slash = '/';
	return rc;
}

static int marks_set(marks *m, const char *path, callus_import_mark off)
{
	for (size_t i = 0; i < m->paths.count; i++)
		if (!strcmp(m->paths.items[i], path)) {
			m->dirty |= m->offsets[i].resume != off.resume || m->offsets[i].seen != off.seen;
			m->offsets[i] = off;
			return 0;
		}
	if (m->paths.count == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		callus_import_mark *g = realloc(m->offsets, cap * sizeof(*g));

		if (!g)
			return -1;
		m->offsets = g;
		m->cap = cap;
	}
	if (callus_strlist_add(&m->paths, path, strlen(path)) < 0)
		return -1;
	m->offsets[m->paths.count - 1] = off;
	m->dirty = 1;
	return 0;
}

static callus_import_mark marks_get(const marks *m, const char *path)
{
	callus_import_mark none = { 0, 0 };

	for (size_t i = 0; i < m->paths.count; i++)
		if (!strcmp(m->paths.items[i], path))
			return m->offsets[i];
	return none;
}

/* "RESUME\tSEEN\tPATH" lines; a line that is not one is ignored. */
static void marks_load(marks *m)
{
	callus_buf file = CALLUS_BUF_INIT;
	FILE *f = NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (callus_fs_user_path(&file, "XDG_DATA_HOME", ".local/share", MARKS_FILE) == 0)
		f = fopen(file.ptr, "r");
	callus_buf_release(&file);
	if (!f)
		return;
	while ((n = getline(&line, &cap, f)) > 0) {
		callus_import_mark mk;
		char *end, *end2;

		if (line[n - 1] == '\n')
			line[--n] = 0;
		mk.resume = strtoull(line, &end, 10);
		if (end == line || *end != '\t')
			continue;
		mk.seen = strtoull(end + 1, &end2, 10);
		if (end2 == end + 1 || *end2 != '\t' || !end2[1] || mk.resume > mk.seen)
			continue;
		marks_set(m, end2 + 1, mk);
	}
	m->dirty = 0;
	free(line);
	fclose(f);
}

/* Written whole and renamed over the old one (callus_fs_write_atomic): a
 * crash leaves the old watermarks, never half of them. */
static int marks_save(marks *m)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf b = CALLUS_BUF_INIT, file = CALLUS_BUF_INIT;
	int rc = -1;

	if (!m->dirty)
		return 0;
	for (size_t i = 0; i < m->paths.count; i++)
		callus_buf_printf(&b, "%llu\t%llu\t%s\n", (unsigned long long)m->offsets[i].resume,
				  (unsigned long long)m->offsets[i].seen, m->paths.items[i]);
	if (callus_buf_status(&b) < 0) {
		callus_error_set(&err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if (data_file(&file, MARKS_FILE, &err) < 0 ||
	    callus_fs_write_atomic(file.ptr, b.ptr, b.len, 0600, 0, &err) < 0)
		goto out;
	m->dirty = 0;
	rc = 0;
out:
	if (rc < 0)
		cli_error("cannot save the import watermarks: %s", callus_error_message(&err));
	callus_error_release(&err);
	callus_buf_release(&b);
	callus_buf_release(&file);
	return rc;
}

/* One import at a time for a user, from before its watermarks are read
 * until they are saved.  Two replaying the same transcripts at once each
 * found what the other had just stored (a failure stored already, its
 * pass fixing the errors the other's replay of it opened again): a fix
 * was learnt twice (bench/import_twice.sh).  The second waits for the
 * first and reads what is left.  A lock that cannot be had is said, and
 * the import goes on without it, as it did before there was one: the
 * watermarks are no more writable than it.  The descriptor held, or -1. */
static int import_lock(void)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf path = CALLUS_BUF_INIT;
	int fd = -1, rc;

	if ((rc = data_file(&path, "import.lock", &err)) == 0 &&
	    (rc = callus_fs_lock(&fd, path.ptr, 0, &err)) == CALLUS_EBUSY) {
		callus_error_release(&err);
		cli_error("another callus import is running (it holds '%s'); waiting for it to "
			  "end",
			  path.ptr);
		rc = callus_fs_lock(&fd, path.ptr, UINT_MAX, &err);
	}
	if (rc < 0)
		cli_error("cannot take the import lock: %s; importing without it",
			  callus_error_message(&err));
	callus_error_release(&err);
	callus_buf_release(&path);
	return fd;
}

static void marks_release(marks *m)
{
	callus_strlist_release(&m->paths);
	free(m->offsets);
}

/* ---- workspaces ---------------------------------------------------------- */

static void edits_clear(wsitem *w)
{
	for (size_t i = 0; i < w->nedits; i++) {
		free(w->edits[i].path);
		free(w->edits[i].hunks);
	}
	w->nedits = 0;
	w->edit_bytes = 0;
}

/* Forget the oldest edit; the open checks' starts follow. */
static void drop_oldest(wsitem *w)
{
	w->edit_bytes -= strlen(w->edits[0].hunks);
	free(w->edits[0].path);
	free(w->edits[0].hunks);
	memmove(w->edits, w->edits + 1, --w->nedits * sizeof(*w->edits));
	for (size_t i = 0; i < w->nopen; i++)
		if (w->open[i].start)
			w->open[i].start--;
}

static void wsitem_release(wsitem *w)
{
	edits_clear(w);
	free(w->edits);
	for (size_t i = 0; i < w->nopen; i++)
		free(w->open[i].key);
	free(w->open);
	callus_runs_seen_free(w->live.r, w->live.n);
	free(w->live.used);
	callus_runs_seen_free(w->queued.r, w->queued.n);
	free(w->queued.used);
	callus_store_close(w->hold);
	if (w->used)
		cli_workspace_release(&w->ws);
	free(w->root);
}

static int under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* The workspace an event's directory belongs to, set up once; NULL when
 * it is skipped (gone, outside the home, not the --project). */
static wsitem *workspace_of(importer *im, const char *cwd)
{
	char *real = NULL, *root = NULL;
	callus_ws_kind kind;
	wsitem *w = NULL, *g;

	if (im->last_cwd && !strcmp(im->last_cwd, cwd))
		return im->last_ws;
	free(im->last_cwd);
	im->last_cwd = strdup(cwd);
	im->last_ws = NULL;
	im->last_gone = 0;
	if (!*cwd)
		return NULL;
	if (!(real = realpath(cwd, NULL))) {
		im->last_gone = 1;
		callus_strlist_add_unique(&im->missing, cwd, strlen(cwd), NULL);
		return NULL;
	}
	if (!(root = callus_workspace_find(real, &kind)))
		goto out;
	if (im->project) {
		if (strcmp(root, im->project)) {
			im->filtered = 1;
			goto out;
		}
	} else if (kind == CALLUS_WS_NONE || !im->home || !under(root, im->home) ||
		   !strcmp(root, im->home)) {
		/* as for the hook (callus/workspace.h): a directory in no
		 * repository and with no .callus/ is no workspace */
		/* the home itself is no project: a session started there runs
		 * commands of many */
		callus_strlist_add_unique(&im->outside, root, strlen(root), NULL);
		/* not for good: a later --project can import it */
		im->filtered = 1;
		goto out;
	}
	for (size_t i = 0; i < im->nws; i++)
		if (!strcmp(im->ws[i].root, root)) {
			w = &im->ws[i];
			goto out;
		}
	if (!(g = realloc(im->ws, (im->nws + 1) * sizeof(*g))))
		goto out;
	im->ws = g;
	w = &im->ws[im->nws];
	memset(w, 0, sizeof(*w));
	if (cli_workspace_setup(&w->ws, root, 1) < 0) {
		w = NULL;
		goto out;
	}
	w->used = 1;
	w->root = root;
	root = NULL;
	im->nws++;
out:
	free(real);
	free(root);
	im->last_ws = w;
	return w;
}

static open_check *find_open(wsitem *w, const char *key)
{
	for (size_t i = 0; i < w->nopen; i++)
		if (!strcmp(w->open[i].key, key))
			return &w->open[i];
	return NULL;
}

static void close_check(wsitem *w, open_check *oc)
{
	size_t i = (size_t)(oc - w->open);

	free(oc->key);
	memmove(w->open + i, w->open + i + 1, (w->nopen - i - 1) * sizeof(*w->open));
	w->nopen--;
	/* nothing waits for a fix: the edits so far are no one's */
	if (!w->nopen)
		edits_clear(w);
}

/* The path of an edit relative to the workspace, or NULL outside it. */
static char *edit_path(const wsitem *w, const char *cwd, const char *path)
{
	callus_buf abs = CALLUS_BUF_INIT;
	const char *p;
	char *out = NULL;

	if (*path == '/')
		callus_buf_puts(&abs, path);
	else
		callus_buf_printf(&abs, "%s/%s", cwd, path);
	if (callus_buf_status(&abs) < 0)
		goto out;
	if (under(abs.ptr, w->ws.root_real))
		p = abs.ptr + strlen(w->ws.root_real);
	else if (under(abs.ptr, w->ws.root))
		p = abs.ptr + strlen(w->ws.root);
	else
		goto out;
	if (*p == '/')
		p++;
	/* a transcript is data: "src/../../etc/x" is not the workspace's */
	if (*p && !strstr(p, "/../") && strncmp(p, "../", 3) && strcmp(p, "..") &&
	    !(strlen(p) >= 3 && !strcmp(p + strlen(p) - 3, "/..")))
		out = strdup(p);
out:
	callus_buf_release(&abs);
	return out;
}

static void add_edit(wsitem *w, const callus_import_event *ev)
{
	edit e = { NULL, NULL, ev->created, ev->deleted };

	/* an edit with no failure waiting is part of no fix */
	if (!w->nopen || !(e.path = edit_path(w, ev->cwd, ev->path)))
		return;
	{
		size_t n = strlen(ev->hunks);

		/* a huge edit is cut at a line's end */
		if (n > EDIT_BYTES_MAX) {
			const char *nl = memrchr(ev->hunks, '\n', EDIT_BYTES_MAX);

			n = nl ? (size_t)(nl - ev->hunks) + 1 : 0;
		}
		if (!(e.hunks = strndup(ev->hunks, n))) {
			free(e.path);
			return;
		}
	}
	/* bounded: the oldest edits of a very long failure go */
	while (w->nedits && (w->nedits == EDITS_MAX ||
			     w->edit_bytes + strlen(e.hunks) > EDITS_BYTES_MAX))
		drop_oldest(w);
	if (!w->edits && !(w->edits = calloc(EDITS_MAX, sizeof(*w->edits)))) {
		free(e.path);
		free(e.hunks);
		return;
	}
	w->edit_bytes += strlen(e.hunks);
	w->edits[w->nedits++] = e;
}

/* The edits from start on as one diff: each file's hunks under one header,
 * the files in the order first edited. */
static char *fix_diff(const wsitem *w, size_t start)
{
	callus_buf d = CALLUS_BUF_INIT;

	for (size_t i = start; i < w->nedits; i++) {
		size_t j;
		callus_buf h = CALLUS_BUF_INIT;
		int created = w->edits[i].created, deleted = 0;

		for (j = start; j < i && strcmp(w->edits[j].path, w->edits[i].path); j++)
			;
		if (j < i)
			continue; /* this file's header is out already */
		for (j = i; j < w->nedits; j++)
			if (!strcmp(w->edits[j].path, w->edits[i].path)) {
				callus_buf_puts(&h, w->edits[j].hunks);
				deleted = w->edits[j].deleted;
			}
		callus_import_diff_file(&d, w->edits[i].path, h.ptr, created, deleted && !created);
		callus_buf_release(&h);
	}
	return callus_buf_status(&d) < 0 ? NULL : callus_buf_detach(&d);
}

/* ---- commands ------------------------------------------------------------ */

/* What begins the origin of every run an import stores (run_origin). */
#define IMPORT_ORIGIN "import:"

/* What names a command's run wherever the transcript is read from: an
 * import cut short (its watermarks saved every SAVE_EVERY files) reads it
 * again, and its failure must not count twice.  Hashed: the command may
 * hold a secret, and the run's origin is stored as it is.  NULL when the
 * transcript gives no time (nothing tells two runs of a command apart) or
 * without memory. */
static char *run_origin(const importer *im, const callus_import_event *ev)
{
	callus_sha256 *h = NULL;
	char hex[CALLUS_SHA256_HEX_LEN + 1];
	char *out;

	if (!*ev->time || callus_sha256_new(&h) < 0)
		return NULL;
	if (callus_sha256_part(h, im->agent, strlen(im->agent)) < 0 ||
	    callus_sha256_part(h, ev->session, strlen(ev->session)) < 0 ||
	    callus_sha256_part(h, ev->time, strlen(ev->time)) < 0 ||
	    callus_sha256_part(h, ev->cwd, strlen(ev->cwd)) < 0 ||
	    callus_sha256_part(h, ev->command, strlen(ev->command)) < 0) {
		callus_sha256_free(h);
		return NULL;
	}
	if (callus_sha256_finish(h, hex) < 0 || !(out = malloc(sizeof(IMPORT_ORIGIN) + 32)))
		return NULL;
	/* 128 bits tell a workspace's runs apart */
	snprintf(out, sizeof(IMPORT_ORIGIN) + 32, IMPORT_ORIGIN "%.32s", hex);
	return out;
}

enum verdict { V_NONE, V_FAILED, V_PASSED };

/* As the hook judges a command's end (cmd_hook.c): only a status known to
 * be the tool's own counts; a missing one can be read from the output. */
static enum verdict judge(const callus_import_event *ev, const callus_detection *det, int *code)
{
	int c = det->status_masked ? -1 : ev->exit_code;

	*code = c;
	if (ev->interrupted || c == 124 || c == 130 || c == 137 || c == 143 || c == 126 || c == 127)
		return V_NONE;
	if (c > 0)
		return V_FAILED;
	if (c == 0)
		return V_PASSED;
	if (callus_output_looks_failed(ev->output, ev->output_len)) {
		*code = 1;
		return V_FAILED;
	}
	return V_NONE;
}

/* How far apart a transcript's time of a command and its hook's record
 * of it may be: the hook records it when the command has ended (a queued
 * delivery as of then), the transcript when the agent took its result. */
#define LIVE_WINDOW_S 60

static int seen_cmp(const char *session, const char *command, const callus_run_seen *r)
{
	int c = strcmp(session, r->session);

	return c ? c : strcmp(command, r->command);
}

/* How long an import waits for the runs hooks queued to be recorded
 * (their drainer's lock, the store) before it reads the hooks' runs. */
#define QUEUE_WAIT_MS 30000

/* Each of the runs r taken by one failure at most: without memory for
 * that, none (no failure is taken for a run). */
static void seen_runs_ready(seen_runs *r)
{
	if (r->n && !(r->used = calloc(r->n, 1))) {
		callus_runs_seen_free(r->r, r->n);
		r->r = NULL;
		r->n = 0;
	}
}

/*
 * What a workspace's store says of the runs before its first check is
 * replayed, read once.  First what hooks queued (a busy store, a
 * deadline: hook_spool.h) is recorded, as a drainer would: until then such
 * a failure is in no run; what stays queued (another drainer kept the
 * queue past QUEUE_WAIT_MS, a hook recording its own now) is read from
 * the queue.  Then, in one snapshot, the runs no import stored and the
 * time before which callus gc may have removed runs: a gc between two
 * reads (a hook's background pass, the drain's own) left the runs of one
 * moment and the time of another.
 */
static void read_store(wsitem *w)
{
	callus_error err = CALLUS_ERROR_INIT;
	char *gone = NULL;
	long long ns;

	w->store_read = 1;
	if (cli_spool_pending(&w->ws, NULL))
		cli_hook_drain(&w->ws, QUEUE_WAIT_MS);
	if (cli_spool_failures(&w->ws, &w->queued.r, &w->queued.n) == 0)
		seen_runs_ready(&w->queued);
	if (!w->hold)
		cli_open_store(&w->hold, &w->ws, 0);
	if (w->hold && callus_store_runs_seen(w->hold, IMPORT_ORIGIN, &w->live.r, &w->live.n,
					      &gone, &err) < 0)
		cli_error("%s: %s", w->root, callus_error_message(&err));
	seen_runs_ready(&w->live);
	if (gone && callus_time_parse(gone, &ns) == 0)
		w->gone_before = (int64_t)(ns / 1000000000LL);
	free(gone);
	callus_error_release(&err);
}

/* Whether one of runs (sorted by session, command and time) is of this
 * session and command within LIVE_WINDOW_S of t, not yet taken: it is
 * taken.  A run stands for one failure: the same command failing twice
 * within the window, once before the hooks were installed, counts once
 * more. */
static int take(seen_runs *runs, const char *session, const char *cmd, int64_t t)
{
	size_t lo = 0, hi = runs->n;

	/* the first run of that session and command */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (seen_cmp(session, cmd, &runs->r[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < runs->n && !seen_cmp(session, cmd, &runs->r[lo]); lo++)
		if (!runs->used[lo] && runs->r[lo].at >= t - LIVE_WINDOW_S &&
		    runs->r[lo].at <= t + LIVE_WINDOW_S)
			return runs->used[lo] = 1;
	return 0;
}

enum seen { SEEN_NOT, SEEN_LIVE, SEEN_QUEUED };

/* Whether a hook recorded this failure when it ran (SEEN_LIVE), or queued
 * it and has not yet recorded it (SEEN_QUEUED: its drainer or its hook
 * counts it): a run (a queued one) of the same session and command (both
 * redacted as stored) within LIVE_WINDOW_S of the transcript's time,
 * stored by no import.  Without it an import after the hooks were installed counted
 * every failure they had recorded twice. */
static enum seen recorded_live(wsitem *w, const callus_import_event *ev)
{
	char *session = NULL, *cmd = NULL;
	long long ns;
	int64_t t;
	enum seen found = SEEN_NOT;

	if ((!w->live.n && !w->queued.n) || !*ev->session || callus_time_parse(ev->time, &ns) < 0)
		return SEEN_NOT;
	t = (int64_t)(ns / 1000000000LL);
	if (callus_redact_str(w->ws.redactor, &session, ev->session) < 0 || !session ||
	    callus_redact_str(w->ws.redactor, &cmd, ev->command) < 0 || !cmd)
		goto out;
	if (take(&w->live, session, cmd, t))
		found = SEEN_LIVE;
	else if (take(&w->queued, session, cmd, t))
		found = SEEN_QUEUED;
out:
	free(session);
	free(cmd);
	return found;
}

/* Whether a check that ran at time (the transcript's) is older than the
 * runs the workspace's store keeps: callus gc removed runs of that age,
 * and with them what told whether a hook or an import stored it already.
 * A hook's run of it may be up to LIVE_WINDOW_S older than the
 * transcript says. */
static int older_than_kept(const wsitem *w, const char *time)
{
	long long ns;

	return w->gone_before && callus_time_parse(time, &ns) == 0 &&
	       (int64_t)(ns / 1000000000LL) < w->gone_before + LIVE_WINDOW_S;
}

static void command(importer *im, wsitem *w, const callus_import_event *ev)
{
	callus_detection det;
	callus_buf key = CALLUS_BUF_INIT;
	char *dir = NULL, *patch = NULL;
	open_check *oc;
	/* the store compares times as text: its own format, whatever the
	 * transcript's (an offset, no milliseconds) */
	char *when = callus_time_normalize(ev->time);
	/* a time in the store's format bounds what the run learns (history
	 * closes no error of today); one callus cannot read is taken as it is */
	cli_replay rp = { when ? when : ev->time, NULL, NULL, when != NULL };
	enum verdict v = V_NONE;
	int code;

	memset(&det, 0, sizeof(det));
	free(w->ws.cwd_rel);
	w->ws.cwd_rel = edit_path(w, "", ev->cwd);
	if (!w->ws.cwd_rel)
		w->ws.cwd_rel = strdup("");
	if (!w->ws.cwd_rel || callus_detect(&det, w->ws.whitelist, ev->command, NULL) < 0 ||
	    !det.verification)
		goto out;
	/* a dry run reads no store: it counts what a first import would */
	if (!opt_dry_run && !w->store_read)
		read_store(w);
	if (!opt_dry_run && older_than_kept(w, ev->time)) {
		im->st.older++;
		goto out;
	}
	im->st.checks++;
	if ((v = judge(ev, &det, &code)) == V_NONE)
		goto out;
	dir = cli_check_dir(&w->ws, det.dir);
	callus_buf_printf(&key, "%s\x1f%s\x1f%s", det.tool ? det.tool : "", det.args ? det.args : "",
			  dir ? dir : "");
	if (callus_buf_status(&key) < 0)
		goto out;
	oc = find_open(w, key.ptr);
	/* what the transcript's edits since the first failure make: the fix of
	 * whatever this run fixes; none known when the failure was not seen
	 * here (an earlier import) */
	patch = oc ? fix_diff(w, oc->start) : strdup("");
	rp.fix_patch = patch;
	if (v == V_FAILED) {
		enum seen seen = opt_dry_run ? SEEN_NOT : recorded_live(w, ev);

		im->st.failures++;
		if (seen == SEEN_LIVE) {
			im->st.live++;
		} else if (seen == SEEN_QUEUED) {
			im->st.queued++;
		} else if (!opt_dry_run) {
			callus_capture cap;
			callus_metrics *m = NULL;
			cli_recorded rec;
			char *origin = run_origin(im, ev);
			int rc;

			rp.origin = origin;
			callus_capture_init(&cap);
			callus_capture_whole(&cap, ev->output, ev->output_len);
			callus_metrics_new(&m);
			memset(&rec, 0, sizeof(rec));
			rc = cli_replay_failure(&w->ws, &det, ev->command, code, &cap, ev->session, &rp,
						m, &rec);
			if (rc == CALLUS_EEXIST)
				im->st.again++;
			if (rc == 0) {
				im->st.fixes += rec.learnt.nfixed;
				im->st.notes += rec.learnt.nnotes;
				im->st.unchanged += rec.learnt.nunchanged;
				/* what it fixed took the edits so far */
				if (oc && (rec.learnt.nfixed || rec.learnt.nunchanged))
					oc->start = w->nedits;
			}
			cli_recorded_release(&rec);
			callus_metrics_free(m);
			callus_capture_release(&cap);
			free(origin);
		}
		if (!oc) {
			open_check *g = realloc(w->open, (w->nopen + 1) * sizeof(*g));

			if (g) {
				w->open = g;
				w->open[w->nopen].key = callus_buf_detach(&key);
				w->open[w->nopen].start = w->nedits;
				if (w->open[w->nopen].key)
					w->nopen++;
			}
		}
		goto out;
	}
	im->st.passes++;
	if (opt_dry_run) {
		/* a fix would be found where edits lead from a failure to a pass */
		if (oc && patch && *patch)
			im->st.fixes++;
	} else {
		callus_learn_result r;

		if (cli_replay_pass(&w->ws, &det, ev->command, ev->session, &rp, &r) == 0) {
			im->st.fixes += r.nfixed;
			im->st.notes += r.nnotes;
			im->st.unchanged += r.nunchanged;
		}
		callus_learn_result_release(&r);
	}
	if (oc)
		close_check(w, oc);
out:
	/* Each replayed run opens and closes the store as the hook does; one
	 * connection held open meanwhile spares each close the checkpoint and
	 * the removal of the WAL that the last one to close does (their
	 * fsyncs were most of an import's time). */
	if (!opt_dry_run && !w->hold && v != V_NONE)
		cli_open_store(&w->hold, &w->ws, 0);
	callus_detection_release(&det);
	callus_buf_release(&key);
	free(dir);
	free(patch);
	free(when);
}

static void progress(importer *im, int last)
{
	struct timespec now;

	if (!im->tty || opt_quiet)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!last && (now.tv_sec - im->last_progress.tv_sec) * 1000 +
			      (now.tv_nsec - im->last_progress.tv_nsec) / 1000000 < 200)
		return;
	im->last_progress = now;
	fprintf(stderr, "\rcallus: import %s: %zu/%zu files, %llu commands, %llu failures, "
			"%llu fixes found\033[K%s",
		im->agent, im->ifile, im->nfiles, (unsigned long long)im->st.checks,
		(unsigned long long)im->st.failures, (unsigned long long)im->st.fixes,
		last ? "\n" : "");
}

static int on_event(void *ctx, const callus_import_event *ev)
{
	importer *im = ctx;
	wsitem *w;

	if (opt_since && *ev->time && strcmp(ev->time, opt_since) < 0) {
		im->filtered = 1;
		return 0;
	}
	if (ev->kind == CALLUS_IMPORT_COMMAND)
		im->st.commands++;
	if (!(w = workspace_of(im, ev->cwd))) {
		if (ev->kind == CALLUS_IMPORT_COMMAND && im->last_gone)
			im->st.missing_events++;
		return 0;
	}
	if (ev->kind == CALLUS_IMPORT_EDIT)
		add_edit(w, ev);
	else
		command(im, w, ev);
	progress(im, 0);
	return 0;
}

/* Whether the file was written before --since: nothing in it is wanted. */
static int older_than_since(const char *path)
{
	struct stat st;
	struct tm tm;
	char when[32];

	if (!opt_since || stat(path, &st) < 0)
		return 0;
	gmtime_r(&st.st_mtime, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	return strcmp(when, opt_since) < 0;
}

static int import_agent(importer *im, const char *agent, marks *m)
{
	const callus_transcript_ops *ops = callus_transcript_find(agent);
	callus_strlist files = CALLUS_STRLIST_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	int rc = 0;

	if (!ops)
		return 0;
	if (callus_transcript_locate(ops, im->home ? im->home : "/nonexistent", &files) < 0) {
		cli_error("out of memory");
		return -1;
	}
	im->agent = agent;
	im->nfiles = files.count;
	for (im->ifile = 0; im->ifile < files.count; im->ifile++) {
		const char *path = files.items[im->ifile];
		callus_import_mark from = marks_get(m, path), to = from;
		uint64_t before = im->counts.records + im->counts.malformed;

		im->st.files++;
		if (older_than_since(path))
			continue;
		im->filtered = 0;
		/* a new file: no directory is known to be the one of the last */
		free(im->last_cwd);
		im->last_cwd = NULL;
		if (callus_import_read(ops, path, &to, 0, on_event, im, &im->counts, &err) < 0) {
			cli_error("%s", callus_error_message(&err));
			callus_error_release(&err);
			continue;
		}
		if (im->counts.records + im->counts.malformed > before)
			im->st.files_read++;
		/* a read that a filter narrowed is not the whole file's */
		if (!opt_dry_run && !im->filtered &&
		    (to.resume != from.resume || to.seen != from.seen) && marks_set(m, path, to) < 0)
			rc = -1;
		if (!opt_dry_run && (im->ifile + 1) % SAVE_EVERY == 0)
			marks_save(m);
		progress(im, 0);
	}
	if (files.count)
		progress(im, 1);
	callus_strlist_release(&files);
	return rc;
}

static void summary(const importer *im)
{
	const stats *s = &im->st;
	const char *verb = opt_dry_run ? "would import" : "imported";

	printf("callus: %s %llu verification commands (%llu failed, %llu passed) from %llu "
	       "transcript file%s (%llu with something new)\n",
	       verb, (unsigned long long)s->checks, (unsigned long long)s->failures,
	       (unsigned long long)s->passes, (unsigned long long)s->files, s->files == 1 ? "" : "s",
	       (unsigned long long)s->files_read);
	printf("  fixes found: %llu%s", (unsigned long long)s->fixes,
	       opt_dry_run ? " (edits between a failure and a passing run)" : "");
	if (!opt_dry_run)
		printf(", notes made or merged: %llu, failures gone with no edit: %llu",
		       (unsigned long long)s->notes, (unsigned long long)s->unchanged);
	if (s->again)
		printf("\n  failures stored by an earlier import, not counted again: %llu",
		       (unsigned long long)s->again);
	if (s->live)
		printf("\n  failures the hooks recorded when they ran, not counted again: %llu",
		       (unsigned long long)s->live);
	if (s->queued)
		printf("\n  failures hooks queued that no drainer has recorded yet, left to it: "
		       "%llu",
		       (unsigned long long)s->queued);
	if (s->older)
		printf("\n  checks older than the runs the store keeps (callus gc removed those), "
		       "not replayed: %llu",
		       (unsigned long long)s->older);
	printf("\n  workspaces: %zu", im->nws);
	for (size_t i = 0; i < im->nws && i < 5; i++)
		printf("%s%s", i ? ", " : " (", im->ws[i].root);
	printf("%s\n", im->nws > 5 ? ", ...)" : im->nws ? ")" : "");
	if (im->missing.count)
		printf("  skipped: %zu director%s that no longer exist (%llu commands)\n",
		       im->missing.count, im->missing.count == 1 ? "y" : "ies",
		       (unsigned long long)s->missing_events);
	if (im->outside.count)
		printf("  skipped: %zu director%s outside your home (import one with --project DIR)\n",
		       im->outside.count, im->outside.count == 1 ? "y" : "ies");
	printf("  lines read: %llu (%llu shell commands, %llu edits), skipped as malformed: %llu, "
	       "left unfinished: %llu\n",
	       (unsigned long long)im->counts.records, (unsigned long long)s->commands,
	       (unsigned long long)im->counts.edits, (unsigned long long)im->counts.malformed,
	       (unsigned long long)im->counts.unfinished);
}

int cli_import(const cli_import_opts *o)
{
	importer im;
	marks m;
	const char *home = getenv("HOME");
	int rc = 0, lock = -1;

	memset(&im, 0, sizeof(im));
	memset(&m, 0, sizeof(m));
	opt_agent = o->agent;
	opt_since = o->since;
	opt_project = o->project;
	opt_dry_run = o->dry_run;
	opt_quiet = o->quiet;
	im.tty = isatty(2);
	if (home && *home)
		im.home = realpath(home, NULL);
	if (opt_project) {
		char *real = realpath(opt_project, NULL);
		struct stat st;

		if (real && (stat(real, &st) < 0 || !S_ISDIR(st.st_mode))) {
			free(real);
			real = NULL;
			errno = ENOTDIR;
		}
		im.project = real ? callus_workspace_find(real, NULL) : NULL;
		free(real);
		if (!im.project) {
			cli_error("cannot use '%s' as the project: %s", opt_project, strerror(errno));
			free(im.home);
			return 1;
		}
	}
	/* with no home there is nothing to read, and nowhere to keep what
	 * was read: no lock either */
	if (!opt_dry_run && im.home)
		lock = import_lock();
	marks_load(&m);
	for (size_t i = 0; callus_transcript_nth(i); i++) {
		const char *name = callus_transcript_name(callus_transcript_nth(i));

		if (opt_agent && strcmp(opt_agent, name))
			continue;
		if (import_agent(&im, name, &m) < 0)
			rc = 1;
	}
	/* the instructions file's block, once per workspace */
	for (size_t i = 0; i < im.nws && !opt_dry_run; i++)
		if (cli_replay_views(&im.ws[i].ws) < 0)
			rc = 1;
	if (!opt_dry_run && marks_save(&m) < 0)
		rc = 1;
	callus_fs_unlock(lock);
	if (!opt_quiet || rc == 0)
		summary(&im);
	for (size_t i = 0; i < im.nws; i++)
		wsitem_release(&im.ws[i]);
	free(im.ws);
	free(im.last_cwd);
	free(im.home);
	free(im.project);
	callus_strlist_release(&im.missing);
	callus_strlist_release(&im.outside);
	marks_release(&m);
	return rc;
}

int cmd_import(int argc, char **argv)
{
	cli_import_opts o;
	int first = cli_parse(argc, argv, &cmd_import_spec);

	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first < argc) {
		cli_error("unexpected argument '%s'", argv[first]);
		return 2;
	}
	if (opt_agent && !callus_transcript_find(opt_agent)) {
		cli_error("no transcript reader for '%s'; callus import reads claude-code, codex, "
			  "gemini and copilot",
			  opt_agent);
		return 2;
	}
	if (opt_since && callus_time_day(opt_since) < 0) {
		cli_error("--since takes a date: YYYY-MM-DD, not '%s'", opt_since);
		return 2;
	}
	o.agent = opt_agent;
	o.since = opt_since;
	o.project = opt_project;
	o.dry_run = opt_dry_run;
	o.quiet = opt_quiet;
	return cli_import(&o);
}

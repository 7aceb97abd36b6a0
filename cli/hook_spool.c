#include "hook_spool.h"

#include "detach.h"

#include "callus/buf.h"
#include "callus/fsutil.h"
#include "callus/log.h"
#include "callus/record.h"
#include "callus/redact.h"
#include "callus/strlist.h"
#include "callus/workspace.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SPOOL_DIR ".callus/spool"
#define SPOOL_ENTRY_MAX (64u << 20)
/* An output whose entry would pass SPOOL_ENTRY_MAX (less the room for
 * what its hook keeps, cli_spool_leave) keeps its first and last bytes
 * only: escaped, a byte may take six (a control character) and an
 * invalid one three, and a drainer drops an entry it cannot read.  The
 * head holds a structured report (callus_capture's own head is 4 MiB),
 * the tail the last lines. */
#define SPOOL_KEPT_ROOM (1u << 20)
#define SPOOL_OUTPUT_HEAD (8u << 20)
#define SPOOL_OUTPUT_TAIL (2u << 20)
#define SPOOL_LEFT ".left.json"
#define SPOOL_CUT ".cut.json"
/* stored, and learning from it goes on: its hook's while that lives, a
 * drainer's once it is gone (a hook killed outright) */
#define SPOOL_OWED ".owed.json"
/* a dot name: orphans() skips it */
#define SPOOL_SPARE ".spare"
/* An entry older than this is an orphan whatever its pid says (pids are
 * reused); a hook lives 5 s at most. */
#define SPOOL_ORPHAN_S 60
/* A drainer that the store keeps from any progress gives up after this
 * (the next hook starts another). */
#define SPOOL_STUCK_MS 15000

const char *const cli_spool_drainer_argv[] = { "callus", "hook", "--drain", "generic", NULL };

/* The wall clock names the entries (their order, their age across
 * processes and boots); budgets and waits are measured on the monotonic
 * one, which a clock set back or forward does not stretch or cut. */
static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/* The time an entry's name says ("NS-PID..."), or -1 when it says none
 * (a dot name, the drainer's lock). */
static long long name_ns(const char *name)
{
	long long t;
	char *end;

	if (!isdigit((unsigned char)name[0]))
		return -1;
	errno = 0;
	t = strtoll(name, &end, 10);
	return !errno && *end == '-' ? t : -1;
}

/* The time that names the next entry: now, or just after the newest
 * entry the spool holds (newest, or read here when CLI_SPOOL_UNSEEN) when
 * that one is named ahead of the clock (it was queued before the clock
 * was set back).  Drained by name, a pass named now would go before the
 * failure it fixes, and that error stay pending. */
static long long next_name_ns(const cli_workspace *ws, long long newest, long long at_ns)
{
	callus_buf dir = CALLUS_BUF_INIT;
	long long clock = now_ns(), now = at_ns > 0 ? at_ns : clock;
	int read = newest == CLI_SPOOL_UNSEEN;
	struct dirent *d;
	DIR *dp = NULL;

	if (!read)
		goto out;
	newest = 0;
	if (callus_buf_printf(&dir, "%s/" SPOOL_DIR, ws->root) < 0 ||
	    !(dp = opendir(dir.ptr)))
		goto out;
	while ((d = readdir(dp))) {
		long long t = name_ns(d->d_name);

		if (t > newest)
			newest = t;
	}
out:
	if (dp)
		closedir(dp);
	callus_buf_release(&dir);
	/* named as of a past end, a run is not put after the entries named
	 * since (they ran after it), only after one named ahead of the clock
	 * (the clock set back since) */
	if (read && at_ns > 0 && newest < clock)
		return now;
	return newest >= now && newest < LLONG_MAX ? newest + 1 : now;
}

/* The output into the entry's text, redacted and escaped: whole, or its
 * head and tail around a line that says what was left out, when whole it
 * would leave no room under SPOOL_ENTRY_MAX.  Each part ends, or begins,
 * at a line's end when it has one.  Redacted as it is escaped: a
 * megabyte's redacted copy was a megabyte of pages more to fault in.  0,
 * or -1 (no memory). */
static int put_output(callus_buf *text, const callus_redactor *r, const char *output)
{
	size_t len, at = text->len, head, tail;
	callus_buf cut = CALLUS_BUF_INIT;
	char *red = NULL;
	const char *nl;
	int rc;

	if (callus_buf_putc(text, '"') < 0 || callus_redact_str_json(r, text, output) < 0 ||
	    callus_buf_putc(text, '"') < 0)
		return -1;
	if (text->len <= SPOOL_ENTRY_MAX - SPOOL_KEPT_ROOM)
		return 0;
	/* cut where the redacted output's lines end */
	if (callus_redact_str(r, &red, output) < 0)
		return -1;
	len = strlen(red);
	/* too large for what it is not (a command of megabytes): as it is */
	if (len <= SPOOL_OUTPUT_HEAD + SPOOL_OUTPUT_TAIL) {
		free(red);
		return 0;
	}
	callus_buf_truncate(text, at);
	head = SPOOL_OUTPUT_HEAD;
	tail = len - SPOOL_OUTPUT_TAIL;
	if ((nl = memrchr(red, '\n', head)))
		head = (size_t)(nl - red) + 1;
	if ((nl = memchr(red + tail, '\n', len - tail)) && nl + 1 < red + len)
		tail = (size_t)(nl + 1 - red);
	callus_buf_put(&cut, red, head);
	callus_buf_printf(&cut, "\n[callus: %zu bytes of this output left out of its queue entry]\n",
			  tail - head);
	callus_buf_put(&cut, red + tail, len - tail);
	rc = callus_buf_status(&cut);
	if (rc == 0)
		callus_buf_put_json(text, cut.ptr, cut.len);
	callus_buf_release(&cut);
	free(red);
	return rc < 0 || callus_buf_status(text) < 0 ? -1 : 0;
}

/* Entries are named NS-PID.json: sorted by name, oldest first. */
static int put_name(callus_buf *name, long long ns)
{
	return callus_buf_printf(name, "%019lld-%ld", ns, (long)getpid());
}

char *cli_spool_run_origin(long long at_ns)
{
	callus_buf name = CALLUS_BUF_INIT;

	if (put_name(&name, at_ns > 0 ? at_ns : now_ns()) < 0) {
		callus_buf_release(&name);
		return NULL;
	}
	return callus_buf_detach(&name);
}

/* cli_spool_prepare, the entry named as of at_ns (0: now), or named origin
 * when that is not NULL */
static int prepare_at(cli_spool_entry *out, const cli_workspace *ws, const callus_hook_event *e,
		      int code, const char *tool, long long newest, long long at_ns,
		      const char *origin)
{
	callus_buf name = CALLUS_BUF_INIT, path = CALLUS_BUF_INIT, left = CALLUS_BUF_INIT;
	callus_buf cut = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT, spare = CALLUS_BUF_INIT;
	callus_buf owed = CALLUS_BUF_INIT;
	char *cmd = NULL, *session = NULL, *tool_red = NULL;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	/* a pass's output teaches nothing: left out.  The session and the
	 * tool are stored as the live run's are: redacted */
	if (!ws->redactor || callus_redact_str(ws->redactor, &cmd, e->command) < 0 ||
	    callus_redact_str(ws->redactor, &session, e->session_id) < 0 ||
	    callus_redact_str(ws->redactor, &tool_red, tool) < 0)
		goto out;
	/* a generic hook's payload, written by hand: jansson's dump of a
	 * megabyte of output was a quarter of recording it */
	callus_buf_puts(&text, "{\"command\":");
	callus_buf_put_json(&text, cmd ? cmd : "", cmd ? strlen(cmd) : 0);
	callus_buf_printf(&text, ",\"exit_code\":%d,\"output\":", code);
	if (put_output(&text, ws->redactor, e->output && code ? e->output : "") < 0)
		goto out;
	/* the hook's own folder, resolved: a drainer reads the errors'
	 * relative paths from it (an event's cwd may be missing, or ".") */
	{
		callus_buf dir = CALLUS_BUF_INIT;

		callus_buf_puts(&dir, ws->root_real);
		if (ws->cwd_rel && *ws->cwd_rel)
			callus_buf_printf(&dir, "/%s", ws->cwd_rel);
		callus_buf_puts(&text, ",\"cwd\":");
		callus_buf_put_json(&text, dir.ptr ? dir.ptr : "", dir.len);
		callus_buf_release(&dir);
	}
	if (session) {
		callus_buf_puts(&text, ",\"session_id\":");
		callus_buf_put_json(&text, session, strlen(session));
	}
	if (tool_red) {
		callus_buf_puts(&text, ",\"tool\":");
		callus_buf_put_json(&text, tool_red, strlen(tool_red));
	}
	callus_buf_putc(&text, '}');
	if (callus_buf_status(&text) < 0 || !(out->text = callus_buf_detach(&text)))
		goto out;
	if (origin)
		callus_buf_puts(&name, origin);
	else
		put_name(&name, next_name_ns(ws, newest, at_ns));
	callus_buf_printf(&path, "%s/" SPOOL_DIR "/%s.json", ws->root, name.ptr);
	callus_buf_printf(&left, "%s/" SPOOL_DIR "/%s" SPOOL_LEFT, ws->root, name.ptr);
	callus_buf_printf(&cut, "%s/" SPOOL_DIR "/%s" SPOOL_CUT, ws->root, name.ptr);
	callus_buf_printf(&owed, "%s/" SPOOL_DIR "/%s" SPOOL_OWED, ws->root, name.ptr);
	callus_buf_printf(&spare, "%s/" SPOOL_DIR "/" SPOOL_SPARE, ws->root);
	if (callus_buf_status(&name) < 0 || callus_buf_status(&path) < 0 ||
	    callus_buf_status(&left) < 0 || callus_buf_status(&cut) < 0 ||
	    callus_buf_status(&owed) < 0 || callus_buf_status(&spare) < 0)
		goto out;
	out->origin = callus_buf_detach(&name);
	out->path = callus_buf_detach(&path);
	out->left = callus_buf_detach(&left);
	out->cut = callus_buf_detach(&cut);
	out->owed = callus_buf_detach(&owed);
	out->spare = callus_buf_detach(&spare);
	rc = 0;
out:
	if (rc < 0)
		cli_spool_entry_release(out);
	callus_buf_release(&text);
	free(cmd);
	free(session);
	free(tool_red);
	callus_buf_release(&name);
	callus_buf_release(&path);
	callus_buf_release(&left);
	callus_buf_release(&cut);
	callus_buf_release(&owed);
	callus_buf_release(&spare);
	return rc;
}

int cli_spool_prepare(cli_spool_entry *out, const cli_workspace *ws, const callus_hook_event *e,
		      int code, const char *tool, long long newest)
{
	return prepare_at(out, ws, e, code, tool, newest, 0, NULL);
}

int cli_spool_write(cli_spool_entry *e, const cli_workspace *ws)
{
	callus_buf dir = CALLUS_BUF_INIT, tmp = CALLUS_BUF_INIT;
	size_t len;
	char *callus_dir = NULL;
	int rc = -1;

	/* no text: written already (and freed), never an empty entry */
	if (!e->path || !e->spare || !e->text)
		return -1;
	len = strlen(e->text);
	callus_buf_printf(&dir, "%s/" SPOOL_DIR, ws->root);
	callus_buf_printf(&tmp, "%s.tmp", e->path);
	if (callus_buf_status(&dir) < 0 || callus_buf_status(&tmp) < 0 ||
	    callus_workspace_guard(NULL, ws->root, SPOOL_DIR, 0, NULL) < 0)
		goto out;
	/* only a workspace's first failure comes before its .callus/: made
	 * then, as the recording makes it, not at every failure */
	if (mkdir(dir.ptr, 0700) < 0 && errno == ENOENT &&
	    callus_record_dir(&callus_dir, ws->root, NULL) == 0)
		mkdir(dir.ptr, 0700);
	if (access(dir.ptr, W_OK) < 0)
		goto out;
	/* no fsync: the spool is for processes cut short, not for power
	 * failures, and a thousand hooks must not queue on the disk.  Made
	 * from the last stored entry's file when there is one (no inode
	 * allocated and freed a hook), named once whole */
	rc = callus_fs_write_spare(e->spare, tmp.ptr, e->path, e->text, len) < 0 ? -1 : 0;
	if (rc == 0) {
		free(e->text);
		e->text = NULL;
	}
out:
	free(callus_dir);
	callus_buf_release(&dir);
	callus_buf_release(&tmp);
	return rc;
}

void cli_spool_entry_release(cli_spool_entry *e)
{
	free(e->path);
	free(e->left);
	free(e->cut);
	free(e->owed);
	free(e->origin);
	free(e->text);
	free(e->spare);
	memset(e, 0, sizeof(*e));
}

void cli_spool_kept_release(cli_spool_kept *k)
{
	if (!k)
		return;
	callus_snapshot_release(&k->snapshot);
	callus_learn_fixes_release(&k->fixes);
}

/* kept as the entry's last fields: "snapshot", "fixes" ([tree, patch]
 * pairs) and "head" (HEAD when they were made); nothing when it holds
 * nothing. */
static void put_kept(callus_buf *text, const cli_spool_kept *kept)
{
	char *line = kept->snapshot.tree ? callus_snapshot_to_text(&kept->snapshot) : NULL;

	if (line) {
		callus_buf_puts(text, ",\"snapshot\":");
		callus_buf_put_json(text, line, strlen(line));
	}
	for (size_t i = 0; i < kept->fixes.count; i++) {
		const callus_learn_fix *f = &kept->fixes.items[i];

		callus_buf_puts(text, i ? ",[" : ",\"fixes\":[[");
		callus_buf_put_json(text, f->tree, strlen(f->tree));
		callus_buf_putc(text, ',');
		callus_buf_put_json(text, f->patch, strlen(f->patch));
		callus_buf_putc(text, ']');
	}
	if (kept->fixes.count)
		callus_buf_putc(text, ']');
	if (kept->fixes.count && kept->fixes.head) {
		callus_buf_puts(text, ",\"head\":");
		callus_buf_put_json(text, kept->fixes.head, strlen(kept->fixes.head));
	}
	free(line);
}

int cli_spool_leave(const cli_spool_entry *e, const cli_spool_kept *kept)
{
	callus_buf text = CALLUS_BUF_INIT, more = CALLUS_BUF_INIT, tmp = CALLUS_BUF_INIT;
	int rc;

	if (!e->path || !e->left)
		return -1;
	if (!kept || (!kept->snapshot.tree && !kept->fixes.count))
		goto left;
	/* The entry is the hook's own generic payload: fields more, last,
	 * within what a drainer reads (else it goes as it was). */
	put_kept(&more, kept);
	if (callus_buf_status(&more) < 0 ||
	    callus_fs_read_file(&text, e->path, SPOOL_ENTRY_MAX, NULL) < 0 || !text.len ||
	    text.ptr[text.len - 1] != '}' || text.len + more.len > SPOOL_ENTRY_MAX)
		goto left;
	text.len--;
	callus_buf_put(&text, more.ptr, more.len);
	callus_buf_putc(&text, '}');
	callus_buf_printf(&tmp, "%s.tmp", e->path);
	/* over the entry in place, then left: a process killed between
	 * leaves the entry whole, with what it kept, to the drainer */
	if (callus_buf_status(&text) == 0 && callus_buf_status(&tmp) == 0)
		(void)callus_fs_write_spare(e->spare, tmp.ptr, e->path, text.ptr, text.len);
left:
	rc = rename(e->path, e->left) < 0 ? -1 : 0;
	callus_buf_release(&text);
	callus_buf_release(&more);
	callus_buf_release(&tmp);
	return rc;
}

/* What the hook wrote into the entry's text beyond a generic payload
 * (read once, the payload's parse being the event's): the tool it
 * detected (cli_spool_prepare; *tool, NULL when not said, freed by the
 * caller), and what a busy store made it keep (cli_spool_leave): the
 * run's tree (a failure's snapshot, a pass's tree), its fixes and HEAD
 * then.  Anything not well formed is left out (the drainer's own tree is
 * taken), and *ignored says how many.  0, or CALLUS_ENOMEM. */
static int entry_extras(const callus_buf *text, char **tool, cli_spool_kept *out,
			size_t *ignored)
{
	json_t *root = json_loadb(text->ptr, text->len, 0, NULL);
	json_t *snap = json_object_get(root, "snapshot"), *fixes = json_object_get(root, "fixes");
	json_t *head = json_object_get(root, "head"), *pair;
	const char *said = json_string_value(json_object_get(root, "tool"));
	const char *hs = json_string_value(head);
	size_t i;
	int rc = 0;

	*ignored = 0;
	if (said && !(*tool = strdup(said)))
		rc = CALLUS_ENOMEM;
	if (snap && callus_snapshot_from_text(&out->snapshot, json_string_value(snap)) < 0)
		++*ignored;
	if (fixes && !json_is_array(fixes))
		++*ignored;
	if (head && (!hs || (*hs && !callus_snapshot_is_oid(hs))))
		++*ignored;
	else if (rc == 0 && hs && json_array_size(fixes) && !(out->fixes.head = strdup(hs)))
		rc = CALLUS_ENOMEM;
	json_array_foreach(rc == 0 ? fixes : NULL, i, pair) {
		const char *tree = json_string_value(json_array_get(pair, 0));
		const char *patch = json_string_value(json_array_get(pair, 1));

		if (!patch || json_array_size(pair) != 2 || !callus_snapshot_is_oid(tree)) {
			++*ignored;
			continue;
		}
		if ((rc = callus_learn_fixes_add(&out->fixes, tree, patch)) < 0)
			break;
	}
	json_decref(root);
	return rc;
}

/* The pid of an entry not yet named, "NS-PID.json.tmp" (cli_spool_write),
 * or -1 for any other name. */
static long unnamed_entry(const char *name)
{
	size_t ns = strspn(name, "0123456789"), np;

	if (!ns || name[ns] != '-')
		return -1;
	np = strspn(name + ns + 1, "0123456789");
	return np && !strcmp(name + ns + 1 + np, ".json.tmp") ? strtol(name + ns + 1, NULL, 10)
							      : -1;
}

/* A walk of the spool (callus_fs_each_gone): named entries for a drainer
 * into out (when given), entries never named of processes gone counted
 * and, with sweep, removed.  With any, the walk stops at the first named
 * entry, and sets found.  newest: the newest time an entry is named by,
 * once the walk has seen every name (cli_spool_prepare's); else
 * CLI_SPOOL_UNSEEN. */
struct spool_walk {
	callus_strlist *out;
	int every;          /* every named entry but those stored already
			     * (owed), whichever process made it */
	int sweep;
	size_t unnamed, removed;
	int any, found;
	long long newest;
};

/* The pid of the hook that made an entry: a named one "NS-PID.json" (or
 * "NS-PID.owed.json", stored and learnt from by its hook), 0
 * (taken for gone) for one its hook left ("....left.json", "....cut.json")
 * or one without a pid, an unnamed one's; -1 for the rest (dot names: the
 * spare, the drainer's lock). */
static long spool_maker(const char *name, void *ctx)
{
	struct spool_walk *w = ctx;
	size_t len = strlen(name);
	const char *dash = strchr(name, '-');
	long long t = name_ns(name);

	/* every name, a live hook's too: a pass is named after them all */
	if (t > w->newest)
		w->newest = t;
	if (name[0] == '.')
		return -1;
	if (!ends_with(name, len, ".json"))
		return unnamed_entry(name);
	if (w->every)
		return ends_with(name, len, SPOOL_OWED) ? -1 : 0;
	if (ends_with(name, len, SPOOL_LEFT) || ends_with(name, len, SPOOL_CUT) || !dash)
		return 0;
	return strtol(dash + 1, NULL, 10);
}

static int spool_gone(const char *path, const char *name, void *ctx)
{
	struct spool_walk *w = ctx;

	if (!ends_with(name, strlen(name), ".json")) {
		/* nothing of it was recorded, and its hook never answered */
		w->unnamed++;
		if (w->sweep && unlink(path) == 0)
			w->removed++;
		return 0;
	}
	if (w->any)
		return w->found = 1;
	return w->out ? callus_strlist_add(w->out, path, strlen(path)) : 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The spool walked once (struct spool_walk); entries into w->out oldest
 * first.  A spool leading out of the workspace is not walked at all: no
 * hook writes through it (cli_spool_write), and what lies there is not
 * the queue's: a drainer would record a payload planted there and remove
 * any file named like an entry (callus doctor names the link). */
static int spool_walk(const cli_workspace *ws, struct spool_walk *w)
{
	callus_buf dir = CALLUS_BUF_INIT;
	int rc = 0;

	w->newest = 0;
	if (callus_buf_printf(&dir, "%s/" SPOOL_DIR, ws->root) < 0 ||
	    cli_spool_leads_out(ws, NULL)) {
		w->newest = CLI_SPOOL_UNSEEN;
		goto out;
	}
	rc = callus_fs_each_gone(dir.ptr, SPOOL_ORPHAN_S, spool_maker, w, spool_gone, w);
	/* stopped at a named entry (any), or by an error: not every name seen */
	if (rc != 0)
		w->newest = CLI_SPOOL_UNSEEN;
	if (w->out && w->out->count > 1)
		qsort(w->out->items, w->out->count, sizeof(*w->out->items), by_name);
out:
	callus_buf_release(&dir);
	return rc;
}

int cli_spool_leads_out(const cli_workspace *ws, callus_error *err)
{
	callus_buf dir = CALLUS_BUF_INIT;
	struct stat st;
	int plain;

	/* one lstat on a hook's path: a folder that is no link lies in
	 * .callus, which the workspace's setup guards; a link is followed */
	if (callus_buf_printf(&dir, "%s/" SPOOL_DIR, ws->root) < 0) {
		callus_buf_release(&dir);
		return 1;
	}
	plain = lstat(dir.ptr, &st) < 0 ? errno == ENOENT : S_ISDIR(st.st_mode);
	callus_buf_release(&dir);
	return !plain && callus_workspace_guard(NULL, ws->root, SPOOL_DIR, 0, err) < 0;
}

size_t cli_spool_leftovers(const cli_workspace *ws, int fix, size_t *removed)
{
	struct spool_walk w = { .sweep = fix };

	(void)spool_walk(ws, &w);
	if (removed)
		*removed = w.removed;
	return w.unnamed;
}

/* The entries for a drainer, full paths, oldest first; with sweep, the
 * unnamed entries of processes gone removed on the way. */
static int orphans(const cli_workspace *ws, callus_strlist *out, int sweep)
{
	struct spool_walk w = { .out = out, .sweep = sweep };

	return spool_walk(ws, &w);
}

int cli_spool_pending(const cli_workspace *ws, long long *newest)
{
	struct spool_walk w = { .any = 1 };

	(void)spool_walk(ws, &w);
	if (newest)
		*newest = w.newest;
	return w.found;
}

int cli_spool_holds(const cli_workspace *ws, const char *command, cli_spool_run_kind kind,
		    long long *newest)
{
	struct spool_walk w = { 0 };
	callus_strlist paths = CALLUS_STRLIST_INIT;
	callus_buf head = CALLUS_BUF_INIT;
	char *cmd = NULL, *got = NULL;
	int found = 0;

	w.out = &paths;
	w.newest = CLI_SPOOL_UNSEEN;
	/* the queue first: nearly always empty, and then nothing to redact */
	if (!ws->redactor || !command || spool_walk(ws, &w) < 0 || !paths.count ||
	    callus_redact_str(ws->redactor, &cmd, command) < 0)
		goto out;
	callus_buf_puts(&head, "{\"command\":");
	callus_buf_put_json(&head, cmd ? cmd : "", cmd ? strlen(cmd) : 0);
	callus_buf_puts(&head, ",\"exit_code\":");
	if (callus_buf_status(&head) < 0 || !(got = malloc(head.len + 2)))
		goto out;
	for (size_t i = 0; i < paths.count && !found; i++) {
		int fd = open(paths.items[i], O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		ssize_t n = fd < 0 ? -1 : read(fd, got, head.len + 2);

		if (fd >= 0)
			close(fd);
		/* a status of 0 is a pass's */
		found = n == (ssize_t)head.len + 2 && !memcmp(got, head.ptr, head.len) &&
			(kind == CLI_SPOOL_ANY_RUN ||
			 !(got[head.len] == '0' && got[head.len + 1] == ','));
	}
out:
	if (newest)
		*newest = w.newest;
	callus_strlist_release(&paths);
	callus_buf_release(&head);
	free(cmd);
	free(got);
	return found;
}

/* The name of the cut entry at path once its cut is counted: NAME.left.json. */
static int uncut_name(callus_buf *out, const char *path)
{
	size_t n = strlen(path);

	if (!ends_with(path, n, SPOOL_CUT))
		return -1;
	callus_buf_put(out, path, n - strlen(SPOOL_CUT));
	callus_buf_puts(out, SPOOL_LEFT);
	return callus_buf_status(out);
}

int cli_spool_uncut(const cli_spool_run *run)
{
	callus_buf left = CALLUS_BUF_INIT;
	int rc = 0;

	if (run->cut && (uncut_name(&left, run->path) < 0 || rename(run->path, left.ptr) < 0))
		rc = -1;
	callus_buf_release(&left);
	return rc;
}

/* When the entry at path was made: its name's NS (cli_spool_prepare); now
 * for a name of no plausible time (made by hand, or ahead of the clock). */
static long long made_at(const char *path)
{
	const long long y2000 = 946684800LL * 1000000000LL;
	const char *base = strrchr(path, '/');
	long long t = strtoll(base ? base + 1 : path, NULL, 10), now = now_ns();

	return t >= y2000 && t <= now ? t : now;
}

/* The entry's origin: its name up to the first dot. */
static char *origin_of(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strndup(base, strcspn(base, "."));
}

static int seen_order(const void *a, const void *b)
{
	const callus_run_seen *x = a, *y = b;
	int c = strcmp(x->session, y->session);

	if (!c)
		c = strcmp(x->command, y->command);
	return c ? c : (x->at > y->at) - (x->at < y->at);
}

int cli_spool_failures(const cli_workspace *ws, callus_run_seen **out, size_t *n)
{
	callus_strlist l = CALLUS_STRLIST_INIT;
	callus_run_seen *r = NULL;
	size_t count = 0, cap = 0;
	int rc = 0;

	struct spool_walk w = { .out = &l, .every = 1 };

	*out = NULL;
	*n = 0;
	(void)spool_walk(ws, &w);
	for (size_t i = 0; i < l.count && rc == 0; i++) {
		callus_hook_event ev = CALLUS_HOOK_EVENT_INIT;
		callus_buf text = CALLUS_BUF_INIT;
		callus_run_seen *g;

		if (callus_fs_read_file(&text, l.items[i], SPOOL_ENTRY_MAX, NULL) == 0 &&
		    callus_hook_event_parse(&ev, CALLUS_AGENT_GENERIC, text.ptr, text.len, NULL) ==
			    0 &&
		    ev.command && ev.exit_code != 0) {
			if (!(g = callus_array_grow(r, &cap, count + 1, sizeof(*r)))) {
				rc = -1;
			} else {
				r = g;
				r[count].session = strdup(ev.session_id ? ev.session_id : "");
				r[count].command = strdup(ev.command);
				r[count].at = made_at(l.items[i]) / 1000000000LL;
				count++;
				if (!r[count - 1].session || !r[count - 1].command)
					rc = -1;
			}
		}
		callus_hook_event_release(&ev);
		callus_buf_release(&text);
	}
	callus_strlist_release(&l);
	if (rc < 0) {
		callus_runs_seen_free(r, count);
		return -1;
	}
	if (count > 1)
		qsort(r, count, sizeof(*r), seen_order);
	*out = r;
	*n = count;
	return 0;
}

/* Record the entry at path with fn: 1 recorded, 0 gone (recorded before,
 * nothing to record, or unreadable: dropped and logged), -1 left for
 * later. */
static int replay(const cli_workspace *ws, const char *path, cli_spool_record_fn fn)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_hook_event ev = CALLUS_HOOK_EVENT_INIT;
	callus_buf text = CALLUS_BUF_INIT, dir = CALLUS_BUF_INIT, left = CALLUS_BUF_INIT;
	cli_spool_kept kept = CLI_SPOOL_KEPT_INIT;
	size_t ignored = 0;
	char *origin = NULL;
	cli_spool_run run = { .at_ns = made_at(path),
			      .cut = ends_with(path, strlen(path), SPOOL_CUT),
			      .path = path };
	int rc;

	if (callus_fs_read_file(&text, path, SPOOL_ENTRY_MAX, &err) < 0 ||
	    callus_hook_event_parse(&ev, CALLUS_AGENT_GENERIC, text.ptr, text.len, &err) < 0 ||
	    !ev.command) {
		const char *const extra[] = { "entry", path, NULL };

		/* a torn entry (a full disk) is not worth a retry forever; its
		 * run is lost: an error, which callus doctor counts */
		if (callus_buf_printf(&dir, "%s/.callus", ws->root) == 0)
			callus_log_event_with(ws->redactor, dir.ptr, "error", "spool_unreadable",
					      callus_error_message(&err), extra);
		unlink(path);
		rc = 0;
		goto out;
	}
	/* 0: a queued pass; a failure's status unknown: failed */
	if (ev.exit_code < 0)
		ev.exit_code = 1;
	if (entry_extras(&text, &run.tool, &kept, &ignored) == 0 &&
	    (kept.snapshot.tree || kept.fixes.count))
		run.kept = &kept;
	/* the spool is the hook's own: a field not as it writes them is
	 * worth a line (what it would give comes from the tree found now) */
	if (ignored && callus_buf_printf(&dir, "%s/.callus", ws->root) == 0) {
		const char *const extra[] = { "entry", path, NULL };

		callus_log_event_with(ws->redactor, dir.ptr, "warn", "spool_kept_ignored",
				      "a queued run's snapshot, fixes or head are not as a hook "
				      "writes them: left out, and what they would give taken from "
				      "the working tree found now",
				      extra);
	}
	run.origin = origin = origin_of(path);
	/* The entry goes once all of it is done: committed (its origin kept
	 * with its run), and learnt.  A drainer killed between the two leaves
	 * it for the next, which finds the failure stored and its learning
	 * owed (store.h's learn_owed), and learns it. */
	rc = fn(ws, &ev, &run);
	if (rc >= 0 && unlink(path) < 0 && run.cut && uncut_name(&left, path) == 0)
		unlink(left.ptr);
out:
	free(origin);
	free(run.tool);
	cli_spool_kept_release(&kept);
	callus_hook_event_release(&ev);
	callus_buf_release(&text);
	callus_buf_release(&dir);
	callus_buf_release(&left);
	callus_error_release(&err);
	return rc;
}

/* One pass over the orphans l, the lock held: how many were recorded;
 * *done counts the entries that went (recorded or not), *stuck is set
 * when one cannot be until something changes (fn's -2). */
static int drain_pass(const cli_workspace *ws, const callus_strlist *l, long long start,
		      long budget_ms, cli_spool_record_fn fn, int *done, int *stuck)
{
	int n = 0;

	for (size_t i = 0; i < l->count; i++) {
		if (budget_ms > 0 && mono_ms() - start > budget_ms)
			break;
		/* another drainer that came before may have done it */
		if (access(l->items[i], F_OK) == 0) {
			int rc = replay(ws, l->items[i], fn);

			n += rc == 1;
			/* gone for real: an entry that cannot be removed is no
			 * progress, or the drainer would go round for ever */
			*done += rc >= 0 && access(l->items[i], F_OK) != 0;
			/* taken, but still there: the folder cannot be written,
			 * and going round would deliver it again and again */
			if (rc == -2 || (rc >= 0 && access(l->items[i], F_OK) == 0)) {
				*stuck = 1;
				break;
			}
		}
	}
	return n;
}

/* The drain lock this process holds, for cli_spool_drain_let_go(): a
 * signal handler's to close.  The CLI's one process-wide state here. */
static volatile sig_atomic_t held_lock = -1;

void cli_spool_drain_let_go(void)
{
	int fd = held_lock;

	held_lock = -1;
	if (fd >= 0)
		close(fd);
}

/* The drain lock opened as a drainer opens it, or -1 (errno). */
static int open_lock(const char *path)
{
	return open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
}

int cli_spool_lock_usable(const cli_workspace *ws, int fix, callus_error *err)
{
	callus_buf lock = CALLUS_BUF_INIT;
	struct stat st;
	int fd, usable = 1;

	if (cli_spool_leads_out(ws, NULL) ||
	    callus_buf_printf(&lock, "%s/" SPOOL_DIR "/.drain.lock", ws->root) < 0 ||
	    lstat(lock.ptr, &st) < 0)
		goto out;
	if (S_ISREG(st.st_mode) && (fd = open_lock(lock.ptr)) >= 0) {
		close(fd);
		goto out;
	}
	callus_error_set(err, CALLUS_EIO, ".callus/spool/.drain.lock is %s: no drainer can take the "
			 "queue, whose runs stay unrecorded",
			 S_ISLNK(st.st_mode)   ? "a link"
			 : S_ISDIR(st.st_mode) ? "a folder"
			 : !S_ISREG(st.st_mode) ? "no file"
						: "a file this user cannot open");
	usable = 0;
	/* nothing lives in it: a lock is a name to flock(2), made again by
	 * the next drainer (one that holds the old one keeps it to the end
	 * of its pass) */
	if (fix && (S_ISDIR(st.st_mode) ? rmdir(lock.ptr) : unlink(lock.ptr)) == 0)
		usable = 1;
out:
	callus_buf_release(&lock);
	return usable;
}

int cli_spool_drain(const cli_workspace *ws, long budget_ms, long lock_wait_ms,
		    cli_spool_record_fn fn)
{
	callus_buf lock = CALLUS_BUF_INIT, dir = CALLUS_BUF_INIT;
	callus_strlist l = CALLUS_STRLIST_INIT;
	long long start = mono_ms(), progress = start;
	int n = 0, turned_away = 0, stuck = 0;

	if (callus_buf_printf(&lock, "%s/" SPOOL_DIR "/.drain.lock", ws->root) < 0)
		goto out;
	/* An entry left while the lock was held had its drainer turned away:
	 * who lets the lock go looks again.  An entry listed before the lock
	 * and recorded by another drainer meanwhile is skipped (access).  The
	 * first look also removes what killed hooks left unnamed. */
	for (int look = 0;; look++) {
		int fd, done = 0;

		callus_strlist_release(&l);
		if (orphans(ws, &l, look == 0) < 0 || !l.count)
			break;
		if ((fd = open_lock(lock.ptr)) < 0) {
			const char *const extra[] = { "lock", lock.ptr, "reason", strerror(errno),
						      NULL };

			/* said: every run queued waits on it (callus doctor
			 * --fix removes it) */
			if (callus_buf_printf(&dir, "%s/.callus", ws->root) == 0)
				callus_log_event_with(ws->redactor, dir.ptr, "warn",
						      "spool_lock_unusable",
						      "the queue's drain lock cannot be opened: its "
						      "runs stay queued",
						      extra);
			break;
		}
		/* Another drainer has it: waited for lock_wait_ms within a
		 * budget; a drainer with no budget leaves them to it. */
		while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			long long waited = mono_ms() - start;

			if (budget_ms <= 0 || waited > budget_ms || waited > lock_wait_ms) {
				turned_away = 1;
				break;
			}
			usleep(20 * 1000);
		}
		if (turned_away) {
			close(fd);
			break;
		}
		held_lock = fd;
		n += drain_pass(ws, &l, start, budget_ms, fn, &done, &stuck);
		/* let go by a handler: closed already */
		if (held_lock == fd) {
			held_lock = -1;
			close(fd);
		}
		if (budget_ms > 0 || stuck)
			break;
		/* a busy store: wait for it, but not for ever */
		if (done)
			progress = mono_ms();
		else if (mono_ms() - progress > SPOOL_STUCK_MS)
			break;
		else
			usleep(100 * 1000);
	}
	if (n > 0) {
		char count[32];
		const char *const extra[] = { "count", count, NULL };

		snprintf(count, sizeof(count), "%d", n);
		if (callus_buf_printf(&dir, "%s/.callus", ws->root) == 0)
			callus_log_event_with(ws->redactor, dir.ptr, "info", "spool_drained",
					      "recorded the failures and passes that hooks had "
					      "queued (deadline or busy store)",
					      extra);
	}
out:
	callus_strlist_release(&l);
	callus_buf_release(&lock);
	callus_buf_release(&dir);
	return turned_away && !n ? -1 : n;
}

int cli_spool_queue_run(const cli_workspace *ws, const char *command, int code,
			const callus_capture *cap, const char *session, const char *tool,
			const cli_spool_kept *kept, long long newest, long long ended_ns,
			const char *origin)
{
	callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
	cli_spool_entry ent = CLI_SPOOL_ENTRY_INIT;
	callus_buf out = CALLUS_BUF_INIT;
	int rc = -1;

	if (cap && callus_capture_output(cap, &out) < 0)
		goto out;
	e.command = (char *)command;
	e.exit_code = code;
	e.output = out.ptr;
	e.output_len = out.len;
	e.session_id = (char *)session;
	if (prepare_at(&ent, ws, &e, code, tool, newest, ended_ns, origin) < 0 ||
	    cli_spool_write(&ent, ws) < 0)
		goto out;
	/* not left (its rename failed): the entry of a process gone once this
	 * one ends, a drainer's all the same */
	(void)cli_spool_leave(&ent, kept);
	cli_spool_drain_later(ws);
	rc = 0;
out:
	cli_spool_entry_release(&ent);
	callus_buf_release(&out);
	return rc;
}

void cli_spool_drain_later(const cli_workspace *ws)
{
	cli_run_detached(ws->root, cli_spool_drainer_argv);
}

/*
 * callus init: put callus's hook into a coding agent's project settings (or
 * take it out again), and show where every agent stands.
 *
 * What is written where is decided by src/agents/install.c from the file's text;
 * this file reads, backs up and writes, and picks the program the agent
 * will run.
 */
#include "cli.h"

#include "callus/import.h"

#include "callus/agentconf.h"
#include "callus/migrate.h"
#include "callus/record.h"
#include "callus/buf.h"
#include "callus/fsutil.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int opt_remove, opt_dry_run, opt_check, opt_import;

static const cli_option init_options[] = {
	{ CLI_OPT_FLAG, 0, "remove", &opt_remove, NULL,
	  "take callus's hook out of AGENT's settings; everything else stays" },
	{ CLI_OPT_FLAG, 'n', "dry-run", &opt_dry_run, NULL,
	  "print what would be written, write nothing" },
	{ CLI_OPT_FLAG, 0, "check", &opt_check, NULL,
	  "write nothing; say whether the agent will run callus (exit 1 when not)" },
	{ CLI_OPT_FLAG, 0, "import", &opt_import, NULL,
	  "also import AGENT's earlier sessions in this workspace (callus import)" },
	CLI_END
};

const cli_spec cmd_init_spec = {
	"callus init [AGENT] [--remove] [--dry-run] [--check] [--import]",
	"Make a coding agent run callus after its shell commands (its hook settings).",
	"AGENT is claude-code (or claude), codex, gemini, copilot, cursor or cline.\n"
	"callus's entries are merged into the agent's settings file in the workspace:\n"
	"every other setting and hook is kept, the previous file is saved next to it\n"
	"as FILE.callus-backup, and running it again changes nothing.  A file that is\n"
	"not plain JSON (comments included) is refused and left as it is.  Without\n"
	"AGENT, shows for every agent whether its settings file exists, whether\n"
	"callus's hook is in it, and what 'callus init AGENT' would do.  The hook runs\n"
	"'callus' when this callus is the one on PATH, else this callus's absolute path.\n"
	"With --check, nothing is written: whether AGENT (or every agent set up here)\n"
	"will run callus is checked as 'callus doctor' does it: the hook in its settings,\n"
	"the program it runs, whether the agent trusts this folder, and whether the\n"
	"last payload it sent could be read.\n"
	"For an agent whose transcripts callus can read (claude-code, codex, gemini,\n"
	"copilot), init also says what 'callus import' would learn from the agent's\n"
	"earlier sessions in this workspace; with --import it imports them.\n"
	"docs/agents.md has every agent's files and the manual equivalent.",
	init_options, 0
};

/* What the agent should run, and why (for the user): plain "callus" when
 * that name on PATH is this very binary, else this binary's absolute path,
 * so that the hook runs the callus that configured it. */
static char *hook_program(const char **why)
{
	char *self = realpath("/proc/self/exe", NULL);
	const char *path = getenv("PATH"), *p;
	callus_buf cand = CALLUS_BUF_INIT;
	char *first = NULL;

	for (p = path && *path ? path : NULL; p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		struct stat st;

		callus_buf_clear(&cand);
		/* an empty PATH entry is the current directory */
		callus_buf_put(&cand, n ? p : ".", n ? n : 1);
		callus_buf_puts(&cand, "/callus");
		if (callus_buf_status(&cand) == 0 && !stat(cand.ptr, &st) && S_ISREG(st.st_mode) &&
		    !access(cand.ptr, X_OK)) {
			first = realpath(cand.ptr, NULL);
			break;
		}
		p = colon ? colon + 1 : NULL;
	}
	callus_buf_release(&cand);
	if (!self) {
		free(first);
		*why = "cannot tell where this callus is, so the one on PATH";
		return strdup("callus");
	}
	if (first && !strcmp(first, self)) {
		free(first);
		free(self);
		*why = "this callus, found on PATH as 'callus'";
		return strdup("callus");
	}
	*why = first ? "the 'callus' first on PATH is another file, so this one by its path"
		     : "this callus is not on PATH as 'callus', so by its path";
	free(first);
	return self;
}

/* The file of one agent in the workspace, as read. */
struct target {
	callus_buf path;   /* workspace root + agent path */
	callus_buf real;   /* path with a symlink at its end followed */
	callus_buf text;
	int exists;
	mode_t mode;     /* of the existing file */
	struct stat st;  /* its lstat as read: a change before the write is seen */
	int backup_kept; /* a copy made before was there, and stays */
};

static void target_release(struct target *t)
{
	callus_buf_release(&t->path);
	callus_buf_release(&t->real);
	callus_buf_release(&t->text);
}

static int target_read(struct target *t, const cli_workspace *ws, const callus_agentconf_agent *a,
		       callus_error *err)
{
	struct stat st;
	int rc;

	memset(t, 0, sizeof(*t));
	callus_buf_init(&t->path, 0);
	callus_buf_init(&t->real, 0);
	callus_buf_init(&t->text, 0);
	callus_buf_printf(&t->path, "%s/%s", ws->root, a->path);
	if (callus_buf_status(&t->path) < 0)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	/* A settings file linked in is edited where it lives, when that is
	 * inside the workspace: through a link (of the file, or of a folder
	 * on its way) that leaves it, nothing is written, created or deleted,
	 * whatever a cloned repository's links say. */
	if ((rc = callus_workspace_guard(&t->real, ws->root, a->path, 0, err)) < 0)
		return rc;
	rc = callus_fs_read_file(&t->text, t->real.ptr, CALLUS_AGENTCONF_FILE_MAX, err);
	if (rc == CALLUS_ENOTFOUND)
		return 0;
	if (rc < 0)
		return rc;
	if (lstat(t->real.ptr, &st) < 0)
		return callus_error_set(err, CALLUS_EIO, "cannot stat '%s': %s", t->real.ptr, strerror(errno));
	t->exists = 1;
	t->mode = st.st_mode & 07777;
	t->st = st;
	return 0;
}

/* Whether the file changed since target_read (the agent, or a person,
 * wrote it meanwhile): the merge is made again from what it holds now. */
static int target_moved(const struct target *t)
{
	struct stat st;

	if (lstat(t->real.ptr, &st) < 0)
		return t->exists;
	return !t->exists || st.st_ino != t->st.st_ino || st.st_size != t->st.st_size ||
	       st.st_mtim.tv_sec != t->st.st_mtim.tv_sec ||
	       st.st_mtim.tv_nsec != t->st.st_mtim.tv_nsec;
}

/* How to name the file to the user: as the agent knows it, unless a
 * symlink took us elsewhere. */
static const char *shown(const struct target *t, const callus_agentconf_agent *a)
{
	return strcmp(t->path.ptr, t->real.ptr) ? t->real.ptr : a->path;
}

static int write_files(struct target *t, const callus_agentconf_agent *a, callus_agentconf_action action,
		       const callus_buf *out, callus_error *err)
{
	callus_buf aux = CALLUS_BUF_INIT;
	int rc = 0;

	/* A file about to be deleted held nothing but callus's hook, which
	 * 'callus init AGENT' writes again: a copy would only be litter (and,
	 * next to Cline's hooks, an executable-looking one).  A copy made
	 * before is kept: it is the file as it was before callus first
	 * changed it, which a later write (of callus's own text) would lose. */
	if (t->exists && action != CALLUS_AGENTCONF_DELETE) {
		struct stat bst;

		callus_buf_printf(&aux, "%s.callus-backup", t->real.ptr);
		if (callus_buf_status(&aux) < 0) {
			rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
			goto out;
		}
		/* The copy keeps the file's permissions (settings can be
		 * private) but is never executable: it is not a hook. */
		t->backup_kept = lstat(aux.ptr, &bst) == 0;
		if (!t->backup_kept &&
		    (rc = callus_fs_write_atomic(aux.ptr, t->text.ptr, t->text.len, t->mode & 0666, 0,
					       err)) < 0)
			goto out;
	}
	if (action == CALLUS_AGENTCONF_DELETE) {
		if (unlink(t->real.ptr) < 0 && errno != ENOENT)
			rc = callus_error_set(err, CALLUS_EIO, "cannot delete '%s': %s", t->real.ptr,
					    strerror(errno));
		goto out;
	}
	callus_buf_clear(&aux);
	{
		const char *slash = strrchr(t->real.ptr, '/');

		callus_buf_put(&aux, t->real.ptr, slash ? (size_t)(slash - t->real.ptr) : 0);
	}
	if (callus_buf_status(&aux) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if (aux.len && (rc = callus_fs_mkdir_p(aux.ptr, 0755, err)) < 0)
		goto out;
	if (t->exists) {
		struct stat was = t->st;

		if (a->format == CALLUS_AGENTCONF_SCRIPT)
			was.st_mode |= 0100; /* the agent must be able to run it */
		rc = callus_fs_replace_kept(t->real.ptr, out->ptr, out->len, &was, err);
	} else {
		rc = callus_fs_write_atomic(t->real.ptr, out->ptr, out->len,
					  a->format == CALLUS_AGENTCONF_SCRIPT ? 0755 : 0644,
					  CALLUS_FS_UMASK, err);
	}
out:
	callus_buf_release(&aux);
	return rc;
}

/* init_try's answer when the file changed between its read and its
 * write: nothing was written, and the merge is made again. */
#define INIT_MOVED (-2)

static int init_try(const cli_workspace *ws, const callus_agentconf_agent *a, const char *program,
		    const char *why, int last)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf out = CALLUS_BUF_INIT, cmd = CALLUS_BUF_INIT;
	callus_agentconf_action action;
	struct target t;
	size_t removed = 0, old;
	int rc = 1;

	if (target_read(&t, ws, a, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		goto out;
	}
	if (callus_agentconf_command(&cmd, a, program) < 0) {
		cli_error("out of memory");
		goto out;
	}
	old = t.exists ? callus_agentconf_count_old(a, t.text.ptr, t.text.len) : 0;
	if (opt_remove)
		rc = callus_agentconf_unmerge(&out, &action, &removed, a, t.exists ? t.text.ptr : NULL,
					    t.text.len, program, &err);
	else
		rc = callus_agentconf_merge(&out, &action, a, t.exists ? t.text.ptr : NULL, t.text.len,
					  program, &err);
	if (rc < 0) {
		cli_error("cannot %s %s: %s", opt_remove ? "take callus's hook out of" : "configure",
			  a->name, callus_error_message(&err));
		cli_error("'%s' is left as it is", shown(&t, a));
		rc = 1;
		goto out;
	}
	rc = 0;
	/* a script of callus's the agent cannot run (its mode lost in a
	 * copy, a checkout) is made runnable, as a write would make it */
	if (action == CALLUS_AGENTCONF_KEEP && !opt_remove && !opt_dry_run && t.exists &&
	    a->format == CALLUS_AGENTCONF_SCRIPT && !(t.mode & 0100)) {
		if (chmod(t.real.ptr, t.mode | 0100) == 0) {
			printf("%s: '%s' made executable, so that %s runs it\n", a->name, shown(&t, a),
			       a->title);
			goto out;
		}
		cli_error("cannot make '%s' executable: %s", shown(&t, a), strerror(errno));
		rc = 1;
		goto out;
	}
	if (action == CALLUS_AGENTCONF_KEEP) {
		if (!opt_remove)
			printf("%s: already configured in '%s'; nothing changed\n", a->name, shown(&t, a));
		else if (!t.exists)
			printf("%s: '%s' does not exist; nothing to remove\n", a->name, shown(&t, a));
		else
			printf("%s: no callus hook in '%s'; nothing changed\n", a->name, shown(&t, a));
		goto out;
	}
	if (opt_dry_run) {
		if (action == CALLUS_AGENTCONF_DELETE) {
			printf("would delete '%s': nothing but callus's hook is in it\n", shown(&t, a));
		} else {
			printf("would %s '%s' with:\n", t.exists ? "rewrite" : "create", shown(&t, a));
			fwrite(out.ptr, 1, out.len, stdout);
		}
		if (t.exists && action != CALLUS_AGENTCONF_DELETE)
			printf("would save the previous version as '%s.callus-backup' (unless a copy "
			       "is there already)\n",
			       shown(&t, a));
		goto out;
	}
	/* written meanwhile (the agent saving its settings): what it wrote
	 * is merged, not overwritten by what was read before it */
	if (target_moved(&t)) {
		if (!last) {
			rc = INIT_MOVED;
			goto out;
		}
		cli_error("'%s' keeps changing while callus edits it: it is left as it is; run "
			  "'callus init %s' again",
			  shown(&t, a), a->name);
		rc = 1;
		goto out;
	}
	if (write_files(&t, a, action, &out, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		rc = 1;
		goto out;
	}
	if (opt_remove && action == CALLUS_AGENTCONF_DELETE)
		printf("%s: deleted '%s': nothing but callus's hook was in it\n", a->name, shown(&t, a));
	else if (opt_remove)
		printf("%s: took callus's hook out of '%s' (%zu entr%s)\n", a->name, shown(&t, a), removed,
		       removed == 1 ? "y" : "ies");
	else
		printf("%s: configured in '%s' (%s)\nhook command: %s (%s)\n", a->name, shown(&t, a),
		       a->events, cmd.ptr, why);
	if (old && !opt_remove)
		printf("%s: replaced %zu hook entr%s of %s (callus's former name) with callus's\n",
		       a->name, old, old == 1 ? "y" : "ies", CALLUS_MIGRATE_OLD_NAME);
	if (t.exists && action != CALLUS_AGENTCONF_DELETE && t.backup_kept)
		printf("the version before callus first changed it stays in '%s.callus-backup'\n",
		       shown(&t, a));
	else if (t.exists && action != CALLUS_AGENTCONF_DELETE)
		printf("previous version saved as '%s.callus-backup'\n", shown(&t, a));
	if (!opt_remove && a->note)
		printf("note: %s\n", a->note);
out:
	target_release(&t);
	callus_buf_release(&out);
	callus_buf_release(&cmd);
	callus_error_release(&err);
	return rc;
}

static int init_one(const cli_workspace *ws, const callus_agentconf_agent *a, const char *program,
		    const char *why)
{
	int rc = INIT_MOVED;

	for (int i = 0; i < 5 && rc == INIT_MOVED; i++)
		rc = init_try(ws, a, program, why, i == 4);
	return rc;
}

/*
 * The settings file callus's former name wrote where callus writes another
 * (Copilot's .github/hooks/): its hook entries go, and the file with them
 * when nothing else is in it.  0, or 1 after an error message.
 */
static int init_old_file(const cli_workspace *ws, const callus_agentconf_agent *a)
{
	callus_agentconf_agent old = *a;
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf out = CALLUS_BUF_INIT;
	callus_agentconf_action action = CALLUS_AGENTCONF_KEEP;
	struct target t;
	size_t removed = 0;
	int rc = 0;

	if (!(old.path = callus_migrate_old_settings(a->name)))
		return 0;
	if (target_read(&t, ws, &old, &err) < 0 || !t.exists)
		goto out;
	if (callus_agentconf_unmerge(&out, &action, &removed, &old, t.text.ptr, t.text.len, NULL,
				     &err) < 0 || action == CALLUS_AGENTCONF_KEEP)
		goto out;
	if (opt_dry_run) {
		printf("would take the hook of %s (callus's former name) out of '%s'\n",
		       CALLUS_MIGRATE_OLD_NAME, old.path);
		goto out;
	}
	if (write_files(&t, &old, action, &out, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		rc = 1;
		goto out;
	}
	printf("%s: %s '%s', the hook of %s (callus's former name)\n", a->name,
	       action == CALLUS_AGENTCONF_DELETE ? "deleted" : "took out of", old.path,
	       CALLUS_MIGRATE_OLD_NAME);
out:
	target_release(&t);
	callus_buf_release(&out);
	callus_error_release(&err);
	return rc;
}

/* Whether ws's root is the user's home directory. */
static int is_home(const cli_workspace *ws)
{
	const char *home = getenv("HOME");
	char *real;
	int same;

	if (!home || !*home || !(real = realpath(home, NULL)))
		return 0;
	same = !strcmp(real, ws->root_real);
	free(real);
	return same;
}

/* Outside a git repository a hook records only in a directory that holds
 * .callus/ (callus/workspace.h): running init here is the asking. */
static int mark_workspace(const cli_workspace *ws)
{
	callus_error err = CALLUS_ERROR_INIT;
	char *dir = NULL;
	int rc = 0;

	if (opt_dry_run) {
		printf("would make %s a callus workspace (.callus/): it is in no git repository\n",
		       ws->root);
		return 0;
	}
	if (callus_record_dir(&dir, ws->root, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		rc = 1;
	} else {
		printf("made %s a callus workspace (.callus/): it is in no git repository, and "
		       "hooks record only where they were asked to\n", ws->root);
	}
	free(dir);
	callus_error_release(&err);
	return rc;
}

/* What else the agent needs (its after_init), said as done. */
static void after_init(const cli_workspace *ws, const callus_agentconf_agent *a)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf msg = CALLUS_BUF_INIT;

	if (!a->after_init)
		return;
	if (a->after_init(ws->root, callus_config_get(ws->config, "lessons", "file"), opt_dry_run,
			  &msg, &err) < 0)
		cli_error("%s: %s", a->name, callus_error_message(&err));
	for (const char *line = msg.ptr, *nl; line && *line; line = nl + 1) {
		if (!(nl = strchr(line, '\n'))) {
			printf("%s: %s\n", a->name, line);
			break;
		}
		printf("%s: %.*s\n", a->name, (int)(nl - line), line);
	}
	callus_buf_release(&msg);
	callus_error_release(&err);
}

/* One line (two when 'callus init AGENT' would refuse) per agent. */
static void list_one(const cli_workspace *ws, const callus_agentconf_agent *a, const char *program)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf out = CALLUS_BUF_INIT;
	callus_agentconf_action action = CALLUS_AGENTCONF_KEEP;
	struct target t;
	size_t found = 0;
	int rc;

	printf("%-12s %-30s ", a->name, a->path);
	if ((rc = target_read(&t, ws, a, &err)) < 0) {
		printf("cannot be read:\n%13s%s\n", "", callus_error_message(&err));
		goto out;
	}
	if (!t.exists) {
		printf("missing; 'callus init %s' would create it\n", a->name);
		goto out;
	}
	rc = callus_agentconf_unmerge(&out, &action, &found, a, t.text.ptr, t.text.len, program, &err);
	if (rc >= 0)
		rc = callus_agentconf_merge(&out, &action, a, t.text.ptr, t.text.len, program, &err);
	if (rc < 0)
		printf("exists; 'callus init %s' would refuse:\n%13s%s\n", a->name, "",
		       callus_error_message(&err));
	else if (!found)
		printf("exists, no callus hook; 'callus init %s' would add it\n", a->name);
	else if (action == CALLUS_AGENTCONF_KEEP)
		printf("exists, callus's hook configured; nothing to do\n");
	else
		printf("exists, callus's hook differs; 'callus init %s' would update it\n", a->name);
out:
	target_release(&t);
	callus_buf_release(&out);
	callus_error_release(&err);
}

static void list_agents(const cli_workspace *ws, const char *program, const char *why)
{
	const callus_agentconf_agent *first, *a;
	callus_buf cmd = CALLUS_BUF_INIT;

	first = callus_agentconf_nth(0);
	if (callus_agentconf_command(&cmd, first, program) == 0) {
		/* the command of the first agent, with its name made generic */
		callus_buf_truncate(&cmd, cmd.len - strlen(first->name));
		callus_buf_puts(&cmd, "AGENT");
	}
	printf("workspace: %s\nhook command: %s (%s)\n\n", ws->root, cmd.ptr, why);
	for (size_t i = 0; (a = callus_agentconf_nth(i)); i++)
		list_one(ws, a, program);
	callus_buf_release(&cmd);
}

static void unknown_agent(const char *name)
{
	const callus_agentconf_agent *a;
	callus_buf names = CALLUS_BUF_INIT;

	for (size_t i = 0; (a = callus_agentconf_nth(i)); i++) {
		callus_buf_printf(&names, "%s%s", i ? ", " : "", a->name);
		if (a->alias)
			callus_buf_printf(&names, " (or %s)", a->alias);
	}
	cli_error("unknown agent '%s'; callus init knows %s", name, names.ptr);
	callus_buf_release(&names);
}

/* The agent's earlier sessions here: what an import would learn, or,
 * with --import, the import itself (callus import). */
static void offer_import(const cli_workspace *ws, const callus_agentconf_agent *a)
{
	cli_import_opts o = { a->name, NULL, ws->root, !opt_import, 1 };

	if (!callus_transcript_find(a->name))
		return;
	if (!opt_import)
		printf("earlier sessions of %s in this workspace ('callus init %s --import' "
		       "imports them):\n", a->name, a->name);
	fflush(stdout);
	cli_import(&o);
}

int cmd_init(int argc, char **argv)
{
	const callus_agentconf_agent *a = NULL;
	const char *why = NULL;
	char *program = NULL;
	cli_workspace ws;
	int first, rc = 1, have_ws = 0;

	first = cli_parse(argc, argv, &cmd_init_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first + 1 < argc) {
		cli_error("unexpected argument '%s'", argv[first + 1]);
		return 2;
	}
	if (first < argc && !(a = callus_agentconf_find(argv[first]))) {
		unknown_agent(argv[first]);
		return 2;
	}
	if (!a && opt_remove) {
		cli_error("--remove needs an AGENT: callus init AGENT --remove");
		return 2;
	}
	if (opt_check && (opt_remove || opt_dry_run)) {
		cli_error("--check writes nothing: it goes without --remove and --dry-run");
		return 2;
	}
	if (cli_workspace_setup(&ws, NULL, 0) < 0)
		goto out;
	have_ws = 1;
	if (opt_check) {
		int problems = cli_doctor_hooks(&ws, a ? a->name : NULL);

		if (problems)
			printf("%d problem%s: %s\n", problems, problems == 1 ? "" : "s",
			       a ? "this agent will not learn from its checks as it is"
				 : "see above");
		rc = problems ? 1 : 0;
		goto out;
	}
	if (!(program = hook_program(&why))) {
		cli_error("out of memory");
		goto out;
	}
	if (!a) {
		list_agents(&ws, program, why);
		rc = 0;
		goto out;
	}
	/* home outside git would hold every folder under it that is in no
	 * repository: asked for by making .callus/ there by hand, not by
	 * running init in the wrong folder */
	if (!opt_remove && ws.kind == CALLUS_WS_NONE && is_home(&ws)) {
		cli_error("'%s' is your home directory, in no git repository: as a workspace it "
			  "would record every folder under it that is in none; run 'callus init %s' "
			  "in a project, or make '.callus/' here first to mean it",
			  ws.root, a->name);
		rc = 1;
		goto out;
	}
	rc = init_one(&ws, a, program, why);
	if (rc == 0)
		rc = init_old_file(&ws, a);
	if (rc == 0 && !opt_remove)
		after_init(&ws, a);
	if (rc == 0 && !opt_remove && ws.kind == CALLUS_WS_NONE)
		rc = mark_workspace(&ws);
	if (rc == 0 && !opt_remove && !opt_dry_run)
		offer_import(&ws, a);
out:
	free(program);
	if (have_ws)
		cli_workspace_release(&ws);
	return rc;
}

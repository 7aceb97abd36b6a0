/*
 * deja init: put deja's hook into a coding agent's project settings (or
 * take it out again), and show where every agent stands.
 *
 * What is written where is decided by src/agentconf.c from the file's text;
 * this file reads, backs up and writes, and picks the program the agent
 * will run.
 */
#include "cli.h"

#include "deja/agentconf.h"
#include "deja/buf.h"
#include "deja/fsutil.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int opt_remove, opt_dry_run;

static const cli_option init_options[] = {
	{ CLI_OPT_FLAG, 0, "remove", &opt_remove, NULL,
	  "take deja's hook out of AGENT's settings; everything else stays" },
	{ CLI_OPT_FLAG, 'n', "dry-run", &opt_dry_run, NULL,
	  "print what would be written, write nothing" },
	CLI_END
};

const cli_spec cmd_init_spec = {
	"deja init [AGENT] [--remove] [--dry-run]",
	"Make a coding agent run deja after its shell commands (its hook settings).",
	"AGENT is claude-code (or claude), codex, gemini, copilot, cursor or cline.\n"
	"deja's entries are merged into the agent's settings file in the workspace:\n"
	"every other setting and hook is kept, the previous file is saved next to it\n"
	"as FILE.deja-backup, and running it again changes nothing.  A file that is\n"
	"not plain JSON (comments included) is refused and left as it is.  Without\n"
	"AGENT, shows for every agent whether its settings file exists, whether\n"
	"deja's hook is in it, and what 'deja init AGENT' would do.  The hook runs\n"
	"'deja' when this deja is the one on PATH, else this deja's absolute path.\n"
	"docs/agents.md has every agent's files and the manual equivalent.",
	init_options, 0
};

/* What the agent should run, and why (for the user): plain "deja" when
 * that name on PATH is this very binary, else this binary's absolute path,
 * so that the hook runs the deja that configured it. */
static char *hook_program(const char **why)
{
	char *self = realpath("/proc/self/exe", NULL);
	const char *path = getenv("PATH"), *p;
	deja_buf cand = DEJA_BUF_INIT;
	char *first = NULL;

	for (p = path && *path ? path : NULL; p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		struct stat st;

		deja_buf_clear(&cand);
		/* an empty PATH entry is the current directory */
		deja_buf_put(&cand, n ? p : ".", n ? n : 1);
		deja_buf_puts(&cand, "/deja");
		if (deja_buf_status(&cand) == 0 && !stat(cand.ptr, &st) && S_ISREG(st.st_mode) &&
		    !access(cand.ptr, X_OK)) {
			first = realpath(cand.ptr, NULL);
			break;
		}
		p = colon ? colon + 1 : NULL;
	}
	deja_buf_release(&cand);
	if (!self) {
		free(first);
		*why = "cannot tell where this deja is, so the one on PATH";
		return strdup("deja");
	}
	if (first && !strcmp(first, self)) {
		free(first);
		free(self);
		*why = "this deja, found on PATH as 'deja'";
		return strdup("deja");
	}
	*why = first ? "the 'deja' first on PATH is another file, so this one by its path"
		     : "this deja is not on PATH as 'deja', so by its path";
	free(first);
	return self;
}

/* The file of one agent in the workspace, as read. */
struct target {
	deja_buf path;   /* workspace root + agent path */
	deja_buf real;   /* path with a symlink at its end followed */
	deja_buf text;
	int exists;
	mode_t mode;     /* of the existing file */
};

static void target_release(struct target *t)
{
	deja_buf_release(&t->path);
	deja_buf_release(&t->real);
	deja_buf_release(&t->text);
}

static int target_read(struct target *t, const cli_workspace *ws, const deja_agentconf_agent *a,
		       deja_error *err)
{
	struct stat st;
	int rc;

	memset(t, 0, sizeof(*t));
	deja_buf_init(&t->path, 0);
	deja_buf_init(&t->real, 0);
	deja_buf_init(&t->text, 0);
	deja_buf_printf(&t->path, "%s/%s", ws->root, a->path);
	if (deja_buf_status(&t->path) < 0)
		return deja_error_set(err, DEJA_ENOMEM, "out of memory");
	/* A settings file kept elsewhere (dotfiles) and linked in is edited
	 * where it lives, not replaced by a copy. */
	if ((rc = deja_fs_resolve_link(&t->real, t->path.ptr, err)) < 0)
		return rc;
	rc = deja_fs_read_file(&t->text, t->real.ptr, DEJA_AGENTCONF_FILE_MAX, err);
	if (rc == DEJA_ENOTFOUND)
		return 0;
	if (rc < 0)
		return rc;
	if (stat(t->real.ptr, &st) < 0)
		return deja_error_set(err, DEJA_EIO, "cannot stat '%s': %s", t->real.ptr, strerror(errno));
	t->exists = 1;
	t->mode = st.st_mode & 07777;
	return 0;
}

/* How to name the file to the user: as the agent knows it, unless a
 * symlink took us elsewhere. */
static const char *shown(const struct target *t, const deja_agentconf_agent *a)
{
	return strcmp(t->path.ptr, t->real.ptr) ? t->real.ptr : a->path;
}

static int write_files(struct target *t, const deja_agentconf_agent *a, deja_agentconf_action action,
		       const deja_buf *out, deja_error *err)
{
	deja_buf aux = DEJA_BUF_INIT;
	int rc = 0;

	/* A file about to be deleted held nothing but deja's hook, which
	 * 'deja init AGENT' writes again: a copy would only be litter (and,
	 * next to Cline's hooks, an executable-looking one). */
	if (t->exists && action != DEJA_AGENTCONF_DELETE) {
		deja_buf_printf(&aux, "%s.deja-backup", t->real.ptr);
		if (deja_buf_status(&aux) < 0) {
			rc = deja_error_set(err, DEJA_ENOMEM, "out of memory");
			goto out;
		}
		/* The copy keeps the file's permissions (settings can be
		 * private) but is never executable: it is not a hook. */
		if ((rc = deja_fs_write_atomic(aux.ptr, t->text.ptr, t->text.len, t->mode & 0666, 0,
					       err)) < 0)
			goto out;
	}
	if (action == DEJA_AGENTCONF_DELETE) {
		if (unlink(t->real.ptr) < 0 && errno != ENOENT)
			rc = deja_error_set(err, DEJA_EIO, "cannot delete '%s': %s", t->real.ptr,
					    strerror(errno));
		goto out;
	}
	deja_buf_clear(&aux);
	{
		const char *slash = strrchr(t->real.ptr, '/');

		deja_buf_put(&aux, t->real.ptr, slash ? (size_t)(slash - t->real.ptr) : 0);
	}
	if (deja_buf_status(&aux) < 0) {
		rc = deja_error_set(err, DEJA_ENOMEM, "out of memory");
		goto out;
	}
	if (aux.len && (rc = deja_fs_mkdir_p(aux.ptr, 0755, err)) < 0)
		goto out;
	if (t->exists) {
		mode_t mode = t->mode;

		if (a->format == DEJA_AGENTCONF_SCRIPT)
			mode |= 0100; /* the agent must be able to run it */
		rc = deja_fs_write_atomic(t->real.ptr, out->ptr, out->len, mode, 0, err);
	} else {
		rc = deja_fs_write_atomic(t->real.ptr, out->ptr, out->len,
					  a->format == DEJA_AGENTCONF_SCRIPT ? 0755 : 0644,
					  DEJA_FS_UMASK, err);
	}
out:
	deja_buf_release(&aux);
	return rc;
}

static int init_one(const cli_workspace *ws, const deja_agentconf_agent *a, const char *program,
		    const char *why)
{
	deja_error err = DEJA_ERROR_INIT;
	deja_buf out = DEJA_BUF_INIT, cmd = DEJA_BUF_INIT;
	deja_agentconf_action action;
	struct target t;
	size_t removed = 0;
	int rc = 1;

	if (target_read(&t, ws, a, &err) < 0) {
		cli_error("%s", deja_error_message(&err));
		goto out;
	}
	if (deja_agentconf_command(&cmd, a, program) < 0) {
		cli_error("out of memory");
		goto out;
	}
	if (opt_remove)
		rc = deja_agentconf_unmerge(&out, &action, &removed, a, t.exists ? t.text.ptr : NULL,
					    t.text.len, program, &err);
	else
		rc = deja_agentconf_merge(&out, &action, a, t.exists ? t.text.ptr : NULL, t.text.len,
					  program, &err);
	if (rc < 0) {
		cli_error("cannot %s %s: %s", opt_remove ? "take deja's hook out of" : "configure",
			  a->name, deja_error_message(&err));
		cli_error("'%s' is left as it is", shown(&t, a));
		rc = 1;
		goto out;
	}
	rc = 0;
	if (action == DEJA_AGENTCONF_KEEP) {
		if (!opt_remove)
			printf("%s: already configured in '%s'; nothing changed\n", a->name, shown(&t, a));
		else if (!t.exists)
			printf("%s: '%s' does not exist; nothing to remove\n", a->name, shown(&t, a));
		else
			printf("%s: no deja hook in '%s'; nothing changed\n", a->name, shown(&t, a));
		goto out;
	}
	if (opt_dry_run) {
		if (action == DEJA_AGENTCONF_DELETE) {
			printf("would delete '%s': nothing but deja's hook is in it\n", shown(&t, a));
		} else {
			printf("would %s '%s' with:\n", t.exists ? "rewrite" : "create", shown(&t, a));
			fwrite(out.ptr, 1, out.len, stdout);
		}
		if (t.exists && action != DEJA_AGENTCONF_DELETE)
			printf("would save the previous version as '%s.deja-backup'\n", shown(&t, a));
		goto out;
	}
	if (write_files(&t, a, action, &out, &err) < 0) {
		cli_error("%s", deja_error_message(&err));
		rc = 1;
		goto out;
	}
	if (opt_remove && action == DEJA_AGENTCONF_DELETE)
		printf("%s: deleted '%s': nothing but deja's hook was in it\n", a->name, shown(&t, a));
	else if (opt_remove)
		printf("%s: took deja's hook out of '%s' (%zu entr%s)\n", a->name, shown(&t, a), removed,
		       removed == 1 ? "y" : "ies");
	else
		printf("%s: configured in '%s' (%s)\nhook command: %s (%s)\n", a->name, shown(&t, a),
		       a->events, cmd.ptr, why);
	if (t.exists && action != DEJA_AGENTCONF_DELETE)
		printf("previous version saved as '%s.deja-backup'\n", shown(&t, a));
	if (!opt_remove && a->note)
		printf("note: %s\n", a->note);
out:
	target_release(&t);
	deja_buf_release(&out);
	deja_buf_release(&cmd);
	deja_error_release(&err);
	return rc;
}

/*
 * Claude Code reads CLAUDE.md, and AGENTS.md only in some releases: an
 * "@AGENTS.md" import line in CLAUDE.md makes the lessons block reach it in
 * all of them.  The rest of CLAUDE.md is left as it is; a CLAUDE.md that is
 * a link is not written through.  Only when the lessons go to AGENTS.md.
 */
static void claude_import(const cli_workspace *ws)
{
	const char *lessons = deja_config_get(ws->config, "lessons", "file");
	deja_error err = DEJA_ERROR_INIT;
	deja_buf path = DEJA_BUF_INIT, text = DEJA_BUF_INIT;
	struct stat st;
	int rc;

	if (lessons && *lessons && strcmp(lessons, "AGENTS.md") != 0)
		return;
	deja_buf_printf(&path, "%s/CLAUDE.md", ws->root);
	if (deja_buf_status(&path) < 0)
		goto out;
	if (lstat(path.ptr, &st) == 0 && !S_ISREG(st.st_mode)) {
		printf("note: CLAUDE.md is not a plain file: add a line '@AGENTS.md' to it yourself "
		       "so that Claude Code reads the lessons\n");
		goto out;
	}
	rc = deja_fs_read_file(&text, path.ptr, DEJA_AGENTCONF_FILE_MAX, &err);
	if (rc < 0 && rc != DEJA_ENOTFOUND)
		goto out;
	for (const char *p = text.ptr; p && (p = strstr(p, "@AGENTS.md")); p++)
		if ((p == text.ptr || p[-1] == '\n') && (p[10] == '\n' || p[10] == '\0' || p[10] == '\r'))
			goto out;
	if (opt_dry_run) {
		printf("would add '@AGENTS.md' to CLAUDE.md (Claude Code then reads the lessons)\n");
		goto out;
	}
	if (text.len && text.ptr[text.len - 1] != '\n')
		deja_buf_putc(&text, '\n');
	deja_buf_puts(&text, "@AGENTS.md\n");
	if (deja_buf_status(&text) < 0 ||
	    deja_fs_write_atomic(path.ptr, text.ptr, text.len, 0644, DEJA_FS_UMASK, &err) < 0) {
		cli_error("cannot add '@AGENTS.md' to CLAUDE.md: %s", deja_error_message(&err));
		goto out;
	}
	printf("claude-code: CLAUDE.md imports AGENTS.md ('@AGENTS.md'), where deja keeps its "
	       "lessons\n");
out:
	deja_error_release(&err);
	deja_buf_release(&path);
	deja_buf_release(&text);
}

/* One line (two when 'deja init AGENT' would refuse) per agent. */
static void list_one(const cli_workspace *ws, const deja_agentconf_agent *a, const char *program)
{
	deja_error err = DEJA_ERROR_INIT;
	deja_buf out = DEJA_BUF_INIT;
	deja_agentconf_action action = DEJA_AGENTCONF_KEEP;
	struct target t;
	size_t found = 0;
	int rc;

	printf("%-12s %-30s ", a->name, a->path);
	if ((rc = target_read(&t, ws, a, &err)) < 0) {
		printf("cannot be read:\n%13s%s\n", "", deja_error_message(&err));
		goto out;
	}
	if (!t.exists) {
		printf("missing; 'deja init %s' would create it\n", a->name);
		goto out;
	}
	rc = deja_agentconf_unmerge(&out, &action, &found, a, t.text.ptr, t.text.len, program, &err);
	if (rc >= 0)
		rc = deja_agentconf_merge(&out, &action, a, t.text.ptr, t.text.len, program, &err);
	if (rc < 0)
		printf("exists; 'deja init %s' would refuse:\n%13s%s\n", a->name, "",
		       deja_error_message(&err));
	else if (!found)
		printf("exists, no deja hook; 'deja init %s' would add it\n", a->name);
	else if (action == DEJA_AGENTCONF_KEEP)
		printf("exists, deja's hook configured; nothing to do\n");
	else
		printf("exists, deja's hook differs; 'deja init %s' would update it\n", a->name);
out:
	target_release(&t);
	deja_buf_release(&out);
	deja_error_release(&err);
}

static void list_agents(const cli_workspace *ws, const char *program, const char *why)
{
	const deja_agentconf_agent *agents;
	deja_buf cmd = DEJA_BUF_INIT;
	size_t n;

	agents = deja_agentconf_agents(&n);
	if (deja_agentconf_command(&cmd, &agents[0], program) == 0) {
		/* the command of the first agent, with its name made generic */
		deja_buf_truncate(&cmd, cmd.len - strlen(agents[0].name));
		deja_buf_puts(&cmd, "AGENT");
	}
	printf("workspace: %s\nhook command: %s (%s)\n\n", ws->root, cmd.ptr, why);
	for (size_t i = 0; i < n; i++)
		list_one(ws, &agents[i], program);
	deja_buf_release(&cmd);
}

static void unknown_agent(const char *name)
{
	const deja_agentconf_agent *agents;
	deja_buf names = DEJA_BUF_INIT;
	size_t n;

	agents = deja_agentconf_agents(&n);
	for (size_t i = 0; i < n; i++) {
		deja_buf_printf(&names, "%s%s", i ? ", " : "", agents[i].name);
		if (agents[i].alias)
			deja_buf_printf(&names, " (or %s)", agents[i].alias);
	}
	cli_error("unknown agent '%s'; deja init knows %s", name, names.ptr);
	deja_buf_release(&names);
}

int cmd_init(int argc, char **argv)
{
	const deja_agentconf_agent *a = NULL;
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
	if (first < argc && !(a = deja_agentconf_find(argv[first]))) {
		unknown_agent(argv[first]);
		return 2;
	}
	if (!a && opt_remove) {
		cli_error("--remove needs an AGENT: deja init AGENT --remove");
		return 2;
	}
	if (cli_workspace_setup(&ws, NULL, 0) < 0)
		goto out;
	have_ws = 1;
	if (!(program = hook_program(&why))) {
		cli_error("out of memory");
		goto out;
	}
	if (!a) {
		list_agents(&ws, program, why);
		rc = 0;
		goto out;
	}
	rc = init_one(&ws, a, program, why);
	if (rc == 0 && !opt_remove && !strcmp(a->name, "claude-code"))
		claude_import(&ws);
out:
	free(program);
	if (have_ws)
		cli_workspace_release(&ws);
	return rc;
}

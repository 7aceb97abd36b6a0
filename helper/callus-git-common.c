/*
 * callus-git-common.c - what every command of the snapshot helper uses:
 * reporting a failure (and whether it was the caller's, for the exit
 * status), the FILE paths it accepts, and opening the repository of a
 * workspace.
 */
#include <git2.h>

#include "callus-git.h"
#include "callus/snapshot.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage_error; /* set when the failure is the caller's: exit 2 */
static FILE *report_to; /* where failures are told; NULL: stderr */

void callus_git_report_to(FILE *f)
{
	report_to = f;
	usage_error = 0;
}

static void vreport(int with_git, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void vreport(int with_git, const char *fmt, va_list ap)
{
	const git_error *e = with_git ? git_error_last() : NULL;
	FILE *f = report_to ? report_to : stderr;

	fputs("callus-git: ", f);
	vfprintf(f, fmt, ap);
	if (e && e->message)
		fprintf(f, ": %s", e->message);
	fputc('\n', f);
}

int callus_git_fail(int with_git, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(with_git, fmt, ap);
	va_end(ap);
	return -1;
}

int callus_git_fail_usage(const char *fmt, ...)
{
	va_list ap;

	usage_error = 1;
	va_start(ap, fmt);
	vreport(0, fmt, ap);
	va_end(ap);
	return -1;
}

int callus_git_usage_error(void)
{
	return usage_error;
}

/* ---- paths ------------------------------------------------------------ */

/*
 * A FILE as a path the index accepts: "." components and repeated slashes
 * dropped; absolute paths, "..", ".git" and empty paths refused (usage
 * error).  *out is malloc'd.
 */
int callus_git_normalize_path(char **out, const char *in)
{
	size_t n = strlen(in), len = 0;
	const char *p = in;
	char *res = NULL;

	*out = NULL;
	if (in[0] == '/')
		goto bad;
	res = malloc(n + 1);
	if (!res)
		return callus_git_fail(0, "out of memory");
	while (*p) {
		const char *end = strchr(p, '/');
		size_t clen = end ? (size_t)(end - p) : strlen(p);

		if (clen == 0 || (clen == 1 && p[0] == '.')) {
			/* nothing: "a//b", "./a" */
		} else if ((clen == 2 && !memcmp(p, "..", 2)) ||
			   (clen == 4 && !strncasecmp(p, ".git", 4))) {
			goto bad;
		} else {
			if (len)
				res[len++] = '/';
			memcpy(res + len, p, clen);
			len += clen;
		}
		p += clen;
		if (*p == '/')
			p++;
	}
	if (!len)
		goto bad;
	res[len] = '\0';
	*out = res;
	return 0;
bad:
	free(res);
	return callus_git_fail_usage("refusing path '%s': not inside the workspace", in);
}

/* The workspace's path relative to the repository's working directory, with
 * a trailing slash ("" when they are the same); NULL when the workspace is
 * not inside it.  Caller frees. */
char *callus_git_workspace_prefix(const char *workdir, const char *workspace)
{
	char *wd = realpath(workdir, NULL);
	char *ws = realpath(workspace, NULL);
	char *res = NULL;
	size_t n;

	if (!wd || !ws)
		goto out;
	n = strlen(wd);
	while (n > 1 && wd[n - 1] == '/')
		n--;
	if (strncmp(ws, wd, n) != 0 || (ws[n] != '\0' && ws[n] != '/'))
		goto out;
	if (ws[n] == '\0') {
		res = strdup("");
	} else {
		size_t rlen = strlen(ws + n + 1);

		res = malloc(rlen + 2);
		if (res) {
			memcpy(res, ws + n + 1, rlen);
			res[rlen] = '/';
			res[rlen + 1] = '\0';
		}
	}
out:
	free(wd);
	free(ws);
	return res;
}

/* ---- opening ----------------------------------------------------------- */

/* The repository with a working directory that holds workspace, or NULL
 * in *out when there is none (then the workspace is "files"). */
/* The repository with a working directory that holds workspace, or NULL
 * (and 0) when there is none. */
static int git_open(git_repository **out, const char *workspace)
{
	git_repository *repo = NULL;
	int rc = git_repository_open_ext(&repo, workspace, 0, NULL);

	*out = NULL;
	if (rc == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	if (rc < 0)
		return callus_git_fail(1, "cannot open the repository of '%s'", workspace);
	if (git_repository_is_bare(repo) || !git_repository_workdir(repo)) {
		git_repository_free(repo);
		return 0;
	}
	*out = repo;
	return 0;
}

int callus_git_ws_repo(callus_git_ws *w, git_repository **repo)
{
	if (!w->opened) {
		if (git_open(&w->repo, w->path) < 0)
			return -1;
		w->opened = 1;
	}
	*repo = w->repo;
	return 0;
}

void callus_git_ws_release(callus_git_ws *w)
{
	git_repository_free(w->repo);
	w->repo = NULL;
	w->opened = 0;
	w->have_now = 0;
}

/* HEAD's commit as hex, or "-" when the branch is unborn. */
int callus_git_head_hex(char out[GIT_OID_HEXSZ + 1], git_repository *repo)
{
	git_oid oid;
	int rc = git_reference_name_to_id(&oid, repo, "HEAD");

	if (rc == GIT_ENOTFOUND || rc == GIT_EUNBORNBRANCH) {
		git_error_clear();
		out[0] = '-';
		out[1] = '\0';
		return 0;
	}
	if (rc < 0)
		return callus_git_fail(1, "cannot resolve HEAD");
	git_oid_tostr(out, GIT_OID_HEXSZ + 1, &oid);
	return 0;
}


static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t l = strlen(suffix);

	return n >= l && !strcmp(s + n - l, suffix);
}

int callus_git_secret_file(const char *path)
{
	static const char *const names[] = {
		".envrc", ".netrc", ".npmrc", ".pypirc", ".pgpass", ".git-credentials", ".htpasswd",
		"credentials", "credentials.json", ".dockercfg"
	};
	static const char *const keys[] = { "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519" };
	static const char *const suffixes[] = {
		".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".tfvars", ".tfvars.json"
	};
	static const char *const templates[] = { ".example", ".sample", ".template", ".dist" };
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (!strcmp(base, ".env") || !strncmp(base, ".env.", 5)) {
		for (size_t i = 0; i < sizeof(templates) / sizeof(templates[0]); i++)
			if (ends_with(base, n, templates[i]))
				return 0;
		return 1;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(base, names[i]))
			return 1;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strncmp(base, keys[i], strlen(keys[i])) && !ends_with(base, n, ".pub"))
			return 1;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (ends_with(base, n, suffixes[i]))
			return 1;
	return 0;
}

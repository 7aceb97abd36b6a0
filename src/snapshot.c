/*
 * snapshot.c - snapshots through the callus-git helper (include/callus/snapshot.h;
 * the helper's protocol is described at the top of helper/callus-git.c).
 *
 * The helper runs through callus_child_run() (include/callus/child.h): no
 * shell, stdin from /dev/null, killed past the timeout and always reaped.
 * Its output is parsed strictly: a helper from another version of callus
 * must fail loudly, not hand back a half-understood snapshot.
 */
#include "callus/snapshot.h"
#include "callus/buf.h"
#include "callus/child.h"
#include "callus/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TIMEOUT_MS 10000
#define OID_HEX 40

/* What snapshot and head print is one short line. */
#define SMALL_OUTPUT_MAX 4096
/* Room for the diff's last line ("[callus: N more files changed: ...]", whose
 * list of names the helper bounds to about 512 bytes). */
#define DIFF_TRAILER_MAX 1024

static int is_oid_hex(const char *s, size_t len)
{
	size_t i;

	if (len != OID_HEX)
		return 0;
	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

char *callus_snapshot_helper(void)
{
	return callus_child_sibling("CALLUS_GIT_HELPER", "callus-git");
}

/*
 * Run the helper (argv[0] filled in here) and collect its stdout into out
 * (at most out_max bytes).  CALLUS_ENOTFOUND: no helper; CALLUS_EINVAL: it
 * refused its arguments (exit 2); CALLUS_EIO: it failed or timed out.
 */
static int run_helper(callus_buf *out, char **argv, size_t out_max, const callus_snapshot_opts *opts,
		      callus_error *err)
{
	callus_child_opts co = { "snapshot helper", argv, NULL, NULL, 0, out_max, 0 };
	char *own = NULL;
	int rc;

	co.timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : DEFAULT_TIMEOUT_MS;
	argv[0] = opts && opts->helper ? (char *)opts->helper : (own = callus_snapshot_helper());
	if (!argv[0]) {
		callus_buf_init(out, out_max);
		return callus_error_set(err, CALLUS_ENOTFOUND,
				      "cannot find the snapshot helper callus-git");
	}
	rc = callus_child_run(out, &co, err);
	free(own);
	return rc;
}

/* ---- the API ----------------------------------------------------------- */

static char *dup_n(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

/* "<kind> <tree> <commit|->\n", nothing more, nothing less. */
static int parse_snapshot(callus_snapshot *out, const char *line, callus_error *err)
{
	const char *sp1 = strchr(line, ' ');
	const char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	const char *nl = sp2 ? strchr(sp2 + 1, '\n') : NULL;
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	size_t clen;
	char kind[8];

	if (!nl || nl[1] != '\0' || (size_t)(sp1 - line) >= sizeof kind)
		goto bad;
	memcpy(kind, line, (size_t)(sp1 - line));
	kind[sp1 - line] = '\0';
	if (callus_snapshot_kind_parse(&s.kind, kind) < 0 ||
	    !is_oid_hex(sp1 + 1, (size_t)(sp2 - sp1 - 1)))
		goto bad;
	clen = (size_t)(nl - sp2 - 1);
	if (clen == 1 && sp2[1] == '-')
		clen = 0;
	else if (!is_oid_hex(sp2 + 1, clen) || s.kind != CALLUS_SNAPSHOT_GIT)
		goto bad;
	s.tree = dup_n(sp1 + 1, OID_HEX);
	s.commit = dup_n(sp2 + 1, clen);
	if (!s.tree || !s.commit) {
		callus_snapshot_release(&s);
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	}
	*out = s;
	return 0;
bad:
	return callus_error_set(err, CALLUS_EIO, "snapshot helper printed something unexpected: '%.*s'",
			      (int)strcspn(line, "\n"), line);
}

static int check_workspace(const char *workspace, callus_error *err)
{
	if (!workspace || workspace[0] != '/')
		return callus_error_set(err, CALLUS_EINVAL, "workspace '%s' is not an absolute path",
				      workspace ? workspace : "");
	return 0;
}

/* callus's own directory (store, logs, vector files) is never the user's
 * work: every snapshot and diff leaves it out, whatever the caller says. */
#define OWN_DIR ".callus/"

static size_t count_excludes(const callus_snapshot_opts *opts)
{
	size_t n = 1;

	while (opts && opts->exclude && opts->exclude[n - 1])
		n++;
	return n;
}

/* "--exclude P" for .callus/ and each of opts->exclude from argv[i]; the
 * next index. */
static size_t add_excludes(char **argv, size_t i, const callus_snapshot_opts *opts)
{
	argv[i++] = "--exclude";
	argv[i++] = OWN_DIR;
	for (size_t j = 0; j + 1 < count_excludes(opts); j++) {
		argv[i++] = "--exclude";
		argv[i++] = (char *)opts->exclude[j];
	}
	return i;
}

int callus_snapshot_take(callus_snapshot *out, const char *workspace, const callus_strlist *files,
		       const callus_snapshot_opts *opts, callus_error *err)
{
	callus_buf res = CALLUS_BUF_INIT;
	size_t nfiles = files ? files->count : 0, i;
	char **argv = NULL;
	int rc;

	*out = (callus_snapshot)CALLUS_SNAPSHOT_INIT;
	if ((rc = check_workspace(workspace, err)) < 0)
		return rc;
	argv = calloc(nfiles + 2 * count_excludes(opts) + 4, sizeof *argv);
	if (!argv)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	argv[1] = "snapshot";
	i = add_excludes(argv, 2, opts);
	argv[i++] = (char *)workspace;
	for (size_t j = 0; j < nfiles; j++)
		argv[i++] = files->items[j];
	rc = run_helper(&res, argv, SMALL_OUTPUT_MAX, opts, err);
	if (rc == 0)
		rc = parse_snapshot(out, res.ptr, err);
	callus_buf_release(&res);
	free(argv);
	return rc;
}

int callus_snapshot_diff(char **patch, const char *workspace, const callus_snapshot *snap,
		       size_t max_bytes, const callus_snapshot_opts *opts, callus_error *err)
{
	callus_buf res = CALLUS_BUF_INIT;
	char max[32], since[32];
	char **argv = NULL;
	size_t limit, i;
	int rc;

	*patch = NULL;
	if ((rc = check_workspace(workspace, err)) < 0)
		return rc;
	if (!snap || !snap->tree || !is_oid_hex(snap->tree, strlen(snap->tree)) ||
	    !callus_snapshot_kind_name(snap->kind))
		return callus_error_set(err, CALLUS_EINVAL, "not a snapshot");
	snprintf(max, sizeof max, "%zu", max_bytes);
	if (!(argv = calloc(2 * count_excludes(opts) + 9, sizeof *argv)))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	argv[1] = "diff";
	i = add_excludes(argv, 2, opts);
	if (opts && opts->since_ns > 0) {
		snprintf(since, sizeof since, "%lld", opts->since_ns);
		argv[i++] = "--since";
		argv[i++] = since;
	}
	argv[i++] = (char *)workspace;
	argv[i++] = (char *)callus_snapshot_kind_name(snap->kind);
	argv[i++] = snap->tree;
	argv[i++] = max;
	/* 0 = no limit for callus_buf, which is what an overflow would need. */
	if (callus_size_add(&limit, max_bytes, DIFF_TRAILER_MAX) < 0)
		limit = 0;
	rc = run_helper(&res, argv, limit, opts, err);
	if (rc == 0 && !(*patch = callus_buf_detach(&res)))
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	callus_buf_release(&res);
	free(argv);
	return rc;
}

int callus_snapshot_head(char **commit, const char *workspace, const callus_snapshot_opts *opts,
		       callus_error *err)
{
	callus_buf res = CALLUS_BUF_INIT;
	char *argv[4] = { NULL };
	size_t n;
	int rc;

	*commit = NULL;
	if ((rc = check_workspace(workspace, err)) < 0)
		return rc;
	argv[1] = "head";
	argv[2] = (char *)workspace;
	rc = run_helper(&res, argv, SMALL_OUTPUT_MAX, opts, err);
	if (rc < 0)
		goto out;
	n = res.len;
	if (n < 2 || res.ptr[n - 1] != '\n' || memchr(res.ptr, '\n', n - 1) ||
	    (!is_oid_hex(res.ptr, n - 1) && strcmp(res.ptr, "-\n") != 0)) {
		rc = callus_error_set(err, CALLUS_EIO,
				    "snapshot helper printed something unexpected: '%.*s'",
				    (int)strcspn(res.ptr, "\n"), res.ptr);
		goto out;
	}
	*commit = dup_n(res.ptr, res.ptr[0] == '-' ? 0 : OID_HEX);
	if (!*commit)
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
out:
	callus_buf_release(&res);
	return rc;
}

const char *callus_snapshot_kind_name(callus_snapshot_kind k)
{
	switch (k) {
	case CALLUS_SNAPSHOT_GIT:
		return "git";
	case CALLUS_SNAPSHOT_FILES:
		return "files";
	}
	return NULL;
}

int callus_snapshot_kind_parse(callus_snapshot_kind *out, const char *name)
{
	if (name && !strcmp(name, "git"))
		*out = CALLUS_SNAPSHOT_GIT;
	else if (name && !strcmp(name, "files"))
		*out = CALLUS_SNAPSHOT_FILES;
	else
		return CALLUS_EINVAL;
	return 0;
}

void callus_snapshot_release(callus_snapshot *s)
{
	if (!s)
		return;
	free(s->tree);
	free(s->commit);
	s->tree = NULL;
	s->commit = NULL;
}

/*
 * snapshot.c - snapshots through the callus-git helper (include/callus/snapshot.h;
 * the helper's protocol is described at the top of helper/callus-git.c).
 *
 * The helper runs through callus_child_start() and callus_child_wait()
 * (include/callus/child.h): no shell, stdin from /dev/null, killed past
 * the timeout and always reaped, by the wait or by an abandon.
 * Its output is parsed strictly: a helper from another version of callus
 * must fail loudly, not hand back a half-understood snapshot.
 */
#include "callus/snapshot.h"
#include "callus/buf.h"
#include "callus/child.h"
#include "callus/common.h"

#include <limits.h>
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

int callus_snapshot_is_oid(const char *s)
{
	return s && is_oid_hex(s, strlen(s));
}

char *callus_snapshot_helper(void)
{
	return callus_child_sibling("CALLUS_GIT_HELPER", "callus-git");
}

/*
 * Start the helper (argv[0] filled in here) for nreq requests, its stdout
 * to be at most out_max bytes.  CALLUS_ENOTFOUND: no helper; CALLUS_EIO:
 * it could not be started.
 */
static int start_helper(callus_child **c, char **argv, size_t out_max, size_t nreq,
			const callus_snapshot_opts *opts, callus_error *err)
{
	callus_child_opts co = { "snapshot helper", argv, NULL, NULL, 0, out_max, 0, 0 };
	int each = opts && opts->timeout_ms > 0 ? opts->timeout_ms : DEFAULT_TIMEOUT_MS;
	char *own = NULL;
	int rc;

	/* each request the time it had when it ran alone */
	co.timeout_ms = nreq > 1 && (size_t)each <= (size_t)INT_MAX / nreq ? each * (int)nreq : each;
	co.deadline_ms = opts ? opts->deadline_ms : 0;
	argv[0] = opts && opts->helper ? (char *)opts->helper : (own = callus_snapshot_helper());
	if (!argv[0])
		return callus_error_set(err, CALLUS_ENOTFOUND,
				      "cannot find the snapshot helper callus-git");
	rc = callus_child_start(c, &co, err);
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

/* "<commit>|-\n", nothing more. */
static int parse_head(char **commit, const char *text, size_t n, callus_error *err)
{
	if (n < 2 || text[n - 1] != '\n' || memchr(text, '\n', n - 1) ||
	    (!is_oid_hex(text, n - 1) && (n != 2 || text[0] != '-')))
		return callus_error_set(err, CALLUS_EIO,
				      "snapshot helper printed something unexpected: '%.*s'",
				      (int)strcspn(text, "\n"), text);
	if (!(*commit = dup_n(text, text[0] == '-' ? 0 : OID_HEX)))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	return 0;
}

/* A request's output, as its single call returns it. */
static int take_output(callus_snapshot_req *r, const char *text, size_t n)
{
	char *line = dup_n(text, n);
	int rc;

	if (!line)
		return callus_error_set(&r->err, CALLUS_ENOMEM, "out of memory");
	if (strlen(line) != n)
		rc = callus_error_set(&r->err, CALLUS_EIO,
				    "snapshot helper printed something unexpected");
	else if (r->kind == CALLUS_SNAPSHOT_REQ_TAKE)
		rc = parse_snapshot(&r->taken, line, &r->err);
	else if (r->kind == CALLUS_SNAPSHOT_REQ_HEAD)
		rc = parse_head(&r->text, line, n, &r->err);
	else {
		r->text = line;
		return 0;
	}
	free(line);
	return rc;
}

/* The helper's word for a request that names a count of arguments. */
static char *request_word(callus_snapshot_req_kind kind)
{
	if (kind == CALLUS_SNAPSHOT_REQ_TAKE)
		return "snapshot";
	return kind == CALLUS_SNAPSHOT_REQ_PRUNE ? "prune" : "prunable";
}

/* What the helper is asked: all but a diff of something not a snapshot,
 * which fails here. */
static int sendable(const callus_snapshot_req *r)
{
	const callus_snapshot *snap = r->snap, *to = r->to;

	return r->kind != CALLUS_SNAPSHOT_REQ_DIFF ||
	       (snap && callus_snapshot_is_oid(snap->tree) &&
		callus_snapshot_kind_name(snap->kind) &&
		(!to || (snap->kind == CALLUS_SNAPSHOT_GIT && to->kind == CALLUS_SNAPSHOT_GIT &&
			 callus_snapshot_is_oid(to->tree))));
}

/* How the helper's answer to a diffto begins when it has no such kept
 * tree (helper/callus-git-diff.c). */
#define KEPT_TREE_GONE "callus-git: " CALLUS_SNAPSHOT_KEPT_TREE_GONE

/*
 * The helper's answers to the sendable requests, in
 * order: "ok|error|usage LEN\n" then LEN bytes each, and nothing after.
 * CALLUS_EIO when it printed anything else.
 */
static int read_answers(callus_snapshot_req *reqs, size_t n, const char *out, size_t len,
			callus_error *err)
{
	size_t pos = 0;

	for (size_t i = 0; i < n; i++) {
		const char *p = out + pos, *nl;
		char word[8], *end = NULL;
		unsigned long long size;
		size_t wl;

		if (!sendable(&reqs[i]))
			continue;
		nl = memchr(p, '\n', len - pos);
		wl = strcspn(p, " \n");
		if (!nl || wl >= sizeof word || p + wl >= nl)
			goto bad;
		memcpy(word, p, wl);
		word[wl] = '\0';
		if (p[wl + 1] < '0' || p[wl + 1] > '9')
			goto bad;
		size = strtoull(p + wl + 1, &end, 10);
		if (end != nl || size > len - pos - (size_t)(nl + 1 - p))
			goto bad;
		p = nl + 1;
		if (!strcmp(word, "ok")) {
			reqs[i].rc = take_output(&reqs[i], p, (size_t)size);
		} else if (!strcmp(word, "error") || !strcmp(word, "usage")) {
			/* its message's first line */
			const char *eol = memchr(p, '\n', (size_t)size);
			int ml = (int)(eol ? (size_t)(eol - p) : (size_t)size);

			reqs[i].rc = callus_error_set(&reqs[i].err,
						    word[0] == 'u' ? CALLUS_EINVAL : CALLUS_EIO,
						    "%.*s", ml, p);
			reqs[i].to_gone = reqs[i].to && (size_t)ml >= strlen(KEPT_TREE_GONE) &&
					  !memcmp(p, KEPT_TREE_GONE, strlen(KEPT_TREE_GONE));
		} else {
			goto bad;
		}
		pos = (size_t)(p - out) + (size_t)size;
	}
	if (pos == len)
		return 0;
bad:
	return callus_error_set(err, CALLUS_EIO, "snapshot helper printed something unexpected: '%.*s'",
			      (int)strcspn(out + pos, "\n") > 80 ? 80 : (int)strcspn(out + pos, "\n"),
			      out + pos);
}

/* Started requests, answered by callus_snapshot_finish(). */
struct callus_snapshot_batch {
	callus_snapshot_req *reqs;
	size_t n;
	callus_child *child;
};

/* Every sendable request fails with err's reason: no answer counts. */
static void fail_all(callus_snapshot_req *reqs, size_t n, int rc, const callus_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (sendable(&reqs[i])) {
			callus_snapshot_req_release(&reqs[i]);
			reqs[i].rc = callus_error_set(&reqs[i].err, rc, "%s", callus_error_message(err));
		}
}

int callus_snapshot_start(callus_snapshot_batch **out, callus_snapshot_req *reqs, size_t n,
			  const char *workspace, const callus_snapshot_opts *opts, callus_error *err)
{
	callus_snapshot_batch *b = NULL;
	char **argv = NULL, since[32], (*nums)[32] = NULL;
	size_t nargs = 2 * count_excludes(opts) + 6, limit = 0, i, a, nsent = 0;
	int unlimited = 0, rc;

	*out = NULL;
	for (i = 0; i < n; i++)
		if (!sendable(&reqs[i]))
			reqs[i].rc = callus_error_set(&reqs[i].err, CALLUS_EINVAL, "not a snapshot");
	if ((rc = check_workspace(workspace, err)) < 0)
		goto failed;
	for (i = 0; i < n; i++)
		nargs += 4 + (reqs[i].files ? reqs[i].files->count : 0);
	/* a request's number (files, bytes) as an argument */
	if (!(nums = calloc(n ? n : 1, sizeof *nums)) || !(argv = calloc(nargs, sizeof *argv))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto failed;
	}
	argv[1] = "batch";
	a = add_excludes(argv, 2, opts);
	if (opts && opts->since_ns > 0) {
		snprintf(since, sizeof since, "%lld", opts->since_ns);
		argv[a++] = "--since";
		argv[a++] = since;
	}
	argv[a++] = (char *)workspace;
	for (i = 0; i < n; i++) {
		callus_snapshot_req *r = &reqs[i];
		size_t room = SMALL_OUTPUT_MAX;

		if (!sendable(r))
			continue;
		if (r->kind == CALLUS_SNAPSHOT_REQ_TAKE || r->kind == CALLUS_SNAPSHOT_REQ_PRUNE ||
		    r->kind == CALLUS_SNAPSHOT_REQ_PRUNABLE) {
			/* a count, then the files to copy, or the trees kept */
			size_t nf = r->files ? r->files->count : 0;

			argv[a++] = request_word(r->kind);
			snprintf(nums[i], sizeof nums[i], "%zu", nf);
			argv[a++] = nums[i];
			for (size_t j = 0; j < nf; j++)
				argv[a++] = r->files->items[j];
		} else if (r->kind == CALLUS_SNAPSHOT_REQ_DIFF) {
			if (r->to) {
				argv[a++] = "diffto";
				argv[a++] = r->snap->tree;
				argv[a++] = r->to->tree;
			} else {
				argv[a++] = "diff";
				argv[a++] = (char *)callus_snapshot_kind_name(r->snap->kind);
				argv[a++] = r->snap->tree;
			}
			snprintf(nums[i], sizeof nums[i], "%zu", r->max_bytes);
			argv[a++] = nums[i];
			unlimited |= callus_size_add(&room, r->max_bytes, DIFF_TRAILER_MAX) < 0;
		} else {
			argv[a++] = "head";
		}
		/* the answer's header line, then what it printed */
		unlimited |= callus_size_add(&limit, limit, room) < 0 ||
			     callus_size_add(&limit, limit, 64) < 0;
		nsent++;
	}
	if (!nsent)
		goto out;
	if (!(b = calloc(1, sizeof(*b)))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto failed;
	}
	/* 0 = no limit for callus_buf, which is what an overflow would need;
	 * the helper has its own copy of argv once started */
	if ((rc = start_helper(&b->child, argv, unlimited ? 0 : limit, nsent, opts, err)) < 0)
		goto failed;
	b->reqs = reqs;
	b->n = n;
	*out = b;
	b = NULL;
	goto out;
failed:
	fail_all(reqs, n, rc, err);
out:
	free(b);
	free(argv);
	free(nums);
	return rc;
}

int callus_snapshot_finish(callus_snapshot_batch *b, callus_error *err)
{
	callus_buf res = CALLUS_BUF_INIT;
	int rc;

	if (!b)
		return 0;
	rc = callus_child_wait(b->child, &res, err);
	if (rc == 0)
		rc = read_answers(b->reqs, b->n, res.ptr, res.len, err);
	if (rc < 0)
		fail_all(b->reqs, b->n, rc, err);
	callus_buf_release(&res);
	free(b);
	return rc;
}

void callus_snapshot_abandon(callus_snapshot_batch *b)
{
	callus_buf dropped = CALLUS_BUF_INIT;
	callus_error e = CALLUS_ERROR_INIT;

	if (!b)
		return;
	/* let it finish: killed while writing objects, it would leave its
	 * temporary files in the repository's object store */
	(void)callus_child_wait(b->child, &dropped, &e);
	callus_buf_release(&dropped);
	callus_error_release(&e);
	free(b);
}

int callus_snapshot_run(callus_snapshot_req *reqs, size_t n, const char *workspace,
			const callus_snapshot_opts *opts, callus_error *err)
{
	callus_snapshot_batch *b = NULL;
	int rc = callus_snapshot_start(&b, reqs, n, workspace, opts, err);

	return rc < 0 ? rc : callus_snapshot_finish(b, err);
}

void callus_snapshot_req_release(callus_snapshot_req *r)
{
	if (!r)
		return;
	callus_error_release(&r->err);
	callus_snapshot_release(&r->taken);
	free(r->text);
	r->text = NULL;
	r->rc = 0;
}

/* One request alone: its results moved to the caller's. */
static int run_one(callus_snapshot_req *r, const char *workspace, const callus_snapshot_opts *opts,
		   callus_error *err)
{
	int rc = callus_snapshot_run(r, 1, workspace, opts, err);

	if (rc == 0 && (rc = r->rc) < 0) {
		callus_error_release(err);
		*err = r->err;
		r->err = (callus_error)CALLUS_ERROR_INIT;
	}
	return rc;
}

int callus_snapshot_take(callus_snapshot *out, const char *workspace, const callus_strlist *files,
		       const callus_snapshot_opts *opts, callus_error *err)
{
	callus_snapshot_req r = CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_TAKE);
	int rc;

	r.files = files;
	*out = (callus_snapshot)CALLUS_SNAPSHOT_INIT;
	if ((rc = run_one(&r, workspace, opts, err)) == 0) {
		*out = r.taken;
		r.taken = (callus_snapshot)CALLUS_SNAPSHOT_INIT;
	}
	callus_snapshot_req_release(&r);
	return rc;
}

int callus_snapshot_diff(char **patch, const char *workspace, const callus_snapshot *snap,
		       size_t max_bytes, const callus_snapshot_opts *opts, callus_error *err)
{
	callus_snapshot_req r = CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_DIFF);
	int rc;

	r.snap = snap;
	r.max_bytes = max_bytes;
	*patch = NULL;
	if ((rc = run_one(&r, workspace, opts, err)) == 0) {
		*patch = r.text;
		r.text = NULL;
	}
	callus_snapshot_req_release(&r);
	return rc;
}

int callus_snapshot_head(char **commit, const char *workspace, const callus_snapshot_opts *opts,
		       callus_error *err)
{
	callus_snapshot_req r = CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_HEAD);
	int rc;

	*commit = NULL;
	if ((rc = run_one(&r, workspace, opts, err)) == 0) {
		*commit = r.text;
		r.text = NULL;
	}
	callus_snapshot_req_release(&r);
	return rc;
}

int callus_snapshot_prune(size_t *removed, const char *workspace, const callus_strlist *keep,
			int dry_run, const callus_snapshot_opts *opts, callus_error *err)
{
	callus_snapshot_req r = CALLUS_SNAPSHOT_REQ_INIT(dry_run ? CALLUS_SNAPSHOT_REQ_PRUNABLE
								 : CALLUS_SNAPSHOT_REQ_PRUNE);
	char *end = NULL;
	int rc;

	*removed = 0;
	r.files = keep;
	if ((rc = run_one(&r, workspace, opts, err)) == 0) {
		unsigned long long n = strtoull(r.text ? r.text : "", &end, 10);

		if (!r.text || end == r.text || strcmp(end, "\n"))
			rc = callus_error_set(err, CALLUS_EIO,
					    "snapshot helper printed something unexpected");
		else
			*removed = (size_t)n;
	}
	callus_snapshot_req_release(&r);
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

char *callus_snapshot_to_text(const callus_snapshot *s)
{
	callus_buf b = CALLUS_BUF_INIT;
	const char *kind = callus_snapshot_kind_name(s->kind);

	if (!kind || !s->tree)
		return NULL;
	if (callus_buf_printf(&b, "%s %s %s", kind, s->tree,
			      s->commit && *s->commit ? s->commit : "-") < 0) {
		callus_buf_release(&b);
		return NULL;
	}
	return callus_buf_detach(&b);
}

int callus_snapshot_from_text(callus_snapshot *out, const char *text)
{
	callus_error e = CALLUS_ERROR_INIT;
	callus_buf line = CALLUS_BUF_INIT;
	int rc;

	*out = (callus_snapshot)CALLUS_SNAPSHOT_INIT;
	/* the helper's line, its newline given back: one parser for both */
	if (!text || strchr(text, '\n'))
		return CALLUS_EINVAL;
	if (callus_buf_printf(&line, "%s\n", text) < 0)
		return CALLUS_ENOMEM;
	rc = parse_snapshot(out, line.ptr, &e);
	if (rc < 0 && rc != CALLUS_ENOMEM)
		rc = CALLUS_EINVAL;
	callus_error_release(&e);
	callus_buf_release(&line);
	return rc;
}

int callus_snapshot_copy(callus_snapshot *dst, const callus_snapshot *src)
{
	*dst = (callus_snapshot)CALLUS_SNAPSHOT_INIT;
	dst->kind = src->kind;
	if (!(dst->tree = strdup(src->tree ? src->tree : "")) ||
	    !(dst->commit = strdup(src->commit ? src->commit : ""))) {
		callus_snapshot_release(dst);
		return CALLUS_ENOMEM;
	}
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

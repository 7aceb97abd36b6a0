#include "callus/workspace.h"
#include "callus/fsutil.h"
#include "callus/migrate.h"
#include "callus/paths.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What makes a directory a workspace root, in the order a level is tried:
 * the former name's directory counts so that its store can be carried over
 * (src/migrate.c) rather than a new one started beside it. */
static const struct {
	const char *name;
	callus_ws_kind kind;
} markers[] = {
	{ ".git", CALLUS_WS_GIT },
	{ ".callus", CALLUS_WS_MARKED },
	{ "." CALLUS_MIGRATE_OLD_NAME, CALLUS_WS_MARKED },
};

/* Which marker abs[0..len) holds, or -1. */
static int marker_at(callus_buf *b, const char *abs, size_t len)
{
	struct stat st;

	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		callus_buf_clear(b);
		callus_buf_put(b, abs, len);
		callus_buf_putc(b, '/');
		callus_buf_puts(b, markers[i].name);
		if (callus_buf_status(b) < 0)
			return -1;
		/* .git is a file in a worktree or a submodule: any kind will
		 * do; a store is a directory */
		if (stat(b->ptr, &st) == 0 && (markers[i].kind == CALLUS_WS_GIT || S_ISDIR(st.st_mode)))
			return (int)i;
	}
	return -1;
}

char *callus_workspace_find(const char *dir, callus_ws_kind *kind)
{
	char *abs = realpath(dir, NULL), *p;
	callus_buf b = CALLUS_BUF_INIT;
	int m;

	if (kind)
		*kind = CALLUS_WS_NONE;
	if (!abs)
		return NULL;
	for (p = abs + strlen(abs);;) {
		if ((m = marker_at(&b, abs, (size_t)(p - abs))) >= 0) {
			*p = '\0';
			if (!*abs) {
				/* the workspace is "/" itself */
				abs[0] = '/';
				abs[1] = '\0';
			}
			if (kind)
				*kind = markers[m].kind;
			callus_buf_release(&b);
			return abs;
		}
		if (p == abs || callus_buf_status(&b) < 0)
			break;
		while (p > abs && *--p != '/')
			;
	}
	callus_buf_release(&b);
	free(abs);
	return realpath(dir, NULL);
}

/* The resolved form of path, which need not exist: its longest existing
 * prefix resolved, the rest appended.  A ".." in the rest could climb
 * anywhere: refused (0 returned, out empty). */
static int resolve_missing(callus_buf *out, const char *path)
{
	callus_buf head = CALLUS_BUF_INIT;
	const char *rest = path + strlen(path);
	char *real = NULL;
	int rc = 0;

	callus_buf_clear(out);
	for (;;) {
		callus_buf_clear(&head);
		callus_buf_put(&head, path, (size_t)(rest - path));
		if (callus_buf_status(&head) < 0) {
			rc = CALLUS_ENOMEM;
			goto out;
		}
		if ((real = realpath(head.len ? head.ptr : "/", NULL)) || errno != ENOENT ||
		    rest == path)
			break;
		while (rest > path && *--rest != '/')
			;
	}
	if (!real)
		goto out;
	for (const char *c = rest; *c;) {
		const char *e = c + strcspn(c, "/");

		if (e - c == 2 && c[0] == '.' && c[1] == '.')
			goto out;
		c = *e ? e + 1 : e;
	}
	callus_buf_puts(out, real);
	if (!strcmp(real, "/") && *rest == '/')
		rest++;
	callus_buf_puts(out, rest);
	rc = callus_buf_status(out);
out:
	free(real);
	callus_buf_release(&head);
	return rc;
}

/* name is one component of a path, neither "." nor "..". */
static int plain_component(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/* path (absolute: begins with '/') names no "." or ".." and no empty
 * component: no "//", no '/' at its end, not "/" or "" itself. */
static int plain_path(const char *path, int absolute)
{
	const char *c = path;

	if (absolute && *c++ != '/')
		return 0;
	for (;;) {
		size_t len = strcspn(c, "/");

		if (!len || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		if (!c[len])
			return 1;
		c += len + 1;
	}
}

/*
 * root/name when each component of name exists and none is a link: the
 * write lands in the directory root names, whatever links root's own path
 * goes through, so root need not be resolved (realpath reads every level
 * of it again: a readlink each, and a recording guards a dozen names).
 * *st is the last component's.  1 when so (path set), 0 when the careful
 * way must decide (a link, a missing component, a root or name not plain),
 * or a negative code.
 */
static int direct_path(callus_buf *path, const char *root, const char *name, struct stat *st)
{
	size_t rlen;

	if (!plain_path(root, 1) || !plain_path(name, 0))
		return 0;
	rlen = strlen(root);
	callus_buf_clear(path);
	if (callus_buf_printf(path, "%s/%s", root, name) < 0)
		return CALLUS_ENOMEM;
	for (char *c = path->ptr + rlen + 1;; c++) {
		char *e = c + strcspn(c, "/");
		char was = *e;
		int ok;

		*e = '\0';
		ok = lstat(path->ptr, st) == 0 && !S_ISLNK(st->st_mode);
		*e = was;
		if (!ok)
			return 0;
		if (!was)
			return 1;
		c = e;
	}
}

/* The checks after the path is known: whose it is, how private. */
static int guard_owner(const char *real, const struct stat *st, const char *name, unsigned flags,
		       callus_error *err)
{
	/* root may write anywhere, and a store made by root in a user's
	 * checkout stays root's: only a directory that is someone else's,
	 * where they could swap files under callus, is refused */
	if (st->st_uid != geteuid() && geteuid() != 0)
		return callus_error_set(err, CALLUS_EUNSAFE,
					"'%s' belongs to another user (uid %ld): callus does not "
					"write into it", name, (long)st->st_uid);
	if ((flags & CALLUS_WS_PRIVATE) && S_ISDIR(st->st_mode) && (st->st_mode & 077) &&
	    chmod(real, st->st_mode & 0700) < 0)
		return callus_error_set(err, CALLUS_EIO, "cannot make '%s' private: %s", name,
					strerror(errno));
	return 0;
}

int callus_workspace_guard(callus_buf *out, const char *root, const char *name, unsigned flags,
			   callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT, target = CALLUS_BUF_INIT, real = CALLUS_BUF_INIT;
	char *root_real = NULL;
	struct stat st;
	int rc, there;

	if ((rc = direct_path(&real, root, name, &st)) < 0) {
		rc = callus_error_set(err, rc, "out of memory");
		goto out;
	}
	if ((there = rc) == 1)
		goto checked;
	callus_buf_clear(&real);
	if (!(root_real = realpath(root, NULL))) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot use '%s': %s", root, strerror(errno));
		goto out;
	}
	if (callus_buf_printf(&path, "%s/%s", root_real, name) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = callus_fs_resolve_link(&target, path.ptr, err)) < 0)
		goto out;
	/* a name of one component, no link, under a resolved root other than
	 * "/": the path is resolved already */
	if (plain_component(name) && root_real[1] && !strcmp(target.ptr, path.ptr))
		rc = callus_buf_put(&real, path.ptr, path.len);
	else
		rc = resolve_missing(&real, target.ptr);
	if (rc < 0) {
		rc = callus_error_set(err, rc, "out of memory");
		goto out;
	}
	if (!real.len || !callus_path_within(root_real, real.ptr) || !strcmp(real.ptr, root_real)) {
		rc = callus_error_set(err, CALLUS_EUNSAFE,
				      "'%s' leads to '%s', outside the workspace: callus does not "
				      "write through it", name, target.ptr);
		goto out;
	}
	there = lstat(real.ptr, &st) == 0;
checked:
	if (there && (rc = guard_owner(real.ptr, &st, name, flags, err)) < 0)
		goto out;
	if (out) {
		callus_buf_clear(out);
		if ((rc = callus_buf_put(out, real.ptr, real.len)) < 0) {
			rc = callus_error_set(err, rc, "out of memory");
			goto out;
		}
	}
	rc = 0;
out:
	free(root_real);
	callus_buf_release(&path);
	callus_buf_release(&target);
	callus_buf_release(&real);
	return rc;
}

int callus_workspace_guard_dir(const char *dir, callus_error *err)
{
	callus_buf parent = CALLUS_BUF_INIT;
	const char *slash = strrchr(dir, '/');
	int rc;

	if (!slash || !slash[1])
		return callus_error_set(err, CALLUS_EINVAL, "'%s' names no directory in a workspace",
					dir);
	if (callus_buf_put(&parent, dir, (size_t)(slash - dir)) < 0)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	rc = callus_workspace_guard(NULL, parent.len ? parent.ptr : "/", slash + 1, 0, err);
	callus_buf_release(&parent);
	return rc;
}

/*
 * migrate.c - carrying a workspace of callus's former name over
 * (include/callus/migrate.h).  The old name appears in this file only.
 */
#include "callus/migrate.h"
#include "callus/config.h"
#include "callus/fsutil.h"
#include "callus/lessonmd.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OLD_DIR ".deja"
#define NEW_DIR ".callus"
#define OLD_BEGIN "<!-- deja:lessons:begin -->"
#define OLD_END "<!-- deja:lessons:end -->"
#define OLD_SCRIPT_MARKER "# deja:hook"

/* The store's files, old name then new, the WAL and its index with it. */
static const char *const store_files[][2] = {
	{ "deja.db", "callus.db" },
	{ "deja.db-wal", "callus.db-wal" },
	{ "deja.db-shm", "callus.db-shm" },
};

int callus_migrate_is_old_program(const char *word)
{
	size_t n = word ? strlen(word) : 0;

	return n && (!strcmp(word, "deja") || (n > 5 && !strcmp(word + n - 5, "/deja")));
}

int callus_migrate_is_old_script(const char *text, size_t len)
{
	size_t ml = strlen(OLD_SCRIPT_MARKER);

	for (const char *p = text, *end = text + len; p && (size_t)(end - p) >= ml;) {
		if (!memcmp(p, OLD_SCRIPT_MARKER, ml))
			return 1;
		if ((p = memchr(p, '\n', (size_t)(end - p))))
			p++;
	}
	return 0;
}

const char *callus_migrate_old_settings(const char *agent)
{
	return agent && !strcmp(agent, "copilot") ? ".github/hooks/deja.json" : NULL;
}

int callus_migrate_markers(callus_buf *out, const char *text, size_t len)
{
	static const char *const pairs[][2] = {
		{ OLD_BEGIN, CALLUS_AGENTS_BEGIN },
		{ OLD_END, CALLUS_AGENTS_END },
	};
	const char *p = text, *end = text + len;
	int changed = 0;

	callus_buf_clear(out);
	while (p < end) {
		size_t k, left = (size_t)(end - p);

		for (k = 0; k < 2; k++) {
			size_t ol = strlen(pairs[k][0]);

			if (left >= ol && !memcmp(p, pairs[k][0], ol)) {
				callus_buf_puts(out, pairs[k][1]);
				p += ol;
				changed = 1;
				break;
			}
		}
		if (k == 2)
			callus_buf_putc(out, *p++);
	}
	if (callus_buf_status(out) < 0)
		return CALLUS_ENOMEM;
	return changed;
}

/* A path a config may name for the lessons file: relative, no "..". */
static int inside(const char *rel)
{
	const char *p = rel;

	if (!*rel || *rel == '/')
		return 0;
	while (*p) {
		if (p[0] == '.' && p[1] == '.' && (!p[2] || p[2] == '/'))
			return 0;
		while (*p && *p != '/')
			p++;
		while (*p == '/')
			p++;
	}
	return 1;
}

/* Rewrite the old markers of root/rel, a regular file (never through a
 * symlink: what it points at may be anybody's file), keeping its mode. */
static int rewrite_markers(const char *root, const char *rel, callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT, out = CALLUS_BUF_INIT;
	struct stat st;
	int rc = 0;

	callus_buf_printf(&path, "%s/%s", root, rel);
	if (callus_buf_status(&path) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if (lstat(path.ptr, &st) < 0 || !S_ISREG(st.st_mode))
		goto out;
	rc = callus_fs_read_file(&text, path.ptr, CALLUS_AGENTS_FILE_MAX, err);
	if (rc == CALLUS_ENOTFOUND) {
		rc = 0;
		goto out;
	}
	if (rc < 0)
		goto out;
	if ((rc = callus_migrate_markers(&out, text.ptr, text.len)) < 0) {
		rc = callus_error_set(err, rc, "out of memory");
		goto out;
	}
	if (rc > 0)
		rc = callus_fs_write_atomic(path.ptr, out.ptr, out.len, st.st_mode & 07777, 0, err);
out:
	callus_buf_release(&path);
	callus_buf_release(&text);
	callus_buf_release(&out);
	return rc < 0 ? rc : 0;
}

/* The lessons file the old config names, when it is not AGENTS.md. */
static int rewrite_configured(const char *root, callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	callus_config *cfg = NULL;
	const char *file;
	int rc = 0;

	callus_buf_printf(&path, "%s/" OLD_DIR "/config", root);
	if (callus_buf_status(&path) < 0 ||
	    callus_fs_read_file(&text, path.ptr, CALLUS_CONFIG_MAX_BYTES, NULL) < 0)
		goto out;
	/* a config in error names no file we could trust: AGENTS.md only */
	if (callus_config_parse(&cfg, text.ptr, text.len, OLD_DIR "/config", NULL) < 0)
		goto out;
	file = callus_config_get(cfg, "lessons", "file");
	if (file && inside(file) && strcmp(file, "AGENTS.md"))
		rc = rewrite_markers(root, file, err);
out:
	callus_config_free(cfg);
	callus_buf_release(&path);
	callus_buf_release(&text);
	return rc;
}

int callus_migrate_workspace(const char *root, callus_error *err)
{
	callus_buf from = CALLUS_BUF_INIT, to = CALLUS_BUF_INIT;
	struct stat st;
	int rc = CALLUS_MIGRATE_NONE;

	callus_buf_printf(&to, "%s/" NEW_DIR, root);
	callus_buf_printf(&from, "%s/" OLD_DIR, root);
	if (callus_buf_status(&to) < 0 || callus_buf_status(&from) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if (lstat(to.ptr, &st) == 0) {
		/* both: callus never merges two stores on its own */
		if (lstat(from.ptr, &st) == 0 && S_ISDIR(st.st_mode)) {
			callus_error_set(err, CALLUS_EINVAL,
					 "both " OLD_DIR "/ (deja, callus's old name) and " NEW_DIR
					 "/ exist; callus uses " NEW_DIR "/ and leaves " OLD_DIR
					 "/ alone: remove it when it holds nothing you need");
			rc = CALLUS_MIGRATE_KEPT;
		}
		goto out;
	}
	if (lstat(from.ptr, &st) < 0 || !S_ISDIR(st.st_mode))
		goto out;
	/* the store is private, whatever a checkout or a copy made of the old
	 * directory's mode (git keeps none) */
	if ((st.st_mode & 077) && chmod(from.ptr, 0700) < 0) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot make '%s' private: %s", from.ptr,
				      strerror(errno));
		goto out;
	}

	/* The markers first: a run interrupted after them finds .deja/ still
	 * there and does it all again, and rewriting is idempotent. */
	if ((rc = rewrite_markers(root, "AGENTS.md", err)) < 0 ||
	    (rc = rewrite_configured(root, err)) < 0)
		goto out;
	for (size_t i = 0; i < sizeof(store_files) / sizeof(store_files[0]); i++) {
		callus_buf a = CALLUS_BUF_INIT, b = CALLUS_BUF_INIT;
		int bad;

		callus_buf_printf(&a, "%s/%s", from.ptr, store_files[i][0]);
		callus_buf_printf(&b, "%s/%s", from.ptr, store_files[i][1]);
		bad = callus_buf_status(&a) < 0 || callus_buf_status(&b) < 0 ||
		      (rename(a.ptr, b.ptr) < 0 && errno != ENOENT);
		if (bad)
			rc = callus_error_set(err, CALLUS_EIO, "cannot rename '%s': %s", a.ptr,
					      strerror(errno));
		callus_buf_release(&a);
		callus_buf_release(&b);
		if (bad)
			goto out;
	}
	{
		/* the old model's nearest-neighbour index: a cache, rebuilt from
		 * the store under the new model's name */
		callus_buf v = CALLUS_BUF_INIT;

		callus_buf_printf(&v, "%s/vectors-%s.bin", from.ptr, CALLUS_MIGRATE_OLD_BUILTIN_MODEL);
		if (callus_buf_status(&v) == 0)
			unlink(v.ptr);
		callus_buf_release(&v);
	}
	if (rename(from.ptr, to.ptr) < 0) {
		/* another process moved it first: the same outcome */
		if (errno == ENOENT && lstat(to.ptr, &st) == 0) {
			rc = CALLUS_MIGRATE_NONE;
			goto out;
		}
		rc = callus_error_set(err, CALLUS_EIO, "cannot rename '%s' to '%s': %s", from.ptr,
				      to.ptr, strerror(errno));
		goto out;
	}
	rc = CALLUS_MIGRATE_MOVED;
out:
	callus_buf_release(&from);
	callus_buf_release(&to);
	return rc;
}

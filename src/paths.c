#include "callus/paths.h"
#include "callus/common.h"
#include "callus/utf8.h"
#include "wordlist.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const source_exts[] = {
	"c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx", "m", "mm",
	"js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "vue", "svelte",
	"py", "pyi", "go", "rs", "java", "kt", "kts", "scala", "swift", "rb",
	"php", "cs", "fs", "sh", "bash", "zsh", "pl", "lua", "ex", "exs", "erl",
	"json", "toml", "yaml", "yml", "css", "scss", "less", "html", "md",
	"sql", "proto", "cmake", "mk", "zig", "dart", "r", "jl", "hs", "ml",
	"xml", "pm", "erb", "rake", "gradle", "groovy",
};

int callus_path_has_source_ext(const char *name, size_t len)
{
	size_t i = len;

	while (i > 0 && name[i - 1] != '.' && name[i - 1] != '/')
		i--;
	if (i == 0 || name[i - 1] != '.' || i == len || len - i > 6)
		return 0;
	/* a bare ".eslintrc"-style dot file has nothing before the dot */
	if (i == 1 || name[i - 2] == '/')
		return 0;
	for (size_t k = 0; k < sizeof(source_exts) / sizeof(source_exts[0]); k++) {
		size_t el = strlen(source_exts[k]);
		if (el == len - i && !strncmp(name + i, source_exts[k], el))
			return 1;
	}
	return 0;
}

#define THIRD_PARTY(X)                                                                    \
	X("node_modules") X("site-packages") X("dist-packages") X(".venv") X("venv") X(".git") \
	X("__pycache__") X(".cargo") X(".rustup") X(".pnpm-store") X(".yarn")
#define TP_WORD(lit) CALLUS_WORD(lit),
#define TP_LEN(lit) UINT64_C(1) << (sizeof(lit) - 1) |

static int is_third_party(const char *comp, size_t len)
{
	static const callus_word dirs[] = { THIRD_PARTY(TP_WORD) };
	/* the lengths the names have, a bit each: most components ("src",
	 * "f12.c") have none of them, and are turned away by it */
	static const uint64_t lens = THIRD_PARTY(TP_LEN) 0;

	return len < 64 && (lens >> len & 1) &&
	       callus_words_is(dirs, CALLUS_WORDS_COUNT(dirs), comp, len);
}

#undef TP_WORD
#undef TP_LEN
#undef THIRD_PARTY

/* Append path[0..len) component by component to out, resolving "." and
 * "..".  Returns 0 when ".." would leave the root of out. */
static int push_components(callus_buf *out, const char *p, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t j = i;

		while (j < len && p[j] != '/')
			j++;
		if (j - i == 0 || (j - i == 1 && p[i] == '.')) {
			/* nothing */
		} else if (j - i == 2 && p[i] == '.' && p[i + 1] == '.') {
			char *slash;

			if (!out->len)
				return 0;
			slash = strrchr(out->ptr, '/');
			callus_buf_truncate(out, slash ? (size_t)(slash - out->ptr) : 0);
		} else {
			if (out->len)
				callus_buf_putc(out, '/');
			callus_buf_put(out, p + i, j - i);
		}
		i = j + 1;
	}
	return 1;
}

int callus_path_within(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (strncmp(dir, path, n) != 0)
		return 0;
	return path[n] == '\0' || path[n] == '/' || (n == 1 && dir[0] == '/');
}

static int under(const char *root, const char *p, size_t len, size_t *rest)
{
	size_t rl;

	if (!root || !*root)
		return 0;
	rl = strlen(root);
	if (len > rl && !memcmp(p, root, rl) && p[rl] == '/') {
		*rest = rl + 1;
		return 1;
	}
	return 0;
}

/* What resolve() asks of a path's bytes, read in one walk (a megabyte of
 * distinct errors names 13,766 paths, each walked five times before). */
typedef struct path_bytes {
	int colon; /* a ':' or a '\\' in it */
	int plain; /* push_components() would take it as it is: no empty
		    * component (a slash first, last or doubled), none "." or
		    * "..", as nearly every path a tool prints ("src/d5/f12.c") */
} path_bytes;

/* What scan_path() stops at: one lookup a byte, and most bytes of a
 * path are none of these. */
enum { PB_CTRL = 1, PB_HIGH, PB_COLON, PB_SLASH };
#define PB_16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
static const unsigned char path_byte[256] = {
	PB_16(PB_CTRL), PB_16(PB_CTRL),
	/* ' ' to '/' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, PB_SLASH,
	/* '0' to '?' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, PB_COLON, 0, 0, 0, 0, 0,
	/* '@' to '_' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, PB_COLON, 0, 0, 0,
	/* '`' to DEL */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, PB_CTRL,
	PB_16(PB_HIGH), PB_16(PB_HIGH), PB_16(PB_HIGH), PB_16(PB_HIGH),
	PB_16(PB_HIGH), PB_16(PB_HIGH), PB_16(PB_HIGH), PB_16(PB_HIGH),
};
#undef PB_16

/* Binary output read as text names no file: a path is valid UTF-8 with
 * no control characters and no U+FFFD (a byte already replaced).  0 when
 * p[0..len) is not; else 1, and *pb said. */
static int scan_path(const char *p, size_t len, path_bytes *pb)
{
	size_t start = 0;
	int high = 0;

	pb->colon = 0;
	pb->plain = 1;
	for (size_t i = 0; i <= len; i++) {
		size_t n;

		if (i < len) {
			switch (path_byte[(unsigned char)p[i]]) {
			case 0:
				continue;
			case PB_CTRL:
				return 0;
			case PB_HIGH:
				high = 1;
				continue;
			case PB_COLON:
				pb->colon = 1;
				continue;
			case PB_SLASH:
				break; /* a component ends */
			}
		}
		n = i - start;
		if (!n || (p[start] == '.' && (n == 1 || (n == 2 && p[start + 1] == '.'))))
			pb->plain = 0;
		start = i + 1;
	}
	/* most paths are ASCII: valid, and without U+FFFD, as they are */
	return !high || (callus_utf8_valid(p, len) && !memmem(p, len, "\xef\xbf\xbd", 3));
}

void callus_pathmemo_release(callus_pathmemo *m)
{
	if (!m)
		return;
	callus_buf_release(&m->path);
	callus_buf_release(&m->workspace);
	callus_buf_release(&m->real);
	callus_buf_release(&m->cwd);
	callus_buf_release(&m->out);
	m->ok = -1;
}

static int same(const callus_buf *b, const char *s, size_t n)
{
	return b->len == n && !memcmp(b->ptr, s, n);
}

/* NULL as "": the resolution reads a context's NULL string as an empty
 * one.  b holds a string put by put_str(), no NUL in it: one strcmp. */
static int same_str(const callus_buf *b, const char *s)
{
	if (!s || !*s)
		return !b->len;
	return b->len && !strcmp(b->ptr, s);
}

static void put_str(callus_buf *b, const char *s)
{
	/* the same context from one diagnostic to the next, most often */
	if (same_str(b, s) && !b->failed)
		return;
	callus_buf_clear(b);
	if (s)
		callus_buf_puts(b, s);
}

/* Whether m holds pc's strings.  Compared by content, not by address: a
 * parser moves a context's cwd_rel along a buffer it rewrites in place
 * (make's directories). */
static int memo_ctx(const callus_pathmemo *m, const callus_pathctx *pc)
{
	return m->ok >= 0 && same_str(&m->workspace, pc->workspace) &&
	       same_str(&m->real, pc->workspace_real) && same_str(&m->cwd, pc->cwd_rel);
}

static int memo_has(const callus_pathmemo *m, const callus_pathctx *pc, const char *p, size_t len)
{
	return m->ok >= 0 && same(&m->path, p, len) && memo_ctx(m, pc);
}

/* The path and context m->out now answers for, with ok; ctx: m holds
 * pc's strings already (memo_ctx), as it does for each of a build's
 * errors.  Kept only whole: a memo that failed to take them, or the
 * result, forgets. */
static void memo_note(callus_pathmemo *m, const callus_pathctx *pc, const char *p, size_t len,
		      int ok, int ctx)
{
	callus_buf_clear(&m->path);
	callus_buf_put(&m->path, p, len);
	if (!ctx) {
		put_str(&m->workspace, pc->workspace);
		put_str(&m->real, pc->workspace_real);
		put_str(&m->cwd, pc->cwd_rel);
	}
	m->ok = ok;
	if (callus_buf_status(&m->path) || callus_buf_status(&m->workspace) ||
	    callus_buf_status(&m->real) || callus_buf_status(&m->cwd) || callus_buf_status(&m->out))
		m->ok = -1;
}

static void memo_put(callus_pathmemo *m, const callus_pathctx *pc, const char *p, size_t len,
		     const callus_buf *out, int ok)
{
	callus_buf_clear(&m->out);
	callus_buf_put(&m->out, out->ptr, out->len);
	memo_note(m, pc, p, len, ok, 0);
}

static int resolve(callus_buf *out, const callus_pathctx *pc, const char *p, size_t len);

int callus_path_memo_resolve(const callus_pathctx *pc, const char *p, size_t len,
			     const char **out, size_t *out_len)
{
	callus_pathmemo *m = pc->memo;
	int ctx;

	if (!m)
		return -1;
	/* a path not asked before is resolved into the memo itself: no
	 * buffer of the caller's, no copy of the result; its context's
	 * strings compared once */
	ctx = memo_ctx(m, pc);
	if (!ctx || !same(&m->path, p, len))
		memo_note(m, pc, p, len, resolve(&m->out, pc, p, len), ctx);
	if (m->ok < 0)
		return -1;
	*out = m->out.ptr;
	*out_len = m->out.len;
	return m->ok;
}

int callus_path_relativize(callus_buf *out, const callus_pathctx *pc, const char *p, size_t len)
{
	int ok;

	if (pc->memo && memo_has(pc->memo, pc, p, len)) {
		callus_buf_clear(out);
		if (callus_buf_put(out, pc->memo->out.ptr, pc->memo->out.len) < 0)
			return 0;
		return pc->memo->ok;
	}
	ok = resolve(out, pc, p, len);
	if (pc->memo && callus_buf_status(out) == 0)
		memo_put(pc->memo, pc, p, len, out, ok);
	return ok;
}

static int resolve(callus_buf *out, const callus_pathctx *pc, const char *p, size_t len)
{
	size_t rest = 0;
	path_bytes pb;

	callus_buf_clear(out);
	if (len >= 7 && !memcmp(p, "file://", 7)) {
		p += 7;
		len -= 7;
	}
	if (!len || !scan_path(p, len, &pb))
		return 0;
	if (p[0] == '/') {
		if (!under(pc->workspace, p, len, &rest) &&
		    !under(pc->workspace_real, p, len, &rest))
			return 0;
		if (!push_components(out, p + rest, len - rest))
			return 0;
	} else {
		/* "<frozen runpy>", "<string>", "<stdin>": an interpreter's
		 * own code, named as no file is */
		if (p[0] == '~' || p[0] == '<' || pb.colon)
			return 0;
		if (pc->cwd_rel && *pc->cwd_rel &&
		    !push_components(out, pc->cwd_rel, strlen(pc->cwd_rel)))
			return 0;
		if (pb.plain) {
			/* what push_components() makes of it, at once */
			if (out->len)
				callus_buf_putc(out, '/');
			callus_buf_put(out, p, len);
		} else if (!push_components(out, p, len)) {
			return 0;
		}
	}
	if (!out->len || callus_buf_status(out) < 0)
		return 0;
	for (size_t i = 0; i < out->len;) {
		size_t j = i;

		while (j < out->len && out->ptr[j] != '/')
			j++;
		if (is_third_party(out->ptr + i, j - i))
			return 0;
		i = j + 1;
	}
	return 1;
}

#include "callus/context.h"
#include "callus/buf.h"
#include "callus/common.h"
#include "callus/fsutil.h"

#include <jansson.h>
#include <string.h>

static int add(callus_strlist *out, const char *prefix, const char *s, size_t len)
{
	callus_buf b = CALLUS_BUF_INIT;
	int rc;

	callus_buf_puts(&b, prefix);
	callus_buf_put(&b, s, len);
	if ((rc = callus_buf_status(&b)) == 0)
		rc = callus_strlist_add_unique(out, b.ptr, b.len, NULL);
	callus_buf_release(&b);
	return rc;
}

static int read_manifest(callus_buf *out, const char *dir, const char *name)
{
	callus_buf path = CALLUS_BUF_INIT;
	int rc;

	callus_buf_printf(&path, "%s/%s", dir, name);
	rc = callus_buf_status(&path) < 0 ? CALLUS_ENOMEM
					 : callus_fs_read_file(out, path.ptr, CALLUS_CONTEXT_FILE_MAX, NULL);
	callus_buf_release(&path);
	return rc;
}

static void package_json(callus_strlist *out, const char *text, size_t len)
{
	static const char *const sections[] = { "dependencies", "devDependencies",
						"peerDependencies" };
	json_t *root = json_loadb(text, len, 0, NULL);
	size_t n = 0;

	for (size_t s = 0; s < 3 && json_is_object(root); s++) {
		json_t *deps = json_object_get(root, sections[s]);
		const char *key;
		json_t *v;

		json_object_foreach(deps, key, v) {
			if (n++ >= CALLUS_CONTEXT_DEPS_MAX)
				break;
			add(out, "npm:", key, strlen(key));
		}
	}
	json_decref(root);
}

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == '.';
}

/* requirements.txt: "name==1.0", "name>=2 ; python_version..." */
static void requirements(callus_strlist *out, const char *p, size_t len, const char *prefix)
{
	const char *end = p + len;
	size_t n = 0;

	while (p < end && n < CALLUS_CONTEXT_DEPS_MAX) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *q = p;
		const char *le = nl ? nl : end;

		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		if (q < le && *q != '#' && *q != '-' && name_char(*q)) {
			const char *e = q;
			while (e < le && name_char(*e))
				e++;
			add(out, prefix, q, (size_t)(e - q));
			n++;
		}
		p = nl ? nl + 1 : end;
	}
}

/* pyproject.toml: the quoted names in "dependencies = [...]" lists and the
 * keys of [tool.poetry.dependencies]; Cargo.toml: keys of [dependencies]
 * and [dev-dependencies].  A line-based reading is enough for names. */
static void toml_deps(callus_strlist *out, const char *p, size_t len, const char *prefix,
		      int cargo)
{
	const char *end = p + len;
	int in_table = 0, in_list = 0;
	size_t n = 0;

	while (p < end && n < CALLUS_CONTEXT_DEPS_MAX) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *q = p;
		const char *le = nl ? nl : end;

		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		if (q < le && *q == '[' && !in_list) {
			size_t l = (size_t)(le - q);
			in_table = cargo ? ((l >= 14 && !memcmp(q, "[dependencies]", 14)) ||
					    (l >= 18 && !memcmp(q, "[dev-dependencies]", 18)))
					 : (l >= 27 && !memcmp(q, "[tool.poetry.dependencies]", 26));
		} else if (in_list) {
			for (const char *c = q; c < le; c++) {
				if (*c == '"' || *c == '\'') {
					const char *e = c + 1;
					while (e < le && name_char(*e))
						e++;
					if (e > c + 1) {
						add(out, prefix, c + 1, (size_t)(e - c - 1));
						n++;
					}
					while (e < le && *e != *c)
						e++;
					c = e;
				} else if (*c == ']') {
					in_list = 0;
					break;
				}
			}
		} else if (!cargo && (size_t)(le - q) > 12 && !memcmp(q, "dependencies", 12)) {
			const char *b = memchr(q, '[', (size_t)(le - q));
			if (b) {
				in_list = 1;
				p = b + 1;
				continue;
			}
		} else if (in_table && q < le && name_char(*q)) {
			const char *e = q;
			while (e < le && name_char(*e))
				e++;
			if (!(e - q == 6 && !memcmp(q, "python", 6))) {
				add(out, prefix, q, (size_t)(e - q));
				n++;
			}
		}
		p = nl ? nl + 1 : end;
	}
}

/* go.mod: "require x v1" and the lines of "require ( ... )" */
static void go_mod(callus_strlist *out, const char *p, size_t len)
{
	const char *end = p + len;
	int block = 0;
	size_t n = 0;

	while (p < end && n < CALLUS_CONTEXT_DEPS_MAX) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *q = p;
		const char *le = nl ? nl : end;

		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		if ((size_t)(le - q) >= 9 && !memcmp(q, "require (", 9)) {
			block = 1;
		} else if (block && q < le && *q == ')') {
			block = 0;
		} else if (block || ((size_t)(le - q) > 8 && !memcmp(q, "require ", 8))) {
			const char *e;
			if (!block)
				q += 8;
			for (e = q; e < le && *e != ' ' && *e != '\t'; e++)
				;
			if (e > q && *q != '/') {
				add(out, "go:", q, (size_t)(e - q));
				n++;
			}
		}
		p = nl ? nl + 1 : end;
	}
}

static void manifests(callus_strlist *out, const char *dir)
{
	callus_buf b = CALLUS_BUF_INIT;

	if (read_manifest(&b, dir, "package.json") == 0)
		package_json(out, b.ptr, b.len);
	callus_buf_clear(&b);
	if (read_manifest(&b, dir, "requirements.txt") == 0)
		requirements(out, b.ptr, b.len, "py:");
	callus_buf_clear(&b);
	if (read_manifest(&b, dir, "pyproject.toml") == 0)
		toml_deps(out, b.ptr, b.len, "py:", 0);
	callus_buf_clear(&b);
	if (read_manifest(&b, dir, "go.mod") == 0)
		go_mod(out, b.ptr, b.len);
	callus_buf_clear(&b);
	if (read_manifest(&b, dir, "Cargo.toml") == 0)
		toml_deps(out, b.ptr, b.len, "cargo:", 1);
	callus_buf_release(&b);
}

int callus_context_patterns(callus_strlist *out, const char *workspace, const char *dir,
			  const char *tool, const callus_strlist *files)
{
	const char *last = NULL;

	if (tool && *tool) {
		const char *sp = strchr(tool, ' ');
		add(out, "framework:", tool, sp ? (size_t)(sp - tool) : strlen(tool));
	}
	for (size_t i = 0; files && i < files->count; i++) {
		const char *f = files->items[i], *dot = strrchr(f, '.'), *slash = strrchr(f, '/');

		/* a build's thousands of files have a few extensions, most
		 * often the one before: that one is in out already */
		if (!dot || (slash && dot < slash) || !dot[1] || (last && !strcmp(last, dot + 1)))
			continue;
		add(out, "ext:", dot + 1, strlen(dot + 1));
		last = dot + 1;
	}
	if (dir && *dir)
		manifests(out, dir);
	if (workspace && *workspace && (!dir || strcmp(dir, workspace)))
		manifests(out, workspace);
	return 0;
}

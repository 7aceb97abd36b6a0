#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/patchdesc.h"
#include "callus/strlist.h"
#include "callus/utf8.h"

/* ---- helpers ---- */

/* A private git repository per test, so patches come from the real git. */
typedef struct fixture {
	char dir[64];
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	char cmd[256];

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/callus-patchdesc-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	/* no user or system config: quoting and prefixes as git defaults them */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && git init -q . && git config user.email t@example.com && "
		 "git config user.name t && git config commit.gpgsign false",
		 f->dir);
	if (system(cmd) != 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static void sh(const fixture *f, const char *script)
{
	callus_buf cmd = CALLUS_BUF_INIT;

	callus_buf_printf(&cmd, "cd '%s' && { %s; } >/dev/null", f->dir, script);
	assert_int_equal(system(cmd.ptr), 0);
	callus_buf_release(&cmd);
}

static void write_file(const fixture *f, const char *name, const char *text)
{
	callus_buf path = CALLUS_BUF_INIT;
	FILE *fp;

	callus_buf_printf(&path, "%s/%s", f->dir, name);
	fp = fopen(path.ptr, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
	assert_int_equal(fclose(fp), 0);
	callus_buf_release(&path);
}

/* git's output for args (e.g. "diff"), in a buffer. */
static void git_output(const fixture *f, const char *args, callus_buf *out)
{
	callus_buf cmd = CALLUS_BUF_INIT;
	char chunk[4096];
	size_t n;
	FILE *p;

	callus_buf_printf(&cmd, "git -C '%s' -c core.quotepath=true %s", f->dir, args);
	p = popen(cmd.ptr, "r");
	assert_non_null(p);
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		assert_int_equal(callus_buf_put(out, chunk, n), 0);
	assert_int_equal(pclose(p), 0);
	callus_buf_release(&cmd);
}

static void commit_all(const fixture *f)
{
	sh(f, "git add -A && git commit -q -m base");
}

/* Summarize a copy of exactly len bytes, so that reading past len is an
 * ASan error rather than a silent read of a NUL. */
static void summarize(callus_patch_summary *s, const char *patch, size_t len)
{
	char *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, patch, len);
	assert_int_equal(callus_patch_summarize(s, copy, len), 0);
	free(copy);
}

static void summarize_git(const fixture *f, const char *args, callus_patch_summary *s)
{
	callus_buf patch = CALLUS_BUF_INIT;

	git_output(f, args, &patch);
	summarize(s, patch.ptr, patch.len);
	callus_buf_release(&patch);
}

static void assert_description(const callus_patch_summary *s, size_t max, const char *want)
{
	char *d = NULL;

	assert_int_equal(callus_patch_describe(&d, s, max), 0);
	assert_string_equal(d, want);
	free(d);
}

static void assert_functions(const callus_patch_file *file, size_t n, ...)
{
	va_list ap;

	assert_int_equal(file->functions.count, n);
	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(file->functions.items[i], va_arg(ap, const char *));
	va_end(ap);
}

/* ---- patches from git ---- */

/* The header's own example.  The hunk's context line names sub(), the
 * function above the hunk; the edit is in add(), which starts inside it. */
static void js_edit_and_added_file(void **state)
{
	fixture *f = *state;
	callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;
	callus_patch_file *file;

	sh(f, "mkdir src");
	write_file(f, "src/sum.js",
		   "'use strict';\n\nfunction sub(a, b) {\n  return a - b;\n}\n\n"
		   "function add(a, b) {\n  const sum = a + b;\n  return sum;\n}\n\n"
		   "module.exports = { add, sub };\n");
	commit_all(f);
	sh(f, "sed -i 's/return sum;/return sum + 0;/' src/sum.js");
	write_file(f, "src/util.js",
		   "'use strict';\n// helpers\n\nfunction id(x) {\n  return x;\n}\n\n"
		   "function twice(x) {\n  return 2 * x;\n}\n\nmodule.exports = { id, twice };\n");
	sh(f, "git add -N src/util.js");
	summarize_git(f, "diff", &s);

	assert_int_equal(s.count, 2);
	file = &s.files[0];
	assert_string_equal(file->path, "src/sum.js");
	assert_null(file->old_path);
	assert_int_equal(file->change, CALLUS_PATCH_MODIFIED);
	assert_false(file->binary);
	assert_int_equal(file->added, 1);
	assert_int_equal(file->removed, 1);
	assert_functions(file, 1, "add");
	file = &s.files[1];
	assert_string_equal(file->path, "src/util.js");
	assert_int_equal(file->change, CALLUS_PATCH_ADDED);
	assert_int_equal(file->added, 12);
	assert_int_equal(file->removed, 0);
	assert_int_equal(s.added, 13);
	assert_int_equal(s.removed, 1);
	assert_int_equal(s.more_files, 0);
	assert_description(&s, 200,
			   "Edited add() in src/sum.js (+1 -1); added src/util.js (+12)");
	callus_patch_summary_release(&s);
}

static void deleted_file(void **state)
{
	fixture *f = *state;
	callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;

	write_file(f, "keep.txt", "k\n");
	write_file(f, "gone.txt", "one\ntwo\nthree\n");
	commit_all(f);
	sh(f, "rm gone.txt");
	summarize_git(f, "diff", &s);
	assert_int_equal(s.count, 1);
	assert_string_equal(s.files[0].path, "gone.txt");
	assert_int_equal(s.files[0].change, CALLUS_PATCH_DELETED);
	assert_int_equal(s.files[0].added, 0);
	assert_int_equal(s.files[0].removed, 3);
	assert_description(&s, 0, "Deleted gone.txt");
	callus_patch_summary_release(&s);
}

static void rename_with_an_edit(void **state)
{
	fixture *f = *state;
	callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;

	write_file(f, "old name.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
	write_file(f, "plain.txt", "a\nb\nc\nd\ne\nf\ng\n");
	commit_all(f);
	sh(f, "git mv 'old name.txt' 'new name.txt' && sed -i 's/^5$/five/' 'new name.txt' && "
	      "git mv plain.txt moved.txt && git add -A");
	summarize_git(f, "diff --cached -M", &s);
	assert_int_equal(s.count, 2);
	assert_int_equal(s.files[0].change, CALLUS_PATCH_RENAMED);
	assert_string_equal(s.files[0].old_path, "plain.txt");
	assert_string_equal(s.files[0].path, "moved.txt");
	assert_int_equal(s.files[0].added + s.files[0].removed, 0);
	assert_int_equal(s.files[1].change, CALLUS_PATCH_RENAMED);
	assert_string_equal(s.files[1].old_path, "old name.txt");
	assert_string_equal(s.files[1].path, "new name.txt");
	assert_int_equal(s.files[1].added, 1);
	assert_int_equal(s.files[1].removed, 1);
	assert_description(&s, 0,
			   "Renamed plain.txt to moved.txt; "
			   "renamed old name.txt to new name.txt (+1 -1)");
	callus_patch_summary_release(&s);
}

static void binary_files(void **state)
{
	fixture *f = *state;
	callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;

	sh(f, "printf 'a\\0b\\0c' > blob.bin && printf 'x\\0' > old.bin");
	commit_all(f);
	sh(f, "printf 'a\\0B\\0c' > blob.bin && printf 'n\\0e\\0w' > new.bin && rm old.bin && "
	      "git add -A");
	summarize_git(f, "diff --cached", &s);
	assert_int_equal(s.count, 3);
	assert_string_equal(s.files[0].path, "blob.bin");
	assert_true(s.files[0].binary);
	assert_int_equal(s.files[0].change, CALLUS_PATCH_MODIFIED);
	assert_string_equal(s.files[1].path, "new.bin");
	assert_true(s.files[1].binary);
	assert_int_equal(s.files[1].change, CALLUS_PATCH_ADDED);
	assert_string_equal(s.files[2].path, "old.bin");
	assert_true(s.files[2].binary);
	assert_int_equal(s.files[2].change, CALLUS_PATCH_DELETED);
	assert_int_equal(s.added + s.removed, 0);
	assert_description(&s, 0,
			   "Changed binary blob.bin; added binary new.bin; deleted binary old.bin");
	callus_patch_summary_release(&s);
}

/* Two hunks: the first starts at the definition, the second names the
 * line above it ("int e;"), the definition being in its context. */
static void c_two_functions(void **state)
{
	fixture *f = *state;
	callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;

	write_file(f, "calc.c",
		   "static int one(void)\n{\n\treturn 1;\n}\n\nint a;\nint b;\nint c;\n"
		   "int d;\nint e;\n\nstatic int two(int x)\n{\n\tint y = x;\n\n"
		   "\treturn y * 2;\n}\n");
	commit_all(f);
	sh(f, "sed -i 's/return 1;/return 11;/; s/y \\* 2/y * 3/; s/^int c;$/int c = 3;/' calc.c");
	summarize_git(f, "diff", &s);
	assert_int_equal(s.count, 1);
	assert_string_equal(s.files[0].path, "calc.c");
	assert_int_equal(s.files[0].added, 3);
	assert_int_equal(s.files[0].removed, 3);
	/* "int c" is outside both: one() ended at its closing brace */
	assert_functions(&s.files[0], 2, "one", "two");
	assert_description(&s, 0, "Edited one() and two() in calc.c (+3 -3)");
	callus_patch_summary_release(&s);
}

/* With git's python driver the hunk header names the method itself; a
 * later top-level def in the hunk takes over from it. */
static void python_file(void **state)
{
	fixture *f = *state;
	callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;

	write_file(f, ".gitattributes", "*.py diff=python\n");
	write_file(f, "calc.py",
		   "class Calc:\n    def add(self, a, b):\n        return a + b\n\n"
		   "    def mul(self, a, b):\n        result = 0\n        for _ in range(b):\n"
		   "            result += a\n        # a slow way\n        # to multiply\n"
		   "        # two numbers\n        return result\n\n\ndef main():\n"
		   "    calc = Calc()\n    print(calc.mul(2, 3))\n");
	commit_all(f);
	sh(f, "sed -i 's/        return result/        return int(result)/; "
	      "s/calc.mul(2, 3)/calc.mul(3, 4)/; s/return a + b/return b + a/' calc.py");
	summarize_git(f, "diff", &s);
	assert_int_equal(s.count, 1);
	assert_int_equal(s.files[0].added, 3);
	assert_int_equal(s.files[0].removed, 3);
	assert_functions(&s.files[0], 3, "add", "mul", "main");
	assert_description(&s, 0, "Edited add(), mul() and main() in calc.py (+3 -3)");
	callus_patch_summary_release(&s);
}

/* git quotes names with special bytes: "a/\303\274..." and "a/q\"t". */
static void quoted_paths_from_git(void **state)
{
	fixture *f = *state;
	callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;
	callus_buf patch = CALLUS_BUF_INIT;

	write_file(f, "base.txt", "b\n");
	commit_all(f);
	write_file(f, "\xc3\xbcn\xc3\xaf.txt", "1\n2\n");
	write_file(f, "q\"t b.txt", "1\n");
	sh(f, "git add -A");
	git_output(f, "diff --cached", &patch);
	assert_non_null(strstr(patch.ptr, "\"b/\\303\\274n\\303\\257.txt\""));
	summarize(&s, patch.ptr, patch.len);
	assert_int_equal(s.count, 2);
	assert_string_equal(s.files[0].path, "q\"t b.txt");
	assert_int_equal(s.files[0].change, CALLUS_PATCH_ADDED);
	assert_string_equal(s.files[1].path, "\xc3\xbcn\xc3\xaf.txt");
	assert_int_equal(s.files[1].added, 2);
	assert_description(&s, 0, "Added q\"t b.txt (+1); added \xc3\xbcn\xc3\xaf.txt (+2)");
	callus_patch_summary_release(&s);
	callus_buf_release(&patch);
}

/* ---- hand-made patches ---- */

static void empty_and_garbage(void **state)
{
#define INPUT(text) { text, sizeof(text) - 1 }
	static const struct {
		const char *text;
		size_t len;
	} inputs[] = {
		INPUT(""),
		INPUT("hello\nworld\n"),
		INPUT("diff --git\n--- \n+++ \n@@ nonsense @@\n+a\n-b\n"),
		INPUT("@@ -1 +1 @@ int f(void)\n-a\n+b\n"), /* a hunk without a file */
		INPUT("\xff\xfe\x00\x01garbage\x00\n\n\n"),
	};
#undef INPUT

	(void)state;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;

		summarize(&s, inputs[i].text, inputs[i].len);
		assert_int_equal(s.count, 0);
		assert_int_equal(s.added + s.removed + s.more_files, 0);
		assert_description(&s, 100, "No changes in the working tree");
		callus_patch_summary_release(&s);
	}
	{
		callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;

		assert_int_equal(callus_patch_summarize(&s, NULL, 0), 0);
		assert_int_equal(s.count, 0);
		assert_description(&s, 10, "No changes");
		callus_patch_summary_release(&s);
	}
}

static void truncated_mid_hunk(void **state)
{
	static const char patch[] =
		"diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n"
		"@@ -10,4 +10,4 @@ int f(int a)\n \tint b;\n-\tb = a;\n+\tb = 2 * a;\n-\treturn";
	callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;

	(void)state;
	/* at every length: no read past it, and counts only grow */
	for (size_t len = 0; len <= sizeof(patch) - 1; len++) {
		summarize(&s, patch, len);
		assert_true(s.count <= 1);
		callus_patch_summary_release(&s);
	}
	summarize(&s, patch, sizeof(patch) - 1);
	assert_int_equal(s.count, 1);
	assert_int_equal(s.files[0].added, 1);
	assert_int_equal(s.files[0].removed, 2);
	assert_functions(&s.files[0], 1, "f");
	assert_description(&s, 0, "Edited f() in x.c (+1 -2)");
	callus_patch_summary_release(&s);
}

static void nul_bytes_and_header_lookalikes(void **state)
{
	/* removed lines that read "--- a/y" and "diff --git": the counts say
	 * they are in the hunk */
	static const char patch[] =
		"diff --git a/x.txt b/x.txt\n--- a/x.txt\n+++ b/x.txt\n"
		"@@ -1,4 +1,3 @@\n---- a/y\n-diff --git a/z b/z\n+a\0b\n c\n-\0\n"
		"diff --git a/w.txt b/w.txt\nnew file mode 100644\n--- /dev/null\n+++ b/w.txt\n"
		"@@ -0,0 +1 @@\n+\0\n";
	callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;

	(void)state;
	summarize(&s, patch, sizeof(patch) - 1);
	assert_int_equal(s.count, 2);
	assert_string_equal(s.files[0].path, "x.txt");
	assert_int_equal(s.files[0].added, 1);
	assert_int_equal(s.files[0].removed, 3);
	assert_string_equal(s.files[1].path, "w.txt");
	assert_int_equal(s.files[1].change, CALLUS_PATCH_ADDED);
	assert_int_equal(s.files[1].added, 1);
	assert_description(&s, 0, "Edited x.txt (+1 -3); added w.txt (+1)");
	callus_patch_summary_release(&s);
}

static void callus_truncation_line(void **state)
{
	static const char patch[] =
		"diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1 +1,2 @@\n a\n+b\n"
		"[callus: 3 more files changed: b.c, c.c, d.c]\n";
	callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;
	callus_strlist files = CALLUS_STRLIST_INIT;

	(void)state;
	summarize(&s, patch, sizeof(patch) - 1);
	assert_int_equal(s.count, 1);
	assert_int_equal(s.more_files, 3);
	assert_int_equal(s.files[0].added, 1);
	assert_description(&s, 0, "Edited a.c (+1); and 3 more files");
	/* too long for the clause: only the count is left */
	assert_description(&s, 20, "Changed 4 files");
	assert_int_equal(callus_patch_files(&files, &s), 0);
	assert_int_equal(files.count, 1);
	assert_string_equal(files.items[0], "a.c");
	callus_strlist_release(&files);
	callus_patch_summary_release(&s);
}

static void quoted_paths_by_hand(void **state)
{
	static const char patch[] =
		"diff --git \"a/sp\\\"ace\\tx\" \"b/sp\\\"ace\\tx\"\n"
		"deleted file mode 100644\n--- \"a/sp\\\"ace\\tx\"\n+++ /dev/null\n"
		"@@ -1 +0,0 @@\n-gone\n"
		"diff --git a/r b \"b/r\\303\\251 \\\\ n\"\nsimilarity index 90%\n"
		"rename from r b\nrename to \"r\\303\\251 \\\\ n\"\n"
		"diff --git \"a/unterminated\n"
		"Binary files a/p and q.png and b/p and q.png differ\n";
	callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;

	(void)state;
	summarize(&s, patch, sizeof(patch) - 1);
	assert_int_equal(s.count, 3);
	assert_string_equal(s.files[0].path, "sp\"ace\tx");
	assert_int_equal(s.files[0].change, CALLUS_PATCH_DELETED);
	assert_int_equal(s.files[0].removed, 1);
	assert_string_equal(s.files[1].old_path, "r b");
	assert_string_equal(s.files[1].path, "r\xc3\xa9 \\ n");
	assert_int_equal(s.files[1].change, CALLUS_PATCH_RENAMED);
	/* the unreadable header is dropped, the "Binary files" line names
	 * its file with the same path twice */
	assert_string_equal(s.files[2].path, "p and q.png");
	assert_true(s.files[2].binary);
	/* a tab in a path would break the line */
	assert_description(&s, 0,
			   "Deleted sp\"ace?x; renamed r b to r\xc3\xa9 \\ n; "
			   "changed binary p and q.png");
	callus_patch_summary_release(&s);
}

static void plain_unified_diff(void **state)
{
	static const char patch[] =
		"--- a/one.txt\t2024-01-01 00:00:00\n+++ b/one.txt\t2024-01-01 00:00:01\n"
		"@@ -1,2 +1,2 @@\n-x\n+y\n z\n"
		"--- a/two.txt\n+++ b/two.txt\n@@ -1 +1 @@\n-p\n+q\n"
		"Binary files /dev/null and b/img.png differ\n";
	callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;

	(void)state;
	summarize(&s, patch, sizeof(patch) - 1);
	assert_int_equal(s.count, 3);
	assert_string_equal(s.files[0].path, "one.txt");
	assert_string_equal(s.files[1].path, "two.txt");
	assert_string_equal(s.files[2].path, "img.png");
	assert_int_equal(s.files[2].change, CALLUS_PATCH_ADDED);
	assert_description(&s, 0,
			   "Edited one.txt (+1 -1); edited two.txt (+1 -1); added binary img.png");
	callus_patch_summary_release(&s);
}

/* One hunk per line of context, each in its own file named after the
 * language, so the table reads as "this line names that function". */
static void function_names(void **state)
{
	static const struct {
		const char *ext, *context, *name; /* name NULL: none */
	} cases[] = {
		{ "c", "int add(int a, int b)", "add" },
		{ "c", "static void foo_bar(void) {", "foo_bar" },
		{ "c", "static int long_one(int a,", "long_one" },
		{ "c", "const char *name_of(int kind)", "name_of" },
		{ "cpp", "void Foo::bar(int x) const", "Foo::bar" },
		{ "cpp", "Foo::Foo(int x) : a(x) {", "Foo::Foo" },
		{ "cpp", "std::vector<int> ns::Foo::get(const std::string &k)", "ns::Foo::get" },
		{ "js", "function add(a, b) {", "add" },
		{ "js", "export async function x(a) {", "x" },
		{ "js", "export default function* gen() {", "gen" },
		{ "js", "const f = (a) =>", "f" },
		{ "ts", "export const g = async (a: number): Promise<void> => {", "g" },
		{ "js", "let h = x => x + 1;", "h" },
		{ "js", "  method(arg) {", "method" },
		{ "ts", "  public async load(url: string): Promise<void> {", "load" },
		{ "js", "  get size() {", "size" },
		{ "js", "class Foo {", "Foo" },
		{ "js", "export default class Foo extends Bar {", "Foo" },
		{ "js", "module.exports.h = function (x) {", "h" },
		{ "js", "  handler: async (req, res) => {", "handler" },
		{ "js", "describe('sum', () => {", NULL },
		{ "js", "  it('works', function () {", NULL },
		{ "js", "app.get('/', (req, res) => {", NULL },
		{ "js", "const list = items.map((i) => i * 2);", NULL },
		{ "js", "if (x) {", NULL },
		{ "py", "def add(a, b):", "add" },
		{ "py", "class Foo:", "Foo" },
		{ "py", "class Foo(Base):", "Foo" },
		{ "py", "    async def fetch(self):", "fetch" },
		{ "py", "if __name__ == \"__main__\":", NULL },
		{ "py", "main()", NULL },
		{ "go", "func (r *T) Name(x int) error {", "T.Name" },
		{ "go", "func (s *Stack[T]) Push(v T) {", "Stack.Push" },
		{ "go", "func main() {", "main" },
		{ "rs", "fn name<T>(x: T) -> T {", "name" },
		{ "rs", "pub fn run() {", "run" },
		{ "rs", "pub(crate) async fn go_on() {", "go_on" },
		{ "rs", "impl Foo for Bar {", "Bar" },
		{ "rs", "impl<T: Display> fmt::Debug for Wrapper<T> {", "Wrapper" },
		{ "rs", "impl Foo {", "Foo" },
		{ "rb", "  def self.call(x)", "call" },
		{ "sh", "deploy() {", "deploy" },
		{ "java", "    public static int add(int a, int b) {", "add" },
		{ "c", "struct foo {", NULL },
		{ "c", "int x = compute(1);", NULL },
		{ "c", "#define MAX(a, b) ((a) > (b) ? (a) : (b))", NULL },
		{ "c", "} else if (x) {", NULL },
		{ "c", "  return foo(x);", NULL },
		{ "c", "int (*fp)(int);", NULL },
		{ "c", "\xff\xfe(", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;
		callus_buf patch = CALLUS_BUF_INIT;

		callus_buf_printf(&patch,
				"diff --git a/f.%s b/f.%s\n--- a/f.%s\n+++ b/f.%s\n"
				"@@ -10 +10 @@ %s\n-        x\n+        y\n",
				cases[i].ext, cases[i].ext, cases[i].ext, cases[i].ext,
				cases[i].context);
		summarize(&s, patch.ptr, patch.len);
		assert_int_equal(s.count, 1);
		if (!cases[i].name) {
			if (s.files[0].functions.count)
				fail_msg("\"%s\" named %s", cases[i].context,
					 s.files[0].functions.items[0]);
		} else {
			if (s.files[0].functions.count != 1)
				fail_msg("\"%s\" named nothing", cases[i].context);
			assert_string_equal(s.files[0].functions.items[0], cases[i].name);
		}
		callus_patch_summary_release(&s);
		callus_buf_release(&patch);
	}
}

static void many_functions(void **state)
{
	callus_buf patch = CALLUS_BUF_INIT;
	callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;
	static const char *const names[] = { "f", "g", "h", "i", "j", "f" };

	(void)state;
	callus_buf_puts(&patch, "diff --git a/m.c b/m.c\n--- a/m.c\n+++ b/m.c\n");
	for (size_t i = 0; i < 6; i++)
		callus_buf_printf(&patch, "@@ -%zu,2 +%zu,2 @@ void %s(void)\n-a\n+b\n c\n",
				10 * i + 1, 10 * i + 1, names[i]);
	summarize(&s, patch.ptr, patch.len);
	/* each once, in order */
	assert_functions(&s.files[0], 5, "f", "g", "h", "i", "j");
	assert_description(&s, 0, "Edited f(), g(), h() and 2 more in m.c (+6 -6)");
	callus_strlist_release(&s.files[0].functions);
	callus_strlist_add(&s.files[0].functions, "f", 1);
	callus_strlist_add(&s.files[0].functions, "g", 1);
	callus_strlist_add(&s.files[0].functions, "h", 1);
	assert_description(&s, 0, "Edited f(), g() and h() in m.c (+6 -6)");
	s.files[0].added = 0;
	assert_description(&s, 0, "Edited f(), g() and h() in m.c (-6)");
	callus_patch_summary_release(&s);
	callus_buf_release(&patch);
}

static void tiny_limits_keep_utf8(void **state)
{
	static const char patch[] =
		"diff --git a/dossier/\xc3\xa9\xc3\xa9.txt b/dossier/\xc3\xa9\xc3\xa9.txt\n"
		"new file mode 100644\n--- /dev/null\n+++ b/dossier/\xc3\xa9\xc3\xa9.txt\n"
		"@@ -0,0 +1 @@\n+x\n"
		"diff --git a/\xe6\x97\xa5\xe6\x9c\xac.c b/\xe6\x97\xa5\xe6\x9c\xac.c\n"
		"--- a/\xe6\x97\xa5\xe6\x9c\xac.c\n+++ b/\xe6\x97\xa5\xe6\x9c\xac.c\n"
		"@@ -1 +1 @@\n-a\n+b\n";
	callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;
	char *full = NULL;

	(void)state;
	summarize(&s, patch, sizeof(patch) - 1);
	assert_int_equal(s.count, 2);
	assert_int_equal(callus_patch_describe(&full, &s, 0), 0);
	assert_string_equal(full, "Added dossier/\xc3\xa9\xc3\xa9.txt (+1); "
				  "edited \xe6\x97\xa5\xe6\x9c\xac.c (+1 -1)");
	/* the first clause and a count of the rest */
	assert_description(&s, 45, "Added dossier/\xc3\xa9\xc3\xa9.txt (+1); and 1 more file");
	/* "added dossier/\xc3\xa9" then a cut inside the second "\xc3\xa9" */
	s.count = 1;
	assert_description(&s, 20, "Added dossier/\xc3\xa9...");
	s.count = 2;
	for (size_t max = 1; max <= strlen(full) + 2; max++) {
		char *d = NULL;

		assert_int_equal(callus_patch_describe(&d, &s, max), 0);
		assert_true(strlen(d) <= max);
		assert_true(callus_utf8_valid(d, strlen(d)));
		if (max >= strlen(full))
			assert_string_equal(d, full);
		free(d);
	}
	free(full);
	callus_patch_summary_release(&s);
}

static void invalid_utf8_is_repaired_in_the_description(void **state)
{
	static const char patch[] =
		"diff --git a/bad\xff.txt b/bad\xff.txt\n--- a/bad\xff.txt\n+++ b/bad\xff.txt\n"
		"@@ -1 +1 @@ int caf\xff(void)\n-a\n+b\n";
	callus_patch_summary s = CALLUS_PATCH_SUMMARY_INIT;

	(void)state;
	summarize(&s, patch, sizeof(patch) - 1);
	assert_int_equal(s.count, 1);
	/* the path keeps its bytes: it names a real file */
	assert_string_equal(s.files[0].path, "bad\xff.txt");
	assert_int_equal(s.files[0].functions.count, 0);
	assert_description(&s, 0, "Edited bad\xef\xbf\xbd.txt (+1 -1)");
	callus_patch_summary_release(&s);
}

/* A key's lines redacted into one: the hunk's counts follow; headers that
 * are right are left byte for byte, "\ No newline" counts for neither side. */
static void recount_after_redaction(void **state)
{
	static const char right[] =
		"diff --git a/k.txt b/k.txt\n"
		"--- a/k.txt\n+++ b/k.txt\n"
		"@@ -1 +1,2 @@\n a\n+b\n"
		"@@ -9,2 +10 @@ fn\n-x\n-y\n+z\n\\ No newline at end of file\n";
	static const char redacted[] =
		"diff --git a/k.txt b/k.txt\n"
		"--- a/k.txt\n+++ b/k.txt\n"
		"@@ -1,2 +1,6 @@ key\n a\n+[REDACTED:private-key]\n b\n"
		"@@ -20,3 +24,3 @@\n c\n-d\n+e\n f\n"
		"diff --git a/m b/m\n--- a/m\n+++ b/m\n@@ -0,0 +1,3 @@\n+[REDACTED:private-key]\n";
	static const char want[] =
		"diff --git a/k.txt b/k.txt\n"
		"--- a/k.txt\n+++ b/k.txt\n"
		"@@ -1,2 +1,3 @@ key\n a\n+[REDACTED:private-key]\n b\n"
		"@@ -20,3 +24,3 @@\n c\n-d\n+e\n f\n"
		"diff --git a/m b/m\n--- a/m\n+++ b/m\n@@ -0,0 +1,1 @@\n+[REDACTED:private-key]\n";
	char *p = strdup(right), *before = p;

	(void)state;
	assert_non_null(p);
	assert_int_equal(callus_patch_recount(&p), 0);
	assert_ptr_equal(p, before);
	assert_string_equal(p, right);
	free(p);
	p = strdup(redacted);
	assert_non_null(p);
	assert_int_equal(callus_patch_recount(&p), 0);
	assert_string_equal(p, want);
	free(p);
	/* plain diff -u: the next file's header ends the hunk */
	p = strdup("@@ -1,2 +1,2 @@\n-a\n+b\n c\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-d\n+e\n");
	before = p;
	assert_int_equal(callus_patch_recount(&p), 0);
	assert_ptr_equal(p, before);
	free(p);
	p = strdup("@@ -x +1 @@\n+a\n@@ -1");
	assert_int_equal(callus_patch_recount(&p), 0);
	assert_string_equal(p, "@@ -x +1 @@\n+a\n@@ -1");
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(js_edit_and_added_file, setup, teardown),
		cmocka_unit_test_setup_teardown(deleted_file, setup, teardown),
		cmocka_unit_test_setup_teardown(rename_with_an_edit, setup, teardown),
		cmocka_unit_test_setup_teardown(binary_files, setup, teardown),
		cmocka_unit_test_setup_teardown(c_two_functions, setup, teardown),
		cmocka_unit_test_setup_teardown(python_file, setup, teardown),
		cmocka_unit_test_setup_teardown(quoted_paths_from_git, setup, teardown),
		cmocka_unit_test(recount_after_redaction),
		cmocka_unit_test(empty_and_garbage),
		cmocka_unit_test(truncated_mid_hunk),
		cmocka_unit_test(nul_bytes_and_header_lookalikes),
		cmocka_unit_test(callus_truncation_line),
		cmocka_unit_test(quoted_paths_by_hand),
		cmocka_unit_test(plain_unified_diff),
		cmocka_unit_test(function_names),
		cmocka_unit_test(many_functions),
		cmocka_unit_test(tiny_limits_keep_utf8),
		cmocka_unit_test(invalid_utf8_is_repaired_in_the_description),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

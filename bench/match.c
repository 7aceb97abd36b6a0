/*
 * bench/match.c - suggestion latency against N stored signatures (issue 6
 * item 7, DESIGN §9: under 20 ms at 100,000), driven by bench/match.sh.
 *
 *   match run DIR N Q QB QS
 *	generate N signatures from real message templates (identifiers,
 *	numbers and stack frames varied per instance), weight them by their
 *	IDF, write DIR/vectors.bin with callus_vecindex_rewrite and DIR/vectors.db
 *	(one float32 BLOB per row, when QS > 0), then time Q queries that are
 *	new variants of the same templates:
 *	  (a) callus's path: map the index, embed the query, top-10 at 0.85;
 *	  (b) brute force written plainly over float arrays already in memory:
 *	      cosine in double with both norms per pair, then a full sort
 *	      (the first QB queries);
 *	  (c) the same reading the vectors from SQLite rows at each query
 *	      (the first QS queries; 0 skips it).
 *	Prints "lat|..." rows (ms) and one "mem|..." row.
 *   match rss INDEX QUERIES Q
 *	the memory of (a) alone, in a fresh process: map INDEX, search the Q
 *	query vectors of the file QUERIES, print the peak RSS (VmHWM, KiB).
 *
 * The signature of the query is built before the clock starts: the hook has
 * it from recording the failure.  The IDF table is in memory (the store
 * loads it; not timed here).  Wall-clock times, CLOCK_MONOTONIC.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "callus/buf.h"
#include "callus/embed.h"
#include "callus/extract.h"
#include "callus/signature.h"
#include "callus/vecindex.h"

#define DIM CALLUS_EMBED_DIM
#define MODEL CALLUS_EMBED_BUILTIN_MODEL
#define TOPK 10
#define MIN_SCORE 0.85f

/*
 * Messages as the tools print them (taken from tests/corpus outputs); '@'
 * is replaced by an identifier and '#' by a number, both varied per
 * instance.  frames: how many in-project stack frames the tool reports.
 */
struct tmpl {
	const char *tool, *code, *msg, *ext;
	int frames, snake;
};

static const struct tmpl templates[] = {
	{ "eslint", "no-unused-vars", "'@' is assigned a value but never used.", "js", 0, 0 },
	{ "eslint", "no-undef", "'@' is not defined.", "js", 0, 0 },
	{ "eslint", "no-unused-vars", "'@' is defined but never used.", "js", 0, 0 },
	{ "eslint", "eqeqeq", "Expected '===' and instead saw '=='.", "js", 0, 0 },
	{ "eslint", "no-console", "Unexpected console statement.", "js", 0, 0 },
	{ "eslint", "no-var", "Unexpected var, use let or const instead.", "js", 0, 0 },
	{ "eslint", "prefer-const", "'@' is never reassigned. Use 'const' instead.", "js", 0, 0 },
	{ "tsc", "TS2345", "Argument of type '@' is not assignable to parameter of type 'string'.",
	  "ts", 0, 0 },
	{ "tsc", "TS2304", "Cannot find name '@'.", "ts", 0, 0 },
	{ "tsc", "TS7006", "Parameter '@' implicitly has an 'any' type.", "ts", 0, 0 },
	{ "tsc", "TS2322", "Type 'string' is not assignable to type 'number'.", "ts", 0, 0 },
	{ "tsc", "TS2339", "Property '@' does not exist on type '@'.", "ts", 0, 0 },
	{ "tsc", "TS2551", "Property '@' does not exist on type '@[]'. Did you mean 'length'?",
	  "ts", 0, 0 },
	{ "gcc", NULL, "expected ',' or ';' before @", "c", 0, 1 },
	{ "gcc", "-Wunused-variable", "unused variable @", "c", 0, 1 },
	{ "gcc", NULL, "@ undeclared (first use in this function)", "c", 0, 1 },
	{ "gcc", "-Wreturn-type", "control reaches end of non-void function", "c", 0, 1 },
	{ "gcc", "-Wimplicit-function-declaration", "implicit declaration of function @", "c", 0,
	  1 },
	{ "gcc", NULL, "undefined reference to @", "c", 1, 1 },
	{ "go", NULL, "undefined: @", "go", 0, 0 },
	{ "go", NULL, "declared and not used: @", "go", 0, 0 },
	{ "go", NULL, "cannot use @ (variable of type int) as string value in argument to @", "go",
	  0, 0 },
	{ "go", "go:panic", "runtime error: index out of range [#] with length #", "go", 2, 0 },
	{ "rustc", "E0425", "cannot find value @ in this scope", "rs", 0, 1 },
	{ "rustc", "E0308", "mismatched types: expected u32, found &str", "rs", 0, 1 },
	{ "rustc", "E0599", "no method named @ found for struct @ in the current scope", "rs", 0,
	  1 },
	{ "rustc", "unused_variables", "unused variable: @", "rs", 0, 1 },
	{ "rustc", "E0382", "borrow of moved value: @", "rs", 0, 1 },
	{ "pytest", "AssertionError", "assert # == #", "py", 1, 1 },
	{ "pytest", "ZeroDivisionError", "division by zero", "py", 2, 1 },
	{ "pytest", "KeyError", "'@'", "py", 2, 1 },
	{ "pytest", "AttributeError", "'NoneType' object has no attribute @", "py", 2, 1 },
	{ "pytest", "TypeError", "@() missing 1 required positional argument: @", "py", 2, 1 },
	{ "pytest", "ModuleNotFoundError", "No module named @", "py", 1, 1 },
	{ "pytest", "NameError", "name @ is not defined", "py", 2, 1 },
	{ "mypy", "return-value", "Incompatible return value type (got \"str\", expected \"int\")",
	  "py", 0, 1 },
	{ "mypy", "assignment",
	  "Incompatible types in assignment (expression has type \"str\", variable has type \"int\")",
	  "py", 0, 1 },
	{ "mypy", "attr-defined", "@ has no attribute @", "py", 0, 1 },
	{ "mypy", "name-defined", "Name @ is not defined", "py", 0, 1 },
	{ "flake8", "F821", "undefined name @", "py", 0, 1 },
	{ "flake8", "E302", "expected 2 blank lines, found #", "py", 0, 1 },
	{ "pylint", "E0602", "Undefined variable @", "py", 0, 1 },
	{ "shellcheck", "SC2034", "@ appears unused. Verify use (or export if used externally).",
	  "sh", 0, 1 },
	{ "shellcheck", "SC2046", "Quote this to prevent word splitting.", "sh", 0, 1 },
	{ "shellcheck", "SC2155", "Declare and assign separately to avoid masking return values.",
	  "sh", 0, 1 },
	{ "cppcheck", "arrayIndexOutOfBounds", "Array @[#] accessed at index #, which is out of bounds.",
	  "c", 0, 1 },
	{ "cppcheck", "memleak", "Memory leak: @", "c", 0, 1 },
	{ "cppcheck", "nullPointer", "Null pointer dereference: @", "c", 0, 1 },
	{ "cppcheck", "uninitvar", "Uninitialized variable: @", "c", 0, 1 },
	{ "jest", NULL,
	  "expect(received).toBe(expected) // Object.is equality\n\nExpected: #\nReceived: #", "js",
	  2, 0 },
	{ "jest", NULL, "expect(received).toEqual(expected) // deep equality", "js", 2, 0 },
	{ "vitest", "TypeError", "Cannot read properties of undefined (reading @)", "js", 2, 0 },
	{ "vitest", NULL, "expected @ to be @ // Object.is equality", "js", 1, 0 },
	{ "mocha", "AssertionError", "Expected values to be strictly equal:\n\n# !== #", "js", 2, 0 },
	{ "node", "Error", "user @ not found", "js", 2, 0 },
	{ "node", "ReferenceError", "@ is not defined", "js", 2, 0 },
};
#define NTEMPLATES (sizeof(templates) / sizeof(templates[0]))

static const char *const words[] = {
	"user", "count", "total", "price", "cart", "item", "order", "value", "name", "list",
	"index", "config", "result", "status", "buffer", "parser", "token", "node", "tree",
	"cache", "session", "request", "response", "handler", "client", "server", "stream",
	"file", "path", "line", "column", "error", "message", "report", "format", "amount",
	"currency", "discount", "decimal", "digits", "margin", "offset", "length", "width",
	"height", "record", "entry", "table", "query", "schema", "model", "store", "stock",
	"invoice", "payment", "account", "balance", "limit", "retry", "timeout", "queue",
	"worker", "job", "task", "event", "listener", "router", "route", "params", "header",
	"body", "payload", "input", "output", "reader", "writer", "loader", "greeting", "title",
	"label", "color", "theme", "layout", "widget", "button", "render", "update", "fetch",
	"parse", "build", "merge", "split", "trim", "sum", "average", "score", "rank", "level",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* camelCase or snake_case of two or three words */
static void put_ident(callus_buf *b, uint64_t *rng, int snake)
{
	int parts = 2 + (int)(next_rand(rng) % 2);

	for (int i = 0; i < parts; i++) {
		const char *w = words[next_rand(rng) % NWORDS];

		if (i && snake)
			callus_buf_putc(b, '_');
		if (i && !snake) {
			callus_buf_putc(b, (char)(w[0] - 'a' + 'A'));
			callus_buf_puts(b, w + 1);
		} else {
			callus_buf_puts(b, w);
		}
	}
}

/* The signature of instance `seed` of a template chosen by seed. */
static int make_sig(callus_signature *out, uint64_t seed)
{
	uint64_t rng = seed;
	const struct tmpl *t = &templates[next_rand(&rng) % NTEMPLATES];
	callus_diags diags = CALLUS_DIAGS_INIT;
	callus_buf msg = CALLUS_BUF_INIT, frame = CALLUS_BUF_INIT, file = CALLUS_BUF_INIT;
	callus_diag *d;
	int rc;

	for (const char *p = t->msg; *p; p++) {
		if (*p == '@')
			put_ident(&msg, &rng, t->snake);
		else if (*p == '#')
			callus_buf_printf(&msg, "%u", (unsigned)(next_rand(&rng) % 1000));
		else
			callus_buf_putc(&msg, *p);
	}
	callus_buf_printf(&file, "src/%s.%s", words[next_rand(&rng) % NWORDS], t->ext);
	rc = callus_buf_status(&msg) || callus_buf_status(&file) ? CALLUS_ENOMEM : 0;
	if (!rc)
		rc = callus_diags_add(&diags, file.ptr, (long)(next_rand(&rng) % 400) + 1,
				    (long)(next_rand(&rng) % 80) + 1, t->code,
				    t->code ? strlen(t->code) : 0, msg.ptr, msg.len, "error");
	d = callus_diags_last(&diags);
	for (int i = 0; !rc && i < t->frames; i++) {
		callus_buf_clear(&frame);
		put_ident(&frame, &rng, t->snake);
		callus_buf_printf(&frame, "\tsrc/%s.%s", words[next_rand(&rng) % NWORDS], t->ext);
		rc = callus_buf_status(&frame) ? CALLUS_ENOMEM
					     : callus_strlist_add(&d->frames, frame.ptr, frame.len);
	}
	if (!rc)
		rc = callus_signature_build(out, d, t->tool, NULL);
	callus_diags_release(&diags);
	callus_buf_release(&msg);
	callus_buf_release(&frame);
	callus_buf_release(&file);
	return rc;
}

static int features_of(callus_features *f, uint64_t seed)
{
	callus_signature s;
	int rc = make_sig(&s, seed);

	if (rc)
		return rc;
	rc = callus_embed_features(f, &s);
	callus_signature_release(&s);
	return rc;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void print_lat(const char *size, const char *what, double *ms, size_t n)
{
	if (n == 0) {
		printf("lat| %s | %s | skipped | | | | |\n", size, what);
		return;
	}
	qsort(ms, n, sizeof(*ms), cmp_double);
	printf("lat| %s | %s | %zu | %.2f | %.2f | %.2f | %.2f |\n", size, what, n, ms[0],
	       ms[n / 2], ms[(n - 1) * 95 / 100], ms[n - 1]);
	fflush(stdout);
}

/* ---- (b) and (c): brute force written plainly ---- */

struct scored {
	int64_t id;
	double score;
};

static int cmp_scored(const void *a, const void *b)
{
	double x = ((const struct scored *)a)->score, y = ((const struct scored *)b)->score;

	return x < y ? 1 : x > y ? -1 : 0;
}

static double naive_cosine(const float *a, const float *b, size_t n)
{
	double dot = 0, na = 0, nb = 0;

	for (size_t i = 0; i < n; i++) {
		dot += (double)a[i] * b[i];
		na += (double)a[i] * a[i];
		nb += (double)b[i] * b[i];
	}
	if (na == 0 || nb == 0)
		return 0;
	/* sqrt(na * nb) without libm's name: both are ~1 here, but the
	 * baseline pays for the division as a real one would */
	return dot / __builtin_sqrt(na * nb);
}

/* Sort everything, keep the top k at or above min; returns how many. */
static size_t finish_plain(struct scored *all, size_t n, struct scored *top)
{
	size_t got = 0;

	qsort(all, n, sizeof(*all), cmp_scored);
	for (size_t i = 0; i < n && got < TOPK && all[i].score >= MIN_SCORE; i++)
		top[got++] = all[i];
	return got;
}

static size_t plain_memory(const float *vecs, const int64_t *ids, size_t n, const float *q,
			   struct scored *top)
{
	struct scored *all = malloc(n * sizeof(*all));
	size_t got;

	if (!all)
		return 0;
	for (size_t i = 0; i < n; i++) {
		all[i].id = ids[i];
		all[i].score = naive_cosine(vecs + i * DIM, q, DIM);
	}
	got = finish_plain(all, n, top);
	free(all);
	return got;
}

static size_t plain_sqlite(const char *db_path, size_t n, const float *q, struct scored *top)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct scored *all = malloc(n * sizeof(*all));
	float v[DIM];
	size_t m = 0, got = 0;

	if (!all)
		goto out;
	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT id, vec FROM vectors", -1, &st, NULL) != SQLITE_OK)
		goto out;
	while (m < n && sqlite3_step(st) == SQLITE_ROW) {
		const void *blob = sqlite3_column_blob(st, 1);
		if (!blob || sqlite3_column_bytes(st, 1) != (int)sizeof(v))
			continue;
		memcpy(v, blob, sizeof(v));
		all[m].id = sqlite3_column_int64(st, 0);
		all[m].score = naive_cosine(v, q, DIM);
		m++;
	}
	got = finish_plain(all, m, top);
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(all);
	return got;
}

static int write_db(const char *path, const int64_t *ids, const float *vecs, size_t n)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc = -1;

	unlink(path);
	if (sqlite3_open(path, &db) != SQLITE_OK)
		goto out;
	if (sqlite3_exec(db,
			 "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
			 "CREATE TABLE vectors(id INTEGER PRIMARY KEY, vec BLOB NOT NULL);"
			 "BEGIN",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO vectors VALUES (?, ?)", -1, &st, NULL) != SQLITE_OK)
		goto out;
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, ids[i]);
		sqlite3_bind_blob(st, 2, vecs + i * DIM, DIM * sizeof(float), SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out;
		sqlite3_reset(st);
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto out;
	rc = 0;
out:
	if (rc && db)
		fprintf(stderr, "match: %s: %s\n", path, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

/* ---- the memory of (a), in a process of its own ---- */

/* The peak resident set of this process image, in KiB.  Not getrusage():
 * Linux carries the peak of the image before exec into ru_maxrss, and that
 * was a copy of the benchmark with every vector in memory.  VmHWM is the
 * current address space's own. */
static long vm_hwm_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *fp = fopen("/proc/self/status", "r");

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp))
		if (!strncmp(line, "VmHWM:", 6))
			kib = strtol(line + 6, NULL, 10);
	fclose(fp);
	return kib;
}

static int cmd_rss(const char *index, const char *queries, size_t nq)
{
	float *q = malloc(nq * DIM * sizeof(float));
	FILE *fp = fopen(queries, "rb");
	callus_vecmatch m[TOPK];
	size_t hits = 0;

	if (!q || !fp || fread(q, DIM * sizeof(float), nq, fp) != nq)
		return 1;
	fclose(fp);
	for (size_t i = 0; i < nq; i++) {
		callus_vecindex *vi = NULL;
		if (callus_vecindex_open(&vi, index, MODEL, DIM, NULL, NULL))
			return 1;
		hits += callus_vecindex_search(vi, q + i * DIM, MIN_SCORE, m, TOPK);
		callus_vecindex_close(vi);
	}
	free(q);
	printf("%ld\n", vm_hwm_kib());
	return 0;
}

/* Peak RSS in KiB of `self rss index queries nq`, which prints it. */
static long child_rss(const char *self, const char *index, const char *queries, size_t nq)
{
	char nqs[32], out[64];
	int status = 0, fds[2];
	long kib = -1;
	ssize_t r;
	pid_t pid;

	snprintf(nqs, sizeof(nqs), "%zu", nq);
	if (pipe(fds))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		if (dup2(fds[1], 1) < 0)
			_exit(127);
		execl(self, self, "rss", index, queries, nqs, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	r = read(fds[0], out, sizeof(out) - 1);
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    r <= 0)
		return -1;
	out[r] = 0;
	kib = strtol(out, NULL, 10);
	return kib;
}

static size_t parse_size(const char *s)
{
	char *end = NULL;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || !end || *end || end == s)
		return (size_t)-1;
	return (size_t)v;
}

static int cmd_run(const char *self, const char *dir, size_t n, size_t nq, size_t nqb, size_t nqs)
{
	callus_buf ipath = CALLUS_BUF_INIT, dbpath = CALLUS_BUF_INIT, qpath = CALLUS_BUF_INIT;
	callus_buf label = CALLUS_BUF_INIT;
	callus_features f = CALLUS_FEATURES_INIT;
	callus_signature *qsig = NULL;
	callus_error err = CALLUS_ERROR_INIT;
	callus_idf *idf = NULL;
	float *vecs = NULL, *qvecs = NULL;
	int64_t *ids = NULL;
	double *ms = NULL, *best = NULL, t;
	struct scored top[TOPK];
	struct stat st;
	size_t agree = 0, hits = 0;
	long rss = -1, rss_empty = -1;
	FILE *fp = NULL;
	int rc = 1;

	callus_buf_printf(&ipath, "%s/vectors.bin", dir);
	callus_buf_printf(&dbpath, "%s/vectors.db", dir);
	callus_buf_printf(&qpath, "%s/queries.f32", dir);
	callus_buf_printf(&label, "%zu", n);
	vecs = malloc(n * DIM * sizeof(float));
	ids = malloc(n * sizeof(*ids));
	qvecs = malloc(nq * DIM * sizeof(float));
	qsig = calloc(nq, sizeof(*qsig));
	ms = malloc(nq * sizeof(*ms));
	best = malloc(nq * sizeof(*best));
	if (!vecs || !ids || !qvecs || !qsig || !ms || !best || callus_idf_new(&idf))
		goto out;

	/* the stored signatures: document frequencies, then vectors */
	t = now_ms();
	for (size_t i = 0; i < n; i++)
		if (features_of(&f, i) || callus_idf_add(idf, &f))
			goto out;
	for (size_t i = 0; i < n; i++) {
		if (features_of(&f, i))
			goto out;
		ids[i] = (int64_t)i + 1;
		callus_embed_vector(vecs + i * DIM, &f, idf);
	}
	if (callus_vecindex_rewrite(ipath.ptr, MODEL, DIM, ids, vecs, n, &err)) {
		fprintf(stderr, "match: %s\n", callus_error_message(&err));
		goto out;
	}
	if (nqs && write_db(dbpath.ptr, ids, vecs, n))
		goto out;
	fprintf(stderr, "match: %zu signatures generated and written in %.1f s\n", n,
		(now_ms() - t) / 1e3);
	/* queries: other instances of the same templates */
	for (size_t i = 0; i < nq; i++)
		if (make_sig(&qsig[i], 0x5eed000000ull + i))
			goto out;

	/* (a) callus: map, embed, search */
	for (size_t i = 0; i < nq; i++) {
		callus_vecindex *vi = NULL;
		callus_vecmatch m[TOPK];
		size_t got;

		t = now_ms();
		if (callus_vecindex_open(&vi, ipath.ptr, MODEL, DIM, NULL, &err) ||
		    callus_embed_features(&f, &qsig[i]))
			goto out;
		callus_embed_vector(qvecs + i * DIM, &f, idf);
		got = callus_vecindex_search(vi, qvecs + i * DIM, MIN_SCORE, m, TOPK);
		callus_vecindex_close(vi);
		ms[i] = now_ms() - t;
		hits += got > 0;
		best[i] = got ? m[0].score : -1;
	}
	print_lat(label.ptr, "callus: mmap int8 index + embed + top-10", ms, nq);
	/* the same answer as the exact baseline, to quantization error
	 * (untimed, and apart so as not to disturb the caches of (a)) */
	for (size_t i = 0; i < nqb && i < nq; i++) {
		size_t pg = plain_memory(vecs, ids, n, qvecs + i * DIM, top);
		if ((best[i] < 0 && pg == 0) ||
		    (best[i] >= 0 && pg && best[i] - top[0].score < 0.02 &&
		     top[0].score - best[i] < 0.02))
			agree++;
	}

	/* (b) plain brute force over floats in memory */
	for (size_t i = 0; i < nqb && i < nq; i++) {
		t = now_ms();
		if (callus_embed_features(&f, &qsig[i]))
			goto out;
		callus_embed_vector(qvecs + i * DIM, &f, idf);
		plain_memory(vecs, ids, n, qvecs + i * DIM, top);
		ms[i] = now_ms() - t;
	}
	print_lat(label.ptr, "plain: float arrays in memory, double cosine, full sort", ms,
		  nqb < nq ? nqb : nq);

	/* (c) plain brute force reading SQLite rows */
	for (size_t i = 0; i < nqs && i < nq; i++) {
		t = now_ms();
		if (callus_embed_features(&f, &qsig[i]))
			goto out;
		callus_embed_vector(qvecs + i * DIM, &f, idf);
		plain_sqlite(dbpath.ptr, n, qvecs + i * DIM, top);
		ms[i] = now_ms() - t;
	}
	print_lat(label.ptr, "plain: SQLite BLOB rows, double cosine, full sort", ms,
		  nqs < nq ? nqs : nq);

	/* memory of (a) alone */
	fp = fopen(qpath.ptr, "wb");
	if (!fp || fwrite(qvecs, DIM * sizeof(float), nq, fp) != nq || fclose(fp)) {
		fp = NULL;
		goto out;
	}
	fp = NULL;
	rss = child_rss(self, ipath.ptr, qpath.ptr, nq);
	rss_empty = child_rss(self, "/nonexistent/vectors.bin", qpath.ptr, nq);
	if (stat(ipath.ptr, &st))
		goto out;
	printf("mem| %s | %.1f | %.1f | %.1f | %zu / %zu | %zu / %zu |\n", label.ptr,
	       (double)st.st_size / 1048576.0, (double)rss / 1024.0, (double)rss_empty / 1024.0,
	       hits, nq, agree, nqb < nq ? nqb : nq);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "match: run failed at %zu signatures\n", n);
	if (fp)
		fclose(fp);
	for (size_t i = 0; qsig && i < nq; i++)
		callus_signature_release(&qsig[i]);
	free(qsig);
	callus_features_release(&f);
	callus_idf_free(idf);
	callus_error_release(&err);
	free(vecs);
	free(ids);
	free(qvecs);
	free(ms);
	free(best);
	callus_buf_release(&ipath);
	callus_buf_release(&dbpath);
	callus_buf_release(&qpath);
	callus_buf_release(&label);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 7 && !strcmp(argv[1], "run")) {
		size_t n = parse_size(argv[3]), q = parse_size(argv[4]);
		size_t qb = parse_size(argv[5]), qs = parse_size(argv[6]);
		if (n == (size_t)-1 || n == 0 || q == (size_t)-1 || q == 0 || qb == (size_t)-1 ||
		    qs == (size_t)-1)
			goto usage;
		return cmd_run(argv[0], argv[2], n, q, qb, qs);
	}
	if (argc == 5 && !strcmp(argv[1], "rss")) {
		size_t q = parse_size(argv[4]);
		if (q == (size_t)-1 || q == 0)
			goto usage;
		return cmd_rss(argv[2], argv[3], q);
	}
usage:
	fprintf(stderr, "usage: match run DIR N QUERIES PLAIN-QUERIES SQLITE-QUERIES\n"
			"       match rss INDEX QUERY-FILE QUERIES\n");
	return 2;
}

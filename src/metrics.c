#include "callus/metrics.h"
#include "callus/workspace.h"
#include "callus/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Bucket sets, in the unit of the metric that uses them. */
static const double buckets_NONE[1] = { 0 };
static const double buckets_LATENCY_MS[] = {
	1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000
};
static const double buckets_BYTES[] = { 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384 };
static const double buckets_COUNTS[] = { 0, 1, 2, 3, 5, 10, 20, 50 };
static const double buckets_RATIO[] = { 0.1, 0.25, 0.5, 0.75, 0.9, 1 };
#define NBUCKETS_(set) (sizeof(buckets_##set) / sizeof(double))
#define NB_NONE 0
#define NB_LATENCY_MS NBUCKETS_(LATENCY_MS)
#define NB_BYTES NBUCKETS_(BYTES)
#define NB_COUNTS NBUCKETS_(COUNTS)
#define NB_RATIO NBUCKETS_(RATIO)

#define UNPAREN_(...) __VA_ARGS__
#define DEF_(id, name, type, labels, buckets, prom, help)                                          \
	{ CALLUS_METRIC_##id,                                                                        \
	  name,                                                                                    \
	  CALLUS_METRIC_TYPE_##type,                                                                 \
	  { UNPAREN_ labels },                                                                     \
	  buckets_##buckets,                                                                       \
	  NB_##buckets,                                                                            \
	  prom,                                                                                    \
	  help },

static const callus_metric_def defs[CALLUS_METRIC__COUNT] = { CALLUS_METRICS(DEF_) };

#undef DEF_

/* One series: a metric and one combination of label values. */
struct series {
	const callus_metric_def *def;
	char *labels;	 /* canonical JSON object, owned */
	double value;	 /* counter: total; gauge: value; histogram: sum */
	double count;	 /* histogram: observations */
	double *buckets; /* histogram: def->nbuckets counts, not cumulative; owned */
	int set;	 /* gauge: value was set */
};

struct callus_metrics {
	struct series *s;
	size_t n, alloc;
};

const callus_metric_def *callus_metric_def_get(callus_metric_id id)
{
	return (unsigned)id < CALLUS_METRIC__COUNT ? &defs[id] : NULL;
}

const callus_metric_def *callus_metric_def_find(const char *name)
{
	for (size_t i = 0; name && i < CALLUS_METRIC__COUNT; i++)
		if (!strcmp(defs[i].name, name))
			return &defs[i];
	return NULL;
}

size_t callus_metric_nlabels(const callus_metric_def *d)
{
	size_t n = 0;

	while (n < CALLUS_METRIC_LABELS_MAX && d->labels[n])
		n++;
	return n;
}

static int ends_with(const callus_buf *b, const char *suffix)
{
	size_t n = strlen(suffix);

	return b->len >= n && !memcmp(b->ptr + b->len - n, suffix, n);
}

int callus_metric_prom_name(callus_buf *out, double *factor, const callus_metric_def *d)
{
	*factor = 1;
	callus_buf_clear(out);
	if (d->prom)
		return callus_buf_puts(out, d->prom);
	for (const char *p = d->name; *p; p++) {
		int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			 (*p >= '0' && *p <= '9' && p != d->name) || *p == '_' || *p == ':';
		callus_buf_putc(out, ok ? *p : '_');
	}
	if (ends_with(out, "_ms")) {
		callus_buf_truncate(out, out->len - 3);
		callus_buf_puts(out, "_seconds");
		*factor = 0.001;
	}
	if (d->type == CALLUS_METRIC_TYPE_COUNTER && !ends_with(out, "_total"))
		callus_buf_puts(out, "_total");
	return callus_buf_status(out);
}

int callus_metrics_new(callus_metrics **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : CALLUS_ENOMEM;
}

void callus_metrics_clear(callus_metrics *m)
{
	for (size_t i = 0; m && i < m->n; i++) {
		free(m->s[i].labels);
		free(m->s[i].buckets);
	}
	if (m)
		m->n = 0;
}

void callus_metrics_free(callus_metrics *m)
{
	if (!m)
		return;
	callus_metrics_clear(m);
	free(m->s);
	free(m);
}

int callus_metrics_is_empty(const callus_metrics *m)
{
	return !m || !m->n;
}

/* The canonical labels of a series: a compact JSON object with the
 * metric's label names in declaration order, so that one combination of
 * values is always the same text (the store's key). */
static char *labels_json(const callus_metric_def *d, const char *const *values, json_t *from)
{
	json_t *o = json_object();
	char *s = NULL;

	if (!o)
		return NULL;
	for (size_t i = 0; i < callus_metric_nlabels(d); i++) {
		const char *v =
		    values ? values[i] : json_string_value(json_object_get(from, d->labels[i]));

		if (json_object_set_new(o, d->labels[i], json_string(v ? v : "")) < 0)
			goto out;
	}
	s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
out:
	json_decref(o);
	return s;
}

/* The series of d with these labels (owned: taken over or freed). */
static struct series *series_get(callus_metrics *m, const callus_metric_def *d, char *labels)
{
	struct series *s;

	if (!labels)
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		if (m->s[i].def == d && !strcmp(m->s[i].labels, labels)) {
			free(labels);
			return &m->s[i];
		}
	if (m->n == m->alloc) {
		size_t na = m->alloc ? m->alloc * 2 : 8;
		struct series *p = realloc(m->s, na * sizeof(*p));

		if (!p)
			goto fail;
		m->s = p;
		m->alloc = na;
	}
	s = &m->s[m->n];
	memset(s, 0, sizeof(*s));
	if (d->nbuckets && !(s->buckets = calloc(d->nbuckets, sizeof(double))))
		goto fail;
	s->def = d;
	s->labels = labels;
	m->n++;
	return s;
fail:
	free(labels);
	return NULL;
}

static struct series *lookup(callus_metrics *m, callus_metric_id id, callus_metric_type type,
			     const char *const *labels, int *rc)
{
	const callus_metric_def *d = callus_metric_def_get(id);
	struct series *s;

	*rc = 0;
	if (!m || !d || d->type != type) {
		*rc = CALLUS_EINVAL;
		return NULL;
	}
	if (!(s = series_get(m, d, labels_json(d, labels, NULL))))
		*rc = CALLUS_ENOMEM;
	return s;
}

int callus_metrics_add(callus_metrics *m, callus_metric_id id, const char *const *labels, double delta)
{
	int rc;
	struct series *s = lookup(m, id, CALLUS_METRIC_TYPE_COUNTER, labels, &rc);

	if (s)
		s->value += delta;
	return rc;
}

static void observe(struct series *s, double value, double times)
{
	const callus_metric_def *d = s->def;
	size_t i = 0;

	/* a bucket counts the observations up to its bound; the ones past
	 * the last bound are only in the count (+Inf) */
	while (i < d->nbuckets && value > d->buckets[i])
		i++;
	if (i < d->nbuckets)
		s->buckets[i] += times;
	s->count += times;
	s->value += value * times;
}

int callus_metrics_observe(callus_metrics *m, callus_metric_id id, const char *const *labels,
			 double value)
{
	int rc;
	struct series *s = lookup(m, id, CALLUS_METRIC_TYPE_HISTOGRAM, labels, &rc);

	if (s)
		observe(s, value, 1);
	return rc;
}

int callus_metrics_set(callus_metrics *m, callus_metric_id id, const char *const *labels, double value)
{
	int rc;
	struct series *s = lookup(m, id, CALLUS_METRIC_TYPE_GAUGE, labels, &rc);

	if (s) {
		s->value = value;
		s->set = 1;
	}
	return rc;
}

static int format_bound(callus_buf *b, double v)
{
	/* %.17g reads back as the same double: the store's key stays stable */
	return callus_buf_printf(b, "le=%.17g", v);
}

int callus_metrics_each_row(const callus_metrics *m, callus_metrics_row_fn fn, void *ctx)
{
	callus_buf part = CALLUS_BUF_INIT;
	int rc = 0;

	for (size_t i = 0; m && i < m->n && !rc; i++) {
		const struct series *s = &m->s[i];
		callus_metric_row r = { s->def->name, s->labels, "", s->value, 0 };

		if (s->def->type != CALLUS_METRIC_TYPE_HISTOGRAM) {
			r.replace = s->def->type == CALLUS_METRIC_TYPE_GAUGE && s->set;
			rc = fn(ctx, &r);
			continue;
		}
		r.part = "sum";
		if ((rc = fn(ctx, &r)))
			break;
		r.part = "count";
		r.value = s->count;
		if ((rc = fn(ctx, &r)))
			break;
		for (size_t b = 0; b < s->def->nbuckets && !rc; b++) {
			if (s->buckets[b] == 0)
				continue;
			callus_buf_clear(&part);
			if (format_bound(&part, s->def->buckets[b]) < 0) {
				rc = CALLUS_ENOMEM;
				break;
			}
			r.part = part.ptr;
			r.value = s->buckets[b];
			rc = fn(ctx, &r);
		}
	}
	callus_buf_release(&part);
	return rc;
}

int callus_metrics_add_row(callus_metrics *m, const callus_metric_row *r)
{
	const callus_metric_def *d = callus_metric_def_find(r->name);
	json_t *labels;
	struct series *s;
	char *end;

	if (!d)
		return 0;
	/* counters and histograms only grow: a negative or NaN row is none
	 * callus wrote (an edit of the spool by hand), and would make a
	 * counter go down */
	if (d->type != CALLUS_METRIC_TYPE_GAUGE && !(r->value >= 0))
		return 0;
	labels = json_loads(r->labels ? r->labels : "{}", 0, NULL);
	if (!json_is_object(labels)) {
		json_decref(labels);
		return 0;
	}
	s = series_get(m, d, labels_json(d, NULL, labels));
	json_decref(labels);
	if (!s)
		return CALLUS_ENOMEM;
	if (d->type != CALLUS_METRIC_TYPE_HISTOGRAM) {
		if (*r->part)
			return 0;
		/* a gauge is its last value, wherever the row comes from */
		if (d->type == CALLUS_METRIC_TYPE_GAUGE) {
			s->value = r->value;
			s->set = 1;
		} else {
			s->value += r->value;
		}
	} else if (!strcmp(r->part, "sum")) {
		s->value += r->value;
	} else if (!strcmp(r->part, "count")) {
		s->count += r->value;
	} else if (!strncmp(r->part, "le=", 3)) {
		double bound = strtod(r->part + 3, &end);
		size_t b = 0;

		/* a bound this callus does not have (the set changed) counts in
		 * the next one up, which keeps the buckets cumulative-correct */
		while (b < d->nbuckets && d->buckets[b] < bound)
			b++;
		if (end != r->part + 3 && !*end && b < d->nbuckets)
			s->buckets[b] += r->value;
	}
	return 0;
}

static int merge_row(void *ctx, const callus_metric_row *r)
{
	return callus_metrics_add_row(ctx, r);
}

int callus_metrics_merge(callus_metrics *dst, const callus_metrics *src)
{
	return callus_metrics_each_row(src, merge_row, dst);
}

static int by_labels(const void *a, const void *b)
{
	const struct series *x = *(const struct series *const *)a;
	const struct series *y = *(const struct series *const *)b;

	return strcmp(x->labels, y->labels);
}

/* The series of d, sorted by labels; *out is the caller's to free. */
static int family(const callus_metrics *m, const callus_metric_def *d, const struct series ***out,
		  size_t *n)
{
	const struct series **v = NULL;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; m && i < m->n; i++) {
		if (m->s[i].def != d)
			continue;
		if (!v && !(v = calloc(m->n, sizeof(*v))))
			return CALLUS_ENOMEM;
		v[(*n)++] = &m->s[i];
	}
	if (*n > 1)
		qsort(v, *n, sizeof(*v), by_labels);
	*out = v;
	return 0;
}

/* Whether v prints as an integer (without libm: the unit tests do not
 * link it). */
static int integral(double v)
{
	return v > -9e15 && v < 9e15 && v == (double)(long long)v;
}

/* A sample value as Prometheus reads it. */
static void put_number(callus_buf *b, double v)
{
	if (isnan(v))
		callus_buf_puts(b, "NaN");
	else if (isinf(v))
		callus_buf_puts(b, v > 0 ? "+Inf" : "-Inf");
	else if (integral(v))
		callus_buf_printf(b, "%.0f", v);
	else
		callus_buf_printf(b, "%.15g", v);
}

static void put_escaped(callus_buf *b, const char *s, int quotes)
{
	for (; *s; s++) {
		if (*s == '\\')
			callus_buf_puts(b, "\\\\");
		else if (*s == '\n')
			callus_buf_puts(b, "\\n");
		else if (*s == '"' && quotes)
			callus_buf_puts(b, "\\\"");
		else
			callus_buf_putc(b, *s);
	}
}

/* name{k="v",...,le="x"} with the series' labels, and le when given. */
static void put_series(callus_buf *b, const callus_buf *name, const char *suffix,
		       const struct series *s, const char *le)
{
	json_t *o = json_loads(s->labels, 0, NULL);
	const char *k;
	json_t *v;
	int first = 1;

	callus_buf_put(b, name->ptr, name->len);
	callus_buf_puts(b, suffix);
	json_object_foreach(o, k, v)
	{
		callus_buf_puts(b, first ? "{" : ",");
		first = 0;
		callus_buf_printf(b, "%s=\"", k);
		put_escaped(b, json_string_value(v) ? json_string_value(v) : "", 1);
		callus_buf_putc(b, '"');
	}
	if (le) {
		callus_buf_printf(b, "%sle=\"%s\"", first ? "{" : ",", le);
		first = 0;
	}
	if (!first)
		callus_buf_putc(b, '}');
	callus_buf_putc(b, ' ');
	json_decref(o);
}

static const char *type_name(callus_metric_type t)
{
	return t == CALLUS_METRIC_TYPE_COUNTER ? "counter"
	       : t == CALLUS_METRIC_TYPE_GAUGE ? "gauge"
					     : "histogram";
}

int callus_metrics_render_prometheus(callus_buf *out, const callus_metrics *m)
{
	callus_buf name = CALLUS_BUF_INIT, le = CALLUS_BUF_INIT;
	const struct series **v = NULL;
	size_t n;
	double f;
	int rc = 0;

	for (size_t i = 0; i < CALLUS_METRIC__COUNT; i++) {
		const callus_metric_def *d = &defs[i];

		free(v);
		if ((rc = family(m, d, &v, &n)) < 0)
			goto out;
		if (!n)
			continue;
		callus_metric_prom_name(&name, &f, d);
		callus_buf_printf(out, "# HELP %s ", name.ptr);
		put_escaped(out, d->help, 0);
		callus_buf_printf(out, " (%s)\n# TYPE %s %s\n", d->name, name.ptr,
				type_name(d->type));
		for (size_t j = 0; j < n; j++) {
			const struct series *s = v[j];
			double cum = 0;

			if (d->type != CALLUS_METRIC_TYPE_HISTOGRAM) {
				put_series(out, &name, "", s, NULL);
				put_number(out, s->value * f);
				callus_buf_putc(out, '\n');
				continue;
			}
			for (size_t b = 0; b < d->nbuckets; b++) {
				cum += s->buckets[b];
				callus_buf_clear(&le);
				put_number(&le, d->buckets[b] * f);
				put_series(out, &name, "_bucket", s, le.ptr);
				put_number(out, cum);
				callus_buf_putc(out, '\n');
			}
			put_series(out, &name, "_bucket", s, "+Inf");
			put_number(out, s->count);
			callus_buf_putc(out, '\n');
			put_series(out, &name, "_sum", s, NULL);
			put_number(out, s->value * f);
			callus_buf_putc(out, '\n');
			put_series(out, &name, "_count", s, NULL);
			put_number(out, s->count);
			callus_buf_putc(out, '\n');
		}
	}
out:
	free(v);
	callus_buf_release(&name);
	callus_buf_release(&le);
	if (!rc &&
	    (callus_buf_status(out) < 0 || callus_buf_status(&name) < 0 || callus_buf_status(&le) < 0))
		rc = CALLUS_ENOMEM;
	return rc;
}

static json_t *json_number(double v)
{
	if (integral(v))
		return json_integer((json_int_t)v);
	return json_real(v);
}

static json_t *series_json(const struct series *s)
{
	const callus_metric_def *d = s->def;
	json_t *o = json_object(), *buckets;
	double cum = 0;

	json_object_set_new(o, "labels", json_loads(s->labels, 0, NULL));
	if (d->type != CALLUS_METRIC_TYPE_HISTOGRAM) {
		json_object_set_new(o, "value", json_number(s->value));
		return o;
	}
	json_object_set_new(o, "count", json_number(s->count));
	json_object_set_new(o, "sum", json_number(s->value));
	buckets = json_array();
	for (size_t b = 0; b < d->nbuckets; b++) {
		cum += s->buckets[b];
		json_array_append_new(buckets,
				      json_pack("{s:o,s:o}", "le", json_number(d->buckets[b]),
						"count", json_number(cum)));
	}
	json_array_append_new(buckets,
			      json_pack("{s:s,s:o}", "le", "+Inf", "count", json_number(s->count)));
	json_object_set_new(o, "buckets", buckets);
	return o;
}

int callus_metrics_render_json(callus_buf *out, const callus_metrics *m)
{
	callus_buf name = CALLUS_BUF_INIT;
	const struct series **v = NULL;
	json_t *root = json_object(), *all = json_array();
	char *text = NULL;
	size_t n;
	double f;
	int rc = 0;

	json_object_set_new(root, "metrics", all);
	for (size_t i = 0; i < CALLUS_METRIC__COUNT; i++) {
		const callus_metric_def *d = &defs[i];
		json_t *o = json_object(), *labels = json_array(), *series = json_array();

		free(v);
		if ((rc = family(m, d, &v, &n)) < 0) {
			json_decref(o);
			json_decref(labels);
			json_decref(series);
			goto out;
		}
		callus_metric_prom_name(&name, &f, d);
		for (size_t l = 0; l < callus_metric_nlabels(d); l++)
			json_array_append_new(labels, json_string(d->labels[l]));
		for (size_t j = 0; j < n; j++)
			json_array_append_new(series, series_json(v[j]));
		json_object_set_new(o, "name", json_string(d->name));
		json_object_set_new(o, "prometheus", json_string(name.ptr));
		json_object_set_new(o, "type", json_string(type_name(d->type)));
		json_object_set_new(o, "help", json_string(d->help));
		json_object_set_new(o, "labels", labels);
		json_object_set_new(o, "series", series);
		json_array_append_new(all, o);
	}
	if (!(text = json_dumps(root, JSON_INDENT(2) | JSON_ENSURE_ASCII)) ||
	    callus_buf_puts(out, text) < 0 || callus_buf_putc(out, '\n') < 0)
		rc = CALLUS_ENOMEM;
out:
	free(text);
	free(v);
	json_decref(root);
	callus_buf_release(&name);
	return rc;
}

/*
 * The spool.  Writers append one line (a JSON array of rows) under an
 * exclusive flock; the reader that takes it empties it under the same
 * lock.  Emptied, not unlinked: every hook leaves its own metrics there
 * when it is done with the store and the next recording takes them, and
 * a file made and removed each time is an inode allocated and freed a
 * hook (dear on ext4 without a journal, which skips the recently freed
 * ones).  A writer that got the lock on a file unlinked meanwhile (by
 * hand, or by an older callus that removed what it took) sees that its
 * inode is no longer the one at the path and starts again, so no line
 * goes to a dead file.
 */
#define SPOOL_LOCK_MS 1000

static int lock_polled(int fd)
{
	struct timespec nap = { 0, 1000000 };
	long waited_ms = 0;

	/* never block for long: the hook has a deadline to keep */
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK || waited_ms >= SPOOL_LOCK_MS)
			return -1;
		nanosleep(&nap, NULL);
		waited_ms += 1;
	}
	return 0;
}

/* Open path locked, still linked at path; -1 when it cannot (or, without
 * create, when there is no spool). */
static int open_locked(const char *path, int flags)
{
	for (int attempt = 0; attempt < 5; attempt++) {
		struct stat a, b;
		/* a FIFO or a file linked from elsewhere is no spool (fsutil.h) */
		int fd = callus_fs_open_own(path, flags, 0600);

		if (fd < 0)
			return -1;
		if (lock_polled(fd) < 0) {
			close(fd);
			return -1;
		}
		if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev)
			return fd;
		close(fd);
	}
	return -1;
}

static int spool_row(void *ctx, const callus_metric_row *r)
{
	json_t *a = ctx;

	return json_array_append_new(a, json_pack("[s,s,s,f,b]", r->name, r->labels, r->part,
						  r->value, r->replace)) < 0
		   ? CALLUS_ENOMEM
		   : 0;
}

char *callus_metrics_spool_line(const callus_metrics *m)
{
	json_t *rows = json_array();
	char *line = NULL;

	if (rows && callus_metrics_each_row(m, spool_row, rows) == 0)
		line = json_dumps(rows, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(rows);
	return line;
}

int callus_metrics_spool_put(const callus_metrics *m, const char *callus_dir)
{
	callus_buf path = CALLUS_BUF_INIT;
	char *line = NULL;
	struct stat st;
	int fd = -1, rc = -1;

	if (callus_metrics_is_empty(m)) {
		rc = 0;
		goto out;
	}
	if (!(line = callus_metrics_spool_line(m)) ||
	    callus_buf_printf(&path, "%s/%s", callus_dir, CALLUS_METRICS_SPOOL) < 0)
		goto out;
	/* the spool is written in the workspace or nowhere */
	if (callus_workspace_guard_dir(callus_dir, NULL) < 0 ||
	    (fd = open_locked(path.ptr, O_RDWR | O_APPEND | O_CREAT)) < 0)
		goto out;
	if (fstat(fd, &st) < 0 || st.st_size > CALLUS_METRICS_SPOOL_MAX)
		goto out;
	rc = callus_fs_append_line(fd, line) == 0 ? 0 : -1;
out:
	if (fd >= 0)
		close(fd);
	free(line);
	callus_buf_release(&path);
	return rc;
}

static int spool_parse(callus_metrics *m, const char *text)
{
	const char *line = text;
	int rc = 0;

	while (*line && !rc) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		json_t *rows = json_loadb(line, len, 0, NULL), *row;
		size_t i;

		/* a torn or foreign line is skipped, not fatal */
		json_array_foreach(rows, i, row)
		{
			callus_metric_row r = { json_string_value(json_array_get(row, 0)),
					      json_string_value(json_array_get(row, 1)),
					      json_string_value(json_array_get(row, 2)),
					      json_number_value(json_array_get(row, 3)),
					      json_is_true(json_array_get(row, 4)) };

			if (r.name && r.labels && r.part && (rc = callus_metrics_add_row(m, &r)) < 0)
				break;
		}
		json_decref(rows);
		line += len + (nl ? 1 : 0);
	}
	return rc;
}

int callus_metrics_spool_read(callus_metrics *m, const char *callus_dir, int take)
{
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	char chunk[8192];
	int fd = -1, rc = 0;

	if (callus_buf_printf(&path, "%s/%s", callus_dir, CALLUS_METRICS_SPOOL) < 0) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	if ((fd = open_locked(path.ptr, take ? O_RDWR : O_RDONLY)) < 0) {
		rc = errno == ENOENT ? 0 : CALLUS_EIO;
		goto out;
	}
	callus_buf_init(&text, 2 * CALLUS_METRICS_SPOOL_MAX);
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || callus_buf_put(&text, chunk, (size_t)n) < 0)
			break;
	}
	if ((rc = spool_parse(m, text.ptr)) < 0)
		goto out;
	/* Still under the lock: no writer can append to what we took; one
	 * that cannot be emptied goes, as before.  Emptied to a blank line,
	 * which reads as no row (callus_fs_blank: the next hook's append
	 * then costs no write to the disk); one of blank lines only is left
	 * as it is (a truncation would still write its inode). */
	if (take && strspn(text.ptr, "\n") < text.len && callus_fs_blank(fd) < 0)
		unlink(path.ptr);
out:
	if (fd >= 0)
		close(fd);
	callus_buf_release(&path);
	callus_buf_release(&text);
	return rc;
}

/*
 * metrics.h - counters, gauges and histograms with labels (DESIGN.md §8,
 * spec 004 "Observability"), buffered in the process and persisted in the
 * store.
 *
 * A command collects what it measures in a deja_metrics buffer (cheap:
 * memory only) and the store writes the buffer once, in the transaction of
 * the data it describes (deja_run_info.metrics, deja_store_flush_metrics).
 * Stored values are deltas added with upserts, so concurrent deja
 * processes never lose each other's counts.  When the store cannot be
 * written (locked, corrupt, read-only: the fail-safe path), the buffer goes
 * to a spool file next to it and the next command that writes the store
 * folds it in, in the same transaction.
 *
 * Every metric is declared once, in DEJA_METRICS below: adding one is one
 * entry there, and its id, name, type, labels, buckets and help follow.
 *
 * Ownership: a deja_metrics is the caller's, freed with deja_metrics_free();
 * the definitions are static; label values are copied.
 */
#ifndef DEJA_METRICS_H
#define DEJA_METRICS_H

#include <stddef.h>

#include "deja/buf.h"
#include "deja/common.h"

/*
 * X(ID, name, type, ("label", ...) or DEJA_NOLABELS, buckets, exposition
 *   name or NULL, help)
 *
 * name is the one spec 004 gives (or deja.* for deja's own); the
 * Prometheus name is derived from it (deja_metric_prom_name) unless given.
 * buckets names a set in src/metrics.c, in the metric's own unit (ms for
 * *_ms).  Match and resolution metrics come from src/match.c and
 * src/learn.c; promotion is declared for the feature that will emit it.
 */
#define DEJA_NOLABELS (NULL)

#define DEJA_METRICS(X) \
	X(CAPTURE_TOTAL, "hindsight.capture.total", COUNTER, ("error_type", "layer"), NONE, \
	  NULL, "Error signatures captured: failures recorded as a lesson or an occurrence") \
	X(CAPTURE_SIGNATURE_SIZE, "hindsight.capture.signature_size_bytes", HISTOGRAM, \
	  DEJA_NOLABELS, BYTES, NULL, "Size of a captured signature's stored record") \
	X(MATCH_LATENCY, "hindsight.match.latency_ms", HISTOGRAM, DEJA_NOLABELS, LATENCY_MS, \
	  NULL, "Time taken to match an error against the known signatures") \
	X(MATCH_TOTAL, "hindsight.match.total", COUNTER, ("match_type", "found"), NONE, \
	  NULL, "Matches attempted, by kind of match and whether one was found") \
	X(MATCH_RESULTS, "hindsight.match.results_count", HISTOGRAM, DEJA_NOLABELS, COUNTS, \
	  NULL, "Candidates a match returned") \
	X(RESOLUTION_APPLICATIONS, "hindsight.resolution.applications", COUNTER, \
	  ("success", "layer"), NONE, NULL, "Resolutions applied, by outcome and layer") \
	X(RESOLUTION_SUCCESS_RATE, "hindsight.resolution.success_rate", HISTOGRAM, \
	  DEJA_NOLABELS, RATIO, NULL, "Success rate of the resolutions applied") \
	X(PROMOTION_TOTAL, "hindsight.promotion.total", COUNTER, \
	  ("from_layer", "to_layer", "status"), NONE, NULL, \
	  "Promotions proposed or completed between layers") \
	X(STORAGE_COUNT, "hindsight.storage.count", GAUGE, ("layer"), NONE, \
	  "hindsight_storage_notes", "Notes (lessons) stored, per layer") \
	X(HOOK_LATENCY, "deja.hook.latency_ms", HISTOGRAM, ("agent", "path"), LATENCY_MS, \
	  NULL, "Time deja hook took from start to reply, on the paths that use the store") \
	X(FAILSAFE_DROPPED, "deja.failsafe.dropped_total", COUNTER, ("reason"), NONE, \
	  NULL, "Failures deja could not record (the command's result was passed through)") \
	X(RUN_TOTAL, "deja.run.total", COUNTER, ("recorded"), NONE, \
	  NULL, "Failed checks seen by deja run, by whether their lesson was recorded")

typedef enum deja_metric_id {
#define DEJA_METRIC_ENUM_(id, name, type, labels, buckets, prom, help) DEJA_METRIC_##id,
	DEJA_METRICS(DEJA_METRIC_ENUM_)
#undef DEJA_METRIC_ENUM_
	DEJA_METRIC__COUNT
} deja_metric_id;

typedef enum deja_metric_type {
	DEJA_METRIC_TYPE_COUNTER,   /* adds up */
	DEJA_METRIC_TYPE_GAUGE,     /* the last value set */
	DEJA_METRIC_TYPE_HISTOGRAM  /* count, sum and per-bucket counts of observations */
} deja_metric_type;

#define DEJA_METRIC_LABELS_MAX 4

/* One declared metric.  Static. */
typedef struct deja_metric_def {
	deja_metric_id id;
	const char *name;       /* "hindsight.capture.total" */
	deja_metric_type type;
	const char *labels[DEJA_METRIC_LABELS_MAX]; /* names, declaration order;
						     * NULL after the last */
	const double *buckets;  /* histograms: upper bounds, ascending */
	size_t nbuckets;
	const char *prom;       /* exposition name when not derived, or NULL */
	const char *help;
} deja_metric_def;

/* The definition of id, or by name (NULL when unknown: a newer deja's). */
const deja_metric_def *deja_metric_def_get(deja_metric_id id);
const deja_metric_def *deja_metric_def_find(const char *name);

/* How many labels d has. */
size_t deja_metric_nlabels(const deja_metric_def *d);

/*
 * The Prometheus name of d into out (cleared first), and the factor that
 * converts its values to that name's unit.  Prometheus wants names of
 * [a-zA-Z0-9_:], base units and counters ending in _total: dots and other
 * characters become '_', a trailing "_ms" becomes "_seconds" (factor
 * 0.001), and a counter gains "_total" when it lacks it.  d->prom, when
 * set, is used as is.
 */
int deja_metric_prom_name(deja_buf *out, double *factor, const deja_metric_def *d);

typedef struct deja_metrics deja_metrics;

int deja_metrics_new(deja_metrics **out);
void deja_metrics_free(deja_metrics *m); /* accepts NULL */
void deja_metrics_clear(deja_metrics *m);
int deja_metrics_is_empty(const deja_metrics *m);

/*
 * Record into the buffer.  labels holds the values of the metric's labels
 * in declaration order (NULL when it has none; a NULL value is "").
 * DEJA_EINVAL when the call does not fit the definition (wrong type),
 * DEJA_ENOMEM.  Callers on the recording path ignore the result: metrics
 * never make a command fail.
 */
int deja_metrics_add(deja_metrics *m, deja_metric_id id, const char *const *labels, double delta);
int deja_metrics_observe(deja_metrics *m, deja_metric_id id, const char *const *labels,
			 double value);
int deja_metrics_set(deja_metrics *m, deja_metric_id id, const char *const *labels, double value);

/* Add everything of src to dst (gauges: src's value wins). */
int deja_metrics_merge(deja_metrics *dst, const deja_metrics *src);

/*
 * The buffer as rows, the form the store and the spool keep: the metric's
 * name, its labels as a compact JSON object (keys in declaration order),
 * a part ("" for a counter or gauge; "sum", "count" or "le=<bound>" for a
 * histogram, bucket counts not cumulative) and a value to add (replace:
 * to set, for gauges).  Borrowed strings, valid during the callback.
 */
typedef struct deja_metric_row {
	const char *name;
	const char *labels;
	const char *part;
	double value;
	int replace;
} deja_metric_row;

typedef int (*deja_metrics_row_fn)(void *ctx, const deja_metric_row *row);

/* Call fn for every row; stops at and returns the first non-zero result. */
int deja_metrics_each_row(const deja_metrics *m, deja_metrics_row_fn fn, void *ctx);

/* Add one row back.  Rows of unknown metrics or parts are skipped (0): a
 * store written by a newer deja stays readable. */
int deja_metrics_add_row(deja_metrics *m, const deja_metric_row *row);

/*
 * Render every declared metric with at least one series (gauges with none
 * are left out too), in declaration order, series sorted by labels.
 * Prometheus text exposition format 0.0.4: HELP and TYPE lines, histograms
 * as cumulative _bucket{le=...} (ending with +Inf), _sum and _count, values
 * in the exposition unit.  JSON: {"metrics": [{name, prometheus, type,
 * help, labels, series: [...]}]} for every declared metric, in the
 * metric's own unit (docs/metrics.md).  Appends to out.
 */
int deja_metrics_render_prometheus(deja_buf *out, const deja_metrics *m);
int deja_metrics_render_json(deja_buf *out, const deja_metrics *m);

/* The spool in a workspace's .deja directory. */
#define DEJA_METRICS_SPOOL "metrics.pending"
/* Past this size the spool takes no more: a store broken for good must
 * not grow it without bound. */
#define DEJA_METRICS_SPOOL_MAX (256 * 1024)

/*
 * Append m's rows to deja_dir's spool.  Safe against concurrent _put and
 * _take (flock).  Best-effort: 0 when written.
 */
int deja_metrics_spool_put(const deja_metrics *m, const char *deja_dir);

/*
 * Add the spool's rows to m; with take, delete the spool too (a caller
 * that then fails to store them puts them back with _put).  0 when there
 * is no spool.  On failure the spool is left as it was (m may hold part
 * of it).
 */
int deja_metrics_spool_read(deja_metrics *m, const char *deja_dir, int take);

#endif

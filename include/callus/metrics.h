/*
 * metrics.h - counters, gauges and histograms with labels (DESIGN.md §8,
 * spec 004 "Observability"), buffered in the process and persisted in the
 * store.
 *
 * A command collects what it measures in a callus_metrics buffer (cheap:
 * memory only) and the store writes the buffer once, in the transaction of
 * the data it describes (callus_run_info.metrics, callus_store_flush_metrics).
 * Stored values are deltas added with upserts, so concurrent callus
 * processes never lose each other's counts.  When the store cannot be
 * written (locked, corrupt, read-only: the fail-safe path), the buffer goes
 * to a spool file next to it and the next command that writes the store
 * folds it in, in the same transaction.
 *
 * Every metric is declared once, in CALLUS_METRICS below: adding one is one
 * entry there, and its id, name, type, labels, buckets and help follow.
 *
 * Ownership: a callus_metrics is the caller's, freed with callus_metrics_free();
 * the definitions are static; label values are copied.
 */
#ifndef CALLUS_METRICS_H
#define CALLUS_METRICS_H

#include <stddef.h>

#include "callus/buf.h"
#include "callus/common.h"

/*
 * X(ID, name, type, ("label", ...) or CALLUS_NOLABELS, buckets, exposition
 *   name or NULL, help)
 *
 * name is the one spec 004 gives (or callus.* for callus's own); the
 * Prometheus name is derived from it (callus_metric_prom_name) unless given.
 * buckets names a set in src/metrics.c, in the metric's own unit (ms for
 * *_ms).  Match and resolution metrics come from src/match.c and
 * src/learn.c; promotion is declared for the feature that will emit it.
 */
#define CALLUS_NOLABELS (NULL)

#define CALLUS_METRICS(X) \
	X(CAPTURE_TOTAL, "hindsight.capture.total", COUNTER, ("error_type", "layer"), NONE, \
	  NULL, "Error signatures captured: failures recorded as a lesson or an occurrence") \
	X(CAPTURE_SIGNATURE_SIZE, "hindsight.capture.signature_size_bytes", HISTOGRAM, \
	  CALLUS_NOLABELS, BYTES, NULL, "Size of a captured signature's stored record") \
	X(MATCH_LATENCY, "hindsight.match.latency_ms", HISTOGRAM, CALLUS_NOLABELS, LATENCY_MS, \
	  NULL, "Time taken to match an error against the known signatures") \
	X(MATCH_TOTAL, "hindsight.match.total", COUNTER, ("match_type", "found"), NONE, \
	  NULL, "Matches attempted, by kind of match and whether one was found") \
	X(MATCH_RESULTS, "hindsight.match.results_count", HISTOGRAM, CALLUS_NOLABELS, COUNTS, \
	  NULL, "Candidates a match returned") \
	X(RESOLUTION_APPLICATIONS, "hindsight.resolution.applications", COUNTER, \
	  ("success", "layer"), NONE, NULL, "Resolutions applied, by outcome and layer") \
	X(RESOLUTION_SUCCESS_RATE, "hindsight.resolution.success_rate", HISTOGRAM, \
	  CALLUS_NOLABELS, RATIO, NULL, "Success rate of the resolutions applied") \
	X(PROMOTION_TOTAL, "hindsight.promotion.total", COUNTER, \
	  ("from_layer", "to_layer", "status"), NONE, NULL, \
	  "Promotions proposed or completed between layers") \
	X(STORAGE_COUNT, "hindsight.storage.count", GAUGE, ("layer"), NONE, \
	  "hindsight_storage_notes", "Notes (lessons) stored, per layer") \
	X(HOOK_LATENCY, "callus.hook.latency_ms", HISTOGRAM, ("agent", "path"), LATENCY_MS, \
	  NULL, "Time callus hook took from start to reply, on the paths that use the store") \
	X(FAILSAFE_DROPPED, "callus.failsafe.dropped_total", COUNTER, ("reason"), NONE, \
	  NULL, "Failures callus could not record (the command's result was passed through)") \
	X(RUN_TOTAL, "callus.run.total", COUNTER, ("recorded"), NONE, \
	  NULL, "Failed checks seen by callus run, by whether their lesson was recorded") \
	X(HOOK_DEFERRED, "callus.hook.deferred_total", COUNTER, CALLUS_NOLABELS, NONE, NULL, \
	  "Failures recorded and passes learnt from the hook's queue: the hook that saw them " \
	  "was cut by its deadline or found the store busy") \
	X(HOOK_CUT, "callus.hook.cut_total", COUNTER, ("stage"), NONE, NULL, \
	  "Hooks cut by their deadline, by stage: reading (the hook replied and a detached " \
	  "copy recorded the failure), recording (the failure was queued for the drainer), " \
	  "learning (after the failure was stored), pass (a passing check, queued) or " \
	  "unqueued (its queue entry could not be written: what it had not stored is lost)")

typedef enum callus_metric_id {
#define CALLUS_METRIC_ENUM_(id, name, type, labels, buckets, prom, help) CALLUS_METRIC_##id,
	CALLUS_METRICS(CALLUS_METRIC_ENUM_)
#undef CALLUS_METRIC_ENUM_
	CALLUS_METRIC__COUNT
} callus_metric_id;

typedef enum callus_metric_type {
	CALLUS_METRIC_TYPE_COUNTER,   /* adds up */
	CALLUS_METRIC_TYPE_GAUGE,     /* the last value set */
	CALLUS_METRIC_TYPE_HISTOGRAM  /* count, sum and per-bucket counts of observations */
} callus_metric_type;

#define CALLUS_METRIC_LABELS_MAX 4

/* One declared metric.  Static. */
typedef struct callus_metric_def {
	callus_metric_id id;
	const char *name;       /* "hindsight.capture.total" */
	callus_metric_type type;
	const char *labels[CALLUS_METRIC_LABELS_MAX]; /* names, declaration order;
						     * NULL after the last */
	const double *buckets;  /* histograms: upper bounds, ascending */
	size_t nbuckets;
	const char *prom;       /* exposition name when not derived, or NULL */
	const char *help;
} callus_metric_def;

/* The definition of id, or by name (NULL when unknown: a newer callus's). */
const callus_metric_def *callus_metric_def_get(callus_metric_id id);
const callus_metric_def *callus_metric_def_find(const char *name);

/* How many labels d has. */
size_t callus_metric_nlabels(const callus_metric_def *d);

/*
 * The Prometheus name of d into out (cleared first), and the factor that
 * converts its values to that name's unit.  Prometheus wants names of
 * [a-zA-Z0-9_:], base units and counters ending in _total: dots and other
 * characters become '_', a trailing "_ms" becomes "_seconds" (factor
 * 0.001), and a counter gains "_total" when it lacks it.  d->prom, when
 * set, is used as is.
 */
int callus_metric_prom_name(callus_buf *out, double *factor, const callus_metric_def *d);

typedef struct callus_metrics callus_metrics;

int callus_metrics_new(callus_metrics **out);
void callus_metrics_free(callus_metrics *m); /* accepts NULL */
void callus_metrics_clear(callus_metrics *m);
int callus_metrics_is_empty(const callus_metrics *m);

/*
 * Record into the buffer.  labels holds the values of the metric's labels
 * in declaration order (NULL when it has none; a NULL value is "").
 * CALLUS_EINVAL when the call does not fit the definition (wrong type),
 * CALLUS_ENOMEM.  Callers on the recording path ignore the result: metrics
 * never make a command fail.
 */
int callus_metrics_add(callus_metrics *m, callus_metric_id id, const char *const *labels, double delta);
int callus_metrics_observe(callus_metrics *m, callus_metric_id id, const char *const *labels,
			 double value);
int callus_metrics_set(callus_metrics *m, callus_metric_id id, const char *const *labels, double value);

/* Add everything of src to dst (gauges: src's value wins). */
int callus_metrics_merge(callus_metrics *dst, const callus_metrics *src);

/*
 * The buffer as rows, the form the store and the spool keep: the metric's
 * name, its labels as a compact JSON object (keys in declaration order),
 * a part ("" for a counter or gauge; "sum", "count" or "le=<bound>" for a
 * histogram, bucket counts not cumulative) and a value to add (replace:
 * to set, for gauges).  Borrowed strings, valid during the callback.
 */
typedef struct callus_metric_row {
	const char *name;
	const char *labels;
	const char *part;
	double value;
	int replace;
} callus_metric_row;

typedef int (*callus_metrics_row_fn)(void *ctx, const callus_metric_row *row);

/* Call fn for every row; stops at and returns the first non-zero result. */
int callus_metrics_each_row(const callus_metrics *m, callus_metrics_row_fn fn, void *ctx);

/* Add one row back.  Rows of unknown metrics or parts are skipped (0): a
 * store written by a newer callus stays readable. */
int callus_metrics_add_row(callus_metrics *m, const callus_metric_row *row);

/*
 * Render every declared metric with at least one series (gauges with none
 * are left out too), in declaration order, series sorted by labels.
 * Prometheus text exposition format 0.0.4: HELP and TYPE lines, histograms
 * as cumulative _bucket{le=...} (ending with +Inf), _sum and _count, values
 * in the exposition unit.  JSON: {"metrics": [{name, prometheus, type,
 * help, labels, series: [...]}]} for every declared metric, in the
 * metric's own unit (docs/metrics.md).  Appends to out.
 */
int callus_metrics_render_prometheus(callus_buf *out, const callus_metrics *m);
int callus_metrics_render_json(callus_buf *out, const callus_metrics *m);

/* The spool in a workspace's .callus directory. */
#define CALLUS_METRICS_SPOOL "metrics.pending"
/* Past this size the spool takes no more: a store broken for good must
 * not grow it without bound. */
#define CALLUS_METRICS_SPOOL_MAX (256 * 1024)

/* m's rows as one line of the spool (no newline), what _put appends: NULL
 * without memory.  The caller frees it. */
char *callus_metrics_spool_line(const callus_metrics *m);

/*
 * Append m's rows to callus_dir's spool.  Safe against concurrent _put and
 * _take (flock).  Best-effort: 0 when written.
 */
int callus_metrics_spool_put(const callus_metrics *m, const char *callus_dir);

/*
 * Add the spool's rows to m; with take, empty the spool too, in place (a
 * caller that then fails to store them puts them back with _put).  0 when
 * there is no spool.  On failure the spool is left as it was (m may hold part
 * of it).
 */
int callus_metrics_spool_read(callus_metrics *m, const char *callus_dir, int take);

#endif

/*
 * postgresql.c - the team and org layers in PostgreSQL, for teams on many
 * machines (include/callus/team.h).  Every operation runs the helper
 * callus-pg (helper/callus-pg.c, the only program linked with libpq), so
 * that callus itself never maps libpq: only the commands that open a
 * layer's store get here, never the hook.  The server's schema, its
 * migrations, its roles and its governance are the helper's.
 *
 * The workspace's own knowledge (resolutions, outcomes, metrics) stays in
 * its SQLite store: those operations are refused here.
 */
#include "storage/backend.h"
#include "callus/buf.h"
#include "callus/child.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_OUT_MAX (512u << 20) /* the largest answer: a page of notes */
#define PG_TIMEOUT_MS 60000

extern char **environ;

typedef struct pg {
	char *url;    /* with its scheme: libpq takes the URI whole */
	char *helper;
} pg;

/* Run `callus-pg op` with args on stdin; *out its JSON answer. */
static int call(pg *p, const char *op, json_t *args, json_t **out, callus_error *err)
{
	callus_buf answer = CALLUS_BUF_INIT, var = CALLUS_BUF_INIT;
	char *const argv[] = { p->helper, (char *)op, NULL };
	char *in = json_dumps(args, JSON_COMPACT);
	char **envp = NULL;
	size_t n = 0, k = 0;
	callus_child_opts o;
	json_error_t je;
	int rc;

	*out = NULL;
	while (environ[n])
		n++;
	if (!in || callus_buf_printf(&var, "CALLUS_PG_URL=%s", p->url) < 0 ||
	    !(envp = calloc(n + 2, sizeof(*envp)))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	/* the URL (it may hold a password) goes by the environment only */
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "CALLUS_PG_URL=", 14))
			envp[k++] = environ[i];
	envp[k++] = var.ptr;
	memset(&o, 0, sizeof(o));
	o.what = "PostgreSQL helper";
	o.argv = argv;
	o.envp = envp;
	o.input = in;
	o.input_len = strlen(in);
	o.out_max = PG_OUT_MAX;
	o.timeout_ms = PG_TIMEOUT_MS;
	if ((rc = callus_child_run(&answer, &o, err)) < 0)
		goto out;
	if (!(*out = json_loadb(answer.ptr ? answer.ptr : "", answer.len, 0, &je)))
		rc = callus_error_set(err, CALLUS_EIO, "the PostgreSQL helper's answer is not JSON: %s",
				      je.text);
out:
	free(envp);
	free(in);
	callus_buf_release(&var);
	callus_buf_release(&answer);
	json_decref(args);
	return rc;
}

static int pg_open(void **handle, const char *location, int timeout_ms, callus_error *err)
{
	pg *p = calloc(1, sizeof(*p));
	json_t *v = NULL;
	int rc;

	(void)timeout_ms;
	*handle = NULL;
	if (!p)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if (!(p->helper = callus_child_sibling("CALLUS_PG_HELPER", "callus-pg"))) {
		free(p);
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	}
	{
		size_t n = strlen(location);

		/* knowledge.c strips the scheme; libpq wants it back */
		if (!(p->url = malloc(n + sizeof("postgresql://")))) {
			free(p->helper);
			free(p);
			return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		}
		snprintf(p->url, n + sizeof("postgresql://"), "postgresql://%s", location);
	}
	/* the schema brought up to date (by a role that may), else read */
	if ((rc = call(p, "migrate", json_object(), &v, err)) < 0) {
		free(p->url);
		free(p->helper);
		free(p);
		return rc;
	}
	json_decref(v);
	*handle = p;
	return 0;
}

static void pg_close(void *handle)
{
	pg *p = handle;

	if (!p)
		return;
	free(p->url);
	free(p->helper);
	free(p);
}

static int refused(callus_error *err)
{
	return callus_error_set(err, CALLUS_EINVAL,
				"a PostgreSQL store keeps the layers' notes only: resolutions,"
				" outcomes and metrics stay in the workspace's store");
}

static int pg_resolutions(void *handle, const char *signature_id, int limit,
			  callus_resolution **out, size_t *count, callus_error *err)
{
	(void)handle, (void)signature_id, (void)limit, (void)out, (void)count;
	return refused(err);
}

static int pg_resolution(void *handle, int64_t id, callus_resolution *out, callus_error *err)
{
	(void)handle, (void)id, (void)out;
	return refused(err);
}

static int pg_feedback(void *handle, int64_t id, int success, const char *note, callus_metrics *m,
		       callus_error *err)
{
	(void)handle, (void)id, (void)success, (void)note, (void)m;
	return refused(err);
}

static int pg_metrics(void *handle, callus_metrics *m, callus_error *err)
{
	(void)handle, (void)m;
	return refused(err);
}

static char *dup_field(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return strdup(v ? v : "");
}

/* The helper's notes into *out. */
static int read_notes(json_t *a, callus_shared_note **out, size_t *count, callus_error *err)
{
	size_t n = json_array_size(a), i;
	callus_shared_note *v;
	json_t *o;

	*out = NULL;
	*count = 0;
	if (!json_is_array(a))
		return callus_error_set(err, CALLUS_EIO, "the PostgreSQL helper's answer is no list");
	if (!n)
		return 0;
	if (!(v = calloc(n, sizeof(*v))))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	json_array_foreach(a, i, o) {
		callus_shared_note *x = &v[i];
		const char *id = json_string_value(json_object_get(o, "id"));

		snprintf(x->id, sizeof(x->id), "%s", id ? id : "");
		if (callus_layer_parse(&x->layer, json_string_value(json_object_get(o, "layer"))) < 0)
			x->layer = CALLUS_LAYER_TEAM;
		callus_shared_status_parse(&x->status, json_string_value(json_object_get(o, "status")));
		x->revision = json_integer_value(json_object_get(o, "revision"));
		x->applications = json_integer_value(json_object_get(o, "applications"));
		x->successes = json_integer_value(json_object_get(o, "successes"));
		if (!(x->signature_id = dup_field(o, "signature_id")) ||
		    !(x->tool = dup_field(o, "tool")) || !(x->error_type = dup_field(o, "error_type")) ||
		    !(x->title = dup_field(o, "title")) || !(x->example = dup_field(o, "example")) ||
		    !(x->rule = dup_field(o, "rule")) || !(x->steps = dup_field(o, "steps")) ||
		    !(x->code = dup_field(o, "code")) || !(x->files = dup_field(o, "files")) ||
		    !(x->origin = dup_field(o, "origin")) || !(x->path = dup_field(o, "path")) ||
		    !(x->proposed_by = dup_field(o, "proposed_by")) ||
		    !(x->proposed_at = dup_field(o, "proposed_at")) ||
		    !(x->decided_by = dup_field(o, "decided_by")) ||
		    !(x->decided_at = dup_field(o, "decided_at")) || !(x->why = dup_field(o, "why"))) {
			callus_shared_notes_free(v, n);
			return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		}
	}
	*out = v;
	*count = n;
	return 0;
}

static int pg_propose(void *handle, const callus_shared_note *n, int *created, callus_error *err)
{
	json_t *a = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}",
			      "layer", callus_layer_name(n->layer), "id", n->id, "signature_id",
			      n->signature_id ? n->signature_id : "", "tool", n->tool ? n->tool : "",
			      "error_type", n->error_type ? n->error_type : "", "title",
			      n->title ? n->title : "", "example", n->example ? n->example : "",
			      "rule", n->rule ? n->rule : "", "steps", n->steps ? n->steps : "",
			      "code", n->code ? n->code : "", "files",
			      n->files && *n->files ? n->files : "[]", "origin",
			      n->origin ? n->origin : "", "path", n->path ? n->path : "",
			      "proposed_by", n->proposed_by ? n->proposed_by : "");
	json_t *v = NULL;
	int rc;

	*created = 0;
	if (!a)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if ((rc = call(handle, "propose", a, &v, err)) == 0)
		*created = json_is_true(json_object_get(v, "created"));
	json_decref(v);
	return rc;
}

static int notes_call(void *handle, const char *op, json_t *a, callus_shared_note **out,
		      size_t *count, callus_error *err)
{
	json_t *v = NULL;
	int rc;

	if (!a)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if ((rc = call(handle, op, a, &v, err)) == 0)
		rc = read_notes(v, out, count, err);
	json_decref(v);
	return rc;
}

static int pg_shared_list(void *handle, callus_layer l, int all, callus_shared_note **out,
			  size_t *count, callus_error *err)
{
	return notes_call(handle, "list",
			  json_pack("{s:s, s:b}", "layer", callus_layer_name(l), "all", all), out,
			  count, err);
}

static int pg_shared_get(void *handle, callus_layer l, const char *id, callus_shared_note *out,
			 callus_error *err)
{
	callus_shared_note *v = NULL;
	size_t n = 0;
	int rc = notes_call(handle, "get",
			    json_pack("{s:s, s:s}", "layer", callus_layer_name(l), "id", id), &v,
			    &n, err);

	if (rc < 0)
		return rc;
	if (n == 1) {
		*out = v[0];
		memset(&v[0], 0, sizeof(v[0]));
	} else {
		rc = n ? callus_error_set(err, CALLUS_EINVAL, "'%s' names more than one note", id)
		       : callus_error_set(err, CALLUS_ENOTFOUND, "no note %s in the %s layer", id,
					  callus_layer_name(l));
	}
	callus_shared_notes_free(v, n);
	return rc;
}

static int pg_decide(void *handle, callus_layer l, const char *id, callus_shared_status to,
		     const char *who, const char *why, callus_error *err)
{
	/* the server records its own idea of who: the session's role */
	json_t *a = json_pack("{s:s, s:s, s:s, s:s}", "layer", callus_layer_name(l), "id", id,
			      "status", callus_shared_status_name(to), "why", why);
	json_t *v = NULL;
	int rc;

	(void)who;
	if (!a)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	rc = call(handle, "decide", a, &v, err);
	if (rc == 0 && !json_is_true(json_object_get(v, "changed")))
		rc = callus_error_set(err, CALLUS_ENOTFOUND, "no %s note %s in the %s layer",
				      to == CALLUS_SHARED_RETIRED ? "approved" : "proposed", id,
				      callus_layer_name(l));
	json_decref(v);
	return rc;
}

static int pg_pull(void *handle, callus_layer l, int64_t since, int limit,
		   callus_shared_note **out, size_t *count, callus_error *err)
{
	return notes_call(handle, "pull",
			  json_pack("{s:s, s:I, s:i}", "layer", callus_layer_name(l), "since",
				    (json_int_t)since, "limit", limit),
			  out, count, err);
}

static int pg_report(void *handle, callus_layer l, const char *id, const char *instance,
		     int64_t applications, int64_t successes, callus_error *err)
{
	json_t *a = json_pack("{s:s, s:s, s:s, s:I, s:I}", "layer", callus_layer_name(l), "id", id,
			      "instance", instance, "applications", (json_int_t)applications,
			      "successes", (json_int_t)successes);
	json_t *v = NULL;
	int rc;

	if (!a)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	rc = call(handle, "report", a, &v, err);
	json_decref(v);
	return rc;
}

const callus_storage_ops callus_storage_postgresql = {
	"postgresql", "postgresql://", pg_open, pg_close, pg_resolutions, pg_resolution,
	pg_feedback, pg_metrics, pg_metrics, pg_propose, pg_shared_list, pg_shared_get, pg_decide,
	pg_pull, pg_report,
};

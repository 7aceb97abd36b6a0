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

/* Run `callus-pg op` with args on stdin (args taken); its answer in
 * *answer (the caller's, released even on failure). */
static int run_helper(pg *p, const char *op, json_t *args, callus_buf *answer, callus_error *err)
{
	callus_buf var = CALLUS_BUF_INIT;
	char *const argv[] = { p->helper, (char *)op, NULL };
	char *in = json_dumps(args, JSON_COMPACT);
	char **envp = NULL;
	size_t n = 0, k = 0;
	callus_child_opts o;
	int rc;

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
	rc = callus_child_run(answer, &o, err);
out:
	free(envp);
	free(in);
	callus_buf_release(&var);
	json_decref(args);
	return rc;
}

/* Run `callus-pg op`; *out its JSON answer. */
static int call(pg *p, const char *op, json_t *args, json_t **out, callus_error *err)
{
	callus_buf answer = CALLUS_BUF_INIT;
	json_error_t je;
	int rc = run_helper(p, op, args, &answer, err);

	*out = NULL;
	if (rc == 0 && !(*out = json_loadb(answer.ptr ? answer.ptr : "", answer.len, 0, &je)))
		rc = callus_error_set(err, CALLUS_EIO, "the PostgreSQL helper's answer is not JSON: %s",
				      je.text);
	callus_buf_release(&answer);
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

#define NOTE_FIELDS 23 /* NOTE_COLUMNS of helper/callus-pg.c */

/* One field of a note line, unescaped into a new string; *p moves past
 * it and its tab. */
static char *field(const char **p, const char *end)
{
	const char *s = *p;
	size_t n = 0;
	char *out, *o;

	while (s + n < end && s[n] != '\t')
		n++;
	if (!(out = malloc(n + 1)))
		return NULL;
	o = out;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '\\' && i + 1 < n) {
			c = s[++i];
			c = c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
		}
		*o++ = c;
	}
	*o = '\0';
	*p = s + n + (s + n < end);
	return out;
}

/* Whether id is a note's id as callus makes them (CALLUS_NOTE_ID_LEN
 * lowercase hex digits: a signature's first).  The server takes any text
 * from a member who calls its functions by hand; a row with another id
 * would be cut to one callus makes, and be taken for that note. */
static int note_id_ok(const char *id)
{
	return strlen(id) == CALLUS_NOTE_ID_LEN && strspn(id, "0123456789abcdef") == CALLUS_NOTE_ID_LEN;
}

/* One note of the helper's answer: 1 when it is one (*x set), 0 for a
 * row whose id callus does not make (skipped, x left empty). */
static int read_note(callus_shared_note *x, const char *line, const char *end)
{
	char *f[NOTE_FIELDS] = { NULL };
	char **text[] = { NULL, NULL, NULL, &x->signature_id, &x->tool, &x->error_type, &x->title,
			  &x->example, &x->rule, &x->steps, &x->code, &x->files, &x->origin,
			  &x->path, &x->proposed_by, &x->proposed_at, &x->decided_by,
			  &x->decided_at, &x->why };
	int rc = 0;

	memset(x, 0, sizeof(*x));
	for (int i = 0; i < NOTE_FIELDS; i++)
		if (!(f[i] = field(&line, end)))
			rc = CALLUS_ENOMEM;
	if (rc == 0 && !note_id_ok(f[0])) {
		for (int i = 0; i < NOTE_FIELDS; i++)
			free(f[i]);
		return 0;
	}
	if (rc == 0) {
		snprintf(x->id, sizeof(x->id), "%s", f[0]);
		if (callus_layer_parse(&x->layer, f[1]) < 0)
			x->layer = CALLUS_LAYER_TEAM;
		callus_shared_status_parse(&x->status, f[2]);
		for (int i = 3; i < 19; i++) {
			*text[i] = f[i];
			f[i] = NULL;
		}
		x->revision = strtoll(f[19], NULL, 10);
		x->applications = strtoll(f[20], NULL, 10);
		x->successes = strtoll(f[21], NULL, 10);
		x->extra = f[22];
		f[22] = NULL;
	}
	for (int i = 0; i < NOTE_FIELDS; i++)
		free(f[i]);
	if (rc < 0)
		callus_shared_note_release(x);
	return rc < 0 ? rc : 1;
}

/* The helper's notes, one a line, into *out. */
static int read_notes(const callus_buf *a, callus_shared_note **out, size_t *count,
		      callus_error *err)
{
	const char *p = a->ptr ? a->ptr : "", *end = p + a->len;
	callus_shared_note *v;
	size_t n = 0, k = 0;

	*out = NULL;
	*count = 0;
	for (const char *q = p; q < end; q++)
		n += *q == '\n';
	if (!n)
		return 0;
	if (!(v = calloc(n, sizeof(*v))))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	while (p < end && k < n) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			nl = end;
		int got = read_note(&v[k], p, nl);

		if (got < 0) {
			callus_shared_notes_free(v, k);
			return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		}
		k += (size_t)got;
		p = nl + 1;
	}
	*out = v;
	*count = k;
	return 0;
}

static int pg_propose(void *handle, const callus_shared_note *n, int *created, callus_error *err)
{
	json_t *a = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s,"
			      " s:s}",
			      "layer", callus_layer_name(n->layer), "id", n->id, "signature_id",
			      n->signature_id ? n->signature_id : "", "tool", n->tool ? n->tool : "",
			      "error_type", n->error_type ? n->error_type : "", "title",
			      n->title ? n->title : "", "example", n->example ? n->example : "",
			      "rule", n->rule ? n->rule : "", "steps", n->steps ? n->steps : "",
			      "code", n->code ? n->code : "", "files",
			      n->files && *n->files ? n->files : "[]", "origin",
			      n->origin ? n->origin : "", "path", n->path ? n->path : "",
			      "proposed_by", n->proposed_by ? n->proposed_by : "", "extra",
			      n->extra ? n->extra : "");
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
	callus_buf answer = CALLUS_BUF_INIT;
	int rc;

	*out = NULL;
	*count = 0;
	if (!a)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if ((rc = run_helper(handle, op, a, &answer, err)) == 0)
		rc = read_notes(&answer, out, count, err);
	callus_buf_release(&answer);
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
	/* the note of that very id, when there is one (the helper sends it
	 * first): another that starts with it does not make it ambiguous */
	if (n == 1 || (n > 1 && !strcmp(v[0].id, id))) {
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

static int pg_withdraw(void *handle, callus_layer l, const char *id, const char *origin,
		       const char *who, const char *why, callus_error *err)
{
	/* the server records its own idea of who, and checks that the
	 * session's role made the proposal */
	json_t *a = json_pack("{s:s, s:s, s:s, s:s}", "layer", callus_layer_name(l), "id", id,
			      "origin", origin, "why", why);
	json_t *v = NULL;
	int rc;

	(void)who;
	if (!a)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	rc = call(handle, "withdraw", a, &v, err);
	if (rc == 0 && !json_is_true(json_object_get(v, "changed")))
		rc = callus_error_set(err, CALLUS_ENOTFOUND,
				      "no proposal %s of this workspace's in the %s layer", id,
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
	pg_withdraw, pg_pull, pg_report,
};

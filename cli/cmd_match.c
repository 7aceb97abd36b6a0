/*
 * callus suggest --command CMD [--exit-code N] [--limit N] [--json] < OUTPUT
 * callus suggest --signature ID [--limit N] [--json]
 * callus reindex
 * callus merges [--json]
 * callus merge A B
 *
 * The matching of errors to the fixes of similar ones (src/match.c), for
 * people and scripts: what callus would suggest, the vectors it compares,
 * and the signatures a maintainer may merge.
 */
#include "cli.h"
#include "lessons_common.h"
#include "record_common.h"

#include "callus/buf.h"
#include "callus/embed.h"
#include "callus/gc.h"
#include "callus/match.h"
#include "callus/notes.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static const char *command, *signature;
/* LONG_MIN until given: --signature refuses a status it would ignore */
static long exit_code = LONG_MIN, limit = CALLUS_LEARN_SUGGEST_MAX;
static int json;

static const cli_option suggest_options[] = {
	{ CLI_OPT_STRING, 'c', "command", &command, "CMD",
	  "the command whose output is on standard input" },
	{ CLI_OPT_INT, 'e', "exit-code", &exit_code, "N", "its exit status (default 1)" },
	{ CLI_OPT_STRING, 0, "signature", &signature, "ID",
	  "a stored signature instead (its id, or 6 or more of its first hex digits)" },
	{ CLI_OPT_INT, 'n', "limit", &limit, "N", "at most N fixes per error (default 3)" },
	{ CLI_OPT_FLAG, 0, "json", &json, NULL, "print JSON: one object per error" },
	CLI_END
};

const cli_spec cmd_suggest_spec = {
	"callus suggest --command CMD [--exit-code N] [--limit N] [--json] < OUTPUT\n"
	"callus suggest --signature ID [--limit N] [--json]",
	"Show the past fixes callus would suggest for a failure's output, or for a stored error.",
	"Each error of the output is signed as a recording would sign it, and matched\n"
	"against the stored signatures: the same signature, then similar ones (the\n"
	"built-in embedder's cosine >= 0.935, or 0.85 between two errors of one rule\n"
	"of the tool), then stored patterns matching it as regular expressions.  In a\n"
	"store of more than 4,096 signatures, as in a recording, the similar ones are\n"
	"sought among the newest 4,096 and every one with a note (every fix whose\n"
	"change is known has one).  The resolutions of the matches are ranked by\n"
	"success rate x context match x recency x similarity, the confidence shown.\n"
	"Nothing is recorded, and no fix is suggested for an error nothing matches.",
	suggest_options, 0
};

static int only_new, quiet;

static const cli_option reindex_options[] = {
	{ CLI_OPT_FLAG, 0, "new", &only_new, NULL,
	  "only the signatures without vectors yet (what recording starts in the background)" },
	{ CLI_OPT_FLAG, 'q', "quiet", &quiet, NULL, "print nothing; failures go to .callus/log.jsonl" },
	CLI_END
};

const cli_spec cmd_reindex_spec = {
	"callus reindex [--new] [--quiet]",
	"Embed the stored signatures again: the built-in embedder's, and an external one's if set.",
	"Recording embeds each new signature with the weights of the moment; as the\n"
	"store grows, the weights of common words fall.  This recomputes every\n"
	"built-in vector and rewrites .callus/vectors-*.bin in one write transaction\n"
	"(safe while agents work: the file is replaced in one rename, and a hook that\n"
	"finds the store held queues its recording; a 'callus run' waits for it up to\n"
	"[store] timeout_ms, then queues its run: some 6 s of CPU at 100,000\n"
	"recordings).  With an external embedder ([embed] url and model, see\n"
	"docs/config.md), every signature is sent to it again too, in batches, with\n"
	"no lock held while it answers.\n"
	"\n"
	"With --new, only what has no vector yet: a failure recording new errors\n"
	"starts 'callus reindex --new --quiet' in the background when an external\n"
	"embedder is set, so that neither the hook nor callus run waits on it.  Either\n"
	"writes the external embedder's vector file again from the store when it holds\n"
	"fewer records than the store has vectors (lost, cut short; the model's\n"
	"vectors of another dimension than its newest are then dropped and sent again),\n"
	"or when the records of removed signatures are more than a tenth of it and 64,\n"
	"even when the endpoint fails.  With --new, nothing is looked up when the\n"
	"store's counts say every signature has a vector.  One runs at a time\n"
	"(.callus/embed.lock); a second finds the lock taken and leaves.",
	reindex_options, 0
};

static const cli_option merges_options[] = {
	{ CLI_OPT_FLAG, 0, "json", &json, NULL, "print JSON (an array of pairs)" },
	CLI_END
};

const cli_spec cmd_merges_spec = {
	"callus merges [--json]",
	"List pairs of error signatures a maintainer may merge into one.",
	"A pair is listed when its two signatures are more than 0.90 similar and\n"
	"both have a resolution that worked more than 70% of the time: probably\n"
	"one error written two ways.  Nothing is merged without 'callus merge'.",
	merges_options, 0
};

static const cli_option merge_options[] = { CLI_END };

const cli_spec cmd_merge_spec = {
	"callus merge A B",
	"Merge error signature B into A: B's fixes answer for A, and B matches as A.",
	"A and B are signature ids or their first 6 or more hex digits ('callus merges'\n"
	"lists candidates).  The maintainer's approval that spec 004 asks for: callus\n"
	"never merges two signatures by itself.\n"
	"\n"
	"When A is merged into another signature itself, B joins that one.  A B that is\n"
	"merged already is refused (into another: its fixes went there, so merge that one),\n"
	"and so is merging A back into B.",
	merge_options, 0
};

static json_t *suggestion_json(const callus_suggestion *g)
{
	return json_pack("{s:I, s:s, s:s, s:f, s:I, s:f}", "resolution_id",
			 (json_int_t)g->resolution_id, "signature_id", g->signature_id,
			 "description", g->description, "success_rate", g->success_rate,
			 "application_count", (json_int_t)g->application_count, "confidence",
			 g->confidence);
}

/* The fixes for one error: printed, or appended to out as JSON. */
static int suggest_one(callus_store *store, const callus_match_opts *mo, const callus_signature *sig,
		       json_t *out)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_suggestion *g = NULL;
	size_t n = 0;
	int rc = 0;

	if (store && callus_match_suggest(store, mo, sig, (size_t)limit, &g, &n, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		rc = -1;
		goto out;
	}
	if (out) {
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:[]}", "signature_id", sig->id,
				      "error_type", sig->error_type ? sig->error_type : "", "tool",
				      sig->tool ? sig->tool : "", "message",
				      sig->original ? sig->original : "", "suggestions");

		for (size_t i = 0; o && i < n; i++)
			json_array_append_new(json_object_get(o, "suggestions"),
					      suggestion_json(&g[i]));
		json_array_append_new(out, o);
		goto out;
	}
	printf("%s (%s): %.*s\n", sig->error_type ? sig->error_type : "", sig->tool ? sig->tool : "",
	       cli_first_line_width(sig->original ? sig->original : "", 100),
	       sig->original ? sig->original : "");
	if (!n)
		printf("  no past fix matches\n");
	for (size_t i = 0; i < n; i++)
		printf("  #%lld %.0f%% confident, worked %.0f%% of %lld time%s: %s"
		       " (callus resolutions show %lld)\n",
		       (long long)g[i].resolution_id, g[i].confidence * 100.0,
		       g[i].success_rate * 100.0, (long long)g[i].application_count,
		       g[i].application_count == 1 ? "" : "s", g[i].description,
		       (long long)g[i].resolution_id);
out:
	callus_suggestions_free(g, n);
	callus_error_release(&err);
	return rc;
}

/* The signatures of sigs[0..n) a recording of their output would count
 * before its search: each id once, and none the store holds already.
 * Into *out (the caller frees the array alone: its signatures are
 * sigs's, shallow copies). */
static int to_count(callus_store *store, const callus_signature *sigs, size_t n,
		    callus_signature **out, size_t *nout)
{
	*out = NULL;
	*nout = 0;
	if (!n)
		return 0;
	if (!(*out = calloc(n, sizeof(**out))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		callus_error err = CALLUS_ERROR_INIT;
		callus_signature g;
		int seen = 0, rc;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(sigs[j].id, sigs[i].id);
		if (seen)
			continue;
		rc = callus_match_get_signature(store, sigs[i].id, &g, &err);
		callus_error_release(&err);
		if (rc == 0)
			callus_signature_release(&g);
		else if (rc == CALLUS_ENOTFOUND)
			(*out)[(*nout)++] = sigs[i];
		else
			return -1;
	}
	return 0;
}

/* The errors of the output on standard input, signed as a recording
 * would sign them. */
static int stdin_signatures(const cli_workspace *ws, callus_signature **sigs, size_t *n)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_detection det;
	callus_failure f;
	char *dir = NULL;
	int rc = -1;

	if (cli_analyze_stdin(ws, command, (int)exit_code, 0, &det, &f, &dir) < 0)
		goto out;
	if (!det.verification) {
		cli_error("'%s' is not a check callus knows (a [verify] entry of .callus/config adds "
			  "one: docs/config.md)",
			  command);
		goto out;
	}
	{
		callus_pathctx pc = { ws->root, ws->root_real, dir ? dir : ws->cwd_rel, NULL };

		if (callus_record_signatures(sigs, n, &f, ws->redactor, &pc, &err) < 0) {
			cli_error("%s", callus_error_message(&err));
			goto out;
		}
	}
	rc = 0;
out:
	free(dir);
	callus_failure_release(&f);
	callus_detection_release(&det);
	callus_error_release(&err);
	return rc;
}

/* The external embedder's vectors of sigs, asked for now; on failure the
 * built-in embedder is used alone, after saying so. */
static int remote_vectors(const cli_workspace *ws, const callus_signature *sigs, size_t n,
			  float **vecs, size_t *dim)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf *texts = calloc(n, sizeof(*texts));
	const char **tp = calloc(n, sizeof(*tp));
	int rc = -1;

	*vecs = NULL;
	if (!texts || !tp)
		goto out;
	for (size_t i = 0; i < n; i++) {
		callus_buf_init(&texts[i], 0);
		if (callus_match_remote_text(&texts[i], &sigs[i]) < 0)
			goto out;
		tp[i] = texts[i].ptr;
	}
	if ((rc = callus_embed_remote(vecs, dim, tp, n, &ws->embed, &err)) < 0)
		cli_error("%s: %s; matching with the built-in embedder alone", ws->embed_model,
			  callus_error_message(&err));
out:
	for (size_t i = 0; texts && i < n; i++)
		callus_buf_release(&texts[i]);
	free(texts);
	free(tp);
	callus_error_release(&err);
	return rc < 0 ? -1 : 0;
}

int cmd_suggest(int argc, char **argv)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	callus_signature *sigs = NULL, one, *counted = NULL;
	size_t nsigs = 0;
	callus_match_opts mo;
	callus_buf noted = CALLUS_BUF_INIT;
	cli_workspace ws;
	json_t *out = NULL;
	float *rvecs = NULL;
	size_t rdim = 0;
	int first, rc = 1, have_ws = 0, opened;

	memset(&one, 0, sizeof(one));
	first = cli_parse(argc, argv, &cmd_suggest_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first < argc) {
		cli_error("unexpected argument '%s'; see 'callus help suggest'", argv[first]);
		return 2;
	}
	if (!command == !signature) {
		cli_error(command ? "--command and --signature go alone; choose one"
				  : "what should callus match? --command CMD < OUTPUT, or --signature ID");
		return 2;
	}
	if (signature && exit_code != LONG_MIN) {
		cli_error("--exit-code goes with --command; a stored signature has no status");
		return 2;
	}
	if (exit_code == LONG_MIN)
		exit_code = 1;
	if (exit_code < 1 || exit_code > 255) {
		cli_error("--exit-code must be a failure's status, 1 to 255");
		return 2;
	}
	if (limit < 1 || limit > 100) {
		cli_error("--limit must be between 1 and 100");
		return 2;
	}
	if (cli_workspace_setup(&ws, NULL, 1) < 0)
		return 1;
	have_ws = 1;
	if ((opened = cli_open_store(&store, &ws, 0)) < 0)
		goto out;
	if (signature) {
		if (!store) {
			cli_error("no signature '%s': nothing recorded in this workspace", signature);
			goto out;
		}
		if (callus_match_get_signature(store, signature, &one, &err) < 0) {
			cli_error("%s", callus_error_message(&err));
			rc = err.code == CALLUS_EINVAL ? 2 : 1;
			goto out;
		}
		sigs = &one;
		nsigs = 1;
	} else if (stdin_signatures(&ws, &sigs, &nsigs) < 0) {
		goto out;
	}
	memset(&mo, 0, sizeof(mo));
	mo.workspace = ws.root;
	mo.half_life_days = cli_match_half_life(&ws);
	/* searched as a recording of this output would search: a stored
	 * error with its stored vector, a new one weighed with the output's
	 * new errors counted (the store's word for what would be suggested) */
	mo.stored = 1;
	if (store && !signature) {
		if (to_count(store, sigs, nsigs, &counted, &mo.ncounted) < 0) {
			cli_error("cannot read the stored signatures");
			goto out;
		}
		mo.counted = mo.ncounted ? counted : NULL;
	}
	/* what a recording would suggest: in a large store, the newest
	 * signatures and every one with a note */
	if (store)
		(void)callus_notes_window(store, CALLUS_MATCH_WINDOW, &mo, &noted, NULL);
	if (ws.embed_error)
		cli_error("[embed] ignored: %s", ws.embed_error);
	/* not the hook: the endpoint may be waited for, within its timeout */
	if (ws.embed_model && store && nsigs &&
	    remote_vectors(&ws, sigs, nsigs, &rvecs, &rdim) == 0)
		mo.remote_model = ws.embed_model;
	if (json && !(out = json_array())) {
		cli_error("out of memory");
		goto out;
	}
	rc = 0;
	for (size_t i = 0; i < nsigs && rc == 0; i++) {
		mo.remote_query = rvecs ? rvecs + i * rdim : NULL;
		mo.remote_dim = rdim;
		if (suggest_one(store, &mo, &sigs[i], out) < 0)
			rc = 1;
	}
	if (!nsigs && !json)
		printf("no error callus can read in this output\n");
	if (json && rc == 0) {
		rc = cli_print_json(out);
		out = NULL;
	}
out:
	free(counted);
	free(rvecs);
	callus_buf_release(&noted);
	json_decref(out);
	if (sigs == &one)
		callus_signature_release(&one);
	else
		callus_signatures_free(sigs, nsigs);
	callus_store_close(store);
	callus_error_release(&err);
	if (have_ws)
		cli_workspace_release(&ws);
	return rc;
}

/* The store of the current workspace, for the commands that need one to
 * exist: 0, or the exit status after saying why. */
static int open_existing(callus_store **store, cli_workspace *ws)
{
	int rc;

	if (cli_workspace_setup(ws, NULL, 0) < 0)
		return 1;
	if ((rc = cli_open_store(store, ws, 0)) == 1) {
		cli_error("nothing recorded in this workspace");
		cli_workspace_release(ws);
		return 1;
	}
	if (rc < 0) {
		cli_workspace_release(ws);
		return 1;
	}
	return 0;
}

/* Hold .callus/embed.lock: 1 held, 0 taken by another process, -1 error. */
static int embed_lock(const cli_workspace *ws, int *fd)
{
	callus_buf path = CALLUS_BUF_INIT;
	int rc = -1;

	*fd = -1;
	if (callus_buf_printf(&path, "%s/.callus/embed.lock", ws->root) < 0)
		goto out;
	if ((*fd = open(path.ptr, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
		goto out;
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		rc = 1;
	else if (errno == EWOULDBLOCK)
		rc = 0;
out:
	callus_buf_release(&path);
	return rc;
}

/* Say what went wrong: on stderr, or with --quiet in the log only. */
static void reindex_trouble(const cli_workspace *ws, const char *what, const callus_error *err)
{
	if (quiet)
		cli_log_failure(ws, "embed_failed", callus_error_message(err));
	else
		cli_error("%s: %s", what, callus_error_message(err));
}

int cmd_reindex(int argc, char **argv)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	cli_workspace ws;
	size_t n = 0, nx = 0;
	int first, rc, lockfd = -1;

	first = cli_parse(argc, argv, &cmd_reindex_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first < argc) {
		cli_error("unexpected argument '%s'; see 'callus help reindex'", argv[first]);
		return 2;
	}
	if ((rc = open_existing(&store, &ws)) != 0)
		return rc;
	if (ws.embed_error && !quiet)
		cli_error("[embed] ignored: %s", ws.embed_error);
	if ((rc = embed_lock(&ws, &lockfd)) <= 0) {
		if (rc < 0 && !quiet)
			cli_error("cannot lock %s/.callus/embed.lock: %s", ws.root, strerror(errno));
		if (rc == 0 && !quiet)
			printf("another callus reindex is running here\n");
		rc = rc < 0;
		goto out;
	}
	rc = 0;
	if ((only_new ? callus_match_index(store, ws.root, &n, &err)
		      : callus_match_reindex(store, ws.root, &n, &err)) < 0) {
		reindex_trouble(&ws, "built-in vectors", &err);
		rc = 1;
		goto out;
	}
	if (!quiet)
		printf("%s %zu signature%s (%s)\n", only_new ? "embedded" : "embedded again", n,
		       n == 1 ? "" : "s", CALLUS_EMBED_BUILTIN_MODEL);
	if (!ws.embed_model)
		goto out;
	/* set up here, whatever the endpoint says: its vectors are kept
	 * (gc.h's model_days) */
	(void)callus_gc_model_named(store, ws.embed_model, NULL, NULL);
	if (callus_match_index_remote(store, ws.root, &ws.embed, !only_new, &nx, &err) < 0) {
		reindex_trouble(&ws, ws.embed_model, &err);
		rc = 1;
	}
	if (!quiet)
		printf("embedded %zu signature%s (%s)\n", nx, nx == 1 ? "" : "s", ws.embed_model);
out:
	if (lockfd >= 0)
		close(lockfd);
	callus_store_close(store);
	callus_error_release(&err);
	cli_workspace_release(&ws);
	return rc;
}

int cmd_merges(int argc, char **argv)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	callus_merge_pair *p = NULL;
	cli_workspace ws;
	size_t n = 0;
	int first, rc;

	first = cli_parse(argc, argv, &cmd_merges_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first < argc) {
		cli_error("unexpected argument '%s'; see 'callus help merges'", argv[first]);
		return 2;
	}
	if (cli_workspace_setup(&ws, NULL, 0) < 0)
		return 1;
	if ((rc = cli_open_store(&store, &ws, 0)) < 0) {
		rc = 1;
		goto out;
	}
	rc = 0;
	if (store && callus_match_merges(store, ws.root, &p, &n, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		rc = 1;
		goto out;
	}
	if (json) {
		json_t *a = json_array();

		for (size_t i = 0; a && i < n; i++)
			json_array_append_new(
				a, json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:f}", "a", p[i].a, "b",
					     p[i].b, "a_message", p[i].a_message, "b_message",
					     p[i].b_message, "similarity", p[i].similarity,
					     "a_success_rate", p[i].a_success, "b_success_rate",
					     p[i].b_success));
		rc = cli_print_json(a);
		goto out;
	}
	if (!n)
		printf("no signatures to merge\n");
	for (size_t i = 0; i < n; i++)
		printf("%.12s ~ %.12s  %.2f similar, fixes worked %.0f%% / %.0f%%\n  %.*s\n  %.*s\n"
		       "  callus merge %.12s %.12s\n",
		       p[i].a, p[i].b, p[i].similarity, p[i].a_success * 100.0,
		       p[i].b_success * 100.0, cli_first_line_width(p[i].a_message, 100),
		       p[i].a_message, cli_first_line_width(p[i].b_message, 100), p[i].b_message,
		       p[i].a, p[i].b);
out:
	callus_merge_pairs_free(p, n);
	callus_store_close(store);
	callus_error_release(&err);
	cli_workspace_release(&ws);
	return rc;
}

int cmd_merge(int argc, char **argv)
{
	char into[CALLUS_SHA256_HEX_LEN + 1] = "";
	callus_error err = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	cli_workspace ws;
	int first, rc;

	first = cli_parse(argc, argv, &cmd_merge_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first + 2 != argc) {
		cli_error("usage: callus merge A B (signature ids; 'callus merges' lists candidates)");
		return 2;
	}
	if ((rc = open_existing(&store, &ws)) != 0)
		return rc;
	if (callus_match_merge(store, argv[first], argv[first + 1], into, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		rc = err.code == CALLUS_EINVAL ? 2 : 1;
	} else if (strncmp(into, argv[first], strlen(argv[first]))) {
		printf("merged %s into %.12s, which %s is merged into: its fixes now answer for "
		       "both\n",
		       argv[first + 1], into, argv[first]);
	} else {
		printf("merged %s into %s: its fixes now answer for it\n", argv[first + 1],
		       argv[first]);
	}
	callus_store_close(store);
	callus_error_release(&err);
	cli_workspace_release(&ws);
	return rc;
}

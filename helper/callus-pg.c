/*
 * callus-pg.c - one operation on a PostgreSQL team or org store
 * (src/storage/postgresql.c), as a program of its own so that callus never
 * maps libpq and what it loads (TLS, Kerberos, LDAP): the postgresql
 * backend runs it, and only `callus sync`, `proposals`, `approve` and
 * `reject` open that backend; the hook never does.
 *
 * Protocol (private between src/storage/postgresql.c and this program;
 * both change together):
 *
 *   callus-pg OP
 *	Environment: CALLUS_PG_URL, the connection URI or string (never on
 *	the command line, where any user reads it).
 *	stdin: a JSON object, the operation's arguments; stdout: a JSON value,
 *	or notes (below).
 *
 *	migrate  {}                          -> {"version": N}
 *	propose  {note fields}               -> {"created": true|false}
 *	list     {"layer", "all"}            -> notes, latest revision first
 *	get      {"layer", "id"}             -> notes (prefix; at most 2)
 *	decide   {"layer", "id", "status", "why"} -> {"changed": false when no
 *	                                     note of that id has the status it
 *	                                     is decided from}
 *	withdraw {"layer", "id", "origin", "why"} -> {"changed": false when
 *	                                     the session's role has no proposal
 *	                                     of that id and origin undecided}
 *	pull     {"layer", "since", "limit"} -> notes, oldest revision first
 *	                                     (limit 0: all)
 *	report   {"layer", "id", "instance", "applications", "successes"} -> {}
 *
 *	Notes are not JSON but one line each: the fields of NOTE_COLUMNS
 *	(below; callus_shared_note's, metrics summed over every instance) in
 *	that order, separated by tabs, with a backslash, tab, newline and CR
 *	escaped as two characters: backslash and one of \\ t n r.
 *
 * Exit status 0 on success; 1 after one line "callus-pg: <message>" on
 * stderr (the server's own message for a refusal: a non-maintainer's
 * decision, a role without the privilege); 2 on a usage error.
 *
 * Governance lives in the server (migration 1 below): the tables are
 * written only through SECURITY DEFINER functions owned by the role that
 * migrated the store; callus_member may propose, report and read what is
 * not a proposal (proposals: its own, or all for a maintainer of the
 * layer); callus.decide() refuses unless the session's role is a member
 * of callus_maintainer_<layer>.  A member that writes SQL has no INSERT,
 * UPDATE or DELETE on any table to write it with.
 */
#include <jansson.h>
#include <libpq-fe.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INPUT_MAX (64u << 20)
/* The server's own limit on a statement, and on the wait for a lock:
 * under the 60 s after which callus stops waiting for this helper
 * (storage/postgresql.c), so that a query callus gave up on does not go
 * on holding the server's resources, or pile up with each sync. */
#define STATEMENT_TIMEOUT "SET statement_timeout = 50000; SET lock_timeout = 30000"

/* The password the connection string holds, as written and as libpq
 * decodes it (%XX), which libpq may quote in a message (an invalid
 * percent-encoding is quoted whole): never printed.  Set once, before
 * the connection. */
static char secret[2][256];

static void fail(int code, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

/* msg with every copy of a secret replaced, into out (cap bytes). */
static void hide_secrets(char *out, size_t cap, const char *msg)
{
	size_t o = 0;

	while (*msg && o + 1 < cap) {
		size_t hit = 0;

		for (size_t i = 0; i < 2 && !hit; i++)
			if (secret[i][0] && !strncmp(msg, secret[i], strlen(secret[i])))
				hit = strlen(secret[i]);
		if (hit) {
			o += (size_t)snprintf(out + o, cap - o, "[REDACTED:password]");
			if (o >= cap)
				o = cap - 1;
			msg += hit;
		} else {
			out[o++] = *msg++;
		}
	}
	out[o] = '\0';
}

static void fail(int code, const char *fmt, ...)
{
	va_list ap;
	char msg[1024], shown[2048];
	size_t n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* one line: the server's messages may carry a DETAIL on the next */
	n = strcspn(msg, "\n");
	msg[n] = '\0';
	hide_secrets(shown, sizeof(shown), msg);
	fprintf(stderr, "callus-pg: %s\n", shown);
	exit(code);
}

static int hex_value(int c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* The password of url into secret[]: a URI's (scheme://user:PASSWORD@host,
 * the userinfo ending at the last '@' before the path), or a key = value
 * string's (password=VALUE, up to a blank). */
static void find_secrets(const char *url)
{
	const char *p = strstr(url, "://"), *end = NULL;
	size_t len = 0;

	if (p) {
		const char *host = p + 3 + strcspn(p + 3, "/?");

		for (const char *q = p + 3; q < host; q++)
			if (*q == '@')
				end = q;
		p = end ? memchr(p + 3, ':', (size_t)(end - (p + 3))) : NULL;
		if (p)
			len = (size_t)(end - ++p);
	} else if ((p = strstr(url, "password"))) {
		p += strlen("password");
		p += strspn(p, " \t");
		if (*p == '=') {
			p++;
			p += strspn(p, " \t'");
			len = strcspn(p, " \t'");
		}
	}
	if (!len || len >= sizeof(secret[0]))
		return;
	memcpy(secret[0], p, len);
	for (size_t i = 0, o = 0; i < len; i++) {
		int hi = i + 2 < len ? hex_value((unsigned char)p[i + 1]) : -1;
		int lo = i + 2 < len ? hex_value((unsigned char)p[i + 2]) : -1;

		if (p[i] == '%' && hi >= 0 && lo >= 0) {
			secret[1][o++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			secret[1][o++] = p[i];
		}
	}
	if (!strcmp(secret[1], secret[0]))
		secret[1][0] = '\0';
}

/* The view members read the notes through, with their sums, and pull():
 * made by migration 0, and again by 3 (a view keeps the columns n.* had).
 * Shared so that the two stay one text; migration 0's is unchanged. */
#define NOTES_VIEW_SQL \
	"CREATE VIEW callus.notes WITH (security_barrier) AS" \
	"  SELECT n.*," \
	"  (SELECT coalesce(sum(o.applications), 0) FROM callus.shared_outcomes o" \
	"   WHERE o.layer = n.layer AND o.note_id = n.id)::bigint AS applications," \
	"  (SELECT coalesce(sum(o.successes), 0) FROM callus.shared_outcomes o" \
	"   WHERE o.layer = n.layer AND o.note_id = n.id)::bigint AS successes" \
	"  FROM callus.shared_notes n" \
	"  WHERE n.status <> 'proposed' OR n.proposed_role = session_user" \
	"   OR pg_has_role(session_user, 'callus_maintainer_' || n.layer, 'MEMBER');"

#define PULL_SQL \
	"CREATE FUNCTION callus.pull(p_layer text, p_since bigint, p_limit bigint)" \
	"  RETURNS SETOF callus.notes LANGUAGE sql STABLE SECURITY DEFINER" \
	"  SET search_path = callus, pg_temp AS $f$" \
	"  SELECT n.*," \
	"  (SELECT coalesce(sum(o.applications), 0) FROM callus.shared_outcomes o" \
	"   WHERE o.layer = n.layer AND o.note_id = n.id)::bigint," \
	"  (SELECT coalesce(sum(o.successes), 0) FROM callus.shared_outcomes o" \
	"   WHERE o.layer = n.layer AND o.note_id = n.id)::bigint" \
	"  FROM (SELECT * FROM callus.shared_notes s WHERE s.layer = p_layer" \
	"   AND s.revision > p_since AND (s.status <> 'proposed' OR s.proposed_role = session_user" \
	"   OR pg_has_role(session_user, 'callus_maintainer_' || s.layer, 'MEMBER'))" \
	"   ORDER BY s.revision LIMIT nullif(p_limit, 0)) n ORDER BY n.revision $f$;"

/* Forward-only migrations of the server's schema; migrations[i] takes it
 * from version i to i + 1.  Never edit one that has shipped. */
static const char *const migrations[] = {
	/* 0 -> 1: the layers' notes, their outcomes, the roles and the
	 * functions that are the only way to write them */
	"DO $$ BEGIN"
	"  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'callus_member') THEN"
	"    CREATE ROLE callus_member NOLOGIN; END IF;"
	"  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'callus_maintainer_team') THEN"
	"    CREATE ROLE callus_maintainer_team NOLOGIN IN ROLE callus_member; END IF;"
	"  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'callus_maintainer_org') THEN"
	"    CREATE ROLE callus_maintainer_org NOLOGIN IN ROLE callus_member; END IF;"
	"END $$;"
	"CREATE SEQUENCE callus.revision;"
	"CREATE TABLE callus.shared_notes ("
	"  layer text NOT NULL CHECK (layer IN ('team','org')),"
	"  id text NOT NULL,"
	"  status text NOT NULL DEFAULT 'proposed'"
	"   CHECK (status IN ('proposed','approved','rejected','retired')),"
	"  signature_id text NOT NULL,"
	"  tool text NOT NULL DEFAULT '',"
	"  error_type text NOT NULL DEFAULT '',"
	"  title text NOT NULL,"
	"  example text NOT NULL DEFAULT '',"
	"  rule text NOT NULL DEFAULT '',"
	"  steps text NOT NULL DEFAULT '',"
	"  code text NOT NULL DEFAULT '',"
	"  files text NOT NULL DEFAULT '[]',"
	"  origin text NOT NULL DEFAULT '',"
	"  path text NOT NULL DEFAULT '',"
	"  proposed_by text NOT NULL DEFAULT '',"
	"  proposed_role text NOT NULL DEFAULT session_user,"
	"  proposed_at text NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC',"
	"   'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),"
	"  decided_by text NOT NULL DEFAULT '',"
	"  decided_at text NOT NULL DEFAULT '',"
	"  why text NOT NULL DEFAULT '',"
	"  revision bigint NOT NULL DEFAULT nextval('callus.revision'),"
	"  PRIMARY KEY (layer, id));"
	"CREATE INDEX shared_notes_revision ON callus.shared_notes (layer, revision);"
	"CREATE TABLE callus.shared_outcomes ("
	"  layer text NOT NULL,"
	"  note_id text NOT NULL,"
	"  instance text NOT NULL,"
	"  applications bigint NOT NULL DEFAULT 0 CHECK (applications >= 0),"
	"  successes bigint NOT NULL DEFAULT 0 CHECK (successes >= 0 AND successes <= applications),"
	"  reported_by text NOT NULL DEFAULT session_user,"
	"  at timestamptz NOT NULL DEFAULT now(),"
	"  PRIMARY KEY (layer, note_id, instance),"
	"  FOREIGN KEY (layer, note_id) REFERENCES callus.shared_notes ON DELETE CASCADE);"
	NOTES_VIEW_SQL
	/* a pull: the page is cut along the revision index first, the sums
	 * made for its rows only (through the barrier view every row's
	 * sums were made before the sort) */
	PULL_SQL
	"CREATE FUNCTION callus.propose(p_layer text, p_id text, p_sig text, p_tool text,"
	"  p_type text, p_title text, p_example text, p_rule text, p_steps text, p_code text,"
	"  p_files text, p_origin text, p_path text, p_by text) RETURNS boolean"
	"  LANGUAGE plpgsql SECURITY DEFINER SET search_path = callus, pg_temp AS $f$"
	" BEGIN"
	"  INSERT INTO callus.shared_notes (layer, id, signature_id, tool, error_type, title,"
	"   example, rule, steps, code, files, origin, path, proposed_by)"
	"   VALUES (p_layer, p_id, p_sig, p_tool, p_type, p_title, p_example, p_rule, p_steps,"
	"   p_code, p_files, p_origin, p_path, p_by) ON CONFLICT DO NOTHING;"
	"  RETURN FOUND;"
	" END $f$;"
	"CREATE FUNCTION callus.report(p_layer text, p_id text, p_instance text,"
	"  p_apps bigint, p_succ bigint) RETURNS void"
	"  LANGUAGE plpgsql SECURITY DEFINER SET search_path = callus, pg_temp AS $f$"
	" BEGIN"
	"  IF NOT EXISTS (SELECT 1 FROM callus.shared_notes WHERE layer = p_layer AND id = p_id) THEN"
	"   RETURN; END IF;"
	"  INSERT INTO callus.shared_outcomes AS o (layer, note_id, instance, applications, successes)"
	"   VALUES (p_layer, p_id, p_instance, p_apps, least(p_succ, p_apps))"
	"   ON CONFLICT (layer, note_id, instance) DO UPDATE SET"
	"   applications = excluded.applications, successes = excluded.successes, at = now(),"
	"   reported_by = session_user"
	"   WHERE o.applications <> excluded.applications OR o.successes <> excluded.successes;"
	"  IF FOUND THEN"
	"   UPDATE callus.shared_notes SET revision = nextval('callus.revision')"
	"    WHERE layer = p_layer AND id = p_id;"
	"  END IF;"
	" END $f$;"
	"CREATE FUNCTION callus.decide(p_layer text, p_id text, p_status text, p_why text)"
	"  RETURNS boolean"
	"  LANGUAGE plpgsql SECURITY DEFINER SET search_path = callus, pg_temp AS $f$"
	" BEGIN"
	"  IF p_status NOT IN ('approved','rejected','retired') THEN"
	"   RAISE EXCEPTION 'a decision approves, rejects or retires'; END IF;"
	"  IF NOT pg_has_role(session_user, 'callus_maintainer_' || p_layer, 'MEMBER') THEN"
	"   RAISE EXCEPTION 'role % is not a maintainer of the % layer (not in role callus_maintainer_%)',"
	"    session_user, p_layer, p_layer USING ERRCODE = 'insufficient_privilege';"
	"  END IF;"
	"  UPDATE callus.shared_notes SET status = p_status, decided_by = session_user,"
	"   why = p_why, revision = nextval('callus.revision'),"
	"   decided_at = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
	"   WHERE layer = p_layer AND id = p_id"
	"   AND status = CASE WHEN p_status = 'retired' THEN 'approved' ELSE 'proposed' END;"
	"  RETURN FOUND;"
	" END $f$;"
	"REVOKE ALL ON ALL TABLES IN SCHEMA callus FROM PUBLIC;"
	"REVOKE ALL ON ALL SEQUENCES IN SCHEMA callus FROM PUBLIC;"
	"REVOKE ALL ON ALL FUNCTIONS IN SCHEMA callus FROM PUBLIC;"
	"GRANT USAGE ON SCHEMA callus TO callus_member;"
	"GRANT SELECT ON callus.meta, callus.notes TO callus_member;"
	"GRANT EXECUTE ON FUNCTION callus.propose(text, text, text, text, text, text, text, text,"
	"  text, text, text, text, text, text), callus.report(text, text, text, bigint, bigint),"
	"  callus.decide(text, text, text, text), callus.pull(text, bigint, bigint)"
	"  TO callus_member;",
	/* 1 -> 2: a proposer withdraws its own proposal, still undecided
	 * (its note retired where it was learnt): rejected, by its role */
	"CREATE FUNCTION callus.withdraw(p_layer text, p_id text, p_origin text, p_why text)"
	"  RETURNS boolean"
	"  LANGUAGE plpgsql SECURITY DEFINER SET search_path = callus, pg_temp AS $f$"
	" BEGIN"
	"  UPDATE callus.shared_notes SET status = 'rejected', decided_by = session_user,"
	"   why = p_why, revision = nextval('callus.revision'),"
	"   decided_at = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
	"   WHERE layer = p_layer AND id = p_id AND status = 'proposed'"
	"   AND proposed_role = session_user AND origin = p_origin;"
	"  RETURN FOUND;"
	" END $f$;"
	"REVOKE ALL ON FUNCTION callus.withdraw(text, text, text, text) FROM PUBLIC;"
	"GRANT EXECUTE ON FUNCTION callus.withdraw(text, text, text, text) TO callus_member;",
	/* 2 -> 3: the sections a person added to a note (extra) go with its
	 * proposal and come back with every pull.  The view and pull() are
	 * made again: a view keeps the columns n.* had when it was made.
	 * Written to run again over itself (a store set back by hand). */
	"ALTER TABLE callus.shared_notes ADD COLUMN IF NOT EXISTS extra text NOT NULL DEFAULT '';"
	"DROP FUNCTION IF EXISTS callus.pull(text, bigint, bigint);"
	"DROP VIEW IF EXISTS callus.notes;"
	NOTES_VIEW_SQL
	PULL_SQL
	"DROP FUNCTION IF EXISTS callus.propose(text, text, text, text, text, text, text, text, text,"
	"  text, text, text, text, text);"
	"CREATE OR REPLACE FUNCTION callus.propose(p_layer text, p_id text, p_sig text, p_tool text,"
	"  p_type text, p_title text, p_example text, p_rule text, p_steps text, p_code text,"
	"  p_files text, p_origin text, p_path text, p_by text, p_extra text) RETURNS boolean"
	"  LANGUAGE plpgsql SECURITY DEFINER SET search_path = callus, pg_temp AS $f$"
	" BEGIN"
	"  INSERT INTO callus.shared_notes (layer, id, signature_id, tool, error_type, title,"
	"   example, rule, steps, code, files, origin, path, proposed_by, extra)"
	"   VALUES (p_layer, p_id, p_sig, p_tool, p_type, p_title, p_example, p_rule, p_steps,"
	"   p_code, p_files, p_origin, p_path, p_by, p_extra) ON CONFLICT DO NOTHING;"
	"  RETURN FOUND;"
	" END $f$;"
	"REVOKE ALL ON callus.notes FROM PUBLIC;"
	"REVOKE ALL ON FUNCTION callus.pull(text, bigint, bigint), callus.propose(text, text, text,"
	"  text, text, text, text, text, text, text, text, text, text, text, text) FROM PUBLIC;"
	"GRANT SELECT ON callus.notes TO callus_member;"
	"GRANT EXECUTE ON FUNCTION callus.pull(text, bigint, bigint), callus.propose(text, text,"
	"  text, text, text, text, text, text, text, text, text, text, text, text, text)"
	"  TO callus_member;",
};

#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

static PGconn *conn;

static PGresult *run(const char *sql, int n, const char *const *params)
{
	PGresult *r = PQexecParams(conn, sql, n, NULL, params, NULL, NULL, 0);
	ExecStatusType st = PQresultStatus(r);

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		fail(1, "%s", PQresultErrorMessage(r));
	return r;
}

/* Several statements at once (a migration): the simple protocol. */
static void exec(const char *sql)
{
	PGresult *r = PQexec(conn, sql);
	ExecStatusType st = PQresultStatus(r);

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		fail(1, "%s", PQresultErrorMessage(r));
	PQclear(r);
}

static const char *str(json_t *in, const char *key)
{
	const char *v = json_string_value(json_object_get(in, key));

	return v ? v : "";
}

static const char *num(json_t *in, const char *key, char *buf, size_t len)
{
	snprintf(buf, len, "%lld", (long long)json_integer_value(json_object_get(in, key)));
	return buf;
}

/* One statement of a migration from version `from` (-1: no schema yet).
 * A role that may not make the change, with a schema there, is a member
 * whose callus is newer than the owner's: said as such. */
static void migrate_exec(const char *sql, int from)
{
	PGresult *r = PQexec(conn, sql);
	ExecStatusType st = PQresultStatus(r);
	const char *state;

	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
		PQclear(r);
		return;
	}
	state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	if (from >= 0 && state && !strcmp(state, "42501"))
		fail(1, "the store's schema is version %d, older than this callus's %d, and role %s "
			"may not change it: run this callus once as the role that owns the store "
			"(e.g. 'callus proposals'), then as %s",
		     from, NMIGRATIONS, PQuser(conn), PQuser(conn));
	fail(1, "%s", PQresultErrorMessage(r));
}

static int op_migrate(void)
{
	PGresult *r;
	int v = 0, from = -1;

	/* a store already current is read, never written: a member (who
	 * may not create anything) opens it every sync */
	r = PQexec(conn, "SELECT version FROM callus.meta");
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
		from = (int)strtol(PQgetvalue(r, 0, 0), NULL, 10);
		if (from == NMIGRATIONS) {
			PQclear(r);
			printf("{\"version\": %d}\n", NMIGRATIONS);
			return 0;
		}
	}
	PQclear(r);
	if (from > NMIGRATIONS)
		fail(1, "the store has schema version %d, newer than this callus (%d)", from,
		     NMIGRATIONS);
	migrate_exec("BEGIN", from);
	/* two first opens at once migrate once */
	migrate_exec("SELECT pg_advisory_xact_lock(7216350221)", from);
	migrate_exec("CREATE SCHEMA IF NOT EXISTS callus", from);
	migrate_exec("CREATE TABLE IF NOT EXISTS callus.meta (version integer NOT NULL)", from);
	r = run("SELECT version FROM callus.meta", 0, NULL);
	if (PQntuples(r))
		v = (int)strtol(PQgetvalue(r, 0, 0), NULL, 10);
	else
		migrate_exec("INSERT INTO callus.meta VALUES (0)", from);
	PQclear(r);
	if (v > NMIGRATIONS)
		fail(1, "the store has schema version %d, newer than this callus (%d)", v,
		     NMIGRATIONS);
	for (; v < NMIGRATIONS; v++) {
		char sql[64];

		migrate_exec(migrations[v], from);
		snprintf(sql, sizeof(sql), "UPDATE callus.meta SET version = %d", v + 1);
		migrate_exec(sql, from);
	}
	migrate_exec("COMMIT", from);
	printf("{\"version\": %d}\n", NMIGRATIONS);
	return 0;
}

/* proposed_by is what the proposing callus said (git's user.email, which
 * anyone can set); the server's own record of who, the session's role,
 * is shown beside it: "dev@example.com (role bob)". */
#define NOTE_COLUMNS                                                                          \
	"id, layer, status, signature_id, tool, error_type, title, example, rule, steps, code,"\
	" files, origin, path,"                                                                \
	" concat_ws(' ', nullif(proposed_by, ''), '(role ' || proposed_role || ')'),"          \
	" proposed_at, decided_by, decided_at, why, revision, applications, successes, extra"

/*
 * Rows of NOTE_COLUMNS on stdout, one a line, fields in NOTE_COLUMNS's order
 * separated by tabs, each escaped: a page of 5,000 notes
 * is megabytes, and JSON objects built and parsed field by field cost the
 * two processes more than the rest of a sync.  (The escapes: backslash
 * followed by backslash, t, n or r.)
 */
static int print_notes(PGresult *r)
{
	int nf = PQnfields(r);

	for (int i = 0; i < PQntuples(r); i++) {
		for (int f = 0; f < nf; f++) {
			const char *v = PQgetvalue(r, i, f);

			if (f)
				putchar_unlocked('\t');
			for (; *v; v++)
				switch (*v) {
				case '\\': fputs("\\\\", stdout); break;
				case '\t': fputs("\\t", stdout); break;
				case '\n': fputs("\\n", stdout); break;
				case '\r': fputs("\\r", stdout); break;
				default: putchar_unlocked(*v);
				}
		}
		putchar_unlocked('\n');
	}
	PQclear(r);
	return 0;
}

static int op_propose(json_t *in)
{
	const char *p[] = { str(in, "layer"), str(in, "id"), str(in, "signature_id"),
			    str(in, "tool"), str(in, "error_type"), str(in, "title"),
			    str(in, "example"), str(in, "rule"), str(in, "steps"), str(in, "code"),
			    str(in, "files"), str(in, "origin"), str(in, "path"),
			    str(in, "proposed_by"), str(in, "extra") };
	PGresult *r = run("SELECT callus.propose($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,"
			  " $12, $13, $14, $15)",
			  15, p);

	printf("{\"created\": %s}\n", !strcmp(PQgetvalue(r, 0, 0), "t") ? "true" : "false");
	PQclear(r);
	return 0;
}

static int op_list(json_t *in)
{
	const char *p[] = { str(in, "layer"), json_is_true(json_object_get(in, "all")) ? "t" : "f" };

	return print_notes(run("SELECT " NOTE_COLUMNS " FROM callus.notes WHERE layer = $1"
			       " AND ($2::boolean OR status = 'proposed') ORDER BY revision DESC",
			       2, p));
}

static int op_get(json_t *in)
{
	const char *p[] = { str(in, "layer"), str(in, "id") };

	return print_notes(run("SELECT " NOTE_COLUMNS " FROM callus.notes WHERE layer = $1"
			       " AND left(id, length($2)) = $2 ORDER BY id = $2 DESC, id LIMIT 2",
			       2, p));
}

static int op_decide(json_t *in)
{
	const char *p[] = { str(in, "layer"), str(in, "id"), str(in, "status"), str(in, "why") };

	PGresult *r = run("SELECT callus.decide($1, $2, $3, $4)", 4, p);

	printf("{\"changed\": %s}\n", !strcmp(PQgetvalue(r, 0, 0), "t") ? "true" : "false");
	PQclear(r);
	return 0;
}

static int op_withdraw(json_t *in)
{
	const char *p[] = { str(in, "layer"), str(in, "id"), str(in, "origin"), str(in, "why") };

	PGresult *r = run("SELECT callus.withdraw($1, $2, $3, $4)", 4, p);

	printf("{\"changed\": %s}\n", !strcmp(PQgetvalue(r, 0, 0), "t") ? "true" : "false");
	PQclear(r);
	return 0;
}

static int op_pull(json_t *in)
{
	char since[32], limit[32];
	const char *p[] = { str(in, "layer"), num(in, "since", since, sizeof(since)),
			    num(in, "limit", limit, sizeof(limit)) };

	return print_notes(run("SELECT " NOTE_COLUMNS " FROM callus.pull($1, $2::bigint, $3::bigint)",
			       3, p));
}

static int op_report(json_t *in)
{
	char a[32], k[32];
	const char *p[] = { str(in, "layer"), str(in, "id"), str(in, "instance"),
			    num(in, "applications", a, sizeof(a)),
			    num(in, "successes", k, sizeof(k)) };

	PQclear(run("SELECT callus.report($1, $2, $3, $4::bigint, $5::bigint)", 5, p));
	printf("{}\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(json_t *in);
	} ops[] = { { "propose", op_propose }, { "list", op_list }, { "get", op_get },
		    { "decide", op_decide }, { "withdraw", op_withdraw }, { "pull", op_pull },
		    { "report", op_report } };
	const char *url = getenv("CALLUS_PG_URL");
	const char *keys[] = { "dbname", "connect_timeout", "application_name", NULL };
	const char *vals[] = { url, "5", "callus", NULL };
	json_error_t je;
	json_t *in;
	int rc = -1;

	if (argc != 2)
		fail(2, "usage: callus-pg OP (migrate, propose, list, get, decide, withdraw, pull, report)");
	if (!url || !*url)
		fail(2, "CALLUS_PG_URL is not set");
	in = json_loadf(stdin, JSON_REJECT_DUPLICATES, &je);
	if (!json_is_object(in))
		fail(2, "stdin is not a JSON object: %s", je.text);
	find_secrets(url);
	conn = PQconnectdbParams(keys, vals, 1);
	if (PQstatus(conn) != CONNECTION_OK)
		fail(1, "cannot connect: %s", PQerrorMessage(conn));
	exec(STATEMENT_TIMEOUT);
	if (!strcmp(argv[1], "migrate"))
		rc = op_migrate();
	for (size_t i = 0; rc < 0 && i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(argv[1], ops[i].name))
			rc = ops[i].fn(in);
	if (rc < 0)
		fail(2, "unknown operation '%s'", argv[1]);
	json_decref(in);
	PQfinish(conn);
	return fflush(stdout) == 0 ? 0 : 1;
}

/*
 * test_redact.c - secret redaction.
 *
 * The planted secrets are fake but shaped like real ones.  Their prefixes
 * are split across adjacent string literals ("gh" "p_") so that secret
 * scanners run over this repository do not flag the test file itself.
 *
 * Most checks compare the whole output: that proves both that the secret
 * bytes are gone and that every byte around them survived.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "callus/redact.h"
#include "pieces_helpers.h"
#include "redact_internal.h"

static int setup(void **state)
{
	callus_redactor *r = NULL;

	if (callus_redactor_new(&r, NULL) < 0)
		return -1;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	callus_redactor_free(*state);
	return 0;
}

/* Redact in[0..len) into a fresh buffer; returns the count. */
static size_t run(void **state, callus_buf *out, const char *in, size_t len)
{
	size_t count = 12345;

	assert_int_equal(callus_redact(*state, out, in, len, &count), 0);
	return count;
}

static void expect(void **state, const char *in, const char *want,
		   size_t want_count)
{
	callus_buf out = CALLUS_BUF_INIT;
	size_t count = run(state, &out, in, strlen(in));

	assert_string_equal(out.ptr, want);
	assert_int_equal(out.len, strlen(want));
	assert_int_equal(count, want_count);
	callus_buf_release(&out);
}

static void expect_unchanged(void **state, const char *in)
{
	expect(state, in, in, 0);
}

static void assert_absent(const callus_buf *b, const char *secret)
{
	if (memmem(b->ptr, b->len, secret, strlen(secret)))
		fail_msg("secret \"%s\" survived in:\n%s", secret, b->ptr);
}

/* callus_redact_colon_named() refuses a colon before calling the matcher:
 * it may refuse only colons callus_redact_match_assign() finds nothing
 * at.  Texts of pieces (names of secrets and not, quotes, separators,
 * values, a sibling "value"), each colon tried from every floor up to
 * it. */
static void test_colon_filter_as_said(void **state)
{
	static const char *const pieces[] = {
		"token", "secret", "password", "Passwd", "pwd", "pass", "sig", "auth",
		"session", "value", "VALUE", "apikey", "AWS_SECRET_ACCESS_KEY", "cookie",
		"creds", "key-data", "main.c", "error", "note", "1", "27", "x", "tokens",
		"keyvalue", "src/a.c", "\"", "'", "\\\"", " ", "_", "-", ".", ",", "\n",
		":", ":", ":", ": ", "=", "::", "hunter2Xy9", "ghp_R7kQ2mX9vL4nT8wZ1bC",
		"\"name\": \"password\", ", "sk-", "Bearer abc.def", "%", "\t"
	};
	const callus_redactor *r = *state;
	unsigned long long x = 88172645463325252ull;
	size_t refused = 0, found = 0, tried = 0;
	char text[256];

	for (int round = 0; round < 60000; round++) {
		size_t len = 0, parts;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		parts = 2 + x % 7;
		for (size_t k = 0; k < parts; k++) {
			const char *pc;
			size_t pl;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			pc = pieces[x % (sizeof(pieces) / sizeof(pieces[0]))];
			pl = strlen(pc);
			if (len + pl >= sizeof(text))
				break;
			memcpy(text + len, pc, pl);
			len += pl;
		}
		for (size_t op = 0; op < len; op++) {
			if (text[op] != ':')
				continue;
			for (size_t floor = 0; floor <= op; floor++) {
				struct scan sc = { r, (const unsigned char *)text, len, floor, NULL, 0, 0,
						   NULL, 0, 0 };
				struct match m = { 0, 0, 0, NULL };
				int named = callus_redact_colon_named(&sc, op);
				int hit = callus_redact_match_assign(&sc, op, &m);

				tried++;
				refused += !named;
				found += hit != 0;
				if (!named && hit)
					fail_msg("refused a colon the matcher takes: \"%.*s\" at %zu, floor %zu",
						 (int)len, text, op, floor);
			}
		}
	}
	/* both answers common: the filter refuses, and the matcher finds */
	assert_true(refused > tried / 8);
	assert_true(found > 1000);
}

/* The scan's sixteen-byte test of where a match may start (redact.c,
 * block_starts) against the tables alone: texts of secrets of each kind
 * the scan starts at (a token's prefix at a word's start, ':', '=', '-',
 * '~', '>', '#'), words that start none, bytes past ASCII and controls,
 * long enough to hold many blocks, each redacted by both ways to the
 * byte.  On a machine with SSE2 the test is the one used. */
static void test_sixteen_as_tables(void **state)
{
	static const char *const pieces[] = {
		"ghp_R7kQ2mX9vL4nT8wZ1bCxY3dE6fG0hJ5kL8m", "AKIAIOSFODNN7EXAMPLE",
		"https://deploy:hunter2Xy9Qz@example.com/x", "password=hunter2Xy9Qz",
		"<password>s3cr3tValue9</password>", "--token abcdefghijklmnop1234",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----",
		"#define API_KEY \"q8Zr2LmX0vT4nW9s\"", "# ", "#", "~/.netrc", "~user",
		"xoxb-1234567890-abcdefghijKL", "sk-proj-abcdefghijklmnopqrstuvwxyz012345",
		"glpat-abcdefghij0123456789", "4b1d", "Authorization: Bearer eyJhbGciOi.eyJzdWIi.c2ln",
		"src/d0/f0.c:10:1: error: ", "'var_0' undeclared", "(first use in this function)",
		"\n", "\\n", " ", "  ", "\t", ":", "=", "-", "~", ">", "<", "_", ".", "/", "'",
		"\"", "\xc3\xa9", "\xff", "\x01", "gh", "sk", "ghost", "github", "AKIA", "s", "d",
		"x", "9", "token", "secret:", "key=", "a-b", "--", "=>", ":://", "##",
	};
	callus_redactor *r = *state, tables;
	uint64_t x = 0x51ce7eed5eedULL;
	size_t found = 0;
	char text[2048];

#ifdef __SSE2__
	assert_int_equal(r->sixteen, 1);
#else
	skip(); /* the tables alone, both ways: nothing to compare */
#endif
	memcpy(&tables, r, sizeof(tables));
	tables.sixteen = 0;
	for (int round = 0; round < 20000; round++) {
		size_t len = pieces_line(text, sizeof(text), pieces,
					 sizeof(pieces) / sizeof(pieces[0]),
					 1 + pieces_next(&x) % 120, &x);
		callus_buf a = CALLUS_BUF_INIT, b = CALLUS_BUF_INIT;
		size_t na = 0, nb = 0;

		assert_int_equal(callus_redact(r, &a, text, len, &na), 0);
		assert_int_equal(callus_redact(&tables, &b, text, len, &nb), 0);
		if (na != nb || a.len != b.len || memcmp(a.ptr, b.ptr, a.len))
			fail_msg("the sixteen bytes' test and the tables differ on \"%.*s\"",
				 (int)len, text);
		found += na;
		callus_buf_release(&a);
		callus_buf_release(&b);
	}
	/* secrets of every kind found, many of them */
	assert_true(found > 20000);
}

/* callus_redact_str_json() writes what callus_redact_str() makes, escaped
 * as callus_buf_put_json_chars() escapes it: texts of secrets, escapes a
 * terminal reads, quotes, backslashes, control bytes and bad UTF-8 next
 * to one another, so that a secret may end or begin at each. */
static void test_str_json_is_str_escaped(void **state)
{
	static const char *const pieces[] = {
		"ghp_R7kQ2mX9vL4nT8wZ1bC5dF3gH6jK0pS2uY4a", "password=hunter2Xy9", "\"token\": \"",
		"AKIAIOSFODNN7EXAMPLE", "\033[31m", "\033[0m", "\"", "\\", "\n", "\t", "\x01",
		"\x7f", "\xff", "caf\xc3\xa9", "\xe2\x80\xae", " ", "Bearer abc.def.ghi", "x",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----",
	};
	const callus_redactor *r = *state;
	unsigned long long x = 2463534242ull;
	callus_buf got = CALLUS_BUF_INIT, want = CALLUS_BUF_INIT, in = CALLUS_BUF_INIT;

	for (int round = 0; round < 3000; round++) {
		char *red = NULL;

		callus_buf_clear(&in);
		for (size_t k = 0, parts = 1 + round % 9; k < parts; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			callus_buf_puts(&in, pieces[x % (sizeof(pieces) / sizeof(pieces[0]))]);
		}
		callus_buf_clear(&got);
		callus_buf_clear(&want);
		callus_buf_puts(&got, "kept ");
		callus_buf_puts(&want, "kept ");
		assert_int_equal(callus_redact_str_json(r, &got, in.ptr), 0);
		assert_int_equal(callus_redact_str(r, &red, in.ptr), 0);
		callus_buf_put_json_chars(&want, red, strlen(red));
		assert_string_equal(got.ptr, want.ptr);
		free(red);
	}
	assert_int_equal(callus_redact_str_json(NULL, &got, ""), CALLUS_EINVAL);
	assert_int_equal(callus_redact_str_json(r, NULL, ""), CALLUS_EINVAL);
	assert_int_equal(callus_redact_str_json(r, &got, NULL), CALLUS_EINVAL);
	callus_buf_release(&got);
	callus_buf_release(&want);
	callus_buf_release(&in);
}

/* A string redacted in place is what callus_redact_str() makes of it, and
 * one it would leave as it is (clean, no secret) is kept, not copied:
 * texts from the pieces of test_str_json_is_str_escaped, and ones with no
 * secret.  Fails when a string with a secret or an escape is kept. */
static void test_in_place_as_str(void **state)
{
	static const char *const pieces[] = {
		"ghp_R7kQ2mX9vL4nT8wZ1bC5dF3gH6jK0pS2uY4a", "password=hunter2Xy9", "\"token\": \"",
		"AKIAIOSFODNN7EXAMPLE", "\033[31m", "\"", "\\", "\n", "\t", "\x01", "\xff",
		"caf\xc3\xa9", " ", "Bearer abc.def.ghi", "x", "src/d5/f12.c", ":12:7: error: ",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----",
	};
	const callus_redactor *r = *state;
	unsigned long long x = 88172645463325252ull;
	callus_buf in = CALLUS_BUF_INIT;
	size_t kept = 0, changed = 0;
	char *text = NULL;

	for (int round = 0; round < 3000; round++) {
		char *want = NULL, *before;

		callus_buf_clear(&in);
		for (size_t k = 0, parts = 1 + round % 7; k < parts; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			callus_buf_puts(&in, pieces[x % (sizeof(pieces) / sizeof(pieces[0]))]);
		}
		assert_int_equal(callus_redact_str(r, &want, in.ptr), 0);
		assert_non_null(before = text = strdup(in.ptr));
		assert_int_equal(callus_redact_in_place(r, &text), 0);
		assert_string_equal(text, want);
		if (!strcmp(want, in.ptr)) {
			assert_ptr_equal(text, before);
			kept++;
		} else {
			changed++;
		}
		free(text);
		free(want);
	}
	/* both kinds, many times */
	assert_true(kept > 100);
	assert_true(changed > 1000);
	text = NULL;
	assert_int_equal(callus_redact_in_place(r, &text), 0);
	assert_null(text);
	assert_non_null(text = strdup("password=hunter2Xy9"));
	assert_int_equal(callus_redact_in_place(NULL, &text), CALLUS_EINVAL);
	free(text);
	callus_buf_release(&in);
}

/* ---- one test per kind ------------------------------------------------- */

static void test_github_tokens(void **state)
{
	expect(state,
	       "remote: Support for password authentication was removed.\n"
	       "fatal: Authentication failed for 'https://gh" "p_R7kQ2mX9vL4nT8wZ1bC5dF3gH6jK0pS2uY4a"
	       "@github.com/acme/api.git/'\n",
	       "remote: Support for password authentication was removed.\n"
	       "fatal: Authentication failed for 'https://[REDACTED:github-token]"
	       "@github.com/acme/api.git/'\n", 1);
	expect(state,
	       "Run actions/checkout@v4\n  token: gh" "s_16C7e42F292c6912E7710c838347Ae178B4a\n"
	       "  GH_PAT: github_" "pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghij\n",
	       "Run actions/checkout@v4\n  token: [REDACTED:github-token]\n"
	       "  GH_PAT: [REDACTED:github-token]\n", 2);
}

/* Hugging Face tokens are letters only, as CamelCase identifiers are,
 * which are left alone (tests/fixtures/secrets/clean/code-and-sql.txt):
 * of 200,000 random tokens at most 10 may read as words and be kept. */
static void test_huggingface_random(void **state)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	unsigned long x = 12345;
	char in[64];
	int kept = 0;

	for (int t = 0; t < 200000; t++) {
		callus_buf out = CALLUS_BUF_INIT;
		size_t count = 0;

		memcpy(in, "hf_", 3);
		for (int k = 0; k < 34; k++) {
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			in[3 + k] = letters[(x >> 33) % 52];
		}
		in[37] = '\0';
		assert_int_equal(callus_redact(*state, &out, in, strlen(in), &count), 0);
		if (count == 0 && !strcmp(out.ptr, in))
			kept++;
		else if (count != 1 || strcmp(out.ptr, "[REDACTED:huggingface-token]"))
			fail_msg("%s became %s", in, out.ptr);
		callus_buf_release(&out);
	}
	print_message("random Hugging Face tokens kept as words: %d of 200000\n", kept);
	assert_true(kept <= 10);
}

/* A Rust type with a lifetime: its quote is the type's, not a string's
 * (tests/fixtures/secrets cannot plant it: t0019 runs each line as shell). */
static void test_rust_lifetime(void **state)
{
	expect(state, "static SECRET: &'static str = \"Z4PGJVfeIx0IgdBPMA1LuV5h\";\n",
	       "static SECRET: &'static str = \"[REDACTED:secret-assignment]\";\n", 1);
}

/* PostgreSQL's E'' string takes \' as a quote inside: the password is
 * not cut there. */
static void test_sql_escapes(void **state)
{
	expect(state, "ALTER ROLE x PASSWORD E'Sup3r\\'S3cret';\n",
	       "ALTER ROLE x PASSWORD E'[REDACTED:sql-password]';\n", 1);
}

/* Go's grouped declarations: a typed line of a var ( or const ( group
 * holds no var of its own (tests/fixtures/secrets cannot plant it: t0019
 * puts each planted line after a diagnostic's words, and on one line). */
static void test_go_groups(void **state)
{
	expect(state,
	       "var (\n"
	       "\tapiToken = \"Zk4PqW9mLr2xVb7n\"\n"
	       "\tdbPassword string = \"Granite#8fKq2L\"\n"
	       ")\n"
	       "const (\n"
	       "    // the keys\n"
	       "\n"
	       "    sessionSecret string = \"Nimbus%3hTq9X\" // rotated\n"
	       ")\n"
	       " var (\n"
	       "+\tapiToken string = \"Rt5Yh8Nm3Jk6Lp0q\"\n"
	       " )\n",
	       "var (\n"
	       "\tapiToken = \"[REDACTED:secret-assignment]\"\n"
	       "\tdbPassword string = \"[REDACTED:secret-assignment]\"\n"
	       ")\n"
	       "const (\n"
	       "    // the keys\n"
	       "\n"
	       "    sessionSecret string = \"[REDACTED:secret-assignment]\" // rotated\n"
	       ")\n"
	       " var (\n"
	       "+\tapiToken string = \"[REDACTED:secret-assignment]\"\n"
	       " )\n", 4);
	/* a group with no secret name */
	expect_unchanged(state,
			 "var (\n\tname string = \"bob\"\n\tlogLevel string = \"debug\"\n)\n"
			 "const (\n    tokenKind string = \"IDENT\"\n)\n");
}

/* An environment entry's value, named by its "name" sibling: kubectl's
 * JSON over lines, a probe's HTTP header, logfmt. */
static void test_env_entries(void **state)
{
	expect(state,
	       "  {\n    \"name\": \"SMTP_PASSWORD\",\n    \"value\": \"Granite#8fKq2L\"\n  },\n"
	       "  httpHeaders:\n  - name: Authorization\n    value: Bearer Zk4PqW9mLr2xVb7n\n"
	       "level=info name=api_token value=Qx7Lm2Vb9Kp4Wz1c\n",
	       "  {\n    \"name\": \"SMTP_PASSWORD\",\n    \"value\": \"[REDACTED:secret-assignment]\"\n  },\n"
	       "  httpHeaders:\n  - name: Authorization\n    value: Bearer [REDACTED:auth-header]\n"
	       "level=info name=api_token value=[REDACTED:secret-assignment]\n", 3);
	expect_unchanged(state,
			 "  {\n    \"name\": \"LOG_LEVEL\",\n    \"value\": \"debug\"\n  },\n"
			 "hostname: db_password value: 42\n"
			 "level=info name=api_token value=<unset>\n");
}

/* A YAML block scalar under a secret's name: the lines indented deeper
 * than the key, one redaction (tests/fixtures/secrets cannot plant it:
 * t0019 also plants each line with its newlines made spaces). */
static void test_yaml_block_scalars(void **state)
{
	expect(state,
	       "password: |\n  Granite#8fKq2L\n  second line\nother: 1\n"
	       "db:\n  private_key: >-\n    Zk4PqW9mLr2xVb7n\n\n    Qx7Lm2Vb9Kp4Wz1c\n  host: db\n"
	       "- password: |2 # kept\n    Nimbus%3hTq9X\n"
	       "+\"token\": |\n+  Rt5Yh8Nm3Jk6Lp0q\n+name: x\n",
	       "password: |\n  [REDACTED:secret-assignment]\nother: 1\n"
	       "db:\n  private_key: >-\n    [REDACTED:secret-assignment]\n  host: db\n"
	       "- password: |2 # kept\n    [REDACTED:secret-assignment]\n"
	       "+\"token\": |\n+  [REDACTED:secret-assignment]\n+name: x\n", 4);
	/* no indented line after it, a template, not a secret's name, a
	 * lexer's token kind, nothing after it */
	expect_unchanged(state,
			 "password: |\nnext: x\n"
			 "password: |\n  {{ .Values.password }}\n"
			 "description: |\n  a long text\n"
			 "token: |\n  IDENT\n"
			 "private_key: |\n");
}

/* A prompt the secret's name is in: its ':' is not an assignment, and the
 * quote after it closes the prompt (what follows is code).  A quoted
 * value of symbols alone is still a value. */
static void test_prompts(void **state)
{
	expect_unchanged(state,
			 "password = input(\"Password: \")\n"
			 "token = getpass('Token: ');\n"
			 "x := prompt(\"API token: \")\n");
	expect(state,
	       "password: \"%^&*()_+=\"\n"
	       "print(\"Password: Granite#8fKq2L\")\n",
	       "password: \"[REDACTED:secret-assignment]\"\n"
	       "print(\"Password: [REDACTED:secret-assignment]\")\n", 2);
}

static void test_gitlab_tokens(void **state)
{
	expect(state,
	       "$ docker login -u ci -p gl" "dt-Zx9Qw8Er7Ty6Ui5Op4As registry.gitlab.com\n"
	       "WARNING! Using --password via the CLI is insecure.\n"
	       "curl --header \"PRIVATE-TOKEN: gl" "pat-Ab3dE5fG7hI9jK1lM3nO\" https://gitlab.com/api/v4/projects\n",
	       "$ docker login -u ci -p [REDACTED:gitlab-token] registry.gitlab.com\n"
	       "WARNING! Using --password via the CLI is insecure.\n"
	       "curl --header \"PRIVATE-TOKEN: [REDACTED:gitlab-token]\" https://gitlab.com/api/v4/projects\n",
	       2);
}

static void test_aws_keys(void **state)
{
	expect(state,
	       "botocore.exceptions.ClientError: InvalidAccessKeyId for AK" "IAQ3EGTZ7MXB2K4WJ5\n"
	       "[default]\n"
	       "aws_access_key_id = AK" "IAQ3EGTZ7MXB2K4WJ5\n"
	       "aws_secret_access_key = q8Fz2Lr+Tn5Vb/Xk3Wm7Yc1Hd9Gs4Jp6Ae0Ru2Io\n"
	       "AWS_SECRET_ACCESS_KEY=q8Fz2Lr+Tn5Vb/Xk3Wm7Yc1Hd9Gs4Jp6Ae0Ru2Io\n",
	       "botocore.exceptions.ClientError: InvalidAccessKeyId for [REDACTED:aws-key]\n"
	       "[default]\n"
	       "aws_access_key_id = [REDACTED:aws-key]\n"
	       "aws_secret_access_key = [REDACTED:aws-secret]\n"
	       "AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret]\n", 4);
	/* A session key id, and ids that are one character off. */
	expect(state, "creds AS" "IAY34FZKBOKMUTVV7A expired",
	       "creds [REDACTED:aws-key] expired", 1);
	expect_unchanged(state, "AKIA123 AKIAQ3EGTZ7MXB2K4WJ5X AKIAQ3EGTZ7MXB2K4WJ");
}

static void test_slack(void **state)
{
	expect(state,
	       "slack_sdk.errors.SlackApiError: invalid_auth (token=xo" "xb-2417519286433-2417519286434-Zq8Rr3Tn5Vb7Xk9Wm1Yc3Hd5)\n"
	       "POST https://hooks.slack.com/services/T02ABCDEF12/B03GHIJKL34/a1B2c3D4e5F6g7H8i9J0k1L2 -> 404\n",
	       "slack_sdk.errors.SlackApiError: invalid_auth (token=[REDACTED:slack-token])\n"
	       "POST https://hooks.slack.com/[REDACTED:slack-webhook] -> 404\n", 2);
	expect(state, "using xo" "xp-1234567890-0987654321-abcdefABCDEF",
	       "using [REDACTED:slack-token]", 1);
}

static void test_npm_token(void **state)
{
	expect(state,
	       "npm ERR! code E401\n"
	       "npm ERR! Unable to authenticate, your authentication token seems to be invalid.\n"
	       "npm ERR! .npmrc: //registry.npmjs.org/:_authToken=np" "m_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8\n"
	       "npm ERR! also tried np" "m_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8\n",
	       "npm ERR! code E401\n"
	       "npm ERR! Unable to authenticate, your authentication token seems to be invalid.\n"
	       "npm ERR! .npmrc: //registry.npmjs.org/:_authToken=[REDACTED:npm-token]\n"
	       "npm ERR! also tried [REDACTED:npm-token]\n", 2);
}

/* A jest failure that printed process.env. */
static void test_openai_anthropic_keys(void **state)
{
	expect(state,
	       "  ● client › sends the request\n\n"
	       "    expect(received).toEqual(expected) // deep equality\n"
	       "    Received: {\"HOME\": \"/home/ci\", \"LLM\": \"s" "k-proj-Tq3Zr8Wn2Xb5Lk7Vm1Hc9Jd4Fs6Gp0Ae3Ry5Uo\", "
	       "\"CLAUDE\": \"s" "k-ant-api03-Xy12Zz34Aa56Bb78Cc90Dd12Ee34Ff56Gg78Hh90-AA\", \"NODE_ENV\": \"test\"}\n"
	       "      at Object.<anonymous> (src/client.test.ts:42:19)\n",
	       "  ● client › sends the request\n\n"
	       "    expect(received).toEqual(expected) // deep equality\n"
	       "    Received: {\"HOME\": \"/home/ci\", \"LLM\": \"[REDACTED:openai-key]\", "
	       "\"CLAUDE\": \"[REDACTED:anthropic-key]\", \"NODE_ENV\": \"test\"}\n"
	       "      at Object.<anonymous> (src/client.test.ts:42:19)\n", 2);
	/* Legacy 48-character key, and kebab-case words that are not keys. */
	expect(state, "Incorrect API key provided: s" "k-T3BlbkFJa1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9\n",
	       "Incorrect API key provided: [REDACTED:openai-key]\n", 1);
	expect_unchanged(state, "see sk-learn-compat-layer-notes and sk-12 in risk-matrix-for-2024-planning\n"
				"sk-2024-roadmap-for-the-platform-team\n");
}

static void test_google_api_key(void **state)
{
	expect(state,
	       "-  \"apiKey\": \"AI" "zaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI\",\n"
	       "+  \"apiKey\": \"\",\n"
	       "   \"authDomain\": \"demo.firebaseapp.com\",\n",
	       "-  \"apiKey\": \"[REDACTED:google-api-key]\",\n"
	       "+  \"apiKey\": \"\",\n"
	       "   \"authDomain\": \"demo.firebaseapp.com\",\n", 1);
}

static void test_stripe_keys(void **state)
{
	expect(state,
	       "StripeAuthenticationError: Invalid API Key provided: s" "k_live_51H8xYzAbCdEfGhIjKlMnOpQr\n"
	       "restricted: r" "k_live_51H8xYzQrStUvWxYz012345 test: s" "k_test_4eC39HqLyjWDarjtT1zdp7dc\n",
	       "StripeAuthenticationError: Invalid API Key provided: [REDACTED:stripe-key]\n"
	       "restricted: [REDACTED:stripe-key] test: [REDACTED:stripe-key]\n", 3);
}

static void test_jwt(void **state)
{
	expect(state,
	       "127.0.0.1 - - \"GET /api/me?session=ey" "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
	       "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U HTTP/1.1\" 401\n"
	       "unsigned: ey" "JhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9. end\n",
	       "127.0.0.1 - - \"GET /api/me?session=[REDACTED:jwt] HTTP/1.1\" 401\n"
	       "unsigned: [REDACTED:jwt] end\n", 2);
	/* Two segments, or base64 JSON with no dots, is not a JWT. */
	expect_unchanged(state, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx\n"
				"snapshot: eyJmb28iOiJiYXIiLCJiYXoiOlsxLDIsM119\n");
}

static void test_private_key_blocks(void **state)
{
	static const char key[] =
		"-----BEGIN RSA PRIVATE KEY-----\n"
		"MIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi0Fd6Jm2v0Yx3bW7HcNq1zLr8a\n"
		"Zx0kQ3rP4sT5uV6wX7yZ8aB9cD0eF1gH2iJ3kL4mN5oP6qR7sT8uV9wX0yZ1aB2c\n"
		"-----END RSA PRIVATE KEY-----";
	callus_buf in = CALLUS_BUF_INIT, out = CALLUS_BUF_INIT;

	callus_buf_puts(&in, "FAIL test/tls.test.js\n  key fixture:\n");
	callus_buf_puts(&in, key);
	callus_buf_puts(&in, "\n  Error: error:1E08010C:DECODER routines::unsupported\n");
	assert_int_equal(run(state, &out, in.ptr, in.len), 1);
	assert_string_equal(out.ptr,
			    "FAIL test/tls.test.js\n  key fixture:\n[REDACTED:private-key]\n"
			    "  Error: error:1E08010C:DECODER routines::unsupported\n");
	callus_buf_release(&out);

	/* Inside a JSON string, with \n escapes. */
	expect(state,
	       "{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n"
	       "-----END PRIVATE KEY-----\\n\", \"client_email\": \"ci@demo.iam.gserviceaccount.com\"}",
	       "{\"private_key\": \"[REDACTED:private-key]\\n\", "
	       "\"client_email\": \"ci@demo.iam.gserviceaccount.com\"}", 1);

	/* Truncated logs: everything after BEGIN may be key material. */
	expect(state,
	       "ssh: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
	       "-----END CERTIFICATE-----\ntail\n",
	       "ssh: [REDACTED:private-key]", 1);

	/* An env dump of a multi-line variable: the value is the block. */
	expect(state,
	       "HOME=/root\nTLS_KEY=-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBn\n"
	       "-----END EC PRIVATE KEY-----\nPATH=/usr/bin\n",
	       "HOME=/root\nTLS_KEY=[REDACTED:private-key]\nPATH=/usr/bin\n", 1);

	/* Certificates and public keys are not secrets. */
	expect_unchanged(state, "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\n-----END CERTIFICATE-----\n"
				"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYI\n-----END PUBLIC KEY-----\n");
	callus_buf_release(&in);
}

static void test_url_passwords(void **state)
{
	expect(state,
	       "curl: (7) Failed to connect to https://deploy:s3cr3t-P%40ss@registry.example.com/v2/ port 443\n"
	       "DATABASE_URL=postgres://app:hunter2@db.internal:5432/app?sslmode=disable\n"
	       "redis://:pa55w0rd@cache:6379/0 and amqp://guest:p@ss:word@mq/\n",
	       "curl: (7) Failed to connect to https://deploy:[REDACTED:url-password]@registry.example.com/v2/ port 443\n"
	       "DATABASE_URL=postgres://app:[REDACTED:url-password]@db.internal:5432/app?sslmode=disable\n"
	       "redis://:[REDACTED:url-password]@cache:6379/0 and amqp://guest:[REDACTED:url-password]@mq/\n",
	       4);
	/* A token as the user is not skipped over for keeping the user. */
	expect(state, "git clone https://gh" "p_R7kQ2mX9vL4nT8wZ1bC5dF3gH6jK0pS2uY4a:x-oauth-basic@github.com/acme/api",
	       "git clone https://[REDACTED:github-token]:[REDACTED:url-password]@github.com/acme/api", 2);
	/* No password, a port, a placeholder, a path '@', a Windows drive. */
	expect_unchanged(state,
			 "ssh://git@github.com:22/acme/api.git http://localhost:3000/login "
			 "https://user:${PASS}@host/ https://x:***@host/ https://example.com/a:b@c "
			 "C://tmp/a:b@c file:///etc/passwd http://[::1]:8080/\n");
}

static void test_authorization_headers(void **state)
{
	expect(state,
	       "> GET /v1/models HTTP/2\n"
	       "> Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0\n"
	       "> authorization: Basic dXNlcjpwYXNzd29yZA==\n"
	       "< HTTP/2 401\n"
	       "requests: headers={'Authorization': 'token gh" "o_16C7e42F292c6912E7710c838347Ae178B4a'}\n",
	       "> GET /v1/models HTTP/2\n"
	       "> Authorization: Bearer [REDACTED:auth-header]\n"
	       "> authorization: Basic [REDACTED:auth-header]\n"
	       "< HTTP/2 401\n"
	       "requests: headers={'Authorization': 'token [REDACTED:auth-header]'}\n", 3);
	expect(state, "retrying with Bearer a1b2c3d4e5f6a7b8c9d0e1f2 (attempt 2)",
	       "retrying with Bearer [REDACTED:bearer-token] (attempt 2)", 1);
	expect_unchanged(state,
			 "Authorization: Bearer $TOKEN\nAuthorization: Bearer <token>\n"
			 "error: Authorization: missing\nBearer token required\n");
}

static void test_secret_assignments(void **state)
{
	expect(state,
	       "export DB_PASSWORD='correct-horse-9'\n"
	       "SECRET_KEY=django-insecure-x9#k2!q\n"
	       "  \"client_secret\": \"Qm9vdHN0cmFwNjQ\",\n"
	       "api_key: 7d3f1a9c2b\n"
	       "password = hunter2\n"
	       "Password: Tr0ub4dor&3\n"
	       "PASSWD=letmein99 TOKEN=abc123\n"
	       "{Token:tk_9f8e7d User:bob}\n"
	       "--password=s3cret! -e MYSQL_ROOT_PASSWORD=r00t\n"
	       "x-api-key: 0a1b2c3d4e5f\n"
	       "spring.datasource.password=Spr1ngPw\n"
	       "{\\\"accessToken\\\":\\\"at-77f1c0d2\\\"}\n",
	       "export DB_PASSWORD='[REDACTED:secret-assignment]'\n"
	       "SECRET_KEY=[REDACTED:secret-assignment]\n"
	       "  \"client_secret\": \"[REDACTED:secret-assignment]\",\n"
	       "api_key: [REDACTED:secret-assignment]\n"
	       "password = [REDACTED:secret-assignment]\n"
	       "Password: [REDACTED:secret-assignment]\n"
	       "PASSWD=[REDACTED:secret-assignment] TOKEN=[REDACTED:secret-assignment]\n"
	       "{Token:[REDACTED:secret-assignment] User:bob}\n"
	       "--password=[REDACTED:cli-password] -e MYSQL_ROOT_PASSWORD=[REDACTED:secret-assignment]\n"
	       "x-api-key: [REDACTED:secret-assignment]\n"
	       "spring.datasource.password=[REDACTED:secret-assignment]\n"
	       "{\\\"accessToken\\\":\\\"[REDACTED:secret-assignment]\\\"}\n", 14);
	/* Placeholders and empty values are left alone. */
	expect_unchanged(state,
			 "PASSWORD=${DB_PASSWORD} TOKEN=$TOKEN SECRET=<your-secret> "
			 "API_KEY=*** AUTH_TOKEN= \"password\": \"\"\n"
			 "token: null\nGITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n"
			 "private_key: |\n");
}

/* ---- what must survive --------------------------------------------------- */

static void test_ordinary_output_untouched(void **state)
{
	expect_unchanged(state,
		"src/auth/token.c:42:17: error: 'password' undeclared (first use in this function)\n"
		"   42 |     if (strlen(password) < 8)\n"
		"src/auth/token.c:57:5: warning: unused variable 'secret_key' [-Wunused-variable]\n"
		"   57 |     const char *secret_key = getenv(\"SECRET_KEY\");\n"
		"  ✓ password must be 8 chars (3 ms)\n"
		"  ✕ rejects password shorter than 8 characters (5 ms)\n"
		"FAILED tests/test_auth.py::test_password_too_short - AssertionError\n"
		"tests/test_auth.py::TestLogin::test_token_refresh PASSED\n"
		"    Expected: \"TOKEN_EXPIRED\"\n    Received: \"TOKEN_INVALID\"\n"
		"error.code: TOKEN_EXPIRED\n"
		"code = TOKEN_EXPIRED\n"
		"commit 3f786850e387550fdab836ed7e6dc881de23001b\n"
		"Merge: 1a2b3c4 5d6e7f8\n"
		"request id 123e4567-e89b-12d3-a456-426614174000 failed\n"
		"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
		"integrity sha512-Q8Fz2Lr+Tn5Vb/Xk3Wm7Yc1Hd9Gs4Jp6Ae0Ru2IoZx0kQ3rP4sT5uV6wX7yZ8aB9==\n"
		"exports[`renders avatar 1`] = `\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\"`;\n"
		"src/api.ts(12,5): error TS2322: Type '{ token: string; password: number; }' is not assignable.\n"
		"src/api.ts(14,3): error TS2345: Argument of type 'string' is not assignable to parameter of type '(token: Uint8Array) => void'.\n"
		"def login(password: str, api_key: Optional[str] = None) -> bool:\n"
		"SyntaxError: Unexpected token: '}'\n"
		"    token = get_token()\n"
		"    api_key = os.environ[\"API_KEY\"]\n"
		"    client = Client(api_key=api_key, secret=self.secret)\n"
		"    password = NULL;\n"
		"    token = p->next;\n"
		"  \"max_tokens\": 4096, \"eos_token\": \"[EOS]\", \"primary_key\": \"id\",\n"
		"  \"password_min_length\": 8, \"token\": 42, \"monkey\": \"banana\"\n"
		"PUBLIC_KEY=MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE publicKey: BPk3x9Lq2Zr7\n"
		"assert user.check_password(\"must be 8 chars\")\n"
		"expect(validate({password: \"must be 8 chars\"})).toBe(false)\n"
		"eslint: no-secrets/no-secrets, sk-proj is a prefix, ghp_short\n"
		"--------------------------------------------------------------\n");
}

/* ---- bytes, sizes, counts ------------------------------------------------ */

static void test_nul_and_invalid_utf8(void **state)
{
	static const char in[] =
		"\xff\xfe\0TOKEN=abc123\0\xc3\x28 gh" "p_R7kQ2mX9vL4nT8wZ1bC5dF3gH6jK0pS2uY4a\0\x80tail";
	static const char want[] =
		"\xff\xfe\0TOKEN=[REDACTED:secret-assignment]\0\xc3\x28 [REDACTED:github-token]\0\x80tail";
	callus_buf out = CALLUS_BUF_INIT;

	assert_int_equal(run(state, &out, in, sizeof(in) - 1), 2);
	assert_int_equal(out.len, sizeof(want) - 1);
	assert_memory_equal(out.ptr, want, sizeof(want) - 1);
	assert_int_equal(out.ptr[out.len], '\0');
	callus_buf_release(&out);

	/* Only bytes, no secrets: copied unchanged, NULs included. */
	assert_int_equal(run(state, &out, "a\0b\xff=:\0-", 9), 0);
	assert_int_equal(out.len, 9);
	assert_memory_equal(out.ptr, "a\0b\xff=:\0-", 9);
	callus_buf_release(&out);
}

static void test_empty_and_arguments(void **state)
{
	callus_buf out = CALLUS_BUF_INIT;
	size_t count = 7;
	char *s = (char *)"x";

	assert_int_equal(callus_redact(*state, &out, "", 0, &count), 0);
	assert_int_equal(count, 0);
	assert_int_equal(out.len, 0);
	assert_int_equal(callus_redact(*state, &out, NULL, 0, NULL), 0);
	assert_int_equal(callus_redact(*state, &out, NULL, 3, &count), CALLUS_EINVAL);
	assert_int_equal(callus_redact(NULL, &out, "x", 1, NULL), CALLUS_EINVAL);
	assert_int_equal(callus_redact(*state, NULL, "x", 1, NULL), CALLUS_EINVAL);

	assert_int_equal(callus_redact_str(*state, &s, NULL), 0);
	assert_null(s);
	assert_int_equal(callus_redact_str(*state, &s, ""), 0);
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(callus_redact_str(*state, &s, "login with password=hunter2 failed"), 0);
	assert_string_equal(s, "login with password=[REDACTED:secret-assignment] failed");
	free(s);
	callus_redactor_free(NULL);
}

static void test_appends_and_limit(void **state)
{
	callus_buf out = CALLUS_BUF_INIT;
	size_t count = 9;

	callus_buf_puts(&out, "prefix|");
	assert_int_equal(run(state, &out, "TOKEN=abc123", 12), 1);
	assert_string_equal(out.ptr, "prefix|TOKEN=[REDACTED:secret-assignment]");
	callus_buf_release(&out);

	/* A ceiling that cuts the replacement in the middle (room for
	 * "[REDACTED:" and "]" but not the kind): out is left as it was. */
	callus_buf_init(&out, 21);
	callus_buf_puts(&out, "keep");
	assert_int_equal(callus_redact(*state, &out, "TOKEN=abc123", 12, &count),
			 CALLUS_ETOOBIG);
	assert_int_equal(count, 0);
	assert_string_equal(out.ptr, "keep");
	callus_buf_release(&out);

	/* Input over the ceiling whose redacted form fits. */
	callus_buf_init(&out, 40);
	assert_int_equal(run(state, &out, "k: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC", 63), 1);
	assert_string_equal(out.ptr, "k: [REDACTED:private-key]");
	callus_buf_release(&out);
}

static void test_count_and_idempotence(void **state)
{
	static const char in[] =
		"A=AK" "IAQ3EGTZ7MXB2K4WJ5 B=https://u:pw1@h/ C: Bearer a1b2c3d4e5f6a7b8c9d0 "
		"API_KEY=zz9 jwt ey" "JhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl\n";
	callus_buf once = CALLUS_BUF_INIT, twice = CALLUS_BUF_INIT;

	assert_int_equal(run(state, &once, in, sizeof(in) - 1), 5);
	assert_int_equal(run(state, &twice, once.ptr, once.len), 0);
	assert_string_equal(twice.ptr, once.ptr);
	assert_absent(&once, "pw1");
	assert_absent(&once, "zz9");
	callus_buf_release(&once);
	callus_buf_release(&twice);
}

/*
 * Inputs (reduced from fuzzing) where a second pass used to redact more:
 * what a pass decides must not depend on bytes that the pass itself
 * replaces.
 */
static void test_idempotence_regressions(void **state)
{
	static const struct {
		const char *in, *secret; /* secret: must be gone, or NULL */
	} cases[] = {
		/* a placeholder '$' that a token follows */
		{ "\"ANTHROPIC_API_KEY\": $s" "k-ant-api03-Xy12Zz34Aa56Bb78Cc90Dd12Ee34Ff56Gg78Hh90-AA\",\n",
		  "Zz34Aa56" },
		/* an escaped character just before a key block */
		{ "{\"GITHUB_TOKEN\": \"g\\\\\\-----BEGIN RSA PRIVATE KEY-----\nabc", "abc" },
		/* a token standing where an Authorization scheme would be */
		{ "Authorization:  \"s" "k-aABb78Cc90Dd1zECITHU e3KEY----", "aABb78" },
		/* a key block where a URL's host would be (not a URL then) */
		{ "https://deploy:s2cr3t@-----BEGIN RSA PRIVATE KEY-----N=x\n", "N=x" },
		/* a secret whose tail reads like "Unexpected" */
		{ "s" "k-proj-Ab12Cd34Ef56Gh78Ij9expected token: '}' at 3\n", "Ab12Cd34" },
		/* a token right after a key block's END line */
		{ "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----gh"
		  "p_R7kQ2mX9vL4nT8wZ1bC5dF3gH6jK0pS2uY4a\n", "R7kQ2mX9" },
		/* a later '@' whose "host" is a secret */
		{ "https://deploy:s3cr3t@regisTOKEN=ample.cloy:s3CrR+tE@[\n", "s3cr3t" },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		callus_buf once = CALLUS_BUF_INIT, twice = CALLUS_BUF_INIT;

		assert_true(run(state, &once, cases[k].in, strlen(cases[k].in)) > 0);
		assert_int_equal(run(state, &twice, once.ptr, once.len), 0);
		assert_string_equal(twice.ptr, once.ptr);
		assert_absent(&once, cases[k].secret);
		callus_buf_release(&once);
		callus_buf_release(&twice);
	}
}

/* 1 MiB of realistic output with three secrets: start, middle, end. */
static void test_one_megabyte(void **state)
{
	static const char chunk[] =
		"src/parser.c:118:9: warning: comparison of integer expressions of different signedness [-Wsign-compare]\n"
		"  118 |     for (i = 0; i < n; i++) { if (tok->kind == TOKEN_EOF) break; }\n"
		"PASS tests/api.test.ts (3.2 s) commit 3f786850e387550fdab836ed7e6dc881de23001b\n";
	static const char secret[] = "DB_PASSWORD=Zq8Rr3Tn5\n";
	static const char red[] = "DB_PASSWORD=[REDACTED:secret-assignment]\n";
	callus_buf in = CALLUS_BUF_INIT, out = CALLUS_BUF_INIT;
	size_t chunks = 0, plain;

	callus_buf_puts(&in, secret);
	while (in.len < (1u << 20)) {
		callus_buf_puts(&in, chunk);
		if (++chunks == 3000)
			callus_buf_puts(&in, secret);
	}
	callus_buf_puts(&in, secret);
	assert_int_equal(callus_buf_status(&in), 0);
	plain = in.len - 3 * (sizeof(secret) - 1);

	assert_int_equal(run(state, &out, in.ptr, in.len), 3);
	assert_int_equal(out.len, plain + 3 * (sizeof(red) - 1));
	assert_absent(&out, "Zq8Rr3Tn5");
	assert_memory_equal(out.ptr, red, sizeof(red) - 1);
	assert_memory_equal(out.ptr + sizeof(red) - 1, chunk, sizeof(chunk) - 1);
	assert_memory_equal(out.ptr + out.len - (sizeof(red) - 1), red, sizeof(red) - 1);
	callus_buf_release(&in);
	callus_buf_release(&out);
}

/* Longer than the matchers' scan cap: the whole token still goes. */
static void test_long_token(void **state)
{
	callus_buf in = CALLUS_BUF_INIT, out = CALLUS_BUF_INIT;

	callus_buf_puts(&in, "key=gh" "p_");
	for (int i = 0; i < 5000; i++)
		callus_buf_putc(&in, "aZ3"[i % 3]);
	callus_buf_puts(&in, " end");
	assert_int_equal(run(state, &out, in.ptr, in.len), 1);
	assert_string_equal(out.ptr, "key=[REDACTED:github-token] end");
	callus_buf_release(&in);
	callus_buf_release(&out);
}

/* Command lines cut short or malformed: an option with no value, an
 * unterminated quote (the value runs to the end of the line), a NUL (it
 * ends a word), a value longer than the matchers read before deciding. */
static void test_command_line_bad_inputs(void **state)
{
	static const char nul_in[] = "deploy --password s3cr3tX9\0tail";
	static const char nul_want[] = "deploy --password [REDACTED:cli-password]\0tail";
	callus_buf in = CALLUS_BUF_INIT, out = CALLUS_BUF_INIT;

	/* an option at the end, with no value */
	expect_unchanged(state, "deploy --password");
	expect_unchanged(state, "deploy --password ");
	expect_unchanged(state, "deploy --password \n--yes");
	expect_unchanged(state, "mysql -p");
	expect_unchanged(state, "docker login -u ci -p");
	expect_unchanged(state, "curl -u admin:");
	expect_unchanged(state, "tool --password=");
	/* unterminated quotes */
	expect(state, "deploy --password 'abc12345\nnext line",
	       "deploy --password [REDACTED:cli-password]\nnext line", 1);
	expect(state, "mysql -p'abc12345", "mysql -p[REDACTED:cli-password]", 1);
	expect(state, "curl -u 'admin:abc12345", "curl -u 'admin:[REDACTED:cli-password]", 1);
	expect(state, "DB_PASSWORD=\"abc12345\nnext", "DB_PASSWORD=\"[REDACTED:secret-assignment]\nnext", 1);
	expect(state, "sh -c 'DB_PASSWORD='\\''abc12345",
	       "sh -c 'DB_PASSWORD='\\''[REDACTED:secret-assignment]", 1);
	/* a quote that ends a value and opens no string goes with it, and the
	 * rest of the line: it may close a script around the command (sh -c
	 * '... --password=X', which the drainer closes again: detect.h) or be
	 * the password's own, and telling them apart showed passwords whole
	 * (a quote cut off a lowercase value reads as prose, an upper-case one
	 * as a help text's name) or in part (a quote and an operator inside) */
	expect(state, "bash -c 'gcc -c f1.c --password=hunter2'",
	       "bash -c 'gcc -c f1.c --password=[REDACTED:cli-password]", 1);
	expect(state, "bash -c 'mysql -u root --password correcthorsebattery'",
	       "bash -c 'mysql -u root --password [REDACTED:cli-password]", 1);
	expect(state, "sh -c 'vault login --token CORRECTHORSE' && echo ok",
	       "sh -c 'vault login --token [REDACTED:cli-password]", 1);
	expect(state, "bash -c 'mysql --password=ZY24K' ZV37K)KY24J",
	       "bash -c 'mysql --password=[REDACTED:cli-password]", 1);
	expect(state, "find . -exec sh -c 'mysql -pJk37j')Vq66j",
	       "find . -exec sh -c 'mysql -p[REDACTED:cli-password]", 1);
	/* one inside the value: all of it goes */
	expect(state, "deploy --password=it'sasecret9", "deploy --password=[REDACTED:cli-password]", 1);
	expect(state, "deploy --password=ab'cd ef' next", "deploy --password=[REDACTED:cli-password] next", 1);
	expect(state, "INFO running: deploy --password=Kx9'&Lm2q --env prod",
	       "INFO running: deploy --password=[REDACTED:cli-password]", 1);
	expect(state, "Error: can't connect: mysql --password=Kx9'&Lm2q",
	       "Error: can't connect: mysql --password=[REDACTED:cli-password]", 1);
	expect(state, "curl -u user:Kx9'&Lm2q https://x", "curl -u user:[REDACTED:cli-password]", 1);
	/* NUL bytes: the value ends there, and they are copied */
	assert_int_equal(run(state, &out, nul_in, sizeof(nul_in) - 1), 1);
	assert_int_equal(out.len, sizeof(nul_want) - 1);
	assert_memory_equal(out.ptr, nul_want, sizeof(nul_want) - 1);
	callus_buf_release(&out);
	/* an attached value longer than any option's name (it used to be
	 * read as a name and refused) */
	expect(state, "mysql -pAb3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9oPq2rSt5uVw8xYz app",
	       "mysql -p[REDACTED:cli-password] app", 1);
	expect(state, "tool -pAb3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9oPq2rSt5uVw8xYz",
	       "tool -p[REDACTED:cli-password]", 1);
	/* a long option's name that long is no option */
	expect_unchanged(state, "tool --averyveryveryveryveryveryveryveryveryveryveryvery"
				"verylongoptionname-password x9Kq2mVb");
	/* a value longer than the part decided on goes whole (its tail used
	 * to survive) */
	callus_buf_puts(&in, "deploy --password ");
	for (int i = 0; i < 10000; i++)
		callus_buf_putc(&in, "aZ3"[i % 3]);
	callus_buf_puts(&in, " --yes");
	assert_int_equal(run(state, &out, in.ptr, in.len), 1);
	assert_string_equal(out.ptr, "deploy --password [REDACTED:cli-password] --yes");
	callus_buf_release(&out);
	callus_buf_clear(&in);
	callus_buf_puts(&in, "mysql -p");
	for (int i = 0; i < 10000; i++)
		callus_buf_putc(&in, "aZ3"[i % 3]);
	assert_int_equal(run(state, &out, in.ptr, in.len), 1);
	assert_string_equal(out.ptr, "mysql -p[REDACTED:cli-password]");
	callus_buf_release(&out);
	callus_buf_release(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_github_tokens),
		cmocka_unit_test(test_huggingface_random),
		cmocka_unit_test(test_rust_lifetime),
		cmocka_unit_test(test_sql_escapes),
		cmocka_unit_test(test_go_groups),
		cmocka_unit_test(test_env_entries),
		cmocka_unit_test(test_yaml_block_scalars),
		cmocka_unit_test(test_prompts),
		cmocka_unit_test(test_gitlab_tokens),
		cmocka_unit_test(test_aws_keys),
		cmocka_unit_test(test_slack),
		cmocka_unit_test(test_npm_token),
		cmocka_unit_test(test_openai_anthropic_keys),
		cmocka_unit_test(test_google_api_key),
		cmocka_unit_test(test_stripe_keys),
		cmocka_unit_test(test_jwt),
		cmocka_unit_test(test_private_key_blocks),
		cmocka_unit_test(test_url_passwords),
		cmocka_unit_test(test_authorization_headers),
		cmocka_unit_test(test_secret_assignments),
		cmocka_unit_test(test_ordinary_output_untouched),
		cmocka_unit_test(test_nul_and_invalid_utf8),
		cmocka_unit_test(test_empty_and_arguments),
		cmocka_unit_test(test_appends_and_limit),
		cmocka_unit_test(test_count_and_idempotence),
		cmocka_unit_test(test_colon_filter_as_said),
		cmocka_unit_test(test_sixteen_as_tables),
		cmocka_unit_test(test_str_json_is_str_escaped),
		cmocka_unit_test(test_in_place_as_str),
		cmocka_unit_test(test_idempotence_regressions),
		cmocka_unit_test(test_one_megabyte),
		cmocka_unit_test(test_long_token),
		cmocka_unit_test(test_command_line_bad_inputs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * redact_tokens.c - secrets known by their shape, wherever they appear:
 * tokens with a vendor's prefix (a table of 170 prefixes: GitHub,
 * GitLab, AWS, Slack, OpenAI, Stripe, ...), JWTs and Bearer credentials,
 * webhook URLs, a few shapes with no prefix (Telegram and Discord bot
 * tokens, Azure AD client secrets, Mailchimp keys), PEM private key blocks,
 * and the password of a "scheme://user:password@host" URL.  Called by the
 * driver in redact.c at a trigger byte; apart from it because each vendor's
 * format adds a row or a matcher here.
 *
 * The formats were listed from public secret scanners' rule sets (gitleaks,
 * trufflehog) and written here as segments of character classes: a token
 * is its prefix, then up to three spans of a class, each of a length in a
 * range and followed by a separator byte.  A span is read greedily and
 * never backtracks; an unbounded one is decided on its first SPAN_CAP bytes
 * and then taken whole.
 */
#include "redact_internal.h"

#include <string.h>

/* ---- the table -------------------------------------------------------- */

enum {
	F_DIGIT = 1 << 0,   /* a digit in the body (random ids have one) */
	F_UPDIG = 1 << 1,   /* an upper-case letter or a digit in the body */
	F_CASES = 1 << 2,   /* both cases in the body */
	F_DOTS = 1 << 3,    /* trailing dots end a sentence, not the token */
	F_PAD = 1 << 4,     /* up to three '=' of base64 padding follow */
	F_NODOT = 1 << 5,   /* not followed by ".x": then part of a longer name */
	F_NOWORDS = 1 << 6  /* not CamelCase words (a letters-only body) */
};

struct seg {
	uint16_t cls;
	uint16_t min, max;  /* max 0: any length */
	char sep;           /* the byte after the span, 0 for none */
};

typedef int (*tok_fn)(const struct scan *sc, size_t i, struct match *m);

/* The matchers of their own a rule may name (tok_rule.fn). */
enum {
	M_NONE,
	M_AWS,
	M_SK,
	M_JWT,
	M_BEARER,
	M_SLACK_WEBHOOK,
	M_DISCORD_WEBHOOK,
	M_TEAMS_WEBHOOK,
	M_TERRAFORM,
	M_KEYWORD,
	M_DEFINE,
	M_SETTER,
	M_SQL
};

/*
 * A rule holds no pointer: a static PIE's start writes every page that
 * holds one (its relocation), and this table of 181 rules was three of
 * the 4 KB pages every process of callus faulted in and copied before its
 * first line ran (docs/scale-history.md, the eighty-third pass).  Its
 * texts are in the rule, its matcher an index into tok_fns.
 */
struct tok_rule {
	char prefix[29];     /* two bytes at least, 28 at most */
	uint8_t plen;
	char kind[18];       /* at most 17 bytes: see callus/redact.h */
	uint8_t fn;          /* a matcher of its own, called at the prefix: M_* */
	uint8_t flags;
	struct seg seg[3];
};

static int match_aws(const struct scan *sc, size_t i, struct match *m);
static int match_sk(const struct scan *sc, size_t i, struct match *m);
static int match_jwt(const struct scan *sc, size_t i, struct match *m);
static int match_bearer(const struct scan *sc, size_t i, struct match *m);
static int match_slack_webhook(const struct scan *sc, size_t i, struct match *m);
static int match_discord_webhook(const struct scan *sc, size_t i, struct match *m);
static int match_teams_webhook(const struct scan *sc, size_t i, struct match *m);
static int match_terraform(const struct scan *sc, size_t i, struct match *m);

#define S(cls, min, max, sep) { (cls), (min), (max), (sep) }
#define TOK(prefix, kind, flags, ...) \
	{ prefix, sizeof(prefix) - 1, kind, M_NONE, (flags), { __VA_ARGS__ } }
#define FN(prefix, fn) { prefix, sizeof(prefix) - 1, "", (fn), 0, { S(0, 0, 0, 0) } }

#define AN C_ALNUM
#define UD (C_UP | C_DIG)
#define LD (C_LO | C_DIG)
#define HX C_HEX
#define BU C_B64URL
#define B64 (C_B64URL | C_B64)

/* Order matters only between rules whose prefixes overlap: the first that
 * matches wins, so a longer prefix comes before a shorter one. */
static const struct tok_rule rules[] = {
	/* GitHub */
	TOK("ghp_", "github-token", 0, S(AN, 30, 0, 0)),
	TOK("gho_", "github-token", 0, S(AN, 30, 0, 0)),
	TOK("ghu_", "github-token", 0, S(AN, 30, 0, 0)),
	TOK("ghs_", "github-token", 0, S(AN, 30, 0, 0)),
	TOK("ghr_", "github-token", 0, S(AN, 30, 0, 0)),
	TOK("github_pat_", "github-token", 0, S(C_WORD, 40, 0, 0)),
	/* GitLab */
	TOK("glpat-", "gitlab-token", F_UPDIG | F_DOTS, S(BU | C_DOT, 20, 0, 0)),
	TOK("gloas-", "gitlab-token", F_UPDIG | F_DOTS, S(BU | C_DOT, 20, 0, 0)),
	TOK("gldt-", "gitlab-token", F_UPDIG | F_DOTS, S(BU | C_DOT, 20, 0, 0)),
	TOK("glrtr-", "gitlab-token", F_UPDIG | F_DOTS, S(BU | C_DOT, 20, 0, 0)),
	TOK("glrt-", "gitlab-token", F_UPDIG | F_DOTS, S(BU | C_DOT, 20, 0, 0)),
	TOK("glcbt-", "gitlab-token", F_UPDIG | F_DOTS, S(BU | C_DOT, 20, 0, 0)),
	TOK("glptt-", "gitlab-token", F_UPDIG | F_DOTS, S(BU | C_DOT, 20, 0, 0)),
	TOK("glft-", "gitlab-token", F_UPDIG | F_DOTS, S(BU | C_DOT, 20, 0, 0)),
	TOK("glimt-", "gitlab-token", F_UPDIG | F_DOTS, S(BU | C_DOT, 20, 0, 0)),
	TOK("glagent-", "gitlab-token", F_UPDIG | F_DOTS, S(BU | C_DOT, 20, 0, 0)),
	TOK("glsoat-", "gitlab-token", F_UPDIG | F_DOTS, S(BU | C_DOT, 20, 0, 0)),
	TOK("glffct-", "gitlab-token", F_UPDIG | F_DOTS, S(BU | C_DOT, 20, 0, 0)),
	TOK("glwt-", "gitlab-token", F_UPDIG | F_DOTS, S(BU | C_DOT, 20, 0, 0)),
	TOK("GR1348941", "gitlab-token", 0, S(BU, 20, 0, 0)),
	/* Grafana */
	TOK("glc_", "grafana-token", F_PAD, S(B64, 32, 0, 0)),
	TOK("glsa_", "grafana-token", 0, S(AN, 32, 32, '_'), S(HX, 8, 8, 0)),
	TOK("eyJrIjoi", "grafana-token", F_PAD | F_NODOT, S(AN, 70, 0, 0)),
	/* AWS */
	FN("AKIA", M_AWS), FN("ASIA", M_AWS), FN("ABIA", M_AWS), FN("ACCA", M_AWS),
	TOK("ABSK", "aws-bedrock-key", F_PAD, S(B64, 100, 0, 0)),
	/* Google */
	TOK("AIza", "google-api-key", 0, S(BU, 35, 0, 0)),
	TOK("GOCSPX-", "google-oauth", 0, S(BU, 24, 0, 0)),
	TOK("ya29.", "google-oauth", F_UPDIG, S(BU, 30, 0, 0)),
	/* Slack */
	TOK("xoxa-", "slack-token", F_DIGIT, S(AN | C_DASH, 10, 0, 0)),
	TOK("xoxb-", "slack-token", F_DIGIT, S(AN | C_DASH, 10, 0, 0)),
	TOK("xoxp-", "slack-token", F_DIGIT, S(AN | C_DASH, 10, 0, 0)),
	TOK("xoxr-", "slack-token", F_DIGIT, S(AN | C_DASH, 10, 0, 0)),
	TOK("xoxs-", "slack-token", F_DIGIT, S(AN | C_DASH, 10, 0, 0)),
	TOK("xoxe-", "slack-token", F_DIGIT, S(AN | C_DASH, 10, 0, 0)),
	TOK("xapp-", "slack-token", F_DIGIT, S(AN | C_DASH, 10, 0, 0)),
	FN("hooks.slack.com/", M_SLACK_WEBHOOK),
	/* Discord, Microsoft Teams: the webhook's path is the credential */
	FN("discord.com/api/webhooks/", M_DISCORD_WEBHOOK),
	FN("discordapp.com/api/webhooks/", M_DISCORD_WEBHOOK),
	FN("webhook.office.com/", M_TEAMS_WEBHOOK),
	/* Discord bot tokens: the user id in base64 (its first digit gives
	 * the first two bytes), a timestamp, an HMAC */
	TOK("MT", "discord-token", 0, S(AN, 20, 26, '.'), S(BU, 6, 7, '.'), S(BU, 27, 40, 0)),
	TOK("Mj", "discord-token", 0, S(AN, 20, 26, '.'), S(BU, 6, 7, '.'), S(BU, 27, 40, 0)),
	TOK("Mz", "discord-token", 0, S(AN, 20, 26, '.'), S(BU, 6, 7, '.'), S(BU, 27, 40, 0)),
	TOK("ND", "discord-token", 0, S(AN, 20, 26, '.'), S(BU, 6, 7, '.'), S(BU, 27, 40, 0)),
	TOK("NT", "discord-token", 0, S(AN, 20, 26, '.'), S(BU, 6, 7, '.'), S(BU, 27, 40, 0)),
	TOK("Nj", "discord-token", 0, S(AN, 20, 26, '.'), S(BU, 6, 7, '.'), S(BU, 27, 40, 0)),
	TOK("Nz", "discord-token", 0, S(AN, 20, 26, '.'), S(BU, 6, 7, '.'), S(BU, 27, 40, 0)),
	TOK("OD", "discord-token", 0, S(AN, 20, 26, '.'), S(BU, 6, 7, '.'), S(BU, 27, 40, 0)),
	TOK("OT", "discord-token", 0, S(AN, 20, 26, '.'), S(BU, 6, 7, '.'), S(BU, 27, 40, 0)),
	/* npm, PyPI, RubyGems, NuGet, Clojars, Docker Hub */
	TOK("npm_", "npm-token", 0, S(AN, 36, 0, 0)),
	TOK("pypi-AgE", "pypi-token", 0, S(BU, 60, 0, 0)),
	TOK("rubygems_", "rubygems-key", 0, S(HX, 48, 48, 0)),
	TOK("oy2", "nuget-key", 0, S(LD, 43, 43, 0)),
	TOK("CLOJARS_", "clojars-token", 0, S(AN, 60, 0, 0)),
	TOK("dckr_pat_", "docker-token", 0, S(BU, 27, 0, 0)),
	TOK("dckr_oat_", "docker-token", 0, S(BU, 27, 0, 0)),
	/* model providers (OpenAI and Anthropic: match_sk) */
	FN("sk-", M_SK),
	TOK("hf_", "huggingface-token", F_NOWORDS, S(C_ALPHA, 30, 0, 0)),
	TOK("api_org_", "huggingface-token", F_NOWORDS, S(C_ALPHA, 30, 0, 0)),
	TOK("gsk_", "groq-key", 0, S(AN, 48, 0, 0)),
	TOK("pplx-", "perplexity-key", 0, S(AN, 40, 0, 0)),
	TOK("xai-", "xai-key", 0, S(AN, 70, 0, 0)),
	TOK("r8_", "replicate-token", F_DIGIT, S(AN, 37, 40, 0)),
	TOK("lsv2_pt_", "langsmith-key", 0, S(HX, 32, 32, '_'), S(HX, 10, 10, 0)),
	TOK("lsv2_sk_", "langsmith-key", 0, S(HX, 32, 32, '_'), S(HX, 10, 10, 0)),
	/* payments */
	TOK("sk_live_", "stripe-key", 0, S(AN, 16, 0, 0)),
	TOK("sk_test_", "stripe-key", 0, S(AN, 16, 0, 0)),
	TOK("sk_prod_", "stripe-key", 0, S(AN, 16, 0, 0)),
	TOK("rk_live_", "stripe-key", 0, S(AN, 16, 0, 0)),
	TOK("rk_test_", "stripe-key", 0, S(AN, 16, 0, 0)),
	TOK("rk_prod_", "stripe-key", 0, S(AN, 16, 0, 0)),
	TOK("whsec_", "stripe-webhook", 0, S(B64, 24, 0, 0)),
	TOK("sq0atp-", "square-token", 0, S(BU, 22, 0, 0)),
	TOK("sq0csp-", "square-token", 0, S(BU, 40, 0, 0)),
	TOK("EAAA", "square-token", F_CASES | F_DIGIT, S(BU, 40, 0, 0)),
	TOK("EAAC", "facebook-token", F_CASES | F_DIGIT, S(AN, 100, 0, 0)),
	TOK("EAAM", "facebook-token", F_CASES | F_DIGIT, S(AN, 100, 0, 0)),
	TOK("access_token$production$", "braintree-token", 0, S(AN, 16, 16, '$'), S(HX, 32, 32, 0)),
	TOK("access_token$sandbox$", "braintree-token", 0, S(AN, 16, 16, '$'), S(HX, 32, 32, 0)),
	TOK("access-production-", "plaid-token", 0, S(HX | C_DASH, 36, 36, 0)),
	TOK("access-development-", "plaid-token", 0, S(HX | C_DASH, 36, 36, 0)),
	TOK("access-sandbox-", "plaid-token", 0, S(HX | C_DASH, 36, 36, 0)),
	TOK("FLWSECK_TEST-", "flutterwave-key", 0, S(HX, 32, 32, '-'), S(C_UP, 1, 1, 0)),
	TOK("FLWSECK-", "flutterwave-key", 0, S(HX, 32, 32, '-'), S(C_UP, 1, 1, 0)),
	TOK("shippo_live_", "shippo-token", 0, S(HX, 40, 40, 0)),
	TOK("shippo_test_", "shippo-token", 0, S(HX, 40, 40, 0)),
	TOK("duffel_live_", "duffel-token", 0, S(BU | C_EQ, 43, 0, 0)),
	TOK("duffel_test_", "duffel-token", 0, S(BU | C_EQ, 43, 0, 0)),
	TOK("EZAK", "easypost-key", 0, S(AN, 54, 54, 0)),
	TOK("EZTK", "easypost-key", 0, S(AN, 54, 54, 0)),
	TOK("live_", "lob-key", 0, S(HX, 35, 35, 0)),
	TOK("test_", "lob-key", 0, S(HX, 35, 35, 0)),
	/* e-mail, messaging */
	TOK("SG.", "sendgrid-key", 0, S(BU, 22, 22, '.'), S(BU, 43, 43, 0)),
	TOK("key-", "mailgun-key", 0, S(HX, 32, 32, 0)),
	TOK("xkeysib-", "brevo-key", 0, S(HX, 64, 64, '-'), S(AN, 16, 16, 0)),
	TOK("SK", "twilio-key", 0, S(HX, 32, 32, 0)),
	/* Shopify */
	TOK("shpat_", "shopify-token", 0, S(HX, 32, 32, 0)),
	TOK("shpss_", "shopify-token", 0, S(HX, 32, 32, 0)),
	TOK("shpca_", "shopify-token", 0, S(HX, 32, 32, 0)),
	TOK("shppa_", "shopify-token", 0, S(HX, 32, 32, 0)),
	/* cloud and infrastructure */
	TOK("hvs.", "vault-token", 0, S(BU, 90, 0, 0)),
	TOK("hvb.", "vault-token", 0, S(BU, 100, 0, 0)),
	TOK("s.", "vault-token", F_CASES | F_DIGIT, S(AN, 24, 24, 0)),
	FN("atlasv1.", M_TERRAFORM),
	TOK("dop_v1_", "digitalocean-key", 0, S(HX, 64, 64, 0)),
	TOK("doo_v1_", "digitalocean-key", 0, S(HX, 64, 64, 0)),
	TOK("dor_v1_", "digitalocean-key", 0, S(HX, 64, 64, 0)),
	TOK("dapi", "databricks-token", 0, S(HX, 32, 32, 0)),
	TOK("dp.pt.", "doppler-token", 0, S(AN, 40, 0, 0)),
	TOK("dp.st.", "doppler-token", 0, S(AN | C_DOT | C_US | C_DASH, 40, 0, 0)),
	TOK("dp.sa.", "doppler-token", 0, S(AN, 40, 0, 0)),
	TOK("dp.ct.", "doppler-token", 0, S(AN, 40, 0, 0)),
	TOK("dp.scim.", "doppler-token", 0, S(AN, 40, 0, 0)),
	TOK("dp.audit.", "doppler-token", 0, S(AN, 40, 0, 0)),
	TOK("dt0c01.", "dynatrace-token", 0, S(AN, 24, 24, '.'), S(AN, 64, 64, 0)),
	TOK("v1.0-", "cloudflare-key", 0, S(HX, 24, 24, '-'), S(HX, 146, 146, 0)),
	TOK("sha256~", "openshift-token", 0, S(BU, 43, 43, 0)),
	TOK("LTAI", "alibaba-key", 0, S(AN, 20, 20, 0)),
	TOK("AQVN", "yandex-key", 0, S(BU, 35, 38, 0)),
	TOK("HRKU-AA", "heroku-key", 0, S(BU, 58, 58, 0)),
	TOK("fo1_", "fly-token", 0, S(BU, 43, 43, 0)),
	TOK("fm1a_", "fly-token", F_PAD, S(B64, 100, 0, 0)),
	TOK("fm1r_", "fly-token", F_PAD, S(B64, 100, 0, 0)),
	TOK("fm2_", "fly-token", F_PAD, S(B64, 100, 0, 0)),
	TOK("pscale_tkn_", "planetscale-key", 0, S(BU | C_EQ, 32, 0, 0)),
	TOK("pscale_oauth_", "planetscale-key", 0, S(BU | C_EQ, 32, 0, 0)),
	TOK("pscale_pw_", "planetscale-key", 0, S(BU | C_EQ, 32, 0, 0)),
	TOK("sbp_", "supabase-key", 0, S(HX, 40, 40, 0)),
	TOK("sb_secret_", "supabase-key", 0, S(BU, 30, 0, 0)),
	TOK("tskey-", "tailscale-key", F_DIGIT, S(AN | C_DASH, 30, 0, 0)),
	TOK("pul-", "pulumi-token", 0, S(HX, 40, 40, 0)),
	TOK("ico-", "infracost-token", 0, S(AN, 32, 32, 0)),
	TOK("API-", "octopus-key", 0, S(UD, 26, 26, 0)),
	TOK("4b1d", "clickhouse-key", 0, S(AN, 38, 38, 0)),
	TOK("AKCp", "artifactory-key", 0, S(AN, 69, 0, 0)),
	TOK("tk-us-", "scalingo-token", 0, S(BU, 48, 48, 0)),
	/* developer services */
	TOK("NRAK-", "newrelic-key", 0, S(UD, 27, 27, 0)),
	TOK("NRII-", "newrelic-key", 0, S(BU, 32, 32, 0)),
	TOK("ATATT3", "atlassian-token", 0, S(BU | C_EQ, 100, 0, 0)),
	TOK("CFPAT-", "contentful-token", 0, S(BU, 43, 0, 0)),
	TOK("fio-u-", "frameio-token", 0, S(BU | C_EQ, 64, 0, 0)),
	TOK("p8e-", "adobe-secret", 0, S(AN, 32, 32, 0)),
	TOK("lin_api_", "linear-key", 0, S(AN, 40, 40, 0)),
	TOK("ntn_", "notion-token", F_DIGIT, S(AN, 40, 0, 0)),
	TOK("secret_", "notion-token", F_CASES | F_DIGIT, S(AN, 43, 43, 0)),
	TOK("PMAK-", "postman-key", 0, S(HX, 24, 24, '-'), S(HX, 34, 34, 0)),
	TOK("sntryu_", "sentry-token", 0, S(HX, 64, 64, 0)),
	TOK("sntrys_", "sentry-token", F_PAD, S(B64 | C_US, 80, 0, 0)),
	TOK("sgp_", "sourcegraph-token", 0, S(AN | C_US, 40, 0, 0)),
	TOK("sqp_", "sonar-token", 0, S(HX, 40, 40, 0)),
	TOK("squ_", "sonar-token", 0, S(HX, 40, 40, 0)),
	TOK("sqa_", "sonar-token", 0, S(HX, 40, 40, 0)),
	TOK("bkua_", "buildkite-token", 0, S(HX, 40, 40, 0)),
	TOK("pnu_", "prefect-key", 0, S(AN, 36, 36, 0)),
	TOK("rdme_", "readme-key", 0, S(AN, 70, 70, 0)),
	TOK("tfp_", "typeform-token", F_DOTS, S(BU | C_DOT | C_EQ, 59, 0, 0)),
	TOK("sm_pat_", "settlemint-token", 0, S(AN, 16, 16, 0)),
	TOK("sm_aat_", "settlemint-token", 0, S(AN, 16, 16, 0)),
	TOK("sm_sat_", "settlemint-token", 0, S(AN, 16, 16, 0)),
	TOK("sk.eyJ", "mapbox-token", F_DOTS, S(BU | C_DOT, 80, 0, 0)),
	TOK("AAAAAAAAAAAAAAAAAAAAA", "twitter-token", F_DIGIT, S(AN | C_PCT, 80, 0, 0)),
	/* password managers, keys */
	TOK("AGE-SECRET-KEY-1", "age-secret-key", 0, S(UD, 58, 58, 0)),
	TOK("A3-", "1password-key", F_DIGIT, S(UD | C_DASH, 30, 40, 0)),
	TOK("ops_eyJ", "1password-token", F_PAD, S(B64, 200, 0, 0)),
	/* JWTs, and Bearer credentials anywhere */
	FN("eyJ", M_JWT),
	FN("Bearer ", M_BEARER),
	/* a secret after the word naming it (redact_cli.c) */
	FN("password ", M_KEYWORD),
	FN("set ", M_KEYWORD),
	FN("#define", M_DEFINE),
	FN("setenv(", M_SETTER),
	FN("Setenv(", M_SETTER),
	FN("set_var(", M_SETTER),
	FN("setProperty(", M_SETTER),
	FN("put(", M_SETTER),
	FN("set(", M_SETTER),
	FN("# ", M_DEFINE),
	FN("PASSWORD ", M_SQL),
	FN("BY ", M_SQL),
	FN("by ", M_SQL),
};

#define NRULES (sizeof(rules) / sizeof(rules[0]))

static const tok_fn tok_fns[] = {
	[M_NONE] = NULL,
	[M_AWS] = match_aws,
	[M_SK] = match_sk,
	[M_JWT] = match_jwt,
	[M_BEARER] = match_bearer,
	[M_SLACK_WEBHOOK] = match_slack_webhook,
	[M_DISCORD_WEBHOOK] = match_discord_webhook,
	[M_TEAMS_WEBHOOK] = match_teams_webhook,
	[M_TERRAFORM] = match_terraform,
	[M_KEYWORD] = callus_redact_match_keyword,
	[M_DEFINE] = callus_redact_match_define,
	[M_SETTER] = callus_redact_match_setter,
	[M_SQL] = callus_redact_match_sql,
};

_Static_assert(NRULES <= CALLUS_REDACT_MAX_RULES, "CALLUS_REDACT_MAX_RULES");

void callus_redact_tokens_init(callus_redactor *r)
{
	uint16_t count[256] = { 0 };
	size_t k;

	for (k = 0; k < NRULES; k++)
		count[(unsigned char)rules[k].prefix[0]]++;
	r->first[0] = 0;
	for (k = 0; k < 256; k++)
		r->first[k + 1] = (uint16_t)(r->first[k] + count[k]);
	memset(count, 0, sizeof(count));
	for (k = 0; k < NRULES; k++) {
		unsigned char a = (unsigned char)rules[k].prefix[0];
		unsigned char b = (unsigned char)rules[k].prefix[1];

		r->rule[r->first[a] + count[a]++] = (uint16_t)k;
		r->pair[a][b >> 3] |= (uint8_t)(1u << (b & 7));
		r->trig[a] = T_WORD;
	}
}

/* ---- tokens made of segments ------------------------------------------ */

/*
 * Does the letters-only body [b, b + len) read as CamelCase words
 * (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, an identifier)?  Words are
 * mostly lower case (at least 70%), a third or more of it vowels, each
 * capital starts two or more lower-case letters with a vowel among them,
 * and capitals run together (an acronym, at most five) once at most.
 * Random letters are half capitals, most of their lower-case runs are one
 * letter long, and a quarter of those are vowels: about one random body of
 * 34 letters in 10^5 reads as words (test_redact's
 * test_huggingface_random counts them).
 */
static int camel_words(const struct scan *sc, size_t b, size_t len)
{
	const unsigned char *s = sc->s;
	size_t k = b, e = b + len, lo = 0, vowels = 0;
	int acronyms = 0;

	while (k < e) {
		size_t u = k, l;
		int vowel = 0;

		while (k < e && HAS(sc, k, C_UP))
			k++;
		if (k - u > 5 || (k - u > 1 && ++acronyms > 1))
			return 0;
		for (l = k; k < e && HAS(sc, k, C_LO); k++)
			if (in_set("aeiouy", s[k])) {
				vowel = 1;
				vowels++;
			}
		lo += k - l;
		if (k == e && l == k)
			break;         /* a last acronym */
		if (k - l < 2 || !vowel)
			return 0;
	}
	return lo * 10 >= len * 7 && vowels * 3 >= lo;
}

/* Does the body [b, b + len) have what the flags ask for? */
static int body_flags(const struct scan *sc, size_t b, size_t len, unsigned flags)
{
	if ((flags & F_DIGIT) && !any_of(sc, b, len, C_DIG))
		return 0;
	if ((flags & F_UPDIG) && !any_of(sc, b, len, C_UP | C_DIG))
		return 0;
	if ((flags & F_NOWORDS) && camel_words(sc, b, len))
		return 0;
	return !(flags & F_CASES) || (any_of(sc, b, len, C_UP) && any_of(sc, b, len, C_LO));
}

static int seg_match(const struct scan *sc, size_t i, const struct tok_rule *t, struct match *m)
{
	size_t b = i + t->plen, k = b, len, cap;
	int extended = 0;

	for (int j = 0; j < 3 && t->seg[j].cls; j++) {
		const struct seg *g = &t->seg[j];

		cap = g->max ? (size_t)g->max + 1 : SPAN_CAP;
		len = span(sc, k, g->cls, cap);
		if (len < g->min || (g->max && len > g->max))
			return 0;
		if (!g->max && len == cap) {
			/* Decided on its first SPAN_CAP bytes: the flags are
			 * checked on them, and the rest is taken whole. */
			if (!body_flags(sc, b, k + len - b, t->flags))
				return 0;
			len += span(sc, k + len, g->cls, (size_t)-1);
			extended = 1;
		}
		k += len;
		if (g->sep) {
			if (k >= sc->n || sc->s[k] != (unsigned char)g->sep)
				return 0;
			k++;
		}
	}
	if (t->flags & F_DOTS)
		while (k > b && sc->s[k - 1] == '.')
			k--;
	if (t->flags & F_PAD)
		for (int p = 0; p < 3 && k < sc->n && sc->s[k] == '='; p++)
			k++;
	if (!extended) {
		/* The whole token: not the start of a longer word. */
		if (is_word_char(sc, k) ||
		    ((t->flags & F_NODOT) && k + 1 < sc->n && sc->s[k] == '.' &&
		     is_word_char(sc, k + 1)))
			return 0;
		if (!body_flags(sc, b, k - b, t->flags))
			return 0;
	}
	return found(m, i, k, t->kind);
}

/* Tokens recognised by their prefix; i is at a word start. */
int callus_redact_match_token(const struct scan *sc, size_t i, struct match *m)
{
	const callus_redactor *r = sc->r;
	unsigned a, b;

	if (i + 1 >= sc->n)
		return 0;
	a = sc->s[i];
	b = sc->s[i + 1];
	if (!(r->pair[a][b >> 3] & (1u << (b & 7))))
		return 0;
	for (unsigned k = r->first[a]; k < r->first[a + 1]; k++) {
		const struct tok_rule *t = &rules[r->rule[k]];

		if ((unsigned char)t->prefix[1] != b || !has_prefix(sc, i, t->prefix))
			continue;
		if (t->fn ? tok_fns[t->fn](sc, i, m) : seg_match(sc, i, t, m))
			return 1;
	}
	return 0;
}

/* ---- tokens with a matcher of their own --------------------------------- */

/* An access key id: exactly 16 more; a longer capitalised word is not one. */
static int match_aws(const struct scan *sc, size_t i, struct match *m)
{
	if (span(sc, i + 4, C_UP | C_DIG, 17) != 16 || is_word_char(sc, i + 20))
		return 0;
	return found(m, i, i + 20, "aws-key");
}

/*
 * OpenAI-style keys share "sk-" with many kebab-case words, so the body
 * must look random: a digit and both cases, or (DeepSeek-style) a long
 * lowercase hex string.
 */
static int match_sk(const struct scan *sc, size_t i, struct match *m)
{
	size_t b = i + 3, len = span(sc, b, C_B64URL, SPAN_CAP);
	int random;

	if (len < 20 || !any_of(sc, b, len, C_DIG))
		return 0;
	random = any_of(sc, b, len, C_UP) && any_of(sc, b, len, C_LO);
	if (!random && len >= 32) {
		random = 1;
		for (size_t k = b; k < b + len; k++)
			if (!HAS(sc, k, C_HEX) || HAS(sc, k, C_UP))
				random = 0;
	}
	if (!random)
		return 0;
	if (len == SPAN_CAP)
		len += span(sc, b + len, C_B64URL, (size_t)-1);
	return found(m, i, b + len, has_prefix(sc, b, "ant-") ? "anthropic-key" : "openai-key");
}

/* header.payload.signature, each base64url; the header is JSON, so it
 * starts "eyJ".  An empty signature (alg "none") still counts; a JWE's
 * extra segments are taken too.  Spans are not capped: a payload can be
 * long, and another "eyJ" can only start after a '.', so each segment is
 * read by at most three starts. */
static int match_jwt(const struct scan *sc, size_t i, struct match *m)
{
	size_t k = i, len;
	int seg;

	len = span(sc, k, C_B64URL, (size_t)-1);
	if (len < 10)
		return 0;
	k += len;
	for (seg = 1; seg < 5; seg++) {
		if (k >= sc->n || sc->s[k] != '.')
			break;
		len = span(sc, k + 1, C_B64URL, (size_t)-1);
		if (seg == 1 && len < 4)
			return 0;
		if (seg >= 3 && len == 0)
			break;
		k += 1 + len;
	}
	if (seg < 3)
		return 0;
	return found(m, i, k, "jwt");
}

/* The path of a webhook URL after its host; decided on min bytes of cls. */
static int webhook_path(const struct scan *sc, size_t b, unsigned cls, size_t min,
			const char *kind, struct match *m)
{
	size_t len = span(sc, b, cls, SPAN_CAP);

	if (len < min || is_placeholder(sc, b, len) || has_marker(sc, b, len))
		return 0;
	if (len == SPAN_CAP)
		len += span(sc, b + len, cls, (size_t)-1);
	return found(m, b, b + len, kind);
}

static int match_slack_webhook(const struct scan *sc, size_t i, struct match *m)
{
	size_t b = i + 16;

	if (!has_prefix(sc, b, "services/") && !has_prefix(sc, b, "workflows/") &&
	    !has_prefix(sc, b, "triggers/"))
		return 0;
	return webhook_path(sc, b, C_B64URL | C_B64, 20, "slack-webhook", m);
}

/* .../api/webhooks/<id>/<token>: the id is kept. */
static int match_discord_webhook(const struct scan *sc, size_t i, struct match *m)
{
	size_t b = i + (sc->s[i + 7] == 'a' ? 28 : 25), len = span(sc, b, C_DIG, 24);

	if (len < 15 || len > 21 || b + len >= sc->n || sc->s[b + len] != '/')
		return 0;
	return webhook_path(sc, b + len + 1, C_B64URL, 50, "discord-webhook", m);
}

/* <tenant>.webhook.office.com/webhookb2/<ids>@<ids>/IncomingWebhook/<key>/...:
 * the path, up to white space, a quote or a bracket. */
static int match_teams_webhook(const struct scan *sc, size_t i, struct match *m)
{
	size_t b = i + 29, k;

	if (!has_prefix(sc, i + 19, "webhookb2/"))
		return 0;
	for (k = b; k < sc->n && k - b < 1024; k++)
		if (!sc->s[k] || HAS(sc, k, C_WS | C_QUOTE) || in_set("<>()[]{}\\", sc->s[k]))
			break;
	if (k - b < 60 || has_marker(sc, b, k - b))
		return 0;
	return found(m, b, k, "teams-webhook");
}

static int match_bearer(const struct scan *sc, size_t i, struct match *m)
{
	size_t b = i + 6, sp, len;

	sp = 0;
	while (b + sp < sc->n && sc->s[b + sp] == ' ' && sp < 4)
		sp++;
	b += sp;
	len = span(sc, b, C_BEARER, SPAN_CAP);
	if (len < 16 || !any_of(sc, b, len, C_DIG) || is_placeholder(sc, b, len))
		return 0;
	len += span(sc, b + len, C_BEARER, (size_t)-1);
	while (b + len < sc->n && sc->s[b + len] == '=')
		len++;
	return found(m, b, b + len, "bearer-token");
}

/* <14 alnum>.atlasv1.<body>: found at "atlasv1", the start is before it. */
static int match_terraform(const struct scan *sc, size_t i, struct match *m)
{
	size_t start, len;

	if (i < sc->floor + 15 || sc->s[i - 1] != '.')
		return 0;
	start = i - 15;
	if (!all_of(sc, start, 14, C_ALNUM) || (start > sc->floor && HAS(sc, start - 1, C_B64URL)))
		return 0;
	len = span(sc, i + 8, C_B64URL | C_EQ, SPAN_CAP);
	if (len < 60)
		return 0;
	if (len == SPAN_CAP)
		len += span(sc, i + 8 + len, C_B64URL | C_EQ, (size_t)-1);
	return found(m, start, i + 8 + len, "terraform-token");
}

/* ---- shapes with no prefix ---------------------------------------------- */

/* Is start (a match's first byte, found from a later trigger) at a word
 * boundary, not below what a previous redaction left? */
static int starts_word(const struct scan *sc, size_t start, unsigned cls)
{
	return start == sc->floor || !HAS(sc, start - 1, cls);
}

/* <bot id>:<35 bytes>, the id 8 to 10 digits, the secret starting "AA";
 * alone or in an API URL ("/bot<id>:<secret>/getMe"). */
int callus_redact_match_telegram(const struct scan *sc, size_t p, struct match *m)
{
	size_t k = p, len;

	if (p + 36 > sc->n || sc->s[p + 1] != 'A' || sc->s[p + 2] != 'A')
		return 0;
	while (k > sc->floor && p - k < 11 && HAS(sc, k - 1, C_DIG))
		k--;
	if (p - k < 8 || p - k > 10)
		return 0;
	if (!starts_word(sc, k, C_B64URL) &&
	    !(k >= sc->floor + 3 && memcmp(sc->s + k - 3, "bot", 3) == 0))
		return 0;
	len = span(sc, p + 1, C_B64URL, 36);
	if (len != 35)
		return 0;
	return found(m, k, p + 36, "telegram-token");
}

/* Azure AD client secrets: three bytes, a digit, "Q~", 31 to 34 more. */
int callus_redact_match_tilde(const struct scan *sc, size_t p, struct match *m)
{
	const unsigned cls = C_WORD | C_TILDE | C_DOT | C_DASH;
	size_t start, len;

	if (p < sc->floor + 5 || sc->s[p - 1] != 'Q' || !HAS(sc, p - 2, C_DIG))
		return 0;
	start = p - 5;
	if (!all_of(sc, start, 3, C_WORD | C_TILDE | C_DOT) || !starts_word(sc, start, cls))
		return 0;
	len = span(sc, p + 1, cls, 35);
	if (len < 31 || len > 34)
		return 0;
	return found(m, start, p + 1 + len, "azure-secret");
}

/* Mailchimp: 32 hex digits, then "-us" and the data center's number. */
int callus_redact_match_mailchimp(const struct scan *sc, size_t p, struct match *m)
{
	size_t start, d;

	if (p < sc->floor + 32 || !has_prefix(sc, p + 1, "us"))
		return 0;
	d = span(sc, p + 3, C_DIG, 3);
	if (d < 1 || d > 2 || is_word_char(sc, p + 3 + d))
		return 0;
	start = p - 32;
	if (!all_of(sc, start, 32, C_HEX) || !starts_word(sc, start, C_WORD))
		return 0;
	return found(m, start, p + 3 + d, "mailchimp-key");
}

/* ---- PEM private keys ------------------------------------------------- */

const char callus_redact_kind_pem[] = "private-key";

/* At i: "-----<word> LABEL-----" with a label naming a private key?  On
 * success *end is just past the closing dashes. */
static int pem_line(const struct scan *sc, size_t i, const char *word,
		    size_t *end)
{
	size_t b = i + 5 + strlen(word), k = b;
	int priv = 0;

	if (!has_prefix(sc, i, "-----") || !has_prefix(sc, i + 5, word))
		return 0;
	while (k < sc->n && k - b < 64 &&
	       (HAS(sc, k, C_UP | C_DIG) || sc->s[k] == ' ')) {
		if (has_prefix(sc, k, "PRIVATE KEY"))
			priv = 1;
		k++;
	}
	if (!priv || !has_prefix(sc, k, "-----"))
		return 0;
	*end = k + 5;
	return 1;
}

int callus_redact_match_pem(const struct scan *sc, size_t i, struct match *m)
{
	size_t k, end;
	const unsigned char *q;

	if (!pem_line(sc, i, "BEGIN ", &k))
		return 0;
	/* The body may be real lines or "\n" escapes inside a JSON string:
	 * either way the END line is the end. */
	while ((q = memmem(sc->s + k, sc->n - k, "-----END ", 9))) {
		k = (size_t)(q - sc->s);
		if (pem_line(sc, k, "END ", &end))
			return found(m, i, end, callus_redact_kind_pem);
		k += 9;
	}
	/* Unterminated (a truncated log): the rest may all be key material. */
	return found(m, i, sc->n, callus_redact_kind_pem);
}

/* Where a private key block starts in [i, end), or end. */
size_t callus_redact_pem_within(const struct scan *sc, size_t i, size_t end)
{
	const unsigned char *q;
	size_t k;

	while (i < end && (q = memmem(sc->s + i, end - i, "-----BEGIN", 10))) {
		i = (size_t)(q - sc->s);
		if (pem_line(sc, i, "BEGIN ", &k))
			return i;
		i++;
	}
	return end;
}

/* ---- URLs with a password -------------------------------------------- */

/* Can a host start at k (the byte after an '@'), before the authority
 * ends at end?  A name, or an IPv6 literal such as "[::1]". */
static int host_start(const struct scan *sc, size_t k, size_t end)
{
	if (k >= end)
		return 0;
	if (HAS(sc, k, C_ALNUM))
		return 1;
	return sc->s[k] == '[' && k + 1 < end && (sc->s[k + 1] == ':' || HAS(sc, k + 1, C_HEX));
}

/*
 * Does the host part [at, end) hold a redaction?  One made after this URL
 * was read (an assignment, "u@auth=j@host") may have taken an '@' with it,
 * and the second pass would end the user at another '@': a URL read so is
 * not redacted.  Only accepting is refused: a refusal, and where scanning
 * resumes, must stay what the first pass decided.
 */
static int redacted_host(const struct scan *sc, size_t at, size_t end)
{
	return has_marker(sc, at, end - at);
}

/*
 * A user with no password, [a, at), that is itself the credential: a
 * Sentry DSN's key (32 hex digits), a random token.  A token with a known
 * prefix is left to callus_redact_match_token(), which names its kind.
 */
static int url_user(const struct scan *sc, size_t a, size_t at, size_t end, struct match *m)
{
	size_t len = at - a;
	struct match tok = { 0, 0, 0, NULL };

	if (len < 24 || !all_of(sc, a, len, C_B64URL) || redacted_host(sc, at, end))
		return 0;
	if (!(len >= 32 && all_of(sc, a, len, C_HEX)) &&
	    !(any_of(sc, a, len, C_DIG) && any_of(sc, a, len, C_UP) && any_of(sc, a, len, C_LO)))
		return 0;
	if (callus_redact_match_token(sc, a, &tok))
		return 0;
	return found(m, a, at, "url-token");
}

/* At the ':' of "scheme://user:password@host". */
int callus_redact_match_url(const struct scan *sc, size_t p, struct match *m)
{
	size_t a = p + 3, k, at = 0, colon = 0, scheme = p;

	while (scheme > sc->floor && p - scheme < 32 &&
	       HAS(sc, scheme - 1, C_ALNUM | C_DASH | C_DOT | C_B64))
		scheme--;
	/* Two letters at least: "C://" is a Windows path, not a scheme. */
	if (p - scheme < 2 || !HAS(sc, scheme, C_ALPHA))
		return 0;
	/* The authority ends where a path, query or fragment starts. */
	for (k = a; k < sc->n; k++) {
		unsigned char c = sc->s[k];

		/* '#' is not among the ends: "pa#ss" is a common password */
		if (HAS(sc, k, C_WS | C_QUOTE) || !c || in_set("/?<>\\", c))
			break;
		if (c == ':' && !colon)
			colon = k;
	}
	/* An unencoded '@' in a password is common, so the host follows the
	 * last '@' that a host name can follow. */
	for (at = k; at > a; at--)
		if (sc->s[at - 1] == '@' && host_start(sc, at, k))
			break;
	if (at-- == a)
		return 0;
	if (has_marker(sc, a, at - a)) {
		m->resume = at + 1;     /* redacted by an earlier pass */
		return 0;
	}
	if (!colon || colon > at)
		return url_user(sc, a, at, k, m);
	if (colon + 1 == at || is_placeholder(sc, colon + 1, at - colon - 1)) {
		/* Keep the ':' inside the placeholder from being read as an
		 * assignment operator. */
		m->resume = at + 1;
		return 0;
	}
	if (redacted_host(sc, at, k))
		return 0;
	return found(m, colon + 1, at, "url-password");
}


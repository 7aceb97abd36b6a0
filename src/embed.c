/*
 * embed.c - the built-in embedder (embed.h).  Calibrated on the corpus:
 * docs/matching.md says how, and with what result.
 */
#include "callus/embed.h"
#include "callus/buf.h"
#include "callus/common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bounds: a signature is a few hundred bytes, but nothing stops a tool
 * from printing a megabyte on one line, and the hook must stay fast. */
#define MAX_TEXT 4096      /* bytes of message read */
#define MAX_FEATURES 2048  /* features kept (before duplicates merge) */
#define MAX_FRAMES 32      /* stack patterns read */
#define MAX_GRAM_WORD 32   /* longer "words" are blobs: no n-grams */

/*
 * Kinds, each hashed under its own prefix so that the tool "jest", the
 * word "jest" and a frame named jest are three features.  The parts of an
 * identifier are words ("barBaz" shares "baz" with a message saying
 * "baz"), weighing less than whole ones.  The weights
 * were tuned on the corpus (docs/matching.md): the error type is the
 * strongest single evidence, the words of the message come next, the
 * tool and the stack only nudge (an error is the same error whichever
 * test hits it).
 */
enum kind { K_TYPE = 1, K_TOOL, K_WORD, K_BIGRAM, K_GRAM, K_SYM, K_FRAME };

#define W_TYPE 3.0f
#define W_TOOL 1.0f
#define W_WORD 1.0f
#define W_PART 0.5f
#define W_BIGRAM 0.8f
#define W_GRAM 0.25f
#define W_PLACE 1.0f
#define W_SYM 0.5f
#define W_FRAME 0.3f
#define W_FRAME_PART 0.15f

/* --- hashing ------------------------------------------------------------ */

/*
 * FNV-1a over the bytes, then a multiply-xorshift finalizer: FNV alone
 * leaves the low bits (the bucket) poorly mixed for short keys.  Only
 * byte and uint64 arithmetic: the ids are stored (document frequencies),
 * so they must be the same on every machine.
 */
#define FNV_BASIS 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t h_start(enum kind k)
{
	return (FNV_BASIS ^ (uint64_t)k) * FNV_PRIME;
}

static unsigned char lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

/* Case-folded (ASCII only: no locale may change an id). */
static uint64_t h_feed(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ lower((unsigned char)s[i])) * FNV_PRIME;
	return h;
}

static uint64_t h_byte(uint64_t h, unsigned char c)
{
	return (h ^ lower(c)) * FNV_PRIME;
}

static uint64_t h_finish(uint64_t h)
{
	h ^= h >> 31;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 29;
	h *= 0x9e3779b97f4a7c15ULL;
	h ^= h >> 32;
	return h;
}

/* --- features ------------------------------------------------------------ */

static int push(callus_features *f, uint64_t id, float w)
{
	if (f->count >= MAX_FEATURES)
		return 0; /* bounded: the first features (type, tool, frames) are kept */
	if (f->count == f->alloc) {
		size_t n = f->alloc ? f->alloc * 2 : 64, bytes = 0;
		callus_feature *p;

		if (n > MAX_FEATURES)
			n = MAX_FEATURES;
		if (callus_size_mul(&bytes, n, sizeof(*p)) < 0 || !(p = realloc(f->items, bytes)))
			return CALLUS_ENOMEM;
		f->items = p;
		f->alloc = n;
	}
	f->items[f->count].id = id;
	f->items[f->count].weight = w;
	f->count++;
	return 0;
}

static int add(callus_features *f, enum kind k, const char *s, size_t n, float w)
{
	return push(f, h_finish(h_feed(h_start(k), s, n)), w);
}

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static int is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
static int is_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }

/* Word characters: ASCII letters, digits, '_', and any byte of a UTF-8
 * sequence (so that "é" stays inside its word). */
static int is_wordc(unsigned char c)
{
	return is_lower(c) || is_upper(c) || is_digit(c) || c == '_' || c >= 0x80;
}

static int all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_digit((unsigned char)s[i]))
			return 0;
	return 1;
}

/*
 * The next part of the identifier s[0..n) from *pos: parts end at '_', at
 * a lower-to-upper step ("barBaz"), before the last capital of a run
 * followed by a lower-case letter ("HTTPServer": HTTP, Server) and between
 * letters and digits ("utf8": utf, 8).  Returns 0 at the end.
 */
static int next_part(const char *s, size_t n, size_t *pos, size_t *start, size_t *len)
{
	size_t i = *pos;

	while (i < n && s[i] == '_')
		i++;
	if (i >= n)
		return 0;
	*start = i;
	for (i++; i < n; i++) {
		unsigned char a = (unsigned char)s[i - 1], b = (unsigned char)s[i];

		if (b == '_' || (is_lower(a) && is_upper(b)) || is_digit(a) != is_digit(b) ||
		    (is_upper(a) && is_upper(b) && i + 1 < n && is_lower((unsigned char)s[i + 1])))
			break;
	}
	*len = i - *start;
	*pos = i;
	return 1;
}

/* The parts of an identifier, when it has two or more; parts of one
 * character or all digits carry nothing. */
static int add_parts(callus_features *f, enum kind k, const char *s, size_t n, float w)
{
	size_t pos = 0, start = 0, len = 0, nparts = 0;
	int rc;

	while (next_part(s, n, &pos, &start, &len))
		nparts++;
	if (nparts < 2)
		return 0;
	pos = 0;
	while (next_part(s, n, &pos, &start, &len))
		if (len >= 2 && !all_digits(s + start, len) && (rc = add(f, k, s + start, len, w)) < 0)
			return rc;
	return 0;
}

/* Character 3-grams of a word, padded: "^wo", "wor", "ord", "rd$". */
static int add_grams(callus_features *f, const char *s, size_t n)
{
	int rc;

	if (n > MAX_GRAM_WORD)
		return 0;
	for (size_t i = 0; i < n; i++) {
		/* window [i-1, i+2) over "^" s "$" */
		uint64_t h = h_start(K_GRAM);
		for (size_t j = i; j < i + 3; j++)
			h = h_byte(h, j == 0 ? '^' : j - 1 < n ? (unsigned char)s[j - 1] : '$');
		if ((rc = push(f, h_finish(h), W_GRAM)) < 0)
			return rc;
	}
	return 0;
}

/* The placeholder mark pattern_text() writes before a placeholder's name. */
#define PLACE_MARK '\x01'

static int is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/*
 * The tokens of text[0..len) (plain: no regex syntax left): words, each
 * with its identifier parts and 3-grams; placeholders, by type; runs of
 * punctuation ("==", "!==", "*").  Each token also makes a bigram with
 * the one before.  Placeholders and punctuation are there because the
 * calibration asked for them: "expected (?#num) to be (?#num)" and
 * "expected (?#str) to be (?#str)", "assert (?#num) == (?#num)" and
 * "assert (?#num) == ((?#num) * (?#num))" are different errors with the
 * same words.  Numbers that survived normalization are variable data, not
 * words.
 */
static int add_words(callus_features *f, const char *text, size_t len)
{
	const char *prev = NULL;
	size_t prev_len = 0, i = 0;
	int rc = 0;

	while (i < len) {
		size_t start;

		while (i < len && is_space((unsigned char)text[i]))
			i++;
		if (i >= len)
			break;
		start = i;
		if (text[i] == PLACE_MARK) {
			for (i++; i < len && is_lower((unsigned char)text[i]); i++)
				;
			rc = add(f, K_WORD, text + start, i - start, W_PLACE);
		} else if (is_wordc((unsigned char)text[i])) {
			while (i < len && is_wordc((unsigned char)text[i]))
				i++;
			if (all_digits(text + start, i - start))
				continue;
			if ((rc = add(f, K_WORD, text + start, i - start, W_WORD)) == 0 &&
			    (rc = add_parts(f, K_WORD, text + start, i - start, W_PART)) == 0)
				rc = add_grams(f, text + start, i - start);
		} else {
			while (i < len && !is_space((unsigned char)text[i]) &&
			       !is_wordc((unsigned char)text[i]) && text[i] != PLACE_MARK)
				i++;
			rc = add(f, K_SYM, text + start, i - start, W_SYM);
		}
		if (rc < 0)
			return rc;
		if (prev) {
			uint64_t h = h_feed(h_start(K_BIGRAM), prev, prev_len);
			h = h_feed(h_byte(h, ' '), text + start, i - start);
			if ((rc = push(f, h_finish(h), W_BIGRAM)) < 0)
				return rc;
		}
		prev = text + start;
		prev_len = i - start;
	}
	return 0;
}

/* Length of the regex group or character class at p[0..n), or of the
 * whole rest when it is not closed (a pattern cut at MAX_TEXT). */
static size_t regex_atom(const char *p, size_t n)
{
	size_t i = 1;
	int depth = 1;

	if (p[0] == '[') {
		if (i < n && p[i] == '^')
			i++;
		if (i < n && p[i] == ']')
			i++; /* a ']' first is literal */
		for (; i < n && p[i] != ']'; i++)
			if (p[i] == '\\')
				i++;
		return i < n ? i + 1 : n;
	}
	for (; i < n && depth; i++) {
		if (p[i] == '\\') {
			i++;
		} else if (p[i] == '[') {
			i += regex_atom(p + i, n - i) - 1;
		} else if (p[i] == '(') {
			depth++;
		} else if (p[i] == ')') {
			depth--;
		}
	}
	return i < n ? i : n;
}

/*
 * The plain text of a message pattern (signature.h): escapes undone,
 * "\s+" a space, and each placeholder's regex dropped, its type kept as
 * a token of its own (PLACE_MARK and the name: "\x01num").  A
 * placeholder's regex is skipped as groups, classes, quantifiers and bare
 * punctuation up to the next escape, word character or space: every
 * placeholder signature.c writes ends there, and literal text after it
 * starts with one of those or with punctuation, which separates words
 * anyway.
 */
static int pattern_text(callus_buf *out, const char *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		if (p[i] == '\\' && i + 1 < n) {
			if (p[i + 1] == 's') {
				callus_buf_putc(out, ' ');
				i += 2;
				if (i < n && p[i] == '+')
					i++;
			} else {
				callus_buf_putc(out, p[i + 1]);
				i += 2;
			}
			continue;
		}
		if (p[i] == '(' && i + 2 < n && p[i + 1] == '?' && p[i + 2] == '#') {
			const char *close = memchr(p + i, ')', n - i);

			callus_buf_putc(out, ' ');
			callus_buf_putc(out, PLACE_MARK);
			if (close)
				callus_buf_put(out, p + i + 3, (size_t)(close - p) - i - 3);
			i = close ? (size_t)(close - p) + 1 : n;
			while (i < n && p[i] != '\\' && !is_wordc((unsigned char)p[i]) &&
			       p[i] != ' ') {
				if (p[i] == '(' || p[i] == '[')
					i += regex_atom(p + i, n - i);
				else
					i++;
			}
			callus_buf_putc(out, ' ');
			continue;
		}
		callus_buf_putc(out, p[i]);
		i++;
	}
	return callus_buf_status(out);
}

/* A stack pattern "function@file": the identifiers of the function, and
 * their parts. */
static int add_frame(callus_features *f, const char *frame)
{
	const char *at = strrchr(frame, '@');
	size_t len = at ? (size_t)(at - frame) : strlen(frame), i = 0;
	int rc;

	if (len > MAX_TEXT)
		len = MAX_TEXT;
	while (i < len) {
		size_t start, n;

		while (i < len && !is_wordc((unsigned char)frame[i]))
			i++;
		start = i;
		while (i < len && is_wordc((unsigned char)frame[i]))
			i++;
		n = i - start;
		if (!n || all_digits(frame + start, n))
			continue;
		if ((rc = add(f, K_FRAME, frame + start, n, W_FRAME)) < 0 ||
		    (rc = add_parts(f, K_FRAME, frame + start, n, W_FRAME_PART)) < 0)
			return rc;
	}
	return 0;
}

/* By id, then weight: qsort is not stable, and float addition not
 * associative, so repeats must be summed in an order fixed by their
 * values alone for the result to be the same bytes everywhere. */
static int cmp_feature(const void *a, const void *b)
{
	const callus_feature *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->weight < y->weight ? -1 : x->weight > y->weight;
}

/* Sort by id and merge repeats, summing their weights. */
static void merge(callus_features *f)
{
	size_t w = 0;

	if (!f->count)
		return;
	qsort(f->items, f->count, sizeof(*f->items), cmp_feature);
	for (size_t r = 1; r < f->count; r++) {
		if (f->items[r].id == f->items[w].id)
			f->items[w].weight += f->items[r].weight;
		else
			f->items[++w] = f->items[r];
	}
	f->count = w + 1;
}

/* *out is CALLUS_FEATURES_INIT or holds earlier features (overwritten). */
int callus_embed_features(callus_features *out, const callus_signature *sig)
{
	callus_buf text = CALLUS_BUF_INIT;
	const char *msg;
	size_t len;
	int rc = 0;

	out->count = 0;
	if (sig->error_type && *sig->error_type &&
	    (rc = add(out, K_TYPE, sig->error_type, strnlen(sig->error_type, MAX_TEXT), W_TYPE)) < 0)
		goto out;
	if (sig->tool && *sig->tool &&
	    (rc = add(out, K_TOOL, sig->tool, strnlen(sig->tool, MAX_TEXT), W_TOOL)) < 0)
		goto out;
	for (size_t i = 0; i < sig->stack_patterns.count && i < MAX_FRAMES; i++)
		if ((rc = add_frame(out, sig->stack_patterns.items[i])) < 0)
			goto out;
	if (sig->message_pattern && *sig->message_pattern) {
		len = strnlen(sig->message_pattern, MAX_TEXT);
		if ((rc = pattern_text(&text, sig->message_pattern, len)) < 0)
			goto out;
		msg = text.ptr;
		len = text.len;
	} else {
		/* no pattern (a signature made by hand, an older store): the
		 * message as printed is the next best thing */
		msg = sig->original ? sig->original : "";
		len = strnlen(msg, MAX_TEXT);
	}
	if ((rc = add_words(out, msg, len)) < 0)
		goto out;
	merge(out);
out:
	callus_buf_release(&text);
	if (rc < 0)
		callus_features_release(out);
	return rc;
}

void callus_features_release(callus_features *f)
{
	if (!f)
		return;
	free(f->items);
	f->items = NULL;
	f->count = f->alloc = 0;
}

/* --- document frequencies ------------------------------------------------ */

/*
 * Open addressing with linear probing, at most half full.  Key 0 marks an
 * empty slot, so the one feature whose id is 0 is counted aside.
 */
struct callus_idf {
	uint64_t *keys;
	uint32_t *counts;
	size_t cap, used; /* cap: a power of two */
	uint32_t zero_df, ndocs;
};

int callus_idf_new(callus_idf **out)
{
	callus_idf *idf = calloc(1, sizeof(*idf));

	*out = NULL;
	if (!idf)
		return CALLUS_ENOMEM;
	*out = idf;
	return 0;
}

void callus_idf_free(callus_idf *idf)
{
	if (!idf)
		return;
	free(idf->keys);
	free(idf->counts);
	free(idf);
}

static size_t slot_of(const callus_idf *idf, uint64_t id)
{
	/* the ids are hashes already; the high bits are the ones the
	 * buckets of the vectors do not use */
	size_t i = (size_t)((id >> 32) ^ id) & (idf->cap - 1);

	while (idf->keys[i] && idf->keys[i] != id)
		i = (i + 1) & (idf->cap - 1);
	return i;
}

static int idf_grow(callus_idf *idf)
{
	/* first for one signature's features (some fifty): a table of a
	 * thousand was made and zeroed for each new error a recording
	 * embeds */
	size_t cap = idf->cap ? idf->cap * 2 : 128, kb = 0, cb = 0;
	uint64_t *keys = NULL;
	uint32_t *counts = NULL;
	callus_idf next;

	if (callus_size_mul(&kb, cap, sizeof(*keys)) < 0 || callus_size_mul(&cb, cap, sizeof(*counts)) < 0 ||
	    !(keys = calloc(1, kb)) || !(counts = calloc(1, cb))) {
		free(keys);
		return CALLUS_ENOMEM;
	}
	next = *idf;
	next.keys = keys;
	next.counts = counts;
	next.cap = cap;
	for (size_t i = 0; i < idf->cap; i++) {
		if (idf->keys[i]) {
			size_t s = slot_of(&next, idf->keys[i]);
			keys[s] = idf->keys[i];
			counts[s] = idf->counts[i];
		}
	}
	free(idf->keys);
	free(idf->counts);
	*idf = next;
	return 0;
}

/* The count of id, inserted at 0 when missing; NULL without memory. */
static uint32_t *idf_slot(callus_idf *idf, uint64_t id)
{
	size_t s;

	if (!id)
		return &idf->zero_df;
	if ((idf->used + 1) * 2 > idf->cap && idf_grow(idf) < 0)
		return NULL;
	s = slot_of(idf, id);
	if (!idf->keys[s]) {
		idf->keys[s] = id;
		idf->counts[s] = 0;
		idf->used++;
	}
	return &idf->counts[s];
}

int callus_idf_add(callus_idf *idf, const callus_features *f)
{
	for (size_t i = 0; i < f->count; i++) {
		uint32_t *c = idf_slot(idf, f->items[i].id);
		if (!c)
			return CALLUS_ENOMEM;
		if (*c < UINT32_MAX)
			(*c)++;
	}
	if (idf->ndocs < UINT32_MAX)
		idf->ndocs++;
	return 0;
}

int callus_idf_set(callus_idf *idf, uint64_t id, uint32_t df)
{
	uint32_t *c = idf_slot(idf, id);

	if (!c)
		return CALLUS_ENOMEM;
	*c = df;
	return 0;
}

int callus_idf_lookup(const callus_idf *idf, uint64_t id, uint32_t *df)
{
	size_t s;

	if (!id || !idf->cap)
		return 0;
	s = slot_of(idf, id);
	if (!idf->keys[s])
		return 0;
	*df = idf->counts[s];
	return 1;
}

void callus_idf_set_docs(callus_idf *idf, uint32_t ndocs)
{
	idf->ndocs = ndocs;
}

uint32_t callus_idf_docs(const callus_idf *idf)
{
	return idf ? idf->ndocs : 0;
}

/*
 * Natural logarithm for x > 0, written here rather than taken from libm: a
 * vector must be the same bytes on every machine that shares a store, and
 * libm's log is not correctly rounded, so its last bit may differ between
 * implementations.  (sqrt is correctly rounded by IEEE 754: libm's will do.)  x =
 * m * 2^e with m in [sqrt(1/2), sqrt(2)); ln m = 2 atanh(z), z = (m-1)/(m+1),
 * |z| < 0.172, whose series is exact to double precision by z^23.
 */
static double ln(double x)
{
	uint64_t bits;
	int e;
	double m, z, z2, term, sum = 0;

	memcpy(&bits, &x, sizeof(bits));
	e = (int)((bits >> 52) & 0x7ff) - 1023;
	bits = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
	memcpy(&m, &bits, sizeof(m));
	if (m > 1.4142135623730951) {
		m /= 2;
		e++;
	}
	z = (m - 1) / (m + 1);
	z2 = z * z;
	term = z;
	for (int k = 1; k <= 23; k += 2) {
		sum += term / k;
		term *= z2;
	}
	return 2 * sum + e * 0.6931471805599453;
}

float callus_idf_weight(const callus_idf *idf, uint64_t id)
{
	uint32_t n, df = 0;

	if (!idf)
		return 1.0f;
	n = idf->ndocs;
	if (!id) {
		df = idf->zero_df;
	} else if (idf->cap) {
		size_t s = slot_of(idf, id);
		df = idf->keys[s] ? idf->counts[s] : 0;
	}
	if (df > n)
		df = n; /* counts loaded from a store ahead of its total */
	return (float)(ln((1.0 + n) / (1.0 + df)) + 1.0);
}

/* --- vectors -------------------------------------------------------------- */

void callus_embed_vector(float out[CALLUS_EMBED_DIM], const callus_features *f, const callus_idf *idf)
{
	double norm = 0;

	memset(out, 0, CALLUS_EMBED_DIM * sizeof(*out));
	for (size_t i = 0; i < f->count; i++) {
		uint64_t id = f->items[i].id;
		/* the sign bit makes colliding features cancel on average
		 * instead of piling up */
		float v = f->items[i].weight * callus_idf_weight(idf, id);

		out[id % CALLUS_EMBED_DIM] += (id >> 63) ? -v : v;
	}
	for (size_t i = 0; i < CALLUS_EMBED_DIM; i++)
		norm += (double)out[i] * out[i];
	if (norm > 0) {
		double scale = 1.0 / sqrt(norm);
		for (size_t i = 0; i < CALLUS_EMBED_DIM; i++)
			out[i] = (float)(out[i] * scale);
	}
}

/*
 * Eight independent running sums: the compiler keeps them in vector
 * registers (a single sum it may not reorder without -ffast-math, which
 * would also make the result depend on the machine).  Lanes are added in
 * a fixed order at the end.
 */
float callus_dot(const float *a, const float *b, size_t n)
{
	float lane[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		for (size_t j = 0; j < 8; j++)
			lane[j] += a[i + j] * b[i + j];
	for (size_t j = 0; i < n; i++, j++)
		lane[j] += a[i] * b[i];
	return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

/*
 * SHA-256 (FIPS 180-4), written from the standard.
 *
 * Why not libcrypto: the hook runs after every shell command an agent
 * executes, and merely loading libcrypto (mapping it and applying its
 * ~19,000 relocations) costs more process time than everything callus does on
 * that path.  callus hashes kilobytes to name lessons and signatures, never
 * secrets, so a small, tested implementation is the better trade.
 */
#include "callus/hash.h"
#include "callus/common.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct callus_sha256 {
	uint32_t h[8];
	uint64_t bytes;      /* message length so far */
	unsigned char block[64];
	size_t used;         /* bytes waiting in block */
};

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

/* Round t of FIPS 180-4 §6.2.2 step 3 with the working variables named
 * where they stand: eight rounds written out name each in turn, and none
 * is moved (with the eight moves a round, a block was some 4,000
 * instructions; without, 660 fewer: the megabyte of distinct errors'
 * 1,028 blocks, bench/record1m.sh). */
#define ROUND(a, b, c, d, e, f, g, h, t)                                                   \
	do {                                                                               \
		uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + \
			      K[t] + w[t];                                                 \
		d += t1;                                                                   \
		h = t1 + (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));   \
	} while (0)

/* One 512-bit block (FIPS 180-4 §6.2.2). */
static void compress(uint32_t hs[8], const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h;

	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
		       (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ (w[t - 2] >> 10);
		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	a = hs[0], b = hs[1], c = hs[2], d = hs[3], e = hs[4], f = hs[5], g = hs[6], h = hs[7];
	for (int t = 0; t < 64; t += 8) {
		ROUND(a, b, c, d, e, f, g, h, t);
		ROUND(h, a, b, c, d, e, f, g, t + 1);
		ROUND(g, h, a, b, c, d, e, f, t + 2);
		ROUND(f, g, h, a, b, c, d, e, t + 3);
		ROUND(e, f, g, h, a, b, c, d, t + 4);
		ROUND(d, e, f, g, h, a, b, c, t + 5);
		ROUND(c, d, e, f, g, h, a, b, t + 6);
		ROUND(b, c, d, e, f, g, h, a, t + 7);
	}
	hs[0] += a, hs[1] += b, hs[2] += c, hs[3] += d, hs[4] += e, hs[5] += f, hs[6] += g,
		hs[7] += h;
}

#undef ROUND

static void update(callus_sha256 *s, const unsigned char *p, size_t len)
{
	s->bytes += len;
	if (s->used) {
		size_t n = 64 - s->used < len ? 64 - s->used : len;

		memcpy(s->block + s->used, p, n);
		s->used += n;
		p += n;
		len -= n;
		if (s->used < 64)
			return;
		compress(s->h, s->block);
		s->used = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		compress(s->h, p);
	memcpy(s->block, p, len);
	s->used = len;
}

int callus_sha256_new(callus_sha256 **out)
{
	static const uint32_t init[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	callus_sha256 *s = calloc(1, sizeof(*s));

	if (!s)
		return CALLUS_ENOMEM;
	memcpy(s->h, init, sizeof(init));
	*out = s;
	return 0;
}

int callus_sha256_part(callus_sha256 *h, const void *data, size_t len)
{
	static const unsigned char sep = 0;

	update(h, data, len);
	update(h, &sep, 1);
	return 0;
}

int callus_sha256_update(callus_sha256 *h, const void *data, size_t len)
{
	update(h, data, len);
	return 0;
}

int callus_sha256_finish(callus_sha256 *h, char hex[CALLUS_SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char pad[72] = { 0x80 };
	uint64_t bits = h->bytes * 8;
	size_t padlen = (h->used < 56 ? 56 : 120) - h->used;

	for (int i = 0; i < 8; i++)
		pad[padlen + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
	update(h, pad, padlen + 8);
	for (int i = 0; i < 32; i++) {
		unsigned char byte = (unsigned char)(h->h[i / 4] >> (24 - 8 * (i % 4)));

		hex[2 * i] = digits[byte >> 4];
		hex[2 * i + 1] = digits[byte & 15];
	}
	hex[64] = '\0';
	callus_sha256_free(h);
	return 0;
}

void callus_sha256_free(callus_sha256 *h)
{
	free(h);
}

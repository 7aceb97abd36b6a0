#include "deja/hash.h"
#include "deja/common.h"

#include <openssl/evp.h>
#include <stdlib.h>

struct deja_sha256 {
	EVP_MD_CTX *ctx;
};

int deja_sha256_new(deja_sha256 **out)
{
	deja_sha256 *h = calloc(1, sizeof(*h));

	if (!h || !(h->ctx = EVP_MD_CTX_new()) ||
	    EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
		deja_sha256_free(h);
		return DEJA_ENOMEM;
	}
	*out = h;
	return 0;
}

int deja_sha256_part(deja_sha256 *h, const void *data, size_t len)
{
	static const char sep = '\0';

	if (EVP_DigestUpdate(h->ctx, data, len) != 1 ||
	    EVP_DigestUpdate(h->ctx, &sep, 1) != 1)
		return DEJA_ERROR;
	return 0;
}

int deja_sha256_finish(deja_sha256 *h, char hex[DEJA_SHA256_HEX_LEN + 1])
{
	unsigned char md[32];
	unsigned int n = 0;
	static const char digits[] = "0123456789abcdef";
	int rc = DEJA_ERROR;

	if (EVP_DigestFinal_ex(h->ctx, md, &n) == 1 && n == 32) {
		for (unsigned i = 0; i < 32; i++) {
			hex[2 * i] = digits[md[i] >> 4];
			hex[2 * i + 1] = digits[md[i] & 15];
		}
		hex[64] = '\0';
		rc = 0;
	}
	deja_sha256_free(h);
	return rc;
}

void deja_sha256_free(deja_sha256 *h)
{
	if (!h)
		return;
	EVP_MD_CTX_free(h->ctx);
	free(h);
}

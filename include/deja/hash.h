/*
 * hash.h - SHA-256 (FIPS 180-4) as lowercase hex.
 */
#ifndef DEJA_HASH_H
#define DEJA_HASH_H

#include <stddef.h>

#define DEJA_SHA256_HEX_LEN 64

/* A streaming SHA-256; parts are separated by a NUL so that ("ab","c") and
 * ("a","bc") hash differently. */
typedef struct deja_sha256 deja_sha256;

int deja_sha256_new(deja_sha256 **out);
/* Add a part, then a NUL separator. */
int deja_sha256_part(deja_sha256 *h, const void *data, size_t len);
/* Add raw bytes, no separator (for hashing plain messages). */
int deja_sha256_update(deja_sha256 *h, const void *data, size_t len);
/* Write 64 hex chars and a NUL to hex (65 bytes), and free h. */
int deja_sha256_finish(deja_sha256 *h, char hex[DEJA_SHA256_HEX_LEN + 1]);
void deja_sha256_free(deja_sha256 *h);

#endif

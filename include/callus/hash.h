/*
 * hash.h - SHA-256 (FIPS 180-4) as lowercase hex.
 */
#ifndef CALLUS_HASH_H
#define CALLUS_HASH_H

#include <stddef.h>

#define CALLUS_SHA256_HEX_LEN 64

/* A streaming SHA-256; parts are separated by a NUL so that ("ab","c") and
 * ("a","bc") hash differently. */
typedef struct callus_sha256 callus_sha256;

int callus_sha256_new(callus_sha256 **out);
/* Add a part, then a NUL separator. */
int callus_sha256_part(callus_sha256 *h, const void *data, size_t len);
/* Add raw bytes, no separator (for hashing plain messages). */
int callus_sha256_update(callus_sha256 *h, const void *data, size_t len);
/* Write 64 hex chars and a NUL to hex (65 bytes), and free h. */
int callus_sha256_finish(callus_sha256 *h, char hex[CALLUS_SHA256_HEX_LEN + 1]);
void callus_sha256_free(callus_sha256 *h);

#endif

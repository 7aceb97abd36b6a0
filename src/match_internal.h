/*
 * match_internal.h - what src/match.c shares with src/match_remote.c: how
 * a signature row is read and where a model's vector file lives.
 */
#ifndef CALLUS_MATCH_INTERNAL_H
#define CALLUS_MATCH_INTERNAL_H

#include <sqlite3.h>

#include "callus/buf.h"
#include "callus/signature.h"

#define CALLUS_MATCH_SIGNATURE_COLUMNS \
	"id, error_type, message_pattern, stack_patterns, context_patterns, original, tool"

/* A signature as stored, from the CALLUS_MATCH_SIGNATURE_COLUMNS starting at
 * col.  An SQLite result code; *g is released on failure. */
int callus_match_read_signature(sqlite3_stmt *st, int col, callus_signature *g);

/* A model's vector file is named by the built-in model's name, or for
 * another model "ext-" and the first 16 hex digits of its id's SHA-256
 * (ids hold ':', '/' and '@', and may be longer than a file header
 * keeps); the name is also the model the file's header names.  0, or
 * CALLUS_ENOMEM (out untouched). */
#define CALLUS_MATCH_VECTOR_NAME_MAX 24
int callus_match_vector_name(char out[CALLUS_MATCH_VECTOR_NAME_MAX + 1], const char *model);

/* out = workspace/.callus/vectors-<name>.bin.  0 or CALLUS_ENOMEM. */
int callus_match_vector_path(callus_buf *out, const char *workspace, const char *name);

#endif

/*
 * shellquote.h - quoting a word for a POSIX shell.
 */
#ifndef CALLUS_SHELLQUOTE_H
#define CALLUS_SHELLQUOTE_H

#include "callus/buf.h"

/* Append word to out as a shell reads it back: as it is when every
 * character is literal to the shell, else in single quotes (a quote inside
 * becomes '\''). */
int callus_shell_quote(callus_buf *out, const char *word);

#endif

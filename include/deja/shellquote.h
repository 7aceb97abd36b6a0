/*
 * shellquote.h - quoting a word for a POSIX shell.
 */
#ifndef DEJA_SHELLQUOTE_H
#define DEJA_SHELLQUOTE_H

#include "deja/buf.h"

/* Append word to out as a shell reads it back: as it is when every
 * character is literal to the shell, else in single quotes (a quote inside
 * becomes '\''). */
int deja_shell_quote(deja_buf *out, const char *word);

#endif

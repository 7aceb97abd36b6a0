/*
 * cleantext.h - text from tools made safe to keep, show and print.
 *
 * What callus stores comes from tool output and commands a model wrote, and
 * goes back into terminals and into an agent's prompt.  There, a terminal
 * escape can rewrite what a person sees (or set a window title, a link,
 * the clipboard), and a bidi control or an invisible character can make
 * text read differently from what it is (Trojan Source) or smuggle words
 * past a reader (Unicode tag characters).  So before anything is stored or
 * printed:
 *
 *   - terminal escape sequences (CSI, OSC, DCS and the other ESC forms,
 *     with their parameters and terminators) are removed, and so are the
 *     other C0 and C1 control characters, carriage returns included; a
 *     newline and a tab are kept;
 *   - bidi controls (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069) and
 *     invisible characters (U+00AD, U+180E, U+200B-U+200D, U+2060-U+2064,
 *     U+FEFF, the tags U+E0000-U+E007F) are made visible as "<U+202E>";
 *   - an invalid UTF-8 byte becomes U+FFFD.
 *
 * Everything else is copied unchanged, so clean text cleans to itself.
 */
#ifndef CALLUS_CLEANTEXT_H
#define CALLUS_CLEANTEXT_H

#include <stddef.h>

#include "callus/buf.h"

/* callus_text_clean() flags */
enum {
	/* for one line of output (a message on stderr): newlines and tabs
	 * become spaces too */
	CALLUS_TEXT_ONE_LINE = 1 << 0
};

/* Append the clean form of s[0..len) to out.  0, or CALLUS_ENOMEM /
 * CALLUS_ETOOBIG from out (left as it was). */
int callus_text_clean(callus_buf *out, const char *s, size_t len, unsigned flags);

/* 1 when s[0..len) is its own clean form (nothing to do: the common case,
 * checked without copying). */
int callus_text_is_clean(const char *s, size_t len, unsigned flags);

/*
 * Append the first line of s (NULL: empty), cleaned, cut to at most max
 * bytes at a character boundary ("..." marks a cut), between backquotes,
 * a backquote inside becoming "'": text from a tool's output shown to a
 * model as a quotation, which the sentence around it says is data.
 */
int callus_text_quote(callus_buf *out, const char *s, size_t max);

/*
 * Append s, a word taken from a tool's output (an error's code, a file's
 * name, a tool's), as it is when it is one word of at most max bytes
 * (letters, digits, "._-+/:@#~%=,[]()"), else quoted as
 * callus_text_quote() quotes: a sentence put where a word goes ("NOTE
 * FROM CALLUS: run ...") is shown to a model as the data it is.
 */
int callus_text_word(callus_buf *out, const char *s, size_t max);

#endif

/*
 * log.h - callus's own log: JSON lines in .callus/log.jsonl.
 *
 * For callus's errors, fail-safe events and (later) matching misses, so that
 * what went wrong inside a hook can be found after the fact.  Each event is
 * one write(2) with O_APPEND, so concurrent processes never interleave
 * inside a line.  The file is rotated to log.jsonl.1 past its workspace's
 * [retention] log_kb (callus_log_limit).  Logging is best-effort: it never
 * fails its caller.
 */
#ifndef CALLUS_LOG_H
#define CALLUS_LOG_H

#include "callus/redact.h"

/* [retention] log_kb: the default, and the range a value is read in */
#define CALLUS_LOG_DEFAULT_KB 1024
#define CALLUS_LOG_MIN_KB 16
#define CALLUS_LOG_MAX_KB 16384

/*
 * The size in bytes past which the log of callus_dir (a workspace's
 * .callus) is rotated: [retention] log_kb of callus_dir's config, read
 * each time it is asked; CALLUS_LOG_DEFAULT_KB's when the file cannot be
 * read, or the key is not a number from CALLUS_LOG_MIN_KB to
 * CALLUS_LOG_MAX_KB (the CLI says why).  The log keeps at most twice it.
 */
size_t callus_log_limit(const char *callus_dir);

/* The same of a configuration already read (c may be NULL: the
 * default's); a value out of range or no number gives the default and,
 * with err, says why. */
struct callus_config;
size_t callus_log_limit_config(const struct callus_config *c, callus_error *err);

/*
 * Append {"at","level","event","message"} plus the extra key/value pairs
 * (NULL-terminated list of const char *, may be NULL) to callus_dir's log.
 * The message and the extra values are redacted first, with r (borrowed),
 * or with a redactor built for the line when r is NULL: the log is stored,
 * and its lines quote tools, files and commands.  A value that cannot be
 * redacted is logged as such, not as it was.  Returns 0 when the line was
 * written.
 */
int callus_log_event_with(const callus_redactor *r, const char *callus_dir, const char *level,
			  const char *event, const char *message, const char *const *extra);

/* The same, rotated past limit bytes (callus_log_limit() of the same
 * directory, read once by a caller that logs many lines: each line read
 * the configuration again once the log was past CALLUS_LOG_MIN_KB); 0
 * reads it. */
int callus_log_event_limit(const callus_redactor *r, const char *callus_dir, size_t limit,
			   const char *level, const char *event, const char *message,
			   const char *const *extra);

/* The line callus_log_event_with() appends (no newline), dated at (as
 * callus_now_iso8601 writes a date), its values redacted by r (NULL: one
 * built for the line).  NULL without memory; the caller frees it. */
char *callus_log_line(const callus_redactor *r, const char *at, const char *level,
		      const char *event, const char *message, const char *const *extra);

/*
 * The log held to its two files' worth (callus gc): log.jsonl past
 * callus_log_limit() rotated, and log.jsonl.1 cut to its last limit's
 * bytes (from a line's start) when it holds more than a rotation leaves,
 * twice that (an older callus's log, another program's lines, a log kept
 * when log_kb was larger).  The rotation of callus_log_event_with() does
 * the same.  Best-effort, never through a link.
 */
void callus_log_trim(const char *callus_dir);

/* callus_log_event_with() and a redactor built for the line. */
int callus_log_event(const char *callus_dir, const char *level, const char *event,
		   const char *message, const char *const *extra);

/*
 * The log as an earlier callus wrote it (log.jsonl, then the rotated
 * log.jsonl.1 in callus_dir), redacted again with r when a redaction pass
 * starts (store_redact.h): each string of a line's JSON, and a line that
 * is not JSON as text; a line r finds nothing in is kept byte for byte.
 * A file is replaced (callus_fs_write_atomic) only when a line changed,
 * never through a symlink, and a line appended while it was read is
 * carried over, redacted.  *lines (may be NULL) receives the lines
 * changed.  Returns 0, or -1 when a file could not be redacted (it is
 * left as it was).
 */
int callus_log_redact(const callus_redactor *r, const char *callus_dir, size_t *lines);

#endif

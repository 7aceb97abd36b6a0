/*
 * lesson.h - the Lesson record (spec 000) and its de-duplication signature.
 *
 * Every string field is owned by the lesson (malloc'd, NUL-terminated; an
 * absent optional field is NULL or "").  callus_lesson_release() frees them
 * all and zeroes the struct.
 */
#ifndef CALLUS_LESSON_H
#define CALLUS_LESSON_H

#include <stddef.h>
#include <time.h>
#include <stdint.h>

#include "callus/common.h"

struct callus_diags;

typedef enum callus_lesson_type {
	CALLUS_LESSON_LINT = 0,
	CALLUS_LESSON_TEST,
	CALLUS_LESSON_ANALYSIS,
	CALLUS_LESSON_OTHER
} callus_lesson_type;

typedef struct callus_lesson {
	int64_t id;               /* store row id; 0 before it is stored */
	char *timestamp;          /* ISO 8601 UTC of the first occurrence */
	callus_lesson_type type;
	char *file;               /* primary affected file, workspace-relative */
	char *error_summary;      /* at most CALLUS_SUMMARY_MAX bytes */
	char *cause;              /* optional: empty for automatic lessons */
	char *resolution;         /* optional */
	char *corrective_rule;    /* optional */
	char *intent_id;          /* agent session or task id */
	char *signature;          /* 64 hex chars: SHA-256(file, normalized summary) */
	char *tool;               /* e.g. "eslint"; "manual" for callus record */
	char *command;            /* the command line that failed */
	int exit_code;
	char **affected_files;    /* all affected files, workspace-relative */
	size_t affected_count;
	int64_t occurrences;      /* how many times it was seen (store) */
	char *last_seen;          /* ISO 8601 UTC of the latest occurrence */
} callus_lesson;

#define CALLUS_SUMMARY_MAX 500

const char *callus_lesson_type_name(callus_lesson_type t);
/* Parse "LINT", "test", ... (case-insensitive). */
int callus_lesson_type_parse(callus_lesson_type *out, const char *s);

/*
 * Compute l->signature from l->file and l->error_summary.  The summary is
 * normalized first so that a recurrence gets the same signature: numbers
 * (line and column, counts, addresses) and spacing do not count, nor do
 * durations, which tools print only now and then ("(4 ms)" after a jest
 * test that took one), nor a line that held one and only times the run
 * ("Time: 0.28 s, estimated 1 s", printed once jest has timed a run).
 */
int callus_lesson_sign(callus_lesson *l);

/*
 * When diags (signed: callus_signatures_for) hold errors, all read by a
 * parser made for what printed them (none of the generic extractor's),
 * all kept (none dropped past CALLUS_DIAGS_MAX), make l->signature of what
 * failed rather than of the summary: the distinct (file, test, error
 * signature) of those that name a file or a test and are no catch-all
 * (extract.h), in sorted order; the summary's when none does.
 * A test runner prints its files in the order its workers finish, and only
 * the first failures fit in the summary; the errors are the same whatever
 * the order.  Returns 0 (l->signature unchanged otherwise) or
 * CALLUS_ENOMEM.
 */
int callus_lesson_sign_errors(callus_lesson *l, const struct callus_diags *diags);

/*
 * The signature callus gave l before errors and durations were left out
 * of it: callus_lesson_sign's, a duration's digits counted as any
 * number's.  A lesson
 * stored under it is l (callus_run_info.former_signature).  Returns 0 or
 * CALLUS_ENOMEM.
 */
int callus_lesson_sign_former(const callus_lesson *l, char hex[65]);

/* The current time as ISO 8601 UTC with milliseconds; caller frees. */
char *callus_now_iso8601(void);

/*
 * The UTC date of sec seconds and ns nanoseconds from the epoch (sec from
 * 0 to the end of year 9999), as callus_now_iso8601 writes it,
 * 2026-12-04T14:35:10.123Z: CALLUS_TIME_ISO8601_LEN bytes into out, no
 * terminator.  By arithmetic alone: async-signal-safe (a hook's cut
 * dates its trace in a signal handler), and no time zone file read (glibc's
 * gmtime_r reads /etc/localtime at a process's first call, seven system
 * calls).
 */
#define CALLUS_TIME_ISO8601_LEN 24
void callus_time_iso8601_put(char *out, long long sec, long ns);

/* *t, the seconds from the epoch of the UTC time y-mo-d h:mi:s (years 0 to
 * 9999), counted as callus_time_iso8601_put counts them: 0, or -1 when it
 * names no second (a day past its month's end, an hour past 23, a minute
 * or a second past 59). */
int callus_time_civil(int y, int mo, int d, int h, int mi, int s, long long *t);

/* The same for ns nanoseconds since the epoch. */
char *callus_time_iso8601(long long ns);

/* An ISO 8601 time of another writer's (an agent's transcript: any
 * fraction of a second or none, 'Z', an offset or none, taken for UTC) in
 * callus_now_iso8601()'s format, which the store compares as text; NULL
 * when s is not one.  Caller frees. */
char *callus_time_normalize(const char *s);

/* The same time in nanoseconds since the epoch into *ns: 0, or -1 when s
 * is not one. */
int callus_time_parse(const char *s, long long *ns);

/* "YYYY-MM-DD" (what may follow from a 'T' on is left alone) at midnight
 * UTC, a day of the calendar (2026-02-30 is none); -1 when s is no such
 * date. */
time_t callus_time_day(const char *s);

void callus_lesson_release(callus_lesson *l);

#endif

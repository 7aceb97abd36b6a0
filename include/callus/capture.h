/*
 * capture.h - bounded, streaming collection of a command's output.
 *
 * Output of any size is fed in chunks as it arrives; the capture keeps only
 * what the analysis needs (spec 001 FR-005, "smart filtering"): lines that
 * carry error keywords or name a file and a line, plus the last lines of the
 * output.  ANSI escapes and carriage-return redraws are removed line by line.
 * Memory is bounded by CALLUS_CAPTURE_KEPT_MAX whatever the output size; what
 * does not fit is counted, not kept.
 */
#ifndef CALLUS_CAPTURE_H
#define CALLUS_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "callus/buf.h"

#define CALLUS_CAPTURE_LINE_MAX 2048          /* longer lines are cut */
#define CALLUS_CAPTURE_KEPT_MAX (1024 * 1024) /* bytes of kept lines */
#define CALLUS_CAPTURE_TAIL 10                /* last lines always kept */
#define CALLUS_CAPTURE_HEAD_MAX (4u << 20)    /* raw bytes kept for structured formats */

typedef struct callus_capture_line {
	uint64_t lineno;  /* 1-based line number in the output */
	size_t off, len;  /* in the capture's kept buffer */
} callus_capture_line;

typedef struct callus_capture {
	callus_buf partial;          /* the line being assembled */
	callus_buf stripped, clean;  /* per-line scratch, kept to spare allocations */
	int partial_cut;           /* the current line hit LINE_MAX */
	callus_buf kept;             /* kept lines, each with its newline */
	/* While lent is set (callus_capture_whole), the kept lines are the
	 * output's own bytes lent[0, lent_len), kept holds none: each was
	 * kept as it was printed and right after the one before it, so
	 * the megabyte of a build's errors is not copied.  The last line
	 * may have no newline there (lent_open 1); lent_len counts one. */
	const char *lent;
	size_t lent_len;
	int lent_open;
	callus_buf head;             /* the first CALLUS_CAPTURE_HEAD_MAX bytes, as printed,
				      * when fed (read with callus_capture_raw) */
	const char *whole;         /* callus_capture_whole's data, borrowed: the raw
				    * head without a copy of it */
	size_t whole_len;
	const char *whole_end;     /* the end of all of that data (whole_len is
				    * only its head's) */
	char *owned;               /* that data when it is the capture's
				    * (callus_capture_whole_owned) */
	callus_capture_line *lines;  /* index into kept, in output order */
	size_t nlines, alloc;
	callus_buf tail[CALLUS_CAPTURE_TAIL]; /* ring of the last lines */
	uint64_t tail_lineno[CALLUS_CAPTURE_TAIL];
	int last_interesting;      /* whether the last line put in the ring was */
	uint64_t total_bytes;
	uint64_t total_lines;
	uint64_t dropped_lines;    /* interesting lines that did not fit */
	int binary;                /* NUL bytes seen: not text */
	callus_buf held[2];          /* stdout's and stderr's unfinished line
				      * (callus_capture_feed_stream) */
	int open_stream;           /* whose line partial holds after one too
				    * long to hold went in: 1, 2, or 0 */
} callus_capture;

void callus_capture_init(callus_capture *c);
void callus_capture_release(callus_capture *c);

/* Feed a chunk; never fails except for lack of memory (then the rest is
 * counted as dropped, and the function still returns 0: capture is
 * best-effort and must never stop the output flowing). */
int callus_capture_feed(callus_capture *c, const char *data, size_t len);

/*
 * Feed a chunk of one of two streams read in turn (stream 1: stdout, 2:
 * stderr), as `callus run` reads a command's two pipes.  A chunk may end
 * inside a line (vitest's dot reporter prints its dots, a newline only at
 * the end; a large write comes in pieces): the stream's unfinished line is
 * held until its newline comes, so that the other stream's lines never land
 * inside it.  A line held past 64 KiB goes in as it is.  As
 * callus_capture_feed() returns.
 */
int callus_capture_feed_stream(callus_capture *c, int stream, const char *data, size_t len);

/* Flush the last unterminated line (each stream's, the one a line too
 * long to hold left open first).  Call once after the last feed. */
void callus_capture_finish(callus_capture *c);

/* An output known whole (a hook's payload, an imported transcript's), fed
 * and finished in one call to a capture just initialized: its room is
 * made at once, where a stream's chunks (`callus run`) grow it by
 * doubling.  data is borrowed as the raw head, not copied: it must outlive
 * the capture.  As callus_capture_feed() returns. */
int callus_capture_whole(callus_capture *c, const char *data, size_t len);
/* The same of data (malloc'd, or NULL for no output) that is then the
 * capture's, freed with it: a hook's payload output, a megabyte that
 * goes when the failure has been read from the capture. */
int callus_capture_whole_owned(callus_capture *c, char *data, size_t len);
/* The first CALLUS_CAPTURE_HEAD_MAX bytes as printed (*len set): the
 * capture's copy of the chunks fed, or callus_capture_whole()'s data.
 * Borrowed from c. */
const char *callus_capture_raw(const callus_capture *c, size_t *len);

/* A capture read already, kept for its output (a run queued when the
 * store turns it away): when its raw head holds the whole output (no NUL
 * in it), all else it holds is released, for the memory that reads it
 * next; otherwise it is left whole.  callus_capture_output() reads the
 * same after it. */
void callus_capture_keep_raw(callus_capture *c);

/* The output as a queue entry carries it, appended to out: as printed when
 * the raw head holds it whole (no NUL in it), else the lines the analysis
 * kept (callus_capture_text).  0, or CALLUS_ENOMEM. */
int callus_capture_output(const callus_capture *c, callus_buf *out);

/*
 * The filtered lines in output order (kept lines and the tail merged,
 * without repeats), each terminated by '\n', appended to out.
 */
int callus_capture_text(const callus_capture *c, callus_buf *out);
/*
 * The same text, without a copy when it is the kept lines as they lie (the
 * tail's lines all among them, as in a build's output of error lines):
 * *text borrowed from c (or from callus_capture_whole's data, each line
 * as printed), else made in scratch (appended, the caller's to release)
 * and borrowed from it.  Borrowed from the data, its last line has no
 * newline when the output's last line had none: *len is one less than
 * callus_capture_text's; a line walk reads the two alike.  0, or
 * CALLUS_ENOMEM.
 */
int callus_capture_text_view(const callus_capture *c, callus_buf *scratch, const char **text,
			     size_t *len);

/* Strip ANSI escape sequences and resolve carriage-return redraws in one
 * line (no '\n' inside), appending the visible text to out. */
int callus_ansi_strip_line(callus_buf *out, const char *line, size_t len);

/* 1 when a (stripped) line is worth keeping: error keywords, or a file and
 * line number. */
int callus_line_is_interesting(const char *line, size_t len);

/* For the summary: 2 when the line says something failed (error, fail,
 * exception, assert, panic, ✕, ● ...), 1 when it is otherwise interesting
 * (a location, expected/received, a warning), 0 otherwise. */
int callus_line_rank(const char *line, size_t len);

#endif

/*
 * kotlinc.c - the Kotlin compiler's diagnostics, as kotlinc prints them
 * and as Gradle's Kotlin plugin does:
 *
 *   src/main/kotlin/shop/Labels.kt:4:25: error: type mismatch: inferred type is Int ...
 *   e: file:///abs/src/main/kotlin/shop/Labels.kt:4:25 Type mismatch: ...   (Kotlin >= 1.8)
 *   e: /abs/src/main/kotlin/shop/Labels.kt: (4, 25): Type mismatch: ...    (older Gradle)
 *   w: /abs/src/main/kotlin/shop/Labels.kt: (9, 9): Variable 'x' is never used
 *
 * One diagnostic per error or warning; the source and caret lines under
 * it are context.  Kotlin prints no codes.  The JVM's own warnings
 * ("OpenJDK 64-Bit Server VM warning: ...") name no file and are not the
 * code's.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

typedef struct kdiag {
	const char *path, *msg, *sev;
	size_t path_len, msg_len;
	long line, col;
} kdiag;

static int is_kotlin(const char *p, size_t len)
{
	return callus_pu_ends(p, len, ".kt") || callus_pu_ends(p, len, ".kts");
}

/* "e: PATH: (L, C): msg" */
static int gradle_old(const char *s, size_t len, kdiag *d)
{
	long open = callus_pu_find(s, len, ": (");
	size_t i, n;

	if (open <= 0 || !is_kotlin(s, (size_t)open))
		return 0;
	d->path = s;
	d->path_len = (size_t)open;
	i = (size_t)open + 3;
	d->line = callus_pu_num(s + i, len - i, &n);
	if (!n || i + n + 2 > len || s[i + n] != ',' || s[i + n + 1] != ' ')
		return 0;
	i += n + 2;
	d->col = callus_pu_num(s + i, len - i, &n);
	if (!n || i + n + 3 > len || memcmp(s + i + n, "): ", 3))
		return 0;
	d->msg = s + i + n + 3;
	d->msg_len = len - (i + n + 3);
	return 1;
}

static int kotlin_line(const char *s, size_t len, kdiag *d)
{
	callus_pu_loc loc;
	size_t i;

	if ((callus_pu_starts(s, len, "e: ") || callus_pu_starts(s, len, "w: "))) {
		d->sev = s[0] == 'e' ? "error" : "warning";
		s += 3;
		len -= 3;
		if (callus_pu_starts(s, len, "file://")) {
			s += 7;
			len -= 7;
		}
		if (gradle_old(s, len, d))
			return 1;
		/* "PATH:L:C msg" */
		if (!callus_pu_location(s, len, &loc) || !is_kotlin(loc.path, loc.path_len))
			return 0;
		d->path = loc.path;
		d->path_len = loc.path_len;
		d->line = loc.line;
		d->col = loc.col;
		d->msg = s + loc.end;
		d->msg_len = len - loc.end;
		return 1;
	}
	if (!callus_pu_location(s, len, &loc) || !is_kotlin(loc.path, loc.path_len))
		return 0;
	i = loc.end;
	if (i < len && s[i] == ' ')
		i++;
	if (callus_pu_starts(s + i, len - i, "error: ")) {
		d->sev = "error";
		i += 7;
	} else if (callus_pu_starts(s + i, len - i, "warning: ")) {
		d->sev = "warning";
		i += 9;
	} else {
		return 0;
	}
	d->path = loc.path;
	d->path_len = loc.path_len;
	d->line = loc.line;
	d->col = loc.col;
	d->msg = s + i;
	d->msg_len = len - i;
	return 1;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_pu_lines it;
	const char *s;
	size_t len;
	kdiag d;
	int rc;

	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (!kotlin_line(s, len, &d))
			continue;
		callus_pu_trim(&d.msg, &d.msg_len);
		if ((rc = callus_pu_diag(NULL, diags, files, in->pc, d.path, d.path_len, d.line,
				       d.col, NULL, 0, d.msg, d.msg_len, d.sev)) < 0)
			break;
	}
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	kdiag d;

	return kotlin_line(s, len, &d);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "kotlinc", "kotlinc-jvm", NULL };

const callus_parser callus_parser_kotlinc = { "kotlinc", tools, sniff, parse, sniff_line };

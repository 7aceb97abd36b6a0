/*
 * util.c - what the transcript readers share (src/import/reader.h): the
 * files of a directory tree, JSON helpers, hunks from structured patches.
 */
#include "reader.h"

#include "callus/common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int callus_import_find_files(const char *dir, const char *suffix, int depth, callus_strlist *out)
{
	callus_buf p = CALLUS_BUF_INIT;
	size_t sl = strlen(suffix);
	struct dirent *de;
	DIR *d = opendir(dir);
	int rc = 0;

	if (!d)
		return 0;
	while (rc == 0 && (de = readdir(d))) {
		struct stat st;
		size_t nl = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		callus_buf_truncate(&p, 0);
		callus_buf_printf(&p, "%s/%s", dir, de->d_name);
		if (callus_buf_status(&p) < 0) {
			rc = CALLUS_ENOMEM;
			break;
		}
		/* no symbolic links: a transcript tree is the agent's own */
		if (lstat(p.ptr, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth > 0)
				rc = callus_import_find_files(p.ptr, suffix, depth - 1, out);
		} else if (S_ISREG(st.st_mode) && nl > sl && !strcmp(de->d_name + nl - sl, suffix)) {
			if (callus_strlist_add(out, p.ptr, p.len) < 0)
				rc = CALLUS_ENOMEM;
		}
	}
	closedir(d);
	callus_buf_release(&p);
	return rc;
}

char *callus_import_dir(const char *var, const char *home, const char *rel)
{
	const char *v = var ? getenv(var) : NULL;
	callus_buf b = CALLUS_BUF_INIT;

	if (v && *v)
		return strdup(v);
	callus_buf_printf(&b, "%s/%s", home, rel);
	return callus_buf_status(&b) < 0 ? NULL : callus_buf_detach(&b);
}

const char *callus_import_str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

int callus_import_set(char **dst, const char *s)
{
	char *c = strdup(s ? s : "");

	if (!c)
		return CALLUS_ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

size_t callus_import_structured_hunks(callus_buf *out, const json_t *hunks)
{
	size_t i, n = 0;
	json_t *h;

	json_array_foreach(hunks, i, h) {
		const json_t *lines = json_object_get(h, "lines");
		json_int_t os = json_integer_value(json_object_get(h, "oldStart")),
			   ol = json_integer_value(json_object_get(h, "oldLines")),
			   ns = json_integer_value(json_object_get(h, "newStart")),
			   nl = json_integer_value(json_object_get(h, "newLines"));
		size_t j;
		json_t *l;

		if (!json_is_array(lines))
			continue;
		callus_buf_printf(out, "@@ -%lld,%lld +%lld,%lld @@\n", (long long)os, (long long)ol,
				  (long long)ns, (long long)nl);
		json_array_foreach(lines, j, l) {
			const char *s = json_string_value(l);

			if (!s)
				continue;
			callus_buf_puts(out, s);
			callus_buf_putc(out, '\n');
		}
		n++;
	}
	return n;
}

void callus_import_content_text(callus_buf *out, const json_t *content)
{
	size_t i;
	json_t *b;

	if (json_is_string(content)) {
		callus_buf_put(out, json_string_value(content), json_string_length(content));
		return;
	}
	json_array_foreach(content, i, b) {
		const json_t *t = json_object_get(b, "text");

		if (!json_is_string(t))
			continue;
		if (out->len)
			callus_buf_putc(out, '\n');
		callus_buf_put(out, json_string_value(t), json_string_length(t));
	}
}

void callus_import_time_ms(char buf[32], int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char sec[24];

	gmtime_r(&t, &tm);
	if (!strftime(sec, sizeof(sec), "%Y-%m-%dT%H:%M:%S", &tm))
		sec[0] = 0;
	snprintf(buf, 32, "%.19s.%03uZ", sec, (unsigned)(ms % 1000 + 1000) % 1000u);
}

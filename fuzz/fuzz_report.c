/*
 * fuzz_report.c - the report's escaping and its charts on arbitrary bytes.
 *
 * Besides memory errors, checks what the page relies on: escaped text is
 * valid UTF-8 with no markup character, no '&' that does not start one of
 * the references the escaping writes, and no control character but tab and
 * newline; it is at most 6 times as long as the input.  A chart whose
 * title, series names and labels are the input holds one <svg> closed
 * once and no <script.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "callus/report.h"
#include "callus/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const refs[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};

static void check_escaped(const callus_buf *b, size_t size)
{
	if (b->len > size * 6 + 3 || !callus_utf8_valid(b->ptr, b->len))
		abort();
	for (size_t i = 0; i < b->len; i++) {
		unsigned char ch = (unsigned char)b->ptr[i];
		size_t k;

		if (ch == '<' || ch == '>' || ch == '"' || ch == '\'' || ch == 0x7f ||
		    (ch < 0x20 && ch != '\t' && ch != '\n'))
			abort();
		if (ch != '&')
			continue;
		for (k = 0; k < sizeof(refs) / sizeof(refs[0]); k++)
			if (!strncmp(b->ptr + i, refs[k], strlen(refs[k])))
				break;
		if (k == sizeof(refs) / sizeof(refs[0]))
			abort();
	}
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	callus_buf b = CALLUS_BUF_INIT;
	char *str = NULL;
	const char *labels[3];
	double v[3] = {1, -1, 2.5};
	callus_chart_series s[2];
	callus_chart c;

	if (callus_report_escape(&b, (const char *)data, size) == 0)
		check_escaped(&b, size);
	callus_buf_release(&b);
	if (!(str = malloc(size + 1)))
		return 0;
	memcpy(str, data, size);
	str[size] = 0;
	if (callus_report_escape_cut(&b, str, size / 2) == 0) {
		size_t len = strlen(str);

		check_escaped(&b, len);
		if (len > size / 2 && (b.len < 3 || strcmp(b.ptr + b.len - 3, "...")))
			abort();
	}
	callus_buf_release(&b);
	labels[0] = labels[1] = labels[2] = str;
	s[0].name = s[1].name = str;
	s[0].values = s[1].values = v;
	c.title = str;
	c.labels = labels;
	c.n = 3;
	c.series = s;
	c.nseries = 2;
	c.percent = size % 2;
	c.kind = size % 3 ? CALLUS_CHART_BARS : CALLUS_CHART_LINES;
	if (callus_report_chart(&b, &c) == 0 &&
	    (count(b.ptr, "<svg") != 1 || count(b.ptr, "</svg>") != 1 ||
	     strstr(b.ptr, "<script")))
		abort();
	callus_buf_release(&b);
	free(str);
	return 0;
}

#include "parsers/jvm_util.h"
#include "parsers/util.h"

#include <string.h>

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c == '.' || c == '<' || c == '>';
}

int callus_jvm_frame_parse(const char *s, size_t len, callus_jvm_frame *f)
{
	size_t i = callus_pu_indent(s, len), start, dot, open, close, colon, n;

	if (!callus_pu_starts(s + i, len - i, "at "))
		return 0;
	i += 3;
	start = i;
	/* a module: "java.base/", "app//" */
	for (size_t k = i; k < len && s[k] != '('; k++)
		if (s[k] == '/')
			start = k + 1;
	for (i = start; i < len && ident_char(s[i]); i++)
		;
	if (i >= len || s[i] != '(' || i == start)
		return 0;
	open = i;
	for (dot = open; dot > start && s[dot - 1] != '.'; dot--)
		;
	if (dot <= start + 1)
		return 0;
	close = open + 1;
	while (close < len && s[close] != ')')
		close++;
	if (close >= len)
		return 0;
	f->cls = s + start;
	f->cls_len = dot - 1 - start;
	f->method = s + dot;
	f->method_len = open - dot;
	f->file = s + open + 1;
	f->file_len = close - open - 1;
	f->line = 0;
	for (colon = open + 1; colon < close && s[colon] != ':'; colon++)
		;
	if (colon < close) {
		f->file_len = colon - open - 1;
		f->line = callus_pu_num(s + colon + 1, close - colon - 1, &n);
		if (!n)
			f->line = 0;
	}
	/* "Native Method", "Unknown Source": no file */
	if (!memchr(f->file, '.', f->file_len) || memchr(f->file, ' ', f->file_len))
		f->file_len = 0;
	return 1;
}

int callus_jvm_third_party(const char *cls, size_t len)
{
	static const char *const prefixes[] = {
		"java.", "javax.", "jdk.", "sun.", "com.sun.", "kotlin.", "kotlinx.", "scala.",
		"groovy.", "org.junit.", "junit.", "org.opentest4j.", "org.hamcrest.",
		"org.assertj.", "org.mockito.", "org.testng.", "org.apache.maven.",
		"org.gradle.", "worker.org.gradle.", "org.codehaus.", "jakarta.",
	};

	for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++)
		if (callus_pu_starts(cls, len, prefixes[k]))
			return 1;
	return 0;
}

int callus_jvm_is_test_class(const char *cls, size_t len)
{
	const char *base = cls + len, *inner;
	size_t n;

	while (base > cls && base[-1] != '.')
		base--;
	n = (size_t)(cls + len - base);
	/* Outer$Inner: the outer class is the file's */
	if ((inner = memchr(base, '$', n)))
		n = (size_t)(inner - base);
	return callus_pu_ends(base, n, "Test") || callus_pu_ends(base, n, "Tests") ||
	       callus_pu_ends(base, n, "IT") || callus_pu_ends(base, n, "Spec") ||
	       (n > 4 && callus_pu_starts(base, n, "Test") && base[4] >= 'A' && base[4] <= 'Z');
}

int callus_jvm_source(callus_buf *out, const char *base, size_t base_len,
		      const callus_jvm_frame *f, int test)
{
	int kotlin = callus_pu_ends(f->file, f->file_len, ".kt");
	size_t pkg = f->cls_len;

	while (pkg > 0 && f->cls[pkg - 1] != '.')
		pkg--;
	if (base_len) {
		callus_buf_put(out, base, base_len);
		if (base[base_len - 1] != '/')
			callus_buf_putc(out, '/');
	}
	callus_buf_puts(out, test ? "src/test/" : "src/main/");
	callus_buf_puts(out, kotlin ? "kotlin/" : "java/");
	for (size_t i = 0; i < pkg; i++)
		callus_buf_putc(out, f->cls[i] == '.' ? '/' : f->cls[i]);
	callus_buf_put(out, f->file, f->file_len);
	return callus_buf_status(out);
}

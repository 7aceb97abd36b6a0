#include "callus/shellquote.h"

#include <string.h>

/* Characters a POSIX shell reads literally without quotes. */
static int shell_safe(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_-./=:,+@%^", *s))
			return 0;
	return 1;
}

int callus_shell_quote(callus_buf *out, const char *word)
{
	if (shell_safe(word))
		return callus_buf_puts(out, word);
	callus_buf_putc(out, '\'');
	for (const char *p = word; *p; p++)
		if (*p == '\'')
			callus_buf_puts(out, "'\\''");
		else
			callus_buf_putc(out, *p);
	callus_buf_putc(out, '\'');
	return callus_buf_status(out);
}

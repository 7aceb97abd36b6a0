#include "deja/shellquote.h"

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

int deja_shell_quote(deja_buf *out, const char *word)
{
	if (shell_safe(word))
		return deja_buf_puts(out, word);
	deja_buf_putc(out, '\'');
	for (const char *p = word; *p; p++)
		if (*p == '\'')
			deja_buf_puts(out, "'\\''");
		else
			deja_buf_putc(out, *p);
	deja_buf_putc(out, '\'');
	return deja_buf_status(out);
}

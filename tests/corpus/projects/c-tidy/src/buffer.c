#include <stdlib.h>
#include <string.h>

struct buffer {
	char *data;
	size_t len;
};

struct buffer *buffer_new(const char *text)
{
	struct buffer *b = malloc(sizeof(*b));
	size_t n = strlen(text);

	b->data = malloc(n + 1);
	memcpy(b->data, text, n + 1);
	b->len = n;
	return b;
}

void buffer_free(struct buffer *b)
{
	free(b->data);
	free(b);
	b->len = 0;
}

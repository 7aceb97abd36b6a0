#include <stddef.h>

struct ring {
	int items[16];
	size_t head, count;
};

static int ring_push(struct ring *r, int v, int overwrite)
{
	size_t slot;

	if (r->count == 16 && !overwrite)
		return -1;
	r->items[(r->head + r->count) % 16] = v;
	r->count += r->count < 16;
	return 0;
}

int ring_fill(struct ring *r, int v)
{
	return ring_push(r, v);
}

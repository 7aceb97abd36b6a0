#include <stdlib.h>

struct queue {
	int *items;
	int len, cap;
};

int queue_push(struct queue *q, int v)
{
	if (q->len == q->cap) {
		int *p = realloc(q->items, q->cap * 2 * sizeof(int));
		q->items = p;
		q->cap *= 2;
	}
	q->items[q->len++] = v;
	return 0;
}

int queue_average(const struct queue *q)
{
	int sum = 0;
	for (int i = 0; i < q->len; i++)
		sum += q->items[i];
	return sum / q->len;
}

char *queue_name(void)
{
	char *name = malloc(8);
	return name;
}

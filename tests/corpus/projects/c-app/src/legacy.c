#include "broken.h"

int distance(struct point a, struct point b)
{
	return (a.x - b.x) + (a.y - b.y);
}

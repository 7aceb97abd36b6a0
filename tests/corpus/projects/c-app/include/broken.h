#ifndef BROKEN_H
#define BROKEN_H

struct point {
	int x;
	int y;
}

int distance(struct point a, struct point b);

#endif

#include <stddef.h>

struct parcel {
	int weight;
	const char *label;
};

int parcel_cost(const struct parcel *p)
{
	int surcharge;

	return p->weight * rate_per_kilo;
}

const char *parcel_name(const struct parcel *p)
{
	return p->title;
}

#ifndef ACCOUNT_H
#define ACCOUNT_H

struct account {
	const char *owner;
	long balance;
};

long account_deposit(struct account *a, long cents);
const char *report_line(const struct account *a);

#endif

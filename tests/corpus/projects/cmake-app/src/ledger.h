#ifndef LEDGER_H
#define LEDGER_H

long balance(const long *entries, int n);
int format_amount(char *out, int size, long cents);
int parse_amount(const char *text, long *cents);

#endif

/*
 * steps_helpers.h - for the tests that count what SQLite does (its VM
 * steps) to show that a cost does not grow with the store: a measure that
 * holds on a shared machine where time does not.
 */
#ifndef CALLUS_TEST_STEPS_HELPERS_H
#define CALLUS_TEST_STEPS_HELPERS_H

#include <sqlite3.h>

/* The trace callback: a statement's steps added to *(long long *)ctx as it
 * finishes, its count started again. */
static inline int steps_add(unsigned type, void *ctx, void *stmt, void *x)
{
	(void)x;
	if (type == SQLITE_TRACE_PROFILE)
		*(long long *)ctx += sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_VM_STEP, 1);
	return 0;
}

/* Count db's steps into *steps from now on; stop with
 * sqlite3_trace_v2(db, 0, NULL, NULL).  The statements the store keeps for
 * their next use (callus_store_stmt) forget the steps they took before. */
static inline void steps_trace(sqlite3 *db, long long *steps)
{
	for (sqlite3_stmt *st = sqlite3_next_stmt(db, NULL); st; st = sqlite3_next_stmt(db, st))
		(void)sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 1);
	sqlite3_trace_v2(db, SQLITE_TRACE_PROFILE, steps_add, steps);
}

#endif

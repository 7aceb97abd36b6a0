/*
 * sqlmem.h - SQLite's memory in the callus process (sqlmem.c): size
 * classes carved out of large chunks instead of a malloc a block.
 */
#ifndef CALLUS_CLI_SQLMEM_H
#define CALLUS_CLI_SQLMEM_H

/*
 * Make it SQLite's allocator, before anything else of SQLite runs (after,
 * SQLite keeps its own; nothing fails).  For a process that uses SQLite
 * from one thread only (callus_store_single_threaded()): the allocator
 * takes no lock.  Its chunks are the process's until it exits.  1 when
 * installed; 0 when SQLite keeps its own (initialized already, or under
 * AddressSanitizer, whose checks of SQLite's memory need malloc).
 */
int cli_sqlmem_install(void);

/*
 * A callus process's memory, set up before anything of SQLite runs:
 * SQLite single-threaded (callus_store_single_threaded) on this allocator,
 * and a large block from the heap rather than a mapping of its own.  For
 * cli/main.c, and for bench/scale_gen.c, whose timed recordings are to
 * differ from a hook's only by the process around them.
 */
void cli_sqlmem_process(void);

#endif

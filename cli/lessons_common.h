/*
 * lessons_common.h - store access and lesson JSON shared by the commands
 * that read or write lessons.
 */
#ifndef DEJA_CLI_LESSONS_COMMON_H
#define DEJA_CLI_LESSONS_COMMON_H

#include <jansson.h>

#include "cli.h"
#include "deja/lesson.h"
#include "deja/store.h"

/* Open the workspace store.  Returns 0, 1 when !create and there is no
 * store yet (*out NULL), or -1 after printing why. */
int cli_open_store(deja_store **out, const cli_workspace *ws, int create);

/* The JSON object of a lesson (every spec-000 field plus id, tool,
 * command, exit_code, affected_files, occurrences, last_seen); new
 * reference. */
json_t *cli_lesson_json(const deja_lesson *l);

#endif

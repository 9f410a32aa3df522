/* spawn.h - running kubectl or sbatch with a manifest on stdin, or squeue
 * and kubectl get with their output captured, through core/process.h and
 * a pipe (no shell is involved, so nothing is re-parsed).
 */
#ifndef SOLBOOK_FLEET_SPAWN_H
#define SOLBOOK_FLEET_SPAWN_H

#include <stddef.h>

#include "error.h"

/* Runs argv (argv[0] looked up with sb_process_find, core/process.h) with
 * input written to its standard input, stdout and stderr shared with the
 * caller, and waits.
 * *status is its exit status (128 + N when killed by signal N). SB_ERR
 * when it could not be started (err says why: not installed, fork or exec
 * failed). */
int sb_spawn_pipe(const char *const argv[], const char *input, size_t len, int *status, sb_error *err);

/* Runs argv with standard input from /dev/null and captures its standard
 * output (stderr is shared with the caller), for squeue and kubectl get.
 * *out is the output, NUL-terminated and malloc'd; *status as above. SB_ERR
 * when it could not be started or read. */
int sb_spawn_capture(const char *const argv[], char **out, int *status, sb_error *err);

#endif

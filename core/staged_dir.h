/* staged_dir.h - output folders replaced whole or not at all.
 *
 * A command that writes a folder of outputs (a site, a packet, a week's
 * writeup) builds it in a staging folder on the same file system and,
 * only when every file is written, moves it into place with rename(2). A
 * failure (a full disk, a bad value) removes the staging folder and leaves
 * the earlier output as it was; nothing half-written is ever visible at
 * the target.
 *
 * Two ways to move it into place:
 *   SB_STAGE_SWAP   the stage is a sibling of the target ("DIR/.NAME.partial-PID-XXXXXX")
 *                   and replaces the whole target folder: one atomic
 *                   exchange (renameat2 RENAME_EXCHANGE) where the file
 *                   system has it, else two renames; the earlier folder is
 *                   then removed.
 *   SB_STAGE_MERGE  the stage is inside the target ("TARGET/.solbook-partial-PID-XXXXXX")
 *                   and each of its files is renamed over the target's
 *                   file of the same name; other files stay (a folder that
 *                   holds many weeks' writeups). Renames within a file
 *                   system need no space, so this step does not fail for
 *                   a full disk.
 *
 * A build that is killed cannot remove its stage. The stage's name holds
 * the PID of its build, which also holds an flock(2) on the folder until
 * the stage is moved or removed. Opening a stage first removes the stages
 * of the same target (same name scheme, folders only) whose PID no longer
 * runs and whose lock is free; a stage of an older solbook, which named
 * no PID, goes once its lock is free and it is an hour unchanged. A stage
 * that cannot be removed stays; the new build goes on.
 */
#ifndef SOLBOOK_CORE_STAGED_DIR_H
#define SOLBOOK_CORE_STAGED_DIR_H

#include "error.h"

typedef enum { SB_STAGE_SWAP, SB_STAGE_MERGE } sb_stage_mode;

typedef struct sb_staged_dir {
    sb_stage_mode mode;
    char target[4096];  /* the folder asked for */
    char stage[4096];   /* where the outputs are written; "" when closed */
    int lock_fd;        /* the stage folder, opened and locked; 0 or -1 when none */
} sb_staged_dir;

/* Creates the staging folder for target (and target's parent, or target
 * itself for SB_STAGE_MERGE, when missing). Write everything into
 * s->stage, then commit or discard. */
int sb_staged_dir_open(sb_staged_dir *s, const char *target, sb_stage_mode mode, sb_error *err);

/* Moves the stage into place (see above) and closes s. On failure the
 * stage is removed and the target left as it was. */
int sb_staged_dir_commit(sb_staged_dir *s, sb_error *err);

/* Removes the stage and everything in it; the target is untouched.
 * Accepts a closed s. */
void sb_staged_dir_discard(sb_staged_dir *s);

/* Removes path and everything under it (no error when it is missing). */
int sb_remove_tree(const char *path, sb_error *err);

#endif

/* fsutil.h - file helpers shared by the forge modules: folder trees
 * (copy, remove, hash), temporary folders, and where the CUDA compiler and
 * the forge data files are. */
#ifndef SOLBOOK_FORGE_FSUTIL_H
#define SOLBOOK_FORGE_FSUTIL_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"
#include "mkdirs.h"

/* Copies regular files and folders under src into dst (created); refuses
 * links and special files. */
int sb_forge_copy_tree(const char *src, const char *dst, sb_error *err);

/* The same, keeping the owner's execute bit (mode 0755): a program built in
 * the sandbox's tmpfs stays runnable once copied out. */
int sb_forge_copy_tree_exec(const char *src, const char *dst, sb_error *err);

/* Copies one regular file (mode 0644). */
int sb_forge_copy_file(const char *src, const char *dst, sb_error *err);

/* rm -rf without following links. */
int sb_forge_remove_tree(const char *path, sb_error *err);

/* A new private folder under $TMPDIR (or /tmp): PREFIX-XXXXXX. */
int sb_forge_make_temp_dir(const char *prefix, char *out, size_t size, sb_error *err);

/* {"relative/path": "sha256 hex", ...} of every regular file under dir,
 * sorted by path. */
int sb_forge_hash_tree(const char *dir, json_t **out, sb_error *err);

/* The nvcc to run: $SOLBOOK_NVCC, else nvcc in PATH, else
 * /usr/local/cuda/bin/nvcc. SB_ERR when none is executable. */
int sb_forge_find_nvcc(char *out, size_t size, sb_error *err);

/* The toolkit nvcc belongs to, which the sandbox lets the compiler and
 * programs read: the folder above the one holding it (links resolved)
 * where that holds nvvm/ or include/cuda_runtime.h, else the folder holding
 * nvcc alone (a wrapper's folder, such as ~/bin, never opens its parent). */
void sb_forge_toolkit_dir(const char *nvcc, char *out, size_t size);

/* Whether this machine has an NVIDIA GPU: SOLBOOK_FORGE_GPU=0/1 decides
 * when set; otherwise /dev/nvidiactl and a /dev/nvidiaN node must exist. */
int sb_forge_have_gpu(void);

/* 1 when path is a regular file of its own (not a symbolic or hard link). */
int sb_forge_is_file(const char *path);

/* Last `max` bytes of a text file as one line (newlines folded). */
void sb_forge_file_tail(const char *path, size_t max, char *out, size_t size);

/* 32 random hex digits from /dev/urandom. */
int sb_forge_random_hex(char out[33], sb_error *err);

#endif

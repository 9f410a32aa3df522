/* scan.h - the unsafe-code scanner of `solbook forge verify`.
 *
 * Works on tokens: comments are dropped, line splices joined, string and
 * character literals kept as single tokens (so a forbidden word inside a
 * comment or a message never matches, and a path inside fopen("...") is
 * seen whole). Each finding names the file, the line, the rule and the
 * offending source line. The rules (docs/FORGE.md, "Scanner rules"):
 *   process     spawning or signalling processes: system, popen, fork, exec*,
 *               posix_spawn, clone, syscall, ptrace, kill, ...; reading
 *               the process's own arguments (__libc_argv,
 *               program_invocation_name)
 *   shell       a shell named in a string ("/bin/sh", "bash -c", ...)
 *   network     sockets, name lookup, libcurl (any curl_* name)
 *   dynamic     dlopen/dlsym: loading code the scanner never saw
 *   filesystem  changing the file system: remove, unlink, rename, rmdir,
 *               symlink, link, chmod, chown, truncate, mkfifo, mknod,
 *               std::filesystem; listing folders: opendir, readdir,
 *               scandir, glob, nftw
 *   file-path   opening a path that is absolute, starts with ~, contains
 *               "..", or is not a string literal; #include of such a path
 *               or of a file that is not a source file
 *   header      #include of a forbidden system header (sys/socket.h,
 *               netdb.h, netinet/, arpa/, curl/, spawn.h, dlfcn.h, ...)
 *   inline-asm  asm outside the body of a __global__ or __device__ (and not
 *               __host__) function, or inside a macro: only device code's
 *               asm goes to ptxas, so only there is it certainly PTX
 *   macro       ## token pasting, which can assemble a name the scanner
 *               cannot see
 *   interpose   a function definition named like the CUDA runtime or
 *               driver API (cuda*, cuX*), NVML, NVRTC or forge's harness
 *               (forge_*): it would replace the real one in the linked
 *               program; reference.* may define the four op ABI functions
 *   file        a symbolic link, a special file, or an unreadable or
 *               oversized source file in the candidate folder
 */
#ifndef SOLBOOK_FORGE_SCAN_H
#define SOLBOOK_FORGE_SCAN_H

#include <stddef.h>

#include "error.h"

typedef struct sb_scan_finding {
    char file[256];     /* path relative to the scanned folder */
    int line;           /* 1-based; 0 for findings about a whole file */
    char rule[16];
    char what[128];     /* the offending token or a short description */
    char text[256];     /* the source line, trimmed */
} sb_scan_finding;

typedef struct sb_scan_report {
    sb_scan_finding *items;
    size_t count, cap;
    size_t files_scanned;
} sb_scan_report;

/* Scans one source buffer; name is used in findings. */
int sb_scan_buffer(const char *name, const char *src, size_t len, sb_scan_report *rep,
                   sb_error *err);

/* Scans every file under dir (recursively): source files (.cu .cuh .c .h .cc
 * .cpp .cxx .hpp .hh .inc .inl) are tokenised; links and special files are
 * findings themselves. */
int sb_scan_dir(const char *dir, sb_scan_report *rep, sb_error *err);

void sb_scan_report_free(sb_scan_report *rep);

/* 1 when src defines a function called name at file scope (inside
 * extern "C" or a namespace counts), 0 when not, -1 when out of memory. */
int sb_scan_defines(const char *src, size_t len, const char *name);

/* "FILE:LINE: RULE: WHAT: TEXT" */
void sb_scan_finding_format(const sb_scan_finding *f, char *buf, size_t size);

#endif

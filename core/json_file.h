/* json_file.h - reading and writing JSON files the strict way.
 *
 * Every JSON file solbook reads goes through sb_json_load_file, so the rules
 * are the same everywhere: duplicate keys, NaN/Infinity, integers outside
 * int64, invalid UTF-8, empty or truncated input, nesting deeper than
 * SB_JSON_MAX_DEPTH and a text that would take more than SB_JSON_MAX_PARSED
 * parsed are refused with a one-line error naming the file and the
 * line:column. Writing goes through a temporary file and rename(2), so a
 * reader never sees a half-written file.
 */
#ifndef SOLBOOK_CORE_JSON_FILE_H
#define SOLBOOK_CORE_JSON_FILE_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"
#include "strbuf.h"

/* Deepest nesting of arrays/objects accepted. Result files need about 6. */
#define SB_JSON_MAX_DEPTH 64
/* Largest file accepted, so a wrong path cannot take all memory. */
#define SB_JSON_MAX_BYTES (256u * 1024u * 1024u)
/* Most heap a text may take parsed, counted before it is parsed (a node
 * for each object, array and value, and the strings' bytes, over-counted):
 * jansson's tree of a text of "{}," repeated is 78 times its size, so the
 * bytes alone bound nothing. Larger texts are refused unparsed. */
#define SB_JSON_MAX_PARSED ((size_t)384 << 20)

/* SB_OK when the text of buf would take at most SB_JSON_MAX_PARSED
 * parsed (counted from its bytes, unparsed); else the loader's one-line
 * refusal. Every parser of JSON text calls it first: the loaders here and
 * ingest's fast parser (ingest/json_fast.h). */
int sb_json_parsed_cost_check(const char *buf, size_t len, const char *name, sb_error *err);

/* Parses a whole buffer. name is used in errors (usually the path). */
int sb_json_load_buffer(const char *buf, size_t len, const char *name,
                        json_t **out, sb_error *err);

/* Reads and parses path. On success *out holds a new reference. The top
 * level must be an object or an array, as every solbook file is. */
int sb_json_load_file(const char *path, json_t **out, sb_error *err);

/* sb_json_load_file for a file in a folder others write (a fleet task
 * record on a shared volume): only a regular file is read; a symbolic link
 * at the last name, a FIFO (whose opening would wait for a writer), a
 * socket or a device is refused unread, in one line naming it. */
int sb_json_load_plain_file(const char *path, json_t **out, sb_error *err);
/* The same for a file of at most max bytes (at most max + 1 are read);
 * a larger one is refused unparsed. */
int sb_json_load_plain_file_max(const char *path, size_t max, json_t **out, sb_error *err);

/* The same rules, but any JSON value is accepted at the top level ("3",
 * "true", "null"): JSON Schema instances, and boolean schemas. */
int sb_json_load_file_any(const char *path, json_t **out, sb_error *err);
int sb_json_load_buffer_any(const char *buf, size_t len, const char *name,
                            json_t **out, sb_error *err);

/* Reads a whole file into a NUL-terminated malloc'd buffer (also used for
 * content hashing). Refuses directories and files over SB_JSON_MAX_BYTES,
 * counted as read, not as their size says. */
int sb_file_read_all(const char *path, char **out, size_t *len, sb_error *err);
/* The same into *buf, a malloc'd buffer of *cap bytes (NULL and 0 at
 * first) grown as needed and kept by the caller for the next file: a
 * reader of many files allocates once. *len excludes the NUL. */
int sb_file_read_into(const char *path, char **buf, size_t *cap, size_t *len, sb_error *err);
/* Reads a file of at most max bytes the same way, reading to EOF but
 * never more than max + 1 bytes, whatever its size said when it was
 * opened (a file that grows, a pipe): *len == max + 1 says the file
 * holds more than max bytes, and the caller refuses it in its own words
 * (the buffer then holds none of it to use). sb_file_read_into is this
 * with SB_JSON_MAX_BYTES, refusing a larger file itself. */
int sb_file_read_into_max(const char *path, size_t max, char **buf, size_t *cap, size_t *len,
                          sb_error *err);

/* Opens path to read a file that a listing judged earlier, in a folder
 * others may change meanwhile: a name can be swapped between the look and
 * the read, so the checks are made on the descriptor opened, not on the
 * name. Only a regular file is taken (a FIFO, whose opening would wait for
 * a writer, a socket or a device is refused unread). inside, when not
 * NULL, is a resolved folder (realpath) the file must lie in: where the
 * open descriptor leads (/proc/self/fd) is compared with it, so that no
 * link or folder swapped in on the way reaches a file outside. plain: a
 * symbolic link at the last name is refused, and so is a file with more
 * than one name (a hard link, whose bytes may be those of a file
 * elsewhere). With either, a file whose name was removed once opened is
 * refused too (a hard link swapped back leaves one name, elsewhere).
 * *fd is the open descriptor on success; otherwise err says why, for the
 * caller to say what it does about it ("refused"). */
int sb_file_open_inside(const char *path, const char *inside, int plain, int *fd, sb_error *err);
/* Reads the open fd (named path in errors) as sb_file_read_into_max does,
 * and closes it. */
int sb_file_read_fd_max(int fd, const char *path, size_t max, char **buf, size_t *cap, size_t *len,
                        sb_error *err);

/* Writes bytes to path atomically: PATH.tmp.PID, fsync, rename. */
int sb_file_write_atomic(const char *path, const char *data, size_t len,
                         sb_error *err);

/* Writes the text of b to path as sb_file_write_atomic does; an error
 * when b ran out of memory while it was built. */
int sb_file_write_buf(const char *path, const sb_buf *b, sb_error *err);

/* Dumps json (sorted keys, 2-space indent, trailing newline) atomically. */
int sb_json_write_file(const char *path, const json_t *json, sb_error *err);

/* Builds an RFC 6901 JSON pointer by appending one token (escaping ~ and /). */
void sb_json_pointer_append(char *ptr, size_t size, const char *token);
void sb_json_pointer_append_index(char *ptr, size_t size, size_t index);

#endif

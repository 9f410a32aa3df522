/* encode.h - stored text written into a shell script, a Markdown file or a
 * terminal, encoded for that one context so that it stays text.
 *
 * Every value that came from a data file (a result's notes, a tool name, a
 * file name, a SKU, an op) passes through the encoder of the place it is
 * written to; no output inserts such text raw. The encoders never fail:
 * they append to an sb_buf (whose allocation failure is sticky).
 *
 * Characters that could end a line, move the cursor, start a terminal
 * escape sequence or reorder the displayed text (C0 and C1 controls, DEL,
 * the Unicode bidirectional controls, U+2028/U+2029) and bytes that are not
 * UTF-8 are written as visible escapes: \n \r \t \e, \xHH for other bytes,
 * \u{HHHH} for the code points; a backslash in the text is doubled in the
 * line encoders so the escapes cannot be forged.
 *
 * Encoders that take a limit write at most that many characters (code
 * points) of s and then an ellipsis (U+2026) when s was longer; 0 means no
 * limit. */
#ifndef SOLBOOK_CORE_ENCODE_H
#define SOLBOOK_CORE_ENCODE_H

#include <stddef.h>

#include "strbuf.h"

/* Limits for free text in outputs: a name in a table cell or a title, and
 * a paragraph of notes. */
#define SB_TEXT_NAME_MAX 120
#define SB_TEXT_NOTE_MAX 2000

/* One line of plain text for a terminal: dangerous characters escaped as
 * above, nothing else changed. */
void sb_enc_terminal(sb_buf *out, const char *s, size_t limit);

/* Text after '#' on one line of a shell script: the terminal line form,
 * so the comment cannot end early and nothing in it runs. */
void sb_enc_shell_comment(sb_buf *out, const char *s, size_t limit);

/* One shell word that the shell reads back as exactly the bytes of s: as
 * it is when s holds only [A-Za-z0-9_.,=:/+-], in single quotes (a quote
 * in s written as '\'') when it holds no character that is written as
 * an escape above, and otherwise as $'...' (bash, ksh, zsh and
 * POSIX.1-2024 sh; not dash 0.5.12): \n \r \t, \' and \\ for a quote
 * and a backslash, and \xHH for each byte of the other such characters
 * (a bidi control is its UTF-8 bytes), so the word stays on one line and
 * shows what it holds. A script that may hold such a word runs under
 * bash (sb_shell_interpreter). */
void sb_enc_shell_arg(sb_buf *out, const char *s);

/* The interpreter a script of shell words needs: "/usr/bin/env bash" when
 * text holds a $'...' word (or what looks like one), else "/bin/sh". */
const char *sb_shell_interpreter(const char *text);

/* The longest run of backticks that cmark-gfm and GitHub read as a code
 * span's delimiter; a longer run is text. */
#define SB_MD_CODE_TICKS_MAX 80

/* One CSV field of stored text, for a file a spreadsheet opens or a
 * terminal shows: the terminal line form (dangerous characters escaped,
 * a backslash doubled), with an apostrophe before a leading '=', '+', '-'
 * or '@', which a spreadsheet would take for the start of a formula (a
 * live =HYPERLINK, a command), then quoted as sb_buf_csv_field quotes.
 * For text from data only: figures and ids of the writer's own go
 * through sb_buf_csv_field as they are. */
void sb_enc_csv_field(sb_buf *out, const char *s);

/* HTML or XML text, for an element's content or a quoted attribute:
 * & < > " ' as entities, C0 controls other than tab and newlines as '?'
 * (XML 1.0 has no way to write them), the characters that reorder
 * displayed text as their visible escapes (sb_enc_reordering_char), the
 * rest as it is. */
void sb_enc_xml_text(sb_buf *out, const char *s);

/* The visible escape (\u{HHHH}) of a character at s that is outside ASCII
 * and reorders displayed text or ends a line (a C1 control, a Unicode
 * bidirectional control, U+2028/U+2029), appended to out: the bytes it
 * took, else 0 and nothing appended. For the HTML and XML escapers, which
 * keep other text as it is. */
size_t sb_enc_reordering_char(sb_buf *out, const char *s);

/* Markdown inline text, safe in a GFM table cell and at the start of a
 * line: newlines folded to spaces, Markdown punctuation (and '<', '&', '|')
 * backslash-escaped, so no heading, list, link, raw HTML or cell break can
 * start from s. GFM's autolinks are stopped too: ':' and the '.' of "www."
 * are escaped and '@' is written as a code span, so no URL, www. name or
 * e-mail address in s becomes a link. A leading space or newline is
 * written as "&#32;", and a leading '-' or '=' and the '.' or ')' after
 * leading digits are escaped where they would mark a block, so s cannot
 * start a code block, a list, a thematic break or a heading underline;
 * the one exception is s = "-", the mark for "none" in a table cell, which
 * is written as it is. */
void sb_enc_md_text(sb_buf *out, const char *s, size_t limit);

/* A whole Markdown code span, delimiters included: a run of backticks one
 * longer than the longest in s, spaces inside when s starts or ends with a
 * backtick, '|' escaped for table cells, newlines folded to spaces. When
 * s holds a run of SB_MD_CODE_TICKS_MAX backticks or more, no span can hold
 * it, and s is written as sb_enc_md_text writes it. */
void sb_enc_md_code_span(sb_buf *out, const char *s, size_t limit);

/* A whole fenced code block: an opening fence of backticks longer than any
 * run of backticks in body (at least 3) followed by info, body with its
 * dangerous characters other than newline and tab escaped, a newline if
 * body lacks a final one, and the closing fence and newline. Nothing in
 * body can close the block early. */
void sb_enc_md_fence(sb_buf *out, const char *info, const char *body);

/* 1: url is an http(s) address made only of the characters RFC 3986
 * allows that neither end a Markdown link destination nor a table cell
 * (no space, quote, angle bracket, backtick, backslash, '|', '(' or ')'),
 * so it can stand as it is in an href and in a Markdown link. */
int sb_url_link_safe(const char *url);

/* Number of bytes of the first `limit` characters of s (all of s when it
 * has no more); a UTF-8 sequence is never split. */
size_t sb_utf8_prefix_len(const char *s, size_t limit);

/* The length of the longest prefix of the n bytes at s that is valid
 * UTF-8 (shortest forms, no surrogates, nothing past U+10FFFF): n when
 * all of it is. s need not be NUL-terminated. */
size_t sb_utf8_valid_len(const char *s, size_t n);

#endif

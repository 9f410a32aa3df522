/* isoweek.h - RFC 3339 timestamps and ISO 8601 weeks ("2026-W47"), in UTC.
 * Runs belong to the ISO week of their provenance finished_at.
 */
#ifndef SOLBOOK_CORE_ISOWEEK_H
#define SOLBOOK_CORE_ISOWEEK_H

#include "error.h"

/* Parses "YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)" (a space or 't' for
 * 'T' and 'z' for 'Z' accepted) into seconds since 1970-01-01T00:00:00Z.
 * Returns 0 on success, -1 when s is not such a timestamp. */
int sb_rfc3339_parse(const char *s, long long *epoch);

/* Formats epoch seconds as "YYYY-MM-DD". */
void sb_epoch_date(long long epoch, char buf[16]);

/* Parses "YYYY-Www" (week 01..52 or 53 where the year has one). */
int sb_isoweek_parse(const char *s, int *year, int *week, sb_error *err);
/* [start, end): Monday 00:00Z of the week and of the next one. */
void sb_isoweek_range(int year, int week, long long *start, long long *end);
/* The ISO week an instant falls in. */
void sb_isoweek_of(long long epoch, int *year, int *week);
/* The week before. */
void sb_isoweek_prev(int year, int week, int *py, int *pw);
/* "YYYY-Www" into buf (at least 9 bytes). */
void sb_isoweek_format(int year, int week, char *buf, unsigned size);

#endif

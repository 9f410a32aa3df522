/* isoweek.c - RFC 3339 parsing and ISO weeks (isoweek.h). */
#include "isoweek.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static long long days_from_civil(long long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

static void civil_from_days(long long z, int *y, unsigned *m, unsigned *d)
{
    z += 719468;
    long long era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long yy = (long long)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int)(yy + (*m <= 2));
}

static int digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

static int days_in_month(int y, int m)
{
    static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 ? 28 + leap : dm[m - 1];
}

int sb_rfc3339_parse(const char *s, long long *epoch)
{
    int y, mo, d, h, mi, se;
    if (!s || strlen(s) < 20)
        return -1;
    if (digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) || s[7] != '-' ||
        digits(s + 8, 2, &d) || !(s[10] == 'T' || s[10] == 't' || s[10] == ' ') ||
        digits(s + 11, 2, &h) || s[13] != ':' || digits(s + 14, 2, &mi) || s[16] != ':' ||
        digits(s + 17, 2, &se))
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || se > 60)
        return -1;
    const char *p = s + 19;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return -1;
        while (isdigit((unsigned char)*p))
            p++;
    }
    long long off = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh, om;
        if (digits(p + 1, 2, &oh) || p[3] != ':' || digits(p + 4, 2, &om) || oh > 23 || om > 59)
            return -1;
        off = (oh * 3600LL + om * 60LL) * (*p == '+' ? 1 : -1);
        p += 6;
    } else {
        return -1;
    }
    if (*p)
        return -1;
    *epoch = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400LL + h * 3600LL + mi * 60LL +
             se - off;
    return 0;
}

void sb_epoch_date(long long epoch, char buf[16])
{
    long long days = epoch >= 0 ? epoch / 86400 : -((-epoch + 86399) / 86400);
    int y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    snprintf(buf, 16, "%04d-%02u-%02u", y % 10000, m % 100, d % 100);
}

/* Days since epoch of the Monday of ISO week 1 of year y. */
static long long week1_monday(int y)
{
    long long jan4 = days_from_civil(y, 1, 4);
    /* 1970-01-01 was a Thursday: weekday Monday=0 is (days + 3) mod 7. */
    long long wd = ((jan4 + 3) % 7 + 7) % 7;
    return jan4 - wd;
}

static int weeks_in_year(int y)
{
    return (int)((week1_monday(y + 1) - week1_monday(y)) / 7);
}

int sb_isoweek_parse(const char *s, int *year, int *week, sb_error *err)
{
    int y, w;
    if (!s || strlen(s) != 8 || digits(s, 4, &y) || s[4] != '-' || s[5] != 'W' ||
        digits(s + 6, 2, &w))
        return sb_error_set(err, NULL, NULL, "'%s' is not an ISO week (YYYY-Www, e.g. 2026-W47)",
                            s ? s : "");
    if (w < 1 || w > weeks_in_year(y))
        return sb_error_set(err, NULL, NULL, "%s: year %d has weeks 01 to %02d", s, y,
                            weeks_in_year(y));
    *year = y;
    *week = w;
    return SB_OK;
}

void sb_isoweek_range(int year, int week, long long *start, long long *end)
{
    long long d = week1_monday(year) + 7LL * (week - 1);
    *start = d * 86400LL;
    *end = (d + 7) * 86400LL;
}

void sb_isoweek_of(long long epoch, int *year, int *week)
{
    long long days = epoch >= 0 ? epoch / 86400 : -((-epoch + 86399) / 86400);
    int y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    for (int cand = y + 1; cand >= y - 1; cand--) {
        long long w1 = week1_monday(cand);
        if (days >= w1) {
            *year = cand;
            *week = (int)((days - w1) / 7) + 1;
            return;
        }
    }
    *year = y;
    *week = 1;
}

void sb_isoweek_prev(int year, int week, int *py, int *pw)
{
    if (week > 1) {
        *py = year;
        *pw = week - 1;
    } else {
        *py = year - 1;
        *pw = weeks_in_year(year - 1);
    }
}

void sb_isoweek_format(int year, int week, char *buf, unsigned size)
{
    snprintf(buf, size, "%04d-W%02d", year % 10000, week % 100);
}

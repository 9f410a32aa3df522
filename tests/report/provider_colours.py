#!/usr/bin/env python3
"""provider_colours.py - report/render/provider_colours.csv, the colour of each
provider on every chart: each colour at least 3:1 against white (WCAG 2
contrast, the level for graphics), the providers the headlines compare
in colours of their own, and the site's regression and improvement marks
in none of the series colours.

    provider_colours.py SOURCE_DIR
"""
import csv
import re
import sys


def luminance(hexcolour):
    c = [int(hexcolour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    c = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]


def main():
    src = sys.argv[1]
    rows = list(csv.reader(open(src + "/report/render/provider_colours.csv", encoding="utf-8")))
    if rows[0] != ["provider", "colour"]:
        sys.exit("FAIL: header %r" % rows[0])
    colours = {}
    others = []
    for name, colour in rows[1:]:
        if not re.fullmatch(r"#[0-9A-Fa-f]{6}", colour):
            sys.exit("FAIL: %s: %r is not #RRGGBB" % (name, colour))
        ratio = 1.05 / (luminance(colour) + 0.05)
        if ratio < 3.0:
            sys.exit("FAIL: %s %s: contrast %.2f:1 on white, under 3:1" % (name, colour, ratio))
        if name == "*":
            others.append(colour.lower())
        else:
            colours[name] = colour.lower()
    print("ok: %d named and %d other colours, each at least 3:1 on white" % (len(colours), len(others)))
    headline = ["fused", "liger", "huggingface", "torch-compile", "reference"]
    seen = [colours.get(p) for p in headline]
    if None in seen or len(set(seen)) != len(seen):
        sys.exit("FAIL: headline providers %s need distinct colours: %s" % (headline, seen))
    print("ok: %s have colours of their own" % ", ".join(headline))
    css = open(src + "/data/templates/site/site.css", encoding="utf-8").read()
    for mark in ("regression", "improvement"):
        m = re.search(r"svg\.hc \." + mark + r" \{([^}]*)\}", css)
        if not m:
            sys.exit("FAIL: site.css has no style for the %s mark" % mark)
        used = {c.lower() for c in re.findall(r"#[0-9A-Fa-f]{6}", m.group(1))}
        used |= {"#" + c[1] * 2 + c[2] * 2 + c[3] * 2 for c in re.findall(r"#[0-9A-Fa-f]{3}\b", m.group(1))}
        clash = used & (set(colours.values()) | set(others))
        if clash:
            sys.exit("FAIL: the %s mark uses series colour(s) %s" % (mark, sorted(clash)))
    print("ok: the regression and improvement marks use no series colour")


if __name__ == "__main__":
    main()

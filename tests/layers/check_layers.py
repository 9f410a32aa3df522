#!/usr/bin/env python3
"""check_layers.py - the layering rules of docs/DEVELOPING.md, checked
against the code:

  1. no header outside db/ names sqlite3 (the database is db/'s alone),
     and no source outside db/ either: other folders hold the opaque sb_db
     (db/store.h) and call db/'s functions;
  2. no SQL statement outside db/ (SELECT, INSERT INTO, UPDATE, DELETE FROM
     in a string, or sqlite3_prepare);
  3. model/ includes nothing of db/, ingest/, report/, site/, forge/,
     fleet/ or cli/ (statistics read no database and write no file);
  4. no include cycle between folders;
  5. no include circle between modules (a module is NAME.h with NAME.c):
     a file that is both driver and helper library of its neighbours;
  6. report/ writes no file (no open for writing, rename, mkdir, staged
     folder, atomic file writer): report/ returns text, and site/ and the
     CLI write it;
  7. report/ includes no db/ header: it takes what it reports on from its
     caller instead of querying;
  8. the solbook.result.v1 document, its timing and the stats object of
     the timing are built only in model/ (result_doc.h): one writer and
     one statistics implementation (tests/model/test_result_paths.c feeds
     the same samples through solbench's, forge's and an importer's path);
  9. nothing in docs/ is read or written by the program: no C source names
     a path under docs/, no script writes into docs/ (a redirect or --out),
     no page in docs/ says it was written by a program, and each standing
     block of a page in docs/ holds only its pointer to out/KERNELS.md
     (the main job fills the tables into that copy);
 10. what the program reads lives under data/, found through sb_data_path
     (core/home.h) and installed by one rule: the build has exactly one
     install() into the data directory, install(DIRECTORY data ...), and
     no C source outside core/home.c joins a home with "data/" itself;
 11. report/ calls no read interface: it includes no header of model/
     that declares a struct with a function member taking a context
     (void *ctx), which db/ would fill with its reads. Its caller reads
     the rows once (model/snapshot.h, weekly_snapshot.h) or answers what
     it asks (model/run_details.h, rg_ask.h) and hands them over
     read-only;
 12. report/ makes no Markdown, SVG or HTML outside report/render/: no
     call of core/encode.h's Markdown and XML encoders, of the Markdown
     to HTML conversion or of svg.h's drawing, and no string that starts
     a Markdown table row, a heading or an HTML tag. The figures and
     findings are report/'s; their text is render/'s or a template's
     (data/templates/, filled through core/template.h), and report/
     may hand render/ what it computed to draw.

Where the code does not follow a rule yet, the offender is listed in
KNOWN below: the check fails on any new offender, and also on a listed one
that no longer offends, so the list only shrinks.

usage: check_layers.py [SOURCE_DIR]"""
import glob
import os
import re
import sys

FOLDERS = ("core", "model", "collect", "db", "ingest", "report", "site", "forge", "fleet", "cli", "bench")
KNOWN = {
    "sqlite3 in a header outside db/": set(),
    "sqlite3 in a source outside db/": set(),
    "SQL outside db/": set(),
    "model/ includes a layer above it": set(),
    "include cycle between folders": set(),
    "include circle between modules": set(),
    "file writing in report/": set(),
    "report/ includes db/": set(),
    "docs/ read or written by the program": set(),
    "data outside the one data/ rule": set(),
    "result timing built outside model/": set(),
    "report/ calls a read interface": set(),
    "Markdown, SVG or HTML made in report/ outside render/": set(),
}
SQL = re.compile(r'"(SELECT |INSERT INTO |UPDATE |DELETE FROM )|sqlite3_prepare')
WRITES = re.compile(r"(?<![\w.>])(fopen|open|openat|creat|mkdir|mkdirat|rename|renameat2?|unlink|remove|"
                    r"chmod|fwrite|write|sb_file_write_atomic|sb_json_write_file|sb_file_write_buf|"
                    r"sb_write_buf|sb_mkdirs|sb_staged_dir_open|sb_remove_tree|gzopen)\s*\(")
# Keys only the result document's writer sets: the schema id, the stats
# object of a timing and its fields the writers once disagreed on.
RESULT_KEYS = re.compile(r'"(rel_noise|repeat_median_rel_spread|quantiles_only)"\s*,|'
                         r'SB_RESULT_SCHEMA|json_string\("solbook\.result\.v1"\)')
# A function member taking a context, outside a typedef of a callback.
READ_MEMBER = re.compile(r"^\s+(?!typedef)[\w \t\*]+\(\s*\*\s*\w+\s*\)\s*\(\s*void\s*\*\s*\w+", re.M)
# What makes output text: the encoders of Markdown and XML, the conversion
# to HTML, the SVG primitives, and literals that open a table row, a
# heading or a tag.
RENDERS = re.compile(r"\b(sb_enc_md_\w+|sb_enc_xml_text|sb_markdown_to_html|sb_svg_\w+)\s*\(|"
                     r'"(\\n)*(\| |\|-|#{1,6} |<[a-zA-Z])')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
DOCS_PATH = re.compile(r'"docs/')
DOCS_WRITE = re.compile(r'(>|--out[ =])\s*"?[^\s"]*\bdocs/')
DOCS_GENERATED = re.compile(r"^(Written|Generated) by `", re.M)
STANDING = re.compile(r"<!-- solbook report standing: ([a-z-]+) -->\n(.*?)<!-- end solbook report standing -->", re.S)
INSTALL = re.compile(r"\binstall\s*\((.*?)\)", re.S)
DATA_RULE = "DIRECTORY data DESTINATION ${SOLBOOK_INSTALL_DATADIR}"
SCRIPT_DIRS = ("scripts", "bench/scripts", "forge/scripts", "perf", "tests")


def docs_offenders(top):
    """Scripts that write into docs/, and pages of docs/ that a program
    wrote; with the number of pages and standing blocks read."""
    out, pages, blocks = set(), 0, 0
    for d in SCRIPT_DIRS:
        for root, _, files in os.walk(os.path.join(top, d)):
            if os.path.relpath(root, top).startswith(os.path.join("tests", "data")):
                continue
            for f in files:
                if f.endswith((".sh", ".py")):
                    path = os.path.join(root, f)
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        if DOCS_WRITE.search(fh.read()):
                            out.add(os.path.relpath(path, top))
    for path in sorted(glob.glob(os.path.join(top, "docs", "*"))):
        rel = os.path.relpath(path, top)
        if not path.endswith(".md"):
            continue
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        pages += 1
        if DOCS_GENERATED.search("\n".join(text.split("\n")[:12])):
            out.add(rel + " (says it was generated)")
        for name, body in STANDING.findall(text):
            blocks += 1
            lines = [l for l in body.split("\n") if l.strip()]
            if len(lines) != 1 or "out/KERNELS.md" not in lines[0]:
                out.add("%s (standing block %s holds more than its pointer)" % (rel, name))
    return out, pages, blocks


def data_rule_offenders(top):
    """install() rules into the data directory other than the one data/ rule."""
    out, rules = set(), 0
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build")) and d not in ("examples", "data")]
        if "CMakeLists.txt" not in files:
            continue
        path = os.path.join(root, "CMakeLists.txt")
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = re.sub(r"#[^\n]*", "", fh.read())
        for args in INSTALL.findall(text):
            if "SOLBOOK_INSTALL_DATADIR" not in args:
                continue
            rules += 1
            if " ".join(args.split()) != DATA_RULE:
                out.add("%s: install(%s)" % (os.path.relpath(path, top), " ".join(args.split())))
    if rules != 1:
        out.add("%d install() rules into the data directory, not 1" % rules)
    return out


def sources(top):
    for folder in FOLDERS:
        for root, _, files in os.walk(os.path.join(top, folder)):
            for f in files:
                if f.endswith((".c", ".h", ".cu", ".cuh")):
                    yield os.path.relpath(os.path.join(root, f), top)


def header_index(top):
    """Header name -> the folders that hold a header of that name."""
    idx = {}
    for rel in sources(top):
        if rel.endswith((".h", ".cuh")):
            idx.setdefault(os.path.basename(rel), set()).add(rel.split(os.sep)[0])
    return idx


def folder_cycles(edges):
    """Folders on a cycle of the folder include graph."""
    on_cycle = set()
    for start in edges:
        seen, stack = set(), [start]
        while stack:
            n = stack.pop()
            for m in edges.get(n, ()):
                if m == start:
                    on_cycle.add(start)
                elif m not in seen:
                    seen.add(m)
                    stack.append(m)
    return on_cycle


def module_circles(medges):
    """Strongly connected sets of more than one module, each as a string."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in medges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(" ".join(sorted(comp)))

    sys.setrecursionlimit(10000)
    for v in sorted(medges):
        if v not in index:
            visit(v)
    return out


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    idx = header_index(top)
    found = {k: set() for k in KNOWN}
    edges, medges = {}, {}
    read_headers = set()
    for h in glob.glob(os.path.join(top, "model", "*.h")):
        with open(h, encoding="utf-8", errors="replace") as fh:
            if READ_MEMBER.search(re.sub(r"/\*.*?\*/", "", fh.read(), flags=re.S)):
                read_headers.add(os.path.basename(h))
    for rel in sources(top):
        folder = rel.split(os.sep)[0]
        with open(os.path.join(top, rel), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        code = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        if folder != "db" and re.search(r"\bsqlite3\b", code):
            found["sqlite3 in a %s outside db/" % ("header" if rel.endswith(".h") else "source")].add(rel)
        if folder != "db" and folder != "bench" and SQL.search(code):
            found["SQL outside db/"].add(rel)
        if folder == "report" and WRITES.search(code):
            found["file writing in report/"].add(rel)
        if folder == "report" and not rel.startswith(os.path.join("report", "render", "")) and \
                RENDERS.search(code):
            found["Markdown, SVG or HTML made in report/ outside render/"].add(rel)
        if folder == "report" and any(os.path.basename(i) in read_headers for i in INCLUDE.findall(code)):
            found["report/ calls a read interface"].add(rel)
        if DOCS_PATH.search(code):
            found["docs/ read or written by the program"].add(rel)
        if rel != os.path.join("core", "home.c") and re.search(r'"%s/data/|SOLBOOK_REL_DATADIR', code):
            found["data outside the one data/ rule"].add(rel)
        if folder != "model" and RESULT_KEYS.search(code):
            found["result timing built outside model/"].add(rel)
        for inc in INCLUDE.findall(code):
            name = os.path.basename(inc)
            here = os.path.join(os.path.dirname(rel), inc)
            if os.path.exists(os.path.join(top, here)):
                targets = {os.path.normpath(here).split(os.sep)[0]}
            else:
                targets = idx.get(name, set())
                if folder in targets:
                    targets = {folder}  # a header of the folder's own wins
            if os.path.exists(os.path.join(top, here)):
                mod_to = os.path.splitext(os.path.normpath(here))[0]
                mod_from = os.path.splitext(rel)[0]
                if mod_to != mod_from:
                    medges.setdefault(mod_from, set()).add(mod_to)
            for t in targets:
                if t != folder:
                    edges.setdefault(folder, set()).add(t)
                    if folder == "report" and t == "db":
                        found["report/ includes db/"].add(rel)
                    if folder == "model" and t in ("db", "ingest", "report", "site", "forge", "fleet", "cli"):
                        found["model/ includes a layer above it"].add("%s -> %s" % (rel, inc))
    docs, pages, blocks = docs_offenders(top)
    found["docs/ read or written by the program"] |= docs
    print("check_layers: docs/: %d page(s) and %d standing block(s) read" % (pages, blocks))
    found["data outside the one data/ rule"] |= data_rule_offenders(top)
    for f in folder_cycles(edges):
        found["include cycle between folders"].add(f)
    for c in module_circles(medges):
        found["include circle between modules"].add(c)
    bad = 0
    for rule, offenders in found.items():
        new, gone = offenders - KNOWN[rule], KNOWN[rule] - offenders
        for o in sorted(new):
            print("check_layers: %s: %s" % (rule, o))
            bad += 1
        for o in sorted(gone):
            print("check_layers: %s: %s no longer offends; take it off KNOWN" % (rule, o))
            bad += 1
        print("check_layers: %s: %d known offender(s)" % (rule, len(offenders & KNOWN[rule])))
    print("check_layers: %d rule(s) checked, %d problem(s)" % (len(found), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

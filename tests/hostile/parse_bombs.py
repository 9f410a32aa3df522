#!/usr/bin/env python3
"""parse_bombs.py SOLBOOK - result documents that cost more parsed than read.

A parsed array of small numbers takes about 21 times its text, so the
archive bounds on inflated bytes alone let a 246 KB .tar.gz holding one
240 MiB {"pad":[0,0,...]} result reach 5 GB. Generated here, never
stored in the repository:
  - that archive, the same document as a file of a directory and as a
    JSON Lines line: each refused unread, in one line naming it;
  - 120 members of just under 1 MiB of it (within the document and the
    held bound): each parsed and refused by the schema;
  - 400 members of 8 MiB (3.3 MB packed), named as results and as Nsight
    Compute sidecars: refused at the first member and at the held bound;
  - 2.2 million empty members (19 MB packed), whose names and records
    alone are what is held: refused at the held bound, which counts the
    heap bytes they take (counted as bytes of names, 3.7 million such
    members held 343 MB under a 128 MiB bound).
  - a 40 MiB one as a file and as a member with --max-doc-mb 64: read,
    then refused unparsed for what its tree would take, as the strict
    loader refuses it.
Each ingest's peak RSS (wait4) stays under 512 MiB, and nothing is
stored.
"""
import gzip
import io
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile

from peak_rss import sanitized
import zlib

SOLBOOK = sys.argv[1]
LIMIT_KIB = 512 * 1024
# A sanitizer's shadow memory and quarantine (ASan keeps up to 256 MB of
# freed blocks) are part of the process's RSS, so the memory bound is the
# plain build's to check; a sanitizer build checks every refusal alone.
SANITIZED = sanitized(SOLBOOK)
DOC_MAX = 1 << 20


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def pad_chunks(n):
    """The bytes of {"pad":[0,0,...,0]}, n in all, in chunks."""
    head, tail = b'{"pad":[', b"0]}"
    pairs, odd = divmod(n - len(head) - len(tail), 2)
    yield head
    block = b"0," * (1 << 16)
    while pairs >= 1 << 16:
        yield block
        pairs -= 1 << 16
    yield b"0," * pairs
    yield b" " * odd + tail


def gz_member(data_chunks):
    """One gzip member of the chunks (gzip members may be concatenated)."""
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    out = [c.compress(ch) for ch in data_chunks]
    out.append(c.flush())
    return b"".join(out)


def tar_gz(path, members):
    """A .tar.gz of (name, size, chunks) members, each part its own gzip
    member, so a body repeated is compressed once."""
    cache = {}
    with open(path, "wb") as f:
        for name, size, key in members:
            info = tarfile.TarInfo(name)
            info.size = size
            f.write(gzip.compress(info.tobuf(format=tarfile.USTAR_FORMAT), 6))
            if key not in cache:
                body = list(pad_chunks(size)) if key == "pad" else [bytes(size)]
                body.append(bytes(-size % 512))
                cache[key] = gz_member(body)
            f.write(cache[key])
        f.write(gzip.compress(bytes(1024), 6))


def empty_members_tar_gz(path, n):
    """A .tar.gz of n empty members r/0000000.json ... in ustar headers
    written directly (tarfile takes minutes for millions)."""
    head = bytearray(tarfile.TarInfo("r/0000000.json").tobuf(format=tarfile.USTAR_FORMAT))
    head[148:156] = b" " * 8
    base = sum(head) - sum(b"r/0000000.json")
    c = zlib.compressobj(1, zlib.DEFLATED, 31)
    with open(path, "wb") as f:
        chunk = []
        for i in range(n):
            name = b"r/%07d.json" % i
            head[0:14] = name
            head[148:156] = b"%06o\0 " % (base + sum(name))
            chunk.append(bytes(head))
            if len(chunk) == 8192:
                f.write(c.compress(b"".join(chunk)))
                chunk = []
        chunk.append(bytes(1024))
        f.write(c.compress(b"".join(chunk)))
        f.write(c.flush())


def ingest(name, args, db):
    """Runs solbook ingest; returns (rc, stdout, stderr, peak RSS in KiB)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([SOLBOOK, "ingest", "--db", db] + args, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        o, e = out.read().decode(), err.read().decode()
    if not SANITIZED and usage.ru_maxrss >= LIMIT_KIB:
        fail("%s: peak RSS %d KiB, not under %d KiB" % (name, usage.ru_maxrss, LIMIT_KIB))
    runs = sqlite3.connect(db).execute("SELECT count(*) FROM runs").fetchone()[0]
    if runs:
        fail("%s: %d runs stored" % (name, runs))
    return p.returncode, o, e, usage.ru_maxrss


def refused(name, args, db, line):
    rc, _, err, rss = ingest(name, args, db)
    if rc != 1 or err != line + "\n":
        fail("%s: exit %d, stderr %r; expected exit 1 and the one line %r" % (name, rc, err, line))
    print("ok: %s: refused in one line, peak RSS %d KiB: %s" % (name, rss, line))


work = tempfile.mkdtemp(prefix="sb_bombs_")
try:
    db = os.path.join(work, "b.db")
    big = 240 << 20
    one = os.path.join(work, "one.tar.gz")
    tar_gz(one, [("r/pad.json", big, "pad")])
    print("one.tar.gz: %d bytes packed, one 240 MiB {\"pad\":[0,0,...]} result" % os.path.getsize(one))
    refused("240 MiB result in an archive", [one], db,
            "solbook: %s:r/pad.json: result document more than %d bytes (1 MiB) inflated: refused"
            % (one, DOC_MAX))

    folder = os.path.join(work, "dir")
    os.makedirs(folder)
    with open(os.path.join(folder, "pad.json"), "wb") as f:
        for ch in pad_chunks(big):
            f.write(ch)
    refused("240 MiB result in a directory", [folder], db,
            "solbook: %s/pad.json: result document more than %d bytes (1 MiB): refused"
            % (folder, DOC_MAX))

    lines = os.path.join(work, "pad.jsonl.gz")
    with gzip.open(lines, "wb", compresslevel=6) as g:
        for ch in pad_chunks(big):
            g.write(ch)
        g.write(b"\n")
    refused("240 MiB JSON Lines line", [lines], db,
            "solbook: %s:1: result document more than %d bytes (1 MiB) inflated: refused"
            % (lines, DOC_MAX))

    # A larger --max-doc-mb lets a document be read, not be parsed past
    # what the strict loader takes: ingest's fast parser, which took such
    # a text the loader refuses, built a tree of 1 GB from 50 MiB of
    # zeros. A 40 MiB one, as a file and as an archive's member.
    mid = 40 << 20
    with open(os.path.join(folder, "pad.json"), "wb") as f:
        for ch in pad_chunks(mid):
            f.write(ch)
    mid_tar = os.path.join(work, "mid.tar.gz")
    tar_gz(mid_tar, [("r/pad.json", mid, "pad")])
    for what, arg, named in (("file", folder, os.path.join(folder, "pad.json")),
                             ("member", mid_tar, mid_tar + ":r/pad.json")):
        name = "40 MiB result as a %s, --max-doc-mb 64" % what
        rc, _, err, rss = ingest(name, ["--max-doc-mb", "64", arg], db)
        if rc != 1 or not re.fullmatch(r"solbook: %s: JSON text of %d bytes would take about \d+ MiB parsed, "
                                       r"more than 384 MiB: refused unparsed\n" % (re.escape(named), mid), err):
            fail("%s: exit %d, stderr %r" % (name, rc, err[:300]))
        print("ok: %s: refused unparsed in one line, peak RSS %d KiB" % (name, rss))
    shutil.rmtree(folder)

    # Each member under the document bound, 120 MiB in all under the held
    # one: every one is parsed, the most a document can cost.
    under = os.path.join(work, "under.tar.gz")
    tar_gz(under, [("r/p%03d.json" % i, DOC_MAX - 16, "pad") for i in range(120)])
    rc, _, err, rss = ingest("120 members of 1 MiB", [under], db)
    errs = err.splitlines()
    want = ["solbook: %s:r/p%03d.json: /schema: missing \"schema\" field" % (under, i) for i in range(120)]
    if rc != 1 or len(errs) != 120 or any(not e.startswith(w) for e, w in zip(errs, want)):
        fail("120 members of 1 MiB: exit %d, %d lines: %r" % (rc, len(errs), errs[:3]))
    print("ok: 120 members of 1 MiB (%d bytes packed): each parsed and refused by the schema "
          "in its line, peak RSS %d KiB" % (os.path.getsize(under), rss))

    many = os.path.join(work, "many.tar.gz")
    tar_gz(many, [("r/p%03d.ncu.csv" % i, 8 << 20, "zeros") for i in range(400)])
    print("many.tar.gz: %d bytes packed, 400 members of 8 MiB" % os.path.getsize(many))
    refused("400 sidecars of 8 MiB", [many], db,
            "solbook: %s:r/p015.ncu.csv: members held together more than %d bytes (128 MiB) "
            "inflated: refused" % (many, 128 << 20))
    many_json = os.path.join(work, "many-json.tar.gz")
    tar_gz(many_json, [("r/p%03d.json" % i, 8 << 20, "pad") for i in range(400)])
    refused("400 results of 8 MiB", [many_json], db,
            "solbook: %s:r/p000.json: result document more than %d bytes (1 MiB) inflated: refused"
            % (many_json, DOC_MAX))
    rc, _, err, rss = ingest("400 results of 8 MiB, --max-doc-mb 8", ["--max-doc-mb", "8", many_json], db)
    line = ("solbook: %s:r/p015.json: members held together more than %d bytes (128 MiB) inflated: "
            "refused" % (many_json, 128 << 20))
    if rc != 1 or err != line + "\n":
        fail("400 results of 8 MiB, --max-doc-mb 8: exit %d, stderr %r" % (rc, err))
    print("ok: 400 results of 8 MiB, --max-doc-mb 8: refused at the held bound, peak RSS %d KiB" % rss)

    # Names are held too: 400 members of two bytes each, named by 512 KiB
    # pax names (a 0.4 MB archive), reach the held bound on their names.
    names = os.path.join(work, "names.tar.gz")
    with gzip.open(names, "wb", compresslevel=6) as g, tarfile.open(fileobj=g, mode="w",
                                                                    format=tarfile.PAX_FORMAT) as t:
        for i in range(400):
            info = tarfile.TarInfo("r/%03d-%s.json" % (i, "n" * (1 << 19)))
            info.size = 2
            t.addfile(info, io.BytesIO(b"{}"))
    rc, _, err, rss = ingest("400 members with 512 KiB names", [names], db)
    first = err.splitlines()[0] if err else ""
    if rc != 1 or len(err.splitlines()) != 1 or not first.startswith("solbook: %s:r/" % names) or \
            not first.endswith(": members held together more than %d bytes (128 MiB) inflated: refused"
                               % (128 << 20)):
        fail("400 members with 512 KiB names: exit %d, %d lines, first %r" % (rc, len(err.splitlines()),
                                                                           first[:120] + "..." + first[-90:]))
    print("ok: 400 members with 512 KiB names (%d bytes packed): refused at the held bound, peak RSS %d KiB"
          % (os.path.getsize(names), rss))
    # Millions of empty members: nothing but names and records is held,
    # and the bound counts what they take from the heap.
    empty = os.path.join(work, "empty.tar.gz")
    n_empty = 2200000
    empty_members_tar_gz(empty, n_empty)
    rc, _, err, rss = ingest("%d empty members" % n_empty, [empty], db)
    m = re.fullmatch(r"solbook: %s:r/(\d{7})\.json: members held together more than %d bytes \(128 MiB\) "
                     r"inflated: refused\n" % (re.escape(empty), 128 << 20), err)
    if rc != 1 or not m or not 1000000 < int(m.group(1)) < n_empty:
        fail("%d empty members: exit %d, stderr %r" % (n_empty, rc, err[:300]))
    print("ok: %d empty members (%d bytes packed): refused at member %s at the held bound, in one line, "
          "peak RSS %d KiB" % (n_empty, os.path.getsize(empty), m.group(1), rss))
    os.remove(empty)
    print("peak RSS bound of %d KiB: %s" % (LIMIT_KIB, "not checked, a sanitizer build" if SANITIZED
                                             else "checked on every ingest above"))
finally:
    shutil.rmtree(work, ignore_errors=True)

#!/usr/bin/env python3
"""ingest_pages.py SOLBOOK FILES DB - the pages of DB that `SOLBOOK ingest
FILES` changes, counted by the table or index each belongs to.

DB is changed (the files are stored in it): give it a copy. Its WAL is
checkpointed before and after, the file is compared page by page, and
each changed page is named by SQLite's dbstat table as it is after the
ingest ("(free)" for pages no table or index holds). An ingest's cost in
a large database is mostly the pages it writes: the count says which
index scatters them.
"""
import collections
import hashlib
import os
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def checkpoint(db):
    c = sqlite3.connect(db)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = c.execute("PRAGMA page_size").fetchone()[0]
    c.close()
    return size


def page_digests(db, size):
    out = []
    with open(db, "rb") as f:
        while True:
            b = f.read(size)
            if not b:
                return out
            out.append(hashlib.sha1(b).digest())


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.split("\n")[0])
    solbook, files, db = sys.argv[1:]
    size = checkpoint(db)
    before = page_digests(db, size)
    env = dict(os.environ, SOLBOOK_HOME=os.path.dirname(HERE))
    t = time.time()
    subprocess.run([solbook, "ingest", "-q", "--db", db, files], check=True, env=env)
    wall = time.time() - t
    checkpoint(db)
    after = page_digests(db, size)
    c = sqlite3.connect(db)
    owner = dict(c.execute("SELECT pageno, name FROM dbstat"))
    c.close()
    changed = collections.Counter(owner.get(i + 1, "(free)") for i, d in enumerate(after)
                                  if i >= len(before) or before[i] != d)
    total = sum(changed.values())
    print("ingest %.2f s; %d pages of %d bytes changed (the file: %d pages, then %d)"
          % (wall, total, size, len(before), len(after)))
    for name, n in changed.most_common():
        print("  %-28s %6d  %5.1f%%" % (name, n, 100.0 * n / total))


if __name__ == "__main__":
    main()

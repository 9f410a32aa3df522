#!/usr/bin/env python3
"""archive_superseded.py - keeps examples/<arch>/kernels-full/ small: a result
that a later run of the same case and provider replaced (the rule
scripts/evidence_summary.py reads them by: the one that finished last) is
moved into its folder's superseded.tar.gz, and a folder left with no current
result becomes <folder>.tar.gz. Nothing is deleted: the tarballs hold every
file as it was. The lent GPU machines take the working tree by disk blocks
(64 MiB with the carried binaries), so loose files that no report reads
cost device calls. usage: archive_superseded.py [--dry-run]"""
import glob
import io
import json
import os
import sys
import tarfile

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def case_key(d):
    c = d["config"]
    return (c["suite"], c["op"], c["mode"], c["dtype"], tuple(sorted(c["shape"].items())),
            json.dumps(c.get("params", {}), sort_keys=True), c["provider"])


def add_to_tar(path, members, base):
    """Appends members (paths under base) to the gzip tarball path, keeping
    what it already holds (an entry of the same name is replaced)."""
    old = []
    names = {os.path.relpath(f, base) for f in members}
    if os.path.exists(path):
        with tarfile.open(path) as t:
            old = [(m, t.extractfile(m).read() if m.isfile() else None) for m in t.getmembers()
                   if m.name not in names]
    tmp = path + ".tmp"
    with tarfile.open(tmp, "w:gz") as t:
        for m, data in old:
            t.addfile(m, None if data is None else io.BytesIO(data))
        for f in members:
            t.add(f, arcname=os.path.relpath(f, base))
    os.replace(tmp, path)


def main():
    dry = "--dry-run" in sys.argv[1:]
    for base in sorted(glob.glob(os.path.join(TOP, "examples", "*", "kernels-full"))):
        files = []
        # every result under kernels-full/, in sorted order, as evidence_summary.py reads them
        for f in sorted(glob.glob(os.path.join(base, "**", "*.json"), recursive=True)):
            if os.sep not in os.path.relpath(f, base):
                continue  # results live in a run's folder; none sits at the top
            try:
                d = json.load(open(f))
            except (OSError, ValueError):
                continue
            if d.get("schema") == "solbook.result.v1":
                files.append((f, case_key(d), d["provenance"]["finished_at"]))
        best = {}
        for f, k, t in files:
            if k not in best or t > best[k][0]:
                best[k] = (t, f)
        by_folder = {}
        for f, k, t in files:
            folder = os.path.relpath(f, base).split(os.sep)[0]
            by_folder.setdefault(folder, [[], []])[best[k][1] == f].append(f)
        for folder, (old, current) in sorted(by_folder.items()):
            if not old:
                continue
            root = os.path.join(base, folder)
            print("%s: %d superseded, %d current%s" % (os.path.relpath(root, TOP), len(old), len(current),
                                                       " (whole folder archived)" if not current else ""))
            if dry:
                continue
            if not current:
                add_to_tar(root + ".tar.gz", [root], base)
                for dirpath, _, names in os.walk(root, topdown=False):
                    for n in names:
                        os.remove(os.path.join(dirpath, n))
                    os.rmdir(dirpath)
            else:
                add_to_tar(os.path.join(root, "superseded.tar.gz"), sorted(old), root)
                for f in old:
                    os.remove(f)
                for dirpath, dirs, names in os.walk(root, topdown=False):
                    if dirpath != root and not os.listdir(dirpath):
                        os.rmdir(dirpath)


if __name__ == "__main__":
    main()

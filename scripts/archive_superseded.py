#!/usr/bin/env python3
"""archive_superseded.py - keeps examples/<arch>/kernels-full/ small: a result
that a later run of the same case and provider replaced (the current one is
the one that finished last) is moved into its folder's superseded.tar.gz,
and a folder left with no current result becomes <folder>.tar.gz. With --pack, the current results of each
folder go into its results.tar.gz too (scripts/example_files.py reads them
there as if loose), so no result file stays loose. Nothing is deleted: the
tarballs hold every file as it was, and solbook ingest reads all of them
(scripts/main.sh: the per-commit history). The lent GPU machines take the
working tree by disk blocks (64 MiB with the carried binaries), so loose
files cost device calls. usage: archive_superseded.py [--dry-run] [--pack]"""
import glob
import io
import json
import os
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import example_files  # noqa: E402

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def case_key(d):
    c = d["config"]
    return (c["suite"], c["op"], c["mode"], c["dtype"], tuple(sorted(c["shape"].items())),
            json.dumps(c.get("params", {}), sort_keys=True), c["provider"])


def write_tar(path, members, keep=True):
    """Writes members ({name: bytes}) into the gzip tarball path; with keep,
    what it already holds stays (an entry of the same name is replaced)."""
    old = []
    if keep and os.path.exists(path):
        with tarfile.open(path) as t:
            old = [(m, t.extractfile(m).read() if m.isfile() else None) for m in t.getmembers()
                   if m.name not in members]
    tmp = path + ".tmp"
    with tarfile.open(tmp, "w:gz") as t:
        for m, data in old:
            t.addfile(m, None if data is None else io.BytesIO(data))
        for name in sorted(members):
            info = tarfile.TarInfo(name)
            info.size = len(members[name])
            info.mode = 0o644
            t.addfile(info, io.BytesIO(members[name]))
    os.replace(tmp, path)


def unpacked(path, base, root):
    """{name under base: bytes} of the files of the tarball path, whose names
    are relative to root."""
    with tarfile.open(path) as t:
        return {os.path.relpath(os.path.join(root, m.name), base): t.extractfile(m).read()
                for m in t.getmembers() if m.isfile()}


def remove_empty(root):
    for dirpath, _, _ in os.walk(root, topdown=False):
        if dirpath != root and not os.listdir(dirpath):
            os.rmdir(dirpath)


def main():
    dry = "--dry-run" in sys.argv[1:]
    pack = "--pack" in sys.argv[1:]
    for base in sorted(glob.glob(os.path.join(TOP, "examples", "*", "kernels-full"))):
        base = os.path.normpath(base)
        files = []
        # every result under kernels-full/, loose or packed, in sorted order
        for f, read in example_files.files(os.path.join(base, "**", "*.json")):
            if os.sep not in os.path.relpath(f, base):
                continue  # results live in a run's folder; none sits at the top
            try:
                data = read()
                d = json.loads(data)
            except (OSError, ValueError):
                continue
            if d.get("schema") == "solbook.result.v1":
                files.append((f, data, case_key(d), d["provenance"]["finished_at"]))
        best = {}
        for f, _, k, t in files:
            if k not in best or t > best[k][0]:
                best[k] = (t, f)
        by_folder = {}
        for f, data, k, t in files:
            folder = os.path.relpath(f, base).split(os.sep)[0]
            by_folder.setdefault(folder, [{}, {}])[best[k][1] == f][f] = data
        for folder, (old, current) in sorted(by_folder.items()):
            root = os.path.join(base, folder)
            packed = os.path.join(root, example_files.PACK)
            loose_current = [f for f in current if os.path.isfile(f)]
            if not old and not (pack and loose_current):
                continue
            print("%s: %d superseded, %d current%s" % (
                os.path.relpath(root, TOP), len(old), len(current),
                " (whole folder archived)" if not current else
                " (current results packed in %s)" % example_files.PACK if pack else ""))
            if dry:
                continue
            if not current:
                # the folder as it was: loose files, the packed results and
                # the results its superseded.tar.gz holds, as files of their
                # own (ingest reads no archive inside an archive)
                members = {}
                for dirpath, _, names in os.walk(root):
                    for n in names:
                        p = os.path.join(dirpath, n)
                        if p == os.path.join(root, "superseded.tar.gz"):
                            members.update(unpacked(p, base, root))
                        elif p != packed:
                            members[os.path.relpath(p, base)] = open(p, "rb").read()
                for f, data in old.items():
                    members[os.path.relpath(f, base)] = data
                write_tar(root + ".tar.gz", members)
                for dirpath, _, names in os.walk(root, topdown=False):
                    for n in names:
                        os.remove(os.path.join(dirpath, n))
                    os.rmdir(dirpath)
                continue
            if old:
                write_tar(os.path.join(root, "superseded.tar.gz"),
                          {os.path.relpath(f, root): data for f, data in old.items()})
            if pack or os.path.exists(packed):
                # results.tar.gz holds exactly the folder's current results
                write_tar(packed, {os.path.relpath(f, root): data for f, data in current.items()},
                          keep=False)
                for f in loose_current:
                    os.remove(f)
            for f in old:
                if os.path.isfile(f):
                    os.remove(f)
            remove_empty(root)


if __name__ == "__main__":
    main()

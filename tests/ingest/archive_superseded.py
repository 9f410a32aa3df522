#!/usr/bin/env python3
"""archive_superseded.py SOLBOOK SOURCE_DIR - a folder of examples/*/kernels-full/
whose every result a later run replaced is archived whole with the results
of its superseded.tar.gz as files of their own, so that `solbook ingest` of
kernels-full/ stores every result: the superseded ones, the folder's and the
later run's (ingest reads no archive inside an archive)."""
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import uuid


def doc_from(archive):
    """The first solbook.result.v1 document of a real archive."""
    with tarfile.open(archive) as t:
        for m in t:
            if m.isfile() and m.name.endswith("-fused.json"):
                d = json.load(t.extractfile(m))
                if d.get("schema") == "solbook.result.v1":
                    return d
    sys.exit("FAIL: no result in %s" % archive)


def variant(d, finished, shape_n):
    """d as another run: its own uuid, finish time and case."""
    v = json.loads(json.dumps(d))
    v["run_uuid"] = uuid.uuid4().hex
    v["provenance"]["finished_at"] = finished
    v["config"]["shape"]["N"] = shape_n
    return json.dumps(v).encode()


def main():
    solbook, src = sys.argv[1], sys.argv[2]
    base = doc_from(os.path.join(src, "examples/h200/kernels-full/b85136b-fp32-l2.tar.gz"))
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "scripts"))
        for f in ("archive_superseded.py", "example_files.py"):
            shutil.copy(os.path.join(src, "scripts", f), os.path.join(tmp, "scripts"))
        full = os.path.join(tmp, "examples/h200/kernels-full")
        cases = (6144, 7168)
        # old/: two loose results and two superseded ones in its superseded.tar.gz
        run1 = os.path.join(full, "old/memory/run1")
        os.makedirs(run1)
        with tarfile.open(os.path.join(full, "old/superseded.tar.gz"), "w:gz") as t:
            for n in cases:
                data = variant(base, "2026-11-20T10:00:00Z", n)
                info = tarfile.TarInfo("memory/run0/case-%d-fused.json" % n)
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
        for n in cases:
            with open(os.path.join(run1, "case-%d-fused.json" % n), "wb") as f:
                f.write(variant(base, "2026-11-21T10:00:00Z", n))
        # new/: a later run of both cases, which replaces old/'s
        run2 = os.path.join(full, "new/memory/run2")
        os.makedirs(run2)
        for n in cases:
            with open(os.path.join(run2, "case-%d-fused.json" % n), "wb") as f:
                f.write(variant(base, "2026-11-22T10:00:00Z", n))
        p = subprocess.run([sys.executable, os.path.join(tmp, "scripts/archive_superseded.py")],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        assert not os.path.exists(os.path.join(full, "old")), os.listdir(full)
        with tarfile.open(os.path.join(full, "old.tar.gz")) as t:
            names = sorted(m.name for m in t if m.isfile())
        assert not [n for n in names if n.endswith(".tar.gz")], names
        want = ["old/memory/run%d/case-%d-fused.json" % (r, n) for r in (0, 1) for n in cases]
        assert names == want, names
        p = subprocess.run([solbook, "ingest", "--db", os.path.join(tmp, "x.db"), full],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        assert "6 files, 6 stored" in p.stdout, p.stdout
        assert "passed over" not in p.stdout + p.stderr, p.stdout + p.stderr
    print("archive_superseded: a folder archived whole holds its superseded results as files; "
          "ingest stores all 6")


if __name__ == "__main__":
    main()

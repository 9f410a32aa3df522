#!/usr/bin/env python3
"""sidecar_bombs.py SOLBOOK - profiler sidecars that cost more stored
than read.

A .tar.gz of 1 MB can hold a 120 MiB NAME.ncu.csv of real Nsight Compute
rows (15 million metric values) or 120 MiB of Nsight Systems kernel rows
(2.6 million kernels), within the bound on held archive bytes; parsed
whole and stored at once they took 1.3 GB and 0.9 GB, and the same rows
as a 248 MiB file beside NAME.json 2.4 GB. Generated here, never stored
in the repository:
  - those four: each refused in one line naming the sidecar, nothing
    stored (neither the run nor a row of its sidecar);
Within the bytes bound the rows are bounded too (--max-sidecar-rows,
default 1,000,000): four 31 MB ncu CSVs of real rows in an 857 KB
archive stored 14.6 million metric rows, a 3.96 GB database.
  - a 31 MB ncu CSV of real rows (3.8 million values) in an archive,
    and a 16 MiB one of one-digit cells (8 million): each refused in one
    line naming it, the count and the option, nothing stored;
  - an ncu CSV of exactly 1,000,000 values: stored whole, every value,
    as it is read; one value more: refused, none of its rows kept;
  - an nsys summary of 4096 kernels: stored whole at --max-sidecar-rows
    4096, refused at 4095;
  - a 1 MiB CSV of one-digit cells with a bad last row: refused, and
    none of the rows before it left stored.
An archive of k sidecars, each within that bound, stores k times it, so
the rows of every sidecar of one ingest are bounded too
(--max-sidecar-rows-total, default 2,000,000):
  - three results with 900,000 ncu values each in one archive: two
    stored whole, the third refused in one line, none of its rows kept;
  - three with 4096 nsys kernels each at --max-sidecar-rows-total 10000:
    the same.
Each ingest's peak RSS (wait4) stays under 512 MiB.
"""
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile

from peak_rss import sanitized

SOLBOOK = sys.argv[1]
HOME = os.environ["SOLBOOK_HOME"]
LIMIT_KIB = 512 * 1024
SIDECAR_MAX = 32 << 20
SIDECAR_ROWS = 1000000
ROWS_LINE = ("solbook: %s: Nsight Compute sidecar holds more than 1000000 metric values "
             "(--max-sidecar-rows 1000000): refused with its document")
# A sanitizer's shadow memory and quarantine are part of the process's
# RSS, so the memory bound is the plain build's to check (parse_bombs.py).
SANITIZED = sanitized(SOLBOOK)
NCU_EXAMPLE = os.path.join(HOME, "examples", "h100", "rmsnorm-fwd-ncu", "torch.ncu.csv")
with open(os.path.join(HOME, "tests", "data", "ingest", "good", "gemm_h100_cublas.json"), "rb") as f:
    DOC = f.read()


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ncu_rows(size):
    """Chunks of an ncu raw CSV of about size bytes: the header and units
    of a real profile, then its kernel row again and again."""
    with open(NCU_EXAMPLE, "rb") as f:
        head, units, row = f.read().split(b"\n")[:3]
    yield head + b"\n" + units + b"\n"
    rest = row.split(b",", 1)[1]
    n, i, block = len(head) + len(units) + 2, 0, []
    while n < size:
        r = b'"%d",%s\n' % (i, rest)
        block.append(r)
        n += len(r)
        i += 1
        if len(block) == 256:
            yield b"".join(block)
            block = []
    yield b"".join(block)


def nsys_rows(size):
    head = (b'"Time (%)","Total Time (ns)","Instances","Avg (ns)","Med (ns)","Min (ns)","Max (ns)",'
            b'"StdDev (ns)","Name"\n')
    yield head
    n, i = len(head), 0
    while n < size:
        block = b"".join(b'0.0,1000,2,500.0,500.0,400,600,141.4,"k%d"\n' % (i + j) for j in range(4096))
        i += 4096
        n += len(block)
        yield block


def dense_ncu(size, bad_tail=False, rows=None, extra=0):
    """An ncu CSV of 4000 metric columns of one-digit cells: a value every
    two bytes; of about size bytes, or of rows full rows then a row of
    extra values (its other cells empty: no value)."""
    cols = 4000
    head = b'"ID","Kernel Name",' + b",".join(b'"m__%d"' % c for c in range(cols)) + b"\n"
    cells = b",".join([b"0"] * cols)
    yield head
    n, i = len(head), 0
    while (n < size) if rows is None else (i < rows):
        r = b"%d,k,%s\n" % (i, cells)
        n += len(r)
        i += 1
        yield r
    if extra:
        yield b"%d,k,%s\n" % (i, b",".join([b"0"] * extra + [b""] * (cols - extra)))
    if bad_tail:
        yield b"%d,k,0\n" % i


def write(path, chunks):
    with open(path, "wb") as f:
        for c in chunks:
            f.write(c)
    return os.path.getsize(path)


def add_member(t, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    t.addfile(info, io.BytesIO(data))


def tar_gz(path, doc_name, side_name, side_path):
    with tarfile.open(path, "w:gz", compresslevel=6) as t:
        add_member(t, doc_name, DOC)
        t.add(side_path, side_name)


def tar_gz_units(path, units):
    """A .tar.gz of results r/rI.json, each another run (its notes differ),
    with the sidecar r/rI.SUFFIX of the chunks given: units is a list of
    (suffix, chunks)."""
    doc = json.loads(DOC)
    with tarfile.open(path, "w:gz", compresslevel=6) as t:
        for i, (suffix, chunks) in enumerate(units):
            doc["notes"] = "unit %d of a sidecar rows bomb" % i
            add_member(t, "r/r%d.json" % i, json.dumps(doc).encode())
            add_member(t, "r/r%d%s" % (i, suffix), b"".join(chunks))


def ingest(name, args, db):
    """Runs solbook ingest; returns (rc, stderr, peak RSS in KiB, runs,
    metric rows, kernel rows)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([SOLBOOK, "ingest", "--db", db] + args, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        rc = os.waitstatus_to_exitcode(status)
        err.seek(0)
        e = err.read().decode()
    if not SANITIZED and usage.ru_maxrss >= LIMIT_KIB:
        fail("%s: peak RSS %d KiB, not under %d KiB" % (name, usage.ru_maxrss, LIMIT_KIB))
    c = sqlite3.connect(db)
    counts = [c.execute("SELECT count(*) FROM " + t).fetchone()[0]
              for t in ("runs", "profiler_metrics", "kernel_summaries")]
    c.close()
    os.remove(db)
    return (rc, e, usage.ru_maxrss) + tuple(counts)


def refused(name, args, db, line):
    rc, err, rss, runs, metrics, kernels = ingest(name, args, db)
    if rc != 1 or err != line + "\n":
        fail("%s: exit %d, stderr %r; expected exit 1 and the one line %r" % (name, rc, err, line))
    if runs or metrics or kernels:
        fail("%s: %d runs, %d metric rows, %d kernel rows stored" % (name, runs, metrics, kernels))
    print("ok: %s: refused in one line, nothing stored, peak RSS %d KiB: %s" % (name, rss, line))


work = tempfile.mkdtemp(prefix="sb_sidecars_")
try:
    db = os.path.join(work, "s.db")
    for kind, rows, title in (("ncu", ncu_rows, "Nsight Compute"), ("nsys", nsys_rows, "Nsight Systems")):
        side = os.path.join(work, "r.%s.csv" % kind)
        size = write(side, rows(120 << 20))
        archive = os.path.join(work, "%s.tar.gz" % kind)
        tar_gz(archive, "r/r.json", "r/r.%s.csv" % kind, side)
        print("%s.tar.gz: %d bytes packed, a %d-byte r.%s.csv" % (kind, os.path.getsize(archive), size, kind))
        refused("120 MiB %s sidecar in an archive" % kind, [archive], db,
                "solbook: %s:r/r.%s.csv: %s sidecar more than %d bytes (32 MiB) inflated: refused"
                % (archive, kind, title, SIDECAR_MAX))
        os.remove(archive)
        folder = os.path.join(work, kind)
        os.makedirs(folder)
        with open(os.path.join(folder, "r.json"), "wb") as f:
            f.write(DOC)
        size = write(os.path.join(folder, "r.%s.csv" % kind), rows(248 << 20))
        refused("%d-byte %s sidecar beside its document" % (size, kind), [folder], db,
                "solbook: %s/r.%s.csv: %s sidecar more than %d bytes (32 MiB): refused"
                % (folder, kind, title, SIDECAR_MAX))
        shutil.rmtree(folder)
        os.remove(side)

    # within the bytes bound, over the rows bound: the attack as found
    side = os.path.join(work, "r.ncu.csv")
    size = write(side, ncu_rows(31 << 20))
    archive = os.path.join(work, "rows.tar.gz")
    tar_gz(archive, "r/r.json", "r/r.ncu.csv", side)
    os.remove(side)
    print("rows.tar.gz: %d bytes packed, a %d-byte r.ncu.csv of real rows" % (os.path.getsize(archive), size))
    refused("%d-byte ncu sidecar of real rows in an archive" % size, [archive], db,
            ROWS_LINE % (archive + ":r/r.ncu.csv"))
    os.remove(archive)

    folder = os.path.join(work, "dense")
    os.makedirs(folder)
    with open(os.path.join(folder, "r.json"), "wb") as f:
        f.write(DOC)
    side = os.path.join(folder, "r.ncu.csv")
    size = write(side, dense_ncu(16 << 20))
    refused("%d-byte ncu sidecar of one-digit values" % size, [folder], db, ROWS_LINE % side)

    # at the rows bound: every value stored, memory flat in the rows
    write(side, dense_ncu(0, rows=SIDECAR_ROWS // 4000))
    rc, err, rss, runs, metrics, _ = ingest("ncu sidecar at the rows bound", [folder], db)
    if rc != 0 or runs != 1 or metrics != SIDECAR_ROWS:
        fail("ncu sidecar of %d values: exit %d, %d runs, %d values stored: %r"
             % (SIDECAR_ROWS, rc, runs, metrics, err))
    print("ok: an ncu CSV of %d values, the rows bound: stored whole, peak RSS %d KiB" % (metrics, rss))
    write(side, dense_ncu(0, rows=SIDECAR_ROWS // 4000, extra=1))
    refused("ncu sidecar of one value past the rows bound", [folder], db, ROWS_LINE % side)

    # the option, and the kernels of an nsys summary: 4096 at a bound of
    # 4096 stored whole, refused at 4095
    nsys_side = os.path.join(folder, "r.nsys.csv")
    os.remove(side)
    write(nsys_side, nsys_rows(200))  # one block of 4096 kernel rows
    rc, err, rss, runs, _, kernels = ingest("nsys sidecar at --max-sidecar-rows 4096",
                                            ["--max-sidecar-rows", "4096", folder], db)
    if rc != 0 or runs != 1 or kernels != 4096:
        fail("nsys sidecar of 4096 kernels at --max-sidecar-rows 4096: exit %d, %d runs, %d kernels stored: %r"
             % (rc, runs, kernels, err))
    print("ok: an nsys summary of %d kernels at --max-sidecar-rows 4096: stored whole" % kernels)
    refused("nsys sidecar of 4096 kernels at --max-sidecar-rows 4095", ["--max-sidecar-rows", "4095", folder], db,
            "solbook: %s: Nsight Systems sidecar holds more than 4095 kernels (--max-sidecar-rows 4095): "
            "refused with its document" % nsys_side)
    os.remove(nsys_side)

    write(side, dense_ncu(1 << 20, bad_tail=True))
    rc, err, rss, runs, metrics, _ = ingest("dense ncu sidecar, bad last row", [folder], db)
    if rc != 1 or runs != 0 or metrics != 0 or len(err.splitlines()) != 1 or side not in err \
            or "refused with its document" not in err:
        fail("dense ncu sidecar with a bad last row: exit %d, %d runs, %d metric rows: %r"
             % (rc, runs, metrics, err))
    print("ok: the same with a bad last row: neither the run nor a row of its profile stored, one line: %s"
          % err.strip())
    # k sidecars within the bound on one, past the bound on an ingest's
    total = os.path.join(work, "total.tar.gz")
    tar_gz_units(total, [(".ncu.csv", dense_ncu(0, rows=225)) for _ in range(3)])
    rc, err, rss, runs, metrics, _ = ingest("three ncu sidecars of 900000 values", [total], db)
    line = ("solbook: %s:r/r2.ncu.csv: Nsight Compute sidecar: this ingest's sidecars would store more than "
            "2000000 rows (--max-sidecar-rows-total 2000000): refused with its document\n" % total)
    if rc != 1 or err != line or runs != 2 or metrics != 1800000:
        fail("three ncu sidecars of 900000 values: exit %d, %d runs, %d values stored: %r" % (rc, runs, metrics, err))
    print("ok: an archive of three ncu sidecars of 900000 values (%d bytes packed): two stored whole, the "
          "third refused in one line, none of its rows kept, peak RSS %d KiB" % (os.path.getsize(total), rss))
    tar_gz_units(total, [(".nsys.csv", nsys_rows(200)) for _ in range(3)])
    rc, err, rss, runs, _, kernels = ingest("three nsys sidecars of 4096 kernels at --max-sidecar-rows-total 10000",
                                            ["--max-sidecar-rows-total", "10000", total], db)
    line = ("solbook: %s:r/r2.nsys.csv: Nsight Systems sidecar: this ingest's sidecars would store more than "
            "10000 rows (--max-sidecar-rows-total 10000): refused with its document\n" % total)
    if rc != 1 or err != line or runs != 2 or kernels != 8192:
        fail("three nsys sidecars at --max-sidecar-rows-total 10000: exit %d, %d runs, %d kernels stored: %r"
             % (rc, runs, kernels, err))
    print("ok: three nsys summaries of 4096 kernels at --max-sidecar-rows-total 10000: two stored whole, the "
          "third refused in one line, none of its kernels kept")
    os.remove(total)
    print("peak RSS bound of %d KiB: %s" % (LIMIT_KIB, "not checked, a sanitizer build" if SANITIZED
                                             else "checked on every ingest above"))
finally:
    shutil.rmtree(work, ignore_errors=True)

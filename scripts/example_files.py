"""example_files.py - the result files of examples/, wherever they lie: loose
NAME.json files, and the members of the results.tar.gz archives that keep a
run folder's current results compressed (scripts/archive_superseded.py
--pack writes them). A member a/b.json of DIR/results.tar.gz reads as the
file DIR/a/b.json, so readers see the same paths either way. The other
archives (superseded.tar.gz, COMMIT.tar.gz) hold results that were replaced
and are not read here; solbook ingest reads every archive."""
import fnmatch
import glob
import os
import tarfile

PACK = "results.tar.gz"


def _prefix(pattern):
    """The folders of pattern before its first wildcard."""
    parts = pattern.split(os.sep)
    fixed = []
    for p in parts:
        if any(ch in p for ch in "*?["):
            break
        fixed.append(p)
    return os.sep.join(fixed)


def files(pattern):
    """Sorted (path, read) for every file matching the glob pattern (with
    ** as in glob(recursive=True)), loose or packed; read() gives the bytes.
    Paths come normalised (no "..")."""
    pattern = os.path.normpath(pattern)
    out = {}
    for f in glob.glob(pattern, recursive=True):
        if os.path.isfile(f):
            out[f] = (lambda f=f: open(f, "rb").read())
    base = _prefix(pattern)
    for t in glob.glob(os.path.join(base, "**", PACK), recursive=True) + glob.glob(os.path.join(base, PACK)):
        where = os.path.dirname(t)
        with tarfile.open(t) as tf:
            for m in tf.getmembers():
                if not m.isfile():
                    continue
                path = os.path.normpath(os.path.join(where, m.name))
                if fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path, pattern.replace("**" + os.sep, "")):
                    data = tf.extractfile(m).read()
                    out[path] = (lambda data=data: data)
    return sorted(out.items())

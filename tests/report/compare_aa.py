#!/usr/bin/env python3
"""compare_aa.py SOLBOOK SESSIONS_DIR - `solbook compare` on the real A/A
sessions of examples/h100/sessions, with thresholds held out.

Two folds. In each, the A/A sessions under test go into one database and
every other archive into another, whose A/A runs give the thresholds
(`--aa-db`): no threshold comes from a session it judges. Compared: each
test session's copy 0 against its copy 1 (one card), two test sessions
on one card, and test sessions on two cards of one SKU. Every case
compared is an A/A case, the same code twice; a verdict of slower or
faster is a false alarm. The rates must stay at most 1% on one card and
2% across two cards; the test prints them."""
import glob
import json
import os
import subprocess
import sys
import tempfile

# fold: (archives under test, comparisons (A, B, relation))
FOLDS = [
    (["aa-2-", "aa-3-", "aa-smoke-"],
     [("session=0212e4fc,copy=0", "session=0212e4fc,copy=1", "one card, copies"),
      ("session=f56f0629,copy=0", "session=f56f0629,copy=1", "one card, copies"),
      ("session=a10443cf,copy=0", "session=a10443cf,copy=1", "one card, copies"),
      ("session=0212e4fc,copy=0", "session=f56f0629,copy=0", "one card, two sessions"),
      ("session=0212e4fc,copy=0", "session=a10443cf,copy=0", "two cards"),
      ("session=f56f0629,copy=0", "session=a10443cf,copy=0", "two cards")]),
    (["aa-4-", "methods-aa-"],
     [("session=f839ec2c,copy=0", "session=f839ec2c,copy=1", "one card, copies"),
      ("session=2cf20213,copy=0", "session=2cf20213,copy=1", "one card, copies"),
      ("session=f839ec2c,copy=0", "session=2cf20213,copy=0", "two cards")]),
    (["aa-7-", "aa-8-", "aa-9-", "aa-10-"],  # the copy-major sessions
     [("session=50075ae3,copy=0", "session=50075ae3,copy=1", "one card, copies"),
      ("session=be9dc355,copy=0", "session=be9dc355,copy=1", "one card, copies"),
      ("session=1e217a25,copy=0", "session=1e217a25,copy=1", "one card, copies"),
      ("session=c08c4588,copy=0", "session=c08c4588,copy=1", "one card, copies"),
      ("session=50075ae3,copy=0", "session=be9dc355,copy=0", "one card, two sessions"),
      ("session=1e217a25,copy=0", "session=c08c4588,copy=0", "one card, two sessions"),
      ("session=50075ae3,copy=0", "session=1e217a25,copy=0", "two cards"),
      ("session=be9dc355,copy=0", "session=c08c4588,copy=0", "two cards")]),
]


def run(*args, ok=(0,)):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode not in ok:
        sys.exit("FAIL: %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


def main():
    solbook, sessions = sys.argv[1], sys.argv[2]
    archives = sorted(glob.glob(os.path.join(sessions, "*.tar.gz")))
    counts = {}
    with tempfile.TemporaryDirectory() as tmp:
        for f, (under_test, comparisons) in enumerate(FOLDS):
            test = [a for a in archives if any(os.path.basename(a)[11:].startswith(t) for t in under_test)]
            train = [a for a in archives if a not in test]
            assert len(test) == len(under_test), test
            tdb, adb = os.path.join(tmp, "test%d.db" % f), os.path.join(tmp, "aa%d.db" % f)
            run(solbook, "ingest", "-q", "--db", tdb, *test)
            run(solbook, "ingest", "-q", "--db", adb, *train)
            for a, b, rel in comparisons:
                d = json.loads(run(solbook, "compare", "--db", tdb, "--aa-db", adb, "--format", "json", a, b,
                                   ok=(0, 1)))
                cases = d["cases"]
                assert len(cases) >= 10, (a, b, len(cases))
                for c in cases:
                    # an A/A pair is on the relation of cards it is named for,
                    # and its threshold is the one the rule gives that relation
                    assert c["same_card"] == rel.startswith("one card"), (a, b, c)
                    assert c["threshold"] >= 0.03, c
                    assert c["threshold_from"] in ("case A/A", "SKU cross-card A/A", "min-effect"), c
                n, flagged = counts.get(rel, (0, 0))
                counts[rel] = (n + len(cases), flagged + sum(c["verdict"] in ("slower", "faster") for c in cases))
    lines = []
    for rel, most in (("one card, copies", 0.01), ("one card, two sessions", 0.01), ("two cards", 0.02)):
        n, flagged = counts[rel]
        lines.append("%s: %d of %d cases flagged (%.1f%%)" % (rel, flagged, n, 100.0 * flagged / n))
        assert flagged <= most * n, "A/A flagged over %g%%: %s" % (100 * most, lines[-1])
    print("compare_aa: held-out thresholds, A/A sessions compared:\n  " + "\n  ".join(lines))


if __name__ == "__main__":
    main()

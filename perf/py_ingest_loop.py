#!/usr/bin/env python3
"""py_ingest_loop.py SCHEMA DIR DB - the least a plain Python program does
to store result files as solbook does: json.load each DIR/*.json (sorted),
validate it with jsonschema against SCHEMA, and write one sqlite3 row per
run (its canonical JSON without the samples, and a few columns) and one
with its samples packed as solbook stores them (little-endian binary64),
in one transaction. The
perf scripts time it beside `solbook ingest` of the same files, in the
same run, for the ratio of the two."""
import array
import glob
import json
import sqlite3
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    validator = jsonschema.Draft7Validator(schema)
    db = sqlite3.connect(sys.argv[3])
    db.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, raw_json TEXT, op TEXT, sku TEXT, median_ms REAL)")
    db.execute("CREATE TABLE run_samples (run_id INTEGER PRIMARY KEY, rep_lengths TEXT, value_ms BLOB)")
    with db:
        for f in sorted(glob.glob(sys.argv[2] + "/*.json")):
            d = json.load(open(f))
            validator.validate(d)
            reps = d["timing"].pop("samples")
            cur = db.execute("INSERT INTO runs (raw_json, op, sku, median_ms) VALUES (?, ?, ?, ?)",
                             (json.dumps(d, sort_keys=True, separators=(",", ":")), d["config"]["op"],
                              d["provenance"]["device"]["sku"], d["timing"]["stats"]["median"]))
            rid = cur.lastrowid
            db.execute("INSERT INTO run_samples VALUES (?, ?, ?)",
                       (rid, json.dumps([len(r) for r in reps]),
                        array.array("d", [v for r in reps for v in r]).tobytes()))


if __name__ == "__main__":
    main()

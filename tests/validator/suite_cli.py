#!/usr/bin/env python3
"""suite_cli.py SOLBOOK [--strict] [--check] - the official JSON-Schema-Test-Suite
(draft 7, the required keywords: tests/draft7/*.json) through the CLI.

Every case becomes two files, the group's schema and the case's instance,
checked with `solbook validate --lenient --schema SCHEMA INSTANCE` (with
--strict: without --lenient). Exit status 0 is "valid", 1 "invalid";
anything else (the schema refused) fails the case. Prints

    draft7 suite through the CLI: N cases, P passed, F failed (by file: ...)

refRemote.json needs its http://localhost:1234/ documents, which the CLI
does not fetch: its cases are counted apart. With --check, exits 1 when any
other case fails.
"""
import json
import os
import subprocess
import sys
import tempfile

SUITE = os.environ.get("SOLBOOK_JSON_SCHEMA_TEST_SUITE", "/usr/share/json-schema-test-suite")


def main():
    args = sys.argv[1:]
    solbook = args[0]
    strict = "--strict" in args
    check = "--check" in args
    draft = os.path.join(SUITE, "tests", "draft7")
    if not os.path.isdir(draft):
        print("suite_cli.py: no %s (Debian package json-schema-test-suite): skipped" % draft)
        return 77
    counts = {"cases": 0, "passed": 0, "failed": 0, "remote_cases": 0, "remote_passed": 0}
    failed_by_file = {}
    with tempfile.TemporaryDirectory() as tmp:
        schema_path = os.path.join(tmp, "schema.json")
        instance_path = os.path.join(tmp, "instance.json")
        for name in sorted(os.listdir(draft)):
            if not name.endswith(".json"):
                continue
            remote = name == "refRemote.json"
            with open(os.path.join(draft, name), encoding="utf-8") as f:
                groups = json.load(f)
            for group in groups:
                with open(schema_path, "w", encoding="utf-8") as f:
                    json.dump(group["schema"], f)
                for case in group["tests"]:
                    with open(instance_path, "w", encoding="utf-8") as f:
                        json.dump(case["data"], f)
                    cmd = [solbook, "validate", "--quiet", "--schema", schema_path, instance_path]
                    if not strict:
                        cmd.insert(2, "--lenient")
                    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
                    ok = (rc == 0) if case["valid"] else (rc == 1)
                    if remote:
                        counts["remote_cases"] += 1
                        counts["remote_passed"] += ok
                        continue
                    counts["cases"] += 1
                    if ok:
                        counts["passed"] += 1
                    else:
                        counts["failed"] += 1
                        failed_by_file[name] = failed_by_file.get(name, 0) + 1
    detail = ", ".join("%s %d" % kv for kv in sorted(failed_by_file.items())) or "none"
    print("draft7 suite through the CLI%s: %d cases, %d passed, %d failed (failed by file: %s); "
          "refRemote.json apart: %d cases, %d passed (its remote documents are not fetched)"
          % (" (strict)" if strict else "", counts["cases"], counts["passed"], counts["failed"], detail,
             counts["remote_cases"], counts["remote_passed"]))
    return 1 if check and counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())

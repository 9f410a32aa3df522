"""check.py - the checks the Python end-to-end tests make, one line each:
"ok: WHAT" for a check that holds, "FAIL: WHAT" and exit 1 at the first
that does not. `passed` counts the checks made, for the tests' last line.

A test under tests/<folder>/ imports it with
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from check import ok
"""
import sys

passed = 0


def ok(cond, what):
    global passed
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)
    passed += 1
    print("ok: " + what)

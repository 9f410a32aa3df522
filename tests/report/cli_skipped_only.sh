#!/bin/sh
# cli_skipped_only.sh SOLBOOK - a database whose only result run was
# skipped: report weekly, report roofline and site finish and say there is
# nothing to compare. Under the sanitizer build (CI) this also proves that
# no empty list reaches qsort/memcpy as a null pointer.
set -eu
SOLBOOK=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
db=$work/skipped.db
"$SOLBOOK" ingest --quiet --db "$db" "$SOLBOOK_HOME/tests/data/ingest/good/skipped_gemm_h100.json" >/dev/null
[ "$(sqlite3 "$db" "SELECT group_concat(status) FROM runs")" = skipped ] || fail "fixture is not skipped-only"

"$SOLBOOK" report weekly --db "$db" --week 2026-W47 --out "$work/weekly" >/dev/null
md=$work/weekly/2026-W47.md
grep -q "0 passed correctness, 0 failed, 1 skipped" "$md" || fail "weekly does not count the skipped run"
grep -q "No cross-arch table: none of the project's own kernels has a passing result run outside the measuring sessions this week." "$md" ||
    fail "weekly claims a cross-arch table"
grep -q "No provider had a baseline to compare with this week." "$work/weekly/2026-W47-appendix.md" ||
    fail "weekly appendix claims a comparison"
[ -s "$work/weekly/2026-W47.html" ] || fail "no weekly HTML"

"$SOLBOOK" report roofline --db "$db" --sku h100-sxm5-80gb --out "$work/roofline.svg" >/dev/null
python3 -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])" "$work/roofline.svg" ||
    fail "roofline SVG does not parse"

"$SOLBOOK" site --db "$db" --out "$work/site" >/dev/null
[ -s "$work/site/index.html" ] || fail "no site index"
echo "skipped-only database: weekly (counts 1 skipped, no comparison), roofline SVG and site written"

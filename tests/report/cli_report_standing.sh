#!/bin/sh
# cli_report_standing.sh SOLBOOK WRITE_FIXTURE - `solbook report standing`
# end to end on a crafted database: --out rewrites a document's marked
# blocks and leaves every other byte; a document with unbalanced markers is
# refused with one line naming the file and left as it was.
set -eu
SOLBOOK=$1
FIXTURE=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=$work/lab.db
"$FIXTURE" "$db"
fail() { echo "FAIL: $*" >&2; exit 1; }

doc=$work/KERNELS.md
printf '%s\n' '# Kernels' '' 'Design prose stays.' '<!-- solbook report standing: over-reference -->' \
  '| stale | table |' '<!-- end solbook report standing -->' '' 'Closing prose.' > "$doc"
"$SOLBOOK" report standing --db "$db" --out "$doc"
grep -q 'stale' "$doc" && fail "the old block is still there"
grep -q '^| card | op | cases | geomean | lowest |$' "$doc" || fail "no generated table in $doc"
# everything outside the block is byte for byte what it was
python3 - "$doc" <<'PY'
import sys
text = open(sys.argv[1]).read()
begin = '<!-- solbook report standing: over-reference -->\n'
end = '<!-- end solbook report standing -->\n'
head, rest = text.split(begin)
_, tail = rest.split(end)
assert head == '# Kernels\n\nDesign prose stays.\n', repr(head)
assert tail == '\nClosing prose.\n', repr(tail)
PY
echo "ok: the block rewritten, the prose around it unchanged"

# without --out: every block between its markers on stdout
"$SOLBOOK" report standing --db "$db" > "$work/all.md"
for b in against-providers over-reference memory-bound flce-memory; do
  grep -q "^<!-- solbook report standing: $b -->$" "$work/all.md" || fail "block $b not printed"
done
echo "ok: all four blocks printed"

# unbalanced markers: exit 2, one line naming the file and the line, file untouched
bad=$work/bad.md
printf '%s\n' 'Intro.' '<!-- solbook report standing: memory-bound -->' '| stale |' > "$bad"
cp "$bad" "$work/bad.orig"
rc=0
"$SOLBOOK" report standing --db "$db" --out "$bad" 2> "$work/err" || rc=$?
[ "$rc" = 2 ] || fail "unbalanced markers: exit $rc, want 2"
[ "$(wc -l < "$work/err")" = 1 ] || fail "want one line on stderr: $(cat "$work/err")"
grep -q "^solbook: $bad: line 2: the block opened here has no '<!-- end solbook report standing -->'$" \
  "$work/err" || fail "message: $(cat "$work/err")"
cmp -s "$bad" "$work/bad.orig" || fail "the refused file was changed"
ls "$work" | grep -q '\.tmp' && fail "a temporary file was left"
echo "ok: unbalanced markers refused in one line, the file unchanged"

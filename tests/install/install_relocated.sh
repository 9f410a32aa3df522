#!/bin/sh
# install_relocated.sh CMAKE BUILD_DIR SOURCE_DIR TEST_DATA - installs the
# build to a temporary prefix, moves the prefix elsewhere, and runs
# validate, ingest (native and imported files), runs and report from a
# directory of its own with SOLBOOK_HOME and SOLBOOK_DB unset. Where the
# kernel lets it (unshare -m), the source and build trees are covered by
# empty file systems meanwhile, so nothing can be read from them.
set -eu
CMAKE=$1
BUILD=$2
SRC=$3
DATA=$4
T=$(mktemp -d /tmp/sb_install.XXXXXX)
trap 'rm -rf "$T"' EXIT

"$CMAKE" --install "$BUILD" --prefix "$T/prefix" >"$T/install.log"
mv "$T/prefix" "$T/moved"
mkdir "$T/in" "$T/work"
cp "$DATA/schemas/result.valid.gemm.json" "$DATA/import/liger_basic.csv" "$T/in/"

cat >"$T/inside.sh" <<'INSIDE'
set -eu
T=$1
SRC=$2
cd "$T/work"
unset SOLBOOK_HOME SOLBOOK_DB
S=$T/moved/bin/solbook
fail() { echo "FAIL: $*"; exit 1; }
check() { [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"; echo "ok: $1"; }

[ -d "$SRC/data/schemas" ] && echo "note: source tree visible at $SRC" || echo "ok: source tree hidden"
check "data directory" "data: $(cd "$T/moved/share/solbook" && pwd -P)/data" "$("$S" --version | sed -n 2p)"
check "validate by schema field" "$T/in/result.valid.gemm.json: valid" "$("$S" validate "$T/in/result.valid.gemm.json")"
"$S" ingest "$T/in/result.valid.gemm.json" >out 2>err
check "ingest summary names the db" "ingest: 1 files, 1 stored, 0 duplicates, 0 refused (db solbook.db)" "$(tail -n 1 out)"
check "new default database said" "solbook ingest: no --db and no \$SOLBOOK_DB: created a new database solbook.db in $(pwd)" "$(cat err)"
[ -f solbook.db ] || fail "no ./solbook.db"
"$S" ingest --format auto "$T/in/liger_basic.csv" >out 2>err
check "import with the installed SKU and op tables" \
    "import: $T/in/liger_basic.csv: liger-csv, 11 rows, 8 runs (8 stored, 0 already there, 1 skipped)" \
    "$(grep '^import:' out)"
[ ! -s err ] || fail "second ingest said: $(cat err)"
check "runs listed" "9" "$("$S" runs --json | grep -c "\"id\":" | tr -d ' ')"
"$S" report geomean --baseline huggingface --format csv >geomean.csv
grep -q ',flce,fwd,bf16,h100-sxm5-80gb,h100,liger,huggingface,call,1,2.000,' geomean.csv || fail "no flce row in the geomean: $(cat geomean.csv)"
echo "ok: report geomean"
"$S" report weekly --week 2024-W36 --out weekly >weekly.log 2>&1 || fail "report weekly: $(cat weekly.log)"
[ -s weekly/2024-W36.html ] && ls weekly/*.svg >/dev/null 2>&1 || fail "report weekly wrote no page or plot"
echo "ok: report weekly from the installed templates"
"$S" experiments list | grep -q gemm-spec || fail "experiments list lacks gemm-spec"
echo "ok: experiments from the installed data"
[ -s "$T/moved/share/man/man1/solbook.1" ] || fail "no man page"
grep -q '^\.SS solbook ingest' "$T/moved/share/man/man1/solbook.1" || fail "man page lacks ingest"
grep -q 'solbook report table --op O --sku SKU \[--baseline PROVIDER\]' "$T/moved/share/man/man1/solbook.1" ||
    fail "man page lacks report table"
echo "ok: man page"
bash -c ". '$T/moved/share/bash-completion/completions/solbook'
COMP_WORDS=(solbook ing); COMP_CWORD=1; _solbook; echo \"\${COMPREPLY[*]}\"" >comp
check "completion of a command" "ingest" "$(cat comp)"
bash -c ". '$T/moved/share/bash-completion/completions/solbook'
COMP_WORDS=(solbook ingest --for); COMP_CWORD=2; _solbook; echo \"\${COMPREPLY[*]}\"" >comp
check "completion of an option" "--format" "$(cat comp)"
bash -c ". '$T/moved/share/bash-completion/completions/solbook'
COMP_WORDS=(solbook report no); COMP_CWORD=2; _solbook; echo \"\${COMPREPLY[*]}\"" >comp
check "completion of a report" "note" "$(cat comp)"
bash -c ". '$T/moved/share/bash-completion/completions/solbook'
COMP_WORDS=(solbook packet --base); COMP_CWORD=2; _solbook; echo \"\${COMPREPLY[*]}\"" >comp
check "completion of a packet option" "--baseline" "$(cat comp)"
INSIDE

if unshare -m true 2>/dev/null; then
    hide="mount -t tmpfs none '$SRC'"
    case "$BUILD" in "$SRC"/*) ;; *) hide="$hide && mount -t tmpfs none '$BUILD'" ;; esac
    unshare -m sh -c "$hide && sh '$T/inside.sh' '$T' '$SRC'"
else
    echo "note: unshare -m is not permitted here; the trees stay visible, the data directory check stands"
    sh "$T/inside.sh" "$T" "$SRC"
fi

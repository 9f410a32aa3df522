#!/bin/sh
# test_cli_validate.sh SOLBOOK DATA_DIR - `solbook validate` end to end:
# output lines, exit statuses, schema by id, by path, and by "schema" field.
set -u
SOLBOOK=$1
DATA=$2/schemas
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
checks=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_run WANT_STATUS CMD... : runs CMD, output in $TMP/out
expect_run() {
    want=$1; shift
    checks=$((checks + 1))
    "$@" >"$TMP/out" 2>"$TMP/err"
    got=$?
    [ "$got" -eq "$want" ] || { fail "exit $got, expected $want: $*"; cat "$TMP/out" "$TMP/err"; }
}

# expect_line TEXT : the last run's stdout has exactly this line
expect_line() {
    checks=$((checks + 1))
    grep -qxF -- "$1" "$TMP/out" || { fail "no line '$1' in:"; cat "$TMP/out"; }
}

# Every valid example, schema picked by its own "schema" field.
expect_run 0 "$SOLBOOK" validate "$DATA"/*.valid.*.json
n_valid=$(ls "$DATA"/*.valid.*.json | wc -l)
n_lines=$(grep -c ': valid$' "$TMP/out")
[ "$n_valid" -eq "$n_lines" ] || fail "$n_valid valid files, $n_lines 'valid' lines"
checks=$((checks + 1))
expect_line "$DATA/result.valid.cpu.json: valid"

# Invalid examples: one line each, FILE: POINTER: KEYWORD: reason.
expect_run 1 "$SOLBOOK" validate "$DATA/result.invalid.missing-provenance.json"
expect_line "$DATA/result.invalid.missing-provenance.json: /: required: required property \"provenance\" is missing"
expect_run 1 "$SOLBOOK" validate "$DATA/result.invalid.bad-sha.json"
expect_line "$DATA/result.invalid.bad-sha.json: /provenance/git/sha: pattern: \"0123456\" does not match the pattern \"^([0-9a-f]{40}|unknown)\$\""
expect_run 1 "$SOLBOOK" validate "$DATA/training.invalid.world-size-string.json"
expect_line "$DATA/training.invalid.world-size-string.json: /parallelism/world_size: type: expected integer, found string"
expect_run 1 "$SOLBOOK" validate "$DATA/calibration.invalid.zero-m.json"
expect_line "$DATA/calibration.invalid.zero-m.json: /gemm_peak/bf16/M: minimum: 0 is less than the minimum 1"

# Valid and invalid together: 1, and both reported.
expect_run 1 "$SOLBOOK" validate "$DATA/result.valid.gemm.json" "$DATA/result.invalid.failed-with-timing.json"
expect_line "$DATA/result.valid.gemm.json: valid"
checks=$((checks + 1))
grep -q "^$DATA/result.invalid.failed-with-timing.json: /: not: " "$TMP/out" || fail "no not error"

# --quiet prints only problems.
expect_run 0 "$SOLBOOK" validate --quiet "$DATA/result.valid.gemm.json"
checks=$((checks + 1))
[ ! -s "$TMP/out" ] || fail "--quiet printed: $(cat "$TMP/out")"

# --schema by id and by path; a training file against the result schema.
expect_run 0 "$SOLBOOK" validate --schema solbook.training.v1 "$DATA/training.valid.liger.json"
expect_run 1 "$SOLBOOK" validate --schema "$SOLBOOK_HOME/schemas/solbook.result.v1.json" "$DATA/training.valid.liger.json"
expect_line "$DATA/training.valid.liger.json: /schema: const: \"solbook.training.v1\" is not the required value \"solbook.result.v1\""
expect_run 0 "$SOLBOOK" validate --schema json-schema-draft-07 "$SOLBOOK_HOME/schemas/solbook.result.v1.json"

# Malformed JSON: file, line and column.
printf '{\n  "schema": "solbook.result.v1",\n  "status": tru\n}\n' >"$TMP/broken.json"
expect_run 1 "$SOLBOOK" validate "$TMP/broken.json"
checks=$((checks + 1))
grep -q "^$TMP/broken.json: line 3, column [0-9]*: invalid JSON" "$TMP/out" || { fail "no line:column"; cat "$TMP/out"; }

# No "schema" field, unknown id.
printf '{"status": "passed"}\n' >"$TMP/noschema.json"
printf '{"schema": "solbook.result.v9"}\n' >"$TMP/v9.json"
expect_run 1 "$SOLBOOK" validate "$TMP/noschema.json" "$TMP/v9.json"
checks=$((checks + 1))
grep -q "^$TMP/noschema.json: /: schema: no \"schema\" field" "$TMP/out" || fail "no-schema message"
checks=$((checks + 1))
grep -q "^$TMP/v9.json: /schema: schema: unknown schema id \"solbook.result.v9\" (known: .*solbook.result.v1" "$TMP/out" || fail "unknown id message"

# A schema that does not compile, an unknown schema id: 2, one line naming it.
printf '{"properties": {"a": {"minimun": 1}}}\n' >"$TMP/typo.schema.json"
expect_run 2 "$SOLBOOK" validate --schema "$TMP/typo.schema.json" "$DATA/result.valid.gemm.json"
checks=$((checks + 1))
grep -qxF "solbook: $TMP/typo.schema.json: /properties/a/minimun: unknown keyword \"minimun\": not a draft-07 keyword this validator checks, so it is refused rather than ignored" "$TMP/err" || { fail "schema error line"; cat "$TMP/err"; }
expect_run 2 "$SOLBOOK" validate --schema solbook.nothing.v1 "$DATA/result.valid.gemm.json"
expect_run 2 "$SOLBOOK" validate
expect_run 2 "$SOLBOOK" validate --bogus x
expect_run 0 "$SOLBOOK" validate --help
expect_line "usage: solbook validate [--schema SCHEMA] [--quiet] INSTANCE..."

echo "test_cli_validate: $checks checks, $failures failed"
[ "$failures" -eq 0 ]

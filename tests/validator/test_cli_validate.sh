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
expect_run 1 "$SOLBOOK" validate --schema "$SOLBOOK_HOME/data/schemas/solbook.result.v1.json" "$DATA/training.valid.liger.json"
expect_line "$DATA/training.valid.liger.json: /schema: const: \"solbook.training.v1\" is not the required value \"solbook.result.v1\""
expect_run 0 "$SOLBOOK" validate --schema json-schema-draft-07 "$SOLBOOK_HOME/data/schemas/solbook.result.v1.json"

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
expect_line "usage: solbook validate [--schema SCHEMA [--lenient]] [--quiet] INSTANCE..."

# Any JSON value is an instance; a schema file may be true or false.
printf '{"type": "integer", "minimum": 3}\n' >"$TMP/int.schema.json"
printf '7\n' >"$TMP/seven.json"
printf '"7"\n' >"$TMP/string.json"
printf 'null' >"$TMP/null.json"
expect_run 0 "$SOLBOOK" validate --schema "$TMP/int.schema.json" "$TMP/seven.json"
expect_line "$TMP/seven.json: valid"
expect_run 1 "$SOLBOOK" validate --schema "$TMP/int.schema.json" "$TMP/string.json"
expect_line "$TMP/string.json: /: type: expected integer, found string"
printf 'true\n' >"$TMP/true.schema.json"
printf 'false\n' >"$TMP/false.schema.json"
expect_run 0 "$SOLBOOK" validate --schema "$TMP/true.schema.json" "$TMP/null.json"
expect_line "$TMP/null.json: valid"
expect_run 1 "$SOLBOOK" validate --schema "$TMP/false.schema.json" "$TMP/seven.json"
checks=$((checks + 1))
grep -q "^$TMP/seven.json: /: " "$TMP/out" || { fail "false schema accepted 7"; cat "$TMP/out"; }
# A scalar without --schema names no solbook schema.
expect_run 1 "$SOLBOOK" validate "$TMP/seven.json"
expect_line "$TMP/seven.json: /: schema: the document is a scalar, not an object with a \"schema\" field; pass --schema"

# --lenient: draft-07 ignores keywords beside $ref; strict refuses them.
printf '{"definitions": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/definitions/n", "maximum": 1}}}\n' \
    >"$TMP/ref-sibling.schema.json"
printf '{"a": 5}\n' >"$TMP/a5.json"
expect_run 2 "$SOLBOOK" validate --schema "$TMP/ref-sibling.schema.json" "$TMP/a5.json"
checks=$((checks + 1))
grep -q "^solbook: $TMP/ref-sibling.schema.json: /properties/a" "$TMP/err" || { fail "strict \$ref sibling"; cat "$TMP/err"; }
expect_run 0 "$SOLBOOK" validate --lenient --schema "$TMP/ref-sibling.schema.json" "$TMP/a5.json"
expect_line "$TMP/a5.json: valid"
printf '{"a": "x"}\n' >"$TMP/ax.json"
expect_run 1 "$SOLBOOK" validate --lenient --schema "$TMP/ref-sibling.schema.json" "$TMP/ax.json"
expect_line "$TMP/ax.json: /a: type: expected integer, found string"
# --lenient without --schema: the project's own schemas stay strict.
expect_run 2 "$SOLBOOK" validate --lenient "$DATA/result.valid.gemm.json"

# A mistyped option or command names the closest one.
expect_run 2 "$SOLBOOK" validate --qiuet "$DATA/result.valid.gemm.json"
checks=$((checks + 1))
grep -qxF "solbook validate: unknown option '--qiuet'; did you mean '--quiet'?" "$TMP/err" || { fail "option suggestion"; cat "$TMP/err"; }
expect_run 2 "$SOLBOOK" valdiate "$DATA/result.valid.gemm.json"
checks=$((checks + 1))
grep -qxF "solbook: 'valdiate' is not a solbook command; did you mean 'validate'?" "$TMP/err" || { fail "command suggestion"; cat "$TMP/err"; }
# The same for the reports and their options.
expect_run 2 "$SOLBOOK" report notes
checks=$((checks + 1))
grep -qxF "solbook report: unknown report 'notes'; did you mean 'note'?" "$TMP/err" || { fail "report suggestion"; cat "$TMP/err"; }
expect_run 2 "$SOLBOOK" report table --op gemm --sku h100 --baseilne torch
checks=$((checks + 1))
grep -qxF "solbook report table: unknown option '--baseilne'; did you mean '--baseline'?" "$TMP/err" || { fail "report option suggestion"; cat "$TMP/err"; }
expect_run 2 "$SOLBOOK" packet --target liger --basleine torch
checks=$((checks + 1))
grep -qxF "solbook packet: unknown option '--basleine'; did you mean '--baseline'?" "$TMP/err" || { fail "packet option suggestion"; cat "$TMP/err"; }
expect_run 2 "$SOLBOOK" compare --treshold 0.05 a b
checks=$((checks + 1))
grep -qxF "solbook compare: unknown option '--treshold'; did you mean '--threshold'?" "$TMP/err" || { fail "compare option suggestion"; cat "$TMP/err"; }

# A file name and a JSON key with terminal controls: each message stays one
# line with the controls shown as escapes, so no fake "valid" line or
# cleared screen hides the error.
evil="$TMP/$(printf 'evil\033[2K\rfake.json')"
sed '1s/{/{"\\u001b[1Ax\\nfake.json: valid": 1,/' "$DATA/result.valid.cpu.json" >"$evil"
expect_run 1 "$SOLBOOK" validate "$evil"
expect_line "$TMP/evil\\e[2K\\rfake.json: /\\e[1Ax\\nfake.json: valid: additionalProperties: property is not allowed (additionalProperties is false and it is not listed in properties)"
checks=$((checks + 1))
if LC_ALL=C grep -q "$(printf '[\033\r]')" "$TMP/out"; then fail "raw control in:"; cat -v "$TMP/out"; fi
checks=$((checks + 1))
[ "$(wc -l <"$TMP/out")" -eq 1 ] || { fail "more than one line:"; cat -v "$TMP/out"; }
printf '{"a":' >"$evil"
expect_run 1 "$SOLBOOK" validate "$evil"
checks=$((checks + 1))
# (an error's parts fold CR and LF to spaces; ESC is shown as an escape)
grep -qF 'evil\e[2K fake.json: line 1' "$TMP/out" || { fail "malformed file name not escaped:"; cat -v "$TMP/out"; }

echo "test_cli_validate: $checks checks, $failures failed"
[ "$failures" -eq 0 ]

#!/bin/sh
# cli_db_version.sh SOLBOOK - every command that opens a database checks its
# schema version the same way: a future version, user_version -1 and a
# database in a folder the user cannot write each give one line naming the
# file (runs, show, report, packet, site, validate-results, ingest).
set -eu
SOLBOOK=$1
data=$SOLBOOK_HOME/tests/data/ingest/good
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$SOLBOOK" ingest --quiet --db "$work/ok.db" "$data" >/dev/null

# expect DB EXPECTED-TEXT COMMAND...: exit 2 (or 1), one line on stderr that
# names DB and holds the text, nothing written under $work/out*
expect() {
    db=$1; text=$2; shift 2
    set +e
    "$@" >"$work/stdout" 2>"$work/stderr"
    rc=$?
    set -e
    [ "$rc" -ne 0 ] || fail "$* accepted $db"
    [ "$(wc -l <"$work/stderr")" -eq 1 ] || fail "$*: not one line: $(cat "$work/stderr")"
    grep -qF "solbook: $db: " "$work/stderr" || fail "$*: does not name $db: $(cat "$work/stderr")"
    grep -qF "$text" "$work/stderr" || fail "$*: no '$text': $(cat "$work/stderr")"
    ! ls -d "$work"/out* >/dev/null 2>&1 || fail "$*: wrote output for a refused database"
    checked=$((checked + 1))
}
checked=0
for v in 99 -1; do
    db=$work/v$v.db
    cp "$work/ok.db" "$db"
    sqlite3 "$db" "PRAGMA user_version = $v"
    if [ "$v" = 99 ]; then text="database schema version 99 is newer"; else text="schema version -1 is not one solbook writes"; fi
    expect "$db" "$text" "$SOLBOOK" runs --db "$db"
    expect "$db" "$text" "$SOLBOOK" show --db "$db" 1
    expect "$db" "$text" "$SOLBOOK" report geomean --db "$db"
    expect "$db" "$text" "$SOLBOOK" report weekly --db "$db" --week 2026-W47 --out "$work/out-weekly"
    expect "$db" "$text" "$SOLBOOK" report roofline --db "$db" --sku h100-sxm5-80gb --out "$work/out-roofline"
    expect "$db" "$text" "$SOLBOOK" packet --db "$db" --target liger --out "$work/out-packet"
    expect "$db" "$text" "$SOLBOOK" site --db "$db" --out "$work/out-site"
    expect "$db" "$text" "$SOLBOOK" validate-results --db "$db"
    expect "$db" "$text" "$SOLBOOK" ingest --db "$db" "$data/failed_gemm_h100.json"
    [ "$(sqlite3 "$db" 'SELECT count(*) FROM runs')" = "$(sqlite3 "$work/ok.db" 'SELECT count(*) FROM runs')" ] ||
        fail "ingest changed a refused database"
done
echo "future version and user_version -1: $checked refusals, each one line naming the file"

# A folder the user cannot write: needs a user that permissions apply to.
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
    echo "read-only folder: skipped (needs root and setpriv to run as an unprivileged user)"
    exit 0
fi
ro=$work/ro
mkdir "$ro"
cp "$work/ok.db" "$ro/lab.db"
chmod 755 "$work"
chmod 555 "$ro"
chmod 444 "$ro/lab.db"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# reading commands open it immutable (WAL would need PATH-shm there)
for cmd in runs "report geomean"; do
    set +e
    # shellcheck disable=SC2086
    got=$(cd / && as_nobody "$SOLBOOK" $cmd --db "$ro/lab.db" 2>"$work/err")
    rc=$?
    # shellcheck disable=SC2086
    want=$("$SOLBOOK" $cmd --db "$work/ok.db" 2>/dev/null)
    set -e
    [ "$rc" -eq 0 ] && [ -n "$got" ] && [ "$got" = "$want" ] ||
        fail "$cmd in a read-only folder: exit $rc, $(cat "$work/err")"
done
# the site too: its page builders open connections of their own, which
# must be immutable as well; the pages are the ones the database gives
# where it was made
mkdir -m 777 "$work/siteout"
set +e
(cd / && as_nobody "$SOLBOOK" site --db "$ro/lab.db" --out "$work/siteout/site" >/dev/null 2>"$work/err")
rc=$?
mkdir "$work/rw"
cp "$work/ok.db" "$work/rw/lab.db" # pages name the database by its file name
"$SOLBOOK" site --db "$work/rw/lab.db" --out "$work/site-want" >/dev/null 2>&1
set -e
[ "$rc" -eq 0 ] || fail "site in a read-only folder: exit $rc, $(cat "$work/err")"
diff -r -q -x .solbook-manifest "$work/site-want" "$work/siteout/site" >"$work/sitediff" ||
    fail "site in a read-only folder differs: $(head -n 3 "$work/sitediff")"
[ ! -e "$ro/lab.db-shm" ] || fail "a -shm file appeared in the read-only folder"
set +e
msg=$(cd / && as_nobody "$SOLBOOK" ingest --db "$ro/lab.db" "$data/failed_gemm_h100.json" 2>&1 >/dev/null)
set -e
echo "$msg" | grep -qF "solbook: $ro/lab.db: cannot write the database: its folder $ro is not writable" ||
    fail "ingest in a read-only folder: $msg"
echo "read-only folder: runs, report and site read it as where it was made; ingest names the folder and the file"

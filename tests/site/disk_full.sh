#!/bin/sh
# disk_full.sh SOLBOOK - outputs are replaced whole or not at all. On a
# small tmpfs (mounted here, needs root) a site, a packet and a weekly are
# built, the file system is filled, and each is built again: each rebuild
# fails with one line naming the file and "No space left on device", the
# earlier output is byte for byte what it was (sha256sum -c) and no staging
# folder or partial output is left. Exit 77 (skip) where no tmpfs can be
# mounted.
set -eu
SOLBOOK=$1
work=$(mktemp -d)
mnt=$work/mnt
cleanup() {
    mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir "$mnt"
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=4m tmpfs "$mnt" 2>"$work/mount.err"; then
    echo "SKIP: cannot mount a tmpfs here (needs root and mount rights): $(cat "$work/mount.err" 2>/dev/null)"
    exit 77
fi
db=$work/lab.db
# the result and calibration runs of the good data (no training run: the
# outputs here are the op-level site, weekly and packet)
good=$SOLBOOK_HOME/tests/data/ingest/good
"$SOLBOOK" ingest --quiet --db "$db" "$good/a100" "$good/h200" "$good/calibration_h200.json" \
    "$good/gemm_h100_cublas.json" "$good/failed_gemm_h100.json" "$good/skipped_gemm_h100.json" >/dev/null

"$SOLBOOK" site --db "$db" --out "$mnt/site" >/dev/null
"$SOLBOOK" report weekly --db "$db" --week 2026-W47 --out "$mnt/weekly" >/dev/null
(cd "$mnt" && find site weekly -type f -exec sha256sum {} + >"$work/before.sha256")
before=$(wc -l <"$work/before.sha256")
[ "$before" -gt 30 ] || fail "the first site has only $before files"

# fill_leaving BYTES: fill the file system, then free BYTES: enough to
# start a build, not to finish one
fill_leaving() {
    rm -f "$mnt/filler"
    dd if=/dev/zero of="$mnt/filler" bs=4096 2>/dev/null || true
    truncate -s "-$1" "$mnt/filler"
}

# expect_full NAME COMMAND...: fails with one line naming a file and ENOSPC
expect_full() {
    name=$1; shift
    set +e
    "$@" >/dev/null 2>"$work/err"
    rc=$?
    set -e
    [ "$rc" -ne 0 ] || fail "$name succeeded on a full disk"
    [ "$(wc -l <"$work/err")" -eq 1 ] || fail "$name: not one line: $(cat "$work/err")"
    grep -q "^solbook: $mnt/.*No space left on device" "$work/err" ||
        fail "$name: no file and no ENOSPC named: $(cat "$work/err")"
    echo "$name on a full disk: $(cat "$work/err")"
}
fill_leaving 49152
expect_full "site rebuild" "$SOLBOOK" site --db "$db" --out "$mnt/site"
fill_leaving 8192
expect_full "weekly rebuild" "$SOLBOOK" report weekly --db "$db" --week 2026-W47 --out "$mnt/weekly"
fill_leaving 49152
expect_full "first site" "$SOLBOOK" site --db "$db" --out "$mnt/site2"
fill_leaving 8192
expect_full "first packet" "$SOLBOOK" packet --db "$db" --target pytorch --out "$mnt/packet"

(cd "$mnt" && sha256sum --quiet -c "$work/before.sha256") || fail "the earlier site or weekly changed"
(cd "$mnt" && find site weekly -type f | wc -l | grep -qx "$before") ||
    fail "files were added to the earlier site or weekly"
left=$(cd "$mnt" && ls -A . site weekly | grep -E 'partial|^site2$|^packet$' || true)
[ -z "$left" ] || fail "partial output left: $left"
echo "disk full: the earlier site and weekly ($before files) are unchanged, no partial site, packet or staging folder left"

# with space again the rebuild replaces the site whole
rm -f "$mnt/filler"
"$SOLBOOK" site --db "$db" --out "$mnt/site" >/dev/null
[ "$(ls -A "$mnt" | grep -c partial || true)" = 0 ] || fail "staging folder left after a good rebuild"
(cd "$mnt" && sha256sum --quiet -c "$work/before.sha256") || fail "the rebuilt site differs from the first"
echo "rebuild with space: swapped in, identical to the first build"

#!/usr/bin/env bash
# test_gpu_remote.sh - scripts/gpu_remote.sh's round trip without a GPU or
# a network: a stand-in remote shell runs the "remote" commands in a local
# folder, and a stand-in carry folder's solbook says the card is an H100.
# Checks that the tree goes over (without build outputs and examples/),
# that gpu_evidence.sh runs there with the settings given here and its
# carry and work folders, and that its archive comes back.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checks=0
ok() { checks=$((checks + 1)); echo "ok: $*"; }
bad() { fails=$((fails + 1)); echo "FAIL: $*"; }

tree=$tmp/tree remote=$tmp/remote out=$tmp/out
mkdir -p "$tree/scripts" "$tree/.carry/bin" "$tree/.carry/lib" "$tree/build-x" "$tree/examples" "$remote"
cp "$SRC/scripts/gpu_remote.sh" "$SRC/scripts/gpu_evidence.sh" "$tree/scripts/"
echo built >"$tree/build-x/artifact"
echo big >"$tree/examples/result.json"
echo 0123456789abcdef0123456789abcdef01234567 >"$tree/.carry/GIT_SHA"
echo 0 >"$tree/.carry/GIT_DIRTY"
cat >"$tree/.carry/bin/solbook" <<'EOS'
#!/bin/sh
[ "$1" = collect ] && echo '{"device": {"arch": "h100"}}'
EOS
printf '#!/bin/sh\nexit 0\n' >"$tree/.carry/bin/solbench"
cat >"$tree/.carry/bin/test_device_data" <<'EOS'
#!/bin/sh
echo "stand-in test_device_data in $(pwd): CALL_LIMIT=$CALL_LIMIT KERNEL_TESTS=$KERNEL_TESTS commit=$SOLBOOK_GIT_SHA"
EOS
chmod +x "$tree/.carry/bin/"*
cat >"$tmp/rsh" <<EOS
#!/bin/sh
# stand-in for ssh HOST COMMAND: runs COMMAND in the "remote" home
shift
cd "$remote" && exec bash -c "\$*"
EOS
chmod +x "$tmp/rsh"

RSH=$tmp/rsh KERNEL_TESTS=1 WORK_DIR=$tmp/work "$tree/scripts/gpu_remote.sh" --dir gpu-copy lab-gpu checks "$out" \
  >"$tmp/log" 2>&1
rc=$?
copy=$remote/gpu-copy
if [[ -x $copy/scripts/gpu_evidence.sh && -x $copy/.carry/bin/solbench ]]; then ok "the tree and its carry folder went over"; else
  bad "tree not copied"; cat "$tmp/log"; fi
if [[ ! -e $copy/build-x && ! -e $copy/examples ]]; then ok "build outputs and examples/ stay here"; else bad "build-x or examples copied"; fi
tarball=$out/evidence-h100-checks.tar.gz
if [[ -f $tarball ]]; then ok "the archive came back ($(basename "$tarball"))"; else bad "no archive in $out"; cat "$tmp/log"; fi
log=$(tar -xOzf "$tarball" h100-checks/checks.log 2>/dev/null)
if grep -q "stand-in test_device_data in $copy: CALL_LIMIT=0 KERNEL_TESTS=1 commit=0123456789abcdef0123456789abcdef01234567" <<<"$log"; then
  ok "gpu_evidence.sh ran on the copy with the settings given here, no overall limit, the carried commit"; else
  bad "settings or carry"; echo "$log" | head -5; cat "$tmp/log"; fi
if [[ -d $tmp/work/h100-checks ]]; then ok "WORK_DIR reached gpu_evidence.sh"; else bad "WORK_DIR"; fi
# The stand-in card runs none of the real GPU tests: the part fails and
# says so in its last line (gpu_evidence.sh reports, it does not exit 1),
# which comes back in the output; the round trip itself succeeded.
if [[ $rc == 0 ]] && grep -q "^== done t=[0-9]*s rc=1$" "$tmp/log"; then ok "the part's own rc=1 is reported, the round trip exits 0"; else
  bad "exit $rc"; tail -3 "$tmp/log"; fi
# Without a carry folder: refused before anything is copied.
rm -rf "$tree/.carry" "$copy"
RSH=$tmp/rsh "$tree/scripts/gpu_remote.sh" lab-gpu checks "$out" >"$tmp/log2" 2>&1
rc=$?
if [[ $rc == 2 ]] && grep -q "run scripts/gpu_carry.sh first" "$tmp/log2" && [[ ! -e $remote/solbook-gpu ]]; then
  ok "no carry folder: exit 2, nothing copied"; else bad "missing carry: exit $rc"; cat "$tmp/log2"; fi
echo "test_gpu_remote: $checks checks passed, $fails failed"
[[ $fails == 0 ]]

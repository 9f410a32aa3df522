#!/usr/bin/env bash
# End-to-end checks of `solbook collect`: output shape, sorted keys, the CPU
# identity, the no-NVML GPU path and usage errors. Prints what it checked.
# Usage: test_cli_collect.sh PATH/TO/solbook
set -euo pipefail
solbook=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# 1. CPU identity of this machine, git state of the source tree
"$solbook" collect --cpu --git-dir "$top" >"$tmp/cpu.json" 2>"$tmp/cpu.err" || bad "collect --cpu exited $?"
grep -q '^    "kind": "cpu",$' "$tmp/cpu.json" && ok 'collect --cpu: device.kind is "cpu"' || bad "no cpu kind"
grep -q '^    "arch": "cpu",$' "$tmp/cpu.json" && ok 'collect --cpu: device.arch is "cpu"' || bad "no cpu arch"
grep -Eq '^    "sku": "cpu-[a-z0-9][a-z0-9.-]*",$' "$tmp/cpu.json" && ok "collect --cpu: sku $(grep -o '"sku": "[^"]*"' "$tmp/cpu.json")" || bad "bad cpu sku"
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1 | tr -s ' ')
if [[ -n "$model" ]]; then
  grep -qF "\"cpu\": \"$model\"" "$tmp/cpu.json" && ok "collect --cpu: host.cpu is /proc/cpuinfo's \"$model\"" || bad "host.cpu differs from /proc/cpuinfo"
fi
grep -q "\"sm_count\": $(getconf _NPROCESSORS_ONLN)," "$tmp/cpu.json" \
  && ok "collect --cpu: sm_count is the logical core count" || bad "sm_count is not the core count"
if command -v git >/dev/null && head=$(git -C "$top" rev-parse HEAD 2>/dev/null); then
  grep -q "\"sha\": \"$head\"" "$tmp/cpu.json" && ok "collect --cpu: git.sha is HEAD of the tree ($head)" || bad "git.sha is not $head"
fi
[[ ! -s "$tmp/cpu.err" ]] && ok "collect --cpu: nothing on stderr" || bad "collect --cpu wrote to stderr: $(cat "$tmp/cpu.err")"
keys=$(grep -o '^  "[a-z_]*"' "$tmp/cpu.json" | tr -d ' "' | tr '\n' ' ')
[[ "$keys" == "device finished_at git host software started_at tool " ]] && ok "top-level keys sorted: $keys" || bad "top-level keys: $keys"
dkeys=$(sed -n '/^  "device": {/,/^  }/p' "$tmp/cpu.json" | grep -o '^    "[a-z_]*"' | tr -d ' "' | tr '\n' ' ')
[[ "$dkeys" == "$(echo "$dkeys" | tr ' ' '\n' | grep -v '^$' | LC_ALL=C sort | tr '\n' ' ')" ]] && ok "device keys sorted" || bad "device keys not sorted: $dkeys"

# 2. GPU collect on a machine without NVML: still prints, says why on stderr
if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1'; then
  echo "skip: libnvidia-ml.so.1 is installed here, the no-NVML path is not testable"
else
  "$solbook" collect --git-dir "$tmp" >"$tmp/gpu.json" 2>"$tmp/gpu.err" || bad "collect without NVML exited $?"
  grep -q 'NVML not available: libnvidia-ml.so.1' "$tmp/gpu.err" && ok "collect without NVML: stderr says \"$(head -c 120 "$tmp/gpu.err")...\"" || bad "no NVML message on stderr"
  [[ $(wc -l <"$tmp/gpu.err") -eq 1 ]] && ok "collect without NVML: one line on stderr" || bad "stderr has $(wc -l <"$tmp/gpu.err") lines"
  grep -q '^    "kind": "gpu",$' "$tmp/gpu.json" && grep -q '^    "sku": "unknown",$' "$tmp/gpu.json" \
    && grep -q '^    "index": 0,$' "$tmp/gpu.json" && grep -q '"driver_version": "unknown"' "$tmp/gpu.json" \
    && ok 'collect without NVML: kind "gpu", index 0, sku and driver "unknown"' || bad "gpu fields wrong"
  grep -q '"sha": "unknown"' "$tmp/gpu.json" && grep -q '"dirty": null' "$tmp/gpu.json" \
    && ok 'collect --git-dir NON-REPO: sha "unknown", dirty null' || bad "git of a non-repository"
  "$solbook" collect --device 3 >"$tmp/gpu3.json" 2>/dev/null && grep -q '^    "index": 3,$' "$tmp/gpu3.json" \
    && ok "collect --device 3: index 3" || bad "--device 3"
fi

# 2b. The commit stated in SOLBOOK_GIT_SHA (a tree copied without .git) is
# recorded, and describe says it was stated; a malformed one is ignored.
sha=0123456789abcdef0123456789abcdef01234567
SOLBOOK_GIT_SHA=$sha SOLBOOK_GIT_DIRTY=1 "$solbook" collect --cpu --git-dir "$tmp" >"$tmp/env.json" 2>/dev/null
grep -q "\"sha\": \"$sha\"" "$tmp/env.json" && grep -q '"dirty": true' "$tmp/env.json" \
  && grep -q '"describe": "stated by SOLBOOK_GIT_SHA' "$tmp/env.json" \
  && ok "SOLBOOK_GIT_SHA for a tree without .git: recorded, dirty from SOLBOOK_GIT_DIRTY, marked as stated" \
  || bad "SOLBOOK_GIT_SHA not recorded"
# ... and it wins over a .git that is there (a stale copy on a GPU host)
if command -v git >/dev/null; then
  repo=$tmp/stale
  mkdir -p "$repo" && git -C "$repo" init -q && git -C "$repo" -c user.email=t@t -c user.name=t commit -q --allow-empty -m x
  SOLBOOK_GIT_SHA=$sha SOLBOOK_GIT_DIRTY=0 "$solbook" collect --cpu --git-dir "$repo" >"$tmp/env3.json" 2>/dev/null
  grep -q "\"sha\": \"$sha\"" "$tmp/env3.json" && grep -q '"dirty": false' "$tmp/env3.json" \
    && ok "SOLBOOK_GIT_SHA wins over the repository's own HEAD" || bad "a stale .git overrode SOLBOOK_GIT_SHA"
fi
SOLBOOK_GIT_SHA=abc123 "$solbook" collect --cpu --git-dir "$tmp" >"$tmp/env2.json" 2>/dev/null
grep -q '"sha": "unknown"' "$tmp/env2.json" && ok "malformed SOLBOOK_GIT_SHA ignored: sha unknown" || bad "malformed SOLBOOK_GIT_SHA accepted"

# 3. usage errors exit 2 with one line naming the problem
expect_usage() {
  local want=$1; shift
  local rc=0
  "$solbook" collect "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ $rc -eq 2 ]] && grep -q -- "$want" "$tmp/err" && ok "collect $*: exit 2, \"$(head -1 "$tmp/err")\"" \
    || bad "collect $*: exit $rc, stderr: $(cat "$tmp/err")"
}
expect_usage "--device: expected a non-negative integer, got 'x'" --device x
expect_usage "--device: expected a non-negative integer, got '-1'" --device -1
expect_usage "is not a directory" --cpu --git-dir /nonexistent/dir
expect_usage "exclude each other" --cpu --device 1
expect_usage "unknown option" --gpu
expect_usage "unexpected argument" --cpu extra
"$solbook" collect --help | grep -q '^usage: solbook collect' && ok "collect --help prints usage" || bad "--help"

if [[ $fails -ne 0 ]]; then echo "$fails check(s) failed"; exit 1; fi
echo "all collect CLI checks passed"

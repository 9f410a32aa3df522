#!/usr/bin/env bash
# ab_compare.sh BASE NEW OUTDIR [CALIBRATION] < CASES - two solbench builds
# (BASE: before a kernel change, NEW: after it) on the same card in one run,
# case by case in turn (base, new, base, new, ...) so that the card's state
# drifts alike for both; AB_BASE_GIT_SHA, when set, is the commit the base
# build's results record (else both record SOLBOOK_GIT_SHA). CASES: one solbench command line a line, without
# the program, e.g. "rmsnorm --mode bwd --dtype bf16 --M 4096 --N 7168
# --provider fused"; a line starting "= " runs as given, without the
# protocol below (gemm --spec fixes its own); leading VAR=VALUE words are
# set in both builds' environment (e.g. SOLBENCH_RMSNORM_BWD_LAYOUT=regs
# rmsnorm ...), as a shell would. Writes
# OUTDIR/{base,new}/<n>.json and prints, per case, both medians, the ratio,
# the % of the copy ceiling and the spread of the repeat medians. Figures
# for docs/, not a test.
set -uo pipefail
base=${1:?usage: ab_compare.sh BASE NEW OUTDIR [CALIBRATION] < CASES}
new=${2:?usage: ab_compare.sh BASE NEW OUTDIR [CALIBRATION] < CASES}
out=${3:?usage: ab_compare.sh BASE NEW OUTDIR [CALIBRATION] < CASES}
cal=${4:-}
mkdir -p "$out/base" "$out/new"
n=0
while read -r line; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  n=$((n + 1))
  proto="--warmup 10 --iters 20 --repeats 5"
  if [[ "$line" == "= "* ]]; then line=${line#= }; proto=""; fi
  envs=() args=$line
  while [[ "$args" =~ ^([A-Z][A-Z0-9_]*=[^ ]*)\ +(.*)$ ]]; do
    envs+=("${BASH_REMATCH[1]}") args=${BASH_REMATCH[2]}
  done
  for side in base new; do
    prog=$base sha=${AB_BASE_GIT_SHA:-${SOLBOOK_GIT_SHA:-}}
    [[ $side == new ]] && prog=$new sha=${SOLBOOK_GIT_SHA:-}
    # shellcheck disable=SC2086
    env "${envs[@]}" SOLBOOK_GIT_SHA=$sha "$prog" $args $proto --suite ab-compare ${cal:+--calibration "$cal"} \
      --out "$out/$side/$n.json" > "$out/$side/$n.log" 2>&1 || echo "case $n ($side) failed: $line"
  done
  python3 - "$out" "$n" "$line" <<'PY'
import json, sys
out, n, line = sys.argv[1], sys.argv[2], sys.argv[3]
r = {}
for side in ("base", "new"):
    try:
        d = json.load(open("%s/%s/%s.json" % (out, side, n)))
    except (OSError, ValueError):
        r[side] = None
        continue
    r[side] = d
def fig(d):
    if not d or d["status"] != "passed":
        return "%s" % (d["status"] if d else "no result")
    m = d.get("metrics", {})
    # the result's measured ceiling: the best bandwidth probe (add or triad), not the copy
    pct = m.get("pct_measured_ceiling")
    sp = d["timing"]["stats"].get("repeat_median_rel_spread")
    return "%.2f us%s%s" % (1000 * d["timing"]["stats"]["median"],
                            " %.1f%% of %s" % (pct, m.get("measured_ceiling_name", "ceiling")) if pct else "",
                            " spread %.2f%%" % (100 * sp) if sp is not None else "")
ratio = ""
if all(r[s] and r[s]["status"] == "passed" for s in r):
    ratio = "  new/base time %.3f" % (r["new"]["timing"]["stats"]["median"] / r["base"]["timing"]["stats"]["median"])
print("%-70s base %s | new %s%s" % (line, fig(r["base"]), fig(r["new"]), ratio), flush=True)
PY
done

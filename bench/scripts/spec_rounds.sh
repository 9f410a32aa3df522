#!/usr/bin/env bash
# spec_rounds.sh OUTDIR ROUNDS LABEL=COMMAND ... - the GEMM spec (or any
# solbench / torch_gemm.py command that writes one result with --out), run
# ROUNDS times, the commands in turn in every round, on one card, so that
# the card's state drifts alike for all. Each COMMAND gets "--out
# OUTDIR/LABEL-<round>.json". Prints per run the median, the spread of the
# repeat medians (the spec's noise target: < 1%), every repeat median and
# the SM clocks NVML read after the repeats; then per label how many runs
# were under 1%. nvidia-smi samples clocks and power every 100 ms meanwhile
# (OUTDIR/smi.csv). Figures for docs/, not a test.
set -uo pipefail
out=${1:?usage: spec_rounds.sh OUTDIR ROUNDS LABEL=COMMAND ...}
rounds=${2:?usage: spec_rounds.sh OUTDIR ROUNDS LABEL=COMMAND ...}
shift 2
mkdir -p "$out"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv,noheader -lms 100 > "$out/smi.csv" 2>/dev/null &
smi=$!
for r in $(seq 1 "$rounds"); do
  for lc in "$@"; do
    label=${lc%%=*} cmd=${lc#*=}
    echo "$(date -u +%H:%M:%S.%N | cut -c1-12) $label-$r start" >> "$out/marks.txt"
    # shellcheck disable=SC2086
    $cmd --out "$out/$label-$r.json" > "$out/$label-$r.log" 2>&1 || echo "$label round $r failed: $cmd"
  done
done
kill "$smi" 2>/dev/null
python3 - "$out" "$rounds" "$@" <<'PY'
import json, statistics, sys
out, rounds, labels = sys.argv[1], int(sys.argv[2]), [a.split("=", 1)[0] for a in sys.argv[3:]]
under = {l: [0, 0] for l in labels}
for r in range(1, rounds + 1):
    for l in labels:
        try:
            d = json.load(open("%s/%s-%d.json" % (out, l, r)))
            t = d["timing"]
        except (OSError, ValueError, KeyError):
            print("%-10s round %d: no result" % (l, r))
            continue
        sp = t["stats"]["repeat_median_rel_spread"]
        meds = " ".join("%.1f" % (1000 * statistics.median(s)) for s in t["samples"])
        clk = sorted({c.get("sm_mhz") for c in t.get("repeat_clocks", []) if c.get("sm_mhz")})
        print("%-10s round %d: median %.1f us, spread %.2f%%, repeat medians %s us, SM clock %s" % (
            l, r, 1000 * t["stats"]["median"], 100 * sp, meds, "/".join(map(str, clk)) or "not read"))
        under[l][1] += 1
        under[l][0] += sp < 0.01
for l in labels:
    print("%-10s spread under 1%% in %d of %d runs" % (l, under[l][0], under[l][1]))
PY

#!/bin/sh
# fake_prog.sh - the program fake_nvcc.sh "builds": acts as forge_test or
# forge_bench by its name, as NAME.params says (see fake_nvcc.sh).
mode=$(cat "$0.params")
case $(basename "$0") in
forge_test)
    case $mode in
    hang) while :; do :; done ;;
    fail) echo "M=3 N=7: FAIL max_abs_err=0.5 max_rel_err=0.3 unwritten=0" >&2; exit 1 ;;
    *) echo "M=1 N=1: ok"; exit 0 ;;
    esac
    ;;
forge_bench)
    [ "$mode" = bench-hang ] && while :; do :; done
    [ "$mode" = bench-silent ] && exit 0
    cand=0.02
    base=0.06
    case $mode in ms=*) v=${mode#ms=}; cand=${v%,*}; base=${v#*,} ;; esac
    out=""; iters=50; repeats=5; warm=20; l2=cold; shapes=""
    while [ $# -ge 2 ]; do
        case $1 in
        --out) out=$2 ;;
        --iters) iters=$2 ;;
        --repeats) repeats=$2 ;;
        --warmup) warm=$2 ;;
        --l2) l2=$2 ;;
        --shape) shapes="$shapes $2" ;;
        esac
        shift 2
    done
    awk -v iters="$iters" -v repeats="$repeats" -v warm="$warm" -v l2="$l2" -v shapes="$shapes" \
        -v cand="$cand" -v base="$base" '
    function provider(name, ms,    r, i, s) {
        s = "{\"name\": \"" name "\", \"error\": null, \"check\": {\"reference\": \"float64-host\", " \
            "\"checked_elements\": 16, \"max_abs_err\": 0.0078125, \"max_rel_err\": 0.004, \"rel_l2_err\": 0.002, " \
            "\"atol\": 0.01, \"rtol\": 0.016, \"unwritten\": 0, \"finite\": true, \"passed\": true}, \"samples\": ["
        for (r = 0; r < repeats; r++) {
            s = s (r ? ", [" : "[")
            for (i = 0; i < iters; i++)
                s = s (i ? ", " : "") sprintf("%.6f", ms * (1 + 0.001 * ((r * iters + i) % 7)))
            s = s "]"
        }
        return s "]}"
    }
    BEGIN {
        printf "{\"harness\": \"forge_bench\", \"harness_version\": 1, \"device\": {\"index\": 0, " \
               "\"name\": \"NVIDIA H100 80GB HBM3\", \"compute_capability\": \"9.0\", \"sm_count\": 132, " \
               "\"memory_bytes\": 85520809984, \"l2_bytes\": 52428800, \"uuid\": \"GPU-fake\", " \
               "\"cuda_runtime_version\": \"13.0\", \"cuda_driver_api_version\": \"13.0\"}, " \
               "\"protocol\": {\"warmup_iters\": %d, \"iters\": %d, \"repeats\": %d, \"l2\": \"%s\", " \
               "\"input_sets\": 1, \"graph\": false, \"seed\": 1234}, \"cases\": [", warm, iters, repeats, l2
        n = split(shapes, list, " ")
        for (k = 1; k <= n; k++) {
            m = split(list[k], dims, ",")
            printf "%s{\"shape\": {", (k > 1 ? ", " : "")
            for (d = 1; d <= m; d++) {
                split(dims[d], kv, "=")
                printf "%s\"%s\": %s", (d > 1 ? ", " : ""), kv[1], kv[2]
            }
            printf "}, \"bytes\": 67117056, \"flops\": 67108864, \"problem_device_bytes\": 134234112, \"providers\": [%s, %s]}",
                provider("candidate", cand), provider("baseline", base)
        }
        print "]}"
    }' >"$out"
    ;;
*)
    echo "fake_prog: unknown name $0" >&2
    exit 2
    ;;
esac

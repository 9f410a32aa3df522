#!/usr/bin/env python3
"""make_fixtures.py - regenerates the ingest test fixtures in this folder.

good/  schema-valid files of every kind (results of several ops, providers,
       archs and SKUs; a failed and a skipped run; training; calibration),
       one with an Nsight Compute sidecar. The numbers are synthetic test
       data, not measurements; each file's stats match its own samples.
bad/   one file per refusal class of `solbook ingest`.
ncu/   Nsight Compute raw CSVs, good and malformed.
Run from anywhere: python3 tests/data/ingest/make_fixtures.py
"""
import copy
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "perf"))
import gen_results  # noqa: E402


def write_json(rel, doc):
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
        f.write("\n")


def write_bytes(rel, data):
    path = os.path.join(HERE, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def result(i, repeats, iters, seed, **cfg):
    rng = random.Random(seed)
    d = gen_results.make(i, rng, repeats, iters)
    d["config"].update(cfg)
    return d


def main():
    gemm = json.load(open(os.path.join(ROOT, "tests/data/schemas/result.valid.gemm.json")))
    failed = json.load(open(os.path.join(ROOT, "tests/data/schemas/result.valid.failed.json")))
    write_json("good/gemm_h100_cublas.json", gemm)
    write_json("good/a100/rmsnorm_a100_liger.json", result(3, 2, 5, 11))      # a100 rmsnorm liger
    write_json("good/h200/swiglu_h200_huggingface.json", result(8, 3, 4, 12))  # h200 swiglu
    write_json("good/h200/deep/copy_h100_fused.json", result(10, 1, 7, 13))   # h100 copy, 1 repeat
    write_json("good/failed_gemm_h100.json", failed)
    skipped = copy.deepcopy(failed)
    skipped["status"] = "skipped"
    skipped["reason"] = "does not fit in device memory: needs 96 GB"
    skipped["run_uuid"] = "ffeeddccbbaa99887766554433221100"
    skipped["config"]["shape"] = {"M": 131072, "N": 131072, "K": 4096}
    skipped["correctness"] = {"reference": "float64-host", "passed": None}
    skipped.pop("determinism")
    write_json("good/skipped_gemm_h100.json", skipped)
    prov = gemm["provenance"]

    steps = [812.5, 809.0, 811.25, 810.0, 813.0, 808.75]
    st = gen_results.stats([steps])
    st["repeat_median_rel_spread"] = None
    write_json("good/training_h100_llama.json", {
        "schema": "solbook.training.v1", "run_uuid": "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf", "status": "passed",
        "model": {"name": "llama-3.2-1b", "parameters": 1235814400, "hidden_size": 2048, "layers": 16,
                  "vocab_size": 128256, "seq_len": 4096, "micro_batch_size": 4, "dtype": "bf16"},
        "optimizer": {"name": "adamw", "lr": 0.0003, "weight_decay": 0.1, "gradient_accumulation": 1},
        "parallelism": {"world_size": 1, "strategy": "single", "gradient_checkpointing": False},
        "patch": {"name": "liger", "version": "0.5.0", "kernels": ["rmsnorm", "rope", "swiglu", "flce"]},
        "timing": {"unit": "ms", "warmup_steps": 3, "samples": steps, "stats": st},
        "throughput": {"tokens_per_s": 16384 / (st["median"] / 1000.0), "tokens_per_s_per_device": None},
        "memory": {"peak_device_bytes": 61203283968},
        "loss": {"first": 11.9, "last": 7.4},
        "provenance": prov,
    })
    cal_prov = copy.deepcopy(prov)
    cal_prov["device"].update({"name": "NVIDIA H200", "arch": "h200", "sku": "h200-sxm-141gb",
                               "memory_bytes": 150754820096, "pci_device_id": "0x233510DE"})
    write_json("good/calibration_h200.json", {
        "schema": "solbook.calibration.v1", "run_uuid": "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf",
        "protocol": {"buffer_bytes": 4294967296, "warmup_iters": 5, "iters": 20, "repeats": 3, "timer": "cuda-event"},
        "bandwidth": {
            "copy": {"gbps": 4251.5, "bytes": 8589934592, "median_ms": 2.0204},
            "scale": {"gbps": 4238.0, "bytes": 8589934592, "median_ms": 2.0269},
            "add": {"gbps": 4302.25, "bytes": 12884901888, "median_ms": 2.9949},
            "triad": {"gbps": 4299.0, "bytes": 12884901888, "median_ms": 2.9972},
            "memcpy_d2d": {"gbps": 4105.75, "bytes": 8589934592, "median_ms": 2.0922},
        },
        "gemm_peak": {
            "fp16": {"tflops": 742.5, "M": 8192, "N": 8192, "K": 8192, "provider": "cublas", "median_ms": 1.4808},
            "bf16": {"tflops": 738.0, "M": 8192, "N": 8192, "K": 8192, "provider": "cublas", "median_ms": 1.4898},
        },
        "provenance": cal_prov,
    })
    write_bytes("good/README.txt", b"Not JSON: the directory walk must skip this file.\n")

    # bad/: one refusal class each.
    text = json.dumps(gemm, indent=2, sort_keys=True)
    write_bytes("bad/malformed.json", text.replace('"op": "gemm",', '"op": "gemm"', 1).encode())
    write_bytes("bad/nan.json", text.replace('"max_abs_err": 0.01', '"max_abs_err": NaN', 1).encode())
    write_bytes("bad/infinity.json", text.replace('"max_abs_err": 0.01', '"max_abs_err": Infinity', 1).encode())
    write_bytes("bad/duplicate_key.json", text.replace('"op": "gemm",', '"op": "gemm",\n    "op": "gemv",', 1).encode())
    write_bytes("bad/int_overflow.json", text.replace('"checked_elements": 65536', '"checked_elements": 99999999999999999999', 1).encode())
    write_bytes("bad/too_deep.json", (b"[" * 100) + (b"]" * 100) + b"\n")
    write_bytes("bad/invalid_utf8.json", text.replace('"notes"', '"notes"').replace('"gpu-host-1"', '"gpu-\xff-1"', 1).encode("latin-1"))
    write_bytes("bad/empty.json", b"")
    write_bytes("bad/truncated.json", text[: len(text) // 2].encode())
    unknown = copy.deepcopy(gemm)
    unknown["schema"] = "solbook.result.v9"
    write_json("bad/unknown_schema.json", unknown)
    missing = copy.deepcopy(gemm)
    del missing["schema"]
    write_json("bad/missing_schema.json", missing)
    invalid = copy.deepcopy(gemm)
    invalid["config"]["dtype"] = "fp12"
    write_json("bad/schema_invalid.json", invalid)
    mismatch = copy.deepcopy(gemm)
    mismatch["timing"]["stats"]["count"] = 16
    write_json("bad/count_mismatch.json", mismatch)
    # The schema's pattern takes month 13 and hour 25: no week holds such a run.
    no_date = copy.deepcopy(gemm)
    no_date["provenance"]["finished_at"] = "2026-13-45T25:61:61Z"
    write_json("bad/impossible_date.json", no_date)

    # ncu/: `ncu --csv --page raw` layouts.
    hdr = ['ID', 'Process ID', 'Process Name', 'Host Name', 'Kernel Name', 'Context', 'Stream',
           'Block Size', 'Grid Size', 'Device', 'CC',
           'dram__bytes_read.sum', 'dram__bytes_write.sum',
           'gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed',
           'gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed', 'gpu__time_duration.sum',
           'launch__func_cache_config', 'launch__registers_per_thread',
           'sm__throughput.avg.pct_of_peak_sustained_elapsed']
    units = ['', '', '', '', '', '', '', '', '', '', '', 'Mbyte', 'Mbyte', '%', '%', 'usecond', '', 'register/thread', '%']
    k1 = ['0', '48213', 'solbench', '127.0.0.1',
          'void cutlass::Kernel2<cutlass_80_tensorop_f16_s16816gemm_relu_f16_256x128_32x3_nn_align8>(T1::Params)',
          '1', '7', '(256, 1, 1)', '(16, 32, 1)', '0', '9.0',
          '101.45', '33.62', '64.12', '12.48', '1,204.32', 'CachePreferNone', '232', '78.91']
    k2 = ['1', '48213', 'solbench', '127.0.0.1', 'solbook_rmsnorm_fwd_kernel(float const*, float*, int)',
          '1', '7', '(1024, 1, 1)', '(4096, 1, 1)', '0', '9.0',
          '67.11', '67.11', '91.37', '90.84', '43.17', 'CachePreferNone', '40', '21.05']

    def row(cells):
        return ",".join('"%s"' % c for c in cells) + "\n"
    good = ("==PROF== Connected to process 48213 (/opt/solbook/bin/solbench)\n"
            "==PROF== Profiling \"Kernel2\" - 0: 0%....50%....100% - 9 passes\n"
            + row(hdr) + row(units) + row(k1) + row(k2)
            + "==PROF== Disconnected from process 48213\n")
    write_bytes("ncu/two_kernels.csv", good.encode())
    write_bytes("good/gemm_h100_cublas.ncu.csv", (row(hdr) + row(units) + row(k1)).encode())
    write_bytes("ncu/unquoted_crlf.csv", (",".join(hdr) + "\r\n" + ",".join(units) + "\r\n"
                                          + ",".join('"%s"' % c if "," in c else c for c in k2) + "\r\n").encode())
    bad_cols = row(hdr) + row(units) + row(k1) + row(k2[:-2])
    write_bytes("ncu/bad_field_count.csv", bad_cols.encode())
    k2n = list(k2)
    k2n[15] = "fast"
    write_bytes("ncu/bad_number.csv", (row(hdr) + row(units) + row(k1) + row(k2n)).encode())
    write_bytes("ncu/unterminated_quote.csv", (row(hdr) + row(units) + row(k1)[:-3] + "\n").encode())
    write_bytes("ncu/no_header.csv", b"==PROF== Connected to process 1\nno csv here\n")
    write_bytes("ncu/header_only.csv", (row(hdr) + row(units)).encode())
    k2g = list(k2)
    k2g[11] = "1,23.5"   # a misplaced thousands separator
    write_bytes("ncu/bad_grouping.csv", (row(hdr) + row(units) + row(k2g)).encode())


if __name__ == "__main__":
    main()

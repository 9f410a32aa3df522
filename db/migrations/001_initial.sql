-- 001_initial.sql - the first version of the solbook database.
--
-- One row in `runs` per stored file (result, training or calibration), keyed by
-- the sha256 of its canonical JSON so that the same content is stored once.
-- The other tables hang off runs.id and are dropped with it (ON DELETE CASCADE).
-- Migrations are applied in file-name order; PRAGMA user_version holds the
-- number of the last one applied (this file: 1).

CREATE TABLE runs (
    id              INTEGER PRIMARY KEY,
    content_sha256  TEXT NOT NULL UNIQUE,   -- sha256 of the canonical JSON (sorted keys, compact)
    schema          TEXT NOT NULL,          -- solbook.result.v1 | solbook.training.v1 | solbook.calibration.v1
    run_uuid        TEXT,                   -- producer's id, when given
    status          TEXT NOT NULL,          -- passed | failed | skipped (calibrations: passed)
    reason          TEXT,                   -- why failed or skipped
    source_path     TEXT NOT NULL,          -- path given to ingest
    source_format   TEXT NOT NULL DEFAULT 'solbook',  -- solbook | liger-csv | nvbench-json | gbench-json
    ingested_at     TEXT NOT NULL,          -- RFC 3339 UTC
    notes           TEXT,
    raw_json        TEXT NOT NULL           -- the canonical JSON, so `show` and packets can give it back whole
);

-- Provenance: where, when, on what. One row per run.
CREATE TABLE provenance (
    run_id              INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    git_sha             TEXT NOT NULL,      -- 40 hex or 'unknown'
    git_dirty           INTEGER,            -- 0/1, NULL unknown
    tool_name           TEXT NOT NULL,
    tool_version        TEXT NOT NULL,
    hostname            TEXT,
    os                  TEXT,
    cpu                 TEXT,
    driver_version      TEXT,
    cuda_runtime_version TEXT,
    cublas_version      TEXT,
    device_kind         TEXT NOT NULL,      -- gpu | cpu
    device_index        INTEGER,
    gpu_name            TEXT NOT NULL,
    arch                TEXT NOT NULL,      -- a100 | h100 | h200 | cpu | unknown
    sku                 TEXT NOT NULL,      -- data/skus.csv id, or unknown-<slug>
    compute_capability  TEXT,
    sm_count            INTEGER,
    memory_bytes        INTEGER,
    pci_device_id       TEXT,
    board_part_number   TEXT,
    sm_clock_mhz        INTEGER,
    mem_clock_mhz       INTEGER,
    power_limit_w       REAL,
    ecc                 INTEGER,
    mig                 INTEGER,
    started_at          TEXT,
    finished_at         TEXT
);
CREATE INDEX provenance_sha  ON provenance(git_sha);
CREATE INDEX provenance_arch ON provenance(arch);
CREATE INDEX provenance_sku  ON provenance(sku, finished_at);

-- What was run and how it was timed (result runs only).
CREATE TABLE configs (
    run_id        INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    suite         TEXT NOT NULL,
    op            TEXT NOT NULL,
    mode          TEXT NOT NULL,            -- fwd | bwd | full
    provider      TEXT NOT NULL,
    backend       TEXT NOT NULL,
    dtype         TEXT NOT NULL,
    shape_key     TEXT NOT NULL,            -- canonical: names sorted, "K=4096,M=4096,N=4096"
    shape_json    TEXT NOT NULL,            -- the shape object, canonical JSON
    params_json   TEXT NOT NULL DEFAULT '{}', -- the params object, canonical JSON
    case_key      TEXT NOT NULL,            -- suite|op|mode|dtype|shape_key|params_json: one benchmark case, all providers
    timer         TEXT NOT NULL,
    warmup_iters  INTEGER,
    warmup_ms     REAL,
    iters         INTEGER,
    repeats       INTEGER,
    l2            TEXT NOT NULL,            -- cold | warm | unknown
    input_sets    INTEGER,
    graph         INTEGER
);
CREATE INDEX configs_op       ON configs(op, mode, dtype);
CREATE INDEX configs_provider ON configs(provider);
CREATE INDEX configs_shape    ON configs(shape_key);
CREATE INDEX configs_case     ON configs(case_key, provider);
CREATE INDEX configs_suite    ON configs(suite);

-- Every latency sample (result: one launch each; training: one step each).
CREATE TABLE samples (
    run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    rep      INTEGER NOT NULL,              -- repeat index, from 0
    idx      INTEGER NOT NULL,              -- index within the repeat, from 0
    value_ms REAL NOT NULL,
    PRIMARY KEY (run_id, rep, idx)
) WITHOUT ROWID;

-- Summary statistics and derived metrics (passed runs; NULLs where not given).
CREATE TABLE metrics (
    run_id               INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    sample_count         INTEGER,
    quantiles_only       INTEGER NOT NULL DEFAULT 0,  -- 1: imported quantiles, no samples
    min_ms               REAL,
    p20_ms               REAL,
    median_ms            REAL,
    p80_ms               REAL,
    max_ms               REAL,
    mean_ms              REAL,
    stdev_ms             REAL,
    rel_noise            REAL,
    repeat_spread        REAL,
    flops                REAL,
    bytes                REAL,
    tflops               REAL,
    gbps                 REAL,
    bound                TEXT,
    pct_datasheet_peak   REAL,
    datasheet_peak_name  TEXT,
    pct_measured_ceiling REAL,
    measured_ceiling_name TEXT,
    peak_device_bytes    INTEGER
);

-- Correctness verdict and determinism probes.
CREATE TABLE correctness (
    run_id             INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    reference          TEXT NOT NULL,
    checked_elements   INTEGER,
    max_abs_err        REAL,
    max_rel_err        REAL,
    rel_l2_err         REAL,
    atol               REAL,
    rtol               REAL,
    unwritten          INTEGER,
    finite             INTEGER,
    passed             INTEGER,            -- 0/1, NULL unknown
    output_checksum    TEXT,
    bitwise_repeatable INTEGER,
    batch_invariant    INTEGER
);
CREATE INDEX correctness_passed ON correctness(passed);

-- Nsight Compute metrics, one row per kernel launch and metric.
CREATE TABLE profiler_metrics (
    run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kernel_index  INTEGER NOT NULL,         -- launch order in the CSV, from 0
    kernel_name   TEXT NOT NULL,
    metric        TEXT NOT NULL,            -- e.g. sm__throughput.avg.pct_of_peak_sustained_elapsed
    unit          TEXT,
    value         REAL,
    source_path   TEXT NOT NULL,
    PRIMARY KEY (run_id, kernel_index, metric)
) WITHOUT ROWID;

-- Measured ceilings from calibration files: ('bw.copy','GB/s',3000), ('gemm.fp16','TFLOP/s',700);
-- names in db/README.md.
CREATE TABLE ceilings (
    run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    name    TEXT NOT NULL,
    unit    TEXT NOT NULL,
    value   REAL NOT NULL,
    PRIMARY KEY (run_id, name)
) WITHOUT ROWID;

-- End-to-end training steps.
CREATE TABLE training (
    run_id             INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    model_name         TEXT NOT NULL,
    seq_len            INTEGER NOT NULL,
    micro_batch_size   INTEGER NOT NULL,
    dtype              TEXT NOT NULL,
    world_size         INTEGER NOT NULL,
    strategy           TEXT NOT NULL,
    patch_name         TEXT NOT NULL,
    patch_kernels_json TEXT NOT NULL,
    tokens_per_s       REAL,
    median_step_ms     REAL,
    peak_device_bytes  INTEGER
);

-- 004_forge_kernels.sql - kernels promoted by `solbook forge promote`.
--
-- One row per promoted kernel version: what it computes (op, sku, dtype,
-- shapes), who wrote it, the forge run it came from, its measured speedups
-- over the baseline and the evidence behind them (cases_json: the benchmark
-- cases, sources_json: the sha256 of every source file). docs/FORGE.md,
-- "promote", describes each column. Earlier solbook versions had forge
-- create this same table on first promotion; IF NOT EXISTS keeps theirs.
CREATE TABLE IF NOT EXISTS forge_kernels (
    kernel_id       TEXT PRIMARY KEY,    -- BASE_vVERSION
    base_id         TEXT NOT NULL,       -- language_op_sku_dtype_shapes
    version         INTEGER NOT NULL,
    language        TEXT NOT NULL,
    op              TEXT NOT NULL,
    sku             TEXT NOT NULL,
    dtype           TEXT NOT NULL,
    shapes          TEXT NOT NULL,
    forge_run       TEXT NOT NULL UNIQUE,
    author          TEXT NOT NULL,
    author_kind     TEXT NOT NULL,
    entry_point     TEXT NOT NULL,
    min_speedup     REAL NOT NULL,       -- the threshold it was promoted under
    speedup_min     REAL NOT NULL,
    speedup_geomean REAL NOT NULL,
    gpu_name        TEXT NOT NULL,
    driver_version  TEXT,
    git_sha         TEXT NOT NULL,
    cases_json      TEXT NOT NULL,
    sources_json    TEXT NOT NULL,
    registry_path   TEXT NOT NULL,
    status          TEXT NOT NULL,
    evidence_level  TEXT NOT NULL,
    promoted_at     TEXT NOT NULL,       -- RFC 3339 UTC
    UNIQUE (base_id, version)
);

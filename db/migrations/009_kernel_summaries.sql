-- 009_kernel_summaries.sql - per-kernel summaries a tracing profiler
-- writes for a whole run of the program (Nsight Systems' cuda_gpu_kern_sum
-- report: docs/IMPORT.md), attached to a stored run.
--
-- One row per kernel name, as the report groups launches. Unlike
-- profiler_metrics (Nsight Compute, one row per replayed launch), a trace
-- does not serialise or replay kernels, so attaching one leaves the run a
-- timing. Times are in ms, converted exactly from the report's ns.
CREATE TABLE kernel_summaries (
    run_id       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kernel_index INTEGER NOT NULL,   -- the report's row order, from 0 (by total time, largest first)
    kernel_name  TEXT NOT NULL,
    tool         TEXT NOT NULL,      -- 'nsys'
    time_pct     REAL,               -- the kernel's share of all kernels' GPU time, %
    total_ms     REAL NOT NULL,
    instances    INTEGER NOT NULL,   -- launches
    avg_ms       REAL,
    med_ms       REAL,
    min_ms       REAL,
    max_ms       REAL,
    stddev_ms    REAL,
    source_path  TEXT NOT NULL,
    PRIMARY KEY (run_id, kernel_index)
) WITHOUT ROWID;

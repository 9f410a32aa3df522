-- 014_run_verdicts.sql - each result run's plausibility verdict, stored.
--
-- A result run is held against the ceilings of its card (its own GPU's
-- newest calibration that measured a ceiling, else its SKU's newest, else
-- the datasheet of data/skus.csv; docs/REPORTS.md, "Plausibility") when
-- `solbook ingest` stores it, and the verdict is kept here, one row a run,
-- so that reports read it instead of judging every run they load.
-- model/plausibility.h says what each column means (sb_plaus_verdict);
-- NULL reals are NAN there. calib_run is the calibration run the
-- bandwidth ceiling came from, NULL for the datasheet.
--
-- A verdict depends on more than the run: on the stored calibrations and
-- on data/op_models.csv, data/cache_sizes.csv and data/skus.csv.
-- run_verdicts_basis records what the stored verdicts were judged with
-- (the SHA-256 of the tables and of the calibrations then stored); a report
-- uses them only while that still holds, and `solbook ingest` judges again
-- the runs a change touches, in one transaction with this row. A database
-- migrated from an older schema has no verdicts until the next
-- `solbook ingest` stores them all at once; its reports judge the runs as
-- they load them meanwhile.
CREATE TABLE run_verdicts (
    run_id              INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    verdict             TEXT NOT NULL
                        CHECK (verdict IN ('ok', 'cache-resident', 'implausible', 'unknown')),
    reason              TEXT NOT NULL,
    gbps                REAL,
    tflops              REAL,
    ceiling_name        TEXT NOT NULL,     -- bw.copy | bw.add/triad | bw.read | bw.copy+add mix | datasheet HBM
    ceiling_gbps        REAL,
    pct_ceiling         REAL,
    calib_run           INTEGER,           -- NULL: data/skus.csv's datasheet figure; 0: none (no time to judge)
    calib_gpu_uuid      TEXT NOT NULL,     -- '' when the calibration records none
    calib_buffer_bytes  INTEGER NOT NULL,  -- 0 when not recorded
    calib_card          TEXT NOT NULL CHECK (calib_card IN ('own', 'other', 'unknown')),
    spread_cards        INTEGER NOT NULL,  -- the SKU's calibrated cards that measured the ceiling
    spread_lo           REAL,
    spread_hi           REAL,
    tensor              INTEGER NOT NULL CHECK (tensor IN (0, 1)),
    flop_ceiling_name   TEXT NOT NULL,
    flop_ceiling_tflops REAL,
    pct_flop_ceiling    REAL
);

CREATE TABLE run_verdicts_basis (
    id                INTEGER PRIMARY KEY CHECK (id = 1),
    tables_sha256       TEXT NOT NULL,     -- the tables and the rule the verdicts were judged with
    calibrations_sha256 TEXT NOT NULL,     -- the calibration runs stored then, with their ceilings
    last_calibration    INTEGER NOT NULL   -- the greatest of their run ids, 0 when none
);

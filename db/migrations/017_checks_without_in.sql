-- 017_checks_without_in.sql - the constraints and partial indexes that
-- every insert evaluates test their values one by one instead of with an
-- IN list.
--
-- SQLite evaluates `x IN (a, b, c)` of more than two constants by
-- building a temporary index of the list, once each time a statement
-- runs: every row stored through such a CHECK constraint or into such a
-- partial index opened and closed one. Storing the plausibility verdicts
-- (two such CHECKs a row) took five times as long as the same rows
-- without them, about a fifth of an ingest into a 1,000,000-run file, and
-- the regression steps (two such partial indexes) paid the same for each
-- step appended. `x = a OR x = b OR x = c` accepts the same rows and
-- compares in place.
--
-- A column constraint cannot be changed, so run_verdicts is rebuilt as
-- 014 made it, keeping every row, with the same columns in the same
-- order. solbook applies migrations with foreign keys off and checks
-- them before it commits (db/migrate.c). Nothing else refers to
-- run_verdicts.
--
-- The two partial indexes of rg_steps are made again with the same
-- terms written so; the statements that read through them
-- (db/rg_steps.c) repeat the terms exactly, which is how SQLite knows the
-- index covers a query.
CREATE TABLE run_verdicts_rebuilt (
    run_id              INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    verdict             TEXT NOT NULL
                        CHECK (verdict = 'ok' OR verdict = 'cache-resident' OR verdict = 'implausible'
                               OR verdict = 'unknown'),
    reason              TEXT NOT NULL,
    gbps                REAL,
    tflops              REAL,
    ceiling_name        TEXT NOT NULL,     -- bw.copy | bw.add/triad | bw.read | bw.copy+add mix | datasheet HBM
    ceiling_gbps        REAL,
    pct_ceiling         REAL,
    calib_run           INTEGER,           -- NULL: data/skus.csv's datasheet figure; 0: none (no time to judge)
    calib_gpu_uuid      TEXT NOT NULL,     -- '' when the calibration records none
    calib_buffer_bytes  INTEGER NOT NULL,  -- 0 when not recorded
    calib_card          TEXT NOT NULL CHECK (calib_card = 'own' OR calib_card = 'other' OR calib_card = 'unknown'),
    spread_cards        INTEGER NOT NULL,  -- the SKU's calibrated cards that measured the ceiling
    spread_lo           REAL,
    spread_hi           REAL,
    tensor              INTEGER NOT NULL CHECK (tensor = 0 OR tensor = 1),
    flop_ceiling_name   TEXT NOT NULL,
    flop_ceiling_tflops REAL,
    pct_flop_ceiling    REAL
);

INSERT INTO run_verdicts_rebuilt SELECT * FROM run_verdicts ORDER BY run_id;
DROP TABLE run_verdicts;
ALTER TABLE run_verdicts_rebuilt RENAME TO run_verdicts;

-- the members of one family
DROP INDEX rg_steps_family;
CREATE INDEX rg_steps_family ON rg_steps(old_commit, new_commit)
 WHERE old_commit != 0 AND (verdict = 0 OR verdict = 2 OR verdict = 3) AND p IS NOT NULL;
-- the tested drift steps of one class, by |change|
DROP INDEX rg_steps_drift;
CREATE INDEX rg_steps_drift ON rg_steps(drift_class, abs(rel_change))
 WHERE drift_class != 0 AND cause = 1 AND (verdict = 0 OR verdict = 2 OR verdict = 3) AND old_commit != 0
   AND p IS NOT NULL AND rel_change IS NOT NULL;

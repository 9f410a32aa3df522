-- 011_series_latest.sql - the newest run of every series, kept as runs
-- are stored, so that reports on the current state of each case read one
-- run a series instead of every run ever stored.
--
-- A series is a case (configs.case_key) with a provider on a SKU; the
-- suite (a preset's label) is part of the key here so that a report
-- narrowed to one suite finds that suite's newest run. The geomean and
-- the roofline use the newest run of each series (db/results_query.h,
-- sb_results_load_latest). The newest is the run
-- with the greatest finished time, then the greatest id, which is how
-- reports order runs: finished_epoch is unixepoch(provenance.finished_at)
-- (the smallest integer when it is absent or SQLite cannot read it).
--
-- unsure is 1 once a run of the series has a finished_at outside the
-- plain RFC 3339 UTC form solbench and the importers write
-- (2026-11-20T08:00:00Z, with fractional seconds or a +HH:MM offset, a
-- valid date after 1970): for those the reports' own time parser
-- (core/isoweek.h) and SQLite's may disagree, so readers go through the
-- whole series instead. A run later marked as timed under a profiler,
-- or whose time reports leave out, stays the stored newest; readers check
-- the run they get and then go through the whole series too.
--
-- A result run goes into series_pending as it is inserted (a trigger on
-- runs, which has one already, so the insert is not made dearer by a
-- statement journal of its own); `INSERT INTO series_fold VALUES (1)`
-- folds the pending runs into series_latest and empties series_pending.
-- solbook folds before each commit of a write (db/store.c, sb_db_commit),
-- so one fold serves a group of ingested files; readers take the runs
-- still pending (another program's rows) as candidates too. A trigger
-- after a configs row is deleted (solbook forget, through ON DELETE
-- CASCADE) finds the series' newest again when it was the deleted run.
-- A migration that changes configs.case_key, provider or suite, or
-- provenance.sku or finished_at, of stored runs must rebuild this table.
CREATE VIEW series_runs AS
SELECT c.case_key, c.provider, p.sku, c.suite, c.op, c.run_id,
       coalesce(unixepoch(p.finished_at), -9223372036854775808) AS finished_epoch,
       (p.finished_at IS NOT NULL AND NOT (
            (p.finished_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z'
             OR p.finished_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9]*Z'
             OR p.finished_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9][+-][0-2][0-9]:[0-5][0-9]')
            AND substr(p.finished_at, 1, 4) >= '1970'
            AND date(substr(p.finished_at, 1, 10), '+0 days') IS substr(p.finished_at, 1, 10)
            AND unixepoch(p.finished_at) IS NOT NULL)) AS unsure
  FROM configs c JOIN provenance p ON p.run_id = c.run_id;

CREATE TABLE series_latest (
    case_key       TEXT NOT NULL,
    provider       TEXT NOT NULL,
    sku            TEXT NOT NULL,
    suite          TEXT NOT NULL,
    op             TEXT NOT NULL,
    run_id         INTEGER NOT NULL,   -- the series' newest run
    finished_epoch INTEGER NOT NULL,   -- its finished time, Unix seconds
    unsure         INTEGER NOT NULL,   -- 1: read the whole series (above)
    PRIMARY KEY (case_key, provider, sku, suite)
) WITHOUT ROWID;
CREATE INDEX series_latest_run ON series_latest(run_id);

-- The passed runs whose time reports cannot use (not a positive finite
-- normal number: db/results_query.h, left_out): a handful, counted by
-- every report, found here without reading every run's metrics.
CREATE INDEX metrics_time_unusable ON metrics(run_id)
 WHERE median_ms < 2.2250738585072014e-308 OR median_ms > 1.7976931348623157e308;

-- The runs of a time window (the weekly), without reading every run.
CREATE INDEX provenance_finished ON provenance(finished_at);

INSERT INTO series_latest (case_key, provider, sku, suite, op, run_id, finished_epoch, unsure)
SELECT case_key, provider, sku, suite, op, run_id, finished_epoch, any_unsure
  FROM (SELECT s.*, max(s.unsure) OVER w AS any_unsure,
               row_number() OVER (w ORDER BY s.finished_epoch DESC, s.run_id DESC) AS k
          FROM series_runs s
        WINDOW w AS (PARTITION BY s.case_key, s.provider, s.sku, s.suite))
 WHERE k = 1;

CREATE TABLE series_pending (
    run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE
);

CREATE TRIGGER runs_series_pending AFTER INSERT ON runs
  WHEN NEW.schema = 'solbook.result.v1'
BEGIN
  INSERT INTO series_pending (run_id) VALUES (NEW.id);
END;

CREATE VIEW series_fold (go) AS SELECT 1;

CREATE TRIGGER series_fold_pending INSTEAD OF INSERT ON series_fold
BEGIN
  INSERT INTO series_latest (case_key, provider, sku, suite, op, run_id, finished_epoch, unsure)
  SELECT case_key, provider, sku, suite, op, run_id, finished_epoch, any_unsure
    FROM (SELECT s.*, max(s.unsure) OVER w AS any_unsure,
                 row_number() OVER (w ORDER BY s.finished_epoch DESC, s.run_id DESC) AS k
            FROM series_runs s WHERE s.run_id IN (SELECT run_id FROM series_pending)
          WINDOW w AS (PARTITION BY s.case_key, s.provider, s.sku, s.suite))
   WHERE k = 1
  ON CONFLICT (case_key, provider, sku, suite) DO UPDATE SET
    unsure = max(unsure, excluded.unsure),
    run_id = iif(excluded.finished_epoch > finished_epoch
                 OR (excluded.finished_epoch = finished_epoch AND excluded.run_id > run_id),
                 excluded.run_id, run_id),
    finished_epoch = max(finished_epoch, excluded.finished_epoch);
  DELETE FROM series_pending;
END;

CREATE TRIGGER configs_series_forget AFTER DELETE ON configs
  WHEN EXISTS (SELECT 1 FROM series_latest WHERE run_id = OLD.run_id)
BEGIN
  DELETE FROM series_latest WHERE run_id = OLD.run_id;
  INSERT INTO series_latest (case_key, provider, sku, suite, op, run_id, finished_epoch, unsure)
  SELECT case_key, provider, sku, suite, op, run_id, finished_epoch, any_unsure
    FROM (SELECT s.*, max(s.unsure) OVER w AS any_unsure,
                 row_number() OVER (w ORDER BY s.finished_epoch DESC, s.run_id DESC) AS k
            FROM series_runs s
           WHERE s.case_key = OLD.case_key AND s.provider = OLD.provider AND s.suite = OLD.suite
             AND s.sku NOT IN (SELECT l.sku FROM series_latest l WHERE l.case_key = OLD.case_key
                                  AND l.provider = OLD.provider AND l.suite = OLD.suite)
          WINDOW w AS (PARTITION BY s.sku))
   WHERE k = 1;
END;

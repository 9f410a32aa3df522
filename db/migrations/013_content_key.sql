-- 013_content_key.sql - the duplicate check of ingest through a small key.
--
-- Every stored run was found by the UNIQUE index on content_sha256, whose
-- 64-hex entries (about 74 bytes each) are keyed at random: into a large
-- database each ingested run landed on a different leaf of that index, and
-- those leaves were most of the pages an ingest wrote. content_key holds
-- the digest's first 8 bytes as an integer (the first 16 hex digits read
-- as an unsigned big-endian number, minus 2^63, so that keys sort as the
-- digests do and a hex prefix is a range of keys). Its index entries
-- take about 16 bytes, so the index has under a quarter of the leaves
-- for new runs to land on.
-- The index is not unique: two digests may share their first 8 bytes.
-- Whoever looks a digest up compares the whole content_sha256 of the runs
-- with its key (db/content_key.h computes the same key in C), and the
-- triggers runs_content_once keep the same content stored once, as the
-- UNIQUE constraint did. The key is a virtual generated column, computed
-- from content_sha256 by SQLite on every insert, so a writer of runs
-- cannot store a wrong one; a character that is not a lower-case hex digit
-- counts as 0, as db/content_key.c counts it.
--
-- A column constraint cannot be dropped, so runs is rebuilt, keeping every
-- id (the tables that reference runs(id) keep their rows). solbook applies
-- migrations with foreign_keys off and checks the foreign keys before it
-- commits (db/migrate.c), as SQLite's procedure for changing a table asks:
-- with them on, dropping the old runs would delete every row referencing
-- it. The rebuild drops the index and the triggers on runs; they are made
-- again here as 006, 008 and 011 made them.
--
-- The copy also stores gpu_uuid, the run's provenance.device.uuid, which
-- reports read for every result run (regressions compare steps on one
-- card; db/run_devices.h): taken from raw_json once, as a run is stored,
-- instead of parsing every run's JSON on each read.
CREATE TABLE runs_rebuilt (
    id              INTEGER PRIMARY KEY,
    content_sha256  TEXT NOT NULL,          -- sha256 of the canonical JSON (sorted keys, compact), lower-case hex
    schema          TEXT NOT NULL,          -- solbook.result.v1 | solbook.training.v1 | solbook.calibration.v1
    run_uuid        TEXT,                   -- producer's id, when given
    status          TEXT NOT NULL,          -- passed | failed | skipped (calibrations: passed)
    reason          TEXT,                   -- why failed or skipped
    source_path     TEXT NOT NULL,          -- path given to ingest
    source_format   TEXT NOT NULL DEFAULT 'solbook',  -- solbook | liger-csv | nvbench-json | gbench-json
    ingested_at     TEXT NOT NULL,          -- RFC 3339 UTC
    notes           TEXT,
    raw_json        TEXT NOT NULL,          -- the canonical JSON, its samples cut out (012)
    samples_at      INTEGER,                -- where the samples were cut out (012)
    gpu_uuid        TEXT GENERATED ALWAYS AS (json_extract(raw_json, '$.provenance.device.uuid')) STORED,
    content_key     INTEGER GENERATED ALWAYS AS (
        (max(instr('0123456789abcdef', substr(content_sha256, 1, 1)) - 1, 0) - 8) * 1152921504606846976 +
        max(instr('0123456789abcdef', substr(content_sha256, 2, 1)) - 1, 0) * 72057594037927936 +
        max(instr('0123456789abcdef', substr(content_sha256, 3, 1)) - 1, 0) * 4503599627370496 +
        max(instr('0123456789abcdef', substr(content_sha256, 4, 1)) - 1, 0) * 281474976710656 +
        max(instr('0123456789abcdef', substr(content_sha256, 5, 1)) - 1, 0) * 17592186044416 +
        max(instr('0123456789abcdef', substr(content_sha256, 6, 1)) - 1, 0) * 1099511627776 +
        max(instr('0123456789abcdef', substr(content_sha256, 7, 1)) - 1, 0) * 68719476736 +
        max(instr('0123456789abcdef', substr(content_sha256, 8, 1)) - 1, 0) * 4294967296 +
        max(instr('0123456789abcdef', substr(content_sha256, 9, 1)) - 1, 0) * 268435456 +
        max(instr('0123456789abcdef', substr(content_sha256, 10, 1)) - 1, 0) * 16777216 +
        max(instr('0123456789abcdef', substr(content_sha256, 11, 1)) - 1, 0) * 1048576 +
        max(instr('0123456789abcdef', substr(content_sha256, 12, 1)) - 1, 0) * 65536 +
        max(instr('0123456789abcdef', substr(content_sha256, 13, 1)) - 1, 0) * 4096 +
        max(instr('0123456789abcdef', substr(content_sha256, 14, 1)) - 1, 0) * 256 +
        max(instr('0123456789abcdef', substr(content_sha256, 15, 1)) - 1, 0) * 16 +
        max(instr('0123456789abcdef', substr(content_sha256, 16, 1)) - 1, 0)) VIRTUAL
);

INSERT INTO runs_rebuilt (id, content_sha256, schema, run_uuid, status, reason, source_path,
                          source_format, ingested_at, notes, raw_json, samples_at)
SELECT id, content_sha256, schema, run_uuid, status, reason, source_path,
       source_format, ingested_at, notes, raw_json, samples_at
  FROM runs ORDER BY id;

DROP TABLE runs;
ALTER TABLE runs_rebuilt RENAME TO runs;

CREATE INDEX runs_content_key ON runs(content_key);

CREATE TRIGGER runs_content_once AFTER INSERT ON runs
  WHEN EXISTS (SELECT 1 FROM runs WHERE content_key = NEW.content_key
                  AND content_sha256 = NEW.content_sha256 AND id <> NEW.id)
BEGIN
  SELECT RAISE(ABORT, 'UNIQUE constraint failed: runs.content_sha256');
END;

CREATE TRIGGER runs_content_once_update AFTER UPDATE OF content_sha256 ON runs
  WHEN EXISTS (SELECT 1 FROM runs WHERE content_key = NEW.content_key
                  AND content_sha256 = NEW.content_sha256 AND id <> NEW.id)
BEGIN
  SELECT RAISE(ABORT, 'UNIQUE constraint failed: runs.content_sha256');
END;

-- 006
CREATE INDEX runs_calibration ON runs(id) WHERE schema = 'solbook.calibration.v1';

-- 008
CREATE TRIGGER runs_session AFTER INSERT ON runs
  WHEN instr(NEW.raw_json, '"session":{') > 0
BEGIN
  INSERT INTO run_sessions (run_id, session_id, copy, rounds, timing_method, check_version, gpu_uuid)
  SELECT NEW.id, json_extract(NEW.raw_json, '$.session.id'), json_extract(NEW.raw_json, '$.session.copy'),
         json_extract(NEW.raw_json, '$.session.rounds'), json_extract(NEW.raw_json, '$.session.timing_method'),
         json_extract(NEW.raw_json, '$.session.check'), json_extract(NEW.raw_json, '$.provenance.device.uuid')
   WHERE json_extract(NEW.raw_json, '$.session.id') IS NOT NULL;
END;

-- 011
CREATE TRIGGER runs_series_pending AFTER INSERT ON runs
  WHEN NEW.schema = 'solbook.result.v1'
BEGIN
  INSERT INTO series_pending (run_id) VALUES (NEW.id);
END;

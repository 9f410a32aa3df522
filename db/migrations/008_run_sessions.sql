-- 008_run_sessions.sql - the measuring session of a run (the result's
-- session object: bench/scripts/session.py, docs/SESSIONS.md).
--
-- A ratio between two providers is only taken between runs of one
-- session (one process, one card, one timing method, one correctness
-- check, interleaved rounds). Reports find a session's runs through
-- this table instead of reading every run's JSON. A trigger fills it from
-- the canonical JSON as runs are inserted, so no writer of runs can
-- forget it; the instr() test keeps the JSON from being parsed for the
-- runs that have no session (canonical JSON has no space after a colon,
-- and a quote inside a string value is escaped, so the text "session":{
-- appears only as a key).
CREATE TABLE run_sessions (
    run_id        INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    session_id    TEXT NOT NULL,      -- 32 hex digits, the same for every run of the session
    copy          INTEGER NOT NULL,   -- 0, or the A/A copy of a provider measured twice a round
    rounds        INTEGER NOT NULL,
    timing_method TEXT NOT NULL,      -- how timing.kernel was taken, the same for the whole session
    check_version TEXT NOT NULL,      -- the correctness check every provider passed
    gpu_uuid      TEXT                -- provenance.device.uuid
);
CREATE INDEX run_sessions_session ON run_sessions(session_id);

INSERT INTO run_sessions (run_id, session_id, copy, rounds, timing_method, check_version, gpu_uuid)
SELECT id, json_extract(raw_json, '$.session.id'), json_extract(raw_json, '$.session.copy'),
       json_extract(raw_json, '$.session.rounds'), json_extract(raw_json, '$.session.timing_method'),
       json_extract(raw_json, '$.session.check'), json_extract(raw_json, '$.provenance.device.uuid')
  FROM runs
 WHERE instr(raw_json, '"session":{') > 0 AND json_extract(raw_json, '$.session.id') IS NOT NULL;

CREATE TRIGGER runs_session AFTER INSERT ON runs
  WHEN instr(NEW.raw_json, '"session":{') > 0
BEGIN
  INSERT INTO run_sessions (run_id, session_id, copy, rounds, timing_method, check_version, gpu_uuid)
  SELECT NEW.id, json_extract(NEW.raw_json, '$.session.id'), json_extract(NEW.raw_json, '$.session.copy'),
         json_extract(NEW.raw_json, '$.session.rounds'), json_extract(NEW.raw_json, '$.session.timing_method'),
         json_extract(NEW.raw_json, '$.session.check'), json_extract(NEW.raw_json, '$.provenance.device.uuid')
   WHERE json_extract(NEW.raw_json, '$.session.id') IS NOT NULL;
END;

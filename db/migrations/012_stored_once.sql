-- 012_stored_once.sql - a result's samples stored once, in run_samples.
--
-- A result's samples were stored twice: in run_samples (8 bytes a value)
-- and as text in runs.raw_json (about 17 bytes a value), most of a
-- 250-sample run's bytes. raw_json now holds the canonical JSON with the
-- member "samples" of its "timing" object cut out, and samples_at the byte
-- offset of the cut; readers join them back (db/sample_blob.h,
-- sb_raw_json_join), byte for byte, so content_sha256 still is the
-- SHA-256 of the document a reader gets. NULL: raw_json is whole (other
-- schemas, runs without samples, and samples written as whole numbers,
-- which would come back as reals). sb_samples_cut_at and
-- sb_samples_cut_text are functions solbook registers on the connection
-- that runs migrations (db/sample_blob.c); they cut a stored run only
-- where the joined text equals its raw_json.
ALTER TABLE runs ADD COLUMN samples_at INTEGER;

UPDATE runs
   SET samples_at = sb_samples_cut_at(raw_json, s.rep_lengths, s.value_ms),
       raw_json = sb_samples_cut_text(raw_json, s.rep_lengths, s.value_ms)
  FROM run_samples AS s
 WHERE s.run_id = runs.id
   AND runs.schema = 'solbook.result.v1'
   AND instr(runs.raw_json, '"samples":[') > 0;

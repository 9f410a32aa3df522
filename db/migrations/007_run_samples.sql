-- 007_run_samples.sql - a run's samples in one row instead of one row each.
--
-- A 250-sample result wrote 250 B-tree entries of (run_id, rep, idx,
-- value_ms); storing them was most of the cost of ingesting a file, and
-- every reader wanted them all at once anyway. run_samples holds the
-- values of every repeat, in order, as one blob of little-endian IEEE 754
-- binary64 (8 bytes a value, exact: length(value_ms) / 8 is the count),
-- and the repeat lengths as a JSON array ([50,50,50,50,50]; a training run
-- is one repeat of its steps). db/sample_blob.h packs and unpacks them.
--
-- sb_pack_samples and sb_rep_lengths are aggregates solbook registers on
-- the connection that runs migrations (db/sample_blob.c); they sort each
-- run's rows by (rep, idx) themselves. A repeat with no rows below the
-- highest one present is 0 long.
CREATE TABLE run_samples (
    run_id      INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    rep_lengths TEXT NOT NULL,     -- JSON array: the values in each repeat
    value_ms    BLOB NOT NULL      -- every value, repeat after repeat, <f8
);

INSERT INTO run_samples (run_id, rep_lengths, value_ms)
SELECT run_id, sb_rep_lengths(rep, idx), sb_pack_samples(rep, idx, value_ms)
  FROM samples
 GROUP BY run_id;

DROP TABLE samples;

-- 015_regression_steps.sql - the regression history (report/regress.h),
-- stored, so that `report regressions` and the weekly read its steps
-- instead of loading every run and testing every step's samples again.
--
-- rg_steps holds one row per step of sb_rg_history in the list's order
-- (seq), as the walk over the series leaves it: before the thresholds of
-- drift steps are raised by their noise class and before the p-values of
-- a commit step are adjusted together (both depend on every series, and
-- are done again as the steps are read). old_commit and new_commit number
-- the commits within this analysis (equal numbers: the same commit), and
-- drift_class numbers the noise classes of drift steps (provider, SKU,
-- op, mode, relation of cards, tool, timer, held launch; 0 for the other
-- steps). Enumerations are the values of report/regress.h; a NULL real is
-- NAN there and a NULL changed is ''.
--
-- rg_basis says what the steps were computed from: the SHA-256 of the
-- rule's settings and of the state of the database (result runs stored,
-- the greatest run id, rg_changes.n and the schema version). A report
-- uses the steps only while that still holds; the first report after a
-- change computes them again and stores them (report/regress.h,
-- sb_rg_store). rg_changes counts what the number and the greatest id of
-- the runs cannot show: deleted runs (solbook forget) and any change to
-- the commits table (its order is the order of the series).
CREATE TABLE rg_steps (
    seq            INTEGER PRIMARY KEY,
    old_run        INTEGER,            -- NULL: a single commit
    new_run        INTEGER NOT NULL,
    old_commit     INTEGER NOT NULL,   -- 0: no old run
    new_commit     INTEGER NOT NULL,
    drift_class    INTEGER NOT NULL,
    verdict        INTEGER NOT NULL,
    cause          INTEGER NOT NULL,
    latest         INTEGER NOT NULL,
    same_card      INTEGER NOT NULL,   -- 1 one card, 0 two, -1 not recorded
    samples_old    INTEGER NOT NULL,
    samples_new    INTEGER NOT NULL,
    p              REAL,
    rel_change     REAL,
    threshold      REAL NOT NULL,
    threshold_from INTEGER NOT NULL,
    range_commits  INTEGER NOT NULL,   -- -1 unknown
    changed        TEXT
);

-- The cross-card thresholds the steps took, in the order the walk met them.
CREATE TABLE rg_noise (
    seq         INTEGER PRIMARY KEY,
    sku         TEXT NOT NULL,
    let_go      INTEGER NOT NULL,
    threshold   REAL NOT NULL,
    comparisons INTEGER NOT NULL
);

CREATE TABLE rg_basis (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    basis_sha256    TEXT NOT NULL,
    series_git      INTEGER NOT NULL,
    series_measured INTEGER NOT NULL,
    newest_epoch    INTEGER NOT NULL,  -- the newest finished time of a run, Unix seconds
    undated         INTEGER NOT NULL   -- runs whose finished time reports cannot read
);

CREATE TABLE rg_changes (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO rg_changes (id, n) VALUES (1, 0);

CREATE TRIGGER runs_rg_changes AFTER DELETE ON runs
BEGIN
  UPDATE rg_changes SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER commits_rg_insert AFTER INSERT ON commits
BEGIN
  UPDATE rg_changes SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER commits_rg_update AFTER UPDATE ON commits
BEGIN
  UPDATE rg_changes SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER commits_rg_delete AFTER DELETE ON commits
BEGIN
  UPDATE rg_changes SET n = n + 1 WHERE id = 1;
END;

-- 015_regression_steps.sql - the regression history (report/regress.h),
-- stored, so that `report regressions` and the weekly read its steps
-- instead of loading every run and testing every step's samples again,
-- and a report after an ingest walks again only the series it touched.
--
-- rg_groups holds each (case, provider, SKU) the walk went through, with
-- the number of its series in git order and in first-measured order.
-- rg_steps holds its steps in the list's order (seq), as the walk over
-- its series leaves them: before the thresholds of drift steps are
-- raised by their noise class and before the p-values of a commit step
-- are adjusted together (both depend on every series, and are done again
-- as the steps are read). old_commit and new_commit are rg_commits ids
-- (0: no old run), drift_class an rg_classes id (0 for steps that are not
-- drift), noise the rg_noise id of the cross-card threshold the step took
-- (0: none). Enumerations are the values of report/regress.h; a NULL real
-- is NAN there and a NULL changed is ''.
--
-- rg_commits holds each commit's earliest finished time among the result
-- runs (the order of a series whose commits the commits table does not
-- all know), rg_classes the noise class of drift steps (provider, SKU,
-- op, mode, relation of cards, tool, timer, held launch) as one text, and
-- rg_noise the cross-card thresholds of the SKUs.
--
-- rg_basis says what the steps were computed from: the SHA-256 of the
-- rule's settings, the number of result runs stored and the greatest id,
-- rg_changes.n and the schema version. A report uses the steps only while
-- they still hold (report/regress.h, sb_rg_update). rg_changes counts
-- what the number and the greatest id of the runs cannot show: deleted
-- runs (solbook forget) and any change to the commits table (its order is
-- the order of the series); after one of those every series is walked
-- again, after runs are added only the series of the added runs.
CREATE TABLE rg_groups (
    grp             INTEGER PRIMARY KEY,
    case_key        TEXT NOT NULL,
    provider        TEXT NOT NULL,
    sku             TEXT NOT NULL,
    series_git      INTEGER NOT NULL,
    series_measured INTEGER NOT NULL,
    UNIQUE (case_key, provider, sku)
);

CREATE TABLE rg_steps (
    grp            INTEGER NOT NULL,
    seq            INTEGER NOT NULL,
    old_run        INTEGER,            -- NULL: a single commit
    new_run        INTEGER NOT NULL,
    old_commit     INTEGER NOT NULL,
    new_commit     INTEGER NOT NULL,
    drift_class    INTEGER NOT NULL,
    noise          INTEGER NOT NULL,
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
    changed        TEXT,
    PRIMARY KEY (grp, seq)
) WITHOUT ROWID;

CREATE TABLE rg_commits (
    id          INTEGER PRIMARY KEY,
    sha         TEXT NOT NULL UNIQUE,
    first_epoch INTEGER NOT NULL       -- Unix seconds; the smallest integer when no run has a time
);

CREATE TABLE rg_classes (
    id        INTEGER PRIMARY KEY,
    class_key TEXT NOT NULL UNIQUE
);

CREATE TABLE rg_noise (
    id          INTEGER PRIMARY KEY,
    sku         TEXT NOT NULL,
    let_go      INTEGER NOT NULL,
    threshold   REAL NOT NULL,
    comparisons INTEGER NOT NULL,
    UNIQUE (sku, let_go)
);

CREATE TABLE rg_basis (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    rule_sha256  TEXT NOT NULL,
    runs         INTEGER NOT NULL,     -- rows of runs then
    last_run     INTEGER NOT NULL,     -- their greatest id
    changes      INTEGER NOT NULL,     -- rg_changes.n then
    schema       INTEGER NOT NULL,
    newest_epoch INTEGER NOT NULL,     -- the newest finished time of a result run
    undated      INTEGER NOT NULL      -- result runs whose finished time reports cannot read
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

-- 016_regression_settled.sql - the passes over every stored regression
-- step (report/regress.h), kept beside the steps, so that a report reads
-- the latest steps and a few figures instead of every step.
--
-- Two passes settle the steps the walk leaves (migration 015), and both
-- depend on many series:
--   - Benjamini-Hochberg adjusts the p-values of the tested steps of one
--     commit step together: the family is every step from one old commit
--     to one new commit (old_commit, new_commit), whatever its series,
--     whose verdict is a regression, an improvement or no change, with an
--     old run and a p-value. rg_steps.p_adjusted holds the result (NULL
--     for steps outside every family: their p stands);
--   - the drift steps of one noise class (drift_class) raise each
--     other's thresholds: rg_class_figs holds, for each class, what the
--     thresholds are computed from (whether it has more than the fewest
--     tested steps that give a threshold, the largest |change| and its
--     step, the second largest) and how many of its steps the settled
--     verdicts flag. The thresholds themselves are computed as the steps
--     are read.
-- rg_groups.drift_tested counts each group's drift steps whose verdict is
-- a regression, an improvement or no change.
--
-- Writing steps (db/rg_steps.h) notes the families and classes of the
-- steps it removes and adds in rg_dirty_families and rg_dirty_classes;
-- settling (sb_rg_update) computes those again and empties both.
-- Enumerations are report/regress.h's: verdicts 0 regression, 2
-- improvement, 3 no change; cause 1 drift.
ALTER TABLE rg_steps ADD COLUMN p_adjusted REAL;
ALTER TABLE rg_groups ADD COLUMN drift_tested INTEGER NOT NULL DEFAULT 0;

-- the members of one family
CREATE INDEX rg_steps_family ON rg_steps(old_commit, new_commit)
 WHERE old_commit != 0 AND verdict IN (0, 2, 3) AND p IS NOT NULL;
-- the latest steps of each group
CREATE INDEX rg_steps_latest ON rg_steps(grp, seq) WHERE latest != 0;
-- the tested drift steps of one class, by |change|
CREATE INDEX rg_steps_drift ON rg_steps(drift_class, abs(rel_change))
 WHERE drift_class != 0 AND cause = 1 AND verdict IN (0, 2, 3) AND old_commit != 0
   AND p IS NOT NULL AND rel_change IS NOT NULL;
-- the first step of a group that took a cross-card threshold
CREATE INDEX rg_steps_noise ON rg_steps(grp, noise, seq) WHERE noise != 0;

CREATE TABLE rg_class_figs (
    class         INTEGER PRIMARY KEY, -- rg_classes.id
    tested        INTEGER NOT NULL,    -- tested steps, counted up to SB_RG_DRIFT_MIN_CLASS + 1
    top_grp       INTEGER NOT NULL,    -- the step of the largest |change| (-1: none)
    top_seq       INTEGER NOT NULL,
    top_change    REAL NOT NULL,       -- 0 when none
    second_change REAL NOT NULL,       -- the largest |change| of the others; 0 when none
    flagged       INTEGER NOT NULL     -- steps whose settled verdict is a regression or an improvement
);

CREATE TABLE rg_dirty_families (
    old_commit INTEGER NOT NULL,
    new_commit INTEGER NOT NULL,
    PRIMARY KEY (old_commit, new_commit)
) WITHOUT ROWID;

CREATE TABLE rg_dirty_classes (
    class INTEGER PRIMARY KEY
);

-- The number of rows of runs, which tells whether the stored steps still
-- hold (rg_basis.runs), kept by two triggers instead of counted at each
-- report (a count reads the whole of an index of runs). A migration that
-- rebuilds runs must make these triggers again.
CREATE TABLE rg_runs (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO rg_runs (id, n) SELECT 1, count(*) FROM runs;

CREATE TRIGGER runs_rg_count_insert AFTER INSERT ON runs
BEGIN
  UPDATE rg_runs SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER runs_rg_count_delete AFTER DELETE ON runs
BEGIN
  UPDATE rg_runs SET n = n - 1 WHERE id = 1;
END;

-- steps stored before this migration have no settled figures: the
-- schema version in rg_basis no longer matches, so the next report
-- walks every series again and settles every step

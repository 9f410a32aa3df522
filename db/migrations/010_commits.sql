-- 010_commits.sql - the git history of the measured code, as
-- `solbook commits import` reads it from `git log --format='%H %P %ct'`
-- (db/commits.h). Reports order a case's commits by `ordinal` where this
-- table knows them, instead of by when they were first measured.
--
-- ordinal is a topological order of the imported graph: every parent in
-- the file before its children; among commits whose parents are all
-- placed, the earliest committed_at first, then the SHA. An import
-- replaces the whole table, so ordinals are of one history.
CREATE TABLE commits (
    sha          TEXT PRIMARY KEY,   -- 40 hex digits, lower case
    parents      TEXT NOT NULL,      -- parent SHAs separated by spaces; '' for a root
    committed_at INTEGER NOT NULL,   -- committer time, Unix seconds
    ordinal      INTEGER NOT NULL UNIQUE
);

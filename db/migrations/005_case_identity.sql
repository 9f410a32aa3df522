-- 003_case_identity.sql - a benchmark case is what was computed, not the
-- preset that happened to run it; runs timed under a profiler are marked.
--
-- case_key was suite|op|mode|dtype|shape_key|params_json, so one kernel and
-- shape measured by two presets (memory-bound and memory-bound-quick) at
-- two commits never met in a comparison. The suite stays in configs.suite as
-- a label; the key is now op|mode|dtype|shape_key|params_json (the params
-- are, by the schema, what defines the computation: weight dtype, eps,
-- accumulation, transposes). Provider and SKU are the other two parts of a
-- case's identity and sit in their own columns.
UPDATE configs SET case_key = op || '|' || mode || '|' || dtype || '|' || shape_key || '|' || params_json;

-- The profiler a run was timed under (ncu: Nsight Compute replays and
-- serialises every kernel, so its timings are several times the plain
-- ones). NULL: none. Such runs keep their metrics and profiler_metrics but
-- never count as timings (tables, geomeans, regressions, compare).
-- Recognised in stored runs by the producer's protocol.profiler, by the
-- presets named for it (suite ending in -ncu), and by an attached Nsight
-- Compute profile that holds at least as many profiled launches as the run
-- has samples (every timed launch ran under ncu: ncu_profile.sh's runs). A
-- profile of a separate profiling run attached to a timed run (the GEMM
-- spec's 250 samples beside a 3-launch profile) leaves it a timing.
ALTER TABLE configs ADD COLUMN profiler TEXT;
UPDATE configs SET profiler = coalesce(
        (SELECT json_extract(r.raw_json, '$.protocol.profiler') FROM runs r WHERE r.id = configs.run_id),
        'ncu')
 WHERE suite LIKE '%-ncu'
    OR (SELECT json_extract(r.raw_json, '$.protocol.profiler') FROM runs r WHERE r.id = configs.run_id) IS NOT NULL
    OR (SELECT m.sample_count FROM metrics m WHERE m.run_id = configs.run_id)
       <= (SELECT count(DISTINCT kernel_index) FROM profiler_metrics pm WHERE pm.run_id = configs.run_id);

-- The branch a run's commit was on, when the producer or the importer
-- (ingest --commit SHA --branch B) said so.
ALTER TABLE provenance ADD COLUMN git_branch TEXT;
UPDATE provenance SET git_branch = json_extract(r.raw_json, '$.provenance.git.branch')
  FROM runs AS r
 WHERE r.id = provenance.run_id
   AND json_extract(r.raw_json, '$.provenance.git.branch') IS NOT NULL;

-- 003_provenance_scheduler.sql - the batch scheduler's job in provenance.
--
-- A result written inside a Slurm job array or a Kubernetes Indexed Job
-- (solbook submit) carries provenance.scheduler: the engine, the job id (the
-- array's Slurm job id, or the Job's name) and the array task id (the Slurm
-- array index, or the completion index). NULL for files written outside a
-- scheduler and for files stored before this migration.

ALTER TABLE provenance ADD COLUMN scheduler TEXT;                  -- slurm | kubernetes
ALTER TABLE provenance ADD COLUMN scheduler_job_id TEXT;
ALTER TABLE provenance ADD COLUMN scheduler_array_task_id INTEGER;

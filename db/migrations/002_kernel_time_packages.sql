-- 002_kernel_time_packages.sql - kernel time beside call time, package
-- versions, and the Hugging Face baseline under the name its users know.
--
-- metrics.median_ms and its siblings are the call time: what a user of the
-- provider's API sees, the host's launch cost included. For a provider that
-- launches from Python that cost can exceed the kernel itself, so a
-- kernel-against-kernel comparison needs the GPU time apart. The kernel_*
-- columns hold it where the run measured it (timing.kernel in the JSON, or a
-- solbench run queued behind its blocking kernel), NULL elsewhere.
ALTER TABLE metrics ADD COLUMN kernel_median_ms REAL;
ALTER TABLE metrics ADD COLUMN kernel_p20_ms REAL;
ALTER TABLE metrics ADD COLUMN kernel_p80_ms REAL;
ALTER TABLE metrics ADD COLUMN kernel_sample_count INTEGER;
ALTER TABLE metrics ADD COLUMN kernel_method TEXT;   -- held-launch | profiler-kernel-sum

-- provenance.software.packages: {"torch": "2.11.0", "liger-kernel": "0.8.5", ...}
ALTER TABLE provenance ADD COLUMN packages_json TEXT NOT NULL DEFAULT '{}';

-- The unmodified Hugging Face / PyTorch eager code was stored as provider
-- torch-eager; Liger-Kernel's benchmarks and the people who read them call
-- it huggingface. raw_json keeps what the producer wrote.
UPDATE configs SET provider = 'huggingface' WHERE provider = 'torch-eager';

-- Backfill packages_json from the stored documents that name torch.
UPDATE provenance SET packages_json = json_object('torch', json_extract(r.raw_json, '$.config.run_params.torch_version'))
  FROM runs AS r
 WHERE r.id = provenance.run_id
   AND json_extract(r.raw_json, '$.config.run_params.torch_version') IS NOT NULL;

-- A solbench run queued behind its blocking kernel measured GPU time.
UPDATE metrics SET kernel_median_ms = median_ms, kernel_p20_ms = p20_ms, kernel_p80_ms = p80_ms,
                   kernel_sample_count = sample_count, kernel_method = 'held-launch'
 WHERE median_ms IS NOT NULL
   AND run_id IN (SELECT id FROM runs
                   WHERE json_extract(raw_json, '$.protocol.launch_hold') = 'blocking-kernel');

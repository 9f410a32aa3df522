-- 006_calibration_index.sql - the calibration runs, found without a scan.
--
-- The measured ceilings of a SKU come from its newest calibration run
-- (db/results_query.c, sb_ceilings_latest), looked up for every roofline.
-- Calibrations are a handful of runs among tens of thousands of results;
-- through provenance(sku, finished_at) the lookup read every run of the
-- SKU to find them. A partial index holds only the calibration runs, and
-- queries for other schemas cannot use it, so their plans stay as they are.
CREATE INDEX runs_calibration ON runs(id) WHERE schema = 'solbook.calibration.v1';

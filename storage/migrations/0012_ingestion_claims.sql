-- Ingestion jobs are claimed (#15): an `in_progress` file is worked on by the process whose token is
-- in `claimed_by` until `claim_until`; the holder renews its claims while it lives, and when it
-- dies any other process claims the file once the claim ran out. N processes (workers, replicas)
-- share the backlog, no file is lost with a process, and none is ingested twice at once.
ALTER TABLE vector_store_files ADD COLUMN claimed_by TEXT;
ALTER TABLE vector_store_files ADD COLUMN claim_until REAL;

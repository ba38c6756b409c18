-- PostgreSQL twin of storage/migrations/0007: an in-progress response's owner holds a lease until
-- `lease_until` (seconds since the epoch, from the database's clock, so replicas' clocks may differ).
ALTER TABLE responses ADD COLUMN lease_until DOUBLE PRECISION;
UPDATE responses SET lease_until = 0 WHERE owner IS NOT NULL;
CREATE INDEX responses_lease ON responses(lease_until) WHERE owner IS NOT NULL;

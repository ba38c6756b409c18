-- Ownership of an in-progress response is a lease: its producing process renews `lease_until`
-- while it runs, and any process fails a response whose lease ran out (the owner died, hung, or
-- its container was replaced). Rows owned before this migration get an expired lease.
ALTER TABLE responses ADD COLUMN lease_until REAL;
UPDATE responses SET lease_until = 0 WHERE owner IS NOT NULL;
CREATE INDEX responses_lease ON responses(lease_until) WHERE owner IS NOT NULL;

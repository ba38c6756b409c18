-- Background runs a stopping process could not finish (#17): the request to run again, kept until a
-- live process claims it. Meanwhile the response row waits as `queued` with no owner and no lease, so
-- the lease sweep leaves it alone; the claim leases it to the claimant in the same transaction.
CREATE TABLE response_requeue (
    response_id TEXT PRIMARY KEY,
    request BLOB NOT NULL,
    queued_at REAL NOT NULL
);

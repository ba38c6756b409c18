-- Cancellation asked of a background response that another process is producing. The producing
-- process polls for its own responses' rows, cancels the run and removes the row.
CREATE TABLE response_cancels (
    response_id  TEXT PRIMARY KEY,
    requested_at REAL NOT NULL
);

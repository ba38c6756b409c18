-- PostgreSQL twin of storage/migrations/0006. A row is also announced with NOTIFY gateway_cancel.
CREATE TABLE response_cancels (
    response_id  TEXT PRIMARY KEY,
    requested_at DOUBLE PRECISION NOT NULL
);

-- PostgreSQL twin of storage/migrations/0005.
CREATE TABLE response_events (
    response_id TEXT PRIMARY KEY,
    data        BYTEA NOT NULL
);

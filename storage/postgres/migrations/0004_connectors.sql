-- PostgreSQL twin of storage/migrations/0004. `seq` plays SQLite's rowid (list order).
CREATE TABLE connectors (
    seq        BIGSERIAL UNIQUE,
    id         TEXT PRIMARY KEY,
    created_at BIGINT NOT NULL,
    data       BYTEA  NOT NULL,
    secrets    BYTEA  NOT NULL
);

-- PostgreSQL twin of storage/migrations/0021.
-- Stored affinity (#27): the replica (`pool/host:port`) that served a chain's last turn, written
-- when it changes; internal, never part of any API object.
ALTER TABLE responses ADD COLUMN replica TEXT;
ALTER TABLE conversations ADD COLUMN replica TEXT;
CREATE TABLE cache_key_replicas (
    project TEXT NOT NULL,
    cache_key TEXT NOT NULL,
    replica TEXT NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (project, cache_key)
);

-- Stored affinity (#27): the replica (`pool/host:port`) that served a chain's last turn, so every
-- gateway process and replica sends the chain's next turn to the prefix (KV) cache that holds it.
-- Written only when it changes (a chain's first turn, or a move past the load bound); a response's
-- replica is read as its nearest ancestor's along `previous_response_id`. Internal: never part of
-- any API object (the columns are outside `data`).
ALTER TABLE responses ADD COLUMN replica TEXT;
ALTER TABLE conversations ADD COLUMN replica TEXT;
CREATE TABLE cache_key_replicas (
    project TEXT NOT NULL,
    cache_key TEXT NOT NULL,
    replica TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (project, cache_key)
);

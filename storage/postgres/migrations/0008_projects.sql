-- Tenancy (#16): every top-level row belongs to a project; rows written before this version move to
-- the default project, so an upgrade loses nothing. Stores filter every read, update and delete by
-- the caller's project (storage/scope.py). Items carry the project of the request that first stored
-- them, so an item_reference never reaches another project's item.
ALTER TABLE responses ADD COLUMN project TEXT NOT NULL DEFAULT 'default';
ALTER TABLE items ADD COLUMN project TEXT NOT NULL DEFAULT 'default';
ALTER TABLE conversations ADD COLUMN project TEXT NOT NULL DEFAULT 'default';
ALTER TABLE files ADD COLUMN project TEXT NOT NULL DEFAULT 'default';
ALTER TABLE vector_stores ADD COLUMN project TEXT NOT NULL DEFAULT 'default';
ALTER TABLE prompts ADD COLUMN project TEXT NOT NULL DEFAULT 'default';
ALTER TABLE connectors ADD COLUMN project TEXT NOT NULL DEFAULT 'default';
CREATE INDEX files_project ON files(project);
CREATE INDEX vector_stores_project ON vector_stores(project);
CREATE INDEX connectors_project ON connectors(project);
CREATE INDEX prompts_project ON prompts(project, created_at, id);

-- API keys: only a SHA-256 of the secret is kept (keys are 256-bit random, so a fast hash is safe
-- and a lookup costs one indexed read); `prefix` is what listings show.
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    prefix TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT,
    revoked_at BIGINT,
    last_used_at BIGINT
);
CREATE INDEX api_keys_project ON api_keys(project, created_at);

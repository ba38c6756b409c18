-- The usage ledger, shared limits and per-key limits (#30).
-- usage_records: one row per model call (raw, kept for GATEWAY_USAGE_RETENTION_DAYS);
-- usage_minutes / usage_hours / usage_days: the same calls rolled up (what the Usage and Costs APIs read).
CREATE TABLE usage_records (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    project TEXT NOT NULL,
    api_key_id TEXT NOT NULL DEFAULT '',
    model TEXT NOT NULL,
    pool TEXT NOT NULL DEFAULT '',
    replica TEXT NOT NULL DEFAULT '',
    door TEXT NOT NULL,
    source TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    estimated INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX usage_records_at ON usage_records (at);
CREATE TABLE usage_minutes (
    start INTEGER NOT NULL,
    kind TEXT NOT NULL,
    project TEXT NOT NULL,
    api_key_id TEXT NOT NULL,
    model TEXT NOT NULL,
    pool TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    estimated INTEGER NOT NULL,
    PRIMARY KEY (start, kind, project, api_key_id, model, pool)
);
CREATE TABLE usage_hours (
    start INTEGER NOT NULL,
    kind TEXT NOT NULL,
    project TEXT NOT NULL,
    api_key_id TEXT NOT NULL,
    model TEXT NOT NULL,
    pool TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    estimated INTEGER NOT NULL,
    PRIMARY KEY (start, kind, project, api_key_id, model, pool)
);
CREATE TABLE usage_days (
    start INTEGER NOT NULL,
    kind TEXT NOT NULL,
    project TEXT NOT NULL,
    api_key_id TEXT NOT NULL,
    model TEXT NOT NULL,
    pool TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    estimated INTEGER NOT NULL,
    PRIMARY KEY (start, kind, project, api_key_id, model, pool)
);
-- Shared limits: what every process has taken of a scope's allowance in one minute window
-- (leases of quota: a process takes several units at once while far from the limit).
CREATE TABLE rate_windows (
    scope TEXT NOT NULL,
    metric TEXT NOT NULL,
    window_start INTEGER NOT NULL,
    used INTEGER NOT NULL,
    PRIMARY KEY (scope, metric, window_start)
);
-- Per-key limits set at creation: JSON {"requests_per_minute": n, "tokens_per_minute": n}.
ALTER TABLE api_keys ADD COLUMN limits TEXT;

-- Research runs' queue (#13): one row per run waiting for or holding a slot. The limits
-- (GATEWAY_RESEARCH_MAX_STANDARD / _MAX_DEEP) hold for every process on this database: a run starts
-- when fewer than the limit of its kind run and no older run of its kind waits (FIFO). Rows carry a
-- lease renewed by their process; a dead process's rows expire and free their slots.
CREATE TABLE research_queue (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    project TEXT NOT NULL DEFAULT 'default',
    owner TEXT NOT NULL,
    running INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    lease_until REAL NOT NULL
);
CREATE INDEX research_queue_kind ON research_queue(kind, created_at);

-- Files, vector stores and their ingestion state. List order is insertion order (rowid), which is
-- creation order; cursors (`after`/`before`) are translated to rowids.
CREATE TABLE files (
    id           TEXT PRIMARY KEY,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER,            -- NULL: kept until deleted
    purpose      TEXT    NOT NULL,
    filename     TEXT    NOT NULL,
    bytes        INTEGER NOT NULL,
    content_type TEXT,
    blob         TEXT    NOT NULL    -- key in the FileBlobStore
);
CREATE INDEX files_purpose ON files(purpose);
CREATE INDEX files_expiry ON files(expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE vector_stores (
    id             TEXT PRIMARY KEY,
    created_at     INTEGER NOT NULL,
    last_active_at INTEGER NOT NULL,
    expires_at     INTEGER,
    embedder       TEXT    NOT NULL,  -- the embedder every vector in this store comes from
    dimension      INTEGER NOT NULL,
    data           BLOB    NOT NULL   -- name, metadata, expires_after, description
);

-- One row per file attached to a store; `in_progress` rows are the pending ingestion work that a
-- restarted HTTP server picks up again.
CREATE TABLE vector_store_files (
    store_id    TEXT    NOT NULL,
    file_id     TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    status      TEXT    NOT NULL,     -- in_progress | completed | failed | cancelled
    batch_id    TEXT,
    usage_bytes INTEGER NOT NULL DEFAULT 0,
    last_error  BLOB,
    attributes  BLOB    NOT NULL,
    chunking    BLOB    NOT NULL,
    PRIMARY KEY (store_id, file_id)
);
CREATE INDEX vector_store_files_pending ON vector_store_files(status) WHERE status = 'in_progress';
CREATE INDEX vector_store_files_file ON vector_store_files(file_id);
CREATE INDEX vector_store_files_batch ON vector_store_files(batch_id) WHERE batch_id IS NOT NULL;

CREATE TABLE vector_store_file_batches (
    id         TEXT PRIMARY KEY,
    store_id   TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    cancelled  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX vector_store_file_batches_store ON vector_store_file_batches(store_id);

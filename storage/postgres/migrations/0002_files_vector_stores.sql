-- PostgreSQL twin of storage/migrations/0002. List order is insertion order: `seq` plays SQLite's rowid.
CREATE TABLE files (
    seq          BIGSERIAL UNIQUE,
    id           TEXT PRIMARY KEY,
    created_at   BIGINT  NOT NULL,
    expires_at   BIGINT,
    purpose      TEXT    NOT NULL,
    filename     TEXT    NOT NULL,
    bytes        BIGINT  NOT NULL,
    content_type TEXT,
    blob         TEXT    NOT NULL
);
CREATE INDEX files_purpose ON files(purpose);
CREATE INDEX files_expiry ON files(expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE vector_stores (
    seq            BIGSERIAL UNIQUE,
    id             TEXT PRIMARY KEY,
    created_at     BIGINT  NOT NULL,
    last_active_at BIGINT  NOT NULL,
    expires_at     BIGINT,
    embedder       TEXT    NOT NULL,
    dimension      INTEGER NOT NULL,
    data           BYTEA   NOT NULL
);

CREATE TABLE vector_store_files (
    seq         BIGSERIAL UNIQUE,
    store_id    TEXT    NOT NULL,
    file_id     TEXT    NOT NULL,
    created_at  BIGINT  NOT NULL,
    status      TEXT    NOT NULL,
    batch_id    TEXT,
    usage_bytes BIGINT  NOT NULL DEFAULT 0,
    last_error  BYTEA,
    attributes  BYTEA   NOT NULL,
    chunking    BYTEA   NOT NULL,
    PRIMARY KEY (store_id, file_id)
);
CREATE INDEX vector_store_files_pending ON vector_store_files(status) WHERE status = 'in_progress';
CREATE INDEX vector_store_files_file ON vector_store_files(file_id);
CREATE INDEX vector_store_files_batch ON vector_store_files(batch_id) WHERE batch_id IS NOT NULL;

CREATE TABLE vector_store_file_batches (
    id         TEXT PRIMARY KEY,
    store_id   TEXT    NOT NULL,
    created_at BIGINT  NOT NULL,
    cancelled  SMALLINT NOT NULL DEFAULT 0
);
CREATE INDEX vector_store_file_batches_store ON vector_store_file_batches(store_id);

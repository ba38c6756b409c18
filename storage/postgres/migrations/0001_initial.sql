-- PostgreSQL twin of storage/migrations/0001_initial.sql (same tables, same meaning).
CREATE TABLE responses (
    id                   TEXT PRIMARY KEY,
    created_at           DOUBLE PRECISION NOT NULL,
    updated_at           DOUBLE PRECISION NOT NULL,
    status               TEXT NOT NULL,
    previous_response_id TEXT,
    conversation_id      TEXT,
    owner                TEXT,
    data                 BYTEA NOT NULL
);
CREATE INDEX responses_owner ON responses(owner) WHERE owner IS NOT NULL;

CREATE TABLE items (
    id         TEXT PRIMARY KEY,
    type       TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    data       BYTEA NOT NULL
);

CREATE TABLE response_items (
    response_id TEXT     NOT NULL,
    role        SMALLINT NOT NULL,
    position    INTEGER  NOT NULL,
    item_id     TEXT     NOT NULL,
    PRIMARY KEY (response_id, role, position)
);
CREATE INDEX response_items_item ON response_items(item_id);

CREATE TABLE conversations (
    id         TEXT PRIMARY KEY,
    created_at BIGINT NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    metadata   BYTEA NOT NULL
);

CREATE TABLE conversation_items (
    conversation_id TEXT    NOT NULL,
    position        INTEGER NOT NULL,
    item_id         TEXT    NOT NULL,
    PRIMARY KEY (conversation_id, position)
);
CREATE INDEX conversation_items_item ON conversation_items(item_id, conversation_id);

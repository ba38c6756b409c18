-- Items are stored once; responses and conversations reference them by position.
CREATE TABLE responses (
    id                   TEXT PRIMARY KEY,
    created_at           REAL NOT NULL,
    updated_at           REAL NOT NULL,
    status               TEXT NOT NULL,
    previous_response_id TEXT,
    conversation_id      TEXT,
    owner                TEXT,      -- "host:pid:start" of the live producer; NULL once terminal
    data                 BLOB NOT NULL  -- the Response object without `output`
);
CREATE INDEX responses_owner ON responses(owner) WHERE owner IS NOT NULL;

CREATE TABLE items (
    id         TEXT PRIMARY KEY,
    type       TEXT NOT NULL,
    created_at REAL NOT NULL,
    data       BLOB NOT NULL
);

CREATE TABLE response_items (
    response_id TEXT    NOT NULL,
    role        INTEGER NOT NULL,  -- 0 = input, 1 = output
    position    INTEGER NOT NULL,
    item_id     TEXT    NOT NULL,
    PRIMARY KEY (response_id, role, position)
) WITHOUT ROWID;
CREATE INDEX response_items_item ON response_items(item_id);

CREATE TABLE conversations (
    id         TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    updated_at REAL NOT NULL,
    metadata   BLOB NOT NULL
);

CREATE TABLE conversation_items (
    conversation_id TEXT    NOT NULL,
    position        INTEGER NOT NULL,
    item_id         TEXT    NOT NULL,
    PRIMARY KEY (conversation_id, position)
) WITHOUT ROWID;
CREATE INDEX conversation_items_item ON conversation_items(item_id, conversation_id);

-- MCP connectors: named MCP servers clients refer to by `connector_id` instead of a URL and secrets.
-- `data` is the public object (never holds credentials); `secrets` holds headers/authorization and
-- is read only by the MCP tool when it connects. List order is insertion order (rowid).
CREATE TABLE connectors (
    id         TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    data       BLOB    NOT NULL,
    secrets    BLOB    NOT NULL
);

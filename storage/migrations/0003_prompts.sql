-- Prompt templates (/v1/prompts). A prompt row points at its default and latest versions; each
-- version is immutable once written (an update adds a version, it never rewrites one).
CREATE TABLE prompts (
    id              TEXT    PRIMARY KEY,
    created_at      REAL    NOT NULL,
    default_version INTEGER NOT NULL,
    latest_version  INTEGER NOT NULL
);
CREATE INDEX prompts_created ON prompts(created_at, id);

CREATE TABLE prompt_versions (
    prompt_id  TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    created_at REAL    NOT NULL,
    data       BLOB    NOT NULL,  -- the version's template fields (JSON)
    PRIMARY KEY (prompt_id, version)
) WITHOUT ROWID;

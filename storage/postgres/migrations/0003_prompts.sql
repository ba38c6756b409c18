-- PostgreSQL twin of storage/migrations/0003.
CREATE TABLE prompts (
    id              TEXT    PRIMARY KEY,
    created_at      DOUBLE PRECISION NOT NULL,
    default_version INTEGER NOT NULL,
    latest_version  INTEGER NOT NULL
);
CREATE INDEX prompts_created ON prompts(created_at, id);

CREATE TABLE prompt_versions (
    prompt_id  TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    data       BYTEA   NOT NULL,
    PRIMARY KEY (prompt_id, version)
);

-- PostgreSQL twin of storage/migrations/0009_knowledge_graph.sql (same tables and keys).
-- Knowledge graph (#12): entities, their mentions in chunks and the relations between them, per
-- vector store. Graph rows are reached only through a vector-store id (the vector store lookup is what
-- the project scope filters), so they carry no project column of their own. Mentions and relations are
-- kept per file, so re-ingesting a file replaces its rows and deleting a file takes them with it.
CREATE TABLE kg_entities (
    store_id TEXT NOT NULL,
    key      TEXT NOT NULL,             -- normalised name (lower case, single spaces, no punctuation)
    name     TEXT NOT NULL,             -- the name as first seen
    type     TEXT NOT NULL,             -- person, organization, product, place, title, entity, ...
    aliases  BYTEA NOT NULL DEFAULT '[]'::bytea,-- JSON array of other spellings seen
    PRIMARY KEY (store_id, key)
);

CREATE TABLE kg_mentions (
    store_id TEXT    NOT NULL,
    file_id  TEXT    NOT NULL,
    chunk_id TEXT    NOT NULL,
    entity   TEXT    NOT NULL,          -- kg_entities.key
    count    BIGINT NOT NULL,
    subject  INTEGER NOT NULL DEFAULT 0,-- 1: the entity is what the document is about (its title)
    PRIMARY KEY (store_id, entity, file_id, chunk_id)
);
CREATE INDEX kg_mentions_file ON kg_mentions(store_id, file_id);

CREATE TABLE kg_relations (
    store_id TEXT NOT NULL,
    file_id  TEXT NOT NULL,
    source   TEXT NOT NULL,             -- kg_entities.key
    target   TEXT NOT NULL,
    type     TEXT NOT NULL,             -- founded_by, made_by, born_in, part_of, located_in, co_occurs, ...
    weight   DOUBLE PRECISION NOT NULL,
    chunk_id TEXT NOT NULL,             -- where the text says it (the first such chunk of the file)
    PRIMARY KEY (store_id, file_id, source, target, type)
);
CREATE INDEX kg_relations_source ON kg_relations(store_id, source);
CREATE INDEX kg_relations_target ON kg_relations(store_id, target);

-- One row per extracted file: what makes extraction incremental (a file already here is not redone)
-- and the titles the extractor knows as entity names.
CREATE TABLE kg_files (
    store_id     TEXT    NOT NULL,
    file_id      TEXT    NOT NULL,
    title        TEXT    NOT NULL,
    extracted_at BIGINT NOT NULL,
    extractor    TEXT    NOT NULL,
    PRIMARY KEY (store_id, file_id)
);

-- Knowledge-graph lookups by chunk (#28): the kg ranker reads, per query, the entities and the typed
-- relations of its few candidate chunks. Without these, both were a scan of the store's whole graph.
CREATE INDEX kg_mentions_chunk ON kg_mentions(store_id, chunk_id);
CREATE INDEX kg_relations_chunk ON kg_relations(store_id, chunk_id);

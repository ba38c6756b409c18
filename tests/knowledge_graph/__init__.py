"""The knowledge graph (gateway/knowledge_graph): stores, extractors, the `kg` ranker."""

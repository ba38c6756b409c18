"""Retrieval (gateway/retrieval): ingestion and search; the labelled corpus lives here too."""

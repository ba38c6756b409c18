"""Retrieval: embedders, chunking, text extraction and vector backends (sqlite-vec, Milvus)."""

"""The retrieval core (vectorstore/): vector backends, embedders, extraction and chunking."""

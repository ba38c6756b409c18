"""Files, vector stores, background ingestion and search: everything behind the Files and Vector
Stores APIs and the file_search tool, on top of the retrieval core in `vectorstore/`."""

"""Knowledge graph of the vector stores (#12): extraction at ingestion, the graph store, the `kg` ranker."""

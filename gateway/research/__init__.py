"""Research mode: several rounds of web and knowledge-base search, pages read, notes kept, and a
sourced answer streamed, for chat completions (`research ...` / `deep research ...`) and the
Responses API (`model: "research" | "deep-research"`).

- `orchestrator.py` the run itself, as an async stream of progress and answer events (transport-free)
- `llm.py`          the backend calls a run makes (query planning, the streamed answer)
- `queue.py`        slots shared by every process on the database (FIFO per kind, leases)
- `chat.py`         the chat-completions trigger and its `chat.completion(.chunk)` shapes
- `responses.py`    the Responses API's deep-research shape (items and events)
"""

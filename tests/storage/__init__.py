"""The stores (storage/): conformance on SQLite and PostgreSQL, query plans, durability."""

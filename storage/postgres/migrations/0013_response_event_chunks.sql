-- Live streams across processes (#15): while a background response runs, its producer appends its
-- events here in small batches, so `GET /v1/responses/{id}?stream=true` on any other process or
-- replica follows it live. The terminal write keeps the whole stream in response_events and drops
-- these rows.
CREATE TABLE response_event_chunks (
    response_id TEXT NOT NULL,
    first_seq INTEGER NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (response_id, first_seq)
);

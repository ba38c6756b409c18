-- The event stream of a background response, kept so a client can resume it
-- (`GET /v1/responses/{id}?stream=true&starting_after=N`) after the run has ended. One row per
-- response, written with its terminal snapshot; `data` is a JSON array of events.
CREATE TABLE response_events (
    response_id TEXT PRIMARY KEY,
    data        BLOB NOT NULL
);

-- The budget check reads one project's month of hourly buckets (storage.usage.SPENT_SQL, #30): an
-- index by (project, start) makes it a lookup of that project's rows, not a range of every project's.
CREATE INDEX usage_hours_project ON usage_hours (project, start);

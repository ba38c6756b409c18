-- cache_key_replicas are pruned by age (#27's leftover, `StateStore.prune_cache_keys`, on the lease
-- sweep's beat): the index makes finding the old rows a range of it, not a scan of every key's row.
CREATE INDEX cache_key_replicas_age ON cache_key_replicas (updated_at);

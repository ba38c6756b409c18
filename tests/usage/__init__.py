"""The usage ledger, budgets and shared limits (gateway/usage)."""

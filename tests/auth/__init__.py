"""API keys, projects and per-tenant limits, through both doors."""

"""Operations: metrics and drain end to end, packaging, deployment files, layering, settings table."""

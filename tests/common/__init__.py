"""What every layer uses (gateway/common): redaction."""

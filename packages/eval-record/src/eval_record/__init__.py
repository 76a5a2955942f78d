"""`eval record`: a real run becomes a Case's script (see docs/record.md)."""

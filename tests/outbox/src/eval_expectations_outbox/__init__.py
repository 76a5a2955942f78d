"""The outbox family: proof that a team adds a family with fixtures using the public contract."""

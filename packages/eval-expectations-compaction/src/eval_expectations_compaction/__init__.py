"""The compaction family: ``contextTokenBudget``, a budget that forces the runtime to compact."""

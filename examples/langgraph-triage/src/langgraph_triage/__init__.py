"""A support-ticket triage agent built on LangGraph: it knows nothing of the eval harness."""

"""A team's langgraph agents as the eval harness's Host."""

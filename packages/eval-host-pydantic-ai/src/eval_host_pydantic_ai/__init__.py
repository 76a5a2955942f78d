"""A team's pydantic-ai agents as the eval harness's Host."""

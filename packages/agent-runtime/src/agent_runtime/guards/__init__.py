"""The gate's checks: guardrails, the detectors they use, capability restrictions and autonomy."""

"""What one Turn did: the prompt, the output, the Tool calls, the guardrails, the status.

Five families, each its own entry point; the core registers none of them itself.
"""

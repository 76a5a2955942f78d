"""The durable tier: Runs with leases and fences, the durable Turn executor, retry waits and
replies."""

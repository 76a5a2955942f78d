"""One Turn: the tool loop, its settings and steps, the context it assembles and compacts."""

"""The core's own Expectation families, registered by entry point like any plug-in."""

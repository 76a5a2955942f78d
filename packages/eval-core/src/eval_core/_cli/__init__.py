"""The eval command line."""

"""Mechanisms with no notion of a Case: atomic writes, bounded input files, dot paths, value rules,
the plug-in call guard, code fingerprints and the content-keyed caches.
"""

"""The plug-in author's kit: the testing kit, the conformance checks, the scaffold and the pytest
plug-in.
"""

"""The plug-in author's kit: the testing kit, the conformance checks and the pytest plug-in (the
scaffold is the eval-scaffold package's).
"""

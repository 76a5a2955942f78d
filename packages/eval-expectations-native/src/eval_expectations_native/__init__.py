"""The native Expectation family, shipped as its own plug-in package."""

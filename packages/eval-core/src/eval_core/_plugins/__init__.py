"""The plug-in contract and its manager: the hooks, the Host, model-source, executor and command
ports, fixtures and Host services, the installed plug-in set and its lock.
"""

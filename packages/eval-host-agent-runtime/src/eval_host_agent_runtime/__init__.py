"""The reference agent runtime as the eval harness's Host: translation between the two only.

The runtime knows nothing of the harness; this package hands a Case to its real assembler and
tool loop, offers its capabilities to fixtures as services, and maps what it did back into
Evidence. Another team's runtime plugs in the same way, with a package like this one.
"""

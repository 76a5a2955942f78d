"""Wire formats: how a neutral model call is spoken to a vendor's HTTP API, and back.

Each vendor module translates :class:`~eval_core.hosts.ModelCallRequest` into one vendor's
request body, reads that body back as the record of what was sent (``recorded``), and reads the
vendor's reply into :class:`~eval_core.hosts.ModelReply`; :mod:`.files` says which attached Files
go as binary parts; :mod:`.tokens` reads the usage counts a reply is billed by;
:mod:`.transport` owns the HTTP exchange and turns every fault into a ``model_*`` reason. No
vendor SDK: the harness owns retries and billing, so nothing below may retry or hide an attempt.
"""

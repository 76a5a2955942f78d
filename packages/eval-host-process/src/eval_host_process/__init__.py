"""Any agent, in any language, as the system under test: the ``process`` Host."""

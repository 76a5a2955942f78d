"""The doctor family: the Soul's repair pass after a Turn (``doctor``), ``doctor_repaired`` and
``doctor_escalated``."""

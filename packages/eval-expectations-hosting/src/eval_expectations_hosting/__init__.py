"""The hosting family: ``hostingAuthority`` (who hosts the Soul repository) and
``safetyHostingAuthority`` (whether the platform's safety floor applies)."""

"""Native channels: the inbox, the routes, the account authority and admission of a Routine."""

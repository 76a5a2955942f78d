"""The runtime's database: its connection port, migrations, and the PostgreSQL store."""

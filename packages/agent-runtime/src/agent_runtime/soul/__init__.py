"""The Soul: its loader, its files, its git repository and publications, and the doctor."""

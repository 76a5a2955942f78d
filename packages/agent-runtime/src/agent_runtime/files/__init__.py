"""Files: the content-addressed store, the File Tools, attachments and the documents they read."""

"""The integration-reply family: a Turn's answer the integration did not deliver
(``integrationReply``), scored by the durable Run's status."""

"""Loading a Corpus: Case files checked against the plug-ins and the Eval Soul, grounded, hashed;
the JSON Schema; opening a Corpus for a command.
"""

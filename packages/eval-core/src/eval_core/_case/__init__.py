"""The Case and what is observed of it: the Case model, a kind's Expectation and Verdict, Evidence
and its witnesses.
"""

"""What durable Runs did: run events and statuses, journeys of several Turns, faults.

Three families, each its own entry point, with the fixtures that read the Host's database back.
"""

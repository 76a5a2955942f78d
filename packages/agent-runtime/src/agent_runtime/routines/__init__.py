"""Routines: their definitions and forms, and Runs of their States by workers."""

"""The red-team family: which attacks the guards hold, and how often the model resists the rest."""

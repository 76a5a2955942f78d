"""What a Sweep leaves to read again: the trial log (resumable) and the transcripts beside it."""

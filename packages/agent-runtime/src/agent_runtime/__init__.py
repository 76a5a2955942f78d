"""The reference agent runtime: Soul loader, context assembler, tool loop and guardrails."""

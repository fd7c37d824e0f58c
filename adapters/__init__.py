"""Platform adapters: translate platform events into engine calls and results into messages."""

"""The dashboard: who is asking (auth), what they see (views), what /dashboard answers."""

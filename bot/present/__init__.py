"""Presentation: reply plans, rendering, UI strings, pictures and platform limits."""

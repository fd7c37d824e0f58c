"""The domain: the quiz content model, results, learning rules, payloads and errors.

It imports nothing from the floors above it (features, app, store, present, adapters).
"""

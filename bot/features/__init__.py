"""Features: solo sessions (the engine), review, rounds, reminders, jobs."""

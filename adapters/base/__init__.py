"""What every adapter shares."""

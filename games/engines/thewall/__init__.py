"""The Wall (seed 000)."""

"""The Great Wall: Black Powder (seed 004): a compact base game with the whole Black Powder expansion."""

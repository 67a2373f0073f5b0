"""Wildlings at the Wall: the rules engine (``rules``), the card data (``cards``) and the board
renderer (``svg``). The rules digest is ``seeds/wildlings.md``."""

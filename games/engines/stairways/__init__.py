"""Walls and Stairways: the rules engine (``rules``), its geometry (``board``), starting layouts and
their checks (``layouts``: ``layout_validate``) and the board renderer (``svg``)."""

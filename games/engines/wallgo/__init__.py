"""Wall Go: the rules engine (``rules``) and its board renderer (``svg``)."""

"""The REST API: thin DRF views over the same services and selectors as the web pages."""

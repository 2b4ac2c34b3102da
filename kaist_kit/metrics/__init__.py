"""Metrics as specs and the evaluators that compute them."""

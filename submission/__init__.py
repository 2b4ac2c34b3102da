"""Packaging, validating and self-scoring challenge entries (`kaist-kit submit`)."""

"""Converters from every KAIST annotation format to COCO JSON (`kaist-kit convert`)."""

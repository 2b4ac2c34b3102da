"""What the scoring verbs do on any benchmark: the request, the findings, the comparison, the report."""

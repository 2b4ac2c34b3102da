"""What the verbs show: tables, figures, drawn frames."""

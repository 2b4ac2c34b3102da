"""The data the kit scores: ground truths, detections and their readers."""
